// SPDX-License-Identifier: MIT
/*
 * The fault walk: every ioctl path of the driver, with its 1st, 2nd, ...
 * Nth fault-injection point failed in turn until the call succeeds.
 *
 * The points are the driver's own (common/fault.h: DRAM, pinning, DMA
 * mapping, page tables, dma-buf, fences, NIC), the slab allocations and the
 * user copies made from the driver's code (failslab and fail_usercopy, whose
 * stack-trace filter is set to the module's text), all counted by the
 * kernel's systematic fault injection, /proc/thread-self/fail-nth
 * (Documentation/fault-injection/fault-injection.rst). For each failed call:
 *   - it returns one of the errnos documented for it;
 *   - the device state is what it was before the call: the driver's debugfs
 *     <pci address>/state (DRAM and page-table pool use, pinned host pages,
 *     contexts, handles, mappings, hop tables, NIC connections, CQs and
 *     memory regions,
 *     exports) and the process's open fds;
 * and the kernel log stays clean (the VM's log check and kmemleak scan).
 *
 * The last paths take the VM's edu device from hl_importer to hl_umem (the
 * RDMA core's ib_umem_dmabuf importer) and give it back at the end.
 *
 * Needs a kernel with CONFIG_FAULT_INJECTION, FAILSLAB,
 * FAULT_INJECTION_USERCOPY, FAULT_INJECTION_DEBUG_FS and
 * FAULT_INJECTION_STACKTRACE_FILTER (the debug kernel, make check-debug);
 * skipped elsewhere. Runs as root (debugfs). Prints one line per path and a
 * total: "fault-walk: P paths, N points failed, ...".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hltests.h"
#include "../importer/hl_importer.h"
#include "../importer/hl_umem.h"

#define DBG		"/sys/kernel/debug"
#define FAULT_DIR	DBG "/habanalabs/fault"
#define MAX_POINTS	400	/* more than any path has: a path that never succeeds fails */
/* The same for probe, whose count moves with the timing: 393 to 402 seen */
#define MAX_PROBE_POINTS	1000
#define MAX_STATE	32

/* ---- the framework's knobs, set for the walk and restored after ---- */

struct knob {
	char path[160];
	char old[64];
	bool saved;
};

static struct knob knobs[64];
static int num_knobs;

static int set_knob(const char *path, const char *value)
{
	struct knob *k;

	if (num_knobs == (int)(sizeof(knobs) / sizeof(knobs[0])))
		return -ENOSPC;
	k = &knobs[num_knobs];
	snprintf(k->path, sizeof(k->path), "%s", path);
	if (hltests_read_file(path, k->old, sizeof(k->old)))
		return -ENOENT;
	k->saved = true;
	num_knobs++;
	return hltests_write_file(path, value);
}

static void restore_knobs(void)
{
	while (num_knobs > 0) {
		struct knob *k = &knobs[--num_knobs];

		if (k->saved)
			hltests_write_file(k->path, k->old);
	}
}

static const char *const driver_points[] = {
	"fail_dram", "fail_pin", "fail_dma_map", "fail_mmu",
	"fail_dmabuf", "fail_fence", "fail_nic",
};

/*
 * Kernel-wide attrs, restricted to calls from the driver's text: its slab
 * allocations and user copies count; page allocations (fail_page_alloc
 * skips sleeping ones and order 0 by default) are filtered so that nothing
 * outside the driver's stack counts.
 */
static const char *const kernel_attrs[] = { "failslab", "fail_usercopy", "fail_page_alloc" };

static char why_unavailable[200];

/*
 * [start, end) of a kernel function, from /proc/kallsyms (end: the next
 * symbol); 0 when it is not there.
 */
static int kernel_function_range(const char *name, unsigned long long *start,
				 unsigned long long *end)
{
	unsigned long long addr, next = ~0ull;
	char line[256], sym[128], type;
	FILE *f = fopen("/proc/kallsyms", "r");

	*start = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name))
			*start = addr;
	rewind(f);
	while (*start && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &addr, &type, sym) == 3 &&
		    addr > *start && addr < next)
			next = addr;
	fclose(f);
	*end = next;
	return *start && next != ~0ull ? 0 : -ENOENT;
}

static int setup_framework(void)
{
	char path[160], text[64], start[32], end[32];
	unsigned long long rej_start = 0, rej_end = 0;
	size_t i;
	int rc = 0;

	if (access("/proc/thread-self/fail-nth", W_OK)) {
		snprintf(why_unavailable, sizeof(why_unavailable),
			 "no /proc/thread-self/fail-nth (kernel without CONFIG_FAULT_INJECTION)");
		return -1;
	}
	if (hltests_read_file(FAULT_DIR "/text", text, sizeof(text)) ||
	    sscanf(text, "%31s %31s", start, end) != 2) {
		snprintf(why_unavailable, sizeof(why_unavailable),
			 "no %s/text (driver built without fault points)", FAULT_DIR);
		return -1;
	}
	/* Quiet: no stack dump per injected fault */
	for (i = 0; i < sizeof(driver_points) / sizeof(driver_points[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s/verbose", FAULT_DIR, driver_points[i]);
		rc |= set_knob(path, "0");
	}
	for (i = 0; i < sizeof(kernel_attrs) / sizeof(kernel_attrs[0]); i++) {
		snprintf(path, sizeof(path), DBG "/%s/verbose", kernel_attrs[i]);
		rc |= set_knob(path, "0");
		snprintf(path, sizeof(path), DBG "/%s/require-start", kernel_attrs[i]);
		rc |= set_knob(path, start);
		snprintf(path, sizeof(path), DBG "/%s/require-end", kernel_attrs[i]);
		rc |= set_knob(path, end);
		snprintf(path, sizeof(path), DBG "/%s/stacktrace-depth", kernel_attrs[i]);
		rc |= set_knob(path, "32");
	}
	/* Sleeping (GFP_KERNEL) allocations too: the driver's usual kind */
	rc |= set_knob(DBG "/failslab/ignore-gfp-wait", "N");
	/*
	 * Not DMA-API debugging's own bookkeeping, made on the driver's
	 * stack when it maps: a failed insert there ("cacheline tracking
	 * ENOMEM") switches DMA-API debugging off for the rest of the run.
	 */
	if (!kernel_function_range("add_dma_entry", &rej_start, &rej_end)) {
		snprintf(start, sizeof(start), "0x%llx", rej_start);
		snprintf(end, sizeof(end), "0x%llx", rej_end);
		rc |= set_knob(DBG "/failslab/reject-start", start);
		rc |= set_knob(DBG "/failslab/reject-end", end);
	}
	if (rc) {
		restore_knobs();
		snprintf(why_unavailable, sizeof(why_unavailable),
			 "failslab/fail_usercopy debugfs knobs missing (kernel without FAILSLAB, FAULT_INJECTION_USERCOPY or STACKTRACE_FILTER)");
		return -1;
	}
	return 0;
}

/* ---- the state a failed call must leave as it was ---- */

struct state {
	int n;
	char key[MAX_STATE][32];
	long long val[MAX_STATE];
	int fds;
};

static bool walk_failed;
static const char *walk_path_name;
/* The first failure, for the test's own failure message */
static char walk_first_failure[512];

/* A failure of the walk: said on stderr, the first kept; the walk goes on */
static void __attribute__((format(printf, 1, 2))) walk_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!walk_failed) {
		va_list aq;

		va_copy(aq, ap);
		vsnprintf(walk_first_failure, sizeof(walk_first_failure), fmt, aq);
		va_end(aq);
	}
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	walk_failed = true;
}

static void read_state(int dev, struct state *st)
{
	char path[128], bdf[32], line[128];
	FILE *f;

	assert_int_equal(hltests_pci_addr(dev, bdf, sizeof(bdf)), 0);
	snprintf(path, sizeof(path), DBG "/habanalabs/%s/state", bdf);
	f = fopen(path, "r");
	assert_non_null(f);
	st->n = 0;
	while (st->n < MAX_STATE && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%31[^:]: %lld", st->key[st->n], &st->val[st->n]) == 2)
			st->n++;
	}
	fclose(f);
	assert_true(st->n > 0);
	st->fds = hltests_count_fds();
}

static bool state_equal(const struct state *a, const struct state *b)
{
	bool same = a->n == b->n && a->fds == b->fds;
	int i;

	for (i = 0; i < a->n && i < b->n; i++)
		same &= !strcmp(a->key[i], b->key[i]) && a->val[i] == b->val[i];
	return same;
}

/* What differs from @a in @b, on one line */
static void state_diff(const struct state *a, const struct state *b,
		       char *buf, size_t size)
{
	size_t len = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < a->n && i < b->n && len < size; i++)
		if (a->val[i] != b->val[i])
			len += snprintf(buf + len, size - len, " %s %lld -> %lld;",
					a->key[i], a->val[i], b->val[i]);
	if (a->fds != b->fds && len < size)
		snprintf(buf + len, size - len, " open fds %d -> %d;", a->fds,
			 b->fds);
}

/*
 * The one counter that moves after an ioctl returned: hl_cs_put() signals
 * a CS's fence (WAIT_CS returns) before it drops cs_inflight, on the
 * queue's worker. Everything else the state file waits for (hl_wq, the
 * scrubber) or changes only inside a call. A failed call's CS is done
 * before the call returns (hl_cs_commit()).
 */
#define INFLIGHT	"cs_inflight"
/* How long one CS may take to leave cs_inflight, and all of them */
#define STATE_SETTLE_MS		5000
#define STATE_SETTLE_TOTAL_MS	30000

static int settle_total_ms;

/* Every key that differs is cs_inflight, and @sign says which way */
static bool only_inflight(const struct state *a, const struct state *b,
			  int sign)
{
	bool any = false;
	int i;

	if (a->n != b->n || a->fds != b->fds)
		return false;
	for (i = 0; i < a->n; i++) {
		if (strcmp(a->key[i], b->key[i]))
			return false;
		if (a->val[i] == b->val[i])
			continue;
		if (strcmp(a->key[i], INFLIGHT) ||
		    (sign > 0 ? b->val[i] < a->val[i] : b->val[i] > a->val[i]))
			return false;
		any = true;
	}
	return any;
}

/*
 * Device @dev's state at the start of a path, once two reads 50 ms apart
 * agree: a start that moves is what the path before left running, said
 * on stderr, and one that does not come to rest fails the walk
 */
static void read_stable_state(int dev, struct state *st)
{
	struct state again;
	char moved[256];
	int ms;

	read_state(dev, st);
	for (ms = 0; ms < STATE_SETTLE_MS; ms += 50) {
		usleep(50000);
		read_state(dev, &again);
		if (state_equal(st, &again))
			return;
		state_diff(st, &again, moved, sizeof(moved));
		fprintf(stderr, "fault-walk: %s: device %d moved before the path:%s\n",
			walk_path_name, dev, moved);
		*st = again;
	}
	walk_fail("fault-walk: %s: device %d's state did not come to rest in %d ms",
		  walk_path_name, dev, STATE_SETTLE_MS);
}

/*
 * Device @dev's state, read into @b, is @a's. By a failed call
 * (@after_cleanup false) nothing may have changed but cs_inflight going
 * down (a CS from before the call finishing). After the cleanup, a
 * cs_inflight above @a's may come down within STATE_SETTLE_MS (a CS that
 * was waited for, still leaving hl_cs_put()), STATE_SETTLE_TOTAL_MS in a
 * walk; anything else that differs is reported at once.
 */
static bool same_state(const struct state *a, struct state *b,
		       const char *path, int n, int dev, bool after_cleanup)
{
	const char *when = after_cleanup ?
		"after the call was undone and cleaned up" : "by the failed call";
	char changed[256];
	int ms;

	if (state_equal(a, b))
		return true;
	state_diff(a, b, changed, sizeof(changed));
	if (!after_cleanup && only_inflight(a, b, -1))
		return true;
	for (ms = 0; after_cleanup && only_inflight(a, b, 1) &&
	     ms < STATE_SETTLE_MS && settle_total_ms < STATE_SETTLE_TOTAL_MS;
	     ms += 10, settle_total_ms += 10) {
		usleep(10000);
		read_state(dev, b);
		if (state_equal(a, b)) {
			fprintf(stderr, "fault-walk: %s, point %d: device %d:%s settled within %d ms (%s)\n",
				path, n, dev, changed, ms + 10, when);
			return true;
		}
	}
	state_diff(a, b, changed, sizeof(changed));
	walk_fail("fault-walk: %s, point %d: device %d:%s (%s)", path, n, dev,
		  changed, when);
	return false;
}

/* ---- fail-nth ---- */

static int fail_nth_fd = -1;

static void fail_nth_set(int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	assert_int_equal(pwrite(fail_nth_fd, buf, len, 0), len);
}

/* 0 once the fault armed by fail_nth_set() was injected */
static int fail_nth_get(void)
{
	char buf[16] = "";

	assert_true(pread(fail_nth_fd, buf, sizeof(buf) - 1, 0) > 0);
	return atoi(buf);
}

/* ---- the paths ---- */

/*
 * Undo and cleanup steps report a failure and go on, so that one broken
 * path does not hide the others (the state checks catch what it left).
 */
#define SOFT(expr)							\
	do {								\
		long soft_rc_ = (expr);					\
		if (soft_rc_)						\
			walk_fail("fault-walk: %s: %s returned %ld",	\
				  walk_path_name, #expr, soft_rc_);	\
	} while (0)

/* The same, when the object may be gone already (-EINVAL) */
#define SOFT_GONE(expr)							\
	do {								\
		long gone_rc_ = (expr);					\
		if (gone_rc_ != -EINVAL)				\
			SOFT(gone_rc_);					\
	} while (0)

/**
 * struct walk - what a path's steps share.
 * @fd: compute node of device 0 (reopened by the open path).
 * @ifd: the test importer, /dev/hl_importer (-1 when not loaded).
 * @ufd: the RDMA core's importer, /dev/hl_umem (-1 until the umem paths).
 * @host: host memory for host maps and command buffers.
 * @handle: an allocation.
 * @va: a mapping's device address.
 * @dmabuf: an exported dma-buf fd.
 * @imp: an importer handle.
 * @cb: a command buffer's device address.
 * @seq: a CS sequence number.
 * @cq: a NIC CQ handle.
 * @conn: a NIC connection ID.
 * @lkey: a NIC memory region's lkey.
 * @sob: a signal reservation's SOB, as an offset from HL_CFG_BASE.
 * @remote: the address of the port cabled to port 1.
 * @out: what the call returned (a handle, a VA, an fd, ...).
 * @devs: devices whose state the path compares.
 */
struct walk {
	int fd;
	int ifd;
	int ufd;
	uint8_t *host;
	uint64_t handle;
	uint64_t va;
	int dmabuf;
	uint32_t imp;
	uint64_t cb;
	uint64_t seq;
	uint32_t cq;
	uint32_t conn;
	uint32_t lkey;
	uint32_t sob;
	uint64_t remote;
	uint64_t out;
	int devs;
};

/**
 * struct path - one ioctl path.
 * @name: for the report.
 * @errnos: what a failed call may return (positive, 0-terminated).
 * @prepare: set up what the call needs, before the fault window (optional).
 * @call: the call itself: 0 or -errno.
 * @undo: undo a successful call (optional).
 * @cleanup: release what prepare made, after the call (optional).
 */
struct path {
	const char *name;
	int errnos[6];
	void (*prepare)(struct walk *w);
	int (*call)(struct walk *w);
	void (*undo)(struct walk *w);
	void (*cleanup)(struct walk *w);
};

#define MB		(1ull << 20)
#define HOST_SIZE	(64 * 1024)

/* libhlthunk calls that return 0 on error set errno */
static int neg_errno(void)
{
	return errno ? -errno : -EPROTO;
}

/* open of the compute node: the context, its ASID and page tables */
static void open_prepare(struct walk *w)
{
	hlthunk_close(w->fd);
	w->fd = -1;
}

static int open_call(struct walk *w)
{
	int fd = hltests_open_node(0, 0);

	if (fd < 0)
		return fd;
	w->fd = fd;
	return 0;
}

static void open_cleanup(struct walk *w)
{
	if (w->fd < 0)
		w->fd = hltests_open_node(0, 0);
	assert_true(w->fd >= 0);
}

static int info_hw_ip_call(struct walk *w)
{
	struct hl_info_hw_ip_info hw;

	return hltests_info(w->fd, HL_INFO_HW_IP_INFO, &hw, sizeof(hw));
}

static int info_dram_usage_call(struct walk *w)
{
	struct hl_info_dram_usage u;

	return hltests_info(w->fd, HL_INFO_DRAM_USAGE, &u, sizeof(u));
}

static int info_nic_ports_call(struct walk *w)
{
	struct hl_info_nic_ports p;

	return hltests_info(w->fd, HL_INFO_NIC_PORTS, &p, sizeof(p));
}

static int alloc_call(struct walk *w, bool contiguous)
{
	uint64_t h;

	errno = 0;
	h = hlthunk_device_memory_alloc(w->fd, 4 * MB, 0, contiguous,
					 false);

	if (!h)
		return neg_errno();
	w->out = h;
	return 0;
}

static int alloc_call_paged(struct walk *w)
{
	return alloc_call(w, false);
}

static int alloc_call_contig(struct walk *w)
{
	return alloc_call(w, true);
}

static void alloc_undo(struct walk *w)
{
	SOFT(hlthunk_device_memory_free(w->fd, w->out));
}

static void alloc_prepare(struct walk *w)
{
	w->handle = hlthunk_device_memory_alloc(w->fd, 4 * MB, 0, false,
						 false);
	assert_int_not_equal(w->handle, 0);
}

static int free_call(struct walk *w)
{
	int rc = hlthunk_device_memory_free(w->fd, w->handle);

	if (!rc)
		w->handle = 0;
	return rc;
}

static void free_cleanup(struct walk *w)
{
	if (w->handle)
		SOFT_GONE(hlthunk_device_memory_free(w->fd, w->handle));
	w->handle = 0;
}

static int map_device_call(struct walk *w)
{
	uint64_t va;

	errno = 0;
	va = hlthunk_device_memory_map(w->fd, w->handle, 0);
	if (!va)
		return neg_errno();
	w->out = va;
	return 0;
}

static void unmap_out_undo(struct walk *w)
{
	SOFT(hlthunk_memory_unmap(w->fd, w->out));
}

/* Host memory at an offset inside a page, across pages */
static int map_host_call(struct walk *w)
{
	uint64_t va;

	errno = 0;
	va = hlthunk_host_memory_map(w->fd, w->host + 0x100, 0, 3 * 4096 + 0x10);
	if (!va)
		return neg_errno();
	w->out = va;
	return 0;
}

static void map_device_prepare(struct walk *w)
{
	alloc_prepare(w);
	w->va = hlthunk_device_memory_map(w->fd, w->handle, 0);
	assert_int_not_equal(w->va, 0);
}

static void map_host_prepare(struct walk *w)
{
	w->va = hlthunk_host_memory_map(w->fd, w->host + 0x100, 0, 3 * 4096 + 0x10);
	assert_int_not_equal(w->va, 0);
}

static int unmap_call(struct walk *w)
{
	int rc = hlthunk_memory_unmap(w->fd, w->va);

	if (!rc)
		w->va = 0;
	return rc;
}

/*
 * 32 bytes of the second page of map_host_call()'s buffer, mapped first:
 * that MAP holds the page's DMA mapping and DMA-maps the other three
 */
static void map_host_shared_prepare(struct walk *w)
{
	w->va = hlthunk_host_memory_map(w->fd, w->host + 4096 + 0x40, 0, 0x20);
	assert_int_not_equal(w->va, 0);
}

/*
 * A memfd's pages X, Y, Z mapped as X Y X Z, Y mapped first by a piece:
 * the call's MAP puts X and Z in its run, holds X again and Y on their own
 * DMA mappings (one made over its own run's page, one over another MAP's
 * run), so that each failure point of its unwinding has a page of each
 * kind behind it
 */
static uint8_t *twice_buf;

static void map_host_twice_prepare(struct walk *w)
{
	int mfd;

	if (!twice_buf) {
		mfd = memfd_create("fault-walk-xyxz", 0);
		assert_true(mfd >= 0);
		assert_int_equal(ftruncate(mfd, 3 * 4096), 0);
		twice_buf = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_POPULATE, mfd, 0);
		assert_true(twice_buf != MAP_FAILED);
		/* X Y Z and past the end, then X and Z over the last two */
		assert_true(mmap(twice_buf + 2 * 4096, 4096, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_FIXED | MAP_POPULATE, mfd, 0) ==
			    twice_buf + 2 * 4096);
		assert_true(mmap(twice_buf + 3 * 4096, 4096, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_FIXED | MAP_POPULATE, mfd,
				 2 * 4096) == twice_buf + 3 * 4096);
		close(mfd);
	}
	w->va = hlthunk_host_memory_map(w->fd, twice_buf + 4096 + 0x40, 0, 0x20);
	assert_int_not_equal(w->va, 0);
}

static int map_host_twice_call(struct walk *w)
{
	uint64_t va;

	errno = 0;
	va = hlthunk_host_memory_map(w->fd, twice_buf, 0, 4 * 4096);
	if (!va)
		return neg_errno();
	w->out = va;
	return 0;
}

static void unmap_cleanup(struct walk *w)
{
	if (w->va)
		SOFT_GONE(hlthunk_memory_unmap(w->fd, w->va));
	w->va = 0;
	free_cleanup(w);
}

static int export_call(struct walk *w)
{
	int fd = hlthunk_device_memory_export_dmabuf_fd(w->fd, w->va, 2 * MB,
							 O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return fd;
	w->out = fd;
	return 0;
}

static void export_undo(struct walk *w)
{
	close((int)w->out);
}

/* The test importer: attach (dynamic, P2P) and map, through our dma-buf ops */
static void import_prepare(struct walk *w)
{
	map_device_prepare(w);
	w->dmabuf = hlthunk_device_memory_export_dmabuf_fd(w->fd, w->va, 2 * MB,
							   O_RDWR | O_CLOEXEC);
	assert_true(w->dmabuf >= 0);
}

static int import_call(struct walk *w)
{
	struct hl_importer_import in = { .fd = w->dmabuf, .flags = HL_IMPORTER_F_DYNAMIC };

	if (ioctl(w->ifd, HL_IMPORTER_IOCTL_IMPORT, &in))
		return -errno;
	w->out = in.handle;
	return 0;
}

static void import_undo(struct walk *w)
{
	struct hl_importer_handle h = { .handle = (uint32_t)w->out };

	SOFT(ioctl(w->ifd, HL_IMPORTER_IOCTL_RELEASE, &h) ? -errno : 0);
}

static void import_cleanup(struct walk *w)
{
	close(w->dmabuf);
	w->dmabuf = -1;
	unmap_cleanup(w);
}

static void importer_map_prepare(struct walk *w)
{
	struct hl_importer_import in = { .flags = HL_IMPORTER_F_DYNAMIC };

	import_prepare(w);
	in.fd = w->dmabuf;
	assert_int_equal(ioctl(w->ifd, HL_IMPORTER_IOCTL_IMPORT, &in), 0);
	w->imp = in.handle;
}

static int importer_map_call(struct walk *w)
{
	struct hl_importer_map m = { .handle = w->imp };

	return ioctl(w->ifd, HL_IMPORTER_IOCTL_MAP, &m) ? -errno : 0;
}

static void importer_map_undo(struct walk *w)
{
	struct hl_importer_handle h = { .handle = w->imp };

	SOFT(ioctl(w->ifd, HL_IMPORTER_IOCTL_UNMAP, &h) ? -errno : 0);
}

static void importer_map_cleanup(struct walk *w)
{
	struct hl_importer_handle h = { .handle = w->imp };

	SOFT(ioctl(w->ifd, HL_IMPORTER_IOCTL_RELEASE, &h) ? -errno : 0);
	import_cleanup(w);
}

/*
 * The RDMA core's importer (tests/importer/hl_umem.ko): ib_umem_dmabuf's
 * pinned and revocable imports (attach, pin and map in one call) and a
 * dynamic umem's ib_umem_dmabuf_map_pages(), through our dma-buf ops. A
 * failed call must leave the export without attachment, mapping or pin.
 */
static int umem_import(struct walk *w, uint32_t kind)
{
	struct hl_umem_import in = { .fd = w->dmabuf, .kind = kind, .size = 2 * MB };

	if (ioctl(w->ufd, HL_UMEM_IOCTL_IMPORT, &in))
		return -errno;
	w->out = in.handle;
	return 0;
}

static int umem_import_pinned_call(struct walk *w)
{
	return umem_import(w, HL_UMEM_KIND_PINNED);
}

static int umem_import_revocable_call(struct walk *w)
{
	return umem_import(w, HL_UMEM_KIND_REVOCABLE);
}

static void umem_release(struct walk *w, uint32_t handle)
{
	struct hl_umem_handle h = { .handle = handle };

	SOFT(ioctl(w->ufd, HL_UMEM_IOCTL_RELEASE, &h) ? -errno : 0);
}

static void umem_import_undo(struct walk *w)
{
	umem_release(w, (uint32_t)w->out);
}

/* The export has no attachment, mapping or pin left */
static void umem_check_export_idle(struct walk *w)
{
	char bdf[32], path[160], buf[4096];

	(void)w;
	assert_int_equal(hltests_pci_addr(0, bdf, sizeof(bdf)), 0);
	snprintf(path, sizeof(path), DBG "/habanalabs/%s/exports", bdf);
	assert_int_equal(hltests_read_file(path, buf, sizeof(buf)), 0);
	if (strstr(buf, "attachment") || !strstr(buf, "mappings 0 pins 0")) {
		walk_fail("fault-walk: %s: the export is not idle:\n%s",
			  walk_path_name, buf);
	}
}

static void umem_import_cleanup(struct walk *w)
{
	umem_check_export_idle(w);
	import_cleanup(w);
}

static void umem_map_prepare(struct walk *w)
{
	import_prepare(w);
	assert_int_equal(umem_import(w, HL_UMEM_KIND_DYNAMIC), 0);
	w->imp = (uint32_t)w->out;
}

static int umem_map_call(struct walk *w)
{
	struct hl_umem_map m = { .handle = w->imp };

	return ioctl(w->ufd, HL_UMEM_IOCTL_MAP, &m) ? -errno : 0;
}

static void umem_map_undo(struct walk *w)
{
	struct hl_umem_handle h = { .handle = w->imp };

	SOFT(ioctl(w->ufd, HL_UMEM_IOCTL_UNMAP, &h) ? -errno : 0);
}

static void umem_map_cleanup(struct walk *w)
{
	umem_release(w, w->imp);
	umem_import_cleanup(w);
}

/*
 * Where cs_prepare's CS writes its marker, in its own host page, and
 * where the NOP that drains queue 0 before the marker is read lies
 */
#define CS_MARK_OFF	2048
#define CS_MARK		0x5eed0001u
#define CS_DRAIN_OFF	1024

static uint32_t cs_cb_size;
/* What the path's call returned, for its cleanup */
static int cs_call_rc;

static uint32_t cs_mark(struct walk *w)
{
	return __atomic_load_n((uint32_t *)(w->host + CS_MARK_OFF),
			       __ATOMIC_ACQUIRE);
}

/*
 * A CS of one MSG_LONG on queue 0 that writes a marker into its own host
 * page, while the context has an export (its fence goes into the export's
 * reservation object)
 */
static void cs_prepare(struct walk *w)
{
	import_prepare(w);
	memset(w->host, 0, 4096);
	w->cb = hlthunk_host_memory_map(w->fd, w->host, 0, 4096);
	assert_int_not_equal(w->cb, 0);
	cs_cb_size = hlthunk_pkt_msg_long(w->host, w->cb + CS_MARK_OFF, CS_MARK);
	hlthunk_pkt_nop(w->host + CS_DRAIN_OFF);
	w->seq = 0;
}

/*
 * In a CS path's cleanup, w->host mapped at @va: when the path's call
 * failed, it ran nothing, so its marker stays unwritten once queue 0,
 * which runs its jobs in order, has run the NOP submitted after it
 */
static void cs_check_not_run(struct walk *w, uint64_t va)
{
	int rc = cs_call_rc;

	cs_call_rc = 0;
	if (!rc)
		return;
	hltests_run_cb_ok(w->fd, 0, va + CS_DRAIN_OFF, 8);
	if (cs_mark(w))
		walk_fail("fault-walk: %s: a failed CS (%s) ran: its marker is 0x%x",
			  walk_path_name, strerror(-rc), cs_mark(w));
}

static int cs_call(struct walk *w)
{
	struct hl_cs_chunk chunk = { .cb_handle = w->cb, .cb_size = cs_cb_size };
	struct hlthunk_cs_in in = { .chunks_execute = &chunk, .num_chunks_execute = 1 };
	struct hlthunk_cs_out out = {};
	int rc;

	rc = hlthunk_command_submission(w->fd, &in, &out);
	if (!rc)
		w->seq = out.seq;
	cs_call_rc = rc;
	return rc;
}

static void cs_wait(struct walk *w)
{
	uint32_t status;

	SOFT(hlthunk_wait_for_cs(w->fd, w->seq, 30000000, &status));
	SOFT(status != HL_WAIT_CS_STATUS_COMPLETED);
	w->seq = 0;
}

/* A successful one ran: its marker is written (cs_check_not_run()'s proof) */
static void cs_wait_marked(struct walk *w)
{
	cs_wait(w);
	SOFT(cs_mark(w) != CS_MARK);
}

static void cs_cleanup(struct walk *w)
{
	SOFT(hlthunk_memory_unmap(w->fd, w->cb));
	w->cb = 0;
	import_cleanup(w);
}

/* cs_cleanup() after a call whose failure must have run nothing */
static void cs_cleanup_not_run(struct walk *w)
{
	cs_check_not_run(w, w->cb);
	cs_cleanup(w);
}

static void wait_cs_prepare(struct walk *w)
{
	struct hl_cs_chunk chunk = { .cb_size = 8 };
	struct hlthunk_cs_in in = { .chunks_execute = &chunk, .num_chunks_execute = 1 };
	struct hlthunk_cs_out out = {};
	uint32_t status;

	memset(w->host, 0, 4096);
	hlthunk_pkt_nop(w->host);
	w->va = hlthunk_host_memory_map(w->fd, w->host, 0, 4096);
	assert_int_not_equal(w->va, 0);
	chunk.cb_handle = w->va;
	assert_int_equal(hlthunk_command_submission(w->fd, &in, &out), 0);
	w->seq = out.seq;
	/* Done before the walk: WAIT_CS only looks it up */
	assert_int_equal(hlthunk_wait_for_cs(w->fd, w->seq, 30000000, &status), 0);
}

static int wait_cs_call(struct walk *w)
{
	uint32_t status;

	return hlthunk_wait_for_cs(w->fd, w->seq, 1000000, &status);
}

static void wait_cs_cleanup(struct walk *w)
{
	w->seq = 0;
	SOFT(hlthunk_memory_unmap(w->fd, w->va));
	w->va = 0;
}

static int cq_create_call(struct walk *w)
{
	uint32_t cq;
	int rc = hlthunk_nic_cq_create(w->fd, 64, &cq);

	if (!rc)
		w->out = cq;
	return rc;
}

static void cq_destroy_out(struct walk *w)
{
	SOFT(hlthunk_nic_cq_destroy(w->fd, (uint32_t)w->out));
}

static void cq_prepare(struct walk *w)
{
	assert_int_equal(hlthunk_nic_cq_create(w->fd, 64, &w->cq), 0);
}

static void cq_cleanup(struct walk *w)
{
	SOFT(hlthunk_nic_cq_destroy(w->fd, w->cq));
}

static int cq_poll_call(struct walk *w)
{
	struct hl_nic_cqe cqes[4];
	struct hl_nic_cq_poll_wait_out out;

	return hlthunk_nic_cq_poll(w->fd, w->cq, cqes, 4, &out);
}

static int alloc_conn_call(struct walk *w)
{
	uint32_t id;
	int rc = hlthunk_nic_alloc_conn(w->fd, 1, &id);

	if (!rc)
		w->out = id;
	return rc;
}

static void destroy_conn_out(struct walk *w)
{
	SOFT(hlthunk_nic_destroy_conn(w->fd, (uint32_t)w->out));
}

/* A connection on port 1 (cabled to device 1) in INIT, with a CQ */
static void conn_prepare(struct walk *w)
{
	struct hl_info_nic_ports p;

	assert_int_equal(hltests_info(w->fd, HL_INFO_NIC_PORTS, &p, sizeof(p)), 0);
	assert_true(p.num_ports > 1 && p.ports[1].cabled);
	w->remote = p.ports[1].peer_addr;
	cq_prepare(w);
	assert_int_equal(hlthunk_nic_alloc_conn(w->fd, 1, &w->conn), 0);
	assert_int_equal(hlthunk_nic_modify_conn(w->fd, w->conn, HL_NIC_CONN_STATE_INIT), 0);
}

static void conn_cleanup(struct walk *w)
{
	SOFT(hlthunk_nic_destroy_conn(w->fd, w->conn));
	cq_cleanup(w);
}

static int set_res_call(struct walk *w)
{
	struct hl_nic_res_conn_ctx_in res = {
		.remote_addr = w->remote, .conn_id = w->conn, .port = 1,
		/* A well-formed ID (generation 1, slot 1) */
		.remote_conn_id = 1u << HL_NIC_CONN_ID_SLOT_BITS | 1, .psn = 1,
		.wq_size = 16, .cq_handle = w->cq,
	};

	return hlthunk_nic_set_res_conn_ctx(w->fd, &res);
}

static void conn_reset_undo(struct walk *w)
{
	SOFT(hlthunk_nic_modify_conn(w->fd, w->conn, HL_NIC_CONN_STATE_RESET));
	SOFT(hlthunk_nic_modify_conn(w->fd, w->conn, HL_NIC_CONN_STATE_INIT));
}

/* ---- NIC memory regions (issue 19): REG_MR over a device mapping ---- */

static int mr_call(int fd, uint32_t op, uint64_t va, uint32_t lkey,
		   uint32_t *out)
{
	struct hl_nic_args a;

	memset(&a, 0, sizeof(a));
	a.in.op = op;
	if (op == HL_NIC_OP_REG_MR) {
		a.in.reg_mr.addr = va + 4096;
		a.in.reg_mr.size = MB;
		a.in.reg_mr.iova = va;
		/* Local only: remote access needs a connection (issue 32) */
		a.in.reg_mr.access = HL_NIC_ACCESS_LOCAL_WRITE;
	} else {
		a.in.dereg_mr.lkey = lkey;
	}
	if (ioctl(fd, HL_IOCTL_NIC, &a))
		return -errno;
	if (out)
		*out = a.out.reg_mr.lkey;
	return 0;
}

static int reg_mr_call(struct walk *w)
{
	uint32_t lkey = 0;
	int rc = mr_call(w->fd, HL_NIC_OP_REG_MR, w->va, 0, &lkey);

	if (!rc)
		w->out = lkey;
	return rc;
}

static void dereg_mr_out(struct walk *w)
{
	SOFT(mr_call(w->fd, HL_NIC_OP_DEREG_MR, 0, (uint32_t)w->out, NULL));
}

static void mr_prepare(struct walk *w)
{
	map_device_prepare(w);
	assert_int_equal(mr_call(w->fd, HL_NIC_OP_REG_MR, w->va, 0, &w->lkey),
			 0);
}

static int dereg_mr_call(struct walk *w)
{
	int rc = mr_call(w->fd, HL_NIC_OP_DEREG_MR, 0, w->lkey, NULL);

	if (!rc)
		w->lkey = 0;
	return rc;
}

static void mr_cleanup(struct walk *w)
{
	if (w->lkey)
		SOFT_GONE(mr_call(w->fd, HL_NIC_OP_DEREG_MR, 0, w->lkey, NULL));
	w->lkey = 0;
	unmap_cleanup(w);
}

/*
 * ---- The runtime paths (issue 22): command buffers, multi-CS wait, the
 * eventfd notifier, counters ----
 */

#define CB_SIZE		8192

static void cb_destroy_out(struct walk *w)
{
	SOFT(hlthunk_destroy_command_buffer(w->fd, w->out));
}

static int cb_create_mapped_call(struct walk *w)
{
	return hlthunk_request_mapped_command_buffer(w->fd, CB_SIZE, &w->out);
}

static int cb_create_call(struct walk *w)
{
	return hlthunk_request_command_buffer(w->fd, CB_SIZE, &w->out);
}

static void cb_prepare(struct walk *w)
{
	assert_int_equal(hlthunk_request_mapped_command_buffer(w->fd, CB_SIZE,
							       &w->cb), 0);
}

static void cb_cleanup(struct walk *w)
{
	SOFT_GONE(hlthunk_destroy_command_buffer(w->fd, w->cb));
	w->cb = 0;
}

static int cb_destroy_call(struct walk *w)
{
	return hlthunk_destroy_command_buffer(w->fd, w->cb);
}

static int cb_info_call(struct walk *w)
{
	uint64_t va;

	return hlthunk_get_mapped_cb_device_va_by_handle(w->fd, w->cb, &va);
}

static int cb_usage_call(struct walk *w)
{
	uint32_t n;

	return hlthunk_get_cb_usage_count(w->fd, w->cb, &n);
}

/* A CS naming a mapped CB by handle, its NOP written through mmap() */
static void cs_cb_prepare(struct walk *w)
{
	uint8_t *p;

	cb_prepare(w);
	p = mmap(NULL, CB_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd,
		 (off_t)w->cb);
	assert_true(p != MAP_FAILED);
	hlthunk_pkt_nop(p);
	munmap(p, CB_SIZE);
	w->seq = 0;
}

static int cs_cb_call(struct walk *w)
{
	struct hl_cs_chunk chunk = { .cb_handle = w->cb, .cb_size = 8 };
	struct hlthunk_cs_in in = { .chunks_execute = &chunk, .num_chunks_execute = 1 };
	struct hlthunk_cs_out out = {};
	int rc;

	rc = hlthunk_command_submission(w->fd, &in, &out);
	if (!rc)
		w->seq = out.seq;
	return rc;
}

static int wait_multi_call(struct walk *w)
{
	uint64_t seqs[2] = { w->seq, w->seq };
	struct hlthunk_wait_multi_cs_in in = { .seq = seqs, .seq_len = 2,
					       .timeout_us = 1000000 };
	struct hlthunk_wait_multi_cs_out out;

	return hlthunk_wait_for_multi_cs(w->fd, &in, &out);
}

static int info_arg_call(struct walk *w, uint32_t op, uint32_t arg)
{
	struct hl_info_args a;
	uint8_t buf[128];

	(void)w;
	memset(&a, 0, sizeof(a));
	a.op = op;
	a.period_ms = arg;
	a.return_pointer = (uint64_t)(uintptr_t)buf;
	a.return_size = sizeof(buf);
	return ioctl(w->fd, HL_IOCTL_INFO, &a) ? -errno : 0;
}

static int info_counters_call(struct walk *w)
{
	int rc = info_arg_call(w, HL_INFO_RESET_COUNT, 0);

	rc = rc ?: info_arg_call(w, HL_INFO_TIME_SYNC, 0);
	rc = rc ?: info_arg_call(w, HL_INFO_CS_COUNTERS, 0);
	rc = rc ?: info_arg_call(w, HL_INFO_OPEN_STATS, 0);
	return rc ?: info_arg_call(w, HL_INFO_DEVICE_UTILIZATION, 500);
}

static void efd_prepare(struct walk *w)
{
	w->out = (uint64_t)eventfd(0, EFD_CLOEXEC);
	assert_true((int)w->out >= 0);
}

static int efd_register(struct walk *w, uint32_t op)
{
	struct hl_info_args a;

	memset(&a, 0, sizeof(a));
	a.op = op;
	a.eventfd = (uint32_t)w->out;
	return ioctl(w->fd, HL_IOCTL_INFO, &a) ? -errno : 0;
}

static int efd_register_call(struct walk *w)
{
	return efd_register(w, HL_INFO_REGISTER_EVENTFD);
}

static void efd_unregister_undo(struct walk *w)
{
	SOFT(efd_register(w, HL_INFO_UNREGISTER_EVENTFD));
}

static void efd_cleanup(struct walk *w)
{
	close((int)w->out);
}

static void efd_registered_prepare(struct walk *w)
{
	efd_prepare(w);
	assert_int_equal(efd_register_call(w), 0);
}

static void efd_registered_cleanup(struct walk *w)
{
	SOFT_GONE(efd_register(w, HL_INFO_UNREGISTER_EVENTFD));
	efd_cleanup(w);
}

static int efd_unregister_call(struct walk *w)
{
	return efd_register(w, HL_INFO_UNREGISTER_EVENTFD);
}

static int get_events_call(struct walk *w)
{
	uint64_t ev;

	return hltests_info(w->fd, HL_INFO_GET_EVENTS, &ev, sizeof(ev));
}

/* ---- issue 33's calls: sync manager, SIGNAL/WAIT, encaps, unsupported ---- */

static int info_sync_manager_call(struct walk *w)
{
	struct hl_info_sync_manager sm;

	return hltests_info(w->fd, HL_INFO_SYNC_MANAGER, &sm, sizeof(sm));
}

/*
 * A call the device cannot serve: its path "succeeds" with its documented
 * -EOPNOTSUPP; a real success is a bug (EPROTO, undocumented)
 */
static int unsupported(int rc)
{
	return rc == -EOPNOTSUPP ? 0 : rc ? rc : -EPROTO;
}

static int info_unsupported_call(struct walk *w)
{
	static const uint32_t ops[] = {
		HL_INFO_CLK_RATE, HL_INFO_PCI_COUNTERS,
		HL_INFO_CLK_THROTTLE_REASON, HL_INFO_TOTAL_ENERGY,
		HL_INFO_PLL_FREQUENCY, HL_INFO_POWER,
		HL_INFO_DRAM_REPLACED_ROWS, HL_INFO_DRAM_PENDING_ROWS,
		HL_INFO_SECURED_ATTESTATION, HL_INFO_FW_GENERIC_REQ,
	};
	size_t i;
	int rc = 0;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]) && !rc; i++)
		rc = unsupported(info_arg_call(w, ops[i], 0));
	return rc;
}

static int debug_call(struct walk *w)
{
	struct hl_debug_params_etr etr;
	struct hl_debug_args a;

	memset(&etr, 0, sizeof(etr));
	memset(&a, 0, sizeof(a));
	a.op = HL_DEBUG_OP_ETR;
	a.input_ptr = (uint64_t)(uintptr_t)&etr;
	a.input_size = sizeof(etr);
	a.enable = 1;
	return unsupported(ioctl(w->fd, HL_IOCTL_DEBUG, &a) ? -errno : 0);
}

static int mem_unsupported_call(struct walk *w, uint32_t op)
{
	union hl_mem_args m;

	memset(&m, 0, sizeof(m));
	m.in.op = op;
	if (op == HL_MEM_OP_TS_ALLOC)
		m.in.num_of_elements = 16;
	else
		m.in.map_block.block_addr = 0x1000000;
	return unsupported(ioctl(w->fd, HL_IOCTL_MEMORY, &m) ? -errno : 0);
}

static int mem_map_block_call(struct walk *w)
{
	return mem_unsupported_call(w, HL_MEM_OP_MAP_BLOCK);
}

static int mem_ts_alloc_call(struct walk *w)
{
	return mem_unsupported_call(w, HL_MEM_OP_TS_ALLOC);
}

/* A CS of @flags (SIGNAL, WAIT, ...) with one chunk @c: 0 or -errno */
static int cs_flags_call(struct walk *w, uint32_t flags, struct hl_cs_chunk *c,
			 uint32_t handle, union hl_cs_args *a)
{
	memset(a, 0, sizeof(*a));
	if (c) {
		a->in.chunks_execute = (uint64_t)(uintptr_t)c;
		a->in.num_chunks_execute = 1;
	}
	a->in.cs_flags = flags;
	a->in.encaps_sig_handle_id = handle;
	a->in.timeout = 30;
	return hltests_cs_ioctl(w->fd, a);
}

static void seq_wait(struct walk *w, uint64_t seq)
{
	uint32_t status;

	if (seq && seq != UINT64_MAX)
		SOFT(hlthunk_wait_for_cs(w->fd, seq, 60000000, &status));
}

/*
 * A SIGNAL on queue 0 (its kernel CB), waited for: 0 or -errno, the SOB's
 * offset and its count before it into *@off and *@before
 */
static int cs_signal_once(struct walk *w, uint32_t *off, uint16_t *before)
{
	struct hl_cs_chunk c = { .queue_index = 0 };
	union hl_cs_args a;
	int rc = cs_flags_call(w, HL_CS_FLAGS_SIGNAL, &c, 0, &a);

	if (rc)
		return rc;
	seq_wait(w, a.out.seq);
	*off = a.out.sob_base_addr_offset;
	*before = a.out.sob_count_before_submission;
	return 0;
}

/* The SOB and count of cs_signal's first SIGNAL, and its call's result */
static uint32_t cs_sig_off;
static uint16_t cs_sig_before;

/* A SIGNAL first: the count that the path's call must go on from */
static void cs_signal_prepare(struct walk *w)
{
	cs_call_rc = 0;
	assert_int_equal(cs_signal_once(w, &cs_sig_off, &cs_sig_before), 0);
}

/* A SIGNAL on queue 0 (its kernel CB) */
static int cs_signal_call(struct walk *w)
{
	struct hl_cs_chunk c = { .queue_index = 0 };
	union hl_cs_args a;
	int rc = cs_flags_call(w, HL_CS_FLAGS_SIGNAL, &c, 0, &a);

	w->out = rc ? 0 : a.out.seq;
	cs_call_rc = rc;
	return rc;
}

static void seq_out_undo(struct walk *w)
{
	seq_wait(w, w->out);
	w->out = 0;
}

/*
 * A SIGNAL that failed gave its value back: the next one's count before
 * it is the prepared one's + 1 (+ 2 after a successful call), on the same
 * SOB (unless the count reached the SOB's maximum, where SIGNALs move to
 * the queue's other SOB)
 */
static void cs_signal_cleanup(struct walk *w)
{
	uint16_t before, want = cs_sig_before + (cs_call_rc ? 1 : 2);
	uint32_t off;

	cs_call_rc = 0;
	if (cs_signal_once(w, &off, &before)) {
		walk_fail("fault-walk: cs_signal: the SIGNAL after the call failed");
		return;
	}
	if (off == cs_sig_off && before != want)
		walk_fail("fault-walk: cs_signal: a SIGNAL after a %s one counts from %u, expected %u: %s",
			  want == cs_sig_before + 1 ? "failed" : "successful",
			  before, want,
			  want == cs_sig_before + 1 ?
			  "the failed SIGNAL kept its value" :
			  "a SIGNAL's value went missing");
}

/*
 * A WAIT on queue 1 for a SIGNAL still to run: queue 0 is held by a FENCE
 * (host page 0) until the cleanup's release (page 1, on queue 2)
 */
static void cs_wait_prepare(struct walk *w)
{
	struct hl_cs_chunk c = { .queue_index = 0 };
	union hl_cs_args a;
	uint8_t *p = w->host;
	struct hl_pkt_fence f = {
		.ctl = (uint32_t)HL_PKT_FENCE << HL_PKT_OPCODE_SHIFT,
		.cfg = HL_PKT_FENCE_CFG(0, 1, 1),
	};

	memset(p, 0, 8192);
	memcpy(p, &f, sizeof(f));
	hlthunk_pkt_msg_long(p + 4096, HL_QM_FENCE_RDATA(0, 0), 1);
	w->va = hlthunk_host_memory_map(w->fd, w->host, 0, 8192);
	assert_int_not_equal(w->va, 0);
	c.cb_handle = w->va;
	c.cb_size = sizeof(f);
	assert_int_equal(cs_flags_call(w, HL_CS_FLAGS_CUSTOM_TIMEOUT, &c, 0, &a),
			 0);
	w->handle = a.out.seq;
	memset(&c, 0, sizeof(c));
	assert_int_equal(cs_flags_call(w, HL_CS_FLAGS_SIGNAL, &c, 0, &a), 0);
	w->seq = a.out.seq;
	w->out = 0;
}

static int cs_wait_call(struct walk *w)
{
	uint64_t seqs[1] = { w->seq };
	struct hl_cs_chunk c = { .queue_index = 1,
				 .signal_seq_arr = (uint64_t)(uintptr_t)seqs,
				 .num_signal_seq_arr = 1 };
	union hl_cs_args a;
	int rc = cs_flags_call(w, HL_CS_FLAGS_WAIT | HL_CS_FLAGS_CUSTOM_TIMEOUT,
			       &c, 0, &a);

	w->out = rc ? 0 : a.out.seq;
	return rc;
}

static void cs_wait_cleanup(struct walk *w)
{
	struct hl_cs_chunk c = { .queue_index = 2, .cb_size = 16 };
	union hl_cs_args a;

	c.cb_handle = w->va + 4096;
	SOFT(cs_flags_call(w, HL_CS_FLAGS_CUSTOM_TIMEOUT, &c, 0, &a));
	seq_wait(w, a.out.seq);
	seq_wait(w, w->handle);
	seq_wait(w, w->seq);
	seq_wait(w, w->out);
	w->handle = 0;
	w->seq = 0;
	w->out = 0;
	SOFT(hlthunk_memory_unmap(w->fd, w->va));
	w->va = 0;
}

/*
 * COLLECTIVE_WAIT for a SIGNAL of queue 0: under asic=emu (the walk's
 * device) its documented -EOPNOTSUPP, after the chunk and the signal's
 * seq were read; under asic=gaudi a collective wait of master DMA_1_0
 * (its slaves' jobs and CBs).
 */
static void cs_coll_prepare(struct walk *w)
{
	struct hl_cs_chunk c = { .queue_index = 0 };
	union hl_cs_args a;

	assert_int_equal(cs_flags_call(w, HL_CS_FLAGS_SIGNAL, &c, 0, &a), 0);
	w->seq = a.out.seq;
	w->out = 0;
	/*
	 * Done before the walk's snapshot: else it may end during the
	 * failed call, which then seems to have changed cs_inflight (seen
	 * on a loaded debug kernel: "cs_inflight: 1 -> 0")
	 */
	seq_wait(w, w->seq);
}

static int cs_coll_call(struct walk *w)
{
	bool gaudi = hltests_identity_gaudi();
	uint64_t seqs[1] = { w->seq };
	struct hl_cs_chunk c = {
		.queue_index = gaudi ? GAUDI_QUEUE_ID_DMA_1_0 : 1,
		.signal_seq_arr = (uint64_t)(uintptr_t)seqs,
		.num_signal_seq_arr = 1,
		.collective_engine_id = GAUDI_ENGINE_ID_DMA_5,
	};
	union hl_cs_args a;
	int rc = cs_flags_call(w, HL_CS_FLAGS_COLLECTIVE_WAIT, &c, 0, &a);

	if (!gaudi)
		return unsupported(rc);
	w->out = rc ? 0 : a.out.seq;
	return rc;
}

static void cs_coll_cleanup(struct walk *w)
{
	seq_wait(w, w->out);
	seq_wait(w, w->seq);
	w->out = 0;
	w->seq = 0;
}

/* RESERVE_SIGNALS_ONLY of 2 signals on queue 0; w->out its handle */
static int cs_reserve_call(struct walk *w)
{
	union hl_cs_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.in.cs_flags = HL_CS_FLAGS_RESERVE_SIGNALS_ONLY;
	a.in.encaps_signals_count = 2;
	rc = hltests_cs_ioctl(w->fd, &a);
	w->out = rc ? 0 : a.out.handle_id;
	w->sob = rc ? 0 : a.out.sob_base_addr_offset;
	return rc;
}

static int cs_unreserve_call(struct walk *w)
{
	union hl_cs_args a;

	memset(&a, 0, sizeof(a));
	a.in.cs_flags = HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY;
	a.in.encaps_sig_handle_id = w->out;
	return hltests_cs_ioctl(w->fd, &a);
}

static void cs_unreserve_undo(struct walk *w)
{
	SOFT(cs_unreserve_call(w));
	w->out = 0;
}

static void cs_reserve_prepare(struct walk *w)
{
	assert_int_equal(cs_reserve_call(w), 0);
}

static void cs_reserve_cleanup(struct walk *w)
{
	/* Gone when the call (unreserve, or the CS that gave it) worked */
	if (w->out)
		SOFT_GONE(cs_unreserve_call(w));
	w->out = 0;
}

/*
 * The CS that gives a reservation: one MSG_LONG adds 2 to its SOB, a
 * second writes cs_prepare's marker (a failed one must run neither)
 */
static void cs_encaps_prepare(struct walk *w)
{
	uint32_t len;

	cs_reserve_prepare(w);
	memset(w->host, 0, 4096);
	w->va = hlthunk_host_memory_map(w->fd, w->host, 0, 4096);
	assert_int_not_equal(w->va, 0);
	len = hlthunk_pkt_msg_long(w->host, HL_CFG_BASE + w->sob,
				   HL_SM_SOB_INC | 2);
	cs_cb_size = len + hlthunk_pkt_msg_long(w->host + len,
						w->va + CS_MARK_OFF, CS_MARK);
	hlthunk_pkt_nop(w->host + CS_DRAIN_OFF);
	w->seq = 0;
}

static int cs_encaps_call(struct walk *w)
{
	struct hl_cs_chunk c = { .queue_index = 0, .cb_handle = w->va,
				 .cb_size = cs_cb_size };
	union hl_cs_args a;
	int rc = cs_flags_call(w, HL_CS_FLAGS_ENCAP_SIGNALS, &c, w->out, &a);

	w->seq = rc ? 0 : a.out.seq;
	cs_call_rc = rc;
	return rc;
}

static void cs_encaps_undo(struct walk *w)
{
	seq_wait(w, w->seq);
	w->seq = 0;
	SOFT(cs_mark(w) != CS_MARK);
}

static void cs_encaps_cleanup(struct walk *w)
{
	cs_check_not_run(w, w->va);
	SOFT(hlthunk_memory_unmap(w->fd, w->va));
	w->va = 0;
	cs_reserve_cleanup(w);
}

/* A CS with HL_CS_FLAGS_TIMESTAMP (cs_prepare's marker) */
static int cs_timestamp_call(struct walk *w)
{
	struct hl_cs_chunk c = { .cb_handle = w->cb, .cb_size = cs_cb_size };
	union hl_cs_args a;
	int rc = cs_flags_call(w, HL_CS_FLAGS_TIMESTAMP, &c, 0, &a);

	if (!rc)
		w->seq = a.out.seq;
	cs_call_rc = rc;
	return rc;
}

/* WAIT_CS through the 32 bytes of the header before the interrupt fields */
static int wait_cs_old_size_call(struct walk *w)
{
	union hl_wait_cs_args a;

	memset(&a, 0, sizeof(a));
	a.in.seq = w->seq;
	a.in.timeout_us = 1000000;
	return hltests_ioctl_sized(w->fd, HL_IOCTL_WAIT_CS, 32, &a);
}

/* ---- end of the runtime paths ---- */

static const struct path paths[] = {
	{ "open", { ENOMEM, EBUSY }, open_prepare, open_call, NULL, open_cleanup },
	{ "info_hw_ip", { EFAULT }, NULL, info_hw_ip_call, NULL, NULL },
	{ "info_dram_usage", { EFAULT }, NULL, info_dram_usage_call, NULL, NULL },
	{ "info_nic_ports", { ENOMEM, EFAULT }, NULL, info_nic_ports_call, NULL, NULL },
	{ "mem_alloc", { ENOMEM, EFAULT }, NULL, alloc_call_paged, alloc_undo, NULL },
	{ "mem_alloc_contiguous", { ENOMEM, EFAULT }, NULL, alloc_call_contig, alloc_undo, NULL },
	{ "mem_free", { EFAULT }, alloc_prepare, free_call, NULL, free_cleanup },
	{ "mem_map_device", { ENOMEM, EFAULT }, alloc_prepare, map_device_call,
	  unmap_out_undo, free_cleanup },
	{ "mem_map_host", { ENOMEM, EFAULT }, NULL, map_host_call, unmap_out_undo, NULL },
	{ "mem_map_host_shared", { ENOMEM, EFAULT }, map_host_shared_prepare, map_host_call,
	  unmap_out_undo, unmap_cleanup },
	{ "mem_map_host_twice", { ENOMEM, EFAULT }, map_host_twice_prepare,
	  map_host_twice_call, unmap_out_undo, unmap_cleanup },
	{ "mem_unmap_device", { EFAULT }, map_device_prepare, unmap_call, NULL, unmap_cleanup },
	{ "mem_unmap_host", { EFAULT }, map_host_prepare, unmap_call, NULL, unmap_cleanup },
	{ "mem_export_dmabuf", { ENOMEM, EMFILE, EFAULT }, map_device_prepare, export_call,
	  export_undo, unmap_cleanup },
	{ "importer_attach", { ENOMEM }, import_prepare, import_call, import_undo,
	  import_cleanup },
	{ "importer_map", { ENOMEM }, importer_map_prepare, importer_map_call,
	  importer_map_undo, importer_map_cleanup },
	{ "cs_submit", { ENOMEM, EFAULT }, cs_prepare, cs_call, cs_wait_marked,
	  cs_cleanup_not_run },
	{ "wait_cs", { EFAULT }, wait_cs_prepare, wait_cs_call, NULL, wait_cs_cleanup },
	{ "nic_cq_create", { ENOMEM, EFAULT }, NULL, cq_create_call, cq_destroy_out, NULL },
	{ "nic_cq_poll", { ENOMEM, EFAULT }, cq_prepare, cq_poll_call, NULL, cq_cleanup },
	{ "nic_alloc_conn", { ENOMEM, ENOSPC, EFAULT }, NULL, alloc_conn_call, destroy_conn_out, NULL },
	{ "nic_set_res_conn_ctx", { ENOMEM, EFAULT }, conn_prepare, set_res_call,
	  conn_reset_undo, conn_cleanup },
	{ "nic_reg_mr", { ENOMEM, EFAULT }, map_device_prepare, reg_mr_call,
	  dereg_mr_out, unmap_cleanup },
	{ "nic_dereg_mr", { EFAULT }, mr_prepare, dereg_mr_call, NULL, mr_cleanup },
	/* The runtime paths */
	{ "cb_create_mapped", { ENOMEM, EFAULT }, NULL, cb_create_mapped_call,
	  cb_destroy_out, NULL },
	{ "cb_create", { ENOMEM, EFAULT }, NULL, cb_create_call, cb_destroy_out, NULL },
	{ "cb_destroy", { EFAULT }, cb_prepare, cb_destroy_call, NULL, cb_cleanup },
	{ "cb_info_device_va", { EFAULT }, cb_prepare, cb_info_call, NULL, cb_cleanup },
	{ "cb_info_usage", { EFAULT }, cb_prepare, cb_usage_call, NULL, cb_cleanup },
	{ "cs_submit_cb_handle", { ENOMEM, EFAULT }, cs_cb_prepare, cs_cb_call, cs_wait,
	  cb_cleanup },
	{ "wait_cs_multi", { ENOMEM, EFAULT }, wait_cs_prepare, wait_multi_call, NULL,
	  wait_cs_cleanup },
	{ "info_counters", { EFAULT }, NULL, info_counters_call, NULL, NULL },
	{ "info_register_eventfd", { EFAULT }, efd_prepare, efd_register_call,
	  efd_unregister_undo, efd_cleanup },
	{ "info_unregister_eventfd", { EFAULT }, efd_registered_prepare,
	  efd_unregister_call, NULL, efd_registered_cleanup },
	{ "info_get_events", { EFAULT }, NULL, get_events_call, NULL, NULL },
	/* Issue 33's */
	{ "info_sync_manager", { EFAULT }, NULL, info_sync_manager_call, NULL, NULL },
	{ "info_unsupported", { EFAULT }, NULL, info_unsupported_call, NULL, NULL },
	{ "debug", { EFAULT }, NULL, debug_call, NULL, NULL },
	{ "mem_map_block", { EFAULT }, NULL, mem_map_block_call, NULL, NULL },
	{ "mem_ts_alloc", { EFAULT }, NULL, mem_ts_alloc_call, NULL, NULL },
	{ "cs_signal", { ENOMEM, EFAULT }, cs_signal_prepare, cs_signal_call,
	  seq_out_undo, cs_signal_cleanup },
	{ "cs_wait", { ENOMEM, EFAULT }, cs_wait_prepare, cs_wait_call, NULL,
	  cs_wait_cleanup },
	{ "cs_collective_wait", { ENOMEM, EFAULT }, cs_coll_prepare, cs_coll_call,
	  seq_out_undo, cs_coll_cleanup },
	{ "cs_reserve_signals", { ENOMEM, EFAULT }, NULL, cs_reserve_call,
	  cs_unreserve_undo, NULL },
	{ "cs_unreserve_signals", { EFAULT }, cs_reserve_prepare, cs_unreserve_call,
	  NULL, cs_reserve_cleanup },
	{ "cs_encap_signals", { ENOMEM, EFAULT }, cs_encaps_prepare, cs_encaps_call,
	  cs_encaps_undo, cs_encaps_cleanup },
	{ "cs_timestamp", { ENOMEM, EFAULT }, cs_prepare, cs_timestamp_call,
	  cs_wait_marked, cs_cleanup_not_run },
	{ "wait_cs_old_size", { EFAULT }, wait_cs_prepare, wait_cs_old_size_call, NULL,
	  wait_cs_cleanup },
	/* Last: they take the edu device from hl_importer */
	{ "umem_import_pinned", { ENOMEM }, import_prepare, umem_import_pinned_call,
	  umem_import_undo, umem_import_cleanup },
	{ "umem_import_revocable", { ENOMEM }, import_prepare, umem_import_revocable_call,
	  umem_import_undo, umem_import_cleanup },
	{ "umem_map_dynamic", { ENOMEM }, umem_map_prepare, umem_map_call,
	  umem_map_undo, umem_map_cleanup },
};

#define NUM_PATHS	(sizeof(paths) / sizeof(paths[0]))

static bool documented(const struct path *p, int rc)
{
	size_t i;

	for (i = 0; i < sizeof(p->errnos) / sizeof(p->errnos[0]) && p->errnos[i]; i++)
		if (rc == -p->errnos[i])
			return true;
	return false;
}

static struct walk w;
static unsigned int total_points, total_tolerated;

/*
 * Walk one path: fail its 1st, 2nd, ... point until the call succeeds
 * without a fault. Returns the number of points.
 */
static int walk_path(const struct path *p)
{
	struct state base[2], before[2], after[2];
	int n, d, tolerated = 0;

	/*
	 * Every iteration, whatever happened, must end where it started,
	 * read once it is at rest (read_stable_state())
	 */
	for (d = 0; d < w.devs; d++)
		read_stable_state(d, &base[d]);
	for (n = 1; n <= MAX_POINTS; n++) {
		bool injected;
		int rc;

		if (p->prepare)
			p->prepare(&w);
		for (d = 0; d < w.devs; d++)
			read_state(d, &before[d]);
		fail_nth_set(n);
		rc = p->call(&w);
		injected = fail_nth_get() == 0;
		fail_nth_set(0);

		if (!injected) {
			/* Fewer than n points: the call ran whole */
			if (rc) {
				walk_fail("fault-walk: %s failed (%s) without a fault",
					  p->name, strerror(-rc));
			} else if (p->undo) {
				p->undo(&w);
			}
		} else if (!rc) {
			/* The failure was absorbed (a fallback): not a failed call */
			tolerated++;
			if (p->undo)
				p->undo(&w);
		} else {
			if (!documented(p, rc)) {
				walk_fail("fault-walk: %s, point %d failed: undocumented errno %d (%s)",
					  p->name, n, -rc, strerror(-rc));
			}
			for (d = 0; d < w.devs; d++) {
				read_state(d, &after[d]);
				same_state(&before[d], &after[d], p->name, n, d,
					   false);
			}
		}
		if (p->cleanup)
			p->cleanup(&w);
		for (d = 0; d < w.devs; d++) {
			read_state(d, &after[d]);
			if (!same_state(&base[d], &after[d], p->name, n, d, true))
				base[d] = after[d];	/* report each change once */
		}
		if (!injected)
			break;
	}
	if (n > MAX_POINTS) {
		walk_fail("fault-walk: %s still failing after %d points",
			  p->name, MAX_POINTS);
	}
	printf("fault-walk: %-22s %3d points failed, %d absorbed\n", p->name, n - 1,
	       tolerated);
	total_points += n - 1;
	total_tolerated += tolerated;
	return n - 1;
}

static void print_sites(void)
{
	char line[256];
	FILE *f = fopen(FAULT_DIR "/sites", "r");
	int sites = 0, failed = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long ev, fl;
		char pt[32], where[160];

		if (sscanf(line, "%31s %llu %llu %159[^\n]", pt, &ev, &fl, where) != 4)
			continue;
		printf("fault-walk: site %-12s %-48s evaluated %llu failed %llu\n",
		       pt, where, ev, fl);
		sites++;
		failed += fl > 0;
	}
	fclose(f);
	printf("fault-walk: driver fault sites reached: %d, failed at least once: %d\n",
	       sites, failed);
}

/* Whether @name is one of the comma-separated names of @filter (or no filter) */
static bool selected(const char *filter, const char *name)
{
	size_t n = strlen(name);
	const char *f;

	if (!filter || !*filter)
		return true;
	for (f = filter; f; f = strchr(f, ','), f = f ? f + 1 : NULL)
		if (!strncmp(f, name, n) && (f[n] == ',' || !f[n]))
			return true;
	return false;
}

static void test_walk_every_ioctl_path(void **state)
{
	/* Only these paths (a run by hand): HLTESTS_FAULT_WALK_PATHS=a,b */
	const char *filter = getenv("HLTESTS_FAULT_WALK_PATHS");
	size_t i;
	int paths_walked = 0;

	(void)state;
	if (setup_framework()) {
		printf("fault-walk: skipped: %s\n", why_unavailable);
		skip();
	}
	memset(&w, 0, sizeof(w));
	w.fd = hltests_open_node(0, 0);
	assert_true(w.fd >= 0);
	w.ifd = open("/dev/hl_importer", O_RDWR | O_CLOEXEC);
	w.host = mmap(NULL, HOST_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	assert_true(w.host != MAP_FAILED);
	w.dmabuf = -1;
	w.ufd = -1;
	w.devs = hltests_num_devices() > 1 ? 2 : 1;
	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	assert_true(fail_nth_fd >= 0);

	for (i = 0; i < NUM_PATHS; i++) {
		const struct path *p = &paths[i];

		if (!selected(filter, p->name))
			continue;
		if (w.ifd < 0 && !strncmp(p->name, "importer", 8)) {
			printf("fault-walk: %s skipped: no /dev/hl_importer\n", p->name);
			continue;
		}
		if (!strncmp(p->name, "umem", 4) && w.ufd == -1) {
			/* edu moves from hl_importer to hl_umem */
			if (w.ifd >= 0)
				close(w.ifd);
			w.ifd = -1;
			if (hltests_umem_start() == 0)
				w.ufd = open("/dev/hl_umem", O_RDWR | O_CLOEXEC);
			if (w.ufd < 0)
				w.ufd = -2;
		}
		if (!strncmp(p->name, "umem", 4) && w.ufd < 0) {
			printf("fault-walk: %s skipped: no /dev/hl_umem (kernel without ib_uverbs?)\n",
			       p->name);
			continue;
		}
		if (w.devs < 2 && !strncmp(p->name, "nic_set", 7)) {
			printf("fault-walk: %s skipped: needs 2 devices\n", p->name);
			continue;
		}
		walk_path_name = p->name;
		walk_path(p);
		paths_walked++;
	}
	print_sites();
	printf("fault-walk: %d paths, %u points failed, %u absorbed, %s\n",
	       paths_walked, total_points, total_tolerated,
	       walk_failed ? "FAILED" : "every failed call clean");

	close(fail_nth_fd);
	restore_knobs();
	if (w.ifd >= 0)
		close(w.ifd);
	if (w.ufd >= 0)
		close(w.ufd);
	if (w.ufd != -1 && hltests_umem_stop())
		walk_fail("fault-walk: the umem importer did not unload");
	munmap(w.host, HOST_SIZE);
	hlthunk_close(w.fd);
	if (walk_failed)
		fail_msg("%s (the first; all above)", walk_first_failure);
}

/* ---- probe: binding a device, with each of its points failed ---- */

static bool bound(const char *bdf)
{
	char path[128], link[256];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = 0;
	return strstr(link, "/habanalabs") != NULL;
}

static int count_devices(void)
{
	DIR *d = opendir("/sys/class/habanalabs");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * The last device is unbound, then bound through drivers_probe with its 1st,
 * 2nd, ... point failed (the probe runs in the writer's task, so fail-nth
 * reaches it) until it binds; with HLTESTS_PROBE_WALK_STRIDE=k only every
 * k-th point (a probe under the debug kernel takes about 2 s, and it has
 * about 300 points). A failed probe must leave the device unbound
 * with no node or debugfs directory of it; kmemleak checks the rest at the
 * end of the VM run. The device is bound again at the end.
 */
static void test_walk_probe(void **state)
{
	int dev = hltests_num_devices() - 1, n, absorbed = 0, nodes, unbound;
	const char *env = getenv("HLTESTS_PROBE_WALK_STRIDE");
	int stride = env ? atoi(env) : 1, walked = 0;
	char bdf[32], dbg[128];
	bool ok = true;

	(void)state;
	if (stride < 1)
		stride = 1;
	if (setup_framework()) {
		printf("fault-walk: skipped: %s\n", why_unavailable);
		skip();
	}
	assert_int_equal(hltests_pci_addr(dev, bdf, sizeof(bdf)), 0);
	snprintf(dbg, sizeof(dbg), DBG "/habanalabs/%s", bdf);
	nodes = count_devices();
	/* What an unbound device leaves: its class devices gone (hlN, hl_controlDN) */
	assert_int_equal(hltests_write_file("/sys/bus/pci/drivers/habanalabs/unbind", bdf), 0);
	unbound = count_devices();
	assert_true(unbound < nodes);
	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	assert_true(fail_nth_fd >= 0);

	for (n = 1; n <= MAX_PROBE_POINTS; n += stride, walked++) {
		bool injected;
		int rc;

		if (bound(bdf))
			assert_int_equal(hltests_write_file("/sys/bus/pci/drivers/habanalabs/unbind", bdf), 0);
		assert_false(bound(bdf));
		fail_nth_set(n);
		rc = hltests_write_file("/sys/bus/pci/drivers_probe", bdf);
		injected = fail_nth_get() == 0;
		fail_nth_set(0);
		(void)rc;	/* drivers_probe says 0 even when probe() failed */

		if (!injected) {
			if (!bound(bdf)) {
				fprintf(stderr, "fault-walk: probe failed without a fault\n");
				ok = false;
			}
			break;
		}
		if (bound(bdf)) {
			absorbed++;
			continue;
		}
		if (count_devices() != unbound || !access(dbg, F_OK)) {
			fprintf(stderr, "fault-walk: probe, point %d failed: %s left behind\n", n,
				count_devices() != unbound ? "a class device" : "its debugfs directory");
			ok = false;
		}
	}
	close(fail_nth_fd);
	restore_knobs();
	if (!bound(bdf))
		hltests_write_file("/sys/bus/pci/drivers_probe", bdf);
	printf("fault-walk: %-22s %3d points failed (of about %d, every %d%s), %d absorbed\n",
	       "probe", walked, n - 1, stride, stride == 1 ? "" : " (HLTESTS_PROBE_WALK_STRIDE)",
	       absorbed);
	assert_true(bound(bdf));
	assert_int_equal(count_devices(), nodes);
	assert_true(n <= MAX_PROBE_POINTS);
	assert_true(ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_every_ioctl_path),
		cmocka_unit_test(test_walk_probe),
	};

	return HLTESTS_RUN("fault_walk", tests);
}

// SPDX-License-Identifier: MIT
/*
 * umem: our dma-buf exports imported by the kernel's own RDMA importer,
 * drivers/infiniband/core/umem_dmabuf.c as the running kernel exports it
 * (ib_uverbs.ko), through tests/importer/hl_umem.ko: QEMU's edu device is
 * the DMA device of an ib_device that is never registered, and moves data
 * at the sg_dma_address() of the umem's scatterlist through the strict
 * IOMMU, as an RDMA NIC would for an MR. Also: a DRM importer (vgem, via
 * libdrm's drmPrimeFDToHandle()) is refused.
 *
 * The suite loads hl_umem.ko itself (after "modprobe ib_uverbs";
 * HLTESTS_MODPROBE replaces modprobe, HLTESTS_UMEM_KO names the module,
 * default: tests/importer/hl_umem.ko beside tests/bin) and moves the VM's
 * one edu device from hl_importer to it (driver_override) for the run,
 * then back. Needs root and p2p_policy=iommu (with "strict" every import
 * is refused with EXDEV, which one test checks, and the rest skip).
 *
 * The tests named test_data_* move data and check it on the host side
 * (accelerator DMA into or out of HBM). tests/umem/negative-control runs
 * them with dmabuf_raw_bar_addresses=1, where every one of them must fail.
 */
#include "hltests.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xf86drm.h>

#include "../importer/hl_umem.h"

#define KB		1024ull
#define MB		(1024ull * KB)
#define PAGE		4096ull
#define XFER		2048ull
#define POISON		0xa5

#define UMEM_DEV	"/dev/hl_umem"

static bool policy_strict;
/*
 * Pins the exporter counts for a mapping on top of the importer's own: without
 * CONFIG_DMABUF_MOVE_NOTIFY (Debian's kernel) dma_buf_map_attachment() pins
 * a dynamic exporter's buffer for as long as it is mapped; with it (the
 * debug kernel), it does not.
 */
static int dyn_pins;

/* ---- hl_umem ---- */

/* Returns the handle, or -errno */
static int um_import(int ufd, int dmabuf, uint32_t kind, uint64_t off,
		     uint64_t size)
{
	struct hl_umem_import a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.fd = dmabuf;
	a.kind = kind;
	a.offset = off;
	a.size = size;
	rc = hltests_ioctl(ufd, HL_UMEM_IOCTL_IMPORT, &a);
	return rc ? rc : (int)a.handle;
}

static int um_map(int ufd, int h, struct hl_umem_map *m)
{
	memset(m, 0, sizeof(*m));
	m->handle = h;
	return hltests_ioctl(ufd, HL_UMEM_IOCTL_MAP, m);
}

static int um_dma(int ufd, bool write, int h, uint64_t off, void *buf,
		  uint64_t size, uint32_t flags)
{
	struct hl_umem_dma d;

	memset(&d, 0, sizeof(d));
	d.handle = h;
	d.flags = flags;
	d.offset = off;
	d.size = size;
	d.user_ptr = (uint64_t)(uintptr_t)buf;
	return hltests_ioctl(ufd, write ? HL_UMEM_IOCTL_DMA_WRITE :
				     HL_UMEM_IOCTL_DMA_READ, &d);
}

static int um_op(int ufd, unsigned long req, int h)
{
	struct hl_umem_handle a;

	memset(&a, 0, sizeof(a));
	a.handle = h;
	return hltests_ioctl(ufd, req, &a);
}

static struct hl_umem_status um_status(int ufd, int h)
{
	struct hl_umem_status s;

	memset(&s, 0, sizeof(s));
	s.handle = h;
	assert_int_equal(hltests_ioctl(ufd, HL_UMEM_IOCTL_STATUS, &s), 0);
	return s;
}

/* ---- the exporter side (tests/common/hltests_export.c) ---- */

/* edu reads [off, off + n) of the umem; compare with @expected */
static void check_read(int ufd, int h, uint64_t off, const uint8_t *expected,
		       uint64_t n, const char *what)
{
	uint8_t *buf = malloc(n);

	assert_non_null(buf);
	memset(buf, 0x5a, n);
	assert_int_equal(um_dma(ufd, false, h, off, buf, n, 0), 0);
	hltests_assert_bytes_equal(buf, expected, n, what);
	free(buf);
}

/*
 * edu writes @n random bytes at umem offset @off, which is @hbm_off in the
 * allocation; the accelerator reads the allocation back: the bytes are
 * there and nothing around them changed. Updates e->pattern.
 */
static void check_write(int fd, struct hltests_export *e, int ufd, int h,
			uint64_t off, uint64_t hbm_off, uint64_t n,
			uint64_t seed, const char *what)
{
	uint64_t lo = hbm_off >= PAGE ? hbm_off - PAGE : 0;
	uint64_t hi = hbm_off + n + PAGE <= e->size ? hbm_off + n + PAGE : e->size;
	uint8_t *data = malloc(n), *back = malloc(hi - lo);

	assert_non_null(data);
	assert_non_null(back);
	hltests_fill_random(&seed, data, n);
	assert_int_equal(um_dma(ufd, true, h, off, data, n, 0), 0);
	memcpy(e->pattern + hbm_off, data, n);
	hltests_read_device(fd, e->dram.va + lo, back, hi - lo);
	hltests_assert_bytes_equal(back, e->pattern + lo, hi - lo, what);
	free(data);
	free(back);
}

static void kmsg(const char *text)
{
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_true(write(fd, text, strlen(text)) > 0);
	close(fd);
}

/* How often the kernel log holds @text */
static int dmesg_count(const char *text)
{
	size_t cap = 4 * MB, n;
	char *log = malloc(cap), *p;
	int count = 0;
	FILE *f;

	assert_non_null(log);
	f = popen("dmesg", "r");
	assert_non_null(f);
	n = fread(log, 1, cap - 1, f);
	pclose(f);
	log[n] = '\0';
	for (p = strstr(log, text); p; p = strstr(p + 1, text))
		count++;
	free(log);
	return count;
}

static bool dmesg_has(const char *text)
{
	return dmesg_count(text) > 0;
}

/* sg_dma_address() of the umem's first segment; it must be mapped */
static uint64_t um_first_addr(int ufd, int h)
{
	struct hl_umem_sg_entry sg;

	memset(&sg, 0, sizeof(sg));
	sg.handle = h;
	assert_int_equal(hltests_ioctl(ufd, HL_UMEM_IOCTL_SG_ENTRY, &sg), 0);
	return sg.dma_addr;
}

/*
 * A DMA through the addresses of the umem's last mapping (first segment at
 * @addr), which the exporter or the umem has unmapped since: the IOMMU must
 * stop it with a fault at that address, and edu reads nothing of HBM (QEMU
 * gives a faulting read zeros; edu's buffer held the module's poison).
 */
static void check_stale_read_faults(int ufd, int h, const uint8_t *hbm,
				    uint64_t addr)
{
	uint8_t buf[XFER];
	char fault[96];
	int before, i;

	snprintf(fault, sizeof(fault),
		 "DMAR: [DMA Read NO_PASID] Request device [00:08.0] fault addr %#" PRIx64,
		 addr);
	before = dmesg_count(fault);
	memset(buf, 0x5a, sizeof(buf));
	kmsg("hlvm: expect-dmar-faults begin\n");
	assert_int_equal(um_dma(ufd, false, h, 0, buf, XFER,
				HL_UMEM_DMA_F_STALE), 0);
	usleep(200 * 1000);
	kmsg("hlvm: expect-dmar-faults end\n");
	assert_memory_not_equal(buf, hbm, XFER);
	for (i = 0; i < (int)XFER; i++)
		if (buf[i] != 0 && buf[i] != POISON)
			fail_msg("stale DMA: byte %d is %#x: not from the IOMMU fault",
				 i, buf[i]);
	if (dmesg_count(fault) <= before)
		fail_msg("no new \"%s\" in the kernel log", fault);
}

/* The export's line in debugfs "exports" must say "mappings M pins P" */
static void check_exporter_counts(int mappings, int pins)
{
	char busid[32], path[160], buf[8192], want[64];

	assert_int_equal(hltests_pci_addr(0, busid, sizeof(busid)), 0);
	snprintf(path, sizeof(path), "/sys/kernel/debug/habanalabs/%s/exports",
		 busid);
	assert_int_equal(hltests_read_file(path, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "mappings %d pins %d", mappings, pins);
	if (!strstr(buf, want))
		print_error("exports: want \"%s\", found:\n%s\n", want, buf);
	assert_non_null(strstr(buf, want));
}

static int setup(void **state)
{
	return hltests_import_setup(state, UMEM_DEV, "");
}

/* The accelerator's PCI address, for binding it again after a failed test */
static char hl_busid[32];

static int teardown(void **state)
{
	hltests_import_teardown(state);
	/*
	 * A test that failed between its unbind and its rebind (after the
	 * umems are gone: an unbind may be waiting for one)
	 */
	if (hl_busid[0] && access("/sys/class/habanalabs/hl0", F_OK))
		hltests_write_file("/sys/bus/pci/drivers_probe", hl_busid);
	return 0;
}

static void skip_if_strict(void)
{
	if (policy_strict) {
		print_message("p2p_policy=strict: every import is refused (see test_strict_policy_refuses_every_kind)\n");
		skip();
	}
}

static void rebind_habanalabs(int *fd, const char *busid)
{
	assert_int_equal(hltests_write_file("/sys/bus/pci/drivers_probe", busid), 0);
	*fd = hltests_open_node(0, 0);
	assert_true(*fd >= 0);
}

/* ---- data through each kind of umem ---- */

/*
 * ib_umem_dmabuf_get() of a whole 2 MiB export: unmapped until MAP; the
 * umem's scatterlist covers it in segments no longer than edu's max segment
 * size; edu reads the first and last bytes and across a segment boundary,
 * and writes across a page boundary at an unaligned offset.
 */
static void test_data_dynamic_whole(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hl_umem_sg_entry sg;
	struct hl_umem_status s;
	struct hl_umem_map m;
	struct hltests_export e;
	uint64_t sum = 0, seg0;
	uint32_t i;
	int h;

	skip_if_strict();
	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 1);
	h = um_import(f->ifd, e.dmabuf, HL_UMEM_KIND_DYNAMIC, 0, 2 * MB);
	assert_true(h > 0);
	s = um_status(f->ifd, h);
	assert_int_equal(s.state, HL_UMEM_STATE_UNMAPPED);
	assert_int_equal(s.umem_flags, 0);
	assert_int_equal(um_dma(f->ifd, false, h, 0, e.pattern, 16, 0), -ENODATA);

	assert_int_equal(um_map(f->ifd, h, &m), 0);
	assert_int_equal(m.total_len, 2 * MB);
	s = um_status(f->ifd, h);
	assert_int_equal(s.state, HL_UMEM_STATE_MAPPED);
	assert_int_equal(s.umem_flags, HL_UMEM_UMEM_SGT);
	assert_int_equal(s.nents, m.nents);
	for (i = 0; i < m.nents; i++) {
		memset(&sg, 0, sizeof(sg));
		sg.handle = h;
		sg.index = i;
		assert_int_equal(hltests_ioctl(f->ifd, HL_UMEM_IOCTL_SG_ENTRY,
					       &sg), 0);
		assert_true(sg.len > 0 && sg.len <= 64 * KB);
		assert_int_equal(sg.dma_addr % PAGE, 0);
		sum += sg.len;
	}
	assert_int_equal(sum, 2 * MB);
	sg.index = m.nents;
	assert_int_equal(hltests_ioctl(f->ifd, HL_UMEM_IOCTL_SG_ENTRY, &sg),
			 -EINVAL);
	check_exporter_counts(1, dyn_pins);

	memset(&sg, 0, sizeof(sg));
	sg.handle = h;
	assert_int_equal(hltests_ioctl(f->ifd, HL_UMEM_IOCTL_SG_ENTRY, &sg), 0);
	seg0 = sg.len;
	check_read(f->ifd, h, 0, e.pattern, XFER, "first bytes");
	check_read(f->ifd, h, 2 * MB - XFER, e.pattern + 2 * MB - XFER, XFER,
		   "last bytes");
	check_read(f->ifd, h, seg0 - 1000, e.pattern + seg0 - 1000, XFER,
		   "across the first segment boundary");
	check_write(f->st.fd, &e, f->ifd, h, MB - 1000, MB - 1000, XFER, 2,
		    "edu write across a page boundary");

	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_UNMAP, h), 0);
	assert_int_equal(um_status(f->ifd, h).state, HL_UMEM_STATE_UNMAPPED);
	check_exporter_counts(0, 0);
	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_UNMAP, h), -ENODATA);
	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_RELEASE, h), 0);
	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_RELEASE, h), -ENOENT);
	hltests_export_release(f->st.fd, &e);
}

/*
 * Sub-ranges: the RDMA core trims the exporter's sg_table to the umem's
 * pages (first_sg_offset/last_sg_trim), for a page-aligned range, an
 * unaligned one, and a range of a sub-range export; each kind of umem
 * reads the right bytes.
 */
static void test_data_sub_ranges(void **state)
{
	static const struct {
		uint32_t kind;
		uint64_t exp_off, exp_len;	/* the export in the allocation */
		uint64_t off, size;		/* the umem in the export */
		uint64_t span;			/* its page-aligned span */
	} c[] = {
		{ HL_UMEM_KIND_DYNAMIC, 0, 4 * MB, MB + 2 * PAGE, 64 * KB + PAGE,
		  64 * KB + PAGE },
		{ HL_UMEM_KIND_DYNAMIC, 0, 4 * MB, 3 * MB + 100, 5000, 2 * PAGE },
		{ HL_UMEM_KIND_PINNED, MB, 2 * MB, 68 * KB, 3 * PAGE, 3 * PAGE },
		{ HL_UMEM_KIND_REVOCABLE, 2 * MB, MB, MB - 8 * PAGE - 10, 10 + 8 * PAGE,
		  9 * PAGE },
	};
	struct hltests_import_fixture *f = *state;
	struct hl_umem_map m;
	struct hltests_export e;
	unsigned int i;
	uint64_t base;
	int h;

	skip_if_strict();
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		hltests_export_pattern(f->st.fd, &e, 4 * MB, false,
				       c[i].exp_off, c[i].exp_len, 10 + i);
		h = um_import(f->ifd, e.dmabuf, c[i].kind, c[i].off, c[i].size);
		assert_true(h > 0);
		assert_int_equal(um_map(f->ifd, h, &m), 0);
		assert_int_equal(m.total_len, c[i].span);
		base = c[i].exp_off + c[i].off;
		print_message("kind %u: export [%#" PRIx64 ", +%#" PRIx64
			      "), umem [+%#" PRIx64 ", +%#" PRIx64 "): %u segments\n",
			      c[i].kind, c[i].exp_off, c[i].exp_len, c[i].off,
			      c[i].size, m.nents);
		check_read(f->ifd, h, 0, e.pattern + base,
			   c[i].size < XFER ? c[i].size : XFER, "umem start");
		check_read(f->ifd, h, c[i].size - 512,
			   e.pattern + base + c[i].size - 512, 512, "umem end");
		/* Nothing beyond the umem */
		assert_int_equal(um_dma(f->ifd, false, h, c[i].size - 1,
					e.pattern, 2, 0), -EINVAL);
		assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_RELEASE, h), 0);
		hltests_export_release(f->st.fd, &e);
	}
}

/*
 * ib_umem_dmabuf_get_pinned_with_dma_device(): mapped and pinned at
 * import, as the exporter sees (one mapping, one pin); edu reads and writes.
 */
static void test_data_pinned(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hl_umem_status s;
	struct hl_umem_map m;
	struct hltests_export e;
	int h;

	skip_if_strict();
	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 3);
	h = um_import(f->ifd, e.dmabuf, HL_UMEM_KIND_PINNED, 0, 2 * MB);
	assert_true(h > 0);
	s = um_status(f->ifd, h);
	assert_int_equal(s.state, HL_UMEM_STATE_MAPPED);
	assert_int_equal(s.umem_flags, HL_UMEM_UMEM_SGT | HL_UMEM_UMEM_PINNED);
	check_exporter_counts(1, 1 + dyn_pins);
	assert_int_equal(um_map(f->ifd, h, &m), 0);
	assert_int_equal(m.total_len, 2 * MB);
	/* Pinned umems are not unmapped by their user */
	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_UNMAP, h), -EINVAL);
	/* Write first: the negative control then fails on a write */
	check_write(f->st.fd, &e, f->ifd, h, 2 * MB - XFER, 2 * MB - XFER, XFER,
		    4, "pinned write at the end");
	check_read(f->ifd, h, MB + 7, e.pattern + MB + 7, XFER, "pinned read");
	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_RELEASE, h), 0);
	check_exporter_counts(0, 0);
	hltests_export_release(f->st.fd, &e);
}

/*
 * ib_umem_dmabuf_get_pinned_revocable_and_lock(): mapped and pinned; edu
 * reads and writes; the exporter's move_notify revokes it for good: the
 * revoke callback runs once, the core unmaps and unpins, MAP fails.
 */
static void test_data_revocable(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hl_umem_status s;
	struct hl_umem_map m;
	struct hltests_export e;
	uint8_t buf[16];
	int h;

	skip_if_strict();
	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 5);
	h = um_import(f->ifd, e.dmabuf, HL_UMEM_KIND_REVOCABLE, 0, 2 * MB);
	assert_true(h > 0);
	s = um_status(f->ifd, h);
	assert_int_equal(s.state, HL_UMEM_STATE_MAPPED);
	assert_int_equal(s.umem_flags, HL_UMEM_UMEM_SGT | HL_UMEM_UMEM_PINNED);
	check_exporter_counts(1, 1 + dyn_pins);
	check_read(f->ifd, h, 4 * KB - 1024, e.pattern + 4 * KB - 1024, XFER,
		   "revocable read");
	check_write(f->st.fd, &e, f->ifd, h, 100, 100, 1000, 6,
		    "revocable write");

	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_MOVE_NOTIFY, h), 0);
	s = um_status(f->ifd, h);
	assert_int_equal(s.state, HL_UMEM_STATE_REVOKED);
	assert_int_equal(s.umem_flags, HL_UMEM_UMEM_REVOKED);
	assert_int_equal(s.move_notify_count, 1);
	check_exporter_counts(0, 0);
	assert_int_equal(um_dma(f->ifd, false, h, 0, buf, sizeof(buf), 0),
			 -ENODATA);
	assert_int_equal(um_map(f->ifd, h, &m), -EINVAL);
	/* A second move_notify: the callback runs once at most */
	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_MOVE_NOTIFY, h), 0);
	assert_int_equal(um_status(f->ifd, h).move_notify_count, 1);
	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_RELEASE, h), 0);
	hltests_export_release(f->st.fd, &e);
}

/* ---- invalidation ---- */

/*
 * The exporter moves the buffer (dma_buf_move_notify()): the dynamic umem
 * unmaps in its move_notify, a DMA through the old addresses faults in the
 * IOMMU; MAP maps it again and edu reads the data.
 */
static void test_dynamic_move_notify_then_remap(void **state)
{
	struct hltests_import_fixture *f = *state;
	uint64_t addr;
	struct hl_umem_status s;
	struct hl_umem_map m;
	struct hltests_export e;
	uint8_t buf[16];
	int h;

	skip_if_strict();
	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 7);
	h = um_import(f->ifd, e.dmabuf, HL_UMEM_KIND_DYNAMIC, 0, 2 * MB);
	assert_true(h > 0);
	assert_int_equal(um_map(f->ifd, h, &m), 0);
	check_read(f->ifd, h, 0, e.pattern, XFER, "before the move");
	addr = um_first_addr(f->ifd, h);

	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_MOVE_NOTIFY, h), 0);
	s = um_status(f->ifd, h);
	assert_int_equal(s.state, HL_UMEM_STATE_INVALIDATED);
	assert_int_equal(s.umem_flags, 0);
	assert_int_equal(s.move_notify_count, 1);
	check_exporter_counts(0, 0);
	assert_int_equal(um_dma(f->ifd, false, h, 0, buf, sizeof(buf), 0),
			 -ENODATA);
	check_stale_read_faults(f->ifd, h, e.pattern, addr);

	assert_int_equal(um_map(f->ifd, h, &m), 0);
	assert_int_equal(um_status(f->ifd, h).state, HL_UMEM_STATE_MAPPED);
	check_exporter_counts(1, dyn_pins);
	check_read(f->ifd, h, 2 * MB - XFER, e.pattern + 2 * MB - XFER, XFER,
		   "after the remap");
	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_RELEASE, h), 0);
	hltests_export_release(f->st.fd, &e);
}

/*
 * A pinned (not revocable) umem ignores move_notify: the RDMA core only
 * logs its complaint, the mapping stays and works.
 */
static void test_pinned_move_notify_only_complains(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hl_umem_status s;
	struct hltests_export e;
	int h;

	skip_if_strict();
	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 8);
	h = um_import(f->ifd, e.dmabuf, HL_UMEM_KIND_PINNED, 0, 2 * MB);
	assert_true(h > 0);
	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_MOVE_NOTIFY, h), 0);
	s = um_status(f->ifd, h);
	assert_int_equal(s.state, HL_UMEM_STATE_MAPPED);
	assert_int_equal(s.umem_flags, HL_UMEM_UMEM_SGT | HL_UMEM_UMEM_PINNED);
	assert_true(dmesg_has("Invalidate callback should not be called when memory is pinned"));
	check_read(f->ifd, h, MB, e.pattern + MB, XFER, "pinned after move_notify");
	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_RELEASE, h), 0);
	hltests_export_release(f->st.fd, &e);
}

/*
 * Unbinding the accelerator revokes its exports: the dynamic umem is
 * invalidated and cannot map again (ENODEV), the revocable one is revoked;
 * DMA through either's old addresses faults and reads nothing of HBM.
 */
static void test_unbind_invalidates_umems(void **state)
{
	struct hltests_import_fixture *f = *state;
	uint64_t addr_d, addr_r;
	struct hl_umem_status s;
	struct hl_umem_map m;
	struct hltests_export e;
	char busid[32];
	int hd, hr;

	skip_if_strict();
	assert_int_equal(hltests_pci_addr(0, busid, sizeof(busid)), 0);
	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 9);
	hd = um_import(f->ifd, e.dmabuf, HL_UMEM_KIND_DYNAMIC, 0, 2 * MB);
	hr = um_import(f->ifd, e.dmabuf, HL_UMEM_KIND_REVOCABLE, MB, MB);
	assert_true(hd > 0 && hr > 0);
	assert_int_equal(um_map(f->ifd, hd, &m), 0);
	check_read(f->ifd, hd, 0, e.pattern, 512, "dynamic before unbind");
	check_read(f->ifd, hr, 0, e.pattern + MB, 512, "revocable before unbind");
	addr_d = um_first_addr(f->ifd, hd);
	addr_r = um_first_addr(f->ifd, hr);

	assert_int_equal(hltests_write_file("/sys/bus/pci/drivers/habanalabs/unbind",
					    busid), 0);

	s = um_status(f->ifd, hd);
	assert_int_equal(s.state, HL_UMEM_STATE_INVALIDATED);
	assert_true(s.move_notify_count >= 1);
	assert_int_equal(um_map(f->ifd, hd, &m), -ENODEV);
	s = um_status(f->ifd, hr);
	assert_int_equal(s.state, HL_UMEM_STATE_REVOKED);
	assert_int_equal(s.umem_flags, HL_UMEM_UMEM_REVOKED);
	assert_int_equal(s.move_notify_count, 1);
	check_stale_read_faults(f->ifd, hd, e.pattern, addr_d);
	check_stale_read_faults(f->ifd, hr, e.pattern + MB, addr_r);
	/* A new umem of the revoked export is refused at its pin */
	assert_int_equal(um_import(f->ifd, e.dmabuf, HL_UMEM_KIND_PINNED, 0, PAGE),
			 -ENODEV);

	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_RELEASE, hd), 0);
	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_RELEASE, hr), 0);
	hltests_export_release(-1, &e);
	hlthunk_close(f->st.fd);
	rebind_habanalabs(&f->st.fd, busid);
}

/*
 * A hard reset revokes the exports too: the mapped dynamic umem is
 * invalidated, cannot map again, and its old addresses fault.
 */
static void test_hard_reset_invalidates_dynamic_umem(void **state)
{
	struct hltests_import_fixture *f = *state;
	uint64_t addr;
	struct hl_umem_status s;
	struct hl_umem_map m;
	struct hltests_export e;
	int h;

	skip_if_strict();
	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 13);
	h = um_import(f->ifd, e.dmabuf, HL_UMEM_KIND_DYNAMIC, 0, 2 * MB);
	assert_true(h > 0);
	assert_int_equal(um_map(f->ifd, h, &m), 0);
	check_read(f->ifd, h, 0, e.pattern, 512, "before the reset");
	addr = um_first_addr(f->ifd, h);

	assert_int_equal(hltests_write_file("/sys/class/habanalabs/hl0/hard_reset",
					    "1"), 0);

	s = um_status(f->ifd, h);
	assert_int_equal(s.state, HL_UMEM_STATE_INVALIDATED);
	assert_true(s.move_notify_count >= 1);
	assert_int_equal(um_map(f->ifd, h, &m), -ENODEV);
	check_stale_read_faults(f->ifd, h, e.pattern, addr);

	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_RELEASE, h), 0);
	hltests_export_release(-1, &e);
	hlthunk_close(f->st.fd);
	f->st.fd = hltests_open_node(0, 0);
	assert_true(f->st.fd >= 0);
}

/*
 * Closing the dma-buf fd and the device fd while a dynamic umem is mapped
 * revokes nothing: the umem holds the dma-buf, the dma-buf holds the
 * allocation; edu still reads the data, a new open sees the memory used,
 * and releasing the umem frees it.
 */
static void test_fd_close_keeps_mapped_umem(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hl_umem_status s;
	struct hl_umem_map m;
	struct hltests_export e;
	uint64_t free0;
	int h;

	skip_if_strict();
	free0 = hltests_dram_free(f->st.fd);
	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 14);
	h = um_import(f->ifd, e.dmabuf, HL_UMEM_KIND_DYNAMIC, 0, 2 * MB);
	assert_true(h > 0);
	assert_int_equal(um_map(f->ifd, h, &m), 0);
	close(e.dmabuf);
	e.dmabuf = -1;
	hlthunk_close(f->st.fd);
	f->st.fd = -1;

	s = um_status(f->ifd, h);
	assert_int_equal(s.state, HL_UMEM_STATE_MAPPED);
	assert_int_equal(s.move_notify_count, 0);
	check_read(f->ifd, h, MB - 1024, e.pattern + MB - 1024, XFER,
		   "after both fds closed");

	f->st.fd = hltests_open_node(0, 0);
	assert_true(f->st.fd >= 0);
	assert_int_equal(hltests_dram_free(f->st.fd), free0 - 2 * MB);
	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_RELEASE, h), 0);
	assert_int_equal(hltests_dram_free(f->st.fd), free0);
	hltests_export_release(-1, &e);
}

/*
 * A pinned umem cannot be revoked: unbind waits for it (VFIO-style), logs
 * who holds the export, and finishes once the umem is released; the data
 * stays reachable meanwhile.
 */
static void test_pinned_umem_holds_unbind(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hltests_export e;
	char busid[32];
	int h, status, i;
	pid_t pid;

	skip_if_strict();
	assert_int_equal(hltests_pci_addr(0, busid, sizeof(busid)), 0);
	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 15);
	h = um_import(f->ifd, e.dmabuf, HL_UMEM_KIND_PINNED, 0, 2 * MB);
	assert_true(h > 0);
	close(e.dmabuf);
	e.dmabuf = -1;
	hlthunk_close(f->st.fd);
	f->st.fd = -1;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* The umem must not live on in this child */
		close(f->ifd);
		_exit(hltests_write_file("/sys/bus/pci/drivers/habanalabs/unbind",
					 busid) ? 1 : 0);
	}
	/* The driver names the holder every 10 s */
	for (i = 0; i < 300; i++) {
		if (dmesg_has("still mapped: waiting for 0000:00:08.0 to let go"))
			break;
		usleep(100000);
	}
	assert_true(i < 300);
	assert_int_equal(waitpid(pid, &status, WNOHANG), 0);
	assert_int_equal(access("/sys/class/habanalabs/hl0", F_OK), 0);
	check_read(f->ifd, h, 0, e.pattern, XFER, "pinned through the unbind");

	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_RELEASE, h), 0);
	for (i = 0; i < 300 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(100000);
	assert_true(i < 300);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	hltests_export_release(-1, &e);
	rebind_habanalabs(&f->st.fd, busid);
}

/*
 * The importer's device goes away (edu unbound from hl_umem) with a mapped
 * dynamic umem and a pinned one: its remove releases them through
 * ib_umem_release(), the export is left without attachment, mapping or pin,
 * the file gets ENODEV; bound again, a new umem works.
 */
static void test_importer_unbind_releases_umems(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hl_umem_status s;
	struct hl_umem_map m;
	char bdf[64], busid[32], buf[4096], path[160];
	struct hltests_export e;
	int hd, hp, i;
	glob_t g;

	skip_if_strict();
	assert_int_equal(glob("/sys/bus/pci/drivers/hl_umem/0000:*", 0, NULL, &g), 0);
	snprintf(bdf, sizeof(bdf), "%s", strrchr(g.gl_pathv[0], '/') + 1);
	globfree(&g);
	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 19);
	hd = um_import(f->ifd, e.dmabuf, HL_UMEM_KIND_DYNAMIC, 0, 2 * MB);
	hp = um_import(f->ifd, e.dmabuf, HL_UMEM_KIND_PINNED, 0, MB);
	assert_true(hd > 0 && hp > 0);
	assert_int_equal(um_map(f->ifd, hd, &m), 0);
	check_exporter_counts(2, 1 + 2 * dyn_pins);

	assert_int_equal(hltests_write_file("/sys/bus/pci/drivers/hl_umem/unbind",
					    bdf), 0);
	memset(&s, 0, sizeof(s));
	s.handle = hd;
	assert_int_equal(hltests_ioctl(f->ifd, HL_UMEM_IOCTL_STATUS, &s),
			 -ENODEV);
	check_exporter_counts(0, 0);
	assert_int_equal(hltests_pci_addr(0, busid, sizeof(busid)), 0);
	snprintf(path, sizeof(path), "/sys/kernel/debug/habanalabs/%s/exports",
		 busid);
	assert_int_equal(hltests_read_file(path, buf, sizeof(buf)), 0);
	assert_null(strstr(buf, "attachment"));
	close(f->ifd);

	/* driver_override still names hl_umem */
	assert_int_equal(hltests_write_file("/sys/bus/pci/drivers_probe", bdf), 0);
	for (i = 0; i < 50 && (f->ifd = open(UMEM_DEV, O_RDWR | O_CLOEXEC)) < 0; i++)
		usleep(100000);
	assert_true(f->ifd >= 0);
	hd = um_import(f->ifd, e.dmabuf, HL_UMEM_KIND_DYNAMIC, 0, 2 * MB);
	assert_true(hd > 0);
	assert_int_equal(um_map(f->ifd, hd, &m), 0);
	check_read(f->ifd, hd, MB, e.pattern + MB, XFER, "after the importer came back");
	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_RELEASE, hd), 0);
	hltests_export_release(f->st.fd, &e);
}

/* ---- DRM ---- */

/* Open vgem's primary node; -1 when there is none */
static int open_vgem(void)
{
	drmVersionPtr v;
	glob_t g;
	size_t i;
	int fd = -1;

	if (glob("/dev/dri/card*", 0, NULL, &g))
		return -1;
	for (i = 0; i < g.gl_pathc && fd < 0; i++) {
		fd = open(g.gl_pathv[i], O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		if (!v || strcmp(v->name, "vgem")) {
			close(fd);
			fd = -1;
		}
		drmFreeVersion(v);
	}
	globfree(&g);
	return fd;
}

/*
 * A DRM importer (vgem, PRIME through libdrm) attaches without
 * allow_peer2peer: our exporter refuses it with EOPNOTSUPP, under either
 * P2P policy. Nothing is left behind (no attachment, no fd, vgem unloads),
 * and the export still works for a P2P importer afterwards (p2p_policy=iommu).
 */
static void test_drm_prime_import_refused(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hl_umem_map m;
	struct hltests_export e;
	uint32_t handle = 0xdead;
	int vfd, fds, h, rc;

	/* Refused before any P2P policy applies: runs under both */
	if (access("/sys/module/vgem", F_OK) && hltests_modprobe("vgem")) {
		print_message("no vgem module for this kernel (CONFIG_DRM_VGEM)\n");
		skip();
	}
	vfd = open_vgem();
	assert_true(vfd >= 0);
	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 16);
	fds = hltests_count_fds();

	rc = drmPrimeFDToHandle(vfd, e.dmabuf, &handle);
	assert_int_equal(rc, -1);
	assert_int_equal(errno, EOPNOTSUPP);
	print_message("drmPrimeFDToHandle(vgem): %s, as documented\n",
		      strerror(errno));
	assert_int_equal(hltests_count_fds(), fds);
	check_exporter_counts(0, 0);
	close(vfd);
	assert_int_equal(system("rmmod vgem"), 0);

	if (policy_strict) {
		hltests_export_release(f->st.fd, &e);
		return;
	}
	h = um_import(f->ifd, e.dmabuf, HL_UMEM_KIND_DYNAMIC, 0, 2 * MB);
	assert_true(h > 0);
	assert_int_equal(um_map(f->ifd, h, &m), 0);
	check_read(f->ifd, h, 0, e.pattern, XFER, "after the refused DRM import");
	assert_int_equal(um_op(f->ifd, HL_UMEM_IOCTL_RELEASE, h), 0);
	hltests_export_release(f->st.fd, &e);
}

/* ---- policy and errors ---- */

/* With p2p_policy=strict every kind of umem is refused at attach */
static void test_strict_policy_refuses_every_kind(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hltests_export e;
	uint32_t k;

	if (!policy_strict) {
		print_message("p2p_policy=iommu: the refusal is tested by the make check run with the default policy\n");
		skip();
	}
	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 17);
	for (k = HL_UMEM_KIND_DYNAMIC; k <= HL_UMEM_KIND_REVOCABLE; k++)
		assert_int_equal(um_import(f->ifd, e.dmabuf, k, 0, 2 * MB),
				 -EXDEV);
	hltests_export_release(f->st.fd, &e);
}

/* The RDMA core's and the module's argument checks */
static void test_import_errors(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hl_umem_import a;
	struct hl_umem_map m;
	struct hltests_export e;
	int dmabuf;

	skip_if_strict();
	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 18);
	dmabuf = e.dmabuf;
	/* Outside the dma-buf, empty, overflowing */
	assert_int_equal(um_import(f->ifd, dmabuf, HL_UMEM_KIND_DYNAMIC, 2 * MB, 1),
			 -EINVAL);
	assert_int_equal(um_import(f->ifd, dmabuf, HL_UMEM_KIND_PINNED, MB,
				   MB + 1), -EINVAL);
	assert_int_equal(um_import(f->ifd, dmabuf, HL_UMEM_KIND_DYNAMIC, 0, 0),
			 -EINVAL);
	assert_int_equal(um_import(f->ifd, dmabuf, HL_UMEM_KIND_DYNAMIC,
				   ~0ull - 10, 100), -EINVAL);
	/* Not a dma-buf, not a file, unknown kind, non-zero padding */
	assert_int_equal(um_import(f->ifd, f->st.fd, HL_UMEM_KIND_DYNAMIC, 0, PAGE),
			 -EINVAL);
	assert_int_equal(um_import(f->ifd, 1000, HL_UMEM_KIND_DYNAMIC, 0, PAGE),
			 -EBADF);
	assert_int_equal(um_import(f->ifd, dmabuf, 3, 0, PAGE), -EINVAL);
	memset(&a, 0, sizeof(a));
	a.fd = dmabuf;
	a.size = PAGE;
	a.pad = 1;
	assert_int_equal(hltests_ioctl(f->ifd, HL_UMEM_IOCTL_IMPORT, &a),
			 -EINVAL);
	assert_int_equal(um_map(f->ifd, 99, &m), -ENOENT);
	assert_int_equal(ioctl(f->ifd, _IO('U', 0x7f)), -1);
	assert_int_equal(errno, ENOTTY);
	check_exporter_counts(0, 0);
	hltests_export_release(f->st.fd, &e);
}

static const struct CMUnitTest umem_tests[] = {
	cmocka_unit_test_setup_teardown(test_strict_policy_refuses_every_kind,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_import_errors, setup, teardown),
	cmocka_unit_test_setup_teardown(test_data_dynamic_whole, setup,
					teardown),
	cmocka_unit_test_setup_teardown(test_data_sub_ranges, setup, teardown),
	cmocka_unit_test_setup_teardown(test_data_pinned, setup, teardown),
	cmocka_unit_test_setup_teardown(test_data_revocable, setup, teardown),
	cmocka_unit_test_setup_teardown(test_dynamic_move_notify_then_remap,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_pinned_move_notify_only_complains,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_fd_close_keeps_mapped_umem, setup,
					teardown),
	cmocka_unit_test_setup_teardown(test_drm_prime_import_refused, setup,
					teardown),
	cmocka_unit_test_setup_teardown(test_importer_unbind_releases_umems,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_unbind_invalidates_umems, setup,
					teardown),
	cmocka_unit_test_setup_teardown(test_pinned_umem_holds_unbind, setup,
					teardown),
	cmocka_unit_test_setup_teardown(test_hard_reset_invalidates_dynamic_umem,
					setup, teardown),
};

/* Whether the running kernel's config has the line @line */
static bool kernel_config_has(const char *line)
{
	char path[128], buf[256];
	bool found = false, piped = false;
	struct utsname u;
	FILE *f;

	assert_int_equal(uname(&u), 0);
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	f = fopen(path, "r");
	if (!f) {
		/* CONFIG_IKCONFIG_PROC (the debug kernel) */
		f = popen("zcat /proc/config.gz", "r");
		piped = true;
	}
	assert_non_null(f);
	while (!found && fgets(buf, sizeof(buf), f))
		found = !strncmp(buf, line, strlen(line)) &&
			(buf[strlen(line)] == '\n' || !buf[strlen(line)]);
	if (piped)
		pclose(f);
	else
		fclose(f);
	return found;
}

static void skip_all(void **state)
{
	(void)state;
	skip();
}

int main(void)
{
	const size_t n = sizeof(umem_tests) / sizeof(umem_tests[0]);
	struct CMUnitTest skipped[sizeof(umem_tests) / sizeof(umem_tests[0])];
	char policy[32] = "";
	size_t i;
	int rc;

	hltests_read_file("/sys/module/habanalabs/parameters/p2p_policy",
			  policy, sizeof(policy));
	policy_strict = strcmp(policy, "iommu") != 0;
	dyn_pins = !kernel_config_has("CONFIG_DMABUF_MOVE_NOTIFY=y");
	fprintf(stderr, "umem: p2p_policy=%s, CONFIG_DMABUF_MOVE_NOTIFY=%s\n",
		policy, dyn_pins ? "n" : "y");

	hltests_pci_addr(0, hl_busid, sizeof(hl_busid));
	rc = hltests_umem_start();
	if (rc > 0) {
		memcpy(skipped, umem_tests, sizeof(skipped));
		for (i = 0; i < n; i++) {
			skipped[i].test_func = skip_all;
			skipped[i].setup_func = NULL;
			skipped[i].teardown_func = NULL;
		}
		return _cmocka_run_group_tests("umem", skipped, n, NULL, NULL);
	}
	if (rc < 0) {
		hltests_umem_stop();
		return 1;
	}
	rc = HLTESTS_RUN("umem", umem_tests);
	if (hltests_umem_stop())
		rc = rc ? rc : 1;
	return rc;
}

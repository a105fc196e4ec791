// SPDX-License-Identifier: MIT
/*
 * hl-bench - what the driver stack costs around the work, each series
 * measured against a peer in the same run (tools/hl-bench/README.md).
 *
 *   hl-bench dmabuf    ALLOC+MAP+EXPORT and import (attach+map+unmap+detach
 *                      by the test importer) against udmabuf, 2 MiB .. 1 GiB
 *   hl-bench mem       ALLOC/FREE, device MAP/UNMAP, host MAP/UNMAP latency
 *                      with 1 .. 100,000 live host mappings
 *   hl-bench cs        submit-to-fence latency, CS/s, WAIT_CS latency
 *   hl-bench copy      LIN_DMA HBM->HBM, HBM->host, host->HBM against the
 *                      CPU's memcpy over the HBM BAR of an identical,
 *                      unbound accelerator (mmap of the PCI resource),
 *                      samples alternating
 *   hl-bench reduce    the REDUCE engine (float32 sums) against its own
 *                      adder run by the CPU over the HBM BAR of an
 *                      identical, unbound accelerator, samples alternating
 *   hl-bench coll-cpu  libhlcoll's collectives (-o: all-reduce, all-gather,
 *                      reduce-scatter, broadcast, reduce, all-to-all,
 *                      send/recv) done by the CPU in one process over the
 *                      HBM BARs of every device (unbound)
 *
 * Every measurement is one JSON object on one line of stdout
 * ("series", "impl", "op", the parameters, the times in microseconds);
 * tools/hl-bench/report turns a run's lines into tables, plots and ratios.
 * Diagnostics go to stderr. Exit status: 0, 1 on a failed operation, 2 on
 * bad usage. It asserts nothing about the numbers.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/udmabuf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hlthunk.h"
#include "adder.h"
#include "hlcoll_data.h"
#include "../common/hltools.h"
#include "../../tests/importer/hl_importer.h"

#define MiB		(1ull << 20)
#define GiB		(1ull << 30)
#define HOST_PAGE	4096ull
#define MAX_SIZES	32
#define MAX_DEVS	16
#define IMPORTER_DEV	"/dev/hl_importer"
#define UDMABUF_DEV	"/dev/udmabuf"
#define UDMABUF_LIMIT	"/sys/module/udmabuf/parameters/size_limit_mb"
#define CS_WAIT_US	(600ull * 1000 * 1000)

static int g_dev;			/* -d: device (module id) */
static uint64_t g_sizes[MAX_SIZES];	/* -s: sizes */
static int g_nsizes;
static int g_iters;			/* -n: repetitions (0: default) */

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "hl-bench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double best(const double *v, int n)
{
	double b = v[0];
	int i;

	for (i = 1; i < n; i++)
		if (v[i] < b)
			b = v[i];
	return b;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int parse_sizes(const char *list)
{
	int n = hltools_parse_sizes(list, g_sizes, MAX_SIZES);

	g_nsizes = n > 0 ? n : 0;
	return n > 0 ? 0 : -1;
}

/* Repetitions of a timed point: -n, at most 16, default 3 */
static int iters(void)
{
	if (!g_iters)
		return 3;
	return g_iters > 16 ? 16 : g_iters;
}

static void default_sizes(const char *list)
{
	if (!g_nsizes && parse_sizes(list))
		die("bad default sizes");
}

static int open_dev(int dev)
{
	int fd = hlthunk_open_by_module_id(dev);

	if (fd < 0)
		die("open device %d: %s", dev, strerror(-fd));
	return fd;
}

static void write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		die("write %s to %s: %s", text, path, strerror(errno));
	close(fd);
}

/*
 * Short operations are repeated until a sample lasts at least MIN_SAMPLE_US,
 * so that they are not lost in the clock's and the scheduler's noise.
 */
#define MIN_SAMPLE_US	20000.0

struct timed_op {
	void (*fn)(void *arg);
	void *arg;
};

/* One sample: the operation repeated for at least MIN_SAMPLE_US */
static double sample_op(const struct timed_op *op)
{
	double t0, el;
	int k = 0;

	t0 = now_us();
	do {
		op->fn(op->arg);
		k++;
		el = now_us() - t0;
	} while (el < MIN_SAMPLE_US);
	return el / k;
}

/*
 * Time of one operation: the best of iters() samples after a warm-up. The
 * machine's other load only ever slows a sample down, so the best one is
 * the closest to what the operation costs; each peer gets the same.
 */
static double time_op(const struct timed_op *op)
{
	double best = 0, t;
	int i, n = iters();

	op->fn(op->arg);	/* warm-up */
	for (i = 0; i < n; i++) {
		t = sample_op(op);
		if (!i || t < best)
			best = t;
	}
	return best;
}

/*
 * Released DRAM is zeroed in the background (dram_scrub_pending in the
 * device's debugfs info): wait until it is done, so that the scrubber's
 * work is not billed to the peer measured next.
 */
static void wait_scrub_idle(int fd)
{
	char bus[32], path[128], line[128];
	long long pending;
	FILE *f;
	int i;

	if (hlthunk_get_pci_bus_id_from_fd(fd, bus, sizeof(bus)))
		return;
	snprintf(path, sizeof(path), "/sys/kernel/debug/habanalabs/%s/info",
		 bus);
	for (i = 0; i < 60000; i++) {
		pending = 0;
		f = fopen(path, "r");
		if (!f)
			return;
		while (fgets(line, sizeof(line), f))
			sscanf(line, "dram_scrub_pending: %lld", &pending);
		fclose(f);
		if (!pending)
			return;
		usleep(1000);
	}
}

/* ---- dma-buf: create, then attach + map + unmap + detach ---- */

/* The importer's max segment size, as its last MAP reported it */
static uint32_t g_imp_max_seg;

/* One import by the test importer; returns the number of DMA segments */
static uint32_t import_cycle(int imp, int dmabuf)
{
	struct hl_importer_import in = { .fd = dmabuf,
					 .flags = HL_IMPORTER_F_DYNAMIC };
	struct hl_importer_map map = { 0 };
	struct hl_importer_handle h = { 0 };

	if (ioctl(imp, HL_IMPORTER_IOCTL_IMPORT, &in))
		die("importer IMPORT: %s", strerror(errno));
	map.handle = in.handle;
	if (ioctl(imp, HL_IMPORTER_IOCTL_MAP, &map))
		die("importer MAP: %s", strerror(errno));
	g_imp_max_seg = map.max_seg_size;
	h.handle = in.handle;
	if (ioctl(imp, HL_IMPORTER_IOCTL_UNMAP, &h))
		die("importer UNMAP: %s", strerror(errno));
	if (ioctl(imp, HL_IMPORTER_IOCTL_RELEASE, &h))
		die("importer RELEASE: %s", strerror(errno));
	return map.nents;
}

struct hl_export {
	uint64_t handle;
	uint64_t va;
	int fd;
};

static void hl_export_create(int fd, uint64_t size, struct hl_export *e)
{
	e->handle = hlthunk_device_memory_alloc(fd, size, 0, false, false);
	if (!e->handle)
		die("ALLOC %" PRIu64 ": %s", size, strerror(errno));
	e->va = hlthunk_device_memory_map(fd, e->handle, 0);
	if (!e->va)
		die("MAP: %s", strerror(errno));
	e->fd = hlthunk_device_memory_export_dmabuf_fd(fd, e->va, size,
						       O_RDWR | O_CLOEXEC);
	if (e->fd < 0)
		die("EXPORT: %s", strerror(-e->fd));
}

static void hl_export_destroy(int fd, struct hl_export *e)
{
	close(e->fd);
	if (hlthunk_memory_unmap(fd, e->va))
		die("UNMAP: %s", strerror(errno));
	if (hlthunk_device_memory_free(fd, e->handle))
		die("FREE: %s", strerror(errno));
}

struct u_export {
	int memfd;
	int fd;
};

static void u_export_create(int udev, uint64_t size, struct u_export *e)
{
	struct udmabuf_create c = { 0 };

	e->memfd = memfd_create("hl-bench", MFD_ALLOW_SEALING);
	if (e->memfd < 0 || ftruncate(e->memfd, size) ||
	    fcntl(e->memfd, F_ADD_SEALS, F_SEAL_SHRINK) < 0)
		die("memfd of %" PRIu64 " bytes: %s", size, strerror(errno));
	c.memfd = e->memfd;
	c.flags = UDMABUF_FLAGS_CLOEXEC;
	c.size = size;
	e->fd = ioctl(udev, UDMABUF_CREATE, &c);
	if (e->fd < 0)
		die("UDMABUF_CREATE %" PRIu64 ": %s", size, strerror(errno));
}

static void u_export_destroy(struct u_export *e)
{
	close(e->fd);
	close(e->memfd);
}

static void emit_dmabuf(const char *impl, uint64_t size, double create,
			double import, double destroy, uint32_t nents)
{
	printf("{\"series\":\"dmabuf\",\"impl\":\"%s\",\"size\":%" PRIu64
	       ",\"create_us\":%.1f,\"import_us\":%.1f,\"destroy_us\":%.1f,\"nents\":%u,\"max_seg\":%u}\n",
	       impl, size, create, import, destroy, nents, g_imp_max_seg);
	fflush(stdout);
}

static int cmd_dmabuf(void)
{
	double c[2][16], im[2][16], d[2][16], t0;
	uint32_t nents[2] = { 0 };
	int fd, imp, udev, s, i, n;
	char limit[32];

	default_sizes("2M,8M,32M,128M,512M,1G");
	fd = open_dev(g_dev);
	imp = open(IMPORTER_DEV, O_RDWR);
	udev = open(UDMABUF_DEV, O_RDWR);
	if (imp < 0 || udev < 0)
		die("%s or %s: %s", IMPORTER_DEV, UDMABUF_DEV, strerror(errno));
	snprintf(limit, sizeof(limit), "%d", 4096);
	write_text(UDMABUF_LIMIT, limit);

	for (s = 0; s < g_nsizes; s++) {
		uint64_t size = g_sizes[s];

		n = iters();
		for (i = 0; i < n; i++) {
			struct hl_export he;
			struct u_export ue;

			/* Alternate the two, so that drift hits both alike */
			t0 = now_us();
			hl_export_create(fd, size, &he);
			c[0][i] = now_us() - t0;
			t0 = now_us();
			nents[0] = import_cycle(imp, he.fd);
			im[0][i] = now_us() - t0;
			t0 = now_us();
			hl_export_destroy(fd, &he);
			d[0][i] = now_us() - t0;
			wait_scrub_idle(fd);

			t0 = now_us();
			u_export_create(udev, size, &ue);
			c[1][i] = now_us() - t0;
			t0 = now_us();
			nents[1] = import_cycle(imp, ue.fd);
			im[1][i] = now_us() - t0;
			t0 = now_us();
			u_export_destroy(&ue);
			d[1][i] = now_us() - t0;
		}
		emit_dmabuf("hl", size, best(c[0], n), best(im[0], n),
			    best(d[0], n), nents[0]);
		emit_dmabuf("udmabuf", size, best(c[1], n), best(im[1], n),
			    best(d[1], n), nents[1]);
	}
	close(udev);
	close(imp);
	hlthunk_close(fd);
	return 0;
}

/*
 * ---- memory: latency against the number of live objects ----
 *
 * The live objects are host mappings of a page each (400 MB pinned at
 * 100,000); the measured ops are an ALLOC/FREE of 2 MiB, a MAP/UNMAP of a
 * 2 MiB allocation and a host MAP/UNMAP of another page, 50 of each.
 */

static int cmd_mem(void)
{
	static const uint64_t lives[] = { 1, 10, 100, 1000, 10000, 100000 };
	uint64_t *live_va, nlive = 0, handle, va, k, reps;
	double t_alloc, t_free, t_map, t_unmap, t_hmap, t_hunmap, t0;
	void *page, *hbuf;
	size_t li;
	int fd;

	fd = open_dev(g_dev);
	/* A page per live mapping: a host page is in a few mappings at most */
	page = mmap(NULL, lives[5] * HOST_PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	hbuf = aligned_alloc(HOST_PAGE, HOST_PAGE);
	live_va = calloc(lives[5], sizeof(*live_va));
	if (page == MAP_FAILED || !hbuf || !live_va)
		die("out of memory");
	memset(page, 1, lives[5] * HOST_PAGE);
	memset(hbuf, 2, HOST_PAGE);

	handle = hlthunk_device_memory_alloc(fd, 2 * MiB, 0, false, false);
	if (!handle)
		die("ALLOC: %s", strerror(errno));

	for (li = 0; li < sizeof(lives) / sizeof(lives[0]); li++) {
		/* The live objects: host mappings of one pinned page each */
		while (nlive < lives[li]) {
			live_va[nlive] = hlthunk_host_memory_map(fd,
						(char *)page + nlive * HOST_PAGE,
						0, HOST_PAGE);
			if (!live_va[nlive])
				die("host MAP #%" PRIu64 ": %s", nlive,
				    strerror(errno));
			nlive++;
		}

		reps = 50;
		t_alloc = t_free = t_map = t_unmap = t_hmap = t_hunmap = 0;
		for (k = 0; k < reps; k++) {
			uint64_t h;

			/*
			 * The freed page is zeroed in the background: under
			 * TCG that takes the same CPU as the next ioctl, so
			 * it is left to finish first (not timed)
			 */
			wait_scrub_idle(fd);
			t0 = now_us();
			h = hlthunk_device_memory_alloc(fd, 2 * MiB, 0, false, false);
			t_alloc += now_us() - t0;
			if (!h)
				die("ALLOC: %s", strerror(errno));
			t0 = now_us();
			if (hlthunk_device_memory_free(fd, h))
				die("FREE: %s", strerror(errno));
			t_free += now_us() - t0;
			wait_scrub_idle(fd);

			t0 = now_us();
			va = hlthunk_device_memory_map(fd, handle, 0);
			t_map += now_us() - t0;
			if (!va)
				die("MAP: %s", strerror(errno));
			t0 = now_us();
			if (hlthunk_memory_unmap(fd, va))
				die("UNMAP: %s", strerror(errno));
			t_unmap += now_us() - t0;

			t0 = now_us();
			va = hlthunk_host_memory_map(fd, hbuf, 0, HOST_PAGE);
			t_hmap += now_us() - t0;
			if (!va)
				die("host MAP: %s", strerror(errno));
			t0 = now_us();
			if (hlthunk_memory_unmap(fd, va))
				die("host UNMAP: %s", strerror(errno));
			t_hunmap += now_us() - t0;
		}
		printf("{\"series\":\"mem\",\"impl\":\"hl\",\"live\":%" PRIu64
		       ",\"alloc_us\":%.2f,\"free_us\":%.2f,\"map_us\":%.2f,\"unmap_us\":%.2f"
		       ",\"host_map_us\":%.2f,\"host_unmap_us\":%.2f}\n",
		       nlive, t_alloc / reps, t_free / reps, t_map / reps,
		       t_unmap / reps, t_hmap / reps, t_hunmap / reps);
		fflush(stdout);
	}

	while (nlive)
		hlthunk_memory_unmap(fd, live_va[--nlive]);
	hlthunk_device_memory_free(fd, handle);
	hlthunk_close(fd);
	free(live_va);
	munmap(page, lives[5] * HOST_PAGE);
	free(hbuf);
	return 0;
}

/* ---- command submission ---- */

struct host_buf {
	uint8_t *ptr;
	uint64_t va;
	uint64_t size;
};

static void host_buf_map(int fd, struct host_buf *b, uint64_t size)
{
	b->size = (size + HOST_PAGE - 1) & ~(HOST_PAGE - 1);
	b->ptr = mmap(NULL, b->size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (b->ptr == MAP_FAILED)
		die("mmap %" PRIu64 ": %s", size, strerror(errno));
	memset(b->ptr, 0x5a, b->size);
	b->va = hlthunk_host_memory_map(fd, b->ptr, 0, b->size);
	if (!b->va)
		die("host MAP %" PRIu64 ": %s", size, strerror(errno));
}

static void host_buf_unmap(int fd, struct host_buf *b)
{
	hlthunk_memory_unmap(fd, b->va);
	munmap(b->ptr, b->size);
}

static uint64_t dram_map(int fd, uint64_t size, uint64_t *handle)
{
	uint64_t va;

	*handle = hlthunk_device_memory_alloc(fd, size, 0, false, false);
	if (!*handle)
		die("ALLOC %" PRIu64 ": %s", size, strerror(errno));
	va = hlthunk_device_memory_map(fd, *handle, 0);
	if (!va)
		die("MAP: %s", strerror(errno));
	return va;
}

static void dram_unmap(int fd, uint64_t va, uint64_t handle)
{
	hlthunk_memory_unmap(fd, va);
	hlthunk_device_memory_free(fd, handle);
}

static uint64_t submit(int fd, uint32_t queue, uint64_t cb_va, uint32_t size)
{
	struct hl_cs_chunk chunk = { .cb_handle = cb_va, .queue_index = queue,
				     .cb_size = size };
	struct hlthunk_cs_in in = { .chunks_execute = &chunk,
				    .num_chunks_execute = 1 };
	struct hlthunk_cs_out out;
	int rc;

	rc = hlthunk_command_submission(fd, &in, &out);
	if (rc || out.status != HL_CS_STATUS_SUCCESS)
		die("CS: %s", strerror(-rc));
	return out.seq;
}

static void wait_cs(int fd, uint64_t seq)
{
	uint32_t status = 0;
	int rc = hlthunk_wait_for_cs(fd, seq, CS_WAIT_US, &status);

	if (rc || status != HL_WAIT_CS_STATUS_COMPLETED)
		die("WAIT_CS %" PRIu64 ": rc %d status %u", seq, rc, status);
}

/* Latency (median of @n submit-to-fence) and rate of one job kind */
static void cs_series(int fd, const char *job, uint64_t cb_va, uint32_t cb_size,
		      int n)
{
	double *lat = calloc(n, sizeof(*lat)), t0, rate, wait_lat;
	uint64_t *seqs = calloc(n, sizeof(*seqs)), seq;
	int i;

	if (!lat || !seqs)
		die("out of memory");
	for (i = 0; i < n; i++) {
		t0 = now_us();
		wait_cs(fd, submit(fd, 0, cb_va, cb_size));
		lat[i] = now_us() - t0;
	}

	/* Back to back, on the four queues, then wait for all */
	t0 = now_us();
	for (i = 0; i < n; i++)
		seqs[i] = submit(fd, i % 4, cb_va, cb_size);
	for (i = 0; i < n; i++)
		wait_cs(fd, seqs[i]);
	seq = seqs[n - 1];
	rate = n / ((now_us() - t0) / 1e6);

	/* WAIT_CS on a completed CS */
	t0 = now_us();
	for (i = 0; i < n; i++)
		wait_cs(fd, seq);
	wait_lat = (now_us() - t0) / n;

	printf("{\"series\":\"cs\",\"impl\":\"hl\",\"job\":\"%s\",\"latency_us\":%.1f"
	       ",\"cs_per_s\":%.1f,\"wait_cs_us\":%.2f}\n",
	       job, median(lat, n), rate, wait_lat);
	fflush(stdout);
	free(seqs);
	free(lat);
}

static int cmd_cs(void)
{
	struct host_buf cb;
	uint64_t h0, h1, a, b;
	uint32_t size;
	int fd, n = g_iters ? g_iters : 200;

	fd = open_dev(g_dev);
	host_buf_map(fd, &cb, HOST_PAGE);
	a = dram_map(fd, 2 * MiB, &h0);
	b = dram_map(fd, 2 * MiB, &h1);

	size = hlthunk_pkt_nop(cb.ptr);
	cs_series(fd, "nop", cb.va, size, n);
	size = hlthunk_pkt_lin_dma(cb.ptr, a, b, 4096);
	cs_series(fd, "lin_dma_4k", cb.va, size, n);

	dram_unmap(fd, a, h0);
	dram_unmap(fd, b, h1);
	host_buf_unmap(fd, &cb);
	hlthunk_close(fd);
	return 0;
}

/* ---- engines: LIN_DMA ---- */

static void emit_copy(const char *impl, const char *dir, uint64_t size,
		      double us)
{
	printf("{\"series\":\"copy\",\"impl\":\"%s\",\"dir\":\"%s\",\"size\":%" PRIu64
	       ",\"time_us\":%.1f,\"gbps\":%.4f}\n",
	       impl, dir, size, us, size / us / 1e3);
	fflush(stdout);
}

struct dma_arg {
	int fd;
	uint64_t cb_va;
	uint32_t cb_size;
};

static void dma_once(void *p)
{
	struct dma_arg *a = p;

	wait_cs(a->fd, submit(a->fd, 0, a->cb_va, a->cb_size));
}


/* ---- the CPU over the BARs (driver unbound) ---- */

struct bar {
	uint8_t *p;
	uint64_t size;
};

/* An offset that keeps buffers off a power-of-2 distance: @i odd pages */
#define SKEW(i)		((uint64_t)(2 * (i) + 1) * 4096 * 7)

/* The ivshmem functions (1af4:1110), in PCI order: device i of the VM */
static int find_devices(char bdf[][16], int max)
{
	struct dirent **list;
	int n, i, found = 0;

	n = scandir("/sys/bus/pci/devices", &list, NULL, alphasort);
	for (i = 0; i < n; i++) {
		char path[512], id[64] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor",
			 list[i]->d_name);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(id, sizeof(id), f))
				id[0] = 0;
			fclose(f);
		}
		if (!strncmp(id, "0x1af4", 6)) {
			snprintf(path, sizeof(path),
				 "/sys/bus/pci/devices/%s/device",
				 list[i]->d_name);
			f = fopen(path, "r");
			if (f) {
				if (fgets(id, sizeof(id), f) &&
				    !strncmp(id, "0x1110", 6) && found < max)
					snprintf(bdf[found++], 16, "%.15s",
						 list[i]->d_name);
				fclose(f);
			}
		}
		free(list[i]);
	}
	free(list);
	return found;
}

static void bar_map(const char *bdf, struct bar *bar)
{
	char path[256], drv[256];
	struct stat st;
	int fd;

	/* The driver must not own the device while the CPU writes its HBM */
	snprintf(drv, sizeof(drv), "/sys/bus/pci/devices/%s/driver", bdf);
	if (!access(drv, F_OK))
		die("%s is bound to a driver: unbind it first", bdf);

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource2_wc",
		 bdf);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		snprintf(path, sizeof(path),
			 "/sys/bus/pci/devices/%s/resource2", bdf);
		fd = open(path, O_RDWR);
	}
	if (fd < 0 || fstat(fd, &st))
		die("%s: %s", path, strerror(errno));
	bar->size = st.st_size;
	bar->p = mmap(NULL, bar->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		      0);
	if (bar->p == MAP_FAILED)
		die("mmap %s: %s", path, strerror(errno));
	close(fd);
}

struct memcpy_arg {
	void *dst;
	const void *src;
	uint64_t size;
};

static void memcpy_once(void *p)
{
	struct memcpy_arg *a = p;

	memcpy(a->dst, a->src, a->size);
}


/*
 * LIN_DMA on device g_dev against the CPU's memcpy over the HBM BAR of an
 * identical accelerator, @peer (the n-th ivshmem function, unbound), over
 * the same host buffer: samples of the two alternate, so that the
 * machine's load hits both alike; the best sample of each is reported.
 */
static int cmd_copy(int peer)
{
	static const char * const dirs[] = { "hbm_to_hbm", "hbm_to_host",
					     "host_to_hbm" };
	char bdf[MAX_DEVS][16];
	struct host_buf cb, hb;
	uint64_t ha, hb_h, a, b, max = 0, half;
	struct bar bar;
	int fd, s, d, i;

	default_sizes("64K,1M,16M,64M");
	for (s = 0; s < g_nsizes; s++)
		if (g_sizes[s] > max)
			max = g_sizes[s];
	if (find_devices(bdf, MAX_DEVS) <= peer)
		die("no device %d", peer);
	bar_map(bdf[peer], &bar);
	half = bar.size / 2;
	if (2 * max + SKEW(1) > half)
		die("sizes up to %" PRIu64 " bytes only", half / 2 - SKEW(1));

	fd = open_dev(g_dev);
	host_buf_map(fd, &cb, HOST_PAGE);
	host_buf_map(fd, &hb, max);
	a = dram_map(fd, max, &ha);
	b = dram_map(fd, max, &hb_h);

	for (s = 0; s < g_nsizes; s++) {
		uint64_t size = g_sizes[s];
		/*
		 * The peer's two HBM ranges: in the upper half, and not a
		 * power of 2 apart, which an emulator's direct-mapped TLB
		 * (QEMU TCG's) would punish for nothing
		 */
		uint8_t *pa = bar.p + half, *pb = pa + max + SKEW(1);

		for (d = 0; d < 3; d++) {
			struct dma_arg da = { .fd = fd, .cb_va = cb.va };
			struct memcpy_arg ma = { .size = size };
			struct timed_op dop = { dma_once, &da };
			struct timed_op mop = { memcpy_once, &ma };
			double td = 0, tm = 0, t;

			switch (d) {
			case 0:
				da.cb_size = hlthunk_pkt_lin_dma(cb.ptr, a, b, size);
				ma.src = pa;
				ma.dst = pb;
				break;
			case 1:
				da.cb_size = hlthunk_pkt_lin_dma(cb.ptr, a, hb.va,
								 size);
				ma.src = pa;
				ma.dst = hb.ptr;
				break;
			default:
				da.cb_size = hlthunk_pkt_lin_dma(cb.ptr, hb.va, a,
								 size);
				ma.src = hb.ptr;
				ma.dst = pa;
				break;
			}
			dma_once(&da);
			memcpy_once(&ma);
			for (i = 0; i < iters(); i++) {
				t = sample_op(&dop);
				td = !i || t < td ? t : td;
				t = sample_op(&mop);
				tm = !i || t < tm ? t : tm;
			}
			emit_copy("lin_dma", dirs[d], size, td);
			emit_copy("memcpy", dirs[d], size, tm);
		}
	}

	dram_unmap(fd, a, ha);
	dram_unmap(fd, b, hb_h);
	host_buf_unmap(fd, &hb);
	host_buf_unmap(fd, &cb);
	hlthunk_close(fd);
	munmap(bar.p, bar.size);
	return 0;
}

/* ---- engines: REDUCE against its own adder run by the CPU ---- */

/* The collectives' message (libhlcoll's default chunk) */
#define REDUCE_CHUNK	(256 * 1024ull)
/* The operands' distance: a power of 2 (and the same plus SKEW(1)) */
#define REDUCE_DIST	(32 * MiB)
#define REDUCE_SEED	0x5eedadd5ull

struct add_arg {
	uint8_t *dst;
	const uint8_t *src;
	uint64_t size;
	uint64_t step;	/* 0: one sum; else: messages from one scratch */
	int avx;
};

/* What the engine does, by the CPU: the same adder, the same pattern */
static void add_once(void *p)
{
	struct add_arg *a = p;
	uint64_t off;

	if (!a->step) {
		hlbench_f32_add(a->dst, a->src, a->size / 4, a->avx);
		return;
	}
	for (off = 0; off < a->size; off += a->step)
		hlbench_f32_add(a->dst + off, a->src, a->step / 4, a->avx);
}

/*
 * The operands: "random", the collectives' inputs (hlcoll_data_value():
 * random significands, so that sums round); "exact", 0 += 1.0, sums that
 * never round
 */
static void reduce_fill(uint32_t *dst, uint32_t *src, uint64_t n, bool exact)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		dst[i] = exact ? 0 : hlcoll_data_value(REDUCE_SEED, 0, i);
		src[i] = exact ? 0x3f800000u : hlcoll_data_value(REDUCE_SEED, 1, i);
	}
}

static void emit_reduce(const char *impl, const char *data,
			const char *pattern, const char *place, uint64_t size,
			uint64_t dist, double us)
{
	printf("{\"series\":\"reduce\",\"impl\":\"%s\",\"data\":\"%s\""
	       ",\"pattern\":\"%s\",\"place\":\"%s\",\"size\":%" PRIu64
	       ",\"dist\":%" PRIu64 ",\"time_us\":%.1f,\"ms_per_mib\":%.3f}\n",
	       impl, data, pattern, place, size, dist, us,
	       us / 1e3 / ((double)size / MiB));
	fflush(stdout);
}

/* The engine's and the CPU's samples of one point, alternating */
static void reduce_point(struct dma_arg *da, struct add_arg *aa,
			 double *te, double *tc)
{
	struct timed_op eop = { dma_once, da };
	struct timed_op cop = { add_once, aa };
	double t;
	int i;

	dma_once(da);
	add_once(aa);
	for (i = 0; i < iters(); i++) {
		t = sample_op(&eop);
		*te = !i || t < *te ? t : *te;
		t = sample_op(&cop);
		*tc = !i || t < *tc ? t : *tc;
	}
}

/*
 * The REDUCE engine of device g_dev (float32 sums, submit to fence)
 * against the CPU running the engine's own adder (emu_f32_sse.h, linked
 * in as adder.c) over the HBM BAR of an identical accelerator, @peer
 * (unbound), with the same operands at the same distance in both HBMs;
 * samples alternate. Patterns: "whole", one REDUCE of the size; "chunks",
 * the collectives' way: one REDUCE per 256 KiB message from one scratch
 * message into consecutive parts of the destination. Placements: the
 * second operand REDUCE_DIST (a power of 2) after the first ("pow2"), or
 * that plus a few pages ("apart"). Data: reduce_fill(). The ratio of the
 * two times is the engine's cost per byte around its adder.
 */
static int cmd_reduce(int peer)
{
	static const char * const places[] = { "apart", "pow2" };
	static const char * const patterns[] = { "whole", "chunks" };
	static const char * const datas[] = { "random", "exact" };
	char bdf[MAX_DEVS][16];
	struct host_buf cb, hb;
	uint64_t h, base, max = 0, area, off;
	uint8_t *cpu_base;
	struct bar bar;
	int fd, s, pl, pt, dt, avx = 0;

#ifdef __x86_64__
	avx = __builtin_cpu_supports("avx2");
#endif
	default_sizes("16M");
	for (s = 0; s < g_nsizes; s++) {
		if (g_sizes[s] % REDUCE_CHUNK || g_sizes[s] > REDUCE_DIST)
			die("sizes: multiples of 256K up to 32M");
		if (g_sizes[s] > max)
			max = g_sizes[s];
	}
	if (find_devices(bdf, MAX_DEVS) <= peer)
		die("no device %d", peer);
	bar_map(bdf[peer], &bar);
	area = REDUCE_DIST + SKEW(1) + max;
	if (area > bar.size / 2)
		die("the peer's HBM is too small");
	cpu_base = bar.p + bar.size / 2;

	fd = open_dev(g_dev);
	host_buf_map(fd, &cb, 16 * HOST_PAGE);
	host_buf_map(fd, &hb, 2 * max);
	/* One contiguous range: the distances are those of the HBM too */
	h = hlthunk_device_memory_alloc(fd, area, 0, true, false);
	if (!h)
		die("ALLOC %" PRIu64 " contiguous: %s", area, strerror(errno));
	base = hlthunk_device_memory_map(fd, h, 0);
	if (!base)
		die("MAP: %s", strerror(errno));

	for (s = 0; s < g_nsizes; s++) {
		uint64_t size = g_sizes[s];

		for (dt = 0; dt < 2; dt++)
		for (pl = 0; pl < 2; pl++) {
			uint64_t dist = REDUCE_DIST + (pl ? 0 : SKEW(1));
			struct dma_arg da = { .fd = fd, .cb_va = cb.va };
			struct add_arg aa = { .dst = cpu_base,
					      .src = cpu_base + dist,
					      .avx = avx };

			/* The same operands in both HBMs */
			reduce_fill((uint32_t *)hb.ptr,
				    (uint32_t *)(hb.ptr + max), size / 4, dt);
			da.cb_size = hlthunk_pkt_lin_dma(cb.ptr, hb.va, base,
							 size);
			da.cb_size += hlthunk_pkt_lin_dma(cb.ptr + da.cb_size,
							  hb.va + max,
							  base + dist, size);
			dma_once(&da);
			memcpy(cpu_base, hb.ptr, size);
			memcpy(cpu_base + dist, hb.ptr + max, size);

			for (pt = 0; pt < 2; pt++) {
				double te = 0, tc = 0;

				da.cb_size = 0;
				for (off = 0; off < size;
				     off += pt ? REDUCE_CHUNK : size)
					da.cb_size += hlthunk_pkt_reduce(cb.ptr + da.cb_size,
									 base + dist,
									 base + off,
									 (pt ? REDUCE_CHUNK : size) / 4,
									 HL_REDUCE_DTYPE_F32,
									 HL_REDUCE_OP_SUM);
				aa.size = size;
				aa.step = pt ? REDUCE_CHUNK : 0;
				reduce_point(&da, &aa, &te, &tc);
				emit_reduce("engine", datas[dt], patterns[pt],
					    places[pl], size, dist, te);
				emit_reduce("cpu", datas[dt], patterns[pt],
					    places[pl], size, dist, tc);
			}
		}
	}

	dram_unmap(fd, base, h);
	host_buf_unmap(fd, &hb);
	host_buf_unmap(fd, &cb);
	hlthunk_close(fd);
	munmap(bar.p, bar.size);
	return 0;
}

/*
 * The ring of hlcoll (lib/hlcoll/hlcoll.c) done by the CPU: rank r's
 * buffers are in device r's HBM; each step moves a segment from rank r's
 * HBM into a scratch buffer in rank r+1's HBM with memcpy, then adds it
 * into rank r+1's result with float adds (all-reduce), or copies it into
 * place (all-gather).
 */
struct ring {
	int n;
	float *send[MAX_DEVS];
	float *recv[MAX_DEVS];
	float *scratch[MAX_DEVS];
};

static void seg_of(uint64_t count, int n, int k, uint64_t *off, uint64_t *len)
{
	uint64_t base = count / n, rem = count % n;

	*len = base + ((uint64_t)k < rem);
	*off = k * base + ((uint64_t)k < rem ? (uint64_t)k : rem);
}

static void add_f32(float *restrict dst, const float *restrict src,
		    uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		dst[i] = dst[i] + src[i];
}

static void cpu_allreduce(struct ring *r, uint64_t count)
{
	uint64_t off, len;
	int s, k, me, next;

	for (me = 0; me < r->n; me++)
		memcpy(r->recv[me], r->send[me], count * 4);
	/* Reduce-scatter: at step s rank me sends segment (me - s) */
	for (s = 0; s < r->n - 1; s++) {
		for (me = 0; me < r->n; me++) {
			next = (me + 1) % r->n;
			k = ((me - s) % r->n + r->n) % r->n;
			seg_of(count, r->n, k, &off, &len);
			memcpy(r->scratch[next], r->recv[me] + off, len * 4);
			add_f32(r->recv[next] + off, r->scratch[next], len);
		}
	}
	/* All-gather: at step s rank me sends segment (me + 1 - s) */
	for (s = 0; s < r->n - 1; s++) {
		for (me = 0; me < r->n; me++) {
			next = (me + 1) % r->n;
			k = ((me + 1 - s) % r->n + r->n) % r->n;
			seg_of(count, r->n, k, &off, &len);
			memcpy(r->recv[next] + off, r->recv[me] + off, len * 4);
		}
	}
}

static void cpu_allgather(struct ring *r, uint64_t count)
{
	int s, k, me, next;

	for (me = 0; me < r->n; me++)
		memcpy(r->recv[me] + me * count, r->send[me], count * 4);
	for (s = 0; s < r->n - 1; s++) {
		for (me = 0; me < r->n; me++) {
			next = (me + 1) % r->n;
			k = ((me - s) % r->n + r->n) % r->n;
			memcpy(r->recv[next] + k * count,
			       r->recv[me] + k * count, count * 4);
		}
	}
}

/*
 * The other collectives, as libhlcoll runs them (root 0; sendrecv: the
 * ring, each rank sending to the next), data moved with memcpy between the
 * BARs, sums with float adds in the same order
 */
static void cpu_reduce_scatter(struct ring *r, uint64_t count)
{
	int s, k, me, next;

	/* In a copy of the send buffer (recv), as libhlcoll's work buffer */
	for (me = 0; me < r->n; me++)
		memcpy(r->recv[me], r->send[me], count * r->n * 4);
	/* At step s rank me sends block me - 1 - s: rank r ends with block r */
	for (s = 0; s < r->n - 1; s++) {
		for (me = 0; me < r->n; me++) {
			next = (me + 1) % r->n;
			k = ((me - 1 - s) % r->n + r->n) % r->n;
			memcpy(r->scratch[next], r->recv[me] + k * count,
			       count * 4);
			add_f32(r->recv[next] + k * count, r->scratch[next],
				count);
		}
	}
	/* The result block into place (the scratch buffer stands for it) */
	for (me = 0; me < r->n; me++)
		memcpy(r->scratch[me], r->recv[me] + me * count, count * 4);
}

static void cpu_broadcast(struct ring *r, uint64_t count)
{
	int k;

	for (k = 0; k < r->n; k++)
		memcpy(r->recv[k], r->send[0], count * 4);
}

static void cpu_reduce(struct ring *r, uint64_t count)
{
	int k;

	memcpy(r->recv[0], r->send[0], count * 4);
	for (k = 1; k < r->n; k++) {
		memcpy(r->scratch[0], r->send[k], count * 4);
		add_f32(r->recv[0], r->scratch[0], count);
	}
}

static void cpu_alltoall(struct ring *r, uint64_t count)
{
	int me, from;

	for (me = 0; me < r->n; me++)
		for (from = 0; from < r->n; from++)
			memcpy(r->recv[me] + from * count,
			       r->send[from] + me * count, count * 4);
}

static void cpu_sendrecv(struct ring *r, uint64_t count)
{
	int me;

	for (me = 0; me < r->n; me++)
		memcpy(r->recv[(me + 1) % r->n], r->send[me], count * 4);
}

#define CPU_SEED	0x5eedc011ull

/* hl-coll-bench's names, sizes and nccl-tests' bus bandwidth factors */
enum cpu_coll {
	CPU_ALLREDUCE, CPU_ALLGATHER, CPU_REDUCE_SCATTER, CPU_BROADCAST,
	CPU_REDUCE, CPU_ALLTOALL, CPU_SENDRECV, CPU_NUM
};

static const char * const cpu_coll_names[] = {
	"allreduce", "allgather", "reducescatter", "broadcast", "reduce",
	"alltoall", "sendrecv",
};

/* The size is the largest buffer: split among the ranks for these */
static bool cpu_coll_split(int op)
{
	return op == CPU_ALLGATHER || op == CPU_REDUCE_SCATTER ||
	       op == CPU_ALLTOALL;
}

static double cpu_busbw_factor(int op, int n)
{
	if (op == CPU_ALLREDUCE)
		return 2.0 * (n - 1) / n;
	return cpu_coll_split(op) ? (double)(n - 1) / n : 1;
}

/*
 * Every rank's result against the host's (hlcoll_data.h: the same orders
 * of additions as libhlcoll), at every 61st element: the number that
 * differ.
 */
static uint64_t coll_cpu_check(struct ring *r, uint64_t count, int op)
{
	uint64_t i, n = cpu_coll_split(op) && op != CPU_REDUCE_SCATTER ?
			count * r->n : count, wrong = 0;
	const float *res;
	uint32_t want, got;
	int k;

	for (k = 0; k < r->n; k++) {
		res = op == CPU_REDUCE_SCATTER ? r->scratch[k] : r->recv[k];
		for (i = k; i < n; i += 61) {
			switch (op) {
			case CPU_ALLREDUCE:
				want = hlcoll_data_allreduce(CPU_SEED, r->n,
							     count, i);
				break;
			case CPU_ALLGATHER:
				want = hlcoll_data_allgather(CPU_SEED, count, i);
				break;
			case CPU_REDUCE_SCATTER:
				want = hlcoll_data_reduce_scatter(CPU_SEED, r->n,
								  k, count, i);
				break;
			case CPU_BROADCAST:
				want = hlcoll_data_value(CPU_SEED, 0, i);
				break;
			case CPU_REDUCE:
				if (k)
					continue;
				want = hlcoll_data_reduce(CPU_SEED, r->n, 0, i);
				break;
			case CPU_ALLTOALL:
				want = hlcoll_data_alltoall(CPU_SEED, k, count, i);
				break;
			default:
				want = hlcoll_data_value(CPU_SEED,
							 (k + r->n - 1) % r->n,
							 i);
				break;
			}
			got = hlcoll_data_u(res[i]);
			wrong += got != want;
		}
	}
	return wrong;
}

struct coll_arg {
	struct ring *r;
	uint64_t count;
	int op;
};

static void coll_once(void *p)
{
	struct coll_arg *a = p;

	switch (a->op) {
	case CPU_ALLREDUCE:
		cpu_allreduce(a->r, a->count);
		break;
	case CPU_ALLGATHER:
		cpu_allgather(a->r, a->count);
		break;
	case CPU_REDUCE_SCATTER:
		cpu_reduce_scatter(a->r, a->count);
		break;
	case CPU_BROADCAST:
		cpu_broadcast(a->r, a->count);
		break;
	case CPU_REDUCE:
		cpu_reduce(a->r, a->count);
		break;
	case CPU_ALLTOALL:
		cpu_alltoall(a->r, a->count);
		break;
	default:
		cpu_sendrecv(a->r, a->count);
		break;
	}
}

/* The collectives of @list (comma-separated names, "all"): a bit each */
static int parse_colls(const char *list, unsigned int *mask)
{
	char buf[256], *tok, *save = NULL;
	int op;

	*mask = 0;
	if (!strcmp(list, "all")) {
		*mask = (1u << CPU_NUM) - 1;
		return 0;
	}
	if (strlen(list) >= sizeof(buf))
		return -1;
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (op = 0; op < CPU_NUM; op++)
			if (!strcmp(tok, cpu_coll_names[op]))
				break;
		if (op == CPU_NUM)
			return -1;
		*mask |= 1u << op;
	}
	return *mask ? 0 : -1;
}

static int cmd_coll_cpu(int nranks, unsigned int colls)
{
	char bdf[MAX_DEVS][16];
	struct bar bars[MAX_DEVS];
	struct ring r = { .n = nranks };
	uint64_t max = 0, count, i, bytes;
	struct coll_arg ca;
	struct timed_op top = { coll_once, &ca };
	uint64_t wrong;
	double tm, algbw;
	int s, k, op;

	default_sizes("4K,64K,1M,4M,16M,64M");
	for (s = 0; s < g_nsizes; s++)
		if (g_sizes[s] > max)
			max = g_sizes[s];
	if (nranks < 2 || nranks > MAX_DEVS ||
	    find_devices(bdf, MAX_DEVS) < nranks)
		die("%d ranks: not enough devices", nranks);
	for (k = 0; k < nranks; k++) {
		bar_map(bdf[k], &bars[k]);
		/*
		 * send, scratch, recv (room for an all-gather), in the upper
		 * half, skewed as for memcpy
		 */
		if (bars[k].size / 2 < max * 3 + SKEW(8))
			die("HBM too small for %" PRIu64 " bytes", max);
		r.send[k] = (float *)(bars[k].p + bars[k].size / 2 + SKEW(k));
		r.scratch[k] = (float *)((uint8_t *)r.send[k] + max + SKEW(1));
		r.recv[k] = (float *)((uint8_t *)r.scratch[k] + max + SKEW(2));
		/* hl-coll-bench's inputs: sums that round, cancel and tie */
		for (i = 0; i < max / 4; i++)
			r.send[k][i] = hlcoll_data_f(hlcoll_data_value(CPU_SEED,
								       k, i));
	}

	for (op = 0; op < CPU_NUM; op++) {
		if (!(colls & (1u << op)))
			continue;
		for (s = 0; s < g_nsizes; s++) {
			uint64_t size = g_sizes[s];

			count = cpu_coll_split(op) ? size / 4 / nranks :
						     size / 4;
			if (!count)
				continue;
			ca.r = &r;
			ca.count = count;
			ca.op = op;
			tm = time_op(&top);
			wrong = coll_cpu_check(&r, count, op);
			/* As hl-coll-bench: the size of the largest buffer */
			bytes = count * 4 * (cpu_coll_split(op) ? nranks : 1);
			algbw = bytes / tm / 1e3;
			printf("{\"series\":\"coll\",\"impl\":\"cpu\",\"op\":\"%s\",\"ranks\":%d"
			       ",\"size\":%" PRIu64 ",\"time_us\":%.1f,\"algbw\":%.4f,\"busbw\":%.4f"
			       ",\"wrong\":%" PRIu64 "}\n",
			       cpu_coll_names[op], nranks, bytes, tm, algbw,
			       algbw * cpu_busbw_factor(op, nranks), wrong);
			fflush(stdout);
		}
	}
	for (k = 0; k < nranks; k++)
		munmap(bars[k].p, bars[k].size);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: hl-bench [-d DEV] [-s SIZES] [-n ITERS] [-g RANKS] [-o COLLS] SERIES\n"
		"  SERIES: dmabuf | mem | cs | copy | reduce | coll-cpu\n"
		"  -d DEV    device (module id), default 0\n"
		"  -p PEER   copy, reduce: the CPU peer, the n-th ivshmem function (unbound)\n"
		"  -s SIZES  comma-separated sizes (4K, 2M, 1G, ...)\n"
		"  -n ITERS  samples per point (best reported; default 3; cs: 200, median)\n"
		"  -g RANKS  coll-cpu: number of ranks (devices 0..RANKS-1), default 2\n"
		"  -o COLLS  coll-cpu: allreduce,allgather,reducescatter,broadcast,reduce,\n"
		"            alltoall,sendrecv or all (default allreduce,allgather)\n"
		"One JSON object per measurement on stdout (see tools/hl-bench/README.md).\n");
}

int main(int argc, char **argv)
{
	unsigned int colls = 1u << CPU_ALLREDUCE | 1u << CPU_ALLGATHER;
	int c, ranks = 2, peer = -1;
	const char *cmd;

	while ((c = getopt(argc, argv, "d:s:n:g:p:o:h")) != -1) {
		switch (c) {
		case 'd':
			g_dev = atoi(optarg);
			break;
		case 's':
			if (parse_sizes(optarg)) {
				usage(stderr);
				return 2;
			}
			break;
		case 'n':
			g_iters = atoi(optarg);
			break;
		case 'g':
			ranks = atoi(optarg);
			break;
		case 'p':
			peer = atoi(optarg);
			break;
		case 'o':
			if (parse_colls(optarg, &colls)) {
				usage(stderr);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || g_iters < 0 ||
	    ((!strcmp(argv[optind], "copy") ||
	      !strcmp(argv[optind], "reduce")) && peer < 0)) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind];
	if (!strcmp(cmd, "dmabuf"))
		return cmd_dmabuf();
	if (!strcmp(cmd, "mem"))
		return cmd_mem();
	if (!strcmp(cmd, "cs"))
		return cmd_cs();
	if (!strcmp(cmd, "copy"))
		return cmd_copy(peer);
	if (!strcmp(cmd, "reduce"))
		return cmd_reduce(peer);
	if (!strcmp(cmd, "coll-cpu"))
		return cmd_coll_cpu(ranks, colls);
	usage(stderr);
	return 2;
}

// SPDX-License-Identifier: MIT
/*
 * hl-bench: what the series share (hl-bench.h)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hlthunk.h"
#include "hl-bench.h"
#include "../common/hltools.h"

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "hl-bench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

double now_us(void)
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

double best(const double *v, int n)
{
	double b = v[0];
	int i;

	for (i = 1; i < n; i++)
		if (v[i] < b)
			b = v[i];
	return b;
}

double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int parse_sizes(const char *list)
{
	int n = hltools_parse_sizes(list, g_sizes, MAX_SIZES);

	g_nsizes = n > 0 ? n : 0;
	return n > 0 ? 0 : -1;
}

int iters(void)
{
	if (!g_iters)
		return 3;
	return g_iters > 16 ? 16 : g_iters;
}

void default_sizes(const char *list)
{
	if (!g_nsizes && parse_sizes(list))
		die("bad default sizes");
}

int open_dev(int dev)
{
	int fd = hlthunk_open_by_module_id(dev);

	if (fd < 0)
		die("open device %d: %s", dev, strerror(-fd));
	return fd;
}

void write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		die("write %s to %s: %s", text, path, strerror(errno));
	close(fd);
}

double sample_op(const struct timed_op *op)
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

double time_op(const struct timed_op *op)
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

void wait_scrub_idle(int fd)
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

/* ---- device buffers and command submissions ---- */

void host_buf_map(int fd, struct host_buf *b, uint64_t size)
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

void host_buf_unmap(int fd, struct host_buf *b)
{
	hlthunk_memory_unmap(fd, b->va);
	munmap(b->ptr, b->size);
}

uint64_t dram_map(int fd, uint64_t size, uint64_t *handle)
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

void dram_unmap(int fd, uint64_t va, uint64_t handle)
{
	hlthunk_memory_unmap(fd, va);
	hlthunk_device_memory_free(fd, handle);
}

uint64_t submit(int fd, uint32_t queue, uint64_t cb_va, uint32_t size)
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

void wait_cs(int fd, uint64_t seq)
{
	uint32_t status = 0;
	int rc = hlthunk_wait_for_cs(fd, seq, CS_WAIT_US, &status);

	if (rc || status != HL_WAIT_CS_STATUS_COMPLETED)
		die("WAIT_CS %" PRIu64 ": rc %d status %u", seq, rc, status);
}

void dma_once(void *p)
{
	struct dma_arg *a = p;

	wait_cs(a->fd, submit(a->fd, 0, a->cb_va, a->cb_size));
}

/* ---- the CPU over the BARs (driver unbound) ---- */

int find_devices(char bdf[][16], int max)
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

void bar_map(const char *bdf, struct bar *bar)
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

/* SPDX-License-Identifier: MIT */
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
 * Files: main.c (options, the series by name), util.c (what the series
 * share: timing, device buffers, command submissions, the BARs), one
 * cmd_<series>.c per series, adder.c (the REDUCE engine's adder, built as
 * the kernel builds it).
 *
 * Every measurement is one JSON object on one line of stdout
 * ("series", "impl", "op", the parameters, the times in microseconds);
 * tools/hl-bench/report turns a run's lines into tables, plots and ratios.
 * Diagnostics go to stderr. Exit status: 0, 1 on a failed operation, 2 on
 * bad usage. It asserts nothing about the numbers.
 */
#ifndef HL_BENCH_H
#define HL_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#define MiB		(1ull << 20)
#define GiB		(1ull << 30)
#define HOST_PAGE	4096ull
#define MAX_SIZES	32
#define MAX_DEVS	16
#define IMPORTER_DEV	"/dev/hl_importer"
#define UDMABUF_DEV	"/dev/udmabuf"
#define UDMABUF_LIMIT	"/sys/module/udmabuf/parameters/size_limit_mb"
#define CS_WAIT_US	(600ull * 1000 * 1000)

/* Print "hl-bench: " and the message to stderr, exit 1 */
void die(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

/* CLOCK_MONOTONIC in microseconds */
double now_us(void);

/* The smallest and the median of @n values (median() sorts them) */
double best(const double *v, int n);
double median(double *v, int n);

/* -s: a list of sizes into g_sizes; 0 or -1 */
int parse_sizes(const char *list);

/* Repetitions of a timed point: -n, at most 16, default 3 */
int iters(void);

/* The sizes of a series unless -s gave them */
void default_sizes(const char *list);

/* Open device (module id) @dev; write @text to the file @path; or die */
int open_dev(int dev);
void write_text(const char *path, const char *text);

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
double sample_op(const struct timed_op *op);

/*
 * Time of one operation: the best of iters() samples after a warm-up. The
 * machine's other load only ever slows a sample down, so the best one is
 * the closest to what the operation costs; each peer gets the same.
 */
double time_op(const struct timed_op *op);

/*
 * Released DRAM is zeroed in the background (dram_scrub_pending in the
 * device's debugfs info): wait until it is done, so that the scrubber's
 * work is not billed to the peer measured next.
 */
void wait_scrub_idle(int fd);

/* ---- device buffers and command submissions ---- */

struct host_buf {
	uint8_t *ptr;
	uint64_t va;
	uint64_t size;
};

void host_buf_map(int fd, struct host_buf *b, uint64_t size);

void host_buf_unmap(int fd, struct host_buf *b);

uint64_t dram_map(int fd, uint64_t size, uint64_t *handle);

void dram_unmap(int fd, uint64_t va, uint64_t handle);

uint64_t submit(int fd, uint32_t queue, uint64_t cb_va, uint32_t size);

void wait_cs(int fd, uint64_t seq);

struct dma_arg {
	int fd;
	uint64_t cb_va;
	uint32_t cb_size;
};

void dma_once(void *p);

/* ---- the CPU over the BARs (driver unbound) ---- */

struct bar {
	uint8_t *p;
	uint64_t size;
};

/* An offset that keeps buffers off a power-of-2 distance: @i odd pages */
#define SKEW(i)		((uint64_t)(2 * (i) + 1) * 4096 * 7)

/* The ivshmem functions (1af4:1110), in PCI order: device i of the VM */
int find_devices(char bdf[][16], int max);

void bar_map(const char *bdf, struct bar *bar);

/* ---- the options (main.c) ---- */

extern int g_dev;		/* -d: device (module id) */
extern uint64_t g_sizes[MAX_SIZES];	/* -s: sizes */
extern int g_nsizes;
extern int g_iters;		/* -n: repetitions (0: default) */

/* ---- the series: one file each ---- */

/* coll-cpu's collectives (-o), hl-coll-bench's names */
enum cpu_coll {
	CPU_ALLREDUCE, CPU_ALLGATHER, CPU_REDUCE_SCATTER, CPU_BROADCAST,
	CPU_REDUCE, CPU_ALLTOALL, CPU_SENDRECV, CPU_NUM
};

/* -o: a list of collectives, or "all", into a mask of 1 << enum cpu_coll */
int parse_colls(const char *list, unsigned int *mask);

int cmd_dmabuf(void);
int cmd_mem(void);
int cmd_cs(void);
int cmd_copy(int peer);
int cmd_reduce(int peer);
int cmd_coll_cpu(int nranks, unsigned int colls);

#endif /* HL_BENCH_H */

// SPDX-License-Identifier: MIT
/*
 * hl-bench cs: submit-to-fence latency, CS/s, WAIT_CS latency
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hlthunk.h"
#include "hl-bench.h"

/* ---- command submission ---- */

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

int cmd_cs(void)
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

// SPDX-License-Identifier: MIT
/*
 * hl-bench copy: LIN_DMA against the CPU's memcpy over the HBM BAR of an
 * identical, unbound accelerator
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

/* ---- engines: LIN_DMA ---- */

static void emit_copy(const char *impl, const char *dir, uint64_t size,
		      double us)
{
	printf("{\"series\":\"copy\",\"impl\":\"%s\",\"dir\":\"%s\",\"size\":%" PRIu64
	       ",\"time_us\":%.1f,\"gbps\":%.4f}\n",
	       impl, dir, size, us, size / us / 1e3);
	fflush(stdout);
}

/* ---- the CPU over the BARs (driver unbound) ---- */

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
int cmd_copy(int peer)
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

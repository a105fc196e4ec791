// SPDX-License-Identifier: MIT
/*
 * hl-bench reduce: the REDUCE engine against its own adder run by the CPU
 * over the HBM BAR of an identical, unbound accelerator
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
#include "adder.h"
#include "hlcoll_data.h"

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
int cmd_reduce(int peer)
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

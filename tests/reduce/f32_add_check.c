// SPDX-License-Identifier: MIT
/*
 * f32_add_check: the REDUCE engine's binary32 addition (the driver's
 * drivers/misc/habanalabs/emu/emu_f32.h, compiled here as is) against the
 * host FPU, on the host, without a device.
 *
 * On x86-64 the host sum is addss with the first operand as the
 * destination, so every result is compared bit for bit, NaNs included. On
 * another architecture the NaN payloads may differ, and only "both are a
 * NaN" is required of a NaN result.
 *
 * On x86-64 the engine's SSE fast path (emu_f32_sse.h, compiled here as
 * is) is compared too, bit for bit with hl_f32_add(), its oracle: every
 * pair is also summed in batches of 1031 (blocks of 32 with AVX2 where the
 * host has it, then of 16 with SSE, and a tail of 7) at an odd address, and
 * the operands of every 8th batch are added to themselves in place.
 *
 * Operands: every pair of a table of special values (zeros, subnormals,
 * the normal range's edges, infinities, quiet and signalling NaNs, and each
 * one's neighbours), then random pairs of five kinds: any 32 bits; close
 * exponents of either sign (cancellation and ties); subnormals and the
 * smallest normals; exponents near overflow; exactly half an ULP and odd
 * multiples of it (ties to even).
 *
 *   f32_add_check [--count N] [--seed S] [--exhaustive]
 *
 * --count: random pairs of each kind (default 20000000); --exhaustive also
 * adds every one of the 2^32 patterns to 1.0f and to -0x1.fffffep-126f
 * (a minute or so). Exit status 1 on any mismatch (the first 20 printed).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint32_t u32;
#include "../../drivers/misc/habanalabs/emu/emu_f32.h"

/* f32_sse_wrap.c: hl_f32_add_sse(), built without XMM code of its own */
void f32_add_sse(void *dst, const void *src, unsigned long n, int avx);

static uint64_t prng_state;
static uint64_t checked, mismatches, simd_checked;

static void report(const char *what, u32 a, u32 b, u32 got, u32 want)
{
	if (mismatches++ < 20)
		fprintf(stderr,
			"mismatch: 0x%08" PRIx32 " + 0x%08" PRIx32
			": %s 0x%08" PRIx32 ", %s 0x%08" PRIx32 "\n",
			a, b, what, got,
			strcmp(what, "engine") ? "integer reference" : "host",
			want);
}

#if defined(__x86_64__)
#define BATCH	1031	/* 32 x 32 + 7 / 64 x 16 + 7: every path of hl_f32_add_sse() */

/* The operands, one float off 16-byte alignment (unaligned movups) */
static u32 batch_a[BATCH + 1] __attribute__((aligned(16)));
static u32 batch_b[BATCH + 1] __attribute__((aligned(16)));
static u32 batch_want[BATCH];
static u32 batch_self[BATCH + 1] __attribute__((aligned(16)));
static size_t batch_n;
static uint64_t batches;

static void simd_flush(void)
{
	u32 *a = batch_a + 1, *b = batch_b + 1, *x = batch_self + 1;
	u32 orig[BATCH];
	size_t i, n = batch_n;
	int avx, self = !(batches++ % 8);

	/* SSE only, then AVX first where the host has it */
	memcpy(orig, a, n * sizeof(u32));
	for (avx = 0; avx <= !!__builtin_cpu_supports("avx2"); avx++) {
		memcpy(a, orig, n * sizeof(u32));
		f32_add_sse(a, b, n, avx);
		for (i = 0; i < n; i++)
			if (a[i] != batch_want[i])
				report(avx ? "avx2" : "sse", orig[i], b[i], a[i],
				       batch_want[i]);
		simd_checked += n;
		/* In place, src == dst (x + x), on every 8th batch */
		if (!self)
			continue;
		memcpy(x, orig, n * sizeof(u32));
		f32_add_sse(x, x, n, avx);
		for (i = 0; i < n; i++)
			if (x[i] != hl_f32_add(orig[i], orig[i]))
				report(avx ? "avx2 in place" : "sse in place",
				       orig[i], orig[i], x[i],
				       hl_f32_add(orig[i], orig[i]));
		simd_checked += n;
	}
	batch_n = 0;
}

/* @want: hl_f32_add(@a, @b), which the SIMD paths must give too */
static void simd_add(u32 a, u32 b, u32 want)
{
	batch_a[1 + batch_n] = a;
	batch_b[1 + batch_n] = b;
	batch_want[batch_n] = want;
	if (++batch_n == BATCH)
		simd_flush();
}
#else
static void simd_flush(void)
{
}

static void simd_add(u32 a, u32 b, u32 want)
{
	(void)a;
	(void)b;
	(void)want;
}
#endif

static uint64_t prng(void)
{
	uint64_t x = prng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	prng_state = x;
	return x;
}

static u32 host_add(u32 a, u32 b)
{
	float fa, fb;
	u32 r;

	memcpy(&fa, &a, sizeof(fa));
	memcpy(&fb, &b, sizeof(fb));
#if defined(__x86_64__)
	/* fa = fa + fb: fa is the first source operand of addss */
	__asm__("addss %1, %0" : "+x"(fa) : "x"(fb));
#else
	fa = *(volatile float *)&fa + *(volatile float *)&fb;
#endif
	memcpy(&r, &fa, sizeof(r));
	return r;
}

static int is_nan(u32 x)
{
	return (x & 0x7fffffffu) > 0x7f800000u;
}

static void check(u32 a, u32 b)
{
	u32 want = host_add(a, b);
	u32 got = hl_f32_add(a, b);

	checked++;
	simd_add(a, b, got);
	if (got == want)
		return;
#if !defined(__x86_64__)
	if (is_nan(got) && is_nan(want))
		return;
#else
	(void)is_nan;
#endif
	report("engine", a, b, got, want);
}

static const u32 base_specials[] = {
	0x00000000, 0x00000001, 0x00000002, 0x00000003, 0x003fffff,
	0x00400000, 0x007ffffe, 0x007fffff, 0x00800000, 0x00800001,
	0x00ffffff, 0x01000000, 0x0c000000, 0x33800000, 0x33800001,
	0x34000000, 0x3f000000, 0x3f7fffff, 0x3f800000, 0x3f800001,
	0x3fffffff, 0x40000000, 0x4b000000, 0x4b7fffff, 0x4b800000,
	0x7effffff, 0x7f000000, 0x7f7ffffe, 0x7f7fffff, 0x7f800000,
	0x7f800001, 0x7fbfffff, 0x7fc00000, 0x7fc00001, 0x7fffffff,
};

static u32 specials[4 * sizeof(base_specials) / sizeof(base_specials[0]) * 3];
static size_t num_specials;

static void add_special(u32 x)
{
	size_t i;

	for (i = 0; i < num_specials; i++)
		if (specials[i] == x)
			return;
	specials[num_specials++] = x;
}

static void check_specials(void)
{
	size_t i, j;

	for (i = 0; i < sizeof(base_specials) / sizeof(base_specials[0]); i++) {
		u32 x = base_specials[i];

		add_special(x);
		add_special(x | 0x80000000u);
		add_special(x + 1);
		add_special((x + 1) | 0x80000000u);
		if (x) {
			add_special(x - 1);
			add_special((x - 1) | 0x80000000u);
		}
	}
	for (i = 0; i < num_specials; i++)
		for (j = 0; j < num_specials; j++)
			check(specials[i], specials[j]);
	printf("specials: %zu x %zu pairs\n", num_specials, num_specials);
}

static u32 rnd32(void)
{
	return (u32)(prng() >> 16);
}

/* A float with biased exponent @e, random sign and fraction */
static u32 with_exp(u32 e)
{
	return (rnd32() & 0x807fffffu) | (e << 23);
}

static void check_random(uint64_t count)
{
	uint64_t i;
	u32 a, b, e;

	for (i = 0; i < count; i++)
		check(rnd32(), rnd32());

	for (i = 0; i < count; i++) {
		e = 1 + rnd32() % 254;
		a = with_exp(e);
		e = e + (rnd32() % 61) - 30;
		if (e < 1 || e > 254)
			e = 1 + rnd32() % 254;
		b = with_exp(e);
		check(a, b);
		check(a, b ^ 0x80000000u);
	}

	for (i = 0; i < count; i++)
		check(with_exp(rnd32() % 3), with_exp(rnd32() % 3));

	for (i = 0; i < count; i++)
		check(with_exp(250 + rnd32() % 5), with_exp(250 + rnd32() % 5));

	/* b = odd multiple of half an ULP of a: ties and their neighbours */
	for (i = 0; i < count; i++) {
		u32 k = rnd32() % 26;

		e = 1 + k + rnd32() % (254 - k);
		a = with_exp(e);
		b = (e - k) << 23;
		if (k == 0)
			b = with_exp(e);
		b |= (rnd32() & 0x80000000u) | (rnd32() % 4 ? 0 : rnd32() & 3);
		check(a, b);
		check(b, a);
	}
	printf("random: %" PRIu64 " pairs of each of 5 kinds\n", count);
}

static void check_exhaustive(void)
{
	const u32 a[] = { 0x3f800000u, 0x80ffffffu };
	uint64_t x;
	size_t i;

	for (i = 0; i < sizeof(a) / sizeof(a[0]); i++)
		for (x = 0; x <= 0xffffffffull; x++)
			check(a[i], (u32)x);
	printf("exhaustive: 2 x 2^32 pairs\n");
}

int main(int argc, char **argv)
{
	uint64_t count = 20000000, seed = 0x5eedf32add000001ull;
	int exhaustive = 0, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--count") && i + 1 < argc) {
			count = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			seed = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--exhaustive")) {
			exhaustive = 1;
		} else {
			fprintf(stderr,
				"usage: %s [--count N] [--seed S] [--exhaustive]\n",
				argv[0]);
			return 2;
		}
	}
	prng_state = seed ? seed : 1;
	printf("f32_add_check: seed 0x%" PRIx64 ", %s comparison\n", seed,
#if defined(__x86_64__)
	       "bit-exact (x86-64 addss)"
#else
	       "bit-exact except NaN payloads"
#endif
	       );

	check_specials();
	check_random(count);
	if (exhaustive)
		check_exhaustive();

	simd_flush();
	printf("f32_add_check: %" PRIu64 " sums, %" PRIu64
	       " by the SIMD paths, %" PRIu64 " mismatches\n",
	       checked, simd_checked, mismatches);
	return mismatches ? 1 : 0;
}

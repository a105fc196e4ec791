// SPDX-License-Identifier: MIT
/*
 * narrow_check: the REDUCE engine's 16-bit float arithmetic (the driver's
 * drivers/misc/habanalabs/emu/emu_reduce_ops.h, compiled here as is)
 * against the host, on the host, without a device:
 *   - binary16 -> binary32: every one of the 65536 patterns, against the
 *     compiler's _Float16 conversion (NaNs: both a NaN);
 *   - binary32 -> binary16 and -> bfloat16, round to nearest even: random
 *     and structured binary32 values (near each 16-bit value, ties, the
 *     subnormal and overflow edges), against _Float16 and against the
 *     nearer of the two bfloat16 neighbours computed in double;
 *   - 16-bit sums: random pairs of each type, hl_f16_add() against the
 *     host's float sum converted by _Float16, hl_bf16_add() against the
 *     host's float sum rounded as above;
 *   - min and max of each float type on random pairs against comparisons
 *     of the host's floats (-0 < +0).
 *
 *   narrow_check [--count N]     N random values per kind (default 5000000)
 *
 * Exit status 1 on any mismatch (the first 20 printed).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint32_t u32;
typedef uint16_t u16;
#include "../../drivers/misc/habanalabs/emu/emu_f32.h"
#include "../../drivers/misc/habanalabs/emu/emu_reduce_ops.h"

static unsigned long bad;
static uint64_t state = 0x6e6172726f77ull;

static uint64_t next(void)
{
	uint64_t x = state += 0x9e3779b97f4a7c15ull;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static float u2f(u32 u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static u32 f2u(float f)
{
	u32 u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static bool nan32(u32 x)
{
	return (x & 0x7fffffffu) > 0x7f800000u;
}

static void mismatch(const char *what, u32 a, u32 b, u32 got, u32 want)
{
	if (bad++ < 20)
		fprintf(stderr, "narrow_check: %s(0x%x, 0x%x) = 0x%x, host 0x%x\n",
			what, a, b, got, want);
}

static u16 host_f16(float f)
{
	_Float16 h = (_Float16)f;
	u16 u;

	memcpy(&u, &h, sizeof(u));
	return u;
}

static float host_from_f16(u16 u)
{
	_Float16 h;

	memcpy(&h, &u, sizeof(h));
	return (float)h;
}

/* The nearer bfloat16 neighbour of a finite @f, ties to even */
static u16 host_bf16(float f)
{
	u32 u = f2u(f), lo = u & 0xffff0000u, hi = lo + 0x10000u;
	double dl, dh;

	if (u == lo || (u & 0x7fffffffu) == 0x7f800000u)
		return (u16)(u >> 16);
	dl = (double)f - (double)u2f(lo);
	dh = (hi & 0x7f800000u) == 0x7f800000u ?
	     (u & 0x80000000u ? -0x1p128 : 0x1p128) - (double)f :
	     (double)u2f(hi) - (double)f;
	dl = dl < 0 ? -dl : dl;
	dh = dh < 0 ? -dh : dh;
	if (dl < dh || (dl == dh && !((lo >> 16) & 1)))
		return (u16)(lo >> 16);
	return (u16)(hi >> 16);
}

static void check_narrow(u32 f)
{
	if (nan32(f))
		return;
	if (hl_f32_to_f16(f) != host_f16(u2f(f)))
		mismatch("f32_to_f16", f, 0, hl_f32_to_f16(f),
			 host_f16(u2f(f)));
	if (hl_f32_to_bf16(f) != host_bf16(u2f(f)))
		mismatch("f32_to_bf16", f, 0, hl_f32_to_bf16(f),
			 host_bf16(u2f(f)));
}

/* min/max of two non-NaN floats as the host compares them */
static u32 host_minmax(u32 a, u32 b, float fa, float fb, bool max)
{
	bool b_less = fb < fa || (fa == 0 && fb == 0 && (b >> 15 & 1) &&
				  !(a >> 15 & 1));
	bool a_less = fa < fb || (fa == 0 && fb == 0 && (a >> 15 & 1) &&
				  !(b >> 15 & 1));

	return max ? (a_less ? b : a) : (b_less ? b : a);
}

int main(int argc, char **argv)
{
	unsigned long count = 5000000, i;
	u32 h, f, a, b, got, want;
	float fa, fb;
	int k;

	if (argc == 3 && !strcmp(argv[1], "--count"))
		count = strtoul(argv[2], NULL, 0);

	/* f16 -> f32, every pattern */
	for (h = 0; h < 0x10000; h++) {
		float x = host_from_f16((u16)h);

		got = hl_f16_to_f32((u16)h);
		if (x != x ? !nan32(got) : got != f2u(x))
			mismatch("f16_to_f32", h, 0, got, f2u(x));
	}

	/* f32 -> 16 bits: around every 16-bit value, then random */
	for (h = 0; h < 0x10000; h++) {
		for (k = -3; k <= 3; k++) {
			check_narrow((h << 16) + 0x8000u + (u32)k);
			check_narrow(f2u(host_from_f16((u16)h)) + 0x1000u +
				     (u32)k);
			check_narrow(f2u(host_from_f16((u16)h)) + (u32)k);
		}
	}
	for (i = 0; i < count; i++) {
		f = (u32)next();
		if (i & 1)	/* the binary16 range and just outside */
			f = (f & 0x807fffffu) | ((100 + (u32)(next() % 45)) << 23);
		check_narrow(f);
	}

	/* 16-bit sums, min, max */
	for (i = 0; i < count; i++) {
		a = (u32)next() & 0xffff;
		b = (u32)next() & 0xffff;
		if (i & 1)	/* close exponents: cancellation, ties */
			b = (b & 0x83ff) | (a & 0x7c00);

		fa = host_from_f16((u16)a);
		fb = host_from_f16((u16)b);
		if (fa == fa && fb == fb) {
			got = hl_f16_add((u16)a, (u16)b);
			want = host_f16(fa + fb);
			if (got != want && !((want & 0x7fff) > 0x7c00 &&
					     (got & 0x7fff) > 0x7c00))
				mismatch("f16_add", a, b, got, want);
			got = hl_float_minmax(a, b, 0x8000, 0x7c00, 0x200, true);
			if (got != host_minmax(a, b, fa, fb, true))
				mismatch("f16_max", a, b, got,
					 host_minmax(a, b, fa, fb, true));
			got = hl_float_minmax(a, b, 0x8000, 0x7c00, 0x200, false);
			if (got != host_minmax(a, b, fa, fb, false))
				mismatch("f16_min", a, b, got,
					 host_minmax(a, b, fa, fb, false));
		}

		fa = u2f(a << 16);
		fb = u2f(b << 16);
		if (fa == fa && fb == fb) {
			got = hl_bf16_add((u16)a, (u16)b);
			want = nan32(f2u(fa + fb)) ? 0xffc0 : host_bf16(fa + fb);
			if (got != want)
				mismatch("bf16_add", a, b, got, want);
			got = hl_float_minmax(a, b, 0x8000, 0x7f80, 0x40, true);
			if (got != host_minmax(a, b, fa, fb, true))
				mismatch("bf16_max", a, b, got,
					 host_minmax(a, b, fa, fb, true));
		}
	}

	printf("narrow_check: %lu mismatches (%lu random values per kind)\n",
	       bad, count);
	return bad ? 1 : 0;
}

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
 *     of the host's floats (-0 < +0);
 *   - products (HL_REDUCE_OP_PROD): binary32 against the host's float
 *     product (random pairs, the subnormal and overflow edges, specials),
 *     bfloat16 and binary16 against the exact product (in double) rounded
 *     once to the type;
 *   - quotients by an integer (HL_REDUCE_OP_DIV_BY(n), an average's last
 *     step): binary32 against the host's a / (float)n, every bfloat16 and
 *     binary16 value divided by every n in 1 .. 64 and by random n up to
 *     0xffff against the quotient (in double) rounded once to the type,
 *     int32 against C's truncating division; and negative controls: a
 *     quotient taken as a product by the rounded reciprocal 1/n, and a
 *     16-bit quotient truncated instead of rounded, differ from the
 *     engine's in many cases (the check would see them), and a binary32
 *     quotient rounded to nearest then to float16 double-rounds
 *     0x682c / 56697 (the engine rounds to odd first).
 *
 *   narrow_check [--count N]     N random values per kind (default 5000000)
 *
 * Exit status 1 on any mismatch (the first 20 printed).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint32_t u32;
typedef uint16_t u16;
typedef uint64_t u64;
typedef int32_t s32;
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

/*
 * @x rounded once to a binary format of @p significant bits whose least
 * normal is 2^@emin and largest finite @max (to nearest, ties to even,
 * subnormals kept, beyond @max and its half ulp: infinity)
 */
static double host_round_as(double x, int p, int emin, double max, int emax,
			    bool truncate)
{
	int e, u;
	double r;

	if (x == 0 || x != x || isinf(x))
		return x;
	frexp(x, &e);			/* |x| in [2^(e-1), 2^e) */
	u = e - p;			/* exponent of the last bit kept */
	if (u < emin - p + 1)
		u = emin - p + 1;
	/* rint: ties to even (a control truncates instead) */
	r = ldexp(truncate ? trunc(ldexp(x, -u)) : rint(ldexp(x, -u)), u);
	if (fabs(r) > max || fabs(r) >= ldexp(1, emax + 1))
		return x < 0 ? -INFINITY : INFINITY;
	return r;
}

static double host_round(double x, int p, int emin, double max, int emax)
{
	return host_round_as(x, p, emin, max, emax, false);
}

/* Exact double -> the 16-bit patterns (the value is representable) */
static u16 host_d2bf16(double x)
{
	return (u16)(f2u((float)host_round(x, 8, -126, 0x1.fep127, 127)) >> 16);
}

static u16 host_d2f16(double x)
{
	return host_f16((float)host_round(x, 11, -14, 65504.0, 15));
}

static double bf16d(u32 h)
{
	return (double)u2f(h << 16);
}

/* A 16-bit NaN pattern of either type: compared as "a NaN" */
static bool nan16(u32 h, bool bf)
{
	return bf ? (h & 0x7fff) > 0x7f80 : (h & 0x7fff) > 0x7c00;
}

static unsigned long ctl_recip, ctl_trunc, ctl_double, nquot;

static void check_quot16(u32 h, u32 n, bool bf)
{
	double x = bf ? bf16d(h) : (double)host_from_f16((u16)h);
	u32 got, want, recip;

	if (x != x)
		return;
	got = bf ? hl_bf16_div_u((u16)h, n) : hl_f16_div_u((u16)h, n);
	want = bf ? host_d2bf16(x / n) : host_d2f16(x / n);
	if (got != want)
		mismatch(bf ? "bf16_div" : "f16_div", h, n, got, want);
	/* Controls: multiplied by 1/n rounded to the type; truncated */
	recip = bf ? host_d2bf16(x * bf16d(host_d2bf16(1.0 / n))) :
		     host_d2f16(x * host_from_f16(host_d2f16(1.0 / n)));
	ctl_recip += recip != got;
	ctl_double += (bf ? hl_f32_to_bf16(hl_f32_div_u(hl_bf16_to_f32((u16)h), n)) :
		       hl_f32_to_f16(hl_f32_div_u(hl_f16_to_f32((u16)h), n))) != got;
	ctl_trunc += (bf ? host_d2bf16(host_round_as(x / n, 8, -126, 0x1.fep127,
						     127, true)) :
		       host_d2f16(host_round_as(x / n, 11, -14, 65504.0, 15,
						true))) != got;
	nquot++;
}

/* a * b as mulss computes it with a as the first operand */
static u32 host_mul(u32 a, u32 b)
{
	float fa = u2f(a), fb = u2f(b);

#if defined(__x86_64__)
	__asm__("mulss %1, %0" : "+x"(fa) : "x"(fb));
#else
	fa = *(volatile float *)&fa * *(volatile float *)&fb;
#endif
	return f2u(fa);
}

static void check_prod32(u32 a, u32 b)
{
	u32 got = hl_f32_mul(a, b), want = host_mul(a, b);

	/* x86's NaN rule (a's first) is also the engine's */
	if (got != want)
		mismatch("f32_mul", a, b, got, want);
}

static void check_quot32(u32 a, u32 n)
{
	u32 got = hl_f32_div_u(a, n), want = f2u(u2f(a) / (float)n);

	if (got != want)
		mismatch("f32_div", a, n, got, want);
}

static void check_prod16(u32 a, u32 b)
{
	double fa = host_from_f16((u16)a), fb = host_from_f16((u16)b);
	u32 got, want;

	if (fa == fa && fb == fb) {
		got = hl_f16_mul((u16)a, (u16)b);
		want = host_d2f16(fa * fb);	/* exact in double */
		if (got != want && !(nan16(got, false) && fa * fb != fa * fb))
			mismatch("f16_mul", a, b, got, want);
	}
	fa = bf16d(a);
	fb = bf16d(b);
	if (fa == fa && fb == fb) {
		got = hl_bf16_mul((u16)a, (u16)b);
		want = fa * fb != fa * fb ? 0xffc0 : host_d2bf16(fa * fb);
		if (got != want)
			mismatch("bf16_mul", a, b, got, want);
	}
}

static const u32 f32_specials[] = {
	0, 0x80000000u, 1, 0x80000001u, 0x007fffffu, 0x00800000u,
	0x00800001u, 0x3f800000u, 0xbf800000u, 0x3f800001u, 0x3fffffffu,
	0x40000000u, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u,
	0x7fc00000u, 0xffc00001u, 0x7f800001u, 0xff812345u, 0x1f800000u,
	0x20000000u, 0x1fffffffu, 0x5f800000u, 0x60000000u, 0x34000000u,
};

static void check_prod_quot(unsigned long count)
{
	unsigned long i;
	u32 a, b, h, n, x;
	size_t j, k;
	s32 sx;

	for (j = 0; j < sizeof(f32_specials) / sizeof(f32_specials[0]); j++) {
		for (k = 0; k < sizeof(f32_specials) / sizeof(f32_specials[0]); k++)
			check_prod32(f32_specials[j], f32_specials[k]);
		for (n = 1; n <= 70; n++)
			check_quot32(f32_specials[j], n);
		check_quot32(f32_specials[j], 0xffff);
	}
	for (i = 0; i < count; i++) {
		a = (u32)next();
		b = (u32)next();
		switch (i % 4) {
		case 1:	/* products near the subnormal and overflow edges */
			b = (b & 0x807fffffu) | ((u32)(next() % 60) << 23);
			a = (a & 0x807fffffu) | ((u32)(next() % 60 + 40) << 23);
			break;
		case 2:
			b = (b & 0x807fffffu) | ((u32)(next() % 60 + 190) << 23);
			a = (a & 0x807fffffu) | ((u32)(next() % 60 + 100) << 23);
			break;
		case 3:	/* a few significant bits: ties */
			a &= 0xfff80000u;
			b &= 0xfffff000u;
			break;
		}
		check_prod32(a, b);
		check_prod16(a & 0xffff, b & 0xffff);
		check_prod16(a >> 16, b >> 16);
		n = (u32)next() % (i & 1 ? 64 : 0xffff) + 1;
		check_quot32(a, n);
		check_quot32(a & 0x807fffffu, n);	/* subnormal dividends */
		x = (u32)next();
		sx = (s32)x;
		if (hl_i32_div_u(x, n) != (u32)(s32)(sx / (int64_t)n))
			mismatch("i32_div", x, n, hl_i32_div_u(x, n),
				 (u32)(s32)(sx / (int64_t)n));
		if ((s32)hl_i32_div_u(x, 1) != sx)
			mismatch("i32_div", x, 1, hl_i32_div_u(x, 1), x);
	}
	if (hl_i32_div_u(0x80000000u, 1) != 0x80000000u ||
	    hl_i32_div_u(0x80000000u, 3) != (u32)(INT32_MIN / 3) ||
	    hl_i32_div_u((u32)-7, 2) != (u32)-3)
		mismatch("i32_div", 0x80000000u, 1, hl_i32_div_u(0x80000000u, 1),
			 0x80000000u);

	/* Every 16-bit value of both types by every n in 1 .. 64, and random n */
	for (h = 0; h < 0x10000; h++) {
		for (n = 1; n <= 64; n++) {
			check_quot16(h, n, true);
			check_quot16(h, n, false);
		}
		n = (u32)next() % 0xffff + 1;
		check_quot16(h, n, true);
		check_quot16(h, n, false);
	}
	/*
	 * Double rounding: the binary32 quotient rounded to nearest, then to
	 * float16, ties where the exact quotient does not; round-to-odd (the
	 * engine's) gets it right
	 */
	if (hl_f16_div_u(0x682c, 56697) != 0x28d3 ||
	    hl_f32_to_f16(hl_f32_div_u(hl_f16_to_f32(0x682c), 56697)) != 0x28d2)
		mismatch("f16_div double rounding", 0x682c, 56697,
			 hl_f16_div_u(0x682c, 56697), 0x28d3);
	printf("narrow_check: negative controls: of %lu 16-bit quotients, %lu differ from a product by the rounded 1/n, %lu from truncation, %lu from a binary32 quotient rounded to nearest first\n",
	       nquot, ctl_recip, ctl_trunc, ctl_double);
	if (ctl_recip < nquot / 100 || ctl_trunc < nquot / 100) {
		printf("narrow_check: the negative controls are too close: the check could not see a wrong order or rounding\n");
		bad++;
	}
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

	check_prod_quot(count);

	printf("narrow_check: %lu mismatches (%lu random values per kind)\n",
	       bad, count);
	return bad ? 1 : 0;
}

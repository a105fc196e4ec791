/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs emu: the REDUCE engine's types other than float32 sum, in
 * integer arithmetic (see emu_f32.h for why integers): bfloat16 and
 * binary16 converted to binary32 (exactly), added with hl_f32_add(), and
 * rounded back to nearest, ties to even (adding in binary32 and rounding
 * once more equals adding in the narrow type directly: 24 >= 2 * 11 + 2
 * bits, the double-rounding bound); min and max of the three float types;
 * int32 sum (wrapping), min and max; the binary32 product and the quotient
 * by a positive integer, correctly rounded (for the 16-bit types: the
 * binary32 result rounded to odd, then to nearest even in the type, which
 * equals one rounding of the exact result: no double-rounding error, even
 * where a quotient by an n that is no 16-bit value would have one).
 *
 * NaN rules (struct hl_pkt_reduce documents them): a sum follows
 * hl_f32_add() (dst's NaN made quiet first, else src's, else the default
 * NaN), narrowed with its payload's top bits; min and max return dst's NaN
 * made quiet when dst is a NaN, else src's made quiet when src is one.
 * -0 is less than +0 for min and max. Subnormals are kept everywhere.
 *
 * A product follows hl_f32_add()'s NaN rule (dst's NaN made quiet first,
 * else src's; inf * 0 the default NaN); a quotient of a NaN is that NaN
 * made quiet, inf / n is inf, 0 / n keeps the sign of 0.
 *
 * Header-only with no kernel dependency: a user-space includer defines u16,
 * u32 and u64 (uint16_t, uint32_t, uint64_t) and includes emu_f32.h first.
 */
#ifndef HL_EMU_REDUCE_OPS_H_
#define HL_EMU_REDUCE_OPS_H_

#define HL_BF16_QUIET	0x0040u
#define HL_F16_SIGN	0x8000u
#define HL_F16_EXP	0x7c00u
#define HL_F16_QUIET	0x0200u

static inline u32 hl_bf16_to_f32(u16 h)
{
	return (u32)h << 16;
}

/* Round to nearest even; a NaN keeps its top bits and is made quiet */
static inline u16 hl_f32_to_bf16(u32 f)
{
	if ((f & ~HL_F32_SIGN) > HL_F32_EXP_MASK)
		return (u16)((f >> 16) | HL_BF16_QUIET);
	return (u16)((f + 0x7fffu + ((f >> 16) & 1)) >> 16);
}

static inline u32 hl_f16_to_f32(u16 h)
{
	u32 sign = (u32)(h & HL_F16_SIGN) << 16;
	u32 exp = (h & HL_F16_EXP) >> 10;
	u32 mant = h & 0x3ffu;

	if (exp == 0x1f)
		return sign | HL_F32_EXP_MASK | (mant << 13);
	if (exp)
		return sign | ((exp - 15 + 127) << 23) | (mant << 13);
	if (!mant)
		return sign;
	/* Subnormal: mant * 2^-24, normalised for binary32 */
	exp = 127 - 15 + 1;
	while (!(mant & 0x400u)) {
		mant <<= 1;
		exp--;
	}
	return sign | (exp << 23) | ((mant & 0x3ffu) << 13);
}

/* @m >> @shift rounded to nearest, ties to even (1 <= @shift <= 31) */
static inline u32 hl_rne_shift(u32 m, u32 shift)
{
	u32 q = m >> shift, rem = m & ((1u << shift) - 1);
	u32 half = 1u << (shift - 1);

	if (rem > half || (rem == half && (q & 1)))
		q++;
	return q;
}

/*
 * Round to nearest even, overflow to infinity, subnormal results kept; a
 * NaN keeps its top bits and is made quiet
 */
static inline u16 hl_f32_to_f16(u32 f)
{
	u32 sign = (f >> 16) & HL_F16_SIGN;
	u32 abs = f & ~HL_F32_SIGN;
	int e = (int)(abs >> 23) - 127 + 15;
	u32 mant = (abs & HL_F32_FRAC_MASK) | HL_F32_HIDDEN;
	u32 q;

	/* (a binary32 subnormal has e far below 0: it rounds to 0) */

	if (abs > HL_F32_EXP_MASK)
		return (u16)(sign | HL_F16_EXP | HL_F16_QUIET |
			     ((abs & HL_F32_FRAC_MASK) >> 13));
	if (abs == HL_F32_EXP_MASK || e >= 31)
		return (u16)(sign | HL_F16_EXP);
	if (e <= 0) {
		/* Subnormal (or 0): the value is mant * 2^(e - 25) */
		if (14 - e > 24)
			return (u16)sign;	/* below half the least */
		return (u16)(sign | hl_rne_shift(mant, (u32)(14 - e)));
	}
	/* A carry out of the significand bumps the exponent, as it should */
	q = ((u32)e << 10) + hl_rne_shift(abs & HL_F32_FRAC_MASK, 13);
	if (q >= HL_F16_EXP)
		return (u16)(sign | HL_F16_EXP);
	return (u16)(sign | q);
}

/* A key that orders floats of @sign_bit as numbers (-0 < +0) */
static inline u32 hl_float_key(u32 x, u32 sign_bit)
{
	return x & sign_bit ? ~x & ((sign_bit << 1) - 1) : x | sign_bit;
}

/*
 * Min (@max false) or max of two floats whose sign bit is @sign_bit and
 * exponent mask @exp_mask, NaN rules as above; @quiet is the quiet bit
 */
static inline u32 hl_float_minmax(u32 d, u32 s, u32 sign_bit, u32 exp_mask,
				  u32 quiet, bool max)
{
	u32 kd, ks;

	if ((d & ~sign_bit & ((sign_bit << 1) - 1)) > exp_mask)
		return d | quiet;
	if ((s & ~sign_bit & ((sign_bit << 1) - 1)) > exp_mask)
		return s | quiet;
	kd = hl_float_key(d, sign_bit);
	ks = hl_float_key(s, sign_bit);
	if (max)
		return ks > kd ? s : d;
	return ks < kd ? s : d;
}

static inline u16 hl_bf16_add(u16 d, u16 s)
{
	return hl_f32_to_bf16(hl_f32_add(hl_bf16_to_f32(d),
					 hl_bf16_to_f32(s)));
}

static inline u16 hl_f16_add(u16 d, u16 s)
{
	return hl_f32_to_f16(hl_f32_add(hl_f16_to_f32(d), hl_f16_to_f32(s)));
}

/*
 * The binary32 nearest to @q * 2^@e (@q > 0), ties to even; @sticky: the
 * exact value is a little above @q * 2^@e (bits below @q were not zero).
 * Subnormal results kept, overflow to infinity. @sign: 0 or HL_F32_SIGN.
 * @odd: round to odd instead (truncate, then set the last bit when anything
 * was dropped): rounding that to nearest even in a format of p <= 22 bits
 * then equals rounding the exact value once (the 16-bit types' products
 * and quotients go this way, free of double rounding).
 */
static inline u32 hl_f32_round_pack(u32 sign, u64 q, int e, bool sticky,
				    bool odd)
{
	int top = 63 - __builtin_clzll(q);
	int u = top + e - 23;	/* exponent of the result's last bit */
	int shift;
	u64 m, rem, half;

	if (u < -149)
		u = -149;	/* subnormal: the last bit is 2^-149 */
	shift = u - e;
	if (shift <= 0) {
		/* Exact (@sticky is 0 whenever this happens) */
		m = q << -shift;
	} else if (shift > 64) {
		m = odd;	/* below half of 2^-149: +-0 (odd: 2^-149) */
	} else if (odd) {
		m = shift == 64 ? 0 : q >> shift;
		m |= sticky || (shift == 64 ? q : q & ((1ull << shift) - 1));
	} else {
		m = shift == 64 ? 0 : q >> shift;
		rem = shift == 64 ? q : q & ((1ull << shift) - 1);
		half = 1ull << (shift - 1);
		if (rem > half || (rem == half && (sticky || (m & 1))))
			m++;
	}
	if (m >> 24) {		/* rounded up to 2^24 */
		m >>= 1;
		u++;
	}
	if (!(m & HL_F32_HIDDEN))
		return sign | (u32)m;	/* subnormal or zero (u == -149) */
	if (u + 150 >= 0xff)
		return sign | HL_F32_EXP_MASK;
	return sign | ((u32)(u + 150) << 23) | ((u32)m & HL_F32_FRAC_MASK);
}

/* A finite non-zero binary32 as @m * 2^@e with 2^23 <= @m < 2^24 */
static inline void hl_f32_unpack(u32 a, u32 *m, int *e)
{
	u32 exp = (a & HL_F32_EXP_MASK) >> 23;

	*m = a & HL_F32_FRAC_MASK;
	if (exp) {
		*m |= HL_F32_HIDDEN;
		*e = (int)exp - 150;
		return;
	}
	*e = -149;
	while (!(*m & HL_F32_HIDDEN)) {
		*m <<= 1;
		(*e)--;
	}
}

/**
 * hl_f32_mul_as - binary32 @a * @b, round to nearest, ties to even.
 * @a: first operand; its NaN wins over @b's.
 * @b: second operand.
 * @odd: round to odd (hl_f32_round_pack()) instead.
 *
 * Return: the bits of the product as x86-64 SSE mulss computes it with the
 * default MXCSR: subnormals kept, overflow to infinity, a NaN operand gives
 * that NaN made quiet (@a's first), inf * 0 gives 0xffc00000.
 */
static inline u32 hl_f32_mul_as(u32 a, u32 b, bool odd)
{
	u32 sign = (a ^ b) & HL_F32_SIGN, ma, mb;
	int ea, eb;

	if ((a & ~HL_F32_SIGN) > HL_F32_EXP_MASK)
		return a | HL_F32_QUIET;
	if ((b & ~HL_F32_SIGN) > HL_F32_EXP_MASK)
		return b | HL_F32_QUIET;
	if ((a & ~HL_F32_SIGN) == HL_F32_EXP_MASK ||
	    (b & ~HL_F32_SIGN) == HL_F32_EXP_MASK) {
		if (!(a & ~HL_F32_SIGN) || !(b & ~HL_F32_SIGN))
			return HL_F32_DEFAULT_NAN;
		return sign | HL_F32_EXP_MASK;
	}
	if (!(a & ~HL_F32_SIGN) || !(b & ~HL_F32_SIGN))
		return sign;
	hl_f32_unpack(a, &ma, &ea);
	hl_f32_unpack(b, &mb, &eb);
	/* The exact product: 47 or 48 bits */
	return hl_f32_round_pack(sign, (u64)ma * mb, ea + eb, false, odd);
}

static inline u32 hl_f32_mul(u32 a, u32 b)
{
	return hl_f32_mul_as(a, b, false);
}

/**
 * hl_f32_div_u_as - binary32 @a / @n for an integer @n >= 1, round to nearest,
 * ties to even: what the host computes as a / (float)n (n is exact in
 * binary32 up to 2^24).
 * @a: the dividend; a NaN gives itself made quiet, an infinity itself, a
 *	zero itself.
 * @n: the divisor, 1 .. 2^24.
 * @odd: round to odd (hl_f32_round_pack()) instead.
 *
 * Return: the bits of the quotient.
 */
static inline u32 hl_f32_div_u_as(u32 a, u32 n, bool odd)
{
	u32 sign = a & HL_F32_SIGN, ma, rem;
	u64 num, q;
	int ea;

	if ((a & ~HL_F32_SIGN) > HL_F32_EXP_MASK)
		return a | HL_F32_QUIET;
	if ((a & ~HL_F32_SIGN) == HL_F32_EXP_MASK || !(a & ~HL_F32_SIGN))
		return a;
	hl_f32_unpack(a, &ma, &ea);
	/* At least 40 bits of quotient, and a sticky bit for the rest */
	num = (u64)ma << 40;
#ifdef __KERNEL__
	q = div_u64_rem(num, n, &rem);	/* no 64-bit '/' on 32-bit kernels */
#else
	q = num / n;
	rem = (u32)(num % n);
#endif
	return hl_f32_round_pack(sign, q, ea - 40, rem != 0, odd);
}

static inline u32 hl_f32_div_u(u32 a, u32 n)
{
	return hl_f32_div_u_as(a, n, false);
}

/* 16-bit products and quotients: binary32 rounded to odd, then to the type */
static inline u16 hl_bf16_mul(u16 d, u16 s)
{
	return hl_f32_to_bf16(hl_f32_mul_as(hl_bf16_to_f32(d),
					    hl_bf16_to_f32(s), true));
}

static inline u16 hl_f16_mul(u16 d, u16 s)
{
	return hl_f32_to_f16(hl_f32_mul_as(hl_f16_to_f32(d),
					   hl_f16_to_f32(s), true));
}

static inline u16 hl_bf16_div_u(u16 d, u32 n)
{
	return hl_f32_to_bf16(hl_f32_div_u_as(hl_bf16_to_f32(d), n, true));
}

static inline u16 hl_f16_div_u(u16 d, u32 n)
{
	return hl_f32_to_f16(hl_f32_div_u_as(hl_f16_to_f32(d), n, true));
}

/*
 * int32 @d / @n for @n >= 1, truncated toward zero (C's int32 division), in
 * unsigned arithmetic: the magnitude of INT32_MIN is 2^31
 */
static inline u32 hl_i32_div_u(u32 d, u32 n)
{
	if (d & HL_F32_SIGN)
		return 0u - ((0u - d) / n);
	return d / n;
}

#endif /* HL_EMU_REDUCE_OPS_H_ */

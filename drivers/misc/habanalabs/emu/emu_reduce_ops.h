/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs emu: the REDUCE engine's types other than float32 sum, in
 * integer arithmetic (see emu_f32.h for why integers): bfloat16 and
 * binary16 converted to binary32 (exactly), added with hl_f32_add(), and
 * rounded back to nearest, ties to even (adding in binary32 and rounding
 * once more equals adding in the narrow type directly: 24 >= 2 * 11 + 2
 * bits, the double-rounding bound); min and max of the three float types;
 * int32 sum (wrapping), min and max.
 *
 * NaN rules (struct hl_pkt_reduce documents them): a sum follows
 * hl_f32_add() (dst's NaN made quiet first, else src's, else the default
 * NaN), narrowed with its payload's top bits; min and max return dst's NaN
 * made quiet when dst is a NaN, else src's made quiet when src is one.
 * -0 is less than +0 for min and max. Subnormals are kept everywhere.
 *
 * Header-only with no kernel dependency: a user-space includer defines u16
 * and u32 (uint16_t, uint32_t) and includes emu_f32.h first.
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

#endif /* HL_EMU_REDUCE_OPS_H_ */

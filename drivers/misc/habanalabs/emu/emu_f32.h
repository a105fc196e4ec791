/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs emu: IEEE-754 binary32 addition in integer arithmetic, for the
 * REDUCE engine (emu_reduce.c).
 *
 * Why integers and not the FPU: kernel_fpu_begin()/kernel_fpu_end() around
 * each chunk, in a file built with CC_FLAGS_FPU, would work on x86 (6.12
 * exports CC_FLAGS_FPU and CC_FLAGS_NO_FPU to out-of-tree builds), but the
 * result would then depend on the CPU's FP environment (MXCSR DAZ/FTZ, the
 * x87/SSE choice of the compiler for that one file), every function of the
 * file could be compiled to SSE code that must never run outside a
 * kernel_fpu section, and the emulated engine would be x86-only. The
 * integer version below is the engine's arithmetic by definition: exact
 * round to nearest, ties to even, subnormals kept, the same bits on every
 * architecture and in every context, no FPU state to save. Being
 * header-only with no kernel dependency, the very same code is compiled on
 * the host by tests/reduce/f32_add_check.c and compared against the host
 * FPU on hundreds of millions of random and special operands.
 *
 * A user-space includer defines u32 (uint32_t) before including this file.
 */
#ifndef HL_EMU_F32_H_
#define HL_EMU_F32_H_

#define HL_F32_SIGN		0x80000000u
#define HL_F32_EXP_MASK		0x7f800000u
#define HL_F32_FRAC_MASK	0x007fffffu
#define HL_F32_QUIET		0x00400000u
#define HL_F32_HIDDEN		0x00800000u
#define HL_F32_DEFAULT_NAN	0xffc00000u	/* x86's "real indefinite" */

/* Bits kept below the final LSB while adding: guard, round, sticky */
#define HL_F32_GRS		3

/*
 * hl_f32_shift_right_jam - @m >> @n, with every bit shifted out ORed into
 * bit 0 (the sticky bit), for 0 <= @n.
 */
static inline u32 hl_f32_shift_right_jam(u32 m, u32 n)
{
	if (n == 0)
		return m;
	if (n >= 32)
		return m != 0;
	return (m >> n) | ((m & ((1u << n) - 1)) != 0);
}

/**
 * hl_f32_add - binary32 @a + @b, round to nearest, ties to even.
 * @a: first operand (bits of a float); its NaN wins over @b's.
 * @b: second operand.
 *
 * Return: the bits of the sum, as x86-64 SSE addss computes @a + @b with
 * the default MXCSR: subnormals are neither flushed nor treated as zero; an
 * exact zero sum is +0 unless both operands are -0; a NaN operand gives
 * that NaN made quiet (@a's first); inf + -inf gives 0xffc00000; overflow
 * gives an infinity.
 */
static inline u32 hl_f32_add(u32 a, u32 b)
{
	u32 ea, eb, ma, mb, m, e, sign, t, lsb, rem;
	int shift;

	/* NaN and infinity operands */
	if ((a & ~HL_F32_SIGN) > HL_F32_EXP_MASK)
		return a | HL_F32_QUIET;
	if ((b & ~HL_F32_SIGN) > HL_F32_EXP_MASK)
		return b | HL_F32_QUIET;
	if ((a & HL_F32_EXP_MASK) == HL_F32_EXP_MASK) {
		if ((b & ~HL_F32_SIGN) == HL_F32_EXP_MASK && ((a ^ b) & HL_F32_SIGN))
			return HL_F32_DEFAULT_NAN;
		return a;
	}
	if ((b & HL_F32_EXP_MASK) == HL_F32_EXP_MASK)
		return b;

	/* Both finite: make |a| >= |b| (the sign of the sum is a's) */
	if ((a & ~HL_F32_SIGN) < (b & ~HL_F32_SIGN)) {
		t = a;
		a = b;
		b = t;
	}
	sign = a & HL_F32_SIGN;

	/* Significands with the hidden bit; a subnormal has exponent 1 */
	ea = (a & HL_F32_EXP_MASK) >> 23;
	eb = (b & HL_F32_EXP_MASK) >> 23;
	ma = a & HL_F32_FRAC_MASK;
	mb = b & HL_F32_FRAC_MASK;
	if (ea)
		ma |= HL_F32_HIDDEN;
	else
		ea = 1;
	if (eb)
		mb |= HL_F32_HIDDEN;
	else
		eb = 1;

	/* 24 + 3 bits each: [26] hidden, [25:3] fraction, [2:0] GRS */
	ma <<= HL_F32_GRS;
	mb = hl_f32_shift_right_jam(mb << HL_F32_GRS, ea - eb);
	e = ea;

	if (!((a ^ b) & HL_F32_SIGN)) {
		m = ma + mb;
		/* A carry into bit 27: renormalise, keeping the sticky bit */
		if (m & (HL_F32_HIDDEN << (HL_F32_GRS + 1))) {
			m = hl_f32_shift_right_jam(m, 1);
			e++;
		}
	} else {
		m = ma - mb;
		/* Exact cancellation: +0 in round to nearest */
		if (!m)
			return 0;
		/*
		 * Normalise so that bit 26 is set, without going below the
		 * subnormal exponent. A shift of more than 1 only happens when
		 * ea - eb <= 1, where no bit was lost to the sticky bit.
		 */
		shift = __builtin_clz(m) - (31 - (23 + HL_F32_GRS));
		if (shift > (int)e - 1)
			shift = (int)e - 1;
		if (shift > 0) {
			m <<= shift;
			e -= shift;
		}
	}

	/* Round to nearest, ties to even */
	lsb = (m >> HL_F32_GRS) & 1;
	rem = m & ((1u << HL_F32_GRS) - 1);
	m >>= HL_F32_GRS;
	if (rem > (1u << (HL_F32_GRS - 1)) ||
	    (rem == (1u << (HL_F32_GRS - 1)) && lsb))
		m++;
	if (m & (HL_F32_HIDDEN << 1)) {
		m >>= 1;
		e++;
	}

	if (e >= 0xff)
		return sign | HL_F32_EXP_MASK;
	/* e == 1 without the hidden bit is a subnormal: exponent field 0 */
	if (!(m & HL_F32_HIDDEN))
		return sign | m;
	return sign | (e << 23) | (m & HL_F32_FRAC_MASK);
}

#endif /* HL_EMU_F32_H_ */

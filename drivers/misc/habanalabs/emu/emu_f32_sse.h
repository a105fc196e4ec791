/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs emu: binary32 addition of whole arrays with x86 SSE, the
 * REDUCE engine's fast path on x86-64 (emu_reduce.c).
 *
 * The bits are those of hl_f32_add() (emu_f32.h), the engine's arithmetic
 * by definition:
 *   - 16 elements at a time are added with addps (32 with vaddps where
 *     the CPU has AVX2), and the sums are stored when none of them is an
 *     infinity or a NaN, which integer compares of their exponent fields
 *     find (a NaN or infinite operand makes such a sum, as an overflow
 *     does). Integer compares cost an emulator (QEMU TCG) a few host
 *     instructions where a float compare (cmpunordps) is a call into its
 *     software floating point, which branches on the data. With the default
 *     MXCSR (round to nearest, no flush-to-zero, no denormals-are-zero,
 *     exceptions masked), which is what kernel_fpu_begin() loads (the
 *     REDUCE engine sets the sticky inexact flag too, which changes no
 *     result: emu_reduce.c says why), IEEE-754 then fixes every bit of a
 *     finite sum, subnormals included.
 *   - Blocks with such a sum, and the last n % 16 elements, go through
 *     hl_f32_add(): which NaN an SSE addition returns is the CPU's choice
 *     (x86 keeps the first operand's; QEMU 7.2's TCG emulation of addps
 *     returns the second's), the engine's is fixed.
 * Memory is read and written by assembly only: the operands may be the HBM
 * BAR, which the compiler's (and KASAN's) plain accesses must not touch,
 * and the kernel's -mno-sse build needs no special flags. The XMM registers
 * are not declared as clobbered: the includer's compiler must not use them
 * (the kernel's -mno-sse; the host check's wrapper is built with
 * -mgeneral-regs-only, and they are caller-saved across its call). The
 * caller owns the FPU (in the kernel, between kernel_fpu_begin() and
 * kernel_fpu_end()).
 *
 * Header-only and free of kernel dependencies: tests/reduce/f32_add_check.c
 * compiles it on the host and compares it, bit for bit, with hl_f32_add().
 * The includer defines u32 and includes emu_f32.h first.
 */
#ifndef HL_EMU_F32_SSE_H_
#define HL_EMU_F32_SSE_H_

#ifdef __x86_64__

static inline u32 hl_f32_sse_load(const void *p)
{
	u32 v;

	asm volatile("movl (%1), %0" : "=r" (v) : "r" (p) : "memory");
	return v;
}

static inline void hl_f32_sse_store(void *p, u32 v)
{
	asm volatile("movl %0, (%1)" : : "r" (v), "r" (p) : "memory");
}

/* @n elements by the integer reference */
static inline void hl_f32_add_ref(char *d, const char *s, unsigned long n)
{
	for (; n; n--, d += 4, s += 4)
		hl_f32_sse_store(d, hl_f32_add(hl_f32_sse_load(d),
					       hl_f32_sse_load(s)));
}

/* The exponent field of every lane: a sum with it all ones is inf or NaN */
static const u32 hl_f32_sse_exp[8] = {
	HL_F32_EXP_MASK, HL_F32_EXP_MASK, HL_F32_EXP_MASK, HL_F32_EXP_MASK,
	HL_F32_EXP_MASK, HL_F32_EXP_MASK, HL_F32_EXP_MASK, HL_F32_EXP_MASK,
};

/*
 * 32 elements with AVX2 (vaddps on YMM registers, the check with integer
 * compares); returns false, with nothing written, when a sum is an
 * infinity or a NaN. The caller runs vzeroupper after its last block.
 */
static inline int hl_f32_add_avx32(char *d, const char *s)
{
	unsigned int bad;

	asm volatile("vmovups    (%[d]), %%ymm0\n\t"
		     "vmovups  32(%[d]), %%ymm1\n\t"
		     "vmovups  64(%[d]), %%ymm2\n\t"
		     "vmovups  96(%[d]), %%ymm3\n\t"
		     "vaddps     (%[s]), %%ymm0, %%ymm0\n\t"
		     "vaddps   32(%[s]), %%ymm1, %%ymm1\n\t"
		     "vaddps   64(%[s]), %%ymm2, %%ymm2\n\t"
		     "vaddps   96(%[s]), %%ymm3, %%ymm3\n\t"
		     "vmovups %[exp], %%ymm8\n\t"
		     "vpand %%ymm8, %%ymm0, %%ymm4\n\t"
		     "vpand %%ymm8, %%ymm1, %%ymm5\n\t"
		     "vpand %%ymm8, %%ymm2, %%ymm6\n\t"
		     "vpand %%ymm8, %%ymm3, %%ymm7\n\t"
		     "vpcmpeqd %%ymm8, %%ymm4, %%ymm4\n\t"
		     "vpcmpeqd %%ymm8, %%ymm5, %%ymm5\n\t"
		     "vpcmpeqd %%ymm8, %%ymm6, %%ymm6\n\t"
		     "vpcmpeqd %%ymm8, %%ymm7, %%ymm7\n\t"
		     "vpor %%ymm5, %%ymm4, %%ymm4\n\t"
		     "vpor %%ymm7, %%ymm6, %%ymm6\n\t"
		     "vpor %%ymm6, %%ymm4, %%ymm4\n\t"
		     "vmovmskps %%ymm4, %[bad]\n\t"
		     "testl %[bad], %[bad]\n\t"
		     "jnz 1f\n\t"
		     "vmovups %%ymm0,   (%[d])\n\t"
		     "vmovups %%ymm1, 32(%[d])\n\t"
		     "vmovups %%ymm2, 64(%[d])\n\t"
		     "vmovups %%ymm3, 96(%[d])\n"
		     "1:"
		     : [bad] "=&r" (bad)
		     : [d] "r" (d), [s] "r" (s), [exp] "m" (hl_f32_sse_exp)
		     : "memory", "cc");
	return !bad;
}

/**
 * hl_f32_add_sse - @dst[i] = @dst[i] + @src[i] for @n binary32 values.
 * @dst: first operands, and the results; any alignment (4 bytes for the
 *	32-bit loads of the reference path).
 * @src: second operands; == @dst or not overlapping it.
 * @n: number of values.
 * @avx2: the CPU has AVX2: 32 values per step with YMM registers first.
 */
static inline void hl_f32_add_sse(void *dst, const void *src,
				  unsigned long n, int avx2)
{
	char *d = dst;
	const char *s = src;
	unsigned int bad;

	if (avx2 && n >= 32) {
		for (; n >= 32; n -= 32, d += 128, s += 128)
			if (!hl_f32_add_avx32(d, s))
				hl_f32_add_ref(d, s, 32);
		asm volatile("vzeroupper" ::: "memory");
	}

	for (; n >= 16; n -= 16, d += 64, s += 64) {
		asm volatile("movups   (%[d]), %%xmm0\n\t"
			     "movups 16(%[d]), %%xmm1\n\t"
			     "movups 32(%[d]), %%xmm2\n\t"
			     "movups 48(%[d]), %%xmm3\n\t"
			     "movups   (%[s]), %%xmm4\n\t"
			     "movups 16(%[s]), %%xmm5\n\t"
			     "movups 32(%[s]), %%xmm6\n\t"
			     "movups 48(%[s]), %%xmm7\n\t"
			     "addps %%xmm4, %%xmm0\n\t"
			     "addps %%xmm5, %%xmm1\n\t"
			     "addps %%xmm6, %%xmm2\n\t"
			     "addps %%xmm7, %%xmm3\n\t"
			     "movups %[exp], %%xmm8\n\t"
			     "movaps %%xmm0, %%xmm4\n\t"
			     "movaps %%xmm1, %%xmm5\n\t"
			     "movaps %%xmm2, %%xmm6\n\t"
			     "movaps %%xmm3, %%xmm7\n\t"
			     "pand %%xmm8, %%xmm4\n\t"
			     "pand %%xmm8, %%xmm5\n\t"
			     "pand %%xmm8, %%xmm6\n\t"
			     "pand %%xmm8, %%xmm7\n\t"
			     "pcmpeqd %%xmm8, %%xmm4\n\t"
			     "pcmpeqd %%xmm8, %%xmm5\n\t"
			     "pcmpeqd %%xmm8, %%xmm6\n\t"
			     "pcmpeqd %%xmm8, %%xmm7\n\t"
			     "por %%xmm5, %%xmm4\n\t"
			     "por %%xmm7, %%xmm6\n\t"
			     "por %%xmm6, %%xmm4\n\t"
			     "movmskps %%xmm4, %[bad]\n\t"
			     "testl %[bad], %[bad]\n\t"
			     "jnz 1f\n\t"
			     "movups %%xmm0,   (%[d])\n\t"
			     "movups %%xmm1, 16(%[d])\n\t"
			     "movups %%xmm2, 32(%[d])\n\t"
			     "movups %%xmm3, 48(%[d])\n"
			     "1:"
			     : [bad] "=&r" (bad)
			     : [d] "r" (d), [s] "r" (s),
			       [exp] "m" (*(const u32 (*)[4])hl_f32_sse_exp)
			     : "memory", "cc");
		if (bad)
			hl_f32_add_ref(d, s, 16);
	}
	hl_f32_add_ref(d, s, n);
}

#endif /* __x86_64__ */
#endif /* HL_EMU_F32_SSE_H_ */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs emu: binary32 addition of whole arrays with x86 SSE, the
 * REDUCE engine's fast path on x86-64 (emu_reduce.c).
 *
 * The bits are those of hl_f32_add() (emu_f32.h), the engine's arithmetic
 * by definition:
 *   - 16 elements at a time are added with addps (32 with vaddps where
 *     the CPU has AVX) when none of the operands is a NaN (cmpunordps
 *     finds them first). With the default
 *     MXCSR (round to nearest, no flush-to-zero, no denormals-are-zero,
 *     exceptions masked), which is what kernel_fpu_begin() loads (the
 *     REDUCE engine sets the sticky inexact flag too, which changes no
 *     result: emu_reduce.c says why), IEEE-754 then fixes every bit of the
 *     result, inf - inf's default NaN included.
 *   - Blocks with a NaN operand, and the last n % 16 elements, go through
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

/*
 * 32 elements with AVX (vaddps on YMM registers), as the SSE blocks below;
 * returns false, with nothing written, when an operand is a NaN.
 */
static inline int hl_f32_add_avx32(char *d, const char *s)
{
	unsigned int nan;

	asm volatile("vmovups    (%[d]), %%ymm0\n\t"
		     "vmovups  32(%[d]), %%ymm1\n\t"
		     "vmovups  64(%[d]), %%ymm2\n\t"
		     "vmovups  96(%[d]), %%ymm3\n\t"
		     "vmovups    (%[s]), %%ymm4\n\t"
		     "vmovups  32(%[s]), %%ymm5\n\t"
		     "vmovups  64(%[s]), %%ymm6\n\t"
		     "vmovups  96(%[s]), %%ymm7\n\t"
		     "vcmpunordps %%ymm4, %%ymm0, %%ymm8\n\t"
		     "vcmpunordps %%ymm5, %%ymm1, %%ymm9\n\t"
		     "vcmpunordps %%ymm6, %%ymm2, %%ymm10\n\t"
		     "vcmpunordps %%ymm7, %%ymm3, %%ymm11\n\t"
		     "vorps %%ymm9, %%ymm8, %%ymm8\n\t"
		     "vorps %%ymm11, %%ymm10, %%ymm10\n\t"
		     "vorps %%ymm10, %%ymm8, %%ymm8\n\t"
		     "vmovmskps %%ymm8, %[nan]\n\t"
		     "testl %[nan], %[nan]\n\t"
		     "jnz 1f\n\t"
		     "vaddps %%ymm4, %%ymm0, %%ymm0\n\t"
		     "vaddps %%ymm5, %%ymm1, %%ymm1\n\t"
		     "vaddps %%ymm6, %%ymm2, %%ymm2\n\t"
		     "vaddps %%ymm7, %%ymm3, %%ymm3\n\t"
		     "vmovups %%ymm0,   (%[d])\n\t"
		     "vmovups %%ymm1, 32(%[d])\n\t"
		     "vmovups %%ymm2, 64(%[d])\n\t"
		     "vmovups %%ymm3, 96(%[d])\n"
		     "1:\tvzeroupper"
		     : [nan] "=&r" (nan)
		     : [d] "r" (d), [s] "r" (s)
		     : "memory", "cc");
	return !nan;
}

/**
 * hl_f32_add_sse - @dst[i] = @dst[i] + @src[i] for @n binary32 values.
 * @dst: first operands, and the results; any alignment (4 bytes for the
 *	32-bit loads of the reference path).
 * @src: second operands; == @dst or not overlapping it.
 * @n: number of values.
 * @avx: the CPU has AVX: 32 values per step with YMM registers first.
 */
static inline void hl_f32_add_sse(void *dst, const void *src,
				  unsigned long n, int avx)
{
	char *d = dst;
	const char *s = src;
	unsigned int nan;

	for (; avx && n >= 32; n -= 32, d += 128, s += 128)
		if (!hl_f32_add_avx32(d, s))
			hl_f32_add_ref(d, s, 32);

	for (; n >= 16; n -= 16, d += 64, s += 64) {
		asm volatile("movups   (%[d]), %%xmm0\n\t"
			     "movups 16(%[d]), %%xmm1\n\t"
			     "movups 32(%[d]), %%xmm2\n\t"
			     "movups 48(%[d]), %%xmm3\n\t"
			     "movups   (%[s]), %%xmm4\n\t"
			     "movups 16(%[s]), %%xmm5\n\t"
			     "movups 32(%[s]), %%xmm6\n\t"
			     "movups 48(%[s]), %%xmm7\n\t"
			     "movaps %%xmm0, %%xmm8\n\t"
			     "movaps %%xmm1, %%xmm9\n\t"
			     "movaps %%xmm2, %%xmm10\n\t"
			     "movaps %%xmm3, %%xmm11\n\t"
			     "cmpunordps %%xmm4, %%xmm8\n\t"
			     "cmpunordps %%xmm5, %%xmm9\n\t"
			     "cmpunordps %%xmm6, %%xmm10\n\t"
			     "cmpunordps %%xmm7, %%xmm11\n\t"
			     "orps %%xmm9, %%xmm8\n\t"
			     "orps %%xmm11, %%xmm10\n\t"
			     "orps %%xmm10, %%xmm8\n\t"
			     "movmskps %%xmm8, %[nan]\n\t"
			     "testl %[nan], %[nan]\n\t"
			     "jnz 1f\n\t"
			     "addps %%xmm4, %%xmm0\n\t"
			     "addps %%xmm5, %%xmm1\n\t"
			     "addps %%xmm6, %%xmm2\n\t"
			     "addps %%xmm7, %%xmm3\n\t"
			     "movups %%xmm0,   (%[d])\n\t"
			     "movups %%xmm1, 16(%[d])\n\t"
			     "movups %%xmm2, 32(%[d])\n\t"
			     "movups %%xmm3, 48(%[d])\n"
			     "1:"
			     : [nan] "=&r" (nan)
			     : [d] "r" (d), [s] "r" (s)
			     : "memory", "cc");
		if (nan)
			hl_f32_add_ref(d, s, 16);
	}
	hl_f32_add_ref(d, s, n);
}

#endif /* __x86_64__ */
#endif /* HL_EMU_F32_SSE_H_ */

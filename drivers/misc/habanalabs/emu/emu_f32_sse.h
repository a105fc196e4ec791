/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs emu: binary32 addition of whole arrays with x86 SSE, the
 * REDUCE engine's fast path on x86-64 (emu_reduce.c).
 *
 * The bits are those of hl_f32_add() (emu_f32.h), the engine's arithmetic
 * by definition:
 *   - 16 elements at a time are added with addps when none of the 32
 *     operands is a NaN (cmpunordps finds them first). With the default
 *     MXCSR (round to nearest, no flush-to-zero, no denormals-are-zero,
 *     exceptions masked), which is what kernel_fpu_begin() loads, IEEE-754
 *     then fixes every bit of the result, inf - inf's default NaN included.
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

/**
 * hl_f32_add_sse - @dst[i] = @dst[i] + @src[i] for @n binary32 values.
 * @dst: first operands, and the results; any alignment (4 bytes for the
 *	32-bit loads of the reference path).
 * @src: second operands; == @dst or not overlapping it.
 * @n: number of values.
 */
static inline void hl_f32_add_sse(void *dst, const void *src,
				  unsigned long n)
{
	char *d = dst;
	const char *s = src;
	unsigned int nan;

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

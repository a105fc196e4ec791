// SPDX-License-Identifier: MIT
/*
 * f32_sse_wrap: the REDUCE engine's SSE routine (emu_f32_sse.h) as a
 * function for f32_add_check. Built with -mgeneral-regs-only, as the kernel
 * builds it with -mno-sse: the compiler keeps nothing in XMM registers, and
 * the caller assumes every XMM register is clobbered by a call anyway.
 */
#include <stdint.h>

typedef uint32_t u32;
#include "../../drivers/misc/habanalabs/emu/emu_f32.h"
#include "../../drivers/misc/habanalabs/emu/emu_f32_sse.h"

void f32_add_sse(void *dst, const void *src, unsigned long n, int avx);

void f32_add_sse(void *dst, const void *src, unsigned long n, int avx)
{
#ifdef __x86_64__
	hl_f32_add_sse(dst, src, n, avx);
#else
	(void)dst;
	(void)src;
	(void)n;
	(void)avx;
#endif
}

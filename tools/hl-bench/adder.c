// SPDX-License-Identifier: MIT
/*
 * adder: the REDUCE engine's float32 adder (emu_f32_sse.h) as a function,
 * for hl-bench's reduce series, which runs it over an unbound device's HBM
 * BAR as the peer of the engine. Built with -mgeneral-regs-only, as the
 * kernel builds it with -mno-sse (tests/reduce/f32_sse_wrap.c says why).
 */
#include <stdint.h>

#include "adder.h"

typedef uint32_t u32;
#include "../../drivers/misc/habanalabs/emu/emu_f32.h"
#include "../../drivers/misc/habanalabs/emu/emu_f32_sse.h"

void hlbench_f32_add(void *dst, const void *src, unsigned long n, int avx)
{
#ifdef __x86_64__
	hl_f32_add_sse(dst, src, n, avx);
#else
	float *d = dst;
	const float *s = src;

	(void)avx;
	for (; n; n--)
		*d++ += *s++;
#endif
}

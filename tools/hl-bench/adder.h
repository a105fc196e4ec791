/* SPDX-License-Identifier: MIT */
#ifndef HLBENCH_ADDER_H
#define HLBENCH_ADDER_H

/*
 * @dst[i] += @src[i] for @n float32 values, by the REDUCE engine's own
 * routine (emu_f32_sse.h; @avx: the CPU has AVX2, YMM registers first)
 */
void hlbench_f32_add(void *dst, const void *src, unsigned long n, int avx);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs emu: the arithmetic of the REDUCE engine.
 *
 * The queue worker (emu_queue.c) walks a REDUCE packet run by run through
 * the device MMU with the walker it shares with LIN_DMA (hl_emu_exec_xfer())
 * and calls hl_emu_reduce_spans() on each pair of runs, reading both
 * operands where they are. Semantics are in the uAPI header (struct
 * hl_pkt_reduce). The arithmetic is defined by the integer binary32 addition
 * of emu_f32.h (which says why); on x86-64 the same sums are computed with
 * SSE (emu_f32_sse.h, checked bit for bit against emu_f32.h by
 * tests/reduce/f32_add_check), elsewhere hl_emu_reduce_chunk() does it on
 * bounced chunks.
 */

#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/sizes.h>

#ifdef CONFIG_X86_64
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>
#endif

#include "emu.h"
#include "emu_reduce.h"
#include "emu_f32.h"
#include "emu_f32_sse.h"
#include "emu_reduce_ops.h"

/*
 * Bytes summed per kernel_fpu_begin()/kernel_fpu_end() section. The
 * section runs with preemption and softirqs off, so it is bounded: 64 KiB
 * is a few microseconds on hardware and about 0.1 ms under QEMU TCG (at
 * its 1.5-2 ms/MiB), far below a scheduler tick, as the copies'
 * HL_EMU_COPY_FPU_SLICE; a quarter of the sections of 16 KiB.
 */
#define HL_EMU_REDUCE_FPU_SLICE	SZ_64K

#ifdef CONFIG_X86_64
/*
 * MXCSR as kernel_fpu_begin() loads it (round to nearest, every exception
 * masked, no FTZ or DAZ), plus the sticky inexact flag (PE, bit 5).
 */
#define HL_EMU_REDUCE_MXCSR	(MXCSR_DEFAULT | 0x0020)

/*
 * Start a section: kernel_fpu_begin(), then set the inexact flag. The flags
 * only record what happened, they change no result (every exception is
 * masked), but QEMU's TCG computes float operations with the host's FPU
 * only while the guest's inexact flag is set, and in software, several
 * times slower, while it is clear: kernel_fpu_begin() clears it, and a
 * run of sums that are all exact (whole numbers, zeros) never sets it.
 */
static void hl_emu_reduce_fpu_begin(void)
{
	u32 mxcsr = HL_EMU_REDUCE_MXCSR;

	kernel_fpu_begin();
	asm volatile("ldmxcsr %0" : : "m" (mxcsr));
}
#endif

/* HL_REDUCE_OP_DIV_BY()'s divisor, 0 for the other operations */
static u32 hl_emu_reduce_divisor(u32 op)
{
	return op >> HL_REDUCE_DIVISOR_SHIFT;
}

/**
 * hl_emu_reduce_elem_size - element size of a REDUCE type and operation.
 * @dtype: HL_REDUCE_DTYPE_*.
 * @op: the packet's op word: HL_REDUCE_OP_SUM, _MIN, _MAX, _PROD, or
 *	HL_REDUCE_OP_DIV_BY(n).
 *
 * Return: the element size in bytes, or 0 when the engine does not support
 * the pair (the packet is malformed).
 */
u32 hl_emu_reduce_elem_size(u32 dtype, u32 op)
{
	switch (op & HL_REDUCE_OP_MASK) {
	case HL_REDUCE_OP_SUM:
	case HL_REDUCE_OP_MIN:
	case HL_REDUCE_OP_MAX:
	case HL_REDUCE_OP_PROD:
		if (hl_emu_reduce_divisor(op))
			return 0;
		break;
	case HL_REDUCE_OP_DIV:
		if (!hl_emu_reduce_divisor(op))
			return 0;
		break;
	default:
		return 0;
	}
	switch (dtype) {
	case HL_REDUCE_DTYPE_F32:
	case HL_REDUCE_DTYPE_I32:
		return sizeof(u32);
	case HL_REDUCE_DTYPE_BF16:
	case HL_REDUCE_DTYPE_F16:
		return sizeof(u16);
	default:
		return 0;
	}
}

/* One element of a 32-bit type: @d op @s (DIV: @s / divisor) */
static u32 hl_emu_reduce32(u32 dtype, u32 op, u32 d, u32 s)
{
	u32 n = hl_emu_reduce_divisor(op);

	op &= HL_REDUCE_OP_MASK;
	if (dtype == HL_REDUCE_DTYPE_I32) {
		switch (op) {
		case HL_REDUCE_OP_SUM:
			return d + s;	/* wraps */
		case HL_REDUCE_OP_PROD:
			return d * s;	/* wraps */
		case HL_REDUCE_OP_DIV:
			return hl_i32_div_u(s, n);
		case HL_REDUCE_OP_MIN:
			return (s32)s < (s32)d ? s : d;
		default:
			return (s32)s > (s32)d ? s : d;
		}
	}
	switch (op) {
	case HL_REDUCE_OP_SUM:
		return hl_f32_add(d, s);
	case HL_REDUCE_OP_PROD:
		return hl_f32_mul(d, s);
	case HL_REDUCE_OP_DIV:
		return hl_f32_div_u(s, n);
	default:
		return hl_float_minmax(d, s, HL_F32_SIGN, HL_F32_EXP_MASK,
				       HL_F32_QUIET, op == HL_REDUCE_OP_MAX);
	}
}

/* One element of a 16-bit float type: @d op @s (DIV: @s / divisor) */
static u16 hl_emu_reduce16(u32 dtype, u32 op, u16 d, u16 s)
{
	bool bf = dtype == HL_REDUCE_DTYPE_BF16;
	u32 n = hl_emu_reduce_divisor(op);

	switch (op & HL_REDUCE_OP_MASK) {
	case HL_REDUCE_OP_SUM:
		return bf ? hl_bf16_add(d, s) : hl_f16_add(d, s);
	case HL_REDUCE_OP_PROD:
		return bf ? hl_bf16_mul(d, s) : hl_f16_mul(d, s);
	case HL_REDUCE_OP_DIV:
		return bf ? hl_bf16_div_u(s, n) : hl_f16_div_u(s, n);
	default:
		return (u16)hl_float_minmax(d, s, HL_F16_SIGN,
					    bf ? 0x7f80u : HL_F16_EXP,
					    bf ? HL_BF16_QUIET : HL_F16_QUIET,
					    (op & HL_REDUCE_OP_MASK) ==
					    HL_REDUCE_OP_MAX);
	}
}

/**
 * hl_emu_reduce_chunk - dst[i] = dst[i] op src[i] on one chunk.
 * @dtype: HL_REDUCE_DTYPE_*, supported with @op.
 * @op: the packet's op word (hl_emu_reduce_elem_size()).
 * @dst: the chunk of the destination as read; receives the result.
 * @src: the same elements of the source.
 * @len: bytes, a multiple of the element size.
 */
void hl_emu_reduce_chunk(u32 dtype, u32 op, void *dst, const void *src,
			 u32 len)
{
	__le32 *d = dst;
	const __le32 *s = src;
	__le16 *d16 = dst;
	const __le16 *s16 = src;
	u32 i;

	switch (hl_emu_reduce_elem_size(dtype, op)) {
	case sizeof(u32):
		for (i = 0; i < len / sizeof(u32); i++)
			d[i] = cpu_to_le32(hl_emu_reduce32(dtype, op,
							   le32_to_cpu(d[i]),
							   le32_to_cpu(s[i])));
		break;
	case sizeof(u16):
		for (i = 0; i < len / sizeof(u16); i++)
			d16[i] = cpu_to_le16(hl_emu_reduce16(dtype, op,
							     le16_to_cpu(d16[i]),
							     le16_to_cpu(s16[i])));
		break;
	default:
		break;	/* refused by hl_emu_reduce_elem_size() */
	}
}

/**
 * hl_emu_reduce_spans - dst[i] = dst[i] op src[i] where the operands are,
 * with the CPU's SIMD unit (float32 sum; the other pairs are scalar).
 * @dtype: HL_REDUCE_DTYPE_*, supported with @op.
 * @op: the packet's op word (hl_emu_reduce_elem_size()).
 * @dst: the destination run (hl_emu_mmu_span()): first operands, results.
 * @src: the source run: second operands; the same bytes as @dst or not
 *	overlapping them.
 * @len: bytes, a multiple of the element size, at most each run's length.
 *
 * Return: true when done; false when this architecture has no SIMD
 * routine (the caller bounces the data through hl_emu_reduce_chunk()).
 */
bool hl_emu_reduce_spans(u32 dtype, u32 op, const struct hl_emu_span *dst,
			 const struct hl_emu_span *src, u64 len)
{
#ifdef CONFIG_X86_64
	void *d, *s;
	u64 off, n;
	int avx2;

	if (dtype != HL_REDUCE_DTYPE_F32 || op != HL_REDUCE_OP_SUM)
		return false;

	avx2 = boot_cpu_has(X86_FEATURE_AVX2);
	d = hl_emu_span_map(dst);
	s = hl_emu_span_map(src);
	for (off = 0; off < len; off += n) {
		n = min_t(u64, len - off, HL_EMU_REDUCE_FPU_SLICE);
		hl_emu_reduce_fpu_begin();
		hl_f32_add_sse(d + off, s + off, n / sizeof(u32), avx2);
		kernel_fpu_end();
	}
	hl_emu_span_unmap(src, s);
	hl_emu_span_unmap(dst, d);
	return true;
#else
	return false;
#endif
}

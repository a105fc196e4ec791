// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs emu: the arithmetic of the REDUCE engine.
 *
 * The queue worker (emu_queue.c) walks a REDUCE packet chunk by chunk
 * through the device MMU, as it does for LIN_DMA, and calls
 * hl_emu_reduce_chunk() on each pair of chunks it has read. Semantics are in
 * the uAPI header (struct hl_pkt_reduce); binary32 addition is done in
 * integer arithmetic (emu_f32.h says why).
 */

#include <linux/kernel.h>

#include "emu.h"
#include "emu_f32.h"

/**
 * hl_emu_reduce_elem_size - element size of a REDUCE type and operation.
 * @dtype: HL_REDUCE_DTYPE_*.
 * @op: HL_REDUCE_OP_*.
 *
 * Return: the element size in bytes, or 0 when the engine does not support
 * the pair (the packet is malformed).
 */
u32 hl_emu_reduce_elem_size(u32 dtype, u32 op)
{
	if (dtype == HL_REDUCE_DTYPE_F32 && op == HL_REDUCE_OP_SUM)
		return sizeof(u32);
	return 0;
}

/**
 * hl_emu_reduce_chunk - dst[i] = dst[i] op src[i] on one chunk.
 * @dtype: HL_REDUCE_DTYPE_*, supported with @op.
 * @op: HL_REDUCE_OP_*.
 * @dst: the chunk of the destination as read; receives the result.
 * @src: the same elements of the source.
 * @len: bytes, a multiple of the element size.
 */
void hl_emu_reduce_chunk(u32 dtype, u32 op, void *dst, const void *src,
			 u32 len)
{
	__le32 *d = dst;
	const __le32 *s = src;
	u32 i;

	/* The only pair hl_emu_reduce_elem_size() accepts */
	if (dtype != HL_REDUCE_DTYPE_F32 || op != HL_REDUCE_OP_SUM)
		return;

	for (i = 0; i < len / sizeof(u32); i++)
		d[i] = cpu_to_le32(hl_f32_add(le32_to_cpu(d[i]),
					      le32_to_cpu(s[i])));
}

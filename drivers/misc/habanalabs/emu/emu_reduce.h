/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs emu: the REDUCE engine's arithmetic (emu_reduce.c).
 */
#ifndef HL_EMU_REDUCE_H_
#define HL_EMU_REDUCE_H_

#include <linux/types.h>

struct hl_emu_span;

/* emu_reduce.c */
u32 hl_emu_reduce_elem_size(u32 dtype, u32 op);
void hl_emu_reduce_chunk(u32 dtype, u32 op, void *dst, const void *src,
			 u32 len);
bool hl_emu_reduce_spans(u32 dtype, u32 op, const struct hl_emu_span *dst,
			 const struct hl_emu_span *src, u64 len);

#endif /* HL_EMU_REDUCE_H_ */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs emu: the sync manager (sync objects, monitors) and the queues'
 * fence counters (emu_sync.c). Register map and semantics: the uAPI packet
 * header (habanalabs_pkt.h, "The sync manager and the queues' fence
 * registers").
 */
#ifndef HL_EMU_SYNC_H_
#define HL_EMU_SYNC_H_

#include <linux/bits.h>
#include <linux/types.h>

struct asic_fixed_properties;
struct hl_coll_wait;
struct hl_device;
struct hl_emu_device;

/* The fence id of the driver's WAIT (GAUDI's driver uses fence 2 too) */
#define HL_EMU_WAIT_FENCE	2

/*
 * GAUDI's DMA core registers that are modelled, offsets in the core's block
 * (DMA<n>_CORE: the engine's block, WREG_32's base on its queues). Each
 * SRC_/DST_TSIZE_<d> (d = 1..4) is followed by its STRIDE_<d>.
 */
#define HL_EMU_DMA_CORE_SRC_BASE_LO	0x14
#define HL_EMU_DMA_CORE_SRC_BASE_HI	0x18
#define HL_EMU_DMA_CORE_DST_BASE_LO	0x1c
#define HL_EMU_DMA_CORE_DST_BASE_HI	0x20
#define HL_EMU_DMA_CORE_SRC_TSIZE_1	0x2c
#define HL_EMU_DMA_CORE_SRC_TSIZE_0	0x4c
#define HL_EMU_DMA_CORE_DST_TSIZE_1	0x54
#define HL_EMU_DMA_CORE_DST_TSIZE_0	0x74
#define HL_EMU_DMA_CORE_COMMIT		0x78
#define HL_EMU_DMA_CORE_WR_COMP_WDATA	0x7c
#define HL_EMU_DMA_CORE_WR_COMP_ADDR_LO	0x80
#define HL_EMU_DMA_CORE_WR_COMP_ADDR_HI	0x84
#define HL_EMU_DMA_CORE_REGS_END	0x88
#define HL_EMU_DMA_CORE_DIMS		4
/* COMMIT: write completion, linear (one TSIZE_0 line), context id */
#define HL_EMU_DMA_COMMIT_WR_COMP_EN	BIT(0)
#define HL_EMU_DMA_COMMIT_LIN		BIT(3)
#define HL_EMU_DMA_COMMIT_CTX_ID	GENMASK(23, 16)

int hl_emu_sync_alloc(struct hl_emu_device *emu);
void hl_emu_sync_free(struct hl_emu_device *emu);
void hl_emu_sync_reset(struct hl_emu_device *emu);
bool hl_emu_sync_is_reg(struct hl_emu_device *emu, u64 addr);
int hl_emu_sync_write(struct hl_emu_device *emu, u64 addr, u32 value);
int hl_emu_sync_read(struct hl_emu_device *emu, u64 addr, u32 *val);
bool hl_emu_sync_fence_take(struct hl_emu_device *emu, u32 queue, u32 slot,
			    u32 id, u32 target, u32 dec);
void hl_emu_sync_fence_abort(struct hl_emu_device *emu, u32 queue, u32 slot,
			     u32 id, u32 target, u32 dec);
int hl_emu_sync_fence_wait(struct hl_emu_device *emu, u32 queue, u32 id,
			   u32 target, long timeout);
void hl_emu_sync_wake(struct hl_emu_device *emu);
bool hl_emu_sync_arb_acquire(struct hl_emu_device *emu, u32 queue, u32 prio,
			     unsigned long asked, u32 *gen);
void hl_emu_sync_arb_release(struct hl_emu_device *emu, u32 queue);
void hl_emu_sync_arb_wait(struct hl_emu_device *emu, u32 gen, long timeout);
void hl_emu_sync_props(struct hl_emu_device *emu,
		       struct asic_fixed_properties *prop);
u32 hl_emu_sync_gen_signal_cb(struct hl_device *hdev, void *buf, u32 queue,
			      u32 idx, u32 value, bool set, u32 *sob_offset);
u64 hl_emu_sync_msg_base(struct hl_emu_device *emu, u32 queue, u32 base);
u32 hl_emu_sync_slot(struct hl_emu_device *emu, u32 queue, bool lower_cp);
u64 hl_emu_sync_fence_addr(struct hl_emu_device *emu, u32 slot, u32 id);
u64 hl_emu_sync_engine_block(struct hl_emu_device *emu, u32 queue);
bool hl_emu_sync_own_qm(struct hl_emu_device *emu, u32 queue, u64 addr);
bool hl_emu_sync_is_dma_core_reg(struct hl_emu_device *emu, u32 queue,
				 u64 addr);
int hl_emu_sync_dma_core_write(struct hl_emu_device *emu, u32 queue,
			       u64 addr, u32 value, u32 *regs);
u32 hl_emu_sync_encaps_sob(struct hl_device *hdev, u32 queue, u32 idx,
			   bool clear);
u32 hl_emu_sync_gen_wait_cb(struct hl_device *hdev, void *buf, u32 queue,
			    u32 sig_queue, u32 idx, u32 value);
int hl_emu_sync_coll_queues(struct hl_device *hdev, u32 master, u32 engine_id,
			    u32 *queues);
u32 hl_emu_sync_gen_coll_cb(struct hl_device *hdev, void *buf,
			    const struct hl_coll_wait *cw, u32 job);
void hl_emu_sync_coll_clear(struct hl_device *hdev, u32 master, u32 group);

#endif /* HL_EMU_SYNC_H_ */

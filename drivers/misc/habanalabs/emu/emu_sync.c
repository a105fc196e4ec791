// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs emu: the sync manager and the queues' fence counters.
 *
 * GAUDI's model, for one sync manager block: HL_SM_NUM_SOBS sync objects
 * (15-bit counters), HL_SM_NUM_MONITORS monitors that watch a group of
 * eight SOBs and, when their condition holds, write a 32-bit payload to an
 * address, and HL_QM_FENCE_NUM fence counters per queue that the FENCE
 * packet waits on. Engines reach them only by 32-bit writes to their
 * configuration-space addresses (MSG_LONG); the register map is in the
 * uAPI packet header.
 *
 * Containment: a monitor's payload lands only in a SOB or a fence counter.
 * The payload address is checked when the monitor is armed (anything else
 * makes the arming write malformed, -EINVAL) and again when it fires (a
 * payload address rewritten meanwhile is dropped, counted in
 * hl_emu_sync.dropped); no path from here reaches device or host memory.
 *
 * Owners: hl_emu_sync_reset() zeroes every SOB, monitor and fence counter;
 * the core calls it (asic_funcs->sync_reset) when a context is torn down,
 * after none of its jobs runs, and hw_init calls it: the next owner
 * starts from zeros.
 *
 * Locking: hl_emu_sync.lock (a spinlock, innermost: it is taken by queue
 * workers inside their dma_fence signalling section, and nothing is
 * allocated or waited for under it) guards every SOB, monitor and fence
 * counter. Waiters of a FENCE sleep on hl_emu_sync.wq without it.
 */

#include <linux/bitops.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "emu.h"
#include "emu_exec.h"
#include "emu_sync.h"

/**
 * struct hl_emu_mon - one monitor.
 * @addr: payload address (ADDRH:ADDRL).
 * @data: payload data.
 * @arm: the last value written to its ARM register.
 * @armed: waiting for its condition.
 */
struct hl_emu_mon {
	u64 addr;
	u32 data;
	u32 arm;
	bool armed;
};

/*
 * The sync manager's register blocks, each a full set of SOBs and monitors
 * (a monitor watches the SOBs of its own block): E_N (the uAPI's
 * HL_SM_SOB_OBJ_0, ...) and W_S, GAUDI's two that its driver and
 * hl-thunk's tests use, at GAUDI's addresses. Block b's registers are at
 * the E_N ones - HL_EMU_SM_E_N_BASE + hl_emu_sm_block_base[b].
 */
#define HL_EMU_SM_BLOCKS	2
#define HL_EMU_SM_E_N		0
#define HL_EMU_SM_W_S		1
#define HL_EMU_SM_E_N_BASE	(HL_CFG_BASE + 0x4f0000)
static const u64 hl_emu_sm_block_base[HL_EMU_SM_BLOCKS] = {
	[HL_EMU_SM_E_N] = HL_EMU_SM_E_N_BASE,	  /* SYNC_MNGR_GLBL_E_N */
	[HL_EMU_SM_W_S] = HL_CFG_BASE + 0x490000, /* SYNC_MNGR_GLBL_W_S */
};

#define HL_EMU_SM_NUM_SOBS	(HL_EMU_SM_BLOCKS * HL_SM_NUM_SOBS)
#define HL_EMU_SM_NUM_MONS	(HL_EMU_SM_BLOCKS * HL_SM_NUM_MONITORS)

/*
 * A queue manager's registers, from its base (GAUDI's QMAN layout): the
 * message bases and fence counters of its five streams (four queues and
 * the lower CP, which runs the CBs of CP_DMA), and its arbiter
 */
#define HL_EMU_QM_SIZE		0x1000
#define HL_EMU_QM_STREAMS	5
#define HL_EMU_QM_LOWER_CP	4
#define HL_EMU_QM_MSG_BASE	0x228
#define HL_EMU_QM_MSG_BASE_STRIDE 0x28
#define HL_EMU_QM_MSG_BASE_HALF	0x14
#define HL_EMU_QM_FENCE		0x308
#define HL_EMU_QM_FENCE_STRIDE	0x14
#define HL_EMU_QM_ARB_CFG_0	0xa00
#define HL_EMU_QM_ARB_WRR_WEIGHT_0 0xa08
#define HL_EMU_QM_ARB_MST_QUIET_PER 0xb34
/* The engine's register block (WREG_32's base): the QM's base - this */
#define HL_EMU_QM_ENGINE_OFF	0x8000

/*
 * GAUDI's DMA cores (DMA0_CORE .. DMA7_CORE): the register block of the
 * engines DMA 0..7, whose registers a strided transfer is programmed in
 * (emu_gaudi_pkt.c)
 */
#define HL_EMU_DMA_CORE_BASE	(HL_CFG_BASE + 0x500000)
#define HL_EMU_DMA_CORE_STRIDE	0x20000
#define HL_EMU_DMA_CORES	8

/**
 * struct hl_emu_qm - a queue manager.
 * @base: its registers' address.
 * @first_queue: the queue of its stream 0; streams 0-3 are queues
 *	@first_queue..+3, stream 4 (the lower CP) is fence and message-base
 *	slot num_queues + its index.
 * @arb_cfg: ARB_CFG_0 as written.
 * @arb_wrr: ARB_WRR_WEIGHT_0..3 as written.
 * @arb_quiet: ARB_MST_QUIET_PER as written.
 * @arb_grant: the stream (bit 0-3) that holds the priority arbiter's grant
 *	(ARB_POINT, below), or 0.
 * @arb_req: the streams waiting at an ARB_POINT for the grant, a bit each.
 * @arb_prio: the priority each of them asked with.
 * @arb_freed: when (jiffies) the grant was last given back: the quiet
 *	period's bound runs from it.
 * @dma_core: the registers of its engine's DMA core as written (GAUDI's
 *	DMA 0..7; HL_EMU_DMA_CORE_*, from the block's base / 4), else unused.
 */
struct hl_emu_qm {
	u64 base;
	u32 first_queue;
	u32 arb_cfg;
	u32 arb_wrr[HL_QM_FENCE_STREAMS];
	u32 arb_quiet;
	u8 arb_grant;
	u8 arb_req;
	u8 arb_prio[HL_QM_FENCE_STREAMS];
	unsigned long arb_freed;
	u32 dma_core[HL_EMU_DMA_CORE_REGS_END / 4];
};

/**
 * struct hl_emu_fwait - the FENCE a queue waits in, for the arbiter.
 * @on: the queue waits in a FENCE (on counter @id of @slot, for @target).
 * @slot: the counters' slot.
 * @id: the counter.
 * @target: the FENCE's target.
 */
struct hl_emu_fwait {
	bool on;
	u32 slot;
	u32 id;
	u32 target;
};

/**
 * struct hl_emu_sync - the sync manager.
 * @lock: Protects: @sob, @mon, @fence, @msg_base, @dropped, @fwait,
 *	@arb_gen, the arbiter (registers and state) and DMA core registers of
 *	@qm.
 * @wq: FENCE packets waiting for a fence counter.
 * @sob: the sync objects' values, block by block (HL_EMU_SM_BLOCKS).
 * @mon: the monitors, block by block.
 * @num_queues: the device's queues (hl_emu_device.num_queues).
 * @gaudi: the device has GAUDI's queue table (hl_emu_device.queue_type):
 *	its queue managers are GAUDI's.
 * @num_qms: the queue managers (@qm).
 * @qm: the queue managers: asic=emu's one per four queues
 *	HL_QM_FENCE_QM_STRIDE apart, or GAUDI's at GAUDI's addresses
 *	(hl_emu_gaudi_qm_runs); fixed at allocation.
 * @queue_qm: each queue's queue manager (index into @qm), or -1 (GAUDI's
 *	CPU queue has none).
 * @msg_base: the message bases (CP_MSG_BASE0..3) per slot: a queue, or a
 *	queue manager's lower CP (@num_queues + its index).
 * @dropped: payloads that aimed outside the sync manager when their monitor
 *	fired (ignored).
 * @fwait: per queue, the FENCE it waits in (the arbiter's quiet period).
 * @arb_gen: bumped at each change of an arbiter's grant or requests, and of
 *	@fwait while a stream asks for a grant: what an ARB_POINT waits for.
 * @fence: the fence counters, HL_QM_FENCE_NUM per slot (as @msg_base).
 */
struct hl_emu_sync {
	/* Protects: sob, mon, fence, msg_base, dropped, fwait, arb_gen, qm's arb, dma_core */
	spinlock_t lock;
	wait_queue_head_t wq;
	u16 sob[HL_EMU_SM_NUM_SOBS];
	struct hl_emu_mon mon[HL_EMU_SM_NUM_MONS];
	u32 num_queues;
	bool gaudi;
	u32 num_qms;
	struct hl_emu_qm *qm;
	s8 *queue_qm;
	u64 (*msg_base)[HL_QM_MSG_BASE_NUM];
	u64 dropped;
	struct hl_emu_fwait *fwait;
	u32 arb_gen;
	u32 fence[][HL_QM_FENCE_NUM];
};

enum hl_emu_sync_reg {
	HL_EMU_REG_NONE,
	HL_EMU_REG_SOB,
	HL_EMU_REG_MON_ADDRL,
	HL_EMU_REG_MON_ADDRH,
	HL_EMU_REG_MON_DATA,
	HL_EMU_REG_MON_ARM,
	HL_EMU_REG_FENCE,
	HL_EMU_REG_MSG_BASE_LO,
	HL_EMU_REG_MSG_BASE_HI,
	HL_EMU_REG_ARB_CFG,
	HL_EMU_REG_ARB_WRR,
	HL_EMU_REG_ARB_QUIET,
};

/* The fence and message-base slot of stream @stream of queue manager @k */
static s32 hl_emu_qm_slot(const struct hl_emu_sync *sm, u32 k, u32 stream)
{
	u32 queue;

	if (stream == HL_EMU_QM_LOWER_CP)
		return sm->num_queues + k;
	queue = sm->qm[k].first_queue + stream;
	/* A queue manager's stream past the queue table, or another's queue */
	if (queue >= sm->num_queues || sm->queue_qm[queue] != k)
		return -1;
	return queue;
}

/* A register of a queue manager: @k, @off from its base */
static enum hl_emu_sync_reg hl_emu_qm_decode(const struct hl_emu_sync *sm,
					     u32 k, u32 off, u32 *idx)
{
	u32 stream, id;
	s32 slot;

	if (off >= HL_EMU_QM_MSG_BASE &&
	    off < HL_EMU_QM_MSG_BASE + HL_QM_MSG_BASE_NUM *
					HL_EMU_QM_MSG_BASE_STRIDE) {
		off -= HL_EMU_QM_MSG_BASE;
		id = off / HL_EMU_QM_MSG_BASE_STRIDE;
		off %= HL_EMU_QM_MSG_BASE_STRIDE;
		stream = (off % HL_EMU_QM_MSG_BASE_HALF) / 4;
		slot = hl_emu_qm_slot(sm, k, stream);
		if (slot < 0)
			return HL_EMU_REG_NONE;
		*idx = slot * HL_QM_MSG_BASE_NUM + id;
		return off >= HL_EMU_QM_MSG_BASE_HALF ?
		       HL_EMU_REG_MSG_BASE_HI : HL_EMU_REG_MSG_BASE_LO;
	}
	if (off >= HL_EMU_QM_FENCE &&
	    off < HL_EMU_QM_FENCE + HL_QM_FENCE_NUM * HL_EMU_QM_FENCE_STRIDE) {
		off -= HL_EMU_QM_FENCE;
		id = off / HL_EMU_QM_FENCE_STRIDE;
		stream = (off % HL_EMU_QM_FENCE_STRIDE) / 4;
		slot = hl_emu_qm_slot(sm, k, stream);
		if (slot < 0)
			return HL_EMU_REG_NONE;
		*idx = slot * HL_QM_FENCE_NUM + id;
		return HL_EMU_REG_FENCE;
	}
	*idx = k;
	if (off == HL_EMU_QM_ARB_CFG_0)
		return HL_EMU_REG_ARB_CFG;
	if (off == HL_EMU_QM_ARB_MST_QUIET_PER)
		return HL_EMU_REG_ARB_QUIET;
	if (off >= HL_EMU_QM_ARB_WRR_WEIGHT_0 &&
	    off < HL_EMU_QM_ARB_WRR_WEIGHT_0 + 4 * HL_QM_FENCE_STREAMS) {
		*idx = k * HL_QM_FENCE_STREAMS +
		       (off - HL_EMU_QM_ARB_WRR_WEIGHT_0) / 4;
		return HL_EMU_REG_ARB_WRR;
	}
	return HL_EMU_REG_NONE;
}

/*
 * Which register @addr is, and its index: a SOB's or a monitor's (block *
 * count + its id), slot * 4 + id for a fence counter or a message base,
 * the queue manager's for an arbiter register (* 4 + stream for a weight)
 */
static enum hl_emu_sync_reg hl_emu_sync_decode(const struct hl_emu_sync *sm,
					       u64 addr, u32 *idx)
{
	u64 off;
	u32 b, k;

	if (!IS_ALIGNED(addr, sizeof(u32)))
		return HL_EMU_REG_NONE;
	for (b = 0; b < HL_EMU_SM_BLOCKS; b++) {
		/* The E_N addresses of the register */
		u64 a = addr - hl_emu_sm_block_base[b] + HL_EMU_SM_E_N_BASE;

		if (a >= HL_SM_SOB_OBJ_0 &&
		    a < HL_SM_SOB_ADDR(HL_SM_NUM_SOBS)) {
			*idx = b * HL_SM_NUM_SOBS + (a - HL_SM_SOB_OBJ_0) / 4;
			return HL_EMU_REG_SOB;
		}
		if (a >= HL_SM_MON_PAY_ADDRL_0 &&
		    a < HL_SM_MON_ARM_ADDR(HL_SM_NUM_MONITORS)) {
			off = a - HL_SM_MON_PAY_ADDRL_0;
			*idx = b * HL_SM_NUM_MONITORS +
			       (off % (4 * HL_SM_NUM_MONITORS)) / 4;
			return HL_EMU_REG_MON_ADDRL +
			       off / (4 * HL_SM_NUM_MONITORS);
		}
	}
	for (k = 0; k < sm->num_qms; k++)
		if (addr >= sm->qm[k].base &&
		    addr < sm->qm[k].base + HL_EMU_QM_SIZE)
			return hl_emu_qm_decode(sm, k, addr - sm->qm[k].base,
						idx);
	return HL_EMU_REG_NONE;
}

/* Where a monitor's payload may land: a SOB or a fence counter */
static bool hl_emu_sync_payload_ok(const struct hl_emu_sync *sm, u64 addr)
{
	enum hl_emu_sync_reg reg;
	u32 idx;

	reg = hl_emu_sync_decode(sm, addr, &idx);
	return reg == HL_EMU_REG_SOB || reg == HL_EMU_REG_FENCE;
}

/**
 * hl_emu_sync_is_reg - whether @addr is a register of the sync manager, a
 * fence register or a message base (MSG_LONG writes it instead of
 * memory).
 * @emu: the device.
 * @addr: a MSG_LONG's address.
 *
 * Return: true for a register.
 */
bool hl_emu_sync_is_reg(struct hl_emu_device *emu, u64 addr)
{
	u32 idx;

	return hl_emu_sync_decode(emu->sync, addr, &idx) != HL_EMU_REG_NONE;
}

/* Whether monitor @m (of block @blk) holds: it watches its block's SOBs */
static bool hl_emu_mon_holds(struct hl_emu_sync *sm, const struct hl_emu_mon *m,
			     u32 blk)
{
	const u16 *sob = &sm->sob[blk * HL_SM_NUM_SOBS];
	u32 gid = m->arm & HL_SM_MON_ARM_GID_MASK;
	u32 mask = (m->arm & HL_SM_MON_ARM_MASK_MASK) >> HL_SM_MON_ARM_MASK_SHIFT;
	u32 target = m->arm >> HL_SM_MON_ARM_VAL_SHIFT;
	bool eq = m->arm & HL_SM_MON_ARM_EQ;
	u32 i;

	for (i = 0; i < 8; i++) {
		u16 v = sob[gid * 8 + i];

		if (mask & BIT(i))
			continue;
		if (eq ? v != target : v < target)
			return false;
	}
	return true;
}

/* A SOB write: bit 31 adds, else sets; returns false for reserved bits */
static bool hl_emu_sob_write(struct hl_emu_sync *sm, u32 idx, u32 value)
{
	if (value & ~(HL_SM_SOB_INC | HL_SM_SOB_VAL_MASK))
		return false;
	if (value & HL_SM_SOB_INC)
		sm->sob[idx] = (sm->sob[idx] + value) & HL_SM_SOB_VAL_MASK;
	else
		sm->sob[idx] = value;
	return true;
}

/*
 * Fire every armed monitor whose condition holds, until none does (a
 * payload that writes a SOB may make another hold). Each pass disarms at
 * least one monitor, so this ends. Returns whether a fence counter moved.
 */
static bool hl_emu_sync_eval(struct hl_emu_sync *sm)
{
	bool fired, woke = false;
	enum hl_emu_sync_reg reg;
	u32 i, idx;

	lockdep_assert_held(&sm->lock);
	do {
		fired = false;
		for (i = 0; i < HL_EMU_SM_NUM_MONS; i++) {
			struct hl_emu_mon *m = &sm->mon[i];

			if (!m->armed ||
			    !hl_emu_mon_holds(sm, m, i / HL_SM_NUM_MONITORS))
				continue;
			m->armed = false;
			fired = true;
			reg = hl_emu_sync_decode(sm, m->addr, &idx);
			if (reg == HL_EMU_REG_SOB &&
			    hl_emu_sob_write(sm, idx, m->data))
				continue;
			if (reg == HL_EMU_REG_FENCE) {
				sm->fence[idx / HL_QM_FENCE_NUM]
					 [idx % HL_QM_FENCE_NUM] += m->data;
				woke = true;
				continue;
			}
			/* Aimed elsewhere after the arm: nothing is written */
			sm->dropped++;
		}
	} while (fired);
	return woke;
}

/**
 * hl_emu_sync_write - an engine's 32-bit write to a sync register.
 * @emu: the device.
 * @addr: the register (hl_emu_sync_is_reg()).
 * @value: the value.
 *
 * Return: 0, or -EINVAL for a malformed write: reserved bits of a SOB
 * write, or an arm whose payload aims outside the SOBs and fence
 * registers or that watches no SOB (the monitor stays disarmed).
 */
int hl_emu_sync_write(struct hl_emu_device *emu, u64 addr, u32 value)
{
	struct hl_emu_sync *sm = emu->sync;
	enum hl_emu_sync_reg reg;
	struct hl_emu_mon *m;
	bool woke = false;
	u32 idx = 0;
	u64 *base;
	int rc = 0;

	reg = hl_emu_sync_decode(sm, addr, &idx);
	spin_lock(&sm->lock);
	m = &sm->mon[idx % HL_EMU_SM_NUM_MONS];
	switch (reg) {
	case HL_EMU_REG_SOB:
		if (!hl_emu_sob_write(sm, idx, value))
			rc = -EINVAL;
		break;
	case HL_EMU_REG_MON_ADDRL:
		m->addr = (m->addr & ~0xffffffffull) | value;
		break;
	case HL_EMU_REG_MON_ADDRH:
		m->addr = (m->addr & 0xffffffffull) | (u64)value << 32;
		break;
	case HL_EMU_REG_MON_DATA:
		m->data = value;
		break;
	case HL_EMU_REG_MON_ARM:
		m->armed = false;
		if (!hl_emu_sync_payload_ok(sm, m->addr) ||
		    (value & HL_SM_MON_ARM_MASK_MASK) == HL_SM_MON_ARM_MASK_MASK) {
			rc = -EINVAL;
			break;
		}
		m->arm = value;
		m->armed = true;
		break;
	case HL_EMU_REG_FENCE:
		sm->fence[idx / HL_QM_FENCE_NUM][idx % HL_QM_FENCE_NUM] += value;
		woke = true;
		break;
	case HL_EMU_REG_MSG_BASE_LO:
		base = &sm->msg_base[idx / HL_QM_MSG_BASE_NUM]
				    [idx % HL_QM_MSG_BASE_NUM];
		*base = (*base & ~0xffffffffull) | value;
		break;
	case HL_EMU_REG_MSG_BASE_HI:
		base = &sm->msg_base[idx / HL_QM_MSG_BASE_NUM]
				    [idx % HL_QM_MSG_BASE_NUM];
		*base = (*base & 0xffffffffull) | (u64)value << 32;
		break;
	case HL_EMU_REG_ARB_CFG:
		sm->qm[idx].arb_cfg = value;
		break;
	case HL_EMU_REG_ARB_WRR:
		sm->qm[idx / HL_QM_FENCE_STREAMS]
			.arb_wrr[idx % HL_QM_FENCE_STREAMS] = value;
		break;
	case HL_EMU_REG_ARB_QUIET:
		sm->qm[idx].arb_quiet = value;
		break;
	default:
		rc = -EINVAL;
		break;
	}
	if (!rc && hl_emu_sync_eval(sm))
		woke = true;
	spin_unlock(&sm->lock);

	if (woke)
		wake_up_all(&sm->wq);
	if (rc)
		hl_dbg(emu->hdev, EMU, "sync write 0x%x to 0x%llx refused\n",
		       value, addr);
	return rc;
}

/**
 * hl_emu_sync_read - read a sync manager or fence register (debugfs's
 * data32, emu_debugfs.c; no engine reads them).
 * @emu: the device.
 * @addr: the register.
 * @val: receives its value: a SOB's count, a monitor's payload address
 *	half, payload data or last arm value, a fence counter.
 *
 * Return: 0, or -EINVAL when @addr is no modelled register.
 */
int hl_emu_sync_read(struct hl_emu_device *emu, u64 addr, u32 *val)
{
	struct hl_emu_sync *sm = emu->sync;
	enum hl_emu_sync_reg reg;
	struct hl_emu_mon *m;
	u32 idx = 0;

	reg = hl_emu_sync_decode(sm, addr, &idx);
	if (reg == HL_EMU_REG_NONE)
		return -EINVAL;
	spin_lock(&sm->lock);
	m = &sm->mon[idx % HL_EMU_SM_NUM_MONS];
	switch (reg) {
	case HL_EMU_REG_SOB:
		*val = sm->sob[idx];
		break;
	case HL_EMU_REG_MON_ADDRL:
		*val = lower_32_bits(m->addr);
		break;
	case HL_EMU_REG_MON_ADDRH:
		*val = upper_32_bits(m->addr);
		break;
	case HL_EMU_REG_MON_DATA:
		*val = m->data;
		break;
	case HL_EMU_REG_MON_ARM:
		*val = m->arm;
		break;
	case HL_EMU_REG_MSG_BASE_LO:
		*val = lower_32_bits(sm->msg_base[idx / HL_QM_MSG_BASE_NUM]
						 [idx % HL_QM_MSG_BASE_NUM]);
		break;
	case HL_EMU_REG_MSG_BASE_HI:
		*val = upper_32_bits(sm->msg_base[idx / HL_QM_MSG_BASE_NUM]
						 [idx % HL_QM_MSG_BASE_NUM]);
		break;
	case HL_EMU_REG_ARB_CFG:
		*val = sm->qm[idx].arb_cfg;
		break;
	case HL_EMU_REG_ARB_WRR:
		*val = sm->qm[idx / HL_QM_FENCE_STREAMS]
			.arb_wrr[idx % HL_QM_FENCE_STREAMS];
		break;
	case HL_EMU_REG_ARB_QUIET:
		*val = sm->qm[idx].arb_quiet;
		break;
	default:
		*val = sm->fence[idx / HL_QM_FENCE_NUM][idx % HL_QM_FENCE_NUM];
		break;
	}
	spin_unlock(&sm->lock);
	return 0;
}

/* Whether counter @id of @queue reached @target (lockless peek) */
static bool hl_emu_sync_fence_ready(struct hl_emu_sync *sm, u32 queue, u32 id,
				    u32 target)
{
	return READ_ONCE(sm->fence[queue][id]) >= target;
}

/**
 * hl_emu_sync_slot - the fence and message-base slot a queue's packets
 * use.
 * @emu: the device.
 * @queue: the queue.
 * @lower_cp: the packets of a CP_DMA'd CB, which GAUDI's lower CP runs:
 *	its queue manager's stream 4 (a queue with no queue manager keeps its
 *	own).
 *
 * Return: the slot, for hl_emu_sync_fence_*() and hl_emu_sync_msg_base().
 */
u32 hl_emu_sync_slot(struct hl_emu_device *emu, u32 queue, bool lower_cp)
{
	struct hl_emu_sync *sm = emu->sync;

	if (!lower_cp || sm->queue_qm[queue] < 0)
		return queue;
	return sm->num_queues + sm->queue_qm[queue];
}

/**
 * hl_emu_sync_fence_addr - the address of a fence counter.
 * @emu: the device.
 * @slot: a queue, or a lower CP's slot (hl_emu_sync_slot()).
 * @id: the fence id, below HL_QM_FENCE_NUM.
 *
 * Return: its register's address, or 0 for a queue with no queue manager.
 */
u64 hl_emu_sync_fence_addr(struct hl_emu_device *emu, u32 slot, u32 id)
{
	struct hl_emu_sync *sm = emu->sync;
	u32 k, stream;

	if (slot < sm->num_queues && sm->queue_qm[slot] < 0)
		return 0;
	if (slot >= sm->num_queues) {
		k = slot - sm->num_queues;
		stream = HL_EMU_QM_LOWER_CP;
	} else {
		k = sm->queue_qm[slot];
		stream = slot - sm->qm[k].first_queue;
	}
	return sm->qm[k].base + HL_EMU_QM_FENCE +
	       HL_EMU_QM_FENCE_STRIDE * id + 4 * stream;
}

/**
 * hl_emu_sync_engine_block - the executing engine's register block
 * (WREG_32's offsets): its queue manager's base - 0x8000, as GAUDI's DMA,
 * MME and TPC blocks (GAUDI's NIC queue managers are 0x2000 apart: theirs
 * is the queue manager's base).
 * @emu: the device.
 * @queue: the queue.
 *
 * Return: the block's address, or 0 for a queue with no queue manager
 * (nothing is modelled there).
 */
u64 hl_emu_sync_engine_block(struct hl_emu_device *emu, u32 queue)
{
	struct hl_emu_sync *sm = emu->sync;
	u64 base;

	if (sm->queue_qm[queue] < 0)
		return 0;
	base = sm->qm[sm->queue_qm[queue]].base;
	if (sm->gaudi && queue >= GAUDI_QUEUE_ID_NIC_0_0)
		return base;
	return base - HL_EMU_QM_ENGINE_OFF;
}

/* The DMA core of @queue's engine (its queue manager's index), or -1 */
static s32 hl_emu_sync_dma_core_qm(struct hl_emu_device *emu, u32 queue)
{
	u64 block = hl_emu_sync_engine_block(emu, queue);

	if (!emu->sync->gaudi || block < HL_EMU_DMA_CORE_BASE ||
	    block >= HL_EMU_DMA_CORE_BASE +
		     HL_EMU_DMA_CORES * HL_EMU_DMA_CORE_STRIDE ||
	    (block - HL_EMU_DMA_CORE_BASE) % HL_EMU_DMA_CORE_STRIDE)
		return -1;
	return emu->sync->queue_qm[queue];
}

/* A modelled register of a DMA core: its offset in the core's block */
static bool hl_emu_dma_core_is_reg(u32 off)
{
	return IS_ALIGNED(off, 4) &&
	       ((off >= HL_EMU_DMA_CORE_SRC_BASE_LO &&
		 off <= HL_EMU_DMA_CORE_DST_BASE_HI) ||
		(off >= HL_EMU_DMA_CORE_SRC_TSIZE_1 &&
		 off <= HL_EMU_DMA_CORE_SRC_TSIZE_0) ||
		(off >= HL_EMU_DMA_CORE_DST_TSIZE_1 &&
		 off < HL_EMU_DMA_CORE_REGS_END));
}

/**
 * hl_emu_sync_is_dma_core_reg - whether @addr is a modelled register of
 * the DMA core of @queue's engine (GAUDI's DMA 0..7 only).
 * @emu: the device.
 * @queue: the queue.
 * @addr: an address.
 *
 * Return: true when it is.
 */
bool hl_emu_sync_is_dma_core_reg(struct hl_emu_device *emu, u32 queue,
				 u64 addr)
{
	u64 block = hl_emu_sync_engine_block(emu, queue);

	return hl_emu_sync_dma_core_qm(emu, queue) >= 0 && addr >= block &&
	       addr - block < HL_EMU_DMA_CORE_REGS_END &&
	       hl_emu_dma_core_is_reg(addr - block);
}

/**
 * hl_emu_sync_dma_core_write - a write of @queue's engine to a register of
 * its DMA core (GAUDI's DMA 0..7 only).
 * @emu: the device.
 * @queue: the queue that writes (WREG_32, WREG_BULK).
 * @addr: the register's address.
 * @value: the value.
 * @regs: receives the core's registers (HL_EMU_DMA_CORE_REGS_END bytes,
 *	from the block's base) when @addr is COMMIT.
 *
 * Return: 1 @addr is COMMIT (the caller runs the transfer), 0 written,
 * -ENOENT not a modelled register of @queue's DMA core.
 */
int hl_emu_sync_dma_core_write(struct hl_emu_device *emu, u32 queue,
			       u64 addr, u32 value, u32 *regs)
{
	struct hl_emu_sync *sm = emu->sync;
	s32 k = hl_emu_sync_dma_core_qm(emu, queue);
	u64 off;

	if (!hl_emu_sync_is_dma_core_reg(emu, queue, addr))
		return -ENOENT;
	off = addr - hl_emu_sync_engine_block(emu, queue);

	spin_lock(&sm->lock);
	sm->qm[k].dma_core[off / 4] = value;
	if (off == HL_EMU_DMA_CORE_COMMIT)
		memcpy(regs, sm->qm[k].dma_core, sizeof(sm->qm[k].dma_core));
	spin_unlock(&sm->lock);
	return off == HL_EMU_DMA_CORE_COMMIT;
}

/**
 * hl_emu_sync_own_qm - whether @addr is in @queue's queue manager's
 * registers (the only ones WREG_32 of @queue may write: GAUDI's NIC queue
 * managers lie within one another's 64 KiB window).
 * @emu: the device.
 * @queue: the queue.
 * @addr: an address.
 *
 * Return: true when it is.
 */
bool hl_emu_sync_own_qm(struct hl_emu_device *emu, u32 queue, u64 addr)
{
	struct hl_emu_sync *sm = emu->sync;
	u64 base;

	if (sm->queue_qm[queue] < 0)
		return false;
	base = sm->qm[sm->queue_qm[queue]].base;
	return addr >= base && addr < base + HL_EMU_QM_SIZE;
}

/**
 * hl_emu_sync_msg_base - a queue's message base (MSG_SHORT).
 * @emu: the device.
 * @queue: the queue, or a lower CP's slot (hl_emu_sync_slot()).
 * @base: the base, below HL_QM_MSG_BASE_NUM.
 *
 * Return: the address the base register holds.
 */
u64 hl_emu_sync_msg_base(struct hl_emu_device *emu, u32 queue, u32 base)
{
	struct hl_emu_sync *sm = emu->sync;
	u64 addr;

	spin_lock(&sm->lock);
	addr = sm->msg_base[queue][base];
	spin_unlock(&sm->lock);
	return addr;
}

/*
 * The queue managers' arbiters (GAUDI; ARB_POINT, emu_gaudi_pkt.c).
 * With ARB_CFG_0's EN set and its TYPE priority (0), a stream's ARB_POINT
 * without rls asks for the grant with its priority and waits for it, one
 * with rls gives it back; the packets between run while the stream holds
 * it. The grant goes to the asking stream of the highest priority (on a
 * tie, the lowest stream) once the arbiter's quiet period is over. On a
 * GAUDI that is ARB_MST_QUIET_PER cycles after the last grant, in which
 * the other streams may ask; here it lasts until every other stream of the
 * queue manager asks too, waits in a FENCE whose counter is short, or has
 * no job, and at most HL_EMU_ARB_QUIET_MAX from the later of the ask and
 * the grant's last release (a stream busy with other work does not hold
 * the grant back for longer; one that waited long for a held grant does
 * not skip the quiet period when it is given back). Not modelled:
 * WRR arbitration (TYPE 1: ARB_POINT has no effect, as with the arbiter
 * off), ARB_CFG_0's MASK and IS_MASTER; a stream with no ARB_POINT runs
 * as without an arbiter; the lower CP's ARB_POINTs are its stream's. A job
 * that ends holding the grant, or waiting for it, gives it up
 * (hl_emu_sync_arb_release()).
 */
#define HL_EMU_QM_ARB_CFG_TYPE_WRR	BIT(0)
#define HL_EMU_QM_ARB_CFG_EN		BIT(8)
#define HL_EMU_ARB_QUIET_MAX		(2 * HZ)

/* The queue manager and stream of @queue for the arbiter, or -1 */
static int hl_emu_sync_arb_stream(struct hl_emu_sync *sm, u32 queue,
				  struct hl_emu_qm **qm)
{
	u32 s;

	if (!sm->gaudi || queue >= sm->num_queues || sm->queue_qm[queue] < 0)
		return -1;
	*qm = &sm->qm[sm->queue_qm[queue]];
	s = queue - (*qm)->first_queue;
	return s < HL_QM_FENCE_STREAMS ? s : -1;
}

/* The streams of @qm with a job, running or pending (no lock held) */
static u32 hl_emu_sync_arb_busy(struct hl_emu_device *emu,
				const struct hl_emu_qm *qm)
{
	u32 s, busy = 0;

	for (s = 0; s < HL_QM_FENCE_STREAMS; s++) {
		struct hl_emu_queue *q = &emu->queues[qm->first_queue + s];

		spin_lock(&q->lock);
		if (q->running || !list_empty(&q->pending))
			busy |= BIT(s);
		spin_unlock(&q->lock);
	}
	return busy;
}

/* Whether the quiet period of @qm is over: no stream may still ask */
static bool hl_emu_sync_arb_quiet(struct hl_emu_sync *sm,
				  const struct hl_emu_qm *qm, u32 busy)
{
	const struct hl_emu_fwait *fw;
	u32 s;

	lockdep_assert_held(&sm->lock);
	for (s = 0; s < HL_QM_FENCE_STREAMS; s++) {
		if (!(busy & BIT(s)) || (qm->arb_req & BIT(s)))
			continue;
		fw = &sm->fwait[qm->first_queue + s];
		if (fw->on && sm->fence[fw->slot][fw->id] < fw->target)
			continue;
		return false;
	}
	return true;
}

/* The asking stream the grant goes to: the highest priority, then lowest */
static int hl_emu_sync_arb_best(const struct hl_emu_qm *qm)
{
	int s, best = -1;

	for (s = 0; s < HL_QM_FENCE_STREAMS; s++)
		if ((qm->arb_req & BIT(s)) &&
		    (best < 0 || qm->arb_prio[s] > qm->arb_prio[best]))
			best = s;
	return best;
}

/**
 * hl_emu_sync_fence_take - FENCE: pass when counter @id of @slot reached
 * @target, subtracting @dec.
 * @emu: the device.
 * @queue: the executing queue.
 * @slot: the counters' slot (hl_emu_sync_slot()).
 * @id: fence id, below HL_QM_FENCE_NUM.
 * @target: the target.
 * @dec: what to subtract when passing (down to 0).
 *
 * Until the FENCE passes (or hl_emu_sync_fence_abort()) @queue counts as
 * waiting in it, for the arbiter of its queue manager; in the same step as
 * the pass, so that no arbiter sees it waiting once it runs on.
 *
 * Return: whether the fence passed.
 */
bool hl_emu_sync_fence_take(struct hl_emu_device *emu, u32 queue, u32 slot,
			    u32 id, u32 target, u32 dec)
{
	struct hl_emu_sync *sm = emu->sync;
	struct hl_emu_fwait *fw = &sm->fwait[queue];
	struct hl_emu_qm *qm;
	bool pass, asked = false;

	spin_lock(&sm->lock);
	pass = sm->fence[slot][id] >= target;
	if (pass) {
		sm->fence[slot][id] -= min(dec, sm->fence[slot][id]);
		fw->on = false;
	} else if (!fw->on) {
		*fw = (struct hl_emu_fwait){
			.on = true, .slot = slot, .id = id, .target = target,
		};
		/* An ARB_POINT of the queue manager may wait for this */
		if (hl_emu_sync_arb_stream(sm, queue, &qm) >= 0 &&
		    qm->arb_req) {
			sm->arb_gen++;
			asked = true;
		}
	}
	spin_unlock(&sm->lock);

	if (asked)
		wake_up_all(&sm->wq);
	return pass;
}

/**
 * hl_emu_sync_fence_wait - sleep until counter @id of @queue may have
 * reached @target, the device stops, or @timeout jiffies pass.
 * @emu: the device.
 * @queue: the queue.
 * @id: fence id.
 * @target: the target.
 * @timeout: longest sleep, in jiffies.
 *
 * Return: what wait_event_timeout() returns.
 */
int hl_emu_sync_fence_wait(struct hl_emu_device *emu, u32 queue, u32 id,
			   u32 target, long timeout)
{
	struct hl_emu_sync *sm = emu->sync;

	return wait_event_timeout(sm->wq,
				  hl_emu_sync_fence_ready(sm, queue, id, target) ||
				  READ_ONCE(emu->stopped), timeout);
}

/**
 * hl_emu_sync_fence_abort - a FENCE gave up (its job failed): take what
 * reached its counter meanwhile and disarm every monitor aimed at the
 * counter, so that neither a fire that landed after the FENCE's last look
 * nor a late one passes a later FENCE of the queue; the executing queue
 * waits in it no more.
 * @emu: the device.
 * @queue: the executing queue.
 * @slot: the counters' slot.
 * @id: fence id.
 * @target: the FENCE's target.
 * @dec: what the FENCE subtracts when it passes.
 *
 * One step under the lock: a fire lands either before it (and is taken, as
 * hl_emu_sync_fence_take() would have) or never.
 */
void hl_emu_sync_fence_abort(struct hl_emu_device *emu, u32 queue, u32 slot,
			     u32 id, u32 target, u32 dec)
{
	struct hl_emu_sync *sm = emu->sync;
	u64 addr = hl_emu_sync_fence_addr(emu, slot, id);
	u32 i;

	spin_lock(&sm->lock);
	sm->fwait[queue].on = false;
	if (sm->fence[slot][id] >= target)
		sm->fence[slot][id] -= min(dec, sm->fence[slot][id]);
	for (i = 0; i < HL_EMU_SM_NUM_MONS; i++)
		if (sm->mon[i].armed && sm->mon[i].addr == addr)
			sm->mon[i].armed = false;
	spin_unlock(&sm->lock);
}

/**
 * hl_emu_sync_arb_acquire - ARB_POINT without rls: ask for the grant of
 * the arbiter of @queue's queue manager, and take it when it is @queue's.
 * @emu: the device.
 * @queue: the executing queue.
 * @prio: the packet's priority.
 * @asked: when (jiffies) the ARB_POINT asked first: the quiet period is
 *	over whatever the other streams do HL_EMU_ARB_QUIET_MAX after it, or
 *	after the grant's last release if that came later.
 * @gen: receives the arbiters' generation, for hl_emu_sync_arb_wait().
 *
 * Return: whether @queue holds the grant (or the arbiter is off, or
 * arbitrates by weight, or the queue has none): it may go on.
 */
bool hl_emu_sync_arb_acquire(struct hl_emu_device *emu, u32 queue, u32 prio,
			     unsigned long asked, u32 *gen)
{
	struct hl_emu_sync *sm = emu->sync;
	struct hl_emu_qm *qm;
	bool granted = true, changed = false, force;
	u32 busy;
	int s;

	s = hl_emu_sync_arb_stream(sm, queue, &qm);
	if (s < 0)
		return true;
	busy = hl_emu_sync_arb_busy(emu, qm);

	spin_lock(&sm->lock);
	if ((qm->arb_cfg & (HL_EMU_QM_ARB_CFG_EN | HL_EMU_QM_ARB_CFG_TYPE_WRR)) !=
	    HL_EMU_QM_ARB_CFG_EN) {
		qm->arb_req &= ~BIT(s);
	} else if (!(qm->arb_grant & BIT(s))) {
		if (!(qm->arb_req & BIT(s)) || qm->arb_prio[s] != prio) {
			qm->arb_req |= BIT(s);
			qm->arb_prio[s] = prio;
			changed = true;
		}
		if (time_after(qm->arb_freed, asked))
			asked = qm->arb_freed;
		force = time_after(jiffies, asked + HL_EMU_ARB_QUIET_MAX);
		granted = !qm->arb_grant && hl_emu_sync_arb_best(qm) == s &&
			  (force || hl_emu_sync_arb_quiet(sm, qm, busy));
		if (granted) {
			qm->arb_grant = BIT(s);
			qm->arb_req &= ~BIT(s);
			changed = true;
		}
	}
	if (changed)
		sm->arb_gen++;
	*gen = sm->arb_gen;
	spin_unlock(&sm->lock);

	if (changed)
		wake_up_all(&sm->wq);
	return granted;
}

/**
 * hl_emu_sync_arb_release - ARB_POINT with rls, or the end of a job of
 * @queue: the grant it holds and its request are given up (a job that
 * ends holding or waiting for the grant keeps no other stream waiting).
 * @emu: the device.
 * @queue: the executing queue.
 */
void hl_emu_sync_arb_release(struct hl_emu_device *emu, u32 queue)
{
	struct hl_emu_sync *sm = emu->sync;
	struct hl_emu_qm *qm;
	bool changed;
	int s;

	s = hl_emu_sync_arb_stream(sm, queue, &qm);
	if (s < 0)
		return;
	spin_lock(&sm->lock);
	changed = (qm->arb_grant | qm->arb_req) & BIT(s);
	if (qm->arb_grant & BIT(s))
		qm->arb_freed = jiffies;
	qm->arb_grant &= ~BIT(s);
	qm->arb_req &= ~BIT(s);
	if (changed)
		sm->arb_gen++;
	spin_unlock(&sm->lock);

	if (changed)
		wake_up_all(&sm->wq);
}

/**
 * hl_emu_sync_arb_wait - sleep until an arbiter changed since @gen, the
 * device stops, or @timeout jiffies pass (the quiet period also ends when
 * a stream's job ends, which is not signalled: the caller polls).
 * @emu: the device.
 * @gen: what hl_emu_sync_arb_acquire() gave.
 * @timeout: longest sleep, in jiffies.
 */
void hl_emu_sync_arb_wait(struct hl_emu_device *emu, u32 gen, long timeout)
{
	struct hl_emu_sync *sm = emu->sync;

	wait_event_timeout(sm->wq,
			   READ_ONCE(sm->arb_gen) != gen || READ_ONCE(emu->stopped),
			   timeout);
}

/**
 * hl_emu_sync_wake - wake every FENCE waiter (the device stops).
 * @emu: the device.
 */
void hl_emu_sync_wake(struct hl_emu_device *emu)
{
	wake_up_all(&emu->sync->wq);
}

/**
 * hl_emu_sync_reset - zero every SOB and monitor (of every block), fence
 * counter, arbiter and DMA core register, and set the message bases (the lower CPs'
 * too) to what GAUDI's driver programs (E_N monitors and SOBs, W_S
 * monitors and SOBs): the device's next owner starts from scratch.
 * @emu: the device; no job of the previous owner runs.
 */
void hl_emu_sync_reset(struct hl_emu_device *emu)
{
	static const u64 bases[HL_QM_MSG_BASE_NUM] = {
		HL_SM_MON_PAY_ADDRL_0, HL_SM_SOB_OBJ_0,
		HL_SM_WS_MON_PAY_ADDRL_0, HL_SM_WS_SOB_OBJ_0,
	};
	struct hl_emu_sync *sm = emu->sync;
	u32 q, k;

	spin_lock(&sm->lock);
	memset(sm->sob, 0, sizeof(sm->sob));
	memset(sm->mon, 0, sizeof(sm->mon));
	memset(sm->fence, 0, (sm->num_queues + sm->num_qms) *
			     sizeof(sm->fence[0]));
	for (q = 0; q < sm->num_queues + sm->num_qms; q++)
		memcpy(sm->msg_base[q], bases, sizeof(bases));
	memset(sm->fwait, 0, sm->num_queues * sizeof(*sm->fwait));
	for (k = 0; k < sm->num_qms; k++) {
		sm->qm[k].arb_cfg = 0;
		sm->qm[k].arb_quiet = 0;
		memset(sm->qm[k].arb_wrr, 0, sizeof(sm->qm[k].arb_wrr));
		sm->qm[k].arb_grant = 0;
		sm->qm[k].arb_req = 0;
		sm->qm[k].arb_freed = jiffies;
		memset(sm->qm[k].dma_core, 0, sizeof(sm->qm[k].dma_core));
	}
	spin_unlock(&sm->lock);
}

/*
 * The driver's SOBs and monitors: two signal SOBs and a wait monitor per
 * queue, and under asic=gaudi the collective masters' SOB groups. They are
 * in the driver's block: under asic=emu E_N (the only one its packets
 * name), SOBs 0-7 and monitors 0-3 on its four queues; under asic=gaudi
 * W_S, as upstream's GAUDI driver has its sync streams and collectives
 * there (E_N is left whole to user space): the external queues' signal
 * SOBs where upstream's are, 128 + 2 * queue + idx, between the collective
 * groups (hl_emu_sync_coll_sob()), and queue q's wait monitor q.
 */
#define HL_EMU_GAUDI_SIG_FIRST	128

/* The register of the driver's block at E_N address @en_addr */
static u64 hl_emu_sync_driver_reg(const struct hl_emu_sync *sm, u64 en_addr)
{
	u32 blk = sm->gaudi ? HL_EMU_SM_W_S : HL_EMU_SM_E_N;

	return en_addr - HL_EMU_SM_E_N_BASE + hl_emu_sm_block_base[blk];
}

static u32 hl_emu_sync_driver_sob(const struct hl_emu_sync *sm, u32 queue,
				  u32 idx)
{
	return (sm->gaudi ? HL_EMU_GAUDI_SIG_FIRST : 0) + queue * 2 + idx;
}

static u32 hl_emu_sync_driver_mon(u32 queue)
{
	return queue;
}

/* The address of the driver's SOB @sob (of its block) */
static u64 hl_emu_sync_driver_sob_addr(const struct hl_emu_sync *sm, u32 sob)
{
	return hl_emu_sync_driver_reg(sm, HL_SM_SOB_ADDR(sob));
}

/* The packets of a kernel CB as the engine reads them: little-endian */
struct hl_emu_kpkt_msg_long {
	__le32 ctl;
	__le32 value;
	__le64 addr;
};

struct hl_emu_kpkt_fence {
	__le32 ctl;
	__le32 cfg;
};

static_assert(sizeof(struct hl_emu_kpkt_msg_long) ==
	      sizeof(struct hl_pkt_msg_long));
static_assert(sizeof(struct hl_emu_kpkt_fence) == sizeof(struct hl_pkt_fence));
/*
 * The longest kernel CB: a collective wait's slave, a WAIT
 * (hl_emu_sync_gen_wait_cb()) and a SOB increment
 */
static_assert(6 * sizeof(struct hl_emu_kpkt_msg_long) +
	      2 * sizeof(struct hl_emu_kpkt_fence) <= HL_CS_KCB_SIZE);

/* A MSG_LONG packet in a kernel CB, in the queues' format */
static u32 hl_emu_sync_msg(void *buf, u64 addr, u32 value)
{
	struct hl_emu_kpkt_msg_long pkt = {
		.ctl = cpu_to_le32((u32)HL_PKT_MSG_LONG << HL_PKT_OPCODE_SHIFT),
		.value = cpu_to_le32(value),
		.addr = cpu_to_le64(addr),
	};

	if (hl_emu_gaudi_format())
		return hl_emu_gaudi_kpkt_msg_long(buf, addr, value);
	memcpy(buf, &pkt, sizeof(pkt));
	return sizeof(pkt);
}

/* A FENCE packet in a kernel CB, in the queues' format */
static u32 hl_emu_sync_fence(void *buf, u32 cfg)
{
	struct hl_emu_kpkt_fence pkt = {
		.ctl = cpu_to_le32((u32)HL_PKT_FENCE << HL_PKT_OPCODE_SHIFT),
		.cfg = cpu_to_le32(cfg),
	};

	if (hl_emu_gaudi_format())
		return hl_emu_gaudi_kpkt_fence(buf, cfg);
	memcpy(buf, &pkt, sizeof(pkt));
	return sizeof(pkt);
}

/**
 * hl_emu_sync_gen_signal_cb - asic_funcs->gen_signal_cb.
 * @hdev: the device.
 * @buf: the kernel CB, HL_CS_KCB_SIZE bytes.
 * @queue: the signalling queue.
 * @idx: which of its two signal SOBs.
 * @value: the value the SOB reaches.
 * @set: set the SOB to @value rather than add 1.
 * @sob_offset: receives the SOB's offset from HL_CFG_BASE.
 *
 * Return: the size of the packets.
 */
u32 hl_emu_sync_gen_signal_cb(struct hl_device *hdev, void *buf, u32 queue,
			      u32 idx, u32 value, bool set, u32 *sob_offset)
{
	struct hl_emu_sync *sm = to_emu(hdev)->sync;
	u64 addr = hl_emu_sync_driver_sob_addr(sm, hl_emu_sync_driver_sob(sm, queue,
									idx));
	u8 *p = buf;

	*sob_offset = addr - HL_CFG_BASE;
	if (!set)
		return hl_emu_sync_msg(p, addr, HL_SM_SOB_INC | 1);
	/*
	 * A switch: this SOB starts its round, then the other one is zeroed,
	 * in that order; a WAIT of this round first waits for the other at
	 * 0 (hl_emu_sync_gen_wait_cb()): this SOB's value from its previous
	 * round is never taken for this round's.
	 */
	p += hl_emu_sync_msg(p, addr, value);
	p += hl_emu_sync_msg(p, hl_emu_sync_driver_sob_addr(sm,
				hl_emu_sync_driver_sob(sm, queue, idx ^ 1)), 0);
	return p - (u8 *)buf;
}

/**
 * hl_emu_sync_encaps_sob - asic_funcs->encaps_sob.
 * @hdev: the device.
 * @queue: the queue.
 * @idx: which of its two signal SOBs.
 * @clear: set the SOB to 0 now (not through a queue).
 *
 * Return: the SOB's offset from HL_CFG_BASE (under asic=gaudi in the W_S
 * block, as upstream's: hl-thunk's tests take its id from the offset and
 * write it through message base 3).
 */
u32 hl_emu_sync_encaps_sob(struct hl_device *hdev, u32 queue, u32 idx,
			   bool clear)
{
	struct hl_emu_sync *sm = to_emu(hdev)->sync;
	u64 addr = hl_emu_sync_driver_sob_addr(sm, hl_emu_sync_driver_sob(sm, queue,
									idx));

	if (clear)
		hl_emu_sync_write(to_emu(hdev), addr, 0);
	return addr - HL_CFG_BASE;
}

/*
 * The packets that point driver monitor @mon's payload at @fence: a write
 * of 1 there when it fires (the arm follows, by the caller)
 */
static u32 hl_emu_sync_mon_payload(void *buf, const struct hl_emu_sync *sm,
				   u32 mon, u64 fence)
{
	u8 *p = buf;

	p += hl_emu_sync_msg(p, hl_emu_sync_driver_reg(sm,
				HL_SM_MON_PAY_ADDRL_ADDR(mon)),
			     lower_32_bits(fence));
	p += hl_emu_sync_msg(p, hl_emu_sync_driver_reg(sm,
				HL_SM_MON_PAY_ADDRH_ADDR(mon)),
			     upper_32_bits(fence));
	p += hl_emu_sync_msg(p, hl_emu_sync_driver_reg(sm,
				HL_SM_MON_PAY_DATA_ADDR(mon)), 1);
	return p - (u8 *)buf;
}

/**
 * hl_emu_sync_gen_wait_cb - asic_funcs->gen_wait_cb: arm the queue's wait
 * monitor on the signal queue's other SOB (== 0: the round of @idx has
 * begun, hl_emu_sync_gen_signal_cb()), FENCE, then arm it on the signal SOB
 * (>= @value), FENCE; its payload goes into the queue's fence 2 (as
 * upstream's GAUDI driver). A WAIT armed only after the next round began
 * times out (a SIGNAL 32767 signals old).
 * @hdev: the device.
 * @buf: the kernel CB, HL_CS_KCB_SIZE bytes.
 * @queue: the waiting queue.
 * @sig_queue: the signalling queue.
 * @idx: which of its signal SOBs.
 * @value: the value to wait for.
 *
 * Return: the size of the packets.
 */
u32 hl_emu_sync_gen_wait_cb(struct hl_device *hdev, void *buf, u32 queue,
			    u32 sig_queue, u32 idx, u32 value)
{
	struct hl_emu_sync *sm = to_emu(hdev)->sync;
	u32 sob = hl_emu_sync_driver_sob(sm, sig_queue, idx);
	u32 other = hl_emu_sync_driver_sob(sm, sig_queue, idx ^ 1);
	u32 mon = hl_emu_sync_driver_mon(queue);
	u64 fence = hl_emu_sync_fence_addr(to_emu(hdev), queue,
					   HL_EMU_WAIT_FENCE);
	u64 arm = hl_emu_sync_driver_reg(sm, HL_SM_MON_ARM_ADDR(mon));
	u32 cfg = HL_PKT_FENCE_CFG(HL_EMU_WAIT_FENCE, 1, 1);
	u8 *p = buf;

	p += hl_emu_sync_mon_payload(p, sm, mon, fence);
	p += hl_emu_sync_msg(p, arm,
			     HL_SM_MON_ARM(other / 8, 0xff & ~BIT(other % 8), 1,
					   0));
	p += hl_emu_sync_fence(p, cfg);
	p += hl_emu_sync_msg(p, arm,
			     HL_SM_MON_ARM(sob / 8, 0xff & ~BIT(sob % 8), 0,
					   value));
	p += hl_emu_sync_fence(p, cfg);
	return p - (u8 *)buf;
}

/*
 * Collective waits (asic=gaudi; docs/uapi.md, "Collective wait"). Every
 * external queue (DMA 0 and 1, each stream) is a collective master; its
 * slaves are the queues of the same stream of every NIC port's engine and
 * of the reduction engine the submission names (DMA 5 or TPC 7). Each
 * master has two groups of HL_EMU_COLL_GROUP_SOBS W_S SOBs (one per round
 * of values), in upstream's layout: NIC port p's slave adds to SOB p of
 * the group, the reduction engine's to SOB HL_EMU_COLL_ENGINE_SLOT; the
 * master's monitor watches the first eight, then the second eight.
 * Upstream's stream s has two groups, SOBs (2 * s + group) * 16, which its
 * DMA 0 and DMA 1 masters share; here DMA 0's masters have those, and DMA
 * 1's have two of their own each past the signal SOBs (from
 * HL_EMU_GAUDI_SIG_FIRST + 2 * HL_EMU_COLL_MASTERS).
 */
#define HL_EMU_COLL_MASTERS	(GAUDI_QUEUE_ID_DMA_1_3 + 1)
#define HL_EMU_COLL_GROUP_SOBS	16
#define HL_EMU_COLL_ENGINE_SLOT	10
#define HL_EMU_COLL_MAX_PORTS	10
/* Upstream's groups: two per stream, below the signal SOBs */
#define HL_EMU_COLL_LOW_GROUPS	(HL_EMU_GAUDI_SIG_FIRST / HL_EMU_COLL_GROUP_SOBS)
#define HL_EMU_COLL_HIGH_FIRST	(HL_EMU_GAUDI_SIG_FIRST + 2 * HL_EMU_COLL_MASTERS)
/* The first SOB past the driver's under asic=gaudi */
#define HL_EMU_COLL_END		(HL_EMU_COLL_HIGH_FIRST +			\
				 (2 * HL_EMU_COLL_MASTERS - HL_EMU_COLL_LOW_GROUPS) * \
				 HL_EMU_COLL_GROUP_SOBS)

static_assert(HL_EMU_GAUDI_SIG_FIRST % HL_EMU_COLL_GROUP_SOBS == 0);
static_assert(HL_EMU_COLL_HIGH_FIRST % 8 == 0);

/* SOB @slot of group @group of collective master @master (a W_S SOB) */
static u32 hl_emu_sync_coll_sob(u32 master, u32 group, u32 slot)
{
	u32 g = master * 2 + group;

	if (g < HL_EMU_COLL_LOW_GROUPS)
		return g * HL_EMU_COLL_GROUP_SOBS + slot;
	return HL_EMU_COLL_HIGH_FIRST +
	       (g - HL_EMU_COLL_LOW_GROUPS) * HL_EMU_COLL_GROUP_SOBS + slot;
}

/* The group slot of slave queue @queue: its NIC port, or the engine's */
static u32 hl_emu_sync_coll_slot(u32 queue)
{
	if (queue >= GAUDI_QUEUE_ID_NIC_0_0)
		return (queue - GAUDI_QUEUE_ID_NIC_0_0) / 4;
	return HL_EMU_COLL_ENGINE_SLOT;
}

/**
 * hl_emu_sync_coll_queues - asic_funcs->coll_queues.
 * @hdev: the device.
 * @master: the queue the collective wait names.
 * @engine_id: the reduction engine: GAUDI_ENGINE_ID_DMA_5 or _TPC_7.
 * @queues: receives the master, then the slaves (HL_CS_COLL_MAX_JOBS).
 *
 * Return: the number of queues; -EOPNOTSUPP under asic=emu (no NIC or
 * reduction engine queues); -EINVAL when @master is no external queue,
 * @engine_id no reduction engine, or the device has no NIC port.
 */
int hl_emu_sync_coll_queues(struct hl_device *hdev, u32 master, u32 engine_id,
			    u32 *queues)
{
	struct hl_emu_device *emu = to_emu(hdev);
	u32 ports = min(hl_device_prop(hdev)->num_nic_ports,
			(u32)HL_EMU_COLL_MAX_PORTS);
	u32 stream = master % 4, n = 0, p;

	if (!emu->queue_type)
		return -EOPNOTSUPP;
	if (master >= HL_EMU_COLL_MASTERS ||
	    emu->queue_type[master] != HL_QUEUE_TYPE_EXT)
		return -EINVAL;
	if (engine_id != GAUDI_ENGINE_ID_DMA_5 &&
	    engine_id != GAUDI_ENGINE_ID_TPC_7)
		return -EINVAL;
	/* Upstream's: no collective without NIC ports */
	if (!ports)
		return -EINVAL;
	queues[n++] = master;
	for (p = 0; p < ports; p++)
		queues[n++] = GAUDI_QUEUE_ID_NIC_0_0 + 4 * p + stream;
	queues[n++] = (engine_id == GAUDI_ENGINE_ID_DMA_5 ?
		       GAUDI_QUEUE_ID_DMA_5_0 : GAUDI_QUEUE_ID_TPC_7_0) + stream;
	return n;
}

/**
 * hl_emu_sync_gen_coll_cb - asic_funcs->gen_coll_cb.
 * @hdev: the device.
 * @buf: the kernel CB, HL_CS_KCB_SIZE bytes.
 * @cw: the collective wait.
 * @job: 0, the master: its wait monitor on the first eight SOBs of its
 *	group (the slaves' among them), FENCE, then on the second eight,
 *	FENCE, each >= cw->value; else slave @job: a WAIT for the signal
 *	(hl_emu_sync_gen_wait_cb()), then +1 to its SOB of the group.
 *
 * Return: the size of the packets.
 */
u32 hl_emu_sync_gen_coll_cb(struct hl_device *hdev, void *buf,
			    const struct hl_coll_wait *cw, u32 job)
{
	struct hl_emu_sync *sm = to_emu(hdev)->sync;
	u32 master = cw->queues[0], queue = cw->queues[job];
	u32 base = hl_emu_sync_coll_sob(master, cw->group, 0);
	u32 cfg = HL_PKT_FENCE_CFG(HL_EMU_WAIT_FENCE, 1, 1);
	u64 fence = HL_QM_FENCE_RDATA(master, HL_EMU_WAIT_FENCE);
	u32 mon = hl_emu_sync_driver_mon(master);
	u64 arm = hl_emu_sync_driver_reg(sm, HL_SM_MON_ARM_ADDR(mon));
	u32 i, half, watch[2] = {};
	u8 *p = buf;

	if (job) {
		/* TEST ONLY: a slave that does not wait for the signal */
		if (!cw->early)
			p += hl_emu_sync_gen_wait_cb(hdev, p, queue,
						     cw->sig_queue,
						     cw->sig_idx,
						     cw->sig_value);
		p += hl_emu_sync_msg(p, hl_emu_sync_driver_sob_addr(sm, base +
					hl_emu_sync_coll_slot(queue)),
				     HL_SM_SOB_INC | 1);
		return p - (u8 *)buf;
	}

	for (i = 1; i < cw->num_jobs; i++) {
		u32 slot = hl_emu_sync_coll_slot(cw->queues[i]);

		watch[slot / 8] |= BIT(slot % 8);
	}
	p += hl_emu_sync_mon_payload(p, sm, mon, fence);
	for (half = 0; half < 2; half++) {
		if (!watch[half])
			continue;
		p += hl_emu_sync_msg(p, arm,
				     HL_SM_MON_ARM(base / 8 + half,
						   0xff & ~watch[half], 0,
						   cw->value));
		p += hl_emu_sync_fence(p, cfg);
	}
	return p - (u8 *)buf;
}

/**
 * hl_emu_sync_coll_clear - asic_funcs->coll_clear: zero SOB group @group
 * of collective master @master, now.
 * @hdev: the device.
 * @master: the master queue.
 * @group: 0 or 1.
 */
void hl_emu_sync_coll_clear(struct hl_device *hdev, u32 master, u32 group)
{
	struct hl_emu_device *emu = to_emu(hdev);
	u32 first = hl_emu_sync_coll_sob(master, group, 0), i;

	for (i = 0; i < HL_EMU_COLL_GROUP_SOBS; i++)
		hl_emu_sync_write(emu, hl_emu_sync_driver_sob_addr(emu->sync,
								   first + i),
				  0);
}

/**
 * hl_emu_sync_props - the sync manager's properties (early_init, after
 * hl_emu_sync_alloc()).
 * @emu: the device.
 * @prop: the device's properties.
 */
void hl_emu_sync_props(struct hl_emu_device *emu,
		       struct asic_fixed_properties *prop)
{
	u32 mons = ALIGN(hl_emu_sync_driver_mon(emu->num_queues), 8);
	u32 sobs = ALIGN(hl_emu_sync_driver_sob(emu->sync, emu->num_queues, 0),
			 8);
	u32 d;

	prop->num_sobs = HL_SM_NUM_SOBS;
	prop->num_monitors = HL_SM_NUM_MONITORS;
	/*
	 * The driver's, rounded up to a group of eight. asic=emu: its one
	 * block, answered for every dcore. asic=gaudi: W_S's (upstream's
	 * HL_GAUDI_WS_DCORE), the signal SOBs and collective groups; the
	 * other dcores' are all the user's (E_N's; upstream's answer, 0, for
	 * the two blocks not modelled)
	 */
	for (d = 0; d < HL_SM_NUM_DCORES; d++) {
		prop->first_available_sob[d] = emu->sync->gaudi ? 0 : sobs;
		prop->first_available_monitor[d] = emu->sync->gaudi ? 0 : mons;
	}
	if (emu->sync->gaudi) {
		prop->first_available_sob[HL_GAUDI_WS_DCORE] = HL_EMU_COLL_END;
		prop->first_available_monitor[HL_GAUDI_WS_DCORE] = mons;
	}
}

/* GAUDI's queue managers of four queues each, from DMA 2's (upstream's map) */
static const struct {
	u32 first_queue;
	u32 num;
	u64 base;
	u64 stride;
} hl_emu_gaudi_qm_runs[] = {
	/* DMA 0-1: the queues before GAUDI's CPU queue */
	{ GAUDI_QUEUE_ID_DMA_0_0, 2, HL_CFG_BASE + 0x508000, 0x20000 },
	{ GAUDI_QUEUE_ID_DMA_2_0, 6, HL_CFG_BASE + 0x548000, 0x20000 },
	/* MME 0 is GAUDI's north-west MME (MME2_QM), MME 1 its MME0_QM */
	{ GAUDI_QUEUE_ID_MME_0_0, 1, HL_CFG_BASE + 0x168000, 0 },
	{ GAUDI_QUEUE_ID_MME_1_0, 1, HL_CFG_BASE + 0x068000, 0 },
	{ GAUDI_QUEUE_ID_TPC_0_0, 8, HL_CFG_BASE + 0xe08000, 0x40000 },
	/* NIC n's two queue managers, QM0 and QM1, 0x2000 apart */
	{ GAUDI_QUEUE_ID_NIC_0_0, 10, HL_CFG_BASE + 0xce0000, 0 },
};

/* The queue managers: asic=emu's four queues each, or GAUDI's */
static int hl_emu_sync_qms(struct hl_emu_sync *sm)
{
	u32 r, i, k = 0, q;

	memset(sm->queue_qm, -1, sm->num_queues);
	if (!sm->gaudi) {
		for (k = 0; k < sm->num_qms; k++) {
			sm->qm[k].base = HL_QM_FENCE_RDATA_0 - HL_EMU_QM_FENCE +
					 k * HL_QM_FENCE_QM_STRIDE;
			sm->qm[k].first_queue = k * HL_QM_FENCE_STREAMS;
		}
		for (q = 0; q < sm->num_queues; q++)
			sm->queue_qm[q] = q / HL_QM_FENCE_STREAMS;
		return 0;
	}
	for (r = 0; r < ARRAY_SIZE(hl_emu_gaudi_qm_runs); r++) {
		for (i = 0; i < hl_emu_gaudi_qm_runs[r].num; i++, k++) {
			struct hl_emu_qm *qm = &sm->qm[k];

			qm->first_queue = hl_emu_gaudi_qm_runs[r].first_queue +
					  i * HL_QM_FENCE_STREAMS;
			qm->base = hl_emu_gaudi_qm_runs[r].base +
				   i * hl_emu_gaudi_qm_runs[r].stride;
			if (qm->first_queue >= GAUDI_QUEUE_ID_NIC_0_0)
				qm->base += (i / 2) * 0x40000 + (i % 2) * 0x2000;
			if (qm->first_queue + HL_QM_FENCE_STREAMS >
			    sm->num_queues)
				return -EINVAL;
			for (q = 0; q < HL_QM_FENCE_STREAMS; q++)
				sm->queue_qm[qm->first_queue + q] = k;
		}
	}
	return k == sm->num_qms ? 0 : -EINVAL;
}

/* The number of queue managers of @num_queues queues */
static u32 hl_emu_sync_num_qms(u32 num_queues, bool gaudi)
{
	u32 r, n = 0;

	if (!gaudi)
		return DIV_ROUND_UP(num_queues, HL_QM_FENCE_STREAMS);
	for (r = 0; r < ARRAY_SIZE(hl_emu_gaudi_qm_runs); r++)
		n += hl_emu_gaudi_qm_runs[r].num;
	return n;
}

/**
 * hl_emu_sync_free - free the sync manager (early_fini).
 * @emu: the device.
 */
void hl_emu_sync_free(struct hl_emu_device *emu)
{
	struct hl_emu_sync *sm = emu->sync;

	if (!sm)
		return;
	kvfree(sm->msg_base);
	kfree(sm->queue_qm);
	kfree(sm->fwait);
	kfree(sm->qm);
	kvfree(sm);
	emu->sync = NULL;
}

/**
 * hl_emu_sync_alloc - allocate the sync manager, its queue managers
 * (GAUDI's when the device has GAUDI's queue table), and the fence counters
 * and message bases of every queue and lower CP (early_init, after the
 * queues were allocated).
 * @emu: the device.
 *
 * Return: 0, -ENOMEM, or -EINVAL when GAUDI's queue table and its queue
 * managers disagree (a bug).
 */
int hl_emu_sync_alloc(struct hl_emu_device *emu)
{
	bool gaudi = emu->queue_type;
	u32 num_qms = hl_emu_sync_num_qms(emu->num_queues, gaudi);
	u32 slots = emu->num_queues + num_qms;
	struct hl_emu_sync *sm;
	int rc;

	sm = kvzalloc(struct_size(sm, fence, slots), GFP_KERNEL);
	if (!sm)
		return -ENOMEM;
	emu->sync = sm;
	sm->num_queues = emu->num_queues;
	sm->gaudi = gaudi;
	sm->num_qms = num_qms;
	sm->msg_base = kvcalloc(slots, sizeof(*sm->msg_base), GFP_KERNEL);
	sm->qm = kcalloc(num_qms, sizeof(*sm->qm), GFP_KERNEL);
	sm->queue_qm = kcalloc(sm->num_queues, sizeof(*sm->queue_qm),
			       GFP_KERNEL);
	sm->fwait = kcalloc(sm->num_queues, sizeof(*sm->fwait), GFP_KERNEL);
	if (!sm->msg_base || !sm->qm || !sm->queue_qm || !sm->fwait) {
		rc = -ENOMEM;
		goto err_free;
	}
	rc = hl_emu_sync_qms(sm);
	if (WARN_ON(rc))
		goto err_free;
	spin_lock_init(&sm->lock);
	init_waitqueue_head(&sm->wq);
	return 0;

err_free:
	hl_emu_sync_free(emu);
	return rc;
}

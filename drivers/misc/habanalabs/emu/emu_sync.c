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

/**
 * struct hl_emu_sync - the sync manager.
 * @lock: Protects: @sob, @mon, @fence, @msg_base, @dropped.
 * @wq: FENCE packets waiting for a fence counter.
 * @sob: the sync objects' values.
 * @mon: the monitors.
 * @num_queues: the device's queues (hl_emu_device.num_queues).
 * @fence: the fence counters, HL_QM_FENCE_NUM per queue stream
 *	(@num_queues of them, allocated with the sync manager).
 * @msg_base: the queues' message bases (CP_MSG_BASE0..3), per queue
 *	(@num_queues of them, allocated with the sync manager).
 * @dropped: payloads that aimed outside the sync manager when their monitor
 *	fired (ignored).
 */
struct hl_emu_sync {
	spinlock_t lock; /* Protects: sob, mon, fence, msg_base, dropped */
	wait_queue_head_t wq;
	u16 sob[HL_SM_NUM_SOBS];
	struct hl_emu_mon mon[HL_SM_NUM_MONITORS];
	u64 (*msg_base)[HL_QM_MSG_BASE_NUM];
	u64 dropped;
	u32 num_queues;
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
};

/* Bytes between a message base's registers of one queue and the next base */
#define HL_EMU_MSG_BASE_STRIDE	(HL_QM_MSG_BASE_LO(0, 1) - HL_QM_MSG_BASE_LO_0)
#define HL_EMU_MSG_BASE_HALF	(HL_QM_MSG_BASE_HI(0, 0) - HL_QM_MSG_BASE_LO_0)

/* Which register @addr is, and its index (SOB, monitor, queue * 4 + id) */
static enum hl_emu_sync_reg hl_emu_sync_decode(const struct hl_emu_sync *sm,
					       u64 addr, u32 *idx)
{
	u64 off;

	if (!IS_ALIGNED(addr, sizeof(u32)))
		return HL_EMU_REG_NONE;
	if (addr >= HL_SM_SOB_OBJ_0 &&
	    addr < HL_SM_SOB_ADDR(HL_SM_NUM_SOBS)) {
		*idx = (addr - HL_SM_SOB_OBJ_0) / 4;
		return HL_EMU_REG_SOB;
	}
	if (addr >= HL_SM_MON_PAY_ADDRL_0 &&
	    addr < HL_SM_MON_ARM_ADDR(HL_SM_NUM_MONITORS)) {
		off = addr - HL_SM_MON_PAY_ADDRL_0;
		*idx = (off % (4 * HL_SM_NUM_MONITORS)) / 4;
		return HL_EMU_REG_MON_ADDRL + off / (4 * HL_SM_NUM_MONITORS);
	}
	/* Before the fences: queue manager k's bases are in their range */
	if (addr >= HL_QM_MSG_BASE_LO_0 &&
	    addr < HL_QM_MSG_BASE_LO(sm->num_queues, 0)) {
		u32 base, stream, queue, half;

		off = (addr - HL_QM_MSG_BASE_LO_0) % HL_QM_FENCE_QM_STRIDE;
		base = off / HL_EMU_MSG_BASE_STRIDE;
		off %= HL_EMU_MSG_BASE_STRIDE;
		half = off / HL_EMU_MSG_BASE_HALF;
		stream = (off % HL_EMU_MSG_BASE_HALF) / 4;
		queue = (addr - HL_QM_MSG_BASE_LO_0) / HL_QM_FENCE_QM_STRIDE *
			HL_QM_FENCE_STREAMS + stream;
		/* The fifth stream (GAUDI's lower CP) is no queue */
		if (base < HL_QM_MSG_BASE_NUM && stream < HL_QM_FENCE_STREAMS &&
		    queue < sm->num_queues) {
			*idx = queue * HL_QM_MSG_BASE_NUM + base;
			return half ? HL_EMU_REG_MSG_BASE_HI :
				      HL_EMU_REG_MSG_BASE_LO;
		}
	}
	if (addr >= HL_QM_FENCE_RDATA_0 &&
	    addr < HL_QM_FENCE_RDATA(sm->num_queues, 0)) {
		u32 id, stream, queue;

		/* A queue manager's block: fence id by fence id, 5 streams */
		off = (addr - HL_QM_FENCE_RDATA_0) % HL_QM_FENCE_QM_STRIDE;
		id = off / (HL_QM_FENCE_RDATA(0, 1) - HL_QM_FENCE_RDATA_0);
		stream = (off % (HL_QM_FENCE_RDATA(0, 1) -
				 HL_QM_FENCE_RDATA_0)) / 4;
		queue = (addr - HL_QM_FENCE_RDATA_0) / HL_QM_FENCE_QM_STRIDE *
			HL_QM_FENCE_STREAMS + stream;
		/* The fifth stream (GAUDI's lower CP) is no queue */
		if (id >= HL_QM_FENCE_NUM || stream >= HL_QM_FENCE_STREAMS ||
		    queue >= sm->num_queues)
			return HL_EMU_REG_NONE;
		*idx = queue * HL_QM_FENCE_NUM + id;
		return HL_EMU_REG_FENCE;
	}
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

static bool hl_emu_mon_holds(struct hl_emu_sync *sm, const struct hl_emu_mon *m)
{
	u32 gid = m->arm & HL_SM_MON_ARM_GID_MASK;
	u32 mask = (m->arm & HL_SM_MON_ARM_MASK_MASK) >> HL_SM_MON_ARM_MASK_SHIFT;
	u32 target = m->arm >> HL_SM_MON_ARM_VAL_SHIFT;
	bool eq = m->arm & HL_SM_MON_ARM_EQ;
	u32 i;

	for (i = 0; i < 8; i++) {
		u16 v = sm->sob[gid * 8 + i];

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
		for (i = 0; i < HL_SM_NUM_MONITORS; i++) {
			struct hl_emu_mon *m = &sm->mon[i];

			if (!m->armed || !hl_emu_mon_holds(sm, m))
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
	m = &sm->mon[idx % HL_SM_NUM_MONITORS];
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
	m = &sm->mon[idx % HL_SM_NUM_MONITORS];
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
 * hl_emu_sync_msg_base - a queue's message base (MSG_SHORT).
 * @emu: the device.
 * @queue: the queue.
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

/**
 * hl_emu_sync_fence_take - FENCE: pass when counter @id of @queue reached
 * @target, subtracting @dec.
 * @emu: the device.
 * @queue: the executing queue.
 * @id: fence id, below HL_QM_FENCE_NUM.
 * @target: the target.
 * @dec: what to subtract when passing (down to 0).
 *
 * Return: whether the fence passed.
 */
bool hl_emu_sync_fence_take(struct hl_emu_device *emu, u32 queue, u32 id,
			    u32 target, u32 dec)
{
	struct hl_emu_sync *sm = emu->sync;
	bool pass;

	spin_lock(&sm->lock);
	pass = sm->fence[queue][id] >= target;
	if (pass)
		sm->fence[queue][id] -= min(dec, sm->fence[queue][id]);
	spin_unlock(&sm->lock);
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
 * nor a late one passes a later FENCE of the queue.
 * @emu: the device.
 * @queue: the queue.
 * @id: fence id.
 * @target: the FENCE's target.
 * @dec: what the FENCE subtracts when it passes.
 *
 * One step under the lock: a fire lands either before it (and is taken, as
 * hl_emu_sync_fence_take() would have) or never.
 */
void hl_emu_sync_fence_abort(struct hl_emu_device *emu, u32 queue, u32 id,
			     u32 target, u32 dec)
{
	struct hl_emu_sync *sm = emu->sync;
	u64 addr = HL_QM_FENCE_RDATA(queue, id);
	u32 i;

	spin_lock(&sm->lock);
	if (sm->fence[queue][id] >= target)
		sm->fence[queue][id] -= min(dec, sm->fence[queue][id]);
	for (i = 0; i < HL_SM_NUM_MONITORS; i++)
		if (sm->mon[i].armed && sm->mon[i].addr == addr)
			sm->mon[i].armed = false;
	spin_unlock(&sm->lock);
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
 * hl_emu_sync_reset - zero every SOB, monitor and fence counter, and set
 * the message bases to what GAUDI's driver programs (E_N monitors and
 * SOBs, W_S monitors and SOBs): the device's next owner starts from
 * scratch.
 * @emu: the device; no job of the previous owner runs.
 */
void hl_emu_sync_reset(struct hl_emu_device *emu)
{
	static const u64 bases[HL_QM_MSG_BASE_NUM] = {
		HL_SM_MON_PAY_ADDRL_0, HL_SM_SOB_OBJ_0,
		HL_SM_WS_MON_PAY_ADDRL_0, HL_SM_WS_SOB_OBJ_0,
	};
	struct hl_emu_sync *sm = emu->sync;
	u32 q;

	spin_lock(&sm->lock);
	memset(sm->sob, 0, sizeof(sm->sob));
	memset(sm->mon, 0, sizeof(sm->mon));
	memset(sm->fence, 0, sm->num_queues * sizeof(sm->fence[0]));
	for (q = 0; q < sm->num_queues; q++)
		memcpy(sm->msg_base[q], bases, sizeof(bases));
	spin_unlock(&sm->lock);
}

/* The driver's SOBs and monitors: two signal SOBs and a wait monitor per queue */
static u32 hl_emu_sync_driver_sob(u32 queue, u32 idx)
{
	return queue * 2 + idx;
}

static u32 hl_emu_sync_driver_mon(u32 queue)
{
	return queue;
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
	u64 addr = HL_SM_SOB_ADDR(hl_emu_sync_driver_sob(queue, idx));
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
	p += hl_emu_sync_msg(p, HL_SM_SOB_ADDR(hl_emu_sync_driver_sob(queue,
								      idx ^ 1)),
			     0);
	return p - (u8 *)buf;
}

/**
 * hl_emu_sync_encaps_sob - asic_funcs->encaps_sob.
 * @hdev: the device.
 * @queue: the queue.
 * @idx: which of its two signal SOBs.
 * @clear: set the SOB to 0 now (not through a queue).
 *
 * Return: the SOB's offset from HL_CFG_BASE.
 */
u32 hl_emu_sync_encaps_sob(struct hl_device *hdev, u32 queue, u32 idx,
			   bool clear)
{
	u64 addr = HL_SM_SOB_ADDR(hl_emu_sync_driver_sob(queue, idx));

	if (clear)
		hl_emu_sync_write(to_emu(hdev), addr, 0);
	return addr - HL_CFG_BASE;
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
	u32 sob = hl_emu_sync_driver_sob(sig_queue, idx);
	u32 other = hl_emu_sync_driver_sob(sig_queue, idx ^ 1);
	u32 mon = hl_emu_sync_driver_mon(queue);
	u64 fence = HL_QM_FENCE_RDATA(queue, HL_EMU_WAIT_FENCE);
	u32 cfg = HL_PKT_FENCE_CFG(HL_EMU_WAIT_FENCE, 1, 1);
	u8 *p = buf;

	p += hl_emu_sync_msg(p, HL_SM_MON_PAY_ADDRL_ADDR(mon), lower_32_bits(fence));
	p += hl_emu_sync_msg(p, HL_SM_MON_PAY_ADDRH_ADDR(mon), upper_32_bits(fence));
	p += hl_emu_sync_msg(p, HL_SM_MON_PAY_DATA_ADDR(mon), 1);
	p += hl_emu_sync_msg(p, HL_SM_MON_ARM_ADDR(mon),
			     HL_SM_MON_ARM(other / 8, 0xff & ~BIT(other % 8), 1,
					   0));
	p += hl_emu_sync_fence(p, cfg);
	p += hl_emu_sync_msg(p, HL_SM_MON_ARM_ADDR(mon),
			     HL_SM_MON_ARM(sob / 8, 0xff & ~BIT(sob % 8), 0,
					   value));
	p += hl_emu_sync_fence(p, cfg);
	return p - (u8 *)buf;
}

/*
 * Collective waits (asic=gaudi; docs/sync-manager.md). Every external
 * queue (DMA 0 and 1, each stream) is a collective master; its slaves are
 * the queues of the same stream of every NIC port's engine and of the
 * reduction engine the submission names (DMA 5 or TPC 7). Each master has
 * two groups of HL_EMU_COLL_GROUP_SOBS SOBs past the SIGNALs' (one per
 * round of values), in upstream's layout: NIC port p's slave adds to SOB
 * p of the group, the reduction engine's to SOB HL_EMU_COLL_ENGINE_SLOT;
 * the master's monitor watches the first eight, then the second eight.
 */
#define HL_EMU_COLL_MASTERS	(GAUDI_QUEUE_ID_DMA_1_3 + 1)
#define HL_EMU_COLL_GROUP_SOBS	16
#define HL_EMU_COLL_ENGINE_SLOT	10
#define HL_EMU_COLL_MAX_PORTS	10

/* The first SOB of the collective groups: after the SIGNALs', aligned */
static u32 hl_emu_sync_coll_first(u32 num_queues)
{
	return ALIGN(hl_emu_sync_driver_sob(num_queues, 0), 8);
}

/* SOB @slot of group @group of collective master @master */
static u32 hl_emu_sync_coll_sob(struct hl_emu_device *emu, u32 master,
				u32 group, u32 slot)
{
	return hl_emu_sync_coll_first(emu->num_queues) +
	       (master * 2 + group) * HL_EMU_COLL_GROUP_SOBS + slot;
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
	struct hl_emu_device *emu = to_emu(hdev);
	u32 master = cw->queues[0], queue = cw->queues[job];
	u32 base = hl_emu_sync_coll_sob(emu, master, cw->group, 0);
	u32 cfg = HL_PKT_FENCE_CFG(HL_EMU_WAIT_FENCE, 1, 1);
	u64 fence = HL_QM_FENCE_RDATA(master, HL_EMU_WAIT_FENCE);
	u32 mon = hl_emu_sync_driver_mon(master);
	u32 i, half, watch[2] = {};
	u8 *p = buf;

	if (job) {
		/* TEST ONLY: a slave that does not wait for the signal */
		if (!cw->early)
			p += hl_emu_sync_gen_wait_cb(hdev, p, queue,
						     cw->sig_queue,
						     cw->sig_idx,
						     cw->sig_value);
		p += hl_emu_sync_msg(p, HL_SM_SOB_ADDR(base +
						       hl_emu_sync_coll_slot(queue)),
				     HL_SM_SOB_INC | 1);
		return p - (u8 *)buf;
	}

	for (i = 1; i < cw->num_jobs; i++) {
		u32 slot = hl_emu_sync_coll_slot(cw->queues[i]);

		watch[slot / 8] |= BIT(slot % 8);
	}
	p += hl_emu_sync_msg(p, HL_SM_MON_PAY_ADDRL_ADDR(mon),
			     lower_32_bits(fence));
	p += hl_emu_sync_msg(p, HL_SM_MON_PAY_ADDRH_ADDR(mon),
			     upper_32_bits(fence));
	p += hl_emu_sync_msg(p, HL_SM_MON_PAY_DATA_ADDR(mon), 1);
	for (half = 0; half < 2; half++) {
		if (!watch[half])
			continue;
		p += hl_emu_sync_msg(p, HL_SM_MON_ARM_ADDR(mon),
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
	u32 first = hl_emu_sync_coll_sob(emu, master, group, 0), i;

	for (i = 0; i < HL_EMU_COLL_GROUP_SOBS; i++)
		hl_emu_sync_write(emu, HL_SM_SOB_ADDR(first + i), 0);
}

/**
 * hl_emu_sync_props - the sync manager's properties (early_init, after
 * the queues were allocated).
 * @emu: the device.
 * @prop: the device's properties.
 */
void hl_emu_sync_props(struct hl_emu_device *emu,
		       struct asic_fixed_properties *prop)
{
	prop->num_sobs = HL_SM_NUM_SOBS;
	prop->num_monitors = HL_SM_NUM_MONITORS;
	/* The driver's, rounded up to a group of eight; asic=gaudi: and the
	 * collective masters' groups
	 */
	prop->first_available_sob = hl_emu_sync_coll_first(emu->num_queues);
	if (emu->queue_type)
		prop->first_available_sob += HL_EMU_COLL_MASTERS * 2 *
					     HL_EMU_COLL_GROUP_SOBS;
	prop->first_available_monitor =
		ALIGN(hl_emu_sync_driver_mon(emu->num_queues), 8);
}

/**
 * hl_emu_sync_alloc - allocate the sync manager and a fence per queue
 * stream (early_init, after the queues were allocated).
 * @emu: the device.
 *
 * Return: 0 or -ENOMEM.
 */
int hl_emu_sync_alloc(struct hl_emu_device *emu)
{
	struct hl_emu_sync *sm;

	sm = kvzalloc(struct_size(sm, fence, emu->num_queues), GFP_KERNEL);
	if (!sm)
		return -ENOMEM;
	sm->num_queues = emu->num_queues;
	sm->msg_base = kvcalloc(sm->num_queues, sizeof(*sm->msg_base),
				GFP_KERNEL);
	if (!sm->msg_base) {
		kvfree(sm);
		return -ENOMEM;
	}
	spin_lock_init(&sm->lock);
	init_waitqueue_head(&sm->wq);
	emu->sync = sm;
	return 0;
}

/**
 * hl_emu_sync_free - free the sync manager (early_fini).
 * @emu: the device.
 */
void hl_emu_sync_free(struct hl_emu_device *emu)
{
	kvfree(emu->sync->msg_base);
	kvfree(emu->sync);
	emu->sync = NULL;
}

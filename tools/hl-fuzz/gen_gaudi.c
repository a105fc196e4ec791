// SPDX-License-Identifier: MIT
/*
 * hl-fuzz: generators: command buffers in GAUDI's packet format, for a
 * driver loaded with asic=gaudi (include/uapi/misc/habanalabs_pkt.h, "GAUDI's
 * format"; docs/gaudi.md says what each packet does). Mostly well-formed
 * packets aimed at what they can reach: the sync manager's SOBs and
 * monitors in both blocks, the queue managers' fence counters and message
 * bases, the queue manager's arbiter (ARB_CFG_0, ARB_POINT), the engine's
 * own register block, other command buffers (CP_DMA,
 * LOAD_AND_EXE), and memory of the file; then malformed ones (reserved
 * bits, unmodelled fields and opcodes, garbage).
 */

#include "hl-fuzz.h"

/* Set once by main() before the workers start: the driver's asic is gaudi */
bool gaudi_format;

/* ctl bits, as the uAPI header and docs/gaudi.md lay them out */
#define G_CTL(op)		HL_GAUDI_PKT_CTL(op)
#define G_PRED_MASK		0x1fu
#define G_WREG_OFFSET_SHIFT	8
#define G_MSG_OP_SHIFT		20
#define G_SHORT_BASE_SHIFT	22
#define G_DMA_LIN		(1u << 3)
#define G_DMA_MEMSET		(1u << 4)
#define G_LAE_DST		(1u << 0)
#define G_LAE_LOAD		(1u << 8)
#define G_LAE_EXE		(1u << 9)
#define G_LAE_ETYPE		(1u << 10)

/* GAUDI's queue table: 4 streams a queue manager, at most this many */
#define G_QUEUES		112

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* The packet's barrier and predicate bits: mostly none, sometimes any */
static uint32_t ctl_extra(struct worker *w, bool pred)
{
	uint32_t ctl = 0;

	if (chance(&w->r, 20))
		ctl |= (uint32_t)rnd(&w->r, 8) << 29;
	if (pred && chance(&w->r, 15))
		ctl |= (uint32_t)rnd(&w->r, G_PRED_MASK + 1);
	return ctl;
}

/*
 * A target for a register write: a SOB or monitor register of either
 * sync-manager block, a fence counter or message base of some queue, or a
 * device VA of the file
 */
static uint64_t reg_target(struct worker *w, uint32_t file, bool bad)
{
	uint64_t room, ws = chance(&w->r, 30) ? HL_SM_SOB_OBJ_0 - HL_SM_WS_SOB_OBJ_0 : 0;
	/* The uAPI's fence and message-base macros are GAUDI's for 0..7 */
	uint32_t q = (uint32_t)rnd(&w->r, bad ? G_QUEUES : 8);

	switch (rnd(&w->r, 9)) {
	case 0: case 1:
		return HL_SM_SOB_ADDR(rnd(&w->r, HL_SM_NUM_SOBS)) - ws;
	case 2:
		return HL_SM_MON_PAY_ADDRL_ADDR(rnd(&w->r, HL_SM_NUM_MONITORS)) - ws;
	case 3:
		return HL_SM_MON_PAY_ADDRH_ADDR(rnd(&w->r, HL_SM_NUM_MONITORS)) - ws;
	case 4:
		return HL_SM_MON_PAY_DATA_ADDR(rnd(&w->r, HL_SM_NUM_MONITORS)) - ws;
	case 5:
		return HL_SM_MON_ARM_ADDR(rnd(&w->r, HL_SM_NUM_MONITORS)) - ws;
	case 6:
		return HL_QM_FENCE_RDATA(q, rnd(&w->r, HL_QM_FENCE_NUM));
	case 7:
		return chance(&w->r, 50) ?
		       HL_QM_MSG_BASE_LO(q, rnd(&w->r, HL_QM_MSG_BASE_NUM)) :
		       HL_QM_MSG_BASE_HI(q, rnd(&w->r, HL_QM_MSG_BASE_NUM));
	default:
		return pick_va(w, file, &room) & ~3ULL;
	}
}

/*
 * An offset in the engine's block of a register its queue manager has
 * (GAUDI's layout, at 0x8000 in the block): a fence counter (id 0-3) or a
 * message base (0-3, low or high half) of one of its five streams
 */
static uint32_t wreg_offset(struct worker *w)
{
	uint32_t s = (uint32_t)rnd(&w->r, 5);

	if (chance(&w->r, 50))
		return 0x8308 + 0x14 * (uint32_t)rnd(&w->r, 4) + 4 * s;
	return 0x8228 + 0x28 * (uint32_t)rnd(&w->r, 4) + 4 * s +
	       (chance(&w->r, 50) ? 0x14 : 0);
}

/* A value for such a write: a SOB increment, a monitor arm, or anything */
static uint32_t reg_value(struct worker *w, bool bad)
{
	switch (rnd(&w->r, bad ? 4 : 3)) {
	case 0:
		return HL_SM_SOB_INC | (uint32_t)rnd(&w->r, 4);
	case 1:
		return HL_SM_MON_ARM((uint32_t)rnd(&w->r, HL_SM_NUM_SOBS / 8),
				     (uint32_t)rnd(&w->r, 256), chance(&w->r, 50),
				     (uint32_t)rnd(&w->r, 4));
	case 2:
		return (uint32_t)rnd(&w->r, 8);
	default:
		return (uint32_t)rnd64(&w->r);
	}
}

/*
 * One packet at @p (room for 48 bytes); returns its size, a multiple of 8.
 * @cb_va: where the buffer will sit in the device's VA space (0: not yet
 * known), for a CP_DMA or LOAD_AND_EXE of its own bytes.
 */
static uint32_t gaudi_packet(struct worker *w, uint32_t file, uint8_t *p,
			     bool bad, bool *nic)
{
	uint64_t r1, r2, src, dst;
	uint32_t ctl, n;

	memset(p, 0, 48);
	switch (rnd(&w->r, bad ? 24 : 21)) {
	case 0: case 1:
		put32(p + 4, G_CTL(HL_GAUDI_PKT_NOP) | ctl_extra(w, false));
		return 8;
	case 2: case 3: case 4:
		/* LIN_DMA: a copy or a fill in the file's memory */
		src = pick_va(w, file, &r1);
		dst = pick_va(w, file, &r2);
		n = (uint32_t)rnd(&w->r, 1 + (r1 < r2 ? r1 : r2));
		ctl = G_CTL(HL_GAUDI_PKT_LIN_DMA) | G_DMA_LIN | ctl_extra(w, false);
		if (chance(&w->r, 35)) {
			ctl |= G_DMA_MEMSET;
			src = rnd64(&w->r);
		}
		if (bad && chance(&w->r, 10))
			ctl &= ~G_DMA_LIN;	/* non-linear: malformed */
		put32(p, n);
		put32(p + 4, ctl);
		put64(p + 8, src);
		put64(p + 16, dst);
		return 24;
	case 5: case 6: case 7:
		/* MSG_LONG (or MSG_PROT): a write, or a timestamp */
		ctl = G_CTL(chance(&w->r, 85) ? HL_GAUDI_PKT_MSG_LONG :
					       HL_GAUDI_PKT_MSG_PROT) |
		      ctl_extra(w, true);
		if (bad && chance(&w->r, 20))
			ctl |= (uint32_t)rnd(&w->r, 4) << G_MSG_OP_SHIFT;
		put32(p, reg_value(w, bad));
		put32(p + 4, ctl);
		put64(p + 8, reg_target(w, file, bad));
		return 16;
	case 8: case 9:
		/* MSG_SHORT: at a message base, a SOB's or monitor's offset */
		ctl = G_CTL(HL_GAUDI_PKT_MSG_SHORT) |
		      (uint32_t)rnd(&w->r, 4) << G_SHORT_BASE_SHIFT |
		      (!bad || chance(&w->r, 60) ? 4 * (uint32_t)rnd(&w->r, HL_SM_NUM_SOBS) :
						   (uint32_t)rnd(&w->r, 0x10000)) |
		      ctl_extra(w, false);
		put32(p, reg_value(w, bad));
		put32(p + 4, ctl);
		return 8;
	case 10: case 11: {
		/*
		 * FENCE on one of the queue's counters, mostly after a WAIT
		 * that gives it what it takes (else it waits for another
		 * queue's write, or until the job's time is up)
		 */
		uint32_t id = (uint32_t)rnd(&w->r, 4), target = 1 + (uint32_t)rnd(&w->r, 2);

		n = 0;
		if (chance(&w->r, 75)) {
			put32(p, id << 28 | target << 24 | (uint32_t)rnd(&w->r, 100));
			put32(p + 4, G_CTL(HL_GAUDI_PKT_WAIT));
			n = 8;
		}
		put32(p + n, HL_PKT_FENCE_CFG(id, target, 1 + rnd(&w->r, target)) |
			     (bad && chance(&w->r, 10) ? 0x100u : 0));
		put32(p + n + 4, G_CTL(HL_GAUDI_PKT_FENCE) | ctl_extra(w, true));
		return n + 8;
	}
	case 12:
		/* WAIT: adds to a fence counter */
		put32(p, (uint32_t)rnd(&w->r, 4) << 28 | 1u << 24 |
			 (uint32_t)rnd(&w->r, 100));
		put32(p + 4, G_CTL(HL_GAUDI_PKT_WAIT) | ctl_extra(w, false));
		return 8;
	case 13: case 14:
		/*
		 * WREG_32 at an offset of the engine's own block; sometimes its
		 * queue manager's ARB_CFG_0: the arbiter on by priority (its
		 * ARB_POINTs then ask for and give back the grant), by weight,
		 * or off
		 */
		if (chance(&w->r, 15)) {
			static const uint32_t arb[] = { 0x110, 0x110, 0x111, 0 };

			put32(p, arb[rnd(&w->r, 4)]);
			put32(p + 4, G_CTL(HL_GAUDI_PKT_WREG_32) |
				     0x8a00u << G_WREG_OFFSET_SHIFT |
				     ctl_extra(w, true));
			return 8;
		}
		put32(p, reg_value(w, bad));
		put32(p + 4, G_CTL(HL_GAUDI_PKT_WREG_32) |
			     (uint32_t)(bad && chance(&w->r, 50) ?
					rnd(&w->r, 0x10000) : wreg_offset(w))
			     << G_WREG_OFFSET_SHIFT | ctl_extra(w, true));
		return 8;
	case 15:
		/* WREG_BULK of one or two 64-bit values */
		n = 1 + (uint32_t)rnd(&w->r, 2);
		/* (two of a stream's fence counters, or anything) */
		put32(p, !bad || chance(&w->r, 80) ? n : (uint32_t)rnd(&w->r, 0x10000));
		put32(p + 4, G_CTL(HL_GAUDI_PKT_WREG_BULK) |
			     (uint32_t)(bad && chance(&w->r, 50) ?
					0x8300 + 8 * rnd(&w->r, 32) :
					0x8308 + 0x14 * rnd(&w->r, 4) + 4 * rnd(&w->r, 4))
			     << G_WREG_OFFSET_SHIFT | ctl_extra(w, true));
		put64(p + 8, rnd64(&w->r));
		if (n == 2)
			put64(p + 16, rnd64(&w->r));
		return 8 + 8 * n;
	case 16:
		/*
		 * CP_DMA of other bytes of the file (another CB, or anything;
		 * a well-formed CB of size 0 when not hostile)
		 */
		src = pick_va(w, file, &r1);
		if (!bad)
			r1 = 0;
		put32(p, (uint32_t)(chance(&w->r, 80) ? 8 * rnd(&w->r, 1 + (r1 < 512 ? r1 : 512) / 8) :
						       rnd64(&w->r)));
		put32(p + 4, G_CTL(HL_GAUDI_PKT_CP_DMA) | ctl_extra(w, true));
		put64(p + 8, src);
		return 16;
	case 17:
		/* LOAD_AND_EXE: predicates, or scalars and the packet in them */
		ctl = (uint32_t)rnd(&w->r, 2) * G_LAE_DST |
		      (chance(&w->r, 80) ? G_LAE_LOAD : 0) |
		      (bad && chance(&w->r, 50) ? G_LAE_EXE : 0) |
		      (chance(&w->r, 30) ? G_LAE_ETYPE : 0);
		if (bad && chance(&w->r, 10))
			ctl |= 1u << (11 + rnd(&w->r, 20));	/* reserved */
		put32(p, ctl);
		put32(p + 4, G_CTL(HL_GAUDI_PKT_LOAD_AND_EXE) | ctl_extra(w, true));
		put64(p + 8, pick_va(w, file, &r1));
		return 16;
	case 18:
		/* ARB_POINT, STOP, or REPEAT (not modelled: malformed) */
		n = chance(&w->r, 50) ? HL_GAUDI_PKT_ARB_POINT :
		    !bad || chance(&w->r, 70) ? HL_GAUDI_PKT_STOP : HL_GAUDI_PKT_REPEAT;
		put32(p, n == HL_GAUDI_PKT_STOP ? 0 : (uint32_t)rnd64(&w->r) & 0x800000ffu);
		put32(p + 4, G_CTL(n) | ctl_extra(w, n == HL_GAUDI_PKT_ARB_POINT));
		return 8;
	case 19: {
		/* REDUCE, the emulated device's extension */
		struct hl_gaudi_pkt_reduce r = { 0 };

		r.src_addr = pick_va(w, file, &r1) & ~3ULL;
		r.dst_addr = pick_va(w, file, &r2) & ~3ULL;
		r.count = (uint32_t)rnd(&w->r, 1 + (r1 < r2 ? r1 : r2) / 4);
		r.ctl = G_CTL(HL_GAUDI_PKT_REDUCE) | ctl_extra(w, false);
		r.dtype = (uint32_t)rnd(&w->r, HL_REDUCE_DTYPE_I32 + 1 + bad);
		r.op = (uint32_t)rnd(&w->r, HL_REDUCE_OP_DIV + bad);
		memcpy(p, &r, sizeof(r));
		return sizeof(r);
	}
	case 20: {
		/* NIC_SEND or NIC_RECV on a connection of the file */
		struct hl_gaudi_pkt_nic s = { 0 };
		uint64_t room;
		int i;

		st_lock();
		PICK(ps->conns, ps->nconns, file, i);
		s.conn_id = i >= 0 ? (uint32_t)ps->conns[i].id : (uint32_t)rnd(&w->r, 1100);
		st_unlock();
		s.ctl = G_CTL(chance(&w->r, 50) ? HL_GAUDI_PKT_NIC_SEND :
				  HL_GAUDI_PKT_NIC_RECV);
		s.addr = pick_va(w, file, &room);
		s.size = rnd(&w->r, 1 + (room < 8192 ? room : 8192));
		s.wr_id = rnd64(&w->r);
		memcpy(p, &s, sizeof(s));
		*nic = true;
		return sizeof(s);
	}
	case 21:
		/* An opcode GAUDI has and the emulation does not, or none */
		put32(p, (uint32_t)rnd64(&w->r));
		put32(p + 4, G_CTL(chance(&w->r, 50) ? 0 : 0x15 + rnd(&w->r, 11)));
		return 8;
	case 22: {
		/* A known opcode with a reserved ctl bit set */
		static const uint8_t ops[] = {
			HL_GAUDI_PKT_NOP, HL_GAUDI_PKT_MSG_SHORT,
			HL_GAUDI_PKT_FENCE, HL_GAUDI_PKT_WAIT,
		};

		put32(p + 4, G_CTL(ops[rnd(&w->r, sizeof(ops))]) |
			     1u << (5 + rnd(&w->r, 19)));
		return 8;
	}
	default:
		/* Garbage */
		put64(p, rnd64(&w->r));
		put64(p + 8, rnd64(&w->r));
		return 16;
	}
}

/*
 * Write a command buffer of 1..8 packets of GAUDI's format into @cb (room
 * for @room bytes, at least 48); returns its length. One in four is
 * hostile (malformed packets among the others); the rest are made of
 * well-formed ones, so that most jobs run to their end.
 */
uint32_t build_gaudi_cb(struct worker *w, uint32_t file, uint8_t *cb,
			uint32_t room, bool *nic)
{
	uint32_t len = 0, npkt = 1 + (uint32_t)rnd(&w->r, chance(&w->r, 80) ? 3 : 8);
	bool bad = chance(&w->r, 25);

	*nic = false;
	while (npkt-- && len + 48 <= room)
		len += gaudi_packet(w, file, cb + len, bad, nic);
	return len;
}

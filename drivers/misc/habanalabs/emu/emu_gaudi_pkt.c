// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs emu: GAUDI's packet format (module parameter asic=gaudi).
 *
 * Under asic=gaudi the queues decode the packets of GAUDI's queue managers
 * (the layouts of upstream's gaudi_packets.h; opcodes and the extensions in
 * the uAPI packet header) and run them on the engines of emu_queue.c
 * (emu_exec.h): a LIN_DMA here and a LIN_DMA there are one engine. Every
 * packet is a multiple of 8 bytes, its second __u32 (ctl) carries the
 * opcode in bits [28:24] and the barrier bits 29-31.
 *
 *   NOP                 nothing;
 *   ARB_POINT           asks for (rls 0) or gives back (rls 1) the grant
 *                       of its queue manager's arbiter, when it is on and
 *                       arbitrates by priority (emu_sync.c), else nothing;
 *   STOP                ends the job: the rest of its CB, and of the CB
 *                       that CP_DMA'd it, is skipped; the job completes;
 *   LIN_DMA             copy (mem_set 0) or fill (mem_set 1: the 64-bit
 *                       src_addr is the pattern, as MEMSET's value);
 *                       dst_addr is its 56 low bits, context_id ignored;
 *                       an address that does not translate ends the
 *                       transfer there and the job goes on (below);
 *   MSG_LONG, MSG_PROT  a 32-bit write of value (op 0), or of the 64-bit
 *                       device time in ns (op 1, ktime, 8-byte aligned,
 *                       never to a register) to addr;
 *   MSG_SHORT           a 32-bit write of value to the queue's message base
 *                       (register CP_MSG_BASE<base>) + the 16-bit offset;
 *   FENCE               the FENCE engine of emu_sync.c;
 *   WAIT                adds inc_val to the queue's fence counter id (the
 *                       cycles to wait have no meaning here);
 *   WREG_32, WREG_BULK  32-bit writes to the executing engine's block at
 *                       the packet's 16-bit offset (DMA0's for queues 0-3,
 *                       HL_GAUDI_ENGINE_BLOCK());
 *                       only the modelled registers (fence counters,
 *                       message bases, arbiter; on DMA 0..7's queues
 *                       their DMA core's transfer registers, whose COMMIT
 *                       runs a strided copy: hl_emu_gaudi_dma_commit())
 *                       take them: anything else is malformed, nothing
 *                       written;
 *   CP_DMA              runs the packets at src_addr, tsize bytes, as a
 *                       CB of their own (its packets may not CP_DMA again);
 *   LOAD_AND_EXE        load with dst 0: the job's predicates P1..P31 from
 *                       bit 0 of the 32-bit words 1..31 at src_addr
 *                       (GAUDI's non-consecutive map; P0 stays set);
 *                       dst 1: the job's scalar registers R0..R3, 16
 *                       bytes from src_addr; exe then runs the one packet
 *                       they hold (etype 0: from R0, 8 or 16 bytes; 1:
 *                       from R2, 8 bytes); a CP_DMA or LOAD_AND_EXE there
 *                       is malformed;
 *   REPEAT              malformed: loops are not modelled;
 *   0x10..0x14          the emulated device's own engines (NIC, REDUCE),
 *                       extensions of the format (uAPI header).
 * A packet with a predicate field (ctl bits [4:0]: WREG_32, WREG_BULK,
 * MSG_LONG, MSG_PROT, CP_DMA, FENCE, ARB_POINT, LOAD_AND_EXE) runs only
 * when the job's predicate it names is set (P0 always is; each job starts
 * with P1..P31 clear), else it is skipped. A field the engines do not
 * model (transpose, compress, non-linear DMA, write completion) must be 0,
 * and so must every reserved bit: else the packet is malformed. The barrier
 * bits are accepted: each packet completes before the next one starts,
 * which every barrier asks for. A malformed packet fails the job with
 * -EINVAL, as in this project's own format (emu_queue.c).
 *
 * A fault of a DMA engine's transfer (LIN_DMA, a DMA core's COMMIT) is an
 * event, as on a GAUDI, whose MMU page fault and range-register (RAZWI)
 * events upstream's gaudi.c reports without a reset: the access is
 * recorded (HL_INFO_PAGE_FAULT_EVENT, the PAGE_FAULT notification), the
 * transfer ends at the faulting byte (what came before it landed) and the
 * engine takes the next packet, so the CS completes. Every other fault
 * (the queue manager's fetch of a CB, CP_DMA's or LOAD_AND_EXE's source,
 * a message's write, the extensions' engines) still fails the job with
 * -EFAULT, as in this project's own format.
 */

#include <linux/bitfield.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/timekeeping.h>

#include "emu.h"
#include "emu_exec.h"
#include "emu_nic.h"
#include "emu_sync.h"

/* GAUDI's packets as the queue reads them: little-endian, ctl second */
struct hl_emu_gpkt_hdr {
	__le32 word0;
	__le32 ctl;
};

struct hl_emu_gpkt_msg_long {
	__le32 value;
	__le32 ctl;
	__le64 addr;
};

struct hl_emu_gpkt_lin_dma {
	__le32 tsize;
	__le32 ctl;
	__le64 src_addr;
	__le64 dst_addr_ctx;
};

struct hl_emu_gpkt_cp_dma {
	__le32 tsize;
	__le32 ctl;
	__le64 src_addr;
};

union hl_emu_gpkt {
	struct hl_emu_gpkt_hdr hdr;
	struct hl_emu_gpkt_msg_long msg_long;
	struct hl_emu_gpkt_lin_dma lin_dma;
	struct hl_emu_gpkt_cp_dma cp_dma;
	/* The extensions: the engine's view with dwords 0 and 1 swapped */
	struct hl_emu_pkt_reduce reduce;
	struct hl_emu_pkt_nic nic;
	struct hl_emu_pkt_nic_write nic_write;
	u8 raw[sizeof(struct hl_emu_pkt_nic_write)];
};

static_assert(sizeof(struct hl_emu_gpkt_hdr) == 8);
static_assert(sizeof(struct hl_emu_gpkt_msg_long) == 16);
static_assert(sizeof(struct hl_emu_gpkt_lin_dma) == 24);
static_assert(sizeof(struct hl_emu_gpkt_cp_dma) == 16);
static_assert(sizeof(struct hl_emu_pkt_reduce) ==
	      sizeof(struct hl_gaudi_pkt_reduce));
static_assert(sizeof(struct hl_emu_pkt_nic) == sizeof(struct hl_gaudi_pkt_nic));
static_assert(sizeof(struct hl_emu_pkt_nic_write) ==
	      sizeof(struct hl_gaudi_pkt_nic_write));
static_assert(offsetof(struct hl_gaudi_pkt_reduce, src_addr) ==
	      offsetof(struct hl_pkt_reduce, src_addr));
static_assert(offsetof(struct hl_gaudi_pkt_nic, addr) ==
	      offsetof(struct hl_pkt_nic_send, addr));
static_assert(offsetof(struct hl_gaudi_pkt_nic_write, local_addr) ==
	      offsetof(struct hl_pkt_nic_write, local_addr));

/* ctl fields (GAUDI's layout) */
#define HL_GPKT_PRED			GENMASK(4, 0)
#define HL_GPKT_WREG_OFFSET		GENMASK(23, 8)
#define HL_GPKT_MSG_WEAKLY_ORDERED	BIT(16)
#define HL_GPKT_MSG_NO_SNOOP		BIT(17)
#define HL_GPKT_MSG_OP			GENMASK(21, 20)
#define HL_GPKT_SHORT_OFFSET		GENMASK(15, 0)
#define HL_GPKT_SHORT_BASE		GENMASK(23, 22)
#define HL_GPKT_DMA_WR_COMP		BIT(0)
#define HL_GPKT_DMA_LIN			BIT(3)
#define HL_GPKT_DMA_MEMSET		BIT(4)
#define HL_GPKT_DMA_CTX_LOW		GENMASK(23, 16)
/* word 0 fields */
#define HL_GPKT_BULK_SIZE64		GENMASK(15, 0)
#define HL_GPKT_ARB_PRIORITY		GENMASK(7, 0)
#define HL_GPKT_ARB_RLS			BIT(31)

/*
 * An ARB_POINT waiting for the grant: how often it looks again (a job's
 * end is not signalled)
 */
#define HL_EMU_ARB_POLL			max(HZ / 500, 1)
#define HL_GPKT_WAIT_CYCLES		GENMASK(23, 0)
#define HL_GPKT_WAIT_INC		GENMASK(27, 24)
#define HL_GPKT_WAIT_ID			GENMASK(29, 28)
#define HL_GPKT_LAE_DST			BIT(0)
#define HL_GPKT_LAE_LOAD		BIT(8)
#define HL_GPKT_LAE_EXE			BIT(9)
#define HL_GPKT_LAE_ETYPE		BIT(10)

/* LOAD_AND_EXE of the predicates: 32 words, Pi in bit 0 of word i */
#define HL_GPKT_PRED_NUM		32
/* LIN_DMA's dst_addr: 56 bits, then context_id_high */
#define HL_GPKT_DMA_DST			GENMASK_ULL(55, 0)

/* MSG_LONG's and MSG_SHORT's op */
#define HL_GPKT_MSG_OP_VALUE		0
#define HL_GPKT_MSG_OP_TIMESTAMP	1

/* The ctl bits each packet may set besides the opcode and the barriers */
#define HL_GPKT_MSG_CTL		(HL_GPKT_MSG_WEAKLY_ORDERED | \
				 HL_GPKT_MSG_NO_SNOOP | HL_GPKT_MSG_OP)

/**
 * struct hl_emu_gpkt_desc - what the decoder knows of an opcode.
 * @size: bytes (WREG_BULK: its header; its values follow); 0: unknown or
 *	not modelled (malformed).
 * @ctl: the ctl bits it may set besides the opcode and the barrier bits.
 * @pred: ctl bits [4:0] are its predicate.
 */
struct hl_emu_gpkt_desc {
	u32 size;
	u32 ctl;
	bool pred;
};

/* A packet with a predicate field */
#define HL_GPKT_P(size, ctl)	{ size, (ctl) | HL_GPKT_PRED, true }

static const struct hl_emu_gpkt_desc hl_emu_gpkt_descs[32] = {
	[HL_GAUDI_PKT_WREG_32] = HL_GPKT_P(8, HL_GPKT_WREG_OFFSET),
	[HL_GAUDI_PKT_WREG_BULK] = HL_GPKT_P(8, HL_GPKT_WREG_OFFSET),
	[HL_GAUDI_PKT_MSG_LONG] = HL_GPKT_P(16, HL_GPKT_MSG_CTL),
	[HL_GAUDI_PKT_MSG_SHORT] = { 8, HL_GPKT_MSG_CTL | HL_GPKT_SHORT_BASE |
					HL_GPKT_SHORT_OFFSET },
	[HL_GAUDI_PKT_CP_DMA] = HL_GPKT_P(16, 0),
	[HL_GAUDI_PKT_MSG_PROT] = HL_GPKT_P(16, HL_GPKT_MSG_CTL),
	[HL_GAUDI_PKT_FENCE] = HL_GPKT_P(8, 0),
	[HL_GAUDI_PKT_LIN_DMA] = { 24, HL_GPKT_DMA_LIN | HL_GPKT_DMA_MEMSET |
					HL_GPKT_DMA_CTX_LOW },
	[HL_GAUDI_PKT_NOP] = { 8, 0 },
	[HL_GAUDI_PKT_STOP] = { 8, 0 },
	[HL_GAUDI_PKT_ARB_POINT] = HL_GPKT_P(8, 0),
	[HL_GAUDI_PKT_WAIT] = { 8, 0 },
	[HL_GAUDI_PKT_LOAD_AND_EXE] = HL_GPKT_P(16, 0),
	[HL_GAUDI_PKT_NIC_SEND] = { sizeof(struct hl_gaudi_pkt_nic), 0 },
	[HL_GAUDI_PKT_NIC_RECV] = { sizeof(struct hl_gaudi_pkt_nic), 0 },
	[HL_GAUDI_PKT_NIC_WRITE] = { sizeof(struct hl_gaudi_pkt_nic_write), 0 },
	[HL_GAUDI_PKT_NIC_WRITE_IMM] = {
		sizeof(struct hl_gaudi_pkt_nic_write), 0 },
	[HL_GAUDI_PKT_REDUCE] = { sizeof(struct hl_gaudi_pkt_reduce), 0 },
};

/* Largest packet the decoder reads at once (WREG_BULK's values excepted) */
static_assert(sizeof(union hl_emu_gpkt) >=
	      sizeof(struct hl_gaudi_pkt_nic_write));

/* Returned by a packet that ends the job successfully (STOP) */
#define HL_EMU_GPKT_STOP	1

/**
 * struct hl_emu_gcb - a command buffer being run.
 * @va: its device VA (or, for the top level of a kernel-owned CB, 0: the
 *	offsets are into the driver's copy).
 * @size: bytes.
 * @nested: the CB of a CP_DMA: fetched through the MMU; a CP_DMA in it is
 *	malformed.
 * @rf: not NULL: the packet LOAD_AND_EXE executes from the scalar
 *	registers (@va 0, @size its bytes): one packet, read from here; a
 *	CP_DMA or LOAD_AND_EXE in it is malformed. @nested then says which
 *	CP runs it (that of the LOAD_AND_EXE's CB), not where it is read.
 */
struct hl_emu_gcb {
	u64 va;
	u32 size;
	bool nested;
	const u8 *rf;
};

static int hl_emu_gcb_fetch(struct hl_emu_queue *q, struct hl_cs_job *job,
			    const struct hl_emu_gcb *cb, u32 off, void *buf,
			    u32 len)
{
	if (cb->rf) {
		/* hl_emu_gaudi_run_cb() keeps every read inside @size */
		memcpy(buf, cb->rf + off, len);
		return 0;
	}
	if (cb->nested)
		return hl_emu_fetch_va(q, job, cb->va + off, buf, len);
	return hl_emu_fetch(q, job, cb->va + off, buf, len);
}

/*
 * The base of the executing engine's register block (WREG_32's offsets):
 * its queue manager's, at GAUDI's addresses (emu_sync.c)
 */
static u64 hl_emu_gaudi_engine_block(struct hl_emu_queue *q)
{
	return hl_emu_sync_engine_block(q->emu, q->id);
}

/*
 * The fence and message-base slot of a packet: a CP_DMA'd CB runs on the
 * queue manager's lower CP (its stream 4), as on GAUDI
 */
static u32 hl_emu_gaudi_slot(struct hl_emu_queue *q,
			     const struct hl_emu_gcb *cb)
{
	return hl_emu_sync_slot(q->emu, q->id, cb->nested);
}

/*
 * A 32-bit register write of WREG_32 or WREG_BULK: modelled ones of the
 * engine's own queue manager, or of its DMA core, only
 */
static bool hl_emu_gaudi_wreg_ok(struct hl_emu_queue *q, u64 addr)
{
	return (hl_emu_sync_own_qm(q->emu, q->id, addr) &&
		hl_emu_sync_is_reg(q->emu, addr)) ||
	       hl_emu_sync_is_dma_core_reg(q->emu, q->id, addr);
}

/* The DMA core's register @r (HL_EMU_DMA_CORE_*) of a commit's copy */
static u32 hl_emu_dma_reg(const u32 *regs, u32 r)
{
	return regs[r / 4];
}

static u64 hl_emu_dma_reg64(const u32 *regs, u32 lo)
{
	return (u64)regs[lo / 4 + 1] << 32 | regs[lo / 4];
}

/*
 * A write of the DMA core's COMMIT (@regs: its registers then): a
 * transfer of lines of TSIZE_0 bytes from SRC_BASE to DST_BASE, each side
 * walking its own dimensions 1..4 (TSIZE_<d> lines, STRIDE_<d> bytes
 * apart; a TSIZE of 0 counts as 1), or one line when LIN; then, with
 * WR_COMP_EN, WR_COMP_WDATA written to WR_COMP_ADDR as MSG_LONG writes.
 * The two sides must agree on TSIZE_0 and on their number of lines;
 * transpose, data types, memset and compression are not modelled
 * (-EINVAL); the context id is the job's.
 */
/* A DMA engine's fault is an event: the transfer ends, the job goes on */
static int hl_emu_gaudi_dma_end(int rc)
{
	return rc == -EFAULT ? 0 : rc;
}

static int hl_emu_gaudi_dma_commit(struct hl_emu_queue *q,
				   struct hl_cs_job *job, const u32 *regs,
				   u32 commit)
{
	u32 sn[HL_EMU_DMA_CORE_DIMS], dn[HL_EMU_DMA_CORE_DIMS];
	u32 ss[HL_EMU_DMA_CORE_DIMS], ds[HL_EMU_DMA_CORE_DIMS];
	u64 src = hl_emu_dma_reg64(regs, HL_EMU_DMA_CORE_SRC_BASE_LO);
	u64 dst = hl_emu_dma_reg64(regs, HL_EMU_DMA_CORE_DST_BASE_LO);
	u32 line = hl_emu_dma_reg(regs, HL_EMU_DMA_CORE_SRC_TSIZE_0);
	u64 lines = 1, dlines = 1, k, ks, kd, s, d;
	struct hl_emu_pkt_lin_dma pkt = {};
	u32 i, dims = 0;
	int rc;

	if (commit & ~(HL_EMU_DMA_COMMIT_WR_COMP_EN | HL_EMU_DMA_COMMIT_LIN |
		       HL_EMU_DMA_COMMIT_CTX_ID))
		return -EINVAL;
	if (!(commit & HL_EMU_DMA_COMMIT_LIN))
		dims = HL_EMU_DMA_CORE_DIMS;
	for (i = 0; i < dims; i++) {
		sn[i] = max(hl_emu_dma_reg(regs, HL_EMU_DMA_CORE_SRC_TSIZE_1 + 8 * i), 1u);
		ss[i] = hl_emu_dma_reg(regs, HL_EMU_DMA_CORE_SRC_TSIZE_1 + 8 * i + 4);
		dn[i] = max(hl_emu_dma_reg(regs, HL_EMU_DMA_CORE_DST_TSIZE_1 + 8 * i), 1u);
		ds[i] = hl_emu_dma_reg(regs, HL_EMU_DMA_CORE_DST_TSIZE_1 + 8 * i + 4);
		if (check_mul_overflow(lines, (u64)sn[i], &lines) ||
		    check_mul_overflow(dlines, (u64)dn[i], &dlines))
			return -EINVAL;
	}
	if (dims && (lines != dlines ||
		     line != hl_emu_dma_reg(regs, HL_EMU_DMA_CORE_DST_TSIZE_0)))
		return -EINVAL;

	pkt.tsize = cpu_to_le64(line);
	for (k = 0; k < lines; k++) {
		rc = hl_emu_job_check(q, job);
		if (rc)
			return rc;
		s = src;
		d = dst;
		ks = k;
		kd = k;
		for (i = 0; i < dims; i++) {
			s += (ks % sn[i]) * ss[i];
			ks /= sn[i];
			d += (kd % dn[i]) * ds[i];
			kd /= dn[i];
		}
		pkt.src_addr = cpu_to_le64(s);
		pkt.dst_addr = cpu_to_le64(d);
		rc = hl_emu_exec_lin_dma(q, job, &pkt);
		if (rc == -EFAULT)
			break;	/* the event: the rest of the transfer is not run */
		if (rc)
			return rc;
	}

	if (commit & HL_EMU_DMA_COMMIT_WR_COMP_EN) {
		struct hl_emu_pkt_msg_long m = {
			.value = cpu_to_le32(hl_emu_dma_reg(regs,
							    HL_EMU_DMA_CORE_WR_COMP_WDATA)),
			.addr = cpu_to_le64(hl_emu_dma_reg64(regs,
							     HL_EMU_DMA_CORE_WR_COMP_ADDR_LO)),
		};

		return hl_emu_exec_msg_long(q, job, &m);
	}
	return 0;
}

static int hl_emu_gaudi_wreg(struct hl_emu_queue *q, struct hl_cs_job *job,
			     u64 addr, u32 value)
{
	u32 regs[HL_EMU_DMA_CORE_REGS_END / 4];
	int rc;

	rc = hl_emu_sync_dma_core_write(q->emu, q->id, addr, value, regs);
	if (rc > 0)
		return hl_emu_gaudi_dma_commit(q, job, regs, value);
	if (!rc)
		return 0;
	if (!hl_emu_gaudi_wreg_ok(q, addr)) {
		hl_dbg(q->emu->hdev, EMU,
		       "queue %u: WREG to 0x%llx, a register not modelled\n",
		       q->id, addr);
		return -EINVAL;
	}
	return hl_emu_sync_write(q->emu, addr, value);
}

static int hl_emu_gaudi_wreg_bulk(struct hl_emu_queue *q,
				  struct hl_cs_job *job,
				  const struct hl_emu_gcb *cb, u32 off,
				  u64 addr, u32 n64)
{
	__le32 vals[64];
	u32 i, n, done;
	int rc;

	/* Every register first: a bulk write to a hole writes nothing */
	for (i = 0; i < 2 * n64; i++)
		if (!hl_emu_gaudi_wreg_ok(q, addr + 4ull * i))
			return hl_emu_gaudi_wreg(q, job, addr + 4ull * i, 0);

	for (done = 0; done < 2 * n64; done += n) {
		n = min_t(u32, 2 * n64 - done, ARRAY_SIZE(vals));
		rc = hl_emu_gcb_fetch(q, job, cb, off + 4 * done, vals,
				      4 * n);
		if (rc)
			return rc;
		for (i = 0; i < n; i++) {
			rc = hl_emu_gaudi_wreg(q, job, addr + 4ull * (done + i),
					       le32_to_cpu(vals[i]));
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* MSG_LONG, MSG_PROT and MSG_SHORT: a value, or the time, to @addr */
static int hl_emu_gaudi_msg(struct hl_emu_queue *q, struct hl_cs_job *job,
			    u32 op, u64 addr, u32 value)
{
	struct hl_emu_pkt_msg_long m = {
		.value = cpu_to_le32(value),
		.addr = cpu_to_le64(addr),
	};
	__le64 now;

	switch (op) {
	case HL_GPKT_MSG_OP_VALUE:
		return hl_emu_exec_msg_long(q, job, &m);
	case HL_GPKT_MSG_OP_TIMESTAMP:
		if (!IS_ALIGNED(addr, sizeof(now)) ||
		    hl_emu_sync_is_reg(q->emu, addr))
			return -EINVAL;
		now = cpu_to_le64(ktime_get_ns());
		return hl_emu_chunk_access(q, job, addr, &now, sizeof(now),
					   true);
	default:
		return -EINVAL;
	}
}

static int hl_emu_gaudi_msg_short(struct hl_emu_queue *q,
				  struct hl_cs_job *job,
				  const struct hl_emu_gcb *cb, u32 ctl, u32 value)
{
	u32 base = FIELD_GET(HL_GPKT_SHORT_BASE, ctl);
	u64 addr;

	if (FIELD_GET(HL_GPKT_MSG_OP, ctl) != HL_GPKT_MSG_OP_VALUE)
		return -EINVAL;
	addr = hl_emu_sync_msg_base(q->emu, hl_emu_gaudi_slot(q, cb), base) +
	       FIELD_GET(HL_GPKT_SHORT_OFFSET, ctl);
	return hl_emu_gaudi_msg(q, job, HL_GPKT_MSG_OP_VALUE, addr, value);
}

static int hl_emu_gaudi_lin_dma(struct hl_emu_queue *q, struct hl_cs_job *job,
				const struct hl_emu_gpkt_lin_dma *pkt, u32 ctl)
{
	u64 src = le64_to_cpu(pkt->src_addr);
	u64 dst = le64_to_cpu(pkt->dst_addr_ctx) & HL_GPKT_DMA_DST;
	u64 size = le32_to_cpu(pkt->tsize);
	struct hl_emu_pkt_lin_dma d = {
		.src_addr = cpu_to_le64(src),
		.dst_addr = cpu_to_le64(dst),
		.tsize = cpu_to_le64(size),
	};

	if (!(ctl & HL_GPKT_DMA_LIN))
		return -EINVAL;
	if (ctl & HL_GPKT_DMA_MEMSET) {
		struct hl_emu_pkt_memset m = {
			.dst_addr = cpu_to_le64(dst),
			.value = cpu_to_le64(src),
			.tsize = cpu_to_le64(size),
		};

		return hl_emu_gaudi_dma_end(hl_emu_exec_memset(q, job, &m));
	}
	return hl_emu_gaudi_dma_end(hl_emu_exec_lin_dma(q, job, &d));
}

/* WAIT: fence counter id of the queue (or lower CP) += inc_val */
static int hl_emu_gaudi_wait(struct hl_emu_queue *q,
			     const struct hl_emu_gcb *cb, u32 cfg)
{
	u64 addr;

	if (cfg & ~(HL_GPKT_WAIT_CYCLES | HL_GPKT_WAIT_INC | HL_GPKT_WAIT_ID))
		return -EINVAL;
	addr = hl_emu_sync_fence_addr(q->emu, hl_emu_gaudi_slot(q, cb),
				      FIELD_GET(HL_GPKT_WAIT_ID, cfg));
	if (!addr)
		return -EINVAL;
	return hl_emu_sync_write(q->emu, addr,
				 FIELD_GET(HL_GPKT_WAIT_INC, cfg));
}

/* LOAD_AND_EXE's load of the predicates (dst 0) */
static int hl_emu_gaudi_load_pred(struct hl_emu_queue *q,
				  struct hl_cs_job *job, u64 src)
{
	__le32 words[HL_GPKT_PRED_NUM];
	u32 i;
	int rc;

	rc = hl_emu_fetch_va(q, job, src, words, sizeof(words));
	if (rc)
		return rc;
	/* P0 is not loaded: it stays set */
	for (i = 1; i < HL_GPKT_PRED_NUM; i++) {
		if (le32_to_cpu(words[i]) & 1)
			q->pred |= BIT(i);
		else
			q->pred &= ~BIT(i);
	}
	return 0;
}

static int hl_emu_gaudi_run_cb(struct hl_emu_queue *q, struct hl_cs_job *job,
			       const struct hl_emu_gcb *cb);

/*
 * LOAD_AND_EXE's execute: the packet in the scalar registers, R0..R3
 * (etype 0: a packet of 8 or 16 bytes from R0) or R2..R3 (etype 1: a
 * packet of 8 bytes from R2), as a one-packet CB of its own, run by the CP
 * that runs @from (the lower CP for a CP_DMA'd CB: its fences and message
 * bases)
 */
static int hl_emu_gaudi_exe_rf(struct hl_emu_queue *q, struct hl_cs_job *job,
			       const struct hl_emu_gcb *from, bool upper)
{
	u8 rf[sizeof(q->scalar)];
	struct hl_emu_gcb cb = {
		.rf = rf,
		.size = upper ? sizeof(rf) / 2 : sizeof(rf),
		.nested = from->nested,
	};

	memcpy(rf, upper ? &q->scalar[2] : &q->scalar[0], cb.size);
	return hl_emu_gaudi_run_cb(q, job, &cb);
}

/*
 * LOAD_AND_EXE: load the predicates (dst 0) or the scalar registers R0..R3
 * (dst 1, 16 bytes from src), then, with exe, execute the packet the
 * scalar registers hold (hl_emu_gaudi_exe_rf())
 */
static int hl_emu_gaudi_load_and_exe(struct hl_emu_queue *q,
				     struct hl_cs_job *job,
				     const struct hl_emu_gcb *cb, u32 cfg,
				     u64 src)
{
	int rc;

	if (cfg & ~(HL_GPKT_LAE_DST | HL_GPKT_LAE_LOAD | HL_GPKT_LAE_EXE |
		    HL_GPKT_LAE_ETYPE) || cb->rf)
		return -EINVAL;
	if (cfg & HL_GPKT_LAE_LOAD) {
		if (cfg & HL_GPKT_LAE_DST)
			rc = hl_emu_fetch_va(q, job, src, q->scalar,
					     sizeof(q->scalar));
		else
			rc = hl_emu_gaudi_load_pred(q, job, src);
		if (rc)
			return rc;
	}
	if (!(cfg & HL_GPKT_LAE_EXE))
		return 0;
	return hl_emu_gaudi_exe_rf(q, job, cb, cfg & HL_GPKT_LAE_ETYPE);
}

/* An extension packet: the engine's view has dwords 0 and 1 swapped */
static int hl_emu_gaudi_ext(struct hl_emu_queue *q, struct hl_cs_job *job,
			    union hl_emu_gpkt *pkt, u32 opcode)
{
	/* The engines read no ctl: the first __le32 becomes 0 */
	pkt->hdr.ctl = pkt->hdr.word0;
	pkt->hdr.word0 = 0;

	switch (opcode) {
	case HL_GAUDI_PKT_REDUCE:
		return hl_emu_exec_reduce(q, job, &pkt->reduce);
	case HL_GAUDI_PKT_NIC_SEND:
		return hl_emu_nic_exec_send(q, job, &pkt->nic);
	case HL_GAUDI_PKT_NIC_RECV:
		return hl_emu_nic_exec_recv(q, job, &pkt->nic);
	default:
		return hl_emu_nic_exec_write(q, job, &pkt->nic_write,
					     opcode == HL_GAUDI_PKT_NIC_WRITE_IMM);
	}
}

/*
 * ARB_POINT: rls gives the grant back; else the stream asks for it and
 * waits, its job's deadline and teardown checked as a FENCE's, for at most
 * HL_EMU_ARB_QUIET_MAX of quiet period from its ask or the grant's last
 * release, whichever is later (emu_sync.c)
 */
static int hl_emu_gaudi_arb_point(struct hl_emu_queue *q,
				  struct hl_cs_job *job, u32 w0)
{
	unsigned long asked = jiffies;
	u32 gen;
	int rc;

	if (w0 & ~(HL_GPKT_ARB_PRIORITY | HL_GPKT_ARB_RLS))
		return -EINVAL;
	if (w0 & HL_GPKT_ARB_RLS) {
		hl_emu_sync_arb_release(q->emu, q->id);
		return 0;
	}
	while (!hl_emu_sync_arb_acquire(q->emu, q->id,
					FIELD_GET(HL_GPKT_ARB_PRIORITY, w0),
					asked, &gen)) {
		rc = hl_emu_job_check(q, job);
		if (rc)
			return rc;
		hl_emu_sync_arb_wait(q->emu, gen, HL_EMU_ARB_POLL);
	}
	return 0;
}

/* One packet, read whole into @pkt; returns 0, HL_EMU_GPKT_STOP or -errno */
static int hl_emu_gaudi_exec(struct hl_emu_queue *q, struct hl_cs_job *job,
			     const struct hl_emu_gcb *cb, u32 off,
			     union hl_emu_gpkt *pkt, u32 opcode, u32 ctl)
{
	u32 w0 = le32_to_cpu(pkt->hdr.word0);
	u64 block;

	switch (opcode) {
	case HL_GAUDI_PKT_NOP:
	case HL_GAUDI_PKT_STOP:
		if (w0)
			return -EINVAL;
		return opcode == HL_GAUDI_PKT_STOP ? HL_EMU_GPKT_STOP : 0;
	case HL_GAUDI_PKT_ARB_POINT:
		return hl_emu_gaudi_arb_point(q, job, w0);
	case HL_GAUDI_PKT_WREG_32:
		block = hl_emu_gaudi_engine_block(q);
		return hl_emu_gaudi_wreg(q, job, block +
					 FIELD_GET(HL_GPKT_WREG_OFFSET, ctl),
					 w0);
	case HL_GAUDI_PKT_WREG_BULK:
		block = hl_emu_gaudi_engine_block(q);
		return hl_emu_gaudi_wreg_bulk(q, job, cb,
					      off + sizeof(pkt->hdr),
					      block +
					      FIELD_GET(HL_GPKT_WREG_OFFSET, ctl),
					      FIELD_GET(HL_GPKT_BULK_SIZE64, w0));
	case HL_GAUDI_PKT_MSG_LONG:
	case HL_GAUDI_PKT_MSG_PROT:
		return hl_emu_gaudi_msg(q, job, FIELD_GET(HL_GPKT_MSG_OP, ctl),
					le64_to_cpu(pkt->msg_long.addr), w0);
	case HL_GAUDI_PKT_MSG_SHORT:
		return hl_emu_gaudi_msg_short(q, job, cb, ctl, w0);
	case HL_GAUDI_PKT_FENCE: {
		struct hl_emu_pkt_fence f = { .cfg = pkt->hdr.word0 };

		return hl_emu_exec_fence_slot(q, job, &f,
					      hl_emu_gaudi_slot(q, cb));
	}
	case HL_GAUDI_PKT_WAIT:
		return hl_emu_gaudi_wait(q, cb, w0);
	case HL_GAUDI_PKT_LOAD_AND_EXE:
		return hl_emu_gaudi_load_and_exe(q, job, cb, w0,
						 le64_to_cpu(pkt->cp_dma.src_addr));
	case HL_GAUDI_PKT_LIN_DMA:
		return hl_emu_gaudi_lin_dma(q, job, &pkt->lin_dma, ctl);
	case HL_GAUDI_PKT_CP_DMA: {
		struct hl_emu_gcb sub = {
			.va = le64_to_cpu(pkt->cp_dma.src_addr),
			.size = w0,
			.nested = true,
		};

		if (cb->nested || cb->rf || !IS_ALIGNED(sub.va, 8) ||
		    !IS_ALIGNED(sub.size, 8))
			return -EINVAL;
		return hl_emu_gaudi_run_cb(q, job, &sub);
	}
	default:
		return hl_emu_gaudi_ext(q, job, pkt, opcode);
	}
}

static int hl_emu_gaudi_run_cb(struct hl_emu_queue *q, struct hl_cs_job *job,
			       const struct hl_emu_gcb *cb)
{
	const struct hl_emu_gpkt_desc *desc;
	union hl_emu_gpkt pkt;
	u32 off = 0, size, ctl, opcode;
	u64 full;
	int rc;

	while (off < cb->size) {
		rc = hl_emu_job_check(q, job);
		if (rc)
			return rc;

		if (sizeof(pkt.hdr) > cb->size - off)
			goto malformed_nohdr;
		rc = hl_emu_gcb_fetch(q, job, cb, off, &pkt.hdr,
				      sizeof(pkt.hdr));
		if (rc)
			return rc;

		ctl = le32_to_cpu(pkt.hdr.ctl);
		opcode = FIELD_GET(HL_GAUDI_PKT_CTL_OPCODE_MASK, ctl);
		desc = &hl_emu_gpkt_descs[opcode];
		size = desc->size;
		full = size;
		if (opcode == HL_GAUDI_PKT_WREG_BULK)
			full += 8ull * FIELD_GET(HL_GPKT_BULK_SIZE64,
						 le32_to_cpu(pkt.hdr.word0));
		if (!size || full > cb->size - off ||
		    (ctl & ~(HL_GAUDI_PKT_CTL_OPCODE_MASK |
			     HL_GAUDI_PKT_CTL_BARRIERS | desc->ctl)) ||
		    (opcode == HL_GAUDI_PKT_WREG_BULK &&
		     (le32_to_cpu(pkt.hdr.word0) & ~HL_GPKT_BULK_SIZE64)))
			goto malformed;

		/*
		 * A predicate that is clear: the packet is skipped (in the
		 * scalar registers, it was the one packet)
		 */
		if (desc->pred &&
		    !(q->pred & BIT(FIELD_GET(HL_GPKT_PRED, ctl)))) {
			if (cb->rf)
				break;
			off += full;
			continue;
		}

		if (size > sizeof(pkt.hdr)) {
			rc = hl_emu_gcb_fetch(q, job, cb, off + sizeof(pkt.hdr),
					      pkt.raw + sizeof(pkt.hdr),
					      size - sizeof(pkt.hdr));
			if (rc)
				return rc;
		}

		rc = hl_emu_gaudi_exec(q, job, cb, off, &pkt, opcode, ctl);
		if (rc == HL_EMU_GPKT_STOP)
			return rc;
		if (rc) {
			hl_dbg(q->emu->hdev, EMU,
			       "queue %u: GAUDI packet 0x%08x at CB 0x%llx + %u failed: %d\n",
			       q->id, ctl, cb->va, off, rc);
			return rc;
		}
		off += full;
		/* The scalar registers hold one packet */
		if (cb->rf)
			break;
	}
	return 0;

malformed:
	hl_dbg(q->emu->hdev, EMU,
	       "queue %u: bad GAUDI packet 0x%08x at CB 0x%llx + %u\n",
	       q->id, ctl, cb->va, off);
	return -EINVAL;
malformed_nohdr:
	hl_dbg(q->emu->hdev, EMU,
	       "queue %u: GAUDI packet cut at CB 0x%llx + %u\n", q->id,
	       cb->va, off);
	return -EINVAL;
}

/**
 * hl_emu_gaudi_run_job - run a job's command buffer in GAUDI's format
 * (asic=gaudi).
 * @q: the queue.
 * @job: the job; its CB address is 8-byte aligned.
 *
 * Return: 0 (also after a STOP), or the -errno of emu_queue.c's table.
 */
int hl_emu_gaudi_run_job(struct hl_emu_queue *q, struct hl_cs_job *job)
{
	struct hl_emu_gcb cb = {
		.va = hl_cs_job_cb_va(job),
		.size = hl_cs_job_cb_size(job),
	};
	int rc;

	q->pred = BIT(0);
	memset(q->scalar, 0, sizeof(q->scalar));
	rc = hl_emu_gaudi_run_cb(q, job, &cb);
	/* Nothing it held or asked of the arbiter outlives the job */
	hl_emu_sync_arb_release(q->emu, q->id);
	return rc == HL_EMU_GPKT_STOP ? 0 : rc;
}

/**
 * hl_emu_gaudi_kpkt_msg_long - a MSG_LONG in GAUDI's format, for a
 * kernel-owned CB (the driver's SIGNAL and WAIT).
 * @buf: where; 16 bytes.
 * @addr: the register.
 * @value: the value.
 *
 * Return: its size.
 */
u32 hl_emu_gaudi_kpkt_msg_long(void *buf, u64 addr, u32 value)
{
	struct hl_emu_gpkt_msg_long pkt = {
		.value = cpu_to_le32(value),
		.ctl = cpu_to_le32(HL_GAUDI_PKT_CTL(HL_GAUDI_PKT_MSG_LONG) |
				   HL_GAUDI_PKT_CTL_RB | HL_GAUDI_PKT_CTL_MB),
		.addr = cpu_to_le64(addr),
	};

	memcpy(buf, &pkt, sizeof(pkt));
	return sizeof(pkt);
}

/**
 * hl_emu_gaudi_kpkt_fence - a FENCE in GAUDI's format, for a kernel-owned
 * CB.
 * @buf: where; 8 bytes.
 * @cfg: HL_PKT_FENCE_CFG(id, target, dec).
 *
 * Return: its size.
 */
u32 hl_emu_gaudi_kpkt_fence(void *buf, u32 cfg)
{
	struct hl_emu_gpkt_hdr pkt = {
		.word0 = cpu_to_le32(cfg),
		.ctl = cpu_to_le32(HL_GAUDI_PKT_CTL(HL_GAUDI_PKT_FENCE) |
				   HL_GAUDI_PKT_CTL_RB | HL_GAUDI_PKT_CTL_MB),
	};

	memcpy(buf, &pkt, sizeof(pkt));
	return sizeof(pkt);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs emu: the engine queues.
 *
 * Each queue runs its jobs one at a time, in the order they were queued,
 * from its own work item on its own workqueue, so jobs on different queues
 * run in parallel, and a queue stalled in a FENCE never holds up the queue
 * that releases it. A job is a command buffer at a device VA: the
 * queue manager fetches its packets through the device MMU (emu_mmu.c) and
 * the engine executes them (NOP, LIN_DMA, MEMSET, MSG_LONG, REDUCE, FENCE,
 * and the NIC's SEND, WRITE and RECV in emu_nic_req.c and emu_nic_resp.c;
 * formats in the uAPI header). Under asic=gaudi the queues read GAUDI's
 * format instead (emu_gaudi_pkt.c), whose packets run on the same engines
 * (the hl_emu_exec_*() functions, emu_exec.h). A MSG_LONG to a
 * sync-manager or fence
 * register writes it (emu_sync.c); FENCE stalls the queue until its fence
 * counter is reached. A job of a kernel-owned command buffer (SIGNAL and
 * WAIT submissions) is fetched from the driver's copy instead of through
 * the MMU. Fetches
 * and MSG_LONG are cut in chunks of at most 4 KiB that never cross a 4 KiB
 * VA page; LIN_DMA, MEMSET and REDUCE move their data in runs as long as
 * the translation allows (hl_emu_mmu_span()), in slices of at most
 * HL_EMU_SLICE_SIZE; each chunk or slice is translated and copied
 * inside an engine access (hl_device_hw_access_begin(), common/asic.h).
 *
 * A job fails, and the rest of its command buffer is skipped, with:
 *   -EFAULT     an access to a VA that does not translate (reported through
 *               hl_ctx_record_fault(), so HL_INFO_PAGE_FAULT_EVENT tells);
 *   -EINVAL     a malformed command buffer: not 8-byte aligned, an unknown
 *               opcode, non-zero reserved bits (ctl bits [23:0], pad), a
 *               packet cut by cb_size, a misaligned MSG_LONG, a REDUCE of
 *               an unsupported type or operation, with a misaligned address
 *               or with no element;
 *   -ETIMEDOUT  the job's deadline (its submission plus its timeout) passed
 *               (checked between packets and between chunks or slices);
 *   -ECANCELED  the job's context is being torn down (its file closed, or
 *               a hard reset);
 *   -ENODEV     the device is going away (hw_fini);
 *   -EIO        a NIC message failed (emu_nic_comp.c: its completion entry
 *               says why; -EFAULT and -ETIMEDOUT keep their meaning).
 * User-caused failures are logged with hl_dbg() only.
 */

#include <linux/dma-fence.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "emu.h"
#include "emu_exec.h"
#include "emu_nic.h"
#include "emu_reduce.h"
#include "emu_sync.h"

union hl_emu_pkt {
	struct hl_emu_pkt_hdr hdr;
	struct hl_emu_pkt_lin_dma lin_dma;
	struct hl_emu_pkt_memset memset;
	struct hl_emu_pkt_msg_long msg_long;
	struct hl_emu_pkt_reduce reduce;
	struct hl_emu_pkt_fence fence;
	struct hl_emu_pkt_nic nic;
	struct hl_emu_pkt_nic_write nic_write;
	u8 raw[sizeof(struct hl_pkt_nic_write)];
};

/*
 * Each engine view has the uAPI packet's size, and each of its fields the
 * offset of the uAPI field it reads (@ufield of struct @upkt): with every
 * field listed in order, the sizes follow
 */
#define HL_EMU_PKT_SAME(epkt, upkt) \
	static_assert(sizeof(struct epkt) == sizeof(struct upkt))
#define HL_EMU_PKT_FIELD(epkt, efield, upkt, ufield) \
	static_assert(offsetof(struct epkt, efield) == \
		      offsetof(struct upkt, ufield))

HL_EMU_PKT_SAME(hl_emu_pkt_hdr, hl_pkt_nop);
HL_EMU_PKT_FIELD(hl_emu_pkt_hdr, ctl, hl_pkt_nop, ctl);
HL_EMU_PKT_FIELD(hl_emu_pkt_hdr, word1, hl_pkt_nop, pad);

HL_EMU_PKT_SAME(hl_emu_pkt_lin_dma, hl_pkt_lin_dma);
HL_EMU_PKT_FIELD(hl_emu_pkt_lin_dma, ctl, hl_pkt_lin_dma, ctl);
HL_EMU_PKT_FIELD(hl_emu_pkt_lin_dma, src_addr, hl_pkt_lin_dma, src_addr);
HL_EMU_PKT_FIELD(hl_emu_pkt_lin_dma, dst_addr, hl_pkt_lin_dma, dst_addr);
HL_EMU_PKT_FIELD(hl_emu_pkt_lin_dma, tsize, hl_pkt_lin_dma, tsize);

HL_EMU_PKT_SAME(hl_emu_pkt_memset, hl_pkt_memset);
HL_EMU_PKT_FIELD(hl_emu_pkt_memset, ctl, hl_pkt_memset, ctl);
HL_EMU_PKT_FIELD(hl_emu_pkt_memset, dst_addr, hl_pkt_memset, dst_addr);
HL_EMU_PKT_FIELD(hl_emu_pkt_memset, value, hl_pkt_memset, value);
HL_EMU_PKT_FIELD(hl_emu_pkt_memset, tsize, hl_pkt_memset, tsize);

HL_EMU_PKT_SAME(hl_emu_pkt_msg_long, hl_pkt_msg_long);
HL_EMU_PKT_FIELD(hl_emu_pkt_msg_long, ctl, hl_pkt_msg_long, ctl);
HL_EMU_PKT_FIELD(hl_emu_pkt_msg_long, value, hl_pkt_msg_long, value);
HL_EMU_PKT_FIELD(hl_emu_pkt_msg_long, addr, hl_pkt_msg_long, addr);

HL_EMU_PKT_SAME(hl_emu_pkt_fence, hl_pkt_fence);
HL_EMU_PKT_FIELD(hl_emu_pkt_fence, ctl, hl_pkt_fence, ctl);
HL_EMU_PKT_FIELD(hl_emu_pkt_fence, cfg, hl_pkt_fence, cfg);

HL_EMU_PKT_SAME(hl_emu_pkt_reduce, hl_pkt_reduce);
HL_EMU_PKT_FIELD(hl_emu_pkt_reduce, ctl, hl_pkt_reduce, ctl);
HL_EMU_PKT_FIELD(hl_emu_pkt_reduce, count, hl_pkt_reduce, count);
HL_EMU_PKT_FIELD(hl_emu_pkt_reduce, src_addr, hl_pkt_reduce, src_addr);
HL_EMU_PKT_FIELD(hl_emu_pkt_reduce, dst_addr, hl_pkt_reduce, dst_addr);
HL_EMU_PKT_FIELD(hl_emu_pkt_reduce, dtype, hl_pkt_reduce, dtype);
HL_EMU_PKT_FIELD(hl_emu_pkt_reduce, op, hl_pkt_reduce, op);

HL_EMU_PKT_SAME(hl_emu_pkt_nic, hl_pkt_nic_send);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic, ctl, hl_pkt_nic_send, ctl);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic, conn_id, hl_pkt_nic_send, conn_id);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic, addr, hl_pkt_nic_send, addr);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic, size, hl_pkt_nic_send, size);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic, wr_id, hl_pkt_nic_send, wr_id);
HL_EMU_PKT_SAME(hl_emu_pkt_nic, hl_pkt_nic_recv);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic, ctl, hl_pkt_nic_recv, ctl);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic, conn_id, hl_pkt_nic_recv, conn_id);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic, addr, hl_pkt_nic_recv, addr);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic, size, hl_pkt_nic_recv, size);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic, wr_id, hl_pkt_nic_recv, wr_id);
HL_EMU_PKT_SAME(hl_emu_pkt_nic_write, hl_pkt_nic_write);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic_write, ctl, hl_pkt_nic_write, ctl);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic_write, conn_id, hl_pkt_nic_write, conn_id);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic_write, local_addr, hl_pkt_nic_write,
		 local_addr);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic_write, remote_addr, hl_pkt_nic_write,
		 remote_addr);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic_write, size, hl_pkt_nic_write, size);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic_write, wr_id, hl_pkt_nic_write, wr_id);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic_write, lkey, hl_pkt_nic_write, lkey);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic_write, rkey, hl_pkt_nic_write, rkey);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic_write, imm_data, hl_pkt_nic_write,
		 imm_data);
HL_EMU_PKT_FIELD(hl_emu_pkt_nic_write, pad, hl_pkt_nic_write, pad);
static_assert(sizeof(union hl_emu_pkt) == sizeof(struct hl_pkt_nic_write));

/* Size of a packet by opcode, 0 for an unknown opcode */
static u32 hl_emu_pkt_size(u32 opcode)
{
	switch (opcode) {
	case HL_PKT_NOP:
		return sizeof(struct hl_pkt_nop);
	case HL_PKT_LIN_DMA:
		return sizeof(struct hl_pkt_lin_dma);
	case HL_PKT_MEMSET:
		return sizeof(struct hl_pkt_memset);
	case HL_PKT_MSG_LONG:
		return sizeof(struct hl_pkt_msg_long);
	case HL_PKT_REDUCE:
		return sizeof(struct hl_pkt_reduce);
	case HL_PKT_FENCE:
		return sizeof(struct hl_pkt_fence);
	case HL_PKT_NIC_SEND:
	case HL_PKT_NIC_RECV:
		return sizeof(struct hl_emu_pkt_nic);
	case HL_PKT_NIC_WRITE:
	case HL_PKT_NIC_WRITE_IMM:
		return sizeof(struct hl_emu_pkt_nic_write);
	default:
		return 0;
	}
}

/* Bytes from @va to the end of its 4 KiB page, at most @left */
static u32 hl_emu_chunk_len(u64 va, u64 left)
{
	u64 n = HL_EMU_CHUNK_SIZE - (va & (HL_EMU_CHUNK_SIZE - 1));

	return min(n, left);
}

/*
 * Between packets and chunks: abort when stopped, when the job's context
 * is torn down, or past the job's deadline.
 */
int hl_emu_job_check(struct hl_emu_queue *q, struct hl_cs_job *job)
{
	int rc;

	if (READ_ONCE(q->emu->stopped))
		return -ENODEV;
	rc = hl_cs_job_check(job);
	if (rc) {
		hl_dbg(q->emu->hdev, EMU, "queue %u: job aborted: %d\n",
		       q->id, rc);
		return rc;
	}
	cond_resched();
	return 0;
}

static int hl_emu_job_fault(struct hl_emu_queue *q, struct hl_cs_job *job,
			    u64 va, bool write, int rc)
{
	if (rc != -EFAULT)
		return rc;
	hl_dbg(q->emu->hdev, MMU, "queue %u: MMU fault, %s at VA 0x%llx\n",
	       q->id, write ? "write" : "read", va);
	hl_ctx_record_fault(hl_cs_job_ctx(job), va, q->id, write);
	return -EFAULT;
}

/* One chunk (within a 4 KiB VA page) read or written by the engine */
int hl_emu_chunk_access(struct hl_emu_queue *q, struct hl_cs_job *job,
			u64 va, void *buf, u32 len, bool write)
{
	struct hl_device *hdev = q->emu->hdev;
	int rc;

	hl_device_hw_access_begin(hdev);
	rc = hl_emu_mmu_access(q, hl_cs_job_asid(job), va, buf, len, write);
	hl_device_hw_access_end(hdev);

	return hl_emu_job_fault(q, job, va, write, rc);
}

/**
 * hl_emu_fetch_va - the queue manager reads @len bytes of a command buffer
 * at device VA @va through the MMU.
 * @q: the queue.
 * @job: the job.
 * @va: device VA.
 * @buf: receives the bytes.
 * @len: bytes.
 *
 * Return: 0, or -EFAULT (recorded) for a VA that does not translate.
 */
int hl_emu_fetch_va(struct hl_emu_queue *q, struct hl_cs_job *job, u64 va,
		    void *buf, u32 len)
{
	u32 n;
	int rc;

	while (len) {
		n = hl_emu_chunk_len(va, len);
		rc = hl_emu_chunk_access(q, job, va, buf, n, false);
		if (rc)
			return rc;
		va += n;
		buf += n;
		len -= n;
	}
	return 0;
}

/**
 * hl_emu_fetch - the queue manager reads @len bytes of the job's command
 * buffer at @va: a device VA, or for a kernel-owned CB an offset into the
 * driver's copy (hl_cs_job_kcb()); the caller keeps @va + @len within the
 * job's cb_size.
 * @q: the queue.
 * @job: the job.
 * @va: device VA, or offset.
 * @buf: receives the bytes.
 * @len: bytes.
 *
 * Return: 0, or -EFAULT (recorded) for a VA that does not translate.
 */
int hl_emu_fetch(struct hl_emu_queue *q, struct hl_cs_job *job, u64 va,
		 void *buf, u32 len)
{
	const u8 *kcb = hl_cs_job_kcb(job);

	if (kcb) {
		memcpy(buf, kcb + va, len);
		return 0;
	}
	return hl_emu_fetch_va(q, job, va, buf, len);
}

/**
 * struct hl_emu_xfer - a transfer in progress.
 * @src: device VA of the next source byte (unused with @no_src).
 * @dst: device VA of the next destination byte.
 * @left: bytes left.
 * @no_src: a one-operand engine (MEMSET): only @dst is walked, and @run
 *	gets a NULL @s.
 * @dst_write: a destination that does not translate is reported as a write
 *	fault (LIN_DMA, MEMSET), or as a read (REDUCE, which reads it first).
 * @fill: MEMSET's pattern is one repeated byte, q->buf[0].
 * @dtype: REDUCE's HL_REDUCE_DTYPE_*.
 * @op: REDUCE's HL_REDUCE_OP_*.
 * @run: the engine's work on the first @n bytes of runs @s at device VA
 *	@src and @d at @dst (@n at most each run's length), under
 *	an engine access; returns the bytes done, from 1 to @n.
 *
 * An engine that moves data (LIN_DMA, REDUCE, MEMSET) walks its source and
 * destination together, pair of runs by pair of runs, or its destination
 * alone (hl_emu_exec_xfer()): each run translated through the device MMU
 * (hl_emu_mmu_span()), in slices of at most HL_EMU_SLICE_SIZE, each slice
 * inside an engine access, the job checked between slices; the
 * engine's own work is @run.
 */
struct hl_emu_xfer {
	u64 src;
	u64 dst;
	u64 left;
	bool no_src;
	bool dst_write;
	bool fill;
	u32 dtype;
	u32 op;
	u64 (*run)(struct hl_emu_queue *q, const struct hl_emu_xfer *x,
		   const struct hl_emu_span *s, const struct hl_emu_span *d,
		   u64 src, u64 dst, u64 n);
};

/*
 * One slice of @len bytes, inside an engine access. On a fault, *@done
 * bytes were done and *@va, *@write say where.
 */
static int hl_emu_xfer_slice(struct hl_emu_queue *q, u32 asid,
			     const struct hl_emu_xfer *x, u64 len, u64 *done,
			     u64 *va, bool *write)
{
	struct hl_emu_span s = {}, d;
	u64 n;
	int rc;

	for (*done = 0; *done < len; *done += n) {
		s.len = len - *done;
		if (!x->no_src) {
			*va = x->src + *done;
			*write = false;
			rc = hl_emu_mmu_span(q->emu, q, asid, *va, s.len, &s);
			if (rc)
				return rc;
		}
		*va = x->dst + *done;
		*write = x->dst_write;
		rc = hl_emu_mmu_span(q->emu, q, asid, *va, s.len, &d);
		if (rc)
			return rc;

		n = x->run(q, x, x->no_src ? NULL : &s, &d, x->src + *done,
			   x->dst + *done, min(s.len, d.len));
	}
	return 0;
}

/* Runs @x slice by slice; a fault is reported where it happened */
static int hl_emu_exec_xfer(struct hl_emu_queue *q, struct hl_cs_job *job,
			    struct hl_emu_xfer *x)
{
	struct hl_device *hdev = q->emu->hdev;
	u64 va, done;
	bool write;
	int rc;

	while (x->left) {
		rc = hl_emu_job_check(q, job);
		if (rc)
			return rc;

		hl_device_hw_access_begin(hdev);
		rc = hl_emu_xfer_slice(q, hl_cs_job_asid(job), x,
				       min_t(u64, x->left, HL_EMU_SLICE_SIZE),
				       &done, &va, &write);
		hl_device_hw_access_end(hdev);
		if (rc)
			return hl_emu_job_fault(q, job, va, write, rc);

		x->src += done;
		x->dst += done;
		x->left -= done;
	}
	return 0;
}

/*
 * LIN_DMA on a pair of runs: the data moves straight from the source memory
 * to the destination. Where the runs share memory, the part goes chunk by
 * chunk through the bounce buffer, so that overlapping ranges behave as
 * documented: as if copied through a temporary buffer within a chunk (at
 * most 4 KiB), in increasing address order.
 */
static u64 hl_emu_lin_dma_run(struct hl_emu_queue *q,
			      const struct hl_emu_xfer *x,
			      const struct hl_emu_span *s,
			      const struct hl_emu_span *d, u64 src, u64 dst,
			      u64 n)
{
	if (!hl_emu_span_overlap(s, d, n)) {
		hl_emu_span_copy(d, s, n);
		return n;
	}
	n = min(hl_emu_chunk_len(src, n), hl_emu_chunk_len(dst, n));
	hl_emu_span_read(s, q->buf, n);
	hl_emu_span_write(d, q->buf, n);
	return n;
}

int hl_emu_exec_lin_dma(struct hl_emu_queue *q, struct hl_cs_job *job,
			const struct hl_emu_pkt_lin_dma *pkt)
{
	struct hl_emu_xfer x = {
		.src = le64_to_cpu(pkt->src_addr),
		.dst = le64_to_cpu(pkt->dst_addr),
		.left = le64_to_cpu(pkt->tsize),
		.dst_write = true,
		.run = hl_emu_lin_dma_run,
	};

	if (pkt->pad)
		return -EINVAL;

	return hl_emu_exec_xfer(q, job, &x);
}

/*
 * MEMSET on a destination run: a pattern of one repeated byte is a fill,
 * any other is copied from q->buf chunk by chunk, where it starts at
 * q->buf[va % 8].
 */
static u64 hl_emu_memset_run(struct hl_emu_queue *q,
			     const struct hl_emu_xfer *x,
			     const struct hl_emu_span *s,
			     const struct hl_emu_span *d, u64 src, u64 dst,
			     u64 n)
{
	struct hl_emu_span part;
	u64 off, len;

	if (x->fill) {
		hl_emu_span_fill(d, q->buf[0], n);
		return n;
	}
	for (off = 0; off < n; off += len) {
		len = min_t(u64, n - off, HL_EMU_CHUNK_SIZE);
		part = hl_emu_span_advance(d, off);
		hl_emu_span_write(&part, q->buf + (dst + off) % 8, len);
	}
	return n;
}

/* MEMSET: byte i of the range gets byte ((dst + i) % 8) of the value */
int hl_emu_exec_memset(struct hl_emu_queue *q, struct hl_cs_job *job,
		       const struct hl_emu_pkt_memset *pkt)
{
	u64 value = le64_to_cpu(pkt->value);
	struct hl_emu_xfer x = {
		.dst = le64_to_cpu(pkt->dst_addr),
		.left = le64_to_cpu(pkt->tsize),
		.no_src = true,
		.dst_write = true,
		.fill = value == (value & 0xff) * 0x0101010101010101ull,
		.run = hl_emu_memset_run,
	};
	u32 i;

	if (pkt->pad)
		return -EINVAL;

	/* The pattern, aligned to 8 bytes of device VA */
	for (i = 0; i < HL_EMU_CHUNK_SIZE + 8; i++)
		q->buf[i] = value >> (8 * (i % 8));

	return hl_emu_exec_xfer(q, job, &x);
}

int hl_emu_exec_msg_long(struct hl_emu_queue *q, struct hl_cs_job *job,
			 const struct hl_emu_pkt_msg_long *pkt)
{
	u64 addr = le64_to_cpu(pkt->addr);
	__le32 value = pkt->value;

	if (!IS_ALIGNED(addr, sizeof(u32)))
		return -EINVAL;
	/* Configuration space: physical, no MMU (as GAUDI's) */
	if (hl_emu_sync_is_reg(q->emu, addr))
		return hl_emu_sync_write(q->emu, addr, le32_to_cpu(value));

	return hl_emu_chunk_access(q, job, addr, &value, sizeof(value), true);
}

/* Longest sleep of a FENCE between checks of the job and the device */
#define HL_EMU_FENCE_POLL	(HZ / 20)

/*
 * FENCE: stall until the fence counter reaches the target, within the
 * job's deadline; a FENCE that gives up takes what reached its counter
 * since its last look and disarms the monitors aimed at it (emu_sync.c).
 */
int hl_emu_exec_fence(struct hl_emu_queue *q, struct hl_cs_job *job,
		      const struct hl_emu_pkt_fence *pkt)
{
	return hl_emu_exec_fence_slot(q, job, pkt, q->id);
}

/*
 * FENCE on the counters of @slot (hl_emu_sync_slot(): the queue's own, or
 * its queue manager's lower CP's under asic=gaudi)
 */
int hl_emu_exec_fence_slot(struct hl_emu_queue *q, struct hl_cs_job *job,
			   const struct hl_emu_pkt_fence *pkt, u32 slot)
{
	u32 cfg = le32_to_cpu(pkt->cfg);
	u32 id = (cfg & HL_PKT_FENCE_CFG_ID_MASK) >> HL_PKT_FENCE_CFG_ID_SHIFT;
	u32 target = (cfg & HL_PKT_FENCE_CFG_TARGET_MASK) >>
		     HL_PKT_FENCE_CFG_TARGET_SHIFT;
	u32 dec = cfg & HL_PKT_FENCE_CFG_DEC_MASK;
	int rc;

	if (cfg & ~(HL_PKT_FENCE_CFG_ID_MASK | HL_PKT_FENCE_CFG_TARGET_MASK |
		    HL_PKT_FENCE_CFG_DEC_MASK))
		return -EINVAL;

	while (!hl_emu_sync_fence_take(q->emu, q->id, slot, id, target,
				       dec)) {
		rc = hl_emu_job_check(q, job);
		if (rc) {
			hl_emu_sync_fence_abort(q->emu, q->id, slot, id, target,
						dec);
			return rc;
		}
		hl_emu_sync_fence_wait(q->emu, slot, id, target,
				       HL_EMU_FENCE_POLL);
	}
	return 0;
}

/* Whether two runs start at the same byte (an in-place REDUCE) */
static bool hl_emu_span_same(const struct hl_emu_span *a,
			     const struct hl_emu_span *b)
{
	return a->host == b->host &&
	       (a->host ? a->phys == b->phys : a->io == b->io);
}

/*
 * REDUCE on a pair of runs: the engine reads both operands from their
 * memories and writes the result in place (hl_emu_reduce_spans(): SIMD on
 * x86). Runs that overlap other than exactly, and architectures without the
 * SIMD routine, go chunk by chunk through the bounce buffer and the integer
 * reference (emu_f32.h); both give the same bits. @n is a multiple of the
 * element size: both VAs are aligned to it.
 */
static u64 hl_emu_reduce_run(struct hl_emu_queue *q,
			     const struct hl_emu_xfer *x,
			     const struct hl_emu_span *s,
			     const struct hl_emu_span *d, u64 src, u64 dst,
			     u64 n)
{
	u8 *sbuf = q->buf, *dbuf = q->buf + HL_EMU_CHUNK_SIZE;

	if ((hl_emu_span_same(s, d) || !hl_emu_span_overlap(s, d, n)) &&
	    hl_emu_reduce_spans(x->dtype, x->op, d, s, n))
		return n;

	n = min(hl_emu_chunk_len(src, n), hl_emu_chunk_len(dst, n));
	hl_emu_span_read(s, sbuf, n);
	hl_emu_span_read(d, dbuf, n);
	hl_emu_reduce_chunk(x->dtype, x->op, dbuf, sbuf, n);
	hl_emu_span_write(d, dbuf, n);
	return n;
}

/*
 * REDUCE: dst[i] = dst[i] op src[i], slice by slice as LIN_DMA; a fault is
 * reported as a read of the operand that does not translate.
 */
int hl_emu_exec_reduce(struct hl_emu_queue *q, struct hl_cs_job *job,
		       const struct hl_emu_pkt_reduce *pkt)
{
	struct hl_emu_xfer x = {
		.src = le64_to_cpu(pkt->src_addr),
		.dst = le64_to_cpu(pkt->dst_addr),
		.dst_write = false,
		.dtype = le32_to_cpu(pkt->dtype),
		.op = le32_to_cpu(pkt->op),
		.run = hl_emu_reduce_run,
	};
	u32 esize = hl_emu_reduce_elem_size(x.dtype, x.op);

	x.left = (u64)le32_to_cpu(pkt->count) * esize;
	if (!esize || !x.left || !IS_ALIGNED(x.src, esize) ||
	    !IS_ALIGNED(x.dst, esize))
		return -EINVAL;

	return hl_emu_exec_xfer(q, job, &x);
}

static int hl_emu_run_job(struct hl_emu_queue *q, struct hl_cs_job *job)
{
	union hl_emu_pkt pkt;
	u32 off = 0, size, ctl, opcode;
	int rc;

	if (!IS_ALIGNED(hl_cs_job_cb_va(job), sizeof(u64)))
		return -EINVAL;
	if (hl_cs_job_kcb(job) && hl_cs_job_cb_va(job))
		return -EINVAL;
	/* asic=gaudi: GAUDI's format, the same engines (emu_gaudi_pkt.c) */
	if (hl_emu_gaudi_format())
		return hl_emu_gaudi_run_job(q, job);

	while (off < hl_cs_job_cb_size(job)) {
		rc = hl_emu_job_check(q, job);
		if (rc)
			return rc;

		rc = hl_emu_fetch(q, job, hl_cs_job_cb_va(job) + off, &pkt.hdr,
				  sizeof(pkt.hdr));
		if (rc)
			return rc;

		ctl = le32_to_cpu(pkt.hdr.ctl);
		opcode = (ctl & HL_PKT_OPCODE_MASK) >> HL_PKT_OPCODE_SHIFT;
		size = hl_emu_pkt_size(opcode);
		if (!size || (ctl & ~HL_PKT_OPCODE_MASK) ||
		    size > hl_cs_job_cb_size(job) - off) {
			hl_dbg(q->emu->hdev, EMU,
			       "queue %u: bad packet 0x%08x at CB offset %u\n",
			       q->id, ctl, off);
			return -EINVAL;
		}

		if (size > sizeof(pkt.hdr)) {
			rc = hl_emu_fetch(q, job, hl_cs_job_cb_va(job) + off +
					  sizeof(pkt.hdr),
					  pkt.raw + sizeof(pkt.hdr),
					  size - sizeof(pkt.hdr));
			if (rc)
				return rc;
		}

		switch (opcode) {
		case HL_PKT_NOP:
			rc = pkt.hdr.word1 ? -EINVAL : 0;
			break;
		case HL_PKT_LIN_DMA:
			rc = hl_emu_exec_lin_dma(q, job, &pkt.lin_dma);
			break;
		case HL_PKT_MEMSET:
			rc = hl_emu_exec_memset(q, job, &pkt.memset);
			break;
		case HL_PKT_MSG_LONG:
			rc = hl_emu_exec_msg_long(q, job, &pkt.msg_long);
			break;
		case HL_PKT_REDUCE:
			rc = hl_emu_exec_reduce(q, job, &pkt.reduce);
			break;
		case HL_PKT_FENCE:
			rc = hl_emu_exec_fence(q, job, &pkt.fence);
			break;
		case HL_PKT_NIC_SEND:
			rc = hl_emu_nic_exec_send(q, job, &pkt.nic);
			break;
		case HL_PKT_NIC_RECV:
			rc = hl_emu_nic_exec_recv(q, job, &pkt.nic);
			break;
		case HL_PKT_NIC_WRITE:
		case HL_PKT_NIC_WRITE_IMM:
			rc = hl_emu_nic_exec_write(q, job, &pkt.nic_write,
						   opcode == HL_PKT_NIC_WRITE_IMM);
			break;
		}
		if (rc) {
			hl_dbg(q->emu->hdev, EMU,
			       "queue %u: packet 0x%08x at CB offset %u failed: %d\n",
			       q->id, ctl, off, rc);
			return rc;
		}

		off += size;
	}
	return 0;
}

static void hl_emu_queue_work(struct work_struct *work)
{
	struct hl_emu_queue *q = container_of(work, struct hl_emu_queue, work);
	struct hl_cs_job *job;
	bool cookie;
	int rc;

	for (;;) {
		spin_lock(&q->lock);
		job = NULL;
		if (!list_empty(&q->pending)) {
			job = hl_cs_job_from_node(q->pending.next);
			list_del_init(hl_cs_job_node(job));
			q->running = job;
		}
		spin_unlock(&q->lock);
		if (!job)
			return;

		/*
		 * The job's fence waits for this: no allocation and no lock
		 * that may wait for a fence from here until it is reported.
		 */
		cookie = dma_fence_begin_signalling();
		/* TEST ONLY: what the annotation is there to catch */
		hl_bug_signal_alloc();
		rc = hl_emu_run_job(q, job);

		spin_lock(&q->lock);
		q->running = NULL;
		spin_unlock(&q->lock);
		hl_events_job_end(q->emu->hdev);
		if (rc == -EINVAL)
			hl_events_undefined_opcode(hl_cs_job_ctx(job), q->id,
						   hl_cs_job_cb_va(job));
		dma_fence_end_signalling(cookie);

		/* Process context: the last job of a CS may release its ctx */
		hl_cs_job_done(job, rc);
	}
}

/**
 * hl_emu_queue_job - asic_funcs->queue_job.
 * @hdev: the device.
 * @job: the job; queue_id is below the number of queues.
 *
 * Return: 0, after which the job's queue calls hl_cs_job_done() exactly
 * once; -ENODEV once hw_fini has started; -EINVAL for a queue index that
 * is out of range or names a queue of type CPU or NA (the core refuses
 * those first).
 */
int hl_emu_queue_job(struct hl_device *hdev, struct hl_cs_job *job)
{
	struct hl_emu_device *emu = to_emu(hdev);
	struct hl_emu_queue *q;
	int rc = 0;

	if (!hl_emu_queue_runs_jobs(emu, hl_cs_job_queue(job)))
		return -EINVAL;
	q = &emu->queues[hl_cs_job_queue(job)];

	/* The device's busy time (HL_INFO_DEVICE_UTILIZATION) */
	hl_events_job_start(hdev);
	spin_lock(&q->lock);
	if (emu->stopped) {
		rc = -ENODEV;
	} else {
		list_add_tail(hl_cs_job_node(job), &q->pending);
		/* Under the lock: hw_fini destroys the workqueue after stopping */
		queue_work(q->wq, &q->work);
	}
	spin_unlock(&q->lock);
	if (rc)
		hl_events_job_end(hdev);

	return rc;
}

/**
 * hl_emu_queues_idle - asic_funcs->is_device_idle.
 * @hdev: the device.
 * @mask: receives a bit per busy queue (queue q: bit q % 64 of mask[q / 64]).
 * @mask_len: number of u64 in @mask.
 *
 * Return: true when no queue has a pending or running job.
 */
bool hl_emu_queues_idle(struct hl_device *hdev, u64 *mask, u32 mask_len)
{
	struct hl_emu_device *emu = to_emu(hdev);
	bool idle = true, busy;
	u32 i;

	memset(mask, 0, mask_len * sizeof(*mask));
	for (i = 0; i < emu->num_queues; i++) {
		struct hl_emu_queue *q = &emu->queues[i];

		spin_lock(&q->lock);
		busy = q->running || !list_empty(&q->pending);
		spin_unlock(&q->lock);

		if (!busy)
			continue;
		idle = false;
		if (i / 64 < mask_len)
			mask[i / 64] |= BIT_ULL(i % 64);
	}
	return idle;
}

static void hl_emu_queues_free(struct hl_emu_device *emu)
{
	u32 i;

	for (i = 0; i < emu->num_queues; i++) {
		struct hl_emu_queue *q = &emu->queues[i];

		if (q->wq)
			destroy_workqueue(q->wq);
		q->wq = NULL;
		kvfree(q->buf);
		q->buf = NULL;
	}
}

/*
 * GAUDI's queue table (upstream's enum gaudi_queue_id, in the uAPI header):
 * four streams per queue manager. DMA 0 and 1 are external (fed with
 * kernel-owned CBs), the device CPU's queue takes no user job, DMA 2-7,
 * MME 0-1, TPC 0-7 and NIC 0-9 are internal; the queues of the NIC
 * engines beyond the device's ports are NA.
 */
static u8 hl_emu_gaudi_queue_type(u32 q, u32 num_nic_ports)
{
	if (q <= GAUDI_QUEUE_ID_DMA_1_3)
		return HL_QUEUE_TYPE_EXT;
	if (q == GAUDI_QUEUE_ID_CPU_PQ)
		return HL_QUEUE_TYPE_CPU;
	if (q >= GAUDI_QUEUE_ID_NIC_0_0 &&
	    (q - GAUDI_QUEUE_ID_NIC_0_0) / 4 >= num_nic_ports)
		return HL_QUEUE_TYPE_NA;
	return HL_QUEUE_TYPE_INT;
}

/**
 * hl_emu_queue_runs_jobs - whether @queue exists and takes jobs (its type
 * is internal or external).
 * @emu: the device.
 * @queue: a queue index.
 *
 * Return: true for a queue that runs jobs.
 */
bool hl_emu_queue_runs_jobs(const struct hl_emu_device *emu, u32 queue)
{
	if (queue >= emu->num_queues)
		return false;
	return !emu->queue_type ||
	       emu->queue_type[queue] == HL_QUEUE_TYPE_INT ||
	       emu->queue_type[queue] == HL_QUEUE_TYPE_EXT;
}

/**
 * hl_emu_queues_early_init - allocate the engine queues and set up their
 * locks and lists, once per device (early_init); the queues stay stopped.
 * @emu: the device.
 * @num_nic_ports: the device's NIC ports (GAUDI's NIC queues beyond them
 *	are NA).
 *
 * asic=emu: HL_EMU_NUM_QUEUES internal queues. asic=gaudi: GAUDI's table,
 * GAUDI_QUEUE_ID_SIZE queues (hl_emu_gaudi_queue_type()).
 *
 * Return: 0 or -ENOMEM.
 */
int hl_emu_queues_early_init(struct hl_emu_device *emu, u32 num_nic_ports)
{
	bool gaudi = hl_identity == HL_IDENTITY_GAUDI;
	u32 i, n = gaudi ? GAUDI_QUEUE_ID_SIZE : HL_EMU_NUM_QUEUES;

	emu->stopped = true;
	emu->queues = kcalloc(n, sizeof(*emu->queues), GFP_KERNEL);
	if (!emu->queues)
		return -ENOMEM;
	if (gaudi) {
		emu->queue_type = kcalloc(n, sizeof(*emu->queue_type),
					  GFP_KERNEL);
		if (!emu->queue_type) {
			kfree(emu->queues);
			emu->queues = NULL;
			return -ENOMEM;
		}
		for (i = 0; i < n; i++)
			emu->queue_type[i] =
				hl_emu_gaudi_queue_type(i, num_nic_ports);
	}
	emu->num_queues = n;
	for (i = 0; i < n; i++) {
		struct hl_emu_queue *q = &emu->queues[i];

		q->emu = emu;
		q->id = i;
		spin_lock_init(&q->lock);
		INIT_LIST_HEAD(&q->pending);
		q->running = NULL;
	}
	return 0;
}

/**
 * hl_emu_queues_early_fini - free what hl_emu_queues_early_init() allocated.
 * @emu: the device; its queues are stopped.
 */
void hl_emu_queues_early_fini(struct hl_emu_device *emu)
{
	kfree(emu->queue_type);
	emu->queue_type = NULL;
	kfree(emu->queues);
	emu->queues = NULL;
	emu->num_queues = 0;
}

/**
 * hl_emu_queues_init - start the engine queues (hw_init).
 * @emu: the device.
 *
 * Return: 0 or -ENOMEM.
 */
int hl_emu_queues_init(struct hl_emu_device *emu)
{
	u32 i;

	atomic64_set(&emu->tlb_gen, 1);

	/*
	 * The queues' locks and lists were set up once (early_init): INFO
	 * HW_IDLE on the control node may read them at any time, also while
	 * a hard reset restarts the engines. They stay stopped until the
	 * workqueue exists.
	 */
	for (i = 0; i < emu->num_queues; i++) {
		struct hl_emu_queue *q = &emu->queues[i];

		INIT_WORK(&q->work, hl_emu_queue_work);
		hl_emu_tlb_flush(q);
		/* A queue that takes no job needs no buffer */
		if (!hl_emu_queue_runs_jobs(emu, i))
			continue;
		q->buf = kvmalloc(HL_EMU_QUEUE_BUF_SIZE, GFP_KERNEL);
		if (!q->buf)
			goto err_free_queues;
		/*
		 * Its worker signals fences, which memory reclaim may wait
		 * for: WQ_MEM_RECLAIM, with a rescuer of its own. A shared
		 * rescuer would run a FENCE's job and then, only after it,
		 * the job of another queue that releases it (a stall until
		 * the job's deadline when the pool lags at making a worker:
		 * a loaded or debug kernel).
		 */
		q->wq = alloc_ordered_workqueue("hl%d-q%u", WQ_MEM_RECLAIM,
						hl_device_id(emu->hdev), i);
		if (!q->wq)
			goto err_free_queues;
	}

	for (i = 0; i < emu->num_queues; i++) {
		spin_lock(&emu->queues[i].lock);
		WRITE_ONCE(emu->stopped, false);
		spin_unlock(&emu->queues[i].lock);
	}
	return 0;

err_free_queues:
	hl_emu_queues_free(emu);
	return -ENOMEM;
}

/**
 * hl_emu_queues_fini - stop the engine queues (hw_fini).
 * @emu: the device.
 *
 * Safe while ioctls still run: from here on queue_job fails with -ENODEV,
 * pending jobs fail with -ENODEV at once, a running job fails with -ENODEV
 * at its next chunk; each one's hl_cs_job_done() signals its CS fence with
 * the error, which releases WAIT_CS callers. Returns when no engine runs.
 */
void hl_emu_queues_fini(struct hl_emu_device *emu)
{
	struct list_head *node, *tmp;
	LIST_HEAD(failed);
	u32 i;

	for (i = 0; i < emu->num_queues; i++) {
		struct hl_emu_queue *q = &emu->queues[i];

		spin_lock(&q->lock);
		WRITE_ONCE(emu->stopped, true);
		list_splice_tail_init(&q->pending, &failed);
		spin_unlock(&q->lock);
	}

	/* A running FENCE sees it at once */
	hl_emu_sync_wake(emu);

	list_for_each_safe(node, tmp, &failed) {
		list_del_init(node);
		hl_events_job_end(emu->hdev);
		hl_cs_job_done(hl_cs_job_from_node(node), -ENODEV);
	}

	/* Waits for the running jobs, which abort at their next chunk */
	hl_emu_queues_free(emu);
}

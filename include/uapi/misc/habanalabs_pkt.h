/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * habanalabs_pkt: the packets of the habanalabs emulated ASIC's command
 * buffers.
 *
 * This is the device's format, not the driver's: user space writes these
 * packets into command buffers (device memory or mapped host memory) and
 * submits them with HL_IOCTL_CS (habanalabs.h, which includes this file);
 * the engine queues fetch and execute them. The driver neither copies nor
 * parses them on submission.
 */
#ifndef _UAPI_MISC_HABANALABS_PKT_H_
#define _UAPI_MISC_HABANALABS_PKT_H_

#include <linux/types.h>

/*
 * Packets of the emulated ASIC (card_name "emu-gaudi").
 *
 * A command buffer is a sequence of packets, each a multiple of 8 bytes,
 * little-endian, starting with a __u32 header whose bits [31:24] are the
 * opcode. The queue fetches and executes them in order; every address in a
 * packet is a device virtual address translated by the device MMU. A packet
 * that faults or is malformed aborts the job: its command submission
 * completes with an error (HL_WAIT_CS_STATUS_ABORTED).
 */
#define HL_PKT_OPCODE_SHIFT		24
#define HL_PKT_OPCODE_MASK		0xff000000u

#define HL_PKT_NOP			0x00
#define HL_PKT_LIN_DMA			0x01
#define HL_PKT_MEMSET			0x02
#define HL_PKT_MSG_LONG			0x03
#define HL_PKT_REDUCE			0x04
#define HL_PKT_FENCE			0x08
#define HL_PKT_NIC_SEND			0x10
#define HL_PKT_NIC_RECV			0x11
#define HL_PKT_NIC_WRITE		0x12
#define HL_PKT_NIC_WRITE_IMM		0x13

/**
 * struct hl_pkt_fence - wait until a fence counter of the executing queue
 * reaches a target, then decrement it.
 * @ctl: opcode HL_PKT_FENCE.
 * @cfg: GAUDI's FENCE configuration word: HL_PKT_FENCE_CFG(id, target,
 *	dec); the other bits must be 0 (else malformed).
 *
 * Each queue has four fence counters (ids 0-3; GAUDI's FENCE0..3 of a
 * queue stream), all 0 when the device's owner changes. A 32-bit write to
 * HL_QM_FENCE_RDATA(queue, id) (MSG_LONG, or a monitor's payload) adds its
 * value to the counter. The packet stalls its queue until counter[id] >=
 * target, then subtracts dec (down to 0 at most) and goes on. It waits at
 * most until the job's deadline (the CS timeout): then the job fails with
 * -ETIMEDOUT (its CS: ABORTED), what reached the counter since its last
 * look is taken as if it had passed, and every monitor whose payload aims
 * at that fence counter is disarmed, so that neither a fire racing the
 * timeout nor a late one releases a later FENCE. GAUDI's dword order is
 * ctl-second; this format keeps the opcode in the first word as its other
 * packets do (GAUDI's order comes with the whole format, later).
 */
struct hl_pkt_fence {
	__u32 ctl;
	__u32 cfg;
};

#define HL_PKT_FENCE_CFG_DEC_MASK	0x0000000fu
#define HL_PKT_FENCE_CFG_TARGET_SHIFT	16
#define HL_PKT_FENCE_CFG_TARGET_MASK	0x00ff0000u
#define HL_PKT_FENCE_CFG_ID_SHIFT	30
#define HL_PKT_FENCE_CFG_ID_MASK	0xc0000000u
#define HL_PKT_FENCE_CFG(id, target, dec)				\
	((((__u32)(id) << HL_PKT_FENCE_CFG_ID_SHIFT) &			\
	  HL_PKT_FENCE_CFG_ID_MASK) |					\
	 (((__u32)(target) << HL_PKT_FENCE_CFG_TARGET_SHIFT) &		\
	  HL_PKT_FENCE_CFG_TARGET_MASK) |				\
	 ((__u32)(dec) & HL_PKT_FENCE_CFG_DEC_MASK))

/*
 * The sync manager and the queues' fence registers: GAUDI's configuration
 * space addresses (its E_N sync manager block, and the fence registers of
 * DMA0's queue manager, whose four streams are queues 0-3 here). These are
 * device physical addresses that no MMU translates: a MSG_LONG whose @addr
 * is one of these registers writes it; any other address goes through the
 * MMU as before.
 *
 * Sync objects (SOBs): HL_SM_NUM_SOBS 15-bit counters. A write of value v
 * to HL_SM_SOB_ADDR(id): v & HL_SM_SOB_INC adds v & HL_SM_SOB_VAL_MASK
 * (modulo 2^15), else sets the SOB to v & HL_SM_SOB_VAL_MASK; bits 30:15
 * must be 0 (else the packet is malformed).
 *
 * Monitors: HL_SM_NUM_MONITORS. Write the payload address (two halves) and
 * data first, then HL_SM_MON_ARM_ADDR(id) with HL_SM_MON_ARM(gid, mask,
 * eq, value): the monitor watches the SOBs 8 * gid .. 8 * gid + 7 whose
 * bit in mask is 0, and fires when every one of them is >= value (eq 0)
 * or == value (eq 1); it is checked at the arm and at each SOB write.
 * Firing disarms it and writes the payload data to the payload address.
 * The payload address must be a SOB (HL_SM_SOB_ADDR) or a fence register
 * (HL_QM_FENCE_RDATA): arming a monitor whose payload aims anywhere else
 * (device memory, host memory, other registers), or with a mask of all
 * ones, makes the MSG_LONG malformed (its job fails, the monitor stays
 * disarmed); a payload address rewritten to such a place after the arm is
 * ignored when the monitor fires (nothing written). Unlike GAUDI, a
 * monitor can never write memory.
 *
 * Every SOB, monitor and fence counter is reset to 0 when the device's
 * owner changes (the compute node's context is torn down) and at a hard
 * reset. The driver keeps the SOBs and monitors below
 * HL_INFO_SYNC_MANAGER's first available ones for SIGNAL and WAIT
 * submissions; user command buffers may write them too, at the cost of
 * their own signal/wait submissions.
 */
#define HL_CFG_BASE			0x7ffc000000ull
#define HL_SM_NUM_SOBS			2048
#define HL_SM_NUM_MONITORS		512
#define HL_SM_SOB_OBJ_0			(HL_CFG_BASE + 0x4f2000)
#define HL_SM_MON_PAY_ADDRL_0		(HL_CFG_BASE + 0x4f4000)
#define HL_SM_MON_PAY_ADDRH_0		(HL_CFG_BASE + 0x4f4800)
#define HL_SM_MON_PAY_DATA_0		(HL_CFG_BASE + 0x4f5000)
#define HL_SM_MON_ARM_0			(HL_CFG_BASE + 0x4f5800)
#define HL_SM_SOB_ADDR(id)		(HL_SM_SOB_OBJ_0 + 4ull * (id))
#define HL_SM_MON_PAY_ADDRL_ADDR(id)	(HL_SM_MON_PAY_ADDRL_0 + 4ull * (id))
#define HL_SM_MON_PAY_ADDRH_ADDR(id)	(HL_SM_MON_PAY_ADDRH_0 + 4ull * (id))
#define HL_SM_MON_PAY_DATA_ADDR(id)	(HL_SM_MON_PAY_DATA_0 + 4ull * (id))
#define HL_SM_MON_ARM_ADDR(id)		(HL_SM_MON_ARM_0 + 4ull * (id))

#define HL_SM_SOB_VAL_MASK		0x00007fffu
#define HL_SM_SOB_INC			0x80000000u
#define HL_SM_SOB_MAX_VAL		HL_SM_SOB_VAL_MASK

#define HL_SM_MON_ARM_GID_MASK		0x000000ffu
#define HL_SM_MON_ARM_MASK_SHIFT	8
#define HL_SM_MON_ARM_MASK_MASK		0x0000ff00u
#define HL_SM_MON_ARM_EQ		0x00010000u
#define HL_SM_MON_ARM_VAL_SHIFT		17
#define HL_SM_MON_ARM(gid, mask, eq, value)				\
	(((__u32)(gid) & HL_SM_MON_ARM_GID_MASK) |			\
	 (((__u32)(mask) << HL_SM_MON_ARM_MASK_SHIFT) &			\
	  HL_SM_MON_ARM_MASK_MASK) |					\
	 ((eq) ? HL_SM_MON_ARM_EQ : 0) |				\
	 (((__u32)(value) & HL_SM_SOB_VAL_MASK) << HL_SM_MON_ARM_VAL_SHIFT))

/*
 * Fence registers: fence id 0..3 of every queue (0 .. HW_IP_INFO's
 * num_queues - 1). The queues are taken four at a time as the streams of
 * one queue manager, whose fence registers are a block of
 * HL_QM_FENCE_QM_STRIDE bytes: queues 0-3 are DMA0's streams, 4-7 DMA1's,
 * as on GAUDI (the same addresses as before for queues 0-3). Under
 * asic=emu the next queue managers follow one another (queue manager k at
 * k * HL_QM_FENCE_QM_STRIDE), which these macros compute. Under
 * asic=gaudi every queue manager is GAUDI's, at GAUDI's address (upstream's
 * mm*_QM_BASE: DMA 2-7 from 0x548000, MME 0 on MME2_QM, MME 1 on MME0_QM,
 * TPC n at 0xe08000 + n * 0x40000, NIC n's QM0/QM1), with GAUDI's fifth
 * stream, the lower CP that runs CP_DMA's command buffers, its fence
 * counters and message bases included: these macros are right there for
 * queues 0-7 only.
 */
#define HL_QM_FENCE_NUM			4
#define HL_QM_FENCE_STREAMS		4
#define HL_QM_FENCE_QM_STRIDE		0x20000ull
#define HL_QM_FENCE_RDATA_0		(HL_CFG_BASE + 0x508308)
#define HL_QM_FENCE_RDATA(queue, id)					\
	(HL_QM_FENCE_RDATA_0 +						\
	 HL_QM_FENCE_QM_STRIDE * ((queue) / HL_QM_FENCE_STREAMS) +	\
	 0x14ull * (id) + 4ull * ((queue) % HL_QM_FENCE_STREAMS))

/**
 * struct hl_pkt_nop - do nothing.
 * @ctl: opcode HL_PKT_NOP.
 * @pad: must be 0.
 */
struct hl_pkt_nop {
	__u32 ctl;
	__u32 pad;
};

/**
 * struct hl_pkt_lin_dma - copy @tsize bytes from @src_addr to @dst_addr.
 * @ctl: opcode HL_PKT_LIN_DMA.
 * @pad: must be 0.
 * @src_addr: source device virtual address (DRAM or host mapping).
 * @dst_addr: destination device virtual address.
 * @tsize: bytes to copy; any size and alignment. Overlapping ranges are
 *	copied as if through a temporary buffer only within 4 KiB.
 */
struct hl_pkt_lin_dma {
	__u32 ctl;
	__u32 pad;
	__u64 src_addr;
	__u64 dst_addr;
	__u64 tsize;
};

/**
 * struct hl_pkt_memset - fill @tsize bytes at @dst_addr with a pattern.
 * @ctl: opcode HL_PKT_MEMSET.
 * @pad: must be 0.
 * @dst_addr: destination device virtual address.
 * @value: the 64-bit pattern; byte i of the range gets byte
 *	((@dst_addr + i) % 8) of @value (little-endian).
 * @tsize: bytes to fill.
 */
struct hl_pkt_memset {
	__u32 ctl;
	__u32 pad;
	__u64 dst_addr;
	__u64 value;
	__u64 tsize;
};

/**
 * struct hl_pkt_msg_long - write a 32-bit value (a fence or sync write).
 * @ctl: opcode HL_PKT_MSG_LONG.
 * @value: the value to write.
 * @addr: device virtual address, 4-byte aligned.
 */
struct hl_pkt_msg_long {
	__u32 ctl;
	__u32 value;
	__u64 addr;
};

/* Element types of HL_PKT_REDUCE (struct hl_pkt_reduce.dtype) */
#define HL_REDUCE_DTYPE_F32		0	/* IEEE-754 binary32 */
#define HL_REDUCE_DTYPE_BF16		1	/* bfloat16: binary32's top half */
#define HL_REDUCE_DTYPE_F16		2	/* IEEE-754 binary16 */
#define HL_REDUCE_DTYPE_I32		3	/* two's complement int32 */

/* Operations of HL_PKT_REDUCE (struct hl_pkt_reduce.op) */
#define HL_REDUCE_OP_SUM		0	/* dst[i] = dst[i] + src[i] */
#define HL_REDUCE_OP_MIN		1	/* dst[i] = min(dst[i], src[i]) */
#define HL_REDUCE_OP_MAX		2	/* dst[i] = max(dst[i], src[i]) */
#define HL_REDUCE_OP_PROD		3	/* dst[i] = dst[i] * src[i] */
#define HL_REDUCE_OP_DIV		4	/* dst[i] = src[i] / divisor */

/*
 * struct hl_pkt_reduce.op: the operation in bits 15:0, HL_REDUCE_OP_DIV's
 * divisor (1 .. HL_REDUCE_MAX_DIVISOR) in bits 31:16, zero for the others
 */
#define HL_REDUCE_OP_MASK		0x0000ffffu
#define HL_REDUCE_DIVISOR_SHIFT		16
#define HL_REDUCE_MAX_DIVISOR		0xffffu
/*
 * An n outside 1 .. HL_REDUCE_MAX_DIVISOR (0, negative, too large) gives the
 * divisor-0 word, which the engine refuses as malformed, rather than an
 * alias of a valid divisor; n is evaluated more than once.
 */
#define HL_REDUCE_DIVISOR_OK(n)	((n) >= 1 && (n) <= HL_REDUCE_MAX_DIVISOR)
#define HL_REDUCE_DIVISOR(n)	(HL_REDUCE_DIVISOR_OK(n) ? (__u32)(n) : 0u)
#define HL_REDUCE_OP_DIV_BY(n)	\
	(HL_REDUCE_OP_DIV | (HL_REDUCE_DIVISOR(n) << HL_REDUCE_DIVISOR_SHIFT))

/**
 * struct hl_pkt_reduce - element-wise reduction of two device buffers:
 *	dst[i] = dst[i] op src[i], for i = 0 .. @count - 1.
 * @ctl: opcode HL_PKT_REDUCE.
 * @count: number of elements, > 0 (else the packet is malformed); one
 *	packet reduces at most 2^32 - 1 elements.
 * @src_addr: device virtual address of the second operand, aligned to the
 *	element size (4 bytes, 2 for BF16 and F16; else malformed).
 * @dst_addr: device virtual address of the first operand and of the result,
 *	aligned to the element size (else malformed).
 * @dtype: HL_REDUCE_DTYPE_*; anything else is malformed (the CS is
 *	aborted, as for -EINVAL).
 * @op: HL_REDUCE_OP_SUM, _MIN, _MAX or _PROD (bits 31:16 zero), or
 *	HL_REDUCE_OP_DIV_BY(n) with n in 1 .. HL_REDUCE_MAX_DIVISOR;
 *	anything else is malformed. Every type supports every operation.
 *
 * HL_REDUCE_DTYPE_F32 with HL_REDUCE_OP_SUM: little-endian IEEE-754
 * binary32 addition, rounded to nearest, ties to even, subnormal inputs and
 * results kept (no flush to zero), no exception reported. Every finite or
 * infinite result equals the C float expression dst[i] + src[i] on a host
 * with IEEE arithmetic (x86-64 SSE with the default MXCSR, AArch64 with the
 * default FPCR). An exact zero sum of operands of opposite signs is +0. A
 * NaN result is quiet: dst[i] with the quiet bit (0x00400000) set when
 * dst[i] is a NaN, else src[i] with the quiet bit set when src[i] is a NaN,
 * else (inf + -inf) 0xffc00000; this is x86-64's addss with dst[i] as the
 * first operand.
 *
 * HL_REDUCE_DTYPE_BF16 and HL_REDUCE_DTYPE_F16 with HL_REDUCE_OP_SUM: both
 * operands widened to binary32 (exactly), added as above, and the sum
 * rounded to the type, to nearest, ties to even (which equals one correctly
 * rounded addition in the type), subnormals kept, overflow to infinity. A
 * NaN result is the binary32 NaN above narrowed: its top significand bits
 * kept, quiet bit (BF16 0x0040, F16 0x0200) set.
 *
 * HL_REDUCE_OP_MIN and HL_REDUCE_OP_MAX on the float types: the lesser or
 * greater value, -0 being less than +0; when an operand is a NaN the result
 * is dst[i] made quiet when dst[i] is a NaN, else src[i] made quiet (a NaN
 * propagates, unlike C's fmin/fmax); equal values leave dst[i] as it was.
 * HL_REDUCE_DTYPE_I32: SUM wraps modulo 2^32; MIN and MAX are signed.
 *
 * HL_REDUCE_OP_PROD: F32 is the IEEE-754 binary32 product rounded to
 * nearest, ties to even, subnormals kept, overflow to infinity: the C float
 * expression dst[i] * src[i] (x86-64 mulss with dst[i] first). A NaN
 * result is dst[i] made quiet when dst[i] is a NaN, else src[i] made
 * quiet, else (inf * 0) 0xffc00000. BF16 and F16: the exact product
 * rounded once to the type, to nearest, ties to even, subnormals kept,
 * overflow to infinity (computed as a binary32 product rounded to odd, then
 * rounded to the type); NaNs as above, narrowed as for SUM. I32 wraps
 * modulo 2^32 (the low 32 bits of the product).
 *
 * HL_REDUCE_OP_DIV_BY(n): dst[i] = src[i] / n, n an integer (what an
 * average's final step needs: a sum divided by the number of ranks). F32:
 * the binary32 quotient rounded to nearest, ties to even, subnormals kept
 * (the C expression src[i] / (float)n); a NaN gives itself made quiet, an
 * infinity itself, a zero itself (its sign kept). BF16 and F16: the exact
 * quotient rounded once to the type, to nearest, ties to even, subnormals
 * kept (computed as a binary32 quotient rounded to odd, then rounded to the
 * type: no double rounding; NaNs narrowed as for SUM). I32: C's int32
 * division, truncated toward zero
 * (INT32_MIN / 1 is INT32_MIN). @dst_addr is read as well (faults on it are
 * reported as reads); @src_addr == @dst_addr divides in place.
 *
 * The engine works in chunks that end at 4 KiB device VA pages of either
 * buffer: it reads a chunk of @src_addr and the same elements of
 * @dst_addr, then writes those elements of @dst_addr. @src_addr ==
 * @dst_addr is allowed (dst[i] = dst[i] op dst[i]); other overlaps give a
 * result that depends on the chunking. An MMU fault (reported at the VA of
 * the chunk whose access failed; @dst_addr is read before it is written)
 * aborts the job with the chunks before it written.
 */
struct hl_pkt_reduce {
	__u32 ctl;
	__u32 count;
	__u64 src_addr;
	__u64 dst_addr;
	__u32 dtype;
	__u32 op;
};

/*
 * Packets of the NIC: they move messages over a connection of HL_IOCTL_NIC
 * (see the NIC section of habanalabs.h for connections and completions).
 */

/**
 * struct hl_pkt_nic_send - send a message on a connection in RTS.
 * @ctl: opcode HL_PKT_NIC_SEND.
 * @conn_id: a connection of the submitting context. An unknown ID makes
 *	the packet malformed (no CQ can tell).
 * @addr: device virtual address of the message.
 * @size: bytes, 0 .. HL_NIC_MAX_MSG_SIZE (else malformed); at most the size
 *	of the receive it lands in (else both sides complete with LEN_ERR).
 * @wr_id: any value, returned in the completion entries of both sides
 *	(the receiver's entry carries the receive's wr_id).
 *
 * The packet completes when the message has landed in the peer's memory,
 * or failed.
 */
struct hl_pkt_nic_send {
	__u32 ctl;
	__u32 conn_id;
	__u64 addr;
	__u64 size;
	__u64 wr_id;
};

/**
 * struct hl_pkt_nic_recv - post a receive buffer to a connection in RTR or
 * RTS, and wait for the message that lands in it.
 * @ctl: opcode HL_PKT_NIC_RECV.
 * @conn_id: a connection of the submitting context (unknown: malformed).
 * @addr: device virtual address of the buffer.
 * @size: bytes, 0 .. HL_NIC_MAX_MSG_SIZE (else malformed).
 * @wr_id: any value, returned in the completion entry.
 *
 * Receives of a connection are filled in the order they were posted. An
 * MMU fault on the buffer is recorded in this context
 * (HL_INFO_PAGE_FAULT_EVENT), completes the receive with LOCAL_FAULT and
 * the sender's send with REMOTE_FAULT.
 */
struct hl_pkt_nic_recv {
	__u32 ctl;
	__u32 conn_id;
	__u64 addr;
	__u64 size;
	__u64 wr_id;
};

/**
 * struct hl_pkt_nic_write - one-sided write (RDMA WRITE) on a connection in
 * RTS: from a memory region of this context into a memory region of the
 * peer connection's context (HL_NIC_OP_REG_MR), with no receive posted at
 * the peer (HL_PKT_NIC_WRITE); or the same, and then the peer's oldest
 * posted receive completes with @imm_data (HL_PKT_NIC_WRITE_IMM), so that
 * the peer learns the data landed.
 * @ctl: opcode HL_PKT_NIC_WRITE or HL_PKT_NIC_WRITE_IMM.
 * @conn_id: a connection of the submitting context (unknown: malformed).
 * @local_addr: address of the source in the region named by @lkey (that
 *	region's iova space).
 * @remote_addr: address of the destination in the peer's region named by
 *	@rkey (that region's iova space).
 * @size: bytes, 0 .. HL_NIC_MAX_MSG_SIZE (else malformed). A write of 0
 *	bytes touches no memory and checks no key or address (as IB verbs);
 *	a WRITE_IMM of 0 bytes only delivers @imm_data.
 * @wr_id: any value, returned in this side's completion entry (the
 *	peer's entry, for WRITE_IMM, carries its receive's wr_id).
 * @lkey: the lkey of a region of this context: [@local_addr,
 *	@local_addr + @size) inside it, else the write fails at once with
 *	LOCAL_PROT_ERR (nothing sent).
 * @rkey: the rkey of a region of the peer connection's context with
 *	HL_NIC_ACCESS_REMOTE_WRITE: [@remote_addr, @remote_addr + @size)
 *	inside it (no wrap-around), else nothing lands, this side completes
 *	with REMOTE_ACCESS_ERR, the peer's receive (WRITE_IMM) with
 *	LOCAL_ACCESS_ERR, and both connections move to ERR (as RoCE does).
 *	The peer checks all this before any byte lands. A region
 *	deregistered while the write is in flight receives no byte after its
 *	HL_NIC_OP_DEREG_MR returned (the write then fails, REMOTE_ACCESS_ERR).
 * @imm_data: WRITE_IMM: the value the peer's completion entry carries;
 *	WRITE: must be 0 (else malformed).
 * @pad: must be 0 (else malformed).
 *
 * The packet completes when the data has landed, or failed. The write
 * uses the connection's PSNs as a message would (ceil(@size / MTU)
 * packets, at least 1); a failed write fails the packet's job as a failed
 * send does.
 */
struct hl_pkt_nic_write {
	__u32 ctl;
	__u32 conn_id;
	__u64 local_addr;
	__u64 remote_addr;
	__u64 size;
	__u64 wr_id;
	__u32 lkey;
	__u32 rkey;
	__u32 imm_data;
	__u32 pad;
};

/*
 * GAUDI's format (module parameter asic=gaudi).
 *
 * Under asic=gaudi the engine queues execute GAUDI's packets, as
 * hl-thunk-open's include/specs/gaudi/gaudi_packets.h and upstream's
 * GAUDI driver lay them out, and not the packets above: every packet is a
 * multiple of 8 bytes, little-endian, and its second __u32 (ctl) holds the
 * opcode in bits [28:24] and the engine, register and message barrier bits
 * 29, 30 and 31. Under asic=emu (the default) the format above stays the
 * only one. docs/gaudi.md says what each of GAUDI's packets does on the
 * emulated device; the engines behind both formats are the same.
 */
#define HL_GAUDI_PKT_CTL_OPCODE_SHIFT	24
#define HL_GAUDI_PKT_CTL_OPCODE_MASK	0x1f000000u
#define HL_GAUDI_PKT_CTL_EB		0x20000000u
#define HL_GAUDI_PKT_CTL_RB		0x40000000u
#define HL_GAUDI_PKT_CTL_MB		0x80000000u
#define HL_GAUDI_PKT_CTL_BARRIERS	(HL_GAUDI_PKT_CTL_EB |		\
					 HL_GAUDI_PKT_CTL_RB |		\
					 HL_GAUDI_PKT_CTL_MB)
#define HL_GAUDI_PKT_CTL(opcode)					\
	(((__u32)(opcode) << HL_GAUDI_PKT_CTL_OPCODE_SHIFT) &		\
	 HL_GAUDI_PKT_CTL_OPCODE_MASK)

/* GAUDI's own opcodes */
#define HL_GAUDI_PKT_WREG_32		0x01
#define HL_GAUDI_PKT_WREG_BULK		0x02
#define HL_GAUDI_PKT_MSG_LONG		0x03
#define HL_GAUDI_PKT_MSG_SHORT		0x04
#define HL_GAUDI_PKT_CP_DMA		0x05
#define HL_GAUDI_PKT_REPEAT		0x06
#define HL_GAUDI_PKT_MSG_PROT		0x07
#define HL_GAUDI_PKT_FENCE		0x08
#define HL_GAUDI_PKT_LIN_DMA		0x09
#define HL_GAUDI_PKT_NOP		0x0a
#define HL_GAUDI_PKT_STOP		0x0b
#define HL_GAUDI_PKT_ARB_POINT		0x0c
#define HL_GAUDI_PKT_WAIT		0x0d
#define HL_GAUDI_PKT_LOAD_AND_EXE	0x0f

/*
 * The emulated device's own engines in GAUDI's format: extensions at
 * opcodes GAUDI leaves unused (0x10..0x1f of its 5-bit field). Each is the
 * packet of the same engine above with its first two __u32 swapped, so
 * that ctl is the second one, as in every GAUDI packet; the NIC's keep
 * their opcodes.
 */
#define HL_GAUDI_PKT_NIC_SEND		HL_PKT_NIC_SEND		/* 0x10 */
#define HL_GAUDI_PKT_NIC_RECV		HL_PKT_NIC_RECV		/* 0x11 */
#define HL_GAUDI_PKT_NIC_WRITE		HL_PKT_NIC_WRITE	/* 0x12 */
#define HL_GAUDI_PKT_NIC_WRITE_IMM	HL_PKT_NIC_WRITE_IMM	/* 0x13 */
#define HL_GAUDI_PKT_REDUCE		0x14

/**
 * struct hl_gaudi_pkt_reduce - REDUCE in GAUDI's format (asic=gaudi).
 * @count: as struct hl_pkt_reduce's.
 * @ctl: HL_GAUDI_PKT_CTL(HL_GAUDI_PKT_REDUCE), barrier bits allowed; the
 *	other bits must be 0 (else malformed).
 * @src_addr: as struct hl_pkt_reduce's.
 * @dst_addr: as struct hl_pkt_reduce's.
 * @dtype: as struct hl_pkt_reduce's.
 * @op: as struct hl_pkt_reduce's.
 *
 * The same engine as HL_PKT_REDUCE, with the same semantics.
 */
struct hl_gaudi_pkt_reduce {
	__u32 count;
	__u32 ctl;
	__u64 src_addr;
	__u64 dst_addr;
	__u32 dtype;
	__u32 op;
};

/**
 * struct hl_gaudi_pkt_nic - NIC_SEND and NIC_RECV in GAUDI's format
 * (asic=gaudi).
 * @conn_id: as struct hl_pkt_nic_send's and struct hl_pkt_nic_recv's.
 * @ctl: HL_GAUDI_PKT_CTL(HL_GAUDI_PKT_NIC_SEND or _NIC_RECV), barrier bits
 *	allowed; the other bits must be 0 (else malformed).
 * @addr: as struct hl_pkt_nic_send's.
 * @size: as struct hl_pkt_nic_send's.
 * @wr_id: as struct hl_pkt_nic_send's.
 *
 * The same engine as HL_PKT_NIC_SEND and HL_PKT_NIC_RECV.
 */
struct hl_gaudi_pkt_nic {
	__u32 conn_id;
	__u32 ctl;
	__u64 addr;
	__u64 size;
	__u64 wr_id;
};

/**
 * struct hl_gaudi_pkt_nic_write - NIC_WRITE and NIC_WRITE_IMM in GAUDI's
 * format (asic=gaudi).
 * @conn_id: as struct hl_pkt_nic_write's.
 * @ctl: HL_GAUDI_PKT_CTL(HL_GAUDI_PKT_NIC_WRITE or _NIC_WRITE_IMM),
 *	barrier bits allowed; the other bits must be 0 (else malformed).
 * @local_addr: as struct hl_pkt_nic_write's.
 * @remote_addr: as struct hl_pkt_nic_write's.
 * @size: as struct hl_pkt_nic_write's.
 * @wr_id: as struct hl_pkt_nic_write's.
 * @lkey: as struct hl_pkt_nic_write's.
 * @rkey: as struct hl_pkt_nic_write's.
 * @imm_data: as struct hl_pkt_nic_write's.
 * @pad: must be 0 (else malformed).
 *
 * The same engine as HL_PKT_NIC_WRITE and HL_PKT_NIC_WRITE_IMM.
 */
struct hl_gaudi_pkt_nic_write {
	__u32 conn_id;
	__u32 ctl;
	__u64 local_addr;
	__u64 remote_addr;
	__u64 size;
	__u64 wr_id;
	__u32 lkey;
	__u32 rkey;
	__u32 imm_data;
	__u32 pad;
};

/*
 * The queue managers' message bases (GAUDI's CP_MSG_BASE0..3_ADDR_LO/HI;
 * the queues grouped in queue managers as for the fence registers: queues
 * 0-3 DMA0's streams, 4-7 DMA1's, queue manager k at k *
 * HL_QM_FENCE_QM_STRIDE): MSG_SHORT writes to base + its 16-bit offset.
 * At each change of the device's owner they hold what GAUDI's driver
 * programs: base 0 the E_N monitors (HL_SM_MON_PAY_ADDRL_0),
 * base 1 the E_N SOBs (HL_SM_SOB_OBJ_0), base 2 and 3 the W_S block's
 * monitors and SOBs (HL_SM_WS_MON_PAY_ADDRL_0, HL_SM_WS_SOB_OBJ_0). The W_S
 * block is a second set of HL_SM_NUM_SOBS SOBs and HL_SM_NUM_MONITORS
 * monitors with the E_N block's layout 0x60000 lower (a W_S monitor
 * watches W_S SOBs; its payload obeys the E_N rules above). The bases are
 * written as any register (MSG_LONG, WREG_32).
 */
#define HL_QM_MSG_BASE_NUM		4
#define HL_QM_MSG_BASE_LO_0		(HL_CFG_BASE + 0x508228)
#define HL_QM_MSG_BASE_LO(queue, base)					\
	(HL_QM_MSG_BASE_LO_0 +						\
	 HL_QM_FENCE_QM_STRIDE * ((queue) / HL_QM_FENCE_STREAMS) +	\
	 0x28ull * (base) + 4ull * ((queue) % HL_QM_FENCE_STREAMS))
#define HL_QM_MSG_BASE_HI(queue, base)					\
	(HL_QM_MSG_BASE_LO(queue, base) + 0x14ull)
#define HL_SM_WS_SOB_OBJ_0		(HL_CFG_BASE + 0x492000)
#define HL_SM_WS_MON_PAY_ADDRL_0	(HL_CFG_BASE + 0x494000)

/*
 * WREG_32 and WREG_BULK write registers at offsets from the executing
 * engine's block: DMA0's (HL_GAUDI_DMA0_BLOCK) for queues 0-3, DMA1's for
 * 4-7, the next blocks HL_QM_FENCE_QM_STRIDE apart for the next queues
 * four by four; a block holds its queue manager's fence registers and
 * message bases
 */
#define HL_GAUDI_DMA0_BLOCK		(HL_CFG_BASE + 0x500000)
#define HL_GAUDI_ENGINE_BLOCK(queue)					\
	(HL_GAUDI_DMA0_BLOCK +						\
	 HL_QM_FENCE_QM_STRIDE * ((queue) / HL_QM_FENCE_STREAMS))

#endif /* _UAPI_MISC_HABANALABS_PKT_H_ */

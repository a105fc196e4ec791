/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs emu: the software-emulated ASIC.
 *
 * The device is a QEMU ivshmem-plain PCI function whose BAR2 is the HBM.
 * Everything a real ASIC does in silicon (queue managers, DMA engines, the
 * MMU walk, the NIC fabric) is done here in software, against the HBM in
 * BAR2 and host memory reached through DMA addresses, never by a side
 * channel that real hardware would not have.
 *
 * HBM layout (device physical addresses = offsets into BAR2):
 *   [0, mmu_pgt_size)             device page tables (driver reserved)
 *   [mmu_pgt_size, hbm_size)      user-allocatable DRAM
 *
 * Locks of the backend (their place in the driver's lock order is in
 * habanalabs.h, above struct hl_device): hl_emu_queue.lock guards a
 * queue's pending list and running job. The backend takes no lock of the
 * core's: a queue worker opens an engine access around each chunk
 * (hl_device_hw_access_begin(), common/engine_access.h: the core's
 * engine_access_rwsem for read), with no other lock held, and calls
 * hl_cs_job_done() with no lock held. The NIC engine (emu_nic.c) opens
 * one on its own device and one on the peer device (hl_device_hw_enter())
 * in turn, never both at once, and holds no NIC lock around either.
 */
#ifndef HL_EMU_H_
#define HL_EMU_H_

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <uapi/misc/habanalabs_pkt.h>

#include "../common/habanalabs.h"

struct hl_emu_nic;

/* Identity reported by INFO and sysfs */
#define HL_EMU_CARD_NAME		"emu-gaudi"
#define HL_EMU_FW_VERSION		"emulated"

#define HL_EMU_HBM_BAR			2
#define HL_EMU_HBM_MIN_SIZE		SZ_64M
#define HL_EMU_DRAM_PAGE_SIZE		SZ_2M
#define HL_EMU_HOST_PAGE_SIZE		SZ_4K

/* Device virtual address ranges (48-bit device VA space) */
#define HL_EMU_VA_HOST_START		0x100000000000ull
#define HL_EMU_VA_HOST_END		0x200000000000ull
#define HL_EMU_VA_DRAM_START		0x200000000000ull
#define HL_EMU_VA_DRAM_END		0x210000000000ull
/* Driver-owned command buffers (HL_IOCTL_CB), just below the host range */
#define HL_EMU_VA_CB_START		0x0f0000000000ull
#define HL_EMU_VA_CB_END		0x100000000000ull

#define HL_EMU_NUM_QUEUES		4

/*
 * The MMU (emu_mmu.c): four hops of 512 PTEs in 4 KiB tables, indexing
 * VA[47:39], VA[38:30], VA[29:21] and VA[20:12]; leaves map 2 MiB pages in
 * hop2 and 4 KiB pages in hop3; 64 ASIDs.
 */
#define HL_EMU_MMU_NUM_HOPS		4
#define HL_EMU_MMU_HOP_TABLE_SIZE	SZ_4K
#define HL_EMU_MMU_HOP_BITS		9
#define HL_EMU_MMU_HOP3_SHIFT		12
#define HL_EMU_MMU_VA_BITS		48
#define HL_EMU_MMU_LEAF_HOPS		(BIT(2) | BIT(3))
#define HL_EMU_MMU_MAX_ASID		64

/* NIC ports per device: 4 devices all-to-all need 3 (emu_nic.c) */
#define HL_EMU_NIC_PORTS		8

/*
 * Command-buffer fetches, MSG_LONG and the fallbacks of the data engines are
 * split in chunks that never cross a 4 KiB device VA page (so never a 4 KiB
 * host page nor a 2 MiB DRAM page either); each chunk is translated and
 * copied inside one engine access (hl_device_hw_access_begin()).
 */
#define HL_EMU_CHUNK_SIZE		SZ_4K

/*
 * LIN_DMA, MEMSET, REDUCE and the NIC move data in runs (hl_emu_mmu_span():
 * as long as the translation stays contiguous), at most this many bytes per
 * engine access (hl_device_hw_access_begin()); deadlines, hw_fini and the
 * scheduler are checked between slices.
 */
#define HL_EMU_SLICE_SIZE		SZ_256K

/* Largest step of the NIC through hl_emu_queue.buf */
#define HL_EMU_NIC_STEP			SZ_64K

/* Size of hl_emu_queue.buf: a NIC step, or two chunks and a pattern */
#define HL_EMU_QUEUE_BUF_SIZE		HL_EMU_NIC_STEP

/* Entries of each queue's TLB (direct mapped, a power of 2) */
#define HL_EMU_TLB_ENTRIES		64

/**
 * struct hl_emu_tlb_entry - one cached translation of a device page (a
 *	leaf: 2 MiB in hop2 or 4 KiB in hop3).
 * @gen: the device's TLB generation when the entry was filled; the entry is
 *	valid only while it equals hl_emu_device.tlb_gen (0: never valid).
 * @vpn: device VA >> @shift.
 * @addr: the translated page's base: an HBM device physical address, or a
 *	host DMA address when @host.
 * @asid: the address space of @vpn.
 * @shift: log2 of the page size (21 or 12).
 * @host: the leaf PTE had HL_PTE_HOST.
 */
struct hl_emu_tlb_entry {
	u64 gen;
	u64 vpn;
	u64 addr;
	u32 asid;
	u32 shift;
	bool host;
};

/**
 * struct hl_emu_queue - one engine queue: a queue manager fetching command
 * buffers through the MMU and an engine executing their packets, one job at
 * a time, in submission order.
 * @emu: the device.
 * @id: queue index.
 * @work: runs the queue's jobs on hl_emu_device.wq.
 * @lock: Protects @pending and @running.
 * @pending: jobs waiting to run (struct hl_cs_job.node).
 * @running: the job being executed, or NULL.
 * @tlb: the queue's TLB; used by the queue's worker only.
 * @buf: HL_EMU_QUEUE_BUF_SIZE bytes: a chunk bounce buffer, a MEMSET
 *	pattern (HL_EMU_CHUNK_SIZE + 8 bytes), the two operands of a REDUCE
 *	chunk, or a step of a NIC message; used by the queue's worker only.
 * @tlb_hits: translations served by @tlb.
 * @tlb_misses: translations that walked the page tables.
 */
struct hl_emu_queue {
	struct hl_emu_device *emu;
	u32 id;
	struct work_struct work;
	spinlock_t lock; /* Protects: pending, running */
	struct list_head pending;
	struct hl_cs_job *running;
	struct hl_emu_tlb_entry tlb[HL_EMU_TLB_ENTRIES];
	u8 *buf;
	u64 tlb_hits;
	u64 tlb_misses;
};

/**
 * struct hl_emu_device - the emulated ASIC's private state.
 * @hdev: the device.
 * @hbm: kernel mapping of BAR2 (the whole HBM).
 * @hbm_bus_addr: CPU physical address of BAR2.
 * @hbm_size: size of BAR2.
 * @wq: runs the queues' workers (one work item per queue).
 * @stopped: set once by hw_fini; queues take no job after it, and a running
 *	job aborts (-ENODEV) at its next chunk. Read and set under every
 *	queue's lock.
 * @tlb_gen: TLB generation, bumped by mmu_invalidate_cache; starts at 1.
 * @queues: the engine queues.
 * @nic: the NIC ports and the device's place in the fabric (emu_nic.c);
 *	the device holds a reference from hw_init to early_fini.
 */
struct hl_emu_device {
	struct hl_device *hdev;
	void __iomem *hbm;
	phys_addr_t hbm_bus_addr;
	resource_size_t hbm_size;
	struct workqueue_struct *wq;
	bool stopped;
	atomic64_t tlb_gen;
	struct hl_emu_queue queues[HL_EMU_NUM_QUEUES];
	struct hl_emu_nic *nic;
};

/**
 * struct hl_emu_nic_port - one NIC port.
 * @admin_up: this end of the link is up (debugfs nic/port<N>/link).
 * @nic: the NIC it belongs to (for its debugfs file).
 * @index: its number.
 */
struct hl_emu_nic_port {
	bool admin_up;
	struct hl_emu_nic *nic;
	u32 index;
};

/**
 * struct hl_emu_nic - a device's NIC as the fabric sees it.
 * @refcount: the device holds one from hw_init to early_fini; peer engines
 *	one each while they use it.
 * @hdev: the device; the NIC holds a reference on it.
 * @id: the device's module id.
 * @detached: set by hw_fini before hl_device_hw_quiesce(), cleared by the
 *	hw_init after a hard reset before the device rejoins the fabric;
 *	read inside hl_device_hw_enter(). Once hw_fini's quiesce returned,
 *	no engine touches the device's memory from outside.
 * @ports: the ports.
 * @qps: the QP contexts of the device's connections by connection ID
 *	(emu_nic_qp.c): its own lock guards membership; an entry is the
 *	core's reference, until nic_qp_teardown. Every QP context holds a
 *	reference on the NIC.
 */
struct hl_emu_nic {
	struct kref refcount;
	struct hl_device *hdev;
	u32 id;
	bool detached;
	struct hl_emu_nic_port ports[HL_EMU_NIC_PORTS];
	struct xarray qps;
};

/*
 * Not a completion status: the wire cannot go on yet (a wait, then a new
 * try)
 */
#define HL_EMU_WR_AGAIN		U32_MAX

/**
 * struct hl_emu_qp - a connection's QP context (emu_nic_qp.c): what the
 * core programmed (struct hl_nic_qp_attr) and the wire's state.
 * @refcount: the core's (the entry in hl_emu_nic.qps) until nic_qp_teardown,
 *	and one per job or peer engine that uses it.
 * @nic: the device's NIC, with a reference.
 * @ctx: the connection's context; not counted: the core tears the QP
 *	context down before the context goes. Compared, and used only with a
 *	reference of the user's (a job's, or hl_emu_qp_get_remote()'s).
 * @id: the connection ID.
 * @port: its port.
 * @lock: Protects every field below.
 * @state: enum hl_nic_conn_state, as programmed, or ERR by the wire.
 * @core_epoch: the core's epoch, as programmed.
 * @flush_status: what flushed work ends with.
 * @destroyed: the connection is destroyed.
 * @remote_addr: the peer port's address.
 * @remote_conn_id: the peer connection.
 * @mtu: largest packet payload.
 * @sq_size: sends outstanding at most.
 * @rq_size: receives posted at most.
 * @send_cq: handle of the CQ of send completions, or 0.
 * @recv_cq: handle of the CQ of receive completions, or 0.
 * @epoch: the wire's epoch: moves with each new epoch programmed and each
 *	failure the wire finds; work of an older one is flushed.
 * @sq_psn: PSN of the next packet sent.
 * @rq_psn: PSN expected in the next packet received.
 * @sq_posted: sends outstanding (any epoch).
 * @rq_posted: receives posted and not completed (any epoch).
 * @tx_busy: a sender is on the wire: one message at a time, in PSN order.
 * @rq: posted receives (struct hl_emu_wr.node), oldest first.
 * @wq: woken on every change of the fields above: receivers wait for
 *	their receive, senders for their turn and for a posted receive.
 */
struct hl_emu_qp {
	struct kref refcount;
	struct hl_emu_nic *nic;
	struct hl_ctx *ctx;
	u32 id;
	u32 port;
	spinlock_t lock; /* Protects: everything below */
	enum hl_nic_conn_state state;
	u32 core_epoch;
	u32 flush_status;
	bool destroyed;
	u64 remote_addr;
	u32 remote_conn_id;
	u32 mtu;
	u32 sq_size;
	u32 rq_size;
	u32 send_cq;
	u32 recv_cq;
	u32 epoch;
	u32 sq_psn;
	u32 rq_psn;
	u32 sq_posted;
	u32 rq_posted;
	bool tx_busy;
	struct list_head rq;
	wait_queue_head_t wq;
};

/**
 * enum hl_emu_wr_state - where a posted receive is.
 * @HL_EMU_WR_POSTED: on its QP's receive queue, waiting.
 * @HL_EMU_WR_ACTIVE: taken by a sender, which is filling it; only that
 *	sender completes it.
 * @HL_EMU_WR_DONE: completed; the poster owns it again.
 */
enum hl_emu_wr_state {
	HL_EMU_WR_POSTED,
	HL_EMU_WR_ACTIVE,
	HL_EMU_WR_DONE,
};

/**
 * struct hl_emu_wr - a posted receive (an HL_PKT_NIC_RECV in progress),
 * from hl_emu_recv_post() to hl_emu_recv_finish().
 * @addr: device virtual address of the buffer (the receiver's context).
 * @size: bytes of the buffer.
 * @wr_id: the user's tag.
 * @queue_id: the queue that posted it (for the fault record).
 * @qp: the QP context it is posted on; the poster holds a reference.
 * @cq: the QP's receive CQ handle at posting, or 0.
 * @core_epoch: the QP's core epoch at posting.
 * @node: in hl_emu_qp.rq while POSTED.
 * @epoch: the QP's wire epoch when posted.
 * @state: enum hl_emu_wr_state, under the QP's lock.
 * @status: HL_NIC_CQE_STATUS_* once DONE.
 * @byte_len: bytes that landed, once DONE.
 * @psn: PSN of the message's first packet, once DONE.
 * @opcode: the CQE's opcode: RECV, or RECV_RDMA_WITH_IMM once a WRITE_IMM
 *	took it.
 * @imm_data: the WRITE_IMM's immediate value, once DONE.
 * @fail: its failure moved the QP to ERR: the report says so too.
 */
struct hl_emu_wr {
	u64 addr;
	u64 size;
	u64 wr_id;
	u32 queue_id;
	struct hl_emu_qp *qp;
	u32 cq;
	u32 core_epoch;
	struct list_head node;
	u32 epoch;
	enum hl_emu_wr_state state;
	u32 status;
	u64 byte_len;
	u32 psn;
	u32 opcode;
	u32 imm_data;
	bool fail;
};

/**
 * enum hl_emu_xfer_kind - what a requester's work is.
 * @HL_EMU_XFER_SEND: a message into the peer's oldest posted receive.
 * @HL_EMU_XFER_WRITE: a one-sided write into a region of the peer's; no
 *	receive is taken.
 * @HL_EMU_XFER_WRITE_IMM: a one-sided write that then completes the peer's
 *	oldest posted receive with an immediate value.
 */
enum hl_emu_xfer_kind {
	HL_EMU_XFER_SEND,
	HL_EMU_XFER_WRITE,
	HL_EMU_XFER_WRITE_IMM,
};

/**
 * struct hl_emu_send - a send in progress (an HL_PKT_NIC_SEND or _WRITE),
 * from hl_emu_send_begin() to hl_emu_send_finish().
 * @qp: the sending QP context; the sender holds a reference.
 * @cq: the QP's send CQ handle at admission, or 0.
 * @core_epoch: the QP's core epoch at admission.
 * @size: bytes of the message.
 * @wr_id: the user's tag.
 * @kind: enum hl_emu_xfer_kind.
 * @imm_data: WRITE_IMM's immediate value.
 * @admitted: @qp counted the send in its sq_posted.
 * @epoch: @qp's wire epoch at admission.
 * @remote_conn_id: the peer connection, at admission.
 * @mtu: @qp's MTU, at admission.
 * @npkts: packets of the message: ceil(@size / @mtu), at least 1.
 * @tx_held: the send holds @qp's tx_busy (its turn on the wire).
 * @psn: PSN of the first packet, once it holds the wire.
 * @rqp: the peer QP context, once matched; the sender holds a reference
 *	until hl_emu_send_finish().
 * @wr: the peer's receive, ACTIVE, once matched (none for a WRITE).
 * @r_epoch: @rqp's wire epoch when matched.
 */
struct hl_emu_send {
	struct hl_emu_qp *qp;
	u32 cq;
	u32 core_epoch;
	u64 size;
	u64 wr_id;
	u32 kind;
	u32 imm_data;
	bool admitted;
	u32 epoch;
	u32 remote_conn_id;
	u32 mtu;
	u32 npkts;
	bool tx_held;
	u32 psn;
	struct hl_emu_qp *rqp;
	struct hl_emu_wr *wr;
	u32 r_epoch;
};

/**
 * struct hl_emu_pkt_nic - HL_PKT_NIC_SEND and HL_PKT_NIC_RECV as the engine
 * reads them (little-endian; struct hl_pkt_nic_send in the uAPI).
 * @ctl: the header.
 * @conn_id: the connection.
 * @addr: device virtual address of the message or buffer.
 * @size: bytes.
 * @wr_id: the user's tag.
 */
struct hl_emu_pkt_nic {
	__le32 ctl;
	__le32 conn_id;
	__le64 addr;
	__le64 size;
	__le64 wr_id;
};

/**
 * struct hl_emu_pkt_nic_write - HL_PKT_NIC_WRITE and HL_PKT_NIC_WRITE_IMM
 * as the engine reads them (struct hl_pkt_nic_write in the uAPI).
 * @ctl: the header.
 * @conn_id: the connection.
 * @local_addr: the source, in the lkey's region.
 * @remote_addr: the destination, in the rkey's region.
 * @size: bytes.
 * @wr_id: the user's tag.
 * @lkey: the local region's key.
 * @rkey: the peer's region's key.
 * @imm_data: WRITE_IMM's immediate value.
 * @pad: 0.
 */
struct hl_emu_pkt_nic_write {
	__le32 ctl;
	__le32 conn_id;
	__le64 local_addr;
	__le64 remote_addr;
	__le64 size;
	__le64 wr_id;
	__le32 lkey;
	__le32 rkey;
	__le32 imm_data;
	__le32 pad;
};

/**
 * struct hl_emu_span - a run of device VA held contiguously by one memory,
 *	as hl_emu_mmu_span() translated it.
 * @len: bytes.
 * @host: host memory (one page at most), else HBM.
 * @phys: host: the CPU physical address of the run's first byte.
 * @io: HBM: the BAR mapping of the run's first byte.
 */
struct hl_emu_span {
	u64 len;
	bool host;
	phys_addr_t phys;
	void __iomem *io;
};

/* The part of a run from byte @off on */
static inline struct hl_emu_span hl_emu_span_advance(const struct hl_emu_span *span,
						     u64 off)
{
	struct hl_emu_span part = *span;

	part.len -= off;
	if (part.host)
		part.phys += off;
	else
		part.io += off;
	return part;
}

static inline struct hl_emu_device *to_emu(struct hl_device *hdev)
{
	return hdev->asic_specific;
}

/* emu_mmu.c */
void hl_emu_mmu_props(struct hl_mmu_properties *mmu);
void hl_emu_mmu_invalidate_cache(struct hl_device *hdev, u32 asid);
void hl_emu_tlb_flush(struct hl_emu_queue *q);
int hl_emu_mmu_access(struct hl_emu_queue *q, u32 asid, u64 va, void *buf,
		      u32 len, bool write);

int hl_emu_mmu_span(struct hl_emu_device *emu, struct hl_emu_queue *q,
		    u32 asid, u64 va, u64 max, struct hl_emu_span *span);
void *hl_emu_span_map(const struct hl_emu_span *span);
void hl_emu_span_unmap(const struct hl_emu_span *span, void *p);
bool hl_emu_span_overlap(const struct hl_emu_span *a,
			 const struct hl_emu_span *b, u64 len);
void hl_emu_span_copy(const struct hl_emu_span *dst,
		      const struct hl_emu_span *src, u64 len);
void hl_emu_span_read(const struct hl_emu_span *span, void *buf, u64 len);
void hl_emu_span_write(const struct hl_emu_span *span, const void *buf,
		       u64 len);
void hl_emu_span_fill(const struct hl_emu_span *span, u8 c, u64 len);

/* emu_queue.c */
void hl_emu_queues_early_init(struct hl_emu_device *emu);
int hl_emu_queues_init(struct hl_emu_device *emu);
void hl_emu_queues_fini(struct hl_emu_device *emu);
int hl_emu_queue_job(struct hl_device *hdev, struct hl_cs_job *job);
bool hl_emu_queues_idle(struct hl_device *hdev, u64 *mask, u32 mask_len);

/* emu_nic.c */
int hl_emu_nic_init(struct hl_emu_device *emu);
void hl_emu_nic_fini(struct hl_emu_device *emu);
void hl_emu_nic_free(struct hl_emu_device *emu);
void hl_emu_nic_port_info(struct hl_device *hdev, u32 port,
			  struct hl_info_nic_port *info);
int hl_emu_nic_check_remote(struct hl_device *hdev, u32 port, u64 remote_addr);
struct hl_device *hl_emu_nic_peer_get(struct hl_device *hdev, u32 port,
				      u64 *addr);
void hl_emu_nic_debugfs_init(struct hl_device *hdev, struct dentry *root);
void hl_emu_nic_put(struct hl_emu_nic *nic);
int hl_emu_nic_exec_send(struct hl_emu_queue *q, struct hl_cs_job *job,
			 const struct hl_emu_pkt_nic *pkt);
int hl_emu_nic_exec_recv(struct hl_emu_queue *q, struct hl_cs_job *job,
			 const struct hl_emu_pkt_nic *pkt);
int hl_emu_nic_exec_write(struct hl_emu_queue *q, struct hl_cs_job *job,
			  const struct hl_emu_pkt_nic_write *pkt, bool imm);

/* emu_nic_qp.c */
void *hl_emu_nic_qp_create(struct hl_device *hdev, struct hl_ctx *ctx,
			   u32 conn_id, u32 port);
void hl_emu_nic_qp_program(struct hl_device *hdev, void *hw,
			   const struct hl_nic_qp_attr *attr);
void hl_emu_nic_qp_query(struct hl_device *hdev, void *hw, u32 *sq_psn,
			 u32 *rq_psn);
void hl_emu_nic_qp_teardown(struct hl_device *hdev, void *hw);
struct hl_emu_qp *hl_emu_qp_get(struct hl_emu_nic *nic, struct hl_ctx *ctx,
				u32 id);
struct hl_emu_qp *hl_emu_qp_get_remote(struct hl_emu_nic *peer, u32 id,
				       struct hl_ctx **ctx);
void hl_emu_qp_put(struct hl_emu_qp *qp);
u32 hl_emu_send_begin(struct hl_emu_send *s, struct hl_emu_qp *qp, u64 size,
		      u64 wr_id, enum hl_emu_xfer_kind kind, u32 imm_data);
bool hl_emu_send_flushed(const struct hl_emu_send *s);
u32 hl_emu_send_flush_status(const struct hl_emu_send *s);
void hl_emu_send_wait(const struct hl_emu_send *s, long timeout);
u32 hl_emu_send_take_turn(struct hl_emu_send *s);
void hl_emu_send_wait_turn(const struct hl_emu_send *s, long timeout);
u32 hl_emu_send_match(struct hl_emu_send *s, struct hl_emu_qp *rqp, u32 port,
		      u64 src_addr);
void hl_emu_send_wait_recv(const struct hl_emu_send *s, struct hl_emu_qp *rqp,
			   long timeout);
bool hl_emu_send_peer_flushed(const struct hl_emu_send *s);
void hl_emu_send_finish(struct hl_emu_send *s, u32 status, u64 byte_len);
u32 hl_emu_recv_post(struct hl_emu_wr *wr, struct hl_emu_qp *qp);
bool hl_emu_recv_flushed(const struct hl_emu_wr *wr);
void hl_emu_recv_wait(const struct hl_emu_wr *wr, long timeout);
bool hl_emu_recv_settle(struct hl_emu_wr *wr, u32 why, bool fail);
u32 hl_emu_recv_finish(struct hl_emu_wr *wr);

/* emu_reduce.c */
u32 hl_emu_reduce_elem_size(u32 dtype, u32 op);
void hl_emu_reduce_chunk(u32 dtype, u32 op, void *dst, const void *src,
			 u32 len);
bool hl_emu_reduce_spans(u32 dtype, u32 op, const struct hl_emu_span *dst,
			 const struct hl_emu_span *src, u64 len);

#endif /* HL_EMU_H_ */

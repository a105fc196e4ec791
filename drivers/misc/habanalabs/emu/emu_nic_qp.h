/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs emu: the wire's records, shared by its files: the QP context
 * of a connection (emu_nic_qp.c), a posted receive (the responder's,
 * emu_nic_resp.c), a send or WRITE in progress (the requester's,
 * emu_nic_req.c), and the calls between them and the completer
 * (emu_nic_comp.c). A WRITE walks them top-down from
 * hl_emu_nic_exec_write() (emu_nic_req.c's header has the walk).
 */
#ifndef HL_EMU_NIC_QP_H_
#define HL_EMU_NIC_QP_H_

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "emu.h"

struct hl_emu_nic;
struct hl_nic_mr;
struct hl_nic_qp_attr;

/*
 * Not a completion status: the wire cannot go on yet (a wait, then a new
 * try)
 */
#define HL_EMU_WR_AGAIN		U32_MAX

/**
 * struct hl_emu_qp - a connection's QP context (emu_nic_qp.c): what the
 * core programmed (@attr) and the wire's state.
 * @refcount: the core's (the entry in hl_emu_nic.qps) until nic_qp_teardown,
 *	and one per job or peer engine that uses it.
 * @nic: the device's NIC, with a reference.
 * @ctx: the connection's context; not counted: the core tears the QP
 *	context down before the context goes. Compared, and used only with a
 *	reference of the user's (a job's, or hl_emu_qp_get_remote()'s).
 * @id: the connection ID.
 * @port: its port.
 * @lock: Protects every field below.
 * @attr: the connection's attributes as the core programmed them (its
 *	@attr.epoch is the core's epoch), but for what the wire changes on
 *	its own: @attr.state goes to ERR and @attr.flush_status says why
 *	when the wire fails the QP (hl_emu_qp_fail_locked()), and
 *	@attr.destroyed is set at teardown.
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
	struct hl_nic_conn_attr attr;
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
 * from hl_emu_recv_post() to hl_emu_comp_recv().
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
 * from hl_emu_send_begin() to hl_emu_comp_send().
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
 *	until hl_emu_comp_send().
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
 * struct hl_emu_nic_xfer - one message being sent: the requester's record
 * of an HL_PKT_NIC_SEND or _WRITE, from its packet to its completion.
 * @q: the sending queue.
 * @job: its job.
 * @nic: this device's NIC.
 * @qp: the sending QP context (a reference).
 * @send: the wire's record of the send.
 * @stopped: the device is stopping: the job fails with -ENODEV.
 * @addr: device VA of the message (a WRITE: translated through @lmr).
 * @size: bytes of the message.
 * @moved: bytes that reached the peer.
 * @peer: the peer's NIC (a reference), once matched.
 * @rctx: the peer connection's context (a reference), once matched.
 * @rqp: the peer QP context (a reference), once matched.
 * @lmr: a WRITE's local region (a reference), once its lkey checked.
 * @rmr: a WRITE's peer region (a reference), once its rkey checked.
 * @dst: a WRITE's destination: device VA in @rctx, translated through
 *	@rmr.
 */
struct hl_emu_nic_xfer {
	struct hl_emu_queue *q;
	struct hl_cs_job *job;
	struct hl_emu_nic *nic;
	struct hl_emu_qp *qp;
	struct hl_emu_send send;
	bool stopped;
	u64 addr;
	u64 size;
	u64 moved;
	struct hl_emu_nic *peer;
	struct hl_ctx *rctx;
	struct hl_emu_qp *rqp;
	struct hl_nic_mr *lmr;
	struct hl_nic_mr *rmr;
	u64 dst;
};

/* emu_nic_qp.c: the QP contexts (asic_funcs), their lookups, the checks */
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
bool hl_emu_qp_fail_locked(struct hl_emu_qp *qp, u32 epoch, u32 why);
long hl_emu_nic_slice(struct hl_cs_job *job);
u32 hl_emu_nic_job_check(struct hl_emu_queue *q, struct hl_cs_job *job,
			 bool *stopped);
int hl_emu_nic_errno(u32 status, bool stopped);

/* emu_nic_req.c: the requester's state, read by the other roles */
bool hl_emu_send_flushed(const struct hl_emu_send *s);
bool hl_emu_send_peer_flushed(const struct hl_emu_send *s);

/* emu_nic_resp.c: the responder's side of a message */
u32 hl_emu_resp_match(struct hl_emu_send *s, struct hl_emu_qp *rqp, u32 port,
		      u64 src_addr);
void hl_emu_resp_wait_recv(const struct hl_emu_send *s, struct hl_emu_qp *rqp,
			   long timeout);
u32 hl_emu_resp_check_rkey(struct hl_emu_nic_xfer *x, u32 rkey, u64 raddr);

/* emu_nic_comp.c: the completions, reported to the core */
void hl_emu_comp_report(struct hl_emu_qp *qp, u32 cq, u32 core_epoch,
			bool fail, u32 opcode, u32 status, u64 wr_id,
			u64 byte_len, u32 psn, u32 imm_data);
void hl_emu_comp_send(struct hl_emu_send *s, u32 status, u64 byte_len);
u32 hl_emu_comp_recv(struct hl_emu_wr *wr);

#if IS_ENABLED(CONFIG_HABANALABS_DEBUG)
/* emu_nic_debug.c: TEST ONLY, the two-copy step (nic_two_copies) */
u32 hl_emu_nic_step_bounce(struct hl_emu_nic_xfer *x, u64 src, u64 dst,
			   u64 len, u64 *done);
#else
/* Never called: hl_nic_two_copies() is false without the parameter */
static inline u32 hl_emu_nic_step_bounce(struct hl_emu_nic_xfer *x, u64 src,
					 u64 dst, u64 len, u64 *done)
{
	*done = 0;
	return HL_NIC_CQE_STATUS_LOCAL_FAULT;
}
#endif /* CONFIG_HABANALABS_DEBUG */

#endif /* HL_EMU_NIC_QP_H_ */

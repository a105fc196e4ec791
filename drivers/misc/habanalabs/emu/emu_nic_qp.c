// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs emu: the NIC's QP contexts, the wire's side of a connection.
 *
 * The core programs a QP context for each connection (asic_funcs
 * nic_qp_create, nic_qp_program, nic_qp_query, nic_qp_teardown; struct
 * hl_nic_qp_attr): its state, epoch, peer, sizes, CQs and first PSNs.
 * Everything the wire does with it is here, as a NIC does it in silicon:
 * admission of work, the PSNs, one message at a time on the wire, matching
 * a message with the oldest receive posted on the peer connection (on the
 * peer device), and the completion of both sides; the copy itself and the
 * links are emu_nic.c's. What the wire finds goes to the core through
 * hl_nic_report() only: a CQE for the CQ the work reports to, and the
 * errors that move a connection to ERR.
 *
 * Epochs: @epoch of a QP context is the wire's. Work records it when it is
 * taken; a new epoch flushes the work of older ones. It moves on when the
 * core programs a new epoch of its own (a move to ERR or RESET, or
 * destruction) and when the wire fails the QP itself (a PSN mismatch, a
 * failed message); then the wire reports the failure, with the core's
 * epoch the work ran in, so that the core moves the connection to ERR
 * unless it moved on meanwhile.
 *
 * Lookups: each device's QP contexts are in its hl_emu_nic.qps by
 * connection ID. A job reaches the QP contexts of its own context
 * (hl_emu_qp_get()); a message reaches the peer device's QP context only
 * while the core says the fabric reaches its context
 * (hl_emu_qp_get_remote(), hl_nic_ctx_get_reached()).
 *
 * Locks: hl_emu_qp.lock guards a QP context, taken alone or under the
 * core's hl_nic_conn.lock (nic_qp_program, nic_qp_query); never two at
 * once, never across a sleep or a call to the core (hl_nic_report() is
 * called with no lock held). The lock order is in habanalabs.h.
 */

#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include "emu.h"
#include "emu_nic.h"

static void hl_emu_qp_release(struct kref *ref)
{
	struct hl_emu_qp *qp = container_of(ref, struct hl_emu_qp, refcount);

	/* Every receive completed before its put */
	WARN_ON_ONCE(!list_empty(&qp->rq));
	hl_emu_nic_put(qp->nic);
	kfree(qp);
}

/**
 * hl_emu_qp_put - drop a reference on a QP context.
 * @qp: the QP context.
 */
void hl_emu_qp_put(struct hl_emu_qp *qp)
{
	kref_put(&qp->refcount, hl_emu_qp_release);
}

/* The QP context @id of @nic with a reference, or NULL */
static struct hl_emu_qp *hl_emu_qp_lookup(struct hl_emu_nic *nic, u32 id)
{
	struct hl_emu_qp *qp;

	xa_lock(&nic->qps);
	qp = xa_load(&nic->qps, id);
	if (qp)
		kref_get(&qp->refcount);
	xa_unlock(&nic->qps);
	return qp;
}

/**
 * hl_emu_qp_get - the QP context of connection @id of a job's context.
 * @nic: the job's device's NIC.
 * @ctx: the job's context.
 * @id: the connection ID.
 *
 * Return: the QP context with a reference, or NULL when @ctx has no such
 * connection (any more).
 */
struct hl_emu_qp *hl_emu_qp_get(struct hl_emu_nic *nic, struct hl_ctx *ctx,
				u32 id)
{
	struct hl_emu_qp *qp = hl_emu_qp_lookup(nic, id);

	if (qp && qp->ctx != ctx) {
		hl_emu_qp_put(qp);
		qp = NULL;
	}
	return qp;
}

/**
 * hl_emu_qp_get_remote - the QP context of connection @id on a peer
 * device, when the fabric reaches it: its context owns the device.
 * @peer: the peer device's NIC; the caller holds a reference.
 * @id: the connection ID.
 * @ctx: receives the connection's context, with a reference.
 *
 * Return: the QP context with a reference, or NULL.
 */
struct hl_emu_qp *hl_emu_qp_get_remote(struct hl_emu_nic *peer, u32 id,
				       struct hl_ctx **ctx)
{
	struct hl_emu_qp *qp = hl_emu_qp_lookup(peer, id);

	if (!qp)
		return NULL;
	if (!hl_nic_ctx_get_reached(peer->hdev, qp->ctx)) {
		hl_emu_qp_put(qp);
		return NULL;
	}
	*ctx = qp->ctx;
	return qp;
}

/**
 * hl_emu_nic_qp_create - asic_funcs->nic_qp_create.
 * @hdev: the device.
 * @ctx: the connection's context.
 * @conn_id: the connection ID.
 * @port: its port.
 *
 * Return: the QP context (in RESET), or ERR_PTR(-ENOMEM).
 */
void *hl_emu_nic_qp_create(struct hl_device *hdev, struct hl_ctx *ctx,
			   u32 conn_id, u32 port)
{
	struct hl_emu_nic *nic = to_emu(hdev)->nic;
	struct hl_emu_qp *qp;
	int rc;

	qp = kzalloc(sizeof(*qp), GFP_KERNEL_ACCOUNT);
	if (!qp)
		return ERR_PTR(-ENOMEM);
	kref_init(&qp->refcount);
	kref_get(&nic->refcount);
	qp->nic = nic;
	qp->ctx = ctx;
	qp->id = conn_id;
	qp->port = port;
	spin_lock_init(&qp->lock);
	qp->state = HL_NIC_CONN_STATE_RESET;
	qp->flush_status = HL_NIC_CQE_STATUS_FLUSHED;
	INIT_LIST_HEAD(&qp->rq);
	init_waitqueue_head(&qp->wq);

	/* The table's entry is the core's reference */
	rc = xa_insert(&nic->qps, conn_id, qp, GFP_KERNEL_ACCOUNT);
	if (rc) {
		hl_emu_qp_put(qp);
		return ERR_PTR(rc == -EBUSY ? -EINVAL : rc);
	}
	return qp;
}

/**
 * hl_emu_nic_qp_program - asic_funcs->nic_qp_program.
 * @hdev: the device.
 * @hw: the QP context.
 * @attr: what the core decided.
 */
void hl_emu_nic_qp_program(struct hl_device *hdev, void *hw,
			   const struct hl_nic_qp_attr *attr)
{
	struct hl_emu_qp *qp = hw;

	spin_lock(&qp->lock);
	/* A new epoch of the core's flushes the work taken before */
	if (attr->epoch != qp->core_epoch)
		/* Read without the lock by the engine, between steps */
		WRITE_ONCE(qp->epoch, qp->epoch + 1);
	qp->core_epoch = attr->epoch;
	qp->state = attr->state;
	WRITE_ONCE(qp->flush_status, attr->flush_status);
	qp->destroyed = attr->destroyed;
	qp->remote_addr = attr->remote_addr;
	qp->remote_conn_id = attr->remote_conn_id;
	qp->mtu = attr->mtu;
	qp->sq_size = attr->sq_size;
	qp->rq_size = attr->rq_size;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	if (attr->set_sq_psn)
		qp->sq_psn = attr->sq_psn;
	if (attr->set_rq_psn)
		qp->rq_psn = attr->rq_psn;
	wake_up_all(&qp->wq);
	spin_unlock(&qp->lock);
}

/**
 * hl_emu_nic_qp_query - asic_funcs->nic_qp_query.
 * @hdev: the device.
 * @hw: the QP context.
 * @sq_psn: receives the PSN of the next packet sent.
 * @rq_psn: receives the PSN expected next.
 */
void hl_emu_nic_qp_query(struct hl_device *hdev, void *hw, u32 *sq_psn,
			 u32 *rq_psn)
{
	struct hl_emu_qp *qp = hw;

	spin_lock(&qp->lock);
	*sq_psn = qp->sq_psn;
	*rq_psn = qp->rq_psn;
	spin_unlock(&qp->lock);
}

/**
 * hl_emu_nic_qp_teardown - asic_funcs->nic_qp_teardown: no job or peer
 * finds the QP context any more; work still holding it sees it flushed
 * (the core's last program) and lets go.
 * @hdev: the device.
 * @hw: the QP context.
 */
void hl_emu_nic_qp_teardown(struct hl_device *hdev, void *hw)
{
	struct hl_emu_qp *qp = hw;

	xa_erase(&qp->nic->qps, qp->id);
	spin_lock(&qp->lock);
	qp->destroyed = true;
	wake_up_all(&qp->wq);
	spin_unlock(&qp->lock);
	hl_emu_qp_put(qp);
}

/*
 * Move @qp (its lock held) to ERR after a failure of work of wire epoch
 * @epoch; a QP context that moved on since is left as it is. Its work in
 * flight ends with @why. Returns whether it moved.
 */
static bool hl_emu_qp_fail_locked(struct hl_emu_qp *qp, u32 epoch, u32 why)
{
	lockdep_assert_held(&qp->lock);

	if (qp->epoch != epoch)
		return false;
	qp->state = HL_NIC_CONN_STATE_ERR;
	WRITE_ONCE(qp->flush_status, why);
	WRITE_ONCE(qp->epoch, qp->epoch + 1);
	wake_up_all(&qp->wq);
	return true;
}

/* Tell the core of @qp's device: a CQE for @cq (0: none), and a failure */
static void hl_emu_qp_report(struct hl_emu_qp *qp, u32 cq, u32 core_epoch,
			     bool fail, u32 opcode, u32 status, u64 wr_id,
			     u64 byte_len, u32 psn, u32 imm_data)
{
	const struct hl_nic_cqe_report r = {
		.cqe = {
			.wr_id = wr_id,
			.byte_len = byte_len,
			.conn_id = qp->id,
			.port = qp->port,
			.opcode = opcode,
			.status = status,
			.psn = psn,
			.imm_data = imm_data,
		},
		.cq = cq,
		.epoch = core_epoch,
		.flags = fail ? HL_NIC_REPORT_FAIL : 0,
	};

	hl_nic_report(qp->nic->hdev, &r);
}

/* What the receiver's completion says when the sender's ends with @status */
static u32 hl_emu_recv_status(u32 status)
{
	switch (status) {
	case HL_NIC_CQE_STATUS_SUCCESS:
	case HL_NIC_CQE_STATUS_LEN_ERR:
	case HL_NIC_CQE_STATUS_LINK_DOWN:
	case HL_NIC_CQE_STATUS_PSN_ERR:
		return status;
	case HL_NIC_CQE_STATUS_REMOTE_FAULT:
		return HL_NIC_CQE_STATUS_LOCAL_FAULT;
	case HL_NIC_CQE_STATUS_REMOTE_ERR:
		return HL_NIC_CQE_STATUS_FLUSHED;
	case HL_NIC_CQE_STATUS_REMOTE_ACCESS_ERR:
		return HL_NIC_CQE_STATUS_LOCAL_ACCESS_ERR;
	default:
		return HL_NIC_CQE_STATUS_REMOTE_ABORT;
	}
}

/**
 * hl_emu_send_begin - admit a send: the QP is in RTS and below its send
 * WQ size.
 * @s: the send's record, filled here.
 * @qp: the sending QP context; the caller holds a reference until
 *	hl_emu_send_finish().
 * @size: bytes of the message.
 * @wr_id: the user's tag.
 * @kind: a message, or a one-sided write (enum hl_emu_xfer_kind).
 * @imm_data: a WRITE_IMM's immediate value.
 *
 * Whatever it returns, the send ends with hl_emu_send_finish().
 *
 * Return: SUCCESS, FLUSHED (not in RTS) or WQ_FULL.
 */
u32 hl_emu_send_begin(struct hl_emu_send *s, struct hl_emu_qp *qp, u64 size,
		      u64 wr_id, enum hl_emu_xfer_kind kind, u32 imm_data)
{
	u32 status = HL_NIC_CQE_STATUS_SUCCESS;

	memset(s, 0, sizeof(*s));
	s->qp = qp;
	s->size = size;
	s->wr_id = wr_id;
	s->kind = kind;
	s->imm_data = imm_data;

	spin_lock(&qp->lock);
	s->cq = qp->send_cq;
	s->core_epoch = qp->core_epoch;
	if (!hl_nic_conn_takes_sends(qp->state)) {
		status = HL_NIC_CQE_STATUS_FLUSHED;
	} else if (qp->sq_posted >= qp->sq_size) {
		status = HL_NIC_CQE_STATUS_WQ_FULL;
	} else {
		qp->sq_posted++;
		s->admitted = true;
		s->epoch = qp->epoch;
		s->remote_conn_id = qp->remote_conn_id;
		s->mtu = qp->mtu;
	}
	spin_unlock(&qp->lock);

	if (s->admitted)
		s->npkts = max_t(u64, 1, DIV_ROUND_UP_ULL(size, s->mtu));
	return status;
}

/**
 * hl_emu_send_flushed - whether the sending QP moved on (reset, failed,
 * destroyed) since the send was admitted.
 * @s: an admitted send.
 *
 * Return: true when the send must end with hl_emu_send_flush_status().
 */
bool hl_emu_send_flushed(const struct hl_emu_send *s)
{
	/* Read without the lock: a new epoch is final for this send */
	return READ_ONCE(s->qp->epoch) != s->epoch;
}

/**
 * hl_emu_send_flush_status - how a flushed send ends.
 * @s: an admitted send that hl_emu_send_flushed() found flushed.
 *
 * Return: REMOTE_ERR (LINK_DOWN) when the sending connection went to ERR
 * because its peer's owner went, else FLUSHED.
 */
u32 hl_emu_send_flush_status(const struct hl_emu_send *s)
{
	return READ_ONCE(s->qp->flush_status);
}

/**
 * hl_emu_send_wait - sleep until the sending QP is flushed or changes, or
 * @timeout passed (a wait for the peer connection to appear).
 * @s: an admitted send.
 * @timeout: jiffies at most.
 */
void hl_emu_send_wait(const struct hl_emu_send *s, long timeout)
{
	wait_event_timeout(s->qp->wq, hl_emu_send_flushed(s), timeout);
}

/**
 * hl_emu_send_take_turn - take the wire for the send: no other message of
 * the QP is on it; fixes the send's first PSN.
 * @s: an admitted send.
 *
 * Return: SUCCESS, the flush status (hl_emu_send_flush_status()), or
 * HL_EMU_WR_AGAIN when another message holds the wire
 * (hl_emu_send_wait_turn(), then again).
 */
u32 hl_emu_send_take_turn(struct hl_emu_send *s)
{
	struct hl_emu_qp *qp = s->qp;
	u32 status = HL_EMU_WR_AGAIN;

	spin_lock(&qp->lock);
	if (qp->epoch != s->epoch) {
		status = qp->flush_status;
	} else if (!qp->tx_busy) {
		WRITE_ONCE(qp->tx_busy, true);
		s->tx_held = true;
		s->psn = qp->sq_psn;
		status = HL_NIC_CQE_STATUS_SUCCESS;
	}
	spin_unlock(&qp->lock);
	return status;
}

static bool hl_emu_send_turn_ready(const struct hl_emu_send *s)
{
	return !READ_ONCE(s->qp->tx_busy) || hl_emu_send_flushed(s);
}

/**
 * hl_emu_send_wait_turn - sleep until the wire may be free or the send is
 * flushed, or @timeout passed.
 * @s: an admitted send.
 * @timeout: jiffies at most.
 */
void hl_emu_send_wait_turn(const struct hl_emu_send *s, long timeout)
{
	wait_event_timeout(s->qp->wq, hl_emu_send_turn_ready(s), timeout);
}

/*
 * hl_emu_send_match() under @rqp's lock; *@failed is set when a PSN
 * mismatch moved @rqp to ERR.
 */
static u32 hl_emu_send_match_locked(struct hl_emu_send *s,
				    struct hl_emu_qp *rqp, u32 port,
				    u64 src_addr, bool *failed)
{
	const u32 why = HL_NIC_CQE_STATUS_FLUSHED;
	struct hl_emu_wr *wr;

	lockdep_assert_held(&rqp->lock);

	/* No responder context yet (RESET, INIT): it may name us later */
	if (!rqp->remote_conn_id)
		return HL_EMU_WR_AGAIN;
	/*
	 * Set up for another connection (another pair, port, or an earlier
	 * owner's connection of the same slot): it ignores us, and waiting
	 * cannot change that
	 */
	if (rqp->port != port || rqp->remote_conn_id != s->qp->id ||
	    rqp->remote_addr != src_addr)
		return HL_NIC_CQE_STATUS_REMOTE_INVALID;
	if (rqp->state == HL_NIC_CONN_STATE_ERR)
		return HL_NIC_CQE_STATUS_REMOTE_ERR;
	if (!hl_nic_conn_takes_recvs(rqp->state))
		return HL_EMU_WR_AGAIN;

	if (s->kind == HL_EMU_XFER_WRITE) {
		/* One-sided: no receive, but the PSNs are checked as for one */
		if (rqp->rq_psn != s->psn) {
			*failed = hl_emu_qp_fail_locked(rqp, rqp->epoch, why);
			return HL_NIC_CQE_STATUS_PSN_ERR;
		}
		rqp->rq_psn = (s->psn + s->npkts) & HL_NIC_PSN_MASK;
		s->rqp = rqp;
		s->r_epoch = rqp->epoch;
		return HL_NIC_CQE_STATUS_SUCCESS;
	}

	wr = list_first_entry_or_null(&rqp->rq, struct hl_emu_wr, node);
	/* A receive of an older epoch is about to be withdrawn by its poster */
	if (!wr || wr->epoch != rqp->epoch)
		return HL_EMU_WR_AGAIN;

	list_del_init(&wr->node);
	if (rqp->rq_psn != s->psn) {
		wr->status = HL_NIC_CQE_STATUS_PSN_ERR;
		wr->psn = s->psn;
		*failed = hl_emu_qp_fail_locked(rqp, wr->epoch, why);
		/* Its CQE says the connection failed, in case it comes first */
		wr->fail = true;
		WRITE_ONCE(wr->state, HL_EMU_WR_DONE);
		wake_up_all(&rqp->wq);
		return HL_NIC_CQE_STATUS_PSN_ERR;
	}

	wr->state = HL_EMU_WR_ACTIVE;
	rqp->rq_psn = (s->psn + s->npkts) & HL_NIC_PSN_MASK;
	s->rqp = rqp;
	s->wr = wr;
	s->r_epoch = rqp->epoch;
	return HL_NIC_CQE_STATUS_SUCCESS;
}

/**
 * hl_emu_send_match - the message arrives at a peer QP context: take its
 * oldest receive for the send (it becomes ACTIVE, the sender's).
 * @s: a send that holds the wire.
 * @rqp: the peer QP context the message names (s->remote_conn_id); the
 *	caller holds a reference, which it keeps until hl_emu_send_finish()
 *	when this succeeds.
 * @port: the peer's port the message arrives on.
 * @src_addr: the address of the port the message leaves from.
 *
 * @rqp must be in RTR or RTS and set up for this port and connection
 * (else it ignores the message); the receive's PSN must be the expected
 * one (else both the receive and @rqp fail, which the peer's core is
 * told).
 *
 * Return: SUCCESS, REMOTE_ERR (@rqp is in ERR), REMOTE_INVALID (@rqp is
 * set up for another connection), PSN_ERR, or HL_EMU_WR_AGAIN: no
 * responder context or no receive to take yet (hl_emu_send_wait_recv()).
 */
u32 hl_emu_send_match(struct hl_emu_send *s, struct hl_emu_qp *rqp, u32 port,
		      u64 src_addr)
{
	bool failed = false;
	u32 status, core_epoch;

	spin_lock(&rqp->lock);
	core_epoch = rqp->core_epoch;
	status = hl_emu_send_match_locked(s, rqp, port, src_addr, &failed);
	spin_unlock(&rqp->lock);

	if (failed)
		hl_emu_qp_report(rqp, 0, core_epoch, true, 0, status, 0, 0,
				 s->psn, 0);
	return status;
}

static bool hl_emu_send_recv_ready(const struct hl_emu_send *s,
				   struct hl_emu_qp *rqp)
{
	return !list_empty_careful(&rqp->rq) || hl_emu_send_flushed(s);
}

/**
 * hl_emu_send_wait_recv - sleep until the peer QP has a posted receive or
 * changes, the send is flushed, or @timeout passed.
 * @s: a send that holds the wire.
 * @rqp: the peer QP context; the caller holds a reference.
 * @timeout: jiffies at most.
 */
void hl_emu_send_wait_recv(const struct hl_emu_send *s, struct hl_emu_qp *rqp,
			   long timeout)
{
	wait_event_timeout(rqp->wq, hl_emu_send_recv_ready(s, rqp), timeout);
}

/**
 * hl_emu_send_peer_flushed - whether the peer QP moved on since the send
 * was matched.
 * @s: a matched send.
 *
 * Return: true when the send must end REMOTE_ERR.
 */
bool hl_emu_send_peer_flushed(const struct hl_emu_send *s)
{
	return READ_ONCE(s->rqp->epoch) != s->r_epoch;
}

/**
 * hl_emu_send_finish - complete a send: the peer's side (its QP fails
 * first when the send failed, then its receive is filled), then the
 * sending QP; report the send's CQE.
 * @s: a send after hl_emu_send_begin().
 * @status: how the send ended (HL_NIC_CQE_STATUS_*).
 * @byte_len: bytes that reached the peer.
 *
 * An error moves the QPs whose work failed to ERR (unless they moved on
 * already) and is reported to their cores before any CQE of the message;
 * success advances the send PSN past the message. The peer's receive then
 * belongs to its poster again: neither @s->wr nor @s->rqp may be used
 * after this (the caller drops its reference on @s->rqp).
 */
void hl_emu_send_finish(struct hl_emu_send *s, u32 status, u64 byte_len)
{
	struct hl_emu_qp *qp = s->qp;
	struct hl_emu_qp *rqp = s->rqp;
	struct hl_emu_wr *wr = s->wr;
	bool failed = false;
	u32 core_epoch;

	if (rqp && status) {
		/* The responder's connection goes to ERR too, first */
		spin_lock(&rqp->lock);
		core_epoch = rqp->core_epoch;
		failed = hl_emu_qp_fail_locked(rqp, s->r_epoch,
					       HL_NIC_CQE_STATUS_FLUSHED);
		spin_unlock(&rqp->lock);
		if (failed)
			hl_emu_qp_report(rqp, 0, core_epoch, true, 0,
					 hl_emu_recv_status(status), 0,
					 byte_len, s->psn, 0);
	}
	if (wr) {
		spin_lock(&rqp->lock);
		wr->status = hl_emu_recv_status(status);
		wr->byte_len = byte_len;
		wr->psn = s->psn;
		if (s->kind == HL_EMU_XFER_WRITE_IMM) {
			wr->opcode = HL_NIC_CQE_OP_RECV_RDMA_WITH_IMM;
			wr->imm_data = status ? 0 : s->imm_data;
		}
		WRITE_ONCE(wr->state, HL_EMU_WR_DONE);
		/* The poster may let go of @wr once it sees DONE under the lock */
		wake_up_all(&rqp->wq);
		spin_unlock(&rqp->lock);
		s->wr = NULL;
	}

	failed = false;
	spin_lock(&qp->lock);
	if (s->tx_held) {
		WRITE_ONCE(qp->tx_busy, false);
		if (!status && qp->epoch == s->epoch)
			qp->sq_psn = (s->psn + s->npkts) & HL_NIC_PSN_MASK;
	}
	if (s->admitted) {
		qp->sq_posted--;
		if (status) {
			hl_emu_qp_fail_locked(qp, s->epoch,
					      HL_NIC_CQE_STATUS_FLUSHED);
			failed = true;
		}
	}
	wake_up_all(&qp->wq);
	spin_unlock(&qp->lock);

	hl_emu_qp_report(qp, s->cq, s->core_epoch, failed,
			 s->kind == HL_EMU_XFER_SEND ? HL_NIC_CQE_OP_SEND :
						       HL_NIC_CQE_OP_RDMA_WRITE,
			 status, s->wr_id, byte_len, s->psn, 0);
}

/**
 * hl_emu_recv_post - post a receive on a QP in RTR or RTS, below its
 * receive WQ size; a sender may take it from then on.
 * @wr: the receive, with @addr, @size, @wr_id and @queue_id set; it must
 *	stay in place until hl_emu_recv_finish().
 * @qp: the QP context; the caller holds a reference until
 *	hl_emu_recv_finish().
 *
 * Whatever it returns, the receive ends with hl_emu_recv_finish(); when
 * posted, it is first waited for (hl_emu_recv_wait()) until
 * hl_emu_recv_settle() says it is done.
 *
 * Return: SUCCESS (posted), FLUSHED (not in RTR or RTS) or WQ_FULL; on
 * failure the receive is DONE with that status.
 */
u32 hl_emu_recv_post(struct hl_emu_wr *wr, struct hl_emu_qp *qp)
{
	u32 status = HL_NIC_CQE_STATUS_SUCCESS;

	wr->qp = qp;
	INIT_LIST_HEAD(&wr->node);
	wr->state = HL_EMU_WR_POSTED;
	wr->opcode = HL_NIC_CQE_OP_RECV;
	wr->imm_data = 0;
	wr->fail = false;

	spin_lock(&qp->lock);
	wr->cq = qp->recv_cq;
	wr->core_epoch = qp->core_epoch;
	if (!hl_nic_conn_takes_recvs(qp->state)) {
		status = HL_NIC_CQE_STATUS_FLUSHED;
	} else if (qp->rq_posted >= qp->rq_size) {
		status = HL_NIC_CQE_STATUS_WQ_FULL;
	} else {
		wr->epoch = qp->epoch;
		list_add_tail(&wr->node, &qp->rq);
		qp->rq_posted++;
		/* A sender may be waiting for it */
		wake_up_all(&qp->wq);
	}
	spin_unlock(&qp->lock);

	if (status) {
		wr->status = status;
		wr->state = HL_EMU_WR_DONE;
	}
	return status;
}

/**
 * hl_emu_recv_flushed - whether the QP moved on (reset, failed,
 * destroyed) since the receive was posted.
 * @wr: a posted receive.
 *
 * Return: true when the receive, while still POSTED, must be withdrawn
 * FLUSHED.
 */
bool hl_emu_recv_flushed(const struct hl_emu_wr *wr)
{
	return READ_ONCE(wr->qp->epoch) != wr->epoch;
}

/**
 * hl_emu_recv_wait - sleep until the receive is DONE, or @timeout passed.
 * @wr: a posted receive.
 * @timeout: jiffies at most.
 */
void hl_emu_recv_wait(const struct hl_emu_wr *wr, long timeout)
{
	wait_event_timeout(wr->qp->wq,
			   READ_ONCE(wr->state) == HL_EMU_WR_DONE, timeout);
}

/**
 * hl_emu_recv_settle - withdraw a receive that can no longer be filled, and
 * tell whether it is done.
 * @wr: a posted receive.
 * @why: SUCCESS to keep waiting, else why the poster gives up (the status
 *	of its completion).
 * @fail: when withdrawn, the QP goes to ERR too (and its connection, when
 *	the receive is reported).
 *
 * A POSTED receive is withdrawn with status @why; an ACTIVE one belongs to
 * its sender, which completes it within a step.
 *
 * Return: true when the receive is DONE (its status and bytes are final);
 * false to wait again.
 */
bool hl_emu_recv_settle(struct hl_emu_wr *wr, u32 why, bool fail)
{
	struct hl_emu_qp *qp = wr->qp;
	bool done;

	spin_lock(&qp->lock);
	if (wr->state == HL_EMU_WR_POSTED && why) {
		list_del_init(&wr->node);
		wr->status = why;
		WRITE_ONCE(wr->state, HL_EMU_WR_DONE);
		if (fail) {
			hl_emu_qp_fail_locked(qp, wr->epoch,
					      HL_NIC_CQE_STATUS_FLUSHED);
			wr->fail = true;
		}
	}
	done = wr->state == HL_EMU_WR_DONE;
	if (done)
		qp->rq_posted--;
	spin_unlock(&qp->lock);
	return done;
}

/**
 * hl_emu_recv_finish - report a receive's CQE (and, when its poster gave
 * up on it with @fail, the failure of its connection).
 * @wr: a receive that failed to post, or that hl_emu_recv_settle() found
 *	done.
 *
 * Return: the receive's status.
 */
u32 hl_emu_recv_finish(struct hl_emu_wr *wr)
{
	hl_emu_qp_report(wr->qp, wr->cq, wr->core_epoch, wr->fail, wr->opcode,
			 wr->status, wr->wr_id, wr->byte_len, wr->psn,
			 wr->imm_data);
	return wr->status;
}

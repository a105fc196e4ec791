// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs emu: the NIC's responder: a message arriving at a peer QP
 * context (matching it with the oldest posted receive, the PSN check), a
 * WRITE's rkey, and HL_PKT_NIC_RECV, which posts a receive and waits for a
 * message to fill it.
 *
 * A WRITE reaches the responder twice, from its requester's matching
 * (emu_nic_req.c): hl_emu_resp_match() takes the peer QP context for it
 * (RTR or RTS, set up for this port and connection, the expected PSN; a
 * mismatch fails the peer QP, reported to its core) and, for a WRITE_IMM,
 * takes the oldest posted receive, which becomes ACTIVE (the sender's);
 * then hl_emu_resp_check_rkey() checks the rkey in the peer connection's
 * context before the first byte lands. The receive is completed by the
 * requester (hl_emu_comp_send(), emu_nic_comp.c); its CQE is reported by
 * the RECV that posted it (hl_emu_comp_recv()).
 *
 * A RECV posts its receive (hl_emu_recv_post()) and waits for it to be
 * DONE. A POSTED receive is withdrawn by its poster (timeout, stop, link
 * down, flushed QP: hl_emu_recv_settle()); an ACTIVE one only by its
 * sender, which stops within a step.
 *
 * Locks: the peer QP context's lock, alone; hl_nic_report() is called with
 * none held.
 */

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "emu.h"
#include "emu_nic.h"

/*
 * hl_emu_resp_match() under @rqp's lock; *@failed is set when a PSN
 * mismatch moved @rqp to ERR.
 */
static u32 hl_emu_resp_match_locked(struct hl_emu_send *s,
				    struct hl_emu_qp *rqp, u32 port,
				    u64 src_addr, bool *failed)
{
	const u32 why = HL_NIC_CQE_STATUS_FLUSHED;
	struct hl_emu_wr *wr;

	lockdep_assert_held(&rqp->lock);

	/* No responder context yet (RESET, INIT): it may name us later */
	if (!rqp->attr.remote_conn_id)
		return HL_EMU_WR_AGAIN;
	/*
	 * Set up for another connection (another pair, port, or an earlier
	 * owner's connection of the same slot): it ignores us, and waiting
	 * cannot change that
	 */
	if (rqp->port != port || rqp->attr.remote_conn_id != s->qp->id ||
	    rqp->attr.remote_addr != src_addr)
		return HL_NIC_CQE_STATUS_REMOTE_INVALID;
	if (rqp->attr.state == HL_NIC_CONN_STATE_ERR)
		return HL_NIC_CQE_STATUS_REMOTE_ERR;
	if (!hl_nic_conn_takes_recvs(rqp->attr.state))
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
 * hl_emu_resp_match - the message arrives at a peer QP context: take its
 * oldest receive for the send (it becomes ACTIVE, the sender's).
 * @s: a send that holds the wire.
 * @rqp: the peer QP context the message names (s->remote_conn_id); the
 *	caller holds a reference, which it keeps until hl_emu_comp_send()
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
 * responder context or no receive to take yet (hl_emu_resp_wait_recv()).
 */
u32 hl_emu_resp_match(struct hl_emu_send *s, struct hl_emu_qp *rqp, u32 port,
		      u64 src_addr)
{
	bool failed = false;
	u32 status, core_epoch;

	spin_lock(&rqp->lock);
	core_epoch = rqp->attr.epoch;
	status = hl_emu_resp_match_locked(s, rqp, port, src_addr, &failed);
	spin_unlock(&rqp->lock);

	if (failed)
		hl_emu_comp_report(rqp, 0, core_epoch, true, 0, status, 0, 0,
				   s->psn, 0);
	return status;
}

static bool hl_emu_resp_recv_ready(const struct hl_emu_send *s,
				   struct hl_emu_qp *rqp)
{
	return !list_empty_careful(&rqp->rq) || hl_emu_send_flushed(s);
}

/**
 * hl_emu_resp_wait_recv - sleep until the peer QP has a posted receive or
 * changes, the send is flushed, or @timeout passed.
 * @s: a send that holds the wire.
 * @rqp: the peer QP context; the caller holds a reference.
 * @timeout: jiffies at most.
 */
void hl_emu_resp_wait_recv(const struct hl_emu_send *s, struct hl_emu_qp *rqp,
			   long timeout)
{
	wait_event_timeout(rqp->wq, hl_emu_resp_recv_ready(s, rqp), timeout);
}

/**
 * hl_emu_resp_check_rkey - a WRITE's rkey, checked in the peer
 * connection's context for the peer QP the WRITE arrived on, before its
 * first byte lands; this device's failures back off (issue 32, nic_mr.h).
 * @x: a matched WRITE of bytes; receives its peer region (@x->rmr, a
 *	reference) and destination (@x->dst).
 * @rkey: the peer region's key.
 * @raddr: the destination's device VA in the peer's context.
 *
 * Return: SUCCESS, or REMOTE_ACCESS_ERR.
 */
u32 hl_emu_resp_check_rkey(struct hl_emu_nic_xfer *x, u32 rkey, u64 raddr)
{
	struct hl_device *hdev = x->q->emu->hdev;
	int rc;

	rc = hl_nic_mr_lookup_remote(x->rctx, hdev, x->rqp, rkey,
				     HL_NIC_ACCESS_REMOTE_WRITE, raddr, x->size,
				     &x->rmr, &x->dst);
	if (!rc)
		return HL_NIC_CQE_STATUS_SUCCESS;
	hl_dbg(hdev, NIC, "queue %u: WRITE rkey 0x%x, VA 0x%llx + %llu: %d\n",
	       x->q->id, rkey, raddr, x->size, rc);
	return HL_NIC_CQE_STATUS_REMOTE_ACCESS_ERR;
}

/**
 * hl_emu_recv_post - post a receive on a QP in RTR or RTS, below its
 * receive WQ size; a sender may take it from then on.
 * @wr: the receive, with @addr, @size, @wr_id and @queue_id set; it must
 *	stay in place until hl_emu_comp_recv().
 * @qp: the QP context; the caller holds a reference until
 *	hl_emu_comp_recv().
 *
 * Whatever it returns, the receive ends with hl_emu_comp_recv(); when
 * posted, it is first waited for (hl_emu_recv_wait()) until
 * hl_emu_recv_settle() says it is done.
 *
 * Return: SUCCESS (posted), FLUSHED (not in RTR or RTS) or WQ_FULL; on
 * failure the receive is DONE with that status.
 */
static u32 hl_emu_recv_post(struct hl_emu_wr *wr, struct hl_emu_qp *qp)
{
	u32 status = HL_NIC_CQE_STATUS_SUCCESS;

	wr->qp = qp;
	INIT_LIST_HEAD(&wr->node);
	wr->state = HL_EMU_WR_POSTED;
	wr->opcode = HL_NIC_CQE_OP_RECV;
	wr->imm_data = 0;
	wr->fail = false;

	spin_lock(&qp->lock);
	wr->cq = qp->attr.recv_cq;
	wr->core_epoch = qp->attr.epoch;
	if (!hl_nic_conn_takes_recvs(qp->attr.state)) {
		status = HL_NIC_CQE_STATUS_FLUSHED;
	} else if (qp->rq_posted >= qp->attr.rq_size) {
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
static bool hl_emu_recv_flushed(const struct hl_emu_wr *wr)
{
	return READ_ONCE(wr->qp->epoch) != wr->epoch;
}

/**
 * hl_emu_recv_wait - sleep until the receive is DONE, or @timeout passed.
 * @wr: a posted receive.
 * @timeout: jiffies at most.
 */
static void hl_emu_recv_wait(const struct hl_emu_wr *wr, long timeout)
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
static bool hl_emu_recv_settle(struct hl_emu_wr *wr, u32 why, bool fail)
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

/* Why a posted receive ends without a sender, or SUCCESS to keep waiting */
static u32 hl_emu_nic_recv_check(struct hl_emu_queue *q, struct hl_cs_job *job,
				 struct hl_emu_wr *wr, bool *stopped)
{
	u32 status = hl_emu_nic_job_check(q, job, stopped);

	if (status)
		return status;
	if (hl_emu_recv_flushed(wr))
		return HL_NIC_CQE_STATUS_FLUSHED;
	if (!hl_emu_link_up(q->emu->nic, wr->qp->port))
		return HL_NIC_CQE_STATUS_LINK_DOWN;
	return HL_NIC_CQE_STATUS_SUCCESS;
}

/* Wait until @wr is DONE; withdraws it when it can no longer be filled */
static void hl_emu_nic_recv_wait(struct hl_emu_queue *q, struct hl_cs_job *job,
				 struct hl_emu_wr *wr, bool *stopped)
{
	u32 why;

	do {
		hl_emu_recv_wait(wr, hl_emu_nic_slice(job));
		why = hl_emu_nic_recv_check(q, job, wr, stopped);
		/* ACTIVE: the sender completes it within a chunk */
	} while (!hl_emu_recv_settle(wr, why, !*stopped));
}

/**
 * hl_emu_nic_exec_recv - run an HL_PKT_NIC_RECV packet: post a receive and
 * wait for the message that lands in it.
 * @q: the queue.
 * @job: the job.
 * @pkt: the packet.
 *
 * Return: 0 when a message landed; -EINVAL for a malformed packet; else the
 * errno of the completion's status (-EFAULT when the buffer faulted,
 * -ETIMEDOUT, -ENODEV the device is stopping, -EIO the others).
 */
int hl_emu_nic_exec_recv(struct hl_emu_queue *q, struct hl_cs_job *job,
			 const struct hl_emu_pkt_nic *pkt)
{
	struct hl_emu_wr wr = {
		.addr = le64_to_cpu(pkt->addr),
		.size = le64_to_cpu(pkt->size),
		.wr_id = le64_to_cpu(pkt->wr_id),
		.queue_id = q->id,
	};
	struct hl_emu_qp *qp;
	bool stopped = false;
	u32 status;

	if (wr.size > HL_NIC_MAX_MSG_SIZE)
		return -EINVAL;
	qp = hl_emu_qp_get(q->emu->nic, hl_cs_job_ctx(job),
			   le32_to_cpu(pkt->conn_id));
	if (!qp)
		return -EINVAL;

	if (!hl_emu_recv_post(&wr, qp))
		hl_emu_nic_recv_wait(q, job, &wr, &stopped);
	status = hl_emu_comp_recv(&wr);

	if (status)
		hl_dbg(q->emu->hdev, NIC,
		       "queue %u: NIC receive on connection %u: status %u\n",
		       q->id, qp->id, status);
	hl_emu_qp_put(qp);
	return hl_emu_nic_errno(status, stopped);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs emu: the NIC's requester: HL_PKT_NIC_SEND, HL_PKT_NIC_WRITE
 * and HL_PKT_NIC_WRITE_IMM, run in the sender's queue worker: admission,
 * the turn on the wire, the copy into the peer's memory.
 *
 * A WRITE, top-down (hl_emu_nic_exec_write(), called by emu_queue.c):
 *   1. admission (hl_emu_send_begin()): the QP is in RTS and below its
 *      send WQ size; then the lkey, in this context (hl_nic_mr_lookup(),
 *      common/nic_mr.c), before anything goes on the wire;
 *   2. the turn (hl_emu_req_turn()): one message at a time per QP, which
 *      fixes its PSNs: ceil(size / mtu) packets (at least 1) from the QP's
 *      send PSN;
 *   3. matching (hl_emu_req_match()): the peer device across the link
 *      (hl_emu_link_peer_get(), emu_nic_fabric.c), the QP context there of
 *      connection remote_conn_id while the peer's owner has it
 *      (hl_emu_qp_get_remote(), emu_nic_qp.c; a whole ID, so only the
 *      owner that allocated it has it), and there the responder's rules
 *      (hl_emu_resp_match(), emu_nic_resp.c): the QP must name this port
 *      and connection (else the message fails at once, REMOTE_INVALID),
 *      expect this PSN; a WRITE takes no receive, a WRITE_IMM or a SEND the
 *      oldest posted one, which becomes ACTIVE (the sender's); then the
 *      rkey, in the peer connection's context, for the peer QP it arrived
 *      on (hl_emu_resp_check_rkey(), emu_nic_resp.c);
 *   4. the copy (hl_emu_req_copy()), step by step, each byte moved once:
 *      from this device's memory, through its MMU (the queue's TLB, this
 *      context's ASID), straight into the peer's, through the peer's MMU
 *      (the receiving context's ASID), run pair by run pair, inside both
 *      regions' access sections (hl_nic_mr_access_begin_pair(), so that a
 *      region deregistered meanwhile takes no byte after its DEREG_MR
 *      returned) and both devices' engine accesses at once
 *      (hl_device_hw_enter_pair(): the peer's unplug SRCU, then the two
 *      accesses in the order of the devices' indexes, habanalabs.h),
 *      unless the peer is unplugged or detached. In any other order two
 *      engines sending in opposite directions would deadlock against
 *      quiescers waiting on both devices;
 *   5. completion (hl_emu_comp_send(), emu_nic_comp.c): a failure moves
 *      the peer's QP and then this one to ERR, reported to their cores;
 *      then a WRITE_IMM's receive (status, bytes, PSN, the immediate
 *      value), then this WRITE's CQE, reported. The receiver's CQE comes
 *      from its own RECV packet (emu_nic_resp.c).
 * A SEND (hl_emu_nic_exec_send()) takes the same steps without keys; its
 * bytes land in the receive it took. A write of 0 bytes checks no key (as
 * IB verbs). The test-only two-copy step (nic_two_copies) is in
 * emu_nic_debug.c.
 *
 * Between steps and while waiting the requester checks the job's deadline,
 * the device's stop, both QPs' epochs (hl_emu_send_flushed(),
 * hl_emu_send_peer_flushed()) and the link. Every wait is a sleep of at
 * most a slice (hl_emu_nic_slice()) on a QP's wait queue: events wake it
 * at once, and the checks above bound it.
 *
 * References: the job's CS holds its context; the requester holds the
 * local QP context, the peer's struct hl_emu_nic (hence its hl_device),
 * the peer's QP context, the peer's context and a WRITE's regions while it
 * uses them.
 *
 * Locks: a QP context's lock, alone and never across a sleep, an engine
 * access or a call to the core; a WRITE's step holds its regions' access
 * sections around its engine accesses.
 */

#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "emu.h"
#include "emu_nic.h"

/**
 * hl_emu_send_begin - admit a send: the QP is in RTS and below its send
 * WQ size.
 * @s: the send's record, filled here.
 * @qp: the sending QP context; the caller holds a reference until
 *	hl_emu_comp_send().
 * @size: bytes of the message.
 * @wr_id: the user's tag.
 * @kind: a message, or a one-sided write (enum hl_emu_xfer_kind).
 * @imm_data: a WRITE_IMM's immediate value.
 *
 * Whatever it returns, the send ends with hl_emu_comp_send().
 *
 * Return: SUCCESS, FLUSHED (not in RTS) or WQ_FULL.
 */
static u32 hl_emu_send_begin(struct hl_emu_send *s, struct hl_emu_qp *qp,
			     u64 size, u64 wr_id, enum hl_emu_xfer_kind kind,
			     u32 imm_data)
{
	u32 status = HL_NIC_CQE_STATUS_SUCCESS;

	memset(s, 0, sizeof(*s));
	s->qp = qp;
	s->size = size;
	s->wr_id = wr_id;
	s->kind = kind;
	s->imm_data = imm_data;

	spin_lock(&qp->lock);
	s->cq = qp->attr.send_cq;
	s->core_epoch = qp->attr.epoch;
	if (!hl_nic_conn_takes_sends(qp->attr.state)) {
		status = HL_NIC_CQE_STATUS_FLUSHED;
	} else if (qp->sq_posted >= qp->attr.sq_size) {
		status = HL_NIC_CQE_STATUS_WQ_FULL;
	} else {
		qp->sq_posted++;
		s->admitted = true;
		s->epoch = qp->epoch;
		s->remote_conn_id = qp->attr.remote_conn_id;
		s->mtu = qp->attr.mtu;
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
static u32 hl_emu_send_flush_status(const struct hl_emu_send *s)
{
	struct hl_emu_qp *qp = s->qp;
	u32 why;

	/* Programmed whole (qp->attr) under the lock */
	spin_lock(&qp->lock);
	why = qp->attr.flush_status;
	spin_unlock(&qp->lock);
	return why;
}

/**
 * hl_emu_send_gone_status - how a send ends whose link or peer engine is
 * gone.
 * @s: an admitted send.
 *
 * A hard reset or a close of the peer's context flushes this connection
 * (its flush status REMOTE_ERR; an unbind's, LINK_DOWN) before the peer's
 * engines stop and its links go: a send that finds them gone after that
 * flush ends as the flush says, not LINK_DOWN.
 *
 * Return: the flush status when the send is flushed, else LINK_DOWN.
 */
static u32 hl_emu_send_gone_status(const struct hl_emu_send *s)
{
	return hl_emu_send_flushed(s) ? hl_emu_send_flush_status(s) :
					HL_NIC_CQE_STATUS_LINK_DOWN;
}

/**
 * hl_emu_send_wait - sleep until the sending QP is flushed or changes, or
 * @timeout passed (a wait for the peer connection to appear).
 * @s: an admitted send.
 * @timeout: jiffies at most.
 */
static void hl_emu_send_wait(const struct hl_emu_send *s, long timeout)
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
static u32 hl_emu_send_take_turn(struct hl_emu_send *s)
{
	struct hl_emu_qp *qp = s->qp;
	u32 status = HL_EMU_WR_AGAIN;

	spin_lock(&qp->lock);
	if (qp->epoch != s->epoch) {
		status = qp->attr.flush_status;
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
static void hl_emu_send_wait_turn(const struct hl_emu_send *s, long timeout)
{
	wait_event_timeout(s->qp->wq, hl_emu_send_turn_ready(s), timeout);
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

/* 2. The wire: wait until no other message of the connection is on it */
static u32 hl_emu_req_turn(struct hl_emu_nic_xfer *x)
{
	u32 status;

	for (;;) {
		status = hl_emu_send_take_turn(&x->send);
		if (status != HL_EMU_WR_AGAIN)
			return status;

		status = hl_emu_nic_job_check(x->q, x->job, &x->stopped);
		if (status)
			return status;
		hl_emu_send_wait_turn(&x->send, hl_emu_nic_slice(x->job));
	}
}

/* 3. Matching: on success @x holds the peer, its connection and receive */
static u32 hl_emu_req_match(struct hl_emu_nic_xfer *x)
{
	struct hl_emu_send *s = &x->send;
	u32 port = x->qp->port;
	struct hl_emu_qp *rqp;
	struct hl_emu_nic *peer;
	struct hl_ctx *rctx;
	u32 status, peer_port;

	for (;;) {
		status = hl_emu_nic_job_check(x->q, x->job, &x->stopped);
		if (status)
			return status;
		if (hl_emu_send_flushed(s))
			return hl_emu_send_flush_status(s);

		peer = hl_emu_link_peer_get(x->nic, port, &peer_port);
		if (!peer)
			return HL_NIC_CQE_STATUS_LINK_DOWN;

		rqp = hl_emu_qp_get_remote(peer, s->remote_conn_id, &rctx);
		if (!rqp) {
			hl_emu_nic_put(peer);
			/* Not created yet: wait, as for a receive not posted */
			hl_emu_send_wait(s, hl_emu_nic_slice(x->job));
			continue;
		}

		status = hl_emu_resp_match(s, rqp, peer_port,
					   hl_emu_nic_addr(x->nic->id, port));
		if (status == HL_NIC_CQE_STATUS_SUCCESS) {
			x->peer = peer;
			x->rctx = rctx;
			x->rqp = rqp;
			return status;
		}
		if (status == HL_EMU_WR_AGAIN)
			hl_emu_resp_wait_recv(s, rqp, hl_emu_nic_slice(x->job));
		hl_emu_qp_put(rqp);
		hl_ctx_put(rctx);
		hl_emu_nic_put(peer);
		if (status != HL_EMU_WR_AGAIN)
			return status;
	}
}

/* A fault of the peer's buffer at @va: recorded in the receiving context */
static void hl_emu_req_remote_fault(struct hl_emu_nic_xfer *x, u64 va)
{
	hl_dbg(x->peer->hdev, MMU,
	       "NIC: MMU fault, write at VA 0x%llx of connection %u\n",
	       va, x->rqp->id);
	/* A WRITE has no receive at the peer: the sender's queue */
	hl_ctx_record_fault(x->rctx, va,
			    x->send.wr ? x->send.wr->queue_id : x->q->id, true);
}

/* A fault of this side's buffer at @va: recorded in this context */
static void hl_emu_req_local_fault(struct hl_emu_nic_xfer *x, u64 va)
{
	hl_dbg(x->q->emu->hdev, MMU,
	       "queue %u: MMU fault, NIC read at VA 0x%llx\n", x->q->id, va);
	hl_ctx_record_fault(hl_cs_job_ctx(x->job), va, x->q->id, false);
}

/*
 * The regions of a WRITE's step (a WRITE of bytes has both, a SEND none),
 * held for read in the order of their devices
 * (hl_nic_mr_access_begin_pair()): SUCCESS (both held), LOCAL_PROT_ERR
 * (none held: the local region's refusal wins) or REMOTE_ACCESS_ERR (only
 * the local region held).
 */
static u32 hl_emu_req_mrs_begin(struct hl_emu_nic_xfer *x)
{
	if (!x->lmr || !x->rmr) {
		/* Never one without the other; refuse rather than copy */
		if (WARN_ON_ONCE(x->lmr || x->rmr))
			return HL_NIC_CQE_STATUS_LOCAL_PROT_ERR;
		return HL_NIC_CQE_STATUS_SUCCESS;
	}
	switch (hl_nic_mr_access_begin_pair(x->lmr, x->rmr)) {
	case 0:
		return HL_NIC_CQE_STATUS_SUCCESS;
	case -EREMOTEIO:
		return HL_NIC_CQE_STATUS_REMOTE_ACCESS_ERR;
	default:
		return HL_NIC_CQE_STATUS_LOCAL_PROT_ERR;
	}
}

/* End what hl_emu_req_mrs_begin() began; @held: what it returned */
static void hl_emu_req_mrs_end(struct hl_emu_nic_xfer *x, u32 held)
{
	if (!x->lmr || held == HL_NIC_CQE_STATUS_LOCAL_PROT_ERR)
		return;
	hl_nic_mr_access_end_pair(x->lmr, held == HL_NIC_CQE_STATUS_SUCCESS ?
					  x->rmr : NULL);
}

/*
 * A step of the copy, each byte moved once: @len bytes from this device's
 * memory at @src (this context's ASID, through the queue's TLB) straight
 * into the peer's at @dst (the receiving context's ASID, through its MMU
 * without a TLB), run pair by run pair (hl_emu_mmu_span() on both sides),
 * inside both devices' engine accesses at once (hl_device_hw_enter_pair(),
 * which takes them in the lock order of habanalabs.h) and, for a WRITE,
 * both regions' access sections. *@done bytes landed. SUCCESS,
 * LOCAL_FAULT at @src + *@done, REMOTE_FAULT at @dst + *@done, or why the
 * peer took nothing (REMOTE_ACCESS_ERR, REMOTE_ERR, LINK_DOWN; LOCAL_PROT_ERR
 * for this side's region), unless the step's first byte faults here: a
 * step reads before it sends, so that one is LOCAL_FAULT.
 */
static u32 hl_emu_req_step(struct hl_emu_nic_xfer *x, u64 src, u64 dst,
			   u64 len, u64 *done)
{
	struct hl_emu_queue *q = x->q;
	struct hl_device *hdev = q->emu->hdev, *peer_hdev = x->peer->hdev;
	u32 asid = hl_cs_job_asid(x->job), held, status;
	struct hl_emu_span s, d;
	bool entered;
	int idx;
	u64 n;

	*done = 0;
	held = hl_emu_req_mrs_begin(x);
	if (held == HL_NIC_CQE_STATUS_LOCAL_PROT_ERR)
		return held;
	entered = hl_device_hw_enter_pair(hdev, peer_hdev, &idx);
	status = held;
	/*
	 * Checked inside the access: a peer context torn down since the
	 * last check flushed its connection before its teardown drained the
	 * engines, so its ASID is not used after it may have changed hands.
	 */
	if (!status && !entered)
		status = hl_emu_send_gone_status(&x->send);
	else if (!status && hl_emu_send_peer_flushed(&x->send))
		status = HL_NIC_CQE_STATUS_REMOTE_ERR;
	else if (!status && READ_ONCE(x->peer->detached))
		status = hl_emu_send_gone_status(&x->send);
	if (status) {
		if (hl_emu_mmu_span(q->emu, q, asid, src, 1, &s))
			status = HL_NIC_CQE_STATUS_LOCAL_FAULT;
		goto out;
	}

	hl_device_hw_access_assert(hdev);
	hl_device_hw_access_assert(peer_hdev);
	for (; *done < len; *done += n) {
		if (hl_emu_mmu_span(q->emu, q, asid, src + *done, len - *done,
				    &s)) {
			status = HL_NIC_CQE_STATUS_LOCAL_FAULT;
			break;
		}
		if (hl_emu_mmu_span(to_emu(peer_hdev), NULL,
				    hl_ctx_asid(x->rctx), dst + *done, s.len,
				    &d)) {
			status = HL_NIC_CQE_STATUS_REMOTE_FAULT;
			break;
		}
		n = d.len;
		/*
		 * Host pages mapped by both contexts: through q->buf, as if
		 * through a temporary buffer within the run pair
		 */
		if (hl_emu_span_overlap(&s, &d, n)) {
			n = min_t(u64, n, HL_EMU_QUEUE_BUF_SIZE);
			hl_emu_span_read(&s, q->buf, n);
			hl_emu_span_write(&d, q->buf, n);
		} else {
			hl_emu_span_copy(&d, &s, n);
		}
	}
out:
	hl_device_hw_exit_pair(hdev, peer_hdev, idx, entered);
	hl_emu_req_mrs_end(x, held);
	return status;
}

/*
 * 4. The copy, in steps of at most HL_EMU_NIC_STEP bytes, the job, both
 * QPs and the link checked between steps (hl_emu_req_step()). Bytes before
 * a local fault are still delivered, as the packets before it would be.
 */
static u32 hl_emu_req_copy(struct hl_emu_nic_xfer *x)
{
	struct hl_emu_queue *q = x->q;
	struct hl_cs_job *job = x->job;
	const struct hl_emu_wr *wr = x->send.wr;
	bool send = x->send.kind == HL_EMU_XFER_SEND;
	u64 src = x->addr, dst = send ? wr->addr : x->dst, left = x->size;
	u64 len, put;
	u32 status;

	/* A WRITE_IMM's receive takes no byte: the region does */
	if (send && x->size > wr->size)
		return HL_NIC_CQE_STATUS_LEN_ERR;

	while (left) {
		status = hl_emu_nic_job_check(q, job, &x->stopped);
		if (status)
			return status;
		if (hl_emu_send_flushed(&x->send))
			return hl_emu_send_flush_status(&x->send);
		if (hl_emu_send_peer_flushed(&x->send))
			return HL_NIC_CQE_STATUS_REMOTE_ERR;
		if (!hl_emu_link_up(x->nic, x->qp->port))
			return hl_emu_send_gone_status(&x->send);

		len = min_t(u64, left, HL_EMU_NIC_STEP);
		if (hl_nic_two_copies())
			status = hl_emu_nic_step_bounce(x, src, dst, len, &put);
		else
			status = hl_emu_req_step(x, src, dst, len, &put);
		x->moved += put;
		if (status == HL_NIC_CQE_STATUS_LOCAL_FAULT)
			hl_emu_req_local_fault(x, src + put);
		else if (status == HL_NIC_CQE_STATUS_REMOTE_FAULT)
			hl_emu_req_remote_fault(x, dst + put);
		if (status)
			return status;

		src += put;
		dst += put;
		left -= put;
	}
	return HL_NIC_CQE_STATUS_SUCCESS;
}

/* 1. A WRITE's lkey, in this context, before anything goes on the wire */
static u32 hl_emu_req_check_lkey(struct hl_emu_nic_xfer *x, u32 lkey,
				 u64 laddr)
{
	int rc;

	rc = hl_nic_mr_lookup(hl_cs_job_ctx(x->job), lkey, laddr, x->size,
			      &x->lmr, &x->addr);
	if (!rc)
		return HL_NIC_CQE_STATUS_SUCCESS;
	hl_dbg(x->q->emu->hdev, NIC,
	       "queue %u: WRITE lkey 0x%x, VA 0x%llx + %llu: %d\n",
	       x->q->id, lkey, laddr, x->size, rc);
	return HL_NIC_CQE_STATUS_LOCAL_PROT_ERR;
}

/*
 * 5. Completion of both sides, reported to their cores
 * (hl_emu_comp_send()); then the references of @x go. Returns the packet's
 * errno; @what names it in the debug log.
 */
static int hl_emu_req_end(struct hl_emu_nic_xfer *x, u32 status,
			  const char *what)
{
	hl_emu_comp_send(&x->send, status, x->moved);

	if (x->rmr)
		hl_nic_mr_put(x->rmr);
	if (x->lmr)
		hl_nic_mr_put(x->lmr);
	if (x->rqp) {
		hl_emu_qp_put(x->rqp);
		hl_ctx_put(x->rctx);
		hl_emu_nic_put(x->peer);
	}
	if (status)
		hl_dbg(x->q->emu->hdev, NIC,
		       "queue %u: NIC %s on connection %u: status %u\n",
		       x->q->id, what, x->qp->id, status);
	hl_emu_qp_put(x->qp);
	return hl_emu_nic_errno(status, x->stopped);
}

/**
 * hl_emu_nic_exec_send - run an HL_PKT_NIC_SEND packet.
 * @q: the queue.
 * @job: the job.
 * @pkt: the packet.
 *
 * Return: 0 when the message landed; -EINVAL for a malformed packet (size
 * above HL_NIC_MAX_MSG_SIZE, unknown connection); else the errno of the
 * completion's status (-EFAULT local fault, -ETIMEDOUT, -ENODEV the device
 * is stopping, -EIO the others).
 */
int hl_emu_nic_exec_send(struct hl_emu_queue *q, struct hl_cs_job *job,
			 const struct hl_emu_pkt_nic *pkt)
{
	struct hl_emu_nic_xfer x = {
		.q = q,
		.job = job,
		.nic = q->emu->nic,
		.addr = le64_to_cpu(pkt->addr),
		.size = le64_to_cpu(pkt->size),
	};
	u32 status;

	if (x.size > HL_NIC_MAX_MSG_SIZE)
		return -EINVAL;
	x.qp = hl_emu_qp_get(x.nic, hl_cs_job_ctx(job),
			     le32_to_cpu(pkt->conn_id));
	if (!x.qp)
		return -EINVAL;

	status = hl_emu_send_begin(&x.send, x.qp, x.size,
				   le64_to_cpu(pkt->wr_id), HL_EMU_XFER_SEND, 0);
	if (!status)
		status = hl_emu_req_turn(&x);
	if (!status)
		status = hl_emu_req_match(&x);
	if (!status)
		status = hl_emu_req_copy(&x);
	return hl_emu_req_end(&x, status, "send");
}

/**
 * hl_emu_nic_exec_write - run an HL_PKT_NIC_WRITE or HL_PKT_NIC_WRITE_IMM
 * packet: a one-sided write from a region of this context into a region of
 * the peer connection's context.
 * @q: the queue.
 * @job: the job.
 * @pkt: the packet.
 * @imm: WRITE_IMM: the peer's oldest posted receive completes with the
 *	immediate value.
 *
 * The steps of a send (admission, the wire, matching, copy, completion),
 * with the keys checked before any byte moves: the lkey against this
 * context before anything goes on the wire (LOCAL_PROT_ERR), the rkey
 * against the peer connection's context and the peer QP the write arrived
 * on once matched, before the first byte lands (REMOTE_ACCESS_ERR; also
 * while this device backs off after failed rkey checks, nic_mr.h). Every
 * step of the copy runs inside the regions' access sections
 * (hl_nic_mr_access_begin_pair()), so that a region deregistered meanwhile
 * takes no byte after its DEREG_MR returned. A write of 0 bytes checks no
 * key (as IB verbs).
 *
 * Return: 0 when the data landed; -EINVAL for a malformed packet (size
 * above HL_NIC_MAX_MSG_SIZE, unknown connection, non-zero pad, or a WRITE
 * with an immediate value); else the errno of the completion's status
 * (-ETIMEDOUT, -ENODEV the device is stopping, -EIO the others).
 */
int hl_emu_nic_exec_write(struct hl_emu_queue *q, struct hl_cs_job *job,
			  const struct hl_emu_pkt_nic_write *pkt, bool imm)
{
	struct hl_emu_nic_xfer x = {
		.q = q,
		.job = job,
		.nic = q->emu->nic,
		.size = le64_to_cpu(pkt->size),
	};
	u32 status;

	if (x.size > HL_NIC_MAX_MSG_SIZE || pkt->pad ||
	    (!imm && pkt->imm_data))
		return -EINVAL;
	x.qp = hl_emu_qp_get(x.nic, hl_cs_job_ctx(job),
			     le32_to_cpu(pkt->conn_id));
	if (!x.qp)
		return -EINVAL;

	status = hl_emu_send_begin(&x.send, x.qp, x.size,
				   le64_to_cpu(pkt->wr_id),
				   imm ? HL_EMU_XFER_WRITE_IMM :
					 HL_EMU_XFER_WRITE,
				   le32_to_cpu(pkt->imm_data));
	if (!status && x.size)
		status = hl_emu_req_check_lkey(&x, le32_to_cpu(pkt->lkey),
					       le64_to_cpu(pkt->local_addr));
	if (!status)
		status = hl_emu_req_turn(&x);
	if (!status)
		status = hl_emu_req_match(&x);
	if (!status && x.size)
		status = hl_emu_resp_check_rkey(&x, le32_to_cpu(pkt->rkey),
						le64_to_cpu(pkt->remote_addr));
	if (!status)
		status = hl_emu_req_copy(&x);
	return hl_emu_req_end(&x, status, "write");
}

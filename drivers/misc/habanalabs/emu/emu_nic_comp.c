// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs emu: the NIC's completer: the end of a message on both sides
 * and the CQ entries, reported to the core through hl_nic_report() (the
 * one entry point for what the wire finds: a CQE for the CQ the work
 * reports to, and the failures that move a connection to ERR).
 *
 * A WRITE ends here (hl_emu_comp_send(), from its requester,
 * emu_nic_req.c): a failure moves the peer QP to ERR first (reported to
 * the peer's core with the receiver's view of the status,
 * hl_emu_recv_status()), then a WRITE_IMM's receive is filled (status,
 * bytes, PSN, the immediate value) and handed back to its poster, then
 * the sending QP gives up the wire (its send PSN moves past the message
 * on success, a failure moves it to ERR) and the WRITE's CQE is
 * reported. A receive's CQE is reported by the RECV that posted it
 * (hl_emu_comp_recv(), emu_nic_resp.c).
 *
 * Locks: a QP context's lock, one at a time; hl_nic_report() is called
 * with none held.
 */

#include <linux/spinlock.h>
#include <linux/wait.h>

#include "emu.h"
#include "emu_nic.h"

/* Tell the core of @qp's device: a CQE for @cq (0: none), and a failure */
void hl_emu_comp_report(struct hl_emu_qp *qp, u32 cq, u32 core_epoch,
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
 * hl_emu_comp_send - complete a send: the peer's side (its QP fails
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
void hl_emu_comp_send(struct hl_emu_send *s, u32 status, u64 byte_len)
{
	struct hl_emu_qp *qp = s->qp;
	struct hl_emu_qp *rqp = s->rqp;
	struct hl_emu_wr *wr = s->wr;
	bool failed = false;
	u32 core_epoch;

	if (rqp && status) {
		/* The responder's connection goes to ERR too, first */
		spin_lock(&rqp->lock);
		core_epoch = rqp->attr.epoch;
		failed = hl_emu_qp_fail_locked(rqp, s->r_epoch,
					       HL_NIC_CQE_STATUS_FLUSHED);
		spin_unlock(&rqp->lock);
		if (failed)
			hl_emu_comp_report(rqp, 0, core_epoch, true, 0,
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

	hl_emu_comp_report(qp, s->cq, s->core_epoch, failed,
			   s->kind == HL_EMU_XFER_SEND ? HL_NIC_CQE_OP_SEND :
							 HL_NIC_CQE_OP_RDMA_WRITE,
			   status, s->wr_id, byte_len, s->psn, 0);
}

/**
 * hl_emu_comp_recv - report a receive's CQE (and, when its poster gave
 * up on it with @fail, the failure of its connection).
 * @wr: a receive that failed to post, or that hl_emu_recv_settle() found
 *	done.
 *
 * Return: the receive's status.
 */
u32 hl_emu_comp_recv(struct hl_emu_wr *wr)
{
	hl_emu_comp_report(wr->qp, wr->cq, wr->core_epoch, wr->fail,
			   wr->opcode, wr->status, wr->wr_id, wr->byte_len,
			   wr->psn, wr->imm_data);
	return wr->status;
}

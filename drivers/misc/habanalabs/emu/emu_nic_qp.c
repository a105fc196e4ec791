// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs emu: the NIC's QP contexts, the wire's side of a connection,
 * and the checks the engine makes of a job while it waits.
 *
 * The core programs a QP context for each connection (asic_funcs
 * nic_qp_create, nic_qp_program, nic_qp_query, nic_qp_teardown; struct
 * hl_nic_qp_attr): its state, epoch, peer, sizes, CQs and first PSNs.
 * What the wire does with it is in the files by role, as a NIC does it in
 * silicon: the requester (emu_nic_req.c: admission, the turn on the wire,
 * the copy), the responder (emu_nic_resp.c: matching a message with the
 * oldest receive posted, the rkey, RECV) and the completer
 * (emu_nic_comp.c: the CQ entries and the failures, which go to the core
 * through hl_nic_report() only). A WRITE finds its own QP context here
 * (hl_emu_qp_get()) when its packet runs, and the peer's
 * (hl_emu_qp_get_remote()) when it matches.
 *
 * Epochs: @epoch of a QP context is the wire's. Work records it when it is
 * taken; a new epoch flushes the work of older ones. It moves on when the
 * core programs a new epoch of its own (a move to ERR or RESET, or
 * destruction) and when the wire fails the QP itself (a PSN mismatch, a
 * failed message: hl_emu_qp_fail_locked()); then the wire reports the
 * failure, with the core's epoch the work ran in, so that the core moves
 * the connection to ERR unless it moved on meanwhile.
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

/* Longest sleep of the NIC engine between checks */
#define HL_EMU_NIC_WAIT_SLICE	msecs_to_jiffies(20)

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
	qp->attr.state = HL_NIC_CONN_STATE_RESET;
	qp->attr.flush_status = HL_NIC_CQE_STATUS_FLUSHED;
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
	if (attr->conn->epoch != qp->attr.epoch)
		/* Read without the lock by the engine, between steps */
		WRITE_ONCE(qp->epoch, qp->epoch + 1);
	qp->attr = *attr->conn;
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
	qp->attr.destroyed = true;
	wake_up_all(&qp->wq);
	spin_unlock(&qp->lock);
	hl_emu_qp_put(qp);
}

/*
 * Move @qp (its lock held) to ERR after a failure of work of wire epoch
 * @epoch; a QP context that moved on since is left as it is. Its work in
 * flight ends with @why. Returns whether it moved.
 */
bool hl_emu_qp_fail_locked(struct hl_emu_qp *qp, u32 epoch, u32 why)
{
	lockdep_assert_held(&qp->lock);

	if (qp->epoch != epoch)
		return false;
	qp->attr.state = HL_NIC_CONN_STATE_ERR;
	qp->attr.flush_status = why;
	WRITE_ONCE(qp->epoch, qp->epoch + 1);
	wake_up_all(&qp->wq);
	return true;
}

/* ------------------------------------------------------------------------
 * The engine's checks of a job, shared by the requester and the responder
 */

long hl_emu_nic_slice(struct hl_cs_job *job)
{
	long left = (long)(hl_cs_job_deadline(job) - jiffies);

	return clamp_t(long, left, 1, HL_EMU_NIC_WAIT_SLICE);
}

/* The job's checks: SUCCESS, TIMEOUT, or FLUSHED with *@stopped set */
u32 hl_emu_nic_job_check(struct hl_emu_queue *q, struct hl_cs_job *job,
			 bool *stopped)
{
	if (READ_ONCE(q->emu->stopped)) {
		*stopped = true;
		return HL_NIC_CQE_STATUS_FLUSHED;
	}
	switch (hl_cs_job_check(job)) {
	case -ECANCELED:
		/* The context is torn down: its connections are flushed */
		return HL_NIC_CQE_STATUS_FLUSHED;
	case -ETIMEDOUT:
		return HL_NIC_CQE_STATUS_TIMEOUT;
	}
	cond_resched();
	return HL_NIC_CQE_STATUS_SUCCESS;
}

int hl_emu_nic_errno(u32 status, bool stopped)
{
	if (stopped)
		return -ENODEV;
	switch (status) {
	case HL_NIC_CQE_STATUS_SUCCESS:
		return 0;
	case HL_NIC_CQE_STATUS_LOCAL_FAULT:
		return -EFAULT;
	case HL_NIC_CQE_STATUS_TIMEOUT:
		return -ETIMEDOUT;
	default:
		return -EIO;
	}
}

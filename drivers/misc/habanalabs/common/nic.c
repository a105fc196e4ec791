// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: NIC connections and completion queues (HL_IOCTL_NIC).
 *
 * The core owns the objects user space configures: connections, with the
 * RDMA QP state machine and their requester/responder contexts, and CQs,
 * bounded rings that CQ_POLL/CQ_WAIT copy to user space. The ASIC backend
 * owns the ports and the fabric (it validates remote addresses through
 * asic_funcs->nic_check_remote and reports ports through nic_port_info)
 * and the wire: a QP context per connection, which the core creates,
 * programs on every move of the state machine and tears down
 * (asic_funcs->nic_qp_*), and which runs the HL_PKT_NIC_* packets of the
 * backend's engine queues. What the wire finds comes back through
 * hl_nic_report(): a CQE, and the errors that move a connection to ERR
 * (nic.h, "Core and backend").
 *
 * Ownership: HL_IOCTL_NIC is served only to the thread group that opened
 * the compute node. A context's connection IDs carry its generation
 * (hl_nic_gen_next()), so that no later owner of the device allocates an
 * ID a peer may still name. When the context goes (close, or before a hard
 * reset or unbind waits for the ioctls: hl_nic_ctx_kill()) the fabric
 * stops reaching its connections, its CQ waiters leave with -ENODEV, and
 * the peers' connections that name its connections move to ERR. Closing
 * the compute node then destroys its connections (their work flushed) and
 * CQs; a command submission still running finds its connections gone or
 * flushed and fails.
 *
 * Locks: hl_nic_ctx.lock serialises configuration; hl_device.nic_lock
 * guards which context the fabric reaches; hl_nic_conn.lock and
 * hl_nic_cq.lock are spinlocks taken for short updates, never across a
 * sleep or an engine access. Their order is in the driver's lock order
 * (habanalabs.h, above struct hl_device).
 */

#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/once.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "habanalabs.h"
#include "context.h"
#include "device.h"
#include "fault.h"
#include "ioctl.h"
#include "nic.h"
#include "nic_mr.h"

/* CQ_WAIT re-checks the device between sleeps of at most this long */
#define HL_NIC_WAIT_SLICE	(HZ / 10)

/* Generations: the bits of a connection ID above its slot */
#define HL_NIC_GEN_MASK		(U32_MAX >> HL_NIC_CONN_ID_SLOT_BITS)

/*
 * Context generations, driver-wide: one step per context from a random
 * start (so that a reload of the driver does not give the generations of
 * the contexts before it again). A generation comes back only after
 * HL_NIC_GEN_MASK more contexts.
 */
static atomic_t hl_nic_gen_count = ATOMIC_INIT(0);
static u32 hl_nic_gen_seed;

static u32 hl_nic_gen_next(void)
{
	u32 gen;

	get_random_once(&hl_nic_gen_seed, sizeof(hl_nic_gen_seed));
	do {
		gen = atomic_inc_return(&hl_nic_gen_count);
		gen = (gen + hl_nic_gen_seed) & HL_NIC_GEN_MASK;
	} while (!gen);
	return gen;
}

/* Bytes of struct hl_nic_in's union that each op reads; the rest must be 0 */
static const u32 hl_nic_in_size[] = {
	[HL_NIC_OP_ALLOC_CONN] = sizeof(struct hl_nic_alloc_conn_in),
	[HL_NIC_OP_SET_REQ_CONN_CTX] = sizeof(struct hl_nic_req_conn_ctx_in),
	[HL_NIC_OP_SET_RES_CONN_CTX] = sizeof(struct hl_nic_res_conn_ctx_in),
	[HL_NIC_OP_DESTROY_CONN] = sizeof(struct hl_nic_destroy_conn_in),
	[HL_NIC_OP_CQ_CREATE] = sizeof(struct hl_nic_cq_create_in),
	[HL_NIC_OP_CQ_DESTROY] = sizeof(struct hl_nic_cq_destroy_in),
	[HL_NIC_OP_CQ_WAIT] = sizeof(struct hl_nic_cq_poll_wait_in),
	[HL_NIC_OP_CQ_POLL] = sizeof(struct hl_nic_cq_poll_wait_in),
	[HL_NIC_OP_CQ_UPDATE_CONSUMED_CQES] =
		sizeof(struct hl_nic_cq_update_consumed_cqes_in),
	[HL_NIC_OP_MODIFY_CONN] = sizeof(struct hl_nic_modify_conn_in),
	[HL_NIC_OP_QUERY_CONN] = sizeof(struct hl_nic_query_conn_in),
	[HL_NIC_OP_REG_MR] = sizeof(struct hl_nic_reg_mr_in),
	[HL_NIC_OP_DEREG_MR] = sizeof(struct hl_nic_dereg_mr_in),
};

/* ------------------------------------------------------------------------
 * Completion queues
 */

static void hl_nic_cq_release(struct kref *ref)
{
	struct hl_nic_cq *cq = container_of(ref, struct hl_nic_cq, refcount);

	kvfree(cq->entries);
	kfree(cq);
}

/* Take a reference on @cq (or NULL); returns @cq */
static struct hl_nic_cq *hl_nic_cq_get(struct hl_nic_cq *cq)
{
	if (cq)
		kref_get(&cq->refcount);
	return cq;
}

/* Drop a reference on @cq (or NULL); process context: the last frees it */
static void hl_nic_cq_put(struct hl_nic_cq *cq)
{
	if (cq)
		kref_put(&cq->refcount, hl_nic_cq_release);
}

/*
 * Add @cqe to @cq (the caller holds a reference) and wake its waiters. A
 * destroyed CQ drops the entry; a full one drops it and overflows.
 */
static void hl_nic_cq_push(struct hl_nic_cq *cq, const struct hl_nic_cqe *cqe)
{
	spin_lock(&cq->lock);
	if (!cq->destroyed) {
		if (cq->pi - cq->ci < cq->num_entries) {
			cq->entries[cq->pi & (cq->num_entries - 1)] = *cqe;
			cq->pi++;
		} else {
			cq->overflow = true;
		}
	}
	spin_unlock(&cq->lock);
	wake_up_all(&cq->wq);
}

static void hl_nic_cq_kill(struct hl_nic_cq *cq)
{
	spin_lock(&cq->lock);
	cq->destroyed = true;
	spin_unlock(&cq->lock);
	wake_up_all(&cq->wq);
}

/* The CQ @handle of @nic with a reference, or NULL */
static struct hl_nic_cq *hl_nic_cq_lookup(struct hl_nic_ctx *nic, u32 handle)
{
	struct hl_nic_cq *cq;

	xa_lock(&nic->cqs);
	cq = hl_nic_cq_get(xa_load(&nic->cqs, handle));
	xa_unlock(&nic->cqs);
	return cq;
}

/* ------------------------------------------------------------------------
 * Connections
 */

static void hl_nic_conn_release(struct kref *ref)
{
	struct hl_nic_conn *conn = container_of(ref, struct hl_nic_conn,
						refcount);

	/* Destruction dropped the CQs and tore the QP context down */
	WARN_ON_ONCE(conn->send_cq || conn->recv_cq || conn->qp);
	kfree(conn);
}

/**
 * hl_nic_conn_put - drop a reference on a connection.
 * @conn: the connection.
 */
void hl_nic_conn_put(struct hl_nic_conn *conn)
{
	kref_put(&conn->refcount, hl_nic_conn_release);
}

/**
 * hl_nic_conn_get - a connection of a context by its whole ID (for the
 * memory regions bound to it, nic_mr.c).
 * @ctx: the context.
 * @id: the ID ALLOC_CONN returned.
 *
 * Return: the connection with a reference (hl_nic_conn_put()), or NULL
 * when @ctx has none of that ID (never had, destroyed, closed).
 */
struct hl_nic_conn *hl_nic_conn_get(struct hl_ctx *ctx, u32 id)
{
	struct hl_nic_ctx *nic = &ctx->nic;
	struct hl_nic_conn *conn;

	mutex_lock(&nic->lock);
	conn = xa_load(&nic->conns, id);
	if (conn)
		kref_get(&conn->refcount);
	mutex_unlock(&nic->lock);
	return conn;
}

/**
 * hl_nic_conn_is_qp - whether a backend QP context is a live connection's.
 * @conn: the connection (a reference held).
 * @qp: the backend's QP context a message came on.
 *
 * Return: true when @qp is @conn's QP context and @conn is not destroyed
 * (destruction takes the QP context away under the lock).
 */
bool hl_nic_conn_is_qp(struct hl_nic_conn *conn, const void *qp)
{
	bool is;

	spin_lock(&conn->lock);
	is = qp && conn->qp == qp;
	spin_unlock(&conn->lock);
	return is;
}

/**
 * hl_nic_ctx_get_reached - whether the fabric reaches a context's
 * connections on a device: the context owns it (for the backend, before a
 * message reaches a peer's QP context).
 * @hdev: the device; the caller holds a reference on it.
 * @ctx: the context the QP context belongs to (compared only).
 *
 * Return: true, with a reference on @ctx for the caller; false when @ctx
 * does not own @hdev (any more).
 */
bool hl_nic_ctx_get_reached(struct hl_device *hdev, struct hl_ctx *ctx)
{
	bool reached;

	spin_lock(&hdev->nic_lock);
	reached = ctx && hdev->nic_ctx == ctx;
	/* nic_ctx is cleared before its file lets go of it */
	if (reached)
		hl_ctx_get(ctx);
	spin_unlock(&hdev->nic_lock);
	return reached;
}

/**
 * hl_nic_conn_next_state - the connection (QP) state machine.
 * @from: the connection's state.
 * @ev: what happens to it.
 *
 * RESET -MODIFY_INIT-> INIT -SET_RES-> RTR -SET_REQ-> RTS; MODIFY_RESET
 * and MODIFY_ERR from any state, and a failure moves any state to ERR.
 * Nothing else is legal.
 *
 * Return: the state @ev moves the connection to, or -EINVAL.
 */
int hl_nic_conn_next_state(enum hl_nic_conn_state from,
			   enum hl_nic_conn_event ev)
{
	switch (ev) {
	case HL_NIC_CONN_EV_MODIFY_INIT:
		return from == HL_NIC_CONN_STATE_RESET ?
		       HL_NIC_CONN_STATE_INIT : -EINVAL;
	case HL_NIC_CONN_EV_SET_RES:
		return from == HL_NIC_CONN_STATE_INIT ?
		       HL_NIC_CONN_STATE_RTR : -EINVAL;
	case HL_NIC_CONN_EV_SET_REQ:
		return from == HL_NIC_CONN_STATE_RTR ?
		       HL_NIC_CONN_STATE_RTS : -EINVAL;
	case HL_NIC_CONN_EV_MODIFY_RESET:
		return HL_NIC_CONN_STATE_RESET;
	case HL_NIC_CONN_EV_MODIFY_ERR:
	case HL_NIC_CONN_EV_FAIL:
		return HL_NIC_CONN_STATE_ERR;
	}
	return -EINVAL;
}

/*
 * Program @conn's QP context (its lock held) with the connection's
 * attributes as they are now; @a carries the PSNs to start from, if any
 * (set_*_psn), and is pointed at the attributes.
 */
static void hl_nic_conn_program_locked(struct hl_nic_conn *conn,
				       struct hl_nic_qp_attr *a)
{
	struct hl_device *hdev = conn->ctx->hdev;

	lockdep_assert_held(&conn->lock);

	a->conn = &conn->attr;
	hdev->asic_funcs->nic_qp_program(hdev, conn->qp, a);
}

/*
 * Move @conn (its lock held) to ERR after an error completion of work of
 * epoch @epoch, or because its peer's owner went; a connection that has
 * moved on since (reset, failed, destroyed) is left as it is. Its work in
 * flight ends with @why (FLUSHED, or REMOTE_ERR for the peer's owner).
 */
static void hl_nic_conn_fail_locked(struct hl_nic_conn *conn, u32 epoch,
				    u32 why)
{
	struct hl_nic_qp_attr a = {};

	lockdep_assert_held(&conn->lock);

	if (conn->attr.epoch != epoch)
		return;
	conn->attr.state = hl_nic_conn_next_state(conn->attr.state,
						  HL_NIC_CONN_EV_FAIL);
	conn->attr.flush_status = why;
	conn->attr.epoch++;
	hl_nic_conn_program_locked(conn, &a);
}

/*
 * Move @conn to ERR or RESET, or destroy it: flush its work (new epoch).
 * RESET and destruction also forget the contexts and the CQs they named
 * (and the QP context's PSNs); destruction then tears the QP context down.
 * Under hl_nic_ctx.lock (the CQs' users).
 */
static void hl_nic_conn_flush(struct hl_nic_ctx *nic, struct hl_nic_conn *conn,
			      enum hl_nic_conn_event ev, bool destroy)
{
	struct hl_device *hdev = conn->ctx->hdev;
	struct hl_nic_qp_attr a = {};
	struct hl_nic_cq *cqs[2] = {};
	int state, i;
	void *qp;

	lockdep_assert_held(&nic->lock);

	spin_lock(&conn->lock);
	state = hl_nic_conn_next_state(conn->attr.state, ev);
	if (WARN_ON_ONCE(state < 0))
		state = HL_NIC_CONN_STATE_ERR;
	conn->attr.state = state;
	conn->attr.flush_status = HL_NIC_CQE_STATUS_FLUSHED;
	conn->attr.epoch++;
	if (destroy)
		conn->attr.destroyed = true;
	if (destroy || state == HL_NIC_CONN_STATE_RESET) {
		cqs[0] = conn->send_cq;
		cqs[1] = conn->recv_cq;
		conn->send_cq = NULL;
		conn->recv_cq = NULL;
		/* The peer, the sizes and the CQs are forgotten */
		conn->attr = (struct hl_nic_conn_attr) {
			.state = state,
			.epoch = conn->attr.epoch,
			.flush_status = HL_NIC_CQE_STATUS_FLUSHED,
			.destroyed = conn->attr.destroyed,
		};
		a.set_sq_psn = true;
		a.set_rq_psn = true;
	}
	hl_nic_conn_program_locked(conn, &a);
	qp = destroy ? conn->qp : NULL;
	if (destroy)
		conn->qp = NULL;
	spin_unlock(&conn->lock);

	/* Once: the connection is off its context's xarray */
	if (qp)
		hdev->asic_funcs->nic_qp_teardown(hdev, qp);

	for (i = 0; i < ARRAY_SIZE(cqs); i++) {
		if (!cqs[i])
			continue;
		cqs[i]->users--;
		hl_nic_cq_put(cqs[i]);
	}
}

static int hl_nic_alloc_conn(struct hl_ctx *ctx,
			     const struct hl_nic_alloc_conn_in *in,
			     struct hl_nic_alloc_conn_out *out)
{
	struct hl_device *hdev = ctx->hdev;
	struct hl_nic_ctx *nic = &ctx->nic;
	u32 id, base = nic->gen << HL_NIC_CONN_ID_SLOT_BITS;
	struct hl_nic_conn *conn;
	void *qp;
	int rc;

	if (in->pad || in->port >= hdev->asic_prop.num_nic_ports)
		return -EINVAL;

	conn = kzalloc(sizeof(*conn), GFP_KERNEL_ACCOUNT);
	if (!conn)
		return -ENOMEM;
	kref_init(&conn->refcount);
	conn->ctx = ctx;
	conn->port = in->port;
	spin_lock_init(&conn->lock);
	conn->attr.state = HL_NIC_CONN_STATE_RESET;
	conn->attr.flush_status = HL_NIC_CQE_STATUS_FLUSHED;

	/*
	 * The ID is reserved first (an entry of NULL), then the QP context
	 * made for it, in RESET: no lookup finds the connection without it
	 */
	mutex_lock(&nic->lock);
	rc = hl_should_fail(HL_FAULT_NIC) ? -EBUSY :
	     xa_alloc_cyclic(&nic->conns, &id, NULL,
			     XA_LIMIT(base | HL_NIC_MIN_CONN_ID,
				      base | HL_NIC_MAX_CONN_ID),
			     &nic->next_conn_id, GFP_KERNEL_ACCOUNT);
	if (rc >= 0) {
		conn->id = id;
		qp = hdev->asic_funcs->nic_qp_create(hdev, ctx, id, in->port);
		if (IS_ERR(qp)) {
			xa_erase(&nic->conns, id);
			rc = PTR_ERR(qp);
		} else {
			conn->qp = qp;
			xa_store(&nic->conns, id, conn, GFP_KERNEL_ACCOUNT);
		}
	}
	mutex_unlock(&nic->lock);

	if (rc < 0) {
		kfree(conn);
		return rc == -EBUSY ? -ENOSPC : rc;
	}

	out->conn_id = id;
	return 0;
}

/*
 * The checks SET_RES_CONN_CTX and SET_REQ_CONN_CTX share. On success *@cq
 * is the CQ named by @cq_handle (no reference), or NULL.
 */
/**
 * struct hl_nic_conn_ctx_args - what SET_RES_CONN_CTX and SET_REQ_CONN_CTX
 * share.
 * @name: the op, for the debug log.
 * @remote_addr: the peer port's address.
 * @conn_id: the connection.
 * @port: its port, as the caller believes.
 * @remote_conn_id: the peer connection.
 * @psn: the first PSN.
 * @wq_size: the work queue's size.
 * @cq_handle: the CQ to report to, or 0.
 * @set: stores the op's fields into the connection (its lock held) and
 *	the PSN it starts into the QP context's attributes.
 * @in: the op's input, for @set.
 */
struct hl_nic_conn_ctx_args {
	const char *name;
	u64 remote_addr;
	u32 conn_id;
	u32 port;
	u32 remote_conn_id;
	u32 psn;
	u32 wq_size;
	u32 cq_handle;
	void (*set)(struct hl_nic_conn *conn, const void *in,
		    struct hl_nic_cq *cq, struct hl_nic_qp_attr *a);
	const void *in;
};

static int hl_nic_check_conn_ctx(struct hl_nic_ctx *nic,
				 struct hl_nic_conn *conn,
				 const struct hl_nic_conn_ctx_args *a,
				 struct hl_nic_cq **cq)
{
	lockdep_assert_held(&nic->lock);

	if (!conn || a->port != conn->port)
		return -EINVAL;
	if (HL_NIC_CONN_ID_SLOT(a->remote_conn_id) < HL_NIC_MIN_CONN_ID ||
	    !HL_NIC_CONN_ID_GEN(a->remote_conn_id))
		return -EINVAL;
	if (a->psn & ~HL_NIC_PSN_MASK)
		return -EINVAL;
	if (!a->wq_size || a->wq_size > HL_NIC_MAX_WQ_SIZE)
		return -EINVAL;

	*cq = NULL;
	if (a->cq_handle) {
		*cq = xa_load(&nic->cqs, a->cq_handle);
		if (!*cq)
			return -EINVAL;
	}
	return 0;
}

/*
 * Move @conn on by @ev with @set applied under its lock; -EINVAL when @ev
 * is not legal in its state (any more). Called with the context's
 * hl_nic_ctx.lock held (@cq's users).
 */
static int hl_nic_conn_advance(struct hl_nic_conn *conn,
			       enum hl_nic_conn_event ev,
			       void (*set)(struct hl_nic_conn *conn,
					   const void *in, struct hl_nic_cq *cq,
					   struct hl_nic_qp_attr *a),
			       const void *in, struct hl_nic_cq *cq)
{
	struct hl_nic_qp_attr a = {};
	int next, rc = 0;

	lockdep_assert_held(&conn->ctx->nic.lock);

	spin_lock(&conn->lock);
	next = hl_nic_conn_next_state(conn->attr.state, ev);
	if (next < 0) {
		rc = -EINVAL;
	} else {
		set(conn, in, cq, &a);
		conn->attr.state = next;
		hl_nic_conn_program_locked(conn, &a);
	}
	spin_unlock(&conn->lock);

	if (!rc && cq) {
		cq->users++;
		hl_nic_cq_get(cq);
	}
	return rc;
}

static void hl_nic_set_res(struct hl_nic_conn *conn, const void *data,
			   struct hl_nic_cq *cq, struct hl_nic_qp_attr *a)
{
	const struct hl_nic_res_conn_ctx_in *in = data;

	lockdep_assert_held(&conn->lock);

	conn->attr.remote_addr = in->remote_addr;
	conn->attr.remote_conn_id = in->remote_conn_id;
	a->set_rq_psn = true;
	a->rq_psn = in->psn;
	conn->attr.rq_size = in->wq_size;
	conn->attr.recv_cq = cq ? cq->handle : 0;
	conn->recv_cq = cq;
}

static void hl_nic_set_req(struct hl_nic_conn *conn, const void *data,
			   struct hl_nic_cq *cq, struct hl_nic_qp_attr *a)
{
	const struct hl_nic_req_conn_ctx_in *in = data;

	lockdep_assert_held(&conn->lock);

	a->set_sq_psn = true;
	a->sq_psn = in->psn;
	conn->attr.mtu = in->mtu;
	conn->attr.sq_size = in->wq_size;
	conn->attr.send_cq = cq ? cq->handle : 0;
	conn->send_cq = cq;
}

/*
 * SET_RES_CONN_CTX (@ev HL_NIC_CONN_EV_SET_RES) and SET_REQ_CONN_CTX
 * (HL_NIC_CONN_EV_SET_REQ): check the context, that the connection's state
 * allows @ev and (for the requester context) that it names the peer the
 * responder context named, that the peer is reachable; then move on.
 */
static int hl_nic_set_conn_ctx(struct hl_ctx *ctx, enum hl_nic_conn_event ev,
			       const struct hl_nic_conn_ctx_args *a)
{
	struct hl_device *hdev = ctx->hdev;
	struct hl_nic_ctx *nic = &ctx->nic;
	struct hl_nic_conn *conn;
	struct hl_nic_cq *cq;
	int rc;

	mutex_lock(&nic->lock);
	conn = xa_load(&nic->conns, a->conn_id);
	rc = hl_nic_check_conn_ctx(nic, conn, a, &cq);
	if (rc)
		goto out_unlock;

	spin_lock(&conn->lock);
	if (hl_nic_conn_next_state(conn->attr.state, ev) < 0)
		rc = -EINVAL;
	else if (ev == HL_NIC_CONN_EV_SET_REQ &&
		 (conn->attr.remote_addr != a->remote_addr ||
		  conn->attr.remote_conn_id != a->remote_conn_id))
		rc = -EINVAL;
	spin_unlock(&conn->lock);
	if (rc)
		goto out_unlock;

	rc = hdev->asic_funcs->nic_check_remote(hdev, conn->port,
						a->remote_addr);
	if (rc)
		goto out_unlock;

	rc = hl_nic_conn_advance(conn, ev, a->set, a->in, cq);
out_unlock:
	mutex_unlock(&nic->lock);
	if (rc)
		hl_dbg(hdev, NIC, "%s of connection %u: %d\n", a->name,
		       a->conn_id, rc);
	return rc;
}

static int hl_nic_set_res_conn_ctx(struct hl_ctx *ctx,
				   const struct hl_nic_res_conn_ctx_in *in)
{
	const struct hl_nic_conn_ctx_args a = {
		.name = "SET_RES_CONN_CTX", .remote_addr = in->remote_addr,
		.conn_id = in->conn_id, .port = in->port,
		.remote_conn_id = in->remote_conn_id, .psn = in->psn,
		.wq_size = in->wq_size, .cq_handle = in->cq_handle,
		.set = hl_nic_set_res, .in = in,
	};

	if (in->reserved[0] || in->reserved[1])
		return -EINVAL;
	return hl_nic_set_conn_ctx(ctx, HL_NIC_CONN_EV_SET_RES, &a);
}

static bool hl_nic_mtu_valid(u32 mtu)
{
	return is_power_of_2(mtu) && mtu >= HL_NIC_MTU_256 &&
	       mtu <= HL_NIC_MTU_4096;
}

static int hl_nic_set_req_conn_ctx(struct hl_ctx *ctx,
				   const struct hl_nic_req_conn_ctx_in *in)
{
	const struct hl_nic_conn_ctx_args a = {
		.name = "SET_REQ_CONN_CTX", .remote_addr = in->remote_addr,
		.conn_id = in->conn_id, .port = in->port,
		.remote_conn_id = in->remote_conn_id, .psn = in->psn,
		.wq_size = in->wq_size, .cq_handle = in->cq_handle,
		.set = hl_nic_set_req, .in = in,
	};

	if (in->reserved || !hl_nic_mtu_valid(in->mtu))
		return -EINVAL;
	return hl_nic_set_conn_ctx(ctx, HL_NIC_CONN_EV_SET_REQ, &a);
}

static void hl_nic_set_nothing(struct hl_nic_conn *conn, const void *in,
			       struct hl_nic_cq *cq, struct hl_nic_qp_attr *a)
{
}

static int hl_nic_modify_conn(struct hl_ctx *ctx,
			      const struct hl_nic_modify_conn_in *in)
{
	struct hl_nic_ctx *nic = &ctx->nic;
	struct hl_nic_conn *conn;
	int rc = 0;

	mutex_lock(&nic->lock);
	conn = xa_load(&nic->conns, in->conn_id);
	if (!conn) {
		rc = -EINVAL;
		goto out_unlock;
	}

	switch (in->state) {
	case HL_NIC_CONN_STATE_INIT:
		rc = hl_nic_conn_advance(conn, HL_NIC_CONN_EV_MODIFY_INIT,
					 hl_nic_set_nothing, NULL, NULL);
		break;
	case HL_NIC_CONN_STATE_ERR:
		hl_nic_conn_flush(nic, conn, HL_NIC_CONN_EV_MODIFY_ERR, false);
		break;
	case HL_NIC_CONN_STATE_RESET:
		hl_nic_conn_flush(nic, conn, HL_NIC_CONN_EV_MODIFY_RESET, false);
		break;
	default:
		rc = -EINVAL;
		break;
	}
out_unlock:
	mutex_unlock(&nic->lock);
	return rc;
}

static int hl_nic_destroy_conn(struct hl_ctx *ctx,
			       const struct hl_nic_destroy_conn_in *in)
{
	struct hl_nic_ctx *nic = &ctx->nic;
	struct hl_nic_conn *conn;

	if (in->pad)
		return -EINVAL;

	mutex_lock(&nic->lock);
	conn = xa_erase(&nic->conns, in->conn_id);
	if (conn)
		hl_nic_conn_flush(nic, conn, HL_NIC_CONN_EV_MODIFY_ERR, true);
	mutex_unlock(&nic->lock);

	if (!conn)
		return -EINVAL;
	hl_nic_conn_put(conn);
	return 0;
}

static int hl_nic_query_conn(struct hl_ctx *ctx,
			     const struct hl_nic_query_conn_in *in,
			     struct hl_nic_query_conn_out *out)
{
	struct hl_nic_ctx *nic = &ctx->nic;
	struct hl_nic_conn *conn;
	int rc = 0;

	if (in->pad)
		return -EINVAL;

	mutex_lock(&nic->lock);
	conn = xa_load(&nic->conns, in->conn_id);
	if (conn) {
		spin_lock(&conn->lock);
		out->remote_addr = conn->attr.remote_addr;
		out->state = conn->attr.state;
		out->port = conn->port;
		out->remote_conn_id = conn->attr.remote_conn_id;
		/* The PSNs are the wire's */
		ctx->hdev->asic_funcs->nic_qp_query(ctx->hdev, conn->qp,
						    &out->sq_psn,
						    &out->rq_psn);
		spin_unlock(&conn->lock);
	} else {
		rc = -EINVAL;
	}
	mutex_unlock(&nic->lock);
	return rc;
}

/* ------------------------------------------------------------------------
 * CQ ops
 */

static int hl_nic_cq_create(struct hl_ctx *ctx,
			    const struct hl_nic_cq_create_in *in,
			    struct hl_nic_cq_create_out *out)
{
	struct hl_nic_ctx *nic = &ctx->nic;
	struct hl_nic_cq *cq;
	u32 handle;
	int rc;

	if (in->pad || !in->num_entries ||
	    in->num_entries > HL_NIC_MAX_CQ_ENTRIES ||
	    !is_power_of_2(in->num_entries))
		return -EINVAL;

	cq = kzalloc(sizeof(*cq), GFP_KERNEL_ACCOUNT);
	if (!cq)
		return -ENOMEM;
	cq->entries = kvcalloc(in->num_entries, sizeof(*cq->entries),
			       GFP_KERNEL_ACCOUNT);
	if (!cq->entries) {
		rc = -ENOMEM;
		goto err_free_cq;
	}
	kref_init(&cq->refcount);
	cq->num_entries = in->num_entries;
	spin_lock_init(&cq->lock);
	init_waitqueue_head(&cq->wq);

	mutex_lock(&nic->lock);
	if (nic->num_cqs >= HL_NIC_MAX_CQS) {
		rc = -ENOSPC;
	} else {
		rc = hl_should_fail(HL_FAULT_NIC) ? -ENOMEM :
		     xa_alloc_cyclic(&nic->cqs, &handle, cq,
				     XA_LIMIT(1, U32_MAX), &nic->next_cq,
				     GFP_KERNEL_ACCOUNT);
		if (rc >= 0) {
			cq->handle = handle;
			nic->num_cqs++;
		}
	}
	mutex_unlock(&nic->lock);
	if (rc < 0)
		goto err_free_entries;

	out->handle = handle;
	return 0;

err_free_entries:
	kvfree(cq->entries);
err_free_cq:
	kfree(cq);
	return rc;
}

static int hl_nic_cq_destroy(struct hl_ctx *ctx,
			     const struct hl_nic_cq_destroy_in *in)
{
	struct hl_nic_ctx *nic = &ctx->nic;
	struct hl_nic_cq *cq;
	int rc = 0;

	if (in->pad)
		return -EINVAL;

	mutex_lock(&nic->lock);
	cq = xa_load(&nic->cqs, in->handle);
	if (!cq) {
		rc = -EINVAL;
	} else if (cq->users) {
		rc = -EBUSY;
	} else {
		xa_erase(&nic->cqs, in->handle);
		nic->num_cqs--;
	}
	mutex_unlock(&nic->lock);
	if (rc)
		return rc;

	hl_nic_cq_kill(cq);
	hl_nic_cq_put(cq);
	return 0;
}

/* A CQ_WAIT on @cq of @nic can return: an entry, or the CQ or context went */
static bool hl_nic_cq_ready(struct hl_nic_ctx *nic, struct hl_nic_cq *cq)
{
	bool ready;

	spin_lock(&cq->lock);
	ready = cq->pi != cq->ci || cq->overflow || cq->destroyed;
	spin_unlock(&cq->lock);
	return ready || READ_ONCE(nic->killed);
}

/*
 * CQ_WAIT: 0 when there is an entry or the time ran out, else -errno
 * (-ENODEV: the context went, hl_nic_ctx_kill(), or the device)
 */
static int hl_nic_cq_wait(struct hl_ctx *ctx, struct hl_nic_cq *cq,
			  u64 timeout_us)
{
	struct hl_device *hdev = ctx->hdev;
	struct hl_nic_ctx *nic = &ctx->nic;
	bool forever = timeout_us >= U32_MAX;
	unsigned long deadline = jiffies + usecs_to_jiffies(forever ? 0 :
							    timeout_us);
	long slice, rc;

	for (;;) {
		/* Reset and removal wait for this ioctl: it must end now */
		if (READ_ONCE(nic->killed) || hl_device_unplugged(hdev))
			return -ENODEV;
		if (hl_nic_cq_ready(nic, cq))
			return 0;
		if (!forever && time_after_eq(jiffies, deadline))
			return 0;

		slice = HL_NIC_WAIT_SLICE;
		if (!forever)
			slice = min_t(long, slice, deadline - jiffies);
		rc = wait_event_interruptible_timeout(cq->wq,
						      hl_nic_cq_ready(nic, cq),
						      max(slice, 1L));
		if (rc < 0)
			return -EINTR;
	}
}

static int hl_nic_cq_poll_wait(struct hl_ctx *ctx,
			       const struct hl_nic_cq_poll_wait_in *in,
			       struct hl_nic_cq_poll_wait_out *out, bool wait)
{
	struct hl_nic_cqe *buf = NULL;
	struct hl_nic_cq *cq;
	bool overflow, destroyed;
	u32 n, i, avail;
	int rc;

	if (!wait && in->timeout_us)
		return -EINVAL;
	if (in->max_cqes && !in->cqes_ptr)
		return -EINVAL;

	cq = hl_nic_cq_lookup(&ctx->nic, in->handle);
	if (!cq)
		return -EINVAL;

	if (wait) {
		rc = hl_nic_cq_wait(ctx, cq, in->timeout_us);
		if (rc)
			goto out_put;
	}

	n = min(in->max_cqes, cq->num_entries);
	if (n) {
		buf = hl_should_fail(HL_FAULT_NIC) ? NULL :
		      kvmalloc_array(n, sizeof(*buf), GFP_KERNEL_ACCOUNT);
		if (!buf) {
			rc = -ENOMEM;
			goto out_put;
		}
	}

	spin_lock(&cq->lock);
	avail = cq->pi - cq->ci;
	n = min(n, avail);
	for (i = 0; i < n; i++)
		buf[i] = cq->entries[(cq->ci + i) & (cq->num_entries - 1)];
	overflow = cq->overflow;
	destroyed = cq->destroyed;
	spin_unlock(&cq->lock);

	rc = -EINVAL;
	if (destroyed)
		goto out_free;
	/* -EFAULT, or -ENODEV: the copy leaves the context's gate */
	rc = n ? hl_ctx_copy_to_user(ctx, u64_to_user_ptr(in->cqes_ptr), buf,
				     (size_t)n * sizeof(*buf)) : 0;
	if (rc)
		goto out_free;

	rc = 0;
	out->num_cqes = n;
	out->avail = avail;
	if (overflow)
		out->status = HL_NIC_CQ_STATUS_OVERFLOW;
	else if (wait && !avail)
		out->status = HL_NIC_CQ_STATUS_TIMEOUT;
	else
		out->status = HL_NIC_CQ_STATUS_SUCCESS;
out_free:
	kvfree(buf);
out_put:
	hl_nic_cq_put(cq);
	return rc;
}

static int
hl_nic_cq_update_consumed(struct hl_ctx *ctx,
			  const struct hl_nic_cq_update_consumed_cqes_in *in)
{
	struct hl_nic_cq *cq;
	int rc = 0;

	cq = hl_nic_cq_lookup(&ctx->nic, in->handle);
	if (!cq)
		return -EINVAL;

	spin_lock(&cq->lock);
	if (in->num_cqes > cq->pi - cq->ci)
		rc = -EINVAL;
	else
		cq->ci += in->num_cqes;
	spin_unlock(&cq->lock);

	hl_nic_cq_put(cq);
	return rc;
}

/* ------------------------------------------------------------------------
 * The ioctl, INFO and the context
 */

/*
 * Undo of ALLOC_CONN and CQ_CREATE when their result did not reach user
 * space (hl_ioctl_on_finish()).
 */
static void hl_nic_alloc_conn_finish(struct hl_fpriv *fpriv, void *priv,
				     u64 id, bool committed)
{
	struct hl_nic_destroy_conn_in in = { .conn_id = id };

	if (!committed && hl_nic_destroy_conn(fpriv->ctx, &in))
		hl_dbg(fpriv->hdev, NIC, "ALLOC_CONN undo: %llu gone\n", id);
}

static void hl_nic_cq_create_finish(struct hl_fpriv *fpriv, void *priv,
				    u64 handle, bool committed)
{
	struct hl_nic_cq_destroy_in in = { .handle = handle };

	if (!committed && hl_nic_cq_destroy(fpriv->ctx, &in))
		hl_dbg(fpriv->hdev, NIC, "CQ_CREATE undo: %llu in use\n",
		       handle);
}

static void hl_nic_reg_mr_finish(struct hl_fpriv *fpriv, void *priv,
				 u64 lkey, bool committed)
{
	struct hl_nic_dereg_mr_in in = { .lkey = lkey };

	if (!committed && hl_nic_mr_dereg(fpriv->ctx, &in))
		hl_dbg(fpriv->hdev, NIC, "REG_MR undo: key %llu gone\n", lkey);
}

/* Ops whose work cannot be undone and that return nothing */
static bool hl_nic_op_has_no_output(u32 op)
{
	switch (op) {
	case HL_NIC_OP_SET_REQ_CONN_CTX:
	case HL_NIC_OP_SET_RES_CONN_CTX:
	case HL_NIC_OP_DESTROY_CONN:
	case HL_NIC_OP_CQ_DESTROY:
	case HL_NIC_OP_CQ_UPDATE_CONSUMED_CQES:
	case HL_NIC_OP_MODIFY_CONN:
	case HL_NIC_OP_DEREG_MR:
		return true;
	default:
		return false;
	}
}

/**
 * hl_nic_op - run one checked NIC op on a context (the body of
 * HL_IOCTL_NIC, without the file's checks and the undo).
 * @ctx: the context.
 * @in: the op and its input, checked for reserved bytes.
 * @out: zeroed; receives the op's output.
 *
 * Return: the op's result.
 */
int hl_nic_op(struct hl_ctx *ctx, const struct hl_nic_in *in,
	      struct hl_nic_out *out)
{
	int rc;

	switch (in->op) {
	case HL_NIC_OP_ALLOC_CONN:
		rc = hl_nic_alloc_conn(ctx, &in->alloc_conn, &out->alloc_conn);
		break;
	case HL_NIC_OP_SET_REQ_CONN_CTX:
		rc = hl_nic_set_req_conn_ctx(ctx, &in->req_conn_ctx);
		break;
	case HL_NIC_OP_SET_RES_CONN_CTX:
		rc = hl_nic_set_res_conn_ctx(ctx, &in->res_conn_ctx);
		break;
	case HL_NIC_OP_DESTROY_CONN:
		rc = hl_nic_destroy_conn(ctx, &in->destroy_conn);
		break;
	case HL_NIC_OP_CQ_CREATE:
		rc = hl_nic_cq_create(ctx, &in->cq_create, &out->cq_create);
		break;
	case HL_NIC_OP_CQ_DESTROY:
		rc = hl_nic_cq_destroy(ctx, &in->cq_destroy);
		break;
	case HL_NIC_OP_CQ_WAIT:
		rc = hl_nic_cq_poll_wait(ctx, &in->cq_poll_wait,
					 &out->cq_poll_wait, true);
		break;
	case HL_NIC_OP_CQ_POLL:
		rc = hl_nic_cq_poll_wait(ctx, &in->cq_poll_wait,
					 &out->cq_poll_wait, false);
		break;
	case HL_NIC_OP_CQ_UPDATE_CONSUMED_CQES:
		rc = hl_nic_cq_update_consumed(ctx,
					       &in->cq_update_consumed_cqes);
		break;
	case HL_NIC_OP_MODIFY_CONN:
		rc = hl_nic_modify_conn(ctx, &in->modify_conn);
		break;
	case HL_NIC_OP_QUERY_CONN:
		rc = hl_nic_query_conn(ctx, &in->query_conn, &out->query_conn);
		break;
	case HL_NIC_OP_REG_MR:
		rc = hl_nic_mr_reg(ctx, &in->reg_mr, &out->reg_mr);
		break;
	case HL_NIC_OP_DEREG_MR:
		rc = hl_nic_mr_dereg(ctx, &in->dereg_mr);
		break;
	default:
		rc = -EINVAL;
		break;
	}

	return rc;
}

/**
 * hl_nic_ioctl - HL_IOCTL_NIC: connections and completion queues.
 * @fpriv: the compute node's open file.
 * @data: struct hl_nic_args, copied in; out is returned on success (on
 *	failure the argument is left as it came in).
 * @call: the ioctl call.
 *
 * Errors: listed per op in the kernel-doc of struct hl_nic_args (uAPI
 * header).
 *
 * Return: 0 or a negative errno.
 */
int hl_nic_ioctl(struct hl_fpriv *fpriv, void *data, struct hl_ioctl_call *call)
{
	struct hl_nic_args *args = data;
	struct hl_nic_in in = args->in;
	struct hl_ctx *ctx = fpriv->ctx;
	struct hl_nic_out out = {};
	u32 size;
	int rc;

	if (!ctx)
		return -EINVAL;
	if (ctx->nic.owner != task_tgid(current)) {
		hl_dbg(fpriv->hdev, NIC,
		       "NIC ioctl from pid %d, not the owner's process\n",
		       task_tgid_nr(current));
		return -EPERM;
	}
	if (!fpriv->hdev->asic_prop.num_nic_ports)
		return -EOPNOTSUPP;
	if (in.flags || in.ctx_id || in.pad ||
	    in.op >= ARRAY_SIZE(hl_nic_in_size))
		return -EINVAL;
	size = hl_nic_in_size[in.op];
	if (memchr_inv((u8 *)in.reserved + size, 0, sizeof(in.reserved) - size))
		return -EINVAL;

	rc = hl_nic_op(ctx, &in, &out);

	/*
	 * The dispatcher copies the argument back on errors too: leave the
	 * input as it was then, so that a call retried after -EINTR (as
	 * libhlthunk does) asks the same again.
	 */
	if (!rc) {
		memset(args, 0, sizeof(*args));
		args->out = out;
		if (in.op == HL_NIC_OP_ALLOC_CONN)
			hl_ioctl_on_finish(call, hl_nic_alloc_conn_finish, NULL,
					   out.alloc_conn.conn_id);
		else if (in.op == HL_NIC_OP_CQ_CREATE)
			hl_ioctl_on_finish(call, hl_nic_cq_create_finish, NULL,
					   out.cq_create.handle);
		else if (in.op == HL_NIC_OP_REG_MR)
			hl_ioctl_on_finish(call, hl_nic_reg_mr_finish, NULL,
					   out.reg_mr.lkey);
		else if (hl_nic_op_has_no_output(in.op))
			hl_ioctl_no_output(call);
	}
	return rc;
}

/**
 * hl_nic_info_ports - fill HL_INFO_NIC_PORTS.
 * @hdev: the device, inside a hl_device_enter() section.
 * @info: zeroed; receives the ports.
 *
 * Return: 0.
 */
int hl_nic_info_ports(struct hl_device *hdev, struct hl_info_nic_ports *info)
{
	u32 i, n = min_t(u32, hdev->asic_prop.num_nic_ports,
			 HL_INFO_NIC_MAX_PORTS);

	info->num_ports = n;
	for (i = 0; i < n; i++)
		hdev->asic_funcs->nic_port_info(hdev, i, &info->ports[i]);
	return 0;
}

/**
 * hl_nic_ctx_init - initialise a new context's NIC and let the fabric
 * reach its connections.
 * @ctx: the context, created by the opener of the compute node (current).
 */
void hl_nic_ctx_init(struct hl_ctx *ctx)
{
	struct hl_nic_ctx *nic = &ctx->nic;
	struct hl_device *hdev = ctx->hdev;

	mutex_init(&nic->lock);
	mutex_init(&nic->mr_lock);
	INIT_LIST_HEAD(&nic->mrs);
	hl_nic_mr_ctx_init(ctx);
	xa_init_flags(&nic->conns, XA_FLAGS_ALLOC1);
	xa_init_flags(&nic->cqs, XA_FLAGS_ALLOC1);
	nic->gen = hl_nic_gen_next();
	nic->next_conn_id = nic->gen << HL_NIC_CONN_ID_SLOT_BITS |
			    HL_NIC_MIN_CONN_ID;
	nic->next_cq = 1;
	nic->owner = get_pid(task_tgid(current));

	spin_lock(&hdev->nic_lock);
	hdev->nic_ctx = ctx;
	spin_unlock(&hdev->nic_lock);
}

/*
 * Move the connections of @rctx (a peer device's owner, a reference held)
 * that name a connection of generation @gen at port address @addr to ERR;
 * their work in flight ends @why.
 */
static void hl_nic_fail_conns_naming(struct hl_ctx *rctx, u64 addr, u32 gen,
				     u32 why)
{
	struct hl_nic_conn *rconn;
	unsigned long id;

	/* The xarray's lock keeps its connections alive */
	xa_lock(&rctx->nic.conns);
	xa_for_each(&rctx->nic.conns, id, rconn) {
		spin_lock(&rconn->lock);
		if (rconn->attr.remote_addr == addr &&
		    HL_NIC_CONN_ID_GEN(rconn->attr.remote_conn_id) == gen &&
		    rconn->attr.state != HL_NIC_CONN_STATE_ERR)
			hl_nic_conn_fail_locked(rconn, rconn->attr.epoch, why);
		spin_unlock(&rconn->lock);
	}
	xa_unlock(&rctx->nic.conns);
}

/*
 * @ctx is going: move every connection of the peer devices whose responder
 * context names one of its connections (its generation, and the address of
 * the port cabled to the peer's) to ERR; their work in flight ends
 * REMOTE_ERR, or LINK_DOWN when the device is being removed. The device's
 * NIC backend must still be there (not past early_fini).
 */
static void hl_nic_ctx_fail_peers(struct hl_ctx *ctx)
{
	struct hl_device *hdev = ctx->hdev, *peer_hdev;
	struct hl_ctx *rctx;
	u64 addr;
	u32 port, why;

	if (!hdev->asic_funcs->nic_peer_get)
		return;
	why = hl_device_unplugged(hdev) ? HL_NIC_CQE_STATUS_LINK_DOWN :
					  HL_NIC_CQE_STATUS_REMOTE_ERR;

	for (port = 0; port < hdev->asic_prop.num_nic_ports; port++) {
		peer_hdev = hdev->asic_funcs->nic_peer_get(hdev, port, &addr);
		if (!peer_hdev)
			continue;

		spin_lock(&peer_hdev->nic_lock);
		rctx = peer_hdev->nic_ctx;
		/* nic_ctx is cleared before its file lets go of it */
		if (rctx)
			hl_ctx_get(rctx);
		spin_unlock(&peer_hdev->nic_lock);

		if (rctx) {
			hl_nic_fail_conns_naming(rctx, addr, ctx->nic.gen,
						 why);
			hl_ctx_put(rctx);
		}
		hl_device_put(peer_hdev);
	}
}

/*
 * The fabric no longer reaches @ctx's connections, and its CQ waiters
 * leave (-ENODEV), now and later
 */
static void hl_nic_ctx_stop(struct hl_ctx *ctx)
{
	struct hl_device *hdev = ctx->hdev;
	struct hl_nic_ctx *nic = &ctx->nic;
	struct hl_nic_cq *cq;
	unsigned long id;

	spin_lock(&hdev->nic_lock);
	if (hdev->nic_ctx == ctx)
		hdev->nic_ctx = NULL;
	spin_unlock(&hdev->nic_lock);

	/* Before the wake-ups: a waiter checks it after queueing itself */
	WRITE_ONCE(nic->killed, true);
	/* The xarray's lock keeps its CQs alive */
	xa_lock(&nic->cqs);
	xa_for_each(&nic->cqs, id, cq)
		wake_up_all(&cq->wq);
	xa_unlock(&nic->cqs);
}

/**
 * hl_nic_ctx_kill - a context is going (hard reset, unbind): end its NIC
 * waits and cut its connections from their peers.
 * @ctx: the context; the caller holds a reference.
 *
 * The fabric no longer reaches its connections; every CQ_WAIT of the
 * context, also one with no time limit, returns -ENODEV at once and any
 * later one too; the peers' connections that name its connections move to
 * ERR (their work in flight ends REMOTE_ERR, or LINK_DOWN when the device
 * is being removed). Takes no sleeping lock and waits for nothing: the
 * reset and removal paths call it before they wait for the context's
 * ioctls (the unplug SRCU grace period), while the device's NIC backend is
 * still there. Idempotent.
 */
void hl_nic_ctx_kill(struct hl_ctx *ctx)
{
	hl_nic_ctx_stop(ctx);
	hl_nic_ctx_fail_peers(ctx);
}

/**
 * hl_nic_ctx_close - the compute node is closed: cut the context's
 * connections from their peers (hl_nic_ctx_kill()), then destroy them
 * (their work is flushed), the CQs and the memory regions.
 * @ctx: the context.
 *
 * From here on the fabric no longer reaches the context's connections.
 */
void hl_nic_ctx_close(struct hl_ctx *ctx)
{
	struct hl_device *hdev = ctx->hdev;
	struct hl_nic_ctx *nic = &ctx->nic;
	struct hl_nic_conn *conn;
	struct hl_nic_cq *cq;
	unsigned long id;
	int idx;

	/*
	 * The peers first, so that their work in flight ends REMOTE_ERR. A
	 * device already removed told them when it went (hl_device_fini())
	 * and has no NIC backend any more.
	 */
	hl_nic_ctx_stop(ctx);
	idx = hl_device_enter(hdev);
	if (!hl_device_unplugged(hdev))
		hl_nic_ctx_fail_peers(ctx);
	hl_device_exit(hdev, idx);

	mutex_lock(&nic->lock);
	if (nic->closed)
		goto out_unlock;
	nic->closed = true;

	xa_for_each(&nic->conns, id, conn) {
		xa_erase(&nic->conns, id);
		hl_nic_conn_flush(nic, conn, HL_NIC_CONN_EV_MODIFY_ERR, true);
		hl_nic_conn_put(conn);
	}
	xa_for_each(&nic->cqs, id, cq) {
		xa_erase(&nic->cqs, id);
		hl_nic_cq_kill(cq);
		hl_nic_cq_put(cq);
	}
	nic->num_cqs = 0;
out_unlock:
	mutex_unlock(&nic->lock);

	/* No connection moves bytes any more; before the mappings go */
	hl_nic_mr_ctx_close(ctx);
}

/**
 * hl_nic_ctx_fini - release a context's NIC.
 * @ctx: the context, being released.
 */
void hl_nic_ctx_fini(struct hl_ctx *ctx)
{
	struct hl_nic_ctx *nic = &ctx->nic;

	hl_nic_ctx_close(ctx);
	xa_destroy(&nic->conns);
	xa_destroy(&nic->cqs);
	put_pid(nic->owner);
	mutex_destroy(&nic->mr_keys.check_lock);
	mutex_destroy(&nic->mr_lock);
	mutex_destroy(&nic->lock);
}

/* ------------------------------------------------------------------------
 * What the backend reports
 */

/**
 * hl_nic_report - the backend reports what its wire did with a
 * connection's work: a completion entry, and whether the work failed.
 * @hdev: the device of the connection.
 * @r: the report (the backend's; read only during the call).
 *
 * The connection is named by r->cqe.conn_id, within the device's owner
 * (its generation): a report of an earlier owner's connection, or of a
 * context the fabric no longer reaches, is dropped. With
 * HL_NIC_REPORT_FAIL the connection moves to ERR if it is still in
 * r->epoch (and its QP context is programmed so), before the entry is
 * posted to the CQ r->cq (if it still exists; a full CQ overflows). Takes
 * spinlocks only, no reference, and allocates nothing: callable from the
 * backend's engines, with none of its locks held.
 */
void hl_nic_report(struct hl_device *hdev, const struct hl_nic_cqe_report *r)
{
	u32 id = r->cqe.conn_id;
	struct hl_nic_conn *conn;
	struct hl_nic_cq *cq;
	struct hl_ctx *ctx;

	/* The owner stays while nic_lock is held (hl_nic_ctx_stop()) */
	spin_lock(&hdev->nic_lock);
	ctx = hdev->nic_ctx;
	if (!ctx || HL_NIC_CONN_ID_GEN(id) != ctx->nic.gen)
		goto out_unlock;

	if (r->flags & HL_NIC_REPORT_FAIL) {
		xa_lock(&ctx->nic.conns);
		conn = xa_load(&ctx->nic.conns, id);
		if (conn) {
			spin_lock(&conn->lock);
			hl_nic_conn_fail_locked(conn, r->epoch,
						HL_NIC_CQE_STATUS_FLUSHED);
			spin_unlock(&conn->lock);
		}
		xa_unlock(&ctx->nic.conns);
	}

	if (r->cq) {
		/* The xarray's lock keeps its CQs alive */
		xa_lock(&ctx->nic.cqs);
		cq = xa_load(&ctx->nic.cqs, r->cq);
		if (cq)
			hl_nic_cq_push(cq, &r->cqe);
		xa_unlock(&ctx->nic.cqs);
	}
out_unlock:
	spin_unlock(&hdev->nic_lock);
}

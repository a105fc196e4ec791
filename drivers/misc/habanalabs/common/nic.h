/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: NIC connections and completion queues.
 *
 * Core and backend. The core (common/nic.c) owns what the driver owns on
 * any ASIC: the connection and CQ objects, the QP state machine
 * (hl_nic_conn_next_state()), the uAPI, ownership (which context the
 * fabric reaches), teardown, and the CQ entries. The wire is the
 * hardware's, in the backend (the emulated one, by role as rxe splits its
 * wire: emu/emu_nic_qp.c, the QP context per connection with its PSNs and
 * work queues; emu_nic_req.c, the requester: admission, taking turns on
 * the wire, reaching the peer device's memory; emu_nic_resp.c, the
 * responder: matching a message with the peer's posted receive across
 * devices, the rkey, RECV; emu_nic_comp.c, the completions;
 * emu_nic_fabric.c, the ports and links). Work reaches the backend through its engine queues (the
 * HL_PKT_NIC_* packets of a command submission, asic_funcs->queue_job), as
 * work requests reach a NIC's QPs on silicon; the core never runs it.
 *
 * The two talk through narrow calls:
 *   - core to backend, asic_funcs->nic_qp_create / nic_qp_program /
 *     nic_qp_query / nic_qp_teardown: create the QP context of a new
 *     connection, program it with what the core decided (struct
 *     hl_nic_qp_attr: the connection's attributes, struct
 *     hl_nic_conn_attr, defined once in asic.h and kept whole by both sides,
 *     and the PSNs to start from) on every move of the state machine,
 *     read its PSNs for QUERY_CONN, and tear it down once when the
 *     connection is destroyed;
 *   - backend to core, every call declared in asic.h's NIC section (the
 *     backend includes no other core header): hl_nic_report(), the one
 *     entry point for what the hardware reports, a completion (a CQE for a
 *     CQ) and an error (the connection moves to ERR), as a struct
 *     hl_nic_cqe_report the backend owns; the regions' lookups and access
 *     brackets (nic_mr.c); hl_nic_ctx_get_reached(), whether the fabric
 *     reaches a context; hl_nic_conn_takes_sends()/_recvs(). No core
 *     structure lives in the backend, and the backend takes no lock of the
 *     core's: it reaches a device's memory through hl_device_hw_enter()
 *     and hl_device_hw_access_begin() (asic.h).
 *
 * Objects and lifetimes:
 *   - struct hl_nic_ctx: a context's connections and CQs, created and
 *     released with the context. Its xarrays hold one reference on each
 *     object; closing the compute node empties them (hl_nic_ctx_close()).
 *   - struct hl_nic_conn: refcounted; the xarray holds the only long-lived
 *     reference. Its @qp (the backend's QP context) is created with it and
 *     torn down once, when it is destroyed. It does not hold its context.
 *   - struct hl_nic_cq: refcounted; a connection context that names it
 *     holds a reference and counts in @users (CQ_DESTROY is -EBUSY while
 *     users). Work names its CQ by handle: the backend records the handle
 *     the QP was programmed with when it takes the work, and
 *     hl_nic_report() finds the CQ by it (a destroyed CQ drops the entry;
 *     handles are not reused: 32-bit cyclic).
 *
 * Owners: a connection ID carries the generation of its context (the
 * owner of the device), which no later owner gets again soon
 * (HL_NIC_CONN_ID_GEN()); matching compares whole IDs, so a later owner's
 * connection never matches one set up for an earlier owner's. When a
 * context goes (close, hard reset, unbind: hl_nic_ctx_kill()), the fabric
 * stops reaching it (hl_nic_ctx_get_reached() says no, hl_nic_report()
 * drops its reports), its CQ waiters leave, and every connection of a peer
 * device that names one of its connections moves to ERR.
 *
 * Epochs: every move of a connection to ERR or RESET, and its destruction,
 * bumps hl_nic_conn_attr.epoch and programs the QP with it; the backend flushes
 * (HL_NIC_CQE_STATUS_FLUSHED, or the programmed flush status) the work it
 * took in an older epoch, so work started before a reset never runs on the
 * connection set up after it. An error the backend finds moves its own QP
 * context to ERR at once and reports it with the epoch the work ran in;
 * the core moves the connection to ERR only if it is still in that epoch.
 */
#ifndef HL_NIC_H_
#define HL_NIC_H_

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include <uapi/misc/habanalabs.h>

#include "asic.h"
#include "nic_mr.h"

struct hl_ctx;
struct hl_device;
struct hl_fpriv;
struct hl_ioctl_call;
struct pid;

/**
 * struct hl_nic_cq - a completion queue: a bounded ring of entries.
 * @refcount: freed when the last reference is gone.
 * @handle: the handle user space names it by.
 * @num_entries: capacity, a power of 2.
 * @users: connection contexts that name the CQ (under hl_nic_ctx.lock).
 * @lock: Protects @pi, @ci, @overflow, @destroyed and the entries.
 * @pi: entries produced so far.
 * @ci: entries consumed so far (@pi - @ci are available).
 * @overflow: an entry was lost because the ring was full; sticky.
 * @destroyed: CQ_DESTROY or the context's close: entries are dropped and
 *	waiters leave.
 * @wq: CQ_WAIT sleeps here; woken by every new entry and by destruction.
 * @entries: the ring.
 */
struct hl_nic_cq {
	struct kref refcount;
	u32 handle;
	u32 num_entries;
	u32 users;
	spinlock_t lock; /* Protects: pi, ci, overflow, destroyed, entries */
	u64 pi;
	u64 ci;
	bool overflow;
	bool destroyed;
	wait_queue_head_t wq;
	struct hl_nic_cqe *entries;
};

/**
 * struct hl_nic_conn - a connection (a reliable-connected queue pair) as
 * the driver keeps it; its wire state is the backend's QP context (@qp).
 * @refcount: the context's xarray holds one; a lookup one per use.
 * @ctx: the owning context (not counted: it outlives its connections).
 * @id: connection ID: the context's generation and a slot (uAPI
 *	HL_NIC_CONN_ID_GEN(), HL_NIC_CONN_ID_SLOT()).
 * @port: the port it is bound to.
 * @qp: the backend's QP context (asic_funcs->nic_qp_create()), or NULL
 *	when the backend has no NIC; torn down once, at destruction.
 * @lock: Protects every field below, and orders the programming of @qp.
 * @attr: the attributes, programmed into @qp on every change.
 * @send_cq: the CQ @attr.send_cq names, counted in its users, or NULL.
 * @recv_cq: the CQ @attr.recv_cq names, counted in its users, or NULL.
 */
struct hl_nic_conn {
	struct kref refcount;
	struct hl_ctx *ctx;
	u32 id;
	u32 port;
	void *qp;
	spinlock_t lock; /* Protects: everything below */
	struct hl_nic_conn_attr attr;
	struct hl_nic_cq *send_cq;
	struct hl_nic_cq *recv_cq;
};

/**
 * struct hl_nic_ctx - the NIC objects of a context.
 * @lock: Protects the configuration: inserting into and erasing from
 *	@conns and @cqs, connection contexts and CQ users, @num_cqs,
 *	@closed. Lookups for the data path use the xarrays' own locks.
 * @conns: connections by ID (struct hl_nic_conn).
 * @next_conn_id: cursor of the cyclic connection-ID allocator.
 * @cqs: CQs by handle (struct hl_nic_cq).
 * @next_cq: cursor of the cyclic CQ-handle allocator.
 * @num_cqs: number of @cqs.
 * @owner: thread group that opened the compute node; only it configures.
 * @gen: the context's generation, in its connection IDs; never 0.
 * @killed: the context is going (hl_nic_ctx_kill()): CQ_WAIT returns
 *	-ENODEV; set once, read without a lock.
 * @closed: the compute node was closed; everything was torn down.
 * @mr_lock: Protects @mrs and @num_mrs, and serialises the context's
 *	region registrations (nic_mr.c).
 * @mrs: the context's memory regions (struct hl_nic_mr.node).
 * @num_mrs: number of @mrs, at most HL_NIC_MAX_MRS (read without the
 *	lock by debugfs).
 * @mr_keys: the regions by key, and the rkey failures of the peers
 *	(nic_mr.c).
 */
struct hl_nic_ctx {
	struct mutex lock; /* Protects: conns and cqs membership, contexts, num_cqs, closed */
	struct xarray conns;
	u32 next_conn_id;
	struct xarray cqs;
	u32 next_cq;
	u32 num_cqs;
	struct pid *owner;
	u32 gen;
	bool killed;
	bool closed;
	struct mutex mr_lock; /* Protects: mrs, num_mrs */
	struct list_head mrs;
	u32 num_mrs;
	struct hl_nic_mr_keys mr_keys;
};

/* nic.c: for the core */
/**
 * enum hl_nic_conn_event - what moves a connection (the QP state machine).
 * @HL_NIC_CONN_EV_MODIFY_INIT: MODIFY_CONN to INIT.
 * @HL_NIC_CONN_EV_SET_RES: SET_RES_CONN_CTX (the responder context).
 * @HL_NIC_CONN_EV_SET_REQ: SET_REQ_CONN_CTX (the requester context).
 * @HL_NIC_CONN_EV_MODIFY_RESET: MODIFY_CONN to RESET.
 * @HL_NIC_CONN_EV_MODIFY_ERR: MODIFY_CONN to ERR.
 * @HL_NIC_CONN_EV_FAIL: a transfer of its current epoch failed (link
 *	down, peer gone, fault, timeout), or a hard reset.
 */
enum hl_nic_conn_event {
	HL_NIC_CONN_EV_MODIFY_INIT,
	HL_NIC_CONN_EV_SET_RES,
	HL_NIC_CONN_EV_SET_REQ,
	HL_NIC_CONN_EV_MODIFY_RESET,
	HL_NIC_CONN_EV_MODIFY_ERR,
	HL_NIC_CONN_EV_FAIL,
};

/* The state machine itself: pure logic (KUnit: common/nic_kunit.c) */
int hl_nic_conn_next_state(enum hl_nic_conn_state from,
			   enum hl_nic_conn_event ev);

void hl_nic_ctx_init(struct hl_ctx *ctx);
void hl_nic_ctx_kill(struct hl_ctx *ctx);
void hl_nic_ctx_close(struct hl_ctx *ctx);
void hl_nic_ctx_fini(struct hl_ctx *ctx);
int hl_nic_ioctl(struct hl_fpriv *fpriv, void *data, struct hl_ioctl_call *call);
int hl_nic_op(struct hl_ctx *ctx, const struct hl_nic_in *in,
	      struct hl_nic_out *out);
int hl_nic_info_ports(struct hl_device *hdev, struct hl_info_nic_ports *info);

/* nic.c: for the memory regions (nic_mr.c) */
struct hl_nic_conn *hl_nic_conn_get(struct hl_ctx *ctx, u32 id);
void hl_nic_conn_put(struct hl_nic_conn *conn);
bool hl_nic_conn_is_qp(struct hl_nic_conn *conn, const void *qp);

#endif /* HL_NIC_H_ */

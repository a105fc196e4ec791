/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: NIC connections and completion queues. The core
 * (common/nic.c) owns them: the ioctl, the QP state machine (states,
 * epochs, PSNs, the work queues), CQs and their entries, teardown. An ASIC
 * backend that runs the data path (emu/emu_nic.c) owns only the wire: it
 * moves the bytes and tells the core what happened through the calls at
 * the end of this file, which take the core's locks themselves. Of a
 * connection the backend reads only @id and @port (fixed at allocation);
 * of a work request what it filled in and the buffer it is given.
 *
 * Objects and lifetimes:
 *   - struct hl_nic_ctx: a context's connections and CQs, created and
 *     released with the context. Its xarrays hold one reference on each
 *     object; closing the compute node empties them (hl_nic_ctx_close()).
 *   - struct hl_nic_conn: refcounted; the data path holds a reference while
 *     a packet works on it. It does not hold its context: whoever uses
 *     conn->ctx holds a context reference (a job's CS, or the reference
 *     hl_nic_conn_get_remote() takes).
 *   - struct hl_nic_cq: refcounted; a connection context that names it holds
 *     a reference and counts in @users (CQ_DESTROY is -EBUSY while users),
 *     and so does every work request in flight that will report to it.
 *
 * Owners: a connection ID carries the generation of its context (the
 * owner of the device), which no later owner gets again soon
 * (HL_NIC_CONN_ID_GEN()); matching compares whole IDs, so a later owner's
 * connection never matches one set up for an earlier owner's. When a
 * context goes (close, hard reset, unbind: hl_nic_ctx_kill()), the fabric
 * stops reaching it, its CQ waiters leave, and every connection of a peer
 * device that names one of its connections moves to ERR.
 *
 * Epochs: every move of a connection to ERR or RESET, and its destruction,
 * bumps hl_nic_conn.epoch. Work records the epoch it was posted in; work
 * whose epoch is no longer the connection's is flushed
 * (HL_NIC_CQE_STATUS_FLUSHED), so work started before a reset never runs
 * on the connection set up after it.
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
 * enum hl_nic_wr_state - where a posted receive is.
 * @HL_NIC_WR_POSTED: on its connection's receive queue, waiting.
 * @HL_NIC_WR_ACTIVE: taken by a sender, which is filling it; only that
 *	sender completes it.
 * @HL_NIC_WR_DONE: completed; the poster owns it again.
 */
enum hl_nic_wr_state {
	HL_NIC_WR_POSTED,
	HL_NIC_WR_ACTIVE,
	HL_NIC_WR_DONE,
};

/*
 * Not a completion status: the data-path call cannot go on yet (a wait,
 * then a new try)
 */
#define HL_NIC_WR_AGAIN		U32_MAX

/**
 * struct hl_nic_wr - a posted receive (an HL_PKT_NIC_RECV in progress),
 * from hl_nic_recv_post() to hl_nic_recv_finish().
 * @addr: device virtual address of the buffer (the receiver's context);
 *	set by the backend before posting.
 * @size: bytes of the buffer; set by the backend.
 * @wr_id: the user's tag; set by the backend.
 * @queue_id: the queue that posted it (for the fault record); set by the
 *	backend.
 * @conn: the connection it is posted on; the poster holds a reference.
 * @cq: the connection's receive CQ at posting, with a reference, or NULL.
 * @node: in hl_nic_conn.rq while POSTED.
 * @epoch: the connection's epoch when posted.
 * @state: enum hl_nic_wr_state, under the connection's lock.
 * @status: HL_NIC_CQE_STATUS_* once DONE.
 * @byte_len: bytes that landed, once DONE.
 * @psn: PSN of the message's first packet, once DONE.
 * @opcode: the CQE's opcode: RECV, or RECV_RDMA_WITH_IMM once a WRITE_IMM
 *	took it.
 * @imm_data: the WRITE_IMM's immediate value, once DONE.
 */
struct hl_nic_wr {
	u64 addr;
	u64 size;
	u64 wr_id;
	u32 queue_id;
	struct hl_nic_conn *conn;
	struct hl_nic_cq *cq;
	struct list_head node;
	u32 epoch;
	enum hl_nic_wr_state state;
	u32 status;
	u64 byte_len;
	u32 psn;
	u32 opcode;
	u32 imm_data;
};

/**
 * enum hl_nic_xfer_kind - what a requester's work is.
 * @HL_NIC_XFER_SEND: a message into the peer's oldest posted receive.
 * @HL_NIC_XFER_WRITE: a one-sided write into a region of the peer's; no
 *	receive is taken.
 * @HL_NIC_XFER_WRITE_IMM: a one-sided write that then completes the peer's
 *	oldest posted receive with an immediate value.
 */
enum hl_nic_xfer_kind {
	HL_NIC_XFER_SEND,
	HL_NIC_XFER_WRITE,
	HL_NIC_XFER_WRITE_IMM,
};

/**
 * struct hl_nic_send - a send in progress (an HL_PKT_NIC_SEND), from
 * hl_nic_send_begin() to hl_nic_send_finish(). The core fills it; the
 * backend reads @remote_conn_id and, once matched, @wr's @addr, @size and
 * @queue_id.
 * @conn: the sending connection; the sender holds a reference.
 * @cq: the connection's send CQ at admission, with a reference, or NULL.
 * @size: bytes of the message.
 * @wr_id: the user's tag.
 * @kind: enum hl_nic_xfer_kind.
 * @imm_data: WRITE_IMM's immediate value.
 * @admitted: @conn counted the send in its sq_posted.
 * @epoch: @conn's epoch at admission.
 * @remote_conn_id: the peer connection, at admission.
 * @mtu: @conn's MTU, at admission.
 * @npkts: packets of the message: ceil(@size / @mtu), at least 1.
 * @tx_held: the send holds @conn's tx_busy (its turn on the wire).
 * @psn: PSN of the first packet, once it holds the wire.
 * @rconn: the peer connection, once matched; the sender holds a reference
 *	until hl_nic_send_finish().
 * @wr: the peer's receive, ACTIVE, once matched (none for a WRITE).
 * @r_epoch: @rconn's epoch when @wr was taken.
 */
struct hl_nic_send {
	struct hl_nic_conn *conn;
	struct hl_nic_cq *cq;
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
	struct hl_nic_conn *rconn;
	struct hl_nic_wr *wr;
	u32 r_epoch;
};

/**
 * struct hl_nic_conn - a connection (a reliable-connected queue pair).
 * @refcount: the context's xarray holds one; the data path one per use.
 * @ctx: the owning context (not counted; see the file comment).
 * @id: connection ID: the context's generation and a slot (uAPI
 *	HL_NIC_CONN_ID_GEN(), HL_NIC_CONN_ID_SLOT()).
 * @port: the port it is bound to.
 * @lock: Protects every field below.
 * @state: enum hl_nic_conn_state.
 * @epoch: bumped by every move to ERR or RESET and by destruction.
 * @flush_status: what work of an older epoch completes with: FLUSHED, or
 *	REMOTE_ERR (LINK_DOWN) when the last bump was the peer's owner going
 *	away (the peer device being removed).
 * @destroyed: DESTROY_CONN or the context's close.
 * @remote_addr: the peer port's address (RTR and later).
 * @remote_conn_id: the peer connection (RTR and later).
 * @sq_psn: PSN of the next packet sent.
 * @rq_psn: PSN expected in the next packet received.
 * @mtu: largest packet payload (RTS).
 * @sq_size: sends outstanding at most (RTS).
 * @rq_size: receives posted at most (RTR and later).
 * @sq_posted: sends outstanding (any epoch).
 * @rq_posted: receives posted and not completed (any epoch).
 * @tx_busy: a sender is on the wire: one message at a time, in PSN order.
 * @send_cq: CQ of the send completions, counted in its users, or NULL.
 * @recv_cq: CQ of the receive completions, counted in its users, or NULL.
 * @rq: posted receives (struct hl_nic_wr.node), oldest first.
 * @wq: woken on every change of the fields above: receivers wait for
 *	their receive, senders for their turn and for a posted receive.
 */
struct hl_nic_conn {
	struct kref refcount;
	struct hl_ctx *ctx;
	u32 id;
	u32 port;
	spinlock_t lock; /* Protects: everything below */
	enum hl_nic_conn_state state;
	u32 epoch;
	u32 flush_status;
	bool destroyed;
	u64 remote_addr;
	u32 remote_conn_id;
	u32 sq_psn;
	u32 rq_psn;
	u32 mtu;
	u32 sq_size;
	u32 rq_size;
	u32 sq_posted;
	u32 rq_posted;
	bool tx_busy;
	struct hl_nic_cq *send_cq;
	struct hl_nic_cq *recv_cq;
	struct list_head rq;
	wait_queue_head_t wq;
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
bool hl_nic_conn_takes_sends(enum hl_nic_conn_state state);
bool hl_nic_conn_takes_recvs(enum hl_nic_conn_state state);

void hl_nic_ctx_init(struct hl_ctx *ctx);
void hl_nic_ctx_kill(struct hl_ctx *ctx);
void hl_nic_ctx_close(struct hl_ctx *ctx);
void hl_nic_ctx_fini(struct hl_ctx *ctx);
int hl_nic_ioctl(struct hl_fpriv *fpriv, void *data, struct hl_ioctl_call *call);
int hl_nic_info_ports(struct hl_device *hdev, struct hl_info_nic_ports *info);

/*
 * nic.c: for the backends' data path. Statuses are HL_NIC_CQE_STATUS_*,
 * or HL_NIC_WR_AGAIN; the wait calls sleep at most @timeout jiffies.
 */
struct hl_nic_conn *hl_nic_conn_get(struct hl_ctx *ctx, u32 id);
struct hl_nic_conn *hl_nic_conn_get_remote(struct hl_device *hdev, u32 id,
					   struct hl_ctx **ctx);
void hl_nic_conn_put(struct hl_nic_conn *conn);

u32 hl_nic_send_begin(struct hl_nic_send *s, struct hl_nic_conn *conn,
		      u64 size, u64 wr_id, enum hl_nic_xfer_kind kind,
		      u32 imm_data);
bool hl_nic_send_flushed(const struct hl_nic_send *s);
u32 hl_nic_send_flush_status(const struct hl_nic_send *s);
void hl_nic_send_wait(const struct hl_nic_send *s, long timeout);
u32 hl_nic_send_take_turn(struct hl_nic_send *s);
void hl_nic_send_wait_turn(const struct hl_nic_send *s, long timeout);
u32 hl_nic_send_match(struct hl_nic_send *s, struct hl_nic_conn *rconn,
		      u32 port, u64 src_addr);
void hl_nic_send_wait_recv(const struct hl_nic_send *s,
			   struct hl_nic_conn *rconn, long timeout);
bool hl_nic_send_peer_flushed(const struct hl_nic_send *s);
void hl_nic_send_finish(struct hl_nic_send *s, u32 status, u64 byte_len);

u32 hl_nic_recv_post(struct hl_nic_wr *wr, struct hl_nic_conn *conn);
bool hl_nic_recv_flushed(const struct hl_nic_wr *wr);
void hl_nic_recv_wait(const struct hl_nic_wr *wr, long timeout);
bool hl_nic_recv_settle(struct hl_nic_wr *wr, u32 why, bool fail);
u32 hl_nic_recv_finish(struct hl_nic_wr *wr);

#endif /* HL_NIC_H_ */

// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: NIC memory regions (HL_NIC_OP_REG_MR, HL_NIC_OP_DEREG_MR).
 *
 * A region is a range of a context's device VA space, inside one of its
 * mappings, that one-sided work (HL_PKT_NIC_WRITE) names by a key: the
 * lkey for this context's own work, the rkey for the peer's. Work
 * addresses are in the region's iova space: VA translates to
 * (VA - iova) + addr, then through the owning context's MMU.
 *
 * The region holds its mapping: UNMAP of that mapping fails with -EBUSY
 * (and so does FREE of its allocation, which is mapped) until the region
 * is deregistered; the context's close deregisters its regions before its
 * mappings go (hl_ctx_teardown(): hl_nic_ctx_close() first), which covers
 * close, hard reset and unbind.
 *
 * Keys are 32 random bits each, looked up by value in the owning
 * context's tables (struct hl_nic_mr_keys), so that a key of one context
 * never names a region of another and nothing in a key comes from a
 * cursor or a slot shared with other contexts (nic_mr.h). A region with
 * remote access is bound to one connection; the responder's check
 * (hl_nic_mr_lookup_remote()) compares the connection the write came on,
 * and counts failures per requesting device (the backoff).
 *
 * Deregistration and the data path: a write looks the key up once, then
 * moves its bytes step by step, each step inside hl_nic_mr_access_begin()
 * and hl_nic_mr_access_end() (the region's rwsem for read, @revoked
 * checked under it; both regions of a WRITE at once, in the order of
 * their devices: hl_nic_mr_access_begin_pair()). Deregistration takes
 * the region out of the tables, then its rwsem for write to set @revoked:
 * it returns only after the step in flight, and no step starts after it.
 * So no byte lands in a region after its DEREG_MR returned.
 *
 * Locks (their place in the driver's lock order is in habanalabs.h):
 * hl_nic_ctx.mr_lock (a mutex) serialises a context's registrations and
 * guards its list and count; under it hl_ctx.mem_lock (the mapping's
 * region count) and the key tables' spinlock (hl_nic_mr_keys.lock), which
 * the data path takes with no other lock held. REG_MR looks its connection
 * up (hl_nic_ctx.lock) before it takes mr_lock; the data path takes the
 * connection's spinlock (hl_nic_conn_is_qp()) with no other lock held.
 * hl_nic_mr.rwsem is taken with no other lock held by deregistration, and
 * by the data path outside the engine's engine_access_rwsem.
 */

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/jiffies.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "habanalabs.h"
#include "context.h"
#include "debug.h"
#include "engine_access.h"
#include "events.h"
#include "fault.h"
#include "memory.h"
#include "nic.h"
#include "nic_mr.h"

#define HL_NIC_ACCESS_ALL	(HL_NIC_ACCESS_LOCAL_WRITE | \
				 HL_NIC_ACCESS_REMOTE_WRITE | \
				 HL_NIC_ACCESS_REMOTE_READ)
#define HL_NIC_ACCESS_REMOTE	(HL_NIC_ACCESS_REMOTE_WRITE | \
				 HL_NIC_ACCESS_REMOTE_READ)

/* Draws of a key that may collide before REG_MR gives up (-ENOSPC) */
#define HL_NIC_MR_KEY_TRIES	16

static_assert(HL_NIC_MR_MAX_PEERS >= HL_MAX_DEVICES);

/*
 * The lockdep classes of the regions' rwsem, by their device's index: a
 * WRITE's step holds two regions of two devices, in the devices' order
 */
static struct lock_class_key hl_nic_mr_keys[HL_MAX_DEVICES];

/**
 * hl_nic_mr_backoff_ms - how long a device that failed rkey checks is shut
 * out of a context.
 * @fails: its failed checks against the context so far, this one counted.
 *
 * Return: 0 for the first HL_NIC_RKEY_FREE_FAILS; then
 * HL_NIC_RKEY_BACKOFF_MIN_MS, doubling with each failure, at most
 * HL_NIC_RKEY_BACKOFF_MAX_MS (milliseconds).
 */
u32 hl_nic_mr_backoff_ms(u32 fails)
{
	u32 n;

	if (fails <= HL_NIC_RKEY_FREE_FAILS)
		return 0;
	n = fails - HL_NIC_RKEY_FREE_FAILS - 1;
	if (n >= 31 || (u64)HL_NIC_RKEY_BACKOFF_MIN_MS << n >
		       HL_NIC_RKEY_BACKOFF_MAX_MS)
		return HL_NIC_RKEY_BACKOFF_MAX_MS;
	return HL_NIC_RKEY_BACKOFF_MIN_MS << n;
}

/**
 * hl_nic_mr_check - whether work may use [@va, @va + @len) of a region.
 * @iova: the region's start.
 * @size: its bytes.
 * @access: its HL_NIC_ACCESS_* flags.
 * @need: the flags the work needs.
 * @va: the work's address (iova space).
 * @len: the work's bytes; 0 is inside when @va is in [@iova, @iova + @size].
 *
 * No sum is formed, so no address near 2^64 wraps into the region.
 *
 * Return: 0; -EACCES a flag of @need is missing; -ERANGE the range leaves
 * the region.
 */
int hl_nic_mr_check(u64 iova, u64 size, u32 access, u32 need, u64 va,
		    u64 len)
{
	if ((access & need) != need)
		return -EACCES;
	if (va < iova || va - iova > size || len > size - (va - iova))
		return -ERANGE;
	return 0;
}

static void hl_nic_mr_release(struct kref *ref)
{
	struct hl_nic_mr *mr = container_of(ref, struct hl_nic_mr, refcount);

	/* Here, not at deregistration: a lookup may still compare it */
	if (mr->conn)
		hl_nic_conn_put(mr->conn);
	kfree(mr);
}

/**
 * hl_nic_mr_put - drop a reference on a region.
 * @mr: the region.
 */
void hl_nic_mr_put(struct hl_nic_mr *mr)
{
	kref_put(&mr->refcount, hl_nic_mr_release);
}

/* Let go of the mapping the region held */
static void hl_nic_mr_unhold(struct hl_nic_mr *mr)
{
	struct hl_ctx *ctx = mr->ctx;

	mutex_lock(&ctx->mem_lock);
	mr->mapping->mrs--;
	mutex_unlock(&ctx->mem_lock);
}

/*
 * Revoke a region already out of the table: waits for the data path's
 * step in flight; none starts after.
 */
static void hl_nic_mr_revoke(struct hl_nic_mr *mr)
{
	if (hl_bug_injected(HL_INJECT_MR_NO_SYNC)) {
		/* The planted bug: the data path is not waited for */
		WRITE_ONCE(mr->revoked, true);
		return;
	}
	down_write(&mr->rwsem);
	mr->revoked = true;
	up_write(&mr->rwsem);
}

/*
 * Find the mapping of @ctx that holds [@addr, @addr + @size) and count the
 * region in it; -EINVAL when there is none
 */
static int hl_nic_mr_hold(struct hl_ctx *ctx, struct hl_nic_mr *mr)
{
	struct hl_vm_mapping *mapping;
	int rc = 0;

	mutex_lock(&ctx->mem_lock);
	mapping = hl_mem_find_mapping(ctx, mr->addr);
	if (!mapping || mr->addr < mapping->va ||
	    mr->size > mapping->size - (mr->addr - mapping->va)) {
		rc = -EINVAL;
	} else {
		mapping->mrs++;
		mr->mapping = mapping;
	}
	mutex_unlock(&ctx->mem_lock);
	return rc;
}

/**
 * hl_nic_mr_ctx_init - initialise a new context's key tables and guards.
 * @ctx: the context.
 */
void hl_nic_mr_ctx_init(struct hl_ctx *ctx)
{
	struct hl_nic_mr_keys *keys = &ctx->nic.mr_keys;

	spin_lock_init(&keys->lock);
	mutex_init(&keys->check_lock);
	hash_init(keys->lkeys);
	hash_init(keys->rkeys);
	memset(keys->guards, 0, sizeof(keys->guards));
}

/* The region of @keys whose key (lkey or rkey by @remote) is @key */
static struct hl_nic_mr *hl_nic_mr_find(struct hl_nic_mr_keys *keys,
					u32 key, bool remote)
{
	struct hl_nic_mr *mr;

	lockdep_assert_held(&keys->lock);

	if (remote) {
		hash_for_each_possible(keys->rkeys, mr, rnode, key)
			if (mr->rkey == key)
				return mr;
	} else {
		hash_for_each_possible(keys->lkeys, mr, lnode, key)
			if (mr->lkey == key)
				return mr;
	}
	return NULL;
}

/*
 * Draw the keys of @mr and put it in its context's tables: each key 32
 * random bits, not 0, drawn again while it collides with a live key of its
 * table (of this context only). -ENOSPC after HL_NIC_MR_KEY_TRIES
 * collisions in a row, which a table of at most HL_NIC_MAX_MRS keys makes
 * about (2^-22)^16.
 */
static int hl_nic_mr_publish(struct hl_nic_mr_keys *keys,
			     struct hl_nic_mr *mr)
{
	u32 lkey = 0, rkey = 0;
	int i;

	if (hl_should_fail(HL_FAULT_NIC))
		return -ENOMEM;
	spin_lock(&keys->lock);
	for (i = 0; i < HL_NIC_MR_KEY_TRIES && !lkey; i++) {
		lkey = get_random_u32();
		if (lkey && hl_nic_mr_find(keys, lkey, false))
			lkey = 0;
	}
	for (i = 0; i < HL_NIC_MR_KEY_TRIES && !rkey; i++) {
		rkey = get_random_u32();
		if (rkey && hl_nic_mr_find(keys, rkey, true))
			rkey = 0;
	}
	if (lkey && rkey) {
		mr->lkey = lkey;
		mr->rkey = rkey;
		hash_add(keys->lkeys, &mr->lnode, lkey);
		hash_add(keys->rkeys, &mr->rnode, rkey);
	}
	spin_unlock(&keys->lock);
	return lkey && rkey ? 0 : -ENOSPC;
}

/* Take @mr out of its context's tables */
static void hl_nic_mr_unpublish_locked(struct hl_nic_mr *mr)
{
	lockdep_assert_held(&mr->ctx->nic.mr_keys.lock);

	hash_del(&mr->lnode);
	hash_del(&mr->rnode);
}

/**
 * hl_nic_mr_reg - HL_NIC_OP_REG_MR.
 * @ctx: the context, inside its gate.
 * @in: the op's input.
 * @out: receives the keys.
 *
 * Return: 0 or -errno (struct hl_nic_args in the uAPI lists them).
 */
int hl_nic_mr_reg(struct hl_ctx *ctx, const struct hl_nic_reg_mr_in *in,
		  struct hl_nic_reg_mr_out *out)
{
	struct hl_nic_ctx *nic = &ctx->nic;
	struct hl_nic_conn *conn = NULL;
	struct hl_nic_mr *mr;
	int rc;

	if (!in->size || (in->access & ~HL_NIC_ACCESS_ALL) ||
	    ((in->access & HL_NIC_ACCESS_REMOTE_WRITE) &&
	     !(in->access & HL_NIC_ACCESS_LOCAL_WRITE)) ||
	    !in->conn_id != !(in->access & HL_NIC_ACCESS_REMOTE) ||
	    in->size - 1 > U64_MAX - in->iova ||
	    in->size - 1 > U64_MAX - in->addr)
		return -EINVAL;
	/* Remote access: a live connection of this context */
	if (in->conn_id) {
		conn = hl_nic_conn_get(ctx, in->conn_id);
		if (!conn)
			return -EINVAL;
	}

	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr) {
		rc = -ENOMEM;
		goto err_conn;
	}
	kref_init(&mr->refcount);
	init_rwsem(&mr->rwsem);
	/* By device, as the engine accesses (habanalabs.h) */
	lockdep_set_class(&mr->rwsem, &hl_nic_mr_keys[ctx->hdev->id]);
	mr->ctx = ctx;
	mr->conn = conn;
	mr->addr = in->addr;
	mr->size = in->size;
	mr->iova = in->iova;
	mr->access = in->access;

	mutex_lock(&nic->mr_lock);
	if (nic->num_mrs >= HL_NIC_MAX_MRS) {
		rc = -ENOSPC;
		goto err_unlock;
	}
	rc = hl_nic_mr_hold(ctx, mr);
	if (rc)
		goto err_unlock;
	rc = hl_nic_mr_publish(&nic->mr_keys, mr);
	if (rc)
		goto err_unhold;
	list_add_tail(&mr->node, &nic->mrs);
	nic->num_mrs++;
	mutex_unlock(&nic->mr_lock);

	out->lkey = mr->lkey;
	out->rkey = mr->rkey;
	return 0;

err_unhold:
	hl_nic_mr_unhold(mr);
err_unlock:
	mutex_unlock(&nic->mr_lock);
	kfree(mr);
err_conn:
	if (conn)
		hl_nic_conn_put(conn);
	return rc;
}

/* The region of @ctx whose lkey is @lkey, out of the tables; NULL if none */
static struct hl_nic_mr *hl_nic_mr_take(struct hl_ctx *ctx, u32 lkey)
{
	struct hl_nic_mr_keys *keys = &ctx->nic.mr_keys;
	struct hl_nic_mr *mr;

	lockdep_assert_held(&ctx->nic.mr_lock);

	spin_lock(&keys->lock);
	mr = lkey ? hl_nic_mr_find(keys, lkey, false) : NULL;
	if (mr)
		hl_nic_mr_unpublish_locked(mr);
	spin_unlock(&keys->lock);
	if (mr) {
		list_del_init(&mr->node);
		ctx->nic.num_mrs--;
	}
	return mr;
}

/* A region out of the tables and its context's list: revoke and free it */
static void hl_nic_mr_destroy(struct hl_nic_mr *mr)
{
	hl_nic_mr_revoke(mr);
	hl_nic_mr_unhold(mr);
	hl_nic_mr_put(mr);
}

/**
 * hl_nic_mr_dereg - HL_NIC_OP_DEREG_MR: on return no byte lands in the
 * region any more and its keys are stale.
 * @ctx: the context, inside its gate.
 * @in: the op's input.
 *
 * Return: 0, or -EINVAL when the lkey names no region of @ctx.
 */
int hl_nic_mr_dereg(struct hl_ctx *ctx, const struct hl_nic_dereg_mr_in *in)
{
	struct hl_nic_mr *mr;

	if (in->pad)
		return -EINVAL;

	mutex_lock(&ctx->nic.mr_lock);
	mr = hl_nic_mr_take(ctx, in->lkey);
	mutex_unlock(&ctx->nic.mr_lock);
	if (!mr)
		return -EINVAL;

	hl_nic_mr_destroy(mr);
	return 0;
}

/**
 * hl_nic_mr_ctx_close - deregister every region of a context (its close,
 * hard reset or unbind teardown), before its mappings go.
 * @ctx: the context. Idempotent.
 */
void hl_nic_mr_ctx_close(struct hl_ctx *ctx)
{
	struct hl_nic_ctx *nic = &ctx->nic;
	struct hl_nic_mr *mr, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&nic->mr_lock);
	spin_lock(&nic->mr_keys.lock);
	list_for_each_entry(mr, &nic->mrs, node)
		hl_nic_mr_unpublish_locked(mr);
	spin_unlock(&nic->mr_keys.lock);
	list_splice_init(&nic->mrs, &dead);
	nic->num_mrs = 0;
	mutex_unlock(&nic->mr_lock);

	list_for_each_entry_safe(mr, tmp, &dead, node) {
		list_del_init(&mr->node);
		hl_nic_mr_destroy(mr);
	}
}

/* The region of @ctx with key @key, with a reference; checked; or -errno */
static int hl_nic_mr_get_checked(struct hl_ctx *ctx, u32 key, bool remote,
				 u32 need, u64 va, u64 len,
				 struct hl_nic_mr **mr, u64 *dev_va)
{
	struct hl_nic_mr_keys *keys = &ctx->nic.mr_keys;
	struct hl_nic_mr *m;
	int rc;

	spin_lock(&keys->lock);
	m = key ? hl_nic_mr_find(keys, key, remote) : NULL;
	if (m)
		kref_get(&m->refcount);
	spin_unlock(&keys->lock);
	if (!m)
		return -ENOENT;

	rc = hl_nic_mr_check(m->iova, m->size, m->access, need, va, len);
	if (rc) {
		hl_nic_mr_put(m);
		return rc;
	}
	*dev_va = va - m->iova + m->addr;
	*mr = m;
	return 0;
}

/**
 * hl_nic_mr_lookup - the data path's check of an lkey, before any byte
 * moves.
 * @ctx: the work's own context (a reference held).
 * @lkey: the key.
 * @va: the work's address, in the region's iova space.
 * @len: the work's bytes.
 * @mr: receives the region, with a reference (hl_nic_mr_put()).
 * @dev_va: receives the device VA of @va: (@va - iova) + addr.
 *
 * Return: 0; -ENOENT @lkey names no live region of @ctx (unknown, stale,
 * another context's, an rkey); -ERANGE [@va, @va + @len) leaves the region.
 */
int hl_nic_mr_lookup(struct hl_ctx *ctx, u32 lkey, u64 va, u64 len,
		     struct hl_nic_mr **mr, u64 *dev_va)
{
	return hl_nic_mr_get_checked(ctx, lkey, false, 0, va, len, mr, dev_va);
}

/*
 * The guard of @from against @ctx: may a check run now? None before the
 * backoff ends; past the free failures one at a time: a check waits for
 * the one running (keys->check_lock, held until hl_nic_mr_guard_exit()),
 * so that the failure of the first sets the backoff the next sees, and a
 * right key that overlaps another check still lands.
 */
static bool hl_nic_mr_guard_enter(struct hl_nic_mr_keys *keys,
				  struct hl_nic_mr_guard *g, bool *held)
{
	bool ok = true;

	if (READ_ONCE(g->fails) >= HL_NIC_RKEY_FREE_FAILS) {
		mutex_lock(&keys->check_lock);
		*held = true;
	}
	spin_lock(&keys->lock);
	if (g->fails >= HL_NIC_RKEY_FREE_FAILS)
		ok = !time_before(jiffies, g->until);
	spin_unlock(&keys->lock);
	if (!ok && *held) {
		mutex_unlock(&keys->check_lock);
		*held = false;
	}
	return ok;
}

/* The check ran: count a failure and set the backoff; 0 or the backoff */
static u32 hl_nic_mr_guard_exit(struct hl_nic_mr_keys *keys,
				struct hl_nic_mr_guard *g, bool held,
				bool failed)
{
	u32 ms = 0;

	spin_lock(&keys->lock);
	if (failed) {
		if (g->fails < U32_MAX)
			WRITE_ONCE(g->fails, g->fails + 1);
		ms = hl_nic_mr_backoff_ms(g->fails);
		if (ms)
			g->until = jiffies + msecs_to_jiffies(ms);
	}
	spin_unlock(&keys->lock);
	if (held)
		mutex_unlock(&keys->check_lock);
	return ms;
}

/**
 * hl_nic_mr_lookup_remote - the responder's check of an rkey, before any
 * byte lands.
 * @ctx: the responder's context (the peer connection's owner); a reference
 *	is held.
 * @from: the requesting device (its ID indexes the guards).
 * @qp: the responder's QP context the write arrived on (the backend's, as
 *	asic_funcs->nic_qp_create() made it).
 * @rkey: the key.
 * @need: HL_NIC_ACCESS_* flags the work needs.
 * @va: the work's address, in the region's iova space.
 * @len: the work's bytes.
 * @mr: receives the region, with a reference (hl_nic_mr_put()).
 * @dev_va: receives the device VA of @va: (@va - iova) + addr.
 *
 * A failed check counts against @from: past HL_NIC_RKEY_FREE_FAILS its
 * next writes into @ctx are refused unchecked for a backoff, and @ctx's
 * device gets HL_NOTIFIER_EVENT_NIC_KEY_FAULT.
 *
 * Return: 0; -EAGAIN @from is backing off (nothing checked); -ENOENT @rkey
 * names no live region of @ctx; -EACCES the region is not bound to the
 * connection of @qp, or lacks a flag of @need; -ERANGE [@va, @va + @len)
 * leaves the region.
 */
int hl_nic_mr_lookup_remote(struct hl_ctx *ctx, struct hl_device *from,
			    const void *qp, u32 rkey, u32 need, u64 va, u64 len,
			    struct hl_nic_mr **mr, u64 *dev_va)
{
	struct hl_nic_mr_keys *keys = &ctx->nic.mr_keys;
	struct hl_nic_mr_guard *g;
	bool held = false;
	u32 ms;
	int rc;

	if (WARN_ON_ONCE(from->id >= HL_NIC_MR_MAX_PEERS))
		return -EAGAIN;
	g = &keys->guards[from->id];
	if (!hl_nic_mr_guard_enter(keys, g, &held))
		return -EAGAIN;

	rc = hl_nic_mr_get_checked(ctx, rkey, true, need, va, len, mr, dev_va);
	/* Only over the connection the region is for */
	if (!rc && !hl_bug_injected(HL_INJECT_MR_ANY_CONN) &&
	    (!(*mr)->conn || !hl_nic_conn_is_qp((*mr)->conn, qp))) {
		hl_nic_mr_put(*mr);
		*mr = NULL;
		rc = -EACCES;
	}

	ms = hl_nic_mr_guard_exit(keys, g, held, rc);
	if (rc) {
		hl_dbg(ctx->hdev, NIC,
		       "rkey check of device %u failed: %d; backoff %u ms\n",
		       from->id, rc, ms);
		hl_events_send(ctx->hdev, HL_NOTIFIER_EVENT_NIC_KEY_FAULT);
	}
	return rc;
}

/**
 * hl_nic_mr_access_begin - start a step that moves bytes into or out of a
 * region.
 * @mr: the region, with a reference.
 *
 * Sleeps while a deregistration is revoking it.
 *
 * Return: true to go on (end the step with hl_nic_mr_access_end());
 * false when the region was deregistered (nothing held).
 */
bool hl_nic_mr_access_begin(struct hl_nic_mr *mr)
{
	if (hl_bug_injected(HL_INJECT_MR_NO_SYNC))
		return true;
	down_read(&mr->rwsem);
	if (!mr->revoked)
		return true;
	up_read(&mr->rwsem);
	return false;
}

/**
 * hl_nic_mr_access_end - end a step begun by hl_nic_mr_access_begin().
 * @mr: the region.
 */
void hl_nic_mr_access_end(struct hl_nic_mr *mr)
{
	if (hl_bug_injected(HL_INJECT_MR_NO_SYNC))
		return;
	up_read(&mr->rwsem);
}

/**
 * hl_nic_mr_access_begin_pair - start a step of a WRITE, which moves bytes
 * from a region of its own device into a region of the peer's: both
 * regions' access sections, taken in the order of their devices
 * (hl_device_hw_before(), as the engine accesses), so that two WRITEs in
 * opposite directions never wait on each other's.
 * @local: the source region, with a reference.
 * @remote: the destination region, with a reference; @local again for a
 *	loopback into the same region (held once).
 *
 * Sleeps while a deregistration is revoking either.
 *
 * Return: 0 both are held (end the step with
 * hl_nic_mr_access_end_pair(@local, @remote)); -EACCES @local was
 * deregistered, nothing held (its refusal wins, as when a step took them
 * one after the other); -EREMOTEIO @remote was deregistered, @local is
 * held (end with hl_nic_mr_access_end_pair(@local, NULL)).
 */
int hl_nic_mr_access_begin_pair(struct hl_nic_mr *local,
				struct hl_nic_mr *remote)
{
	struct hl_nic_mr *first = local, *second = remote;

	if (local == remote)
		return hl_nic_mr_access_begin(local) ? 0 : -EACCES;
	if (hl_device_hw_before(remote->ctx->hdev, local->ctx->hdev))
		swap(first, second);

	if (!hl_nic_mr_access_begin(first)) {
		if (first == local || !hl_nic_mr_access_begin(local))
			return -EACCES;
		return -EREMOTEIO;
	}
	if (!hl_nic_mr_access_begin(second)) {
		if (second == remote)
			return -EREMOTEIO;
		hl_nic_mr_access_end(first);
		return -EACCES;
	}
	return 0;
}

/**
 * hl_nic_mr_access_end_pair - end a step begun by
 * hl_nic_mr_access_begin_pair().
 * @local: the source region.
 * @remote: the destination region when both were held, NULL when only
 *	@local was (-EREMOTEIO).
 */
void hl_nic_mr_access_end_pair(struct hl_nic_mr *local,
			       struct hl_nic_mr *remote)
{
	if (remote && remote != local)
		hl_nic_mr_access_end(remote);
	hl_nic_mr_access_end(local);
}

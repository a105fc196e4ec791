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
 * Keys are looked up in one driver-wide table (the slot in the key), so
 * that a key of one context never names a region of another (the region
 * records its context, and the lookup compares it and the whole key).
 *
 * Deregistration and the data path: a write looks the key up once, then
 * moves its bytes step by step, each step inside hl_nic_mr_access_begin()
 * and hl_nic_mr_access_end() (the region's rwsem for read, @revoked
 * checked under it). Deregistration takes the region out of the table,
 * then its rwsem for write to set @revoked: it returns only after the
 * step in flight, and no step starts after it. So no byte lands in a
 * region after its DEREG_MR returned.
 *
 * Locks (their place in the driver's lock order is in habanalabs.h):
 * hl_nic_ctx.mr_lock (a mutex) serialises a context's registrations and
 * guards its list and count; under it hl_ctx.mem_lock (the mapping's
 * region count) and the table's xarray spinlock. hl_nic_mr.rwsem is taken
 * with no other lock held by deregistration, and by the data path outside
 * the engine's engine_access_rwsem.
 */

#include <linux/bits.h>
#include <linux/once.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "habanalabs.h"
#include "context.h"
#include "debug.h"
#include "fault.h"
#include "memory.h"
#include "nic.h"
#include "nic_mr.h"

/* Bits of the index part of a key (bits 31..16) */
#define HL_NIC_MR_INDEX_MASK	(U32_MAX >> HL_NIC_MR_KEY_SHIFT)

#define HL_NIC_ACCESS_ALL	(HL_NIC_ACCESS_LOCAL_WRITE | \
				 HL_NIC_ACCESS_REMOTE_WRITE | \
				 HL_NIC_ACCESS_REMOTE_READ)

/*
 * The key table: every live region of the driver by slot. Its own
 * spinlock (xa_lock) protects the entries and the cursor @hl_nic_mr_next.
 * A slot is reserved (NULL) while its region is being set up, so lookups
 * never see a half-made region.
 */
static DEFINE_XARRAY_ALLOC1(hl_nic_mr_table);
static u32 hl_nic_mr_next = 1;

/*
 * The lockdep classes of the regions' rwsem, by their device's index: a
 * WRITE's step holds two regions of two devices, in the devices' order
 */
static struct lock_class_key hl_nic_mr_keys[HL_MAX_DEVICES];

/* Drawn once: the salts of lkeys' and rkeys' index parts */
static u32 hl_nic_mr_salt[2];

static void hl_nic_mr_init_once(void)
{
	get_random_once(hl_nic_mr_salt, sizeof(hl_nic_mr_salt));
}

static u32 hl_nic_mr_salt_of(bool remote)
{
	return hl_nic_mr_salt[remote] & HL_NIC_MR_INDEX_MASK;
}

/**
 * hl_nic_mr_key_make - a key: the slot mixed with a salt, and a tag.
 * @slot: the slot, 1 .. HL_NIC_MR_MAX_SLOT.
 * @tag: random bits drawn for this key alone; its low 16 bits are used.
 * @salt: the salt of the key's kind.
 *
 * Return: the key.
 */
u32 hl_nic_mr_key_make(u32 slot, u32 tag, u32 salt)
{
	return ((slot ^ salt) & HL_NIC_MR_INDEX_MASK) << HL_NIC_MR_KEY_SHIFT |
	       (tag & HL_NIC_MR_TAG_MASK);
}

/**
 * hl_nic_mr_key_slot - the slot a key names.
 * @key: the key.
 * @salt: the salt of the key's kind.
 *
 * Return: the slot; a key not made by hl_nic_mr_key_make() gives any
 * number, which the caller checks against the table.
 */
u32 hl_nic_mr_key_slot(u32 key, u32 salt)
{
	return ((key >> HL_NIC_MR_KEY_SHIFT) ^ salt) & HL_NIC_MR_INDEX_MASK;
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
	kfree(container_of(ref, struct hl_nic_mr, refcount));
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

/* Reserve a slot; its generation in *@gen */
static int hl_nic_mr_slot_alloc(u32 *slot)
{
	int rc;

	if (hl_should_fail(HL_FAULT_NIC))
		return -ENOMEM;
	xa_lock(&hl_nic_mr_table);
	rc = __xa_alloc_cyclic(&hl_nic_mr_table, slot, NULL,
			       XA_LIMIT(1, HL_NIC_MR_MAX_SLOT), &hl_nic_mr_next,
			       GFP_KERNEL_ACCOUNT);
	xa_unlock(&hl_nic_mr_table);
	/* Every slot taken: as many regions as the context limit allows */
	return rc == -EBUSY ? -ENOSPC : min(rc, 0);
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
	struct hl_nic_mr *mr;
	u32 slot;
	int rc;

	if (in->pad || !in->size || (in->access & ~HL_NIC_ACCESS_ALL) ||
	    ((in->access & HL_NIC_ACCESS_REMOTE_WRITE) &&
	     !(in->access & HL_NIC_ACCESS_LOCAL_WRITE)) ||
	    in->size - 1 > U64_MAX - in->iova ||
	    in->size - 1 > U64_MAX - in->addr)
		return -EINVAL;
	hl_nic_mr_init_once();

	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return -ENOMEM;
	kref_init(&mr->refcount);
	init_rwsem(&mr->rwsem);
	/* By device, as the engine accesses (habanalabs.h) */
	lockdep_set_class(&mr->rwsem, &hl_nic_mr_keys[ctx->hdev->id]);
	mr->ctx = ctx;
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
	rc = hl_nic_mr_slot_alloc(&slot);
	if (rc)
		goto err_unhold;

	/* Each key's tag drawn on its own: no key tells another */
	mr->slot = slot;
	mr->lkey = hl_nic_mr_key_make(slot, get_random_u16(),
				      hl_nic_mr_salt_of(false));
	mr->rkey = hl_nic_mr_key_make(slot, get_random_u16(),
				      hl_nic_mr_salt_of(true));
	/* The slot is reserved: storing into it allocates nothing */
	xa_store(&hl_nic_mr_table, slot, mr, GFP_KERNEL_ACCOUNT);
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
	return rc;
}

/* The region of @ctx whose lkey is @lkey, out of the table; NULL if none */
static struct hl_nic_mr *hl_nic_mr_take(struct hl_ctx *ctx, u32 lkey)
{
	struct hl_nic_mr *mr;
	u32 slot;

	lockdep_assert_held(&ctx->nic.mr_lock);

	slot = hl_nic_mr_key_slot(lkey, hl_nic_mr_salt_of(false));
	if (!slot || slot > HL_NIC_MR_MAX_SLOT)
		return NULL;
	xa_lock(&hl_nic_mr_table);
	mr = xa_load(&hl_nic_mr_table, slot);
	if (mr && (mr->ctx != ctx || mr->lkey != lkey))
		mr = NULL;
	if (mr)
		__xa_erase(&hl_nic_mr_table, slot);
	xa_unlock(&hl_nic_mr_table);
	if (mr) {
		list_del_init(&mr->node);
		ctx->nic.num_mrs--;
	}
	return mr;
}

/* A region out of the table and its context's list: revoke and free it */
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
	hl_nic_mr_init_once();

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
	xa_lock(&hl_nic_mr_table);
	list_for_each_entry(mr, &nic->mrs, node)
		__xa_erase(&hl_nic_mr_table, mr->slot);
	xa_unlock(&hl_nic_mr_table);
	list_splice_init(&nic->mrs, &dead);
	nic->num_mrs = 0;
	mutex_unlock(&nic->mr_lock);

	list_for_each_entry_safe(mr, tmp, &dead, node) {
		list_del_init(&mr->node);
		hl_nic_mr_destroy(mr);
	}
}

/**
 * hl_nic_mr_lookup - the data path's check of a key, before any byte
 * moves.
 * @ctx: the context the key must belong to (the work's own for an lkey,
 *	the peer connection's owner for an rkey); a reference is held.
 * @key: the key.
 * @remote: @key is an rkey, else an lkey.
 * @need: HL_NIC_ACCESS_* flags the work needs.
 * @va: the work's address, in the region's iova space.
 * @len: the work's bytes.
 * @mr: receives the region, with a reference (hl_nic_mr_put()).
 * @dev_va: receives the device VA of @va: (@va - iova) + addr.
 *
 * Return: 0; -ENOENT @key names no live region of @ctx (unknown, stale,
 * another context's, the other kind); -EACCES the region lacks a flag of
 * @need; -ERANGE [@va, @va + @len) leaves the region.
 */
int hl_nic_mr_lookup(struct hl_ctx *ctx, u32 key, bool remote, u32 need,
		     u64 va, u64 len, struct hl_nic_mr **mr, u64 *dev_va)
{
	struct hl_nic_mr *m;
	u32 slot;
	int rc;

	hl_nic_mr_init_once();
	slot = hl_nic_mr_key_slot(key, hl_nic_mr_salt_of(remote));
	if (!slot || slot > HL_NIC_MR_MAX_SLOT)
		return -ENOENT;

	xa_lock(&hl_nic_mr_table);
	m = xa_load(&hl_nic_mr_table, slot);
	if (m && (m->ctx != ctx || (remote ? m->rkey : m->lkey) != key))
		m = NULL;
	if (m)
		kref_get(&m->refcount);
	xa_unlock(&hl_nic_mr_table);
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

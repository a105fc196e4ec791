// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: the device page tables (format in mmu.h, geometry in
 * asic_prop.mmu).
 *
 * The tables live in HBM and are written through asic_funcs->write_pte.
 * The driver never reads them back to find its own tables: each context
 * keeps, in ctx->mmu_hops, the HBM address of every hop table it owns with
 * the number of present PTEs in it, so that teardown works without the
 * hardware (after removal) and tables are freed when their last PTE goes.
 *
 * A table whose last PTE was cleared is unlinked from its parent at once
 * but only given back to the pool by hl_mmu_invalidate(), after the device
 * TLBs were invalidated and in-flight engine accesses drained: an engine
 * that walked through it before the unlink never sees it reused.
 */

#include <linux/genalloc.h>
#include <linux/io.h>
#include <linux/log2.h>
#include <linux/xarray.h>

#include "habanalabs.h"
#include "context.h"
#include "device.h"
#include "engine_access.h"
#include "fault.h"
#include "mmu.h"

/* ctx->mmu_hops: a table unlinked and waiting for hl_mmu_invalidate() */
#define HL_MMU_HOP_ZOMBIE	XA_MARK_0

static const struct hl_mmu_properties *hl_mmu_props(struct hl_ctx *ctx)
{
	return &ctx->hdev->asic_prop.mmu;
}

static u64 hl_mmu_pte_addr(const struct hl_mmu_properties *mmu, u64 hop_addr,
			   u64 va, int hop)
{
	return hop_addr + hl_mmu_hop_index(mmu, va, hop) * sizeof(u64);
}

/* ctx->mmu_hops keys: hop tables are aligned to their size */
static unsigned long hl_mmu_hop_key(struct hl_ctx *ctx, u64 hop_addr)
{
	return hop_addr >> ilog2(hl_mmu_props(ctx)->hop_table_size);
}

static u64 hl_mmu_hop_key_addr(struct hl_ctx *ctx, unsigned long key)
{
	return (u64)key << ilog2(hl_mmu_props(ctx)->hop_table_size);
}

/*
 * The hop helpers below read or change the page tables or ctx->mmu_hops:
 * each is called with hdev->mmu_lock held, and asserts it.
 */
static int hl_mmu_hop_count(struct hl_ctx *ctx, u64 hop_addr)
{
	void *entry;

	lockdep_assert_held(&ctx->hdev->mmu_lock);
	entry = xa_load(&ctx->mmu_hops, hl_mmu_hop_key(ctx, hop_addr));

	return entry ? xa_to_value(entry) : 0;
}

static void hl_mmu_hop_set_count(struct hl_ctx *ctx, u64 hop_addr, int count)
{
	lockdep_assert_held(&ctx->hdev->mmu_lock);
	/* The entry exists: storing a value in place does not allocate */
	xa_store(&ctx->mmu_hops, hl_mmu_hop_key(ctx, hop_addr),
		 xa_mk_value(count), GFP_KERNEL);
}

static void hl_mmu_clear_table(struct hl_device *hdev, u64 hop_addr)
{
	u32 off;

	lockdep_assert_held(&hdev->mmu_lock);
	for (off = 0; off < hdev->asic_prop.mmu.hop_table_size;
	     off += sizeof(u64))
		hdev->asic_funcs->write_pte(hdev, hop_addr + off, 0);
}

/* A zeroed hop table, tracked with count 0; 0 when the pool is empty */
static u64 hl_mmu_alloc_hop(struct hl_ctx *ctx)
{
	struct hl_device *hdev = ctx->hdev;
	u32 size = hl_mmu_props(ctx)->hop_table_size;
	u64 addr;

	lockdep_assert_held(&hdev->mmu_lock);
	addr = hl_should_fail(HL_FAULT_MMU) ? 0 :
	       gen_pool_alloc(hdev->mmu_pgt_pool, size);
	if (!addr)
		return 0;
	if (xa_err(xa_store(&ctx->mmu_hops, hl_mmu_hop_key(ctx, addr),
			    xa_mk_value(0), GFP_KERNEL))) {
		gen_pool_free(hdev->mmu_pgt_pool, addr, size);
		return 0;
	}
	hl_mmu_clear_table(hdev, addr);
	return addr;
}

static void hl_mmu_free_hop(struct hl_ctx *ctx, u64 hop_addr)
{
	lockdep_assert_held(&ctx->hdev->mmu_lock);
	xa_erase(&ctx->mmu_hops, hl_mmu_hop_key(ctx, hop_addr));
	gen_pool_free(ctx->hdev->mmu_pgt_pool, hop_addr,
		      hl_mmu_props(ctx)->hop_table_size);
}

/* The hop whose leaves map pages of @page_size bytes, or -EINVAL */
static int hl_mmu_leaf_hop(const struct hl_mmu_properties *mmu, u64 page_size)
{
	u32 hop;

	for (hop = 0; hop < mmu->num_hops; hop++)
		if ((mmu->leaf_hops & BIT(hop)) &&
		    BIT_ULL(mmu->hop_shifts[hop]) == page_size)
			return hop;
	return -EINVAL;
}

/**
 * hl_mmu_map_page - map one page in a context's page tables.
 * @ctx: the context.
 * @va: device virtual address, aligned to @page_size.
 * @pa: HBM device physical address, or host DMA address when @host.
 * @page_size: the page size of a leaf hop (asic_prop.mmu.leaf_hops).
 * @host: @pa is a host DMA address.
 *
 * New hop tables are linked into their parents only after everything below
 * them is written. The caller invalidates (hl_mmu_invalidate()) after a
 * batch of maps.
 *
 * Return: 0, -EEXIST when something already maps (part of) the page,
 * -ENOMEM when the page-table area is full, -EINVAL on a bad size or
 * alignment.
 */
int hl_mmu_map_page(struct hl_ctx *ctx, u64 va, u64 pa, u64 page_size,
		    bool host)
{
	struct hl_device *hdev = ctx->hdev;
	const struct hl_asic_funcs *funcs = hdev->asic_funcs;
	const struct hl_mmu_properties *mmu = hl_mmu_props(ctx);
	u64 tables[HL_MMU_MAX_HOPS] = {};
	bool is_new[HL_MMU_MAX_HOPS] = {};
	int leaf = hl_mmu_leaf_hop(mmu, page_size);
	u64 pte, pte_addr;
	int hop, rc;

	if (leaf < 0 || !IS_ALIGNED(va | pa, page_size) || va >> mmu->va_bits)
		return -EINVAL;

	mutex_lock(&hdev->mmu_lock);

	tables[0] = hl_mmu_hop0_addr(mmu, hdev->asic_prop.mmu_pgt_addr,
				     ctx->asid);
	for (hop = 0; hop < leaf; hop++) {
		pte = is_new[hop] ? 0 :
		      funcs->read_pte(hdev, hl_mmu_pte_addr(mmu, tables[hop],
							    va, hop));
		if (pte & HL_PTE_PRESENT) {
			if (pte & HL_PTE_LAST) {
				rc = -EEXIST;
				goto err_free_new;
			}
			tables[hop + 1] = pte & HL_PTE_ADDR_MASK;
			continue;
		}
		tables[hop + 1] = hl_mmu_alloc_hop(ctx);
		if (!tables[hop + 1]) {
			rc = -ENOMEM;
			goto err_free_new;
		}
		is_new[hop + 1] = true;
	}

	pte_addr = hl_mmu_pte_addr(mmu, tables[leaf], va, leaf);
	if (!is_new[leaf] && (funcs->read_pte(hdev, pte_addr) & HL_PTE_PRESENT)) {
		rc = -EEXIST;
		goto err_free_new;
	}

	/* The leaf first, then link new tables bottom-up */
	funcs->write_pte(hdev, pte_addr, pa | HL_PTE_PRESENT | HL_PTE_LAST |
			 (host ? HL_PTE_HOST : 0));
	hl_mmu_hop_set_count(ctx, tables[leaf],
			     hl_mmu_hop_count(ctx, tables[leaf]) + 1);
	for (hop = leaf - 1; hop >= 0; hop--) {
		if (!is_new[hop + 1])
			break;
		funcs->write_pte(hdev, hl_mmu_pte_addr(mmu, tables[hop], va,
						       hop),
				 tables[hop + 1] | HL_PTE_PRESENT);
		hl_mmu_hop_set_count(ctx, tables[hop],
				     hl_mmu_hop_count(ctx, tables[hop]) + 1);
	}

	mutex_unlock(&hdev->mmu_lock);
	return 0;

err_free_new:
	for (hop = 1; hop <= leaf; hop++)
		if (is_new[hop])
			hl_mmu_free_hop(ctx, tables[hop]);
	mutex_unlock(&hdev->mmu_lock);
	return rc;
}

/**
 * hl_mmu_unmap_page - unmap one page from a context's page tables.
 * @ctx: the context.
 * @va: device virtual address of the page.
 * @page_size: the size it was mapped with.
 *
 * Hop tables left empty are unlinked and freed by the next
 * hl_mmu_invalidate(), which the caller must call before releasing the
 * page.
 *
 * Return: 0, or -EINVAL when the page is not mapped with that size.
 */
int hl_mmu_unmap_page(struct hl_ctx *ctx, u64 va, u64 page_size)
{
	struct hl_device *hdev = ctx->hdev;
	const struct hl_asic_funcs *funcs = hdev->asic_funcs;
	const struct hl_mmu_properties *mmu = hl_mmu_props(ctx);
	u64 tables[HL_MMU_MAX_HOPS];
	int leaf = hl_mmu_leaf_hop(mmu, page_size);
	int hop, count, rc = 0;
	u64 pte;

	if (leaf < 0)
		return -EINVAL;

	mutex_lock(&hdev->mmu_lock);

	tables[0] = hl_mmu_hop0_addr(mmu, hdev->asic_prop.mmu_pgt_addr,
				     ctx->asid);
	for (hop = 0; hop < leaf; hop++) {
		pte = funcs->read_pte(hdev, hl_mmu_pte_addr(mmu, tables[hop],
							    va, hop));
		if ((pte & (HL_PTE_PRESENT | HL_PTE_LAST)) != HL_PTE_PRESENT) {
			rc = -EINVAL;
			goto out_unlock;
		}
		tables[hop + 1] = pte & HL_PTE_ADDR_MASK;
	}
	pte = funcs->read_pte(hdev, hl_mmu_pte_addr(mmu, tables[leaf], va,
						    leaf));
	if (!(pte & HL_PTE_PRESENT) || !(pte & HL_PTE_LAST)) {
		rc = -EINVAL;
		goto out_unlock;
	}

	funcs->write_pte(hdev, hl_mmu_pte_addr(mmu, tables[leaf], va, leaf), 0);
	for (hop = leaf; hop > 0; hop--) {
		count = hl_mmu_hop_count(ctx, tables[hop]) - 1;
		hl_mmu_hop_set_count(ctx, tables[hop], count);
		if (count)
			break;
		/*
		 * Empty: unlink it, free it after the next invalidation that
		 * begins after this unlink (a zombie's value is its unlink
		 * generation; the entry exists, so the store does not
		 * allocate).
		 */
		funcs->write_pte(hdev, hl_mmu_pte_addr(mmu, tables[hop - 1], va,
						       hop - 1), 0);
		xa_store(&ctx->mmu_hops, hl_mmu_hop_key(ctx, tables[hop]),
			 xa_mk_value(hdev->mmu_unlink_gen), GFP_KERNEL);
		xa_set_mark(&ctx->mmu_hops, hl_mmu_hop_key(ctx, tables[hop]),
			    HL_MMU_HOP_ZOMBIE);
	}
	if (!hop)
		hl_mmu_hop_set_count(ctx, tables[0],
				     hl_mmu_hop_count(ctx, tables[0]) - 1);

out_unlock:
	mutex_unlock(&hdev->mmu_lock);
	return rc;
}

static void hl_mmu_invalidate_cache(struct hl_device *hdev, u32 asid)
{
	if (hdev->asic_funcs->mmu_invalidate_cache)
		hdev->asic_funcs->mmu_invalidate_cache(hdev, asid);
}

/* Wait until no engine access that may have used an old translation runs */
static void hl_mmu_drain_engine_accesses(struct hl_device *hdev)
{
	hl_device_hw_quiesce(hdev);
}

/**
 * hl_mmu_invalidate - make page-table changes visible to the device.
 * @ctx: the context whose tables changed.
 *
 * Invalidates the device TLBs for the context, waits for engine accesses
 * that may still use an old translation, then frees the hop tables that
 * unmaps left empty. After it returns, pages unmapped before the call may
 * be released.
 */
void hl_mmu_invalidate(struct hl_ctx *ctx)
{
	struct hl_device *hdev = ctx->hdev;
	unsigned long key;
	void *entry;
	u64 gen;

	/*
	 * Only tables unlinked before this point may be freed below: one
	 * that another thread unlinks after the drain may still be walked
	 * by an engine that read its parent PTE before the unlink.
	 */
	mutex_lock(&hdev->mmu_lock);
	gen = hdev->mmu_unlink_gen++;
	mutex_unlock(&hdev->mmu_lock);

	hl_mmu_invalidate_cache(hdev, ctx->asid);
	hl_mmu_drain_engine_accesses(hdev);

	mutex_lock(&hdev->mmu_lock);
	xa_for_each_marked(&ctx->mmu_hops, key, entry, HL_MMU_HOP_ZOMBIE)
		if (xa_to_value(entry) <= gen)
			hl_mmu_free_hop(ctx, hl_mmu_hop_key_addr(ctx, key));
	mutex_unlock(&hdev->mmu_lock);
}

/**
 * hl_mmu_ctx_init - give a context an ASID and an empty hop0 table.
 * @ctx: the context.
 *
 * Return: 0, or -EBUSY when every ASID is in use.
 */
int hl_mmu_ctx_init(struct hl_ctx *ctx)
{
	struct hl_device *hdev = ctx->hdev;
	const struct hl_mmu_properties *mmu = hl_mmu_props(ctx);
	u64 hop0;
	int rc;

	xa_init(&ctx->mmu_hops);
	rc = hl_should_fail(HL_FAULT_MMU) ? -ENOSPC :
	     ida_alloc_range(&hdev->asid_ida, 1, mmu->max_asid - 1, GFP_KERNEL);
	if (rc < 0)
		return rc == -ENOSPC ? -EBUSY : rc;
	ctx->asid = rc;

	hop0 = hl_mmu_hop0_addr(mmu, hdev->asic_prop.mmu_pgt_addr, ctx->asid);
	rc = xa_err(xa_store(&ctx->mmu_hops, hl_mmu_hop_key(ctx, hop0),
			     xa_mk_value(0), GFP_KERNEL));
	if (rc)
		goto err_free_asid;

	mutex_lock(&hdev->mmu_lock);
	hl_mmu_clear_table(hdev, hop0);
	mutex_unlock(&hdev->mmu_lock);
	/* A previous owner of the ASID may have left translations cached */
	hl_mmu_invalidate_cache(hdev, ctx->asid);
	return 0;

err_free_asid:
	ida_free(&hdev->asid_ida, ctx->asid);
	return rc;
}

/**
 * hl_mmu_ctx_fini - free a context's hop tables and ASID.
 * @ctx: the context, with nothing left mapped, or a device that is gone.
 *
 * Works from ctx->mmu_hops alone, so it needs no hardware access beyond the
 * TLB invalidation, which is skipped when the device is gone.
 */
void hl_mmu_ctx_fini(struct hl_ctx *ctx)
{
	struct hl_device *hdev = ctx->hdev;
	u32 size = hl_mmu_props(ctx)->hop_table_size;
	unsigned long key;
	void *entry;
	u64 hop0, addr;
	int idx;

	idx = hl_device_enter(hdev);
	if (!hl_device_unplugged(hdev)) {
		hl_mmu_invalidate_cache(hdev, ctx->asid);
		hl_mmu_drain_engine_accesses(hdev);
	}
	hl_device_exit(hdev, idx);

	hop0 = hl_mmu_hop0_addr(hl_mmu_props(ctx), hdev->asic_prop.mmu_pgt_addr,
				ctx->asid);
	mutex_lock(&hdev->mmu_lock);
	xa_for_each(&ctx->mmu_hops, key, entry) {
		addr = hl_mmu_hop_key_addr(ctx, key);
		if (addr != hop0)
			gen_pool_free(hdev->mmu_pgt_pool, addr, size);
	}
	mutex_unlock(&hdev->mmu_lock);
	xa_destroy(&ctx->mmu_hops);
	ida_free(&hdev->asid_ida, ctx->asid);
}

/* Whether @size is a multiple of the page a PTE's address field names */
static bool hl_mmu_pte_aligned(u64 size)
{
	return size && !(size & ~HL_PTE_ADDR_MASK);
}

/* Whether the ASIC's geometry is one this code can walk */
static bool hl_mmu_props_valid(const struct asic_fixed_properties *prop)
{
	const struct hl_mmu_properties *mmu = &prop->mmu;
	u32 hop, entries;

	if (!mmu->num_hops || mmu->num_hops > HL_MMU_MAX_HOPS ||
	    !is_power_of_2(mmu->hop_table_size) ||
	    !hl_mmu_pte_aligned(mmu->hop_table_size) ||
	    !mmu->va_bits || mmu->va_bits >= 64 || mmu->max_asid < 2 ||
	    !(mmu->leaf_hops & BIT(mmu->num_hops - 1)) ||
	    mmu->leaf_hops >> mmu->num_hops ||
	    !IS_ALIGNED(prop->mmu_pgt_addr, mmu->hop_table_size) ||
	    (u64)mmu->max_asid * mmu->hop_table_size >= prop->mmu_pgt_size)
		return false;

	entries = mmu->hop_table_size / sizeof(u64);
	for (hop = 0; hop < mmu->num_hops; hop++) {
		if (mmu->hop_shifts[hop] >= 64 ||
		    mmu->hop_masks[hop] >> mmu->hop_shifts[hop] >= entries ||
		    !(mmu->hop_masks[hop] & BIT_ULL(mmu->hop_shifts[hop])))
			return false;
		if ((mmu->leaf_hops & BIT(hop)) &&
		    !hl_mmu_pte_aligned(BIT_ULL(mmu->hop_shifts[hop])))
			return false;
	}
	return true;
}

/**
 * hl_mmu_init - set up the page-table area of a device.
 * @hdev: the device, with asic_prop filled.
 *
 * Return: 0, -EINVAL when the ASIC's MMU geometry (asic_prop.mmu) does not
 * fit the page-table code or area, or -ENOMEM.
 */
int hl_mmu_init(struct hl_device *hdev)
{
	struct asic_fixed_properties *prop = &hdev->asic_prop;
	u32 size = prop->mmu.hop_table_size;
	u64 hops_start;
	int rc;

	if (WARN(!hl_mmu_props_valid(prop),
		 "habanalabs: the ASIC's MMU properties do not fit\n"))
		return -EINVAL;

	hops_start = prop->mmu_pgt_addr + (u64)prop->mmu.max_asid * size;
	hdev->mmu_pgt_pool = gen_pool_create(ilog2(size), -1);
	if (!hdev->mmu_pgt_pool)
		return -ENOMEM;

	rc = gen_pool_add(hdev->mmu_pgt_pool, hops_start,
			  prop->mmu_pgt_addr + prop->mmu_pgt_size - hops_start,
			  -1);
	if (rc) {
		gen_pool_destroy(hdev->mmu_pgt_pool);
		hdev->mmu_pgt_pool = NULL;
	}
	return rc;
}

/**
 * hl_mmu_fini - free what hl_mmu_init() set up.
 * @hdev: the device; every context is gone.
 */
void hl_mmu_fini(struct hl_device *hdev)
{
	if (hdev->mmu_pgt_pool)
		gen_pool_destroy(hdev->mmu_pgt_pool);
	hdev->mmu_pgt_pool = NULL;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: device memory and the device virtual address space.
 *
 * HL_MEM_OP_ALLOC takes DRAM pages from the device's genalloc pool and
 * returns a per-context handle. HL_MEM_OP_MAP maps an allocation (by
 * handle) into the context's DRAM VA range, or pins host memory
 * (pin_user_pages_fast with FOLL_LONGTERM), DMA-maps it for the
 * accelerator and maps it into the host VA range. VA ranges are maple trees
 * indexed in pages, so allocations come out page aligned.
 *
 * Errors of HL_IOCTL_MEMORY:
 *   -EINVAL  unknown op or flag, reserved field set, zero or overflowing
 *            size, bad page size, unknown handle or VA, misaligned forced
 *            hint or one outside the VA range
 *   -ENOMEM  not enough DRAM, VA space or page-table space
 *   -EBUSY   FREE of a mapped or exported allocation; UNMAP of an exported
 *            mapping; MAP with HL_MEM_FORCE_HINT whose hint is taken
 *   -EMFILE  EXPORT_DMABUF_FD with no free file descriptor
 *   -EFAULT  host memory that cannot be pinned
 *   -ENODEV  the device is gone
 */

#include <linux/genalloc.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "habanalabs.h"
#include "fault.h"
#include "memory.h"
#include "mmu.h"

#define HL_MEM_ALLOC_FLAGS	(HL_MEM_CONTIGUOUS | HL_MEM_SHARED)

static bool memory_scrub = true;
module_param(memory_scrub, bool, 0644);
MODULE_PARM_DESC(memory_scrub,
		 "Zero device memory when it is allocated, so that no user reads another's data (default: true)");
#define HL_MEM_MAP_FLAGS	(HL_MEM_USERPTR | HL_MEM_FORCE_HINT)

/* ---- device memory allocations ---- */

static void hl_pg_pack_release(struct kref *ref)
{
	struct hl_vm_phys_pg_pack *pack =
		container_of(ref, struct hl_vm_phys_pg_pack, refcount);
	struct hl_device *hdev = pack->hdev;
	u64 i;

	if (pack->contiguous) {
		gen_pool_free(hdev->dram_pool, pack->pages[0], pack->total_size);
	} else {
		for (i = 0; i < pack->npages; i++)
			gen_pool_free(hdev->dram_pool, pack->pages[i],
				      pack->page_size);
	}
	atomic64_sub(pack->total_size, &hdev->dram_used);
	kvfree(pack->pages);
	kfree(pack);
}

/**
 * hl_pg_pack_get - take a reference on an allocation.
 * @pack: the allocation.
 */
void hl_pg_pack_get(struct hl_vm_phys_pg_pack *pack)
{
	kref_get(&pack->refcount);
}

/**
 * hl_pg_pack_put - drop a reference; the DRAM returns to the pool with the
 * last one.
 * @pack: the allocation.
 */
void hl_pg_pack_put(struct hl_vm_phys_pg_pack *pack)
{
	kref_put(&pack->refcount, hl_pg_pack_release);
}

static struct hl_vm_phys_pg_pack *
hl_pg_pack_alloc(struct hl_ctx *ctx, u64 size, u64 page_size, bool contiguous)
{
	struct hl_device *hdev = ctx->hdev;
	struct hl_vm_phys_pg_pack *pack;
	u64 i, addr;

	pack = kzalloc(sizeof(*pack), GFP_KERNEL);
	if (!pack)
		return ERR_PTR(-ENOMEM);

	pack->npages = size / page_size;
	pack->pages = kvmalloc_array(pack->npages, sizeof(*pack->pages),
				     GFP_KERNEL);
	if (!pack->pages)
		goto err_free_pack;

	if (contiguous) {
		addr = hl_should_fail(HL_FAULT_DRAM) ? 0 : gen_pool_alloc(hdev->dram_pool, size);
		if (!addr)
			goto err_free_pages;
		for (i = 0; i < pack->npages; i++)
			pack->pages[i] = addr + i * page_size;
	} else {
		for (i = 0; i < pack->npages; i++) {
			pack->pages[i] = hl_should_fail(HL_FAULT_DRAM) ? 0 :
					 gen_pool_alloc(hdev->dram_pool, page_size);
			if (!pack->pages[i])
				goto err_free_dram;
		}
	}

	/*
	 * HBM keeps whatever the last owner, or a previous driver load, left
	 * in it: allocations start zeroed, so that no user reads another's
	 * data. (The caller is an ioctl: the device is present.)
	 */
	if (READ_ONCE(memory_scrub))
		for (i = 0; i < pack->npages; i++)
			hdev->asic_funcs->scrub_dram(hdev, pack->pages[i],
						     page_size);

	kref_init(&pack->refcount);
	pack->hdev = hdev;
	pack->page_size = page_size;
	pack->total_size = size;
	pack->contiguous = contiguous;
	atomic64_add(size, &hdev->dram_used);
	return pack;

err_free_dram:
	while (i--)
		gen_pool_free(hdev->dram_pool, pack->pages[i], page_size);
err_free_pages:
	kvfree(pack->pages);
err_free_pack:
	kfree(pack);
	return ERR_PTR(-ENOMEM);
}

static int hl_mem_alloc(struct hl_ctx *ctx, struct hl_mem_in *in, u64 *handle)
{
	struct asic_fixed_properties *prop = &ctx->hdev->asic_prop;
	u64 page_size = in->alloc.page_size ?: prop->dram_page_size;
	struct hl_vm_phys_pg_pack *pack;
	u64 size;
	u32 id;
	int rc;

	if (in->flags & ~HL_MEM_ALLOC_FLAGS)
		return -EINVAL;
	if (page_size != prop->dram_page_size || !in->alloc.mem_size)
		return -EINVAL;
	if (in->alloc.mem_size > prop->dram_user_size)
		return -ENOMEM;
	size = round_up(in->alloc.mem_size, page_size);

	pack = hl_pg_pack_alloc(ctx, size, page_size,
				in->flags & HL_MEM_CONTIGUOUS);
	if (IS_ERR(pack))
		return PTR_ERR(pack);

	mutex_lock(&ctx->mem_lock);
	rc = xa_alloc_cyclic(&ctx->handles, &id, pack, XA_LIMIT(1, U32_MAX),
			     &ctx->next_handle, GFP_KERNEL);
	mutex_unlock(&ctx->mem_lock);
	if (rc < 0) {
		hl_pg_pack_put(pack);
		return rc;
	}

	pack->handle = id;
	/* The context's share: what its handles hold */
	atomic64_add(size, &ctx->dram_usage);
	*handle = id;
	return 0;
}

/* An export count (mapping or allocation), read under hdev->dmabuf_lock */
static bool hl_mem_exported(struct hl_ctx *ctx, const u32 *count)
{
	bool exported;

	lockdep_assert_held(&ctx->mem_lock);
	mutex_lock(&ctx->hdev->dmabuf_lock);
	exported = *count;
	mutex_unlock(&ctx->hdev->dmabuf_lock);
	return exported;
}

static int hl_mem_free(struct hl_ctx *ctx, struct hl_mem_in *in)
{
	struct hl_vm_phys_pg_pack *pack;
	int rc = 0;

	if (in->flags)
		return -EINVAL;

	mutex_lock(&ctx->mem_lock);
	pack = xa_load(&ctx->handles, in->free.handle);
	if (!pack || in->free.handle > U32_MAX) {
		rc = -EINVAL;
	} else if (pack->mapped || hl_mem_exported(ctx, &pack->exported)) {
		rc = -EBUSY;
	} else {
		xa_erase(&ctx->handles, in->free.handle);
		atomic64_sub(pack->total_size, &ctx->dram_usage);
		pack->handle = 0;
	}
	mutex_unlock(&ctx->mem_lock);

	if (!rc)
		hl_pg_pack_put(pack);
	return rc;
}

/* ---- VA ranges ---- */

static struct maple_tree *hl_va_tree(struct hl_ctx *ctx, bool host,
				     unsigned int *shift, u64 *start, u64 *end)
{
	struct asic_fixed_properties *prop = &ctx->hdev->asic_prop;

	if (host) {
		*shift = ilog2(prop->host_page_size);
		*start = prop->va_host_start;
		*end = prop->va_host_end;
		return &ctx->va_host;
	}
	*shift = ilog2(prop->dram_page_size);
	*start = prop->va_dram_start;
	*end = prop->va_dram_end;
	return &ctx->va_dram;
}

/*
 * Reserve @npages pages of VA for @mapping, at @hint when it is usable.
 * Returns the VA, or 0 with *rc set.
 */
static u64 hl_va_reserve(struct hl_ctx *ctx, struct hl_vm_mapping *mapping,
			 u64 npages, u64 hint, bool force_hint, int *rc)
{
	unsigned long first, min, max;
	struct maple_tree *mt;
	unsigned int shift;
	u64 start, end;

	mt = hl_va_tree(ctx, mapping->host, &shift, &start, &end);
	min = start >> shift;
	max = (end >> shift) - 1;

	if (hint) {
		bool usable = IS_ALIGNED(hint, 1ull << shift) && hint >= start &&
			      hint < end && npages <= max - (hint >> shift) + 1;

		if (usable) {
			first = hint >> shift;
			*rc = mtree_insert_range(mt, first, first + npages - 1,
						 mapping, GFP_KERNEL);
			if (!*rc)
				return (u64)first << shift;
			if (*rc != -EEXIST)
				return 0;
		}
		if (force_hint) {
			*rc = usable ? -EBUSY : -EINVAL;
			return 0;
		}
	}

	*rc = mtree_alloc_range(mt, &first, mapping, npages, min, max,
				GFP_KERNEL);
	if (*rc)
		return 0;
	return (u64)first << shift;
}

static void hl_va_release(struct hl_ctx *ctx, struct hl_vm_mapping *mapping)
{
	struct maple_tree *mt;
	unsigned int shift;
	u64 start, end;

	mt = hl_va_tree(ctx, mapping->host, &shift, &start, &end);
	mtree_erase(mt, mapping->va >> shift);
}

/* ---- host memory ---- */

/*
 * Host memory stays mapped for the device for as long as the user keeps
 * the mapping, and the engines access it at any time, as RDMA NICs do: the
 * caches are synced once at map and once at unmap, explicitly, so that the
 * mappings carry DMA_ATTR_SKIP_CPU_SYNC. (That also tells DMA-API debugging
 * that the driver, not the map call, owns the syncs, so that one buffer may
 * be mapped at two device VAs.)
 */
static void hl_userptr_release(struct hl_device *hdev, struct hl_userptr *up)
{
	dma_sync_sgtable_for_cpu(hdev->dev, &up->sgt, DMA_BIDIRECTIONAL);
	dma_unmap_sgtable(hdev->dev, &up->sgt, DMA_BIDIRECTIONAL,
			  DMA_ATTR_SKIP_CPU_SYNC);
	sg_free_table(&up->sgt);
	unpin_user_pages_dirty_lock(up->pages, up->npages, true);
	atomic64_sub(up->npages, &hdev->pinned_host_pages);
	kvfree(up->pages);
	kfree(up);
}

static struct hl_userptr *hl_userptr_pin(struct hl_device *hdev, u64 addr,
					 u64 size)
{
	u64 start = round_down(addr, PAGE_SIZE);
	struct hl_userptr *up;
	u64 pinned = 0;
	int rc;

	up = kzalloc(sizeof(*up), GFP_KERNEL);
	if (!up)
		return ERR_PTR(-ENOMEM);
	up->npages = (round_up(addr + size, PAGE_SIZE) - start) >> PAGE_SHIFT;
	up->pages = kvmalloc_array(up->npages, sizeof(*up->pages), GFP_KERNEL);
	if (!up->pages) {
		rc = -ENOMEM;
		goto err_free_up;
	}

	while (pinned < up->npages) {
		int n = min_t(u64, up->npages - pinned, INT_MAX / 2);

		rc = hl_should_fail(HL_FAULT_PIN) ? -ENOMEM :
		     pin_user_pages_fast(start + (pinned << PAGE_SHIFT), n,
					 FOLL_WRITE | FOLL_LONGTERM,
					 up->pages + pinned);
		if (rc <= 0) {
			rc = rc ?: -EFAULT;
			goto err_unpin;
		}
		pinned += rc;
	}

	rc = sg_alloc_table_from_pages_segment(&up->sgt, up->pages, up->npages,
					       0, up->npages << PAGE_SHIFT,
					       SZ_1G, GFP_KERNEL);
	if (rc)
		goto err_unpin;

	rc = hl_should_fail(HL_FAULT_DMA_MAP) ? -ENOMEM :
	     dma_map_sgtable(hdev->dev, &up->sgt, DMA_BIDIRECTIONAL,
			     DMA_ATTR_SKIP_CPU_SYNC);
	if (rc)
		goto err_free_table;
	dma_sync_sgtable_for_device(hdev->dev, &up->sgt, DMA_BIDIRECTIONAL);

	atomic64_add(up->npages, &hdev->pinned_host_pages);
	return up;

err_free_table:
	sg_free_table(&up->sgt);
err_unpin:
	unpin_user_pages(up->pages, pinned);
	kvfree(up->pages);
err_free_up:
	kfree(up);
	return ERR_PTR(rc == -ENOMEM ? rc : -EFAULT);
}

/* ---- mapping ---- */

/* Unmap the first @npages pages of a mapping from the page tables */
static void hl_mapping_unmap_pages(struct hl_ctx *ctx,
				   struct hl_vm_mapping *mapping, u64 npages)
{
	u64 i;

	for (i = 0; i < npages; i++)
		hl_mmu_unmap_page(ctx, mapping->va + i * mapping->page_size,
				  mapping->page_size);
}

static int hl_mapping_map_dram(struct hl_ctx *ctx, struct hl_vm_mapping *mapping)
{
	struct hl_vm_phys_pg_pack *pack = mapping->pack;
	u64 i;
	int rc;

	for (i = 0; i < pack->npages; i++) {
		rc = hl_mmu_map_page(ctx, mapping->va + i * pack->page_size,
				     pack->pages[i], pack->page_size, false);
		if (rc) {
			hl_mapping_unmap_pages(ctx, mapping, i);
			return rc;
		}
	}
	return 0;
}

static int hl_mapping_map_host(struct hl_ctx *ctx, struct hl_vm_mapping *mapping)
{
	u64 page_size = mapping->page_size, mapped = 0, off;
	struct scatterlist *sg;
	unsigned int i;
	int rc;

	for_each_sgtable_dma_sg(&mapping->userptr->sgt, sg, i) {
		for (off = 0; off < sg_dma_len(sg); off += page_size) {
			rc = hl_mmu_map_page(ctx, mapping->va + mapped * page_size,
					     sg_dma_address(sg) + off, page_size,
					     true);
			if (rc) {
				hl_mapping_unmap_pages(ctx, mapping, mapped);
				return rc;
			}
			mapped++;
		}
	}
	return 0;
}

/* Releases what the mapping holds: pinned memory or an allocation reference */
static void hl_mapping_free(struct hl_ctx *ctx, struct hl_vm_mapping *mapping)
{
	if (mapping->host) {
		/* NULL when device removal released it already */
		if (mapping->userptr)
			hl_userptr_release(ctx->hdev, mapping->userptr);
	} else {
		mutex_lock(&ctx->mem_lock);
		mapping->pack->mapped--;
		mutex_unlock(&ctx->mem_lock);
		hl_pg_pack_put(mapping->pack);
	}
	kfree(mapping);
}

static int hl_mem_map(struct hl_ctx *ctx, struct hl_mem_in *in, u64 *va_out)
{
	struct hl_device *hdev = ctx->hdev;
	bool host = in->flags & HL_MEM_USERPTR;
	bool force = in->flags & HL_MEM_FORCE_HINT;
	struct hl_vm_mapping *mapping;
	u64 hint, npages, offset = 0;
	int rc;

	if (in->flags & ~HL_MEM_MAP_FLAGS)
		return -EINVAL;

	mapping = kzalloc(sizeof(*mapping), GFP_KERNEL);
	if (!mapping)
		return -ENOMEM;
	mapping->host = host;
	/* Invisible to UNMAP and EXPORT until its PTEs are in */
	mapping->busy = true;

	if (host) {
		u64 addr = in->map_host.host_virt_addr, size = in->map_host.mem_size, end;

		if (!size || check_add_overflow(addr, size, &end) ||
		    !access_ok(u64_to_user_ptr(addr), size)) {
			rc = -EINVAL;
			goto err_free_mapping;
		}
		mapping->userptr = hl_userptr_pin(hdev, addr, size);
		if (IS_ERR(mapping->userptr)) {
			rc = PTR_ERR(mapping->userptr);
			goto err_free_mapping;
		}
		mapping->page_size = hdev->asic_prop.host_page_size;
		npages = mapping->userptr->npages;
		offset = offset_in_page(addr);
		hint = in->map_host.hint_addr;
	} else {
		mutex_lock(&ctx->mem_lock);
		mapping->pack = in->map_device.handle <= U32_MAX ?
				xa_load(&ctx->handles, in->map_device.handle) :
				NULL;
		if (mapping->pack) {
			hl_pg_pack_get(mapping->pack);
			mapping->pack->mapped++;
		}
		mutex_unlock(&ctx->mem_lock);
		if (!mapping->pack) {
			rc = -EINVAL;
			goto err_free_mapping;
		}
		mapping->page_size = mapping->pack->page_size;
		npages = mapping->pack->npages;
		hint = in->map_device.hint_addr;
	}

	mutex_lock(&ctx->mem_lock);
	mapping->va = hl_va_reserve(ctx, mapping, npages, hint, force, &rc);
	mutex_unlock(&ctx->mem_lock);
	if (!mapping->va) {
		if (rc == -EBUSY && !force)
			rc = -ENOMEM;
		goto err_release_backing;
	}
	mapping->size = npages * mapping->page_size;
	mapping->user_va = mapping->va + offset;

	rc = host ? hl_mapping_map_host(ctx, mapping) :
		    hl_mapping_map_dram(ctx, mapping);
	if (rc)
		goto err_release_va;
	hl_mmu_invalidate(ctx);

	mutex_lock(&ctx->mem_lock);
	mapping->busy = false;
	mutex_unlock(&ctx->mem_lock);

	*va_out = mapping->user_va;
	return 0;

err_release_va:
	hl_mmu_invalidate(ctx);
	mutex_lock(&ctx->mem_lock);
	hl_va_release(ctx, mapping);
	mutex_unlock(&ctx->mem_lock);
err_release_backing:
	hl_mapping_free(ctx, mapping);
	return rc;
err_free_mapping:
	kfree(mapping);
	return rc;
}

/**
 * hl_mem_find_mapping - look up the mapping that contains a device VA.
 * @ctx: the context; the caller holds ctx->mem_lock.
 * @va: the device virtual address.
 *
 * Return: the mapping, or NULL (also for one still being mapped or
 * already being unmapped).
 */
struct hl_vm_mapping *hl_mem_find_mapping(struct hl_ctx *ctx, u64 va)
{
	struct asic_fixed_properties *prop = &ctx->hdev->asic_prop;
	struct hl_vm_mapping *mapping = NULL;

	lockdep_assert_held(&ctx->mem_lock);

	if (va >= prop->va_host_start && va < prop->va_host_end)
		mapping = mtree_load(&ctx->va_host,
				     va >> ilog2(prop->host_page_size));
	else if (va >= prop->va_dram_start && va < prop->va_dram_end)
		mapping = mtree_load(&ctx->va_dram,
				     va >> ilog2(prop->dram_page_size));
	return mapping && !mapping->busy ? mapping : NULL;
}

/*
 * Unmap and free a mapping already removed from its VA tree; @hw is false
 * when the device is gone and its page tables must not be touched.
 */
static void hl_mapping_destroy(struct hl_ctx *ctx, struct hl_vm_mapping *mapping,
			       bool hw)
{
	if (hw) {
		hl_mapping_unmap_pages(ctx, mapping,
				       mapping->size / mapping->page_size);
		hl_mmu_invalidate(ctx);
	}
	hl_mapping_free(ctx, mapping);
}

static int hl_mem_unmap(struct hl_ctx *ctx, struct hl_mem_in *in)
{
	struct hl_vm_mapping *mapping;
	int rc = 0;

	if (in->flags)
		return -EINVAL;

	mutex_lock(&ctx->mem_lock);
	mapping = hl_mem_find_mapping(ctx, in->unmap.device_virt_addr);
	if (!mapping || mapping->user_va != in->unmap.device_virt_addr)
		rc = -EINVAL;
	else if (hl_mem_exported(ctx, &mapping->exported))
		rc = -EBUSY;
	else
		mapping->busy = true;
	mutex_unlock(&ctx->mem_lock);
	if (rc)
		return rc;

	/*
	 * The VA stays reserved until its PTEs are gone and the device TLBs
	 * invalidated: a MAP meanwhile cannot be given the same range.
	 */
	hl_mapping_unmap_pages(ctx, mapping, mapping->size / mapping->page_size);
	hl_mmu_invalidate(ctx);

	mutex_lock(&ctx->mem_lock);
	hl_va_release(ctx, mapping);
	mutex_unlock(&ctx->mem_lock);
	hl_mapping_free(ctx, mapping);
	return 0;
}

/**
 * hl_mem_ioctl - HL_IOCTL_MEMORY; errors are listed at the top of the file.
 * @fpriv: the compute node's open file.
 * @data: union hl_mem_args, copied in.
 *
 * Return: 0 or a negative errno.
 */
int hl_mem_ioctl(struct hl_fpriv *fpriv, void *data)
{
	union hl_mem_args *args = data;
	struct hl_ctx *ctx = fpriv->ctx;
	u64 out = 0;
	int rc;

	if (args->in.ctx_id || args->in.pad)
		return -EINVAL;

	switch (args->in.op) {
	case HL_MEM_OP_ALLOC:
		rc = hl_mem_alloc(ctx, &args->in, &out);
		break;
	case HL_MEM_OP_FREE:
		rc = hl_mem_free(ctx, &args->in);
		break;
	case HL_MEM_OP_MAP:
		rc = hl_mem_map(ctx, &args->in, &out);
		break;
	case HL_MEM_OP_UNMAP:
		rc = hl_mem_unmap(ctx, &args->in);
		break;
	case HL_MEM_OP_EXPORT_DMABUF_FD: {
		int fd;

		rc = hl_dmabuf_export(ctx, &args->in, data, &fd);
		if (!rc) {
			memset(args, 0, sizeof(*args));
			args->out.fd = fd;
		}
		return rc;
	}
	default:
		return -EINVAL;
	}

	if (!rc) {
		memset(args, 0, sizeof(*args));
		args->out.device_virt_addr = out;
	}
	return rc;
}

/**
 * hl_mem_ctx_init - initialise a context's handles and VA ranges.
 * @ctx: the context.
 */
void hl_mem_ctx_init(struct hl_ctx *ctx)
{
	mutex_init(&ctx->mem_lock);
	xa_init_flags(&ctx->handles, XA_FLAGS_ALLOC1);
	mt_init_flags(&ctx->va_host, MT_FLAGS_ALLOC_RANGE);
	mt_init_flags(&ctx->va_dram, MT_FLAGS_ALLOC_RANGE);
}

static void hl_mem_ctx_unmap_all(struct hl_ctx *ctx, struct maple_tree *mt,
				 bool hw)
{
	struct hl_vm_mapping *mapping;
	unsigned long index = 0;

	for (;;) {
		mutex_lock(&ctx->mem_lock);
		mapping = mt_find(mt, &index, ULONG_MAX);
		if (mapping)
			hl_va_release(ctx, mapping);
		mutex_unlock(&ctx->mem_lock);
		if (!mapping)
			break;
		hl_mapping_destroy(ctx, mapping, hw);
	}
	mtree_destroy(mt);
}

/**
 * hl_mem_ctx_release_host - unpin and DMA-unmap a context's host memory
 * because the device is going away.
 * @ctx: a live context of a device whose engines are stopped and whose
 *	ioctls have drained.
 *
 * The mappings stay in the VA tree (the page tables are not touched any
 * more), so that the context's later teardown still finds and frees them.
 */
void hl_mem_ctx_release_host(struct hl_ctx *ctx)
{
	struct hl_vm_mapping *mapping;
	unsigned long index = 0;

	mutex_lock(&ctx->mem_lock);
	mt_for_each(&ctx->va_host, mapping, index, ULONG_MAX) {
		if (mapping->userptr)
			hl_userptr_release(ctx->hdev, mapping->userptr);
		mapping->userptr = NULL;
	}
	mutex_unlock(&ctx->mem_lock);
}

/**
 * hl_mem_ctx_fini - release everything a context still has mapped or
 * allocated; exported allocations live on with their exports.
 * @ctx: the context, being torn down: no ioctl, job or export uses its
 *	mappings any more.
 *
 * Page-table updates are skipped when the device is gone; pinned host
 * memory is unpinned and DMA-unmapped in any case.
 */
void hl_mem_ctx_fini(struct hl_ctx *ctx)
{
	struct hl_device *hdev = ctx->hdev;
	struct hl_vm_phys_pg_pack *pack;
	unsigned long handle;
	int idx;

	idx = hl_device_enter(hdev);
	hl_mem_ctx_unmap_all(ctx, &ctx->va_host, !hl_device_unplugged(hdev));
	hl_mem_ctx_unmap_all(ctx, &ctx->va_dram, !hl_device_unplugged(hdev));
	hl_device_exit(hdev, idx);

	xa_for_each(&ctx->handles, handle, pack) {
		xa_erase(&ctx->handles, handle);
		atomic64_sub(pack->total_size, &ctx->dram_usage);
		hl_pg_pack_put(pack);
	}
	xa_destroy(&ctx->handles);
	mutex_destroy(&ctx->mem_lock);
}

/**
 * hl_mem_init - create the device's DRAM pool.
 * @hdev: the device, with asic_prop filled.
 *
 * Return: 0 or -ENOMEM.
 */
int hl_mem_init(struct hl_device *hdev)
{
	struct asic_fixed_properties *prop = &hdev->asic_prop;
	int rc;

	hdev->dram_pool = gen_pool_create(ilog2(prop->dram_page_size), -1);
	if (!hdev->dram_pool)
		return -ENOMEM;
	rc = gen_pool_add(hdev->dram_pool, prop->dram_user_base_address,
			  prop->dram_user_size, -1);
	if (rc) {
		gen_pool_destroy(hdev->dram_pool);
		hdev->dram_pool = NULL;
	}
	return rc;
}

/**
 * hl_mem_fini - destroy the DRAM pool; every allocation is gone.
 * @hdev: the device.
 */
void hl_mem_fini(struct hl_device *hdev)
{
	if (hdev->dram_pool)
		gen_pool_destroy(hdev->dram_pool);
	hdev->dram_pool = NULL;
}

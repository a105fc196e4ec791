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
 * Without a DRAM MMU (asic_prop.dram_supports_virtual_memory false: asic=gaudi)
 * the context owns the whole user DRAM, which its engines address
 * physically: hl_mem_owner_init() takes all of it from the scrubbed pool
 * when the context is created (only one exists at a time: the compute node
 * opens once), and its release hands it back to the scrubber. As upstream's
 * GAUDI, ALLOC then only accounts the size it is told (handle 0; FREE takes
 * the size back), MAP of device memory finds no allocation (-EINVAL) and an
 * export names a DRAM address (dmabuf.c). The owner's allocation is what an
 * export holds: the DRAM goes to no other owner while an importer can
 * reach it.
 *
 * Pinned host memory is charged to the caller's mm->pinned_vm, within
 * RLIMIT_MEMLOCK unless the caller has CAP_IPC_LOCK, per mapping; a MAP
 * DMA-maps the host pages the device has not in one run, and shares the
 * DMA mappings of those it has (hl_host_pages_get()).
 *
 * The errors of HL_IOCTL_MEMORY are listed in the kernel-doc of union
 * hl_mem_args in include/uapi/misc/habanalabs.h.
 */

#include <linux/genalloc.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "habanalabs.h"
#include "context.h"
#include "device.h"
#include "dmabuf.h"
#include "fault.h"
#include "ioctl.h"
#include "memory.h"
#include "mmu.h"
#include "scrub.h"

#define HL_MEM_ALLOC_FLAGS	(HL_MEM_CONTIGUOUS | HL_MEM_SHARED)

#define HL_MEM_MAP_FLAGS	(HL_MEM_USERPTR | HL_MEM_FORCE_HINT)

/* ---- device memory allocations ---- */

static void hl_pg_pack_release(struct kref *ref)
{
	struct hl_vm_phys_pg_pack *pack =
		container_of(ref, struct hl_vm_phys_pg_pack, refcount);
	struct hl_device *hdev = pack->hdev;
	u64 i;

	/* Scrubbed in the background before anyone gets it again */
	if (pack->contiguous) {
		hl_dram_free(hdev, pack->pages[0], pack->total_size);
	} else {
		for (i = 0; i < pack->npages; i++)
			hl_dram_free(hdev, pack->pages[i], pack->page_size);
	}
	if (!pack->owner)
		atomic64_sub(pack->total_size, &hdev->dram_used);
	kvfree(pack->importer_maps);
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

/* @owner: the whole user DRAM of a physical-DRAM owner, not in dram_used */
static struct hl_vm_phys_pg_pack *
hl_pg_pack_alloc(struct hl_ctx *ctx, u64 size, u64 page_size, bool contiguous,
		 bool owner)
{
	struct hl_device *hdev = ctx->hdev;
	struct hl_vm_phys_pg_pack *pack;
	u64 i, addr;
	int rc = -ENOMEM;

	pack = kzalloc(sizeof(*pack), GFP_KERNEL_ACCOUNT);
	if (!pack)
		return ERR_PTR(-ENOMEM);

	pack->npages = size / page_size;
	pack->pages = kvmalloc_array(pack->npages, sizeof(*pack->pages),
				     GFP_KERNEL_ACCOUNT);
	if (!pack->pages)
		goto err_free_pack;
	pack->importer_maps = kvcalloc(pack->npages,
				       sizeof(*pack->importer_maps),
				       GFP_KERNEL_ACCOUNT);
	if (!pack->importer_maps)
		goto err_free_pages;

	/* Clean pages (scrub.c): allocations start zeroed */
	if (contiguous) {
		rc = hl_should_fail(HL_FAULT_DRAM) ? -ENOMEM :
		     hl_dram_alloc(hdev, size, &addr);
		if (rc)
			goto err_free_pages;
		for (i = 0; i < pack->npages; i++)
			pack->pages[i] = addr + i * page_size;
	} else {
		for (i = 0; i < pack->npages; i++) {
			rc = hl_should_fail(HL_FAULT_DRAM) ? -ENOMEM :
			     hl_dram_alloc(hdev, page_size, &pack->pages[i]);
			if (rc)
				goto err_free_dram;
		}
	}

	kref_init(&pack->refcount);
	pack->hdev = hdev;
	pack->page_size = page_size;
	pack->total_size = size;
	pack->contiguous = contiguous;
	pack->owner = owner;
	if (!owner)
		atomic64_add(size, &hdev->dram_used);
	return pack;

err_free_dram:
	/* Still clean: straight back to the pool */
	while (i--)
		gen_pool_free(hdev->dram_pool, pack->pages[i], page_size);
err_free_pages:
	kvfree(pack->importer_maps);
	kvfree(pack->pages);
err_free_pack:
	kfree(pack);
	return ERR_PTR(rc);
}

/*
 * Without a DRAM MMU: the user carves its own DRAM; ALLOC only accounts
 * (DRAM_USAGE), as upstream's GAUDI, and returns handle 0. The size is
 * checked against the user DRAM (-ENOMEM past it) so that the accounting
 * stays within it.
 */
static int hl_mem_alloc_phys(struct hl_ctx *ctx, struct hl_mem_in *in)
{
	struct hl_device *hdev = ctx->hdev;
	u64 size = in->alloc.mem_size;
	int rc = 0;

	if (in->flags & ~HL_MEM_ALLOC_FLAGS || !size)
		return -EINVAL;
	mutex_lock(&ctx->mem_lock);
	if (size > hdev->asic_prop.dram_user_size -
		   atomic64_read(&ctx->dram_usage)) {
		rc = -ENOMEM;
	} else {
		atomic64_add(size, &ctx->dram_usage);
		atomic64_add(size, &hdev->dram_used);
	}
	mutex_unlock(&ctx->mem_lock);
	return rc;
}

/*
 * Without a DRAM MMU: FREE takes back the size in the first u64 of the
 * input (where ALLOC had mem_size; upstream reads it so), at most what
 * the context has accounted.
 */
static void hl_mem_free_phys(struct hl_ctx *ctx, struct hl_mem_in *in)
{
	u64 size;

	mutex_lock(&ctx->mem_lock);
	size = min_t(u64, in->free.handle, atomic64_read(&ctx->dram_usage));
	atomic64_sub(size, &ctx->dram_usage);
	atomic64_sub(size, &ctx->hdev->dram_used);
	mutex_unlock(&ctx->mem_lock);
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
				in->flags & HL_MEM_CONTIGUOUS, false);
	if (IS_ERR(pack))
		return PTR_ERR(pack);

	mutex_lock(&ctx->mem_lock);
	rc = xa_alloc_cyclic(&ctx->handles, &id, pack, XA_LIMIT(1, U32_MAX),
			     &ctx->next_handle, GFP_KERNEL_ACCOUNT);
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

static int hl_mem_free_handle(struct hl_ctx *ctx, u64 handle)
{
	struct hl_vm_phys_pg_pack *pack;
	int rc = 0;

	mutex_lock(&ctx->mem_lock);
	pack = handle <= U32_MAX ? xa_load(&ctx->handles, handle) : NULL;
	if (!pack) {
		rc = -EINVAL;
	} else if (pack->mapped || hl_mem_exported(ctx, &pack->exported)) {
		rc = -EBUSY;
	} else {
		xa_erase(&ctx->handles, handle);
		atomic64_sub(pack->total_size, &ctx->dram_usage);
		pack->handle = 0;
	}
	mutex_unlock(&ctx->mem_lock);

	if (!rc)
		hl_pg_pack_put(pack);
	return rc;
}

static int hl_mem_free(struct hl_ctx *ctx, struct hl_mem_in *in)
{
	if (in->flags)
		return -EINVAL;
	if (ctx->dram_owner) {
		hl_mem_free_phys(ctx, in);
		return 0;
	}
	return hl_mem_free_handle(ctx, in->free.handle);
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
 * Reserve @npages pages of VA for @mapping, at @hint when it is usable;
 * called with ctx->mem_lock held. Returns the VA, or 0 with *rc set.
 */
static u64 hl_va_reserve(struct hl_ctx *ctx, struct hl_vm_mapping *mapping,
			 u64 npages, u64 hint, bool force_hint, int *rc)
{
	unsigned long first, min, max;
	struct maple_tree *mt;
	unsigned int shift;
	u64 start, end;

	lockdep_assert_held(&ctx->mem_lock);

	mt = hl_va_tree(ctx, mapping->host, &shift, &start, &end);
	min = start >> shift;
	max = (end >> shift) - 1;

	if (hint) {
		bool usable = IS_ALIGNED(hint, 1ull << shift) && hint >= start &&
			      hint < end && npages <= max - (hint >> shift) + 1;

		if (usable) {
			first = hint >> shift;
			*rc = mtree_insert_range(mt, first, first + npages - 1,
						 mapping, GFP_KERNEL_ACCOUNT);
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
				GFP_KERNEL_ACCOUNT);
	if (*rc)
		return 0;
	return (u64)first << shift;
}

/* Release @mapping's VA; called with ctx->mem_lock held */
static void hl_va_release(struct hl_ctx *ctx, struct hl_vm_mapping *mapping)
{
	struct maple_tree *mt;
	unsigned int shift;
	u64 start, end;

	lockdep_assert_held(&ctx->mem_lock);

	mt = hl_va_tree(ctx, mapping->host, &shift, &start, &end);
	mtree_erase(mt, mapping->va >> shift);
}

/* ---- host memory ---- */

/*
 * The device maps host memory in 4 KiB pages (asic_prop.host_page_size),
 * one device page per CPU page: a CPU page of another size would need one
 * PTE per 4 KiB of it, which the mapping code does not do.
 */
static_assert(PAGE_SIZE == SZ_4K);

/* Page pointers pinned per pin_user_pages_fast() call: one page of them */
#define HL_PIN_BATCH	(PAGE_SIZE / sizeof(struct page *))

/*
 * The device's DMA mappings of host pages.
 *
 * A MAP DMA-maps the pages that the device has not DMA-mapped yet together,
 * in one run (one dma_map_sgtable(): one IOVA range, and one IOTLB flush
 * when it is unmapped; a DMA mapping per page made the unmap of a large
 * buffer take a flush per page, over half a minute for 256 MiB under the
 * emulated strict IOMMU). The run is the MAP's own: it is unmapped when the
 * MAP goes, whoever else maps its pages then.
 *
 * A page that the device has DMA-mapped already, in another MAP's run or
 * alone, is shared: the MAP holds the page's own DMA mapping (struct
 * hl_host_page), made when the first MAP that shares the page needs it and
 * unmapped when the last that holds it lets go. So a page is DMA-mapped at
 * most twice, however many MAPs hold it (programs map many small buffers
 * of one page, malloc()s, each with HL_MEM_USERPTR, and DMA-API debugging
 * reports more than 7 overlapping DMA mappings of a cacheline), and every
 * page DMA-mapped for the device is pinned, and charged, by a MAP that
 * holds it: a MAP that held a page of another MAP's run would keep the
 * whole run DMA-mapped and pinned, uncharged, after its own MAP and memory
 * are gone.
 *
 * Each MAP pins its pages and is charged for them all the same
 * (hl_userptr_pin(): pins are per mapping, as upstream's, and so is the
 * charge, as RDMA's ib_umem_get() charges each registration).
 *
 * hl_device.host_pages, under hl_device.host_pages_lock, has an entry per
 * page DMA-mapped for the device, key = pfn: HL_HOST_PAGE_IN_RUN for a
 * page in a MAP's run alone, else its struct hl_host_page.
 */
#define HL_HOST_PAGE_IN_RUN	xa_mk_value(1)

/**
 * struct hl_host_page - a host page's own DMA mapping for the device,
 * shared by the MAPs that hold it.
 * @dma: its DMA address for the accelerator's PCI function, mapped with
 *	DMA_ATTR_SKIP_CPU_SYNC (see hl_userptr_release()).
 * @holds: how many times MAPs hold it (a MAP that has the page twice holds
 *	it twice); unmapped at 0. Each hold is a pin.
 * @in_run: the page is also in a MAP's run.
 *
 * Under hl_device.host_pages_lock; a MAP that holds the page has @dma in
 * its hl_userptr.dma.
 */
struct hl_host_page {
	dma_addr_t dma;
	u64 holds;
	bool in_run;
};

/* Let go of one hold of @page's own DMA mapping; unmap it at the last */
static void hl_host_page_put(struct hl_device *hdev, struct page *page)
{
	unsigned long pfn = page_to_pfn(page);
	struct hl_host_page *hp;

	lockdep_assert_held(&hdev->host_pages_lock);

	hp = xa_load(&hdev->host_pages, pfn);
	if (WARN_ON_ONCE(!hp || xa_is_value(hp)))
		return;
	if (--hp->holds)
		return;
	dma_unmap_page_attrs(hdev->dev, hp->dma, PAGE_SIZE, DMA_BIDIRECTIONAL,
			     DMA_ATTR_SKIP_CPU_SYNC);
	hdev->host_dma_maps--;
	if (hp->in_run) {
		/* Replaces an entry: allocates nothing, cannot fail */
		xa_store(&hdev->host_pages, pfn, HL_HOST_PAGE_IN_RUN, GFP_KERNEL);
	} else {
		xa_erase(&hdev->host_pages, pfn);
		hdev->host_dma_pages--;
	}
	kfree(hp);
}

/*
 * Hold the own DMA mapping of @page, which the device has DMA-mapped
 * already (@entry), making it at the first hold; its DMA address to @dma
 */
static int hl_host_page_hold(struct hl_device *hdev, struct page *page,
			     void *entry, dma_addr_t *dma)
{
	struct hl_host_page *hp = entry;
	int rc;

	lockdep_assert_held(&hdev->host_pages_lock);

	if (!xa_is_value(entry)) {
		hp->holds++;
		*dma = hp->dma;
		return 0;
	}
	hp = kzalloc(sizeof(*hp), GFP_KERNEL_ACCOUNT);
	if (!hp)
		return -ENOMEM;
	if (hl_should_fail(HL_FAULT_DMA_MAP)) {
		rc = -ENOMEM;
		goto err_free;
	}
	hp->dma = dma_map_page_attrs(hdev->dev, page, 0, PAGE_SIZE,
				     DMA_BIDIRECTIONAL, DMA_ATTR_SKIP_CPU_SYNC);
	if (dma_mapping_error(hdev->dev, hp->dma)) {
		rc = -EFAULT;
		goto err_free;
	}
	hp->holds = 1;
	hp->in_run = true;
	/* Replaces the entry of the run: allocates nothing, cannot fail */
	xa_store(&hdev->host_pages, page_to_pfn(page), hp, GFP_KERNEL);
	hdev->host_dma_maps++;
	*dma = hp->dma;
	return 0;

err_free:
	kfree(hp);
	return rc;
}

/* @page leaves the run of the MAP that goes; forgotten if nothing holds it */
static void hl_host_page_leave_run(struct hl_device *hdev, struct page *page)
{
	unsigned long pfn = page_to_pfn(page);
	struct hl_host_page *hp;

	lockdep_assert_held(&hdev->host_pages_lock);

	hp = xa_load(&hdev->host_pages, pfn);
	if (WARN_ON_ONCE(!hp))
		return;
	if (!xa_is_value(hp)) {
		/* Its own DMA mapping stays, for the MAPs that hold it */
		hp->in_run = false;
		return;
	}
	xa_erase(&hdev->host_pages, pfn);
	hdev->host_dma_pages--;
}

/*
 * Let go of the first @n pages of @up's (under hl_device.host_pages_lock):
 * the own DMA mappings of those it shares, the entries of those of its run,
 * which is unmapped already or never was
 */
static void hl_host_pages_leave(struct hl_device *hdev, struct hl_userptr *up,
				u64 n)
{
	struct sg_page_iter iter;
	struct page *page;
	u64 i = 0;

	for_each_sgtable_page(&up->sgta.sgt, &iter, 0) {
		if (i == n)
			break;
		page = sg_page_iter_page(&iter);
		if (test_bit(i, up->shared))
			hl_host_page_put(hdev, page);
		else
			hl_host_page_leave_run(hdev, page);
		if (!(++i % HL_PIN_BATCH))
			cond_resched();
	}
}

/*
 * DMA-map @up's run, its @n pages @pages that the device had not
 * DMA-mapped, in one go; their DMA addresses to @up->dma
 */
static int hl_host_run_map(struct hl_device *hdev, struct hl_userptr *up,
			   struct page **pages, u64 n)
{
	struct sg_dma_page_iter iter;
	u64 i = 0;
	int rc;

	lockdep_assert_held(&hdev->host_pages_lock);

	if (!n)
		return 0;
	if (n > UINT_MAX)
		return -ENOMEM;
	rc = sg_alloc_table_from_pages_segment(&up->run, pages, n, 0,
					       n << PAGE_SHIFT,
					       round_down(dma_get_max_seg_size(hdev->dev),
							  PAGE_SIZE),
					       GFP_KERNEL_ACCOUNT);
	if (rc)
		return rc;
	rc = hl_should_fail(HL_FAULT_DMA_MAP) ? -ENOMEM :
	     dma_map_sgtable(hdev->dev, &up->run, DMA_BIDIRECTIONAL,
			     DMA_ATTR_SKIP_CPU_SYNC);
	if (rc) {
		sg_free_table(&up->run);
		return rc == -ENOMEM ? -ENOMEM : -EFAULT;
	}
	hdev->host_dma_maps++;
	for_each_sgtable_dma_page(&up->run, &iter, 0) {
		i = find_next_zero_bit(up->shared, up->npages, i);
		up->dma[i++] = sg_page_iter_dma_address(&iter);
	}
	return 0;
}

/*
 * DMA-map the pages of @up (a MAP's pinned pages) for the device: those it
 * has not in a run of their own, those it has shared; syncs them for the
 * device. Errors: -ENOMEM; -EFAULT the DMA mapping failed.
 */
static int hl_host_pages_get(struct hl_device *hdev, struct hl_userptr *up)
{
	struct sg_page_iter iter;
	struct page **run, *page;
	u64 i = 0, nrun = 0;
	void *entry;
	int rc;

	up->dma = kvmalloc_array(up->npages, sizeof(*up->dma),
				 GFP_KERNEL_ACCOUNT);
	/* Not bitmap_zalloc(): 128 KiB for 4 GiB, need not be contiguous */
	up->shared = kvcalloc(BITS_TO_LONGS(up->npages), sizeof(long),
			      GFP_KERNEL_ACCOUNT);
	run = kvmalloc_array(up->npages, sizeof(*run), GFP_KERNEL_ACCOUNT);
	if (!up->dma || !up->shared || !run) {
		rc = -ENOMEM;
		goto err_free;
	}

	mutex_lock(&hdev->host_pages_lock);
	for_each_sgtable_page(&up->sgta.sgt, &iter, 0) {
		page = sg_page_iter_page(&iter);
		entry = xa_load(&hdev->host_pages, page_to_pfn(page));
		if (entry) {
			rc = hl_host_page_hold(hdev, page, entry, &up->dma[i]);
			if (rc)
				goto err_leave;
			__set_bit(i, up->shared);
		} else {
			rc = xa_err(xa_store(&hdev->host_pages,
					     page_to_pfn(page),
					     HL_HOST_PAGE_IN_RUN,
					     GFP_KERNEL_ACCOUNT));
			if (rc)
				goto err_leave;
			hdev->host_dma_pages++;
			run[nrun++] = page;
		}
		if (!(++i % HL_PIN_BATCH))
			cond_resched();
	}
	WARN_ON_ONCE(i != up->npages);
	rc = hl_host_run_map(hdev, up, run, nrun);
	if (rc)
		goto err_leave;
	mutex_unlock(&hdev->host_pages_lock);
	kvfree(run);

	if (up->run.sgl)
		dma_sync_sgtable_for_device(hdev->dev, &up->run,
					    DMA_BIDIRECTIONAL);
	for_each_set_bit(i, up->shared, up->npages)
		dma_sync_single_for_device(hdev->dev, up->dma[i], PAGE_SIZE,
					   DMA_BIDIRECTIONAL);
	return 0;

err_leave:
	hl_host_pages_leave(hdev, up, i);
	mutex_unlock(&hdev->host_pages_lock);
err_free:
	kvfree(run);
	kvfree(up->shared);
	up->shared = NULL;
	kvfree(up->dma);
	up->dma = NULL;
	return rc;
}

/* Let go of the DMA mappings hl_host_pages_get() made or holds; syncs */
static void hl_host_pages_put(struct hl_device *hdev, struct hl_userptr *up)
{
	u64 i;

	if (up->run.sgl)
		dma_sync_sgtable_for_cpu(hdev->dev, &up->run,
					 DMA_BIDIRECTIONAL);
	for_each_set_bit(i, up->shared, up->npages)
		dma_sync_single_for_cpu(hdev->dev, up->dma[i], PAGE_SIZE,
					DMA_BIDIRECTIONAL);

	mutex_lock(&hdev->host_pages_lock);
	if (up->run.sgl) {
		dma_unmap_sgtable(hdev->dev, &up->run, DMA_BIDIRECTIONAL,
				  DMA_ATTR_SKIP_CPU_SYNC);
		hdev->host_dma_maps--;
	}
	hl_host_pages_leave(hdev, up, up->npages);
	mutex_unlock(&hdev->host_pages_lock);

	sg_free_table(&up->run);
	kvfree(up->shared);
	kvfree(up->dma);
}

static void hl_userptr_unpin(struct sg_table *sgt)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_sg(sgt, sg, i)
		unpin_user_page_range_dirty_lock(sg_page(sg),
						 DIV_ROUND_UP(sg->length, PAGE_SIZE),
						 true);
}

/*
 * Host memory stays mapped for the device for as long as the user keeps
 * the mapping, and the engines access it at any time, as RDMA NICs do: the
 * caches are synced once at each MAP and once at each UNMAP of the pages,
 * explicitly (hl_host_pages_get() and _put()), also where the DMA mapping
 * is shared with other mappings, so that the DMA mappings carry
 * DMA_ATTR_SKIP_CPU_SYNC.
 *
 * May run in another task than the one that pinned (context teardown,
 * device removal): the pages are uncharged from the mm that pinned them.
 */
static void hl_userptr_release(struct hl_device *hdev, struct hl_userptr *up)
{
	hl_host_pages_put(hdev, up);
	hl_userptr_unpin(&up->sgta.sgt);
	sg_free_append_table(&up->sgta);
	atomic64_sub(up->npages, &hdev->pinned_host_pages);
	atomic64_sub(up->npages, &up->mm->pinned_vm);
	mmdrop(up->mm);
	kfree(up);
}

/*
 * Charge @npages to the caller's mm->pinned_vm, within RLIMIT_MEMLOCK
 * unless the caller has CAP_IPC_LOCK (as ib_umem_get() does). -ENOMEM past
 * the limit.
 */
static int hl_userptr_charge(struct mm_struct *mm, u64 npages)
{
	u64 limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;

	if (atomic64_add_return(npages, &mm->pinned_vm) > limit &&
	    !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	return 0;
}

/* Undo hl_userptr_pin() of memory that was never DMA-mapped */
static void hl_userptr_drop(struct hl_userptr *up)
{
	hl_userptr_unpin(&up->sgta.sgt);
	sg_free_append_table(&up->sgta);
	atomic64_sub(up->npages, &up->mm->pinned_vm);
	mmdrop(up->mm);
	kfree(up);
}

/*
 * Pin, in batches of HL_PIN_BATCH pages (no page array of the whole
 * buffer), @size bytes of the caller's memory at @addr. Touches user
 * memory (which may fault for as long as user space wants): called
 * outside the context's gate; hl_userptr_map() maps the pages for the
 * device. Errors: -ENOMEM more pages than the machine has RAM, past
 * RLIMIT_MEMLOCK, or no memory; -EFAULT memory that cannot be pinned for
 * writing; -EINTR a fatal signal.
 */
static struct hl_userptr *hl_userptr_pin(u64 addr, u64 size)
{
	u64 start = round_down(addr, PAGE_SIZE), npages, left;
	struct mm_struct *mm = current->mm;
	struct hl_userptr *up;
	struct page **batch;
	long pinned;
	int rc;

	npages = (round_up(addr + size, PAGE_SIZE) - start) >> PAGE_SHIFT;
	/* Checked before anything is allocated: no more than RAM */
	if (npages > totalram_pages())
		return ERR_PTR(-ENOMEM);

	up = kzalloc(sizeof(*up), GFP_KERNEL_ACCOUNT);
	if (!up)
		return ERR_PTR(-ENOMEM);
	up->npages = npages;
	up->mm = mm;
	mmgrab(mm);

	rc = hl_userptr_charge(mm, npages);
	if (rc)
		goto err_drop_mm;

	batch = (struct page **)__get_free_page(GFP_KERNEL_ACCOUNT);
	if (!batch) {
		rc = -ENOMEM;
		goto err_uncharge;
	}

	for (left = npages; left; left -= pinned, start += pinned << PAGE_SHIFT) {
		if (fatal_signal_pending(current)) {
			rc = -EINTR;
			goto err_unpin;
		}
		pinned = hl_should_fail(HL_FAULT_PIN) ? -ENOMEM :
			 pin_user_pages_fast(start,
					     min_t(u64, left, HL_PIN_BATCH),
					     FOLL_WRITE | FOLL_LONGTERM, batch);
		if (pinned <= 0) {
			rc = pinned == -ENOMEM ? -ENOMEM : -EFAULT;
			goto err_unpin;
		}
		rc = sg_alloc_append_table_from_pages(&up->sgta, batch, pinned, 0,
						      pinned << PAGE_SHIFT, SZ_1G,
						      left - pinned,
						      GFP_KERNEL_ACCOUNT);
		if (rc) {
			unpin_user_pages(batch, pinned);
			goto err_unpin;
		}
		cond_resched();
	}
	free_page((unsigned long)batch);
	return up;

err_unpin:
	free_page((unsigned long)batch);
	hl_userptr_drop(up);
	return ERR_PTR(rc);
err_uncharge:
	atomic64_sub(npages, &mm->pinned_vm);
err_drop_mm:
	mmdrop(mm);
	kfree(up);
	return ERR_PTR(rc);
}

/*
 * DMA-map pinned memory for the accelerator, sharing the DMA mappings of
 * its pages that the device has already; inside the context's gate (the
 * device is bound). Errors: -ENOMEM; -EFAULT the DMA mapping failed. On
 * error the memory stays pinned.
 */
static int hl_userptr_map(struct hl_device *hdev, struct hl_userptr *up)
{
	int rc;

	rc = hl_host_pages_get(hdev, up);
	if (rc)
		return rc;
	atomic64_add(up->npages, &hdev->pinned_host_pages);
	return 0;
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
	struct hl_userptr *up = mapping->userptr;
	u64 page_size = mapping->page_size, i;
	int rc;

	for (i = 0; i < up->npages; i++) {
		rc = hl_mmu_map_page(ctx, mapping->va + i * page_size,
				     up->dma[i], page_size, true);
		if (rc) {
			hl_mapping_unmap_pages(ctx, mapping, i);
			return rc;
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
	struct hl_userptr *up;
	int rc;

	if (in->flags & ~HL_MEM_MAP_FLAGS)
		return -EINVAL;

	mapping = kzalloc(sizeof(*mapping), GFP_KERNEL_ACCOUNT);
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
		/* Pinning faults user memory in: outside the context's gate */
		hl_ctx_pause(ctx);
		up = hl_userptr_pin(addr, size);
		rc = hl_ctx_resume(ctx);
		if (IS_ERR(up)) {
			rc = rc ?: PTR_ERR(up);
			goto err_free_mapping;
		}
		if (!rc)
			rc = hl_userptr_map(hdev, up);
		if (rc) {
			/* Killed meanwhile (-ENODEV), or no DMA mapping */
			hl_userptr_drop(up);
			goto err_free_mapping;
		}
		mapping->userptr = up;
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

static int hl_mem_unmap_va(struct hl_ctx *ctx, u64 va)
{
	struct hl_vm_mapping *mapping;
	int rc = 0;

	mutex_lock(&ctx->mem_lock);
	mapping = hl_mem_find_mapping(ctx, va);
	if (!mapping || mapping->user_va != va)
		rc = -EINVAL;
	else if (mapping->mrs)
		rc = -EBUSY;
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

static int hl_mem_unmap(struct hl_ctx *ctx, struct hl_mem_in *in)
{
	if (in->flags)
		return -EINVAL;
	return hl_mem_unmap_va(ctx, in->unmap.device_virt_addr);
}

/*
 * Undo of ALLOC and MAP when their result did not reach user space (see
 * hl_ioctl_on_finish()): the caller never learnt the handle or address, so
 * only another thread that guessed them can have used them meanwhile (then
 * the undo may fail, and the object stays the guesser's until close).
 */
static void hl_mem_alloc_finish(struct hl_fpriv *fpriv, void *priv, u64 handle,
				bool committed)
{
	if (!committed && hl_mem_free_handle(fpriv->ctx, handle))
		hl_dbg(fpriv->hdev, MEM, "ALLOC undo: handle %llu in use\n",
		       handle);
}

static void hl_mem_map_finish(struct hl_fpriv *fpriv, void *priv, u64 va,
			      bool committed)
{
	/*
	 * Runs inside the context's gate on a live context only (a reset or
	 * removal that killed it meanwhile freed the mapping with the rest).
	 */
	if (committed)
		return;
	if (hl_mem_unmap_va(fpriv->ctx, va))
		hl_dbg(fpriv->hdev, MEM, "MAP undo: 0x%llx in use\n", va);
}

/*
 * Bytes of union hl_mem_in's first member that @in's op uses; the rest
 * must be zero.
 */
static size_t hl_mem_in_used(const struct hl_mem_in *in)
{
	switch (in->op) {
	case HL_MEM_OP_ALLOC:
		return sizeof(in->alloc);
	case HL_MEM_OP_FREE:
		return sizeof(in->free);
	case HL_MEM_OP_MAP:
		return in->flags & HL_MEM_USERPTR ? sizeof(in->map_host) :
						    sizeof(in->map_device);
	case HL_MEM_OP_UNMAP:
		return sizeof(in->unmap);
	default:
		return sizeof(in->export_dmabuf_fd);
	}
}

/**
 * hl_mem_ioctl - HL_IOCTL_MEMORY; errors: union hl_mem_args in the uAPI.
 * @fpriv: the compute node's open file.
 * @data: union hl_mem_args, copied in.
 * @call: the ioctl call.
 *
 * Return: 0 or a negative errno.
 */
int hl_mem_ioctl(struct hl_fpriv *fpriv, void *data, struct hl_ioctl_call *call)
{
	union hl_mem_args *args = data;
	struct hl_ctx *ctx = fpriv->ctx;
	hl_ioctl_finish_t *finish = NULL;
	size_t used;
	u64 out = 0;
	int rc;

	if (args->in.ctx_id)
		return -EINVAL;
	/* Upstream's ops for HW blocks and interrupt timestamps: none here */
	if (args->in.op == HL_MEM_OP_MAP_BLOCK ||
	    args->in.op == HL_MEM_OP_TS_ALLOC)
		return -EOPNOTSUPP;
	if (args->in.pad)
		return -EINVAL;
	used = hl_mem_in_used(&args->in);
	if (memchr_inv((u8 *)&args->in + used, 0,
		       offsetof(struct hl_mem_in, op) - used))
		return -EINVAL;

	switch (args->in.op) {
	case HL_MEM_OP_ALLOC:
		if (ctx->dram_owner) {
			/* Handle 0: nothing to undo */
			rc = hl_mem_alloc_phys(ctx, &args->in);
			break;
		}
		rc = hl_mem_alloc(ctx, &args->in, &out);
		finish = hl_mem_alloc_finish;
		break;
	case HL_MEM_OP_FREE:
		rc = hl_mem_free(ctx, &args->in);
		if (!rc)
			hl_ioctl_no_output(call);
		break;
	case HL_MEM_OP_MAP:
		rc = hl_mem_map(ctx, &args->in, &out);
		finish = hl_mem_map_finish;
		break;
	case HL_MEM_OP_UNMAP:
		rc = hl_mem_unmap(ctx, &args->in);
		if (!rc)
			hl_ioctl_no_output(call);
		break;
	case HL_MEM_OP_EXPORT_DMABUF_FD: {
		int fd;

		rc = hl_dmabuf_export(ctx, &args->in, call, &fd);
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
		if (finish)
			hl_ioctl_on_finish(call, finish, NULL, out);
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
	hl_cb_ctx_release_dma(ctx);
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
	/* The user's accounting goes with it, as upstream's */
	atomic64_sub(atomic64_xchg(&ctx->dram_usage, 0), &hdev->dram_used);
	hl_mem_owner_fini(ctx);
	mutex_destroy(&ctx->mem_lock);
}

/**
 * hl_mem_owner_init - without a DRAM MMU, make a new context the owner of
 * the whole user DRAM: take all of it, clean, from the pool.
 * @ctx: the context being created; the only one of its device (the
 *	compute node opens once).
 *
 * With a DRAM MMU it does nothing. The caller waited for the scrubber
 * (hl_scrub_wait_idle()), so this waits only for DRAM released meanwhile.
 *
 * Return: 0; -EBUSY the DRAM is not all free: a previous owner's export
 * (or one in quarantine, dmabuf.c) still holds it; -EINTR a signal while
 * waiting for the scrubber; -ENOMEM.
 */
int hl_mem_owner_init(struct hl_ctx *ctx)
{
	struct asic_fixed_properties *prop = &ctx->hdev->asic_prop;
	struct hl_vm_phys_pg_pack *pack;

	if (prop->dram_supports_virtual_memory || !prop->dram_user_size)
		return 0;
	pack = hl_pg_pack_alloc(ctx, prop->dram_user_size,
				prop->dram_page_size, true, true);
	if (IS_ERR(pack))
		return PTR_ERR(pack) == -ENOMEM ? -EBUSY : PTR_ERR(pack);
	ctx->dram_owner = pack;
	return 0;
}

/**
 * hl_mem_owner_fini - the context no longer owns the user DRAM: it goes to
 * the scrubber with the last reference (an export may keep it).
 * @ctx: the context; no job or ioctl of it runs.
 */
void hl_mem_owner_fini(struct hl_ctx *ctx)
{
	if (!ctx->dram_owner)
		return;
	hl_pg_pack_put(ctx->dram_owner);
	ctx->dram_owner = NULL;
}

/**
 * hl_mem_init - create the device's DRAM pool, to be scrubbed (scrub.c).
 * @hdev: the device, with asic_prop filled.
 *
 * Return: 0 or -ENOMEM.
 */
int hl_mem_init(struct hl_device *hdev)
{
	return hl_scrub_init(hdev);
}

/**
 * hl_mem_fini - destroy the DRAM pool and the host pages' DMA mappings; every
 * allocation and mapping is gone.
 * @hdev: the device.
 */
void hl_mem_fini(struct hl_device *hdev)
{
	hl_scrub_fini(hdev);
	/* Every host mapping released its pages */
	WARN_ON(!xa_empty(&hdev->host_pages) || hdev->host_dma_maps);
	xa_destroy(&hdev->host_pages);
	mutex_destroy(&hdev->host_pages_lock);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: memory objects of a context.
 */
#ifndef HL_MEMORY_H_
#define HL_MEMORY_H_

#include <linux/kref.h>
#include <linux/scatterlist.h>
#include <linux/types.h>

struct hl_ctx;
struct hl_device;
struct hl_fpriv;
struct hl_ioctl_call;

/**
 * struct hl_vm_phys_pg_pack - a device-memory allocation (DRAM pages).
 * @refcount: held by the handle, by each mapping of it and by each export;
 *	the DRAM goes back to the pool with the last reference.
 * @hdev: the device (the context's, or an export's, reference keeps it).
 * @handle: the handle in its context's handles, 0 once freed by the user
 *	or once the context is gone; an export may hold the allocation past
 *	its context.
 * @npages: number of pages.
 * @page_size: DRAM page size of the allocation.
 * @total_size: @npages * @page_size.
 * @pages: HBM device physical address of each page.
 * @contiguous: allocated as one range.
 * @owner: the whole user DRAM, owned by a context of a device without a
 *	DRAM MMU (hl_mem_owner_init()); not counted in hdev->dram_used.
 * @mapped: number of mappings (under ctx->mem_lock).
 * @exported: number of live dma-buf exports linked to the context (under
 *	hdev->dmabuf_lock; raised with ctx->mem_lock held too).
 * @importer_maps: per page, the importers' mappings of it through any
 *	export, at most HL_DMABUF_MAX_PAGE_MAPS (under the reservation lock
 *	that every export of the allocation shares: its context's resv).
 * @quarantines: the quarantines of exports of it (dmabuf.c), under
 *	hl_dmabuf_quarantine_lock: the allocation counts once in
 *	hdev->dram_quarantined however many of its exports are quarantined.
 */
struct hl_vm_phys_pg_pack {
	struct kref refcount;
	struct hl_device *hdev;
	u64 handle;
	u64 npages;
	u64 page_size;
	u64 total_size;
	u64 *pages;
	bool contiguous;
	bool owner;
	u32 mapped;
	u32 exported;
	u8 *importer_maps;
	u32 quarantines;
};

/**
 * struct hl_userptr - pinned, DMA-mapped host memory.
 * @npages: number of pinned pages.
 * @sgta: the pinned pages (sgta.sgt), built in batches; the table itself
 *	is not DMA-mapped.
 * @run: those of its pages that the device had not DMA-mapped at the MAP,
 *	DMA-mapped together, its own; empty (@run.sgl NULL) if none.
 * @shared: a bit per page, set for a page that the device had DMA-mapped
 *	already at the MAP: the MAP holds that page's own DMA mapping,
 *	shared with the device's other mappings of it (memory.c).
 * @dma: each page's DMA address for the device, in @run or shared.
 * @mm: the mm that pinned them, whose pinned_vm they are charged to; held
 *	(mmgrab) so that the release, in whatever task it runs, uncharges it.
 */
struct hl_userptr {
	u64 npages;
	struct sg_append_table sgta;
	struct sg_table run;
	unsigned long *shared;
	dma_addr_t *dma;
	struct mm_struct *mm;
};

/**
 * struct hl_vm_mapping - a range of a context's device VA space.
 * @va: first device VA (page aligned).
 * @user_va: the address MAP returned (@va plus the host buffer's offset in
 *	its first page); UNMAP takes this one.
 * @size: bytes of VA, a multiple of @page_size.
 * @page_size: the page size of the mapping.
 * @host: maps host memory (@userptr), else device memory (@pack).
 * @pack: the device-memory allocation, holding a reference.
 * @userptr: the pinned host memory, owned.
 * @exported: number of live dma-buf exports made through this mapping
 *	(under hdev->dmabuf_lock; raised with ctx->mem_lock held too).
 * @busy: being mapped or unmapped: lookups do not see it (under
 *	ctx->mem_lock).
 * @mrs: NIC memory regions that lie in the mapping (nic_mr.c), under
 *	ctx->mem_lock: UNMAP is -EBUSY while any.
 */
struct hl_vm_mapping {
	u64 va;
	u64 user_va;
	u64 size;
	u64 page_size;
	bool host;
	struct hl_vm_phys_pg_pack *pack;
	struct hl_userptr *userptr;
	u32 exported;
	bool busy;
	u32 mrs;
};

int hl_mem_init(struct hl_device *hdev);
void hl_mem_fini(struct hl_device *hdev);
void hl_mem_ctx_init(struct hl_ctx *ctx);
void hl_mem_ctx_fini(struct hl_ctx *ctx);
void hl_mem_ctx_release_host(struct hl_ctx *ctx);
int hl_mem_owner_init(struct hl_ctx *ctx);
void hl_mem_owner_fini(struct hl_ctx *ctx);
int hl_mem_ioctl(struct hl_fpriv *fpriv, void *data, struct hl_ioctl_call *call);
void hl_pg_pack_get(struct hl_vm_phys_pg_pack *pack);
void hl_pg_pack_put(struct hl_vm_phys_pg_pack *pack);
struct hl_vm_mapping *hl_mem_find_mapping(struct hl_ctx *ctx, u64 va);

#endif /* HL_MEMORY_H_ */

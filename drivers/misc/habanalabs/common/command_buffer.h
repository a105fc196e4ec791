/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: command buffers owned by the driver (HL_IOCTL_CB), mapped by
 * user space with mmap() and named by handle in command submissions.
 */
#ifndef HL_COMMAND_BUFFER_H_
#define HL_COMMAND_BUFFER_H_

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/maple_tree.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

struct address_space;
struct file;
struct hl_cs_job;
struct hl_ctx;
struct hl_fpriv;
struct hl_ioctl_call;
struct page;
struct vm_area_struct;

/*
 * A CB handle is its mmap offset, upstream's encoding: (id | type) <<
 * PAGE_SHIFT with the CB type in bits 59.. of the offset, so that it is
 * never a device VA (those are below 2^48).
 */
#define HL_CB_MMAP_TYPE_SHIFT	(59 - PAGE_SHIFT)

/*
 * Bytes of the driver's CB copies that a context's submissions not
 * completed may hold (struct hl_cb_mgr.copy_bytes): each external queue's
 * job has one, up to HL_CS_MAX_CB_SIZE, so that neither
 * HL_MAX_JOBS_PER_CS jobs naming one large CB nor many submissions pin
 * unbounded kernel memory.
 */
#define HL_CB_COPY_MAX		SZ_256M
#define HL_CB_MMAP_TYPE_MASK	(0x1full << HL_CB_MMAP_TYPE_SHIFT)
#define HL_CB_MMAP_TYPE_CB	(0x2ull << HL_CB_MMAP_TYPE_SHIFT)

/**
 * struct hl_cb - a command buffer.
 * @refcount: held by the context's handle table (until DESTROY or the
 *	teardown), by each job of a CS that names it (until the CS completes
 *	or is dropped) and by each user mapping (VMA, until unmapped); the
 *	last reference queues @release_work.
 * @ctx: the context; the CB holds a reference on it.
 * @node: in the context's hl_cb_mgr.list until released.
 * @id: the handle's ID in hl_cb_mgr.handles: the first page of the CB's
 *	mmap offset range, @npages pages of the driver-wide allocator that
 *	no other CB has until this one is released (command_buffer.c).
 * @handle: the handle returned to user space (and the mmap offset).
 * @size: the allocation, whole pages.
 * @npages: number of @pages.
 * @pages: the CB's pages; each user mapping holds its own page references,
 *	so a page never changes hands while a process maps it.
 * @sgt: the pages' DMA mapping for the device, when @device_va is set.
 * @device_va: device VA of the MMU mapping (HL_CB_FLAGS_MAP), else 0; set
 *	at creation, cleared when unmapped (under hl_cb_mgr.lock).
 * @dma_mapped: @sgt is DMA-mapped (under hl_cb_mgr.lock).
 * @cs_cnt: running CSs that name the CB (HL_CB_OP_INFO's usage count).
 * @mapping: the address space of the file user mappings were made through
 *	(to remove them at a reset), or NULL (under hl_cb_mgr.lock).
 * @release_work: frees the CB after the last reference (hl_wq): the
 *	last one may go in a CS's completion.
 */
struct hl_cb {
	struct kref refcount;
	struct hl_ctx *ctx;
	struct list_head node;
	u32 id;
	u64 handle;
	u32 size;
	u32 npages;
	struct page **pages;
	struct sg_table sgt;
	u64 device_va;
	bool dma_mapped;
	atomic_t cs_cnt;
	struct address_space *mapping;
	struct work_struct release_work;
};

/**
 * struct hl_cb_mgr - the command buffers of a context.
 * @lock: Protects @handles, @list, @va, @dead and the mapping state of
 *	each CB (device_va, dma_mapped, mapping).
 * @handles: CBs by ID, each entry holding a reference.
 * @list: every CB of the context not released yet, with a handle or not.
 * @va: the device VA range of MMU-mapped CBs, in pages.
 * @dead: the context was torn down: no CB is created, mapped or used.
 * @copy_bytes: bytes of the driver's copies of CBs (external queues' jobs)
 *	that the context's submissions not completed hold, at most
 *	HL_CB_COPY_MAX; atomic, taken per job before its copy is made and
 *	given back with it (hl_cb_jobs_get(), hl_cb_jobs_put()).
 */
struct hl_cb_mgr {
	struct mutex lock; /* Protects: handles, list, va, dead, CB mapping state */
	struct xarray handles;
	struct list_head list;
	struct maple_tree va;
	bool dead;
	atomic64_t copy_bytes;
};

int hl_cb_ioctl(struct hl_fpriv *fpriv, void *data, struct hl_ioctl_call *call);
int hl_cb_mmap(struct file *filp, struct vm_area_struct *vma);
void hl_cb_ctx_init(struct hl_ctx *ctx);
void hl_cb_ctx_fini(struct hl_ctx *ctx);
void hl_cb_ctx_release_dma(struct hl_ctx *ctx);
void hl_cb_ctx_destroy(struct hl_ctx *ctx);
int hl_cb_jobs_get(struct hl_ctx *ctx, struct hl_cs_job *jobs, u32 n);
void hl_cb_jobs_put(struct hl_cs_job *jobs, u32 n);
u32 hl_cb_ctx_count(struct hl_ctx *ctx);
void hl_cb_module_fini(void);

#endif /* HL_COMMAND_BUFFER_H_ */

// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: command buffers owned by the driver (HL_IOCTL_CB).
 *
 * A CB is a set of zeroed host pages. User space maps them with mmap() at
 * the CB's handle to write packets; with HL_CB_FLAGS_MAP they are also
 * DMA-mapped for the device and mapped into the context's device MMU, in
 * a VA range of their own (asic_prop.va_cb_start .. va_cb_end), and a CS
 * chunk may then name the CB by handle: the job fetches it through the
 * MMU at that VA, as it fetches any command buffer.
 *
 * Who holds what: the context's handle table holds a reference on each CB
 * until HL_CB_OP_DESTROY or the context's teardown; each job of a CS that
 * names the CB holds one until the CS completes or is dropped (the usage
 * count counts those CSs); each user mapping (VMA) holds one until it is
 * unmapped; the CB holds a reference on its context. So a CB destroyed
 * while mapped stays on its context's list, and the context's death
 * reaches its mappings. The pages go into a mapping at its first access
 * (hl_cb_vm_fault()), each with a reference of its own.
 *
 * mmap offsets: a CB's handle is its mmap offset, and its mappings cover
 * one page of offset per page of the CB. Every open file of a device node
 * shares the node's address space, where a context's death removes its
 * CBs' offset ranges (unmap_mapping_range()), so the ranges come from one
 * allocator for the whole driver (hl_cb_offsets): a range is never in two
 * CBs at once, and it is free again only once its CB was released, i.e.
 * when no mapping of it is left anywhere. The allocator is cyclic: a range
 * comes back only after the rest of the 2^32 pages of offsets were handed
 * out, so a stale handle names nothing for a long time.
 *
 * Death (hl_cb_ctx_fini(), from hl_ctx_teardown() once no CS of the
 * context runs; hl_cb_ctx_release_dma() when the device goes away under
 * a live file): every CB of the context, with a handle or not, has its
 * pages removed from every user mapping (a later access gets SIGBUS) and
 * no new mapping is made. The teardown also drops the handles and the MMU
 * and DMA mappings: after a hard reset or an unbind nothing of the
 * context's CBs stays reachable from user space or from the device. A
 * normal close cannot have user mappings left (each holds the file).
 */

#include <linux/dma-mapping.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "habanalabs.h"
#include "command_buffer.h"
#include "command_submission.h"
#include "context.h"
#include "debug.h"
#include "device.h"
#include "fault.h"
#include "ioctl.h"
#include "mmu.h"

/*
 * The mmap offset ranges (in pages, without the type bits) of every CB of
 * the driver not released yet; entry: the CB. Its own lock; the cursor of
 * the cyclic allocation is a hint (READ_ONCE/WRITE_ONCE), the tree alone
 * keeps the ranges apart.
 */
static struct maple_tree hl_cb_offsets =
	MTREE_INIT(hl_cb_offsets, MT_FLAGS_ALLOC_RANGE);
static unsigned long hl_cb_offset_next = 1;

/* IDs, i.e. mmap offsets in pages: 1 .. U32_MAX, the last page included */
#define HL_CB_ID_MIN	1ul
#define HL_CB_ID_MAX	((unsigned long)U32_MAX)

static u64 hl_cb_handle_of(u32 id)
{
	return ((u64)id | HL_CB_MMAP_TYPE_CB) << PAGE_SHIFT;
}

/*
 * Give @cb an ID: the first page of an offset range of its size that no
 * other CB of the driver has, after the last one handed out (cyclic).
 */
static int hl_cb_offset_alloc(struct hl_cb *cb)
{
	unsigned long next = READ_ONCE(hl_cb_offset_next), first;
	int rc = -EBUSY;

	if (next < HL_CB_ID_MIN || next > HL_CB_ID_MAX - cb->npages + 1)
		next = HL_CB_ID_MIN;
	if (next > HL_CB_ID_MIN)
		rc = mtree_alloc_range(&hl_cb_offsets, &first, cb, cb->npages,
				       next, HL_CB_ID_MAX, GFP_KERNEL_ACCOUNT);
	if (rc == -EBUSY)
		rc = mtree_alloc_range(&hl_cb_offsets, &first, cb, cb->npages,
				       HL_CB_ID_MIN, HL_CB_ID_MAX,
				       GFP_KERNEL_ACCOUNT);
	if (rc)
		return rc == -EBUSY ? -ENOMEM : rc;
	WRITE_ONCE(hl_cb_offset_next, first + cb->npages);
	cb->id = first;
	return 0;
}

/* The CB was released: no mapping of its offsets is left */
static void hl_cb_offset_free(struct hl_cb *cb)
{
	if (cb->id)
		mtree_erase(&hl_cb_offsets, cb->id);
}

/* The ID a handle names, or 0 when it is not a CB handle */
static u32 hl_cb_id_of(u64 handle)
{
	u64 pgoff = handle >> PAGE_SHIFT;

	if (offset_in_page(handle) ||
	    (pgoff & HL_CB_MMAP_TYPE_MASK) != HL_CB_MMAP_TYPE_CB)
		return 0;
	pgoff &= ~HL_CB_MMAP_TYPE_MASK;
	return pgoff > U32_MAX ? 0 : pgoff;
}

/* Whether a CS chunk's cb_handle is a CB handle rather than a device VA */
static bool hl_cb_is_handle(u64 cb_handle)
{
	return ((cb_handle >> PAGE_SHIFT) & HL_CB_MMAP_TYPE_MASK) != 0;
}

/* The CB of @handle in @mgr, or NULL; called with mgr->lock held */
static struct hl_cb *hl_cb_lookup_locked(struct hl_cb_mgr *mgr, u64 handle)
{
	u32 id = hl_cb_id_of(handle);

	lockdep_assert_held(&mgr->lock);
	return id ? xa_load(&mgr->handles, id) : NULL;
}

/*
 * Remove a CB's device mapping: page-table entries (when @hw, i.e. the
 * device is still there) and VA. The DMA mapping stays until
 * hl_cb_dma_unmap_locked(), which the caller runs after hl_mmu_invalidate():
 * until then an engine may still hold a translation to the CB's DMA
 * addresses, and an address unmapped before that could be reused by another
 * mapping of the device, another context's memory.
 */
static void hl_cb_unmap_locked(struct hl_cb *cb, bool hw)
{
	struct hl_ctx *ctx = cb->ctx;
	u32 i;

	lockdep_assert_held(&ctx->cb_mgr.lock);
	if (!cb->device_va)
		return;
	if (hw)
		for (i = 0; i < cb->npages; i++)
			hl_mmu_unmap_page(ctx, cb->device_va + i * PAGE_SIZE,
					  PAGE_SIZE);
	mtree_erase(&ctx->cb_mgr.va, cb->device_va >> PAGE_SHIFT);
	cb->device_va = 0;
}

/* Undo the CB's DMA mapping, once no engine can reach it (see above) */
static void hl_cb_dma_unmap_locked(struct hl_cb *cb)
{
	lockdep_assert_held(&cb->ctx->cb_mgr.lock);
	if (cb->dma_mapped) {
		dma_unmap_sgtable(cb->ctx->hdev->dev, &cb->sgt,
				  DMA_BIDIRECTIONAL, 0);
		cb->dma_mapped = false;
	}
}

/* Remove the CB's pages from every user mapping (a later access: SIGBUS) */
static void hl_cb_zap_locked(struct hl_cb *cb)
{
	lockdep_assert_held(&cb->ctx->cb_mgr.lock);
	if (cb->mapping)
		unmap_mapping_range(cb->mapping, cb->handle, cb->size, 1);
}

static void hl_cb_free_pages(struct hl_cb *cb)
{
	u32 i;

	for (i = 0; i < cb->npages; i++)
		if (cb->pages[i])
			__free_page(cb->pages[i]);
	kvfree(cb->pages);
}

static void hl_cb_release_work(struct work_struct *work)
{
	struct hl_cb *cb = container_of(work, struct hl_cb, release_work);
	struct hl_ctx *ctx = cb->ctx;
	struct hl_device *hdev = ctx->hdev;
	bool hw, mapped;
	int idx;

	idx = hl_device_enter(hdev);
	hw = !hl_device_unplugged(hdev);
	mutex_lock(&ctx->cb_mgr.lock);
	mapped = cb->device_va;
	hl_cb_unmap_locked(cb, hw);
	/*
	 * The pages may be reused: nothing may reach them through the MMU.
	 * Under the lock, so that the context's teardown, which takes it,
	 * cannot free the page tables meanwhile.
	 */
	if (mapped && hw)
		hl_mmu_invalidate(ctx);
	hl_cb_dma_unmap_locked(cb);
	list_del(&cb->node);
	mutex_unlock(&ctx->cb_mgr.lock);
	hl_device_exit(hdev, idx);

	hl_cb_offset_free(cb);
	sg_free_table(&cb->sgt);
	hl_cb_free_pages(cb);
	kfree(cb);
	atomic_dec(&hdev->cbs_alive);
	hl_ctx_put(ctx);
}

/* The last reference may go in a CS's completion: free from a work item */
static void hl_cb_release(struct kref *ref)
{
	struct hl_cb *cb = container_of(ref, struct hl_cb, refcount);

	INIT_WORK(&cb->release_work, hl_cb_release_work);
	queue_work(hl_wq, &cb->release_work);
}

static void hl_cb_put(struct hl_cb *cb)
{
	kref_put(&cb->refcount, hl_cb_release);
}

/* Map a CB into the device MMU; called with the manager's lock held */
static int hl_cb_map_locked(struct hl_cb *cb)
{
	struct hl_ctx *ctx = cb->ctx;
	struct hl_device *hdev = ctx->hdev;
	struct asic_fixed_properties *prop = &hdev->asic_prop;
	u64 off, mapped = 0;
	struct scatterlist *sg;
	unsigned long first;
	unsigned int i;
	int rc;

	lockdep_assert_held(&ctx->cb_mgr.lock);

	rc = mtree_alloc_range(&ctx->cb_mgr.va, &first, cb, cb->npages,
			       prop->va_cb_start >> PAGE_SHIFT,
			       (prop->va_cb_end >> PAGE_SHIFT) - 1,
			       GFP_KERNEL_ACCOUNT);
	if (rc)
		return rc == -EBUSY ? -ENOMEM : rc;
	cb->device_va = (u64)first << PAGE_SHIFT;

	rc = sg_alloc_table_from_pages(&cb->sgt, cb->pages, cb->npages, 0,
				       cb->size, GFP_KERNEL_ACCOUNT);
	if (rc)
		goto err_release_va;
	rc = hl_should_fail(HL_FAULT_DMA_MAP) ? -ENOMEM :
	     dma_map_sgtable(hdev->dev, &cb->sgt, DMA_BIDIRECTIONAL, 0);
	if (rc)
		goto err_release_va;
	cb->dma_mapped = true;

	for_each_sgtable_dma_sg(&cb->sgt, sg, i) {
		for (off = 0; off < sg_dma_len(sg); off += PAGE_SIZE) {
			rc = hl_mmu_map_page(ctx, cb->device_va + mapped * PAGE_SIZE,
					     sg_dma_address(sg) + off, PAGE_SIZE,
					     true);
			if (rc)
				goto err_unmap_pages;
			mapped++;
		}
	}
	hl_mmu_invalidate(ctx);
	return 0;

err_unmap_pages:
	while (mapped--)
		hl_mmu_unmap_page(ctx, cb->device_va + mapped * PAGE_SIZE,
				  PAGE_SIZE);
	hl_mmu_invalidate(ctx);
err_release_va:
	/* No page-table entry is left: the DMA mapping may go at once */
	hl_cb_unmap_locked(cb, false);
	hl_cb_dma_unmap_locked(cb);
	return rc;
}

static struct hl_cb *hl_cb_alloc(struct hl_ctx *ctx, u32 size)
{
	struct hl_cb *cb;
	u32 i;

	cb = kzalloc(sizeof(*cb), GFP_KERNEL_ACCOUNT);
	if (!cb)
		return NULL;
	cb->size = PAGE_ALIGN(size);
	cb->npages = cb->size >> PAGE_SHIFT;
	cb->pages = kvcalloc(cb->npages, sizeof(*cb->pages), GFP_KERNEL_ACCOUNT);
	if (!cb->pages)
		goto err_free_cb;
	for (i = 0; i < cb->npages; i++) {
		cb->pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!cb->pages[i])
			goto err_free_pages;
	}
	kref_init(&cb->refcount);
	atomic_set(&cb->cs_cnt, 0);
	cb->ctx = ctx;
	return cb;

err_free_pages:
	hl_cb_free_pages(cb);
err_free_cb:
	kfree(cb);
	return NULL;
}

static int hl_cb_create(struct hl_ctx *ctx, u32 size, bool map, u64 *handle)
{
	struct hl_cb_mgr *mgr = &ctx->cb_mgr;
	struct hl_cb *cb;
	int rc;

	cb = hl_cb_alloc(ctx, size);
	if (!cb)
		return -ENOMEM;

	mutex_lock(&mgr->lock);
	if (mgr->dead) {
		rc = -ENODEV;
		goto err_unlock;
	}
	rc = hl_cb_offset_alloc(cb);
	if (rc)
		goto err_unlock;
	rc = xa_insert(&mgr->handles, cb->id, cb, GFP_KERNEL_ACCOUNT);
	if (rc)
		goto err_unlock;
	cb->handle = hl_cb_handle_of(cb->id);
	if (map) {
		rc = hl_cb_map_locked(cb);
		if (rc)
			goto err_erase;
	}
	hl_ctx_get(ctx);
	atomic_inc(&ctx->hdev->cbs_alive);
	list_add_tail(&cb->node, &mgr->list);
	mutex_unlock(&mgr->lock);

	*handle = cb->handle;
	return 0;

err_erase:
	xa_erase(&mgr->handles, cb->id);
err_unlock:
	mutex_unlock(&mgr->lock);
	hl_cb_offset_free(cb);
	sg_free_table(&cb->sgt);
	hl_cb_free_pages(cb);
	kfree(cb);
	return rc;
}

/* Drop the handle of a CB; the CB goes with its last reference */
static int hl_cb_destroy(struct hl_ctx *ctx, u64 handle)
{
	struct hl_cb_mgr *mgr = &ctx->cb_mgr;
	struct hl_cb *cb;

	mutex_lock(&mgr->lock);
	cb = hl_cb_lookup_locked(mgr, handle);
	if (cb)
		xa_erase(&mgr->handles, cb->id);
	mutex_unlock(&mgr->lock);
	if (!cb)
		return -EINVAL;
	hl_cb_put(cb);
	return 0;
}

static int hl_cb_info(struct hl_ctx *ctx, u64 handle, u32 flags,
		      struct hl_cb_out *out)
{
	struct hl_cb_mgr *mgr = &ctx->cb_mgr;
	struct hl_cb *cb;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	mutex_lock(&mgr->lock);
	cb = hl_cb_lookup_locked(mgr, handle);
	if (!cb)
		rc = -EINVAL;
	else if (!(flags & HL_CB_FLAGS_GET_DEVICE_VA))
		out->usage_cnt = atomic_read(&cb->cs_cnt);
	else if (cb->device_va)
		out->device_va = cb->device_va;
	else
		rc = -EINVAL;
	mutex_unlock(&mgr->lock);
	return rc;
}

/*
 * hl_ioctl_on_finish() of HL_CB_OP_CREATE: when the handle did not reach
 * user space, the CB is destroyed again.
 */
static void hl_cb_create_finish(struct hl_fpriv *fpriv, void *priv, u64 handle,
				bool committed)
{
	if (!committed)
		hl_cb_destroy(fpriv->ctx, handle);
}

/**
 * hl_cb_ioctl - HL_IOCTL_CB: create, destroy and query command buffers.
 * @fpriv: the compute node's open file.
 * @data: union hl_cb_args, copied in; out is returned.
 * @call: the ioctl call.
 *
 * Errors: listed in the kernel-doc of union hl_cb_args (uAPI header).
 *
 * Return: 0 or a negative errno.
 */
int hl_cb_ioctl(struct hl_fpriv *fpriv, void *data, struct hl_ioctl_call *call)
{
	union hl_cb_args *args = data;
	struct hl_cb_in in = args->in;
	struct hl_ctx *ctx = fpriv->ctx;
	u64 handle;
	int rc;

	if (!ctx || in.ctx_id)
		return -EINVAL;

	switch (in.op) {
	case HL_CB_OP_CREATE:
		if (in.cb_handle || (in.flags & ~HL_CB_FLAGS_MAP) ||
		    !in.cb_size || in.cb_size > HL_MAX_CB_SIZE)
			return -EINVAL;
		rc = hl_cb_create(ctx, in.cb_size, in.flags & HL_CB_FLAGS_MAP,
				  &handle);
		if (rc)
			return rc;
		memset(&args->out, 0, sizeof(args->out));
		args->out.cb_handle = handle;
		hl_ioctl_on_finish(call, hl_cb_create_finish, NULL, handle);
		return 0;
	case HL_CB_OP_DESTROY:
		if (in.cb_size || in.flags)
			return -EINVAL;
		rc = hl_cb_destroy(ctx, in.cb_handle);
		if (!rc)
			hl_ioctl_no_output(call);
		return rc;
	case HL_CB_OP_INFO:
		if (in.cb_size || (in.flags & ~HL_CB_FLAGS_GET_DEVICE_VA))
			return -EINVAL;
		return hl_cb_info(ctx, in.cb_handle, in.flags, &args->out);
	default:
		return -EINVAL;
	}
}

/*
 * A page of a mapping is inserted at its first access, not by mmap(): the
 * core links a new VMA into the file's address space only after
 * f_op->mmap returns, so a context's death in between would not find
 * pages inserted there, and they would outlive it. Under the manager's
 * lock, which the death holds from marking it dead through the zap: a
 * fault either inserts before, and the zap removes the page, or finds
 * the manager dead (SIGBUS).
 */
static vm_fault_t hl_cb_vm_fault(struct vm_fault *vmf)
{
	struct hl_cb *cb = vmf->vma->vm_private_data;
	struct hl_cb_mgr *mgr = &cb->ctx->cb_mgr;
	pgoff_t i = vmf->pgoff - (cb->handle >> PAGE_SHIFT);
	vm_fault_t ret = VM_FAULT_SIGBUS;

	mutex_lock(&mgr->lock);
	if (!mgr->dead && i < cb->npages)
		ret = vmf_insert_page(vmf->vma, vmf->address, cb->pages[i]);
	mutex_unlock(&mgr->lock);
	return ret;
}

/* A VMA split off or copied (mremap, fork) holds the CB as well */
static void hl_cb_vm_open(struct vm_area_struct *vma)
{
	struct hl_cb *cb = vma->vm_private_data;

	kref_get(&cb->refcount);
}

static void hl_cb_vm_close(struct vm_area_struct *vma)
{
	hl_cb_put(vma->vm_private_data);
}

static const struct vm_operations_struct hl_cb_vm_ops = {
	.fault = hl_cb_vm_fault,
	.open = hl_cb_vm_open,
	.close = hl_cb_vm_close,
};

/**
 * hl_cb_mmap - mmap() of the compute node: map a command buffer.
 * @filp: the compute node's file.
 * @vma: the mapping; its offset is the CB's handle, its length at most the
 *	CB's size; it must be MAP_SHARED.
 *
 * The mapping holds a reference on the CB until it is unmapped, so the
 * context's death finds it even after HL_CB_OP_DESTROY. Its pages come
 * at the first access (hl_cb_vm_fault()).
 *
 * Return: 0; -EINVAL no CB at that offset, too long, not shared, or made
 * through another file's address space than the CB's earlier mappings;
 * -ENODEV the context died (a reset or the device's removal).
 */
int hl_cb_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct hl_fpriv *fpriv = filp->private_data;
	struct hl_ctx *ctx = fpriv->ctx;
	unsigned long npages = vma_pages(vma);
	struct hl_cb_mgr *mgr;
	struct hl_cb *cb;
	int rc;

	if (!ctx)
		return -ENODEV;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;

	mgr = &ctx->cb_mgr;
	mutex_lock(&mgr->lock);
	if (mgr->dead) {
		rc = -ENODEV;
		goto out_unlock;
	}
	cb = hl_cb_lookup_locked(mgr, (u64)vma->vm_pgoff << PAGE_SHIFT);
	if (!cb || npages > cb->npages ||
	    (cb->mapping && cb->mapping != filp->f_mapping)) {
		rc = -EINVAL;
		goto out_unlock;
	}
	cb->mapping = filp->f_mapping;
	/* VM_MIXEDMAP: the fault inserts pages under the read lock */
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY |
			  VM_MIXEDMAP);
	kref_get(&cb->refcount);
	vma->vm_private_data = cb;
	vma->vm_ops = &hl_cb_vm_ops;
	rc = 0;
out_unlock:
	mutex_unlock(&mgr->lock);
	return rc;
}

/*
 * An external queue's job: the driver's copy of the first @job->cb_size
 * bytes of @cb, which the engine runs (hl_cs_job_kcb()); what user space
 * writes into the CB's pages afterwards changes nothing of it.
 */
static int hl_cb_job_copy(struct hl_cs_job *job, struct hl_cb *cb)
{
	atomic64_t *bytes = &job->ctx->cb_mgr.copy_bytes;
	u32 off, n;
	u8 *copy;

	/* Room in the context's budget until earlier submissions complete */
	if (atomic64_add_return(job->cb_size, bytes) > HL_CB_COPY_MAX) {
		atomic64_sub(job->cb_size, bytes);
		return -EAGAIN;
	}

	/* TEST ONLY: the live pages, what a driver without the copy runs */
	if (hl_bug_injected(HL_INJECT_CB_LIVE)) {
		job->kcb_copy = vmap(cb->pages, cb->npages, VM_MAP, PAGE_KERNEL);
		if (!job->kcb_copy) {
			atomic64_sub(job->cb_size, bytes);
			return -ENOMEM;
		}
		job->kcb_live = true;
		job->kcb = job->kcb_copy;
		return 0;
	}

	copy = kvmalloc(job->cb_size, GFP_KERNEL_ACCOUNT);
	if (!copy) {
		atomic64_sub(job->cb_size, bytes);
		return -ENOMEM;
	}
	for (off = 0; off < job->cb_size; off += n) {
		n = min_t(u32, PAGE_SIZE, job->cb_size - off);
		memcpy_from_page(copy + off, cb->pages[off >> PAGE_SHIFT], 0, n);
	}
	job->kcb_copy = copy;
	job->kcb = copy;
	return 0;
}

/**
 * hl_cb_jobs_get - resolve the jobs of a CS that name a CB by handle.
 * @ctx: the submitting context.
 * @jobs: the jobs. A job of an external queue (its ext set) must name a
 *	CB of @ctx by handle, mapped into the MMU or not: it gets a reference
 *	on the CB in its cb field and the driver's copy of the CB's first
 *	cb_size bytes in kcb (cb_va 0), which its queue runs. Any other job
 *	whose cb_va is a CB handle gets the CB's device VA, and a reference
 *	on the CB in its cb field.
 * @n: number of jobs.
 *
 * Return: 0; -EINVAL (an external queue's chunk whose cb_handle is no
 * handle, a handle of no CB of the context, for another queue a CB not
 * mapped into the MMU, or a cb_size beyond the CB), -EAGAIN (the copies
 * do not fit in what the context's submissions not completed leave of
 * HL_CB_COPY_MAX) or -ENOMEM (they never fit, or no memory), with no
 * reference taken and no copy left.
 */
int hl_cb_jobs_get(struct hl_ctx *ctx, struct hl_cs_job *jobs, u32 n)
{
	struct hl_cb_mgr *mgr = &ctx->cb_mgr;
	struct hl_cb *cb;
	u64 copies = 0;
	int rc = 0;
	u32 i;

	/* Copies that would never fit, whatever completes */
	for (i = 0; i < n; i++)
		if (jobs[i].ext)
			copies += jobs[i].cb_size;
	if (copies > HL_CB_COPY_MAX)
		return -ENOMEM;

	mutex_lock(&mgr->lock);
	for (i = 0; i < n; i++) {
		if (!jobs[i].ext && !hl_cb_is_handle(jobs[i].cb_va))
			continue;
		cb = hl_cb_lookup_locked(mgr, jobs[i].cb_va);
		if (!cb || (!jobs[i].ext && !cb->device_va) ||
		    jobs[i].cb_size > cb->size) {
			rc = -EINVAL;
			break;
		}
		kref_get(&cb->refcount);
		atomic_inc(&cb->cs_cnt);
		jobs[i].cb = cb;
		jobs[i].cb_va = jobs[i].ext ? 0 : cb->device_va;
	}
	mutex_unlock(&mgr->lock);

	/* The copies, outside the lock: each job's reference keeps its pages */
	for (i = 0; !rc && i < n; i++)
		if (jobs[i].ext)
			rc = hl_cb_job_copy(&jobs[i], jobs[i].cb);
	if (rc)
		hl_cb_jobs_put(jobs, n);
	return rc;
}

/**
 * hl_cb_jobs_put - the CS of @jobs completed or was dropped: drop their CB
 * references and the copies of external queues' jobs.
 * @jobs: the jobs.
 * @n: number of jobs.
 *
 * Takes no lock and allocates nothing (the release runs from a work
 * item): callable in the CS's completion, before its fence signals, so
 * that the usage count has dropped when a waiter sees the CS complete.
 */
void hl_cb_jobs_put(struct hl_cs_job *jobs, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		struct hl_cb *cb = jobs[i].cb;

		if (jobs[i].kcb_copy) {
			atomic64_sub(jobs[i].cb_size,
				     &jobs[i].ctx->cb_mgr.copy_bytes);
			if (jobs[i].kcb_live)
				vunmap(jobs[i].kcb_copy);
			else
				kvfree(jobs[i].kcb_copy);
			jobs[i].kcb_copy = NULL;
			jobs[i].kcb = NULL;
		}
		if (!cb)
			continue;
		jobs[i].cb = NULL;
		atomic_dec(&cb->cs_cnt);
		hl_cb_put(cb);
	}
}

/**
 * hl_cb_ctx_init - initialise a context's command buffers.
 * @ctx: the context.
 */
void hl_cb_ctx_init(struct hl_ctx *ctx)
{
	struct hl_cb_mgr *mgr = &ctx->cb_mgr;

	mutex_init(&mgr->lock);
	xa_init(&mgr->handles);
	INIT_LIST_HEAD(&mgr->list);
	mt_init_flags(&mgr->va, MT_FLAGS_ALLOC_RANGE);
	atomic64_set(&mgr->copy_bytes, 0);
}

/**
 * hl_cb_ctx_fini - destroy every CB of a context being torn down.
 * @ctx: the context; no CS of it runs any more, none is submitted.
 *
 * Every CB loses its handle and its device mapping (page tables are left
 * alone when the device is gone), and its pages leave every user mapping,
 * before the context's page tables go: also a CB destroyed while mapped
 * (its mappings hold it on the list). A CB whose release is still queued
 * is unmapped here as well; its work then only frees it.
 */
void hl_cb_ctx_fini(struct hl_ctx *ctx)
{
	struct hl_cb_mgr *mgr = &ctx->cb_mgr;
	struct hl_device *hdev = ctx->hdev;
	struct hl_cb *cb;
	unsigned long id;
	bool hw, mapped = false;
	LIST_HEAD(handles);
	int idx;

	idx = hl_device_enter(hdev);
	hw = !hl_device_unplugged(hdev);
	mutex_lock(&mgr->lock);
	mgr->dead = true;
	list_for_each_entry(cb, &mgr->list, node) {
		hl_cb_zap_locked(cb);
		mapped |= !!cb->device_va;
		hl_cb_unmap_locked(cb, hw);
	}
	if (mapped && hw)
		hl_mmu_invalidate(ctx);
	list_for_each_entry(cb, &mgr->list, node)
		hl_cb_dma_unmap_locked(cb);
	xa_for_each(&mgr->handles, id, cb) {
		xa_erase(&mgr->handles, id);
		/* The handle's reference: the release only queues work */
		hl_cb_put(cb);
	}
	mutex_unlock(&mgr->lock);
	hl_device_exit(hdev, idx);
	mtree_destroy(&mgr->va);
}

/**
 * hl_cb_ctx_release_dma - the device is going away under a live context
 * (hl_mem_ctx_release_host()): end its CBs' user mappings, DMA-unmap them.
 * @ctx: the context, dead; the engines are stopped, no ioctl runs.
 *
 * The context died: its CBs' pages leave every user mapping and no new
 * one is made, as at a hard reset. The page tables are not touched; the
 * CBs keep their VA until the context's teardown (the file's close),
 * which then finds nothing to DMA-unmap.
 */
void hl_cb_ctx_release_dma(struct hl_ctx *ctx)
{
	struct hl_cb_mgr *mgr = &ctx->cb_mgr;
	struct hl_cb *cb;

	mutex_lock(&mgr->lock);
	mgr->dead = true;
	list_for_each_entry(cb, &mgr->list, node) {
		hl_cb_zap_locked(cb);
		if (cb->dma_mapped)
			dma_unmap_sgtable(ctx->hdev->dev, &cb->sgt,
					  DMA_BIDIRECTIONAL, 0);
		cb->dma_mapped = false;
	}
	mutex_unlock(&mgr->lock);
}

/**
 * hl_cb_ctx_destroy - free a context's CB manager with the context.
 * @ctx: the context; every CB was released (each held the context).
 */
void hl_cb_ctx_destroy(struct hl_ctx *ctx)
{
	WARN_ON(!list_empty(&ctx->cb_mgr.list));
	xa_destroy(&ctx->cb_mgr.handles);
	mutex_destroy(&ctx->cb_mgr.lock);
}

/**
 * hl_cb_ctx_count - number of a context's CBs not released yet (debugfs).
 * @ctx: the context.
 *
 * Return: the count.
 */
u32 hl_cb_ctx_count(struct hl_ctx *ctx)
{
	struct hl_cb *cb;
	u32 n = 0;

	mutex_lock(&ctx->cb_mgr.lock);
	list_for_each_entry(cb, &ctx->cb_mgr.list, node)
		n++;
	mutex_unlock(&ctx->cb_mgr.lock);
	return n;
}

/**
 * hl_cb_module_fini - the module goes: free the mmap offset allocator.
 *
 * Every CB was released (each held its file's module reference through
 * its context and device until its release work, which has run).
 */
void __exit hl_cb_module_fini(void)
{
	WARN_ON(!mtree_empty(&hl_cb_offsets));
	mtree_destroy(&hl_cb_offsets);
}

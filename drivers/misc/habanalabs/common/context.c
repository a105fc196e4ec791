// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: the compute context.
 *
 * A context is created when the compute node is opened. hl_ctx_teardown()
 * releases everything it has when its file is closed, or when a hard reset
 * takes the device from under the file: running work is cancelled and
 * waited for, then NIC state, mappings, pinned host memory, allocations,
 * page tables and the ASID go. An export keeps only what an importer can
 * reach: the exported allocation's HBM (struct hl_vm_phys_pg_pack) and the
 * device, never the context. The structure itself is freed with its last
 * reference (the file, a CS finishing, a peer's NIC transfer).
 */

#include <linux/slab.h>

#include "habanalabs.h"
#include "dmabuf.h"
#include "memory.h"
#include "mmu.h"

static void hl_ctx_release_work(struct work_struct *work)
{
	struct hl_ctx *ctx = container_of(work, struct hl_ctx, release_work);
	struct hl_device *hdev = ctx->hdev;

	/* A context that never got a file is torn down here */
	hl_ctx_teardown(ctx);
	hl_nic_ctx_fini(ctx);
	hl_cb_ctx_destroy(ctx);
	if (hl_bug_injected(HL_INJECT_LEAK))
		ctx->injected_leak = kmalloc(64, GFP_KERNEL);
	kfree(ctx);
	hl_device_put(hdev);
}

/*
 * The last reference may go in a fence-signalling path (a job done, a NIC
 * transfer into the context), where no lock that may wait for a fence can
 * be taken: the release, which takes mutexes, runs from a work item.
 */
static void hl_ctx_release(struct kref *ref)
{
	struct hl_ctx *ctx = container_of(ref, struct hl_ctx, refcount);

	INIT_WORK(&ctx->release_work, hl_ctx_release_work);
	queue_work(hl_wq, &ctx->release_work);
}

/**
 * hl_ctx_create - create a compute context.
 * @hdev: the device; the context takes a reference on it.
 *
 * Return: the context with one reference, or an ERR_PTR.
 */
struct hl_ctx *hl_ctx_create(struct hl_device *hdev)
{
	struct hl_ctx *ctx;
	int rc;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return ERR_PTR(-ENOMEM);

	kref_init(&ctx->refcount);
	spin_lock_init(&ctx->fault_lock);
	atomic64_set(&ctx->dram_usage, 0);
	ctx->hdev = hdev;

	rc = hl_cs_ctx_init(ctx);
	if (rc)
		goto err_free_ctx;
	rc = hl_mmu_ctx_init(ctx);
	if (rc)
		goto err_cs_fini;
	hl_mem_ctx_init(ctx);
	hl_cb_ctx_init(ctx);
	hl_device_get(hdev);

	mutex_lock(&hdev->ctx_list_lock);
	list_add_tail(&ctx->node, &hdev->ctx_list);
	mutex_unlock(&hdev->ctx_list_lock);

	/* Last: from here on the NIC fabric reaches the context */
	hl_nic_ctx_init(ctx);
	hl_events_ctx_open(hdev);

	return ctx;

err_cs_fini:
	hl_cs_ctx_fini(ctx);
err_free_ctx:
	kfree(ctx);
	return ERR_PTR(rc);
}

/**
 * hl_ctx_teardown - release everything a context has, but its structure.
 * @ctx: the context; none of its ioctls runs (its file is being released,
 *	or a hard reset waited for them). Idempotent.
 *
 * Order: stop the work that reaches the context's memory (NIC connections,
 * jobs), then cut the exports' links to it, then free the memory, the page
 * tables and the ASID. On return the device's DRAM usage counts only
 * exported allocations of the context.
 */
void hl_ctx_teardown(struct hl_ctx *ctx)
{
	struct hl_device *hdev = ctx->hdev;

	mutex_lock(&hdev->ctx_list_lock);
	if (ctx->torn_down) {
		mutex_unlock(&hdev->ctx_list_lock);
		return;
	}
	ctx->torn_down = true;
	mutex_unlock(&hdev->ctx_list_lock);
	hl_events_ctx_release_begin(hdev);

	WRITE_ONCE(ctx->closing, true);
	/* Connections die first: peers stop writing, receives are flushed */
	hl_nic_ctx_close(ctx);
	hl_cs_ctx_cancel(ctx);
	/* No CS uses a CB any more; reset: user mappings of CBs go too */
	hl_cb_ctx_fini(ctx);

	/*
	 * Off the list only now: until here device removal may still have to
	 * release the context's host memory (hl_device_fini()).
	 */
	mutex_lock(&hdev->ctx_list_lock);
	list_del(&ctx->node);
	mutex_unlock(&hdev->ctx_list_lock);

	hl_dmabuf_ctx_detach(ctx);
	hl_mem_ctx_fini(ctx);
	hl_mmu_ctx_fini(ctx);
	hl_cs_ctx_fini(ctx);
	hl_events_ctx_release_end(hdev);
}

void hl_ctx_get(struct hl_ctx *ctx)
{
	kref_get(&ctx->refcount);
}

void hl_ctx_put(struct hl_ctx *ctx)
{
	kref_put(&ctx->refcount, hl_ctx_release);
}

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
 *
 * Gate: ioctls use the context's state inside its gate (held for read),
 * and leave it whenever they touch user memory or wait. Killing the
 * context (teardown: close or hard reset; device removal) takes it for
 * write and marks the context dead, so it waits only for work that does
 * not depend on user space, and nothing of an ioctl runs on the context's
 * state afterwards. Exactly one caller tears the context down; another
 * (a close racing a reset) waits at the gate until it is done, and device
 * removal waits for every teardown in progress (hdev->ctx_teardowns),
 * also of a context already off hdev->ctx_list.
 */

#include <linux/slab.h>

#include "habanalabs.h"
#include "command_submission.h"
#include "context.h"
#include "counters.h"
#include "debug.h"
#include "device.h"
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
	hl_cs_ctx_destroy(ctx);
	hl_bug_ctx_leak(ctx);
	kfree(ctx);
	atomic_dec(&hdev->contexts_alive);
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
	init_rwsem(&ctx->gate);
	spin_lock_init(&ctx->fault_lock);
	atomic64_set(&ctx->dram_usage, 0);
	ctx->hdev = hdev;

	/* Without a DRAM MMU: the new owner of the whole user DRAM */
	rc = hl_mem_owner_init(ctx);
	if (rc)
		goto err_free_ctx;
	rc = hl_cs_ctx_init(ctx);
	if (rc)
		goto err_owner_fini;
	rc = hl_mmu_ctx_init(ctx);
	if (rc)
		goto err_cs_fini;
	hl_mem_ctx_init(ctx);
	hl_cb_ctx_init(ctx);
	hl_device_get(hdev);
	atomic_inc(&hdev->contexts_alive);

	mutex_lock(&hdev->ctx_list_lock);
	list_add_tail(&ctx->node, &hdev->ctx_list);
	mutex_unlock(&hdev->ctx_list_lock);

	/* Last: from here on the NIC fabric reaches the context */
	hl_nic_ctx_init(ctx);
	hl_events_ctx_open(hdev);

	return ctx;

err_cs_fini:
	hl_cs_ctx_fini(ctx);
	hl_cs_ctx_destroy(ctx);
err_owner_fini:
	hl_mem_owner_fini(ctx);
err_free_ctx:
	kfree(ctx);
	return ERR_PTR(rc);
}

/**
 * hl_ctx_teardown - release everything a context has, but its structure.
 * @ctx: the context; its file is being released, or a hard reset killed
 *	it. Idempotent; whoever comes second waits until the first is done.
 *
 * Exactly one caller tears the context down, with its gate held for
 * write: it waits for the ioctls inside the gate (none of which waits on
 * user space there) and then marks the context dead, so that no ioctl,
 * commit or undo of it touches its state afterwards (they get -ENODEV).
 *
 * Order: stop the work that reaches the context's memory (NIC connections,
 * jobs), then cut the exports' links to it, then free the memory, the page
 * tables and the ASID. On return the device's DRAM usage counts only
 * exported allocations of the context.
 */
void hl_ctx_teardown(struct hl_ctx *ctx)
{
	struct hl_device *hdev = ctx->hdev;
	int idx;

	down_write(&ctx->gate);
	mutex_lock(&hdev->ctx_list_lock);
	if (ctx->torn_down) {
		mutex_unlock(&hdev->ctx_list_lock);
		up_write(&ctx->gate);
		return;
	}
	ctx->torn_down = true;
	/* Removal waits for this teardown even once it is off the list */
	hdev->ctx_teardowns++;
	mutex_unlock(&hdev->ctx_list_lock);
	WRITE_ONCE(ctx->dead, true);
	hl_events_ctx_release_begin(hdev);

	WRITE_ONCE(ctx->closing, true);
	/* Connections die first: peers stop writing, receives are flushed */
	hl_nic_ctx_close(ctx);
	hl_cs_ctx_cancel(ctx);
	/*
	 * No job of the context runs: the next owner's sync manager is
	 * clean. Not once the device is removed (the backend is gone).
	 */
	idx = hl_device_enter(hdev);
	if (!hl_device_unplugged(hdev)) {
		/*
		 * A peer's engine step that checked its connection before
		 * the close may still be writing here; under asic=gaudi it
		 * addresses DRAM and SRAM physically, so no unmap waits for
		 * it: wait now, before the SRAM is zeroed and the DRAM goes
		 * to the scrubber.
		 */
		hl_device_hw_quiesce(hdev);
		if (hdev->asic_funcs->sync_reset)
			hdev->asic_funcs->sync_reset(hdev);
	}
	hl_device_exit(hdev, idx);
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
	up_write(&ctx->gate);

	mutex_lock(&hdev->ctx_list_lock);
	if (!--hdev->ctx_teardowns)
		wake_up_var(&hdev->ctx_teardowns);
	mutex_unlock(&hdev->ctx_list_lock);
}

/**
 * hl_ctx_enter - start using a context's state from an ioctl (or its
 * commit or undo).
 * @ctx: the context.
 *
 * Waits only for a teardown or removal in progress, which never waits on
 * user space. End it with hl_ctx_exit(); in between, drop it around any
 * user memory access or unbounded wait with hl_ctx_pause().
 *
 * Return: 0, or -ENODEV when the context is dead (nothing held then).
 */
int hl_ctx_enter(struct hl_ctx *ctx)
{
	down_read(&ctx->gate);
	if (READ_ONCE(ctx->dead)) {
		up_read(&ctx->gate);
		return -ENODEV;
	}
	return 0;
}

/**
 * hl_ctx_exit - end a section started by hl_ctx_enter().
 * @ctx: the context.
 */
void hl_ctx_exit(struct hl_ctx *ctx)
{
	up_read(&ctx->gate);
}

/**
 * hl_ctx_pause - leave the context's gate for a while, to touch user
 * memory (which may fault for as long as user space wants) or to wait.
 * @ctx: the context, entered (hl_ctx_enter()).
 *
 * The caller may keep only what it holds references on; it must call
 * hl_ctx_resume() before using the context's state again.
 */
void hl_ctx_pause(struct hl_ctx *ctx)
{
	up_read(&ctx->gate);
}

/**
 * hl_ctx_resume - enter the gate again after hl_ctx_pause().
 * @ctx: the context.
 *
 * The gate is held again on return in any case (hl_ctx_exit() ends it),
 * but when the context died meanwhile its state is gone: the caller must
 * undo only what it made on its own and fail.
 *
 * Return: 0, or -ENODEV the context died meanwhile.
 */
int hl_ctx_resume(struct hl_ctx *ctx)
{
	down_read(&ctx->gate);
	return READ_ONCE(ctx->dead) ? -ENODEV : 0;
}

/**
 * hl_ctx_copy_to_user - copy_to_user() from inside the context's gate,
 * with the gate left meanwhile.
 * @ctx: the context, entered.
 * @to: the user address.
 * @from: kernel memory that stays valid without the gate.
 * @n: bytes.
 *
 * Return: 0, -EFAULT the copy failed, or -ENODEV the context died
 * meanwhile (the gate is held again in every case).
 */
int hl_ctx_copy_to_user(struct hl_ctx *ctx, void __user *to, const void *from,
			size_t n)
{
	unsigned long left;

	hl_ctx_pause(ctx);
	left = copy_to_user(to, from, n);
	if (hl_ctx_resume(ctx))
		return -ENODEV;
	return left ? -EFAULT : 0;
}

/*
 * The first context of @hdev's list that hl_ctx_kill_all() has not seen,
 * with a reference, or NULL.
 */
static struct hl_ctx *hl_ctx_next_live(struct hl_device *hdev)
{
	struct hl_ctx *ctx, *found = NULL;

	mutex_lock(&hdev->ctx_list_lock);
	list_for_each_entry(ctx, &hdev->ctx_list, node) {
		if (ctx->torn_down || READ_ONCE(ctx->dead) ||
		    !kref_get_unless_zero(&ctx->refcount))
			continue;
		found = ctx;
		break;
	}
	mutex_unlock(&hdev->ctx_list_lock);
	return found;
}

/**
 * hl_ctx_kill_all - the device is going away: kill every context.
 * @hdev: the device; its engines are stopped and its exports revoked.
 *
 * Each context is marked dead with its gate held for write, which waits
 * for the ioctls inside it (not for user space: those wait outside), and
 * its pinned host memory is unpinned and DMA-unmapped for the function the
 * driver lets go of; the rest goes with its teardown, when its file is
 * closed. Then waits for the teardowns in progress, also of contexts
 * already off the list (closing), so that nothing of theirs stays mapped
 * past removal.
 */
void hl_ctx_kill_all(struct hl_device *hdev)
{
	struct hl_ctx *ctx;

	while ((ctx = hl_ctx_next_live(hdev))) {
		down_write(&ctx->gate);
		if (!ctx->torn_down && !ctx->dead) {
			WRITE_ONCE(ctx->dead, true);
			hl_mem_ctx_release_host(ctx);
		}
		up_write(&ctx->gate);
		hl_ctx_put(ctx);
	}

	mutex_lock(&hdev->ctx_list_lock);
	while (hdev->ctx_teardowns) {
		mutex_unlock(&hdev->ctx_list_lock);
		wait_var_event(&hdev->ctx_teardowns,
			       !READ_ONCE(hdev->ctx_teardowns));
		mutex_lock(&hdev->ctx_list_lock);
	}
	mutex_unlock(&hdev->ctx_list_lock);
}

void hl_ctx_get(struct hl_ctx *ctx)
{
	kref_get(&ctx->refcount);
}

void hl_ctx_put(struct hl_ctx *ctx)
{
	kref_put(&ctx->refcount, hl_ctx_release);
}

/**
 * hl_ctx_record_fault - record a device MMU fault of a context's job.
 * @ctx: the context.
 * @addr: the faulting device virtual address.
 * @engine_id: the queue of the job.
 * @is_write: a write access.
 *
 * The last fault is what HL_INFO_PAGE_FAULT_EVENT returns; PAGE_FAULT
 * goes to the context's file (and the control files).
 */
void hl_ctx_record_fault(struct hl_ctx *ctx, u64 addr, u32 engine_id,
			 bool is_write)
{
	spin_lock(&ctx->fault_lock);
	ctx->last_fault.timestamp = ktime_get_ns();
	ctx->last_fault.addr = addr;
	ctx->last_fault.engine_id = engine_id;
	ctx->last_fault.is_write = is_write;
	spin_unlock(&ctx->fault_lock);
	hl_events_send_ctx(ctx, HL_NOTIFIER_EVENT_PAGE_FAULT);
}

static void hl_ctx_resv_release(struct kref *ref)
{
	struct hl_ctx_resv *r = container_of(ref, struct hl_ctx_resv, refcount);

	dma_resv_fini(&r->resv);
	kfree(r);
}

/**
 * hl_ctx_resv_put - drop a reference on a context's export reservation.
 * @r: the reservation object.
 */
void hl_ctx_resv_put(struct hl_ctx_resv *r)
{
	kref_put(&r->refcount, hl_ctx_resv_release);
}

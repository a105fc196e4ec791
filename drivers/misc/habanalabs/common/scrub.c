// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: the DRAM pool and its scrubber.
 *
 * HBM keeps whatever its last owner, or a previous driver load, left in it.
 * No user may read another's data, and no ALLOC should pay for zeroing:
 * DRAM is scrubbed when it is released, in the background, and ALLOC takes
 * pages that are already clean.
 *
 *   hdev->dram_pool   clean DRAM pages, ready for ALLOC (genalloc)
 *   hl_scrub.dirty    released pages waiting for the scrubber, one bit per
 *                     DRAM page
 *
 * At probe every user page is dirty; once the hardware is up
 * (hl_scrub_start()) a worker zeroes the dirty pages, lowest address first,
 * a batch at a time, with the backend's scrub_dram operation, and hands each
 * batch to the pool. Every release (FREE, the close of the compute node,
 * the last reference of an export, revocation) goes through hl_dram_free(),
 * which marks the pages dirty and kicks the worker. hl_dram_alloc() waits
 * only when the pool cannot serve the request and the scrubber still has
 * pages to give. With the module parameter memory_scrub off, released pages
 * go back to the pool as they are (the isolation test's negative control).
 *
 * Once the device goes away (hl_scrub_stop(), before its HBM is unmapped)
 * nothing is scrubbed any more: dirty pages return to the pool unzeroed,
 * for hl_scrub_fini() to destroy it; the next probe scrubs everything.
 *
 * The worker touches HBM only between hl_scrub_start() and hl_scrub_stop(),
 * which waits for it; it takes no lock but hl_scrub.lock, briefly.
 */

#include <linux/bitmap.h>
#include <linux/genalloc.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "habanalabs.h"
#include "scrub.h"

/* Bytes zeroed per step of the worker, between which it may be stopped */
#define HL_SCRUB_BATCH		SZ_32M

/**
 * struct hl_scrub - the scrubber of a device's DRAM.
 * @hdev: the device.
 * @base: device physical address of the first user DRAM page.
 * @page_size: DRAM page size (a power of 2).
 * @npages: user DRAM pages.
 * @lock: Protects @dirty, @pending, @running and @progress.
 * @dirty: a bit per page released and not yet scrubbed.
 * @pending: bytes dirty or being scrubbed.
 * @running: between hl_scrub_start() and hl_scrub_stop().
 * @progress: bumped each time the worker hands pages to the pool.
 * @work: the worker, on system_unbound_wq.
 * @wq: ALLOC callers waiting for clean pages.
 */
struct hl_scrub {
	struct hl_device *hdev;
	u64 base;
	u64 page_size;
	unsigned long npages;
	spinlock_t lock; /* Protects: dirty, pending, running, progress */
	unsigned long *dirty;
	u64 pending;
	bool running;
	u64 progress;
	struct work_struct work;
	wait_queue_head_t wq;
};

static void hl_scrub_work(struct work_struct *work)
{
	struct hl_scrub *s = container_of(work, struct hl_scrub, work);
	struct hl_device *hdev = s->hdev;
	unsigned long first, end, max = HL_SCRUB_BATCH / s->page_size;
	u64 addr, size;

	for (;;) {
		spin_lock(&s->lock);
		first = find_first_bit(s->dirty, s->npages);
		if (!s->running || first >= s->npages) {
			spin_unlock(&s->lock);
			return;
		}
		end = find_next_zero_bit(s->dirty,
					 min(s->npages, first + max), first);
		bitmap_clear(s->dirty, first, end - first);
		spin_unlock(&s->lock);

		addr = s->base + first * s->page_size;
		size = (end - first) * s->page_size;
		/* running until hl_scrub_stop(), which waits for this work */
		hdev->asic_funcs->scrub_dram(hdev, addr, size);
		gen_pool_free(hdev->dram_pool, addr, size);

		spin_lock(&s->lock);
		s->pending -= size;
		s->progress++;
		spin_unlock(&s->lock);
		wake_up_all(&s->wq);
		cond_resched();
	}
}

/*
 * Mark [@addr, @addr + @size) dirty; true when the worker must run. Called
 * with s->lock held.
 */
static bool hl_scrub_mark(struct hl_scrub *s, u64 addr, u64 size)
{
	lockdep_assert_held(&s->lock);

	bitmap_set(s->dirty, (addr - s->base) / s->page_size,
		   size / s->page_size);
	s->pending += size;
	return s->running;
}

/**
 * hl_scrub_init - create the DRAM pool, every user page dirty.
 * @hdev: the device, with asic_prop filled.
 *
 * Nothing is scrubbed, nor allocatable, before hl_scrub_start() (unless
 * memory_scrub is off: then every page is in the pool at once).
 *
 * Return: 0 or -ENOMEM.
 */
int hl_scrub_init(struct hl_device *hdev)
{
	struct asic_fixed_properties *prop = &hdev->asic_prop;
	struct hl_scrub *s;
	u64 addr;
	int rc = -ENOMEM;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->hdev = hdev;
	s->base = prop->dram_user_base_address;
	s->page_size = prop->dram_page_size;
	s->npages = prop->dram_user_size / prop->dram_page_size;
	spin_lock_init(&s->lock);
	INIT_WORK(&s->work, hl_scrub_work);
	init_waitqueue_head(&s->wq);
	s->dirty = bitmap_zalloc(s->npages, GFP_KERNEL);
	if (!s->dirty)
		goto err_free_scrub;

	hdev->dram_pool = gen_pool_create(ilog2(prop->dram_page_size), -1);
	if (!hdev->dram_pool)
		goto err_free_bitmap;
	rc = gen_pool_add(hdev->dram_pool, s->base,
			  s->npages * s->page_size, -1);
	if (rc)
		goto err_destroy_pool;

	if (READ_ONCE(hl_memory_scrub) && s->npages) {
		/* The whole range, out of the pool and dirty */
		addr = gen_pool_alloc(hdev->dram_pool, s->npages * s->page_size);
		if (WARN_ON(addr != s->base)) {
			rc = -ENOMEM;
			goto err_destroy_pool;
		}
		spin_lock(&s->lock);
		hl_scrub_mark(s, s->base, s->npages * s->page_size);
		spin_unlock(&s->lock);
	}
	hdev->scrub = s;
	return 0;

err_destroy_pool:
	gen_pool_destroy(hdev->dram_pool);
	hdev->dram_pool = NULL;
err_free_bitmap:
	bitmap_free(s->dirty);
err_free_scrub:
	kfree(s);
	return rc;
}

/**
 * hl_scrub_start - let the worker scrub: the device's HBM is reachable.
 * @hdev: the device, after hw_init.
 */
void hl_scrub_start(struct hl_device *hdev)
{
	struct hl_scrub *s = hdev->scrub;

	spin_lock(&s->lock);
	s->running = true;
	spin_unlock(&s->lock);
	queue_work(system_unbound_wq, &s->work);
}

/**
 * hl_scrub_stop - stop scrubbing, before the device's HBM goes away.
 * @hdev: the device.
 *
 * Waits for the worker; the pages still dirty go back to the pool as they
 * are, and ALLOC callers waiting for pages give up. Later releases go
 * straight to the pool. Safe to call more than once, or without
 * hl_scrub_start().
 */
void hl_scrub_stop(struct hl_device *hdev)
{
	struct hl_scrub *s = hdev->scrub;
	unsigned long first, end;

	spin_lock(&s->lock);
	s->running = false;
	spin_unlock(&s->lock);
	cancel_work_sync(&s->work);

	spin_lock(&s->lock);
	for_each_set_bitrange(first, end, s->dirty, s->npages)
		gen_pool_free(hdev->dram_pool, s->base + first * s->page_size,
			      (end - first) * s->page_size);
	bitmap_zero(s->dirty, s->npages);
	s->pending = 0;
	s->progress++;
	spin_unlock(&s->lock);
	wake_up_all(&s->wq);
}

/**
 * hl_scrub_fini - destroy the DRAM pool; every allocation is gone.
 * @hdev: the device, hl_scrub_stop() done.
 */
void hl_scrub_fini(struct hl_device *hdev)
{
	struct hl_scrub *s = hdev->scrub;

	if (!s)
		return;
	hl_scrub_stop(hdev);
	gen_pool_destroy(hdev->dram_pool);
	hdev->dram_pool = NULL;
	bitmap_free(s->dirty);
	kfree(s);
	hdev->scrub = NULL;
}

/**
 * hl_dram_alloc - take clean DRAM.
 * @hdev: the device.
 * @size: bytes, a multiple of the DRAM page size.
 * @addr: receives the device physical address of the range.
 *
 * Waits only when the pool has no range of @size and the scrubber still has
 * pages to hand over.
 *
 * Return: 0; -ENOMEM when no range of @size is or will be clean; -EINTR
 * when a signal arrived while waiting.
 */
int hl_dram_alloc(struct hl_device *hdev, u64 size, u64 *addr)
{
	struct hl_scrub *s = hdev->scrub;
	u64 seen;
	bool wait;

	for (;;) {
		spin_lock(&s->lock);
		seen = s->progress;
		wait = s->running && s->pending;
		spin_unlock(&s->lock);

		*addr = gen_pool_alloc(hdev->dram_pool, size);
		if (*addr)
			return 0;
		if (!wait)
			return -ENOMEM;
		if (wait_event_interruptible(s->wq,
					     READ_ONCE(s->progress) != seen))
			return -EINTR;
	}
}

/**
 * hl_dram_free - release DRAM that a user had: scrubbed before its reuse.
 * @hdev: the device.
 * @addr: what hl_dram_alloc() returned, or a page-aligned part of it.
 * @size: bytes, a multiple of the DRAM page size.
 *
 * Never sleeps.
 */
void hl_dram_free(struct hl_device *hdev, u64 addr, u64 size)
{
	struct hl_scrub *s = hdev->scrub;
	bool kick = false, direct = true;

	if (READ_ONCE(hl_memory_scrub)) {
		spin_lock(&s->lock);
		if (s->running) {
			kick = hl_scrub_mark(s, addr, size);
			direct = false;
		}
		spin_unlock(&s->lock);
	}
	if (direct)
		gen_pool_free(hdev->dram_pool, addr, size);
	if (kick)
		queue_work(system_unbound_wq, &s->work);
}

/**
 * hl_scrub_wait_idle - wait until the scrubber has handed every released
 * page back to the pool (or is stopped).
 * @hdev: the device.
 * @timeout: the longest wait, in jiffies.
 *
 * For views of a quiet device (debugfs fault/state), which must not depend
 * on the scrubber's progress.
 *
 * Return: true when idle; false on timeout or a signal.
 */
bool hl_scrub_wait_idle(struct hl_device *hdev, unsigned long timeout)
{
	struct hl_scrub *s = hdev->scrub;

	return wait_event_interruptible_timeout(s->wq, !hl_scrub_pending(hdev) ||
						!READ_ONCE(s->running),
						timeout) > 0;
}

/**
 * hl_scrub_pending - bytes of DRAM released and not yet clean.
 * @hdev: the device.
 *
 * Return: the bytes the scrubber still has to zero.
 */
u64 hl_scrub_pending(struct hl_device *hdev)
{
	struct hl_scrub *s = hdev->scrub;
	u64 pending;

	spin_lock(&s->lock);
	pending = s->pending;
	spin_unlock(&s->lock);
	return pending;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: fault injection (built only with CONFIG_FAULT_INJECTION; the
 * call sites and the stubs are in fault.h).
 *
 * debugfs, under /sys/kernel/debug/habanalabs/:
 *
 * fault/fail_<point>/  one fault_attr per enum hl_fault_point, with the
 *                      framework's files (probability, interval, times,
 *                      space, verbose, task-filter, require-start, ...)
 * fault/sites          every call site reached so far: point, times
 *                      evaluated, times failed, location
 * fault/text           start and end of the module's text, for the
 *                      stack-trace filters of failslab, fail_page_alloc and
 *                      fail_usercopy (require-start, require-end), so that
 *                      they fail only the driver's own allocations and copies
 * <pci address>/state  what a failed ioctl must leave as it found it: DRAM
 *                      and page-table pool use, pinned host pages, contexts,
 *                      handles, mappings, hop tables, NIC connections and CQs,
 *                      exports, unfinished CSs (tests/fault_walk compares it around each
 *                      failed call)
 */

#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/genalloc.h>
#include <linux/maple_tree.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

#include "habanalabs.h"
#include "context.h"
#include "fault.h"
#include "scrub.h"

static DECLARE_FAULT_ATTR(hl_fail_dram);
static DECLARE_FAULT_ATTR(hl_fail_pin);
static DECLARE_FAULT_ATTR(hl_fail_dma_map);
static DECLARE_FAULT_ATTR(hl_fail_mmu);
static DECLARE_FAULT_ATTR(hl_fail_dmabuf);
static DECLARE_FAULT_ATTR(hl_fail_fence);
static DECLARE_FAULT_ATTR(hl_fail_nic);

static const struct {
	const char *name;
	struct fault_attr *attr;
} hl_fault_points[HL_FAULT_NUM] = {
	[HL_FAULT_DRAM] = { "fail_dram", &hl_fail_dram },
	[HL_FAULT_PIN] = { "fail_pin", &hl_fail_pin },
	[HL_FAULT_DMA_MAP] = { "fail_dma_map", &hl_fail_dma_map },
	[HL_FAULT_MMU] = { "fail_mmu", &hl_fail_mmu },
	[HL_FAULT_DMABUF] = { "fail_dmabuf", &hl_fail_dmabuf },
	[HL_FAULT_FENCE] = { "fail_fence", &hl_fail_fence },
	[HL_FAULT_NIC] = { "fail_nic", &hl_fail_nic },
};

/* More than the driver has call sites; a site past it is failed uncounted */
#define HL_FAULT_MAX_SITES	64

/**
 * struct hl_fault_site - one hl_should_fail() call site, for fault/sites.
 * @ip: an address inside the calling function, where the site is.
 * @point: which fault_attr it asks.
 * @evaluated: how many times it asked.
 * @failed: how many times it was told to fail.
 */
struct hl_fault_site {
	unsigned long ip;
	enum hl_fault_point point;
	u64 evaluated;
	u64 failed;
};

static DEFINE_SPINLOCK(hl_fault_sites_lock); /* Protects: the two below */
static struct hl_fault_site hl_fault_sites[HL_FAULT_MAX_SITES];
static unsigned int hl_fault_num_sites;

static void hl_fault_count(enum hl_fault_point point, unsigned long ip,
			   bool failed)
{
	struct hl_fault_site *site = NULL;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&hl_fault_sites_lock, flags);
	for (i = 0; i < hl_fault_num_sites; i++) {
		if (hl_fault_sites[i].ip == ip) {
			site = &hl_fault_sites[i];
			break;
		}
	}
	if (!site && hl_fault_num_sites < HL_FAULT_MAX_SITES) {
		site = &hl_fault_sites[hl_fault_num_sites++];
		site->ip = ip;
		site->point = point;
	}
	if (site) {
		site->evaluated++;
		site->failed += failed;
	}
	spin_unlock_irqrestore(&hl_fault_sites_lock, flags);
}

/**
 * hl_fault_should_fail - whether a resource point should fail now; call it
 * through hl_should_fail().
 * @point: the kind of resource.
 * @site: where the caller is (_THIS_IP_), for fault/sites.
 *
 * Context: any; the framework's filters apply (fail-nth and make-it-fail
 * only count in task context).
 *
 * Return: true when the caller must behave as if the resource could not be
 * had.
 */
bool hl_fault_should_fail(enum hl_fault_point point, unsigned long site)
{
	bool fail = should_fail(hl_fault_points[point].attr, 1);

	hl_fault_count(point, site, fail);
	return fail;
}

static int hl_fault_sites_show(struct seq_file *s, void *unused)
{
	struct hl_fault_site site;
	unsigned int i = 0;

	seq_puts(s, "# point evaluated failed site\n");
	for (;;) {
		spin_lock_irq(&hl_fault_sites_lock);
		if (i < hl_fault_num_sites)
			site = hl_fault_sites[i];
		spin_unlock_irq(&hl_fault_sites_lock);
		if (i++ >= hl_fault_num_sites)
			break;
		seq_printf(s, "%s %llu %llu %pS\n",
			   hl_fault_points[site.point].name, site.evaluated,
			   site.failed, (void *)site.ip);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hl_fault_sites);

static int hl_fault_text_show(struct seq_file *s, void *unused)
{
	unsigned long start = 0, end = ULONG_MAX;

#ifdef MODULE
	start = (unsigned long)THIS_MODULE->mem[MOD_TEXT].base;
	end = start + THIS_MODULE->mem[MOD_TEXT].size;
#endif
	seq_printf(s, "0x%lx 0x%lx\n", start, end);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hl_fault_text);

/**
 * hl_fault_init - create the fault points' debugfs files.
 * @root: /sys/kernel/debug/habanalabs; removing it removes them.
 */
void hl_fault_init(struct dentry *root)
{
	struct dentry *dir = debugfs_create_dir("fault", root);
	int i;

	for (i = 0; i < HL_FAULT_NUM; i++)
		fault_create_debugfs_attr(hl_fault_points[i].name, dir,
					  hl_fault_points[i].attr);
	debugfs_create_file("sites", 0444, dir, NULL, &hl_fault_sites_fops);
	debugfs_create_file("text", 0400, dir, NULL, &hl_fault_text_fops);
}

static unsigned long hl_fault_count_xa(struct xarray *xa)
{
	unsigned long index, n = 0;
	void *entry;

	xa_for_each(xa, index, entry)
		n++;
	return n;
}

static unsigned long hl_fault_count_mt(struct maple_tree *mt)
{
	unsigned long index = 0, n = 0;
	void *entry;

	mt_for_each(mt, entry, index, ULONG_MAX)
		n++;
	return n;
}

static int hl_fault_state_show(struct seq_file *s, void *unused)
{
	unsigned long contexts = 0, handles = 0, host_maps = 0, dram_maps = 0;
	unsigned long hops = 0, conns = 0, cqs = 0, exports = 0, inflight = 0;
	unsigned long cbs = 0, eventfds = 0, mrs = 0, host_dma_pages, host_dma_maps;
	struct hl_device *hdev = s->private;
	struct list_head *pos;
	struct hl_ctx *ctx;

	/* Released CBs and contexts count once their release work ran */
	flush_workqueue(hl_wq);
	/* Released DRAM counts once it is back in the pool, scrubbed */
	if (hdev->scrub && !hl_scrub_wait_idle(hdev, 10 * HZ))
		return -EBUSY;

	mutex_lock(&hdev->ctx_list_lock);
	list_for_each_entry(ctx, &hdev->ctx_list, node) {
		contexts++;
		mutex_lock(&ctx->mem_lock);
		handles += hl_fault_count_xa(&ctx->handles);
		host_maps += hl_fault_count_mt(&ctx->va_host);
		dram_maps += hl_fault_count_mt(&ctx->va_dram);
		mutex_unlock(&ctx->mem_lock);
		mutex_lock(&hdev->mmu_lock);
		hops += hl_fault_count_xa(&ctx->mmu_hops);
		mutex_unlock(&hdev->mmu_lock);
		/* RCU-safe walks: the NIC lock may not be set up yet */
		conns += hl_fault_count_xa(&ctx->nic.conns);
		cqs += hl_fault_count_xa(&ctx->nic.cqs);
		mrs += READ_ONCE(ctx->nic.num_mrs);
		inflight += atomic_read(&ctx->cs_inflight);
		cbs += hl_cb_ctx_count(ctx);
	}
	mutex_unlock(&hdev->ctx_list_lock);

	mutex_lock(&hdev->dmabuf_lock);
	list_for_each(pos, &hdev->dmabuf_list)
		exports++;
	mutex_unlock(&hdev->dmabuf_lock);

	spin_lock_irq(&hdev->notifier_lock);
	list_for_each(pos, &hdev->notifier_list)
		eventfds++;
	spin_unlock_irq(&hdev->notifier_lock);

	mutex_lock(&hdev->host_pages_lock);
	host_dma_pages = hdev->host_dma_pages;
	host_dma_maps = hdev->host_dma_maps;
	mutex_unlock(&hdev->host_pages_lock);

	seq_printf(s, "dram_used: %lld\n", atomic64_read(&hdev->dram_used));
	seq_printf(s, "dram_pool_avail: %zu\n",
		   hdev->dram_pool ? gen_pool_avail(hdev->dram_pool) : 0);
	seq_printf(s, "pgt_pool_avail: %zu\n",
		   hdev->mmu_pgt_pool ? gen_pool_avail(hdev->mmu_pgt_pool) : 0);
	seq_printf(s, "pinned_host_pages: %lld\n",
		   atomic64_read(&hdev->pinned_host_pages));
	seq_printf(s, "host_dma_pages: %lu\n", host_dma_pages);
	seq_printf(s, "host_dma_maps: %lu\n", host_dma_maps);
	seq_printf(s, "contexts: %lu\n", contexts);
	seq_printf(s, "handles: %lu\n", handles);
	seq_printf(s, "host_mappings: %lu\n", host_maps);
	seq_printf(s, "dram_mappings: %lu\n", dram_maps);
	seq_printf(s, "hop_tables: %lu\n", hops);
	seq_printf(s, "nic_conns: %lu\n", conns);
	seq_printf(s, "nic_cqs: %lu\n", cqs);
	seq_printf(s, "nic_mrs: %lu\n", mrs);
	seq_printf(s, "exports: %lu\n", exports);
	seq_printf(s, "cs_inflight: %lu\n", inflight);
	seq_printf(s, "cbs: %lu\n", cbs);
	seq_printf(s, "eventfds: %lu\n", eventfds);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hl_fault_state);

/**
 * hl_fault_add_device - add the device's state file.
 * @hdev: the device, with its debugfs directory.
 */
void hl_fault_add_device(struct hl_device *hdev)
{
	debugfs_create_file("state", 0444, hdev->debugfs_root, hdev,
			    &hl_fault_state_fops);
}

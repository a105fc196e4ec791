// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: exporting device memory as dma-buf for peer-to-peer DMA.
 *
 * What an importer gets (HL_MEM_OP_EXPORT_DMABUF_FD):
 *   - An sg_table whose DMA addresses come from dma_map_resource() of the
 *     HBM BAR for the importer's device: each physically contiguous run of
 *     the exported range (at most HL_DMABUF_MAX_RUN) is mapped once, then
 *     cut into entries no longer than the importer's
 *     dma_get_max_seg_size() (and below 2 GiB) that cross none of its
 *     dma_get_seg_boundary() boundaries. The entries have no struct page:
 *     only sg_dma_address/sg_dma_len are meaningful.
 *   - At most HL_DMABUF_MAX_PAGE_MAPS importer mappings of a page at a
 *     time, through every export of its allocation (-EBUSY past it).
 *   - No CPU access: the dma-buf has no mmap or vmap.
 *   - A dynamic exporter: pin/unpin are implemented (device memory never
 *     moves, so pinning is bookkeeping), and move_notify is used to revoke
 *     every mapping when the device goes away.
 *
 * Peer-to-peer reachability is checked at attach:
 *   -EOPNOTSUPP  the importer did not set allow_peer2peer (a static
 *                dma_buf_attach() importer, or one that wants struct
 *                pages): device memory can only be reached peer-to-peer
 *   -EXDEV       no usable peer-to-peer path between the two devices
 * First, pci_p2pdma_distance() decides: with CONFIG_PCI_P2PDMA it knows
 * switches and whitelisted host bridges; without it (Debian's stock
 * kernels) it always fails. When it refuses, the module parameter
 * p2p_policy (parsed once into hl_p2p_policy) decides:
 *   "strict" (default): refuse;
 *   "iommu": allow a PCI importer under the same PCI host bridge whose DMA
 *            is translated by an IOMMU: dma_map_resource() then creates
 *            an IOMMU mapping of exactly the exported BAR range, and the
 *            root complex routes the importer's accesses to the BAR
 *            (QEMU's q35 host bridge is on no whitelist, so the test VMs
 *            need this even with CONFIG_PCI_P2PDMA).
 *
 * Ownership: the dma-buf holds a reference on the allocation (its HBM) and
 * on the device, nothing else of its context. While the context lives, the
 * exported mapping cannot be unmapped (-EBUSY) nor the allocation freed;
 * closing /dev/hlN tears the context down (context.c) and cuts the exports'
 * links to it (hl_dmabuf_ctx_detach()): the exported HBM stays allocated,
 * counted in DRAM_USAGE's dram_free_mem but in no context's ctx_dram_mem,
 * until the last dma-buf reference drops. The memory is never given to
 * another owner while an importer can reach it.
 *
 * Synchronisation: the exports of a context share one reservation object
 * (hl_ctx.resv), to which every command submission of the context adds its
 * fence with DMA_RESV_USAGE_WRITE (command_submission.c): an export made
 * while a CS runs carries that CS's fence. (Any job may write any mapped
 * address; the driver does not parse command buffers to find out which.)
 * Implicitly synchronised importers wait for the writers
 * (dma_resv_usage_rw()); DMA_BUF_IOCTL_EXPORT_SYNC_FILE gives the fences to
 * user space. An RDMA NIC does not wait for fences: its user waits for the
 * CS (HL_IOCTL_WAIT_CS) before posting, or for the sync_file.
 *
 * Revocation (device removal, hard reset; hl_dmabuf_revoke_all()), after
 * the engines stopped: under each reservation lock, mark the export
 * revoked (no new map or pin: -ENODEV) and call move_notify; then wait
 * until every importer has unmapped (importers that cannot be revoked, such
 * as ib_umem_dmabuf's pinned attachments, are waited for, and named in the
 * log every 10 s, as VFIO does), then for the fences of the reservation
 * object (DMA_RESV_USAGE_BOOKKEEP: importers' DMA in flight), for
 * job_timeout_max at most, since anyone with the dma-buf fd can add a
 * fence that never signals (DMA_BUF_IOCTL_IMPORT_SYNC_FILE of a sw_sync
 * fence). Past the bound the late fences are named in the log and the
 * export's memory is quarantined: a struct hl_dmabuf_quarantine, allocated
 * with the export so that a revocation never waits for memory (nor, then,
 * without a bound), holds a reference on its allocation and on the
 * reservation object (and on the device and the module), so its
 * HBM stays allocated (out of the allocator, never scrubbed for or given to
 * another owner) until those fences have signalled and the last other
 * reference is gone; while any memory of a PCI function is quarantined,
 * the function cannot be bound again (probe: -EBUSY), since a new binding
 * would hand out all of its HBM. Only then may the BAR or the
 * HBM change hands. An export racing device removal either is revoked or
 * fails (-ENODEV).
 */

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/iommu.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/debugfs.h>

#include "habanalabs.h"
#include "context.h"
#include "debug.h"
#include "device.h"
#include "dmabuf.h"
#include "fault.h"
#include "ioctl.h"
#include "memory.h"

/*
 * MODULE_IMPORT_NS(DMA_BUF) spelled out: what that macro expands to before
 * Linux 6.13, and MODULE_IMPORT_NS("DMA_BUF") since (its argument became a
 * string), so that one source builds on both (the DKMS package's range).
 */
MODULE_INFO(import_ns, "DMA_BUF");

/* sg_dma_len is 32-bit: keep entries well below 4 GiB */
#define HL_DMABUF_MAX_SEG	SZ_2G
/*
 * The longest run mapped with one dma_map_resource(): an IOMMU rounds an
 * IOVA allocation up to a power of two, so a longer run would only waste
 * the importer's address space.
 */
#define HL_DMABUF_MAX_RUN	SZ_256M

/* How often a revocation that waits for importers says who they are */
#define HL_DMABUF_REVOKE_LOG_INTERVAL	(10 * HZ)

/**
 * struct hl_dmabuf - an export.
 * @node: in hdev->dmabuf_list (empty until the export is complete).
 * @dmabuf: the dma-buf.
 * @hdev: the device; held.
 * @resv: the owning context's reservation object, shared by its exports;
 *	held. It is @dmabuf->resv.
 * @pack: the exported allocation; held.
 * @ctx: the owning context while it lives, else NULL (hdev->dmabuf_lock);
 *	an export refused at its publication cuts it there, since the
 *	context's teardown only detaches the exports on @node's list.
 * @mapping: the mapping it was exported through while the context lives
 *	(mapping->exported counts this export), else NULL (hdev->dmabuf_lock);
 *	NULL from the start for an export by DRAM address (no DRAM MMU).
 * @offset: byte offset of the exported range in @pack.
 * @size: bytes exported.
 * @owner: the exporting process, for debugfs.
 * @comm: its command name.
 * @revoked: the device went away or was reset; no new mapping (under
 *	dmabuf->resv).
 * @quarantined: a revocation gave up waiting for its fences and handed
 *	@quarantine, with references on @pack and @resv, to the quarantine
 *	work; later revocations do not wait for them again (under
 *	hdev->dmabuf_lock).
 * @quarantine: allocated with the export, freed with it unless a
 *	revocation quarantined it (then NULL; under hdev->dmabuf_lock).
 * @pins: number of pinning attachments (under dmabuf->resv).
 * @mappings: live mappings (under dmabuf->resv).
 */
struct hl_dmabuf {
	struct list_head node;
	struct dma_buf *dmabuf;
	struct hl_device *hdev;
	struct hl_ctx_resv *resv;
	struct hl_vm_phys_pg_pack *pack;
	struct hl_ctx *ctx;
	struct hl_vm_mapping *mapping;
	u64 offset;
	u64 size;
	struct pid *owner;
	char comm[TASK_COMM_LEN];
	bool revoked;
	bool quarantined;
	struct hl_dmabuf_quarantine *quarantine;
	u32 pins;
	u32 mappings;
};

/**
 * struct hl_dmabuf_quarantine - the memory of an export whose fences did
 *	not signal within the revocation's bound: kept until they do.
 * @node: in hl_dmabuf_quarantines (hl_dmabuf_quarantine_lock).
 * @hdev: the device; held, and so is the module (the fence callback).
 * @pack: the exported allocation; held. Counted in hdev->dram_quarantined
 *	while any quarantine holds it (@pack->quarantines).
 * @size: its bytes.
 * @pci_domain: the PCI domain of the device's function.
 * @pci_id: its bus and devfn (pci_dev_id()): a function removed and found
 *	again by a rescan gets a new struct pci_dev, the same location.
 * @resv: the export's reservation object; held.
 * @fences: @resv's fences when the bound passed, held; NULL when there was
 *	no memory for them at once (the revocation does not wait for memory):
 *	then the work waits for @resv's fences as they are, which a holder of
 *	a dma-buf of @resv can keep adding to.
 * @nfences: their number.
 * @next: the first of @fences not seen signalled.
 * @fence: without @fences, the fence of @resv that @cb waits on, held;
 *	NULL before the first.
 * @cb: on @fences[@next], or on @fence, while it is pending.
 * @work: on hl_wq: waits for the next unsignalled fence, or, when there is
 *	none, lets go of everything. Only the work touches @next and @fence.
 */
struct hl_dmabuf_quarantine {
	struct list_head node;
	struct hl_device *hdev;
	struct hl_vm_phys_pg_pack *pack;
	u64 size;
	int pci_domain;
	u16 pci_id;
	struct hl_ctx_resv *resv;
	struct dma_fence **fences;
	unsigned int nfences;
	unsigned int next;
	struct dma_fence *fence;
	struct dma_fence_cb cb;
	struct work_struct work;
};

/* The quarantined exports of every device */
/* Protects: hl_dmabuf_quarantines, hl_vm_phys_pg_pack.quarantines */
static DEFINE_MUTEX(hl_dmabuf_quarantine_lock);
static LIST_HEAD(hl_dmabuf_quarantines); /* hl_dmabuf_quarantine_lock */

static bool hl_dmabuf_iommu_translates(struct device *dev)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(dev);

	return domain && (domain->type & __IOMMU_DOMAIN_PAGING);
}

static int hl_dmabuf_p2p_check(struct hl_device *hdev, struct device *dev)
{
	struct pci_dev *importer;

	if (!dev_is_pci(dev))
		return -EXDEV;
	importer = to_pci_dev(dev);

	if (pci_p2pdma_distance(hdev->pdev, dev, true) >= 0)
		return 0;

	if (hl_p2p_policy == HL_P2P_IOMMU &&
	    pci_find_host_bridge(importer->bus) ==
	    pci_find_host_bridge(hdev->pdev->bus) &&
	    hl_dmabuf_iommu_translates(dev))
		return 0;

	hl_dbg(hdev, DMABUF, "no peer-to-peer path to %s (p2p_policy=%s)\n",
	       dev_name(dev),
	       hl_p2p_policy == HL_P2P_IOMMU ? "iommu" : "strict");
	return -EXDEV;
}

static int hl_dmabuf_attach(struct dma_buf *dmabuf,
			    struct dma_buf_attachment *attach)
{
	struct hl_dmabuf *hdb = dmabuf->priv;

	if (!attach->peer2peer)
		return -EOPNOTSUPP;
	return hl_dmabuf_p2p_check(hdb->hdev, attach->dev);
}

static int hl_dmabuf_pin(struct dma_buf_attachment *attach)
{
	struct hl_dmabuf *hdb = attach->dmabuf->priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	if (hdb->revoked)
		return -ENODEV;
	hdb->pins++;
	/* The attachment's own pin count, for debugfs */
	attach->priv = (void *)((uintptr_t)attach->priv + 1);
	return 0;
}

static void hl_dmabuf_unpin(struct dma_buf_attachment *attach)
{
	struct hl_dmabuf *hdb = attach->dmabuf->priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	hdb->pins--;
	attach->priv = (void *)((uintptr_t)attach->priv - 1);
}

/*
 * An importer mapping is made of runs: physically contiguous pieces of the
 * exported range, at most HL_DMABUF_MAX_RUN long, each mapped once with
 * dma_map_resource() and cut into sg entries that respect the importer's
 * max segment size and segment boundary. The runs follow from the
 * allocation's pages alone (which cannot change while it is exported), so
 * unmapping walks them again instead of remembering them.
 */
typedef int hl_dmabuf_run_fn(void *arg, u64 dram_pa, u64 len);

static int hl_dmabuf_walk_runs(struct hl_dmabuf *hdb, hl_dmabuf_run_fn *fn,
			       void *arg)
{
	struct hl_vm_phys_pg_pack *pack = hdb->pack;
	u64 pos = hdb->offset, end = hdb->offset + hdb->size;
	int rc;

	while (pos < end) {
		u64 page = pos / pack->page_size;
		u64 pa = pack->pages[page] + pos % pack->page_size;
		u64 len = min(end, (page + 1) * pack->page_size) - pos;

		/* Grow over physically consecutive pages */
		while (pos + len < end &&
		       pack->pages[page + 1] == pack->pages[page] + pack->page_size &&
		       len < HL_DMABUF_MAX_RUN) {
			page++;
			len = min(end, (page + 1) * pack->page_size) - pos;
		}
		len = min_t(u64, len, HL_DMABUF_MAX_RUN);
		rc = fn(arg, pa, len);
		if (rc)
			return rc;
		pos += len;
	}
	return 0;
}

/**
 * struct hl_dmabuf_map_state - one importer mapping being made or undone.
 * @hdb: the export.
 * @attach: the importer's attachment.
 * @dir: the mapping's direction.
 * @max_seg: the longest entry the importer takes (page multiple).
 * @boundary: the importer's segment boundary mask.
 * @addrs: while mapping, each run's DMA address.
 * @sg: the next entry to fill, or the first entry of the next run to unmap.
 * @nents: the entries the runs are cut into.
 * @runs: runs counted, mapped, filled in or unmapped so far.
 * @stop: how many runs to unmap.
 */
struct hl_dmabuf_map_state {
	struct hl_dmabuf *hdb;
	struct dma_buf_attachment *attach;
	enum dma_data_direction dir;
	u64 max_seg;
	u64 boundary;
	dma_addr_t *addrs;
	struct scatterlist *sg;
	unsigned int nents;
	unsigned int runs;
	unsigned int stop;
};

/* The length of the entry that starts at @addr with @len bytes of run left */
static u64 hl_dmabuf_entry_len(struct hl_dmabuf_map_state *st,
			       dma_addr_t addr, u64 len)
{
	u64 n = min(len, st->max_seg);

	if (st->boundary != U64_MAX)
		n = min_t(u64, n, st->boundary - (addr & st->boundary) + 1);
	return n;
}

static int hl_dmabuf_count_run(void *arg, u64 dram_pa, u64 len)
{
	struct hl_dmabuf_map_state *st = arg;

	st->runs++;
	return 0;
}

static int hl_dmabuf_map_run(void *arg, u64 dram_pa, u64 len)
{
	struct hl_dmabuf_map_state *st = arg;
	struct hl_device *hdev = st->hdb->hdev;
	phys_addr_t bar = hdev->asic_funcs->dram_bar_addr(hdev, dram_pa);
	dma_addr_t addr;
	u64 n;

	if (hl_dmabuf_raw_bar()) {
		addr = bar;
	} else {
		addr = hl_should_fail(HL_FAULT_DMA_MAP) ? DMA_MAPPING_ERROR :
		       dma_map_resource(st->attach->dev, bar, len, st->dir,
					DMA_ATTR_SKIP_CPU_SYNC);
		if (dma_mapping_error(st->attach->dev, addr))
			return -ENOMEM;
	}
	st->addrs[st->runs++] = addr;
	for (; len; addr += n, len -= n) {
		n = hl_dmabuf_entry_len(st, addr, len);
		st->nents++;
	}
	return 0;
}

static int hl_dmabuf_fill_run(void *arg, u64 dram_pa, u64 len)
{
	struct hl_dmabuf_map_state *st = arg;
	dma_addr_t addr = st->addrs[st->runs++];
	u64 n;

	for (; len; addr += n, len -= n) {
		n = hl_dmabuf_entry_len(st, addr, len);
		sg_set_page(st->sg, NULL, n, 0);
		sg_dma_address(st->sg) = addr;
		sg_dma_len(st->sg) = n;
		st->sg = sg_next(st->sg);
	}
	return 0;
}

/*
 * Unmap one run: from @addrs while the mapping is being made, else from
 * the run's first entry, skipping its other entries.
 */
static int hl_dmabuf_unmap_run(void *arg, u64 dram_pa, u64 len)
{
	struct hl_dmabuf_map_state *st = arg;
	dma_addr_t addr;
	u64 left = len;

	if (st->runs == st->stop)
		return 1;
	addr = st->addrs ? st->addrs[st->runs] : sg_dma_address(st->sg);
	if (!hl_dmabuf_raw_bar())
		dma_unmap_resource(st->attach->dev, addr, len, st->dir,
				   DMA_ATTR_SKIP_CPU_SYNC);
	st->runs++;
	while (!st->addrs && left) {
		if (WARN_ON_ONCE(!st->sg || sg_dma_len(st->sg) > left))
			return -EINVAL;
		left -= sg_dma_len(st->sg);
		st->sg = sg_next(st->sg);
	}
	return 0;
}

/*
 * Count an importer mapping on (@get) or off each page of the allocation
 * that the export covers; -EBUSY, counting nothing, if a page is in
 * HL_DMABUF_MAX_PAGE_MAPS already (the uAPI header says why). The exports
 * of an allocation share its context's reservation object, so its lock,
 * held here, serialises every export's mappings of the pages.
 */
static int hl_dmabuf_page_maps(struct dma_buf_attachment *attach, bool get)
{
	struct hl_dmabuf *hdb = attach->dmabuf->priv;
	u64 first = hdb->offset / hdb->pack->page_size;
	u64 last = (hdb->offset + hdb->size - 1) / hdb->pack->page_size, i;
	u8 *maps = hdb->pack->importer_maps;

	dma_resv_assert_held(attach->dmabuf->resv);
	for (i = first; get && i <= last; i++)
		if (maps[i] >= HL_DMABUF_MAX_PAGE_MAPS)
			return -EBUSY;
	for (i = first; i <= last; i++) {
		if (get)
			maps[i]++;
		else if (!WARN_ON_ONCE(!maps[i]))
			maps[i]--;
	}
	return 0;
}

static struct sg_table *hl_dmabuf_map(struct dma_buf_attachment *attach,
				      enum dma_data_direction dir)
{
	struct hl_dmabuf *hdb = attach->dmabuf->priv;
	struct hl_dmabuf_map_state st = {
		.hdb = hdb, .attach = attach, .dir = dir,
		.boundary = dma_get_seg_boundary(attach->dev),
	};
	struct sg_table *sgt;
	int rc;

	dma_resv_assert_held(attach->dmabuf->resv);
	if (hdb->revoked)
		return ERR_PTR(-ENODEV);

	st.max_seg = round_down(min_t(u64, dma_get_max_seg_size(attach->dev),
				      HL_DMABUF_MAX_SEG), PAGE_SIZE);
	/* Runs are page multiples: a boundary below a page cannot be kept */
	if (!st.max_seg || st.boundary < PAGE_SIZE - 1)
		return ERR_PTR(-EINVAL);

	rc = hl_dmabuf_page_maps(attach, true);
	if (rc)
		return ERR_PTR(rc);

	hl_dmabuf_walk_runs(hdb, hl_dmabuf_count_run, &st);
	st.addrs = kvmalloc_array(st.runs, sizeof(*st.addrs), GFP_KERNEL);
	if (!st.addrs) {
		rc = -ENOMEM;
		goto err_put_maps;
	}

	/* Map each run once; its addresses say where entries must be cut */
	st.runs = 0;
	rc = hl_dmabuf_walk_runs(hdb, hl_dmabuf_map_run, &st);
	if (rc)
		goto err_unmap;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt) {
		rc = -ENOMEM;
		goto err_unmap;
	}
	rc = sg_alloc_table(sgt, st.nents, GFP_KERNEL);
	if (rc)
		goto err_free_sgt;

	st.sg = sgt->sgl;
	st.runs = 0;
	hl_dmabuf_walk_runs(hdb, hl_dmabuf_fill_run, &st);
	kvfree(st.addrs);
	hdb->mappings++;
	atomic_inc(&hdb->hdev->dmabuf_mappings);
	return sgt;

err_free_sgt:
	kfree(sgt);
err_unmap:
	st.stop = st.runs;
	st.runs = 0;
	hl_dmabuf_walk_runs(hdb, hl_dmabuf_unmap_run, &st);
	kvfree(st.addrs);
err_put_maps:
	hl_dmabuf_page_maps(attach, false);
	return ERR_PTR(rc);
}

static void hl_dmabuf_unmap(struct dma_buf_attachment *attach,
			    struct sg_table *sgt, enum dma_data_direction dir)
{
	struct hl_dmabuf *hdb = attach->dmabuf->priv;
	struct hl_dmabuf_map_state st = {
		.hdb = hdb, .attach = attach, .dir = dir,
		.sg = sgt->sgl, .stop = UINT_MAX,
	};
	struct hl_device *hdev = hdb->hdev;

	dma_resv_assert_held(attach->dmabuf->resv);
	hl_dmabuf_walk_runs(hdb, hl_dmabuf_unmap_run, &st);
	sg_free_table(sgt);
	kfree(sgt);
	hl_dmabuf_page_maps(attach, false);
	hdb->mappings--;
	if (atomic_dec_and_test(&hdev->dmabuf_mappings))
		wake_up_all(&hdev->dmabuf_wq);
}

/* Cut an export's link to its context (hdev->dmabuf_lock held) */
static void hl_dmabuf_unlink_ctx(struct hl_dmabuf *hdb)
{
	lockdep_assert_held(&hdb->hdev->dmabuf_lock);
	if (!hdb->ctx)
		return;
	if (hdb->mapping)
		hdb->mapping->exported--;
	hdb->pack->exported--;
	hdb->mapping = NULL;
	hdb->ctx = NULL;
}

static void hl_dmabuf_release(struct dma_buf *dmabuf)
{
	struct hl_dmabuf *hdb = dmabuf->priv;
	struct hl_device *hdev = hdb->hdev;

	mutex_lock(&hdev->dmabuf_lock);
	list_del(&hdb->node);
	hl_dmabuf_unlink_ctx(hdb);
	mutex_unlock(&hdev->dmabuf_lock);

	/* The allocation and the reservation object before the device */
	kfree(hdb->quarantine);
	hl_pg_pack_put(hdb->pack);
	hl_ctx_resv_put(hdb->resv);
	put_pid(hdb->owner);
	hl_device_put(hdev);
	kfree(hdb);
}

static const struct dma_buf_ops hl_dmabuf_ops = {
	.attach = hl_dmabuf_attach,
	.pin = hl_dmabuf_pin,
	.unpin = hl_dmabuf_unpin,
	.map_dma_buf = hl_dmabuf_map,
	.unmap_dma_buf = hl_dmabuf_unmap,
	.release = hl_dmabuf_release,
};

/*
 * Without a DRAM MMU: link @hdb to the user DRAM the context owns, at
 * DRAM physical address @addr (upstream's checks: no offset, page aligned,
 * inside the user DRAM). Return: 0 or -EINVAL.
 */
static int hl_dmabuf_export_phys(struct hl_ctx *ctx, struct hl_dmabuf *hdb,
				 u64 addr, u64 size, u64 offset)
{
	const struct asic_fixed_properties *prop = &ctx->hdev->asic_prop;
	struct hl_vm_phys_pg_pack *pack = ctx->dram_owner;
	u64 base = prop->dram_user_base_address;

	if (offset || !PAGE_ALIGNED(addr) || addr < base ||
	    addr - base > pack->total_size ||
	    size > pack->total_size - (addr - base))
		return -EINVAL;

	mutex_lock(&ctx->hdev->dmabuf_lock);
	pack->exported++;
	hdb->ctx = ctx;
	mutex_unlock(&ctx->hdev->dmabuf_lock);
	hl_pg_pack_get(pack);
	hdb->pack = pack;
	hdb->offset = addr - base;
	return 0;
}

/**
 * hl_dmabuf_export - HL_MEM_OP_EXPORT_DMABUF_FD.
 * @ctx: the caller's context.
 * @in: the ioctl input: export_dmabuf_fd.{addr,mem_size,offset}, flags.
 * @call: the ioctl call, for hl_ioctl_defer_fd_install().
 * @fd: Returned: the fd number, installed once the result reached the user.
 *
 * @addr must be the device VA that HL_MEM_OP_MAP returned for a device
 * memory allocation; @offset and @mem_size must be multiples of PAGE_SIZE,
 * non-zero size, inside the allocation. Without a DRAM MMU (as upstream's
 * GAUDI), @addr is a DRAM physical address, page aligned, and
 * [@addr, @addr + @mem_size) must lie in the user DRAM, which the context
 * owns (hl_mem_owner_init()); @offset must be 0. The export then holds the
 * owner's allocation: no other owner gets the DRAM while it lives.
 *
 * @flags may hold O_RDWR and O_CLOEXEC only (O_RDONLY, 0, is accepted).
 *
 * Return: 0, -EINVAL for a bad address, range or flag, or -ENOMEM/-EMFILE.
 */
int hl_dmabuf_export(struct hl_ctx *ctx, struct hl_mem_in *in,
		     struct hl_ioctl_call *call, int *fd)
{
	u64 addr = in->export_dmabuf_fd.addr, size = in->export_dmabuf_fd.mem_size;
	u64 offset = in->export_dmabuf_fd.offset, end;
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct hl_device *hdev = ctx->hdev;
	struct hl_vm_mapping *mapping;
	struct hl_dmabuf *hdb;
	struct dma_buf *dmabuf;
	bool revoked;
	int rc;

	if (in->flags & ~(O_RDWR | O_CLOEXEC))
		return -EINVAL;
	if (!size || !PAGE_ALIGNED(size) || !PAGE_ALIGNED(offset) ||
	    check_add_overflow(offset, size, &end))
		return -EINVAL;

	hdb = kzalloc(sizeof(*hdb), GFP_KERNEL_ACCOUNT);
	if (!hdb)
		return -ENOMEM;
	INIT_LIST_HEAD(&hdb->node);
	/* A revocation may quarantine it: it allocates nothing then */
	hdb->quarantine = kzalloc(sizeof(*hdb->quarantine), GFP_KERNEL_ACCOUNT);
	if (!hdb->quarantine) {
		rc = -ENOMEM;
		goto err_free_hdb;
	}

	if (ctx->dram_owner) {
		rc = hl_dmabuf_export_phys(ctx, hdb, addr, size, offset);
		if (rc)
			goto err_free_hdb;
	} else {
		mutex_lock(&ctx->mem_lock);
		mapping = hl_mem_find_mapping(ctx, addr);
		if (!mapping || mapping->host || mapping->user_va != addr ||
		    end > mapping->pack->total_size) {
			mutex_unlock(&ctx->mem_lock);
			rc = -EINVAL;
			goto err_free_hdb;
		}
		/* Linked from here on: the mapping and the allocation stay */
		mutex_lock(&hdev->dmabuf_lock);
		mapping->exported++;
		mapping->pack->exported++;
		hdb->ctx = ctx;
		hdb->mapping = mapping;
		mutex_unlock(&hdev->dmabuf_lock);
		hl_pg_pack_get(mapping->pack);
		mutex_unlock(&ctx->mem_lock);
		hdb->pack = mapping->pack;
		hdb->offset = offset;
	}

	kref_get(&ctx->resv->refcount);
	hl_device_get(hdev);
	hdb->hdev = hdev;
	hdb->resv = ctx->resv;
	hdb->size = size;
	hdb->owner = get_pid(task_tgid(current));
	get_task_comm(hdb->comm, current);

	rc = hl_should_fail(HL_FAULT_DMABUF) ? -EMFILE : get_unused_fd_flags(in->flags & O_CLOEXEC);
	if (rc < 0)
		goto err_release_refs;
	*fd = rc;

	exp_info.ops = &hl_dmabuf_ops;
	exp_info.size = size;
	exp_info.flags = in->flags & ~O_CLOEXEC;
	exp_info.priv = hdb;
	exp_info.resv = &ctx->resv->resv;
	dmabuf = hl_should_fail(HL_FAULT_DMABUF) ? ERR_PTR(-ENOMEM) : dma_buf_export(&exp_info);
	if (IS_ERR(dmabuf)) {
		rc = PTR_ERR(dmabuf);
		goto err_put_fd;
	}
	hdb->dmabuf = dmabuf;

	/*
	 * Published under dmabuf_lock, which a revocation holds while it
	 * marks the exports: one that comes after it is refused, so none
	 * escapes it. From here on, the dma-buf's release undoes everything.
	 */
	mutex_lock(&hdev->dmabuf_lock);
	/* A hard reset marks the context killed before it revokes */
	revoked = hdev->exports_revoked || READ_ONCE(ctx->killed);
	if (!revoked)
		list_add_tail(&hdb->node, &hdev->dmabuf_list);
	else
		/*
		 * Off the list, so the teardown's hl_dmabuf_ctx_detach()
		 * never sees it: cut the links here, inside the gate. The
		 * release runs from the put's task work, after the gate,
		 * when the teardown may have freed the mapping already.
		 */
		hl_dmabuf_unlink_ctx(hdb);
	mutex_unlock(&hdev->dmabuf_lock);
	if (revoked) {
		put_unused_fd(*fd);
		dma_buf_put(dmabuf);
		return -ENODEV;
	}

	hl_ioctl_defer_fd_install(call, *fd, dmabuf->file);
	return 0;

err_put_fd:
	put_unused_fd(*fd);
err_release_refs:
	put_pid(hdb->owner);
	hl_device_put(hdev);
	hl_ctx_resv_put(hdb->resv);
	mutex_lock(&hdev->dmabuf_lock);
	hl_dmabuf_unlink_ctx(hdb);
	mutex_unlock(&hdev->dmabuf_lock);
	hl_pg_pack_put(hdb->pack);
err_free_hdb:
	kfree(hdb->quarantine);
	kfree(hdb);
	return rc;
}

/**
 * hl_dmabuf_ctx_detach - a context is torn down: cut its exports' links
 * to it (they keep their allocations).
 * @ctx: the context; no ioctl of it runs.
 */
void hl_dmabuf_ctx_detach(struct hl_ctx *ctx)
{
	struct hl_device *hdev = ctx->hdev;
	struct hl_dmabuf *hdb;

	mutex_lock(&hdev->dmabuf_lock);
	list_for_each_entry(hdb, &hdev->dmabuf_list, node)
		if (hdb->ctx == ctx)
			hl_dmabuf_unlink_ctx(hdb);
	mutex_unlock(&hdev->dmabuf_lock);
}

/* Log who still maps the device's exports */
static void hl_dmabuf_log_holders(struct hl_device *hdev)
{
	struct dma_buf_attachment *attach;
	struct hl_dmabuf *hdb;

	mutex_lock(&hdev->dmabuf_lock);
	list_for_each_entry(hdb, &hdev->dmabuf_list, node) {
		dma_resv_lock(hdb->dmabuf->resv, NULL);
		if (hdb->mappings)
			list_for_each_entry(attach, &hdb->dmabuf->attachments, node)
				hl_warn(hdev,
					"revoked export of %llu bytes (pid %d, %s) still mapped: waiting for %s to let go\n",
					hdb->size, pid_nr(hdb->owner),
					hdb->comm, dev_name(attach->dev));
		dma_resv_unlock(hdb->dmabuf->resv);
	}
	mutex_unlock(&hdev->dmabuf_lock);
}

/**
 * hl_dmabuf_quarantined - whether an export of a PCI function is kept
 * because fences of its reservation object have not signalled yet.
 * @pdev: the function.
 *
 * Return: true while a new binding of @pdev must not hand out its HBM.
 */
bool hl_dmabuf_quarantined(struct pci_dev *pdev)
{
	struct hl_dmabuf_quarantine *q;
	bool found = false;

	/* By location: a remove and rescan makes a new struct pci_dev */
	mutex_lock(&hl_dmabuf_quarantine_lock);
	list_for_each_entry(q, &hl_dmabuf_quarantines, node)
		found |= q->pci_domain == pci_domain_nr(pdev->bus) &&
			 q->pci_id == pci_dev_id(pdev);
	mutex_unlock(&hl_dmabuf_quarantine_lock);
	return found;
}

static void hl_dmabuf_quarantine_fence_cb(struct dma_fence *fence,
					  struct dma_fence_cb *cb)
{
	struct hl_dmabuf_quarantine *q =
		container_of(cb, struct hl_dmabuf_quarantine, cb);

	/* Signalling context: the rest runs from the work */
	queue_work(hl_wq, &q->work);
}

/* A reference on the first unsignalled fence of @resv, or NULL */
static struct dma_fence *hl_dmabuf_late_fence(struct dma_resv *resv)
{
	struct dma_fence *f, *late = NULL;
	struct dma_resv_iter cursor;

	dma_resv_iter_begin(&cursor, resv, DMA_RESV_USAGE_BOOKKEEP);
	dma_resv_for_each_fence_unlocked(&cursor, f) {
		if (!dma_fence_is_signaled(f)) {
			late = dma_fence_get(f);
			break;
		}
	}
	dma_resv_iter_end(&cursor);
	return late;
}

/*
 * Wait for the next unsignalled fence (a callback on it queues this work
 * again), or, when all have signalled, drop the allocation: it returns to
 * the allocator (scrubbed first) once its last other reference, the
 * dma-buf's, goes too. The module reference goes last: hl_wq is destroyed,
 * and so drained, before the module's text goes.
 */
static void hl_dmabuf_quarantine_work(struct work_struct *work)
{
	struct hl_dmabuf_quarantine *q =
		container_of(work, struct hl_dmabuf_quarantine, work);
	struct hl_device *hdev = q->hdev;
	struct dma_fence *f;

	for (; q->next < q->nfences; q->next++)
		if (!dma_fence_add_callback(q->fences[q->next], &q->cb,
					    hl_dmabuf_quarantine_fence_cb))
			return;
	while (!q->fences && (f = hl_dmabuf_late_fence(&q->resv->resv))) {
		dma_fence_put(q->fence);
		q->fence = f;
		if (!dma_fence_add_callback(f, &q->cb,
					    hl_dmabuf_quarantine_fence_cb))
			return;
	}
	dma_fence_put(q->fence);
	while (q->nfences)
		dma_fence_put(q->fences[--q->nfences]);
	kfree(q->fences);

	hl_info(hdev, "quarantined export memory of %llu bytes: its fences signalled, it is released\n",
		q->size);
	mutex_lock(&hl_dmabuf_quarantine_lock);
	list_del(&q->node);
	if (!--q->pack->quarantines)
		atomic64_sub(q->size, &hdev->dram_quarantined);
	mutex_unlock(&hl_dmabuf_quarantine_lock);
	hl_pg_pack_put(q->pack);
	hl_ctx_resv_put(q->resv);
	kfree(q);
	hl_device_put(hdev);
	module_put(THIS_MODULE);
}

/*
 * Hold @resv's fences in @q, if there is memory for them at once: the
 * quarantine then waits for these only, not for fences added later.
 */
static void hl_dmabuf_quarantine_snapshot(struct hl_dmabuf_quarantine *q,
					  struct dma_resv *resv)
{
	struct dma_resv_iter cursor;
	struct dma_fence *f;
	unsigned int n = 0;

	dma_resv_lock(resv, NULL);
	dma_resv_for_each_fence(&cursor, resv, DMA_RESV_USAGE_BOOKKEEP, f)
		n++;
	q->fences = hl_should_fail(HL_FAULT_FENCE) ? NULL :
		    kmalloc_array(max(n, 1U), sizeof(*q->fences),
				  GFP_NOWAIT | __GFP_NOWARN);
	if (q->fences)
		dma_resv_for_each_fence(&cursor, resv, DMA_RESV_USAGE_BOOKKEEP, f)
			q->fences[q->nfences++] = dma_fence_get(f);
	dma_resv_unlock(resv);
}

/*
 * The revocation waited job_timeout_max for @hdb's fences in vain: name
 * the late ones and keep the export's memory until they signal, with the
 * quarantine allocated with the export (nothing to allocate here).
 */
static void hl_dmabuf_quarantine(struct hl_dmabuf *hdb, unsigned int waited)
{
	struct hl_dmabuf_quarantine *q = hdb->quarantine;
	struct hl_device *hdev = hdb->hdev;
	struct dma_resv_iter cursor;
	struct dma_fence *f;

	lockdep_assert_held(&hdev->dmabuf_lock);
	/* As VFIO names who holds a device: the late fence's driver, timeline */
	dma_resv_iter_begin(&cursor, hdb->dmabuf->resv, DMA_RESV_USAGE_BOOKKEEP);
	dma_resv_for_each_fence_unlocked(&cursor, f) {
		if (dma_fence_is_signaled(f))
			continue;
		hl_warn(hdev,
			"revoked export of %llu bytes (pid %d, %s): fence %s:%s seqno %llu not signalled after %u s: its memory is quarantined until it is\n",
			hdb->size, pid_nr(hdb->owner), hdb->comm,
			f->ops->get_driver_name(f),
			f->ops->get_timeline_name(f), f->seqno, waited);
	}
	dma_resv_iter_end(&cursor);

	hdb->quarantined = true;
	/* TEST ONLY: the memory goes with the dma-buf, fences or not */
	if (hl_bug_injected(HL_INJECT_EARLY_RELEASE))
		return;

	/* hdb is on the list, so its allocation and the device are held */
	hdb->quarantine = NULL;
	hl_dmabuf_quarantine_snapshot(q, hdb->dmabuf->resv);
	kref_get(&hdb->resv->refcount);
	q->resv = hdb->resv;
	hl_pg_pack_get(hdb->pack);
	q->pack = hdb->pack;
	q->size = hdb->pack->total_size;
	hl_device_get(hdev);
	q->hdev = hdev;
	/* Live: a reset or removal of one of its devices is running */
	__module_get(THIS_MODULE);
	q->pci_domain = pci_domain_nr(hdev->pdev->bus);
	q->pci_id = pci_dev_id(hdev->pdev);
	INIT_WORK(&q->work, hl_dmabuf_quarantine_work);
	mutex_lock(&hl_dmabuf_quarantine_lock);
	list_add_tail(&q->node, &hl_dmabuf_quarantines);
	if (!q->pack->quarantines++)
		atomic64_add(q->size, &hdev->dram_quarantined);
	mutex_unlock(&hl_dmabuf_quarantine_lock);
	queue_work(hl_wq, &q->work);
}

/*
 * Wait for the fences of every export's reservation object, job_timeout_max
 * at most in all; quarantine the exports whose fences are late.
 */
static void hl_dmabuf_wait_fences(struct hl_device *hdev)
{
	unsigned int bound = READ_ONCE(hl_job_timeout_max);
	unsigned long deadline = jiffies + bound * HZ;
	struct hl_dmabuf *hdb;
	long left;

	mutex_lock(&hdev->dmabuf_lock);
	list_for_each_entry(hdb, &hdev->dmabuf_list, node) {
		/* Kept already, by an earlier revocation */
		if (hdb->quarantined)
			continue;
		left = max_t(long, (long)(deadline - jiffies), 1);
		if (dma_resv_wait_timeout(hdb->dmabuf->resv,
					  DMA_RESV_USAGE_BOOKKEEP, false,
					  left) > 0)
			continue;
		hl_dmabuf_quarantine(hdb, bound);
	}
	mutex_unlock(&hdev->dmabuf_lock);
}

/**
 * hl_dmabuf_revoke_all - revoke every export of the device and wait until
 * no importer can reach its memory.
 * @hdev: the device; its engines are stopped.
 * @for_good: the device is going away: refuse new exports too (a hard
 *	reset marks the dead file's context killed first, and
 *	hl_dmabuf_export() refuses those).
 *
 * Importers get move_notify and must unmap; no new mapping or pin succeeds
 * afterwards (-ENODEV). Returns once every mapping is gone and the
 * reservation objects' fences have signalled, or job_timeout_max has
 * passed: then the exports with late fences are quarantined (their memory
 * stays allocated until the fences signal). The dma-bufs themselves live
 * on until their last reference drops.
 */
void hl_dmabuf_revoke_all(struct hl_device *hdev, bool for_good)
{
	struct hl_dmabuf *hdb;

	mutex_lock(&hdev->dmabuf_lock);
	if (for_good)
		hdev->exports_revoked = true;
	list_for_each_entry(hdb, &hdev->dmabuf_list, node) {
		dma_resv_lock(hdb->dmabuf->resv, NULL);
		hdb->revoked = true;
		dma_buf_move_notify(hdb->dmabuf);
		dma_resv_unlock(hdb->dmabuf->resv);
	}
	mutex_unlock(&hdev->dmabuf_lock);

	/* Importers that cannot be revoked are waited for, VFIO-style */
	while (!wait_event_timeout(hdev->dmabuf_wq,
				   !atomic_read(&hdev->dmabuf_mappings),
				   HL_DMABUF_REVOKE_LOG_INTERVAL))
		hl_dmabuf_log_holders(hdev);

	/* Then for what the importers still had in flight, bounded */
	hl_dmabuf_wait_fences(hdev);
}

static int hl_dmabuf_exports_show(struct seq_file *s, void *unused)
{
	struct hl_device *hdev = s->private;
	struct dma_buf_attachment *attach;
	struct hl_dmabuf *hdb;
	int rc;

	rc = mutex_lock_interruptible(&hdev->dmabuf_lock);
	if (rc)
		return rc;
	list_for_each_entry(hdb, &hdev->dmabuf_list, node) {
		seq_printf(s, "export ino %lu size %llu pid %d comm %s%s%s%s\n",
			   file_inode(hdb->dmabuf->file)->i_ino, hdb->size,
			   pid_nr(hdb->owner), hdb->comm,
			   hdb->ctx ? "" : " (owner closed)",
			   hdb->revoked ? " revoked" : "",
			   hdb->quarantined ? " fences-late" : "");
		rc = dma_resv_lock_interruptible(hdb->dmabuf->resv, NULL);
		if (rc)
			break;
		list_for_each_entry(attach, &hdb->dmabuf->attachments, node)
			seq_printf(s, "  attachment %s %s\n", dev_name(attach->dev),
				   attach->priv ? "pinned" : "dynamic");
		seq_printf(s, "  mappings %u pins %u\n", hdb->mappings,
			   hdb->pins);
		dma_resv_unlock(hdb->dmabuf->resv);
	}
	mutex_unlock(&hdev->dmabuf_lock);
	return rc;
}
DEFINE_SHOW_ATTRIBUTE(hl_dmabuf_exports);

/**
 * hl_dmabuf_debugfs_init - the device's debugfs file "exports": each live
 * export with its size, owner and attachments.
 * @hdev: the device, with its debugfs directory.
 */
void hl_dmabuf_debugfs_init(struct hl_device *hdev)
{
	debugfs_create_file("exports", 0444, hdev->debugfs_root, hdev,
			    &hl_dmabuf_exports_fops);
}

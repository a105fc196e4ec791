// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: exporting device memory as dma-buf for peer-to-peer DMA.
 *
 * What an importer gets (HL_MEM_OP_EXPORT_DMABUF_FD):
 *   - An sg_table whose DMA addresses come from dma_map_resource() of the
 *     HBM BAR for the importer's device, one entry per physically
 *     contiguous chunk of the exported range, split at the importer's
 *     dma_get_max_seg_size() and below 2 GiB. The entries have no struct
 *     page: only sg_dma_address/sg_dma_len are meaningful.
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
 * p2p_policy decides:
 *   "strict" (default): refuse;
 *   "iommu": allow a PCI importer under the same PCI host bridge whose DMA
 *            is translated by an IOMMU: dma_map_resource() then creates
 *            an IOMMU mapping of exactly the exported BAR range, and the
 *            root complex routes the importer's accesses to the BAR
 *            (QEMU's q35 host bridge is on no whitelist, so the test VMs
 *            need this even with CONFIG_PCI_P2PDMA).
 *
 * Ownership: the dma-buf holds a reference on the allocation, on the owning
 * context and on the device, and the exported mapping cannot be unmapped
 * (-EBUSY) nor the allocation freed while exported. Closing /dev/hlN keeps
 * the context (its ASID, page tables and the exported allocations) alive
 * until the last dma-buf reference drops; a new open of the device meanwhile
 * gets a fresh context, and DRAM_USAGE shows the exported memory as used
 * (not in the new context's ctx_dram_mem). The memory is never given to
 * another owner while an importer can reach it.
 *
 * Synchronisation: every command submission of a context that has live
 * exports adds its fence to each export's reservation object with
 * DMA_RESV_USAGE_KERNEL, so that importers that only wait for kernel
 * fences before mapping (as ib_umem_dmabuf does) never see memory an
 * engine is still writing. (Any job may write any mapped address; the
 * driver does not parse command buffers to find out which.)
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
#include <linux/slab.h>

#include "habanalabs.h"
#include "memory.h"

MODULE_IMPORT_NS(DMA_BUF);

static char *p2p_policy = "strict";
module_param(p2p_policy, charp, 0444);
MODULE_PARM_DESC(p2p_policy,
		 "When pci_p2pdma_distance() refuses an importer: \"strict\" refuses too, \"iommu\" allows one under the same host bridge behind an IOMMU (default: strict)");

static bool dmabuf_raw_bar_addresses;
module_param(dmabuf_raw_bar_addresses, bool, 0444);
MODULE_PARM_DESC(dmabuf_raw_bar_addresses,
		 "TEST ONLY, BREAKS DMA: put raw BAR bus addresses in exported sg tables instead of DMA-API addresses for the importer (default: false)");

/* sg_dma_len is 32-bit: keep entries well below 4 GiB */
#define HL_DMABUF_MAX_SEG	SZ_2G

/**
 * struct hl_dmabuf - an export.
 * @node: in hdev->dmabuf_list.
 * @dmabuf: the dma-buf.
 * @hdev: the device; held.
 * @ctx: the owning context; held.
 * @pack: the exported allocation; held.
 * @mapping: the mapping it was exported through (mapping->exported counts
 *	this export, so it stays).
 * @offset: byte offset of the exported range in @pack.
 * @size: bytes exported.
 * @revoked: the device is gone; no new mapping (under dmabuf->resv).
 * @pins: number of pinning attachments (under dmabuf->resv).
 */
struct hl_dmabuf {
	struct list_head node;
	struct dma_buf *dmabuf;
	struct hl_device *hdev;
	struct hl_ctx *ctx;
	struct hl_vm_phys_pg_pack *pack;
	struct hl_vm_mapping *mapping;
	u64 offset;
	u64 size;
	bool revoked;
	u32 pins;
};

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

	if (sysfs_streq(p2p_policy, "iommu") &&
	    pci_find_host_bridge(importer->bus) ==
	    pci_find_host_bridge(hdev->pdev->bus) &&
	    hl_dmabuf_iommu_translates(dev))
		return 0;

	dev_hl_dbg(hdev, "no peer-to-peer path to %s (p2p_policy=%s)\n",
		   dev_name(dev), p2p_policy);
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
	return 0;
}

static void hl_dmabuf_unpin(struct dma_buf_attachment *attach)
{
	struct hl_dmabuf *hdb = attach->dmabuf->priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	hdb->pins--;
}

typedef int hl_dmabuf_piece_fn(void *arg, u64 dram_pa, u64 len);

/*
 * Walk the exported range in physically contiguous chunks, each cut at
 * @max_seg; calls @fn for each piece.
 */
static int hl_dmabuf_walk_pieces(struct hl_dmabuf *hdb, u64 max_seg,
				 hl_dmabuf_piece_fn *fn, void *arg)
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
		       len < max_seg) {
			page++;
			len = min(end, (page + 1) * pack->page_size) - pos;
		}
		len = min(len, max_seg);
		rc = fn(arg, pa, len);
		if (rc)
			return rc;
		pos += len;
	}
	return 0;
}

static int hl_dmabuf_count_piece(void *arg, u64 dram_pa, u64 len)
{
	(*(unsigned int *)arg)++;
	return 0;
}

struct hl_dmabuf_map_state {
	struct hl_dmabuf *hdb;
	struct dma_buf_attachment *attach;
	enum dma_data_direction dir;
	struct scatterlist *sg;
	unsigned int mapped;
};

static int hl_dmabuf_map_piece(void *arg, u64 dram_pa, u64 len)
{
	struct hl_dmabuf_map_state *st = arg;
	struct hl_device *hdev = st->hdb->hdev;
	phys_addr_t bar = hdev->asic_funcs->dram_bar_addr(hdev, dram_pa);
	dma_addr_t addr;

	if (dmabuf_raw_bar_addresses) {
		addr = bar;
	} else {
		addr = dma_map_resource(st->attach->dev, bar, len, st->dir,
					DMA_ATTR_SKIP_CPU_SYNC);
		if (dma_mapping_error(st->attach->dev, addr))
			return -ENOMEM;
	}
	sg_set_page(st->sg, NULL, len, 0);
	sg_dma_address(st->sg) = addr;
	sg_dma_len(st->sg) = len;
	st->sg = sg_next(st->sg);
	st->mapped++;
	return 0;
}

static void hl_dmabuf_unmap_entries(struct dma_buf_attachment *attach,
				    struct sg_table *sgt, unsigned int n,
				    enum dma_data_direction dir)
{
	struct scatterlist *sg;
	unsigned int i;

	if (dmabuf_raw_bar_addresses)
		return;
	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (i == n)
			break;
		dma_unmap_resource(attach->dev, sg_dma_address(sg),
				   sg_dma_len(sg), dir, DMA_ATTR_SKIP_CPU_SYNC);
	}
}

static struct sg_table *hl_dmabuf_map(struct dma_buf_attachment *attach,
				      enum dma_data_direction dir)
{
	struct hl_dmabuf *hdb = attach->dmabuf->priv;
	struct hl_dmabuf_map_state st = {
		.hdb = hdb, .attach = attach, .dir = dir,
	};
	u64 max_seg = min_t(u64, dma_get_max_seg_size(attach->dev),
			    HL_DMABUF_MAX_SEG);
	unsigned int nents = 0;
	struct sg_table *sgt;
	int rc;

	dma_resv_assert_held(attach->dmabuf->resv);
	if (hdb->revoked)
		return ERR_PTR(-ENODEV);

	max_seg = round_down(max_seg, PAGE_SIZE);
	if (!max_seg)
		return ERR_PTR(-EINVAL);

	hl_dmabuf_walk_pieces(hdb, max_seg, hl_dmabuf_count_piece, &nents);

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	rc = sg_alloc_table(sgt, nents, GFP_KERNEL);
	if (rc)
		goto err_free_sgt;

	st.sg = sgt->sgl;
	rc = hl_dmabuf_walk_pieces(hdb, max_seg, hl_dmabuf_map_piece, &st);
	if (rc)
		goto err_unmap;
	return sgt;

err_unmap:
	hl_dmabuf_unmap_entries(attach, sgt, st.mapped, dir);
	sg_free_table(sgt);
err_free_sgt:
	kfree(sgt);
	return ERR_PTR(rc);
}

static void hl_dmabuf_unmap(struct dma_buf_attachment *attach,
			    struct sg_table *sgt, enum dma_data_direction dir)
{
	hl_dmabuf_unmap_entries(attach, sgt, sgt->nents, dir);
	sg_free_table(sgt);
	kfree(sgt);
}

static void hl_dmabuf_release(struct dma_buf *dmabuf)
{
	struct hl_dmabuf *hdb = dmabuf->priv;
	struct hl_device *hdev = hdb->hdev;
	struct hl_ctx *ctx = hdb->ctx;

	mutex_lock(&hdev->dmabuf_lock);
	list_del(&hdb->node);
	mutex_unlock(&hdev->dmabuf_lock);

	mutex_lock(&ctx->mem_lock);
	hdb->mapping->exported--;
	hdb->pack->exported--;
	mutex_unlock(&ctx->mem_lock);

	/* The allocation before its context, the context before the device */
	hl_pg_pack_put(hdb->pack);
	hl_ctx_put(ctx);
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

/**
 * hl_dmabuf_export - HL_MEM_OP_EXPORT_DMABUF_FD.
 * @ctx: the caller's context.
 * @in: the ioctl input: export_dmabuf_fd.{addr,mem_size,offset}, flags.
 * @data: the ioctl argument, for hl_ioctl_defer_fd_install().
 * @fd: Returned: the fd number, installed once the result reached the user.
 *
 * @addr must be the device VA that HL_MEM_OP_MAP returned for a device
 * memory allocation; @offset and @mem_size must be multiples of PAGE_SIZE,
 * non-zero size, inside the allocation.
 *
 * @flags may hold O_RDWR and O_CLOEXEC only (O_RDONLY, 0, is accepted).
 *
 * Return: 0, -EINVAL for a bad address, range or flag, or -ENOMEM/-EMFILE.
 */
int hl_dmabuf_export(struct hl_ctx *ctx, struct hl_mem_in *in, void *data,
		     int *fd)
{
	u64 addr = in->export_dmabuf_fd.addr, size = in->export_dmabuf_fd.mem_size;
	u64 offset = in->export_dmabuf_fd.offset, end;
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct hl_device *hdev = ctx->hdev;
	struct hl_vm_mapping *mapping;
	struct hl_dmabuf *hdb;
	struct dma_buf *dmabuf;
	int rc;

	if (in->flags & ~(O_RDWR | O_CLOEXEC))
		return -EINVAL;
	if (!size || !PAGE_ALIGNED(size) || !PAGE_ALIGNED(offset) ||
	    check_add_overflow(offset, size, &end))
		return -EINVAL;

	hdb = kzalloc(sizeof(*hdb), GFP_KERNEL);
	if (!hdb)
		return -ENOMEM;

	mutex_lock(&ctx->mem_lock);
	mapping = hl_mem_find_mapping(ctx, addr);
	if (!mapping || mapping->host || mapping->user_va != addr ||
	    end > mapping->pack->total_size) {
		mutex_unlock(&ctx->mem_lock);
		rc = -EINVAL;
		goto err_free_hdb;
	}
	mapping->exported++;
	mapping->pack->exported++;
	hl_pg_pack_get(mapping->pack);
	mutex_unlock(&ctx->mem_lock);

	hl_ctx_get(ctx);
	hl_device_get(hdev);
	hdb->hdev = hdev;
	hdb->ctx = ctx;
	hdb->pack = mapping->pack;
	hdb->mapping = mapping;
	hdb->offset = offset;
	hdb->size = size;

	rc = get_unused_fd_flags(in->flags & O_CLOEXEC);
	if (rc < 0)
		goto err_release_refs;
	*fd = rc;

	exp_info.ops = &hl_dmabuf_ops;
	exp_info.size = size;
	exp_info.flags = in->flags & ~O_CLOEXEC;
	exp_info.priv = hdb;
	dmabuf = dma_buf_export(&exp_info);
	if (IS_ERR(dmabuf)) {
		rc = PTR_ERR(dmabuf);
		goto err_put_fd;
	}
	hdb->dmabuf = dmabuf;

	mutex_lock(&hdev->dmabuf_lock);
	list_add_tail(&hdb->node, &hdev->dmabuf_list);
	mutex_unlock(&hdev->dmabuf_lock);

	/* From here on, the dma-buf's release undoes everything */
	hl_ioctl_defer_fd_install(data, *fd, dmabuf->file);
	return 0;

err_put_fd:
	put_unused_fd(*fd);
err_release_refs:
	hl_device_put(hdev);
	hl_ctx_put(ctx);
	mutex_lock(&ctx->mem_lock);
	mapping->exported--;
	mapping->pack->exported--;
	mutex_unlock(&ctx->mem_lock);
	hl_pg_pack_put(hdb->pack);
err_free_hdb:
	kfree(hdb);
	return rc;
}

/**
 * hl_dmabuf_add_fence - make importers of a context's exports wait for a
 * command submission.
 * @ctx: the submitting context.
 * @fence: the submission's fence.
 *
 * Return: 0 or -ENOMEM (no slot for the fence: the submission must fail).
 */
int hl_dmabuf_add_fence(struct hl_ctx *ctx, struct dma_fence *fence)
{
	struct hl_device *hdev = ctx->hdev;
	struct hl_dmabuf *hdb;
	int rc = 0;

	mutex_lock(&hdev->dmabuf_lock);
	list_for_each_entry(hdb, &hdev->dmabuf_list, node) {
		struct dma_resv *resv = hdb->dmabuf->resv;

		if (hdb->ctx != ctx)
			continue;
		dma_resv_lock(resv, NULL);
		rc = dma_resv_reserve_fences(resv, 1);
		if (!rc)
			dma_resv_add_fence(resv, fence, DMA_RESV_USAGE_KERNEL);
		dma_resv_unlock(resv);
		if (rc)
			break;
	}
	mutex_unlock(&hdev->dmabuf_lock);
	return rc;
}

/**
 * hl_dmabuf_revoke_all - revoke every export of a device that goes away.
 * @hdev: the device.
 *
 * Dynamic importers get move_notify and must unmap; no new mapping or pin
 * succeeds afterwards (-ENODEV). The dma-bufs themselves live on until
 * their last reference drops.
 */
void hl_dmabuf_revoke_all(struct hl_device *hdev)
{
	struct hl_dmabuf *hdb;

	mutex_lock(&hdev->dmabuf_lock);
	list_for_each_entry(hdb, &hdev->dmabuf_list, node) {
		dma_resv_lock(hdb->dmabuf->resv, NULL);
		hdb->revoked = true;
		dma_buf_move_notify(hdb->dmabuf);
		dma_resv_unlock(hdb->dmabuf->resv);
	}
	mutex_unlock(&hdev->dmabuf_lock);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * hl_importer: a dma-buf importer driven by real device DMA.
 *
 * A PCI driver for QEMU's edu device (1234:11e8) that imports dma-bufs the
 * way an RDMA NIC driver does (drivers/infiniband/core/umem_dmabuf.c) and
 * moves data in and out of them with edu DMA, so every byte crosses the
 * IOMMU at the DMA addresses of the exporter's sg_table. It never looks at
 * the sg_table's pages: a wrong DMA address shows up as wrong data and an
 * IOMMU fault, exactly as it would for a NIC.
 *
 * User-space interface: hl_importer.h, on the misc device /dev/hl_importer.
 *
 * Lock order (outermost first):
 *   hl_importer_dev.remove_rwsem  (read: every file operation; write: remove)
 *   hl_importer_dev.files_lock
 *   hl_importer_buf.lock
 *   dma_buf.resv                  (dynamic and pinned imports; move_notify
 *                                  is called with only this one held)
 *   hl_edu.dma_lock               (hl_edu.h)
 * No user memory is touched with a lock below remove_rwsem held: a fault on
 * an mmap of a dma-buf may take its reservation lock.
 */

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "hl_edu.h"
#include "hl_importer.h"

#define HL_IMPORTER_NAME		"hl_importer"

/*
 * How long the importer waits for the exporter's fences: the driver's
 * longest job time limit (job_timeout_max, 60 s by default), by which every
 * fence it publishes signals, so that only a fence breaking that bound
 * times out here, not a slow job on a loaded host (a 2 s job took over 10 s
 * with four TCG VMs on two cores)
 */
#define HL_IMPORTER_FENCE_TIMEOUT	(60 * HZ)

#define HL_IMPORTER_MAX_BUFS		1024

#define HL_IMPORTER_F_ALL \
	(HL_IMPORTER_F_DYNAMIC | HL_IMPORTER_F_NO_P2P | HL_IMPORTER_F_PIN | \
	 HL_IMPORTER_F_PIN_NO_REVOKE)

static unsigned int max_seg_size;
module_param(max_seg_size, uint, 0644);
MODULE_PARM_DESC(max_seg_size,
		 "DMA max segment size of the edu device in bytes, a multiple of the page size, applied at probe (rebind to change); exporters must not map longer segments (default: 0 = keep the PCI default, 64 KiB)");

static unsigned long seg_boundary;
module_param(seg_boundary, ulong, 0644);
MODULE_PARM_DESC(seg_boundary,
		 "DMA segment boundary mask of the edu device (2^n - 1, at least the page size - 1), applied at probe (rebind to change); exporters must not map a segment across it (default: 0 = keep the PCI default, 4 GiB - 1)");

static unsigned int corrupt_dma_addr;
module_param(corrupt_dma_addr, uint, 0644);
MODULE_PARM_DESC(corrupt_dma_addr,
		 "Test only: add this many pages to every dma-buf DMA address given to the edu device, to show that a wrong address is caught (default: 0 = off)");

/**
 * struct hl_importer_dev - the edu device.
 * @pdev: its PCI function.
 * @hw: the edu device as a DMA engine (hl_edu.h).
 * @misc: /dev/hl_importer.
 * @kref: held by probe (dropped by remove) and by every open file.
 * @remove_rwsem: read by every file operation, write by remove.
 * @removed: the device was removed; file operations fail with -ENODEV.
 * @files_lock: see @files.
 * @files: the open files (struct hl_importer_file.node).
 * @orig_seg_boundary: the PCI device's segment boundary before probe,
 *	restored at remove.
 * @orig_max_seg_size: the PCI device's max segment size before probe,
 *	restored at remove so that a rebind without max_seg_size gets the
 *	default again.
 */
struct hl_importer_dev {
	struct pci_dev *pdev;
	struct hl_edu hw;
	struct miscdevice misc;
	struct kref kref;

	struct rw_semaphore remove_rwsem;	/* Protects: @removed */
	bool removed;

	struct mutex files_lock;		/* Protects: @files */
	struct list_head files;

	unsigned int orig_max_seg_size;
	unsigned long orig_seg_boundary;
};

/**
 * struct hl_importer_file - an open file of /dev/hl_importer.
 * @edu: the device (a reference).
 * @bufs: handle -> struct hl_importer_buf (one reference each).
 * @node: in hl_importer_dev.files.
 */
struct hl_importer_file {
	struct hl_importer_dev *edu;
	struct xarray bufs;
	struct list_head node;
};

/**
 * struct hl_importer_buf - one import of a dma-buf.
 * @kref: held by the handle and by each ioctl using the import.
 * @edu: the importing device.
 * @dmabuf: the dma-buf (a reference).
 * @attach: the edu device's attachment.
 * @flags: HL_IMPORTER_F_*.
 * @lock: serialises the ioctls on this import.
 * @pinned: dma_buf_pin() is in effect (F_PIN).
 * @state: HL_IMPORTER_STATE_*.
 * @sgt: the mapping when @state is MAPPED.
 * @nents: its number of DMA segments.
 * @move_notify_count: calls of move_notify.
 * @stale: a copy of the DMA addresses and lengths of the last mapping
 *	(no pages), for HL_IMPORTER_DMA_F_STALE; kept until the next MAP or
 *	the release.
 *
 * @pinned, @state, @sgt, @nents and @move_notify_count are written with
 * @lock held and, for dynamic and pinned imports, also the dma-buf's
 * reservation lock: move_notify holds only the latter.
 */
struct hl_importer_buf {
	struct kref kref;
	struct hl_importer_dev *edu;
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	u32 flags;

	struct mutex lock;		/* Protects: the ioctls on this import, see above */
	bool pinned;
	u32 state;
	struct sg_table *sgt;
	u32 nents;
	u64 move_notify_count;
	struct sg_table stale;
};

static DEFINE_MUTEX(hl_importer_probe_lock);	/* Protects: hl_importer_edu */
static struct hl_importer_dev *hl_importer_edu;

/* ---------------------------------------------------------------------- */
/* edu DMA */

/*
 * Move @size bytes at @offset of a mapping by edu DMA, in pieces that never
 * cross a DMA segment. Only sg_dma_address()/sg_dma_len() are used.
 */
static int hl_importer_sgt_copy(struct hl_importer_dev *edu,
				struct sg_table *sgt, u64 offset, u64 size,
				void *kbuf, bool write)
{
	unsigned int corrupt = READ_ONCE(corrupt_dma_addr);
	struct scatterlist *sg;
	u64 done = 0;
	int i, ret;

	if (corrupt)
		dev_notice_ratelimited(&edu->pdev->dev,
				       "corrupt_dma_addr: adding %u page(s) to every DMA address\n",
				       corrupt);

	for_each_sgtable_dma_sg(sgt, sg, i) {
		u64 seg_len = sg_dma_len(sg);

		if (offset >= seg_len) {
			offset -= seg_len;
			continue;
		}
		while (offset < seg_len && done < size) {
			u32 len = min3(seg_len - offset, size - done,
				       (u64)EDU_DMA_MAX);
			dma_addr_t addr = sg_dma_address(sg) + offset +
					  (u64)corrupt * PAGE_SIZE;

			ret = hl_edu_copy(&edu->hw, addr, kbuf + done, len, write);
			if (ret)
				return ret;
			offset += len;
			done += len;
		}
		if (done == size)
			return 0;
		offset = 0;
	}
	/* MAP checked that the segments cover the dma-buf */
	return -EIO;
}

/* ---------------------------------------------------------------------- */
/* Imports */

static bool hl_importer_buf_is_dynamic(struct hl_importer_buf *buf)
{
	return buf->flags & (HL_IMPORTER_F_DYNAMIC | HL_IMPORTER_F_PIN);
}

/*
 * Take what protects the mapping state: @buf->lock, and the reservation
 * lock for dynamic and pinned imports.
 */
static int hl_importer_buf_lock(struct hl_importer_buf *buf)
{
	int ret;

	ret = mutex_lock_interruptible(&buf->lock);
	if (ret)
		return ret;
	if (hl_importer_buf_is_dynamic(buf)) {
		ret = dma_resv_lock_interruptible(buf->dmabuf->resv, NULL);
		if (ret) {
			mutex_unlock(&buf->lock);
			return ret;
		}
	}
	return 0;
}

static void hl_importer_buf_unlock(struct hl_importer_buf *buf)
{
	if (hl_importer_buf_is_dynamic(buf))
		dma_resv_unlock(buf->dmabuf->resv);
	mutex_unlock(&buf->lock);
}

/* -ENODATA when not mapped, -ESTALE when revoked by move_notify */
static int hl_importer_buf_check_mapped(struct hl_importer_buf *buf)
{
	switch (buf->state) {
	case HL_IMPORTER_STATE_MAPPED:
		return 0;
	case HL_IMPORTER_STATE_REVOKED:
		return -ESTALE;
	default:
		return -ENODATA;
	}
}

/* Unmap @sgt; called with the reservation lock held for dynamic imports */
static void hl_importer_buf_unmap_sgt(struct hl_importer_buf *buf)
{
	if (hl_importer_buf_is_dynamic(buf))
		dma_buf_unmap_attachment(buf->attach, buf->sgt,
					 DMA_BIDIRECTIONAL);
	else
		dma_buf_unmap_attachment_unlocked(buf->attach, buf->sgt,
						  DMA_BIDIRECTIONAL);
	buf->sgt = NULL;
	buf->nents = 0;
}

/*
 * The exporter moves or revokes the buffer: drop the mapping (and the pin,
 * as ib_umem_dmabuf's revocable pinned imports do) until the next MAP.
 */
static void hl_importer_move_notify(struct dma_buf_attachment *attach)
{
	struct hl_importer_buf *buf = attach->importer_priv;

	dma_resv_assert_held(attach->dmabuf->resv);

	buf->move_notify_count++;
	/* ib_umem_dmabuf's pinned attachments only complain */
	if (buf->flags & HL_IMPORTER_F_PIN_NO_REVOKE)
		return;
	if (buf->state == HL_IMPORTER_STATE_MAPPED) {
		hl_importer_buf_unmap_sgt(buf);
		buf->state = HL_IMPORTER_STATE_REVOKED;
	}
	if (buf->pinned) {
		dma_buf_unpin(attach);
		buf->pinned = false;
	}
}

static const struct dma_buf_attach_ops hl_importer_p2p_ops = {
	.allow_peer2peer = true,
	.move_notify = hl_importer_move_notify,
};

static const struct dma_buf_attach_ops hl_importer_no_p2p_ops = {
	.allow_peer2peer = false,
	.move_notify = hl_importer_move_notify,
};

static void hl_importer_buf_release(struct kref *kref)
{
	struct hl_importer_buf *buf = container_of(kref, struct hl_importer_buf,
						   kref);

	if (hl_importer_buf_is_dynamic(buf)) {
		dma_resv_lock(buf->dmabuf->resv, NULL);
		if (buf->sgt)
			hl_importer_buf_unmap_sgt(buf);
		if (buf->pinned)
			dma_buf_unpin(buf->attach);
		dma_resv_unlock(buf->dmabuf->resv);
	} else if (buf->sgt) {
		hl_importer_buf_unmap_sgt(buf);
	}
	dma_buf_detach(buf->dmabuf, buf->attach);
	dma_buf_put(buf->dmabuf);
	sg_free_table(&buf->stale);
	mutex_destroy(&buf->lock);
	kfree(buf);
}

static void hl_importer_buf_put(struct hl_importer_buf *buf)
{
	kref_put(&buf->kref, hl_importer_buf_release);
}

/* The import behind @handle with a reference, or NULL */
static struct hl_importer_buf *hl_importer_buf_get(struct hl_importer_file *f,
						   u32 handle)
{
	struct hl_importer_buf *buf;

	xa_lock(&f->bufs);
	buf = xa_load(&f->bufs, handle);
	if (buf)
		kref_get(&buf->kref);
	xa_unlock(&f->bufs);
	return buf;
}

static int hl_importer_buf_import(struct hl_importer_file *f, int fd,
				  u32 flags, u32 *handle, u64 *size,
				  struct hl_importer_buf **bufp)
{
	struct hl_importer_dev *edu = f->edu;
	const struct dma_buf_attach_ops *ops;
	struct hl_importer_buf *buf;
	int ret;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	kref_init(&buf->kref);
	mutex_init(&buf->lock);
	buf->edu = edu;
	buf->flags = flags;
	buf->state = HL_IMPORTER_STATE_UNMAPPED;

	buf->dmabuf = dma_buf_get(fd);
	if (IS_ERR(buf->dmabuf)) {
		ret = PTR_ERR(buf->dmabuf);
		goto err_free_buf;
	}

	if (hl_importer_buf_is_dynamic(buf)) {
		ops = flags & HL_IMPORTER_F_NO_P2P ? &hl_importer_no_p2p_ops :
						     &hl_importer_p2p_ops;
		buf->attach = dma_buf_dynamic_attach(buf->dmabuf,
						     &edu->pdev->dev, ops, buf);
	} else {
		buf->attach = dma_buf_attach(buf->dmabuf, &edu->pdev->dev);
	}
	if (IS_ERR(buf->attach)) {
		ret = PTR_ERR(buf->attach);
		goto err_put_dmabuf;
	}

	if (flags & HL_IMPORTER_F_PIN) {
		dma_resv_lock(buf->dmabuf->resv, NULL);
		ret = dma_buf_pin(buf->attach);
		buf->pinned = !ret;
		dma_resv_unlock(buf->dmabuf->resv);
		if (ret)
			goto err_detach;
	}

	ret = xa_alloc(&f->bufs, handle, buf,
		       XA_LIMIT(1, HL_IMPORTER_MAX_BUFS), GFP_KERNEL);
	if (ret)
		goto err_unpin;

	*size = buf->dmabuf->size;
	*bufp = buf;
	return 0;

err_unpin:
	if (buf->pinned) {
		dma_resv_lock(buf->dmabuf->resv, NULL);
		dma_buf_unpin(buf->attach);
		dma_resv_unlock(buf->dmabuf->resv);
	}
err_detach:
	dma_buf_detach(buf->dmabuf, buf->attach);
err_put_dmabuf:
	dma_buf_put(buf->dmabuf);
err_free_buf:
	mutex_destroy(&buf->lock);
	kfree(buf);
	return ret;
}

/* What an importer must check before handing a mapping to its device */
static int hl_importer_sgt_validate(struct hl_importer_buf *buf,
				    struct sg_table *sgt, u64 *total_len)
{
	struct device *dev = &buf->edu->pdev->dev;
	unsigned int max = dma_get_max_seg_size(dev);
	unsigned long boundary = dma_get_seg_boundary(dev);
	struct scatterlist *sg;
	u64 total = 0;
	int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		unsigned int len = sg_dma_len(sg);
		dma_addr_t addr = sg_dma_address(sg);

		if (!len) {
			dev_notice(dev, "dma-buf segment %d has length 0\n", i);
			return -EPROTO;
		}
		if (len > max) {
			dev_notice(dev,
				   "dma-buf segment %d is %u bytes, longer than max_seg_size %u\n",
				   i, len, max);
			return -EMSGSIZE;
		}
		if ((addr ^ (addr + len - 1)) & ~(dma_addr_t)boundary) {
			dev_notice(dev,
				   "dma-buf segment %d [%pad + %u] crosses the segment boundary %#lx\n",
				   i, &addr, len, boundary);
			return -EMSGSIZE;
		}
		total += len;
	}
	if (total < buf->dmabuf->size) {
		dev_notice(dev, "dma-buf mapping covers %llu of %zu bytes\n",
			   total, buf->dmabuf->size);
		return -EPROTO;
	}
	*total_len = total;
	return 0;
}

/* For HL_IMPORTER_DMA_F_STALE: the DMA addresses of @sgt, without pages */
static int hl_importer_keep_stale_copy(struct hl_importer_buf *buf,
				       struct sg_table *sgt)
{
	struct scatterlist *sg, *d;
	int i, ret;

	sg_free_table(&buf->stale);
	ret = sg_alloc_table(&buf->stale, sgt->nents, GFP_KERNEL);
	if (ret)
		return ret;
	d = buf->stale.sgl;
	for_each_sgtable_dma_sg(sgt, sg, i) {
		sg_dma_address(d) = sg_dma_address(sg);
		sg_dma_len(d) = sg_dma_len(sg);
		d = sg_next(d);
	}
	buf->stale.nents = sgt->nents;
	return 0;
}

static int hl_importer_buf_map(struct hl_importer_buf *buf, u32 *nents,
			       u64 *total_len)
{
	bool dynamic = hl_importer_buf_is_dynamic(buf);
	struct sg_table *sgt;
	long lret;
	int ret;

	ret = hl_importer_buf_lock(buf);
	if (ret)
		return ret;

	if (buf->state == HL_IMPORTER_STATE_MAPPED) {
		ret = hl_importer_sgt_validate(buf, buf->sgt, total_len);
		*nents = buf->nents;
		goto out_unlock;
	}

	/* A pinned import lost its pin to move_notify: pin again */
	if ((buf->flags & HL_IMPORTER_F_PIN) && !buf->pinned) {
		ret = dma_buf_pin(buf->attach);
		if (ret)
			goto out_unlock;
		buf->pinned = true;
	}

	if (dynamic)
		sgt = dma_buf_map_attachment(buf->attach, DMA_BIDIRECTIONAL);
	else
		sgt = dma_buf_map_attachment_unlocked(buf->attach,
						      DMA_BIDIRECTIONAL);
	if (IS_ERR(sgt)) {
		ret = PTR_ERR(sgt);
		goto out_unlock;
	}
	buf->sgt = sgt;
	buf->nents = sgt->nents;

	ret = hl_importer_sgt_validate(buf, sgt, total_len);
	if (ret)
		goto err_unmap;

	if (dynamic) {
		/*
		 * The mapping is valid, the content may not be yet: wait for
		 * the exporter's kernel fences (e.g. a migration).
		 */
		lret = dma_resv_wait_timeout(buf->dmabuf->resv,
					     DMA_RESV_USAGE_KERNEL, true,
					     HL_IMPORTER_FENCE_TIMEOUT);
		if (lret <= 0) {
			ret = lret ? lret : -ETIMEDOUT;
			goto err_unmap;
		}
	}

	ret = hl_importer_keep_stale_copy(buf, sgt);
	if (ret)
		goto err_unmap;
	buf->state = HL_IMPORTER_STATE_MAPPED;
	*nents = buf->nents;
	goto out_unlock;

err_unmap:
	hl_importer_buf_unmap_sgt(buf);
	buf->state = HL_IMPORTER_STATE_UNMAPPED;
out_unlock:
	hl_importer_buf_unlock(buf);
	return ret;
}

static int hl_importer_buf_unmap(struct hl_importer_buf *buf)
{
	int ret;

	ret = hl_importer_buf_lock(buf);
	if (ret)
		return ret;

	switch (buf->state) {
	case HL_IMPORTER_STATE_MAPPED:
		hl_importer_buf_unmap_sgt(buf);
		fallthrough;
	case HL_IMPORTER_STATE_REVOKED:
		buf->state = HL_IMPORTER_STATE_UNMAPPED;
		break;
	default:
		ret = -ENODATA;
	}

	hl_importer_buf_unlock(buf);
	return ret;
}

static int hl_importer_buf_sg_entry(struct hl_importer_buf *buf, u32 index,
				    u64 *dma_addr, u64 *len)
{
	struct scatterlist *sg;
	int ret, i;

	ret = hl_importer_buf_lock(buf);
	if (ret)
		return ret;

	ret = hl_importer_buf_check_mapped(buf);
	if (ret)
		goto out_unlock;

	ret = -EINVAL;
	for_each_sgtable_dma_sg(buf->sgt, sg, i) {
		if (i == index) {
			*dma_addr = sg_dma_address(sg);
			*len = sg_dma_len(sg);
			ret = 0;
			break;
		}
	}

out_unlock:
	hl_importer_buf_unlock(buf);
	return ret;
}

static int hl_importer_buf_dma(struct hl_importer_buf *buf, u64 offset,
			       u64 size, void *kbuf, bool write, u32 flags)
{
	long lret;
	int ret;

	if (!size || size > HL_IMPORTER_MAX_XFER ||
	    offset > buf->dmabuf->size || size > buf->dmabuf->size - offset)
		return -EINVAL;

	ret = hl_importer_buf_lock(buf);
	if (ret)
		return ret;

	if (flags & HL_IMPORTER_DMA_F_STALE) {
		ret = buf->stale.nents ? 0 : -ENODATA;
		if (!ret)
			ret = hl_importer_sgt_copy(buf->edu, &buf->stale, offset,
						   size, kbuf, write);
		goto out_unlock;
	}

	ret = hl_importer_buf_check_mapped(buf);
	if (ret)
		goto out_unlock;

	if (flags & HL_IMPORTER_DMA_F_WAIT) {
		lret = dma_resv_wait_timeout(buf->dmabuf->resv,
					     dma_resv_usage_rw(write), true,
					     HL_IMPORTER_FENCE_TIMEOUT);
		if (lret <= 0) {
			ret = lret ? lret : -ETIMEDOUT;
			goto out_unlock;
		}
	}

	ret = hl_importer_sgt_copy(buf->edu, buf->sgt, offset, size, kbuf,
				   write);

out_unlock:
	hl_importer_buf_unlock(buf);
	return ret;
}

static int hl_importer_buf_fake_move(struct hl_importer_buf *buf)
{
	int ret;

	if (!hl_importer_buf_is_dynamic(buf))
		return -EINVAL;

	/* What an exporter does: dma_buf_move_notify() under its resv lock */
	ret = dma_resv_lock_interruptible(buf->dmabuf->resv, NULL);
	if (ret)
		return ret;
	hl_importer_move_notify(buf->attach);
	dma_resv_unlock(buf->dmabuf->resv);
	return 0;
}

static int hl_importer_buf_status(struct hl_importer_buf *buf,
				  struct hl_importer_status *st)
{
	int ret;

	ret = hl_importer_buf_lock(buf);
	if (ret)
		return ret;
	st->state = buf->state;
	st->move_notify_count = buf->move_notify_count;
	st->flags = buf->flags;
	st->nents = buf->state == HL_IMPORTER_STATE_MAPPED ? buf->nents : 0;
	hl_importer_buf_unlock(buf);
	return 0;
}

/* Drop every import of @f; its ioctls are over or excluded by the caller */
static void hl_importer_file_release_bufs(struct hl_importer_file *f)
{
	struct hl_importer_buf *buf;
	unsigned long handle;

	xa_for_each(&f->bufs, handle, buf) {
		xa_erase(&f->bufs, handle);
		hl_importer_buf_put(buf);
	}
}

/* ---------------------------------------------------------------------- */
/* ioctls: copy in, check padding, call the core function, copy out */

/*
 * Errnos: see struct hl_importer_import. If the result cannot be copied
 * out, the import is released again and -EFAULT returned.
 */
static long hl_importer_import_ioctl(struct hl_importer_file *f,
				     void __user *uarg)
{
	struct hl_importer_import args;
	struct hl_importer_buf *buf;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.pad || args.reserved || (args.flags & ~HL_IMPORTER_F_ALL) ||
	    ((args.flags & HL_IMPORTER_F_PIN_NO_REVOKE) &&
	     !(args.flags & HL_IMPORTER_F_PIN)))
		return -EINVAL;

	ret = hl_importer_buf_import(f, (int)args.fd, args.flags, &args.handle,
				     &args.size, &buf);
	if (ret)
		return ret;

	if (copy_to_user(uarg, &args, sizeof(args))) {
		/* Unless another thread released the handle meanwhile */
		if (xa_cmpxchg(&f->bufs, args.handle, buf, NULL, GFP_KERNEL) == buf)
			hl_importer_buf_put(buf);
		return -EFAULT;
	}
	return 0;
}

/* Errnos: see struct hl_importer_map */
static long hl_importer_map_ioctl(struct hl_importer_file *f,
				  void __user *uarg)
{
	struct hl_importer_map args;
	struct hl_importer_buf *buf;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.pad || args.reserved)
		return -EINVAL;

	buf = hl_importer_buf_get(f, args.handle);
	if (!buf)
		return -ENOENT;
	ret = hl_importer_buf_map(buf, &args.nents, &args.total_len);
	args.max_seg_size = dma_get_max_seg_size(&f->edu->pdev->dev);
	hl_importer_buf_put(buf);
	if (ret)
		return ret;

	return copy_to_user(uarg, &args, sizeof(args)) ? -EFAULT : 0;
}

/* Errnos: see struct hl_importer_sg_entry */
static long hl_importer_sg_entry_ioctl(struct hl_importer_file *f,
				       void __user *uarg)
{
	struct hl_importer_sg_entry args;
	struct hl_importer_buf *buf;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.reserved)
		return -EINVAL;

	buf = hl_importer_buf_get(f, args.handle);
	if (!buf)
		return -ENOENT;
	ret = hl_importer_buf_sg_entry(buf, args.index, &args.dma_addr,
				       &args.len);
	hl_importer_buf_put(buf);
	if (ret)
		return ret;

	return copy_to_user(uarg, &args, sizeof(args)) ? -EFAULT : 0;
}

/*
 * Errnos: see struct hl_importer_dma. User memory is copied through a kernel
 * buffer outside every lock.
 */
static long hl_importer_dma_ioctl(struct hl_importer_file *f,
				  void __user *uarg, bool write)
{
	struct hl_importer_dma args;
	struct hl_importer_buf *buf;
	void __user *uptr;
	void *kbuf;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if ((args.flags & ~(HL_IMPORTER_DMA_F_WAIT | HL_IMPORTER_DMA_F_STALE)) ||
	    args.reserved)
		return -EINVAL;
	if (!args.size || args.size > HL_IMPORTER_MAX_XFER)
		return -EINVAL;
	uptr = u64_to_user_ptr(args.user_ptr);

	buf = hl_importer_buf_get(f, args.handle);
	if (!buf)
		return -ENOENT;

	kbuf = kvmalloc(args.size, GFP_KERNEL);
	if (!kbuf) {
		ret = -ENOMEM;
		goto out_put_buf;
	}

	if (write && copy_from_user(kbuf, uptr, args.size)) {
		ret = -EFAULT;
		goto out_free_kbuf;
	}

	ret = hl_importer_buf_dma(buf, args.offset, args.size, kbuf, write,
				  args.flags);

	if (!ret && !write && copy_to_user(uptr, kbuf, args.size))
		ret = -EFAULT;

out_free_kbuf:
	kvfree(kbuf);
out_put_buf:
	hl_importer_buf_put(buf);
	return ret;
}

/*
 * UNMAP (-ENODATA: not mapped), RELEASE, FAKE_MOVE (-EINVAL: static
 * import); see struct hl_importer_handle.
 */
static long hl_importer_handle_ioctl(struct hl_importer_file *f,
				     unsigned int cmd, void __user *uarg)
{
	struct hl_importer_handle args;
	struct hl_importer_buf *buf;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.pad || args.reserved)
		return -EINVAL;

	if (cmd == HL_IMPORTER_IOCTL_RELEASE) {
		buf = xa_erase(&f->bufs, args.handle);
		if (!buf)
			return -ENOENT;
		hl_importer_buf_put(buf);
		return 0;
	}

	buf = hl_importer_buf_get(f, args.handle);
	if (!buf)
		return -ENOENT;
	if (cmd == HL_IMPORTER_IOCTL_UNMAP)
		ret = hl_importer_buf_unmap(buf);
	else
		ret = hl_importer_buf_fake_move(buf);
	hl_importer_buf_put(buf);
	return ret;
}

/* Errnos: see struct hl_importer_status */
static long hl_importer_status_ioctl(struct hl_importer_file *f,
				     void __user *uarg)
{
	struct hl_importer_status args;
	struct hl_importer_buf *buf;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.reserved)
		return -EINVAL;

	buf = hl_importer_buf_get(f, args.handle);
	if (!buf)
		return -ENOENT;
	ret = hl_importer_buf_status(buf, &args);
	hl_importer_buf_put(buf);
	if (ret)
		return ret;

	return copy_to_user(uarg, &args, sizeof(args)) ? -EFAULT : 0;
}

static long hl_importer_ioctl(struct file *filp, unsigned int cmd,
			      unsigned long arg)
{
	struct hl_importer_file *f = filp->private_data;
	struct hl_importer_dev *edu = f->edu;
	void __user *uarg = (void __user *)arg;
	long ret;

	if (down_read_interruptible(&edu->remove_rwsem))
		return -EINTR;
	if (edu->removed) {
		ret = -ENODEV;
		goto out_unlock;
	}

	switch (cmd) {
	case HL_IMPORTER_IOCTL_IMPORT:
		ret = hl_importer_import_ioctl(f, uarg);
		break;
	case HL_IMPORTER_IOCTL_MAP:
		ret = hl_importer_map_ioctl(f, uarg);
		break;
	case HL_IMPORTER_IOCTL_SG_ENTRY:
		ret = hl_importer_sg_entry_ioctl(f, uarg);
		break;
	case HL_IMPORTER_IOCTL_DMA_READ:
		ret = hl_importer_dma_ioctl(f, uarg, false);
		break;
	case HL_IMPORTER_IOCTL_DMA_WRITE:
		ret = hl_importer_dma_ioctl(f, uarg, true);
		break;
	case HL_IMPORTER_IOCTL_UNMAP:
	case HL_IMPORTER_IOCTL_RELEASE:
	case HL_IMPORTER_IOCTL_FAKE_MOVE:
		ret = hl_importer_handle_ioctl(f, cmd, uarg);
		break;
	case HL_IMPORTER_IOCTL_STATUS:
		ret = hl_importer_status_ioctl(f, uarg);
		break;
	default:
		ret = -ENOTTY;
	}

out_unlock:
	up_read(&edu->remove_rwsem);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Files */

static void hl_importer_dev_release(struct kref *kref)
{
	struct hl_importer_dev *edu = container_of(kref, struct hl_importer_dev,
						   kref);

	hl_edu_fini(&edu->hw);
	mutex_destroy(&edu->files_lock);
	pci_dev_put(edu->pdev);
	kfree(edu);
}

static int hl_importer_open(struct inode *inode, struct file *filp)
{
	/* misc_open() holds misc_mtx: remove cannot have passed
	 * misc_deregister(), so the device is alive.
	 */
	struct hl_importer_dev *edu = container_of(filp->private_data,
						   struct hl_importer_dev, misc);
	struct hl_importer_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	xa_init_flags(&f->bufs, XA_FLAGS_ALLOC1);
	f->edu = edu;
	kref_get(&edu->kref);

	mutex_lock(&edu->files_lock);
	list_add_tail(&f->node, &edu->files);
	mutex_unlock(&edu->files_lock);

	filp->private_data = f;
	return nonseekable_open(inode, filp);
}

static int hl_importer_release(struct inode *inode, struct file *filp)
{
	struct hl_importer_file *f = filp->private_data;
	struct hl_importer_dev *edu = f->edu;

	down_read(&edu->remove_rwsem);
	hl_importer_file_release_bufs(f);
	up_read(&edu->remove_rwsem);

	mutex_lock(&edu->files_lock);
	list_del(&f->node);
	mutex_unlock(&edu->files_lock);

	xa_destroy(&f->bufs);
	kfree(f);
	kref_put(&edu->kref, hl_importer_dev_release);
	return 0;
}

static const struct file_operations hl_importer_fops = {
	.owner = THIS_MODULE,
	.open = hl_importer_open,
	.release = hl_importer_release,
	.unlocked_ioctl = hl_importer_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/* ---------------------------------------------------------------------- */
/* PCI */

static int hl_importer_probe(struct pci_dev *pdev,
			     const struct pci_device_id *id)
{
	struct device *dev = &pdev->dev;
	struct hl_importer_dev *edu;
	u32 ident;
	int ret;

	if (max_seg_size && !PAGE_ALIGNED(max_seg_size)) {
		dev_err(dev, "max_seg_size %u is not a multiple of the page size\n",
			max_seg_size);
		return -EINVAL;
	}
	if (seg_boundary && (seg_boundary < PAGE_SIZE - 1 ||
			     (seg_boundary & (seg_boundary + 1)))) {
		dev_err(dev, "seg_boundary %#lx is not 2^n - 1 of at least a page\n",
			seg_boundary);
		return -EINVAL;
	}

	mutex_lock(&hl_importer_probe_lock);
	if (hl_importer_edu) {
		dev_info(dev, "already driving %s; one edu device is enough\n",
			 pci_name(hl_importer_edu->pdev));
		ret = -EBUSY;
		goto err_unlock;
	}

	ret = pcim_enable_device(pdev);
	if (ret)
		goto err_unlock;

	edu = kzalloc(sizeof(*edu), GFP_KERNEL);
	if (!edu) {
		ret = -ENOMEM;
		goto err_unlock;
	}
	edu->pdev = pci_dev_get(pdev);
	kref_init(&edu->kref);
	init_rwsem(&edu->remove_rwsem);
	mutex_init(&edu->files_lock);
	INIT_LIST_HEAD(&edu->files);

	ret = hl_edu_init(&edu->hw, pdev, HL_IMPORTER_NAME, &ident);
	if (ret)
		goto err_put_edu;

	edu->orig_max_seg_size = dma_get_max_seg_size(dev);
	if (max_seg_size)
		dma_set_max_seg_size(dev, max_seg_size);
	edu->orig_seg_boundary = dma_get_seg_boundary(dev);
	if (seg_boundary)
		dma_set_seg_boundary(dev, seg_boundary);

	ret = hl_edu_start(&edu->hw);
	if (ret)
		goto err_restore_max_seg_size;

	edu->misc.minor = MISC_DYNAMIC_MINOR;
	edu->misc.name = HL_IMPORTER_NAME;
	edu->misc.fops = &hl_importer_fops;
	edu->misc.parent = dev;
	ret = misc_register(&edu->misc);
	if (ret)
		goto err_stop_edu;

	pci_set_drvdata(pdev, edu);
	hl_importer_edu = edu;
	mutex_unlock(&hl_importer_probe_lock);

	dev_info(dev, "edu v%u, /dev/%s, max_seg_size %u, seg_boundary %#lx\n",
		 ident >> 24, HL_IMPORTER_NAME, dma_get_max_seg_size(dev),
		 dma_get_seg_boundary(dev));
	return 0;

err_stop_edu:
	hl_edu_stop(&edu->hw);
err_restore_max_seg_size:
	dma_set_seg_boundary(dev, edu->orig_seg_boundary);
	dma_set_max_seg_size(dev, edu->orig_max_seg_size);
err_put_edu:
	kref_put(&edu->kref, hl_importer_dev_release);
err_unlock:
	mutex_unlock(&hl_importer_probe_lock);
	return ret;
}

static void hl_importer_remove(struct pci_dev *pdev)
{
	struct hl_importer_dev *edu = pci_get_drvdata(pdev);
	struct hl_importer_file *f;

	/* No new opens; then wait for every file operation in flight */
	misc_deregister(&edu->misc);

	down_write(&edu->remove_rwsem);
	edu->removed = true;
	mutex_lock(&edu->files_lock);
	list_for_each_entry(f, &edu->files, node)
		hl_importer_file_release_bufs(f);
	mutex_unlock(&edu->files_lock);
	up_write(&edu->remove_rwsem);

	hl_edu_stop(&edu->hw);
	dma_set_seg_boundary(&pdev->dev, edu->orig_seg_boundary);
	dma_set_max_seg_size(&pdev->dev, edu->orig_max_seg_size);

	mutex_lock(&hl_importer_probe_lock);
	hl_importer_edu = NULL;
	mutex_unlock(&hl_importer_probe_lock);

	kref_put(&edu->kref, hl_importer_dev_release);
}

static const struct pci_device_id hl_importer_pci_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_QEMU_EDU, PCI_DEVICE_ID_QEMU_EDU) },
	{ }
};

/* No MODULE_DEVICE_TABLE: a test module, never autoloaded */

static struct pci_driver hl_importer_pci_driver = {
	.name = HL_IMPORTER_NAME,
	.id_table = hl_importer_pci_ids,
	.probe = hl_importer_probe,
	.remove = hl_importer_remove,
};
module_pci_driver(hl_importer_pci_driver);

MODULE_IMPORT_NS(DMA_BUF);
MODULE_DESCRIPTION("dma-buf test importer driven by QEMU edu device DMA");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * hl_umem: the kernel's own RDMA importer (ib_umem_dmabuf) driven by real
 * device DMA.
 *
 * A PCI driver for QEMU's edu device (1234:11e8) that imports dma-bufs
 * through the functions drivers/infiniband/core/umem_dmabuf.c exports from
 * the running kernel's ib_uverbs.ko, unchanged: ib_umem_dmabuf_get() (with
 * this module's move_notify), ib_umem_dmabuf_get_pinned_with_dma_device()
 * and ib_umem_dmabuf_get_pinned_revocable_and_lock(), mapping through
 * ib_umem_dmabuf_map_pages(). Data moves by edu DMA at the sg_dma_address()
 * of the umem's scatterlist (umem->sgt_append.sgt, what an RDMA driver
 * programs into its MR), through the strict IOMMU.
 *
 * The ib_device is allocated with ib_alloc_device() and never registered:
 * the umem code needs only its dma_device (the edu device) and its name
 * for log messages.
 *
 * The module has no PCI id table: it binds to an edu device only through
 * driver_override, so that it never competes with hl_importer for the VM's
 * one edu device (the suite moves the device over and back).
 *
 * User-space interface: hl_umem.h, on the misc device /dev/hl_umem.
 *
 * Lock order (outermost first):
 *   hl_umem_lock       every file operation and remove: the device, the
 *                      files, their imports
 *   dma_buf.resv       MAP, DMA, STATUS, UNMAP; move_notify and the revoke
 *                      callback are called with only this one held
 *   hl_edu.dma_lock    (hl_edu.h)
 * No user memory is touched with a lock held.
 */

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "hl_edu.h"
#include "hl_umem.h"

#define HL_UMEM_NAME			"hl_umem"

#define HL_UMEM_MAX_BUFS		1024
#define HL_UMEM_POISON			0xa5

/**
 * struct hl_umem_dev - the edu device and its ib_device.
 * @pdev: its PCI function.
 * @hw: the edu device as a DMA engine (hl_edu.h).
 * @ibdev: allocated with ib_alloc_device(), never registered.
 * @misc: /dev/hl_umem.
 * @kref: held by probe (dropped by remove) and by every open file.
 * @removed: the device was removed (hl_umem_lock).
 * @files: the open files (hl_umem_lock).
 */
struct hl_umem_dev {
	struct pci_dev *pdev;
	struct hl_edu hw;
	struct ib_device *ibdev;
	struct miscdevice misc;
	struct kref kref;
	bool removed;
	struct list_head files;
};

/**
 * struct hl_umem_file - an open file of /dev/hl_umem.
 * @edu: the device (a reference).
 * @bufs: handle -> struct hl_umem_buf (hl_umem_lock).
 * @node: in hl_umem_dev.files.
 */
struct hl_umem_file {
	struct hl_umem_dev *edu;
	struct xarray bufs;
	struct list_head node;
};

/**
 * struct hl_umem_seg - a DMA segment, copied out of a scatterlist.
 * @addr: sg_dma_address().
 * @len: sg_dma_len().
 */
struct hl_umem_seg {
	dma_addr_t addr;
	u32 len;
};

/**
 * struct hl_umem_buf - one import.
 * @edu: the importing device.
 * @umem: the RDMA core's umem; its ->private points back here.
 * @kind: HL_UMEM_KIND_*.
 * @invalidated: DYNAMIC: move_notify unmapped it (dma-buf resv).
 * @revoked: REVOCABLE: the revoke callback ran (dma-buf resv).
 * @move_notify_count: calls of move_notify or the revoke callback (resv).
 * @stale: the DMA segments of the last MAP, for HL_UMEM_DMA_F_STALE
 *	(hl_umem_lock).
 * @nstale: their number.
 */
struct hl_umem_buf {
	struct hl_umem_dev *edu;
	struct ib_umem_dmabuf *umem;
	u32 kind;
	bool invalidated;
	bool revoked;
	u64 move_notify_count;
	struct hl_umem_seg *stale;
	u32 nstale;
};

static DEFINE_MUTEX(hl_umem_lock);	/* Protects: see the lock order above */

/* ---------------------------------------------------------------------- */
/* edu DMA */

/*
 * Move @size bytes at byte @offset of the segments by edu DMA, in pieces
 * that never cross a segment.
 */
static int hl_umem_segs_copy(struct hl_umem_dev *edu,
			     const struct hl_umem_seg *segs, u32 nsegs,
			     u64 offset, u64 size, void *kbuf, bool write)
{
	u64 done = 0;
	u32 i;
	int ret;

	if (!write) {
		/* What the DMA does not overwrite reads as the poison */
		ret = hl_edu_fill(&edu->hw, HL_UMEM_POISON);
		if (ret)
			return ret;
	}

	for (i = 0; i < nsegs && done < size; i++) {
		u64 seg_len = segs[i].len;

		if (offset >= seg_len) {
			offset -= seg_len;
			continue;
		}
		while (offset < seg_len && done < size) {
			u32 len = min3(seg_len - offset, size - done,
				       (u64)EDU_DMA_MAX);

			ret = hl_edu_copy(&edu->hw, segs[i].addr + offset,
					  kbuf + done, len, write);
			if (ret)
				return ret;
			offset += len;
			done += len;
		}
		offset = 0;
	}
	/* MAP checked that the segments cover the umem */
	return done == size ? 0 : -EIO;
}

/* ---------------------------------------------------------------------- */
/* Imports */

static struct dma_resv *hl_umem_resv(struct hl_umem_buf *buf)
{
	return buf->umem->attach->dmabuf->resv;
}

/* Whether the RDMA core has the umem mapped; under the reservation lock */
static bool hl_umem_is_mapped(struct hl_umem_buf *buf)
{
	dma_resv_assert_held(hl_umem_resv(buf));
	return buf->umem->sgt && !buf->umem->revoked;
}

/*
 * The umem's DMA segments, as an RDMA driver reads them into its MR:
 * umem->sgt_append.sgt, which ib_umem_dmabuf_map_pages() points at the
 * exporter's sg_table, trimmed to the umem's pages. Returns the number of
 * segments, or -errno; *@segs is kmalloc'ed.
 */
static int hl_umem_get_segs(struct hl_umem_buf *buf, struct hl_umem_seg **segs)
{
	struct ib_umem *umem = &buf->umem->umem;
	struct sg_table *sgt = &umem->sgt_append.sgt;
	struct scatterlist *sg;
	struct hl_umem_seg *s;
	u64 total = 0;
	int i;

	dma_resv_assert_held(hl_umem_resv(buf));
	if (!sgt->nents)
		return -EPROTO;
	s = kmalloc_array(sgt->nents, sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	for_each_sg(sgt->sgl, sg, sgt->nents, i) {
		s[i].addr = sg_dma_address(sg);
		s[i].len = sg_dma_len(sg);
		if (!s[i].len) {
			kfree(s);
			return -EPROTO;
		}
		total += s[i].len;
	}
	if (total < ib_umem_offset(umem) + umem->length) {
		dev_notice(&buf->edu->pdev->dev,
			   "umem scatterlist covers %llu bytes, less than the %zu of the umem\n",
			   total, ib_umem_offset(umem) + umem->length);
		kfree(s);
		return -EPROTO;
	}
	*segs = s;
	return sgt->nents;
}

/* DYNAMIC: the exporter moves or revokes the buffer; unmap until MAP */
static void hl_umem_move_notify(struct dma_buf_attachment *attach)
{
	struct ib_umem_dmabuf *umem = attach->importer_priv;
	struct hl_umem_buf *buf = umem->private;

	dma_resv_assert_held(attach->dmabuf->resv);

	/* NULL only between ib_umem_dmabuf_get() and the IMPORT's end */
	if (buf) {
		buf->move_notify_count++;
		if (umem->sgt)
			buf->invalidated = true;
	}
	ib_umem_dmabuf_unmap_pages(umem);
}

static const struct dma_buf_attach_ops hl_umem_dynamic_ops = {
	.allow_peer2peer = true,
	.move_notify = hl_umem_move_notify,
};

/* REVOCABLE: called once by the RDMA core before it unmaps and unpins */
static void hl_umem_revoke(void *priv)
{
	struct hl_umem_buf *buf = priv;

	dma_resv_assert_held(hl_umem_resv(buf));
	buf->move_notify_count++;
	buf->revoked = true;
}

static void hl_umem_buf_free(struct hl_umem_buf *buf)
{
	ib_umem_release(&buf->umem->umem);
	kfree(buf->stale);
	kfree(buf);
}

static int hl_umem_buf_map(struct hl_umem_buf *buf, struct hl_umem_map *a);

static int hl_umem_buf_import(struct hl_umem_file *f, struct hl_umem_import *a)
{
	struct hl_umem_map map;
	struct hl_umem_dev *edu = f->edu;
	struct ib_umem_dmabuf *umem;
	struct hl_umem_buf *buf;
	int ret;

	if (a->kind > HL_UMEM_KIND_REVOCABLE || !a->size)
		return -EINVAL;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	buf->edu = edu;
	buf->kind = a->kind;

	switch (a->kind) {
	case HL_UMEM_KIND_DYNAMIC:
		umem = ib_umem_dmabuf_get(edu->ibdev, a->offset, a->size,
					  (int)a->fd, IB_ACCESS_LOCAL_WRITE,
					  &hl_umem_dynamic_ops);
		if (IS_ERR(umem)) {
			ret = PTR_ERR(umem);
			goto err_free_buf;
		}
		dma_resv_lock(umem->attach->dmabuf->resv, NULL);
		umem->private = buf;
		dma_resv_unlock(umem->attach->dmabuf->resv);
		break;
	case HL_UMEM_KIND_PINNED:
		umem = ib_umem_dmabuf_get_pinned_with_dma_device(edu->ibdev,
								 &edu->pdev->dev,
								 a->offset,
								 a->size,
								 (int)a->fd,
								 IB_ACCESS_LOCAL_WRITE);
		if (IS_ERR(umem)) {
			ret = PTR_ERR(umem);
			goto err_free_buf;
		}
		break;
	default:
		umem = ib_umem_dmabuf_get_pinned_revocable_and_lock(edu->ibdev,
								    a->offset,
								    a->size,
								    (int)a->fd,
								    IB_ACCESS_LOCAL_WRITE);
		if (IS_ERR(umem)) {
			ret = PTR_ERR(umem);
			goto err_free_buf;
		}
		/* Returned locked: the callback before anyone can revoke */
		ib_umem_dmabuf_set_revoke_locked(umem, hl_umem_revoke, buf);
		dma_resv_unlock(umem->attach->dmabuf->resv);
		break;
	}
	buf->umem = umem;

	/* Mapped already: validate and keep the F_STALE copy, as MAP does */
	if (a->kind != HL_UMEM_KIND_DYNAMIC) {
		ret = hl_umem_buf_map(buf, &map);
		if (ret)
			goto err_release;
	}

	ret = xa_alloc(&f->bufs, &a->handle, buf,
		       XA_LIMIT(1, HL_UMEM_MAX_BUFS), GFP_KERNEL);
	if (ret)
		goto err_release;
	return 0;

err_release:
	ib_umem_release(&umem->umem);
	kfree(buf->stale);
err_free_buf:
	kfree(buf);
	return ret;
}

static int hl_umem_buf_map(struct hl_umem_buf *buf, struct hl_umem_map *a)
{
	struct hl_umem_seg *segs;
	int ret, n, i;

	ret = dma_resv_lock_interruptible(hl_umem_resv(buf), NULL);
	if (ret)
		return ret;

	ret = ib_umem_dmabuf_map_pages(buf->umem);
	if (ret)
		goto out_unlock;
	buf->invalidated = false;

	n = hl_umem_get_segs(buf, &segs);
	if (n < 0) {
		ret = n;
		if (buf->kind == HL_UMEM_KIND_DYNAMIC)
			ib_umem_dmabuf_unmap_pages(buf->umem);
		goto out_unlock;
	}
	a->nents = n;
	a->total_len = 0;
	for (i = 0; i < n; i++)
		a->total_len += segs[i].len;
	kfree(buf->stale);
	buf->stale = segs;
	buf->nstale = n;

out_unlock:
	dma_resv_unlock(hl_umem_resv(buf));
	return ret;
}

static int hl_umem_buf_sg_entry(struct hl_umem_buf *buf,
				struct hl_umem_sg_entry *a)
{
	struct sg_table *sgt = &buf->umem->umem.sgt_append.sgt;
	struct scatterlist *sg;
	int ret, i;

	ret = dma_resv_lock_interruptible(hl_umem_resv(buf), NULL);
	if (ret)
		return ret;
	ret = -ENODATA;
	if (!hl_umem_is_mapped(buf))
		goto out_unlock;
	ret = -EINVAL;
	for_each_sg(sgt->sgl, sg, sgt->nents, i) {
		if (i == a->index) {
			a->dma_addr = sg_dma_address(sg);
			a->len = sg_dma_len(sg);
			ret = 0;
			break;
		}
	}
out_unlock:
	dma_resv_unlock(hl_umem_resv(buf));
	return ret;
}

static int hl_umem_buf_dma(struct hl_umem_buf *buf, struct hl_umem_dma *a,
			   void *kbuf, bool write)
{
	struct ib_umem *umem = &buf->umem->umem;
	u64 offset = ib_umem_offset(umem) + a->offset;
	struct hl_umem_seg *segs;
	int ret, n;

	if (a->offset > umem->length || a->size > umem->length - a->offset)
		return -EINVAL;

	ret = dma_resv_lock_interruptible(hl_umem_resv(buf), NULL);
	if (ret)
		return ret;

	if (a->flags & HL_UMEM_DMA_F_STALE) {
		ret = buf->stale ? hl_umem_segs_copy(buf->edu, buf->stale,
						     buf->nstale, offset,
						     a->size, kbuf, write) :
				   -ENODATA;
		goto out_unlock;
	}

	ret = -ENODATA;
	if (!hl_umem_is_mapped(buf))
		goto out_unlock;
	n = hl_umem_get_segs(buf, &segs);
	if (n < 0) {
		ret = n;
		goto out_unlock;
	}
	ret = hl_umem_segs_copy(buf->edu, segs, n, offset, a->size, kbuf,
				write);
	kfree(segs);

out_unlock:
	dma_resv_unlock(hl_umem_resv(buf));
	return ret;
}

static int hl_umem_buf_unmap(struct hl_umem_buf *buf)
{
	int ret;

	if (buf->kind != HL_UMEM_KIND_DYNAMIC)
		return -EINVAL;
	ret = dma_resv_lock_interruptible(hl_umem_resv(buf), NULL);
	if (ret)
		return ret;
	if (buf->umem->sgt)
		ib_umem_dmabuf_unmap_pages(buf->umem);
	else
		ret = -ENODATA;
	buf->invalidated = false;
	dma_resv_unlock(hl_umem_resv(buf));
	return ret;
}

static int hl_umem_buf_move_notify(struct hl_umem_buf *buf)
{
	int ret;

	ret = dma_resv_lock_interruptible(hl_umem_resv(buf), NULL);
	if (ret)
		return ret;
	dma_buf_move_notify(buf->umem->attach->dmabuf);
	dma_resv_unlock(hl_umem_resv(buf));
	return 0;
}

static int hl_umem_buf_status(struct hl_umem_buf *buf,
			      struct hl_umem_status *a)
{
	struct ib_umem_dmabuf *umem = buf->umem;
	int ret;

	ret = dma_resv_lock_interruptible(hl_umem_resv(buf), NULL);
	if (ret)
		return ret;
	a->kind = buf->kind;
	a->umem_flags = (umem->sgt ? HL_UMEM_UMEM_SGT : 0) |
			(umem->pinned ? HL_UMEM_UMEM_PINNED : 0) |
			(umem->revoked ? HL_UMEM_UMEM_REVOKED : 0);
	if (buf->revoked || umem->revoked)
		a->state = HL_UMEM_STATE_REVOKED;
	else if (umem->sgt)
		a->state = HL_UMEM_STATE_MAPPED;
	else if (buf->invalidated)
		a->state = HL_UMEM_STATE_INVALIDATED;
	else
		a->state = HL_UMEM_STATE_UNMAPPED;
	a->nents = hl_umem_is_mapped(buf) ? umem->umem.sgt_append.sgt.nents : 0;
	a->move_notify_count = buf->move_notify_count;
	dma_resv_unlock(hl_umem_resv(buf));
	return 0;
}

static void hl_umem_file_release_bufs(struct hl_umem_file *f)
{
	struct hl_umem_buf *buf;
	unsigned long handle;

	lockdep_assert_held(&hl_umem_lock);
	xa_for_each(&f->bufs, handle, buf) {
		xa_erase(&f->bufs, handle);
		hl_umem_buf_free(buf);
	}
}

/* ---------------------------------------------------------------------- */
/* ioctls */

static int hl_umem_copy_in(void *args, void __user *uarg, size_t size)
{
	return copy_from_user(args, uarg, size) ? -EFAULT : 0;
}

/*
 * One ioctl on an import, with hl_umem_lock held. @args was copied in and
 * checked by the caller.
 */
static int hl_umem_do_ioctl(struct hl_umem_file *f, unsigned int cmd,
			    void *args, void *kbuf)
{
	struct hl_umem_buf *buf;
	u32 handle;

	lockdep_assert_held(&hl_umem_lock);
	if (cmd == HL_UMEM_IOCTL_IMPORT)
		return hl_umem_buf_import(f, args);

	/* Every other argument starts with the handle */
	handle = *(u32 *)args;
	if (cmd == HL_UMEM_IOCTL_RELEASE) {
		buf = xa_erase(&f->bufs, handle);
		if (!buf)
			return -ENOENT;
		hl_umem_buf_free(buf);
		return 0;
	}
	buf = xa_load(&f->bufs, handle);
	if (!buf)
		return -ENOENT;

	switch (cmd) {
	case HL_UMEM_IOCTL_MAP:
		return hl_umem_buf_map(buf, args);
	case HL_UMEM_IOCTL_SG_ENTRY:
		return hl_umem_buf_sg_entry(buf, args);
	case HL_UMEM_IOCTL_DMA_READ:
		return hl_umem_buf_dma(buf, args, kbuf, false);
	case HL_UMEM_IOCTL_DMA_WRITE:
		return hl_umem_buf_dma(buf, args, kbuf, true);
	case HL_UMEM_IOCTL_UNMAP:
		return hl_umem_buf_unmap(buf);
	case HL_UMEM_IOCTL_MOVE_NOTIFY:
		return hl_umem_buf_move_notify(buf);
	case HL_UMEM_IOCTL_STATUS:
		return hl_umem_buf_status(buf, args);
	}
	return -ENOTTY;
}

/* Zero padding and reserved fields, known flags: else -EINVAL */
static int hl_umem_check_args(unsigned int cmd, const void *args)
{
	const struct hl_umem_import *imp = args;
	const struct hl_umem_map *map = args;
	const struct hl_umem_sg_entry *sg = args;
	const struct hl_umem_dma *dma = args;
	const struct hl_umem_handle *h = args;
	const struct hl_umem_status *st = args;

	switch (cmd) {
	case HL_UMEM_IOCTL_IMPORT:
		return imp->pad || imp->reserved ? -EINVAL : 0;
	case HL_UMEM_IOCTL_MAP:
		return map->reserved ? -EINVAL : 0;
	case HL_UMEM_IOCTL_SG_ENTRY:
		return sg->reserved ? -EINVAL : 0;
	case HL_UMEM_IOCTL_DMA_READ:
	case HL_UMEM_IOCTL_DMA_WRITE:
		return dma->reserved || (dma->flags & ~HL_UMEM_DMA_F_STALE) ||
		       !dma->size || dma->size > HL_UMEM_MAX_XFER ? -EINVAL : 0;
	case HL_UMEM_IOCTL_STATUS:
		return st->pad || st->reserved ? -EINVAL : 0;
	default:
		return h->pad || h->reserved ? -EINVAL : 0;
	}
}

static long hl_umem_ioctl(struct file *filp, unsigned int cmd,
			  unsigned long arg)
{
	struct hl_umem_file *f = filp->private_data;
	void __user *uarg = (void __user *)arg;
	union {
		struct hl_umem_import imp;
		struct hl_umem_map map;
		struct hl_umem_sg_entry sg;
		struct hl_umem_dma dma;
		struct hl_umem_handle h;
		struct hl_umem_status st;
	} args;
	bool read = cmd == HL_UMEM_IOCTL_DMA_READ;
	bool write = cmd == HL_UMEM_IOCTL_DMA_WRITE;
	void *kbuf = NULL;
	long ret;

	switch (cmd) {
	case HL_UMEM_IOCTL_IMPORT:
	case HL_UMEM_IOCTL_MAP:
	case HL_UMEM_IOCTL_SG_ENTRY:
	case HL_UMEM_IOCTL_DMA_READ:
	case HL_UMEM_IOCTL_DMA_WRITE:
	case HL_UMEM_IOCTL_UNMAP:
	case HL_UMEM_IOCTL_RELEASE:
	case HL_UMEM_IOCTL_STATUS:
	case HL_UMEM_IOCTL_MOVE_NOTIFY:
		break;
	default:
		return -ENOTTY;
	}

	ret = hl_umem_copy_in(&args, uarg, _IOC_SIZE(cmd));
	if (!ret)
		ret = hl_umem_check_args(cmd, &args);
	if (ret)
		return ret;

	/* User memory is copied through a kernel buffer outside every lock */
	if (read || write) {
		kbuf = kvmalloc(args.dma.size, GFP_KERNEL);
		if (!kbuf)
			return -ENOMEM;
		if (write && copy_from_user(kbuf,
					    u64_to_user_ptr(args.dma.user_ptr),
					    args.dma.size)) {
			ret = -EFAULT;
			goto out_free;
		}
	}

	if (mutex_lock_interruptible(&hl_umem_lock)) {
		ret = -EINTR;
		goto out_free;
	}
	ret = f->edu->removed ? -ENODEV : hl_umem_do_ioctl(f, cmd, &args, kbuf);
	mutex_unlock(&hl_umem_lock);
	if (ret)
		goto out_free;

	if (read && copy_to_user(u64_to_user_ptr(args.dma.user_ptr), kbuf,
				 args.dma.size)) {
		ret = -EFAULT;
		goto out_free;
	}
	if (!read && !write && copy_to_user(uarg, &args, _IOC_SIZE(cmd))) {
		ret = -EFAULT;
		/* An import the caller never learnt of is released again */
		if (cmd == HL_UMEM_IOCTL_IMPORT) {
			struct hl_umem_buf *buf;

			mutex_lock(&hl_umem_lock);
			buf = xa_erase(&f->bufs, args.imp.handle);
			if (buf)
				hl_umem_buf_free(buf);
			mutex_unlock(&hl_umem_lock);
		}
	}

out_free:
	kvfree(kbuf);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Files */

static void hl_umem_dev_release(struct kref *kref)
{
	struct hl_umem_dev *edu = container_of(kref, struct hl_umem_dev, kref);

	hl_edu_fini(&edu->hw);
	pci_dev_put(edu->pdev);
	kfree(edu);
}

static int hl_umem_open(struct inode *inode, struct file *filp)
{
	/* misc_open() holds misc_mtx: remove has not passed misc_deregister() */
	struct hl_umem_dev *edu = container_of(filp->private_data,
					       struct hl_umem_dev, misc);
	struct hl_umem_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	xa_init_flags(&f->bufs, XA_FLAGS_ALLOC1);
	f->edu = edu;
	kref_get(&edu->kref);

	mutex_lock(&hl_umem_lock);
	list_add_tail(&f->node, &edu->files);
	mutex_unlock(&hl_umem_lock);

	filp->private_data = f;
	return nonseekable_open(inode, filp);
}

static int hl_umem_release(struct inode *inode, struct file *filp)
{
	struct hl_umem_file *f = filp->private_data;
	struct hl_umem_dev *edu = f->edu;

	mutex_lock(&hl_umem_lock);
	hl_umem_file_release_bufs(f);
	list_del(&f->node);
	mutex_unlock(&hl_umem_lock);

	xa_destroy(&f->bufs);
	kfree(f);
	kref_put(&edu->kref, hl_umem_dev_release);
	return 0;
}

static const struct file_operations hl_umem_fops = {
	.owner = THIS_MODULE,
	.open = hl_umem_open,
	.release = hl_umem_release,
	.unlocked_ioctl = hl_umem_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/* ---------------------------------------------------------------------- */
/* PCI */

static int hl_umem_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct device *dev = &pdev->dev;
	struct hl_umem_dev *edu;
	u32 ident;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;

	edu = kzalloc(sizeof(*edu), GFP_KERNEL);
	if (!edu)
		return -ENOMEM;
	edu->pdev = pci_dev_get(pdev);
	kref_init(&edu->kref);
	INIT_LIST_HEAD(&edu->files);

	ret = hl_edu_init(&edu->hw, pdev, HL_UMEM_NAME, &ident);
	if (ret)
		goto err_put_edu;

	/* The RDMA core's device: never registered, only a DMA device */
	edu->ibdev = _ib_alloc_device(sizeof(*edu->ibdev));
	if (!edu->ibdev) {
		ret = -ENOMEM;
		goto err_put_edu;
	}
	edu->ibdev->dma_device = dev;
	edu->ibdev->dev.parent = dev;
	ret = dev_set_name(&edu->ibdev->dev, HL_UMEM_NAME);
	if (ret)
		goto err_dealloc_ibdev;

	ret = hl_edu_start(&edu->hw);
	if (ret)
		goto err_dealloc_ibdev;

	edu->misc.minor = MISC_DYNAMIC_MINOR;
	edu->misc.name = HL_UMEM_NAME;
	edu->misc.fops = &hl_umem_fops;
	edu->misc.parent = dev;
	ret = misc_register(&edu->misc);
	if (ret)
		goto err_stop_edu;

	pci_set_drvdata(pdev, edu);
	dev_info(dev, "edu v%u, /dev/%s: ib_umem_dmabuf importer\n",
		 ident >> 24, HL_UMEM_NAME);
	return 0;

err_stop_edu:
	hl_edu_stop(&edu->hw);
err_dealloc_ibdev:
	ib_dealloc_device(edu->ibdev);
err_put_edu:
	kref_put(&edu->kref, hl_umem_dev_release);
	return ret;
}

static void hl_umem_remove(struct pci_dev *pdev)
{
	struct hl_umem_dev *edu = pci_get_drvdata(pdev);
	struct hl_umem_file *f;

	misc_deregister(&edu->misc);

	mutex_lock(&hl_umem_lock);
	edu->removed = true;
	list_for_each_entry(f, &edu->files, node)
		hl_umem_file_release_bufs(f);
	mutex_unlock(&hl_umem_lock);

	hl_edu_stop(&edu->hw);
	/* No umem of it is left */
	ib_dealloc_device(edu->ibdev);
	kref_put(&edu->kref, hl_umem_dev_release);
}

/* Empty: bound only through driver_override (see the top of the file) */
static const struct pci_device_id hl_umem_pci_ids[] = {
	{ }
};

static struct pci_driver hl_umem_pci_driver = {
	.name = HL_UMEM_NAME,
	.id_table = hl_umem_pci_ids,
	.probe = hl_umem_probe,
	.remove = hl_umem_remove,
};
module_pci_driver(hl_umem_pci_driver);

MODULE_IMPORT_NS(DMA_BUF);
MODULE_DESCRIPTION("ib_umem_dmabuf test importer driven by QEMU edu device DMA");
MODULE_LICENSE("GPL");

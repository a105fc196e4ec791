/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * hl_umem: user-space interface of the RDMA-core importer test module.
 *
 * /dev/hl_umem imports dma-bufs through the kernel's own RDMA core, the
 * functions of drivers/infiniband/core/umem_dmabuf.c that the running
 * kernel exports (ib_uverbs.ko), with QEMU's edu PCI device as the DMA
 * device, and moves data through the umem's scatterlist by edu DMA, the way
 * an RDMA NIC driver (mlx5, efa, irdma, bnxt_re) uses an ib_umem_dmabuf.
 * The ib_device is one the module allocates with ib_alloc_device() and
 * never registers; its dma_device is the edu device.
 *
 * Every argument is a fixed-size struct of __u32/__u64 fields with explicit
 * padding; padding and reserved fields must be zero on input (-EINVAL).
 * Handles are per open file, start at 1, and everything a file imported is
 * released (ib_umem_release()) when it is closed.
 *
 * Errnos common to every ioctl:
 *   -ENOTTY  unknown ioctl (or a struct of another size)
 *   -EFAULT  the argument cannot be read or written
 *   -EINVAL  non-zero padding or reserved field, unknown flag or kind
 *   -ENOENT  no import with this handle in this file
 *   -ENODEV  the edu device was unbound after the file was opened
 *   -EINTR   interrupted while waiting for a lock
 */
#ifndef _UAPI_HL_UMEM_H_
#define _UAPI_HL_UMEM_H_

#include <linux/types.h>
#include <linux/ioctl.h>

/* struct hl_umem_import.kind: which ib_umem_dmabuf_get*() makes the umem */

/*
 * ib_umem_dmabuf_get() with the module's own move_notify, which unmaps the
 * umem (ib_umem_dmabuf_unmap_pages()) until the next MAP
 */
#define HL_UMEM_KIND_DYNAMIC	0U
/*
 * ib_umem_dmabuf_get_pinned_with_dma_device(): pinned and mapped at import;
 * the RDMA core's move_notify only logs a complaint
 */
#define HL_UMEM_KIND_PINNED	1U
/*
 * ib_umem_dmabuf_get_pinned_revocable_and_lock() and
 * ib_umem_dmabuf_set_revoke_locked(): pinned and mapped at import; a
 * move_notify revokes it for good (unmapped, unpinned; MAP then fails)
 */
#define HL_UMEM_KIND_REVOCABLE	2U

/* struct hl_umem_dma.flags */

/*
 * TEST ONLY: DMA through a copy of the DMA addresses of the last mapping,
 * even when the umem was invalidated or revoked since: what an importer that
 * ignored the invalidation would do. The IOMMU must stop it.
 */
#define HL_UMEM_DMA_F_STALE	0x1U

/* Largest DMA_READ/DMA_WRITE in one call */
#define HL_UMEM_MAX_XFER	0x100000U	/* 1 MiB */

/**
 * struct hl_umem_import - HL_UMEM_IOCTL_IMPORT: make an ib_umem_dmabuf of
 * a dma-buf range for the edu device.
 * @fd: dma-buf file descriptor; the umem holds its own reference.
 * @kind: HL_UMEM_KIND_*.
 * @offset: byte offset of the range in the dma-buf (any alignment: the
 *	RDMA core maps whole pages around it).
 * @size: bytes, at least 1; @offset + @size must not exceed the dma-buf.
 * @handle: Returned handle of the import in this file (>= 1).
 * @pad: Must be zero.
 * @reserved: Must be zero.
 *
 * PINNED and REVOCABLE umems are mapped when IMPORT returns (and checked
 * as MAP checks a mapping); DYNAMIC ones need MAP.
 *
 * Errnos: -EBADF @fd is not open; -EINVAL @fd is not a dma-buf, or the
 * range is empty or outside it; -EBUSY the file holds too many imports
 * (1024); -ENOMEM; any error of the exporter's attach (-EOPNOTSUPP, -EXDEV),
 * pin (-ENODEV for a revoked export) or map.
 */
struct hl_umem_import {
	__u32 fd;
	__u32 kind;
	__u64 offset;
	__u64 size;
	__u32 handle;
	__u32 pad;
	__u64 reserved;
};

/**
 * struct hl_umem_map - HL_UMEM_IOCTL_MAP: ib_umem_dmabuf_map_pages() under
 * the dma-buf's reservation lock.
 * @handle: The import.
 * @nents: Returned number of DMA segments of the umem's scatterlist (the
 *	exporter's sg_table trimmed to the umem's pages).
 * @total_len: Returned sum of their lengths: the page-aligned span of the
 *	umem's range.
 * @reserved: Must be zero.
 *
 * A mapped umem stays as it is; an invalidated DYNAMIC umem is mapped again.
 *
 * Errnos: -EINVAL a REVOCABLE umem that was revoked; -EPROTO the
 * scatterlist has a zero-length segment or does not cover the range; any
 * error of the exporter's map or pin (-ENODEV for a revoked export).
 */
struct hl_umem_map {
	__u32 handle;
	__u32 nents;
	__u64 total_len;
	__u64 reserved;
};

/**
 * struct hl_umem_sg_entry - HL_UMEM_IOCTL_SG_ENTRY: one DMA segment of the
 * umem's scatterlist.
 * @handle: The import.
 * @index: Segment index, below the @nents returned by MAP.
 * @dma_addr: Returned sg_dma_address() of the segment.
 * @len: Returned sg_dma_len() of the segment.
 * @reserved: Must be zero.
 *
 * Errnos: -ENODATA not mapped; -EINVAL @index out of range.
 */
struct hl_umem_sg_entry {
	__u32 handle;
	__u32 index;
	__u64 dma_addr;
	__u64 len;
	__u64 reserved;
};

/**
 * struct hl_umem_dma - HL_UMEM_IOCTL_DMA_READ / _DMA_WRITE: move data
 * between the umem and user memory by edu DMA.
 * @handle: The import, mapped.
 * @flags: HL_UMEM_DMA_F_*.
 * @offset: Byte offset in the umem's range; no alignment required.
 * @size: Bytes to move, 1..HL_UMEM_MAX_XFER; @offset + @size must not
 *	exceed the umem's size.
 * @user_ptr: READ: where the data goes; WRITE: where it comes from.
 * @reserved: Must be zero.
 *
 * The range is split into pieces of at most 2048 bytes that never cross a
 * DMA segment; each piece is two edu DMAs through the IOMMU, at the
 * sg_dma_address() of the umem's scatterlist. A READ first fills the edu
 * buffer with 0xa5 bytes, so that a read whose DMA the IOMMU stops (QEMU
 * then gives edu zeros) never returns an earlier transfer's data. The
 * reservation lock is held across the DMAs, so a move_notify waits until
 * they are done. Each edu DMA takes about 100 ms: keep transfers small.
 *
 * Errnos: -EINVAL bad @offset/@size; -ENODATA not mapped (never mapped,
 * invalidated by move_notify, or revoked), or with F_STALE never mapped;
 * -ETIMEDOUT an edu DMA did not complete within 5 s (the edu device then
 * stops DMA: later transfers fail with -EIO until it is bound again);
 * -ENOMEM.
 */
struct hl_umem_dma {
	__u32 handle;
	__u32 flags;
	__u64 offset;
	__u64 size;
	__u64 user_ptr;
	__u64 reserved;
};

/**
 * struct hl_umem_handle - HL_UMEM_IOCTL_UNMAP, _RELEASE and _MOVE_NOTIFY:
 * an operation on an import that only needs its handle.
 * @handle: The import.
 * @pad: Must be zero.
 * @reserved: Must be zero.
 *
 * UNMAP: ib_umem_dmabuf_unmap_pages() of a DYNAMIC umem (-EINVAL for the
 * pinned kinds, -ENODATA if not mapped). RELEASE: ib_umem_release() (which
 * revokes, unpins, detaches and drops the dma-buf reference) and frees the
 * handle. MOVE_NOTIFY (tests): dma_buf_move_notify() on the umem's dma-buf
 * under its reservation lock, what its exporter does when it moves the
 * buffer: every dynamic attachment of the dma-buf is notified.
 */
struct hl_umem_handle {
	__u32 handle;
	__u32 pad;
	__u64 reserved;
};

/* struct hl_umem_status.state */
#define HL_UMEM_STATE_UNMAPPED		0
#define HL_UMEM_STATE_MAPPED		1
/* DYNAMIC: unmapped by move_notify; MAP maps it again */
#define HL_UMEM_STATE_INVALIDATED	2
/* REVOCABLE: revoked for good */
#define HL_UMEM_STATE_REVOKED		3

/* struct hl_umem_status.umem_flags: struct ib_umem_dmabuf as the core left it */
#define HL_UMEM_UMEM_SGT	0x1U	/* ->sgt: mapped */
#define HL_UMEM_UMEM_PINNED	0x2U	/* ->pinned */
#define HL_UMEM_UMEM_REVOKED	0x4U	/* ->revoked */

/**
 * struct hl_umem_status - HL_UMEM_IOCTL_STATUS: state of an import.
 * @handle: The import.
 * @state: Returned HL_UMEM_STATE_*.
 * @kind: Returned HL_UMEM_KIND_* given at import.
 * @umem_flags: Returned HL_UMEM_UMEM_*, read from the RDMA core's struct
 *	under the reservation lock.
 * @move_notify_count: Returned number of calls of the module's move_notify
 *	(DYNAMIC) or revoke callback (REVOCABLE); 0 for PINNED, whose
 *	move_notify is the RDMA core's own.
 * @nents: Returned number of DMA segments when mapped, else 0.
 * @pad: Must be zero.
 * @reserved: Must be zero.
 */
struct hl_umem_status {
	__u32 handle;
	__u32 state;
	__u32 kind;
	__u32 umem_flags;
	__u64 move_notify_count;
	__u32 nents;
	__u32 pad;
	__u64 reserved;
};

#define HL_UMEM_IOCTL_IMPORT		_IOWR('U', 0x00, struct hl_umem_import)
#define HL_UMEM_IOCTL_MAP		_IOWR('U', 0x01, struct hl_umem_map)
#define HL_UMEM_IOCTL_SG_ENTRY		_IOWR('U', 0x02, struct hl_umem_sg_entry)
#define HL_UMEM_IOCTL_DMA_READ		_IOWR('U', 0x03, struct hl_umem_dma)
#define HL_UMEM_IOCTL_DMA_WRITE		_IOWR('U', 0x04, struct hl_umem_dma)
#define HL_UMEM_IOCTL_UNMAP		_IOWR('U', 0x05, struct hl_umem_handle)
#define HL_UMEM_IOCTL_RELEASE		_IOWR('U', 0x06, struct hl_umem_handle)
#define HL_UMEM_IOCTL_STATUS		_IOWR('U', 0x07, struct hl_umem_status)
#define HL_UMEM_IOCTL_MOVE_NOTIFY	_IOWR('U', 0x08, struct hl_umem_handle)

#endif /* _UAPI_HL_UMEM_H_ */

/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * hl_importer: user-space interface of the dma-buf test importer.
 *
 * /dev/hl_importer imports dma-bufs for QEMU's edu PCI device and moves data
 * in and out of them by edu DMA, the way an RDMA NIC driver uses an imported
 * dma-buf: only the DMA addresses of the exporter's sg_table are used, never
 * its pages. Tests use it to prove that an exporter's sg_table holds correct
 * DMA addresses for the importing device.
 *
 * Every argument is a fixed-size struct of __u32/__u64 fields with explicit
 * padding; padding and reserved fields must be zero on input (-EINVAL).
 * Handles are per open file of /dev/hl_importer, start at 1, and everything a
 * file imported is released when it is closed.
 *
 * Errnos common to every ioctl:
 *   -ENOTTY  unknown ioctl (or a struct of another size)
 *   -EFAULT  the argument cannot be read or written
 *   -EINVAL  non-zero padding or reserved field, unknown flag
 *   -ENOENT  no import with this handle in this file
 *   -ENODEV  the edu device was unbound after the file was opened
 *   -EINTR   interrupted while waiting for a lock
 */
#ifndef _UAPI_HL_IMPORTER_H_
#define _UAPI_HL_IMPORTER_H_

#include <linux/types.h>
#include <linux/ioctl.h>

/* Import flags (struct hl_importer_import.flags) */

/* dma_buf_dynamic_attach() with move_notify; default: dma_buf_attach() */
#define HL_IMPORTER_F_DYNAMIC	0x1U
/*
 * importer_ops.allow_peer2peer = false, for F_DYNAMIC and F_PIN imports
 * (static imports never allow peer-to-peer)
 */
#define HL_IMPORTER_F_NO_P2P	0x2U
/* dynamic attach, then dma_buf_pin() for the import's lifetime */
#define HL_IMPORTER_F_PIN	0x4U
/*
 * with F_PIN: ignore move_notify (count it only), keeping the pin and the
 * mapping until RELEASE, as ib_umem_dmabuf_get_pinned() importers do
 */
#define HL_IMPORTER_F_PIN_NO_REVOKE	0x8U

/* DMA flags (struct hl_importer_dma.flags) */

/* wait for the dma-buf's implicit-sync fences first */
#define HL_IMPORTER_DMA_F_WAIT	0x1U
/*
 * TEST ONLY: DMA through the DMA addresses of the import's last mapping, a
 * copy kept since that MAP, even when it was unmapped or revoked since: what
 * a buggy importer that ignored move_notify would do. The IOMMU must stop it.
 */
#define HL_IMPORTER_DMA_F_STALE	0x2U

/* Largest DMA_READ/DMA_WRITE in one call */
#define HL_IMPORTER_MAX_XFER	0x100000U	/* 1 MiB */

/**
 * struct hl_importer_import - HL_IMPORTER_IOCTL_IMPORT: attach the edu
 * device to a dma-buf.
 * @fd: dma-buf file descriptor. The import holds its own reference, so the
 *	fd may be closed afterwards.
 * @flags: HL_IMPORTER_F_*. Without a flag the attachment is static
 *	(dma_buf_attach(): no move_notify, no peer-to-peer, the exporter keeps
 *	the buffer in place while it is attached or mapped).
 * @handle: Returned handle of the import in this file (>= 1).
 * @pad: Must be zero.
 * @size: Returned size of the dma-buf in bytes.
 * @reserved: Must be zero.
 *
 * Errnos: -EBADF @fd is not open; -EINVAL @fd is not a dma-buf;
 * -EBUSY the file holds too many imports (1024); -ENOMEM; any error of the
 * exporter's attach (e.g. a refused peer-to-peer attachment) or pin.
 */
struct hl_importer_import {
	__u32 fd;
	__u32 flags;
	__u32 handle;
	__u32 pad;
	__u64 size;
	__u64 reserved;
};

/**
 * struct hl_importer_map - HL_IMPORTER_IOCTL_MAP: map the dma-buf for the
 * edu device and validate the sg_table.
 * @handle: The import.
 * @nents: Returned number of DMA segments of the mapping.
 * @total_len: Returned sum of the DMA segment lengths (>= the dma-buf size).
 * @max_seg_size: Returned dma_get_max_seg_size() of the edu device, the
 *	longest segment the mapping may have.
 * @pad: Must be zero.
 * @reserved: Must be zero.
 *
 * Calls dma_buf_map_attachment() (dynamic and pinned imports: under the
 * dma-buf's reservation lock, then waits for its DMA_RESV_USAGE_KERNEL
 * fences; static imports: dma_buf_map_attachment_unlocked()). Mapping an
 * import that is already mapped returns the current mapping. A mapping
 * revoked by the exporter's move_notify is replaced by a new one.
 *
 * Errnos: -EPROTO the sg_table has a zero-length segment or covers less
 * than the dma-buf; -EMSGSIZE a segment is longer than the edu device's
 * dma_get_max_seg_size(); -ETIMEDOUT the kernel fences did not signal
 * within 60 s; any error of the exporter's map_dma_buf. On error the import
 * is left unmapped.
 */
struct hl_importer_map {
	__u32 handle;
	__u32 nents;
	__u64 total_len;
	__u32 max_seg_size;
	__u32 pad;
	__u64 reserved;
};

/**
 * struct hl_importer_sg_entry - HL_IMPORTER_IOCTL_SG_ENTRY: one DMA segment
 * of the current mapping.
 * @handle: The import.
 * @index: Segment index, below the @nents returned by MAP.
 * @dma_addr: Returned sg_dma_address() of the segment.
 * @len: Returned sg_dma_len() of the segment.
 * @reserved: Must be zero.
 *
 * Errnos: -ENODATA not mapped; -ESTALE the mapping was revoked by
 * move_notify; -EINVAL @index out of range.
 */
struct hl_importer_sg_entry {
	__u32 handle;
	__u32 index;
	__u64 dma_addr;
	__u64 len;
	__u64 reserved;
};

/**
 * struct hl_importer_dma - HL_IMPORTER_IOCTL_DMA_READ / _DMA_WRITE: move
 * data between the dma-buf and user memory by edu DMA.
 * @handle: The import, mapped.
 * @flags: HL_IMPORTER_DMA_F_*.
 * @offset: Byte offset in the dma-buf; no alignment required.
 * @size: Bytes to move, 1..HL_IMPORTER_MAX_XFER; @offset + @size must not
 *	exceed the dma-buf size.
 * @user_ptr: READ: where the data goes; WRITE: where it comes from.
 * @reserved: Must be zero.
 *
 * The range is split into pieces of at most 2048 bytes that never cross a
 * DMA segment; each piece is two edu DMAs through the IOMMU: dma-buf <-> edu
 * buffer <-> a coherent bounce buffer of the edu device. Each edu DMA takes
 * about 100 ms (edu's DMA timer): keep transfers small.
 * For dynamic imports the reservation lock is held across the DMAs, so
 * move_notify waits until they are done.
 *
 * Like an RDMA NIC, the transfer does not wait for the dma-buf's fences,
 * unless @flags has HL_IMPORTER_DMA_F_WAIT: then it first waits (60 s) as an
 * implicitly synchronised device would, for dma_resv_usage_rw(write): a
 * READ waits for the writers (KERNEL and WRITE fences), a WRITE for every
 * fence. No partial transfer is reported:
 * on error the data of a READ is not copied out and a WRITE may have been
 * done in part.
 *
 * Errnos: -EINVAL bad @offset/@size or unknown flag; -ENODATA not mapped; -ESTALE the
 * mapping was revoked by move_notify and not mapped again; -ETIMEDOUT an
 * edu DMA did not complete within 5 s (the edu device then stops DMA:
 * every later transfer fails with -EIO until the module is reloaded, or
 * with HL_IMPORTER_DMA_F_WAIT, the fences did not signal in time); -ENOMEM.
 */
struct hl_importer_dma {
	__u32 handle;
	__u32 flags;
	__u64 offset;
	__u64 size;
	__u64 user_ptr;
	__u64 reserved;
};

/**
 * struct hl_importer_handle - HL_IMPORTER_IOCTL_UNMAP, _RELEASE and
 * _FAKE_MOVE: an operation on an import that only needs its handle.
 * @handle: The import.
 * @pad: Must be zero.
 * @reserved: Must be zero.
 *
 * UNMAP: unmaps the current mapping, or forgets a revoked one (-ENODATA if
 * not mapped). RELEASE: unmaps, unpins, detaches, drops the dma-buf
 * reference and frees the handle. FAKE_MOVE (tests only): calls the
 * import's own move_notify callback under the reservation lock, as an
 * exporter moving the buffer would; -EINVAL for a static import.
 */
struct hl_importer_handle {
	__u32 handle;
	__u32 pad;
	__u64 reserved;
};

/* struct hl_importer_status.state */
#define HL_IMPORTER_STATE_UNMAPPED	0
#define HL_IMPORTER_STATE_MAPPED	1
#define HL_IMPORTER_STATE_REVOKED	2

/**
 * struct hl_importer_status - HL_IMPORTER_IOCTL_STATUS: state of an import.
 * @handle: The import.
 * @state: Returned HL_IMPORTER_STATE_*.
 * @move_notify_count: Returned number of move_notify calls on the import.
 * @flags: Returned HL_IMPORTER_F_* given at import.
 * @nents: Returned number of DMA segments when mapped, else 0.
 * @reserved: Must be zero.
 */
struct hl_importer_status {
	__u32 handle;
	__u32 state;
	__u64 move_notify_count;
	__u32 flags;
	__u32 nents;
	__u64 reserved;
};

#define HL_IMPORTER_IOCTL_IMPORT	_IOWR('I', 0x00, struct hl_importer_import)
#define HL_IMPORTER_IOCTL_MAP		_IOWR('I', 0x01, struct hl_importer_map)
#define HL_IMPORTER_IOCTL_SG_ENTRY	_IOWR('I', 0x02, struct hl_importer_sg_entry)
#define HL_IMPORTER_IOCTL_DMA_READ	_IOWR('I', 0x03, struct hl_importer_dma)
#define HL_IMPORTER_IOCTL_DMA_WRITE	_IOWR('I', 0x04, struct hl_importer_dma)
#define HL_IMPORTER_IOCTL_UNMAP		_IOWR('I', 0x05, struct hl_importer_handle)
#define HL_IMPORTER_IOCTL_RELEASE	_IOWR('I', 0x06, struct hl_importer_handle)
#define HL_IMPORTER_IOCTL_STATUS	_IOWR('I', 0x07, struct hl_importer_status)
#define HL_IMPORTER_IOCTL_FAKE_MOVE	_IOWR('I', 0x08, struct hl_importer_handle)

#endif /* _UAPI_HL_IMPORTER_H_ */

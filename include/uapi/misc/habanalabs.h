/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * habanalabs: user-space interface of the habanalabs accelerator driver.
 *
 * The layout follows the misc-era upstream header (drivers/misc/habanalabs,
 * v5.x) so that code written for hl-thunk builds against it. Every ioctl
 * argument is a fixed-size struct of __u32/__u64 fields with explicit
 * padding. All padding and reserved fields must be zero on input; the driver
 * rejects anything else with -EINVAL so that they can be given a meaning
 * later.
 *
 * Argument structs are extensible: the driver copies in min(user size,
 * kernel size) bytes, zero-fills the rest, and rejects a larger user struct
 * whose extra bytes are not zero (-E2BIG). On output it copies min(user size,
 * kernel size) bytes back.
 */
#ifndef _UAPI_MISC_HABANALABS_H_
#define _UAPI_MISC_HABANALABS_H_

#include <linux/types.h>
#include <linux/ioctl.h>

/**
 * enum hl_device_status - the state of a device, as returned by
 * HL_INFO_DEVICE_STATUS and shown in sysfs.
 * @HL_DEVICE_STATUS_OPERATIONAL: the device accepts work.
 * @HL_DEVICE_STATUS_IN_RESET: a reset is in progress.
 * @HL_DEVICE_STATUS_MALFUNCTION: the device failed and needs a reset.
 * @HL_DEVICE_STATUS_NEEDS_RESET: a reset was requested and not yet done.
 * @HL_DEVICE_STATUS_IN_DEVICE_CREATION: probe has not finished.
 * @HL_DEVICE_STATUS_IN_RESET_AFTER_DEVICE_RELEASE: the last user left and
 *	the device is being cleaned for the next one.
 * @HL_DEVICE_STATUS_LAST: number of states.
 */
enum hl_device_status {
	HL_DEVICE_STATUS_OPERATIONAL,
	HL_DEVICE_STATUS_IN_RESET,
	HL_DEVICE_STATUS_MALFUNCTION,
	HL_DEVICE_STATUS_NEEDS_RESET,
	HL_DEVICE_STATUS_IN_DEVICE_CREATION,
	HL_DEVICE_STATUS_IN_RESET_AFTER_DEVICE_RELEASE,
	HL_DEVICE_STATUS_LAST = HL_DEVICE_STATUS_IN_RESET_AFTER_DEVICE_RELEASE
};

/*
 * INFO opcodes (struct hl_info_args.op). The numbers are upstream's.
 *
 * HL_INFO_HW_IP_INFO       - struct hl_info_hw_ip_info
 * HL_INFO_DRAM_USAGE       - struct hl_info_dram_usage (compute node only)
 * HL_INFO_HW_IDLE          - struct hl_info_hw_idle
 * HL_INFO_DEVICE_STATUS    - struct hl_info_device_status
 * HL_INFO_PAGE_FAULT_EVENT - struct hl_info_page_fault_event: the last device
 *                            MMU page fault of the caller's context
 *                            (compute node only)
 */
#define HL_INFO_HW_IP_INFO		0
#define HL_INFO_DRAM_USAGE		2
#define HL_INFO_HW_IDLE			3
#define HL_INFO_DEVICE_STATUS		4
#define HL_INFO_PAGE_FAULT_EVENT	33

#define HL_INFO_VERSION_MAX_LEN		128
#define HL_INFO_CARD_NAME_MAX_LEN	16

/**
 * struct hl_info_hw_ip_info - static properties of the device.
 * @sram_base_address: Returned device address of the on-chip SRAM (0: none).
 * @dram_base_address: Returned device physical address of the first byte of
 *	user-allocatable DRAM (HBM).
 * @dram_size: Returned number of bytes of user-allocatable DRAM.
 * @sram_size: Returned size of the on-chip SRAM (0: none).
 * @num_of_events: Returned number of asynchronous event types (0).
 * @device_id: Returned PCI device ID of the function.
 * @module_id: Returned index of the device among the devices of the driver.
 * @reserved: Returned as zero.
 * @cpld_version: Returned firmware CPLD version (0 on the emulated ASIC).
 * @psoc_pci_pll_nr: Returned PLL parameter (0 on the emulated ASIC).
 * @psoc_pci_pll_nf: Returned PLL parameter (0 on the emulated ASIC).
 * @psoc_pci_pll_od: Returned PLL parameter (0 on the emulated ASIC).
 * @psoc_pci_pll_div_factor: Returned PLL parameter (0 on the emulated ASIC).
 * @tpc_enabled_mask: Returned mask of enabled TPC engines (0: none).
 * @dram_enabled: Returned 1 when the device has DRAM.
 * @pad: Returned as zero.
 * @cpucp_version: Returned NUL-terminated firmware version string.
 * @card_name: Returned NUL-terminated ASIC name, e.g. "emu-gaudi".
 * @reserved2: Returned as zero.
 * @dram_page_size: Returned default DRAM page size in bytes: allocations are
 *	rounded up to it, and device-memory mappings are aligned to it.
 * @num_nic_ports: Returned number of NIC ports.
 * @num_queues: Returned number of engine queues (valid queue_index values
 *	are 0 .. num_queues - 1).
 * @host_va_start: Returned first device virtual address of the range used
 *	for host-memory mappings.
 * @host_va_end: Returned one past the last address of that range.
 * @dram_va_start: Returned first device virtual address of the range used
 *	for device-memory mappings.
 * @dram_va_end: Returned one past the last address of that range.
 * @host_page_size: Returned granularity of host-memory mappings in bytes.
 * @pad2: Returned as zero.
 */
struct hl_info_hw_ip_info {
	__u64 sram_base_address;
	__u64 dram_base_address;
	__u64 dram_size;
	__u32 sram_size;
	__u32 num_of_events;
	__u32 device_id;
	__u32 module_id;
	__u32 reserved[2];
	__u32 cpld_version;
	__u32 psoc_pci_pll_nr;
	__u32 psoc_pci_pll_nf;
	__u32 psoc_pci_pll_od;
	__u32 psoc_pci_pll_div_factor;
	__u8 tpc_enabled_mask;
	__u8 dram_enabled;
	__u8 pad[2];
	__u8 cpucp_version[HL_INFO_VERSION_MAX_LEN];
	__u8 card_name[HL_INFO_CARD_NAME_MAX_LEN];
	__u64 reserved2;
	__u64 dram_page_size;
	__u32 num_nic_ports;
	__u32 num_queues;
	__u64 host_va_start;
	__u64 host_va_end;
	__u64 dram_va_start;
	__u64 dram_va_end;
	__u32 host_page_size;
	__u32 pad2;
};

/**
 * struct hl_info_dram_usage - DRAM accounting.
 * @dram_free_mem: Returned number of free bytes of user-allocatable DRAM.
 * @ctx_dram_mem: Returned number of bytes allocated by the caller's context.
 */
struct hl_info_dram_usage {
	__u64 dram_free_mem;
	__u64 ctx_dram_mem;
};

#define HL_BUSY_ENGINES_MASK_EXT_SIZE	4

/**
 * struct hl_info_hw_idle - engine activity.
 * @is_idle: Returned 1 when no engine queue has work, else 0.
 * @busy_engines_mask: Returned bit per busy engine queue (queues 0..31).
 * @busy_engines_mask_ext: Returned bit per busy engine queue, all queues.
 */
struct hl_info_hw_idle {
	__u32 is_idle;
	__u32 busy_engines_mask;
	__u64 busy_engines_mask_ext[HL_BUSY_ENGINES_MASK_EXT_SIZE];
};

/**
 * struct hl_info_device_status - device state.
 * @status: Returned enum hl_device_status.
 * @pad: Returned as zero.
 */
struct hl_info_device_status {
	__u32 status;
	__u32 pad;
};

/**
 * struct hl_info_page_fault_event - the last device MMU fault of a context.
 * @timestamp: Returned ktime (ns, CLOCK_MONOTONIC) of the fault; 0 when the
 *	context had no fault.
 * @addr: Returned faulting device virtual address.
 * @engine_id: Returned queue index of the job that faulted.
 * @is_write: Returned 1 for a write access, 0 for a read.
 */
struct hl_info_page_fault_event {
	__s64 timestamp;
	__u64 addr;
	__u32 engine_id;
	__u32 is_write;
};

/**
 * struct hl_info_args - argument of HL_IOCTL_INFO.
 * @return_pointer: user pointer to the struct of @op.
 * @return_size: size of the buffer at @return_pointer; like snprintf's size,
 *	the driver writes at most this many bytes (a short buffer gets a
 *	truncated copy).
 * @op: one of HL_INFO_*.
 * @ctx_id: must be 0.
 * @pad: must be 0.
 */
struct hl_info_args {
	__u64 return_pointer;
	__u32 return_size;
	__u32 op;
	__u32 ctx_id;
	__u32 pad;
};

/*
 * MEMORY ioctl opcodes (struct hl_mem_in.op), upstream's numbers.
 */
#define HL_MEM_OP_ALLOC			0
#define HL_MEM_OP_FREE			1
#define HL_MEM_OP_MAP			2
#define HL_MEM_OP_UNMAP			3
#define HL_MEM_OP_EXPORT_DMABUF_FD	5

/* Flags of struct hl_mem_in.flags */
#define HL_MEM_CONTIGUOUS	0x1	/* ALLOC: one physically contiguous range */
#define HL_MEM_SHARED		0x2	/* ALLOC: accepted, no effect (upstream) */
#define HL_MEM_USERPTR		0x4	/* MAP: map host memory (map_host) */
#define HL_MEM_FORCE_HINT	0x8	/* MAP: fail with -EBUSY if hint is taken */

/**
 * struct hl_mem_in - input of HL_IOCTL_MEMORY.
 * @alloc: HL_MEM_OP_ALLOC - allocate device memory.
 * @alloc.mem_size: bytes to allocate, > 0; rounded up to the page size.
 * @alloc.page_size: 0 for the default DRAM page size, else that size.
 * @free: HL_MEM_OP_FREE - free device memory.
 * @free.handle: the handle returned by HL_MEM_OP_ALLOC.
 * @map_device: HL_MEM_OP_MAP without HL_MEM_USERPTR - map device memory.
 * @map_device.hint_addr: requested device virtual address, or 0.
 * @map_device.handle: the handle returned by HL_MEM_OP_ALLOC.
 * @map_host: HL_MEM_OP_MAP with HL_MEM_USERPTR - pin and map host memory.
 * @map_host.host_virt_addr: start of the host buffer.
 * @map_host.hint_addr: requested device virtual address, or 0.
 * @map_host.mem_size: size of the host buffer, > 0.
 * @unmap: HL_MEM_OP_UNMAP - remove a mapping.
 * @unmap.device_virt_addr: the address returned by HL_MEM_OP_MAP.
 * @export_dmabuf_fd: HL_MEM_OP_EXPORT_DMABUF_FD - export device memory.
 * @export_dmabuf_fd.addr: device virtual address of a mapped DRAM allocation.
 * @export_dmabuf_fd.mem_size: bytes to export.
 * @export_dmabuf_fd.offset: offset of the exported range from @addr.
 * @op: one of HL_MEM_OP_*.
 * @flags: HL_MEM_* flags; for HL_MEM_OP_EXPORT_DMABUF_FD the dma-buf file
 *	flags (O_RDWR, O_CLOEXEC).
 * @ctx_id: must be 0.
 * @pad: must be 0.
 */
struct hl_mem_in {
	union {
		struct {
			__u64 mem_size;
			__u64 page_size;
		} alloc;

		struct {
			__u64 handle;
		} free;

		struct {
			__u64 hint_addr;
			__u64 handle;
		} map_device;

		struct {
			__u64 host_virt_addr;
			__u64 hint_addr;
			__u64 mem_size;
		} map_host;

		struct {
			__u64 device_virt_addr;
		} unmap;

		struct {
			__u64 addr;
			__u64 mem_size;
			__u64 offset;
		} export_dmabuf_fd;
	};

	__u32 op;
	__u32 flags;
	__u32 ctx_id;
	__u32 pad;
};

/**
 * struct hl_mem_out - output of HL_IOCTL_MEMORY.
 * @device_virt_addr: Returned by HL_MEM_OP_MAP: the device virtual address.
 * @handle: Returned by HL_MEM_OP_ALLOC: the allocation's handle (never 0).
 * @fd: Returned by HL_MEM_OP_EXPORT_DMABUF_FD: the dma-buf file descriptor.
 * @pad: Returned as zero.
 */
struct hl_mem_out {
	union {
		__u64 device_virt_addr;
		__u64 handle;
		struct {
			__s32 fd;
			__u32 pad;
		};
	};
};

/**
 * union hl_mem_args - argument of HL_IOCTL_MEMORY.
 * @in: input.
 * @out: output.
 */
union hl_mem_args {
	struct hl_mem_in in;
	struct hl_mem_out out;
};

/* Maximum number of chunks in one command submission */
#define HL_MAX_JOBS_PER_CS	64

/**
 * struct hl_cs_chunk - one job of a command submission.
 * @cb_handle: device virtual address of the command buffer: packets the
 *	queue fetches through the device MMU (the buffer may be host memory
 *	mapped with HL_MEM_USERPTR, or device memory).
 * @queue_index: engine queue that executes the job.
 * @cb_size: size of the command buffer in bytes, a multiple of 8.
 * @cs_chunk_flags: must be 0.
 * @pad: must be 0.
 */
struct hl_cs_chunk {
	__u64 cb_handle;
	__u32 queue_index;
	__u32 cb_size;
	__u32 cs_chunk_flags;
	__u32 pad[11];
};

/**
 * struct hl_cs_in - input of HL_IOCTL_CS.
 * @chunks_restore: must be 0 (no context-switch restore jobs).
 * @chunks_execute: user pointer to an array of struct hl_cs_chunk.
 * @reserved: must be 0.
 * @num_chunks_restore: must be 0.
 * @num_chunks_execute: number of chunks, 1 .. HL_MAX_JOBS_PER_CS.
 * @timeout: job timeout in seconds, 0 for the driver default; a job that
 *	runs longer is aborted and its CS completes with an error.
 * @cs_flags: must be 0.
 * @ctx_id: must be 0.
 */
struct hl_cs_in {
	__u64 chunks_restore;
	__u64 chunks_execute;
	__u64 reserved;
	__u32 num_chunks_restore;
	__u32 num_chunks_execute;
	__u32 timeout;
	__u32 cs_flags;
	__u32 ctx_id;
	__u32 pad;
};

#define HL_CS_STATUS_SUCCESS		0

/**
 * struct hl_cs_out - output of HL_IOCTL_CS.
 * @seq: Returned sequence number of the submission, for HL_IOCTL_WAIT_CS.
 * @status: Returned HL_CS_STATUS_SUCCESS.
 * @pad: Returned as zero.
 */
struct hl_cs_out {
	__u64 seq;
	__u32 status;
	__u32 pad;
};

/**
 * union hl_cs_args - argument of HL_IOCTL_CS.
 * @in: input.
 * @out: output.
 */
union hl_cs_args {
	struct hl_cs_in in;
	struct hl_cs_out out;
};

/**
 * struct hl_wait_cs_in - input of HL_IOCTL_WAIT_CS.
 * @seq: sequence number returned by HL_IOCTL_CS.
 * @timeout_us: how long to wait, in microseconds; 0 only polls.
 * @ctx_id: must be 0.
 * @flags: must be 0.
 */
struct hl_wait_cs_in {
	__u64 seq;
	__u64 timeout_us;
	__u32 ctx_id;
	__u32 flags;
};

#define HL_WAIT_CS_STATUS_COMPLETED	0
#define HL_WAIT_CS_STATUS_BUSY		1
#define HL_WAIT_CS_STATUS_TIMEDOUT	2
#define HL_WAIT_CS_STATUS_ABORTED	3

/**
 * struct hl_wait_cs_out - output of HL_IOCTL_WAIT_CS.
 * @status: Returned HL_WAIT_CS_STATUS_*: COMPLETED, BUSY (still running when
 *	@timeout_us ran out), or ABORTED (the CS failed: the ioctl also
 *	returns -EIO; HL_INFO_PAGE_FAULT_EVENT tells of an MMU fault).
 * @flags: Returned as zero.
 * @timestamp_nsec: Returned completion time (CLOCK_MONOTONIC), when
 *	@status is COMPLETED.
 */
struct hl_wait_cs_out {
	__u32 status;
	__u32 flags;
	__s64 timestamp_nsec;
};

/**
 * union hl_wait_cs_args - argument of HL_IOCTL_WAIT_CS.
 * @in: input.
 * @out: output.
 */
union hl_wait_cs_args {
	struct hl_wait_cs_in in;
	struct hl_wait_cs_out out;
};

/*
 * Packets of the emulated ASIC (card_name "emu-gaudi").
 *
 * A command buffer is a sequence of packets, each a multiple of 8 bytes,
 * little-endian, starting with a __u32 header whose bits [31:24] are the
 * opcode. The queue fetches and executes them in order; every address in a
 * packet is a device virtual address translated by the device MMU. A packet
 * that faults or is malformed aborts the job: its command submission
 * completes with an error (HL_WAIT_CS_STATUS_ABORTED).
 */
#define HL_PKT_OPCODE_SHIFT		24
#define HL_PKT_OPCODE_MASK		0xff000000u

#define HL_PKT_NOP			0x00
#define HL_PKT_LIN_DMA			0x01
#define HL_PKT_MEMSET			0x02
#define HL_PKT_MSG_LONG			0x03

/**
 * struct hl_pkt_nop - do nothing.
 * @ctl: opcode HL_PKT_NOP.
 * @pad: must be 0.
 */
struct hl_pkt_nop {
	__u32 ctl;
	__u32 pad;
};

/**
 * struct hl_pkt_lin_dma - copy @tsize bytes from @src_addr to @dst_addr.
 * @ctl: opcode HL_PKT_LIN_DMA.
 * @pad: must be 0.
 * @src_addr: source device virtual address (DRAM or host mapping).
 * @dst_addr: destination device virtual address.
 * @tsize: bytes to copy; any size and alignment. Overlapping ranges are
 *	copied as if through a temporary buffer only within 4 KiB.
 */
struct hl_pkt_lin_dma {
	__u32 ctl;
	__u32 pad;
	__u64 src_addr;
	__u64 dst_addr;
	__u64 tsize;
};

/**
 * struct hl_pkt_memset - fill @tsize bytes at @dst_addr with a pattern.
 * @ctl: opcode HL_PKT_MEMSET.
 * @pad: must be 0.
 * @dst_addr: destination device virtual address.
 * @value: the 64-bit pattern; byte i of the range gets byte
 *	((@dst_addr + i) % 8) of @value (little-endian).
 * @tsize: bytes to fill.
 */
struct hl_pkt_memset {
	__u32 ctl;
	__u32 pad;
	__u64 dst_addr;
	__u64 value;
	__u64 tsize;
};

/**
 * struct hl_pkt_msg_long - write a 32-bit value (a fence or sync write).
 * @ctl: opcode HL_PKT_MSG_LONG.
 * @value: the value to write.
 * @addr: device virtual address, 4-byte aligned.
 */
struct hl_pkt_msg_long {
	__u32 ctl;
	__u32 value;
	__u64 addr;
};

/*
 * HL_IOCTL_INFO - information about the device.
 *
 * Accepted on the compute node (/dev/hlN) and on the control node
 * (/dev/hl_controlDN). Errors: -EINVAL unknown op, non-zero ctx_id/pad,
 * NULL return_pointer or zero return_size, or an op that needs the compute
 * node on the control node; -EFAULT bad pointer; -ENODEV the device is gone.
 */
#define HL_IOCTL_INFO		_IOWR('H', 0x01, struct hl_info_args)

/*
 * HL_IOCTL_MEMORY - allocate, free, map, unmap and export memory.
 * Compute node only. The errors of each op are listed in the driver's
 * memory.c and in README.md.
 */
#define HL_IOCTL_MEMORY		_IOWR('H', 0x05, union hl_mem_args)

/*
 * HL_IOCTL_CS - submit jobs to engine queues; returns a sequence number.
 * Compute node only.
 */
#define HL_IOCTL_CS		_IOWR('H', 0x03, union hl_cs_args)

/*
 * HL_IOCTL_WAIT_CS - wait for a command submission. Compute node only.
 */
#define HL_IOCTL_WAIT_CS	_IOWR('H', 0x04, union hl_wait_cs_args)

#define HL_COMMAND_START	0x01
#define HL_COMMAND_END		0x08

#endif /* _UAPI_MISC_HABANALABS_H_ */

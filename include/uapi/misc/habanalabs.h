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
 *
 * Every ioctl is all or nothing: one that fails has changed nothing. An
 * argument the driver cannot write back (a read-only page) fails with
 * -EFAULT before anything is done; should the copy back fail after all,
 * what the call created (an allocation, a mapping, a connection, a CQ, a
 * file descriptor) is destroyed before -EFAULT returns.
 *
 * Order of this file: the ioctls, then one section per ioctl (INFO, MEMORY,
 * CS, WAIT_CS, NIC) with its opcodes, constants and structs; the kernel-doc
 * of each ioctl's argument (struct hl_info_args, union hl_mem_args, union
 * hl_cs_args, union hl_wait_cs_args, struct hl_nic_args) lists its errors.
 * The packets that command buffers carry (HL_PKT_*) are the device's format,
 * not the driver's: they are in habanalabs_pkt.h, included below.
 */
#ifndef _UAPI_MISC_HABANALABS_H_
#define _UAPI_MISC_HABANALABS_H_

#include <linux/types.h>
#include <linux/ioctl.h>

#include "habanalabs_pkt.h"

/*
 * The ioctls of the compute node (/dev/hlN) and of the control node
 * (/dev/hl_controlDN, HL_IOCTL_INFO only).
 *
 * Errors of every ioctl, besides those its argument's kernel-doc lists:
 *   -ENOTTY  an ioctl number this node does not serve (any but
 *            HL_IOCTL_INFO on the control node);
 *   -E2BIG   an argument larger than the driver's whose extra bytes are
 *            not zero;
 *   -EFAULT  an argument that cannot be read, or written back;
 *   -ENODEV  the device is gone, or was reset under this file (which can
 *            then only be closed).
 */
#define HL_IOCTL_INFO		_IOWR('H', 0x01, struct hl_info_args)
#define HL_IOCTL_CB		_IOWR('H', 0x02, union hl_cb_args)
#define HL_IOCTL_CS		_IOWR('H', 0x03, union hl_cs_args)
#define HL_IOCTL_WAIT_CS	_IOWR('H', 0x04, union hl_wait_cs_args)
#define HL_IOCTL_MEMORY		_IOWR('H', 0x05, union hl_mem_args)
#define HL_IOCTL_DEBUG		_IOWR('H', 0x06, struct hl_debug_args)
#define HL_IOCTL_NIC		_IOWR('H', 0x07, struct hl_nic_args)

#define HL_COMMAND_START	0x01
#define HL_COMMAND_END		0x08

/**
 * DOC: HL_IOCTL_INFO
 *
 * Information about the device: HL_INFO_* ops, each filling its struct at
 * hl_info_args.return_pointer. Served on the compute node and on the
 * control node.
 */

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
 * Upstream's queue numbering, engine ids and PLL indexes of the real ASICs
 * (GOYA, GAUDI, GAUDI2; no GAUDI2 engine ids), for programs built for
 * upstream (hl-thunk-open's tests name queues and engines by them). This
 * device's own queues are hl_info_hw_ip_info.num_queues, indexed from 0;
 * the PLL indexes go with HL_INFO_PLL_FREQUENCY, -EOPNOTSUPP here.
 */

/* GOYA's queues: DMA 0-4 (external), the CPU's, MME, TPC 0-7 */
enum goya_queue_id {
	GOYA_QUEUE_ID_DMA_0 = 0,
	GOYA_QUEUE_ID_DMA_1 = 1,
	GOYA_QUEUE_ID_DMA_2 = 2,
	GOYA_QUEUE_ID_DMA_3 = 3,
	GOYA_QUEUE_ID_DMA_4 = 4,
	GOYA_QUEUE_ID_CPU_PQ = 5,
	GOYA_QUEUE_ID_MME = 6,
	GOYA_QUEUE_ID_TPC0 = 7,
	GOYA_QUEUE_ID_TPC1 = 8,
	GOYA_QUEUE_ID_TPC2 = 9,
	GOYA_QUEUE_ID_TPC3 = 10,
	GOYA_QUEUE_ID_TPC4 = 11,
	GOYA_QUEUE_ID_TPC5 = 12,
	GOYA_QUEUE_ID_TPC6 = 13,
	GOYA_QUEUE_ID_TPC7 = 14,
	GOYA_QUEUE_ID_SIZE = 15,
};

/*
 * GAUDI's queues, four streams each: DMA 0-1 (external, fed with kernel
 * CBs), the CPU's, DMA 2-7, MME 0-1, TPC 0-7, NIC 0-9 (internal)
 */
enum gaudi_queue_id {
	GAUDI_QUEUE_ID_DMA_0_0 = 0,
	GAUDI_QUEUE_ID_DMA_0_1 = 1,
	GAUDI_QUEUE_ID_DMA_0_2 = 2,
	GAUDI_QUEUE_ID_DMA_0_3 = 3,
	GAUDI_QUEUE_ID_DMA_1_0 = 4,
	GAUDI_QUEUE_ID_DMA_1_1 = 5,
	GAUDI_QUEUE_ID_DMA_1_2 = 6,
	GAUDI_QUEUE_ID_DMA_1_3 = 7,
	GAUDI_QUEUE_ID_CPU_PQ = 8,
	GAUDI_QUEUE_ID_DMA_2_0 = 9,
	GAUDI_QUEUE_ID_DMA_2_1 = 10,
	GAUDI_QUEUE_ID_DMA_2_2 = 11,
	GAUDI_QUEUE_ID_DMA_2_3 = 12,
	GAUDI_QUEUE_ID_DMA_3_0 = 13,
	GAUDI_QUEUE_ID_DMA_3_1 = 14,
	GAUDI_QUEUE_ID_DMA_3_2 = 15,
	GAUDI_QUEUE_ID_DMA_3_3 = 16,
	GAUDI_QUEUE_ID_DMA_4_0 = 17,
	GAUDI_QUEUE_ID_DMA_4_1 = 18,
	GAUDI_QUEUE_ID_DMA_4_2 = 19,
	GAUDI_QUEUE_ID_DMA_4_3 = 20,
	GAUDI_QUEUE_ID_DMA_5_0 = 21,
	GAUDI_QUEUE_ID_DMA_5_1 = 22,
	GAUDI_QUEUE_ID_DMA_5_2 = 23,
	GAUDI_QUEUE_ID_DMA_5_3 = 24,
	GAUDI_QUEUE_ID_DMA_6_0 = 25,
	GAUDI_QUEUE_ID_DMA_6_1 = 26,
	GAUDI_QUEUE_ID_DMA_6_2 = 27,
	GAUDI_QUEUE_ID_DMA_6_3 = 28,
	GAUDI_QUEUE_ID_DMA_7_0 = 29,
	GAUDI_QUEUE_ID_DMA_7_1 = 30,
	GAUDI_QUEUE_ID_DMA_7_2 = 31,
	GAUDI_QUEUE_ID_DMA_7_3 = 32,
	GAUDI_QUEUE_ID_MME_0_0 = 33,
	GAUDI_QUEUE_ID_MME_0_1 = 34,
	GAUDI_QUEUE_ID_MME_0_2 = 35,
	GAUDI_QUEUE_ID_MME_0_3 = 36,
	GAUDI_QUEUE_ID_MME_1_0 = 37,
	GAUDI_QUEUE_ID_MME_1_1 = 38,
	GAUDI_QUEUE_ID_MME_1_2 = 39,
	GAUDI_QUEUE_ID_MME_1_3 = 40,
	GAUDI_QUEUE_ID_TPC_0_0 = 41,
	GAUDI_QUEUE_ID_TPC_0_1 = 42,
	GAUDI_QUEUE_ID_TPC_0_2 = 43,
	GAUDI_QUEUE_ID_TPC_0_3 = 44,
	GAUDI_QUEUE_ID_TPC_1_0 = 45,
	GAUDI_QUEUE_ID_TPC_1_1 = 46,
	GAUDI_QUEUE_ID_TPC_1_2 = 47,
	GAUDI_QUEUE_ID_TPC_1_3 = 48,
	GAUDI_QUEUE_ID_TPC_2_0 = 49,
	GAUDI_QUEUE_ID_TPC_2_1 = 50,
	GAUDI_QUEUE_ID_TPC_2_2 = 51,
	GAUDI_QUEUE_ID_TPC_2_3 = 52,
	GAUDI_QUEUE_ID_TPC_3_0 = 53,
	GAUDI_QUEUE_ID_TPC_3_1 = 54,
	GAUDI_QUEUE_ID_TPC_3_2 = 55,
	GAUDI_QUEUE_ID_TPC_3_3 = 56,
	GAUDI_QUEUE_ID_TPC_4_0 = 57,
	GAUDI_QUEUE_ID_TPC_4_1 = 58,
	GAUDI_QUEUE_ID_TPC_4_2 = 59,
	GAUDI_QUEUE_ID_TPC_4_3 = 60,
	GAUDI_QUEUE_ID_TPC_5_0 = 61,
	GAUDI_QUEUE_ID_TPC_5_1 = 62,
	GAUDI_QUEUE_ID_TPC_5_2 = 63,
	GAUDI_QUEUE_ID_TPC_5_3 = 64,
	GAUDI_QUEUE_ID_TPC_6_0 = 65,
	GAUDI_QUEUE_ID_TPC_6_1 = 66,
	GAUDI_QUEUE_ID_TPC_6_2 = 67,
	GAUDI_QUEUE_ID_TPC_6_3 = 68,
	GAUDI_QUEUE_ID_TPC_7_0 = 69,
	GAUDI_QUEUE_ID_TPC_7_1 = 70,
	GAUDI_QUEUE_ID_TPC_7_2 = 71,
	GAUDI_QUEUE_ID_TPC_7_3 = 72,
	GAUDI_QUEUE_ID_NIC_0_0 = 73,
	GAUDI_QUEUE_ID_NIC_0_1 = 74,
	GAUDI_QUEUE_ID_NIC_0_2 = 75,
	GAUDI_QUEUE_ID_NIC_0_3 = 76,
	GAUDI_QUEUE_ID_NIC_1_0 = 77,
	GAUDI_QUEUE_ID_NIC_1_1 = 78,
	GAUDI_QUEUE_ID_NIC_1_2 = 79,
	GAUDI_QUEUE_ID_NIC_1_3 = 80,
	GAUDI_QUEUE_ID_NIC_2_0 = 81,
	GAUDI_QUEUE_ID_NIC_2_1 = 82,
	GAUDI_QUEUE_ID_NIC_2_2 = 83,
	GAUDI_QUEUE_ID_NIC_2_3 = 84,
	GAUDI_QUEUE_ID_NIC_3_0 = 85,
	GAUDI_QUEUE_ID_NIC_3_1 = 86,
	GAUDI_QUEUE_ID_NIC_3_2 = 87,
	GAUDI_QUEUE_ID_NIC_3_3 = 88,
	GAUDI_QUEUE_ID_NIC_4_0 = 89,
	GAUDI_QUEUE_ID_NIC_4_1 = 90,
	GAUDI_QUEUE_ID_NIC_4_2 = 91,
	GAUDI_QUEUE_ID_NIC_4_3 = 92,
	GAUDI_QUEUE_ID_NIC_5_0 = 93,
	GAUDI_QUEUE_ID_NIC_5_1 = 94,
	GAUDI_QUEUE_ID_NIC_5_2 = 95,
	GAUDI_QUEUE_ID_NIC_5_3 = 96,
	GAUDI_QUEUE_ID_NIC_6_0 = 97,
	GAUDI_QUEUE_ID_NIC_6_1 = 98,
	GAUDI_QUEUE_ID_NIC_6_2 = 99,
	GAUDI_QUEUE_ID_NIC_6_3 = 100,
	GAUDI_QUEUE_ID_NIC_7_0 = 101,
	GAUDI_QUEUE_ID_NIC_7_1 = 102,
	GAUDI_QUEUE_ID_NIC_7_2 = 103,
	GAUDI_QUEUE_ID_NIC_7_3 = 104,
	GAUDI_QUEUE_ID_NIC_8_0 = 105,
	GAUDI_QUEUE_ID_NIC_8_1 = 106,
	GAUDI_QUEUE_ID_NIC_8_2 = 107,
	GAUDI_QUEUE_ID_NIC_8_3 = 108,
	GAUDI_QUEUE_ID_NIC_9_0 = 109,
	GAUDI_QUEUE_ID_NIC_9_1 = 110,
	GAUDI_QUEUE_ID_NIC_9_2 = 111,
	GAUDI_QUEUE_ID_NIC_9_3 = 112,
	GAUDI_QUEUE_ID_SIZE = 113,
};

/*
 * GAUDI2's queues, four streams each: PDMA 0-1; per dcore EDMA 0-1, MME and
 * TPC 0-5 (dcore 0 also TPC 6); NIC 0-23; rotators 0-1; the CPU's
 */
enum gaudi2_queue_id {
	GAUDI2_QUEUE_ID_PDMA_0_0 = 0,
	GAUDI2_QUEUE_ID_PDMA_0_1 = 1,
	GAUDI2_QUEUE_ID_PDMA_0_2 = 2,
	GAUDI2_QUEUE_ID_PDMA_0_3 = 3,
	GAUDI2_QUEUE_ID_PDMA_1_0 = 4,
	GAUDI2_QUEUE_ID_PDMA_1_1 = 5,
	GAUDI2_QUEUE_ID_PDMA_1_2 = 6,
	GAUDI2_QUEUE_ID_PDMA_1_3 = 7,
	GAUDI2_QUEUE_ID_DCORE0_EDMA_0_0 = 8,
	GAUDI2_QUEUE_ID_DCORE0_EDMA_0_1 = 9,
	GAUDI2_QUEUE_ID_DCORE0_EDMA_0_2 = 10,
	GAUDI2_QUEUE_ID_DCORE0_EDMA_0_3 = 11,
	GAUDI2_QUEUE_ID_DCORE0_EDMA_1_0 = 12,
	GAUDI2_QUEUE_ID_DCORE0_EDMA_1_1 = 13,
	GAUDI2_QUEUE_ID_DCORE0_EDMA_1_2 = 14,
	GAUDI2_QUEUE_ID_DCORE0_EDMA_1_3 = 15,
	GAUDI2_QUEUE_ID_DCORE0_MME_0_0 = 16,
	GAUDI2_QUEUE_ID_DCORE0_MME_0_1 = 17,
	GAUDI2_QUEUE_ID_DCORE0_MME_0_2 = 18,
	GAUDI2_QUEUE_ID_DCORE0_MME_0_3 = 19,
	GAUDI2_QUEUE_ID_DCORE0_TPC_0_0 = 20,
	GAUDI2_QUEUE_ID_DCORE0_TPC_0_1 = 21,
	GAUDI2_QUEUE_ID_DCORE0_TPC_0_2 = 22,
	GAUDI2_QUEUE_ID_DCORE0_TPC_0_3 = 23,
	GAUDI2_QUEUE_ID_DCORE0_TPC_1_0 = 24,
	GAUDI2_QUEUE_ID_DCORE0_TPC_1_1 = 25,
	GAUDI2_QUEUE_ID_DCORE0_TPC_1_2 = 26,
	GAUDI2_QUEUE_ID_DCORE0_TPC_1_3 = 27,
	GAUDI2_QUEUE_ID_DCORE0_TPC_2_0 = 28,
	GAUDI2_QUEUE_ID_DCORE0_TPC_2_1 = 29,
	GAUDI2_QUEUE_ID_DCORE0_TPC_2_2 = 30,
	GAUDI2_QUEUE_ID_DCORE0_TPC_2_3 = 31,
	GAUDI2_QUEUE_ID_DCORE0_TPC_3_0 = 32,
	GAUDI2_QUEUE_ID_DCORE0_TPC_3_1 = 33,
	GAUDI2_QUEUE_ID_DCORE0_TPC_3_2 = 34,
	GAUDI2_QUEUE_ID_DCORE0_TPC_3_3 = 35,
	GAUDI2_QUEUE_ID_DCORE0_TPC_4_0 = 36,
	GAUDI2_QUEUE_ID_DCORE0_TPC_4_1 = 37,
	GAUDI2_QUEUE_ID_DCORE0_TPC_4_2 = 38,
	GAUDI2_QUEUE_ID_DCORE0_TPC_4_3 = 39,
	GAUDI2_QUEUE_ID_DCORE0_TPC_5_0 = 40,
	GAUDI2_QUEUE_ID_DCORE0_TPC_5_1 = 41,
	GAUDI2_QUEUE_ID_DCORE0_TPC_5_2 = 42,
	GAUDI2_QUEUE_ID_DCORE0_TPC_5_3 = 43,
	GAUDI2_QUEUE_ID_DCORE0_TPC_6_0 = 44,
	GAUDI2_QUEUE_ID_DCORE0_TPC_6_1 = 45,
	GAUDI2_QUEUE_ID_DCORE0_TPC_6_2 = 46,
	GAUDI2_QUEUE_ID_DCORE0_TPC_6_3 = 47,
	GAUDI2_QUEUE_ID_DCORE1_EDMA_0_0 = 48,
	GAUDI2_QUEUE_ID_DCORE1_EDMA_0_1 = 49,
	GAUDI2_QUEUE_ID_DCORE1_EDMA_0_2 = 50,
	GAUDI2_QUEUE_ID_DCORE1_EDMA_0_3 = 51,
	GAUDI2_QUEUE_ID_DCORE1_EDMA_1_0 = 52,
	GAUDI2_QUEUE_ID_DCORE1_EDMA_1_1 = 53,
	GAUDI2_QUEUE_ID_DCORE1_EDMA_1_2 = 54,
	GAUDI2_QUEUE_ID_DCORE1_EDMA_1_3 = 55,
	GAUDI2_QUEUE_ID_DCORE1_MME_0_0 = 56,
	GAUDI2_QUEUE_ID_DCORE1_MME_0_1 = 57,
	GAUDI2_QUEUE_ID_DCORE1_MME_0_2 = 58,
	GAUDI2_QUEUE_ID_DCORE1_MME_0_3 = 59,
	GAUDI2_QUEUE_ID_DCORE1_TPC_0_0 = 60,
	GAUDI2_QUEUE_ID_DCORE1_TPC_0_1 = 61,
	GAUDI2_QUEUE_ID_DCORE1_TPC_0_2 = 62,
	GAUDI2_QUEUE_ID_DCORE1_TPC_0_3 = 63,
	GAUDI2_QUEUE_ID_DCORE1_TPC_1_0 = 64,
	GAUDI2_QUEUE_ID_DCORE1_TPC_1_1 = 65,
	GAUDI2_QUEUE_ID_DCORE1_TPC_1_2 = 66,
	GAUDI2_QUEUE_ID_DCORE1_TPC_1_3 = 67,
	GAUDI2_QUEUE_ID_DCORE1_TPC_2_0 = 68,
	GAUDI2_QUEUE_ID_DCORE1_TPC_2_1 = 69,
	GAUDI2_QUEUE_ID_DCORE1_TPC_2_2 = 70,
	GAUDI2_QUEUE_ID_DCORE1_TPC_2_3 = 71,
	GAUDI2_QUEUE_ID_DCORE1_TPC_3_0 = 72,
	GAUDI2_QUEUE_ID_DCORE1_TPC_3_1 = 73,
	GAUDI2_QUEUE_ID_DCORE1_TPC_3_2 = 74,
	GAUDI2_QUEUE_ID_DCORE1_TPC_3_3 = 75,
	GAUDI2_QUEUE_ID_DCORE1_TPC_4_0 = 76,
	GAUDI2_QUEUE_ID_DCORE1_TPC_4_1 = 77,
	GAUDI2_QUEUE_ID_DCORE1_TPC_4_2 = 78,
	GAUDI2_QUEUE_ID_DCORE1_TPC_4_3 = 79,
	GAUDI2_QUEUE_ID_DCORE1_TPC_5_0 = 80,
	GAUDI2_QUEUE_ID_DCORE1_TPC_5_1 = 81,
	GAUDI2_QUEUE_ID_DCORE1_TPC_5_2 = 82,
	GAUDI2_QUEUE_ID_DCORE1_TPC_5_3 = 83,
	GAUDI2_QUEUE_ID_DCORE2_EDMA_0_0 = 84,
	GAUDI2_QUEUE_ID_DCORE2_EDMA_0_1 = 85,
	GAUDI2_QUEUE_ID_DCORE2_EDMA_0_2 = 86,
	GAUDI2_QUEUE_ID_DCORE2_EDMA_0_3 = 87,
	GAUDI2_QUEUE_ID_DCORE2_EDMA_1_0 = 88,
	GAUDI2_QUEUE_ID_DCORE2_EDMA_1_1 = 89,
	GAUDI2_QUEUE_ID_DCORE2_EDMA_1_2 = 90,
	GAUDI2_QUEUE_ID_DCORE2_EDMA_1_3 = 91,
	GAUDI2_QUEUE_ID_DCORE2_MME_0_0 = 92,
	GAUDI2_QUEUE_ID_DCORE2_MME_0_1 = 93,
	GAUDI2_QUEUE_ID_DCORE2_MME_0_2 = 94,
	GAUDI2_QUEUE_ID_DCORE2_MME_0_3 = 95,
	GAUDI2_QUEUE_ID_DCORE2_TPC_0_0 = 96,
	GAUDI2_QUEUE_ID_DCORE2_TPC_0_1 = 97,
	GAUDI2_QUEUE_ID_DCORE2_TPC_0_2 = 98,
	GAUDI2_QUEUE_ID_DCORE2_TPC_0_3 = 99,
	GAUDI2_QUEUE_ID_DCORE2_TPC_1_0 = 100,
	GAUDI2_QUEUE_ID_DCORE2_TPC_1_1 = 101,
	GAUDI2_QUEUE_ID_DCORE2_TPC_1_2 = 102,
	GAUDI2_QUEUE_ID_DCORE2_TPC_1_3 = 103,
	GAUDI2_QUEUE_ID_DCORE2_TPC_2_0 = 104,
	GAUDI2_QUEUE_ID_DCORE2_TPC_2_1 = 105,
	GAUDI2_QUEUE_ID_DCORE2_TPC_2_2 = 106,
	GAUDI2_QUEUE_ID_DCORE2_TPC_2_3 = 107,
	GAUDI2_QUEUE_ID_DCORE2_TPC_3_0 = 108,
	GAUDI2_QUEUE_ID_DCORE2_TPC_3_1 = 109,
	GAUDI2_QUEUE_ID_DCORE2_TPC_3_2 = 110,
	GAUDI2_QUEUE_ID_DCORE2_TPC_3_3 = 111,
	GAUDI2_QUEUE_ID_DCORE2_TPC_4_0 = 112,
	GAUDI2_QUEUE_ID_DCORE2_TPC_4_1 = 113,
	GAUDI2_QUEUE_ID_DCORE2_TPC_4_2 = 114,
	GAUDI2_QUEUE_ID_DCORE2_TPC_4_3 = 115,
	GAUDI2_QUEUE_ID_DCORE2_TPC_5_0 = 116,
	GAUDI2_QUEUE_ID_DCORE2_TPC_5_1 = 117,
	GAUDI2_QUEUE_ID_DCORE2_TPC_5_2 = 118,
	GAUDI2_QUEUE_ID_DCORE2_TPC_5_3 = 119,
	GAUDI2_QUEUE_ID_DCORE3_EDMA_0_0 = 120,
	GAUDI2_QUEUE_ID_DCORE3_EDMA_0_1 = 121,
	GAUDI2_QUEUE_ID_DCORE3_EDMA_0_2 = 122,
	GAUDI2_QUEUE_ID_DCORE3_EDMA_0_3 = 123,
	GAUDI2_QUEUE_ID_DCORE3_EDMA_1_0 = 124,
	GAUDI2_QUEUE_ID_DCORE3_EDMA_1_1 = 125,
	GAUDI2_QUEUE_ID_DCORE3_EDMA_1_2 = 126,
	GAUDI2_QUEUE_ID_DCORE3_EDMA_1_3 = 127,
	GAUDI2_QUEUE_ID_DCORE3_MME_0_0 = 128,
	GAUDI2_QUEUE_ID_DCORE3_MME_0_1 = 129,
	GAUDI2_QUEUE_ID_DCORE3_MME_0_2 = 130,
	GAUDI2_QUEUE_ID_DCORE3_MME_0_3 = 131,
	GAUDI2_QUEUE_ID_DCORE3_TPC_0_0 = 132,
	GAUDI2_QUEUE_ID_DCORE3_TPC_0_1 = 133,
	GAUDI2_QUEUE_ID_DCORE3_TPC_0_2 = 134,
	GAUDI2_QUEUE_ID_DCORE3_TPC_0_3 = 135,
	GAUDI2_QUEUE_ID_DCORE3_TPC_1_0 = 136,
	GAUDI2_QUEUE_ID_DCORE3_TPC_1_1 = 137,
	GAUDI2_QUEUE_ID_DCORE3_TPC_1_2 = 138,
	GAUDI2_QUEUE_ID_DCORE3_TPC_1_3 = 139,
	GAUDI2_QUEUE_ID_DCORE3_TPC_2_0 = 140,
	GAUDI2_QUEUE_ID_DCORE3_TPC_2_1 = 141,
	GAUDI2_QUEUE_ID_DCORE3_TPC_2_2 = 142,
	GAUDI2_QUEUE_ID_DCORE3_TPC_2_3 = 143,
	GAUDI2_QUEUE_ID_DCORE3_TPC_3_0 = 144,
	GAUDI2_QUEUE_ID_DCORE3_TPC_3_1 = 145,
	GAUDI2_QUEUE_ID_DCORE3_TPC_3_2 = 146,
	GAUDI2_QUEUE_ID_DCORE3_TPC_3_3 = 147,
	GAUDI2_QUEUE_ID_DCORE3_TPC_4_0 = 148,
	GAUDI2_QUEUE_ID_DCORE3_TPC_4_1 = 149,
	GAUDI2_QUEUE_ID_DCORE3_TPC_4_2 = 150,
	GAUDI2_QUEUE_ID_DCORE3_TPC_4_3 = 151,
	GAUDI2_QUEUE_ID_DCORE3_TPC_5_0 = 152,
	GAUDI2_QUEUE_ID_DCORE3_TPC_5_1 = 153,
	GAUDI2_QUEUE_ID_DCORE3_TPC_5_2 = 154,
	GAUDI2_QUEUE_ID_DCORE3_TPC_5_3 = 155,
	GAUDI2_QUEUE_ID_NIC_0_0 = 156,
	GAUDI2_QUEUE_ID_NIC_0_1 = 157,
	GAUDI2_QUEUE_ID_NIC_0_2 = 158,
	GAUDI2_QUEUE_ID_NIC_0_3 = 159,
	GAUDI2_QUEUE_ID_NIC_1_0 = 160,
	GAUDI2_QUEUE_ID_NIC_1_1 = 161,
	GAUDI2_QUEUE_ID_NIC_1_2 = 162,
	GAUDI2_QUEUE_ID_NIC_1_3 = 163,
	GAUDI2_QUEUE_ID_NIC_2_0 = 164,
	GAUDI2_QUEUE_ID_NIC_2_1 = 165,
	GAUDI2_QUEUE_ID_NIC_2_2 = 166,
	GAUDI2_QUEUE_ID_NIC_2_3 = 167,
	GAUDI2_QUEUE_ID_NIC_3_0 = 168,
	GAUDI2_QUEUE_ID_NIC_3_1 = 169,
	GAUDI2_QUEUE_ID_NIC_3_2 = 170,
	GAUDI2_QUEUE_ID_NIC_3_3 = 171,
	GAUDI2_QUEUE_ID_NIC_4_0 = 172,
	GAUDI2_QUEUE_ID_NIC_4_1 = 173,
	GAUDI2_QUEUE_ID_NIC_4_2 = 174,
	GAUDI2_QUEUE_ID_NIC_4_3 = 175,
	GAUDI2_QUEUE_ID_NIC_5_0 = 176,
	GAUDI2_QUEUE_ID_NIC_5_1 = 177,
	GAUDI2_QUEUE_ID_NIC_5_2 = 178,
	GAUDI2_QUEUE_ID_NIC_5_3 = 179,
	GAUDI2_QUEUE_ID_NIC_6_0 = 180,
	GAUDI2_QUEUE_ID_NIC_6_1 = 181,
	GAUDI2_QUEUE_ID_NIC_6_2 = 182,
	GAUDI2_QUEUE_ID_NIC_6_3 = 183,
	GAUDI2_QUEUE_ID_NIC_7_0 = 184,
	GAUDI2_QUEUE_ID_NIC_7_1 = 185,
	GAUDI2_QUEUE_ID_NIC_7_2 = 186,
	GAUDI2_QUEUE_ID_NIC_7_3 = 187,
	GAUDI2_QUEUE_ID_NIC_8_0 = 188,
	GAUDI2_QUEUE_ID_NIC_8_1 = 189,
	GAUDI2_QUEUE_ID_NIC_8_2 = 190,
	GAUDI2_QUEUE_ID_NIC_8_3 = 191,
	GAUDI2_QUEUE_ID_NIC_9_0 = 192,
	GAUDI2_QUEUE_ID_NIC_9_1 = 193,
	GAUDI2_QUEUE_ID_NIC_9_2 = 194,
	GAUDI2_QUEUE_ID_NIC_9_3 = 195,
	GAUDI2_QUEUE_ID_NIC_10_0 = 196,
	GAUDI2_QUEUE_ID_NIC_10_1 = 197,
	GAUDI2_QUEUE_ID_NIC_10_2 = 198,
	GAUDI2_QUEUE_ID_NIC_10_3 = 199,
	GAUDI2_QUEUE_ID_NIC_11_0 = 200,
	GAUDI2_QUEUE_ID_NIC_11_1 = 201,
	GAUDI2_QUEUE_ID_NIC_11_2 = 202,
	GAUDI2_QUEUE_ID_NIC_11_3 = 203,
	GAUDI2_QUEUE_ID_NIC_12_0 = 204,
	GAUDI2_QUEUE_ID_NIC_12_1 = 205,
	GAUDI2_QUEUE_ID_NIC_12_2 = 206,
	GAUDI2_QUEUE_ID_NIC_12_3 = 207,
	GAUDI2_QUEUE_ID_NIC_13_0 = 208,
	GAUDI2_QUEUE_ID_NIC_13_1 = 209,
	GAUDI2_QUEUE_ID_NIC_13_2 = 210,
	GAUDI2_QUEUE_ID_NIC_13_3 = 211,
	GAUDI2_QUEUE_ID_NIC_14_0 = 212,
	GAUDI2_QUEUE_ID_NIC_14_1 = 213,
	GAUDI2_QUEUE_ID_NIC_14_2 = 214,
	GAUDI2_QUEUE_ID_NIC_14_3 = 215,
	GAUDI2_QUEUE_ID_NIC_15_0 = 216,
	GAUDI2_QUEUE_ID_NIC_15_1 = 217,
	GAUDI2_QUEUE_ID_NIC_15_2 = 218,
	GAUDI2_QUEUE_ID_NIC_15_3 = 219,
	GAUDI2_QUEUE_ID_NIC_16_0 = 220,
	GAUDI2_QUEUE_ID_NIC_16_1 = 221,
	GAUDI2_QUEUE_ID_NIC_16_2 = 222,
	GAUDI2_QUEUE_ID_NIC_16_3 = 223,
	GAUDI2_QUEUE_ID_NIC_17_0 = 224,
	GAUDI2_QUEUE_ID_NIC_17_1 = 225,
	GAUDI2_QUEUE_ID_NIC_17_2 = 226,
	GAUDI2_QUEUE_ID_NIC_17_3 = 227,
	GAUDI2_QUEUE_ID_NIC_18_0 = 228,
	GAUDI2_QUEUE_ID_NIC_18_1 = 229,
	GAUDI2_QUEUE_ID_NIC_18_2 = 230,
	GAUDI2_QUEUE_ID_NIC_18_3 = 231,
	GAUDI2_QUEUE_ID_NIC_19_0 = 232,
	GAUDI2_QUEUE_ID_NIC_19_1 = 233,
	GAUDI2_QUEUE_ID_NIC_19_2 = 234,
	GAUDI2_QUEUE_ID_NIC_19_3 = 235,
	GAUDI2_QUEUE_ID_NIC_20_0 = 236,
	GAUDI2_QUEUE_ID_NIC_20_1 = 237,
	GAUDI2_QUEUE_ID_NIC_20_2 = 238,
	GAUDI2_QUEUE_ID_NIC_20_3 = 239,
	GAUDI2_QUEUE_ID_NIC_21_0 = 240,
	GAUDI2_QUEUE_ID_NIC_21_1 = 241,
	GAUDI2_QUEUE_ID_NIC_21_2 = 242,
	GAUDI2_QUEUE_ID_NIC_21_3 = 243,
	GAUDI2_QUEUE_ID_NIC_22_0 = 244,
	GAUDI2_QUEUE_ID_NIC_22_1 = 245,
	GAUDI2_QUEUE_ID_NIC_22_2 = 246,
	GAUDI2_QUEUE_ID_NIC_22_3 = 247,
	GAUDI2_QUEUE_ID_NIC_23_0 = 248,
	GAUDI2_QUEUE_ID_NIC_23_1 = 249,
	GAUDI2_QUEUE_ID_NIC_23_2 = 250,
	GAUDI2_QUEUE_ID_NIC_23_3 = 251,
	GAUDI2_QUEUE_ID_ROT_0_0 = 252,
	GAUDI2_QUEUE_ID_ROT_0_1 = 253,
	GAUDI2_QUEUE_ID_ROT_0_2 = 254,
	GAUDI2_QUEUE_ID_ROT_0_3 = 255,
	GAUDI2_QUEUE_ID_ROT_1_0 = 256,
	GAUDI2_QUEUE_ID_ROT_1_1 = 257,
	GAUDI2_QUEUE_ID_ROT_1_2 = 258,
	GAUDI2_QUEUE_ID_ROT_1_3 = 259,
	GAUDI2_QUEUE_ID_CPU_PQ = 260,
	GAUDI2_QUEUE_ID_SIZE = 261,
};

/* GOYA's engines (upstream's busy-engine bit numbers) */
enum goya_engine_id {
	GOYA_ENGINE_ID_DMA_0 = 0,
	GOYA_ENGINE_ID_DMA_1,
	GOYA_ENGINE_ID_DMA_2,
	GOYA_ENGINE_ID_DMA_3,
	GOYA_ENGINE_ID_DMA_4,
	GOYA_ENGINE_ID_MME_0,
	GOYA_ENGINE_ID_TPC_0,
	GOYA_ENGINE_ID_TPC_1,
	GOYA_ENGINE_ID_TPC_2,
	GOYA_ENGINE_ID_TPC_3,
	GOYA_ENGINE_ID_TPC_4,
	GOYA_ENGINE_ID_TPC_5,
	GOYA_ENGINE_ID_TPC_6,
	GOYA_ENGINE_ID_TPC_7,
	GOYA_ENGINE_ID_SIZE,
};

/* GAUDI's engines (upstream's busy-engine bit numbers) */
enum gaudi_engine_id {
	GAUDI_ENGINE_ID_DMA_0 = 0,
	GAUDI_ENGINE_ID_DMA_1,
	GAUDI_ENGINE_ID_DMA_2,
	GAUDI_ENGINE_ID_DMA_3,
	GAUDI_ENGINE_ID_DMA_4,
	GAUDI_ENGINE_ID_DMA_5,
	GAUDI_ENGINE_ID_DMA_6,
	GAUDI_ENGINE_ID_DMA_7,
	GAUDI_ENGINE_ID_MME_0,
	GAUDI_ENGINE_ID_MME_1,
	GAUDI_ENGINE_ID_MME_2,
	GAUDI_ENGINE_ID_MME_3,
	GAUDI_ENGINE_ID_TPC_0,
	GAUDI_ENGINE_ID_TPC_1,
	GAUDI_ENGINE_ID_TPC_2,
	GAUDI_ENGINE_ID_TPC_3,
	GAUDI_ENGINE_ID_TPC_4,
	GAUDI_ENGINE_ID_TPC_5,
	GAUDI_ENGINE_ID_TPC_6,
	GAUDI_ENGINE_ID_TPC_7,
	GAUDI_ENGINE_ID_NIC_0,
	GAUDI_ENGINE_ID_NIC_1,
	GAUDI_ENGINE_ID_NIC_2,
	GAUDI_ENGINE_ID_NIC_3,
	GAUDI_ENGINE_ID_NIC_4,
	GAUDI_ENGINE_ID_NIC_5,
	GAUDI_ENGINE_ID_NIC_6,
	GAUDI_ENGINE_ID_NIC_7,
	GAUDI_ENGINE_ID_NIC_8,
	GAUDI_ENGINE_ID_NIC_9,
	GAUDI_ENGINE_ID_SIZE,
};

/* GOYA's PLLs: hl_info_args.pll_index of HL_INFO_PLL_FREQUENCY */
enum hl_goya_pll_index {
	HL_GOYA_CPU_PLL = 0,
	HL_GOYA_IC_PLL,
	HL_GOYA_MC_PLL,
	HL_GOYA_MME_PLL,
	HL_GOYA_PCI_PLL,
	HL_GOYA_EMMC_PLL,
	HL_GOYA_TPC_PLL,
	HL_GOYA_PLL_MAX,
};

/* GAUDI's PLLs */
enum hl_gaudi_pll_index {
	HL_GAUDI_CPU_PLL = 0,
	HL_GAUDI_PCI_PLL,
	HL_GAUDI_SRAM_PLL,
	HL_GAUDI_HBM_PLL,
	HL_GAUDI_NIC_PLL,
	HL_GAUDI_DMA_PLL,
	HL_GAUDI_MESH_PLL,
	HL_GAUDI_MME_PLL,
	HL_GAUDI_TPC_PLL,
	HL_GAUDI_IF_PLL,
	HL_GAUDI_PLL_MAX,
};

/* GAUDI2's PLLs */
enum hl_gaudi2_pll_index {
	HL_GAUDI2_CPU_PLL = 0,
	HL_GAUDI2_PCI_PLL,
	HL_GAUDI2_SRAM_PLL,
	HL_GAUDI2_HBM_PLL,
	HL_GAUDI2_NIC_PLL,
	HL_GAUDI2_DMA_PLL,
	HL_GAUDI2_MESH_PLL,
	HL_GAUDI2_MME_PLL,
	HL_GAUDI2_TPC_PLL,
	HL_GAUDI2_IF_PLL,
	HL_GAUDI2_VID_PLL,
	HL_GAUDI2_MSS_PLL,
	HL_GAUDI2_PLL_MAX,
};

/*
 * INFO opcodes (struct hl_info_args.op). The numbers are upstream's.
 *
 * HL_INFO_HW_IP_INFO       - struct hl_info_hw_ip_info
 * HL_INFO_DRAM_USAGE       - struct hl_info_dram_usage (both nodes; the
 *                            control node has no context: ctx_dram_mem 0)
 * HL_INFO_HW_IDLE          - struct hl_info_hw_idle
 * HL_INFO_DEVICE_STATUS    - struct hl_info_device_status
 * HL_INFO_DEV_MEM_ALLOC_PAGE_SIZES - struct hl_info_dev_memalloc_page_sizes
 * HL_INFO_PAGE_FAULT_EVENT - struct hl_info_page_fault_event: the last device
 *                            MMU page fault of the caller's context
 *                            (compute node only)
 * HL_INFO_NIC_PORTS        - struct hl_info_nic_ports: the NIC ports, their
 *                            addresses, links and peers (libhlthunk's op)
 * HL_INFO_DEVICE_UTILIZATION - struct hl_info_device_utilization: the
 *                            share of the last @period_ms (100 .. 1000, a
 *                            multiple of 100) during which an engine queue
 *                            of the device had a job
 * HL_INFO_RESET_COUNT      - struct hl_info_reset_count: hard resets since
 *                            the device was bound (no soft reset exists)
 * HL_INFO_TIME_SYNC        - struct hl_info_time_sync: the device's clock
 *                            (the CLOCK_MONOTONIC of the WAIT_CS timestamps)
 *                            and the host's CLOCK_MONOTONIC_RAW, read together
 * HL_INFO_CS_COUNTERS      - struct hl_info_cs_counters: HL_IOCTL_CS calls
 *                            refused, by reason, device-wide and of the
 *                            caller's context (the control node has none:
 *                            its ctx_* are 0)
 * HL_INFO_OPEN_STATS       - struct hl_open_stats_info: opens of the compute
 *                            node since the device was bound
 * HL_INFO_REGISTER_EVENTFD - register the eventfd @eventfd: the driver
 *                            signals it when an HL_NOTIFIER_EVENT_* event
 *                            happens (no return buffer)
 * HL_INFO_UNREGISTER_EVENTFD - unregister this file's eventfd (no return
 *                            buffer; @eventfd is not read)
 * HL_INFO_GET_EVENTS       - __u64: the HL_NOTIFIER_EVENT_* bits of the
 *                            events since the last GET_EVENTS of this file
 *                            (also on a file a hard reset killed); clears them
 * HL_INFO_HW_EVENTS        - __u32 array: how many times each event was sent
 *                            since the last hard reset; entry i counts the
 *                            event of HL_NOTIFIER_EVENT_* bit i
 *                            (hl_info_hw_ip_info.num_of_events entries)
 * HL_INFO_HW_EVENTS_AGGREGATE - the same since the device was bound
 * HL_INFO_LAST_ERR_OPEN_DEV_TIME - struct hl_info_last_err_open_dev_time
 * HL_INFO_CS_TIMEOUT_EVENT - struct hl_info_cs_timeout_event: the last CS
 *                            of the caller's context that failed on its
 *                            timeout (on the control node: of the compute
 *                            node's current owner; all zeros while it is
 *                            not open)
 * HL_INFO_UNDEFINED_OPCODE_EVENT - struct hl_info_undefined_opcode_event:
 *                            the last job of the caller's context that
 *                            failed on a malformed command buffer (on the
 *                            control node: as HL_INFO_CS_TIMEOUT_EVENT)
 * HL_INFO_ENGINE_STATUS    - text, one line per engine queue: idle or busy;
 *                            return_size 1 KiB .. HL_ENGINES_DATA_MAX_SIZE;
 *                            the length is returned in
 *                            @user_buffer_actual_size
 * HL_INFO_RAZWI_EVENT      - struct hl_info_razwi_event: the emulated device
 *                            has no register bus to access illegally, so no
 *                            RAZWI ever happens: all zeros (no event), as
 *                            upstream returns when none happened
 * HL_INFO_USER_MAPPINGS    - struct hl_user_mapping array of @array_size
 *                            entries: upstream's mappings captured at a
 *                            page fault; this driver captures none (the
 *                            fault itself is HL_INFO_PAGE_FAULT_EVENT), so
 *                            @array_size comes back 0 and the buffer is not
 *                            written, as upstream answers when it captured
 *                            nothing (both nodes)
 * HL_INFO_HW_ERR_EVENT     - struct hl_info_hw_err_event: no critical
 *                            hardware error is ever raised: all zeros
 * HL_INFO_FW_ERR_EVENT     - struct hl_info_fw_err_event: there is no
 *                            firmware to fail: all zeros
 *
 * Upstream's ops that the emulated device cannot mean fail with
 * -EOPNOTSUPP (docs/uapi.md lists each with its reason): HL_INFO_CLK_RATE,
 * HL_INFO_PCI_COUNTERS, HL_INFO_CLK_THROTTLE_REASON, HL_INFO_TOTAL_ENERGY,
 * HL_INFO_PLL_FREQUENCY, HL_INFO_POWER, HL_INFO_DRAM_REPLACED_ROWS,
 * HL_INFO_DRAM_PENDING_ROWS, HL_INFO_SECURED_ATTESTATION,
 * HL_INFO_FW_GENERIC_REQ.
 */
#define HL_INFO_HW_IP_INFO		0
#define HL_INFO_DRAM_USAGE		2
#define HL_INFO_HW_IDLE			3
#define HL_INFO_HW_EVENTS		1
#define HL_INFO_DEVICE_STATUS		4
#define HL_INFO_DEVICE_UTILIZATION	6
#define HL_INFO_HW_EVENTS_AGGREGATE	7
#define HL_INFO_RESET_COUNT		9
#define HL_INFO_TIME_SYNC		10
#define HL_INFO_CS_COUNTERS		11
#define HL_INFO_OPEN_STATS		18
#define HL_INFO_LAST_ERR_OPEN_DEV_TIME	23
#define HL_INFO_CS_TIMEOUT_EVENT	24
#define HL_INFO_DEV_MEM_ALLOC_PAGE_SIZES	26
#define HL_INFO_REGISTER_EVENTFD	28
#define HL_INFO_UNREGISTER_EVENTFD	29
#define HL_INFO_GET_EVENTS		30
#define HL_INFO_UNDEFINED_OPCODE_EVENT	31
#define HL_INFO_ENGINE_STATUS		32
#define HL_INFO_PAGE_FAULT_EVENT	33
#define HL_INFO_CLK_RATE		8
#define HL_INFO_PCI_COUNTERS		12
#define HL_INFO_CLK_THROTTLE_REASON	13
#define HL_INFO_SYNC_MANAGER		14
#define HL_INFO_TOTAL_ENERGY		15
#define HL_INFO_PLL_FREQUENCY		16
#define HL_INFO_POWER			17
#define HL_INFO_DRAM_REPLACED_ROWS	21
#define HL_INFO_DRAM_PENDING_ROWS	22
#define HL_INFO_RAZWI_EVENT		25
#define HL_INFO_SECURED_ATTESTATION	27
#define HL_INFO_USER_MAPPINGS		34
#define HL_INFO_FW_GENERIC_REQ		35
#define HL_INFO_HW_ERR_EVENT		36
#define HL_INFO_FW_ERR_EVENT		37
#define HL_INFO_NIC_PORTS		64

/*
 * Notifier events (HL_INFO_GET_EVENTS; the eventfd of
 * HL_INFO_REGISTER_EVENTFD is signalled when one happens), upstream's bits.
 * An event of the device (DEVICE_RESET with DEVICE_UNAVAILABLE, NIC_LINK)
 * is sent to every file of the device that registered an eventfd; an
 * event of a context's work (UNDEFINED_OPCODE, CS_TIMEOUT,
 * USER_ENGINE_ERR, PAGE_FAULT) to that context's compute file and to the
 * control files (the device's monitors). A compute file a hard reset
 * killed gets that reset's event and nothing after it: nothing of the next
 * owner's reaches it.
 *
 * HL_NOTIFIER_EVENT_UNDEFINED_OPCODE   - a CS failed on a malformed
 *                                        command buffer
 * HL_NOTIFIER_EVENT_DEVICE_RESET       - a hard reset (with
 *                                        DEVICE_UNAVAILABLE: the compute
 *                                        file, if any, is dead)
 * HL_NOTIFIER_EVENT_CS_TIMEOUT         - a CS failed: a job ran past its
 *                                        timeout
 * HL_NOTIFIER_EVENT_DEVICE_UNAVAILABLE - sent with DEVICE_RESET
 * HL_NOTIFIER_EVENT_USER_ENGINE_ERR    - a CS failed on another engine
 *                                        error (a NIC transfer error)
 * HL_NOTIFIER_EVENT_PAGE_FAULT         - a job or NIC transfer hit a device
 *                                        MMU fault (HL_INFO_PAGE_FAULT_EVENT
 *                                        tells where)
 * HL_NOTIFIER_EVENT_TPC_ASSERT, HL_NOTIFIER_EVENT_GENERAL_HW_ERR,
 * HL_NOTIFIER_EVENT_RAZWI, HL_NOTIFIER_EVENT_CRITICL_HW_ERR,
 * HL_NOTIFIER_EVENT_CRITICL_FW_ERR      - upstream's bits, never sent: the
 *                                        emulated device has no TPC
 *                                        firmware, register bus or
 *                                        firmware to raise them
 * HL_NOTIFIER_EVENT_NIC_LINK           - this driver's (upstream has no NIC
 *                                        event): the link of a NIC port of
 *                                        the device went up or down (sent to
 *                                        both cabled devices, also when a
 *                                        device's NIC leaves or rejoins the
 *                                        fabric: unbind, bind, hard reset;
 *                                        HL_INFO_NIC_PORTS tells which)
 * HL_NOTIFIER_EVENT_NIC_KEY_FAULT      - this driver's: a peer's one-sided
 *                                        write into this device's context
 *                                        failed its rkey check (unknown
 *                                        key, a region not bound to the
 *                                        connection it came on, missing
 *                                        REMOTE_WRITE, out of range); the
 *                                        peer device is being slowed down
 *                                        (HL_NIC_RKEY_FREE_FAILS)
 */
#define HL_NOTIFIER_EVENT_TPC_ASSERT		(1ULL << 0)
#define HL_NOTIFIER_EVENT_UNDEFINED_OPCODE	(1ULL << 1)
#define HL_NOTIFIER_EVENT_DEVICE_RESET		(1ULL << 2)
#define HL_NOTIFIER_EVENT_CS_TIMEOUT		(1ULL << 3)
#define HL_NOTIFIER_EVENT_DEVICE_UNAVAILABLE	(1ULL << 4)
#define HL_NOTIFIER_EVENT_USER_ENGINE_ERR	(1ULL << 5)
#define HL_NOTIFIER_EVENT_GENERAL_HW_ERR	(1ULL << 6)
#define HL_NOTIFIER_EVENT_RAZWI			(1ULL << 7)
#define HL_NOTIFIER_EVENT_PAGE_FAULT		(1ULL << 8)
#define HL_NOTIFIER_EVENT_CRITICL_HW_ERR	(1ULL << 9)
#define HL_NOTIFIER_EVENT_CRITICL_FW_ERR	(1ULL << 10)
#define HL_NOTIFIER_EVENT_NIC_LINK		(1ULL << 32)
#define HL_NOTIFIER_EVENT_NIC_KEY_FAULT		(1ULL << 33)

/* Largest HL_INFO_ENGINE_STATUS buffer */
#define HL_ENGINES_DATA_MAX_SIZE	(1 << 20)

#define HL_INFO_VERSION_MAX_LEN		128
#define HL_INFO_CARD_NAME_MAX_LEN	16

/**
 * struct hl_info_hw_ip_info - static properties of the device.
 *
 * Every field upstream defines sits at upstream's offset with upstream's
 * type: bytes 0..255 as in upstream's misc-era header (v5.x..6.1), bytes
 * 256..303 as in its accel-era successor (drm/habanalabs_accel.h), which
 * kept the first 256 bytes.
 * This driver's own fields start at byte 304, after upstream's end. Fields
 * that describe hardware the emulated ASIC does not have are returned as
 * zero.
 *
 * @sram_base_address: Returned device address of the on-chip SRAM (0: none;
 *	0x7FF0000000 under the module parameter asic=gaudi).
 * @dram_base_address: Returned device physical address of the first byte of
 *	user-allocatable DRAM (HBM); under asic=gaudi (no DRAM MMU) the
 *	engines address DRAM physically from it.
 * @dram_size: Returned number of bytes of user-allocatable DRAM.
 * @sram_size: Returned size of the on-chip SRAM (0: none; 20 MiB under
 *	asic=gaudi).
 * @num_of_events: Returned number of event types HL_INFO_HW_EVENTS
 *	counts: 64, one per HL_NOTIFIER_EVENT_* bit.
 * @device_id: Returned PCI device ID of the function.
 * @module_id: Returned index of the device among the devices of the driver.
 * @decoder_enabled_mask: Returned as zero (no video decoders).
 * @first_available_interrupt_id: Returned as zero (no user interrupts).
 * @server_type: Returned as zero (HL_SERVER_TYPE_UNKNOWN).
 * @cpld_version: Returned firmware CPLD version (0 on the emulated ASIC).
 * @psoc_pci_pll_nr: Returned PLL parameter (0 on the emulated ASIC).
 * @psoc_pci_pll_nf: Returned PLL parameter (0 on the emulated ASIC).
 * @psoc_pci_pll_od: Returned PLL parameter (0 on the emulated ASIC).
 * @psoc_pci_pll_div_factor: Returned PLL parameter (0 on the emulated ASIC).
 * @tpc_enabled_mask: Returned mask of the TPC engines whose queues take
 *	jobs: 0 on the emulated ASIC, 0xff (TPC 0-7) when it presents itself
 *	as a GAUDI (module parameter asic=gaudi).
 * @dram_enabled: Returned 1 when the device has DRAM.
 * @security_enabled: Returned as zero (no secured firmware).
 * @mme_master_slave_mode: Returned as zero (no MME).
 * @cpucp_version: Returned NUL-terminated firmware version string.
 * @card_name: Returned NUL-terminated ASIC name, e.g. "emu-gaudi".
 * @tpc_enabled_mask_ext: Returned as @tpc_enabled_mask.
 * @dram_page_size: Returned default DRAM page size in bytes: allocations are
 *	rounded up to it, and device-memory mappings are aligned to it.
 * @edma_enabled_mask: Returned as zero (no EDMA engines).
 * @number_of_user_interrupts: Returned as zero (no user interrupts).
 * @reserved1: Returned as zero.
 * @reserved2: Returned as zero.
 * @reserved3: Returned as zero.
 * @device_mem_alloc_default_page_size: Returned page size HL_MEM_OP_ALLOC
 *	uses when alloc.page_size is 0 (== @dram_page_size).
 * @reserved4: Returned as zero.
 * @reserved5: Returned as zero.
 * @reserved6: Returned as zero.
 * @reserved7: Returned as zero.
 * @revision_id: Returned PCI revision ID of the function.
 * @tpc_interrupt_id: Returned as zero (no TPC interrupts).
 * @rotator_enabled_mask: Returned as zero (no rotators).
 * @reserved9: Returned as zero.
 * @engine_core_interrupt_reg_addr: Returned as zero (no engine cores).
 * @reserved_dram_size: Returned as zero: DRAM kept by the driver is not
 *	counted in @dram_size either.
 * @num_nic_ports: Returned number of NIC ports (this driver's field).
 * @num_queues: Returned number of engine queues (queue_index values are
 *	0 .. num_queues - 1) (this driver's field): 4 internal queues on the
 *	emulated ASIC; GAUDI's GAUDI_QUEUE_ID_SIZE under asic=gaudi, typed as
 *	enum gaudi_queue_id says (DMA 0-1 external, CPU_PQ the device CPU's,
 *	the NIC queues of ports the device lacks not applicable; a CS naming
 *	either of those two kinds fails with -EINVAL).
 * @host_va_start: Returned first device virtual address of the range used
 *	for host-memory mappings (this driver's field).
 * @host_va_end: Returned one past the last address of that range.
 * @dram_va_start: Returned first device virtual address of the range used
 *	for device-memory mappings (this driver's field); 0, as @dram_va_end,
 *	when there is none (asic=gaudi: DRAM is addressed physically).
 * @dram_va_end: Returned one past the last address of that range.
 * @host_page_size: Returned granularity of host-memory mappings in bytes
 *	(this driver's field).
 * @pad: Returned as zero.
 */
struct hl_info_hw_ip_info {
	__u64 sram_base_address;
	__u64 dram_base_address;
	__u64 dram_size;
	__u32 sram_size;
	__u32 num_of_events;
	__u32 device_id;
	__u32 module_id;
	__u32 decoder_enabled_mask;
	__u16 first_available_interrupt_id;
	__u16 server_type;
	__u32 cpld_version;
	__u32 psoc_pci_pll_nr;
	__u32 psoc_pci_pll_nf;
	__u32 psoc_pci_pll_od;
	__u32 psoc_pci_pll_div_factor;
	__u8 tpc_enabled_mask;
	__u8 dram_enabled;
	__u8 security_enabled;
	__u8 mme_master_slave_mode;
	__u8 cpucp_version[HL_INFO_VERSION_MAX_LEN];
	__u8 card_name[HL_INFO_CARD_NAME_MAX_LEN];
	__u64 tpc_enabled_mask_ext;
	__u64 dram_page_size;
	__u32 edma_enabled_mask;
	__u16 number_of_user_interrupts;
	__u8 reserved1;
	__u8 reserved2;
	__u64 reserved3;
	__u64 device_mem_alloc_default_page_size;
	/* upstream's misc-era header ends here (256 bytes) */
	__u64 reserved4;
	__u64 reserved5;
	__u32 reserved6;
	__u8 reserved7;
	__u8 revision_id;
	__u16 tpc_interrupt_id;
	__u32 rotator_enabled_mask;
	__u32 reserved9;
	__u64 engine_core_interrupt_reg_addr;
	__u64 reserved_dram_size;
	/* upstream's accel-era header ends here (304 bytes); this driver's: */
	__u32 num_nic_ports;
	__u32 num_queues;
	__u64 host_va_start;
	__u64 host_va_end;
	__u64 dram_va_start;
	__u64 dram_va_end;
	__u32 host_page_size;
	__u32 pad;
};

/**
 * struct hl_info_dram_usage - DRAM accounting.
 * @dram_free_mem: Returned number of free bytes of user-allocatable DRAM.
 * @ctx_dram_mem: Returned number of bytes allocated by the caller's context;
 *	0 on the control node, which has no context.
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
 *
 * The first 24 bytes are upstream's struct hl_page_fault_info.
 *
 * @timestamp: Returned ktime (ns, CLOCK_MONOTONIC) of the fault; 0 when the
 *	context had no fault.
 * @addr: Returned faulting device virtual address.
 * @engine_id: Returned queue index of the job that faulted.
 * @pad: Returned as zero.
 * @is_write: Returned 1 for a write access, 0 for a read (this driver's
 *	field, after upstream's end).
 * @pad2: Returned as zero.
 */
struct hl_info_page_fault_event {
	__s64 timestamp;
	__u64 addr;
	__u16 engine_id;
	__u8 pad[6];
	__u32 is_write;
	__u32 pad2;
};

/**
 * struct hl_info_dev_memalloc_page_sizes - page sizes of HL_MEM_OP_ALLOC.
 * @page_order_bitmask: Returned bit N set when HL_MEM_OP_ALLOC accepts a
 *	page size of 2^N bytes.
 */
struct hl_info_dev_memalloc_page_sizes {
	__u64 page_order_bitmask;
};

/* Largest number of ports HL_INFO_NIC_PORTS reports */
#define HL_INFO_NIC_MAX_PORTS		32

/**
 * struct hl_info_nic_port - one NIC port, as returned by HL_INFO_NIC_PORTS.
 * @addr: Returned address of the port: a 48-bit MAC-like number (bits 63:48
 *	are zero), unique among the ports of the fabric, that the peer names
 *	as remote_addr in its connection contexts.
 * @peer_addr: Returned address of the port this one is cabled to, 0 when
 *	@cabled is 0.
 * @port: Returned index of the port, 0 .. num_ports - 1.
 * @link_up: Returned 1 when the link is up: the port is cabled, the peer
 *	device is present and both ends are up (@admin_up at both ends).
 * @cabled: Returned 1 when the fabric cables the port to a port of another
 *	device, else 0 (the port has no link).
 * @peer_present: Returned 1 when the peer device is bound to the driver.
 * @peer_module_id: Returned module_id (hl_info_hw_ip_info) of the peer
 *	device, valid when @cabled is 1.
 * @peer_port: Returned index of the peer's port, valid when @cabled is 1.
 * @admin_up: Returned 1 when this end of the link is administratively up
 *	(the default; see the driver's debugfs to take it down).
 * @pad: Returned as zero.
 */
struct hl_info_nic_port {
	__u64 addr;
	__u64 peer_addr;
	__u32 port;
	__u32 link_up;
	__u32 cabled;
	__u32 peer_present;
	__u32 peer_module_id;
	__u32 peer_port;
	__u32 admin_up;
	__u32 pad;
};

/**
 * struct hl_info_nic_ports - the NIC ports of a device (HL_INFO_NIC_PORTS).
 * @num_ports: Returned number of ports (= hl_info_hw_ip_info.num_nic_ports,
 *	at most HL_INFO_NIC_MAX_PORTS); entries past it are zero.
 * @pad: Returned as zero.
 * @ports: Returned ports 0 .. @num_ports - 1.
 */
struct hl_info_nic_ports {
	__u32 num_ports;
	__u32 pad;
	struct hl_info_nic_port ports[HL_INFO_NIC_MAX_PORTS];
};

/**
 * struct hl_info_device_utilization - HL_INFO_DEVICE_UTILIZATION.
 * @utilization: Returned percentage (0 .. 100) of the last
 *	hl_info_args.period_ms during which at least one engine queue of the
 *	device had a job queued or running (the device's busy time, counted
 *	by the emulated queue manager).
 * @pad: Returned as zero.
 */
struct hl_info_device_utilization {
	__u32 utilization;
	__u32 pad;
};

/**
 * struct hl_info_reset_count - HL_INFO_RESET_COUNT.
 * @hard_reset_cnt: Returned number of hard resets the device went through
 *	since the driver bound it (sysfs hard_reset).
 * @soft_reset_cnt: Returned as zero: this device has no soft reset.
 */
struct hl_info_reset_count {
	__u32 hard_reset_cnt;
	__u32 soft_reset_cnt;
};

/**
 * struct hl_info_time_sync - HL_INFO_TIME_SYNC.
 * @device_time: Returned time of the device's clock in nanoseconds: the
 *	emulated device stamps completions (WAIT_CS timestamp_nsec) with the
 *	host's CLOCK_MONOTONIC, so this is CLOCK_MONOTONIC.
 * @host_time: Returned CLOCK_MONOTONIC_RAW in nanoseconds, read right after
 *	@device_time.
 */
struct hl_info_time_sync {
	__u64 device_time;
	__u64 host_time;
};

/**
 * struct hl_info_cs_counters - HL_INFO_CS_COUNTERS: HL_IOCTL_CS calls that
 * failed, by reason; total_* count the device's since it was bound, ctx_*
 * the caller's context's since it was opened (0 on the control node, which
 * has no context).
 * @total_out_of_mem_drop_cnt: Returned count of -ENOMEM.
 * @ctx_out_of_mem_drop_cnt: Returned count of -ENOMEM of the context.
 * @total_parsing_drop_cnt: Returned as zero: the driver does not parse
 *	command buffers (a malformed one fails the CS, not the ioctl).
 * @ctx_parsing_drop_cnt: Returned as zero.
 * @total_queue_full_drop_cnt: Returned count of -EAGAIN because an
 *	external queue was full (HL_EXT_QUEUE_LENGTH jobs of submissions not
 *	completed; upstream's queue depth).
 * @ctx_queue_full_drop_cnt: Returned count of them of the context.
 * @total_device_in_reset_drop_cnt: Returned count of -ENODEV (a file a hard
 *	reset killed; counted device-wide only, its context being gone).
 * @ctx_device_in_reset_drop_cnt: Returned as zero (see above).
 * @total_max_cs_in_flight_drop_cnt: Returned count of -EAGAIN
 *	(max_pending_cs).
 * @ctx_max_cs_in_flight_drop_cnt: Returned count of -EAGAIN of the context.
 * @total_validation_drop_cnt: Returned count of -EINVAL and -EFAULT (bad
 *	arguments or chunks).
 * @ctx_validation_drop_cnt: Returned count of them of the context.
 */
struct hl_info_cs_counters {
	__u64 total_out_of_mem_drop_cnt;
	__u64 ctx_out_of_mem_drop_cnt;
	__u64 total_parsing_drop_cnt;
	__u64 ctx_parsing_drop_cnt;
	__u64 total_queue_full_drop_cnt;
	__u64 ctx_queue_full_drop_cnt;
	__u64 total_device_in_reset_drop_cnt;
	__u64 ctx_device_in_reset_drop_cnt;
	__u64 total_max_cs_in_flight_drop_cnt;
	__u64 ctx_max_cs_in_flight_drop_cnt;
	__u64 total_validation_drop_cnt;
	__u64 ctx_validation_drop_cnt;
};

/**
 * struct hl_open_stats_info - HL_INFO_OPEN_STATS.
 * @open_counter: Returned number of successful opens of the compute node
 *	since the device was bound.
 * @last_open_period_ms: Returned length of the last compute open: from its
 *	open to now while it is open, else to its close.
 * @is_compute_ctx_active: Returned 1 while the compute node is open.
 * @compute_ctx_in_release: Returned 1 while a closed (or reset) compute
 *	context is being torn down.
 * @pad: Returned as zero.
 */
struct hl_open_stats_info {
	__u64 open_counter;
	__u64 last_open_period_ms;
	__u8 is_compute_ctx_active;
	__u8 compute_ctx_in_release;
	__u8 pad[6];
};

/**
 * struct hl_info_last_err_open_dev_time - HL_INFO_LAST_ERR_OPEN_DEV_TIME.
 * @timestamp: Returned time (CLOCK_MONOTONIC, ns) of the last successful
 *	open of the compute node, 0 if none: the open during which the last
 *	error events happened.
 */
struct hl_info_last_err_open_dev_time {
	__s64 timestamp;
};

/**
 * struct hl_info_cs_timeout_event - HL_INFO_CS_TIMEOUT_EVENT.
 * @timestamp: Returned time (CLOCK_MONOTONIC, ns) when the last CS that
 *	failed on its timeout completed; 0 if none did.
 * @seq: Returned its sequence number (of the context it belonged to).
 */
struct hl_info_cs_timeout_event {
	__s64 timestamp;
	__u64 seq;
};

#define MAX_QMAN_STREAMS_INFO		4
#define OPCODE_INFO_MAX_ADDR_SIZE	8

/**
 * struct hl_info_undefined_opcode_event - HL_INFO_UNDEFINED_OPCODE_EVENT.
 * @timestamp: Returned time (CLOCK_MONOTONIC, ns) of the last job that
 *	failed on a malformed command buffer; 0 if none did.
 * @cb_addr_streams: Returned [0][0]: the device VA of that job's command
 *	buffer (an emulated queue has one stream and no CB history); the
 *	rest 0.
 * @cq_addr: Returned as zero (no completion queue behind the queue).
 * @cq_size: Returned as zero.
 * @cb_addr_streams_len: Returned 1 (one stream) when @timestamp is set.
 * @engine_id: Returned the engine queue of that job.
 * @stream_id: Returned as zero.
 */
struct hl_info_undefined_opcode_event {
	__s64 timestamp;
	__u64 cb_addr_streams[MAX_QMAN_STREAMS_INFO][OPCODE_INFO_MAX_ADDR_SIZE];
	__u64 cq_addr;
	__u32 cq_size;
	__u32 cb_addr_streams_len;
	__u32 engine_id;
	__u32 stream_id;
};

/*
 * The structs of upstream's INFO ops that this driver answers -EOPNOTSUPP
 * (the emulated device has no clocks, PLLs, power sensors, PCIe counters,
 * DRAM row replacement, firmware or attestation), or all zeros (no such
 * event can happen): their layouts are upstream's, so that a program built
 * for upstream compiles and calls them unchanged.
 */

/**
 * struct hl_info_clk_rate - HL_INFO_CLK_RATE (-EOPNOTSUPP here).
 * @cur_clk_rate_mhz: Upstream: the current clock rate, in MHz.
 * @max_clk_rate_mhz: Upstream: the highest clock rate, in MHz.
 */
struct hl_info_clk_rate {
	__u32 cur_clk_rate_mhz;
	__u32 max_clk_rate_mhz;
};

/**
 * struct hl_info_pci_counters - HL_INFO_PCI_COUNTERS (-EOPNOTSUPP here).
 * @rx_throughput: Upstream: PCIe receive throughput, bytes per second.
 * @tx_throughput: Upstream: PCIe transmit throughput, bytes per second.
 * @replay_cnt: Upstream: PCIe replay count since the last reset.
 */
struct hl_info_pci_counters {
	__u64 rx_throughput;
	__u64 tx_throughput;
	__u64 replay_cnt;
};

/**
 * enum hl_clk_throttling_type - the reasons of struct hl_info_clk_throttle.
 * @HL_CLK_THROTTLE_TYPE_POWER: throttled to stay in the power budget.
 * @HL_CLK_THROTTLE_TYPE_THERMAL: throttled to cool down.
 * @HL_CLK_THROTTLE_TYPE_MAX: number of reasons.
 */
enum hl_clk_throttling_type {
	HL_CLK_THROTTLE_TYPE_POWER,
	HL_CLK_THROTTLE_TYPE_THERMAL,
	HL_CLK_THROTTLE_TYPE_MAX
};

/* Bits of struct hl_info_clk_throttle.clk_throttling_reason */
#define HL_CLK_THROTTLE_POWER		(1 << HL_CLK_THROTTLE_TYPE_POWER)
#define HL_CLK_THROTTLE_THERMAL		(1 << HL_CLK_THROTTLE_TYPE_THERMAL)

/**
 * struct hl_info_clk_throttle - HL_INFO_CLK_THROTTLE_REASON (-EOPNOTSUPP
 * here).
 * @clk_throttling_reason: Upstream: HL_CLK_THROTTLE_* bits now throttling.
 * @pad: Upstream: padding.
 * @clk_throttling_timestamp_us: Upstream: when each kind of throttling
 *	started, in microseconds.
 * @clk_throttling_duration_ns: Upstream: how long each kind lasted, in ns.
 */
struct hl_info_clk_throttle {
	__u32 clk_throttling_reason;
	__u32 pad;
	__u64 clk_throttling_timestamp_us[HL_CLK_THROTTLE_TYPE_MAX];
	__u64 clk_throttling_duration_ns[HL_CLK_THROTTLE_TYPE_MAX];
};

/**
 * struct hl_info_energy - HL_INFO_TOTAL_ENERGY (-EOPNOTSUPP here).
 * @total_energy_consumption: Upstream: energy used since the device came
 *	up, in millijoules.
 */
struct hl_info_energy {
	__u64 total_energy_consumption;
};

/* Outputs of one PLL (struct hl_pll_frequency_info) */
#define HL_PLL_NUM_OUTPUTS 4

/**
 * struct hl_pll_frequency_info - HL_INFO_PLL_FREQUENCY (-EOPNOTSUPP here).
 * @output: Upstream: the frequency of each output of PLL
 *	hl_info_args.pll_index, in MHz.
 */
struct hl_pll_frequency_info {
	__u16 output[HL_PLL_NUM_OUTPUTS];
};

/**
 * struct hl_power_info - HL_INFO_POWER (-EOPNOTSUPP here).
 * @power: Upstream: the device's power draw, in milliwatts.
 */
struct hl_power_info {
	__u64 power;
};

/**
 * struct hl_info_sync_manager - HL_INFO_SYNC_MANAGER: the sync-manager
 * resources of dcore hl_info_args.dcore_id that the driver leaves to user
 * space; a dcore_id above HL_GAUDI_ES_DCORE: -EINVAL. Under asic=emu the
 * emulated ASIC's packets name one sync manager block (habanalabs_pkt.h:
 * HL_SM_NUM_SOBS SOBs, HL_SM_NUM_MONITORS monitors, at GAUDI's E_N
 * addresses), which holds the driver's SOBs and monitors and is reported
 * for each of the four dcore ids. Under asic=gaudi the driver's are in the
 * W_S block (HL_SM_WS_SOB_OBJ_0), as upstream's GAUDI driver's:
 * HL_GAUDI_WS_DCORE reports the first past them, and the other three 0
 * (E_N, HL_GAUDI_EN_DCORE, is the user's whole; WN and ES are not
 * modelled: upstream's answer).
 * @first_available_sync_object: Returned first sync object for users.
 * @first_available_monitor: Returned first monitor for users.
 * @first_available_cq: Returned first completion queue for users.
 * @reserved: Returned as zero.
 */
struct hl_info_sync_manager {
	__u32 first_available_sync_object;
	__u32 first_available_monitor;
	__u32 first_available_cq;
	__u32 reserved;
};

/* struct hl_info_razwi_event: engine_id entries, and "no engine" */
#define HL_RAZWI_NA_ENG_ID			0xffff
#define HL_RAZWI_MAX_NUM_OF_ENGINES_PER_RTR	128

/* struct hl_info_razwi_event.flags */
#define HL_RAZWI_READ		(1 << 0)
#define HL_RAZWI_WRITE		(1 << 1)
#define HL_RAZWI_LBW		(1 << 2)
#define HL_RAZWI_HBW		(1 << 3)
#define HL_RAZWI_RR		(1 << 4)
#define HL_RAZWI_ADDR_DEC	(1 << 5)

/**
 * struct hl_info_razwi_event - HL_INFO_RAZWI_EVENT: the first illegal
 * register-bus access (RAZWI) since the device was opened. The emulated
 * device has no register bus to access illegally: Returned all zeros
 * (@timestamp 0: no event).
 * @timestamp: Returned time of the event, 0 when none happened.
 * @addr: Returned address of the access.
 * @engine_id: Returned engines that may have made it.
 * @num_of_possible_engines: Returned number of @engine_id entries.
 * @flags: Returned HL_RAZWI_* bits.
 * @pad: Returned as zero.
 */
struct hl_info_razwi_event {
	__s64 timestamp;
	__u64 addr;
	__u16 engine_id[HL_RAZWI_MAX_NUM_OF_ENGINES_PER_RTR];
	__u16 num_of_possible_engines;
	__u8 flags;
	__u8 pad[5];
};

/**
 * struct hl_info_hw_err_event - HL_INFO_HW_ERR_EVENT: the first critical
 * hardware error. None is ever raised here: Returned all zeros.
 * @timestamp: Returned time of the error, 0 when none happened.
 * @event_id: Returned the error's event number.
 * @pad: Returned as zero.
 */
struct hl_info_hw_err_event {
	__s64 timestamp;
	__u16 event_id;
	__u16 pad[3];
};

/**
 * enum hl_info_fw_err_type - struct hl_info_fw_err_event.err_type.
 * @HL_INFO_FW_HEARTBEAT_ERR: the firmware stopped answering.
 * @HL_INFO_FW_REPORTED_ERR: the firmware reported an error.
 */
enum hl_info_fw_err_type {
	HL_INFO_FW_HEARTBEAT_ERR,
	HL_INFO_FW_REPORTED_ERR,
};

/**
 * struct hl_info_fw_err_event - HL_INFO_FW_ERR_EVENT: the first critical
 * firmware error. There is no firmware here: Returned all zeros.
 * @timestamp: Returned time of the error, 0 when none happened.
 * @err_type: Returned enum hl_info_fw_err_type.
 * @event_id: Returned the error's event number.
 * @pad: Returned as zero.
 */
struct hl_info_fw_err_event {
	__s64 timestamp;
	__u16 err_type;
	__u16 event_id;
	__u32 pad;
};

/* Buffer sizes of struct hl_info_sec_attest */
#define SEC_PCR_DATA_BUF_SZ	256
#define SEC_PCR_QUOTE_BUF_SZ	510
#define SEC_SIGNATURE_BUF_SZ	255
#define SEC_PUB_DATA_BUF_SZ	510
#define SEC_CERTIFICATE_BUF_SZ	2046

/**
 * struct hl_info_sec_attest - HL_INFO_SECURED_ATTESTATION (-EOPNOTSUPP
 * here: no firmware, no TPM).
 * @nonce: Upstream: the nonce hl_info_args.sec_attest_nonce gave.
 * @pcr_quote_len: Upstream: bytes of @pcr_quote.
 * @pub_data_len: Upstream: bytes of @public_data.
 * @certificate_len: Upstream: bytes of @certificate.
 * @pcr_num_reg: Upstream: number of PCR registers in @pcr_data.
 * @pcr_reg_len: Upstream: bytes of one PCR register.
 * @quote_sig_len: Upstream: bytes of @quote_sig.
 * @pcr_data: Upstream: the PCR registers.
 * @pcr_quote: Upstream: the signed PCR quote.
 * @quote_sig: Upstream: the quote's signature.
 * @public_data: Upstream: the attestation key's public part.
 * @certificate: Upstream: the certificate of the key.
 * @pad0: Upstream: padding.
 */
struct hl_info_sec_attest {
	__u32 nonce;
	__u16 pcr_quote_len;
	__u16 pub_data_len;
	__u16 certificate_len;
	__u8 pcr_num_reg;
	__u8 pcr_reg_len;
	__u8 quote_sig_len;
	__u8 pcr_data[SEC_PCR_DATA_BUF_SZ];
	__u8 pcr_quote[SEC_PCR_QUOTE_BUF_SZ];
	__u8 quote_sig[SEC_SIGNATURE_BUF_SZ];
	__u8 public_data[SEC_PUB_DATA_BUF_SZ];
	__u8 certificate[SEC_CERTIFICATE_BUF_SZ];
	__u8 pad0[2];
};

/**
 * struct hl_page_fault_info - upstream's name and layout of the first 24
 * bytes of struct hl_info_page_fault_event (HL_INFO_PAGE_FAULT_EVENT with
 * a return_size of 24 fills exactly this).
 * @timestamp: Returned time of the fault, 0 when the context had none.
 * @addr: Returned faulting device virtual address.
 * @engine_id: Returned queue index of the job that faulted.
 * @pad: Returned as zero.
 */
struct hl_page_fault_info {
	__s64 timestamp;
	__u64 addr;
	__u16 engine_id;
	__u8 pad[6];
};

/**
 * struct hl_user_mapping - one entry of HL_INFO_USER_MAPPINGS.
 * @dev_va: Upstream: the device virtual address of a mapping (none is
 *	returned here: no mappings are captured).
 * @size: Upstream: the size of the mapping.
 */
struct hl_user_mapping {
	__u64 dev_va;
	__u64 size;
};

/**
 * enum gaudi_dcores - GAUDI's dcores, for hl_info_args.dcore_id.
 * @HL_GAUDI_WS_DCORE: west-south.
 * @HL_GAUDI_WN_DCORE: west-north.
 * @HL_GAUDI_EN_DCORE: east-north.
 * @HL_GAUDI_ES_DCORE: east-south.
 */
enum gaudi_dcores {
	HL_GAUDI_WS_DCORE,
	HL_GAUDI_WN_DCORE,
	HL_GAUDI_EN_DCORE,
	HL_GAUDI_ES_DCORE
};

/**
 * struct hl_info_args - argument of HL_IOCTL_INFO.
 * @return_pointer: user pointer to the struct of @op.
 * @return_size: size of the buffer at @return_pointer; like snprintf's size,
 *	the driver writes at most this many bytes (a short buffer gets a
 *	truncated copy).
 * @op: one of HL_INFO_*.
 * @dcore_id: HL_INFO_SYNC_MANAGER: the dcore (enum gaudi_dcores).
 * @ctx_id: must be 0 (for the ops that use none of the other members of
 *	its union, which share its place).
 * @period_ms: HL_INFO_DEVICE_UTILIZATION: the period, 100 .. 1000 ms, a
 *	multiple of 100.
 * @pll_index: HL_INFO_PLL_FREQUENCY: upstream's PLL index.
 * @eventfd: HL_INFO_REGISTER_EVENTFD: the eventfd's file descriptor.
 * @user_buffer_actual_size: HL_INFO_ENGINE_STATUS: Returned length of the
 *	text.
 * @sec_attest_nonce: HL_INFO_SECURED_ATTESTATION: the nonce to sign.
 * @array_size: HL_INFO_USER_MAPPINGS: entries of struct hl_user_mapping at
 *	@return_pointer; Returned: the number of mappings written (0 here).
 * @fw_sub_opcode: HL_INFO_FW_GENERIC_REQ: the firmware request.
 * @pad: must be 0.
 *
 * Accepted on the compute node (/dev/hlN) and on the control node
 * (/dev/hl_controlDN). Errors of HL_IOCTL_INFO:
 *   -EINVAL  unknown op, non-zero @ctx_id or @pad, NULL @return_pointer or
 *            zero @return_size (but for REGISTER_EVENTFD and
 *            UNREGISTER_EVENTFD, which take no buffer), an op that needs
 *            the compute node (HL_INFO_PAGE_FAULT_EVENT) on the control
 *            node, a bad @period_ms,
 *            REGISTER_EVENTFD on a file that has one registered already or
 *            with an @eventfd that is not an eventfd, UNREGISTER_EVENTFD on
 *            a file with none, an ENGINE_STATUS buffer below 1 KiB or
 *            above HL_ENGINES_DATA_MAX_SIZE;
 *   -EOPNOTSUPP an op of upstream's that the emulated device cannot mean
 *            (the list is above the HL_INFO_* numbers; docs/uapi.md gives
 *            each one's reason);
 *   -EBADF   REGISTER_EVENTFD: @eventfd is not an open file descriptor;
 *   -EFAULT  @return_pointer cannot be written;
 *   -ENOMEM  no memory for the reply (HL_INFO_NIC_PORTS);
 *   -ENODEV  the device is gone, or (compute node) was reset under this
 *            file (a file a hard reset killed still serves
 *            HL_INFO_GET_EVENTS and HL_INFO_UNREGISTER_EVENTFD).
 * The reply is copied to @return_pointer after the device was read, so a
 * page fault there (userfaultfd, FUSE) holds no reset or removal.
 */
struct hl_info_args {
	__u64 return_pointer;
	__u32 return_size;
	__u32 op;
	union {
		__u32 dcore_id;
		__u32 ctx_id;
		__u32 period_ms;
		__u32 pll_index;
		__u32 eventfd;
		__u32 user_buffer_actual_size;
		__u32 sec_attest_nonce;
		__u32 array_size;
		__u32 fw_sub_opcode;
	};
	__u32 pad;
};

/**
 * DOC: HL_IOCTL_CB
 *
 * Command buffers owned by the driver: HL_CB_OP_CREATE allocates one in
 * host memory and returns a handle; the caller maps it with
 * mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, handle) to
 * write its packets. With HL_CB_FLAGS_MAP it is also mapped into the
 * device MMU of the caller's context (HL_CB_OP_INFO with
 * HL_CB_FLAGS_GET_DEVICE_VA returns the address), and a CS chunk of an
 * internal queue may then name it by handle (hl_cs_chunk.cb_handle):
 * internal queues fetch every command buffer through the device MMU, so
 * there a CB created without HL_CB_FLAGS_MAP cannot be named. An external
 * queue (under the module parameter asic=gaudi: GAUDI's DMA 0-1 queues)
 * takes a CB by handle only, mapped or not: the driver copies the CB's
 * first cb_size bytes at the submission and the queue runs the copy, as
 * upstream's GAUDI driver does.
 *
 * Lifetime: HL_CB_OP_DESTROY drops the handle; the CB lives on while a CS
 * that named it runs (its usage count, HL_CB_OP_INFO, counts them) and
 * while a user mapping of it exists. Closing the compute node destroys
 * every CB of its context. When the context dies under its file (a hard
 * reset, or the device's removal), the pages of every CB of the context,
 * destroyed or not, leave every user mapping of them (a later access gets
 * SIGBUS) and no new mapping is made (-ENODEV), so no mapping outlives its
 * CB's context. Compute node only.
 *
 * mmap offsets: a CB's handle is the offset of its first page; the CB
 * covers one page of offset per page of its size. The offset ranges come
 * from one allocator of the driver, for every device and context: a range
 * belongs to one CB from its creation until the CB is released (its
 * handle destroyed or its context torn down, no CS naming it and no
 * mapping of it left), so the
 * ranges of one owner never overlap another's, and removing one CB's
 * pages from the mappings never touches another owner's. The allocator is
 * cyclic (each CB gets the first free range after the last one handed
 * out, wrapping at 2^32 pages): a destroyed handle is not reused at once.
 * User space must treat handles as opaque.
 */

/* HL_CB_OP_*: struct hl_cb_in.op */
#define HL_CB_OP_CREATE		0
#define HL_CB_OP_DESTROY	1
#define HL_CB_OP_INFO		2

/* Largest command buffer, upstream's (2 MiB minus 32 bytes) */
#define HL_MAX_CB_SIZE		(0x200000 - 32)

/* CREATE: also map the CB into the device MMU of the context */
#define HL_CB_FLAGS_MAP			0x1
/* INFO: return the CB's device VA instead of its usage count */
#define HL_CB_FLAGS_GET_DEVICE_VA	0x2

/**
 * struct hl_cb_in - input of HL_IOCTL_CB.
 * @cb_handle: DESTROY, INFO: the handle CREATE returned; CREATE: must be 0.
 * @op: HL_CB_OP_*.
 * @cb_size: CREATE: size in bytes, 1 .. HL_MAX_CB_SIZE (the allocation is
 *	rounded up to whole pages); else must be 0.
 * @ctx_id: must be 0.
 * @flags: CREATE: 0 or HL_CB_FLAGS_MAP; INFO: 0 or
 *	HL_CB_FLAGS_GET_DEVICE_VA; DESTROY: must be 0.
 */
struct hl_cb_in {
	__u64 cb_handle;
	__u32 op;
	__u32 cb_size;
	__u32 ctx_id;
	__u32 flags;
};

/**
 * struct hl_cb_out - output of HL_IOCTL_CB.
 * @cb_handle: Returned by CREATE: the CB's handle, also its mmap offset.
 * @usage_cnt: Returned by INFO without HL_CB_FLAGS_GET_DEVICE_VA: the
 *	number of submitted CSs naming the CB by handle that have not
 *	completed yet.
 * @pad: Returned as zero.
 * @device_va: Returned by INFO with HL_CB_FLAGS_GET_DEVICE_VA: the CB's
 *	device virtual address.
 */
struct hl_cb_out {
	union {
		__u64 cb_handle;
		union {
			struct {
				__u32 usage_cnt;
				__u32 pad;
			};
			__u64 device_va;
		};
	};
};

/**
 * union hl_cb_args - argument of HL_IOCTL_CB.
 * @in: input.
 * @out: output.
 *
 * Compute node only. Errors of HL_IOCTL_CB:
 *   -EINVAL  unknown op, unknown flags for the op, non-zero ctx_id or
 *            unused field, a size of 0 or above HL_MAX_CB_SIZE, a handle
 *            that names no CB of the context, GET_DEVICE_VA of a CB
 *            created without HL_CB_FLAGS_MAP;
 *   -ENOMEM  no memory, no device VA or page-table space;
 *   -ENODEV  the device is gone or was reset under this file.
 */
union hl_cb_args {
	struct hl_cb_in in;
	struct hl_cb_out out;
};

/**
 * DOC: HL_IOCTL_MEMORY
 *
 * Allocate, free, map, unmap and export memory: HL_MEM_OP_* ops on
 * union hl_mem_args. Compute node only.
 */

/*
 * MEMORY ioctl opcodes (struct hl_mem_in.op), upstream's numbers.
 */
#define HL_MEM_OP_ALLOC			0
#define HL_MEM_OP_FREE			1
#define HL_MEM_OP_MAP			2
#define HL_MEM_OP_UNMAP			3
#define HL_MEM_OP_MAP_BLOCK		4	/* -EOPNOTSUPP: no HW blocks */
#define HL_MEM_OP_EXPORT_DMABUF_FD	5
#define HL_MEM_OP_TS_ALLOC		6	/* -EOPNOTSUPP: no user interrupts */

/*
 * A page of device memory (of the allocation's page size) may be in at
 * most this many importer mappings at a time, through every dma-buf export
 * of its allocation together; the importer's dma_buf_map_attachment() that
 * would map a page once more fails with -EBUSY (for an RDMA NIC: the MR
 * registration fails). Each mapping is a dma_map_resource() of the BAR
 * range for the importer, and DMA-API debugging tracks at most 8
 * overlapping mappings of an address.
 */
#define HL_DMABUF_MAX_PAGE_MAPS		8

/* Flags of struct hl_mem_in.flags */
#define HL_MEM_CONTIGUOUS	0x1	/* ALLOC: one physically contiguous range */
#define HL_MEM_SHARED		0x2	/* ALLOC: accepted, no effect (upstream) */
#define HL_MEM_USERPTR		0x4	/* MAP: map host memory (map_host) */
#define HL_MEM_FORCE_HINT	0x8	/* MAP: fail with -EBUSY if hint is taken */

/**
 * struct hl_mem_in - input of HL_IOCTL_MEMORY. The bytes of the union past
 * the member of the op (and, for HL_MEM_OP_MAP, of the flags) must be zero.
 * @alloc: HL_MEM_OP_ALLOC - allocate device memory. Without a DRAM MMU
 *	(asic=gaudi), as upstream's GAUDI: only accounts @alloc.mem_size
 *	(DRAM_USAGE) and returns handle 0; the user addresses DRAM
 *	physically (HL_INFO_HW_IP_INFO dram_base_address).
 * @alloc.mem_size: bytes to allocate, > 0; rounded up to the page size.
 * @alloc.page_size: 0 for the default DRAM page size, else that size.
 * @free: HL_MEM_OP_FREE - free device memory.
 * @free.handle: the handle returned by HL_MEM_OP_ALLOC; without a DRAM MMU,
 *	the size to take back from the accounting (at most what the context
 *	accounted; upstream reads the same bytes as alloc.mem_size).
 * @map_device: HL_MEM_OP_MAP without HL_MEM_USERPTR - map device memory.
 * @map_device.hint_addr: requested device virtual address, or 0.
 * @map_device.handle: the handle returned by HL_MEM_OP_ALLOC (without a
 *	DRAM MMU there is none: -EINVAL).
 * @map_host: HL_MEM_OP_MAP with HL_MEM_USERPTR - pin and map host memory.
 *	The pinned pages are charged to the caller's locked memory
 *	(RLIMIT_MEMLOCK, as mlock and RDMA memory registration are, shown
 *	as VmPin in /proc/PID/status) until UNMAP or close; past the limit,
 *	without CAP_IPC_LOCK, -ENOMEM. A buffer larger than the machine's
 *	RAM is -ENOMEM before anything is pinned.
 * @map_host.host_virt_addr: start of the host buffer.
 * @map_host.hint_addr: requested device virtual address, or 0.
 * @map_host.mem_size: size of the host buffer, > 0; the buffer must lie
 *	in the user address space (else -EINVAL).
 * @map_block: HL_MEM_OP_MAP_BLOCK - upstream maps a hardware block's
 *	registers for mmap(); the emulated device exposes none: -EOPNOTSUPP.
 * @map_block.block_addr: the block's address.
 * @unmap: HL_MEM_OP_UNMAP - remove a mapping.
 * @unmap.device_virt_addr: the address returned by HL_MEM_OP_MAP.
 * @export_dmabuf_fd: HL_MEM_OP_EXPORT_DMABUF_FD - export device memory.
 * @export_dmabuf_fd.addr: device virtual address of a mapped DRAM allocation;
 *	without a DRAM MMU (asic=gaudi) a DRAM physical address, page aligned,
 *	with [addr, addr + mem_size) inside the user DRAM and @offset 0.
 * @export_dmabuf_fd.mem_size: bytes to export.
 * @export_dmabuf_fd.offset: offset of the exported range from @addr.
 * @op: one of HL_MEM_OP_*.
 * @flags: HL_MEM_* flags; for HL_MEM_OP_EXPORT_DMABUF_FD the dma-buf file
 *	flags (O_RDWR, O_CLOEXEC).
 * @ctx_id: must be 0.
 * @num_of_elements: HL_MEM_OP_TS_ALLOC: upstream's number of timestamp
 *	elements (the op is -EOPNOTSUPP here); else must be 0.
 * @pad: the name of @num_of_elements before this driver had TS_ALLOC.
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
			__u64 block_addr;
		} map_block;

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
	union {
		__u32 num_of_elements;
		__u32 pad;
	};
};

/**
 * struct hl_mem_out - output of HL_IOCTL_MEMORY.
 * @device_virt_addr: Returned by HL_MEM_OP_MAP: the device virtual address.
 * @handle: Returned by HL_MEM_OP_ALLOC: the allocation's handle (never 0).
 * @block_handle: upstream's HL_MEM_OP_MAP_BLOCK: the mmap offset of the
 *	block (never returned here).
 * @block_size: upstream's HL_MEM_OP_MAP_BLOCK: the block's size.
 * @block_pad: Returned as zero (upstream's name: pad).
 * @fd: Returned by HL_MEM_OP_EXPORT_DMABUF_FD: the dma-buf file descriptor.
 * @pad: Returned as zero.
 */
struct hl_mem_out {
	union {
		__u64 device_virt_addr;
		__u64 handle;
		struct {
			__u64 block_handle;
			__u32 block_size;
			__u32 block_pad;
		};
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
 *
 * Compute node only (the control node answers -ENOTTY). Errors of
 * HL_IOCTL_MEMORY:
 *   -EINVAL  unknown op or flag, reserved field set, non-zero bytes in the
 *            part of the union the op does not use, zero or overflowing
 *            size, host buffer outside the user address space, bad page
 *            size, unknown handle or VA, misaligned forced hint or one
 *            outside the VA range; EXPORT_DMABUF_FD of an address that is
 *            not a mapped device-memory allocation, an offset or size that
 *            is not a multiple of the host page size or leaves the
 *            allocation, flags other than O_RDWR and O_CLOEXEC; without
 *            a DRAM MMU: MAP of device memory, EXPORT_DMABUF_FD of an
 *            unaligned address, a range not in the user DRAM, a non-zero
 *            offset
 *   -ENOMEM  not enough DRAM, VA space or page-table space (without a
 *            DRAM MMU: ALLOC past the user DRAM); host memory
 *            past RLIMIT_MEMLOCK (without CAP_IPC_LOCK) or of more pages
 *            than the machine's RAM
 *   -EBUSY   FREE of a mapped or exported allocation; UNMAP of an exported
 *            mapping or of one that a NIC memory region (HL_NIC_OP_REG_MR)
 *            lies in; MAP with HL_MEM_FORCE_HINT whose hint is taken
 *   -EOPNOTSUPP MAP_BLOCK and TS_ALLOC (upstream's ops for hardware blocks
 *            and interrupt timestamps, which the emulated device has not)
 *   -EMFILE  EXPORT_DMABUF_FD with no free file descriptor
 *   -EFAULT  host memory that cannot be pinned; an argument that cannot be
 *            written back (nothing done, or undone)
 *   -EINTR   a fatal signal while pinning; a signal while ALLOC waited
 *            for DRAM being scrubbed (libhlthunk retries)
 *   -ENODEV  the device is gone or was reset under this file, also while
 *            the call waited on user memory (pinning it, or the copy
 *            back): what the call made went with the file's context
 */
union hl_mem_args {
	struct hl_mem_in in;
	struct hl_mem_out out;
};

/**
 * DOC: HL_IOCTL_CS
 *
 * Submit jobs to engine queues: each job is a command buffer of packets
 * (habanalabs_pkt.h) that one queue fetches through the device MMU. The
 * call returns a sequence number for HL_IOCTL_WAIT_CS. Compute node only.
 */

/* Maximum number of chunks in one command submission (upstream's) */
#define HL_MAX_JOBS_PER_CS	512

/*
 * Jobs an external queue (GAUDI's DMA 0 and 1 streams) holds at most, of a
 * context's submissions not completed: one entry per job (upstream's queue
 * depth). A submission that does not fit fails with -EAGAIN (a queue-full
 * drop, struct hl_info_cs_counters) until earlier ones complete.
 */
#define HL_EXT_QUEUE_LENGTH	4096

/*
 * struct hl_cs_chunk.cs_chunk_flags: upstream's. USER_ALLOC_CB is accepted
 * and, as upstream's for every queue that is not of GAUDI2's type HW,
 * changes nothing: an internal queue's cb_handle is always a device VA (or
 * a mapped CB), an external queue's always a kernel CB's handle.
 */
#define HL_CS_CHUNK_FLAGS_USER_ALLOC_CB	0x1

/**
 * struct hl_cs_chunk - one job of a command submission.
 * @cb_handle: on an internal queue, the device virtual address of the
 *	command buffer: packets the queue fetches through the device MMU
 *	(the buffer may be host memory mapped with HL_MEM_USERPTR, or device
 *	memory); or the handle of a command buffer HL_IOCTL_CB created with
 *	HL_CB_FLAGS_MAP. On an external queue (asic=gaudi: GAUDI's DMA 0-1),
 *	the handle of a command buffer of the caller's (HL_IOCTL_CB, mapped
 *	or not), whose first @cb_size bytes the driver copies at the
 *	submission: the queue runs that copy, so what the caller writes into
 *	the CB afterwards changes nothing of this CS. A CB named by handle is
 *	kept, and counted in its usage count, until the CS completes (also
 *	when its handle is destroyed meanwhile); @cb_size must not exceed the
 *	CB's size.
 * @signal_seq_arr: HL_CS_FLAGS_WAIT, HL_CS_FLAGS_COLLECTIVE_WAIT: user
 *	pointer to the sequence numbers of the signal CSs to wait for
 *	(exactly one, as upstream).
 * @encaps_signal_seq: HL_CS_FLAGS_WAIT or HL_CS_FLAGS_COLLECTIVE_WAIT
 *	with HL_CS_FLAGS_ENCAP_SIGNALS:
 *	the sequence number of the CS that gives the reserved signals to
 *	wait for (upstream's).
 * @queue_index: engine queue that executes the job (SIGNAL, WAIT: the
 *	queue that signals or waits; COLLECTIVE_WAIT: the collective master,
 *	an external queue under asic=gaudi, whose stream names the slaves).
 * @cb_size: size of the command buffer in bytes, a multiple of 8.
 * @num_signal_seq_arr: HL_CS_FLAGS_WAIT, HL_CS_FLAGS_COLLECTIVE_WAIT:
 *	entries at @signal_seq_arr (upstream takes exactly 1).
 * @encaps_signal_offset: HL_CS_FLAGS_WAIT or HL_CS_FLAGS_COLLECTIVE_WAIT
 *	with HL_CS_FLAGS_ENCAP_SIGNALS:
 *	which of the reserved signals to wait for, counted from 1 (0 means
 *	1, as upstream); past the reservation's count: -EINVAL.
 * @cs_chunk_flags: 0 or HL_CS_CHUNK_FLAGS_USER_ALLOC_CB (which changes
 *	nothing, as upstream's on GAUDI); any other bit: -EINVAL.
 * @collective_engine_id: HL_CS_FLAGS_COLLECTIVE_WAIT: the reduction
 *	engine that is the master's last slave, GAUDI_ENGINE_ID_DMA_5 or
 *	GAUDI_ENGINE_ID_TPC_7 (upstream's; any other: -EINVAL); else must
 *	be 0 (a CS of jobs), or is ignored (SIGNAL, WAIT, as upstream).
 * @pad: must be 0.
 */
struct hl_cs_chunk {
	union {
		__u64 cb_handle;
		__u64 signal_seq_arr;
		__u64 encaps_signal_seq;
	};
	__u32 queue_index;
	union {
		__u32 cb_size;
		__u32 num_signal_seq_arr;
		__u32 encaps_signal_offset;
	};
	__u32 cs_chunk_flags;
	__u32 collective_engine_id;
	__u32 pad[10];
};

/**
 * enum hl_engine_command - hl_cs_in.core_command and engine_command
 * (HL_CS_FLAGS_ENGINE_CORE_COMMAND, HL_CS_FLAGS_ENGINES_COMMAND; upstream's
 * GAUDI2 commands, refused here).
 * @HL_ENGINE_CORE_HALT: halt the engine cores.
 * @HL_ENGINE_CORE_RUN: let the engine cores run.
 * @HL_ENGINE_STALL: stall the engines.
 * @HL_ENGINE_RESUME: resume the engines.
 * @HL_ENGINE_COMMAND_MAX: one past the last command.
 */
enum hl_engine_command {
	HL_ENGINE_CORE_HALT = 1,
	HL_ENGINE_CORE_RUN = 2,
	HL_ENGINE_STALL = 3,
	HL_ENGINE_RESUME = 4,
	HL_ENGINE_COMMAND_MAX
};

/**
 * struct hl_cs_in - input of HL_IOCTL_CS.
 * @chunks_restore: user pointer to the restore chunks (struct
 *	hl_cs_chunk, as @chunks_execute's), read only in a restore phase:
 *	the context's first CS (a context switch), or a CS with
 *	HL_CS_FLAGS_FORCE_RESTORE; else ignored.
 * @chunks_execute: user pointer to an array of struct hl_cs_chunk.
 * @engine_cores: HL_CS_FLAGS_ENGINE_CORE_COMMAND: user pointer to the
 *	__u32 ids of the engine cores (upstream's; refused here).
 * @num_engine_cores: entries at @engine_cores.
 * @core_command: enum hl_engine_command for the engine cores.
 * @engines: HL_CS_FLAGS_ENGINES_COMMAND: user pointer to the __u32 ids of
 *	the engines (upstream's; refused here).
 * @num_engines: entries at @engines.
 * @engine_command: enum hl_engine_command for the engines.
 * @seq: HL_CS_FLAGS_STAGED_SUBMISSION without _FIRST: the sequence number
 *	of the staged submission's first part (upstream's); else must be 0
 *	(but for the fields that share its place).
 * @encaps_sig_handle_id: HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY, and a CS of
 *	jobs with HL_CS_FLAGS_ENCAP_SIGNALS: the handle id of the reserved
 *	signals (upstream's; the upper half of @seq must be 0).
 * @encaps_signals_count: HL_CS_FLAGS_RESERVE_SIGNALS_ONLY: how many signals
 *	to reserve (upstream's).
 * @encaps_signals_q_idx: HL_CS_FLAGS_RESERVE_SIGNALS_ONLY: the queue whose
 *	sync object the signals are reserved on (upstream's).
 * @reserved: this driver's earlier name of @seq.
 * @num_chunks_restore: number of restore chunks, 0 .. HL_MAX_JOBS_PER_CS
 *	(read only in a restore phase, as @chunks_restore).
 * @num_chunks_execute: number of chunks, 1 .. HL_MAX_JOBS_PER_CS.
 * @timeout: job timeout in seconds from the submission, 0 for the
 *	driver default (module parameter timeout_locked); a job still running
 *	then is aborted and its CS completes with an error. Clamped to the
 *	module parameter job_timeout_max (default 60 s, never 0): no CS runs
 *	longer, so that its fence, which other drivers may wait for through a
 *	dma-buf, signals in bounded time. Honoured with or without
 *	HL_CS_FLAGS_CUSTOM_TIMEOUT (upstream reads it only with the flag).
 * @cs_flags: HL_CS_FLAGS_CUSTOM_TIMEOUT, HL_CS_FLAGS_TIMESTAMP,
 *	HL_CS_FLAGS_FORCE_RESTORE, HL_CS_FLAGS_STAGED_SUBMISSION (+ _FIRST,
 *	_LAST), HL_CS_FLAGS_ENCAP_SIGNALS, and at most one of HL_CS_FLAGS_SIGNAL,
 *	HL_CS_FLAGS_WAIT, HL_CS_FLAGS_COLLECTIVE_WAIT (-EOPNOTSUPP under
 *	asic=emu), HL_CS_FLAGS_RESERVE_SIGNALS_ONLY and
 *	HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY (see their list below); any other
 *	bit: -EINVAL.
 * @ctx_id: must be 0.
 * @pad: must be 0.
 */
struct hl_cs_in {
	union {
		struct {
			__u64 chunks_restore;
			__u64 chunks_execute;
		};
		struct {
			__u64 engine_cores;
			__u32 num_engine_cores;
			__u32 core_command;
		};
		struct {
			__u64 engines;
			__u32 num_engines;
			__u32 engine_command;
		};
	};
	union {
		__u64 seq;
		__u32 encaps_sig_handle_id;
		struct {
			__u32 encaps_signals_count;
			__u32 encaps_signals_q_idx;
		};
		__u64 reserved;
	};
	__u32 num_chunks_restore;
	__u32 num_chunks_execute;
	__u32 timeout;
	__u32 cs_flags;
	__u32 ctx_id;
	__u32 pad;
};

/*
 * struct hl_cs_in.cs_flags, upstream's bits. This driver serves
 * CUSTOM_TIMEOUT (@timeout is set; hl-thunk sets it), TIMESTAMP (accepted:
 * every CS records its completion time, HL_IOCTL_WAIT_CS's
 * timestamp_nsec), FORCE_RESTORE, STAGED_SUBMISSION (+ _FIRST, _LAST),
 * SIGNAL, WAIT, ENCAP_SIGNALS, RESERVE_SIGNALS_ONLY and
 * UNRESERVE_SIGNALS_ONLY, and COLLECTIVE_WAIT under asic=gaudi (under
 * asic=emu it is -EOPNOTSUPP: that ASIC has no NIC or reduction engine
 * queues for the slaves); every other one is -EINVAL. The kinds
 * (SIGNAL, WAIT, COLLECTIVE_WAIT, RESERVE_ and
 * UNRESERVE_SIGNALS_ONLY, ENGINE_CORE_COMMAND, ENGINES_COMMAND,
 * FLUSH_PCI_HBW_WRITES) are mutually exclusive (-EINVAL):
 * FORCE_RESTORE            - run the restore chunks even without a context
 *                            switch
 * SIGNAL                   - one chunk: signal the queue's sync object
 *                            (out: sob_base_addr_offset,
 *                            sob_count_before_submission)
 * WAIT                     - one chunk: make the queue wait for signal CSs
 *                            (chunk signal_seq_arr) or reserved signals
 *                            (with ENCAP_SIGNALS)
 * COLLECTIVE_WAIT          - one chunk: the collective master (an
 *                            external queue, DMA 0-1) waits until its
 *                            slaves, the queues of its stream of every
 *                            NIC port's engine and of chunk
 *                            collective_engine_id (DMA 5 or TPC 7), each
 *                            waited for the signal CS (chunk
 *                            signal_seq_arr) or reserved signal (with
 *                            ENCAP_SIGNALS) and then signalled the
 *                            master's SOB group; the CS completes after
 *                            the master (docs/uapi.md)
 * TIMESTAMP                - record the completion time of the CS
 * STAGED_SUBMISSION        - one part of a staged submission (_FIRST: the
 *                            first, whose seq names them all; _LAST: the
 *                            last); the parts complete together
 * SKIP_RESET_ON_TIMEOUT    - no device reset when the CS times out
 * ENCAP_SIGNALS            - on a CS of jobs: its packets give the
 *                            reserved signals encaps_sig_handle_id; with
 *                            WAIT: wait for reserved signals
 * RESERVE_SIGNALS_ONLY     - reserve encaps_signals_count signals on queue
 *                            encaps_signals_q_idx (out: handle_id, count,
 *                            sob_base_addr_offset); nothing runs
 * UNRESERVE_SIGNALS_ONLY   - release reserved signals encaps_sig_handle_id
 * ENGINE_CORE_COMMAND      - send core_command to the engine cores
 * FLUSH_PCI_HBW_WRITES     - flush the device's PCIe writes to the host
 * ENGINES_COMMAND          - send engine_command to the engines
 *
 * SIGNAL and WAIT (upstream's sync stream, on the sync manager of
 * habanalabs_pkt.h): exactly one chunk (-EINVAL), whose queue_index must
 * be a queue of sync streams (-EINVAL): any queue of the emulated ASIC;
 * under asic=gaudi, as on GAUDI, only the external ones (DMA 0-1,
 * GAUDI_QUEUE_ID_DMA_0_0 .. DMA_1_3); RESERVE_SIGNALS_ONLY's
 * encaps_signals_q_idx the same; cb_handle and cb_size mean nothing, the driver
 * writes the command buffer. A SIGNAL adds 1 to the queue's signal sync
 * object once every job queued before it on that queue has run; it
 * returns out.seq, out.sob_base_addr_offset (the SOB's offset from
 * HL_CFG_BASE; under asic=gaudi a SOB of the W_S block, as upstream's:
 * SOB 128 + 2 * queue + which of its two) and
 * out.sob_count_before_submission (its count before this signal). The
 * driver keeps two SOBs per queue and switches to the other one when a
 * SOB would pass HL_SM_SOB_MAX_VAL. A WAIT names one SIGNAL
 * of the same context by its sequence number (chunk signal_seq_arr points
 * to it, num_signal_seq_arr must be 1; an unreadable pointer: -EFAULT):
 * the chunk's queue runs nothing queued after the WAIT until that SIGNAL
 * has run. A sequence number not handed out, or of a CS that is no
 * SIGNAL: -EINVAL. A SIGNAL already complete (or failed, or forgotten
 * after 1024 newer submissions) makes no CS: the call returns 0 with
 * out.seq U64_MAX (which HL_IOCTL_WAIT_CS refuses, -EINVAL), as upstream's
 * does. The WAIT's CS keeps its timeout: a signal that does not come
 * fails it (TIMEDOUT) at its deadline, and it never waits longer than
 * job_timeout_max. Concurrent SIGNALs of one context are serialised from
 * their submission to the queueing of their job (also across the copy of
 * the output): a queue's SOB counts them in the order of their values.
 * A SIGNAL that fails before its job runs (its output not copied, the
 * device gone) gives its value back; a WAIT on it reads as complete.
 * A SIGNAL whose job is aborted once queued (its deadline passed while
 * its queue was busy, its context closing) never adds its 1: later WAITs
 * on that queue's SOB are released one signal late, or time out (upstream
 * resets the device at a CS timeout; this driver does not).
 *
 * Encapsulated signals (upstream's): RESERVE_SIGNALS_ONLY reserves
 * encaps_signals_count (1 .. HL_SM_SOB_MAX_VAL - 1) values of queue
 * encaps_signals_q_idx's signal SOB; nothing runs. It returns
 * out.handle_id (1 .. 1024 per context; ids belong to the context and die
 * with it), out.count (the count reserved), out.sob_base_addr_offset (the
 * SOB's offset from HL_CFG_BASE) and out.sob_count_before_submission (the
 * SOB's count before them). The SIGNALs after it count past the reserved
 * values; one that would pass HL_SM_SOB_MAX_VAL switches to the queue's
 * other SOB, set to 0 at once. UNRESERVE_SIGNALS_ONLY releases
 * encaps_sig_handle_id and gives its values back; it must be the queue's
 * last reservation or signal, no CS may give it yet, and the id must be
 * the caller's (else -EINVAL). A CS of jobs with ENCAP_SIGNALS names a
 * reservation (encaps_sig_handle_id) that no CS gives yet (-EINVAL); its
 * own packets give the signals (each a MSG_LONG adding 1 to the SOB); the
 * reservation is released when the CS completes. A WAIT with ENCAP_SIGNALS
 * names that CS (chunk encaps_signal_seq) and the signal
 * (encaps_signal_offset, 1 .. count): the queue runs nothing queued after
 * it until the SOB reached that signal's value. A CS already complete
 * makes no CS (out.seq U64_MAX), as a SIGNAL does; a sequence number not
 * handed out, or an offset past the count: -EINVAL.
 *
 * The restore phase (upstream's context switch): on the context's first CS
 * (of any kind), and on every CS with FORCE_RESTORE, the restore chunks
 * (chunks_restore, num_chunks_restore; none is fine) run first, as a CS of
 * their own, which takes the next sequence number and which the call waits
 * for; then the call goes on with what it was asked (the execute chunks'
 * CS gets the number after it). On the emulated device a context switch
 * does nothing else: a context has its device alone, and the sync
 * manager, the fences and the TLBs were reset when the previous owner was
 * torn down. Errors of the phase: those of a CS of jobs for the restore
 * chunks (more than HL_MAX_JOBS_PER_CS: -EINVAL; an unreadable array:
 * -EFAULT), -ENOEXEC when the restore CS fails (upstream's), -EINTR when
 * the wait is interrupted; nothing else of the call runs then, and the
 * context's next CS runs the phase again. Upstream 6.12 runs the phase on
 * a first CS only for GOYA (GAUDI's driver does not claim context
 * switches: only FORCE_RESTORE runs it there).
 *
 * Staged submissions (upstream's): a CS of jobs with STAGED_SUBMISSION is
 * one part of a staged submission. The first part (_FIRST) gets a
 * sequence number as any CS; every later part names it in @seq and
 * returns it in out.seq (it takes a sequence number of its own, never
 * handed out); the last part (_LAST) closes the submission. HL_IOCTL_WAIT_CS
 * on that number completes once every part has completed, the last
 * included, with the first error of any part. The time limit runs from the
 * first part's commit with the first part's timeout for every part (a
 * later part's own timeout is ignored); a submission whose last part has
 * not come by then fails (-ETIMEDOUT: TIMEDOUT) and takes no part any more,
 * as one left open when its context is torn down (-ECANCELED). -EINVAL: a
 * later part whose @seq is no open staged submission of the context
 * (never one, a plain CS, closed by its last part or its timeout), or one
 * with ENCAP_SIGNALS (the first part may give reserved signals; they are
 * released when the whole submission completes). Without STAGED_SUBMISSION,
 * _FIRST and _LAST mean nothing, and a part that is both first and last is
 * a plain CS (upstream's); the kinds (SIGNAL, WAIT, ...) ignore the staged
 * flags. Every part counts in max_pending_cs. Unlike upstream's GAUDI, a
 * CS (a last part too) may have internal queues only: the emulated
 * device completes every queue's jobs.
 */
#define HL_CS_FLAGS_FORCE_RESTORE		0x1
#define HL_CS_FLAGS_SIGNAL			0x2
#define HL_CS_FLAGS_WAIT			0x4
#define HL_CS_FLAGS_COLLECTIVE_WAIT		0x8
#define HL_CS_FLAGS_TIMESTAMP			0x20
#define HL_CS_FLAGS_STAGED_SUBMISSION		0x40
#define HL_CS_FLAGS_STAGED_SUBMISSION_FIRST	0x80
#define HL_CS_FLAGS_STAGED_SUBMISSION_LAST	0x100
#define HL_CS_FLAGS_CUSTOM_TIMEOUT		0x200
#define HL_CS_FLAGS_SKIP_RESET_ON_TIMEOUT	0x400
#define HL_CS_FLAGS_ENCAP_SIGNALS		0x800
#define HL_CS_FLAGS_RESERVE_SIGNALS_ONLY	0x1000
#define HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY	0x2000
#define HL_CS_FLAGS_ENGINE_CORE_COMMAND		0x4000
#define HL_CS_FLAGS_FLUSH_PCI_HBW_WRITES	0x8000
#define HL_CS_FLAGS_ENGINES_COMMAND		0x10000

#define HL_CS_STATUS_SUCCESS		0

/**
 * struct hl_cs_out - output of HL_IOCTL_CS. 24 bytes since upstream's
 * signal fields came; a caller that passes the 16 bytes of before gets
 * those (the ioctl's size is negotiated).
 * @seq: Returned sequence number of the submission, for HL_IOCTL_WAIT_CS.
 * @handle_id: HL_CS_FLAGS_RESERVE_SIGNALS_ONLY: Returned handle id of the
 *	reserved signals (upstream's), 1 .. 1024.
 * @count: HL_CS_FLAGS_RESERVE_SIGNALS_ONLY: Returned number of signals
 *	reserved (upstream returns the SOB's next value).
 * @status: Returned HL_CS_STATUS_SUCCESS.
 * @sob_base_addr_offset: HL_CS_FLAGS_SIGNAL, RESERVE_SIGNALS_ONLY: Returned
 *	offset of the sync object used (upstream's); else Returned as zero.
 *	It takes the place of this driver's earlier @pad (Returned as zero):
 *	upstream's layout wins.
 * @sob_count_before_submission: HL_CS_FLAGS_SIGNAL, RESERVE_SIGNALS_ONLY:
 *	Returned value of the sync object before this submission's signal or
 *	reservation (upstream's for SIGNAL); else Returned as zero.
 * @pad: Returned as zero.
 */
struct hl_cs_out {
	union {
		__u64 seq;
		struct {
			__u32 handle_id;
			__u32 count;
		};
	};
	__u32 status;
	__u32 sob_base_addr_offset;
	__u16 sob_count_before_submission;
	__u16 pad[3];
};

/**
 * union hl_cs_args - argument of HL_IOCTL_CS.
 * @in: input.
 * @out: output.
 *
 * Compute node only. Errors of HL_IOCTL_CS:
 *   -EINVAL  a non-zero seq (but for the fields sharing its place) or
 *            ctx_id, a cs_flags bit other
 *            than those served (see the list above the HL_CS_FLAGS_*),
 *            two kinds of CS at once, restore chunks,
 *            num_chunks_execute not in 1 .. HL_MAX_JOBS_PER_CS, or a chunk
 *            with a bad queue_index (num_queues and above, or under
 *            asic=gaudi the device CPU's queue or a queue not
 *            applicable: HW_IP_INFO's num_queues), a cb_size that is 0, not a multiple
 *            of 8 or above 2 MiB, or beyond the CB it names, a flag
 *            other than USER_ALLOC_CB, non-zero collective_engine_id or
 *            pad, on an external queue a cb_handle that is no handle of
 *            a CB of the caller's (a device VA, a destroyed handle,
 *            another context's), on an internal one the handle of a CB
 *            not mapped into the MMU; SIGNAL and WAIT: not exactly one
 *            chunk, a bad
 *            queue_index or one without sync streams, num_signal_seq_arr not 1, a signal seq not
 *            handed out or not of a SIGNAL; COLLECTIVE_WAIT: the same,
 *            a queue_index that is no collective master (any but the
 *            external queues), a collective_engine_id other than
 *            GAUDI_ENGINE_ID_DMA_5 and _TPC_7, a device without NIC
 *            ports; RESERVE_SIGNALS_ONLY: a count
 *            of 0 or HL_SM_SOB_MAX_VAL and above, a bad queue, 1024
 *            reservations held; UNRESERVE_SIGNALS_ONLY: an id the context
 *            does not hold, one a CS gives, or one whose values are not
 *            the queue's last; ENCAP_SIGNALS: with SIGNAL or a
 *            reservation kind, an id the context does not hold or that a
 *            CS gives already, a WAIT's offset past the reservation;
 *            STAGED_SUBMISSION: a later part naming no open staged
 *            submission, or with ENCAP_SIGNALS; a restore phase's
 *            restore chunks as the execute chunks';
 *   -ENOEXEC the restore phase's CS failed;
 *   -EOPNOTSUPP HL_CS_FLAGS_COLLECTIVE_WAIT under asic=emu (no
 *            collective queues);
 *   -EFAULT  the chunk array, or a WAIT's signal_seq_arr, cannot be read;
 *   -EAGAIN  max_pending_cs (module parameter, default 1024) submissions of
 *            the context have not completed yet; an external queue has
 *            no room for the CS's jobs on it (HL_EXT_QUEUE_LENGTH); the
 *            driver's copies of the CBs of external queues' jobs would
 *            pass 256 MiB with those of the context's submissions not
 *            completed; a COLLECTIVE_WAIT that starts its master's next
 *            round of 32767 values (or the next after a failed
 *            collective wait of the round) while the last collective
 *            wait of that SOB group's previous round still runs;
 *   -ENOMEM  no memory; the CS's own CB copies (the cb_size of its
 *            external queues' chunks) pass 256 MiB;
 *   -EINTR   interrupted while waiting for the reservation lock, or a
 *            SIGNAL for the previous SIGNAL of the context (nothing was
 *            submitted);
 *   -ENODEV  the device is gone or was reset under this file (it can only
 *            be closed), also while the call waited on user memory (the
 *            chunk array, or the copy back): nothing runs then.
 *
 * The jobs are queued only after the sequence number reached user space:
 * if the copy back fails (-EFAULT), or the device goes away meanwhile, they
 * fail without running. The CS's fence becomes visible (HL_IOCTL_WAIT_CS,
 * the reservation object of the context's dma-buf exports and the
 * sync_files made from it) only then, together with the queueing of its
 * jobs, and the job time limit counts from then: no fence waits for user
 * space. MMU faults and malformed packets are not errors of the ioctl: the
 * CS completes with an error that HL_IOCTL_WAIT_CS reports.
 */
union hl_cs_args {
	struct hl_cs_in in;
	struct hl_cs_out out;
};

/**
 * DOC: HL_IOCTL_WAIT_CS
 *
 * Wait for a command submission, by the sequence number HL_IOCTL_CS
 * returned. Compute node only.
 */

/**
 * struct hl_wait_cs_in - input of HL_IOCTL_WAIT_CS. 56 bytes since
 * upstream's interrupt fields came; a caller that passes the 32 bytes of
 * before is served as before (the ioctl's size is negotiated).
 * @seq: sequence number returned by HL_IOCTL_CS; with
 *	HL_WAIT_CS_FLAGS_MULTI_CS, a user pointer to an array of
 *	@seq_arr_len sequence numbers.
 * @timeout_us: how long to wait, in microseconds; 0 only polls.
 * @addr: HL_WAIT_CS_FLAGS_INTERRUPT: user address of the 64-bit counter to
 *	wait on (upstream's; refused here: no user interrupts).
 * @cq_counters_handle: HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ: handle of the
 *	driver's CQ counters buffer (upstream's).
 * @target: HL_WAIT_CS_FLAGS_INTERRUPT: the counter value to wait for.
 * @ctx_id: must be 0.
 * @flags: 0 or HL_WAIT_CS_FLAGS_MULTI_CS; upstream's interrupt flags
 *	(HL_WAIT_CS_FLAGS_INTERRUPT and the interrupt id in
 *	HL_WAIT_CS_FLAGS_INTERRUPT_MASK, INTERRUPT_KERNEL_CQ,
 *	REGISTER_INTERRUPT) are -EINVAL.
 * @seq_arr_len: HL_WAIT_CS_FLAGS_MULTI_CS: number of sequence numbers, 1 ..
 *	HL_WAIT_MULTI_CS_LIST_MAX_LEN; else must be 0.
 * @pad: must be 0.
 * @interrupt_timeout_us: HL_WAIT_CS_FLAGS_INTERRUPT: how long to wait, in
 *	microseconds (upstream's; shares the place of @seq_arr_len and @pad).
 * @cq_counters_offset: HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ: offset of the
 *	counter in @cq_counters_handle's buffer (upstream's); must be 0.
 * @timestamp_handle: HL_WAIT_CS_FLAGS_REGISTER_INTERRUPT: handle of an
 *	HL_MEM_OP_TS_ALLOC buffer (upstream's); must be 0.
 * @timestamp_offset: HL_WAIT_CS_FLAGS_REGISTER_INTERRUPT: offset of the
 *	element in @timestamp_handle's buffer (upstream's); must be 0.
 */
struct hl_wait_cs_in {
	union {
		struct {
			__u64 seq;
			__u64 timeout_us;
		};
		struct {
			union {
				__u64 addr;
				__u64 cq_counters_handle;
			};
			__u64 target;
		};
	};
	__u32 ctx_id;
	__u32 flags;
	union {
		struct {
			__u8 seq_arr_len;
			__u8 pad[7];
		};
		__u64 interrupt_timeout_us;
	};
	__u64 cq_counters_offset;
	__u64 timestamp_handle;
	__u64 timestamp_offset;
};

/*
 * struct hl_wait_cs_in.flags: wait for the first of several CSs (upstream's
 * bit): the call returns as soon as at least one of them has completed,
 * successfully or not, with out.cs_completion_map telling which.
 */
#define HL_WAIT_CS_FLAGS_MULTI_CS	0x4
#define HL_WAIT_MULTI_CS_LIST_MAX_LEN	32

/*
 * struct hl_wait_cs_in.flags, upstream's interrupt waits (-EINVAL here: the
 * emulated device raises no user interrupts):
 * INTERRUPT           - wait until the counter at in.addr reaches in.target
 *                       or the interrupt in HL_WAIT_CS_FLAGS_INTERRUPT_MASK
 *                       fires (ANY_CQ_INTERRUPT, ANY_DEC_INTERRUPT: any)
 * INTERRUPT_KERNEL_CQ - the counter is in a driver CQ counters buffer
 *                       (in.cq_counters_handle, in.cq_counters_offset)
 * REGISTER_INTERRUPT  - do not wait: write the completion time into the
 *                       timestamp buffer element (in.timestamp_handle,
 *                       in.timestamp_offset) when the interrupt fires
 */
#define HL_WAIT_CS_FLAGS_INTERRUPT		0x2
#define HL_WAIT_CS_FLAGS_INTERRUPT_MASK		0xFFF00000
#define HL_WAIT_CS_FLAGS_ANY_CQ_INTERRUPT	0xFFF00000
#define HL_WAIT_CS_FLAGS_ANY_DEC_INTERRUPT	0xFFE00000
#define HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ	0x10
#define HL_WAIT_CS_FLAGS_REGISTER_INTERRUPT	0x20

#define HL_WAIT_CS_STATUS_COMPLETED	0
#define HL_WAIT_CS_STATUS_BUSY		1
#define HL_WAIT_CS_STATUS_TIMEDOUT	2
#define HL_WAIT_CS_STATUS_ABORTED	3

/* struct hl_wait_cs_out.flags, upstream's bits */
#define HL_WAIT_CS_STATUS_FLAG_GONE		0x1
#define HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD	0x2

/**
 * struct hl_wait_cs_out - output of HL_IOCTL_WAIT_CS.
 * @status: Returned HL_WAIT_CS_STATUS_*: COMPLETED, BUSY (still running when
 *	@timeout_us ran out), TIMEDOUT (a job of the CS was still running at
 *	its deadline, the CS's timeout, and was stopped, as upstream's TDR:
 *	the ioctl also returns -ETIMEDOUT), or ABORTED (the CS failed
 *	otherwise: the ioctl also returns -EIO; HL_INFO_PAGE_FAULT_EVENT tells
 *	of an MMU fault). A CS
 *	that has not finished is never reported COMPLETED; one that finished
 *	more than 1024 submissions ago may be forgotten and reads as
 *	COMPLETED with a zero timestamp and HL_WAIT_CS_STATUS_FLAG_GONE, even
 *	if it had failed; but one submitted with HL_CS_FLAGS_TIMESTAMP, among
 *	the context's last 256 such, reads once (single-CS wait) as it
 *	completed, with its timestamp, TIMEDOUT or ABORTED, and GONE after
 *	that.
 * @flags: Returned HL_WAIT_CS_STATUS_FLAG_* bits: TIMESTAMP_VLD when
 *	@timestamp_nsec holds the completion time, GONE when the CS is no
 *	longer tracked (see @status; no timestamp).
 * @timestamp_nsec: Returned completion time (CLOCK_MONOTONIC) when @flags
 *	has HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD, else 0; with
 *	HL_WAIT_CS_FLAGS_MULTI_CS the earliest completion time among the
 *	completed CSs that still have one.
 * @cs_completion_map: Returned with HL_WAIT_CS_FLAGS_MULTI_CS: bit i is set
 *	when the CS of array entry i has completed (successfully, failed, or
 *	forgotten as GONE); else 0.
 * @pad: Returned as zero.
 *
 * With HL_WAIT_CS_FLAGS_MULTI_CS, @status is COMPLETED when at least one
 * CS of the array completed and none of those failed, ABORTED (the ioctl
 * returns -EIO, as upstream's does for a failed CS) when one of those
 * failed, however it failed (TIMEDOUT is for the single-CS wait), BUSY
 * when none completed within timeout_us; @flags has GONE when a completed
 * one was forgotten, TIMESTAMP_VLD when one had a timestamp.
 */
struct hl_wait_cs_out {
	__u32 status;
	__u32 flags;
	__s64 timestamp_nsec;
	__u32 cs_completion_map;
	__u32 pad;
};

/**
 * union hl_wait_cs_args - argument of HL_IOCTL_WAIT_CS.
 * @in: input.
 * @out: output; also written when the ioctl returns -EIO or -ETIMEDOUT.
 *
 * Compute node only. Errors of HL_IOCTL_WAIT_CS:
 *   -EINVAL  seq 0 or not issued yet (any of the array's; also a CS
 *            whose HL_IOCTL_CS has not returned), a flag other than
 *            HL_WAIT_CS_FLAGS_MULTI_CS (upstream's interrupt flags
 *            included), non-zero ctx_id or pad, cq_counters_offset,
 *            timestamp_handle or timestamp_offset,
 *            seq_arr_len 0 or above HL_WAIT_MULTI_CS_LIST_MAX_LEN with
 *            the flag, non-zero without it;
 *   -EFAULT  (MULTI_CS) the sequence array cannot be read;
 *   -EIO     the CS failed (out.status HL_WAIT_CS_STATUS_ABORTED);
 *   -ETIMEDOUT  (single CS) the CS failed because a job of it was still
 *            running at its deadline (out.status
 *            HL_WAIT_CS_STATUS_TIMEDOUT; the device stays usable);
 *   -ENODEV  the device is gone or was reset under this file (before
 *            the wait started);
 *   -EINTR   a signal arrived while waiting (the argument is left as it
 *            came in; libhlthunk retries).
 * A CS still running when timeout_us runs out is not an error: the ioctl
 * returns 0 with out.status HL_WAIT_CS_STATUS_BUSY.
 */
union hl_wait_cs_args {
	struct hl_wait_cs_in in;
	struct hl_wait_cs_out out;
};

/**
 * DOC: HL_IOCTL_DEBUG
 *
 * Upstream's ioctl of the device's CoreSight trace and profiling blocks
 * (ETR, ETF, STM, funnels, bus monitors, SPMUs) for the profiler. The
 * emulated device has no such block: every valid op fails with
 * -EOPNOTSUPP. The structs are upstream's, so that programs built for it
 * compile unchanged.
 */

/* Largest number of event types of struct hl_debug_params_spmu */
#define HL_DEBUG_MAX_AUX_VALUES		10

/**
 * struct hl_debug_params_etr - HL_DEBUG_OP_ETR input (upstream's).
 * @buffer_address: device address of the trace buffer.
 * @buffer_size: size of the trace buffer.
 * @sink_mode: the ETR's sink mode.
 * @pad: must be 0.
 */
struct hl_debug_params_etr {
	__u64 buffer_address;
	__u64 buffer_size;
	__u32 sink_mode;
	__u32 pad;
};

/**
 * struct hl_debug_params_etf - HL_DEBUG_OP_ETF input (upstream's).
 * @buffer_address: device address of the trace buffer.
 * @buffer_size: size of the trace buffer.
 * @sink_mode: the ETF's sink mode.
 * @pad: must be 0.
 */
struct hl_debug_params_etf {
	__u64 buffer_address;
	__u64 buffer_size;
	__u32 sink_mode;
	__u32 pad;
};

/**
 * struct hl_debug_params_stm - HL_DEBUG_OP_STM input (upstream's).
 * @he_mask: hardware-event enable mask.
 * @sp_mask: stimulus-port enable mask.
 * @id: the trace source id.
 * @frequency: the timestamp frequency.
 */
struct hl_debug_params_stm {
	__u64 he_mask;
	__u64 sp_mask;
	__u32 id;
	__u32 frequency;
};

/**
 * struct hl_debug_params_bmon - HL_DEBUG_OP_BMON input (upstream's).
 * @start_addr0: start of the first address range.
 * @addr_mask0: mask of the first range.
 * @start_addr1: start of the second range.
 * @addr_mask1: mask of the second range.
 * @bw_win: the bandwidth window.
 * @win_capture: the window capture.
 * @id: the trace source id.
 * @control: the monitor's control value.
 * @start_addr2: start of the third range.
 * @end_addr2: end of the third range.
 * @start_addr3: start of the fourth range.
 * @end_addr3: end of the fourth range.
 */
struct hl_debug_params_bmon {
	__u64 start_addr0;
	__u64 addr_mask0;
	__u64 start_addr1;
	__u64 addr_mask1;
	__u32 bw_win;
	__u32 win_capture;
	__u32 id;
	__u32 control;
	__u64 start_addr2;
	__u64 end_addr2;
	__u64 start_addr3;
	__u64 end_addr3;
};

/**
 * struct hl_debug_params_spmu - HL_DEBUG_OP_SPMU input (upstream's).
 * @event_types: the events to count.
 * @event_types_num: entries of @event_types.
 * @pmtrc_val: the PMTRC register value.
 * @trc_ctrl_host_val: the trace control value.
 * @trc_en_host_val: the trace enable value.
 */
struct hl_debug_params_spmu {
	__u64 event_types[HL_DEBUG_MAX_AUX_VALUES];
	__u32 event_types_num;
	__u32 pmtrc_val;
	__u32 trc_ctrl_host_val;
	__u32 trc_en_host_val;
};

/* HL_IOCTL_DEBUG ops (struct hl_debug_args.op), upstream's numbers */
#define HL_DEBUG_OP_ETR		0
#define HL_DEBUG_OP_ETF		1
#define HL_DEBUG_OP_STM		2
#define HL_DEBUG_OP_FUNNEL	3
#define HL_DEBUG_OP_BMON	4
#define HL_DEBUG_OP_SPMU	5
#define HL_DEBUG_OP_TIMESTAMP	6
#define HL_DEBUG_OP_SET_MODE	7

/**
 * struct hl_debug_args - argument of HL_IOCTL_DEBUG.
 * @input_ptr: user pointer to the op's hl_debug_params_* struct.
 * @output_ptr: user pointer to the op's output.
 * @input_size: bytes at @input_ptr.
 * @output_size: bytes at @output_ptr.
 * @op: one of HL_DEBUG_OP_*.
 * @reg_idx: the instance of the block the op configures.
 * @enable: 1 to enable the block, 0 to disable it; HL_DEBUG_OP_SET_MODE:
 *	1 to put the device in debug mode, 0 to take it out (the other
 *	members are not read).
 * @ctx_id: must be 0.
 *
 * Compute node only. HL_DEBUG_OP_SET_MODE is served as upstream's: the
 * device is in debug mode or not, and the owner's close (or a hard reset)
 * takes it out, so that the next owner starts out of it; the emulated
 * device has no block whose behaviour the mode changes. Errors of
 * HL_IOCTL_DEBUG:
 *   -EINVAL     an op above HL_DEBUG_OP_SET_MODE, non-zero @ctx_id,
 *               HL_DEBUG_OP_SET_MODE with @enable above 1;
 *   -EFAULT     HL_DEBUG_OP_SET_MODE to the mode the device is in
 *               (upstream's errno);
 *   -EOPNOTSUPP every other op, in debug mode or not: the emulated device
 *               has no CoreSight blocks;
 *   -ENODEV     the device is gone or was reset under this file.
 */
struct hl_debug_args {
	__u64 input_ptr;
	__u64 output_ptr;
	__u32 input_size;
	__u32 output_size;
	__u32 op;
	__u32 reg_idx;
	__u32 enable;
	__u32 ctx_id;
};

/**
 * DOC: HL_IOCTL_NIC
 *
 * NIC: ports, connections and completion queues (HL_IOCTL_NIC), and the
 * packets that move data between devices (HL_PKT_NIC_SEND, HL_PKT_NIC_RECV).
 *
 * Each device has a fixed number of NIC ports (hl_info_hw_ip_info's
 * num_nic_ports); the fabric cables ports of different devices to each
 * other. HL_INFO_NIC_PORTS tells, per port, its address, whether it is
 * cabled, to which device (module_id) and port, and whether the link is up.
 *
 * A connection (a reliable-connected queue pair) belongs to the compute
 * context that allocated it, is bound to one port, and talks to exactly one
 * connection of the device at the other end of that port's link. Its state
 * machine is the RDMA QP's:
 *
 *   RESET --MODIFY_CONN(INIT)--> INIT --SET_RES_CONN_CTX--> RTR
 *   RTR --SET_REQ_CONN_CTX--> RTS
 *   any --MODIFY_CONN(ERR)--> ERR      any --MODIFY_CONN(RESET)--> RESET
 *
 * Every other transition is -EINVAL. ALLOC_CONN creates a connection in
 * RESET. In RTR the connection receives; in RTS it also sends. Moving to
 * ERR or RESET (or DESTROY_CONN) fails its outstanding work with
 * HL_NIC_CQE_STATUS_FLUSHED; a message that fails moves the connection to
 * ERR. RESET forgets the contexts, so that the connection can be set up
 * again.
 *
 * Data moves by command-buffer packets (habanalabs_pkt.h) run by the engine
 * queues (HL_IOCTL_CS):
 * HL_PKT_NIC_RECV posts a receive buffer to a connection and waits until a
 * message has landed in it; HL_PKT_NIC_SEND waits until the peer connection
 * has a receive posted, then moves the bytes from this device's memory
 * (through its MMU) over the link into the peer's buffer (through the peer's
 * MMU), in MTU-sized packets numbered by PSN, in order. Each message
 * produces a completion entry (struct hl_nic_cqe) in the sender's send CQ
 * and in the receiver's receive CQ (when the connection names one), and
 * its packet's job fails when the message fails, so that its command
 * submission completes with an error (HL_WAIT_CS_STATUS_ABORTED, TIMEDOUT
 * when the message did not complete by the job's deadline). Every
 * wait is bounded by the job's timeout (hl_cs_in.timeout): a send that finds
 * no receive in time completes with HL_NIC_CQE_STATUS_TIMEOUT. Put a RECV
 * and a SEND that the peer's RECV depends on in different queues (or
 * different submissions), as the queue runs its packets one at a time.
 *
 * HL_IOCTL_NIC is served on the compute node only (the control node answers
 * -ENOTTY) and only to the process that opened it (another process, e.g. a
 * child that inherited the descriptor, gets -EPERM). The connections and
 * CQs of a context are destroyed when the compute node is closed.
 *
 * Owners. A connection lives and dies with the context (the owner of the
 * device) that allocated it, on both ends of the link:
 *   - a connection ID is opaque: besides its slot in the context
 *     (HL_NIC_CONN_ID_SLOT()) it carries the context's generation
 *     (HL_NIC_CONN_ID_GEN(), never 0), which the driver gives each new
 *     context and does not give again before 2^22 more contexts were
 *     created. A peer names a connection by the whole ID that ALLOC_CONN
 *     returned; a message is received only by a connection whose
 *     responder context names the sending connection's whole ID (and port
 *     address), so no connection of a later owner of a device can match a
 *     connection set up for an earlier owner's, or be matched by one;
 *   - when a context goes (its compute node is closed, the device is hard
 *     reset or unbound), the fabric stops reaching its connections and
 *     every connection of a peer device whose responder context names one
 *     of them moves to ERR at once: its work in flight completes with
 *     HL_NIC_CQE_STATUS_REMOTE_ERR (HL_NIC_CQE_STATUS_LINK_DOWN when the
 *     device was unbound), work posted later with
 *     HL_NIC_CQE_STATUS_FLUSHED. A waiting CQ_WAIT of the context returns
 *     -ENODEV;
 *   - a new owner sees nothing of its predecessor's connections, CQs or
 *     completions: its IDs are new, and the predecessor's IDs are unknown
 *     to it (-EINVAL).
 * A send naming a peer connection that is set up for another connection
 * (another owner, port or pair) fails at once with
 * HL_NIC_CQE_STATUS_REMOTE_INVALID and leaves that connection untouched.
 *
 * Memory regions and one-sided writes. HL_NIC_OP_REG_MR registers a range
 * of one of the context's mappings with access flags and returns an lkey
 * and an rkey (struct hl_nic_reg_mr_out); HL_PKT_NIC_WRITE and
 * HL_PKT_NIC_WRITE_IMM (habanalabs_pkt.h) write from a region of this
 * context into a region of the peer connection's context, named by its
 * rkey, and WRITE_IMM then completes the peer's oldest posted receive with
 * an immediate value. The keys are checked before any byte moves, the rkey
 * also against the connection the write arrived on (a region with remote
 * access is for one connection, hl_nic_reg_mr_in.conn_id); a violation
 * lands nothing and moves both connections to ERR, and failed rkey checks
 * slow their device down (HL_NIC_RKEY_FREE_FAILS). Regions go
 * with the context (close, hard reset, unbind); a region's mapping cannot
 * be unmapped while it lives.
 */

/*
 * Connection IDs: the slot of a connection in its context (its low
 * HL_NIC_CONN_ID_SLOT_BITS bits) is HL_NIC_MIN_CONN_ID .. HL_NIC_MAX_CONN_ID,
 * so a context has at most HL_NIC_MAX_CONN_ID connections at once; the bits
 * above are the context's generation, never 0. An ID whose slot or
 * generation is 0 names no connection.
 */
#define HL_NIC_MIN_CONN_ID		1
#define HL_NIC_MAX_CONN_ID		1023
#define HL_NIC_CONN_ID_SLOT_BITS	10
#define HL_NIC_CONN_ID_SLOT_MASK	((1u << HL_NIC_CONN_ID_SLOT_BITS) - 1)
#define HL_NIC_CONN_ID_SLOT(id)		((id) & HL_NIC_CONN_ID_SLOT_MASK)
#define HL_NIC_CONN_ID_GEN(id)		((id) >> HL_NIC_CONN_ID_SLOT_BITS)

/* Packet sequence numbers are 24 bits wide and wrap */
#define HL_NIC_PSN_MASK			0xffffffu

/* Work-queue sizes (outstanding sends, posted receives): 1 .. this */
#define HL_NIC_MAX_WQ_SIZE		1024

/* CQ sizes: a power of 2, 1 .. this; CQs per context: at most this */
#define HL_NIC_MAX_CQ_ENTRIES		65536
#define HL_NIC_MAX_CQS			64

/* Largest message of one HL_PKT_NIC_SEND / HL_PKT_NIC_RECV */
#define HL_NIC_MAX_MSG_SIZE		(1ull << 30)

/**
 * enum hl_nic_conn_state - state of a connection (RDMA QP states).
 * @HL_NIC_CONN_STATE_RESET: allocated, no context; takes no work.
 * @HL_NIC_CONN_STATE_INIT: bound to its port; takes no work yet.
 * @HL_NIC_CONN_STATE_RTR: ready to receive (responder context set).
 * @HL_NIC_CONN_STATE_RTS: ready to send and receive (requester context set).
 * @HL_NIC_CONN_STATE_ERR: failed or moved to ERR; its work is flushed.
 */
enum hl_nic_conn_state {
	HL_NIC_CONN_STATE_RESET = 0,
	HL_NIC_CONN_STATE_INIT = 1,
	HL_NIC_CONN_STATE_RTR = 2,
	HL_NIC_CONN_STATE_RTS = 3,
	HL_NIC_CONN_STATE_ERR = 4,
};

/* NIC ioctl opcodes (struct hl_nic_in.op); 0..8 are the upstream series' */
#define HL_NIC_OP_ALLOC_CONN			0
#define HL_NIC_OP_SET_REQ_CONN_CTX		1
#define HL_NIC_OP_SET_RES_CONN_CTX		2
#define HL_NIC_OP_DESTROY_CONN			3
#define HL_NIC_OP_CQ_CREATE			4
#define HL_NIC_OP_CQ_DESTROY			5
#define HL_NIC_OP_CQ_WAIT			6
#define HL_NIC_OP_CQ_POLL			7
#define HL_NIC_OP_CQ_UPDATE_CONSUMED_CQES	8
#define HL_NIC_OP_MODIFY_CONN			9
#define HL_NIC_OP_QUERY_CONN			10
#define HL_NIC_OP_REG_MR			11
#define HL_NIC_OP_DEREG_MR			12

/*
 * Memory regions (HL_NIC_OP_REG_MR): access flags of struct
 * hl_nic_reg_mr_in.access. Reading the region locally (the source of an
 * HL_PKT_NIC_WRITE) needs no flag; REMOTE_WRITE needs LOCAL_WRITE too (as
 * in IB verbs). REMOTE_READ is accepted and kept for RDMA READ, which this
 * device does not have yet.
 */
#define HL_NIC_ACCESS_LOCAL_WRITE	0x1
#define HL_NIC_ACCESS_REMOTE_WRITE	0x2
#define HL_NIC_ACCESS_REMOTE_READ	0x4

/* Memory regions a context has at once, at most */
#define HL_NIC_MAX_MRS			1024

/*
 * Failed rkey checks (this driver's). A context counts, per device that
 * writes into it, the writes whose rkey check failed (REMOTE_ACCESS_ERR:
 * unknown or stale key, a region not bound to the connection the write
 * came on, no REMOTE_WRITE, out of range). The first
 * HL_NIC_RKEY_FREE_FAILS cost only the connections (both move to ERR, as
 * every failed write). Each one after them, the n-th (0 first), shuts that
 * device out of the context for min(HL_NIC_RKEY_BACKOFF_MIN_MS << n,
 * HL_NIC_RKEY_BACKOFF_MAX_MS) milliseconds: a write from it in that time
 * lands nothing and is not checked (REMOTE_ACCESS_ERR, also with the right
 * key), and once past the free failures its writes are checked one at a
 * time (a write while another is being checked waits for it; a right key
 * outside the backoff lands). The count does not go down; it goes with
 * the context. Each checked failure sends
 * HL_NOTIFIER_EVENT_NIC_KEY_FAULT to the context's device.
 */
#define HL_NIC_RKEY_FREE_FAILS		16
#define HL_NIC_RKEY_BACKOFF_MIN_MS	1000
#define HL_NIC_RKEY_BACKOFF_MAX_MS	3600000

/* MTU values of struct hl_nic_req_conn_ctx_in.mtu */
#define HL_NIC_MTU_256			256
#define HL_NIC_MTU_512			512
#define HL_NIC_MTU_1024			1024
#define HL_NIC_MTU_2048			2048
#define HL_NIC_MTU_4096			4096

/**
 * struct hl_nic_alloc_conn_in - HL_NIC_OP_ALLOC_CONN: allocate a connection.
 * @port: the port the connection is bound to, below num_nic_ports.
 * @pad: must be 0.
 */
struct hl_nic_alloc_conn_in {
	__u32 port;
	__u32 pad;
};

/**
 * struct hl_nic_req_conn_ctx_in - HL_NIC_OP_SET_REQ_CONN_CTX: set the
 * requester (send) context of a connection in RTR; it moves to RTS.
 * @remote_addr: address of the peer port (its hl_info_nic_port.addr); must
 *	equal the responder context's.
 * @conn_id: the connection.
 * @port: the connection's port (as allocated).
 * @remote_conn_id: the peer's connection, the whole ID its ALLOC_CONN
 *	returned (slot and generation not 0); must equal the responder
 *	context's.
 * @psn: PSN of the first packet this side sends (HL_NIC_PSN_MASK bits);
 *	the peer's responder context must expect it.
 * @mtu: largest packet payload, one of HL_NIC_MTU_*.
 * @wq_size: send work-queue size: sends outstanding on the connection at
 *	once, 1 .. HL_NIC_MAX_WQ_SIZE.
 * @cq_handle: CQ (HL_NIC_OP_CQ_CREATE) that receives the send completions,
 *	or 0 for none.
 * @reserved: must be 0.
 */
struct hl_nic_req_conn_ctx_in {
	__u64 remote_addr;
	__u32 conn_id;
	__u32 port;
	__u32 remote_conn_id;
	__u32 psn;
	__u32 mtu;
	__u32 wq_size;
	__u32 cq_handle;
	__u32 reserved;
};

/**
 * struct hl_nic_res_conn_ctx_in - HL_NIC_OP_SET_RES_CONN_CTX: set the
 * responder (receive) context of a connection in INIT; it moves to RTR.
 * @remote_addr: address of the peer port, which must be cabled to @port
 *	(the peer port's hl_info_nic_port.addr is this port's peer_addr).
 * @conn_id: the connection.
 * @port: the connection's port (as allocated).
 * @remote_conn_id: the peer's connection, the whole ID its ALLOC_CONN
 *	returned (slot and generation not 0). Only messages of that
 *	connection are received: a connection of a later owner of the peer
 *	device has another ID.
 * @psn: PSN expected in the first packet received (HL_NIC_PSN_MASK bits).
 * @wq_size: receive work-queue size: receives posted at once,
 *	1 .. HL_NIC_MAX_WQ_SIZE.
 * @cq_handle: CQ that receives the receive completions, or 0 for none.
 * @reserved: must be 0.
 */
struct hl_nic_res_conn_ctx_in {
	__u64 remote_addr;
	__u32 conn_id;
	__u32 port;
	__u32 remote_conn_id;
	__u32 psn;
	__u32 wq_size;
	__u32 cq_handle;
	__u32 reserved[2];
};

/**
 * struct hl_nic_destroy_conn_in - HL_NIC_OP_DESTROY_CONN.
 * @conn_id: the connection; its outstanding work is flushed and its ID is
 *	not reused until the context's slots wrap around. Peers' connections
 *	that name it are left as they are (their sends time out).
 * @pad: must be 0.
 */
struct hl_nic_destroy_conn_in {
	__u32 conn_id;
	__u32 pad;
};

/**
 * struct hl_nic_modify_conn_in - HL_NIC_OP_MODIFY_CONN: move a connection
 * to INIT (from RESET), to ERR or to RESET (from any state).
 * @conn_id: the connection.
 * @state: HL_NIC_CONN_STATE_INIT, _ERR or _RESET (RTR and RTS are reached
 *	by setting the contexts).
 */
struct hl_nic_modify_conn_in {
	__u32 conn_id;
	__u32 state;
};

/**
 * struct hl_nic_query_conn_in - HL_NIC_OP_QUERY_CONN.
 * @conn_id: the connection.
 * @pad: must be 0.
 */
struct hl_nic_query_conn_in {
	__u32 conn_id;
	__u32 pad;
};

/**
 * struct hl_nic_reg_mr_in - HL_NIC_OP_REG_MR: register a memory region of
 * the context, which HL_PKT_NIC_WRITE names by its keys.
 * @addr: device virtual address of the region's first byte; the region
 *	[@addr, @addr + @size) lies inside one mapping of the context
 *	(HL_MEM_OP_MAP, device or host memory). While the region lives, that
 *	mapping cannot be unmapped (HL_MEM_OP_UNMAP: -EBUSY), hence its
 *	allocation cannot be freed either.
 * @size: bytes, > 0.
 * @iova: the address by which work names the region's first byte (the
 *	region's start, as IB verbs' iova): a work address VA of the region
 *	is translated as (VA - @iova) + @addr, through the context's MMU.
 *	@iova + @size must not pass 2^64. Pass @addr to name the region by
 *	its device addresses.
 * @access: HL_NIC_ACCESS_* flags.
 * @conn_id: the connection the region is for (this driver's field; it was
 *	a pad that had to be 0), the whole ID ALLOC_CONN returned. A peer
 *	reaches the region only over the peer connection of @conn_id: a
 *	write that names the rkey and arrives on another connection of the
 *	context lands nothing (HL_NIC_CQE_STATUS_REMOTE_ACCESS_ERR). 0: the
 *	region is local only (no peer reaches it), and @access must then not
 *	have HL_NIC_ACCESS_REMOTE_WRITE or HL_NIC_ACCESS_REMOTE_READ. The
 *	binding outlives MODIFY_CONN (ERR, RESET) and goes with DESTROY_CONN:
 *	after it the region is local only.
 */
struct hl_nic_reg_mr_in {
	__u64 addr;
	__u64 size;
	__u64 iova;
	__u32 access;
	__u32 conn_id;
};

/**
 * struct hl_nic_dereg_mr_in - HL_NIC_OP_DEREG_MR: deregister a region.
 * @lkey: the region's lkey. When the op returns, no byte of a write that
 *	names the region lands in it any more (a write in flight fails with
 *	HL_NIC_CQE_STATUS_REMOTE_ACCESS_ERR), and both its keys are stale:
 *	new keys are drawn at random, so a stale key names a new region of
 *	the context with a chance of HL_NIC_MAX_MRS in 2^32 at most, and
 *	never one of another context.
 * @pad: must be 0.
 */
struct hl_nic_dereg_mr_in {
	__u32 lkey;
	__u32 pad;
};

/**
 * struct hl_nic_cq_create_in - HL_NIC_OP_CQ_CREATE: create a CQ.
 * @num_entries: capacity, a power of 2 in 1 .. HL_NIC_MAX_CQ_ENTRIES. When
 *	the CQ is full, new entries are lost and the CQ reports
 *	HL_NIC_CQ_STATUS_OVERFLOW until it is destroyed.
 * @pad: must be 0.
 */
struct hl_nic_cq_create_in {
	__u32 num_entries;
	__u32 pad;
};

/**
 * struct hl_nic_cq_destroy_in - HL_NIC_OP_CQ_DESTROY.
 * @handle: the CQ; no connection context may name it any more (destroy or
 *	reset those connections first).
 * @pad: must be 0.
 */
struct hl_nic_cq_destroy_in {
	__u32 handle;
	__u32 pad;
};

/**
 * struct hl_nic_cq_poll_wait_in - HL_NIC_OP_CQ_POLL and HL_NIC_OP_CQ_WAIT:
 * copy the oldest unconsumed entries of a CQ to a user buffer, without
 * consuming them (HL_NIC_OP_CQ_UPDATE_CONSUMED_CQES does).
 * @cqes_ptr: user pointer to room for @max_cqes struct hl_nic_cqe.
 * @timeout_us: CQ_WAIT: how long to wait for at least one entry, in
 *	microseconds (0 only polls; U32_MAX and above: no limit). CQ_POLL:
 *	must be 0.
 * @handle: the CQ.
 * @max_cqes: entries to copy at most; 0 only counts them.
 */
struct hl_nic_cq_poll_wait_in {
	__u64 cqes_ptr;
	__u64 timeout_us;
	__u32 handle;
	__u32 max_cqes;
};

/**
 * struct hl_nic_cq_update_consumed_cqes_in - HL_NIC_OP_CQ_UPDATE_CONSUMED_CQES:
 * release the oldest entries of a CQ, whose room the driver may reuse.
 * @handle: the CQ.
 * @num_cqes: entries consumed, at most the number available.
 */
struct hl_nic_cq_update_consumed_cqes_in {
	__u32 handle;
	__u32 num_cqes;
};

/**
 * struct hl_nic_in - input of HL_IOCTL_NIC.
 * @alloc_conn: HL_NIC_OP_ALLOC_CONN.
 * @req_conn_ctx: HL_NIC_OP_SET_REQ_CONN_CTX.
 * @res_conn_ctx: HL_NIC_OP_SET_RES_CONN_CTX.
 * @destroy_conn: HL_NIC_OP_DESTROY_CONN.
 * @modify_conn: HL_NIC_OP_MODIFY_CONN.
 * @query_conn: HL_NIC_OP_QUERY_CONN.
 * @cq_create: HL_NIC_OP_CQ_CREATE.
 * @cq_destroy: HL_NIC_OP_CQ_DESTROY.
 * @cq_poll_wait: HL_NIC_OP_CQ_POLL and HL_NIC_OP_CQ_WAIT.
 * @cq_update_consumed_cqes: HL_NIC_OP_CQ_UPDATE_CONSUMED_CQES.
 * @reg_mr: HL_NIC_OP_REG_MR.
 * @dereg_mr: HL_NIC_OP_DEREG_MR.
 * @reserved: sizes the union; the bytes of the union past the op's struct
 *	must be 0.
 * @op: one of HL_NIC_OP_*.
 * @flags: must be 0.
 * @ctx_id: must be 0.
 * @pad: must be 0.
 */
struct hl_nic_in {
	union {
		struct hl_nic_alloc_conn_in alloc_conn;
		struct hl_nic_req_conn_ctx_in req_conn_ctx;
		struct hl_nic_res_conn_ctx_in res_conn_ctx;
		struct hl_nic_destroy_conn_in destroy_conn;
		struct hl_nic_modify_conn_in modify_conn;
		struct hl_nic_query_conn_in query_conn;
		struct hl_nic_cq_create_in cq_create;
		struct hl_nic_cq_destroy_in cq_destroy;
		struct hl_nic_cq_poll_wait_in cq_poll_wait;
		struct hl_nic_cq_update_consumed_cqes_in cq_update_consumed_cqes;
		struct hl_nic_reg_mr_in reg_mr;
		struct hl_nic_dereg_mr_in dereg_mr;
		__u64 reserved[8];
	};
	__u32 op;
	__u32 flags;
	__u32 ctx_id;
	__u32 pad;
};

/**
 * struct hl_nic_alloc_conn_out - output of HL_NIC_OP_ALLOC_CONN.
 * @conn_id: Returned ID of the new connection (state RESET): its slot and
 *	the context's generation (HL_NIC_CONN_ID_SLOT(), HL_NIC_CONN_ID_GEN());
 *	the peer names the connection by this whole value.
 * @pad: Returned as zero.
 */
struct hl_nic_alloc_conn_out {
	__u32 conn_id;
	__u32 pad;
};

/**
 * struct hl_nic_query_conn_out - output of HL_NIC_OP_QUERY_CONN.
 * @remote_addr: Returned remote address of the contexts (0 before RTR).
 * @state: Returned enum hl_nic_conn_state.
 * @port: Returned port of the connection.
 * @remote_conn_id: Returned remote connection ID (0 before RTR).
 * @sq_psn: Returned PSN of the next packet to send.
 * @rq_psn: Returned PSN expected in the next packet received.
 * @pad: Returned as zero.
 */
struct hl_nic_query_conn_out {
	__u64 remote_addr;
	__u32 state;
	__u32 port;
	__u32 remote_conn_id;
	__u32 sq_psn;
	__u32 rq_psn;
	__u32 pad;
};

/**
 * struct hl_nic_cq_create_out - output of HL_NIC_OP_CQ_CREATE.
 * @handle: Returned handle of the CQ (never 0).
 * @pad: Returned as zero.
 */
struct hl_nic_cq_create_out {
	__u32 handle;
	__u32 pad;
};

/**
 * struct hl_nic_reg_mr_out - output of HL_NIC_OP_REG_MR.
 * @lkey: Returned key by which this context's work names the region
 *	(HL_PKT_NIC_WRITE's lkey) and HL_NIC_OP_DEREG_MR deregisters it.
 * @rkey: Returned key by which the peer's work names the region
 *	(HL_PKT_NIC_WRITE's rkey), to be handed to the peer the region is
 *	for (hl_nic_reg_mr_in.conn_id). Both keys are 32 random bits drawn
 *	for each key on its own (never 0), looked up in the registering
 *	context's own tables, so that no key tells another, nor does any
 *	number of one's own registrations tell another context's keys; a
 *	key works only for the context that registered the region (an rkey
 *	only over the region's connection), and only until the region is
 *	deregistered.
 */
struct hl_nic_reg_mr_out {
	__u32 lkey;
	__u32 rkey;
};

/* CQ status (struct hl_nic_cq_poll_wait_out.status) */
#define HL_NIC_CQ_STATUS_SUCCESS	0	/* entries copied (maybe 0) */
#define HL_NIC_CQ_STATUS_TIMEOUT	1	/* CQ_WAIT: none in time */
#define HL_NIC_CQ_STATUS_OVERFLOW	2	/* entries were lost */

/**
 * struct hl_nic_cq_poll_wait_out - output of HL_NIC_OP_CQ_POLL and
 * HL_NIC_OP_CQ_WAIT.
 * @num_cqes: Returned number of entries copied to cqes_ptr, the oldest
 *	first.
 * @status: Returned HL_NIC_CQ_STATUS_*: OVERFLOW once the CQ lost an entry
 *	(sticky; the entries it kept are still returned), else TIMEOUT when
 *	CQ_WAIT found no entry in time, else SUCCESS.
 * @avail: Returned number of unconsumed entries in the CQ (>= @num_cqes).
 * @pad: Returned as zero.
 */
struct hl_nic_cq_poll_wait_out {
	__u32 num_cqes;
	__u32 status;
	__u32 avail;
	__u32 pad;
};

/**
 * struct hl_nic_out - output of HL_IOCTL_NIC.
 * @alloc_conn: HL_NIC_OP_ALLOC_CONN.
 * @query_conn: HL_NIC_OP_QUERY_CONN.
 * @cq_create: HL_NIC_OP_CQ_CREATE.
 * @cq_poll_wait: HL_NIC_OP_CQ_POLL and HL_NIC_OP_CQ_WAIT.
 * @reg_mr: HL_NIC_OP_REG_MR.
 * @reserved: Returned as zero past the op's struct.
 */
struct hl_nic_out {
	union {
		struct hl_nic_alloc_conn_out alloc_conn;
		struct hl_nic_query_conn_out query_conn;
		struct hl_nic_cq_create_out cq_create;
		struct hl_nic_cq_poll_wait_out cq_poll_wait;
		struct hl_nic_reg_mr_out reg_mr;
		__u64 reserved[8];
	};
};

/**
 * struct hl_nic_args - argument of HL_IOCTL_NIC.
 * @in: input.
 * @out: output; the ops without output leave it as zero.
 *
 * Compute node only, caller must be the process that opened it. Errors of
 * every op:
 *   -EPERM   the caller's process did not open the compute node;
 *   -EINVAL  unknown op, non-zero flags/ctx_id/pad/reserved, non-zero bytes
 *            of the input union past the op's struct, an unknown conn_id or
 *            CQ handle (the IDs of an earlier owner of the device are
 *            unknown);
 *   -EOPNOTSUPP the device has no NIC;
 *   -ENODEV  the device is gone;
 *   -ENOTTY  on the control node.
 * And per op:
 *   ALLOC_CONN: -EINVAL port out of range; -ENOSPC no free connection ID;
 *     -ENOMEM.
 *   SET_RES_CONN_CTX / SET_REQ_CONN_CTX: -EINVAL connection not in INIT
 *     (RES) / RTR (REQ), port not the connection's, remote_conn_id's slot
 *     or generation 0, psn above HL_NIC_PSN_MASK, wq_size 0 or above
 *     HL_NIC_MAX_WQ_SIZE, bad mtu (REQ), remote address or ID other than
 *     the responder context's (REQ), unknown cq_handle; -ENETDOWN the
 *     port's link is down; -EADDRNOTAVAIL remote_addr is the address of
 *     no port of the fabric; -EHOSTUNREACH remote_addr is a port that is
 *     not cabled to this one.
 *   MODIFY_CONN: -EINVAL state not INIT/ERR/RESET, or INIT from a state
 *     other than RESET.
 *   DESTROY_CONN, QUERY_CONN: as above.
 *   CQ_CREATE: -EINVAL num_entries not a power of 2 in range; -ENOSPC the
 *     context has HL_NIC_MAX_CQS CQs; -ENOMEM.
 *   CQ_DESTROY: -EBUSY a connection context names the CQ.
 *   CQ_POLL: -EINVAL non-zero timeout_us, NULL cqes_ptr with max_cqes > 0;
 *     -EFAULT bad cqes_ptr.
 *   CQ_WAIT: as CQ_POLL; -EINTR a signal arrived (libhlthunk retries);
 *     -EINVAL the CQ was destroyed while waiting; -ENODEV the context
 *     went while waiting (hard reset, unbind): every wait, also one with
 *     no time limit, ends at once then.
 *   CQ_UPDATE_CONSUMED_CQES: -EINVAL num_cqes above the available entries.
 *   REG_MR: -EINVAL size 0, unknown access bits, REMOTE_WRITE without
 *     LOCAL_WRITE, a REMOTE_* flag with conn_id 0 or a conn_id without
 *     one, conn_id not a connection of the context (unknown, destroyed),
 *     iova + size past 2^64, [addr, addr + size) not inside one mapping of
 *     the context; -ENOSPC the context has HL_NIC_MAX_MRS regions (or, by
 *     a chance of about 2^-350, no free key was drawn); -ENOMEM.
 *   DEREG_MR: -EINVAL lkey names no region of the context (unknown,
 *     stale, another context's, or an rkey).
 */
struct hl_nic_args {
	union {
		struct hl_nic_in in;
		struct hl_nic_out out;
	};
};

/* Opcodes of struct hl_nic_cqe.opcode */
#define HL_NIC_CQE_OP_SEND		0
#define HL_NIC_CQE_OP_RECV		1
#define HL_NIC_CQE_OP_RDMA_WRITE	2 /* requester of a WRITE(_IMM) */
#define HL_NIC_CQE_OP_RECV_RDMA_WITH_IMM 3 /* a receive a WRITE_IMM took */

/*
 * Status of a completion (struct hl_nic_cqe.status). Every status but
 * SUCCESS fails the packet's job (its CS completes with an error: -EFAULT
 * for LOCAL_FAULT, -ETIMEDOUT for TIMEOUT, -EIO otherwise). Work the
 * connection took and that then failed moves the connection to ERR; work
 * refused at once (FLUSHED: the connection is not in a state that takes
 * it; WQ_FULL) leaves its state as it is.
 */
#define HL_NIC_CQE_STATUS_SUCCESS	0
#define HL_NIC_CQE_STATUS_LEN_ERR	1  /* message larger than the receive */
#define HL_NIC_CQE_STATUS_LOCAL_FAULT	2  /* this side's buffer: MMU fault */
#define HL_NIC_CQE_STATUS_REMOTE_FAULT	3  /* the receiver's buffer faulted */
#define HL_NIC_CQE_STATUS_LINK_DOWN	4  /* link down, peer device gone */
#define HL_NIC_CQE_STATUS_FLUSHED	5  /* connection not (any more) in a
					    * state that takes the work:
					    * ERR, RESET, destroyed, closed
					    */
#define HL_NIC_CQE_STATUS_REMOTE_ERR	6  /* the peer connection failed,
					    * was reset or destroyed, or its
					    * owner went (the connection is
					    * in ERR)
					    */
#define HL_NIC_CQE_STATUS_PSN_ERR	7  /* PSN sequence error */
#define HL_NIC_CQE_STATUS_TIMEOUT	8  /* the job's timeout ran out */
#define HL_NIC_CQE_STATUS_REMOTE_ABORT	9  /* the sender aborted the message */
#define HL_NIC_CQE_STATUS_WQ_FULL	10 /* more work than the WQ size */
#define HL_NIC_CQE_STATUS_REMOTE_INVALID 11 /* the peer connection named is
					     * set up for another connection
					     * (pair, port or owner): it
					     * ignored the message
					     */
#define HL_NIC_CQE_STATUS_REMOTE_ACCESS_ERR 12 /* requester of a WRITE: the
						* rkey names no live region
						* of the peer's context, the
						* region lacks REMOTE_WRITE,
						* or the range leaves it;
						* nothing landed
						*/
#define HL_NIC_CQE_STATUS_LOCAL_ACCESS_ERR 13 /* responder: the WRITE_IMM
					       * that took this receive
					       * failed the checks above
					       */
#define HL_NIC_CQE_STATUS_LOCAL_PROT_ERR 14 /* requester: the lkey names no
					     * live region of this context,
					     * or the range leaves it
					     */

/**
 * struct hl_nic_cqe - a completion entry, as HL_NIC_OP_CQ_POLL returns it.
 * @wr_id: the wr_id of the HL_PKT_NIC_SEND, HL_PKT_NIC_WRITE(_IMM) or
 *	HL_PKT_NIC_RECV packet.
 * @byte_len: bytes moved: the message size (RECV: the bytes that landed;
 *	RECV_RDMA_WITH_IMM: the bytes the write landed in the region).
 * @conn_id: the connection.
 * @port: the connection's port.
 * @opcode: HL_NIC_CQE_OP_*.
 * @status: HL_NIC_CQE_STATUS_*.
 * @psn: PSN of the message's first packet (0 when it never started).
 * @imm_data: the WRITE_IMM's immediate value (RECV_RDMA_WITH_IMM), else
 *	zero.
 */
struct hl_nic_cqe {
	__u64 wr_id;
	__u64 byte_len;
	__u32 conn_id;
	__u32 port;
	__u32 opcode;
	__u32 status;
	__u32 psn;
	__u32 imm_data;
};

#endif /* _UAPI_MISC_HABANALABS_H_ */

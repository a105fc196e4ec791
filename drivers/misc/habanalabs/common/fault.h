/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: fault injection at the driver's resource points, with the
 * kernel's framework (Documentation/fault-injection/fault-injection.rst).
 *
 * A call site is one line in front of the resource it may fail:
 *
 *	addr = hl_should_fail(HL_FAULT_DRAM) ? 0 : gen_pool_alloc(pool, size);
 *
 * With CONFIG_FAULT_INJECTION (fault.c) each point is a struct fault_attr
 * with its debugfs directory, /sys/kernel/debug/habanalabs/fault/fail_<name>,
 * and should_fail() decides, so the framework's controls all work:
 * probability/interval/times, the task filter (/proc/<pid>/make-it-fail),
 * the stack-trace filter, and the systematic /proc/thread-self/fail-nth that
 * tests/fault_walk uses to fail the 1st, 2nd, ... point of one ioctl. Without
 * it (the stock build) every hl_should_fail() is a constant false and
 * nothing of this file's .c is built.
 */
#ifndef HABANALABS_FAULT_H_
#define HABANALABS_FAULT_H_

#include <linux/types.h>

struct dentry;
struct hl_device;

/**
 * enum hl_fault_point - the kinds of resource the driver may fail to get;
 * each has its own fault_attr, fail_<name> in debugfs.
 * @HL_FAULT_DRAM: device memory from the DRAM pool (fail_dram).
 * @HL_FAULT_PIN: pinning user pages for a host mapping (fail_pin).
 * @HL_FAULT_DMA_MAP: DMA mappings: pinned host pages for the accelerator,
 *	the HBM BAR for a dma-buf importer (fail_dma_map).
 * @HL_FAULT_MMU: device page tables: hop tables, the context's ASID
 *	(fail_mmu).
 * @HL_FAULT_DMABUF: dma-buf export: the dma-buf, its fd (fail_dmabuf).
 * @HL_FAULT_FENCE: fences: publishing a CS fence, fence slots in the
 *	exports' reservation objects, a quarantine's list of late fences
 *	(fail_fence).
 * @HL_FAULT_NIC: NIC resources: connection IDs, CQs, CQ entries copied out
 *	(fail_nic).
 * @HL_FAULT_NUM: number of points.
 */
enum hl_fault_point {
	HL_FAULT_DRAM,
	HL_FAULT_PIN,
	HL_FAULT_DMA_MAP,
	HL_FAULT_MMU,
	HL_FAULT_DMABUF,
	HL_FAULT_FENCE,
	HL_FAULT_NIC,
	HL_FAULT_NUM
};

#ifdef CONFIG_FAULT_INJECTION

#include <linux/instruction_pointer.h>

bool hl_fault_should_fail(enum hl_fault_point point, unsigned long site);

/* Whether to fail here: true when the fault-injection framework says so */
#define hl_should_fail(point)	hl_fault_should_fail(point, _THIS_IP_)

void hl_fault_init(struct dentry *root);
void hl_fault_add_device(struct hl_device *hdev);

#else /* CONFIG_FAULT_INJECTION */

static inline bool hl_should_fail(enum hl_fault_point point)
{
	return false;
}

static inline void hl_fault_init(struct dentry *root)
{
}

static inline void hl_fault_add_device(struct hl_device *hdev)
{
}

#endif /* CONFIG_FAULT_INJECTION */

#endif /* HABANALABS_FAULT_H_ */

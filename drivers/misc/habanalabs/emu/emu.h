/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs emu: the software-emulated ASIC.
 *
 * The device is a QEMU ivshmem-plain PCI function whose BAR2 is the HBM.
 * Everything a real ASIC does in silicon (queue managers, DMA engines, the
 * MMU walk, the NIC fabric) is done here in software, against the HBM in
 * BAR2 and host memory reached through DMA addresses, never by a side
 * channel that real hardware would not have.
 *
 * HBM layout (device physical addresses = offsets into BAR2):
 *   [0, mmu_pgt_size)             device page tables (driver reserved)
 *   [mmu_pgt_size, hbm_size)      user-allocatable DRAM
 * and under asic=gaudi (no DRAM MMU, emu_mmu.c's address map):
 *   [0, mmu_pgt_size)             device page tables (driver reserved)
 *   [mmu_pgt_size, + 20 MiB)      the SRAM's backing (driver reserved: the
 *                                 engines reach it at HL_EMU_GAUDI_SRAM_BASE
 *                                 only)
 *   [dram_user_base, hbm_size)    user DRAM, addressed physically
 *
 * Locks of the backend (their place in the driver's lock order is in
 * habanalabs.h, above struct hl_device): hl_emu_queue.lock guards a
 * queue's pending list and running job. The backend takes no lock of the
 * core's: a queue worker opens an engine access around each chunk
 * (hl_device_hw_access_begin(), common/asic.h: the core's
 * engine_access_rwsem for read), with no other lock held, and calls
 * hl_cs_job_done() with no lock held. The NIC's requester (emu_nic_req.c)
 * opens one on its own device and one on the peer device at once, in the
 * devices' order (hl_device_hw_enter_pair()), and holds no NIC lock around
 * them.
 */
#ifndef HL_EMU_H_
#define HL_EMU_H_

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <uapi/misc/habanalabs_pkt.h>

#include "../common/asic.h"
#include "emu_mmu.h"

struct hl_emu_nic;
struct hl_emu_sync;

/* Identity reported by INFO and sysfs */
#define HL_EMU_CARD_NAME		"emu-gaudi"
#define HL_EMU_FW_VERSION		"emulated"
/* The identity under asic=gaudi: GAUDI's PCI device ID and type name */
#define HL_EMU_GAUDI_DEVICE_ID		0x1000
#define HL_EMU_GAUDI_ASIC_NAME		"GAUDI"
/* GAUDI's SRAM (upstream's SRAM_BASE_ADDR and SRAM_SIZE) */
#define HL_EMU_GAUDI_SRAM_BASE		0x7ff0000000ull
#define HL_EMU_GAUDI_SRAM_SIZE		(SZ_16M + SZ_4M)

#define HL_EMU_HBM_BAR			2
#define HL_EMU_HBM_MIN_SIZE		SZ_64M
#define HL_EMU_DRAM_PAGE_SIZE		SZ_2M
#define HL_EMU_HOST_PAGE_SIZE		SZ_4K

/* Device virtual address ranges (48-bit device VA space) */
#define HL_EMU_VA_HOST_START		0x100000000000ull
#define HL_EMU_VA_HOST_END		0x200000000000ull
#define HL_EMU_VA_DRAM_START		0x200000000000ull
#define HL_EMU_VA_DRAM_END		0x210000000000ull
/* Driver-owned command buffers (HL_IOCTL_CB), just below the host range */
#define HL_EMU_VA_CB_START		0x0f0000000000ull
#define HL_EMU_VA_CB_END		0x100000000000ull

/* Engine queues of the emulated ASIC (asic=emu) */
#define HL_EMU_NUM_QUEUES		4

/*
 * Command-buffer fetches, MSG_LONG and the fallbacks of the data engines are
 * split in chunks that never cross a 4 KiB device VA page (so never a 4 KiB
 * host page nor a 2 MiB DRAM page either); each chunk is translated and
 * copied inside one engine access (hl_device_hw_access_begin()).
 */
#define HL_EMU_CHUNK_SIZE		SZ_4K

/*
 * LIN_DMA, MEMSET, REDUCE and the NIC move data in runs (hl_emu_mmu_span():
 * as long as the translation stays contiguous), at most this many bytes per
 * engine access (hl_device_hw_access_begin()); deadlines, hw_fini and the
 * scheduler are checked between slices.
 */
#define HL_EMU_SLICE_SIZE		SZ_256K

/* Largest step of the NIC through hl_emu_queue.buf */
#define HL_EMU_NIC_STEP			SZ_64K

/* Size of hl_emu_queue.buf: a NIC step, or two chunks and a pattern */
#define HL_EMU_QUEUE_BUF_SIZE		HL_EMU_NIC_STEP

/**
 * struct hl_emu_queue - one engine queue: a queue manager fetching command
 * buffers through the MMU and an engine executing their packets, one job at
 * a time, in submission order.
 * @emu: the device.
 * @id: queue index.
 * @wq: the queue's own workqueue, from hw_init to hw_fini: a FENCE blocks
 *	its queue's worker until another queue's job releases it, so no two
 *	queues may share the workqueue's rescuer (which runs its work items
 *	one after the other when no worker can be had at once).
 * @work: runs the queue's jobs on @wq.
 * @lock: Protects @pending and @running.
 * @pending: jobs waiting to run (hl_cs_job_node()).
 * @running: the job being executed, or NULL.
 * @tlb: the queue's TLB; used by the queue's worker only.
 * @buf: HL_EMU_QUEUE_BUF_SIZE bytes: a chunk bounce buffer, a MEMSET
 *	pattern (HL_EMU_CHUNK_SIZE + 8 bytes), the two operands of a REDUCE
 *	chunk, or a step of a NIC message; used by the queue's worker only.
 * @tlb_hits: translations served by @tlb.
 * @tlb_misses: translations that walked the page tables.
 * @pred: asic=gaudi: the running job's predicates P0..P31 (bit i: Pi;
 *	P0 always set, the others clear at the start of each job, loaded by
 *	LOAD_AND_EXE); used by the queue's worker only.
 * @scalar: asic=gaudi: the running job's scalar registers R0..R3 (little
 *	endian, as loaded), clear at the start of each job, loaded and
 *	executed by LOAD_AND_EXE; used by the queue's worker only.
 */
struct hl_emu_queue {
	struct hl_emu_device *emu;
	u32 id;
	struct workqueue_struct *wq;
	struct work_struct work;
	spinlock_t lock; /* Protects: pending, running */
	struct list_head pending;
	struct hl_cs_job *running;
	struct hl_emu_tlb_entry tlb[HL_EMU_TLB_ENTRIES];
	u8 *buf;
	u64 tlb_hits;
	u64 tlb_misses;
	u32 pred;
	__le32 scalar[4];
};

/**
 * struct hl_emu_device - the emulated ASIC's private state.
 * @hdev: the device.
 * @hbm: kernel mapping of BAR2 (the whole HBM).
 * @hbm_bus_addr: CPU physical address of BAR2.
 * @hbm_size: size of BAR2.
 * @phys_dram: asic=gaudi: the engines address user DRAM physically and
 *	SRAM at HL_EMU_GAUDI_SRAM_BASE (emu_mmu.c); set at early_init.
 * @sram_hbm: with @phys_dram, the HBM address of the SRAM's backing.
 * @dbg_addr: with @phys_dram, the device address of debugfs's data32 and
 *	data64 (its file addr; emu_debugfs.c).
 * @dbg_clk_gate: with @phys_dram, debugfs's clk_gate: kept, no effect.
 * @stopped: set once by hw_fini; queues take no job after it, and a running
 *	job aborts (-ENODEV) at its next chunk. Read and set under every
 *	queue's lock.
 * @tlb_gen: TLB generation, bumped by mmu_invalidate_cache; starts at 1.
 * @num_queues: number of @queues: HL_EMU_NUM_QUEUES, or GAUDI's
 *	GAUDI_QUEUE_ID_SIZE under asic=gaudi (fixed at early_init).
 * @queue_type: each queue's enum hl_queue_type under asic=gaudi (what
 *	hl_device_prop()->queue_type points to), NULL for asic=emu.
 * @queues: the engine queues, @num_queues of them, allocated at
 *	early_init; a queue of type CPU or NA never runs a job (no buf).
 * @nic: the NIC ports and the device's place in the fabric
 *	(emu_nic_fabric.c); the device holds a reference from hw_init to
 *	early_fini.
 * @sync: the sync manager and the queues' fence counters (emu_sync.c),
 *	from early_init to early_fini.
 */
struct hl_emu_device {
	struct hl_device *hdev;
	void __iomem *hbm;
	phys_addr_t hbm_bus_addr;
	resource_size_t hbm_size;
	bool phys_dram;
	u64 sram_hbm;
	u64 dbg_addr;
	u64 dbg_clk_gate;
	bool stopped;
	atomic64_t tlb_gen;
	u32 num_queues;
	u8 *queue_type;
	struct hl_emu_queue *queues;
	struct hl_emu_nic *nic;
	struct hl_emu_sync *sync;
};

static inline struct hl_emu_device *to_emu(struct hl_device *hdev)
{
	return hl_device_asic(hdev);
}

/* emu_debugfs.c */
void hl_emu_debugfs_init(struct hl_device *hdev, struct dentry *root);

/*
 * The packet format the queues execute: GAUDI's under asic=gaudi
 * (emu_gaudi_pkt.c), else this project's (habanalabs_pkt.h)
 */
static inline bool hl_emu_gaudi_format(void)
{
	return hl_identity == HL_IDENTITY_GAUDI;
}

/* emu_queue.c */
int hl_emu_queues_early_init(struct hl_emu_device *emu, u32 num_nic_ports);
void hl_emu_queues_early_fini(struct hl_emu_device *emu);
bool hl_emu_queue_runs_jobs(const struct hl_emu_device *emu, u32 queue);
int hl_emu_queues_init(struct hl_emu_device *emu);
void hl_emu_queues_fini(struct hl_emu_device *emu);
int hl_emu_queue_job(struct hl_device *hdev, struct hl_cs_job *job);
bool hl_emu_queues_idle(struct hl_device *hdev, u64 *mask, u32 mask_len);

#endif /* HL_EMU_H_ */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: the ASIC boundary, the one door between the core (common/)
 * and a backend (emu/). A backend includes this header and no other of
 * common/ (tests/door/check keeps it so); a second backend would
 * touch no core header. This header includes nothing of common/ either:
 * the core's structures (struct hl_device, hl_ctx, hl_cs_job, ...) are
 * opaque here, and a backend reads what it needs of them through the
 * accessors below (asic.c), never their fields.
 *
 * Core to backend: struct hl_asic_funcs, the table a backend fills, and
 * struct asic_fixed_properties, which it fills at early_init
 * (hl_device_prop()).
 *
 * Backend to core: the calls declared below, by section (the device,
 * engine accesses, jobs, contexts, events, the NIC, test-only knobs). The
 * core defines them in the file the comment of each section names.
 *
 * A backend that needs a new door call: declare it here, in its section
 * (or a new section with the name of the core file that defines it), with
 * a line saying when the backend may call it (locks held, may it sleep),
 * and define it in the core, out of line, or static inline only if it
 * reads nothing of a core structure. Never include a core header from a
 * backend instead.
 */
#ifndef HL_ASIC_H_
#define HL_ASIC_H_

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/device.h>
#include <linux/types.h>

#include <uapi/misc/habanalabs.h>

/* The driver's name: its PCI driver's, its regions', its class's */
#define HL_NAME				"habanalabs"

/* The most devices the driver binds (IDs below this) */
#define HL_MAX_DEVICES			128

/* HL_INFO_SYNC_MANAGER's dcore ids: GAUDI's four sync manager blocks */
#define HL_SM_NUM_DCORES		(HL_GAUDI_ES_DCORE + 1)

struct dentry;
struct kunit;
struct list_head;
struct pci_dev;
struct hl_cs_job;
struct hl_ctx;
struct hl_device;
struct hl_nic_qp_attr;

/* Every driver message about a device names it (asic.c) */
struct device *hl_device_dev(const struct hl_device *hdev);

/*
 * Logging rule: every message about a device goes through hl_err(),
 * hl_warn(), hl_info() (and their _ratelimited forms, for what user space or
 * an engine can repeat at will) or hl_dbg(), on the PCI function's struct
 * device; only code that runs before an hl_device exists logs with pci_*()
 * on the PCI device. User-caused failures are logged with hl_dbg() only.
 *
 * hl_dbg(hdev, CAT, fmt, ...) logs in category HL_DBG_<CAT>: printed when
 * the category's bit is set in the debug_mask module parameter (every
 * category by default) and, as any dev_dbg(), dynamic debug enables it.
 */
#define HL_DBG_DEV	BIT(0)	/* open, probe, hard reset */
#define HL_DBG_MEM	BIT(1)	/* memory ioctl (memory.c) */
#define HL_DBG_CS	BIT(2)	/* command submissions */
#define HL_DBG_DMABUF	BIT(3)	/* dma-buf exports and importers */
#define HL_DBG_NIC	BIT(4)	/* NIC ioctls, connections, transfers */
#define HL_DBG_EMU	BIT(5)	/* the emulated engines: jobs, packets */
#define HL_DBG_MMU	BIT(6)	/* device MMU faults of engines and NIC */
#define HL_DBG_ALL	GENMASK(6, 0)

extern unsigned int hl_dbg_mask;

#define hl_dbg(hdev, cat, fmt, ...)					\
	do {								\
		if (READ_ONCE(hl_dbg_mask) & HL_DBG_##cat)		\
			dev_dbg(hl_device_dev(hdev), fmt,		\
				##__VA_ARGS__);				\
	} while (0)
#define hl_err(hdev, fmt, ...)						\
	dev_err(hl_device_dev(hdev), fmt, ##__VA_ARGS__)
#define hl_warn(hdev, fmt, ...)						\
	dev_warn(hl_device_dev(hdev), fmt, ##__VA_ARGS__)
#define hl_info(hdev, fmt, ...)						\
	dev_info(hl_device_dev(hdev), fmt, ##__VA_ARGS__)
#define hl_err_ratelimited(hdev, fmt, ...)				\
	dev_err_ratelimited(hl_device_dev(hdev), fmt, ##__VA_ARGS__)

/*
 * The device MMU's page-table format and geometry, shared by the core's
 * page-table code (mmu.h, mmu.c) and a backend's walker; the rules of
 * the format are in mmu.h.
 */

/* Most hops an ASIC may have: the bound of the page-table code's arrays */
#define HL_MMU_MAX_HOPS			4

#define HL_PTE_PRESENT			BIT_ULL(0)
#define HL_PTE_LAST			BIT_ULL(1)
#define HL_PTE_HOST			BIT_ULL(2)
#define HL_PTE_ADDR_MASK		GENMASK_ULL(63, 12)

/**
 * struct hl_mmu_properties - the geometry of an ASIC's device page tables.
 * @num_hops: levels of hop tables, hop0 first; at most HL_MMU_MAX_HOPS.
 * @hop_shifts: for each hop, the position of the VA field that indexes its
 *	table (the lowest bit of @hop_masks).
 * @hop_masks: for each hop, the VA field that indexes its table, in place:
 *	the index is (va & hop_masks[hop]) >> hop_shifts[hop].
 * @leaf_hops: bit N set: a PTE of hop N may be a leaf, mapping a page of
 *	BIT(hop_shifts[N]) bytes. It has the last hop's bit: a walk that
 *	finds no leaf there faults.
 * @hop_table_size: bytes of a hop table, a power of 2.
 * @va_bits: width of a device virtual address (below 64); higher bits
 *	must be 0.
 * @max_asid: number of ASIDs, hop0 tables at the start of the page-table
 *	area; user contexts get 1 .. @max_asid - 1.
 */
struct hl_mmu_properties {
	u32 num_hops;
	u32 hop_shifts[HL_MMU_MAX_HOPS];
	u64 hop_masks[HL_MMU_MAX_HOPS];
	u32 leaf_hops;
	u32 hop_table_size;
	u32 va_bits;
	u32 max_asid;
};

/* The hop0 table of @asid in a page-table area that starts at @pgt_base */
static inline u64 hl_mmu_hop0_addr(const struct hl_mmu_properties *mmu,
				   u64 pgt_base, u32 asid)
{
	return pgt_base + (u64)asid * mmu->hop_table_size;
}

/* The index of @va's PTE in its table of hop @hop */
static inline u64 hl_mmu_hop_index(const struct hl_mmu_properties *mmu,
				   u64 va, u32 hop)
{
	return (va & mmu->hop_masks[hop]) >> mmu->hop_shifts[hop];
}

/**
 * enum hl_identity - module parameter asic: what the devices present
 *	themselves as, parsed once at load (0444).
 * @HL_IDENTITY_EMU: "emu" (the default): the emulated ASIC, with the PCI
 *	device ID of its function (ivshmem's 0x1110).
 * @HL_IDENTITY_GAUDI: "gaudi": a GAUDI as hl-thunk recognises one, PCI
 *	device ID 0x1000 in HW_IP_INFO and "GAUDI" in sysfs device_type;
 *	GAUDI's memory: 20 MiB of SRAM at 0x7FF0000000 and DRAM addressed
 *	physically (dram_supports_virtual_memory false); everything else is
 *	what the emulated ASIC has (docs/using.md).
 */
enum hl_identity {
	HL_IDENTITY_EMU,
	HL_IDENTITY_GAUDI,
};

extern enum hl_identity hl_identity;

/**
 * enum hl_queue_type - how a queue takes its command buffers, as upstream's
 * hw_queue_properties.type.
 * @HL_QUEUE_TYPE_INT: internal: a chunk's cb_handle is a device address of
 *	a command buffer the user allocated (HL_CS_CHUNK_FLAGS_USER_ALLOC_CB
 *	implied); the engine fetches it there.
 * @HL_QUEUE_TYPE_EXT: external: a chunk's cb_handle is a kernel-owned CB's
 *	handle (HL_IOCTL_CB); the driver takes its own copy at submission and
 *	the engine fetches the copy.
 * @HL_QUEUE_TYPE_CPU: the device CPU's queue: no user submission (-EINVAL).
 * @HL_QUEUE_TYPE_NA: no such queue on this ASIC: -EINVAL.
 */
enum hl_queue_type {
	HL_QUEUE_TYPE_INT,
	HL_QUEUE_TYPE_EXT,
	HL_QUEUE_TYPE_CPU,
	HL_QUEUE_TYPE_NA,
};

/**
 * struct asic_fixed_properties - static properties of an ASIC, filled by the
 * backend's early_init and read-only afterwards.
 * @card_name: card name reported by INFO (card_name).
 * @asic_name: ASIC type sysfs device_type shows: "emu-gaudi", or "GAUDI"
 *	under the module parameter asic=gaudi (upstream's name of the type).
 * @device_id: PCI device ID INFO reports (HW_IP_INFO.device_id): the
 *	function's own, or GAUDI's (0x1000) under asic=gaudi.
 * @fw_version: firmware version string reported by INFO (cpucp_version).
 * @dram_base_address: device physical address of the first byte of HBM.
 * @dram_size: total HBM size.
 * @dram_user_base_address: device physical address of the first byte of
 *	user-allocatable HBM (after the driver-reserved area).
 * @dram_user_size: bytes of user-allocatable HBM.
 * @dram_page_size: default DRAM allocation page size.
 * @dram_supports_virtual_memory: users reach DRAM through the device MMU
 *	(HL_MEM_OP_ALLOC hands out pages, MAP maps them in the DRAM VA
 *	range); false: as a GAUDI, without a DRAM MMU: the engines address
 *	[@dram_user_base_address, + @dram_user_size) physically, the context
 *	owns all of it (one owner at a time, scrubbed between owners), ALLOC
 *	only accounts, and exports name a DRAM address (memory.c).
 * @sram_base_address: device address of the on-chip SRAM the engines
 *	reach (0: none).
 * @sram_size: its bytes (0: none); zeroed between owners (sync_reset).
 * @mmu_pgt_addr: device physical address of the page-table area in HBM.
 * @mmu_pgt_size: size of the page-table area.
 * @mmu: the geometry of the device page tables (above).
 * @host_page_size: granularity of host-memory mappings.
 * @va_host_start: first device VA of the host-mapping range.
 * @va_host_end: one past the last device VA of the host-mapping range.
 * @va_dram_start: first device VA of the DRAM-mapping range.
 * @va_dram_end: one past the last device VA of the DRAM-mapping range.
 * @va_cb_start: first device VA of the range of driver-owned command
 *	buffers (HL_CB_FLAGS_MAP), outside both user ranges.
 * @va_cb_end: one past its last device VA.
 * @num_queues: number of engine queues.
 * @queue_type: each queue's kind (enum hl_queue_type), @num_queues
 *	entries; NULL: every queue is HL_QUEUE_TYPE_INT.
 * @tpc_enabled_mask: the TPC engines whose queues take jobs (HW_IP_INFO):
 *	0xff under asic=gaudi (GAUDI's TPC 0-7 queues; the emulated engine
 *	behind each runs the same packets as every other queue), else 0.
 * @num_nic_ports: number of NIC ports.
 * @num_sobs: sync objects of the sync manager (0: none, no SIGNAL/WAIT).
 * @num_monitors: its monitors.
 * @first_available_sob: per dcore (HL_INFO_SYNC_MANAGER's dcore_id, a
 *	sync manager block): the first SOB user command buffers may use; the
 *	driver's SIGNAL, WAIT and collective waits use those below.
 * @first_available_monitor: the same for monitors.
 */
struct asic_fixed_properties {
	char card_name[HL_INFO_CARD_NAME_MAX_LEN];
	const char *asic_name;
	u32 device_id;
	char fw_version[HL_INFO_VERSION_MAX_LEN];
	u64 dram_base_address;
	u64 dram_size;
	u64 dram_user_base_address;
	u64 dram_user_size;
	u64 dram_page_size;
	bool dram_supports_virtual_memory;
	u64 sram_base_address;
	u64 sram_size;
	u64 mmu_pgt_addr;
	u64 mmu_pgt_size;
	struct hl_mmu_properties mmu;
	u32 host_page_size;
	u64 va_host_start;
	u64 va_host_end;
	u64 va_dram_start;
	u64 va_dram_end;
	u64 va_cb_start;
	u64 va_cb_end;
	u32 num_queues;
	const u8 *queue_type;
	u8 tpc_enabled_mask;
	u32 num_nic_ports;
	u32 num_sobs;
	u32 num_monitors;
	u32 first_available_sob[HL_SM_NUM_DCORES];
	u32 first_available_monitor[HL_SM_NUM_DCORES];
};

/* Jobs of a collective wait at most: the master, 10 NIC slaves, the engine */
#define HL_CS_COLL_MAX_JOBS	12

/**
 * struct hl_coll_wait - a collective wait (HL_CS_FLAGS_COLLECTIVE_WAIT)
 *	as the core hands it to asic_funcs->gen_coll_cb.
 * @num_jobs: entries of @queues.
 * @queues: each job's queue: the master's first (asic_funcs->coll_queues).
 * @group: which of the master's two SOB groups this round uses.
 * @value: what each slave's SOB of the group reaches with this wait;
 *	the master waits for every one of them to reach it.
 * @sig_queue: what the slaves wait for: signal SOB @sig_idx of
 *	@sig_queue reaching @sig_value in its current round (as a WAIT).
 * @sig_idx: see @sig_queue.
 * @sig_value: see @sig_queue.
 * @early: TEST ONLY (inject_bug=128): the slaves signal the master's
 *	group without waiting for the signal.
 */
struct hl_coll_wait {
	u32 num_jobs;
	u32 queues[HL_CS_COLL_MAX_JOBS];
	u32 group;
	u32 value;
	u32 sig_queue;
	u32 sig_idx;
	u32 sig_value;
	bool early;
};

/**
 * struct hl_asic_funcs - what an ASIC backend provides to the core. The core
 * calls these and never asks which backend it runs on.
 * @early_init: map the BARs, fill hl_device_prop(); no engine runs yet.
 * @early_fini: undo early_init.
 * @hw_init: bring up engines and queues.
 * @hw_fini: stop every engine and queue; no DMA or HBM access after it.
 * @is_device_idle: return true when no queue has work; fill @mask (an array
 *	of @mask_len u64) with a bit per busy queue.
 * @read_pte: read the u64 at device physical address @addr of the page-table
 *	area.
 * @write_pte: write @val there.
 * @mmu_invalidate_cache: drop every cached translation of @asid (all ASIDs
 *	when @asid is 0); after it returns no new access uses a translation
 *	cached before the call.
 * @scrub_dram: zero @size bytes of HBM at device physical address @addr.
 * @dram_bar_addr: the CPU physical address at which the BAR exposes HBM
 *	device physical address @dram_pa, for dma_map_resource() by peers.
 * @queue_job: hand a job to its engine queue; the backend calls
 *	hl_cs_job_done() when the job finished or failed. Never fails once
 *	it returned 0.
 * @nic_port_info: fill the INFO entry of NIC port @port (below
 *	num_nic_ports); needed when num_nic_ports is not 0.
 * @nic_check_remote: whether a connection on @port may name @remote_addr:
 *	0, -ENETDOWN the port's link is down, -EADDRNOTAVAIL no port of the
 *	fabric has that address, -EHOSTUNREACH it is not cabled to @port.
 * @nic_peer_get: the device cabled to @port, with a reference, whatever
 *	the state of the link and of this device; *@addr receives the
 *	address of @port. NULL when @port is not cabled or the peer is not
 *	bound. Optional.
 * @nic_qp_create: create the QP context of connection @conn_id of @ctx on
 *	@port (in RESET, epoch 0; the context outlives it); returns it, or an
 *	ERR_PTR(). Sleeps. Needed when num_nic_ports is not 0, as the three
 *	below. The QP context is the backend's: the wire (PSNs, work queues,
 *	matching, the copy) runs there, and what it finds comes back through
 *	hl_nic_report() (nic.c).
 * @nic_qp_program: program a QP context with what the core decided
 *	(struct hl_nic_qp_attr); a new epoch flushes the work it took
 *	before. Called with the connection's spinlock held: takes only the
 *	backend's innermost locks.
 * @nic_qp_query: read a QP context's PSNs (QUERY_CONN).
 * @nic_qp_teardown: the connection is destroyed: flush its work, stop
 *	the fabric reaching it and drop the core's reference; once per QP
 *	context, after its last program. Sleeps.
 * @debugfs_init: add the backend's files under the device's debugfs
 *	directory @root (optional).
 * @sync_reset: reset every sync object, monitor and fence counter, and
 *	zero the SRAM (sram_size): the device's owner changed (a context was
 *	torn down and none of its jobs runs any more). Optional.
 * @gen_signal_cb: write into @buf (HL_CS_KCB_SIZE bytes) the packets of a
 *	SIGNAL on @queue: signal SOB @idx (0 or 1) of the queue becomes @value,
 *	by adding 1 (@set false) or by setting it (@set true, the first signal
 *	after a switch of SOB, which then zeroes the other SOB); return their
 *	size; *@sob_offset receives the SOB's configuration-space offset.
 *	Needed when num_sobs is not 0.
 * @gen_wait_cb: the packets that stall @queue until signal SOB @idx of
 *	queue @sig_queue reaches @value in its current round (the other SOB
 *	zeroed first: a value left from the SOB's previous round does not
 *	count); return their size.
 * @encaps_sob: the configuration-space offset of signal SOB @idx of
 *	@queue, set to 0 at once when @clear (a reservation of encapsulated
 *	signals switched to it; its last waiters are released).
 * @coll_queues: HL_CS_FLAGS_COLLECTIVE_WAIT on @master with reduction
 *	engine @engine_id (upstream's GAUDI_ENGINE_ID_*): fill @queues
 *	(HL_CS_COLL_MAX_JOBS entries) with the master, then its slaves;
 *	return their number, -EINVAL when @master is no collective master
 *	or @engine_id no reduction engine, -EOPNOTSUPP when the ASIC has
 *	no collective queues. Optional (absent: -EOPNOTSUPP).
 * @gen_coll_cb: the packets of job @job (0: the master, else a slave)
 *	of collective wait @cw; return their size (at most HL_CS_KCB_SIZE).
 * @coll_clear: zero SOB group @group of collective master @master at
 *	once (the first collective wait of a round; no job of the group's
 *	previous round is in flight).
 */
struct hl_asic_funcs {
	int (*early_init)(struct hl_device *hdev);
	void (*early_fini)(struct hl_device *hdev);
	int (*hw_init)(struct hl_device *hdev);
	void (*hw_fini)(struct hl_device *hdev);
	bool (*is_device_idle)(struct hl_device *hdev, u64 *mask, u32 mask_len);
	u64 (*read_pte)(struct hl_device *hdev, u64 addr);
	void (*write_pte)(struct hl_device *hdev, u64 addr, u64 val);
	void (*mmu_invalidate_cache)(struct hl_device *hdev, u32 asid);
	int (*queue_job)(struct hl_device *hdev, struct hl_cs_job *job);
	phys_addr_t (*dram_bar_addr)(struct hl_device *hdev, u64 dram_pa);
	void (*scrub_dram)(struct hl_device *hdev, u64 addr, u64 size);
	void (*nic_port_info)(struct hl_device *hdev, u32 port,
			      struct hl_info_nic_port *info);
	int (*nic_check_remote)(struct hl_device *hdev, u32 port,
				u64 remote_addr);
	struct hl_device *(*nic_peer_get)(struct hl_device *hdev, u32 port,
					  u64 *addr);
	void *(*nic_qp_create)(struct hl_device *hdev, struct hl_ctx *ctx,
			       u32 conn_id, u32 port);
	void (*nic_qp_program)(struct hl_device *hdev, void *qp,
			       const struct hl_nic_qp_attr *attr);
	void (*nic_qp_query)(struct hl_device *hdev, void *qp, u32 *sq_psn,
			     u32 *rq_psn);
	void (*nic_qp_teardown)(struct hl_device *hdev, void *qp);
	void (*debugfs_init)(struct hl_device *hdev, struct dentry *root);
	void (*sync_reset)(struct hl_device *hdev);
	u32 (*gen_signal_cb)(struct hl_device *hdev, void *buf, u32 queue,
			     u32 idx, u32 value, bool set, u32 *sob_offset);
	u32 (*gen_wait_cb)(struct hl_device *hdev, void *buf, u32 queue,
			   u32 sig_queue, u32 idx, u32 value);
	u32 (*encaps_sob)(struct hl_device *hdev, u32 queue, u32 idx,
			  bool clear);
	int (*coll_queues)(struct hl_device *hdev, u32 master, u32 engine_id,
			   u32 *queues);
	u32 (*gen_coll_cb)(struct hl_device *hdev, void *buf,
			   const struct hl_coll_wait *cw, u32 job);
	void (*coll_clear)(struct hl_device *hdev, u32 master, u32 group);
};

/* The backends' tables, one per ASIC family (hl_asic_funcs_of()) */
extern const struct hl_asic_funcs hl_emu_funcs;

/*
 * The device (asic.c, device.c). hl_device_prop() is the backend's to fill
 * at early_init and read-only afterwards; hl_device_set_asic() sets the
 * backend's private state at early_init and clears it at early_fini.
 */
struct asic_fixed_properties *hl_device_prop(struct hl_device *hdev);
struct pci_dev *hl_device_pdev(const struct hl_device *hdev);
int hl_device_id(const struct hl_device *hdev);
void *hl_device_asic(const struct hl_device *hdev);
void hl_device_set_asic(struct hl_device *hdev, void *asic_specific);
void hl_device_get(struct hl_device *hdev);
void hl_device_put(struct hl_device *hdev);

/*
 * Engine accesses (engine_access.c): every access of an engine to device
 * memory or to DMA-mapped host memory sits inside one; the lock rules are
 * above struct hl_device (habanalabs.h) and in engine_access.c.
 */
void hl_device_hw_access_begin(struct hl_device *hdev);
void hl_device_hw_access_end(struct hl_device *hdev);
void hl_device_hw_access_assert(struct hl_device *hdev);
bool hl_device_hw_enter(struct hl_device *hdev, int *idx);
void hl_device_hw_exit(struct hl_device *hdev, int idx, bool entered);
bool hl_device_hw_before(const struct hl_device *a, const struct hl_device *b);
bool hl_device_hw_enter_pair(struct hl_device *hdev, struct hl_device *peer,
			     int *idx);
void hl_device_hw_exit_pair(struct hl_device *hdev, struct hl_device *peer,
			    int idx, bool entered);
void hl_device_hw_quiesce(struct hl_device *hdev);

/*
 * Jobs (asic.c, command_submission.c): what asic_funcs->queue_job hands
 * the backend. The backend links a job it owns into its queue through
 * hl_cs_job_node() (no other user of the node while it owns the job),
 * asks hl_cs_job_check() between packets, chunks and while waiting whether
 * it may go on, and gives it back with hl_cs_job_done(), with no lock
 * held.
 */
struct hl_ctx *hl_cs_job_ctx(const struct hl_cs_job *job);
u32 hl_cs_job_asid(const struct hl_cs_job *job);
u64 hl_cs_job_cb_va(const struct hl_cs_job *job);
u32 hl_cs_job_cb_size(const struct hl_cs_job *job);
u32 hl_cs_job_queue(const struct hl_cs_job *job);
/*
 * A kernel-owned command buffer (SIGNAL, WAIT): the driver's copy of its
 * packets, which the backend reads instead of fetching through the MMU
 * (hl_cs_job_cb_va() is then 0); NULL for a user command buffer.
 */
const void *hl_cs_job_kcb(const struct hl_cs_job *job);

/* Largest kernel-owned command buffer (SIGNAL, WAIT), in bytes */
#define HL_CS_KCB_SIZE		128
unsigned long hl_cs_job_deadline(const struct hl_cs_job *job);
struct list_head *hl_cs_job_node(struct hl_cs_job *job);
struct hl_cs_job *hl_cs_job_from_node(struct list_head *node);
int hl_cs_job_check(struct hl_cs_job *job);
void hl_cs_job_done(struct hl_cs_job *job, int error);

/* Contexts (asic.c, context.c) */
u32 hl_ctx_asid(const struct hl_ctx *ctx);
void hl_ctx_put(struct hl_ctx *ctx);
void hl_ctx_record_fault(struct hl_ctx *ctx, u64 addr, u32 engine_id,
			 bool is_write);

/* Events and counters (events.c, counters.c) */
void hl_events_send(struct hl_device *hdev, u64 events);
void hl_events_undefined_opcode(struct hl_ctx *ctx, u32 queue, u64 cb_va);
void hl_events_job_start(struct hl_device *hdev);
void hl_events_job_end(struct hl_device *hdev);

/*
 * The NIC (nic.c, nic_mr.c). The core programs a backend's QP contexts
 * through asic_funcs->nic_qp_* (struct hl_nic_qp_attr, whose attributes
 * are struct hl_nic_conn_attr, defined here once) and learns what happened
 * on the wire only from hl_nic_report(). A WRITE's regions: the backend
 * looks them up by key (a reference each), brackets each step's access to
 * their pages with hl_nic_mr_access_begin_pair()/_end_pair() (or the
 * single forms) and drops them with hl_nic_mr_put(); struct hl_nic_mr is
 * opaque to it.
 */
struct hl_nic_mr;

/**
 * struct hl_nic_conn_attr - a connection's attributes, as the core decides
 * them and programs them into the backend's QP context
 * (asic_funcs->nic_qp_program()). Defined once: the core keeps them in
 * struct hl_nic_conn, the backend in its QP context (under their locks).
 * @state: enum hl_nic_conn_state.
 * @epoch: bumped by every move to ERR or RESET and by destruction; a new
 *	one flushes the work the QP context took before.
 * @flush_status: what work of an older epoch completes with: FLUSHED, or
 *	REMOTE_ERR (LINK_DOWN) when the last bump was the peer's owner going
 *	away (the peer device being removed).
 * @destroyed: DESTROY_CONN or the context's close (the last program).
 * @remote_addr: the peer port's address (RTR and later), or 0.
 * @remote_conn_id: the peer connection (RTR and later), or 0.
 * @mtu: largest packet payload (RTS), or 0.
 * @sq_size: sends outstanding at most (RTS), or 0.
 * @rq_size: receives posted at most (RTR and later), or 0.
 * @send_cq: handle of the CQ of send completions, or 0.
 * @recv_cq: handle of the CQ of receive completions, or 0.
 */
struct hl_nic_conn_attr {
	enum hl_nic_conn_state state;
	u32 epoch;
	u32 flush_status;
	bool destroyed;
	u64 remote_addr;
	u32 remote_conn_id;
	u32 mtu;
	u32 sq_size;
	u32 rq_size;
	u32 send_cq;
	u32 recv_cq;
};

/**
 * struct hl_nic_qp_attr - what the core programs into the backend's QP
 * context (asic_funcs->nic_qp_program()).
 * @conn: the connection's attributes, as they are now (the core's, under
 *	its lock for the call).
 * @set_sq_psn: start the send PSN at @sq_psn (SET_REQ_CONN_CTX, RESET).
 * @sq_psn: see @set_sq_psn.
 * @set_rq_psn: start the expected PSN at @rq_psn (SET_RES_CONN_CTX,
 *	RESET).
 * @rq_psn: see @set_rq_psn.
 */
struct hl_nic_qp_attr {
	const struct hl_nic_conn_attr *conn;
	bool set_sq_psn;
	u32 sq_psn;
	bool set_rq_psn;
	u32 rq_psn;
};

/* hl_nic_cqe_report.flags: the connection moves to ERR */
#define HL_NIC_REPORT_FAIL	BIT(0)

/**
 * struct hl_nic_cqe_report - what the backend reports of a connection
 * (hl_nic_report()).
 * @cqe: the completion entry, whole (its @conn_id names the connection);
 *	posted to @cq.
 * @cq: handle of the CQ the work reports to (the QP's when it took the
 *	work), or 0: no entry, only the error.
 * @epoch: the connection's epoch the work ran in (as programmed).
 * @flags: HL_NIC_REPORT_FAIL: the work failed and the connection moves to
 *	ERR, unless it moved on (its epoch is no longer @epoch).
 */
struct hl_nic_cqe_report {
	struct hl_nic_cqe cqe;
	u32 cq;
	u32 epoch;
	u32 flags;
};

/**
 * hl_nic_conn_takes_sends - a connection in @state accepts SENDs.
 * @state: its state.
 *
 * Return: true in RTS only.
 */
static inline bool hl_nic_conn_takes_sends(enum hl_nic_conn_state state)
{
	return state == HL_NIC_CONN_STATE_RTS;
}

/**
 * hl_nic_conn_takes_recvs - a connection in @state accepts RECVs, and
 * messages into them.
 * @state: its state.
 *
 * Return: true in RTR and RTS.
 */
static inline bool hl_nic_conn_takes_recvs(enum hl_nic_conn_state state)
{
	return state == HL_NIC_CONN_STATE_RTR || state == HL_NIC_CONN_STATE_RTS;
}

/* nic.c: for the backends */
void hl_nic_report(struct hl_device *hdev, const struct hl_nic_cqe_report *r);
bool hl_nic_ctx_get_reached(struct hl_device *hdev, struct hl_ctx *ctx);

int hl_nic_mr_lookup(struct hl_ctx *ctx, u32 lkey, u64 va, u64 len,
		     struct hl_nic_mr **mr, u64 *dev_va);
int hl_nic_mr_lookup_remote(struct hl_ctx *ctx, struct hl_device *from,
			    const void *qp, u32 rkey, u32 need, u64 va, u64 len,
			    struct hl_nic_mr **mr, u64 *dev_va);
bool hl_nic_mr_access_begin(struct hl_nic_mr *mr);
void hl_nic_mr_access_end(struct hl_nic_mr *mr);
int hl_nic_mr_access_begin_pair(struct hl_nic_mr *local,
				struct hl_nic_mr *remote);
void hl_nic_mr_access_end_pair(struct hl_nic_mr *local,
			       struct hl_nic_mr *remote);
void hl_nic_mr_put(struct hl_nic_mr *mr);

/* The fabric's cabling (the nic_links module parameter) */
extern char *hl_nic_links;

/*
 * Test-only (debug.c, built only with CONFIG_HABANALABS_DEBUG; the stubs
 * say "off" without it, and the compiler drops what they guard).
 */
/* The KUnit suite's PRNG seed without the kunit_seed parameter */
#define HL_KUNIT_SEED_DEFAULT	42

#if IS_ENABLED(CONFIG_HABANALABS_DEBUG)
extern unsigned long hl_kunit_seed;
extern bool hl_nic_two_copies_on;

/* The emulated MMU KUnit suite's seed (kunit_seed) */
static inline unsigned long hl_kunit_seed_get(void)
{
	return hl_kunit_seed;
}

/* Whether the emulated NIC copies each byte twice (nic_two_copies) */
static inline bool hl_nic_two_copies(void)
{
	return unlikely(READ_ONCE(hl_nic_two_copies_on));
}

void hl_bug_signal_alloc(void);
#else
static inline unsigned long hl_kunit_seed_get(void)
{
	return HL_KUNIT_SEED_DEFAULT;
}

static inline bool hl_nic_two_copies(void)
{
	return false;
}

static inline void hl_bug_signal_alloc(void)
{
}
#endif /* CONFIG_HABANALABS_DEBUG */

#if IS_ENABLED(CONFIG_HABANALABS_KUNIT_TEST)
/*
 * KUnit (asic.c): a device that holds only what a backend's unit test
 * needs (a struct device, the properties, the engine-access lock, and no
 * NIC owner, so that hl_nic_report() drops what it is told), with
 * @asic_specific as the backend's state; freed with the test.
 */
struct hl_device *hl_device_kunit_alloc(struct kunit *test,
					void *asic_specific);
#endif

#endif /* HL_ASIC_H_ */

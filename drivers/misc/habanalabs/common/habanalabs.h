/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: driver-private definitions shared by the device-independent
 * core (common/) and the ASIC backends (emu/).
 *
 * Header rule: this file holds the device (struct hl_device) and what
 * every part of the driver shares: the ASIC ops table and properties, the
 * open file, the module parameters (habanalabs_drv.c) and the logging
 * helpers. Every .c that exports functions has a header of its own, named
 * after it, holding its objects and prototypes: context.h (the compute
 * context), command_submission.h (the CS job), device.h, ioctl.h
 * (habanalabs_ioctl.c), sysfs.h, debugfs.h, memory.h, dmabuf.h, mmu.h,
 * nic.h, events.h, command_buffer.h, scrub.h, fault.h; emu/emu.h for the
 * backend. A .c includes the headers of what it calls. Kernel-doc sits on
 * the definitions, not here.
 *
 * The driver's lock order is written once, above struct hl_device.
 */
#ifndef HABANALABS_H_
#define HABANALABS_H_

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/genalloc.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <uapi/misc/habanalabs.h>

#include "events.h"
#include "mmu.h"

#define HL_NAME				"habanalabs"

/* Each device has a compute node and a control node */
#define HL_MAX_MINORS			256
#define HL_MAX_DEVICES			(HL_MAX_MINORS / 2)

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
			dev_dbg((hdev)->dev, fmt, ##__VA_ARGS__);	\
	} while (0)
#define hl_err(hdev, fmt, ...)	dev_err((hdev)->dev, fmt, ##__VA_ARGS__)
#define hl_warn(hdev, fmt, ...)	dev_warn((hdev)->dev, fmt, ##__VA_ARGS__)
#define hl_info(hdev, fmt, ...)	dev_info((hdev)->dev, fmt, ##__VA_ARGS__)
#define hl_err_ratelimited(hdev, fmt, ...)				\
	dev_err_ratelimited((hdev)->dev, fmt, ##__VA_ARGS__)

struct hl_device;
struct hl_scrub;
struct hl_ctx;
struct hl_cs_job;
struct hl_nic_qp_attr;

/**
 * enum hl_asic_type - the ASIC families the driver knows.
 * @ASIC_INVALID: not a supported device.
 * @ASIC_EMU: the software-emulated GAUDI-like ASIC (ivshmem BAR2 = HBM).
 */
enum hl_asic_type {
	ASIC_INVALID,
	ASIC_EMU,
};

/**
 * struct asic_fixed_properties - static properties of an ASIC, filled by the
 * backend's early_init and read-only afterwards.
 * @card_name: ASIC name reported by INFO and sysfs.
 * @fw_version: firmware version string reported by INFO (cpucp_version).
 * @dram_base_address: device physical address of the first byte of HBM.
 * @dram_size: total HBM size.
 * @dram_user_base_address: device physical address of the first byte of
 *	user-allocatable HBM (after the driver-reserved area).
 * @dram_user_size: bytes of user-allocatable HBM.
 * @dram_page_size: default DRAM allocation page size.
 * @mmu_pgt_addr: device physical address of the page-table area in HBM.
 * @mmu_pgt_size: size of the page-table area.
 * @mmu: the geometry of the device page tables (mmu.h).
 * @host_page_size: granularity of host-memory mappings.
 * @va_host_start: first device VA of the host-mapping range.
 * @va_host_end: one past the last device VA of the host-mapping range.
 * @va_dram_start: first device VA of the DRAM-mapping range.
 * @va_dram_end: one past the last device VA of the DRAM-mapping range.
 * @va_cb_start: first device VA of the range of driver-owned command
 *	buffers (HL_CB_FLAGS_MAP), outside both user ranges.
 * @va_cb_end: one past its last device VA.
 * @num_queues: number of engine queues.
 * @num_nic_ports: number of NIC ports.
 * @num_sobs: sync objects of the sync manager (0: none, no SIGNAL/WAIT).
 * @num_monitors: its monitors.
 * @first_available_sob: the first SOB user command buffers may use; the
 *	driver's SIGNAL and WAIT use those below (HL_INFO_SYNC_MANAGER).
 * @first_available_monitor: the same for monitors.
 */
struct asic_fixed_properties {
	char card_name[HL_INFO_CARD_NAME_MAX_LEN];
	char fw_version[HL_INFO_VERSION_MAX_LEN];
	u64 dram_base_address;
	u64 dram_size;
	u64 dram_user_base_address;
	u64 dram_user_size;
	u64 dram_page_size;
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
	u32 num_nic_ports;
	u32 num_sobs;
	u32 num_monitors;
	u32 first_available_sob;
	u32 first_available_monitor;
};

/**
 * struct hl_asic_funcs - what an ASIC backend provides to the core. The core
 * calls these and never asks which backend it runs on.
 * @early_init: map the BARs, fill hdev->asic_prop; no engine runs yet.
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
 *	hl_nic_report() (nic.h).
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
 * @sync_reset: reset every sync object, monitor and fence counter: the
 *	device's owner changed (a context was torn down and none of its jobs
 *	runs any more). Optional.
 * @gen_signal_cb: write into @buf (HL_CS_KCB_SIZE bytes) the packets of a
 *	SIGNAL on @queue: signal SOB @idx (0 or 1) of the queue becomes @value,
 *	by adding 1 (@set false) or by setting it (@set true, the first signal
 *	after a switch of SOB); return their size; *@sob_offset receives the
 *	SOB's configuration-space offset. Needed when num_sobs is not 0.
 * @gen_wait_cb: the packets that stall @queue until signal SOB @idx of
 *	queue @sig_queue reaches @value; return their size.
 * @encaps_sob: the configuration-space offset of signal SOB @idx of
 *	@queue, set to 0 at once when @clear (a reservation of encapsulated
 *	signals switched to it; its last waiters are released).
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
};

/**
 * struct hl_fpriv - one open file of a device node.
 * @hdev: the device; holds a reference on it.
 * @ctx: the compute context (compute node only, else NULL).
 * @is_control: opened through the control node.
 * @dead: a hard reset took the device from under the file: its ioctls
 *	get -ENODEV (but HL_INFO_GET_EVENTS and UNREGISTER_EVENTFD) and its
 *	context goes (set under hl_device.fpriv_list_lock; read unlocked by
 *	the dispatcher, the context's own @dead under its gate is what
 *	guards its state).
 * @notifier: the file's registered eventfd and pending events (events.c).
 */
struct hl_fpriv {
	struct hl_device *hdev;
	struct hl_ctx *ctx;
	bool is_control;
	bool dead;
	struct hl_notifier notifier;
};

/*
 * Lock order, outermost first (a lock may be taken while holding any lock
 * above it, never one below it). This is the only place it is written and
 * it names every lock of the driver, the emulated backend's too; the other
 * files point here. A function named *_locked, or documented as called
 * with a lock held, asserts it (lockdep_assert_held*(),
 * dma_resv_assert_held()) at its top. Locks internal to a kernel facility
 * the driver uses (a gen_pool's, an ida's, a wait queue's, a workqueue's)
 * are innermost to whatever holds them and not listed; an xarray's own
 * lock is listed where the driver takes it (xa_lock()).
 *   hl_device.reset_lock
 *   hl_device.fpriv_list_lock
 *   hl_ctx.gate (one context's at a time; held for read by ioctls, never
 *	across a user memory access)
 *   hl_device.ctx_list_lock
 *   hl_nic_ctx.lock (never held with hl_ctx.mem_lock)
 *   hl_nic_ctx.mr_lock (never held with hl_nic_ctx.lock; nic_mr.c)
 *   hl_cb_mgr.lock (under mmap_lock in mmap() and in a CB mapping's
 *	fault; never held with hl_ctx.mem_lock or hl_nic_ctx.lock)
 *   hl_ctx.mem_lock
 *   hl_device.host_maps_lock (memory.c: counts a mapping's host pages
 *	while it is pinned or unpinned; nothing of the driver's under it)
 *   hl_device.mmu_lock
 *   hl_nic_mr.rwsem (a region's: for write by DEREG_MR and the context's
 *	close, holding no other lock; for read by the NIC data path around
 *	each step that moves bytes into or out of the region, outside any
 *	engine access. A WRITE's step holds its two regions, its own
 *	device's and the peer's, in the devices' order below,
 *	hl_device_hw_before(); a lockdep class per device index)
 *   hl_device.unplug_srcu (not a lock: its read sections,
 *	hl_device_enter(), nest under anything; removal and hard reset wait
 *	for them holding only the locks above hl_ctx.gate), then
 *	hl_device.engine_access_rwsem (an engine access: a backend takes it
 *	only through hl_device_hw_access_begin(), hl_device_hw_enter() and
 *	hl_device_hw_enter_pair(), engine_access.c, and hl_device_hw_quiesce()
 *	waits for the accesses; the NIC data path holds no NIC lock around
 *	one; an engine queue's worker holds no other lock around it). Two
 *	devices' accesses are held at once only by the NIC's step, through
 *	hl_device_hw_enter_pair(): the peer's unplug SRCU section first,
 *	then the access of the device of the lower index
 *	(hl_device_hw_before()), then the other's; inside both it waits for
 *	nothing else. Each device's access is a lockdep class of its own
 *	(by index), so lockdep checks this order. A loopback (the peer is
 *	the device) takes one. Any other order deadlocks: two engines
 *	sending in opposite directions, each inside its own device's access
 *	and waiting for the other's behind a quiescer
 *	(hl_device_hw_quiesce(): a waiting writer blocks new readers) that
 *	waits for it
 *   hl_device.dmabuf_lock
 *   hl_dmabuf_quarantine_lock (dmabuf.c: the quarantined exports, under
 *	hl_device.dmabuf_lock or alone; nothing under it)
 *   dma_buf.resv (the exports of a context share hl_ctx.resv->resv)
 *   hl_emu_cabling_lock (emu_nic.c: parses nic_links once, at hw_init;
 *	nothing under it), hl_emu_link_switch_lock (emu_nic.c: a debugfs link
 *	switch; hl_emu_fabric_lock and hl_device.notifier_lock under it)
 *   hl_ctx.cs_lock, hl_ctx.fault_lock (spinlocks)
 *   hl_cs_fence.lock (a CS fence's spinlock, taken by dma_fence_signal()
 *	and the dma_fence calls of any holder of the fence, under any of the
 *	above; the driver's fence callbacks that run under it, WAIT_CS's
 *	and the quarantine's, only wake a waiter or queue a work)
 *   hl_scrub.lock (scrub.c: the dirty DRAM, a spinlock; only the
 *	gen_pool's own under it)
 *   hl_device.notifier_lock, hl_dev_counters.util_lock (spinlocks taken
 *	under any of the above and under the emulated backend's; nothing
 *	but an eventfd's own lock is taken under them)
 *   hl_device.nic_lock, then an hl_nic_ctx xarray's lock, then
 *	hl_nic_conn.lock, then hl_nic_cq.lock (spinlocks; nic.h;
 *	hl_nic_report() takes them in this order, called by the backend with
 *	none of its locks held); a context's NIC key tables' lock
 *	(hl_nic_mr_keys.lock, nic_mr.c), taken under hl_nic_ctx.mr_lock or
 *	alone, nothing under it (the rkey check takes hl_nic_conn.lock and
 *	sends its event after it let it go); a context's
 *	hl_nic_mr_keys.check_lock (a mutex, the rkey checks of devices past
 *	their free failures, one at a time) is taken by the data path with
 *	no lock held, and only the key tables' lock is taken under it
 *   hl_emu_qp.lock (a QP context's, emu_nic_qp.c: taken under
 *	hl_nic_conn.lock when the core programs or queries it
 *	(asic_funcs->nic_qp_program, nic_qp_query), else alone; never two at
 *	once; nothing under it but a wait queue's)
 *   hl_emu_queue.lock, hl_emu_fabric_lock, hl_emu_nic.qps's xarray lock
 *	(the emulated backend's other spinlocks, emu.h, emu_nic.c and
 *	emu_nic_qp.c; nothing is taken under them but the workqueue's own
 *	locks, and never two at once)
 *   hl_fault_sites_lock (fault.c: the fault points' counts, a spinlock
 *	with interrupts off, taken by hl_should_fail() under any lock above;
 *	innermost: nothing under it)
 */

/**
 * struct hl_device - one accelerator.
 * @refcount: the structure is freed when the PCI device is gone and the last
 *	open file, context or export has let go of it.
 * @pdev: the PCI function; the device holds a reference on it.
 * @dev: the PCI function's struct device: log device and DMA device.
 * @dev_obj: the compute node's device (/dev/hlN).
 * @dev_ctrl_obj: the control node's device (/dev/hl_controlDN).
 * @cdev: the compute node's character device.
 * @cdev_ctrl: the control node's character device.
 * @id: device index N; minors 2N and 2N + 1.
 * @asic_type: which backend drives it.
 * @asic_funcs: the backend's operations.
 * @asic_specific: the backend's private data.
 * @asic_prop: static ASIC properties.
 * @unplug_srcu: readers are ioctls and file operations that touch hardware;
 *	removal waits for them after setting @unplugged.
 * @unplugged: set once when the PCI device goes away.
 * @fpriv_list_lock: Protects @compute_fpriv and @status changes.
 * @compute_fpriv: the open file of the compute node, or NULL.
 * @status: enum hl_device_status.
 * @dram_used: bytes of user DRAM allocated by all contexts.
 * @dram_quarantined: bytes of @dram_used that a revocation keeps for fences
 *	that did not signal in time (dmabuf.c), until they do.
 * @dram_pool: the user-allocatable DRAM that is clean, in DRAM pages (locks
 *	itself); released DRAM waits in @scrub until zeroed.
 * @scrub: the DRAM scrubber (scrub.c).
 * @mmu_pgt_pool: HBM for hop tables 1..3, in hop tables (locks itself).
 * @mmu_lock: Protects every context's page tables in HBM.
 * @asid_ida: allocates ASIDs 1 .. asic_prop.mmu.max_asid - 1.
 * @engine_access_rwsem: engines hold it for read around each translated
 *	access; unmap paths take it for write once after invalidating, so
 *	that nothing still accesses a page about to be released.
 * @pinned_host_pages: host pages pinned by all contexts' mappings.
 * @host_maps_lock: Protects @host_maps.
 * @host_maps: how many of the device's mappings hold each host page: key =
 *	pfn, value = xa_mk_value(count), at most HL_MEM_MAX_HOST_PAGE_MAPS.
 * @ctx_list_lock: Protects @ctx_list and @ctx_teardowns.
 * @ctx_list: every context not torn down yet.
 * @ctx_teardowns: teardowns in progress (hl_ctx_teardown()), also of
 *	contexts already off @ctx_list; removal waits for none to be left.
 * @dmabuf_lock: Protects @dmabuf_list, @exports_revoked, and each export's
 *	link to its context (struct hl_dmabuf: ctx, mapping) with the
 *	mapping's and allocation's export counts.
 * @dmabuf_list: live dma-buf exports of the device's memory.
 * @exports_revoked: the device is going away: no new export.
 * @dmabuf_mappings: live mappings of the exports, by all importers.
 * @dmabuf_wq: woken when @dmabuf_mappings drops.
 * @reset_lock: serialises hard resets with each other and with removal.
 * @mmu_unlink_gen: generation of page-table unlinks (under @mmu_lock):
 *	hl_mmu_invalidate() frees only hop tables unlinked before it began.
 * @debugfs_root: the device's debugfs directory.
 * @nic_lock: Protects @nic_ctx.
 * @nic_ctx: the context whose connections the NIC fabric reaches: the
 *	compute owner's, from its creation until its file is closed; or NULL.
 * @notifier_lock: Protects @notifier_list and the hl_notifier of each
 *	open file (events.c).
 * @notifier_list: the open files with a registered eventfd.
 * @counters: what the device counts for HL_INFO (events.c).
 * @fail_copy_out: TEST ONLY (debugfs fail_copy_out): the next this many
 *	successful ioctls fail their copy back to user space with -EFAULT.
 * @contexts_alive: context structures not freed yet (hl_ctx_create() to
 *	the end of its release work), torn down or not (debugfs info).
 * @cbs_alive: command buffers not freed yet, of every context (debugfs
 *	info); each holds its context, which holds the device.
 */
struct hl_device {
	struct kref refcount;
	struct pci_dev *pdev;
	struct device *dev;
	struct device dev_obj;
	struct device dev_ctrl_obj;
	struct cdev cdev;
	struct cdev cdev_ctrl;
	int id;
	enum hl_asic_type asic_type;
	const struct hl_asic_funcs *asic_funcs;
	void *asic_specific;
	struct asic_fixed_properties asic_prop;
	struct srcu_struct unplug_srcu;
	bool unplugged;
	struct mutex fpriv_list_lock; /* Protects: compute_fpriv, status */
	struct hl_fpriv *compute_fpriv;
	enum hl_device_status status;
	atomic64_t dram_used;
	atomic64_t dram_quarantined;
	struct gen_pool *dram_pool;
	struct hl_scrub *scrub;
	struct gen_pool *mmu_pgt_pool;
	struct mutex mmu_lock; /* Protects: page tables in HBM */
	struct ida asid_ida;
	struct rw_semaphore engine_access_rwsem;
	atomic64_t pinned_host_pages;
	struct mutex host_maps_lock; /* Protects: host_maps */
	struct xarray host_maps;
	struct mutex ctx_list_lock; /* Protects: ctx_list */
	struct list_head ctx_list;
	unsigned int ctx_teardowns;
	struct mutex dmabuf_lock; /* Protects: dmabuf_list, exports_revoked, export links */
	struct list_head dmabuf_list;
	bool exports_revoked;
	atomic_t dmabuf_mappings;
	wait_queue_head_t dmabuf_wq;
	struct mutex reset_lock; /* Protects: hard reset vs removal */
	u64 mmu_unlink_gen;
	struct dentry *debugfs_root;
	spinlock_t nic_lock; /* Protects: nic_ctx */
	struct hl_ctx *nic_ctx;
	spinlock_t notifier_lock; /* Protects: notifier_list, each file's notifier */
	struct list_head notifier_list;
	struct hl_dev_counters counters;
	atomic_t fail_copy_out;
	atomic_t contexts_alive;
	atomic_t cbs_alive;
};

/* habanalabs_drv.c */
extern const struct class hl_class;
extern dev_t hl_devt;
extern struct workqueue_struct *hl_wq;

/*
 * Module parameters, all declared in habanalabs_drv.c (each one's meaning
 * and default are in its MODULE_PARM_DESC there). The 0644 ones change at
 * any time through sysfs: read them with READ_ONCE(). Per-device switches
 * are debugfs files instead (debugfs.c).
 */

/**
 * enum hl_p2p_policy - module parameter p2p_policy, parsed once when set.
 * @HL_P2P_STRICT: "strict" (or anything but "iommu"): an importer that
 *	pci_p2pdma_distance() refuses is refused.
 * @HL_P2P_IOMMU: "iommu": also allow a PCI importer under the same host
 *	bridge whose DMA an IOMMU translates (dmabuf.c).
 */
enum hl_p2p_policy {
	HL_P2P_STRICT,
	HL_P2P_IOMMU,
};

extern enum hl_p2p_policy hl_p2p_policy;
extern bool hl_memory_scrub;
extern unsigned int hl_timeout_locked;
extern unsigned int hl_job_timeout_max;
extern unsigned int hl_max_pending_cs;
extern char *hl_nic_links;

/* emu/emu.c */
extern const struct hl_asic_funcs hl_emu_funcs;

#endif /* HABANALABS_H_ */

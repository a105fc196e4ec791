/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: driver-private definitions of the device-independent core
 * (common/). A backend (emu/) never includes this header: it sees the core
 * through asic.h alone.
 *
 * Header rule: this file holds the device (struct hl_device) and what
 * every part of the core shares: the open file and the module parameters
 * (habanalabs_drv.c). asic.h holds what the core shares with a backend:
 * the ASIC ops table and properties, the logging helpers and the calls a
 * backend may make. Every .c that exports functions has a header of its
 * own, named after it, holding its objects and prototypes: context.h (the
 * compute context), command_submission.h (the CS job), device.h, ioctl.h
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

#include "asic.h"
#include "events.h"
#include "mmu.h"

/* Each device has a compute node and a control node */
/*
 * hlN, hl_controlDN: 2N, 2N + 1; accel_controlDN (accel.c) after them, on
 * even minors: hl-thunk takes an odd minor for a control node of the old
 * layout and reads pci_addr at the minor before it
 */
#define HL_MAX_MINORS			(HL_MAX_DEVICES * 4)
#define HL_ACCEL_CTRL_MINOR(id)		(HL_MAX_DEVICES * 2 + 2 * (id))

/*
 * The logging helpers (hl_err(), hl_dbg(), ...), the ASIC ops table (struct
 * hl_asic_funcs) and properties (struct asic_fixed_properties): asic.h, the
 * door the backends share with the core.
 */

struct drm_device;
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
 *   hl_device.host_pages_lock (memory.c: DMA-maps and unmaps host pages
 *	for the device's mappings; nothing of the driver's under it)
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
 *   hl_emu_cabling_lock (emu_nic_fabric.c: parses nic_links once, at
 *	hw_init; nothing under it), hl_emu_link_switch_lock (emu_nic_fabric.c:
 *	a debugfs link switch; hl_emu_fabric_lock and hl_device.notifier_lock
 *	under it)
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
 *	(the emulated backend's other spinlocks, emu.h, emu_nic_fabric.c
 *	and emu_nic_qp.c; nothing is taken under them but the workqueue's own
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
 * @drm: with accel_nodes, the DRM device of /dev/accel/accelN (accel.c),
 *	else NULL.
 * @dev_accel_ctrl_obj: with accel_nodes, /dev/accel/accel_controlDN's
 *	device (accel.c).
 * @cdev_accel_ctrl: its character device.
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
 * @pinned_host_pages: pins of host pages held by all contexts' mappings:
 *	a page in N mappings counts N times (each MAP pins its pages).
 * @host_pages_lock: Protects @host_pages, @host_dma_pages, @host_dma_maps,
 *	the struct hl_host_page they lead to and the runs of host pages
 *	(memory.c).
 * @host_pages: the host pages DMA-mapped for the device, in a MAP's run
 *	or with a DMA mapping of their own shared by the device's mappings of
 *	them (memory.c): key = pfn.
 * @host_dma_pages: entries of @host_pages (debugfs info).
 * @host_dma_maps: DMA mappings of host pages: runs and pages' own (debugfs
 *	info).
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
 * @debugfs_link: under asic=gaudi, habanalabs/hlN, a link to it (upstream's
 *	name), else NULL.
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
	struct drm_device *drm;
	struct device dev_accel_ctrl_obj;
	struct cdev cdev_accel_ctrl;
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
	struct mutex host_pages_lock; /* Protects: host_pages, host_dma_* */
	struct xarray host_pages;
	unsigned long host_dma_pages;
	unsigned long host_dma_maps;
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
	struct dentry *debugfs_link;
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

#endif /* HABANALABS_H_ */

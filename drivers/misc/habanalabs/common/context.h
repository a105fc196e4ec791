/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: the compute context (context.c): its object, the reservation
 * object its exports share, and the functions of context.c. Its place in
 * the driver's lock order is in habanalabs.h, above struct hl_device.
 */
#ifndef HL_CONTEXT_H_
#define HL_CONTEXT_H_

#include <linux/atomic.h>
#include <linux/dma-resv.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/maple_tree.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <uapi/misc/habanalabs.h>

#include "command_buffer.h"
#include "events.h"
#include "nic.h"

/* hl_ctx_put(), hl_ctx_record_fault(), hl_ctx_asid(): asic.h */
#include "asic.h"

struct hl_device;
struct hl_vm_phys_pg_pack;

/**
 * struct hl_ctx_resv - the reservation object that every export of one
 * context shares.
 * @refcount: held by the context and by each of its exports, which may
 *	outlive it.
 * @resv: every CS of the context adds its fence here, WRITE usage, so an
 *	export made while a CS runs carries that CS's fence.
 */
struct hl_ctx_resv {
	struct kref refcount;
	struct dma_resv resv;
};

/**
 * struct hl_ctx - a compute context: everything one user of the compute node
 * owns. hl_ctx_teardown() releases all of it when the file is closed (or a
 * hard reset kills it): running work is cancelled and waited for, and only
 * what an export holds (its allocation, through hl_vm_phys_pg_pack) stays.
 * The structure itself is refcounted (the file, each running CS, a NIC
 * transfer into the context) and freed with the last reference.
 * @refcount: the structure is freed when the last user is gone.
 * @hdev: the device; the context holds a reference on it.
 * @node: in hdev->ctx_list until the teardown.
 * @gate: the context's ioctls hold it for read while they use its state
 *	(hl_ctx_enter()), but never across a user memory access or a wait
 *	whose length user space chooses (hl_ctx_pause()); hl_ctx_teardown()
 *	and device removal hold it for write, so they wait only for work
 *	that does not depend on user space.
 * @dead: no ioctl, commit or undo may use the context's state any more: it
 *	is torn down, or the device it belongs to is gone (set under @gate
 *	held for write).
 * @torn_down: hl_ctx_teardown() started (under @gate held for write and
 *	hdev->ctx_list_lock).
 * @closing: set at the start of the teardown: jobs of the context abort at
 *	their next check (-ECANCELED).
 * @killed: a hard reset tears the context down; set before it revokes
 *	the exports, so that an EXPORT still running publishes nothing
 *	after the revocation (read under hl_device.dmabuf_lock).
 * @resv: the reservation object of the context's exports; held.
 * @asid: the context's address-space ID; its hop0 table is fixed by it.
 * @mem_lock: Protects @handles, @va_host, @va_dram and the objects in them.
 * @handles: device-memory allocations by handle (struct hl_vm_phys_pg_pack).
 * @next_handle: cursor of the cyclic handle allocator.
 * @va_host: the host-mapping VA range, in host pages: index = VA >> 12,
 *	entry = struct hl_vm_mapping.
 * @va_dram: the DRAM-mapping VA range, in DRAM pages: index = VA >> 21.
 * @mmu_hops: the context's hop tables: key = HBM address / hop table size
 *	(asic_prop.mmu), value = number of present PTEs (under
 *	hdev->mmu_lock).
 * @dram_usage: bytes of DRAM allocated by this context (without a DRAM MMU:
 *	the bytes its ALLOCs accounted, under @mem_lock).
 * @dram_owner: without a DRAM MMU, the whole user DRAM, which the context
 *	owns from its creation to its teardown (memory.c); else NULL.
 * @fault_lock: Protects @last_fault, @last_cs_timeout, @last_undef_opcode.
 * @last_fault: the last device MMU fault of the context's jobs.
 * @last_cs_timeout: the context's last CS that failed on its timeout:
 *	seq, time (ns); HL_INFO_CS_TIMEOUT_EVENT (events.c).
 * @last_undef_opcode: the context's last job that failed on a malformed
 *	CB: time (ns), queue, CB address; HL_INFO_UNDEFINED_OPCODE_EVENT.
 * @cs_lock: Protects @cs_sequence, @cs_fences, @cs_outcomes and
 *	@cs_outcome_next.
 * @cs_sequence: sequence number of the next command submission.
 * @cs_fences: fences by sequence number: every CS that has not signalled,
 *	and the last HL_CS_MAX_TRACKED ones (command_submission.c).
 * @cs_outcomes: ring of the last HL_CS_OUTCOMES forgotten CSs submitted
 *	with HL_CS_FLAGS_TIMESTAMP: seq (0: empty), completion time (ns),
 *	error; each read by one WAIT_CS (command_submission.c).
 * @cs_outcome_next: the next entry of @cs_outcomes to write.
 * @cs_inflight: published submissions whose fence has not signalled
 *	yet; the teardown waits for them (bounded by the job time limit).
 * @cs_submitted: submissions created and not completed, published or not
 *	(at most max_pending_cs).
 * @ext_entries: per engine queue (external queues only), the entries its
 *	queue holds for jobs of this context's submissions created and not
 *	completed: one per job, at most HL_EXT_QUEUE_LENGTH (upstream's queue
 *	depth); taken when the submission is created, given back when it
 *	completes or is dropped (command_submission.c).
 *	Kept, with @sig_lock, @sig and @coll, until the structure is freed
 *	(hl_cs_ctx_destroy()): an uncommitted CS's drop uses them after the
 *	teardown.
 * @sig_lock: Protects @sig, @coll. A SIGNAL or COLLECTIVE_WAIT
 *	submission holds it from taking its value until its commit (or
 *	drop), in the same ioctl call, so that the signals of a queue reach
 *	its SOB in the order of their values;
 *	taken outside the context's gate (its holder may wait on user space
 *	with the gate paused), before the reservation lock, never inside a
 *	fence's signalling path.
 * @sig: per engine queue, the driver's signal SOB in use (0 or 1) and
 *	the value the last SIGNAL gave it (command_submission.c).
 * @coll: per engine queue that is a collective master, the SOB group in
 *	use (0 or 1), the value the last collective wait gave it, and the
 *	last collective wait of each group (command_submission.c); under
 *	@sig_lock, which a collective wait holds as a SIGNAL does.
 * @encaps: reserved encapsulated signals by handle id (1 ..
 *	HL_CS_MAX_ENCAPS), struct hl_cs_encaps; added and removed under
 *	@sig_lock (a completed CS removes its own without it); its xa_lock
 *	protects each entry's cs_seq and their lookup.
 * @restore_lock: Protects @restore_done. Held by the CS that runs the
 *	restore phase (its restore chunks submitted and waited for) and
 *	taken by every CS that finds @restore_done unset; taken outside the
 *	context's gate (its holder waits with the gate paused), before
 *	@sig_lock.
 * @restore_done: the context's restore phase ran (its first CS, a context
 *	switch: command_submission.c); a failed one leaves it unset.
 * @staged_lock: Protects @staged, and each open staged submission's
 *	staged_node and staged_last_claimed (command_submission.c); a
 *	spinlock, innermost.
 * @staged: the context's open staged submissions (their first parts),
 *	until their last part completes, their timeout closes them, or the
 *	teardown does.
 * @staged_parts: later parts of staged submissions that their ioctl has
 *	not committed yet (the copy back of the sequence number, which user
 *	space may hold), by their staged_node; under @staged_lock. The
 *	teardown drops their counts on their first parts (their drop then
 *	does not), so that it does not wait for user space.
 * @nic: the context's NIC connections and CQs (nic.c).
 * @cb_mgr: the context's command buffers (command_buffer.c).
 * @cs_drops: the context's HL_IOCTL_CS failures, by enum hl_cs_drop.
 * @debug_mode: 1 while HL_DEBUG_OP_SET_MODE has the device in debug mode
 *	(habanalabs_ioctl.c); the context's end ends it.
 * @injected_leak: TEST ONLY (HL_INJECT_LEAK): leaked when the context goes.
 * @release_work: frees the structure after the last reference (hl_wq).
 */
struct hl_ctx {
	struct kref refcount;
	struct hl_device *hdev;
	struct list_head node;
	struct rw_semaphore gate; /* Protects: dead, the context's state vs teardown */
	bool dead;
	bool torn_down;
	bool closing;
	bool killed;
	struct hl_ctx_resv *resv;
	u32 asid;
	struct mutex mem_lock; /* Protects: handles, va_host, va_dram */
	struct xarray handles;
	u32 next_handle;
	struct maple_tree va_host;
	struct maple_tree va_dram;
	struct xarray mmu_hops;
	atomic64_t dram_usage;
	struct hl_vm_phys_pg_pack *dram_owner;
	spinlock_t fault_lock; /* Protects: last_fault, last_cs_timeout, last_undef_opcode */
	struct hl_info_page_fault_event last_fault;
	struct {
		u64 seq;
		s64 ns;
	} last_cs_timeout;
	struct {
		s64 ns;
		u32 queue;
		u64 cb_va;
	} last_undef_opcode;
	spinlock_t cs_lock; /* Protects: cs_sequence, cs_fences, cs_outcomes */
	u64 cs_sequence;
	struct xarray cs_fences;
	struct hl_cs_outcome {
		u64 seq;
		s64 ns;
		int error;
	} *cs_outcomes;
	unsigned int cs_outcome_next;
	atomic_t cs_inflight;
	atomic_t cs_submitted;
	atomic_t *ext_entries;
	struct mutex sig_lock; /* Protects: sig, coll */
	struct hl_cs_sig {
		u32 idx;
		u32 value;
	} *sig;
	struct hl_cs_coll {
		u32 group;
		u32 value;
		u64 last_seq[2];
	} *coll;
	struct xarray encaps;
	struct mutex restore_lock; /* Protects: restore_done */
	bool restore_done;
	spinlock_t staged_lock; /* Protects: staged, staged parts' links */
	struct list_head staged;
	struct list_head staged_parts;
	struct hl_nic_ctx nic;
	struct hl_cb_mgr cb_mgr;
	atomic64_t cs_drops[HL_CS_DROP_NUM];
	atomic_t debug_mode;
	void *injected_leak;
	struct work_struct release_work;
};

struct hl_ctx *hl_ctx_create(struct hl_device *hdev);
void hl_ctx_teardown(struct hl_ctx *ctx);
void hl_ctx_get(struct hl_ctx *ctx);
int hl_ctx_enter(struct hl_ctx *ctx);
void hl_ctx_exit(struct hl_ctx *ctx);
void hl_ctx_pause(struct hl_ctx *ctx);
int hl_ctx_resume(struct hl_ctx *ctx);
int hl_ctx_copy_to_user(struct hl_ctx *ctx, void __user *to, const void *from,
			size_t n);
void hl_ctx_kill_all(struct hl_device *hdev);
void hl_ctx_resv_put(struct hl_ctx_resv *r);

#endif /* HL_CONTEXT_H_ */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: device events to user space (HL_INFO_REGISTER_EVENTFD,
 * HL_INFO_UNREGISTER_EVENTFD, HL_INFO_GET_EVENTS), the records of the last
 * ones (HL_INFO_HW_EVENTS, _CS_TIMEOUT_EVENT, _UNDEFINED_OPCODE_EVENT), the
 * INFO dispatch of those and of the device's counters (counters.h), and
 * the counters' state.
 */
#ifndef HL_EVENTS_H_
#define HL_EVENTS_H_

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/* hl_events_send(), hl_events_undefined_opcode(): asic.h */
#include "asic.h"

struct eventfd_ctx;
struct hl_ctx;
struct hl_device;
struct hl_fpriv;
struct hl_info_args;
struct hl_ioctl_call;

/**
 * struct hl_notifier - the eventfd one open file registered.
 * @eventfd: the eventfd, with a reference, or NULL.
 * @events: HL_NOTIFIER_EVENT_* bits since the last HL_INFO_GET_EVENTS.
 * @node: in hl_device.notifier_list while @eventfd is set.
 * @ctx: the context whose events the file hears (its own, set at the
 *	registration; the file holds it), or NULL for a control file, which
 *	hears every context's. Compared, never dereferenced.
 * @killed: a hard reset killed the file: it hears nothing more.
 *
 * All fields under hl_device.notifier_lock.
 */
struct hl_notifier {
	struct eventfd_ctx *eventfd;
	u64 events;
	struct list_head node;
	struct hl_ctx *ctx;
	bool killed;
};

/* Device-wide HL_IOCTL_CS drops, by reason (struct hl_info_cs_counters) */
enum hl_cs_drop {
	HL_CS_DROP_OUT_OF_MEM,
	HL_CS_DROP_DEVICE_IN_RESET,
	HL_CS_DROP_MAX_IN_FLIGHT,
	HL_CS_DROP_VALIDATION,
	HL_CS_DROP_QUEUE_FULL,
	HL_CS_DROP_NUM
};

/* Event types of HL_INFO_HW_EVENTS: one per HL_NOTIFIER_EVENT_* bit */
#define HL_EVENTS_NUM		64

/* Busy-time buckets of HL_INFO_DEVICE_UTILIZATION: 10 of 100 ms */
#define HL_UTIL_BUCKETS		10
#define HL_UTIL_BUCKET_NS	(100 * NSEC_PER_MSEC)

/**
 * struct hl_dev_counters - what the device counts for HL_INFO.
 * @hard_resets: hard resets since the driver bound the device.
 * @opens: successful opens of the compute node.
 * @ctx_in_release: contexts being torn down.
 * @last_open_ns: ktime_get_ns() of the last compute open, 0 if none.
 * @last_close_ns: ktime_get_ns() when that open's context began its
 *	teardown (0 while it has not).
 * @cs_drops: HL_IOCTL_CS failures by enum hl_cs_drop.
 * @util_lock: Protects the @util_* fields.
 * @util_active: jobs queued or running on the device's engine queues.
 * @util_since: ktime_get_ns() up to which busy time is accounted.
 * @util_id: the 100 ms period (ktime_get_ns() / HL_UTIL_BUCKET_NS) each
 *	bucket holds.
 * @util_busy: busy nanoseconds of each bucket's period.
 * @events: events sent since the last hard reset, by notifier bit
 *	(under hl_device.notifier_lock).
 * @events_total: the same since the device was bound.
 *
 * The records of a context's failures (HL_INFO_CS_TIMEOUT_EVENT,
 * _UNDEFINED_OPCODE_EVENT) are the context's (struct hl_ctx), not here.
 */
struct hl_dev_counters {
	atomic_t hard_resets;
	atomic64_t opens;
	atomic_t ctx_in_release;
	u64 last_open_ns;
	u64 last_close_ns;
	atomic64_t cs_drops[HL_CS_DROP_NUM];
	spinlock_t util_lock; /* Protects: util_* */
	u32 util_active;
	u64 util_since;
	u64 util_id[HL_UTIL_BUCKETS];
	u64 util_busy[HL_UTIL_BUCKETS];
	u32 events[HL_EVENTS_NUM];
	u32 events_total[HL_EVENTS_NUM];
};

void hl_events_dev_init(struct hl_device *hdev);
int hl_events_info(struct hl_fpriv *fpriv, struct hl_info_args *args,
		   struct hl_ioctl_call *call);
bool hl_events_info_op(u32 op);
bool hl_events_dead_file_ioctl(struct hl_fpriv *fpriv, unsigned int cmd,
			       const void *data);
void hl_events_fpriv_fini(struct hl_fpriv *fpriv);
void hl_events_send_ctx(struct hl_ctx *ctx, u64 events);
void hl_events_cs_failed(struct hl_ctx *ctx, u64 seq, int error);
void hl_events_device_reset(struct hl_device *hdev, struct hl_fpriv *killed);
int hl_events_copy(struct hl_ioctl_call *call, struct hl_info_args *args,
		   const void *src, u32 size);

#endif /* HL_EVENTS_H_ */

// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: device events to user space, and the INFO ops of the
 * events and of the device's counters.
 *
 * Events: any open file of the device, compute or control, may register
 * one eventfd (HL_INFO_REGISTER_EVENTFD). When an event happens, its
 * HL_NOTIFIER_EVENT_* bit is added to the pending bits of every file that
 * hears it and each one's eventfd is signalled; HL_INFO_GET_EVENTS returns
 * the pending bits and clears them. Who hears what: an event of a context
 * (PAGE_FAULT, CS_TIMEOUT, UNDEFINED_OPCODE, USER_ENGINE_ERR;
 * hl_events_send_ctx()) reaches the compute file of that context and the
 * control files; an event of the device (DEVICE_RESET, NIC_LINK;
 * hl_events_send()) reaches every file. A compute file a hard reset killed
 * hears that reset and nothing after it, so nothing of the next owner's;
 * the records (HL_INFO_CS_TIMEOUT_EVENT, _UNDEFINED_OPCODE_EVENT, like
 * HL_INFO_PAGE_FAULT_EVENT) are the context's own, so the next owner
 * starts with none (a control file reads the current owner's records,
 * none while the compute node is not open). Sources: a hard reset (DEVICE_RESET |
 * DEVICE_UNAVAILABLE, sent before the compute context is torn down), an
 * MMU page fault of a job or NIC transfer (PAGE_FAULT), a CS that failed
 * (CS_TIMEOUT, UNDEFINED_OPCODE for a malformed command buffer,
 * USER_ENGINE_ERR for another engine error; a CS cancelled by a close or
 * a reset sends nothing of its own), a NIC link up or down (NIC_LINK,
 * sent by the emulated backend to both cabled devices). The registration ends with
 * HL_INFO_UNREGISTER_EVENTFD or when the file is released: an eventfd is
 * never signalled after either. The driver holds a reference on the
 * eventfd, not its file descriptor: if user space closes the descriptor
 * while registered, the eventfd object is still the one signalled, never
 * another file that reuses the number.
 *
 * Counters (counters.c) are served here too: hl_events_info() dispatches
 * every event and counter op of HL_IOCTL_INFO.
 */

#include <linux/eventfd.h>
#include <linux/ktime.h>
#include <linux/uaccess.h>

#include "habanalabs.h"
#include "context.h"
#include "counters.h"
#include "events.h"
#include "ioctl.h"

/**
 * hl_events_dev_init - initialise a device's notifier list and counters.
 * @hdev: the device, being probed.
 */
void hl_events_dev_init(struct hl_device *hdev)
{
	spin_lock_init(&hdev->notifier_lock);
	INIT_LIST_HEAD(&hdev->notifier_list);
	spin_lock_init(&hdev->counters.util_lock);
}

/*
 * Count @events and tell the files that hear them: with @ctx, its compute
 * file and the control files; without, every file. A killed file hears
 * nothing.
 */
static void hl_events_deliver(struct hl_device *hdev, struct hl_ctx *ctx,
			      u64 events)
{
	struct hl_dev_counters *c = &hdev->counters;
	struct hl_notifier *n;
	unsigned long flags;
	u32 bit;

	spin_lock_irqsave(&hdev->notifier_lock, flags);
	for (bit = 0; bit < HL_EVENTS_NUM; bit++) {
		if (!(events & BIT_ULL(bit)))
			continue;
		c->events[bit]++;
		c->events_total[bit]++;
	}
	list_for_each_entry(n, &hdev->notifier_list, node) {
		if (n->killed || (ctx && n->ctx && n->ctx != ctx))
			continue;
		n->events |= events;
		eventfd_signal(n->eventfd);
	}
	spin_unlock_irqrestore(&hdev->notifier_lock, flags);
}

/**
 * hl_events_send - an event of the device happened (a reset, a NIC link):
 * tell every registered file but the ones a hard reset killed.
 * @hdev: the device.
 * @events: HL_NOTIFIER_EVENT_* bits.
 *
 * Takes a spinlock and allocates nothing: callable from the engines' and
 * the NIC's paths and in fence-signalling sections.
 */
void hl_events_send(struct hl_device *hdev, u64 events)
{
	hl_events_deliver(hdev, NULL, events);
}

/**
 * hl_events_send_ctx - an event of a context's work happened: tell its
 * compute file (unless a hard reset killed it) and the control files.
 * @ctx: the context.
 * @events: HL_NOTIFIER_EVENT_* bits.
 *
 * As hl_events_send(): a spinlock, no allocation.
 */
void hl_events_send_ctx(struct hl_ctx *ctx, u64 events)
{
	hl_events_deliver(ctx->hdev, ctx, events);
}

/**
 * hl_events_cs_failed - a CS of a context completed; send the event of its
 * error to the context's file.
 * @ctx: the CS's context.
 * @seq: its sequence number (the context's HL_INFO_CS_TIMEOUT_EVENT).
 * @error: the CS's first job error, 0 if none.
 *
 * An MMU fault (-EFAULT) sent PAGE_FAULT when it was recorded; a cancel
 * (-ECANCELED, the context closing) or a stopped device (-ENODEV, a reset
 * or removal, which send their own) sends nothing.
 */
void hl_events_cs_failed(struct hl_ctx *ctx, u64 seq, int error)
{
	switch (error) {
	case 0:
	case -EFAULT:
	case -ECANCELED:
	case -ENODEV:
		return;
	case -ETIMEDOUT:
		spin_lock(&ctx->fault_lock);
		ctx->last_cs_timeout.seq = seq;
		ctx->last_cs_timeout.ns = ktime_get_ns();
		spin_unlock(&ctx->fault_lock);
		hl_events_send_ctx(ctx, HL_NOTIFIER_EVENT_CS_TIMEOUT);
		return;
	case -EINVAL:
		hl_events_send_ctx(ctx, HL_NOTIFIER_EVENT_UNDEFINED_OPCODE);
		return;
	default:
		hl_events_send_ctx(ctx, HL_NOTIFIER_EVENT_USER_ENGINE_ERR);
		return;
	}
}

/**
 * hl_events_undefined_opcode - the backend's queue refused a malformed
 * command buffer of a context's job (the context's
 * HL_INFO_UNDEFINED_OPCODE_EVENT records the last one).
 * @ctx: the job's context.
 * @queue: the engine queue.
 * @cb_va: the job's command buffer.
 */
void hl_events_undefined_opcode(struct hl_ctx *ctx, u32 queue, u64 cb_va)
{
	spin_lock(&ctx->fault_lock);
	ctx->last_undef_opcode.ns = ktime_get_ns();
	ctx->last_undef_opcode.queue = queue;
	ctx->last_undef_opcode.cb_va = cb_va;
	spin_unlock(&ctx->fault_lock);
}

/**
 * hl_events_device_reset - a hard reset starts: count it, tell the files.
 * @hdev: the device; called with hdev->fpriv_list_lock held, which keeps
 *	@killed from being freed (its release takes the lock first).
 * @killed: the compute file the reset kills (dead already), or NULL.
 *
 * HL_INFO_HW_EVENTS counts from here on (the reset's own event included).
 * @killed hears the reset, then nothing more (of the next owner's above
 * all); it still reads its pending bits and may unregister.
 */
void hl_events_device_reset(struct hl_device *hdev, struct hl_fpriv *killed)
{
	lockdep_assert_held(&hdev->fpriv_list_lock);
	atomic_inc(&hdev->counters.hard_resets);
	spin_lock_irq(&hdev->notifier_lock);
	memset(hdev->counters.events, 0, sizeof(hdev->counters.events));
	spin_unlock_irq(&hdev->notifier_lock);
	hl_events_send(hdev, HL_NOTIFIER_EVENT_DEVICE_RESET |
			     HL_NOTIFIER_EVENT_DEVICE_UNAVAILABLE);
	if (!killed)
		return;
	spin_lock_irq(&hdev->notifier_lock);
	killed->notifier.killed = true;
	spin_unlock_irq(&hdev->notifier_lock);
}

static void hl_events_unregister_locked(struct hl_device *hdev,
					struct hl_notifier *n,
					struct eventfd_ctx **efd)
{
	lockdep_assert_held(&hdev->notifier_lock);
	list_del(&n->node);
	*efd = n->eventfd;
	n->eventfd = NULL;
}

static int hl_events_unregister(struct hl_fpriv *fpriv)
{
	struct hl_device *hdev = fpriv->hdev;
	struct eventfd_ctx *efd = NULL;

	spin_lock_irq(&hdev->notifier_lock);
	if (fpriv->notifier.eventfd)
		hl_events_unregister_locked(hdev, &fpriv->notifier, &efd);
	spin_unlock_irq(&hdev->notifier_lock);
	if (!efd)
		return -EINVAL;
	eventfd_ctx_put(efd);
	return 0;
}

/*
 * Undo of REGISTER_EVENTFD whose result did not reach user space; touches
 * only the file's notifier (hl_ioctl_on_finish_file())
 */
static void hl_events_register_finish(struct hl_fpriv *fpriv, void *priv,
				      u64 id, bool committed)
{
	if (!committed)
		hl_events_unregister(fpriv);
}

static int hl_events_register(struct hl_fpriv *fpriv, u32 fd,
			      struct hl_ioctl_call *call)
{
	struct hl_device *hdev = fpriv->hdev;
	struct eventfd_ctx *efd;
	int rc = 0;

	efd = eventfd_ctx_fdget(fd);
	if (IS_ERR(efd))
		return PTR_ERR(efd);

	spin_lock_irq(&hdev->notifier_lock);
	if (fpriv->notifier.eventfd) {
		rc = -EINVAL;
	} else {
		fpriv->notifier.eventfd = efd;
		fpriv->notifier.events = 0;
		/* A control file's is NULL: it hears every context's events */
		fpriv->notifier.ctx = fpriv->ctx;
		list_add_tail(&fpriv->notifier.node, &hdev->notifier_list);
	}
	spin_unlock_irq(&hdev->notifier_lock);
	if (rc) {
		eventfd_ctx_put(efd);
		return rc;
	}
	/* The file's notifier only: the control node has no context */
	hl_ioctl_on_finish_file(call, hl_events_register_finish, NULL, 0);
	return 0;
}

/* Undo of GET_EVENTS whose result did not reach user space: keep them */
static void hl_events_get_finish(struct hl_fpriv *fpriv, void *priv,
				 u64 events, bool committed)
{
	struct hl_device *hdev = fpriv->hdev;

	if (committed)
		return;
	spin_lock_irq(&hdev->notifier_lock);
	fpriv->notifier.events |= events;
	spin_unlock_irq(&hdev->notifier_lock);
}

static int hl_events_get(struct hl_fpriv *fpriv, struct hl_info_args *args,
			 struct hl_ioctl_call *call)
{
	struct hl_device *hdev = fpriv->hdev;
	u32 len = min_t(u32, args->return_size, sizeof(u64));
	u64 events;
	int rc;

	spin_lock_irq(&hdev->notifier_lock);
	events = fpriv->notifier.events;
	fpriv->notifier.events = 0;
	spin_unlock_irq(&hdev->notifier_lock);

	/* Copied by the dispatcher; a failed copy gives the events back */
	rc = hl_ioctl_copy_out(call, args->return_pointer, &events, len);
	if (rc) {
		hl_events_get_finish(fpriv, NULL, events, false);
		return rc;
	}
	hl_ioctl_on_finish_file(call, hl_events_get_finish, NULL, events);
	return 0;
}

/**
 * hl_events_fpriv_fini - an open file is released: end its registration.
 * @fpriv: the file.
 */
void hl_events_fpriv_fini(struct hl_fpriv *fpriv)
{
	hl_events_unregister(fpriv);
}

/**
 * hl_events_dead_file_ioctl - may an ioctl run on a file a hard reset
 * killed?
 * @fpriv: the dead file.
 * @cmd: the ioctl.
 * @data: its argument, copied in.
 *
 * Only HL_INFO_GET_EVENTS (which tells of the reset) and
 * HL_INFO_UNREGISTER_EVENTFD may; an HL_IOCTL_CS refused here counts as
 * dropped for the device being in reset.
 *
 * Return: true when it may run.
 */
bool hl_events_dead_file_ioctl(struct hl_fpriv *fpriv, unsigned int cmd,
			       const void *data)
{
	const struct hl_info_args *args = data;

	if (_IOC_NR(cmd) == _IOC_NR(HL_IOCTL_CS)) {
		atomic64_inc(&fpriv->hdev->counters.cs_drops[HL_CS_DROP_DEVICE_IN_RESET]);
		return false;
	}
	return _IOC_NR(cmd) == _IOC_NR(HL_IOCTL_INFO) &&
	       (args->op == HL_INFO_GET_EVENTS ||
		args->op == HL_INFO_UNREGISTER_EVENTFD);
}

int hl_events_copy(struct hl_ioctl_call *call, struct hl_info_args *args,
		   const void *src, u32 size)
{
	u32 len = min(args->return_size, size);

	/* Copied by the dispatcher, outside what a reset waits for */
	return hl_ioctl_copy_out(call, args->return_pointer, src, len);
}

static int hl_events_hw_events(struct hl_fpriv *fpriv,
			       struct hl_info_args *args, bool total,
			       struct hl_ioctl_call *call)
{
	struct hl_device *hdev = fpriv->hdev;
	u32 counts[HL_EVENTS_NUM];

	spin_lock_irq(&hdev->notifier_lock);
	memcpy(counts, total ? hdev->counters.events_total :
			       hdev->counters.events, sizeof(counts));
	spin_unlock_irq(&hdev->notifier_lock);
	return hl_events_copy(call, args, counts, sizeof(counts));
}

/* The caller's context's record: compute node only */
/*
 * The context whose records a file reads, with a reference, or NULL: a
 * compute file's own; for a control file (no context), the compute
 * node's current owner's, as upstream's control node reads the device's
 * capture that each open resets; NULL while nobody has it open.
 * Under fpriv_list_lock the owner's context is alive: its file's release
 * takes the lock before it drops the context.
 */
static struct hl_ctx *hl_events_record_ctx(struct hl_fpriv *fpriv)
{
	struct hl_device *hdev = fpriv->hdev;
	struct hl_ctx *ctx = fpriv->ctx;

	if (!ctx) {
		mutex_lock(&hdev->fpriv_list_lock);
		if (hdev->compute_fpriv)
			ctx = hdev->compute_fpriv->ctx;
		if (ctx)
			hl_ctx_get(ctx);
		mutex_unlock(&hdev->fpriv_list_lock);
		return ctx;
	}
	hl_ctx_get(ctx);
	return ctx;
}

static int hl_events_cs_timeout(struct hl_fpriv *fpriv,
				struct hl_info_args *args,
				struct hl_ioctl_call *call)
{
	struct hl_info_cs_timeout_event info = {};
	struct hl_ctx *ctx = hl_events_record_ctx(fpriv);

	if (ctx) {
		spin_lock(&ctx->fault_lock);
		info.seq = ctx->last_cs_timeout.seq;
		info.timestamp = ctx->last_cs_timeout.ns;
		spin_unlock(&ctx->fault_lock);
		hl_ctx_put(ctx);
	}
	return hl_events_copy(call, args, &info, sizeof(info));
}

static int hl_events_undef_opcode(struct hl_fpriv *fpriv,
				  struct hl_info_args *args,
				  struct hl_ioctl_call *call)
{
	struct hl_info_undefined_opcode_event info = {};
	struct hl_ctx *ctx = hl_events_record_ctx(fpriv);

	if (ctx) {
		spin_lock(&ctx->fault_lock);
		info.timestamp = ctx->last_undef_opcode.ns;
		if (info.timestamp) {
			info.engine_id = ctx->last_undef_opcode.queue;
			info.cb_addr_streams[0][0] =
				ctx->last_undef_opcode.cb_va;
			info.cb_addr_streams_len = 1;
		}
		spin_unlock(&ctx->fault_lock);
		hl_ctx_put(ctx);
	}
	return hl_events_copy(call, args, &info, sizeof(info));
}

/**
 * hl_events_info_op - whether an INFO op is served by hl_events_info().
 * @op: the op.
 *
 * Return: true for the event and counter ops.
 */
bool hl_events_info_op(u32 op)
{
	switch (op) {
	case HL_INFO_DEVICE_UTILIZATION:
	case HL_INFO_RESET_COUNT:
	case HL_INFO_TIME_SYNC:
	case HL_INFO_CS_COUNTERS:
	case HL_INFO_OPEN_STATS:
	case HL_INFO_REGISTER_EVENTFD:
	case HL_INFO_UNREGISTER_EVENTFD:
	case HL_INFO_GET_EVENTS:
	case HL_INFO_HW_EVENTS:
	case HL_INFO_HW_EVENTS_AGGREGATE:
	case HL_INFO_LAST_ERR_OPEN_DEV_TIME:
	case HL_INFO_CS_TIMEOUT_EVENT:
	case HL_INFO_UNDEFINED_OPCODE_EVENT:
	case HL_INFO_ENGINE_STATUS:
		return true;
	default:
		return false;
	}
}

/**
 * hl_events_info - the event and counter ops of HL_IOCTL_INFO.
 * @fpriv: the open file (compute or control node).
 * @args: the argument; @op is one that hl_events_info_op() accepts.
 * @call: the ioctl call (for hl_ioctl_on_finish() and the like).
 *
 * Their own argument rules: REGISTER_EVENTFD reads the union as @eventfd
 * and, with UNREGISTER_EVENTFD, takes no return buffer;
 * DEVICE_UTILIZATION reads it as @period_ms; the others need it 0.
 * Errors: listed in the kernel-doc of struct hl_info_args (uAPI header).
 *
 * Return: 0 or a negative errno.
 */
int hl_events_info(struct hl_fpriv *fpriv, struct hl_info_args *args,
		   struct hl_ioctl_call *call)
{
	int rc;

	if (args->pad)
		return -EINVAL;

	switch (args->op) {
	case HL_INFO_REGISTER_EVENTFD:
		if (args->return_pointer || args->return_size)
			return -EINVAL;
		return hl_events_register(fpriv, args->eventfd, call);
	case HL_INFO_UNREGISTER_EVENTFD:
		if (args->return_pointer || args->return_size)
			return -EINVAL;
		rc = hl_events_unregister(fpriv);
		if (!rc)
			hl_ioctl_no_output(call);
		return rc;
	default:
		break;
	}

	if (!args->return_pointer || !args->return_size)
		return -EINVAL;
	if (args->op == HL_INFO_DEVICE_UTILIZATION)
		return hl_events_utilization(fpriv, args, call);
	if (args->ctx_id)
		return -EINVAL;

	switch (args->op) {
	case HL_INFO_RESET_COUNT:
		return hl_events_reset_count(fpriv, args, call);
	case HL_INFO_TIME_SYNC:
		return hl_events_time_sync(args, call);
	case HL_INFO_CS_COUNTERS:
		return hl_events_cs_counters(fpriv, args, call);
	case HL_INFO_OPEN_STATS:
		return hl_events_open_stats(fpriv, args, call);
	case HL_INFO_GET_EVENTS:
		return hl_events_get(fpriv, args, call);
	case HL_INFO_HW_EVENTS:
		return hl_events_hw_events(fpriv, args, false, call);
	case HL_INFO_HW_EVENTS_AGGREGATE:
		return hl_events_hw_events(fpriv, args, true, call);
	case HL_INFO_LAST_ERR_OPEN_DEV_TIME:
		return hl_events_last_open(fpriv, args, call);
	case HL_INFO_CS_TIMEOUT_EVENT:
		return hl_events_cs_timeout(fpriv, args, call);
	case HL_INFO_UNDEFINED_OPCODE_EVENT:
		return hl_events_undef_opcode(fpriv, args, call);
	case HL_INFO_ENGINE_STATUS:
		return hl_events_engine_status(fpriv, args, call);
	default:
		return -EINVAL;
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: the device's counters (HL_INFO_RESET_COUNT, _TIME_SYNC,
 * _CS_COUNTERS, _OPEN_STATS, _DEVICE_UTILIZATION, _LAST_ERR_OPEN_DEV_TIME,
 * _ENGINE_STATUS), served through hl_events_info() (events.c).
 *
 * Each is what the device really counts, as documented with its INFO op
 * in the uAPI header: hard resets; HL_IOCTL_CS calls refused, by reason
 * (hl_events_cs_ioctl(), command_submission.c); opens of the compute node;
 * the share of time in which a job was queued or running on an engine
 * queue (reported by the backend through hl_events_job_start() and
 * hl_events_job_end()), in 100 ms buckets.
 */

#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/slab.h>

#include "habanalabs.h"
#include "context.h"
#include "counters.h"
#include "events.h"
#include "ioctl.h"

int hl_events_reset_count(struct hl_fpriv *fpriv, struct hl_info_args *args,
			  struct hl_ioctl_call *call)
{
	struct hl_info_reset_count info = {};

	info.hard_reset_cnt = atomic_read(&fpriv->hdev->counters.hard_resets);
	return hl_events_copy(call, args, &info, sizeof(info));
}

int hl_events_time_sync(struct hl_info_args *args, struct hl_ioctl_call *call)
{
	struct hl_info_time_sync info = {};

	info.device_time = ktime_get_ns();
	info.host_time = ktime_get_raw_ns();
	return hl_events_copy(call, args, &info, sizeof(info));
}

int hl_events_cs_counters(struct hl_fpriv *fpriv, struct hl_info_args *args,
			  struct hl_ioctl_call *call)
{
	struct hl_dev_counters *c = &fpriv->hdev->counters;
	struct hl_ctx *ctx = fpriv->ctx;
	struct hl_info_cs_counters info = {};

	info.total_out_of_mem_drop_cnt =
		atomic64_read(&c->cs_drops[HL_CS_DROP_OUT_OF_MEM]);
	info.total_device_in_reset_drop_cnt =
		atomic64_read(&c->cs_drops[HL_CS_DROP_DEVICE_IN_RESET]);
	info.total_max_cs_in_flight_drop_cnt =
		atomic64_read(&c->cs_drops[HL_CS_DROP_MAX_IN_FLIGHT]);
	info.total_validation_drop_cnt =
		atomic64_read(&c->cs_drops[HL_CS_DROP_VALIDATION]);
	info.total_queue_full_drop_cnt =
		atomic64_read(&c->cs_drops[HL_CS_DROP_QUEUE_FULL]);
	/* The control node has no context: ctx_* 0, as upstream's */
	if (ctx) {
		info.ctx_out_of_mem_drop_cnt =
			atomic64_read(&ctx->cs_drops[HL_CS_DROP_OUT_OF_MEM]);
		info.ctx_max_cs_in_flight_drop_cnt =
			atomic64_read(&ctx->cs_drops[HL_CS_DROP_MAX_IN_FLIGHT]);
		info.ctx_validation_drop_cnt =
			atomic64_read(&ctx->cs_drops[HL_CS_DROP_VALIDATION]);
		info.ctx_queue_full_drop_cnt =
			atomic64_read(&ctx->cs_drops[HL_CS_DROP_QUEUE_FULL]);
	}
	return hl_events_copy(call, args, &info, sizeof(info));
}

int hl_events_open_stats(struct hl_fpriv *fpriv, struct hl_info_args *args,
			 struct hl_ioctl_call *call)
{
	struct hl_device *hdev = fpriv->hdev;
	struct hl_dev_counters *c = &hdev->counters;
	struct hl_open_stats_info info = {};
	u64 open_ns, close_ns;

	mutex_lock(&hdev->fpriv_list_lock);
	info.is_compute_ctx_active = !!hdev->compute_fpriv;
	open_ns = c->last_open_ns;
	close_ns = c->last_close_ns;
	mutex_unlock(&hdev->fpriv_list_lock);

	info.open_counter = atomic64_read(&c->opens);
	info.compute_ctx_in_release = !!atomic_read(&c->ctx_in_release);
	if (open_ns)
		info.last_open_period_ms =
			div_u64((close_ns ? close_ns : ktime_get_ns()) - open_ns,
				NSEC_PER_MSEC);
	return hl_events_copy(call, args, &info, sizeof(info));
}

/**
 * hl_events_ctx_open - a compute context was created (an open).
 * @hdev: the device; called with hdev->fpriv_list_lock held.
 */
void hl_events_ctx_open(struct hl_device *hdev)
{
	lockdep_assert_held(&hdev->fpriv_list_lock);
	atomic64_inc(&hdev->counters.opens);
	hdev->counters.last_open_ns = ktime_get_ns();
	hdev->counters.last_close_ns = 0;
}

/**
 * hl_events_ctx_release_begin - a context's teardown begins.
 * @hdev: the device.
 */
void hl_events_ctx_release_begin(struct hl_device *hdev)
{
	atomic_inc(&hdev->counters.ctx_in_release);
	mutex_lock(&hdev->fpriv_list_lock);
	if (!hdev->counters.last_close_ns)
		hdev->counters.last_close_ns = ktime_get_ns();
	mutex_unlock(&hdev->fpriv_list_lock);
}

/**
 * hl_events_ctx_release_end - a context's teardown ended.
 * @hdev: the device.
 */
void hl_events_ctx_release_end(struct hl_device *hdev)
{
	atomic_dec(&hdev->counters.ctx_in_release);
}

/* Add the busy time up to @now into its buckets */
static void hl_util_account_locked(struct hl_dev_counters *c, u64 now)
{
	u64 from = c->util_since, k, end;
	u32 slot;

	lockdep_assert_held(&c->util_lock);
	c->util_since = now;
	if (!c->util_active || now <= from)
		return;
	/* Older than the buckets hold: irrelevant */
	if (now - from > HL_UTIL_BUCKETS * HL_UTIL_BUCKET_NS)
		from = now - HL_UTIL_BUCKETS * HL_UTIL_BUCKET_NS;
	for (k = div64_u64(from, HL_UTIL_BUCKET_NS); from < now; k++) {
		div_u64_rem(k, HL_UTIL_BUCKETS, &slot);
		end = min(now, (k + 1) * HL_UTIL_BUCKET_NS);
		if (c->util_id[slot] != k) {
			c->util_id[slot] = k;
			c->util_busy[slot] = 0;
		}
		c->util_busy[slot] += end - from;
		from = end;
	}
}

/**
 * hl_events_job_start - the backend took a job onto an engine queue.
 * @hdev: the device.
 *
 * With hl_events_job_end(), the device's busy time: the time during which
 * at least one job was queued or running. Spinlock only.
 */
void hl_events_job_start(struct hl_device *hdev)
{
	struct hl_dev_counters *c = &hdev->counters;
	unsigned long flags;

	spin_lock_irqsave(&c->util_lock, flags);
	hl_util_account_locked(c, ktime_get_ns());
	c->util_active++;
	spin_unlock_irqrestore(&c->util_lock, flags);
}

/**
 * hl_events_job_end - a job of hl_events_job_start() left its queue (done,
 * failed or refused).
 * @hdev: the device.
 */
void hl_events_job_end(struct hl_device *hdev)
{
	struct hl_dev_counters *c = &hdev->counters;
	unsigned long flags;

	spin_lock_irqsave(&c->util_lock, flags);
	hl_util_account_locked(c, ktime_get_ns());
	if (!WARN_ON_ONCE(!c->util_active))
		c->util_active--;
	spin_unlock_irqrestore(&c->util_lock, flags);
}

int hl_events_utilization(struct hl_fpriv *fpriv, struct hl_info_args *args,
			  struct hl_ioctl_call *call)
{
	struct hl_dev_counters *c = &fpriv->hdev->counters;
	struct hl_info_device_utilization info = {};
	u32 n = args->period_ms / 100, slot, i;
	u64 now, cur, busy = 0, window;

	if (args->period_ms % 100 || !n || n > HL_UTIL_BUCKETS)
		return -EINVAL;

	spin_lock_irq(&c->util_lock);
	now = ktime_get_ns();
	hl_util_account_locked(c, now);
	cur = div64_u64(now, HL_UTIL_BUCKET_NS);
	for (i = 0; i < n && i <= cur; i++) {
		div_u64_rem(cur - i, HL_UTIL_BUCKETS, &slot);
		if (c->util_id[slot] == cur - i)
			busy += c->util_busy[slot];
	}
	spin_unlock_irq(&c->util_lock);

	/* The current bucket is partly over: the window ends now */
	window = (u64)(n - 1) * HL_UTIL_BUCKET_NS + now - cur * HL_UTIL_BUCKET_NS;
	info.utilization = window ? min_t(u64, 100, div64_u64(busy * 100, window)) : 0;
	return hl_events_copy(call, args, &info, sizeof(info));
}

int hl_events_last_open(struct hl_fpriv *fpriv, struct hl_info_args *args,
			struct hl_ioctl_call *call)
{
	struct hl_device *hdev = fpriv->hdev;
	struct hl_info_last_err_open_dev_time info = {};

	mutex_lock(&hdev->fpriv_list_lock);
	info.timestamp = hdev->counters.last_open_ns;
	mutex_unlock(&hdev->fpriv_list_lock);
	return hl_events_copy(call, args, &info, sizeof(info));
}

/* One line per engine queue: idle or busy */
int hl_events_engine_status(struct hl_fpriv *fpriv, struct hl_info_args *args,
			    struct hl_ioctl_call *call)
{
	struct hl_device *hdev = fpriv->hdev;
	u64 mask[HL_BUSY_ENGINES_MASK_EXT_SIZE] = {};
	u32 q, n = hdev->asic_prop.num_queues, len = 0;
	char *buf;
	int rc;

	if (args->return_size < SZ_1K ||
	    args->return_size > HL_ENGINES_DATA_MAX_SIZE)
		return -EINVAL;
	buf = kmalloc(SZ_1K, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	hdev->asic_funcs->is_device_idle(hdev, mask, ARRAY_SIZE(mask));
	for (q = 0; q < n && q < 64 * ARRAY_SIZE(mask); q++)
		len += scnprintf(buf + len, SZ_1K - len, "queue %u: %s\n", q,
				 mask[q / 64] & BIT_ULL(q % 64) ? "busy" : "idle");
	args->user_buffer_actual_size = len;
	rc = hl_ioctl_copy_out(call, args->return_pointer, buf, len);
	kfree(buf);
	return rc;
}

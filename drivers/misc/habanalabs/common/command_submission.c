// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: command submission (HL_IOCTL_CS) and its completion
 * (HL_IOCTL_WAIT_CS).
 *
 * A command submission (CS) is a set of jobs, each a command buffer that one
 * engine queue fetches and executes through the device MMU. The CS gets the
 * next sequence number of its context (1, 2, ...) and a dma_fence that is
 * signalled when its last job is done, with the first job error if any.
 *
 * Lifetime: the CS holds a reference on its context until its last job is
 * done, so the file may be closed while it runs; the context, and with it
 * the mappings the jobs use, goes away after the CS. The backend reports
 * each job through hl_cs_job_done() from process context (its queue
 * worker), which is where the last reference of the CS, and maybe of the
 * context, is dropped.
 *
 * The context keeps the fences of its last HL_CS_MAX_TRACKED submissions;
 * WAIT_CS on an older sequence number answers COMPLETED (as upstream).
 *
 * Fences: jobs of different submissions run on different queues and may
 * complete out of order, so the fences of a context are not a timeline:
 * each CS fence gets a fence context of its own (as ivpu does per job).
 */

#include <linux/dma-fence.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "habanalabs.h"

/* Fences kept per context for WAIT_CS */
#define HL_CS_MAX_TRACKED	1024

/* Largest command buffer of one job */
#define HL_CS_MAX_CB_SIZE	SZ_2M

static unsigned int timeout_locked = 30;
module_param(timeout_locked, uint, 0644);
MODULE_PARM_DESC(timeout_locked,
		 "Default job timeout in seconds, for a CS that gives none; 0 means no timeout (default: 30)");

/**
 * struct hl_cs_fence - the completion fence of a CS.
 * @base: the fence; first, so that dma_fence_free() frees the whole struct.
 * @lock: the fence's lock.
 */
struct hl_cs_fence {
	struct dma_fence base;
	spinlock_t lock; /* Protects: base (dma_fence internals) */
};

/**
 * struct hl_cs - a command submission.
 * @ctx: the submitting context; the CS holds a reference on it.
 * @fence: the completion fence; the CS holds a reference on it.
 * @pending: jobs not done yet, plus one held by the submitting ioctl while
 *	it queues them; the CS completes when it drops to 0.
 * @error: the first job error, 0 if none.
 * @seq: the sequence number.
 * @num_jobs: number of @jobs.
 * @jobs: the jobs.
 */
struct hl_cs {
	struct hl_ctx *ctx;
	struct hl_cs_fence *fence;
	atomic_t pending;
	atomic_t error;
	u64 seq;
	u32 num_jobs;
	struct hl_cs_job jobs[] __counted_by(num_jobs);
};

static const char *hl_cs_fence_driver_name(struct dma_fence *fence)
{
	return HL_NAME;
}

static const char *hl_cs_fence_timeline_name(struct dma_fence *fence)
{
	return "cs";
}

static const struct dma_fence_ops hl_cs_fence_ops = {
	.get_driver_name = hl_cs_fence_driver_name,
	.get_timeline_name = hl_cs_fence_timeline_name,
};

/* Drop one pending count; the last one completes and frees the CS */
static void hl_cs_put(struct hl_cs *cs)
{
	struct dma_fence *fence = &cs->fence->base;
	struct hl_ctx *ctx = cs->ctx;
	int error;

	if (!atomic_dec_and_test(&cs->pending))
		return;

	error = atomic_read(&cs->error);
	if (error) {
		dev_dbg(ctx->hdev->dev, "CS %llu failed: %d\n", cs->seq, error);
		dma_fence_set_error(fence, error);
	}
	dma_fence_signal(fence);
	dma_fence_put(fence);
	kfree(cs);
	/* May release the context: process context only */
	hl_ctx_put(ctx);
}

/**
 * hl_cs_job_done - the backend reports that a job finished or failed.
 * @job: the job; the caller must not touch it afterwards.
 * @error: 0, or the job's negative errno (-EFAULT MMU fault, -EINVAL
 *	malformed command buffer, -ETIMEDOUT, -ENODEV device stopped).
 *
 * Called once per queued job, from process context: the last job of a CS
 * may drop the last reference of its context, whose release sleeps.
 */
void hl_cs_job_done(struct hl_cs_job *job, int error)
{
	struct hl_cs *cs = job->cs;

	might_sleep();
	if (error)
		atomic_cmpxchg(&cs->error, 0, error);
	hl_cs_put(cs);
}

/**
 * hl_ctx_record_fault - record a device MMU fault of a context's job.
 * @ctx: the context.
 * @addr: the faulting device virtual address.
 * @engine_id: the queue of the job.
 * @is_write: a write access.
 *
 * The last fault is what HL_INFO_PAGE_FAULT_EVENT returns.
 */
void hl_ctx_record_fault(struct hl_ctx *ctx, u64 addr, u32 engine_id,
			 bool is_write)
{
	spin_lock(&ctx->fault_lock);
	ctx->last_fault.timestamp = ktime_get_ns();
	ctx->last_fault.addr = addr;
	ctx->last_fault.engine_id = engine_id;
	ctx->last_fault.is_write = is_write;
	spin_unlock(&ctx->fault_lock);
}

static int hl_cs_validate_chunks(struct hl_device *hdev,
				 const struct hl_cs_chunk *chunks, u32 n)
{
	u32 i, j;

	for (i = 0; i < n; i++) {
		const struct hl_cs_chunk *c = &chunks[i];

		if (c->queue_index >= hdev->asic_prop.num_queues ||
		    !c->cb_size || !IS_ALIGNED(c->cb_size, sizeof(u64)) ||
		    c->cb_size > HL_CS_MAX_CB_SIZE || c->cs_chunk_flags)
			return -EINVAL;
		for (j = 0; j < ARRAY_SIZE(c->pad); j++)
			if (c->pad[j])
				return -EINVAL;
	}
	return 0;
}

static unsigned long hl_cs_timeout_jiffies(u32 timeout_s)
{
	u64 j;

	if (!timeout_s)
		timeout_s = READ_ONCE(timeout_locked);
	if (!timeout_s)
		return MAX_JIFFY_OFFSET;

	j = (u64)timeout_s * HZ;
	return min_t(u64, j, MAX_JIFFY_OFFSET);
}

/*
 * Give the CS its sequence number, initialise its fence with it and publish
 * the fence. On error the fence is initialised and holds one reference.
 */
static int hl_cs_publish(struct hl_ctx *ctx, struct hl_cs *cs)
{
	struct hl_cs_fence *fence = cs->fence;
	u64 fence_context = dma_fence_context_alloc(1);
	struct dma_fence *old = NULL;
	void *entry;

	spin_lock(&ctx->cs_lock);
	cs->seq = ctx->cs_sequence;
	dma_fence_init(&fence->base, &hl_cs_fence_ops, &fence->lock,
		       fence_context, cs->seq);
	entry = xa_store(&ctx->cs_fences, cs->seq, &fence->base, GFP_ATOMIC);
	if (xa_is_err(entry)) {
		spin_unlock(&ctx->cs_lock);
		return xa_err(entry);
	}
	/* The xarray's reference */
	dma_fence_get(&fence->base);
	ctx->cs_sequence++;
	if (cs->seq > HL_CS_MAX_TRACKED)
		old = xa_erase(&ctx->cs_fences, cs->seq - HL_CS_MAX_TRACKED);
	spin_unlock(&ctx->cs_lock);

	dma_fence_put(old);
	return 0;
}

static int hl_cs_submit(struct hl_ctx *ctx, const struct hl_cs_chunk *chunks,
			u32 n, u32 timeout_s, u64 *seq)
{
	struct hl_device *hdev = ctx->hdev;
	unsigned long timeout = hl_cs_timeout_jiffies(timeout_s);
	struct hl_cs_fence *fence;
	struct hl_cs *cs;
	int rc;
	u32 i;

	cs = kzalloc(struct_size(cs, jobs, n), GFP_KERNEL);
	if (!cs)
		return -ENOMEM;
	cs->num_jobs = n;

	fence = kzalloc(sizeof(*fence), GFP_KERNEL);
	if (!fence) {
		rc = -ENOMEM;
		goto err_free_cs;
	}
	spin_lock_init(&fence->lock);
	cs->fence = fence;
	cs->ctx = ctx;

	for (i = 0; i < n; i++) {
		struct hl_cs_job *job = &cs->jobs[i];

		job->cs = cs;
		job->ctx = ctx;
		job->cb_va = chunks[i].cb_handle;
		job->cb_size = chunks[i].cb_size;
		job->queue_id = chunks[i].queue_index;
		job->timeout = timeout;
		INIT_LIST_HEAD(&job->node);
	}

	rc = hl_cs_publish(ctx, cs);
	if (rc)
		goto err_put_fence;

	/* From here on, the CS completes through hl_cs_put() */
	hl_ctx_get(ctx);
	atomic_set(&cs->pending, n + 1);
	*seq = cs->seq;

	/* Importers of the context's exports wait for the CS (dmabuf.c) */
	rc = hl_dmabuf_add_fence(ctx, &fence->base);
	for (i = 0; !rc && i < n; i++) {
		rc = hdev->asic_funcs->queue_job(hdev, &cs->jobs[i]);
		if (rc)
			break;
	}
	/* Jobs that were not queued fail, and so does the CS */
	for (; i < n; i++)
		hl_cs_job_done(&cs->jobs[i], rc);
	hl_cs_put(cs);

	return rc;

err_put_fence:
	/* Never published: nobody else holds it; frees it */
	dma_fence_put(&fence->base);
err_free_cs:
	kfree(cs);
	return rc;
}

/**
 * hl_cs_ioctl - HL_IOCTL_CS: submit jobs to engine queues.
 * @fpriv: the compute node's open file.
 * @data: union hl_cs_args, copied in; out.seq is returned.
 *
 * Errors: -EINVAL a non-zero reserved field, cs_flags or ctx_id, restore
 * chunks, num_chunks_execute not in 1..HL_MAX_JOBS_PER_CS, or a chunk with
 * a bad queue_index, a cb_size that is 0, not a multiple of 8 or above
 * 2 MiB, or non-zero flags/pad; -EFAULT the chunk array cannot be read;
 * -ENOMEM (also when the fence cannot be added to the context's dma-buf
 * exports); -ENODEV the device is going away. With -ENOMEM or -ENODEV after
 * the CS got its sequence number, the jobs not yet queued fail, and so does
 * the CS, whose sequence number is still returned.
 * Faults and bad packets are not errors of the ioctl: the CS completes with
 * an error that HL_IOCTL_WAIT_CS reports.
 *
 * Return: 0 or a negative errno.
 */
int hl_cs_ioctl(struct hl_fpriv *fpriv, void *data)
{
	union hl_cs_args *args = data;
	struct hl_cs_in in = args->in;
	struct hl_ctx *ctx = fpriv->ctx;
	struct hl_cs_chunk *chunks;
	u64 seq = 0;
	int rc;

	if (!ctx)
		return -EINVAL;
	if (in.chunks_restore || in.num_chunks_restore || in.reserved ||
	    in.cs_flags || in.ctx_id || in.pad)
		return -EINVAL;
	if (!in.num_chunks_execute ||
	    in.num_chunks_execute > HL_MAX_JOBS_PER_CS)
		return -EINVAL;

	chunks = memdup_array_user(u64_to_user_ptr(in.chunks_execute),
				   in.num_chunks_execute, sizeof(*chunks));
	if (IS_ERR(chunks))
		return PTR_ERR(chunks);

	rc = hl_cs_validate_chunks(fpriv->hdev, chunks, in.num_chunks_execute);
	if (!rc)
		rc = hl_cs_submit(ctx, chunks, in.num_chunks_execute,
				  in.timeout, &seq);
	kfree(chunks);

	if (seq) {
		memset(&args->out, 0, sizeof(args->out));
		args->out.seq = seq;
		args->out.status = HL_CS_STATUS_SUCCESS;
	}
	return rc;
}

/* WAIT_CS timeout: 0 polls; U32_MAX us (71 minutes) and above: no limit */
static long hl_cs_wait_jiffies(u64 timeout_us)
{
	if (timeout_us >= U32_MAX)
		return MAX_SCHEDULE_TIMEOUT;
	return usecs_to_jiffies(timeout_us);
}

/*
 * The fence of CS @seq of @ctx, with a reference, in *@fence; NULL when the
 * CS is too old to be tracked (it completed as far as WAIT_CS is concerned).
 */
static int hl_cs_find_fence(struct hl_ctx *ctx, u64 seq,
			    struct dma_fence **fence)
{
	int rc = 0;

	spin_lock(&ctx->cs_lock);
	if (!seq || seq >= ctx->cs_sequence)
		rc = -EINVAL;
	else
		*fence = dma_fence_get(xa_load(&ctx->cs_fences, seq));
	spin_unlock(&ctx->cs_lock);

	return rc;
}

/**
 * hl_wait_cs_ioctl - HL_IOCTL_WAIT_CS: wait for a command submission.
 * @fpriv: the compute node's open file.
 * @data: union hl_wait_cs_args, copied in; out is returned, also on -EIO.
 *
 * out.status: COMPLETED (with out.timestamp_nsec, the fence's signal time),
 * BUSY (still running after timeout_us; 0 only polls; the ioctl returns 0),
 * or ABORTED (the CS failed: a job faulted, was malformed, timed out, or
 * the device went away; the ioctl returns -EIO). A CS older than the last
 * 1024 of the context is no longer tracked and reads as COMPLETED, with a
 * zero timestamp.
 *
 * Errors: -EINVAL seq 0 or not issued yet, non-zero flags or ctx_id;
 * -EIO the CS failed; -EINTR a signal arrived while waiting (out.status
 * BUSY; libhlthunk retries).
 *
 * Return: 0 or a negative errno.
 */
int hl_wait_cs_ioctl(struct hl_fpriv *fpriv, void *data)
{
	union hl_wait_cs_args *args = data;
	struct hl_wait_cs_in in = args->in;
	struct hl_ctx *ctx = fpriv->ctx;
	struct dma_fence *fence = NULL;
	long left;
	int rc;

	if (!ctx || in.flags || in.ctx_id)
		return -EINVAL;

	rc = hl_cs_find_fence(ctx, in.seq, &fence);
	if (rc)
		return rc;

	memset(&args->out, 0, sizeof(args->out));
	args->out.status = HL_WAIT_CS_STATUS_COMPLETED;
	if (!fence)
		return 0;

	left = dma_fence_wait_timeout(fence, true,
				      hl_cs_wait_jiffies(in.timeout_us));
	if (left < 0) {
		args->out.status = HL_WAIT_CS_STATUS_BUSY;
		rc = left == -ERESTARTSYS ? -EINTR : left;
	} else if (!left) {
		args->out.status = HL_WAIT_CS_STATUS_BUSY;
	} else if (dma_fence_get_status(fence) < 0) {
		args->out.status = HL_WAIT_CS_STATUS_ABORTED;
		rc = -EIO;
	} else {
		args->out.timestamp_nsec = ktime_to_ns(dma_fence_timestamp(fence));
	}

	dma_fence_put(fence);
	return rc;
}

/**
 * hl_cs_ctx_init - initialise a context's CS state.
 * @ctx: the context.
 */
void hl_cs_ctx_init(struct hl_ctx *ctx)
{
	spin_lock_init(&ctx->cs_lock);
	ctx->cs_sequence = 1;
	xa_init(&ctx->cs_fences);
}

/**
 * hl_cs_ctx_fini - release a context's CS state.
 * @ctx: the context; no CS of it runs (each holds a context reference).
 */
void hl_cs_ctx_fini(struct hl_ctx *ctx)
{
	struct dma_fence *fence;
	unsigned long seq;

	xa_for_each(&ctx->cs_fences, seq, fence)
		dma_fence_put(fence);
	xa_destroy(&ctx->cs_fences);
}

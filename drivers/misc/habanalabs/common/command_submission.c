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
 * Fences visible to other drivers: every CS adds its fence to the
 * reservation object that the context's exports share (hl_ctx.resv) with
 * DMA_RESV_USAGE_WRITE (user work, not kernel memory management). The
 * fence becomes visible (WAIT_CS, the reservation object, and through it
 * sync_files) only at the commit, after the sequence number reached user
 * space, in the same step that queues its jobs: nothing user space does
 * after that (a copy back it holds with userfaultfd, say) can keep it from
 * signalling. The slot is reserved and the WAIT_CS entry preallocated
 * before the fence is published, so that nothing allocates once it is
 * observable; the fence signals in bounded time because no job runs past
 * job_timeout_max from its commit (the backend aborts it with -ETIMEDOUT),
 * and the engine's signalling path is annotated with
 * dma_fence_begin_signalling().
 *
 * Each fence holds a reference on this module, dropped by its release: a
 * fence handed out (a sync_file) never outlives the code of its ops.
 *
 * In flight: at most max_pending_cs submissions of a context may be
 * uncommitted or unsignalled (-EAGAIN past it). WAIT_CS finds every
 * unsignalled CS and the last HL_CS_MAX_TRACKED of the context; an older
 * one was complete (successfully or not) when it was forgotten, and reads
 * as COMPLETED; one not committed yet reads as a number not handed out.
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
#include "command_submission.h"
#include "context.h"
#include "debug.h"
#include "device.h"
#include "fault.h"
#include "ioctl.h"

/* Completed fences kept per context for WAIT_CS */
#define HL_CS_MAX_TRACKED	1024

/* Outcomes of forgotten HL_CS_FLAGS_TIMESTAMP submissions kept per context */
#define HL_CS_OUTCOMES		256

/* Largest command buffer of one job */
#define HL_CS_MAX_CB_SIZE	SZ_2M

/* Largest value of a 15-bit sync object */
#define HL_CS_SOB_MAX_VAL	0x7fff

/* Reserved encapsulated signals a context may hold at once */
#define HL_CS_MAX_ENCAPS	1024

/* ctx->encaps: a handle taken by a CS being submitted (its seq to come) */
#define HL_CS_ENCAPS_CLAIMED	U64_MAX

/**
 * struct hl_cs_encaps - reserved encapsulated signals (ctx->encaps).
 * @queue: the queue whose signal SOB they are reserved on.
 * @idx: which of its two signal SOBs.
 * @base: the SOB's value before them: signal k (1 .. @count) makes it
 *	@base + k.
 * @count: how many.
 * @cs_seq: 0, or the CS that gives them (HL_CS_FLAGS_ENCAP_SIGNALS), or
 *	HL_CS_ENCAPS_CLAIMED while that CS is being submitted.
 */
struct hl_cs_encaps {
	u32 queue;
	u32 idx;
	u32 base;
	u32 count;
	u64 cs_seq;
};

/* Kinds of submission (upstream's CS types) */
enum hl_cs_type {
	HL_CS_TYPE_DEFAULT,
	HL_CS_TYPE_SIGNAL,
	HL_CS_TYPE_WAIT,
	HL_CS_TYPE_COLLECTIVE,
};

/**
 * struct hl_cs_fence - the completion fence of a CS.
 * @base: the fence; first, so that dma_fence_free() frees the whole struct.
 * @lock: the fence's lock.
 * @type: the CS's enum hl_cs_type; set before the fence is published.
 * @has_signal: a SIGNAL whose SOB value below is to be reached: set at its
 *	submission, cleared (under the context's sig_lock) when its job is
 *	not queued after all.
 * @timestamp: submitted with HL_CS_FLAGS_TIMESTAMP: its outcome outlives
 *	its tracking (hl_cs_forget_locked()); set before the fence is
 *	published.
 * @sig_queue: SIGNAL: its queue.
 * @sig_idx: SIGNAL: which of the queue's two signal SOBs.
 * @sig_value: SIGNAL: the value the SOB reaches when its job runs.
 */
struct hl_cs_fence {
	struct dma_fence base;
	spinlock_t lock; /* Protects: base (dma_fence internals) */
	u32 type;
	bool has_signal;
	bool timestamp;
	u32 sig_queue;
	u32 sig_idx;
	u32 sig_value;
};

/**
 * struct hl_cs - a command submission.
 * @ctx: the submitting context; the CS holds a reference on it.
 * @fence: the completion fence; the CS holds a reference on it.
 * @pending: jobs not done yet, plus one held by the submitting ioctl while
 *	it queues them; the CS completes when it drops to 0.
 * @error: the first job error, 0 if none.
 * @seq: the sequence number.
 * @timeout: the job time limit, in jiffies, counted from the commit.
 * @sig_prev: SIGNAL: the queue's signal state before this one took its
 *	value, restored if its job is not queued.
 * @kcb: the kernel-owned command buffer of a SIGNAL or WAIT (its one job's).
 * @kcbs: COLLECTIVE_WAIT: its jobs' kernel-owned command buffers,
 *	HL_CS_KCB_SIZE bytes each, freed with the CS.
 * @coll_master: COLLECTIVE_WAIT: its master queue.
 * @coll_prev: COLLECTIVE_WAIT: the master's collective state before this
 *	one took its value, restored if none of its jobs is queued.
 * @coll_taken: COLLECTIVE_WAIT: it took a value (cleared when given back).
 * @encaps_id: the reserved encapsulated signals this CS gives (0: none);
 *	released at its completion.
 * @staged_open: the first part of a staged submission whose other parts
 *	are to come (HL_CS_FLAGS_STAGED_SUBMISSION_FIRST without _LAST): from
 *	its commit it holds two pending counts of its own, one dropped when
 *	its last part completes (or its timeout or the teardown closes it),
 *	one by @staged_work.
 * @staged_node: a first part: in ctx->staged while open; a later part: in
 *	ctx->staged_parts until its commit or drop (ctx->staged_lock).
 * @staged_last_claimed: its last part was submitted (ctx->staged_lock).
 * @staged_deadline: the jobs' deadline of every part: the first part's
 *	commit plus its timeout.
 * @staged_work: closes the submission at @staged_deadline if its last
 *	part has not come (-ETIMEDOUT), or at the teardown (-ECANCELED).
 * @staged_first: a later part: the first part, one of whose pending
 *	counts it holds until it completes (its error becomes the first's);
 *	NULL once the teardown took that count before its commit.
 * @staged_last: a later part that is the last.
 * @num_jobs: number of @jobs.
 * @jobs: the jobs.
 */
struct hl_cs {
	struct hl_ctx *ctx;
	struct hl_cs_fence *fence;
	atomic_t pending;
	atomic_t error;
	u64 seq;
	unsigned long timeout;
	struct hl_cs_sig sig_prev;
	u64 kcb[HL_CS_KCB_SIZE / sizeof(u64)];
	void *kcbs;
	u32 coll_master;
	struct hl_cs_coll coll_prev;
	bool coll_taken;
	u32 encaps_id;
	bool staged_open;
	struct list_head staged_node;
	bool staged_last_claimed;
	unsigned long staged_deadline;
	struct delayed_work staged_work;
	struct hl_cs *staged_first;
	bool staged_last;
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

static void hl_cs_fence_release(struct dma_fence *fence)
{
	dma_fence_free(fence);
	/* Taken when the fence was published: the ops above stay */
	module_put(THIS_MODULE);
}

static const struct dma_fence_ops hl_cs_fence_ops = {
	.get_driver_name = hl_cs_fence_driver_name,
	.get_timeline_name = hl_cs_fence_timeline_name,
	.release = hl_cs_fence_release,
};

/* The CS is no longer in flight; the context's teardown may wait for it */
static void hl_cs_inflight_dec(struct hl_ctx *ctx)
{
	if (atomic_dec_and_test(&ctx->cs_inflight))
		wake_up_var(&ctx->cs_inflight);
}

/*
 * Forget the signalled fence of @seq (cs_lock held); the caller puts the
 * returned reference outside the lock. A CS submitted with
 * HL_CS_FLAGS_TIMESTAMP leaves its outcome (time, error) in the context's
 * ring of the last HL_CS_OUTCOMES, for one WAIT_CS to come (upstream's
 * outcome store): its timestamp outlives the fence.
 */
static struct dma_fence *hl_cs_forget_locked(struct hl_ctx *ctx, u64 seq)
{
	struct hl_cs_outcome *o;
	struct dma_fence *old;

	lockdep_assert_held(&ctx->cs_lock);
	old = xa_erase(&ctx->cs_fences, seq);
	if (!old || xa_is_value(old))
		return NULL;
	if (container_of(old, struct hl_cs_fence, base)->timestamp) {
		o = &ctx->cs_outcomes[ctx->cs_outcome_next++ % HL_CS_OUTCOMES];
		o->seq = seq;
		o->ns = ktime_to_ns(dma_fence_timestamp(old));
		/* Signalled: its error is final */
		o->error = old->error;
	}
	return old;
}

/*
 * The outcome of forgotten CS @seq, if it asked for its timestamp and is
 * among the last HL_CS_OUTCOMES of them: true with *@ns and *@error; the
 * entry is taken (a second WAIT_CS reads the CS as gone), as upstream's.
 */
static bool hl_cs_pop_outcome(struct hl_ctx *ctx, u64 seq, s64 *ns,
			      int *error)
{
	bool found = false;
	unsigned int i;

	spin_lock(&ctx->cs_lock);
	for (i = 0; i < HL_CS_OUTCOMES && !found; i++) {
		if (ctx->cs_outcomes[i].seq != seq)
			continue;
		*ns = ctx->cs_outcomes[i].ns;
		*error = ctx->cs_outcomes[i].error;
		ctx->cs_outcomes[i].seq = 0;
		found = true;
	}
	spin_unlock(&ctx->cs_lock);
	return found;
}

/*
 * After the fence of @seq signalled: forget it once it is more than
 * HL_CS_MAX_TRACKED submissions old (hl_cs_publish() forgets the others).
 */
static void hl_cs_forget_old(struct hl_ctx *ctx, u64 seq)
{
	struct dma_fence *old = NULL;

	spin_lock(&ctx->cs_lock);
	if (ctx->cs_sequence - seq > HL_CS_MAX_TRACKED)
		old = hl_cs_forget_locked(ctx, seq);
	spin_unlock(&ctx->cs_lock);
	dma_fence_put(old);
}

static void hl_cs_put(struct hl_cs *cs);
static void hl_cs_ext_put(struct hl_cs *cs, u32 n);

/*
 * A later part of a staged submission is done (completed, or dropped
 * before its commit): its error becomes the submission's, and its pending
 * count on the first part goes; the last part closes the submission and
 * drops the first part's hold, and the timer's count if it stops it.
 */
static void hl_cs_staged_done(struct hl_ctx *ctx, struct hl_cs *first,
			      bool last, int error)
{
	bool timer = false;

	if (error)
		atomic_cmpxchg(&first->error, 0, error);
	if (last) {
		spin_lock(&ctx->staged_lock);
		list_del_init(&first->staged_node);
		spin_unlock(&ctx->staged_lock);
		timer = cancel_delayed_work(&first->staged_work);
		/* The hold */
		hl_cs_put(first);
		if (timer)
			hl_cs_put(first);
	}
	hl_cs_put(first);
}

static void hl_cs_staged_part_done(struct hl_cs *cs, int error)
{
	struct hl_cs *first = cs->staged_first;

	if (!first)
		return;
	cs->staged_first = NULL;
	hl_cs_staged_done(cs->ctx, first, cs->staged_last, error);
}

/*
 * A later part leaves ctx->staged_parts at its commit or drop: from then
 * on its count on the first part is its own to drop (unless the teardown
 * took it before: cs->staged_first is NULL then).
 */
static void hl_cs_staged_part_unlist(struct hl_cs *cs)
{
	struct hl_ctx *ctx = cs->ctx;

	spin_lock(&ctx->staged_lock);
	list_del_init(&cs->staged_node);
	spin_unlock(&ctx->staged_lock);
}

/* Drop one pending count; the last one completes and frees the CS */
static void hl_cs_put(struct hl_cs *cs)
{
	struct dma_fence *fence = &cs->fence->base;
	struct hl_ctx *ctx = cs->ctx;
	bool cookie;
	int error;

	if (!atomic_dec_and_test(&cs->pending))
		return;

	/*
	 * The CBs' usage counts and the queue entries drop before a waiter
	 * sees the CS complete
	 */
	hl_cb_jobs_put(cs->jobs, cs->num_jobs);
	hl_cs_ext_put(cs, cs->num_jobs);
	/* And a failure's event is sent by then */
	hl_events_cs_failed(ctx, cs->seq, atomic_read(&cs->error));
	cookie = dma_fence_begin_signalling();
	error = atomic_read(&cs->error);
	if (error) {
		hl_dbg(ctx->hdev, CS, "CS %llu failed: %d\n", cs->seq, error);
		dma_fence_set_error(fence, error);
	}
	dma_fence_signal(fence);
	dma_fence_end_signalling(cookie);

	/* Its signals are given: the reservation goes (WAITs read complete) */
	if (cs->encaps_id)
		kfree(xa_erase(&ctx->encaps, cs->encaps_id));
	hl_cs_forget_old(ctx, cs->seq);
	/* A later part of a staged submission: the first part may complete */
	hl_cs_staged_part_done(cs, error);
	atomic_dec(&ctx->cs_submitted);
	hl_cs_inflight_dec(ctx);
	dma_fence_put(fence);
	kfree(cs->kcbs);
	kvfree(cs);
	/* May release the context: process context only */
	hl_ctx_put(ctx);
}

/*
 * A staged submission's timer (hl_wq): at the first part's deadline, or
 * at the teardown, close it unless its last part came; then drop the
 * timer's pending count.
 */
static void hl_cs_staged_timeout(struct work_struct *work)
{
	struct hl_cs *first = container_of(to_delayed_work(work), struct hl_cs,
					   staged_work);
	struct hl_ctx *ctx = first->ctx;
	bool close = false;

	spin_lock(&ctx->staged_lock);
	if (!list_empty(&first->staged_node) && !first->staged_last_claimed) {
		list_del_init(&first->staged_node);
		close = true;
	}
	spin_unlock(&ctx->staged_lock);
	if (close) {
		hl_dbg(ctx->hdev, CS, "staged submission %llu closed without its last part\n",
		       first->seq);
		atomic_cmpxchg(&first->error, 0, READ_ONCE(ctx->closing) ?
			       -ECANCELED : -ETIMEDOUT);
		/* The hold */
		hl_cs_put(first);
	}
	hl_cs_put(first);
}

/**
 * hl_cs_job_check - may a running job go on?
 * @job: the job.
 *
 * Backends call it between packets, chunks and while waiting.
 *
 * Return: 0, -ECANCELED its context is being torn down, or -ETIMEDOUT its
 * deadline passed.
 */
int hl_cs_job_check(struct hl_cs_job *job)
{
	if (READ_ONCE(job->ctx->closing))
		return -ECANCELED;
	if (time_after(jiffies, job->deadline))
		return -ETIMEDOUT;
	return 0;
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

/*
 * The kind of queue @queue (enum hl_queue_type): NA past the ASIC's
 * queues; INT for every queue of an ASIC without a queue table.
 */
static u32 hl_cs_queue_type(struct hl_device *hdev, u32 queue)
{
	const struct asic_fixed_properties *prop = &hdev->asic_prop;

	if (queue >= prop->num_queues)
		return HL_QUEUE_TYPE_NA;
	return prop->queue_type ? prop->queue_type[queue] : HL_QUEUE_TYPE_INT;
}

/* A queue user jobs may be submitted to: internal or external */
static bool hl_cs_queue_usable(struct hl_device *hdev, u32 queue)
{
	u32 type = hl_cs_queue_type(hdev, queue);

	return type == HL_QUEUE_TYPE_INT || type == HL_QUEUE_TYPE_EXT;
}

/*
 * A queue that SIGNAL, WAIT and reservations of signals may name
 * (upstream's supports_sync_stream): with a queue table, the external
 * queues only (as GAUDI's); without one, every queue.
 */
static bool hl_cs_queue_sync_stream(struct hl_device *hdev, u32 queue)
{
	if (!hdev->asic_prop.queue_type)
		return queue < hdev->asic_prop.num_queues;
	return hl_cs_queue_type(hdev, queue) == HL_QUEUE_TYPE_EXT;
}

static int hl_cs_validate_chunks(struct hl_device *hdev,
				 const struct hl_cs_chunk *chunks, u32 n)
{
	u32 i, j;

	for (i = 0; i < n; i++) {
		const struct hl_cs_chunk *c = &chunks[i];

		if (!hl_cs_queue_usable(hdev, c->queue_index) ||
		    !c->cb_size || !IS_ALIGNED(c->cb_size, sizeof(u64)) ||
		    c->cb_size > HL_CS_MAX_CB_SIZE ||
		    (c->cs_chunk_flags & ~HL_CS_CHUNK_FLAGS_USER_ALLOC_CB) ||
		    c->collective_engine_id)
			return -EINVAL;
		for (j = 0; j < ARRAY_SIZE(c->pad); j++)
			if (c->pad[j])
				return -EINVAL;
	}
	return 0;
}

/*
 * The job time limit: the CS's own timeout, or timeout_locked for 0, never
 * more than job_timeout_max (which is never 0).
 */
static unsigned long hl_cs_timeout_jiffies(u32 timeout_s)
{
	u32 max = READ_ONCE(hl_job_timeout_max);

	if (!timeout_s)
		timeout_s = READ_ONCE(hl_timeout_locked);
	if (!timeout_s || timeout_s > max)
		timeout_s = max;
	return (unsigned long)timeout_s * HZ;
}

/*
 * What a CS's WAIT_CS entry holds from its submission until its commit: the
 * sequence number is taken, the fence not visible yet (WAIT_CS: -EINVAL, as
 * for a number not handed out).
 */
#define HL_CS_UNCOMMITTED	xa_mk_value(0)

/* Attempts of the commit to reserve its fence slot */
#define HL_CS_RESERVE_TRIES	3

/*
 * Publish the CS at its commit: initialise its fence and make WAIT_CS see
 * it in place of its HL_CS_UNCOMMITTED entry. Nothing here allocates or
 * fails. The caller adds the fence to the exports' reservation object.
 */
static void hl_cs_publish(struct hl_ctx *ctx, struct hl_cs *cs)
{
	struct hl_cs_fence *fence = cs->fence;
	struct dma_fence *old = NULL;
	u64 seq = cs->seq;
	void *entry;

	__module_get(THIS_MODULE);
	dma_fence_init(&fence->base, &hl_cs_fence_ops, &fence->lock,
		       dma_fence_context_alloc(1), seq);
	atomic_inc(&ctx->cs_inflight);

	spin_lock(&ctx->cs_lock);
	/* The xarray's reference; the entry exists, so no allocation */
	entry = xa_store(&ctx->cs_fences, seq, dma_fence_get(&fence->base),
			 GFP_NOWAIT);
	WARN_ON_ONCE(entry != HL_CS_UNCOMMITTED);
	/* Forget the one HL_CS_MAX_TRACKED back if it is done */
	if (seq > HL_CS_MAX_TRACKED) {
		entry = xa_load(&ctx->cs_fences, seq - HL_CS_MAX_TRACKED);
		if (entry && !xa_is_value(entry) &&
		    dma_fence_is_signaled(entry))
			old = hl_cs_forget_locked(ctx, seq - HL_CS_MAX_TRACKED);
	}
	spin_unlock(&ctx->cs_lock);
	dma_fence_put(old);
}

static struct hl_cs *hl_cs_alloc(struct hl_ctx *ctx,
				 const struct hl_cs_chunk *chunks, u32 n,
				 unsigned long timeout, u32 type)
{
	struct hl_cs *cs;
	u32 i;

	cs = kvzalloc(struct_size(cs, jobs, n), GFP_KERNEL_ACCOUNT);
	if (!cs)
		return NULL;
	cs->num_jobs = n;
	cs->fence = kzalloc(sizeof(*cs->fence), GFP_KERNEL_ACCOUNT);
	if (!cs->fence) {
		kvfree(cs);
		return NULL;
	}
	spin_lock_init(&cs->fence->lock);
	cs->fence->type = type;
	cs->ctx = ctx;
	cs->timeout = timeout;
	INIT_LIST_HEAD(&cs->staged_node);
	INIT_DELAYED_WORK(&cs->staged_work, hl_cs_staged_timeout);

	for (i = 0; i < n; i++) {
		struct hl_cs_job *job = &cs->jobs[i];

		job->cs = cs;
		job->ctx = ctx;
		job->cb_va = chunks[i].cb_handle;
		job->cb_size = chunks[i].cb_size;
		job->queue_id = chunks[i].queue_index;
		/* A CS of jobs: an external queue's chunk names a kernel CB */
		job->ext = type == HL_CS_TYPE_DEFAULT &&
			   hl_cs_queue_type(ctx->hdev, job->queue_id) ==
			   HL_QUEUE_TYPE_EXT;
		INIT_LIST_HEAD(&job->node);
	}
	return cs;
}

/*
 * Give back the external-queue entries of the first @n jobs of @cs (each
 * job on an external queue holds one; the others none).
 */
static void hl_cs_ext_put(struct hl_cs *cs, u32 n)
{
	struct hl_device *hdev = cs->ctx->hdev;
	u32 i;

	for (i = 0; i < n; i++)
		if (hl_cs_queue_type(hdev, cs->jobs[i].queue_id) ==
		    HL_QUEUE_TYPE_EXT)
			atomic_dec(&cs->ctx->ext_entries[cs->jobs[i].queue_id]);
}

/*
 * Take an entry of its external queue for each job of @cs that runs on
 * one, as upstream's queue of HL_EXT_QUEUE_LENGTH entries: all or none.
 * -ENOSPC when a queue has no room (HL_IOCTL_CS fails with -EAGAIN, a
 * queue-full drop), until submissions on it complete.
 */
static int hl_cs_ext_get(struct hl_cs *cs)
{
	struct hl_device *hdev = cs->ctx->hdev;
	u32 i, q;

	for (i = 0; i < cs->num_jobs; i++) {
		q = cs->jobs[i].queue_id;
		if (hl_cs_queue_type(hdev, q) != HL_QUEUE_TYPE_EXT)
			continue;
		if (atomic_inc_return(&cs->ctx->ext_entries[q]) >
		    HL_EXT_QUEUE_LENGTH) {
			hl_cs_ext_put(cs, i + 1);
			return -ENOSPC;
		}
	}
	return 0;
}

/*
 * Create a CS and take its sequence number: everything that can fail. No
 * fence is visible and no job runs until hl_cs_commit(); until then the
 * CS holds nothing that a reset or a close waits for.
 */
static int hl_cs_submit(struct hl_ctx *ctx, const struct hl_cs_chunk *chunks,
			u32 n, u32 timeout_s, u32 type, struct hl_cs **csp)
{
	struct dma_resv *resv = &ctx->resv->resv;
	struct hl_cs *cs;
	u64 seq;
	int rc;

	if (atomic_inc_return(&ctx->cs_submitted) >
	    READ_ONCE(hl_max_pending_cs)) {
		rc = -EAGAIN;
		goto err_submitted;
	}

	cs = hl_cs_alloc(ctx, chunks, n, hl_cs_timeout_jiffies(timeout_s), type);
	if (!cs) {
		rc = -ENOMEM;
		goto err_submitted;
	}
	/*
	 * Chunks naming a driver-owned CB by handle get its device VA; an
	 * external queue's, the driver's copy of it, taken now
	 */
	rc = hl_cb_jobs_get(ctx, cs->jobs, n);
	if (rc)
		goto err_put_jobs;
	rc = hl_cs_ext_get(cs);
	if (rc)
		goto err_put_jobs;

	/*
	 * The reservation lock serialises submissions, so cs_sequence is
	 * ours. A fence slot reserved now makes room that the commit's own
	 * reservation normally finds (without allocating); the WAIT_CS entry
	 * is made now, so that the commit stores without allocating.
	 */
	rc = dma_resv_lock_interruptible(resv, NULL);
	if (rc)
		goto err_put_ext;
	rc = hl_should_fail(HL_FAULT_FENCE) ? -ENOMEM : dma_resv_reserve_fences(resv, 1);
	if (rc)
		goto err_unlock;
	seq = ctx->cs_sequence;
	rc = hl_should_fail(HL_FAULT_FENCE) ? -ENOMEM :
	     xa_insert(&ctx->cs_fences, seq, HL_CS_UNCOMMITTED,
		       GFP_KERNEL_ACCOUNT);
	if (rc)
		goto err_unlock;
	spin_lock(&ctx->cs_lock);
	ctx->cs_sequence = seq + 1;
	spin_unlock(&ctx->cs_lock);
	dma_resv_unlock(resv);

	cs->seq = seq;
	/* Dropped by hl_cs_put(), or by hl_cs_drop() */
	hl_ctx_get(ctx);
	atomic_set(&cs->pending, n + 1);
	*csp = cs;
	return 0;

err_unlock:
	dma_resv_unlock(resv);
err_put_ext:
	hl_cs_ext_put(cs, n);
err_put_jobs:
	hl_cb_jobs_put(cs->jobs, n);
	kfree(cs->fence);
	kvfree(cs);
err_submitted:
	atomic_dec(&ctx->cs_submitted);
	return rc;
}

/*
 * A SIGNAL or COLLECTIVE_WAIT (sig_lock held): its jobs are not queued,
 * its value is given back
 */
static void hl_cs_signal_undo(struct hl_cs *cs)
{
	struct hl_ctx *ctx = cs->ctx;

	lockdep_assert_held(&ctx->sig_lock);
	if (cs->fence->type == HL_CS_TYPE_COLLECTIVE) {
		if (cs->coll_taken)
			ctx->coll[cs->coll_master] = cs->coll_prev;
		cs->coll_taken = false;
		return;
	}
	ctx->sig[cs->fence->sig_queue] = cs->sig_prev;
	WRITE_ONCE(cs->fence->has_signal, false);
}

/* Whether the CS holds sig_lock until its commit or drop */
static bool hl_cs_holds_sig_lock(const struct hl_cs *cs)
{
	return cs->fence->type == HL_CS_TYPE_SIGNAL ||
	       cs->fence->type == HL_CS_TYPE_COLLECTIVE;
}

/* The end of a SIGNAL's (COLLECTIVE_WAIT's) commit or drop: the next may go */
static void hl_cs_signal_unlock(struct hl_cs *cs, bool undo)
{
	if (!hl_cs_holds_sig_lock(cs))
		return;
	if (undo)
		hl_cs_signal_undo(cs);
	mutex_unlock(&cs->ctx->sig_lock);
}

/*
 * hl_ioctl_on_drop() of HL_IOCTL_CS: the context was killed before the
 * commit; its teardown destroyed the WAIT_CS entries. The fence was never
 * initialised, let alone seen. The jobs' references on the CBs they name
 * by handle go as at a completion (each CB holds the context, which holds
 * the device).
 */
static void hl_cs_drop(void *priv)
{
	struct hl_cs *cs = priv;
	struct hl_ctx *ctx = cs->ctx;

	/* sig_lock and the arrays live as long as the context's structure */
	hl_cs_signal_unlock(cs, true);
	hl_cs_staged_part_unlist(cs);
	hl_cb_jobs_put(cs->jobs, cs->num_jobs);
	hl_cs_ext_put(cs, cs->num_jobs);
	hl_cs_staged_part_done(cs, -ECANCELED);
	atomic_dec(&ctx->cs_submitted);
	kfree(cs->fence);
	kfree(cs->kcbs);
	kvfree(cs);
	hl_ctx_put(ctx);
}

/*
 * hl_ioctl_on_finish() of HL_IOCTL_CS, inside the context's gate: publish
 * the fence and queue the jobs once the caller has the sequence number,
 * with the job time limit counted from now. When the caller does not have
 * it (the copy back failed), the device went away or was reset meanwhile,
 * or no fence slot could be had, the jobs fail without running and the CS
 * completes with the error (WAIT_CS: ABORTED); its fence then reaches no
 * reservation object.
 */
static void hl_cs_commit(struct hl_fpriv *fpriv, void *priv, u64 seq,
			 bool committed)
{
	struct hl_device *hdev = fpriv->hdev;
	struct hl_cs *cs = priv;
	struct hl_ctx *ctx = cs->ctx;
	struct dma_resv *resv = &ctx->resv->resv;
	unsigned long deadline;
	bool locked = false;
	int rc = 0;
	u32 i = 0;

	/* Inside the gate: the teardown has not taken its count */
	hl_cs_staged_part_unlist(cs);
	if (!committed)
		rc = -ECANCELED;
	else if (hl_device_unplugged(hdev) || READ_ONCE(fpriv->dead))
		rc = -ENODEV;

	if (!rc) {
		/* Held only by submissions and importers, never on user space */
		dma_resv_lock(resv, NULL);
		locked = true;
		/*
		 * The submission made room, but the slot is not kept across
		 * the unlock (debug kernels check it): a small allocation,
		 * retried before the CS fails with -ENOMEM.
		 */
		for (i = 0; i < HL_CS_RESERVE_TRIES; i++) {
			rc = dma_resv_reserve_fences(resv, 1);
			if (rc != -ENOMEM)
				break;
		}
	}

	/* A staged submission's parts: the first part's deadline */
	deadline = cs->staged_first ? cs->staged_first->staged_deadline :
		   jiffies + cs->timeout;
	for (i = 0; i < cs->num_jobs; i++)
		cs->jobs[i].deadline = deadline;
	/*
	 * A staged submission opens once its first part is committed: the
	 * hold and the timer's count, and the timer, until its deadline
	 */
	if (cs->staged_open && !rc) {
		cs->staged_deadline = deadline;
		atomic_add(2, &cs->pending);
		spin_lock(&ctx->staged_lock);
		list_add_tail(&cs->staged_node, &ctx->staged);
		spin_unlock(&ctx->staged_lock);
		queue_delayed_work(hl_wq, &cs->staged_work, cs->timeout);
	}

	/* A SIGNAL that will not run gives its value back before it is seen */
	if (rc && hl_cs_holds_sig_lock(cs))
		hl_cs_signal_undo(cs);
	hl_cs_publish(ctx, cs);
	if (locked) {
		if (!rc)
			dma_resv_add_fence(resv, &cs->fence->base,
					   DMA_RESV_USAGE_WRITE);
		dma_resv_unlock(resv);
	}

	for (i = 0; !rc && i < cs->num_jobs; i++) {
		rc = hdev->asic_funcs->queue_job(hdev, &cs->jobs[i]);
		if (rc)
			break;
	}
	/*
	 * Queued in the order of its value: the next SIGNAL may go. A
	 * collective wait whose master was queued keeps its value (its
	 * master fails by its deadline, the device being stopped).
	 */
	hl_cs_signal_unlock(cs, rc && (cs->fence->type == HL_CS_TYPE_COLLECTIVE ?
				       !i : i < cs->num_jobs &&
				       cs->fence->has_signal));
	/* Jobs that were not queued fail, and so does the CS */
	for (; i < cs->num_jobs; i++)
		hl_cs_job_done(&cs->jobs[i], rc);
	hl_cs_put(cs);
}

/*
 * The fence of CS @seq of @ctx, with a reference, in *@fence; NULL when the
 * CS is no longer tracked: only CSs that had signalled are forgotten.
 */
static int hl_cs_find_fence(struct hl_ctx *ctx, u64 seq,
			    struct dma_fence **fence)
{
	int rc = 0;

	void *entry;

	spin_lock(&ctx->cs_lock);
	entry = seq && seq < ctx->cs_sequence ?
		xa_load(&ctx->cs_fences, seq) : HL_CS_UNCOMMITTED;
	if (entry == HL_CS_UNCOMMITTED)
		rc = -EINVAL;
	else
		*fence = dma_fence_get(entry);
	spin_unlock(&ctx->cs_lock);

	return rc;
}

/* The kinds of submission, mutually exclusive (upstream's type flags) */
#define HL_CS_TYPE_FLAGS	(HL_CS_FLAGS_SIGNAL | HL_CS_FLAGS_WAIT |	\
				 HL_CS_FLAGS_COLLECTIVE_WAIT |			\
				 HL_CS_FLAGS_RESERVE_SIGNALS_ONLY |		\
				 HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY |		\
				 HL_CS_FLAGS_ENGINE_CORE_COMMAND |		\
				 HL_CS_FLAGS_ENGINES_COMMAND |			\
				 HL_CS_FLAGS_FLUSH_PCI_HBW_WRITES)

/*
 * The flags served. Every CS records its completion time; TIMESTAMP keeps
 * it after the CS is forgotten (hl_cs_forget_locked())
 */
#define HL_CS_FLAGS_SERVED	(HL_CS_FLAGS_CUSTOM_TIMEOUT |		\
				 HL_CS_FLAGS_TIMESTAMP |			\
				 HL_CS_FLAGS_FORCE_RESTORE |			\
				 HL_CS_FLAGS_STAGED_SUBMISSION |		\
				 HL_CS_FLAGS_STAGED_SUBMISSION_FIRST |		\
				 HL_CS_FLAGS_STAGED_SUBMISSION_LAST |		\
				 HL_CS_FLAGS_SIGNAL | HL_CS_FLAGS_WAIT |	\
				 HL_CS_FLAGS_COLLECTIVE_WAIT |			\
				 HL_CS_FLAGS_ENCAP_SIGNALS |			\
				 HL_CS_FLAGS_RESERVE_SIGNALS_ONLY |		\
				 HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY)

/*
 * SIGNAL (sig_lock held until the commit or drop): the next value of the
 * queue's signal SOB, and the kernel CB that gives it. The 15-bit SOB
 * switches to the queue's other one, set rather than incremented, when
 * it would pass its maximum; the ASIC's CB then zeroes the old one, which
 * its WAITs of the new round wait for first (a stale value from the SOB's
 * previous round releases none of them).
 */
static void hl_cs_signal_take(struct hl_device *hdev, struct hl_cs *cs,
			      u32 queue, u32 *sob_offset, u16 *count_before)
{
	struct hl_cs_sig *sig = &cs->ctx->sig[queue];
	struct hl_cs_fence *f = cs->fence;
	struct hl_cs_job *job = &cs->jobs[0];
	bool set = false;

	lockdep_assert_held(&cs->ctx->sig_lock);
	cs->sig_prev = *sig;
	if (sig->value >= HL_CS_SOB_MAX_VAL) {
		sig->idx ^= 1;
		sig->value = 0;
		set = true;
	}
	*count_before = sig->value;
	sig->value++;

	f->sig_queue = queue;
	f->sig_idx = sig->idx;
	f->sig_value = sig->value;
	f->has_signal = true;
	job->cb_size = hdev->asic_funcs->gen_signal_cb(hdev, cs->kcb, queue,
						       sig->idx, sig->value, set,
						       sob_offset);
	job->kcb = cs->kcb;
}

/* What a WAIT waits for: signal SOB @idx of @queue reaching @value */
struct hl_cs_wait_target {
	u32 queue;
	u32 idx;
	u32 value;
};

/*
 * The SIGNAL a WAIT names, from the context's fences: 0 with *@t set when
 * it is still to come, 1 when it has completed (or is forgotten, or will
 * not run), -EINVAL when @seq was not handed out or is no SIGNAL.
 */
static int hl_cs_wait_find_signal(struct hl_ctx *ctx, u64 seq,
				  struct hl_cs_wait_target *t)
{
	struct dma_fence *fence = NULL;
	struct hl_cs_fence *f;
	int rc;

	rc = hl_cs_find_fence(ctx, seq, &fence);
	if (rc || !fence)
		return rc ?: 1;
	f = container_of(fence, struct hl_cs_fence, base);
	if (f->type != HL_CS_TYPE_SIGNAL)
		rc = -EINVAL;
	else if (dma_fence_is_signaled(fence) || !READ_ONCE(f->has_signal))
		rc = 1;
	t->queue = f->sig_queue;
	t->idx = f->sig_idx;
	t->value = f->sig_value;
	dma_fence_put(fence);
	return rc;
}

/*
 * The encapsulated signal a WAIT names: signal @offset (0 as 1) of the
 * reservation that CS @seq gives. 0 with *@t set when it is still to
 * come; 1 when that CS has completed (its reservation is gone) or will
 * not run; -EINVAL when @seq was not handed out or @offset is past the
 * reservation.
 */
static int hl_cs_wait_find_encaps(struct hl_ctx *ctx, u64 seq, u32 offset,
				  struct hl_cs_wait_target *t)
{
	struct dma_fence *fence = NULL;
	bool found = false, bad = false;
	struct hl_cs_encaps *e;
	unsigned long id;
	int rc;

	xa_lock(&ctx->encaps);
	xa_for_each(&ctx->encaps, id, e) {
		if (e->cs_seq != seq)
			continue;
		found = true;
		bad = offset > e->count;
		t->queue = e->queue;
		t->idx = e->idx;
		t->value = e->base + max(offset, 1U);
		break;
	}
	xa_unlock(&ctx->encaps);

	rc = hl_cs_find_fence(ctx, seq, &fence);
	if (rc)
		return rc;
	if (bad)
		rc = -EINVAL;
	else if (!found || !fence || dma_fence_is_signaled(fence))
		rc = 1;
	dma_fence_put(fence);
	return rc;
}

/*
 * Take the context's sig_lock outside the gate: its holder may be a SIGNAL
 * of the context waiting on user space (its copy back), which a teardown
 * must not wait for through us.
 */
static int hl_cs_sig_lock(struct hl_ctx *ctx)
{
	int rc;

	hl_ctx_pause(ctx);
	rc = mutex_lock_interruptible(&ctx->sig_lock) ? -EINTR : 0;
	if (hl_ctx_resume(ctx)) {
		if (!rc)
			mutex_unlock(&ctx->sig_lock);
		return -ENODEV;
	}
	return rc;
}

/*
 * HL_CS_FLAGS_RESERVE_SIGNALS_ONLY: reserve in.encaps_signals_count
 * signals on the signal SOB of queue in.encaps_signals_q_idx; the SIGNALs
 * after them take the values past them. A reservation that would pass the
 * SOB's maximum switches to the queue's other SOB, cleared.
 */
static int hl_cs_reserve_signals(struct hl_fpriv *fpriv,
				 const struct hl_cs_in *in,
				 struct hl_cs_out *out)
{
	struct hl_device *hdev = fpriv->hdev;
	u32 count = in->encaps_signals_count;
	u32 queue = in->encaps_signals_q_idx;
	struct hl_ctx *ctx = fpriv->ctx;
	struct hl_cs_encaps *e;
	struct hl_cs_sig *sig;
	bool clear = false;
	u32 id;
	int rc;

	if (!hdev->asic_prop.num_sobs || !count ||
	    count >= HL_CS_SOB_MAX_VAL || !hl_cs_queue_sync_stream(hdev, queue))
		return -EINVAL;

	e = kzalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);
	if (!e)
		return -ENOMEM;
	rc = hl_cs_sig_lock(ctx);
	if (rc)
		goto err_free;
	rc = xa_alloc(&ctx->encaps, &id, e, XA_LIMIT(1, HL_CS_MAX_ENCAPS),
		      GFP_KERNEL_ACCOUNT);
	if (rc) {
		/* Upstream's errno for a full table */
		if (rc == -EBUSY)
			rc = -EINVAL;
		goto err_unlock;
	}

	sig = &ctx->sig[queue];
	if (sig->value + count > HL_CS_SOB_MAX_VAL) {
		sig->idx ^= 1;
		sig->value = 0;
		clear = true;
	}
	e->queue = queue;
	e->idx = sig->idx;
	e->base = sig->value;
	e->count = count;
	sig->value += count;
	out->sob_base_addr_offset =
		hdev->asic_funcs->encaps_sob(hdev, queue, sig->idx, clear);
	out->sob_count_before_submission = e->base;
	mutex_unlock(&ctx->sig_lock);

	out->handle_id = id;
	out->count = count;
	return 0;

err_unlock:
	mutex_unlock(&ctx->sig_lock);
err_free:
	kfree(e);
	return rc;
}

/*
 * HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY: release reservation
 * in.encaps_sig_handle_id that no CS gives, and its values, which must be
 * the queue's last ones (as upstream's check).
 */
static int hl_cs_unreserve_signals(struct hl_fpriv *fpriv,
				   const struct hl_cs_in *in)
{
	struct hl_ctx *ctx = fpriv->ctx;
	struct hl_cs_encaps *e;
	struct hl_cs_sig *sig;
	int rc;

	if (in->seq != in->encaps_sig_handle_id)
		return -EINVAL;
	rc = hl_cs_sig_lock(ctx);
	if (rc)
		return rc;
	xa_lock(&ctx->encaps);
	e = xa_load(&ctx->encaps, in->encaps_sig_handle_id);
	rc = -EINVAL;
	if (e && !e->cs_seq) {
		sig = &ctx->sig[e->queue];
		if (sig->idx == e->idx && sig->value == e->base + e->count) {
			sig->value = e->base;
			__xa_erase(&ctx->encaps, in->encaps_sig_handle_id);
			rc = 0;
		}
	}
	xa_unlock(&ctx->encaps);
	mutex_unlock(&ctx->sig_lock);
	if (!rc)
		kfree(e);
	return rc;
}

/*
 * HL_CS_FLAGS_ENCAP_SIGNALS on a CS of jobs: claim reservation @id (one no
 * CS gives yet) for it. The CS's sequence number is set by
 * hl_cs_encaps_bind(); a CS that fails before it gives the claim back.
 */
static int hl_cs_encaps_claim(struct hl_ctx *ctx, u32 id, u64 seq)
{
	struct hl_cs_encaps *e;
	int rc = -EINVAL;

	xa_lock(&ctx->encaps);
	e = xa_load(&ctx->encaps, id);
	if (e && e->cs_seq == (seq ? HL_CS_ENCAPS_CLAIMED : 0)) {
		e->cs_seq = seq ?: HL_CS_ENCAPS_CLAIMED;
		rc = 0;
	}
	xa_unlock(&ctx->encaps);
	return rc;
}

static void hl_cs_encaps_unclaim(struct hl_ctx *ctx, u32 id)
{
	struct hl_cs_encaps *e;

	xa_lock(&ctx->encaps);
	e = xa_load(&ctx->encaps, id);
	if (e && e->cs_seq == HL_CS_ENCAPS_CLAIMED)
		e->cs_seq = 0;
	xa_unlock(&ctx->encaps);
}

/*
 * COLLECTIVE_WAIT (sig_lock held): whether the last collective wait of
 * @c's group failed (timed out, or not all of its jobs ran). Its value is
 * spent but not every slave added to the group, so no later value of the
 * group is reached: the next collective wait takes the other group. (One
 * taken while that one was still in flight fails too; the one after it
 * switches.)
 */
static bool hl_cs_coll_spoiled(struct hl_ctx *ctx, const struct hl_cs_coll *c)
{
	struct dma_fence *fence = NULL;
	bool spoiled;

	lockdep_assert_held(&ctx->sig_lock);
	if (!c->last_seq[c->group] ||
	    hl_cs_find_fence(ctx, c->last_seq[c->group], &fence) || !fence)
		return false;
	spoiled = dma_fence_is_signaled(fence) && fence->error;
	dma_fence_put(fence);
	return spoiled;
}

/*
 * COLLECTIVE_WAIT (sig_lock held): may @master's next collective wait take
 * a value? -EAGAIN when it would switch to the master's other SOB group
 * (its round is over, or its group is spoiled: hl_cs_coll_spoiled())
 * while the last collective wait of that group's previous round is still
 * in flight (its group is zeroed at the switch).
 */
static int hl_cs_coll_check(struct hl_ctx *ctx, u32 master)
{
	struct hl_cs_coll *c = &ctx->coll[master];
	struct dma_fence *fence = NULL;
	int rc = 0;

	lockdep_assert_held(&ctx->sig_lock);
	if (c->value < HL_CS_SOB_MAX_VAL && !hl_cs_coll_spoiled(ctx, c))
		return 0;
	if (c->last_seq[c->group ^ 1] &&
	    !hl_cs_find_fence(ctx, c->last_seq[c->group ^ 1], &fence) &&
	    fence && !dma_fence_is_signaled(fence))
		rc = -EAGAIN;
	dma_fence_put(fence);
	/* The round is over: hl_cs_coll_take() switches */
	if (!rc)
		c->value = HL_CS_SOB_MAX_VAL;
	return rc;
}

/*
 * COLLECTIVE_WAIT (sig_lock held until the commit or drop): the master's
 * next value in its SOB group, and the kernel CBs of the master and its
 * slaves. Each slave waits for the signal as a WAIT does, then adds 1 to
 * its SOB of the master's group; the master waits for every slave's SOB
 * of the group to reach the value. The value runs 1 .. 32767 per round;
 * the next round takes the master's other group, zeroed at once (no job
 * of its previous round is in flight: hl_cs_coll_check()).
 */
static void hl_cs_coll_take(struct hl_device *hdev, struct hl_cs *cs,
			    struct hl_coll_wait *cw)
{
	struct hl_cs_coll *c = &cs->ctx->coll[cw->queues[0]];
	u32 i;

	lockdep_assert_held(&cs->ctx->sig_lock);
	cs->coll_master = cw->queues[0];
	cs->coll_prev = *c;
	cs->coll_taken = true;
	if (c->value >= HL_CS_SOB_MAX_VAL) {
		c->group ^= 1;
		c->value = 0;
		hdev->asic_funcs->coll_clear(hdev, cw->queues[0], c->group);
	}
	c->value++;
	c->last_seq[c->group] = cs->seq;
	cw->group = c->group;
	cw->value = c->value;
	cw->early = hl_bug_injected(HL_INJECT_COLL_EARLY);
	for (i = 0; i < cw->num_jobs; i++) {
		void *kcb = cs->kcbs + i * HL_CS_KCB_SIZE;

		cs->jobs[i].cb_size = hdev->asic_funcs->gen_coll_cb(hdev, kcb,
								   cw, i);
		cs->jobs[i].kcb = kcb;
	}
}

/*
 * SIGNAL, WAIT and COLLECTIVE_WAIT submissions (upstream's sync stream):
 * one chunk naming a queue, no CB of the user's; the driver writes the
 * CBs. Returns 1 when a wait had nothing to wait for (no CS made: out.seq
 * is U64_MAX).
 */
static int hl_cs_sync_submit(struct hl_fpriv *fpriv, const struct hl_cs_in *in,
			     struct hl_cs_out *out, struct hl_cs **csp)
{
	struct hl_device *hdev = fpriv->hdev;
	bool is_signal = in->cs_flags & HL_CS_FLAGS_SIGNAL;
	bool coll = in->cs_flags & HL_CS_FLAGS_COLLECTIVE_WAIT;
	bool encaps = in->cs_flags & HL_CS_FLAGS_ENCAP_SIGNALS;
	struct hl_cs_chunk one = {}, *chunks = &one;
	struct hl_cs_wait_target t = {};
	struct hl_ctx *ctx = fpriv->ctx;
	struct hl_coll_wait cw = {};
	struct hl_cs_chunk chunk;
	void *kcbs = NULL;
	u32 sob_offset = 0;
	u16 count_before = 0;
	struct hl_cs *cs;
	bool locked = false;
	u64 sig_seq;
	u32 i, type;
	int rc;

	if (in->num_chunks_execute != 1 || !hdev->asic_prop.num_sobs ||
	    (is_signal && encaps))
		return -EINVAL;

	/* User memory: outside the gate */
	hl_ctx_pause(ctx);
	rc = copy_from_user(&chunk, u64_to_user_ptr(in->chunks_execute),
			    sizeof(chunk)) ? -EFAULT : 0;
	if (!rc && !is_signal && !encaps && chunk.num_signal_seq_arr == 1 &&
	    copy_from_user(&sig_seq, u64_to_user_ptr(chunk.signal_seq_arr),
			   sizeof(sig_seq)))
		rc = -EFAULT;
	if (hl_ctx_resume(ctx))
		return -ENODEV;
	if (rc)
		return rc;

	/* The master and its slaves (upstream's checks, before the signal's) */
	if (coll) {
		rc = hdev->asic_funcs->coll_queues ?
		     hdev->asic_funcs->coll_queues(hdev, chunk.queue_index,
						   chunk.collective_engine_id,
						   cw.queues) : -EOPNOTSUPP;
		if (rc < 0)
			return rc;
		if (WARN_ON_ONCE(rc < 2 || rc > HL_CS_COLL_MAX_JOBS))
			return -EINVAL;
		cw.num_jobs = rc;
	}
	if (!hl_cs_queue_sync_stream(hdev, chunk.queue_index))
		return -EINVAL;
	if (!is_signal) {
		if (encaps)
			rc = hl_cs_wait_find_encaps(ctx, chunk.encaps_signal_seq,
						    chunk.encaps_signal_offset,
						    &t);
		else if (chunk.num_signal_seq_arr != 1)
			rc = -EINVAL;
		else
			rc = hl_cs_wait_find_signal(ctx, sig_seq, &t);
		if (rc < 0)
			return rc;
		if (rc) {
			out->seq = U64_MAX;
			return 1;
		}
	}

	one.queue_index = chunk.queue_index;
	type = is_signal ? HL_CS_TYPE_SIGNAL : HL_CS_TYPE_WAIT;
	if (coll) {
		chunks = kcalloc(cw.num_jobs, sizeof(*chunks), GFP_KERNEL);
		kcbs = kcalloc(cw.num_jobs, HL_CS_KCB_SIZE, GFP_KERNEL_ACCOUNT);
		if (!chunks || !kcbs) {
			rc = -ENOMEM;
			goto out;
		}
		for (i = 0; i < cw.num_jobs; i++)
			chunks[i].queue_index = cw.queues[i];
		cw.sig_queue = t.queue;
		cw.sig_idx = t.idx;
		cw.sig_value = t.value;
		type = HL_CS_TYPE_COLLECTIVE;
	} else {
		cw.num_jobs = 1;
	}

	if (is_signal || coll) {
		rc = hl_cs_sig_lock(ctx);
		if (rc)
			goto out;
		locked = true;
	}
	if (coll) {
		rc = hl_cs_coll_check(ctx, cw.queues[0]);
		if (rc)
			goto out;
	}
	rc = hl_cs_submit(ctx, chunks, cw.num_jobs, in->timeout, type, &cs);
	if (rc)
		goto out;
	cs->fence->timestamp = in->cs_flags & HL_CS_FLAGS_TIMESTAMP;

	if (is_signal) {
		/* Unlocked at the commit or the drop */
		hl_cs_signal_take(hdev, cs, chunk.queue_index, &sob_offset,
				  &count_before);
		out->sob_base_addr_offset = sob_offset;
		out->sob_count_before_submission = count_before;
	} else if (coll) {
		/* Unlocked at the commit or the drop; the CS frees the CBs */
		cs->kcbs = kcbs;
		kcbs = NULL;
		hl_cs_coll_take(hdev, cs, &cw);
	} else {
		cs->jobs[0].cb_size =
			hdev->asic_funcs->gen_wait_cb(hdev, cs->kcb,
						      chunk.queue_index, t.queue,
						      t.idx, t.value);
		cs->jobs[0].kcb = cs->kcb;
	}
	*csp = cs;
out:
	if (rc && locked)
		mutex_unlock(&ctx->sig_lock);
	kfree(kcbs);
	if (chunks != &one)
		kfree(chunks);
	return rc;
}

/*
 * A later part of staged submission @seq (HL_CS_FLAGS_STAGED_SUBMISSION
 * without _FIRST): the open submission whose first part has @seq, with a
 * pending count of it for the part in *@first; a last part (@last) claims
 * it, and no part joins it afterwards. -EINVAL as upstream's: no open
 * staged submission of the context has that sequence number (never one,
 * its last part came, or its timeout closed it).
 */
static int hl_cs_staged_join(struct hl_ctx *ctx, u64 seq, bool last,
			     struct hl_cs **first)
{
	struct hl_cs *cs;
	int rc = -EINVAL;

	spin_lock(&ctx->staged_lock);
	list_for_each_entry(cs, &ctx->staged, staged_node) {
		if (cs->seq != seq)
			continue;
		if (!cs->staged_last_claimed) {
			cs->staged_last_claimed = last;
			atomic_inc(&cs->pending);
			*first = cs;
			rc = 0;
		}
		break;
	}
	spin_unlock(&ctx->staged_lock);
	return rc;
}

/* The part could not be made after hl_cs_staged_join(): undo it */
static void hl_cs_staged_unjoin(struct hl_ctx *ctx, struct hl_cs *first,
				bool last)
{
	if (last) {
		spin_lock(&ctx->staged_lock);
		first->staged_last_claimed = false;
		spin_unlock(&ctx->staged_lock);
	}
	/* The first part's hold is there: never the last count */
	hl_cs_put(first);
}

/*
 * The restore phase (upstream's context switch): on the context's first
 * CS, and on any CS with HL_CS_FLAGS_FORCE_RESTORE, the restore chunks
 * (in->chunks_restore, in->num_chunks_restore; none is fine) run as a CS
 * of their own, which the call waits for before it goes on with the
 * execute chunks. On the emulated device a context switch has nothing else
 * to do: a context owns its device alone, and the sync manager, the
 * fences and the queues' TLBs were reset when the previous owner was torn
 * down. Errors: those of a CS of jobs for the restore chunks (more than
 * HL_MAX_JOBS_PER_CS: -EINVAL), -EINTR while waiting, -ENOEXEC the
 * restore CS failed (upstream's); the context's restore phase then runs
 * again at its next CS.
 */
static int hl_cs_restore_phase(struct hl_fpriv *fpriv, const struct hl_cs_in *in)
{
	bool force = in->cs_flags & HL_CS_FLAGS_FORCE_RESTORE;
	u32 n = in->num_chunks_restore;
	struct hl_ctx *ctx = fpriv->ctx;
	struct dma_fence *fence = NULL;
	struct hl_cs_chunk *chunks;
	struct hl_cs *cs;
	long left;
	u64 seq;
	int rc;

	if (!force && READ_ONCE(ctx->restore_done))
		return 0;
	if (n > HL_MAX_JOBS_PER_CS)
		return -EINVAL;

	/* Outside the gate: its holder waits for the restore CS */
	hl_ctx_pause(ctx);
	rc = mutex_lock_interruptible(&ctx->restore_lock) ? -EINTR : 0;
	if (hl_ctx_resume(ctx)) {
		if (!rc)
			mutex_unlock(&ctx->restore_lock);
		return -ENODEV;
	}
	if (rc)
		return rc;
	if (!force && ctx->restore_done)
		goto out_unlock;
	if (!n)
		goto out_done;

	hl_ctx_pause(ctx);
	chunks = vmemdup_array_user(u64_to_user_ptr(in->chunks_restore), n,
				    sizeof(*chunks));
	rc = hl_ctx_resume(ctx);
	if (IS_ERR(chunks)) {
		rc = rc ?: PTR_ERR(chunks);
		goto out_unlock;
	}
	if (!rc)
		rc = hl_cs_validate_chunks(fpriv->hdev, chunks, n);
	if (!rc)
		rc = hl_cs_submit(ctx, chunks, n, 0, HL_CS_TYPE_DEFAULT, &cs);
	kvfree(chunks);
	if (rc)
		goto out_unlock;

	/*
	 * No sequence number to hand out first: committed at once. The
	 * commit gives up the ioctl's reference: the CS may be done and
	 * freed when it returns, so its fence is found by the number
	 */
	seq = cs->seq;
	hl_cs_commit(fpriv, cs, seq, true);
	rc = hl_cs_find_fence(ctx, seq, &fence);
	if (rc || !fence)
		goto out_unlock;
	hl_ctx_pause(ctx);
	left = dma_fence_wait(fence, true);
	rc = hl_ctx_resume(ctx);
	if (!rc && left)
		rc = left == -ERESTARTSYS ? -EINTR : left;
	else if (!rc && dma_fence_get_status(fence) < 0)
		rc = -ENOEXEC;
	dma_fence_put(fence);
	if (rc)
		goto out_unlock;
out_done:
	ctx->restore_done = true;
out_unlock:
	mutex_unlock(&ctx->restore_lock);
	return rc;
}

/**
 * hl_cs_ioctl - HL_IOCTL_CS: submit jobs to engine queues.
 * @fpriv: the compute node's open file.
 * @data: union hl_cs_args, copied in; out.seq is returned.
 * @call: the ioctl call.
 *
 * cs_flags may carry HL_CS_FLAGS_CUSTOM_TIMEOUT (hl-thunk sets it with a
 * timeout; in.timeout is honoured with or without it), HL_CS_FLAGS_TIMESTAMP
 * (every CS records its completion time; with it, the time is kept for one
 * WAIT_CS after the CS is forgotten, among the context's last 256 such
 * CSs), and one of HL_CS_FLAGS_SIGNAL, HL_CS_FLAGS_WAIT and
 * HL_CS_FLAGS_COLLECTIVE_WAIT (hl_cs_sync_submit()).
 *
 * Errors: listed in the kernel-doc of union hl_cs_args (uAPI header). The
 * jobs are queued only after the sequence number reached user space: if the
 * copy back fails (-EFAULT), or the device goes away meanwhile, they fail
 * without running. Faults and bad packets are not errors of the ioctl: the
 * CS completes with an error that HL_IOCTL_WAIT_CS reports.
 *
 * Return: 0 or a negative errno.
 */
int hl_cs_ioctl(struct hl_fpriv *fpriv, void *data, struct hl_ioctl_call *call)
{
	union hl_cs_args *args = data;
	struct hl_cs_in in = args->in;
	u32 type = in.cs_flags & HL_CS_TYPE_FLAGS;
	struct hl_ctx *ctx = fpriv->ctx;
	struct hl_cs_chunk *chunks;
	struct hl_cs_out out = {};
	struct hl_cs *cs, *first = NULL;
	bool staged_part;
	u32 encaps_id, staged;
	int rc;

	if (!ctx)
		return -EINVAL;
	if (in.ctx_id || memchr_inv(&in.pad, 0, sizeof(in.pad)) ||
	    (type && !is_power_of_2(type)))
		return -EINVAL;
	if (in.cs_flags & ~HL_CS_FLAGS_SERVED)
		return -EINVAL;
	/* A CS of jobs needs one (upstream's sanity check, before restore) */
	if (!type && !in.num_chunks_execute)
		return -EINVAL;

	/* The context switch: its first CS, or FORCE_RESTORE */
	rc = hl_cs_restore_phase(fpriv, &in);
	if (rc)
		return rc;

	if (type & (HL_CS_FLAGS_RESERVE_SIGNALS_ONLY |
		    HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY)) {
		if (in.cs_flags & HL_CS_FLAGS_ENCAP_SIGNALS)
			return -EINVAL;
		if (type & HL_CS_FLAGS_RESERVE_SIGNALS_ONLY)
			rc = hl_cs_reserve_signals(fpriv, &in, &out);
		else
			rc = hl_cs_unreserve_signals(fpriv, &in);
		if (rc)
			return rc;
		out.status = HL_CS_STATUS_SUCCESS;
		args->out = out;
		return 0;
	}

	if (type) {
		if (in.seq)
			return -EINVAL;
		rc = hl_cs_sync_submit(fpriv, &in, &out, &cs);
		if (rc < 0)
			return rc;
		if (rc) {
			out.status = HL_CS_STATUS_SUCCESS;
			args->out = out;
			return 0;
		}
		goto commit;
	}

	/* A later part of a staged submission names it by in.seq */
	staged = in.cs_flags & HL_CS_FLAGS_STAGED_SUBMISSION ?
		 in.cs_flags & (HL_CS_FLAGS_STAGED_SUBMISSION_FIRST |
				HL_CS_FLAGS_STAGED_SUBMISSION_LAST) :
		 HL_CS_FLAGS_STAGED_SUBMISSION_FIRST |
		 HL_CS_FLAGS_STAGED_SUBMISSION_LAST;
	staged_part = !(staged & HL_CS_FLAGS_STAGED_SUBMISSION_FIRST);
	encaps_id = in.cs_flags & HL_CS_FLAGS_ENCAP_SIGNALS ?
		    in.encaps_sig_handle_id : 0;
	if ((!staged_part && in.seq != encaps_id) ||
	    (staged_part && in.cs_flags & HL_CS_FLAGS_ENCAP_SIGNALS) ||
	    (in.cs_flags & HL_CS_FLAGS_ENCAP_SIGNALS && !encaps_id) ||
	    in.num_chunks_execute > HL_MAX_JOBS_PER_CS)
		return -EINVAL;

	/* A user copy, which may fault for long: outside the gate */
	hl_ctx_pause(ctx);
	chunks = vmemdup_array_user(u64_to_user_ptr(in.chunks_execute),
				    in.num_chunks_execute, sizeof(*chunks));
	rc = hl_ctx_resume(ctx);
	if (IS_ERR(chunks))
		return rc ?: PTR_ERR(chunks);
	if (rc) {
		kvfree(chunks);
		return rc;
	}

	rc = hl_cs_validate_chunks(fpriv->hdev, chunks, in.num_chunks_execute);
	if (!rc && encaps_id)
		rc = hl_cs_encaps_claim(ctx, encaps_id, 0);
	if (!rc && staged_part)
		rc = hl_cs_staged_join(ctx, in.seq,
				       staged & HL_CS_FLAGS_STAGED_SUBMISSION_LAST,
				       &first);
	if (!rc) {
		rc = hl_cs_submit(ctx, chunks, in.num_chunks_execute,
				  in.timeout, HL_CS_TYPE_DEFAULT, &cs);
		if (rc && encaps_id)
			hl_cs_encaps_unclaim(ctx, encaps_id);
		if (rc && first)
			hl_cs_staged_unjoin(ctx, first,
					    staged & HL_CS_FLAGS_STAGED_SUBMISSION_LAST);
	}
	kvfree(chunks);
	if (rc)
		return rc;
	cs->fence->timestamp = in.cs_flags & HL_CS_FLAGS_TIMESTAMP;
	if (encaps_id) {
		/* Claimed: cannot fail. Released at the CS's completion. */
		hl_cs_encaps_claim(ctx, encaps_id, cs->seq);
		cs->encaps_id = encaps_id;
	}
	/* A staged submission: every part returns the first part's seq */
	cs->staged_open = !staged_part &&
			  !(staged & HL_CS_FLAGS_STAGED_SUBMISSION_LAST);
	cs->staged_first = first;
	cs->staged_last = first && (staged & HL_CS_FLAGS_STAGED_SUBMISSION_LAST);
	if (first) {
		spin_lock(&ctx->staged_lock);
		list_add_tail(&cs->staged_node, &ctx->staged_parts);
		spin_unlock(&ctx->staged_lock);
		out.seq = in.seq;
		out.status = HL_CS_STATUS_SUCCESS;
		args->out = out;
		hl_ioctl_on_finish(call, hl_cs_commit, cs, cs->seq);
		hl_ioctl_on_drop(call, hl_cs_drop);
		return 0;
	}

commit:
	out.seq = cs->seq;
	out.status = HL_CS_STATUS_SUCCESS;
	args->out = out;
	hl_ioctl_on_finish(call, hl_cs_commit, cs, cs->seq);
	hl_ioctl_on_drop(call, hl_cs_drop);
	return 0;
}

/**
 * hl_events_cs_ioctl - HL_IOCTL_CS, counting the calls it refuses.
 * @fpriv: the compute node's open file.
 * @data: union hl_cs_args.
 * @call: the ioctl call.
 *
 * Return: what hl_cs_ioctl() returns.
 */
int hl_events_cs_ioctl(struct hl_fpriv *fpriv, void *data,
		       struct hl_ioctl_call *call)
{
	struct hl_dev_counters *c = &fpriv->hdev->counters;
	int rc = hl_cs_ioctl(fpriv, data, call);
	enum hl_cs_drop why;

	switch (rc) {
	case 0:
	case -EINTR:
		return rc;
	case -ENOMEM:
		why = HL_CS_DROP_OUT_OF_MEM;
		break;
	case -EAGAIN:
		why = HL_CS_DROP_MAX_IN_FLIGHT;
		break;
	case -ENOSPC:
		/* An external queue full: upstream's queue-full drop */
		why = HL_CS_DROP_QUEUE_FULL;
		rc = -EAGAIN;
		break;
	case -ENODEV:
		why = HL_CS_DROP_DEVICE_IN_RESET;
		break;
	default:
		why = HL_CS_DROP_VALIDATION;
		break;
	}
	atomic64_inc(&c->cs_drops[why]);
	if (fpriv->ctx && why != HL_CS_DROP_DEVICE_IN_RESET)
		atomic64_inc(&fpriv->ctx->cs_drops[why]);
	return rc;
}

/* WAIT_CS timeout: 0 polls; U32_MAX us (71 minutes) and above: no limit */
static long hl_cs_wait_jiffies(u64 timeout_us)
{
	if (timeout_us >= U32_MAX)
		return MAX_SCHEDULE_TIMEOUT;
	return usecs_to_jiffies(timeout_us);
}

struct hl_multi_cs_wait;

/**
 * struct hl_multi_cs_cb - a fence callback of a multi-CS wait.
 * @base: the callback.
 * @wait: its wait.
 */
struct hl_multi_cs_cb {
	struct dma_fence_cb base;
	struct hl_multi_cs_wait *wait;
};

/**
 * struct hl_multi_cs_wait - the waiter of one multi-CS WAIT_CS.
 * @cb: one fence callback per CS of the array.
 * @task: the waiting task, woken by any callback.
 * @done: set by the first callback.
 */
struct hl_multi_cs_wait {
	struct hl_multi_cs_cb cb[HL_WAIT_MULTI_CS_LIST_MAX_LEN];
	struct task_struct *task;
	bool done;
};

static void hl_multi_cs_wake(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct hl_multi_cs_wait *w =
		container_of(cb, struct hl_multi_cs_cb, base)->wait;

	WRITE_ONCE(w->done, true);
	wake_up_process(w->task);
}

/*
 * The status and errno of a CS that failed with @error, as upstream's:
 * a job still running at its deadline (the TDR's timeout) reads TIMEDOUT
 * with -ETIMEDOUT, any other failure ABORTED with -EIO.
 */
static int hl_cs_failed_status(int error, u32 *status)
{
	if (error == -ETIMEDOUT) {
		*status = HL_WAIT_CS_STATUS_TIMEDOUT;
		return -ETIMEDOUT;
	}
	*status = HL_WAIT_CS_STATUS_ABORTED;
	return -EIO;
}

/*
 * Collect the completed CSs of @fences (NULL: forgotten, i.e. complete)
 * into @out. Returns true when at least one has completed.
 */
static bool hl_multi_cs_collect(struct dma_fence **fences, u32 n,
				struct hl_wait_cs_out *out, bool *failed)
{
	s64 first = 0;
	u32 i;

	memset(out, 0, sizeof(*out));
	*failed = false;
	for (i = 0; i < n; i++) {
		struct dma_fence *f = fences[i];

		if (f && !dma_fence_is_signaled(f))
			continue;
		out->cs_completion_map |= BIT(i);
		if (!f) {
			out->flags |= HL_WAIT_CS_STATUS_FLAG_GONE;
			continue;
		}
		if (dma_fence_get_status(f) < 0) {
			*failed = true;
			continue;
		}
		if (!first || ktime_to_ns(dma_fence_timestamp(f)) < first)
			first = ktime_to_ns(dma_fence_timestamp(f));
	}
	if (first) {
		out->timestamp_nsec = first;
		out->flags |= HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD;
	}
	return out->cs_completion_map;
}

/*
 * Sleep until one of @fences signals, @timeout runs out or a signal
 * arrives. Returns the time left (> 0), 0, or -ERESTARTSYS.
 */
static long hl_multi_cs_sleep(struct dma_fence **fences, u32 n, long timeout)
{
	struct hl_multi_cs_wait *w;
	bool added[HL_WAIT_MULTI_CS_LIST_MAX_LEN] = {};
	u32 i;

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->task = current;
	for (i = 0; i < n; i++) {
		if (!fences[i])
			continue;
		w->cb[i].wait = w;
		if (dma_fence_add_callback(fences[i], &w->cb[i].base,
					   hl_multi_cs_wake)) {
			/* Signalled meanwhile */
			WRITE_ONCE(w->done, true);
			break;
		}
		added[i] = true;
	}

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (READ_ONCE(w->done) || !timeout)
			break;
		if (signal_pending(current)) {
			timeout = -ERESTARTSYS;
			break;
		}
		timeout = schedule_timeout(timeout);
	}
	__set_current_state(TASK_RUNNING);

	for (i = 0; i < n; i++)
		if (added[i])
			dma_fence_remove_callback(fences[i], &w->cb[i].base);
	kfree(w);
	return timeout;
}

/**
 * hl_wait_multi_cs - WAIT_CS with HL_WAIT_CS_FLAGS_MULTI_CS: wait until at
 * least one CS of an array of sequence numbers has completed.
 * @ctx: the caller's context.
 * @args: the argument; in.seq points to in.seq_arr_len sequence numbers.
 *
 * Upstream's semantics: out.cs_completion_map has bit i set for each
 * entry i whose CS has completed (or is forgotten: GONE); a completed CS
 * that failed makes the call fail with -EIO (status ABORTED), as
 * upstream's does; BUSY when none completed within in.timeout_us.
 *
 * Return: 0, -EINVAL, -EFAULT, -ENOMEM, -EIO or -EINTR.
 */
static int hl_wait_multi_cs(struct hl_ctx *ctx, union hl_wait_cs_args *args)
{
	struct dma_fence *fences[HL_WAIT_MULTI_CS_LIST_MAX_LEN] = {};
	u64 seqs[HL_WAIT_MULTI_CS_LIST_MAX_LEN];
	struct hl_wait_cs_in in = args->in;
	struct hl_wait_cs_out out;
	u32 i, n = in.seq_arr_len;
	long timeout;
	bool failed;
	int rc = 0;

	if (!n || n > HL_WAIT_MULTI_CS_LIST_MAX_LEN)
		return -EINVAL;
	/* User memory and the wait: outside the context's gate */
	hl_ctx_pause(ctx);
	rc = copy_from_user(seqs, u64_to_user_ptr(in.seq), n * sizeof(*seqs)) ?
	     -EFAULT : 0;
	if (hl_ctx_resume(ctx))
		return -ENODEV;
	if (rc)
		return rc;
	for (i = 0; i < n && !rc; i++)
		rc = hl_cs_find_fence(ctx, seqs[i], &fences[i]);
	if (rc)
		goto out_put;

	/* Collect once more after each sleep, also after the last one */
	timeout = hl_cs_wait_jiffies(in.timeout_us);
	hl_ctx_pause(ctx);
	while (!hl_multi_cs_collect(fences, n, &out, &failed) && timeout > 0)
		timeout = hl_multi_cs_sleep(fences, n, timeout);
	/* The fences' outcome stands even if the context died meanwhile */
	hl_ctx_resume(ctx);
	if (timeout < 0 && !out.cs_completion_map) {
		rc = timeout == -ERESTARTSYS ? -EINTR : timeout;
		goto out_put;
	}

	args->out = out;
	if (!out.cs_completion_map) {
		args->out.status = HL_WAIT_CS_STATUS_BUSY;
	} else if (failed) {
		args->out.status = HL_WAIT_CS_STATUS_ABORTED;
		rc = -EIO;
	} else {
		args->out.status = HL_WAIT_CS_STATUS_COMPLETED;
	}

out_put:
	for (i = 0; i < n; i++)
		dma_fence_put(fences[i]);
	return rc;
}

/**
 * hl_wait_cs_ioctl - HL_IOCTL_WAIT_CS: wait for a command submission.
 * @fpriv: the compute node's open file.
 * @data: union hl_wait_cs_args, copied in; out is returned, also on -EIO
 *	and -ETIMEDOUT.
 * @call: the ioctl call.
 *
 * out.status: COMPLETED (with out.timestamp_nsec, the fence's signal time,
 * and HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD in out.flags),
 * BUSY (still running after timeout_us; 0 only polls; the ioctl returns 0),
 * TIMEDOUT (a job ran past its deadline and was stopped, upstream's TDR;
 * the ioctl returns -ETIMEDOUT) or ABORTED (the CS failed otherwise: a job
 * faulted or was malformed, or the device went away; the ioctl returns
 * -EIO). A CS that had finished and is older than the last 1024 of the
 * context is no longer tracked and reads as COMPLETED, with a zero
 * timestamp and HL_WAIT_CS_STATUS_FLAG_GONE; a CS that has not finished is
 * always tracked. But a forgotten CS that was submitted with
 * HL_CS_FLAGS_TIMESTAMP, among the context's last 256 such, reads once as
 * it completed (COMPLETED with its timestamp, TIMEDOUT or ABORTED), then
 * as GONE (upstream's outcome store).
 *
 * Errors: listed in the kernel-doc of union hl_wait_cs_args (uAPI header).
 *
 * Return: 0 or a negative errno.
 */
int hl_wait_cs_ioctl(struct hl_fpriv *fpriv, void *data,
		     struct hl_ioctl_call *call)
{
	union hl_wait_cs_args *args = data;
	struct hl_wait_cs_in in = args->in;
	struct hl_ctx *ctx = fpriv->ctx;
	struct dma_fence *fence = NULL;
	int rc, error;
	long left;
	s64 ns;

	if (!ctx || in.ctx_id || memchr_inv(in.pad, 0, sizeof(in.pad)) ||
	    in.cq_counters_offset || in.timestamp_handle ||
	    in.timestamp_offset)
		return -EINVAL;
	if (in.flags == HL_WAIT_CS_FLAGS_MULTI_CS)
		return hl_wait_multi_cs(ctx, args);
	if (in.flags || in.seq_arr_len)
		return -EINVAL;

	rc = hl_cs_find_fence(ctx, in.seq, &fence);
	if (rc)
		return rc;

	memset(&args->out, 0, sizeof(args->out));
	args->out.status = HL_WAIT_CS_STATUS_COMPLETED;
	if (!fence && hl_cs_pop_outcome(ctx, in.seq, &ns, &error)) {
		if (error < 0)
			return hl_cs_failed_status(error, &args->out.status);
		args->out.timestamp_nsec = ns;
		args->out.flags = HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD;
		return 0;
	}
	if (!fence) {
		args->out.flags = HL_WAIT_CS_STATUS_FLAG_GONE;
		return 0;
	}

	/* A wait as long as the caller wants: outside the context's gate */
	hl_ctx_pause(ctx);
	left = dma_fence_wait_timeout(fence, true,
				      hl_cs_wait_jiffies(in.timeout_us));
	/* The fence's outcome stands even if the context died meanwhile */
	hl_ctx_resume(ctx);
	if (left < 0) {
		args->out.status = HL_WAIT_CS_STATUS_BUSY;
		rc = left == -ERESTARTSYS ? -EINTR : left;
	} else if (!left) {
		args->out.status = HL_WAIT_CS_STATUS_BUSY;
	} else if (dma_fence_get_status(fence) < 0) {
		rc = hl_cs_failed_status(fence->error, &args->out.status);
	} else {
		args->out.timestamp_nsec = ktime_to_ns(dma_fence_timestamp(fence));
		args->out.flags = HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD;
	}

	dma_fence_put(fence);
	return rc;
}

/* The per-queue and per-outcome arrays of a context (kfree(NULL) is fine) */
static void hl_cs_ctx_free_arrays(struct hl_ctx *ctx)
{
	kfree(ctx->ext_entries);
	ctx->ext_entries = NULL;
	kfree(ctx->cs_outcomes);
	ctx->cs_outcomes = NULL;
	kfree(ctx->coll);
	ctx->coll = NULL;
	kfree(ctx->sig);
	ctx->sig = NULL;
}

/**
 * hl_cs_ctx_init - initialise a context's CS state and the reservation
 * object of its exports.
 * @ctx: the context.
 *
 * Return: 0 or -ENOMEM.
 */
int hl_cs_ctx_init(struct hl_ctx *ctx)
{
	ctx->resv = kzalloc(sizeof(*ctx->resv), GFP_KERNEL_ACCOUNT);
	if (!ctx->resv)
		return -ENOMEM;
	kref_init(&ctx->resv->refcount);
	dma_resv_init(&ctx->resv->resv);

	ctx->sig = kcalloc(ctx->hdev->asic_prop.num_queues, sizeof(*ctx->sig),
			   GFP_KERNEL_ACCOUNT);
	ctx->coll = kcalloc(ctx->hdev->asic_prop.num_queues,
			    sizeof(*ctx->coll), GFP_KERNEL_ACCOUNT);
	ctx->cs_outcomes = kcalloc(HL_CS_OUTCOMES, sizeof(*ctx->cs_outcomes),
				   GFP_KERNEL_ACCOUNT);
	ctx->ext_entries = kcalloc(ctx->hdev->asic_prop.num_queues,
				   sizeof(*ctx->ext_entries), GFP_KERNEL_ACCOUNT);
	if (!ctx->sig || !ctx->coll || !ctx->cs_outcomes || !ctx->ext_entries)
		goto err_free_arrays;
	mutex_init(&ctx->sig_lock);
	xa_init_flags(&ctx->encaps, XA_FLAGS_ALLOC1);
	mutex_init(&ctx->restore_lock);
	ctx->restore_done = false;
	spin_lock_init(&ctx->staged_lock);
	INIT_LIST_HEAD(&ctx->staged);
	INIT_LIST_HEAD(&ctx->staged_parts);

	spin_lock_init(&ctx->cs_lock);
	ctx->cs_sequence = 1;
	xa_init(&ctx->cs_fences);
	atomic_set(&ctx->cs_inflight, 0);
	atomic_set(&ctx->cs_submitted, 0);
	return 0;

err_free_arrays:
	hl_cs_ctx_free_arrays(ctx);
	hl_ctx_resv_put(ctx->resv);
	ctx->resv = NULL;
	return -ENOMEM;
}

/**
 * hl_cs_ctx_cancel - cancel a context's work and wait until none runs.
 * @ctx: the context, being torn down (ctx->closing is set, no ioctl of it
 *	is inside its gate).
 *
 * Running jobs abort at their next check (-ECANCELED), queued ones at
 * their start; each job is bounded by its deadline anyway, so the wait is
 * bounded by job_timeout_max. Only published submissions count: one whose
 * ioctl has not committed it (its copy back held by user space) has no
 * job running and is freed by that ioctl (hl_cs_drop()).
 */
void hl_cs_ctx_cancel(struct hl_ctx *ctx)
{
	struct hl_cs *first, *part;
	bool last;

	/*
	 * Later parts not committed (their calls' copy back held by user
	 * space) give up their counts on their first parts now, as at their
	 * drop, which then leaves them: no commit runs any more (the context
	 * is dead), and the first parts do not wait for user space.
	 */
	for (;;) {
		spin_lock(&ctx->staged_lock);
		part = list_first_entry_or_null(&ctx->staged_parts,
						struct hl_cs, staged_node);
		if (part) {
			list_del_init(&part->staged_node);
			first = part->staged_first;
			last = part->staged_last;
			part->staged_first = NULL;
		}
		spin_unlock(&ctx->staged_lock);
		if (!part)
			break;
		hl_cs_staged_done(ctx, first, last, -ECANCELED);
	}

	/* Open staged submissions close now (-ECANCELED): their timers run */
	spin_lock(&ctx->staged_lock);
	list_for_each_entry(first, &ctx->staged, staged_node)
		mod_delayed_work(hl_wq, &first->staged_work, 0);
	spin_unlock(&ctx->staged_lock);
	wait_var_event(&ctx->cs_inflight, !atomic_read(&ctx->cs_inflight));
}

/**
 * hl_cs_ctx_fini - release a context's CS state.
 * @ctx: the context; no CS of it runs (hl_cs_ctx_cancel()).
 *
 * A SIGNAL or COLLECTIVE_WAIT that its ioctl has not committed (its copy
 * back held by user space) may still hold sig_lock and its value: its drop
 * gives them back later (hl_cs_drop()), so sig_lock and the per-queue
 * arrays stay until the context's structure goes (hl_cs_ctx_destroy()).
 */
void hl_cs_ctx_fini(struct hl_ctx *ctx)
{
	struct dma_fence *fence;
	struct hl_cs_encaps *e;
	unsigned long seq;

	/* Uncommitted CSs hold no fence here (hl_cs_drop() frees them) */
	xa_for_each(&ctx->cs_fences, seq, fence)
		if (!xa_is_value(fence))
			dma_fence_put(fence);
	xa_destroy(&ctx->cs_fences);
	hl_ctx_resv_put(ctx->resv);
	ctx->resv = NULL;
	xa_for_each(&ctx->encaps, seq, e)
		kfree(e);
	xa_destroy(&ctx->encaps);
	mutex_destroy(&ctx->restore_lock);
}

/**
 * hl_cs_ctx_destroy - free what a context's uncommitted submissions may
 * still use after hl_cs_ctx_fini(): sig_lock and the per-queue arrays.
 * @ctx: the context, at its last reference (each CS holds one until its
 *	completion or drop).
 */
void hl_cs_ctx_destroy(struct hl_ctx *ctx)
{
	mutex_destroy(&ctx->sig_lock);
	hl_cs_ctx_free_arrays(ctx);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: command submissions (command_submission.c): the job an ASIC
 * backend runs, and the functions of command_submission.c. What a backend
 * may do with a job (its accessors, hl_cs_job_check(), hl_cs_job_done())
 * is declared in asic.h.
 */
#ifndef HL_COMMAND_SUBMISSION_H_
#define HL_COMMAND_SUBMISSION_H_

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/types.h>

#include "asic.h"
#include "context.h"

struct hl_cb;
struct hl_cs;

struct hl_fpriv;
struct hl_ioctl_call;

/**
 * struct hl_cs_job - one chunk of a command submission, run by one queue.
 * @cs: the submission it belongs to; holds a reference on @ctx.
 * @ctx: the submitting context.
 * @cb_va: device virtual address of the command buffer.
 * @cb: the driver-owned CB the chunk named by handle, with a reference
 *	(until the CS completes), or NULL.
 * @cb_size: its size in bytes.
 * @kcb: a kernel-owned command buffer's packets (@cb_size bytes, @cb_va
 *	0): the CS's own (SIGNAL, WAIT), or @kcb_copy; NULL for a user
 *	command buffer.
 * @kcb_copy: an external queue's job: the driver's copy of the CB the
 *	chunk named by handle, taken at submission (@cb holds the CB), freed
 *	with the CB's reference (hl_cb_jobs_put()); else NULL.
 * @kcb_live: TEST ONLY (inject_bug=64): @kcb_copy is a vmap() of the
 *	CB's own pages, what a driver that fetched the live CB would run.
 * @ext: the job's queue is external (HL_QUEUE_TYPE_EXT): its chunk names
 *	a kernel-owned CB by handle.
 * @queue_id: the engine queue that runs it.
 * @deadline: jiffies after which the job must be aborted (-ETIMEDOUT):
 *	the submission time plus the CS timeout, itself at most
 *	job_timeout_max, so that the CS fence signals in bounded time even
 *	for a job that waits for another process (NIC_RECV) or sits behind
 *	other jobs in its queue.
 * @node: the queue's list of pending jobs (backend-owned).
 */
struct hl_cs_job {
	struct hl_cs *cs;
	struct hl_ctx *ctx;
	u64 cb_va;
	struct hl_cb *cb;
	u32 cb_size;
	const void *kcb;
	void *kcb_copy;
	bool kcb_live;
	bool ext;
	u32 queue_id;
	unsigned long deadline;
	struct list_head node;
};

int hl_cs_ioctl(struct hl_fpriv *fpriv, void *data, struct hl_ioctl_call *call);
int hl_events_cs_ioctl(struct hl_fpriv *fpriv, void *data,
		       struct hl_ioctl_call *call);
int hl_wait_cs_ioctl(struct hl_fpriv *fpriv, void *data,
		     struct hl_ioctl_call *call);
int hl_cs_ctx_init(struct hl_ctx *ctx);
void hl_cs_ctx_cancel(struct hl_ctx *ctx);
void hl_cs_ctx_fini(struct hl_ctx *ctx);
void hl_cs_ctx_destroy(struct hl_ctx *ctx);

#endif /* HL_COMMAND_SUBMISSION_H_ */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: the ASIC boundary, the one door between the core (common/)
 * and a backend (emu/). A backend includes this header and no other of
 * common/; a second backend would touch no core header.
 *
 * Core to backend: struct hl_asic_funcs (habanalabs.h), the table a
 * backend fills, and struct hl_asic_properties, which it fills at
 * early_init.
 *
 * Backend to core, the calls a backend may make:
 * - the device: hl_device_get(), hl_device_put() (device.h);
 * - engine accesses around each access to device memory:
 *   hl_device_hw_access_begin(), _end(), _assert(), hl_device_hw_enter(),
 *   _exit(), _enter_pair(), _exit_pair(), _before(), _quiesce()
 *   (engine_access.h);
 * - jobs: hl_cs_job_check(), hl_cs_job_done() (command_submission.h);
 * - contexts: hl_ctx_put(), hl_ctx_record_fault() (context.h);
 * - the MMU's geometry: hl_mmu_hop_index() (mmu.h);
 * - events and counters: hl_events_send(), hl_events_undefined_opcode()
 *   (events.h), hl_events_job_start(), hl_events_job_end() (counters.h);
 * - the NIC: hl_nic_report(), hl_nic_ctx_get_reached(),
 *   hl_nic_conn_takes_sends(), hl_nic_conn_takes_recvs() (nic.h); the
 *   regions of a WRITE: hl_nic_mr_lookup(), hl_nic_mr_access_begin(),
 *   hl_nic_mr_access_end(), hl_nic_mr_put() (nic_mr.h);
 * - the test-only knobs (debug.h: stubs without CONFIG_HABANALABS_DEBUG).
 *
 * A backend reads a job through the accessors below, not its fields, but
 * for @node, which links it into the backend's queue while it owns it.
 * For now the door includes the headers that declare those calls; the
 * next step declares them here alone.
 */
#ifndef HL_ASIC_H_
#define HL_ASIC_H_

#include "habanalabs.h"
#include "command_submission.h"
#include "context.h"
#include "counters.h"
#include "debug.h"
#include "device.h"
#include "engine_access.h"
#include "events.h"
#include "mmu.h"
#include "nic.h"
#include "nic_mr.h"

/* The context a job runs in; the job's CS holds it */
static inline struct hl_ctx *hl_cs_job_ctx(const struct hl_cs_job *job)
{
	return job->ctx;
}

/* The ASID of a context, while a reference or a job holds it */
static inline u32 hl_ctx_asid(const struct hl_ctx *ctx)
{
	return ctx->asid;
}

/* The ASID a job's addresses translate through */
static inline u32 hl_cs_job_asid(const struct hl_cs_job *job)
{
	return hl_ctx_asid(job->ctx);
}

/* A job's command buffer: its device VA and size in bytes */
static inline u64 hl_cs_job_cb_va(const struct hl_cs_job *job)
{
	return job->cb_va;
}

static inline u32 hl_cs_job_cb_size(const struct hl_cs_job *job)
{
	return job->cb_size;
}

/*
 * A kernel-owned command buffer (SIGNAL, WAIT): the driver's copy of its
 * packets, which the backend reads instead of fetching through the MMU
 * (hl_cs_job_cb_va() is then 0); NULL for a user command buffer.
 */
static inline const void *hl_cs_job_kcb(const struct hl_cs_job *job)
{
	return job->kcb;
}

/* The engine queue a job was submitted to */
static inline u32 hl_cs_job_queue(const struct hl_cs_job *job)
{
	return job->queue_id;
}

/* When a job times out, in jiffies */
static inline unsigned long hl_cs_job_deadline(const struct hl_cs_job *job)
{
	return job->deadline;
}

#endif /* HL_ASIC_H_ */

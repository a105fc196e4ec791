// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: the accessors of the ASIC boundary (asic.h). A backend sees
 * the core's structures as opaque and reads what it needs of them through
 * these; the core reads the fields itself.
 */

#include <linux/list.h>

#include "asic.h"
#include "command_submission.h"
#include "context.h"
#include "habanalabs.h"

#if IS_ENABLED(CONFIG_HABANALABS_KUNIT_TEST)
#include <kunit/device.h>
#include <kunit/test.h>
#endif

/* The PCI function's struct device, which every message names */
struct device *hl_device_dev(const struct hl_device *hdev)
{
	return hdev->dev;
}

/* The ASIC's properties: filled by the backend's early_init */
struct asic_fixed_properties *hl_device_prop(struct hl_device *hdev)
{
	return &hdev->asic_prop;
}

/* The PCI function */
struct pci_dev *hl_device_pdev(const struct hl_device *hdev)
{
	return hdev->pdev;
}

/* The device's index (its minor / 2), as in the names of its nodes */
int hl_device_id(const struct hl_device *hdev)
{
	return hdev->id;
}

/* The backend's private state */
void *hl_device_asic(const struct hl_device *hdev)
{
	return hdev->asic_specific;
}

void hl_device_set_asic(struct hl_device *hdev, void *asic_specific)
{
	hdev->asic_specific = asic_specific;
}

/* The context a job runs in; the job's CS holds it */
struct hl_ctx *hl_cs_job_ctx(const struct hl_cs_job *job)
{
	return job->ctx;
}

/* The ASID a job's addresses translate through */
u32 hl_cs_job_asid(const struct hl_cs_job *job)
{
	return job->ctx->asid;
}

/* A job's command buffer: its device VA and size in bytes */
u64 hl_cs_job_cb_va(const struct hl_cs_job *job)
{
	return job->cb_va;
}

u32 hl_cs_job_cb_size(const struct hl_cs_job *job)
{
	return job->cb_size;
}

/* The engine queue a job was submitted to */
u32 hl_cs_job_queue(const struct hl_cs_job *job)
{
	return job->queue_id;
}

const void *hl_cs_job_kcb(const struct hl_cs_job *job)
{
	return job->kcb;
}

/* When a job times out, in jiffies */
unsigned long hl_cs_job_deadline(const struct hl_cs_job *job)
{
	return job->deadline;
}

/* The node that links a job into the backend's queue while it owns it */
struct list_head *hl_cs_job_node(struct hl_cs_job *job)
{
	return &job->node;
}

/* The job whose node hl_cs_job_node() returned */
struct hl_cs_job *hl_cs_job_from_node(struct list_head *node)
{
	return list_entry(node, struct hl_cs_job, node);
}

/* The ASID of a context, while a reference or a job holds it */
u32 hl_ctx_asid(const struct hl_ctx *ctx)
{
	return ctx->asid;
}

#if IS_ENABLED(CONFIG_HABANALABS_KUNIT_TEST)
struct hl_device *hl_device_kunit_alloc(struct kunit *test,
					void *asic_specific)
{
	struct hl_device *hdev;

	hdev = kunit_kzalloc(test, sizeof(*hdev), GFP_KERNEL);
	if (!hdev)
		return ERR_PTR(-ENOMEM);
	hdev->dev = kunit_device_register(test, "hl-asic-test");
	if (IS_ERR(hdev->dev))
		return ERR_CAST(hdev->dev);
	hdev->asic_specific = asic_specific;
	init_rwsem(&hdev->engine_access_rwsem);
	spin_lock_init(&hdev->nic_lock);
	return hdev;
}
#endif

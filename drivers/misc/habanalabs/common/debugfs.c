// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: debugfs, /sys/kernel/debug/habanalabs/<pci address>/.
 *
 * info     the device's state: ASIC, DRAM use (and the part of it that
 *          late fences keep quarantined, dmabuf.c), pinned host pages,
 *          whether the compute node is open, live contexts, context
 *          and CB structures not freed yet
 * exports  each live dma-buf export: size, owner pid and command, its
 *          attachments (dynamic or pinned), mappings (dmabuf.c)
 * fail_copy_out  TEST ONLY: the next N ioctls that succeed fail their copy
 *          back to user space with -EFAULT, as if the argument's page had
 *          gone, so that tests reach the undo paths (default 0)
 *
 * state    what a failed ioctl must leave as it found it (fault.c; with
 *          CONFIG_FAULT_INJECTION)
 *
 * and the ASIC backend's files (asic_funcs->debugfs_init), e.g. the
 * emulated NIC's nic/port<N>/link switches.
 *
 * The device's switches live here, as plain fields of the device (or of its
 * backend) exposed as files, as netdevsim's are; module parameters are the
 * driver-wide knobs, all in habanalabs_drv.c.
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "habanalabs.h"
#include "context.h"
#include "debugfs.h"
#include "fault.h"
#include "scrub.h"

static struct dentry *hl_debugfs_root;

static int hl_debugfs_info_show(struct seq_file *s, void *unused)
{
	struct hl_device *hdev = s->private;
	struct asic_fixed_properties *prop = &hdev->asic_prop;
	unsigned long host_dma_pages, host_dma_maps;
	unsigned int contexts = 0;
	struct hl_ctx *ctx;
	bool open;

	mutex_lock(&hdev->fpriv_list_lock);
	open = hdev->compute_fpriv;
	mutex_unlock(&hdev->fpriv_list_lock);
	mutex_lock(&hdev->ctx_list_lock);
	list_for_each_entry(ctx, &hdev->ctx_list, node)
		contexts++;
	mutex_unlock(&hdev->ctx_list_lock);
	mutex_lock(&hdev->host_pages_lock);
	host_dma_pages = hdev->host_dma_pages;
	host_dma_maps = hdev->host_dma_maps;
	mutex_unlock(&hdev->host_pages_lock);

	seq_printf(s, "asic: %s\n", prop->card_name);
	seq_printf(s, "hbm_size: %llu\n", prop->dram_size);
	seq_printf(s, "dram_user_base: 0x%llx\n", prop->dram_user_base_address);
	seq_printf(s, "dram_user_size: %llu\n", prop->dram_user_size);
	seq_printf(s, "dram_used: %lld\n", atomic64_read(&hdev->dram_used));
	seq_printf(s, "dram_scrub_pending: %llu\n", hl_scrub_pending(hdev));
	seq_printf(s, "dram_quarantined: %lld\n",
		   atomic64_read(&hdev->dram_quarantined));
	seq_printf(s, "pinned_host_pages: %lld\n",
		   atomic64_read(&hdev->pinned_host_pages));
	seq_printf(s, "host_dma_pages: %lu\n", host_dma_pages);
	seq_printf(s, "host_dma_maps: %lu\n", host_dma_maps);
	seq_printf(s, "compute_open: %d\n", open);
	seq_printf(s, "contexts: %u\n", contexts);
	seq_printf(s, "contexts_alive: %d\n",
		   atomic_read(&hdev->contexts_alive));
	seq_printf(s, "cbs_alive: %d\n", atomic_read(&hdev->cbs_alive));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hl_debugfs_info);

void hl_debugfs_init(void)
{
	hl_debugfs_root = debugfs_create_dir(HL_NAME, NULL);
	hl_fault_init(hl_debugfs_root);
}

void hl_debugfs_fini(void)
{
	debugfs_remove_recursive(hl_debugfs_root);
	hl_debugfs_root = NULL;
}

void hl_debugfs_add_device(struct hl_device *hdev)
{
	hdev->debugfs_root = debugfs_create_dir(pci_name(hdev->pdev),
						hl_debugfs_root);
	debugfs_create_file("info", 0444, hdev->debugfs_root, hdev,
			    &hl_debugfs_info_fops);
	debugfs_create_atomic_t("fail_copy_out", 0600, hdev->debugfs_root,
				&hdev->fail_copy_out);
	hl_fault_add_device(hdev);
	/* As a GAUDI, also upstream's name of the directory: hlN */
	if (hl_identity == HL_IDENTITY_GAUDI) {
		char name[16];

		snprintf(name, sizeof(name), "hl%d", hdev->id);
		hdev->debugfs_link = debugfs_create_symlink(name,
							    hl_debugfs_root,
							    pci_name(hdev->pdev));
	}
	if (hdev->asic_funcs->debugfs_init)
		hdev->asic_funcs->debugfs_init(hdev, hdev->debugfs_root);
}

void hl_debugfs_remove_device(struct hl_device *hdev)
{
	debugfs_remove(hdev->debugfs_link);
	hdev->debugfs_link = NULL;
	debugfs_remove_recursive(hdev->debugfs_root);
	hdev->debugfs_root = NULL;
}

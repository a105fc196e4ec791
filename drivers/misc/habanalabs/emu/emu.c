// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs emu: ASIC operations of the emulated accelerator.
 */

#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/pci.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "emu.h"
#include "emu_nic.h"
#include "emu_sync.h"

/*
 * asic=gaudi: GAUDI's memory map. The SRAM is backed by the 20 MiB of HBM
 * after the page tables, in the driver-reserved area (the engines reach it
 * at HL_EMU_GAUDI_SRAM_BASE only, emu_mmu.c), user DRAM starts after it;
 * there is no DRAM VA range. User DRAM must end below every address the
 * engines reach otherwise (SRAM, the CB and host VA ranges).
 */
static int hl_emu_gaudi_mem_props(struct hl_emu_device *emu,
				  struct asic_fixed_properties *prop)
{
	u64 sram = prop->mmu_pgt_addr + prop->mmu_pgt_size;

	prop->dram_user_base_address = ALIGN(sram + HL_EMU_GAUDI_SRAM_SIZE,
					     prop->dram_page_size);
	if (prop->dram_user_base_address >= emu->hbm_size ||
	    emu->hbm_size > HL_EMU_GAUDI_SRAM_BASE) {
		hl_err(emu->hdev, "%llu MiB of HBM cannot serve as a GAUDI's\n",
		       (u64)emu->hbm_size >> 20);
		return -ENODEV;
	}
	emu->sram_hbm = sram;
	prop->sram_base_address = HL_EMU_GAUDI_SRAM_BASE;
	prop->sram_size = HL_EMU_GAUDI_SRAM_SIZE;
	prop->va_dram_start = 0;
	prop->va_dram_end = 0;
	return 0;
}

static int hl_emu_early_init(struct hl_device *hdev)
{
	struct asic_fixed_properties *prop = hl_device_prop(hdev);
	struct pci_dev *pdev = hl_device_pdev(hdev);
	struct hl_emu_device *emu;
	resource_size_t size;
	int rc;

	size = pci_resource_len(pdev, HL_EMU_HBM_BAR);
	if (!(pci_resource_flags(pdev, HL_EMU_HBM_BAR) & IORESOURCE_MEM) ||
	    size < HL_EMU_HBM_MIN_SIZE || !is_power_of_2(size)) {
		hl_err(hdev, "BAR%d (%pa bytes) cannot serve as HBM\n",
		       HL_EMU_HBM_BAR, &size);
		return -ENODEV;
	}

	emu = kzalloc(sizeof(*emu), GFP_KERNEL);
	if (!emu)
		return -ENOMEM;
	emu->hdev = hdev;
	hl_device_set_asic(hdev, emu);
	rc = hl_emu_queues_early_init(emu, HL_EMU_NIC_PORTS);
	if (rc)
		goto err_free_emu;
	rc = hl_emu_sync_alloc(emu);
	if (rc)
		goto err_free_queues;

	rc = pci_request_region(pdev, HL_EMU_HBM_BAR, HL_NAME);
	if (rc)
		goto err_free_sync;

	emu->hbm_bus_addr = pci_resource_start(pdev, HL_EMU_HBM_BAR);
	emu->hbm_size = size;
	emu->hbm = ioremap_wc(emu->hbm_bus_addr, size);
	if (!emu->hbm) {
		rc = -ENOMEM;
		goto err_release_region;
	}

	strscpy(prop->card_name, HL_EMU_CARD_NAME, sizeof(prop->card_name));
	/*
	 * As a GAUDI (asic=gaudi), the device ID, the type's name and the
	 * memory change (SRAM and physically addressed DRAM, below) and
	 * the queue table (GAUDI's queues, TPC 0-7's among them): the
	 * other properties are the emulated ASIC's either way, and GAUDI's
	 * where they agree (DRAM at 0, 2 MiB DRAM pages, 4 KiB host pages);
	 * docs/using.md lists what stays different
	 */
	if (hl_identity == HL_IDENTITY_GAUDI) {
		prop->asic_name = HL_EMU_GAUDI_ASIC_NAME;
		prop->device_id = HL_EMU_GAUDI_DEVICE_ID;
		emu->phys_dram = true;
	} else {
		prop->asic_name = HL_EMU_CARD_NAME;
		prop->device_id = pdev->device;
	}
	/* No firmware: the version INFO reports says so */
	strscpy(prop->fw_version, HL_EMU_FW_VERSION, sizeof(prop->fw_version));
	prop->dram_base_address = 0;
	prop->dram_size = size;
	/* Page tables: 1/16 of HBM, at least 4 MiB, at most 64 MiB */
	prop->mmu_pgt_addr = 0;
	prop->mmu_pgt_size = clamp_t(u64, size / 16, SZ_4M, SZ_64M);
	hl_emu_mmu_props(&prop->mmu);
	prop->dram_page_size = HL_EMU_DRAM_PAGE_SIZE;
	prop->dram_user_base_address = ALIGN(prop->mmu_pgt_addr +
					     prop->mmu_pgt_size,
					     prop->dram_page_size);
	prop->dram_supports_virtual_memory = !emu->phys_dram;
	prop->va_dram_start = HL_EMU_VA_DRAM_START;
	prop->va_dram_end = HL_EMU_VA_DRAM_END;
	if (emu->phys_dram) {
		rc = hl_emu_gaudi_mem_props(emu, prop);
		if (rc)
			goto err_unmap;
	}
	prop->dram_user_size = size - prop->dram_user_base_address;
	prop->host_page_size = HL_EMU_HOST_PAGE_SIZE;
	prop->va_host_start = HL_EMU_VA_HOST_START;
	prop->va_host_end = HL_EMU_VA_HOST_END;
	prop->va_cb_start = HL_EMU_VA_CB_START;
	prop->va_cb_end = HL_EMU_VA_CB_END;
	/* asic=gaudi: GAUDI's queue table (emu_queue.c) */
	prop->num_queues = emu->num_queues;
	prop->queue_type = emu->queue_type;
	if (hl_identity == HL_IDENTITY_GAUDI)
		prop->tpc_enabled_mask = GENMASK(7, 0);
	prop->num_nic_ports = HL_EMU_NIC_PORTS;
	hl_emu_sync_props(emu, prop);

	return 0;

err_unmap:
	iounmap(emu->hbm);
err_release_region:
	pci_release_region(pdev, HL_EMU_HBM_BAR);
err_free_sync:
	hl_emu_sync_free(emu);
err_free_queues:
	hl_emu_queues_early_fini(emu);
err_free_emu:
	hl_device_set_asic(hdev, NULL);
	kfree(emu);
	return rc;
}

static void hl_emu_early_fini(struct hl_device *hdev)
{
	struct hl_emu_device *emu = to_emu(hdev);

	hl_emu_nic_free(emu);
	iounmap(emu->hbm);
	pci_release_region(hl_device_pdev(hdev), HL_EMU_HBM_BAR);
	hl_emu_sync_free(emu);
	hl_emu_queues_early_fini(emu);
	hl_device_set_asic(hdev, NULL);
	kfree(emu);
}

static int hl_emu_hw_init(struct hl_device *hdev)
{
	struct asic_fixed_properties *prop = hl_device_prop(hdev);
	struct hl_emu_device *emu = to_emu(hdev);
	int rc;

	/*
	 * HBM keeps its contents across driver loads: clear the page-table
	 * area so that nothing a previous load left there reads as a valid
	 * translation.
	 */
	memset_io(emu->hbm + prop->mmu_pgt_addr, 0, prop->mmu_pgt_size);
	/* Nor the SRAM anything of a previous load's user */
	if (emu->phys_dram)
		memset_io(emu->hbm + emu->sram_hbm, 0, prop->sram_size);
	/* A hard reset resets the sync manager too */
	hl_emu_sync_reset(emu);
	rc = hl_emu_queues_init(emu);
	if (rc)
		return rc;

	rc = hl_emu_nic_init(emu);
	if (rc)
		goto err_queues_fini;
	return 0;

err_queues_fini:
	hl_emu_queues_fini(emu);
	return rc;
}

/*
 * Stops the engines; safe while ioctls are still running (emu_queue.c).
 * The device leaves the NIC fabric first, so that no peer engine writes
 * into it from then on.
 */
static void hl_emu_hw_fini(struct hl_device *hdev)
{
	hl_emu_nic_fini(to_emu(hdev));
	hl_emu_queues_fini(to_emu(hdev));
}

/* A context is torn down and none of its jobs runs: reset for the next owner */
static void hl_emu_sync_reset_owner(struct hl_device *hdev)
{
	struct hl_emu_device *emu = to_emu(hdev);

	hl_emu_sync_reset(emu);
	/* The next owner finds none of this one's data in the SRAM either */
	if (emu->phys_dram)
		memset_io(emu->hbm + emu->sram_hbm, 0, HL_EMU_GAUDI_SRAM_SIZE);
}

static u64 hl_emu_read_pte(struct hl_device *hdev, u64 addr)
{
	const struct asic_fixed_properties *prop = hl_device_prop(hdev);
	struct hl_emu_device *emu = to_emu(hdev);

	if (WARN_ON_ONCE(addr + sizeof(u64) > prop->mmu_pgt_addr +
			 prop->mmu_pgt_size || !IS_ALIGNED(addr, 8)))
		return 0;
	return readq(emu->hbm + addr);
}

static void hl_emu_write_pte(struct hl_device *hdev, u64 addr, u64 val)
{
	const struct asic_fixed_properties *prop = hl_device_prop(hdev);
	struct hl_emu_device *emu = to_emu(hdev);

	if (WARN_ON_ONCE(addr + sizeof(u64) > prop->mmu_pgt_addr +
			 prop->mmu_pgt_size || !IS_ALIGNED(addr, 8)))
		return;
	writeq(val, emu->hbm + addr);
}

static void hl_emu_scrub_dram(struct hl_device *hdev, u64 addr, u64 size)
{
	struct hl_emu_device *emu = to_emu(hdev);

	if (WARN_ON_ONCE(addr + size > emu->hbm_size || addr + size < addr))
		return;
	memset_io(emu->hbm + addr, 0, size);
}

static phys_addr_t hl_emu_dram_bar_addr(struct hl_device *hdev, u64 dram_pa)
{
	return to_emu(hdev)->hbm_bus_addr + dram_pa;
}

const struct hl_asic_funcs hl_emu_funcs = {
	.early_init = hl_emu_early_init,
	.early_fini = hl_emu_early_fini,
	.hw_init = hl_emu_hw_init,
	.hw_fini = hl_emu_hw_fini,
	.is_device_idle = hl_emu_queues_idle,
	.read_pte = hl_emu_read_pte,
	.write_pte = hl_emu_write_pte,
	.dram_bar_addr = hl_emu_dram_bar_addr,
	.scrub_dram = hl_emu_scrub_dram,
	.mmu_invalidate_cache = hl_emu_mmu_invalidate_cache,
	.queue_job = hl_emu_queue_job,
	.sync_reset = hl_emu_sync_reset_owner,
	.gen_signal_cb = hl_emu_sync_gen_signal_cb,
	.gen_wait_cb = hl_emu_sync_gen_wait_cb,
	.encaps_sob = hl_emu_sync_encaps_sob,
	.coll_queues = hl_emu_sync_coll_queues,
	.gen_coll_cb = hl_emu_sync_gen_coll_cb,
	.coll_clear = hl_emu_sync_coll_clear,
	.nic_port_info = hl_emu_nic_port_info,
	.nic_check_remote = hl_emu_nic_check_remote,
	.nic_peer_get = hl_emu_nic_peer_get,
	.nic_qp_create = hl_emu_nic_qp_create,
	.nic_qp_program = hl_emu_nic_qp_program,
	.nic_qp_query = hl_emu_nic_qp_query,
	.nic_qp_teardown = hl_emu_nic_qp_teardown,
	.debugfs_init = hl_emu_debugfs_init,
};

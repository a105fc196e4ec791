/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs emu: the software-emulated ASIC.
 *
 * The device is a QEMU ivshmem-plain PCI function whose BAR2 is the HBM.
 * Everything a real ASIC does in silicon (queue managers, DMA engines, the
 * MMU walk, the NIC fabric) is done here in software, against the HBM in
 * BAR2 and host memory reached through DMA addresses, never by a side
 * channel that real hardware would not have.
 *
 * HBM layout (device physical addresses = offsets into BAR2):
 *   [0, mmu_pgt_size)             device page tables (driver reserved)
 *   [mmu_pgt_size, hbm_size)      user-allocatable DRAM
 */
#ifndef HL_EMU_H_
#define HL_EMU_H_

#include "../common/habanalabs.h"

#define HL_EMU_HBM_BAR			2
#define HL_EMU_HBM_MIN_SIZE		SZ_64M
#define HL_EMU_DRAM_PAGE_SIZE		SZ_2M
#define HL_EMU_HOST_PAGE_SIZE		SZ_4K

/* Device virtual address ranges (48-bit device VA space) */
#define HL_EMU_VA_HOST_START		0x100000000000ull
#define HL_EMU_VA_HOST_END		0x200000000000ull
#define HL_EMU_VA_DRAM_START		0x200000000000ull
#define HL_EMU_VA_DRAM_END		0x210000000000ull

#define HL_EMU_NUM_QUEUES		4

/**
 * struct hl_emu_device - the emulated ASIC's private state.
 * @hdev: the device.
 * @hbm: kernel mapping of BAR2 (the whole HBM).
 * @hbm_bus_addr: CPU physical address of BAR2.
 * @hbm_size: size of BAR2.
 */
struct hl_emu_device {
	struct hl_device *hdev;
	void __iomem *hbm;
	phys_addr_t hbm_bus_addr;
	resource_size_t hbm_size;
};

static inline struct hl_emu_device *to_emu(struct hl_device *hdev)
{
	return hdev->asic_specific;
}

#endif /* HL_EMU_H_ */

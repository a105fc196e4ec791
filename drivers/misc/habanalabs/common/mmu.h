/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: the device MMU's page-table format (v1), its geometry as the
 * ASIC describes it, and the driver's page-table API.
 *
 * The device translates device virtual addresses with a table of "hops"
 * that lives in HBM (the driver-reserved page-table area): each hop table
 * is an array of little-endian u64 PTEs, indexed by a field of the VA. The
 * geometry (how many hops, which VA bits index each, the size of a table,
 * the width of a VA, which hops hold leaves, the number of ASIDs) is the
 * ASIC's: struct hl_mmu_properties in asic_prop.mmu, filled by the backend
 * (the emulated ASIC's is in emu/emu_mmu.c). The format of a PTE is common:
 *
 * A PTE with HL_PTE_LAST set is a leaf: in hop N it maps a page of
 * BIT(hop_shifts[N]) bytes, when leaf_hops has bit N. Without HL_PTE_LAST,
 * a present PTE points at the next hop's table. The address field holds,
 * page aligned:
 *   - a non-leaf: the HBM device physical address of the next hop table;
 *   - a leaf without HL_PTE_HOST: an HBM device physical address;
 *   - a leaf with HL_PTE_HOST: a host DMA address, as the DMA API returned
 *     it for the accelerator's PCI function (an IOVA under an IOMMU).
 *
 * Each address-space ID (ASID) has its hop0 table at a fixed place:
 * mmu_pgt_addr + asid * hop_table_size (hl_mmu_hop0_addr()). ASID 0 is
 * never used for user contexts. Hop tables 1.. come from the rest of the
 * page-table area.
 *
 * Ordering rules the device relies on (the emulated walker runs concurrently
 * with updates, as silicon would):
 *   - map: a new hop table is filled and its leaf PTEs written before the
 *     PTE that links it into its parent;
 *   - unmap: leaf PTEs are cleared, then the device TLBs invalidated
 *     (asic_funcs->mmu_invalidate_cache), then hl_device_hw_quiesce()
 *     (hdev->engine_access_rwsem taken for write once), so that no engine
 *     access that translated
 *     through the old PTEs is still in flight; only then are the pages
 *     unpinned, DMA-unmapped or given back to the allocator.
 */
#ifndef HL_MMU_H_
#define HL_MMU_H_

#include <linux/types.h>

/* The PTE format, struct hl_mmu_properties and the hop helpers: asic.h */
#include "asic.h"

struct hl_ctx;
struct hl_device;

int hl_mmu_init(struct hl_device *hdev);
void hl_mmu_fini(struct hl_device *hdev);
int hl_mmu_ctx_init(struct hl_ctx *ctx);
void hl_mmu_ctx_fini(struct hl_ctx *ctx);
int hl_mmu_map_page(struct hl_ctx *ctx, u64 va, u64 pa, u64 page_size,
		    bool host);
int hl_mmu_unmap_page(struct hl_ctx *ctx, u64 va, u64 page_size);
void hl_mmu_invalidate(struct hl_ctx *ctx);

#endif /* HL_MMU_H_ */

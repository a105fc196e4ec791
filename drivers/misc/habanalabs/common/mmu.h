/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: the device MMU's page-table format (v1) and the driver's
 * page-table API.
 *
 * The device translates 48-bit device virtual addresses with a four-level
 * table of "hops", each a 4 KiB table of 512 little-endian u64 PTEs that
 * lives in HBM (the driver-reserved page-table area):
 *
 *   hop0 index = VA[47:39]   hop1 index = VA[38:30]
 *   hop2 index = VA[29:21]   hop3 index = VA[20:12]
 *
 * A PTE with HL_PTE_LAST set is a leaf: in hop2 it maps a 2 MiB page, in
 * hop3 a 4 KiB page. Without HL_PTE_LAST, a present PTE points at the next
 * hop's table. The address field holds, page aligned:
 *   - a non-leaf: the HBM device physical address of the next hop table;
 *   - a leaf without HL_PTE_HOST: an HBM device physical address;
 *   - a leaf with HL_PTE_HOST: a host DMA address, as the DMA API returned
 *     it for the accelerator's PCI function (an IOVA under an IOMMU).
 *
 * Each address-space ID (ASID) has its hop0 table at a fixed place:
 * mmu_pgt_addr + asid * HL_MMU_HOP_TABLE_SIZE. ASID 0 is never used for user
 * contexts. Hop tables 1..3 come from the rest of the page-table area.
 *
 * Ordering rules the device relies on (the emulated walker runs concurrently
 * with updates, as silicon would):
 *   - map: a new hop table is filled and its leaf PTEs written before the
 *     PTE that links it into its parent;
 *   - unmap: leaf PTEs are cleared, then the device TLBs invalidated
 *     (asic_funcs->mmu_invalidate_cache), then hdev->engine_access_rwsem is
 *     taken for write once, so that no engine access that translated
 *     through the old PTEs is still in flight; only then are the pages
 *     unpinned, DMA-unmapped or given back to the allocator.
 */
#ifndef HL_MMU_H_
#define HL_MMU_H_

#include <linux/bits.h>
#include <linux/sizes.h>
#include <linux/types.h>

#define HL_MMU_NUM_HOPS			4
#define HL_MMU_HOP_TABLE_SIZE		SZ_4K
#define HL_MMU_PTES_PER_HOP		512
#define HL_MMU_HOP_SHIFT(hop)		(39 - 9 * (hop))
#define HL_MMU_HOP_INDEX(va, hop)	(((va) >> HL_MMU_HOP_SHIFT(hop)) & 0x1ff)
#define HL_MMU_VA_BITS			48

#define HL_PTE_PRESENT			BIT_ULL(0)
#define HL_PTE_LAST			BIT_ULL(1)
#define HL_PTE_HOST			BIT_ULL(2)
#define HL_PTE_ADDR_MASK		GENMASK_ULL(63, 12)

/* Number of ASIDs, hop0 tables at the start of the page-table area */
#define HL_MMU_MAX_ASID			64

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

static inline u64 hl_mmu_hop0_addr(u64 pgt_base, u32 asid)
{
	return pgt_base + (u64)asid * HL_MMU_HOP_TABLE_SIZE;
}

#endif /* HL_MMU_H_ */

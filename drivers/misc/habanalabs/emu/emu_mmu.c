// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs emu: the device MMU as the engines see it.
 *
 * Every engine access (a command-buffer fetch, a packet's source or
 * destination) is a device virtual address of the job's context. It is
 * translated the way the ASIC's MMU does it: by walking the context's hop
 * tables in HBM (the format is in common/mmu.h), then by resolving the leaf:
 *   - a leaf without HL_PTE_HOST is an HBM device physical address, an offset
 *     into BAR2;
 *   - a leaf with HL_PTE_HOST is a host DMA address, resolved the way the
 *     platform resolves a DMA of the accelerator's PCI function: through its
 *     IOMMU domain when that domain translates, else as a CPU physical
 *     address. There is no side channel to the pages the driver pinned: a
 *     wrong DMA mapping in the driver shows up here as it would on silicon.
 *
 * TLB: each queue caches translations of 4 KiB VA pages in a small
 * direct-mapped TLB keyed by ASID and VA page. Entries carry the device's
 * TLB generation; mmu_invalidate_cache bumps it, which drops every entry of
 * every queue at once. Nothing else drops an entry: a driver that changes a
 * PTE and forgets to invalidate gets the old translation, as on silicon.
 * The IOMMU resolution of a host DMA address is not cached here (that is the
 * IOMMU's own IOTLB, which the DMA API keeps coherent).
 *
 * Ordering with the driver (see common/mmu.h): an engine translates and
 * copies each chunk while holding hdev->engine_access_rwsem for read; the
 * unmap paths clear PTEs, invalidate, then take that rwsem for write, so no
 * chunk that translated through an old PTE is still copying when they
 * release the page.
 */

#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/iommu.h>
#include <linux/mm.h>
#include <linux/unaligned.h>

#include "emu.h"
#include "../common/mmu.h"

#define HL_EMU_PAGE_MASK	((u64)HL_EMU_CHUNK_SIZE - 1)

/*
 * Walk the hop tables of @asid for @va. On success *@page is the translated
 * 4 KiB page (HBM address or host DMA address) and *@host tells which.
 * Return: 0, or -EFAULT for a non-present PTE at any hop, a malformed table
 * (a leaf above hop2, no leaf at hop3) or a table outside the page-table area.
 */
static int hl_emu_mmu_walk(struct hl_emu_device *emu, u32 asid, u64 va,
			   u64 *page, bool *host)
{
	struct asic_fixed_properties *prop = &emu->hdev->asic_prop;
	u64 pgt_start = prop->mmu_pgt_addr;
	u64 pgt_end = min_t(u64, pgt_start + prop->mmu_pgt_size, emu->hbm_size);
	u64 table, pte_addr, pte, page_mask;
	int hop;

	if (asid >= HL_MMU_MAX_ASID || va >> HL_MMU_VA_BITS)
		return -EFAULT;

	table = hl_mmu_hop0_addr(pgt_start, asid);
	for (hop = 0; hop < HL_MMU_NUM_HOPS; hop++) {
		pte_addr = table + HL_MMU_HOP_INDEX(va, hop) * sizeof(u64);
		if (pte_addr < pgt_start || pte_addr + sizeof(u64) > pgt_end)
			return -EFAULT;

		pte = readq(emu->hbm + pte_addr);
		if (!(pte & HL_PTE_PRESENT))
			return -EFAULT;
		if (!(pte & HL_PTE_LAST)) {
			table = pte & HL_PTE_ADDR_MASK;
			continue;
		}

		/* Leaves: 2 MiB pages in hop2, 4 KiB pages in hop3 */
		if (hop < 2)
			return -EFAULT;
		page_mask = BIT_ULL(HL_MMU_HOP_SHIFT(hop)) - 1;
		*page = (pte & HL_PTE_ADDR_MASK & ~page_mask) |
			(va & page_mask & ~HL_EMU_PAGE_MASK);
		*host = pte & HL_PTE_HOST;
		return 0;
	}

	return -EFAULT;
}

static struct hl_emu_tlb_entry *hl_emu_tlb_slot(struct hl_emu_queue *q,
						u32 asid, u64 vpn)
{
	return &q->tlb[(vpn ^ asid) & (HL_EMU_TLB_ENTRIES - 1)];
}

static int hl_emu_mmu_translate(struct hl_emu_queue *q, u32 asid, u64 va,
				u64 *addr, bool *host)
{
	struct hl_emu_device *emu = q->emu;
	u64 vpn = va >> 12, page, gen;
	struct hl_emu_tlb_entry *e;
	bool is_host;
	int rc;

	/* The generation is read before the walk: see the invalidation */
	gen = atomic64_read_acquire(&emu->tlb_gen);
	e = hl_emu_tlb_slot(q, asid, vpn);
	if (e->gen == gen && e->vpn == vpn && e->asid == asid) {
		q->tlb_hits++;
	} else {
		q->tlb_misses++;
		rc = hl_emu_mmu_walk(emu, asid, va, &page, &is_host);
		if (rc)
			return rc;
		e->gen = gen;
		e->vpn = vpn;
		e->asid = asid;
		e->addr = page;
		e->host = is_host;
	}

	*addr = e->addr | (va & HL_EMU_PAGE_MASK);
	*host = e->host;
	return 0;
}

/*
 * The CPU physical address that a DMA of the accelerator's PCI function to
 * @dma reaches, or 0 when the platform would fault it.
 */
static phys_addr_t hl_emu_dma_to_phys(struct hl_emu_device *emu,
				      dma_addr_t dma)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(emu->hdev->dev);

	if (!domain || domain->type == IOMMU_DOMAIN_IDENTITY)
		return dma;
	if (domain->type & __IOMMU_DOMAIN_PAGING)
		return iommu_iova_to_phys(domain, dma);
	/* A blocking domain */
	return 0;
}

static int hl_emu_hbm_access(struct hl_emu_device *emu, u64 addr, void *buf,
			     u32 len, bool write)
{
	void __iomem *p;

	if (addr >= emu->hbm_size || len > emu->hbm_size - addr)
		return -EFAULT;

	p = emu->hbm + addr;
	if (!write)
		memcpy_fromio(buf, p, len);
	else if (len == sizeof(u32) && IS_ALIGNED(addr, sizeof(u32)))
		/* A 32-bit write (MSG_LONG) is one store */
		writel(get_unaligned_le32(buf), p);
	else
		memcpy_toio(p, buf, len);
	return 0;
}

static int hl_emu_host_access(struct hl_emu_device *emu, dma_addr_t dma,
			      void *buf, u32 len, bool write)
{
	phys_addr_t phys = hl_emu_dma_to_phys(emu, dma);
	unsigned long pfn = PHYS_PFN(phys);
	void *vaddr;

	/* Only a driver bug (a stale or wrong DMA mapping) gets here */
	if (!phys) {
		dev_err_ratelimited(emu->hdev->dev,
				    "engine access to DMA address %pad, which is not mapped for the device\n",
				    &dma);
		return -EFAULT;
	}
	if (!pfn_valid(pfn)) {
		dev_err_ratelimited(emu->hdev->dev,
				    "engine access to DMA address %pad, which is not RAM\n",
				    &dma);
		return -EFAULT;
	}

	vaddr = kmap_local_pfn(pfn);
	if (!write)
		memcpy(buf, vaddr + offset_in_page(phys), len);
	else if (len == sizeof(u32) && IS_ALIGNED(phys, sizeof(u32)))
		/* A 32-bit write (MSG_LONG) is one store */
		WRITE_ONCE(*(u32 *)(vaddr + offset_in_page(phys)),
			   get_unaligned((u32 *)buf));
	else
		memcpy(vaddr + offset_in_page(phys), buf, len);
	kunmap_local(vaddr);
	return 0;
}

/**
 * hl_emu_mmu_access - one engine access through the device MMU.
 * @q: the queue whose engine accesses (and whose TLB is used).
 * @asid: the address space of the job.
 * @va: device virtual address.
 * @buf: bytes to write, or room for the bytes read.
 * @len: bytes, at least 1; [@va, @va + @len) must not cross a 4 KiB page.
 * @write: a write access.
 *
 * Called from @q's worker only, with hdev->engine_access_rwsem held for
 * read for the whole translate-and-copy.
 *
 * Return: 0, -EFAULT when the VA does not translate or the translation
 * leads nowhere (out of HBM, a DMA address the platform would fault), or
 * -EINVAL for a bad @len.
 */
int hl_emu_mmu_access(struct hl_emu_queue *q, u32 asid, u64 va, void *buf,
		      u32 len, bool write)
{
	struct hl_emu_device *emu = q->emu;
	bool host;
	u64 addr;
	int rc;

	lockdep_assert_held_read(&emu->hdev->engine_access_rwsem);

	if (!len || len > HL_EMU_CHUNK_SIZE - (va & HL_EMU_PAGE_MASK))
		return -EINVAL;

	rc = hl_emu_mmu_translate(q, asid, va, &addr, &host);
	if (rc)
		return rc;

	if (host)
		return hl_emu_host_access(emu, addr, buf, len, write);
	return hl_emu_hbm_access(emu, addr, buf, len, write);
}

/**
 * hl_emu_mmu_access_notlb - one access through the device MMU by an engine
 * that has no TLB: the NIC writing a peer's message into this device.
 * @emu: the device whose MMU translates.
 * @asid: the address space of the receiving context.
 * @va: device virtual address.
 * @buf: bytes to write, or room for the bytes read.
 * @len: bytes, at least 1; [@va, @va + @len) must not cross a 4 KiB page.
 * @write: a write access.
 *
 * Every access walks the page tables, so no invalidation concerns it. The
 * caller holds @emu's hdev->engine_access_rwsem for read.
 *
 * Return: as hl_emu_mmu_access().
 */
int hl_emu_mmu_access_notlb(struct hl_emu_device *emu, u32 asid, u64 va,
			    void *buf, u32 len, bool write)
{
	bool host;
	u64 page;
	int rc;

	lockdep_assert_held_read(&emu->hdev->engine_access_rwsem);

	if (!len || len > HL_EMU_CHUNK_SIZE - (va & HL_EMU_PAGE_MASK))
		return -EINVAL;

	rc = hl_emu_mmu_walk(emu, asid, va, &page, &host);
	if (rc)
		return rc;

	page |= va & HL_EMU_PAGE_MASK;
	if (host)
		return hl_emu_host_access(emu, page, buf, len, write);
	return hl_emu_hbm_access(emu, page, buf, len, write);
}

/**
 * hl_emu_tlb_flush - empty one queue's TLB.
 * @q: the queue; its worker must not run.
 */
void hl_emu_tlb_flush(struct hl_emu_queue *q)
{
	memset(q->tlb, 0, sizeof(q->tlb));
}

/**
 * hl_emu_mmu_invalidate_cache - asic_funcs->mmu_invalidate_cache.
 * @hdev: the device.
 * @asid: the address space whose translations changed; every ASID's
 *	translations are dropped, which is allowed.
 *
 * Bumps the TLB generation: a translation starts by reading the generation
 * and only uses entries filled under the same one, so after this returns no
 * new translation uses an entry cached before the call. A chunk that
 * translated before it may still be copying; the caller's write lock of
 * hdev->engine_access_rwsem waits for it.
 */
void hl_emu_mmu_invalidate_cache(struct hl_device *hdev, u32 asid)
{
	struct hl_emu_device *emu = to_emu(hdev);

	/*
	 * A value-returning atomic is fully ordered: the PTE updates before
	 * the bump pair with the acquire of the generation before a walk.
	 */
	atomic64_inc_return(&emu->tlb_gen);
}

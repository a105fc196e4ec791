// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs emu: the device MMU as the engines see it.
 *
 * Every engine access (a command-buffer fetch, a packet's source or
 * destination) is a device virtual address of the job's context. It is
 * translated the way the ASIC's MMU does it: by walking the context's hop
 * tables in HBM (the format is in common/mmu.h, this ASIC's geometry in
 * emu.h, published to the core by hl_emu_mmu_props()), then by resolving
 * the leaf:
 *   - a leaf without HL_PTE_HOST is an HBM device physical address, an offset
 *     into BAR2;
 *   - a leaf with HL_PTE_HOST is a host DMA address, resolved the way the
 *     platform resolves a DMA of the accelerator's PCI function: through its
 *     IOMMU domain when that domain translates, else as a CPU physical
 *     address. There is no side channel to the pages the driver pinned: a
 *     wrong DMA mapping in the driver shows up here as it would on silicon.
 *
 * TLB: each queue caches translations of device pages (a leaf: 2 MiB in
 * hop2 or 4 KiB in hop3) in a small direct-mapped TLB keyed by ASID, page
 * size and VA page, so that an engine moving a run of data translates once
 * per device page (hl_emu_mmu_span()). Entries carry the device's
 * TLB generation; mmu_invalidate_cache bumps it, which drops every entry of
 * every queue at once. Nothing else drops an entry: a driver that changes a
 * PTE and forgets to invalidate gets the old translation, as on silicon.
 * The IOMMU resolution of a host DMA address is not cached here (that is the
 * IOMMU's own IOTLB, which the DMA API keeps coherent).
 *
 * As a GAUDI (asic=gaudi, hl_emu_device.phys_dram), the address map in
 * front of the MMU (hl_emu_phys_translate()) is a GAUDI's, which has no
 * DRAM MMU:
 *   - [dram_user_base_address, + dram_user_size): user DRAM, physically;
 *   - [HL_EMU_GAUDI_SRAM_BASE, + HL_EMU_GAUDI_SRAM_SIZE): the SRAM, backed
 *     by HBM in the driver-reserved area (emu.h);
 *   - the host and CB VA ranges: the MMU walk, as above;
 *   - anything else faults: the page tables and the rest of the reserved
 *     HBM, HBM past the user range, the DRAM VA range (never mapped in
 *     this mode), as upstream's range registers keep a GAUDI's engines
 *     out of the driver's memory.
 * One context owns the device at a time in this mode (common/memory.c),
 * so the physical ranges are that owner's.
 *
 * Ordering with the driver (see common/mmu.h): an engine translates and
 * copies each chunk, or each slice of runs, inside an engine access
 * (hl_device_hw_access_begin(), common/asic.h); the unmap paths clear
 * PTEs, invalidate, then wait for the accesses in flight
 * (hl_device_hw_quiesce()), so no access that translated through an old
 * PTE is still copying when they release the page.
 */

#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/iommu.h>
#include <linux/mm.h>
#include <linux/unaligned.h>

#include "emu.h"
#include "emu_copy_sse.h"

#define HL_EMU_PAGE_MASK	((u64)HL_EMU_CHUNK_SIZE - 1)

/**
 * hl_emu_mmu_props - the geometry of the emulated MMU (emu.h), as the core
 * reads it from asic_prop.mmu.
 * @mmu: filled.
 */
void hl_emu_mmu_props(struct hl_mmu_properties *mmu)
{
	u32 hop, shift;

	BUILD_BUG_ON(HL_EMU_MMU_NUM_HOPS > HL_MMU_MAX_HOPS);
	BUILD_BUG_ON(HL_EMU_MMU_HOP_TABLE_SIZE !=
		     BIT(HL_EMU_MMU_HOP_BITS) * sizeof(u64));
	BUILD_BUG_ON(HL_EMU_MMU_HOP3_SHIFT +
		     HL_EMU_MMU_NUM_HOPS * HL_EMU_MMU_HOP_BITS !=
		     HL_EMU_MMU_VA_BITS);

	memset(mmu, 0, sizeof(*mmu));
	mmu->num_hops = HL_EMU_MMU_NUM_HOPS;
	for (hop = 0; hop < HL_EMU_MMU_NUM_HOPS; hop++) {
		shift = HL_EMU_MMU_HOP3_SHIFT +
			(HL_EMU_MMU_NUM_HOPS - 1 - hop) * HL_EMU_MMU_HOP_BITS;
		mmu->hop_shifts[hop] = shift;
		mmu->hop_masks[hop] = GENMASK_ULL(shift + HL_EMU_MMU_HOP_BITS - 1,
						  shift);
	}
	mmu->leaf_hops = HL_EMU_MMU_LEAF_HOPS;
	mmu->hop_table_size = HL_EMU_MMU_HOP_TABLE_SIZE;
	mmu->va_bits = HL_EMU_MMU_VA_BITS;
	mmu->max_asid = HL_EMU_MMU_MAX_ASID;
}

/*
 * Walk the hop tables of @asid for @va. On success *@page is the base of the
 * leaf's device page (an HBM address or a host DMA address, aligned to the
 * page), *@shift its size (21: a 2 MiB page of hop2, 12: a 4 KiB page of
 * hop3) and *@host tells which memory.
 * Return: 0, or -EFAULT for a non-present PTE at any hop, a malformed table
 * (a leaf above hop2, no leaf at hop3) or a table outside the page-table area.
 */
static int hl_emu_mmu_walk(struct hl_emu_device *emu, u32 asid, u64 va,
			   u64 *page, u32 *shift, bool *host)
{
	struct asic_fixed_properties *prop = hl_device_prop(emu->hdev);
	const struct hl_mmu_properties *mmu = &prop->mmu;
	u64 pgt_start = prop->mmu_pgt_addr;
	u64 pgt_end = min_t(u64, pgt_start + prop->mmu_pgt_size, emu->hbm_size);
	u64 table, pte_addr, pte, page_mask;
	u32 hop;

	if (asid >= mmu->max_asid || va >> mmu->va_bits)
		return -EFAULT;

	table = hl_mmu_hop0_addr(mmu, pgt_start, asid);
	for (hop = 0; hop < mmu->num_hops; hop++) {
		pte_addr = table + hl_mmu_hop_index(mmu, va, hop) * sizeof(u64);
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
		if (!(mmu->leaf_hops & BIT(hop)))
			return -EFAULT;
		page_mask = BIT_ULL(mmu->hop_shifts[hop]) - 1;
		*page = pte & HL_PTE_ADDR_MASK & ~page_mask;
		*shift = mmu->hop_shifts[hop];
		*host = pte & HL_PTE_HOST;
		return 0;
	}

	return -EFAULT;
}

/* The slot of a device page of 1 << @shift bytes */
static struct hl_emu_tlb_entry *hl_emu_tlb_slot(struct hl_emu_queue *q,
						u32 asid, u64 va, u32 shift)
{
	u64 vpn = va >> shift;

	return &q->tlb[(vpn ^ (vpn >> 9) ^ asid) & (HL_EMU_TLB_ENTRIES - 1)];
}

static bool hl_emu_tlb_match(const struct hl_emu_tlb_entry *e, u64 gen,
			     u32 asid, u64 va, u32 shift)
{
	return e->gen == gen && e->shift == shift && e->asid == asid &&
	       e->vpn == va >> shift;
}

/*
 * asic=gaudi: resolve @va by the address map (above). Return: 1 with
 * *@addr (an HBM address) and *@avail (the bytes to the end of its
 * range) for user DRAM and SRAM; 0 when the MMU translates @va (the host
 * and CB ranges); -EFAULT for any other address.
 */
static int hl_emu_phys_translate(struct hl_emu_device *emu, u64 va, u64 *addr,
				 u64 *avail)
{
	const struct asic_fixed_properties *prop = hl_device_prop(emu->hdev);
	u64 dram = prop->dram_user_base_address;

	if (va >= dram && va - dram < prop->dram_user_size) {
		*addr = va;
		*avail = prop->dram_user_size - (va - dram);
		return 1;
	}
	if (va >= prop->sram_base_address &&
	    va - prop->sram_base_address < prop->sram_size) {
		*addr = emu->sram_hbm + (va - prop->sram_base_address);
		*avail = prop->sram_size - (va - prop->sram_base_address);
		return 1;
	}
	if ((va >= prop->va_host_start && va < prop->va_host_end) ||
	    (va >= prop->va_cb_start && va < prop->va_cb_end))
		return 0;
	return -EFAULT;
}

/*
 * Translate @va: *@addr is what it translates to, *@avail the bytes from
 * @va to the end of its device page. Through @q's TLB, one entry per device
 * page (2 MiB or 4 KiB), or by a walk when @q is NULL.
 */
static int hl_emu_mmu_translate(struct hl_emu_device *emu,
				struct hl_emu_queue *q, u32 asid, u64 va,
				u64 *addr, u64 *avail, bool *host)
{
	const struct hl_mmu_properties *mmu = &hl_device_prop(emu->hdev)->mmu;
	struct hl_emu_tlb_entry *e, tmp;
	u64 page, gen;
	u32 hop, shift;
	bool is_host;
	int rc;

	if (emu->phys_dram) {
		rc = hl_emu_phys_translate(emu, va, addr, avail);
		if (rc) {
			*host = false;
			return rc < 0 ? rc : 0;
		}
	}

	/* The generation is read before the walk: see the invalidation */
	gen = atomic64_read_acquire(&emu->tlb_gen);
	e = NULL;
	if (q) {
		/* The large pages first: 2 MiB (hop2), then 4 KiB (hop3) */
		for (hop = 0; hop < mmu->num_hops && !e; hop++) {
			if (!(mmu->leaf_hops & BIT(hop)))
				continue;
			shift = mmu->hop_shifts[hop];
			e = hl_emu_tlb_slot(q, asid, va, shift);
			if (!hl_emu_tlb_match(e, gen, asid, va, shift))
				e = NULL;
		}
	}
	if (e) {
		q->tlb_hits++;
	} else {
		rc = hl_emu_mmu_walk(emu, asid, va, &page, &shift, &is_host);
		if (rc)
			return rc;
		e = q ? hl_emu_tlb_slot(q, asid, va, shift) : &tmp;
		e->gen = gen;
		e->vpn = va >> shift;
		e->shift = shift;
		e->asid = asid;
		e->addr = page;
		e->host = is_host;
		if (q)
			q->tlb_misses++;
	}

	*addr = e->addr | (va & (BIT_ULL(e->shift) - 1));
	*avail = BIT_ULL(e->shift) - (va & (BIT_ULL(e->shift) - 1));
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
	struct iommu_domain *domain = iommu_get_domain_for_dev(hl_device_dev(emu->hdev));

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

/* Whether a DMA of the device to @dma (resolved to @phys) reaches RAM */
static int hl_emu_host_check(struct hl_emu_device *emu, dma_addr_t dma,
			     phys_addr_t phys)
{
	/* Only a driver bug (a stale or wrong DMA mapping) gets here */
	if (!phys) {
		hl_err_ratelimited(emu->hdev,
				   "engine access to DMA address %pad, which is not mapped for the device\n",
				   &dma);
		return -EFAULT;
	}
	if (!pfn_valid(PHYS_PFN(phys))) {
		hl_err_ratelimited(emu->hdev,
				   "engine access to DMA address %pad, which is not RAM\n",
				   &dma);
		return -EFAULT;
	}
	return 0;
}

static int hl_emu_host_access(struct hl_emu_device *emu, dma_addr_t dma,
			      void *buf, u32 len, bool write)
{
	phys_addr_t phys = hl_emu_dma_to_phys(emu, dma);
	void *vaddr;
	int rc;

	rc = hl_emu_host_check(emu, dma, phys);
	if (rc)
		return rc;

	vaddr = kmap_local_pfn(PHYS_PFN(phys));
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
 * hl_emu_mmu_span - translate a run of device VA that one memory holds
 * contiguously, for an engine that moves data in runs.
 * @emu: the device whose MMU translates.
 * @q: the queue whose TLB serves the translations, or NULL for an engine
 *	without one (the NIC writing into this device: every device page is
 *	walked).
 * @asid: the address space.
 * @va: first device VA of the run.
 * @max: at most this many bytes, at least 1.
 * @span: receives the run.
 *
 * Each device page (2 MiB or 4 KiB) is translated once, through the TLB.
 * An HBM run goes on across device pages while their translations are
 * contiguous in HBM, up to @max and the end of HBM; a host run is one host
 * page (its DMA address resolved through the IOMMU, as every engine access
 * to the host is). The caller is inside an engine access
 * (hl_device_hw_access_begin()) until it is done with the run, as for
 * hl_emu_mmu_access().
 *
 * Return: 0 with @span->len >= 1; -EFAULT when @va does not translate, or
 * translates out of HBM or to a DMA address the platform would fault.
 */
int hl_emu_mmu_span(struct hl_emu_device *emu, struct hl_emu_queue *q,
		    u32 asid, u64 va, u64 max, struct hl_emu_span *span)
{
	u64 addr, avail, len, naddr;
	bool host, nhost;
	phys_addr_t phys;
	int rc;

	hl_device_hw_access_assert(emu->hdev);

	rc = hl_emu_mmu_translate(emu, q, asid, va, &addr, &avail, &host);
	if (rc)
		return rc;
	len = min(avail, max);

	if (host) {
		phys = hl_emu_dma_to_phys(emu, addr);
		rc = hl_emu_host_check(emu, addr, phys);
		if (rc)
			return rc;
		span->host = true;
		span->phys = phys;
		span->io = NULL;
		span->len = min_t(u64, len, PAGE_SIZE - offset_in_page(phys));
		return 0;
	}

	if (addr >= emu->hbm_size)
		return -EFAULT;
	while (len < max) {
		if (hl_emu_mmu_translate(emu, q, asid, va + len, &naddr, &avail,
					 &nhost) || nhost || naddr != addr + len)
			break;
		len = min(len + avail, max);
	}
	span->host = false;
	span->phys = 0;
	span->io = emu->hbm + addr;
	span->len = min(len, emu->hbm_size - addr);
	return 0;
}

/**
 * hl_emu_span_map - the CPU's pointer to a run (hl_emu_mmu_span()).
 * @span: the run.
 *
 * Return: for a host run, a kmap_local mapping of its page (undo with
 * hl_emu_span_unmap(), in reverse order of mapping); for an HBM run, the
 * BAR mapping as a plain pointer, which only hl_emu_span_copy() and the
 * REDUCE routine use, through memcpy_toio()/memcpy_fromio() or assembly.
 */
void *hl_emu_span_map(const struct hl_emu_span *span)
{
	if (span->host)
		return kmap_local_pfn(PHYS_PFN(span->phys)) +
		       offset_in_page(span->phys);
	return (void __force *)span->io;
}

/**
 * hl_emu_span_unmap - undo hl_emu_span_map().
 * @span: the run.
 * @p: what hl_emu_span_map() returned.
 */
void hl_emu_span_unmap(const struct hl_emu_span *span, void *p)
{
	if (span->host)
		kunmap_local(p);
}

/**
 * hl_emu_span_overlap - whether the first @len bytes of two runs share
 * memory (a copy between them must then keep LIN_DMA's chunk semantics).
 * @a: a run.
 * @b: another run, of the same device.
 * @len: bytes of each, at most their lengths.
 *
 * Return: true when they overlap.
 */
bool hl_emu_span_overlap(const struct hl_emu_span *a,
			 const struct hl_emu_span *b, u64 len)
{
	if (a->host != b->host)
		return false;
	if (a->host)
		return a->phys < b->phys + len && b->phys < a->phys + len;
	return a->io < b->io + len && b->io < a->io + len;
}

/*
 * Copy @len bytes; @dst_io/@src_io: the pointer is a BAR mapping. The bulk
 * goes through the general or the vector registers (emu_copy_sse.h says
 * which and why), the rest with the kernel's copies.
 */
static void hl_emu_copy(void *dst, bool dst_io, const void *src, bool src_io,
			u64 len)
{
	u64 done = len >= SZ_1K ? hl_emu_copy_bulk(dst, src, len) : 0;

	dst += done;
	src += done;
	len -= done;
	if (!len)
		return;
	if (dst_io)
		memcpy_toio((void __iomem __force *)dst, src, len);
	else if (src_io)
		memcpy_fromio(dst, (const void __iomem __force *)src, len);
	else
		memcpy(dst, src, len);
}

/**
 * hl_emu_span_copy - copy between two runs, straight from one memory to
 * the other.
 * @dst: the destination run (any device).
 * @src: the source run (any device); must not overlap @dst.
 * @len: bytes, at most either run's length.
 */
void hl_emu_span_copy(const struct hl_emu_span *dst,
		      const struct hl_emu_span *src, u64 len)
{
	void *d = hl_emu_span_map(dst);
	void *s = hl_emu_span_map(src);

	hl_emu_copy(d, !dst->host, s, !src->host, len);

	hl_emu_span_unmap(src, s);
	hl_emu_span_unmap(dst, d);
}

/**
 * hl_emu_span_read - copy the start of a run into a buffer.
 * @span: the run.
 * @buf: kernel memory.
 * @len: bytes, at most the run's length.
 */
void hl_emu_span_read(const struct hl_emu_span *span, void *buf, u64 len)
{
	void *p = hl_emu_span_map(span);

	hl_emu_copy(buf, false, p, !span->host, len);
	hl_emu_span_unmap(span, p);
}

/**
 * hl_emu_span_write - copy a buffer to the start of a run.
 * @span: the run.
 * @buf: kernel memory.
 * @len: bytes, at most the run's length.
 */
void hl_emu_span_write(const struct hl_emu_span *span, const void *buf,
		       u64 len)
{
	void *p = hl_emu_span_map(span);

	hl_emu_copy(p, !span->host, buf, false, len);
	hl_emu_span_unmap(span, p);
}

/**
 * hl_emu_span_fill - fill the start of a run with one byte.
 * @span: the run.
 * @c: the byte.
 * @len: bytes, at most the run's length.
 */
void hl_emu_span_fill(const struct hl_emu_span *span, u8 c, u64 len)
{
	void *p;

	if (!span->host) {
		memset_io(span->io, c, len);
		return;
	}
	p = hl_emu_span_map(span);
	memset(p, c, len);
	hl_emu_span_unmap(span, p);
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
 * Called from @q's worker only, inside an engine access
 * (hl_device_hw_access_begin()) for the whole translate-and-copy.
 *
 * Return: 0, -EFAULT when the VA does not translate or the translation
 * leads nowhere (out of HBM, a DMA address the platform would fault), or
 * -EINVAL for a bad @len.
 */
int hl_emu_mmu_access(struct hl_emu_queue *q, u32 asid, u64 va, void *buf,
		      u32 len, bool write)
{
	struct hl_emu_device *emu = q->emu;
	u64 addr, avail;
	bool host;
	int rc;

	hl_device_hw_access_assert(emu->hdev);

	if (!len || len > HL_EMU_CHUNK_SIZE - (va & HL_EMU_PAGE_MASK))
		return -EINVAL;

	rc = hl_emu_mmu_translate(emu, q, asid, va, &addr, &avail, &host);
	if (rc)
		return rc;

	if (host)
		return hl_emu_host_access(emu, addr, buf, len, write);
	return hl_emu_hbm_access(emu, addr, buf, len, write);
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
 * translated before it may still be copying; the caller's
 * hl_device_hw_quiesce() waits for it.
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

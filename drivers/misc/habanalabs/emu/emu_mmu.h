/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs emu: the device MMU (emu_mmu.c): its walk, the queues' TLBs
 * and the runs of device VA (struct hl_emu_span) that the data engines
 * move bytes through.
 */
#ifndef HL_EMU_MMU_H_
#define HL_EMU_MMU_H_

#include <linux/sizes.h>
#include <linux/types.h>

struct hl_device;
struct hl_emu_device;
struct hl_emu_queue;
struct hl_mmu_properties;

/*
 * The MMU (emu_mmu.c): four hops of 512 PTEs in 4 KiB tables, indexing
 * VA[47:39], VA[38:30], VA[29:21] and VA[20:12]; leaves map 2 MiB pages in
 * hop2 and 4 KiB pages in hop3; 64 ASIDs.
 */
#define HL_EMU_MMU_NUM_HOPS		4
#define HL_EMU_MMU_HOP_TABLE_SIZE	SZ_4K
#define HL_EMU_MMU_HOP_BITS		9
#define HL_EMU_MMU_HOP3_SHIFT		12
#define HL_EMU_MMU_VA_BITS		48
#define HL_EMU_MMU_LEAF_HOPS		(BIT(2) | BIT(3))
#define HL_EMU_MMU_MAX_ASID		64

/* Entries of each queue's TLB (direct mapped, a power of 2) */
#define HL_EMU_TLB_ENTRIES		64

/**
 * struct hl_emu_tlb_entry - one cached translation of a device page (a
 *	leaf: 2 MiB in hop2 or 4 KiB in hop3).
 * @gen: the device's TLB generation when the entry was filled; the entry is
 *	valid only while it equals hl_emu_device.tlb_gen (0: never valid).
 * @vpn: device VA >> @shift.
 * @addr: the translated page's base: an HBM device physical address, or a
 *	host DMA address when @host.
 * @asid: the address space of @vpn.
 * @shift: log2 of the page size (21 or 12).
 * @host: the leaf PTE had HL_PTE_HOST.
 */
struct hl_emu_tlb_entry {
	u64 gen;
	u64 vpn;
	u64 addr;
	u32 asid;
	u32 shift;
	bool host;
};

/**
 * struct hl_emu_span - a run of device VA held contiguously by one memory,
 *	as hl_emu_mmu_span() translated it.
 * @len: bytes.
 * @host: host memory (one page at most), else HBM.
 * @phys: host: the CPU physical address of the run's first byte.
 * @io: HBM: the BAR mapping of the run's first byte.
 */
struct hl_emu_span {
	u64 len;
	bool host;
	phys_addr_t phys;
	void __iomem *io;
};

/* The part of a run from byte @off on */
static inline struct hl_emu_span hl_emu_span_advance(const struct hl_emu_span *span,
						     u64 off)
{
	struct hl_emu_span part = *span;

	part.len -= off;
	if (part.host)
		part.phys += off;
	else
		part.io += off;
	return part;
}

/* emu_mmu.c */
void hl_emu_mmu_props(struct hl_mmu_properties *mmu);
void hl_emu_mmu_invalidate_cache(struct hl_device *hdev, u32 asid);
void hl_emu_tlb_flush(struct hl_emu_queue *q);
int hl_emu_mmu_access(struct hl_emu_queue *q, u32 asid, u64 va, void *buf,
		      u32 len, bool write);

int hl_emu_mmu_span(struct hl_emu_device *emu, struct hl_emu_queue *q,
		    u32 asid, u64 va, u64 max, struct hl_emu_span *span);
void *hl_emu_span_map(const struct hl_emu_span *span);
void hl_emu_span_unmap(const struct hl_emu_span *span, void *p);
bool hl_emu_span_overlap(const struct hl_emu_span *a,
			 const struct hl_emu_span *b, u64 len);
void hl_emu_span_copy(const struct hl_emu_span *dst,
		      const struct hl_emu_span *src, u64 len);
void hl_emu_span_read(const struct hl_emu_span *span, void *buf, u64 len);
void hl_emu_span_write(const struct hl_emu_span *span, const void *buf,
		       u64 len);
void hl_emu_span_fill(const struct hl_emu_span *span, u8 c, u64 len);

#endif /* HL_EMU_MMU_H_ */

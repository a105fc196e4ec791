// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the emulated device MMU (emu_mmu.c): the hop-table walk,
 * its faults, the TLB and its invalidation, against a fake HBM in vmalloc
 * memory and page tables built here by a reference builder that follows
 * common/mmu.h and the geometry of emu.h, written out again below (not by
 * the driver's mmu.c nor from asic_prop.mmu, so that the implementations
 * of the format check each other). The walker runs with the properties
 * hl_emu_mmu_props() fills, as in the driver. Host leaves point at real pages: the
 * test device has no IOMMU, so DMA addresses are physical addresses. The
 * engines' bulk copy (emu_copy_sse.h) is checked here too, both ways it
 * moves bytes.
 *
 * Built into habanalabs.ko when the kernel has CONFIG_KUNIT (the debug
 * kernel lane); the suite runs at module load. The random mappings come
 * from a PRNG seeded by the module parameter kunit_seed (a test-only knob:
 * with CONFIG_HABANALABS_DEBUG; 42 without).
 */

#include <kunit/test.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/mm.h>
#include <linux/prandom.h>
#include <linux/vmalloc.h>

#include "emu.h"
#include "emu_copy_sse.h"

#define T_HBM_SIZE		SZ_32M
#define T_PGT_SIZE		SZ_4M
#define T_NR_HOST_PAGES		8

/* The reference geometry: 4 hops of 512 PTEs, VA[47:39] .. VA[20:12] */
#define T_NUM_HOPS		4
#define T_HOP_SHIFT(hop)	(39 - 9 * (hop))
#define T_HOP_TABLE_SIZE	SZ_4K
#define T_MAX_ASID		64

struct hl_emu_mmu_test {
	struct hl_device *hdev;
	struct hl_emu_device emu;
	struct hl_emu_queue q;
	void *hbm;
	u64 next_table;
	struct page *host[T_NR_HOST_PAGES];
	struct rnd_state rnd;
};

static void t_wpte(struct hl_emu_mmu_test *t, u64 addr, u64 val)
{
	writeq(val, t->emu.hbm + addr);
}

static u64 t_rpte(struct hl_emu_mmu_test *t, u64 addr)
{
	return readq(t->emu.hbm + addr);
}

static u64 t_pte_addr(u64 table, u64 va, int hop)
{
	return table + ((va >> T_HOP_SHIFT(hop)) & 0x1ff) * sizeof(u64);
}

/* The hop0 table of @asid: the page-table area starts at 0 */
static u64 t_hop0(u32 asid)
{
	return (u64)asid * T_HOP_TABLE_SIZE;
}

/* Reference builder: map one page (4 KiB at hop3, 2 MiB at hop2) */
static void t_map(struct kunit *test, struct hl_emu_mmu_test *t, u32 asid,
		  u64 va, u64 pa, u64 page_size, bool host)
{
	int leaf = page_size == SZ_2M ? 2 : 3;
	u64 table = t_hop0(asid), pte;
	int hop;

	for (hop = 0; hop < leaf; hop++) {
		pte = t_rpte(t, t_pte_addr(table, va, hop));
		if (!(pte & HL_PTE_PRESENT)) {
			KUNIT_ASSERT_LE(test, t->next_table + SZ_4K,
					(u64)T_PGT_SIZE);
			pte = t->next_table | HL_PTE_PRESENT;
			t->next_table += SZ_4K;
			t_wpte(t, t_pte_addr(table, va, hop), pte);
		}
		table = pte & HL_PTE_ADDR_MASK;
	}
	t_wpte(t, t_pte_addr(table, va, leaf),
	       pa | HL_PTE_PRESENT | HL_PTE_LAST | (host ? HL_PTE_HOST : 0));
}

/* Address of the leaf PTE of @va (which must be mapped) */
static u64 t_leaf_pte_addr(struct hl_emu_mmu_test *t, u32 asid, u64 va)
{
	u64 table = t_hop0(asid), addr, pte;
	int hop;

	for (hop = 0; hop < T_NUM_HOPS; hop++) {
		addr = t_pte_addr(table, va, hop);
		pte = t_rpte(t, addr);
		if (pte & HL_PTE_LAST)
			break;
		table = pte & HL_PTE_ADDR_MASK;
	}
	return addr;
}

static int t_access(struct hl_emu_mmu_test *t, u32 asid, u64 va, void *buf,
		    u32 len, bool write)
{
	int rc;

	hl_device_hw_access_begin(t->hdev);
	rc = hl_emu_mmu_access(&t->q, asid, va, buf, len, write);
	hl_device_hw_access_end(t->hdev);
	return rc;
}

static u32 t_read32(struct kunit *test, struct hl_emu_mmu_test *t, u32 asid,
		    u64 va)
{
	u32 v = 0;

	KUNIT_EXPECT_EQ(test, t_access(t, asid, va, &v, sizeof(v), false), 0);
	return v;
}

static int hl_emu_mmu_test_init(struct kunit *test)
{
	struct asic_fixed_properties *prop;
	struct hl_emu_mmu_test *t;
	int i;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->hbm = vzalloc(T_HBM_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, t->hbm);

	t->hdev = hl_device_kunit_alloc(test, &t->emu);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->hdev));
	prop = hl_device_prop(t->hdev);
	prop->mmu_pgt_addr = 0;
	prop->mmu_pgt_size = T_PGT_SIZE;
	hl_emu_mmu_props(&prop->mmu);

	t->emu.hdev = t->hdev;
	/* Plain memory standing in for the BAR: readq/memcpy_fromio work */
	t->emu.hbm = (void __force __iomem *)t->hbm;
	t->emu.hbm_size = T_HBM_SIZE;
	atomic64_set(&t->emu.tlb_gen, 1);

	t->q.emu = &t->emu;
	t->q.buf = kunit_kzalloc(test, HL_EMU_QUEUE_BUF_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->q.buf);
	hl_emu_tlb_flush(&t->q);

	t->next_table = T_MAX_ASID * T_HOP_TABLE_SIZE;
	for (i = 0; i < T_NR_HOST_PAGES; i++) {
		t->host[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, t->host[i]);
	}
	prandom_seed_state(&t->rnd, hl_kunit_seed_get());

	test->priv = t;
	return 0;
}

static void hl_emu_mmu_test_exit(struct kunit *test)
{
	struct hl_emu_mmu_test *t = test->priv;
	int i;

	if (!t)
		return;
	for (i = 0; i < T_NR_HOST_PAGES; i++)
		if (t->host[i])
			__free_page(t->host[i]);
	vfree(t->hbm);
}

struct t_mapping {
	u64 va;
	u64 size;
	u64 pa;
	bool host;
	u32 asid;
};

/* Random 4 KiB and 2 MiB mappings, DRAM and host, read back by content */
static void hl_emu_mmu_test_random_walks(struct kunit *test)
{
	struct hl_emu_mmu_test *t = test->priv;
	/* DRAM pages after the page tables; each 4 KiB page tagged */
	const u64 dram = T_PGT_SIZE, ndram = (T_HBM_SIZE - T_PGT_SIZE) / SZ_2M;
	const u32 nmap = 64;
	struct t_mapping *map;
	u64 off, va, pa;
	u32 i, j, tag;

	map = kunit_kcalloc(test, nmap, sizeof(*map), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, map);

	/* Tag every 4 KiB page of DRAM and of the host pages */
	for (pa = dram; pa < T_HBM_SIZE; pa += SZ_4K)
		writel((u32)pa, t->emu.hbm + pa);
	for (i = 0; i < T_NR_HOST_PAGES; i++)
		*(u32 *)page_address(t->host[i]) = 0x80000000u | i;

	for (i = 0; i < nmap; i++) {
		map[i].asid = 1 + prandom_u32_state(&t->rnd) % 3;
		map[i].host = !(prandom_u32_state(&t->rnd) % 4);
		map[i].size = map[i].host || prandom_u32_state(&t->rnd) % 2 ?
			      SZ_4K : SZ_2M;
		/* Distinct VAs: slot i of a 1 GiB-spaced grid, random hops */
		map[i].va = ((u64)(prandom_u32_state(&t->rnd) % 256) << 39 |
			     (u64)i << 30 |
			     (u64)(prandom_u32_state(&t->rnd) % 512) << 21) &
			    GENMASK_ULL(47, 21);
		if (map[i].size == SZ_4K)
			map[i].va |= (u64)(prandom_u32_state(&t->rnd) % 512)
				     << 12;
		if (map[i].host)
			map[i].pa = page_to_phys(t->host[i % T_NR_HOST_PAGES]);
		else
			map[i].pa = dram + (prandom_u32_state(&t->rnd) %
					    ndram) * SZ_2M;
		t_map(test, t, map[i].asid, map[i].va, map[i].pa, map[i].size,
		      map[i].host);
	}

	/* Twice: the second round is served by the TLB */
	for (j = 0; j < 2; j++) {
		for (i = 0; i < nmap; i++) {
			off = map[i].size == SZ_2M ?
			      (prandom_u32_state(&t->rnd) % 512) * SZ_4K : 0;
			va = map[i].va + off;
			tag = t_read32(test, t, map[i].asid, va);
			if (map[i].host)
				KUNIT_EXPECT_EQ(test, tag, 0x80000000u |
						(i % T_NR_HOST_PAGES));
			else
				KUNIT_EXPECT_EQ(test, tag,
						(u32)(map[i].pa + off));
			/* The same VA in an ASID that does not map it */
			KUNIT_EXPECT_EQ(test,
					t_access(t, 4, va, &tag, 4, false),
					-EFAULT);
		}
	}
	KUNIT_EXPECT_GT(test, t->q.tlb_hits, 0);

	/* A write lands where the read came from */
	tag = 0x600dda7a;
	KUNIT_EXPECT_EQ(test, t_access(t, map[0].asid, map[0].va + 8, &tag,
				       4, true), 0);
	KUNIT_EXPECT_EQ(test, t_read32(test, t, map[0].asid, map[0].va + 8),
			0x600dda7a);
}

static void hl_emu_mmu_test_faults(struct kunit *test)
{
	struct hl_emu_mmu_test *t = test->priv;
	const u64 va = 0x123456789000ull;
	u64 pte_addr;
	u32 v;

#define T_FAULT(asid, addr) \
	KUNIT_EXPECT_EQ(test, t_access(t, asid, addr, &v, 4, false), -EFAULT)

	/* Nothing mapped */
	T_FAULT(1, va);
	/* Beyond 48 bits, and an ASID without a hop0 table */
	T_FAULT(1, BIT_ULL(48) | va);
	T_FAULT(T_MAX_ASID, va);

	t_map(test, t, 1, va, T_PGT_SIZE, SZ_4K, false);
	KUNIT_EXPECT_EQ(test, t_access(t, 1, va, &v, 4, false), 0);
	/* The next page of VA shares hop tables but has no leaf */
	T_FAULT(1, va + SZ_4K);
	/* A chunk that crosses a 4 KiB page is a caller bug */
	KUNIT_EXPECT_EQ(test, t_access(t, 1, va + SZ_4K - 2, &v, 4, false),
			-EINVAL);

	/* A leaf outside HBM */
	pte_addr = t_leaf_pte_addr(t, 1, va);
	t_wpte(t, pte_addr, T_HBM_SIZE | HL_PTE_PRESENT | HL_PTE_LAST);
	hl_emu_mmu_invalidate_cache(t->hdev, 1);
	T_FAULT(1, va);

	/* A 4 KiB-level table linked without HL_PTE_LAST at hop3 */
	t_wpte(t, pte_addr, T_PGT_SIZE | HL_PTE_PRESENT);
	hl_emu_mmu_invalidate_cache(t->hdev, 1);
	T_FAULT(1, va);

	/* A leaf at hop1 (1 GiB pages do not exist) */
	pte_addr = t_pte_addr(t_hop0(2), va, 0);
	t_wpte(t, pte_addr, t->next_table | HL_PTE_PRESENT);
	t_wpte(t, t_pte_addr(t->next_table, va, 1),
	       T_PGT_SIZE | HL_PTE_PRESENT | HL_PTE_LAST);
	T_FAULT(2, va);

	/* A hop table outside the page-table area */
	t_wpte(t, t_pte_addr(t->next_table, va, 1),
	       T_PGT_SIZE | HL_PTE_PRESENT);
	T_FAULT(2, va);
	t_wpte(t, t_pte_addr(t->next_table, va, 1),
	       (T_HBM_SIZE * 2) | HL_PTE_PRESENT);
	T_FAULT(2, va);
#undef T_FAULT
}

/* The geometry the core reads (asic_prop.mmu) is the one the walker walks */
static void hl_emu_mmu_test_props(struct kunit *test)
{
	struct hl_emu_mmu_test *t = test->priv;
	const struct hl_mmu_properties *mmu = &hl_device_prop(t->hdev)->mmu;
	int hop;

	KUNIT_ASSERT_EQ(test, mmu->num_hops, T_NUM_HOPS);
	for (hop = 0; hop < T_NUM_HOPS; hop++) {
		KUNIT_EXPECT_EQ(test, mmu->hop_shifts[hop], T_HOP_SHIFT(hop));
		KUNIT_EXPECT_EQ(test, mmu->hop_masks[hop],
				GENMASK_ULL(T_HOP_SHIFT(hop) + 8,
					    T_HOP_SHIFT(hop)));
	}
	KUNIT_EXPECT_EQ(test, mmu->leaf_hops, BIT(2) | BIT(3));
	KUNIT_EXPECT_EQ(test, mmu->hop_table_size, T_HOP_TABLE_SIZE);
	KUNIT_EXPECT_EQ(test, mmu->va_bits, 48);
	KUNIT_EXPECT_EQ(test, mmu->max_asid, T_MAX_ASID);
}

/* The TLB keeps a translation until it is invalidated, as silicon does */
static void hl_emu_mmu_test_tlb_stale_until_invalidate(struct kunit *test)
{
	struct hl_emu_mmu_test *t = test->priv;
	const u64 va = 0x100000200000ull, a = T_PGT_SIZE, b = T_PGT_SIZE + SZ_2M;
	u64 pte_addr;

	writel(0xaaaaaaaa, t->emu.hbm + a);
	writel(0xbbbbbbbb, t->emu.hbm + b);
	t_map(test, t, 5, va, a, SZ_2M, false);
	KUNIT_EXPECT_EQ(test, t_read32(test, t, 5, va), 0xaaaaaaaa);

	/* Remapped without invalidation: the old page is still used */
	pte_addr = t_leaf_pte_addr(t, 5, va);
	t_wpte(t, pte_addr, b | HL_PTE_PRESENT | HL_PTE_LAST);
	KUNIT_EXPECT_EQ(test, t_read32(test, t, 5, va), 0xaaaaaaaa);

	hl_emu_mmu_invalidate_cache(t->hdev, 5);
	KUNIT_EXPECT_EQ(test, t_read32(test, t, 5, va), 0xbbbbbbbb);

	/* Unmapped without invalidation: still reachable; then a fault */
	t_wpte(t, pte_addr, 0);
	KUNIT_EXPECT_EQ(test, t_read32(test, t, 5, va), 0xbbbbbbbb);
	hl_emu_mmu_invalidate_cache(t->hdev, 5);
	KUNIT_EXPECT_EQ(test, t_access(t, 5, va, &pte_addr, 4, false),
			-EFAULT);
}

#ifdef CONFIG_X86_64
/*
 * The engines' bulk copy (emu_copy_sse.h) takes general registers where the
 * two ranges' pages cannot share a slot of the emulator's TLB and vector
 * registers where they may: both ways copy exactly the leading multiple of
 * 256 bytes, in either order of the ranges, and touch nothing past it.
 */
static void hl_emu_mmu_test_copy_paths(struct kunit *test)
{
	struct hl_emu_mmu_test *t = test->priv;
	const u64 far = (u64)HL_EMU_COPY_ALIAS_PAGES * PAGE_SIZE;
	const struct {
		u64 src, dst;
		bool alias;
	} cases[] = {
		{ 0, far, true },		/* a multiple of the period */
		{ far, 0, true },
		{ 0, far + PAGE_SIZE, true },	/* within one page of it */
		{ PAGE_SIZE, far, true },
		{ 0, 4 * PAGE_SIZE, false },
		{ 4 * PAGE_SIZE, 0, false },
		{ 0, far + 2 * PAGE_SIZE + 64, false },
		{ 3 * PAGE_SIZE + 8, far - 5 * PAGE_SIZE + 24, false },
	};
	const u64 lens[] = { 256, PAGE_SIZE + 512 + 13, 3 * PAGE_SIZE + 255 };
	const u64 guard = 256;
	u8 *buf = t->hbm, *want;
	u64 i, j, k, done;

	/* The fake HBM holds both ranges; this case needs no MMU */
	BUILD_BUG_ON(HL_EMU_COPY_ALIAS_PAGES * PAGE_SIZE + 8 * PAGE_SIZE >
		     T_HBM_SIZE);
	want = kunit_kmalloc(test, 3 * PAGE_SIZE + 255, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, want);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u8 *src = buf + cases[i].src, *dst = buf + cases[i].dst;

		KUNIT_EXPECT_EQ_MSG(test, hl_emu_copy_may_alias(dst, src),
				    cases[i].alias, "case %llu", i);
		for (j = 0; j < ARRAY_SIZE(lens); j++) {
			prandom_bytes_state(&t->rnd, src, lens[j]);
			memcpy(want, src, lens[j]);
			memset(dst, 0x5a, lens[j] + guard);

			done = hl_emu_copy_bulk(dst, src, lens[j]);
			KUNIT_EXPECT_EQ(test, done, lens[j] & ~255ull);
			KUNIT_EXPECT_MEMEQ_MSG(test, dst, want, done,
					       "case %llu, %llu bytes", i,
					       lens[j]);
			for (k = done; k < lens[j] + guard; k++)
				if (dst[k] != 0x5a)
					break;
			KUNIT_EXPECT_EQ_MSG(test, k, lens[j] + guard,
					    "case %llu, %llu bytes: byte %llu written",
					    i, lens[j], k);
		}
	}
}
#endif

static struct kunit_case hl_emu_mmu_test_cases[] = {
	KUNIT_CASE(hl_emu_mmu_test_props),
	KUNIT_CASE(hl_emu_mmu_test_random_walks),
	KUNIT_CASE(hl_emu_mmu_test_faults),
	KUNIT_CASE(hl_emu_mmu_test_tlb_stale_until_invalidate),
#ifdef CONFIG_X86_64
	KUNIT_CASE(hl_emu_mmu_test_copy_paths),
#endif
	{}
};

static struct kunit_suite hl_emu_mmu_test_suite = {
	.name = "habanalabs_emu_mmu",
	.init = hl_emu_mmu_test_init,
	.exit = hl_emu_mmu_test_exit,
	.test_cases = hl_emu_mmu_test_cases,
};

kunit_test_suite(hl_emu_mmu_test_suite);

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs emu: the engines' bulk copies (x86-64), through the general
 * or the vector registers.
 *
 * An engine run copies straight from one mapping to the other (HBM BAR,
 * kmapped host pages). The kernel's memcpy_toio()/memcpy_fromio() are
 * "rep movsl", 4 bytes per step, each step alternating between the source
 * and the destination page. Where the emulator's own TLB is direct mapped
 * (QEMU TCG) and the two addresses share a slot, which two buffers a power
 * of 2 apart in the BAR do, every step misses it: the copy slows down
 * tenfold. Moving 256 bytes through the 16 XMM registers per step (512
 * through the YMM registers where the CPU has AVX) costs two misses per
 * step instead, and is faster on hardware too.
 *
 * Where the two addresses do not share a slot, plain 64-bit moves are
 * faster still under TCG, which keeps the general registers in host
 * registers and the XMM/YMM registers in memory, and they need no FPU
 * section: 4-rank 64 MiB broadcasts, send/recvs and all-to-alls in a guest
 * took 80-95 ms in steps of 64 bytes through 8 general registers against
 * 144-152 ms through the YMM registers, the best of 2 rounds in one boot (a
 * user-space copy between two BARs: 3.3 against 2.3 GB/s). But a step of
 * 64 bytes between two pages that do share a slot pays two misses per 64
 * bytes (1.3 GB/s against 2.0), so the vector registers stay where the
 * pages may. Which pages do depends on the size of QEMU's TLB, which it
 * sets at run time (256 entries at first, 64 to 4M as it is used): a copy
 * takes the general registers where its page numbers are 2 or more apart
 * modulo HL_EMU_COPY_ALIAS_PAGES, which is exact for a TLB of that many
 * entries or more, the size that streaming copies grow it to. Buffers at
 * one offset of two devices' BARs (ioremap()ed on large alignments: an
 * all-gather's copies) keep the vector registers.
 * The TLB can be smaller for a while after the guest was idle: LIN_DMAs
 * between buffers 2-8 MiB apart took 0.5-0.56 times the vector registers'
 * time in 13 runs of 14, and 1.8 times in one (8 MiB apart).
 * Only TCG was measured; under KVM or on hardware, 8-byte reads of a
 * write-combining BAR may cost more than the vector registers' 16 or 32.
 *
 * Memory is touched by assembly only (the operands may be the BAR, which
 * the compiler's and KASAN's plain accesses must not touch), and no XMM
 * register is declared clobbered: the kernel is built with -mno-sse and the
 * vector path owns the FPU (kernel_fpu_begin()).
 */
#ifndef HL_EMU_COPY_SSE_H_
#define HL_EMU_COPY_SSE_H_

#include <linux/minmax.h>
#include <linux/sizes.h>
#include <linux/types.h>

#ifdef CONFIG_X86_64
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>

/* Bytes copied per kernel_fpu_begin()/kernel_fpu_end() section */
#define HL_EMU_COPY_FPU_SLICE	SZ_64K

static inline void hl_emu_copy_sse_blocks(void *dst, const void *src,
					  unsigned long nblocks)
{
	for (; nblocks; nblocks--, dst += 256, src += 256)
		asm volatile("movups    (%[s]), %%xmm0\n\t"
			     "movups  16(%[s]), %%xmm1\n\t"
			     "movups  32(%[s]), %%xmm2\n\t"
			     "movups  48(%[s]), %%xmm3\n\t"
			     "movups  64(%[s]), %%xmm4\n\t"
			     "movups  80(%[s]), %%xmm5\n\t"
			     "movups  96(%[s]), %%xmm6\n\t"
			     "movups 112(%[s]), %%xmm7\n\t"
			     "movups 128(%[s]), %%xmm8\n\t"
			     "movups 144(%[s]), %%xmm9\n\t"
			     "movups 160(%[s]), %%xmm10\n\t"
			     "movups 176(%[s]), %%xmm11\n\t"
			     "movups 192(%[s]), %%xmm12\n\t"
			     "movups 208(%[s]), %%xmm13\n\t"
			     "movups 224(%[s]), %%xmm14\n\t"
			     "movups 240(%[s]), %%xmm15\n\t"
			     "movups %%xmm0,    (%[d])\n\t"
			     "movups %%xmm1,  16(%[d])\n\t"
			     "movups %%xmm2,  32(%[d])\n\t"
			     "movups %%xmm3,  48(%[d])\n\t"
			     "movups %%xmm4,  64(%[d])\n\t"
			     "movups %%xmm5,  80(%[d])\n\t"
			     "movups %%xmm6,  96(%[d])\n\t"
			     "movups %%xmm7, 112(%[d])\n\t"
			     "movups %%xmm8, 128(%[d])\n\t"
			     "movups %%xmm9, 144(%[d])\n\t"
			     "movups %%xmm10, 160(%[d])\n\t"
			     "movups %%xmm11, 176(%[d])\n\t"
			     "movups %%xmm12, 192(%[d])\n\t"
			     "movups %%xmm13, 208(%[d])\n\t"
			     "movups %%xmm14, 224(%[d])\n\t"
			     "movups %%xmm15, 240(%[d])"
			     : : [d] "r" (dst), [s] "r" (src) : "memory");
}

/* The same with AVX: 512 bytes per step through the 16 YMM registers */
static inline void hl_emu_copy_avx_blocks(void *dst, const void *src,
					  unsigned long nblocks)
{
	for (; nblocks; nblocks--, dst += 512, src += 512)
		asm volatile("vmovdqu    (%[s]), %%ymm0\n\t"
			     "vmovdqu  32(%[s]), %%ymm1\n\t"
			     "vmovdqu  64(%[s]), %%ymm2\n\t"
			     "vmovdqu  96(%[s]), %%ymm3\n\t"
			     "vmovdqu 128(%[s]), %%ymm4\n\t"
			     "vmovdqu 160(%[s]), %%ymm5\n\t"
			     "vmovdqu 192(%[s]), %%ymm6\n\t"
			     "vmovdqu 224(%[s]), %%ymm7\n\t"
			     "vmovdqu 256(%[s]), %%ymm8\n\t"
			     "vmovdqu 288(%[s]), %%ymm9\n\t"
			     "vmovdqu 320(%[s]), %%ymm10\n\t"
			     "vmovdqu 352(%[s]), %%ymm11\n\t"
			     "vmovdqu 384(%[s]), %%ymm12\n\t"
			     "vmovdqu 416(%[s]), %%ymm13\n\t"
			     "vmovdqu 448(%[s]), %%ymm14\n\t"
			     "vmovdqu 480(%[s]), %%ymm15\n\t"
			     "vmovdqu %%ymm0,    (%[d])\n\t"
			     "vmovdqu %%ymm1,  32(%[d])\n\t"
			     "vmovdqu %%ymm2,  64(%[d])\n\t"
			     "vmovdqu %%ymm3,  96(%[d])\n\t"
			     "vmovdqu %%ymm4, 128(%[d])\n\t"
			     "vmovdqu %%ymm5, 160(%[d])\n\t"
			     "vmovdqu %%ymm6, 192(%[d])\n\t"
			     "vmovdqu %%ymm7, 224(%[d])\n\t"
			     "vmovdqu %%ymm8, 256(%[d])\n\t"
			     "vmovdqu %%ymm9, 288(%[d])\n\t"
			     "vmovdqu %%ymm10, 320(%[d])\n\t"
			     "vmovdqu %%ymm11, 352(%[d])\n\t"
			     "vmovdqu %%ymm12, 384(%[d])\n\t"
			     "vmovdqu %%ymm13, 416(%[d])\n\t"
			     "vmovdqu %%ymm14, 448(%[d])\n\t"
			     "vmovdqu %%ymm15, 480(%[d])"
			     : : [d] "r" (dst), [s] "r" (src) : "memory");
	asm volatile("vzeroupper" ::: "memory");
}

/* Page numbers this far apart (16 MiB), or a multiple: a slot of such a TLB */
#define HL_EMU_COPY_ALIAS_PAGES	4096

/* 64 bytes per step through 8 general registers */
static inline void hl_emu_copy_gpr_blocks(void *dst, const void *src,
					  unsigned long nblocks)
{
	u64 a, b, c, d, e, f, g, h;

	for (; nblocks; nblocks--, dst += 64, src += 64)
		asm volatile("movq    (%[s]), %[a]\n\t"
			     "movq   8(%[s]), %[b]\n\t"
			     "movq  16(%[s]), %[c]\n\t"
			     "movq  24(%[s]), %[d]\n\t"
			     "movq  32(%[s]), %[e]\n\t"
			     "movq  40(%[s]), %[f]\n\t"
			     "movq  48(%[s]), %[g]\n\t"
			     "movq  56(%[s]), %[h]\n\t"
			     "movq  %[a],   (%[dp])\n\t"
			     "movq  %[b],  8(%[dp])\n\t"
			     "movq  %[c], 16(%[dp])\n\t"
			     "movq  %[d], 24(%[dp])\n\t"
			     "movq  %[e], 32(%[dp])\n\t"
			     "movq  %[f], 40(%[dp])\n\t"
			     "movq  %[g], 48(%[dp])\n\t"
			     "movq  %[h], 56(%[dp])"
			     : [a] "=&r" (a), [b] "=&r" (b), [c] "=&r" (c),
			       [d] "=&r" (d), [e] "=&r" (e), [f] "=&r" (f),
			       [g] "=&r" (g), [h] "=&r" (h)
			     : [dp] "r" (dst), [s] "r" (src)
			     : "memory");
}

/*
 * Whether the pages of a step may share a slot of the emulator's
 * direct-mapped TLB: the source's and the destination's page numbers, which
 * move together, within one of each other modulo HL_EMU_COPY_ALIAS_PAGES
 */
static inline bool hl_emu_copy_may_alias(const void *dst, const void *src)
{
	unsigned long gap = ((unsigned long)dst >> PAGE_SHIFT) -
			    ((unsigned long)src >> PAGE_SHIFT) + 1;

	return (gap & (HL_EMU_COPY_ALIAS_PAGES - 1)) <= 2;
}

/**
 * hl_emu_copy_bulk - copy the leading multiple of 256 bytes of @len.
 * @dst: destination (a BAR mapping or kernel memory); must not overlap @src.
 * @src: source (a BAR mapping or kernel memory).
 * @len: bytes.
 *
 * Return: the bytes copied; the caller copies the rest.
 */
static inline u64 hl_emu_copy_bulk(void *dst, const void *src, u64 len)
{
	u64 off, n, todo = len & ~255ull;

	if (!hl_emu_copy_may_alias(dst, src)) {
		hl_emu_copy_gpr_blocks(dst, src, todo / 64);
		return todo;
	}
	for (off = 0; off < todo; off += n) {
		n = min_t(u64, todo - off, HL_EMU_COPY_FPU_SLICE);
		kernel_fpu_begin();
		if (boot_cpu_has(X86_FEATURE_AVX) && !(n & 511))
			hl_emu_copy_avx_blocks(dst + off, src + off, n / 512);
		else
			hl_emu_copy_sse_blocks(dst + off, src + off, n / 256);
		kernel_fpu_end();
	}
	return todo;
}
#else
static inline u64 hl_emu_copy_bulk(void *dst, const void *src, u64 len)
{
	return 0;
}
#endif /* CONFIG_X86_64 */

#endif /* HL_EMU_COPY_SSE_H_ */

// SPDX-License-Identifier: MIT
/*
 * gaudi_pkt: the emulated device under asic=gaudi executes GAUDI's packet
 * format. The packets are built here dword by dword from GAUDI's layout
 * (ctl second, opcode in bits 28:24, barriers 29-31), checked against a
 * table of golden dwords written out by hand from upstream's
 * gaudi_packets.h, and each packet type's effect is checked with data:
 * LIN_DMA copies and fills, MSG_LONG writes a value and the time,
 * MSG_SHORT moves SOBs through the message bases, FENCE stalls until a
 * monitor fires, CP_DMA nests, WREG_32 reaches the modelled registers and
 * is refused elsewhere, STOP ends the CB, LOAD_AND_EXE's predicates gate
 * packets, and this project's own format is refused. Every test skips under asic=emu (the default).
 */
#include "hltests.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#define PAGE		4096ull
#define MB		(1024ull * 1024)
#define SEED		0x6a0d1a5eedull

/*
 * SOBs and monitors of these tests: above the driver's (checked; under
 * asic=gaudi the driver's are W_S SOBs below 272, signal SOBs and the
 * collective masters' groups, and W_S monitors below 120)
 */
#define T_SOB		512
#define T_MON		128

/*
 * Internal queues (GAUDI's DMA 0-1 are external, fed kernel CBs): QA and
 * QB in two queue managers (DMA2_QM, DMA3_QM), their registers at GAUDI's
 * addresses (hltests_gaudi_qm())
 */
#define QA		GAUDI_QUEUE_ID_DMA_2_0
#define QB		GAUDI_QUEUE_ID_DMA_3_0

/* ------------------------------------------------------------------------
 * GAUDI's packets, dword by dword
 */

#define G_EB		(1u << 29)
#define G_RB		(1u << 30)
#define G_MB		(1u << 31)

#define G_WREG_32	0x01
#define G_WREG_BULK	0x02
#define G_MSG_LONG	0x03
#define G_MSG_SHORT	0x04
#define G_CP_DMA	0x05
#define G_REPEAT	0x06
#define G_MSG_PROT	0x07
#define G_FENCE		0x08
#define G_LIN_DMA	0x09
#define G_NOP		0x0a
#define G_STOP		0x0b
#define G_ARB_POINT	0x0c
#define G_WAIT		0x0d
#define G_LOAD_AND_EXE	0x0f

/* The message bases' offsets in the E_N block (MSG_SHORT base 0 and 1) */
#define MON_ADDRL(m)	(0x0000u + 4u * (m))
#define MON_ADDRH(m)	(0x0800u + 4u * (m))
#define MON_DATA(m)	(0x1000u + 4u * (m))
#define MON_ARM(m)	(0x1800u + 4u * (m))

static uint32_t g_ctl(uint32_t opcode, uint32_t bits)
{
	return opcode << 24 | bits;
}

static uint32_t put32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
	return 4;
}

static uint32_t put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
	return 8;
}

static uint32_t g_hdr(uint8_t *p, uint32_t w0, uint32_t ctl)
{
	put32(p, w0);
	put32(p + 4, ctl);
	return 8;
}

static uint32_t g_nop(uint8_t *p)
{
	return g_hdr(p, 0, g_ctl(G_NOP, G_RB | G_MB));
}

static uint32_t g_stop(uint8_t *p)
{
	return g_hdr(p, 0, g_ctl(G_STOP, 0));
}

static uint32_t g_arb_point(uint8_t *p, uint32_t prio, bool rls)
{
	return g_hdr(p, (prio & 0xff) | (rls ? 1u << 31 : 0),
		     g_ctl(G_ARB_POINT, G_RB));
}

static uint32_t g_wreg32(uint8_t *p, uint16_t off, uint32_t value)
{
	return g_hdr(p, value, g_ctl(G_WREG_32, (uint32_t)off << 8 | G_RB));
}

static uint32_t g_wreg_bulk(uint8_t *p, uint16_t off, uint16_t n64,
			    const uint64_t *values)
{
	uint32_t n = g_hdr(p, n64, g_ctl(G_WREG_BULK,
					 (uint32_t)off << 8 | G_RB));
	uint16_t i;

	for (i = 0; i < n64; i++)
		n += put64(p + n, values[i]);
	return n;
}

static uint32_t g_msg(uint8_t *p, uint32_t opcode, uint64_t addr,
		      uint32_t value, uint32_t op)
{
	g_hdr(p, value, g_ctl(opcode, op << 20 | G_RB | G_MB));
	put64(p + 8, addr);
	return 16;
}

static uint32_t g_msg_long(uint8_t *p, uint64_t addr, uint32_t value)
{
	return g_msg(p, G_MSG_LONG, addr, value, 0);
}

static uint32_t g_msg_short(uint8_t *p, uint32_t base, uint16_t off,
			    uint32_t value)
{
	return g_hdr(p, value, g_ctl(G_MSG_SHORT, base << 22 | off |
				     G_RB | G_MB));
}

/* SOB update through base 1 (E_N SOBs): set, or add (mode bit 31) */
static uint32_t g_sob(uint8_t *p, uint32_t sob, uint32_t value, bool add)
{
	return g_msg_short(p, 1, (uint16_t)(sob * 4),
			   (value & 0x7fff) | (add ? 1u << 31 : 0));
}

/* Monitor arm value: group, mask of SOBs ignored, mode (1: equal), value */
static uint32_t mon_arm(uint32_t sob, bool eq, uint32_t value)
{
	return sob / 8 | (0xffu & ~(1u << (sob % 8))) << 8 |
	       (eq ? 1u << 16 : 0) | (value & 0x7fff) << 17;
}

/* A monitor of @sob (>= @value) whose payload @data goes to @addr */
static uint32_t g_monitor(uint8_t *p, uint32_t mon, uint32_t sob,
			  uint32_t value, uint64_t addr, uint32_t data)
{
	uint32_t n = 0;

	n += g_msg_short(p + n, 0, MON_ADDRL(mon), (uint32_t)addr);
	n += g_msg_short(p + n, 0, MON_ADDRH(mon), (uint32_t)(addr >> 32));
	n += g_msg_short(p + n, 0, MON_DATA(mon), data);
	n += g_msg_short(p + n, 0, MON_ARM(mon), mon_arm(sob, false, value));
	return n;
}

static uint32_t g_fence(uint8_t *p, uint32_t id, uint32_t target,
			uint32_t dec)
{
	return g_hdr(p, (dec & 0xf) | (target & 0xff) << 16 | id << 30,
		     g_ctl(G_FENCE, G_RB | G_MB));
}

static uint32_t g_wait(uint8_t *p, uint32_t id, uint32_t inc,
		       uint32_t cycles)
{
	return g_hdr(p, (cycles & 0xffffff) | (inc & 0xf) << 24 | id << 28,
		     g_ctl(G_WAIT, 0));
}

static uint32_t g_lin_dma(uint8_t *p, uint64_t src, uint64_t dst,
			  uint32_t size, bool memset_)
{
	g_hdr(p, size, g_ctl(G_LIN_DMA, 1u << 3 | (memset_ ? 1u << 4 : 0) |
			     G_RB | G_MB));
	put64(p + 8, src);
	put64(p + 16, dst);
	return 24;
}

static uint32_t g_cp_dma(uint8_t *p, uint64_t src, uint32_t size)
{
	g_hdr(p, size, g_ctl(G_CP_DMA, G_RB | G_MB));
	put64(p + 8, src);
	return 16;
}

static uint32_t g_load_and_exe(uint8_t *p, uint64_t src)
{
	g_hdr(p, 1u << 8, g_ctl(G_LOAD_AND_EXE, G_RB));
	put64(p + 8, src);
	return 16;
}

/* REDUCE, the extension at 0x14: count first, ctl second */
static uint32_t g_reduce(uint8_t *p, uint64_t src, uint64_t dst,
			 uint32_t count, uint32_t dtype, uint32_t op)
{
	g_hdr(p, count, g_ctl(HL_GAUDI_PKT_REDUCE, G_RB | G_MB));
	put64(p + 8, src);
	put64(p + 16, dst);
	put32(p + 24, dtype);
	put32(p + 28, op);
	return 32;
}

/* ------------------------------------------------------------------------
 * Helpers
 */

#define GAUDI_ONLY() do {						\
		if (!hltests_identity_gaudi()) {				\
			print_message("asic=emu: GAUDI's format is not spoken\n"); \
			skip();						\
		}							\
	} while (0)

/* The offset of a register from the block of the engine of @queue */
static uint16_t block_off(uint32_t queue, uint64_t reg)
{
	uint64_t block = hltests_gaudi_engine_block(queue);

	assert_true(reg >= block && reg < block + 0x10000);
	return (uint16_t)(reg - block);
}

/* Submit and wait with a timeout of @timeout_s; returns the CS status */
static uint32_t run_timeout(int fd, uint32_t queue, uint64_t va, uint32_t n,
			    uint32_t timeout_s)
{
	uint64_t seq = hltests_submit_cb(fd, queue, va, n, timeout_s);
	uint32_t status = 0xdead;

	hlthunk_wait_for_cs(fd, seq, 60ull * 1000 * 1000, &status);
	return status;
}

static uint32_t rd32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ------------------------------------------------------------------------
 * Golden layouts
 */

struct golden {
	const char *what;
	uint32_t n;
	uint32_t dw[8];
};

/*
 * Each packet as upstream's gaudi_packets.h lays it out, written out by
 * hand: the bitfields' positions, not this file's builders
 */
static void test_golden_layouts(void **state)
{
	static const struct golden g[] = {
		{ "NOP", 2, { 0x00000000, 0xca000000 } },
		{ "STOP", 2, { 0x00000000, 0x0b000000 } },
		{ "ARB_POINT prio 1", 2, { 0x00000001, 0x4c000000 } },
		{ "WREG_32 0x8308", 2, { 0x12345678, 0x41830800 } },
		{ "WREG_BULK 0x8228 x2", 6, { 0x00000002, 0x42822800,
			0x00000001, 0x00000002, 0x00000003, 0x00000004 } },
		{ "MSG_LONG", 4, { 0xcafef00d, 0xc3000000, 0xfc4f2010,
			0x0000007f } },
		{ "MSG_LONG timestamp", 4, { 0x00000000, 0xc3100000,
			0x00002000, 0x00001000 } },
		{ "MSG_PROT", 4, { 0x00000001, 0xc7000000, 0x00002000,
			0x00001000 } },
		{ "MSG_SHORT SOB add 3", 2, { 0x80000003, 0xc4400010 } },
		{ "MSG_SHORT arm SOB 17 == 5", 2, { 0x000bfd02, 0xc4001820 } },
		{ "CP_DMA", 4, { 0x00000040, 0xc5000000, 0x00001000,
			0x00001000 } },
		{ "FENCE id 2 target 1 dec 1", 2, { 0x80010001, 0xc8000000 } },
		{ "WAIT id 1 inc 2 10 cycles", 2, { 0x1200000a, 0x0d000000 } },
		{ "LIN_DMA", 6, { 0x00001000, 0xc9000008, 0x00002000,
			0x00001000, 0x00000000, 0x00002000 } },
		{ "LIN_DMA mem_set", 6, { 0x00000100, 0xc9000018, 0x5a5a5a5a,
			0x5a5a5a5a, 0x00000000, 0x00002000 } },
		{ "LOAD_AND_EXE load", 4, { 0x00000100, 0x4f000000, 0x00002000,
			0x00001000 } },
		{ "REDUCE (extension 0x14)", 8, { 0x00000004, 0xd4000000,
			0x00002000, 0x00001000, 0x00000000, 0x00002000,
			HL_REDUCE_DTYPE_I32, HL_REDUCE_OP_SUM } },
	};
	static const uint64_t bulk[2] = { 0x0000000200000001ull,
					  0x0000000400000003ull };
	uint8_t b[20][32];
	uint32_t n[20], i, j, k = 0;

	(void)state;
	n[k] = g_nop(b[k]), k++;
	n[k] = g_stop(b[k]), k++;
	n[k] = g_arb_point(b[k], 1, false), k++;
	n[k] = g_wreg32(b[k], 0x8308, 0x12345678), k++;
	n[k] = g_wreg_bulk(b[k], 0x8228, 2, bulk), k++;
	n[k] = g_msg_long(b[k], 0x7ffc4f2010ull, 0xcafef00d), k++;
	n[k] = g_msg(b[k], G_MSG_LONG, 0x100000002000ull, 0, 1), k++;
	n[k] = g_msg(b[k], G_MSG_PROT, 0x100000002000ull, 1, 0), k++;
	n[k] = g_sob(b[k], 4, 3, true), k++;
	n[k] = g_msg_short(b[k], 0, MON_ARM(8), mon_arm(17, true, 5)), k++;
	n[k] = g_cp_dma(b[k], 0x100000001000ull, 0x40), k++;
	n[k] = g_fence(b[k], 2, 1, 1), k++;
	n[k] = g_wait(b[k], 1, 2, 10), k++;
	n[k] = g_lin_dma(b[k], 0x100000002000ull, 0x200000000000ull, 0x1000,
			 false), k++;
	n[k] = g_lin_dma(b[k], 0x5a5a5a5a5a5a5a5aull, 0x200000000000ull,
			 0x100, true), k++;
	n[k] = g_load_and_exe(b[k], 0x100000002000ull), k++;
	assert_int_equal(k + 1, sizeof(g) / sizeof(g[0]));
	n[k] = g_reduce(b[k], 0x100000002000ull, 0x200000000000ull, 4,
			HL_REDUCE_DTYPE_I32, HL_REDUCE_OP_SUM), k++;

	for (i = 0; i < k; i++) {
		if (n[i] != 4 * g[i].n) {
			print_error("%s: %u bytes, expected %u\n", g[i].what,
				    n[i], 4 * g[i].n);
			fail();
		}
		for (j = 0; j < g[i].n; j++) {
			if (rd32(b[i] + 4 * j) != g[i].dw[j]) {
				print_error("%s: dword %u is 0x%08x, expected 0x%08x\n",
					    g[i].what, j, rd32(b[i] + 4 * j),
					    g[i].dw[j]);
				fail();
			}
		}
	}
	/* The uAPI's names agree with the layout */
	assert_int_equal(HL_GAUDI_PKT_CTL(HL_GAUDI_PKT_NOP) |
			 HL_GAUDI_PKT_CTL_RB | HL_GAUDI_PKT_CTL_MB, 0xca000000);
	assert_int_equal(HL_GAUDI_PKT_CTL_OPCODE_MASK, 0x1f000000);
	assert_int_equal(sizeof(struct hl_gaudi_pkt_reduce), 32);
	assert_int_equal(sizeof(struct hl_gaudi_pkt_nic), 32);
	assert_int_equal(sizeof(struct hl_gaudi_pkt_nic_write), 56);
	assert_int_equal(HL_QM_FENCE_RDATA(0, 0) - HL_GAUDI_DMA0_BLOCK, 0x8308);
	assert_int_equal(HL_QM_MSG_BASE_LO(1, 3) - HL_CFG_BASE, 0x5082a4);
	assert_int_equal(HL_QM_MSG_BASE_HI(2, 0) - HL_CFG_BASE, 0x508244);
	/* DMA1's streams: DMA1's queue manager, as on GAUDI */
	assert_int_equal(HL_QM_MSG_BASE_LO(5, 0) - HL_CFG_BASE, 0x52822c);
	assert_int_equal(HL_GAUDI_ENGINE_BLOCK(6) - HL_CFG_BASE, 0x520000);
}

/* ------------------------------------------------------------------------
 * The packets' effects
 */

/* LIN_DMA copies host -> DRAM -> host; mem_set fills with the pattern */
static void test_lin_dma_copies_and_fills(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, src, dst;
	uint64_t prng = SEED, pattern = 0x0123456789abcdefull, dram;
	const uint32_t size = 3 * PAGE + 123;
	uint8_t *expect;
	uint32_t n = 0, i;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &src, 4 * PAGE);
	hltests_host_map(st->fd, &dst, 4 * PAGE);
	/* DRAM as a GAUDI addresses it: physically, the owner's whole */
	dram = st->hw_ip.dram_base_address + 2 * MB;
	hltests_fill_random(&prng, src.ptr, size);

	n += g_lin_dma(cb.ptr + n, src.va, dram, size, false);
	n += g_lin_dma(cb.ptr + n, dram, dst.va + 1, size, false);
	hltests_run_cb_ok(st->fd, QA, cb.va, n);
	hltests_assert_bytes_equal(dst.ptr + 1, src.ptr, size,
				   "LIN_DMA host -> DRAM -> host");
	assert_int_equal(dst.ptr[0], 0);
	assert_int_equal(dst.ptr[size + 1], 0);

	/* mem_set: byte i gets byte (addr + i) % 8 of the 64-bit value */
	n = g_lin_dma(cb.ptr, pattern, dst.va + 3, 1000, true);
	hltests_run_cb_ok(st->fd, QA, cb.va, n);
	expect = malloc(1000);
	assert_non_null(expect);
	for (i = 0; i < 1000; i++)
		expect[i] = (uint8_t)(pattern >> (8 * ((3 + i) % 8)));
	hltests_assert_bytes_equal(dst.ptr + 3, expect, 1000, "mem_set");
	/* Control: the bytes around it kept the copy */
	assert_int_equal(dst.ptr[2], src.ptr[1]);
	assert_int_equal(dst.ptr[1003], src.ptr[1002]);
	free(expect);

	hltests_host_unmap(st->fd, &dst);
	hltests_host_unmap(st->fd, &src);
	hltests_host_unmap(st->fd, &cb);
}

/* MSG_LONG writes its value (op 0) and the device time (op 1) */
static void test_msg_long_value_and_timestamp(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h;
	struct hlthunk_time_sync_info t0, t1;
	uint64_t ts;
	uint32_t n = 0;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	n += g_msg_long(cb.ptr + n, h.va + 4, 0xcafef00d);
	n += g_msg(cb.ptr + n, G_MSG_PROT, h.va + 12, 0x600df00d, 0);
	n += g_msg(cb.ptr + n, G_MSG_LONG, h.va + 16, 0, 1);
	assert_int_equal(hlthunk_get_time_sync_info(st->fd, &t0), 0);
	hltests_run_cb_ok(st->fd, QA, cb.va, n);
	assert_int_equal(hlthunk_get_time_sync_info(st->fd, &t1), 0);
	assert_int_equal(rd32(h.ptr + 4), 0xcafef00d);
	assert_int_equal(rd32(h.ptr + 12), 0x600df00d);
	assert_int_equal(rd32(h.ptr), 0);
	assert_int_equal(rd32(h.ptr + 8), 0);
	ts = rd32(h.ptr + 16) | (uint64_t)rd32(h.ptr + 20) << 32;
	assert_true(ts >= t0.device_time && ts <= t1.device_time);

	/* A timestamp to a misaligned address is malformed, nothing written */
	memset(h.ptr, 0, 32);
	n = g_msg(cb.ptr, G_MSG_LONG, h.va + 4, 0, 1);
	hltests_run_cb_aborted(st->fd, QA, cb.va, n);
	assert_int_equal(rd32(h.ptr + 4), 0);

	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * MSG_SHORT sets and adds to SOBs (base 1) and arms monitors (base 0): a
 * monitor of SOB >= 5 whose payload is host memory is refused (payloads
 * land in SOBs and fences only), so the observer is a FENCE: a monitor
 * of SOB == 5 feeds fence 0 of QA, and a LIN_DMA after the FENCE
 * writes a marker. Set 2 + add 3 reach 5: the marker lands. The negative
 * control: set 2 + add 2 reach 4: the FENCE times out, no marker.
 */
static void test_msg_short_moves_sobs(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h;
	uint32_t n, add, status;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	h.ptr[0] = 0x77;

	for (add = 3; add >= 2; add--) {
		n = 0;
		n += g_sob(cb.ptr + n, T_SOB, 2, false);
		n += g_sob(cb.ptr + n, T_SOB, add, true);
		n += g_msg_short(cb.ptr + n, 0, MON_ADDRL(T_MON),
				 (uint32_t)hltests_gaudi_fence_reg(QA, 0, 0));
		n += g_msg_short(cb.ptr + n, 0, MON_ADDRH(T_MON),
				 (uint32_t)(hltests_gaudi_fence_reg(QA, 0, 0) >> 32));
		n += g_msg_short(cb.ptr + n, 0, MON_DATA(T_MON), 1);
		n += g_msg_short(cb.ptr + n, 0, MON_ARM(T_MON),
				 mon_arm(T_SOB, true, 5));
		n += g_fence(cb.ptr + n, 0, 1, 1);
		n += g_lin_dma(cb.ptr + n, h.va, h.va + 8 * add, 1, false);
		status = run_timeout(st->fd, QA, cb.va, n, 2);
		if (add == 3) {
			assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
			assert_int_equal(h.ptr[24], 0x77);
		} else {
			assert_int_equal(status, HL_WAIT_CS_STATUS_TIMEDOUT);
			assert_int_equal(h.ptr[16], 0);
		}
	}
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * FENCE stalls its queue until a monitor fires: QB waits on fence 1
 * for a monitor of SOB >= 1; its marker is absent while the SOB stays 0
 * (the negative control of the order), and lands after QA adds 1.
 */
static void test_fence_stalls_until_monitor_fires(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb0, cb1, h;
	uint32_t n0, n1, status;
	uint64_t seq;

	GAUDI_ONLY();
	assert_int_equal(st->hw_ip.num_queues, GAUDI_QUEUE_ID_SIZE);
	hltests_host_map(st->fd, &cb0, PAGE);
	hltests_host_map(st->fd, &cb1, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	h.ptr[0] = 0x5c;

	n1 = 0;
	n1 += g_sob(cb1.ptr + n1, T_SOB + 1, 0, false);
	n1 += g_monitor(cb1.ptr + n1, T_MON + 1, T_SOB + 1, 1,
			hltests_gaudi_fence_reg(QB, 0, 1), 1);
	n1 += g_fence(cb1.ptr + n1, 1, 1, 1);
	n1 += g_lin_dma(cb1.ptr + n1, h.va, h.va + 64, 1, false);
	seq = hltests_submit_cb(st->fd, QB, cb1.va, n1, 30);

	usleep(300 * 1000);
	assert_int_equal(h.ptr[64], 0);
	status = 0xdead;
	assert_int_equal(hlthunk_wait_for_cs(st->fd, seq, 0, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_BUSY);

	n0 = g_sob(cb0.ptr, T_SOB + 1, 1, true);
	hltests_run_cb_ok(st->fd, QA, cb0.va, n0);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, seq, 30ull * 1000 * 1000,
					     &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(h.ptr[64], 0x5c);

	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb1);
	hltests_host_unmap(st->fd, &cb0);
}

/*
 * CP_DMA runs the packets at its address as a CB of their own, between
 * the packets around it: a MSG_LONG before, a nested CB of two MSG_LONGs
 * (the second overwrites the first's word), a MSG_LONG after it
 * overwriting again. The order shows in the words: each later write wins.
 * Negative controls: a CP_DMA in a CP_DMA'd CB, and a size not a multiple
 * of 8, are malformed.
 */
static void test_cp_dma_nests(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, sub, h;
	uint32_t n = 0, ns = 0;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &sub, PAGE);
	hltests_host_map(st->fd, &h, PAGE);

	ns += g_msg_long(sub.ptr + ns, h.va + 0, 0x22222222);
	ns += g_msg_long(sub.ptr + ns, h.va + 4, 0x33333333);
	ns += g_msg_long(sub.ptr + ns, h.va + 8, 0x44444444);
	n += g_msg_long(cb.ptr + n, h.va + 0, 0x11111111);
	n += g_msg_long(cb.ptr + n, h.va + 4, 0x11111111);
	n += g_cp_dma(cb.ptr + n, sub.va, ns);
	n += g_msg_long(cb.ptr + n, h.va + 8, 0x55555555);
	n += g_msg_long(cb.ptr + n, h.va + 12, 0x66666666);
	hltests_run_cb_ok(st->fd, QA, cb.va, n);
	assert_int_equal(rd32(h.ptr + 0), 0x22222222);
	assert_int_equal(rd32(h.ptr + 4), 0x33333333);
	assert_int_equal(rd32(h.ptr + 8), 0x55555555);
	assert_int_equal(rd32(h.ptr + 12), 0x66666666);

	/* STOP in the nested CB ends the job: nothing after it runs */
	memset(h.ptr, 0, 16);
	ns = 0;
	ns += g_msg_long(sub.ptr + ns, h.va + 0, 0x22222222);
	ns += g_stop(sub.ptr + ns);
	ns += g_msg_long(sub.ptr + ns, h.va + 4, 0x33333333);
	n = g_cp_dma(cb.ptr, sub.va, ns);
	n += g_msg_long(cb.ptr + n, h.va + 8, 0x55555555);
	hltests_run_cb_ok(st->fd, QA, cb.va, n);
	assert_int_equal(rd32(h.ptr + 0), 0x22222222);
	assert_int_equal(rd32(h.ptr + 4), 0);
	assert_int_equal(rd32(h.ptr + 8), 0);

	/* A CP_DMA in a nested CB is malformed: nothing after it runs */
	memset(h.ptr, 0, 16);
	ns = g_cp_dma(sub.ptr, cb.va, 16);
	n = g_cp_dma(cb.ptr, sub.va, ns);
	n += g_msg_long(cb.ptr + n, h.va, 0x55555555);
	hltests_run_cb_aborted(st->fd, QA, cb.va, n);
	assert_int_equal(rd32(h.ptr), 0);
	/* A size that cuts a packet */
	ns = g_msg_long(sub.ptr, h.va, 0x22222222);
	n = g_cp_dma(cb.ptr, sub.va, 12);
	hltests_run_cb_aborted(st->fd, QA, cb.va, n);
	assert_int_equal(rd32(h.ptr), 0);

	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &sub);
	hltests_host_unmap(st->fd, &cb);
}

/* STOP ends the CB; the control: the same CB without it runs to the end */
static void test_stop_ends_the_cb(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h;
	int with_stop;
	uint32_t n;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	for (with_stop = 1; with_stop >= 0; with_stop--) {
		memset(h.ptr, 0, 16);
		n = 0;
		n += g_msg_long(cb.ptr + n, h.va, 0xaaaaaaaa);
		n += with_stop ? g_stop(cb.ptr + n) : g_nop(cb.ptr + n);
		n += g_msg_long(cb.ptr + n, h.va + 4, 0xbbbbbbbb);
		hltests_run_cb_ok(st->fd, QA, cb.va, n);
		assert_int_equal(rd32(h.ptr), 0xaaaaaaaa);
		assert_int_equal(rd32(h.ptr + 4), with_stop ? 0 : 0xbbbbbbbb);
	}
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * WREG_32 and WREG_BULK write the modelled registers of the engine's
 * block: the fence counter (WREG_32 of 1 to fence 3 of QA passes a
 * FENCE on it), and the message bases (WREG_BULK points base 1 of QA
 * at the E_N monitors' block, so a MSG_SHORT with base 1 arms a monitor
 * instead of touching a SOB). A WREG_32 to a register not modelled (DMA0's
 * core: SRC_BASE_LO) is malformed: the job aborts, and the FENCE that
 * would have passed after it did not run.
 */
static void test_wreg_reaches_modelled_registers_only(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h;
	uint64_t bases[1];
	uint32_t n;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	h.ptr[0] = 0x42;

	n = 0;
	n += g_wreg32(cb.ptr + n, block_off(QA, hltests_gaudi_fence_reg(QA, 0, 3)), 1);
	n += g_fence(cb.ptr + n, 3, 1, 1);
	n += g_lin_dma(cb.ptr + n, h.va, h.va + 8, 1, false);
	hltests_run_cb_ok(st->fd, QA, cb.va, n);
	assert_int_equal(h.ptr[8], 0x42);

	/*
	 * Base 1 := the monitors' block (LO and HI of base 1 are the 2nd
	 * and 7th registers from base 0's LO: written in two bulks of one
	 * qword, LO with the neighbour LO of stream 1 kept at its value)
	 */
	bases[0] = (uint64_t)(uint32_t)HL_SM_MON_PAY_ADDRL_0 |
		   (uint64_t)(uint32_t)HL_SM_SOB_OBJ_0 << 32;
	n = 0;
	n += g_wreg_bulk(cb.ptr + n, block_off(QA, hltests_gaudi_msg_base_reg(QA, 0, 1)), 1,
			 bases);
	/* Now base 1 + 0x1800 + 4 * mon is a monitor's ARM register */
	n += g_msg_short(cb.ptr + n, 0, MON_ADDRL(T_MON + 2),
			 (uint32_t)hltests_gaudi_fence_reg(QA, 0, 2));
	n += g_msg_short(cb.ptr + n, 0, MON_ADDRH(T_MON + 2),
			 (uint32_t)(hltests_gaudi_fence_reg(QA, 0, 2) >> 32));
	n += g_msg_short(cb.ptr + n, 0, MON_DATA(T_MON + 2), 1);
	n += g_msg_short(cb.ptr + n, 1, MON_ARM(T_MON + 2),
			 mon_arm(T_SOB + 16, false, 0));
	n += g_fence(cb.ptr + n, 2, 1, 1);
	n += g_lin_dma(cb.ptr + n, h.va, h.va + 16, 1, false);
	hltests_run_cb_ok(st->fd, QA, cb.va, n);
	assert_int_equal(h.ptr[16], 0x42);

	/* Not modelled: refused, and the FENCE after it never ran */
	n = 0;
	n += g_wreg32(cb.ptr + n, 0x0000 /* DMA0 core: a register of its */,
		      0x1234);
	n += g_lin_dma(cb.ptr + n, h.va, h.va + 24, 1, false);
	hltests_run_cb_aborted(st->fd, QA, cb.va, n);
	assert_int_equal(h.ptr[24], 0);
	/*
	 * A bulk of the register before QA's fence 0 (not modelled) and
	 * QA's fence 0: refused as a whole, so QA's FENCE on it times out;
	 * the control: WREG_32 of QA's fence 0 alone passes it
	 */
	bases[0] = 1ull | 1ull << 32;
	n = g_wreg_bulk(cb.ptr, block_off(QA, hltests_gaudi_fence_reg(QA, 0, 0) - 4),
			1, bases);
	hltests_run_cb_aborted(st->fd, QA, cb.va, n);
	n = g_fence(cb.ptr, 0, 1, 1);
	assert_int_equal(run_timeout(st->fd, QA, cb.va, n, 1),
			 HL_WAIT_CS_STATUS_TIMEDOUT);
	n = g_wreg32(cb.ptr, block_off(QA, hltests_gaudi_fence_reg(QA, 0, 0)), 1);
	n += g_fence(cb.ptr + n, 0, 1, 1);
	hltests_run_cb_ok(st->fd, QA, cb.va, n);

	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/* WAIT adds inc_val to the queue's fence counter: a FENCE passes on it */
static void test_wait_feeds_the_fence(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h;
	uint32_t n, inc, status;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	h.ptr[0] = 0x31;
	/* inc 3 passes a target of 3; the control: inc 2 does not */
	for (inc = 3; inc >= 2; inc--) {
		n = 0;
		n += g_wait(cb.ptr + n, 1, inc, 100);
		n += g_fence(cb.ptr + n, 1, 3, 15);
		n += g_lin_dma(cb.ptr + n, h.va, h.va + 8 * inc, 1, false);
		status = run_timeout(st->fd, QA, cb.va, n, 2);
		assert_int_equal(status, inc == 3 ? HL_WAIT_CS_STATUS_COMPLETED :
				 HL_WAIT_CS_STATUS_TIMEDOUT);
		assert_int_equal(h.ptr[8 * inc], inc == 3 ? 0x31 : 0);
	}
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * What the emulated device does not model, and this project's own format,
 * are malformed under asic=gaudi: the job aborts at the packet and the
 * MSG_LONG after it never writes. The control: NOP and ARB_POINT in its
 * place let it write.
 */
static void test_malformed_and_not_modelled_abort(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h;
	uint32_t n, i, len;
	uint8_t bad[32];

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);

	for (i = 0; i < 10; i++) {
		memset(bad, 0, sizeof(bad));
		switch (i) {
		case 0: /* REPEAT */
			len = g_hdr(bad, 0, g_ctl(G_REPEAT, G_RB));
			break;
		case 1: /* LOAD_AND_EXE exe of the job's empty scalars */
			len = g_load_and_exe(bad, h.va);
			put32(bad, 1u << 9);
			break;
		case 2: /* opcode 0xe, unused */
			len = g_hdr(bad, 0, g_ctl(0x0e, 0));
			break;
		case 3: /* a predicate on NOP, which has no such field */
			len = g_hdr(bad, 0, g_ctl(G_NOP, 1));
			break;
		case 4: /* non-linear DMA */
			len = g_lin_dma(bad, h.va, h.va + 64, 8, false);
			put32(bad + 4, g_ctl(G_LIN_DMA, 0));
			break;
		case 5: /* MSG_SHORT op 1 (the time): not modelled */
			len = g_msg_short(bad, 1, 0, 1);
			put32(bad + 4, g_ctl(G_MSG_SHORT, 1u << 20 | 1u << 22));
			break;
		case 6: /* this project's NOP: opcode 0 in ctl */
			len = hlthunk_pkt_nop(bad);
			break;
		case 7: /* this project's LIN_DMA */
			len = hlthunk_pkt_lin_dma(bad, h.va, h.va + 64, 8);
			break;
		case 8: /* NOP, reserved dword not 0 */
			len = g_hdr(bad, 1, g_ctl(G_NOP, 0));
			break;
		default: /* MSG_LONG op 2 */
			len = g_msg(bad, G_MSG_LONG, h.va + 64, 1, 2);
			break;
		}
		memcpy(cb.ptr, bad, len);
		n = len + g_msg_long(cb.ptr + len, h.va, 0x1234);
		hltests_run_cb_aborted(st->fd, QA, cb.va, n);
		assert_int_equal(rd32(h.ptr), 0);
		assert_int_equal(rd32(h.ptr + 64), 0);
	}

	n = 0;
	n += g_nop(cb.ptr + n);
	n += g_arb_point(cb.ptr + n, 3, false);
	n += g_arb_point(cb.ptr + n, 0, true);
	n += g_msg_long(cb.ptr + n, h.va, 0x1234);
	hltests_run_cb_ok(st->fd, QA, cb.va, n);
	assert_int_equal(rd32(h.ptr), 0x1234);

	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * LOAD_AND_EXE loads the job's predicates (P10 in bit 0 of word 10): a
 * MSG_LONG with pred 10 is skipped while P10 is clear (the negative
 * control), runs once it is set; one with pred 0 always runs. The next
 * job starts with P10 clear again.
 */
static void test_load_and_exe_predicates(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h, preds;
	uint32_t n, set;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	hltests_host_map(st->fd, &preds, PAGE);

	for (set = 0; set <= 1; set++) {
		memset(h.ptr, 0, 16);
		memset(preds.ptr, 0, 128);
		put32(preds.ptr + 4 * 10, set);
		/* P9 and P11 set: a neighbour does not stand in for P10 */
		put32(preds.ptr + 4 * 9, 1);
		put32(preds.ptr + 4 * 11, 1);
		n = 0;
		n += g_load_and_exe(cb.ptr + n, preds.va);
		n += g_msg_long(cb.ptr + n, h.va, 0xa10);
		put32(cb.ptr + n - 12, g_ctl(G_MSG_LONG, G_RB | G_MB | 10));
		n += g_msg_long(cb.ptr + n, h.va + 4, 0xa00);
		hltests_run_cb_ok(st->fd, QA, cb.va, n);
		assert_int_equal(rd32(h.ptr), set ? 0xa10 : 0);
		assert_int_equal(rd32(h.ptr + 4), 0xa00);
	}

	/* A new job: P10 is clear again */
	memset(h.ptr, 0, 16);
	n = g_msg_long(cb.ptr, h.va, 0xa10);
	put32(cb.ptr + 4, g_ctl(G_MSG_LONG, G_RB | G_MB | 10));
	hltests_run_cb_ok(st->fd, QA, cb.va, n);
	assert_int_equal(rd32(h.ptr), 0);

	hltests_host_unmap(st->fd, &preds);
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * The queue managers are at GAUDI's addresses (the golden table of
 * hltests_gaudi_qm(), upstream's): a MSG_LONG of 1 to a queue's own
 * CP_FENCE1_RDATA passes its FENCE on fence 1, for a DMA, both MMEs' and
 * TPCs' queues. The negative control: the same write to the next stream's
 * register of the same queue manager leaves the FENCE waiting (aborted at
 * its timeout).
 */
static void test_fences_at_gaudi_addresses(void **state)
{
	static const uint32_t queues[] = {
		GAUDI_QUEUE_ID_DMA_7_3, GAUDI_QUEUE_ID_MME_0_0,
		GAUDI_QUEUE_ID_MME_1_1, GAUDI_QUEUE_ID_TPC_0_0,
		GAUDI_QUEUE_ID_TPC_7_3,
	};
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h;
	uint32_t i, n, q, other;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	/* Golden: upstream's mmTPC7_QM_CP_FENCE1_RDATA_3, mmMME2_QM_BASE */
	assert_int_equal(hltests_gaudi_fence_reg(GAUDI_QUEUE_ID_TPC_7_3, 0, 1),
			 0x7ffcfc8328ull);
	assert_int_equal(hltests_gaudi_qm(GAUDI_QUEUE_ID_MME_0_2),
			 0x7ffc168000ull);
	for (i = 0; i < sizeof(queues) / sizeof(queues[0]); i++) {
		q = queues[i];
		/* The next stream of the same queue manager */
		other = q % 4 == GAUDI_QUEUE_ID_DMA_2_3 % 4 ? q - 1 : q + 1;
		memset(h.ptr, 0, 16);
		h.ptr[0] = 0x5a;
		n = g_msg_long(cb.ptr, hltests_gaudi_fence_reg(other, 0, 1), 1);
		n += g_fence(cb.ptr + n, 1, 1, 1);
		n += g_lin_dma(cb.ptr + n, h.va, h.va + 8, 1, false);
		assert_int_equal(run_timeout(st->fd, q, cb.va, n, 1),
				 HL_WAIT_CS_STATUS_TIMEDOUT);
		assert_int_equal(h.ptr[8], 0);
		/* Take back what reached the other stream's fence */
		n = g_fence(cb.ptr, 1, 1, 1);
		hltests_run_cb_ok(st->fd, other, cb.va, n);

		n = g_msg_long(cb.ptr, hltests_gaudi_fence_reg(q, 0, 1), 1);
		n += g_fence(cb.ptr + n, 1, 1, 1);
		n += g_lin_dma(cb.ptr + n, h.va, h.va + 8, 1, false);
		hltests_run_cb_ok(st->fd, q, cb.va, n);
		assert_int_equal(h.ptr[8], 0x5a);
	}
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/* A monitor of the W_S block through base 2: payload @data to @addr */
static uint32_t g_ws_monitor(uint8_t *p, uint32_t mon, uint32_t sob,
			     uint32_t value, uint64_t addr, uint32_t data)
{
	uint32_t n = 0;

	n += g_msg_short(p + n, 2, MON_ADDRL(mon), (uint32_t)addr);
	n += g_msg_short(p + n, 2, MON_ADDRH(mon), (uint32_t)(addr >> 32));
	n += g_msg_short(p + n, 2, MON_DATA(mon), data);
	n += g_msg_short(p + n, 2, MON_ARM(mon), mon_arm(sob, false, value));
	return n;
}

/*
 * The W_S block (MSG_SHORT bases 2 and 3, GAUDI's SYNC_MNGR_W_S): its own
 * SOBs and monitors. A W_S monitor of W_S SOB s fires when base 3 sets
 * that SOB, and its payload passes the FENCE. The negative control: the
 * E_N SOB of the same index (base 1) does not fire it (the job's FENCE
 * times out).
 */
static void test_ws_block_sobs_and_monitors(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h;
	uint64_t fence = hltests_gaudi_fence_reg(QA, 0, 1);
	uint32_t n, ws;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	h.ptr[0] = 0x77;
	for (ws = 0; ws <= 1; ws++) {
		n = 0;
		n += g_msg_short(cb.ptr + n, 3, T_SOB * 4, 0);
		n += g_sob(cb.ptr + n, T_SOB, 0, false);
		n += g_ws_monitor(cb.ptr + n, T_MON, T_SOB, 1, fence, 1);
		n += g_msg_short(cb.ptr + n, ws ? 3 : 1, T_SOB * 4, 1);
		n += g_fence(cb.ptr + n, 1, 1, 1);
		n += g_lin_dma(cb.ptr + n, h.va, h.va + 8 + ws, 1, false);
		assert_int_equal(run_timeout(st->fd, QA, cb.va, n, 1),
				 ws ? HL_WAIT_CS_STATUS_COMPLETED :
				      HL_WAIT_CS_STATUS_TIMEDOUT);
		assert_int_equal(h.ptr[8 + ws], ws ? 0x77 : 0);
	}
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * A CP_DMA'd CB runs on the queue manager's lower CP (GAUDI's stream 4):
 * its FENCE waits on the lower CP's counter (CP_FENCE0_RDATA_4), which a
 * monitor's payload reaches, and its MSG_SHORT uses the lower CP's message
 * bases (E_N's after each change of owner). The negative control: the
 * payload at the queue's own fence 0 leaves the nested FENCE waiting.
 */
static void test_lower_cp_fences(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, sub, h;
	uint32_t n, m, lower;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &sub, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	h.ptr[0] = 0x66;
	for (lower = 0; lower <= 1; lower++) {
		m = 0;
		m += g_sob(sub.ptr + m, T_SOB + 1, 0, false);
		m += g_monitor(sub.ptr + m, T_MON + 1, T_SOB + 1, 1,
			       hltests_gaudi_fence_reg(QA, lower ?
						HLTESTS_GAUDI_LOWER_CP : 0, 0),
			       1);
		m += g_sob(sub.ptr + m, T_SOB + 1, 1, false);
		m += g_fence(sub.ptr + m, 0, 1, 1);
		n = g_cp_dma(cb.ptr, sub.va, m);
		n += g_lin_dma(cb.ptr + n, h.va, h.va + 8 + lower, 1, false);
		assert_int_equal(run_timeout(st->fd, QA, cb.va, n, 1),
				 lower ? HL_WAIT_CS_STATUS_COMPLETED :
					 HL_WAIT_CS_STATUS_TIMEDOUT);
		assert_int_equal(h.ptr[8 + lower], lower ? 0x66 : 0);
		if (!lower) {
			/* Take back the payload from the queue's fence 0 */
			n = g_fence(cb.ptr, 0, 1, 1);
			hltests_run_cb_ok(st->fd, QA, cb.va, n);
		}
	}
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &sub);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * The queue manager's arbiter registers (ARB_CFG_0, ARB_WRR_WEIGHT_0..3,
 * ARB_MST_QUIET_PER, as hl-thunk's tests program them with MSG_LONG) are
 * accepted, by MSG_LONG and by WREG_32 of the engine's own block; the
 * negative control: ARB_CFG_1 (0xa04), not modelled, is refused by
 * WREG_32 (the job aborts before its marker).
 */
static void test_arbiter_registers(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h;
	uint64_t qm = hltests_gaudi_qm(QA);
	uint32_t n, i;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	n = 0;
	n += g_msg_long(cb.ptr + n, qm + 0xa00, 1u << 8 | 1u << 4 | 1u);
	n += g_msg_long(cb.ptr + n, qm + 0xb34, 0x10);
	for (i = 0; i < 4; i++)
		n += g_msg_long(cb.ptr + n, qm + 0xa08 + 4 * i, i + 1);
	n += g_wreg32(cb.ptr + n, block_off(QA, qm + 0xa00), 1u << 4);
	n += g_arb_point(cb.ptr + n, 2, false);
	n += g_arb_point(cb.ptr + n, 2, true);
	n += g_msg_long(cb.ptr + n, h.va, 0xa4b);
	hltests_run_cb_ok(st->fd, QA, cb.va, n);
	assert_int_equal(rd32(h.ptr), 0xa4b);

	n = g_wreg32(cb.ptr, block_off(QA, qm + 0xa04), 1);
	n += g_msg_long(cb.ptr + n, h.va + 4, 0xa4b);
	hltests_run_cb_aborted(st->fd, QA, cb.va, n);
	assert_int_equal(rd32(h.ptr + 4), 0);
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * The arbiter of a queue manager, on and arbitrating by priority: an
 * ARB_POINT asks for the grant and waits for it, one with rls gives it
 * back. ARB_CFG_0: EN (bit 8), IS_MASTER (4), TYPE (0; 1: weighted round
 * robin, which ARB_POINT does not model: as off).
 */
#define ARB_CFG_0	0xa00
#define ARB_PRIO	(1u << 8 | 1u << 4)
#define ARB_WRR		(ARB_PRIO | 1u)

/* The arbiter tests' buffers: @n command buffers and the host words */
static void arb_map(int fd, struct hltests_host_buf *cb, uint32_t n,
		    struct hltests_host_buf *h)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		hltests_host_map(fd, &cb[i], PAGE);
	hltests_host_map(fd, h, PAGE);
}

static void arb_unmap(int fd, struct hltests_host_buf *cb, uint32_t n,
		      struct hltests_host_buf *h)
{
	uint32_t i;

	hltests_host_unmap(fd, h);
	for (i = 0; i < n; i++)
		hltests_host_unmap(fd, &cb[i]);
}

/* Program the arbiter of QA's queue manager from stream 3 of it */
static void arb_set(int fd, struct hltests_host_buf *cb, uint32_t cfg)
{
	uint32_t n = g_msg_long(cb->ptr, hltests_gaudi_qm(QA) + ARB_CFG_0,
				cfg);

	hltests_run_cb_ok(fd, QA + 3, cb->va, n);
}

/* Wait until the device wrote @value to the host word at @p */
static void wait_word(const uint8_t *p, uint32_t value)
{
	int i;

	for (i = 0; i < 30000 && rd32((const uint8_t *)p) != value; i++)
		usleep(1000);
	assert_int_equal(rd32(p), value);
}

/*
 * Stream 0 of QA takes the grant, tells the host (a word at @h + 8), waits
 * in a FENCE for SOB T_SOB + 2, writes 0xa0 to @h + 4 and gives the grant
 * back. Returns its sequence number; the grant is held when it returns.
 */
static uint64_t arb_holder(int fd, struct hltests_host_buf *cb,
			   struct hltests_host_buf *h, uint32_t prio,
			   uint32_t timeout_s)
{
	uint32_t n = 0;
	uint64_t seq;

	memset(h->ptr + 8, 0, 4);
	n += g_sob(cb->ptr + n, T_SOB + 2, 0, false);
	n += g_monitor(cb->ptr + n, T_MON + 2, T_SOB + 2, 1,
		       hltests_gaudi_fence_reg(QA, 0, 1), 1);
	n += g_arb_point(cb->ptr + n, prio, false);
	n += g_msg_long(cb->ptr + n, h->va + 8, 1);
	n += g_fence(cb->ptr + n, 1, 1, 1);
	n += g_msg_long(cb->ptr + n, h->va + 4, 0xa0);
	n += g_arb_point(cb->ptr + n, prio, true);
	seq = hltests_submit_cb(fd, QA, cb->va, n, timeout_s);
	wait_word(h->ptr + 8, 1);
	return seq;
}

/* Stream @s of QA: ask with @prio, write @value to @h, give back */
static uint64_t arb_writer(int fd, struct hltests_host_buf *cb,
			   struct hltests_host_buf *h, uint32_t s,
			   uint32_t prio, uint32_t value, uint32_t timeout_s)
{
	uint32_t n = 0;

	n += g_arb_point(cb->ptr + n, prio, false);
	n += g_msg_long(cb->ptr + n, h->va, value);
	n += g_arb_point(cb->ptr + n, prio, true);
	return hltests_submit_cb(fd, QA + s, cb->va, n, timeout_s);
}

/* Open the holder's FENCE from another queue manager */
static void arb_open(int fd, struct hltests_host_buf *cb)
{
	uint32_t n = g_sob(cb->ptr, T_SOB + 2, 1, true);

	hltests_run_cb_ok(fd, QB, cb->va, n);
}

/* The CS's status (the wait of a timed-out CS is -ETIMEDOUT, TIMEDOUT) */
static uint32_t wait_status(int fd, uint64_t seq, uint64_t timeout_us)
{
	uint32_t status = 0xdead;
	int rc = hlthunk_wait_for_cs(fd, seq, timeout_us, &status);

	if (rc == -ETIMEDOUT)
		assert_int_equal(status, HL_WAIT_CS_STATUS_TIMEDOUT);
	else
		assert_int_equal(rc, 0);
	return status;
}

/* Fail unless the CS completes (within 30 s) */
static void wait_completed(int fd, uint64_t seq)
{
	assert_int_equal(wait_status(fd, seq, 30ull * 1000 * 1000),
			 HL_WAIT_CS_STATUS_COMPLETED);
}

/*
 * While stream 0 holds the grant, stream 1's ARB_POINT waits: its write
 * lands only after the holder's, so it is the one left. Negative controls:
 * with the arbiter off, and with it arbitrating by weight (not modelled:
 * as off), stream 1 writes at once and the holder's write comes last.
 */
static void test_arbiter_grant_is_exclusive(void **state)
{
	static const uint32_t cfgs[] = { ARB_PRIO, 0, ARB_WRR };
	struct hltests_state *st = *state;
	struct hltests_host_buf cb[4], h;
	uint64_t seq0, seq1;
	uint32_t k;

	GAUDI_ONLY();
	arb_map(st->fd, cb, 4, &h);

	for (k = 0; k < sizeof(cfgs) / sizeof(cfgs[0]); k++) {
		print_message("ARB_CFG_0 %#x\n", cfgs[k]);
		memset(h.ptr, 0, 16);
		arb_set(st->fd, &cb[3], cfgs[k]);
		seq0 = arb_holder(st->fd, &cb[0], &h, 1, 30);
		seq1 = arb_writer(st->fd, &cb[1], &h, 1, 1, 0xb1, 30);
		usleep(300 * 1000);
		if (cfgs[k] == ARB_PRIO) {
			assert_int_equal(rd32(h.ptr), 0);
			assert_int_equal(wait_status(st->fd, seq1, 0),
					 HL_WAIT_CS_STATUS_BUSY);
		} else {
			assert_int_equal(wait_status(st->fd, seq1,
						     30ull * 1000 * 1000),
					 HL_WAIT_CS_STATUS_COMPLETED);
			assert_int_equal(rd32(h.ptr), 0xb1);
			memset(h.ptr, 0, 4);
		}
		arb_open(st->fd, &cb[2]);
		wait_completed(st->fd, seq0);
		wait_completed(st->fd, seq1);
		assert_int_equal(rd32(h.ptr + 4), 0xa0);
		assert_int_equal(rd32(h.ptr), cfgs[k] == ARB_PRIO ? 0xb1 : 0);
	}

	arb_unmap(st->fd, cb, 4, &h);
}

/*
 * When the holder gives the grant back, it goes to the waiting stream of
 * the highest priority: streams 1 and 2 wait, each writing its own word to
 * one place, and the one granted last is the one left. Stream 1 asks
 * first and is the lower stream: with 2's priority the higher, 1's word is
 * left (neither asking order nor stream number decides); swapped, 2's.
 */
static void test_arbiter_grants_by_priority(void **state)
{
	static const uint32_t prio[2][2] = { { 1, 3 }, { 3, 1 } };
	struct hltests_state *st = *state;
	struct hltests_host_buf cb[5], h;
	uint64_t seq0, seq1, seq2;
	uint32_t k;

	GAUDI_ONLY();
	arb_map(st->fd, cb, 5, &h);
	arb_set(st->fd, &cb[4], ARB_PRIO);

	for (k = 0; k < 2; k++) {
		memset(h.ptr, 0, 16);
		seq0 = arb_holder(st->fd, &cb[0], &h, 2, 30);
		seq1 = arb_writer(st->fd, &cb[1], &h, 1, prio[k][0], 0x11, 30);
		usleep(100 * 1000);
		seq2 = arb_writer(st->fd, &cb[2], &h, 2, prio[k][1], 0x22, 30);
		usleep(300 * 1000);
		assert_int_equal(rd32(h.ptr), 0);
		arb_open(st->fd, &cb[3]);
		wait_completed(st->fd, seq0);
		wait_completed(st->fd, seq1);
		wait_completed(st->fd, seq2);
		assert_int_equal(rd32(h.ptr), k == 0 ? 0x11 : 0x22);
	}

	arb_unmap(st->fd, cb, 5, &h);
}

/*
 * Nothing of the arbiter outlives a job: a stream that waits for the
 * grant past its deadline ends TIMEDOUT and leaves no request behind (a
 * later asker is granted once the holder is done); a holder whose job ends
 * with the grant (its deadline in the FENCE) gives it up, so the stream
 * waiting for it completes. The holder's release at a job's end is what
 * the second half depends on: without it the waiter times out.
 */
static void test_arbiter_grant_ends_with_the_job(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb[4], h;
	uint64_t seq0, seq1;

	GAUDI_ONLY();
	arb_map(st->fd, cb, 4, &h);
	arb_set(st->fd, &cb[3], ARB_PRIO);

	/* A waiter times out; the holder goes on; a new asker is granted */
	memset(h.ptr, 0, 16);
	seq0 = arb_holder(st->fd, &cb[0], &h, 1, 30);
	seq1 = arb_writer(st->fd, &cb[1], &h, 1, 5, 0xb1, 2);
	assert_int_equal(wait_status(st->fd, seq1, 30ull * 1000 * 1000),
			 HL_WAIT_CS_STATUS_TIMEDOUT);
	assert_int_equal(rd32(h.ptr), 0);
	arb_open(st->fd, &cb[2]);
	wait_completed(st->fd, seq0);
	seq1 = arb_writer(st->fd, &cb[1], &h, 1, 5, 0xb2, 30);
	wait_completed(st->fd, seq1);
	assert_int_equal(rd32(h.ptr), 0xb2);

	/* A holder's job ends with the grant: the waiter gets it */
	memset(h.ptr, 0, 16);
	seq0 = arb_holder(st->fd, &cb[0], &h, 1, 2);
	seq1 = arb_writer(st->fd, &cb[1], &h, 1, 1, 0xb3, 30);
	assert_int_equal(wait_status(st->fd, seq0, 30ull * 1000 * 1000),
			 HL_WAIT_CS_STATUS_TIMEDOUT);
	wait_completed(st->fd, seq1);
	assert_int_equal(rd32(h.ptr), 0xb3);
	assert_int_equal(rd32(h.ptr + 4), 0);

	arb_unmap(st->fd, cb, 4, &h);
}

/*
 * The arbiter switched off (ARB_CFG_0 = 0) or to weights while stream 1
 * waits for the grant that stream 0 holds: stream 1 goes on at once. A
 * release by a stream that holds nothing (stream 2) takes nothing from the
 * holder (the control: stream 1 still waits after it). Switched back on,
 * the grant the holder gave back at its job's end is free: a new asker is
 * granted at once.
 */
static void test_arbiter_switched_off_mid_wait(void **state)
{
	static const uint32_t cfgs[] = { 0, ARB_WRR };
	struct hltests_state *st = *state;
	struct hltests_host_buf cb[4], h;
	uint64_t seq0, seq1;
	uint32_t k, n;

	GAUDI_ONLY();
	arb_map(st->fd, cb, 4, &h);

	for (k = 0; k < 2; k++) {
		memset(h.ptr, 0, 16);
		arb_set(st->fd, &cb[3], ARB_PRIO);
		seq0 = arb_holder(st->fd, &cb[0], &h, 1, 30);
		seq1 = arb_writer(st->fd, &cb[1], &h, 1, 9, 0xb1, 30);
		/* A release without the grant: stream 1 still waits */
		n = g_arb_point(cb[2].ptr, 0, true);
		hltests_run_cb_ok(st->fd, QA + 2, cb[2].va, n);
		usleep(300 * 1000);
		assert_int_equal(rd32(h.ptr), 0);
		assert_int_equal(wait_status(st->fd, seq1, 0),
				 HL_WAIT_CS_STATUS_BUSY);
		/* Off (or by weight): stream 1 goes on, the holder holds */
		arb_set(st->fd, &cb[3], cfgs[k]);
		wait_completed(st->fd, seq1);
		assert_int_equal(rd32(h.ptr), 0xb1);
		assert_int_equal(rd32(h.ptr + 4), 0);
		arb_open(st->fd, &cb[2]);
		wait_completed(st->fd, seq0);
		/* On again: nothing held */
		arb_set(st->fd, &cb[3], ARB_PRIO);
		seq1 = arb_writer(st->fd, &cb[1], &h, 2, 1, 0xb2, 5);
		wait_completed(st->fd, seq1);
		assert_int_equal(rd32(h.ptr), 0xb2);
	}

	arb_unmap(st->fd, cb, 4, &h);
}

/*
 * The lower CP's ARB_POINT is its stream's: stream 1's ARB_POINT in a
 * CP_DMA'd CB waits while stream 0 holds the grant, and its write lands
 * after the holder's.
 */
static void test_arbiter_lower_cp_waits(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb[4], sub, h;
	uint64_t seq0, seq1;
	uint32_t n, m;

	GAUDI_ONLY();
	arb_map(st->fd, cb, 4, &h);
	hltests_host_map(st->fd, &sub, PAGE);
	memset(h.ptr, 0, 16);
	arb_set(st->fd, &cb[3], ARB_PRIO);
	seq0 = arb_holder(st->fd, &cb[0], &h, 1, 30);
	m = 0;
	m += g_arb_point(sub.ptr + m, 4, false);
	m += g_msg_long(sub.ptr + m, h.va, 0xc1);
	m += g_arb_point(sub.ptr + m, 4, true);
	n = g_cp_dma(cb[1].ptr, sub.va, m);
	seq1 = hltests_submit_cb(st->fd, QA + 1, cb[1].va, n, 30);
	usleep(300 * 1000);
	assert_int_equal(rd32(h.ptr), 0);
	assert_int_equal(wait_status(st->fd, seq1, 0), HL_WAIT_CS_STATUS_BUSY);
	arb_open(st->fd, &cb[2]);
	wait_completed(st->fd, seq0);
	wait_completed(st->fd, seq1);
	assert_int_equal(rd32(h.ptr), 0xc1);
	assert_int_equal(rd32(h.ptr + 4), 0xa0);

	hltests_host_unmap(st->fd, &sub);
	arb_unmap(st->fd, cb, 4, &h);
}

/*
 * The quiet period ends when the other streams wait in a FENCE whose
 * counter is short: stream 2 waits in one (its own CP's, then the lower
 * CP's of a CP_DMA'd CB), stream 3 has no job, and stream 1's ARB_POINT
 * is granted well before HL_EMU_ARB_QUIET_MAX (2 s), which bounds the
 * wait for a stream busy with other work.
 */
static void test_arbiter_quiet_with_fence_waiters(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb[4], sub, h;
	uint64_t seq1, seq2, t0, dt;
	uint32_t n, m, k;

	GAUDI_ONLY();
	arb_map(st->fd, cb, 4, &h);
	hltests_host_map(st->fd, &sub, PAGE);
	arb_set(st->fd, &cb[3], ARB_PRIO);

	for (k = 0; k < 3; k++) {
		memset(h.ptr, 0, 16);
		if (k == 2)
			break;
		/* Stream 2: a FENCE on counter 1 (its CP's or the lower CP's) */
		n = 0;
		n += g_sob(cb[2].ptr + n, T_SOB + 2, 0, false);
		n += g_monitor(cb[2].ptr + n, T_MON + 2, T_SOB + 2, 1,
			       k ? hltests_gaudi_fence_reg(QA, HLTESTS_GAUDI_LOWER_CP, 1) :
				   hltests_gaudi_fence_reg(QA + 2, 0, 1), 1);
		n += g_msg_long(cb[2].ptr + n, h.va + 8, 1);
		if (k) {
			m = g_fence(sub.ptr, 1, 1, 1);
			n += g_cp_dma(cb[2].ptr + n, sub.va, m);
		} else {
			n += g_fence(cb[2].ptr + n, 1, 1, 1);
		}
		seq2 = hltests_submit_cb(st->fd, QA + 2, cb[2].va, n, 30);
		wait_word(h.ptr + 8, 1);
		usleep(100 * 1000);
		t0 = hltests_now_ns();
		seq1 = arb_writer(st->fd, &cb[1], &h, 1, 1, 0xe1, 30);
		wait_completed(st->fd, seq1);
		dt = hltests_now_ns() - t0;
		print_message("%s FENCE beside: ARB_POINT in %.2f s\n",
			      k ? "lower CP's" : "upper CP's", dt / 1e9);
		assert_int_equal(rd32(h.ptr), 0xe1);
		assert_true(dt < 1500000000ull);
		arb_open(st->fd, &cb[0]);
		wait_completed(st->fd, seq2);
	}

	/*
	 * The control: stream 2 busy with other work (LIN_DMA fills of DRAM
	 * until its 8 s deadline) holds the grant back, for no longer than
	 * the 2 s bound
	 */
	hltests_host_unmap(st->fd, &cb[2]);
	hltests_host_map(st->fd, &cb[2], 1024 * 1024);
	for (n = 0, k = 0; k < 1024 * 1024 / 24; k++)
		n += g_lin_dma(cb[2].ptr + n, 0x5a5a5a5a5a5a5a5aull,
			       st->hw_ip.dram_base_address + 2 * MB, 32 * MB,
			       true);
	seq2 = hltests_submit_cb(st->fd, QA + 2, cb[2].va, n, 8);
	usleep(200 * 1000);
	assert_int_equal(wait_status(st->fd, seq2, 0), HL_WAIT_CS_STATUS_BUSY);
	t0 = hltests_now_ns();
	seq1 = arb_writer(st->fd, &cb[1], &h, 1, 1, 0xe2, 30);
	wait_completed(st->fd, seq1);
	dt = hltests_now_ns() - t0;
	print_message("stream busy beside: ARB_POINT in %.2f s\n", dt / 1e9);
	assert_int_equal(rd32(h.ptr), 0xe2);
	assert_true(dt >= 1500000000ull && dt < 6000000000ull);
	wait_status(st->fd, seq2, 30ull * 1000 * 1000);

	hltests_host_unmap(st->fd, &sub);
	arb_unmap(st->fd, cb, 4, &h);
}

static uint32_t dbg_read32(uint64_t addr);

/* A holder (stream 0) and a waiter (stream 1) left mid-wait on @fd */
static void arb_leave_waiting(int fd, struct hltests_host_buf *cb,
			      struct hltests_host_buf *h)
{
	uint64_t seq1;

	memset(h->ptr, 0, 16);
	arb_set(fd, &cb[3], ARB_PRIO);
	arb_holder(fd, &cb[0], h, 1, 60);
	seq1 = arb_writer(fd, &cb[1], h, 1, 1, 0xb1, 60);
	usleep(200 * 1000);
	assert_int_equal(wait_status(fd, seq1, 0), HL_WAIT_CS_STATUS_BUSY);
}

/*
 * The next owner finds the arbiter as the first did: off, and, switched
 * on, its grant free (an asker goes on at once, no stream of the queue
 * manager having a job)
 */
static void arb_next_owner_clean(int fd)
{
	struct hltests_host_buf cb[2], h;
	uint64_t seq, t0;

	assert_int_equal(dbg_read32(hltests_gaudi_qm(QA) + ARB_CFG_0), 0);
	arb_map(fd, cb, 2, &h);
	memset(h.ptr, 0, 16);
	arb_set(fd, &cb[1], ARB_PRIO);
	t0 = hltests_now_ns();
	seq = arb_writer(fd, &cb[0], &h, 1, 0, 0xd1, 5);
	wait_completed(fd, seq);
	print_message("next owner's ARB_POINT: %.2f s\n",
		      (hltests_now_ns() - t0) / 1e9);
	assert_int_equal(rd32(h.ptr), 0xd1);
	arb_unmap(fd, cb, 2, &h);
}

/*
 * Streams waiting in ARB_POINT (and the holder in its FENCE) do not hold
 * up the device's teardown, and leave nothing for its next owner: a close
 * mid-wait, a process killed mid-wait, a hard reset mid-wait (each well
 * within the jobs' 60 s deadline).
 */
static void test_arbiter_teardown_mid_wait(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb[4], h;
	uint64_t t0, dt;
	int fd, i, wst;
	int pfd[2];
	char c = 0;
	pid_t pid;

	GAUDI_ONLY();
	hlthunk_close(st->fd);
	st->fd = -1;

	/* Close mid-wait */
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	arb_map(fd, cb, 4, &h);
	arb_leave_waiting(fd, cb, &h);
	t0 = hltests_now_ns();
	hlthunk_close(fd);
	fd = hltests_open_node(0, 0);
	dt = hltests_now_ns() - t0;
	assert_true(fd >= 0);
	print_message("close and reopen mid-ARB_POINT: %.2f s\n", dt / 1e9);
	assert_true(dt < 10000000000ull);
	arb_next_owner_clean(fd);
	hlthunk_close(fd);

	/* Killed mid-wait (it tells when both wait) */
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fd = hltests_open_node(0, 0);
		if (fd < 0)
			_exit(2);
		arb_map(fd, cb, 4, &h);
		arb_leave_waiting(fd, cb, &h);
		if (write(pfd[1], "w", 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	close(pfd[1]);
	assert_int_equal(read(pfd[0], &c, 1), 1);
	close(pfd[0]);
	t0 = hltests_now_ns();
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &wst, 0), pid);
	assert_true(WIFSIGNALED(wst));
	for (i = 0; i < 100; i++) {
		fd = hltests_open_node(0, 0);
		if (fd >= 0)
			break;
		usleep(100 * 1000);
	}
	dt = hltests_now_ns() - t0;
	assert_true(fd >= 0);
	print_message("killed and reopened mid-ARB_POINT: %.2f s\n", dt / 1e9);
	assert_true(dt < 10000000000ull);
	arb_next_owner_clean(fd);

	/* Hard reset mid-wait */
	arb_map(fd, cb, 4, &h);
	arb_leave_waiting(fd, cb, &h);
	t0 = hltests_now_ns();
	assert_int_equal(hltests_write_file("/sys/class/habanalabs/hl0/hard_reset",
					    "1"), 0);
	dt = hltests_now_ns() - t0;
	print_message("hard reset mid-ARB_POINT: %.2f s\n", dt / 1e9);
	assert_true(dt < 10000000000ull);
	st->fd = hltests_open_node(0, 0);
	assert_true(st->fd >= 0);
	arb_next_owner_clean(st->fd);
	hlthunk_close(fd);
}

/* @k LIN_DMA fills of 8 MiB of DRAM at @p */
static uint32_t arb_busy_work(uint8_t *p, const struct hltests_state *st,
			      uint32_t k)
{
	uint32_t n = 0, i;

	for (i = 0; i < k; i++)
		n += g_lin_dma(p + n, 0x5a5a5a5a5a5a5a5aull,
			       st->hw_ip.dram_base_address + 2 * MB, 8 * MB,
			       true);
	return n;
}

/*
 * One round of the test below, stream 2's work @k fills: the word left at
 * @h, and *@ask_s: how long after the host opened the FENCE it saw stream
 * 2's marker (written just before its ARB_POINT)
 */
static uint32_t arb_quiet_round(const struct hltests_state *st,
				struct hltests_host_buf *cb,
				struct hltests_host_buf *h, uint32_t k,
				double *ask_s)
{
	uint64_t seq0, seq1, seq2, t0;
	uint32_t n = 0;

	memset(h->ptr, 0, 20);
	arb_set(st->fd, &cb[4], ARB_PRIO);
	seq0 = arb_holder(st->fd, &cb[0], h, 1, 30);
	seq1 = arb_writer(st->fd, &cb[1], h, 1, 1, 0x11, 30);
	n += g_monitor(cb[2].ptr + n, T_MON + 3, T_SOB + 2, 1,
		       hltests_gaudi_fence_reg(QA + 2, 0, 1), 1);
	n += g_msg_long(cb[2].ptr + n, h->va + 12, 1);
	n += g_fence(cb[2].ptr + n, 1, 1, 1);
	n += arb_busy_work(cb[2].ptr + n, st, k);
	n += g_msg_long(cb[2].ptr + n, h->va + 16, 1);
	n += g_arb_point(cb[2].ptr + n, 9, false);
	n += g_msg_long(cb[2].ptr + n, h->va, 0x22);
	n += g_arb_point(cb[2].ptr + n, 9, true);
	seq2 = hltests_submit_cb(st->fd, QA + 2, cb[2].va, n, 30);
	wait_word(h->ptr + 12, 1);
	usleep(2500 * 1000);
	assert_int_equal(rd32(h->ptr), 0);

	t0 = hltests_now_ns();
	arb_open(st->fd, &cb[3]);
	wait_word(h->ptr + 16, 1);
	*ask_s = (hltests_now_ns() - t0) / 1e9;
	wait_completed(st->fd, seq0);
	wait_completed(st->fd, seq1);
	wait_completed(st->fd, seq2);
	assert_int_equal(rd32(h->ptr + 4), 0xa0);
	return rd32(h->ptr);
}

/*
 * The quiet period runs from the last grant: a stream that waited for a
 * held grant longer than the 2 s bound does not take it the moment it is
 * given back while another stream, busy on its way to ask (a few 100 ms),
 * would ask with a higher priority. Stream 0 holds the grant; stream 1
 * (priority 1) asks and waits 2.5 s; one SOB opens the holder's FENCE and
 * stream 2's, which then works a while and asks with priority 9: it is
 * granted first, so stream 1's word is the one left.
 *
 * That holds only if stream 2 asks within the 2 s: a round in which the
 * host saw its marker later than 1 s after opening the FENCE (a loaded
 * host: make check beside make check-debug once took over 2 s) proves
 * nothing either way, and runs again, up to three rounds in all.
 */
static void test_arbiter_quiet_period_from_the_last_grant(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb[5], h;
	uint64_t t0, dt = 0;
	uint32_t n, k, word = 0;
	double ask_s = 0;
	int round;

	GAUDI_ONLY();
	arb_map(st->fd, cb, 5, &h);

	/* The work: 50 ms or more, well under 2 s (up to 128 fills: a page) */
	for (k = 1;; k *= 2) {
		n = arb_busy_work(cb[2].ptr, st, k);
		t0 = hltests_now_ns();
		hltests_run_cb_ok(st->fd, QA + 2, cb[2].va, n);
		dt = hltests_now_ns() - t0;
		if (dt >= 50000000ull || k == 128)
			break;
	}
	print_message("stream 2's work: %u fills, %.2f s\n", k, dt / 1e9);
	assert_true(dt >= 50000000ull && dt < 1000000000ull);

	for (round = 1; round <= 3; round++) {
		word = arb_quiet_round(st, cb, &h, k, &ask_s);
		print_message("round %d: stream 2 asked %.2f s after the FENCE opened; word 0x%x\n",
			      round, ask_s, word);
		if (ask_s < 1.0)
			break;
	}
	/* Not one round in which stream 2 asked in time */
	assert_true(ask_s < 1.0);
	assert_int_equal(word, 0x11);

	arb_unmap(st->fd, cb, 5, &h);
}

/*
 * Four streams of QA ask and give back the grant, job after job, with
 * priorities of their own (every fifth job ends holding it, and so does
 * each stream's last but one, its last asking nothing): each job
 * completes, none times out (the grant never stays with a job that ended,
 * nor a request). Without the release at a job's end, the streams whose
 * last but one waits behind another's time out.
 */
#define ARB_STRESS_JOBS	12

static void test_arbiter_four_streams_stress(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb[4], h, cfg;
	uint64_t seq[4][ARB_STRESS_JOBS], prng = 0x5eed;
	uint32_t s, j, n, prio;

	GAUDI_ONLY();
	arb_map(st->fd, cb, 4, &h);
	hltests_host_map(st->fd, &cfg, PAGE);
	memset(h.ptr, 0, 16);
	arb_set(st->fd, &cfg, ARB_PRIO);

	for (j = 0; j < ARB_STRESS_JOBS; j++) {
		for (s = 0; s < 4; s++) {
			uint8_t *p = cb[s].ptr + 64 * j;

			prio = (uint32_t)(hltests_prng(&prng) % 4);
			n = 0;
			if (j < ARB_STRESS_JOBS - 1)
				n += g_arb_point(p + n, prio, false);
			n += g_msg_long(p + n, h.va + 4 * s, j + 1);
			if (j % 5 != 4 && j < ARB_STRESS_JOBS - 2)
				n += g_arb_point(p + n, prio, true);
			seq[s][j] = hltests_submit_cb(st->fd, QA + s,
						      cb[s].va + 64 * j, n, 30);
		}
	}
	for (j = 0; j < ARB_STRESS_JOBS; j++)
		for (s = 0; s < 4; s++)
			assert_int_equal(wait_status(st->fd, seq[s][j],
						     60ull * 1000 * 1000),
					 HL_WAIT_CS_STATUS_COMPLETED);
	for (s = 0; s < 4; s++)
		assert_int_equal(rd32(h.ptr + 4 * s), ARB_STRESS_JOBS);

	hltests_host_unmap(st->fd, &cfg);
	arb_unmap(st->fd, cb, 4, &h);
}

/*
 * The device unbound while streams wait in ARB_POINT and FENCE: the
 * removal does not wait for the jobs' deadline; bound again, the next
 * owner finds the arbiter clean.
 */
static void test_arbiter_unbind_mid_wait(void **state)
{
	const char *drv = "/sys/bus/pci/drivers/habanalabs";
	struct hltests_state *st = *state;
	struct hltests_host_buf cb[4], h;
	char bdf[32], path[160];
	uint64_t t0, dt;
	int fd;

	GAUDI_ONLY();
	hlthunk_close(st->fd);
	st->fd = -1;
	assert_int_equal(hltests_pci_addr(0, bdf, sizeof(bdf)), 0);
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	arb_map(fd, cb, 4, &h);
	arb_leave_waiting(fd, cb, &h);
	t0 = hltests_now_ns();
	if (hltests_write_file(strcat(strcpy(path, drv), "/unbind"), bdf)) {
		print_message("cannot unbind %s: skipped\n", bdf);
		close(fd);
		skip();
	}
	dt = hltests_now_ns() - t0;
	print_message("unbind mid-ARB_POINT: %.2f s\n", dt / 1e9);
	assert_true(dt < 20000000000ull);
	close(fd);
	assert_int_equal(hltests_write_file(strcat(strcpy(path, drv), "/bind"),
					    bdf), 0);
	st->fd = hltests_open_node(0, 0);
	assert_true(st->fd >= 0);
	arb_next_owner_clean(st->fd);
}

/* LOAD_AND_EXE of the scalars (dst 1) with exe and etype */
static uint32_t g_load_scalars(uint8_t *p, uint64_t src, bool load, bool exe,
			       bool upper)
{
	g_hdr(p, (load ? 1u << 8 | 1u : 0) | (exe ? 1u << 9 : 0) |
		 (upper ? 1u << 10 : 0), g_ctl(G_LOAD_AND_EXE, G_RB));
	put64(p + 8, src);
	return 16;
}

/*
 * LOAD_AND_EXE loads the scalar registers R0..R3 (16 bytes) and executes
 * the packet they hold: etype 0 a MSG_LONG (16 bytes) from R0, in the
 * same packet as the load or in a later one; etype 1 a MSG_SHORT from R2
 * (the upper two). Negative controls: etype 1 when the MSG_SHORT sits in
 * R0 (R2..R3 are 0: malformed), exe in a new job without a load (its
 * scalars start at 0), and a CP_DMA in the scalars (malformed): each
 * aborts before its marker.
 */
static void test_load_and_exe_scalars(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h, rf, sub;
	uint32_t n, i;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	hltests_host_map(st->fd, &rf, PAGE);
	hltests_host_map(st->fd, &sub, PAGE);

	/* etype 0: a MSG_LONG from R0, loaded and executed at once, then apart */
	for (i = 0; i <= 1; i++) {
		memset(h.ptr, 0, 16);
		g_msg_long(rf.ptr, h.va, 0x5ca1a0 + i);
		n = g_load_scalars(cb.ptr, rf.va, true, !i, false);
		if (i)
			n += g_load_scalars(cb.ptr + n, 0, false, true, false);
		n += g_msg_long(cb.ptr + n, h.va + 4, 0xe0d);
		hltests_run_cb_ok(st->fd, QA, cb.va, n);
		assert_int_equal(rd32(h.ptr), 0x5ca1a0 + i);
		assert_int_equal(rd32(h.ptr + 4), 0xe0d);
	}

	/* etype 1: a MSG_SHORT in R2..R3 sets a SOB, seen by a FENCE */
	memset(rf.ptr, 0, 16);
	g_sob(rf.ptr + 8, T_SOB + 2, 1, false);
	memset(h.ptr, 0, 16);
	h.ptr[0] = 0x44;
	n = 0;
	n += g_sob(cb.ptr + n, T_SOB + 2, 0, false);
	n += g_monitor(cb.ptr + n, T_MON + 2, T_SOB + 2, 1,
		       hltests_gaudi_fence_reg(QA, 0, 2), 1);
	n += g_load_scalars(cb.ptr + n, rf.va, true, true, true);
	n += g_fence(cb.ptr + n, 2, 1, 1);
	n += g_lin_dma(cb.ptr + n, h.va, h.va + 8, 1, false);
	hltests_run_cb_ok(st->fd, QA, cb.va, n);
	assert_int_equal(h.ptr[8], 0x44);

	/* etype 1 with the MSG_SHORT in R0: R2..R3 hold no packet */
	memset(rf.ptr, 0, 16);
	g_sob(rf.ptr, T_SOB + 2, 1, false);
	n = g_load_scalars(cb.ptr, rf.va, true, true, true);
	n += g_msg_long(cb.ptr + n, h.va + 12, 0xbad);
	hltests_run_cb_aborted(st->fd, QA, cb.va, n);
	assert_int_equal(rd32(h.ptr + 12), 0);

	/* A new job's scalars are 0: exe alone is malformed */
	n = g_load_scalars(cb.ptr, 0, false, true, false);
	n += g_msg_long(cb.ptr + n, h.va + 12, 0xbad);
	hltests_run_cb_aborted(st->fd, QA, cb.va, n);
	assert_int_equal(rd32(h.ptr + 12), 0);

	/* A CP_DMA in the scalars: malformed, its CB never runs */
	g_msg_long(sub.ptr, h.va + 12, 0xbad);
	g_cp_dma(rf.ptr, sub.va, 16);
	n = g_load_scalars(cb.ptr, rf.va, true, true, false);
	hltests_run_cb_aborted(st->fd, QA, cb.va, n);
	assert_int_equal(rd32(h.ptr + 12), 0);

	hltests_host_unmap(st->fd, &sub);
	hltests_host_unmap(st->fd, &rf);
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/* debugfs's data32 of device 0 at @addr (upstream's names) */
static uint32_t dbg_read32(uint64_t addr)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
	assert_int_equal(hltests_write_file("/sys/kernel/debug/habanalabs/hl0/addr",
					    buf), 0);
	assert_int_equal(hltests_read_file("/sys/kernel/debug/habanalabs/hl0/data32",
					   buf, sizeof(buf)), 0);
	return (uint32_t)strtoul(buf, NULL, 16);
}

/* W_S SOB @sob's address (base 3's reset value + 4 * @sob) */
#define WS_SOB(sob)	(HL_SM_WS_SOB_OBJ_0 + 4ull * (sob))

/*
 * LOAD_AND_EXE executes one packet of the scalars, also when that packet
 * is skipped by its predicate: with R0..R1 a FENCE on P10 (clear, so
 * skipped) and R2..R3 a MSG_SHORT that sets SOB T_SOB + 3 to 1, an exe of
 * etype 0 leaves the SOB at 0 (the packet in R2 is no packet of its). The
 * control: etype 1 runs that MSG_SHORT from R2, and the SOB reads 1.
 */
static void test_load_and_exe_skipped_packet_is_the_one(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, rf;
	uint32_t n, upper;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &rf, PAGE);

	memset(rf.ptr, 0, 16);
	g_fence(rf.ptr, 3, 1, 1);
	put32(rf.ptr + 4, g_ctl(G_FENCE, G_RB | G_MB | 10));
	g_sob(rf.ptr + 8, T_SOB + 3, 1, false);
	for (upper = 0; upper <= 1; upper++) {
		n = g_sob(cb.ptr, T_SOB + 3, 0, false);
		n += g_load_scalars(cb.ptr + n, rf.va, true, true, upper);
		hltests_run_cb_ok(st->fd, QA, cb.va, n);
		assert_int_equal(dbg_read32(HL_SM_SOB_ADDR(T_SOB + 3)), upper);
	}

	hltests_host_unmap(st->fd, &rf);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * A LOAD_AND_EXE in a CP_DMA'd CB runs its packet on the lower CP, as the
 * CB's own packets: a WAIT executed from the scalars (etype 1, R2) feeds
 * the lower CP's fence 0, which the CB's next FENCE waits for. The control:
 * the same WAIT as a packet of the CB. A WAIT that went to the queue's own
 * fence 0 would leave the FENCE waiting (aborted at its 1 s timeout).
 */
static void test_load_and_exe_on_lower_cp(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, sub, rf, h;
	uint32_t n, m, lae;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &sub, PAGE);
	hltests_host_map(st->fd, &rf, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	memset(rf.ptr, 0, 16);
	g_wait(rf.ptr + 8, 0, 1, 0);
	h.ptr[0] = 0x77;
	for (lae = 0; lae <= 1; lae++) {
		m = lae ? g_load_scalars(sub.ptr, rf.va, true, true, true) :
			  g_wait(sub.ptr, 0, 1, 0);
		m += g_fence(sub.ptr + m, 0, 1, 1);
		n = g_cp_dma(cb.ptr, sub.va, m);
		n += g_lin_dma(cb.ptr + n, h.va, h.va + 8 + lae, 1, false);
		assert_int_equal(run_timeout(st->fd, QA, cb.va, n, 1),
				 HL_WAIT_CS_STATUS_COMPLETED);
		assert_int_equal(h.ptr[8 + lae], 0x77);
	}
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &rf);
	hltests_host_unmap(st->fd, &sub);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * What one owner leaves in the registers this model added (a W_S SOB, the
 * lower CP's fence counter and message base, a TPC queue's fence counter,
 * the arbiter's registers) is there for itself (the control, through
 * packets and through debugfs) and reset for the device's next owner.
 */
static void leave_new_registers(int fd, const struct hltests_host_buf *cb)
{
	uint64_t qm = hltests_gaudi_qm(QA);
	uint32_t n = 0;

	n += g_msg_short(cb->ptr + n, 3, T_SOB * 4, 5);
	n += g_msg_long(cb->ptr + n,
			hltests_gaudi_fence_reg(QA, HLTESTS_GAUDI_LOWER_CP, 0), 3);
	n += g_msg_long(cb->ptr + n,
			hltests_gaudi_fence_reg(GAUDI_QUEUE_ID_TPC_0_0, 0, 2), 3);
	n += g_msg_long(cb->ptr + n,
			hltests_gaudi_msg_base_reg(QA, HLTESTS_GAUDI_LOWER_CP, 1),
			(uint32_t)WS_SOB(0));
	n += g_msg_long(cb->ptr + n, qm + 0xa00, 0x111);
	n += g_msg_long(cb->ptr + n, qm + 0xa08, 7);
	hltests_run_cb_ok(fd, QA, cb->va, n);
}

static void probe_new_registers(int fd, const struct hltests_host_buf *cb,
				const struct hltests_host_buf *sub, bool left)
{
	uint64_t qm = hltests_gaudi_qm(QA);
	uint32_t n, m, want;

	assert_int_equal(dbg_read32(WS_SOB(T_SOB)), left ? 5 : 0);
	assert_int_equal(dbg_read32(qm + 0xa00), left ? 0x111 : 0);
	assert_int_equal(dbg_read32(qm + 0xa08), left ? 7 : 0);
	want = left ? (uint32_t)WS_SOB(0) : (uint32_t)HL_SM_SOB_OBJ_0;
	assert_int_equal(dbg_read32(hltests_gaudi_msg_base_reg(QA,
					HLTESTS_GAUDI_LOWER_CP, 1)), want);
	assert_int_equal(dbg_read32(hltests_gaudi_fence_reg(QA,
					HLTESTS_GAUDI_LOWER_CP, 0)),
			 left ? 3 : 0);

	/* The lower CP's fence 0: 3 left, taken by a nested FENCE */
	m = g_fence(sub->ptr, 0, 3, 3);
	n = g_cp_dma(cb->ptr, sub->va, m);
	assert_int_equal(run_timeout(fd, QA, cb->va, n, 1),
			 left ? HL_WAIT_CS_STATUS_COMPLETED :
				HL_WAIT_CS_STATUS_TIMEDOUT);
	/* TPC 0's fence 2: 3 left */
	n = g_fence(cb->ptr, 2, 3, 3);
	assert_int_equal(run_timeout(fd, GAUDI_QUEUE_ID_TPC_0_0, cb->va, n, 1),
			 left ? HL_WAIT_CS_STATUS_COMPLETED :
				HL_WAIT_CS_STATUS_TIMEDOUT);
	/* W_S SOB T_SOB is 5: a W_S monitor of == 5 fires */
	n = g_ws_monitor(cb->ptr, T_MON, T_SOB, 5,
			 hltests_gaudi_fence_reg(QA, 0, 1), 1);
	put32(cb->ptr + n - 8, mon_arm(T_SOB, true, 5));
	n += g_fence(cb->ptr + n, 1, 1, 1);
	assert_int_equal(run_timeout(fd, QA, cb->va, n, 1),
			 left ? HL_WAIT_CS_STATUS_COMPLETED :
				HL_WAIT_CS_STATUS_TIMEDOUT);
}

static void test_new_registers_reset_for_next_owner(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, sub;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &sub, PAGE);
	leave_new_registers(st->fd, &cb);
	probe_new_registers(st->fd, &cb, &sub, true);
	leave_new_registers(st->fd, &cb);
	hltests_host_unmap(st->fd, &sub);
	hltests_host_unmap(st->fd, &cb);

	hlthunk_close(st->fd);
	st->fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, NULL);
	assert_true(st->fd >= 0);
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &sub, PAGE);
	probe_new_registers(st->fd, &cb, &sub, false);
	hltests_host_unmap(st->fd, &sub);
	hltests_host_unmap(st->fd, &cb);
}

/* REDUCE, the extension at 0x14, runs the same engine as asic=emu's */
static void test_reduce_extension(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h;
	int32_t a[5] = { 1, -2, 300, 0x7fffffff, 9 };
	int32_t b[5] = { 10, 20, -30, 1, 9 };
	int32_t r[5];
	uint32_t n, i;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	memcpy(h.ptr, a, sizeof(a));
	memcpy(h.ptr + 64, b, sizeof(b));
	/* Four elements: the fifth stays */
	n = g_reduce(cb.ptr, h.va + 64, h.va, 4, HL_REDUCE_DTYPE_I32,
		     HL_REDUCE_OP_SUM);
	hltests_run_cb_ok(st->fd, QA, cb.va, n);
	memcpy(r, h.ptr, sizeof(r));
	for (i = 0; i < 4; i++)
		assert_int_equal(r[i], (int32_t)((uint32_t)a[i] + (uint32_t)b[i]));
	assert_int_equal(r[4], 9);

	/* Its reserved ctl bits are checked as every packet's */
	put32(cb.ptr + 4, g_ctl(HL_GAUDI_PKT_REDUCE, 1u << 8));
	hltests_run_cb_aborted(st->fd, QA, cb.va, n);

	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/* The driver's SIGNAL and WAIT kernel CBs run in GAUDI's format too */
static void test_signal_wait_in_gaudi_format(void **state)
{
	struct hltests_state *st = *state;
	struct hlthunk_wait_for_signal_data wd;
	struct hlthunk_signal_in sin;
	struct hlthunk_signal_out sout;
	struct hlthunk_wait_in win;
	struct hlthunk_wait_out wout;
	struct hlthunk_sync_manager_info sm;
	uint64_t sig_seq;
	uint32_t status;

	GAUDI_ONLY();
	assert_int_equal(hlthunk_get_sync_manager_info(st->fd,
						       HL_GAUDI_WS_DCORE, &sm),
			 0);
	assert_true(sm.first_available_sync_object <= T_SOB);
	assert_true(sm.first_available_monitor <= T_MON);

	memset(&sin, 0, sizeof(sin));
	sin.queue_index = 0;
	assert_int_equal(hlthunk_signal_submission(st->fd, &sin, &sout), 0);
	sig_seq = sout.seq;
	memset(&wd, 0, sizeof(wd));
	wd.signal_seq_arr = &sig_seq;
	wd.signal_seq_nr = 1;
	wd.queue_index = 1;
	memset(&win, 0, sizeof(win));
	win.hlthunk_wait_for_signal = (uint64_t *)&wd;
	win.num_wait_for_signal = 1;
	assert_int_equal(hlthunk_wait_for_signal(st->fd, &win, &wout), 0);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, sig_seq,
					     30ull * 1000 * 1000, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	if (wout.seq != UINT64_MAX) {
		assert_int_equal(hlthunk_wait_for_cs(st->fd, wout.seq,
						     30ull * 1000 * 1000,
						     &status), 0);
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	}
}

/*
 * GAUDI's DMA cores' registers, offsets in the core's block: the block of
 * the engine of a DMA queue (WREG_32's base there). Each TSIZE_<d>
 * (d = 1..4) is followed by its STRIDE_<d>.
 */
#define DC_SRC_BASE_LO	0x14
#define DC_DST_BASE_LO	0x1c
#define DC_SRC_TSIZE_1	0x2c
#define DC_SRC_TSIZE_0	0x4c
#define DC_DST_TSIZE_1	0x54
#define DC_DST_TSIZE_0	0x74
#define DC_COMMIT	0x78
#define DC_WR_COMP_WDATA 0x7c
#define DC_WR_COMP_ADDR_LO 0x80
#define DC_COMMIT_WR_COMP (1u << 0)
#define DC_COMMIT_TRANSPOSE (1u << 1)
#define DC_COMMIT_LIN	(1u << 3)

static uint32_t g_wreg64(uint8_t *p, uint16_t off, uint64_t value)
{
	uint32_t n = g_wreg32(p, off, (uint32_t)value);

	return n + g_wreg32(p + n, off + 4, (uint32_t)(value >> 32));
}

/* A strided transfer: @sn[d] lines @ss[d] bytes apart per dimension d */
static uint32_t g_dma_core(uint8_t *p, uint64_t src, uint64_t dst,
			   uint32_t line, const uint32_t *sn,
			   const uint32_t *ss, const uint32_t *dn,
			   const uint32_t *ds, uint64_t comp_addr,
			   uint32_t comp_data, uint32_t commit)
{
	uint32_t n = 0, d;

	n += g_wreg64(p + n, DC_SRC_BASE_LO, src);
	n += g_wreg64(p + n, DC_DST_BASE_LO, dst);
	for (d = 0; d < 4; d++) {
		n += g_wreg32(p + n, DC_SRC_TSIZE_1 + 8 * d, sn[d]);
		n += g_wreg32(p + n, DC_SRC_TSIZE_1 + 8 * d + 4, ss[d]);
		n += g_wreg32(p + n, DC_DST_TSIZE_1 + 8 * d, dn[d]);
		n += g_wreg32(p + n, DC_DST_TSIZE_1 + 8 * d + 4, ds[d]);
	}
	n += g_wreg32(p + n, DC_SRC_TSIZE_0, line);
	n += g_wreg32(p + n, DC_DST_TSIZE_0, line);
	n += g_wreg64(p + n, DC_WR_COMP_ADDR_LO, comp_addr);
	n += g_wreg32(p + n, DC_WR_COMP_WDATA, comp_data);
	n += g_wreg32(p + n, DC_COMMIT, commit);
	return n;
}

/*
 * The DMA core of a DMA queue's engine, programmed with WREG_32 and
 * started by COMMIT (hl-thunk-open's test_strided_dma): source lines of
 * 100 bytes in two dimensions (3 x 128 bytes apart, 2 x 512) land as six
 * lines 200 bytes apart, and the write completion writes its word; with
 * LIN, one line; transpose (not modelled) or sides that disagree on their
 * number of lines abort the job with nothing copied.
 */
static void test_dma_core_strided_transfer(void **state)
{
	static const uint32_t sn[4] = { 3, 2, 1, 0 }, ss[4] = { 128, 512, 0, 0 };
	static const uint32_t dn[4] = { 6, 1, 1, 1 }, ds[4] = { 200, 0, 0, 0 };
	static const uint32_t bad_dn[4] = { 5, 1, 1, 1 };
	struct hltests_host_buf cb, src, dst, flag, gone;
	struct hltests_state *st = *state;
	uint64_t prng = SEED;
	struct timespec ts;
	uint32_t n, j, b;
	int64_t t0;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &src, PAGE);
	hltests_host_map(st->fd, &dst, 2 * PAGE);
	hltests_host_map(st->fd, &flag, PAGE);
	hltests_fill_random(&prng, src.ptr, PAGE);

	n = g_dma_core(cb.ptr, src.va, dst.va, 100, sn, ss, dn, ds, flag.va,
		       0xd0e50001, DC_COMMIT_WR_COMP);
	hltests_run_cb_ok(st->fd, QA, cb.va, n);
	for (j = 0; j < 6; j++) {
		hltests_assert_bytes_equal(dst.ptr + 200 * j,
					   src.ptr + 128 * (j % 3) + 512 * (j / 3),
					   100, "strided line");
		for (b = 100; b < 200; b++)
			assert_int_equal(dst.ptr[200 * j + b], 0);
	}
	assert_int_equal(*(volatile uint32_t *)flag.ptr, 0xd0e50001);

	/* LIN: one line of TSIZE_0 bytes; no write completion asked */
	memset(dst.ptr, 0, 2 * PAGE);
	n = g_dma_core(cb.ptr, src.va + 7, dst.va + 3, 1000, sn, ss, dn, ds,
		       flag.va, 0xd0e50002, DC_COMMIT_LIN);
	hltests_run_cb_ok(st->fd, QA, cb.va, n);
	hltests_assert_bytes_equal(dst.ptr + 3, src.ptr + 7, 1000, "LIN");
	assert_int_equal(dst.ptr[2], 0);
	assert_int_equal(dst.ptr[1003], 0);
	assert_int_equal(*(volatile uint32_t *)flag.ptr, 0xd0e50001);

	/* Not modelled, or sides that disagree: aborted, nothing moved */
	memset(dst.ptr, 0, 2 * PAGE);
	n = g_dma_core(cb.ptr, src.va, dst.va, 100, sn, ss, dn, ds, flag.va,
		       0xd0e50003, DC_COMMIT_WR_COMP | DC_COMMIT_TRANSPOSE);
	hltests_run_cb_aborted(st->fd, QA, cb.va, n);
	n = g_dma_core(cb.ptr, src.va, dst.va, 100, sn, ss, bad_dn, ds,
		       flag.va, 0xd0e50004, DC_COMMIT_WR_COMP);
	hltests_run_cb_aborted(st->fd, QA, cb.va, n);
	for (j = 0; j < 2 * PAGE; j++)
		assert_int_equal(dst.ptr[j], 0);
	assert_int_equal(*(volatile uint32_t *)flag.ptr, 0xd0e50001);

	/*
	 * To a VA no longer mapped: the fault is an event, as LIN_DMA's
	 * (gaudi_mem's test_dma_fault_is_an_event): recorded at the first
	 * line, the transfer ends, its write completion still comes and the
	 * CS completes
	 */
	hltests_host_map(st->fd, &gone, PAGE);
	hltests_host_unmap(st->fd, &gone);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	n = g_dma_core(cb.ptr, src.va, gone.va, 100, sn, ss, dn, ds, flag.va,
		       0xd0e50005, DC_COMMIT_WR_COMP);
	hltests_run_cb_ok(st->fd, QA, cb.va, n);
	hltests_assert_fault_at(st->fd, t0, gone.va, QA, 1);
	assert_int_equal(*(volatile uint32_t *)flag.ptr, 0xd0e50005);

	hltests_host_unmap(st->fd, &flag);
	hltests_host_unmap(st->fd, &dst);
	hltests_host_unmap(st->fd, &src);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * Hostile review of 905b0c7, the boundary of "a DMA engine's fault is an
 * event": a LIN_DMA that faults inside a CP_DMA'd CB is an event too (the
 * nested CB goes on, then the outer one, the CS completes); every other
 * fault still aborts the job and runs nothing after it: CP_DMA's fetch of
 * its CB, LOAD_AND_EXE's load, a MSG_LONG's write, the REDUCE extension,
 * and a DMA core's write completion after its transfer faulted. Each
 * fault is recorded where it happened.
 */
static void test_which_faults_are_events(void **state)
{
	static const uint32_t one[4] = { 1, 1, 1, 1 }, zero[4] = { 0 };
	struct hltests_host_buf cb, sub, h, gone;
	struct hltests_state *st = *state;
	struct timespec ts;
	uint32_t n, ns;
	int64_t t0;

	GAUDI_ONLY();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &sub, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	hltests_host_map(st->fd, &gone, PAGE);
	hltests_host_unmap(st->fd, &gone);

#define FAULT_T0() do {							\
		clock_gettime(CLOCK_MONOTONIC, &ts);			\
		t0 = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;	\
		memset(h.ptr, 0, 64);					\
	} while (0)

	/* A CP_DMA'd LIN_DMA's fault: an event */
	FAULT_T0();
	ns = g_lin_dma(sub.ptr, gone.va, h.va + 32, 16, false);
	ns += g_msg_long(sub.ptr + ns, h.va, 0x11111111);
	n = g_cp_dma(cb.ptr, sub.va, ns);
	n += g_msg_long(cb.ptr + n, h.va + 4, 0x22222222);
	hltests_run_cb_ok(st->fd, QA, cb.va, n);
	hltests_assert_fault_at(st->fd, t0, gone.va, QA, 0);
	assert_int_equal(rd32(h.ptr), 0x11111111);
	assert_int_equal(rd32(h.ptr + 4), 0x22222222);
	assert_int_equal(rd32(h.ptr + 32), 0);

	/* CP_DMA's fetch of its CB: aborts */
	FAULT_T0();
	n = g_cp_dma(cb.ptr, gone.va, 64);
	n += g_msg_long(cb.ptr + n, h.va, 0x33333333);
	hltests_run_cb_aborted(st->fd, QA, cb.va, n);
	hltests_assert_fault_at(st->fd, t0, gone.va, QA, 0);
	assert_int_equal(rd32(h.ptr), 0);

	/* LOAD_AND_EXE's load: aborts */
	FAULT_T0();
	n = g_load_and_exe(cb.ptr, gone.va + 8);
	n += g_msg_long(cb.ptr + n, h.va, 0x44444444);
	hltests_run_cb_aborted(st->fd, QA, cb.va, n);
	hltests_assert_fault_at(st->fd, t0, gone.va + 8, QA, 0);
	assert_int_equal(rd32(h.ptr), 0);

	/* A MSG_LONG's write: aborts */
	FAULT_T0();
	n = g_msg_long(cb.ptr, gone.va + 16, 1);
	n += g_msg_long(cb.ptr + n, h.va, 0x55555555);
	hltests_run_cb_aborted(st->fd, QA, cb.va, n);
	hltests_assert_fault_at(st->fd, t0, gone.va + 16, QA, 1);
	assert_int_equal(rd32(h.ptr), 0);

	/* The REDUCE extension: aborts */
	FAULT_T0();
	n = g_reduce(cb.ptr, gone.va + 24, h.va + 32, 4, HL_REDUCE_DTYPE_I32,
		     HL_REDUCE_OP_SUM);
	n += g_msg_long(cb.ptr + n, h.va, 0x66666666);
	hltests_run_cb_aborted(st->fd, QA, cb.va, n);
	hltests_assert_fault_at(st->fd, t0, gone.va + 24, QA, 0);
	assert_int_equal(rd32(h.ptr), 0);

	/* A DMA core whose transfer faults, then its write completion: aborts */
	FAULT_T0();
	n = g_dma_core(cb.ptr, h.va + 32, gone.va, 16, one, zero, one, zero,
		       gone.va + 40, 0xd0e50009, DC_COMMIT_WR_COMP);
	n += g_msg_long(cb.ptr + n, h.va, 0x77777777);
	hltests_run_cb_aborted(st->fd, QA, cb.va, n);
	hltests_assert_fault_at(st->fd, t0, gone.va + 40, QA, 1);
	assert_int_equal(rd32(h.ptr), 0);
#undef FAULT_T0

	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &sub);
	hltests_host_unmap(st->fd, &cb);
}

#define T(f) cmocka_unit_test_setup_teardown(f, hltests_setup, hltests_teardown)

static const struct CMUnitTest gaudi_pkt_tests[] = {
	cmocka_unit_test(test_golden_layouts),
	T(test_lin_dma_copies_and_fills),
	T(test_msg_long_value_and_timestamp),
	T(test_msg_short_moves_sobs),
	T(test_fence_stalls_until_monitor_fires),
	T(test_cp_dma_nests),
	T(test_stop_ends_the_cb),
	T(test_wreg_reaches_modelled_registers_only),
	T(test_wait_feeds_the_fence),
	T(test_malformed_and_not_modelled_abort),
	T(test_load_and_exe_predicates),
	T(test_fences_at_gaudi_addresses),
	T(test_ws_block_sobs_and_monitors),
	T(test_lower_cp_fences),
	T(test_arbiter_registers),
	T(test_arbiter_grant_is_exclusive),
	T(test_arbiter_grants_by_priority),
	T(test_arbiter_grant_ends_with_the_job),
	T(test_arbiter_switched_off_mid_wait),
	T(test_arbiter_lower_cp_waits),
	T(test_arbiter_quiet_with_fence_waiters),
	T(test_arbiter_quiet_period_from_the_last_grant),
	T(test_arbiter_teardown_mid_wait),
	T(test_arbiter_four_streams_stress),
	T(test_load_and_exe_scalars),
	T(test_load_and_exe_skipped_packet_is_the_one),
	T(test_load_and_exe_on_lower_cp),
	T(test_new_registers_reset_for_next_owner),
	T(test_reduce_extension),
	T(test_signal_wait_in_gaudi_format),
	T(test_dma_core_strided_transfer),
	T(test_which_faults_are_events),
	/* Last: it unbinds and binds the device again */
	T(test_arbiter_unbind_mid_wait),
};

int main(void)
{
	return HLTESTS_RUN("gaudi_pkt", gaudi_pkt_tests);
}

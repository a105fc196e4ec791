// SPDX-License-Identifier: MIT
/*
 * reduce: the REDUCE packet (struct hl_pkt_reduce), float32 sum on the
 * device's engine through the device MMU. Every result is compared bit for
 * bit with the host's float addition in the same order: random floats,
 * odd counts, operands in DRAM and in host memory at offsets that cut the
 * chunks differently, counts crossing 2 MiB DRAM pages, chains of packets,
 * src == dst, and every pair of a table of special values (zeros,
 * subnormals, overflow, cancellation, infinities, NaNs). Malformed packets
 * (misaligned, count 0, unknown dtype or op) abort the CS without an MMU
 * fault; unmapped operands fault at the right VA with the chunks before
 * the fault written. The other types and operations (bfloat16, float16,
 * int32; min, max): every pair of each type's special values (zeros,
 * subnormals, ties, overflow, infinities, NaNs) and random elements against
 * the host (16-bit floats rounded by the host's own conversions), a few
 * results spelled out, and a negative control: the host rounding toward
 * zero instead differs from the engine. Products (HL_REDUCE_OP_PROD) and
 * quotients by an integer (HL_REDUCE_OP_DIV_BY(n), an average's last step)
 * of every type the same way, against the exact result (in double) rounded
 * once by the host, with a negative control each (truncation for the
 * floats; saturation, floor division for int32).
 *
 * The host arithmetic is the C float sum, with NaN results spelled out by
 * the documented rule (the guest's FPU is QEMU's, whose NaN choice is not
 * silicon's); f32_add_check.c compares the engine's code with a real FPU,
 * NaN payloads included, far more widely, on the host.
 */
#include "hltests.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KB		1024ull
#define MB		(1024ull * KB)
#define PAGE		4096ull
#define WAIT_US		(300ull * 1000 * 1000)
#define SEED		0x5eedf32add5eed01ull

static uint64_t prng_state = SEED;

/* ------------------------------------------------------------------------
 * Helpers
 */

static uint32_t f2u(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static float u2f(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static int is_nan(uint32_t x)
{
	return (x & 0x7fffffffu) > 0x7f800000u;
}

/*
 * The host's dst + src. A NaN result is the one struct hl_pkt_reduce
 * documents (silicon x86-64's addss with dst first; f32_add_check compares
 * that with the real FPU), not the guest FPU's: QEMU's TCG emulation of
 * SSE picks between two NaNs by significand, as the x87 does.
 */
static uint32_t host_add(uint32_t dst, uint32_t src)
{
	float r = u2f(dst) + u2f(src);

	if (!is_nan(f2u(r)))
		return f2u(r);
	if (is_nan(dst))
		return dst | 0x00400000u;
	if (is_nan(src))
		return src | 0x00400000u;
	return 0xffc00000u;
}

/*
 * Random floats like real data: mostly within 2^-12 .. 2^12 of either sign
 * (so that sums round, cancel and tie), some of any finite magnitude.
 */
static uint32_t random_float(void)
{
	uint64_t r = hltests_prng(&prng_state);
	uint32_t exp;

	if (r % 8)
		exp = 127 - 12 + (uint32_t)((r >> 8) % 25);
	else
		exp = (uint32_t)((r >> 8) % 255);
	return ((uint32_t)(r >> 32) & 0x807fffffu) | (exp << 23);
}

static void fill_floats(uint32_t *p, uint64_t count)
{
	uint64_t i;

	for (i = 0; i < count; i++)
		p[i] = random_float();
}

/* Fail at the first element that is not the host's sum, saying where */
static void assert_sums(const uint32_t *found, const uint32_t *dst,
			const uint32_t *src, uint64_t count, const char *what)
{
	uint64_t i;
	uint32_t want;

	for (i = 0; i < count; i++) {
		want = host_add(dst[i], src[i]);
		if (found[i] == want)
			continue;
		print_error("%s: element %" PRIu64 " of %" PRIu64
			    ": 0x%08x + 0x%08x = 0x%08x (%a), host 0x%08x (%a)\n",
			    what, i, count, dst[i], src[i], found[i],
			    (double)u2f(found[i]), want, (double)u2f(want));
		fail();
	}
}

/* One REDUCE (f32 sum) of @count elements in its own CB on @queue */
static void reduce_ok(int fd, uint32_t queue, uint64_t src, uint64_t dst,
		      uint32_t count)
{
	struct hltests_host_buf cb;
	uint32_t len;

	hltests_host_map(fd, &cb, PAGE);
	len = hlthunk_pkt_reduce(cb.ptr, src, dst, count, HL_REDUCE_DTYPE_F32,
				 HL_REDUCE_OP_SUM);
	assert_int_equal(len, HLTHUNK_PKT_REDUCE_SIZE);
	hltests_run_cb_ok(fd, queue, cb.va, len);
	hltests_host_unmap(fd, &cb);
}

/*
 * DRAM operands at byte offsets @soff and @doff of their allocations:
 * random floats, one REDUCE, the result read back and compared.
 */
static void reduce_dram_case(int fd, uint32_t queue, uint64_t count,
			     uint64_t soff, uint64_t doff)
{
	uint64_t bytes = count * 4;
	struct hltests_dram_buf s, d;
	uint32_t *src, *dst, *res;
	char what[96];

	src = malloc(bytes);
	dst = malloc(bytes);
	res = malloc(bytes);
	assert_non_null(src);
	assert_non_null(dst);
	assert_non_null(res);
	fill_floats(src, count);
	fill_floats(dst, count);

	hltests_dram_map(fd, &s, soff + bytes, false);
	hltests_dram_map(fd, &d, doff + bytes, false);
	hltests_write_device(fd, s.va + soff, src, bytes);
	hltests_write_device(fd, d.va + doff, dst, bytes);

	reduce_ok(fd, queue, s.va + soff, d.va + doff, (uint32_t)count);

	hltests_read_device(fd, d.va + doff, res, bytes);
	snprintf(what, sizeof(what), "count %" PRIu64 ", src +%" PRIu64
		 ", dst +%" PRIu64, count, soff, doff);
	assert_sums(res, dst, src, count, what);

	/* The source is untouched */
	hltests_read_device(fd, s.va + soff, res, bytes);
	hltests_assert_bytes_equal((uint8_t *)res, (uint8_t *)src, bytes,
				   "source after the reduce");

	hltests_dram_unmap(fd, &d);
	hltests_dram_unmap(fd, &s);
	free(res);
	free(dst);
	free(src);
}

/* ------------------------------------------------------------------------
 * Results
 */

static void test_random_floats_odd_counts(void **state)
{
	struct hltests_state *st = *state;
	static const uint64_t counts[] = { 1, 2, 3, 7, 255, 1023, 1025, 4099 };
	size_t i;

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		reduce_dram_case(st->fd, (uint32_t)(i % st->hw_ip.num_queues),
				 counts[i], 0, 0);
}

static void test_offsets_cut_chunks_differently(void **state)
{
	struct hltests_state *st = *state;

	/* src and dst at different 4 KiB phases, so chunks end at both */
	reduce_dram_case(st->fd, 0, 3001, 4, 4096 - 12);
	reduce_dram_case(st->fd, 1, 5 * 1024 + 3, 2048 + 8, 100 * 4);
	reduce_dram_case(st->fd, 2, 1, 4096 - 4, 4096 - 4);
}

static void test_large_count_crosses_dram_pages(void **state)
{
	struct hltests_state *st = *state;

	/*
	 * 2 MiB + 3 elements from 4 KiB + 8 bytes before the end of a DRAM
	 * page: crosses two 2 MiB pages of each buffer, at different
	 * phases.
	 */
	reduce_dram_case(st->fd, 3, (2 * MB + 12) / 4 + 3,
			 2 * MB - 4096 - 8, 2 * MB - 4);
}

static void test_host_memory_operands(void **state)
{
	struct hltests_state *st = *state;
	const uint64_t count = 2 * 1024 + 5;
	struct hltests_host_buf hs, hd, cb;
	uint32_t *src, *dst, *expect_dst;
	struct hltests_dram_buf d;
	uint32_t len;

	/* Host src + host dst, at odd offsets within their pages */
	hltests_host_map(st->fd, &hs, 4 * PAGE);
	hltests_host_map(st->fd, &hd, 4 * PAGE);
	src = (uint32_t *)(hs.ptr + 36);
	dst = (uint32_t *)(hd.ptr + PAGE - 20);
	expect_dst = malloc(count * 4);
	assert_non_null(expect_dst);
	fill_floats(src, count);
	fill_floats(dst, count);
	memcpy(expect_dst, dst, count * 4);

	hltests_host_map(st->fd, &cb, PAGE);
	len = hlthunk_pkt_reduce(cb.ptr, hs.va + 36, hd.va + PAGE - 20,
				 (uint32_t)count, HL_REDUCE_DTYPE_F32,
				 HL_REDUCE_OP_SUM);
	hltests_run_cb_ok(st->fd, 1, cb.va, len);
	assert_sums(dst, expect_dst, src, count, "host + host");

	/* Host src into a DRAM dst */
	hltests_dram_map(st->fd, &d, count * 4, false);
	hltests_write_device(st->fd, d.va, expect_dst, count * 4);
	len = hlthunk_pkt_reduce(cb.ptr, hs.va + 36, d.va, (uint32_t)count,
				 HL_REDUCE_DTYPE_F32, HL_REDUCE_OP_SUM);
	hltests_run_cb_ok(st->fd, 2, cb.va, len);
	hltests_read_device(st->fd, d.va, dst, count * 4);
	assert_sums(dst, expect_dst, src, count, "host into DRAM");

	hltests_dram_unmap(st->fd, &d);
	hltests_host_unmap(st->fd, &cb);
	hltests_host_unmap(st->fd, &hd);
	hltests_host_unmap(st->fd, &hs);
	free(expect_dst);
}

static void test_chain_in_order(void **state)
{
	struct hltests_state *st = *state;
	const uint64_t count = 777, n_src = 4;
	struct hltests_host_buf h, cb;
	uint32_t *acc, *srcs, *res;
	uint64_t i, k;
	uint8_t *p;

	/* dst = (((dst + s0) + s1) + s2) + s3, packets in one CB */
	hltests_host_map(st->fd, &h, (n_src + 1) * count * 4);
	srcs = (uint32_t *)h.ptr;
	res = srcs + n_src * count;
	fill_floats(srcs, (n_src + 1) * count);
	acc = malloc(count * 4);
	assert_non_null(acc);
	memcpy(acc, res, count * 4);
	for (k = 0; k < n_src; k++)
		for (i = 0; i < count; i++)
			acc[i] = f2u(u2f(acc[i]) + u2f(srcs[k * count + i]));

	hltests_host_map(st->fd, &cb, PAGE);
	p = cb.ptr;
	for (k = 0; k < n_src; k++)
		p += hlthunk_pkt_reduce(p, h.va + k * count * 4,
					h.va + n_src * count * 4,
					(uint32_t)count, HL_REDUCE_DTYPE_F32,
					HL_REDUCE_OP_SUM);
	hltests_run_cb_ok(st->fd, 0, cb.va, (uint32_t)(p - cb.ptr));
	hltests_assert_bytes_equal((uint8_t *)res, (uint8_t *)acc, count * 4,
				   "dst after 4 sums");

	hltests_host_unmap(st->fd, &cb);
	hltests_host_unmap(st->fd, &h);
	free(acc);
}

static void test_src_equals_dst_doubles(void **state)
{
	struct hltests_state *st = *state;
	const uint64_t count = 1500;
	struct hltests_host_buf h;
	uint32_t *orig;

	hltests_host_map(st->fd, &h, count * 4 + 8);
	fill_floats((uint32_t *)(h.ptr + 8), count);
	orig = malloc(count * 4);
	assert_non_null(orig);
	memcpy(orig, h.ptr + 8, count * 4);

	reduce_ok(st->fd, 0, h.va + 8, h.va + 8, (uint32_t)count);
	assert_sums((uint32_t *)(h.ptr + 8), orig, orig, count, "x + x");

	hltests_host_unmap(st->fd, &h);
	free(orig);
}

static const uint32_t specials[] = {
	0x00000000, 0x80000000,			/* +0, -0 */
	0x00000001, 0x80000001, 0x00000003,	/* smallest subnormals */
	0x007fffff, 0x807fffff, 0x00400000,	/* largest subnormal, half */
	0x00800000, 0x80800000, 0x00800001,	/* smallest normals */
	0x33800000, 0x33800001, 0xb3800000,	/* 2^-24: half an ULP of 1 */
	0x3f800000, 0xbf800000, 0x3f800001,	/* 1, -1, 1 + ULP */
	0xbf7fffff, 0x3f7fffff,			/* 1 - ULP/2 */
	0x4b800000, 0xcb800001, 0x4b7fffff,	/* 2^24 and around */
	0x7f7fffff, 0xff7fffff, 0x7f7ffffe,	/* largest finite */
	0x7f000000, 0x73800000, 0x73000000,	/* overflow by rounding */
	0x7f800000, 0xff800000,			/* +inf, -inf */
	0x7fc00000, 0xffc00000, 0x7fc12345,	/* quiet NaNs */
	0x7f800001, 0xffbfffff, 0x7fa00000,	/* signalling NaNs */
};

#define NUM_SPECIALS	(sizeof(specials) / sizeof(specials[0]))

static void test_special_values_every_pair(void **state)
{
	struct hltests_state *st = *state;
	const uint64_t count = NUM_SPECIALS * NUM_SPECIALS;
	struct hltests_host_buf h;
	uint32_t *src, *dst, *orig;
	uint64_t i, j;

	hltests_host_map(st->fd, &h, 2 * count * 4);
	src = (uint32_t *)h.ptr;
	dst = src + count;
	for (i = 0; i < NUM_SPECIALS; i++) {
		for (j = 0; j < NUM_SPECIALS; j++) {
			dst[i * NUM_SPECIALS + j] = specials[i];
			src[i * NUM_SPECIALS + j] = specials[j];
		}
	}
	orig = malloc(count * 4);
	assert_non_null(orig);
	memcpy(orig, dst, count * 4);

	reduce_ok(st->fd, 2, h.va, h.va + count * 4, (uint32_t)count);
	assert_sums(dst, orig, src, count, "special values");

	/* A few spelled out, whatever the host does */
	assert_int_equal(dst[0 * NUM_SPECIALS + 1], 0x00000000); /* +0 + -0 */
	assert_int_equal(dst[1 * NUM_SPECIALS + 1], 0x80000000); /* -0 + -0 */
	assert_int_equal(dst[14 * NUM_SPECIALS + 15], 0x00000000); /* 1 - 1 */
	assert_int_equal(dst[14 * NUM_SPECIALS + 11], 0x3f800000); /* tie */
	assert_int_equal(dst[22 * NUM_SPECIALS + 22], 0x7f800000); /* ovf */
	assert_int_equal(dst[28 * NUM_SPECIALS + 29], 0xffc00000); /* inf-inf */
	assert_true(is_nan(dst[33 * NUM_SPECIALS + 14]));
	assert_int_equal(dst[33 * NUM_SPECIALS + 14], 0x7fc00001); /* sNaN */

	hltests_host_unmap(st->fd, &h);
	free(orig);
}

/* ------------------------------------------------------------------------
 * Malformed packets and faults
 */

static void test_malformed_aborts_without_fault(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf h, cb;
	int64_t t = hltests_page_fault(st->fd).timestamp;
	uint32_t len;
	uint8_t *p;

	hltests_host_map(st->fd, &h, PAGE);
	hltests_host_map(st->fd, &cb, PAGE);
	memset(h.ptr, 0x3c, h.size);

	/* Misaligned src, misaligned dst */
	len = hlthunk_pkt_reduce(cb.ptr, h.va + 2, h.va + 64, 4,
				 HL_REDUCE_DTYPE_F32, HL_REDUCE_OP_SUM);
	hltests_run_cb_aborted(st->fd, 0, cb.va, len);
	len = hlthunk_pkt_reduce(cb.ptr, h.va, h.va + 65, 4,
				 HL_REDUCE_DTYPE_F32, HL_REDUCE_OP_SUM);
	hltests_run_cb_aborted(st->fd, 0, cb.va, len);

	/* No element */
	len = hlthunk_pkt_reduce(cb.ptr, h.va, h.va + 64, 0,
				 HL_REDUCE_DTYPE_F32, HL_REDUCE_OP_SUM);
	hltests_run_cb_aborted(st->fd, 0, cb.va, len);

	/* Unknown dtype, unknown op */
	len = hlthunk_pkt_reduce(cb.ptr, h.va, h.va + 64, 4,
				 HL_REDUCE_DTYPE_I32 + 1, HL_REDUCE_OP_SUM);
	hltests_run_cb_aborted(st->fd, 0, cb.va, len);
	len = hlthunk_pkt_reduce(cb.ptr, h.va, h.va + 64, 4,
				 HL_REDUCE_DTYPE_F32, HL_REDUCE_OP_DIV + 1);
	hltests_run_cb_aborted(st->fd, 0, cb.va, len);
	/* DIV without a divisor; a divisor on another operation */
	len = hlthunk_pkt_reduce(cb.ptr, h.va, h.va + 64, 4,
				 HL_REDUCE_DTYPE_F32, HL_REDUCE_OP_DIV);
	hltests_run_cb_aborted(st->fd, 0, cb.va, len);
	len = hlthunk_pkt_reduce(cb.ptr, h.va, h.va + 64, 4,
				 HL_REDUCE_DTYPE_I32,
				 HL_REDUCE_OP_SUM | (2u << HL_REDUCE_DIVISOR_SHIFT));
	hltests_run_cb_aborted(st->fd, 0, cb.va, len);
	len = hlthunk_pkt_reduce(cb.ptr, h.va, h.va + 64, 4,
				 HL_REDUCE_DTYPE_F32, 0x100);
	hltests_run_cb_aborted(st->fd, 0, cb.va, len);

	/* Reserved ctl bits */
	len = hlthunk_pkt_reduce(cb.ptr, h.va, h.va + 64, 4,
				 HL_REDUCE_DTYPE_F32, HL_REDUCE_OP_SUM);
	cb.ptr[1] = 1;
	hltests_run_cb_aborted(st->fd, 0, cb.va, len);

	/* A REDUCE cut by cb_size, after a good MEMSET that ran */
	p = cb.ptr;
	p += hlthunk_pkt_memset(p, h.va + 256, 0, 8);
	p += hlthunk_pkt_reduce(p, h.va, h.va + 64, 4, HL_REDUCE_DTYPE_F32,
				HL_REDUCE_OP_SUM);
	hltests_run_cb_aborted(st->fd, 0, cb.va, (uint32_t)(p - cb.ptr) - 8);

	/* Nothing was reduced, nothing faulted, the queue still works */
	assert_int_equal(hltests_page_fault(st->fd).timestamp, t);
	{
		uint8_t expect[PAGE];

		memset(expect, 0x3c, sizeof(expect));
		memset(expect + 256, 0, 8);
		hltests_assert_bytes_equal(h.ptr, expect, PAGE,
					   "after malformed packets");
	}
	reduce_ok(st->fd, 0, h.va, h.va + 64, 4);

	hltests_host_unmap(st->fd, &cb);
	hltests_host_unmap(st->fd, &h);
}

/*
 * Map @size bytes of host memory at a device VA whose next page is not
 * mapped: a mapping one page larger is made and dropped, then the buffer
 * is mapped at its address (HL_MEM_FORCE_HINT).
 */
static void host_map_before_hole(int fd, struct hltests_host_buf *b,
				 uint64_t size)
{
	struct hltests_host_buf probe;
	void *p = NULL;

	hltests_host_map(fd, &probe, size + PAGE);
	hltests_host_unmap(fd, &probe);

	assert_int_equal(posix_memalign(&p, PAGE, size), 0);
	b->ptr = p;
	b->size = size;
	memset(b->ptr, 0, size);
	b->va = hlthunk_host_memory_map_flags(fd, b->ptr, probe.va, size,
					      HL_MEM_FORCE_HINT);
	assert_int_equal(b->va, probe.va);
}

static void test_unmapped_operands_fault(void **state)
{
	struct hltests_state *st = *state;
	uint64_t hole = st->hw_ip.dram_va_end - 2 * MB + 4096;
	struct hltests_host_buf h, cb;
	uint32_t *before, len;
	int64_t t;

	hltests_host_map(st->fd, &cb, PAGE);
	host_map_before_hole(st->fd, &h, 3 * PAGE);

	/* Unmapped source: a read fault at its VA, dst untouched */
	memset(h.ptr, 0, h.size);
	t = hltests_page_fault(st->fd).timestamp;
	len = hlthunk_pkt_reduce(cb.ptr, hole, h.va, 16, HL_REDUCE_DTYPE_F32,
				 HL_REDUCE_OP_SUM);
	hltests_run_cb_aborted(st->fd, 1, cb.va, len);
	hltests_assert_fault_at(st->fd, t, hole, 1, 0);

	/* Unmapped destination: dst is read first, so a read fault */
	t = hltests_page_fault(st->fd).timestamp;
	len = hlthunk_pkt_reduce(cb.ptr, h.va, hole + 8, 16,
				 HL_REDUCE_DTYPE_F32, HL_REDUCE_OP_SUM);
	hltests_run_cb_aborted(st->fd, 2, cb.va, len);
	hltests_assert_fault_at(st->fd, t, hole + 8, 2, 0);

	/*
	 * A source that runs off its mapping: the chunks before the fault
	 * are written, the fault is at the first unmapped page.
	 */
	fill_floats((uint32_t *)h.ptr, 3 * PAGE / 4);
	before = malloc(3 * PAGE);
	assert_non_null(before);
	memcpy(before, h.ptr, 3 * PAGE);
	t = hltests_page_fault(st->fd).timestamp;
	/* src: the last 1.5 pages of h, then the page after it */
	len = hlthunk_pkt_reduce(cb.ptr, h.va + PAGE + PAGE / 2, h.va,
				 (uint32_t)(2 * PAGE / 4), HL_REDUCE_DTYPE_F32,
				 HL_REDUCE_OP_SUM);
	hltests_run_cb_aborted(st->fd, 3, cb.va, len);
	hltests_assert_fault_at(st->fd, t, h.va + 3 * PAGE, 3, 0);
	assert_sums((uint32_t *)h.ptr, before,
		    before + (PAGE + PAGE / 2) / 4, (PAGE + PAGE / 2) / 4,
		    "the chunks before the fault");
	hltests_assert_bytes_equal(h.ptr + PAGE + PAGE / 2,
				   (uint8_t *)before + PAGE + PAGE / 2,
				   PAGE / 2, "the chunk of the fault");

	free(before);
	hltests_host_unmap(st->fd, &cb);
	hltests_host_unmap(st->fd, &h);
}

/* ------------------------------------------------------------------------
 * The other types and operations: bfloat16, float16, int32; min, max
 */

static const char * const dtype_names[] = { "f32", "bf16", "f16", "i32" };
static const char * const op_names[] = { "sum", "min", "max", "prod",
					 "div" };

static const char *op_name(uint32_t op)
{
	return op_names[op & HL_REDUCE_OP_MASK];
}

static uint32_t esize_of(uint32_t t)
{
	return t == HL_REDUCE_DTYPE_BF16 || t == HL_REDUCE_DTYPE_F16 ? 2 : 4;
}

/* Widen to binary32 bits (exact; a NaN keeps its payload's top bits) */
static uint32_t widen(uint32_t t, uint32_t x)
{
	_Float16 h;
	uint16_t u = (uint16_t)x;

	if (t == HL_REDUCE_DTYPE_BF16)
		return x << 16;
	if (t != HL_REDUCE_DTYPE_F16)
		return x;
	if ((u & 0x7c00) == 0x7c00 && (u & 0x3ff))
		return ((uint32_t)(u & 0x8000) << 16) | 0x7f800000u |
		       ((uint32_t)(u & 0x3ff) << 13);
	memcpy(&h, &u, sizeof(h));
	return f2u((float)h);
}

/*
 * Binary32 -> the type, to nearest even: bf16 by comparing the distances
 * to both neighbours, f16 by the compiler's conversion; @trunc instead
 * rounds toward zero (the negative control's wrong rounding)
 */
static uint32_t narrow(uint32_t t, uint32_t f, bool trunc)
{
	uint32_t lo = f & 0xffff0000u, hi = lo + 0x10000u;
	double dl, dh;
	_Float16 h;
	uint16_t u;

	if (t == HL_REDUCE_DTYPE_F32 || t == HL_REDUCE_DTYPE_I32)
		return f;
	if (is_nan(f))
		return t == HL_REDUCE_DTYPE_BF16 ? (f >> 16) | 0x40 :
		       ((f >> 16) & 0x8000) | 0x7e00 | ((f >> 13) & 0x3ff);
	if (t == HL_REDUCE_DTYPE_F16) {
		h = (_Float16)u2f(f);
		memcpy(&u, &h, sizeof(u));
		/* Toward zero: one step back when rounding went outwards */
		if (trunc && fabsf((float)h) > fabsf(u2f(f)) && (u & 0x7fff))
			u--;
		return u;
	}
	if ((f & 0x7fffffffu) == 0x7f800000u || f == lo || trunc)
		return lo >> 16;
	dl = fabs((double)u2f(f) - (double)u2f(lo));
	dh = (hi & 0x7f800000u) == 0x7f800000u ?
	     fabs((f & 0x80000000u ? -0x1p128 : 0x1p128) - (double)u2f(f)) :
	     fabs((double)u2f(hi) - (double)u2f(f));
	if (dl < dh || (dl == dh && !((lo >> 16) & 1)))
		return lo >> 16;
	return hi >> 16;
}

/*
 * @x rounded once to type @t (to nearest even, subnormals kept, overflow to
 * infinity; @toward_zero instead), as binary32 bits (the 16-bit types: their
 * own bits): the host's reference for products and quotients
 */
static uint32_t round_to(uint32_t t, double x, bool toward_zero)
{
	int p = t == HL_REDUCE_DTYPE_BF16 ? 8 : t == HL_REDUCE_DTYPE_F16 ? 11 : 24;
	int emin = t == HL_REDUCE_DTYPE_F16 ? -14 : -126;
	double max = t == HL_REDUCE_DTYPE_BF16 ? 0x1.fep127 :
		     t == HL_REDUCE_DTYPE_F16 ? 65504.0 : 0x1.fffffep127;
	double r = x, a;
	int e, u;
	_Float16 h;
	uint16_t hu;

	if (x != 0 && !isinf(x)) {
		frexp(x, &e);
		u = e - p < emin - p + 1 ? emin - p + 1 : e - p;
		a = ldexp(x, -u);
		r = ldexp(toward_zero ? (a < 0 ? ceil(a) : floor(a)) : rint(a),
			  u);
		if (fabs(r) > max)
			r = x < 0 ? -INFINITY : INFINITY;
	}
	if (t == HL_REDUCE_DTYPE_BF16)
		return f2u((float)r) >> 16;
	if (t == HL_REDUCE_DTYPE_F16) {
		h = (_Float16)(float)r;	/* exact: r is a binary16 value */
		memcpy(&hu, &h, sizeof(hu));
		return hu;
	}
	return f2u((float)r);
}

/* The NaN rules of PROD and DIV (struct hl_pkt_reduce), or 0: not a NaN */
static bool nan_result(uint32_t t, uint32_t op, uint32_t wd, uint32_t ws,
		       uint32_t *r)
{
	bool inf_d = (wd & 0x7fffffffu) == 0x7f800000u;
	bool inf_s = (ws & 0x7fffffffu) == 0x7f800000u;

	if ((op & HL_REDUCE_OP_MASK) == HL_REDUCE_OP_DIV) {
		if (!is_nan(ws))
			return false;
		*r = narrow(t, ws | 0x00400000u, false);
		return true;
	}
	if (is_nan(wd))
		*r = narrow(t, wd | 0x00400000u, false);
	else if (is_nan(ws))
		*r = narrow(t, ws | 0x00400000u, false);
	else if ((inf_d && !(ws & 0x7fffffffu)) || (inf_s && !(wd & 0x7fffffffu)))
		*r = narrow(t, 0xffc00000u, false);
	else
		return false;
	return true;
}

/* PROD and DIV on the host: @d op @s; @wrong: the negative control's */
static uint32_t host_prod_div(uint32_t t, uint32_t op, uint32_t d, uint32_t s,
			      bool wrong)
{
	uint32_t n = op >> HL_REDUCE_DIVISOR_SHIFT, wd, ws, r;
	bool div = (op & HL_REDUCE_OP_MASK) == HL_REDUCE_OP_DIV;
	int64_t q;

	if (t == HL_REDUCE_DTYPE_I32) {
		if (!div) {
			q = (int64_t)(int32_t)d * (int32_t)s;
			if (wrong)	/* saturating */
				return q > INT32_MAX ? INT32_MAX :
				       q < INT32_MIN ? (uint32_t)INT32_MIN :
				       (uint32_t)q;
			return d * s;
		}
		q = (int32_t)s / (int64_t)n;	/* toward zero */
		if (wrong && (int32_t)s < 0 && (int64_t)q * n != (int32_t)s)
			q--;			/* floor */
		return (uint32_t)q;
	}
	wd = widen(t, d);
	ws = widen(t, s);
	if (nan_result(t, op, wd, ws, &r))
		return r;
	/* A product of two binary32 is exact in double; a quotient rounds
	 * once there, far below the type's half ulp */
	return round_to(t, div ? (double)u2f(ws) / n :
			       (double)u2f(wd) * (double)u2f(ws), wrong);
}

/* a < b as numbers, -0 < +0 (neither is a NaN) */
static bool less_than(uint32_t t, uint32_t a, uint32_t b)
{
	float fa = u2f(widen(t, a)), fb = u2f(widen(t, b));

	if (fa == 0 && fb == 0)
		return signbit(fa) && !signbit(fb);
	return fa < fb;
}

/* The host's dst op src for type @t, as struct hl_pkt_reduce documents */
static uint32_t host_op(uint32_t t, uint32_t op, uint32_t d, uint32_t s,
			bool trunc)
{
	uint32_t wd, ws, quiet;
	int64_t sum;

	if ((op & HL_REDUCE_OP_MASK) == HL_REDUCE_OP_PROD ||
	    (op & HL_REDUCE_OP_MASK) == HL_REDUCE_OP_DIV)
		return host_prod_div(t, op, d, s, trunc);
	if (t == HL_REDUCE_DTYPE_I32) {
		if (op == HL_REDUCE_OP_SUM && trunc) {	/* saturating */
			sum = (int64_t)(int32_t)d + (int32_t)s;
			return sum > INT32_MAX ? INT32_MAX :
			       sum < INT32_MIN ? (uint32_t)INT32_MIN :
			       (uint32_t)sum;
		}
		if (op == HL_REDUCE_OP_SUM)
			return d + s;
		if (op == HL_REDUCE_OP_MIN)
			return (int32_t)s < (int32_t)d ? s : d;
		return (int32_t)s > (int32_t)d ? s : d;
	}
	wd = widen(t, d);
	ws = widen(t, s);
	if (op == HL_REDUCE_OP_SUM)
		return narrow(t, host_add(wd, ws), trunc);
	quiet = t == HL_REDUCE_DTYPE_BF16 ? 0x40 :
		t == HL_REDUCE_DTYPE_F16 ? 0x200 : 0x00400000u;
	if (is_nan(wd))
		return d | quiet;
	if (is_nan(ws))
		return s | quiet;
	if (op == HL_REDUCE_OP_MIN)
		return less_than(t, s, d) ? s : d;
	return less_than(t, d, s) ? s : d;
}

static const uint32_t specials_bf16[] = {
	0x0000, 0x8000, 0x0001, 0x807f, 0x0080, 0x8080,	/* 0, subnormal, min */
	0x3f80, 0xbf80, 0x3f81, 0x3b80, 0x3bc0, 0x3b81,	/* 1, ties at 1 */
	0x7f7f, 0xff7f, 0x7f00, 0x7b80,			/* max, overflow */
	0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x7f81, 0xffa0,	/* inf, NaNs */
};

static const uint32_t specials_f16[] = {
	0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400,	/* 0, subnormal, min */
	0x3c00, 0xbc00, 0x3c01, 0x1000, 0x1001, 0x0fff,	/* 1, ties at 1 */
	0x7bff, 0xfbff, 0x7800, 0x5000,			/* max, overflow */
	0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7c01, 0xfd00,	/* inf, NaNs */
};

static const uint32_t specials_i32[] = {
	0, 1, 0xffffffffu, 0x7fffffffu, 0x80000000u, 0x12345678u,
	0xedcba988u, 0x40000000u,
};

/* A random element of type @t: mostly like real data, some anything */
static uint32_t random_elem(uint32_t t)
{
	uint64_t r = hltests_prng(&prng_state);
	uint32_t x;

	switch (t) {
	case HL_REDUCE_DTYPE_BF16:
		return random_float() >> 16;
	case HL_REDUCE_DTYPE_F16:
		x = (uint32_t)r & 0xffff;
		if (r % 8)	/* exponent 15 - 6 .. 15 + 6 */
			x = (x & 0x83ff) | ((9 + (uint32_t)(r >> 20) % 13) << 10);
		return x;
	case HL_REDUCE_DTYPE_I32:
		return (uint32_t)(r >> 16);
	default:
		return random_float();
	}
}

static void put_elem(uint8_t *p, uint32_t es, uint64_t i, uint32_t v)
{
	if (es == 2)
		((uint16_t *)p)[i] = (uint16_t)v;
	else
		((uint32_t *)p)[i] = v;
}

static uint32_t get_elem(const uint8_t *p, uint32_t es, uint64_t i)
{
	return es == 2 ? ((const uint16_t *)p)[i] : ((const uint32_t *)p)[i];
}

/*
 * Every pair of the type's special values, then 4099 random elements, one
 * REDUCE each on host memory, every result compared with the host's; for
 * the 16-bit sums, a truncating host (a wrong rounding) must differ from
 * the engine somewhere (the negative control)
 */
static void type_op_case(int fd, uint32_t t, uint32_t op)
{
	const uint32_t *sp = t == HL_REDUCE_DTYPE_BF16 ? specials_bf16 :
			     t == HL_REDUCE_DTYPE_F16 ? specials_f16 :
			     t == HL_REDUCE_DTYPE_I32 ? specials_i32 : specials;
	uint64_t nsp = t == HL_REDUCE_DTYPE_BF16 ? 22 :
		       t == HL_REDUCE_DTYPE_F16 ? 22 :
		       t == HL_REDUCE_DTYPE_I32 ? 8 : NUM_SPECIALS;
	uint64_t count = nsp * nsp + 4099, i, trunc_diff = 0;
	uint32_t es = esize_of(t), want, got, len, n;
	struct hltests_host_buf h, cb;
	uint8_t *src, *dst, *orig;

	hltests_host_map(fd, &h, 3 * count * es + PAGE);
	hltests_host_map(fd, &cb, PAGE);
	src = h.ptr;
	dst = src + count * es;
	orig = dst + count * es;
	for (i = 0; i < count; i++) {
		if (i < nsp * nsp) {
			put_elem(dst, es, i, sp[i / nsp]);
			put_elem(src, es, i, sp[i % nsp]);
		} else {
			put_elem(dst, es, i, random_elem(t));
			put_elem(src, es, i, random_elem(t));
		}
	}
	memcpy(orig, dst, count * es);

	len = hlthunk_pkt_reduce(cb.ptr, h.va, h.va + count * es,
				 (uint32_t)count, t, op);
	hltests_run_cb_ok(fd, 1, cb.va, len);

	for (i = 0; i < count; i++) {
		got = get_elem(dst, es, i);
		want = host_op(t, op, get_elem(orig, es, i),
			       get_elem(src, es, i), false);
		if (got != want) {
			print_error("%s %s: element %" PRIu64 ": 0x%x op 0x%x = 0x%x, host 0x%x\n",
				    dtype_names[t], op_name(op), i,
				    get_elem(orig, es, i), get_elem(src, es, i),
				    got, want);
			fail();
		}
		if (i >= nsp * nsp &&
		    got != host_op(t, op, get_elem(orig, es, i),
				   get_elem(src, es, i), true))
			trunc_diff++;
	}
	/*
	 * Negative controls: a wrong rounding (int32: saturation, floor);
	 * not for quotients by a power of two, exact but in the subnormals
	 */
	n = op >> HL_REDUCE_DIVISOR_SHIFT;
	if (op != HL_REDUCE_OP_MIN && op != HL_REDUCE_OP_MAX &&
	    (es == 2 || op != HL_REDUCE_OP_SUM || t == HL_REDUCE_DTYPE_I32) &&
	    !(n && !(n & (n - 1)))) {
		print_message("%s %s%s%.0u: %" PRIu64 " of 4099 random results differ from %s\n",
			      dtype_names[t], op_name(op), n ? " by " : "", n,
			      trunc_diff,
			      t != HL_REDUCE_DTYPE_I32 ? "rounding toward zero" :
			      (op & HL_REDUCE_OP_MASK) == HL_REDUCE_OP_DIV ?
			      "floor division" : "saturation");
		assert_true(trunc_diff > 0);
	}
	hltests_host_unmap(fd, &cb);
	hltests_host_unmap(fd, &h);
}

static void test_every_type_and_op_specials_and_random(void **state)
{
	struct hltests_state *st = *state;
	uint32_t t, op;

	for (t = HL_REDUCE_DTYPE_F32; t <= HL_REDUCE_DTYPE_I32; t++)
		for (op = HL_REDUCE_OP_SUM; op <= HL_REDUCE_OP_PROD; op++)
			type_op_case(st->fd, t, op);
}

/* Quotients by n (an average's last step): small, rank-like and odd n */
static void test_every_type_div_specials_and_random(void **state)
{
	static const uint32_t divisors[] = { 1, 3, 4, 7, 64, 56697,
					     HL_REDUCE_MAX_DIVISOR };
	struct hltests_state *st = *state;
	uint32_t t;
	size_t i;

	for (t = HL_REDUCE_DTYPE_F32; t <= HL_REDUCE_DTYPE_I32; t++)
		for (i = 0; i < sizeof(divisors) / sizeof(divisors[0]); i++)
			type_op_case(st->fd, t, HL_REDUCE_OP_DIV_BY(divisors[i]));
}

/* A few results spelled out, whatever the host computes */
static void test_16bit_rounding_spelled_out(void **state)
{
	static const struct {
		uint32_t t, op, d, s, want;
	} c[] = {
		/* bf16: 1 + 2^-8 is a tie: to even (1); 1 + 3 * 2^-9 up */
		{ HL_REDUCE_DTYPE_BF16, HL_REDUCE_OP_SUM, 0x3f80, 0x3b80, 0x3f80 },
		{ HL_REDUCE_DTYPE_BF16, HL_REDUCE_OP_SUM, 0x3f81, 0x3b80, 0x3f82 },
		{ HL_REDUCE_DTYPE_BF16, HL_REDUCE_OP_SUM, 0x7f7f, 0x7f7f, 0x7f80 },
		{ HL_REDUCE_DTYPE_BF16, HL_REDUCE_OP_SUM, 0x0001, 0x0001, 0x0002 },
		{ HL_REDUCE_DTYPE_BF16, HL_REDUCE_OP_SUM, 0x7f80, 0xff80, 0xffc0 },
		{ HL_REDUCE_DTYPE_BF16, HL_REDUCE_OP_SUM, 0x7f81, 0x3f80, 0x7fc1 },
		/* f16: 1 + 2^-11 is a tie (1), 65504 + 16 overflows */
		{ HL_REDUCE_DTYPE_F16, HL_REDUCE_OP_SUM, 0x3c00, 0x1000, 0x3c00 },
		{ HL_REDUCE_DTYPE_F16, HL_REDUCE_OP_SUM, 0x3c01, 0x1000, 0x3c02 },
		{ HL_REDUCE_DTYPE_F16, HL_REDUCE_OP_SUM, 0x7bff, 0x4c00, 0x7c00 },
		{ HL_REDUCE_DTYPE_F16, HL_REDUCE_OP_SUM, 0x0001, 0x03ff, 0x0400 },
		{ HL_REDUCE_DTYPE_F16, HL_REDUCE_OP_SUM, 0x3c00, 0xbc00, 0x0000 },
		{ HL_REDUCE_DTYPE_F16, HL_REDUCE_OP_SUM, 0x7c01, 0x3c00, 0x7e01 },
		/* min/max: -0 < +0, NaN propagates (dst's first), quiet */
		{ HL_REDUCE_DTYPE_F16, HL_REDUCE_OP_MIN, 0x0000, 0x8000, 0x8000 },
		{ HL_REDUCE_DTYPE_BF16, HL_REDUCE_OP_MAX, 0x8000, 0x0000, 0x0000 },
		{ HL_REDUCE_DTYPE_F32, HL_REDUCE_OP_MAX, 0x3f800000, 0x7f800001, 0x7fc00001 },
		{ HL_REDUCE_DTYPE_F16, HL_REDUCE_OP_MIN, 0x7d00, 0xfe00, 0x7f00 },
		/* int32 wraps, signed min */
		{ HL_REDUCE_DTYPE_I32, HL_REDUCE_OP_SUM, 0x7fffffff, 1, 0x80000000 },
		{ HL_REDUCE_DTYPE_I32, HL_REDUCE_OP_MIN, 0x7fffffff, 0x80000000, 0x80000000 },
		/* Products: rounding, subnormal, overflow, inf * 0, NaN */
		{ HL_REDUCE_DTYPE_F32, HL_REDUCE_OP_PROD, 0x3f800001, 0x3f800001, 0x3f800002 },
		{ HL_REDUCE_DTYPE_F32, HL_REDUCE_OP_PROD, 0x00800000, 0x3f000000, 0x00400000 },
		{ HL_REDUCE_DTYPE_F32, HL_REDUCE_OP_PROD, 0x7f7fffff, 0x40000000, 0x7f800000 },
		{ HL_REDUCE_DTYPE_F32, HL_REDUCE_OP_PROD, 0x7f800000, 0x80000000, 0xffc00000 },
		{ HL_REDUCE_DTYPE_BF16, HL_REDUCE_OP_PROD, 0x3f81, 0x3f81, 0x3f82 },
		{ HL_REDUCE_DTYPE_BF16, HL_REDUCE_OP_PROD, 0x0001, 0x3f00, 0x0000 },
		{ HL_REDUCE_DTYPE_F16, HL_REDUCE_OP_PROD, 0x3c01, 0x3c01, 0x3c02 },
		{ HL_REDUCE_DTYPE_F16, HL_REDUCE_OP_PROD, 0x7bff, 0x4000, 0x7c00 },
		{ HL_REDUCE_DTYPE_F16, HL_REDUCE_OP_PROD, 0x3c00, 0x7c01, 0x7e01 },
		{ HL_REDUCE_DTYPE_I32, HL_REDUCE_OP_PROD, 0x10000, 0x10000, 0 },
		/* Quotients (of src, the second value): 1/3, one rounding */
		{ HL_REDUCE_DTYPE_F32, HL_REDUCE_OP_DIV_BY(3), 0, 0x3f800000, 0x3eaaaaab },
		{ HL_REDUCE_DTYPE_BF16, HL_REDUCE_OP_DIV_BY(3), 0, 0x3f80, 0x3eab },
		{ HL_REDUCE_DTYPE_F16, HL_REDUCE_OP_DIV_BY(3), 0, 0x3c00, 0x3555 },
		/* 2136 / 56697: rounding to binary32 first gives the tie 0x28d2 */
		{ HL_REDUCE_DTYPE_F16, HL_REDUCE_OP_DIV_BY(56697), 0, 0x682c, 0x28d3 },
		{ HL_REDUCE_DTYPE_BF16, HL_REDUCE_OP_DIV_BY(5), 0, 0x8000, 0x8000 },
		{ HL_REDUCE_DTYPE_F16, HL_REDUCE_OP_DIV_BY(3), 0, 0xfc00, 0xfc00 },
		{ HL_REDUCE_DTYPE_F16, HL_REDUCE_OP_DIV_BY(3), 0, 0x7c01, 0x7e01 },
		{ HL_REDUCE_DTYPE_F32, HL_REDUCE_OP_DIV_BY(2), 0, 0x00000001, 0x00000000 },
		{ HL_REDUCE_DTYPE_F32, HL_REDUCE_OP_DIV_BY(2), 0, 0x00000003, 0x00000002 },
		{ HL_REDUCE_DTYPE_I32, HL_REDUCE_OP_DIV_BY(2), 0, 0xfffffff9, 0xfffffffd },
		{ HL_REDUCE_DTYPE_I32, HL_REDUCE_OP_DIV_BY(1), 0, 0x80000000, 0x80000000 },
	};
	struct hltests_state *st = *state;
	struct hltests_host_buf h, cb;
	uint32_t es, len;
	size_t i;

	hltests_host_map(st->fd, &h, PAGE);
	hltests_host_map(st->fd, &cb, PAGE);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		es = esize_of(c[i].t);
		put_elem(h.ptr, es, 0, c[i].d);
		put_elem(h.ptr + 64, es, 0, c[i].s);
		len = hlthunk_pkt_reduce(cb.ptr, h.va + 64, h.va, 1, c[i].t,
					 c[i].op);
		hltests_run_cb_ok(st->fd, 0, cb.va, len);
		if (get_elem(h.ptr, es, 0) != c[i].want) {
			print_error("%s %s: 0x%x op 0x%x = 0x%x, want 0x%x\n",
				    dtype_names[c[i].t], op_name(c[i].op),
				    c[i].d, c[i].s, get_elem(h.ptr, es, 0),
				    c[i].want);
			fail();
		}
		assert_int_equal(get_elem(h.ptr, es, 0),
				 host_op(c[i].t, c[i].op, c[i].d, c[i].s,
					 false));
	}
	hltests_host_unmap(st->fd, &cb);
	hltests_host_unmap(st->fd, &h);
}

#define REDUCE_TEST(f) cmocka_unit_test_setup_teardown(f, hltests_setup, \
						       hltests_teardown)

const struct CMUnitTest reduce_tests[] = {
	REDUCE_TEST(test_random_floats_odd_counts),
	REDUCE_TEST(test_offsets_cut_chunks_differently),
	REDUCE_TEST(test_large_count_crosses_dram_pages),
	REDUCE_TEST(test_host_memory_operands),
	REDUCE_TEST(test_chain_in_order),
	REDUCE_TEST(test_src_equals_dst_doubles),
	REDUCE_TEST(test_special_values_every_pair),
	REDUCE_TEST(test_every_type_and_op_specials_and_random),
	REDUCE_TEST(test_every_type_div_specials_and_random),
	REDUCE_TEST(test_16bit_rounding_spelled_out),
	REDUCE_TEST(test_malformed_aborts_without_fault),
	REDUCE_TEST(test_unmapped_operands_fault),
};

int main(void)
{
	print_message("reduce: PRNG seed 0x%llx\n", (unsigned long long)SEED);
	return HLTESTS_RUN("reduce", reduce_tests);
}

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
 * the fault written.
 *
 * The host arithmetic is the C float sum, with NaN results spelled out by
 * the documented rule (the guest's FPU is QEMU's, whose NaN choice is not
 * silicon's); f32_add_check.c compares the engine's code with a real FPU,
 * NaN payloads included, far more widely, on the host.
 */
#include "hltests.h"

#include <errno.h>
#include <inttypes.h>
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
	len = hlthunk_pkt_reduce(cb.ptr, h.va, h.va + 64, 4, 1,
				 HL_REDUCE_OP_SUM);
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
	REDUCE_TEST(test_malformed_aborts_without_fault),
	REDUCE_TEST(test_unmapped_operands_fault),
};

int main(void)
{
	print_message("reduce: PRNG seed 0x%llx\n", (unsigned long long)SEED);
	return HLTESTS_RUN("reduce", reduce_tests);
}

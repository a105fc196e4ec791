// SPDX-License-Identifier: MIT
/*
 * memory_large: a host buffer larger than 4 GiB, mapped to the device and
 * copied at its far end, both ways. Runs in a VM with enough RAM
 * (dev/hlvm --mem 6G); catches 32-bit truncation of sizes, page counts
 * and offsets anywhere from pinning to the device page tables.
 */
#include "hltests.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define KB	1024ull
#define MB	(1024ull * KB)
#define GB	(1024ull * MB)

/* Past 4 GiB by more than one DRAM page, with an odd tail */
#define BIG	(4 * GB + 6 * MB + 12 * KB)

static void test_map_above_4g_and_copy_at_far_end(void **state)
{
	struct hltests_state *st = *state;
	uint64_t far = BIG - 64 * KB, far_unaligned = 4 * GB + MB + 123;
	uint64_t seed = 0xb16b00b5ull, va, pinned0;
	struct hltests_dram_buf d;
	uint8_t *big, expect[64 * KB], got[64 * KB];

	pinned0 = hltests_debugfs_value(0, "pinned_host_pages");
	big = mmap(NULL, BIG, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(big != MAP_FAILED);
	madvise(big, BIG, MADV_HUGEPAGE);

	/* The CPU writes the far end and the start */
	hltests_fill_random(&seed, big + far, 64 * KB);
	hltests_fill_random(&seed, big, 4 * KB);

	va = hlthunk_host_memory_map(st->fd, big, 0, BIG);
	if (!va)
		print_error("map of %" PRIu64 " bytes: %s\n", (uint64_t)BIG,
			    strerror(errno));
	assert_int_not_equal(va, 0);
	assert_int_equal(hltests_debugfs_value(0, "pinned_host_pages"),
			 pinned0 + (BIG + 4095) / 4096);

	/* Device reads the far end: host (beyond 4 GiB) -> DRAM -> host */
	hltests_dram_map(st->fd, &d, 2 * MB, false);
	hltests_dma(st->fd, va + far, d.va, 64 * KB);
	hltests_read_device(st->fd, d.va, got, 64 * KB);
	hltests_assert_bytes_equal(got, big + far, 64 * KB, "far end read");

	/* And the start, to be sure the two did not alias */
	hltests_dma(st->fd, va, d.va + MB, 4 * KB);
	hltests_read_device(st->fd, d.va + MB, got, 4 * KB);
	hltests_assert_bytes_equal(got, big, 4 * KB, "start read");

	/* Device writes beyond 4 GiB, unaligned: DRAM -> host */
	hltests_fill_random(&seed, expect, 8 * KB);
	hltests_write_device(st->fd, d.va, expect, 8 * KB);
	hltests_dma(st->fd, d.va, va + far_unaligned, 8 * KB);
	hltests_assert_bytes_equal(big + far_unaligned, expect, 8 * KB,
				   "far write");
	/* The bytes around it are untouched (zero-filled memory) */
	assert_int_equal(big[far_unaligned - 1], 0);
	assert_int_equal(big[far_unaligned + 8 * KB], 0);

	hltests_dram_unmap(st->fd, &d);
	assert_int_equal(hlthunk_memory_unmap(st->fd, va), 0);
	assert_int_equal(hltests_debugfs_value(0, "pinned_host_pages"), pinned0);
	munmap(big, BIG);
}

const struct CMUnitTest memory_large_tests[] = {
	cmocka_unit_test_setup_teardown(test_map_above_4g_and_copy_at_far_end,
					hltests_setup, hltests_teardown),
};

int main(void)
{
	return HLTESTS_RUN("memory_large", memory_large_tests);
}

// SPDX-License-Identifier: MIT
/*
 * memory: HL_IOCTL_MEMORY (ALLOC/FREE/MAP/UNMAP) without engines: life
 * cycle, accounting, VA placement, every bad input, and cleanup on close.
 * Data through the MMU is checked by the cs suite.
 */
#include "hltests.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MB (1ull << 20)

static int raw_alloc(int fd, uint64_t size, uint64_t page_size, uint32_t flags,
		     uint64_t *handle)
{
	union hl_mem_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_ALLOC;
	a.in.alloc.mem_size = size;
	a.in.alloc.page_size = page_size;
	a.in.flags = flags;
	rc = hltests_mem_ioctl(fd, &a);
	if (!rc && handle)
		*handle = a.out.handle;
	return rc;
}

static int raw_free(int fd, uint64_t handle)
{
	union hl_mem_args a;

	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_FREE;
	a.in.free.handle = handle;
	return hltests_mem_ioctl(fd, &a);
}

static int raw_map_dev(int fd, uint64_t handle, uint64_t hint, uint32_t flags,
		       uint64_t *va)
{
	union hl_mem_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_MAP;
	a.in.map_device.handle = handle;
	a.in.map_device.hint_addr = hint;
	a.in.flags = flags;
	rc = hltests_mem_ioctl(fd, &a);
	if (!rc && va)
		*va = a.out.device_virt_addr;
	return rc;
}

static int raw_map_host(int fd, const void *addr, uint64_t size, uint64_t hint,
			uint32_t flags, uint64_t *va)
{
	union hl_mem_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_MAP;
	a.in.map_host.host_virt_addr = (uint64_t)(uintptr_t)addr;
	a.in.map_host.mem_size = size;
	a.in.map_host.hint_addr = hint;
	a.in.flags = HL_MEM_USERPTR | flags;
	rc = hltests_mem_ioctl(fd, &a);
	if (!rc && va)
		*va = a.out.device_virt_addr;
	return rc;
}

static int raw_unmap(int fd, uint64_t va)
{
	union hl_mem_args a;

	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_UNMAP;
	a.in.unmap.device_virt_addr = va;
	return hltests_mem_ioctl(fd, &a);
}

static void test_alloc_map_unmap_free(void **state)
{
	struct hltests_state *st = *state;
	uint64_t free0 = hltests_dram_free(st->fd), handle, va;

	handle = hlthunk_device_memory_alloc(st->fd, 3 * MB, 0, false, false);
	assert_int_not_equal(handle, 0);
	/* Rounded up to the 2 MiB page */
	assert_int_equal(hltests_dram_free(st->fd), free0 - 4 * MB);
	assert_int_equal(hltests_ctx_dram(st->fd), 4 * MB);

	va = hlthunk_device_memory_map(st->fd, handle, 0);
	assert_int_not_equal(va, 0);
	assert_true(va >= st->hw_ip.dram_va_start && va < st->hw_ip.dram_va_end);
	assert_int_equal(va % st->hw_ip.dram_page_size, 0);

	/* Mapped: FREE refused */
	assert_int_equal(hlthunk_device_memory_free(st->fd, handle), -EBUSY);
	assert_int_equal(hlthunk_memory_unmap(st->fd, va), 0);
	assert_int_equal(hlthunk_device_memory_free(st->fd, handle), 0);
	assert_int_equal(hltests_dram_free(st->fd), free0);
	assert_int_equal(hltests_ctx_dram(st->fd), 0);
}

static void test_contiguous_and_mapped_twice(void **state)
{
	struct hltests_state *st = *state;
	uint64_t handle, va1, va2;

	handle = hlthunk_device_memory_alloc(st->fd, 8 * MB, 0, true, false);
	assert_int_not_equal(handle, 0);
	va1 = hlthunk_device_memory_map(st->fd, handle, 0);
	va2 = hlthunk_device_memory_map(st->fd, handle, 0);
	assert_int_not_equal(va1, 0);
	assert_int_not_equal(va2, 0);
	assert_true(va1 + 8 * MB <= va2 || va2 + 8 * MB <= va1);
	assert_int_equal(hlthunk_device_memory_free(st->fd, handle), -EBUSY);
	assert_int_equal(hlthunk_memory_unmap(st->fd, va1), 0);
	assert_int_equal(hlthunk_device_memory_free(st->fd, handle), -EBUSY);
	assert_int_equal(hlthunk_memory_unmap(st->fd, va2), 0);
	assert_int_equal(hlthunk_device_memory_free(st->fd, handle), 0);
}

static void test_host_map_unaligned(void **state)
{
	struct hltests_state *st = *state;
	long long pinned0 = hltests_debugfs_value(0, "pinned_host_pages");
	char *buf = malloc(5 * 4096);
	uint64_t va;

	assert_non_null(buf);
	memset(buf, 1, 5 * 4096);
	/* 3 pages worth starting 100 bytes into a page: 4 pages pinned */
	{
		char *p = (char *)(((uintptr_t)buf + 4095) & ~4095ul) + 100;

		va = hlthunk_host_memory_map(st->fd, p, 0, 3 * 4096);
		assert_int_not_equal(va, 0);
		assert_int_equal(va % 4096, 100);
		assert_true(va >= st->hw_ip.host_va_start &&
			    va < st->hw_ip.host_va_end);
		assert_int_equal(hltests_debugfs_value(0, "pinned_host_pages"),
				 pinned0 + 4);
		/* UNMAP takes exactly the address MAP returned */
		assert_int_equal(hlthunk_memory_unmap(st->fd, va - 100), -EINVAL);
		assert_int_equal(hlthunk_memory_unmap(st->fd, va), 0);
	}
	assert_int_equal(hltests_debugfs_value(0, "pinned_host_pages"), pinned0);
	free(buf);
}

static void test_hints_honoured(void **state)
{
	struct hltests_state *st = *state;
	uint64_t h1, h2, va, va2, hint;
	void *host;

	hint = st->hw_ip.dram_va_start + 64 * st->hw_ip.dram_page_size;
	h1 = hlthunk_device_memory_alloc(st->fd, 2 * MB, 0, false, false);
	h2 = hlthunk_device_memory_alloc(st->fd, 2 * MB, 0, false, false);
	assert_int_not_equal(h1, 0);
	assert_int_not_equal(h2, 0);

	assert_int_equal(raw_map_dev(st->fd, h1, hint, HL_MEM_FORCE_HINT, &va), 0);
	assert_int_equal(va, hint);
	/* Taken: forced fails cleanly, unforced goes elsewhere */
	assert_int_equal(raw_map_dev(st->fd, h2, hint, HL_MEM_FORCE_HINT, &va2),
			 -EBUSY);
	assert_int_equal(raw_map_dev(st->fd, h2, hint, 0, &va2), 0);
	assert_int_not_equal(va2, hint);
	/* Misaligned and out-of-range forced hints */
	assert_int_equal(raw_map_dev(st->fd, h2, hint + 4096, HL_MEM_FORCE_HINT,
				     NULL), -EINVAL);
	assert_int_equal(raw_map_dev(st->fd, h2, 0x1000, HL_MEM_FORCE_HINT, NULL),
			 -EINVAL);
	assert_int_equal(hlthunk_memory_unmap(st->fd, va), 0);
	assert_int_equal(hlthunk_memory_unmap(st->fd, va2), 0);

	/* Host hint */
	host = aligned_alloc(4096, 4096);
	assert_non_null(host);
	hint = st->hw_ip.host_va_start + 0x123000;
	assert_int_equal(raw_map_host(st->fd, host, 4096, hint, HL_MEM_FORCE_HINT,
				      &va), 0);
	assert_int_equal(va, hint);
	assert_int_equal(raw_map_host(st->fd, host, 4096, hint, HL_MEM_FORCE_HINT,
				      NULL), -EBUSY);
	assert_int_equal(hlthunk_memory_unmap(st->fd, va), 0);
	free(host);

	assert_int_equal(hlthunk_device_memory_free(st->fd, h1), 0);
	assert_int_equal(hlthunk_device_memory_free(st->fd, h2), 0);
}

static void test_error_table(void **state)
{
	struct hltests_state *st = *state;
	uint64_t handle, va;
	union hl_mem_args a;
	char *host;

	/* ALLOC */
	assert_int_equal(raw_alloc(st->fd, 0, 0, 0, NULL), -EINVAL);
	assert_int_equal(raw_alloc(st->fd, MB, 4096, 0, NULL), -EINVAL);
	assert_int_equal(raw_alloc(st->fd, MB, 3 * MB, 0, NULL), -EINVAL);
	assert_int_equal(raw_alloc(st->fd, MB, 0, 0x80, NULL), -EINVAL);
	assert_int_equal(raw_alloc(st->fd, UINT64_MAX, 0, 0, NULL), -ENOMEM);
	assert_int_equal(raw_alloc(st->fd, st->hw_ip.dram_size + 1, 0, 0, NULL),
			 -ENOMEM);
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_ALLOC;
	a.in.alloc.mem_size = MB;
	a.in.pad = 1;
	assert_int_equal(hltests_mem_ioctl(st->fd, &a), -EINVAL);
	a.in.pad = 0;
	a.in.ctx_id = 3;
	assert_int_equal(hltests_mem_ioctl(st->fd, &a), -EINVAL);
	/* Upstream's ops for HW blocks and interrupt timestamps: none here */
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_MAP_BLOCK;
	assert_int_equal(hltests_mem_ioctl(st->fd, &a), -EOPNOTSUPP);
	a.in.op = HL_MEM_OP_TS_ALLOC;
	a.in.num_of_elements = 16;
	assert_int_equal(hltests_mem_ioctl(st->fd, &a), -EOPNOTSUPP);
	/* Unknown op; ctx_id is checked first */
	a.in.ctx_id = 1;
	assert_int_equal(hltests_mem_ioctl(st->fd, &a), -EINVAL);
	memset(&a, 0, sizeof(a));
	a.in.op = 7;
	assert_int_equal(hltests_mem_ioctl(st->fd, &a), -EINVAL);
	a.in.op = 77;
	assert_int_equal(hltests_mem_ioctl(st->fd, &a), -EINVAL);

	/* FREE: unknown handle, double free */
	assert_int_equal(raw_free(st->fd, 0), -EINVAL);
	assert_int_equal(raw_free(st->fd, 0xdeadbeefcafeull), -EINVAL);
	assert_int_equal(raw_alloc(st->fd, MB, 0, 0, &handle), 0);
	assert_int_equal(raw_free(st->fd, handle), 0);
	assert_int_equal(raw_free(st->fd, handle), -EINVAL);

	/* MAP: unknown handle, bad flags, bad host ranges */
	assert_int_equal(raw_map_dev(st->fd, handle, 0, 0, NULL), -EINVAL);
	assert_int_equal(raw_map_dev(st->fd, 12345, 0, 0, NULL), -EINVAL);
	assert_int_equal(raw_alloc(st->fd, MB, 0, 0, &handle), 0);
	assert_int_equal(raw_map_dev(st->fd, handle, 0, 0x100, NULL), -EINVAL);
	host = aligned_alloc(4096, 8192);
	assert_non_null(host);
	assert_int_equal(raw_map_host(st->fd, host, 0, 0, 0, NULL), -EINVAL);
	assert_int_equal(raw_map_host(st->fd, (void *)(uintptr_t)UINT64_MAX - 10,
				      100, 0, 0, NULL), -EINVAL);
	/* Kernel addresses and unmapped user memory */
	assert_int_equal(raw_map_host(st->fd, (void *)0xffff888000000000ull, 4096,
				      0, 0, NULL), -EINVAL);
	assert_int_equal(raw_map_host(st->fd, (void *)0x10000, 4096, 0, 0, NULL),
			 -EFAULT);

	/* UNMAP: unknown VA, twice */
	assert_int_equal(raw_unmap(st->fd, 0), -EINVAL);
	assert_int_equal(raw_unmap(st->fd, st->hw_ip.dram_va_start), -EINVAL);
	assert_int_equal(raw_map_dev(st->fd, handle, 0, 0, &va), 0);
	assert_int_equal(raw_unmap(st->fd, va + st->hw_ip.dram_page_size), -EINVAL);
	assert_int_equal(raw_unmap(st->fd, va), 0);
	assert_int_equal(raw_unmap(st->fd, va), -EINVAL);
	assert_int_equal(raw_free(st->fd, handle), 0);
	free(host);

	/* Bad argument pointer */
	assert_int_equal(ioctl(st->fd, HL_IOCTL_MEMORY, (void *)8), -1);
	assert_int_equal(errno, EFAULT);
	assert_int_equal(hltests_ctx_dram(st->fd), 0);
}

static void test_read_only_host_memory_cannot_be_pinned(void **state)
{
	struct hltests_state *st = *state;
	void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(ro != MAP_FAILED);
	/* Mapped for device writes: pinning needs write access */
	assert_int_equal(raw_map_host(st->fd, ro, 4096, 0, 0, NULL), -EFAULT);
	munmap(ro, 4096);
}

static void test_foreign_handle_and_va(void **state)
{
	int fd0, fd1;
	uint64_t h, va, h1;

	(void)state;
	if (hltests_num_devices() < 2)
		skip();
	fd0 = hltests_open_node(0, 0);
	fd1 = hltests_open_node(1, 0);
	assert_true(fd0 >= 0 && fd1 >= 0);

	assert_int_equal(raw_alloc(fd0, MB, 0, 0, &h), 0);
	assert_int_equal(raw_map_dev(fd0, h, 0, 0, &va), 0);
	/* Device 1's context has neither: -EINVAL, never device 0's memory */
	assert_int_equal(raw_free(fd1, h), -EINVAL);
	assert_int_equal(raw_map_dev(fd1, h, 0, 0, NULL), -EINVAL);
	assert_int_equal(raw_unmap(fd1, va), -EINVAL);
	/* A handle of its own does not unlock another one's */
	assert_int_equal(raw_alloc(fd1, MB, 0, 0, &h1), 0);
	assert_int_equal(raw_free(fd1, h1), 0);
	assert_int_equal(raw_unmap(fd0, va), 0);
	assert_int_equal(raw_free(fd0, h), 0);

	/* A later context of the same device does not see the old handles */
	assert_int_equal(raw_alloc(fd0, MB, 0, 0, &h), 0);
	close(fd0);
	fd0 = hltests_open_node(0, 0);
	assert_true(fd0 >= 0);
	assert_int_equal(raw_free(fd0, h), -EINVAL);
	close(fd0);
	close(fd1);
}

static void alloc_until_full(int fd, uint64_t dram_size, bool contiguous,
			     bool mixed)
{
	uint64_t *handles, chunk = 2 * MB, n = 0, i;
	uint64_t max = dram_size / chunk + 1;
	int rc;

	handles = calloc(max, sizeof(*handles));
	assert_non_null(handles);
	for (;;) {
		bool c = mixed ? (n & 1) : contiguous;
		uint64_t size = mixed && (n % 3 == 0) ? 3 * chunk : chunk;

		rc = raw_alloc(fd, size, 0, c ? HL_MEM_CONTIGUOUS : 0, &handles[n]);
		if (rc == -ENOMEM && mixed && size > chunk)
			rc = raw_alloc(fd, chunk, 0, 0, &handles[n]);
		if (rc) {
			assert_int_equal(rc, -ENOMEM);
			break;
		}
		n++;
		assert_true(n < max);
	}
	/* Full: nothing at all is left */
	assert_int_equal(hltests_dram_free(fd), 0);
	assert_int_equal(hltests_ctx_dram(fd), dram_size);
	for (i = 0; i < n; i++)
		assert_int_equal(raw_free(fd, handles[i]), 0);
	assert_int_equal(hltests_dram_free(fd), dram_size);
	free(handles);
}

static void test_alloc_until_full_contiguous(void **state)
{
	struct hltests_state *st = *state;

	alloc_until_full(st->fd, st->hw_ip.dram_size, true, false);
}

static void test_alloc_until_full_noncontiguous(void **state)
{
	struct hltests_state *st = *state;

	alloc_until_full(st->fd, st->hw_ip.dram_size, false, false);
}

static void test_alloc_until_full_mixed(void **state)
{
	struct hltests_state *st = *state;

	alloc_until_full(st->fd, st->hw_ip.dram_size, false, true);
}

static void test_whole_dram_in_one_allocation(void **state)
{
	struct hltests_state *st = *state;
	uint64_t h, va;

	assert_int_equal(raw_alloc(st->fd, st->hw_ip.dram_size, 0,
				   HL_MEM_CONTIGUOUS, &h), 0);
	assert_int_equal(hltests_dram_free(st->fd), 0);
	assert_int_equal(raw_alloc(st->fd, MB, 0, 0, NULL), -ENOMEM);
	assert_int_equal(raw_map_dev(st->fd, h, 0, 0, &va), 0);
	assert_int_equal(raw_unmap(st->fd, va), 0);
	assert_int_equal(raw_free(st->fd, h), 0);
}

/* Fragmented DRAM: a contiguous request larger than any hole fails */
static void test_contiguous_needs_one_hole(void **state)
{
	struct hltests_state *st = *state;
	uint64_t n = st->hw_ip.dram_size / (2 * MB), i, h;
	uint64_t *handles = calloc(n, sizeof(*handles));

	assert_non_null(handles);
	for (i = 0; i < n; i++)
		assert_int_equal(raw_alloc(st->fd, 2 * MB, 0, 0, &handles[i]), 0);
	/* Free every other page: half the DRAM free, no 4 MiB hole */
	for (i = 0; i < n; i += 2)
		assert_int_equal(raw_free(st->fd, handles[i]), 0);
	assert_int_equal(raw_alloc(st->fd, 4 * MB, 0, HL_MEM_CONTIGUOUS, NULL),
			 -ENOMEM);
	/* Non-contiguous takes the scattered pages */
	assert_int_equal(raw_alloc(st->fd, 8 * MB, 0, 0, &h), 0);
	assert_int_equal(raw_free(st->fd, h), 0);
	for (i = 1; i < n; i += 2)
		assert_int_equal(raw_free(st->fd, handles[i]), 0);
	assert_int_equal(hltests_dram_free(st->fd), st->hw_ip.dram_size);
	free(handles);
}

static void test_close_releases_everything(void **state)
{
	uint64_t size, h, va;
	long long pinned0;
	char *host;
	int fd, i;

	(void)state;
	pinned0 = hltests_debugfs_value(0, "pinned_host_pages");
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	size = hltests_dram_free(fd);

	host = aligned_alloc(4096, 64 * 4096);
	assert_non_null(host);
	memset(host, 0, 64 * 4096);
	for (i = 0; i < 8; i++) {
		assert_int_equal(raw_alloc(fd, 6 * MB, 0, i & 1 ? HL_MEM_CONTIGUOUS : 0,
					   &h), 0);
		if (i < 6)
			assert_int_equal(raw_map_dev(fd, h, 0, 0, &va), 0);
		assert_int_equal(raw_map_host(fd, host + i * 8 * 4096, 8 * 4096, 0,
					      0, &va), 0);
	}
	assert_int_equal(hltests_debugfs_value(0, "pinned_host_pages"), pinned0 + 64);
	assert_int_equal(hltests_dram_free(fd), size - 8 * 6 * MB);
	close(fd);

	/* Everything is back, seen from the next context */
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	assert_int_equal(hltests_dram_free(fd), size);
	assert_int_equal(hltests_ctx_dram(fd), 0);
	assert_int_equal(hltests_debugfs_value(0, "pinned_host_pages"), pinned0);
	close(fd);
	free(host);
}

/*
 * Released DRAM is zeroed in the background (dram_scrub_pending in debugfs
 * counts what is left): wait until the scrubber is done, so that the next
 * allocation gets the lowest clean pages, deterministically.
 */
static void wait_scrubbed(void)
{
	int i;

	for (i = 0; hltests_debugfs_value(0, "dram_scrub_pending"); i++) {
		assert_true(i < 30000);
		usleep(1000);
	}
}

/*
 * Context A writes a pattern into DRAM and goes; once the scrubber is done
 * with it, context B allocates the same amount, which gives it A's pages.
 * Returns how many bytes of A's pattern B reads back.
 */
static uint64_t leftover_bytes(uint64_t size)
{
	struct hltests_dram_buf a, b;
	uint64_t seed = 0x1eaf, i, same = 0;
	uint8_t *pat = malloc(size), *got = malloc(size);
	int fd;

	assert_non_null(pat);
	assert_non_null(got);
	hltests_fill_random(&seed, pat, size);

	wait_scrubbed();
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	hltests_dram_map(fd, &a, size, true);
	hltests_write_device(fd, a.va, pat, size);
	close(fd);

	wait_scrubbed();
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	hltests_dram_map(fd, &b, size, true);
	hltests_read_device(fd, b.va, got, size);
	for (i = 0; i < size; i++)
		same += got[i] && got[i] == pat[i];
	close(fd);
	free(pat);
	free(got);
	return same;
}

/*
 * Allocations start zeroed (module parameter memory_scrub, default on:
 * released DRAM is scrubbed in the background): no context reads what an
 * earlier one left. With scrubbing off, the same sequence must show the old
 * data, which proves the pages were reused and the check can fail.
 */
static void test_allocations_start_zeroed(void **state)
{
	const char *param = "/sys/module/habanalabs/parameters/memory_scrub";
	char old[8];

	(void)state;
	assert_int_equal(hltests_read_file(param, old, sizeof(old)), 0);
	assert_string_equal(old, "Y");

	assert_int_equal(leftover_bytes(4 * MB), 0);

	assert_int_equal(hltests_write_file(param, "0"), 0);
	assert_true(leftover_bytes(4 * MB) > 3 * MB);
	assert_int_equal(hltests_write_file(param, "1"), 0);

	assert_int_equal(leftover_bytes(4 * MB), 0);
}

/* One host buffer may be mapped more than once, at distinct device VAs */
static void test_map_host_same_buffer_twice(void **state)
{
	struct hltests_state *st = *state;
	char *host = aligned_alloc(4096, 4 * 4096);
	uint64_t va1, va2;

	assert_non_null(host);
	memset(host, 0, 4 * 4096);
	va1 = hlthunk_host_memory_map(st->fd, host, 0, 4 * 4096);
	va2 = hlthunk_host_memory_map(st->fd, host, 0, 4 * 4096);
	assert_int_not_equal(va1, 0);
	assert_int_not_equal(va2, 0);
	assert_int_not_equal(va1, va2);
	assert_int_equal(hlthunk_memory_unmap(st->fd, va1), 0);
	assert_int_equal(hlthunk_memory_unmap(st->fd, va2), 0);
	free(host);
}

/*
 * Random alloc/map/copy/unmap/free sequences against a model: every result
 * the driver gives must match what the model predicts, the accounting must
 * agree at every step, and data written through one mapping of an
 * allocation must read back through another. The seed is printed;
 * HLTESTS_SEED overrides it.
 */
struct model_alloc {
	uint64_t handle;
	uint64_t size;
	int maps;
	uint64_t vas[4];
	/* The last 4 KiB block written into it: offset and pattern seed */
	bool has_data;
	uint64_t data_off;
	uint64_t data_seed;
};

/*
 * Write or check the allocation's data through one of its mappings, chosen
 * at random: data written through one VA must read back through any other,
 * after whatever else happened in between.
 */
static unsigned int model_writes, model_checks;

static void model_copy(int fd, struct model_alloc *a)
{
	uint8_t expect[4096], got[4096];
	uint64_t va = a->vas[rand() % a->maps], seed;

	if (a->has_data && rand() % 2) {
		seed = a->data_seed;
		hltests_fill_random(&seed, expect, sizeof(expect));
		hltests_read_device(fd, va + a->data_off, got, sizeof(got));
		hltests_assert_bytes_equal(got, expect, sizeof(got),
					   "model data read back");
		model_checks++;
		return;
	}
	a->data_off = (uint64_t)rand() % (a->size - sizeof(expect));
	a->data_seed = ((uint64_t)rand() << 32 | (uint64_t)rand()) | 1;
	seed = a->data_seed;
	hltests_fill_random(&seed, expect, sizeof(expect));
	hltests_write_device(fd, va + a->data_off, expect, sizeof(expect));
	a->has_data = true;
	model_writes++;
}

static void test_random_sequences_match_model(void **state)
{
	struct hltests_state *st = *state;
	const char *env = getenv("HLTESTS_SEED");
	unsigned int seed = env ? strtoul(env, NULL, 0) : 0x5eed1234u;
	struct model_alloc allocs[32];
	uint64_t used = 0, free0 = hltests_dram_free(st->fd);
	int n = 0, step, i;

	print_message("seed 0x%x (set HLTESTS_SEED to replay)\n", seed);
	srand(seed);
	memset(allocs, 0, sizeof(allocs));

	for (step = 0; step < 600; step++) {
		int op = rand() % 5;

		if (op == 4) {
			i = n ? rand() % n : 0;
			if (n && allocs[i].maps)
				model_copy(st->fd, &allocs[i]);
			continue;
		}

		if (op == 0 && n < 32) {
			uint64_t size = (uint64_t)(1 + rand() % 12) * MB;
			uint64_t rounded = (size + 2 * MB - 1) & ~(2 * MB - 1);
			uint64_t h;
			int rc = raw_alloc(st->fd, size, 0,
					   rand() % 2 ? HL_MEM_CONTIGUOUS : 0, &h);

			if (used + rounded > st->hw_ip.dram_size) {
				assert_int_equal(rc, -ENOMEM);
				continue;
			}
			/* Contiguous may fail on fragmentation only */
			if (rc == -ENOMEM)
				continue;
			assert_int_equal(rc, 0);
			memset(&allocs[n], 0, sizeof(allocs[n]));
			allocs[n].handle = h;
			allocs[n].size = rounded;
			n++;
			used += rounded;
		} else if (op == 1 && n) {
			i = rand() % n;
			if (allocs[i].maps) {
				assert_int_equal(raw_free(st->fd, allocs[i].handle),
						 -EBUSY);
				continue;
			}
			assert_int_equal(raw_free(st->fd, allocs[i].handle), 0);
			used -= allocs[i].size;
			allocs[i] = allocs[--n];
		} else if (op == 2 && n) {
			i = rand() % n;
			if (allocs[i].maps == 4)
				continue;
			assert_int_equal(raw_map_dev(st->fd, allocs[i].handle, 0, 0,
						     &allocs[i].vas[allocs[i].maps]), 0);
			allocs[i].maps++;
		} else if (op == 3 && n) {
			i = rand() % n;
			if (!allocs[i].maps)
				continue;
			allocs[i].maps--;
			assert_int_equal(raw_unmap(st->fd, allocs[i].vas[allocs[i].maps]),
					 0);
			assert_int_equal(raw_unmap(st->fd, allocs[i].vas[allocs[i].maps]),
					 -EINVAL);
		}
		assert_int_equal(hltests_ctx_dram(st->fd), used);
		assert_int_equal(hltests_dram_free(st->fd), free0 - used);
	}
	print_message("%u writes, %u read-back checks through the MMU\n",
		      model_writes, model_checks);
	assert_true(model_checks > 10);
	for (i = 0; i < n; i++) {
		while (allocs[i].maps--)
			assert_int_equal(raw_unmap(st->fd,
						   allocs[i].vas[allocs[i].maps]), 0);
		assert_int_equal(raw_free(st->fd, allocs[i].handle), 0);
	}
	assert_int_equal(hltests_dram_free(st->fd), free0);
}

/* Extensible args: a newer, larger struct works iff its tail is zero */
static void test_larger_args_struct(void **state)
{
	struct hltests_state *st = *state;
	union hl_mem_args a;

	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_ALLOC;
	a.in.alloc.mem_size = MB;
	/* A struct 8 bytes larger with a non-zero tail is refused */
	{
		struct {
			union hl_mem_args a;
			uint64_t tail;
		} big = { .a = a, .tail = 1 };

		assert_int_equal(hltests_ioctl_sized(st->fd, HL_IOCTL_MEMORY,
						     sizeof(big), &big), -E2BIG);
		big.tail = 0;
		assert_int_equal(hltests_ioctl_sized(st->fd, HL_IOCTL_MEMORY,
						     sizeof(big), &big), 0);
		assert_int_equal(raw_free(st->fd, big.a.out.handle), 0);
	}
}

const struct CMUnitTest memory_tests[] = {
	cmocka_unit_test_setup_teardown(test_alloc_map_unmap_free,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_contiguous_and_mapped_twice,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_host_map_unaligned,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_hints_honoured,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_error_table,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_read_only_host_memory_cannot_be_pinned,
					hltests_setup, hltests_teardown),
	cmocka_unit_test(test_foreign_handle_and_va),
	cmocka_unit_test_setup_teardown(test_alloc_until_full_contiguous,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_alloc_until_full_noncontiguous,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_alloc_until_full_mixed,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_whole_dram_in_one_allocation,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_contiguous_needs_one_hole,
					hltests_setup, hltests_teardown),
	cmocka_unit_test(test_close_releases_everything),
	cmocka_unit_test(test_allocations_start_zeroed),
	cmocka_unit_test_setup_teardown(test_map_host_same_buffer_twice,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_random_sequences_match_model,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_larger_args_struct,
					hltests_setup, hltests_teardown),
};

int main(void)
{
	return HLTESTS_RUN("memory", memory_tests);
}

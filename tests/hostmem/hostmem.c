// SPDX-License-Identifier: MIT
/*
 * Host memory mapped to the device (HL_MEM_OP_MAP with HL_MEM_USERPTR):
 * charged to RLIMIT_MEMLOCK through the process's pinned memory (VmPin)
 * unless it has CAP_IPC_LOCK; absurd sizes refused before anything is
 * allocated; one host page in at most HL_MEM_MAX_HOST_PAGE_MAPS mappings.
 *
 * The unprivileged cases run in a forked child that opens the device as
 * root, then sets RLIMIT_MEMLOCK and becomes uid/gid 65534, which drops
 * every capability.
 */
#include "hltests.h"

#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE		4096ul
#define KiB		1024ul
#define MiB		(1024ul * 1024)
#define WAIT_US		(120ull * 1000 * 1000)
#define NOBODY		65534
#define CAP_IPC_LOCK_BIT	14

/* ---- helpers ---- */

/* A "Key:  value" line of /proc/self/status, as a number */
static unsigned long long proc_status(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	unsigned long long v = ~0ull;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = strtoull(line + n + 1, NULL, key[0] == 'C' ? 16 : 10);
			break;
		}
	fclose(f);
	return v;
}

static unsigned long long vm_pin_bytes(void)
{
	return proc_status("VmPin") * KiB;
}

/* MAP @size bytes at @p; returns 0 and *va, or -errno */
static int map_host(int fd, void *p, uint64_t size, uint64_t *va)
{
	union hl_mem_args a;

	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_MAP;
	a.in.flags = HL_MEM_USERPTR;
	a.in.map_host.host_virt_addr = (uint64_t)(uintptr_t)p;
	a.in.map_host.mem_size = size;
	if (ioctl(fd, HL_IOCTL_MEMORY, &a))
		return -errno;
	*va = a.out.device_virt_addr;
	return 0;
}

static void *map_anon(size_t size, int prot)
{
	void *p = mmap(NULL, size, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* One page at @addr exactly */
static void *map_low(void *addr, int prot)
{
	void *p = mmap(addr, PAGE, prot,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	return p == addr ? p : NULL;
}

/*
 * Checks inside a child: a failed one prints where and exits with the
 * line number.
 */
#define CHILD_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "child: line %d: %s failed (errno %d)\n", \
				__LINE__, #cond, errno);		\
			_exit(__LINE__ & 0x7f ?: 1);			\
		}							\
	} while (0)

/*
 * Runs @fn(fd) in a child that opened device 0, set RLIMIT_MEMLOCK to
 * @memlock (unless 0) and, when @drop, became uid/gid 65534; fails the
 * test unless the child exits 0.
 */
static void run_child(bool drop, rlim_t memlock, void (*fn)(int fd))
{
	int status, fd;
	pid_t pid;

	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct rlimit rl = { memlock, memlock };

		fd = hltests_open_node(0, 0);
		CHILD_CHECK(fd >= 0);
		if (memlock)
			CHILD_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0);
		if (drop) {
			CHILD_CHECK(setgroups(0, NULL) == 0);
			CHILD_CHECK(setgid(NOBODY) == 0);
			CHILD_CHECK(setuid(NOBODY) == 0);
			CHILD_CHECK(proc_status("CapEff") == 0);
		} else {
			CHILD_CHECK(proc_status("CapEff") &
				    (1ull << CAP_IPC_LOCK_BIT));
		}
		fn(fd);
		close(fd);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* ---- RLIMIT_MEMLOCK ---- */

static void unprivileged_memlock(int fd)
{
	uint8_t *buf = map_anon(MiB, PROT_READ | PROT_WRITE);
	uint64_t va, va2;

	CHILD_CHECK(buf);
	memset(buf, 1, MiB);
	CHILD_CHECK(vm_pin_bytes() == 0);

	/* 1 MiB past the 64 KiB limit: ENOMEM, nothing pinned */
	CHILD_CHECK(map_host(fd, buf, MiB, &va) == -ENOMEM);
	CHILD_CHECK(vm_pin_bytes() == 0);

	/* Twice 32 KiB fits, charged while mapped; one page more does not */
	CHILD_CHECK(map_host(fd, buf, 32 * KiB, &va) == 0);
	CHILD_CHECK(vm_pin_bytes() == 32 * KiB);
	CHILD_CHECK(map_host(fd, buf + 32 * KiB, 32 * KiB, &va2) == 0);
	CHILD_CHECK(vm_pin_bytes() == 64 * KiB);
	CHILD_CHECK(map_host(fd, buf + 64 * KiB, PAGE, &va2) == -ENOMEM);
	CHILD_CHECK(vm_pin_bytes() == 64 * KiB);

	/* UNMAP gives it back */
	CHILD_CHECK(hlthunk_memory_unmap(fd, va) == 0);
	CHILD_CHECK(vm_pin_bytes() == 32 * KiB);
	CHILD_CHECK(map_host(fd, buf, 32 * KiB, &va) == 0);
	CHILD_CHECK(hlthunk_memory_unmap(fd, va) == 0);
	CHILD_CHECK(hlthunk_memory_unmap(fd, va2) == 0);
	CHILD_CHECK(vm_pin_bytes() == 0);
}

static void test_memlock_limits_unprivileged_map(void **state)
{
	(void)state;
	run_child(true, 64 * KiB, unprivileged_memlock);
}

static void privileged_memlock(int fd)
{
	uint8_t *buf = map_anon(MiB, PROT_READ | PROT_WRITE);
	uint64_t va;

	CHILD_CHECK(buf);
	CHILD_CHECK(vm_pin_bytes() == 0);
	/* CAP_IPC_LOCK: the limit does not apply, the charge does */
	CHILD_CHECK(map_host(fd, buf, MiB, &va) == 0);
	CHILD_CHECK(vm_pin_bytes() == MiB);
	CHILD_CHECK(hlthunk_memory_unmap(fd, va) == 0);
	CHILD_CHECK(vm_pin_bytes() == 0);
}

static void test_cap_ipc_lock_passes_memlock(void **state)
{
	(void)state;
	run_child(false, 64 * KiB, privileged_memlock);
}

/* The charge leaves with the mappings when the file is closed */
static void test_close_uncharges(void **state)
{
	uint8_t *buf = map_anon(MiB, PROT_READ | PROT_WRITE);
	unsigned long long pinned;
	int fd, rc1, rc2;
	uint64_t va;

	(void)state;
	assert_non_null(buf);
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	assert_int_equal(vm_pin_bytes(), 0);
	rc1 = map_host(fd, buf, MiB, &va);
	rc2 = map_host(fd, buf, 256 * KiB, &va);
	pinned = vm_pin_bytes();
	close(fd);
	assert_int_equal(rc1, 0);
	assert_int_equal(rc2, 0);
	assert_int_equal(pinned, MiB + 256 * KiB);
	assert_int_equal(vm_pin_bytes(), 0);
	assert_int_equal(hltests_debugfs_value(0, "pinned_host_pages"), 0);
	munmap(buf, MiB);
}

/* ---- absurd sizes ---- */

static void absurd_sizes(int fd)
{
	static const uint64_t sizes[] = { 1ull << 40, 1ull << 41, 1ull << 36 };
	/*
	 * Low in the address space, so that the whole range is user space
	 * (mmap's default places near its top)
	 */
	uint8_t *buf = map_low((void *)(1ull << 40), PROT_READ | PROT_WRITE);
	uint8_t *none = map_low((void *)(1ull << 40) + PAGE, PROT_NONE);
	uint64_t va;
	size_t i;
	int rc;

	CHILD_CHECK(buf && none);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		/* More than the machine's RAM: refused up front */
		CHILD_CHECK(map_host(fd, buf, sizes[i], &va) == -ENOMEM);
		CHILD_CHECK(map_host(fd, none, sizes[i], &va) == -ENOMEM);
	}
	/*
	 * Within RAM but past the buffer: EFAULT with the pins so far undone
	 * (or ENOMEM past RLIMIT_MEMLOCK, unprivileged)
	 */
	rc = map_host(fd, buf, 64 * MiB, &va);
	CHILD_CHECK(rc == -EFAULT || rc == -ENOMEM);
	rc = map_host(fd, none, 64 * MiB, &va);
	CHILD_CHECK(rc == -EFAULT || rc == -ENOMEM);
	/* Past the user address space: EINVAL */
	CHILD_CHECK(map_host(fd, buf, 1ull << 62, &va) == -EINVAL);
	CHILD_CHECK(vm_pin_bytes() == 0);
	/* The device still maps what fits */
	CHILD_CHECK(map_host(fd, buf, PAGE, &va) == 0);
	CHILD_CHECK(hlthunk_memory_unmap(fd, va) == 0);
}

static void test_absurd_host_map_refused_root(void **state)
{
	(void)state;
	run_child(false, 0, absurd_sizes);
	assert_int_equal(hltests_debugfs_value(0, "pinned_host_pages"), 0);
}

static void test_absurd_host_map_refused_unprivileged(void **state)
{
	(void)state;
	run_child(true, 0, absurd_sizes);
	assert_int_equal(hltests_debugfs_value(0, "pinned_host_pages"), 0);
}

/* ---- one host page in many mappings ---- */

static void test_same_page_mapped_up_to_limit(void **state)
{
	struct hltests_state *st = *state;
	uint64_t va[HL_MEM_MAX_HOST_PAGE_MAPS], extra, dst_va, cb_va;
	uint8_t *page = map_anon(PAGE, PROT_READ | PROT_WRITE);
	uint8_t *two = map_anon(2 * PAGE, PROT_READ | PROT_WRITE);
	struct hltests_host_buf cb, dst;
	uint32_t i, size = 0;

	assert_non_null(page);
	assert_non_null(two);
	memset(page, 0, PAGE);
	for (i = 0; i < HL_MEM_MAX_HOST_PAGE_MAPS; i++)
		assert_int_equal(map_host(st->fd, page, PAGE, &va[i]), 0);
	/* One more mapping of the page, alone or in a larger buffer: EBUSY */
	assert_int_equal(map_host(st->fd, page, PAGE, &extra), -EBUSY);
	assert_int_equal(map_host(st->fd, page + 100, 8, &extra), -EBUSY);
	/* Other pages are not affected */
	assert_int_equal(map_host(st->fd, two, 2 * PAGE, &extra), 0);
	assert_int_equal(hlthunk_memory_unmap(st->fd, extra), 0);

	/* Each mapping writes and reads the page */
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &dst, PAGE);
	for (i = 0; i < HL_MEM_MAX_HOST_PAGE_MAPS; i++)
		size += hlthunk_pkt_msg_long(cb.ptr + size, va[i] + 64 * i,
					     0xc0de0000 + i);
	hltests_run_cb_ok(st->fd, 0, cb.va, size);
	for (i = 0; i < HL_MEM_MAX_HOST_PAGE_MAPS; i++)
		assert_int_equal(*(volatile uint32_t *)(page + 64 * i),
				 0xc0de0000 + i);

	for (i = 0; i < HL_MEM_MAX_HOST_PAGE_MAPS; i++)
		page[2048 + i] = (uint8_t)(0x50 + i);
	size = 0;
	for (i = 0; i < HL_MEM_MAX_HOST_PAGE_MAPS; i++) {
		dst_va = dst.va + 16 * i;
		size += hlthunk_pkt_lin_dma(cb.ptr + size, va[i] + 2048 + i,
					    dst_va, 1);
	}
	cb_va = cb.va;
	hltests_run_cb_ok(st->fd, 0, cb_va, size);
	for (i = 0; i < HL_MEM_MAX_HOST_PAGE_MAPS; i++)
		assert_int_equal(dst.ptr[16 * i], 0x50 + i);

	/* An unmap makes room for one mapping again */
	assert_int_equal(hlthunk_memory_unmap(st->fd, va[0]), 0);
	assert_int_equal(map_host(st->fd, page, PAGE, &va[0]), 0);
	assert_int_equal(map_host(st->fd, page, PAGE, &extra), -EBUSY);
	for (i = 0; i < HL_MEM_MAX_HOST_PAGE_MAPS; i++)
		assert_int_equal(hlthunk_memory_unmap(st->fd, va[i]), 0);

	hltests_host_unmap(st->fd, &cb);
	hltests_host_unmap(st->fd, &dst);
	munmap(page, PAGE);
	munmap(two, 2 * PAGE);
}

static const struct CMUnitTest hostmem_tests[] = {
	cmocka_unit_test(test_memlock_limits_unprivileged_map),
	cmocka_unit_test(test_cap_ipc_lock_passes_memlock),
	cmocka_unit_test(test_close_uncharges),
	cmocka_unit_test(test_absurd_host_map_refused_root),
	cmocka_unit_test(test_absurd_host_map_refused_unprivileged),
	cmocka_unit_test_setup_teardown(test_same_page_mapped_up_to_limit,
					hltests_setup, hltests_teardown),
};

int main(void)
{
	return HLTESTS_RUN("hostmem", hostmem_tests);
}

// SPDX-License-Identifier: MIT
/*
 * runtime: what a runtime built on hl-thunk uses on every step, through
 * libhlthunk's hl-thunk calls: driver-owned command buffers (HL_IOCTL_CB,
 * mmap, usage count, teardown on reset), WAIT_CS's multi-CS mode, device
 * events through an eventfd (each source fires; an unregistered, closed or
 * other file's eventfd is never signalled), the device's counters, event
 * records and engine status, and hl-thunk's hash helpers.
 */
#include "hltests.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KB		1024ull
#define MB		(1024ull * KB)
#define PAGE		4096ull
#define WAIT_US		(120ull * 1000 * 1000)
#define RESET_PATH	"/sys/class/habanalabs/hl0/hard_reset"

/* ------------------------------------------------------------------------
 * Helpers
 */

static int cb_ioctl(int fd, union hl_cb_args *a)
{
	return ioctl(fd, HL_IOCTL_CB, a) ? -errno : 0;
}

/* Submit one chunk (raw ioctl); returns 0 or -errno, *seq the sequence */
static int submit_one(int fd, uint32_t queue, uint64_t cb, uint32_t size,
		      uint32_t timeout_s, uint64_t *seq)
{
	struct hl_cs_chunk c;
	union hl_cs_args a;
	int rc;

	memset(&c, 0, sizeof(c));
	c.cb_handle = cb;
	c.queue_index = queue;
	c.cb_size = size;
	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uint64_t)(uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	a.in.timeout = timeout_s;
	rc = hltests_cs_ioctl(fd, &a);
	if (!rc)
		*seq = a.out.seq;
	return rc;
}

static uint8_t *cb_mmap(int fd, uint64_t handle, uint64_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       (off_t)handle);

	assert_true(p != MAP_FAILED);
	return p;
}

/* A CB of @count MEMSETs of the whole of @d: @count x (fill @d) of work */
static uint32_t long_cb(uint8_t *p, const struct hltests_dram_buf *d,
			uint32_t count)
{
	uint8_t *start = p;
	uint32_t i;

	for (i = 0; i < count; i++)
		p += hlthunk_pkt_memset(p, d->va, i, d->size);
	return p - start;
}

/*
 * A mapped CB holding about @seconds of MEMSET work on @d (measured);
 * returns its handle, *size the bytes of packets.
 */
static uint64_t busy_cb(int fd, struct hltests_dram_buf *d, double seconds,
			uint32_t *size)
{
	const uint64_t cb_size = 1 * MB;
	uint64_t h, t0, seq;
	uint32_t status, count;
	uint8_t *p;
	double one;

	assert_int_equal(hlthunk_request_mapped_command_buffer(fd, cb_size, &h), 0);
	p = cb_mmap(fd, h, cb_size);
	hltests_dram_map(fd, d, 32 * MB, false);
	t0 = hltests_clock_ns(CLOCK_MONOTONIC);
	assert_int_equal(submit_one(fd, 0, h, long_cb(p, d, 4), 0, &seq), 0);
	assert_int_equal(hlthunk_wait_for_cs(fd, seq, WAIT_US, &status), 0);
	one = (hltests_clock_ns(CLOCK_MONOTONIC) - t0) / 4e9;
	count = (uint32_t)(seconds / one) + 1;
	if (count > cb_size / HLTHUNK_PKT_MEMSET_SIZE)
		count = cb_size / HLTHUNK_PKT_MEMSET_SIZE;
	*size = long_cb(p, d, count);
	munmap(p, cb_size);
	return h;
}

/* Whether eventfd @efd is readable within @ms; reads (clears) it if so */
static bool efd_signalled(int efd, int ms)
{
	struct pollfd pfd = { .fd = efd, .events = POLLIN };
	uint64_t v;

	if (poll(&pfd, 1, ms) != 1)
		return false;
	assert_int_equal(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
	return v > 0;
}

static int info_eventfd(int fd, uint32_t op, int efd)
{
	struct hl_info_args a;

	memset(&a, 0, sizeof(a));
	a.op = op;
	a.eventfd = (uint32_t)efd;
	return ioctl(fd, HL_IOCTL_INFO, &a) ? -errno : 0;
}

static uint64_t get_events(int fd)
{
	uint64_t ev = 0xdeadull;

	assert_int_equal(hltests_info(fd, HL_INFO_GET_EVENTS, &ev, sizeof(ev)), 0);
	return ev;
}

/* Run a CS whose only packet is an unknown opcode: it fails (-EIO) */
static void run_malformed(int fd, struct hltests_host_buf *cb)
{
	uint32_t w = 0x7f000000;

	memset(cb->ptr, 0, 16);
	memcpy(cb->ptr, &w, 4);
	hltests_run_cb_aborted(fd, 0, cb->va, 8);
}

/* ------------------------------------------------------------------------
 * Command buffers
 */

/*
 * A mapped CB written through mmap() runs when a chunk names it by handle,
 * and by its device VA; an unmapped one cannot be submitted.
 */
static void test_cb_mmap_and_submit(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf h;
	uint64_t cb, cb2, va, seq;
	uint32_t status, n;
	uint8_t *p;

	hltests_host_map(st->fd, &h, PAGE);
	memset(h.ptr, 0xee, PAGE);

	assert_int_equal(hlthunk_request_mapped_command_buffer(st->fd, 100, &cb), 0);
	assert_int_equal(hlthunk_get_mapped_cb_device_va_by_handle(st->fd, cb, &va), 0);
	print_message("CB handle 0x%" PRIx64 " at device VA 0x%" PRIx64 "\n", cb, va);
	assert_true(va && !(va & (PAGE - 1)));
	/* Not in the user VA ranges */
	assert_true(va < st->hw_ip.host_va_start || va >= st->hw_ip.host_va_end);
	assert_true(va < st->hw_ip.dram_va_start || va >= st->hw_ip.dram_va_end);

	/* 100 bytes rounded up to a page, zeroed */
	p = cb_mmap(st->fd, cb, PAGE);
	for (n = 0; n < PAGE; n++)
		assert_int_equal(p[n], 0);

	n = hlthunk_pkt_memset(p, h.va, 0x5a5a5a5a5a5a5a5aull, 256);
	assert_int_equal(submit_one(st->fd, 1, cb, n, 0, &seq), 0);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, seq, WAIT_US, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	for (n = 0; n < 256; n++)
		assert_int_equal(h.ptr[n], 0x5a);
	assert_int_equal(h.ptr[256], 0xee);

	/* The same through the device VA */
	hlthunk_pkt_memset(p, h.va, 0x1111111111111111ull, 512);
	hltests_run_cb_ok(st->fd, 2, va, HLTHUNK_PKT_MEMSET_SIZE);
	assert_int_equal(h.ptr[511], 0x11);

	/* cb_size beyond the CB's pages */
	assert_int_equal(submit_one(st->fd, 1, cb, PAGE + 8, 0, &seq), -EINVAL);

	/* Negative control: an unmapped CB has no device VA to fetch from */
	assert_int_equal(hlthunk_request_command_buffer(st->fd, PAGE, &cb2), 0);
	assert_int_equal(hlthunk_get_mapped_cb_device_va_by_handle(st->fd, cb2, &va),
			 -EINVAL);
	assert_int_equal(submit_one(st->fd, 1, cb2, 8, 0, &seq), -EINVAL);
	assert_int_equal(hlthunk_destroy_command_buffer(st->fd, cb2), 0);

	munmap(p, PAGE);
	assert_int_equal(hlthunk_destroy_command_buffer(st->fd, cb), 0);
	/* Gone: its handle names nothing */
	assert_int_equal(submit_one(st->fd, 1, cb, 8, 0, &seq), -EINVAL);
	assert_int_equal(hlthunk_destroy_command_buffer(st->fd, cb), -EINVAL);
	hltests_host_unmap(st->fd, &h);
}

/* The usage count counts the running CSs that name the CB */
static void test_cb_usage_count(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_dram_buf d;
	uint64_t cb, s1, s2;
	uint32_t n, cnt, status;

	cb = busy_cb(st->fd, &d, 1.0, &n);
	assert_int_equal(hlthunk_get_cb_usage_count(st->fd, cb, &cnt), 0);
	assert_int_equal(cnt, 0);

	assert_int_equal(submit_one(st->fd, 1, cb, n, 0, &s1), 0);
	assert_int_equal(submit_one(st->fd, 2, cb, n, 0, &s2), 0);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, s2, 0, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_BUSY);
	assert_int_equal(hlthunk_get_cb_usage_count(st->fd, cb, &cnt), 0);
	assert_int_equal(cnt, 2);

	/* Destroyed while in use: the CSs still run it to the end */
	assert_int_equal(hlthunk_destroy_command_buffer(st->fd, cb), 0);
	assert_int_equal(hlthunk_get_cb_usage_count(st->fd, cb, &cnt), -EINVAL);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, s1, WAIT_US, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, s2, WAIT_US, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);

	/* And the count drops by the time the CS reads as completed */
	cb = busy_cb(st->fd, &d, 0.2, &n);
	assert_int_equal(submit_one(st->fd, 1, cb, n, 0, &s1), 0);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, s1, WAIT_US, &status), 0);
	assert_int_equal(hlthunk_get_cb_usage_count(st->fd, cb, &cnt), 0);
	assert_int_equal(cnt, 0);
	assert_int_equal(hlthunk_destroy_command_buffer(st->fd, cb), 0);
	hltests_dram_unmap(st->fd, &d);
}

static void test_cb_args_einval(void **state)
{
	struct hltests_state *st = *state;
	union hl_cb_args a;
	uint64_t cb;
	void *p;
	int ctl;

#define CB_ERR(err, stmt) do {						\
		memset(&a, 0, sizeof(a));				\
		a.in.op = HL_CB_OP_CREATE;				\
		a.in.cb_size = PAGE;					\
		stmt;							\
		assert_int_equal(cb_ioctl(st->fd, &a), err);		\
	} while (0)

	CB_ERR(-EINVAL, a.in.cb_size = 0);
	CB_ERR(-EINVAL, a.in.cb_size = HL_MAX_CB_SIZE + 1);
	CB_ERR(-EINVAL, a.in.flags = 0x4);
	CB_ERR(-EINVAL, a.in.flags = HL_CB_FLAGS_GET_DEVICE_VA);
	CB_ERR(-EINVAL, a.in.ctx_id = 1);
	CB_ERR(-EINVAL, a.in.cb_handle = 1);
	CB_ERR(-EINVAL, a.in.op = 3);
	CB_ERR(0, a.in.cb_size = HL_MAX_CB_SIZE);
	cb = a.out.cb_handle;
	/* DESTROY and INFO take no size */
	CB_ERR(-EINVAL, a.in.op = HL_CB_OP_DESTROY; a.in.cb_handle = cb);
	CB_ERR(-EINVAL, a.in.op = HL_CB_OP_INFO; a.in.cb_handle = cb);
	CB_ERR(0, a.in.op = HL_CB_OP_INFO; a.in.cb_handle = cb; a.in.cb_size = 0);
	assert_int_equal(a.out.usage_cnt, 0);
	CB_ERR(-EINVAL, a.in.op = HL_CB_OP_DESTROY; a.in.cb_handle = cb;
	       a.in.cb_size = 0; a.in.flags = 1);
	CB_ERR(-EINVAL, a.in.op = HL_CB_OP_INFO; a.in.cb_handle = cb;
	       a.in.cb_size = 0; a.in.flags = HL_CB_FLAGS_MAP);
	CB_ERR(-EINVAL, a.in.op = HL_CB_OP_INFO; a.in.cb_size = 0;
	       a.in.cb_handle = cb + PAGE);
	CB_ERR(-EINVAL, a.in.op = HL_CB_OP_INFO; a.in.cb_size = 0;
	       a.in.cb_handle = cb + 1);
	CB_ERR(-EINVAL, a.in.op = HL_CB_OP_INFO; a.in.cb_size = 0;
	       a.in.cb_handle = 0);
	/* Not mapped: no device VA */
	CB_ERR(-EINVAL, a.in.op = HL_CB_OP_INFO; a.in.cb_size = 0;
	       a.in.cb_handle = cb; a.in.flags = HL_CB_FLAGS_GET_DEVICE_VA);

	/* mmap: too long, private, at no CB */
	p = mmap(NULL, 2 * MB + PAGE, PROT_READ, MAP_SHARED, st->fd, (off_t)cb);
	assert_true(p == MAP_FAILED && errno == EINVAL);
	p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, st->fd, (off_t)cb);
	assert_true(p == MAP_FAILED && errno == EINVAL);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, st->fd, (off_t)(cb + PAGE));
	assert_true(p == MAP_FAILED && errno == EINVAL);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, st->fd, 0);
	assert_true(p == MAP_FAILED && errno == EINVAL);
	CB_ERR(0, a.in.op = HL_CB_OP_DESTROY; a.in.cb_handle = cb;
	       a.in.cb_size = 0);
	CB_ERR(-EINVAL, a.in.op = HL_CB_OP_DESTROY; a.in.cb_handle = cb;
	       a.in.cb_size = 0);

	/* Compute node only */
	ctl = hltests_open_node(0, 1);
	assert_true(ctl >= 0);
	memset(&a, 0, sizeof(a));
	a.in.op = HL_CB_OP_CREATE;
	a.in.cb_size = PAGE;
	assert_int_equal(cb_ioctl(ctl, &a), -ENOTTY);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, ctl, 0);
	assert_true(p == MAP_FAILED && errno == ENODEV);
	close(ctl);

	/* The library's own checks */
	assert_int_equal(hlthunk_request_command_buffer(st->fd, PAGE, NULL), -EINVAL);
	assert_int_equal(hlthunk_get_cb_usage_count(st->fd, cb, NULL), -EINVAL);
#undef CB_ERR
}

/*
 * A user mapping outlives the CB's handle (its pages stay until munmap),
 * and a CB's pages are zeroed when created (nothing of an earlier CB).
 */
static void test_cb_mapping_outlives_destroy(void **state)
{
	struct hltests_state *st = *state;
	uint64_t cb;
	uint8_t *p;
	uint32_t i;

	assert_int_equal(hlthunk_request_command_buffer(st->fd, 8 * PAGE, &cb), 0);
	p = cb_mmap(st->fd, cb, 8 * PAGE);
	memset(p, 0xa5, 8 * PAGE);
	assert_int_equal(hlthunk_destroy_command_buffer(st->fd, cb), 0);
	for (i = 0; i < 8 * PAGE; i++)
		assert_int_equal(p[i], 0xa5);
	memset(p, 0x3c, 8 * PAGE);
	munmap(p, 8 * PAGE);

	assert_int_equal(hlthunk_request_command_buffer(st->fd, 8 * PAGE, &cb), 0);
	p = cb_mmap(st->fd, cb, 8 * PAGE);
	for (i = 0; i < 8 * PAGE; i++)
		assert_int_equal(p[i], 0);
	munmap(p, 8 * PAGE);
	assert_int_equal(hlthunk_destroy_command_buffer(st->fd, cb), 0);
}

static sigjmp_buf sigbus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(sigbus_jmp, 1);
}

/* Whether reading @p raises SIGBUS */
static bool read_faults(volatile uint8_t *p)
{
	struct sigaction sa, old;
	bool faulted = false;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(sigbus_jmp, 1))
		faulted = true;
	else
		(void)*p;
	sigaction(SIGBUS, &old, NULL);
	return faulted;
}

/* Whether writing @p raises SIGBUS */
static bool write_faults(volatile uint8_t *p)
{
	struct sigaction sa, old;
	bool faulted = false;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(sigbus_jmp, 1))
		faulted = true;
	else
		*p = 0x77;
	sigaction(SIGBUS, &old, NULL);
	return faulted;
}

/* Pages of @npages at @p that can still be read (@write: written) */
static unsigned int pages_reachable(uint8_t *p, unsigned int npages,
				    bool write)
{
	unsigned int i, n = 0;

	for (i = 0; i < npages; i++)
		n += write ? !write_faults(p + i * PAGE) :
			     !read_faults(p + i * PAGE);
	return n;
}

/*
 * A CB destroyed while mapped is still the context's: the hard reset that
 * kills the context removes its pages from the mapping as it does a live
 * CB's, mapped into the device MMU or not (16 of 16 pages stayed readable
 * and writable).
 */
static void test_cb_destroyed_mapping_ends_with_context(void **state)
{
	uint64_t cb[2];
	unsigned int i, rd[2], wr[2];
	uint8_t *p[2];
	int fd;

	(void)state;
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	assert_int_equal(hlthunk_request_command_buffer(fd, 16 * PAGE, &cb[0]), 0);
	assert_int_equal(hlthunk_request_mapped_command_buffer(fd, 16 * PAGE,
							       &cb[1]), 0);
	for (i = 0; i < 2; i++) {
		p[i] = cb_mmap(fd, cb[i], 16 * PAGE);
		memset(p[i], 0x5c, 16 * PAGE);
		assert_int_equal(hlthunk_destroy_command_buffer(fd, cb[i]), 0);
		/* The control: the mapping outlives DESTROY */
		assert_int_equal(pages_reachable(p[i], 16, false), 16);
	}

	assert_int_equal(hltests_write_file(RESET_PATH, "1"), 0);
	for (i = 0; i < 2; i++) {
		rd[i] = pages_reachable(p[i], 16, false);
		wr[i] = pages_reachable(p[i], 16, true);
		print_message("CB %u (%s): %u of 16 pages readable, %u writable "
			      "after the reset\n", i, i ? "MMU-mapped" : "unmapped",
			      rd[i], wr[i]);
		munmap(p[i], 16 * PAGE);
	}
	close(fd);
	for (i = 0; i < 2; i++) {
		assert_int_equal(rd[i], 0);
		assert_int_equal(wr[i], 0);
	}
}

/* Whether [a, a + asize) and [b, b + bsize) overlap */
static bool ranges_overlap(uint64_t a, uint64_t asize, uint64_t b,
			   uint64_t bsize)
{
	return a < b + bsize && b < a + asize;
}

#define ALIAS_NEW	32

/*
 * The mmap offsets (handles) of CBs never overlap the range of another
 * CB still mapped, of the same owner or of the next one: a context's
 * teardown removes the pages of its CBs' ranges from every mapping of the
 * device's address space, so an overlap would take another process's
 * pages. (Handles were ID << PAGE_SHIFT with IDs reused at once, so a
 * 16-page CB's range covered the next 15 CBs' handles, and the next
 * owner's close zapped the previous owner's mapping.)
 */
static void test_cb_mmap_offsets_never_alias(void **state)
{
	uint64_t big, h[ALIAS_NEW], h2[ALIAS_NEW];
	unsigned int i, j;
	uint8_t *p, *q;
	int fd, fd2;

	(void)state;
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	assert_int_equal(hlthunk_request_command_buffer(fd, 16 * PAGE, &big), 0);
	p = cb_mmap(fd, big, 16 * PAGE);
	/* Mapped, its handle dropped: its range is still in use */
	assert_int_equal(hlthunk_destroy_command_buffer(fd, big), 0);
	for (i = 0; i < ALIAS_NEW; i++) {
		assert_int_equal(hlthunk_request_command_buffer(fd, 2 * PAGE,
								&h[i]), 0);
		if (ranges_overlap(h[i], 2 * PAGE, big, 16 * PAGE))
			fail_msg("CB handle 0x%" PRIx64 " lies in the range of "
				 "the mapped CB at 0x%" PRIx64, h[i], big);
		for (j = 0; j < i; j++)
			if (ranges_overlap(h[i], 2 * PAGE, h[j], 2 * PAGE))
				fail_msg("CB handles 0x%" PRIx64 " and 0x%" PRIx64
					 " overlap", h[i], h[j]);
	}
	q = cb_mmap(fd, h[0], 2 * PAGE);

	/* The next owner, while this one still maps its CBs */
	assert_int_equal(hltests_write_file(RESET_PATH, "1"), 0);
	fd2 = hltests_open_node(0, 0);
	assert_true(fd2 >= 0);
	for (i = 0; i < ALIAS_NEW; i++) {
		assert_int_equal(hlthunk_request_command_buffer(fd2, 4 * PAGE,
								&h2[i]), 0);
		if (ranges_overlap(h2[i], 4 * PAGE, big, 16 * PAGE) ||
		    ranges_overlap(h2[i], 4 * PAGE, h[0], 2 * PAGE))
			fail_msg("the next owner's CB handle 0x%" PRIx64 " lies in "
				 "a range the previous owner maps", h2[i]);
	}
	munmap(q, 2 * PAGE);
	munmap(p, 16 * PAGE);
	close(fd2);
	close(fd);
}

/*
 * A hard reset ends the CBs of the context it kills: their user mappings
 * lose the pages (SIGBUS), new ones are refused, and the new owner's CBs
 * start from zero. Also the reset's events: the compute file's and a
 * control file's eventfds are signalled with DEVICE_RESET |
 * DEVICE_UNAVAILABLE, GET_EVENTS still serves the dead file, and the
 * reset count grows by one.
 */
static void test_cb_and_events_hard_reset(void **state)
{
	struct hlthunk_reset_count_info rc0, rc1;
	uint64_t cb, cb_unmapped, ev, cnt;
	int fd, ctl, efd, cefd;
	uint8_t *p, *q;
	void *m;

	(void)state;
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	ctl = hltests_open_node(0, 1);
	assert_true(ctl >= 0);
	assert_int_equal(hlthunk_get_reset_count_info(ctl, &rc0), 0);
	assert_int_equal(rc0.soft_reset_count, 0);

	assert_int_equal(hlthunk_request_mapped_command_buffer(fd, PAGE, &cb), 0);
	assert_int_equal(hlthunk_request_command_buffer(fd, PAGE, &cb_unmapped), 0);
	p = cb_mmap(fd, cb, PAGE);
	q = cb_mmap(fd, cb_unmapped, PAGE);
	p[0] = 1;
	q[0] = 2;
	assert_false(read_faults(p));
	efd = hlthunk_notifier_create(fd);
	assert_true(efd >= 0);
	cefd = hlthunk_notifier_create(ctl);
	assert_true(cefd >= 0);

	assert_int_equal(hltests_write_file(RESET_PATH, "1"), 0);

	/*
	 * The events, on both files (with NIC_LINK when the NIC had links
	 * up: they went down and came back with the reset)
	 */
	assert_int_equal(hlthunk_notifier_recv(ctl, cefd, &ev, &cnt, 0, 10000), 0);
	assert_true(cnt >= 1);
	assert_int_equal(ev & ~HL_NOTIFIER_EVENT_NIC_LINK,
			 HL_NOTIFIER_EVENT_DEVICE_RESET |
			 HL_NOTIFIER_EVENT_DEVICE_UNAVAILABLE);
	assert_int_equal(hlthunk_notifier_recv(fd, efd, &ev, &cnt, 0, 10000), 0);
	assert_true(cnt >= 1);
	assert_int_equal(ev & ~HL_NOTIFIER_EVENT_NIC_LINK,
			 HL_NOTIFIER_EVENT_DEVICE_RESET |
			 HL_NOTIFIER_EVENT_DEVICE_UNAVAILABLE);
	assert_int_equal(hlthunk_get_reset_count_info(ctl, &rc1), 0);
	assert_int_equal(rc1.hard_reset_count, rc0.hard_reset_count + 1);

	/* The CBs' pages left the mappings; the dead file refuses new ones */
	assert_true(read_faults(p));
	assert_true(read_faults(q));
	m = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, (off_t)cb);
	assert_true(m == MAP_FAILED && errno == ENODEV);
	assert_int_equal(hlthunk_request_command_buffer(fd, PAGE, &cb), -ENODEV);
	assert_int_equal(hlthunk_destroy_command_buffer(fd, cb), -ENODEV);
	/* Only the events still answer on the dead file */
	assert_int_equal(get_events(fd), 0);
	assert_int_equal(hlthunk_notifier_release(fd, efd), 0);
	munmap(p, PAGE);
	munmap(q, PAGE);
	close(fd);

	/* The next owner starts from nothing */
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	assert_int_equal(hlthunk_request_command_buffer(fd, PAGE, &cb), 0);
	p = cb_mmap(fd, cb, PAGE);
	assert_int_equal(p[0], 0);
	munmap(p, PAGE);
	close(fd);
	/* The control file's registration outlived the compute file */
	assert_int_equal(hlthunk_notifier_release(ctl, cefd), 0);
	close(ctl);
}

/* ------------------------------------------------------------------------
 * Multi-CS wait
 */

static void test_multi_cs_first_completes(void **state)
{
	struct hltests_state *st = *state;
	struct hlthunk_wait_multi_cs_in in;
	struct hlthunk_wait_multi_cs_out out;
	struct hltests_dram_buf d;
	struct hltests_host_buf nop;
	uint64_t cb, seqs[2], t0, ts;
	uint32_t n, status;

	cb = busy_cb(st->fd, &d, 1.5, &n);
	hltests_host_map(st->fd, &nop, PAGE);
	hlthunk_pkt_nop(nop.ptr);

	t0 = hltests_clock_ns(CLOCK_MONOTONIC);
	assert_int_equal(submit_one(st->fd, 2, cb, n, 0, &seqs[0]), 0);
	assert_int_equal(submit_one(st->fd, 1, nop.va, 8, 0, &seqs[1]), 0);

	memset(&in, 0, sizeof(in));
	in.seq = seqs;
	in.seq_len = 2;
	in.timeout_us = WAIT_US;
	assert_int_equal(hlthunk_wait_for_multi_cs_with_timestamp(st->fd, &in,
							&out, &ts), 0);
	assert_int_equal(out.status, HL_WAIT_CS_STATUS_COMPLETED);
	/* The NOP, not the 1.5 s one */
	assert_int_equal(out.seq_set, 0x2);
	assert_int_equal(out.completed, 1);
	assert_true(ts > t0 && ts <= hltests_clock_ns(CLOCK_MONOTONIC));

	/* The long one alone, polled: busy */
	in.seq = seqs;
	in.seq_len = 1;
	in.timeout_us = 0;
	assert_int_equal(hlthunk_wait_for_multi_cs(st->fd, &in, &out), 0);
	assert_int_equal(out.status, HL_WAIT_CS_STATUS_BUSY);
	assert_int_equal(out.seq_set, 0);
	assert_int_equal(out.completed, 0);

	/* Then waited for */
	in.timeout_us = WAIT_US;
	assert_int_equal(hlthunk_wait_for_multi_cs(st->fd, &in, &out), 0);
	assert_int_equal(out.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(out.seq_set, 0x1);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, seqs[0], 0, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);

	assert_int_equal(hlthunk_destroy_command_buffer(st->fd, cb), 0);
	hltests_host_unmap(st->fd, &nop);
	hltests_dram_unmap(st->fd, &d);
}

/* 32 at once, every one complete; a failed one makes the wait fail (-EIO) */
static void test_multi_cs_many_and_failed(void **state)
{
	struct hltests_state *st = *state;
	struct hlthunk_wait_multi_cs_in in;
	struct hlthunk_wait_multi_cs_out out;
	uint64_t seqs[HL_WAIT_MULTI_CS_LIST_MAX_LEN];
	struct hltests_host_buf nop, bad;
	uint32_t i, w = 0x7f000000, status;

	hltests_host_map(st->fd, &nop, PAGE);
	hlthunk_pkt_nop(nop.ptr);
	hltests_host_map(st->fd, &bad, PAGE);
	memcpy(bad.ptr, &w, 4);

	for (i = 0; i < HL_WAIT_MULTI_CS_LIST_MAX_LEN; i++)
		assert_int_equal(submit_one(st->fd, i % 4, nop.va, 8, 0, &seqs[i]), 0);
	for (i = 0; i < HL_WAIT_MULTI_CS_LIST_MAX_LEN; i++)
		assert_int_equal(hlthunk_wait_for_cs(st->fd, seqs[i], WAIT_US,
						     &status), 0);
	memset(&in, 0, sizeof(in));
	in.seq = seqs;
	in.seq_len = HL_WAIT_MULTI_CS_LIST_MAX_LEN;
	in.timeout_us = WAIT_US;
	assert_int_equal(hlthunk_wait_for_multi_cs(st->fd, &in, &out), 0);
	assert_int_equal(out.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(out.seq_set, 0xffffffffu);
	assert_int_equal(out.completed, 32);

	/* One failed CS among them */
	assert_int_equal(submit_one(st->fd, 0, bad.va, 8, 0, &seqs[5]), 0);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, seqs[5], WAIT_US, &status),
			 -EIO);
	assert_int_equal(hlthunk_wait_for_multi_cs(st->fd, &in, &out), -EIO);
	assert_int_equal(out.status, HL_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(out.seq_set, 0xffffffffu);

	hltests_host_unmap(st->fd, &bad);
	hltests_host_unmap(st->fd, &nop);
}

static void test_multi_cs_args(void **state)
{
	struct hltests_state *st = *state;
	uint64_t seqs[HL_WAIT_MULTI_CS_LIST_MAX_LEN + 1];
	struct hlthunk_wait_multi_cs_in in;
	struct hlthunk_wait_multi_cs_out out;
	struct hltests_host_buf nop;
	union hl_wait_cs_args a;
	uint32_t i, status;

	hltests_host_map(st->fd, &nop, PAGE);
	hlthunk_pkt_nop(nop.ptr);
	for (i = 0; i <= HL_WAIT_MULTI_CS_LIST_MAX_LEN; i++)
		seqs[i] = 0;
	assert_int_equal(submit_one(st->fd, 0, nop.va, 8, 0, &seqs[0]), 0);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, seqs[0], WAIT_US, &status), 0);

#define MW(err, stmt) do {						\
		memset(&a, 0, sizeof(a));				\
		a.in.seq = (uint64_t)(uintptr_t)seqs;			\
		a.in.seq_arr_len = 1;					\
		a.in.flags = HL_WAIT_CS_FLAGS_MULTI_CS;			\
		a.in.timeout_us = 1000;					\
		stmt;							\
		assert_int_equal(hltests_wait_ioctl(st->fd, &a), err);		\
	} while (0)

	MW(0, (void)0);
	assert_int_equal(a.out.cs_completion_map, 1);
	MW(-EINVAL, a.in.seq_arr_len = 0);
	MW(-EINVAL, a.in.seq_arr_len = HL_WAIT_MULTI_CS_LIST_MAX_LEN + 1);
	MW(-EINVAL, a.in.seq_arr_len = 2);	/* seqs[1] is 0 */
	MW(-EINVAL, a.in.flags |= 0x1);
	MW(-EINVAL, a.in.ctx_id = 1);
	MW(-EINVAL, a.in.pad[3] = 1);
	MW(-EFAULT, a.in.seq = 8);
	/* seq_arr_len only with the flag */
	MW(-EINVAL, a.in.flags = 0; a.in.seq = seqs[0]);
	MW(0, a.in.flags = 0; a.in.seq = seqs[0]; a.in.seq_arr_len = 0);
	assert_int_equal(a.out.cs_completion_map, 0);
	seqs[1] = seqs[0] + 1000;		/* not issued */
	MW(-EINVAL, a.in.seq_arr_len = 2);
#undef MW

	memset(&in, 0, sizeof(in));
	in.seq = seqs;
	in.seq_len = HL_WAIT_MULTI_CS_LIST_MAX_LEN + 1;
	assert_int_equal(hlthunk_wait_for_multi_cs(st->fd, &in, &out), -EINVAL);
	assert_int_equal(hlthunk_wait_for_multi_cs(st->fd, NULL, &out), -EINVAL);
	hltests_host_unmap(st->fd, &nop);
}

/* ------------------------------------------------------------------------
 * Events
 */

/*
 * Each CS-related source fires with its bit, and a CS that succeeds fires
 * nothing: a malformed CB (UNDEFINED_OPCODE), an MMU fault (PAGE_FAULT), a
 * CS timeout (CS_TIMEOUT).
 */
static void test_events_cs_sources_fire(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb;
	struct hltests_dram_buf d;
	uint64_t ev, cnt, h, seq;
	uint32_t n, status;
	int efd;

	hltests_host_map(st->fd, &cb, PAGE);
	efd = hlthunk_notifier_create(st->fd);
	assert_true(efd >= 0);

	/* Success: nothing */
	hlthunk_pkt_nop(cb.ptr);
	hltests_run_cb_ok(st->fd, 0, cb.va, 8);
	assert_int_equal(hlthunk_notifier_recv(st->fd, efd, &ev, &cnt, 0, 200), 0);
	assert_int_equal(cnt, 0);

	run_malformed(st->fd, &cb);
	assert_int_equal(hlthunk_notifier_recv(st->fd, efd, &ev, &cnt, 0, 5000), 0);
	assert_int_equal(cnt, 1);
	assert_int_equal(ev, HL_NOTIFIER_EVENT_UNDEFINED_OPCODE);

	/* A CB at an unmapped VA */
	hltests_run_cb_aborted(st->fd, 0, cb.va + 64 * MB, 8);
	assert_int_equal(hlthunk_notifier_recv(st->fd, efd, &ev, &cnt, 0, 5000), 0);
	assert_true(cnt >= 1);
	assert_int_equal(ev, HL_NOTIFIER_EVENT_PAGE_FAULT);

	/* A job past its 1 s timeout */
	h = busy_cb(st->fd, &d, 30.0, &n);
	assert_int_equal(submit_one(st->fd, 3, h, n, 1, &seq), 0);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, seq, WAIT_US, &status), -ETIMEDOUT);
	assert_int_equal(hlthunk_notifier_recv(st->fd, efd, &ev, &cnt, 0, 5000), 0);
	assert_int_equal(cnt, 1);
	assert_int_equal(ev, HL_NOTIFIER_EVENT_CS_TIMEOUT);
	/* Read: cleared */
	assert_int_equal(get_events(st->fd), 0);
	/* And recorded */
	{
		struct hlthunk_event_record_cs_timeout r;

		assert_int_equal(hlthunk_get_event_record(st->fd, HLTHUNK_CS_TIMEOUT,
							  &r), 0);
		assert_int_equal(r.seq, seq);
		assert_true(r.timestamp > 0 &&
			    (uint64_t)r.timestamp <= hltests_clock_ns(CLOCK_MONOTONIC));
	}

	assert_int_equal(hlthunk_destroy_command_buffer(st->fd, h), 0);
	assert_int_equal(hlthunk_notifier_release(st->fd, efd), 0);
	hltests_dram_unmap(st->fd, &d);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * Never signalled: an eventfd that was unregistered; the number of one the
 * caller closed while registered (the driver signals the eventfd object
 * it holds, not a new file with the same number); one registered on a
 * file since closed. The negative control: a registered one is.
 */
static void test_events_not_signalled_after_unregister_or_close(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb;
	int efd, efd2, ctl, cefd;

	hltests_host_map(st->fd, &cb, PAGE);

	/* Unregistered */
	efd = eventfd(0, EFD_CLOEXEC);
	assert_true(efd >= 0);
	assert_int_equal(info_eventfd(st->fd, HL_INFO_REGISTER_EVENTFD, efd), 0);
	run_malformed(st->fd, &cb);
	assert_true(efd_signalled(efd, 5000));		/* the control */
	assert_int_equal(info_eventfd(st->fd, HL_INFO_UNREGISTER_EVENTFD, 0), 0);
	run_malformed(st->fd, &cb);
	assert_false(efd_signalled(efd, 300));

	/* Closed by the caller while registered, its number reused */
	assert_int_equal(info_eventfd(st->fd, HL_INFO_REGISTER_EVENTFD, efd), 0);
	close(efd);
	efd2 = eventfd(0, EFD_CLOEXEC);
	assert_int_equal(efd2, efd);
	run_malformed(st->fd, &cb);
	assert_false(efd_signalled(efd2, 300));
	assert_int_equal(info_eventfd(st->fd, HL_INFO_UNREGISTER_EVENTFD, 0), 0);

	/* Registered on a control file that was closed since */
	ctl = hltests_open_node(0, 1);
	assert_true(ctl >= 0);
	cefd = eventfd(0, EFD_CLOEXEC);
	assert_int_equal(info_eventfd(ctl, HL_INFO_REGISTER_EVENTFD, cefd), 0);
	run_malformed(st->fd, &cb);
	assert_true(efd_signalled(cefd, 5000));		/* the control */
	close(ctl);
	run_malformed(st->fd, &cb);
	assert_false(efd_signalled(cefd, 300));
	close(cefd);
	close(efd2);
	hltests_host_unmap(st->fd, &cb);
}

static void test_events_args(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_args a;
	uint64_t ev;
	int efd, nul;

	efd = eventfd(0, EFD_CLOEXEC);
	nul = open("/dev/null", O_RDONLY);
	assert_true(efd >= 0 && nul >= 0);

	assert_int_equal(info_eventfd(st->fd, HL_INFO_UNREGISTER_EVENTFD, 0), -EINVAL);
	assert_int_equal(info_eventfd(st->fd, HL_INFO_REGISTER_EVENTFD, -1), -EBADF);
	assert_int_equal(info_eventfd(st->fd, HL_INFO_REGISTER_EVENTFD, nul), -EINVAL);
	memset(&a, 0, sizeof(a));
	a.op = HL_INFO_REGISTER_EVENTFD;
	a.eventfd = (uint32_t)efd;
	a.return_pointer = (uint64_t)(uintptr_t)&ev;
	a.return_size = sizeof(ev);
	assert_int_equal(ioctl(st->fd, HL_IOCTL_INFO, &a) ? -errno : 0, -EINVAL);
	a.return_pointer = 0;
	a.return_size = 0;
	a.pad = 1;
	assert_int_equal(ioctl(st->fd, HL_IOCTL_INFO, &a) ? -errno : 0, -EINVAL);
	assert_int_equal(info_eventfd(st->fd, HL_INFO_REGISTER_EVENTFD, efd), 0);
	/* One per file */
	assert_int_equal(info_eventfd(st->fd, HL_INFO_REGISTER_EVENTFD, efd), -EINVAL);
	assert_int_equal(hltests_info(st->fd, HL_INFO_GET_EVENTS, NULL, 8), -EINVAL);
	assert_int_equal(hltests_info(st->fd, HL_INFO_GET_EVENTS, (void *)8, 8), -EFAULT);
	assert_int_equal(info_eventfd(st->fd, HL_INFO_UNREGISTER_EVENTFD, 0), 0);
	close(nul);
	close(efd);
}

/* ------------------------------------------------------------------------
 * Counters
 */

/* Each refused HL_IOCTL_CS counts once under its reason, device and ctx */
static void test_cs_counters(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_cs_counters c0, c1;
	struct hltests_host_buf nop;
	struct hltests_dram_buf d;
	uint64_t cb, s1, s2;
	uint32_t n, status;
	char old[32];
	int ctl;

	hltests_host_map(st->fd, &nop, PAGE);
	hlthunk_pkt_nop(nop.ptr);
	assert_int_equal(hlthunk_get_cs_counters_info(st->fd, &c0), 0);

	/* Two validation drops (bad queue, bad size), one accepted CS */
	assert_int_equal(submit_one(st->fd, 99, nop.va, 8, 0, &s1), -EINVAL);
	assert_int_equal(submit_one(st->fd, 0, nop.va, 7, 0, &s1), -EINVAL);
	assert_int_equal(submit_one(st->fd, 0, nop.va, 8, 0, &s1), 0);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, s1, WAIT_US, &status), 0);

	/* One in-flight drop: max_pending_cs 1 with a CS running */
	cb = busy_cb(st->fd, &d, 1.0, &n);
	hltests_param_set("max_pending_cs", "1", old, sizeof(old));
	assert_int_equal(submit_one(st->fd, 2, cb, n, 0, &s1), 0);
	assert_int_equal(submit_one(st->fd, 1, nop.va, 8, 0, &s2), -EAGAIN);
	hltests_param_set("max_pending_cs", old, NULL, 0);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, s1, WAIT_US, &status), 0);

	assert_int_equal(hlthunk_get_cs_counters_info(st->fd, &c1), 0);
	assert_int_equal(c1.ctx_validation_drop_cnt, c0.ctx_validation_drop_cnt + 2);
	assert_int_equal(c1.total_validation_drop_cnt, c0.total_validation_drop_cnt + 2);
	assert_int_equal(c1.ctx_max_cs_in_flight_drop_cnt,
			 c0.ctx_max_cs_in_flight_drop_cnt + 1);
	assert_int_equal(c1.total_max_cs_in_flight_drop_cnt,
			 c0.total_max_cs_in_flight_drop_cnt + 1);
	assert_int_equal(c1.ctx_out_of_mem_drop_cnt, c0.ctx_out_of_mem_drop_cnt);
	assert_int_equal(c1.total_parsing_drop_cnt, 0);
	assert_int_equal(c1.total_queue_full_drop_cnt, 0);

	/*
	 * The control node, as upstream's: the device's totals, and no
	 * context of its own (ctx_* 0)
	 */
	ctl = hltests_open_node(0, 1);
	assert_true(ctl >= 0);
	memset(&c0, 0xff, sizeof(c0));
	assert_int_equal(hlthunk_get_cs_counters_info(ctl, &c0), 0);
	assert_int_equal(c0.total_validation_drop_cnt,
			 c1.total_validation_drop_cnt);
	assert_int_equal(c0.total_max_cs_in_flight_drop_cnt,
			 c1.total_max_cs_in_flight_drop_cnt);
	assert_int_equal(c0.total_out_of_mem_drop_cnt,
			 c1.total_out_of_mem_drop_cnt);
	assert_int_equal(c0.total_device_in_reset_drop_cnt,
			 c1.total_device_in_reset_drop_cnt);
	assert_int_equal(c0.ctx_validation_drop_cnt, 0);
	assert_int_equal(c0.ctx_max_cs_in_flight_drop_cnt, 0);
	assert_int_equal(c0.ctx_out_of_mem_drop_cnt, 0);
	close(ctl);

	assert_int_equal(hlthunk_destroy_command_buffer(st->fd, cb), 0);
	hltests_dram_unmap(st->fd, &d);
	hltests_host_unmap(st->fd, &nop);
}

static void test_open_stats(void **state)
{
	struct hlthunk_open_stats_info a, b;
	int fd, ctl;

	(void)state;
	ctl = hltests_open_node(0, 1);
	assert_true(ctl >= 0);
	assert_int_equal(hlthunk_get_open_stats(ctl, &a), 0);
	assert_int_equal(a.is_compute_ctx_active, 0);

	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	usleep(300000);
	assert_int_equal(hlthunk_get_open_stats(ctl, &b), 0);
	assert_int_equal(b.open_counter, a.open_counter + 1);
	assert_int_equal(b.is_compute_ctx_active, 1);
	assert_true(b.last_open_period_ms >= 300 && b.last_open_period_ms < 60000);
	close(fd);

	assert_int_equal(hlthunk_get_open_stats(ctl, &a), 0);
	assert_int_equal(a.is_compute_ctx_active, 0);
	assert_int_equal(a.compute_ctx_in_release, 0);
	assert_int_equal(a.open_counter, b.open_counter);
	/* The closed one's length stays */
	usleep(200000);
	assert_int_equal(hlthunk_get_open_stats(ctl, &b), 0);
	assert_int_equal(b.last_open_period_ms, a.last_open_period_ms);
	assert_true(a.last_open_period_ms >= 300);
	close(ctl);
}

/* The device's clock is the one WAIT_CS timestamps use, CLOCK_MONOTONIC */
static void test_time_sync(void **state)
{
	struct hltests_state *st = *state;
	struct hlthunk_time_sync_info t;
	struct hltests_host_buf nop;
	uint64_t m0, r0, m1, r1, seq, ts;
	uint32_t status;

	hltests_host_map(st->fd, &nop, PAGE);
	hlthunk_pkt_nop(nop.ptr);
	assert_int_equal(submit_one(st->fd, 0, nop.va, 8, 0, &seq), 0);
	assert_int_equal(hlthunk_wait_for_cs_with_timestamp(st->fd, seq, WAIT_US,
							    &status, &ts), 0);

	m0 = hltests_clock_ns(CLOCK_MONOTONIC);
	r0 = hltests_clock_ns(CLOCK_MONOTONIC_RAW);
	assert_int_equal(hlthunk_get_time_sync_info(st->fd, &t), 0);
	r1 = hltests_clock_ns(CLOCK_MONOTONIC_RAW);
	m1 = hltests_clock_ns(CLOCK_MONOTONIC);
	assert_true(t.device_time >= m0 && t.device_time <= m1);
	assert_true(t.host_time >= r0 && t.host_time <= r1);
	assert_true(ts <= t.device_time);
	assert_int_equal(hlthunk_get_time_sync_info(st->fd, NULL), -EINVAL);
	hltests_host_unmap(st->fd, &nop);
}

/*
 * Utilization: 0 on an idle device, most of the period while a job runs
 * throughout it; bad periods refused.
 */
static void test_device_utilization(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_dram_buf d;
	uint64_t cb, seq;
	uint32_t n, rate, status;
	int ctl;

	ctl = hltests_open_node(0, 1);
	assert_true(ctl >= 0);
	assert_int_equal(hlthunk_get_device_utilization(ctl, 0, &rate), -EINVAL);
	assert_int_equal(hlthunk_get_device_utilization(ctl, 150, &rate), -EINVAL);
	assert_int_equal(hlthunk_get_device_utilization(ctl, 1100, &rate), -EINVAL);

	/* Hours of work, cut at 3 s by its timeout */
	cb = busy_cb(st->fd, &d, 1e6, &n);
	usleep(1100000);
	assert_int_equal(hlthunk_get_device_utilization(ctl, 1000, &rate), 0);
	print_message("idle: %u%%\n", rate);
	assert_int_equal(rate, 0);

	assert_int_equal(submit_one(st->fd, 1, cb, n, 3, &seq), 0);
	usleep(1200000);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, seq, 0, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_BUSY);
	assert_int_equal(hlthunk_get_device_utilization(ctl, 1000, &rate), 0);
	print_message("busy: %u%%\n", rate);
	assert_true(rate >= 90 && rate <= 100);
	assert_int_equal(hlthunk_get_device_utilization(st->fd, 100, &rate), 0);
	assert_true(rate >= 90);

	assert_int_equal(hlthunk_wait_for_cs(st->fd, seq, WAIT_US, &status), -ETIMEDOUT);
	assert_int_equal(hlthunk_destroy_command_buffer(st->fd, cb), 0);
	hltests_dram_unmap(st->fd, &d);
	close(ctl);
}

/* ------------------------------------------------------------------------
 * Event records, event counts, engine status
 */

/*
 * A malformed CB is recorded (queue, CB address, time) and counted under
 * its notifier bit, since the reset and in aggregate; the other records.
 */
static void test_event_records_and_counts(void **state)
{
	struct hltests_state *st = *state;
	struct hlthunk_event_record_undefined_opcode u;
	struct hlthunk_event_record_open_dev_time o;
	uint32_t ev0[64], ev1[64], agg0[64], agg1[64], small[2];
	struct hltests_host_buf cb;
	uint64_t t0;
	int bit = 1;	/* HL_NOTIFIER_EVENT_UNDEFINED_OPCODE */

	assert_int_equal(1ull << bit, HL_NOTIFIER_EVENT_UNDEFINED_OPCODE);
	assert_int_equal(st->hw_ip.num_of_events, 64);
	hltests_host_map(st->fd, &cb, PAGE);
	assert_int_equal(hlthunk_get_hw_events_arr(st->fd, false, sizeof(ev0), ev0), 0);
	assert_int_equal(hlthunk_get_hw_events_arr(st->fd, true, sizeof(agg0), agg0), 0);
	t0 = hltests_clock_ns(CLOCK_MONOTONIC);
	run_malformed(st->fd, &cb);

	assert_int_equal(hlthunk_get_event_record(st->fd, HLTHUNK_UNDEFINED_OPCODE,
						  &u), 0);
	assert_true((uint64_t)u.timestamp >= t0 &&
		    (uint64_t)u.timestamp <= hltests_clock_ns(CLOCK_MONOTONIC));
	assert_int_equal(u.engine_id, 0);
	assert_int_equal(u.cb_addr_streams[0][0], cb.va);
	assert_int_equal(u.cb_addr_streams_len, 1);

	assert_int_equal(hlthunk_get_hw_events_arr(st->fd, false, sizeof(ev1), ev1), 0);
	assert_int_equal(hlthunk_get_hw_events_arr(st->fd, true, sizeof(agg1), agg1), 0);
	assert_int_equal(ev1[bit], ev0[bit] + 1);
	assert_int_equal(agg1[bit], agg0[bit] + 1);
	assert_true(agg1[bit] >= ev1[bit]);
	/* A short buffer gets the first entries */
	small[1] = 0xdead;
	assert_int_equal(hlthunk_get_hw_events_arr(st->fd, true, 4, small), 0);
	assert_int_equal(small[0], agg1[0]);
	assert_int_equal(small[1], 0xdead);

	/* The open this test runs in */
	assert_int_equal(hlthunk_get_event_record(st->fd, HLTHUNK_OPEN_DEV, &o), 0);
	assert_true(o.timestamp > 0 && (uint64_t)o.timestamp <= t0);
	/* No such events on this device */
	assert_int_equal(hlthunk_get_event_record(st->fd, HLTHUNK_RAZWI_EVENT, &o),
			 -EINVAL);
	assert_int_equal(hlthunk_get_event_record(st->fd, HLTHUNK_HW_ERR_OPCODE, &o),
			 -EINVAL);
	assert_int_equal(hlthunk_get_event_record(st->fd, HLTHUNK_OPEN_DEV, NULL),
			 -EINVAL);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * Event records belong to the context they happened in: the next owner,
 * after a close or after a hard reset, reads no record of its
 * predecessor's (a malformed CB's queue, CB address and time; a timed-out
 * CS's sequence number and time). The control node reads those of the
 * compute node's current owner (upstream's device-wide capture, which
 * each open resets), and none while nobody has it open.
 */
static void make_records(int fd, uint64_t *cb_va)
{
	struct hlthunk_event_record_undefined_opcode u, cu;
	struct hlthunk_event_record_cs_timeout t, ct;
	struct hltests_host_buf cb;
	struct hltests_dram_buf d;
	uint64_t h, seq;
	uint32_t n, status;
	int ctl;

	hltests_host_map(fd, &cb, PAGE);
	run_malformed(fd, &cb);
	h = busy_cb(fd, &d, 30.0, &n);
	assert_int_equal(submit_one(fd, 3, h, n, 1, &seq), 0);
	assert_int_equal(hlthunk_wait_for_cs(fd, seq, WAIT_US, &status), -ETIMEDOUT);
	/* The control: this owner reads its own */
	assert_int_equal(hlthunk_get_event_record(fd, HLTHUNK_UNDEFINED_OPCODE,
						  &u), 0);
	assert_true(u.timestamp > 0);
	assert_int_equal(u.cb_addr_streams[0][0], cb.va);
	assert_int_equal(hlthunk_get_event_record(fd, HLTHUNK_CS_TIMEOUT, &t), 0);
	assert_true(t.timestamp > 0);
	assert_int_equal(t.seq, seq);
	/* The control node reads the owner's */
	ctl = hltests_open_node(0, 1);
	assert_true(ctl >= 0);
	assert_int_equal(hlthunk_get_event_record(ctl, HLTHUNK_UNDEFINED_OPCODE,
						  &cu), 0);
	assert_int_equal(cu.timestamp, u.timestamp);
	assert_int_equal(cu.engine_id, u.engine_id);
	assert_int_equal(cu.cb_addr_streams[0][0], cb.va);
	assert_int_equal(hlthunk_get_event_record(ctl, HLTHUNK_CS_TIMEOUT, &ct),
			 0);
	assert_int_equal(ct.timestamp, t.timestamp);
	assert_int_equal(ct.seq, seq);
	close(ctl);
	*cb_va = cb.va;
	assert_int_equal(hlthunk_destroy_command_buffer(fd, h), 0);
	hltests_dram_unmap(fd, &d);
	hltests_host_unmap(fd, &cb);
}

static void assert_no_records(int fd, const char *when)
{
	struct hlthunk_event_record_undefined_opcode u;
	struct hlthunk_event_record_cs_timeout t;

	assert_int_equal(hlthunk_get_event_record(fd, HLTHUNK_UNDEFINED_OPCODE,
						  &u), 0);
	assert_int_equal(hlthunk_get_event_record(fd, HLTHUNK_CS_TIMEOUT, &t), 0);
	if (u.timestamp || u.engine_id || u.cb_addr_streams[0][0] ||
	    u.cb_addr_streams_len)
		fail_msg("%s: a predecessor's UNDEFINED_OPCODE of queue %u, "
			 "CB 0x%" PRIx64 ", at %" PRId64, when, u.engine_id,
			 (uint64_t)u.cb_addr_streams[0][0], (int64_t)u.timestamp);
	if (t.timestamp || t.seq)
		fail_msg("%s: a predecessor's CS_TIMEOUT of CS %" PRIu64
			 " at %" PRId64, when, (uint64_t)t.seq,
			 (int64_t)t.timestamp);
}

static void test_event_records_belong_to_owner(void **state)
{
	uint64_t va;
	int fd;

	(void)state;
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	make_records(fd, &va);
	close(fd);

	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	assert_no_records(fd, "after a close");
	make_records(fd, &va);
	assert_int_equal(hltests_write_file(RESET_PATH, "1"), 0);
	close(fd);

	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	assert_no_records(fd, "after a hard reset");
	close(fd);

	/* Nobody has the compute node open: the control node reads none */
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	make_records(fd, &va);
	close(fd);
	fd = hltests_open_node(0, 1);
	assert_true(fd >= 0);
	assert_no_records(fd, "the control node, after the close");
	close(fd);
}

/* Wait up to @ms until @fd's events include all of @want; returns them */
static uint64_t events_until(int fd, int efd, uint64_t want, int ms)
{
	uint64_t ev = 0, got, cnt;
	int i;

	for (i = 0; i < ms / 100 && (ev & want) != want; i++) {
		got = 0;
		assert_int_equal(hlthunk_notifier_recv(fd, efd, &got, &cnt, 0, 100),
				 0);
		ev |= got;
	}
	return ev;
}

/*
 * A compute file a hard reset killed hears the reset, then nothing of the
 * next owner's (its page fault, its malformed CB); the next owner hears
 * its own, and a control file, the device's monitor, hears everything.
 * With a second dead file (two resets, three owners) and owners in
 * different processes alike: the next owner here is a child.
 */
static void test_dead_file_hears_nothing_of_next_owner(void **state)
{
	const uint64_t mine = HL_NOTIFIER_EVENT_PAGE_FAULT |
			      HL_NOTIFIER_EVENT_UNDEFINED_OPCODE;
	const uint64_t reset = HL_NOTIFIER_EVENT_DEVICE_RESET |
			       HL_NOTIFIER_EVENT_DEVICE_UNAVAILABLE;
	int dead[2], defd[2], ctl, cefd, status, i;
	uint64_t ev;
	pid_t pid;

	(void)state;
	ctl = hltests_open_node(0, 1);
	assert_true(ctl >= 0);
	cefd = hlthunk_notifier_create(ctl);
	assert_true(cefd >= 0);
	for (i = 0; i < 2; i++) {
		dead[i] = hltests_open_node(0, 0);
		assert_true(dead[i] >= 0);
		defd[i] = hlthunk_notifier_create(dead[i]);
		assert_true(defd[i] >= 0);
		assert_int_equal(hltests_write_file(RESET_PATH, "1"), 0);
		ev = events_until(dead[i], defd[i], reset, 10000);
		assert_int_equal(ev & reset, reset);
	}
	/* Whatever the resets sent (NIC_LINK too): heard, cleared */
	for (i = 0; i < 2; i++)
		events_until(dead[i], defd[i], ~0ull, 300);
	events_until(ctl, cefd, ~0ull, 300);

	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct hltests_host_buf cb;
		int fd = hltests_open_node(0, 0), efd;

		if (fd < 0)
			_exit(2);
		efd = hlthunk_notifier_create(fd);
		if (efd < 0)
			_exit(3);
		hltests_host_map(fd, &cb, PAGE);
		hltests_run_cb_aborted(fd, 0, cb.va + 64 * MB, 8);
		run_malformed(fd, &cb);
		ev = events_until(fd, efd, mine, 10000);
		close(fd);
		_exit((ev & mine) == mine ? 0 : 4);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	/* The next owner heard its own events */
	assert_int_equal(WEXITSTATUS(status), 0);
	/* The monitor too */
	ev = events_until(ctl, cefd, mine, 10000);
	assert_int_equal(ev & mine, mine);

	for (i = 0; i < 2; i++) {
		bool signalled = efd_signalled(defd[i], 300);

		ev = get_events(dead[i]);
		if (signalled || ev)
			fail_msg("dead file %d heard the next owner's events "
				 "(signalled %d, bits 0x%" PRIx64 ")", i,
				 signalled, ev);
		assert_int_equal(hlthunk_notifier_release(dead[i], defd[i]), 0);
		close(dead[i]);
	}
	assert_int_equal(hlthunk_notifier_release(ctl, cefd), 0);
	close(ctl);
}

static void test_engine_status(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_dram_buf d;
	char buf[1024 + 1];
	uint32_t n, status;
	uint64_t cb, seq;
	int len;

	cb = busy_cb(st->fd, &d, 1e6, &n);
	assert_int_equal(submit_one(st->fd, 2, cb, n, 2, &seq), 0);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(hlthunk_get_engine_status(st->fd, buf, 1024, &len), 0);
	print_message("%s", buf);
	assert_int_equal(len, (int)strlen(buf));
	assert_non_null(strstr(buf, "queue 2: busy\n"));
	assert_non_null(strstr(buf, "queue 1: idle\n"));
	assert_int_equal(hlthunk_wait_for_cs(st->fd, seq, WAIT_US, &status), -ETIMEDOUT);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(hlthunk_get_engine_status(st->fd, buf, 1024, &len), 0);
	assert_non_null(strstr(buf, "queue 2: idle\n"));
	assert_null(strstr(buf, "busy"));
	/* Upstream's bounds */
	assert_int_equal(hlthunk_get_engine_status(st->fd, buf, 1023, &len), -EINVAL);
	assert_int_equal(hlthunk_destroy_command_buffer(st->fd, cb), 0);
	hltests_dram_unmap(st->fd, &d);
}

/* The hash helpers against a plain array, with a fixed seed */
static void test_hash_helpers(void **state)
{
	enum { N = 2000 };
	static unsigned long keys[N];
	static bool present[N];
	uint64_t seed = 0x4a5b6c7d8e9fULL;
	unsigned long k, prev;
	void *t, *v;
	int i, found, rc;

	(void)state;
	t = hlthunk_hash_create();
	assert_non_null(t);
	assert_int_equal(hlthunk_hash_first(t, &k, &v), -ENOENT);
	for (i = 0; i < N; i++) {
		keys[i] = (unsigned long)hltests_prng(&seed) % 100000 * N + i;
		assert_int_equal(hlthunk_hash_insert(t, keys[i], &keys[i]), 0);
		present[i] = true;
	}
	/* Replace */
	assert_int_equal(hlthunk_hash_insert(t, keys[7], &present[7]), 0);
	assert_int_equal(hlthunk_hash_lookup(t, keys[7], &v), 0);
	assert_ptr_equal(v, &present[7]);
	assert_int_equal(hlthunk_hash_insert(t, keys[7], &keys[7]), 0);
	/* Delete a third */
	for (i = 0; i < N; i += 3) {
		assert_int_equal(hlthunk_hash_delete(t, keys[i]), 0);
		present[i] = false;
	}
	assert_int_equal(hlthunk_hash_delete(t, keys[0]), -ENOENT);
	for (i = 0; i < N; i++) {
		rc = hlthunk_hash_lookup(t, keys[i], &v);
		if (present[i]) {
			assert_int_equal(rc, 0);
			assert_ptr_equal(v, &keys[i]);
		} else {
			assert_int_equal(rc, -ENOENT);
		}
	}
	/* Ascending iteration sees each present key once */
	found = 0;
	rc = hlthunk_hash_first(t, &k, &v);
	prev = 0;
	while (!rc) {
		assert_true(found == 0 || k > prev);
		assert_ptr_equal(v, &keys[(unsigned long *)v - keys]);
		assert_int_equal(*(unsigned long *)v, k);
		found++;
		prev = k;
		rc = hlthunk_hash_next(t, &k, &v);
	}
	assert_int_equal(rc, -ENOENT);
	assert_int_equal(found, N - (N + 2) / 3);
	assert_int_equal(hlthunk_hash_lookup(NULL, 1, &v), -EINVAL);
	assert_int_equal(hlthunk_hash_destroy(t), 0);
	assert_int_equal(hlthunk_hash_destroy(NULL), -EINVAL);
}

/*
 * All or nothing: when the copy back of the result fails (debugfs
 * fail_copy_out), CB CREATE's CB is destroyed again (released: debugfs
 * info cbs_alive drops back), REGISTER_EVENTFD's registration undone
 * (registering again works)
 * and GET_EVENTS keeps its bits (the next one returns them).
 */
/* A "key: value" line of device 0's debugfs info */
static long long info_value(const char *key)
{
	char busid[32], path[160], buf[4096], *p;
	size_t n = strlen(key);

	assert_int_equal(hltests_pci_addr(0, busid, sizeof(busid)), 0);
	snprintf(path, sizeof(path), "/sys/kernel/debug/habanalabs/%s/info",
		 busid);
	assert_int_equal(hltests_read_file(path, buf, sizeof(buf)), 0);
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == ':')
			return strtoll(p + n + 1, NULL, 0);
	fail_msg("no %s in debugfs info", key);
	return -1;
}

/* Whether the CBs not freed yet come to @n within 10 s (releases: a work) */
static bool cbs_alive_reaches(long long n)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (info_value("cbs_alive") == n)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * mmap() of a CB racing the hard reset that kills its context. The
 * reset removes the pages of every mapping of the context's CBs and
 * refuses new ones (-ENODEV); a mapping whose mmap() succeeded is
 * either one the reset finds or made before it, so it must SIGBUS
 * afterwards. A thread maps the same CB over and over (keeping the last
 * mapping) until mmap() fails; the last mapping is then checked.
 */
struct mmap_racer {
	int fd;
	uint64_t handle;
	uint8_t *last;
	unsigned long maps;
	int err;
};

static void *mmap_racer_thread(void *arg)
{
	struct mmap_racer *r = arg;
	void *p;

	for (;;) {
		p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
			 (off_t)r->handle);
		if (p == MAP_FAILED) {
			r->err = errno;
			return NULL;
		}
		if (r->last)
			munmap(r->last, PAGE);
		r->last = p;
		__atomic_add_fetch(&r->maps, 1, __ATOMIC_RELEASE);
	}
}

#define MMAP_RACE_TRIALS	60

static void test_cb_mmap_racing_reset_leaves_no_mapping(void **state)
{
	unsigned int trial, survived = 0;
	struct mmap_racer r;
	pthread_t t;

	(void)state;
	for (trial = 0; trial < MMAP_RACE_TRIALS; trial++) {
		memset(&r, 0, sizeof(r));
		r.fd = hltests_open_node(0, 0);
		assert_true(r.fd >= 0);
		assert_int_equal(hlthunk_request_command_buffer(r.fd, PAGE,
								&r.handle), 0);
		assert_int_equal(pthread_create(&t, NULL, mmap_racer_thread, &r),
				 0);
		while (__atomic_load_n(&r.maps, __ATOMIC_ACQUIRE) < 8 + trial % 7)
			usleep(100);
		assert_int_equal(hltests_write_file(RESET_PATH, "1"), 0);
		assert_int_equal(pthread_join(t, NULL), 0);
		assert_int_equal(r.err, ENODEV);
		assert_non_null(r.last);
		if (!read_faults(r.last)) {
			survived++;
			print_message("trial %u: after %lu mmaps, the last mapping "
				      "is still readable after the reset\n", trial,
				      r.maps);
		}
		munmap(r.last, PAGE);
		close(r.fd);
	}
	print_message("%u of %u mappings made as the reset came outlived it\n",
		      survived, MMAP_RACE_TRIALS);
	assert_int_equal(survived, 0);
}

/*
 * The references of CB mappings (VMAs) stay balanced however user space
 * multiplies or cuts them: a CB mapping split by a partial munmap(),
 * moved by mremap(), inherited by a child through MADV_DOFORK, all of a
 * destroyed CB. The hard reset removes the pages of every piece, the
 * child's too; once every piece is gone and the file closed, every CB
 * was released (debugfs info cbs_alive), not one more or less.
 */
static void test_cb_vma_refs_split_moved_forked(void **state)
{
	int fd, up[2], down[2], status;
	uint8_t *p, *q, *m;
	long long base;
	char c = 0;
	uint64_t h;
	pid_t pid;

	(void)state;
	base = info_value("cbs_alive");
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	assert_int_equal(hlthunk_request_command_buffer(fd, 8 * PAGE, &h), 0);
	p = cb_mmap(fd, h, 8 * PAGE);
	memset(p, 0x42, 8 * PAGE);
	/* Cut a hole: [0,2) [3,5) [6,8) (two splits, 3 VMAs) */
	assert_int_equal(munmap(p + 2 * PAGE, PAGE), 0);
	assert_int_equal(munmap(p + 5 * PAGE, PAGE), 0);
	/* Move the middle piece away */
	m = mmap(NULL, 4 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	q = mremap(p + 3 * PAGE, 2 * PAGE, 2 * PAGE,
		   MREMAP_MAYMOVE | MREMAP_FIXED, m + PAGE);
	assert_true(q == m + PAGE);
	assert_int_equal(q[0], 0x42);
	/* Growing it is refused (VM_DONTEXPAND) */
	assert_true(mremap(q, 2 * PAGE, 3 * PAGE, 0) == MAP_FAILED);
	/* The child inherits the last piece */
	assert_int_equal(madvise(p + 6 * PAGE, 2 * PAGE, MADV_DOFORK), 0);
	assert_int_equal(hlthunk_destroy_command_buffer(fd, h), 0);
	/* One pipe each way: neither side reads its own byte back */
	assert_int_equal(pipe(up), 0);
	assert_int_equal(pipe(down), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		bool before, after;

		before = !read_faults(p + 6 * PAGE);
		if (write(up[1], "r", 1) != 1 || read(down[0], &c, 1) != 1)
			_exit(5);
		after = !read_faults(p + 7 * PAGE);
		_exit(before && !after ? 0 : before ? 3 : 4);
	}
	/* The child has read the page; reset, then let it look again */
	assert_int_equal(read(up[0], &c, 1), 1);
	assert_int_equal(hltests_write_file(RESET_PATH, "1"), 0);
	assert_int_equal(write(down[1], "g", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 4)
		fail_msg("the child's inherited CB mapping outlived the reset");
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(read_faults(p));
	assert_true(read_faults(q));
	assert_true(read_faults(p + 7 * PAGE));

	/* Every piece still holds the CB */
	munmap(p, 2 * PAGE);
	munmap(q, 2 * PAGE);
	close(fd);
	assert_true(info_value("cbs_alive") > base);
	munmap(p + 6 * PAGE, 2 * PAGE);
	munmap(m, 4 * PAGE);
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
	if (!cbs_alive_reaches(base))
		fail_msg("cbs_alive %lld, %lld before", info_value("cbs_alive"),
			 base);
}

/*
 * The close of the compute file racing the hard reset that kills it: the
 * reset marks the file killed (hl_events_device_reset()) after it took
 * the file from the device, and the file's release must not have freed
 * it by then. The reset's event goes first to a control file whose
 * eventfd wakes a thread that closes the compute file at once, then to
 * RACE_LISTENERS more control files, which keeps the reset busy in the
 * meantime. A write to the freed file shows with slub_debug (hlvm
 * --append "slub_debug=FP,kmalloc-96": "BUG kmalloc-96 ... Poison
 * overwritten" when the object is allocated again) or KASAN.
 */
#define RACE_LISTENERS	4000
#define RACE_TRIALS	10

struct closer {
	int fd;
	int trig;
};

static void *closer_thread(void *arg)
{
	struct closer *c = arg;
	struct pollfd pfd = { .fd = c->trig, .events = POLLIN };
	uint64_t v;

	if (poll(&pfd, 1, 20000) == 1)
		(void)!read(c->trig, &v, sizeof(v));
	close(c->fd);
	return NULL;
}

static void test_close_racing_reset_of_its_file(void **state)
{
	int *ctl, trig_ctl, dummy, i, trial;
	struct rlimit rl;
	struct closer c;
	pthread_t t;
	uint64_t v;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur < RACE_LISTENERS + 64) {
		rl.rlim_cur = RACE_LISTENERS + 64;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	ctl = calloc(RACE_LISTENERS, sizeof(*ctl));
	assert_non_null(ctl);
	/* First on the device's list: the trigger */
	trig_ctl = hltests_open_node(0, 1);
	assert_true(trig_ctl >= 0);
	c.trig = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(c.trig >= 0);
	assert_int_equal(info_eventfd(trig_ctl, HL_INFO_REGISTER_EVENTFD,
				      c.trig), 0);
	dummy = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(dummy >= 0);
	for (i = 0; i < RACE_LISTENERS; i++) {
		ctl[i] = hltests_open_node(0, 1);
		assert_true(ctl[i] >= 0);
		assert_int_equal(info_eventfd(ctl[i], HL_INFO_REGISTER_EVENTFD,
					      dummy), 0);
	}

	for (trial = 0; trial < RACE_TRIALS; trial++) {
		c.fd = hltests_open_node(0, 0);
		assert_true(c.fd >= 0);
		assert_int_equal(pthread_create(&t, NULL, closer_thread, &c), 0);
		assert_int_equal(hltests_write_file(RESET_PATH, "1"), 0);
		assert_int_equal(pthread_join(t, NULL), 0);
		(void)!read(dummy, &v, sizeof(v));
		(void)!read(c.trig, &v, sizeof(v));
	}

	for (i = 0; i < RACE_LISTENERS; i++)
		close(ctl[i]);
	free(ctl);
	close(trig_ctl);
	close(c.trig);
	close(dummy);
	/* The fpriv slot is allocated again: a poisoned object is checked */
	c.fd = hltests_open_node(0, 0);
	assert_true(c.fd >= 0);
	close(c.fd);
}

static void test_failed_copy_out_undoes(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb;
	long long base;
	uint64_t h, h2;
	int efd;

	hltests_host_map(st->fd, &cb, PAGE);
	base = info_value("cbs_alive");
	assert_int_equal(hlthunk_request_mapped_command_buffer(st->fd, PAGE, &h), 0);
	assert_int_equal(hlthunk_destroy_command_buffer(st->fd, h), 0);
	assert_true(cbs_alive_reaches(base));
	hltests_fail_copy_out(1);
	assert_int_equal(hlthunk_request_mapped_command_buffer(st->fd, PAGE, &h2),
			 -EFAULT);
	/* The undone CB was released (and its handle is not reused at once) */
	assert_true(cbs_alive_reaches(base));
	assert_int_equal(hlthunk_request_mapped_command_buffer(st->fd, PAGE, &h2), 0);
	assert_int_not_equal(h2, h);
	assert_int_equal(hlthunk_destroy_command_buffer(st->fd, h2), 0);

	efd = eventfd(0, EFD_CLOEXEC);
	assert_true(efd >= 0);
	hltests_fail_copy_out(1);
	assert_int_equal(info_eventfd(st->fd, HL_INFO_REGISTER_EVENTFD, efd), -EFAULT);
	run_malformed(st->fd, &cb);
	assert_false(efd_signalled(efd, 300));
	assert_int_equal(info_eventfd(st->fd, HL_INFO_REGISTER_EVENTFD, efd), 0);
	run_malformed(st->fd, &cb);
	assert_true(efd_signalled(efd, 5000));

	hltests_fail_copy_out(1);
	{
		uint64_t ev = 0;

		assert_int_equal(hltests_info(st->fd, HL_INFO_GET_EVENTS, &ev,
					      sizeof(ev)), -EFAULT);
	}
	assert_int_equal(get_events(st->fd), HL_NOTIFIER_EVENT_UNDEFINED_OPCODE);
	assert_int_equal(get_events(st->fd), 0);
	assert_int_equal(info_eventfd(st->fd, HL_INFO_UNREGISTER_EVENTFD, 0), 0);
	close(efd);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * A NIC link going down and up (debugfs nic/port<P>/link) sends
 * NIC_LINK to the files of both cabled devices; writing the state it
 * already has sends nothing.
 */
static void link_path(int dev, uint32_t port, char *path, size_t n)
{
	char busid[32];

	assert_int_equal(hltests_pci_addr(dev, busid, sizeof(busid)), 0);
	snprintf(path, n, "/sys/kernel/debug/habanalabs/%s/nic/port%u/link",
		 busid, port);
}

static void test_events_nic_link(void **state)
{
	struct hl_info_nic_ports p0;
	int c0, c1, e0, e1, peer = -1;
	uint32_t port = 0, i;
	char path[160];
	uint64_t ev, cnt;

	(void)state;
	if (hltests_num_devices() < 2)
		skip();
	c0 = hltests_open_node(0, 1);
	c1 = hltests_open_node(1, 1);
	assert_true(c0 >= 0 && c1 >= 0);
	assert_int_equal(hltests_info(c0, HL_INFO_NIC_PORTS, &p0, sizeof(p0)), 0);
	for (i = 0; i < p0.num_ports && peer < 0; i++)
		if (p0.ports[i].cabled && p0.ports[i].link_up &&
		    p0.ports[i].peer_present) {
			port = i;
			peer = (int)p0.ports[i].peer_module_id;
		}
	if (peer < 0) {
		print_message("no port of device 0 has a link up: skipped\n");
		close(c0);
		close(c1);
		skip();
	}
	e0 = hlthunk_notifier_create(c0);
	e1 = hlthunk_notifier_create(c1);
	assert_true(e0 >= 0 && e1 >= 0);
	link_path(0, port, path, sizeof(path));

	assert_int_equal(hltests_write_file(path, "N"), 0);
	assert_int_equal(hlthunk_notifier_recv(c0, e0, &ev, &cnt, 0, 5000), 0);
	assert_int_equal(cnt, 1);
	assert_int_equal(ev, HL_NOTIFIER_EVENT_NIC_LINK);
	/* The peer device (module_id 1 is device 1 in the VM) heard it too */
	if (peer == 1) {
		assert_int_equal(hlthunk_notifier_recv(c1, e1, &ev, &cnt, 0, 5000), 0);
		assert_int_equal(cnt, 1);
		assert_int_equal(ev, HL_NOTIFIER_EVENT_NIC_LINK);
	}
	assert_int_equal(hltests_info(c0, HL_INFO_NIC_PORTS, &p0, sizeof(p0)), 0);
	assert_int_equal(p0.ports[port].link_up, 0);

	/* No change, no event */
	assert_int_equal(hltests_write_file(path, "0"), 0);
	assert_false(efd_signalled(e0, 300));
	assert_false(efd_signalled(e1, 300));

	assert_int_equal(hltests_write_file(path, "Y"), 0);
	assert_int_equal(hlthunk_notifier_recv(c0, e0, &ev, &cnt, 0, 5000), 0);
	assert_int_equal(cnt, 1);
	assert_int_equal(ev, HL_NOTIFIER_EVENT_NIC_LINK);
	if (peer == 1)
		assert_true(efd_signalled(e1, 5000));
	assert_int_equal(hltests_info(c0, HL_INFO_NIC_PORTS, &p0, sizeof(p0)), 0);
	assert_int_equal(p0.ports[port].link_up, 1);

	assert_int_equal(hlthunk_notifier_release(c0, e0), 0);
	assert_int_equal(hlthunk_notifier_release(c1, e1), 0);
	close(c0);
	close(c1);
}

/*
 * HL_IOCTL_CB's argument as an extensible struct: a smaller one (the
 * fields up to cb_size) works, a larger one with zero extra bytes works,
 * non-zero extra bytes are E2BIG; a read-only argument fails with EFAULT
 * before anything is created (the next CB gets the range after the last
 * one handed out).
 */
static void test_cb_args_sizes_and_read_only(void **state)
{
	struct hltests_state *st = *state;
	struct {
		union hl_cb_args a;
		uint8_t extra[16];
	} big;
	union hl_cb_args a, *ro;
	uint64_t h, h2;

	memset(&a, 0, sizeof(a));
	a.in.op = HL_CB_OP_CREATE;
	a.in.cb_size = PAGE;
	assert_int_equal(hltests_ioctl_sized(st->fd, HL_IOCTL_CB, 16, &a), 0);
	h = a.out.cb_handle;
	assert_int_not_equal(h, 0);
	assert_int_equal(hlthunk_destroy_command_buffer(st->fd, h), 0);

	memset(&big, 0, sizeof(big));
	big.a.in.op = HL_CB_OP_CREATE;
	big.a.in.cb_size = PAGE;
	assert_int_equal(hltests_ioctl_sized(st->fd, HL_IOCTL_CB, sizeof(big), &big), 0);
	/* Offsets are handed out cyclically: h's range is not reused at once */
	assert_int_equal(big.a.out.cb_handle, h + PAGE);
	h = big.a.out.cb_handle;
	memset(&big, 0, sizeof(big));
	big.a.in.op = HL_CB_OP_CREATE;
	big.a.in.cb_size = PAGE;
	big.extra[7] = 1;
	assert_int_equal(hltests_ioctl_sized(st->fd, HL_IOCTL_CB, sizeof(big), &big),
			 -E2BIG);

	ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		  -1, 0);
	assert_true(ro != MAP_FAILED);
	ro->in.op = HL_CB_OP_CREATE;
	ro->in.cb_size = PAGE;
	assert_int_equal(mprotect(ro, PAGE, PROT_READ), 0);
	assert_int_equal(cb_ioctl(st->fd, ro), -EFAULT);
	munmap(ro, PAGE);
	/* Nothing was created: the next range follows h's (still held) */
	assert_int_equal(hlthunk_request_command_buffer(st->fd, PAGE, &h2), 0);
	assert_int_equal(h2, h + PAGE);
	assert_int_equal(hlthunk_destroy_command_buffer(st->fd, h2), 0);
	assert_int_equal(hlthunk_destroy_command_buffer(st->fd, h), 0);
}

#define RT_TEST(f) cmocka_unit_test_setup_teardown(f, hltests_setup, \
						   hltests_teardown)

const struct CMUnitTest runtime_tests[] = {
	RT_TEST(test_cb_mmap_and_submit),
	RT_TEST(test_cb_usage_count),
	RT_TEST(test_cb_args_einval),
	RT_TEST(test_cb_args_sizes_and_read_only),
	RT_TEST(test_cb_mapping_outlives_destroy),
	RT_TEST(test_multi_cs_first_completes),
	RT_TEST(test_multi_cs_many_and_failed),
	RT_TEST(test_multi_cs_args),
	RT_TEST(test_events_cs_sources_fire),
	RT_TEST(test_events_not_signalled_after_unregister_or_close),
	RT_TEST(test_events_args),
	RT_TEST(test_cs_counters),
	cmocka_unit_test(test_open_stats),
	RT_TEST(test_time_sync),
	RT_TEST(test_device_utilization),
	RT_TEST(test_event_records_and_counts),
	RT_TEST(test_engine_status),
	cmocka_unit_test(test_hash_helpers),
	RT_TEST(test_failed_copy_out_undoes),
	cmocka_unit_test(test_events_nic_link),
	cmocka_unit_test(test_cb_and_events_hard_reset),
	cmocka_unit_test(test_cb_destroyed_mapping_ends_with_context),
	cmocka_unit_test(test_cb_mmap_offsets_never_alias),
	cmocka_unit_test(test_event_records_belong_to_owner),
	cmocka_unit_test(test_dead_file_hears_nothing_of_next_owner),
	cmocka_unit_test(test_cb_vma_refs_split_moved_forked),
	cmocka_unit_test(test_cb_mmap_racing_reset_leaves_no_mapping),
	cmocka_unit_test(test_close_racing_reset_of_its_file),
};

int main(void)
{
	return HLTESTS_RUN("runtime", runtime_tests);
}

// SPDX-License-Identifier: MIT
/*
 * cs: HL_IOCTL_CS and HL_IOCTL_WAIT_CS, and the engines behind them: data
 * moved by LIN_DMA, MEMSET and MSG_LONG through the device MMU between host
 * memory and DRAM, compared byte for byte; MMU faults, malformed command
 * buffers and timeouts that abort a CS; the errno tables of both ioctls; a
 * CS outliving its file; two devices at once.
 */
#include "hltests.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KB		1024ull
#define MB		(1024ull * KB)
#define PAGE		4096ull
#define WAIT_US		(120ull * 1000 * 1000)
#define SEED		0x5eedcafe12345678ull

/* ------------------------------------------------------------------------
 * Helpers
 */

static uint64_t prng_state;

/* Wait for @seq; returns the wait's rc, *status the CS status */
static int wait_cs(int fd, uint64_t seq, uint32_t *status)
{
	*status = 0xdead;
	return hlthunk_wait_for_cs(fd, seq, WAIT_US, status);
}

static void assert_bytes_are(const uint8_t *found, uint8_t value, uint64_t n,
			     const char *what)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (found[i] != value) {
			print_error("%s: byte %" PRIu64 " of %" PRIu64
				    " is 0x%02x, expected 0x%02x\n", what, i, n,
				    found[i], value);
			fail();
		}
	}
}

static void chunk_init(struct hl_cs_chunk *c, uint32_t queue, uint64_t cb_va,
		       uint32_t cb_size)
{
	memset(c, 0, sizeof(*c));
	c->cb_handle = cb_va;
	c->queue_index = queue;
	c->cb_size = cb_size;
}

static int submit(int fd, struct hl_cs_chunk *chunks, uint32_t n,
		  uint32_t timeout_s, uint64_t *seq)
{
	struct hlthunk_cs_in in;
	struct hlthunk_cs_out out;
	int rc;

	memset(&in, 0, sizeof(in));
	in.chunks_execute = chunks;
	in.num_chunks_execute = n;
	rc = hlthunk_command_submission_timeout(fd, &in, &out, timeout_s);
	if (!rc) {
		assert_int_equal(out.status, HL_CS_STATUS_SUCCESS);
		*seq = out.seq;
	}
	return rc;
}

/* A host buffer holding one CB, at least @size bytes */
static void cb_map(int fd, struct hltests_host_buf *cb, uint64_t size)
{
	hltests_host_map(fd, cb, (size + PAGE - 1) & ~(PAGE - 1));
}

/* ------------------------------------------------------------------------
 * The ioctls' contracts
 */

static void test_cs_bad_args_einval(void **state)
{
	struct hltests_state *st = *state;
	struct hl_cs_chunk chunks[HL_MAX_JOBS_PER_CS + 1];
	union hl_cs_args a;
	struct hltests_host_buf cb;
	uint32_t i;

	cb_map(st->fd, &cb, PAGE);
	hlthunk_pkt_nop(cb.ptr);
	for (i = 0; i <= HL_MAX_JOBS_PER_CS; i++)
		chunk_init(&chunks[i], 0, cb.va, 8);

#define CS_EINVAL(stmt) do {						\
		memset(&a, 0, sizeof(a));				\
		a.in.chunks_execute = (uintptr_t)chunks;		\
		a.in.num_chunks_execute = 1;				\
		stmt;							\
		assert_int_equal(hltests_cs_ioctl(st->fd, &a), -EINVAL);	\
	} while (0)

	CS_EINVAL(a.in.num_chunks_execute = 0);
	CS_EINVAL(a.in.num_chunks_execute = HL_MAX_JOBS_PER_CS + 1);
	/* A restore phase of too many chunks (tests/cs_model: the rest) */
	CS_EINVAL(a.in.cs_flags = HL_CS_FLAGS_FORCE_RESTORE;
		  a.in.chunks_restore = (uintptr_t)chunks;
		  a.in.num_chunks_restore = HL_MAX_JOBS_PER_CS + 1);
	CS_EINVAL(a.in.seq = 1);
	/* Bit 4: no flag of upstream's (bit 0 is FORCE_RESTORE, served) */
	CS_EINVAL(a.in.cs_flags = 0x10);
	CS_EINVAL(a.in.cs_flags = HL_CS_FLAGS_CUSTOM_TIMEOUT | 0x10);
	CS_EINVAL(a.in.ctx_id = 1);
	CS_EINVAL(a.in.pad = 1);
	CS_EINVAL(chunks[0].queue_index = st->hw_ip.num_queues);
	CS_EINVAL(chunks[0].queue_index = UINT32_MAX);
	CS_EINVAL(chunks[0].cb_size = 0);
	CS_EINVAL(chunks[0].cb_size = 12);
	CS_EINVAL(chunks[0].cb_size = 2 * MB + 8);
	CS_EINVAL(chunks[0].cs_chunk_flags = 2);
	CS_EINVAL(chunks[0].pad[9] = 1);
	CS_EINVAL(chunks[0].collective_engine_id = 1);
	/* Upstream's flags of features the emulated device has not */
	CS_EINVAL(a.in.cs_flags = HL_CS_FLAGS_ENGINE_CORE_COMMAND);
	CS_EINVAL(a.in.cs_flags = HL_CS_FLAGS_ENGINES_COMMAND);
	CS_EINVAL(a.in.cs_flags = HL_CS_FLAGS_FLUSH_PCI_HBW_WRITES);
	/* A bad chunk after good ones fails the whole CS */
	CS_EINVAL(a.in.num_chunks_execute = 3; chunks[2].cb_size = 4);
#undef CS_EINVAL

	/* Nothing was submitted: the first CS of the context gets seq 1 */
	memset(&a, 0, sizeof(a));
	for (i = 0; i <= HL_MAX_JOBS_PER_CS; i++)
		chunk_init(&chunks[i], i % st->hw_ip.num_queues, cb.va, 8);
	a.in.chunks_execute = (uintptr_t)chunks;
	a.in.num_chunks_execute = HL_MAX_JOBS_PER_CS;
	assert_int_equal(hltests_cs_ioctl(st->fd, &a), 0);
	assert_int_equal(a.out.seq, 1);
	assert_int_equal(a.out.status, HL_CS_STATUS_SUCCESS);
	{
		uint32_t status;

		assert_int_equal(wait_cs(st->fd, 1, &status), 0);
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	}
	hltests_host_unmap(st->fd, &cb);
}

static void test_cs_bad_chunk_pointer_efault(void **state)
{
	struct hltests_state *st = *state;
	union hl_cs_args a;

	memset(&a, 0, sizeof(a));
	a.in.num_chunks_execute = 2;
	a.in.chunks_execute = 0;
	assert_int_equal(hltests_cs_ioctl(st->fd, &a), -EFAULT);
	a.in.chunks_execute = 0xfffffffffff000ull;
	assert_int_equal(hltests_cs_ioctl(st->fd, &a), -EFAULT);
}

static void test_wait_cs_bad_args_einval(void **state)
{
	struct hltests_state *st = *state;
	union hl_wait_cs_args a;
	struct hltests_host_buf cb;
	uint32_t status;
	uint64_t seq;

	/* No CS yet: every sequence number is in the future */
	memset(&a, 0, sizeof(a));
	a.in.seq = 1;
	assert_int_equal(hltests_wait_ioctl(st->fd, &a), -EINVAL);

	cb_map(st->fd, &cb, PAGE);
	seq = hltests_submit_cb(st->fd, 0, cb.va, hlthunk_pkt_nop(cb.ptr), 0);
	assert_int_equal(seq, 1);

	memset(&a, 0, sizeof(a));
	a.in.seq = 0;
	assert_int_equal(hltests_wait_ioctl(st->fd, &a), -EINVAL);
	a.in.seq = seq + 1;
	assert_int_equal(hltests_wait_ioctl(st->fd, &a), -EINVAL);
	a.in.seq = UINT64_MAX;
	assert_int_equal(hltests_wait_ioctl(st->fd, &a), -EINVAL);
	a.in.seq = seq;
	a.in.flags = 1;
	assert_int_equal(hltests_wait_ioctl(st->fd, &a), -EINVAL);
	a.in.flags = 0;
	a.in.ctx_id = 1;
	assert_int_equal(hltests_wait_ioctl(st->fd, &a), -EINVAL);
	a.in.ctx_id = 0;
	/* Upstream's interrupt waits: no user interrupts here */
	a.in.flags = HL_WAIT_CS_FLAGS_INTERRUPT | HL_WAIT_CS_FLAGS_ANY_CQ_INTERRUPT;
	assert_int_equal(hltests_wait_ioctl(st->fd, &a), -EINVAL);
	a.in.flags = HL_WAIT_CS_FLAGS_INTERRUPT | HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ;
	assert_int_equal(hltests_wait_ioctl(st->fd, &a), -EINVAL);
	a.in.flags = HL_WAIT_CS_FLAGS_INTERRUPT | HL_WAIT_CS_FLAGS_REGISTER_INTERRUPT;
	assert_int_equal(hltests_wait_ioctl(st->fd, &a), -EINVAL);
	a.in.flags = 0;
	/* ... and their fields must be zero */
	a.in.cq_counters_offset = 1;
	assert_int_equal(hltests_wait_ioctl(st->fd, &a), -EINVAL);
	a.in.cq_counters_offset = 0;
	a.in.timestamp_handle = 1;
	assert_int_equal(hltests_wait_ioctl(st->fd, &a), -EINVAL);
	a.in.timestamp_handle = 0;
	a.in.timestamp_offset = 1;
	assert_int_equal(hltests_wait_ioctl(st->fd, &a), -EINVAL);
	a.in.timestamp_offset = 0;

	/* The library's view of the same */
	assert_int_equal(hlthunk_wait_for_cs(st->fd, 0, 0, &status), -EINVAL);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, seq + 5, 0, &status),
			 -EINVAL);

	assert_int_equal(wait_cs(st->fd, seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	hltests_host_unmap(st->fd, &cb);
}

static void test_cs_on_control_node_enotty(void **state)
{
	union hl_cs_args a;
	union hl_wait_cs_args w;
	int ctl;

	(void)state;
	ctl = hltests_open_node(0, 1);
	assert_true(ctl >= 0);
	memset(&a, 0, sizeof(a));
	memset(&w, 0, sizeof(w));
	assert_int_equal(hltests_cs_ioctl(ctl, &a), -ENOTTY);
	assert_int_equal(hltests_wait_ioctl(ctl, &w), -ENOTTY);
	close(ctl);
}

static void test_wait_cs_args_sizes(void **state)
{
	struct hltests_state *st = *state;
	struct {
		union hl_wait_cs_args a;
		uint64_t extra;
	} big;
	struct hltests_host_buf cb;
	uint64_t seq;

	cb_map(st->fd, &cb, PAGE);
	seq = hltests_submit_cb(st->fd, 1, cb.va, hlthunk_pkt_nop(cb.ptr), 0);

	/* A larger struct with zero extra bytes is accepted */
	memset(&big, 0, sizeof(big));
	big.a.in.seq = seq;
	big.a.in.timeout_us = WAIT_US;
	assert_int_equal(hltests_ioctl_sized(st->fd, HL_IOCTL_WAIT_CS,
					     sizeof(big), &big), 0);
	assert_int_equal(big.a.out.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_true(big.a.out.timestamp_nsec > 0);
	assert_int_equal(big.a.out.flags, HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
	assert_int_equal(big.extra, 0);

	/* ... and refused when they are not zero */
	memset(&big, 0, sizeof(big));
	big.a.in.seq = seq;
	big.extra = 1;
	assert_int_equal(hltests_ioctl_sized(st->fd, HL_IOCTL_WAIT_CS,
					     sizeof(big), &big), -E2BIG);

	/*
	 * The 32 bytes of before upstream's interrupt fields (a binary built
	 * against the older header) are served as they were
	 */
	assert_int_equal(sizeof(union hl_wait_cs_args), 56);
	memset(&big, 0xa5, sizeof(big));
	memset(&big.a, 0, 32);
	big.a.in.seq = seq;
	big.a.in.timeout_us = WAIT_US;
	assert_int_equal(hltests_ioctl_sized(st->fd, HL_IOCTL_WAIT_CS, 32,
					     &big), 0);
	assert_int_equal(big.a.out.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(big.a.out.flags, HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
	/* nothing written past the caller's 32 bytes */
	for (size_t i = 32; i < sizeof(big); i++)
		assert_int_equal(((uint8_t *)&big)[i], 0xa5);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * HL_IOCTL_CS's output grew to upstream's 24 bytes (hl_cs_out's signal
 * fields): a plain CS returns them as zero; the argument union is still
 * hl_cs_in's 48 bytes, so a binary of before passes the same size
 */
static void test_cs_out_signal_fields_zero(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb;
	struct hl_cs_chunk chunk;
	struct hlthunk_cs_in in;
	struct hlthunk_cs_out out;
	union hl_cs_args a;
	uint32_t status;

	assert_int_equal(sizeof(struct hl_cs_out), 24);
	assert_int_equal(sizeof(union hl_cs_args), 48);
	cb_map(st->fd, &cb, PAGE);
	chunk_init(&chunk, 0, cb.va, hlthunk_pkt_nop(cb.ptr));
	memset(&a, 0xa5, sizeof(a));
	memset(&a.in, 0, sizeof(a.in));
	a.in.chunks_execute = (uintptr_t)&chunk;
	a.in.num_chunks_execute = 1;
	assert_int_equal(hltests_cs_ioctl(st->fd, &a), 0);
	assert_true(a.out.seq > 0);
	assert_int_equal(a.out.status, HL_CS_STATUS_SUCCESS);
	assert_int_equal(a.out.sob_base_addr_offset, 0);
	assert_int_equal(a.out.sob_count_before_submission, 0);
	assert_int_equal(wait_cs(st->fd, a.out.seq, &status), 0);

	/* libhlthunk passes the driver's value on */
	memset(&in, 0, sizeof(in));
	in.chunks_execute = &chunk;
	in.num_chunks_execute = 1;
	memset(&out, 0xa5, sizeof(out));
	assert_int_equal(hlthunk_command_submission(st->fd, &in, &out), 0);
	assert_int_equal(out.sob_count_before_submission, 0);
	assert_int_equal(wait_cs(st->fd, out.seq, &status), 0);
	hltests_host_unmap(st->fd, &cb);
}

/* ------------------------------------------------------------------------
 * hl-thunk's sync-manager calls (libhlthunk node HLTHUNK_2.4), end to end.
 * They need the driver's sync manager (issue #33): skipped while
 * HL_INFO_SYNC_MANAGER is -EOPNOTSUPP.
 */

static bool have_sync_manager(int fd)
{
	struct hlthunk_sync_manager_info sm;
	int rc = hlthunk_get_sync_manager_info(fd, HL_GAUDI_WS_DCORE, &sm);

	if (rc == -EOPNOTSUPP)
		return false;
	assert_int_equal(rc, 0);
	return true;
}

static void test_lib_signal_then_wait(void **state)
{
	struct hltests_state *st = *state;
	struct hlthunk_wait_for_signal_data wd;
	struct hlthunk_signal_in sin;
	struct hlthunk_signal_out sout;
	struct hlthunk_wait_in win;
	struct hlthunk_wait_out wout;
	uint64_t sig_seq;
	uint32_t status;

	if (!have_sync_manager(st->fd)) {
		skip();
		return;
	}
	assert_true(st->hw_ip.num_queues >= 2);
	memset(&sin, 0, sizeof(sin));
	sin.queue_index = 0;
	assert_int_equal(hlthunk_signal_submission(st->fd, &sin, &sout), 0);
	assert_int_equal(sout.status, HL_CS_STATUS_SUCCESS);
	assert_true(sout.seq > 0);
	sig_seq = sout.seq;

	memset(&wd, 0, sizeof(wd));
	wd.signal_seq_arr = &sig_seq;
	wd.signal_seq_nr = 1;
	wd.queue_index = 1;
	memset(&win, 0, sizeof(win));
	win.hlthunk_wait_for_signal = (uint64_t *)&wd;
	win.num_wait_for_signal = 1;
	assert_int_equal(hlthunk_wait_for_signal(st->fd, &win, &wout), 0);
	assert_int_equal(wout.status, HL_CS_STATUS_SUCCESS);
	/*
	 * A signal already done needs no wait job: seq is U64_MAX, as
	 * upstream's (hl-thunk's callers check for it); else a CS after it
	 */
	if (wout.seq != UINT64_MAX) {
		assert_true(wout.seq > sig_seq);
		assert_int_equal(wait_cs(st->fd, wout.seq, &status), 0);
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	}
	assert_int_equal(wait_cs(st->fd, sig_seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);

	/* The library refuses what hl-thunk refuses, before any ioctl */
	win.num_wait_for_signal = 2;
	assert_int_equal(hlthunk_wait_for_signal(st->fd, &win, &wout), -EINVAL);
	win.num_wait_for_signal = 1;
	wd.signal_seq_nr = 2;
	assert_int_equal(hlthunk_wait_for_signal(st->fd, &win, &wout), -EINVAL);
	assert_int_equal(hlthunk_signal_submission(st->fd, NULL, &sout), -EINVAL);
}

static void test_lib_encaps_reserve_unreserve(void **state)
{
	struct hltests_state *st = *state;
	struct hlthunk_sig_res_in rin;
	struct hlthunk_sig_res_out rout;
	uint32_t status = 1;

	if (!have_sync_manager(st->fd)) {
		skip();
		return;
	}
	memset(&rin, 0, sizeof(rin));
	rin.queue_index = 0;
	rin.count = 3;
	assert_int_equal(hlthunk_reserve_encaps_signals(st->fd, &rin, &rout), 0);
	assert_int_equal(rout.status, HL_CS_STATUS_SUCCESS);
	assert_int_equal(rout.handle.count, 3);
	assert_int_equal(hlthunk_unreserve_encaps_signals(st->fd, &rout.handle,
							  &status), 0);
	assert_int_equal(status, HL_CS_STATUS_SUCCESS);
	/* Released once: a second release names no reservation */
	assert_true(hlthunk_unreserve_encaps_signals(st->fd, &rout.handle,
						     &status) < 0);
}

/*
 * hl-thunk's staged submission through the library: a first, a middle
 * and a last part on queues 0-2 share the first part's sequence number,
 * which completes only after the last part (each part writes a marker);
 * a part after the last names nothing (-EINVAL). tests/cs_model has the
 * driver's errnos and the timeout.
 */
static void test_lib_staged_submission(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h;
	struct hlthunk_cs_out first, part;
	struct hl_cs_chunk chunk;
	struct hlthunk_cs_in in;
	uint32_t status, i, *mark;

	cb_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	memset(h.ptr, 0, PAGE);
	mark = (uint32_t *)h.ptr;
	for (i = 0; i < 3; i++)
		hlthunk_pkt_msg_long(cb.ptr + 16 * i, h.va + 4 * i, 0x5000 + i);
	memset(&in, 0, sizeof(in));
	in.chunks_execute = &chunk;
	in.num_chunks_execute = 1;

	/* Without the staged flag the library refuses, as hl-thunk does */
	chunk_init(&chunk, 0, cb.va, 16);
	assert_int_equal(hlthunk_staged_command_submission(st->fd, 0, &in,
							   &first), -EINVAL);

	in.flags = HL_CS_FLAGS_STAGED_SUBMISSION |
		   HL_CS_FLAGS_STAGED_SUBMISSION_FIRST;
	assert_int_equal(hlthunk_staged_command_submission(st->fd, 0, &in,
							   &first), 0);
	assert_int_not_equal(first.seq, 0);

	chunk_init(&chunk, 1, cb.va + 16, 16);
	in.flags = HL_CS_FLAGS_STAGED_SUBMISSION;
	assert_int_equal(hlthunk_staged_command_submission(st->fd, first.seq,
							   &in, &part), 0);
	assert_int_equal(part.seq, first.seq);
	/* The first part's job is done, the submission is not */
	while (!mark[1])
		usleep(1000);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, first.seq, 0, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_BUSY);

	chunk_init(&chunk, 2, cb.va + 32, 16);
	in.flags = HL_CS_FLAGS_STAGED_SUBMISSION |
		   HL_CS_FLAGS_STAGED_SUBMISSION_LAST;
	assert_int_equal(hlthunk_staged_command_submission(st->fd, first.seq,
							   &in, &part), 0);
	assert_int_equal(part.seq, first.seq);
	assert_int_equal(wait_cs(st->fd, first.seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	for (i = 0; i < 3; i++)
		assert_int_equal(mark[i], 0x5000 + i);

	/* Closed by its last part */
	assert_int_equal(hlthunk_staged_command_submission(st->fd, first.seq,
							   &in, &part), -EINVAL);
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/* hl-thunk flags its timeouts: the flag is accepted, the timeout applied */
static void test_custom_timeout_flag_is_accepted(void **state)
{
	struct hltests_state *st = *state;
	struct hlthunk_cs_out out;
	struct hlthunk_cs_in in;
	struct hl_cs_chunk chunk;
	struct hltests_host_buf cb;
	union hl_cs_args a;
	uint32_t status;

	cb_map(st->fd, &cb, PAGE);
	chunk_init(&chunk, 0, cb.va, hlthunk_pkt_nop(cb.ptr));

	/* Raw, as hl-thunk's library sends it */
	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uintptr_t)&chunk;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = HL_CS_FLAGS_CUSTOM_TIMEOUT;
	a.in.timeout = 5;
	assert_int_equal(hltests_cs_ioctl(st->fd, &a), 0);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, a.out.seq, WAIT_US,
					     &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);

	/* Through the library */
	memset(&in, 0, sizeof(in));
	in.chunks_execute = &chunk;
	in.num_chunks_execute = 1;
	memset(&out, 0xff, sizeof(out));
	assert_int_equal(hlthunk_command_submission_timeout(st->fd, &in, &out,
							    5), 0);
	assert_int_equal(out.status, HL_CS_STATUS_SUCCESS);
	assert_int_equal(out.sob_count_before_submission, 0);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, out.seq, WAIT_US,
					     &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	hltests_host_unmap(st->fd, &cb);
}

static void test_seq_and_timestamps(void **state)
{
	struct hltests_state *st = *state;
	uint64_t t0, t1, ts, seq, i;
	struct hltests_host_buf cb;
	uint32_t status;

	cb_map(st->fd, &cb, PAGE);
	hlthunk_pkt_nop(cb.ptr);
	hlthunk_pkt_nop(cb.ptr + 8);

	for (i = 1; i <= 5; i++) {
		t0 = hltests_now_ns();
		seq = hltests_submit_cb(st->fd, i % st->hw_ip.num_queues, cb.va, 16, 0);
		assert_int_equal(seq, i);
		assert_int_equal(hlthunk_wait_for_cs_with_timestamp(st->fd, seq,
				WAIT_US, &status, &ts), 0);
		t1 = hltests_now_ns();
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
		/* The fence's signal time, CLOCK_MONOTONIC */
		assert_true(ts >= t0 && ts <= t1);
		/* Waiting again answers the same */
		assert_int_equal(hlthunk_wait_for_cs(st->fd, seq, 0, &status), 0);
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	}
	hltests_host_unmap(st->fd, &cb);
}

static void test_old_seq_reads_completed(void **state)
{
	struct hltests_state *st = *state;
	const uint64_t n = 1100;
	uint64_t i, seq = 0, ts = 1;
	union hl_wait_cs_args w;
	struct hltests_host_buf cb;
	uint32_t status;

	cb_map(st->fd, &cb, PAGE);
	hlthunk_pkt_nop(cb.ptr);
	for (i = 0; i < n; i++)
		seq = hltests_submit_cb(st->fd, i % st->hw_ip.num_queues, cb.va, 8, 0);
	assert_int_equal(seq, n);
	assert_int_equal(wait_cs(st->fd, seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);

	/* No longer tracked: COMPLETED and GONE, without a timestamp */
	memset(&w, 0, sizeof(w));
	w.in.seq = 1;
	assert_int_equal(hltests_ioctl_sized(st->fd, HL_IOCTL_WAIT_CS,
					     sizeof(w), &w), 0);
	assert_int_equal(w.out.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(w.out.flags, HL_WAIT_CS_STATUS_FLAG_GONE);
	assert_int_equal(w.out.timestamp_nsec, 0);
	/* ... which hl-thunk's call leaves untouched */
	assert_int_equal(hlthunk_wait_for_cs_with_timestamp(st->fd, 1, 0,
			 &status, &ts), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(ts, 1);
	/* Still tracked */
	assert_int_equal(hlthunk_wait_for_cs_with_timestamp(st->fd, n - 1000,
			 WAIT_US, &status, &ts), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_true(ts > 0);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, n + 1, 0, &status), -EINVAL);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * A CS submitted with HL_CS_FLAGS_TIMESTAMP keeps its outcome after it is
 * forgotten, for one wait (upstream's outcome store; hl-thunk-open's
 * test_wait_for_cs_with_timestamp_status_gone): COMPLETED with its
 * timestamp, then GONE; one without the flag is GONE at once
 */
static void test_old_timestamped_seq_keeps_outcome(void **state)
{
	struct hltests_state *st = *state;
	const uint64_t n = 1100;
	uint64_t i, seq = 0, first = 0, t0, t1, ts[2] = { 0, 0 };
	struct hl_cs_chunk chunk;
	struct hltests_host_buf cb;
	union hl_wait_cs_args w;
	union hl_cs_args a;
	uint32_t status;

	cb_map(st->fd, &cb, PAGE);
	chunk_init(&chunk, 0, cb.va, hlthunk_pkt_nop(cb.ptr));
	t0 = hltests_now_ns();
	/* Two with the flag (1 and 2), then one without (3) */
	for (i = 0; i < 3; i++) {
		memset(&a, 0, sizeof(a));
		a.in.chunks_execute = (uintptr_t)&chunk;
		a.in.num_chunks_execute = 1;
		a.in.cs_flags = i < 2 ? HL_CS_FLAGS_TIMESTAMP : 0;
		assert_int_equal(hltests_cs_ioctl(st->fd, &a), 0);
		if (!i)
			first = a.out.seq;
		assert_int_equal(wait_cs(st->fd, a.out.seq, &status), 0);
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	}
	t1 = hltests_now_ns();
	for (i = 0; i < n; i++)
		seq = hltests_submit_cb(st->fd, 0, cb.va, 8, 0);
	assert_int_equal(wait_cs(st->fd, seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);

	/* Forgotten, but the flagged ones read as they completed, in order */
	for (i = 0; i < 2; i++) {
		memset(&w, 0, sizeof(w));
		w.in.seq = first + i;
		assert_int_equal(hltests_ioctl_sized(st->fd, HL_IOCTL_WAIT_CS,
						     sizeof(w), &w), 0);
		assert_int_equal(w.out.status, HL_WAIT_CS_STATUS_COMPLETED);
		assert_int_equal(w.out.flags,
				 HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
		ts[i] = w.out.timestamp_nsec;
		assert_true(ts[i] >= t0 && ts[i] <= t1);
	}
	assert_true(ts[1] > ts[0]);
	/* Read once: GONE after that, as the one without the flag */
	for (i = 0; i < 3; i++) {
		memset(&w, 0, sizeof(w));
		w.in.seq = first + i;
		assert_int_equal(hltests_ioctl_sized(st->fd, HL_IOCTL_WAIT_CS,
						     sizeof(w), &w), 0);
		assert_int_equal(w.out.status, HL_WAIT_CS_STATUS_COMPLETED);
		assert_int_equal(w.out.flags, HL_WAIT_CS_STATUS_FLAG_GONE);
		assert_int_equal(w.out.timestamp_nsec, 0);
	}
	hltests_host_unmap(st->fd, &cb);
}

/* ------------------------------------------------------------------------
 * Data through the MMU
 */

/* host src -> DRAM a -> DRAM b -> host dst, at the given offsets */
static void roundtrip(int fd, uint32_t queue, uint64_t size, uint64_t src_off,
		      uint64_t a_off, uint64_t b_off, uint64_t dst_off)
{
	struct hltests_host_buf cb, src, dst;
	struct hltests_dram_buf a, b;
	uint8_t *p;
	uint32_t n;

	cb_map(fd, &cb, PAGE);
	hltests_host_map(fd, &src, src_off + size);
	hltests_host_map(fd, &dst, dst_off + size + PAGE);
	hltests_dram_map(fd, &a, a_off + size, false);
	hltests_dram_map(fd, &b, b_off + size, false);

	hltests_fill_random(&prng_state, src.ptr, src.size);
	memset(dst.ptr, 0xa5, dst.size);

	p = cb.ptr;
	p += hlthunk_pkt_lin_dma(p, src.va + src_off, a.va + a_off, size);
	p += hlthunk_pkt_lin_dma(p, a.va + a_off, b.va + b_off, size);
	p += hlthunk_pkt_lin_dma(p, b.va + b_off, dst.va + dst_off, size);
	n = p - cb.ptr;
	hltests_run_cb_ok(fd, queue, cb.va, n);

	assert_bytes_are(dst.ptr, 0xa5, dst_off, "before dst");
	hltests_assert_bytes_equal(dst.ptr + dst_off, src.ptr + src_off, size, "dst");
	assert_bytes_are(dst.ptr + dst_off + size, 0xa5, PAGE, "after dst");

	hltests_dram_unmap(fd, &b);
	hltests_dram_unmap(fd, &a);
	hltests_host_unmap(fd, &dst);
	hltests_host_unmap(fd, &src);
	hltests_host_unmap(fd, &cb);
}

static void test_roundtrip_single_page(void **state)
{
	struct hltests_state *st = *state;

	roundtrip(st->fd, 0, PAGE, 0, 0, 0, 0);
}

static void test_roundtrip_many_pages(void **state)
{
	struct hltests_state *st = *state;

	/* Across 2 MiB DRAM pages and many 4 KiB host pages */
	roundtrip(st->fd, 1, 5 * MB + 3 * PAGE, 0, 0, 0, 0);
}

static void test_roundtrip_unaligned(void **state)
{
	struct hltests_state *st = *state;

	roundtrip(st->fd, 2, 1, 4095, 2 * MB - 1, 7, 3);
	roundtrip(st->fd, 3, 10001, 13, 2 * MB - 4000, 1, 4093);
	roundtrip(st->fd, 0, 3 * MB + 17, 4095, 5, 2 * MB - 3, 1);
}

/*
 * LIN_DMA between overlapping ranges, as documented (hlthunk_pkt_lin_dma()):
 * chunks that end at no 4 KiB page of the source nor of the destination,
 * each read whole, then written, in increasing address order. @src and
 * @dst are offsets in @mem whose values mod 4096 are those of the VAs.
 */
static void model_lin_dma(uint8_t *mem, uint64_t src, uint64_t dst,
			  uint64_t size)
{
	uint8_t tmp[PAGE];
	uint64_t n;

	while (size) {
		n = PAGE - src % PAGE;
		if (n > PAGE - dst % PAGE)
			n = PAGE - dst % PAGE;
		if (n > size)
			n = size;
		memcpy(tmp, mem + src, n);
		memcpy(mem + dst, tmp, n);
		src += n;
		dst += n;
		size -= n;
	}
}

static void test_overlapping_copy_chunk_semantics(void **state)
{
	static const uint64_t cases[][3] = {	/* src, dst, size */
		{ 100, 108, 20000 },		/* forward, 8 bytes apart */
		{ 100, 5000, 30000 },		/* forward, more than a page */
		{ 9000, 1234, 40000 },		/* backward */
		{ 4096, 4096 + 2048, 3 * 4096 },/* page aligned source */
	};
	const uint64_t size = 64 * 1024;
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h;
	struct hltests_dram_buf d;
	uint8_t *model = malloc(size), *got = malloc(size);
	size_t i;
	int mem;

	assert_non_null(model);
	assert_non_null(got);
	cb_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, size);
	hltests_dram_map(st->fd, &d, size, false);

	/* mem 0: both ranges in DRAM, 1: both in host memory */
	for (mem = 0; mem < 2; mem++) {
		uint64_t va = mem ? h.va : d.va;

		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			hltests_fill_random(&prng_state, model, size);
			if (mem)
				memcpy(h.ptr, model, size);
			else
				hltests_write_device(st->fd, d.va, model, size);

			hltests_run_cb_ok(st->fd, 0, cb.va,
					  hlthunk_pkt_lin_dma(cb.ptr,
							      va + cases[i][0],
							      va + cases[i][1],
							      cases[i][2]));
			model_lin_dma(model, cases[i][0], cases[i][1],
				      cases[i][2]);

			if (mem)
				memcpy(got, h.ptr, size);
			else
				hltests_read_device(st->fd, d.va, got, size);
			hltests_assert_bytes_equal(got, model, size,
						   mem ? "host overlap" :
							 "DRAM overlap");
		}
	}

	hltests_dram_unmap(st->fd, &d);
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
	free(got);
	free(model);
}

static void test_last_byte_of_dram(void **state)
{
	struct hltests_state *st = *state;
	uint64_t size = st->hw_ip.dram_size, last;
	struct hltests_host_buf cb, src, dst;
	struct hltests_dram_buf all;
	uint8_t *p;

	/* All of DRAM: its last page is the last page of HBM */
	cb_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &src, PAGE);
	hltests_host_map(st->fd, &dst, PAGE);
	hltests_dram_map(st->fd, &all, size, false);
	last = all.va + size - 1;

	hltests_fill_random(&prng_state, src.ptr, PAGE);
	p = cb.ptr;
	/* The last 4 KiB, then the very last byte again from elsewhere */
	p += hlthunk_pkt_lin_dma(p, src.va, last - PAGE + 1, PAGE);
	p += hlthunk_pkt_lin_dma(p, src.va + 100, last, 1);
	p += hlthunk_pkt_lin_dma(p, last - PAGE + 1, dst.va, PAGE);
	hltests_run_cb_ok(st->fd, 0, cb.va, p - cb.ptr);
	hltests_assert_bytes_equal(dst.ptr, src.ptr, PAGE - 1, "last page");
	assert_int_equal(dst.ptr[PAGE - 1], src.ptr[100]);

	/* One byte past the end is not mapped */
	{
		int64_t t = hltests_page_fault(st->fd).timestamp;

		hlthunk_pkt_lin_dma(cb.ptr, src.va, last - 1, 2);
		hltests_run_cb_ok(st->fd, 0, cb.va, HLTHUNK_PKT_LIN_DMA_SIZE);
		hlthunk_pkt_lin_dma(cb.ptr, src.va, last, 2);
		hltests_run_cb_aborted(st->fd, 0, cb.va, HLTHUNK_PKT_LIN_DMA_SIZE);
		hltests_assert_fault_at(st->fd, t, last + 1, 0, 1);
	}

	hltests_dram_unmap(st->fd, &all);
	hltests_host_unmap(st->fd, &dst);
	hltests_host_unmap(st->fd, &src);
	hltests_host_unmap(st->fd, &cb);
}

static void check_memset(const uint8_t *p, uint64_t va, uint64_t value,
			 uint64_t n, const char *what)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		uint8_t want = (uint8_t)(value >> (8 * ((va + i) % 8)));

		if (p[i] != want) {
			print_error("%s: byte %" PRIu64 " is 0x%02x, expected 0x%02x\n",
				    what, i, p[i], want);
			fail();
		}
	}
}

static void test_memset_pattern(void **state)
{
	struct hltests_state *st = *state;
	const uint64_t value = 0x0807060504030201ull;
	const uint64_t size = 3 * PAGE + 5, off = 3;
	struct hltests_host_buf cb, h;
	struct hltests_dram_buf d;
	uint8_t *p;

	cb_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, 8 * PAGE);
	hltests_dram_map(st->fd, &d, 4 * MB, false);
	memset(h.ptr, 0x5a, h.size);

	/* Host memory, at an unaligned VA */
	p = cb.ptr;
	p += hlthunk_pkt_memset(p, h.va + off, value, size);
	/* DRAM across a 2 MiB page, then copied back to the host */
	p += hlthunk_pkt_memset(p, d.va + 2 * MB - 1001, ~value, 2 * PAGE);
	p += hlthunk_pkt_lin_dma(p, d.va + 2 * MB - 1001, h.va + 5 * PAGE,
				 2 * PAGE);
	/* Zero bytes: nothing */
	p += hlthunk_pkt_memset(p, h.va, 0, 0);
	hltests_run_cb_ok(st->fd, 2, cb.va, p - cb.ptr);

	assert_bytes_are(h.ptr, 0x5a, off, "before memset");
	check_memset(h.ptr + off, h.va + off, value, size, "host memset");
	assert_bytes_are(h.ptr + off + size, 0x5a, 5 * PAGE - off - size,
			 "after memset");
	check_memset(h.ptr + 5 * PAGE, d.va + 2 * MB - 1001, ~value, 2 * PAGE,
		     "DRAM memset");

	hltests_dram_unmap(st->fd, &d);
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

static void test_msg_long(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h;
	struct hltests_dram_buf d;
	uint32_t v;
	uint8_t *p;
	int64_t t;

	cb_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	hltests_dram_map(st->fd, &d, 2 * MB, false);
	memset(h.ptr, 0xee, PAGE);

	p = cb.ptr;
	p += hlthunk_pkt_msg_long(p, h.va + 8, 0x12345678);
	/* Through DRAM and back */
	p += hlthunk_pkt_msg_long(p, d.va + 2 * MB - 4, 0xcafef00d);
	p += hlthunk_pkt_lin_dma(p, d.va + 2 * MB - 4, h.va + 16, 4);
	/* The fence write, last */
	p += hlthunk_pkt_msg_long(p, h.va + PAGE - 4, 1);
	hltests_run_cb_ok(st->fd, 3, cb.va, p - cb.ptr);

	memcpy(&v, h.ptr + 8, 4);
	assert_int_equal(v, 0x12345678);
	memcpy(&v, h.ptr + 16, 4);
	assert_int_equal(v, 0xcafef00d);
	memcpy(&v, h.ptr + PAGE - 4, 4);
	assert_int_equal(v, 1);
	assert_bytes_are(h.ptr, 0xee, 8, "before msg");
	assert_bytes_are(h.ptr + 12, 0xee, 4, "between msgs");
	assert_bytes_are(h.ptr + 20, 0xee, PAGE - 24, "after msgs");

	/* Misaligned: the CS aborts, and it is no MMU fault */
	t = hltests_page_fault(st->fd).timestamp;
	hlthunk_pkt_msg_long(cb.ptr, h.va + 2, 7);
	hltests_run_cb_aborted(st->fd, 3, cb.va, HLTHUNK_PKT_MSG_LONG_SIZE);
	assert_int_equal(hltests_page_fault(st->fd).timestamp, t);
	memcpy(&v, h.ptr, 4);
	assert_int_equal(v, 0xeeeeeeee);

	hltests_dram_unmap(st->fd, &d);
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

static void test_cb_in_dram(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, stage, h;
	struct hltests_dram_buf d;
	uint32_t n;
	uint8_t *p;

	cb_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &stage, 2 * PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	hltests_dram_map(st->fd, &d, 2 * MB, false);

	/* A CB that crosses a 4 KiB page of DRAM VA */
	p = stage.ptr;
	p += hlthunk_pkt_memset(p, h.va, 0x1111111111111111ull, 64);
	p += hlthunk_pkt_nop(p);
	p += hlthunk_pkt_msg_long(p, h.va + 64, 0xabcd);
	n = p - stage.ptr;
	hlthunk_pkt_lin_dma(cb.ptr, stage.va, d.va + PAGE - 24, n);
	hltests_run_cb_ok(st->fd, 0, cb.va, HLTHUNK_PKT_LIN_DMA_SIZE);

	hltests_run_cb_ok(st->fd, 1, d.va + PAGE - 24, n);
	assert_bytes_are(h.ptr, 0x11, 64, "memset from DRAM CB");
	assert_int_equal(h.ptr[64], 0xcd);
	assert_int_equal(h.ptr[65], 0xab);

	hltests_dram_unmap(st->fd, &d);
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &stage);
	hltests_host_unmap(st->fd, &cb);
}

static void test_jobs_on_every_queue_in_one_cs(void **state)
{
	struct hltests_state *st = *state;
	uint32_t nq = st->hw_ip.num_queues, q, status;
	const uint64_t size = 256 * KB;
	struct hl_cs_chunk chunks[HL_MAX_JOBS_PER_CS];
	struct hltests_host_buf cb, src, dst;
	struct hltests_dram_buf d;
	uint64_t seq;
	uint8_t *p;

	assert_true(nq >= 2 && nq <= HL_MAX_JOBS_PER_CS);
	cb_map(st->fd, &cb, nq * 128);
	hltests_host_map(st->fd, &src, nq * size);
	hltests_host_map(st->fd, &dst, nq * size);
	hltests_dram_map(st->fd, &d, nq * size, false);
	hltests_fill_random(&prng_state, src.ptr, src.size);

	/* Each queue moves its own slice: host -> DRAM -> host */
	for (q = 0; q < nq; q++) {
		p = cb.ptr + q * 128;
		p += hlthunk_pkt_lin_dma(p, src.va + q * size, d.va + q * size,
					 size);
		p += hlthunk_pkt_lin_dma(p, d.va + q * size, dst.va + q * size,
					 size);
		chunk_init(&chunks[q], q, cb.va + q * 128,
			   p - (cb.ptr + q * 128));
	}
	assert_int_equal(submit(st->fd, chunks, nq, 0, &seq), 0);
	assert_int_equal(wait_cs(st->fd, seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	hltests_assert_bytes_equal(dst.ptr, src.ptr, nq * size, "all queues");

	hltests_dram_unmap(st->fd, &d);
	hltests_host_unmap(st->fd, &dst);
	hltests_host_unmap(st->fd, &src);
	hltests_host_unmap(st->fd, &cb);
}

/* ------------------------------------------------------------------------
 * Faults and malformed command buffers
 */

static void test_unmapped_cb_faults(void **state)
{
	struct hltests_state *st = *state;
	uint64_t va = st->hw_ip.host_va_end - 64 * PAGE;
	int64_t t = hltests_page_fault(st->fd).timestamp;

	hltests_run_cb_aborted(st->fd, 1, va, 64);
	hltests_assert_fault_at(st->fd, t, va, 1, 0);

	/* A VA outside every range, and one beyond 48 bits */
	t = hltests_page_fault(st->fd).timestamp;
	hltests_run_cb_aborted(st->fd, 2, 0x1000, 8);
	hltests_assert_fault_at(st->fd, t, 0x1000, 2, 0);
	t = hltests_page_fault(st->fd).timestamp;
	hltests_run_cb_aborted(st->fd, 3, 1ull << 48, 8);
	hltests_assert_fault_at(st->fd, t, 1ull << 48, 3, 0);
}

static void test_unmapped_data_faults(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h;
	uint64_t hole;
	int64_t t;
	uint8_t *p;

	cb_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, 2 * PAGE);
	hole = st->hw_ip.dram_va_end - 2 * MB + 12345;
	memset(h.ptr, 0x77, h.size);

	/* Write fault after a good packet: the first one took effect */
	t = hltests_page_fault(st->fd).timestamp;
	p = cb.ptr;
	p += hlthunk_pkt_memset(p, h.va, 0, 16);
	p += hlthunk_pkt_lin_dma(p, h.va, hole, 100);
	p += hlthunk_pkt_memset(p, h.va + 16, 0, 16);
	hltests_run_cb_aborted(st->fd, 2, cb.va, p - cb.ptr);
	hltests_assert_fault_at(st->fd, t, hole, 2, 1);
	assert_bytes_are(h.ptr, 0, 16, "before the fault");
	assert_bytes_are(h.ptr + 16, 0x77, 16, "after the fault");

	/* Read fault in the middle of a copy: the VA of the first hole */
	t = hltests_page_fault(st->fd).timestamp;
	hlthunk_pkt_lin_dma(cb.ptr, h.va + PAGE, h.va, 3 * PAGE);
	hltests_run_cb_aborted(st->fd, 0, cb.va, HLTHUNK_PKT_LIN_DMA_SIZE);
	hltests_assert_fault_at(st->fd, t, h.va + 2 * PAGE, 0, 0);

	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

static void test_cs_after_unmap_faults(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h;
	struct hltests_dram_buf d;
	uint64_t hva, dva;
	int64_t t;

	cb_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	hltests_dram_map(st->fd, &d, 2 * MB, false);
	hva = h.va;
	dva = d.va;

	/* Used once, so that the TLBs hold the translations */
	hlthunk_pkt_lin_dma(cb.ptr, hva, dva, PAGE);
	hltests_run_cb_ok(st->fd, 1, cb.va, HLTHUNK_PKT_LIN_DMA_SIZE);

	hltests_host_unmap(st->fd, &h);
	t = hltests_page_fault(st->fd).timestamp;
	hltests_run_cb_aborted(st->fd, 1, cb.va, HLTHUNK_PKT_LIN_DMA_SIZE);
	hltests_assert_fault_at(st->fd, t, hva, 1, 0);

	hltests_dram_unmap(st->fd, &d);
	hlthunk_pkt_lin_dma(cb.ptr, cb.va, dva, 8);
	t = hltests_page_fault(st->fd).timestamp;
	hltests_run_cb_aborted(st->fd, 1, cb.va, HLTHUNK_PKT_LIN_DMA_SIZE);
	hltests_assert_fault_at(st->fd, t, dva, 1, 1);

	/* And the CB itself, once unmapped */
	{
		uint64_t cbva = cb.va;

		hltests_host_unmap(st->fd, &cb);
		t = hltests_page_fault(st->fd).timestamp;
		hltests_run_cb_aborted(st->fd, 1, cbva, HLTHUNK_PKT_LIN_DMA_SIZE);
		hltests_assert_fault_at(st->fd, t, cbva, 1, 0);
	}
}

static void test_malformed_cb_aborts(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h;
	uint32_t w;
	int64_t t;
	uint8_t *p;

	cb_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	t = hltests_page_fault(st->fd).timestamp;

	/* Unknown opcode */
	w = 0x7f000000;
	memset(cb.ptr, 0, 32);
	memcpy(cb.ptr, &w, 4);
	hltests_run_cb_aborted(st->fd, 0, cb.va, 8);

	/* Reserved ctl bits */
	hlthunk_pkt_nop(cb.ptr);
	cb.ptr[0] = 1;
	hltests_run_cb_aborted(st->fd, 0, cb.va, 8);

	/* Non-zero pad: NOP, LIN_DMA, MEMSET */
	hlthunk_pkt_nop(cb.ptr);
	cb.ptr[4] = 1;
	hltests_run_cb_aborted(st->fd, 0, cb.va, 8);
	hlthunk_pkt_lin_dma(cb.ptr, h.va, h.va + 64, 8);
	cb.ptr[7] = 1;
	hltests_run_cb_aborted(st->fd, 0, cb.va, 32);
	hlthunk_pkt_memset(cb.ptr, h.va, 0, 8);
	cb.ptr[5] = 1;
	hltests_run_cb_aborted(st->fd, 0, cb.va, 32);

	/* A packet cut by cb_size; the first one still ran */
	memset(h.ptr, 0x33, 16);
	p = cb.ptr;
	p += hlthunk_pkt_memset(p, h.va, 0, 8);
	p += hlthunk_pkt_lin_dma(p, h.va, h.va + 8, 8);
	hltests_run_cb_aborted(st->fd, 0, cb.va, 32 + 24);
	assert_bytes_are(h.ptr, 0, 8, "first packet");
	assert_bytes_are(h.ptr + 8, 0x33, 8, "cut packet");

	/* A CB that is not 8-byte aligned */
	hlthunk_pkt_nop(cb.ptr + 4);
	hltests_run_cb_aborted(st->fd, 0, cb.va + 4, 8);

	/* None of these was an MMU fault, and the queue still works */
	assert_int_equal(hltests_page_fault(st->fd).timestamp, t);
	hlthunk_pkt_nop(cb.ptr);
	hltests_run_cb_ok(st->fd, 0, cb.va, 8);

	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

static void test_one_bad_job_fails_its_cs(void **state)
{
	struct hltests_state *st = *state;
	struct hl_cs_chunk chunks[2];
	struct hltests_host_buf cb, h;
	uint32_t status;
	uint64_t seq;

	cb_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	memset(h.ptr, 0, PAGE);
	hlthunk_pkt_memset(cb.ptr, h.va, ~0ull, 64);
	hlthunk_pkt_memset(cb.ptr + 64, 0x2000, 0, 64);
	chunk_init(&chunks[0], 0, cb.va, 32);
	chunk_init(&chunks[1], 1, cb.va + 64, 32);
	assert_int_equal(submit(st->fd, chunks, 2, 0, &seq), 0);
	assert_int_equal(wait_cs(st->fd, seq, &status), -EIO);
	assert_int_equal(status, HL_WAIT_CS_STATUS_ABORTED);
	/* The good job ran all the same */
	assert_bytes_are(h.ptr, 0xff, 64, "good job");
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/* ------------------------------------------------------------------------
 * Long jobs: BUSY, timeouts, a CS outliving its file
 */

/*
 * A CB of @count MEMSET packets over @d: a job as long as wanted. Returns
 * the CB size.
 */
static uint32_t long_cb(struct hltests_host_buf *cb, struct hltests_dram_buf *d,
			uint32_t count)
{
	uint8_t *p = cb->ptr;
	uint32_t i;

	for (i = 0; i < count; i++)
		p += hlthunk_pkt_memset(p, d->va, i, d->size);
	return p - cb->ptr;
}

/* Seconds the engine takes to fill @d once */
static double memset_seconds(int fd, struct hltests_host_buf *cb, struct hltests_dram_buf *d)
{
	uint64_t t0 = hltests_now_ns();

	hltests_run_cb_ok(fd, 0, cb->va, long_cb(cb, d, 1));
	return (hltests_now_ns() - t0) / 1e9;
}

static bool queue_busy(int fd, uint32_t q)
{
	struct hlthunk_engines_idle_info info;

	assert_int_equal(hlthunk_get_busy_engines_mask(fd, &info), 0);
	return info.mask[q / 64] & (1ull << (q % 64));
}

static void test_wait_busy_then_completed(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb;
	struct hltests_dram_buf d;
	uint32_t count, status, n;
	uint64_t seq, ts, t0;
	double one;

	cb_map(st->fd, &cb, 64 * KB);
	hltests_dram_map(st->fd, &d, 16 * MB, false);
	one = memset_seconds(st->fd, &cb, &d);
	/* About 1.5 s of work */
	count = (uint32_t)(1.5 / one) + 1;
	if (count > 2000)
		count = 2000;
	n = long_cb(&cb, &d, count);

	t0 = hltests_now_ns();
	seq = hltests_submit_cb(st->fd, 2, cb.va, n, 0);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, seq, 0, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_BUSY);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, seq, 1000, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_BUSY);
	assert_false(hlthunk_is_device_idle(st->fd));
	assert_true(queue_busy(st->fd, 2));
	assert_false(queue_busy(st->fd, 1));

	assert_int_equal(hlthunk_wait_for_cs_with_timestamp(st->fd, seq,
			 WAIT_US, &status, &ts), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_true(ts > t0 && ts <= hltests_now_ns());
	assert_true(hlthunk_is_device_idle(st->fd));

	hltests_dram_unmap(st->fd, &d);
	hltests_host_unmap(st->fd, &cb);
}

struct cs_waiter {
	int fd;
	uint64_t seq;
	uint32_t status;
	int rc;
};

static void on_signal(int sig)
{
	(void)sig;
}

static void *cs_wait_thread(void *arg)
{
	struct cs_waiter *w = arg;

	w->status = 0xdead;
	w->rc = hlthunk_wait_for_cs(w->fd, w->seq, WAIT_US, &w->status);
	return NULL;
}

/*
 * A WAIT_CS interrupted by signals (-EINTR) leaves its argument as it was,
 * so that libhlthunk's retry waits for the same CS: it completes, rather
 * than a retry asking for a zeroed sequence number (-EINVAL).
 */
static void test_wait_cs_survives_signals(void **state)
{
	struct hltests_state *st = *state;
	struct sigaction sa, old;
	struct cs_waiter w;
	struct hltests_host_buf cb;
	struct hltests_dram_buf d;
	uint32_t count, n;
	pthread_t t;
	double one;
	int i;

	cb_map(st->fd, &cb, 64 * KB);
	hltests_dram_map(st->fd, &d, 16 * MB, false);
	one = memset_seconds(st->fd, &cb, &d);
	/* About 1.5 s of work, interrupted every 100 ms */
	count = (uint32_t)(1.5 / one) + 1;
	if (count > 2000)
		count = 2000;
	n = long_cb(&cb, &d, count);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: the ioctl gets EINTR */
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	memset(&w, 0, sizeof(w));
	w.fd = st->fd;
	w.seq = hltests_submit_cb(st->fd, 1, cb.va, n, 0);
	assert_int_equal(pthread_create(&t, NULL, cs_wait_thread, &w), 0);
	for (i = 0; i < 10; i++) {
		usleep(100 * 1000);
		pthread_kill(t, SIGUSR1);
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	sigaction(SIGUSR1, &old, NULL);

	assert_int_equal(w.rc, 0);
	assert_int_equal(w.status, HL_WAIT_CS_STATUS_COMPLETED);
	/*
	 * And it was this CS that completed: a clobbered retry would have
	 * asked about another one (a zeroed argument reads as seq 1) and
	 * returned while this one still ran.
	 */
	assert_int_equal(hlthunk_wait_for_cs(st->fd, w.seq, 0, &w.status), 0);
	assert_int_equal(w.status, HL_WAIT_CS_STATUS_COMPLETED);
	hltests_dram_unmap(st->fd, &d);
	hltests_host_unmap(st->fd, &cb);
}

static void test_cs_timeout_aborts(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb;
	struct hltests_dram_buf d;
	uint64_t seq, t0, dt;
	uint32_t status, n;
	int64_t t;

	cb_map(st->fd, &cb, 2 * MB);
	hltests_dram_map(st->fd, &d, 64 * MB, false);
	/* 65536 x 64 MiB: hours of work; the 1 s timeout must cut it */
	n = long_cb(&cb, &d, 2 * MB / HLTHUNK_PKT_MEMSET_SIZE);
	t = hltests_page_fault(st->fd).timestamp;

	t0 = hltests_now_ns();
	seq = hltests_submit_cb(st->fd, 3, cb.va, n, 1);
	assert_int_equal(wait_cs(st->fd, seq, &status), -ETIMEDOUT);
	dt = hltests_now_ns() - t0;
	assert_int_equal(status, HL_WAIT_CS_STATUS_TIMEDOUT);
	print_message("timed out after %.2f s\n", dt / 1e9);
	assert_true(dt >= 900000000ull);
	assert_true(dt < 30000000000ull);
	assert_int_equal(hltests_page_fault(st->fd).timestamp, t);

	/* The queue works again */
	hlthunk_pkt_nop(cb.ptr);
	hltests_run_cb_ok(st->fd, 3, cb.va, 8);
	assert_true(hlthunk_is_device_idle(st->fd));

	hltests_dram_unmap(st->fd, &d);
	hltests_host_unmap(st->fd, &cb);
}

/* The default timeout (CS timeout 0) is the timeout_locked parameter */
static void test_default_timeout_is_module_parameter(void **state)
{
	const char *param = "/sys/module/habanalabs/parameters/timeout_locked";
	struct hltests_state *st = *state;
	char old[32];
	struct hltests_host_buf cb;
	struct hltests_dram_buf d;
	uint64_t seq, t0, dt;
	uint32_t status, n;

	assert_int_equal(hltests_read_file(param, old, sizeof(old)), 0);
	assert_string_equal(old, "30");
	if (hltests_write_file(param, "1")) {
		print_message("cannot write %s: skipped\n", param);
		skip();
	}
	cb_map(st->fd, &cb, 2 * MB);
	hltests_dram_map(st->fd, &d, 64 * MB, false);
	n = long_cb(&cb, &d, 2 * MB / HLTHUNK_PKT_MEMSET_SIZE);
	t0 = hltests_now_ns();
	seq = hltests_submit_cb(st->fd, 0, cb.va, n, 0);
	assert_int_equal(hltests_write_file(param, old), 0);
	assert_int_equal(wait_cs(st->fd, seq, &status), -ETIMEDOUT);
	dt = hltests_now_ns() - t0;
	assert_int_equal(status, HL_WAIT_CS_STATUS_TIMEDOUT);
	print_message("timed out after %.2f s\n", dt / 1e9);
	assert_true(dt >= 900000000ull && dt < 30000000000ull);
	hltests_dram_unmap(st->fd, &d);
	hltests_host_unmap(st->fd, &cb);
}

static void test_close_fd_while_cs_runs(void **state)
{
	struct hlthunk_hw_ip_info hw;
	struct hltests_host_buf cb;
	struct hltests_dram_buf d;
	uint32_t status, n;
	uint64_t seq, t0;
	int fd;

	(void)state;
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	assert_int_equal(hlthunk_get_hw_ip_info(fd, &hw), 0);
	cb_map(fd, &cb, 2 * MB);
	hltests_dram_map(fd, &d, 64 * MB, false);
	n = long_cb(&cb, &d, 2 * MB / HLTHUNK_PKT_MEMSET_SIZE);
	seq = hltests_submit_cb(fd, 0, cb.va, n, 20);
	assert_int_equal(hlthunk_wait_for_cs(fd, seq, 0, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_BUSY);

	/*
	 * Closed with the CS running: close cancels it and releases the
	 * context's memory at once, not after the job's timeout.
	 */
	t0 = hltests_now_ns();
	close(fd);
	print_message("close took %.2f s\n", (hltests_now_ns() - t0) / 1e9);
	assert_true(hltests_now_ns() - t0 < 5000000000ull);

	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	assert_false(queue_busy(fd, 0));
	assert_true(hlthunk_is_device_idle(fd));
	assert_int_equal(hltests_dram_free(fd), hw.dram_size);
	/* A new context: its own sequence numbers */
	assert_int_equal(hlthunk_wait_for_cs(fd, seq, 0, &status), -EINVAL);
	close(fd);
}

/* Lines of the kernel log from now on that contain @needle */
static int kmsg_open_at_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

static int kmsg_count(int fd, const char *needle)
{
	char rec[4096];
	ssize_t n;
	int count = 0;

	if (fd < 0)
		return 0;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		if (strstr(rec, needle))
			count++;
	}
	return count;
}

/*
 * UNMAP while an engine is copying from (then to) the mapping: UNMAP
 * succeeds, the job faults on the first chunk after it, inside the range,
 * and no engine access reaches a DMA address that is no longer mapped.
 */
static void test_unmap_while_cs_runs(void **state)
{
	struct hltests_state *st = *state;
	const uint64_t size = 8 * MB;
	struct hltests_host_buf cb, h;
	struct hltests_dram_buf d;
	struct hl_info_page_fault_event pf;
	uint32_t status, n, i;
	uint64_t seq;
	uint8_t *p;
	int kfd = kmsg_open_at_end();

	cb_map(st->fd, &cb, 64 * KB);
	hltests_host_map(st->fd, &h, size);
	hltests_dram_map(st->fd, &d, size, false);

	/* Reading the host buffer, again and again */
	for (p = cb.ptr, i = 0; i < 2000; i++)
		p += hlthunk_pkt_lin_dma(p, h.va, d.va, size);
	n = p - cb.ptr;
	seq = hltests_submit_cb(st->fd, 0, cb.va, n, 60);
	usleep(200 * 1000);
	assert_int_equal(hlthunk_memory_unmap(st->fd, h.va), 0);
	assert_int_equal(wait_cs(st->fd, seq, &status), -EIO);
	assert_int_equal(status, HL_WAIT_CS_STATUS_ABORTED);
	pf = hltests_page_fault(st->fd);
	assert_true(pf.addr >= h.va && pf.addr < h.va + size);
	assert_int_equal(pf.is_write, 0);
	free(h.ptr);

	/* Writing DRAM, again and again */
	for (p = cb.ptr, i = 0; i < 2000; i++)
		p += hlthunk_pkt_memset(p, d.va, i, size);
	n = p - cb.ptr;
	seq = hltests_submit_cb(st->fd, 1, cb.va, n, 60);
	usleep(200 * 1000);
	assert_int_equal(hlthunk_memory_unmap(st->fd, d.va), 0);
	assert_int_equal(hlthunk_device_memory_free(st->fd, d.handle), 0);
	assert_int_equal(wait_cs(st->fd, seq, &status), -EIO);
	assert_int_equal(status, HL_WAIT_CS_STATUS_ABORTED);
	pf = hltests_page_fault(st->fd);
	assert_true(pf.addr >= d.va && pf.addr < d.va + size);
	assert_int_equal(pf.is_write, 1);

	assert_int_equal(kmsg_count(kfd, "not mapped for the device"), 0);
	if (kfd >= 0)
		close(kfd);
	hltests_host_unmap(st->fd, &cb);
}

struct submitter {
	int fd;
	uint32_t queue;
	uint64_t cb_va;
	uint32_t cb_size;
	uint32_t count;
	uint64_t *seqs;
	int failures;
};

static void *submit_thread(void *arg)
{
	struct submitter *s = arg;
	struct hlthunk_cs_in in;
	struct hlthunk_cs_out out;
	struct hl_cs_chunk c;
	uint32_t i;

	chunk_init(&c, s->queue, s->cb_va, s->cb_size);
	memset(&in, 0, sizeof(in));
	in.chunks_execute = &c;
	in.num_chunks_execute = 1;
	for (i = 0; i < s->count; i++) {
		if (hlthunk_command_submission(s->fd, &in, &out)) {
			s->failures++;
			continue;
		}
		s->seqs[i] = out.seq;
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Threads submitting on one fd get distinct, dense sequence numbers */
static void test_concurrent_submitters(void **state)
{
	struct hltests_state *st = *state;
	enum { THREADS = 4, PER = 300 };
	struct submitter s[THREADS];
	pthread_t t[THREADS];
	uint64_t *all = calloc(THREADS * PER, sizeof(*all));
	struct hltests_host_buf cb, h;
	uint32_t status, v, i;

	assert_non_null(all);
	cb_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	for (i = 0; i < THREADS; i++) {
		/* Each thread's job counts in its own word */
		hlthunk_pkt_msg_long(cb.ptr + 64 * i, h.va + 4 * i, 0x100 + i);
		s[i] = (struct submitter){ .fd = st->fd,
			.queue = i % st->hw_ip.num_queues,
			.cb_va = cb.va + 64 * i,
			.cb_size = HLTHUNK_PKT_MSG_LONG_SIZE, .count = PER,
			.seqs = all + i * PER };
		assert_int_equal(pthread_create(&t[i], NULL, submit_thread,
						&s[i]), 0);
	}
	for (i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(s[i].failures, 0);
	}
	qsort(all, THREADS * PER, sizeof(*all), cmp_u64);
	for (i = 0; i < THREADS * PER; i++)
		assert_int_equal(all[i], i + 1);
	for (i = 0; i < THREADS * PER; i++) {
		assert_int_equal(hlthunk_wait_for_cs(st->fd, i + 1, WAIT_US,
						     &status), 0);
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	}
	for (i = 0; i < THREADS; i++) {
		memcpy(&v, h.ptr + 4 * i, 4);
		assert_int_equal(v, 0x100 + i);
	}
	free(all);
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/* ------------------------------------------------------------------------
 * Two devices
 */

static void test_two_devices_at_once(void **state)
{
	const uint64_t size = 4 * MB;
	struct hltests_host_buf cb[2], src[2], dst[2];
	struct hltests_dram_buf d[2];
	uint64_t seq[2];
	uint32_t status;
	int fd[2], i;
	uint8_t *p;

	(void)state;
	if (hltests_num_devices() < 2) {
		print_message("only one device: skipped\n");
		skip();
	}
	for (i = 0; i < 2; i++) {
		fd[i] = hltests_open_node(i, 0);
		assert_true(fd[i] >= 0);
		cb_map(fd[i], &cb[i], PAGE);
		hltests_host_map(fd[i], &src[i], size);
		hltests_host_map(fd[i], &dst[i], size);
		hltests_dram_map(fd[i], &d[i], size, false);
		hltests_fill_random(&prng_state, src[i].ptr, size);
		p = cb[i].ptr;
		p += hlthunk_pkt_lin_dma(p, src[i].va, d[i].va, size);
		p += hlthunk_pkt_lin_dma(p, d[i].va, dst[i].va, size);
		seq[i] = hltests_submit_cb(fd[i], 0, cb[i].va, p - cb[i].ptr, 0);
	}
	/* Both devices run at the same time, each in its own HBM */
	for (i = 0; i < 2; i++) {
		assert_int_equal(wait_cs(fd[i], seq[i], &status), 0);
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
		hltests_assert_bytes_equal(dst[i].ptr, src[i].ptr, size, "device");
	}
	assert_memory_not_equal(src[0].ptr, src[1].ptr, 64);
	for (i = 0; i < 2; i++) {
		hltests_dram_unmap(fd[i], &d[i]);
		hltests_host_unmap(fd[i], &dst[i]);
		hltests_host_unmap(fd[i], &src[i]);
		hltests_host_unmap(fd[i], &cb[i]);
		close(fd[i]);
	}
}

/* ------------------------------------------------------------------------
 * Device removal with work in flight
 */

struct waiter {
	int fd;
	uint64_t seq;
	int rc;
	uint32_t status;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	w->rc = hlthunk_wait_for_cs(w->fd, w->seq, WAIT_US, &w->status);
	return NULL;
}

static void test_unbind_fails_running_and_pending_jobs(void **state)
{
	const char *drv = "/sys/bus/pci/drivers/habanalabs";
	int idx = hltests_num_devices() - 1, fd;
	struct waiter running, pending;
	pthread_t t1, t2;
	char bdf[32], path[160];
	struct hltests_host_buf cb;
	struct hltests_dram_buf d;
	uint64_t t0, seq;
	uint32_t n, status;

	(void)state;
	assert_true(idx >= 0);
	assert_int_equal(hltests_pci_addr(idx, bdf, sizeof(bdf)), 0);
	fd = hltests_open_node(idx, 0);
	assert_true(fd >= 0);
	cb_map(fd, &cb, 2 * MB);
	hltests_dram_map(fd, &d, 64 * MB, false);
	n = long_cb(&cb, &d, 2 * MB / HLTHUNK_PKT_MEMSET_SIZE);

	/* One job running for minutes, one queued behind it */
	running.fd = pending.fd = fd;
	running.seq = hltests_submit_cb(fd, 1, cb.va, n, 600);
	pending.seq = hltests_submit_cb(fd, 1, cb.va, n, 600);
	assert_int_equal(pthread_create(&t1, NULL, wait_thread, &running), 0);
	assert_int_equal(pthread_create(&t2, NULL, wait_thread, &pending), 0);
	usleep(300 * 1000);

	/* Removal stops the engines, which releases the waiters */
	t0 = hltests_now_ns();
	if (hltests_write_file(strcat(strcpy(path, drv), "/unbind"), bdf)) {
		print_message("cannot unbind %s: skipped\n", bdf);
		skip();
	}
	assert_int_equal(pthread_join(t1, NULL), 0);
	assert_int_equal(pthread_join(t2, NULL), 0);
	assert_true(hltests_now_ns() - t0 < 20000000000ull);
	assert_int_equal(running.rc, -EIO);
	assert_int_equal(running.status, HL_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(pending.rc, -EIO);
	assert_int_equal(pending.status, HL_WAIT_CS_STATUS_ABORTED);

	/* The file outlives the device: everything is -ENODEV, close works */
	assert_int_equal(hlthunk_wait_for_cs(fd, running.seq, 0, &status),
			 -ENODEV);
	{
		struct hl_cs_chunk c;

		chunk_init(&c, 0, cb.va, 8);
		assert_int_equal(submit(fd, &c, 1, 0, &seq), -ENODEV);
	}
	close(fd);
	free(cb.ptr);

	/* Bound again, the device works */
	assert_int_equal(hltests_write_file(strcat(strcpy(path, drv), "/bind"), bdf),
			 0);
	fd = hltests_open_node(idx, 0);
	assert_true(fd >= 0);
	cb_map(fd, &cb, PAGE);
	hlthunk_pkt_msg_long(cb.ptr, cb.va + 64, 0x600d);
	hltests_run_cb_ok(fd, 0, cb.va, HLTHUNK_PKT_MSG_LONG_SIZE);
	assert_int_equal(cb.ptr[64], 0x0d);
	assert_int_equal(cb.ptr[65], 0x60);
	hltests_host_unmap(fd, &cb);
	close(fd);
}

/* ------------------------------------------------------------------------
 * Bounds: job run time, in-flight submissions, sequence tracking
 */

#define PARAM_DIR	"/sys/module/habanalabs/parameters/"

/* A job of hours: 2 MiB of MEMSET packets over 64 MiB each */
static uint32_t endless_cb(int fd, struct hltests_host_buf *cb,
			   struct hltests_dram_buf *d)
{
	cb_map(fd, cb, 2 * MB);
	hltests_dram_map(fd, d, 64 * MB, false);
	return long_cb(cb, d, 2 * MB / HLTHUNK_PKT_MEMSET_SIZE);
}

/*
 * No job runs longer than job_timeout_max, whatever the CS asks: neither a
 * larger timeout nor "the default" when the default (timeout_locked) is 0
 * lets a fence that other drivers may wait for stay unsignalled longer.
 */
static void test_job_run_time_is_bounded(void **state)
{
	struct hltests_state *st = *state;
	char old_max[32], old_locked[32];
	struct hltests_host_buf cb;
	struct hltests_dram_buf d;
	uint32_t status, n, timeouts[] = { 0, 3600, UINT32_MAX };
	uint64_t seq, t0, dt;
	unsigned int i;

	n = endless_cb(st->fd, &cb, &d);
	hltests_param_set("job_timeout_max", "2", old_max, sizeof(old_max));
	hltests_param_set("timeout_locked", "0", old_locked, sizeof(old_locked));
	for (i = 0; i < sizeof(timeouts) / sizeof(timeouts[0]); i++) {
		t0 = hltests_now_ns();
		seq = hltests_submit_cb(st->fd, 1, cb.va, n, timeouts[i]);
		status = 0xdead;
		assert_int_equal(hlthunk_wait_for_cs(st->fd, seq, 30ull * 1000 * 1000,
						     &status), -ETIMEDOUT);
		dt = hltests_now_ns() - t0;
		print_message("CS timeout %u s: timed out after %.2f s\n",
			      timeouts[i], dt / 1e9);
		/* Upstream's TDR: TIMEDOUT, not ABORTED */
		assert_int_equal(status, HL_WAIT_CS_STATUS_TIMEDOUT);
		assert_true(dt >= 1500000000ull && dt < 20000000000ull);
	}
	hltests_param_set("timeout_locked", old_locked, NULL, 0);
	hltests_param_set("job_timeout_max", old_max, NULL, 0);
	/* The bound cannot be switched off */
	assert_int_not_equal(hltests_write_file(PARAM_DIR "job_timeout_max", "0"), 0);
	assert_true(hltests_param_get("job_timeout_max") > 0);
	hltests_dram_unmap(st->fd, &d);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * WAIT_CS never reports a running CS as completed, however many newer
 * submissions completed since (on other queues).
 */
static void test_old_running_seq_is_not_completed(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, nop;
	struct hltests_dram_buf d;
	uint32_t status, n, i;
	uint64_t first, seq = 0;

	n = endless_cb(st->fd, &cb, &d);
	first = hltests_submit_cb(st->fd, 0, cb.va, n, 20);
	cb_map(st->fd, &nop, PAGE);
	hlthunk_pkt_nop(nop.ptr);
	for (i = 0; i < 1100; i++)
		seq = hltests_submit_cb(st->fd, 1, nop.va, 8, 0);
	assert_int_equal(wait_cs(st->fd, seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);

	assert_true(queue_busy(st->fd, 0));
	status = 0xdead;
	assert_int_equal(hlthunk_wait_for_cs(st->fd, first, 0, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_BUSY);
	/* It ends (timed out), and says so */
	assert_int_equal(wait_cs(st->fd, first, &status), -ETIMEDOUT);
	assert_int_equal(status, HL_WAIT_CS_STATUS_TIMEDOUT);
	hltests_host_unmap(st->fd, &nop);
	hltests_dram_unmap(st->fd, &d);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * Submissions in flight per context are bounded (max_pending_cs): past the
 * limit, CS fails with EAGAIN instead of queueing without end.
 */
static void test_pending_cs_are_bounded(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, nop;
	struct hltests_dram_buf d;
	struct hl_cs_chunk c;
	uint32_t status, n;
	uint64_t first, seq = 0, s;
	long limit, accepted = 1;
	char old[32];
	int rc = 0;

	/*
	 * 64, not the default 1024: on the debug kernel, under load, a
	 * submission took 40 ms, and 1024 (even 256) of them outlasted the
	 * blocking CS's 10 s
	 */
	hltests_param_set("max_pending_cs", "64", old, sizeof(old));
	limit = hltests_param_get("max_pending_cs");
	assert_int_equal(limit, 64);
	n = endless_cb(st->fd, &cb, &d);
	first = hltests_submit_cb(st->fd, 0, cb.va, n, 10);
	cb_map(st->fd, &nop, PAGE);
	hlthunk_pkt_nop(nop.ptr);
	chunk_init(&c, 0, nop.va, 8);
	/* The raw ioctl: libhlthunk retries EAGAIN until there is room */
	while (accepted <= limit) {
		union hl_cs_args args;

		memset(&args, 0, sizeof(args));
		args.in.chunks_execute = (uint64_t)(uintptr_t)&c;
		args.in.num_chunks_execute = 1;
		rc = hltests_cs_ioctl(st->fd, &args);
		if (rc)
			break;
		seq = args.out.seq;
		accepted++;
	}
	print_message("%ld submissions in flight, then %d\n", accepted, rc);
	assert_int_equal(rc, -EAGAIN);
	assert_int_equal(accepted, limit);
	/* Room again once the blocked one is done */
	assert_int_equal(wait_cs(st->fd, first, &status), -ETIMEDOUT);
	assert_int_equal(wait_cs(st->fd, seq, &status), 0);
	assert_int_equal(submit(st->fd, &c, 1, 0, &s), 0);
	assert_int_equal(wait_cs(st->fd, s, &status), 0);
	hltests_param_set("max_pending_cs", old, NULL, 0);
	hltests_host_unmap(st->fd, &nop);
	hltests_dram_unmap(st->fd, &d);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * CPU time (user + system) of the calling thread, in ns: the scheduler's
 * exact run time (CLOCK_THREAD_CPUTIME_ID), not getrusage()'s, which
 * charges whole ticks to a thread that happens to run when one fires.
 */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	assert_int_equal(clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts), 0);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The same from getrusage(RUSAGE_THREAD), tick-sampled */
static uint64_t thread_rusage_ns(void)
{
	struct rusage ru;

	assert_int_equal(getrusage(RUSAGE_THREAD, &ru), 0);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* SIGALRM every @us microseconds (0: off), without SA_RESTART */
static void alarm_every(long us, struct sigaction *old)
{
	struct itimerval it;
	struct sigaction sa;

	if (us) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm;
		assert_int_equal(sigaction(SIGALRM, &sa, old), 0);
	}
	memset(&it, 0, sizeof(it));
	it.it_value.tv_usec = us;
	it.it_interval.tv_usec = us;
	assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
	if (!us)
		assert_int_equal(sigaction(SIGALRM, old, NULL), 0);
}

/*
 * A process with a periodic timer (SIGALRM every 1 ms) waits for a CS that
 * runs for seconds, with a 500 ms timeout: libhlthunk resumes each
 * interrupted WAIT_CS with the time left, so the call returns BUSY after
 * about 500 ms, not only when the CS ends (a retry with the whole timeout
 * never runs out).
 */
static void test_wait_cs_timeout_holds_under_periodic_signals(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb;
	struct hltests_dram_buf d;
	struct sigaction old;
	cpu_set_t cpus, one;
	uint32_t status, n;
	uint64_t seq, t0, dt;
	int rc;

	n = endless_cb(st->fd, &cb, &d);
	/* Aborted after 6 s: the end of the wait if the timeout were lost */
	seq = hltests_submit_cb(st->fd, 0, cb.va, n, 6);

	/*
	 * The library's deadline and this test's clock, read on one vCPU:
	 * under multi-threaded TCG on a busy host the call once seemed to
	 * return 11 ms before its deadline (1-3 ms under single-threaded
	 * TCG), though the library returns BUSY only after reading that
	 * deadline passed on the same clock: most likely the vCPUs' clocks
	 * apart across a migration (not proven)
	 */
	assert_int_equal(sched_getaffinity(0, sizeof(cpus), &cpus), 0);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);

	alarms = 0;
	alarm_every(1000, &old);
	status = 0xdead;
	t0 = hltests_now_ns();
	rc = hlthunk_wait_for_cs(st->fd, seq, 500 * 1000, &status);
	dt = hltests_now_ns() - t0;
	alarm_every(0, &old);
	assert_int_equal(sched_setaffinity(0, sizeof(cpus), &cpus), 0);

	print_message("500 ms wait under %d SIGALRMs: rc %d status %u after %.3f s\n",
		      (int)alarms, rc, status, dt / 1e9);
	assert_true(alarms > 10);
	assert_int_equal(rc, 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_BUSY);
	/*
	 * The driver's jiffies may run out first: not the call. Not early,
	 * within 10 ms (the slack for the clock, should pinning not be all)
	 */
	assert_true(dt >= 500000000ull - 10000000ull);
	/* The timeout plus the slack of a TCG guest, well before the abort */
	assert_true(dt < 3000000000ull);

	assert_int_equal(wait_cs(st->fd, seq, &status), -ETIMEDOUT);
	assert_int_equal(status, HL_WAIT_CS_STATUS_TIMEDOUT);
	hltests_dram_unmap(st->fd, &d);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * A full CS queue (max_pending_cs 1, the slot held by a job that runs 3 s):
 * hlthunk_command_submission() waits for room without burning the CPU (it
 * backs off instead of retrying EAGAIN at once), and then succeeds.
 */
static void test_full_cs_queue_waits_without_spinning(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, nop;
	struct hltests_dram_buf d;
	struct hl_cs_chunk c;
	char old[32];
	uint64_t first, seq, t0, wall, c0, cpu, r0, ru, pct;
	uint32_t status, n;
	int rc;

	n = endless_cb(st->fd, &cb, &d);
	cb_map(st->fd, &nop, PAGE);
	hlthunk_pkt_nop(nop.ptr);
	chunk_init(&c, 1, nop.va, 8);
	hltests_param_set("max_pending_cs", "1", old, sizeof(old));
	first = hltests_submit_cb(st->fd, 0, cb.va, n, 3);

	t0 = hltests_now_ns();
	c0 = thread_cpu_ns();
	r0 = thread_rusage_ns();
	rc = submit(st->fd, &c, 1, 0, &seq);
	cpu = thread_cpu_ns() - c0;
	ru = thread_rusage_ns() - r0;
	wall = hltests_now_ns() - t0;
	hltests_param_set("max_pending_cs", old, NULL, 0);

	print_message("submission into a full queue: rc %d after %.3f s, %.4f s of CPU (getrusage: %.3f s)\n",
		      rc, wall / 1e9, cpu / 1e9, ru / 1e9);
	assert_int_equal(rc, 0);
	/* It did wait for the 3 s job to end (aborted) */
	assert_true(wall >= 2000000000ull);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, first, 0, &status), -ETIMEDOUT);
	assert_int_equal(status, HL_WAIT_CS_STATUS_TIMEDOUT);
	/*
	 * ... and used less than 15 % of a CPU meanwhile (retrying at once
	 * uses all of it: 99.9 % before the back-off). The back-off wakes the
	 * thread about 200 times in 3 s: next to nothing on a real CPU,
	 * 4-6 % in a TCG guest, where a wake-up and an ioctl cost ~100 times
	 * more; on the debug kernel (KASAN, lockdep: kmemleak is there too)
	 * each ioctl costs ~10 times more again (seen: 15 %), so the bound
	 * there is 50 %, still half of a spin.
	 */
	pct = access("/sys/kernel/debug/kmemleak", F_OK) ? 15 : 50;
	assert_true(cpu * 100 < wall * pct);
	assert_int_equal(wait_cs(st->fd, seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);

	hltests_host_unmap(st->fd, &nop);
	hltests_dram_unmap(st->fd, &d);
	hltests_host_unmap(st->fd, &cb);
}

/* ------------------------------------------------------------------------
 * Debug messages: hl_dbg() categories and the debug_mask parameter
 */

#define DYNDBG_CONTROL	"/proc/dynamic_debug/control"
#define DYNDBG_BAD_PKT	"module habanalabs format \"bad packet\" "
#define HL_DBG_EMU	0x20

/* Run a CB of one unknown packet on queue 0: a "bad packet" message */
static int bad_packet_messages(int fd, struct hltests_host_buf *cb)
{
	uint32_t w = 0x7f000000;
	int kfd = kmsg_open_at_end(), n;

	assert_true(kfd >= 0);
	memset(cb->ptr, 0, 32);
	memcpy(cb->ptr, &w, 4);
	hltests_run_cb_aborted(fd, 0, cb->va, 8);
	n = kmsg_count(kfd, "bad packet 0x7f000000 at CB offset 0");
	close(kfd);
	return n;
}

/*
 * A user-caused failure is logged at debug level, in its category (the
 * emulated engines' bad packet: EMU, 0x20): with dynamic debug enabled for
 * it, it is printed while its debug_mask bit is set (by default, every
 * category is), and not once the bit is cleared.
 */
static void test_debug_mask_gates_debug_messages(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb;
	char old[32], mask[32];
	long def;
	int on, off;

	def = hltests_param_get("debug_mask");
	assert_int_equal(def, 0x7f);
	if (access(DYNDBG_CONTROL, W_OK) ||
	    hltests_write_file(DYNDBG_CONTROL, DYNDBG_BAD_PKT "+p")) {
		print_message("no dynamic debug control: skipped\n");
		skip();
	}
	cb_map(st->fd, &cb, PAGE);

	on = bad_packet_messages(st->fd, &cb);
	snprintf(mask, sizeof(mask), "%ld", def & ~HL_DBG_EMU);
	hltests_param_set("debug_mask", mask, old, sizeof(old));
	off = bad_packet_messages(st->fd, &cb);
	hltests_param_set("debug_mask", old, NULL, 0);
	assert_int_equal(hltests_write_file(DYNDBG_CONTROL,
					    DYNDBG_BAD_PKT "-p"), 0);

	print_message("bad packet messages: %d with EMU, %d without\n", on,
		      off);
	assert_int_equal(on, 1);
	assert_int_equal(off, 0);
	hltests_host_unmap(st->fd, &cb);
}

/* ------------------------------------------------------------------------
 * The sync manager: sync objects, monitors, fences (habanalabs_pkt.h)
 */

/*
 * Negative control (run once, by hand): with a monitor that fires one
 * increment early, payloads accepted anywhere at the arm, no reset between
 * owners and the driver's WAIT armed on 0, test_monitor_fires_into_fence,
 * test_monitor_payload_outside_refused,
 * test_sync_manager_reset_for_next_owner, test_signal_wait_orders_queues
 * and test_wait_times_out_and_leaves_no_stale_fire fail, and the rest of
 * the suite passes.
 */

/* SOBs and monitors the tests use: above the driver's (HL_INFO_SYNC_MANAGER) */
#define T_SOB		256
#define T_MON		128

static uint32_t pkt_fence(void *buf, uint32_t id, uint32_t target,
			  uint32_t dec)
{
	struct hl_pkt_fence pkt = {
		.ctl = (uint32_t)HL_PKT_FENCE << HL_PKT_OPCODE_SHIFT,
		.cfg = HL_PKT_FENCE_CFG(id, target, dec),
	};

	memcpy(buf, &pkt, sizeof(pkt));
	return sizeof(pkt);
}

/*
 * Arm monitor @mon on SOB @sob alone (>= @value, or == with @eq), payload
 * @data to @addr
 */
static uint32_t pkt_arm(void *buf, uint32_t mon, uint32_t sob, uint32_t value,
			int eq, uint64_t addr, uint32_t data)
{
	uint8_t *p = buf;

	p += hlthunk_pkt_msg_long(p, HL_SM_MON_PAY_ADDRL_ADDR(mon),
				  (uint32_t)addr);
	p += hlthunk_pkt_msg_long(p, HL_SM_MON_PAY_ADDRH_ADDR(mon),
				  (uint32_t)(addr >> 32));
	p += hlthunk_pkt_msg_long(p, HL_SM_MON_PAY_DATA_ADDR(mon), data);
	p += hlthunk_pkt_msg_long(p, HL_SM_MON_ARM_ADDR(mon),
				  HL_SM_MON_ARM(sob / 8, 0xff & ~(1u << (sob % 8)),
						eq, value));
	return p - (uint8_t *)buf;
}

static uint32_t pkt_sob_inc(void *buf, uint32_t sob, uint32_t n)
{
	return hlthunk_pkt_msg_long(buf, HL_SM_SOB_ADDR(sob), HL_SM_SOB_INC | n);
}

/* The status of CS @seq right now (WAIT_CS with a zero timeout) */
static uint32_t cs_status_now(int fd, uint64_t seq)
{
	uint32_t status = 0xdead;
	int rc = hlthunk_wait_for_cs(fd, seq, 0, &status);

	assert_true(rc == 0 || rc == -EIO || rc == -ETIMEDOUT);
	return status;
}

/* Run a CB with a CS timeout of @timeout_s; returns the wait's rc */
static int run_cb_within(int fd, uint32_t queue, uint64_t cb_va, uint32_t n,
			 uint32_t timeout_s)
{
	uint64_t seq = hltests_submit_cb(fd, queue, cb_va, n, timeout_s);
	uint32_t status;

	return wait_cs(fd, seq, &status);
}

/* Sleep @ms milliseconds */
static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * A monitor fires its payload into a queue's fence when, and only when,
 * its SOB reaches the target: the FENCE-stalled job writes its marker only
 * after the third increment. An early fire (a monitor planted to fire at
 * arm, or at the second increment) makes the first check fail.
 */
static void test_monitor_fires_into_fence(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, cb2, h;
	uint64_t waiter;
	uint32_t v;
	uint8_t *p;

	cb_map(st->fd, &cb, PAGE);
	cb_map(st->fd, &cb2, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	memset(h.ptr, 0, PAGE);

	/* Queue 1 waits on its fence 0, then writes the marker */
	p = cb.ptr;
	p += pkt_fence(p, 0, 1, 1);
	p += hlthunk_pkt_msg_long(p, h.va, 0xabc);
	waiter = hltests_submit_cb(st->fd, 1, cb.va, p - cb.ptr, 30);

	/* Queue 2 arms a monitor on SOB >= 3 into that fence, adds 2 */
	p = cb2.ptr;
	p += pkt_arm(p, T_MON, T_SOB, 3, 0, HL_QM_FENCE_RDATA(1, 0), 1);
	p += pkt_sob_inc(p, T_SOB, 2);
	hltests_run_cb_ok(st->fd, 2, cb2.va, p - cb2.ptr);

	sleep_ms(300);
	assert_int_equal(cs_status_now(st->fd, waiter), HL_WAIT_CS_STATUS_BUSY);
	memcpy(&v, h.ptr, 4);
	assert_int_equal(v, 0);

	/* The third increment fires it */
	p = cb2.ptr;
	p += pkt_sob_inc(p, T_SOB, 1);
	hltests_run_cb_ok(st->fd, 2, cb2.va, p - cb2.ptr);
	assert_int_equal(wait_cs(st->fd, waiter, &v), 0);
	assert_int_equal(v, HL_WAIT_CS_STATUS_COMPLETED);
	memcpy(&v, h.ptr, 4);
	assert_int_equal(v, 0xabc);

	/* == mode: SOB is 3; a monitor on == 3 fires at once, on == 4 not */
	p = cb.ptr;
	p += pkt_fence(p, 1, 1, 1);
	p += hlthunk_pkt_msg_long(p, h.va + 4, 0xdef);
	waiter = hltests_submit_cb(st->fd, 1, cb.va, p - cb.ptr, 30);
	p = cb2.ptr;
	p += pkt_arm(p, T_MON + 1, T_SOB, 4, 1, HL_QM_FENCE_RDATA(1, 1), 1);
	hltests_run_cb_ok(st->fd, 2, cb2.va, p - cb2.ptr);
	sleep_ms(300);
	assert_int_equal(cs_status_now(st->fd, waiter), HL_WAIT_CS_STATUS_BUSY);
	p = cb2.ptr;
	p += pkt_arm(p, T_MON + 1, T_SOB, 3, 1, HL_QM_FENCE_RDATA(1, 1), 1);
	hltests_run_cb_ok(st->fd, 2, cb2.va, p - cb2.ptr);
	assert_int_equal(wait_cs(st->fd, waiter, &v), 0);
	memcpy(&v, h.ptr + 4, 4);
	assert_int_equal(v, 0xdef);

	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb2);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * A monitor's payload reaches only SOBs and fence registers: arming one
 * aimed at host memory, at device memory or at another configuration
 * register fails the job and writes nothing; one re-aimed at memory after
 * its arm fires into nothing. The control: the same arm aimed at a fence
 * register is accepted, and fires.
 */
static void test_monitor_payload_outside_refused(void **state)
{
	struct hltests_state *st = *state;
	const uint64_t other_reg = HL_CFG_BASE + 0x508000; /* DMA0 QM, not a fence */
	struct hltests_host_buf cb, h;
	struct hltests_dram_buf d;
	uint64_t targets[3], seq;
	uint32_t v, i, n;
	uint8_t *p;

	cb_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	hltests_dram_map(st->fd, &d, 2 * MB, false);
	memset(h.ptr, 0x11, PAGE);
	targets[0] = h.va;
	targets[1] = d.va;
	targets[2] = other_reg;

	for (i = 0; i < 3; i++) {
		/* SOB is already >= 0: it would fire at the arm */
		n = pkt_arm(cb.ptr, T_MON + 2, T_SOB + 8, 0, 0, targets[i],
			    0x55555555);
		hltests_run_cb_aborted(st->fd, 3, cb.va, n);
	}
	assert_bytes_are(h.ptr, 0x11, PAGE, "host memory after refused arms");
	hltests_read_device(st->fd, d.va, h.ptr, 8);
	memcpy(&v, h.ptr, 4);
	assert_int_not_equal(v, 0x55555555);
	memset(h.ptr, 0x11, PAGE);

	/* Control: aimed at queue 1's fence 2, the same arm fires */
	p = cb.ptr;
	p += pkt_fence(p, 2, 1, 1);
	p += hlthunk_pkt_msg_long(p, h.va, 0x600d);
	seq = hltests_submit_cb(st->fd, 1, cb.va, p - cb.ptr, 30);
	n = pkt_arm(cb.ptr + 2048, T_MON + 2, T_SOB + 8, 0, 0,
		    HL_QM_FENCE_RDATA(1, 2), 1);
	hltests_run_cb_ok(st->fd, 3, cb.va + 2048, n);
	assert_int_equal(wait_cs(st->fd, seq, &v), 0);
	memcpy(&v, h.ptr, 4);
	assert_int_equal(v, 0x600d);

	/* Re-aimed at host memory after the arm: the fire writes nothing */
	p = cb.ptr;
	p += pkt_arm(p, T_MON + 3, T_SOB + 9, 1, 0, HL_QM_FENCE_RDATA(1, 3), 1);
	p += hlthunk_pkt_msg_long(p, HL_SM_MON_PAY_ADDRL_ADDR(T_MON + 3),
				  (uint32_t)(h.va + 64));
	p += hlthunk_pkt_msg_long(p, HL_SM_MON_PAY_ADDRH_ADDR(T_MON + 3),
				  (uint32_t)((h.va + 64) >> 32));
	p += pkt_sob_inc(p, T_SOB + 9, 1);
	hltests_run_cb_ok(st->fd, 3, cb.va, p - cb.ptr);
	assert_bytes_are(h.ptr + 64, 0x11, 4, "host memory after a re-aimed fire");
	/* ... nor into the fence it was armed for: a FENCE on it times out */
	n = pkt_fence(cb.ptr, 3, 1, 1);
	assert_int_equal(run_cb_within(st->fd, 1, cb.va, n, 1), -ETIMEDOUT);

	hltests_dram_unmap(st->fd, &d);
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * What one owner leaves in the sync manager (a SOB value, an armed
 * monitor, a fence count) is visible to itself (the control) and gone for
 * the device's next owner.
 */
static void probe_leftovers(int fd, bool expect_left)
{
	struct hltests_host_buf cb;
	uint32_t n;
	uint8_t *p;
	int rc;

	cb_map(fd, &cb, PAGE);

	/* The fence count of queue 0, fence 2: 3 left */
	n = pkt_fence(cb.ptr, 2, 3, 3);
	rc = run_cb_within(fd, 0, cb.va, n, 1);
	assert_int_equal(rc, expect_left ? 0 : -ETIMEDOUT);

	/* SOB T_SOB + 16 is 5: a monitor on == 5 fires into fence 3 */
	p = cb.ptr;
	p += pkt_arm(p, T_MON + 4, T_SOB + 16, 5, 1, HL_QM_FENCE_RDATA(0, 3), 1);
	p += pkt_fence(p, 3, 1, 1);
	rc = run_cb_within(fd, 0, cb.va, p - cb.ptr, 1);
	assert_int_equal(rc, expect_left ? 0 : -ETIMEDOUT);

	/* The monitor armed on SOB T_SOB + 17 >= 1 fires into fence 1 */
	p = cb.ptr;
	p += pkt_sob_inc(p, T_SOB + 17, 1);
	p += pkt_fence(p, 1, 1, 1);
	rc = run_cb_within(fd, 0, cb.va, p - cb.ptr, 1);
	assert_int_equal(rc, expect_left ? 0 : -ETIMEDOUT);

	hltests_host_unmap(fd, &cb);
}

static void leave_state(int fd)
{
	struct hltests_host_buf cb;
	uint8_t *p;

	cb_map(fd, &cb, PAGE);
	p = cb.ptr;
	p += hlthunk_pkt_msg_long(p, HL_QM_FENCE_RDATA(0, 2), 3);
	p += hlthunk_pkt_msg_long(p, HL_SM_SOB_ADDR(T_SOB + 16), 5);
	p += hlthunk_pkt_msg_long(p, HL_SM_SOB_ADDR(T_SOB + 17), 0);
	p += pkt_arm(p, T_MON + 5, T_SOB + 17, 1, 0, HL_QM_FENCE_RDATA(0, 1), 1);
	hltests_run_cb_ok(fd, 0, cb.va, p - cb.ptr);
	hltests_host_unmap(fd, &cb);
}

static void test_sync_manager_reset_for_next_owner(void **state)
{
	struct hltests_state *st = *state;

	/* Control: the owner sees what it left */
	leave_state(st->fd);
	probe_leftovers(st->fd, true);

	leave_state(st->fd);
	hlthunk_close(st->fd);
	st->fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, NULL);
	assert_true(st->fd >= 0);
	probe_leftovers(st->fd, false);
}

/* ------------------------------------------------------------------------
 * SIGNAL and WAIT submissions (upstream's sync stream)
 */

/* A SIGNAL on @queue: 0 or -errno; *@out what the ioctl returned */
static int cs_signal(int fd, uint32_t queue, struct hl_cs_out *out)
{
	union hl_cs_args args;
	struct hl_cs_chunk c;
	int rc;

	memset(&c, 0, sizeof(c));
	c.queue_index = queue;
	memset(&args, 0, sizeof(args));
	args.in.chunks_execute = (uint64_t)(uintptr_t)&c;
	args.in.num_chunks_execute = 1;
	args.in.cs_flags = HL_CS_FLAGS_SIGNAL;
	rc = hltests_cs_ioctl(fd, &args);
	*out = args.out;
	return rc;
}

/* A WAIT on @queue for SIGNAL @sig_seq (@n sequence numbers given) */
static int cs_wait_n(int fd, uint32_t queue, uint64_t sig_seq, uint32_t n,
		     uint32_t timeout_s, uint64_t *seq)
{
	uint64_t seqs[2] = { sig_seq, sig_seq };
	union hl_cs_args args;
	struct hl_cs_chunk c;
	int rc;

	memset(&c, 0, sizeof(c));
	c.queue_index = queue;
	c.signal_seq_arr = (uint64_t)(uintptr_t)seqs;
	c.num_signal_seq_arr = n;
	memset(&args, 0, sizeof(args));
	args.in.chunks_execute = (uint64_t)(uintptr_t)&c;
	args.in.num_chunks_execute = 1;
	args.in.cs_flags = HL_CS_FLAGS_WAIT | HL_CS_FLAGS_CUSTOM_TIMEOUT;
	args.in.timeout = timeout_s;
	rc = hltests_cs_ioctl(fd, &args);
	*seq = args.out.seq;
	return rc;
}

static int cs_wait(int fd, uint32_t queue, uint64_t sig_seq,
		   uint32_t timeout_s, uint64_t *seq)
{
	return cs_wait_n(fd, queue, sig_seq, 1, timeout_s, seq);
}

/* Queue 0 is held at fence 0 until release_gate() */
static uint64_t submit_gated_memset(int fd, struct hltests_host_buf *cb,
				    uint64_t dst, uint64_t value)
{
	uint8_t *p = cb->ptr;

	p += pkt_fence(p, 0, 1, 1);
	p += hlthunk_pkt_memset(p, dst, value, PAGE);
	return hltests_submit_cb(fd, 0, cb->va, p - cb->ptr, 60);
}

static void release_gate(int fd, struct hltests_host_buf *cb)
{
	uint32_t n = hlthunk_pkt_msg_long(cb->ptr, HL_QM_FENCE_RDATA(0, 0), 1);

	hltests_run_cb_ok(fd, 2, cb->va, n);
}

/*
 * The waiting queue's work starts only after the signal: queue 1 copies a
 * buffer that queue 0 writes before its SIGNAL, and queue 0 is held (a
 * FENCE only this test releases) until the copy had every chance to run
 * early. The control, the same without WAIT, shows the copy overtaking
 * the write (the test sees a misordering when there is one).
 */
static void test_signal_wait_orders_queues(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb0, cb1, cb2, src, dst;
	uint64_t w0, s, w, c1;
	struct hl_cs_out out;
	uint32_t status, n;

	cb_map(st->fd, &cb0, PAGE);
	cb_map(st->fd, &cb1, PAGE);
	cb_map(st->fd, &cb2, PAGE);
	hltests_host_map(st->fd, &src, PAGE);
	hltests_host_map(st->fd, &dst, PAGE);
	n = hlthunk_pkt_lin_dma(cb1.ptr, src.va, dst.va, PAGE);

	/* Control: no WAIT, the copy runs before the write */
	memset(src.ptr, 0, PAGE);
	memset(dst.ptr, 0x77, PAGE);
	w0 = submit_gated_memset(st->fd, &cb0, src.va, 0x5a5a5a5a5a5a5a5aull);
	assert_int_equal(cs_signal(st->fd, 0, &out), 0);
	s = out.seq;
	c1 = hltests_submit_cb(st->fd, 1, cb1.va, n, 60);
	assert_int_equal(wait_cs(st->fd, c1, &status), 0);
	assert_bytes_are(dst.ptr, 0, PAGE, "copy without WAIT (control)");
	release_gate(st->fd, &cb2);
	assert_int_equal(wait_cs(st->fd, w0, &status), 0);
	assert_int_equal(wait_cs(st->fd, s, &status), 0);
	assert_bytes_are(src.ptr, 0x5a, PAGE, "written");

	/* With WAIT: the copy waits for the signal, after the write */
	memset(src.ptr, 0, PAGE);
	memset(dst.ptr, 0x77, PAGE);
	w0 = submit_gated_memset(st->fd, &cb0, src.va, 0xa5a5a5a5a5a5a5a5ull);
	assert_int_equal(cs_signal(st->fd, 0, &out), 0);
	s = out.seq;
	assert_int_equal(cs_wait(st->fd, 1, s, 60, &w), 0);
	assert_true(w != UINT64_MAX && w > s);
	c1 = hltests_submit_cb(st->fd, 1, cb1.va, n, 60);
	sleep_ms(500);
	assert_int_equal(cs_status_now(st->fd, w), HL_WAIT_CS_STATUS_BUSY);
	assert_int_equal(cs_status_now(st->fd, c1), HL_WAIT_CS_STATUS_BUSY);
	assert_bytes_are(dst.ptr, 0x77, PAGE, "copy before the signal");
	release_gate(st->fd, &cb2);
	assert_int_equal(wait_cs(st->fd, c1, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_bytes_are(dst.ptr, 0xa5, PAGE, "copy after the signal");
	assert_int_equal(wait_cs(st->fd, w0, &status), 0);
	assert_int_equal(wait_cs(st->fd, w, &status), 0);

	/*
	 * A WAIT for a signal already done makes no CS: seq U64_MAX. Done
	 * is the SIGNAL's own completion, not its SOB's value: the WAIT
	 * above fired on the value, and the SIGNAL's CS may still be
	 * completing (the debug lane's make check-debug saw a real WAIT
	 * here once), so it is waited for first.
	 */
	assert_int_equal(wait_cs(st->fd, s, &status), 0);
	assert_int_equal(cs_wait(st->fd, 1, s, 60, &w), 0);
	assert_true(w == UINT64_MAX);

	hltests_host_unmap(st->fd, &dst);
	hltests_host_unmap(st->fd, &src);
	hltests_host_unmap(st->fd, &cb2);
	hltests_host_unmap(st->fd, &cb1);
	hltests_host_unmap(st->fd, &cb0);
}

/*
 * A WAIT for a signal that does not come ends with its CS timeout
 * (ABORTED), never hangs; the late signal then releases nothing of a
 * later WAIT on that queue (the first's monitor was disarmed).
 */
static void test_wait_times_out_and_leaves_no_stale_fire(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb0, cb1, cb2, src, dst;
	uint64_t w0, s, w, c1, t0, dt;
	struct hl_cs_out out;
	uint32_t status, n;

	cb_map(st->fd, &cb0, PAGE);
	cb_map(st->fd, &cb1, PAGE);
	cb_map(st->fd, &cb2, PAGE);
	hltests_host_map(st->fd, &src, PAGE);
	hltests_host_map(st->fd, &dst, PAGE);

	w0 = submit_gated_memset(st->fd, &cb0, src.va, 1);
	assert_int_equal(cs_signal(st->fd, 0, &out), 0);
	s = out.seq;
	t0 = hltests_now_ns();
	assert_int_equal(cs_wait(st->fd, 1, s, 1, &w), 0);
	assert_int_equal(wait_cs(st->fd, w, &status), -ETIMEDOUT);
	dt = hltests_now_ns() - t0;
	assert_int_equal(status, HL_WAIT_CS_STATUS_TIMEDOUT);
	print_message("WAIT timed out after %.2f s\n", dt / 1e9);
	assert_true(dt >= 900000000ull && dt < 30000000000ull);
	release_gate(st->fd, &cb2);
	assert_int_equal(wait_cs(st->fd, w0, &status), 0);
	assert_int_equal(wait_cs(st->fd, s, &status), 0);

	/* A new signal, held; a WAIT for it on queue 1, then a copy */
	memset(src.ptr, 0, PAGE);
	memset(dst.ptr, 0x77, PAGE);
	w0 = submit_gated_memset(st->fd, &cb0, src.va, 0x3c3c3c3c3c3c3c3cull);
	assert_int_equal(cs_signal(st->fd, 0, &out), 0);
	s = out.seq;
	assert_int_equal(cs_wait(st->fd, 1, s, 60, &w), 0);
	n = hlthunk_pkt_lin_dma(cb1.ptr, src.va, dst.va, PAGE);
	c1 = hltests_submit_cb(st->fd, 1, cb1.va, n, 60);
	sleep_ms(500);
	assert_int_equal(cs_status_now(st->fd, c1), HL_WAIT_CS_STATUS_BUSY);
	release_gate(st->fd, &cb2);
	assert_int_equal(wait_cs(st->fd, c1, &status), 0);
	assert_bytes_are(dst.ptr, 0x3c, PAGE, "copy after the second signal");
	assert_int_equal(wait_cs(st->fd, w, &status), 0);
	assert_int_equal(wait_cs(st->fd, w0, &status), 0);

	hltests_host_unmap(st->fd, &dst);
	hltests_host_unmap(st->fd, &src);
	hltests_host_unmap(st->fd, &cb2);
	hltests_host_unmap(st->fd, &cb1);
	hltests_host_unmap(st->fd, &cb0);
}

/* Busy loops on every CPU, until stop_busy() */
static int start_busy(pid_t *pids, int max)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int i, n = cpus < 1 ? 1 : cpus > max ? max : (int)cpus;

	for (i = 0; i < n; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (!pids[i])
			for (;;)
				;
	}
	return n;
}

static void stop_busy(pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

/*
 * A queue stalled in a FENCE never holds up the queue that releases it:
 * queue 0 held at its gate, queue 1 in a WAIT for queue 0's SIGNAL and
 * queue 3 in a FENCE of its own, the release on queue 2 runs at once,
 * round after round, with every CPU busy (the engines' workers then come
 * late from the kernel's pool). Found in the debug lane: the four queues
 * shared one workqueue, whose rescuer ran a stalled queue's job and only
 * then, behind it, queue 2's release, which waited for its CS timeout
 * (WAIT_CS -ETIMEDOUT; test_signal_wait_orders_queues and
 * test_wait_times_out_and_leaves_no_stale_fire failed so now and then).
 */
#define GATE_ROUNDS	16

static void test_gate_release_not_behind_a_fence(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb0, cb2, cb3, src;
	uint64_t w0, s, w, h3, r, t0, dt, worst = 0;
	pid_t pids[16];
	struct hl_cs_out out;
	uint32_t status, i, n;
	int busy, rc = 0;
	uint8_t *p;

	cb_map(st->fd, &cb0, PAGE);
	cb_map(st->fd, &cb2, PAGE);
	cb_map(st->fd, &cb3, PAGE);
	hltests_host_map(st->fd, &src, PAGE);
	n = pkt_fence(cb3.ptr, 1, 1, 1);
	p = cb2.ptr;
	p += hlthunk_pkt_msg_long(p, HL_QM_FENCE_RDATA(0, 0), 1);
	p += hlthunk_pkt_msg_long(p, HL_QM_FENCE_RDATA(3, 1), 1);

	busy = start_busy(pids, 16);
	for (i = 0; i < GATE_ROUNDS && !rc; i++) {
		w0 = submit_gated_memset(st->fd, &cb0, src.va, i);
		assert_int_equal(cs_signal(st->fd, 0, &out), 0);
		s = out.seq;
		assert_int_equal(cs_wait(st->fd, 1, s, 20, &w), 0);
		assert_true(w != UINT64_MAX);
		h3 = hltests_submit_cb(st->fd, 3, cb3.va, n, 20);
		sleep_ms(20);

		t0 = hltests_now_ns();
		r = hltests_submit_cb(st->fd, 2, cb2.va, p - cb2.ptr, 20);
		rc = wait_cs(st->fd, r, &status);
		dt = hltests_now_ns() - t0;
		worst = dt > worst ? dt : worst;
		if (rc)
			print_error("round %u: the release failed after %.2f s\n",
				    i, dt / 1e9);
		wait_cs(st->fd, w0, &status);
		wait_cs(st->fd, s, &status);
		wait_cs(st->fd, w, &status);
		wait_cs(st->fd, h3, &status);
	}
	stop_busy(pids, busy);
	print_message("%u rounds, slowest release %.2f s\n", i, worst / 1e9);
	assert_int_equal(rc, 0);
	/* Far below the release's 20 s timeout */
	assert_true(worst < 10000000000ull);

	hltests_host_unmap(st->fd, &src);
	hltests_host_unmap(st->fd, &cb3);
	hltests_host_unmap(st->fd, &cb2);
	hltests_host_unmap(st->fd, &cb0);
}

/* SIGNAL's output: the SOB's offset and its count before, per queue */
static void test_signal_reports_sob(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_sync_manager sm;
	struct hl_cs_out a, b, c;
	uint32_t status;

	assert_int_equal(cs_signal(st->fd, 3, &a), 0);
	assert_int_equal(cs_signal(st->fd, 3, &b), 0);
	assert_int_equal(cs_signal(st->fd, 2, &c), 0);
	assert_int_equal(a.status, HL_CS_STATUS_SUCCESS);
	assert_int_equal(b.sob_base_addr_offset, a.sob_base_addr_offset);
	assert_int_equal(b.sob_count_before_submission,
			 a.sob_count_before_submission + 1);
	assert_int_not_equal(c.sob_base_addr_offset, a.sob_base_addr_offset);
	assert_true(b.seq > a.seq);
	assert_int_equal(wait_cs(st->fd, b.seq, &status), 0);
	assert_int_equal(wait_cs(st->fd, c.seq, &status), 0);

	/* The driver's SOBs are below the first available one */
	memset(&sm, 0xff, sizeof(sm));
	assert_int_equal(hltests_info(st->fd, HL_INFO_SYNC_MANAGER, &sm,
				      sizeof(sm)), 0);
	print_message("first available SOB %u, monitor %u\n",
		      sm.first_available_sync_object, sm.first_available_monitor);
	assert_true(sm.first_available_sync_object > 0 &&
		    sm.first_available_sync_object <= T_SOB);
	assert_true(sm.first_available_monitor > 0 &&
		    sm.first_available_monitor <= T_MON);
	assert_int_equal(sm.first_available_cq, 0);
	assert_int_equal(sm.reserved, 0);
	assert_true(HL_CFG_BASE + a.sob_base_addr_offset <
		    HL_SM_SOB_ADDR(sm.first_available_sync_object));
	assert_true(HL_CFG_BASE + a.sob_base_addr_offset >= HL_SM_SOB_OBJ_0);
}

/*
 * Signals @count of the next values of @queue's signal SOB in two ioctls:
 * a reservation of @count, given by one CS whose MSG_LONG adds @count to
 * the SOB (what @count SIGNALs would do, without @count ioctls)
 */
static int cs_reserve(int fd, uint32_t queue, uint32_t count,
		      struct hl_cs_out *out);
static int cs_encaps(int fd, uint32_t handle, uint32_t queue, uint64_t cb_va,
		     uint32_t size, uint64_t *seq);

static void signal_many(int fd, struct hltests_host_buf *cb, uint32_t queue,
			uint32_t count)
{
	struct hl_cs_out r;
	uint32_t status, n;
	uint64_t e;

	assert_int_equal(cs_reserve(fd, queue, count, &r), 0);
	n = hlthunk_pkt_msg_long(cb->ptr, HL_CFG_BASE + r.sob_base_addr_offset,
				 HL_SM_SOB_INC | count);
	assert_int_equal(cs_encaps(fd, r.handle_id, queue, cb->va, n, &e), 0);
	assert_int_equal(wait_cs(fd, e, &status), 0);
}

/*
 * A queue's two signal SOBs are reused: after 32767 signals on the first
 * and 32767 on the second, the next SIGNAL switches back to the first,
 * which held 32767 in its last round. A WAIT for that SIGNAL, armed
 * before the SIGNAL runs (queue 0 held by a FENCE), must not take a stale
 * 32767 for the new round's value: it stays BUSY until the gate opens.
 * (Found in review: the WAIT completed at once.) Each round is a SIGNAL,
 * 32765 signals reserved and given at once (signal_many()), and two
 * SIGNALs, the first of the second round the switch (the 65534 SIGNALs of
 * the first version took 160 s on the debug kernel); it fails as that one
 * did without the switch's zeroing and the WAIT's wait for it (638fa3f's
 * fix, checked by hand). The control is test_signal_wait_orders_queues,
 * the same check in the first round.
 */
static void test_signal_wait_sob_reuse_not_stale(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb0, cb2, src;
	struct hl_cs_out out, first;
	uint64_t w0, s, w;
	uint32_t status;

	cb_map(st->fd, &cb0, PAGE);
	cb_map(st->fd, &cb2, PAGE);
	hltests_host_map(st->fd, &src, PAGE);

	/* The first round: 1, 2..32766, 32767 on the first SOB */
	assert_int_equal(cs_signal(st->fd, 0, &first), 0);
	assert_int_equal(first.sob_count_before_submission, 0);
	signal_many(st->fd, &cb2, 0, 32765);
	assert_int_equal(cs_signal(st->fd, 0, &out), 0);
	assert_int_equal(out.sob_count_before_submission, 32766);
	assert_int_equal(out.sob_base_addr_offset, first.sob_base_addr_offset);
	assert_int_equal(wait_cs(st->fd, out.seq, &status), 0);

	/* The second: the switch to the other SOB, then as the first */
	assert_int_equal(cs_signal(st->fd, 0, &out), 0);
	assert_int_equal(out.sob_count_before_submission, 0);
	assert_int_not_equal(out.sob_base_addr_offset,
			     first.sob_base_addr_offset);
	signal_many(st->fd, &cb2, 0, 32765);
	assert_int_equal(cs_signal(st->fd, 0, &out), 0);
	assert_int_equal(wait_cs(st->fd, out.seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	/* The last one of the second round */
	assert_int_equal(out.sob_count_before_submission, 32766);
	assert_int_not_equal(out.sob_base_addr_offset,
			     first.sob_base_addr_offset);

	/* Held: the SIGNAL that switches back to the first SOB */
	w0 = submit_gated_memset(st->fd, &cb0, src.va, 1);
	assert_int_equal(cs_signal(st->fd, 0, &out), 0);
	s = out.seq;
	assert_int_equal(out.sob_base_addr_offset, first.sob_base_addr_offset);
	assert_int_equal(out.sob_count_before_submission, 0);
	assert_int_equal(cs_wait(st->fd, 1, s, 60, &w), 0);
	assert_true(w != UINT64_MAX);
	sleep_ms(500);
	assert_int_equal(cs_status_now(st->fd, w), HL_WAIT_CS_STATUS_BUSY);
	assert_int_equal(cs_status_now(st->fd, s), HL_WAIT_CS_STATUS_BUSY);
	release_gate(st->fd, &cb2);
	assert_int_equal(wait_cs(st->fd, w, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(wait_cs(st->fd, s, &status), 0);
	assert_int_equal(wait_cs(st->fd, w0, &status), 0);

	/* The next ones still order: held again, a WAIT for the next */
	w0 = submit_gated_memset(st->fd, &cb0, src.va, 2);
	assert_int_equal(cs_signal(st->fd, 0, &out), 0);
	assert_int_equal(out.sob_count_before_submission, 1);
	s = out.seq;
	assert_int_equal(cs_wait(st->fd, 1, s, 60, &w), 0);
	sleep_ms(300);
	assert_int_equal(cs_status_now(st->fd, w), HL_WAIT_CS_STATUS_BUSY);
	release_gate(st->fd, &cb2);
	assert_int_equal(wait_cs(st->fd, w, &status), 0);
	assert_int_equal(wait_cs(st->fd, w0, &status), 0);

	hltests_host_unmap(st->fd, &src);
	hltests_host_unmap(st->fd, &cb2);
	hltests_host_unmap(st->fd, &cb0);
}

/*
 * A FENCE that never releases (and a WAIT behind a held SIGNAL) ends
 * promptly when its owner closes the device or the device is hard reset,
 * long before its 60 s CS timeout; the next owner starts with a clean sync
 * manager (probe_leftovers; leave_state is left behind each time) and
 * runs SIGNAL and WAIT, and the late close of the reset's dead file does
 * not reset the new owner's sync manager. It fails if a FENCE sleeps
 * through the stop (the close or the reset would last the CS timeout), if
 * the reset kept a SOB, monitor or fence count, or if the dead file's
 * close wiped the new owner's.
 */
static void stall_fence(int fd, struct hltests_host_buf *cb,
			struct hltests_host_buf *cb0, struct hltests_host_buf *src)
{
	struct hl_cs_out out;
	uint64_t w;
	uint32_t n;

	leave_state(fd);
	n = pkt_fence(cb->ptr, 1, 1, 1);
	hltests_submit_cb(fd, 3, cb->va, n, 60);
	submit_gated_memset(fd, cb0, src->va, 1);
	assert_int_equal(cs_signal(fd, 0, &out), 0);
	assert_int_equal(cs_wait(fd, 1, out.seq, 60, &w), 0);
	assert_true(w != UINT64_MAX);
	sleep_ms(300);
	assert_int_equal(cs_status_now(fd, w), HL_WAIT_CS_STATUS_BUSY);
}

static void next_owner_clean(int fd)
{
	struct hl_cs_out out;
	uint32_t status;
	uint64_t w;

	probe_leftovers(fd, false);
	assert_int_equal(cs_signal(fd, 0, &out), 0);
	assert_int_equal(out.sob_count_before_submission, 0);
	assert_int_equal(wait_cs(fd, out.seq, &status), 0);
	assert_int_equal(cs_signal(fd, 0, &out), 0);
	assert_int_equal(cs_wait(fd, 1, out.seq, 30, &w), 0);
	if (w != UINT64_MAX)
		assert_int_equal(wait_cs(fd, w, &status), 0);
}

static void test_fence_stalled_vs_close_and_hard_reset(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, cb0, src;
	uint64_t t0, dt;
	int fd;

	/* The device node 0, ours alone */
	hlthunk_close(st->fd);
	st->fd = -1;
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);

	/* Close mid-FENCE */
	cb_map(fd, &cb, PAGE);
	cb_map(fd, &cb0, PAGE);
	hltests_host_map(fd, &src, PAGE);
	stall_fence(fd, &cb, &cb0, &src);
	t0 = hltests_now_ns();
	hlthunk_close(fd);
	fd = hltests_open_node(0, 0);
	dt = hltests_now_ns() - t0;
	assert_true(fd >= 0);
	print_message("close and reopen mid-FENCE: %.2f s\n", dt / 1e9);
	assert_true(dt < 10000000000ull);
	next_owner_clean(fd);

	/* Hard reset mid-FENCE */
	cb_map(fd, &cb, PAGE);
	cb_map(fd, &cb0, PAGE);
	hltests_host_map(fd, &src, PAGE);
	stall_fence(fd, &cb, &cb0, &src);
	t0 = hltests_now_ns();
	assert_int_equal(hltests_write_file("/sys/class/habanalabs/hl0/hard_reset",
					    "1"), 0);
	dt = hltests_now_ns() - t0;
	print_message("hard reset mid-FENCE: %.2f s\n", dt / 1e9);
	assert_true(dt < 10000000000ull);
	/*
	 * The next owner opens while the dead file is still open; that
	 * file's close later must not reset the sync manager under it.
	 */
	st->fd = hltests_open_node(0, 0);
	assert_true(st->fd >= 0);
	next_owner_clean(st->fd);
	leave_state(st->fd);
	hlthunk_close(fd);
	probe_leftovers(st->fd, true);
}

/*
 * SIGNALs are serialized per context: two threads each submit SIGNALs on
 * queue 0 and a WAIT on their own queue for each; every count before
 * submission is handed out once (0 .. 2N-1, no duplicate, no gap), and
 * every WAIT completes (none waits for a value the SOB skipped; each
 * thread's WAITs run on its own queue). It fails if two SIGNALs took the
 * same value or if a WAIT aimed at the wrong SOB or value (a timeout).
 */
#define SIGWAIT_N	300

struct sigwait_thread {
	int fd;
	uint32_t queue;
	uint32_t counts[SIGWAIT_N];
	int failures;
};

static void *sigwait_thread_fn(void *arg)
{
	struct sigwait_thread *t = arg;
	struct hl_cs_out out;
	uint32_t i, status;
	uint64_t w, last = 0;

	for (i = 0; i < SIGWAIT_N; i++) {
		if (cs_signal(t->fd, 0, &out)) {
			t->failures++;
			continue;
		}
		t->counts[i] = out.sob_count_before_submission;
		if (cs_wait(t->fd, t->queue, out.seq, 30, &w)) {
			t->failures++;
			continue;
		}
		if (w != UINT64_MAX)
			last = w;
		if (i % 32 == 31 && last && wait_cs(t->fd, last, &status))
			t->failures++;
	}
	if (last && wait_cs(t->fd, last, &status))
		t->failures++;
	return NULL;
}

static void test_signal_wait_two_threads(void **state)
{
	struct hltests_state *st = *state;
	static struct sigwait_thread t[2];
	uint8_t seen[2 * SIGWAIT_N];
	pthread_t th[2];
	uint32_t i, j;

	memset(t, 0, sizeof(t));
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < 2; i++) {
		t[i].fd = st->fd;
		t[i].queue = 1 + i;
		assert_int_equal(pthread_create(&th[i], NULL, sigwait_thread_fn,
						&t[i]), 0);
	}
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(t[i].failures, 0);
		for (j = 0; j < SIGWAIT_N; j++) {
			assert_true(t[i].counts[j] < 2 * SIGWAIT_N);
			assert_int_equal(seen[t[i].counts[j]], 0);
			seen[t[i].counts[j]] = 1;
		}
	}
}

static void test_signal_wait_errnos(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb;
	union hl_cs_args args;
	struct hl_cs_chunk c[2];
	struct hl_cs_out out;
	uint64_t seq, w;
	uint32_t status;

	cb_map(st->fd, &cb, PAGE);
	hlthunk_pkt_nop(cb.ptr);
	seq = hltests_submit_cb(st->fd, 0, cb.va, 8, 0);
	assert_int_equal(wait_cs(st->fd, seq, &status), 0);

	/* A WAIT for a CS that is no SIGNAL; for one not handed out */
	assert_int_equal(cs_wait(st->fd, 1, seq, 1, &w), -EINVAL);
	assert_int_equal(cs_wait(st->fd, 1, seq + 1000, 1, &w), -EINVAL);
	assert_int_equal(cs_wait(st->fd, 1, 0, 1, &w), -EINVAL);
	/* Two sequence numbers, or none */
	assert_int_equal(cs_signal(st->fd, 0, &out), 0);
	assert_int_equal(cs_wait_n(st->fd, 1, out.seq, 2, 1, &w), -EINVAL);
	assert_int_equal(cs_wait_n(st->fd, 1, out.seq, 0, 1, &w), -EINVAL);
	/* A bad queue */
	assert_int_equal(cs_signal(st->fd, 4096, &out), -EINVAL);
	assert_int_equal(cs_wait(st->fd, 4096, out.seq, 1, &w), -EINVAL);

	memset(c, 0, sizeof(c));
	memset(&args, 0, sizeof(args));
	args.in.chunks_execute = (uint64_t)(uintptr_t)c;
	/* Two chunks */
	args.in.num_chunks_execute = 2;
	args.in.cs_flags = HL_CS_FLAGS_SIGNAL;
	assert_int_equal(hltests_cs_ioctl(st->fd, &args), -EINVAL);
	/* Two kinds at once */
	args.in.num_chunks_execute = 1;
	args.in.cs_flags = HL_CS_FLAGS_SIGNAL | HL_CS_FLAGS_WAIT;
	assert_int_equal(hltests_cs_ioctl(st->fd, &args), -EINVAL);
	/* in.seq (reserved but for staged parts) must be 0 */
	args.in.cs_flags = HL_CS_FLAGS_SIGNAL;
	args.in.seq = 1;
	assert_int_equal(hltests_cs_ioctl(st->fd, &args), -EINVAL);
	args.in.cs_flags = HL_CS_FLAGS_WAIT;
	assert_int_equal(hltests_cs_ioctl(st->fd, &args), -EINVAL);
	args.in.seq = 0;
	/* No collective engines here */
	args.in.cs_flags = HL_CS_FLAGS_COLLECTIVE_WAIT;
	assert_int_equal(hltests_cs_ioctl(st->fd, &args), -EOPNOTSUPP);
	/* An unreadable chunk, and an unreadable sequence array */
	args.in.cs_flags = HL_CS_FLAGS_SIGNAL;
	args.in.chunks_execute = 8;
	assert_int_equal(hltests_cs_ioctl(st->fd, &args), -EFAULT);
	args.in.chunks_execute = (uint64_t)(uintptr_t)c;
	args.in.cs_flags = HL_CS_FLAGS_WAIT;
	c[0].num_signal_seq_arr = 1;
	c[0].signal_seq_arr = 8;
	assert_int_equal(hltests_cs_ioctl(st->fd, &args), -EFAULT);
	/* TIMESTAMP is taken with an ordinary CS */
	chunk_init(&c[0], 0, cb.va, 8);
	args.in.cs_flags = HL_CS_FLAGS_TIMESTAMP;
	assert_int_equal(hltests_cs_ioctl(st->fd, &args), 0);
	assert_int_equal(wait_cs(st->fd, args.out.seq, &status), 0);

	hltests_host_unmap(st->fd, &cb);
}

/* ------------------------------------------------------------------------
 * Encapsulated signals: reserved on a queue's signal SOB, given by a CS's
 * own packets, waited for by offset
 */

/* RESERVE_SIGNALS_ONLY: 0 or -errno; *@out what the ioctl returned */
static int cs_reserve(int fd, uint32_t queue, uint32_t count,
		      struct hl_cs_out *out)
{
	union hl_cs_args args;
	int rc;

	memset(&args, 0, sizeof(args));
	args.in.encaps_signals_q_idx = queue;
	args.in.encaps_signals_count = count;
	args.in.cs_flags = HL_CS_FLAGS_RESERVE_SIGNALS_ONLY;
	rc = hltests_cs_ioctl(fd, &args);
	*out = args.out;
	return rc;
}

static int cs_unreserve(int fd, uint32_t handle)
{
	union hl_cs_args args;

	memset(&args, 0, sizeof(args));
	args.in.encaps_sig_handle_id = handle;
	args.in.cs_flags = HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY;
	return hltests_cs_ioctl(fd, &args);
}

/* A CS of one job that gives reservation @handle: 0 or -errno */
static int cs_encaps(int fd, uint32_t handle, uint32_t queue, uint64_t cb_va,
		     uint32_t size, uint64_t *seq)
{
	union hl_cs_args args;
	struct hl_cs_chunk c;
	int rc;

	chunk_init(&c, queue, cb_va, size);
	memset(&args, 0, sizeof(args));
	args.in.chunks_execute = (uint64_t)(uintptr_t)&c;
	args.in.num_chunks_execute = 1;
	args.in.encaps_sig_handle_id = handle;
	args.in.cs_flags = HL_CS_FLAGS_ENCAP_SIGNALS;
	args.in.timeout = 60;
	rc = hltests_cs_ioctl(fd, &args);
	*seq = args.out.seq;
	return rc;
}

/* A WAIT on @queue for signal @offset of what CS @encaps_seq gives */
static int cs_wait_encaps(int fd, uint32_t queue, uint64_t encaps_seq,
			  uint32_t offset, uint64_t *seq)
{
	union hl_cs_args args;
	struct hl_cs_chunk c;
	int rc;

	memset(&c, 0, sizeof(c));
	c.queue_index = queue;
	c.encaps_signal_seq = encaps_seq;
	c.encaps_signal_offset = offset;
	memset(&args, 0, sizeof(args));
	args.in.chunks_execute = (uint64_t)(uintptr_t)&c;
	args.in.num_chunks_execute = 1;
	args.in.cs_flags = HL_CS_FLAGS_WAIT | HL_CS_FLAGS_ENCAP_SIGNALS |
			   HL_CS_FLAGS_CUSTOM_TIMEOUT;
	args.in.timeout = 60;
	rc = hltests_cs_ioctl(fd, &args);
	*seq = args.out.seq;
	return rc;
}

/*
 * A WAIT on an encapsulated signal holds its queue until the encapsulating
 * CS's packets gave that signal, and not longer: queue 0's CS gives signal
 * 1, stops at a FENCE this test releases, writes a buffer, gives signal 2.
 * A WAIT for signal 1 passes at once; a WAIT for signal 2 holds queue 1's
 * copy of the buffer until the release (a copy before it reads zeros).
 */
static void test_encaps_wait_orders_by_offset(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb0, cb1, cb2, src, dst;
	struct hl_cs_out r;
	uint64_t e, w1, w2, c1, sob;
	uint32_t status, n;
	uint8_t *p;

	cb_map(st->fd, &cb0, PAGE);
	cb_map(st->fd, &cb1, PAGE);
	cb_map(st->fd, &cb2, PAGE);
	hltests_host_map(st->fd, &src, PAGE);
	hltests_host_map(st->fd, &dst, PAGE);
	memset(src.ptr, 0, PAGE);
	memset(dst.ptr, 0x77, PAGE);
	n = hlthunk_pkt_lin_dma(cb1.ptr, src.va, dst.va, PAGE);

	assert_int_equal(cs_reserve(st->fd, 0, 2, &r), 0);
	assert_int_equal(r.status, HL_CS_STATUS_SUCCESS);
	assert_true(r.handle_id != 0);
	assert_int_equal(r.count, 2);
	sob = HL_CFG_BASE + r.sob_base_addr_offset;
	assert_true(sob >= HL_SM_SOB_OBJ_0);

	p = cb0.ptr;
	p += hlthunk_pkt_msg_long(p, sob, HL_SM_SOB_INC | 1);
	p += pkt_fence(p, 0, 1, 1);
	p += hlthunk_pkt_memset(p, src.va, 0xa5a5a5a5a5a5a5a5ull, PAGE);
	p += hlthunk_pkt_msg_long(p, sob, HL_SM_SOB_INC | 1);
	assert_int_equal(cs_encaps(st->fd, r.handle_id, 0, cb0.va,
				   p - (uint8_t *)cb0.ptr, &e), 0);
	/* Bound once */
	assert_int_equal(cs_encaps(st->fd, r.handle_id, 0, cb0.va, 8, &w1),
			 -EINVAL);

	assert_int_equal(cs_wait_encaps(st->fd, 1, e, 1, &w1), 0);
	assert_true(w1 != UINT64_MAX && w1 > e);
	assert_int_equal(wait_cs(st->fd, w1, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);

	assert_int_equal(cs_wait_encaps(st->fd, 1, e, 2, &w2), 0);
	assert_true(w2 != UINT64_MAX);
	c1 = hltests_submit_cb(st->fd, 1, cb1.va, n, 60);
	sleep_ms(500);
	assert_int_equal(cs_status_now(st->fd, e), HL_WAIT_CS_STATUS_BUSY);
	assert_int_equal(cs_status_now(st->fd, w2), HL_WAIT_CS_STATUS_BUSY);
	assert_int_equal(cs_status_now(st->fd, c1), HL_WAIT_CS_STATUS_BUSY);
	assert_bytes_are(dst.ptr, 0x77, PAGE, "copy before signal 2");

	release_gate(st->fd, &cb2);
	assert_int_equal(wait_cs(st->fd, c1, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_bytes_are(dst.ptr, 0xa5, PAGE, "copy after signal 2");
	assert_int_equal(wait_cs(st->fd, e, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(wait_cs(st->fd, w2, &status), 0);

	/* Given: a WAIT makes no CS, the reservation is gone */
	assert_int_equal(cs_wait_encaps(st->fd, 1, e, 2, &w1), 0);
	assert_true(w1 == UINT64_MAX);
	assert_int_equal(cs_unreserve(st->fd, r.handle_id), -EINVAL);

	hltests_host_unmap(st->fd, &dst);
	hltests_host_unmap(st->fd, &src);
	hltests_host_unmap(st->fd, &cb2);
	hltests_host_unmap(st->fd, &cb1);
	hltests_host_unmap(st->fd, &cb0);
}

/* Reserve and unreserve: limits, errnos, and the SIGNALs after them */
static void test_encaps_reserve_errnos(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb;
	struct hl_cs_out a, b, s;
	union hl_cs_args args;
	uint64_t seq, w;
	uint32_t status;

	cb_map(st->fd, &cb, PAGE);
	hlthunk_pkt_nop(cb.ptr);

	assert_int_equal(cs_reserve(st->fd, 2, 0, &a), -EINVAL);
	assert_int_equal(cs_reserve(st->fd, 2, HL_SM_SOB_MAX_VAL, &a), -EINVAL);
	assert_int_equal(cs_reserve(st->fd, 4096, 1, &a), -EINVAL);
	assert_int_equal(cs_unreserve(st->fd, 0), -EINVAL);
	assert_int_equal(cs_unreserve(st->fd, 999999), -EINVAL);

	/* Two reservations, then a SIGNAL counts past them */
	assert_int_equal(cs_reserve(st->fd, 2, 3, &a), 0);
	assert_int_equal(cs_reserve(st->fd, 2, 5, &b), 0);
	assert_int_not_equal(a.handle_id, b.handle_id);
	assert_int_equal(b.sob_base_addr_offset, a.sob_base_addr_offset);
	assert_int_equal(b.sob_count_before_submission,
			 a.sob_count_before_submission + 3);
	/* Only the last one's values can be given back */
	assert_int_equal(cs_unreserve(st->fd, a.handle_id), -EINVAL);
	assert_int_equal(cs_unreserve(st->fd, b.handle_id), 0);
	assert_int_equal(cs_unreserve(st->fd, b.handle_id), -EINVAL);
	assert_int_equal(cs_signal(st->fd, 2, &s), 0);
	assert_int_equal(s.sob_base_addr_offset, a.sob_base_addr_offset);
	assert_int_equal(s.sob_count_before_submission,
			 a.sob_count_before_submission + 3);
	assert_int_equal(wait_cs(st->fd, s.seq, &status), 0);
	assert_int_equal(cs_unreserve(st->fd, a.handle_id), -EINVAL);

	/* A handle's upper half must be 0 */
	memset(&args, 0, sizeof(args));
	args.in.seq = (1ull << 32) | a.handle_id;
	args.in.cs_flags = HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY;
	assert_int_equal(hltests_cs_ioctl(st->fd, &args), -EINVAL);
	/* Not with SIGNAL, nor with a reservation */
	args.in.cs_flags = HL_CS_FLAGS_RESERVE_SIGNALS_ONLY |
			   HL_CS_FLAGS_ENCAP_SIGNALS;
	assert_int_equal(hltests_cs_ioctl(st->fd, &args), -EINVAL);
	args.in.cs_flags = HL_CS_FLAGS_RESERVE_SIGNALS_ONLY |
			   HL_CS_FLAGS_SIGNAL;
	assert_int_equal(hltests_cs_ioctl(st->fd, &args), -EINVAL);

	/* An encapsulating CS needs a live, unbound handle */
	assert_int_equal(cs_encaps(st->fd, 999999, 0, cb.va, 8, &seq),
			 -EINVAL);
	assert_int_equal(cs_encaps(st->fd, 0, 0, cb.va, 8, &seq), -EINVAL);
	assert_int_equal(cs_reserve(st->fd, 3, 4, &a), 0);
	/* A WAIT before any CS gives it: the seq names no such CS */
	assert_int_equal(cs_wait_encaps(st->fd, 1, UINT64_MAX, 1, &w),
			 -EINVAL);
	hlthunk_pkt_nop(cb.ptr);
	assert_int_equal(cs_encaps(st->fd, a.handle_id, 0, cb.va, 8, &seq), 0);
	/* Bound: not unreservable */
	assert_int_equal(cs_unreserve(st->fd, a.handle_id), -EINVAL);
	/* An offset past the reservation (if still there) */
	w = 0;
	assert_true(cs_wait_encaps(st->fd, 1, seq, 5, &w) == -EINVAL ||
		    w == UINT64_MAX);
	assert_int_equal(wait_cs(st->fd, seq, &status), 0);
	/* A CS of jobs that gave no signal: the WAIT reads it complete */
	assert_int_equal(cs_wait_encaps(st->fd, 1, seq, 1, &w), 0);
	assert_true(w == UINT64_MAX);
	/* A seq never handed out */
	assert_int_equal(cs_wait_encaps(st->fd, 1, seq + 1000, 1, &w), -EINVAL);

	hltests_host_unmap(st->fd, &cb);
}

/*
 * Reservations belong to their context: the next owner of the device sees
 * none (the same id is unknown to it), nor does the other device.
 */
static void test_encaps_handles_die_with_context(void **state)
{
	struct hltests_state *st = *state;
	struct hl_cs_out r, r2;

	assert_int_equal(cs_reserve(st->fd, 1, 2, &r), 0);
	/* Control: the owner can release it */
	assert_int_equal(cs_unreserve(st->fd, r.handle_id), 0);
	assert_int_equal(cs_reserve(st->fd, 1, 2, &r), 0);

	hlthunk_close(st->fd);
	st->fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, NULL);
	assert_true(st->fd >= 0);
	assert_int_equal(cs_unreserve(st->fd, r.handle_id), -EINVAL);
	/* Its ids start over, its SOB values too */
	assert_int_equal(cs_reserve(st->fd, 1, 2, &r2), 0);
	assert_int_equal(r2.handle_id, r.handle_id);
	assert_int_equal(r2.sob_count_before_submission, 0);
}

#define CS_TEST(f) cmocka_unit_test_setup_teardown(f, hltests_setup, \
						   hltests_teardown)

const struct CMUnitTest cs_tests[] = {
	CS_TEST(test_cs_bad_args_einval),
	CS_TEST(test_cs_bad_chunk_pointer_efault),
	CS_TEST(test_wait_cs_bad_args_einval),
	cmocka_unit_test(test_cs_on_control_node_enotty),
	CS_TEST(test_wait_cs_args_sizes),
	CS_TEST(test_cs_out_signal_fields_zero),
	CS_TEST(test_lib_signal_then_wait),
	CS_TEST(test_lib_encaps_reserve_unreserve),
	CS_TEST(test_lib_staged_submission),
	CS_TEST(test_custom_timeout_flag_is_accepted),
	CS_TEST(test_seq_and_timestamps),
	CS_TEST(test_old_seq_reads_completed),
	CS_TEST(test_old_timestamped_seq_keeps_outcome),
	CS_TEST(test_roundtrip_single_page),
	CS_TEST(test_roundtrip_many_pages),
	CS_TEST(test_roundtrip_unaligned),
	CS_TEST(test_overlapping_copy_chunk_semantics),
	CS_TEST(test_last_byte_of_dram),
	CS_TEST(test_memset_pattern),
	CS_TEST(test_msg_long),
	CS_TEST(test_cb_in_dram),
	CS_TEST(test_jobs_on_every_queue_in_one_cs),
	CS_TEST(test_unmapped_cb_faults),
	CS_TEST(test_unmapped_data_faults),
	CS_TEST(test_cs_after_unmap_faults),
	CS_TEST(test_malformed_cb_aborts),
	CS_TEST(test_debug_mask_gates_debug_messages),
	CS_TEST(test_one_bad_job_fails_its_cs),
	CS_TEST(test_wait_busy_then_completed),
	CS_TEST(test_wait_cs_survives_signals),
	CS_TEST(test_cs_timeout_aborts),
	CS_TEST(test_default_timeout_is_module_parameter),
	CS_TEST(test_job_run_time_is_bounded),
	CS_TEST(test_old_running_seq_is_not_completed),
	CS_TEST(test_pending_cs_are_bounded),
	CS_TEST(test_wait_cs_timeout_holds_under_periodic_signals),
	CS_TEST(test_full_cs_queue_waits_without_spinning),
	cmocka_unit_test(test_close_fd_while_cs_runs),
	CS_TEST(test_unmap_while_cs_runs),
	CS_TEST(test_concurrent_submitters),
	cmocka_unit_test(test_two_devices_at_once),
	cmocka_unit_test(test_unbind_fails_running_and_pending_jobs),
	CS_TEST(test_monitor_fires_into_fence),
	CS_TEST(test_monitor_payload_outside_refused),
	CS_TEST(test_sync_manager_reset_for_next_owner),
	CS_TEST(test_signal_wait_orders_queues),
	CS_TEST(test_wait_times_out_and_leaves_no_stale_fire),
	CS_TEST(test_gate_release_not_behind_a_fence),
	CS_TEST(test_signal_reports_sob),
	CS_TEST(test_signal_wait_errnos),
	CS_TEST(test_signal_wait_sob_reuse_not_stale),
	CS_TEST(test_fence_stalled_vs_close_and_hard_reset),
	CS_TEST(test_signal_wait_two_threads),
	CS_TEST(test_encaps_wait_orders_by_offset),
	CS_TEST(test_encaps_reserve_errnos),
	CS_TEST(test_encaps_handles_die_with_context),
};

int main(void)
{
	prng_state = SEED;
	print_message("cs: PRNG seed 0x%llx\n", (unsigned long long)SEED);
	return HLTESTS_RUN("cs", cs_tests);
}

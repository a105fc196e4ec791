// SPDX-License-Identifier: MIT
/*
 * cs_model: upstream's command-submission model. Under asic=gaudi (make
 * check runs this suite a second time so): GAUDI's queue table, what each
 * kind of queue takes, the fences of every queue stream. Under asic=emu,
 * the default, every queue is internal: the GAUDI-only tests skip.
 */
#include "hltests.h"

#include <endian.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE		4096ull
#define WAIT_US		(120ull * 1000 * 1000)

/* ------------------------------------------------------------------------
 * Helpers
 */


#define NEED_GAUDI() do {						\
		if (!hltests_identity_gaudi()) {					\
			print_message("needs asic=gaudi\n");		\
			skip();						\
		}							\
	} while (0)

/*
 * The packets in the format the queues speak: GAUDI's under asic=gaudi
 * (ctl second, docs/gaudi.md), else this project's
 */
static uint32_t pkt_fence(void *buf, uint32_t id, uint32_t target,
			  uint32_t dec)
{
	struct hl_pkt_fence pkt = {
		.ctl = (uint32_t)HL_PKT_FENCE << HL_PKT_OPCODE_SHIFT,
		.cfg = HL_PKT_FENCE_CFG(id, target, dec),
	};
	uint32_t g[2] = {
		htole32(HL_PKT_FENCE_CFG(id, target, dec)),
		htole32(HL_GAUDI_PKT_CTL(HL_GAUDI_PKT_FENCE)),
	};

	if (hltests_identity_gaudi()) {
		memcpy(buf, g, sizeof(g));
		return sizeof(g);
	}
	memcpy(buf, &pkt, sizeof(pkt));
	return sizeof(pkt);
}

static uint32_t pkt_nop(void *buf)
{
	uint32_t g[2] = { 0, htole32(HL_GAUDI_PKT_CTL(HL_GAUDI_PKT_NOP)) };

	if (!hltests_identity_gaudi())
		return hlthunk_pkt_nop(buf);
	memcpy(buf, g, sizeof(g));
	return sizeof(g);
}

/* LIN_DMA; GAUDI's (24 bytes) is followed by a NOP: 32 bytes either way */
static uint32_t pkt_lin_dma(void *buf, uint64_t src, uint64_t dst,
			    uint32_t size)
{
	uint32_t g[8] = {
		htole32(size),
		htole32(HL_GAUDI_PKT_CTL(HL_GAUDI_PKT_LIN_DMA) | 1u << 3),
		htole32((uint32_t)src),
		htole32((uint32_t)(src >> 32)),
		htole32((uint32_t)dst),
		htole32((uint32_t)(dst >> 32)),
		0,
		htole32(HL_GAUDI_PKT_CTL(HL_GAUDI_PKT_NOP)),
	};

	if (!hltests_identity_gaudi())
		return hlthunk_pkt_lin_dma(buf, src, dst, size);
	memcpy(buf, g, sizeof(g));
	return sizeof(g);
}

static uint32_t pkt_msg_long(void *buf, uint64_t addr, uint32_t value)
{
	uint32_t g[4] = {
		htole32(value),
		htole32(HL_GAUDI_PKT_CTL(HL_GAUDI_PKT_MSG_LONG)),
		htole32((uint32_t)addr),
		htole32((uint32_t)(addr >> 32)),
	};

	if (!hltests_identity_gaudi())
		return hlthunk_pkt_msg_long(buf, addr, value);
	memcpy(buf, g, sizeof(g));
	return sizeof(g);
}

/* HL_IOCTL_CS of one chunk, job timeout @timeout_s; returns the ioctl's rc */
static int cs_one_within(int fd, uint32_t queue, uint64_t handle,
			 uint32_t size, uint32_t chunk_flags, uint32_t cs_flags,
			 uint32_t timeout_s, uint64_t *seq)
{
	struct hl_cs_chunk c;
	union hl_cs_args a;
	int rc;

	memset(&c, 0, sizeof(c));
	c.cb_handle = handle;
	c.queue_index = queue;
	c.cb_size = size;
	c.cs_chunk_flags = chunk_flags;
	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = cs_flags;
	a.in.timeout = timeout_s;
	rc = hltests_cs_ioctl(fd, &a);
	if (!rc && seq)
		*seq = a.out.seq;
	return rc;
}

static int cs_one(int fd, uint32_t queue, uint64_t handle, uint32_t size,
		  uint32_t chunk_flags, uint32_t cs_flags, uint64_t *seq)
{
	return cs_one_within(fd, queue, handle, size, chunk_flags, cs_flags, 0,
			     seq);
}

static int wait_cs(int fd, uint64_t seq, uint32_t *status)
{
	*status = 0xdead;
	return hlthunk_wait_for_cs(fd, seq, WAIT_US, status);
}

/* A CB in mapped host memory that writes @marker at @dst */
static uint32_t cb_marker(struct hltests_host_buf *cb, uint64_t dst,
			  uint32_t marker)
{
	return pkt_msg_long(cb->ptr, dst, marker);
}

/* ------------------------------------------------------------------------
 * GAUDI's queue table
 */

/*
 * HW_IP_INFO: GAUDI_QUEUE_ID_SIZE queues, TPC 0-7 present; under asic=emu
 * the emulated ASIC's 4 queues and no TPC.
 */
static void test_queue_table_reported(void **state)
{
	struct hltests_state *st = *state;

	if (!hltests_identity_gaudi()) {
		assert_int_equal(st->hw_ip.num_queues, 4);
		assert_int_equal(st->hw_ip.tpc_enabled_mask, 0);
		return;
	}
	assert_int_equal(st->hw_ip.num_queues, GAUDI_QUEUE_ID_SIZE);
	assert_int_equal(st->hw_ip.tpc_enabled_mask, 0xff);
	assert_int_equal(st->hw_ip.tpc_enabled_mask_ext, 0xff);
}

/*
 * The device CPU's queue, the queues of NIC engines the device does not
 * have, and a queue past the table: -EINVAL, the same chunk on an internal
 * queue is accepted (and runs).
 */
static void test_cpu_and_na_queues_refused(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, h;
	uint32_t n, q, status;
	uint64_t seq;

	NEED_GAUDI();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	n = cb_marker(&cb, h.va, 0x5a5a);

	assert_int_equal(cs_one(st->fd, GAUDI_QUEUE_ID_CPU_PQ, cb.va, n, 0, 0,
				NULL), -EINVAL);
	assert_int_equal(cs_one(st->fd, GAUDI_QUEUE_ID_SIZE, cb.va, n, 0, 0,
				NULL), -EINVAL);
	/* NIC engines past the device's ports: not applicable */
	assert_true(st->hw_ip.num_nic_ports < 10);
	for (q = GAUDI_QUEUE_ID_NIC_0_0 + 4 * st->hw_ip.num_nic_ports;
	     q <= GAUDI_QUEUE_ID_NIC_9_3; q++)
		assert_int_equal(cs_one(st->fd, q, cb.va, n, 0, 0, NULL),
				 -EINVAL);

	/* The positive control: an internal queue takes it and runs it */
	assert_int_equal(cs_one(st->fd, GAUDI_QUEUE_ID_DMA_2_0, cb.va, n, 0, 0,
				&seq), 0);
	assert_int_equal(wait_cs(st->fd, seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(*(uint32_t *)h.ptr, 0x5a5a);

	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * Every internal queue runs a job: DMA 2-7, MME, TPC and the NIC queues of
 * the ports the device has; each writes its own marker.
 */
static void test_every_internal_queue_runs(void **state)
{
	struct hltests_state *st = *state;
	uint32_t q, last = GAUDI_QUEUE_ID_NIC_0_0 + 4 * st->hw_ip.num_nic_ports;
	struct hltests_host_buf cb, h;
	uint64_t seq[GAUDI_QUEUE_ID_SIZE];
	uint32_t status, *mark;

	NEED_GAUDI();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	memset(h.ptr, 0, PAGE);
	mark = (uint32_t *)h.ptr;
	for (q = GAUDI_QUEUE_ID_DMA_2_0; q < last; q++) {
		struct hltests_host_buf one = cb;

		one.ptr += q * 16;
		one.va += q * 16;
		cb_marker(&one, h.va + 4 * q, 0x1000 + q);
		assert_int_equal(cs_one(st->fd, q, one.va, 16, 0, 0, &seq[q]),
				 0);
	}
	for (q = GAUDI_QUEUE_ID_DMA_2_0; q < last; q++) {
		assert_int_equal(wait_cs(st->fd, seq[q], &status), 0);
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
		assert_int_equal(mark[q], 0x1000 + q);
	}
	for (q = 0; q < GAUDI_QUEUE_ID_DMA_2_0; q++)
		assert_int_equal(mark[q], 0);

	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * SIGNAL, WAIT and reservations of signals only on the external queues
 * (upstream's supports_sync_stream on GAUDI): -EINVAL on an internal one;
 * a SIGNAL on DMA_0_0 runs.
 */
static void test_sync_stream_external_only(void **state)
{
	struct hltests_state *st = *state;
	struct hl_cs_chunk c;
	union hl_cs_args a;
	uint32_t status;

	NEED_GAUDI();
	memset(&c, 0, sizeof(c));
	memset(&a, 0, sizeof(a));
	c.queue_index = GAUDI_QUEUE_ID_DMA_2_0;
	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = HL_CS_FLAGS_SIGNAL;
	assert_int_equal(hltests_cs_ioctl(st->fd, &a), -EINVAL);
	c.queue_index = GAUDI_QUEUE_ID_TPC_0_0;
	assert_int_equal(hltests_cs_ioctl(st->fd, &a), -EINVAL);

	memset(&a, 0, sizeof(a));
	a.in.cs_flags = HL_CS_FLAGS_RESERVE_SIGNALS_ONLY;
	a.in.encaps_signals_count = 1;
	a.in.encaps_signals_q_idx = GAUDI_QUEUE_ID_MME_0_0;
	assert_int_equal(hltests_cs_ioctl(st->fd, &a), -EINVAL);

	/* The positive control: an external queue */
	memset(&a, 0, sizeof(a));
	c.queue_index = GAUDI_QUEUE_ID_DMA_1_3;
	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = HL_CS_FLAGS_SIGNAL;
	assert_int_equal(hltests_cs_ioctl(st->fd, &a), 0);
	assert_int_equal(wait_cs(st->fd, a.out.seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
}

/*
 * A fence per queue stream: a job on TPC_7_3 (queue 72) passes its FENCE
 * once its own fence register was written; a write to the same stream's
 * fence of another queue manager (TPC_6_3, queue 68), or to the next
 * fence id, does not release it (the job times out). A decode that took
 * the fence registers modulo some stride would fail the second part.
 */
static void test_fence_of_every_stream(void **state)
{
	struct hltests_state *st = *state;
	const uint32_t q = GAUDI_QUEUE_ID_TPC_7_3;
	struct hltests_host_buf cb, h;
	uint32_t status;
	uint64_t seq;
	uint8_t *p;

	NEED_GAUDI();
	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	memset(h.ptr, 0, PAGE);

	p = cb.ptr;
	p += pkt_msg_long(p, hltests_gaudi_fence_reg(q, 0, 1), 1);
	p += pkt_fence(p, 1, 1, 1);
	p += pkt_msg_long(p, h.va, 0x77);
	assert_int_equal(cs_one(st->fd, q, cb.va, p - cb.ptr, 0, 0, &seq), 0);
	assert_int_equal(wait_cs(st->fd, seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(*(uint32_t *)h.ptr, 0x77);

	/* Another queue manager's stream 3, and fence id 2: not ours */
	memset(h.ptr, 0, PAGE);
	p = cb.ptr;
	p += pkt_msg_long(p, hltests_gaudi_fence_reg(q - 4, 0, 1), 1);
	p += pkt_msg_long(p, hltests_gaudi_fence_reg(q, 0, 2), 1);
	p += pkt_fence(p, 1, 1, 1);
	p += pkt_msg_long(p, h.va, 0x78);
	{
		struct hlthunk_cs_in in;
		struct hlthunk_cs_out out;
		struct hl_cs_chunk c;

		memset(&c, 0, sizeof(c));
		c.cb_handle = cb.va;
		c.queue_index = q;
		c.cb_size = p - cb.ptr;
		memset(&in, 0, sizeof(in));
		in.chunks_execute = &c;
		in.num_chunks_execute = 1;
		assert_int_equal(hlthunk_command_submission_timeout(st->fd, &in,
								    &out, 1),
				 0);
		seq = out.seq;
	}
	assert_int_equal(wait_cs(st->fd, seq, &status), -ETIMEDOUT);
	assert_int_equal(status, HL_WAIT_CS_STATUS_TIMEDOUT);
	assert_int_equal(*(uint32_t *)h.ptr, 0);

	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/* ------------------------------------------------------------------------
 * Kernel-owned CBs on external queues
 */

/* A CB of the driver's, not mapped into the MMU, and its user mapping */
struct kcb {
	uint64_t handle;
	uint8_t *ptr;
	uint32_t size;
};

static void kcb_create(int fd, struct kcb *k, uint32_t size)
{
	k->size = size;
	assert_int_equal(hlthunk_request_command_buffer(fd, size, &k->handle),
			 0);
	k->ptr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		      k->handle);
	assert_true(k->ptr != MAP_FAILED);
}

static void kcb_destroy(int fd, struct kcb *k)
{
	assert_int_equal(munmap(k->ptr, k->size), 0);
	assert_int_equal(hlthunk_destroy_command_buffer(fd, k->handle), 0);
}

/*
 * A kernel CB named by handle runs on every external queue (DMA 0-1), with
 * HL_CS_CHUNK_FLAGS_USER_ALLOC_CB or without (upstream: the flag means
 * nothing on a queue that is not of type HW).
 */
static void test_kernel_cb_on_external_queue(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf h;
	uint32_t q, n, status, *mark;
	struct kcb k;
	uint64_t seq;

	NEED_GAUDI();
	hltests_host_map(st->fd, &h, PAGE);
	memset(h.ptr, 0, PAGE);
	mark = (uint32_t *)h.ptr;
	kcb_create(st->fd, &k, PAGE);
	for (q = GAUDI_QUEUE_ID_DMA_0_0; q <= GAUDI_QUEUE_ID_DMA_1_3; q++) {
		n = pkt_msg_long(k.ptr, h.va + 4 * q, 0xc0de0000 + q);
		assert_int_equal(cs_one(st->fd, q, k.handle, n,
					q % 2 ? HL_CS_CHUNK_FLAGS_USER_ALLOC_CB :
						0, 0, &seq), 0);
		assert_int_equal(wait_cs(st->fd, seq, &status), 0);
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
		assert_int_equal(mark[q], 0xc0de0000 + q);
	}
	kcb_destroy(st->fd, &k);
	hltests_host_unmap(st->fd, &h);
}

/*
 * An external queue's chunk: a device VA (with the USER_ALLOC_CB flag too),
 * a destroyed handle, a handle of another device's context, a cb_size
 * beyond the CB: -EINVAL; an internal queue still wants a device VA or a
 * mapped CB (an unmapped CB's handle: -EINVAL).
 */
static void test_external_queue_errnos(void **state)
{
	struct hltests_state *st = *state;
	const uint32_t ext = GAUDI_QUEUE_ID_DMA_0_2;
	struct hltests_host_buf cb;
	struct kcb k, gone;
	uint64_t other;
	uint32_t n;
	int fd1;

	NEED_GAUDI();
	hltests_host_map(st->fd, &cb, PAGE);
	n = pkt_nop(cb.ptr);
	kcb_create(st->fd, &k, PAGE);
	pkt_nop(k.ptr);

	assert_int_equal(cs_one(st->fd, ext, cb.va, n, 0, 0, NULL), -EINVAL);
	assert_int_equal(cs_one(st->fd, ext, cb.va, n,
				HL_CS_CHUNK_FLAGS_USER_ALLOC_CB, 0, NULL),
			 -EINVAL);
	assert_int_equal(cs_one(st->fd, ext, k.handle, PAGE + 8, 0, 0, NULL),
			 -EINVAL);
	assert_int_equal(cs_one(st->fd, ext, k.handle, n, 2, 0, NULL),
			 -EINVAL);
	/* An unmapped CB on an internal queue */
	assert_int_equal(cs_one(st->fd, GAUDI_QUEUE_ID_DMA_2_0, k.handle, n,
				0, 0, NULL), -EINVAL);

	kcb_create(st->fd, &gone, PAGE);
	kcb_destroy(st->fd, &gone);
	assert_int_equal(cs_one(st->fd, ext, gone.handle, 8, 0, 0, NULL),
			 -EINVAL);

	if (hltests_num_devices() > 1) {
		fd1 = hltests_open_node(1, 0);
		assert_true(fd1 >= 0);
		assert_int_equal(hlthunk_request_command_buffer(fd1, PAGE,
								&other), 0);
		assert_int_equal(cs_one(st->fd, ext, other, 8, 0, 0, NULL),
				 -EINVAL);
		assert_int_equal(hlthunk_close(fd1), 0);
	}

	/* The positive control: the same chunk with k's handle runs */
	hltests_run_cb_ok(st->fd, GAUDI_QUEUE_ID_DMA_2_0, cb.va, n);
	{
		uint32_t status;
		uint64_t seq;

		assert_int_equal(cs_one(st->fd, ext, k.handle, n, 0, 0, &seq),
				 0);
		assert_int_equal(wait_cs(st->fd, seq, &status), 0);
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	}
	kcb_destroy(st->fd, &k);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * Stall external queue DMA_0_0 behind a FENCE (a kernel CB waiting on its
 * fence 0); returns the stalling CS. release_stall() lets it go, from an
 * internal queue.
 */
static uint64_t stall_dma0(int fd, struct kcb *stall)
{
	uint64_t seq;
	uint32_t n;

	kcb_create(fd, stall, PAGE);
	n = pkt_fence(stall->ptr, 0, 1, 1);
	assert_int_equal(cs_one_within(fd, GAUDI_QUEUE_ID_DMA_0_0,
				       stall->handle, n, 0, 0, 60, &seq), 0);
	return seq;
}

static void release_stall(int fd)
{
	struct hltests_host_buf cb;
	uint32_t n;

	hltests_host_map(fd, &cb, PAGE);
	n = pkt_msg_long(cb.ptr, HL_QM_FENCE_RDATA(0, 0), 1);
	hltests_run_cb_ok(fd, GAUDI_QUEUE_ID_DMA_2_0, cb.va, n);
	hltests_host_unmap(fd, &cb);
}

/*
 * The driver copies a kernel CB at submission: the user rewriting the CB
 * while its job waits in the queue changes nothing of what the engine
 * runs. A driver that fetched the live CB (inject_bug=64,
 * tests/cs_model/negative-control) writes the rewritten marker.
 */
static void test_kernel_cb_copied_at_submission(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf h;
	uint64_t stall_seq, seq;
	struct kcb stall, k;
	uint32_t n, status;

	NEED_GAUDI();
	hltests_host_map(st->fd, &h, PAGE);
	memset(h.ptr, 0, PAGE);
	kcb_create(st->fd, &k, PAGE);

	stall_seq = stall_dma0(st->fd, &stall);
	n = pkt_msg_long(k.ptr, h.va, 0xaaaa);
	assert_int_equal(cs_one(st->fd, GAUDI_QUEUE_ID_DMA_0_0, k.handle, n,
				0, 0, &seq), 0);
	/* The queue is stalled: nothing ran yet */
	assert_int_equal(hlthunk_wait_for_cs(st->fd, seq, 0, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_BUSY);
	/* Rewritten after the submission */
	pkt_msg_long(k.ptr, h.va, 0xbbbb);

	release_stall(st->fd);
	assert_int_equal(wait_cs(st->fd, stall_seq, &status), 0);
	assert_int_equal(wait_cs(st->fd, seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	if (*(uint32_t *)h.ptr != 0xaaaa)
		fail_msg("the engine ran the CB as rewritten after the submission (0x%x, expected 0xaaaa)",
			 *(uint32_t *)h.ptr);

	kcb_destroy(st->fd, &stall);
	kcb_destroy(st->fd, &k);
	hltests_host_unmap(st->fd, &h);
}

/*
 * A kernel CB destroyed (handle and user mapping gone) while its job waits
 * in the queue: the job holds the CB (usage count 1 until then), runs what
 * was submitted, and the handle names nothing afterwards.
 */
static void test_kernel_cb_destroyed_while_queued(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf h;
	uint64_t stall_seq, seq;
	struct kcb stall, k;
	uint32_t n, status, cnt;

	NEED_GAUDI();
	hltests_host_map(st->fd, &h, PAGE);
	memset(h.ptr, 0, PAGE);
	kcb_create(st->fd, &k, 2 * PAGE);

	stall_seq = stall_dma0(st->fd, &stall);
	/* A packet across the CB's page boundary */
	memset(k.ptr, 0, 2 * PAGE);
	/* NOPs up to it (zeros are NOPs in this project's format only) */
	for (n = 0; n < PAGE; n += 8)
		pkt_nop(k.ptr + n);
	n = pkt_msg_long(k.ptr + PAGE, h.va, 0xd00d);
	assert_int_equal(cs_one(st->fd, GAUDI_QUEUE_ID_DMA_0_0, k.handle,
				PAGE + n, 0, 0, &seq), 0);
	assert_int_equal(hlthunk_get_cb_usage_count(st->fd, k.handle, &cnt), 0);
	assert_int_equal(cnt, 1);
	kcb_destroy(st->fd, &k);
	memset(h.ptr, 0, PAGE);

	release_stall(st->fd);
	assert_int_equal(wait_cs(st->fd, stall_seq, &status), 0);
	assert_int_equal(wait_cs(st->fd, seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(*(uint32_t *)h.ptr, 0xd00d);
	assert_int_equal(cs_one(st->fd, GAUDI_QUEUE_ID_DMA_0_0, k.handle, 8, 0,
				0, NULL), -EINVAL);

	kcb_destroy(st->fd, &stall);
	hltests_host_unmap(st->fd, &h);
}

/* HL_IOCTL_CS of @n chunks naming kernel CB @k (@size bytes) on @queue */
static int cs_many(int fd, uint32_t queue, const struct kcb *k,
		   uint32_t size, uint32_t n, uint64_t *seq)
{
	struct hl_cs_chunk c[HL_MAX_JOBS_PER_CS];
	union hl_cs_args a;
	uint32_t i;
	int rc;

	assert_true(n <= HL_MAX_JOBS_PER_CS);
	memset(c, 0, sizeof(c));
	for (i = 0; i < n; i++) {
		c[i].cb_handle = k->handle;
		c[i].queue_index = queue;
		c[i].cb_size = size;
	}
	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uintptr_t)c;
	a.in.num_chunks_execute = n;
	a.in.timeout = 60;
	rc = hltests_cs_ioctl(fd, &a);
	if (!rc && seq)
		*seq = a.out.seq;
	return rc;
}

/*
 * An external queue holds HL_EXT_QUEUE_LENGTH jobs of submissions not
 * completed (upstream's queue depth): behind a stalled job, CSs of
 * HL_MAX_JOBS_PER_CS jobs fill it to the last entry, the next job is
 * refused with EAGAIN and counted as a queue-full drop (of the context and
 * the device, nothing else); another external queue still takes jobs;
 * once the queue drains the refused CS goes in.
 */
static void test_external_queue_depth(void **state)
{
	struct hltests_state *st = *state;
	const uint32_t q = GAUDI_QUEUE_ID_DMA_0_0;
	struct hl_info_cs_counters c0, c1;
	uint64_t stall_seq, seq[HL_EXT_QUEUE_LENGTH / HL_MAX_JOBS_PER_CS + 1];
	uint32_t n, left, i = 0, status;
	struct kcb stall, k;

	NEED_GAUDI();
	kcb_create(st->fd, &k, PAGE);
	n = pkt_nop(k.ptr);
	assert_int_equal(hlthunk_get_cs_counters_info(st->fd, &c0), 0);

	stall_seq = stall_dma0(st->fd, &stall);
	/* One entry is the stall's; the CSs take the rest, to the last one */
	for (left = HL_EXT_QUEUE_LENGTH - 1; left; i++) {
		uint32_t jobs = left < HL_MAX_JOBS_PER_CS ? left :
				HL_MAX_JOBS_PER_CS;

		assert_int_equal(cs_many(st->fd, q, &k, n, jobs, &seq[i]), 0);
		left -= jobs;
	}
	/* Full: one more job is refused, and counted once as queue full */
	assert_int_equal(cs_one(st->fd, q, k.handle, n, 0, 0, NULL), -EAGAIN);
	assert_int_equal(hlthunk_get_cs_counters_info(st->fd, &c1), 0);
	assert_int_equal(c1.ctx_queue_full_drop_cnt - c0.ctx_queue_full_drop_cnt, 1);
	assert_int_equal(c1.total_queue_full_drop_cnt - c0.total_queue_full_drop_cnt, 1);
	assert_int_equal(c1.ctx_max_cs_in_flight_drop_cnt, c0.ctx_max_cs_in_flight_drop_cnt);
	assert_int_equal(c1.ctx_validation_drop_cnt, c0.ctx_validation_drop_cnt);
	/* Another stream of the engine has its own queue */
	assert_int_equal(cs_many(st->fd, GAUDI_QUEUE_ID_DMA_0_1, &k, n,
				 HL_MAX_JOBS_PER_CS, &seq[i]), 0);
	assert_int_equal(wait_cs(st->fd, seq[i], &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);

	release_stall(st->fd);
	assert_int_equal(wait_cs(st->fd, stall_seq, &status), 0);
	while (i--) {
		assert_int_equal(wait_cs(st->fd, seq[i], &status), 0);
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	}
	/* Drained: the refused job goes in, and the queue takes a full CS */
	assert_int_equal(cs_one(st->fd, q, k.handle, n, 0, 0, &seq[0]), 0);
	assert_int_equal(cs_many(st->fd, q, &k, n, HL_MAX_JOBS_PER_CS, &seq[1]), 0);
	assert_int_equal(wait_cs(st->fd, seq[1], &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(wait_cs(st->fd, seq[0], &status), 0);

	kcb_destroy(st->fd, &stall);
	kcb_destroy(st->fd, &k);
}

/*
 * The driver's copies of the CBs of external queues' jobs are bounded per
 * context (256 MiB): a CS whose own copies pass it is refused (ENOMEM)
 * and holds nothing; behind a stalled job, 128 jobs of a 2 MiB CB fill
 * it, a small job still fits, one of 8 KiB is refused with EAGAIN, and
 * goes in once the big CS has ended.
 */
static void test_cb_copies_bounded(void **state)
{
	struct hltests_state *st = *state;
	const uint32_t big = HL_MAX_CB_SIZE, fill = (256u << 20) / big;
	uint64_t stall_seq, seq, s2;
	struct kcb stall, k;
	uint32_t n, i, status;
	int rc;

	NEED_GAUDI();
	kcb_create(st->fd, &k, big);
	for (i = 0; i < 8192; i += 8)
		pkt_nop(k.ptr + i);

	/* Never fits, whatever completes */
	assert_int_equal(cs_many(st->fd, GAUDI_QUEUE_ID_DMA_0_1, &k, big,
				 fill + 1, NULL), -ENOMEM);

	kcb_create(st->fd, &stall, PAGE);
	n = pkt_fence(stall.ptr, 0, 1, 1);
	assert_int_equal(cs_one_within(st->fd, GAUDI_QUEUE_ID_DMA_0_0,
				       stall.handle, n, 0, 0, 3, &stall_seq), 0);
	/* Queued behind the stall, past their deadline when it ends */
	{
		struct hl_cs_chunk c[HL_MAX_JOBS_PER_CS];
		union hl_cs_args a;

		memset(c, 0, sizeof(c));
		for (i = 0; i < fill; i++) {
			c[i].cb_handle = k.handle;
			c[i].queue_index = GAUDI_QUEUE_ID_DMA_0_0;
			c[i].cb_size = big;
		}
		memset(&a, 0, sizeof(a));
		a.in.chunks_execute = (uintptr_t)c;
		a.in.num_chunks_execute = fill;
		a.in.timeout = 2;
		assert_int_equal(hltests_cs_ioctl(st->fd, &a), 0);
		seq = a.out.seq;
	}
	/* What is left: 8 bytes fit, 8 KiB do not, until the big CS ends */
	assert_int_equal(cs_one(st->fd, GAUDI_QUEUE_ID_DMA_0_1, k.handle, 8,
				0, 0, &s2), 0);
	assert_int_equal(wait_cs(st->fd, s2, &status), 0);
	assert_int_equal(cs_one(st->fd, GAUDI_QUEUE_ID_DMA_0_1, k.handle, 8192,
				0, 0, NULL), -EAGAIN);
	assert_int_equal(wait_cs(st->fd, stall_seq, &status), -ETIMEDOUT);
	/* Past its deadline at its start, or malformed past the NOPs */
	rc = wait_cs(st->fd, seq, &status);
	assert_true(rc == -ETIMEDOUT || rc == -EIO);
	assert_int_equal(cs_one(st->fd, GAUDI_QUEUE_ID_DMA_0_1, k.handle, 8192,
				0, 0, &s2), 0);
	assert_int_equal(wait_cs(st->fd, s2, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);

	kcb_destroy(st->fd, &stall);
	kcb_destroy(st->fd, &k);
}

/*
 * Threads racing for the last entries of an external queue, each with its
 * own CS size (512, 256, 128, 64 jobs), behind a stalled job, until each
 * is refused: the entries taken then, topped up by one thread with
 * smaller CSs, come to exactly HL_EXT_QUEUE_LENGTH - 1 (the stall holds
 * one): a refused CS that kept some would leave the queue smaller for
 * good, a count gone wrong let more in. Drained, the queue takes exactly
 * as many again.
 */
#define RACE_THREADS	4

struct fill_thread {
	pthread_t t;
	int fd;
	const struct kcb *k;
	uint32_t n, jobs, taken, nseq;
	uint64_t seq[HL_EXT_QUEUE_LENGTH / 64];
	int rc;
};

static void *fill_thread_fn(void *arg)
{
	struct fill_thread *f = arg;

	while (!(f->rc = cs_many(f->fd, GAUDI_QUEUE_ID_DMA_0_0, f->k, f->n,
				 f->jobs, &f->seq[f->nseq]))) {
		f->taken += f->jobs;
		f->nseq++;
	}
	return NULL;
}

/* Fill DMA_0_0 to the last entry with decreasing CSs; the jobs it took */
static uint32_t fill_rest(int fd, const struct kcb *k, uint32_t n,
			  uint64_t *last)
{
	uint32_t jobs, taken = 0;
	int rc;

	for (jobs = HL_MAX_JOBS_PER_CS; jobs; jobs /= 2) {
		while (!(rc = cs_many(fd, GAUDI_QUEUE_ID_DMA_0_0, k, n, jobs,
				      last)))
			taken += jobs;
		assert_int_equal(rc, -EAGAIN);
	}
	return taken;
}

/*
 * Behind a stalled job, DMA_0_0 takes exactly HL_EXT_QUEUE_LENGTH - 1 jobs
 * of kernel CB @k (@n bytes), all of which then run
 */
static void assert_queue_full_depth(int fd, const struct kcb *k, uint32_t n)
{
	uint64_t stall_seq, last = 0;
	struct kcb stall;
	uint32_t status;

	stall_seq = stall_dma0(fd, &stall);
	assert_int_equal(fill_rest(fd, k, n, &last), HL_EXT_QUEUE_LENGTH - 1);
	release_stall(fd);
	assert_int_equal(wait_cs(fd, stall_seq, &status), 0);
	assert_int_equal(wait_cs(fd, last, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	kcb_destroy(fd, &stall);
}

static void test_external_queue_depth_races(void **state)
{
	struct hltests_state *st = *state;
	struct fill_thread f[RACE_THREADS];
	uint32_t n, i, j, taken = 0, status;
	uint64_t stall_seq, last = 0;
	struct kcb stall, k;

	NEED_GAUDI();
	kcb_create(st->fd, &k, PAGE);
	n = pkt_nop(k.ptr);

	stall_seq = stall_dma0(st->fd, &stall);
	for (i = 0; i < RACE_THREADS; i++) {
		memset(&f[i], 0, sizeof(f[i]));
		f[i].fd = st->fd;
		f[i].k = &k;
		f[i].n = n;
		f[i].jobs = HL_MAX_JOBS_PER_CS >> i;
		assert_int_equal(pthread_create(&f[i].t, NULL, fill_thread_fn,
						&f[i]), 0);
	}
	for (i = 0; i < RACE_THREADS; i++) {
		assert_int_equal(pthread_join(f[i].t, NULL), 0);
		assert_int_equal(f[i].rc, -EAGAIN);
		taken += f[i].taken;
	}
	assert_true(taken <= HL_EXT_QUEUE_LENGTH - 1);
	taken += fill_rest(st->fd, &k, n, &last);
	assert_int_equal(taken, HL_EXT_QUEUE_LENGTH - 1);

	release_stall(st->fd);
	assert_int_equal(wait_cs(st->fd, stall_seq, &status), 0);
	for (i = 0; i < RACE_THREADS; i++)
		for (j = 0; j < f[i].nseq; j++) {
			assert_int_equal(wait_cs(st->fd, f[i].seq[j], &status), 0);
			assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
		}
	if (last)
		assert_int_equal(wait_cs(st->fd, last, &status), 0);
	kcb_destroy(st->fd, &stall);

	/* Drained: exactly as many again */
	assert_queue_full_depth(st->fd, &k, n);
	kcb_destroy(st->fd, &k);
}

/* ------------------------------------------------------------------------
 * Restore chunks and the context switch; staged submissions
 */

/* An internal queue of either identity */
static uint32_t q_int(void)
{
	return hltests_identity_gaudi() ? GAUDI_QUEUE_ID_DMA_2_0 : 1;
}

/* HL_IOCTL_CS with restore chunks; returns the ioctl's rc */
static int cs_restore(int fd, struct hl_cs_chunk *restore, uint32_t nr,
		      struct hl_cs_chunk *exec, uint32_t cs_flags,
		      uint64_t *seq)
{
	union hl_cs_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.in.chunks_restore = (uintptr_t)restore;
	a.in.num_chunks_restore = nr;
	a.in.chunks_execute = (uintptr_t)exec;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = cs_flags;
	rc = hltests_cs_ioctl(fd, &a);
	if (!rc && seq)
		*seq = a.out.seq;
	return rc;
}

static void chunk_at(struct hl_cs_chunk *c, uint32_t queue, uint64_t va,
		     uint32_t size)
{
	memset(c, 0, sizeof(*c));
	c->cb_handle = va;
	c->queue_index = queue;
	c->cb_size = size;
}

/*
 * The restore chunks run before the execute chunks on the context's first
 * CS (as a CS of their own: the execute chunks get the next sequence
 * number) and with FORCE_RESTORE, never otherwise: the execute chunk copies
 * what the restore chunk wrote; a later CS's restore chunk without the flag
 * writes nothing.
 */
static void test_restore_on_first_cs_and_forced(void **state)
{
	struct hltests_state *st = *state;
	struct hl_cs_chunk rc_chunk, ex_chunk;
	struct hltests_host_buf cb, h;
	uint32_t status, *mark;
	uint64_t seq;
	uint8_t *p;

	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	memset(h.ptr, 0, PAGE);
	mark = (uint32_t *)h.ptr;
	p = cb.ptr;
	pkt_msg_long(p, h.va, 0x11);			/* restore 1 */
	pkt_lin_dma(p + 16, h.va, h.va + 4, 4);		/* execute 1 */
	pkt_msg_long(p + 48, h.va + 8, 0x22);		/* restore 2 */
	pkt_lin_dma(p + 64, h.va + 8, h.va + 12, 4);	/* execute 2 */

	chunk_at(&rc_chunk, q_int(), cb.va, 16);
	chunk_at(&ex_chunk, q_int(), cb.va + 16, 32);
	assert_int_equal(cs_restore(st->fd, &rc_chunk, 1, &ex_chunk, 0, &seq),
			 0);
	/* The restore CS took sequence number 1 */
	assert_int_equal(seq, 2);
	assert_int_equal(wait_cs(st->fd, seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(mark[1], 0x11);

	/* Not the first CS: the restore chunk is not run */
	chunk_at(&rc_chunk, q_int(), cb.va + 48, 16);
	chunk_at(&ex_chunk, q_int(), cb.va + 64, 32);
	assert_int_equal(cs_restore(st->fd, &rc_chunk, 1, &ex_chunk, 0, &seq),
			 0);
	assert_int_equal(seq, 3);
	assert_int_equal(wait_cs(st->fd, seq, &status), 0);
	assert_int_equal(mark[2], 0);
	assert_int_equal(mark[3], 0);

	/* Forced */
	assert_int_equal(cs_restore(st->fd, &rc_chunk, 1, &ex_chunk,
				    HL_CS_FLAGS_FORCE_RESTORE, &seq), 0);
	assert_int_equal(seq, 5);
	assert_int_equal(wait_cs(st->fd, seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(mark[3], 0x22);

	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * Forced restores in a row, each restore CS's job short: the ioctl waits
 * for the restore CS through its sequence number while that CS may finish
 * and be freed at once (the debug lane's KASAN saw the CS read after its
 * free, 2026-11-28); every execute chunk then runs after its restore.
 */
static void test_forced_restore_many(void **state)
{
	struct hltests_state *st = *state;
	struct hl_cs_chunk rc_chunk, ex_chunk;
	struct hltests_host_buf cb, h;
	uint32_t i, status, *mark;
	uint64_t seq = 0;
	uint8_t *p;

	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	mark = (uint32_t *)h.ptr;
	p = cb.ptr;
	pkt_msg_long(p, h.va, 0x55);			/* restore */
	pkt_lin_dma(p + 16, h.va, h.va + 4, 4);		/* execute */
	chunk_at(&rc_chunk, q_int(), cb.va, 16);
	chunk_at(&ex_chunk, q_int(), cb.va + 16, 32);
	for (i = 0; i < 300; i++) {
		mark[0] = 0;
		mark[1] = 0;
		assert_int_equal(cs_restore(st->fd, &rc_chunk, 1, &ex_chunk,
					    HL_CS_FLAGS_FORCE_RESTORE, &seq),
				 0);
		assert_int_equal(wait_cs(st->fd, seq, &status), 0);
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
		assert_int_equal(mark[1], 0x55);
	}
	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * The restore phase's errnos: too many restore chunks or a bad one
 * -EINVAL, an unreadable array -EFAULT, a restore CS that fails -ENOEXEC
 * (upstream's); nothing of the execute chunk runs then, and the phase runs
 * again at the next CS.
 */
static void test_restore_errnos(void **state)
{
	struct hltests_state *st = *state;
	struct hl_cs_chunk rc_chunk[HL_MAX_JOBS_PER_CS + 1], ex_chunk;
	struct hltests_host_buf cb, h;
	uint32_t i, status, *mark;
	uint64_t seq;

	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &h, PAGE);
	memset(h.ptr, 0, PAGE);
	mark = (uint32_t *)h.ptr;
	pkt_msg_long(cb.ptr, h.va, 0x33);
	/* A write to a VA nothing maps: the restore CS faults */
	pkt_msg_long(cb.ptr + 16, 0x4000, 1);
	pkt_msg_long(cb.ptr + 32, h.va + 4, 0x44);
	for (i = 0; i <= HL_MAX_JOBS_PER_CS; i++)
		chunk_at(&rc_chunk[i], q_int(), cb.va, 16);
	chunk_at(&ex_chunk, q_int(), cb.va + 32, 16);

	assert_int_equal(cs_restore(st->fd, rc_chunk, HL_MAX_JOBS_PER_CS + 1,
				    &ex_chunk, 0, NULL), -EINVAL);
	rc_chunk[0].cb_size = 12;
	assert_int_equal(cs_restore(st->fd, rc_chunk, 1, &ex_chunk, 0, NULL),
			 -EINVAL);
	rc_chunk[0].cb_size = 16;
	assert_int_equal(cs_restore(st->fd, (void *)8, 1, &ex_chunk, 0, NULL),
			 -EFAULT);
	rc_chunk[1].cb_handle = cb.va + 16;
	assert_int_equal(cs_restore(st->fd, &rc_chunk[1], 1, &ex_chunk, 0,
				    NULL), -ENOEXEC);
	assert_int_equal(mark[1], 0);

	/* The phase was not done: the next CS runs it */
	assert_int_equal(cs_restore(st->fd, rc_chunk, 1, &ex_chunk, 0, &seq),
			 0);
	assert_int_equal(wait_cs(st->fd, seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(mark[0], 0x33);
	assert_int_equal(mark[1], 0x44);

	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
}

/* One staged part on @queue running the CB at @va; rc of the ioctl */
static int staged(int fd, uint32_t flags, uint64_t seq, uint32_t queue,
		  uint64_t va, uint32_t size, uint32_t timeout_s,
		  uint64_t *out_seq)
{
	struct hl_cs_chunk c;
	union hl_cs_args a;
	int rc;

	chunk_at(&c, queue, va, size);
	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = flags;
	a.in.seq = seq;
	a.in.timeout = timeout_s;
	rc = hltests_cs_ioctl(fd, &a);
	if (!rc && out_seq)
		*out_seq = a.out.seq;
	return rc;
}

#define ST	HL_CS_FLAGS_STAGED_SUBMISSION
#define ST_F	HL_CS_FLAGS_STAGED_SUBMISSION_FIRST
#define ST_L	HL_CS_FLAGS_STAGED_SUBMISSION_LAST

/*
 * Malformed staged parts, upstream's errnos: a later part naming a number
 * not handed out, a CS that is no staged submission's first part, or one
 * whose last part came: -EINVAL; a later part with ENCAP_SIGNALS: -EINVAL.
 * _FIRST or _LAST without STAGED_SUBMISSION, and a part both first and
 * last, are plain CSs (upstream reads them only with STAGED_SUBMISSION).
 */
static void test_staged_errnos(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb;
	uint64_t plain, s1, s2;
	uint32_t n, status;

	hltests_host_map(st->fd, &cb, PAGE);
	n = pkt_nop(cb.ptr);

	assert_int_equal(staged(st->fd, ST, 0, q_int(), cb.va, n, 0, NULL),
			 -EINVAL);
	assert_int_equal(staged(st->fd, ST | ST_L, 999, q_int(), cb.va, n, 0,
				NULL), -EINVAL);
	/* Plain CSs */
	assert_int_equal(staged(st->fd, ST_F, 0, q_int(), cb.va, n, 0, &plain),
			 0);
	assert_int_equal(wait_cs(st->fd, plain, &status), 0);
	assert_int_equal(staged(st->fd, ST_L, 0, q_int(), cb.va, n, 0, &s1), 0);
	assert_int_equal(s1, plain + 1);
	assert_int_equal(staged(st->fd, ST | ST_F | ST_L, 0, q_int(), cb.va, n,
				0, &s2), 0);
	assert_int_equal(wait_cs(st->fd, s2, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	/* ... which no part can join */
	assert_int_equal(staged(st->fd, ST, plain, q_int(), cb.va, n, 0, NULL),
			 -EINVAL);
	assert_int_equal(staged(st->fd, ST, s2, q_int(), cb.va, n, 0, NULL),
			 -EINVAL);

	assert_int_equal(staged(st->fd, ST | ST_F, 0, q_int(), cb.va, n, 0,
				&s1), 0);
	assert_int_equal(staged(st->fd, ST | HL_CS_FLAGS_ENCAP_SIGNALS, s1,
				q_int(), cb.va, n, 0, NULL), -EINVAL);
	assert_int_equal(staged(st->fd, ST | ST_L, s1, q_int(), cb.va, n, 0,
				&s2), 0);
	assert_int_equal(s2, s1);
	assert_int_equal(staged(st->fd, ST, s1, q_int(), cb.va, n, 0, NULL),
			 -EINVAL);
	assert_int_equal(staged(st->fd, ST | ST_L, s1, q_int(), cb.va, n, 0,
				NULL), -EINVAL);
	assert_int_equal(wait_cs(st->fd, s1, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * The timeout runs from the first part: a submission whose last part does
 * not come fails (ABORTED) at the first part's timeout and takes no part
 * afterwards; a last part that waits for a fence that never comes fails
 * at the first part's deadline (2 s), not at its own (60 s).
 */
static void test_staged_timeout_from_first(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb;
	uint32_t n, status;
	uint64_t s1, s2;
	double t0;

	hltests_host_map(st->fd, &cb, PAGE);
	n = pkt_nop(cb.ptr);
	pkt_fence(cb.ptr + 8, 3, 1, 1);

	t0 = hltests_now_s();
	assert_int_equal(staged(st->fd, ST | ST_F, 0, q_int(), cb.va, n, 1,
				&s1), 0);
	assert_int_equal(wait_cs(st->fd, s1, &status), -ETIMEDOUT);
	assert_int_equal(status, HL_WAIT_CS_STATUS_TIMEDOUT);
	assert_true(hltests_now_s() - t0 < 20);
	assert_int_equal(staged(st->fd, ST | ST_L, s1, q_int(), cb.va, n, 0,
				NULL), -EINVAL);

	t0 = hltests_now_s();
	assert_int_equal(staged(st->fd, ST | ST_F, 0, q_int(), cb.va, n, 2,
				&s1), 0);
	assert_int_equal(staged(st->fd, ST | ST_L, s1, q_int(), cb.va + 8, 8,
				60, &s2), 0);
	assert_int_equal(wait_cs(st->fd, s1, &status), -ETIMEDOUT);
	assert_int_equal(status, HL_WAIT_CS_STATUS_TIMEDOUT);
	assert_true(hltests_now_s() - t0 < 30);
	hltests_host_unmap(st->fd, &cb);
}

/*
 * A staged submission left open when its file closes: the close does not
 * wait for its timeout (60 s) and the next open works.
 */
static void test_staged_open_at_close(void **state)
{
	struct hltests_host_buf cb;
	uint64_t s1;
	double t0;
	int fd;

	(void)state;
	fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, NULL);
	assert_true(fd >= 0);
	hltests_host_map(fd, &cb, PAGE);
	assert_int_equal(staged(fd, ST | ST_F, 0, q_int(), cb.va,
				pkt_nop(cb.ptr), 60, &s1), 0);
	t0 = hltests_now_s();
	assert_int_equal(hlthunk_close(fd), 0);
	fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, NULL);
	assert_true(fd >= 0);
	assert_true(hltests_now_s() - t0 < 30);
	assert_int_equal(hlthunk_close(fd), 0);
}

/* ------------------------------------------------------------------------
 * Collective wait (HL_CS_FLAGS_COLLECTIVE_WAIT): a master (an external
 * queue) whose slaves (the NIC ports' queues of its stream and the
 * reduction engine's, DMA 5 or TPC 7) each wait for the signal and then
 * signal the master's SOB group, which the master waits for.
 */

#define COLL_MASTER	GAUDI_QUEUE_ID_DMA_1_0

static void sleep_ms(unsigned int ms)
{
	usleep(ms * 1000u);
}

static uint32_t status_now(int fd, uint64_t seq)
{
	uint32_t status = 0xdead;
	int rc = hlthunk_wait_for_cs(fd, seq, 0, &status);

	assert_true(rc == 0 || rc == -EIO || rc == -ETIMEDOUT);
	return status;
}

/* A SIGNAL on @queue */
static int cs_signal(int fd, uint32_t queue, uint64_t *seq)
{
	struct hl_cs_chunk c;
	union hl_cs_args a;
	int rc;

	memset(&c, 0, sizeof(c));
	memset(&a, 0, sizeof(a));
	c.queue_index = queue;
	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = HL_CS_FLAGS_SIGNAL;
	rc = hltests_cs_ioctl(fd, &a);
	if (!rc)
		*seq = a.out.seq;
	return rc;
}

/* A COLLECTIVE_WAIT on @master for SIGNAL @sig, by ioctl, @timeout s */
static int cs_coll_within(int fd, uint32_t master, uint32_t engine,
			  uint64_t sig, uint32_t extra_flags, uint32_t timeout,
			  uint64_t *seq)
{
	struct hl_cs_chunk c;
	union hl_cs_args a;
	int rc;

	memset(&c, 0, sizeof(c));
	memset(&a, 0, sizeof(a));
	c.queue_index = master;
	c.collective_engine_id = engine;
	c.signal_seq_arr = (uintptr_t)&sig;
	c.num_signal_seq_arr = 1;
	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = HL_CS_FLAGS_COLLECTIVE_WAIT | extra_flags;
	a.in.timeout = timeout;
	rc = hltests_cs_ioctl(fd, &a);
	if (!rc && seq)
		*seq = a.out.seq;
	return rc;
}

/* A COLLECTIVE_WAIT on @master for SIGNAL @sig, by ioctl */
static int cs_coll(int fd, uint32_t master, uint32_t engine, uint64_t sig,
		   uint32_t extra_flags, uint64_t *seq)
{
	return cs_coll_within(fd, master, engine, sig, extra_flags, 60, seq);
}

/* A COLLECTIVE_WAIT through libhlthunk (hl-thunk's call) */
static uint64_t lib_coll(int fd, uint32_t master, uint32_t engine,
			 uint64_t sig)
{
	struct hlthunk_wait_for_signal_data wd;
	struct hlthunk_wait_out wout;
	struct hlthunk_wait_in win;

	memset(&wd, 0, sizeof(wd));
	wd.signal_seq_arr = &sig;
	wd.signal_seq_nr = 1;
	wd.queue_index = master;
	wd.collective_engine_id = engine;
	memset(&win, 0, sizeof(win));
	win.hlthunk_wait_for_signal = (uint64_t *)&wd;
	win.num_wait_for_signal = 1;
	assert_int_equal(hlthunk_wait_for_collective_signal(fd, &win, &wout),
			 0);
	assert_int_equal(wout.status, HL_CS_STATUS_SUCCESS);
	return wout.seq;
}

/* A kernel-CB CS on the master queue that writes @marker at @dst */
static uint64_t master_marker(int fd, struct kcb *k, uint64_t dst,
			      uint32_t marker)
{
	uint64_t seq;
	uint32_t n = pkt_msg_long(k->ptr, dst, marker);

	assert_int_equal(cs_one_within(fd, COLL_MASTER, k->handle, n, 0, 0,
				       60, &seq), 0);
	return seq;
}

/*
 * A collective wait completes after its signal and not before, with
 * either reduction engine: DMA_0_0 is stalled at a FENCE, a SIGNAL queued
 * behind it, the collective wait on DMA_1_0 names it, and a marker CS on
 * DMA_1_0 follows. While the signal is held, neither the collective nor
 * the marker (which runs only after the master's job) completes; after
 * the release both do (the signal CS's own completion may come after
 * the slaves saw its SOB, as on a GAUDI). A slave
 * that does not wait (inject_bug=128, tests/cs_model/negative-control)
 * lets the master through while the signal is held: the BUSY check fails.
 * A signal already complete makes no CS (out.seq U64_MAX, as upstream).
 */
static void test_collective_wait_after_signal(void **state)
{
	static const uint32_t engines[] = { GAUDI_ENGINE_ID_DMA_5,
					    GAUDI_ENGINE_ID_TPC_7 };
	struct hltests_state *st = *state;
	uint64_t sig, coll, mark;
	struct hltests_host_buf h;
	struct kcb stall, k;
	uint32_t status, e;
	volatile uint32_t *m;

	NEED_GAUDI();
	hltests_host_map(st->fd, &h, PAGE);
	memset(h.ptr, 0, PAGE);
	m = (volatile uint32_t *)h.ptr;
	kcb_create(st->fd, &k, PAGE);
	for (e = 0; e < 2; e++) {
		stall_dma0(st->fd, &stall);
		assert_int_equal(cs_signal(st->fd, GAUDI_QUEUE_ID_DMA_0_0,
					   &sig), 0);
		coll = lib_coll(st->fd, COLL_MASTER, engines[e], sig);
		assert_true(coll != UINT64_MAX && coll > sig);
		mark = master_marker(st->fd, &k, h.va + 4 * e, 0xc011 + e);

		sleep_ms(500);
		assert_int_equal(status_now(st->fd, sig),
				 HL_WAIT_CS_STATUS_BUSY);
		assert_int_equal(status_now(st->fd, coll),
				 HL_WAIT_CS_STATUS_BUSY);
		assert_int_equal(status_now(st->fd, mark),
				 HL_WAIT_CS_STATUS_BUSY);
		assert_int_equal(m[e], 0);

		release_stall(st->fd);
		assert_int_equal(wait_cs(st->fd, coll, &status), 0);
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
		assert_int_equal(wait_cs(st->fd, sig, &status), 0);
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
		assert_int_equal(wait_cs(st->fd, mark, &status), 0);
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
		assert_int_equal(m[e], 0xc011 + e);
		kcb_destroy(st->fd, &stall);
	}

	/* A signal already complete: nothing to wait for, no CS */
	assert_int_equal(cs_signal(st->fd, GAUDI_QUEUE_ID_DMA_0_1, &sig), 0);
	assert_int_equal(wait_cs(st->fd, sig, &status), 0);
	assert_int_equal(cs_coll(st->fd, GAUDI_QUEUE_ID_DMA_1_1,
				 GAUDI_ENGINE_ID_DMA_5, sig, 0, &coll), 0);
	assert_true(coll == UINT64_MAX);

	kcb_destroy(st->fd, &k);
	hltests_host_unmap(st->fd, &h);
}

/*
 * A collective wait on reserved signals (with HL_CS_FLAGS_ENCAP_SIGNALS):
 * the encapsulating CS on DMA_0_0, stalled behind a FENCE, gives signals
 * 1 and 2; a collective wait for signal 2 holds until the release.
 */
static void test_collective_wait_encaps(void **state)
{
	struct hltests_state *st = *state;
	struct hlthunk_wait_for_signal_data wd;
	struct hlthunk_wait_out wout;
	struct hlthunk_wait_in win;
	struct kcb stall, k;
	union hl_cs_args a;
	struct hl_cs_chunk c;
	uint64_t sob, e;
	uint32_t status, n, id;
	uint8_t *p;

	NEED_GAUDI();
	memset(&a, 0, sizeof(a));
	a.in.cs_flags = HL_CS_FLAGS_RESERVE_SIGNALS_ONLY;
	a.in.encaps_signals_count = 2;
	a.in.encaps_signals_q_idx = GAUDI_QUEUE_ID_DMA_0_0;
	assert_int_equal(hltests_cs_ioctl(st->fd, &a), 0);
	sob = HL_CFG_BASE + a.out.sob_base_addr_offset;

	stall_dma0(st->fd, &stall);
	kcb_create(st->fd, &k, PAGE);
	p = k.ptr;
	p += pkt_msg_long(p, sob, HL_SM_SOB_INC | 1);
	p += pkt_msg_long(p, sob, HL_SM_SOB_INC | 1);
	n = p - k.ptr;
	memset(&c, 0, sizeof(c));
	c.cb_handle = k.handle;
	c.queue_index = GAUDI_QUEUE_ID_DMA_0_0;
	c.cb_size = n;
	id = a.out.handle_id;
	memset(&a, 0, sizeof(a));
	a.in.seq = id;
	a.in.encaps_sig_handle_id = id;
	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = HL_CS_FLAGS_ENCAP_SIGNALS;
	assert_int_equal(hltests_cs_ioctl(st->fd, &a), 0);
	e = a.out.seq;

	memset(&wd, 0, sizeof(wd));
	wd.encaps_signal_seq = e;
	wd.encaps_signal_offset = 2;
	wd.signal_seq_nr = 1;
	wd.queue_index = COLL_MASTER;
	wd.collective_engine_id = GAUDI_ENGINE_ID_DMA_5;
	memset(&win, 0, sizeof(win));
	win.hlthunk_wait_for_signal = (uint64_t *)&wd;
	win.num_wait_for_signal = 1;
	assert_int_equal(hlthunk_wait_for_reserved_encaps_collective_signals(
				st->fd, &win, &wout), 0);
	assert_true(wout.seq != UINT64_MAX);
	sleep_ms(500);
	assert_int_equal(status_now(st->fd, wout.seq), HL_WAIT_CS_STATUS_BUSY);
	release_stall(st->fd);
	assert_int_equal(wait_cs(st->fd, wout.seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(wait_cs(st->fd, e, &status), 0);
	kcb_destroy(st->fd, &k);
	kcb_destroy(st->fd, &stall);
}

/* GAUDI's MSG_SHORT: @value to message base @base + @off */
static uint32_t pkt_msg_short(void *buf, uint32_t base, uint16_t off,
			      uint32_t value)
{
	uint32_t g[2] = {
		htole32(value),
		htole32(HL_GAUDI_PKT_CTL(HL_GAUDI_PKT_MSG_SHORT) | base << 22 |
			off | HL_GAUDI_PKT_CTL_RB | HL_GAUDI_PKT_CTL_MB),
	};

	memcpy(buf, g, sizeof(g));
	return sizeof(g);
}

/* A WAIT on @queue for reserved signal @offset of encapsulating CS @e */
static int cs_wait_encaps(int fd, uint32_t queue, uint64_t e, uint32_t offset,
			  uint32_t timeout, uint64_t *seq)
{
	struct hl_cs_chunk c;
	union hl_cs_args a;
	int rc;

	memset(&c, 0, sizeof(c));
	c.queue_index = queue;
	c.encaps_signal_seq = e;
	c.encaps_signal_offset = offset;
	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = HL_CS_FLAGS_WAIT | HL_CS_FLAGS_ENCAP_SIGNALS;
	a.in.timeout = timeout;
	rc = hltests_cs_ioctl(fd, &a);
	if (!rc)
		*seq = a.out.seq;
	return rc;
}

#define ENC_COUNT	5

/*
 * Reserved signals given as hl-thunk's test_encaps_signal_wait gives
 * them: the reservation's SOB is a W_S SOB, upstream's (SOB 128 + 2 *
 * queue + idx of SYNC_MNGR_W_S, below HL_INFO_SYNC_MANAGER's first of
 * HL_GAUDI_WS_DCORE; E_N is the user's, its first 0), and the first part
 * of a staged submission (ENCAP_SIGNALS, on DMA_0_0 held by a FENCE) adds
 * the count to it with a MSG_SHORT through message base 3 at the SOB's id
 * (its offset's from the W_S SOBs) * 4. A WAIT on DMA_1_0 for the last
 * signal stays BUSY until the release, then completes. The negative
 * control: the same MSG_SHORT through base 1, to the E_N SOB of that id (a
 * user's), gives no signal: the WAIT times out. It failed before the
 * driver's SOBs moved to W_S: the SOB was E_N's, whose id hl-thunk's
 * arithmetic takes past the W_S block.
 */
static void test_encaps_signal_by_msg_short_to_ws(void **state)
{
	struct hltests_state *st = *state;
	struct hlthunk_sync_manager_info ws, en;
	union hl_cs_args a;
	struct hl_cs_chunk c;
	struct kcb stall, k, nop;
	uint64_t addr, e, w = 0, last;
	uint32_t status, sob, id, n, neg;
	int rc;

	NEED_GAUDI();
	assert_int_equal(hlthunk_get_sync_manager_info(st->fd,
						       HL_GAUDI_WS_DCORE, &ws),
			 0);
	assert_int_equal(hlthunk_get_sync_manager_info(st->fd,
						       HL_GAUDI_EN_DCORE, &en),
			 0);
	print_message("first available: W_S SOB %u monitor %u, E_N SOB %u monitor %u\n",
		      ws.first_available_sync_object, ws.first_available_monitor,
		      en.first_available_sync_object, en.first_available_monitor);
	kcb_create(st->fd, &k, PAGE);
	kcb_create(st->fd, &nop, PAGE);

	for (neg = 0; neg <= 1; neg++) {
		memset(&a, 0, sizeof(a));
		a.in.cs_flags = HL_CS_FLAGS_RESERVE_SIGNALS_ONLY;
		a.in.encaps_signals_count = ENC_COUNT;
		a.in.encaps_signals_q_idx = GAUDI_QUEUE_ID_DMA_0_0;
		assert_int_equal(hltests_cs_ioctl(st->fd, &a), 0);
		assert_int_equal(a.out.sob_count_before_submission,
				 neg * ENC_COUNT);
		addr = HL_CFG_BASE + a.out.sob_base_addr_offset;
		print_message("reserved SOB at 0x%llx\n",
			      (unsigned long long)addr);
		assert_true(addr >= HL_SM_WS_SOB_OBJ_0 &&
			    addr < HL_SM_WS_SOB_OBJ_0 + 4ull * HL_SM_NUM_SOBS);
		sob = (uint32_t)(addr - HL_SM_WS_SOB_OBJ_0) / 4;
		assert_int_equal(sob & ~1u, 128 + 2 * GAUDI_QUEUE_ID_DMA_0_0);
		assert_true(sob < ws.first_available_sync_object);
		id = a.out.handle_id;

		stall_dma0(st->fd, &stall);
		n = pkt_msg_short(k.ptr, neg ? 1 : 3, (uint16_t)(sob * 4),
				  HL_SM_SOB_INC | ENC_COUNT);
		memset(&c, 0, sizeof(c));
		c.cb_handle = k.handle;
		c.queue_index = GAUDI_QUEUE_ID_DMA_0_0;
		c.cb_size = n;
		memset(&a, 0, sizeof(a));
		a.in.seq = id;
		a.in.encaps_sig_handle_id = id;
		a.in.chunks_execute = (uintptr_t)&c;
		a.in.num_chunks_execute = 1;
		a.in.cs_flags = HL_CS_FLAGS_STAGED_SUBMISSION |
				HL_CS_FLAGS_STAGED_SUBMISSION_FIRST |
				HL_CS_FLAGS_ENCAP_SIGNALS;
		assert_int_equal(hltests_cs_ioctl(st->fd, &a), 0);
		e = a.out.seq;

		assert_int_equal(cs_wait_encaps(st->fd, GAUDI_QUEUE_ID_DMA_1_0,
						e, ENC_COUNT, neg ? 3 : 60, &w),
				 0);
		assert_true(w != UINT64_MAX);
		sleep_ms(500);
		assert_int_equal(status_now(st->fd, w), HL_WAIT_CS_STATUS_BUSY);
		release_stall(st->fd);
		rc = wait_cs(st->fd, w, &status);
		print_message("%s: the WAIT: rc %d status %u\n",
			      neg ? "through base 1 (E_N)" : "through base 3 (W_S)",
			      rc, status);
		if (neg) {
			assert_true(rc == 0 || rc == -EIO || rc == -ETIMEDOUT);
			assert_int_not_equal(status,
					     HL_WAIT_CS_STATUS_COMPLETED);
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
		}

		n = pkt_nop(nop.ptr);
		c.cb_handle = nop.handle;
		c.cb_size = n;
		memset(&a, 0, sizeof(a));
		a.in.seq = e;
		a.in.chunks_execute = (uintptr_t)&c;
		a.in.num_chunks_execute = 1;
		a.in.cs_flags = HL_CS_FLAGS_STAGED_SUBMISSION |
				HL_CS_FLAGS_STAGED_SUBMISSION_LAST;
		assert_int_equal(hltests_cs_ioctl(st->fd, &a), 0);
		last = a.out.seq;
		assert_int_equal(wait_cs(st->fd, e, &status), 0);
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
		assert_int_equal(wait_cs(st->fd, last, &status), 0);
		kcb_destroy(st->fd, &stall);
	}
	kcb_destroy(st->fd, &nop);
	kcb_destroy(st->fd, &k);
	assert_int_equal(en.first_available_sync_object, 0);
	assert_int_equal(en.first_available_monitor, 0);
}

/*
 * A collective wait that timed out (its signal held past its 2 s) spends
 * its value in the master's SOB group without any slave adding to it: the
 * next collective wait of the master, whose signal comes, must still
 * complete (the driver leaves the poisoned group), not wait for a value
 * its slaves can no longer reach until its own timeout.
 */
static void test_collective_wait_after_timed_out_one(void **state)
{
	struct hltests_state *st = *state;
	uint64_t sig, coll;
	uint32_t status;
	struct kcb stall;
	int rc;

	NEED_GAUDI();
	stall_dma0(st->fd, &stall);
	assert_int_equal(cs_signal(st->fd, GAUDI_QUEUE_ID_DMA_0_0, &sig), 0);
	assert_int_equal(cs_coll_within(st->fd, COLL_MASTER,
					 GAUDI_ENGINE_ID_DMA_5, sig, 0, 2,
					 &coll), 0);
	assert_true(coll != UINT64_MAX);
	rc = wait_cs(st->fd, coll, &status);
	assert_true(rc == 0 || rc == -EIO || rc == -ETIMEDOUT);
	assert_int_not_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	release_stall(st->fd);
	assert_int_equal(wait_cs(st->fd, sig, &status), 0);
	kcb_destroy(st->fd, &stall);

	stall_dma0(st->fd, &stall);
	assert_int_equal(cs_signal(st->fd, GAUDI_QUEUE_ID_DMA_0_0, &sig), 0);
	assert_int_equal(cs_coll_within(st->fd, COLL_MASTER,
					 GAUDI_ENGINE_ID_DMA_5, sig, 0, 20,
					 &coll), 0);
	assert_true(coll != UINT64_MAX);
	sleep_ms(200);
	release_stall(st->fd);
	rc = wait_cs(st->fd, coll, &status);
	print_message("the collective wait after the timed-out one: rc %d status %u\n",
		      rc, status);
	assert_int_equal(rc, 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	kcb_destroy(st->fd, &stall);
}

/*
 * The errnos, as upstream's: the master must be a collective master (an
 * external queue; an internal, NIC, CPU or absent queue: -EINVAL), the
 * engine DMA 5 or TPC 7 (any other: -EINVAL; both wrong: -EINVAL), one
 * chunk naming one SIGNAL. Under asic=emu (no NIC or reduction engine
 * queues): -EOPNOTSUPP whatever the arguments.
 */
static void test_collective_wait_errnos(void **state)
{
	static const uint32_t bad_q[] = { GAUDI_QUEUE_ID_DMA_2_0,
		GAUDI_QUEUE_ID_CPU_PQ, GAUDI_QUEUE_ID_DMA_5_0,
		GAUDI_QUEUE_ID_TPC_7_0, GAUDI_QUEUE_ID_NIC_0_0,
		GAUDI_QUEUE_ID_NIC_9_0, GAUDI_QUEUE_ID_SIZE, 5000 };
	static const uint32_t bad_e[] = { GAUDI_ENGINE_ID_DMA_0,
		GAUDI_ENGINE_ID_DMA_4, GAUDI_ENGINE_ID_DMA_6,
		GAUDI_ENGINE_ID_TPC_6, GAUDI_ENGINE_ID_MME_0,
		GAUDI_ENGINE_ID_NIC_0, GAUDI_ENGINE_ID_SIZE, 0xffffffff };
	struct hltests_state *st = *state;
	struct hltests_host_buf cb;
	uint64_t sig, plain, coll;
	struct hl_cs_chunk c[2];
	union hl_cs_args a;
	uint32_t i, status;
	struct kcb stall;

	if (!hltests_identity_gaudi()) {
		assert_int_equal(cs_signal(st->fd, 0, &sig), 0);
		assert_int_equal(cs_coll(st->fd, 0, GAUDI_ENGINE_ID_DMA_5, sig,
					 0, NULL), -EOPNOTSUPP);
		assert_int_equal(cs_coll(st->fd, 1, 0, sig, 0, NULL),
				 -EOPNOTSUPP);
		assert_int_equal(wait_cs(st->fd, sig, &status), 0);
		return;
	}
	stall_dma0(st->fd, &stall);
	assert_int_equal(cs_signal(st->fd, GAUDI_QUEUE_ID_DMA_0_0, &sig), 0);

	for (i = 0; i < sizeof(bad_q) / sizeof(bad_q[0]); i++)
		assert_int_equal(cs_coll(st->fd, bad_q[i],
					 GAUDI_ENGINE_ID_DMA_5, sig, 0, NULL),
				 -EINVAL);
	for (i = 0; i < sizeof(bad_e) / sizeof(bad_e[0]); i++)
		assert_int_equal(cs_coll(st->fd, COLL_MASTER, bad_e[i], sig, 0,
					 NULL), -EINVAL);
	/* Both wrong */
	assert_int_equal(cs_coll(st->fd, GAUDI_QUEUE_ID_TPC_0_0,
				 GAUDI_ENGINE_ID_TPC_6, sig, 0, NULL), -EINVAL);
	/* Two kinds at once, SIGNAL's seq not handed out, not a SIGNAL */
	assert_int_equal(cs_coll(st->fd, COLL_MASTER, GAUDI_ENGINE_ID_DMA_5,
				 sig, HL_CS_FLAGS_WAIT, NULL), -EINVAL);
	assert_int_equal(cs_coll(st->fd, COLL_MASTER, GAUDI_ENGINE_ID_DMA_5,
				 sig + 1000, 0, NULL), -EINVAL);
	hltests_host_map(st->fd, &cb, PAGE);
	assert_int_equal(cs_one(st->fd, GAUDI_QUEUE_ID_DMA_2_0, cb.va,
				pkt_nop(cb.ptr), 0, 0, &plain), 0);
	assert_int_equal(cs_coll(st->fd, COLL_MASTER, GAUDI_ENGINE_ID_DMA_5,
				 plain, 0, NULL), -EINVAL);
	/* Two chunks */
	memset(c, 0, sizeof(c));
	c[0].queue_index = c[1].queue_index = COLL_MASTER;
	c[0].signal_seq_arr = c[1].signal_seq_arr = (uintptr_t)&sig;
	c[0].num_signal_seq_arr = c[1].num_signal_seq_arr = 1;
	c[0].collective_engine_id = GAUDI_ENGINE_ID_DMA_5;
	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uintptr_t)c;
	a.in.num_chunks_execute = 2;
	a.in.cs_flags = HL_CS_FLAGS_COLLECTIVE_WAIT;
	assert_int_equal(hltests_cs_ioctl(st->fd, &a), -EINVAL);

	/* The positive control: every master of both engines */
	for (i = GAUDI_QUEUE_ID_DMA_0_1; i <= GAUDI_QUEUE_ID_DMA_1_3; i++) {
		assert_int_equal(cs_coll(st->fd, i, i % 2 ?
					 GAUDI_ENGINE_ID_TPC_7 :
					 GAUDI_ENGINE_ID_DMA_5, sig, 0, &coll),
				 0);
		assert_true(coll != UINT64_MAX);
	}
	release_stall(st->fd);
	assert_int_equal(wait_cs(st->fd, coll, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(wait_cs(st->fd, plain, &status), 0);
	kcb_destroy(st->fd, &stall);
	hltests_host_unmap(st->fd, &cb);
}

/* Open device 0's compute node, once the last owner's teardown let go */
static int open_node0(void)
{
	int fd, tries;

	for (tries = 0; tries < 100; tries++) {
		fd = hltests_open_node(0, 0);
		if (fd != -EBUSY)
			break;
		sleep_ms(100);
	}
	return fd;
}

/*
 * Three collective waits of COLL_MASTER completed (its slaves' SOBs at 3),
 * then a fourth left pending behind a held signal
 */
static void coll_leave_pending(int fd)
{
	uint64_t sig[3], coll[3];
	uint32_t status, i;
	struct kcb stall;

	stall_dma0(fd, &stall);
	for (i = 0; i < 3; i++) {
		assert_int_equal(cs_signal(fd, GAUDI_QUEUE_ID_DMA_0_0, &sig[i]),
				 0);
		assert_int_equal(cs_coll(fd, COLL_MASTER, GAUDI_ENGINE_ID_DMA_5,
					 sig[i], 0, &coll[i]), 0);
		assert_true(coll[i] != UINT64_MAX);
	}
	release_stall(fd);
	for (i = 0; i < 3; i++) {
		assert_int_equal(wait_cs(fd, coll[i], &status), 0);
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	}
	kcb_destroy(fd, &stall);

	stall_dma0(fd, &stall);
	assert_int_equal(cs_signal(fd, GAUDI_QUEUE_ID_DMA_0_0, &sig[0]), 0);
	assert_int_equal(cs_coll(fd, COLL_MASTER, GAUDI_ENGINE_ID_TPC_7,
				 sig[0], 0, &coll[0]), 0);
	sleep_ms(300);
	assert_int_equal(status_now(fd, coll[0]), HL_WAIT_CS_STATUS_BUSY);
	/* Its mapping would keep the file open past a close */
	kcb_destroy(fd, &stall);
}

/*
 * The next owner's first collective wait of COLL_MASTER (value 1) holds
 * its master, and the marker CS after it, until its signal comes: had the
 * slaves' SOBs kept the last owner's 3, the master would pass at once
 */
static void coll_next_owner_clean(int fd)
{
	struct hltests_host_buf h;
	uint64_t sig, coll, mark;
	volatile uint32_t *m;
	struct kcb stall, k;
	uint32_t status;

	hltests_host_map(fd, &h, PAGE);
	memset(h.ptr, 0, PAGE);
	m = (volatile uint32_t *)h.ptr;
	kcb_create(fd, &k, PAGE);
	stall_dma0(fd, &stall);
	assert_int_equal(cs_signal(fd, GAUDI_QUEUE_ID_DMA_0_0, &sig), 0);
	assert_int_equal(cs_coll(fd, COLL_MASTER, GAUDI_ENGINE_ID_DMA_5, sig,
				 0, &coll), 0);
	assert_true(coll != UINT64_MAX);
	mark = master_marker(fd, &k, h.va, 0x5eed);
	sleep_ms(500);
	assert_int_equal(status_now(fd, mark), HL_WAIT_CS_STATUS_BUSY);
	assert_int_equal(m[0], 0);
	release_stall(fd);
	assert_int_equal(wait_cs(fd, coll, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(wait_cs(fd, mark, &status), 0);
	assert_int_equal(m[0], 0x5eed);
	kcb_destroy(fd, &k);
	kcb_destroy(fd, &stall);
	hltests_host_unmap(fd, &h);
}

/*
 * A collective wait pending when its file closes, or when the device is
 * hard reset: neither waits for its timeout, and the next owner's first
 * collective wait of the same master starts from a zeroed SOB group
 * (coll_next_owner_clean()).
 */
static void test_collective_wait_pending_at_close(void **state)
{
	int fd, dead;
	double t0;

	(void)state;
	NEED_GAUDI();
	fd = open_node0();
	assert_true(fd >= 0);
	coll_leave_pending(fd);
	t0 = hltests_now_s();
	assert_int_equal(hlthunk_close(fd), 0);
	fd = open_node0();
	assert_true(fd >= 0);
	assert_true(hltests_now_s() - t0 < 30);
	coll_next_owner_clean(fd);

	/* A hard reset; the next owner opens while the dead file is open */
	coll_leave_pending(fd);
	dead = fd;
	t0 = hltests_now_s();
	assert_int_equal(hltests_write_file("/sys/class/habanalabs/hl0/hard_reset",
					    "1"), 0);
	fd = open_node0();
	assert_true(fd >= 0);
	assert_true(hltests_now_s() - t0 < 30);
	coll_next_owner_clean(fd);
	hlthunk_close(dead);
	assert_int_equal(hlthunk_close(fd), 0);
}

/*
 * A SIGNAL whose copy back is held by userfaultfd while root hard resets
 * the device. The SIGNAL holds its context's sig_lock and its value from
 * the handler to its commit (or drop), across the copy back; the reset
 * tears the context down meanwhile (it does not wait for user space), and
 * the call, once resolved, drops the CS, which gives the value back and
 * unlocks sig_lock. Had the teardown freed the signal values and destroyed
 * the mutex, that would write through a NULL pointer (an oops) and unlock
 * a destroyed mutex. The call gets ENODEV, and the next owner's SIGNAL on
 * the same queue, and a full queue of jobs there, work.
 */
struct held_call {
	int fd;
	union hl_cs_args *a;
	int rc;
	int uffd;
	uint8_t *region;
	uint64_t arg_fault;
	pthread_t t;
};

static void *held_call_thread(void *arg)
{
	struct held_call *c = arg;

	c->rc = ioctl(c->fd, HL_IOCTL_CS, c->a) ? -errno : 0;
	return NULL;
}

/* The page of the next fault on @uffd within @ms; 0 when none came */
static uint64_t uffd_fault(int uffd, int ms)
{
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };
	struct uffd_msg msg;

	if (poll(&pfd, 1, ms) != 1 ||
	    read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		return 0;
	return msg.arg.pagefault.address & ~(PAGE - 1);
}

static void uffd_copy(int uffd, uint64_t addr, const void *src)
{
	struct uffdio_copy c = {
		.dst = addr, .src = (uintptr_t)src, .len = PAGE,
	};

	if (ioctl(uffd, UFFDIO_COPY, &c))
		assert_int_equal(errno, EEXIST);
}

/*
 * The userfaultfd region of held_cs_start(); skips without userfaultfd
 * (call it before opening the device)
 */
static void held_cs_init(struct held_call *c)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;

	memset(c, 0, sizeof(*c));
	c->uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (c->uffd < 0) {
		print_message("no userfaultfd (%s): skipped\n", strerror(errno));
		skip();
	}
	assert_int_equal(ioctl(c->uffd, UFFDIO_API, &api), 0);
	c->region = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(c->region != MAP_FAILED);
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)c->region;
	reg.range.len = 2 * PAGE;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	assert_int_equal(ioctl(c->uffd, UFFDIO_REGISTER, &reg), 0);
}

/*
 * Start HL_IOCTL_CS @in (one chunk, @chunk) on @fd in a thread and return
 * once its copy back is held by userfaultfd (@c from held_cs_init()): the
 * argument page is present for the dispatcher, the chunk missing; while
 * the handler waits for the chunk the argument page is dropped, so the
 * copy back faults and waits. held_cs_release() lets it go.
 */
static void held_cs_start(struct held_call *c, int fd,
			  const struct hl_cs_in *in,
			  const struct hl_cs_chunk *chunk)
{
	uint64_t arg_addr, chunk_addr, a1;
	uint8_t page[PAGE];

	arg_addr = (uintptr_t)c->region;
	chunk_addr = arg_addr + PAGE;
	memset(page, 0, PAGE);
	memcpy(page, in, sizeof(*in));
	((union hl_cs_args *)page)->in.chunks_execute = chunk_addr;
	((union hl_cs_args *)page)->in.num_chunks_execute = 1;
	uffd_copy(c->uffd, arg_addr, page);
	c->a = (union hl_cs_args *)c->region;
	c->fd = fd;
	assert_int_equal(pthread_create(&c->t, NULL, held_call_thread, c), 0);

	/* The handler reads the chunk: drop the argument page meanwhile */
	a1 = uffd_fault(c->uffd, 20000);
	assert_int_equal(a1, chunk_addr);
	assert_int_equal(madvise(c->region, PAGE, MADV_DONTNEED), 0);
	memset(page, 0, PAGE);
	memcpy(page, chunk, sizeof(*chunk));
	uffd_copy(c->uffd, a1, page);
	/* The copy back faults and stays held */
	c->arg_fault = uffd_fault(c->uffd, 20000);
	assert_int_equal(c->arg_fault, arg_addr);
}

/* Resolve the held copy back; the call's result */
static int held_cs_release(struct held_call *c)
{
	uint8_t page[PAGE];

	memset(page, 0, PAGE);
	uffd_copy(c->uffd, c->arg_fault, page);
	assert_int_equal(pthread_join(c->t, NULL), 0);
	munmap(c->region, 2 * PAGE);
	close(c->uffd);
	return c->rc;
}

/*
 * A SIGNAL whose copy back is held by userfaultfd while root hard resets
 * the device. The SIGNAL holds its context's sig_lock and its value from
 * the handler to its commit (or drop), across the copy back; the reset
 * tears the context down meanwhile (it does not wait for user space), and
 * the call, once resolved, drops the CS, which gives the value back and
 * unlocks sig_lock. Had the teardown freed the signal values and destroyed
 * the mutex, that would write through a NULL pointer (an oops) and unlock
 * a destroyed mutex. The call gets ENODEV, and the next owner's SIGNAL on
 * the same queue, and a full queue of jobs there, work.
 */
static void signal_held_across_reset(void)
{
	struct hl_cs_chunk chunk;
	struct held_call c;
	struct hl_cs_in in;
	uint32_t n, i, status;
	uint64_t seq;
	struct kcb k;
	int fd;

	held_cs_init(&c);
	fd = open_node0();
	assert_true(fd >= 0);
	/* The context's first SIGNAL on the queue took its value already */
	assert_int_equal(cs_signal(fd, GAUDI_QUEUE_ID_DMA_0_0, &seq), 0);
	assert_int_equal(wait_cs(fd, seq, &status), 0);

	memset(&in, 0, sizeof(in));
	in.cs_flags = HL_CS_FLAGS_SIGNAL;
	memset(&chunk, 0, sizeof(chunk));
	chunk.queue_index = GAUDI_QUEUE_ID_DMA_0_0;
	/* Held: the SIGNAL holds sig_lock */
	held_cs_start(&c, fd, &in, &chunk);
	assert_int_equal(hltests_write_file("/sys/class/habanalabs/hl0/hard_reset",
					    "1"), 0);
	assert_int_equal(held_cs_release(&c), -ENODEV);
	hlthunk_close(fd);

	/* The next owner: a SIGNAL, and the queue's full depth */
	fd = open_node0();
	assert_true(fd >= 0);
	assert_int_equal(cs_signal(fd, GAUDI_QUEUE_ID_DMA_0_0, &seq), 0);
	assert_int_equal(wait_cs(fd, seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	kcb_create(fd, &k, PAGE);
	n = pkt_nop(k.ptr);
	for (i = 0; i < HL_EXT_QUEUE_LENGTH / HL_MAX_JOBS_PER_CS; i++)
		assert_int_equal(cs_many(fd, GAUDI_QUEUE_ID_DMA_0_0, &k, n,
					 HL_MAX_JOBS_PER_CS, &seq), 0);
	assert_int_equal(wait_cs(fd, seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	kcb_destroy(fd, &k);
	assert_int_equal(hlthunk_close(fd), 0);
}

struct reset_thread {
	pthread_t t;
	volatile int done;
	int rc;
};

static void *reset_thread_fn(void *arg)
{
	struct reset_thread *r = arg;

	r->rc = hltests_write_file("/sys/class/habanalabs/hl0/hard_reset", "1");
	__atomic_store_n(&r->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * A later part of a staged submission whose copy back is held while root
 * hard resets the device: the part keeps its first part from completing
 * until it is committed or dropped, but the reset does not wait for user
 * space: its teardown takes the part's count (it waited for the call,
 * and, before the call's drop stopped waiting at the context's gate, the
 * reset and the call waited for each other for ever, in D state). The
 * reset finishes while the call is held, the call then gets ENODEV, and
 * the next owner opens.
 */
static void staged_part_held_across_reset(uint32_t flags)
{
	struct hltests_host_buf cb;
	struct hl_cs_chunk chunk;
	struct reset_thread r;
	struct held_call c;
	struct hl_cs_in in;
	int fd, rc, done;
	uint64_t s1;
	double t0;

	held_cs_init(&c);
	fd = open_node0();
	assert_true(fd >= 0);
	hltests_host_map(fd, &cb, PAGE);
	assert_int_equal(staged(fd, ST | ST_F, 0, q_int(), cb.va,
				pkt_nop(cb.ptr), 60, &s1), 0);
	memset(&in, 0, sizeof(in));
	in.cs_flags = flags;
	in.seq = s1;
	chunk_at(&chunk, q_int(), cb.va, pkt_nop(cb.ptr));
	held_cs_start(&c, fd, &in, &chunk);

	memset(&r, 0, sizeof(r));
	assert_int_equal(pthread_create(&r.t, NULL, reset_thread_fn, &r), 0);
	t0 = hltests_now_s();
	while (!__atomic_load_n(&r.done, __ATOMIC_SEQ_CST) &&
	       hltests_now_s() - t0 < 20)
		sleep_ms(50);
	done = __atomic_load_n(&r.done, __ATOMIC_SEQ_CST);
	rc = held_cs_release(&c);
	t0 = hltests_now_s();
	while (!__atomic_load_n(&r.done, __ATOMIC_SEQ_CST) &&
	       hltests_now_s() - t0 < 30)
		sleep_ms(50);
	if (!__atomic_load_n(&r.done, __ATOMIC_SEQ_CST))
		fail_msg("the hard reset and the resolved call wait for each other");
	assert_int_equal(pthread_join(r.t, NULL), 0);
	if (!done)
		fail_msg("the hard reset waited for a held staged part (over 20 s)");
	assert_int_equal(r.rc, 0);
	assert_int_equal(rc, -ENODEV);
	hlthunk_close(fd);
	free(cb.ptr);

	fd = open_node0();
	assert_true(fd >= 0);
	assert_int_equal(hlthunk_close(fd), 0);
}

static void test_staged_part_held_across_reset(void **state)
{
	(void)state;
	staged_part_held_across_reset(ST);
}

/* The same with the last part held: the teardown closes the submission */
static void test_staged_last_part_held_across_reset(void **state)
{
	(void)state;
	staged_part_held_across_reset(ST | ST_L);
}

static void test_signal_copy_back_held_across_reset(void **state)
{
	(void)state;
	NEED_GAUDI();
	signal_held_across_reset();
}

/* A WAIT on @queue for SIGNAL @sig */
static int cs_wait_sig(int fd, uint32_t queue, uint64_t sig, uint64_t *seq)
{
	struct hl_cs_chunk c;
	union hl_cs_args a;
	int rc;

	memset(&c, 0, sizeof(c));
	c.queue_index = queue;
	c.signal_seq_arr = (uintptr_t)&sig;
	c.num_signal_seq_arr = 1;
	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = HL_CS_FLAGS_WAIT;
	rc = hltests_cs_ioctl(fd, &a);
	if (!rc)
		*seq = a.out.seq;
	return rc;
}

/*
 * Every way a CS on an external queue ends gives its entries back: a
 * call whose copy back failed (its CS never runs), a job stopped at its
 * deadline, a SIGNAL and a WAIT, restore chunks, a staged submission
 * closed by its timeout. Afterwards the queue still holds exactly
 * HL_EXT_QUEUE_LENGTH jobs.
 */
static void test_external_queue_full_after_every_end(void **state)
{
	struct hltests_state *st = *state;
	const uint32_t q = GAUDI_QUEUE_ID_DMA_0_0;
	struct hl_cs_chunk r, e;
	uint64_t seq, sig;
	uint32_t n, fn, status;
	struct kcb k, fk;

	NEED_GAUDI();
	kcb_create(st->fd, &k, PAGE);
	n = pkt_nop(k.ptr);
	kcb_create(st->fd, &fk, PAGE);
	fn = pkt_fence(fk.ptr, 1, 1, 1);

	/* The copy back of a full CS fails: it never runs */
	hltests_fail_copy_out(1);
	assert_int_equal(cs_many(st->fd, q, &k, n, HL_MAX_JOBS_PER_CS, NULL),
			 -EFAULT);
	/* A job stopped at its deadline */
	assert_int_equal(cs_one_within(st->fd, q, fk.handle, fn, 0, 0, 1,
				       &seq), 0);
	assert_int_equal(wait_cs(st->fd, seq, &status), -ETIMEDOUT);
	assert_int_equal(status, HL_WAIT_CS_STATUS_TIMEDOUT);
	/* A SIGNAL and a WAIT for it */
	assert_int_equal(cs_signal(st->fd, q, &sig), 0);
	assert_int_equal(cs_wait_sig(st->fd, q, sig, &seq), 0);
	/* A SIGNAL done already makes no WAIT CS (out.seq U64_MAX) */
	if (seq != UINT64_MAX) {
		assert_int_equal(wait_cs(st->fd, seq, &status), 0);
		assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	}
	/* Restore chunks, forced */
	memset(&r, 0, sizeof(r));
	r.cb_handle = k.handle;
	r.queue_index = q;
	r.cb_size = n;
	e = r;
	assert_int_equal(cs_restore(st->fd, &r, 1, &e,
				    HL_CS_FLAGS_FORCE_RESTORE, &seq), 0);
	assert_int_equal(wait_cs(st->fd, seq, &status), 0);
	/* A staged submission closed by its timeout */
	assert_int_equal(cs_one_within(st->fd, q, k.handle, n, 0, ST | ST_F, 1,
				       &seq), 0);
	assert_int_equal(wait_cs(st->fd, seq, &status), -ETIMEDOUT);

	assert_queue_full_depth(st->fd, &k, n);
	kcb_destroy(st->fd, &fk);
	kcb_destroy(st->fd, &k);
}

const struct CMUnitTest cs_model_tests[] = {
	cmocka_unit_test_setup_teardown(test_queue_table_reported,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_cpu_and_na_queues_refused,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_every_internal_queue_runs,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_sync_stream_external_only,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_fence_of_every_stream,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_kernel_cb_on_external_queue,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_external_queue_errnos,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_kernel_cb_copied_at_submission,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_kernel_cb_destroyed_while_queued,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_external_queue_depth,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_cb_copies_bounded,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_external_queue_depth_races,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_external_queue_full_after_every_end,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_restore_on_first_cs_and_forced,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_forced_restore_many,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_restore_errnos,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_staged_errnos,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_staged_timeout_from_first,
					hltests_setup, hltests_teardown),
	cmocka_unit_test(test_staged_open_at_close),
	cmocka_unit_test_setup_teardown(test_collective_wait_after_signal,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_collective_wait_encaps,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_encaps_signal_by_msg_short_to_ws,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_collective_wait_errnos,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_collective_wait_after_timed_out_one,
					hltests_setup, hltests_teardown),
	cmocka_unit_test(test_collective_wait_pending_at_close),
	cmocka_unit_test(test_signal_copy_back_held_across_reset),
	cmocka_unit_test(test_staged_part_held_across_reset),
	cmocka_unit_test(test_staged_last_part_held_across_reset),
};

int main(void)
{
	return HLTESTS_RUN("cs_model", cs_model_tests);
}

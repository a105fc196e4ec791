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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE		4096ull
#define WAIT_US		(120ull * 1000 * 1000)

/* ------------------------------------------------------------------------
 * Helpers
 */

/* The identity the driver was loaded with: true for asic=gaudi */
static bool is_gaudi(void)
{
	char buf[32];

	assert_int_equal(hltests_param_read("asic", buf, sizeof(buf)), 0);
	if (!strcmp(buf, "gaudi"))
		return true;
	assert_string_equal(buf, "emu");
	return false;
}

#define NEED_GAUDI() do {						\
		if (!is_gaudi()) {					\
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

	if (is_gaudi()) {
		memcpy(buf, g, sizeof(g));
		return sizeof(g);
	}
	memcpy(buf, &pkt, sizeof(pkt));
	return sizeof(pkt);
}

static uint32_t pkt_msg_long(void *buf, uint64_t addr, uint32_t value)
{
	uint32_t g[4] = {
		htole32(value),
		htole32(HL_GAUDI_PKT_CTL(HL_GAUDI_PKT_MSG_LONG)),
		htole32((uint32_t)addr),
		htole32((uint32_t)(addr >> 32)),
	};

	if (!is_gaudi())
		return hlthunk_pkt_msg_long(buf, addr, value);
	memcpy(buf, g, sizeof(g));
	return sizeof(g);
}

/* HL_IOCTL_CS of one chunk; returns the ioctl's rc */
static int cs_one(int fd, uint32_t queue, uint64_t handle, uint32_t size,
		  uint32_t chunk_flags, uint32_t cs_flags, uint64_t *seq)
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
	rc = hltests_cs_ioctl(fd, &a);
	if (!rc && seq)
		*seq = a.out.seq;
	return rc;
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

	if (!is_gaudi()) {
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
	p += pkt_msg_long(p, HL_QM_FENCE_RDATA(q, 1), 1);
	p += pkt_fence(p, 1, 1, 1);
	p += pkt_msg_long(p, h.va, 0x77);
	assert_int_equal(cs_one(st->fd, q, cb.va, p - cb.ptr, 0, 0, &seq), 0);
	assert_int_equal(wait_cs(st->fd, seq, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(*(uint32_t *)h.ptr, 0x77);

	/* Another queue manager's stream 3, and fence id 2: not ours */
	memset(h.ptr, 0, PAGE);
	p = cb.ptr;
	p += pkt_msg_long(p, HL_QM_FENCE_RDATA(q - 4, 1), 1);
	p += pkt_msg_long(p, HL_QM_FENCE_RDATA(q, 2), 1);
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
	assert_int_equal(wait_cs(st->fd, seq, &status), -EIO);
	assert_int_equal(status, HL_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(*(uint32_t *)h.ptr, 0);

	hltests_host_unmap(st->fd, &h);
	hltests_host_unmap(st->fd, &cb);
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
};

int main(void)
{
	return HLTESTS_RUN("cs_model", cs_model_tests);
}

// SPDX-License-Identifier: MIT
/*
 * nic, two-sided messages: HL_PKT_NIC_SEND from one device's memory
 * into a posted HL_PKT_NIC_RECV on another, compared byte for byte; order
 * and PSNs, size and PSN mismatch, a full receive queue, link down, hard
 * reset, destroyed connections, unmapped addresses.
 * Fixtures: tests/common/hltests_nic.h; the suite: nic.c.
 */
#include "hltests_nic.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------
 * Data path
 */

static void test_exchange_dram_and_host(void **state)
{
	const uint64_t size = 3 * MB + 123;
	struct hltests_dram_buf d0, d1;
	struct hl_nic_cqe cqe;
	struct buf h0, h1;
	uint8_t *pattern, *back;
	struct nic_cs s, r;
	uint64_t st = SEED;
	struct pair p;

	(void)state;
	pair_connect(&p);
	pattern = malloc(size);
	back = malloc(size);
	assert_non_null(pattern);
	assert_non_null(back);
	hltests_fill_random(&st, pattern, size);

	/* DRAM of device 0 -> DRAM of device 1 (at an odd offset) */
	hltests_dram_map(p.s[0].fd, &d0, size, false);
	hltests_dram_map(p.s[1].fd, &d1, size + PAGE, false);
	write_dev(p.s[0].fd, d0.va, pattern, size);
	assert_int_equal(nic_post(p.s[1].fd, &r, 1, NIC_RECV, p.s[1].conn,
				  d1.va + 77, size + 5, 0xbeef, 0), 0);
	assert_int_equal(nic_post(p.s[0].fd, &s, 2, NIC_SEND, p.s[0].conn,
				  d0.va, size, 0xfeed, 0), 0);
	assert_int_equal(nic_cs_wait(p.s[0].fd, &s, WAIT_US, NULL), 0);
	assert_int_equal(nic_cs_wait(p.s[1].fd, &r, WAIT_US, NULL), 0);
	nic_cs_free(p.s[0].fd, &s);
	nic_cs_free(p.s[1].fd, &r);
	hltests_read_device(p.s[1].fd, d1.va + 77, back, size);
	hltests_assert_bytes_equal(back, pattern, size, "DRAM to DRAM");

	cq_take_one(p.s[0].fd, p.s[0].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_SEND, HL_NIC_CQE_STATUS_SUCCESS,
		   p.s[0].conn, 0xfeed);
	assert_int_equal(cqe.byte_len, size);
	assert_int_equal(cqe.psn, 0);
	cq_take_one(p.s[1].fd, p.s[1].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_RECV, HL_NIC_CQE_STATUS_SUCCESS,
		   p.s[1].conn, 0xbeef);
	assert_int_equal(cqe.byte_len, size);
	assert_int_equal(cqe.psn, 0);

	/* Back: host memory of device 1 -> host memory of device 0 */
	assert_int_equal(buf_map(p.s[1].fd, &h1, size), 0);
	assert_int_equal(buf_map(p.s[0].fd, &h0, size), 0);
	memcpy(h1.ptr, pattern, size);
	h1.ptr[size - 1] ^= 0x5a;
	assert_int_equal(nic_post(p.s[0].fd, &r, 3, NIC_RECV, p.s[0].conn,
				  h0.va, size, 1, 0), 0);
	assert_int_equal(nic_post(p.s[1].fd, &s, 0, NIC_SEND, p.s[1].conn,
				  h1.va, size, 2, 0), 0);
	assert_int_equal(nic_cs_wait(p.s[1].fd, &s, WAIT_US, NULL), 0);
	assert_int_equal(nic_cs_wait(p.s[0].fd, &r, WAIT_US, NULL), 0);
	hltests_assert_bytes_equal(h0.ptr, h1.ptr, size, "host to host");
	nic_cs_free(p.s[0].fd, &r);
	nic_cs_free(p.s[1].fd, &s);

	/* 3 MiB at MTU 1024: 3073 packets, so the next PSN is 3073 */
	{
		struct hl_nic_query_conn_out q;

		assert_int_equal(hlthunk_nic_query_conn(p.s[0].fd, p.s[0].conn,
							&q), 0);
		assert_int_equal(q.sq_psn, (size + 1023) / 1024);
		assert_int_equal(q.rq_psn, (size + 1023) / 1024);
	}

	buf_unmap(p.s[0].fd, &h0);
	buf_unmap(p.s[1].fd, &h1);
	hltests_dram_unmap(p.s[0].fd, &d0);
	hltests_dram_unmap(p.s[1].fd, &d1);
	free(pattern);
	free(back);
	pair_close(&p);
}

static void test_messages_in_order_with_psns(void **state)
{
	static const uint64_t sizes[] = { 0, 5000, 1, 4096, 10 };
	const uint32_t start = HL_NIC_PSN_MASK - 3;	/* wraps */
	struct hl_nic_cqe cqe;
	struct conn_params cp;
	struct buf src, dst;
	struct nic_cs s, r;
	uint32_t i, psn = start;
	uint64_t off = 0;
	struct pair p;

	(void)state;
	pair_open(&p);
	for (i = 0; i < 2; i++) {
		assert_int_equal(hlthunk_nic_cq_create(p.s[i].fd, 64,
						       &p.s[i].cq), 0);
		assert_int_equal(hlthunk_nic_alloc_conn(p.s[i].fd, p.s[i].port,
							&p.s[i].conn), 0);
	}
	for (i = 0; i < 2; i++) {
		pair_params(&p, i, &cp);
		cp.tx_psn = start;
		cp.rx_psn = start;
		assert_int_equal(conn_connect(p.s[i].fd, p.s[i].conn, &cp), 0);
	}

	assert_int_equal(buf_map(p.s[0].fd, &src, 16 * KB), 0);
	assert_int_equal(buf_map(p.s[1].fd, &dst, 16 * KB), 0);
	fill_seeded(src.ptr, 16 * KB, SEED);
	memset(dst.ptr, 0xee, 16 * KB);

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		assert_int_equal(nic_post(p.s[1].fd, &r, 0, NIC_RECV,
					  p.s[1].conn, dst.va + off, sizes[i],
					  i, 0), 0);
		assert_int_equal(nic_post(p.s[0].fd, &s, 1, NIC_SEND,
					  p.s[0].conn, src.va + off, sizes[i],
					  i, 0), 0);
		assert_int_equal(nic_cs_wait(p.s[0].fd, &s, WAIT_US, NULL), 0);
		assert_int_equal(nic_cs_wait(p.s[1].fd, &r, WAIT_US, NULL), 0);
		nic_cs_free(p.s[0].fd, &s);
		nic_cs_free(p.s[1].fd, &r);

		cq_take_one(p.s[1].fd, p.s[1].cq, &cqe);
		assert_cqe(&cqe, HL_NIC_CQE_OP_RECV, HL_NIC_CQE_STATUS_SUCCESS,
			   p.s[1].conn, i);
		assert_int_equal(cqe.byte_len, sizes[i]);
		assert_int_equal(cqe.psn, psn);
		cq_take_one(p.s[0].fd, p.s[0].cq, &cqe);
		assert_int_equal(cqe.psn, psn);
		psn = (psn + (sizes[i] ? (sizes[i] + 1023) / 1024 : 1)) &
		      HL_NIC_PSN_MASK;
		off += sizes[i];
	}
	hltests_assert_bytes_equal(dst.ptr, src.ptr, off, "messages");
	assert_int_equal(dst.ptr[off], 0xee);
	assert_int_equal(psn, (start + 1 + 5 + 1 + 4 + 1) & HL_NIC_PSN_MASK);
	{
		struct hl_nic_query_conn_out q;

		assert_int_equal(hlthunk_nic_query_conn(p.s[0].fd, p.s[0].conn,
							&q), 0);
		assert_int_equal(q.sq_psn, psn);
		assert_int_equal(hlthunk_nic_query_conn(p.s[1].fd, p.s[1].conn,
							&q), 0);
		assert_int_equal(q.rq_psn, psn);
	}
	buf_unmap(p.s[0].fd, &src);
	buf_unmap(p.s[1].fd, &dst);
	pair_close(&p);
}

static void test_send_before_recv_waits(void **state)
{
	const uint64_t size = 256 * KB;
	struct buf src, dst;
	struct nic_cs s, r;
	uint32_t status;
	struct pair p;

	(void)state;
	pair_connect(&p);
	assert_int_equal(buf_map(p.s[0].fd, &src, size), 0);
	assert_int_equal(buf_map(p.s[1].fd, &dst, size), 0);
	fill_seeded(src.ptr, size, SEED + 1);

	assert_int_equal(nic_post(p.s[0].fd, &s, 0, NIC_SEND, p.s[0].conn,
				  src.va, size, 9, 0), 0);
	usleep(500 * 1000);
	/* Still waiting for a receive: busy, nothing landed */
	assert_int_equal(nic_cs_wait(p.s[0].fd, &s, 0, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_BUSY);
	assert_int_equal(dst.ptr[0], 0);

	assert_int_equal(nic_post(p.s[1].fd, &r, 0, NIC_RECV, p.s[1].conn,
				  dst.va, size, 10, 0), 0);
	assert_int_equal(nic_cs_wait(p.s[0].fd, &s, WAIT_US, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(nic_cs_wait(p.s[1].fd, &r, WAIT_US, &status), 0);
	hltests_assert_bytes_equal(dst.ptr, src.ptr, size, "late receive");
	nic_cs_free(p.s[0].fd, &s);
	nic_cs_free(p.s[1].fd, &r);
	buf_unmap(p.s[0].fd, &src);
	buf_unmap(p.s[1].fd, &dst);
	pair_close(&p);
}

static void test_send_with_no_recv_times_out(void **state)
{
	struct hl_nic_cqe cqe;
	struct nic_cs s;
	struct buf src;
	uint32_t status;
	uint64_t t0;
	struct pair p;

	(void)state;
	pair_connect(&p);
	assert_int_equal(buf_map(p.s[0].fd, &src, PAGE), 0);
	t0 = hltests_now_ns();
	assert_int_equal(nic_post(p.s[0].fd, &s, 0, NIC_SEND, p.s[0].conn,
				  src.va, PAGE, 4, SHORT_TIMEOUT_S), 0);
	assert_int_equal(nic_cs_wait(p.s[0].fd, &s, WAIT_US, &status), -ETIMEDOUT);
	assert_int_equal(status, HL_WAIT_CS_STATUS_TIMEDOUT);
	assert_true(hltests_now_ns() - t0 < 30000000000ull);
	cq_take_one(p.s[0].fd, p.s[0].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_SEND, HL_NIC_CQE_STATUS_TIMEOUT,
		   p.s[0].conn, 4);
	assert_int_equal(conn_state(p.s[0].fd, p.s[0].conn), S_ERR);
	nic_cs_free(p.s[0].fd, &s);
	buf_unmap(p.s[0].fd, &src);
	pair_close(&p);
}

static void test_size_mismatch_fails_both(void **state)
{
	struct hl_nic_cqe cqe;
	struct buf src, dst;
	struct nic_cs s, r;
	uint32_t status;
	struct pair p;

	(void)state;
	pair_connect(&p);
	assert_int_equal(buf_map(p.s[0].fd, &src, 8 * KB), 0);
	assert_int_equal(buf_map(p.s[1].fd, &dst, 8 * KB), 0);
	memset(src.ptr, 0x11, 8 * KB);

	assert_int_equal(nic_post(p.s[1].fd, &r, 0, NIC_RECV, p.s[1].conn,
				  dst.va, 4 * KB, 21, 0), 0);
	assert_int_equal(nic_post(p.s[0].fd, &s, 0, NIC_SEND, p.s[0].conn,
				  src.va, 4 * KB + 1, 20, 0), 0);
	assert_int_equal(nic_cs_wait(p.s[0].fd, &s, WAIT_US, &status), -EIO);
	assert_int_equal(status, HL_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(nic_cs_wait(p.s[1].fd, &r, WAIT_US, &status), -EIO);
	assert_int_equal(status, HL_WAIT_CS_STATUS_ABORTED);

	cq_take_one(p.s[0].fd, p.s[0].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_SEND, HL_NIC_CQE_STATUS_LEN_ERR,
		   p.s[0].conn, 20);
	cq_take_one(p.s[1].fd, p.s[1].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_RECV, HL_NIC_CQE_STATUS_LEN_ERR,
		   p.s[1].conn, 21);
	assert_int_equal(dst.ptr[0], 0);
	assert_int_equal(conn_state(p.s[0].fd, p.s[0].conn), S_ERR);
	assert_int_equal(conn_state(p.s[1].fd, p.s[1].conn), S_ERR);

	/* ERR takes no work: flushed at once */
	assert_int_equal(nic_post(p.s[0].fd, &s, 0, NIC_SEND, p.s[0].conn,
				  src.va, 1, 22, 0), 0);
	assert_int_equal(nic_cs_wait(p.s[0].fd, &s, WAIT_US, &status), -EIO);
	cq_take_one(p.s[0].fd, p.s[0].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_SEND, HL_NIC_CQE_STATUS_FLUSHED,
		   p.s[0].conn, 22);
	nic_cs_free(p.s[0].fd, &s);
	nic_cs_free(p.s[1].fd, &r);
	buf_unmap(p.s[0].fd, &src);
	buf_unmap(p.s[1].fd, &dst);
	pair_close(&p);
}

static void test_psn_mismatch_fails_both(void **state)
{
	struct hl_nic_cqe cqe;
	struct conn_params cp;
	struct buf src, dst;
	struct nic_cs s, r;
	struct pair p;
	int i;

	(void)state;
	pair_open(&p);
	for (i = 0; i < 2; i++) {
		assert_int_equal(hlthunk_nic_cq_create(p.s[i].fd, 8,
						       &p.s[i].cq), 0);
		assert_int_equal(hlthunk_nic_alloc_conn(p.s[i].fd, p.s[i].port,
							&p.s[i].conn), 0);
	}
	for (i = 0; i < 2; i++) {
		pair_params(&p, i, &cp);
		cp.tx_psn = 5;
		cp.rx_psn = 100;	/* the peer sends from 5 */
		assert_int_equal(conn_connect(p.s[i].fd, p.s[i].conn, &cp), 0);
	}
	assert_int_equal(buf_map(p.s[0].fd, &src, PAGE), 0);
	assert_int_equal(buf_map(p.s[1].fd, &dst, PAGE), 0);
	assert_int_equal(nic_post(p.s[1].fd, &r, 0, NIC_RECV, p.s[1].conn,
				  dst.va, PAGE, 31, 0), 0);
	assert_int_equal(nic_post(p.s[0].fd, &s, 0, NIC_SEND, p.s[0].conn,
				  src.va, PAGE, 30, 0), 0);
	assert_int_equal(nic_cs_wait(p.s[0].fd, &s, WAIT_US, NULL), -EIO);
	assert_int_equal(nic_cs_wait(p.s[1].fd, &r, WAIT_US, NULL), -EIO);
	cq_take_one(p.s[0].fd, p.s[0].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_SEND, HL_NIC_CQE_STATUS_PSN_ERR,
		   p.s[0].conn, 30);
	assert_int_equal(cqe.psn, 5);
	cq_take_one(p.s[1].fd, p.s[1].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_RECV, HL_NIC_CQE_STATUS_PSN_ERR,
		   p.s[1].conn, 31);
	assert_int_equal(conn_state(p.s[0].fd, p.s[0].conn), S_ERR);
	assert_int_equal(conn_state(p.s[1].fd, p.s[1].conn), S_ERR);
	nic_cs_free(p.s[0].fd, &s);
	nic_cs_free(p.s[1].fd, &r);
	buf_unmap(p.s[0].fd, &src);
	buf_unmap(p.s[1].fd, &dst);
	pair_close(&p);
}

static void test_recv_wq_full(void **state)
{
	struct hl_nic_cqe cqe;
	struct conn_params cp;
	struct nic_cs r1, r2;
	struct buf dst;
	uint32_t conn;
	struct pair p;

	(void)state;
	pair_connect(&p);
	pair_params(&p, 1, &cp);
	cp.wq_size = 1;
	cp.remote_conn = FAR_CONN(9);
	assert_int_equal(hlthunk_nic_alloc_conn(p.s[1].fd, cp.port, &conn), 0);
	assert_int_equal(conn_connect(p.s[1].fd, conn, &cp), 0);
	assert_int_equal(buf_map(p.s[1].fd, &dst, PAGE), 0);

	assert_int_equal(nic_post(p.s[1].fd, &r1, 0, NIC_RECV, conn, dst.va,
				  PAGE, 1, SHORT_TIMEOUT_S), 0);
	usleep(200 * 1000);
	assert_int_equal(nic_post(p.s[1].fd, &r2, 1, NIC_RECV, conn, dst.va,
				  PAGE, 2, 0), 0);
	assert_int_equal(nic_cs_wait(p.s[1].fd, &r2, WAIT_US, NULL), -EIO);
	cq_take_one(p.s[1].fd, p.s[1].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_RECV, HL_NIC_CQE_STATUS_WQ_FULL, conn, 2);
	/* Refused work leaves the connection as it is */
	assert_int_equal(conn_state(p.s[1].fd, conn), S_RTS);

	/* The first one times out */
	assert_int_equal(nic_cs_wait(p.s[1].fd, &r1, WAIT_US, NULL), -ETIMEDOUT);
	cq_take_one(p.s[1].fd, p.s[1].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_RECV, HL_NIC_CQE_STATUS_TIMEOUT, conn, 1);
	nic_cs_free(p.s[1].fd, &r1);
	nic_cs_free(p.s[1].fd, &r2);
	buf_unmap(p.s[1].fd, &dst);
	pair_close(&p);
}

/*
 * A NIC_RECV whose send never comes, in a CS that asks for no limit
 * (timeout 0 with timeout_locked=0), ends at job_timeout_max: its fence,
 * which other drivers may wait for, signals in bounded time.
 */
static void test_recv_without_send_is_bounded(void **state)
{
	const char *pmax = "/sys/module/habanalabs/parameters/job_timeout_max";
	const char *plocked = "/sys/module/habanalabs/parameters/timeout_locked";
	char old_max[32], old_locked[32];
	struct hl_nic_cqe cqe;
	struct conn_params cp;
	struct timespec t0, t1;
	struct nic_cs r;
	struct buf dst;
	uint32_t conn;
	struct pair p;
	double dt;

	(void)state;
	assert_int_equal(hltests_read_file(pmax, old_max, sizeof(old_max)), 0);
	assert_int_equal(hltests_read_file(plocked, old_locked, sizeof(old_locked)), 0);
	assert_int_equal(hltests_write_file(pmax, "2"), 0);
	assert_int_equal(hltests_write_file(plocked, "0"), 0);
	pair_connect(&p);
	pair_params(&p, 1, &cp);
	cp.remote_conn = FAR_CONN(9);
	assert_int_equal(hlthunk_nic_alloc_conn(p.s[1].fd, cp.port, &conn), 0);
	assert_int_equal(conn_connect(p.s[1].fd, conn, &cp), 0);
	assert_int_equal(buf_map(p.s[1].fd, &dst, PAGE), 0);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(nic_post(p.s[1].fd, &r, 0, NIC_RECV, conn, dst.va,
				  PAGE, 1, 0), 0);
	assert_int_equal(nic_cs_wait(p.s[1].fd, &r, WAIT_US, NULL), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	dt = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	print_message("receive without a send ended after %.2f s\n", dt);
	assert_true(dt >= 1.5 && dt < 20);
	cq_take_one(p.s[1].fd, p.s[1].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_RECV, HL_NIC_CQE_STATUS_TIMEOUT, conn, 1);

	assert_int_equal(hltests_write_file(plocked, old_locked), 0);
	assert_int_equal(hltests_write_file(pmax, old_max), 0);
	nic_cs_free(p.s[1].fd, &r);
	buf_unmap(p.s[1].fd, &dst);
	pair_close(&p);
}

/*
 * A hard reset of device 1 while its connection is up and a receive
 * waits: the receive fails, the fd is dead (ENODEV), the peer's end of the
 * connection goes to ERR; a new open of device 1 connects and moves data.
 */
static void test_hard_reset_kills_connections(void **state)
{
	struct hltests_dram_buf d0, d1;
	uint8_t pattern[4096], back[4096];
	struct hl_nic_cqe cqe;
	struct nic_cs r, s;
	uint64_t st = SEED;
	struct pair p;
	int old;

	(void)state;
	pair_connect(&p);
	hltests_dram_map(p.s[1].fd, &d1, PAGE, false);
	assert_int_equal(nic_post(p.s[1].fd, &r, 1, NIC_RECV, p.s[1].conn,
				  d1.va, PAGE, 7, 0), 0);
	usleep(100 * 1000);

	assert_int_equal(hltests_write_file("/sys/class/habanalabs/hl1/hard_reset",
					    "1"), 0);
	old = p.s[1].fd;
	{
		struct hl_nic_query_conn_out q;

		assert_int_equal(hlthunk_nic_query_conn(old, p.s[1].conn, &q),
				 -ENODEV);
	}
	assert_int_equal(conn_state(p.s[0].fd, p.s[0].conn), S_ERR);
	/* The peer's CQ says why its later work fails, not a hang */
	assert_int_equal(nic_post(p.s[0].fd, &s, 2, NIC_SEND, p.s[0].conn,
				  d1.va, PAGE, 8, SHORT_TIMEOUT_S), 0);
	assert_int_equal(nic_cs_wait(p.s[0].fd, &s, WAIT_US, NULL), -EIO);
	nic_cs_free(p.s[0].fd, &s);
	fd_close(old);
	fd_close(p.s[0].fd);

	/* Both devices work again: connect anew and move data */
	pair_connect(&p);
	hltests_fill_random(&st, pattern, sizeof(pattern));
	hltests_dram_map(p.s[0].fd, &d0, PAGE, false);
	hltests_dram_map(p.s[1].fd, &d1, PAGE, false);
	write_dev(p.s[0].fd, d0.va, pattern, sizeof(pattern));
	assert_int_equal(nic_post(p.s[1].fd, &r, 1, NIC_RECV, p.s[1].conn,
				  d1.va, PAGE, 9, 0), 0);
	assert_int_equal(nic_post(p.s[0].fd, &s, 2, NIC_SEND, p.s[0].conn,
				  d0.va, PAGE, 10, 0), 0);
	assert_int_equal(nic_cs_wait(p.s[0].fd, &s, WAIT_US, NULL), 0);
	assert_int_equal(nic_cs_wait(p.s[1].fd, &r, WAIT_US, NULL), 0);
	hltests_read_device(p.s[1].fd, d1.va, back, sizeof(back));
	hltests_assert_bytes_equal(back, pattern, sizeof(back), "after the reset");
	cq_take_one(p.s[1].fd, p.s[1].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_RECV, HL_NIC_CQE_STATUS_SUCCESS,
		   p.s[1].conn, 9);
	nic_cs_free(p.s[0].fd, &s);
	nic_cs_free(p.s[1].fd, &r);
	hltests_dram_unmap(p.s[0].fd, &d0);
	hltests_dram_unmap(p.s[1].fd, &d1);
	pair_close(&p);
}

static void test_link_down_while_waiting(void **state)
{
	struct hl_nic_cqe cqe;
	struct buf src, dst;
	struct nic_cs s, r;
	uint64_t t0;
	struct pair p;

	(void)state;
	pair_connect(&p);
	assert_int_equal(buf_map(p.s[0].fd, &src, PAGE), 0);
	assert_int_equal(buf_map(p.s[1].fd, &dst, PAGE), 0);

	/* A send that waits for a receive never posted */
	assert_int_equal(nic_post(p.s[0].fd, &s, 0, NIC_SEND, p.s[0].conn,
				  src.va, PAGE, 40, 0), 0);
	usleep(200 * 1000);
	t0 = hltests_now_ns();
	assert_int_equal(set_link(1, p.s[1].port, 0), 0);
	assert_int_equal(nic_cs_wait(p.s[0].fd, &s, WAIT_US, NULL), -EIO);
	assert_true(hltests_now_ns() - t0 < 5000000000ull);
	cq_take_one(p.s[0].fd, p.s[0].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_SEND, HL_NIC_CQE_STATUS_LINK_DOWN,
		   p.s[0].conn, 40);

	/* A receive posted on a link that is down fails too */
	assert_int_equal(nic_post(p.s[1].fd, &r, 0, NIC_RECV, p.s[1].conn,
				  dst.va, PAGE, 41, 0), 0);
	assert_int_equal(nic_cs_wait(p.s[1].fd, &r, WAIT_US, NULL), -EIO);
	cq_take_one(p.s[1].fd, p.s[1].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_RECV, HL_NIC_CQE_STATUS_LINK_DOWN,
		   p.s[1].conn, 41);
	assert_int_equal(set_link(1, p.s[1].port, 1), 0);
	nic_cs_free(p.s[0].fd, &s);
	nic_cs_free(p.s[1].fd, &r);
	buf_unmap(p.s[0].fd, &src);
	buf_unmap(p.s[1].fd, &dst);
	pair_close(&p);
}

static void test_link_down_mid_transfer(void **state)
{
	const uint64_t size = 256 * MB;
	struct hltests_dram_buf d0;
	struct hl_nic_cqe cqe;
	struct nic_cs s, r;
	uint32_t status;
	uint64_t t0;
	struct pair p;
	struct buf b1;

	(void)state;
	pair_connect(&p);
	hltests_dram_map(p.s[0].fd, &d0, size, false);
	mark_head_and_tail(p.s[0].fd, d0.va, size);
	/* Into host memory, which this process watches as it fills */
	assert_int_equal(buf_map(p.s[1].fd, &b1, size), 0);

	assert_int_equal(nic_post(p.s[1].fd, &r, 0, NIC_RECV, p.s[1].conn,
				  b1.va, size, 51, 0), 0);
	assert_int_equal(nic_post(p.s[0].fd, &s, 0, NIC_SEND, p.s[0].conn,
				  d0.va, size, 50, 0), 0);
	wait_mid_message(&b1, size);
	/* Still on the wire */
	assert_int_equal(nic_cs_wait(p.s[0].fd, &s, 0, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_BUSY);
	t0 = hltests_now_ns();
	assert_int_equal(set_link(0, p.s[0].port, 0), 0);
	assert_int_equal(nic_cs_wait(p.s[0].fd, &s, WAIT_US, &status), -EIO);
	assert_int_equal(nic_cs_wait(p.s[1].fd, &r, WAIT_US, &status), -EIO);
	assert_true(hltests_now_ns() - t0 < 5000000000ull);
	assert_int_equal(set_link(0, p.s[0].port, 1), 0);

	cq_take_one(p.s[0].fd, p.s[0].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_SEND, HL_NIC_CQE_STATUS_LINK_DOWN,
		   p.s[0].conn, 50);
	assert_true(cqe.byte_len > 0);
	assert_true(cqe.byte_len < size);
	cq_take_one(p.s[1].fd, p.s[1].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_RECV, HL_NIC_CQE_STATUS_LINK_DOWN,
		   p.s[1].conn, 51);
	assert_true(cqe.byte_len < size);
	nic_cs_free(p.s[0].fd, &s);
	nic_cs_free(p.s[1].fd, &r);
	hltests_dram_unmap(p.s[0].fd, &d0);
	buf_unmap(p.s[1].fd, &b1);
	pair_close(&p);
}

static void test_destroyed_connection(void **state)
{
	struct hl_nic_cqe cqe;
	struct buf src, dst;
	struct nic_cs s, r;
	uint32_t status;
	struct pair p;

	(void)state;
	pair_connect(&p);
	assert_int_equal(buf_map(p.s[0].fd, &src, PAGE), 0);
	assert_int_equal(buf_map(p.s[1].fd, &dst, PAGE), 0);

	/* A waiting receive is flushed by DESTROY_CONN; its CQ still hears */
	assert_int_equal(nic_post(p.s[1].fd, &r, 0, NIC_RECV, p.s[1].conn,
				  dst.va, PAGE, 60, 0), 0);
	usleep(200 * 1000);
	assert_int_equal(hlthunk_nic_destroy_conn(p.s[1].fd, p.s[1].conn), 0);
	assert_int_equal(nic_cs_wait(p.s[1].fd, &r, WAIT_US, &status), -EIO);
	cq_take_one(p.s[1].fd, p.s[1].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_RECV, HL_NIC_CQE_STATUS_FLUSHED,
		   p.s[1].conn, 60);
	assert_int_equal(hlthunk_nic_cq_destroy(p.s[1].fd, p.s[1].cq), 0);
	nic_cs_free(p.s[1].fd, &r);

	/* A send to the destroyed connection finds no receive: times out */
	assert_int_equal(nic_post(p.s[0].fd, &s, 0, NIC_SEND, p.s[0].conn,
				  src.va, PAGE, 61, SHORT_TIMEOUT_S), 0);
	assert_int_equal(nic_cs_wait(p.s[0].fd, &s, WAIT_US, &status), -ETIMEDOUT);
	cq_take_one(p.s[0].fd, p.s[0].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_SEND, HL_NIC_CQE_STATUS_TIMEOUT,
		   p.s[0].conn, 61);
	nic_cs_free(p.s[0].fd, &s);

	/* A packet naming a connection that no longer exists is malformed */
	assert_int_equal(nic_post(p.s[1].fd, &r, 0, NIC_RECV, p.s[1].conn,
				  dst.va, PAGE, 62, 0), 0);
	assert_int_equal(nic_cs_wait(p.s[1].fd, &r, WAIT_US, &status), -EIO);
	assert_int_equal(status, HL_WAIT_CS_STATUS_ABORTED);
	nic_cs_free(p.s[1].fd, &r);

	/* Destroyed mid-wait on the sender's side too */
	assert_int_equal(hlthunk_nic_modify_conn(p.s[0].fd, p.s[0].conn,
						 S_RESET), 0);
	{
		struct conn_params cp;

		pair_params(&p, 0, &cp);
		cp.remote_conn = FAR_CONN(1000);
		assert_int_equal(conn_connect(p.s[0].fd, p.s[0].conn, &cp), 0);
	}
	assert_int_equal(nic_post(p.s[0].fd, &s, 0, NIC_SEND, p.s[0].conn,
				  src.va, PAGE, 63, 0), 0);
	usleep(200 * 1000);
	assert_int_equal(hlthunk_nic_destroy_conn(p.s[0].fd, p.s[0].conn), 0);
	assert_int_equal(nic_cs_wait(p.s[0].fd, &s, WAIT_US, &status), -EIO);
	cq_take_one(p.s[0].fd, p.s[0].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_SEND, HL_NIC_CQE_STATUS_FLUSHED,
		   p.s[0].conn, 63);
	nic_cs_free(p.s[0].fd, &s);
	buf_unmap(p.s[0].fd, &src);
	buf_unmap(p.s[1].fd, &dst);
	pair_close(&p);
}

static void test_unmapped_addresses_fault(void **state)
{
	struct hl_info_page_fault_event fault;
	struct hltests_dram_buf d;
	struct hl_nic_cqe cqe;
	struct buf src, dst;
	struct nic_cs s, r;
	uint64_t gone;
	struct pair p;

	(void)state;
	pair_connect(&p);
	/* Two pages at the top of the host range: nothing is mapped above */
	{
		struct hl_info_hw_ip_info hw;
		void *ptr = NULL;

		assert_int_equal(hlthunk_get_hw_ip_info_ext(p.s[0].fd, &hw), 0);
		assert_int_equal(posix_memalign(&ptr, PAGE, 2 * PAGE), 0);
		memset(ptr, 0x3c, 2 * PAGE);
		src.ptr = ptr;
		src.size = 2 * PAGE;
		src.va = hlthunk_host_memory_map_flags(p.s[0].fd, ptr,
						       hw.host_va_end - 4 * PAGE,
						       2 * PAGE,
						       HL_MEM_FORCE_HINT);
		assert_int_equal(src.va, hw.host_va_end - 4 * PAGE);
	}
	assert_int_equal(buf_map(p.s[1].fd, &dst, 2 * PAGE), 0);

	/* The receiver's buffer is not mapped (any more) */
	hltests_dram_map(p.s[1].fd, &d, 2 * MB, false);
	gone = d.va;
	hltests_dram_unmap(p.s[1].fd, &d);
	assert_int_equal(nic_post(p.s[1].fd, &r, 0, NIC_RECV, p.s[1].conn,
				  gone + 100, PAGE, 71, 0), 0);
	assert_int_equal(nic_post(p.s[0].fd, &s, 0, NIC_SEND, p.s[0].conn,
				  src.va, PAGE, 70, 0), 0);
	assert_int_equal(nic_cs_wait(p.s[0].fd, &s, WAIT_US, NULL), -EIO);
	assert_int_equal(nic_cs_wait(p.s[1].fd, &r, WAIT_US, NULL), -EIO);
	cq_take_one(p.s[0].fd, p.s[0].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_SEND, HL_NIC_CQE_STATUS_REMOTE_FAULT,
		   p.s[0].conn, 70);
	cq_take_one(p.s[1].fd, p.s[1].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_RECV, HL_NIC_CQE_STATUS_LOCAL_FAULT,
		   p.s[1].conn, 71);
	assert_int_equal(hlthunk_get_page_fault_event(p.s[1].fd, &fault), 0);
	assert_true(fault.timestamp > 0);
	assert_int_equal(fault.addr, gone + 100);
	assert_int_equal(fault.is_write, 1);
	assert_int_equal(fault.engine_id, 0);
	nic_cs_free(p.s[0].fd, &s);
	nic_cs_free(p.s[1].fd, &r);

	/* The sender's buffer: reconnect (both in ERR), then fault locally */
	{
		struct conn_params cp;
		int i;

		for (i = 0; i < 2; i++) {
			assert_int_equal(hlthunk_nic_modify_conn(p.s[i].fd,
					 p.s[i].conn, S_RESET), 0);
			pair_params(&p, i, &cp);
			assert_int_equal(conn_connect(p.s[i].fd, p.s[i].conn,
						      &cp), 0);
		}
	}
	assert_int_equal(nic_post(p.s[1].fd, &r, 2, NIC_RECV, p.s[1].conn,
				  dst.va, 2 * PAGE, 73, 0), 0);
	/* Crosses from a mapped page into an unmapped one */
	assert_int_equal(nic_post(p.s[0].fd, &s, 3, NIC_SEND, p.s[0].conn,
				  src.va + PAGE + 8, 2 * PAGE, 72, 0), 0);
	assert_int_equal(nic_cs_wait(p.s[0].fd, &s, WAIT_US, NULL), -EIO);
	assert_int_equal(nic_cs_wait(p.s[1].fd, &r, WAIT_US, NULL), -EIO);
	cq_take_one(p.s[0].fd, p.s[0].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_SEND, HL_NIC_CQE_STATUS_LOCAL_FAULT,
		   p.s[0].conn, 72);
	assert_int_equal(cqe.byte_len, PAGE - 8);
	cq_take_one(p.s[1].fd, p.s[1].cq, &cqe);
	assert_cqe(&cqe, HL_NIC_CQE_OP_RECV, HL_NIC_CQE_STATUS_REMOTE_ABORT,
		   p.s[1].conn, 73);
	assert_int_equal(hlthunk_get_page_fault_event(p.s[0].fd, &fault), 0);
	assert_int_equal(fault.addr, src.va + 2 * PAGE);
	assert_int_equal(fault.is_write, 0);
	assert_int_equal(fault.engine_id, 3);
	nic_cs_free(p.s[0].fd, &s);
	nic_cs_free(p.s[1].fd, &r);
	buf_unmap(p.s[0].fd, &src);
	buf_unmap(p.s[1].fd, &dst);
	pair_close(&p);
}

const struct CMUnitTest nic_send_tests[] = {
	NIC_TEST2(test_exchange_dram_and_host),
	NIC_TEST2(test_messages_in_order_with_psns),
	NIC_TEST2(test_send_before_recv_waits),
	NIC_TEST2(test_send_with_no_recv_times_out),
	NIC_TEST2(test_size_mismatch_fails_both),
	NIC_TEST2(test_psn_mismatch_fails_both),
	NIC_TEST2(test_recv_wq_full),
	NIC_TEST2(test_recv_without_send_is_bounded),
	NIC_TEST2(test_hard_reset_kills_connections),
	NIC_TEST2(test_link_down_while_waiting),
	NIC_TEST2(test_link_down_mid_transfer),
	NIC_TEST2(test_destroyed_connection),
	NIC_TEST2(test_unmapped_addresses_fault),
};

const size_t nic_send_tests_num =
	sizeof(nic_send_tests) / sizeof(nic_send_tests[0]);

/* SPDX-License-Identifier: MIT */
/*
 * The nic suite's fixtures (tests/nic/nic_*.c, one binary tests/bin/nic):
 * two devices' ports and connections, command submissions of NIC packets,
 * memory regions and one-sided writes. The helpers that return 0 or -errno
 * use no cmocka and serve in forked children too; the others fail the test.
 */
#ifndef HLTESTS_NIC_H
#define HLTESTS_NIC_H

#include "hltests.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define KB		1024ull
#define MB		(1024ull * KB)
#define PAGE		4096ull
#define WAIT_US		(120ull * 1000 * 1000)
#define SEED		0x6e1c5eed0badf00dull

/* CS job timeout (s) of the tests that expect a wait to run out */
#define SHORT_TIMEOUT_S	2

/* ------------------------------------------------------------------------
 * Helpers that return 0 or -errno (usable in a forked child: no cmocka)
 */

/*
 * Device fds and child processes a test opened: the teardown closes and
 * kills what a failed test left behind, so the next test finds the devices
 * free.
 */
#define MAX_TRACKED	8
extern int tracked_fds[MAX_TRACKED];
extern pid_t tracked_pid;

int fd_track(int fd);

void fd_close(int fd);

int nic_teardown(void **state);

int nic_teardown_state(void **state);

/**
 * struct buf - page-aligned host memory mapped to a device.
 * @ptr: CPU address.
 * @va: device VA.
 * @size: bytes.
 */
struct buf {
	uint8_t *ptr;
	uint64_t va;
	uint64_t size;
};

int buf_map(int fd, struct buf *b, uint64_t size);

void buf_unmap(int fd, struct buf *b);

#define NIC_CS_MAX_JOBS	4

/**
 * struct nic_cs - a command submission of one-packet jobs.
 * @n: number of jobs.
 * @cb: each job's command buffer.
 * @queue: each job's queue.
 * @len: each job's command-buffer size.
 * @seq: the sequence number once submitted.
 */
struct nic_cs {
	int n;
	struct buf cb[NIC_CS_MAX_JOBS];
	uint32_t queue[NIC_CS_MAX_JOBS];
	uint32_t len[NIC_CS_MAX_JOBS];
	uint64_t seq;
};

enum nic_op { NIC_SEND, NIC_RECV };

int nic_cs_add(int fd, struct nic_cs *cs, uint32_t queue,
	       enum nic_op op, uint32_t conn, uint64_t addr,
	       uint64_t size, uint64_t wr_id);

int nic_cs_submit(int fd, struct nic_cs *cs, uint32_t timeout_s);

/* Wait for the CS; return 0 (COMPLETED), -EIO (ABORTED) or another -errno */
int nic_cs_wait(int fd, struct nic_cs *cs, uint64_t timeout_us,
		uint32_t *status);

void nic_cs_free(int fd, struct nic_cs *cs);

/* One job, submitted: 0 or -errno */
int nic_post(int fd, struct nic_cs *cs, uint32_t queue, enum nic_op op,
	     uint32_t conn, uint64_t addr, uint64_t size,
	     uint64_t wr_id, uint32_t timeout_s);

/* The port of @fd's device cabled to device @peer_module_id, link up */
int nic_port_to(int fd, uint32_t peer_module_id, uint32_t *port,
		uint64_t *peer_addr);

int module_id_of(int fd, uint32_t *module_id);

/**
 * struct conn_params - one side's view of a connection being set up.
 * @port: local port.
 * @remote_addr: the peer port's address.
 * @remote_conn: the peer connection.
 * @tx_psn: first PSN sent.
 * @rx_psn: first PSN expected.
 * @mtu: MTU.
 * @wq_size: both work-queue sizes.
 * @send_cq: CQ of the sends (0: none).
 * @recv_cq: CQ of the receives (0: none).
 */
struct conn_params {
	uint32_t port;
	uint64_t remote_addr;
	uint32_t remote_conn;
	uint32_t tx_psn;
	uint32_t rx_psn;
	uint32_t mtu;
	uint32_t wq_size;
	uint32_t send_cq;
	uint32_t recv_cq;
};

void res_ctx_of(const struct conn_params *p, uint32_t conn,
		struct hl_nic_res_conn_ctx_in *res);

void req_ctx_of(const struct conn_params *p, uint32_t conn,
		struct hl_nic_req_conn_ctx_in *req);

/* RESET -> INIT -> RTR -> RTS */
int conn_connect(int fd, uint32_t conn, const struct conn_params *p);

uint32_t conn_state(int fd, uint32_t conn);

/*
 * A well-formed connection ID (generation 1, slot @slot) that names no
 * connection of the peer: IDs carry their context's generation, never 1
 * for long
 */
#define FAR_CONN(slot)	((1u << HL_NIC_CONN_ID_SLOT_BITS) | (slot))

/* Fill from a PRNG seeded with @seed (same bytes on both sides of a fork) */
void fill_seeded(uint8_t *p, uint64_t n, uint64_t seed);

/* ------------------------------------------------------------------------
 * Two devices, one process: the shared set-up
 */

/**
 * struct side - one device of a pair.
 * @fd: its compute node.
 * @idx: its /dev/hlN index.
 * @module_id: its module id.
 * @port: the port cabled to the other device.
 * @peer_addr: the other device's port address.
 * @conn: a connection on @port.
 * @cq: a CQ named by @conn's contexts (both directions).
 */
struct side {
	int fd;
	int idx;
	uint32_t module_id;
	uint32_t port;
	uint64_t peer_addr;
	uint32_t conn;
	uint32_t cq;
};

/**
 * struct pair - devices 0 and 1, connected.
 * @s: the two sides.
 */
struct pair {
	struct side s[2];
};

void side_open(struct side *s, int idx);

/* Open both devices and find the ports that link them */
void pair_open(struct pair *p);

void pair_params(struct pair *p, int i, struct conn_params *cp);

/* pair_open, a CQ and a connection on each side, both in RTS */
void pair_connect(struct pair *p);

void pair_close(struct pair *p);

/* Poll exactly one entry of @fd's CQ @cq, consume it and return it */
void cq_take_one(int fd, uint32_t cq, struct hl_nic_cqe *cqe);

void assert_cqe(const struct hl_nic_cqe *cqe, uint32_t opcode,
		uint32_t status, uint32_t conn, uint64_t wr_id);

char *debugfs_link_path(int idx, uint32_t port, char *path, size_t n);

int set_link(int idx, uint32_t port, int up);

/* A raw HL_IOCTL_NIC: 0 or -errno */
int nic_raw(int fd, struct hl_nic_args *args);

/* ------------------------------------------------------------------------
 * Used by several of the suite's files: states, the data path's marks,
 * memory regions and one-sided writes
 */

/* The connection states, short */
#define S_RESET	HL_NIC_CONN_STATE_RESET
#define S_INIT	HL_NIC_CONN_STATE_INIT
#define S_RTR	HL_NIC_CONN_STATE_RTR
#define S_RTS	HL_NIC_CONN_STATE_RTS
#define S_ERR	HL_NIC_CONN_STATE_ERR

/* Fill device memory at @va of @fd with @n bytes of @data */
void write_dev(int fd, uint64_t va, const uint8_t *data, uint64_t n);

/*
 * Mark the first and last page of @size bytes at device VA @va (sent from
 * @fd) so that a receiver's host buffer shows the message landing.
 */
void mark_head_and_tail(int fd, uint64_t va, uint64_t size);

/* Wait until the head of a marked message is in @b and its tail is not */
void wait_mid_message(const struct buf *b, uint64_t size);

bool all_zero(const uint8_t *p, uint64_t n);

/* A region's access: local write only, or remote write too */
#define ACC_LW	HL_NIC_ACCESS_LOCAL_WRITE
#define ACC_RW	(HL_NIC_ACCESS_LOCAL_WRITE | HL_NIC_ACCESS_REMOTE_WRITE)

/*
 * REG_MR for connection @conn (0: local only): 0 or -errno; the keys in
 * *@lkey and *@rkey
 */
int mr_reg_for(int fd, uint64_t addr, uint64_t size, uint64_t iova,
	       uint32_t access, uint32_t conn, uint32_t *lkey, uint32_t *rkey);

/* REG_MR of a local-only region */
int mr_reg(int fd, uint64_t addr, uint64_t size, uint64_t iova,
	   uint32_t access, uint32_t *lkey, uint32_t *rkey);

int mr_dereg(int fd, uint32_t lkey);

/**
 * struct wr_args - an HL_PKT_NIC_WRITE(_IMM).
 * @imm: WRITE_IMM.
 * @conn: the connection.
 * @laddr: the source (the lkey's region's iova space).
 * @raddr: the destination (the rkey's region's iova space).
 * @size: bytes.
 * @wr_id: the tag.
 * @lkey: local key.
 * @rkey: remote key.
 * @imm_data: the immediate value.
 */
struct wr_args {
	int imm;
	uint32_t conn;
	uint64_t laddr;
	uint64_t raddr;
	uint64_t size;
	uint64_t wr_id;
	uint32_t lkey;
	uint32_t rkey;
	uint32_t imm_data;
};

/* Submit one WRITE job on @queue: 0 or -errno */
int nic_post_write(int fd, struct nic_cs *cs, uint32_t queue,
		   const struct wr_args *w, uint32_t timeout_s);

/* Run a WRITE to its end: the CS wait's result */
int run_write(int fd, const struct wr_args *w);

/* ------------------------------------------------------------------------
 * The suite: each tests/nic/nic_<concern>.c holds its tests and a table of
 * them; tests/nic/nic.c runs the tables in this order as one group "nic"
 */

#define NIC_TEST(f) cmocka_unit_test_setup_teardown(f, hltests_setup, \
						    nic_teardown_state)
#define NIC_TEST2(f) cmocka_unit_test_teardown(f, nic_teardown)

extern const struct CMUnitTest nic_conn_tests[];
extern const size_t nic_conn_tests_num;
extern const struct CMUnitTest nic_cq_tests[];
extern const size_t nic_cq_tests_num;
extern const struct CMUnitTest nic_send_tests[];
extern const size_t nic_send_tests_num;
extern const struct CMUnitTest nic_owners_tests[];
extern const size_t nic_owners_tests_num;
extern const struct CMUnitTest nic_mr_tests[];
extern const size_t nic_mr_tests_num;
extern const struct CMUnitTest nic_review_tests[];
extern const size_t nic_review_tests_num;

#endif /* HLTESTS_NIC_H */

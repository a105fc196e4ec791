// SPDX-License-Identifier: MIT
/*
 * nic, connections: the NIC ports (HL_INFO_NIC_PORTS) and their links,
 * connection set-up through HL_IOCTL_NIC (allocation, the requester's and
 * responder's contexts, the QP state machine RESET -> INIT -> RTR -> RTS and
 * ERR), and the errnos of the ioctl's arguments.
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
 * INFO
 */

static void test_info_reports_ports_and_links(void **state)
{
	struct hl_info_nic_ports info[2], ctl;
	struct hl_info_hw_ip_info hw;
	uint32_t i, up = 0, addr_seen;
	struct pair p;
	int cfd;

	(void)state;
	pair_open(&p);
	for (i = 0; i < 2; i++)
		assert_int_equal(hlthunk_get_nic_ports_info(p.s[i].fd,
							    &info[i]), 0);

	/* INFO agrees with HW_IP_INFO and works on the control node */
	assert_int_equal(hlthunk_get_hw_ip_info_ext(p.s[0].fd, &hw), 0);
	assert_int_equal(info[0].num_ports, hw.num_nic_ports);
	assert_true(info[0].num_ports >= 3);
	assert_true(info[0].num_ports <= HL_INFO_NIC_MAX_PORTS);
	cfd = hltests_open_node(0, 1);
	assert_true(cfd >= 0);
	assert_int_equal(hlthunk_get_nic_ports_info(cfd, &ctl), 0);
	assert_memory_equal(&ctl, &info[0], sizeof(ctl));
	close(cfd);

	for (i = 0; i < info[0].num_ports; i++) {
		struct hl_info_nic_port *pi = &info[0].ports[i];
		uint32_t j;

		assert_int_equal(pi->port, i);
		assert_int_equal(pi->admin_up, 1);
		assert_int_equal(pi->addr >> 48, 0);
		assert_int_not_equal(pi->addr, 0);
		/* Addresses are unique, also across devices */
		for (j = 0; j < info[0].num_ports; j++) {
			if (j != i)
				assert_int_not_equal(pi->addr,
						     info[0].ports[j].addr);
			assert_int_not_equal(pi->addr, info[1].ports[j].addr);
		}
		if (!pi->cabled) {
			assert_int_equal(pi->link_up, 0);
			assert_int_equal(pi->peer_addr, 0);
			continue;
		}
		assert_int_not_equal(pi->peer_module_id, p.s[0].module_id);
		if (pi->link_up)
			assert_int_equal(pi->peer_present, 1);
		if (pi->peer_module_id != p.s[1].module_id)
			continue;

		/* The other end says the same, and the link is up */
		up++;
		assert_int_equal(pi->link_up, 1);
		assert_int_equal(pi->peer_present, 1);
		addr_seen = pi->peer_port;
		assert_true(addr_seen < info[1].num_ports);
		assert_int_equal(info[1].ports[addr_seen].addr, pi->peer_addr);
		assert_int_equal(info[1].ports[addr_seen].peer_addr, pi->addr);
		assert_int_equal(info[1].ports[addr_seen].peer_module_id,
				 p.s[0].module_id);
		assert_int_equal(info[1].ports[addr_seen].peer_port, i);
		assert_int_equal(info[1].ports[addr_seen].link_up, 1);
	}
	/* Default cabling: all-to-all, one port per peer device */
	assert_int_equal(up, 1);
	pair_close(&p);
}

static void test_info_link_down_through_debugfs(void **state)
{
	struct hl_info_nic_ports info;
	struct pair p;

	(void)state;
	pair_open(&p);
	assert_int_equal(set_link(0, p.s[0].port, 0), 0);

	/* Both ends see it */
	assert_int_equal(hlthunk_get_nic_ports_info(p.s[0].fd, &info), 0);
	assert_int_equal(info.ports[p.s[0].port].admin_up, 0);
	assert_int_equal(info.ports[p.s[0].port].link_up, 0);
	assert_int_equal(info.ports[p.s[0].port].cabled, 1);
	assert_int_equal(hlthunk_get_nic_ports_info(p.s[1].fd, &info), 0);
	assert_int_equal(info.ports[p.s[1].port].admin_up, 1);
	assert_int_equal(info.ports[p.s[1].port].link_up, 0);

	assert_int_equal(set_link(0, p.s[0].port, 1), 0);
	assert_int_equal(hlthunk_get_nic_ports_info(p.s[1].fd, &info), 0);
	assert_int_equal(info.ports[p.s[1].port].link_up, 1);
	pair_close(&p);
}

static void test_info_short_buffer_truncates(void **state)
{
	struct hl_info_nic_ports *info = calloc(1, sizeof(*info) + 64);
	struct hl_info_args args;
	int fd;

	(void)state;
	assert_non_null(info);
	fd = hltests_open_node(0, 1);
	assert_true(fd >= 0);
	memset(info, 0xa5, sizeof(*info) + 64);
	memset(&args, 0, sizeof(args));
	args.op = HL_INFO_NIC_PORTS;
	args.return_pointer = (uintptr_t)info;
	args.return_size = sizeof(uint32_t);
	assert_int_equal(hlthunk_get_info(fd, &args), 0);
	assert_true(info->num_ports > 0);
	assert_int_equal(info->pad, 0xa5a5a5a5);
	close(fd);
	free(info);
}

/* ------------------------------------------------------------------------
 * Connection set-up: the state machine and the errnos
 */

enum sm_op {
	SM_INIT, SM_SET_RES, SM_SET_REQ, SM_ERR, SM_RESET, SM_TO_RTR,
	SM_TO_RTS, SM_TO_BAD, SM_NUM_OPS
};

static const char * const sm_op_name[SM_NUM_OPS] = {
	"MODIFY(INIT)", "SET_RES_CONN_CTX", "SET_REQ_CONN_CTX", "MODIFY(ERR)",
	"MODIFY(RESET)", "MODIFY(RTR)", "MODIFY(RTS)", "MODIFY(99)",
};

#define S_NUM	5

#define BAD	UINT32_MAX	/* -EINVAL, state unchanged */

/* The state after op from state, or BAD for an illegal transition */
static const uint32_t sm_table[S_NUM][SM_NUM_OPS] = {
	/*	     INIT    RES    REQ    ERR    RESET    RTR  RTS  99 */
	[S_RESET] = { S_INIT, BAD,   BAD,   S_ERR, S_RESET, BAD, BAD, BAD },
	[S_INIT] =  { BAD,    S_RTR, BAD,   S_ERR, S_RESET, BAD, BAD, BAD },
	[S_RTR] =   { BAD,    BAD,   S_RTS, S_ERR, S_RESET, BAD, BAD, BAD },
	[S_RTS] =   { BAD,    BAD,   BAD,   S_ERR, S_RESET, BAD, BAD, BAD },
	[S_ERR] =   { BAD,    BAD,   BAD,   S_ERR, S_RESET, BAD, BAD, BAD },
};

static int sm_apply(int fd, uint32_t conn, const struct conn_params *cp,
		    enum sm_op op)
{
	struct hl_nic_res_conn_ctx_in res;
	struct hl_nic_req_conn_ctx_in req;

	switch (op) {
	case SM_INIT:
		return hlthunk_nic_modify_conn(fd, conn, S_INIT);
	case SM_SET_RES:
		res_ctx_of(cp, conn, &res);
		return hlthunk_nic_set_res_conn_ctx(fd, &res);
	case SM_SET_REQ:
		req_ctx_of(cp, conn, &req);
		return hlthunk_nic_set_req_conn_ctx(fd, &req);
	case SM_ERR:
		return hlthunk_nic_modify_conn(fd, conn, S_ERR);
	case SM_RESET:
		return hlthunk_nic_modify_conn(fd, conn, S_RESET);
	case SM_TO_RTR:
		return hlthunk_nic_modify_conn(fd, conn, S_RTR);
	case SM_TO_RTS:
		return hlthunk_nic_modify_conn(fd, conn, S_RTS);
	default:
		return hlthunk_nic_modify_conn(fd, conn, 99);
	}
}

/* A new connection brought to @state through legal transitions */
static uint32_t sm_conn_in(int fd, const struct conn_params *cp,
			   uint32_t state)
{
	static const enum sm_op path[] = { SM_INIT, SM_SET_RES, SM_SET_REQ };
	uint32_t conn, i;

	assert_int_equal(hlthunk_nic_alloc_conn(fd, cp->port, &conn), 0);
	assert_int_equal(conn_state(fd, conn), S_RESET);
	if (state == S_ERR) {
		for (i = 0; i < 3; i++)
			assert_int_equal(sm_apply(fd, conn, cp, path[i]), 0);
		assert_int_equal(sm_apply(fd, conn, cp, SM_ERR), 0);
	} else {
		for (i = 0; i < state; i++)
			assert_int_equal(sm_apply(fd, conn, cp, path[i]), 0);
	}
	assert_int_equal(conn_state(fd, conn), state);
	return conn;
}

static void test_conn_state_machine(void **state)
{
	static const char * const names[S_NUM] = {
		"RESET", "INIT", "RTR", "RTS", "ERR"
	};
	struct conn_params cp;
	uint32_t from, conn, expect, got;
	struct pair p;
	int op, rc, checked = 0;

	(void)state;
	pair_open(&p);
	memset(&cp, 0, sizeof(cp));
	cp.port = p.s[0].port;
	cp.remote_addr = p.s[0].peer_addr;
	cp.remote_conn = FAR_CONN(7);
	cp.mtu = HL_NIC_MTU_4096;
	cp.wq_size = 4;

	for (from = 0; from < S_NUM; from++) {
		for (op = 0; op < SM_NUM_OPS; op++) {
			conn = sm_conn_in(p.s[0].fd, &cp, from);
			expect = sm_table[from][op];
			rc = sm_apply(p.s[0].fd, conn, &cp, op);
			got = conn_state(p.s[0].fd, conn);
			if (rc != (expect == BAD ? -EINVAL : 0) ||
			    got != (expect == BAD ? from : expect))
				print_error("%s from %s: rc %d, state %u\n",
					    sm_op_name[op], names[from], rc, got);
			assert_int_equal(rc, expect == BAD ? -EINVAL : 0);
			assert_int_equal(got, expect == BAD ? from : expect);
			assert_int_equal(hlthunk_nic_destroy_conn(p.s[0].fd,
								  conn), 0);
			checked++;
		}
	}
	assert_int_equal(checked, S_NUM * SM_NUM_OPS);

	/* RESET forgets the contexts: the connection can be set up again */
	conn = sm_conn_in(p.s[0].fd, &cp, S_RTS);
	assert_int_equal(sm_apply(p.s[0].fd, conn, &cp, SM_RESET), 0);
	{
		struct hl_nic_query_conn_out q;

		assert_int_equal(hlthunk_nic_query_conn(p.s[0].fd, conn, &q), 0);
		assert_int_equal(q.remote_addr, 0);
		assert_int_equal(q.remote_conn_id, 0);
		assert_int_equal(q.port, cp.port);
	}
	assert_int_equal(sm_apply(p.s[0].fd, conn, &cp, SM_INIT), 0);
	assert_int_equal(sm_apply(p.s[0].fd, conn, &cp, SM_SET_RES), 0);
	assert_int_equal(sm_apply(p.s[0].fd, conn, &cp, SM_SET_REQ), 0);
	assert_int_equal(conn_state(p.s[0].fd, conn), S_RTS);
	pair_close(&p);
}

static void test_conn_query_reports_context(void **state)
{
	struct hl_nic_query_conn_out q;
	struct conn_params cp;
	uint32_t conn;
	struct pair p;

	(void)state;
	pair_open(&p);
	memset(&cp, 0, sizeof(cp));
	cp.port = p.s[0].port;
	cp.remote_addr = p.s[0].peer_addr;
	cp.remote_conn = FAR_CONN(1023);
	cp.tx_psn = 0xabcdef;
	cp.rx_psn = 0x123456;
	cp.mtu = HL_NIC_MTU_256;
	cp.wq_size = HL_NIC_MAX_WQ_SIZE;
	assert_int_equal(hlthunk_nic_alloc_conn(p.s[0].fd, cp.port, &conn), 0);
	assert_int_equal(conn_connect(p.s[0].fd, conn, &cp), 0);
	assert_int_equal(hlthunk_nic_query_conn(p.s[0].fd, conn, &q), 0);
	assert_int_equal(q.state, S_RTS);
	assert_int_equal(q.port, cp.port);
	assert_int_equal(q.remote_addr, cp.remote_addr);
	assert_int_equal(q.remote_conn_id, FAR_CONN(1023));
	assert_int_equal(q.sq_psn, 0xabcdef);
	assert_int_equal(q.rq_psn, 0x123456);
	assert_int_equal(q.pad, 0);
	pair_close(&p);
}

/**
 * struct ctx_case - one invalid connection context.
 * @what: what is wrong.
 * @req: SET_REQ_CONN_CTX (from RTR), else SET_RES_CONN_CTX (from INIT).
 * @errno_: the expected errno.
 * @mutate: makes the valid context invalid.
 */
struct ctx_case {
	const char *what;
	int req;
	int errno_;
	void (*mutate)(struct conn_params *cp, struct hl_nic_res_conn_ctx_in *res,
		       struct hl_nic_req_conn_ctx_in *req, const struct pair *p);
};

#define UNUSED __attribute__((unused))

#define MUT(name) static void name(UNUSED struct conn_params *cp, \
		UNUSED struct hl_nic_res_conn_ctx_in *res, \
		UNUSED struct hl_nic_req_conn_ctx_in *req, \
		UNUSED const struct pair *p)

MUT(m_res_unknown_conn) { res->conn_id = 1000; }
MUT(m_res_conn_zero) { res->conn_id = 0; }
MUT(m_res_conn_big) { res->conn_id = 5000; }
MUT(m_res_port) { res->port = (res->port + 1) % 8; }
MUT(m_res_port_range) { res->port = 200; }
MUT(m_res_rconn_zero) { res->remote_conn_id = 0; }
MUT(m_res_rconn_big) { res->remote_conn_id = HL_NIC_MAX_CONN_ID + 1; }
MUT(m_res_rconn_gen0) { res->remote_conn_id = HL_NIC_MAX_CONN_ID; }
MUT(m_res_rconn_slot0) { res->remote_conn_id = FAR_CONN(0); }
MUT(m_res_psn) { res->psn = HL_NIC_PSN_MASK + 1; }
MUT(m_res_wq_zero) { res->wq_size = 0; }
MUT(m_res_wq_big) { res->wq_size = HL_NIC_MAX_WQ_SIZE + 1; }
MUT(m_res_cq) { res->cq_handle = 77; }
MUT(m_res_reserved0) { res->reserved[0] = 1; }
MUT(m_res_reserved1) { res->reserved[1] = 1; }
MUT(m_res_addr_junk) { res->remote_addr = 0x1234; }
MUT(m_res_addr_zero) { res->remote_addr = 0; }
/* The address format of a device that is not there (module id 100) */
MUT(m_res_addr_absent)
{
	res->remote_addr = (p->s[0].peer_addr & ~0xffffull) | 100 << 8 | 1;
}

/* A port of the peer device, but not the one cabled to ours */
MUT(m_res_addr_unreachable)
{
	res->remote_addr = p->s[0].peer_addr ^ 1;
}

/* The address of our own port */
MUT(m_res_addr_self)
{
	res->remote_addr = (p->s[0].peer_addr & ~0xffffull) |
			   p->s[0].module_id << 8 | p->s[0].port;
}

MUT(m_req_mtu_zero) { req->mtu = 0; }
MUT(m_req_mtu_small) { req->mtu = 128; }
MUT(m_req_mtu_odd) { req->mtu = 1000; }
MUT(m_req_mtu_big) { req->mtu = 8192; }
MUT(m_req_remote_differs) { req->remote_conn_id = cp->remote_conn + 1; }
MUT(m_req_addr_differs) { req->remote_addr = p->s[0].peer_addr ^ 1; }
MUT(m_req_psn) { req->psn = 0x1000000; }
MUT(m_req_wq_zero) { req->wq_size = 0; }
MUT(m_req_cq) { req->cq_handle = 99; }
MUT(m_req_reserved) { req->reserved = 1; }
MUT(m_req_port) { req->port = (req->port + 1) % 8; }

static const struct ctx_case ctx_cases[] = {
	{ "RES: unknown connection", 0, EINVAL, m_res_unknown_conn },
	{ "RES: connection 0", 0, EINVAL, m_res_conn_zero },
	{ "RES: connection above the range", 0, EINVAL, m_res_conn_big },
	{ "RES: not the connection's port", 0, EINVAL, m_res_port },
	{ "RES: port out of range", 0, EINVAL, m_res_port_range },
	{ "RES: remote connection 0", 0, EINVAL, m_res_rconn_zero },
	{ "RES: remote connection above the range", 0, EINVAL,
	  m_res_rconn_big },
	{ "RES: remote connection of generation 0", 0, EINVAL,
	  m_res_rconn_gen0 },
	{ "RES: remote connection of slot 0", 0, EINVAL, m_res_rconn_slot0 },
	{ "RES: PSN above 24 bits", 0, EINVAL, m_res_psn },
	{ "RES: WQ size 0", 0, EINVAL, m_res_wq_zero },
	{ "RES: WQ size too big", 0, EINVAL, m_res_wq_big },
	{ "RES: unknown CQ", 0, EINVAL, m_res_cq },
	{ "RES: reserved[0]", 0, EINVAL, m_res_reserved0 },
	{ "RES: reserved[1]", 0, EINVAL, m_res_reserved1 },
	{ "RES: malformed address", 0, EADDRNOTAVAIL, m_res_addr_junk },
	{ "RES: address 0", 0, EADDRNOTAVAIL, m_res_addr_zero },
	{ "RES: address of an absent device", 0, EADDRNOTAVAIL,
	  m_res_addr_absent },
	{ "RES: port not cabled to ours", 0, EHOSTUNREACH,
	  m_res_addr_unreachable },
	{ "RES: our own port", 0, EHOSTUNREACH, m_res_addr_self },
	{ "REQ: MTU 0", 1, EINVAL, m_req_mtu_zero },
	{ "REQ: MTU 128", 1, EINVAL, m_req_mtu_small },
	{ "REQ: MTU 1000", 1, EINVAL, m_req_mtu_odd },
	{ "REQ: MTU 8192", 1, EINVAL, m_req_mtu_big },
	{ "REQ: other remote connection than RES", 1, EINVAL,
	  m_req_remote_differs },
	{ "REQ: other remote address than RES", 1, EINVAL,
	  m_req_addr_differs },
	{ "REQ: PSN above 24 bits", 1, EINVAL, m_req_psn },
	{ "REQ: WQ size 0", 1, EINVAL, m_req_wq_zero },
	{ "REQ: unknown CQ", 1, EINVAL, m_req_cq },
	{ "REQ: reserved", 1, EINVAL, m_req_reserved },
	{ "REQ: not the connection's port", 1, EINVAL, m_req_port },
};

static void test_conn_ctx_validation_errnos(void **state)
{
	struct hl_nic_res_conn_ctx_in res;
	struct hl_nic_req_conn_ctx_in req;
	struct conn_params cp;
	uint32_t conn, i;
	struct pair p;
	int rc;

	(void)state;
	pair_open(&p);
	memset(&cp, 0, sizeof(cp));
	cp.port = p.s[0].port;
	cp.remote_addr = p.s[0].peer_addr;
	cp.remote_conn = FAR_CONN(3);
	cp.mtu = HL_NIC_MTU_2048;
	cp.wq_size = 8;

	for (i = 0; i < sizeof(ctx_cases) / sizeof(ctx_cases[0]); i++) {
		const struct ctx_case *c = &ctx_cases[i];

		conn = sm_conn_in(p.s[0].fd, &cp, c->req ? S_RTR : S_INIT);
		res_ctx_of(&cp, conn, &res);
		req_ctx_of(&cp, conn, &req);
		c->mutate(&cp, &res, &req, &p);
		rc = c->req ? hlthunk_nic_set_req_conn_ctx(p.s[0].fd, &req) :
			      hlthunk_nic_set_res_conn_ctx(p.s[0].fd, &res);
		if (rc != -c->errno_)
			print_error("%s: %d, expected %d\n", c->what, rc,
				    -c->errno_);
		assert_int_equal(rc, -c->errno_);
		assert_int_equal(errno, c->errno_);
		/* Nothing changed */
		assert_int_equal(conn_state(p.s[0].fd, conn),
				 c->req ? S_RTR : S_INIT);
		assert_int_equal(hlthunk_nic_destroy_conn(p.s[0].fd, conn), 0);
	}
	pair_close(&p);
}

static void test_conn_ctx_port_down_enetdown(void **state)
{
	struct hl_nic_res_conn_ctx_in res;
	struct hl_info_nic_ports info;
	struct conn_params cp;
	uint32_t conn, i, dead = UINT32_MAX;
	struct pair p;

	(void)state;
	pair_open(&p);
	memset(&cp, 0, sizeof(cp));
	cp.port = p.s[0].port;
	cp.remote_addr = p.s[0].peer_addr;
	cp.remote_conn = FAR_CONN(3);
	cp.mtu = HL_NIC_MTU_2048;
	cp.wq_size = 8;

	/* Administratively down (this end, then the other end) */
	conn = sm_conn_in(p.s[0].fd, &cp, S_INIT);
	res_ctx_of(&cp, conn, &res);
	assert_int_equal(set_link(0, p.s[0].port, 0), 0);
	assert_int_equal(hlthunk_nic_set_res_conn_ctx(p.s[0].fd, &res),
			 -ENETDOWN);
	assert_int_equal(set_link(0, p.s[0].port, 1), 0);
	assert_int_equal(set_link(1, p.s[1].port, 0), 0);
	assert_int_equal(hlthunk_nic_set_res_conn_ctx(p.s[0].fd, &res),
			 -ENETDOWN);
	assert_int_equal(set_link(1, p.s[1].port, 1), 0);
	assert_int_equal(hlthunk_nic_set_res_conn_ctx(p.s[0].fd, &res), 0);

	/* SET_REQ checks the link too */
	{
		struct hl_nic_req_conn_ctx_in req;

		req_ctx_of(&cp, conn, &req);
		assert_int_equal(set_link(0, p.s[0].port, 0), 0);
		assert_int_equal(hlthunk_nic_set_req_conn_ctx(p.s[0].fd, &req),
				 -ENETDOWN);
		assert_int_equal(set_link(0, p.s[0].port, 1), 0);
		assert_int_equal(hlthunk_nic_set_req_conn_ctx(p.s[0].fd, &req),
				 0);
	}

	/* A port with no link at all: uncabled, or cabled to no device */
	assert_int_equal(hlthunk_get_nic_ports_info(p.s[0].fd, &info), 0);
	for (i = 0; i < info.num_ports; i++)
		if (!info.ports[i].link_up)
			dead = i;
	assert_int_not_equal(dead, UINT32_MAX);
	assert_int_equal(hlthunk_nic_alloc_conn(p.s[0].fd, dead, &conn), 0);
	assert_int_equal(hlthunk_nic_modify_conn(p.s[0].fd, conn, S_INIT), 0);
	cp.port = dead;
	res_ctx_of(&cp, conn, &res);
	assert_int_equal(hlthunk_nic_set_res_conn_ctx(p.s[0].fd, &res),
			 -ENETDOWN);
	pair_close(&p);
}

static void test_conn_alloc_ids_and_errnos(void **state)
{
	struct hl_nic_query_conn_out q;
	struct hltests_state *st = *state;
	static uint32_t ids[HL_NIC_MAX_CONN_ID];
	uint32_t id, i, gen, n = 0;
	int rc;

	/* Bad ports */
	assert_int_equal(hlthunk_nic_alloc_conn(st->fd, st->hw_ip.num_nic_ports,
						&id), -EINVAL);
	assert_int_equal(hlthunk_nic_alloc_conn(st->fd, UINT32_MAX, &id),
			 -EINVAL);
	assert_int_equal(hlthunk_nic_alloc_conn(st->fd, 0, NULL), -EINVAL);

	/*
	 * Every slot once, in order, with the context's generation (not 0,
	 * the same for all), then -ENOSPC
	 */
	for (;;) {
		rc = hlthunk_nic_alloc_conn(st->fd, n % st->hw_ip.num_nic_ports,
					    &id);
		if (rc)
			break;
		assert_true(n < HL_NIC_MAX_CONN_ID);
		ids[n++] = id;
	}
	assert_int_equal(rc, -ENOSPC);
	assert_int_equal(n, HL_NIC_MAX_CONN_ID);
	gen = HL_NIC_CONN_ID_GEN(ids[0]);
	assert_int_not_equal(gen, 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(HL_NIC_CONN_ID_GEN(ids[i]), gen);
		assert_int_equal(HL_NIC_CONN_ID_SLOT(ids[i]), i + 1);
	}
	assert_int_equal(hlthunk_nic_query_conn(st->fd, ids[4], &q), 0);
	assert_int_equal(q.port, 4 % st->hw_ip.num_nic_ports);
	assert_int_equal(q.state, S_RESET);

	/* A freed ID is reused only once the slots wrapped around */
	assert_int_equal(hlthunk_nic_destroy_conn(st->fd, ids[9]), 0);
	assert_int_equal(hlthunk_nic_destroy_conn(st->fd, ids[9]), -EINVAL);
	assert_int_equal(hlthunk_nic_query_conn(st->fd, ids[9], &q), -EINVAL);
	assert_int_equal(hlthunk_nic_alloc_conn(st->fd, 0, &id), 0);
	assert_int_equal(id, ids[9]);
	assert_int_equal(hlthunk_nic_destroy_conn(st->fd, ids[19]), 0);
	assert_int_equal(hlthunk_nic_destroy_conn(st->fd, ids[29]), 0);
	assert_int_equal(hlthunk_nic_alloc_conn(st->fd, 0, &id), 0);
	assert_int_equal(id, ids[19]);

	/* IDs out of range, or of another generation (another owner's) */
	assert_int_equal(hlthunk_nic_destroy_conn(st->fd, 0), -EINVAL);
	assert_int_equal(hlthunk_nic_destroy_conn(st->fd, 10), -EINVAL);
	assert_int_equal(hlthunk_nic_destroy_conn(st->fd, ids[0] ^ (1u << 20)),
			 -EINVAL);
	assert_int_equal(hlthunk_nic_destroy_conn(st->fd,
						  ids[0] & ~HL_NIC_CONN_ID_SLOT_MASK),
			 -EINVAL);
	assert_int_equal(hlthunk_nic_destroy_conn(st->fd, UINT32_MAX),
			 -EINVAL);
	assert_int_equal(hlthunk_nic_modify_conn(st->fd, 0, S_INIT), -EINVAL);
	assert_int_equal(hlthunk_nic_modify_conn(st->fd, ids[29], S_INIT),
			 -EINVAL);
	assert_int_equal(hlthunk_nic_query_conn(st->fd, 5, &q), -EINVAL);
}

static void test_nic_args_errnos(void **state)
{
	struct hltests_state *st = *state;
	struct hl_nic_args args;
	uint8_t big[sizeof(args) + 16];
	uint32_t conn;

	/* Unknown op, flags, ctx_id, pad */
	memset(&args, 0, sizeof(args));
	args.in.op = 11;
	assert_int_equal(nic_raw(st->fd, &args), -EINVAL);
	args.in.op = UINT32_MAX;
	assert_int_equal(nic_raw(st->fd, &args), -EINVAL);
	memset(&args, 0, sizeof(args));
	args.in.op = HL_NIC_OP_ALLOC_CONN;
	args.in.flags = 1;
	assert_int_equal(nic_raw(st->fd, &args), -EINVAL);
	args.in.flags = 0;
	args.in.ctx_id = 1;
	assert_int_equal(nic_raw(st->fd, &args), -EINVAL);
	args.in.ctx_id = 0;
	args.in.pad = 1;
	assert_int_equal(nic_raw(st->fd, &args), -EINVAL);
	args.in.pad = 0;

	/* Bytes of the union past the op's struct; a failure leaves args */
	args.in.reserved[1] = 1;
	{
		struct hl_nic_args copy = args;

		assert_int_equal(nic_raw(st->fd, &args), -EINVAL);
		assert_memory_equal(&args, &copy, sizeof(args));
	}
	args.in.reserved[1] = 0;
	args.in.reserved[7] = 1ull << 63;
	assert_int_equal(nic_raw(st->fd, &args), -EINVAL);
	args.in.reserved[7] = 0;
	args.in.alloc_conn.pad = 1;
	assert_int_equal(nic_raw(st->fd, &args), -EINVAL);
	args.in.alloc_conn.pad = 0;
	assert_int_equal(nic_raw(st->fd, &args), 0);
	conn = args.out.alloc_conn.conn_id;
	assert_true(conn >= HL_NIC_MIN_CONN_ID);
	assert_int_equal(args.out.alloc_conn.pad, 0);

	memset(&args, 0, sizeof(args));
	args.in.op = HL_NIC_OP_DESTROY_CONN;
	args.in.destroy_conn.conn_id = conn;
	args.in.destroy_conn.pad = 1;
	assert_int_equal(nic_raw(st->fd, &args), -EINVAL);
	memset(&args, 0, sizeof(args));
	args.in.op = HL_NIC_OP_QUERY_CONN;
	args.in.query_conn.conn_id = conn;
	args.in.query_conn.pad = 1;
	assert_int_equal(nic_raw(st->fd, &args), -EINVAL);

	/* Extensible: a larger struct works with zero tail, else -E2BIG */
	memset(big, 0, sizeof(big));
	memset(&args, 0, sizeof(args));
	args.in.op = HL_NIC_OP_QUERY_CONN;
	args.in.query_conn.conn_id = conn;
	memcpy(big, &args, sizeof(args));
	assert_int_equal(hltests_ioctl_sized(st->fd, HL_IOCTL_NIC, sizeof(big),
					     big), 0);
	memcpy(&args, big, sizeof(args));
	assert_int_equal(args.out.query_conn.state, S_RESET);
	memset(big, 0, sizeof(big));
	memset(&args, 0, sizeof(args));
	args.in.op = HL_NIC_OP_QUERY_CONN;
	args.in.query_conn.conn_id = conn;
	memcpy(big, &args, sizeof(args));
	big[sizeof(args) + 3] = 1;
	assert_int_equal(hltests_ioctl_sized(st->fd, HL_IOCTL_NIC, sizeof(big),
					     big), -E2BIG);

	/* A smaller struct: the missing op reads as 0 (ALLOC_CONN, port 0) */
	memset(&args, 0, sizeof(args));
	assert_int_equal(hltests_ioctl_sized(st->fd, HL_IOCTL_NIC, 16, &args),
			 0);
	assert_true(args.out.alloc_conn.conn_id > conn);
}

const struct CMUnitTest nic_conn_tests[] = {
	NIC_TEST2(test_info_reports_ports_and_links),
	NIC_TEST2(test_info_link_down_through_debugfs),
	NIC_TEST2(test_info_short_buffer_truncates),
	NIC_TEST2(test_conn_state_machine),
	NIC_TEST2(test_conn_query_reports_context),
	NIC_TEST2(test_conn_ctx_validation_errnos),
	NIC_TEST2(test_conn_ctx_port_down_enetdown),
	NIC_TEST(test_conn_alloc_ids_and_errnos),
	NIC_TEST(test_nic_args_errnos),
};

const size_t nic_conn_tests_num =
	sizeof(nic_conn_tests) / sizeof(nic_conn_tests[0]);

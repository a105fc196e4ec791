// SPDX-License-Identifier: MIT
/* The nic suite's fixtures: see hltests_nic.h */
#include "hltests_nic.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int tracked_fds[MAX_TRACKED] = { -1, -1, -1, -1, -1, -1, -1, -1 };

pid_t tracked_pid;

int fd_track(int fd)
{
	int i;

	for (i = 0; fd >= 0 && i < MAX_TRACKED; i++) {
		if (tracked_fds[i] < 0) {
			tracked_fds[i] = fd;
			break;
		}
	}
	return fd;
}

void fd_close(int fd)
{
	int i;

	for (i = 0; i < MAX_TRACKED; i++)
		if (tracked_fds[i] == fd)
			tracked_fds[i] = -1;
	close(fd);
}

int nic_teardown(void **state)
{
	int i;

	(void)state;
	if (tracked_pid > 0) {
		kill(tracked_pid, SIGKILL);
		waitpid(tracked_pid, NULL, 0);
		tracked_pid = 0;
	}
	for (i = 0; i < MAX_TRACKED; i++) {
		if (tracked_fds[i] >= 0)
			close(tracked_fds[i]);
		tracked_fds[i] = -1;
	}
	return 0;
}

int nic_teardown_state(void **state)
{
	nic_teardown(state);
	return hltests_teardown(state);
}

int buf_map(int fd, struct buf *b, uint64_t size)
{
	void *p = NULL;
	uint64_t alloc = (size + PAGE - 1) & ~(PAGE - 1);

	if (posix_memalign(&p, PAGE, alloc ? alloc : PAGE))
		return -ENOMEM;
	memset(p, 0, alloc ? alloc : PAGE);
	b->ptr = p;
	b->size = size;
	b->va = hlthunk_host_memory_map(fd, p, 0, alloc ? alloc : PAGE);
	if (!b->va) {
		int err = errno;

		free(p);
		b->ptr = NULL;
		return -err;
	}
	return 0;
}

void buf_unmap(int fd, struct buf *b)
{
	if (!b->ptr)
		return;
	hlthunk_memory_unmap(fd, b->va);
	free(b->ptr);
	b->ptr = NULL;
}

int nic_cs_add(int fd, struct nic_cs *cs, uint32_t queue,
	       enum nic_op op, uint32_t conn, uint64_t addr,
	       uint64_t size, uint64_t wr_id)
{
	int i = cs->n, rc;

	if (i >= NIC_CS_MAX_JOBS)
		return -E2BIG;
	rc = buf_map(fd, &cs->cb[i], PAGE);
	if (rc)
		return rc;
	cs->queue[i] = queue;
	cs->len[i] = op == NIC_SEND ?
		hlthunk_pkt_nic_send(cs->cb[i].ptr, conn, addr, size, wr_id) :
		hlthunk_pkt_nic_recv(cs->cb[i].ptr, conn, addr, size, wr_id);
	cs->n++;
	return 0;
}

int nic_cs_submit(int fd, struct nic_cs *cs, uint32_t timeout_s)
{
	struct hl_cs_chunk chunks[NIC_CS_MAX_JOBS];
	struct hlthunk_cs_in in;
	struct hlthunk_cs_out out;
	int i, rc;

	memset(chunks, 0, sizeof(chunks));
	for (i = 0; i < cs->n; i++) {
		chunks[i].cb_handle = cs->cb[i].va;
		chunks[i].queue_index = cs->queue[i];
		chunks[i].cb_size = cs->len[i];
	}
	memset(&in, 0, sizeof(in));
	in.chunks_execute = chunks;
	in.num_chunks_execute = cs->n;
	rc = hlthunk_command_submission_timeout(fd, &in, &out, timeout_s);
	if (!rc)
		cs->seq = out.seq;
	return rc;
}

int nic_cs_wait(int fd, struct nic_cs *cs, uint64_t timeout_us,
		uint32_t *status)
{
	uint32_t st = 0xdead;
	int rc = hlthunk_wait_for_cs(fd, cs->seq, timeout_us, &st);

	if (status)
		*status = st;
	return rc;
}

void nic_cs_free(int fd, struct nic_cs *cs)
{
	int i;

	for (i = 0; i < cs->n; i++)
		buf_unmap(fd, &cs->cb[i]);
	cs->n = 0;
}

int nic_post(int fd, struct nic_cs *cs, uint32_t queue, enum nic_op op,
	     uint32_t conn, uint64_t addr, uint64_t size,
	     uint64_t wr_id, uint32_t timeout_s)
{
	int rc;

	memset(cs, 0, sizeof(*cs));
	rc = nic_cs_add(fd, cs, queue, op, conn, addr, size, wr_id);
	if (!rc)
		rc = nic_cs_submit(fd, cs, timeout_s);
	return rc;
}

int nic_port_to(int fd, uint32_t peer_module_id, uint32_t *port,
		uint64_t *peer_addr)
{
	struct hl_info_nic_ports info;
	uint32_t i;
	int rc;

	rc = hlthunk_get_nic_ports_info(fd, &info);
	if (rc)
		return rc;
	for (i = 0; i < info.num_ports; i++) {
		if (info.ports[i].cabled && info.ports[i].link_up &&
		    info.ports[i].peer_module_id == peer_module_id) {
			*port = i;
			*peer_addr = info.ports[i].peer_addr;
			return 0;
		}
	}
	return -ENOENT;
}

int module_id_of(int fd, uint32_t *module_id)
{
	struct hlthunk_hw_ip_info hw;
	int rc = hlthunk_get_hw_ip_info(fd, &hw);

	if (!rc)
		*module_id = hw.module_id;
	return rc;
}

void res_ctx_of(const struct conn_params *p, uint32_t conn,
		struct hl_nic_res_conn_ctx_in *res)
{
	memset(res, 0, sizeof(*res));
	res->remote_addr = p->remote_addr;
	res->conn_id = conn;
	res->port = p->port;
	res->remote_conn_id = p->remote_conn;
	res->psn = p->rx_psn;
	res->wq_size = p->wq_size;
	res->cq_handle = p->recv_cq;
}

void req_ctx_of(const struct conn_params *p, uint32_t conn,
		struct hl_nic_req_conn_ctx_in *req)
{
	memset(req, 0, sizeof(*req));
	req->remote_addr = p->remote_addr;
	req->conn_id = conn;
	req->port = p->port;
	req->remote_conn_id = p->remote_conn;
	req->psn = p->tx_psn;
	req->mtu = p->mtu;
	req->wq_size = p->wq_size;
	req->cq_handle = p->send_cq;
}

int conn_connect(int fd, uint32_t conn, const struct conn_params *p)
{
	struct hl_nic_res_conn_ctx_in res;
	struct hl_nic_req_conn_ctx_in req;
	int rc;

	rc = hlthunk_nic_modify_conn(fd, conn, HL_NIC_CONN_STATE_INIT);
	if (rc)
		return rc;
	res_ctx_of(p, conn, &res);
	rc = hlthunk_nic_set_res_conn_ctx(fd, &res);
	if (rc)
		return rc;
	req_ctx_of(p, conn, &req);
	return hlthunk_nic_set_req_conn_ctx(fd, &req);
}

uint32_t conn_state(int fd, uint32_t conn)
{
	struct hl_nic_query_conn_out q;

	if (hlthunk_nic_query_conn(fd, conn, &q))
		return UINT32_MAX;
	return q.state;
}

void fill_seeded(uint8_t *p, uint64_t n, uint64_t seed)
{
	uint64_t s = seed | 1;

	hltests_fill_random(&s, p, n);
}

void side_open(struct side *s, int idx)
{
	s->idx = idx;
	s->fd = fd_track(hltests_open_node(idx, 0));
	assert_true(s->fd >= 0);
	assert_int_equal(module_id_of(s->fd, &s->module_id), 0);
}

void pair_open(struct pair *p)
{
	if (hltests_num_devices() < 2) {
		print_message("needs two devices: skipped\n");
		skip();
	}
	side_open(&p->s[0], 0);
	side_open(&p->s[1], 1);
	assert_int_equal(nic_port_to(p->s[0].fd, p->s[1].module_id,
				     &p->s[0].port, &p->s[0].peer_addr), 0);
	assert_int_equal(nic_port_to(p->s[1].fd, p->s[0].module_id,
				     &p->s[1].port, &p->s[1].peer_addr), 0);
}

void pair_params(struct pair *p, int i, struct conn_params *cp)
{
	struct side *me = &p->s[i], *peer = &p->s[!i];

	memset(cp, 0, sizeof(*cp));
	cp->port = me->port;
	cp->remote_addr = me->peer_addr;
	cp->remote_conn = peer->conn;
	cp->tx_psn = 0;
	cp->rx_psn = 0;
	cp->mtu = HL_NIC_MTU_1024;
	cp->wq_size = 16;
	cp->send_cq = me->cq;
	cp->recv_cq = me->cq;
}

void pair_connect(struct pair *p)
{
	struct conn_params cp;
	int i;

	pair_open(p);
	for (i = 0; i < 2; i++) {
		assert_int_equal(hlthunk_nic_cq_create(p->s[i].fd, 64,
						       &p->s[i].cq), 0);
		assert_int_equal(hlthunk_nic_alloc_conn(p->s[i].fd,
							p->s[i].port,
							&p->s[i].conn), 0);
	}
	for (i = 0; i < 2; i++) {
		pair_params(p, i, &cp);
		assert_int_equal(conn_connect(p->s[i].fd, p->s[i].conn, &cp), 0);
		assert_int_equal(conn_state(p->s[i].fd, p->s[i].conn),
				 HL_NIC_CONN_STATE_RTS);
	}
}

void pair_close(struct pair *p)
{
	int i;

	for (i = 0; i < 2; i++)
		fd_close(p->s[i].fd);
}

void cq_take_one(int fd, uint32_t cq, struct hl_nic_cqe *cqe)
{
	struct hl_nic_cq_poll_wait_out out;

	memset(&out, 0, sizeof(out));
	assert_int_equal(hlthunk_nic_cq_wait(fd, cq, cqe, 1, WAIT_US, &out), 0);
	assert_int_equal(out.num_cqes, 1);
	assert_int_equal(out.status, HL_NIC_CQ_STATUS_SUCCESS);
	assert_int_equal(hlthunk_nic_cq_update_consumed_cqes(fd, cq, 1), 0);
}

void assert_cqe(const struct hl_nic_cqe *cqe, uint32_t opcode,
		uint32_t status, uint32_t conn, uint64_t wr_id)
{
	if (cqe->status != status || cqe->opcode != opcode)
		print_error("CQE: opcode %u status %u, expected opcode %u status %u\n",
			    cqe->opcode, cqe->status, opcode, status);
	assert_int_equal(cqe->opcode, opcode);
	assert_int_equal(cqe->status, status);
	assert_int_equal(cqe->conn_id, conn);
	assert_int_equal(cqe->wr_id, wr_id);
}

char *debugfs_link_path(int idx, uint32_t port, char *path, size_t n)
{
	char bdf[32];

	assert_int_equal(hltests_pci_addr(idx, bdf, sizeof(bdf)), 0);
	snprintf(path, n, "/sys/kernel/debug/habanalabs/%s/nic/port%u/link",
		 bdf, port);
	return path;
}

int set_link(int idx, uint32_t port, int up)
{
	char path[160];
	int fd, rc = 0;

	debugfs_link_path(idx, port, path, sizeof(path));
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, up ? "1\n" : "0\n", 2) != 2)
		rc = -errno;
	close(fd);
	return rc;
}

int nic_raw(int fd, struct hl_nic_args *args)
{
	return ioctl(fd, HL_IOCTL_NIC, args) ? -errno : 0;
}

void write_dev(int fd, uint64_t va, const uint8_t *data, uint64_t n)
{
	hltests_write_device(fd, va, data, n);
}

void mark_head_and_tail(int fd, uint64_t va, uint64_t size)
{
	uint8_t mark[PAGE];

	memset(mark, 0xa5, sizeof(mark));
	hltests_write_device(fd, va, mark, sizeof(mark));
	hltests_write_device(fd, va + size - sizeof(mark), mark, sizeof(mark));
}

void wait_mid_message(const struct buf *b, uint64_t size)
{
	volatile uint8_t *head = b->ptr, *tail = b->ptr + size - 1;
	uint64_t t0 = hltests_now_ns();

	while (*head != 0xa5)
		assert_true(hltests_now_ns() - t0 < 60000000000ull);
	assert_int_not_equal(*tail, 0xa5);
}

bool all_zero(const uint8_t *p, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

int mr_reg_for(int fd, uint64_t addr, uint64_t size, uint64_t iova,
	       uint32_t access, uint32_t conn, uint32_t *lkey, uint32_t *rkey)
{
	struct hl_nic_args args;
	int rc;

	memset(&args, 0, sizeof(args));
	args.in.op = HL_NIC_OP_REG_MR;
	args.in.reg_mr.addr = addr;
	args.in.reg_mr.size = size;
	args.in.reg_mr.iova = iova;
	args.in.reg_mr.access = access;
	args.in.reg_mr.conn_id = conn;
	rc = nic_raw(fd, &args);
	if (!rc) {
		if (lkey)
			*lkey = args.out.reg_mr.lkey;
		if (rkey)
			*rkey = args.out.reg_mr.rkey;
	}
	return rc;
}

int mr_reg(int fd, uint64_t addr, uint64_t size, uint64_t iova,
	   uint32_t access, uint32_t *lkey, uint32_t *rkey)
{
	return mr_reg_for(fd, addr, size, iova, access, 0, lkey, rkey);
}

int mr_dereg(int fd, uint32_t lkey)
{
	struct hl_nic_args args;

	memset(&args, 0, sizeof(args));
	args.in.op = HL_NIC_OP_DEREG_MR;
	args.in.dereg_mr.lkey = lkey;
	return nic_raw(fd, &args);
}

int nic_post_write(int fd, struct nic_cs *cs, uint32_t queue,
		   const struct wr_args *w, uint32_t timeout_s)
{
	int rc;

	memset(cs, 0, sizeof(*cs));
	rc = buf_map(fd, &cs->cb[0], PAGE);
	if (rc)
		return rc;
	cs->len[0] = w->imm ?
		hlthunk_pkt_nic_write_imm(cs->cb[0].ptr, w->conn, w->laddr,
					  w->lkey, w->raddr, w->rkey, w->size,
					  w->wr_id, w->imm_data) :
		hlthunk_pkt_nic_write(cs->cb[0].ptr, w->conn, w->laddr, w->lkey,
				      w->raddr, w->rkey, w->size, w->wr_id);
	/* A WRITE with an immediate value is malformed: only by hand */
	if (!w->imm && w->imm_data)
		((struct hl_pkt_nic_write *)cs->cb[0].ptr)->imm_data =
			w->imm_data;
	cs->queue[0] = queue;
	cs->n = 1;
	return nic_cs_submit(fd, cs, timeout_s);
}

int run_write(int fd, const struct wr_args *w)
{
	struct nic_cs cs;
	int rc;

	assert_int_equal(nic_post_write(fd, &cs, 2, w, 0), 0);
	rc = nic_cs_wait(fd, &cs, WAIT_US, NULL);
	nic_cs_free(fd, &cs);
	return rc;
}

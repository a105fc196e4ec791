// SPDX-License-Identifier: MIT
/*
 * hl-fuzz: generators: HL_IOCTL_NIC, connected pairs, transfers.
 */

#include "hl-fuzz.h"

/* ---- NIC ---- */

static __thread bool nic_out_ok;

static long nic_call(struct worker *w, int fd, struct hl_nic_args *a, bool hostile)
{
	long rc;
	struct call c = { .fd = fd, .cmd = HL_IOCTL_NIC, .arg = a, .size = sizeof(*a) };

	if (hostile) {
		if (chance(&w->r, 6))
			mutate_struct(w, &a->in, sizeof(a->in) - 16);
		if (chance(&w->r, 5)) {
			c.must_fail = true;
			switch (rnd(&w->r, 4)) {
			case 0: a->in.flags = 1u << rnd(&w->r, 32); break;
			case 1: a->in.ctx_id = 1; break;
			case 2: a->in.pad = 1; break;
			default: a->in.reserved[7] = 1;	/* past every op's struct */
			}
		}
		pick_modes(w, &c);
		if (c.sm == SZ_SMALL)
			c.must_fail = false;
	}
	/* CQ_WAIT may wait without a limit (documented): keep it short */
	if (a->in.op == HL_NIC_OP_CQ_WAIT && a->in.cq_poll_wait.timeout_us > 50000)
		a->in.cq_poll_wait.timeout_us = rnd(&w->r, 50000);
	rc = do_call(w, &c);
	nic_out_ok = out_ok(&c);
	return rc;
}

static uint32_t pick_cq(struct worker *w, uint32_t file)
{
	int i;
	uint32_t h;

	st_lock();
	PICK(ps->cqs, ps->ncqs, file, i);
	h = i >= 0 && chance(&w->r, 90) ? ps->cqs[i].handle :
	    chance(&w->r, 50) ? 0 : (uint32_t)stale(&w->r);
	st_unlock();
	return h;
}

void op_nic_alloc(struct worker *w)
{
	struct hl_nic_args a = { 0 };
	uint32_t file;
	int dev, fd = pick_compute(w, &dev, &file), n = 0, i;
	struct devinfo *di;
	uint32_t nports = 8, port;

	if (fd < 0)
		return;
	st_lock();
	for (i = 0; i < ps->nconns; i++)
		n += ps->conns[i].file == file;
	di = devinfo(dev);
	if (di && di->hw.num_nic_ports)
		nports = di->hw.num_nic_ports;
	st_unlock();
	if (n >= 16)
		return;
	a.in.op = HL_NIC_OP_ALLOC_CONN;
	a.in.alloc_conn.port = chance(&w->r, 90) ? rnd(&w->r, nports) :
			       (uint32_t)interesting(&w->r);
	port = a.in.alloc_conn.port;
	if (nic_call(w, fd, &a, true) >= 0 && nic_out_ok) {
		st_lock();
		if (ps->nconns < MAX_OBJ)
			ps->conns[ps->nconns++] = (struct conn){ file,
				a.out.alloc_conn.conn_id, port };
		st_unlock();
	}
}

static int pick_conn_obj(struct worker *w, uint32_t file, struct conn *out)
{
	int i;

	st_lock();
	PICK(ps->conns, ps->nconns, file, i);
	if (i >= 0)
		*out = ps->conns[i];
	st_unlock();
	if (i < 0 || chance(&w->r, 5)) {
		out->id = chance(&w->r, 50) ? (uint32_t)stale(&w->r) : rnd(&w->r, 1100);
		out->port = rnd(&w->r, 8);
	}
	return 0;
}

void op_nic_modify(struct worker *w)
{
	struct hl_nic_args a = { 0 };
	struct conn cn;
	uint32_t file;
	int fd = pick_compute(w, NULL, &file);

	if (fd < 0)
		return;
	pick_conn_obj(w, file, &cn);
	a.in.op = HL_NIC_OP_MODIFY_CONN;
	a.in.modify_conn.conn_id = cn.id;
	a.in.modify_conn.state = chance(&w->r, 90) ?
		(uint32_t[]){ HL_NIC_CONN_STATE_INIT, HL_NIC_CONN_STATE_ERR,
			      HL_NIC_CONN_STATE_RESET, HL_NIC_CONN_STATE_RTR,
			      HL_NIC_CONN_STATE_RTS }[rnd(&w->r, 5)] :
		(uint32_t)interesting(&w->r);
	nic_call(w, fd, &a, true);
}

/*
 * A peer's connection ID: mostly one this process allocated (on any of its
 * files, so other devices' too: IDs carry their owner's generation and a
 * made-up one only gets EINVAL), else a made-up one
 */
static uint32_t pick_remote_conn_id(struct worker *w)
{
	uint32_t id = 0;

	st_lock();
	if (ps->nconns && chance(&w->r, 85))
		id = ps->conns[rnd(&w->r, ps->nconns)].id;
	st_unlock();
	if (!id)
		id = 1 + rnd(&w->r, chance(&w->r, 95) ? 32 : 2000);
	return id;
}

/* The address of the port that @port of @dev is cabled to */
static uint64_t peer_addr(struct worker *w, int dev, uint32_t port)
{
	struct devinfo *di;
	uint64_t a = 0;

	st_lock();
	di = devinfo(dev);
	if (di && port < HL_INFO_NIC_MAX_PORTS)
		a = di->ports.ports[port].peer_addr;
	st_unlock();
	if (!a || chance(&w->r, 5))
		a = chance(&w->r, 50) ? interesting(&w->r) :
		    0x02484c000000ULL | rnd(&w->r, 16) << 8 | rnd(&w->r, 16);
	return a;
}

void op_nic_ctx(struct worker *w, bool req)
{
	static const uint32_t mtus[] = { 256, 512, 1024, 2048, 4096 };
	struct hl_nic_args a = { 0 };
	struct conn cn;
	uint32_t file;
	int dev, fd = pick_compute(w, &dev, &file);

	if (fd < 0)
		return;
	pick_conn_obj(w, file, &cn);
	if (req) {
		struct hl_nic_req_conn_ctx_in *q = &a.in.req_conn_ctx;

		a.in.op = HL_NIC_OP_SET_REQ_CONN_CTX;
		q->remote_addr = peer_addr(w, dev, cn.port);
		q->conn_id = cn.id;
		q->port = chance(&w->r, 95) ? cn.port : rnd(&w->r, 10);
		q->remote_conn_id = pick_remote_conn_id(w);
		q->psn = chance(&w->r, 90) ? rnd(&w->r, 1000) : (uint32_t)interesting(&w->r);
		q->mtu = chance(&w->r, 90) ? mtus[rnd(&w->r, 5)] : (uint32_t)interesting(&w->r);
		q->wq_size = chance(&w->r, 90) ? 1 + rnd(&w->r, 64) : (uint32_t)interesting(&w->r);
		q->cq_handle = pick_cq(w, file);
	} else {
		struct hl_nic_res_conn_ctx_in *s = &a.in.res_conn_ctx;

		a.in.op = HL_NIC_OP_SET_RES_CONN_CTX;
		s->remote_addr = peer_addr(w, dev, cn.port);
		s->conn_id = cn.id;
		s->port = chance(&w->r, 95) ? cn.port : rnd(&w->r, 10);
		s->remote_conn_id = pick_remote_conn_id(w);
		s->psn = chance(&w->r, 90) ? rnd(&w->r, 1000) : (uint32_t)interesting(&w->r);
		s->wq_size = chance(&w->r, 90) ? 1 + rnd(&w->r, 64) : (uint32_t)interesting(&w->r);
		s->cq_handle = pick_cq(w, file);
	}
	nic_call(w, fd, &a, true);
}

void op_nic_destroy(struct worker *w)
{
	struct hl_nic_args a = { 0 };
	struct conn cn;
	uint32_t file;
	int fd = pick_compute(w, NULL, &file), i;

	if (fd < 0)
		return;
	pick_conn_obj(w, file, &cn);
	a.in.op = HL_NIC_OP_DESTROY_CONN;
	a.in.destroy_conn.conn_id = cn.id;
	if (nic_call(w, fd, &a, true) >= 0) {
		st_lock();
		for (i = 0; i < ps->nconns; i++)
			if (ps->conns[i].id == cn.id && ps->conns[i].file == file) {
				bury(cn.id);
				REMOVE_AT(ps->conns, ps->nconns, i);
				break;
			}
		st_unlock();
	}
}

void op_nic_query(struct worker *w)
{
	struct hl_nic_args a = { 0 };
	struct conn cn;
	uint32_t file;
	int fd = pick_compute(w, NULL, &file);

	if (fd < 0)
		return;
	pick_conn_obj(w, file, &cn);
	a.in.op = HL_NIC_OP_QUERY_CONN;
	a.in.query_conn.conn_id = cn.id;
	nic_call(w, fd, &a, true);
}

void op_cq_create(struct worker *w)
{
	struct hl_nic_args a = { 0 };
	uint32_t file;
	int fd = pick_compute(w, NULL, &file), n = 0, i;

	if (fd < 0)
		return;
	st_lock();
	for (i = 0; i < ps->ncqs; i++)
		n += ps->cqs[i].file == file;
	st_unlock();
	if (n >= 8)
		return;
	a.in.op = HL_NIC_OP_CQ_CREATE;
	a.in.cq_create.num_entries = chance(&w->r, 90) ? 1u << rnd(&w->r, 8) :
				     (uint32_t)interesting(&w->r);
	if (nic_call(w, fd, &a, true) >= 0 && nic_out_ok && a.out.cq_create.handle) {
		st_lock();
		if (ps->ncqs < MAX_OBJ)
			ps->cqs[ps->ncqs++] = (struct cqobj){ file, a.out.cq_create.handle };
		st_unlock();
	}
}

void op_cq_destroy(struct worker *w)
{
	struct hl_nic_args a = { 0 };
	uint32_t file, h;
	int fd = pick_compute(w, NULL, &file), i;

	if (fd < 0)
		return;
	h = pick_cq(w, file);
	a.in.op = HL_NIC_OP_CQ_DESTROY;
	a.in.cq_destroy.handle = h;
	if (nic_call(w, fd, &a, true) >= 0) {
		st_lock();
		for (i = 0; i < ps->ncqs; i++)
			if (ps->cqs[i].handle == h && ps->cqs[i].file == file) {
				bury(h);
				REMOVE_AT(ps->cqs, ps->ncqs, i);
				break;
			}
		st_unlock();
	}
}

void op_cq_poll(struct worker *w, bool wait)
{
	struct hl_nic_args a = { 0 };
	uint32_t file;
	int fd = pick_compute(w, NULL, &file);

	if (fd < 0)
		return;
	a.in.op = wait ? HL_NIC_OP_CQ_WAIT : HL_NIC_OP_CQ_POLL;
	a.in.cq_poll_wait.handle = pick_cq(w, file);
	a.in.cq_poll_wait.cqes_ptr = (uintptr_t)w->out;
	a.in.cq_poll_wait.max_cqes = rnd(&w->r, 65536 / sizeof(struct hl_nic_cqe));
	if (wait)
		a.in.cq_poll_wait.timeout_us = rnd(&w->r, 10000);
	if (chance(&w->r, 8)) {
		switch (rnd(&w->r, 5)) {
		case 0: a.in.cq_poll_wait.cqes_ptr = 0; break;
		case 1: a.in.cq_poll_wait.cqes_ptr = (uintptr_t)w->ro; break;
		case 2: a.in.cq_poll_wait.cqes_ptr = 0xffff888000000000ULL; break;
		case 3: a.in.cq_poll_wait.max_cqes = ~0u; break;
		default: a.in.cq_poll_wait.timeout_us = wait ? 20000 : 1;
		}
	}
	nic_call(w, fd, &a, true);
}

void op_cq_update(struct worker *w)
{
	struct hl_nic_args a = { 0 };
	uint32_t file;
	int fd = pick_compute(w, NULL, &file);

	if (fd < 0)
		return;
	a.in.op = HL_NIC_OP_CQ_UPDATE_CONSUMED_CQES;
	a.in.cq_update_consumed_cqes.handle = pick_cq(w, file);
	a.in.cq_update_consumed_cqes.num_cqes = chance(&w->r, 80) ? rnd(&w->r, 4) :
						(uint32_t)interesting(&w->r);
	nic_call(w, fd, &a, true);
}

void op_nic_raw(struct worker *w)
{
	struct hl_nic_args a;
	int fd = pick_compute(w, NULL, NULL);
	size_t i;

	if (fd < 0)
		return;
	for (i = 0; i < sizeof(a); i += 8) {
		uint64_t v = chance(&w->r, 60) ? 0 : interesting(&w->r);

		memcpy((uint8_t *)&a + i, &v, 8);
	}
	a.in.op = rnd(&w->r, HL_NIC_OP_DEREG_MR + 3);
	if (a.in.op == HL_NIC_OP_CQ_WAIT)
		a.in.cq_poll_wait.timeout_us = rnd(&w->r, 10000);
	if (chance(&w->r, 70)) {
		a.in.flags = 0;
		a.in.ctx_id = 0;
		a.in.pad = 0;
	}
	nic_call(w, fd, &a, true);
}

/* Register a region over (mostly) a mapping the file holds */
void op_nic_reg_mr(struct worker *w)
{
	struct hl_nic_args a = { 0 };
	uint64_t room, size;
	uint32_t file;
	int fd = pick_compute(w, NULL, &file);

	if (fd < 0)
		return;
	a.in.op = HL_NIC_OP_REG_MR;
	a.in.reg_mr.addr = pick_va(w, file, &room);
	size = 1 + rnd(&w->r, room < 65536 ? room : 65536);
	if (chance(&w->r, 10))
		size = chance(&w->r, 50) ? 0 : interesting(&w->r);
	a.in.reg_mr.size = size;
	a.in.reg_mr.iova = chance(&w->r, 50) ? a.in.reg_mr.addr :
			   chance(&w->r, 80) ? rnd(&w->r, 1u << 30) :
			   interesting(&w->r);
	a.in.reg_mr.access = chance(&w->r, 80) ? 3 : rnd(&w->r, 16);
	/*
	 * Remote access is for one connection (issue 32): mostly one of the
	 * file's, sometimes none (local only, or -EINVAL with remote flags)
	 */
	if (chance(&w->r, 85)) {
		struct conn cn;

		pick_conn_obj(w, file, &cn);
		a.in.reg_mr.conn_id = cn.id;
	}
	if (nic_call(w, fd, &a, true) >= 0 && nic_out_ok) {
		st_lock();
		if (ps->nmrs < MAX_OBJ)
			ps->mrs[ps->nmrs++] = (struct mrobj){
				file, a.out.reg_mr.lkey, a.out.reg_mr.rkey,
				a.in.reg_mr.iova, size };
		st_unlock();
	}
}

/* A region of @file (lkey, rkey, iova, size), else junk; false if junk */
static bool pick_mr(struct worker *w, uint32_t file, struct mrobj *m)
{
	int i;

	st_lock();
	PICK(ps->mrs, ps->nmrs, file, i);
	if (i >= 0 && chance(&w->r, 90)) {
		*m = ps->mrs[i];
		st_unlock();
		return true;
	}
	st_unlock();
	m->lkey = chance(&w->r, 50) ? (uint32_t)stale(&w->r) :
		  (uint32_t)interesting(&w->r);
	m->rkey = m->lkey;
	m->iova = interesting(&w->r);
	m->size = 4096;
	return false;
}

void op_nic_dereg_mr(struct worker *w)
{
	struct hl_nic_args a = { 0 };
	struct mrobj m;
	uint32_t file;
	int fd = pick_compute(w, NULL, &file), i;

	if (fd < 0)
		return;
	pick_mr(w, file, &m);
	a.in.op = HL_NIC_OP_DEREG_MR;
	a.in.dereg_mr.lkey = chance(&w->r, 5) ? m.rkey : m.lkey;
	if (nic_call(w, fd, &a, true) >= 0) {
		st_lock();
		for (i = 0; i < ps->nmrs; i++)
			if (ps->mrs[i].lkey == a.in.dereg_mr.lkey &&
			    ps->mrs[i].file == file) {
				bury(ps->mrs[i].lkey);
				bury(ps->mrs[i].rkey);
				REMOVE_AT(ps->mrs, ps->nmrs, i);
				break;
			}
		st_unlock();
	}
}

/* Both compute files of a device pair cabled to each other, or false */
static bool pick_pair(struct worker *w, int fds[2], uint32_t files[2], int devs[2],
		      uint32_t ports[2])
{
	int i, j, k;
	bool ok = false;

	st_lock();
	for (k = 0; k < 8 && !ok; k++) {
		struct devinfo *d0, *d1;
		uint32_t p;

		if (ps->nfds < 2)
			break;
		i = rnd(&w->r, ps->nfds);
		j = rnd(&w->r, ps->nfds);
		if (ps->fds[i].kind != F_COMPUTE || ps->fds[j].kind != F_COMPUTE ||
		    ps->fds[i].dev == ps->fds[j].dev)
			continue;
		d0 = devinfo(ps->fds[i].dev);
		d1 = devinfo(ps->fds[j].dev);
		if (!d0 || !d1)
			continue;
		for (p = 0; p < d0->ports.num_ports && p < HL_INFO_NIC_MAX_PORTS; p++) {
			struct hl_info_nic_port *pi = &d0->ports.ports[p];

			if (pi->cabled && pi->peer_module_id == d1->hw.module_id) {
				fds[0] = ps->fds[i].fd;
				fds[1] = ps->fds[j].fd;
				files[0] = ps->fds[i].file;
				files[1] = ps->fds[j].file;
				devs[0] = ps->fds[i].dev;
				devs[1] = ps->fds[j].dev;
				ports[0] = p;
				ports[1] = pi->peer_port;
				ok = true;
				break;
			}
		}
	}
	st_unlock();
	return ok;
}

/* Set up a connected RTS pair between two devices, the way users do */
void op_nic_pair(struct worker *w)
{
	int fds[2], devs[2], s;
	uint32_t files[2], ports[2], ids[2] = { 0, 0 }, cqs[2] = { 0, 0 };
	uint32_t psn[2] = { rnd(&w->r, 1000), rnd(&w->r, 1000) };

	if (!pick_pair(w, fds, files, devs, ports))
		return;
	for (s = 0; s < 2; s++) {
		struct hl_nic_args a = { 0 };

		a.in.op = HL_NIC_OP_CQ_CREATE;
		a.in.cq_create.num_entries = 64;
		if (nic_call(w, fds[s], &a, false) >= 0)
			cqs[s] = a.out.cq_create.handle;
		memset(&a, 0, sizeof(a));
		a.in.op = HL_NIC_OP_ALLOC_CONN;
		a.in.alloc_conn.port = ports[s];
		if (nic_call(w, fds[s], &a, false) < 0)
			return;
		ids[s] = a.out.alloc_conn.conn_id;
		st_lock();
		if (ps->nconns < MAX_OBJ)
			ps->conns[ps->nconns++] = (struct conn){ files[s], ids[s], ports[s] };
		if (cqs[s] && ps->ncqs < MAX_OBJ)
			ps->cqs[ps->ncqs++] = (struct cqobj){ files[s], cqs[s] };
		st_unlock();
		memset(&a, 0, sizeof(a));
		a.in.op = HL_NIC_OP_MODIFY_CONN;
		a.in.modify_conn.conn_id = ids[s];
		a.in.modify_conn.state = HL_NIC_CONN_STATE_INIT;
		if (nic_call(w, fds[s], &a, false) < 0)
			return;
	}
	for (s = 0; s < 2; s++) {
		struct hl_nic_args a = { 0 };
		uint64_t raddr = peer_addr(w, devs[s], ports[s]);

		a.in.op = HL_NIC_OP_SET_RES_CONN_CTX;
		a.in.res_conn_ctx.remote_addr = raddr;
		a.in.res_conn_ctx.conn_id = ids[s];
		a.in.res_conn_ctx.port = ports[s];
		a.in.res_conn_ctx.remote_conn_id = ids[!s];
		a.in.res_conn_ctx.psn = psn[!s];
		a.in.res_conn_ctx.wq_size = 16;
		a.in.res_conn_ctx.cq_handle = cqs[s];
		if (nic_call(w, fds[s], &a, false) < 0)
			return;
		memset(&a, 0, sizeof(a));
		a.in.op = HL_NIC_OP_SET_REQ_CONN_CTX;
		a.in.req_conn_ctx.remote_addr = raddr;
		a.in.req_conn_ctx.conn_id = ids[s];
		a.in.req_conn_ctx.port = ports[s];
		a.in.req_conn_ctx.remote_conn_id = ids[!s];
		a.in.req_conn_ctx.psn = psn[s];
		a.in.req_conn_ctx.mtu = 1024;
		a.in.req_conn_ctx.wq_size = 16;
		a.in.req_conn_ctx.cq_handle = cqs[s];
		if (nic_call(w, fds[s], &a, false) < 0)
			return;
	}
}

/*
 * A WRITE or WRITE_IMM from a region of files[0] into one of files[1]
 * (mostly inside both, sometimes past them or with junk keys); its size
 */
static uint32_t write_pkt(struct worker *w, uint8_t *buf, uint32_t conn,
			  const uint32_t files[2])
{
	struct hl_pkt_nic_write p = { 0 };
	struct mrobj l, r;
	uint64_t len;

	pick_mr(w, files[0], &l);
	pick_mr(w, files[1], &r);
	len = rnd(&w->r, (l.size < r.size ? l.size : r.size) + 1);
	if (chance(&w->r, 10))
		len = interesting(&w->r);
	p.ctl = (uint32_t)(chance(&w->r, 50) ? HL_PKT_NIC_WRITE_IMM :
			   HL_PKT_NIC_WRITE) << HL_PKT_OPCODE_SHIFT;
	p.conn_id = conn;
	p.local_addr = l.iova + (chance(&w->r, 90) ? 0 : rnd(&w->r, 8192));
	p.remote_addr = r.iova + (chance(&w->r, 90) ? 0 : rnd(&w->r, 8192));
	p.size = len;
	p.wr_id = 11;
	p.lkey = chance(&w->r, 95) ? l.lkey : l.rkey;
	p.rkey = chance(&w->r, 95) ? r.rkey : r.lkey;
	if (p.ctl >> HL_PKT_OPCODE_SHIFT == HL_PKT_NIC_WRITE_IMM ||
	    chance(&w->r, 5))
		p.imm_data = (uint32_t)rnd(&w->r, 1u << 31);
	memcpy(buf, &p, sizeof(p));
	return sizeof(p);
}

/* A RECV on one device and a SEND or WRITE on the other, then wait for both */
void op_nic_xfer(struct worker *w)
{
	int fds[2], devs[2], s, i;
	uint32_t files[2], ports[2], conn[2] = { 0, 0 };
	uint64_t seq[2] = { 0, 0 };
	bool have[2] = { false, false };

	if (!pick_pair(w, fds, files, devs, ports))
		return;
	/* the connections of each file on those ports (any: wrong pairs fail) */
	st_lock();
	for (s = 0; s < 2; s++)
		for (i = ps->nconns - 1; i >= 0; i--)
			if (ps->conns[i].file == files[s] && ps->conns[i].port == ports[s]) {
				conn[s] = ps->conns[i].id;
				break;
			}
	st_unlock();
	if (!conn[0] || !conn[1])
		return;
	for (s = 1; s >= 0; s--) {
		union hl_cs_args a = { 0 };
		struct hl_cs_chunk ch = { 0 };
		struct call c = { .fd = fds[s], .cmd = HL_IOCTL_CS, .arg = &a,
				  .size = sizeof(a) };
		uint8_t pkt[sizeof(struct hl_pkt_nic_write)];
		uint32_t len = 32;
		uint64_t va, room, cbva = 0;
		int j, k;

		va = pick_va(w, files[s], &room);
		if (s)
			hlthunk_pkt_nic_recv(pkt, conn[s], va, room < 8192 ? room : 8192, 7);
		else if (chance(&w->r, 50))
			hlthunk_pkt_nic_send(pkt, conn[s], va, room < 4096 ? room : 4096, 9);
		else
			len = write_pkt(w, pkt, conn[s], files);
		/* the packet into a writable host mapping of that file */
		st_lock();
		for (j = 0, k = -1; j < ps->nmaps; j++)
			if (ps->maps[j].file == files[s] && ps->maps[j].host &&
			    ps->maps[j].hb >= 0 && ps->maps[j].size >= len &&
			    ps->hb[ps->maps[j].hb].prot == (PROT_READ | PROT_WRITE))
				k = j;
		if (k >= 0) {
			memcpy(ps->hb[ps->maps[k].hb].p + ps->maps[k].host_off, pkt, len);
			cbva = ps->maps[k].va;
		}
		st_unlock();
		if (!cbva)
			return;
		ch.cb_handle = cbva;
		ch.cb_size = len;
		ch.queue_index = s ? 1 : 2;
		a.in.chunks_execute = (uintptr_t)&ch;
		a.in.num_chunks_execute = 1;
		a.in.timeout = 2;
		if (do_call(w, &c) >= 0) {
			seq[s] = a.out.seq;
			have[s] = true;
		}
	}
	for (s = 0; s < 2; s++) {
		union hl_wait_cs_args a = { 0 };
		struct call c = { .fd = fds[s], .cmd = HL_IOCTL_WAIT_CS, .arg = &a,
				  .size = sizeof(a) };

		if (!have[s])
			continue;
		a.in.seq = seq[s];
		a.in.timeout_us = 3000000;
		do_call(w, &c);
	}
}

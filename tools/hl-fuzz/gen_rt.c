// SPDX-License-Identifier: MIT
/*
 * hl-fuzz: generators: the runtime ioctls (issue 22) -- driver-owned
 * command buffers (HL_IOCTL_CB create, destroy, info; mmap of a CB; CSs
 * naming a CB by handle), WAIT_CS's multi-CS mode, the eventfd notifier
 * (REGISTER/UNREGISTER_EVENTFD, GET_EVENTS) and the counter, event-record
 * and engine-status INFO ops.
 */

#include <sys/eventfd.h>

#include "hl-fuzz.h"

#define RT_MAX_CB	32
#define RT_MAX_EFD	6

struct rt_cb {
	uint32_t file;
	uint64_t handle;
	uint32_t size;
	bool mapped;
};

static struct {
	struct rt_cb cbs[RT_MAX_CB];
	int ncbs;
	int efds[RT_MAX_EFD];
	int nefds;
} rt;

/* A CB of @file (or, rarely, any), as a copy; false when none */
static bool rt_pick_cb(struct worker *w, uint32_t file, struct rt_cb *out)
{
	int i;

	st_lock();
	for (i = 0; i < rt.ncbs;) {
		/* forget the CBs of closed files */
		if (!file_open_locked(rt.cbs[i].file)) {
			bury(rt.cbs[i].handle);
			REMOVE_AT(rt.cbs, rt.ncbs, i);
		} else {
			i++;
		}
	}
	PICK(rt.cbs, rt.ncbs, file, i);
	if (i >= 0)
		*out = rt.cbs[i];
	st_unlock();
	return i >= 0;
}

static uint64_t rt_cb_handle(struct worker *w, uint32_t file)
{
	struct rt_cb cb;

	if (chance(&w->r, 90) && rt_pick_cb(w, file, &cb))
		return cb.handle;
	if (chance(&w->r, 50))
		return stale(&w->r);
	/* CB-shaped: the CB mmap type with a random ID, or not page aligned */
	return (0x2ULL << 59) | rnd(&w->r, 64) << 12 | (chance(&w->r, 10) ? 8 : 0);
}

void rt_op_cb(struct worker *w)
{
	union hl_cb_args a = { 0 };
	struct call c = { .cmd = HL_IOCTL_CB, .arg = &a, .size = sizeof(a) };
	uint32_t file;
	uint64_t h;
	int i, k = rnd(&w->r, 4);
	long rc;

	c.fd = pick_compute(w, NULL, &file);
	if (c.fd < 0)
		return;
	if (k <= 1) {
		st_lock();
		i = rt.ncbs;
		st_unlock();
		if (i >= RT_MAX_CB)
			k = 2;
	}
	switch (k) {
	case 0:
	case 1:
		a.in.op = HL_CB_OP_CREATE;
		a.in.cb_size = chance(&w->r, 3) ? HL_MAX_CB_SIZE :
			       chance(&w->r, 50) ? 1 + rnd(&w->r, 4 * PAGE) :
			       PAGE * (1 + rnd(&w->r, 8));
		a.in.flags = chance(&w->r, 70) ? HL_CB_FLAGS_MAP : 0;
		if (chance(&w->r, 4))
			a.in.cb_size = (uint32_t)interesting(&w->r);
		break;
	case 2:
		a.in.op = HL_CB_OP_DESTROY;
		a.in.cb_handle = rt_cb_handle(w, file);
		break;
	default:
		a.in.op = HL_CB_OP_INFO;
		a.in.cb_handle = rt_cb_handle(w, file);
		a.in.flags = chance(&w->r, 50) ? HL_CB_FLAGS_GET_DEVICE_VA : 0;
	}
	if (chance(&w->r, 3))
		a.in.op = (uint32_t)interesting(&w->r);
	if (chance(&w->r, 5)) {
		c.must_fail = true;
		switch (rnd(&w->r, 3)) {
		case 0: a.in.ctx_id = 1 + rnd(&w->r, 1000); break;
		case 1: a.in.flags |= 0x4u << rnd(&w->r, 29); break;
		default:
			if (a.in.op == HL_CB_OP_CREATE)
				a.in.cb_handle = 1 + rnd(&w->r, 1000);
			else
				a.in.cb_size = 1 + rnd(&w->r, 1000);
		}
	}
	pick_modes(w, &c);
	if (c.sm == SZ_SMALL)
		c.must_fail = false;
	h = a.in.cb_handle;
	rc = do_call(w, &c);
	if (rc < 0 || !out_ok(&c))
		return;
	/*
	 * Under asic=gaudi a zeroed CB is no NOPs (opcode 0 is none of
	 * GAUDI's): fill the first page with NOPs, as a runtime writes its
	 * packets before it submits
	 */
	if (gaudi_format && a.in.op == HL_CB_OP_CREATE && a.in.cb_size >= 8 &&
	    a.in.cb_size <= HL_MAX_CB_SIZE) {
		uint32_t nop[2] = { 0, HL_GAUDI_PKT_CTL(HL_GAUDI_PKT_NOP) }, i;
		uint8_t *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, c.fd,
				  (off_t)a.out.cb_handle);

		if (p != MAP_FAILED) {
			for (i = 0; i + 8 <= a.in.cb_size && i < PAGE; i += 8)
				memcpy(p + i, nop, 8);
			munmap(p, PAGE);
		}
	}
	st_lock();
	if (a.in.op == HL_CB_OP_CREATE && rt.ncbs < RT_MAX_CB) {
		rt.cbs[rt.ncbs++] = (struct rt_cb){ file, a.out.cb_handle,
			a.in.cb_size, a.in.flags & HL_CB_FLAGS_MAP };
	} else if (a.in.op == HL_CB_OP_DESTROY) {
		for (i = 0; i < rt.ncbs; i++)
			if (rt.cbs[i].handle == h && rt.cbs[i].file == file) {
				bury(h);
				REMOVE_AT(rt.cbs, rt.ncbs, i);
				break;
			}
	}
	st_unlock();
}

/* mmap() a CB (or something that is not one), write packets, munmap() */
void rt_op_cb_mmap(struct worker *w)
{
	uint64_t len, off, i;
	struct rt_cb cb = { 0 };
	uint32_t file;
	int fd, flags = MAP_SHARED;
	uint8_t *p;

	fd = pick_compute(w, NULL, &file);
	if (fd < 0)
		return;
	if (!rt_pick_cb(w, file, &cb) || chance(&w->r, 10))
		cb.handle = rt_cb_handle(w, file);
	len = cb.size ? ((cb.size + PAGE - 1) & ~(PAGE - 1)) : PAGE;
	off = cb.handle;
	if (chance(&w->r, 10))
		len += PAGE * (1 + rnd(&w->r, 4));	/* past the CB */
	else if (chance(&w->r, 30) && len > PAGE)
		len = PAGE * (1 + rnd(&w->r, len / PAGE));
	if (chance(&w->r, 5))
		flags = MAP_PRIVATE;
	if (chance(&w->r, 3))
		off += PAGE;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, (off_t)off);
	note(w, p == MAP_FAILED ? -errno : 0, "mmap(fd %d, len %#" PRIx64
	     ", off %#" PRIx64 "%s)", fd, len, off,
	     flags == MAP_PRIVATE ? ", private" : "");
	if (p == MAP_FAILED)
		return;
	/* NOPs, or junk the engines must refuse */
	for (i = 0; i + 8 <= len && i < 64 * 8; i += 8) {
		if (!chance(&w->r, 90)) {
			memset(p + i, (int)rnd(&w->r, 256), 8);
		} else if (gaudi_format) {
			uint32_t nop[2] = { 0, HL_GAUDI_PKT_CTL(HL_GAUDI_PKT_NOP) };

			memcpy(p + i, nop, 8);
		} else {
			hlthunk_pkt_nop(p + i);
		}
	}
	/*
	 * Under asic=gaudi, mostly real work at the start: a kernel CB is
	 * how an external queue (DMA 0-1) takes its packets
	 */
	if (gaudi_format && chance(&w->r, 70)) {
		uint8_t cb[512] __attribute__((aligned(8)));
		bool nic;

		i = build_gaudi_cb(w, file, cb, sizeof(cb), &nic);
		memcpy(p, cb, i < len ? i : len);
	}
	munmap(p, len);
}

/* A CS whose chunks name CBs by handle (or by their device VA) */
void rt_op_cb_cs(struct worker *w)
{
	struct hl_cs_chunk chunks[2];
	union hl_cs_args a = { 0 };
	struct call c = { .cmd = HL_IOCTL_CS, .arg = &a, .size = sizeof(a),
			  .chunks = chunks };
	int j, outstanding = 0;
	uint32_t file, n, i;
	struct rt_cb cb;
	long rc;

	c.fd = pick_compute(w, NULL, &file);
	if (c.fd < 0)
		return;
	st_lock();
	for (j = 0; j < ps->nseqs; j++)
		outstanding += ps->seqs[j].file == file;
	st_unlock();
	if (outstanding >= 24)
		return;
	memset(chunks, 0, sizeof(chunks));
	n = 1 + rnd(&w->r, 2);
	for (i = 0; i < n; i++) {
		if (!rt_pick_cb(w, file, &cb))
			cb = (struct rt_cb){ file, rt_cb_handle(w, file), PAGE, true };
		chunks[i].cb_handle = cb.handle;
		chunks[i].cb_size = 8 * (1 + rnd(&w->r, 8));
		if (chance(&w->r, 5))
			chunks[i].cb_size = cb.size + 8;	/* past the CB */
		chunks[i].queue_index = rnd(&w->r, 4);
	}
	a.in.chunks_execute = (uintptr_t)chunks;
	a.in.num_chunks_execute = n;
	a.in.timeout = 1 + rnd(&w->r, 2);
	pick_modes(w, &c);
	rc = do_call(w, &c);
	if (rc >= 0)
		atomic_fetch_add(&sh->cs_ok, 1);
	if (rc >= 0 && out_ok(&c)) {
		st_lock();
		if (ps->nseqs < MAX_OBJ)
			ps->seqs[ps->nseqs++] = (struct seqobj){ file, a.out.seq, false };
		st_unlock();
	}
}

/* WAIT_CS with HL_WAIT_CS_FLAGS_MULTI_CS over the file's sequence numbers */
void rt_op_wait_multi(struct worker *w)
{
	uint64_t seqs[HL_WAIT_MULTI_CS_LIST_MAX_LEN + 8];
	union hl_wait_cs_args a = { 0 };
	struct call c = { .cmd = HL_IOCTL_WAIT_CS, .arg = &a, .size = sizeof(a) };
	uint32_t file, n = 0, want, i;
	int j;
	long rc;

	c.fd = pick_compute(w, NULL, &file);
	if (c.fd < 0)
		return;
	want = 1 + rnd(&w->r, chance(&w->r, 70) ? 4 : HL_WAIT_MULTI_CS_LIST_MAX_LEN);
	st_lock();
	for (j = 0; j < ps->nseqs && n < want; j++)
		if (ps->seqs[j].file == file && chance(&w->r, 70))
			seqs[n++] = ps->seqs[j].seq;
	st_unlock();
	while (n < want && chance(&w->r, 30))
		seqs[n++] = chance(&w->r, 50) ? stale(&w->r) : interesting(&w->r);
	if (!n)
		return;
	a.in.seq = (uintptr_t)seqs;
	a.in.seq_arr_len = (uint8_t)n;
	a.in.flags = HL_WAIT_CS_FLAGS_MULTI_CS;
	a.in.timeout_us = chance(&w->r, 40) ? 0 : chance(&w->r, 80) ?
			  rnd(&w->r, 20000) : rnd(&w->r, 3000000);
	if (chance(&w->r, 4)) {
		switch (rnd(&w->r, 4)) {
		case 0: a.in.seq_arr_len = chance(&w->r, 50) ? 0 : 33 + rnd(&w->r, 200); break;
		case 1: a.in.seq = (uintptr_t)(w->guard + PAGE - 8); break;
		case 2: a.in.seq = 0xffff888000000000ULL; break;
		default: a.in.seq = 0;
		}
	}
	if (chance(&w->r, 4)) {
		c.must_fail = true;
		switch (rnd(&w->r, 3)) {
		case 0: a.in.ctx_id = 1; break;
		case 1: a.in.pad[rnd(&w->r, 7)] = 1; break;
		default: a.in.flags |= 1u << (3 + rnd(&w->r, 29));
		}
	}
	pick_modes(w, &c);
	if (c.sm == SZ_SMALL)
		c.must_fail = false;
	rc = do_call(w, &c);
	if (!out_ok(&c) || (rc < 0 && rc != -EIO) || a.in.seq != (uintptr_t)seqs)
		return;
	/* forget what completed */
	st_lock();
	for (i = 0; i < n && i < 32; i++) {
		if (!(a.out.cs_completion_map & (1u << i)))
			continue;
		for (j = 0; j < ps->nseqs; j++)
			if (ps->seqs[j].seq == seqs[i] && ps->seqs[j].file == file) {
				bury(seqs[i]);
				REMOVE_AT(ps->seqs, ps->nseqs, j);
				break;
			}
	}
	st_unlock();
}

static void rt_info_call(struct worker *w, int fd, struct hl_info_args *a)
{
	struct call c = { .fd = fd, .cmd = HL_IOCTL_INFO, .arg = a,
			  .size = sizeof(*a) };

	if (chance(&w->r, 5)) {
		c.must_fail = true;
		a->pad = 1 + rnd(&w->r, 0xffffffff);
	}
	pick_modes(w, &c);
	if (c.sm == SZ_SMALL)
		c.must_fail = false;
	do_call(w, &c);
}

/* REGISTER/UNREGISTER_EVENTFD, GET_EVENTS, and reading or closing eventfds */
void rt_op_events(struct worker *w)
{
	struct hl_info_args a = { 0 };
	uint64_t v;
	int fd, efd = -1, i;

	fd = chance(&w->r, 50) ? pick_fd(w, F_CONTROL, NULL, NULL) :
				 pick_compute(w, NULL, NULL);
	if (fd < 0)
		return;
	st_lock();
	if (rt.nefds)
		efd = rt.efds[rnd(&w->r, rt.nefds)];
	st_unlock();

	switch (rnd(&w->r, 6)) {
	case 0:		/* a new eventfd, registered */
		st_lock();
		if (rt.nefds < RT_MAX_EFD) {
			efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
			if (efd >= 0)
				rt.efds[rt.nefds++] = efd;
		}
		st_unlock();
		/* fallthrough */
	case 1:
		a.op = HL_INFO_REGISTER_EVENTFD;
		a.eventfd = chance(&w->r, 85) ? (uint32_t)efd :
			    chance(&w->r, 50) ? (uint32_t)fd : (uint32_t)interesting(&w->r);
		if (chance(&w->r, 5))
			a.return_pointer = (uintptr_t)w->out;
		break;
	case 2:
		a.op = HL_INFO_UNREGISTER_EVENTFD;
		break;
	case 3:
		a.op = HL_INFO_GET_EVENTS;
		a.return_pointer = (uintptr_t)w->out;
		a.return_size = chance(&w->r, 80) ? 8 : rnd(&w->r, 64);
		if (chance(&w->r, 10))
			a.return_pointer = chance(&w->r, 50) ? (uintptr_t)w->ro :
					   (uintptr_t)(w->guard + PAGE - 4);
		break;
	case 4:		/* drain one */
		if (efd >= 0)
			note(w, read(efd, &v, sizeof(v)) < 0 ? -errno : 0,
			     "read(eventfd %d)", efd);
		return;
	default:	/* close one, registered or not */
		st_lock();
		for (i = 0; i < rt.nefds; i++)
			if (rt.efds[i] == efd) {
				close(efd);
				REMOVE_AT(rt.efds, rt.nefds, i);
				break;
			}
		st_unlock();
		note(w, 0, "close(eventfd %d)", efd);
		return;
	}
	rt_info_call(w, fd, &a);
}

/* The counter, event-record and engine-status INFO ops */
void rt_op_info(struct worker *w)
{
	static const uint32_t ops_[] = {
		HL_INFO_RESET_COUNT, HL_INFO_TIME_SYNC, HL_INFO_CS_COUNTERS,
		HL_INFO_OPEN_STATS, HL_INFO_DEVICE_UTILIZATION,
		HL_INFO_HW_EVENTS, HL_INFO_HW_EVENTS_AGGREGATE,
		HL_INFO_LAST_ERR_OPEN_DEV_TIME, HL_INFO_CS_TIMEOUT_EVENT,
		HL_INFO_UNDEFINED_OPCODE_EVENT, HL_INFO_ENGINE_STATUS,
	};
	struct hl_info_args a = { 0 };
	int fd;

	fd = chance(&w->r, 50) ? pick_fd(w, F_CONTROL, NULL, NULL) :
				 pick_compute(w, NULL, NULL);
	if (fd < 0)
		return;
	a.op = ops_[rnd(&w->r, sizeof(ops_) / sizeof(ops_[0]))];
	a.return_pointer = (uintptr_t)w->out;
	a.return_size = chance(&w->r, 80) ? 512 : rnd(&w->r, 1024);
	if (a.op == HL_INFO_ENGINE_STATUS)
		a.return_size = chance(&w->r, 80) ? 1024 + rnd(&w->r, 4096) :
				(uint32_t)interesting(&w->r) & 0x1fffff;
	if (a.return_size > 65536)
		a.return_pointer = (uintptr_t)(w->guard + PAGE - 8);
	if (a.op == HL_INFO_DEVICE_UTILIZATION)
		a.period_ms = chance(&w->r, 80) ? 100 * (1 + rnd(&w->r, 10)) :
			      (uint32_t)interesting(&w->r);
	if (chance(&w->r, 10))
		a.return_pointer = chance(&w->r, 50) ? 0 : (uintptr_t)w->ro;
	rt_info_call(w, fd, &a);
}


// SPDX-License-Identifier: MIT
/*
 * hl-fuzz: generators: command buffers, HL_IOCTL_CS and HL_IOCTL_WAIT_CS.
 */

#include "hl-fuzz.h"

/* ---- CS and WAIT_CS ---- */

/* A device VA of @file, with the bytes left after it in *room */
uint64_t pick_va(struct worker *w, uint32_t file, uint64_t *room)
{
	int i;
	uint64_t off;

	st_lock();
	PICK(ps->maps, ps->nmaps, file, i);
	if (i < 0 || chance_pm(&w->r, 15)) {
		st_unlock();
		*room = 4096;
		return chance(&w->r, 50) ? stale(&w->r) : interesting(&w->r);
	}
	off = rnd(&w->r, ps->maps[i].size);
	if (chance(&w->r, 50))
		off &= ~7ULL;
	*room = ps->maps[i].size - off;
	off += ps->maps[i].va;
	st_unlock();
	return off;
}

static uint64_t pick_conn(struct worker *w, uint32_t file)
{
	int i;
	uint64_t id;

	st_lock();
	PICK(ps->conns, ps->nconns, file, i);
	id = i >= 0 && chance(&w->r, 90) ? ps->conns[i].id : rnd(&w->r, 1100);
	st_unlock();
	return id;
}

static uint64_t small_size(struct worker *w, uint64_t room)
{
	uint64_t s = chance(&w->r, 70) ? 1 + rnd(&w->r, 4096) : 1 + rnd(&w->r, 65536);

	if (chance_pm(&w->r, 15))
		return interesting(&w->r);
	return s < room ? s : room;
}


/*
 * A REDUCE op word: every operation (HL_REDUCE_OP_DIV_BY() with a divisor
 * of 1, small or the largest), or a malformed one (an unknown operation, a
 * divisor on another operation, DIV without one or past the largest)
 */
static uint32_t reduce_op(struct worker *w)
{
	static const uint32_t bad[] = {
		HL_REDUCE_OP_DIV + 1, HL_REDUCE_OP_DIV,
		HL_REDUCE_OP_SUM | (1u << HL_REDUCE_DIVISOR_SHIFT),
		HL_REDUCE_OP_PROD | (3u << HL_REDUCE_DIVISOR_SHIFT),
		0x100u | HL_REDUCE_OP_SUM, 0xffffffffu,
	};
	uint32_t n;

	if (!chance(&w->r, 95))
		return bad[rnd(&w->r, sizeof(bad) / sizeof(bad[0]))];
	if (rnd(&w->r, HL_REDUCE_OP_DIV + 1) != HL_REDUCE_OP_DIV)
		return (uint32_t)rnd(&w->r, HL_REDUCE_OP_DIV);
	n = chance(&w->r, 50) ? (uint32_t)rnd(&w->r, 64) + 1 :
	    chance(&w->r, 50) ? 1 : HL_REDUCE_MAX_DIVISOR;
	return HL_REDUCE_OP_DIV_BY(n);
}

/*
 * Write a command buffer of 1..8 mostly valid packets (GAUDI's format under
 * asic=gaudi) into host memory that @file maps, and return its device VA
 * (0: none).
 */
static uint64_t build_cb(struct worker *w, uint32_t file, uint32_t *cb_size,
			 bool *nic)
{
	uint8_t cb[512] __attribute__((aligned(8)));
	uint32_t len = 0, npkt = 1 + rnd(&w->r, chance(&w->r, 80) ? 3 : 8), k;
	/* packet kinds, mostly valid ones: index into the switch below */
	static const uint8_t kinds[] = {
		0, 0, 1, 1, 1, 1, 1, 1, 4, 4, 4, 4, 6, 6, 7, 7, 8, 9, 10, 11,
	};
	int i, idx[MAX_OBJ], n = 0;
	uint64_t va, room, off;
	uint8_t *host;

	*nic = false;
	if (gaudi_format) {
		len = build_gaudi_cb(w, file, cb, sizeof(cb), nic);
		npkt = 0;
	}
	for (k = 0; k < npkt && len + 40 <= sizeof(cb); k++) {
		uint64_t src, dst, r1, r2;

		switch (kinds[rnd(&w->r, sizeof(kinds))]) {
		case 0:
			len += hlthunk_pkt_nop(cb + len);
			break;
		case 1: case 2: case 3:
			src = pick_va(w, file, &r1);
			dst = pick_va(w, file, &r2);
			len += hlthunk_pkt_lin_dma(cb + len, src, dst,
						   small_size(w, r1 < r2 ? r1 : r2));
			break;
		case 4: case 5:
			dst = pick_va(w, file, &r1);
			len += hlthunk_pkt_memset(cb + len, dst, rnd64(&w->r),
						  small_size(w, r1));
			break;
		case 6:
			dst = pick_va(w, file, &r1) & ~3ULL;
			len += hlthunk_pkt_msg_long(cb + len, dst, (uint32_t)rnd64(&w->r));
			break;
		case 7:
			src = pick_va(w, file, &r1) & ~3ULL;
			dst = pick_va(w, file, &r2) & ~3ULL;
			r1 = small_size(w, r1 < r2 ? r1 : r2) / 4;
			len += hlthunk_pkt_reduce(cb + len, src, dst,
						  chance(&w->r, 95) ? (uint32_t)r1 : 0,
						  /* Every type and op, or unknown ones */
						  chance(&w->r, 95) ? (uint32_t)rnd(&w->r, HL_REDUCE_DTYPE_I32 + 1) : 7,
						  reduce_op(w));
			break;
		case 8:
			dst = pick_va(w, file, &r1);
			len += hlthunk_pkt_nic_send(cb + len, pick_conn(w, file), dst,
						    small_size(w, r1), rnd64(&w->r));
			*nic = true;
			break;
		case 9:
			dst = pick_va(w, file, &r1);
			len += hlthunk_pkt_nic_recv(cb + len, pick_conn(w, file), dst,
						    small_size(w, r1), rnd64(&w->r));
			*nic = true;
			break;
		case 10: {
			/* garbage: random opcode and words */
			uint64_t g[2] = { rnd64(&w->r), rnd64(&w->r) };

			memcpy(cb + len, g, 16);
			len += 16;
			break;
		}
		default:
			len += hlthunk_pkt_nop(cb + len);
			if (chance(&w->r, 50))
				((uint32_t *)(cb + len - 8))[1] = (uint32_t)rnd64(&w->r);
		}
	}
	/* a host mapping of this file whose buffer is writable */
	st_lock();
	for (i = 0; i < ps->nmaps; i++)
		if (ps->maps[i].file == file && ps->maps[i].host && ps->maps[i].hb >= 0 &&
		    ps->hb[ps->maps[i].hb].prot == (PROT_READ | PROT_WRITE) &&
		    ps->maps[i].size >= 64)
			idx[n++] = i;
	if (!n) {
		st_unlock();
		atomic_fetch_add(&sh->cb_none, 1);
		return 0;
	}
	atomic_fetch_add(&sh->cb_built, 1);
	i = idx[rnd(&w->r, n)];
	room = ps->maps[i].size;
	off = room > len ? rnd(&w->r, (room - len) / 8 + 1) * 8 : 0;
	/* the mapping's device VA keeps the host address's page offset */
	va = ps->maps[i].va + off;
	host = ps->hb[ps->maps[i].hb].p + ps->maps[i].host_off + off;
	if (len > room - off)
		len = (room - off) & ~7u;
	memcpy(host, cb, len);
	st_unlock();
	*cb_size = len;
	return va;
}

void op_cs(struct worker *w)
{
	struct hl_cs_chunk chunks[4];
	union hl_cs_args a = { 0 };
	struct call c = { .cmd = HL_IOCTL_CS, .arg = &a, .size = sizeof(a),
			  .chunks = chunks };
	uint32_t file, nq = 4, n, i;
	int dev, j, outstanding = 0;
	struct devinfo *di;
	bool nic = false, any_nic = false;
	uint64_t sig_seq = 0;
	long rc;

	c.fd = pick_compute(w, &dev, &file);
	if (c.fd < 0)
		return;
	st_lock();
	di = devinfo(dev);
	if (di && di->hw.num_queues)
		nq = di->hw.num_queues;
	for (j = 0; j < ps->nseqs; j++)
		outstanding += ps->seqs[j].file == file;
	st_unlock();
	/* keep the queues short: wait for old work first */
	if (outstanding >= 24)
		return;
	memset(chunks, 0, sizeof(chunks));
	n = 1 + rnd(&w->r, chance(&w->r, 80) ? 1 : 4);
	for (i = 0; i < n; i++) {
		uint32_t size = 0;

		chunks[i].cb_handle = build_cb(w, file, &size, &nic);
		any_nic |= nic;
		chunks[i].cb_size = size;
		chunks[i].queue_index = rnd(&w->r, nq);
		/*
		 * GAUDI's external queues (DMA 0-1: 0..7) take a kernel CB's
		 * handle (gen_rt.c), the others a device VA, as these are
		 */
		if (gaudi_format && nq > 8 && chance(&w->r, 85))
			chunks[i].queue_index = 8 + rnd(&w->r, nq - 8);
		if (!chunks[i].cb_handle || chance(&w->r, 3))
			chunks[i].cb_handle = pick_va(w, file, &(uint64_t){ 0 });
		if (chance(&w->r, 3))
			chunks[i].queue_index = (uint32_t)interesting(&w->r);
		if (chance(&w->r, 3))
			chunks[i].cb_size = (uint32_t)interesting(&w->r);
		if (chance(&w->r, 2))
			chunks[i].cs_chunk_flags = 1;
		if (chance(&w->r, 2))
			chunks[i].pad[rnd(&w->r, 10)] = 1;
		if (chance(&w->r, 5))
			chunks[i].collective_engine_id = 1;
	}
	a.in.chunks_execute = (uintptr_t)chunks;
	a.in.num_chunks_execute = n;
	/* short job timeouts, so that no run waits long */
	a.in.timeout = 1 + rnd(&w->r, 2);
	if (chance(&w->r, 5))
		a.in.timeout = 0;	/* timeout_locked, set short by main() */
	if (chance(&w->r, 25))
		a.in.cs_flags = HL_CS_FLAGS_CUSTOM_TIMEOUT;	/* as hl-thunk */
	if (chance(&w->r, 3) && (!any_nic || (opt.known_bugs & KB_UNBOUNDED_TIMEOUT)))
		a.in.timeout = (uint32_t)interesting(&w->r);
	/* Upstream's sync stream: a SIGNAL, or a WAIT on a seq of the file */
	if (chance(&w->r, 10)) {
		st_lock();
		PICK(ps->seqs, ps->nseqs, file, j);
		if (j >= 0)
			sig_seq = ps->seqs[j].seq;
		st_unlock();
		a.in.num_chunks_execute = chance(&w->r, 90) ? 1 : n;
		if (chance(&w->r, 50)) {
			a.in.cs_flags |= HL_CS_FLAGS_SIGNAL;
		} else {
			/*
			 * A WAIT, or a collective one: -EOPNOTSUPP under
			 * asic=emu; under asic=gaudi the external queues are
			 * masters, engines DMA 5 (5) and TPC 7 (19) gather
			 */
			if (chance(&w->r, 20)) {
				a.in.cs_flags |= HL_CS_FLAGS_COLLECTIVE_WAIT;
				chunks[0].collective_engine_id =
					chance(&w->r, 80) ?
					(chance(&w->r, 50) ? 5 : 19) :
					(uint32_t)interesting(&w->r);
				if (chance(&w->r, 80))
					chunks[0].queue_index = rnd(&w->r, 8);
			} else {
				a.in.cs_flags |= HL_CS_FLAGS_WAIT;
			}
			chunks[0].signal_seq_arr = chance(&w->r, 90) ?
				(uintptr_t)&sig_seq : interesting(&w->r);
			chunks[0].num_signal_seq_arr = chance(&w->r, 90) ? 1 :
				(uint32_t)interesting(&w->r);
		}
		if (chance(&w->r, 3) && (a.in.cs_flags & HL_CS_FLAGS_SIGNAL)) {
			/* Two kinds at once */
			a.in.cs_flags |= HL_CS_FLAGS_COLLECTIVE_WAIT;
			c.must_fail = true;
		}
		if (chance(&w->r, 5))
			a.in.cs_flags |= HL_CS_FLAGS_TIMESTAMP;
		/* never wait past the short job timeouts */
		a.in.timeout = 1 + rnd(&w->r, 2);
	} else if (chance(&w->r, 5)) {
		/* Encapsulated signals: reserve, unreserve, or wait on them */
		switch (rnd(&w->r, 3)) {
		case 0:
			a.in.cs_flags = HL_CS_FLAGS_RESERVE_SIGNALS_ONLY;
			a.in.encaps_signals_count = chance(&w->r, 80) ?
				1 + rnd(&w->r, 8) : (uint32_t)interesting(&w->r);
			a.in.encaps_signals_q_idx = chance(&w->r, 90) ?
				rnd(&w->r, 4) : (uint32_t)interesting(&w->r);
			break;
		case 1:
			a.in.cs_flags = HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY;
			a.in.encaps_sig_handle_id = rnd(&w->r, 8);
			break;
		default:
			st_lock();
			PICK(ps->seqs, ps->nseqs, file, j);
			if (j >= 0)
				chunks[0].encaps_signal_seq = ps->seqs[j].seq;
			st_unlock();
			a.in.num_chunks_execute = 1;
			a.in.cs_flags = HL_CS_FLAGS_WAIT |
					HL_CS_FLAGS_ENCAP_SIGNALS;
			chunks[0].encaps_signal_offset = rnd(&w->r, 4);
			a.in.timeout = 1 + rnd(&w->r, 2);
		}
	}
	if (chance(&w->r, 4)) {
		switch (rnd(&w->r, 6)) {
		case 0: a.in.chunks_execute = 0; break;
		case 1: a.in.chunks_execute = (uintptr_t)(w->guard + PAGE - 32); break;
		case 2: a.in.num_chunks_execute = chance(&w->r, 50) ? 0 : 65; break;
		case 3: a.in.num_chunks_execute = (uint32_t)interesting(&w->r); break;
		case 4: a.in.chunks_execute = 0xffff888000000000ULL; break;
		default: a.in.num_chunks_execute = n + 1;	/* past the array */
		}
	}
	if (chance(&w->r, 4)) {
		c.must_fail = true;
		switch (rnd(&w->r, 6)) {
		case 0:
			/*
			 * Any bit but the flags the driver serves (the
			 * encapsulated signals' too: a reservation's count
			 * and queue left in in.seq by the branch above make
			 * RESERVE_SIGNALS_ONLY alone a valid call)
			 */
			do {
				a.in.cs_flags = 1u << rnd(&w->r, 32);
			} while (a.in.cs_flags & (HL_CS_FLAGS_CUSTOM_TIMEOUT |
						  HL_CS_FLAGS_TIMESTAMP |
						  HL_CS_FLAGS_SIGNAL |
						  HL_CS_FLAGS_WAIT |
						  HL_CS_FLAGS_COLLECTIVE_WAIT |
						  HL_CS_FLAGS_FORCE_RESTORE |
						  HL_CS_FLAGS_STAGED_SUBMISSION |
						  HL_CS_FLAGS_STAGED_SUBMISSION_FIRST |
						  HL_CS_FLAGS_STAGED_SUBMISSION_LAST |
						  HL_CS_FLAGS_ENCAP_SIGNALS |
						  HL_CS_FLAGS_RESERVE_SIGNALS_ONLY |
						  HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY));
			break;
		case 1: a.in.ctx_id = 1; break;
		case 2: a.in.pad = 1; break;
		case 3:
			/* in.seq: its fields' bad values where it has them */
			if (a.in.cs_flags & HL_CS_FLAGS_RESERVE_SIGNALS_ONLY)
				a.in.encaps_signals_count = 0;
			else if (a.in.cs_flags & HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY)
				a.in.reserved = 1ull << 32;
			else
				a.in.reserved = 1;
			break;
		default:
			/*
			 * A forced restore phase of too many chunks (restore
			 * chunks are read only in a restore phase, as
			 * upstream's)
			 */
			a.in.cs_flags |= HL_CS_FLAGS_FORCE_RESTORE;
			a.in.chunks_restore = (uintptr_t)chunks;
			a.in.num_chunks_restore = HL_MAX_JOBS_PER_CS + 1;
		}
	}
	/*
	 * Too many chunks; a reservation's CS (RESERVE/UNRESERVE_SIGNALS_ONLY)
	 * reads no chunk, as upstream's, so it has no such limit
	 */
	if (a.in.num_chunks_execute > 4 && a.in.chunks_execute == (uintptr_t)chunks &&
	    !(a.in.cs_flags & (HL_CS_FLAGS_RESERVE_SIGNALS_ONLY |
			       HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY)))
		c.must_fail = c.must_fail || a.in.num_chunks_execute > HL_MAX_JOBS_PER_CS;
	pick_modes(w, &c);
	if (c.sm == SZ_SMALL)
		c.must_fail = false;
	rc = do_call(w, &c);
	if (rc >= 0)
		atomic_fetch_add(&sh->cs_ok, 1);
	if (rc >= 0 && out_ok(&c) && a.out.seq != UINT64_MAX &&
	    !(a.in.cs_flags & (HL_CS_FLAGS_RESERVE_SIGNALS_ONLY |
			       HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY))) {
		st_lock();
		if (ps->nseqs < MAX_OBJ)
			ps->seqs[ps->nseqs++] = (struct seqobj){ file, a.out.seq, any_nic };
		st_unlock();
	}
}

/* union hl_wait_cs_args before upstream's interrupt fields */
#define WAIT_CS_OLD_SIZE	32

void op_wait_cs(struct worker *w)
{
	union hl_wait_cs_args a = { 0 };
	struct call c = { .cmd = HL_IOCTL_WAIT_CS, .arg = &a, .size = sizeof(a) };
	uint32_t file;
	int i;
	uint64_t seq;
	long rc;
	bool failed;

	c.fd = pick_compute(w, NULL, &file);
	if (c.fd < 0)
		return;
	st_lock();
	PICK(ps->seqs, ps->nseqs, file, i);
	if (i >= 0 && chance(&w->r, 50))
		for (int j = 0; j < ps->nseqs; j++)	/* the oldest of this file */
			if (ps->seqs[j].file == file) {
				i = j;
				break;
			}
	seq = i >= 0 && chance(&w->r, 90) ? ps->seqs[i].seq :
	      chance(&w->r, 50) ? stale(&w->r) : interesting(&w->r);
	if (i >= 0 && chance(&w->r, 3))
		seq = ps->seqs[i].seq + 1 + rnd(&w->r, 2000);	/* the future */
	st_unlock();
	a.in.seq = seq;
	a.in.timeout_us = chance(&w->r, 40) ? 0 : chance(&w->r, 70) ?
			  rnd(&w->r, 20000) : rnd(&w->r, 3000000);
	if (chance(&w->r, 3))
		a.in.timeout_us = (opt.known_bugs & KB_UNBOUNDED_TIMEOUT) ?
				  interesting(&w->r) : 3000000;
	if (chance(&w->r, 4)) {
		c.must_fail = true;
		switch (rnd(&w->r, 6)) {
		case 0:
			a.in.ctx_id = 1;
			break;
		case 1:
			a.in.flags = 1u << rnd(&w->r, 32);
			break;
		/* the interrupt waits' fields, past the older struct */
		case 2:
			a.in.cq_counters_offset = 1 + rnd(&w->r, 4096);
			break;
		case 3:
			a.in.timestamp_handle = 1 + rnd(&w->r, 1u << 20);
			break;
		case 4:
			a.in.timestamp_offset = 1 + rnd(&w->r, 4096);
			break;
		default:
			/* upstream's interrupt waits: none here */
			a.in.flags = chance(&w->r, 50) ?
				     HL_WAIT_CS_FLAGS_INTERRUPT |
				     HL_WAIT_CS_FLAGS_ANY_CQ_INTERRUPT :
				     HL_WAIT_CS_FLAGS_REGISTER_INTERRUPT;
		}
	}
	/*
	 * A program built against the header before the interrupt fields:
	 * the first 32 bytes, served as the whole (unless a field past them
	 * was the must-fail one)
	 */
	if (chance(&w->r, 10) && !a.in.cq_counters_offset &&
	    !a.in.timestamp_handle && !a.in.timestamp_offset)
		c.size = WAIT_CS_OLD_SIZE;
	pick_modes(w, &c);
	rc = do_call(w, &c);
	/* A failed CS: aborted (-EIO) or stopped at its deadline (-ETIMEDOUT) */
	failed = rc == -EIO || rc == -ETIMEDOUT;
	if (c.am == ARG_NORMAL && c.sm == SZ_EXACT && failed)
		atomic_fetch_add(&sh->cs_aborted, 1);
	if (c.am == ARG_NORMAL && c.sm == SZ_EXACT && rc >= 0 &&
	    a.out.status == HL_WAIT_CS_STATUS_COMPLETED)
		atomic_fetch_add(&sh->cs_completed, 1);
	if (c.am == ARG_NORMAL && c.sm == SZ_EXACT &&
	    (failed || (rc >= 0 && a.out.status == HL_WAIT_CS_STATUS_COMPLETED))) {
		st_lock();
		for (i = 0; i < ps->nseqs; i++)
			if (ps->seqs[i].seq == seq && ps->seqs[i].file == file) {
				bury(seq);
				REMOVE_AT(ps->seqs, ps->nseqs, i);
				break;
			}
		st_unlock();
	}
	/* forget seqs the driver no longer knows */
	if (rc == -EINVAL && !c.must_fail) {
		st_lock();
		for (i = 0; i < ps->nseqs; i++)
			if (ps->seqs[i].seq == seq && ps->seqs[i].file == file) {
				REMOVE_AT(ps->seqs, ps->nseqs, i);
				break;
			}
		st_unlock();
	}
}

/* Wait for the oldest CSs of every file a bit, so queues drain */
void drain_some(struct worker *w)
{
	uint32_t file;
	int fd = pick_fd(w, F_COMPUTE, NULL, &file), n = 0, i;

	if (fd < 0)
		return;
	st_lock();
	for (i = 0; i < ps->nseqs; i++)
		n += ps->seqs[i].file == file;
	st_unlock();
	if (n >= 16) {
		enum op save = w->cur_op;

		w->cur_op = OP_WAIT_CS;
		op_wait_cs(w);
		w->cur_op = save;
	}
}

// SPDX-License-Identifier: MIT
/*
 * hl-fuzz: generators: HL_IOCTL_MEMORY (alloc, free, map, unmap, export).
 */

#include "hl-fuzz.h"

/* ---- MEMORY ---- */

static __thread bool last_out_ok;

static long mem_call(struct worker *w, int fd, union hl_mem_args *m, bool hostile)
{
	long rc;

	struct call c = { .fd = fd, .cmd = HL_IOCTL_MEMORY, .arg = m,
			  .size = sizeof(*m) };

	if (hostile) {
		if (chance(&w->r, 8))
			mutate_struct(w, m, sizeof(*m));
		if (chance(&w->r, 6)) {
			c.must_fail = true;
			switch (rnd(&w->r, 3)) {
			case 0: m->in.ctx_id = 1 + rnd(&w->r, 1000); break;
			case 1: m->in.pad = 1 + rnd(&w->r, 1000); break;
			default:	/* not O_CLOEXEC: an EXPORT flag */
				m->in.flags |= 0x100u << rnd(&w->r, 11);
			}
		}
		pick_modes(w, &c);
	}
	/*
	 * issue 9 item 6: a host MAP whose page array is above INT_MAX bytes
	 * makes kvmalloc WARN (and 2^35+ bytes pin 64 MiB+ arrays); mutated
	 * and raw arguments reach it too. Unless --known-bugs=huge-host-map,
	 * such a size becomes one access_ok() refuses.
	 */
	if (!(opt.known_bugs & KB_HUGE_HOST_MAP) && m->in.op == HL_MEM_OP_MAP &&
	    (m->in.flags & HL_MEM_USERPTR) && m->in.map_host.mem_size > 1ULL << 34)
		m->in.map_host.mem_size = ~0ULL - rnd(&w->r, 4096);
	rc = do_call(w, &c);
	last_out_ok = out_ok(&c);
	return rc;
}

void op_alloc(struct worker *w)
{
	union hl_mem_args m = { 0 };
	uint32_t file;
	int dev, fd = pick_compute(w, &dev, &file), n = 0, i;
	uint64_t size;
	long rc;

	if (fd < 0)
		return;
	st_lock();
	for (i = 0; i < ps->nallocs; i++)
		n += ps->allocs[i].file == file;
	st_unlock();
	if (n >= 12)
		return;
	m.in.op = HL_MEM_OP_ALLOC;
	m.in.alloc.mem_size = (1 + rnd(&w->r, chance(&w->r, 80) ? 2 : 8)) << 21;
	if (chance(&w->r, 20))
		m.in.alloc.mem_size = 1 + rnd(&w->r, 4 << 20);
	if (chance(&w->r, 5))
		m.in.alloc.mem_size = interesting(&w->r);
	if (chance(&w->r, 20))
		m.in.alloc.page_size = chance(&w->r, 50) ? 2 << 20 : interesting(&w->r);
	if (chance(&w->r, 20))
		m.in.flags = HL_MEM_CONTIGUOUS;
	if (chance(&w->r, 10))
		m.in.flags |= HL_MEM_SHARED;
	/* unused union bytes: must be refused (issue 9 item 8) */
	if (chance(&w->r, 2)) {
		m.in.export_dmabuf_fd.offset = 1 + rnd(&w->r, 100);
		size = m.in.alloc.mem_size;
		rc = mem_call(w, fd, &m, false);
		if (rc >= 0)
			violation(w, true, "MEMORY ALLOC with unused union bytes set accepted (issue 9 item 8)",
				  "");
		goto out;
	}
	size = m.in.alloc.mem_size;
	rc = mem_call(w, fd, &m, true);
out:
	if (rc >= 0 && m.out.handle && last_out_ok) {
		st_lock();
		if (ps->nallocs < MAX_OBJ)
			ps->allocs[ps->nallocs++] = (struct alloc){ file, m.out.handle,
				size };
		st_unlock();
	}
}

void op_free(struct worker *w)
{
	union hl_mem_args m = { 0 };
	uint32_t file;
	int fd = pick_compute(w, NULL, &file), i;
	uint64_t handle;
	long rc;

	if (fd < 0)
		return;
	st_lock();
	PICK(ps->allocs, ps->nallocs, file, i);
	handle = i >= 0 && chance(&w->r, 90) ? ps->allocs[i].handle :
		 chance(&w->r, 60) ? stale(&w->r) : interesting(&w->r);
	st_unlock();
	m.in.op = HL_MEM_OP_FREE;
	m.in.free.handle = handle;
	rc = mem_call(w, fd, &m, true);
	if (rc >= 0) {
		st_lock();
		for (i = 0; i < ps->nallocs; i++)
			if (ps->allocs[i].handle == handle && ps->allocs[i].file == file) {
				bury(handle);
				REMOVE_AT(ps->allocs, ps->nallocs, i);
				break;
			}
		st_unlock();
	}
}

/*
 * @hb: the host buffer at @p whose memory the mapping holds, or -1. The
 * buffer may have been recycled (op_hostbuf()) while the MAP ran: then the
 * mapping holds the old buffer's pages and counts against no buffer (the
 * CBs built in the new one would not be what the device reads).
 */
static void add_mapping(uint32_t file, uint64_t va, uint64_t size, bool host,
			int hb, const uint8_t *p, uint64_t off)
{
	st_lock();
	if (hb >= 0 && ps->hb[hb].p != p)
		hb = -1;
	if (ps->nmaps < MAX_OBJ) {
		ps->maps[ps->nmaps++] = (struct mapping){ file, va, size, host, hb, off };
		if (hb >= 0)
			ps->hb[hb].maps++;
	}
	st_unlock();
}

static uint64_t random_hint(struct worker *w, int dev, bool host)
{
	struct devinfo *di;
	uint64_t start, end, v;

	st_lock();
	di = devinfo(dev);
	if (!di) {
		st_unlock();
		return interesting(&w->r);
	}
	start = host ? di->hw.host_va_start : di->hw.dram_va_start;
	end = host ? di->hw.host_va_end : di->hw.dram_va_end;
	st_unlock();
	v = start + rnd(&w->r, (end - start) >> 21) * (2 << 20);
	if (chance(&w->r, 20))
		v += rnd(&w->r, 2 << 20);
	if (chance(&w->r, 10))
		v = end - (2 << 20) * rnd(&w->r, 3);
	return v;
}

void op_map_dev(struct worker *w)
{
	union hl_mem_args m = { 0 };
	uint32_t file;
	int dev, fd = pick_compute(w, &dev, &file), i, n = 0;
	uint64_t size = 0;
	uint32_t flags;
	long rc;

	if (fd < 0)
		return;
	st_lock();
	for (i = 0; i < ps->nmaps; i++)
		n += ps->maps[i].file == file && !ps->maps[i].host;
	PICK(ps->allocs, ps->nallocs, file, i);
	m.in.map_device.handle = i >= 0 && chance(&w->r, 90) ? ps->allocs[i].handle :
				 stale(&w->r);
	if (i >= 0)
		size = ps->allocs[i].size;
	st_unlock();
	if (n >= 16)
		return;
	m.in.op = HL_MEM_OP_MAP;
	if (chance(&w->r, 20))
		m.in.map_device.hint_addr = random_hint(w, dev, false);
	if (chance(&w->r, 10))
		m.in.flags |= HL_MEM_FORCE_HINT;
	flags = m.in.flags;
	rc = mem_call(w, fd, &m, true);
	if (rc >= 0 && last_out_ok && !(flags & HL_MEM_USERPTR))
		add_mapping(file, m.out.device_virt_addr, (size + (2 << 20) - 1) &
			    ~((uint64_t)(2 << 20) - 1), false, -1, NULL, 0);
}

void op_map_host(struct worker *w)
{
	union hl_mem_args m = { 0 };
	uint32_t file;
	int dev, fd = pick_compute(w, &dev, &file), hb, n = 0, i;
	uint64_t off, size, va;
	uint8_t *p;
	long rc;

	if (fd < 0)
		return;
	hb = rnd(&w->r, NHOSTBUF);
	st_lock();
	for (i = 0; i < ps->nmaps; i++)
		n += ps->maps[i].file == file && ps->maps[i].host;
	p = ps->hb[hb].p;
	/*
	 * issue 9 item 7: more than 6 live DMA mappings of one host page make
	 * DMA-API debugging WARN (add_dma_entry); keep to 4 per buffer when
	 * it is on, unless --known-bugs=many-host-maps.
	 */
	if (dma_api_debug && !(opt.known_bugs & KB_MANY_HOST_MAPS) &&
	    ps->hb[hb].maps >= 4)
		p = NULL;
	st_unlock();
	if (n >= 16 || !p)
		return;
	off = chance(&w->r, 70) ? rnd(&w->r, HOSTBUF_SIZE / PAGE) * PAGE :
				  rnd(&w->r, HOSTBUF_SIZE);
	size = 1 + rnd(&w->r, HOSTBUF_SIZE - off);
	if (chance(&w->r, 50))
		size = (size + PAGE - 1) & ~(PAGE - 1);
	if (off + size > HOSTBUF_SIZE)
		size = HOSTBUF_SIZE - off;
	m.in.op = HL_MEM_OP_MAP;
	m.in.flags = HL_MEM_USERPTR;
	m.in.map_host.host_virt_addr = (uintptr_t)p + off;
	m.in.map_host.mem_size = size;
	if (chance(&w->r, 20))
		m.in.map_host.hint_addr = random_hint(w, dev, true);
	if (chance(&w->r, 10))
		m.in.flags |= HL_MEM_FORCE_HINT;
	if (chance(&w->r, 8)) {
		/* hostile sizes and addresses */
		switch (rnd(&w->r, 8)) {
		case 0: m.in.map_host.mem_size = 0; break;
		case 1: m.in.map_host.mem_size = ~0ULL - rnd(&w->r, 4096); break;
		case 2:
			/*
			 * Huge, at an address low enough for access_ok(): the
			 * driver allocates a page array of size / 512 bytes
			 * before it pins anything. issue 9 item 6: >= 2^38
			 * bytes (1 TiB) make kvmalloc WARN, and 2^35+ hold
			 * 64 MiB+ arrays; --known-bugs=huge-host-map tries
			 * them, else the size stays below 2^34.
			 */
			m.in.map_host.mem_size = 1ULL << (30 + rnd(&w->r, 12));
			m.in.map_host.host_virt_addr = 0x10000000 + rnd(&w->r, 16) * PAGE;
			if (!(opt.known_bugs & KB_HUGE_HOST_MAP) &&
			    m.in.map_host.mem_size > 1ULL << 34)
				m.in.map_host.mem_size = 1ULL << (30 + rnd(&w->r, 5));
			break;
		case 3: m.in.map_host.host_virt_addr = 0; break;
		case 4: m.in.map_host.host_virt_addr = 0xffff888000000000ULL; break;
		case 5: m.in.map_host.host_virt_addr = (uintptr_t)(w->guard + PAGE); break;
		case 6: m.in.map_host.host_virt_addr = (uintptr_t)w->ro; break;
		default: m.in.map_host.host_virt_addr = ~0ULL - rnd(&w->r, 8192);
		}
	}
	{
		/* the inputs, before the output overwrites the union */
		union hl_mem_args in = m;

		rc = mem_call(w, fd, &m, true);
		va = m.out.device_virt_addr;
		m.in = in.in;
	}
	size = m.in.map_host.mem_size;
	if (rc >= 0 && last_out_ok && (m.in.flags & HL_MEM_USERPTR)) {
		if (m.in.map_host.host_virt_addr == (uintptr_t)p + off && size <= HOSTBUF_SIZE)
			add_mapping(file, va, size, true, hb, p, off);
		else
			add_mapping(file, va, size, true, -1, NULL, 0);
	}
}

void op_unmap(struct worker *w)
{
	union hl_mem_args m = { 0 };
	uint32_t file;
	int fd = pick_compute(w, NULL, &file), i;
	uint64_t va;
	long rc;

	if (fd < 0)
		return;
	st_lock();
	PICK(ps->maps, ps->nmaps, file, i);
	va = i >= 0 && chance(&w->r, 90) ? ps->maps[i].va : stale(&w->r);
	if (i >= 0 && chance(&w->r, 5))
		va += 1 + rnd(&w->r, 4096);
	st_unlock();
	m.in.op = HL_MEM_OP_UNMAP;
	m.in.unmap.device_virt_addr = va;
	rc = mem_call(w, fd, &m, true);
	if (rc >= 0) {
		st_lock();
		for (i = 0; i < ps->nmaps; i++)
			if (ps->maps[i].va == va && ps->maps[i].file == file) {
				bury(va);
				if (ps->maps[i].hb >= 0)
					ps->hb[ps->maps[i].hb].maps--;
				REMOVE_AT(ps->maps, ps->nmaps, i);
				break;
			}
		st_unlock();
	}
}

int count_fds_locked(enum fkind kind)
{
	int i, n = 0;

	for (i = 0; i < ps->nfds; i++)
		n += ps->fds[i].kind == kind;
	return n;
}

void op_export(struct worker *w)
{
	union hl_mem_args m = { 0 };
	uint32_t file;
	int dev, fd = pick_compute(w, &dev, &file), i;
	uint64_t va = 0, size = 0;
	long rc;

	if (fd < 0)
		return;
	st_lock();
	if (ps->nfds >= MAX_FDS - 4 || count_fds_locked(F_DMABUF) >= 12) {
		st_unlock();
		return;
	}
	PICK(ps->maps, ps->nmaps, file, i);
	if (i >= 0 && ps->maps[i].host && chance(&w->r, 80))
		PICK(ps->maps, ps->nmaps, file, i);
	if (i >= 0) {
		va = ps->maps[i].va;
		size = ps->maps[i].size;
	}
	st_unlock();
	if (i < 0 || chance(&w->r, 5)) {
		va = stale(&w->r);
		size = 2 << 20;
	}
	m.in.op = HL_MEM_OP_EXPORT_DMABUF_FD;
	m.in.export_dmabuf_fd.addr = va;
	m.in.export_dmabuf_fd.mem_size = size;
	m.in.flags = chance(&w->r, 50) ? O_RDWR | O_CLOEXEC : O_RDWR;
	if (chance(&w->r, 30) && size > PAGE) {
		/* a page-aligned sub-range */
		uint64_t pages = size / PAGE;
		uint64_t first = rnd(&w->r, pages);

		m.in.export_dmabuf_fd.offset = first * PAGE;
		m.in.export_dmabuf_fd.mem_size = (1 + rnd(&w->r, pages - first)) * PAGE;
	}
	if (chance(&w->r, 8)) {
		switch (rnd(&w->r, 6)) {
		case 0: m.in.export_dmabuf_fd.mem_size = 0; break;
		case 1: m.in.export_dmabuf_fd.offset = ~0ULL - rnd(&w->r, 3) * PAGE; break;
		case 2: m.in.export_dmabuf_fd.mem_size = ~0ULL & ~(PAGE - 1); break;
		case 3: m.in.export_dmabuf_fd.offset += 1 + rnd(&w->r, 100); break;
		case 4: m.in.flags = (uint32_t)interesting(&w->r); break;
		default: m.in.export_dmabuf_fd.addr += PAGE * rnd(&w->r, 4);
		}
	}
	rc = mem_call(w, fd, &m, true);
	if (rc >= 0 && last_out_ok && m.out.fd >= 0)
		add_fd(m.out.fd, dev, F_DMABUF, 0, size);
}

void op_mem_raw(struct worker *w)
{
	union hl_mem_args m;
	int fd = pick_compute(w, NULL, NULL);
	long rc;
	size_t i;

	if (fd < 0)
		return;
	for (i = 0; i < sizeof(m); i += 8) {
		uint64_t v = chance(&w->r, 50) ? 0 : interesting(&w->r);

		memcpy((uint8_t *)&m + i, &v, 8);
	}
	m.in.op = rnd(&w->r, 8);
	rc = mem_call(w, fd, &m, true);
	/* a raw EXPORT that worked gave us an fd: keep it, to be closed later */
	if (rc >= 0 && last_out_ok && m.out.fd > 2 && m.out.fd < 4096)
		add_fd(m.out.fd, -1, F_DMABUF, 0, 0);
}

/*
 * Upstream's MEMORY ops for hardware blocks and timestamp buffers, which
 * the device has not (MAP_BLOCK, TS_ALLOC): never a success, however
 * plausible the arguments
 */
void op_mem_unsup(struct worker *w)
{
	union hl_mem_args m;
	struct call c = { .cmd = HL_IOCTL_MEMORY, .arg = &m, .size = sizeof(m),
			  .must_fail = true,
			  .why = "MAP_BLOCK or TS_ALLOC succeeded (want EOPNOTSUPP)" };

	c.fd = pick_compute(w, NULL, NULL);
	if (c.fd < 0)
		return;
	memset(&m, 0, sizeof(m));
	if (chance(&w->r, 50)) {
		m.in.op = HL_MEM_OP_MAP_BLOCK;
		m.in.map_block.block_addr = chance(&w->r, 50) ?
			0x1000000ull * rnd(&w->r, 4096) : interesting(&w->r);
	} else {
		m.in.op = HL_MEM_OP_TS_ALLOC;
		m.in.num_of_elements = chance(&w->r, 80) ? 1 + rnd(&w->r, 1024) :
				       (uint32_t)interesting(&w->r);
	}
	if (chance(&w->r, 8)) {
		uint32_t op = m.in.op;

		/* junk anywhere but in the op, which must stay refused */
		mutate_struct(w, &m, sizeof(m));
		m.in.op = op;
	}
	pick_modes(w, &c);
	do_call(w, &c);
}

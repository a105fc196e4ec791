// SPDX-License-Identifier: MIT
/*
 * hl-fuzz: generators: the dma-buf test importer, dma-buf files.
 */

#include "hl-fuzz.h"

/* ---- the test importer ---- */

void op_imp_import(struct worker *w)
{
	static const uint32_t flags[] = {
		HL_IMPORTER_F_DYNAMIC, HL_IMPORTER_F_DYNAMIC, 0,
		HL_IMPORTER_F_DYNAMIC | HL_IMPORTER_F_PIN,
		HL_IMPORTER_F_DYNAMIC | HL_IMPORTER_F_NO_P2P,
		HL_IMPORTER_F_DYNAMIC | HL_IMPORTER_F_PIN | HL_IMPORTER_F_PIN_NO_REVOKE,
	};
	struct hl_importer_import im = { 0 };
	struct call c = { .cmd = HL_IMPORTER_IOCTL_IMPORT, .arg = &im, .size = sizeof(im) };
	uint32_t ifile;
	int dfd, n = 0, i;
	uint64_t size = 0;

	/* issue 9 item 4: imports of exports racing unbind NULL-deref */
	if (opt.unbind && !(opt.known_bugs & KB_EXPORT_UNBIND))
		return;
	c.fd = pick_fd(w, F_IMPORTER, NULL, &ifile);
	if (c.fd < 0)
		return;
	st_lock();
	for (i = 0; i < ps->nimports; i++)
		n += ps->imports[i].file == ifile;
	/*
	 * Under DMA-API debugging, at most 4 imports per process (they can
	 * all map the same HBM), and none by forked children (whose imports
	 * stay in the parent's importer files unknown), unless
	 * --known-bugs=many-import-maps.
	 */
	if (dma_api_debug && !(opt.known_bugs & KB_MANY_IMPORT_MAPS) &&
	    (ps->nimports >= 4 || in_child))
		n = 16;
	st_unlock();
	if (n >= 16)
		return;
	dfd = pick_fd(w, chance(&w->r, 92) ? F_DMABUF : rnd(&w->r, F_NUM), NULL, NULL);
	im.fd = dfd >= 0 ? (uint32_t)dfd : (uint32_t)interesting(&w->r);
	im.flags = flags[rnd(&w->r, opt.unbind ? 5 : 6)];
	if (chance(&w->r, 3))
		im.flags = (uint32_t)interesting(&w->r) & ~HL_IMPORTER_F_PIN_NO_REVOKE;
	if (chance(&w->r, 3)) {
		c.must_fail = true;
		if (chance(&w->r, 50))
			im.pad = 1;
		else
			im.reserved = 1;
	}
	pick_modes(w, &c);
	if (c.sm == SZ_SMALL || c.sm == SZ_LARGE_ZERO)	/* importer: exact size only */
		c.must_fail = true;
	if (do_call(w, &c) >= 0 && out_ok(&c)) {
		size = im.size;
		st_lock();
		if (ps->nimports < MAX_OBJ)
			ps->imports[ps->nimports++] = (struct import){ ifile, im.handle, size };
		st_unlock();
	}
}

/* An import of an importer file: its fd, handle and size */
static int pick_import(struct worker *w, uint32_t *handle, uint64_t *size, uint32_t *ifile)
{
	uint32_t file;
	int fd = pick_fd(w, F_IMPORTER, NULL, &file), i;

	if (fd < 0)
		return -1;
	st_lock();
	PICK(ps->imports, ps->nimports, file, i);
	if (i >= 0 && chance(&w->r, 92)) {
		*handle = ps->imports[i].handle;
		*size = ps->imports[i].size;
	} else {
		*handle = chance(&w->r, 50) ? (uint32_t)stale(&w->r) : rnd(&w->r, 20);
		*size = 4096;
	}
	st_unlock();
	*ifile = file;
	return fd;
}

void imp_simple(struct worker *w, unsigned long cmd)
{
	struct hl_importer_handle h = { 0 };
	struct call c = { .cmd = cmd, .arg = &h, .size = sizeof(h) };
	uint64_t size;
	uint32_t ifile;
	int i;

	c.fd = pick_import(w, &h.handle, &size, &ifile);
	if (c.fd < 0)
		return;
	if (chance(&w->r, 3)) {
		c.must_fail = true;
		h.reserved = 1;
	}
	pick_modes(w, &c);
	if (c.sm != SZ_EXACT)
		c.must_fail = true;
	if (do_call(w, &c) >= 0 && cmd == HL_IMPORTER_IOCTL_RELEASE) {
		st_lock();
		for (i = 0; i < ps->nimports; i++)
			if (ps->imports[i].handle == h.handle && ps->imports[i].file == ifile) {
				bury(h.handle);
				REMOVE_AT(ps->imports, ps->nimports, i);
				break;
			}
		st_unlock();
	}
}

void op_imp_status(struct worker *w)
{
	struct hl_importer_status st = { 0 };
	struct call c = { .cmd = HL_IMPORTER_IOCTL_STATUS, .arg = &st, .size = sizeof(st) };
	uint64_t size;
	uint32_t ifile;

	c.fd = pick_import(w, &st.handle, &size, &ifile);
	if (c.fd < 0)
		return;
	if (chance(&w->r, 3)) {
		c.must_fail = true;
		st.reserved = 1;
	}
	pick_modes(w, &c);
	if (c.sm != SZ_EXACT)
		c.must_fail = true;
	do_call(w, &c);
}

void op_imp_map(struct worker *w)
{
	struct hl_importer_map m = { 0 };
	struct call c = { .cmd = HL_IMPORTER_IOCTL_MAP, .arg = &m, .size = sizeof(m) };
	uint64_t size;
	uint32_t ifile;

	c.fd = pick_import(w, &m.handle, &size, &ifile);
	if (c.fd < 0)
		return;
	pick_modes(w, &c);
	if (c.sm != SZ_EXACT)
		c.must_fail = true;
	do_call(w, &c);
}

void op_imp_sg(struct worker *w)
{
	struct hl_importer_sg_entry s = { 0 };
	struct call c = { .cmd = HL_IMPORTER_IOCTL_SG_ENTRY, .arg = &s, .size = sizeof(s) };
	uint64_t size;
	uint32_t ifile;

	c.fd = pick_import(w, &s.handle, &size, &ifile);
	if (c.fd < 0)
		return;
	s.index = chance(&w->r, 80) ? rnd(&w->r, 4) : (uint32_t)interesting(&w->r);
	do_call(w, &c);
}

/* edu DMA takes ~100 ms a piece: at most one small transfer every 2 s */
void op_imp_dma(struct worker *w)
{
	struct hl_importer_dma d = { 0 };
	struct call c = { .arg = &d, .size = sizeof(d) };
	uint64_t size, last = atomic_load(&sh->last_dma_ns), t = now_ns();
	uint32_t ifile;

	if (t - last < 2000000000ULL ||
	    !atomic_compare_exchange_strong(&sh->last_dma_ns, &last, t))
		return;
	c.fd = pick_import(w, &d.handle, &size, &ifile);
	if (c.fd < 0)
		return;
	c.cmd = chance(&w->r, 50) ? HL_IMPORTER_IOCTL_DMA_READ : HL_IMPORTER_IOCTL_DMA_WRITE;
	d.offset = rnd(&w->r, size);
	d.size = 1 + rnd(&w->r, 64);
	d.user_ptr = (uintptr_t)w->out;
	if (chance(&w->r, 30))
		d.flags = HL_IMPORTER_DMA_F_WAIT;
	if (chance(&w->r, 10)) {
		switch (rnd(&w->r, 4)) {
		case 0: d.offset = ~0ULL - rnd(&w->r, 10); break;
		case 1: d.size = 0; break;
		case 2: d.user_ptr = (uintptr_t)(w->guard + PAGE); break;
		default: d.offset = size;
		}
	}
	do_call(w, &c);
}

/* ---- dma-buf files ---- */

void op_sync_file(struct worker *w)
{
	struct dma_buf_export_sync_file s = { 0 };
	struct call c = { .cmd = DMA_BUF_IOCTL_EXPORT_SYNC_FILE, .arg = &s,
			  .size = sizeof(s) };

	c.fd = pick_fd(w, F_DMABUF, NULL, NULL);
	if (c.fd < 0)
		return;
	st_lock();
	if (ps->nfds >= MAX_FDS - 4 || count_fds_locked(F_SYNC) >= 4) {
		st_unlock();
		return;
	}
	st_unlock();
	s.flags = chance(&w->r, 90) ? (chance(&w->r, 50) ? DMA_BUF_SYNC_READ :
				       DMA_BUF_SYNC_RW) : (uint32_t)interesting(&w->r);
	s.fd = -1;
	if (do_call(w, &c) >= 0 && s.fd >= 0)
		add_fd(s.fd, -1, F_SYNC, 0, 0);
}

void op_dmabuf_mmap(struct worker *w)
{
	int fd = pick_fd(w, F_DMABUF, NULL, NULL);
	void *p;

	if (fd < 0)
		return;
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	note(w, p == MAP_FAILED ? -errno : 0, "mmap(dmabuf fd %d)", fd);
	if (p != MAP_FAILED) {
		violation(w, false, "mmap of an exported dma-buf succeeded (no CPU access promised)",
			  "mmap");
		munmap(p, PAGE);
	}
}

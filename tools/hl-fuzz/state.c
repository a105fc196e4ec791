// SPDX-License-Identifier: MIT
/*
 * hl-fuzz: state: shared memory, per-process files and objects, picking them, host buffers.
 */

#include "hl-fuzz.h"

struct shared *sh;
int nworkers;
int ndev;
char dev_bdf[MAX_DEVS][32];
bool dma_api_debug;
struct pstate *ps;
bool in_child;

const char *const fkind_name[F_NUM] = {
	"compute", "control", "dmabuf", "importer", "sync_file",
};

void st_lock(void)
{
	if (!in_child)
		pthread_mutex_lock(&ps->lock);
}

void st_unlock(void)
{
	if (!in_child)
		pthread_mutex_unlock(&ps->lock);
}

void bury(uint64_t v)
{
	ps->grave[ps->ngrave++ % GRAVE] = v;
}

uint64_t stale(struct rng *r)
{
	uint32_t n = ps->ngrave < GRAVE ? ps->ngrave : GRAVE;

	return n ? ps->grave[rnd(r, n)] : interesting(r);
}

/* ---- sets in shared memory ---- */

bool set_insert(_Atomic uint64_t *set, uint32_t size, uint64_t key)
{
	uint32_t i, h;

	if (!key)
		key = 1;
	h = (uint32_t)mix(key, 0x51ed) & (size - 1);
	for (i = 0; i < 64; i++) {
		_Atomic uint64_t *p = &set[(h + i) & (size - 1)];
		uint64_t cur = atomic_load_explicit(p, memory_order_relaxed);

		if (cur == key)
			return false;
		if (!cur) {
			uint64_t zero = 0;

			if (atomic_compare_exchange_strong(p, &zero, key))
				return true;
			if (zero == key)
				return false;
		}
	}
	return false;	/* full around here: count as seen */
}

/* ---- picking objects ---- */

int pick_fd(struct worker *w, enum fkind kind, int *dev, uint32_t *file)
{
	int idx[MAX_FDS], n = 0, i, fd = -1;

	st_lock();
	for (i = 0; i < ps->nfds; i++)
		if (ps->fds[i].kind == kind)
			idx[n++] = i;
	if (!n && ps->nfds && chance(&w->r, 10))
		idx[n++] = rnd(&w->r, ps->nfds);	/* the wrong kind of file */
	if (n) {
		i = idx[rnd(&w->r, n)];
		fd = ps->fds[i].fd;
		if (dev)
			*dev = ps->fds[i].dev;
		if (file)
			*file = ps->fds[i].file;
	}
	st_unlock();
	return fd;
}

/*
 * A compute fd, mostly; sometimes a control node or another kind of file
 * (hostile).
 */
int pick_compute(struct worker *w, int *dev, uint32_t *file)
{
	int fd;

	if (chance(&w->r, 3)) {
		fd = pick_fd(w, rnd(&w->r, F_NUM), dev, file);
		if (fd >= 0)
			return fd;
	}
	return pick_fd(w, F_COMPUTE, dev, file);
}

struct devinfo *devinfo(int dev)
{
	return dev >= 0 && dev < MAX_DEVS && ps->dev[dev].valid ? &ps->dev[dev] : NULL;
}

static void forget_file(uint32_t file);

void add_fd(int fd, int dev, enum fkind kind, uint32_t file, uint64_t size)
{
	st_lock();
	if (ps->nfds == MAX_FDS) {
		st_unlock();
		close(fd);
		if (file)
			forget_file(file);
		return;
	}
	ps->fds[ps->nfds++] = (struct fdobj){ fd, dev, kind,
		file ? file : ++ps->next_file, size };
	st_unlock();
}

bool file_open_locked(uint32_t file)
{
	int i;

	for (i = 0; i < ps->nfds; i++)
		if (ps->fds[i].file == file)
			return true;
	return false;
}

/* The last fd of @file was closed: its objects are gone (kept as stale) */
void forget_file_locked(uint32_t file)
{
	int i;

	for (i = 0; i < ps->nallocs; i++)
		if (ps->allocs[i].file == file) {
			bury(ps->allocs[i].handle);
			REMOVE_AT(ps->allocs, ps->nallocs, i);
			i--;
		}
	for (i = 0; i < ps->nmaps; i++)
		if (ps->maps[i].file == file) {
			bury(ps->maps[i].va);
			if (ps->maps[i].hb >= 0)
				ps->hb[ps->maps[i].hb].maps--;
			REMOVE_AT(ps->maps, ps->nmaps, i);
			i--;
		}
	for (i = 0; i < ps->nimports; i++)
		if (ps->imports[i].file == file) {
			bury(ps->imports[i].handle);
			REMOVE_AT(ps->imports, ps->nimports, i);
			i--;
		}
	for (i = 0; i < ps->nseqs; i++)
		if (ps->seqs[i].file == file) {
			bury(ps->seqs[i].seq);
			REMOVE_AT(ps->seqs, ps->nseqs, i);
			i--;
		}
	for (i = 0; i < ps->nconns; i++)
		if (ps->conns[i].file == file) {
			bury(ps->conns[i].id);
			REMOVE_AT(ps->conns, ps->nconns, i);
			i--;
		}
	for (i = 0; i < ps->ncqs; i++)
		if (ps->cqs[i].file == file) {
			bury(ps->cqs[i].handle);
			REMOVE_AT(ps->cqs, ps->ncqs, i);
			i--;
		}
	for (i = 0; i < ps->nmrs; i++)
		if (ps->mrs[i].file == file) {
			bury(ps->mrs[i].lkey);
			bury(ps->mrs[i].rkey);
			REMOVE_AT(ps->mrs, ps->nmrs, i);
			i--;
		}
}

static void forget_file(uint32_t file)
{
	st_lock();
	if (!file_open_locked(file))
		forget_file_locked(file);
	st_unlock();
}

/* ---- host buffers ---- */

void hostbuf_new(struct worker *w, int i)
{
	struct hostbuf *b = &ps->hb[i];
	int prot = PROT_READ | PROT_WRITE;
	uint8_t *p;

	if (chance(&w->r, 10))
		prot = PROT_READ;
	else if (chance(&w->r, 5))
		prot = PROT_NONE;
	p = mmap(NULL, HOSTBUF_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		b->p = NULL;
		return;
	}
	memset(p, 0x5a, HOSTBUF_SIZE);
	mprotect(p, HOSTBUF_SIZE, prot);
	b->p = p;
	b->size = HOSTBUF_SIZE;
	b->prot = prot;
	b->maps = 0;
}

void op_hostbuf(struct worker *w)
{
	int i = rnd(&w->r, NHOSTBUF);

	st_lock();
	/* the device mappings of the old buffer keep their pinned pages */
	if (ps->hb[i].p)
		munmap(ps->hb[i].p, ps->hb[i].size);
	hostbuf_new(w, i);
	/* its mappings now count against no buffer */
	for (int j = 0; j < ps->nmaps; j++)
		if (ps->maps[j].hb == i)
			ps->maps[j].hb = -1;
	note(w, 0, "hostbuf %d recycled -> %p prot %d", i, ps->hb[i].p, ps->hb[i].prot);
	st_unlock();
}

/* ---- the worker's own pages ---- */

/* The sealed fields as worker_seal() left them, per thread (and per fork) */
static __thread uint8_t sealed[WORKER_SEALED];

struct worker *worker_alloc(void)
{
	uint8_t *base;
	struct worker *w;

	_Static_assert(WORKER_SEALED % 8 == 0, "the mutable part starts a page");
	_Static_assert(sizeof(struct worker) - WORKER_SEALED <= PAGE,
		       "the mutable part fits in a page");
	base = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		perror("hl-fuzz: mmap");
		return NULL;
	}
	memset(base, WORKER_FILL, 2 * PAGE);
	w = (struct worker *)(base + PAGE - WORKER_SEALED);
	memset(w, 0, sizeof(*w));
	return w;
}

static uint8_t *worker_base(struct worker *w)
{
	return (uint8_t *)w + WORKER_SEALED - PAGE;
}

/* The sealed fields are set: their page becomes read-only */
void worker_seal(struct worker *w)
{
	memcpy(sealed, w, WORKER_SEALED);
	if (mprotect(worker_base(w), PAGE, PROT_READ))
		perror("hl-fuzz: mprotect");
}

/* A forked child's worker: without the parent's KCOV trace buffer */
void worker_reseal(struct worker *w, bool kcov)
{
	mprotect(worker_base(w), PAGE, PROT_READ | PROT_WRITE);
	w->kcov = kcov;
	worker_seal(w);
}

void worker_free(struct worker *w)
{
	munmap(worker_base(w), 2 * PAGE);
}

void worker_check(struct worker *w, const char *during)
{
	const uint8_t *b = worker_base(w), *sw = (const uint8_t *)w;
	size_t i, end = PAGE - WORKER_SEALED + sizeof(*w);
	char dump[1024];
	size_t len = 0;
	int n = 0;

	for (i = 0; i < 2 * PAGE; i++) {
		if (i == PAGE - WORKER_SEALED)
			i = end;	/* the struct itself */
		if (i < 2 * PAGE && b[i] != WORKER_FILL && n++ < 40 &&
		    len < sizeof(dump) - 32)
			len += snprintf(dump + len, sizeof(dump) - len, " +%zu=%02x",
					i, b[i]);
	}
	for (i = 0; i < WORKER_SEALED; i++)
		if (sw[i] != sealed[i] && n++ < 48 && len < sizeof(dump) - 32)
			len += snprintf(dump + len, sizeof(dump) - len,
					" sealed+%zu=%02x(was %02x)", i, sw[i],
					sealed[i]);
	if (!n)
		return;
	fail(EXIT_CRASH, "worker %d: its own pages %p changed behind its back (%d bytes)"
	     " during or before: %s:%s", w->id, (void *)b, n, during, dump);
}

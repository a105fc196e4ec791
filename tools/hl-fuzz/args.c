// SPDX-License-Identifier: MIT
/*
 * hl-fuzz: argument forms: values, hostile pointers and sizes, the ioctl wrapper.
 */

#include "hl-fuzz.h"

static const char *const argmode_name[ARG_NUM] = {
	"", " arg=ro", " arg=NULL", " arg=unmapped", " arg=kernel",
	" arg=straddle",
};

/* Values that tend to find edges */
uint64_t interesting(struct rng *r)
{
	static const uint64_t v[] = {
		0, 1, 2, 7, 8, 0xff, 0xfff, 0x1000, 0x1001, 0x1fffff,
		0x200000, 0x200001, 0x7fffffff, 0x80000000, 0xffffffff,
		0x100000000ULL, 0xfffffffffffULL, 1ULL << 47, 1ULL << 48,
		1ULL << 63, ~0ULL, ~0ULL - 0xfff, ~0ULL - 7,
		0x100000000000ULL, 0x1fffffffffffULL, 0x200000000000ULL,
		0x20ffffffffffULL, 0x210000000000ULL, 0xffff888000000000ULL,
	};
	if (chance(r, 20))
		return rnd64(r);
	return v[rnd(r, sizeof(v) / sizeof(v[0]))];
}

/* ---- describing a call, for the history ---- */

static int fmt_fields(char *b, size_t n, const char *names, const void *arg,
		      size_t size)
{
	/* names: "name:off:width,..." (width 4 or 8) */
	const uint8_t *a = arg;
	char buf[256], *save, *tok;
	int len = 0;

	snprintf(buf, sizeof(buf), "%s", names);
	for (tok = strtok_r(buf, ",", &save); tok && len < (int)n;
	     tok = strtok_r(NULL, ",", &save)) {
		char name[32];
		unsigned int off, w;
		uint64_t v = 0;

		if (sscanf(tok, "%31[^:]:%u:%u", name, &off, &w) != 3)
			continue;
		if (off + w > size)
			continue;
		memcpy(&v, a + off, w);
		len += snprintf(b + len, n - len, " %s=0x%" PRIx64, name, v);
	}
	return len;
}

static void describe(char *b, size_t n, int fd, unsigned long cmd,
		     const void *arg, size_t ksize, const void *chunks)
{
	unsigned int nr = _IOC_NR(cmd), type = _IOC_TYPE(cmd);
	int len = snprintf(b, n, "fd=%d ", fd);

	if (type == 'H' && nr == _IOC_NR(HL_IOCTL_INFO)) {
		len += snprintf(b + len, n - len, "INFO");
		fmt_fields(b + len, n - len,
			   "op:12:4,ptr:0:8,size:8:4,ctx:16:4,pad:20:4", arg, ksize);
	} else if (type == 'H' && nr == _IOC_NR(HL_IOCTL_MEMORY)) {
		static const char *const mop[] = {
			"ALLOC", "FREE", "MAP", "UNMAP", "op4", "EXPORT",
		};
		uint32_t op = ((const union hl_mem_args *)arg)->in.op;

		len += snprintf(b + len, n - len, "MEMORY %s", op < 6 ? mop[op] : "op?");
		fmt_fields(b + len, n - len,
			   "u0:0:8,u1:8:8,u2:16:8,op:24:4,flags:28:4,ctx:32:4,pad:36:4",
			   arg, ksize);
	} else if (type == 'H' && nr == _IOC_NR(HL_IOCTL_CS)) {
		const struct hl_cs_in *in = arg;

		len += snprintf(b + len, n - len, "CS");
		len += fmt_fields(b + len, n - len,
				  "restore:0:8,chunks:8:8,rsvd:16:8,nrestore:24:4,nexec:28:4,timeout:32:4,flags:36:4,ctx:40:4,pad:44:4",
				  arg, ksize);
		if (in->num_chunks_execute && in->num_chunks_execute <= 4 &&
		    chunks && in->chunks_execute == (uintptr_t)chunks) {
			const struct hl_cs_chunk *c =
				(const void *)(uintptr_t)in->chunks_execute;
			uint32_t i;

			/* the fuzzer's own chunk array, readable */
			for (i = 0; i < in->num_chunks_execute && len < (int)n; i++)
				len += snprintf(b + len, n - len, " [q%u cb=0x%llx+%u]",
						c[i].queue_index,
						(unsigned long long)c[i].cb_handle,
						c[i].cb_size);
		}
	} else if (type == 'H' && nr == _IOC_NR(HL_IOCTL_WAIT_CS)) {
		len += snprintf(b + len, n - len, "WAIT_CS");
		fmt_fields(b + len, n - len,
			   "seq:0:8,timeout_us:8:8,ctx:16:4,flags:20:4,seq_arr_len:24:1,pad:25:4",
			   arg, ksize);
	} else if (type == 'H' && nr == _IOC_NR(HL_IOCTL_CB)) {
		static const char *const cop[] = { "CREATE", "DESTROY", "INFO" };
		uint32_t op = ((const union hl_cb_args *)arg)->in.op;

		len += snprintf(b + len, n - len, "CB %s", op < 3 ? cop[op] : "op?");
		fmt_fields(b + len, n - len,
			   "handle:0:8,size:12:4,ctx:16:4,flags:20:4", arg, ksize);
	} else if (type == 'H' && nr == _IOC_NR(HL_IOCTL_NIC)) {
		len += snprintf(b + len, n - len, "NIC op=%u",
				((const struct hl_nic_args *)arg)->in.op);
		fmt_fields(b + len, n - len,
			   "w0:0:8,w1:8:8,w2:16:8,w3:24:8,w4:32:8,flags:68:4,ctx:72:4,pad:76:4",
			   arg, ksize);
	} else if (type == 'I') {
		len += snprintf(b + len, n - len, "IMPORTER nr=%u", nr);
		fmt_fields(b + len, n - len, "w0:0:8,w1:8:8,w2:16:8,w3:24:8,w4:32:8",
			   arg, ksize);
	} else {
		len += snprintf(b + len, n - len, "ioctl type=0x%x nr=%u dir=%u", type,
				nr, (unsigned int)_IOC_DIR(cmd));
		fmt_fields(b + len, n - len, "w0:0:8,w1:8:8,w2:16:8", arg, ksize);
	}
}

/* ---- the ioctl wrapper: placement, size, history, KCOV, stats ---- */

/* The outputs in the argument are the driver's (not a hostile form) */
bool out_ok(const struct call *c)
{
	return c->am == ARG_NORMAL && (c->sm == SZ_EXACT || c->sm == SZ_LARGE_ZERO);
}

void pick_modes(struct worker *w, struct call *c)
{
	c->am = ARG_NORMAL;
	c->sm = SZ_EXACT;
	if (chance(&w->r, 6))
		c->am = 1 + rnd(&w->r, ARG_NUM - 1);
	if (chance(&w->r, 6))
		c->sm = 1 + rnd(&w->r, SZ_NUM - 1);
}

long do_call(struct worker *w, struct call *c)
{
	size_t usize = c->size;
	uint8_t *place;
	unsigned long cmd;
	struct hist_entry *e;
	long rc;
	uint32_t pathkey;

	if (c->sm == SZ_SMALL)
		usize = rnd(&w->r, c->size);
	else if (c->sm == SZ_LARGE_ZERO || c->sm == SZ_LARGE_JUNK)
		usize = c->size + 1 + rnd(&w->r, 128);
	if (usize > sizeof(w->argbuf))
		usize = sizeof(w->argbuf);
	memset(w->argbuf, 0, sizeof(w->argbuf));
	memcpy(w->argbuf, c->arg, usize < c->size ? usize : c->size);
	if (c->sm == SZ_LARGE_JUNK)
		w->argbuf[c->size + rnd(&w->r, usize - c->size)] = 1 + rnd(&w->r, 255);
	cmd = _IOC(_IOC_DIR(c->cmd), _IOC_TYPE(c->cmd), _IOC_NR(c->cmd), usize);

	switch (c->am) {
	case ARG_RO:
		mprotect(w->ro, PAGE, PROT_READ | PROT_WRITE);
		memcpy(w->ro, w->argbuf, usize);
		mprotect(w->ro, PAGE, PROT_READ);
		place = w->ro;
		break;
	case ARG_NULL:
		place = NULL;
		break;
	case ARG_UNMAPPED:
		place = w->guard + PAGE;
		break;
	case ARG_KERNEL:
		place = (uint8_t *)0xffffffff81000000UL;
		break;
	case ARG_STRADDLE:
		/* the first half readable, the rest in the PROT_NONE page */
		place = w->guard + PAGE - (usize / 2 ? usize / 2 : 1);
		memcpy(place, w->argbuf, usize / 2);
		break;
	default:
		place = w->argbuf;
	}

	e = hist_begin(w);
	describe(e->text, sizeof(e->text) - 48, c->fd, c->cmd, c->arg, c->size,
		 c->chunks);
	{
		size_t l = strlen(e->text);

		snprintf(e->text + l, sizeof(e->text) - l, "%s%s",
			 argmode_name[c->am],
			 c->sm == SZ_EXACT ? "" :
			 c->sm == SZ_SMALL ? " size=small" :
			 c->sm == SZ_LARGE_ZERO ? " size=large0" : " size=largejunk");
		if (usize != c->size) {
			l = strlen(e->text);
			snprintf(e->text + l, sizeof(e->text) - l, "(%zu/%zu)", usize,
				 c->size);
		}
	}

	atomic_store(&w->slot->call_start_ns, now_ns());
	if (w->kcov)
		__atomic_store_n(&w->cover[0], 0, __ATOMIC_RELAXED);
	rc = ioctl(c->fd, cmd, place);
	if (rc < 0)
		rc = -errno;
	if (opt.plant && !w->id && atomic_load(&w->slot->ncalls) == 1000) {
		if (opt.plant == PLANT_SEALED) {
			*(volatile bool *)&w->kcov = true;
		} else if (opt.plant == PLANT_DEVICE) {
			/* as a device write would: past the protection */
			uint8_t *page = (uint8_t *)w + WORKER_SEALED - PAGE;

			mprotect(page, PAGE, PROT_READ | PROT_WRITE);
			*(volatile bool *)&w->kcov = true;
			mprotect(page, PAGE, PROT_READ);
		} else {
			((volatile uint8_t *)w)[sizeof(*w) + 8] ^= 0xff;
		}
	}
	worker_check(w, e->text);
	if (w->kcov)
		kcov_collect(w);
	atomic_store(&w->slot->call_start_ns, 0);
	e->rc = rc > INT32_MAX ? INT32_MAX : (int32_t)rc;
	trace(w, ops[w->cur_op].name, c->cmd, c->am, c->sm, usize, rc);

	atomic_fetch_add(&sh->ncalls, 1);
	atomic_fetch_add(&w->slot->ncalls, 1);
	atomic_fetch_add(&sh->op_calls[w->cur_op], 1);
	atomic_fetch_add(&sh->argmode_calls[c->am], 1);
	atomic_fetch_add(&sh->sizemode_calls[c->sm], 1);
	if (rc >= 0)
		atomic_fetch_add(&sh->op_ok[w->cur_op], 1);
	else if (-rc < 136)
		atomic_fetch_add(&sh->op_errno[w->cur_op][-rc], 1);
	pathkey = (uint32_t)w->cur_op << 16 | c->am << 12 | c->sm << 9 |
		  (uint32_t)(rc < 0 ? -rc & 0x1ff : 0);
	if (set_insert(sh->paths, PATHSET_SIZE, pathkey))
		atomic_fetch_add(&sh->npaths, 1);

	if (c->am == ARG_NORMAL)
		memcpy(c->arg, w->argbuf, usize < c->size ? usize : c->size);

	/* contract checks, on the driver's and the importer's ioctls */
	if (w->cur_op == OP_RAW || (_IOC_TYPE(c->cmd) != 'H' && _IOC_TYPE(c->cmd) != 'I'))
		return rc;
	if (rc >= 0 && c->sm == SZ_LARGE_JUNK)
		violation(w, false, "non-zero bytes past the struct accepted (want E2BIG)",
			  e->text);
	if (rc >= 0 && c->am != ARG_NORMAL && c->am != ARG_RO &&
	    usize > (c->am == ARG_STRADDLE ? (usize / 2 ? usize / 2 : 1) : 0))
		violation(w, false, "a bad argument pointer accepted", e->text);
	if (rc >= 0 && c->am == ARG_RO && usize && _IOC_TYPE(c->cmd) == 'H')
		violation(w, false, "output to a read-only argument reported success",
			  e->text);
	if (rc >= 0 && c->must_fail && c->am == ARG_NORMAL &&
	    c->sm != SZ_SMALL)
		violation(w, c->known, c->why ?: "reserved field accepted", e->text);
	return rc;
}

/* Put junk into a random 4- or 8-byte field of an argument */
void mutate_struct(struct worker *w, void *arg, size_t size)
{
	uint8_t *a = arg;
	size_t off;

	if (chance(&w->r, 50)) {
		uint64_t v = interesting(&w->r);

		off = rnd(&w->r, size / 8) * 8;
		memcpy(a + off, &v, 8);
	} else {
		uint32_t v = (uint32_t)interesting(&w->r);

		off = rnd(&w->r, size / 4) * 4;
		memcpy(a + off, &v, 4);
	}
}

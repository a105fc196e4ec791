// SPDX-License-Identifier: MIT
/*
 * hl-fuzz: programs: the op table, the corpus, the workers and their processes.
 */

#include "hl-fuzz.h"

const struct op_desc ops[OP_NUM] = {
	[OP_OPEN] = { "open", 10 },
	[OP_CLOSE] = { "close", 4 },
	[OP_DUP] = { "dup", 3 },
	[OP_DUP2] = { "dup2", 2 },
	[OP_FORK] = { "fork", 1 },
	[OP_INFO] = { "info", 60 },
	[OP_ALLOC] = { "mem.alloc", 60 },
	[OP_FREE] = { "mem.free", 40 },
	[OP_MAP_DEV] = { "mem.map_device", 60 },
	[OP_MAP_HOST] = { "mem.map_host", 60 },
	[OP_UNMAP] = { "mem.unmap", 50 },
	[OP_EXPORT] = { "mem.export_dmabuf_fd", 40 },
	[OP_MEM_RAW] = { "mem.raw", 15 },
	[OP_CS] = { "cs", 70 },
	[OP_WAIT_CS] = { "wait_cs", 50 },
	[OP_NIC_ALLOC] = { "nic.alloc_conn", 15 },
	[OP_NIC_MODIFY] = { "nic.modify_conn", 15 },
	[OP_NIC_RES] = { "nic.set_res_conn_ctx", 15 },
	[OP_NIC_REQ] = { "nic.set_req_conn_ctx", 15 },
	[OP_NIC_DESTROY] = { "nic.destroy_conn", 10 },
	[OP_NIC_QUERY] = { "nic.query_conn", 15 },
	[OP_CQ_CREATE] = { "nic.cq_create", 10 },
	[OP_CQ_DESTROY] = { "nic.cq_destroy", 6 },
	[OP_CQ_POLL] = { "nic.cq_poll", 15 },
	[OP_CQ_WAIT] = { "nic.cq_wait", 8 },
	[OP_CQ_UPDATE] = { "nic.cq_update_consumed", 10 },
	[OP_NIC_RAW] = { "nic.raw", 10 },
	[OP_NIC_PAIR] = { "nic.connect_pair", 6 },
	[OP_NIC_XFER] = { "nic.transfer", 6 },
	[OP_NIC_REG_MR] = { "nic.reg_mr", 10 },
	[OP_NIC_DEREG_MR] = { "nic.dereg_mr", 8 },
	[OP_IMP_IMPORT] = { "importer.import", 25 },
	[OP_IMP_MAP] = { "importer.map", 25 },
	[OP_IMP_SG] = { "importer.sg_entry", 10 },
	[OP_IMP_DMA] = { "importer.dma", 2 },
	[OP_IMP_UNMAP] = { "importer.unmap", 12 },
	[OP_IMP_RELEASE] = { "importer.release", 12 },
	[OP_IMP_STATUS] = { "importer.status", 10 },
	[OP_IMP_MOVE] = { "importer.fake_move", 8 },
	[OP_SYNC_FILE] = { "dmabuf.export_sync_file", 8 },
	[OP_DMABUF_MMAP] = { "dmabuf.mmap", 3 },
	[OP_RAW] = { "raw", 25 },
	[OP_HOSTBUF] = { "hostbuf.recycle", 2 },
	[OP_CB] = { "cb", 30 },
	[OP_CB_MMAP] = { "cb.mmap", 12 },
	[OP_CB_CS] = { "cb.cs", 20 },
	[OP_WAIT_MULTI] = { "wait_cs.multi", 20 },
	[OP_EVENTS] = { "info.events", 15 },
	[OP_RT_INFO] = { "info.counters", 15 },
	[OP_DEBUG] = { "debug", 8 },
	[OP_INFO_UNSUP] = { "info.unsupported", 8 },
	[OP_MEM_UNSUP] = { "mem.unsupported", 8 },
	[OP_CHURN_CLOSE] = { "churn.close_owner", 0 },
	[OP_CHURN_REOPEN] = { "churn.reopen", 0 },
	[OP_CHURN_RESET] = { "churn.hard_reset", 0 },
};

static pthread_mutex_t corpus_file_lock = PTHREAD_MUTEX_INITIALIZER;
static int corpus_fd = -1;

/* ---- programs ---- */

static enum op pick_op(struct rng *r)
{
	static unsigned int total;
	unsigned int x, i;

	if (!total)
		for (i = 0; i < OP_NUM; i++)
			total += ops[i].weight;
	x = rnd(r, total);
	for (i = 0; i < OP_NUM; i++) {
		if (x < ops[i].weight)
			return i;
		x -= ops[i].weight;
	}
	return OP_INFO;
}

static void run_op(struct worker *w, enum op op)
{
	if (in_child && (op == OP_FORK || op == OP_HOSTBUF))
		return;
	w->cur_op = op;
	switch (op) {
	case OP_OPEN: op_open(w); break;
	case OP_CLOSE: op_close(w); break;
	case OP_DUP: op_dup(w); break;
	case OP_DUP2: op_dup2(w); break;
	case OP_FORK: op_fork(w); break;
	case OP_INFO: op_info(w); break;
	case OP_ALLOC: op_alloc(w); break;
	case OP_FREE: op_free(w); break;
	case OP_MAP_DEV: op_map_dev(w); break;
	case OP_MAP_HOST: op_map_host(w); break;
	case OP_UNMAP: op_unmap(w); break;
	case OP_EXPORT: op_export(w); break;
	case OP_MEM_RAW: op_mem_raw(w); break;
	case OP_CS: op_cs(w); break;
	case OP_WAIT_CS: op_wait_cs(w); break;
	case OP_NIC_ALLOC: op_nic_alloc(w); break;
	case OP_NIC_MODIFY: op_nic_modify(w); break;
	case OP_NIC_RES: op_nic_ctx(w, false); break;
	case OP_NIC_REQ: op_nic_ctx(w, true); break;
	case OP_NIC_DESTROY: op_nic_destroy(w); break;
	case OP_NIC_QUERY: op_nic_query(w); break;
	case OP_CQ_CREATE: op_cq_create(w); break;
	case OP_CQ_DESTROY: op_cq_destroy(w); break;
	case OP_CQ_POLL: op_cq_poll(w, false); break;
	case OP_CQ_WAIT: op_cq_poll(w, true); break;
	case OP_CQ_UPDATE: op_cq_update(w); break;
	case OP_NIC_RAW: op_nic_raw(w); break;
	case OP_NIC_PAIR: op_nic_pair(w); break;
	case OP_NIC_XFER: op_nic_xfer(w); break;
	case OP_NIC_REG_MR: op_nic_reg_mr(w); break;
	case OP_NIC_DEREG_MR: op_nic_dereg_mr(w); break;
	case OP_IMP_IMPORT: op_imp_import(w); break;
	case OP_IMP_MAP: op_imp_map(w); break;
	case OP_IMP_SG: op_imp_sg(w); break;
	case OP_IMP_DMA: op_imp_dma(w); break;
	case OP_IMP_UNMAP: imp_simple(w, HL_IMPORTER_IOCTL_UNMAP); break;
	case OP_IMP_RELEASE: imp_simple(w, HL_IMPORTER_IOCTL_RELEASE); break;
	case OP_IMP_STATUS: op_imp_status(w); break;
	case OP_IMP_MOVE: imp_simple(w, HL_IMPORTER_IOCTL_FAKE_MOVE); break;
	case OP_SYNC_FILE: op_sync_file(w); break;
	case OP_DMABUF_MMAP: op_dmabuf_mmap(w); break;
	case OP_RAW: op_raw(w); break;
	case OP_HOSTBUF: op_hostbuf(w); break;
	case OP_CB: rt_op_cb(w); break;
	case OP_CB_MMAP: rt_op_cb_mmap(w); break;
	case OP_CB_CS: rt_op_cb_cs(w); break;
	case OP_WAIT_MULTI: rt_op_wait_multi(w); break;
	case OP_EVENTS: rt_op_events(w); break;
	case OP_RT_INFO: rt_op_info(w); break;
	case OP_DEBUG: op_debug(w); break;
	case OP_INFO_UNSUP: op_info_unsup(w); break;
	case OP_MEM_UNSUP: op_mem_unsup(w); break;
	default: break;
	}
}

/* Random calls straight from the worker's PRNG (forked children) */
void run_calls(struct worker *w, int n)
{
	while (n-- > 0 && !atomic_load(&sh->stop))
		run_op(w, pick_op(&w->r));
}

static void prog_random(struct worker *w, struct prog *p)
{
	uint32_t i;

	p->len = opt.prog_len;
	for (i = 0; i < p->len; i++)
		p->seed[i] = rnd64(&w->r);
}

static void prog_mutate(struct worker *w, struct prog *p)
{
	uint32_t n = 1 + rnd(&w->r, 3), i;

	while (n--) {
		switch (rnd(&w->r, 4)) {
		case 0:	/* change one call */
			p->seed[rnd(&w->r, p->len)] = rnd64(&w->r);
			break;
		case 1:	/* insert a call */
			if (p->len < MAX_PROG) {
				i = rnd(&w->r, p->len + 1);
				memmove(&p->seed[i + 1], &p->seed[i],
					(p->len - i) * sizeof(p->seed[0]));
				p->seed[i] = rnd64(&w->r);
				p->len++;
			}
			break;
		case 2:	/* remove a call */
			if (p->len > 2) {
				i = rnd(&w->r, p->len);
				memmove(&p->seed[i], &p->seed[i + 1],
					(p->len - i - 1) * sizeof(p->seed[0]));
				p->len--;
			}
			break;
		default: {	/* splice another corpus entry's tail */
			uint32_t nc = atomic_load(&sh->ncorpus), k;

			if (nc > CORPUS_MAX)
				nc = CORPUS_MAX;
			if (!nc)
				break;
			k = rnd(&w->r, nc);
			i = rnd(&w->r, p->len);
			for (; i < MAX_PROG && i < sh->corpus[k].len; i++)
				p->seed[i] = sh->corpus[k].seed[i];
			if (i > p->len)
				p->len = i;
		}
		}
	}
}

static void corpus_add(struct prog *p)
{
	uint32_t i = atomic_fetch_add(&sh->ncorpus, 1), k;
	char line[MAX_PROG * 17 + 8];
	int len = 0;

	if (i >= CORPUS_MAX) {
		atomic_store(&sh->ncorpus, CORPUS_MAX);
		return;
	}
	sh->corpus[i] = *p;
	if (corpus_fd < 0)
		return;
	for (k = 0; k < p->len; k++)
		len += snprintf(line + len, sizeof(line) - len, "%s%016" PRIx64,
				k ? " " : "", p->seed[k]);
	line[len++] = '\n';
	pthread_mutex_lock(&corpus_file_lock);
	if (write(corpus_fd, line, len) < 0)
		perror("hl-fuzz: corpus");
	pthread_mutex_unlock(&corpus_file_lock);
}

void load_corpus(void)
{
	FILE *f = fopen(opt.corpus, "r");
	char line[MAX_PROG * 17 + 8];
	uint32_t n = 0;

	if (f) {
		while (fgets(line, sizeof(line), f) && n < CORPUS_MAX) {
			struct prog *p = &sh->corpus[n];
			char *s = line, *end;

			p->len = 0;
			while (p->len < MAX_PROG) {
				uint64_t v = strtoull(s, &end, 16);

				if (end == s)
					break;
				p->seed[p->len++] = v;
				s = end;
			}
			if (p->len)
				n++;
		}
		fclose(f);
	}
	atomic_store(&sh->ncorpus, n);
	corpus_fd = open(opt.corpus, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	printf("hl-fuzz: corpus %s: %u programs loaded\n", opt.corpus, n);
}

static void run_prog(struct worker *w, struct prog *p)
{
	uint32_t i;
	struct rng save = w->r;

	w->prog_new = false;
	for (i = 0; i < p->len && !atomic_load(&sh->stop); i++) {
		w->r.s = mix(p->seed[i], 0xc0ffee);
		run_op(w, pick_op(&w->r));
		if (atomic_load(&sh->ncalls) >= opt.count)
			atomic_store(&sh->stop, 1);
	}
	w->r = save;
	drain_some(w);
}

/* The worker this thread runs (for on_crash()), or -1 */
__thread int cur_worker = -1;

static void *worker_main(void *arg)
{
	struct thread_arg *ta = arg;
	struct worker *w = worker_alloc();
	struct prog p;

	if (!w)
		return NULL;
	w->id = ta->id;
	cur_worker = w->id;
	w->r.s = mix(opt.seed, w->id + 1);
	w->slot = &sh->slot[w->id];
	atomic_store(&w->slot->pid, getpid());
	atomic_store(&w->slot->tid, (int32_t)syscall(SYS_gettid));
	w->ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	w->guard = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/*
	 * 64 KiB, then a PROT_NONE page: an output larger than promised (a
	 * CQ poll's max_cqes = ~0u) ends in -EFAULT, not in a neighbour
	 */
	w->out = mmap(NULL, 65536 + PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->ro == MAP_FAILED || w->guard == MAP_FAILED || w->out == MAP_FAILED) {
		perror("hl-fuzz: mmap");
		return NULL;
	}
	mprotect(w->guard + PAGE, PAGE, PROT_NONE);
	mprotect(w->out + 65536, PAGE, PROT_NONE);
	kcov_start(w);
	worker_seal(w);

	while (!atomic_load(&sh->stop)) {
		uint32_t nc = atomic_load(&sh->ncorpus);

		if (nc > CORPUS_MAX)
			nc = CORPUS_MAX;
		if (nc && (w->kcov || opt.corpus) && chance(&w->r, 60)) {
			p = sh->corpus[rnd(&w->r, nc)];
			if (!p.len)
				prog_random(w, &p);
			else if (w->kcov)
				prog_mutate(w, &p);
		} else {
			prog_random(w, &p);
		}
		run_prog(w, &p);
		if (w->kcov && w->prog_new)
			corpus_add(&p);
	}
	return NULL;
}

static void on_crash(int sig, siginfo_t *si, void *uc)
{
	char msg[160];
	void *bt[32];
	int n, len;

	(void)uc;
	if (!atomic_load(&sh->crash_sig)) {
		atomic_store(&sh->crash_worker, cur_worker);
		atomic_store(&sh->crash_tid, (int)syscall(SYS_gettid));
		atomic_store(&sh->crash_addr, (uint64_t)(uintptr_t)si->si_addr);
		atomic_store(&sh->crash_sig, sig);
	}
	len = snprintf(msg, sizeof(msg), "hl-fuzz: pid %d tid %ld: signal %d at address %p; backtrace:\n",
		       getpid(), (long)syscall(SYS_gettid), sig, si->si_addr);
	if (write(2, msg, len) < 0)
		_exit(EXIT_CRASH);
	n = backtrace(bt, 32);
	backtrace_symbols_fd(bt, n, 2);
	signal(sig, SIG_DFL);
	raise(sig);
}

void process_main(int proc)
{
	struct sigaction sa = { .sa_sigaction = on_crash, .sa_flags = SA_SIGINFO };
	pthread_t th[MAX_WORKERS];
	struct thread_arg ta[MAX_WORKERS];
	struct rng r = { mix(opt.seed, 0x1000 + proc) };
	int i;

	void *bt[1];

	backtrace(bt, 1);	/* loads libgcc now: the handler must not malloc */
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	ps = calloc(1, sizeof(*ps));
	pthread_mutex_init(&ps->lock, NULL);
	for (i = 0; i < NHOSTBUF; i++) {
		struct worker tmp = { .r = r };

		hostbuf_new(&tmp, i);
		r = tmp.r;
	}
	/* the first buffers are plain RW, for command buffers */
	for (i = 0; i < 2; i++)
		mprotect(ps->hb[i].p, HOSTBUF_SIZE, ps->hb[i].prot = PROT_READ | PROT_WRITE);
	for (i = 0; i < opt.threads; i++) {
		ta[i].id = proc * opt.threads + i;
		pthread_create(&th[i], NULL, worker_main, &ta[i]);
	}
	/* --churn: the process's owner churn thread, in the slot after the workers */
	if (opt.churn) {
		ta[i].id = opt.procs * opt.threads + proc;
		pthread_create(&th[i], NULL, churn_main, &ta[i]);
	}
	for (i = 0; i < opt.threads + opt.churn; i++)
		pthread_join(th[i], NULL);
	/* everything closes with the process */
	exit(0);
}

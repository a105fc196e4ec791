// SPDX-License-Identifier: MIT
/*
 * hl-fuzz: the oracle: violations, failures, history, kernel log, summary, leak check.
 */

#include "hl-fuzz.h"

int trace_fd = -1;

/* ---- failure reporting ---- */

static void print_history(FILE *f)
{
	int i;

	for (i = 0; i < nworkers; i++) {
		struct worker_slot *s = &sh->slot[i];
		uint32_t head = atomic_load(&s->head), n, j;

		if (!head)
			continue;
		n = head < HIST_LEN ? head : HIST_LEN;
		fprintf(f, "hl-fuzz: worker %d (pid %d, tid %d): its last %u calls, oldest first:\n",
			i, s->pid, s->tid, n);
		for (j = head - n; j < head; j++) {
			struct hist_entry *e = &s->hist[j % HIST_LEN];

			if (e->rc == INT32_MIN)
				fprintf(f, "  #%" PRIu64 " %s -> (running)\n", e->n, e->text);
			else if (e->rc >= 0)
				fprintf(f, "  #%" PRIu64 " %s -> %d\n", e->n, e->text, e->rc);
			else
				fprintf(f, "  #%" PRIu64 " %s -> -%s\n", e->n, e->text,
					strerrorname_np(-e->rc) ?: "?");
		}
	}
}

void fail(int code, const char *fmt, ...)
{
	va_list ap;
	int zero = 0;

	if (!atomic_compare_exchange_strong(&sh->failed, &zero, code)) {
		atomic_store(&sh->stop, 1);
		return;
	}
	atomic_store(&sh->stop, 1);
	va_start(ap, fmt);
	vsnprintf(sh->fail_line, sizeof(sh->fail_line), fmt, ap);
	va_end(ap);
	/* its first line, for the run's last line (a CI log keeps the tail) */
	sh->fail_line[strcspn(sh->fail_line, "\n")] = 0;
	va_start(ap, fmt);
	fprintf(stderr, "hl-fuzz: FAILURE: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	fprintf(stderr, "hl-fuzz: seed 0x%" PRIx64 " (rerun: hl-fuzz --seed 0x%" PRIx64
		" -p %d -t %d ...)\n", opt.seed, opt.seed, opt.procs, opt.threads);
	print_history(stderr);
	fflush(stderr);
}

/*
 * What a worker process that died of @sig tells: which worker thread took
 * the signal, where, and during which call (its last history entry).
 */
void crash_line(char *b, size_t n, pid_t pid, int sig)
{
	int wk = atomic_load(&sh->crash_worker), len;

	len = snprintf(b, n, "worker process %d died of signal %d (%s)", pid, sig,
		       sigabbrev_np(sig) ?: "?");
	if (atomic_load(&sh->crash_sig) != sig || wk < 0 || wk >= nworkers)
		return;
	{
		struct worker_slot *s = &sh->slot[wk];
		uint32_t head = atomic_load(&s->head);
		const struct hist_entry *e = head ? &s->hist[(head - 1) % HIST_LEN] : NULL;

		snprintf(b + len, n - len, ": worker %d, tid %d, at address %#" PRIx64
			 "%s%.*s%s", wk, atomic_load(&sh->crash_tid),
			 atomic_load(&sh->crash_addr), e ? ", in call: " : "",
			 e ? 90 : 0, e ? e->text : "",
			 e && e->rc == INT32_MIN ? " (running)" : "");
	}
}

/* ---- the history ---- */

struct hist_entry *hist_begin(struct worker *w)
{
	uint32_t h = atomic_load(&w->slot->head);
	struct hist_entry *e = &w->slot->hist[h % HIST_LEN];

	e->n = atomic_fetch_add(&sh->ncalls, 0);
	e->rc = INT32_MIN;
	atomic_store(&w->slot->head, h + 1);
	return e;
}

/*
 * --trace: one line per call or action, of what the generator decided (the
 * worker, its op, the ioctl number, the argument and size forms, the
 * worker's PRNG state after generating it) and the result; no addresses
 * or fds, which move between runs. Two runs with one seed, -p 1 -t 1 and
 * no KCOV write the same trace.
 */
void trace(struct worker *w, const char *what, unsigned long cmd,
	   int am, int sm, size_t usize, long rc)
{
	char line[160];
	int len;

	if (trace_fd < 0)
		return;
	len = snprintf(line, sizeof(line),
		       "w%d %s %s cmd=0x%lx am=%d sm=%d size=%zu rng=%016" PRIx64 " -> %ld\n",
		       w->id, in_child ? "child" : "main", what, cmd, am, sm, usize,
		       w->r.s, rc < 0 ? rc : 0);
	if (write(trace_fd, line, len) < 0)
		trace_fd = -1;
}

/* Record a non-ioctl action (open, close, fork, ...) */
void note(struct worker *w, int rc, const char *fmt, ...)
{
	struct hist_entry *e = hist_begin(w);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
	e->rc = rc;
	trace(w, ops[w->cur_op].name, 0, 0, 0, 0, rc);
}

void violation(struct worker *w, bool known, const char *what,
	       const char *text)
{
	uint32_t i;

	if (known) {
		atomic_fetch_add(&sh->known_violations, 1);
		return;
	}
	atomic_fetch_add(&sh->violations, 1);
	i = atomic_fetch_add(&sh->nviol_msgs, 1);
	if (i < 16)
		snprintf(sh->viol_msgs[i], sizeof(sh->viol_msgs[i]),
			 "worker %d: %s: %s", w->id, what, text);
	if (opt.strict)
		fail(EXIT_VIOLATION, "contract violation: %s: %s", what, text);
}

/* ---- the monitor: kernel log, taint, hangs, unbind ---- */

static bool kmsg_is_report(const char *msg)
{
	static const char *const pat[] = {
		"WARNING:", "BUG:", "Oops", "KASAN", "UBSAN", "general protection",
		"kernel BUG", "possible circular locking", "possible recursive locking",
		"inconsistent lock state", "suspicious RCU usage", "INFO: task",
		"watchdog: BUG", "kmemleak", "refcount_t:", "list_add corruption",
		"list_del corruption", "DMA-API:", "DMAR: [DMA", "DMAR: DRHD",
		"Unable to handle", "stack-protector", "hung_task", "rcu_sched detected stall",
		"rcu: INFO", "BUG kmalloc", "double free",
	};
	size_t i;

	if (strstr(msg, "DMA-API: debugging disabled"))
		return false;
	for (i = 0; i < sizeof(pat) / sizeof(pat[0]); i++)
		if (strstr(msg, pat[i]))
			return true;
	return false;
}

static int kmsg_fd = -1;
char kmsg_report[2048];
static int kmsg_report_len;

void kmsg_open(void)
{
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
}

/* Reads what the kernel logged since; true on a report */
bool kmsg_check(void)
{
	char buf[2048];
	bool bad = false;

	if (kmsg_fd < 0)
		return false;
	for (;;) {
		ssize_t n = read(kmsg_fd, buf, sizeof(buf) - 1);
		char *msg;

		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: keep reading */
		if (n <= 0)
			break;
		buf[n] = 0;
		msg = strchr(buf, ';');
		msg = msg ? msg + 1 : buf;
		if (kmsg_is_report(msg) || (kmsg_report_len && kmsg_report_len < 1500)) {
			if (kmsg_is_report(msg))
				bad = true;
			kmsg_report_len += snprintf(kmsg_report + kmsg_report_len,
						    sizeof(kmsg_report) - kmsg_report_len,
						    "  kmsg: %s", msg);
			if (kmsg_report_len >= (int)sizeof(kmsg_report))
				kmsg_report_len = sizeof(kmsg_report) - 1;
		}
	}
	return bad;
}

/* Which worker the report's task is ("PID: n" is the thread's id) */
const char *report_task(void)
{
	static char buf[160];
	const char *p = strstr(kmsg_report, " PID: ");
	int tid, i;

	buf[0] = 0;
	if (!p || sscanf(p, " PID: %d", &tid) != 1)
		return buf;
	for (i = 0; i < nworkers; i++)
		if (atomic_load(&sh->slot[i].tid) == tid) {
			snprintf(buf, sizeof(buf),
				 "hl-fuzz: the report's task (PID %d) is worker %d: the call is among its last ones below\n",
				 tid, i);
			return buf;
		}
	snprintf(buf, sizeof(buf), "hl-fuzz: the report's task is PID %d (not a worker thread: a forked child?)\n",
		 tid);
	return buf;
}

long read_taint(void)
{
	FILE *f = fopen("/proc/sys/kernel/tainted", "r");
	long t = 0;

	if (f) {
		if (fscanf(f, "%ld", &t) != 1)
			t = 0;
		fclose(f);
	}
	return t;
}

void print_summary(double secs)
{
	uint64_t calls = atomic_load(&sh->ncalls);
	int i;

	printf("hl-fuzz: %" PRIu64 " ioctls in %.1f s (%.0f/s), seed 0x%" PRIx64
	       ", %d processes x %d threads, %d devices\n",
	       calls, secs, secs > 0 ? calls / secs : 0.0, opt.seed, opt.procs,
	       opt.threads, ndev);
	printf("hl-fuzz: distinct outcomes (op, argument form, errno): %" PRIu64 "\n",
	       atomic_load(&sh->npaths));
	if (atomic_load(&sh->kcov_workers))
		printf("hl-fuzz: KCOV: %" PRIu64 " distinct driver PCs, %" PRIu64
		       " edges, corpus %u programs\n",
		       atomic_load(&sh->npcs), atomic_load(&sh->nedges),
		       atomic_load(&sh->ncorpus) > CORPUS_MAX ? CORPUS_MAX :
		       atomic_load(&sh->ncorpus));
	else
		printf("hl-fuzz: KCOV: not used (no coverage guidance)\n");
	printf("hl-fuzz: opens %" PRIu64 ", closes %" PRIu64 ", forks %" PRIu64
	       ", unbinds %" PRIu64 ", hard resets %" PRIu64 "\n",
	       atomic_load(&sh->opens), atomic_load(&sh->closes),
	       atomic_load(&sh->forks), atomic_load(&sh->unbinds),
	       atomic_load(&sh->resets));
	if (opt.churn)
		printf("hl-fuzz: owner churn: %" PRIu64 " owners closed, %" PRIu64
		       " compute nodes reopened (%" PRIu64 " still busy or resetting after 1 s), %" PRIu64
		       " hard resets by the churn\n",
		       atomic_load(&sh->churn_closes), atomic_load(&sh->churn_reopens),
		       atomic_load(&sh->churn_busy), atomic_load(&sh->churn_resets));
	printf("hl-fuzz: hostile argument pointers %" PRIu64 ", hostile sizes %" PRIu64 "\n",
	       calls - atomic_load(&sh->argmode_calls[ARG_NORMAL]),
	       calls - atomic_load(&sh->sizemode_calls[SZ_EXACT]));
	printf("hl-fuzz: command buffers built %" PRIu64 " (none to build in: %" PRIu64
	       "), CS submitted %" PRIu64 ", completed %" PRIu64 ", aborted %" PRIu64 "\n",
	       atomic_load(&sh->cb_built), atomic_load(&sh->cb_none),
	       atomic_load(&sh->cs_ok), atomic_load(&sh->cs_completed),
	       atomic_load(&sh->cs_aborted));
	printf("hl-fuzz: contract violations %" PRIu64 " (known, issue 9: %" PRIu64 ")\n",
	       atomic_load(&sh->violations), atomic_load(&sh->known_violations));
	for (i = 0; i < 16 && i < (int)atomic_load(&sh->nviol_msgs); i++)
		printf("  %s\n", sh->viol_msgs[i]);
	if (!opt.quiet) {
		printf("hl-fuzz: %-26s %10s %10s  %s\n", "op", "ioctls", "ok",
		       "errnos (most frequent first)");
		for (i = 0; i < OP_NUM; i++) {
			uint64_t seen[136], best;
			int e, k, be;

			if (!atomic_load(&sh->op_calls[i]))
				continue;
			printf("hl-fuzz: %-26s %10" PRIu64 " %10" PRIu64 " ",
			       ops[i].name, atomic_load(&sh->op_calls[i]),
			       atomic_load(&sh->op_ok[i]));
			for (e = 0; e < 136; e++)
				seen[e] = atomic_load(&sh->op_errno[i][e]);
			for (k = 0; k < 5; k++) {
				best = 0;
				be = 0;
				for (e = 1; e < 136; e++)
					if (seen[e] > best) {
						best = seen[e];
						be = e;
					}
				if (!best)
					break;
				printf(" %s:%" PRIu64, strerrorname_np(be) ?: "?", best);
				seen[be] = 0;
			}
			printf("\n");
		}
	}
}

/* After every worker is gone: nothing of theirs may stay in the driver */
void leak_check(void)
{
	int d;

	for (d = 0; d < ndev; d++) {
		char path[320];
		int fd = -1, tries;
		struct hl_info_dram_usage u = { 0 };
		struct hl_info_hw_ip_info hw = { 0 };
		struct hl_info_args a = { 0 };

		snprintf(path, sizeof(path), "/dev/hl%d", d);
		for (tries = 0; tries < 100; tries++) {
			fd = open(path, O_RDWR | O_CLOEXEC);
			if (fd >= 0 || errno != EBUSY)
				break;
			usleep(100000);
		}
		if (fd < 0) {
			fail(EXIT_LEAK, "%s: open after the run: %s", path, strerror(errno));
			return;
		}
		a.return_pointer = (uintptr_t)&hw;
		a.return_size = sizeof(hw);
		a.op = HL_INFO_HW_IP_INFO;
		ioctl(fd, HL_IOCTL_INFO, &a);
		for (tries = 0; tries < 50; tries++) {
			a.return_pointer = (uintptr_t)&u;
			a.return_size = sizeof(u);
			a.op = HL_INFO_DRAM_USAGE;
			if (!ioctl(fd, HL_IOCTL_INFO, &a) && u.dram_free_mem == hw.dram_size)
				break;
			usleep(100000);
		}
		close(fd);
		if (u.dram_free_mem != hw.dram_size) {
			fail(EXIT_LEAK, "hl%d: DRAM not back after every file closed: %llu of %llu bytes free",
			     d, (unsigned long long)u.dram_free_mem,
			     (unsigned long long)hw.dram_size);
			return;
		}
		snprintf(path, sizeof(path), "/sys/kernel/debug/habanalabs/%s/info", dev_bdf[d]);
		{
			FILE *f = fopen(path, "r");
			char line[128];

			while (f && fgets(line, sizeof(line), f)) {
				long long v;

				if (sscanf(line, "pinned_host_pages: %lld", &v) == 1 && v) {
					fail(EXIT_LEAK, "hl%d: %lld host pages still pinned after every file closed",
					     d, v);
				}
				if (sscanf(line, "host_dma_pages: %lld", &v) == 1 && v) {
					fail(EXIT_LEAK, "hl%d: %lld host pages still DMA-mapped after every file closed",
					     d, v);
				}
			}
			if (f)
				fclose(f);
		}
		printf("hl-fuzz: hl%d: all %llu bytes of DRAM free and no pinned or DMA-mapped host pages after the run\n",
		       d, (unsigned long long)hw.dram_size);
	}
}

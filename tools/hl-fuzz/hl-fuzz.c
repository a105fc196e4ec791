// SPDX-License-Identifier: MIT
/*
 * hl-fuzz: a stateful, structured ioctl fuzzer for the habanalabs driver.
 *
 * It knows every ioctl, op and argument struct of <misc/habanalabs.h> and of
 * the dma-buf test importer (tests/importer/hl_importer.h), and keeps what
 * earlier calls returned (files, allocation handles, device VAs, dma-buf
 * fds, imports, CS sequence numbers, NIC connections and CQs), so that deep
 * paths run: alloc -> map -> export -> import -> importer map/DMA -> unmap ->
 * free, command submissions of mostly valid packets over the VAs it holds,
 * WAIT_CS, connected NIC pairs moving data. Every argument also gets hostile
 * variants: reserved fields set, the ioctl number's size field smaller or
 * larger than the struct, NULL/unmapped/read-only/kernel/page-straddling
 * argument pointers, zero and huge sizes, overflowing offsets, stale and
 * foreign handles, wrong file types.
 *
 * Several processes (-p) of several threads (-t) run at once on the compute
 * and control nodes of every device; they close and dup fds under each
 * other's feet and fork children that use inherited fds. --unbind (a mode of
 * its own) unbinds and rebinds devices (and hard-resets them, where the
 * driver has sysfs hard_reset) while the workers run.
 *
 * Programs: each worker runs programs of --prog-len calls; call i of a
 * program is generated from its own 64-bit seed (which op, which objects,
 * which hostile variant). With KCOV (/sys/kernel/debug/kcov, a debug kernel
 * with CONFIG_KCOV and the module built with KCOV_INSTRUMENT), the PCs each
 * ioctl reaches in the module's text are collected per thread, and a program
 * that reaches a new PC or edge is kept in the corpus (and appended to
 * --corpus FILE); later programs are often mutations of corpus entries.
 * Without KCOV it runs uncovered, and says so.
 *
 * Reproducible: the seed is printed; each worker's call sequence derives
 * from (seed, worker); with -p 1 -t 1 and no KCOV the whole run does.
 * Bounded: stops after --count ioctls or --seconds, whichever comes first.
 *
 * Failure (exit status): 3 a kernel report (BUG, WARNING, KASAN, lockdep,
 * ...) in /dev/kmsg or a new taint; 4 a call that hung; 5 a worker died of a
 * signal; 6 DRAM or pinned pages not back to zero after every file closed;
 * 2 a contract violation (a call that must fail succeeded); 7 fewer ioctls
 * than --min-count. Each failure prints the last calls of every worker.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <linux/dma-buf.h>
#include <linux/kcov.h>
#include <misc/habanalabs.h>

#include "hlthunk.h"
#include "../../tests/importer/hl_importer.h"

#define PAGE		4096UL
#define MAX_DEVS	8
#define MAX_WORKERS	64
#define HIST_LEN	48
#define HIST_TEXT	224
#define MAX_PROG	64
#define CORPUS_MAX	4096
#define PCSET_BITS	20
#define PCSET_SIZE	(1u << PCSET_BITS)
#define PATHSET_SIZE	(1u << 16)
#define COVER_SIZE	(64 << 10)
#define HOSTBUF_SIZE	(256 << 10)
#define NHOSTBUF	8
#define MAX_FDS		48
#define MAX_OBJ		96
#define GRAVE		64

/* Exit statuses */
enum {
	EXIT_OK = 0, EXIT_SETUP = 1, EXIT_VIOLATION = 2, EXIT_KREPORT = 3,
	EXIT_HANG = 4, EXIT_CRASH = 5, EXIT_LEAK = 6, EXIT_SHORT = 7,
};

/*
 * Known bugs whose exact inputs a run can avoid because they would stop
 * every run at once; --known-bugs=all (or a list of the names) enables
 * them. Since main fixed issue 9 items 4, 6 and 7 (verified: 120 s of
 * --unbind --reset --known-bugs=all on the stock kernel, seed 0xa11, and
 * 180 s with many-host-maps on the debug kernel, seed 0x7a9, both clean),
 * their inputs are on by default (KB_DEFAULT), as are many-import-maps's
 * since main bounds the importer mappings of a page
 * (HL_DMABUF_MAX_PAGE_MAPS). Unbounded timeouts stay off because a run
 * must not wait a minute for a job.
 */
enum {
	/*
	 * issue 9 item 6: a host MAP of > 2^34 bytes (1 TiB: kvmalloc WARN,
	 * found by the first long run, seed 0x10c0ffee); fixed in main
	 */
	KB_HUGE_HOST_MAP = 1 << 0,
	/* issue 9 item 7: > 6 live maps of one host page (DMA-API debug WARN); fixed */
	KB_MANY_HOST_MAPS = 1 << 1,
	/* issue 9 item 4: importer map of exports racing unbind (NULL deref); fixed */
	KB_EXPORT_UNBIND = 1 << 2,
	/*
	 * issue 9 item 1: unbounded CS timeouts on NIC jobs (queues hung);
	 * now bounded by job_timeout_max, but a minute per job is too long
	 */
	KB_UNBOUNDED_TIMEOUT = 1 << 3,
	/*
	 * Found by hl-fuzz (seed 0x5eed0001, debug kernel): more than 7
	 * importer mappings of the same HBM at once make DMA-API debugging
	 * WARN ("exceeded 7 overlapping mappings of cacheline", add_dma_entry
	 * from dma_map_resource in hl_dmabuf_map_piece); fixed: a ninth
	 * mapping of a page is -EBUSY
	 */
	KB_MANY_IMPORT_MAPS = 1 << 4,
	KB_DEFAULT = KB_HUGE_HOST_MAP | KB_EXPORT_UNBIND | KB_MANY_HOST_MAPS |
		     KB_MANY_IMPORT_MAPS,
};

static const struct {
	const char *name;
	unsigned int bit;
} known_bug_names[] = {
	{ "huge-host-map", KB_HUGE_HOST_MAP },
	{ "many-host-maps", KB_MANY_HOST_MAPS },
	{ "export-unbind", KB_EXPORT_UNBIND },
	{ "unbounded-timeout", KB_UNBOUNDED_TIMEOUT },
	{ "many-import-maps", KB_MANY_IMPORT_MAPS },
};

/* ---- options ---- */

static struct {
	uint64_t seed;
	uint64_t count;
	double seconds;
	int procs, threads, devices;
	int prog_len;
	bool unbind, reset;
	bool no_kcov;
	bool quiet;
	bool strict;
	unsigned int known_bugs;
	const char *corpus;
	double hang_s;
	double progress_s;
	bool no_leak_check;
	uint64_t min_count;
} opt = {
	.count = 50000, .seconds = 60, .procs = 2, .threads = 2, .devices = 0,
	.prog_len = 16, .hang_s = 90, .progress_s = 10, .known_bugs = KB_DEFAULT,
};

/* ---- operations ---- */

enum op {
	OP_OPEN, OP_CLOSE, OP_DUP, OP_DUP2, OP_FORK,
	OP_INFO,
	OP_ALLOC, OP_FREE, OP_MAP_DEV, OP_MAP_HOST, OP_UNMAP, OP_EXPORT,
	OP_MEM_RAW,
	OP_CS, OP_WAIT_CS,
	OP_NIC_ALLOC, OP_NIC_MODIFY, OP_NIC_RES, OP_NIC_REQ, OP_NIC_DESTROY,
	OP_NIC_QUERY, OP_CQ_CREATE, OP_CQ_DESTROY, OP_CQ_POLL, OP_CQ_WAIT,
	OP_CQ_UPDATE, OP_NIC_RAW, OP_NIC_PAIR, OP_NIC_XFER,
	OP_IMP_IMPORT, OP_IMP_MAP, OP_IMP_SG, OP_IMP_DMA, OP_IMP_UNMAP,
	OP_IMP_RELEASE, OP_IMP_STATUS, OP_IMP_MOVE,
	OP_SYNC_FILE, OP_DMABUF_MMAP,
	OP_RAW, OP_HOSTBUF,
	/* the runtime block (rt_*, below): CBs, multi-CS, events, counters */
	OP_CB, OP_CB_MMAP, OP_CB_CS, OP_WAIT_MULTI, OP_EVENTS, OP_RT_INFO,
	OP_NUM
};

static const struct {
	const char *name;
	unsigned int weight;
} ops[OP_NUM] = {
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
};

/* How an argument pointer is passed */
enum argmode {
	ARG_NORMAL, ARG_RO, ARG_NULL, ARG_UNMAPPED, ARG_KERNEL, ARG_STRADDLE,
	ARG_NUM
};
static const char *const argmode_name[ARG_NUM] = {
	"", " arg=ro", " arg=NULL", " arg=unmapped", " arg=kernel",
	" arg=straddle",
};

/* How the ioctl number's size field relates to the struct */
enum sizemode { SZ_EXACT, SZ_SMALL, SZ_LARGE_ZERO, SZ_LARGE_JUNK, SZ_NUM };

/* ---- shared memory, across the worker processes ---- */

struct hist_entry {
	uint64_t n;
	int32_t rc;	/* 0 or -errno; INT32_MIN while the call runs */
	char text[HIST_TEXT];
};

struct worker_slot {
	_Atomic uint64_t call_start_ns;	/* 0 when not in a call */
	_Atomic uint64_t ncalls;
	_Atomic uint32_t head;
	_Atomic int32_t pid, tid;
	struct hist_entry hist[HIST_LEN];
};

struct prog {
	uint32_t len;
	uint32_t pad;
	uint64_t seed[MAX_PROG];
};

struct shared {
	_Atomic uint64_t ncalls;
	_Atomic int stop;
	_Atomic int failed;		/* EXIT_* of the first failure */
	_Atomic uint64_t op_calls[OP_NUM], op_ok[OP_NUM];
	_Atomic uint64_t op_errno[OP_NUM][136];
	_Atomic uint64_t argmode_calls[ARG_NUM], sizemode_calls[SZ_NUM];
	_Atomic uint64_t violations, known_violations;
	_Atomic uint64_t forks, opens, closes, unbinds, resets;
	_Atomic uint64_t cb_built, cb_none, cs_ok, cs_completed, cs_aborted;
	_Atomic uint64_t npaths, npcs, nedges;
	_Atomic uint64_t paths[PATHSET_SIZE];
	_Atomic uint64_t pcs[PCSET_SIZE];
	_Atomic uint64_t last_dma_ns;
	_Atomic uint32_t ncorpus;
	_Atomic uint32_t nviol_msgs;
	_Atomic int kcov_workers;
	char viol_msgs[16][HIST_TEXT + 64];
	struct prog corpus[CORPUS_MAX];
	struct worker_slot slot[MAX_WORKERS];
};

static struct shared *sh;
static int nworkers;
static int ndev;
static char dev_bdf[MAX_DEVS][32];
static bool dma_api_debug;
static pthread_mutex_t corpus_file_lock = PTHREAD_MUTEX_INITIALIZER;
static int corpus_fd = -1;

/* module text ranges, for KCOV filtering */
static struct {
	uint64_t start, end;
} text_range[16];
static int ntext;
static uint64_t kaslr_off;

/* ---- PRNG (splitmix64) ---- */

struct rng {
	uint64_t s;
};

static uint64_t rnd64(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rnd(struct rng *r, uint64_t n)
{
	return n ? rnd64(r) % n : 0;
}

static bool chance(struct rng *r, unsigned int pct)
{
	return rnd(r, 1000) < pct * 10u;
}

/* per mille */
static bool chance_pm(struct rng *r, unsigned int pm)
{
	return rnd(r, 1000) < pm;
}

static uint64_t mix(uint64_t a, uint64_t b)
{
	struct rng r = { a ^ (b * 0x9e3779b97f4a7c15ULL) };

	return rnd64(&r);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Values that tend to find edges */
static uint64_t interesting(struct rng *r)
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

/* ---- the per-process state: files and the objects they hold ---- */

enum fkind { F_COMPUTE, F_CONTROL, F_DMABUF, F_IMPORTER, F_SYNC, F_NUM };
static const char *const fkind_name[F_NUM] = {
	"compute", "control", "dmabuf", "importer", "sync_file",
};

struct fdobj {
	int fd;
	int dev;
	enum fkind kind;
	uint32_t file;		/* identity of the open file (dup shares it) */
	uint64_t size;		/* dma-buf size */
};

struct alloc {
	uint32_t file;
	uint64_t handle, size;
};

struct mapping {
	uint32_t file;
	uint64_t va, size;
	bool host;
	int hb;			/* host buffer, or -1 */
	uint64_t host_off;
};

struct import {
	uint32_t file;		/* the importer file */
	uint32_t handle;
	uint64_t size;
};

struct seqobj {
	uint32_t file;
	uint64_t seq;
	bool nic;
};

struct conn {
	uint32_t file;
	uint32_t id, port;
};

struct cqobj {
	uint32_t file;
	uint32_t handle;
};

struct hostbuf {
	uint8_t *p;
	size_t size;
	int prot;
	int maps;
};

struct devinfo {
	bool valid;
	struct hl_info_hw_ip_info hw;
	struct hl_info_nic_ports ports;
};

struct pstate {
	pthread_mutex_t lock;	/* Protects everything below */
	uint32_t next_file;
	int nfds;
	struct fdobj fds[MAX_FDS];
	int nallocs, nmaps, nimports, nseqs, nconns, ncqs;
	struct alloc allocs[MAX_OBJ];
	struct mapping maps[MAX_OBJ];
	struct import imports[MAX_OBJ];
	struct seqobj seqs[MAX_OBJ];
	struct conn conns[MAX_OBJ];
	struct cqobj cqs[MAX_OBJ];
	/* stale values: handles, VAs, seqs, ids of closed or freed objects */
	uint64_t grave[GRAVE];
	uint32_t ngrave;
	struct hostbuf hb[NHOSTBUF];
	struct devinfo dev[MAX_DEVS];
};

static struct pstate *ps;
static bool in_child;

static void st_lock(void)
{
	if (!in_child)
		pthread_mutex_lock(&ps->lock);
}

static void st_unlock(void)
{
	if (!in_child)
		pthread_mutex_unlock(&ps->lock);
}

static void bury(uint64_t v)
{
	ps->grave[ps->ngrave++ % GRAVE] = v;
}

static uint64_t stale(struct rng *r)
{
	uint32_t n = ps->ngrave < GRAVE ? ps->ngrave : GRAVE;

	return n ? ps->grave[rnd(r, n)] : interesting(r);
}

#define REMOVE_AT(arr, n, i) do { (arr)[i] = (arr)[--(n)]; } while (0)

/* ---- the worker ---- */

struct worker {
	int id;
	struct rng r;
	struct worker_slot *slot;
	int kcov_fd;
	uint64_t *cover;
	bool kcov;
	bool prog_new;
	uint64_t prev_pc;
	enum op cur_op;
	uint8_t *ro;		/* a read-only page (made writable to fill it) */
	uint8_t *guard;		/* a RW page followed by a PROT_NONE page */
	uint8_t *out;		/* output buffers */
	uint8_t argbuf[512] __attribute__((aligned(8)));
};

/* ---- sets in shared memory ---- */

static bool set_insert(_Atomic uint64_t *set, uint32_t size, uint64_t key)
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

static void fail(int code, const char *fmt, ...)
{
	va_list ap;
	int zero = 0;

	if (!atomic_compare_exchange_strong(&sh->failed, &zero, code)) {
		atomic_store(&sh->stop, 1);
		return;
	}
	atomic_store(&sh->stop, 1);
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
		fmt_fields(b + len, n - len, "seq:0:8,timeout_us:8:8,ctx:16:4,flags:20:4",
			   arg, ksize);
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

static struct hist_entry *hist_begin(struct worker *w)
{
	uint32_t h = atomic_load(&w->slot->head);
	struct hist_entry *e = &w->slot->hist[h % HIST_LEN];

	e->n = atomic_fetch_add(&sh->ncalls, 0);
	e->rc = INT32_MIN;
	atomic_store(&w->slot->head, h + 1);
	return e;
}

/* Record a non-ioctl action (open, close, fork, ...) */
static void note(struct worker *w, int rc, const char *fmt, ...)
{
	struct hist_entry *e = hist_begin(w);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
	e->rc = rc;
}

static void violation(struct worker *w, bool known, const char *what,
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

/* ---- KCOV ---- */

static bool pc_in_module(uint64_t pc)
{
	int i;

	for (i = 0; i < ntext; i++)
		if ((pc >= text_range[i].start && pc < text_range[i].end) ||
		    (pc + kaslr_off >= text_range[i].start &&
		     pc + kaslr_off < text_range[i].end))
			return true;
	return false;
}

static void kcov_collect(struct worker *w)
{
	uint64_t n = __atomic_load_n(&w->cover[0], __ATOMIC_RELAXED), i;

	if (n > COVER_SIZE - 1)
		n = COVER_SIZE - 1;
	for (i = 0; i < n; i++) {
		uint64_t pc = w->cover[i + 1];

		if (!pc_in_module(pc))
			continue;
		if (set_insert(sh->pcs, PCSET_SIZE, pc)) {
			atomic_fetch_add(&sh->npcs, 1);
			w->prog_new = true;
		}
		if (set_insert(sh->pcs, PCSET_SIZE,
			       (w->prev_pc * 0x2545f4914f6cdd1dULL) ^ pc ^ 1ULL << 62)) {
			atomic_fetch_add(&sh->nedges, 1);
			w->prog_new = true;
		}
		w->prev_pc = pc;
	}
}

static void kcov_start(struct worker *w)
{
	int fd = open("/sys/kernel/debug/kcov", O_RDWR | O_CLOEXEC);

	w->kcov = false;
	if (fd < 0 || opt.no_kcov || !ntext) {
		if (fd >= 0)
			close(fd);
		return;
	}
	if (ioctl(fd, KCOV_INIT_TRACE, (unsigned long)COVER_SIZE))
		goto err_close;
	w->cover = mmap(NULL, COVER_SIZE * sizeof(uint64_t),
			PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (w->cover == MAP_FAILED)
		goto err_close;
	if (ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
		goto err_unmap;
	w->kcov_fd = fd;
	w->kcov = true;
	atomic_fetch_add(&sh->kcov_workers, 1);
	return;

err_unmap:
	munmap(w->cover, COVER_SIZE * sizeof(uint64_t));
err_close:
	close(fd);
}

static void load_text_ranges(void)
{
	struct {
		char name[256];
		uint64_t addr;
	} sec[256];
	int nsec = 0, i, j;
	DIR *d = opendir("/sys/module/habanalabs/sections");
	struct dirent *de;
	FILE *f;
	char line[256];

	if (!d)
		return;
	while ((de = readdir(d)) && nsec < 256) {
		char path[384];
		unsigned long long a;

		if (de->d_name[0] == '.' && (!de->d_name[1] ||
					     (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		snprintf(path, sizeof(path), "/sys/module/habanalabs/sections/%s",
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llx", &a) == 1 && a) {
			snprintf(sec[nsec].name, sizeof(sec[nsec].name), "%s",
				 de->d_name);
			sec[nsec++].addr = a;
		}
		fclose(f);
	}
	closedir(d);
	/* a text section ends where the next section (by address) starts */
	for (i = 0; i < nsec && ntext < 16; i++) {
		uint64_t end = ~0ULL;

		if (strcmp(sec[i].name, ".text") &&
		    strncmp(sec[i].name, ".text.", 6))
			continue;
		for (j = 0; j < nsec; j++)
			if (sec[j].addr > sec[i].addr && sec[j].addr < end)
				end = sec[j].addr;
		if (end == ~0ULL)
			end = sec[i].addr + (4 << 20);
		text_range[ntext].start = sec[i].addr;
		text_range[ntext++].end = end;
	}
	/* KCOV reports PCs minus the kernel's KASLR offset */
	f = fopen("/proc/kallsyms", "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char t, name[128];

		if (sscanf(line, "%llx %c %127s", &a, &t, name) == 3 &&
		    !strcmp(name, "_text")) {
			if (a >= 0xffffffff81000000ULL)
				kaslr_off = a - 0xffffffff81000000ULL;
			break;
		}
	}
	if (f)
		fclose(f);
}

/* ---- the ioctl wrapper: placement, size, history, KCOV, stats ---- */

struct call {
	int fd;
	unsigned long cmd;	/* the real ioctl number */
	void *arg;		/* the fuzzer's copy: outputs land here */
	size_t size;		/* its struct size */
	enum argmode am;
	enum sizemode sm;
	bool must_fail;		/* a reserved field was set on purpose */
	bool known;		/* ... and a known bug lets it pass */
	const char *why;
	const void *chunks;	/* the CS chunk array, to describe it */
};

/* The outputs in the argument are the driver's (not a hostile form) */
static bool out_ok(const struct call *c)
{
	return c->am == ARG_NORMAL && (c->sm == SZ_EXACT || c->sm == SZ_LARGE_ZERO);
}

static void pick_modes(struct worker *w, struct call *c)
{
	c->am = ARG_NORMAL;
	c->sm = SZ_EXACT;
	if (chance(&w->r, 6))
		c->am = 1 + rnd(&w->r, ARG_NUM - 1);
	if (chance(&w->r, 6))
		c->sm = 1 + rnd(&w->r, SZ_NUM - 1);
}

static long do_call(struct worker *w, struct call *c)
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
	if (w->kcov)
		kcov_collect(w);
	atomic_store(&w->slot->call_start_ns, 0);
	e->rc = rc > INT32_MAX ? INT32_MAX : (int32_t)rc;

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
static void mutate_struct(struct worker *w, void *arg, size_t size)
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

/* ---- picking objects ---- */

static int pick_fd(struct worker *w, enum fkind kind, int *dev, uint32_t *file)
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
static int pick_compute(struct worker *w, int *dev, uint32_t *file)
{
	int fd;

	if (chance(&w->r, 3)) {
		fd = pick_fd(w, rnd(&w->r, F_NUM), dev, file);
		if (fd >= 0)
			return fd;
	}
	return pick_fd(w, F_COMPUTE, dev, file);
}

static struct devinfo *devinfo(int dev)
{
	return dev >= 0 && dev < MAX_DEVS && ps->dev[dev].valid ? &ps->dev[dev] : NULL;
}

static void forget_file(uint32_t file);

static void add_fd(int fd, int dev, enum fkind kind, uint32_t file, uint64_t size)
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

static bool file_open_locked(uint32_t file)
{
	int i;

	for (i = 0; i < ps->nfds; i++)
		if (ps->fds[i].file == file)
			return true;
	return false;
}

/* The last fd of @file was closed: its objects are gone (kept as stale) */
static void forget_file_locked(uint32_t file)
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
}

static void forget_file(uint32_t file)
{
	st_lock();
	if (!file_open_locked(file))
		forget_file_locked(file);
	st_unlock();
}

/* ---- host buffers ---- */

static void hostbuf_new(struct worker *w, int i)
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

static void op_hostbuf(struct worker *w)
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

/* ---- file ops ---- */

static void op_open(struct worker *w)
{
	int dev = rnd(&w->r, ndev), fd;
	enum fkind kind;
	char path[64];

	if (chance(&w->r, 55)) {
		kind = F_COMPUTE;
		snprintf(path, sizeof(path), "/dev/hl%d", dev);
	} else if (chance(&w->r, 60)) {
		kind = F_CONTROL;
		snprintf(path, sizeof(path), "/dev/hl_controlD%d", dev);
	} else {
		kind = F_IMPORTER;
		snprintf(path, sizeof(path), "/dev/hl_importer");
	}
	st_lock();
	if (ps->nfds >= MAX_FDS - 4) {
		st_unlock();
		return;
	}
	st_unlock();
	fd = open(path, O_RDWR | (chance(&w->r, 50) ? O_CLOEXEC : 0));
	note(w, fd < 0 ? -errno : fd, "open %s (%s)", path, fkind_name[kind]);
	atomic_fetch_add(&sh->opens, 1);
	if (fd < 0)
		return;
	add_fd(fd, dev, kind, 0, 0);
	/* learn the device once */
	if (kind != F_IMPORTER) {
		struct devinfo di = { 0 };
		struct hl_info_args a = {
			.return_pointer = (uintptr_t)&di.hw,
			.return_size = sizeof(di.hw), .op = HL_INFO_HW_IP_INFO,
		};

		st_lock();
		if (ps->dev[dev].valid) {
			st_unlock();
			return;
		}
		st_unlock();
		if (ioctl(fd, HL_IOCTL_INFO, &a))
			return;
		a.return_pointer = (uintptr_t)&di.ports;
		a.return_size = sizeof(di.ports);
		a.op = HL_INFO_NIC_PORTS;
		if (ioctl(fd, HL_IOCTL_INFO, &a))
			return;
		di.valid = true;
		st_lock();
		ps->dev[dev] = di;
		st_unlock();
	}
}

/* Close an fd under the other threads' feet */
static void op_close(struct worker *w)
{
	int i, fd;
	uint32_t file;
	bool last;

	st_lock();
	if (!ps->nfds) {
		st_unlock();
		return;
	}
	i = rnd(&w->r, ps->nfds);
	fd = ps->fds[i].fd;
	file = ps->fds[i].file;
	REMOVE_AT(ps->fds, ps->nfds, i);
	last = !file_open_locked(file);
	if (last)
		forget_file_locked(file);
	/* close under the lock, so that no one reuses the number meanwhile */
	note(w, close(fd) ? -errno : 0, "close(%d) %s", fd, last ? "last" : "dup left");
	st_unlock();
	atomic_fetch_add(&sh->closes, 1);
}

static void op_dup(struct worker *w)
{
	int i, fd;

	st_lock();
	if (!ps->nfds || ps->nfds >= MAX_FDS - 4) {
		st_unlock();
		return;
	}
	i = rnd(&w->r, ps->nfds);
	fd = dup(ps->fds[i].fd);
	note(w, fd < 0 ? -errno : fd, "dup(%d)", ps->fds[i].fd);
	if (fd >= 0) {
		struct fdobj o = ps->fds[i];

		o.fd = fd;
		ps->fds[ps->nfds++] = o;
	}
	st_unlock();
}

/* dup2(a, b) over another of the table's fds: b's file drops, b becomes a */
static void op_dup2(struct worker *w)
{
	int a, b, rc;
	uint32_t old;

	st_lock();
	if (ps->nfds < 2) {
		st_unlock();
		return;
	}
	a = rnd(&w->r, ps->nfds);
	b = rnd(&w->r, ps->nfds);
	if (a == b) {
		st_unlock();
		return;
	}
	rc = dup2(ps->fds[a].fd, ps->fds[b].fd);
	note(w, rc < 0 ? -errno : rc, "dup2(%d, %d)", ps->fds[a].fd, ps->fds[b].fd);
	if (rc >= 0) {
		old = ps->fds[b].file;
		ps->fds[b] = (struct fdobj){ ps->fds[b].fd, ps->fds[a].dev,
			ps->fds[a].kind, ps->fds[a].file, ps->fds[a].size };
		if (!file_open_locked(old))
			forget_file_locked(old);
	}
	st_unlock();
}

static void run_calls(struct worker *w, int n);

/* A child that uses the inherited fds, then exits */
static void op_fork(struct worker *w)
{
	pid_t pid;
	int status;

	if (in_child)
		return;
	st_lock();
	pid = fork();
	if (!pid) {
		in_child = true;
		w->kcov = false;	/* the trace buffer is the parent's */
		atomic_store(&w->slot->pid, getpid());
		run_calls(w, 8 + rnd(&w->r, 40));
		_exit(0);
	}
	st_unlock();
	note(w, pid < 0 ? -errno : pid, "fork");
	if (pid < 0)
		return;
	atomic_fetch_add(&sh->forks, 1);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status))
		fail(EXIT_CRASH, "forked child %d died of signal %d", pid,
		     WTERMSIG(status));
}

/* ---- INFO ---- */

static void op_info(struct worker *w)
{
	static const uint32_t ops_[] = {
		HL_INFO_HW_IP_INFO, HL_INFO_DRAM_USAGE, HL_INFO_HW_IDLE,
		HL_INFO_DEVICE_STATUS, HL_INFO_PAGE_FAULT_EVENT, HL_INFO_NIC_PORTS,
	};
	static const uint32_t sizes[] = {
		sizeof(struct hl_info_hw_ip_info), sizeof(struct hl_info_dram_usage),
		sizeof(struct hl_info_hw_idle), sizeof(struct hl_info_device_status),
		sizeof(struct hl_info_page_fault_event),
		sizeof(struct hl_info_nic_ports),
	};
	struct hl_info_args a = { 0 };
	struct call c = { .cmd = HL_IOCTL_INFO, .arg = &a, .size = sizeof(a) };
	int k = rnd(&w->r, 6);

	c.fd = chance(&w->r, 50) ? pick_fd(w, F_CONTROL, NULL, NULL) :
				   pick_compute(w, NULL, NULL);
	if (c.fd < 0)
		return;
	a.op = ops_[k];
	a.return_size = sizes[k];
	a.return_pointer = (uintptr_t)w->out;
	if (chance(&w->r, 10))
		a.op = (uint32_t)interesting(&w->r);
	if (chance(&w->r, 10))
		a.return_size = (uint32_t)interesting(&w->r) & 0xfffff;
	if (chance(&w->r, 10)) {
		switch (rnd(&w->r, 5)) {
		case 0: a.return_pointer = 0; break;
		case 1: a.return_pointer = (uintptr_t)w->ro; break;
		case 2: a.return_pointer = (uintptr_t)(w->guard + PAGE); break;
		case 3: a.return_pointer = 0xffff888000000000ULL; break;
		default:
			a.return_pointer = (uintptr_t)(w->guard + PAGE - 8);
		}
	}
	if (a.return_size > 65536 && a.return_pointer == (uintptr_t)w->out)
		a.return_size = 65536;
	if (chance(&w->r, 5)) {
		c.must_fail = true;
		if (chance(&w->r, 50))
			a.ctx_id = 1 + rnd(&w->r, 0xffffffff);
		else
			a.pad = 1 + rnd(&w->r, 0xffffffff);
	}
	pick_modes(w, &c);
	do_call(w, &c);
}

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

static void op_alloc(struct worker *w)
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

/* Pick an object of @file (or any file, sometimes: foreign), or -1 */
#define PICK(arr, n, f, out) do {					\
	int _idx[MAX_OBJ], _k = 0, _i;					\
	bool _foreign = chance(&w->r, 5);				\
	for (_i = 0; _i < (n); _i++)					\
		if (_foreign || (arr)[_i].file == (f))			\
			_idx[_k++] = _i;				\
	(out) = _k ? _idx[rnd(&w->r, _k)] : -1;				\
} while (0)

static void op_free(struct worker *w)
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

static void add_mapping(uint32_t file, uint64_t va, uint64_t size, bool host,
			int hb, uint64_t off)
{
	st_lock();
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

static void op_map_dev(struct worker *w)
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
			    ~((uint64_t)(2 << 20) - 1), false, -1, 0);
}

static void op_map_host(struct worker *w)
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
			add_mapping(file, va, size, true, hb, off);
		else
			add_mapping(file, va, size, true, -1, 0);
	}
}

static void op_unmap(struct worker *w)
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

static int count_fds_locked(enum fkind kind)
{
	int i, n = 0;

	for (i = 0; i < ps->nfds; i++)
		n += ps->fds[i].kind == kind;
	return n;
}

static void op_export(struct worker *w)
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

static void op_mem_raw(struct worker *w)
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

/* ---- CS and WAIT_CS ---- */

/* A device VA of @file, with the bytes left after it in *room */
static uint64_t pick_va(struct worker *w, uint32_t file, uint64_t *room)
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
 * Write a command buffer of 1..8 mostly valid packets into host memory that
 * @file maps, and return its device VA (0: none).
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
						  chance(&w->r, 95) ? HL_REDUCE_DTYPE_F32 : 7,
						  chance(&w->r, 95) ? HL_REDUCE_OP_SUM : 3);
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

static void op_cs(struct worker *w)
{
	struct hl_cs_chunk chunks[4];
	union hl_cs_args a = { 0 };
	struct call c = { .cmd = HL_IOCTL_CS, .arg = &a, .size = sizeof(a),
			  .chunks = chunks };
	uint32_t file, nq = 4, n, i;
	int dev, j, outstanding = 0;
	struct devinfo *di;
	bool nic = false, any_nic = false;
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
		if (!chunks[i].cb_handle || chance(&w->r, 3))
			chunks[i].cb_handle = pick_va(w, file, &(uint64_t){ 0 });
		if (chance(&w->r, 3))
			chunks[i].queue_index = (uint32_t)interesting(&w->r);
		if (chance(&w->r, 3))
			chunks[i].cb_size = (uint32_t)interesting(&w->r);
		if (chance(&w->r, 2))
			chunks[i].cs_chunk_flags = 1;
		if (chance(&w->r, 2))
			chunks[i].pad[rnd(&w->r, 11)] = 1;
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
			/* Any bit but the one flag the driver knows */
			a.in.cs_flags = 1u << rnd(&w->r, 32);
			if (a.in.cs_flags == HL_CS_FLAGS_CUSTOM_TIMEOUT)
				a.in.cs_flags <<= 1;
			break;
		case 1: a.in.ctx_id = 1; break;
		case 2: a.in.pad = 1; break;
		case 3: a.in.reserved = 1; break;
		case 4: a.in.num_chunks_restore = 1; break;
		default: a.in.chunks_restore = (uintptr_t)chunks;
		}
	}
	if (a.in.num_chunks_execute > 4 && a.in.chunks_execute == (uintptr_t)chunks)
		c.must_fail = c.must_fail || a.in.num_chunks_execute > HL_MAX_JOBS_PER_CS;
	pick_modes(w, &c);
	if (c.sm == SZ_SMALL)
		c.must_fail = false;
	rc = do_call(w, &c);
	if (rc >= 0)
		atomic_fetch_add(&sh->cs_ok, 1);
	if (rc >= 0 && out_ok(&c)) {
		st_lock();
		if (ps->nseqs < MAX_OBJ)
			ps->seqs[ps->nseqs++] = (struct seqobj){ file, a.out.seq, any_nic };
		st_unlock();
	}
}

static void op_wait_cs(struct worker *w)
{
	union hl_wait_cs_args a = { 0 };
	struct call c = { .cmd = HL_IOCTL_WAIT_CS, .arg = &a, .size = sizeof(a) };
	uint32_t file;
	int i;
	uint64_t seq;
	long rc;

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
		if (chance(&w->r, 50))
			a.in.ctx_id = 1;
		else
			a.in.flags = 1u << rnd(&w->r, 32);
	}
	pick_modes(w, &c);
	rc = do_call(w, &c);
	if (c.am == ARG_NORMAL && c.sm == SZ_EXACT && rc == -EIO)
		atomic_fetch_add(&sh->cs_aborted, 1);
	if (c.am == ARG_NORMAL && c.sm == SZ_EXACT && rc >= 0 &&
	    a.out.status == HL_WAIT_CS_STATUS_COMPLETED)
		atomic_fetch_add(&sh->cs_completed, 1);
	if (c.am == ARG_NORMAL && c.sm == SZ_EXACT &&
	    (rc == -EIO || (rc >= 0 && a.out.status == HL_WAIT_CS_STATUS_COMPLETED))) {
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
static void drain_some(struct worker *w)
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

static void op_nic_alloc(struct worker *w)
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

static void op_nic_modify(struct worker *w)
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

static void op_nic_ctx(struct worker *w, bool req)
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
		q->remote_conn_id = 1 + rnd(&w->r, chance(&w->r, 95) ? 32 : 2000);
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
		s->remote_conn_id = 1 + rnd(&w->r, chance(&w->r, 95) ? 32 : 2000);
		s->psn = chance(&w->r, 90) ? rnd(&w->r, 1000) : (uint32_t)interesting(&w->r);
		s->wq_size = chance(&w->r, 90) ? 1 + rnd(&w->r, 64) : (uint32_t)interesting(&w->r);
		s->cq_handle = pick_cq(w, file);
	}
	nic_call(w, fd, &a, true);
}

static void op_nic_destroy(struct worker *w)
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

static void op_nic_query(struct worker *w)
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

static void op_cq_create(struct worker *w)
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

static void op_cq_destroy(struct worker *w)
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

static void op_cq_poll(struct worker *w, bool wait)
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

static void op_cq_update(struct worker *w)
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

static void op_nic_raw(struct worker *w)
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
	a.in.op = rnd(&w->r, 14);
	if (a.in.op == HL_NIC_OP_CQ_WAIT)
		a.in.cq_poll_wait.timeout_us = rnd(&w->r, 10000);
	if (chance(&w->r, 70)) {
		a.in.flags = 0;
		a.in.ctx_id = 0;
		a.in.pad = 0;
	}
	nic_call(w, fd, &a, true);
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
static void op_nic_pair(struct worker *w)
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

/* A RECV on one device and a SEND on the other, then wait for both */
static void op_nic_xfer(struct worker *w)
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
		uint8_t pkt[32];
		uint64_t va, room, cbva = 0;
		int j, k;

		va = pick_va(w, files[s], &room);
		if (s)
			hlthunk_pkt_nic_recv(pkt, conn[s], va, room < 8192 ? room : 8192, 7);
		else
			hlthunk_pkt_nic_send(pkt, conn[s], va, room < 4096 ? room : 4096, 9);
		/* the packet into a writable host mapping of that file */
		st_lock();
		for (j = 0, k = -1; j < ps->nmaps; j++)
			if (ps->maps[j].file == files[s] && ps->maps[j].host &&
			    ps->maps[j].hb >= 0 && ps->maps[j].size >= 32 &&
			    ps->hb[ps->maps[j].hb].prot == (PROT_READ | PROT_WRITE))
				k = j;
		if (k >= 0) {
			memcpy(ps->hb[ps->maps[k].hb].p + ps->maps[k].host_off, pkt, 32);
			cbva = ps->maps[k].va;
		}
		st_unlock();
		if (!cbva)
			return;
		ch.cb_handle = cbva;
		ch.cb_size = 32;
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

/* ---- the test importer ---- */

static void op_imp_import(struct worker *w)
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

static void imp_simple(struct worker *w, unsigned long cmd)
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

static void op_imp_status(struct worker *w)
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

static void op_imp_map(struct worker *w)
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

static void op_imp_sg(struct worker *w)
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
static void op_imp_dma(struct worker *w)
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

static void op_sync_file(struct worker *w)
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

static void op_dmabuf_mmap(struct worker *w)
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

/* ---- anything on any file ---- */

static void op_raw(struct worker *w)
{
	uint8_t arg[256];
	struct call c = { .arg = arg };
	unsigned int type, dir, nr;
	size_t i;

	c.fd = pick_fd(w, rnd(&w->r, F_NUM), NULL, NULL);
	if (c.fd < 0)
		return;
	for (i = 0; i < sizeof(arg); i += 8) {
		uint64_t v = chance(&w->r, 50) ? 0 : interesting(&w->r);

		memcpy(arg + i, &v, 8);
	}
	type = chance(&w->r, 60) ? 'H' : chance(&w->r, 50) ? 'I' : chance(&w->r, 50) ?
	       'b' : rnd(&w->r, 256);
	/* not sync_file's: SYNC_IOC_FILE_INFO writes through a pointer in the struct */
	if (type == '>')
		type = 'H';
	nr = rnd(&w->r, 16);
	dir = rnd(&w->r, 4);
	c.size = rnd(&w->r, 200);
	/* never the dma-buf core's or the importer's blocking/DMA ioctls */
	if (type == 'I' && (nr == 3 || nr == 4))
		nr = 7;
	/* no dma-buf ioctl that creates fds the fuzzer would not know */
	if (type == 'b' && (nr == 2 || nr == 3))
		nr = 0;
	/* no wait without a bound: WAIT_CS and CQ_WAIT get real structs */
	if (type == 'H' && (nr == _IOC_NR(HL_IOCTL_WAIT_CS) ||
			    nr == _IOC_NR(HL_IOCTL_NIC))) {
		memset(arg, 0, sizeof(arg));
	}
	c.cmd = _IOC(dir, type, nr, c.size);
	do_call(w, &c);
}

/*
 * ==== The runtime ioctls (issue 22) ====
 * A self-contained block: driver-owned command buffers (HL_IOCTL_CB create,
 * destroy, info; mmap of a CB; CSs naming a CB by handle), WAIT_CS's
 * multi-CS mode, the eventfd notifier (REGISTER/UNREGISTER_EVENTFD,
 * GET_EVENTS) and the counter INFO ops. Its state (CBs by file, the
 * eventfds it made) is per process, under st_lock() like the rest.
 */

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

static void rt_op_cb(struct worker *w)
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
static void rt_op_cb_mmap(struct worker *w)
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
		if (chance(&w->r, 90))
			hlthunk_pkt_nop(p + i);
		else
			memset(p + i, (int)rnd(&w->r, 256), 8);
	}
	munmap(p, len);
}

/* A CS whose chunks name CBs by handle (or by their device VA) */
static void rt_op_cb_cs(struct worker *w)
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
static void rt_op_wait_multi(struct worker *w)
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
static void rt_op_events(struct worker *w)
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
static void rt_op_info(struct worker *w)
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

/* ==== end of the runtime block ==== */

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
	default: break;
	}
}

/* Random calls straight from the worker's PRNG (forked children) */
static void run_calls(struct worker *w, int n)
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

static void load_corpus(void)
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

struct thread_arg {
	int id;
};

static void *worker_main(void *arg)
{
	struct thread_arg *ta = arg;
	struct worker *w = calloc(1, sizeof(*w));
	struct prog p;

	w->id = ta->id;
	w->r.s = mix(opt.seed, w->id + 1);
	w->slot = &sh->slot[w->id];
	atomic_store(&w->slot->pid, getpid());
	atomic_store(&w->slot->tid, (int32_t)syscall(SYS_gettid));
	w->ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	w->guard = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	w->out = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	if (w->ro == MAP_FAILED || w->guard == MAP_FAILED || w->out == MAP_FAILED) {
		perror("hl-fuzz: mmap");
		return NULL;
	}
	mprotect(w->guard + PAGE, PAGE, PROT_NONE);
	kcov_start(w);

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
	len = snprintf(msg, sizeof(msg), "hl-fuzz: pid %d tid %ld: signal %d at address %p; backtrace:\n",
		       getpid(), (long)syscall(SYS_gettid), sig, si->si_addr);
	if (write(2, msg, len) < 0)
		_exit(EXIT_CRASH);
	n = backtrace(bt, 32);
	backtrace_symbols_fd(bt, n, 2);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void process_main(int proc)
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
	for (i = 0; i < opt.threads; i++)
		pthread_join(th[i], NULL);
	/* everything closes with the process */
	exit(0);
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
static char kmsg_report[2048];
static int kmsg_report_len;

static void kmsg_open(void)
{
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
}

/* Reads what the kernel logged since; true on a report */
static bool kmsg_check(void)
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
static const char *report_task(void)
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

static long read_taint(void)
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

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

static int read_file(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t len;

	if (fd < 0)
		return -errno;
	len = read(fd, buf, n - 1);
	close(fd);
	if (len < 0)
		return -errno;
	buf[len] = 0;
	while (len && isspace((unsigned char)buf[len - 1]))
		buf[--len] = 0;
	return 0;
}

static bool bound[MAX_DEVS];

static void rebind(int d)
{
	char path[128];

	if (bound[d])
		return;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", dev_bdf[d]);
	if (access(path, F_OK))
		write_file("/sys/bus/pci/drivers_probe", dev_bdf[d]);
	bound[d] = !access(path, F_OK);
	if (!bound[d])
		fail(EXIT_SETUP, "device %s did not bind again after unbind", dev_bdf[d]);
}

/* --unbind: unbind/rebind (and hard reset) devices while the workers run */
static void unbind_step(struct rng *r)
{
	int d = rnd(r, ndev);
	char path[128];

	if (!dev_bdf[d][0])
		return;
	snprintf(path, sizeof(path), "/sys/class/habanalabs/hl%d/hard_reset", d);
	if (opt.reset && !access(path, W_OK) && chance(r, 40)) {
		int rc = write_file(path, "1");

		if (rc || !opt.quiet)
			printf("hl-fuzz: hard reset of hl%d: %s\n", d,
			       rc ? strerror(-rc) : "done");
		atomic_fetch_add(&sh->resets, 1);
		return;
	}
	if (!opt.unbind)
		return;
	if (write_file("/sys/bus/pci/drivers/habanalabs/unbind", dev_bdf[d]) == 0) {
		bound[d] = false;
		atomic_fetch_add(&sh->unbinds, 1);
		usleep(20000 + rnd(r, 400000));
	}
	rebind(d);
}

static void print_summary(double secs)
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
static void leak_check(void)
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
			}
			if (f)
				fclose(f);
		}
		printf("hl-fuzz: hl%d: all %llu bytes of DRAM free and no pinned host pages after the run\n",
		       d, (unsigned long long)hw.dram_size);
	}
}

static void usage(void)
{
	printf("Usage: hl-fuzz [options]\n"
	       "  -s, --seed N          PRNG seed (default: from the clock; printed)\n"
	       "  -n, --count N         stop after N ioctls (default 50000)\n"
	       "  -T, --seconds S       stop after S seconds (default 60)\n"
	       "  -p, --procs N         worker processes (default 2)\n"
	       "  -t, --threads N       threads per process (default 2)\n"
	       "  -d, --devices N       use devices 0..N-1 (default: all /dev/hlN)\n"
	       "  -l, --prog-len N      calls per program (default 16)\n"
	       "      --unbind          unbind/rebind devices while fuzzing\n"
	       "      --reset           hard-reset devices while fuzzing (sysfs hard_reset)\n"
	       "      --corpus FILE     load programs from FILE, append new ones (KCOV)\n"
	       "      --no-kcov         do not use KCOV even when available\n"
	       "      --known-bugs LIST re-enable inputs of known bugs (all, or a comma list:\n"
	       "                        huge-host-map,many-host-maps,export-unbind,unbounded-timeout,\n"
	       "                        many-import-maps)\n"
	       "      --strict          a contract violation fails the run at once\n"
	       "      --no-leak-check   skip the DRAM/pinned-pages check at the end\n"
	       "      --hang S          a call running S seconds is a hang (default 90)\n"
	       "      --min-count N     run past --seconds (up to 4x) until N ioctls were made;\n"
	       "                        fail (exit 7) when fewer were\n"
	       "  -q, --quiet           no per-op table, no progress lines\n");
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 'T' },
		{ "procs", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 't' },
		{ "devices", required_argument, NULL, 'd' },
		{ "prog-len", required_argument, NULL, 'l' },
		{ "unbind", no_argument, NULL, 'U' },
		{ "reset", no_argument, NULL, 'R' },
		{ "corpus", required_argument, NULL, 'C' },
		{ "no-kcov", no_argument, NULL, 'K' },
		{ "known-bugs", required_argument, NULL, 'B' },
		{ "strict", no_argument, NULL, 'S' },
		{ "no-leak-check", no_argument, NULL, 'L' },
		{ "hang", required_argument, NULL, 'H' },
		{ "min-count", required_argument, NULL, 'M' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	bool seeded = false;
	int c;

	while ((c = getopt_long(argc, argv, "s:n:T:p:t:d:l:qh", lo, NULL)) != -1) {
		switch (c) {
		case 's': opt.seed = strtoull(optarg, NULL, 0); seeded = true; break;
		case 'n': opt.count = strtoull(optarg, NULL, 0); break;
		case 'T': opt.seconds = atof(optarg); break;
		case 'p': opt.procs = atoi(optarg); break;
		case 't': opt.threads = atoi(optarg); break;
		case 'd': opt.devices = atoi(optarg); break;
		case 'l': opt.prog_len = atoi(optarg); break;
		case 'U': opt.unbind = true; break;
		case 'R': opt.reset = true; break;
		case 'C': opt.corpus = optarg; break;
		case 'K': opt.no_kcov = true; break;
		case 'S': opt.strict = true; break;
		case 'L': opt.no_leak_check = true; break;
		case 'H': opt.hang_s = atof(optarg); break;
		case 'M': opt.min_count = strtoull(optarg, NULL, 0); break;
		case 'q': opt.quiet = true; break;
		case 'B': {
			char *s = strdup(optarg), *save, *tok;
			size_t i;

			for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				bool found = !strcmp(tok, "all");

				if (found)
					opt.known_bugs = ~0u;
				for (i = 0; i < sizeof(known_bug_names) / sizeof(known_bug_names[0]); i++)
					if (!strcmp(tok, known_bug_names[i].name)) {
						opt.known_bugs |= known_bug_names[i].bit;
						found = true;
					}
				if (!found) {
					fprintf(stderr, "hl-fuzz: unknown known bug '%s'\n", tok);
					exit(EXIT_SETUP);
				}
			}
			free(s);
			break;
		}
		case 'h': usage(); exit(0);
		default: usage(); exit(EXIT_SETUP);
		}
	}
	if (!seeded)
		opt.seed = now_ns() ^ ((uint64_t)getpid() << 32);
	if (opt.procs < 1 || opt.threads < 1 || opt.procs * opt.threads > MAX_WORKERS) {
		fprintf(stderr, "hl-fuzz: 1 .. %d workers (procs x threads)\n", MAX_WORKERS);
		exit(EXIT_SETUP);
	}
	if (opt.prog_len < 1 || opt.prog_len > MAX_PROG)
		opt.prog_len = 16;
}

int main(int argc, char **argv)
{
	pid_t pids[MAX_WORKERS];
	int i, status, exited = 0, rc;
	uint64_t start, last_progress, last_unbind;
	long taint0;
	char old_timeout[32] = "";
	struct rng ur;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_args(argc, argv);
	ur.s = mix(opt.seed, 0xdead);

	for (ndev = 0; ndev < MAX_DEVS; ndev++) {
		char path[64];

		snprintf(path, sizeof(path), "/dev/hl%d", ndev);
		if (access(path, F_OK))
			break;
		snprintf(path, sizeof(path), "/sys/class/habanalabs/hl%d/pci_addr", ndev);
		if (read_file(path, dev_bdf[ndev], sizeof(dev_bdf[ndev])))
			dev_bdf[ndev][0] = 0;
		bound[ndev] = true;
	}
	if (opt.devices && opt.devices < ndev)
		ndev = opt.devices;
	if (!ndev) {
		fprintf(stderr, "hl-fuzz: no /dev/hl0: is the driver loaded and bound?\n");
		return EXIT_SETUP;
	}
	dma_api_debug = !access("/sys/kernel/debug/dma-api", F_OK);
	nworkers = opt.procs * opt.threads;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		  -1, 0);
	if (sh == MAP_FAILED) {
		perror("hl-fuzz: mmap");
		return EXIT_SETUP;
	}
	load_text_ranges();
	if (opt.corpus)
		load_corpus();

	/* short default job timeout: a CS that gives none must not wait 30 s */
	if (!read_file("/sys/module/habanalabs/parameters/timeout_locked", old_timeout,
		       sizeof(old_timeout)))
		write_file("/sys/module/habanalabs/parameters/timeout_locked", "2");

	printf("hl-fuzz: seed 0x%" PRIx64 ", %d processes x %d threads, %d devices, up to %"
	       PRIu64 " ioctls or %.0f s%s%s\n",
	       opt.seed, opt.procs, opt.threads, ndev, opt.count, opt.seconds,
	       opt.unbind ? ", unbind/rebind" : "", opt.reset ? ", hard resets" : "");
	if (opt.known_bugs != KB_DEFAULT)
		printf("hl-fuzz: inputs of known bugs enabled: 0x%x\n", opt.known_bugs);
	{
		bool kcov_file = !access("/sys/kernel/debug/kcov", F_OK);

		if (opt.no_kcov)
			printf("hl-fuzz: KCOV: off (--no-kcov)\n");
		else if (!kcov_file)
			printf("hl-fuzz: KCOV: not available (kernel without CONFIG_KCOV, or no debugfs): running without coverage guidance\n");
		else if (!ntext)
			printf("hl-fuzz: KCOV: no module text found (/sys/module/habanalabs/sections): running without coverage guidance\n");
		else
			printf("hl-fuzz: KCOV: on, %d text section(s) of habanalabs from 0x%" PRIx64
			       " (KASLR offset 0x%" PRIx64 ")\n", ntext, text_range[0].start,
			       kaslr_off);
	}
	if (opt.reset && access("/sys/class/habanalabs/hl0/hard_reset", W_OK))
		printf("hl-fuzz: --reset: the driver has no sysfs hard_reset: no hard resets\n");
	if (dma_api_debug && !(opt.known_bugs & KB_MANY_HOST_MAPS))
		printf("hl-fuzz: DMA-API debugging on: at most 4 live maps of a host buffer (issue 9 item 7)\n");
	if (dma_api_debug && !(opt.known_bugs & KB_MANY_IMPORT_MAPS))
		printf("hl-fuzz: DMA-API debugging on: at most 4 imports per process (many-import-maps)\n");

	kmsg_open();
	taint0 = read_taint();
	start = now_ns();
	last_progress = last_unbind = start;

	for (i = 0; i < opt.procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("hl-fuzz: fork");
			atomic_store(&sh->stop, 1);
			opt.procs = i;
			break;
		}
		if (!pids[i])
			process_main(i);
	}

	while (exited < opt.procs) {
		uint64_t t = now_ns();
		double secs = (t - start) / 1e9;
		pid_t pid;

		while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
			exited++;
			if (WIFSIGNALED(status) && !atomic_load(&sh->stop))
				fail(EXIT_CRASH, "worker process %d died of signal %d", pid,
				     WTERMSIG(status));
			else if (WIFEXITED(status) && WEXITSTATUS(status) &&
				 !atomic_load(&sh->failed))
				fail(EXIT_CRASH, "worker process %d exited with %d", pid,
				     WEXITSTATUS(status));
		}
		if (kmsg_check()) {
			usleep(300000);	/* the rest of the report */
			kmsg_check();
			fail(EXIT_KREPORT, "kernel report:\n%s%s", kmsg_report,
			     report_task());
		}
		if (read_taint() != taint0 && !atomic_load(&sh->failed)) {
			usleep(300000);
			kmsg_check();
			fail(EXIT_KREPORT, "the kernel is tainted now (%ld, was %ld)\n%s",
			     read_taint(), taint0, kmsg_report);
		}
		for (i = 0; i < nworkers; i++) {
			uint64_t cs = atomic_load(&sh->slot[i].call_start_ns);

			if (cs && t > cs && (t - cs) / 1e9 > opt.hang_s)
				fail(EXIT_HANG, "worker %d: a call has run for %.0f s",
				     i, (t - cs) / 1e9);
		}
		/* --min-count stretches the time, up to 4 times --seconds */
		if ((secs >= opt.seconds && atomic_load(&sh->ncalls) >= opt.min_count) ||
		    secs >= 4 * opt.seconds || atomic_load(&sh->ncalls) >= opt.count)
			atomic_store(&sh->stop, 1);
		if (!atomic_load(&sh->stop) && (opt.unbind || opt.reset) &&
		    t - last_unbind > 300000000ULL + rnd(&ur, 1500000000ULL)) {
			unbind_step(&ur);
			last_unbind = now_ns();
		}
		if (!opt.quiet && t - last_progress > opt.progress_s * 1e9) {
			printf("hl-fuzz: %.0f s: %" PRIu64 " ioctls (%.0f/s), %" PRIu64
			       " outcomes, %" PRIu64 " PCs, corpus %u\n", secs,
			       atomic_load(&sh->ncalls), atomic_load(&sh->ncalls) / secs,
			       atomic_load(&sh->npaths), atomic_load(&sh->npcs),
			       atomic_load(&sh->ncorpus));
			last_progress = t;
		}
		/* a stuck worker process after stop: kill it after the hang limit */
		if (atomic_load(&sh->stop) && secs > 4 * opt.seconds + opt.hang_s + 30) {
			for (i = 0; i < opt.procs; i++)
				kill(pids[i], SIGKILL);
		}
		usleep(50000);
	}
	for (i = 0; i < ndev; i++)
		rebind(i);
	if (old_timeout[0])
		write_file("/sys/module/habanalabs/parameters/timeout_locked", old_timeout);
	if (!atomic_load(&sh->failed) && !opt.no_leak_check)
		leak_check();
	usleep(200000);
	if (kmsg_check())
		fail(EXIT_KREPORT, "kernel report:\n%s", kmsg_report);
	print_summary((now_ns() - start) / 1e9);
	rc = atomic_load(&sh->failed);
	if (!rc && atomic_load(&sh->violations))
		rc = EXIT_VIOLATION;
	if (!rc && atomic_load(&sh->ncalls) < opt.min_count) {
		printf("hl-fuzz: only %" PRIu64 " ioctls, fewer than the %" PRIu64 " asked for\n",
		       atomic_load(&sh->ncalls), opt.min_count);
		rc = EXIT_SHORT;
	}
	printf("hl-fuzz: %s (seed 0x%" PRIx64 ")\n", rc ? "FAILED" : "ok", opt.seed);
	return rc;
}

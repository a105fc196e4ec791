/* SPDX-License-Identifier: MIT */
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
 * --churn adds a thread per process that closes the process's fds of a
 * compute node and reopens it while the workers keep calling.
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
 *
 * Files (tools/hl-fuzz/):
 *   main.c          options, sysfs helpers, unbind/rebind, the main loop (the monitor)
 *   state.c         state: shared memory, per-process files and objects, picking them, host buffers
 *   args.c          argument forms: values, hostile pointers and sizes, the ioctl wrapper
 *   gen_file.c      generators: open, close, dup, fork, INFO (SYNC_MANAGER, the
 *                   -EOPNOTSUPP ops), HL_IOCTL_DEBUG, raw ioctls on any file
 *   gen_mem.c       generators: HL_IOCTL_MEMORY (alloc, free, map, unmap, export;
 *                   MAP_BLOCK and TS_ALLOC, which never succeed)
 *   gen_cs.c        generators: command buffers, HL_IOCTL_CS and HL_IOCTL_WAIT_CS
 *   gen_gaudi.c     generators: command buffers in GAUDI's packet format (asic=gaudi)
 *   gen_nic.c       generators: HL_IOCTL_NIC, connected pairs, transfers
 *   gen_importer.c  generators: the dma-buf test importer, dma-buf files
 *   gen_rt.c        generators: the runtime's CBs, multi-CS wait, events, counters
 *   prog.c          programs: the op table, the corpus, the workers and their processes
 *   oracle.c        the oracle: violations, failures, history, kernel log, summary, leak check
 *   kcov.c          KCOV: the module's text, collecting the PCs each ioctl reaches
 *   churn.c         --churn: a device's owner closes and reopens it while its peers work
 */

#ifndef HL_FUZZ_H
#define HL_FUZZ_H

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
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
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
#define FAIL_LINE	200

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

/* ---- options ---- */

struct options {
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
	const char *trace;
	bool churn;
	unsigned int churn_ms;
	int plant;
};

/*
 * --plant: the oracle's self-test. Worker 0's 1000th call is followed by
 * a stray store of the fuzzer's own into its sealed fields (sealed: must
 * fault, SIGSEGV), a change of them past the page protection as a device
 * write would make (device), or a store into the fill of its pages
 * (fill); worker_check() must find the last two. Each fails the run,
 * saying so in its last line.
 */
enum { PLANT_NONE, PLANT_SEALED, PLANT_DEVICE, PLANT_FILL };

extern struct options opt;

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
	OP_NIC_REG_MR, OP_NIC_DEREG_MR,
	OP_IMP_IMPORT, OP_IMP_MAP, OP_IMP_SG, OP_IMP_DMA, OP_IMP_UNMAP,
	OP_IMP_RELEASE, OP_IMP_STATUS, OP_IMP_MOVE,
	OP_SYNC_FILE, OP_DMABUF_MMAP,
	OP_RAW, OP_HOSTBUF,
	/* the runtime's (gen_rt.c): CBs, multi-CS, events, counters */
	OP_CB, OP_CB_MMAP, OP_CB_CS, OP_WAIT_MULTI, OP_EVENTS, OP_RT_INFO,
	/* upstream's calls the device cannot serve: DEBUG, INFO, MEMORY ops */
	OP_DEBUG, OP_INFO_UNSUP, OP_MEM_UNSUP,
	/* --churn's own actions (weight 0: never picked by a worker) */
	OP_CHURN_CLOSE, OP_CHURN_REOPEN, OP_CHURN_RESET,
	OP_NUM
};

/* An op's name, in the history and the summary, and its weight */
struct op_desc {
	const char *name;
	unsigned int weight;
};

extern const struct op_desc ops[OP_NUM];

/* How an argument pointer is passed */
enum argmode {
	ARG_NORMAL, ARG_RO, ARG_NULL, ARG_UNMAPPED, ARG_KERNEL, ARG_STRADDLE,
	ARG_NUM
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
	_Atomic uint64_t churn_closes, churn_reopens, churn_busy, churn_resets;
	char viol_msgs[16][HIST_TEXT + 64];
	/* the first failure, in one short line, for the last line of the run */
	char fail_line[FAIL_LINE];
	/* the first worker thread that took a fatal signal (on_crash()) */
	_Atomic int crash_sig, crash_worker, crash_tid;
	_Atomic uint64_t crash_addr;
	struct prog corpus[CORPUS_MAX];
	struct worker_slot slot[MAX_WORKERS];
};

extern struct shared *sh;
extern int nworkers;
extern int ndev;
extern char dev_bdf[MAX_DEVS][32];
extern bool dma_api_debug;

/* ---- PRNG (splitmix64) ---- */

struct rng {
	uint64_t s;
};

static inline uint64_t rnd64(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t rnd(struct rng *r, uint64_t n)
{
	return n ? rnd64(r) % n : 0;
}

static inline bool chance(struct rng *r, unsigned int pct)
{
	return rnd(r, 1000) < pct * 10u;
}

/* per mille */
static inline bool chance_pm(struct rng *r, unsigned int pm)
{
	return rnd(r, 1000) < pm;
}

static inline uint64_t mix(uint64_t a, uint64_t b)
{
	struct rng r = { a ^ (b * 0x9e3779b97f4a7c15ULL) };

	return rnd64(&r);
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- the per-process state: files and the objects they hold ---- */

enum fkind { F_COMPUTE, F_CONTROL, F_DMABUF, F_IMPORTER, F_SYNC, F_NUM };
extern const char *const fkind_name[F_NUM];

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

/* A NIC memory region (REG_MR) */
struct mrobj {
	uint32_t file;
	uint32_t lkey, rkey;
	uint64_t iova, size;
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
	int nallocs, nmaps, nimports, nseqs, nconns, ncqs, nmrs;
	struct alloc allocs[MAX_OBJ];
	struct mapping maps[MAX_OBJ];
	struct import imports[MAX_OBJ];
	struct seqobj seqs[MAX_OBJ];
	struct conn conns[MAX_OBJ];
	struct cqobj cqs[MAX_OBJ];
	struct mrobj mrs[MAX_OBJ];
	/* stale values: handles, VAs, seqs, ids of closed or freed objects */
	uint64_t grave[GRAVE];
	uint32_t ngrave;
	struct hostbuf hb[NHOSTBUF];
	struct devinfo dev[MAX_DEVS];
};

extern struct pstate *ps;
extern bool in_child;

#define REMOVE_AT(arr, n, i) do { (arr)[i] = (arr)[--(n)]; } while (0)

/* ---- the worker ---- */

/*
 * A worker: the fields up to @r are set once, when the worker starts
 * (worker_seal()), and then sit read-only at the end of a page of their
 * own; the rest, which the worker changes at every call, starts the next
 * page. A stray store of the fuzzer's own into the sealed fields faults
 * where it happens (SIGSEGV, with its backtrace); a kernel copy_to_user
 * there fails (-EFAULT); a device write there (which ignores the page's
 * protection) is found by worker_check() after the next ioctl.
 */
struct worker {
	/* sealed: written only before worker_seal() and by worker_reseal() */
	int id;
	int kcov_fd;
	struct worker_slot *slot;
	uint64_t *cover;
	uint8_t *ro;		/* a read-only page (made writable to fill it) */
	uint8_t *guard;		/* a RW page followed by a PROT_NONE page */
	uint8_t *out;		/* output buffers */
	bool kcov;
	/* the worker's own, changed at every call */
	struct rng r __attribute__((aligned(8)));
	bool prog_new;
	uint64_t prev_pc;
	enum op cur_op;
	uint8_t argbuf[512] __attribute__((aligned(8)));
};

#define WORKER_SEALED	offsetof(struct worker, r)

/*
 * A worker's two pages (worker_alloc()): the sealed fields end the first,
 * the rest of the struct starts the second; every other byte of both is
 * WORKER_FILL. worker_check(), after every ioctl, fails the run when a
 * byte of the fill or a sealed field changed behind the fuzzer's back (a
 * device write to memory that changed hands lands in whatever page the
 * process got next).
 */
#define WORKER_FILL	0xa5
struct worker *worker_alloc(void);
void worker_seal(struct worker *w);
void worker_reseal(struct worker *w, bool kcov);
void worker_free(struct worker *w);
void worker_check(struct worker *w, const char *during);

/* ---- the ioctl wrapper (args.c) ---- */

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

/* Pick an object of @file (or any file, sometimes: foreign), or -1 */
#define PICK(arr, n, f, out) do {					\
	int _idx[MAX_OBJ], _k = 0, _i;					\
	bool _foreign = chance(&w->r, 5);				\
	for (_i = 0; _i < (n); _i++)					\
		if (_foreign || (arr)[_i].file == (f))			\
			_idx[_k++] = _i;				\
	(out) = _k ? _idx[rnd(&w->r, _k)] : -1;				\
} while (0)

struct thread_arg {
	int id;
};

extern char kmsg_report[2048];
extern int trace_fd;

/* The module's text, for KCOV filtering (kcov.c) */
struct text_range {
	uint64_t start, end;
};

extern struct text_range text_range[16];
extern int ntext;
extern uint64_t kaslr_off;

/* state.c */
void st_lock(void);
void st_unlock(void);
void bury(uint64_t v);
uint64_t stale(struct rng *r);
bool set_insert(_Atomic uint64_t *set, uint32_t size, uint64_t key);
int pick_fd(struct worker *w, enum fkind kind, int *dev, uint32_t *file);
int pick_compute(struct worker *w, int *dev, uint32_t *file);
struct devinfo *devinfo(int dev);
void add_fd(int fd, int dev, enum fkind kind, uint32_t file, uint64_t size);
bool file_open_locked(uint32_t file);
void forget_file_locked(uint32_t file);
void hostbuf_new(struct worker *w, int i);
void op_hostbuf(struct worker *w);

/* args.c */
uint64_t interesting(struct rng *r);
bool out_ok(const struct call *c);
void pick_modes(struct worker *w, struct call *c);
long do_call(struct worker *w, struct call *c);
void mutate_struct(struct worker *w, void *arg, size_t size);

/* oracle.c */
void fail(int code, const char *fmt, ...);
void crash_line(char *b, size_t n, pid_t pid, int sig);
struct hist_entry *hist_begin(struct worker *w);
void trace(struct worker *w, const char *what, unsigned long cmd,
	   int am, int sm, size_t usize, long rc);
void note(struct worker *w, int rc, const char *fmt, ...);
void violation(struct worker *w, bool known, const char *what,
	       const char *text);
void kmsg_open(void);
bool kmsg_check(void);
const char *report_task(void);
long read_taint(void);
void print_summary(double secs);
void leak_check(void);

/* kcov.c */
void kcov_collect(struct worker *w);
void kcov_start(struct worker *w);
void load_text_ranges(void);

/* gen_file.c */
void op_open(struct worker *w);
void op_close(struct worker *w);
void op_dup(struct worker *w);
void op_dup2(struct worker *w);
void op_fork(struct worker *w);
void op_info(struct worker *w);
void op_info_unsup(struct worker *w);
void op_debug(struct worker *w);
void op_raw(struct worker *w);

/* gen_mem.c */
void op_alloc(struct worker *w);
void op_free(struct worker *w);
void op_map_dev(struct worker *w);
void op_map_host(struct worker *w);
void op_unmap(struct worker *w);
int count_fds_locked(enum fkind kind);
void op_export(struct worker *w);
void op_mem_raw(struct worker *w);
void op_mem_unsup(struct worker *w);

/* gen_cs.c */
uint64_t pick_va(struct worker *w, uint32_t file, uint64_t *room);
void op_cs(struct worker *w);
void op_wait_cs(struct worker *w);
void drain_some(struct worker *w);

/* gen_gaudi.c */
extern bool gaudi_format;
uint32_t build_gaudi_cb(struct worker *w, uint32_t file, uint8_t *cb,
			uint32_t room, bool *nic);

/* gen_nic.c */
void op_nic_alloc(struct worker *w);
void op_nic_modify(struct worker *w);
void op_nic_ctx(struct worker *w, bool req);
void op_nic_destroy(struct worker *w);
void op_nic_query(struct worker *w);
void op_cq_create(struct worker *w);
void op_cq_destroy(struct worker *w);
void op_cq_poll(struct worker *w, bool wait);
void op_cq_update(struct worker *w);
void op_nic_raw(struct worker *w);
void op_nic_pair(struct worker *w);
void op_nic_xfer(struct worker *w);
void op_nic_reg_mr(struct worker *w);
void op_nic_dereg_mr(struct worker *w);

/* gen_importer.c */
void op_imp_import(struct worker *w);
void imp_simple(struct worker *w, unsigned long cmd);
void op_imp_status(struct worker *w);
void op_imp_map(struct worker *w);
void op_imp_sg(struct worker *w);
void op_imp_dma(struct worker *w);
void op_sync_file(struct worker *w);
void op_dmabuf_mmap(struct worker *w);

/* gen_rt.c */
void rt_op_cb(struct worker *w);
void rt_op_cb_mmap(struct worker *w);
void rt_op_cb_cs(struct worker *w);
void rt_op_wait_multi(struct worker *w);
void rt_op_events(struct worker *w);
void rt_op_info(struct worker *w);

/* prog.c */
extern __thread int cur_worker;
void run_calls(struct worker *w, int n);
void load_corpus(void);
void process_main(int proc);

/* main.c */
int write_file(const char *path, const char *text);
void usage(void);

/* churn.c */
void *churn_main(void *arg);

#endif /* HL_FUZZ_H */

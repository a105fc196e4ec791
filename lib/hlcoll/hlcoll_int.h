/* SPDX-License-Identifier: MIT */
/*
 * hlcoll_int.h - libhlcoll's internals: logging, the bootstrap (hlcoll_boot.c),
 * the communicator, and the transport between two ranks (struct
 * hlcoll_transport_ops; hlcoll_nic.c is the intra-host one, over the
 * devices' NIC ports).
 */
#ifndef HLCOLL_INT_H
#define HLCOLL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hlcoll.h"
#include "hlcoll_test.h"
#include "hlthunk.h"

/* ------------------------------------------------------------------------
 * Logging: silent unless HLCOLL_DEBUG says otherwise
 */
enum hlcoll_log_level {
	HLCOLL_LOG_NONE = 0,
	HLCOLL_LOG_WARN = 1,
	HLCOLL_LOG_INFO = 2,
	HLCOLL_LOG_TRACE = 3,
};

int hlcoll_log_level(void);
void hlcoll_log(int level, int rank, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define hlcoll_warn(rank, ...)	hlcoll_log(HLCOLL_LOG_WARN, rank, __VA_ARGS__)
#define hlcoll_info(rank, ...)	hlcoll_log(HLCOLL_LOG_INFO, rank, __VA_ARGS__)
#define hlcoll_trace(rank, ...)	hlcoll_log(HLCOLL_LOG_TRACE, rank, __VA_ARGS__)

/* ------------------------------------------------------------------------
 * Bootstrap (hlcoll_boot.c): a star of TCP connections to rank 0
 */

/* Largest blob of one rank in one hlcoll_boot_allgather() */
#define HLCOLL_BOOT_MAX_BLOB	(16u * 1024)

struct hlcoll_boot {
	int rank;
	int nranks;
	uint32_t timeout_ms;
	/* The id's: its tag, the secret the handshake proves (hlcoll_wire.h) */
	uint64_t tag;
	uint8_t secret[32];
	/* Rank 0: the socket of every other rank (fds[0] = -1); else fds[0]: root */
	int fds[HLCOLL_MAX_RANKS];
	/* First error the bootstrap met (sticky), 0 if none */
	int error;
	/* Sockets (bit per rank) shut down after a message failed partway */
	uint64_t broken;
};

int hlcoll_boot_init(struct hlcoll_boot *b, const struct hlcoll_unique_id *id,
		     int rank, int nranks, uint32_t timeout_ms);
int hlcoll_boot_allgather(struct hlcoll_boot *b, const void *mine, void *all,
			  size_t size);
/* Check without waiting whether a rank aborted or left: 0 or -errno */
int hlcoll_boot_poll_error(struct hlcoll_boot *b);
/*
 * The same, waiting up to @timeout_ms for such news; rank 0 relays what it
 * learns to every rank. 0 or -errno (sticky)
 */
int hlcoll_boot_wait_error(struct hlcoll_boot *b, int timeout_ms);
/* Tell the others the communicator is aborted (@err < 0), best effort */
void hlcoll_boot_abort(struct hlcoll_boot *b, int err);
void hlcoll_boot_fini(struct hlcoll_boot *b, bool normal);
/* In a forked child that is not rank 0: close the inherited listeners */
void hlcoll_boot_drop_listeners(void);
/* In the launcher, after the fork: close the listener of @id */
void hlcoll_boot_drop_listener(const struct hlcoll_unique_id *id);

/* ------------------------------------------------------------------------
 * The communicator
 */

/* Command buffers: host memory mapped to the device, one per job kind */
#define HLCOLL_CB_SIZE		(64u * 1024)
#define HLCOLL_CB_RECV		0
#define HLCOLL_CB_SEND		1
#define HLCOLL_CB_COPY		2

/*
 * How long a wait for the device goes before it looks at the bootstrap
 * again (another rank's abort or death): the bound on noticing it
 */
#define HLCOLL_WAIT_SLICE_US	10000
#define HLCOLL_PAGE		4096u

/* Chunks per queue per submission: CB room (RECV + REDUCE each), CQ room */
#define HLCOLL_MAX_BATCH	512
#define HLCOLL_CQ_ENTRIES	4096
#define HLCOLL_WQ_SIZE		1024

/*
 * The small all-reduce (hlcoll_nic_allreduce_small()): HLCOLL_SMALL_MAX's
 * default and largest value, in bytes of the inputs gathered on a rank
 * (nranks times the collective's size): 16 KiB on 4 ranks, 32 KiB on 2,
 * about where the ring overtakes it (docs/collectives.md)
 */
#define HLCOLL_SMALL_DEFAULT	(64u * 1024)
#define HLCOLL_SMALL_LIMIT	(1u << 30)

/*
 * Messages of a transfer that reduces nothing (it lands in place, no
 * scratch buffer bounds it): HLCOLL_BULK_BYTES, by default this many times
 * chunk_bytes (4 MiB for the default 256 KiB), at most HL_NIC_MAX_MSG_SIZE.
 * Every message is a hand-over between two engines' workers; at 64 MiB,
 * 16 times fewer of them took a 4-rank broadcast from 0.63x to 0.77x the
 * CPU ring, the same boot (docs/collectives.md)
 */
#define HLCOLL_BULK_FACTOR	16u

/*
 * What one submission may move per queue (hlcoll_submit_budget()): this
 * many bytes per second of the job timeout (the smallest cfg.timeout_s of
 * the ranks, agreed at connect), so that a submission ends well within its
 * deadline even on a loaded emulator, whose engines copy at about 2 GB/s
 * shared by every queue of every rank (4 ranks: 8 queues), and a deadline
 * that also covers waiting for a peer one submission behind: 120 MiB at
 * the default 30 s, 4 MiB at 1 s. The debug lane's kernel (KASAN, beside
 * another VM on 2 cores) moved a 4-rank broadcast's root at 16 MiB in
 * about 300 ms a submission, and more than 1 s in 5 runs of 8 at 16 MiB a
 * second. Messages count too (HLCOLL_MAX_BATCH); at least one message of
 * each transfer goes in a window whatever its size.
 */
#define HLCOLL_SUBMIT_BYTES_PER_S	(4ull << 20)

/* Point-to-point calls of one group, per communicator */
#define HLCOLL_MAX_GROUP_OPS	(4 * HLCOLL_MAX_RANKS)

struct hlcoll_cb {
	uint8_t *ptr;
	uint64_t va;
	uint32_t len;
};

/*
 * struct hlcoll_xfer - one transfer of a step: send @bytes at @va to
 * @peer, or receive @bytes from @peer at @va (with @reduce: into the
 * scratch buffer, chunk by chunk, each chunk then reduced into @va with
 * @dtype/@op). A send's @reduce says that the peer reduces it: both ends
 * of a pair must agree, since the NIC transport may then move it by
 * one-sided writes into the peer's landing slots (hlcoll_nic.c).
 */
struct hlcoll_xfer {
	int peer;
	bool send;
	bool reduce;
	uint64_t va;
	uint64_t bytes;
};

/* Per-peer state of the NIC transport */
struct hlcoll_peer {
	uint32_t conn;		/* 0: not connected */
	uint32_t port;
	uint64_t remote_addr;
	/* One-sided path: the peer's landing region, where our slots start */
	uint32_t rkey;
	uint64_t land_addr;
	/* Chunks written one-sided to the peer, and from it: slot = seq % 2 */
	uint64_t seq_tx, seq_rx;
};

/* HLCOLL_NIC_WRITE: how reduced transfers move over the NIC */
enum hlcoll_nic_write {
	HLCOLL_NIC_WRITE_OFF = 0,	/* SEND + RECV into the scratch buffer */
	HLCOLL_NIC_WRITE_ON = 1,	/* WRITE + WRITE_IMM into landing slots */
	HLCOLL_NIC_WRITE_AUTO = 2,	/* as measured: OFF (hlcoll_nic.c) */
};

/* Completion entries of one submission, at most */
#define HLCOLL_MAX_CQES		(2 * HLCOLL_MAX_BATCH)

struct hlcoll_comm;

/*
 * struct hlcoll_transport_ops - how two ranks move data. Chosen once at
 * init; the collectives only call these. The NIC transport (hlcoll_nic.c)
 * connects the ranks whose devices are cabled (one host). With ranks on
 * several hosts it is hlcoll_hosts_ops (hlcoll_hosts.c), which hands a
 * step's transfers to peers on this host to hlcoll_nic_ops and calls
 * libfabric's side, hlcoll_ofi_*() (hlcoll_ofi.c), directly for the
 * others: libfabric is no transport of this table of its own.
 * @name: for the logs.
 * @connect: collective: connect this rank to its peers (it may use
 *	hlcoll_boot_allgather()); 0 or -errno.
 * @step: run the transfers (sends in list order, receives in list order,
 *	both at once) plus an optional local copy, and wait for all of them;
 *	0 or -errno.
 * @abort: make the peers' pending transfers with this rank fail fast.
 * @fini: release what @connect took.
 */
struct hlcoll_transport_ops {
	const char *name;
	int (*connect)(struct hlcoll_comm *c);
	int (*step)(struct hlcoll_comm *c, const struct hlcoll_xfer *x, int n,
		    enum hlcoll_dtype dtype, enum hlcoll_redop op,
		    uint64_t copy_src, uint64_t copy_dst, uint64_t copy_len);
	void (*abort)(struct hlcoll_comm *c);
	void (*fini)(struct hlcoll_comm *c);
};

extern const struct hlcoll_transport_ops hlcoll_nic_ops;
/* hlcoll_hosts.c: NIC within a host, libfabric (hlcoll_ofi.c) between */
extern const struct hlcoll_transport_ops hlcoll_hosts_ops;

/* ------------------------------------------------------------------------
 * Hosts (hlcoll_hosts.c) and libfabric (hlcoll_ofi.c)
 */

/* Learn every rank's host (collective); pick c->ops. 0 or -errno */
int hlcoll_hosts_init(struct hlcoll_comm *c);
/* all-reduce in place: 1 when it ran the hierarchical one (*rc its result) */
int hlcoll_hosts_allreduce(struct hlcoll_comm *c, uint64_t buf,
			   uint64_t count, enum hlcoll_dtype dtype,
			   enum hlcoll_redop op, int *rc);
/* all-gather: 1 when it ran the hierarchical one (*rc its result) */
int hlcoll_hosts_allgather(struct hlcoll_comm *c, uint64_t sendbuf,
			   uint64_t recvbuf, uint64_t bytes, int *rc);
/* reduce-scatter in place in @work, no division: likewise */
int hlcoll_hosts_reduce_scatter(struct hlcoll_comm *c, uint64_t work,
				uint64_t count, enum hlcoll_dtype dtype,
				enum hlcoll_redop op, int *rc);
/* The transfers of a step with peers on other hosts, over libfabric */
int hlcoll_ofi_connect(struct hlcoll_comm *c);
int hlcoll_ofi_step(struct hlcoll_comm *c, const struct hlcoll_xfer *x, int n,
		    enum hlcoll_dtype dtype, enum hlcoll_redop op);
void hlcoll_ofi_abort(struct hlcoll_comm *c);
void hlcoll_ofi_fini(struct hlcoll_comm *c);
/* hlcoll_nic.c: the REDUCE packet's codes of a type and an operation */
uint32_t hlcoll_reduce_dtype(enum hlcoll_dtype dtype);
uint32_t hlcoll_reduce_op(enum hlcoll_redop op);
/* hlcoll.c's step (sticky error), for the algorithms of other files */
int hlcoll_step(struct hlcoll_comm *c, const struct hlcoll_xfer *x, int n,
		enum hlcoll_dtype dtype, enum hlcoll_redop op,
		uint64_t copy_src, uint64_t copy_dst, uint64_t copy_len);

struct hlcoll_comm {
	int fd;
	int rank;
	int nranks;
	struct hlcoll_config cfg;
	struct hlcoll_boot boot;
	const struct hlcoll_transport_ops *ops;
	/* Sticky error: the first failure of a collective, or an abort */
	int error;

	/*
	 * The device's engine queues this communicator has to itself
	 * (hlcoll.c's pool): receives; sends and local copies. @dev: the
	 * device (its st_rdev), -1 until the pair is taken; @next: the
	 * process's list of communicators that hold a pair
	 */
	uint32_t q_recv, q_send;
	long long dev;
	struct hlcoll_comm *q_next;

	/* NIC transport */
	struct hlcoll_peer peers[HLCOLL_MAX_RANKS];
	uint32_t cq;
	uint64_t scratch_handle, scratch_va;
	struct hlcoll_cb cb[3];
	uint64_t wr_id;
	struct hl_nic_cqe cqes[HLCOLL_MAX_CQES];

	/*
	 * One-sided path (hlcoll_nic.c): the mode all ranks agreed on at
	 * connect, the landing buffer (two chunk slots per rank of this
	 * host; each peer's registered REMOTE_WRITE for the connection to
	 * it, ours local only; lkeys 0: none), a planted bug for the
	 * tests (hlcoll_test_nic_write_inject), the immediate value each receive
	 * of the current submission expects (by wr_id - imm_base - 1; 0: a
	 * two-sided receive), and what moved which way (chunks)
	 */
	enum hlcoll_nic_write nic_write;
	int nic_inject;
	uint64_t land_handle, land_va, land_bytes;
	uint32_t land_lkey;			/* our own slots (local) */
	uint32_t land_lkeys[HLCOLL_MAX_RANKS];	/* each peer's slots */
	uint64_t imm_base;
	uint32_t imm_want[HLCOLL_MAX_CQES];
	uint64_t chunks_written, chunks_sent;

	/*
	 * How many bytes the inputs of an all-reduce that gathers them all
	 * and reduces locally (hlcoll_nic_allreduce_small()) may make
	 * together, agreed at connect; 0: none
	 */
	uint64_t small_max;

	/*
	 * The largest message of a transfer that reduces nothing
	 * (hlcoll_xfer_msg()), agreed at connect: rank 0's HLCOLL_BULK_BYTES
	 */
	uint64_t bulk_bytes;
	/*
	 * What one submission moves at most per queue, agreed at connect
	 * from the smallest timeout_s of the ranks (hlcoll_submit_budget())
	 */
	uint64_t submit_budget;

	/* Hosts: each rank's host index (0 .. nhosts - 1, by lowest rank) */
	int nhosts;
	int host[HLCOLL_MAX_RANKS];
	/*
	 * HLCOLL_ALGO as rank 0 read it at init (0 auto, 1 ring, 2 hier):
	 * every rank must pick the same algorithm
	 */
	int algo;
	/* libfabric state (hlcoll_ofi.c), NULL when all ranks share a host */
	struct hlcoll_ofi *ofi;

	/*
	 * HLCOLL_PROFILE=1 (hlcoll_nic.c): per kind of submission (0: a
	 * local job alone, 1: with NIC jobs) how many, and the time spent in
	 * the submission ioctl and waiting for the CS fence; printed by the
	 * transport's fini on stderr
	 */
	bool prof;
	/*
	 * A chain's CS is in flight (hlcoll_nic_chain()); HLCOLL_CHAIN=0;
	 * a planted bug for the tests (hlcoll_test.h: the
	 * send queue does not wait for the previous step's receives)
	 */
	bool chain_live, chain_off, chain_early;
	/*
	 * A stream-ordered collective's chain (hlcoll_allreduce_enqueue()
	 * and the other enqueues): submitted, not yet completed
	 * (hlcoll_stream_sync()): its CS, the completions it owes, its
	 * stream (the head's monitor), the device memory it works in (an
	 * out-of-place reduce-scatter's; freed once it completed, 0: none),
	 * and the device's number of queues (a release of a blocked head
	 * runs on a queue of another pair)
	 */
	bool pending;
	uint64_t pending_seq;
	uint32_t pending_expected;
	struct hlcoll_stream pending_stream;
	uint64_t pending_work_handle, pending_work_va;
	/*
	 * A pending small all-reduce that probes its buffers itself
	 * (hlcoll_nic_allreduce_small()): the context's last MMU fault
	 * before it was submitted, and the buffers; @own_fault: its failure
	 * was an MMU fault on one of them (this rank's, no peer's word to
	 * wait for)
	 */
	bool pending_probe, own_fault;
	int64_t pending_pf_ts;
	uint64_t pending_probe_va[2], pending_probe_len[2];
	uint32_t num_queues;
	uint64_t prof_cs[2], prof_submit_us[2], prof_wait_us[2];

	/* Queued point-to-point calls of the current group */
	struct hlcoll_xfer group[HLCOLL_MAX_GROUP_OPS];
	int ngroup;
	int group_error;
	struct hlcoll_comm *group_next;
};

/* Test-only hooks (hlcoll_test.h): weak, the library defines none */
extern int hlcoll_test_chain_inject __attribute__((weak));
extern int hlcoll_test_nic_write_inject __attribute__((weak));
extern int hlcoll_test_hier_inject __attribute__((weak));
extern int hlcoll_test_small_inject __attribute__((weak));

/*
 * Steps chained on the device in one submission (hlcoll_nic.c): at most
 * HLCOLL_CHAIN_XFERS transfers a step. hlcoll_steps() runs them chained
 * when it can, else one by one (hlcoll.c); an error is sticky
 */
#define HLCOLL_CHAIN_XFERS	2
int hlcoll_nic_chain(struct hlcoll_comm *c, const struct hlcoll_xfer *x,
		     const int *nx, int nsteps, enum hlcoll_dtype dtype,
		     enum hlcoll_redop op, uint64_t copy_src,
		     uint64_t copy_dst, uint64_t copy_len);
int hlcoll_nic_chain_reset(struct hlcoll_comm *c);
/* A local copy that a chain makes before its first step */
struct hlcoll_span {
	uint64_t src;
	uint64_t dst;
	uint64_t len;
};

bool hlcoll_nic_steps_fit(const struct hlcoll_comm *c,
			  const struct hlcoll_xfer *x, const int *nx,
			  int nsteps);
int hlcoll_nic_chain_fits(const struct hlcoll_comm *c,
			  const struct hlcoll_xfer *x, const int *nx,
			  int nsteps, uint64_t seg);
int hlcoll_nic_chain_stream(struct hlcoll_comm *c,
			    const struct hlcoll_xfer *x, const int *nx,
			    int nsteps, enum hlcoll_dtype dtype,
			    enum hlcoll_redop op, const struct hlcoll_span *cp,
			    int ncp, const struct hlcoll_stream *s);
int hlcoll_nic_stream_complete(struct hlcoll_comm *c);
bool hlcoll_nic_small(const struct hlcoll_comm *c, uint64_t count,
		      enum hlcoll_dtype dtype);
int hlcoll_nic_allreduce_small(struct hlcoll_comm *c, uint64_t sendbuf,
			       uint64_t recvbuf, uint64_t count,
			       enum hlcoll_dtype dtype, enum hlcoll_redop op,
			       const struct hlcoll_stream *s, bool probe);
int hlcoll_steps(struct hlcoll_comm *c, const struct hlcoll_xfer *x,
		 const int *nx, int nsteps, enum hlcoll_dtype dtype,
		 enum hlcoll_redop op, uint64_t copy_src, uint64_t copy_dst,
		 uint64_t copy_len);

/* dst[i] = src[i] / n on the device (an average's last step); 0 or -errno */
int hlcoll_nic_divide(struct hlcoll_comm *c, uint64_t src, uint64_t dst,
		      uint64_t count, enum hlcoll_dtype dtype, uint32_t n);
/* An average's last step (nothing for other ops); an error is sticky */
int hlcoll_finish(struct hlcoll_comm *c, enum hlcoll_redop op, uint64_t src,
		  uint64_t dst, uint64_t count, enum hlcoll_dtype dtype);

/*
 * Whether the device reads the first and last element of @n buffers: 0, or
 * -EFAULT (not mapped), before anything moves
 */
int hlcoll_nic_probe(struct hlcoll_comm *c, const uint64_t *va,
		     const uint64_t *len, int n, uint64_t es);

#endif /* HLCOLL_INT_H */

/* SPDX-License-Identifier: MIT */
/*
 * hlcoll.h - libhlcoll, a collective-communication library on libhlthunk,
 * shaped as NCCL/HCCL are: one process per device (rank), a communicator
 * made from a unique id that one rank creates and every rank receives by
 * any means (an environment variable, a file, MPI_Bcast), and the
 * collectives NCCL users know.
 *
 *   rank 0:   hlcoll_get_unique_id(&id);   then pass id's bytes to the others
 *   rank r:   fd = <open the device this rank uses>;
 *             hlcoll_comm_init_rank(&comm, nranks, &id, r, fd, NULL);
 *             hlcoll_allreduce(comm, send_va, recv_va, count,
 *                              HLCOLL_FLOAT32, HLCOLL_SUM);
 *             hlcoll_comm_destroy(comm);
 *
 * Bootstrap: the id carries an IPv4 address, a TCP port, a random 64-bit
 * tag and a random 256-bit secret (id version 2; another version is refused
 * with -EPROTONOSUPPORT). hlcoll_get_unique_id() opens a listening socket
 * there (in the calling process); rank 0 must run in that process or in a
 * child forked after the call (hlcoll_launch() does so). Rank 0 serves
 * every connection at once, each bounded: clients that connect and say
 * nothing delay no rank. Every other rank connects to it and the two prove
 * to each other that they hold the secret (HMAC-SHA-256 over fresh nonces
 * of both; the secret is never sent), the root first: a rank tells nothing
 * of the job to a listener that cannot prove it and fails with
 * -ECONNREFUSED, which is also what an id whose root is gone gets (nobody
 * listens, or another process took the port). The root refuses a rank of
 * another id (-ESTALE), one that cannot prove the secret (-EACCES), and
 * goes on waiting for the right one. Every bootstrap wait is bounded
 * (struct hlcoll_config.boot_timeout_ms): a rank that never
 * arrives makes every rank fail with -ETIMEDOUT, one that dies makes the
 * others fail with -ECONNRESET. The address is 127.0.0.1 unless
 * HLCOLL_SOCKET_ADDR (an IPv4 address of this host) or HLCOLL_SOCKET_IFNAME
 * (an interface name, its first IPv4 address) is set in the environment of
 * the process calling hlcoll_get_unique_id(): ranks on other hosts need one
 * of them. The unique id is HLCOLL_UNIQUE_ID_BYTES of plain bytes, and a
 * secret: hand it to the ranks only.
 *
 * Data: ranks are connected, pairwise, over the devices' NIC ports (every
 * pair whose devices are cabled, HL_INFO_NIC_PORTS): NIC_SEND/NIC_RECV
 * packets in command submissions, the reduction on the device (REDUCE
 * packets), completions checked on the NIC CQ. The steps of a ring
 * (all-reduce, reduce-scatter, all-gather) run chained on the device, one
 * submission per collective and rank: each step starts when the previous
 * one's receives, reductions and sends are done (fence counters; the
 * environment's HLCOLL_CHAIN=0: one submission per step, rank 0's value
 * agreed at connect;
 * HLCOLL_PROFILE=1: each communicator's submissions counted and timed, on
 * stderr at its end). A small all-reduce (nranks times its size at most
 * 64 KiB and at most chunk_bytes, every pair of ranks connected on one
 * host) is no ring: every rank sends its input to every other one and
 * reduces what it gathered on its own device, in the ring's order of
 * operations, in one submission (rank 0's HLCOLL_SMALL_MAX, in bytes,
 * moves the 64 KiB; 0: never). Peers are named by their
 * ports' fabric addresses, not by host-local ids. Buffers are device
 * virtual addresses of the rank's fd (device memory, or host memory mapped
 * to the device).
 *
 * Order of operations (what a bit-exact host check must do; "x op acc" is
 * one REDUCE operation with x = the element already in the destination
 * (the packet's dst) and acc = the received partial result; see
 * HL_PKT_REDUCE for each type's arithmetic: float32 sums as C floats,
 * bfloat16 and float16 sums as binary32 sums rounded to nearest even,
 * int32 sums wrapping, min and max exact, NaNs propagated):
 *   all-reduce: the buffer is split into N segments, segment k being
 *	elements [k * q + min(k, r), ...) of length q + (k < r), q = count / N,
 *	r = count % N (hlcoll_segment()). Segment k is reduced around the ring
 *	starting at rank k: acc = x_k; for j = 1 .. N-1:
 *	acc = x_{(k+j) % N} op acc. Every rank ends with the same bits.
 *   reduce-scatter: as all-reduce on N segments of recvcount elements each,
 *	segment k being reduced starting at rank (k + 1) % N:
 *	acc = x_{k+1}; for j = 1 .. N-1: acc = x_{(k+1+j) % N} op acc.
 *   reduce: acc = x_root; for j = 1 .. N-1: acc = x_{(root+j) % N} op acc.
 * Every type is reduced with every operation. HLCOLL_PROD: x * acc (float32
 * as C floats; bfloat16 and float16 the exact product rounded once to
 * nearest even; int32 wrapping). HLCOLL_AVG: acc computed as for
 * HLCOLL_SUM, in the order above, then divided once by N (the rank that
 * holds a finished segment divides it before it is gathered, so every rank
 * has the same bits): float32 acc / (float)N; bfloat16 and float16 the
 * exact quotient rounded once to nearest even; int32 C's division,
 * truncated toward zero. Unlike NCCL, floats are not pre-multiplied by 1/N:
 * the sum is divided at the end (bit-exact with that host expression). One
 * rank: x / 1 (a signalling NaN comes out quiet).
 *
 * Errors: every int function returns 0 or a negative errno, the one of the
 * call that failed (the driver's, the socket's, or the library's own:
 * -EINVAL bad argument, -EOPNOTSUPP a type/operation the device cannot
 * reduce or an enqueue that cannot be chained, -EMSGSIZE a message larger
 * than its receive or an enqueue larger than one submission, -ETIMEDOUT a
 * peer did not answer in time, -ESTALE a unique id of another
 * communicator, -ECONNRESET a rank is gone, -ECONNABORTED the
 * communicator was aborted, -EBUSY the device's engine queues are all
 * taken by this process's communicators); hlcoll_get_error_string() names
 * it. Arguments are checked before anything moves. After a failed
 * collective the communicator is in error (hlcoll_comm_get_async_error()):
 * destroy or abort it. A failure reaches every rank: the rank whose
 * transfers failed tells the others through the bootstrap (after waiting
 * up to 0.5 s for another rank's word, which is then the reason it gives),
 * rank 0 relays what one rank says to all, and a rank that waits for the
 * device looks at the bootstrap every 10 ms and cancels its transfers
 * (its NIC connections go to ERR): every rank in a call fails with that
 * errno within about a second, not at the job timeout (rank 0 relays
 * while it is in a call of its own). Silent by default:
 * HLCOLL_DEBUG=WARN|INFO|TRACE (or 1|2|3) in the environment makes the
 * library log to stderr.
 *
 * Not thread-safe: one thread per communicator; hlcoll_group_start() and
 * _end() are per thread. Communicators are independent of each other,
 * also on one device: each has a pair of its device's engine queues to
 * itself for as long as it lives (receives; sends and local copies), so
 * that one's blocked receive never holds another's. A process has at most
 * num_queues / 2 communicators on one device at once (HW_IP_INFO's
 * num_queues: 4 on the emulated device, so 2, e.g. a communicator and one
 * split of it); hlcoll_comm_init_rank() or hlcoll_comm_split() of one more
 * fails with -EBUSY. The pool is this process's: communicators of another
 * process on the same device may take the same queues.
 *
 * Memory per rank: one communicator holds 3 command buffers of 64 KiB of
 * host memory (mapped to the device), one device scratch buffer of
 * chunk_bytes, the communicator itself (48 KiB: a 40 KiB CQE array,
 * per-peer state for HLCOLL_MAX_RANKS, the group queue), and one NIC
 * connection per connected peer; the bootstrap's root holds at most
 * nranks * 16 KiB during an exchange. An out-of-place reduce-scatter
 * allocates a device buffer of nranks * recvcount elements for the
 * duration of the call.
 *
 * Installed as <habanalabs/hlcoll.h> beside <habanalabs/hlthunk.h>: build
 * with "#include <habanalabs/hlcoll.h>" and -lhlcoll -lhlthunk, or with
 * pkg-config hlcoll (which requires hlthunk). Symbols are versioned (nodes
 * HLCOLL_2.0 and HLCOLL_2.2, libhlcoll.map); the SONAME is libhlcoll.so.2.
 */
#ifndef HLCOLL_H
#define HLCOLL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define hlcoll_public	__attribute__((visibility("default")))

/* Library version; the SONAME major is HLCOLL_VERSION_MAJOR */
#define HLCOLL_VERSION_MAJOR		2
#define HLCOLL_VERSION_MINOR		2
#define HLCOLL_VERSION_PATCH		0

/* Largest number of ranks of a communicator */
#define HLCOLL_MAX_RANKS	64

/*
 * Engine queues of the first communicator of a process on a device; the
 * k-th one at once takes 2k (receives) and 2k + 1 (sends, and before them
 * its local copies)
 */
#define HLCOLL_QUEUE_RECV	0
#define HLCOLL_QUEUE_SEND	1
#define HLCOLL_QUEUE_COPY	HLCOLL_QUEUE_SEND

/* hlcoll_comm_split()'s colour of a rank that wants no new communicator */
#define HLCOLL_SPLIT_NOCOLOR	(-1)

/**
 * enum hlcoll_dtype - element types.
 * @HLCOLL_FLOAT32: IEEE-754 binary32.
 * @HLCOLL_BFLOAT16: bfloat16 (the upper half of a binary32).
 * @HLCOLL_FLOAT16: IEEE-754 binary16.
 * @HLCOLL_INT32: two's complement 32-bit integer.
 * @HLCOLL_NUM_DTYPES: number of types.
 */
enum hlcoll_dtype {
	HLCOLL_FLOAT32 = 0,
	HLCOLL_BFLOAT16 = 1,
	HLCOLL_FLOAT16 = 2,
	HLCOLL_INT32 = 3,
	HLCOLL_NUM_DTYPES
};

/**
 * enum hlcoll_redop - reduction operations.
 * @HLCOLL_SUM: sum.
 * @HLCOLL_PROD: product (int32 wraps).
 * @HLCOLL_MIN: minimum (-0 < +0; a NaN propagates).
 * @HLCOLL_MAX: maximum.
 * @HLCOLL_AVG: the sum divided by the number of ranks, once, at the end
 *	(int32: truncated toward zero), as NCCL's ncclAvg.
 * @HLCOLL_NUM_OPS: number of operations.
 *
 * Which (type, operation) pairs the device reduces: hlcoll_reduce_supported().
 */
enum hlcoll_redop {
	HLCOLL_SUM = 0,
	HLCOLL_PROD = 1,
	HLCOLL_MIN = 2,
	HLCOLL_MAX = 3,
	HLCOLL_AVG = 4,
	HLCOLL_NUM_OPS
};

/* Bytes of a unique id */
#define HLCOLL_UNIQUE_ID_BYTES	128

/**
 * struct hlcoll_unique_id - what rank 0 gives every other rank: plain bytes
 * (copy them as they are; they hold no pointer).
 * @internal: opaque.
 */
struct hlcoll_unique_id {
	char internal[HLCOLL_UNIQUE_ID_BYTES];
};

/**
 * struct hlcoll_config - tunables of a communicator (zero: the default).
 * @size: sizeof(struct hlcoll_config) as the caller knows it
 *	(HLCOLL_CONFIG_INIT sets it). A smaller size (an older caller) leaves
 *	the later fields at their defaults; a larger one (a newer caller) is
 *	accepted when the bytes this library does not know are zero, else
 *	-E2BIG. Smaller than the first field: -EINVAL.
 * @timeout_s: job timeout of every command submission, in seconds (default
 *	30): how long a rank waits for a peer that stopped in a collective.
 *	The driver caps it at its job_timeout_max module parameter (60 s by
 *	default), so a larger value is refused (-EINVAL) above 3600. It also
 *	bounds what one submission moves: at most 4 MiB per queue per
 *	second of the smallest timeout_s of the ranks (a larger collective
 *	takes several).
 * @chunk_bytes: largest message of a reduced NIC transfer, and the size of
 *	the device scratch buffer; a multiple of 4, at most 1 GiB (default
 *	256 KiB). A transfer that reduces nothing moves in messages of
 *	HLCOLL_BULK_BYTES (default 16 times @chunk_bytes, at most 1 GiB).
 *	The same on every rank: where they differ, hlcoll_comm_init_rank()
 *	fails with -EINVAL on every rank.
 * @mtu: NIC MTU, one of HL_NIC_MTU_* (default 4096).
 * @boot_timeout_ms: bound of every bootstrap wait (set-up, barrier, split)
 *	in milliseconds (default 60000).
 */
struct hlcoll_config {
	uint32_t size;
	uint32_t timeout_s;
	uint64_t chunk_bytes;
	uint32_t mtu;
	uint32_t boot_timeout_ms;
};

/* Initializer of a struct hlcoll_config: its size, every tunable default */
#define HLCOLL_CONFIG_INIT { .size = sizeof(struct hlcoll_config) }

struct hlcoll_comm;

/**
 * hlcoll_get_error_string() - what a result of this library means.
 * @result: 0 or a negative errno returned by an hlcoll function.
 *
 * Return: a static string (never NULL).
 */
hlcoll_public const char *hlcoll_get_error_string(int result);

/**
 * hlcoll_get_unique_id() - create the id of a new communicator.
 * @id: receives the id.
 *
 * Opens the bootstrap's listening socket (see the header comment); rank 0
 * of the communicator must be this process or a child it forks afterwards.
 * The socket is closed by rank 0's hlcoll_comm_init_rank() (success or
 * failure), which also stops the copies other processes inherited by fork,
 * so an id serves one communicator. The socket is close-on-exec.
 *
 * Return: 0, or -errno: -EINVAL NULL @id or a bad HLCOLL_SOCKET_ADDR;
 * -ENODEV HLCOLL_SOCKET_IFNAME has no IPv4 address; a socket errno.
 */
hlcoll_public int hlcoll_get_unique_id(struct hlcoll_unique_id *id);

/**
 * hlcoll_release_unique_id() - close this process's listening socket of
 * @id, for an id this process created and will not be rank 0 of: a
 * scheduler that forked the ranks (rank 0 keeps its own copy), or a job
 * that will not run. A later hlcoll_comm_init_rank() of rank 0 on @id in
 * this process fails with -ENOENT. Rank 0's init releases the id itself;
 * its end of the rendezvous also stops the copies other processes hold,
 * which release them on their next hlcoll_get_unique_id() when the table
 * of 16 listeners is full.
 * @id: from hlcoll_get_unique_id() (in this process, or before a fork).
 *
 * Return: 0, or -errno: -EINVAL NULL or not a unique id;
 * -EPROTONOSUPPORT an id of another version of the bootstrap; -ENOENT this
 * process holds no listening socket of @id (released already, used by
 * rank 0, or another process's id).
 */
hlcoll_public int hlcoll_release_unique_id(const struct hlcoll_unique_id *id);

/**
 * hlcoll_comm_init_rank() - create rank @rank of a communicator.
 * @comm: receives the communicator.
 * @nranks: 1 .. HLCOLL_MAX_RANKS; the same on every rank.
 * @id: from hlcoll_get_unique_id(), the same bytes on every rank.
 * @rank: 0 .. @nranks - 1, each rank once.
 * @fd: the compute node of this rank's device, opened by the caller (any
 *	device: hlthunk_open(), hlthunk_open_by_module_id(), open(2) of
 *	/dev/hlN); the fd stays the caller's.
 * @cfg: tunables, or NULL for the defaults; each rank may have its own.
 *
 * Collective over @nranks ranks. Takes a pair of the device's engine
 * queues for the communicator's own use (see the top of this header),
 * allocates the scratch buffer, a CQ and one NIC connection per peer
 * whose device is cabled to this one.
 *
 * Return: 0, or -errno: -EINVAL bad arguments (before any exchange), or
 * chunk_bytes that differ between ranks (on every rank);
 * -ESTALE @id is another communicator's, or @nranks differs between ranks;
 * -EADDRINUSE two ranks claim the same @rank; -ETIMEDOUT a rank did not
 * arrive in time; -ECONNREFUSED nobody listens at the id's address, or
 * what listens there cannot prove it holds the id's secret (its root is
 * gone; this rank sent it nothing of the job); -EACCES the root refused
 * this rank's proof of the secret; -ENOENT rank 0 not in the process that
 * made @id (or a child forked after), or @id released or used already;
 * -EPROTONOSUPPORT @id, or the root's bootstrap, is of another version
 * of libhlcoll; -EPROTO the root broke the protocol; -ECONNRESET a rank
 * left; -ENOLINK the ring's neighbours' devices are not cabled to this
 * one, or a rank found no libfabric endpoint for its peers on other
 * hosts, or one's libfabric refused a peer's address (that rank fails
 * with -EADDRNOTAVAIL, every other one with -ENOLINK); -ENOPROTOOPT ranks
 * with different libfabric rxm eager limits, or one of 4 GiB or more
 * (FI_OFI_RXM_EAGER_LIMIT, which the library sets where unset, or
 * FI_OFI_RXM_BUFFER_SIZE), which rxm does not connect,
 * or this rank's libfabric provider matches tags of fewer than 62 bits
 * (its mem_tag_format; the others fail with -ENOLINK); -EOPNOTSUPP ranks
 * on several hosts, and this library built without libfabric or unable
 * to load libfabric.so.1 (which it loads for the first communicator
 * across hosts; the others fail with -ENOLINK);
 * -EBUSY two ranks
 * on one device, or
 * num_queues / 2 communicators of this process hold the device's engine
 * queues already (a rank's local failure, told to the others, which fail
 * with it); an errno of the driver or of a socket.
 */
hlcoll_public int hlcoll_comm_init_rank(struct hlcoll_comm **comm,
					int nranks,
					const struct hlcoll_unique_id *id,
					int rank, int fd,
					const struct hlcoll_config *cfg);

/**
 * hlcoll_comm_split() - ranks of @comm that pass the same @color form a new
 * communicator, ordered by (@key, rank in @comm).
 * @comm: the communicator; every rank of it must call.
 * @color: >= 0, or HLCOLL_SPLIT_NOCOLOR (*@newcomm is set to NULL).
 * @key: the order within the new communicator.
 * @newcomm: receives the new communicator (on the same device fd).
 * @cfg: tunables of the new communicator, or NULL to inherit @comm's.
 *
 * Return: 0, or -errno as hlcoll_comm_init_rank().
 */
hlcoll_public int hlcoll_comm_split(struct hlcoll_comm *comm, int color,
				    int key, struct hlcoll_comm **newcomm,
				    const struct hlcoll_config *cfg);

/**
 * hlcoll_comm_destroy() - destroy the connections and the CQ, free the
 * device memory and the communicator.
 * @comm: the communicator, or NULL.
 *
 * Local: no other rank takes part. The device fd stays open.
 */
hlcoll_public void hlcoll_comm_destroy(struct hlcoll_comm *comm);

/**
 * hlcoll_comm_abort() - tell the other ranks that this communicator is
 * failing, then destroy it.
 * @comm: the communicator, or NULL.
 *
 * The other ranks' calls on it fail promptly with -ECONNABORTED instead
 * of waiting for their timeouts: this rank tells rank 0 (or, being rank 0,
 * every rank) through the bootstrap, and moves its connections to ERR
 * before it destroys them; rank 0 relays the abort to every rank as soon
 * as it is in a call itself; a rank that waits for the device looks at the
 * bootstrap every 10 ms and then cancels its own transfers. A rank already
 * in a collective, or entering one, fails within about a second; one that
 * calls nothing sees it in hlcoll_comm_get_async_error().
 */
hlcoll_public void hlcoll_comm_abort(struct hlcoll_comm *comm);

/**
 * hlcoll_comm_get_async_error() - the communicator's error state.
 * @comm: the communicator.
 * @error: receives 0, or the first error a call on @comm met, or
 *	-ECONNABORTED when another rank aborted it, or -ECONNRESET when the
 *	bootstrap lost a rank (checked without waiting).
 *
 * Return: 0, or -EINVAL for a NULL argument.
 */
hlcoll_public int hlcoll_comm_get_async_error(struct hlcoll_comm *comm,
					      int *error);

/**
 * hlcoll_barrier() - wait until every rank has called it (through the
 * bootstrap, bounded by boot_timeout_ms).
 * @comm: the communicator.
 *
 * Return: 0, or -errno.
 */
hlcoll_public int hlcoll_barrier(struct hlcoll_comm *comm);

/**
 * hlcoll_reduce_supported() - whether the device reduces @dtype with @op.
 * @dtype: a type.
 * @op: an operation.
 *
 * Every known type with every known operation is reduced (prod and avg
 * included); kept for callers that ask.
 *
 * Return: 1, or 0 for an unknown type or operation.
 */
hlcoll_public int hlcoll_reduce_supported(enum hlcoll_dtype dtype,
					  enum hlcoll_redop op);

/**
 * hlcoll_dtype_size() - bytes of one element.
 * @dtype: a type.
 *
 * Return: 2 or 4, or 0 for an unknown type.
 */
hlcoll_public size_t hlcoll_dtype_size(enum hlcoll_dtype dtype);

/*
 * The collectives. Common rules (each function's kernel-doc below says them
 * again for the API reference):
 * - Collective: every rank of @comm calls it with the same counts, type,
 *   operation and root.
 * - Buffers are device VAs of the communicator's fd, aligned to the element
 *   size; a count of 0 does nothing (but still checks the arguments); a
 *   buffer may be 0 only when its count is 0.
 * - Out of place: @sendbuf and @recvbuf must not overlap. In place: as
 *   NCCL, given for each.
 * Return: 0, or -errno: -EINVAL bad arguments (NULL @comm, unknown type or
 * operation, misaligned buffer, count overflow, root or peer out of range);
 * -EFAULT a buffer not mapped on the device (with more than one rank the
 * communicator then fails on every rank); -EOPNOTSUPP a (type, operation)
 * the device cannot reduce (none today); -ETIMEDOUT, -ECONNRESET,
 * -EMSGSIZE, -ENETDOWN a transfer failed (-ETIMEDOUT also a job that ran
 * past its timeout: a peer stopped); -EIO a command submission failed (a
 * NIC or MMU error); another errno of the driver; -ECONNABORTED the
 * communicator failed before.
 */

/**
 * struct hlcoll_stream - the device-side ordering points of a
 * stream-ordered collective (hlcoll_allreduce_enqueue() and the other
 * enqueues): sync objects
 * (SOBs) and a monitor of the emulated sync manager (habanalabs_pkt.h),
 * the caller's own, at or above HL_INFO_SYNC_MANAGER's first available
 * ones (hlthunk_get_sync_manager_info()).
 * @flags: HLCOLL_STREAM_WAIT, HLCOLL_STREAM_SIGNAL, or both.
 * @wait_sob: with HLCOLL_STREAM_WAIT, the SOB the caller's earlier device
 *	work increments: the collective's first packet runs only once it is
 *	>= @wait_value (its head arms monitor @wait_mon on it, the payload
 *	into fence counter 1 of the communicator's receive queue, and FENCEs
 *	there; no host round trip).
 * @wait_value: the value @wait_sob must reach, 1 .. 32767.
 * @wait_mon: the monitor the head arms (the caller's; it must not be in use).
 * @signal_sob: with HLCOLL_STREAM_SIGNAL, the SOB the collective adds 1 to
 *	once every transfer and reduction of it ended on this rank: the
 *	caller's next CS waits for it (a FENCE on a monitor of it). It is not
 *	incremented when the collective fails.
 * @reserved: must be 0.
 */
struct hlcoll_stream {
	uint32_t flags;
	uint32_t wait_sob;
	uint32_t wait_value;
	uint32_t wait_mon;
	uint32_t signal_sob;
	uint32_t reserved[3];
};

/** hlcoll_stream.flags: the collective starts once wait_sob reaches wait_value */
#define HLCOLL_STREAM_WAIT	(1u << 0)
/** hlcoll_stream.flags: the collective adds 1 to signal_sob once it is done */
#define HLCOLL_STREAM_SIGNAL	(1u << 1)

/**
 * hlcoll_allreduce_enqueue() - hlcoll_allreduce() ordered on the device
 * by @stream, returning once submitted.
 * @comm: the communicator (NIC transport, more than one rank).
 * @sendbuf: as hlcoll_allreduce().
 * @recvbuf: as hlcoll_allreduce().
 * @count: as hlcoll_allreduce(); not 0.
 * @dtype: as hlcoll_allreduce().
 * @op: as hlcoll_allreduce(); not HLCOLL_AVG.
 * @stream: the ordering points (struct hlcoll_stream); NULL: none.
 * @seq: NULL, or where the CS sequence of the collective goes
 *	(hlthunk_wait_for_cs() understands it).
 *
 * The arguments and the buffers' mapping are checked first, on the host
 * and with one local job, as hlcoll_allreduce() does; then the whole
 * collective (copy, reduce-scatter and all-gather ring passes, or a small
 * all-reduce's gathering and local reduction: the header comment) is one
 * command submission chained on the device, with @stream's head and tail,
 * and the call returns. hlcoll_stream_sync() waits for it and takes its
 * NIC completions: the result (and any failure) is known only then. One
 * collective may be pending per communicator: any other call on @comm
 * (another enqueue, a blocking collective) first waits for the pending one
 * as hlcoll_stream_sync() does (the communicator's command buffers are
 * reused). hlcoll_comm_destroy() and hlcoll_comm_abort() wait for it too
 * (an abort releases a head still waiting for its SOB).
 *
 * Return: 0 once submitted, or -errno: hlcoll_allreduce()'s argument
 * errors; -EINVAL also a non-zero @stream reserved word or unknown flag, a
 * SOB or monitor out of range, @wait_value 0 or above 32767; -EOPNOTSUPP
 * one rank, the hosts transport, HLCOLL_AVG, HLCOLL_CHAIN=0, one-sided
 * transfers (HLCOLL_NIC_WRITE) unless the all-reduce is small (it reduces
 * no transfer), or a step larger than one submission;
 * -EMSGSIZE a collective of more steps or chunks than one submission
 * takes (use smaller counts or larger chunks), decided alike on every
 * rank (counted with each ring segment as large as the largest, out of
 * place); -ECONNABORTED the
 * communicator failed before (also a pending collective's failure,
 * found here).
 */
hlcoll_public int hlcoll_allreduce_enqueue(struct hlcoll_comm *comm,
					   uint64_t sendbuf, uint64_t recvbuf,
					   uint64_t count,
					   enum hlcoll_dtype dtype,
					   enum hlcoll_redop op,
					   const struct hlcoll_stream *stream,
					   uint64_t *seq);

/**
 * hlcoll_reduce_scatter_enqueue() - hlcoll_reduce_scatter() ordered on
 * the device by @stream, returning once submitted.
 * @comm: the communicator (NIC transport, more than one rank).
 * @sendbuf: as hlcoll_reduce_scatter().
 * @recvbuf: as hlcoll_reduce_scatter().
 * @recvcount: as hlcoll_reduce_scatter(); not 0.
 * @dtype: as hlcoll_reduce_scatter().
 * @op: as hlcoll_reduce_scatter(); not HLCOLL_AVG.
 * @stream: the ordering points (struct hlcoll_stream); NULL: none.
 * @seq: NULL, or where the CS sequence of the collective goes.
 *
 * As hlcoll_allreduce_enqueue(): the arguments and the buffers' mapping
 * are checked first, then the whole collective (out of place: the copy
 * into a work buffer, then the reduce-scatter ring pass, whose last step
 * reduces into @recvbuf) is one command submission chained on the device
 * with @stream's head and tail, and hlcoll_stream_sync() completes it.
 * Out of place, the work buffer (device memory of nranks * @recvcount
 * elements) is allocated here and freed when the collective completes.
 * Same bits as hlcoll_reduce_scatter().
 *
 * Return: 0 once submitted, or -errno: hlcoll_reduce_scatter()'s
 * argument errors (-EINVAL also @recvcount 0 and the stream errors of
 * hlcoll_allreduce_enqueue()); -ENOMEM or the driver's errno when the work
 * buffer cannot be allocated (with more than one rank the communicator
 * then fails on every rank, whose calls end with that errno at once; an
 * enqueue that every rank refuses, -EOPNOTSUPP or -EMSGSIZE below, is
 * refused first);
 * -EOPNOTSUPP and -EMSGSIZE as
 * hlcoll_allreduce_enqueue(); -ECONNABORTED the communicator failed
 * before (also a pending collective's failure, found here).
 */
hlcoll_public int hlcoll_reduce_scatter_enqueue(struct hlcoll_comm *comm,
						uint64_t sendbuf,
						uint64_t recvbuf,
						uint64_t recvcount,
						enum hlcoll_dtype dtype,
						enum hlcoll_redop op,
						const struct hlcoll_stream *stream,
						uint64_t *seq);

/**
 * hlcoll_allgather_enqueue() - hlcoll_allgather() ordered on the device by
 * @stream, returning once submitted.
 * @comm: the communicator (NIC transport, more than one rank).
 * @sendbuf: as hlcoll_allgather().
 * @recvbuf: as hlcoll_allgather().
 * @sendcount: as hlcoll_allgather(); not 0.
 * @dtype: as hlcoll_allgather().
 * @stream: the ordering points (struct hlcoll_stream); NULL: none.
 * @seq: NULL, or where the CS sequence of the collective goes.
 *
 * As hlcoll_allreduce_enqueue(): the arguments and the buffers' mapping
 * are checked first, then the whole collective (the copy to this rank's
 * own block, then the all-gather ring pass) is one command submission
 * chained on the device with @stream's head and tail, and
 * hlcoll_stream_sync() completes it.
 *
 * Return: 0 once submitted, or -errno: hlcoll_allgather()'s argument
 * errors (-EINVAL also @sendcount 0 and the stream errors of
 * hlcoll_allreduce_enqueue()); -EOPNOTSUPP one rank, the hosts transport,
 * HLCOLL_CHAIN=0, or a step larger than one submission; -EMSGSIZE a
 * collective of more steps or chunks than one submission takes;
 * -ECONNABORTED the communicator failed before (also a pending
 * collective's failure, found here).
 */
hlcoll_public int hlcoll_allgather_enqueue(struct hlcoll_comm *comm,
					   uint64_t sendbuf, uint64_t recvbuf,
					   uint64_t sendcount,
					   enum hlcoll_dtype dtype,
					   const struct hlcoll_stream *stream,
					   uint64_t *seq);

/**
 * hlcoll_broadcast_enqueue() - hlcoll_broadcast() ordered on the device
 * by @stream, returning once submitted.
 * @comm: the communicator (NIC transport, more than one rank).
 * @sendbuf: as hlcoll_broadcast().
 * @recvbuf: as hlcoll_broadcast().
 * @count: as hlcoll_broadcast(); not 0.
 * @dtype: as hlcoll_broadcast().
 * @root: as hlcoll_broadcast().
 * @stream: the ordering points (struct hlcoll_stream); NULL: none.
 * @seq: NULL, or where the CS sequence of the collective goes.
 *
 * As hlcoll_allreduce_enqueue(): the arguments and the buffers' mapping
 * are checked first, then the whole collective (on @root, its copy out of
 * place and a send to every other rank; elsewhere, the receive from
 * @root) is one command submission chained on the device with @stream's
 * head and tail, and hlcoll_stream_sync() completes it.
 *
 * Return: 0 once submitted, or -errno: hlcoll_broadcast()'s argument
 * errors (-EINVAL also @count 0 and the stream errors of
 * hlcoll_allreduce_enqueue()); -EOPNOTSUPP one rank, the hosts transport,
 * HLCOLL_CHAIN=0, or more messages or bytes than one submission takes
 * (@root sends nranks - 1 times @count elements in one step, in messages
 * of HLCOLL_BULK_BYTES, at most 4 MiB per second of timeout_s: use a
 * smaller count, larger messages or a longer timeout; every rank refuses
 * alike); -ECONNABORTED the communicator failed before (also a
 * pending collective's failure, found here).
 */
hlcoll_public int hlcoll_broadcast_enqueue(struct hlcoll_comm *comm,
					   uint64_t sendbuf, uint64_t recvbuf,
					   uint64_t count,
					   enum hlcoll_dtype dtype, int root,
					   const struct hlcoll_stream *stream,
					   uint64_t *seq);

/**
 * hlcoll_reduce_enqueue() - hlcoll_reduce() ordered on the device by
 * @stream, returning once submitted.
 * @comm: the communicator (NIC transport, more than one rank).
 * @sendbuf: as hlcoll_reduce().
 * @recvbuf: as hlcoll_reduce().
 * @count: as hlcoll_reduce(); not 0.
 * @dtype: as hlcoll_reduce().
 * @op: as hlcoll_reduce(); not HLCOLL_AVG.
 * @root: as hlcoll_reduce().
 * @stream: the ordering points (struct hlcoll_stream); NULL: none.
 * @seq: NULL, or where the CS sequence of the collective goes.
 *
 * As hlcoll_allreduce_enqueue(): the arguments and the buffers' mapping
 * are checked first, then the whole collective (on @root, its copy out of
 * place and the reduced receives from every other rank; elsewhere, the
 * send to @root) is one command submission chained on the device with
 * @stream's head and tail, and hlcoll_stream_sync() completes it. Same
 * bits as hlcoll_reduce().
 *
 * Return: 0 once submitted, or -errno: hlcoll_reduce()'s argument errors
 * (-EINVAL also @count 0 and the stream errors of
 * hlcoll_allreduce_enqueue()); -EOPNOTSUPP one rank, the hosts transport,
 * HLCOLL_AVG, one-sided transfers (HLCOLL_NIC_WRITE), HLCOLL_CHAIN=0, or
 * more chunks or bytes than one submission takes (@root receives
 * nranks - 1 times @count elements in one step, at most 4 MiB per second
 * of timeout_s; every rank refuses alike); -ECONNABORTED the communicator
 * failed before (also a pending collective's failure, found here).
 */
hlcoll_public int hlcoll_reduce_enqueue(struct hlcoll_comm *comm,
					uint64_t sendbuf, uint64_t recvbuf,
					uint64_t count, enum hlcoll_dtype dtype,
					enum hlcoll_redop op, int root,
					const struct hlcoll_stream *stream,
					uint64_t *seq);

/**
 * hlcoll_alltoall_enqueue() - hlcoll_alltoall() ordered on the device by
 * @stream, returning once submitted.
 * @comm: the communicator (NIC transport, more than one rank).
 * @sendbuf: as hlcoll_alltoall().
 * @recvbuf: as hlcoll_alltoall() (out of place only).
 * @count: as hlcoll_alltoall(); not 0.
 * @dtype: as hlcoll_alltoall().
 * @stream: the ordering points (struct hlcoll_stream); NULL: none.
 * @seq: NULL, or where the CS sequence of the collective goes.
 *
 * As hlcoll_allreduce_enqueue(): the arguments and the buffers' mapping
 * are checked first, then the whole collective (the copy of this rank's
 * own block, then one step: a send of block r + k to rank r + k and a
 * receive from rank r - k into block r - k, for k = 1 .. nranks - 1) is
 * one command submission chained on the device with @stream's head and
 * tail, and hlcoll_stream_sync() completes it.
 *
 * Return: 0 once submitted, or -errno: hlcoll_alltoall()'s argument
 * errors (-EINVAL also @count 0 and the stream errors of
 * hlcoll_allreduce_enqueue()); -EOPNOTSUPP one rank, the hosts transport,
 * HLCOLL_CHAIN=0, or more messages or bytes than one submission takes
 * (each rank sends and receives nranks - 1 times @count elements in one
 * step, in messages of HLCOLL_BULK_BYTES, at most 4 MiB per second of
 * timeout_s: use a smaller count, larger messages or a longer timeout);
 * -ECONNABORTED the communicator failed
 * before (also a pending collective's failure, found here).
 */
hlcoll_public int hlcoll_alltoall_enqueue(struct hlcoll_comm *comm,
					  uint64_t sendbuf, uint64_t recvbuf,
					  uint64_t count,
					  enum hlcoll_dtype dtype,
					  const struct hlcoll_stream *stream,
					  uint64_t *seq);

/**
 * hlcoll_stream_sync() - wait for @comm's pending stream-ordered
 * collective (hlcoll_allreduce_enqueue(), hlcoll_reduce_scatter_enqueue(),
 * hlcoll_allgather_enqueue(), hlcoll_broadcast_enqueue(),
 * hlcoll_reduce_enqueue(), hlcoll_alltoall_enqueue(),
 * hlcoll_group_end_enqueue()) and check its completions.
 * @comm: the communicator.
 *
 * Waits for the collective's CS, looking at the other ranks meanwhile (an
 * abort or death of one cancels this rank's transfers and releases a head
 * still waiting for its SOB, so that the call ends promptly with that
 * rank's errno), then takes the collective's NIC completions.
 * Nothing pending: returns at once, -ECONNABORTED when the communicator
 * is in error (also a pending collective's failure that another call,
 * such as hlcoll_memcpy(), found first), else 0.
 *
 * Return: 0, or -errno as hlcoll_allreduce() after its checks (the
 * communicator is then in error on every rank); -EINVAL NULL @comm.
 */
hlcoll_public int hlcoll_stream_sync(struct hlcoll_comm *comm);

/**
 * hlcoll_allreduce() - @recvbuf = the operation of every rank's @sendbuf.
 * @comm: the communicator; every rank of it calls with the same @count,
 *	@dtype and @op.
 * @sendbuf: device VA (of the communicator's fd) of @count elements,
 *	aligned to the element size; 0 only when @count is 0.
 * @recvbuf: device VA of @count elements, likewise. In place:
 *	@sendbuf == @recvbuf; out of place, the two must not overlap.
 * @count: elements per rank; 0 does nothing but still checks the
 *	arguments.
 * @dtype: the element type.
 * @op: the reduction; the order of operations is the header comment's
 *	(every rank ends with the same bits).
 *
 * Arguments are checked before anything moves, and the device reads the
 * first and the last element of each buffer to check that they are
 * mapped: one local job before the collective, or for a small all-reduce
 * (the header comment) the first packets of the collective's own
 * submission on each of its queues. After a failure past those checks the
 * communicator is in error (hlcoll_comm_get_async_error()): destroy or
 * abort it.
 *
 * Return: 0, or -errno: -EINVAL bad arguments (NULL @comm, unknown type or
 * operation, a misaligned buffer or a buffer 0 with a non-zero count, count
 * overflow, overlapping out-of-place buffers; the communicator stays
 * usable); -EFAULT a buffer not mapped on the device (with one rank the
 * communicator stays usable; with more than one rank the communicator then
 * fails on every rank: the error is sticky here, the peers are told through
 * the bootstrap and their call fails within the timeout; a buffer with an
 * unmapped hole inside fails later, mid-collective, with -EFAULT and a
 * sticky error); -EOPNOTSUPP a (type, operation) the device cannot reduce
 * (none today); -ETIMEDOUT a peer did not answer within timeout_s (it
 * stopped or is missing); -ECONNRESET a rank left or aborted during the
 * call; -EMSGSIZE a message larger than its receive (counts differ between
 * ranks); -ENETDOWN a NIC link went down; -EIO a command submission failed
 * (a NIC or MMU error; a job that ran past its timeout, a peer stopped,
 * gives -ETIMEDOUT); another errno of the driver; -ECONNABORTED the
 * communicator failed before (a call on it failed, or
 * hlcoll_comm_get_async_error() saw a rank abort or leave).
 */
hlcoll_public int hlcoll_allreduce(struct hlcoll_comm *comm,
				   uint64_t sendbuf, uint64_t recvbuf,
				   uint64_t count, enum hlcoll_dtype dtype,
				   enum hlcoll_redop op);

/**
 * hlcoll_allgather() - every rank's @sendbuf into every rank's @recvbuf.
 * @comm: the communicator; every rank of it calls with the same
 *	@sendcount and @dtype.
 * @sendbuf: device VA of @sendcount elements, aligned to the element
 *	size; 0 only when @sendcount is 0.
 * @recvbuf: device VA of nranks * @sendcount elements: rank k's @sendbuf
 *	lands at element k * @sendcount. In place: @sendbuf == @recvbuf +
 *	rank * @sendcount elements; out of place, the two must not overlap.
 * @sendcount: elements per rank; 0 does nothing but still checks the
 *	arguments.
 * @dtype: the element type.
 *
 * Return: 0, or -errno: -EINVAL bad arguments (NULL @comm, unknown type, a
 * misaligned buffer or a buffer 0 with a non-zero count, count overflow,
 * overlapping out-of-place buffers); -EFAULT a buffer not mapped on the
 * device (with more than one rank the communicator then fails on every
 * rank); -ETIMEDOUT, -ECONNRESET, -EMSGSIZE, -ENETDOWN, -EIO or another
 * errno of the driver when a transfer fails (the communicator is then in
 * error); -ECONNABORTED the communicator failed before. Each as
 * hlcoll_allreduce().
 */
hlcoll_public int hlcoll_allgather(struct hlcoll_comm *comm,
				   uint64_t sendbuf, uint64_t recvbuf,
				   uint64_t sendcount,
				   enum hlcoll_dtype dtype);

/**
 * hlcoll_reduce_scatter() - block k of the operation of every rank's
 * @sendbuf into rank k's @recvbuf.
 * @comm: the communicator; every rank of it calls with the same
 *	@recvcount, @dtype and @op.
 * @sendbuf: device VA of nranks * @recvcount elements, aligned to the
 *	element size; block k is elements k * @recvcount ..
 * @recvbuf: device VA of @recvcount elements: rank k's receives the op of
 *	block k of every rank's @sendbuf. In place: @recvbuf == @sendbuf +
 *	rank * @recvcount elements (the other blocks of @sendbuf then hold
 *	partial results afterwards); out of place, the two must not overlap.
 * @recvcount: elements each rank receives; 0 does nothing but still checks
 *	the arguments.
 * @dtype: the element type.
 * @op: the reduction; block k is reduced starting at rank (k + 1) % nranks
 *	(the header comment's order of operations).
 *
 * Out of place, a device buffer of nranks * @recvcount elements is
 * allocated for the duration of the call.
 *
 * Return: 0, or -errno: -EINVAL bad arguments (NULL @comm, unknown type or
 * operation, a misaligned buffer or a buffer 0 with a non-zero count,
 * count overflow, overlapping out-of-place buffers); -EOPNOTSUPP a (type,
 * operation) the device cannot reduce (none today); -EFAULT a buffer not
 * mapped on the device (with more than one rank the communicator then
 * fails on every rank); -ENOMEM or the driver's errno when the
 * out-of-place work buffer cannot be allocated (with more than one rank
 * the communicator then fails on every rank); -ETIMEDOUT, -ECONNRESET,
 * -EMSGSIZE, -ENETDOWN, -EIO or another errno of the driver when a
 * transfer fails (the communicator is then in error); -ECONNABORTED the
 * communicator failed before. Each as hlcoll_allreduce().
 */
hlcoll_public int hlcoll_reduce_scatter(struct hlcoll_comm *comm,
					uint64_t sendbuf, uint64_t recvbuf,
					uint64_t recvcount,
					enum hlcoll_dtype dtype,
					enum hlcoll_redop op);

/**
 * hlcoll_broadcast() - @recvbuf of every rank = @sendbuf of @root.
 * @comm: the communicator; every rank of it calls with the same @count,
 *	@dtype and @root.
 * @sendbuf: device VA of @count elements, read (and checked) on @root
 *	only.
 * @recvbuf: device VA of @count elements, aligned to the element size.
 *	In place: @sendbuf == @recvbuf; out of place (on @root), the two must
 *	not overlap.
 * @count: elements; 0 does nothing but still checks the arguments.
 * @dtype: the element type.
 * @root: the rank that sends, 0 .. nranks - 1.
 *
 * Return: 0, or -errno: -EINVAL bad arguments (NULL @comm, unknown type,
 * @root out of range, a misaligned buffer or a buffer 0 with a non-zero
 * count, count overflow, overlapping out-of-place buffers on @root);
 * -EFAULT a buffer not mapped on the device (with more than one rank the
 * communicator then fails on every rank); -ETIMEDOUT, -ECONNRESET,
 * -EMSGSIZE, -ENETDOWN, -EIO or another errno of the driver when a
 * transfer fails (the communicator is then in error); -ECONNABORTED the
 * communicator failed before. Each as hlcoll_allreduce().
 */
hlcoll_public int hlcoll_broadcast(struct hlcoll_comm *comm,
				   uint64_t sendbuf, uint64_t recvbuf,
				   uint64_t count, enum hlcoll_dtype dtype,
				   int root);

/**
 * hlcoll_reduce() - @recvbuf of @root = the operation of every rank's
 * @sendbuf.
 * @comm: the communicator; every rank of it calls with the same @count,
 *	@dtype, @op and @root.
 * @sendbuf: device VA of @count elements, aligned to the element size.
 * @recvbuf: device VA of @count elements, used (and checked) on @root
 *	only. In place: @sendbuf == @recvbuf; out of place (on @root), the
 *	two must not overlap.
 * @count: elements; 0 does nothing but still checks the arguments.
 * @dtype: the element type.
 * @op: the reduction; reduced starting at @root (the header comment's
 *	order of operations).
 * @root: the rank that receives the result, 0 .. nranks - 1.
 *
 * Return: 0, or -errno: -EINVAL bad arguments (NULL @comm, unknown type or
 * operation, @root out of range, a misaligned buffer or a buffer 0 with a
 * non-zero count, count overflow, overlapping out-of-place buffers on
 * @root); -EOPNOTSUPP a (type, operation) the device cannot reduce (none
 * today); -EFAULT a buffer not mapped on the device (with more than one
 * rank the communicator then fails on every rank); -ETIMEDOUT,
 * -ECONNRESET, -EMSGSIZE, -ENETDOWN, -EIO or another errno of the driver
 * when a transfer fails (the communicator is then in error); -ECONNABORTED
 * the communicator failed before. Each as hlcoll_allreduce().
 */
hlcoll_public int hlcoll_reduce(struct hlcoll_comm *comm, uint64_t sendbuf,
				uint64_t recvbuf, uint64_t count,
				enum hlcoll_dtype dtype, enum hlcoll_redop op,
				int root);

/**
 * hlcoll_alltoall() - block j of every rank's @sendbuf to rank j.
 * @comm: the communicator; every rank of it calls with the same @count and
 *	@dtype.
 * @sendbuf: device VA of nranks * @count elements, aligned to the element
 *	size: block j (@count elements at j * @count) goes to rank j, and
 *	lands in block rank of its @recvbuf.
 * @recvbuf: device VA of nranks * @count elements; out of place only: it
 *	must not overlap @sendbuf.
 * @count: elements per block; 0 does nothing but still checks the
 *	arguments.
 * @dtype: the element type.
 *
 * Return: 0, or -errno: -EINVAL bad arguments (NULL @comm, unknown type, a
 * misaligned buffer or a buffer 0 with a non-zero count, count overflow,
 * overlapping buffers); -EFAULT a buffer not mapped on the device (with
 * more than one rank the communicator then fails on every rank);
 * -ETIMEDOUT, -ECONNRESET, -EMSGSIZE, -ENETDOWN, -EIO or another errno of
 * the driver when a transfer fails (the communicator is then in error);
 * -ECONNABORTED the communicator failed before. Each as
 * hlcoll_allreduce().
 */
hlcoll_public int hlcoll_alltoall(struct hlcoll_comm *comm, uint64_t sendbuf,
				  uint64_t recvbuf, uint64_t count,
				  enum hlcoll_dtype dtype);

/**
 * hlcoll_send() - point to point: send @count elements to @peer.
 * @comm: the communicator.
 * @sendbuf: device VA of @count elements, aligned to the element size; 0
 *	only when @count is 0.
 * @count: elements; @peer's hlcoll_recv() gives the same count and type.
 * @dtype: the element type.
 * @peer: the receiving rank, 0 .. nranks - 1; this rank itself only
 *	inside a group (paired there with a hlcoll_recv() from itself of the
 *	same size, done as a local copy).
 *
 * Outside a group, the call runs at once and blocks until the peer has
 * posted the matching call; between hlcoll_group_start() and
 * hlcoll_group_end(), the calls are queued and hlcoll_group_end() runs
 * them together, so that a rank can send to and receive from any peers
 * without a deadlock. Several sends to one peer are received in the order
 * they were posted. The arguments (and the buffer's mapping) are checked
 * when the call is made, also inside a group.
 *
 * Return: 0 (inside a group: queued; the transfer's result comes from
 * hlcoll_group_end()), or -errno: -EINVAL bad arguments (NULL @comm,
 * unknown type, @peer out of range or, outside a group, this rank, a
 * misaligned buffer or a buffer 0 with a non-zero count, count overflow);
 * -EFAULT the buffer is not mapped on the device (with more than one rank
 * the communicator then fails on every rank); -ENOSPC more than 4 *
 * HLCOLL_MAX_RANKS calls on @comm in one group; outside a group
 * -ETIMEDOUT, -ECONNRESET, -EMSGSIZE, -ENETDOWN, -EIO or another errno of
 * the driver when the transfer fails (the communicator is then in error);
 * -ECONNABORTED the communicator failed before. Each as
 * hlcoll_allreduce().
 */
hlcoll_public int hlcoll_send(struct hlcoll_comm *comm, uint64_t sendbuf,
			      uint64_t count, enum hlcoll_dtype dtype,
			      int peer);

/**
 * hlcoll_recv() - point to point: receive @count elements from @peer.
 * @comm: the communicator.
 * @recvbuf: device VA of @count elements, aligned to the element size; 0
 *	only when @count is 0.
 * @count: elements; @peer's hlcoll_send() gives the same count and type
 *	(a longer message fails with -EMSGSIZE here; a shorter one too
 *	between hosts, while within a host the receive may complete).
 * @dtype: the element type.
 * @peer: the sending rank, 0 .. nranks - 1; this rank itself only inside
 *	a group (see hlcoll_send()).
 *
 * As hlcoll_send(): outside a group, runs at once and blocks until the
 * peer has posted the matching call; inside one, queued and run by
 * hlcoll_group_end(). Several sends from one peer are received in the
 * order they were posted.
 *
 * Return: 0 (inside a group: queued), or -errno as hlcoll_send().
 */
hlcoll_public int hlcoll_recv(struct hlcoll_comm *comm, uint64_t recvbuf,
			      uint64_t count, enum hlcoll_dtype dtype,
			      int peer);

/**
 * hlcoll_group_start() - start a group of point-to-point calls.
 *
 * Until the matching hlcoll_group_end(), this thread's hlcoll_send() and
 * hlcoll_recv() calls are queued. Nestable: the outermost end runs them.
 * Per thread. At most 4 * HLCOLL_MAX_RANKS calls per communicator in one
 * group (-ENOSPC).
 *
 * Return: 0.
 */
hlcoll_public int hlcoll_group_start(void);

/**
 * hlcoll_group_end() - end a group of point-to-point calls; the outermost
 * end runs them.
 *
 * The queued calls of each communicator run together, sends in the order
 * r+1, r+2, ... and receives in the order r-1, r-2, ..., so that no cycle
 * of waits can form; a send to this rank itself is a local copy into the
 * matching receive from itself. The group is then empty either way.
 *
 * Return: 0 (also for an inner end, which runs nothing), or the first
 * error of the group: -EINVAL no hlcoll_group_start() to end, or sends to
 * this rank itself not matched by receives from it of the same sizes;
 * -ENOSPC a communicator had more than 4 * HLCOLL_MAX_RANKS calls;
 * -ETIMEDOUT, -ECONNRESET, -EMSGSIZE, -ENETDOWN, -EFAULT, -EIO or another
 * errno of the driver when a transfer fails (that communicator is then in
 * error), as hlcoll_allreduce(); -ECONNABORTED a communicator of the group
 * failed before its end (also after its calls were queued, e.g. a group
 * that hlcoll_group_end_enqueue() refused so): its calls do not run.
 */
hlcoll_public int hlcoll_group_end(void);

/**
 * hlcoll_group_end_enqueue() - hlcoll_group_end() ordered on the device
 * by @stream, returning once submitted.
 * @comm: the communicator of every call in the group (NIC transport, more
 *	than one rank).
 * @stream: the ordering points (struct hlcoll_stream); NULL: none.
 * @seq: NULL, or where the CS sequence of the group goes.
 *
 * Ends the outermost group of hlcoll_send() and hlcoll_recv() calls on
 * @comm as hlcoll_alltoall_enqueue() does its collective: the copies of
 * the sends to this rank itself into the matching receives from itself,
 * then one step of the other transfers in hlcoll_group_end()'s order
 * (sends r + 1, r + 2, ..., receives r - 1, r - 2, ...; program order
 * for one peer), one command submission chained on the device with
 * @stream's head and tail, after the stream's earlier device work and
 * before its next. hlcoll_stream_sync() completes it; every rank ends its
 * group with this call (transfers of 0 bytes are left out on both sides).
 * Once submitted, or when the submission failed, the group is over and
 * empty; any other error leaves the group open as it was, so that
 * hlcoll_group_end() can still run it (or report the same error).
 *
 * Return: 0 once submitted, or -errno: -EINVAL NULL @comm, the stream
 * errors of hlcoll_allreduce_enqueue(), no hlcoll_group_start() or an
 * inner end (the group must end here), calls of the group on another
 * communicator, sends to this rank itself not matched by receives from it
 * of the same sizes, or a group that moves no byte on @comm (as a count
 * of 0); -ENOSPC more than 4 * HLCOLL_MAX_RANKS calls on @comm;
 * -EOPNOTSUPP one rank, the hosts transport, HLCOLL_CHAIN=0, or more
 * messages or bytes than one submission takes (in messages of
 * HLCOLL_BULK_BYTES, at most 4 MiB per second of timeout_s: use fewer
 * or smaller transfers, larger messages or a longer timeout);
 * -ECONNABORTED the communicator failed before (also a
 * pending collective's failure, found here, and a buffer that
 * hlcoll_send() or hlcoll_recv() found unmapped, -EFAULT there).
 */
hlcoll_public int hlcoll_group_end_enqueue(struct hlcoll_comm *comm,
					   const struct hlcoll_stream *stream,
					   uint64_t *seq);

/**
 * hlcoll_memcpy() - copy @bytes from device VA @src to device VA @dst on
 * the device (a LIN_DMA on the communicator's send queue) and wait for it.
 * @comm: the communicator (local: no other rank takes part).
 * @dst: destination device VA (device memory or a host mapping).
 * @src: source device VA.
 * @bytes: bytes to copy; 0 copies nothing.
 *
 * A stream collective of @comm still pending (enqueued, not synced) is
 * completed first, as hlcoll_stream_sync() does: the copy may read its
 * result.
 *
 * Return: 0, or -errno (-EIO: the copy failed, e.g. an MMU fault;
 * -ECONNABORTED: the communicator failed before, or the pending
 * collective did).
 */
hlcoll_public int hlcoll_memcpy(struct hlcoll_comm *comm, uint64_t dst,
				uint64_t src, uint64_t bytes);

/**
 * hlcoll_segment() - the all-reduce segment of a rank.
 * @count: elements of the all-reduce.
 * @nranks: number of ranks, >= 1 (else 0 is returned).
 * @k: the segment, 0 .. @nranks - 1 (else 0 is returned).
 * @first: receives the index of its first element; may be NULL.
 *
 * Return: its number of elements (0 when @count < @nranks and k >= count).
 */
hlcoll_public uint64_t hlcoll_segment(uint64_t count, int nranks, int k,
				      uint64_t *first);

/**
 * hlcoll_comm_rank() - this rank's number in the communicator.
 * @comm: the communicator.
 *
 * Return: 0 .. nranks - 1, or -EINVAL for a NULL @comm.
 */
hlcoll_public int hlcoll_comm_rank(const struct hlcoll_comm *comm);

/**
 * hlcoll_comm_size() - the communicator's number of ranks.
 * @comm: the communicator.
 *
 * Return: 1 .. HLCOLL_MAX_RANKS, or -EINVAL for a NULL @comm.
 */
hlcoll_public int hlcoll_comm_size(const struct hlcoll_comm *comm);

/**
 * hlcoll_comm_fd() - the device fd the communicator was made on.
 * @comm: the communicator.
 *
 * Return: the fd (still the caller's), or -EINVAL for a NULL @comm.
 */
hlcoll_public int hlcoll_comm_fd(const struct hlcoll_comm *comm);

/**
 * hlcoll_comm_config() - the tunables in effect.
 * @comm: the communicator.
 *
 * Return: the communicator's configuration with the defaults filled in
 * (valid until hlcoll_comm_destroy()), or NULL for a NULL @comm.
 */
hlcoll_public const struct hlcoll_config *
hlcoll_comm_config(const struct hlcoll_comm *comm);

/**
 * typedef hlcoll_rank_fn - the body of one rank, run by hlcoll_launch() in
 * a child process.
 * @rank: 0 .. @nranks - 1.
 * @nranks: number of ranks.
 * @id: the communicator's unique id, for hlcoll_comm_init_rank().
 * @arg: hlcoll_launch()'s @arg.
 *
 * Return: the child's exit status: 0 for success; anything else (including
 * values outside 1 .. 255) is a failure.
 */
typedef int (*hlcoll_rank_fn)(int rank, int nranks,
			      const struct hlcoll_unique_id *id, void *arg);

/**
 * hlcoll_launch() - a convenience for one host: create a unique id, fork
 * one process per rank, wait for them.
 * @nranks: 1 .. HLCOLL_MAX_RANKS.
 * @fn: the body of each rank, called in its child.
 * @arg: passed to @fn.
 *
 * The children die (SIGKILL) when the launcher dies. SIGCHLD is set to its
 * default for the duration of the call (an ignored SIGCHLD would lose the
 * ranks' statuses). The caller must not hold a device the ranks open. In
 * each rank the crash signals (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
 * SIGSYS, SIGTRAP) start at their default disposition, whatever the
 * launcher's handlers: a crashed rank ends, killed by its signal. Each
 * rank starts with no signal blocked, whatever the calling thread's
 * signal mask (other dispositions are inherited, as fork(2) has them).
 *
 * Return: 0 when every rank exited with status 0; a positive value: the
 * exit status of the first failed rank (1 for a rank function that
 * returned a value outside 1 .. 255, 128 + signal for a killed one); -errno
 * when the launch itself failed.
 */
hlcoll_public int hlcoll_launch(int nranks, hlcoll_rank_fn fn, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* HLCOLL_H */

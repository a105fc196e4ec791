/* SPDX-License-Identifier: MIT */
/*
 * hlcoll.h - libhlcoll, a small collective-communication library on
 * libhlthunk: a communicator of N ranks, one process per device, connected
 * in a ring over the devices' NIC ports; ring all-reduce (reduce-scatter
 * then all-gather) and all-gather of float32 device buffers.
 *
 * How it uses the device (the way a real library would):
 *   - data moves by HL_PKT_NIC_SEND / HL_PKT_NIC_RECV packets in command
 *     submissions: in each ring step, one job (queue HLCOLL_QUEUE_RECV)
 *     receives from the previous rank and one job (queue HLCOLL_QUEUE_SEND)
 *     sends to the next, chunk by chunk;
 *   - the reduction runs on the device: each received chunk lands in a
 *     device scratch buffer and an HL_PKT_REDUCE packet, right after the
 *     RECV in the same job, adds it into the destination;
 *   - completion: the CS fence (hlthunk_wait_for_cs()), then the NIC CQ,
 *     whose entries are checked (status, bytes) and consumed.
 *
 * Bootstrap: the ranks exchange module IDs, connection IDs and PSNs through
 * a socket to a launcher process (hlcoll_launch() forks the ranks and
 * relays; no network). Each rank then allocates two connections, one to
 * the next rank and one to the previous one, on the ports its NIC cables to
 * those ranks' devices (HL_INFO_NIC_PORTS), and brings them to RTS.
 *
 * Summation order (what a bit-exact host check must do): all-reduce splits
 * the buffer into N segments, segment k being elements
 * [k * q + min(k, r), ...) of length q + (k < r), with q = count / N and
 * r = count % N. Segment k is summed around the ring starting at rank k:
 *	acc = x_k[i]; for j = 1 .. N-1: acc = x_{(k+j) % N}[i] + acc;
 * each addition being one IEEE binary32 addition rounded to nearest even
 * (HL_PKT_REDUCE). Every rank ends with the same bits.
 *
 * Error convention: int functions return 0 or -errno. After a failed
 * collective the communicator's connections may be in ERR: destroy it.
 * Not thread-safe: one thread per communicator.
 *
 * Installed as <habanalabs/hlcoll.h> beside <habanalabs/hlthunk.h>: build
 * with "#include <habanalabs/hlcoll.h>" and -lhlcoll -lhlthunk, or with
 * pkg-config hlcoll (which requires hlthunk). Symbols are versioned (node
 * HLCOLL_1.0, libhlcoll.map); the SONAME is libhlcoll.so.1.
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
#define HLCOLL_VERSION_MAJOR		1
#define HLCOLL_VERSION_MINOR		0
#define HLCOLL_VERSION_PATCH		0

/* Largest number of ranks of a communicator */
#define HLCOLL_MAX_RANKS	16

/* Engine queues used by the ring (they must differ) */
#define HLCOLL_QUEUE_RECV	0
#define HLCOLL_QUEUE_SEND	1
#define HLCOLL_QUEUE_COPY	2

/**
 * enum hlcoll_dtype - element types.
 * @HLCOLL_FLOAT32: IEEE-754 binary32.
 */
enum hlcoll_dtype {
	HLCOLL_FLOAT32 = 0,
};

/**
 * enum hlcoll_redop - reduction operations.
 * @HLCOLL_SUM: sum.
 */
enum hlcoll_redop {
	HLCOLL_SUM = 0,
};

/**
 * struct hlcoll_config - tunables of a communicator (zero: the default).
 * @chunk_bytes: largest message of one NIC send/recv, and the size of the
 *	device scratch buffer; a multiple of 4 (default 256 KiB).
 * @timeout_s: job timeout of every command submission, in seconds
 *	(default 120): how long a rank waits for a peer that stopped.
 * @mtu: NIC MTU, one of HL_NIC_MTU_* (default 4096).
 */
struct hlcoll_config {
	uint64_t chunk_bytes;
	uint32_t timeout_s;
	uint32_t mtu;
};

struct hlcoll_comm;

/**
 * typedef hlcoll_rank_fn - the body of one rank, run by hlcoll_launch() in
 * a child process.
 * @rank: 0 .. @nranks - 1.
 * @nranks: number of ranks.
 * @boot_fd: the rank's bootstrap socket, for hlcoll_comm_init().
 * @arg: hlcoll_launch()'s @arg.
 *
 * Return: the child's exit status (0 for success).
 */
typedef int (*hlcoll_rank_fn)(int rank, int nranks, int boot_fd, void *arg);

/**
 * hlcoll_launch() - fork one process per rank and run the bootstrap.
 * @nranks: 1 .. HLCOLL_MAX_RANKS.
 * @fn: the body of each rank, called in its child.
 * @arg: passed to @fn.
 *
 * The calling process relays the ranks' bootstrap exchanges (every rank
 * sends a blob of the same size, every rank receives all of them in rank
 * order) until every rank has exited. A rank that dies or leaves while the
 * others still exchange makes them fail (their socket is closed) instead of
 * hanging. The caller must not hold a device the ranks open.
 *
 * Return: 0 when every rank exited with status 0; a positive value: the
 * exit status of the first failed rank (128 + signal for a killed one);
 * -errno when the launch itself failed.
 */
hlcoll_public int hlcoll_launch(int nranks, hlcoll_rank_fn fn, void *arg);

/**
 * hlcoll_boot_allgather() - exchange a blob with every rank.
 * @boot_fd: the rank's bootstrap socket.
 * @nranks: number of ranks.
 * @mine: this rank's @size bytes.
 * @all: receives @nranks * @size bytes, rank 0's first.
 * @size: 1 .. 4096; the same on every rank.
 *
 * Return: 0, or -errno (-EPIPE: a rank is gone).
 */
hlcoll_public int hlcoll_boot_allgather(int boot_fd, int nranks,
					const void *mine, void *all,
					size_t size);

/**
 * hlcoll_comm_init() - create a communicator and connect the ring.
 * @comm: receives the communicator.
 * @fd: the rank's device, a compute node opened by this process.
 * @rank: this rank.
 * @nranks: number of ranks, 1 .. HLCOLL_MAX_RANKS; every rank's device
 *	must be a different one, and the NIC must cable each rank's device to
 *	the next rank's.
 * @boot_fd: the bootstrap socket of hlcoll_launch().
 * @cfg: tunables, or NULL for the defaults.
 *
 * Collective: every rank must call it. Allocates the device scratch
 * buffer, two connections (to the next and to the previous rank) and a CQ.
 *
 * Return: 0, or -errno: -EINVAL bad arguments; -ENOLINK no port with an up
 * link to a neighbour's device; -EPIPE a rank is gone; an errno of the
 * driver.
 */
hlcoll_public int hlcoll_comm_init(struct hlcoll_comm **comm, int fd,
				   int rank, int nranks, int boot_fd,
				   const struct hlcoll_config *cfg);

/**
 * hlcoll_comm_destroy() - destroy the connections, the CQ, free the
 * device memory and the communicator.
 * @comm: the communicator, or NULL.
 *
 * Local: no other rank takes part. The device fd stays open.
 */
hlcoll_public void hlcoll_comm_destroy(struct hlcoll_comm *comm);

/**
 * hlcoll_barrier() - wait until every rank has called it (through the
 * bootstrap socket).
 * @comm: the communicator.
 *
 * Return: 0, or -errno.
 */
hlcoll_public int hlcoll_barrier(struct hlcoll_comm *comm);

/**
 * hlcoll_allreduce() - ring all-reduce of @count elements.
 * @comm: the communicator.
 * @sendbuf: device VA of this rank's input (4-byte aligned).
 * @recvbuf: device VA of the result (4-byte aligned); == @sendbuf for an
 *	in-place reduction, else it must not overlap @sendbuf.
 * @count: elements, >= 1; any value (not a multiple of the number of
 *	ranks nor of the chunk size is fine).
 * @dtype: HLCOLL_FLOAT32.
 * @op: HLCOLL_SUM.
 *
 * Collective. On return, @recvbuf of every rank holds the sum of every
 * rank's @sendbuf, in the order the header comment gives. The buffers may
 * be device memory or host memory mapped to the device.
 *
 * Return: 0, or -errno: -EINVAL bad arguments; -EIO a command submission
 * or a NIC completion failed (printed on stderr).
 */
hlcoll_public int hlcoll_allreduce(struct hlcoll_comm *comm,
				   uint64_t sendbuf, uint64_t recvbuf,
				   uint64_t count, enum hlcoll_dtype dtype,
				   enum hlcoll_redop op);

/**
 * hlcoll_allgather() - ring all-gather of @sendcount elements per rank.
 * @comm: the communicator.
 * @sendbuf: device VA of this rank's @sendcount elements; may be
 *	@recvbuf + rank * @sendcount * 4 (in place).
 * @recvbuf: device VA of @nranks * @sendcount elements: rank k's at
 *	element k * @sendcount.
 * @sendcount: elements per rank, >= 1.
 * @dtype: HLCOLL_FLOAT32.
 *
 * Collective.
 *
 * Return: as hlcoll_allreduce().
 */
hlcoll_public int hlcoll_allgather(struct hlcoll_comm *comm,
				   uint64_t sendbuf, uint64_t recvbuf,
				   uint64_t sendcount,
				   enum hlcoll_dtype dtype);

/**
 * hlcoll_memcpy() - copy @bytes from device VA @src to device VA @dst on
 * the device (a LIN_DMA on HLCOLL_QUEUE_COPY) and wait for it.
 * @comm: the communicator (local: no other rank takes part).
 * @dst: destination device VA (device memory or a host mapping).
 * @src: source device VA.
 * @bytes: bytes to copy; 0 copies nothing.
 *
 * Return: 0, or -errno (-EIO: the copy failed, e.g. an MMU fault).
 */
hlcoll_public int hlcoll_memcpy(struct hlcoll_comm *comm, uint64_t dst,
				uint64_t src, uint64_t bytes);

/**
 * hlcoll_segment() - the all-reduce segment of a rank.
 * @count: elements of the all-reduce.
 * @nranks: number of ranks.
 * @k: the segment, 0 .. @nranks - 1.
 * @first: receives the index of its first element.
 *
 * Return: its number of elements (0 when @count < @nranks and k >= count).
 */
hlcoll_public uint64_t hlcoll_segment(uint64_t count, int nranks, int k,
				      uint64_t *first);

/**
 * hlcoll_comm_rank() - this process's rank.
 * @comm: the communicator.
 *
 * Return: 0 .. hlcoll_comm_size() - 1.
 */
hlcoll_public int hlcoll_comm_rank(const struct hlcoll_comm *comm);

/**
 * hlcoll_comm_size() - the number of ranks.
 * @comm: the communicator.
 *
 * Return: the communicator's number of ranks.
 */
hlcoll_public int hlcoll_comm_size(const struct hlcoll_comm *comm);

/**
 * hlcoll_comm_module_id() - the device of a rank.
 * @comm: the communicator.
 * @rank: 0 .. hlcoll_comm_size() - 1.
 *
 * Return: the module_id of rank @rank's device, 0 for a rank out of range.
 */
hlcoll_public uint32_t hlcoll_comm_module_id(const struct hlcoll_comm *comm,
					     int rank);

/**
 * hlcoll_comm_config() - the tunables in effect.
 * @comm: the communicator.
 *
 * Return: the communicator's configuration, defaults filled in.
 */
hlcoll_public const struct hlcoll_config *
hlcoll_comm_config(const struct hlcoll_comm *comm);

#ifdef __cplusplus
}
#endif

#endif /* HLCOLL_H */

// SPDX-License-Identifier: MIT
/*
 * hlcoll.c - libhlcoll: communicator set-up over the NIC, and the ring
 * algorithms. See hlcoll.h for the contract.
 *
 * A ring step moves one block from every rank to its next rank at once:
 * one command submission with a RECV job (queue HLCOLL_QUEUE_RECV: NIC_RECV
 * of chunk c, then REDUCE of chunk c when the step reduces, chunk after
 * chunk) and a SEND job (queue HLCOLL_QUEUE_SEND: NIC_SEND of chunk c,
 * chunk after chunk). The two are on different queues because the queue
 * runs its packets one at a time and a send waits for the peer's receive.
 * A chunk received for a reduction lands in the device scratch buffer; the
 * REDUCE behind it in the same job finishes before the next RECV is posted,
 * so one scratch chunk is enough. The next step starts when the CS fence
 * has signalled and the CQ holds a successful entry for every chunk.
 */
#include "hlcoll.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hlthunk.h"

#define HLCOLL_DEFAULT_CHUNK	(256u * 1024)
#define HLCOLL_DEFAULT_TIMEOUT	120
#define HLCOLL_ELEM_SIZE	4

/* Command buffers: host memory mapped to the device, one per queue */
#define HLCOLL_CB_SIZE		(64u * 1024)
#define HLCOLL_PAGE		4096u

/* Chunks per submission: CB room (RECV + REDUCE each) and CQ room */
#define HLCOLL_MAX_BATCH	512
#define HLCOLL_CQ_ENTRIES	4096
#define HLCOLL_WQ_SIZE		1024

/* Per-connection initial PSNs: distinct per rank and direction */
#define HLCOLL_PSN(rank, dir)	((0x1000u * ((rank) + 1) + (dir)) & \
				 HL_NIC_PSN_MASK)

struct hlcoll_cb {
	uint8_t *ptr;
	uint64_t va;
	uint32_t len;
};

struct hlcoll_comm {
	int fd;
	int rank;
	int nranks;
	int boot_fd;
	struct hlcoll_config cfg;
	uint32_t module_id[HLCOLL_MAX_RANKS];
	/* Connections to the next and to the previous rank */
	uint32_t port_next, port_prev;
	uint32_t conn_next, conn_prev;
	uint32_t cq;
	uint64_t scratch_handle, scratch_va;
	struct hlcoll_cb cb[3];
	uint64_t wr_id;
	struct hl_nic_cqe cqes[2 * HLCOLL_MAX_BATCH];
};

/* What each rank tells the others at set-up */
struct hlcoll_rank_info {
	uint32_t module_id;
	uint32_t conn_next;
	uint32_t conn_prev;
	uint32_t psn_next;
	uint32_t psn_prev;
	uint32_t pad;
	uint64_t addr_next;
	uint64_t addr_prev;
};

/* ------------------------------------------------------------------------
 * NIC (libhlthunk's wrappers of HL_IOCTL_NIC)
 */

/*
 * The fields the responder and the requester contexts share, as
 * designated initialisers: the rest of either struct is zero
 */
#define HLCOLL_CONN_CTX(conn, port_, addr, rconn, psn_, cq)		\
	.remote_addr = (addr), .conn_id = (conn), .port = (port_),	\
	.remote_conn_id = (rconn), .psn = (psn_),			\
	.wq_size = HLCOLL_WQ_SIZE, .cq_handle = (cq)

/* INIT -> RTR -> RTS, talking to @remote_conn on the port at @remote_addr */
static int hlcoll_connect(struct hlcoll_comm *c, uint32_t conn, uint32_t port,
			  uint64_t remote_addr, uint32_t remote_conn,
			  uint32_t rx_psn, uint32_t tx_psn)
{
	const struct hl_nic_res_conn_ctx_in res = {
		HLCOLL_CONN_CTX(conn, port, remote_addr, remote_conn, rx_psn,
				c->cq),
	};
	const struct hl_nic_req_conn_ctx_in req = {
		HLCOLL_CONN_CTX(conn, port, remote_addr, remote_conn, tx_psn,
				c->cq),
		.mtu = c->cfg.mtu,
	};
	int rc;

	rc = hlthunk_nic_modify_conn(c->fd, conn, HL_NIC_CONN_STATE_INIT);
	if (rc)
		return rc;
	rc = hlthunk_nic_set_res_conn_ctx(c->fd, &res);
	if (rc)
		return rc;
	return hlthunk_nic_set_req_conn_ctx(c->fd, &req);
}

/*
 * Copy up to @max entries of the CQ and consume them; waits up to
 * @timeout_us for the first (0: only polls). Returns the number copied, or
 * -errno.
 */
static int hlcoll_cq_take(struct hlcoll_comm *c, struct hl_nic_cqe *cqes,
			  uint32_t max, uint64_t timeout_us)
{
	struct hl_nic_cq_poll_wait_out out;
	int rc;

	if (timeout_us)
		rc = hlthunk_nic_cq_wait(c->fd, c->cq, cqes, max, timeout_us,
					 &out);
	else
		rc = hlthunk_nic_cq_poll(c->fd, c->cq, cqes, max, &out);
	if (rc)
		return rc;
	if (out.status == HL_NIC_CQ_STATUS_OVERFLOW) {
		fprintf(stderr, "hlcoll: rank %d: CQ overflow\n", c->rank);
		return -EOVERFLOW;
	}
	if (!out.num_cqes)
		return 0;
	rc = hlthunk_nic_cq_update_consumed_cqes(c->fd, c->cq, out.num_cqes);
	return rc ? rc : (int)out.num_cqes;
}

static const char *hlcoll_cqe_status_name(uint32_t status)
{
	static const char * const names[] = {
		"SUCCESS", "LEN_ERR", "LOCAL_FAULT", "REMOTE_FAULT",
		"LINK_DOWN", "FLUSHED", "REMOTE_ERR", "PSN_ERR", "TIMEOUT",
		"REMOTE_ABORT", "WQ_FULL",
	};

	return status < sizeof(names) / sizeof(names[0]) ? names[status] :
							    "unknown";
}

/* ------------------------------------------------------------------------
 * Command submissions
 */

struct hlcoll_job {
	uint32_t queue;
	struct hlcoll_cb *cb;
};

/* Submit the non-empty CBs as one CS and wait for its fence */
static int hlcoll_run(struct hlcoll_comm *c, struct hlcoll_job *jobs,
		      int njobs)
{
	struct hl_cs_chunk chunks[3];
	struct hlthunk_cs_in in;
	struct hlthunk_cs_out out;
	uint32_t status = 0;
	int i, n = 0, rc;

	for (i = 0; i < njobs; i++) {
		if (!jobs[i].cb->len)
			continue;
		memset(&chunks[n], 0, sizeof(chunks[n]));
		chunks[n].cb_handle = jobs[i].cb->va;
		chunks[n].queue_index = jobs[i].queue;
		chunks[n].cb_size = jobs[i].cb->len;
		n++;
	}
	if (!n)
		return 0;

	memset(&in, 0, sizeof(in));
	in.chunks_execute = chunks;
	in.num_chunks_execute = n;
	rc = hlthunk_command_submission_timeout(c->fd, &in, &out,
						c->cfg.timeout_s);
	if (rc) {
		fprintf(stderr, "hlcoll: rank %d: command submission: %s\n",
			c->rank, strerror(-rc));
		return rc;
	}

	/* The jobs time out on their own; the wait only needs to outlast them */
	do {
		rc = hlthunk_wait_for_cs(c->fd, out.seq,
					 (c->cfg.timeout_s + 30) * 1000000ull,
					 &status);
	} while (!rc && status == HL_WAIT_CS_STATUS_BUSY);
	if (rc) {
		fprintf(stderr, "hlcoll: rank %d: CS %" PRIu64 " failed: %s\n",
			c->rank, out.seq, strerror(-rc));
		return -EIO;
	}
	return 0;
}

/*
 * Take @expected completions of the last CS from the CQ and check them;
 * after a failed CS (@failed), print what the CQ says went wrong.
 */
static int hlcoll_reap(struct hlcoll_comm *c, uint32_t expected, bool failed)
{
	uint32_t got = 0, i;
	int n, rc = failed ? -EIO : 0;

	while (got < expected) {
		n = hlcoll_cq_take(c, c->cqes, expected - got,
				   failed ? 0 : 5000000);
		if (n < 0)
			return n;
		if (n == 0) {
			if (!failed)
				fprintf(stderr,
					"hlcoll: rank %d: %u of %u completions missing\n",
					c->rank, expected - got, expected);
			return -EIO;
		}
		for (i = 0; i < (uint32_t)n; i++) {
			const struct hl_nic_cqe *e = &c->cqes[i];

			if (e->status == HL_NIC_CQE_STATUS_SUCCESS)
				continue;
			fprintf(stderr,
				"hlcoll: rank %d: %s on connection %u (port %u) failed: %s, %" PRIu64 " bytes\n",
				c->rank,
				e->opcode == HL_NIC_CQE_OP_SEND ? "send" : "receive",
				e->conn_id, e->port,
				hlcoll_cqe_status_name(e->status),
				(uint64_t)e->byte_len);
			rc = -EIO;
		}
		got += n;
	}
	return rc;
}

/* ------------------------------------------------------------------------
 * Ring steps
 */

static uint64_t hlcoll_nchunks(const struct hlcoll_comm *c, uint64_t bytes)
{
	return (bytes + c->cfg.chunk_bytes - 1) / c->cfg.chunk_bytes;
}

/*
 * One ring step: send @send_bytes at @send_va to the next rank and receive
 * @recv_bytes from the previous one, in chunks of cfg.chunk_bytes: into
 * @recv_va, or, with @reduce, into the scratch buffer, each chunk then
 * added into @recv_va (same offset) by a REDUCE. @copy_len bytes are also
 * copied from @copy_src to @copy_dst on HLCOLL_QUEUE_COPY in the first
 * submission (0: none).
 */
static int hlcoll_step(struct hlcoll_comm *c, uint64_t send_va,
		       uint64_t send_bytes, uint64_t recv_va,
		       uint64_t recv_bytes, bool reduce, uint64_t copy_src,
		       uint64_t copy_dst, uint64_t copy_len)
{
	struct hlcoll_cb *rcb = &c->cb[HLCOLL_QUEUE_RECV];
	struct hlcoll_cb *scb = &c->cb[HLCOLL_QUEUE_SEND];
	struct hlcoll_cb *ccb = &c->cb[HLCOLL_QUEUE_COPY];
	struct hlcoll_job jobs[3] = {
		{ HLCOLL_QUEUE_RECV, rcb },
		{ HLCOLL_QUEUE_SEND, scb },
		{ HLCOLL_QUEUE_COPY, ccb },
	};
	uint64_t chunk = c->cfg.chunk_bytes;
	uint64_t ns = hlcoll_nchunks(c, send_bytes);
	uint64_t nr = hlcoll_nchunks(c, recv_bytes);
	uint64_t first, k, off, len;
	uint32_t expected;
	int rc, rc2;

	for (first = 0; first < ns || first < nr || copy_len;
	     first += HLCOLL_MAX_BATCH) {
		rcb->len = 0;
		scb->len = 0;
		ccb->len = 0;
		expected = 0;

		if (copy_len) {
			ccb->len += hlthunk_pkt_lin_dma(ccb->ptr, copy_src,
							copy_dst, copy_len);
			copy_len = 0;
		}
		for (k = first; k < nr && k < first + HLCOLL_MAX_BATCH; k++) {
			off = k * chunk;
			len = recv_bytes - off < chunk ? recv_bytes - off : chunk;
			rcb->len += hlthunk_pkt_nic_recv(rcb->ptr + rcb->len,
							 c->conn_prev,
							 reduce ? c->scratch_va :
								  recv_va + off,
							 len, ++c->wr_id);
			if (reduce)
				rcb->len += hlthunk_pkt_reduce(rcb->ptr + rcb->len,
							       c->scratch_va,
							       recv_va + off,
							       (uint32_t)(len / HLCOLL_ELEM_SIZE),
							       HL_REDUCE_DTYPE_F32,
							       HL_REDUCE_OP_SUM);
			expected++;
		}
		for (k = first; k < ns && k < first + HLCOLL_MAX_BATCH; k++) {
			off = k * chunk;
			len = send_bytes - off < chunk ? send_bytes - off : chunk;
			scb->len += hlthunk_pkt_nic_send(scb->ptr + scb->len,
							 c->conn_next, send_va + off,
							 len, ++c->wr_id);
			expected++;
		}

		rc = hlcoll_run(c, jobs, 3);
		rc2 = hlcoll_reap(c, expected, rc != 0);
		if (rc || rc2)
			return rc ? rc : rc2;
	}
	return 0;
}

/* Copy @len bytes on the device, alone */
static int hlcoll_copy(struct hlcoll_comm *c, uint64_t src, uint64_t dst,
		       uint64_t len)
{
	return hlcoll_step(c, 0, 0, 0, 0, false, src, dst, len);
}

/* ------------------------------------------------------------------------
 * The API
 */

uint64_t hlcoll_segment(uint64_t count, int nranks, int k, uint64_t *first)
{
	uint64_t q = count / nranks, r = count % nranks;

	*first = k * q + ((uint64_t)k < r ? (uint64_t)k : r);
	return q + ((uint64_t)k < r);
}

int hlcoll_memcpy(struct hlcoll_comm *comm, uint64_t dst, uint64_t src,
		  uint64_t bytes)
{
	if (!comm)
		return -EINVAL;
	return bytes ? hlcoll_copy(comm, src, dst, bytes) : 0;
}

const struct hlcoll_config *hlcoll_comm_config(const struct hlcoll_comm *comm)
{
	return &comm->cfg;
}

int hlcoll_comm_rank(const struct hlcoll_comm *comm)
{
	return comm->rank;
}

int hlcoll_comm_size(const struct hlcoll_comm *comm)
{
	return comm->nranks;
}

uint32_t hlcoll_comm_module_id(const struct hlcoll_comm *comm, int rank)
{
	return rank >= 0 && rank < comm->nranks ? comm->module_id[rank] : 0;
}

int hlcoll_barrier(struct hlcoll_comm *comm)
{
	uint8_t mine = 0, all[HLCOLL_MAX_RANKS];

	if (comm->nranks == 1)
		return 0;
	return hlcoll_boot_allgather(comm->boot_fd, comm->nranks, &mine, all,
				     1);
}

static int hlcoll_check_args(struct hlcoll_comm *c, uint64_t sendbuf,
			     uint64_t recvbuf, uint64_t count,
			     enum hlcoll_dtype dtype)
{
	if (!c || !count || dtype != HLCOLL_FLOAT32 ||
	    (sendbuf | recvbuf) % HLCOLL_ELEM_SIZE || !sendbuf || !recvbuf ||
	    count > UINT64_MAX / HLCOLL_ELEM_SIZE / HLCOLL_MAX_RANKS)
		return -EINVAL;
	return 0;
}

/* @k modulo @n, in 0 .. @n - 1 for any sign of @k */
static int hlcoll_ring_index(int k, int n)
{
	return (k % n + n) % n;
}

/*
 * The n - 1 steps of one pass of the all-reduce over the segments of
 * @count elements at @buf: at step s, send segment @first - s to the next
 * rank and receive segment @first - s - 1 from the previous one, added
 * into @buf when @reduce.
 */
static int hlcoll_ring_segments(struct hlcoll_comm *c, uint64_t buf,
				uint64_t count, int first, bool reduce)
{
	uint64_t fs, fr, ls, lr;
	int n = c->nranks, s, rc;

	for (s = 0; s < n - 1; s++) {
		ls = hlcoll_segment(count, n, hlcoll_ring_index(first - s, n),
				    &fs);
		lr = hlcoll_segment(count, n,
				    hlcoll_ring_index(first - s - 1, n), &fr);
		rc = hlcoll_step(c, buf + fs * HLCOLL_ELEM_SIZE,
				 ls * HLCOLL_ELEM_SIZE,
				 buf + fr * HLCOLL_ELEM_SIZE,
				 lr * HLCOLL_ELEM_SIZE, reduce, 0, 0, 0);
		if (rc)
			return rc;
	}
	return 0;
}

int hlcoll_allreduce(struct hlcoll_comm *comm, uint64_t sendbuf,
		     uint64_t recvbuf, uint64_t count, enum hlcoll_dtype dtype,
		     enum hlcoll_redop op)
{
	int r, rc;

	rc = hlcoll_check_args(comm, sendbuf, recvbuf, count, dtype);
	if (rc || op != HLCOLL_SUM)
		return rc ? rc : -EINVAL;
	r = comm->rank;

	if (sendbuf != recvbuf) {
		rc = hlcoll_copy(comm, sendbuf, recvbuf,
				 count * HLCOLL_ELEM_SIZE);
		if (rc)
			return rc;
	}

	/* Reduce-scatter: at step s, send segment r - s, add in r - s - 1 */
	rc = hlcoll_ring_segments(comm, recvbuf, count, r, true);
	if (rc)
		return rc;

	/* All-gather: rank r owns segment r + 1; send r + 1 - s, get r - s */
	return hlcoll_ring_segments(comm, recvbuf, count, r + 1, false);
}

int hlcoll_allgather(struct hlcoll_comm *comm, uint64_t sendbuf,
		     uint64_t recvbuf, uint64_t sendcount,
		     enum hlcoll_dtype dtype)
{
	uint64_t bytes, mine, copy_len;
	int n, r, s, ks, kr, rc;

	rc = hlcoll_check_args(comm, sendbuf, recvbuf, sendcount, dtype);
	if (rc)
		return rc;
	n = comm->nranks;
	r = comm->rank;
	bytes = sendcount * HLCOLL_ELEM_SIZE;
	mine = recvbuf + (uint64_t)r * bytes;
	copy_len = sendbuf != mine ? bytes : 0;

	if (n == 1)
		return copy_len ? hlcoll_copy(comm, sendbuf, mine, bytes) : 0;

	/*
	 * At step s, send block r - s and receive block r - s - 1; step 0
	 * sends straight from @sendbuf while the copy to our own block runs
	 * beside it.
	 */
	for (s = 0; s < n - 1; s++) {
		ks = hlcoll_ring_index(r - s, n);
		kr = hlcoll_ring_index(r - s - 1, n);
		rc = hlcoll_step(comm,
				 s == 0 ? sendbuf : recvbuf + (uint64_t)ks * bytes,
				 bytes, recvbuf + (uint64_t)kr * bytes, bytes,
				 false, sendbuf, mine, s == 0 ? copy_len : 0);
		if (rc)
			return rc;
	}
	return 0;
}

/* The port of this device whose link is up to device @module_id */
static int hlcoll_find_port(int fd, uint32_t module_id, uint32_t *port,
			    uint64_t *my_addr, uint64_t *peer_addr)
{
	struct hl_info_nic_ports *ports;
	uint32_t p;
	int rc;

	ports = calloc(1, sizeof(*ports));
	if (!ports)
		return -ENOMEM;
	rc = hlthunk_get_nic_ports_info(fd, ports);
	if (rc)
		goto out;

	rc = -ENOLINK;
	for (p = 0; p < ports->num_ports && p < HL_INFO_NIC_MAX_PORTS; p++) {
		const struct hl_info_nic_port *np = &ports->ports[p];

		if (!np->cabled || !np->link_up ||
		    np->peer_module_id != module_id)
			continue;
		*port = np->port;
		*my_addr = np->addr;
		*peer_addr = np->peer_addr;
		rc = 0;
		break;
	}
out:
	free(ports);
	return rc;
}

static int hlcoll_cb_init(struct hlcoll_comm *c, struct hlcoll_cb *cb)
{
	void *p = NULL;

	if (posix_memalign(&p, HLCOLL_PAGE, HLCOLL_CB_SIZE))
		return -ENOMEM;
	memset(p, 0, HLCOLL_CB_SIZE);
	cb->ptr = p;
	cb->va = hlthunk_host_memory_map(c->fd, p, 0, HLCOLL_CB_SIZE);
	if (!cb->va) {
		free(p);
		cb->ptr = NULL;
		return -errno;
	}
	return 0;
}

void hlcoll_comm_destroy(struct hlcoll_comm *c)
{
	int i;

	if (!c)
		return;
	if (c->conn_next)
		hlthunk_nic_destroy_conn(c->fd, c->conn_next);
	if (c->conn_prev)
		hlthunk_nic_destroy_conn(c->fd, c->conn_prev);
	if (c->cq)
		hlthunk_nic_cq_destroy(c->fd, c->cq);
	for (i = 0; i < 3; i++) {
		if (!c->cb[i].ptr)
			continue;
		hlthunk_memory_unmap(c->fd, c->cb[i].va);
		free(c->cb[i].ptr);
	}
	if (c->scratch_va)
		hlthunk_memory_unmap(c->fd, c->scratch_va);
	if (c->scratch_handle)
		hlthunk_device_memory_free(c->fd, c->scratch_handle);
	free(c);
}

int hlcoll_comm_init(struct hlcoll_comm **comm, int fd, int rank, int nranks,
		     int boot_fd, const struct hlcoll_config *cfg)
{
	struct hlcoll_rank_info mine, all[HLCOLL_MAX_RANKS];
	int status[HLCOLL_MAX_RANKS];
	struct hlthunk_hw_ip_info hw_ip;
	uint64_t peer_next = 0, peer_prev = 0;
	struct hlcoll_comm *c;
	int next, prev, i, rc;

	if (!comm || fd < 0 || nranks < 1 || nranks > HLCOLL_MAX_RANKS ||
	    rank < 0 || rank >= nranks || (nranks > 1 && boot_fd < 0))
		return -EINVAL;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->fd = fd;
	c->rank = rank;
	c->nranks = nranks;
	c->boot_fd = boot_fd;
	if (cfg)
		c->cfg = *cfg;
	if (!c->cfg.chunk_bytes)
		c->cfg.chunk_bytes = HLCOLL_DEFAULT_CHUNK;
	if (!c->cfg.timeout_s)
		c->cfg.timeout_s = HLCOLL_DEFAULT_TIMEOUT;
	if (!c->cfg.mtu)
		c->cfg.mtu = HL_NIC_MTU_4096;
	rc = -EINVAL;
	if (c->cfg.chunk_bytes % HLCOLL_ELEM_SIZE ||
	    c->cfg.chunk_bytes > HL_NIC_MAX_MSG_SIZE)
		goto err_free;

	rc = hlthunk_get_hw_ip_info(fd, &hw_ip);
	if (rc)
		goto err_free;

	for (i = 0; i < 3; i++) {
		rc = hlcoll_cb_init(c, &c->cb[i]);
		if (rc)
			goto err_free;
	}
	c->scratch_handle = hlthunk_device_memory_alloc(fd, c->cfg.chunk_bytes,
							0, false, false);
	if (!c->scratch_handle) {
		rc = -errno;
		goto err_free;
	}
	c->scratch_va = hlthunk_device_memory_map(fd, c->scratch_handle, 0);
	if (!c->scratch_va) {
		rc = -errno;
		goto err_free;
	}

	/* Round 1: the device of every rank */
	memset(&mine, 0, sizeof(mine));
	mine.module_id = hw_ip.module_id;
	if (nranks == 1) {
		c->module_id[0] = hw_ip.module_id;
		*comm = c;
		return 0;
	}
	rc = hlcoll_boot_allgather(boot_fd, nranks, &mine, all, sizeof(mine));
	if (rc)
		goto err_free;
	for (i = 0; i < nranks; i++)
		c->module_id[i] = all[i].module_id;
	next = (rank + 1) % nranks;
	prev = (rank + nranks - 1) % nranks;

	/* Ports, a CQ and two connections */
	rc = hlcoll_find_port(fd, c->module_id[next], &c->port_next,
			      &mine.addr_next, &peer_next);
	if (!rc)
		rc = hlcoll_find_port(fd, c->module_id[prev], &c->port_prev,
				      &mine.addr_prev, &peer_prev);
	if (rc) {
		fprintf(stderr,
			"hlcoll: rank %d (device %u): no NIC link to the device of rank %d or %d: %s\n",
			rank, hw_ip.module_id, next, prev, strerror(-rc));
		/* Still take part in round 2, with no connection */
	}

	if (!rc)
		rc = hlthunk_nic_cq_create(fd, HLCOLL_CQ_ENTRIES, &c->cq);
	if (!rc)
		rc = hlthunk_nic_alloc_conn(fd, c->port_next, &c->conn_next);
	if (!rc)
		rc = hlthunk_nic_alloc_conn(fd, c->port_prev, &c->conn_prev);
	if (rc)
		mine.module_id = UINT32_MAX;	/* tells the others */
	mine.conn_next = c->conn_next;
	mine.conn_prev = c->conn_prev;
	mine.psn_next = HLCOLL_PSN(rank, 0);
	mine.psn_prev = HLCOLL_PSN(rank, 1);

	/* Round 2: connection IDs, PSNs and port addresses */
	i = hlcoll_boot_allgather(boot_fd, nranks, &mine, all, sizeof(mine));
	if (i && !rc)
		rc = i;
	for (i = 0; !rc && i < nranks; i++)
		if (all[i].module_id == UINT32_MAX)
			rc = -ENOLINK;
	if (rc)
		goto err_free;

	/* Our port towards next is cabled to next's port towards us */
	if (peer_next != all[next].addr_prev ||
	    peer_prev != all[prev].addr_next) {
		fprintf(stderr, "hlcoll: rank %d: the ring's ports do not match\n",
			rank);
		rc = -ENOLINK;
		goto err_free;
	}
	rc = hlcoll_connect(c, c->conn_next, c->port_next, peer_next,
			    all[next].conn_prev, all[next].psn_prev,
			    mine.psn_next);
	if (!rc)
		rc = hlcoll_connect(c, c->conn_prev, c->port_prev, peer_prev,
				    all[prev].conn_next, all[prev].psn_next,
				    mine.psn_prev);
	if (rc)
		fprintf(stderr, "hlcoll: rank %d: connecting the ring: %s\n",
			rank, strerror(-rc));

	/* Round 3: everyone is in RTS (or someone failed) */
	i = hlcoll_boot_allgather(boot_fd, nranks, &rc, status, sizeof(rc));
	if (i && !rc)
		rc = i;
	for (i = 0; !rc && i < nranks; i++)
		if (status[i])
			rc = -ENOLINK;
	if (rc)
		goto err_free;

	*comm = c;
	return 0;

err_free:
	hlcoll_comm_destroy(c);
	return rc;
}

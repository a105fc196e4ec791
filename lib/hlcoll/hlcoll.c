// SPDX-License-Identifier: MIT
/*
 * hlcoll.c - libhlcoll: communicators (init from a unique id, split,
 * destroy, abort, errors) and the collectives, built on the transport's
 * step (struct hlcoll_transport_ops, hlcoll_int.h). See hlcoll.h for the
 * contract and the order of operations.
 *
 * Algorithms (N ranks, r this rank):
 *   all-reduce: ring reduce-scatter then ring all-gather over N segments
 *	(hlcoll_segment()), 2 (N - 1) steps, each step one send to r + 1 and
 *	one receive from r - 1; a small one (hlcoll_small()) gathers every
 *	input on every rank, which reduces each segment in the ring's order
 *	(hlcoll_nic_allreduce_small());
 *   reduce-scatter: the first half of that on N equal blocks, shifted by
 *	one so that rank r ends with block r;
 *   all-gather: N - 1 ring steps;
 *   broadcast, reduce: the root sends to (receives from) every rank
 *	directly, in the order root + 1, root + 2, ...;
 *   all-to-all, grouped send/recv: one step; rank r's sends go out in the
 *	order r + 1, r + 2, ... and its receives are posted in the order
 *	r - 1, r - 2, ... (the k-th send of a rank meets the k-th receive of
 *	its peer, so no cycle of waits can form).
 */
#include "hlcoll_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HLCOLL_DEFAULT_CHUNK		(256u * 1024)
#define HLCOLL_DEFAULT_TIMEOUT		30
#define HLCOLL_DEFAULT_BOOT_TIMEOUT	60000
#define HLCOLL_MAX_TIMEOUT		3600
#define HLCOLL_MAX_BOOT_TIMEOUT		(24u * 3600 * 1000)
/* How long a failed step waits for another rank's word on the bootstrap */
#define HLCOLL_EXPLAIN_MS		500

/* ------------------------------------------------------------------------
 * Results
 */

const char *hlcoll_get_error_string(int result)
{
	switch (result) {
	case 0:
		return "success";
	case -EINVAL:
		return "invalid argument (checked before anything moved), or chunk_bytes that differ between ranks";
	case -EOPNOTSUPP:
		return "the device cannot reduce this type with this operation, an enqueue this communicator cannot chain on the device (its manual page lists why), or ranks on several hosts and no libfabric (libfabric.so.1) to load";
	case -ETIMEDOUT:
		return "a peer did not answer in time (rank missing or stopped)";
	case -ESTALE:
		return "unique id of another communicator (stale or mismatched), or another number of ranks";
	case -ECONNREFUSED:
		return "nobody listens at the unique id's address (its root is gone: stale id)";
	case -ECONNRESET:
		return "a rank left the communicator";
	case -ECONNABORTED:
		return "the communicator was aborted or failed before";
	case -EADDRINUSE:
		return "two ranks claim the same rank number";
	case -ENOENT:
		return "rank 0 is not in the process that created the unique id";
	case -ENOLINK:
		return "no link between two ranks that must talk (their devices' NICs not cabled, or no libfabric endpoint or address for a rank on another host)";
	case -EADDRNOTAVAIL:
		return "an address is not available: HLCOLL_SOCKET_ADDR not of this host, no local port left, or libfabric refused the address of a rank on another host";
	case -EBUSY:
		return "two ranks on one device, a device owned by another process, or its engine queues all taken by communicators of this process";
	case -EMSGSIZE:
		return "a message was larger than its receive (counts differ between ranks), or an enqueued collective larger than one submission";
	case -EFAULT:
		return "a buffer is not mapped on the device (MMU fault)";
	case -ENETDOWN:
		return "a NIC link went down";
	case -EIO:
		return "a command submission failed on the device";
	case -ENOSPC:
		return "too many calls in one group";
	case -E2BIG:
		return "struct hlcoll_config is larger than this library knows and not zero past it";
	case -EPROTO:
		return "bootstrap protocol error (not a libhlcoll peer?)";
	case -ENOPROTOOPT:
		return "ranks have different libfabric rxm eager limits, or one of 4 GiB or more (FI_OFI_RXM_EAGER_LIMIT, FI_OFI_RXM_BUFFER_SIZE), which rxm cannot connect; or the libfabric provider matches fewer tag bits than the library uses (62)";
	case -ENOMEM:
		return "out of memory";
	default:
		return result < 0 ? strerror(-result) : "not a result";
	}
}

size_t hlcoll_dtype_size(enum hlcoll_dtype dtype)
{
	switch (dtype) {
	case HLCOLL_FLOAT32:
	case HLCOLL_INT32:
		return 4;
	case HLCOLL_BFLOAT16:
	case HLCOLL_FLOAT16:
		return 2;
	default:
		return 0;
	}
}

int hlcoll_reduce_supported(enum hlcoll_dtype dtype, enum hlcoll_redop op)
{
	/*
	 * The REDUCE packet's types and operations (HL_PKT_REDUCE): every
	 * one; an average is a sum divided once at the end (HL_REDUCE_OP_DIV)
	 */
	return hlcoll_dtype_size(dtype) && (unsigned int)op < HLCOLL_NUM_OPS;
}

/* ------------------------------------------------------------------------
 * Configuration
 */

static int hlcoll_config_parse(const struct hlcoll_config *in,
			       struct hlcoll_config *out)
{
	const uint8_t *extra;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (in) {
		if (in->size < sizeof(in->size))
			return -EINVAL;
		memcpy(out, in, in->size < sizeof(*out) ? in->size :
							  sizeof(*out));
		extra = (const uint8_t *)in;
		for (i = sizeof(*out); i < in->size; i++)
			if (extra[i])
				return -E2BIG;
	}
	out->size = sizeof(*out);
	if (!out->chunk_bytes)
		out->chunk_bytes = HLCOLL_DEFAULT_CHUNK;
	if (!out->timeout_s)
		out->timeout_s = HLCOLL_DEFAULT_TIMEOUT;
	if (!out->mtu)
		out->mtu = HL_NIC_MTU_4096;
	if (!out->boot_timeout_ms)
		out->boot_timeout_ms = HLCOLL_DEFAULT_BOOT_TIMEOUT;
	if (out->chunk_bytes % 4 || out->chunk_bytes > HL_NIC_MAX_MSG_SIZE ||
	    out->timeout_s > HLCOLL_MAX_TIMEOUT ||
	    out->boot_timeout_ms > HLCOLL_MAX_BOOT_TIMEOUT)
		return -EINVAL;
	switch (out->mtu) {
	case HL_NIC_MTU_256:
	case HL_NIC_MTU_512:
	case HL_NIC_MTU_1024:
	case HL_NIC_MTU_2048:
	case HL_NIC_MTU_4096:
		return 0;
	default:
		return -EINVAL;
	}
}

/* ------------------------------------------------------------------------
 * Communicators
 */

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
		return errno ? -errno : -ENOMEM;
	}
	return 0;
}

/*
 * Engine queues: each communicator has a pair of its device's queues to
 * itself (2k: receives, 2k + 1: sends and local copies), so that a job of
 * one blocked on its peers (a NIC receive) never holds another's; pairs
 * are taken from this process's pool per device, the lowest free first.
 * @hlcoll_queue_comms: the communicators that hold one, under
 * @hlcoll_queue_lock.
 */
static pthread_mutex_t hlcoll_queue_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hlcoll_comm *hlcoll_queue_comms;

/* Take a free pair of the @num_queues of c->fd's device: 0 or -EBUSY */
static int hlcoll_queues_take(struct hlcoll_comm *c, uint32_t num_queues)
{
	struct hlcoll_comm *o;
	uint64_t used = 0;
	struct stat st;
	uint32_t k, pairs = num_queues / 2;
	int rc = -EBUSY;

	if (fstat(c->fd, &st))
		return -errno;
	if (pairs > 64)
		pairs = 64;
	pthread_mutex_lock(&hlcoll_queue_lock);
	for (o = hlcoll_queue_comms; o; o = o->q_next)
		if (o->dev == (long long)st.st_rdev)
			used |= 1ull << (o->q_recv / 2);
	for (k = 0; k < pairs; k++) {
		if (used >> k & 1)
			continue;
		c->q_recv = 2 * k;
		c->q_send = 2 * k + 1;
		c->dev = (long long)st.st_rdev;
		c->q_next = hlcoll_queue_comms;
		hlcoll_queue_comms = c;
		rc = 0;
		break;
	}
	pthread_mutex_unlock(&hlcoll_queue_lock);
	if (rc)
		hlcoll_warn(c->rank, "the device's %u engine queues are taken by %u communicators of this process: destroy one first",
			    num_queues, pairs);
	return rc;
}

static void hlcoll_queues_put(struct hlcoll_comm *c)
{
	struct hlcoll_comm **pp;

	if (c->dev < 0)
		return;
	pthread_mutex_lock(&hlcoll_queue_lock);
	for (pp = &hlcoll_queue_comms; *pp; pp = &(*pp)->q_next) {
		if (*pp == c) {
			*pp = c->q_next;
			break;
		}
	}
	pthread_mutex_unlock(&hlcoll_queue_lock);
	c->dev = -1;
}

/* Release everything; @normal: tell the other ranks we left (BYE) */
static void hlcoll_comm_free(struct hlcoll_comm *c, bool normal)
{
	int i;

	/* A pending stream collective reads the CBs: it ends first */
	if (c->pending)
		hlcoll_nic_stream_complete(c);
	if (c->ops)
		c->ops->fini(c);
	hlcoll_boot_fini(&c->boot, normal);
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
	/* Its jobs are all done: the queues are free for another */
	hlcoll_queues_put(c);
	free(c);
}

void hlcoll_comm_destroy(struct hlcoll_comm *c)
{
	if (c)
		hlcoll_comm_free(c, true);
}

/*
 * The communicator fails on every rank with @err: sticky here, the peers
 * told through the bootstrap, the connections moved to ERR
 */
static void hlcoll_comm_fail(struct hlcoll_comm *c, int err)
{
	c->error = err;
	hlcoll_boot_abort(&c->boot, err);
	if (c->ops)
		c->ops->abort(c);
}

void hlcoll_comm_abort(struct hlcoll_comm *c)
{
	if (!c)
		return;
	hlcoll_warn(c->rank, "communicator aborted");
	hlcoll_comm_fail(c, -ECONNABORTED);
	hlcoll_comm_free(c, false);
}

int hlcoll_comm_get_async_error(struct hlcoll_comm *c, int *error)
{
	if (!c || !error)
		return -EINVAL;
	if (!c->error)
		c->error = hlcoll_boot_poll_error(&c->boot);
	*error = c->error;
	return 0;
}

/*
 * The device-local part: a pair of engine queues, command buffers and the
 * scratch buffer
 */
static int hlcoll_comm_local(struct hlcoll_comm *c)
{
	struct hl_info_hw_ip_info hw_ip;
	int i, rc;

	rc = hlthunk_get_hw_ip_info_ext(c->fd, &hw_ip);
	if (rc) {
		hlcoll_warn(c->rank, "fd %d is not a device: %s", c->fd,
			    strerror(-rc));
		return rc;
	}
	c->num_queues = hw_ip.num_queues;
	rc = hlcoll_queues_take(c, hw_ip.num_queues);
	if (rc)
		return rc;
	for (i = 0; i < 3; i++) {
		rc = hlcoll_cb_init(c, &c->cb[i]);
		if (rc)
			return rc;
	}
	/* HLCOLL_CHAIN=0: every step its own submission (comparisons) */
	c->chain_off = getenv("HLCOLL_CHAIN") &&
		       !strcmp(getenv("HLCOLL_CHAIN"), "0");
	/* The tests' planted bug: only a program that defines the symbol */
	c->chain_early = &hlcoll_test_chain_inject &&
			 hlcoll_test_chain_inject == HLCOLL_TEST_CHAIN_EARLY;
	/* What a failed chain of another communicator left (hlcoll_nic.c) */
	rc = hlcoll_nic_chain_reset(c);
	if (rc)
		return rc;
	c->scratch_handle = hlthunk_device_memory_alloc(c->fd,
							c->cfg.chunk_bytes,
							0, false, false);
	if (!c->scratch_handle)
		return errno ? -errno : -ENOMEM;
	c->scratch_va = hlthunk_device_memory_map(c->fd, c->scratch_handle, 0);
	if (!c->scratch_va)
		return errno ? -errno : -ENOMEM;
	return 0;
}

int hlcoll_comm_init_rank(struct hlcoll_comm **comm, int nranks,
			  const struct hlcoll_unique_id *id, int rank, int fd,
			  const struct hlcoll_config *cfg)
{
	struct hlcoll_comm *c;
	int rc;

	if (!comm || !id || nranks < 1 || nranks > HLCOLL_MAX_RANKS ||
	    rank < 0 || rank >= nranks || fd < 0)
		return -EINVAL;
	*comm = NULL;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->fd = fd;
	c->dev = -1;
	c->rank = rank;
	c->nranks = nranks;
	rc = hlcoll_config_parse(cfg, &c->cfg);
	if (rc) {
		free(c);
		return rc;
	}

	/* Everyone in first: a bad id fails here, before any device work */
	rc = hlcoll_boot_init(&c->boot, id, rank, nranks,
			      c->cfg.boot_timeout_ms);
	if (rc) {
		free(c);
		return rc;
	}
	rc = hlcoll_comm_local(c);
	if (rc) {
		/* The others are told at once rather than by a timeout */
		hlcoll_boot_abort(&c->boot, rc);
		goto err_free;
	}
	if (nranks > 1) {
		rc = hlcoll_hosts_init(c);
		if (!rc)
			rc = c->ops->connect(c);
		if (rc)
			goto err_free;
	}
	hlcoll_info(rank, "communicator of %d ranks on fd %d (transport %s)",
		    nranks, fd, c->ops ? c->ops->name : "none");
	*comm = c;
	return 0;

err_free:
	hlcoll_warn(rank, "communicator set-up failed: %s",
		    hlcoll_get_error_string(rc));
	hlcoll_comm_free(c, false);
	return rc;
}

int hlcoll_comm_split(struct hlcoll_comm *c, int color, int key,
		      struct hlcoll_comm **newcomm,
		      const struct hlcoll_config *cfg)
{
	struct { int32_t color, key; } mine, *all = NULL;
	struct hlcoll_unique_id *ids = NULL, id;
	int n, r, newn = 0, newrank = 0, leader = -1, rc;
	bool before;

	if (!c || !newcomm || (color < 0 && color != HLCOLL_SPLIT_NOCOLOR))
		return -EINVAL;
	*newcomm = NULL;
	if (c->error)
		return -ECONNABORTED;
	n = c->nranks;
	all = calloc(n, sizeof(*all));
	ids = calloc(n, sizeof(*ids));
	if (!all || !ids) {
		rc = -ENOMEM;
		goto out;
	}
	mine.color = color;
	mine.key = key;
	rc = hlcoll_boot_allgather(&c->boot, &mine, all, sizeof(mine));
	if (rc)
		goto out;

	/* Our place among the ranks of our colour: by (key, old rank) */
	for (r = 0; color >= 0 && r < n; r++) {
		if (all[r].color != color)
			continue;
		newn++;
		before = all[r].key < key || (all[r].key == key && r < c->rank);
		if (before)
			newrank++;
		if (leader < 0 || all[r].key < all[leader].key)
			leader = r;
	}
	memset(&id, 0, sizeof(id));
	rc = 0;
	if (color >= 0 && newrank == 0)
		rc = hlcoll_get_unique_id(&id);
	r = hlcoll_boot_allgather(&c->boot, &id, ids, sizeof(id));
	if (r) {
		if (color >= 0 && newrank == 0)
			hlcoll_boot_drop_listener(&id);
		rc = r;
		goto out;
	}
	if (rc || color < 0)
		goto out;
	rc = hlcoll_comm_init_rank(newcomm, newn, &ids[leader], newrank, c->fd,
				   cfg ? cfg : &c->cfg);
out:
	free(ids);
	free(all);
	return rc;
}

int hlcoll_barrier(struct hlcoll_comm *c)
{
	uint8_t mine = 0, all[HLCOLL_MAX_RANKS];
	int rc;

	if (!c)
		return -EINVAL;
	if (c->error)
		return -ECONNABORTED;
	rc = hlcoll_boot_allgather(&c->boot, &mine, all, 1);
	if (rc)
		c->error = rc;
	return rc;
}

/* ------------------------------------------------------------------------
 * Accessors
 */

uint64_t hlcoll_segment(uint64_t count, int nranks, int k, uint64_t *first)
{
	uint64_t q, r, f;

	if (nranks < 1 || k < 0 || k >= nranks) {
		if (first)
			*first = 0;
		return 0;
	}
	q = count / nranks;
	r = count % nranks;
	f = k * q + ((uint64_t)k < r ? (uint64_t)k : r);
	if (first)
		*first = f;
	return q + ((uint64_t)k < r);
}

const struct hlcoll_config *hlcoll_comm_config(const struct hlcoll_comm *c)
{
	return c ? &c->cfg : NULL;
}

int hlcoll_comm_rank(const struct hlcoll_comm *c)
{
	return c ? c->rank : -EINVAL;
}

int hlcoll_comm_size(const struct hlcoll_comm *c)
{
	return c ? c->nranks : -EINVAL;
}

int hlcoll_comm_fd(const struct hlcoll_comm *c)
{
	return c ? c->fd : -EINVAL;
}

/* ------------------------------------------------------------------------
 * Steps
 */

/* A step's or a chain's failure @rc: the communicator's error, sticky */
static int hlcoll_step_failed(struct hlcoll_comm *c, int rc)
{
	int err;

	if (rc && !c->error) {
		/*
		 * Another rank's failure (an abort, a death) often shows here
		 * first as a NIC error (a flushed or refused transfer): its
		 * own word follows on the bootstrap at once, and is the
		 * better reason. Not after an MMU fault of this rank's queues
		 * on its own buffers (hlcoll_nic_stream_complete())
		 */
		if (c->own_fault) {
			c->own_fault = false;
		} else if (!c->boot.error) {
			err = hlcoll_boot_wait_error(&c->boot,
						     HLCOLL_EXPLAIN_MS);
			if (err)
				rc = err;
		} else {
			rc = c->boot.error;
		}
		hlcoll_warn(c->rank, "collective failed: %s",
			    hlcoll_get_error_string(rc));
		/* Every other rank's transfers with this one fail now too */
		hlcoll_comm_fail(c, rc);
	}
	return rc;
}

/* Run a step; a failure makes the communicator's error sticky */
int hlcoll_step(struct hlcoll_comm *c, const struct hlcoll_xfer *x,
		int n, enum hlcoll_dtype dtype, enum hlcoll_redop op,
		uint64_t copy_src, uint64_t copy_dst, uint64_t copy_len)
{
	struct hlcoll_xfer xs[HLCOLL_MAX_GROUP_OPS];
	int i, m = 0, rc;

	/* Zero-byte transfers are skipped at both ends alike */
	for (i = 0; i < n && m < (int)(sizeof(xs) / sizeof(xs[0])); i++)
		if (x[i].bytes)
			xs[m++] = x[i];
	if (!m && !copy_len)
		return 0;
	if (!m) {
		/* A local copy alone: no transport needed */
		rc = hlcoll_nic_ops.step(c, NULL, 0, dtype, op, copy_src,
					 copy_dst, copy_len);
	} else {
		rc = c->ops->step(c, xs, m, dtype, op, copy_src, copy_dst,
				  copy_len);
	}
	return hlcoll_step_failed(c, rc);
}

/*
 * Run @nsteps steps (@x: HLCOLL_CHAIN_XFERS transfers a step, @nx[j] of
 * them used) after an optional local copy: chained on the device in one
 * submission (hlcoll_nic_chain()) when the NIC transport moves them all
 * two-sided, else step by step (the copy with the first); zero-byte
 * transfers skipped at both ends alike, a step left with none dropped (the
 * chain orders a rank's steps alone). A failure makes the error sticky.
 */
int hlcoll_steps(struct hlcoll_comm *c, const struct hlcoll_xfer *x,
		 const int *nx, int nsteps, enum hlcoll_dtype dtype,
		 enum hlcoll_redop op, uint64_t copy_src, uint64_t copy_dst,
		 uint64_t copy_len)
{
	struct hlcoll_xfer *xs;
	int *ns, i, j, m = 0, rc = 1;

	if (c->ops == &hlcoll_nic_ops && !c->chain_off && nsteps > 0) {
		xs = calloc((size_t)nsteps * HLCOLL_CHAIN_XFERS, sizeof(*xs));
		ns = calloc((size_t)nsteps, sizeof(*ns));
		if (!xs || !ns) {
			free(xs);
			free(ns);
			return -ENOMEM;
		}
		for (j = 0; j < nsteps; j++) {
			ns[m] = 0;
			for (i = 0; i < nx[j]; i++) {
				const struct hlcoll_xfer *t =
					&x[j * HLCOLL_CHAIN_XFERS + i];

				if (t->bytes)
					xs[m * HLCOLL_CHAIN_XFERS + ns[m]++] = *t;
			}
			if (ns[m])
				m++;
		}
		rc = hlcoll_nic_chain(c, xs, ns, m, dtype, op, copy_src,
				      copy_dst, copy_len);
		free(xs);
		free(ns);
		if (rc <= 0)
			return hlcoll_step_failed(c, rc);
	}
	/*
	 * One submission (or window) per step, the copy first on its own: a
	 * step's receives may land where it writes
	 */
	rc = hlcoll_step(c, NULL, 0, dtype, op, copy_src, copy_dst, copy_len);
	for (j = 0; !rc && j < nsteps; j++)
		rc = hlcoll_step(c, &x[j * HLCOLL_CHAIN_XFERS], nx[j], dtype,
				 op, 0, 0, 0);
	return rc;
}

/*
 * An average's last step: @count elements at @src divided by the number of
 * ranks into @dst (nothing for the other operations); a failure makes the
 * communicator's error sticky
 */
int hlcoll_finish(struct hlcoll_comm *c, enum hlcoll_redop op, uint64_t src,
		  uint64_t dst, uint64_t count, enum hlcoll_dtype dtype)
{
	int rc;

	if (op != HLCOLL_AVG || !count)
		return 0;
	rc = hlcoll_nic_divide(c, src, dst, count, dtype, (uint32_t)c->nranks);
	if (rc && !c->error) {
		c->error = rc;
		hlcoll_warn(c->rank, "average's division failed: %s",
			    hlcoll_get_error_string(rc));
	}
	return rc;
}

static int hlcoll_copy(struct hlcoll_comm *c, uint64_t src, uint64_t dst,
		       uint64_t len)
{
	return hlcoll_step(c, NULL, 0, HLCOLL_FLOAT32, HLCOLL_SUM, src, dst,
			   len);
}

static int hlcoll_check_comm(struct hlcoll_comm *c);

int hlcoll_memcpy(struct hlcoll_comm *c, uint64_t dst, uint64_t src,
		  uint64_t bytes)
{
	int rc;

	if (!c || (bytes && (!dst || !src)) || dst > UINT64_MAX - bytes ||
	    src > UINT64_MAX - bytes)
		return -EINVAL;
	/* After a pending stream collective, whose result it may read */
	rc = hlcoll_check_comm(c);
	if (rc)
		return rc;
	return bytes ? hlcoll_copy(c, src, dst, bytes) : 0;
}

/* @k modulo @n, in 0 .. @n - 1 for any sign of @k */
static int hlcoll_mod(int k, int n)
{
	return (k % n + n) % n;
}

/* Segment @k of @count elements: hlcoll_segment(), or blocks of @block */
static uint64_t hlcoll_seg(uint64_t count, uint64_t block, int n, int k,
			   uint64_t *first)
{
	if (block) {
		*first = (uint64_t)k * block;
		return block;
	}
	return hlcoll_segment(count, n, k, first);
}

/*
 * The n - 1 ring steps of one pass over the segments of @buf, into @x
 * (HLCOLL_CHAIN_XFERS a step) and @nx: at step s, send segment @first - s
 * to the next rank and receive segment @first - s - 1 from the previous
 * one (reduced into @buf when @reduce). The number of steps.
 */
static int hlcoll_ring_steps(struct hlcoll_comm *c, uint64_t buf,
			     uint64_t count, uint64_t block, int first,
			     bool reduce, enum hlcoll_dtype dtype,
			     struct hlcoll_xfer *x, int *nx)
{
	uint64_t es = hlcoll_dtype_size(dtype), fs, fr, ls, lr;
	int n = c->nranks, s;

	for (s = 0; s < n - 1; s++) {
		ls = hlcoll_seg(count, block, n, hlcoll_mod(first - s, n), &fs);
		lr = hlcoll_seg(count, block, n, hlcoll_mod(first - s - 1, n),
				&fr);
		x[2 * s] = (struct hlcoll_xfer){
			.peer = (c->rank + 1) % n, .send = true,
			.reduce = reduce, .va = buf + fs * es,
			.bytes = ls * es,
		};
		x[2 * s + 1] = (struct hlcoll_xfer){
			.peer = (c->rank + n - 1) % n, .reduce = reduce,
			.va = buf + fr * es, .bytes = lr * es,
		};
		nx[s] = 2;
	}
	return n - 1;
}

/* One ring pass (hlcoll_ring_steps()), chained on the device */
static int hlcoll_ring_pass(struct hlcoll_comm *c, uint64_t buf,
			    uint64_t count, uint64_t block, int first,
			    bool reduce, enum hlcoll_dtype dtype,
			    enum hlcoll_redop op)
{
	struct hlcoll_xfer x[HLCOLL_CHAIN_XFERS * HLCOLL_MAX_RANKS];
	int nx[HLCOLL_MAX_RANKS], ns;

	ns = hlcoll_ring_steps(c, buf, count, block, first, reduce, dtype, x,
			       nx);
	return hlcoll_steps(c, x, nx, ns, dtype, op, 0, 0, 0);
}

/* ------------------------------------------------------------------------
 * Argument checks: before anything moves
 */

static int hlcoll_check_comm(struct hlcoll_comm *c)
{
	if (!c)
		return -EINVAL;
	/* A pending stream collective first (it uses the CBs) */
	if (c->pending)
		hlcoll_step_failed(c, hlcoll_nic_stream_complete(c));
	return c->error ? -ECONNABORTED : 0;
}

static int hlcoll_check_type(enum hlcoll_dtype dtype)
{
	return hlcoll_dtype_size(dtype) ? 0 : -EINVAL;
}

static int hlcoll_check_op(enum hlcoll_dtype dtype, enum hlcoll_redop op)
{
	if (hlcoll_check_type(dtype) || (unsigned int)op >= HLCOLL_NUM_OPS)
		return -EINVAL;
	return hlcoll_reduce_supported(dtype, op) ? 0 : -EOPNOTSUPP;
}

/* A buffer of @count * @mult elements of @dtype at @va */
static int hlcoll_check_buf(uint64_t va, uint64_t count, uint64_t mult,
			    enum hlcoll_dtype dtype)
{
	uint64_t es = hlcoll_dtype_size(dtype);

	if (!count)
		return 0;
	if (!va || va % es || count > UINT64_MAX / es / mult ||
	    va > UINT64_MAX - count * mult * es)
		return -EINVAL;
	return 0;
}

/*
 * Buffers not mapped on the device: the device reads the first and the
 * last element of each (one local job) before anything moves; -EFAULT.
 * With one rank the communicator is left as it was. With more, the peers
 * are already in the same call (or about to be) and would pair it with
 * this rank's next one: the communicator fails instead, on every rank (the
 * error sticky here, the peers told through the bootstrap and their
 * connections moved to ERR, as hlcoll_comm_abort() does), so that no call
 * pairs with another (hlcoll_comm_fail()).
 */
static int hlcoll_check_mapped(struct hlcoll_comm *c, enum hlcoll_dtype dtype,
			       uint64_t va0, uint64_t len0, uint64_t va1,
			       uint64_t len1)
{
	const uint64_t va[2] = { va0, va1 }, len[2] = { len0, len1 };
	int rc;

	if (!len0 && !len1)
		return 0;
	rc = hlcoll_nic_probe(c, va, len, 2, hlcoll_dtype_size(dtype));
	if (rc == -EFAULT && c->nranks > 1 && !c->error) {
		hlcoll_warn(c->rank, "a buffer is not mapped on the device: the communicator fails on every rank");
		hlcoll_comm_fail(c, rc);
	} else if (rc && rc == c->boot.error && !c->error) {
		/* Another rank failed (hlcoll_run() saw it): this one too */
		hlcoll_comm_fail(c, rc);
	}
	return rc;
}

static bool hlcoll_overlap(uint64_t a, uint64_t alen, uint64_t b,
			   uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/* ------------------------------------------------------------------------
 * Collectives
 */

static int hlcoll_check_stream(const struct hlcoll_stream *s)
{
	int i;

	if (!s)
		return 0;
	for (i = 0; i < 3; i++)
		if (s->reserved[i])
			return -EINVAL;
	if (s->flags & ~(HLCOLL_STREAM_WAIT | HLCOLL_STREAM_SIGNAL))
		return -EINVAL;
	if ((s->flags & HLCOLL_STREAM_WAIT) &&
	    (s->wait_sob >= HL_SM_NUM_SOBS ||
	     s->wait_mon >= HL_SM_NUM_MONITORS || !s->wait_value ||
	     s->wait_value > HL_SM_SOB_MAX_VAL))
		return -EINVAL;
	if ((s->flags & HLCOLL_STREAM_SIGNAL) &&
	    s->signal_sob >= HL_SM_NUM_SOBS)
		return -EINVAL;
	return 0;
}

/*
 * hlcoll_allreduce()'s and hlcoll_allreduce_enqueue()'s argument checks,
 * before anything moves (with @probe and a @count not 0, the buffers'
 * mapping with one local job): 0 or -errno
 */
static int hlcoll_allreduce_check(struct hlcoll_comm *c, uint64_t sendbuf,
				  uint64_t recvbuf, uint64_t count,
				  enum hlcoll_dtype dtype, enum hlcoll_redop op,
				  bool probe)
{
	uint64_t bytes;
	int rc;

	rc = hlcoll_check_comm(c);
	if (!rc)
		rc = hlcoll_check_op(dtype, op);
	if (!rc)
		rc = hlcoll_check_buf(sendbuf, count, 1, dtype);
	if (!rc)
		rc = hlcoll_check_buf(recvbuf, count, 1, dtype);
	if (rc)
		return rc;
	bytes = count * hlcoll_dtype_size(dtype);
	if (sendbuf != recvbuf && hlcoll_overlap(sendbuf, bytes, recvbuf, bytes))
		return -EINVAL;
	return count && probe ? hlcoll_check_mapped(c, dtype, sendbuf, bytes,
						    recvbuf, bytes) : 0;
}

/*
 * Whether a collective can be one chain on the device (after the checks):
 * more than one rank, no average (its division is another job), the NIC
 * transport, HLCOLL_CHAIN not 0
 */
static bool hlcoll_chains(const struct hlcoll_comm *c, enum hlcoll_redop op)
{
	return c->nranks > 1 && op != HLCOLL_AVG && c->ops == &hlcoll_nic_ops &&
	       !c->chain_off;
}

/*
 * Steps and copies as one chain with @stream's head and tail, left
 * pending: 0; 1 when they cannot chain, or -EMSGSIZE when they take more
 * than one submission, before anything ran; else -errno (sticky). Whether
 * they are one submission is decided as every rank decides it
 * (hlcoll_nic_chain_fits(): the most copies and a head, each transfer
 * counted as @seg bytes when @seg is not 0), so that no rank refuses
 * where another one goes on.
 */
static int hlcoll_chain_submit(struct hlcoll_comm *c,
			       const struct hlcoll_xfer *x, const int *nx,
			       int ns, uint64_t seg, enum hlcoll_dtype dtype,
			       enum hlcoll_redop op,
			       const struct hlcoll_span *cp, int ncp,
			       const struct hlcoll_stream *stream)
{
	int rc;

	rc = hlcoll_nic_chain_fits(c, x, nx, ns, seg);
	if (!rc)
		rc = hlcoll_nic_chain_stream(c, x, nx, ns, dtype, op, cp, ncp,
					     stream);
	if (rc == 1 || rc == -EMSGSIZE || !rc)
		return rc;
	return hlcoll_step_failed(c, rc);
}

/*
 * Whether the root's step of a broadcast (@reduce false: n - 1 sends) or a
 * reduce (n - 1 reduced receives) of @bytes each fits one submission.
 * Every rank asks before its enqueue, so that all refuse alike: a rank
 * whose own step fits would else wait for a root that refused.
 */
static bool hlcoll_root_step_fits(const struct hlcoll_comm *c,
				  uint64_t bytes, bool reduce)
{
	struct hlcoll_xfer x[HLCOLL_MAX_RANKS];
	int k, n = c->nranks - 1;

	for (k = 0; k < n; k++)
		x[k] = (struct hlcoll_xfer){
			.peer = k, .send = !reduce, .reduce = reduce,
			.bytes = bytes,
		};
	return hlcoll_nic_steps_fit(c, x, &n, 1);
}

/*
 * An enqueue's first checks: @c, @stream, a @count not 0 (the
 * collective's own checks follow); 0 or -EINVAL
 */
static int hlcoll_enqueue_check(struct hlcoll_comm *c,
				const struct hlcoll_stream *stream,
				uint64_t count)
{
	int rc = c ? hlcoll_check_stream(stream) : -EINVAL;

	if (!rc && !count)
		rc = -EINVAL;
	return rc;
}

/*
 * What an enqueue returns for its submission's result @rc (the checks
 * passed): 0 (the sequence into @seq), -EOPNOTSUPP when it cannot chain,
 * else @rc
 */
static int hlcoll_enqueued(struct hlcoll_comm *c, int rc, const char *what,
			   uint64_t count, const char *unit, uint64_t *seq)
{
	if (rc == 1)
		return -EOPNOTSUPP;
	if (rc == -EMSGSIZE)
		hlcoll_warn(c->rank, "stream %s of %" PRIu64 " %s: more than one submission",
			    what, count, unit);
	if (!rc && seq)
		*seq = c->pending_seq;
	return rc;
}

/*
 * Whether an all-reduce of @count elements gathers every input and reduces
 * locally (hlcoll_nic_allreduce_small()): the NIC transport, every pair of
 * ranks connected, the inputs together within the bound agreed at connect
 * (HLCOLL_SMALL_MAX, the scratch buffer; hlcoll_nic_small()). Every rank
 * decides alike (HLCOLL_CHAIN plays no part: that path is one submission).
 */
static bool hlcoll_small(const struct hlcoll_comm *c, uint64_t count,
			 enum hlcoll_dtype dtype)
{
	return c->ops == &hlcoll_nic_ops && hlcoll_nic_small(c, count, dtype);
}

/*
 * The small path (hlcoll_small(); @probe: it reads the buffers' ends
 * first itself, hlcoll_allreduce_check() did not) or the copy, the
 * reduce-scatter pass and the all-gather pass as one chain, submitted with
 * @stream's head and tail and left pending (the checks done): 0; 1 when it
 * cannot chain (hlcoll_chains()), or -EMSGSIZE when it takes more than one
 * submission, before anything ran; else -errno (sticky)
 */
static int hlcoll_allreduce_submit(struct hlcoll_comm *c, uint64_t sendbuf,
				   uint64_t recvbuf, uint64_t count,
				   enum hlcoll_dtype dtype,
				   enum hlcoll_redop op,
				   const struct hlcoll_stream *stream,
				   bool probe)
{
	struct hlcoll_xfer x[2 * HLCOLL_CHAIN_XFERS * HLCOLL_MAX_RANKS];
	int nx[2 * HLCOLL_MAX_RANKS], ns;
	const struct hlcoll_span cp = {
		sendbuf, recvbuf, count * hlcoll_dtype_size(dtype),
	};
	int rc;

	if (hlcoll_small(c, count, dtype)) {
		rc = hlcoll_nic_allreduce_small(c, sendbuf, recvbuf, count,
						dtype, op, stream, probe);
		if (rc != 1)
			return rc < 0 ? hlcoll_step_failed(c, rc) : rc;
	}
	if (!hlcoll_chains(c, op))
		return 1;
	ns = hlcoll_ring_steps(c, recvbuf, count, 0, c->rank, true, dtype, x,
			       nx);
	ns += hlcoll_ring_steps(c, recvbuf, count, 0, c->rank + 1, false,
				dtype, &x[2 * ns], &nx[ns]);
	/* Every rank decides as if each segment were the largest */
	return hlcoll_chain_submit(c, x, nx, ns,
				   hlcoll_segment(count, c->nranks, 0, NULL) *
				   hlcoll_dtype_size(dtype), dtype, op, &cp,
				   sendbuf != recvbuf ? 1 : 0, stream);
}

int hlcoll_allreduce_enqueue(struct hlcoll_comm *c, uint64_t sendbuf,
			     uint64_t recvbuf, uint64_t count,
			     enum hlcoll_dtype dtype, enum hlcoll_redop op,
			     const struct hlcoll_stream *stream, uint64_t *seq)
{
	static const struct hlcoll_stream none;
	int rc;

	rc = hlcoll_enqueue_check(c, stream, count);
	if (!rc)
		rc = hlcoll_allreduce_check(c, sendbuf, recvbuf, count, dtype,
					    op, true);
	if (rc)
		return rc;
	if (!hlcoll_chains(c, op))
		return -EOPNOTSUPP;
	rc = hlcoll_allreduce_submit(c, sendbuf, recvbuf, count, dtype, op,
				     stream ? stream : &none, false);
	return hlcoll_enqueued(c, rc, "all-reduce", count, "elements", seq);
}

int hlcoll_stream_sync(struct hlcoll_comm *c)
{
	if (!c)
		return -EINVAL;
	/* A failure another call found (hlcoll_check_comm()) still counts */
	if (!c->pending)
		return c->error ? -ECONNABORTED : 0;
	return hlcoll_step_failed(c, hlcoll_nic_stream_complete(c));
}

/*
 * hlcoll_allreduce_enqueue() with no ordering points and
 * hlcoll_stream_sync(), on the same checks, except that a small one
 * (hlcoll_small(), an average too and whatever HLCOLL_CHAIN says) probes
 * its buffers in its own submission; what cannot be one chain (one rank,
 * an average, the hosts transport, one-sided transfers, HLCOLL_CHAIN=0,
 * more than one submission) runs here on the host's pace
 */
int hlcoll_allreduce(struct hlcoll_comm *c, uint64_t sendbuf,
		     uint64_t recvbuf, uint64_t count, enum hlcoll_dtype dtype,
		     enum hlcoll_redop op)
{
	static const struct hlcoll_stream none;
	struct hlcoll_xfer x[2 * HLCOLL_CHAIN_XFERS * HLCOLL_MAX_RANKS];
	int nx[2 * HLCOLL_MAX_RANKS], ns;
	uint64_t bytes, len, first;
	bool small;
	int rc;

	/* The small path probes the buffers in its own submission */
	small = c && !c->error && hlcoll_small(c, count, dtype);
	rc = hlcoll_allreduce_check(c, sendbuf, recvbuf, count, dtype, op,
				    !small);
	if (rc || !count)
		return rc;
	rc = hlcoll_allreduce_submit(c, sendbuf, recvbuf, count, dtype, op,
				     &none, small);
	if (!rc)
		return hlcoll_stream_sync(c);
	if (rc != 1 && rc != -EMSGSIZE)
		return rc;

	bytes = count * hlcoll_dtype_size(dtype);
	if (c->nranks == 1 && op == HLCOLL_AVG)
		return hlcoll_finish(c, op, sendbuf, recvbuf, count, dtype);
	if (c->nranks > 1 && op != HLCOLL_AVG && c->ops == &hlcoll_nic_ops) {
		/*
		 * The three in as many submissions as they take (or one
		 * step each: HLCOLL_CHAIN=0, one-sided transfers)
		 */
		ns = hlcoll_ring_steps(c, recvbuf, count, 0, c->rank, true,
				       dtype, x, nx);
		ns += hlcoll_ring_steps(c, recvbuf, count, 0, c->rank + 1,
					false, dtype, &x[2 * ns], &nx[ns]);
		return hlcoll_steps(c, x, nx, ns, dtype, op, sendbuf, recvbuf,
				    sendbuf != recvbuf ? bytes : 0);
	}
	if (sendbuf != recvbuf) {
		rc = hlcoll_copy(c, sendbuf, recvbuf, bytes);
		if (rc)
			return rc;
	}
	if (c->nranks == 1)
		return 0;
	if (hlcoll_hosts_allreduce(c, recvbuf, count, dtype, op, &rc))
		return rc;
	/* Reduce-scatter: at step s, send segment r - s, add in r - s - 1 */
	rc = hlcoll_ring_pass(c, recvbuf, count, 0, c->rank, true, dtype, op);
	if (rc)
		return rc;
	/* An average: the owner of each finished segment divides it, once */
	len = hlcoll_segment(count, c->nranks, (c->rank + 1) % c->nranks,
			     &first);
	rc = hlcoll_finish(c, op, recvbuf + first * hlcoll_dtype_size(dtype),
			   recvbuf + first * hlcoll_dtype_size(dtype), len,
			   dtype);
	if (rc)
		return rc;
	/* All-gather: rank r owns segment r + 1; send r + 1 - s, get r - s */
	return hlcoll_ring_pass(c, recvbuf, count, 0, c->rank + 1, false,
				dtype, op);
}

/* hlcoll_reduce_scatter()'s and its enqueue's checks (as the all-reduce's) */
static int hlcoll_reduce_scatter_check(struct hlcoll_comm *c, uint64_t sendbuf,
				       uint64_t recvbuf, uint64_t recvcount,
				       enum hlcoll_dtype dtype,
				       enum hlcoll_redop op)
{
	uint64_t bytes;
	int rc;

	rc = hlcoll_check_comm(c);
	if (!rc)
		rc = hlcoll_check_op(dtype, op);
	if (!rc)
		rc = hlcoll_check_buf(sendbuf, recvcount, c->nranks, dtype);
	if (!rc)
		rc = hlcoll_check_buf(recvbuf, recvcount, 1, dtype);
	if (rc || !recvcount)
		return rc;
	bytes = recvcount * hlcoll_dtype_size(dtype);
	if (recvbuf != sendbuf + (uint64_t)c->rank * bytes &&
	    hlcoll_overlap(sendbuf, bytes * c->nranks, recvbuf, bytes))
		return -EINVAL;
	return hlcoll_check_mapped(c, dtype, sendbuf, bytes * c->nranks,
				   recvbuf, bytes);
}

/*
 * An out-of-place reduce-scatter's work buffer of @bytes (device memory,
 * mapped) into *@handle and *@work: 0, or -errno, after which the
 * communicator fails on every rank (hlcoll_comm_fail(), as for a buffer
 * not mapped): the peers are in the same call and would wait for this
 * rank's part until the job timeout
 */
static int hlcoll_work_alloc(struct hlcoll_comm *c, uint64_t bytes,
			     uint64_t *handle, uint64_t *work)
{
	int rc;

	*work = 0;
	*handle = hlthunk_device_memory_alloc(c->fd, bytes, 0, false, false);
	if (*handle)
		*work = hlthunk_device_memory_map(c->fd, *handle, 0);
	if (*work)
		return 0;
	rc = errno ? -errno : -ENOMEM;
	if (*handle)
		hlthunk_device_memory_free(c->fd, *handle);
	*handle = 0;
	if (c->nranks > 1 && !c->error) {
		hlcoll_warn(c->rank, "no device memory for the reduce-scatter's work buffer (%s): the communicator fails on every rank",
			    strerror(-rc));
		hlcoll_comm_fail(c, rc);
	}
	return rc;
}

/*
 * The reduce-scatter ring as one chain, left pending (the checks done;
 * hlcoll_chain_submit()'s results). The ring reduces in place: in
 * @sendbuf itself, or out of place in a work buffer (device memory, freed
 * once the chain completed) that the chain first fills from @sendbuf;
 * then this rank's own block, which the ring never sends and reduces into
 * at its last step only, is @recvbuf itself, given @sendbuf's block first.
 */
static int hlcoll_reduce_scatter_submit(struct hlcoll_comm *c,
					uint64_t sendbuf, uint64_t recvbuf,
					uint64_t recvcount,
					enum hlcoll_dtype dtype,
					enum hlcoll_redop op,
					const struct hlcoll_stream *stream)
{
	struct hlcoll_xfer x[HLCOLL_CHAIN_XFERS * HLCOLL_MAX_RANKS];
	int nx[HLCOLL_MAX_RANKS], ns, i, n = c->nranks, rc;
	uint64_t bytes = recvcount * hlcoll_dtype_size(dtype);
	uint64_t own = (uint64_t)c->rank * bytes, work = sendbuf, handle = 0;
	struct hlcoll_span cp[2];

	/* Shifted by one: rank r ends with block r (summed from rank r + 1) */
	ns = hlcoll_ring_steps(c, work, 0, recvcount, c->rank - 1, true, dtype,
			       x, nx);
	if (recvbuf != sendbuf + own) {
		/*
		 * A chain that every rank refuses moves nothing: refused
		 * before a work buffer that this rank alone may lack
		 */
		rc = hlcoll_nic_chain_fits(c, x, nx, ns, 0);
		if (rc == 1 || rc == -EMSGSIZE)
			return rc;
		rc = hlcoll_work_alloc(c, bytes * n, &handle, &work);
		if (rc)
			return rc;
		cp[0] = (struct hlcoll_span){ sendbuf, work, bytes * n };
		cp[1] = (struct hlcoll_span){ sendbuf + own, recvbuf, bytes };
		ns = hlcoll_ring_steps(c, work, 0, recvcount, c->rank - 1, true,
				       dtype, x, nx);
	}
	for (i = 0; i < HLCOLL_CHAIN_XFERS * ns; i++)
		if (x[i].va == work + own)
			x[i].va = recvbuf;
	rc = hlcoll_chain_submit(c, x, nx, ns, 0, dtype, op, cp, handle ? 2 : 0,
				 stream);
	if (!rc && handle) {
		c->pending_work_handle = handle;
		c->pending_work_va = work;
	} else if (handle) {
		hlthunk_memory_unmap(c->fd, work);
		hlthunk_device_memory_free(c->fd, handle);
	}
	return rc;
}

int hlcoll_reduce_scatter_enqueue(struct hlcoll_comm *c, uint64_t sendbuf,
				  uint64_t recvbuf, uint64_t recvcount,
				  enum hlcoll_dtype dtype,
				  enum hlcoll_redop op,
				  const struct hlcoll_stream *stream,
				  uint64_t *seq)
{
	static const struct hlcoll_stream none;
	int rc;

	rc = hlcoll_enqueue_check(c, stream, recvcount);
	if (!rc)
		rc = hlcoll_reduce_scatter_check(c, sendbuf, recvbuf, recvcount,
						 dtype, op);
	if (rc)
		return rc;
	if (!hlcoll_chains(c, op))
		return -EOPNOTSUPP;
	rc = hlcoll_reduce_scatter_submit(c, sendbuf, recvbuf, recvcount,
					  dtype, op, stream ? stream : &none);
	return hlcoll_enqueued(c, rc, "reduce-scatter", recvcount,
			       "elements", seq);
}

/*
 * hlcoll_reduce_scatter_enqueue() with no ordering points and
 * hlcoll_stream_sync() where it chains; else (one rank, an average, the
 * hosts transport, one-sided transfers, HLCOLL_CHAIN=0, more than one
 * submission) the ring at the host's pace
 */
int hlcoll_reduce_scatter(struct hlcoll_comm *c, uint64_t sendbuf,
			  uint64_t recvbuf, uint64_t recvcount,
			  enum hlcoll_dtype dtype, enum hlcoll_redop op)
{
	static const struct hlcoll_stream none;
	uint64_t bytes, work = 0, handle = 0;
	bool in_place;
	int n, rc;

	rc = hlcoll_reduce_scatter_check(c, sendbuf, recvbuf, recvcount, dtype,
					 op);
	if (rc || !recvcount)
		return rc;
	if (hlcoll_chains(c, op)) {
		rc = hlcoll_reduce_scatter_submit(c, sendbuf, recvbuf,
						  recvcount, dtype, op, &none);
		if (!rc)
			return hlcoll_stream_sync(c);
		if (rc != 1 && rc != -EMSGSIZE)
			return rc;
	}
	n = c->nranks;
	bytes = recvcount * hlcoll_dtype_size(dtype);
	in_place = recvbuf == sendbuf + (uint64_t)c->rank * bytes;
	if (n == 1 && op == HLCOLL_AVG)
		return hlcoll_finish(c, op, sendbuf, recvbuf, recvcount, dtype);
	if (n == 1)
		return in_place ? 0 : hlcoll_copy(c, sendbuf, recvbuf, bytes);

	/* The ring reduces in place: in @sendbuf itself, or in a copy */
	if (in_place) {
		work = sendbuf;
	} else {
		rc = hlcoll_work_alloc(c, bytes * n, &handle, &work);
		if (rc)
			return rc;
		rc = hlcoll_copy(c, sendbuf, work, bytes * n);
		if (rc)
			goto out;
	}
	/*
	 * Across hosts, hierarchical (hlcoll_hosts.c); else the ring, shifted
	 * by one: rank r ends with block r (summed from rank r + 1)
	 */
	if (!hlcoll_hosts_reduce_scatter(c, work, recvcount, dtype, op, &rc))
		rc = hlcoll_ring_pass(c, work, 0, recvcount, c->rank - 1, true,
				      dtype, op);
	if (!rc)
		rc = hlcoll_finish(c, op, work + (uint64_t)c->rank * bytes,
				   work + (uint64_t)c->rank * bytes, recvcount,
				   dtype);
	if (!rc && !in_place)
		rc = hlcoll_copy(c, work + (uint64_t)c->rank * bytes, recvbuf,
				 bytes);
out:
	if (handle) {
		if (work)
			hlthunk_memory_unmap(c->fd, work);
		hlthunk_device_memory_free(c->fd, handle);
	}
	return rc;
}

/* hlcoll_allgather()'s and its enqueue's checks */
static int hlcoll_allgather_check(struct hlcoll_comm *c, uint64_t sendbuf,
				  uint64_t recvbuf, uint64_t sendcount,
				  enum hlcoll_dtype dtype)
{
	uint64_t bytes;
	int rc;

	rc = hlcoll_check_comm(c);
	if (!rc)
		rc = hlcoll_check_type(dtype);
	if (!rc)
		rc = hlcoll_check_buf(sendbuf, sendcount, 1, dtype);
	if (!rc)
		rc = hlcoll_check_buf(recvbuf, sendcount, c->nranks, dtype);
	if (rc || !sendcount)
		return rc;
	bytes = sendcount * hlcoll_dtype_size(dtype);
	if (sendbuf != recvbuf + (uint64_t)c->rank * bytes &&
	    hlcoll_overlap(sendbuf, bytes, recvbuf, bytes * c->nranks))
		return -EINVAL;
	return hlcoll_check_mapped(c, dtype, sendbuf, bytes, recvbuf,
				   bytes * c->nranks);
}

/*
 * The all-gather ring's n - 1 steps into @x and @nx, and its copy to this
 * rank's own block into @cp (0 bytes in place). At step s, send block
 * r - s and receive block r - s - 1; step 0 sends straight from @sendbuf.
 */
static int hlcoll_allgather_steps(const struct hlcoll_comm *c,
				  uint64_t sendbuf, uint64_t recvbuf,
				  uint64_t bytes, struct hlcoll_xfer *x,
				  int *nx, struct hlcoll_span *cp)
{
	int n = c->nranks, r = c->rank, s, ks, kr;
	uint64_t mine = recvbuf + (uint64_t)r * bytes;

	*cp = (struct hlcoll_span){
		sendbuf, mine, sendbuf != mine ? bytes : 0,
	};
	for (s = 0; s < n - 1; s++) {
		ks = hlcoll_mod(r - s, n);
		kr = hlcoll_mod(r - s - 1, n);
		x[2 * s] = (struct hlcoll_xfer){
			.peer = (r + 1) % n, .send = true,
			.va = s == 0 ? sendbuf : recvbuf + (uint64_t)ks * bytes,
			.bytes = bytes,
		};
		x[2 * s + 1] = (struct hlcoll_xfer){
			.peer = (r + n - 1) % n,
			.va = recvbuf + (uint64_t)kr * bytes, .bytes = bytes,
		};
		nx[s] = 2;
	}
	return n - 1;
}

int hlcoll_allgather_enqueue(struct hlcoll_comm *c, uint64_t sendbuf,
			     uint64_t recvbuf, uint64_t sendcount,
			     enum hlcoll_dtype dtype,
			     const struct hlcoll_stream *stream, uint64_t *seq)
{
	static const struct hlcoll_stream none;
	struct hlcoll_xfer x[HLCOLL_CHAIN_XFERS * HLCOLL_MAX_RANKS];
	int nx[HLCOLL_MAX_RANKS], ns, rc;
	struct hlcoll_span cp;

	rc = hlcoll_enqueue_check(c, stream, sendcount);
	if (!rc)
		rc = hlcoll_allgather_check(c, sendbuf, recvbuf, sendcount,
					    dtype);
	if (rc)
		return rc;
	if (!hlcoll_chains(c, HLCOLL_SUM))
		return -EOPNOTSUPP;
	ns = hlcoll_allgather_steps(c, sendbuf, recvbuf,
				    sendcount * hlcoll_dtype_size(dtype), x,
				    nx, &cp);
	rc = hlcoll_chain_submit(c, x, nx, ns, 0, dtype, HLCOLL_SUM, &cp,
				 cp.len ? 1 : 0, stream ? stream : &none);
	return hlcoll_enqueued(c, rc, "all-gather", sendcount, "elements", seq);
}

/*
 * hlcoll_allgather_enqueue() with no ordering points and
 * hlcoll_stream_sync() where it chains; else the steps as hlcoll_steps()
 * runs them (one rank: the copy alone)
 */
int hlcoll_allgather(struct hlcoll_comm *c, uint64_t sendbuf,
		     uint64_t recvbuf, uint64_t sendcount,
		     enum hlcoll_dtype dtype)
{
	static const struct hlcoll_stream none;
	struct hlcoll_xfer x[HLCOLL_CHAIN_XFERS * HLCOLL_MAX_RANKS];
	int nx[HLCOLL_MAX_RANKS], ns, rc;
	struct hlcoll_span cp;

	rc = hlcoll_allgather_check(c, sendbuf, recvbuf, sendcount, dtype);
	if (rc || !sendcount)
		return rc;
	ns = hlcoll_allgather_steps(c, sendbuf, recvbuf,
				    sendcount * hlcoll_dtype_size(dtype), x,
				    nx, &cp);
	if (c->nranks == 1)
		return cp.len ? hlcoll_copy(c, cp.src, cp.dst, cp.len) : 0;
	if (hlcoll_chains(c, HLCOLL_SUM)) {
		rc = hlcoll_chain_submit(c, x, nx, ns, 0, dtype, HLCOLL_SUM, &cp,
					 cp.len ? 1 : 0, &none);
		if (!rc)
			return hlcoll_stream_sync(c);
		if (rc != 1 && rc != -EMSGSIZE)
			return rc;
	}
	if (hlcoll_hosts_allgather(c, sendbuf, recvbuf,
				   sendcount * hlcoll_dtype_size(dtype), &rc))
		return rc;
	return hlcoll_steps(c, x, nx, ns, dtype, HLCOLL_SUM, cp.src, cp.dst,
			    cp.len);
}

/* hlcoll_broadcast()'s and its enqueue's checks */
static int hlcoll_broadcast_check(struct hlcoll_comm *c, uint64_t sendbuf,
				  uint64_t recvbuf, uint64_t count,
				  enum hlcoll_dtype dtype, int root)
{
	uint64_t bytes;
	int rc;

	rc = hlcoll_check_comm(c);
	if (!rc)
		rc = hlcoll_check_type(dtype);
	if (!rc && (root < 0 || root >= c->nranks))
		rc = -EINVAL;
	if (!rc && c->rank == root)
		rc = hlcoll_check_buf(sendbuf, count, 1, dtype);
	if (!rc)
		rc = hlcoll_check_buf(recvbuf, count, 1, dtype);
	bytes = count * hlcoll_dtype_size(dtype);
	if (!rc && c->rank == root && sendbuf != recvbuf &&
	    hlcoll_overlap(sendbuf, bytes, recvbuf, bytes))
		rc = -EINVAL;
	if (!rc && count)
		rc = hlcoll_check_mapped(c, dtype, sendbuf,
					 c->rank == root ? bytes : 0, recvbuf,
					 bytes);
	return rc;
}

/*
 * The broadcast's one step into @x (the root's n - 1 sends, or a receive
 * from it), and the root's copy into @cp (0 bytes in place, or not the
 * root). The number of transfers.
 */
static int hlcoll_broadcast_step(const struct hlcoll_comm *c,
				 uint64_t sendbuf, uint64_t recvbuf,
				 uint64_t bytes, int root,
				 struct hlcoll_xfer *x, struct hlcoll_span *cp)
{
	int n = c->nranks, k;

	*cp = (struct hlcoll_span){ sendbuf, recvbuf, 0 };
	if (c->rank != root) {
		x[0] = (struct hlcoll_xfer){
			.peer = root, .va = recvbuf, .bytes = bytes,
		};
		return 1;
	}
	for (k = 1; k < n; k++)
		x[k - 1] = (struct hlcoll_xfer){
			.peer = (root + k) % n, .send = true, .va = sendbuf,
			.bytes = bytes,
		};
	cp->len = sendbuf != recvbuf ? bytes : 0;
	return n - 1;
}

int hlcoll_broadcast_enqueue(struct hlcoll_comm *c, uint64_t sendbuf,
			     uint64_t recvbuf, uint64_t count,
			     enum hlcoll_dtype dtype, int root,
			     const struct hlcoll_stream *stream, uint64_t *seq)
{
	static const struct hlcoll_stream none;
	struct hlcoll_xfer x[HLCOLL_MAX_RANKS];
	struct hlcoll_span cp;
	int nx, rc;

	rc = hlcoll_enqueue_check(c, stream, count);
	if (!rc)
		rc = hlcoll_broadcast_check(c, sendbuf, recvbuf, count, dtype,
					    root);
	if (rc)
		return rc;
	if (!hlcoll_chains(c, HLCOLL_SUM) ||
	    !hlcoll_root_step_fits(c, count * hlcoll_dtype_size(dtype), false))
		return -EOPNOTSUPP;
	/* One step: its transfers all at x[0 .. nx - 1] */
	nx = hlcoll_broadcast_step(c, sendbuf, recvbuf,
				   count * hlcoll_dtype_size(dtype), root, x,
				   &cp);
	rc = hlcoll_chain_submit(c, x, &nx, 1, 0, dtype, HLCOLL_SUM, &cp,
				 cp.len ? 1 : 0, stream ? stream : &none);
	return hlcoll_enqueued(c, rc, "broadcast", count, "elements", seq);
}

/*
 * hlcoll_broadcast_enqueue() with no ordering points and
 * hlcoll_stream_sync() where it chains; else the step in as many
 * submissions as it takes
 */
int hlcoll_broadcast(struct hlcoll_comm *c, uint64_t sendbuf,
		     uint64_t recvbuf, uint64_t count, enum hlcoll_dtype dtype,
		     int root)
{
	static const struct hlcoll_stream none;
	struct hlcoll_xfer x[HLCOLL_MAX_RANKS];
	struct hlcoll_span cp;
	int nx, rc;

	rc = hlcoll_broadcast_check(c, sendbuf, recvbuf, count, dtype, root);
	if (rc || !count)
		return rc;
	nx = hlcoll_broadcast_step(c, sendbuf, recvbuf,
				   count * hlcoll_dtype_size(dtype), root, x,
				   &cp);
	if (hlcoll_chains(c, HLCOLL_SUM)) {
		rc = hlcoll_chain_submit(c, x, &nx, 1, 0, dtype, HLCOLL_SUM, &cp,
					 cp.len ? 1 : 0, &none);
		if (!rc)
			return hlcoll_stream_sync(c);
		if (rc != 1 && rc != -EMSGSIZE)
			return rc;
	}
	return hlcoll_step(c, x, nx, dtype, HLCOLL_SUM,
			   cp.src, cp.dst, cp.len);
}

/* hlcoll_reduce()'s and its enqueue's checks */
static int hlcoll_reduce_check(struct hlcoll_comm *c, uint64_t sendbuf,
			       uint64_t recvbuf, uint64_t count,
			       enum hlcoll_dtype dtype, enum hlcoll_redop op,
			       int root)
{
	uint64_t bytes;
	int rc;

	rc = hlcoll_check_comm(c);
	if (!rc)
		rc = hlcoll_check_op(dtype, op);
	if (!rc && (root < 0 || root >= c->nranks))
		rc = -EINVAL;
	if (!rc)
		rc = hlcoll_check_buf(sendbuf, count, 1, dtype);
	if (!rc && c->rank == root)
		rc = hlcoll_check_buf(recvbuf, count, 1, dtype);
	bytes = count * hlcoll_dtype_size(dtype);
	if (!rc && c->rank == root && sendbuf != recvbuf &&
	    hlcoll_overlap(sendbuf, bytes, recvbuf, bytes))
		rc = -EINVAL;
	if (!rc && count)
		rc = hlcoll_check_mapped(c, dtype, sendbuf, bytes, recvbuf,
					 c->rank == root ? bytes : 0);
	return rc;
}

/*
 * The reduce's one step into @x (a reduced send to @root, or the root's
 * n - 1 reduced receives into @recvbuf, in the order of the ranks after
 * it), and the root's copy into @cp (0 bytes in place, or not the root),
 * which lands before the first reduction into it. The number of transfers.
 */
static int hlcoll_reduce_step(const struct hlcoll_comm *c, uint64_t sendbuf,
			      uint64_t recvbuf, uint64_t bytes, int root,
			      struct hlcoll_xfer *x, struct hlcoll_span *cp)
{
	int n = c->nranks, k;

	*cp = (struct hlcoll_span){ sendbuf, recvbuf, 0 };
	if (c->rank != root) {
		x[0] = (struct hlcoll_xfer){
			.peer = root, .send = true, .reduce = true,
			.va = sendbuf, .bytes = bytes,
		};
		return 1;
	}
	for (k = 1; k < n; k++)
		x[k - 1] = (struct hlcoll_xfer){
			.peer = (root + k) % n, .reduce = true, .va = recvbuf,
			.bytes = bytes,
		};
	cp->len = sendbuf != recvbuf ? bytes : 0;
	return n - 1;
}

int hlcoll_reduce_enqueue(struct hlcoll_comm *c, uint64_t sendbuf,
			  uint64_t recvbuf, uint64_t count,
			  enum hlcoll_dtype dtype, enum hlcoll_redop op,
			  int root, const struct hlcoll_stream *stream,
			  uint64_t *seq)
{
	static const struct hlcoll_stream none;
	struct hlcoll_xfer x[HLCOLL_MAX_RANKS];
	struct hlcoll_span cp;
	int nx, rc;

	rc = hlcoll_enqueue_check(c, stream, count);
	if (!rc)
		rc = hlcoll_reduce_check(c, sendbuf, recvbuf, count, dtype, op,
					 root);
	if (rc)
		return rc;
	if (!hlcoll_chains(c, op) ||
	    !hlcoll_root_step_fits(c, count * hlcoll_dtype_size(dtype), true))
		return -EOPNOTSUPP;
	/* One step: its transfers all at x[0 .. nx - 1] */
	nx = hlcoll_reduce_step(c, sendbuf, recvbuf,
				count * hlcoll_dtype_size(dtype), root, x, &cp);
	rc = hlcoll_chain_submit(c, x, &nx, 1, 0, dtype, op, &cp, cp.len ? 1 : 0,
				 stream ? stream : &none);
	return hlcoll_enqueued(c, rc, "reduce", count, "elements", seq);
}

/*
 * hlcoll_reduce_enqueue() with no ordering points and hlcoll_stream_sync()
 * where it chains; else the copy, then the step in as many submissions
 * as it takes, then an average's division
 */
int hlcoll_reduce(struct hlcoll_comm *c, uint64_t sendbuf, uint64_t recvbuf,
		  uint64_t count, enum hlcoll_dtype dtype, enum hlcoll_redop op,
		  int root)
{
	static const struct hlcoll_stream none;
	struct hlcoll_xfer x[HLCOLL_MAX_RANKS];
	struct hlcoll_span cp;
	int nx, rc;

	rc = hlcoll_reduce_check(c, sendbuf, recvbuf, count, dtype, op, root);
	if (rc || !count)
		return rc;
	nx = hlcoll_reduce_step(c, sendbuf, recvbuf,
				count * hlcoll_dtype_size(dtype), root, x, &cp);
	if (hlcoll_chains(c, op)) {
		rc = hlcoll_chain_submit(c, x, &nx, 1, 0, dtype, op, &cp,
					 cp.len ? 1 : 0, &none);
		if (!rc)
			return hlcoll_stream_sync(c);
		if (rc != 1 && rc != -EMSGSIZE)
			return rc;
	}
	if (c->rank != root)
		return hlcoll_step(c, x, nx, dtype, op, 0, 0, 0);
	/* The copy must land before the first reduction into it */
	if (cp.len) {
		rc = hlcoll_copy(c, cp.src, cp.dst, cp.len);
		if (rc)
			return rc;
	}
	rc = hlcoll_step(c, x, nx, dtype, op, 0, 0, 0);
	if (rc)
		return rc;
	return hlcoll_finish(c, op, recvbuf, recvbuf, count, dtype);
}

/* hlcoll_alltoall()'s and its enqueue's checks (out of place only) */
static int hlcoll_alltoall_check(struct hlcoll_comm *c, uint64_t sendbuf,
				 uint64_t recvbuf, uint64_t count,
				 enum hlcoll_dtype dtype)
{
	uint64_t bytes;
	int rc;

	rc = hlcoll_check_comm(c);
	if (!rc)
		rc = hlcoll_check_type(dtype);
	if (!rc)
		rc = hlcoll_check_buf(sendbuf, count, c->nranks, dtype);
	if (!rc)
		rc = hlcoll_check_buf(recvbuf, count, c->nranks, dtype);
	if (rc || !count)
		return rc;
	bytes = count * hlcoll_dtype_size(dtype);
	if (hlcoll_overlap(sendbuf, bytes * c->nranks, recvbuf,
			   bytes * c->nranks))
		return -EINVAL;
	return hlcoll_check_mapped(c, dtype, sendbuf, bytes * c->nranks,
				   recvbuf, bytes * c->nranks);
}

/*
 * The all-to-all's one step into @x (a send of block k to rank r + k and
 * a receive from rank r - k into block r - k, k = 1 .. n - 1), and the
 * copy of this rank's own block into @cp. The number of transfers.
 */
static int hlcoll_alltoall_step(const struct hlcoll_comm *c, uint64_t sendbuf,
				uint64_t recvbuf, uint64_t bytes,
				struct hlcoll_xfer *x, struct hlcoll_span *cp)
{
	int n = c->nranks, r = c->rank, k, to, from;

	*cp = (struct hlcoll_span){
		sendbuf + (uint64_t)r * bytes, recvbuf + (uint64_t)r * bytes,
		bytes,
	};
	for (k = 1; k < n; k++) {
		to = (r + k) % n;
		from = (r + n - k) % n;
		x[2 * (k - 1)] = (struct hlcoll_xfer){
			.peer = to, .send = true,
			.va = sendbuf + (uint64_t)to * bytes, .bytes = bytes,
		};
		x[2 * (k - 1) + 1] = (struct hlcoll_xfer){
			.peer = from, .va = recvbuf + (uint64_t)from * bytes,
			.bytes = bytes,
		};
	}
	return 2 * (n - 1);
}

int hlcoll_alltoall_enqueue(struct hlcoll_comm *c, uint64_t sendbuf,
			    uint64_t recvbuf, uint64_t count,
			    enum hlcoll_dtype dtype,
			    const struct hlcoll_stream *stream, uint64_t *seq)
{
	static const struct hlcoll_stream none;
	struct hlcoll_xfer x[2 * HLCOLL_MAX_RANKS];
	struct hlcoll_span cp;
	int nx, rc;

	rc = hlcoll_enqueue_check(c, stream, count);
	if (!rc)
		rc = hlcoll_alltoall_check(c, sendbuf, recvbuf, count, dtype);
	if (rc)
		return rc;
	if (!hlcoll_chains(c, HLCOLL_SUM))
		return -EOPNOTSUPP;
	/* One step: its transfers all at x[0 .. nx - 1] */
	nx = hlcoll_alltoall_step(c, sendbuf, recvbuf,
				  count * hlcoll_dtype_size(dtype), x, &cp);
	rc = hlcoll_chain_submit(c, x, &nx, 1, 0, dtype, HLCOLL_SUM, &cp, 1,
				 stream ? stream : &none);
	/* One step that does not fit one submission: as too many chunks */
	if (rc == -EMSGSIZE)
		rc = 1;
	return hlcoll_enqueued(c, rc, "all-to-all", count, "elements", seq);
}

/*
 * hlcoll_alltoall_enqueue() with no ordering points and
 * hlcoll_stream_sync() where it chains; else the copy and the step in as
 * many submissions as it takes (one rank: the copy alone)
 */
int hlcoll_alltoall(struct hlcoll_comm *c, uint64_t sendbuf, uint64_t recvbuf,
		    uint64_t count, enum hlcoll_dtype dtype)
{
	static const struct hlcoll_stream none;
	struct hlcoll_xfer x[2 * HLCOLL_MAX_RANKS];
	struct hlcoll_span cp;
	int nx, rc;

	rc = hlcoll_alltoall_check(c, sendbuf, recvbuf, count, dtype);
	if (rc || !count)
		return rc;
	nx = hlcoll_alltoall_step(c, sendbuf, recvbuf,
				  count * hlcoll_dtype_size(dtype), x, &cp);
	if (hlcoll_chains(c, HLCOLL_SUM)) {
		rc = hlcoll_chain_submit(c, x, &nx, 1, 0, dtype, HLCOLL_SUM, &cp, 1,
					 &none);
		if (!rc)
			return hlcoll_stream_sync(c);
		if (rc != 1 && rc != -EMSGSIZE)
			return rc;
	}
	return hlcoll_step(c, x, nx, dtype, HLCOLL_SUM, cp.src, cp.dst,
			   cp.len);
}

/* ------------------------------------------------------------------------
 * Point to point and groups
 */

static __thread int hlcoll_group_depth;
static __thread struct hlcoll_comm *hlcoll_group_head;

/* Stage of a transfer: the distance to its peer in its direction */
static int hlcoll_stage(const struct hlcoll_comm *c,
			const struct hlcoll_xfer *x)
{
	return x->send ? hlcoll_mod(x->peer - c->rank, c->nranks) :
			 hlcoll_mod(c->rank - x->peer, c->nranks);
}

/*
 * The queued calls of @c as one step: the transfers to and from other
 * ranks into @sorted (stage order, program order within one; *@m of
 * them), the sends to this rank itself into @self_send and the matching
 * receives from it into @self_recv (*@ns pairs). 0, or -EINVAL when the
 * sends to itself do not match the receives from itself.
 */
static int hlcoll_group_sort(const struct hlcoll_comm *c,
			     struct hlcoll_xfer *sorted, int *m,
			     struct hlcoll_xfer *self_send,
			     struct hlcoll_xfer *self_recv, int *ns)
{
	int i, s, nr = 0;

	*m = 0;
	*ns = 0;
	for (i = 0; i < c->ngroup; i++) {
		if (c->group[i].peer != c->rank)
			continue;
		if (c->group[i].send)
			self_send[(*ns)++] = c->group[i];
		else
			self_recv[nr++] = c->group[i];
	}
	if (*ns != nr)
		return -EINVAL;
	for (i = 0; i < nr; i++)
		if (self_send[i].bytes != self_recv[i].bytes)
			return -EINVAL;
	for (s = 1; s < c->nranks; s++)
		for (i = 0; i < c->ngroup; i++)
			if (c->group[i].peer != c->rank &&
			    hlcoll_stage(c, &c->group[i]) == s)
				sorted[(*m)++] = c->group[i];
	return 0;
}

/* Run the queued calls of @c: stage order, program order within one */
static int hlcoll_group_run(struct hlcoll_comm *c)
{
	struct hlcoll_xfer sorted[HLCOLL_MAX_GROUP_OPS];
	struct hlcoll_xfer self_send[HLCOLL_MAX_GROUP_OPS];
	struct hlcoll_xfer self_recv[HLCOLL_MAX_GROUP_OPS];
	int i, m, ns, rc;

	rc = hlcoll_group_sort(c, sorted, &m, self_send, self_recv, &ns);
	if (rc)
		return rc;
	rc = m ? hlcoll_step(c, sorted, m, HLCOLL_FLOAT32, HLCOLL_SUM, 0, 0,
			     0) : 0;
	for (i = 0; !rc && i < ns; i++)
		rc = hlcoll_copy(c, self_send[i].va, self_recv[i].va,
				 self_send[i].bytes);
	return rc;
}

int hlcoll_group_start(void)
{
	hlcoll_group_depth++;
	return 0;
}

int hlcoll_group_end(void)
{
	struct hlcoll_comm *c, *next;
	int rc = 0, rc2;

	if (hlcoll_group_depth <= 0)
		return -EINVAL;
	if (--hlcoll_group_depth)
		return 0;
	for (c = hlcoll_group_head; c; c = next) {
		next = c->group_next;
		rc2 = c->group_error;
		/*
		 * As every call on @c: a pending stream collective first (it
		 * uses the CBs); a failed communicator runs nothing
		 */
		if (!rc2 && c->ngroup)
			rc2 = hlcoll_check_comm(c);
		if (!rc2)
			rc2 = hlcoll_group_run(c);
		if (rc2 && !rc)
			rc = rc2;
		c->ngroup = 0;
		c->group_error = 0;
		c->group_next = NULL;
	}
	hlcoll_group_head = NULL;
	return rc;
}

/* The group is over: every communicator of it emptied */
static void hlcoll_group_clear(void)
{
	struct hlcoll_comm *c, *next;

	for (c = hlcoll_group_head; c; c = next) {
		next = c->group_next;
		c->ngroup = 0;
		c->group_error = 0;
		c->group_next = NULL;
	}
	hlcoll_group_head = NULL;
}

/*
 * The group's calls (on @c alone) as the all-to-all's chain: the copies
 * to itself, then one step of the other transfers in hlcoll_group_run()'s
 * order, with @stream's head and tail. Refused before anything ran: the
 * group stays open as it was (hlcoll_group_end() can still run it).
 */
int hlcoll_group_end_enqueue(struct hlcoll_comm *c,
			     const struct hlcoll_stream *stream, uint64_t *seq)
{
	static const struct hlcoll_stream none;
	struct hlcoll_xfer sorted[HLCOLL_MAX_GROUP_OPS];
	struct hlcoll_xfer self_send[HLCOLL_MAX_GROUP_OPS];
	struct hlcoll_xfer self_recv[HLCOLL_MAX_GROUP_OPS];
	struct hlcoll_xfer x[HLCOLL_MAX_GROUP_OPS];
	struct hlcoll_span cp[HLCOLL_MAX_GROUP_OPS];
	struct hlcoll_comm *i;
	int k, m, ns, nx = 0, ncp = 0, rc;
	uint64_t bytes = 0;

	rc = hlcoll_enqueue_check(c, stream, 1);
	if (!rc)
		rc = hlcoll_check_comm(c);
	if (rc)
		return rc;
	/* The outermost end, of a group of calls on @c only */
	if (hlcoll_group_depth != 1)
		return -EINVAL;
	for (i = hlcoll_group_head; i; i = i->group_next)
		if (i != c && (i->ngroup || i->group_error))
			return -EINVAL;
	if (c->group_error)
		return c->group_error;
	rc = hlcoll_group_sort(c, sorted, &m, self_send, self_recv, &ns);
	if (rc)
		return rc;
	/* The chain moves no empty transfer: both sides leave them out */
	for (k = 0; k < m; k++) {
		if (sorted[k].bytes)
			x[nx++] = sorted[k];
		bytes += sorted[k].bytes;
	}
	for (k = 0; k < ns; k++) {
		if (self_send[k].bytes)
			cp[ncp++] = (struct hlcoll_span){
				self_send[k].va, self_recv[k].va,
				self_send[k].bytes,
			};
		bytes += self_send[k].bytes;
	}
	if (!bytes)
		return -EINVAL;	/* nothing to enqueue, as a count of 0 */
	if (!hlcoll_chains(c, HLCOLL_SUM))
		return -EOPNOTSUPP;
	rc = hlcoll_chain_submit(c, x, &nx, nx ? 1 : 0, 0, HLCOLL_FLOAT32,
				 HLCOLL_SUM, cp, ncp, stream ? stream : &none);
	/* One step that does not fit one submission: as too many chunks */
	if (rc == -EMSGSIZE)
		rc = 1;
	if (rc != 1) {
		/* Submitted, or the communicator failed: the group is over */
		hlcoll_group_depth = 0;
		hlcoll_group_clear();
	}
	return hlcoll_enqueued(c, rc, "group", bytes, "bytes", seq);
}

static int hlcoll_p2p(struct hlcoll_comm *c, bool send, uint64_t buf,
		      uint64_t count, enum hlcoll_dtype dtype, int peer)
{
	struct hlcoll_xfer x;
	struct hlcoll_comm *i;
	int rc;

	rc = hlcoll_check_comm(c);
	if (!rc)
		rc = hlcoll_check_type(dtype);
	if (!rc && (peer < 0 || peer >= c->nranks))
		rc = -EINVAL;
	if (!rc)
		rc = hlcoll_check_buf(buf, count, 1, dtype);
	if (!rc)
		rc = hlcoll_check_mapped(c, dtype, buf,
					 count * hlcoll_dtype_size(dtype), 0, 0);
	if (rc)
		return rc;
	x = (struct hlcoll_xfer){
		.peer = peer, .send = send, .va = buf,
		.bytes = count * hlcoll_dtype_size(dtype),
	};
	if (!hlcoll_group_depth) {
		if (peer == c->rank)
			return -EINVAL;	/* would wait for itself */
		return hlcoll_step(c, &x, 1, dtype, HLCOLL_SUM, 0, 0, 0);
	}
	for (i = hlcoll_group_head; i && i != c; i = i->group_next)
		;
	if (!i) {
		c->group_next = hlcoll_group_head;
		hlcoll_group_head = c;
	}
	if (c->ngroup >= HLCOLL_MAX_GROUP_OPS) {
		c->group_error = -ENOSPC;
		return -ENOSPC;
	}
	c->group[c->ngroup++] = x;
	return 0;
}

int hlcoll_send(struct hlcoll_comm *c, uint64_t sendbuf, uint64_t count,
		enum hlcoll_dtype dtype, int peer)
{
	return hlcoll_p2p(c, true, sendbuf, count, dtype, peer);
}

int hlcoll_recv(struct hlcoll_comm *c, uint64_t recvbuf, uint64_t count,
		enum hlcoll_dtype dtype, int peer)
{
	return hlcoll_p2p(c, false, recvbuf, count, dtype, peer);
}

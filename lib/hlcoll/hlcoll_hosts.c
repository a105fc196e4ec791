// SPDX-License-Identifier: MIT
/*
 * hlcoll_hosts.c - libhlcoll across hosts: which rank is on which host,
 * the transport that uses the NIC fabric within a host and libfabric
 * (hlcoll_ofi.c) between hosts, and the hierarchical all-reduce,
 * all-gather and reduce-scatter.
 *
 * Topology: at init every rank publishes its host key through the
 * bootstrap: HLCOLL_HOST_ID when set, else its hostname and the kernel's
 * boot id (/proc/sys/kernel/random/boot_id, new at every boot of every
 * machine or VM). Ranks with equal keys share a host; hosts are numbered
 * by their lowest rank. One host: the NIC transport alone, as before.
 * More: hlcoll_hosts_ops, whose step gives the transfers to peers on this
 * host to the NIC transport and the others to libfabric.
 *
 * All-reduce, all-gather and reduce-scatter with HLCOLL_ALGO unset (or
 * "auto"): hierarchical (hlcoll_hier_init()) when there are several hosts
 * with the same number L of ranks each and at least one host has two
 * ranks or more; else the flat ring of hlcoll.c. HLCOLL_ALGO=ring forces
 * the flat ring, HLCOLL_ALGO=hier the hierarchical one (falling back to
 * the ring where it cannot run: one host, unequal hosts); rank 0's value at
 * init holds for the communicator. Each algorithm says what it does above
 * its function.
 */
#include "hlcoll_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HLCOLL_HOST_KEY	128

/* @key: equal on ranks of one host; @algo: this rank's HLCOLL_ALGO */
struct hlcoll_host_key {
	char key[HLCOLL_HOST_KEY];
	int32_t algo;
};

/* HLCOLL_ALGO: 0 auto, 1 ring, 2 hierarchical */
static int hlcoll_algo_env(void)
{
	const char *s = getenv("HLCOLL_ALGO");

	if (!s || !*s || !strcmp(s, "auto"))
		return 0;
	if (!strcmp(s, "ring"))
		return 1;
	if (!strcmp(s, "hier"))
		return 2;
	return 0;
}

static void hlcoll_host_key(struct hlcoll_host_key *k)
{
	const char *env = getenv("HLCOLL_HOST_ID");
	char host[64] = "", boot[40] = "";
	FILE *f;

	memset(k, 0, sizeof(*k));
	k->algo = hlcoll_algo_env();
	if (env && *env) {
		snprintf(k->key, sizeof(k->key), "id:%s", env);
		return;
	}
	gethostname(host, sizeof(host) - 1);
	f = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (f) {
		if (!fgets(boot, sizeof(boot), f))
			boot[0] = 0;
		fclose(f);
	}
	boot[strcspn(boot, "\n")] = 0;
	snprintf(k->key, sizeof(k->key), "%s/%s", host, boot);
}

int hlcoll_hosts_init(struct hlcoll_comm *c)
{
	struct hlcoll_host_key *all, mine;
	int n = c->nranks, r, q, rc;

	all = calloc(n, sizeof(*all));
	if (!all)
		return -ENOMEM;
	hlcoll_host_key(&mine);
	rc = hlcoll_boot_allgather(&c->boot, &mine, all, sizeof(mine));
	if (rc)
		goto out;
	c->nhosts = 0;
	for (r = 0; r < n; r++) {
		for (q = 0; q < r; q++)
			if (!memcmp(all[q].key, all[r].key, sizeof(all[r].key)))
				break;
		c->host[r] = q < r ? c->host[q] : c->nhosts++;
	}
	/*
	 * Rank 0's HLCOLL_ALGO holds for the communicator (as its
	 * HLCOLL_NIC_WRITE does): ranks that each read their own could run
	 * different algorithms, whose transfers never meet (a stall until
	 * timeout_s)
	 */
	c->algo = all[0].algo;
	if (mine.algo != c->algo)
		hlcoll_warn(c->rank, "HLCOLL_ALGO differs from rank 0's: rank 0's holds");
	c->ops = c->nhosts > 1 ? &hlcoll_hosts_ops : &hlcoll_nic_ops;
	hlcoll_info(c->rank, "%d ranks on %d hosts, this one is host %d (%s)",
		    n, c->nhosts, c->host[c->rank], mine.key);
out:
	free(all);
	return rc;
}

/* ------------------------------------------------------------------------
 * The transport: NIC within the host, libfabric between hosts
 */

static int hlcoll_hosts_connect(struct hlcoll_comm *c)
{
	int rc;

	rc = hlcoll_nic_ops.connect(c);
	if (rc)
		return rc;
	return hlcoll_ofi_connect(c);
}

static uint64_t hlcoll_hosts_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/*
 * The NIC part first, then the libfabric part. No cycle of waits: a NIC
 * part only waits for NIC parts of ranks of this host, which come first in
 * their steps too; the libfabric part of a step only waits for libfabric
 * parts of the same step, each of which follows a NIC part that ends.
 */
static int hlcoll_hosts_step(struct hlcoll_comm *c,
			     const struct hlcoll_xfer *x, int n,
			     enum hlcoll_dtype dtype, enum hlcoll_redop op,
			     uint64_t copy_src, uint64_t copy_dst,
			     uint64_t copy_len)
{
	struct hlcoll_xfer local[HLCOLL_MAX_GROUP_OPS];
	struct hlcoll_xfer remote[HLCOLL_MAX_GROUP_OPS];
	int i, j, nl = 0, nr = 0, nred = 0, me = c->host[c->rank], rc = 0;
	uint64_t t0;

	/*
	 * Several receives reducing into one buffer (the root of a reduce):
	 * one transfer after the other, in list order, as the NIC transport
	 * orders them (libfabric's chunks land in any order). Reducing
	 * receives into disjoint blocks (the hierarchical reduce-scatter's)
	 * run together.
	 */
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			nred += !x[i].send && x[i].reduce && !x[j].send &&
				x[j].reduce && x[i].va < x[j].va + x[j].bytes &&
				x[j].va < x[i].va + x[i].bytes;
	if (nred) {
		for (i = 0; !rc && i < n; i++) {
			rc = hlcoll_hosts_step(c, &x[i], 1, dtype, op, copy_src,
					       copy_dst, copy_len);
			copy_len = 0;
		}
		return rc;
	}

	for (i = 0; i < n && i < HLCOLL_MAX_GROUP_OPS; i++) {
		if (c->host[x[i].peer] == me)
			local[nl++] = x[i];
		else
			remote[nr++] = x[i];
	}
	if (nl || copy_len) {
		t0 = hlcoll_hosts_us();
		rc = hlcoll_nic_ops.step(c, local, nl, dtype, op, copy_src,
					 copy_dst, copy_len);
		hlcoll_trace(c->rank, "NIC step: %d transfers, %" PRIu64 " us",
			     nl, hlcoll_hosts_us() - t0);
	}
	if (!rc && nr)
		rc = hlcoll_ofi_step(c, remote, nr, dtype, op);
	return rc;
}

static void hlcoll_hosts_abort(struct hlcoll_comm *c)
{
	hlcoll_nic_ops.abort(c);
	hlcoll_ofi_abort(c);
}

static void hlcoll_hosts_fini(struct hlcoll_comm *c)
{
	hlcoll_ofi_fini(c);
	hlcoll_nic_ops.fini(c);
}

const struct hlcoll_transport_ops hlcoll_hosts_ops = {
	.name = "nic+ofi",
	.connect = hlcoll_hosts_connect,
	.step = hlcoll_hosts_step,
	.abort = hlcoll_hosts_abort,
	.fini = hlcoll_hosts_fini,
};

/* ------------------------------------------------------------------------
 * Hierarchical collectives
 */

/* @k modulo @n, in 0 .. @n - 1 */
static int hlcoll_hmod(int k, int n)
{
	return (k % n + n) % n;
}

/*
 * The topology as the hierarchical collectives see it: @nh hosts of @nl
 * ranks each; @at[h * nl + j] is the rank of local index j (j-th in rank
 * order) on host h. This rank is local index @li on its host and has
 * cross index @xi (its host's number) among the ranks of local index @li.
 * @local: this host's ranks; @cross: the ranks of local index @li, in host
 * order.
 */
struct hlcoll_hier {
	int nh, nl, li, xi;
	int at[HLCOLL_MAX_RANKS];
	int local[HLCOLL_MAX_RANKS];
	int cross[HLCOLL_MAX_RANKS];
};

/*
 * The hierarchical passes within a host run: always, but under the tests'
 * planted bug (hlcoll_test.h; only a program that defines the symbol)
 */
static bool hlcoll_hier_local(const struct hlcoll_hier *t)
{
	return t->nl > 1 && !(&hlcoll_test_hier_inject &&
			      hlcoll_test_hier_inject ==
			      HLCOLL_TEST_HIER_NO_LOCAL);
}

/*
 * Fill @t; false when the flat ring runs instead: HLCOLL_ALGO=ring, one
 * host, hosts of unequal rank counts, or (unless HLCOLL_ALGO=hier) one
 * rank per host. @what names the collective in the trace.
 */
static bool hlcoll_hier_init(const struct hlcoll_comm *c,
			     struct hlcoll_hier *t, const char *what)
{
	int size[HLCOLL_MAX_RANKS] = { 0 };
	int n = c->nranks, r, h, algo = c->algo;

	if (algo == 1 || c->nhosts <= 1)
		return false;
	for (r = 0; r < n; r++)
		size[c->host[r]]++;
	for (h = 1; h < c->nhosts; h++)
		if (size[h] != size[0])
			return false;
	if (size[0] < 2 && algo != 2)
		return false;
	t->nh = c->nhosts;
	t->nl = size[0];
	memset(size, 0, sizeof(size));
	for (r = 0; r < n; r++) {
		h = c->host[r];
		if (r == c->rank) {
			t->li = size[h];
			t->xi = h;
		}
		t->at[h * t->nl + size[h]++] = r;
	}
	for (r = 0; r < t->nl; r++)
		t->local[r] = t->at[t->xi * t->nl + r];
	for (h = 0; h < t->nh; h++)
		t->cross[h] = t->at[h * t->nl + t->li];
	hlcoll_trace(c->rank, "hierarchical %s: %d hosts of %d ranks", what,
		     t->nh, t->nl);
	return true;
}

/*
 * One ring pass among the @n ranks @g (this rank is @g[@me]) over @n
 * segments of the @count elements at @buf: at step s, send segment
 * @first - s to the next and receive @first - s - 1 from the previous.
 */
static int hlcoll_group_pass(struct hlcoll_comm *c, const int *g, int n,
			     int me, uint64_t buf, uint64_t count, int first,
			     bool reduce, enum hlcoll_dtype dtype,
			     enum hlcoll_redop op)
{
	uint64_t es = hlcoll_dtype_size(dtype), fs, fr, ls, lr;
	struct hlcoll_xfer x[2];
	int s, rc;

	for (s = 0; s < n - 1; s++) {
		ls = hlcoll_segment(count, n, hlcoll_hmod(first - s, n), &fs);
		lr = hlcoll_segment(count, n, hlcoll_hmod(first - s - 1, n),
				    &fr);
		x[0] = (struct hlcoll_xfer){
			.peer = g[(me + 1) % n], .send = true,
			.reduce = reduce, .va = buf + fs * es,
			.bytes = ls * es,
		};
		x[1] = (struct hlcoll_xfer){
			.peer = g[(me + n - 1) % n], .reduce = reduce,
			.va = buf + fr * es, .bytes = lr * es,
		};
		rc = hlcoll_step(c, x, 2, dtype, op, 0, 0, 0);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * One ring pass among the @n ranks @g (this rank is @g[@me]) over @n
 * units of @nb blocks each: unit k is the blocks @unit[k * nb + i] of
 * @bytes each at @buf. At step s, send unit @first - s to the next rank
 * and receive unit @first - s - 1 from the previous one (reduced into
 * @buf when @reduce). @cp, when not NULL: the first step also copies it,
 * and its first send reads @cp->src (the all-gather's own block, sent
 * straight from the caller's buffer while it is copied; @nb is then 1).
 */
static int hlcoll_unit_pass(struct hlcoll_comm *c, const int *g, int n,
			    int me, const int *unit, int nb, uint64_t buf,
			    uint64_t bytes, int first, bool reduce,
			    enum hlcoll_dtype dtype, enum hlcoll_redop op,
			    const struct hlcoll_span *cp)
{
	struct hlcoll_xfer x[2 * HLCOLL_MAX_RANKS];
	int s, i, b, m, ks, kr, per = nb, rc;

	/*
	 * The NIC's one-sided path (HLCOLL_NIC_WRITE=1) takes one reduced
	 * transfer per peer and direction in a step (two would share its
	 * landing slots; it refuses them, -EINVAL): a reducing unit then
	 * moves block by block, one sub-step each, in the same order at both
	 * ends of every pair
	 */
	if (reduce && c->nic_write == HLCOLL_NIC_WRITE_ON)
		per = 1;
	for (s = 0; s < n - 1; s++) {
		ks = hlcoll_hmod(first - s, n);
		kr = hlcoll_hmod(first - s - 1, n);
		for (b = 0; b < nb; b += per) {
			for (m = 0, i = b; i < b + per; i++)
				x[m++] = (struct hlcoll_xfer){
					.peer = g[(me + 1) % n], .send = true,
					.reduce = reduce, .bytes = bytes,
					.va = buf + bytes *
					      (uint64_t)unit[ks * nb + i],
				};
			for (i = b; i < b + per; i++)
				x[m++] = (struct hlcoll_xfer){
					.peer = g[(me + n - 1) % n],
					.reduce = reduce, .bytes = bytes,
					.va = buf + bytes *
					      (uint64_t)unit[kr * nb + i],
				};
			if (s == 0 && b == 0 && cp) {
				x[0].va = cp->src;
				rc = hlcoll_step(c, x, m, dtype, op, cp->src,
						 cp->dst, cp->len);
			} else {
				rc = hlcoll_step(c, x, m, dtype, op, 0, 0, 0);
			}
			if (rc)
				return rc;
		}
	}
	if (n == 1 && cp && cp->len)
		return hlcoll_step(c, NULL, 0, dtype, op, cp->src, cp->dst,
				   cp->len);
	return 0;
}

/* @u[j * nh + h]: the blocks of local index j, one per host (units) */
static void hlcoll_hier_units(const struct hlcoll_hier *t, int *u)
{
	int h, j;

	for (j = 0; j < t->nl; j++)
		for (h = 0; h < t->nh; h++)
			u[j * t->nh + h] = t->at[h * t->nl + j];
}

/*
 * The hierarchical all-reduce, in place in the receive buffer:
 *   1. reduce-scatter within the host: a ring over the host's L ranks (in
 *	rank order) on L segments (hlcoll_segment()); local rank i ends with
 *	segment i + 1 (mod L), reduced over its host;
 *   2. all-reduce of that segment between the H ranks of local index i
 *	(one per host, in host order): a ring reduce-scatter then all-gather
 *	on H sub-segments, over libfabric;
 *   3. all-gather within the host: the ring of step 1, without reduction.
 * Each host sends S bytes per all-reduce of S bytes between hosts with
 * H = 2 (the flat ring: 1.5 S with 2 ranks per host).
 */
int hlcoll_hosts_allreduce(struct hlcoll_comm *c, uint64_t buf,
			   uint64_t count, enum hlcoll_dtype dtype,
			   enum hlcoll_redop op, int *rc)
{
	uint64_t es = hlcoll_dtype_size(dtype), seg, first;
	struct hlcoll_hier t;
	int l, li, me, nx;

	if (!hlcoll_hier_init(c, &t, "all-reduce"))
		return 0;
	l = t.nl;
	li = t.li;
	me = t.xi;
	nx = t.nh;

	*rc = 0;
	if (hlcoll_hier_local(&t))
		*rc = hlcoll_group_pass(c, t.local, l, li, buf, count, li, true,
					dtype, op);
	/* Local rank li now holds segment li + 1, reduced over the host */
	seg = hlcoll_segment(count, l, (li + 1) % l, &first);
	if (!*rc && seg)
		*rc = hlcoll_group_pass(c, t.cross, nx, me, buf + first * es,
					seg, me, true, dtype, op);
	/*
	 * An average: the part of the segment this rank now holds reduced
	 * over every host (part me + 1) is divided once, before it is
	 * gathered, as the flat ring does
	 */
	if (!*rc && seg) {
		uint64_t part, pfirst, at;

		part = hlcoll_segment(seg, nx, (me + 1) % nx, &pfirst);
		at = buf + (first + pfirst) * es;
		*rc = hlcoll_finish(c, op, at, at, part, dtype);
	}
	if (!*rc && seg)
		*rc = hlcoll_group_pass(c, t.cross, nx, me, buf + first * es,
					seg, me + 1, false, dtype, op);
	if (!*rc && hlcoll_hier_local(&t))
		*rc = hlcoll_group_pass(c, t.local, l, li, buf, count, li + 1,
					false, dtype, op);
	return 1;
}

/*
 * The hierarchical all-gather of @bytes per rank from @sendbuf into
 * @recvbuf (block r from rank r):
 *   1. all-gather between the H ranks of this rank's local index (one
 *	per host, host order), over libfabric: a ring on their H blocks,
 *	the first step sending straight from @sendbuf while it is copied
 *	to this rank's own block;
 *   2. all-gather within the host: a ring over the host's L ranks on L
 *	units, unit j being the H blocks of the ranks of local index j.
 * Each host sends (H - 1) / H of the S bytes gathered between hosts, each
 * byte once (the flat ring of 2 hosts of 2 ranks: 3/4 S on each of its
 * two links between them). No reduction: bit-equal to the ring's result.
 */
int hlcoll_hosts_allgather(struct hlcoll_comm *c, uint64_t sendbuf,
			   uint64_t recvbuf, uint64_t bytes, int *rc)
{
	int u[HLCOLL_MAX_RANKS];
	uint64_t mine = recvbuf + (uint64_t)c->rank * bytes;
	struct hlcoll_hier t;
	struct hlcoll_span cp;

	if (!hlcoll_hier_init(c, &t, "all-gather"))
		return 0;
	cp = (struct hlcoll_span){ sendbuf, mine, sendbuf != mine ? bytes : 0 };
	*rc = hlcoll_unit_pass(c, t.cross, t.nh, t.xi, t.cross, 1, recvbuf, bytes,
			       t.xi, false, HLCOLL_FLOAT32, HLCOLL_SUM, &cp);
	hlcoll_hier_units(&t, u);
	if (!*rc && hlcoll_hier_local(&t))
		*rc = hlcoll_unit_pass(c, t.local, t.nl, t.li, u, t.nh, recvbuf,
				       bytes, t.li, false, HLCOLL_FLOAT32,
				       HLCOLL_SUM, NULL);
	return 1;
}

/*
 * The hierarchical reduce-scatter, in place in @work (n blocks of
 * @count elements; rank r ends with block r reduced over every rank):
 *   1. reduce-scatter within the host: a ring over the host's L ranks on
 *	L units (as the all-gather's), local rank i ending with unit i
 *	reduced over its host;
 *   2. reduce-scatter between the H ranks of this rank's local index
 *	(over libfabric): a ring on their H blocks, ending with its own.
 * The average's division and the copy out are the caller's. Each host
 * sends (H - 1) / H of S between hosts. Its order of operations differs
 * from the flat ring's: float sums are reproducible, not bit-equal to
 * the ring's (int32 and min/max are).
 */
int hlcoll_hosts_reduce_scatter(struct hlcoll_comm *c, uint64_t work,
				uint64_t count, enum hlcoll_dtype dtype,
				enum hlcoll_redop op, int *rc)
{
	int u[HLCOLL_MAX_RANKS];
	uint64_t bytes = count * hlcoll_dtype_size(dtype);
	struct hlcoll_hier t;

	if (!hlcoll_hier_init(c, &t, "reduce-scatter"))
		return 0;
	hlcoll_hier_units(&t, u);
	*rc = 0;
	if (hlcoll_hier_local(&t))
		*rc = hlcoll_unit_pass(c, t.local, t.nl, t.li, u, t.nh, work,
				       bytes, t.li - 1, true, dtype, op, NULL);
	if (!*rc)
		*rc = hlcoll_unit_pass(c, t.cross, t.nh, t.xi, t.cross, 1, work,
				       bytes, t.xi - 1, true, dtype, op, NULL);
	return 1;
}

#ifndef HLCOLL_HAVE_OFI
/* Built without libfabric-dev: nothing connects hosts */
int hlcoll_ofi_connect(struct hlcoll_comm *c)
{
	hlcoll_warn(c->rank, "ranks on %d hosts, but libhlcoll was built without libfabric",
		    c->nhosts);
	return -EOPNOTSUPP;
}

int hlcoll_ofi_step(struct hlcoll_comm *c, const struct hlcoll_xfer *x, int n,
		    enum hlcoll_dtype dtype, enum hlcoll_redop op)
{
	(void)c, (void)x, (void)n, (void)dtype, (void)op;
	return -EOPNOTSUPP;
}

void hlcoll_ofi_abort(struct hlcoll_comm *c)
{
	(void)c;
}

void hlcoll_ofi_fini(struct hlcoll_comm *c)
{
	(void)c;
}
#endif

// SPDX-License-Identifier: MIT
/*
 * hl-coll-bench - benchmark of libhlcoll's collectives in the manner of
 * nccl-tests: one process per device, for each collective and size the
 * time of one call (the slowest rank's mean over the iterations), the
 * algorithm bandwidth (size / time) and the bus bandwidth (nccl-tests'
 * factors: all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all
 * (n-1)/n; broadcast, reduce, send/recv 1), out of place then in place,
 * and #wrong: the number of elements that differ, bit for bit, from the
 * host's computation (hlcoll_data.h) after the timed iterations.
 *
 * Two ways to start it:
 *   hl-coll-bench [-g N]     forks one rank per device (hlcoll_launch());
 *   mpirun -np N hl-coll-bench-mpi
 *                            (built from this file with mpicc when MPI is
 *                            installed): rank 0 makes the unique id and
 *                            MPI_Bcast()s it; rank r takes the device of
 *                            index OMPI_COMM_WORLD_LOCAL_RANK (or -d LIST).
 *
 * It prints numbers and asserts nothing about them; the exit status is 1
 * when a value was wrong or a collective failed, 2 for bad usage.
 *
 * HLCOLL_BENCH_CORRUPT=R (a negative control of the check): rank R's input
 * has its first and last element changed (bit 20 flipped; 16-bit types:
 * bit 8) after the host computed what to expect, so that every collective
 * of int32 sums must then report #wrong > 0 and the exit status be 1.
 *
 * -O (overlap.c): a compute job on the device's own queues and a
 * stream-ordered all-reduce one after the other against at once, every
 * value of both checked; HLCOLL_BENCH_NOFENCE=1 is its order's negative
 * control.
 */
#include "hlcoll.h"
#include "hlcoll_data.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef HLCOLL_BENCH_MPI
#include <mpi.h>
#endif

#include "hlthunk.h"
#include "../common/hltools.h"

#include "bench.h"

const char * const coll_names[] = {
	"allreduce", "allgather", "reducescatter", "broadcast", "reduce",
	"alltoall", "sendrecv",
};

const char * const type_names[] = {
	"float", "bfloat16", "half", "int32",
};

const char * const op_names[] = {
	"sum", "prod", "min", "max", "avg",
};

/* What each rank reports for one measurement, exchanged by an all-gather */
struct bench_result {
	double time_us;
	uint64_t wrong;
	int32_t rc;
	uint32_t pad;
};

double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* nccl-tests: "size" is the bytes of the largest buffer of a rank */
static uint64_t coll_count(enum coll c, uint64_t size, size_t es, int n)
{
	uint64_t elems = size / es;

	return c == C_ALLGATHER || c == C_REDUCE_SCATTER || c == C_ALLTOALL ?
	       elems / n : elems;
}

static uint64_t send_elems(enum coll c, uint64_t count, int n)
{
	return c == C_REDUCE_SCATTER || c == C_ALLTOALL ? count * n : count;
}

static uint64_t recv_elems(enum coll c, uint64_t count, int n)
{
	return c == C_ALLGATHER || c == C_ALLTOALL ? count * n : count;
}

static double busbw_factor(enum coll c, int n)
{
	switch (c) {
	case C_ALLREDUCE:
		return 2.0 * (n - 1) / n;
	case C_ALLGATHER:
	case C_REDUCE_SCATTER:
	case C_ALLTOALL:
		return (double)(n - 1) / n;
	default:
		return 1;
	}
}

/* Element @i of rank @rank's result; false: nothing to check there */
bool expected(const struct bench *b, enum coll c, int n, int rank,
	      uint64_t count, uint64_t i, uint32_t *want)
{
	enum hlcoll_dtype t = b->dtype;

	switch (c) {
	case C_ALLREDUCE:
		*want = hlcoll_data_reduce_from(b->seed, n,
						hlcoll_data_segment_of(count, n, i),
						i, t, b->op);
		return true;
	case C_ALLGATHER:
		*want = hlcoll_data_elem(b->seed, (int)(i / count), i % count, t);
		return true;
	case C_REDUCE_SCATTER:
		*want = hlcoll_data_reduce_from(b->seed, n, (rank + 1) % n,
						(uint64_t)rank * count + i, t,
						b->op);
		return true;
	case C_BROADCAST:
		*want = hlcoll_data_elem(b->seed, b->root, i, t);
		return true;
	case C_REDUCE:
		*want = hlcoll_data_reduce_from(b->seed, n, b->root, i, t,
						b->op);
		return rank == b->root;
	case C_ALLTOALL:
		*want = hlcoll_data_elem(b->seed, (int)(i / count),
					 (uint64_t)rank * count + i % count, t);
		return true;
	case C_SENDRECV:
		/* Ring: from the previous rank */
		*want = hlcoll_data_elem(b->seed, (rank + n - 1) % n, i, t);
		return true;
	default:
		return false;
	}
}

static bool has_in_place(enum coll c)
{
	return c != C_ALLTOALL && c != C_SENDRECV;
}

static int run_coll(struct hlcoll_comm *comm, const struct bench *b,
		    enum coll c, uint64_t sendbuf, uint64_t recvbuf,
		    uint64_t count)
{
	int r = hlcoll_comm_rank(comm), n = hlcoll_comm_size(comm), rc;

	switch (c) {
	case C_ALLREDUCE:
		return hlcoll_allreduce(comm, sendbuf, recvbuf, count, b->dtype,
					b->op);
	case C_ALLGATHER:
		return hlcoll_allgather(comm, sendbuf, recvbuf, count,
					b->dtype);
	case C_REDUCE_SCATTER:
		return hlcoll_reduce_scatter(comm, sendbuf, recvbuf, count,
					     b->dtype, b->op);
	case C_BROADCAST:
		return hlcoll_broadcast(comm, sendbuf, recvbuf, count, b->dtype,
					b->root);
	case C_REDUCE:
		return hlcoll_reduce(comm, sendbuf, recvbuf, count, b->dtype,
				     b->op, b->root);
	case C_ALLTOALL:
		return hlcoll_alltoall(comm, sendbuf, recvbuf, count, b->dtype);
	case C_SENDRECV:
		hlcoll_group_start();
		hlcoll_send(comm, sendbuf, count, b->dtype, (r + 1) % n);
		rc = hlcoll_recv(comm, recvbuf, count, b->dtype,
				 (r + n - 1) % n);
		return hlcoll_group_end() ?: rc;
	default:
		return -EINVAL;
	}
}

/*
 * Rank 0 tells "perf record --control fifo:FIFO" (started with -D -1, its
 * events disabled) to enable or disable them: the profile then holds only
 * the timed iterations of every size. The FIFO is opened non-blocking:
 * without a reader the command is dropped.
 */
static void perf_ctl(const struct bench *b, int rank, const char *cmd)
{
	ssize_t len = (ssize_t)strlen(cmd);
	int fd;

	if (!b->perf_ctl || rank)
		return;
	fd = open(b->perf_ctl, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, cmd, len) != len)
		fprintf(stderr, "hl-coll-bench: %s: short write\n", b->perf_ctl);
	close(fd);
}

void elem_put(void *p, size_t es, uint64_t i, uint32_t v)
{
	if (es == 2)
		((uint16_t *)p)[i] = (uint16_t)v;
	else
		((uint32_t *)p)[i] = v;
}

uint32_t elem_get(const void *p, size_t es, uint64_t i)
{
	return es == 2 ? ((const uint16_t *)p)[i] : ((const uint32_t *)p)[i];
}

/*
 * One measurement: @c on @count elements, in place or not; this rank's
 * result in @res. The input is reloaded before every call (in place, a
 * call changes it), outside the timed part only for the check: the timing
 * includes the reload copies in place (a few % at the sizes here). The
 * check starts only once every rank stopped its clock: a rank done early
 * (a broadcast's first receiver) would otherwise copy out and check its
 * result on the CPUs that the slower ranks' engines run on, inside their
 * timing (a 4-rank 64 MiB broadcast timed 1.5-1.9x its time).
 */
static void measure(struct hlcoll_comm *comm, const struct bench *b,
		    enum coll c, struct hlcoll_bufs *bufs, uint64_t count,
		    bool in_place, struct bench_result *res)
{
	int rank = hlcoll_comm_rank(comm), n = hlcoll_comm_size(comm);
	size_t es = hlcoll_dtype_size(b->dtype);
	uint64_t ns = send_elems(c, count, n), nr = recv_elems(c, count, n);
	uint64_t sendbuf = bufs->send_va, recvbuf = bufs->recv_va, i;
	uint8_t *st = (uint8_t *)bufs->stage;
	double t0 = 0;
	int it, rc;

	memset(res, 0, sizeof(*res));
	if (in_place) {
		sendbuf = bufs->recv_va;
		if (c == C_ALLGATHER)
			sendbuf = bufs->recv_va + (uint64_t)rank * count * es;
		if (c == C_REDUCE_SCATTER)
			recvbuf = bufs->recv_va + (uint64_t)rank * count * es;
	}

	/* The input, in the staging buffer's second half */
	for (i = 0; i < ns; i++)
		elem_put(st + nr * es, es, i,
			 hlcoll_data_elem(b->seed, rank, i, b->dtype));
	if (rank == b->corrupt && ns) {
		uint32_t flip = es == 2 ? 1u << 8 : 1u << 20;

		elem_put(st + nr * es, es, 0,
			 elem_get(st + nr * es, es, 0) ^ flip);
		elem_put(st + nr * es, es, ns - 1,
			 elem_get(st + nr * es, es, ns - 1) ^ flip);
	}
	rc = hlcoll_memcpy(comm, sendbuf, bufs->stage_va + nr * es, ns * es);

	for (it = 0; !rc && it < b->warmup + b->iters; it++) {
		if (it == b->warmup) {
			rc = hlcoll_barrier(comm);
			perf_ctl(b, rank, "enable\n");
			t0 = now_us();
			if (rc)
				break;
		}
		if (in_place && it)
			rc = hlcoll_memcpy(comm, sendbuf,
					   bufs->stage_va + nr * es, ns * es);
		if (!rc)
			rc = run_coll(comm, b, c, sendbuf, recvbuf, count);
	}
	res->time_us = b->iters ? (now_us() - t0) / b->iters : 0;
	perf_ctl(b, rank, "disable\n");
	res->rc = rc;
	if (rc || !b->check)
		return;
	res->rc = hlcoll_barrier(comm);
	if (res->rc)
		return;

	res->rc = hlcoll_memcpy(comm, bufs->stage_va, recvbuf, nr * es);
	for (i = 0; !res->rc && i < nr; i++) {
		uint32_t want, got = elem_get(st, es, i);

		if (!expected(b, c, n, rank, count, i, &want))
			break;
		if (es == 2)
			want &= 0xffff;
		if (got == want)
			continue;
		if (!res->wrong)
			fprintf(stderr,
				"rank %d: %s of %" PRIu64 ": element %" PRIu64 " is 0x%08x, expected 0x%08x\n",
				rank, coll_names[c], count, i, got, want);
		res->wrong++;
	}
}

/*
 * Every rank's results, through the library itself: an all-gather of the
 * struct as int32 words from the mapped host staging buffer's tail
 */
static int gather_results(struct hlcoll_comm *comm, struct hlcoll_bufs *bufs,
			  uint64_t stage_bytes, const struct bench_result *mine,
			  struct bench_result *all)
{
	int n = hlcoll_comm_size(comm), rc;
	uint64_t words = sizeof(*mine) / 4;
	uint64_t off = stage_bytes - sizeof(*mine) * (n + 1);
	uint8_t *base = (uint8_t *)bufs->stage + off;

	memcpy(base, mine, sizeof(*mine));
	rc = hlcoll_allgather(comm, bufs->stage_va + off,
			      bufs->stage_va + off + sizeof(*mine), words,
			      HLCOLL_INT32);
	if (!rc)
		memcpy(all, base + sizeof(*mine), sizeof(*mine) * n);
	return rc;
}

int bench_rank(struct bench *b, int rank, int nranks,
	       const struct hlcoll_unique_id *id, int fd)
{
	struct bench_result res, *all;
	struct hlcoll_comm *comm = NULL;
	struct hlcoll_bufs bufs = { 0 };
	size_t es = hlcoll_dtype_size(b->dtype);
	uint64_t max_bytes = 0, count, wrong_total = 0, stage_bytes, bytes;
	double busbw_sum = 0, worst[2], algbw;
	int s, ip, r, rc, failed = 0, nbw = 0;
	uint64_t wrong[2];
	bool rfail[2];
	enum coll c;

	all = calloc(nranks, sizeof(*all));
	if (!all)
		return 1;
	rc = hlcoll_comm_init_rank(&comm, nranks, id, rank, fd, &b->cfg);
	if (rc) {
		fprintf(stderr, "rank %d: hlcoll_comm_init_rank: %s\n", rank,
			hlcoll_get_error_string(rc));
		free(all);
		return 1;
	}

	for (s = 0; s < b->nsizes; s++)
		if (b->sizes[s] > max_bytes)
			max_bytes = b->sizes[s];
	/* Every buffer of every collective fits max_bytes (+ slack) */
	max_bytes += (uint64_t)es * nranks;
	stage_bytes = 2 * max_bytes + 4096 + sizeof(res) * (nranks + 1);
	stage_bytes = (stage_bytes + 4095) & ~4095ull;
	rc = hlcoll_bufs_setup(fd, &bufs, max_bytes, stage_bytes);
	if (rc) {
		fprintf(stderr, "rank %d: out of memory for %" PRIu64 " B buffers\n",
			rank, stage_bytes);
		goto out;
	}
	if (b->overlap) {
		rc = overlap_run(comm, b, &bufs, fd);
		goto out;
	}

	if (rank == 0) {
		printf("# hl-coll-bench: %d ranks, type %s, redop %s, root %d, chunk %" PRIu64 " B, transport: NIC\n",
		       nranks, type_names[b->dtype], op_names[b->op], b->root,
		       hlcoll_comm_config(comm)->chunk_bytes);
		printf("# %d iterations after %d warm-up; time: the slowest rank's mean per iteration; check %s\n",
		       b->iters, b->warmup, b->check ? "on" : "off");
		printf("#\n");
		printf("# %-13s %10s %10s %8s %6s %5s %10s %8s %8s %6s %10s %8s %8s %6s\n",
		       "", "", "", "", "", "", "out-of-place", "", "", "",
		       "in-place", "", "", "");
		printf("# %-13s %10s %10s %8s %6s %5s %10s %8s %8s %6s %10s %8s %8s %6s\n",
		       "collective", "size", "count", "type", "redop", "root",
		       "time", "algbw", "busbw", "#wrong", "time", "algbw",
		       "busbw", "#wrong");
		printf("# %-13s %10s %10s %8s %6s %5s %10s %8s %8s %6s %10s %8s %8s %6s\n",
		       "", "(B)", "(elements)", "", "", "", "(us)", "(GB/s)",
		       "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
	}

	for (c = 0; c < C_NUM && !failed; c++) {
		bool reduces = c == C_ALLREDUCE || c == C_REDUCE_SCATTER ||
			       c == C_REDUCE;

		if (!b->colls[c])
			continue;
		if (reduces && !hlcoll_reduce_supported(b->dtype, b->op)) {
			if (rank == 0)
				printf("# %s: %s %s is not reduced by the device: skipped\n",
				       coll_names[c], type_names[b->dtype],
				       op_names[b->op]);
			continue;
		}
		for (s = 0; s < b->nsizes && !failed; s++) {
			count = coll_count(c, b->sizes[s], es, nranks);
			bytes = count * es * (c == C_ALLGATHER ||
					      c == C_REDUCE_SCATTER ||
					      c == C_ALLTOALL ? nranks : 1);
			for (ip = 0; ip < 2; ip++) {
				worst[ip] = 0;
				wrong[ip] = 0;
				rfail[ip] = false;
				if (ip && (!has_in_place(c) || !b->in_place))
					continue;
				measure(comm, b, c, &bufs, count, ip, &res);
				rc = gather_results(comm, &bufs, stage_bytes,
						    &res, all);
				if (rc) {
					fprintf(stderr, "rank %d: %s: %s\n", rank,
						coll_names[c],
						hlcoll_get_error_string(res.rc ? res.rc : rc));
					failed = 1;
					break;
				}
				for (r = 0; r < nranks; r++) {
					if (all[r].time_us > worst[ip])
						worst[ip] = all[r].time_us;
					wrong[ip] += all[r].wrong;
					if (all[r].rc)
						rfail[ip] = true;
				}
				wrong_total += wrong[ip];
				if (rfail[ip])
					failed = 1;
			}
			if (rank || rc)
				continue;
			printf("  %-13s %10" PRIu64 " %10" PRIu64 " %8s %6s %5d",
			       coll_names[c], bytes, bytes / es,
			       type_names[b->dtype],
			       reduces ? op_names[b->op] : "none",
			       c == C_BROADCAST || c == C_REDUCE ? b->root : -1);
			for (ip = 0; ip < 2; ip++) {
				if (ip && (!has_in_place(c) || !b->in_place)) {
					printf(" %10s %8s %8s %6s", "N/A", "N/A",
					       "N/A", "N/A");
					continue;
				}
				algbw = worst[ip] > 0 ? bytes / worst[ip] / 1e3 : 0;
				printf(" %10.1f %8.4f %8.4f %6" PRIu64 "%s",
				       worst[ip], algbw,
				       algbw * busbw_factor(c, nranks),
				       wrong[ip], rfail[ip] ? " FAILED" : "");
				if (!ip) {
					busbw_sum += algbw *
						     busbw_factor(c, nranks);
					nbw++;
				}
			}
			printf("\n");
		}
	}

	if (rank == 0) {
		printf("# Out of bounds values : %" PRIu64 " %s\n", wrong_total,
		       wrong_total || failed ? "FAILED" : "OK");
		printf("# Avg bus bandwidth    : %.4f GB/s\n",
		       nbw ? busbw_sum / nbw : 0);
	}
	rc = failed || wrong_total ? -EIO : 0;

out:
	hlcoll_bufs_release(fd, &bufs);
	hlcoll_comm_destroy(comm);
	free(all);
	return rc ? 1 : 0;
}

/* Module ids of the devices, in /dev/hlN order */
static int find_devices(uint32_t *ids, int max)
{
	struct hlthunk_hw_ip_info hw_ip;
	int i, n = 0, fd;

	for (i = 0; i < HLTHUNK_MAX_MINOR && n < max; i++) {
		fd = hlthunk_open_control(i, NULL);
		if (fd < 0)
			continue;
		if (!hlthunk_get_hw_ip_info(fd, &hw_ip))
			ids[n++] = hw_ip.module_id;
		hlthunk_close(fd);
	}
	return n;
}

int open_device(const struct bench *b, int idx)
{
	int fd = hlthunk_open_by_module_id(b->devices[idx]);

	if (fd < 0)
		fprintf(stderr, "hl-coll-bench: device %u: %s\n",
			b->devices[idx], strerror(-fd));
	return fd;
}

#ifndef HLCOLL_BENCH_MPI
static int rank_main(int rank, int nranks, const struct hlcoll_unique_id *id,
		     void *arg)
{
	struct bench *b = arg;
	int fd = open_device(b, rank), rc;

	if (fd < 0)
		return 1;
	rc = bench_rank(b, rank, nranks, id, fd);
	hlthunk_close(fd);
	return rc;
}
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: hl-coll-bench [OPTIONS]\n"
#ifdef HLCOLL_BENCH_MPI
		"       mpirun -np N hl-coll-bench-mpi [OPTIONS]\n"
#endif
		"\n"
		"libhlcoll's collectives across the devices, one process per device, data\n"
		"over the NIC, reductions on the device; for each collective and size the\n"
		"time, algbw and busbw (nccl-tests' formulas), out of place and in place,\n"
		"and the number of values that differ from the host's computation.\n"
		"\n"
		"  -o, --op LIST        collectives: allreduce, allgather, reducescatter,\n"
		"                       broadcast, reduce, alltoall, sendrecv, or all\n"
		"                       (default)\n"
		"  -t, --type T         float (default), bfloat16, half, int32\n"
		"  -R, --redop OP       sum (default), prod, min, max, avg\n"
		"  -r, --root N         root of broadcast and reduce (default 0)\n"
		"  -g, --ranks N        use the first N devices (default: all)\n"
		"  -d, --devices LIST   module ids of the ranks' devices, e.g. 0,2,1\n"
		"  -b, --minbytes SIZE  smallest size (default 4K)\n"
		"  -e, --maxbytes SIZE  largest size (default 1M)\n"
		"  -f, --stepfactor F   size multiplier (default 4)\n"
		"  -s, --sizes LIST     explicit sizes instead, e.g. 4,1K+4,1M+12\n"
		"  -n, --iters N        timed iterations (default 5)\n"
		"  -w, --warmup N       untimed iterations first (default 1)\n"
		"  -c, --check 0|1      compare with the host's result (default 1)\n"
		"  -I, --inplace 0|1    also in place (default 1)\n"
		"  -C, --chunk SIZE     NIC message size (default 256K)\n"
		"  -S, --seed N         input seed\n"
		"  -O, --overlap        instead: a compute job (REDUCE packets on queue 2,\n"
		"                       as long as the all-reduce) and a stream-ordered\n"
		"                       all-reduce (hlcoll_allreduce_enqueue()) one after\n"
		"                       the other against at once; every value checked\n"
		"  -P, --perf-ctl FIFO  rank 0 writes enable/disable to FIFO around\n"
		"                       the timed iterations (perf record -D -1\n"
		"                       --control fifo:FIFO)\n"
		"  -h, --help\n"
		"\n"
		"Sizes are bytes (K, M, G suffixes; +N adds N bytes), as nccl-tests: the\n"
		"largest buffer of a rank (all-gather: the result; reduce-scatter: the\n"
		"input; all-to-all: either).\n"
		"HLCOLL_BENCH_CORRUPT=R: rank R's input gets its first and last element\n"
		"changed, for a negative control of the check (int32 sum: every\n"
		"collective must report #wrong > 0; -O: #wrong and #wrong-comp > 0).\n"
		"HLCOLL_BENCH_NOFENCE=1 (-O): the work after the all-reduce does not wait\n"
		"for its signal, for a negative control of the order (#stale > 0).\n"
		"Exit status: 0 all values right, 1 a wrong value or a failure, 2 usage.\n");
}

static int parse_colls(struct bench *b, char *arg)
{
	char *tok, *save;
	int c;

	memset(b->colls, 0, sizeof(b->colls));
	for (tok = strtok_r(arg, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			for (c = 0; c < C_NUM; c++)
				b->colls[c] = true;
			continue;
		}
		for (c = 0; c < C_NUM; c++)
			if (!strcmp(tok, coll_names[c]))
				break;
		if (c == C_NUM)
			return -1;
		b->colls[c] = true;
	}
	return 0;
}

static int parse_name(const char *s, const char * const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "op", required_argument, NULL, 'o' },
		{ "type", required_argument, NULL, 't' },
		{ "redop", required_argument, NULL, 'R' },
		{ "root", required_argument, NULL, 'r' },
		{ "ranks", required_argument, NULL, 'g' },
		{ "devices", required_argument, NULL, 'd' },
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "sizes", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "check", required_argument, NULL, 'c' },
		{ "inplace", required_argument, NULL, 'I' },
		{ "chunk", required_argument, NULL, 'C' },
		{ "seed", required_argument, NULL, 'S' },
		{ "perf-ctl", required_argument, NULL, 'P' },
		{ "overlap", no_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t minb = 4096, maxb = 1 << 20, factor = 4, v;
	uint32_t found[HLCOLL_MAX_RANKS];
	struct bench b;
	char *list = NULL, *tok, *save;
	int c, nfound, rc, i;
#ifdef HLCOLL_BENCH_MPI
	struct hlcoll_unique_id id;
	const char *lr;
	int mrank, msize, fd, local;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &mrank);
	MPI_Comm_size(MPI_COMM_WORLD, &msize);
#endif

	memset(&b, 0, sizeof(b));
	for (c = 0; c < C_NUM; c++)
		b.colls[c] = true;
	b.dtype = HLCOLL_FLOAT32;
	b.op = HLCOLL_SUM;
	b.iters = 5;
	b.warmup = 1;
	b.check = true;
	b.in_place = true;
	b.seed = 0xc011ec7111e5eedull;
	b.cfg.size = sizeof(b.cfg);
	b.corrupt = getenv("HLCOLL_BENCH_CORRUPT") ?
		    atoi(getenv("HLCOLL_BENCH_CORRUPT")) : -1;

	while ((c = getopt_long(argc, argv, "o:t:R:r:g:d:b:e:f:s:n:w:c:I:C:S:P:Oh",
				opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			list = strdup(optarg);
			rc = list ? parse_colls(&b, list) : -1;
			free(list);
			if (rc)
				goto bad;
			break;
		case 't':
			rc = parse_name(optarg, type_names, HLCOLL_NUM_DTYPES);
			if (rc < 0)
				goto bad;
			b.dtype = (enum hlcoll_dtype)rc;
			break;
		case 'R':
			rc = parse_name(optarg, op_names, HLCOLL_NUM_OPS);
			if (rc < 0)
				goto bad;
			b.op = (enum hlcoll_redop)rc;
			break;
		case 'r':
			b.root = atoi(optarg);
			break;
		case 'g':
			b.nranks = atoi(optarg);
			if (b.nranks < 1 || b.nranks > HLCOLL_MAX_RANKS)
				goto bad;
			break;
		case 'd':
			b.nranks = 0;
			list = strdup(optarg);
			for (tok = list ? strtok_r(list, ",", &save) : NULL; tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (b.nranks == HLCOLL_MAX_RANKS) {
					free(list);
					goto bad;
				}
				b.devices[b.nranks++] = (uint32_t)atoi(tok);
			}
			free(list);
			b.have_devices = true;
			break;
		case 'b':
			if (hltools_parse_size(optarg, &minb))
				goto bad;
			break;
		case 'e':
			if (hltools_parse_size(optarg, &maxb))
				goto bad;
			break;
		case 'f':
			factor = strtoull(optarg, NULL, 0);
			if (factor < 2)
				goto bad;
			break;
		case 's':
			b.nsizes = hltools_parse_sizes(optarg, b.sizes,
						       MAX_SIZES);
			if (b.nsizes < 0)
				goto bad;
			break;
		case 'n':
			b.iters = atoi(optarg);
			if (b.iters < 1)
				goto bad;
			break;
		case 'w':
			b.warmup = atoi(optarg);
			if (b.warmup < 0)
				goto bad;
			break;
		case 'c':
			b.check = atoi(optarg) != 0;
			break;
		case 'I':
			b.in_place = atoi(optarg) != 0;
			break;
		case 'C':
			if (hltools_parse_size(optarg, &b.cfg.chunk_bytes) ||
			    !b.cfg.chunk_bytes || b.cfg.chunk_bytes % 4)
				goto bad;
			break;
		case 'S':
			b.seed = strtoull(optarg, NULL, 0);
			break;
		case 'P':
			b.perf_ctl = optarg;
			break;
		case 'O':
			b.overlap = true;
			break;
		case 'h':
			usage(stdout);
#ifdef HLCOLL_BENCH_MPI
			MPI_Finalize();
#endif
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc)
		goto bad;

	if (!b.nsizes) {
		if (!minb || minb > maxb)
			goto bad;
		for (v = minb; v <= maxb && b.nsizes < MAX_SIZES; v *= factor)
			b.sizes[b.nsizes++] = v;
	}

	nfound = find_devices(found, HLCOLL_MAX_RANKS);
#ifdef HLCOLL_BENCH_MPI
	/* One rank per process of the job; the device: by local rank */
	b.nranks = msize;
	if (!b.have_devices)
		for (i = 0; i < nfound; i++)
			b.devices[i] = found[i];
	lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
	local = lr ? atoi(lr) : mrank;
	if (b.root < 0 || b.root >= msize ||
	    local >= (b.have_devices ? msize : nfound)) {
		fprintf(stderr, "hl-coll-bench-mpi: rank %d: no device for local rank %d (%d found)\n",
			mrank, local, nfound);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&id, 0, sizeof(id));
	rc = 0;
	if (mrank == 0)
		rc = hlcoll_get_unique_id(&id);
	/* The unique id, by any means: here MPI's broadcast */
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rc) {
		fprintf(stderr, "hl-coll-bench-mpi: unique id: %s\n",
			hlcoll_get_error_string(rc));
		MPI_Finalize();
		return 1;
	}
	MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
	fd = open_device(&b, b.have_devices ? mrank : local);
	rc = fd < 0 ? 1 : bench_rank(&b, mrank, msize, &id, fd);
	if (fd >= 0)
		hlthunk_close(fd);
	/* Every rank's verdict: the job fails when one fails */
	MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	MPI_Finalize();
	return rc;
#else
	if (!b.have_devices) {
		if (!b.nranks)
			b.nranks = nfound;
		if (b.nranks > nfound) {
			fprintf(stderr, "hl-coll-bench: %d ranks, %d devices\n",
				b.nranks, nfound);
			return 1;
		}
		for (i = 0; i < b.nranks; i++)
			b.devices[i] = found[i];
	}
	if (!b.nranks) {
		fprintf(stderr, "hl-coll-bench: no device\n");
		return 1;
	}
	if (b.root < 0 || b.root >= b.nranks)
		goto bad;
	/* The stream-ordered all-reduce takes no average */
	if (b.overlap && b.op == HLCOLL_AVG)
		goto bad;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (hosts_launch(&b, &rc))
		return rc;
	rc = hlcoll_launch(b.nranks, rank_main, &b);
	if (rc < 0)
		fprintf(stderr, "hl-coll-bench: launch: %s\n", strerror(-rc));
	return rc ? 1 : 0;
#endif

bad:
	usage(stderr);
#ifdef HLCOLL_BENCH_MPI
	MPI_Finalize();
#endif
	return 2;
}

// SPDX-License-Identifier: MIT
/*
 * hl-bench coll-cpu: libhlcoll's collectives done by the CPU in one process
 * over the HBM BARs of every device (unbound)
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hlthunk.h"
#include "hl-bench.h"
#include "hlcoll_data.h"

/*
 * The ring of hlcoll (lib/hlcoll/hlcoll.c) done by the CPU: rank r's
 * buffers are in device r's HBM; each step moves a segment from rank r's
 * HBM into a scratch buffer in rank r+1's HBM with memcpy, then adds it
 * into rank r+1's result with float adds (all-reduce), or copies it into
 * place (all-gather).
 */
struct ring {
	int n;
	float *send[MAX_DEVS];
	float *recv[MAX_DEVS];
	float *scratch[MAX_DEVS];
};

static void seg_of(uint64_t count, int n, int k, uint64_t *off, uint64_t *len)
{
	uint64_t base = count / n, rem = count % n;

	*len = base + ((uint64_t)k < rem);
	*off = k * base + ((uint64_t)k < rem ? (uint64_t)k : rem);
}

static void add_f32(float *restrict dst, const float *restrict src,
		    uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		dst[i] = dst[i] + src[i];
}

static void cpu_allreduce(struct ring *r, uint64_t count)
{
	uint64_t off, len;
	int s, k, me, next;

	for (me = 0; me < r->n; me++)
		memcpy(r->recv[me], r->send[me], count * 4);
	/* Reduce-scatter: at step s rank me sends segment (me - s) */
	for (s = 0; s < r->n - 1; s++) {
		for (me = 0; me < r->n; me++) {
			next = (me + 1) % r->n;
			k = ((me - s) % r->n + r->n) % r->n;
			seg_of(count, r->n, k, &off, &len);
			memcpy(r->scratch[next], r->recv[me] + off, len * 4);
			add_f32(r->recv[next] + off, r->scratch[next], len);
		}
	}
	/* All-gather: at step s rank me sends segment (me + 1 - s) */
	for (s = 0; s < r->n - 1; s++) {
		for (me = 0; me < r->n; me++) {
			next = (me + 1) % r->n;
			k = ((me + 1 - s) % r->n + r->n) % r->n;
			seg_of(count, r->n, k, &off, &len);
			memcpy(r->recv[next] + off, r->recv[me] + off, len * 4);
		}
	}
}

static void cpu_allgather(struct ring *r, uint64_t count)
{
	int s, k, me, next;

	for (me = 0; me < r->n; me++)
		memcpy(r->recv[me] + me * count, r->send[me], count * 4);
	for (s = 0; s < r->n - 1; s++) {
		for (me = 0; me < r->n; me++) {
			next = (me + 1) % r->n;
			k = ((me - s) % r->n + r->n) % r->n;
			memcpy(r->recv[next] + k * count,
			       r->recv[me] + k * count, count * 4);
		}
	}
}

/*
 * The other collectives, as libhlcoll runs them (root 0; sendrecv: the
 * ring, each rank sending to the next), data moved with memcpy between the
 * BARs, sums with float adds in the same order
 */
static void cpu_reduce_scatter(struct ring *r, uint64_t count)
{
	int s, k, me, next;

	/* In a copy of the send buffer (recv), as libhlcoll's work buffer */
	for (me = 0; me < r->n; me++)
		memcpy(r->recv[me], r->send[me], count * r->n * 4);
	/* At step s rank me sends block me - 1 - s: rank r ends with block r */
	for (s = 0; s < r->n - 1; s++) {
		for (me = 0; me < r->n; me++) {
			next = (me + 1) % r->n;
			k = ((me - 1 - s) % r->n + r->n) % r->n;
			memcpy(r->scratch[next], r->recv[me] + k * count,
			       count * 4);
			add_f32(r->recv[next] + k * count, r->scratch[next],
				count);
		}
	}
	/* The result block into place (the scratch buffer stands for it) */
	for (me = 0; me < r->n; me++)
		memcpy(r->scratch[me], r->recv[me] + me * count, count * 4);
}

static void cpu_broadcast(struct ring *r, uint64_t count)
{
	int k;

	for (k = 0; k < r->n; k++)
		memcpy(r->recv[k], r->send[0], count * 4);
}

static void cpu_reduce(struct ring *r, uint64_t count)
{
	int k;

	memcpy(r->recv[0], r->send[0], count * 4);
	for (k = 1; k < r->n; k++) {
		memcpy(r->scratch[0], r->send[k], count * 4);
		add_f32(r->recv[0], r->scratch[0], count);
	}
}

static void cpu_alltoall(struct ring *r, uint64_t count)
{
	int me, from;

	for (me = 0; me < r->n; me++)
		for (from = 0; from < r->n; from++)
			memcpy(r->recv[me] + from * count,
			       r->send[from] + me * count, count * 4);
}

static void cpu_sendrecv(struct ring *r, uint64_t count)
{
	int me;

	for (me = 0; me < r->n; me++)
		memcpy(r->recv[(me + 1) % r->n], r->send[me], count * 4);
}

#define CPU_SEED	0x5eedc011ull

/* hl-coll-bench's names, sizes and nccl-tests' bus bandwidth factors */
static const char * const cpu_coll_names[] = {
	"allreduce", "allgather", "reducescatter", "broadcast", "reduce",
	"alltoall", "sendrecv",
};

/* The size is the largest buffer: split among the ranks for these */
static bool cpu_coll_split(int op)
{
	return op == CPU_ALLGATHER || op == CPU_REDUCE_SCATTER ||
	       op == CPU_ALLTOALL;
}

static double cpu_busbw_factor(int op, int n)
{
	if (op == CPU_ALLREDUCE)
		return 2.0 * (n - 1) / n;
	return cpu_coll_split(op) ? (double)(n - 1) / n : 1;
}

/*
 * Every rank's result against the host's (hlcoll_data.h: the same orders
 * of additions as libhlcoll), at every 61st element: the number that
 * differ.
 */
static uint64_t coll_cpu_check(struct ring *r, uint64_t count, int op)
{
	uint64_t i, n = cpu_coll_split(op) && op != CPU_REDUCE_SCATTER ?
			count * r->n : count, wrong = 0;
	const float *res;
	uint32_t want, got;
	int k;

	for (k = 0; k < r->n; k++) {
		res = op == CPU_REDUCE_SCATTER ? r->scratch[k] : r->recv[k];
		for (i = k; i < n; i += 61) {
			switch (op) {
			case CPU_ALLREDUCE:
				want = hlcoll_data_allreduce(CPU_SEED, r->n,
							     count, i);
				break;
			case CPU_ALLGATHER:
				want = hlcoll_data_allgather(CPU_SEED, count, i);
				break;
			case CPU_REDUCE_SCATTER:
				want = hlcoll_data_reduce_scatter(CPU_SEED, r->n,
								  k, count, i);
				break;
			case CPU_BROADCAST:
				want = hlcoll_data_value(CPU_SEED, 0, i);
				break;
			case CPU_REDUCE:
				if (k)
					continue;
				want = hlcoll_data_reduce(CPU_SEED, r->n, 0, i);
				break;
			case CPU_ALLTOALL:
				want = hlcoll_data_alltoall(CPU_SEED, k, count, i);
				break;
			default:
				want = hlcoll_data_value(CPU_SEED,
							 (k + r->n - 1) % r->n,
							 i);
				break;
			}
			got = hlcoll_data_u(res[i]);
			wrong += got != want;
		}
	}
	return wrong;
}

struct coll_arg {
	struct ring *r;
	uint64_t count;
	int op;
};

static void coll_once(void *p)
{
	struct coll_arg *a = p;

	switch (a->op) {
	case CPU_ALLREDUCE:
		cpu_allreduce(a->r, a->count);
		break;
	case CPU_ALLGATHER:
		cpu_allgather(a->r, a->count);
		break;
	case CPU_REDUCE_SCATTER:
		cpu_reduce_scatter(a->r, a->count);
		break;
	case CPU_BROADCAST:
		cpu_broadcast(a->r, a->count);
		break;
	case CPU_REDUCE:
		cpu_reduce(a->r, a->count);
		break;
	case CPU_ALLTOALL:
		cpu_alltoall(a->r, a->count);
		break;
	default:
		cpu_sendrecv(a->r, a->count);
		break;
	}
}

/* The collectives of @list (comma-separated names, "all"): a bit each */
int parse_colls(const char *list, unsigned int *mask)
{
	char buf[256], *tok, *save = NULL;
	int op;

	*mask = 0;
	if (!strcmp(list, "all")) {
		*mask = (1u << CPU_NUM) - 1;
		return 0;
	}
	if (strlen(list) >= sizeof(buf))
		return -1;
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (op = 0; op < CPU_NUM; op++)
			if (!strcmp(tok, cpu_coll_names[op]))
				break;
		if (op == CPU_NUM)
			return -1;
		*mask |= 1u << op;
	}
	return *mask ? 0 : -1;
}

int cmd_coll_cpu(int nranks, unsigned int colls)
{
	char bdf[MAX_DEVS][16];
	struct bar bars[MAX_DEVS];
	struct ring r = { .n = nranks };
	uint64_t max = 0, count, i, bytes;
	struct coll_arg ca;
	struct timed_op top = { coll_once, &ca };
	uint64_t wrong;
	double tm, algbw;
	int s, k, op;

	default_sizes("4K,64K,1M,4M,16M,64M");
	for (s = 0; s < g_nsizes; s++)
		if (g_sizes[s] > max)
			max = g_sizes[s];
	if (nranks < 2 || nranks > MAX_DEVS ||
	    find_devices(bdf, MAX_DEVS) < nranks)
		die("%d ranks: not enough devices", nranks);
	for (k = 0; k < nranks; k++) {
		bar_map(bdf[k], &bars[k]);
		/*
		 * send, scratch, recv (room for an all-gather), in the upper
		 * half, skewed as for memcpy
		 */
		if (bars[k].size / 2 < max * 3 + SKEW(8))
			die("HBM too small for %" PRIu64 " bytes", max);
		r.send[k] = (float *)(bars[k].p + bars[k].size / 2 + SKEW(k));
		r.scratch[k] = (float *)((uint8_t *)r.send[k] + max + SKEW(1));
		r.recv[k] = (float *)((uint8_t *)r.scratch[k] + max + SKEW(2));
		/* hl-coll-bench's inputs: sums that round, cancel and tie */
		for (i = 0; i < max / 4; i++)
			r.send[k][i] = hlcoll_data_f(hlcoll_data_value(CPU_SEED,
								       k, i));
	}

	for (op = 0; op < CPU_NUM; op++) {
		if (!(colls & (1u << op)))
			continue;
		for (s = 0; s < g_nsizes; s++) {
			uint64_t size = g_sizes[s];

			count = cpu_coll_split(op) ? size / 4 / nranks :
						     size / 4;
			if (!count)
				continue;
			ca.r = &r;
			ca.count = count;
			ca.op = op;
			tm = time_op(&top);
			wrong = coll_cpu_check(&r, count, op);
			/* As hl-coll-bench: the size of the largest buffer */
			bytes = count * 4 * (cpu_coll_split(op) ? nranks : 1);
			algbw = bytes / tm / 1e3;
			printf("{\"series\":\"coll\",\"impl\":\"cpu\",\"op\":\"%s\",\"ranks\":%d"
			       ",\"size\":%" PRIu64 ",\"time_us\":%.1f,\"algbw\":%.4f,\"busbw\":%.4f"
			       ",\"wrong\":%" PRIu64 "}\n",
			       cpu_coll_names[op], nranks, bytes, tm, algbw,
			       algbw * cpu_busbw_factor(op, nranks), wrong);
			fflush(stdout);
		}
	}
	for (k = 0; k < nranks; k++)
		munmap(bars[k].p, bars[k].size);
	return 0;
}

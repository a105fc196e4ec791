// SPDX-License-Identifier: MIT
/*
 * overlap.c - hl-coll-bench -O: a compute job and a stream-ordered
 * all-reduce at once against one after the other (issue 35 item 5).
 *
 * Each rank, on its own device, per size:
 *   the all-reduce  hlcoll_allreduce_enqueue() of the size (out of place,
 *                   queues 0 and 1, the communicator's), signalling SOB S
 *                   at its tail; then the caller's next work, a CS on
 *                   queue 3 that FENCEs on S (a monitor) and copies the
 *                   result to another buffer, submitted before
 *                   hlcoll_stream_sync(); then sync and wait for the copy;
 *   the compute job one CS on queue 2 of K REDUCE packets, float32
 *                   cout += cin over max(size, 64K) bytes of HBM, K chosen
 *                   so that the job alone takes as long as the all-reduce
 *                   alone (both measured with every rank doing the same);
 *   serial          the compute job, waited for, then the all-reduce;
 *   overlapped      the compute job submitted, the all-reduce enqueued,
 *                   then every wait.
 * Serial and overlapped iterations alternate (-n each, after -w warm-up
 * rounds); each time is the slowest rank's best iteration (the machine's
 * other load only ever slows one down). Before every iteration
 * (untimed) the all-reduce's result and the copy are overwritten with a
 * poison pattern and cout is reset; after it (untimed) every element of
 * the all-reduce's result is compared bit for bit with the host's (#wrong),
 * the copy with the same (#stale: the next work ran before the
 * all-reduce's end), and cout with cout0 + K * cin (#wrong-comp; small
 * integers, exact in float32).
 *
 * Rank 0 also reads /proc/stat around each timed iteration: the share of
 * the guest's CPU time (every CPU) that was idle, per mode.
 *
 * HLCOLL_BENCH_NOFENCE=1 (a negative control of #stale): the next work
 * does not FENCE on S; it then copies the result before the all-reduce
 * wrote it. HLCOLL_BENCH_CORRUPT=R: rank R's all-reduce input and compute
 * input are changed after the host computed what to expect (#wrong and
 * #wrong-comp > 0). Either makes the exit status 1.
 */
#include "bench.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlthunk.h"

#define OVL_Q_COMP		2	/* the compute job's queue */
#define OVL_Q_NEXT		3	/* the all-reduce's next work */
#define OVL_MIN_COMPUTE		(64 * 1024ull)
#define OVL_CALIB_PASSES	4
#define OVL_MAX_PASSES		2048
#define OVL_CS_TIMEOUT_S	300
#define OVL_WAIT_US		(600ull * 1000 * 1000)
#define OVL_POISON		0xa5
#define OVL_PAGE		4096ull

enum ovl_mode { OVL_COLL, OVL_COMP, OVL_SERIAL, OVL_OVERLAP, OVL_NMODES };

/* What each rank reports for a size, exchanged by an all-gather */
struct ovl_result {
	double t_us[OVL_NMODES];	/* the best iteration */
	double pass_us;			/* a compute pass, calibration */
	uint64_t wrong, stale, wrong_comp;
	int32_t rc;
	uint32_t pad;
};

struct ovl {
	struct hlcoll_comm *comm;
	const struct bench *b;
	struct hlcoll_bufs *bufs;
	int fd, rank, n;
	bool nofence;
	uint64_t count, bytes;		/* the all-reduce */
	uint64_t celems, cbytes;	/* the compute job's operands */
	int passes;
	uint64_t cin_h, cout_h, next_h;	/* HBM: compute in/out, the copy */
	uint64_t cin, cout, next;
	/* Host, mapped: poison | cout0 | readback | CBs | exchange */
	uint8_t *host;
	uint64_t host_va, host_bytes;
	uint64_t off_poison, off_cout0, off_read, off_cb_comp, off_cb_next;
	uint64_t off_cb_misc, off_xchg;
	uint32_t *want;			/* the all-reduce, by the host */
	uint32_t sob, mon, signals;
	/* Rank 0: /proc/stat over the timed parts, per mode */
	uint64_t idle[OVL_NMODES], total[OVL_NMODES];
	struct ovl_result res;
};

/* The guest's CPU time, every CPU, in ticks: all and idle (+ iowait) */
static void ovl_cpu_ticks(uint64_t *total, uint64_t *idle)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int i;

	*total = *idle = 0;
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
		for (i = 0; i < 8; i++)
			*total += v[i];
		*idle = v[3] + v[4];
	}
	fclose(f);
}

static int ovl_submit(int fd, uint32_t queue, uint64_t cb, uint32_t len,
		      uint64_t *seq)
{
	struct hl_cs_chunk chunk;
	struct hlthunk_cs_in in;
	struct hlthunk_cs_out out;
	int rc;

	memset(&chunk, 0, sizeof(chunk));
	chunk.cb_handle = cb;
	chunk.queue_index = queue;
	chunk.cb_size = len;
	memset(&in, 0, sizeof(in));
	in.chunks_execute = &chunk;
	in.num_chunks_execute = 1;
	rc = hlthunk_command_submission_timeout(fd, &in, &out,
						OVL_CS_TIMEOUT_S);
	if (!rc && out.status != HL_CS_STATUS_SUCCESS)
		rc = -EIO;
	*seq = out.seq;
	return rc;
}

static int ovl_wait(int fd, uint64_t seq)
{
	uint32_t status = 0;
	int rc = hlthunk_wait_for_cs(fd, seq, OVL_WAIT_US, &status);

	return rc ? rc : status == HL_WAIT_CS_STATUS_COMPLETED ? 0 : -EIO;
}

/* The compute job: cout += cin, passes times */
static uint32_t ovl_build_comp(struct ovl *o)
{
	uint8_t *p = o->host + o->off_cb_comp;
	int k;

	for (k = 0; k < o->passes; k++)
		p += hlthunk_pkt_reduce(p, o->cin, o->cout, (uint32_t)o->celems,
					HL_REDUCE_DTYPE_F32, HL_REDUCE_OP_SUM);
	return (uint32_t)(p - (o->host + o->off_cb_comp));
}

/*
 * The all-reduce's next work: a monitor on S >= @target whose payload adds
 * 1 to fence counter 1 of its queue, a FENCE on it (unless the negative
 * control), then a copy of the result
 */
static uint32_t ovl_build_next(struct ovl *o, uint32_t target)
{
	uint64_t fence = HL_QM_FENCE_RDATA(OVL_Q_NEXT, 1);
	struct hl_pkt_fence f = {
		.ctl = (uint32_t)HL_PKT_FENCE << HL_PKT_OPCODE_SHIFT,
		.cfg = HL_PKT_FENCE_CFG(1, 1, 1),
	};
	uint8_t *p = o->host + o->off_cb_next;

	if (!o->nofence) {
		p += hlthunk_pkt_msg_long(p, HL_SM_MON_PAY_ADDRL_ADDR(o->mon),
					  (uint32_t)fence);
		p += hlthunk_pkt_msg_long(p, HL_SM_MON_PAY_ADDRH_ADDR(o->mon),
					  (uint32_t)(fence >> 32));
		p += hlthunk_pkt_msg_long(p, HL_SM_MON_PAY_DATA_ADDR(o->mon), 1);
		p += hlthunk_pkt_msg_long(p, HL_SM_MON_ARM_ADDR(o->mon),
					  HL_SM_MON_ARM(o->sob / 8,
							0xff & ~(1u << (o->sob % 8)),
							0, target));
		memcpy(p, &f, sizeof(f));
		p += sizeof(f);
	}
	p += hlthunk_pkt_lin_dma(p, o->bufs->recv_va, o->next, o->bytes);
	return (uint32_t)(p - (o->host + o->off_cb_next));
}

/* Element @i of the compute job's operands and of its result */
static float ovl_cin(uint64_t i)
{
	return (float)(i % 7 + 1);
}

static float ovl_cout0(uint64_t i)
{
	return (float)(i % 251);
}

/* @dev (@elems words) read back and compared with @want or the compute's */
static int ovl_compare(struct ovl *o, uint64_t dev, uint64_t elems,
		       const uint32_t *want, const char *what, uint64_t *bad)
{
	const uint32_t *got = (const uint32_t *)(o->host + o->off_read);
	size_t es = want ? hlcoll_dtype_size(o->b->dtype) : 4;
	uint64_t i, nbad = 0;
	uint32_t w, g;
	int rc;

	rc = hlcoll_memcpy(o->comm, o->host_va + o->off_read, dev, elems * es);
	if (rc)
		return rc;
	for (i = 0; i < elems; i++) {
		if (want) {
			w = want[i];
			g = es == 2 ? ((const uint16_t *)got)[i] : got[i];
		} else {
			w = hlcoll_data_u(ovl_cout0(i) +
					  (float)o->passes * ovl_cin(i));
			g = got[i];
		}
		if (g == w)
			continue;
		if (!nbad && !*bad)
			fprintf(stderr,
				"rank %d: overlap %" PRIu64 " B: %s element %" PRIu64 " is 0x%08x, expected 0x%08x\n",
				o->rank, o->bytes, what, i, g, w);
		nbad++;
	}
	*bad += nbad;
	return 0;
}

/* One iteration of @m; its time in *@us */
static int ovl_iter(struct ovl *o, enum ovl_mode m, double *us)
{
	bool coll = m != OVL_COMP, comp = m != OVL_COLL;
	struct hlcoll_stream st;
	uint64_t seq_c = 0, seq_n = 0, t0 = 0, i0 = 0, t1, i1;
	uint32_t next_len = 0, comp_len = 0;
	double start;
	int rc = 0, rc2;

	/* Untimed: poison the results, reset cout, build the CBs */
	if (coll) {
		rc = hlcoll_memcpy(o->comm, o->bufs->recv_va,
				   o->host_va + o->off_poison, o->bytes);
		if (!rc)
			rc = hlcoll_memcpy(o->comm, o->next,
					   o->host_va + o->off_poison, o->bytes);
		next_len = ovl_build_next(o, o->signals + 1);
	}
	if (!rc && comp) {
		rc = hlcoll_memcpy(o->comm, o->cout, o->host_va + o->off_cout0,
				   o->cbytes);
		comp_len = ovl_build_comp(o);
	}
	if (!rc)
		rc = hlcoll_barrier(o->comm);
	if (rc)
		return rc;

	memset(&st, 0, sizeof(st));
	st.flags = HLCOLL_STREAM_SIGNAL;
	st.signal_sob = o->sob;
	if (!o->rank)
		ovl_cpu_ticks(&t0, &i0);
	start = now_us();
	if (comp) {
		rc = ovl_submit(o->fd, OVL_Q_COMP, o->host_va + o->off_cb_comp,
				comp_len, &seq_c);
		if (!rc && m != OVL_OVERLAP)
			rc = ovl_wait(o->fd, seq_c);
	}
	if (!rc && coll) {
		rc = hlcoll_allreduce_enqueue(o->comm, o->bufs->send_va,
					      o->bufs->recv_va, o->count,
					      o->b->dtype, o->b->op, &st, NULL);
		if (!rc) {
			rc = ovl_submit(o->fd, OVL_Q_NEXT,
					o->host_va + o->off_cb_next, next_len,
					&seq_n);
			rc2 = hlcoll_stream_sync(o->comm);
			rc = rc ?: rc2;
			if (seq_n) {
				rc2 = ovl_wait(o->fd, seq_n);
				rc = rc ?: rc2;
			}
			o->signals++;
		}
	}
	if (comp && m == OVL_OVERLAP && seq_c) {
		rc2 = ovl_wait(o->fd, seq_c);
		rc = rc ?: rc2;
	}
	*us = now_us() - start;
	if (!o->rank) {
		ovl_cpu_ticks(&t1, &i1);
		o->total[m] += t1 - t0;
		o->idle[m] += i1 - i0;
	}
	if (rc)
		return rc;

	/* Untimed: the checks */
	if (coll) {
		rc = ovl_compare(o, o->bufs->recv_va, o->count, o->want,
				 "all-reduce", &o->res.wrong);
		if (!rc)
			rc = ovl_compare(o, o->next, o->count, o->want,
					 "copy after the all-reduce",
					 &o->res.stale);
	}
	if (!rc && comp)
		rc = ovl_compare(o, o->cout, o->celems, NULL, "compute",
				 &o->res.wrong_comp);
	return rc;
}

/*
 * @iters iterations of @m (after @warmup): the best in *@best (the
 * machine's other load only ever slows an iteration down)
 */
static int ovl_best(struct ovl *o, enum ovl_mode m, int warmup, int iters,
		    double *best)
{
	double us;
	int it, rc = 0;

	*best = 0;
	for (it = 0; !rc && it < warmup + iters; it++) {
		rc = ovl_iter(o, m, &us);
		if (it >= warmup && (!*best || us < *best))
			*best = us;
	}
	return rc;
}

/* Every rank's ovl_result, through the library: an all-gather of words */
static int ovl_gather(struct ovl *o, struct ovl_result *all)
{
	uint8_t *base = o->host + o->off_xchg;
	uint64_t va = o->host_va + o->off_xchg;
	int rc;

	memcpy(base, &o->res, sizeof(o->res));
	rc = hlcoll_allgather(o->comm, va, va + sizeof(o->res),
			      sizeof(o->res) / 4, HLCOLL_INT32);
	if (!rc)
		memcpy(all, base + sizeof(o->res), sizeof(o->res) * o->n);
	return rc;
}

/* The largest of a field over the ranks */
static double ovl_max(const struct ovl_result *all, int n, size_t off)
{
	double v, m = 0;
	int r;

	for (r = 0; r < n; r++) {
		memcpy(&v, (const uint8_t *)&all[r] + off, sizeof(v));
		if (v > m)
			m = v;
	}
	return m;
}

static int ovl_passes(double coll_us, double pass_us)
{
	double k = pass_us > 0 ? coll_us / pass_us : 1;

	if (k < 1)
		return 1;
	if (k > OVL_MAX_PASSES)
		return OVL_MAX_PASSES;
	return (int)(k + 0.5);
}

static void ovl_free(struct ovl *o)
{
	if (o->host_va)
		hlthunk_memory_unmap(o->fd, o->host_va);
	free(o->host);
	if (o->cin)
		hlthunk_memory_unmap(o->fd, o->cin);
	if (o->cout)
		hlthunk_memory_unmap(o->fd, o->cout);
	if (o->next)
		hlthunk_memory_unmap(o->fd, o->next);
	if (o->cin_h)
		hlthunk_device_memory_free(o->fd, o->cin_h);
	if (o->cout_h)
		hlthunk_device_memory_free(o->fd, o->cout_h);
	if (o->next_h)
		hlthunk_device_memory_free(o->fd, o->next_h);
	free(o->want);
}

/* The buffers of one size, the inputs loaded, S zeroed */
static int ovl_setup(struct ovl *o)
{
	size_t es = hlcoll_dtype_size(o->b->dtype);
	uint64_t rd, i, seq;
	uint8_t *st = (uint8_t *)o->bufs->stage;
	float *f;
	int rc;

	o->cbytes = o->bytes > OVL_MIN_COMPUTE ? o->bytes : OVL_MIN_COMPUTE;
	o->cbytes &= ~3ull;
	o->celems = o->cbytes / 4;
	rd = o->cbytes > o->bytes ? o->cbytes : o->bytes;
	o->off_poison = 0;
	o->off_cout0 = (o->bytes + OVL_PAGE - 1) & ~(OVL_PAGE - 1);
	o->off_read = o->off_cout0 + ((o->cbytes + OVL_PAGE - 1) & ~(OVL_PAGE - 1));
	o->off_cb_comp = o->off_read + ((rd + OVL_PAGE - 1) & ~(OVL_PAGE - 1));
	o->off_cb_next = o->off_cb_comp +
		((OVL_MAX_PASSES * HLTHUNK_PKT_REDUCE_SIZE + OVL_PAGE - 1) &
		 ~(OVL_PAGE - 1));
	o->off_cb_misc = o->off_cb_next + OVL_PAGE;
	o->off_xchg = o->off_cb_misc + OVL_PAGE;
	o->host_bytes = o->off_xchg + OVL_PAGE;
	if (sizeof(o->res) * (o->n + 1) > OVL_PAGE)
		return -EINVAL;

	o->want = malloc(o->count * sizeof(*o->want));
	if (posix_memalign((void **)&o->host, OVL_PAGE, o->host_bytes))
		o->host = NULL;
	if (!o->want || !o->host)
		return -ENOMEM;
	memset(o->host, 0, o->host_bytes);
	o->host_va = hlthunk_host_memory_map(o->fd, o->host, 0, o->host_bytes);
	o->cin_h = hlthunk_device_memory_alloc(o->fd, o->cbytes, 0, false, false);
	o->cout_h = hlthunk_device_memory_alloc(o->fd, o->cbytes, 0, false, false);
	o->next_h = hlthunk_device_memory_alloc(o->fd, o->bytes, 0, false, false);
	if (!o->host_va || !o->cin_h || !o->cout_h || !o->next_h)
		return -ENOMEM;
	o->cin = hlthunk_device_memory_map(o->fd, o->cin_h, 0);
	o->cout = hlthunk_device_memory_map(o->fd, o->cout_h, 0);
	o->next = hlthunk_device_memory_map(o->fd, o->next_h, 0);
	if (!o->cin || !o->cout || !o->next)
		return -ENOMEM;

	/* What the all-reduce must give, as expected() says */
	for (i = 0; i < o->count; i++) {
		o->want[i] = hlcoll_data_reduce_from(o->b->seed, o->n,
				hlcoll_data_segment_of(o->count, o->n, i), i,
				o->b->dtype, o->b->op);
		if (es == 2)
			o->want[i] &= 0xffff;
	}
	memset(o->host + o->off_poison, OVL_POISON, o->bytes);
	f = (float *)(o->host + o->off_cout0);
	for (i = 0; i < o->celems; i++)
		f[i] = ovl_cout0(i);

	/* The inputs, then the negative control's change to them */
	for (i = 0; i < o->count; i++)
		elem_put(st, es, i, hlcoll_data_elem(o->b->seed, o->rank, i,
						     o->b->dtype));
	f = (float *)(o->host + o->off_read);
	for (i = 0; i < o->celems; i++)
		f[i] = ovl_cin(i);
	if (o->rank == o->b->corrupt) {
		uint32_t flip = es == 2 ? 1u << 8 : 1u << 20;

		elem_put(st, es, 0, elem_get(st, es, 0) ^ flip);
		elem_put(st, es, o->count - 1,
			 elem_get(st, es, o->count - 1) ^ flip);
		((uint32_t *)f)[0] ^= 1u << 20;
	}
	rc = hlcoll_memcpy(o->comm, o->bufs->send_va, o->bufs->stage_va,
			   o->bytes);
	if (!rc)
		rc = hlcoll_memcpy(o->comm, o->cin, o->host_va + o->off_read,
				   o->cbytes);
	if (rc)
		return rc;

	/* S from 0: the next work's monitors count this size's signals */
	o->signals = 0;
	rc = ovl_submit(o->fd, OVL_Q_NEXT, o->host_va + o->off_cb_misc,
			hlthunk_pkt_msg_long(o->host + o->off_cb_misc,
					     HL_SM_SOB_ADDR(o->sob), 0), &seq);
	return rc ? rc : ovl_wait(o->fd, seq);
}

/* One size: calibrate, then serial and overlapped alternating */
static int ovl_size(struct ovl *o, struct ovl_result *all, double *row)
{
	const struct bench *b = o->b;
	double ca, pass, c0 = 0, coll_max;
	int it, rc;

	memset(&o->res, 0, sizeof(o->res));
	memset(o->idle, 0, sizeof(o->idle));
	memset(o->total, 0, sizeof(o->total));
	rc = ovl_setup(o);

	/* The all-reduce alone; a few passes of the compute job alone */
	o->passes = OVL_CALIB_PASSES;
	if (!rc)
		rc = ovl_best(o, OVL_COLL, b->warmup, b->iters,
			      &o->res.t_us[OVL_COLL]);
	if (!rc)
		rc = ovl_best(o, OVL_COMP, b->warmup, b->iters, &c0);
	o->res.pass_us = c0 / OVL_CALIB_PASSES;
	o->res.rc = rc;
	rc = ovl_gather(o, all);
	if (rc)
		return rc;
	for (it = 0; it < o->n; it++)
		if (all[it].rc)
			return all[it].rc;
	coll_max = ovl_max(all, o->n, offsetof(struct ovl_result, t_us[OVL_COLL]));
	pass = ovl_max(all, o->n, offsetof(struct ovl_result, pass_us));
	o->passes = ovl_passes(coll_max, pass);

	/* The compute job alone at that size; once more if far off */
	o->idle[OVL_COMP] = o->total[OVL_COMP] = 0;
	rc = ovl_best(o, OVL_COMP, 0, b->iters, &o->res.t_us[OVL_COMP]);
	o->res.rc = rc;
	rc = ovl_gather(o, all);
	for (it = 0; !rc && it < o->n; it++)
		rc = all[it].rc;
	if (rc)
		return rc;
	ca = ovl_max(all, o->n, offsetof(struct ovl_result, t_us[OVL_COMP]));
	if (ca > 0 && (ca > 1.2 * coll_max || ca < 0.8 * coll_max)) {
		o->passes = ovl_passes(coll_max, ca / o->passes);
		o->idle[OVL_COMP] = o->total[OVL_COMP] = 0;
		rc = ovl_best(o, OVL_COMP, 0, b->iters, &o->res.t_us[OVL_COMP]);
	}

	/* Serial and overlapped, alternating */
	for (it = 0; !rc && it < b->warmup + b->iters; it++) {
		double s, v;

		double *ts = &o->res.t_us[OVL_SERIAL];
		double *to = &o->res.t_us[OVL_OVERLAP];

		rc = ovl_iter(o, OVL_SERIAL, &s);
		if (!rc)
			rc = ovl_iter(o, OVL_OVERLAP, &v);
		if (!rc && it >= b->warmup) {
			*ts = !*ts || s < *ts ? s : *ts;
			*to = !*to || v < *to ? v : *to;
		}
	}
	o->res.rc = rc;
	rc = ovl_gather(o, all);
	if (rc)
		return rc;
	for (it = 0; it < OVL_NMODES; it++)
		row[it] = ovl_max(all, o->n,
				  offsetof(struct ovl_result, t_us) +
				  it * sizeof(double));
	return 0;
}

int overlap_run(struct hlcoll_comm *comm, const struct bench *b,
		struct hlcoll_bufs *bufs, int fd)
{
	struct hlthunk_sync_manager_info sm;
	struct ovl_result *all;
	size_t es = hlcoll_dtype_size(b->dtype);
	double row[OVL_NMODES], idle[OVL_NMODES];
	uint64_t wrong, stale, wrong_comp, total_bad = 0;
	struct ovl o;
	int s, r, m, rc = 0, failed = 0;

	memset(&o, 0, sizeof(o));
	o.comm = comm;
	o.b = b;
	o.bufs = bufs;
	o.fd = fd;
	o.rank = hlcoll_comm_rank(comm);
	o.n = hlcoll_comm_size(comm);
	o.nofence = getenv("HLCOLL_BENCH_NOFENCE") &&
		    atoi(getenv("HLCOLL_BENCH_NOFENCE"));
	if (hlthunk_get_sync_manager_info(fd, 0, &sm))
		return -EIO;
	o.sob = sm.first_available_sync_object;
	o.mon = sm.first_available_monitor;
	all = calloc(o.n, sizeof(*all));
	if (!all)
		return -ENOMEM;

	if (o.rank == 0) {
		printf("# hl-coll-bench overlap: %d ranks, type %s, redop %s, chunk %" PRIu64 " B, transport: NIC\n",
		       o.n, type_names[b->dtype], op_names[b->op],
		       hlcoll_comm_config(comm)->chunk_bytes);
		printf("# all-reduce: hlcoll_allreduce_enqueue() (queues %u, %u), signalling a SOB that the next work on queue %d FENCEs on before it copies the result%s\n",
		       0u, 1u, OVL_Q_NEXT,
		       o.nofence ? " (HLCOLL_BENCH_NOFENCE: no FENCE)" : "");
		printf("# compute: one CS on queue %d of 'passes' REDUCE packets (float32 sums over 'compute' bytes of HBM), as long as the all-reduce alone\n",
		       OVL_Q_COMP);
		printf("# %d iterations after %d warm-up, serial and overlapped alternating; times: the slowest rank's best iteration (us); idle: %% of the guest's CPU time idle (rank 0's /proc/stat)\n",
		       b->iters, b->warmup);
		printf("#\n# %-7s %5s %10s %10s %6s %11s %11s %11s %11s %7s %7s %6s %6s %6s %6s %8s %6s %10s\n",
		       "", "ranks", "size", "compute", "passes", "allreduce",
		       "compute", "serial", "overlapped", "ratio", "ideal",
		       "idle-a", "idle-c", "idle-s", "idle-o", "#wrong",
		       "#stale", "#wrong-comp");
	}

	for (s = 0; s < b->nsizes && !failed; s++) {
		o.bytes = b->sizes[s] / es * es;
		o.count = o.bytes / es;
		if (o.count < (uint64_t)o.n) {
			if (o.rank == 0)
				printf("# %" PRIu64 " B: fewer elements than ranks: skipped\n",
				       b->sizes[s]);
			continue;
		}
		rc = ovl_size(&o, all, row);
		if (rc) {
			fprintf(stderr, "rank %d: overlap %" PRIu64 " B: %s\n",
				o.rank, o.bytes, hlcoll_get_error_string(rc));
			failed = 1;
		}
		wrong = stale = wrong_comp = 0;
		for (r = 0; !rc && r < o.n; r++) {
			wrong += all[r].wrong;
			stale += all[r].stale;
			wrong_comp += all[r].wrong_comp;
		}
		total_bad += wrong + stale + wrong_comp;
		for (m = 0; m < OVL_NMODES; m++)
			idle[m] = o.total[m] ? 100.0 * o.idle[m] / o.total[m] : 0;
		if (o.rank == 0 && !rc)
			printf("  %-7s %5d %10" PRIu64 " %10" PRIu64 " %6d %11.1f %11.1f %11.1f %11.1f %7.3f %7.3f %6.1f %6.1f %6.1f %6.1f %8" PRIu64 " %6" PRIu64 " %10" PRIu64 "\n",
			       "overlap", o.n, o.bytes, o.cbytes, o.passes,
			       row[OVL_COLL], row[OVL_COMP], row[OVL_SERIAL],
			       row[OVL_OVERLAP],
			       row[OVL_SERIAL] > 0 ? row[OVL_OVERLAP] / row[OVL_SERIAL] : 0,
			       row[OVL_SERIAL] > 0 ?
			       (row[OVL_COLL] > row[OVL_COMP] ? row[OVL_COLL] : row[OVL_COMP]) /
			       row[OVL_SERIAL] : 0,
			       idle[OVL_COLL], idle[OVL_COMP], idle[OVL_SERIAL],
			       idle[OVL_OVERLAP], wrong, stale, wrong_comp);
		ovl_free(&o);
		o.host = NULL;
		o.host_va = o.cin = o.cout = o.next = 0;
		o.cin_h = o.cout_h = o.next_h = 0;
		o.want = NULL;
	}
	if (o.rank == 0)
		printf("# Out of bounds values : %" PRIu64 " %s\n", total_bad,
		       total_bad || failed ? "FAILED" : "OK");
	free(all);
	return failed || total_bad ? -EIO : 0;
}


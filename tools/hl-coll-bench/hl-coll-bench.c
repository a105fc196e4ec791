// SPDX-License-Identifier: MIT
/*
 * hl-coll-bench - all-reduce / all-gather benchmark of libhlcoll, in the
 * manner of nccl-tests: one process per device (forked by hlcoll_launch()),
 * for each size the time of one collective (the slowest rank's mean over
 * the iterations), the algorithm bandwidth (size / time) and the bus
 * bandwidth (all-reduce: algbw * 2(n-1)/n; all-gather: algbw * (n-1)/n),
 * and a check column: the number of elements that differ, bit for bit,
 * from the host's computation (hlcoll_data.h) after the timed iterations.
 *
 * It prints numbers and asserts nothing about them; the exit status is 1
 * when a value was wrong or a collective failed, 2 for bad usage.
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

#include "hlthunk.h"
#include "../common/hltools.h"

#define MAX_SIZES	64

enum bench_op { OP_ALLREDUCE, OP_ALLGATHER };

struct bench {
	enum bench_op op;
	int nranks;
	uint32_t devices[HLCOLL_MAX_RANKS];
	uint64_t sizes[MAX_SIZES];
	int nsizes;
	int iters;
	int warmup;
	bool check;
	uint64_t seed;
	const char *perf_ctl;
	struct hlcoll_config cfg;
};

/* What each rank reports for one size */
struct bench_result {
	double time_us;
	uint64_t wrong;
	int32_t rc;
	uint32_t pad;
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Elements per rank (all-gather) or in all (all-reduce) of a size */
static uint64_t size_count(const struct bench *b, uint64_t size)
{
	if (b->op == OP_ALLGATHER)
		return size / 4 / b->nranks;
	return size / 4;
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

static int rank_main(int rank, int nranks, int boot_fd, void *arg)
{
	struct bench *b = arg;
	struct bench_result res, all[HLCOLL_MAX_RANKS];
	struct hlcoll_comm *comm = NULL;
	uint64_t max_count = 0, send_bytes, recv_bytes, count, n, i;
	struct hlcoll_bufs bufs = { 0 };
	double t0 = 0, t1, worst;
	int fd, s, it, rc, failed = 0;
	uint64_t wrong_total = 0;
	double busbw_sum = 0;

	fd = hlthunk_open_by_module_id(b->devices[rank]);
	if (fd < 0) {
		fprintf(stderr, "rank %d: device %u: %s\n", rank,
			b->devices[rank], strerror(-fd));
		return 1;
	}
	rc = hlcoll_comm_init(&comm, fd, rank, nranks, boot_fd, &b->cfg);
	if (rc) {
		fprintf(stderr, "rank %d: hlcoll_comm_init: %s\n", rank,
			strerror(-rc));
		hlthunk_close(fd);
		return 1;
	}

	for (s = 0; s < b->nsizes; s++)
		if (size_count(b, b->sizes[s]) > max_count)
			max_count = size_count(b, b->sizes[s]);
	send_bytes = max_count * 4;
	recv_bytes = b->op == OP_ALLGATHER ? send_bytes * nranks : send_bytes;

	rc = hlcoll_bufs_setup(fd, &bufs, send_bytes, recv_bytes);
	if (rc)
		goto out;

	if (rank == 0) {
		printf("# hl-coll-bench: %s, float32%s, %d ranks on devices",
		       b->op == OP_ALLGATHER ? "all-gather" : "all-reduce",
		       b->op == OP_ALLGATHER ? "" : " sum", nranks);
		for (i = 0; i < (uint64_t)nranks; i++)
			printf(" %u", hlcoll_comm_module_id(comm, (int)i));
		printf(", ring over the NIC, chunk %" PRIu64 " B\n",
		       hlcoll_comm_config(comm)->chunk_bytes);
		printf("# %d iterations after %d warm-up; time: the slowest rank's mean per iteration; check %s\n",
		       b->iters, b->warmup, b->check ? "on" : "off");
		printf("#\n");
		printf("# %10s %12s %7s %6s %12s %9s %9s %7s\n", "size", "count",
		       "type", "redop", "time", "algbw", "busbw", "#wrong");
		printf("# %10s %12s %7s %6s %12s %9s %9s %7s\n", "(B)",
		       "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)", "");
	}

	for (s = 0; s < b->nsizes; s++) {
		count = size_count(b, b->sizes[s]);
		memset(&res, 0, sizeof(res));
		if (!count)
			continue;

		/* This rank's input */
		for (i = 0; i < count; i++)
			bufs.stage[i] = hlcoll_data_value(b->seed, rank, i);
		rc = hlcoll_memcpy(comm, bufs.send_va, bufs.stage_va, count * 4);

		for (it = 0; !rc && it < b->warmup + b->iters; it++) {
			if (it == b->warmup) {
				rc = hlcoll_barrier(comm);
				perf_ctl(b, rank, "enable\n");
				t0 = now_us();
				if (rc)
					break;
			}
			if (b->op == OP_ALLGATHER)
				rc = hlcoll_allgather(comm, bufs.send_va, bufs.recv_va,
						      count, HLCOLL_FLOAT32);
			else
				rc = hlcoll_allreduce(comm, bufs.send_va, bufs.recv_va,
						      count, HLCOLL_FLOAT32,
						      HLCOLL_SUM);
		}
		t1 = now_us();
		perf_ctl(b, rank, "disable\n");
		res.time_us = b->iters ? (t1 - t0) / b->iters : 0;
		res.rc = rc;

		if (!rc && b->check) {
			n = b->op == OP_ALLGATHER ? count * nranks : count;
			rc = hlcoll_memcpy(comm, bufs.stage_va, bufs.recv_va, n * 4);
			for (i = 0; !rc && i < n; i++) {
				uint32_t want = b->op == OP_ALLGATHER ?
					hlcoll_data_allgather(b->seed, count, i) :
					hlcoll_data_allreduce(b->seed, nranks,
							      count, i);

				if (bufs.stage[i] == want)
					continue;
				if (!res.wrong)
					fprintf(stderr,
						"rank %d: size %" PRIu64 ": element %" PRIu64 " is 0x%08x, expected 0x%08x\n",
						rank, b->sizes[s], i, bufs.stage[i],
						want);
				res.wrong++;
			}
			res.rc = rc;
		}

		rc = hlcoll_boot_allgather(boot_fd, nranks, &res, all,
					   sizeof(res));
		if (rc) {
			failed = 1;
			break;
		}
		worst = 0;
		res.wrong = 0;
		for (i = 0; i < (uint64_t)nranks; i++) {
			if (all[i].time_us > worst)
				worst = all[i].time_us;
			res.wrong += all[i].wrong;
			if (all[i].rc)
				failed = 1;
		}
		if (rank == 0) {
			uint64_t bytes = b->op == OP_ALLGATHER ?
					 count * 4 * nranks : count * 4;
			double algbw = worst > 0 ? bytes / worst / 1e3 : 0;
			double factor = b->op == OP_ALLGATHER ?
					(double)(nranks - 1) / nranks :
					2.0 * (nranks - 1) / nranks;
			char wrong[24];

			if (!b->check)
				snprintf(wrong, sizeof(wrong), "N/A");
			else
				snprintf(wrong, sizeof(wrong), "%" PRIu64,
					 res.wrong);
			printf("  %10" PRIu64 " %12" PRIu64 " %7s %6s %12.1f %9.4f %9.4f %7s%s\n",
			       bytes, b->op == OP_ALLGATHER ? count * nranks : count,
			       "float", b->op == OP_ALLGATHER ? "none" : "sum",
			       worst, algbw, algbw * factor, wrong,
			       failed ? "  FAILED" : "");
			busbw_sum += algbw * factor;
		}
		wrong_total += res.wrong;
		if (failed)
			break;
	}

	if (rank == 0 && b->nsizes) {
		printf("# wrong values: %" PRIu64 " %s\n", wrong_total,
		       wrong_total || failed ? "FAILED" : "OK");
		printf("# average bus bandwidth: %.4f GB/s\n",
		       busbw_sum / b->nsizes);
	}
	rc = failed || wrong_total ? -EIO : 0;

out:
	if (rc == -ENOMEM)
		fprintf(stderr, "rank %d: out of memory for %" PRIu64 " B buffers\n",
			rank, recv_bytes);
	hlcoll_bufs_release(fd, &bufs);
	hlcoll_comm_destroy(comm);
	hlthunk_close(fd);
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

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: hl-coll-bench [OPTIONS]\n"
		"\n"
		"Ring all-reduce (float32 sum) or all-gather across the devices, one\n"
		"process per device, data over the NIC, reduction on the device; prints\n"
		"for each size the time, algbw and busbw, and the number of values that\n"
		"differ from the host's computation.\n"
		"\n"
		"  -o, --op OP          allreduce (default) or allgather\n"
		"  -g, --ranks N        use the first N devices (default: all)\n"
		"  -d, --devices LIST   module ids of the ranks' devices, e.g. 0,2,1\n"
		"  -b, --minbytes SIZE  smallest size (default 4K)\n"
		"  -e, --maxbytes SIZE  largest size (default 1M)\n"
		"  -f, --stepfactor F   size multiplier (default 4)\n"
		"  -s, --sizes LIST     explicit sizes instead, e.g. 4,1K+4,1M+12\n"
		"                       (all-gather: the size of the whole result)\n"
		"  -n, --iters N        timed iterations (default 5)\n"
		"  -w, --warmup N       untimed iterations first (default 1)\n"
		"  -c, --check 0|1      compare with the host's result (default 1)\n"
		"  -C, --chunk SIZE     NIC message size (default 256K)\n"
		"  -S, --seed N         input seed\n"
		"  -P, --perf-ctl FIFO  rank 0 writes enable/disable to FIFO around\n"
		"                       the timed iterations (perf record -D -1\n"
		"                       --control fifo:FIFO)\n"
		"  -h, --help\n"
		"\n"
		"Sizes are bytes (K, M, G suffixes; +N adds N bytes); the element count\n"
		"is size / 4 (all-gather: size / 4 / ranks per rank).\n"
		"Exit status: 0 all values right, 1 a wrong value or a failure, 2 usage.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "op", required_argument, NULL, 'o' },
		{ "ranks", required_argument, NULL, 'g' },
		{ "devices", required_argument, NULL, 'd' },
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "sizes", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "check", required_argument, NULL, 'c' },
		{ "chunk", required_argument, NULL, 'C' },
		{ "seed", required_argument, NULL, 'S' },
		{ "perf-ctl", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t minb = 4096, maxb = 1 << 20, factor = 4, v;
	uint32_t found[HLCOLL_MAX_RANKS];
	struct bench b;
	char *list = NULL, *tok, *save;
	bool have_devices = false;
	int c, nfound, rc, i;

	memset(&b, 0, sizeof(b));
	b.op = OP_ALLREDUCE;
	b.iters = 5;
	b.warmup = 1;
	b.check = true;
	b.seed = 0xc011ec7111e5eedull;

	while ((c = getopt_long(argc, argv, "o:g:d:b:e:f:s:n:w:c:C:S:P:h", opts,
				NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!strcmp(optarg, "allreduce") ||
			    !strcmp(optarg, "all_reduce"))
				b.op = OP_ALLREDUCE;
			else if (!strcmp(optarg, "allgather") ||
				 !strcmp(optarg, "all_gather"))
				b.op = OP_ALLGATHER;
			else
				goto bad;
			break;
		case 'g':
			b.nranks = atoi(optarg);
			if (b.nranks < 1 || b.nranks > HLCOLL_MAX_RANKS)
				goto bad;
			break;
		case 'd':
			b.nranks = 0;
			list = strdup(optarg);
			for (tok = strtok_r(list, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (b.nranks == HLCOLL_MAX_RANKS)
					goto bad;
				b.devices[b.nranks++] = (uint32_t)atoi(tok);
			}
			free(list);
			have_devices = true;
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
		case 'h':
			usage(stdout);
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
	if (!have_devices) {
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

	setvbuf(stdout, NULL, _IOLBF, 0);
	rc = hlcoll_launch(b.nranks, rank_main, &b);
	if (rc < 0)
		fprintf(stderr, "hl-coll-bench: launch: %s\n", strerror(-rc));
	return rc ? 1 : 0;

bad:
	usage(stderr);
	return 2;
}

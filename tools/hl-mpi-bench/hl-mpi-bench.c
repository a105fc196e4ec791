// SPDX-License-Identifier: MIT
/*
 * hl-mpi-bench: Open MPI's collectives on host memory, the peer that a user
 * would pick instead of libhlcoll between hosts. Prints nccl-tests' columns
 * (and, with -j, one JSON line per size) for MPI_Allreduce, MPI_Allgather,
 * MPI_Reduce_scatter_block and MPI_Alltoall of float32 (sum), checking every
 * element of the result against the value each rank can compute.
 *
 *   mpirun -np N hl-mpi-bench [-o allreduce|allgather|reducescatter|alltoall]
 *                             [-s SIZES] [-n ITERS] [-w WARMUP] [-j]
 *
 * SIZES is a comma-separated list of byte counts with K/M/G suffixes (the
 * whole buffer, as nccl-tests' size column). busbw is nccl-tests': algbw
 * times 2(n-1)/n for all-reduce, (n-1)/n for the others. Exit status 1
 * when a value is wrong.
 */
#include <errno.h>
#include <inttypes.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum op { OP_ALLREDUCE, OP_ALLGATHER, OP_REDUCESCATTER, OP_ALLTOALL };

static const char *const op_names[] = {
	[OP_ALLREDUCE] = "allreduce",
	[OP_ALLGATHER] = "allgather",
	[OP_REDUCESCATTER] = "reducescatter",
	[OP_ALLTOALL] = "alltoall",
};

static int g_rank, g_nranks;

static void die(const char *what)
{
	if (g_rank == 0)
		fprintf(stderr, "hl-mpi-bench: %s\n", what);
	MPI_Abort(MPI_COMM_WORLD, 2);
	exit(2);
}

static uint64_t parse_size(const char *s, char **end)
{
	uint64_t v = strtoull(s, end, 10);

	switch (**end) {
	case 'G': v <<= 10; /* fall through */
	case 'M': v <<= 10; /* fall through */
	case 'K': v <<= 10; (*end)++; break;
	default: break;
	}
	return v;
}

/* Exactly representable in float32 and its sums over 64 ranks */
static float value(int rank, uint64_t i)
{
	return (float)((rank * 7 + i * 13) % 1021);
}

/*
 * Run one collective on @count elements per rank's block; returns the
 * number of wrong elements of this rank's result.
 */
static uint64_t run_once(enum op op, float *in, float *out, uint64_t block,
			 int check)
{
	uint64_t i, wrong = 0, n = g_nranks;
	int r;

	switch (op) {
	case OP_ALLREDUCE:
		MPI_Allreduce(in, out, (int)block, MPI_FLOAT, MPI_SUM,
			      MPI_COMM_WORLD);
		for (i = 0; check && i < block; i++) {
			float want = 0;

			for (r = 0; r < g_nranks; r++)
				want += value(r, i);
			wrong += out[i] != want;
		}
		break;
	case OP_ALLGATHER:
		MPI_Allgather(in, (int)block, MPI_FLOAT, out, (int)block,
			      MPI_FLOAT, MPI_COMM_WORLD);
		for (i = 0; check && i < block * n; i++)
			wrong += out[i] != value((int)(i / block), i % block);
		break;
	case OP_REDUCESCATTER:
		MPI_Reduce_scatter_block(in, out, (int)block, MPI_FLOAT,
					 MPI_SUM, MPI_COMM_WORLD);
		for (i = 0; check && i < block; i++) {
			float want = 0;

			for (r = 0; r < g_nranks; r++)
				want += value(r, g_rank * block + i);
			wrong += out[i] != want;
		}
		break;
	case OP_ALLTOALL:
		MPI_Alltoall(in, (int)block, MPI_FLOAT, out, (int)block,
			     MPI_FLOAT, MPI_COMM_WORLD);
		/* Block j of rank r's input goes to rank j's block r */
		for (i = 0; check && i < block * n; i++)
			wrong += out[i] != value((int)(i / block),
						 g_rank * block + i % block);
		break;
	}
	return wrong;
}

int main(int argc, char **argv)
{
	const char *sizes = "4K,64K,1M,4M";
	int iters = 5, warmup = 1, json = 0, c, it;
	enum op op = OP_ALLREDUCE;
	uint64_t total_wrong = 0;
	char *p, *end;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &g_nranks);

	while ((c = getopt(argc, argv, "o:s:n:w:j")) != -1) {
		switch (c) {
		case 'o':
			for (op = 0; op < 4 && strcmp(optarg, op_names[op]); op++)
				;
			if (op == 4)
				die("-o: allreduce, allgather, reducescatter or alltoall");
			break;
		case 's': sizes = optarg; break;
		case 'n': iters = atoi(optarg); break;
		case 'w': warmup = atoi(optarg); break;
		case 'j': json = 1; break;
		default: die("usage: see the comment atop hl-mpi-bench.c");
		}
	}
	if (iters < 1 || warmup < 0)
		die("-n must be >= 1 and -w >= 0");

	if (g_rank == 0) {
		printf("# hl-mpi-bench: %s, float32 sum, %d ranks, %d iterations after %d warm-up\n",
		       op_names[op], g_nranks, iters, warmup);
		printf("#%11s %12s %7s %6s %12s %9s %9s %7s\n", "size", "count",
		       "type", "redop", "time", "algbw", "busbw", "#wrong");
		printf("#%11s %12s %7s %6s %12s %9s %9s %7s\n", "(B)",
		       "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)", "");
	}

	for (p = (char *)sizes; *p; p = *end ? end + 1 : end) {
		uint64_t size = parse_size(p, &end), block, i, wrong;
		uint64_t in_elems, out_elems;
		double t0, t, tmax, algbw, factor;
		float *in, *out;

		if (*end && *end != ',')
			die("-s: sizes like 4K,1M,64M");
		/* size is the whole buffer; a block is one rank's share */
		block = size / sizeof(float);
		if (op != OP_ALLREDUCE)
			block /= g_nranks;
		if (!block)
			continue;
		in_elems = op == OP_ALLGATHER ? block : block *
			   (op == OP_ALLREDUCE ? 1 : g_nranks);
		out_elems = op == OP_ALLREDUCE || op == OP_REDUCESCATTER ?
			    block : block * g_nranks;
		in = malloc(in_elems * sizeof(float));
		out = malloc(out_elems * sizeof(float));
		if (!in || !out)
			die("out of memory");
		for (i = 0; i < in_elems; i++)
			in[i] = value(g_rank, i);

		for (it = 0; it < warmup; it++)
			run_once(op, in, out, block, 0);
		wrong = 0;
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		for (it = 0; it < iters; it++)
			run_once(op, in, out, block, 0);
		t = (MPI_Wtime() - t0) / iters;
		wrong = run_once(op, in, out, block, 1);
		MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX,
			      MPI_COMM_WORLD);
		MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_UINT64_T, MPI_SUM,
			      MPI_COMM_WORLD);
		total_wrong += wrong;

		size = (op == OP_ALLREDUCE ? block : block * g_nranks) *
		       sizeof(float);
		algbw = size / tmax / 1e9;
		factor = op == OP_ALLREDUCE ?
			 2.0 * (g_nranks - 1) / g_nranks :
			 (double)(g_nranks - 1) / g_nranks;
		if (g_rank == 0) {
			printf("%12" PRIu64 " %12" PRIu64 " %7s %6s %12.1f %9.4f %9.4f %7" PRIu64 "\n",
			       size, size / sizeof(float), "float",
			       op == OP_ALLGATHER || op == OP_ALLTOALL ? "none" : "sum",
			       tmax * 1e6, algbw, algbw * factor, wrong);
			if (json)
				printf("{\"series\":\"coll\",\"impl\":\"mpi\",\"op\":\"%s\",\"ranks\":%d,\"size\":%" PRIu64 ",\"time_us\":%.1f,\"algbw\":%.6f,\"busbw\":%.6f,\"wrong\":%" PRIu64 "}\n",
				       op_names[op], g_nranks, size, tmax * 1e6,
				       algbw, algbw * factor, wrong);
			fflush(stdout);
		}
		free(in);
		free(out);
	}
	if (g_rank == 0)
		printf("# wrong values: %" PRIu64 " %s\n", total_wrong,
		       total_wrong ? "FAILED" : "OK");
	MPI_Finalize();
	return total_wrong ? 1 : 0;
}

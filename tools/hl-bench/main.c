// SPDX-License-Identifier: MIT
/*
 * hl-bench: the options and the series by name (hl-bench.h says what
 * each series measures)
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hlthunk.h"
#include "hl-bench.h"

int g_dev;			/* -d: device (module id) */
uint64_t g_sizes[MAX_SIZES];	/* -s: sizes */
int g_nsizes;
int g_iters;			/* -n: repetitions (0: default) */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: hl-bench [-d DEV] [-s SIZES] [-n ITERS] [-g RANKS] [-o COLLS] SERIES\n"
		"  SERIES: dmabuf | mem | cs | copy | reduce | coll-cpu\n"
		"  -d DEV    device (module id), default 0\n"
		"  -p PEER   copy, reduce: the CPU peer, the n-th ivshmem function (unbound)\n"
		"  -s SIZES  comma-separated sizes (4K, 2M, 1G, ...)\n"
		"  -n ITERS  samples per point (best reported; default 3; cs: 200, median)\n"
		"  -g RANKS  coll-cpu: number of ranks (devices 0..RANKS-1), default 2\n"
		"  -o COLLS  coll-cpu: allreduce,allgather,reducescatter,broadcast,reduce,\n"
		"            alltoall,sendrecv or all (default allreduce,allgather)\n"
		"One JSON object per measurement on stdout (see tools/hl-bench/README.md).\n");
}

int main(int argc, char **argv)
{
	unsigned int colls = 1u << CPU_ALLREDUCE | 1u << CPU_ALLGATHER;
	int c, ranks = 2, peer = -1;
	const char *cmd;

	while ((c = getopt(argc, argv, "d:s:n:g:p:o:h")) != -1) {
		switch (c) {
		case 'd':
			g_dev = atoi(optarg);
			break;
		case 's':
			if (parse_sizes(optarg)) {
				usage(stderr);
				return 2;
			}
			break;
		case 'n':
			g_iters = atoi(optarg);
			break;
		case 'g':
			ranks = atoi(optarg);
			break;
		case 'p':
			peer = atoi(optarg);
			break;
		case 'o':
			if (parse_colls(optarg, &colls)) {
				usage(stderr);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || g_iters < 0 ||
	    ((!strcmp(argv[optind], "copy") ||
	      !strcmp(argv[optind], "reduce")) && peer < 0)) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind];
	if (!strcmp(cmd, "dmabuf"))
		return cmd_dmabuf();
	if (!strcmp(cmd, "mem"))
		return cmd_mem();
	if (!strcmp(cmd, "cs"))
		return cmd_cs();
	if (!strcmp(cmd, "copy"))
		return cmd_copy(peer);
	if (!strcmp(cmd, "reduce"))
		return cmd_reduce(peer);
	if (!strcmp(cmd, "coll-cpu"))
		return cmd_coll_cpu(ranks, colls);
	usage(stderr);
	return 2;
}

/* SPDX-License-Identifier: MIT */
/*
 * bench.h - what hl-coll-bench.c shares with its overlap measure
 * (overlap.c, -O) and its launcher across hosts (hosts.c).
 */
#ifndef HL_COLL_BENCH_H
#define HL_COLL_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hlcoll.h"
#include "hlcoll_data.h"

#define MAX_SIZES	64

enum coll {
	C_ALLREDUCE, C_ALLGATHER, C_REDUCE_SCATTER, C_BROADCAST, C_REDUCE,
	C_ALLTOALL, C_SENDRECV, C_NUM
};

struct bench {
	bool colls[C_NUM];
	enum hlcoll_dtype dtype;
	enum hlcoll_redop op;
	int root;
	int nranks;
	bool have_devices;
	uint32_t devices[HLCOLL_MAX_RANKS];
	uint64_t sizes[MAX_SIZES];
	int nsizes;
	int iters;
	int warmup;
	bool check;
	bool in_place;
	bool overlap;		/* -O: overlap.c's measure instead */
	uint64_t seed;
	int corrupt;		/* HLCOLL_BENCH_CORRUPT: that rank's input; -1 */
	const char *perf_ctl;
	struct hlcoll_config cfg;
};

extern const char * const coll_names[];
extern const char * const type_names[];
extern const char * const op_names[];

/* CLOCK_MONOTONIC in microseconds */
double now_us(void);
/* Element @i of rank @rank's result of @c; false: nothing to check there */
bool expected(const struct bench *b, enum coll c, int n, int rank,
	      uint64_t count, uint64_t i, uint32_t *want);
/* Element @i of an array of elements of @es bytes */
void elem_put(void *p, size_t es, uint64_t i, uint32_t v);
uint32_t elem_get(const void *p, size_t es, uint64_t i);
/* The rank's device @idx of -d's (or every device), opened; -errno */
int open_device(const struct bench *b, int idx);
/* One rank's benchmark on its open device @fd; the exit status */
int bench_rank(struct bench *b, int rank, int nranks,
	       const struct hlcoll_unique_id *id, int fd);

/* overlap.c: -O, every size of @b; 0, or -errno / -EIO a wrong value */
int overlap_run(struct hlcoll_comm *comm, const struct bench *b,
		struct hlcoll_bufs *bufs, int fd);

#ifndef HLCOLL_BENCH_MPI
/*
 * hosts.c: ranks across hosts when the environment asks for it
 * (HLCOLL_BENCH_NRANKS): 1 and *@rc the exit status; else 0
 */
int hosts_launch(struct bench *b, int *rc);
#endif

#endif /* HL_COLL_BENCH_H */

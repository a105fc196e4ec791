/* SPDX-License-Identifier: MIT */
/*
 * hlcoll_data.h - reproducible inputs of the collectives and what the host
 * computes from them, for the benchmark's check column, the demo and the
 * tests. Header-only; no state: element i of rank r's input is a hash of
 * (seed, r, i), so that any process can compute any rank's input and the
 * expected result without storing them.
 *
 * Not part of libhlcoll's interface and not installed: the in-tree tools
 * (hl-coll-bench, hl-coll-demo, hl-bench) and tests/collective include it
 * from lib/hlcoll. It uses only the public headers.
 */
#ifndef HLCOLL_DATA_H
#define HLCOLL_DATA_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hlcoll.h"
#include "hlthunk.h"

static inline uint64_t hlcoll_data_mix(uint64_t x)
{
	/* splitmix64's finaliser */
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/*
 * Element @i of rank @rank's input: a float32 of either sign with an
 * exponent in 2^-8 .. 2^8 and a random significand, so that sums round,
 * cancel and tie (but never overflow or make a NaN).
 */
static inline uint32_t hlcoll_data_value(uint64_t seed, int rank, uint64_t i)
{
	uint64_t h = hlcoll_data_mix(seed ^ hlcoll_data_mix(((uint64_t)rank << 48) ^ i));
	uint32_t exp = 127 - 8 + (uint32_t)((h >> 40) % 17);

	return ((uint32_t)h & 0x807fffffu) | (exp << 23);
}

static inline float hlcoll_data_f(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static inline uint32_t hlcoll_data_u(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

/* The segment (hlcoll_segment()) that element @i of an all-reduce is in */
static inline int hlcoll_data_segment_of(uint64_t count, int nranks,
					 uint64_t i)
{
	uint64_t q = count / nranks, r = count % nranks;

	if (i < r * (q + 1))
		return (int)(i / (q + 1));
	return (int)(r + (i - r * (q + 1)) / q);
}

/*
 * Element @i of the all-reduce (sum) of @count elements over @nranks
 * ranks, added in the ring's order (hlcoll.h): starting at the rank of the
 * element's segment, each next rank's value added to the running sum with
 * one float addition.
 */
static inline uint32_t hlcoll_data_allreduce(uint64_t seed, int nranks,
					     uint64_t count, uint64_t i)
{
	int k = hlcoll_data_segment_of(count, nranks, i), j;
	float acc = hlcoll_data_f(hlcoll_data_value(seed, k, i));

	for (j = 1; j < nranks; j++)
		acc = hlcoll_data_f(hlcoll_data_value(seed, (k + j) % nranks,
						      i)) + acc;
	return hlcoll_data_u(acc);
}

/*
 * The same sum in another order: starting at the rank after the segment's
 * (a negative control: a device that summed in this order would be caught)
 */
static inline uint32_t hlcoll_data_allreduce_wrong_order(uint64_t seed,
							 int nranks,
							 uint64_t count,
							 uint64_t i)
{
	int k = (hlcoll_data_segment_of(count, nranks, i) + 1) % nranks, j;
	float acc = hlcoll_data_f(hlcoll_data_value(seed, k, i));

	for (j = 1; j < nranks; j++)
		acc = hlcoll_data_f(hlcoll_data_value(seed, (k + j) % nranks,
						      i)) + acc;
	return hlcoll_data_u(acc);
}

/*
 * Sum of element @i of every rank's input, starting at rank @start and
 * going around (hlcoll.h: reduce starts at the root, reduce-scatter's block
 * k at rank k + 1)
 */
static inline uint32_t hlcoll_data_sum_from(uint64_t seed, int nranks,
					    int start, uint64_t i)
{
	float acc = hlcoll_data_f(hlcoll_data_value(seed, start, i));
	int j;

	for (j = 1; j < nranks; j++)
		acc = hlcoll_data_f(hlcoll_data_value(seed,
						      (start + j) % nranks,
						      i)) + acc;
	return hlcoll_data_u(acc);
}

/* Element @i of rank @rank's reduce-scatter result (@recvcount per rank) */
static inline uint32_t hlcoll_data_reduce_scatter(uint64_t seed, int nranks,
						  int rank, uint64_t recvcount,
						  uint64_t i)
{
	return hlcoll_data_sum_from(seed, nranks, (rank + 1) % nranks,
				    (uint64_t)rank * recvcount + i);
}

/* Element @i of the reduce at @root */
static inline uint32_t hlcoll_data_reduce(uint64_t seed, int nranks, int root,
					  uint64_t i)
{
	return hlcoll_data_sum_from(seed, nranks, root, i);
}

/* Element @i of rank @rank's all-to-all result (@count per block) */
static inline uint32_t hlcoll_data_alltoall(uint64_t seed, int rank,
					    uint64_t count, uint64_t i)
{
	return hlcoll_data_value(seed, (int)(i / count),
				 (uint64_t)rank * count + i % count);
}

/* ------------------------------------------------------------------------
 * Every type and operation (hlcoll_reduce_supported()): the host's own
 * arithmetic, independent of the engine's integer code
 */

/* binary32 -> bfloat16, to nearest, ties to even: the nearer of the two */
static inline uint16_t hlcoll_data_to_bf16(float f)
{
	uint32_t u = hlcoll_data_u(f), lo = u & 0xffff0000u, hi = lo + 0x10000u;
	double dl, dh;

	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40);
	if ((u & 0x7fffffffu) == 0x7f800000u || u == lo)
		return (uint16_t)(u >> 16);
	dl = (double)f - (double)hlcoll_data_f(lo);
	/* Past the largest finite, the upper neighbour is 2^128 */
	if ((hi & 0x7f800000u) == 0x7f800000u)
		dh = (u & 0x80000000u ? -0x1p128 : 0x1p128) - (double)f;
	else
		dh = (double)hlcoll_data_f(hi) - (double)f;
	dl = dl < 0 ? -dl : dl;
	dh = dh < 0 ? -dh : dh;
	if (dl < dh || (dl == dh && !((lo >> 16) & 1)))
		return (uint16_t)(lo >> 16);
	return (uint16_t)(hi >> 16);
}

static inline float hlcoll_data_from_bf16(uint16_t h)
{
	return hlcoll_data_f((uint32_t)h << 16);
}

static inline uint16_t hlcoll_data_to_f16(float f)
{
	_Float16 h = (_Float16)f;	/* the host's conversion: ties to even */
	uint16_t u;

	memcpy(&u, &h, sizeof(u));
	return u;
}

static inline float hlcoll_data_from_f16(uint16_t u)
{
	_Float16 h;

	memcpy(&h, &u, sizeof(h));
	return (float)h;
}

/*
 * Element @i of rank @rank's input in type @t (the low 16 bits for the
 * 2-byte types): floats of either sign within 2^-8 .. 2^8 (no zero, no
 * NaN); int32 of any value (sums wrap)
 */
static inline uint32_t hlcoll_data_elem(uint64_t seed, int rank, uint64_t i,
					enum hlcoll_dtype t)
{
	uint32_t v = hlcoll_data_value(seed, rank, i);

	switch (t) {
	case HLCOLL_BFLOAT16:
		return v >> 16;
	case HLCOLL_FLOAT16:
		/* sign, exponent 15 - 8 .. 15 + 8, 10 random bits */
		return ((v >> 16) & 0x8000u) |
		       ((15 - 8 + (v >> 23) % 17) << 10) | (v & 0x3ffu);
	case HLCOLL_INT32:
		return (uint32_t)hlcoll_data_mix(v ^ seed);
	default:
		return v;
	}
}

static inline float hlcoll_data_tof(enum hlcoll_dtype t, uint32_t x)
{
	return t == HLCOLL_BFLOAT16 ? hlcoll_data_from_bf16((uint16_t)x) :
	       t == HLCOLL_FLOAT16 ? hlcoll_data_from_f16((uint16_t)x) :
	       hlcoll_data_f(x);
}

static inline uint32_t hlcoll_data_fromf(enum hlcoll_dtype t, float f)
{
	return t == HLCOLL_BFLOAT16 ? hlcoll_data_to_bf16(f) :
	       t == HLCOLL_FLOAT16 ? hlcoll_data_to_f16(f) : hlcoll_data_u(f);
}

/* @x op @acc, as the REDUCE packet computes it (x is its dst) */
static inline uint32_t hlcoll_data_op(enum hlcoll_dtype t,
				      enum hlcoll_redop op, uint32_t x,
				      uint32_t acc)
{
	float fx, fa;

	if (t == HLCOLL_INT32) {
		if (op == HLCOLL_MIN)
			return (int32_t)acc < (int32_t)x ? acc : x;
		if (op == HLCOLL_MAX)
			return (int32_t)acc > (int32_t)x ? acc : x;
		if (op == HLCOLL_PROD)
			return x * acc;		/* wraps */
		return x + acc;
	}
	fx = hlcoll_data_tof(t, x);
	fa = hlcoll_data_tof(t, acc);
	if (op == HLCOLL_MIN)
		return fa < fx ? acc : x;
	if (op == HLCOLL_MAX)
		return fa > fx ? acc : x;
	/* 16-bit products are exact in float: one rounding, as the device's */
	if (op == HLCOLL_PROD)
		return hlcoll_data_fromf(t, fx * fa);
	return hlcoll_data_fromf(t, fx + fa);
}

/*
 * An average's last step: @sum / @n (int32: truncated toward zero; floats:
 * the float quotient, rounded to the 16-bit types: n <= 64 is a value of
 * both, so rounding the float quotient again is one correct rounding)
 */
static inline uint32_t hlcoll_data_div(enum hlcoll_dtype t, uint32_t sum,
				       int n)
{
	if (t == HLCOLL_INT32)
		return (uint32_t)((int32_t)sum / n);
	return hlcoll_data_fromf(t, hlcoll_data_tof(t, sum) / (float)n);
}

/*
 * acc = x_start[i]; acc = x_(start+j)[i] op acc for j = 1 .. n - 1 (an
 * average: sums, then acc / n)
 */
static inline uint32_t hlcoll_data_reduce_from(uint64_t seed, int nranks,
					       int start, uint64_t i,
					       enum hlcoll_dtype t,
					       enum hlcoll_redop op)
{
	uint32_t acc = hlcoll_data_elem(seed, start, i, t);
	int j;

	for (j = 1; j < nranks; j++)
		acc = hlcoll_data_op(t, op == HLCOLL_AVG ? HLCOLL_SUM : op,
				     hlcoll_data_elem(seed, (start + j) % nranks,
						      i, t), acc);
	/* An average: the sum in the same order, divided once at the end */
	return op == HLCOLL_AVG ? hlcoll_data_div(t, acc, nranks) : acc;
}

/* Element @i of the all-gather of @sendcount elements per rank */
static inline uint32_t hlcoll_data_allgather(uint64_t seed,
					     uint64_t sendcount, uint64_t i)
{
	return hlcoll_data_value(seed, (int)(i / sendcount), i % sendcount);
}

/**
 * struct hlcoll_bufs - what the tools run a collective on: a rank's device
 * send and receive buffers and a host staging buffer, all mapped.
 * @send_h: device allocation of the send buffer.
 * @recv_h: device allocation of the receive buffer.
 * @send_va: device VA of the send buffer.
 * @recv_va: device VA of the receive buffer.
 * @stage: the host staging buffer (page aligned).
 * @stage_va: its device VA.
 */
struct hlcoll_bufs {
	uint64_t send_h;
	uint64_t recv_h;
	uint64_t send_va;
	uint64_t recv_va;
	uint32_t *stage;
	uint64_t stage_va;
};

/*
 * Allocate and map the buffers (staging as large as the receive buffer);
 * 0 or -ENOMEM. hlcoll_bufs_release() undoes what was done, either way.
 */
static inline int hlcoll_bufs_setup(int fd, struct hlcoll_bufs *b,
				    uint64_t send_bytes, uint64_t recv_bytes)
{
	memset(b, 0, sizeof(*b));
	b->send_h = hlthunk_device_memory_alloc(fd, send_bytes, 0, false, false);
	b->recv_h = hlthunk_device_memory_alloc(fd, recv_bytes, 0, false, false);
	if (!b->send_h || !b->recv_h)
		return -ENOMEM;
	b->send_va = hlthunk_device_memory_map(fd, b->send_h, 0);
	b->recv_va = hlthunk_device_memory_map(fd, b->recv_h, 0);
	if (posix_memalign((void **)&b->stage, 4096, recv_bytes)) {
		b->stage = NULL;
		return -ENOMEM;
	}
	b->stage_va = hlthunk_host_memory_map(fd, b->stage, 0, recv_bytes);
	return b->send_va && b->recv_va && b->stage_va ? 0 : -ENOMEM;
}

static inline void hlcoll_bufs_release(int fd, struct hlcoll_bufs *b)
{
	if (b->stage_va)
		hlthunk_memory_unmap(fd, b->stage_va);
	free(b->stage);
	if (b->send_va)
		hlthunk_memory_unmap(fd, b->send_va);
	if (b->recv_va)
		hlthunk_memory_unmap(fd, b->recv_va);
	if (b->send_h)
		hlthunk_device_memory_free(fd, b->send_h);
	if (b->recv_h)
		hlthunk_device_memory_free(fd, b->recv_h);
	memset(b, 0, sizeof(*b));
}

#endif /* HLCOLL_DATA_H */

// SPDX-License-Identifier: MIT
/*
 * smoke_hlcoll.c - link against libhlcoll (and libhlthunk, which its
 * pkg-config file requires) and run what needs no device: argument checks
 * (-EINVAL), the segment arithmetic of the all-reduce, and the launcher
 * with its bootstrap exchange between real processes.
 *
 * Exit status: the number of failed checks.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <hlcoll.h>
#include <hlthunk.h>

static int failed;

static void check(int cond, const char *what, long long v)
{
	if (!cond) {
		failed++;
		fprintf(stderr, "smoke_hlcoll: FAIL %s (%lld)\n", what, v);
	}
}

#define CHECK_EQ(call, want)						\
	do {								\
		long long v_ = (long long)(call);			\
		check(v_ == (long long)(want), #call " == " #want, v_);	\
	} while (0)

/* Every rank sends its rank and 100 + rank; each checks all it gets */
static int rank_exchange(int rank, int nranks, int boot_fd, void *arg)
{
	int mine[2] = { rank, 100 + rank }, all[2 * HLCOLL_MAX_RANKS];
	int r;

	(void)arg;
	if (hlcoll_boot_allgather(boot_fd, nranks, mine, all, sizeof(mine)))
		return 20;
	for (r = 0; r < nranks; r++)
		if (all[2 * r] != r || all[2 * r + 1] != 100 + r)
			return 21;
	return 0;
}

/* Rank 1 fails with status 7, after one exchange */
static int rank_fails(int rank, int nranks, int boot_fd, void *arg)
{
	int rc = rank_exchange(rank, nranks, boot_fd, arg);

	return rc ? rc : rank == 1 ? 7 : 0;
}

int main(void)
{
	struct hlcoll_comm *comm = NULL;
	uint64_t first = 0;

	CHECK_EQ(hlcoll_launch(0, rank_exchange, NULL), -EINVAL);
	CHECK_EQ(hlcoll_launch(HLCOLL_MAX_RANKS + 1, rank_exchange, NULL),
		 -EINVAL);
	CHECK_EQ(hlcoll_launch(2, NULL, NULL), -EINVAL);
	CHECK_EQ(hlcoll_comm_init(NULL, 0, 0, 1, -1, NULL), -EINVAL);
	CHECK_EQ(hlcoll_comm_init(&comm, -1, 0, 1, -1, NULL), -EINVAL);
	CHECK_EQ(hlcoll_comm_init(&comm, 0, 2, 2, 3, NULL), -EINVAL);
	check(comm == NULL, "no communicator after a failed init", 0);
	CHECK_EQ(hlcoll_allreduce(NULL, 4, 4, 1, HLCOLL_FLOAT32, HLCOLL_SUM),
		 -EINVAL);
	CHECK_EQ(hlcoll_allgather(NULL, 4, 4, 1, HLCOLL_FLOAT32), -EINVAL);
	CHECK_EQ(hlcoll_memcpy(NULL, 4, 4, 4), -EINVAL);
	CHECK_EQ(hlcoll_boot_allgather(-1, 2, &first, &first, 1), -EINVAL);
	hlcoll_comm_destroy(NULL);

	/* 10 elements over 3 ranks: 4, 3, 3 */
	CHECK_EQ(hlcoll_segment(10, 3, 0, &first), 4);
	CHECK_EQ(first, 0);
	CHECK_EQ(hlcoll_segment(10, 3, 1, &first), 3);
	CHECK_EQ(first, 4);
	CHECK_EQ(hlcoll_segment(10, 3, 2, &first), 3);
	CHECK_EQ(first, 7);
	/* Fewer elements than ranks: empty segments at the end */
	CHECK_EQ(hlcoll_segment(2, 4, 3, &first), 0);

	CHECK_EQ(hlcoll_launch(1, rank_exchange, NULL), 0);
	CHECK_EQ(hlcoll_launch(3, rank_exchange, NULL), 0);
	CHECK_EQ(hlcoll_launch(3, rank_fails, NULL), 7);

	/* libhlthunk, linked through hlcoll's pkg-config Requires */
	CHECK_EQ(hlthunk_close(-1), -EBADF);

	printf("smoke_hlcoll: %s\n", failed ? "FAILED" : "passed");
	return failed;
}

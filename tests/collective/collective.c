// SPDX-License-Identifier: MIT
/*
 * collective: libhlcoll's ring all-reduce and all-gather on the emulated
 * devices, one process per device (hlcoll_launch()), data over the NIC,
 * the sum on the device (REDUCE). Every rank checks every element of its
 * result bit for bit against the host's computation in the ring's order
 * (lib/hlcoll/hlcoll_data.h): on 2, 3 and 4 devices (as many as the
 * VM has), with odd sizes (not multiples of the number of ranks nor of the
 * chunk, fewer elements than ranks), in place and out of place, small
 * chunks that make many NIC messages and more than one submission per
 * step, a ring in another order than the devices', host-memory buffers,
 * a communicator used for many collectives in a row, and a rank that
 * leaves (the others fail, none hangs).
 *
 * The test process itself opens no device: the ranks do.
 */
#include "hltests.h"
#include "hlcoll.h"
#include "hlcoll_data.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE		4096ull
#define SEED		0xc011ec7e5eed0001ull

enum coll_op { OP_ALLREDUCE, OP_ALLGATHER };

/* One run: what every rank does, in its own process */
struct coll_run {
	enum coll_op op;
	int nranks;
	bool devices_set;	/* else the first nranks devices */
	uint32_t devices[HLCOLL_MAX_RANKS];
	const uint64_t *counts;	/* all-reduce: count; all-gather: per rank */
	int ncounts;
	bool in_place;
	bool host_memory;	/* buffers in host memory mapped to the device */
	int repeat;		/* collectives per count (the last is checked) */
	struct hlcoll_config cfg;
};

static int ndevices;
static uint32_t module_ids[HLCOLL_MAX_RANKS];

/* A buffer of @bytes: device memory, or host memory mapped to the device */
struct rank_buf {
	uint64_t handle;
	uint64_t va;
	void *host;
};

static int buf_alloc(int fd, bool host, uint64_t bytes, struct rank_buf *b)
{
	memset(b, 0, sizeof(*b));
	if (host) {
		if (posix_memalign(&b->host, PAGE, bytes))
			return -ENOMEM;
		memset(b->host, 0xee, bytes);
		b->va = hlthunk_host_memory_map(fd, b->host, 0, bytes);
		return b->va ? 0 : -errno;
	}
	b->handle = hlthunk_device_memory_alloc(fd, bytes, 0, false, false);
	if (!b->handle)
		return -errno;
	b->va = hlthunk_device_memory_map(fd, b->handle, 0);
	return b->va ? 0 : -errno;
}

static void buf_free(int fd, struct rank_buf *b)
{
	if (b->va)
		hlthunk_memory_unmap(fd, b->va);
	if (b->handle)
		hlthunk_device_memory_free(fd, b->handle);
	free(b->host);
}

static int rank_main(int rank, int nranks, int boot_fd, void *arg)
{
	const struct coll_run *run = arg;
	struct rank_buf send, recv, stage;
	struct hlcoll_comm *comm = NULL;
	uint64_t count, max = 0, n, i, bytes, wrong = 0, sendbuf;
	uint32_t *st, want;
	int fd, c, k, rc;

	for (c = 0; c < run->ncounts; c++)
		if (run->counts[c] > max)
			max = run->counts[c];
	bytes = max * 4 * (run->op == OP_ALLGATHER ? nranks : 1);

	memset(&send, 0, sizeof(send));
	memset(&recv, 0, sizeof(recv));
	memset(&stage, 0, sizeof(stage));
	fd = hlthunk_open_by_module_id(run->devices[rank]);
	if (fd < 0) {
		fprintf(stderr, "rank %d: open device %u: %s\n", rank,
			run->devices[rank], strerror(-fd));
		return 10;
	}
	rc = hlcoll_comm_init(&comm, fd, rank, nranks, boot_fd, &run->cfg);
	if (rc) {
		fprintf(stderr, "rank %d: hlcoll_comm_init: %s\n", rank,
			strerror(-rc));
		hlthunk_close(fd);
		return 11;
	}
	if (buf_alloc(fd, run->host_memory, bytes, &send) ||
	    buf_alloc(fd, run->host_memory, bytes, &recv) ||
	    buf_alloc(fd, true, bytes, &stage)) {
		rc = 12;
		goto out;
	}
	st = stage.host;

	for (c = 0; c < run->ncounts && !wrong; c++) {
		count = run->counts[c];
		n = run->op == OP_ALLGATHER ? count * nranks : count;

		/* The input, where the collective reads it */
		if (run->op == OP_ALLGATHER && run->in_place)
			sendbuf = recv.va + (uint64_t)rank * count * 4;
		else if (run->in_place)
			sendbuf = recv.va;
		else
			sendbuf = send.va;
		/* Make the result area garbage first */
		memset(st, 0x5a, n * 4);
		rc = hlcoll_memcpy(comm, recv.va, stage.va, n * 4);
		for (i = 0; i < count; i++)
			st[i] = hlcoll_data_value(SEED + c, rank, i);
		if (!rc)
			rc = hlcoll_memcpy(comm, sendbuf, stage.va, count * 4);

		for (k = 0; !rc && k < (run->repeat ? run->repeat : 1); k++) {
			/* In place, a repeat would sum the sums: reload */
			if (k && run->in_place && run->op == OP_ALLREDUCE)
				rc = hlcoll_memcpy(comm, sendbuf, stage.va,
						   count * 4);
			if (rc)
				break;
			if (run->op == OP_ALLGATHER)
				rc = hlcoll_allgather(comm, sendbuf, recv.va,
						      count, HLCOLL_FLOAT32);
			else
				rc = hlcoll_allreduce(comm, sendbuf, recv.va,
						      count, HLCOLL_FLOAT32,
						      HLCOLL_SUM);
		}
		if (rc) {
			fprintf(stderr, "rank %d: count %" PRIu64 ": %s\n",
				rank, count, strerror(-rc));
			rc = 13;
			goto out;
		}

		rc = hlcoll_memcpy(comm, stage.va, recv.va, n * 4);
		if (rc) {
			rc = 14;
			goto out;
		}
		for (i = 0; i < n; i++) {
			want = run->op == OP_ALLGATHER ?
			       hlcoll_data_allgather(SEED + c, count, i) :
			       hlcoll_data_allreduce(SEED + c, nranks, count, i);
			if (st[i] == want)
				continue;
			if (wrong++ < 5)
				fprintf(stderr,
					"rank %d: %s of %" PRIu64 " on %d ranks: element %" PRIu64 " is 0x%08x (%a), expected 0x%08x (%a)\n",
					rank, run->op == OP_ALLGATHER ?
					"all-gather" : "all-reduce", count,
					nranks, i, st[i],
					(double)hlcoll_data_f(st[i]), want,
					(double)hlcoll_data_f(want));
		}
	}
	rc = wrong ? 1 : 0;

out:
	buf_free(fd, &stage);
	buf_free(fd, &recv);
	buf_free(fd, &send);
	hlcoll_comm_destroy(comm);
	hlthunk_close(fd);
	return rc;
}

/* Run @run on its first @nranks devices (skip when the VM has fewer) */
static void run_on(struct coll_run *run, int nranks)
{
	int i;

	if (ndevices < nranks) {
		print_message("only %d device(s), %d needed: skipped\n",
			      ndevices, nranks);
		skip();
	}
	run->nranks = nranks;
	if (!run->devices_set)
		for (i = 0; i < nranks; i++)
			run->devices[i] = module_ids[i];
	assert_int_equal(hlcoll_launch(nranks, rank_main, run), 0);
}

/* Odd counts: 1 (fewer than the ranks), primes, chunk edges +- 1 */
static const uint64_t odd_counts[] = {
	1, 2, 3, 5, 13, 1021, 4099, 65536 + 3, 3 * 16384 + 7,
};

static void allreduce_odd(int nranks, bool in_place)
{
	struct coll_run run = {
		.op = OP_ALLREDUCE,
		.counts = odd_counts,
		.ncounts = sizeof(odd_counts) / sizeof(odd_counts[0]),
		.in_place = in_place,
		/* 16 KiB + 4: chunks never line up with segments */
		.cfg = { .chunk_bytes = 16 * 1024 + 4 },
	};

	run_on(&run, nranks);
}

static void test_allreduce_2_ranks_odd_sizes(void **state)
{
	(void)state;
	allreduce_odd(2, false);
}

static void test_allreduce_3_ranks_odd_sizes(void **state)
{
	(void)state;
	allreduce_odd(3, false);
}

static void test_allreduce_4_ranks_odd_sizes(void **state)
{
	(void)state;
	allreduce_odd(4, false);
}

static void test_allreduce_in_place(void **state)
{
	(void)state;
	allreduce_odd(ndevices < 3 ? ndevices : 3, true);
}

static void test_allreduce_many_chunks_many_submissions(void **state)
{
	/* 256-byte chunks: > 512 chunks (one submission's batch) per step */
	static const uint64_t counts[] = { 2 * 64 * 600 + 1 };
	struct coll_run run = {
		.op = OP_ALLREDUCE,
		.counts = counts,
		.ncounts = 1,
		.cfg = { .chunk_bytes = 256, .mtu = HL_NIC_MTU_256 },
	};

	(void)state;
	run_on(&run, 2);
}

static void test_allreduce_ring_in_another_order(void **state)
{
	static const uint64_t counts[] = { 10007 };
	struct coll_run run = {
		.op = OP_ALLREDUCE,
		.counts = counts,
		.ncounts = 1,
	};
	int n = ndevices > 4 ? 4 : ndevices, i;

	(void)state;
	/* Devices reversed: rank 0 on the last one */
	for (i = 0; i < n; i++)
		run.devices[i] = module_ids[n - 1 - i];
	run.devices_set = true;
	if (n < 3) {
		print_message("a different ring order needs 3 devices: skipped\n");
		skip();
	}
	run_on(&run, n);
}

static void test_allreduce_host_memory_buffers(void **state)
{
	static const uint64_t counts[] = { 3001 };
	struct coll_run run = {
		.op = OP_ALLREDUCE,
		.counts = counts,
		.ncounts = 1,
		.host_memory = true,
		.cfg = { .chunk_bytes = 4096 },
	};

	(void)state;
	run_on(&run, 2);
}

static void test_allreduce_repeated_on_one_communicator(void **state)
{
	static const uint64_t counts[] = { 777, 1, 12345 };
	struct coll_run run = {
		.op = OP_ALLREDUCE,
		.counts = counts,
		.ncounts = 3,
		.repeat = 4,
		.in_place = true,
		.cfg = { .chunk_bytes = 8192 },
	};

	(void)state;
	run_on(&run, ndevices > 4 ? 4 : (ndevices < 2 ? 2 : ndevices));
}

static const uint64_t gather_counts[] = { 1, 3, 1001, 16384 + 5 };

static void allgather_odd(int nranks, bool in_place)
{
	struct coll_run run = {
		.op = OP_ALLGATHER,
		.counts = gather_counts,
		.ncounts = sizeof(gather_counts) / sizeof(gather_counts[0]),
		.in_place = in_place,
		.cfg = { .chunk_bytes = 8 * 1024 + 12 },
	};

	run_on(&run, nranks);
}

/*
 * A hard reset of every device the ring uses, with nobody on them, then
 * all-reduce: the reset devices work as before, NIC and REDUCE included.
 */
static void test_allreduce_after_hard_reset(void **state)
{
	static const uint64_t counts[] = { 4099, 65536 + 3 };
	struct coll_run run = {
		.op = OP_ALLREDUCE,
		.counts = counts,
		.ncounts = sizeof(counts) / sizeof(counts[0]),
		.cfg = { .chunk_bytes = 16 * 1024 + 4 },
	};
	char path[64];
	int i;

	(void)state;
	for (i = 0; i < 2 && i < hltests_num_devices(); i++) {
		snprintf(path, sizeof(path), "/sys/class/habanalabs/hl%d/hard_reset",
			 i);
		assert_int_equal(hltests_write_file(path, "1"), 0);
	}
	run_on(&run, 2);
}

static void test_allgather_2_ranks(void **state)
{
	(void)state;
	allgather_odd(2, false);
}

static void test_allgather_3_ranks_in_place(void **state)
{
	(void)state;
	allgather_odd(3, true);
}

static void test_allgather_4_ranks(void **state)
{
	(void)state;
	allgather_odd(4, false);
}

static void test_one_rank_is_a_copy(void **state)
{
	static const uint64_t counts[] = { 5, 1000 };
	struct coll_run run = {
		.op = OP_ALLREDUCE,
		.counts = counts,
		.ncounts = 2,
	};

	(void)state;
	run_on(&run, 1);
	run.op = OP_ALLGATHER;
	run_on(&run, 1);
}

static void test_bad_arguments_einval(void **state)
{
	(void)state;
	/* No device needed: checked before anything is touched */
	assert_int_equal(hlcoll_launch(0, NULL, NULL), -EINVAL);
	assert_int_equal(hlcoll_launch(HLCOLL_MAX_RANKS + 1, NULL, NULL),
			 -EINVAL);
	assert_int_equal(hlcoll_allreduce(NULL, 4, 4, 1, HLCOLL_FLOAT32,
					  HLCOLL_SUM), -EINVAL);
	assert_int_equal(hlcoll_comm_init(NULL, 0, 0, 1, -1, NULL), -EINVAL);
}

/* A rank that leaves early makes the others fail instead of hanging */
static int rank_leaves(int rank, int nranks, int boot_fd, void *arg)
{
	uint32_t mine = rank, all[HLCOLL_MAX_RANKS];

	(void)arg;
	if (rank == nranks - 1)
		return 0;
	return hlcoll_boot_allgather(boot_fd, nranks, &mine, all,
				     sizeof(mine)) == -EPIPE ? 0 : 1;
}

static void test_bootstrap_rank_gone_epipe(void **state)
{
	(void)state;
	assert_int_equal(hlcoll_launch(3, rank_leaves, NULL), 0);
}

/*
 * The last rank closes its device right after the set-up: every other rank's
 * all-reduce fails (a NIC error, or its 5 s job timeout), none hangs.
 */
static int rank_dies(int rank, int nranks, int boot_fd, void *arg)
{
	struct hlcoll_config cfg = { .timeout_s = 5 };
	struct hlcoll_comm *comm;
	struct rank_buf b;
	int fd, rc;

	(void)arg;
	fd = hlthunk_open_by_module_id(module_ids[rank]);
	if (fd < 0)
		return 10;
	rc = hlcoll_comm_init(&comm, fd, rank, nranks, boot_fd, &cfg);
	if (rc) {
		hlthunk_close(fd);
		return 11;
	}
	if (rank == nranks - 1) {
		hlcoll_comm_destroy(comm);
		hlthunk_close(fd);
		return 0;
	}
	rc = buf_alloc(fd, false, 64 * 1024, &b);
	if (!rc)
		rc = hlcoll_allreduce(comm, b.va, b.va, 16 * 1024,
				      HLCOLL_FLOAT32, HLCOLL_SUM);
	if (rc)
		fprintf(stderr, "rank %d: all-reduce without the last rank: %s (expected)\n",
			rank, strerror(-rc));
	buf_free(fd, &b);
	hlcoll_comm_destroy(comm);
	hlthunk_close(fd);
	return rc == -EIO ? 0 : 1;
}

static void test_rank_gone_fails_the_others(void **state)
{
	int n = ndevices > 3 ? 3 : ndevices;

	(void)state;
	if (n < 2) {
		print_message("needs 2 devices: skipped\n");
		skip();
	}
	assert_int_equal(hlcoll_launch(n, rank_dies, NULL), 0);
}

const struct CMUnitTest collective_tests[] = {
	cmocka_unit_test(test_bad_arguments_einval),
	cmocka_unit_test(test_bootstrap_rank_gone_epipe),
	cmocka_unit_test(test_one_rank_is_a_copy),
	cmocka_unit_test(test_allreduce_2_ranks_odd_sizes),
	cmocka_unit_test(test_allreduce_3_ranks_odd_sizes),
	cmocka_unit_test(test_allreduce_4_ranks_odd_sizes),
	cmocka_unit_test(test_allreduce_in_place),
	cmocka_unit_test(test_allreduce_many_chunks_many_submissions),
	cmocka_unit_test(test_allreduce_ring_in_another_order),
	cmocka_unit_test(test_allreduce_host_memory_buffers),
	cmocka_unit_test(test_allreduce_repeated_on_one_communicator),
	cmocka_unit_test(test_allgather_2_ranks),
	cmocka_unit_test(test_allgather_3_ranks_in_place),
	cmocka_unit_test(test_allgather_4_ranks),
	cmocka_unit_test(test_rank_gone_fails_the_others),
	cmocka_unit_test(test_allreduce_after_hard_reset),
};

int main(void)
{
	struct hlthunk_hw_ip_info hw_ip;
	int i, fd;

	for (i = 0; i < HLTHUNK_MAX_MINOR && ndevices < HLCOLL_MAX_RANKS; i++) {
		fd = hlthunk_open_control(i, NULL);
		if (fd < 0)
			continue;
		if (!hlthunk_get_hw_ip_info(fd, &hw_ip))
			module_ids[ndevices++] = hw_ip.module_id;
		hlthunk_close(fd);
	}
	print_message("collective: %d device(s), seed 0x%llx\n", ndevices,
		      (unsigned long long)SEED);
	setvbuf(stdout, NULL, _IOLBF, 0);
	return HLTESTS_RUN("collective", collective_tests);
}

// SPDX-License-Identifier: MIT
/*
 * smoke_hlcoll.c - link against libhlcoll (and libhlthunk, which its
 * pkg-config file requires) and run what needs no device, between real
 * processes over loopback TCP:
 *   - argument checks (-EINVAL before anything moves), error strings;
 *   - the bootstrap behind the unique id: 4 ranks meet (each then fails on
 *     its "device", /dev/null, with -ENOTTY: the bootstrap itself passed);
 *     a mismatched id (-ESTALE at that rank, -ETIMEDOUT at the root; the
 *     right tag with another secret: -ECONNREFUSED at that rank); a
 *     stale id whose root is gone (-ECONNREFUSED); a rank that never
 *     arrives (-ETIMEDOUT within the bootstrap timeout, no hang); the
 *     address from HLCOLL_SOCKET_ADDR or HLCOLL_SOCKET_IFNAME (loopback
 *     ones), bad ones refused;
 *   - the launcher: a rank returning 256 is a failure; an ignored SIGCHLD
 *     does not lose the statuses; a killed launcher takes its ranks with
 *     it (PR_SET_PDEATHSIG).
 *
 * Exit status: the number of failed checks.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

#define BOOT_MS	1500

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Init on /dev/null: the bootstrap runs, the "device" then says ENOTTY */
static int init_null(int nranks, const struct hlcoll_unique_id *id, int rank)
{
	struct hlcoll_config cfg = HLCOLL_CONFIG_INIT;
	struct hlcoll_comm *comm = NULL;
	int fd, rc;

	cfg.boot_timeout_ms = BOOT_MS;
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = hlcoll_comm_init_rank(&comm, nranks, id, rank, fd, &cfg);
	if (comm)
		hlcoll_comm_destroy(comm);
	close(fd);
	return rc;
}

struct boot_case {
	int want[4];		/* each rank's expected result */
	int skip_rank;		/* this rank never calls (-1: none) */
	int bad_rank;		/* this rank gets @bad_id (-1: none) */
	int flip;		/* @bad_id: the real id with bit 0 of byte @flip flipped */
	struct hlcoll_unique_id bad_id;
};

static int rank_boot(int rank, int nranks, const struct hlcoll_unique_id *id,
		     void *arg)
{
	const struct boot_case *bc = arg;
	double t0 = now_s();
	int rc;
	struct hlcoll_unique_id flipped = *id;

	if (rank == bc->skip_rank)
		return 0;
	if (bc->flip)
		flipped.internal[bc->flip] ^= 1;
	rc = init_null(nranks, rank != bc->bad_rank ? id :
			       bc->flip ? &flipped : &bc->bad_id, rank);
	if (rc != bc->want[rank]) {
		fprintf(stderr, "rank %d: %d (%s), expected %d\n", rank, rc,
			hlcoll_get_error_string(rc), bc->want[rank]);
		return 20;
	}
	/* Bounded: no wait much past the bootstrap timeout */
	if (now_s() - t0 > BOOT_MS / 1000.0 + 3) {
		fprintf(stderr, "rank %d: took %.1f s\n", rank, now_s() - t0);
		return 21;
	}
	return 0;
}

static int rank_status(int rank, int nranks,
		       const struct hlcoll_unique_id *id, void *arg)
{
	(void)nranks;
	(void)id;
	return rank == 1 ? *(int *)arg : 0;
}

/* Ranks that tell their pid and wait to be killed */
static int rank_sleeps(int rank, int nranks,
		       const struct hlcoll_unique_id *id, void *arg)
{
	pid_t pid = getpid();

	(void)rank;
	(void)nranks;
	(void)id;
	if (write(*(int *)arg, &pid, sizeof(pid)) != sizeof(pid))
		return 1;
	for (;;)
		pause();
}

/* A launcher killed while its ranks run: the ranks die too */
static void test_launcher_killed(void)
{
	pid_t launcher, pids[3];
	int p[2], i, alive, st;
	double t0;

	/* Orphans come to us, so that we can reap them */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (pipe(p))
		return check(0, "pipe", errno);
	launcher = fork();
	if (launcher == 0) {
		close(p[0]);
		_exit(hlcoll_launch(3, rank_sleeps, &p[1]) & 0xff);
	}
	close(p[1]);
	for (i = 0; i < 3; i++)
		if (read(p[0], &pids[i], sizeof(pids[i])) != sizeof(pids[i]))
			return check(0, "rank pids", i);
	close(p[0]);
	kill(launcher, SIGKILL);
	waitpid(launcher, NULL, 0);
	t0 = now_s();
	do {
		alive = 0;
		for (i = 0; i < 3; i++) {
			if (!pids[i])
				continue;
			if (waitpid(pids[i], &st, WNOHANG) == pids[i])
				pids[i] = 0;
			else
				alive++;
		}
		if (alive)
			usleep(20000);
	} while (alive && now_s() - t0 < 5);
	check(!alive, "ranks die with their launcher", alive);
	for (i = 0; i < 3; i++)
		if (pids[i]) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
		}
}

int main(void)
{
	struct hlcoll_config big[2];
	struct hlcoll_comm *comm = NULL;
	struct hlcoll_unique_id id, stale;
	struct boot_case bc;
	uint64_t first = 0;
	int st, devnull;

	/* Arguments */
	CHECK_EQ(hlcoll_launch(0, rank_status, NULL), -EINVAL);
	CHECK_EQ(hlcoll_launch(HLCOLL_MAX_RANKS + 1, rank_status, NULL),
		 -EINVAL);
	CHECK_EQ(hlcoll_launch(2, NULL, NULL), -EINVAL);
	CHECK_EQ(hlcoll_get_unique_id(NULL), -EINVAL);
	memset(&id, 0, sizeof(id));
	CHECK_EQ(hlcoll_comm_init_rank(NULL, 1, &id, 0, 0, NULL), -EINVAL);
	CHECK_EQ(hlcoll_comm_init_rank(&comm, 1, NULL, 0, 0, NULL), -EINVAL);
	CHECK_EQ(hlcoll_comm_init_rank(&comm, 0, &id, 0, 0, NULL), -EINVAL);
	CHECK_EQ(hlcoll_comm_init_rank(&comm, 2, &id, 2, 0, NULL), -EINVAL);
	CHECK_EQ(hlcoll_comm_init_rank(&comm, 1, &id, 0, -1, NULL), -EINVAL);
	CHECK_EQ(hlcoll_comm_init_rank(&comm, HLCOLL_MAX_RANKS + 1, &id, 0, 0,
				       NULL), -EINVAL);
	/* Not an id of hlcoll_get_unique_id() */
	CHECK_EQ(hlcoll_comm_init_rank(&comm, 1, &id, 0, 0, NULL), -EINVAL);
	check(comm == NULL, "no communicator after a failed init", 0);
	CHECK_EQ(hlcoll_allreduce(NULL, 4, 4, 1, HLCOLL_FLOAT32, HLCOLL_SUM),
		 -EINVAL);
	CHECK_EQ(hlcoll_allgather(NULL, 4, 4, 1, HLCOLL_FLOAT32), -EINVAL);
	CHECK_EQ(hlcoll_memcpy(NULL, 4, 4, 4), -EINVAL);
	CHECK_EQ(hlcoll_barrier(NULL), -EINVAL);
	CHECK_EQ(hlcoll_comm_get_async_error(NULL, &st), -EINVAL);
	CHECK_EQ(hlcoll_group_end(), -EINVAL);
	hlcoll_comm_destroy(NULL);
	hlcoll_comm_abort(NULL);
	check(strlen(hlcoll_get_error_string(-ESTALE)) > 0, "error string", 0);

	/* Config: size 0 refused; a larger struct with non-zero tail: E2BIG */
	if (hlcoll_get_unique_id(&id) == 0) {
		devnull = open("/dev/null", O_RDWR);
		memset(big, 0, sizeof(big));
		CHECK_EQ(hlcoll_comm_init_rank(&comm, 1, &id, 0, devnull,
					       &big[0]), -EINVAL);
		big[0].size = sizeof(big);
		((char *)big)[sizeof(big) - 1] = 1;
		CHECK_EQ(hlcoll_comm_init_rank(&comm, 1, &id, 0, devnull,
					       &big[0]), -E2BIG);
		/* Zero tail: accepted, /dev/null then is no device */
		((char *)big)[sizeof(big) - 1] = 0;
		CHECK_EQ(hlcoll_comm_init_rank(&comm, 1, &id, 0, devnull,
					       &big[0]), -ENOTTY);
		close(devnull);
	} else {
		check(0, "hlcoll_get_unique_id", 0);
	}

	/* 10 elements over 3 ranks: 4, 3, 3 */
	CHECK_EQ(hlcoll_segment(10, 3, 0, &first), 4);
	CHECK_EQ(first, 0);
	CHECK_EQ(hlcoll_segment(10, 3, 1, &first), 3);
	CHECK_EQ(first, 4);
	CHECK_EQ(hlcoll_segment(10, 3, 2, &first), 3);
	CHECK_EQ(first, 7);
	/* Fewer elements than ranks: empty segments at the end */
	CHECK_EQ(hlcoll_segment(2, 4, 3, &first), 0);
	/* No crash (was SIGFPE) on 0 ranks, a NULL first */
	CHECK_EQ(hlcoll_segment(10, 0, 0, &first), 0);
	CHECK_EQ(hlcoll_segment(10, 3, 5, NULL), 0);

	/* The bootstrap: 4 ranks meet, then their /dev/null says ENOTTY */
	memset(&bc, 0, sizeof(bc));
	bc.skip_rank = bc.bad_rank = -1;
	bc.want[0] = bc.want[1] = bc.want[2] = bc.want[3] = -ENOTTY;
	CHECK_EQ(hlcoll_launch(4, rank_boot, &bc), 0);

	/*
	 * Mismatched id (same root, another tag): refused; root times out.
	 * Same tag, another secret: the root cannot prove it holds this
	 * id's secret, so the rank refuses it (and says nothing more).
	 */
	bc.bad_rank = 1;
	bc.flip = 16;		/* the tag */
	bc.want[0] = -ETIMEDOUT;
	bc.want[1] = -ESTALE;
	CHECK_EQ(hlcoll_launch(2, rank_boot, &bc), 0);
	bc.flip = 24;		/* the secret */
	bc.want[1] = -ECONNREFUSED;
	CHECK_EQ(hlcoll_launch(2, rank_boot, &bc), 0);
	bc.flip = 0;

	/* Stale id: its root was used up (closed its listener) */
	if (hlcoll_get_unique_id(&stale) == 0) {
		CHECK_EQ(init_null(1, &stale, 0), -ENOTTY);
		bc.bad_id = stale;
		bc.bad_rank = 1;
		bc.want[0] = -ETIMEDOUT;
		bc.want[1] = -ECONNREFUSED;
		CHECK_EQ(hlcoll_launch(2, rank_boot, &bc), 0);
	}

	/* A rank that never arrives: the others time out */
	bc.bad_rank = -1;
	bc.skip_rank = 2;
	bc.want[0] = bc.want[1] = -ETIMEDOUT;
	CHECK_EQ(hlcoll_launch(3, rank_boot, &bc), 0);

	/*
	 * The id's address: HLCOLL_SOCKET_ADDR (127.0.0.2: another address
	 * than the default, still loopback), HLCOLL_SOCKET_IFNAME (lo); bad
	 * ones refused
	 */
	bc.skip_rank = -1;
	bc.want[0] = bc.want[1] = bc.want[2] = -ENOTTY;
	setenv("HLCOLL_SOCKET_ADDR", "127.0.0.2", 1);
	CHECK_EQ(hlcoll_launch(3, rank_boot, &bc), 0);
	if (hlcoll_get_unique_id(&id) == 0) {
		check(!memcmp(id.internal + 8, "\x7f\x00\x00\x02", 4),
		      "the id carries HLCOLL_SOCKET_ADDR", 0);
		CHECK_EQ(init_null(1, &id, 0), -ENOTTY);	/* uses it up */
	}
	setenv("HLCOLL_SOCKET_ADDR", "not-an-address", 1);
	CHECK_EQ(hlcoll_get_unique_id(&id), -EINVAL);
	unsetenv("HLCOLL_SOCKET_ADDR");
	setenv("HLCOLL_SOCKET_IFNAME", "lo", 1);
	CHECK_EQ(hlcoll_launch(2, rank_boot, &bc), 0);
	setenv("HLCOLL_SOCKET_IFNAME", "no-such-if0", 1);
	CHECK_EQ(hlcoll_get_unique_id(&id), -ENODEV);
	unsetenv("HLCOLL_SOCKET_IFNAME");

	/* Launcher statuses */
	st = 7;
	CHECK_EQ(hlcoll_launch(3, rank_status, &st), 7);
	st = 256;	/* was reported as success (256 & 0xff) */
	CHECK_EQ(hlcoll_launch(2, rank_status, &st), 1);
	st = 0;
	signal(SIGCHLD, SIG_IGN);	/* was 255 for a successful run */
	CHECK_EQ(hlcoll_launch(3, rank_status, &st), 0);
	st = 9;
	CHECK_EQ(hlcoll_launch(2, rank_status, &st), 9);
	check(signal(SIGCHLD, SIG_DFL) == SIG_IGN,
	      "SIGCHLD's disposition restored", 0);
	test_launcher_killed();

	/* libhlthunk, linked through hlcoll's pkg-config Requires */
	CHECK_EQ(hlthunk_close(-1), -EBADF);

	printf("smoke_hlcoll: %s\n", failed ? "FAILED" : "passed");
	return failed;
}

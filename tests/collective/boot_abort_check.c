// SPDX-License-Identifier: MIT
/*
 * boot_abort_check.c - libhlcoll's bootstrap (lib/hlcoll/hlcoll_boot.c,
 * built in) when a message to a rank fails partway, on the host: no
 * device, eight real processes over loopback TCP. Run by make check
 * (tests/run-checks) as tests/bin-host/hlcoll_boot_abort_check.
 *
 * Rank 0 (this process) and ranks 1 .. 7 (children) pass
 * hlcoll_boot_init(). Each rank then sends its DATA of an exchange by
 * hand; rank 1 reads nothing for READ_LATE_MS, with a small receive
 * buffer; rank 0, with a small send buffer and a 500 ms exchange deadline,
 * cannot send its ALL (8 x 16 KiB) to rank 1 in time:
 * hlcoll_boot_allgather() fails with -ETIMEDOUT partway through the
 * message, and rank 0 aborts as a failed communicator does
 * (hlcoll_boot_abort(), then hlcoll_boot_fini()). What rank 1 reads from
 * then on must be the ALL header, part of its payload and the end of the
 * stream: never an ABORT header inside the broken payload (which it would
 * read as payload, then take the bytes after it for the rest: garbage, or
 * -EPROTO). Before the fix the ABORT landed there.
 *
 * Exit status: the number of failed checks.
 */

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hlcoll_int.h"
#include "hlcoll_wire.h"

#define BLOB		(16u * 1024)
#define READ_LATE_MS	700
#define SMALL_BUF	2048
#define NRANKS		8

static int failed;

static void check(int cond, const char *what, long long v)
{
	printf("%s - %s (%lld)\n", cond ? "ok" : "not ok", what, v);
	if (!cond)
		failed++;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Rank @rank; rank 1: 0 when what came after the DATA was the ALL header,
 * less than its payload and the end of the stream, with no ABORT header in
 * the payload; 1 an ABORT header inside the payload; 2 anything else
 */
static int rank1(const struct hlcoll_unique_id *id, int rank)
{
	static uint8_t in[NRANKS * BLOB + 4096], out[BLOB];
	struct hlcoll_msg m = {
		.magic = HLCOLL_MSG_MAGIC, .type = HLCOLL_MSG_DATA,
		.len = BLOB,
	};
	struct hlcoll_boot b;
	struct hlcoll_msg h;
	int64_t end;
	size_t got = 0, i;
	int small = SMALL_BUF, fd;
	ssize_t n;

	if (hlcoll_boot_init(&b, id, rank, NRANKS, 5000))
		return 2;
	fd = b.fds[0];
	if (rank == 1)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	memset(out, 0x11, sizeof(out));
	if (send(fd, &m, sizeof(m), MSG_MORE) != sizeof(m) ||
	    send(fd, out, sizeof(out), 0) != sizeof(out))
		return 2;
	if (rank == 1)
		poll(NULL, 0, READ_LATE_MS);

	end = now_ms() + 5000;
	while (got < sizeof(in) && now_ms() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(fd, in + got, sizeof(in) - got, 0);
		if (n <= 0)
			break;		/* the end of the stream */
		got += (size_t)n;
	}
	if (rank != 1)
		return 0;
	printf("# rank 1: %zu bytes after its DATA, then %s\n", got,
	       now_ms() < end ? "the end of the stream" : "nothing (5 s)");
	if (got < sizeof(h))
		return 2;
	memcpy(&h, in, sizeof(h));
	if (h.magic != HLCOLL_MSG_MAGIC || h.type != HLCOLL_MSG_ALL ||
	    h.len != NRANKS * BLOB)
		return 2;
	for (i = sizeof(h);
	     i + sizeof(h) <= got && i < sizeof(h) + NRANKS * BLOB; i++) {
		memcpy(&h, in + i, sizeof(h));
		if (h.magic == HLCOLL_MSG_MAGIC && h.type == HLCOLL_MSG_ABORT) {
			printf("# rank 1: an ABORT header at payload byte %zu of %u\n",
			       i - sizeof(h), NRANKS * BLOB);
			return 1;
		}
	}
	/* Part of the payload only, then the end: -ECONNRESET to a reader */
	return got < sizeof(h) + NRANKS * BLOB && now_ms() < end ? 0 : 2;
}

int main(void)
{
	static uint8_t mine[BLOB], all[NRANKS * BLOB];
	struct hlcoll_unique_id id;
	struct hlcoll_boot b;
	int small = SMALL_BUF, st = 0, rc;
	pid_t pid[NRANKS];
	int r;

	signal(SIGPIPE, SIG_IGN);
	rc = hlcoll_get_unique_id(&id);
	check(rc == 0, "hlcoll_get_unique_id() == 0", rc);
	if (rc)
		return 1;
	fflush(stdout);
	for (r = 1; r < NRANKS; r++) {
		pid[r] = fork();
		if (pid[r] < 0)
			return 1;
		if (!pid[r]) {
			hlcoll_boot_drop_listeners();
			rc = rank1(&id, r);
			fflush(stdout);
			_exit(rc);
		}
	}

	rc = hlcoll_boot_init(&b, &id, 0, NRANKS, 5000);
	check(rc == 0, "rank 0: hlcoll_boot_init() == 0", rc);
	if (!rc) {
		setsockopt(b.fds[1], SOL_SOCKET, SO_SNDBUF, &small,
			   sizeof(small));
		b.timeout_ms = 500;
		memset(mine, 0x5a, sizeof(mine));
		rc = hlcoll_boot_allgather(&b, mine, all, sizeof(mine));
		check(rc == -ETIMEDOUT,
		      "rank 0: the exchange fails partway: -ETIMEDOUT", rc);
		/* As a failed communicator: abort, then close */
		hlcoll_boot_abort(&b, rc);
		hlcoll_boot_fini(&b, false);
	}
	for (r = NRANKS - 1; r > 1; r--)
		waitpid(pid[r], NULL, 0);
	waitpid(pid[1], &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "rank 1: the ALL header, part of its payload, the end of the stream; no ABORT inside it (status 1: there was)",
	      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	printf("hlcoll_boot_abort_check: %s (%d failed)\n",
	       failed ? "FAILED" : "passed", failed);
	return failed;
}

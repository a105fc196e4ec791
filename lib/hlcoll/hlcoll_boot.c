// SPDX-License-Identifier: MIT
/*
 * hlcoll_boot.c - the launcher and the bootstrap exchange of libhlcoll.
 *
 * hlcoll_launch() makes one SOCK_SEQPACKET socket pair per rank and forks
 * the ranks; the launcher keeps one end of each pair and relays rounds of
 * hlcoll_boot_allgather(): every rank sends one message (its blob), and
 * once every rank's has arrived, each gets the concatenation. No network:
 * everything stays between the processes of one host.
 *
 * When a rank closes its socket (it exited, normally or not), no later
 * round can complete, so the launcher closes every socket: a rank still
 * exchanging gets -EPIPE instead of waiting forever.
 */
#include "hlcoll.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Largest blob of one rank in one round */
#define HLCOLL_BOOT_MAX_BLOB	4096

int hlcoll_boot_allgather(int boot_fd, int nranks, const void *mine,
			  void *all, size_t size)
{
	ssize_t n;

	if (boot_fd < 0 || nranks < 1 || nranks > HLCOLL_MAX_RANKS ||
	    !mine || !all || !size || size > HLCOLL_BOOT_MAX_BLOB)
		return -EINVAL;

	do {
		n = send(boot_fd, mine, size, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == ECONNRESET ? -EPIPE : -errno;
	if ((size_t)n != size)
		return -EPIPE;

	do {
		n = recv(boot_fd, all, size * nranks, 0);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == ECONNRESET ? -EPIPE : -errno;
	/* 0: the launcher closed the socket, a rank is gone */
	if ((size_t)n != size * nranks)
		return -EPIPE;
	return 0;
}

/* Relay rounds until a rank closes its socket; then close them all */
static void hlcoll_relay(int *fds, int nranks)
{
	size_t len[HLCOLL_MAX_RANKS];
	bool got[HLCOLL_MAX_RANKS];
	struct pollfd pfd[HLCOLL_MAX_RANKS];
	uint8_t *in, *out;
	int r, pending;
	ssize_t m;

	in = malloc((size_t)nranks * HLCOLL_BOOT_MAX_BLOB);
	out = malloc((size_t)nranks * HLCOLL_BOOT_MAX_BLOB);
	if (!in || !out)
		goto out_close;

	memset(got, 0, sizeof(got));
	pending = nranks;
	for (;;) {
		/* Wait for the ranks whose blob of this round is missing */
		for (r = 0; r < nranks; r++) {
			pfd[r].fd = got[r] ? -1 : fds[r];
			pfd[r].events = POLLIN;
			pfd[r].revents = 0;
		}
		if (poll(pfd, nranks, -1) < 0) {
			if (errno == EINTR)
				continue;
			goto out_close;
		}
		for (r = 0; r < nranks; r++) {
			if (got[r] || !pfd[r].revents)
				continue;
			m = recv(fds[r], in + (size_t)r * HLCOLL_BOOT_MAX_BLOB,
				 HLCOLL_BOOT_MAX_BLOB, MSG_DONTWAIT);
			if (m < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			/* EOF or error: the rank is gone */
			if (m <= 0)
				goto out_close;
			got[r] = true;
			len[r] = (size_t)m;
			pending--;
		}
		if (pending)
			continue;

		/* Everyone's blob is in: send the concatenation to all */
		for (r = 0; r < nranks; r++) {
			if (len[r] != len[0]) {
				fprintf(stderr,
					"hlcoll: bootstrap: rank %d sent %zu bytes, rank 0 %zu\n",
					r, len[r], len[0]);
				goto out_close;
			}
			memcpy(out + (size_t)r * len[0],
			       in + (size_t)r * HLCOLL_BOOT_MAX_BLOB, len[0]);
		}
		for (r = 0; r < nranks; r++) {
			do {
				m = send(fds[r], out, len[0] * nranks,
					 MSG_NOSIGNAL);
			} while (m < 0 && errno == EINTR);
			if (m < 0)
				goto out_close;
		}
		memset(got, 0, sizeof(got));
		pending = nranks;
	}

out_close:
	for (r = 0; r < nranks; r++)
		close(fds[r]);
	free(out);
	free(in);
}

int hlcoll_launch(int nranks, hlcoll_rank_fn fn, void *arg)
{
	int fds[HLCOLL_MAX_RANKS], child_fds[HLCOLL_MAX_RANKS];
	pid_t pids[HLCOLL_MAX_RANKS];
	int r, k, status, result = 0, rc;
	int sv[2];

	if (nranks < 1 || nranks > HLCOLL_MAX_RANKS || !fn)
		return -EINVAL;

	for (r = 0; r < nranks; r++) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
			       sv) < 0) {
			rc = -errno;
			while (r--) {
				close(fds[r]);
				close(child_fds[r]);
			}
			return rc;
		}
		fds[r] = sv[0];
		child_fds[r] = sv[1];
	}

	fflush(stdout);
	fflush(stderr);
	for (r = 0; r < nranks; r++) {
		pids[r] = fork();
		if (pids[r] == 0) {
			for (k = 0; k < nranks; k++) {
				close(fds[k]);
				if (k != r)
					close(child_fds[k]);
			}
			rc = fn(r, nranks, child_fds[r], arg);
			fflush(stdout);
			fflush(stderr);
			_exit(rc & 0xff);
		}
		if (pids[r] < 0) {
			rc = -errno;
			/* Ranks already started fail at their first exchange */
			for (k = 0; k < nranks; k++) {
				close(fds[k]);
				close(child_fds[k]);
			}
			for (k = 0; k < r; k++)
				waitpid(pids[k], NULL, 0);
			return rc;
		}
	}
	for (r = 0; r < nranks; r++)
		close(child_fds[r]);

	hlcoll_relay(fds, nranks);

	for (r = 0; r < nranks; r++) {
		while (waitpid(pids[r], &status, 0) < 0) {
			if (errno != EINTR) {
				status = 0xff00;
				break;
			}
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			continue;
		if (WIFSIGNALED(status))
			fprintf(stderr, "hlcoll: rank %d killed by signal %d\n",
				r, WTERMSIG(status));
		if (!result)
			result = WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
				 WEXITSTATUS(status);
	}
	return result;
}

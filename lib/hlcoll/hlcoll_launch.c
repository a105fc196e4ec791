// SPDX-License-Identifier: MIT
/*
 * hlcoll_launch.c - hlcoll_launch(): one host's convenience on top of the
 * unique id. The launcher creates the id, forks the ranks (each dies with
 * the launcher: PR_SET_PDEATHSIG), and reaps them with SIGCHLD at its
 * default disposition for the duration of the call. A rank's crash ends
 * the rank: the crash signals are at their default disposition in it, and
 * it starts with no signal blocked.
 */
#include "hlcoll_int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * A handler the launcher had for these (a test framework's, say) would
 * run on the rank's copy of the launcher's stack and carry on as the
 * launcher: the crash must end the rank instead, with its signal.
 */
static const int hlcoll_crash_signals[] = {
	SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP,
};

#define HLCOLL_NCRASH_SIGNALS \
	(sizeof(hlcoll_crash_signals) / sizeof(hlcoll_crash_signals[0]))

static void hlcoll_child(int rank, int nranks,
			 const struct hlcoll_unique_id *id, hlcoll_rank_fn fn,
			 void *arg, pid_t parent)
{
	sigset_t none;
	unsigned int i;
	int rc;

	for (i = 0; i < HLCOLL_NCRASH_SIGNALS; i++)
		signal(hlcoll_crash_signals[i], SIG_DFL);
	/*
	 * A rank starts with no signal blocked, whatever the forking thread
	 * had blocked (a launcher that takes its signals in a thread of its
	 * own blocks them in the others): a scheduler's SIGTERM ends it
	 */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Die with the launcher; it may have died before the prctl */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
	/* Only rank 0 listens */
	if (rank)
		hlcoll_boot_drop_listeners();
	rc = fn(rank, nranks, id, arg);
	fflush(stdout);
	fflush(stderr);
	/* Exit statuses are 8 bits: 256 must not read as 0 */
	_exit(rc >= 0 && rc <= 255 ? rc : 1);
}

int hlcoll_launch(int nranks, hlcoll_rank_fn fn, void *arg)
{
	pid_t pids[HLCOLL_MAX_RANKS], parent = getpid();
	struct sigaction dfl, old;
	struct hlcoll_unique_id id;
	int r, status, result = 0, rc;

	if (nranks < 1 || nranks > HLCOLL_MAX_RANKS || !fn)
		return -EINVAL;

	/* An ignored SIGCHLD makes the kernel reap the ranks: no status */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	if (sigaction(SIGCHLD, &dfl, &old))
		return -errno;

	rc = hlcoll_get_unique_id(&id);
	if (rc)
		goto out_sig;

	fflush(stdout);
	fflush(stderr);
	for (r = 0; r < nranks; r++) {
		pids[r] = fork();
		if (pids[r] == 0)
			hlcoll_child(r, nranks, &id, fn, arg, parent);
		if (pids[r] < 0) {
			rc = -errno;
			/* The ranks already started time out in the bootstrap */
			hlcoll_boot_drop_listener(&id);
			while (r--)
				waitpid(pids[r], NULL, 0);
			goto out_sig;
		}
	}
	/* Rank 0 has its own copy of the listener */
	hlcoll_boot_drop_listener(&id);

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
			hlcoll_warn(r, "killed by signal %d", WTERMSIG(status));
		else
			hlcoll_info(r, "exit status %d", WEXITSTATUS(status));
		if (!result)
			result = WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
				 WEXITSTATUS(status);
	}
	rc = result;
out_sig:
	sigaction(SIGCHLD, &old, NULL);
	return rc;
}

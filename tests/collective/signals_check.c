// SPDX-License-Identifier: MIT
/*
 * A program linked with libhlcoll crashes as it would without it: killed
 * by the crash's signal (a core where the limit allows), not exit(1).
 * Debian's libfabric links libinfinipath, whose constructor takes the
 * crash signals (a backtrace, then exit(1)); libhlcoll's own constructor
 * puts them back (hlcoll_ofi.c). On the host, no device: each crash in a
 * child of its own, core files off.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hlcoll.h"

static int crash_ends_by_signal(int sig)
{
	const struct rlimit none = { 0, 0 };
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		setrlimit(RLIMIT_CORE, &none);
		/* libinfinipath's handler writes its backtrace here */
		if (!freopen("/dev/null", "w", stderr))
			_exit(3);
		raise(sig);
		_exit(2);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status) && WTERMSIG(status) == sig) {
		printf("ok: %s ends the process, killed by it\n",
		       strsignal(sig));
		return 0;
	}
	printf("FAILED: %s: %s %d, expected killed by signal %d\n",
	       strsignal(sig), WIFSIGNALED(status) ? "killed by signal" :
	       "exit status", WIFSIGNALED(status) ? WTERMSIG(status) :
	       WEXITSTATUS(status), sig);
	return 1;
}

int main(void)
{
	static const int sigs[] = {
		SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGFPE,
	};
	unsigned int i;
	int failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* A reference, so that the link keeps libhlcoll (--as-needed) */
	printf("libhlcoll loaded (%s)\n", hlcoll_get_error_string(0));
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		failed += crash_ends_by_signal(sigs[i]) != 0;
	printf("hlcoll_signals_check: %s (%d failed)\n",
	       failed ? "FAILED" : "passed", failed);
	return failed ? 1 : 0;
}

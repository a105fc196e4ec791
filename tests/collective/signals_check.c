// SPDX-License-Identifier: MIT
/*
 * A program linked with libhlcoll keeps the signal dispositions it
 * inherited, and crashes as it would without the library: killed by the
 * crash's signal (a core where the limit allows), not exit(1). Debian's
 * libfabric brings libinfinipath, whose constructor takes SIGSEGV, SIGBUS,
 * SIGILL, SIGABRT, SIGINT and SIGTERM (a backtrace, a .btr file, then
 * exit(1)), SIGINT and SIGTERM even where they were inherited ignored;
 * libhlcoll linked libfabric and so ran it before main(). It now loads
 * libfabric only for a communicator across hosts (hlcoll_fi.c; that path,
 * which needs devices, is the collective suite's
 * test_ofi_loaded_keeps_signals). On the host, no device: the program
 * runs itself again with SIGINT ignored and the rest at their defaults and
 * looks at what it got; each crash in a child of its own, in a directory
 * of its own, core files off.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hlcoll.h"

static const int sigs[] = {
	SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGFPE, SIGINT, SIGTERM,
};

#define NSIGS	(sizeof(sigs) / sizeof(sigs[0]))

/* The re-run: SIGINT inherited ignored, the others at their defaults */
static int child(void)
{
	struct sigaction sa;
	unsigned int i;
	int failed = 0;
	void *h;

	h = dlopen("libfabric.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (h) {
		printf("FAILED: libfabric is loaded in a program that made no communicator across hosts\n");
		dlclose(h);
		failed++;
	} else {
		printf("ok: libfabric not loaded at start\n");
	}
	for (i = 0; i < NSIGS; i++) {
		void (*want)(int) = sigs[i] == SIGINT ? SIG_IGN : SIG_DFL;

		if (sigaction(sigs[i], NULL, &sa) || sa.sa_handler != want) {
			printf("FAILED: %s is not %s as inherited\n",
			       strsignal(sigs[i]),
			       want == SIG_IGN ? "ignored" : "at its default");
			failed++;
		} else {
			printf("ok: %s %s, as inherited\n", strsignal(sigs[i]),
			       want == SIG_IGN ? "ignored" : "at its default");
		}
	}
	return failed;
}

/* Runs @fn(@arg) in a child (it must not return); its wait status */
static int in_child(void (*fn)(int), int arg, int *status)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		fn(arg);
	return waitpid(pid, status, 0) == pid ? 0 : -1;
}

static void rerun(int unused)
{
	unsigned int i;

	(void)unused;
	for (i = 0; i < NSIGS; i++)
		signal(sigs[i], sigs[i] == SIGINT ? SIG_IGN : SIG_DFL);
	execl("/proc/self/exe", "hlcoll_signals_check", "--child",
	      (char *)NULL);
	_exit(127);
}

static void crash(int sig)
{
	const struct rlimit none = { 0, 0 };

	setrlimit(RLIMIT_CORE, &none);
	/* libinfinipath's handler writes its backtrace here */
	if (!freopen("/dev/null", "w", stderr))
		_exit(3);
	raise(sig);
	_exit(2);
}

static int run_child(void)
{
	int status;

	if (in_child(rerun, 0, &status))
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int crash_ends_by_signal(int sig)
{
	int status;

	if (in_child(crash, sig, &status))
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

int main(int argc, char **argv)
{
	char dir[] = "/tmp/hlcoll_signals_check.XXXXXX", rm[64];
	unsigned int i;
	int failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "--child"))
		return child() ? 1 : 0;
	/* A reference, so that the link keeps libhlcoll (--as-needed) */
	printf("libhlcoll loaded (%s)\n", hlcoll_get_error_string(0));
	failed += run_child() != 0;
	/* A .btr file of a regression lands there, not in the tree */
	if (!mkdtemp(dir) || chdir(dir)) {
		perror("hlcoll_signals_check: a directory for the crashes");
		return 1;
	}
	for (i = 0; i < NSIGS; i++)
		if (sigs[i] != SIGINT)
			failed += crash_ends_by_signal(sigs[i]) != 0;
	snprintf(rm, sizeof(rm), "rm -rf -- %s", dir);
	if (chdir("/") || system(rm))
		printf("could not remove %s\n", dir);
	printf("hlcoll_signals_check: %s (%d failed)\n",
	       failed ? "FAILED" : "passed", failed);
	return failed ? 1 : 0;
}

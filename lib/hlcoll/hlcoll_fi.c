// SPDX-License-Identifier: MIT
/*
 * hlcoll_fi.c - libfabric, loaded (dlopen()) on the first communicator
 * across hosts instead of linked.
 *
 * Why not linked: Debian's libfabric (1.17) links its psm provider's
 * libraries, and libinfinipath's constructor, unless IPATH_NO_BACKTRACE is
 * set, takes SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGINT and SIGTERM (and
 * SIGINT and SIGTERM even where the process inherited them ignored) with a
 * handler that prints a backtrace, writes a .btr file into the working
 * directory and exit(1)s. Linked, it ran before main() in every program
 * that linked libhlcoll, one host or several: a crash left no core and a
 * status of 1, a Ctrl-C or a scheduler's SIGTERM a status of 1, Python's
 * KeyboardInterrupt and faulthandler were gone. Loaded here, it runs only
 * in a process that sets up a communicator across hosts, and every signal
 * disposition that the loading changed to a handler of an object the
 * loading brought in is put back as it was.
 *
 * Not told apart: a library that another thread loads during the same
 * dlopen() and whose constructor takes a signal is taken for libfabric's
 * (its handler is put back too); the window is the one dlopen() of a
 * process.
 *
 * The functions are looked up by name and version in the process's global
 * scope (RTLD_GLOBAL, as a linked library is), so that an interposer comes
 * first, as it would for a linked libfabric: one of the same version, or
 * one without versions (an LD_PRELOAD tracer).
 */
#include "hlcoll_int.h"
#include "hlcoll_fi.h"
#include "hlcoll_fi_ver.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define HLCOLL_FI_SONAME	"libfabric.so.1"
/* The objects of the process before the loading: more are not told apart */
#define HLCOLL_FI_MAX_OBJS	512

struct hlcoll_fi hlcoll_fi;

static pthread_once_t hlcoll_fi_once = PTHREAD_ONCE_INIT;
static int hlcoll_fi_status;
static char hlcoll_fi_why[256];

/*
 * The symbol versions that a link against libfabric's headers binds (the
 * layouts of struct fi_info and its parts that this library was built
 * with): hlcoll_fi_ver.h, which the Makefile writes from a link
 */
static const struct {
	const char *name, *version;
	size_t off;
} hlcoll_fi_syms[] = {
	{ "fi_getinfo", HLCOLL_FI_VER_fi_getinfo,
	  offsetof(struct hlcoll_fi, getinfo) },
	{ "fi_freeinfo", HLCOLL_FI_VER_fi_freeinfo,
	  offsetof(struct hlcoll_fi, freeinfo) },
	{ "fi_dupinfo", HLCOLL_FI_VER_fi_dupinfo,
	  offsetof(struct hlcoll_fi, dupinfo) },
	{ "fi_fabric", HLCOLL_FI_VER_fi_fabric,
	  offsetof(struct hlcoll_fi, fabric) },
	{ "fi_strerror", HLCOLL_FI_VER_fi_strerror,
	  offsetof(struct hlcoll_fi, strerror) },
};

struct hlcoll_fi_objs {
	uintptr_t base[HLCOLL_FI_MAX_OBJS];
	int n;
};

/* Where each object is mapped (dladdr()'s dli_fbase for it) */
static int hlcoll_fi_obj(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct hlcoll_fi_objs *objs = arg;
	uintptr_t lo = UINTPTR_MAX;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD &&
		    info->dlpi_phdr[i].p_vaddr < lo)
			lo = info->dlpi_phdr[i].p_vaddr;
	if (lo == UINTPTR_MAX || objs->n == HLCOLL_FI_MAX_OBJS)
		return 0;
	objs->base[objs->n++] = (info->dlpi_addr + lo) & ~(uintptr_t)4095;
	return 0;
}

/* A handler in an object that was not there before the loading */
static bool hlcoll_fi_new_handler(const struct sigaction *sa,
				  const struct hlcoll_fi_objs *before)
{
	Dl_info dl;
	void *h;
	int i;

	if (sa->sa_handler == SIG_DFL || sa->sa_handler == SIG_IGN)
		return false;
	h = sa->sa_flags & SA_SIGINFO ? (void *)sa->sa_sigaction :
					(void *)sa->sa_handler;
	if (!dladdr(h, &dl))
		return false;
	for (i = 0; i < before->n; i++)
		if (before->base[i] == (uintptr_t)dl.dli_fbase)
			return false;
	return true;
}

/* Where the object of a dlopen() handle is mapped, or 0 */
static uintptr_t hlcoll_fi_base(void *handle)
{
	struct link_map *lm;
	Dl_info dl;

	if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) || !lm || !lm->l_ld ||
	    !dladdr(lm->l_ld, &dl))
		return 0;
	return (uintptr_t)dl.dli_fbase;
}

static bool hlcoll_fi_same(const struct sigaction *a,
			   const struct sigaction *b)
{
	return a->sa_handler == b->sa_handler && a->sa_flags == b->sa_flags;
}

static void hlcoll_fi_open(void)
{
	static struct hlcoll_fi_objs before;
	static struct sigaction old[NSIG];
	static bool saved[NSIG];
	struct sigaction now;
	uintptr_t base;
	Dl_info df, dg;
	unsigned int i;
	void *handle, *f, *g;
	int sig;

	for (sig = 1; sig < NSIG; sig++)
		saved[sig] = !sigaction(sig, NULL, &old[sig]);
	dl_iterate_phdr(hlcoll_fi_obj, &before);

	handle = dlopen(HLCOLL_FI_SONAME, RTLD_NOW | RTLD_GLOBAL);

	for (sig = 1; sig < NSIG; sig++) {
		if (!saved[sig] || sigaction(sig, NULL, &now) ||
		    hlcoll_fi_same(&now, &old[sig]) ||
		    !hlcoll_fi_new_handler(&now, &before))
			continue;
		sigaction(sig, &old[sig], NULL);
	}

	if (!handle) {
		snprintf(hlcoll_fi_why, sizeof(hlcoll_fi_why), "%s",
			 dlerror() ?: HLCOLL_FI_SONAME);
		hlcoll_fi_status = -EOPNOTSUPP;
		return;
	}
	base = hlcoll_fi_base(handle);
	for (i = 0; i < sizeof(hlcoll_fi_syms) / sizeof(hlcoll_fi_syms[0]);
	     i++) {
		f = dlvsym(RTLD_DEFAULT, hlcoll_fi_syms[i].name,
			   hlcoll_fi_syms[i].version);
		/*
		 * A linked reference would take an unversioned definition
		 * that comes before libfabric's (an LD_PRELOAD tracer, the
		 * program's own), which dlvsym() does not
		 */
		g = dlsym(RTLD_DEFAULT, hlcoll_fi_syms[i].name);
		if (f && g && g != f && dladdr(f, &df) && dladdr(g, &dg) &&
		    df.dli_fbase != dg.dli_fbase &&
		    base == (uintptr_t)df.dli_fbase)
			f = g;
		if (!f) {
			snprintf(hlcoll_fi_why, sizeof(hlcoll_fi_why),
				 "%s has no %s@%s", HLCOLL_FI_SONAME,
				 hlcoll_fi_syms[i].name,
				 hlcoll_fi_syms[i].version);
			hlcoll_fi_status = -EOPNOTSUPP;
			return;
		}
		memcpy((char *)&hlcoll_fi + hlcoll_fi_syms[i].off, &f,
		       sizeof(f));
	}
}

int hlcoll_fi_load(int rank)
{
	pthread_once(&hlcoll_fi_once, hlcoll_fi_open);
	if (hlcoll_fi_status)
		hlcoll_warn(rank, "libfabric, for ranks on other hosts: %s",
			    hlcoll_fi_why);
	return hlcoll_fi_status;
}

// SPDX-License-Identifier: MIT
/*
 * hosts.c - hl-coll-bench across hosts without mpirun: the library's own
 * unique id, passed by the user.
 *
 *   host A:  HLCOLL_BENCH_NRANKS=4 HLCOLL_BENCH_ID_FILE=/tmp/id \
 *            HLCOLL_SOCKET_ADDR=<A's address> hl-coll-bench -g 2 ...
 *	      creates the id, writes it (hex) to the file, runs ranks 0, 1
 *   host B:  HLCOLL_BENCH_NRANKS=4 HLCOLL_BENCH_RANK_BASE=2 \
 *            HLCOLL_BENCH_ID=<the file's hex> hl-coll-bench -g 2 ...
 *	      runs ranks 2, 3
 *
 * Each host forks its -g ranks (ranks BASE .. BASE + g - 1, on its devices
 * 0 .. g - 1, or -d's), as hlcoll_launch() does for one host. Exit status
 * as hl-coll-bench's.
 */
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "hlthunk.h"

static int hosts_id_parse(const char *hex, struct hlcoll_unique_id *id)
{
	size_t i;
	unsigned int v;

	if (strlen(hex) != 2 * sizeof(*id))
		return -1;
	for (i = 0; i < sizeof(*id); i++) {
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		((unsigned char *)id)[i] = (unsigned char)v;
	}
	return 0;
}

static int hosts_id_write(const char *path, const struct hlcoll_unique_id *id)
{
	char tmp[4096];
	size_t i;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	for (i = 0; i < sizeof(*id); i++)
		fprintf(f, "%02x", ((const unsigned char *)id)[i]);
	fprintf(f, "\n");
	if (fclose(f) || rename(tmp, path))
		return -1;
	return 0;
}

/* 1 when the environment asks for it (*rc: the exit status), else 0 */
int hosts_launch(struct bench *b, int *rc)
{
	const char *ns = getenv("HLCOLL_BENCH_NRANKS");
	const char *bs = getenv("HLCOLL_BENCH_RANK_BASE");
	const char *hex = getenv("HLCOLL_BENCH_ID");
	const char *file = getenv("HLCOLL_BENCH_ID_FILE");
	struct hlcoll_unique_id id;
	pid_t pids[HLCOLL_MAX_RANKS];
	int n, base, i, st, r;

	if (!ns)
		return 0;
	*rc = 1;
	n = atoi(ns);
	base = bs ? atoi(bs) : 0;
	if (n < 1 || n > HLCOLL_MAX_RANKS || base < 0 ||
	    base + b->nranks > n || b->root < 0 || b->root >= n) {
		fprintf(stderr, "hl-coll-bench: HLCOLL_BENCH_NRANKS=%s, base %d, %d local ranks: out of range\n",
			ns, base, b->nranks);
		return 1;
	}
	if (hex) {
		if (hosts_id_parse(hex, &id)) {
			fprintf(stderr, "hl-coll-bench: HLCOLL_BENCH_ID is not a unique id in hex\n");
			return 1;
		}
	} else {
		r = hlcoll_get_unique_id(&id);
		if (!r && file && hosts_id_write(file, &id))
			r = -errno;
		if (r || !file) {
			fprintf(stderr, "hl-coll-bench: unique id%s: %s\n",
				file ? " to HLCOLL_BENCH_ID_FILE" : " (no HLCOLL_BENCH_ID_FILE)",
				r ? strerror(-r) : "nowhere to put it");
			return 1;
		}
	}
	for (i = 0; i < b->nranks; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			b->nranks = i;
			break;
		}
		if (!pids[i]) {
			int fd;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			fd = open_device(b, i);
			st = fd < 0 ? 1 : bench_rank(b, base + i, n, &id, fd);
			if (fd >= 0)
				hlthunk_close(fd);
			fflush(NULL);
			_exit(st ? 1 : 0);
		}
	}
	*rc = 0;
	for (i = 0; i < b->nranks; i++) {
		if (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			if (WIFSIGNALED(st))
				fprintf(stderr, "hl-coll-bench: rank %d: signal %d\n",
					base + i, WTERMSIG(st));
			*rc = 1;
		}
	}
	return 1;
}


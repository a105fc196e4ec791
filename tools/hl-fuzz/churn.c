// SPDX-License-Identifier: MIT
/*
 * hl-fuzz: --churn, owner churn: in every worker process, one more thread
 * makes the process give up a device and take it again while its peers keep
 * working.
 *
 * Every --churn-ms (on average) it picks a device and closes every fd of
 * the process on its compute node, at once and under the state lock: the
 * context's owner goes away while the process's worker threads may be in
 * the middle of ioctls on those fds (their calls hold the file; the release
 * runs when the last one returns), while other processes' connections to
 * its NIC connections, importers of its exports and users of its control
 * node go on. Then it opens the compute node again, retrying for about a
 * second while it is busy (the old file's release still waiting for calls
 * in flight, or another process took the device first) or resetting (the
 * driver answers an open during a hard reset with EPERM), and hands the new
 * fd to the workers. With --reset, now and then it hard-resets the device
 * it has just reopened, racing the ioctls of every peer on it.
 *
 * Its actions are in the history of its own slot (the one after the
 * workers), counted in the summary, and timed by the hang check. It draws
 * from its own PRNG, so the workers' calls stay those of the seed; their
 * results, of course, no longer repeat.
 */

#include "hl-fuzz.h"

/* Closes every compute fd of the process on device @d; returns how many */
static int churn_close(struct worker *w, int d)
{
	uint32_t files[MAX_FDS];
	int i, n = 0, nfiles = 0, k;

	w->cur_op = OP_CHURN_CLOSE;
	st_lock();
	for (i = 0; i < ps->nfds; i++) {
		if (ps->fds[i].kind != F_COMPUTE || ps->fds[i].dev != d)
			continue;
		for (k = 0; k < nfiles && files[k] != ps->fds[i].file; k++)
			;
		if (k == nfiles)
			files[nfiles++] = ps->fds[i].file;
		close(ps->fds[i].fd);
		REMOVE_AT(ps->fds, ps->nfds, i);
		i--;
		n++;
	}
	for (k = 0; k < nfiles; k++)
		if (!file_open_locked(files[k]))
			forget_file_locked(files[k]);
	/* noted under the lock, as op_close() does: no one reuses the numbers yet */
	note(w, n, "churn: closed the owner's %d fd(s) of /dev/hl%d", n, d);
	st_unlock();
	atomic_fetch_add(&sh->closes, n);
	if (n)
		atomic_fetch_add(&sh->churn_closes, 1);
	return n;
}

/* Opens /dev/hl<d> again, retrying while it is busy; returns the fd or -errno */
static int churn_reopen(struct worker *w, int d)
{
	char path[32];
	int fd = -EBUSY, tries;

	w->cur_op = OP_CHURN_REOPEN;
	snprintf(path, sizeof(path), "/dev/hl%d", d);
	for (tries = 1; tries <= 50 && !atomic_load(&sh->stop); tries++) {
		atomic_store(&w->slot->call_start_ns, now_ns());
		fd = open(path, O_RDWR | O_CLOEXEC);
		atomic_store(&w->slot->call_start_ns, 0);
		if (fd < 0)
			fd = -errno;
		if (fd != -EBUSY && fd != -EPERM)
			break;
		usleep(20000);
	}
	note(w, fd, "churn: reopen %s (%d tries)", path, tries);
	atomic_fetch_add(&sh->opens, 1);
	if (fd == -EBUSY || fd == -EPERM)
		atomic_fetch_add(&sh->churn_busy, 1);
	/*
	 * Owned by another process: EBUSY; resetting: EPERM; unbound (--unbind)
	 * or gone: ENODEV, ENXIO, ENOENT. Anything else breaks the contract.
	 */
	if (fd < 0 && fd != -EBUSY && fd != -EPERM && fd != -ENODEV && fd != -ENXIO &&
	    fd != -ENOENT)
		violation(w, false, "open of a compute node failed other than EBUSY/EPERM/ENODEV",
			  strerror(-fd));
	if (fd < 0)
		return fd;
	atomic_fetch_add(&sh->churn_reopens, 1);
	add_fd(fd, d, F_COMPUTE, 0, 0);
	return fd;
}

/* A hard reset of @d while every peer's ioctls on it may be running */
static void churn_reset(struct worker *w, int d)
{
	char path[80];
	int rc;

	snprintf(path, sizeof(path), "/sys/class/habanalabs/hl%d/hard_reset", d);
	if (access(path, W_OK))
		return;
	w->cur_op = OP_CHURN_RESET;
	atomic_store(&w->slot->call_start_ns, now_ns());
	rc = write_file(path, "1");
	atomic_store(&w->slot->call_start_ns, 0);
	note(w, rc, "churn: hard reset of hl%d", d);
	atomic_fetch_add(&sh->resets, 1);
	if (!rc)
		atomic_fetch_add(&sh->churn_resets, 1);
}

void *churn_main(void *arg)
{
	struct thread_arg *ta = arg;
	struct worker *w = worker_alloc();

	if (!w)
		return NULL;
	w->id = ta->id;
	w->r.s = mix(opt.seed, 0x2000 + w->id);
	w->slot = &sh->slot[w->id];
	atomic_store(&w->slot->pid, getpid());
	atomic_store(&w->slot->tid, (int32_t)syscall(SYS_gettid));
	worker_seal(w);

	while (!atomic_load(&sh->stop)) {
		uint64_t us = opt.churn_ms * 500ULL + rnd(&w->r, opt.churn_ms * 1000ULL + 1);
		int d;

		usleep(us);
		if (atomic_load(&sh->stop))
			break;
		d = rnd(&w->r, ndev);
		churn_close(w, d);
		if (churn_reopen(w, d) >= 0 && opt.reset && chance(&w->r, 20))
			churn_reset(w, d);
	}
	worker_free(w);
	return NULL;
}

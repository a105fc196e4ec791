// SPDX-License-Identifier: MIT
/*
 * Concurrency stress: N processes x M threads race alloc / map / export /
 * import (attach + map by the test importer) / release / unmap / free, host
 * maps, command submissions and close, on shared and separate fds, for a
 * bounded time; then the invariants: every call either worked or failed
 * with an errno its op documents, each process ends with as many fds as it
 * started with, and once every client is gone each device's DRAM is all
 * free, no host page is pinned and no compute file is open.
 *
 * Processes contend for the compute nodes (one open file per device): a
 * process that holds one runs a session of M threads on it, some on the
 * shared fd and some on their own dup; a thread closes the shared fd in
 * the middle of the session, and at its end half the threads free what
 * they hold while the others just close their fd with everything live, so
 * the last close races with in-flight ioctls. The processes that wait meanwhile
 * poll the control node.
 *
 * HLTESTS_STRESS_SECONDS (default 20), HLTESTS_STRESS_PROCS (4) and
 * HLTESTS_STRESS_THREADS (3) size the run.
 */
#include "hltests.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "../importer/hl_importer.h"

#define MAX_LIVE	3
#define MAX_THREADS	16
#define MAX_PROCS	16

/* What the processes tell the parent (shared memory) */
struct stress_shared {
	_Atomic unsigned long ops, sessions, exports, imports, cs_done;
	_Atomic unsigned long busy_waits, control_calls;
	_Atomic int errors;
	char first_error[256];
};

static struct stress_shared *sh;
static bool p2p_iommu;		/* imports allowed (module parameter) */

static int env_int(const char *name, int def)
{
	const char *v = getenv(name);

	return v && atoi(v) > 0 ? atoi(v) : def;
}

static void stress_error(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&sh->errors, 1) == 0) {
		va_start(ap, fmt);
		vsnprintf(sh->first_error, sizeof(sh->first_error), fmt, ap);
		va_end(ap);
	}
}

/* One thread's objects */
struct live {
	uint64_t handle, va;		/* device memory */
	int dmabuf;			/* export of it, or -1 */
	uint32_t import;		/* its import by the importer, or 0 */
	uint8_t *host;			/* host buffer */
	uint64_t host_off;		/* where its mapping starts */
	uint64_t host_va;
};

struct session {
	int fd;			/* the shared compute fd; -1 once closed */
	int dev;
	double end;
	pthread_mutex_t lock;	/* Protects fd */
};

struct tstate {
	struct session *s;
	int idx;
	int fd;			/* the fd this thread uses */
	bool own;		/* its own dup */
	int ifd;		/* /dev/hl_importer */
	struct live live[MAX_LIVE];
	unsigned int rnd;
};

static unsigned int trand(struct tstate *t)
{
	t->rnd = t->rnd * 1103515245u + 12345u;
	return t->rnd >> 8;
}

/*
 * A thread on the shared fd may find it closed by the closer thread (EBADF)
 * or its number reused by a dma-buf fd (ENOTTY); a thread on its own dup
 * must not.
 */
static __thread bool on_shared_fd;

static bool gone(int err)
{
	return on_shared_fd && (err == -EBADF || err == -ENOTTY);
}

static void op_device_memory(struct tstate *t, struct live *l)
{
	union hl_mem_args a;
	int rc;

	if (!l->handle) {
		memset(&a, 0, sizeof(a));
		a.in.op = HL_MEM_OP_ALLOC;
		a.in.alloc.mem_size = (1 + trand(t) % 2) << 21;
		rc = hltests_mem_ioctl(t->fd, &a);
		if (rc && rc != -ENOMEM && !gone(rc))
			stress_error("ALLOC: %s", strerror(-rc));
		if (rc)
			return;
		l->handle = a.out.handle;
		memset(&a, 0, sizeof(a));
		a.in.op = HL_MEM_OP_MAP;
		a.in.map_device.handle = l->handle;
		rc = hltests_mem_ioctl(t->fd, &a);
		if (rc && rc != -ENOMEM && !gone(rc))
			stress_error("MAP device: %s", strerror(-rc));
		if (!rc)
			l->va = a.out.device_virt_addr;
		return;
	}
	if (l->va && l->dmabuf < 0 && trand(t) % 2) {
		memset(&a, 0, sizeof(a));
		a.in.op = HL_MEM_OP_EXPORT_DMABUF_FD;
		a.in.export_dmabuf_fd.addr = l->va;
		a.in.export_dmabuf_fd.mem_size = 2 << 20;
		a.in.flags = O_RDWR | O_CLOEXEC;
		rc = hltests_mem_ioctl(t->fd, &a);
		if (rc && rc != -ENOMEM && rc != -EMFILE && !gone(rc))
			stress_error("EXPORT: %s", strerror(-rc));
		if (!rc) {
			l->dmabuf = a.out.fd;
			atomic_fetch_add(&sh->exports, 1);
		}
		return;
	}
	if (l->dmabuf >= 0 && !l->import && t->ifd >= 0 && trand(t) % 2) {
		struct hl_importer_import im = { .fd = l->dmabuf,
						 .flags = HL_IMPORTER_F_DYNAMIC };
		struct hl_importer_map m = { 0 };

		if (ioctl(t->ifd, HL_IMPORTER_IOCTL_IMPORT, &im)) {
			/* p2p_policy=strict refuses every import */
			if (errno != EXDEV || p2p_iommu)
				stress_error("importer IMPORT: %s", strerror(errno));
			return;
		}
		l->import = im.handle;
		m.handle = im.handle;
		if (ioctl(t->ifd, HL_IMPORTER_IOCTL_MAP, &m))
			stress_error("importer MAP: %s", strerror(errno));
		atomic_fetch_add(&sh->imports, 1);
		return;
	}
	/* tear down, in the order that must work */
	if (l->import) {
		struct hl_importer_handle h = { .handle = l->import };

		if (ioctl(t->ifd, HL_IMPORTER_IOCTL_RELEASE, &h))
			stress_error("importer RELEASE: %s", strerror(errno));
		l->import = 0;
	}
	if (l->dmabuf >= 0) {
		close(l->dmabuf);
		l->dmabuf = -1;
	}
	if (l->va) {
		memset(&a, 0, sizeof(a));
		a.in.op = HL_MEM_OP_UNMAP;
		a.in.unmap.device_virt_addr = l->va;
		rc = hltests_mem_ioctl(t->fd, &a);
		if (rc && !gone(rc))
			stress_error("UNMAP of an unexported mapping: %s", strerror(-rc));
		l->va = 0;
	}
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_FREE;
	a.in.free.handle = l->handle;
	rc = hltests_mem_ioctl(t->fd, &a);
	if (rc && !gone(rc))
		stress_error("FREE of an unmapped allocation: %s", strerror(-rc));
	l->handle = 0;
}

static void op_host(struct tstate *t, struct live *l)
{
	union hl_mem_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	if (!l->host_va) {
		a.in.op = HL_MEM_OP_MAP;
		a.in.flags = HL_MEM_USERPTR;
		l->host_off = (trand(t) % 16) * 64;
		a.in.map_host.host_virt_addr = (uintptr_t)l->host + l->host_off;
		a.in.map_host.mem_size = 4096 + trand(t) % 60000;
		rc = hltests_mem_ioctl(t->fd, &a);
		if (rc && rc != -ENOMEM && !gone(rc))
			stress_error("MAP host: %s", strerror(-rc));
		if (!rc)
			l->host_va = a.out.device_virt_addr;
		return;
	}
	a.in.op = HL_MEM_OP_UNMAP;
	a.in.unmap.device_virt_addr = l->host_va;
	rc = hltests_mem_ioctl(t->fd, &a);
	if (rc && !gone(rc))
		stress_error("UNMAP host: %s", strerror(-rc));
	l->host_va = 0;
}

/* MEMSET over the thread's DRAM mapping, CB in its host mapping; wait */
static void op_cs(struct tstate *t, struct live *l)
{
	uint8_t *cbhost = l->host + l->host_off;
	struct hl_cs_chunk ch = { 0 };
	union hl_cs_args a = { 0 };
	union hl_wait_cs_args w = { 0 };
	uint32_t len;
	int rc;

	if (!l->va || !l->host_va)
		return;
	len = hlthunk_pkt_memset(cbhost, l->va, trand(t), 4096 + trand(t) % 65536);
	ch.cb_handle = l->host_va;
	ch.cb_size = len;
	ch.queue_index = trand(t) % 4;
	a.in.chunks_execute = (uintptr_t)&ch;
	a.in.num_chunks_execute = 1;
	a.in.timeout = 5;
	rc = ioctl(t->fd, HL_IOCTL_CS, &a) ? -errno : 0;
	if (rc && rc != -EAGAIN && !gone(rc)) {
		stress_error("CS: %s", strerror(-rc));
		return;
	}
	if (rc)
		return;
	w.in.seq = a.out.seq;
	w.in.timeout_us = 10000000;
	rc = ioctl(t->fd, HL_IOCTL_WAIT_CS, &w) ? -errno : 0;
	if (!rc && w.out.status == HL_WAIT_CS_STATUS_COMPLETED)
		atomic_fetch_add(&sh->cs_done, 1);
	else if (!gone(rc))
		stress_error("WAIT_CS of a MEMSET in its own memory: rc %d status %u",
			     rc, w.out.status);
}

static void *session_thread(void *arg)
{
	struct tstate *t = arg;
	struct session *s = t->s;
	bool closer = t->idx == 0, closed = false;
	bool tidy = t->idx % 2 == 0;
	int i;

	on_shared_fd = !t->own;
	t->ifd = open("/dev/hl_importer", O_RDWR | O_CLOEXEC);
	for (i = 0; i < MAX_LIVE; i++) {
		t->live[i].dmabuf = -1;
		t->live[i].host = mmap(NULL, 1 << 17, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	while (hltests_now_s() < s->end) {
		struct live *l = &t->live[trand(t) % MAX_LIVE];

		switch (trand(t) % 4) {
		case 0:
		case 1:
			op_device_memory(t, l);
			break;
		case 2:
			op_host(t, l);
			break;
		default:
			op_cs(t, l);
		}
		atomic_fetch_add(&sh->ops, 1);
		/* the closer drops the shared fd halfway, under the others */
		if (closer && !closed && hltests_now_s() > s->end - 0.5 - (trand(t) % 1000) / 1000.0) {
			pthread_mutex_lock(&s->lock);
			close(s->fd);
			s->fd = -1;
			pthread_mutex_unlock(&s->lock);
			closed = true;
			break;	/* its fd was the shared one */
		}
	}
	/* half the threads free what they hold, the others just close */
	if (tidy && !closed)
		for (i = 0; i < MAX_LIVE; i++) {
			while (t->live[i].handle)
				op_device_memory(t, &t->live[i]);
			if (t->live[i].host_va)
				op_host(t, &t->live[i]);
		}
	for (i = 0; i < MAX_LIVE; i++) {
		if (t->live[i].dmabuf >= 0)
			close(t->live[i].dmabuf);
		munmap(t->live[i].host, 1 << 17);
	}
	if (t->ifd >= 0)
		close(t->ifd);	/* releases the imports */
	if (t->own)
		close(t->fd);
	return NULL;
}

static void run_session(int fd, int dev, int nthreads, double until)
{
	struct session s = { .fd = fd, .dev = dev, .end = until };
	struct tstate t[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	int i;

	pthread_mutex_init(&s.lock, NULL);
	memset(t, 0, sizeof(t));
	for (i = 0; i < nthreads; i++) {
		t[i].s = &s;
		t[i].idx = i;
		t[i].rnd = (unsigned int)(getpid() * 131 + i * 7919 + (int)(until * 1000));
		/* every third thread on the shared fd, the others on a dup */
		t[i].fd = fd;
		if (i % 3) {
			t[i].fd = dup(fd);
			t[i].own = true;
			if (t[i].fd < 0)
				stress_error("dup: %s", strerror(errno));
		}
	}
	/* every fd is there before the closer can run */
	for (i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, session_thread, &t[i]);
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_lock(&s.lock);
	if (s.fd >= 0)
		close(s.fd);
	pthread_mutex_unlock(&s.lock);
	atomic_fetch_add(&sh->sessions, 1);
}

static void process_main(int p, int ndev, int nthreads, double end)
{
	int dev = p % ndev, fds0 = hltests_count_fds(), ctl = hltests_open_node(dev, 1);
	unsigned int r = getpid();

	while (hltests_now_s() < end) {
		int fd = hltests_open_node(dev, 0);

		if (fd == -EBUSY) {
			struct hl_info_dram_usage u;
			int rc = ctl >= 0 ? hltests_info(ctl, HL_INFO_DEVICE_STATUS, &u,
							 sizeof(u)) : 0;

			if (rc)
				stress_error("control node INFO: %s", strerror(-rc));
			atomic_fetch_add(&sh->busy_waits, 1);
			atomic_fetch_add(&sh->control_calls, 1);
			usleep(20000);
			continue;
		}
		if (fd < 0) {
			stress_error("open /dev/hl%d: %s", dev, strerror(-fd));
			break;
		}
		r = r * 1103515245u + 12345u;
		run_session(fd, dev, nthreads,
			    hltests_now_s() + 0.5 + (r >> 8) % 2500 / 1000.0 < end ?
			    hltests_now_s() + 0.5 + (r >> 8) % 2500 / 1000.0 : end);
		usleep(1000);	/* let a waiting process in */
	}
	if (ctl >= 0)
		close(ctl);
	if (hltests_count_fds() != fds0)
		stress_error("process %d: %d fds at the end, %d at the start (leaked fd)",
			     p, hltests_count_fds(), fds0);
	exit(0);
}

/* Every client gone: nothing of theirs stays in the driver */
static void check_device_clean(int dev)
{
	struct hl_info_hw_ip_info hw;
	struct hl_info_dram_usage u = { 0 };
	int fd = -1, tries;

	for (tries = 0; tries < 100 && fd < 0; tries++) {
		fd = hltests_open_node(dev, 0);
		if (fd < 0)
			usleep(100000);
	}
	assert_true(fd >= 0);
	assert_int_equal(hltests_info(fd, HL_INFO_HW_IP_INFO, &hw, sizeof(hw)), 0);
	for (tries = 0; tries < 100; tries++) {
		assert_int_equal(hltests_info(fd, HL_INFO_DRAM_USAGE, &u, sizeof(u)), 0);
		if (u.dram_free_mem == hw.dram_size &&
		    hltests_debugfs_value(dev, "pinned_host_pages") == 0)
			break;
		usleep(100000);
	}
	print_message("hl%d: DRAM free %llu of %llu, ctx %llu, pinned host pages %lld, dram_used %lld\n",
		      dev, (unsigned long long)u.dram_free_mem,
		      (unsigned long long)hw.dram_size,
		      (unsigned long long)u.ctx_dram_mem,
		      hltests_debugfs_value(dev, "pinned_host_pages"),
		      hltests_debugfs_value(dev, "dram_used"));
	assert_int_equal(u.dram_free_mem, hw.dram_size);
	assert_int_equal(u.ctx_dram_mem, 0);
	assert_int_equal(hltests_debugfs_value(dev, "pinned_host_pages"), 0);
	assert_int_equal(hltests_debugfs_value(dev, "dram_used"), 0);
	close(fd);
	assert_int_equal(hltests_debugfs_value(dev, "compute_open"), 0);
}

static void test_concurrent_clients_leave_nothing_behind(void **state)
{
	int nprocs = env_int("HLTESTS_STRESS_PROCS", 4);
	int nthreads = env_int("HLTESTS_STRESS_THREADS", 3);
	double secs = env_int("HLTESTS_STRESS_SECONDS", 20);
	int ndev = hltests_num_devices(), fds0 = hltests_count_fds(), i, status;
	pid_t pids[MAX_PROCS];
	double end;

	(void)state;
	if (nprocs > MAX_PROCS)
		nprocs = MAX_PROCS;
	if (nthreads > MAX_THREADS)
		nthreads = MAX_THREADS;
	{
		char pol[32] = "";

		hltests_read_file("/sys/module/habanalabs/parameters/p2p_policy",
				  pol, sizeof(pol));
		p2p_iommu = !strcmp(pol, "iommu");
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(sh != MAP_FAILED);
	memset(sh, 0, sizeof(*sh));
	end = hltests_now_s() + secs;
	for (i = 0; i < nprocs; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (!pids[i])
			process_main(i, ndev, nthreads, end);
	}
	for (i = 0; i < nprocs; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			stress_error("process %d ended with status 0x%x", i, status);
	}
	print_message("%d processes x %d threads on %d devices for %.0f s: %lu ops, %lu sessions, %lu exports, %lu imports, %lu CSs done, %lu waits for a busy compute node, %lu control-node calls, %d errors\n",
		      nprocs, nthreads, ndev, secs, sh->ops, sh->sessions, sh->exports,
		      sh->imports, sh->cs_done, sh->busy_waits, sh->control_calls,
		      sh->errors);
	if (sh->errors)
		fail_msg("%d errors; the first: %s", sh->errors, sh->first_error);
	/* the run did what it is for */
	assert_true(sh->sessions >= (unsigned long)ndev);
	assert_true(sh->exports > 0 && sh->cs_done > 0);
	if (p2p_iommu)
		assert_true(sh->imports > 0);
	for (i = 0; i < ndev; i++)
		check_device_clean(i);
	assert_int_equal(hltests_count_fds(), fds0);
	munmap(sh, sizeof(*sh));
}

static const struct CMUnitTest stress_tests[] = {
	cmocka_unit_test(test_concurrent_clients_leave_nothing_behind),
};

int main(void)
{
	return HLTESTS_RUN("stress", stress_tests);
}

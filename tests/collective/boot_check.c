// SPDX-License-Identifier: MIT
/*
 * boot_check.c - libhlcoll's bootstrap against a hostile user of the same
 * host, on the host: no device (a rank's "device" is /dev/null, so a rank
 * whose bootstrap passed fails right after it with -ENOTTY), real processes
 * over loopback TCP. Run by make check (tests/run-checks) as
 * tests/bin-host/hlcoll_boot_check.
 *
 *   1. Silent clients: N TCP connections to the root's port (it is in the
 *      id, and in /proc/net/tcp for every local user) that say nothing, or
 *      send a few bytes of a header and stop, do not delay a 4-rank init:
 *      every rank passes its bootstrap (-ENOTTY) well within its timeout.
 *   2. A squatter: after the job's root is gone, a process that binds the
 *      freed port and answers the protocol without knowing the id's secret
 *      is refused by a rank that comes with the stale id (-ECONNREFUSED),
 *      and receives neither the secret (no 8 bytes of it, anywhere) nor
 *      anything past the rank's first message.
 *   3. A client without the secret is refused by a live root, which goes on
 *      and takes the real rank.
 *
 * Exit status: the number of failed checks.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
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

#include <hlcoll.h>

static int failed;

static void check(int cond, const char *what, long long v)
{
	printf("%s - %s (%lld)\n", cond ? "ok" : "not ok", what, v);
	if (!cond)
		failed++;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------------
 * What an attacker reads in the source: the id's layout, the messages
 */

struct wire_msg {
	uint32_t magic;
	uint32_t type;
	uint32_t len;
	int32_t arg;
};

#define WIRE_MSG_MAGIC		0x484c434du
#define WIRE_HELLO		1
#define WIRE_WELCOME		2

/* Version 1: the secret is 8 bytes at 16, sent in the HELLO */
struct wire_hello_v1 {
	uint64_t secret;
	uint32_t nranks;
	uint32_t rank;
};

static void id_addr(const struct hlcoll_unique_id *id, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	memcpy(&sa->sin_addr.s_addr, id->internal + 8, 4);
	memcpy(&sa->sin_port, id->internal + 12, 2);
}

static uint32_t id_version(const struct hlcoll_unique_id *id)
{
	uint32_t v;

	memcpy(&v, id->internal + 4, 4);
	return v;
}

/* Where the id keeps its secret */
static void id_secret(const struct hlcoll_unique_id *id, size_t *off,
		      size_t *len)
{
	switch (id_version(id)) {
	case 1:
		*off = 16;
		*len = 8;
		break;
	default:
		*off = 0;
		*len = 0;
		check(0, "an id version this test knows", id_version(id));
	}
}

/* Does @buf hold any 8 consecutive bytes of the id's secret? */
static int leaks_secret(const struct hlcoll_unique_id *id, const uint8_t *buf,
			size_t n)
{
	size_t off, len, i;

	id_secret(id, &off, &len);
	for (i = 0; i + 8 <= len; i++)
		if (memmem(buf, n, id->internal + off + i, 8))
			return 1;
	return len == 0;
}

static int wait_fd(int fd, short events, int ms)
{
	struct pollfd p = { .fd = fd, .events = events };

	return poll(&p, 1, ms) == 1 ? 0 : -ETIMEDOUT;
}

/* Read exactly @len bytes within @ms each wait: 0, or -errno (EOF: -EPIPE) */
static int read_full(int fd, void *buf, size_t len, int ms)
{
	uint8_t *p = buf;
	ssize_t n;

	while (len) {
		if (wait_fd(fd, POLLIN, ms))
			return -ETIMEDOUT;
		n = recv(fd, p, len, 0);
		if (n == 0)
			return -EPIPE;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_msg(int fd, uint32_t type, int32_t arg, const void *payload,
		    uint32_t len)
{
	struct wire_msg m = {
		.magic = WIRE_MSG_MAGIC, .type = type, .len = len, .arg = arg,
	};

	if (send(fd, &m, sizeof(m), MSG_NOSIGNAL) != (ssize_t)sizeof(m))
		return -EIO;
	if (len && send(fd, payload, len, MSG_NOSIGNAL) != (ssize_t)len)
		return -EIO;
	return 0;
}

/* ------------------------------------------------------------------------
 * Ranks: child processes, their result as their exit status (-errno)
 */

/* Init on /dev/null: the bootstrap runs, the "device" then says ENOTTY */
static int init_null(int nranks, const struct hlcoll_unique_id *id, int rank,
		     unsigned int boot_ms)
{
	struct hlcoll_config cfg = HLCOLL_CONFIG_INIT;
	struct hlcoll_comm *comm = NULL;
	int fd, rc;

	cfg.boot_timeout_ms = boot_ms;
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = hlcoll_comm_init_rank(&comm, nranks, id, rank, fd, &cfg);
	if (comm)
		hlcoll_comm_destroy(comm);
	close(fd);
	return rc;
}

static pid_t start_rank(int nranks, const struct hlcoll_unique_id *id,
			int rank, unsigned int boot_ms, const int *close_fds,
			int nclose)
{
	pid_t pid = fork();
	int i, rc;

	if (pid)
		return pid;
	for (i = 0; i < nclose; i++)
		close(close_fds[i]);
	rc = init_null(nranks, id, rank, boot_ms);
	_exit(rc <= 0 && rc > -256 ? -rc : 255);
}

/* The rank's result: -(exit status), or -1000 - signal */
static int rank_result(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -9999;
	if (WIFSIGNALED(st))
		return -1000 - WTERMSIG(st);
	return -WEXITSTATUS(st);
}

/* ------------------------------------------------------------------------
 * 1. Silent clients
 */

#define BOOT_MS		12000	/* the old root served 2 silent clients in it */

/*
 * @nsilent connections to the root's port, every fourth sending 3 bytes of
 * a header and stopping; then 4 ranks, rank 0 @root_late_ms after the others
 */
static void test_silent(int nsilent, int root_late_ms)
{
	struct hlcoll_unique_id id;
	struct sockaddr_in sa;
	int *fds, i, n = 0, rc[4], want_ok = 1;
	pid_t pid[4];
	double t0, dt;
	char what[160];

	if (hlcoll_get_unique_id(&id))
		return check(0, "hlcoll_get_unique_id", 0);
	id_addr(&id, &sa);
	fds = calloc(nsilent, sizeof(*fds));
	for (i = 0; i < nsilent; i++) {
		fds[n] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (fds[n] < 0)
			break;
		if (connect(fds[n], (struct sockaddr *)&sa, sizeof(sa)) &&
		    errno != EINPROGRESS) {
			close(fds[n]);
			continue;
		}
		if (i % 4 == 3 && !wait_fd(fds[n], POLLOUT, 1000))
			(void)!send(fds[n], "HLC", 3, MSG_NOSIGNAL);
		n++;
	}
	t0 = now_s();
	for (i = 1; i < 4; i++)
		pid[i] = start_rank(4, &id, i, BOOT_MS, fds, n);
	if (root_late_ms)
		usleep(root_late_ms * 1000);
	pid[0] = start_rank(4, &id, 0, BOOT_MS, fds, n);
	for (i = 0; i < 4; i++) {
		rc[i] = rank_result(pid[i]);
		if (rc[i] != -ENOTTY)
			want_ok = 0;
	}
	dt = now_s() - t0;
	snprintf(what, sizeof(what),
		 "%d silent clients (%d connected), root %d ms late: every rank through the bootstrap (results %d %d %d %d, %.2f s)",
		 nsilent, n, root_late_ms, rc[0], rc[1], rc[2], rc[3], dt);
	check(want_ok, what, rc[0]);
	snprintf(what, sizeof(what),
		 "%d silent clients: the 4-rank init took %.2f s < %.1f s",
		 nsilent, dt, 4.0 + root_late_ms / 1000.0);
	check(dt < 4.0 + root_late_ms / 1000.0, what, (long long)(dt * 1000));
	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
}

/* ------------------------------------------------------------------------
 * 2. A squatter on a stale id's port
 */

struct capture {
	uint8_t buf[65536];
	size_t n;
	int msgs;		/* whole messages received */
	uint32_t types[16];	/* their types */
};

/*
 * Answer what a rank sends, as a root that does not know the secret would:
 * a version 1 HELLO gets WELCOME 0. Record every byte.
 */
static void squat_serve(int fd, struct capture *c)
{
	struct wire_msg m;
	uint32_t len;
	int rc;

	for (;;) {
		rc = read_full(fd, &m, sizeof(m), 2000);
		if (rc)
			return;
		if (c->n + sizeof(m) > sizeof(c->buf))
			return;
		memcpy(c->buf + c->n, &m, sizeof(m));
		c->n += sizeof(m);
		len = m.magic == WIRE_MSG_MAGIC ? m.len : 0;
		if (len > sizeof(c->buf) - c->n)
			return;
		if (len && read_full(fd, c->buf + c->n, len, 2000))
			return;
		c->n += len;
		if (c->msgs < 16)
			c->types[c->msgs] = m.type;
		c->msgs++;
		if (m.type == WIRE_HELLO && len == sizeof(struct wire_hello_v1))
			send_msg(fd, WIRE_WELCOME, 0, NULL, 0);
	}
}

static int squat_listen(const struct sockaddr_in *sa)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)sa, sizeof(*sa)) ||
	    listen(fd, 8)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void test_squatter(void)
{
	static struct capture c;
	struct hlcoll_unique_id id;
	struct sockaddr_in sa;
	int lfd, fd, rc;
	pid_t pid;
	char what[160];

	memset(&c, 0, sizeof(c));
	if (hlcoll_get_unique_id(&id))
		return check(0, "hlcoll_get_unique_id", 0);
	id_addr(&id, &sa);
	/* The job: one rank, in this process; its root closes the port */
	rc = init_null(1, &id, 0, 2000);
	check(rc == -ENOTTY, "the job of the id ran", rc);

	lfd = squat_listen(&sa);
	check(lfd >= 0, "the squatter binds the freed port", errno);
	if (lfd < 0)
		return;
	/* A rank restarted with the stale id */
	pid = start_rank(2, &id, 1, 5000, &lfd, 1);
	fd = wait_fd(lfd, POLLIN, 5000) ? -1 : accept(lfd, NULL, NULL);
	check(fd >= 0, "the rank connected to the squatter", fd);
	if (fd >= 0) {
		squat_serve(fd, &c);
		close(fd);
	}
	close(lfd);
	rc = rank_result(pid);
	snprintf(what, sizeof(what),
		 "the rank refuses the squatter: -ECONNREFUSED (got %d %s)", rc,
		 strerror(-rc < 1000 ? -rc : 0));
	check(rc == -ECONNREFUSED, what, rc);
	check(!leaks_secret(&id, c.buf, c.n),
	      "the squatter did not receive the secret (no 8 bytes of it)",
	      (long long)c.n);
	snprintf(what, sizeof(what),
		 "the squatter received only the rank's HELLO (%d messages, first type %u, second %u)",
		 c.msgs, c.types[0], c.msgs > 1 ? c.types[1] : 0);
	check(c.msgs <= 1 && (!c.msgs || c.types[0] == WIRE_HELLO), what,
	      c.msgs);
}

/* ------------------------------------------------------------------------
 * 3. A client without the secret, at a live root
 */

static void test_client_without_secret(void)
{
	struct hlcoll_unique_id id;
	struct wire_hello_v1 h = { .nranks = 2, .rank = 1 };
	struct wire_msg m;
	struct sockaddr_in sa;
	pid_t root, rank1;
	int fd, rc, r0, r1;

	if (hlcoll_get_unique_id(&id))
		return check(0, "hlcoll_get_unique_id", 0);
	id_addr(&id, &sa);
	root = start_rank(2, &id, 0, 5000, NULL, 0);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	check(!rc, "the attacker connects to the root", errno);
	/* Claims rank 1 with a secret it guessed */
	h.secret = 0x5eC2e75eC2e75eC2ull;
	send_msg(fd, WIRE_HELLO, 0, &h, sizeof(h));
	rc = read_full(fd, &m, sizeof(m), 3000);
	/* Refused: a WELCOME with an error, or the connection closed */
	check((rc == 0 && m.type == WIRE_WELCOME && m.arg < 0) || rc == -EPIPE ||
	      rc == -ECONNRESET,
	      "the root refuses a client that does not know the secret",
	      rc ? rc : m.arg);
	close(fd);
	rank1 = start_rank(2, &id, 1, 5000, NULL, 0);
	r0 = rank_result(root);
	r1 = rank_result(rank1);
	check(r0 == -ENOTTY && r1 == -ENOTTY,
	      "the root then takes the real rank 1 (both through the bootstrap)",
	      r0 * 1000 + r1);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);

	test_client_without_secret();
	test_squatter();
	test_silent(16, 0);
	test_silent(16, 1000);
	test_silent(100, 0);

	printf("hlcoll_boot_check: %s (%d failed)\n",
	       failed ? "FAILED" : "passed", failed);
	return failed;
}

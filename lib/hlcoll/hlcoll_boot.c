// SPDX-License-Identifier: MIT
/*
 * hlcoll_boot.c - libhlcoll's bootstrap: the unique id, and a small TCP
 * rendezvous behind it (as NCCL's).
 *
 * hlcoll_get_unique_id() listens on an IPv4 address and an ephemeral port
 * and puts both, with a random 64-bit secret, in the id. Rank 0 (the root)
 * takes that listening socket (this process's table of listeners, inherited
 * by a fork) and accepts the other ranks; each one connects and sends a
 * HELLO with the secret, the number of ranks and its rank. The root refuses
 * a wrong secret (-ESTALE), a different number of ranks (-ESTALE), a bad
 * or duplicate rank (-EINVAL, -EADDRINUSE) with a WELCOME carrying that
 * error, and goes on waiting for the right ranks until its deadline; when
 * every rank is in, it sends WELCOME 0 to all. Afterwards every exchange
 * (hlcoll_boot_allgather()) goes through the root: each rank sends DATA,
 * the root sends the concatenation (ALL) back.
 *
 * Every message is a struct hlcoll_msg header and a payload of hdr.len
 * bytes, read in full (a short read is retried until the deadline, EOF is
 * -ECONNRESET, a header with a wrong magic or an unexpected length is
 * -EPROTO). Every wait is a poll() bounded by the deadline; nothing blocks
 * without one. A rank that fails sends ABORT (with its errno), which the
 * root relays to everyone; a rank that is destroyed sends BYE.
 */
#include "hlcoll_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define HLCOLL_ID_MAGIC		0x484c4349u	/* "HLCI" */
#define HLCOLL_ID_VERSION	1
#define HLCOLL_MSG_MAGIC	0x484c434du	/* "HLCM" */

/* The bytes of a unique id; the rest of hlcoll_unique_id is zero */
struct hlcoll_id_wire {
	uint32_t magic;
	uint32_t version;
	uint32_t addr;		/* IPv4, network order */
	uint16_t port;		/* network order */
	uint16_t pad;
	uint64_t secret;
};

enum hlcoll_msg_type {
	HLCOLL_MSG_HELLO = 1,
	HLCOLL_MSG_WELCOME,
	HLCOLL_MSG_DATA,
	HLCOLL_MSG_ALL,
	HLCOLL_MSG_ABORT,
	HLCOLL_MSG_BYE,
};

struct hlcoll_msg {
	uint32_t magic;
	uint32_t type;
	uint32_t len;
	int32_t arg;		/* WELCOME, ABORT: 0 or -errno */
};

struct hlcoll_hello {
	uint64_t secret;
	uint32_t nranks;
	uint32_t rank;
};

/* ------------------------------------------------------------------------
 * Logging
 */

static int hlcoll_level = -1;

int hlcoll_log_level(void)
{
	const char *s;
	int l;

	if (hlcoll_level >= 0)
		return hlcoll_level;
	s = getenv("HLCOLL_DEBUG");
	l = HLCOLL_LOG_NONE;
	if (s && *s) {
		if (!strcasecmp(s, "WARN"))
			l = HLCOLL_LOG_WARN;
		else if (!strcasecmp(s, "INFO"))
			l = HLCOLL_LOG_INFO;
		else if (!strcasecmp(s, "TRACE"))
			l = HLCOLL_LOG_TRACE;
		else if (s[0] >= '0' && s[0] <= '9')
			l = atoi(s);
	}
	hlcoll_level = l;
	return l;
}

void hlcoll_log(int level, int rank, const char *fmt, ...)
{
	static const char * const names[] = { "", "WARN", "INFO", "TRACE" };
	char buf[512];
	va_list ap;
	int n;

	if (level > hlcoll_log_level())
		return;
	n = snprintf(buf, sizeof(buf), "hlcoll %d: rank %d: %s ", (int)getpid(),
		     rank, names[level < 4 ? level : 3]);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", buf);
}

/* ------------------------------------------------------------------------
 * Listeners of the ids this process created
 */

#define HLCOLL_MAX_LISTENERS	16

static pthread_mutex_t hlcoll_listen_lock = PTHREAD_MUTEX_INITIALIZER;
/* Protected by hlcoll_listen_lock */
static struct {
	uint64_t secret;
	int fd;
} hlcoll_listeners[HLCOLL_MAX_LISTENERS];

static int hlcoll_listener_add(uint64_t secret, int fd)
{
	int i, rc = -ENFILE;

	pthread_mutex_lock(&hlcoll_listen_lock);
	for (i = 0; i < HLCOLL_MAX_LISTENERS; i++) {
		if (hlcoll_listeners[i].secret)
			continue;
		hlcoll_listeners[i].secret = secret;
		hlcoll_listeners[i].fd = fd;
		rc = 0;
		break;
	}
	pthread_mutex_unlock(&hlcoll_listen_lock);
	return rc;
}

/* Take (remove from the table) the listener of @secret: its fd, or -1 */
static int hlcoll_listener_take(uint64_t secret)
{
	int i, fd = -1;

	pthread_mutex_lock(&hlcoll_listen_lock);
	for (i = 0; i < HLCOLL_MAX_LISTENERS; i++) {
		if (!secret || hlcoll_listeners[i].secret != secret)
			continue;
		fd = hlcoll_listeners[i].fd;
		hlcoll_listeners[i].secret = 0;
		break;
	}
	pthread_mutex_unlock(&hlcoll_listen_lock);
	return fd;
}

void hlcoll_boot_drop_listeners(void)
{
	int i;

	pthread_mutex_lock(&hlcoll_listen_lock);
	for (i = 0; i < HLCOLL_MAX_LISTENERS; i++) {
		if (!hlcoll_listeners[i].secret)
			continue;
		close(hlcoll_listeners[i].fd);
		hlcoll_listeners[i].secret = 0;
	}
	pthread_mutex_unlock(&hlcoll_listen_lock);
}

static int hlcoll_id_decode(const struct hlcoll_unique_id *id,
			    struct hlcoll_id_wire *w)
{
	size_t i;

	memcpy(w, id->internal, sizeof(*w));
	for (i = sizeof(*w); i < sizeof(id->internal); i++)
		if (id->internal[i])
			return -EINVAL;
	if (w->magic != HLCOLL_ID_MAGIC || w->version != HLCOLL_ID_VERSION ||
	    !w->port || !w->secret || w->pad)
		return -EINVAL;
	return 0;
}

void hlcoll_boot_drop_listener(const struct hlcoll_unique_id *id)
{
	struct hlcoll_id_wire w;
	int fd;

	if (hlcoll_id_decode(id, &w))
		return;
	fd = hlcoll_listener_take(w.secret);
	if (fd >= 0)
		close(fd);
}

/* ------------------------------------------------------------------------
 * The unique id
 */

/* The address to listen on: HLCOLL_SOCKET_ADDR, HLCOLL_SOCKET_IFNAME, lo */
static int hlcoll_boot_addr(struct in_addr *addr)
{
	const char *s = getenv("HLCOLL_SOCKET_ADDR");
	struct ifaddrs *ifa, *i;
	int rc = -ENODEV;

	if (s && *s) {
		if (inet_pton(AF_INET, s, addr) != 1) {
			hlcoll_warn(-1, "HLCOLL_SOCKET_ADDR=%s is not an IPv4 address",
				    s);
			return -EINVAL;
		}
		return 0;
	}
	s = getenv("HLCOLL_SOCKET_IFNAME");
	if (!s || !*s) {
		addr->s_addr = htonl(INADDR_LOOPBACK);
		return 0;
	}
	if (getifaddrs(&ifa))
		return -errno;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
		    strcmp(i->ifa_name, s))
			continue;
		*addr = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
		rc = 0;
		break;
	}
	freeifaddrs(ifa);
	if (rc)
		hlcoll_warn(-1, "HLCOLL_SOCKET_IFNAME=%s has no IPv4 address", s);
	return rc;
}

int hlcoll_get_unique_id(struct hlcoll_unique_id *id)
{
	struct hlcoll_id_wire w;
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int fd, rc;

	if (!id)
		return -EINVAL;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	rc = hlcoll_boot_addr(&sa.sin_addr);
	if (rc)
		return rc;

	memset(&w, 0, sizeof(w));
	do {
		if (getrandom(&w.secret, sizeof(w.secret), 0) !=
		    (ssize_t)sizeof(w.secret))
			return errno ? -errno : -EIO;
	} while (!w.secret);

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(fd, HLCOLL_MAX_RANKS) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len)) {
		rc = -errno;
		close(fd);
		return rc;
	}
	rc = hlcoll_listener_add(w.secret, fd);
	if (rc) {
		close(fd);
		return rc;
	}
	w.magic = HLCOLL_ID_MAGIC;
	w.version = HLCOLL_ID_VERSION;
	w.addr = sa.sin_addr.s_addr;
	w.port = sa.sin_port;
	memset(id, 0, sizeof(*id));
	memcpy(id->internal, &w, sizeof(w));
	hlcoll_info(-1, "unique id: %s:%u", inet_ntoa(sa.sin_addr),
		    ntohs(sa.sin_port));
	return 0;
}

/* ------------------------------------------------------------------------
 * Bounded socket I/O
 */

static int64_t hlcoll_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for @events on @fd until @deadline (ms); 0, -ETIMEDOUT or -errno */
static int hlcoll_wait_fd(int fd, short events, int64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int64_t left;
	int rc;

	for (;;) {
		left = deadline - hlcoll_now_ms();
		if (left < 0)
			left = 0;
		rc = poll(&pfd, 1, left > 60000 ? 60000 : (int)left);
		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR)
			return -errno;
		if (rc == 0 && hlcoll_now_ms() >= deadline)
			return -ETIMEDOUT;
	}
}

/* @more: MSG_MORE, when the rest of the message follows at once */
static int hlcoll_send_all(int fd, const void *buf, size_t len, int more,
			   int64_t deadline)
{
	const uint8_t *p = buf;
	ssize_t n;
	int rc;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT | more);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return errno == EPIPE ? -ECONNRESET : -errno;
		rc = hlcoll_wait_fd(fd, POLLOUT, deadline);
		if (rc)
			return rc;
	}
	return 0;
}

static int hlcoll_recv_all(int fd, void *buf, size_t len, int64_t deadline)
{
	uint8_t *p = buf;
	ssize_t n;
	int rc;

	while (len) {
		n = recv(fd, p, len, MSG_DONTWAIT);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return -ECONNRESET;	/* the peer closed */
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		rc = hlcoll_wait_fd(fd, POLLIN, deadline);
		if (rc)
			return rc;
	}
	return 0;
}

static int hlcoll_msg_send(int fd, uint32_t type, int32_t arg,
			   const void *payload, uint32_t len, int64_t deadline)
{
	struct hlcoll_msg m = {
		.magic = HLCOLL_MSG_MAGIC, .type = type, .len = len, .arg = arg,
	};
	int rc;

	/* Header and payload leave together, as one segment when they fit */
	rc = hlcoll_send_all(fd, &m, sizeof(m), len ? MSG_MORE : 0, deadline);
	if (!rc && len)
		rc = hlcoll_send_all(fd, payload, len, 0, deadline);
	return rc;
}

/*
 * Receive one message of @type whose payload is exactly @len bytes into
 * @payload. ABORT: its error (or -ECONNABORTED); BYE: -ECONNRESET; anything
 * else, or another length: -EPROTO (the payload is not read).
 */
static int hlcoll_msg_recv(int fd, uint32_t type, int32_t *arg, void *payload,
			   uint32_t len, int64_t deadline)
{
	struct hlcoll_msg m;
	int rc;

	rc = hlcoll_recv_all(fd, &m, sizeof(m), deadline);
	if (rc)
		return rc;
	if (m.magic != HLCOLL_MSG_MAGIC)
		return -EPROTO;
	if (m.type == HLCOLL_MSG_ABORT)
		return m.arg < 0 ? m.arg : -ECONNABORTED;
	if (m.type == HLCOLL_MSG_BYE)
		return -ECONNRESET;
	if (m.type != type || m.len != len)
		return -EPROTO;
	if (arg)
		*arg = m.arg;
	return len ? hlcoll_recv_all(fd, payload, len, deadline) : 0;
}

static void hlcoll_boot_close_all(struct hlcoll_boot *b)
{
	int r;

	for (r = 0; r < HLCOLL_MAX_RANKS; r++) {
		if (b->fds[r] >= 0)
			close(b->fds[r]);
		b->fds[r] = -1;
	}
}

/* ------------------------------------------------------------------------
 * Rendezvous
 */

/* Root: accept the other ranks until all are in or the deadline passes */
static int hlcoll_boot_root(struct hlcoll_boot *b, int lfd, int64_t deadline)
{
	struct hlcoll_hello h;
	int pending = b->nranks - 1, fd, r, rc, why, one = 1;

	while (pending) {
		rc = hlcoll_wait_fd(lfd, POLLIN, deadline);
		if (rc) {
			hlcoll_warn(0, "bootstrap: %d of %d ranks did not arrive in %u ms",
				    pending, b->nranks, b->timeout_ms);
			return rc;
		}
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == EAGAIN ||
			    errno == ECONNABORTED)
				continue;
			return -errno;
		}
		/*
		 * As the ranks' ends: with Nagle's algorithm a message sent
		 * right after another waits for its ACK, which the receiver
		 * delays (40 ms on Linux), at every exchange
		 */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		/* A client that connects and says nothing cannot stall us */
		rc = hlcoll_msg_recv(fd, HLCOLL_MSG_HELLO, NULL, &h, sizeof(h),
				     deadline < hlcoll_now_ms() + 5000 ?
				     deadline : hlcoll_now_ms() + 5000);
		if (rc) {
			hlcoll_warn(0, "bootstrap: a connection without a hello: %s",
				    strerror(-rc));
			close(fd);
			continue;
		}
		why = 0;
		r = (int)h.rank;
		if (h.secret != b->secret)
			why = -ESTALE;
		else if (h.nranks != (uint32_t)b->nranks)
			why = -ESTALE;
		else if (h.rank < 1 || h.rank >= (uint32_t)b->nranks)
			why = -EINVAL;
		else if (b->fds[r] >= 0)
			why = -EADDRINUSE;
		if (why) {
			hlcoll_warn(0, "bootstrap: refused rank %u of %u: %s",
				    h.rank, h.nranks, strerror(-why));
			hlcoll_msg_send(fd, HLCOLL_MSG_WELCOME, why, NULL, 0,
					hlcoll_now_ms() + 1000);
			close(fd);
			continue;
		}
		b->fds[r] = fd;
		pending--;
		hlcoll_trace(0, "bootstrap: rank %d arrived, %d to go", r,
			     pending);
	}
	for (r = 1; r < b->nranks; r++) {
		rc = hlcoll_msg_send(b->fds[r], HLCOLL_MSG_WELCOME, 0, NULL, 0,
				     deadline);
		if (rc)
			return rc;
	}
	return 0;
}

/* Non-root: connect to the root, say hello, wait for the welcome */
static int hlcoll_boot_join(struct hlcoll_boot *b,
			    const struct hlcoll_id_wire *w, int64_t deadline)
{
	struct hlcoll_hello h = {
		.secret = w->secret, .nranks = b->nranks, .rank = b->rank,
	};
	struct sockaddr_in sa;
	socklen_t len = sizeof(int);
	int32_t status = 0;
	int fd, rc, err = 0, one = 1;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = w->addr;
	sa.sin_port = w->port;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	b->fds[0] = fd;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	    errno != EINPROGRESS)
		return -errno;
	rc = hlcoll_wait_fd(fd, POLLOUT, deadline);
	if (rc)
		return rc;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
		return -errno;
	if (err) {
		hlcoll_warn(b->rank, "bootstrap: connecting to the root %s:%u: %s",
			    inet_ntoa(sa.sin_addr), ntohs(sa.sin_port),
			    strerror(err));
		return -err;
	}
	rc = hlcoll_msg_send(fd, HLCOLL_MSG_HELLO, 0, &h, sizeof(h), deadline);
	if (!rc)
		rc = hlcoll_msg_recv(fd, HLCOLL_MSG_WELCOME, &status, NULL, 0,
				     deadline);
	if (!rc && status)
		rc = status < 0 ? status : -EPROTO;
	if (rc)
		hlcoll_warn(b->rank, "bootstrap: the root did not take us: %s",
			    strerror(-rc));
	return rc;
}

int hlcoll_boot_init(struct hlcoll_boot *b, const struct hlcoll_unique_id *id,
		     int rank, int nranks, uint32_t timeout_ms)
{
	int64_t deadline = hlcoll_now_ms() + timeout_ms;
	struct hlcoll_id_wire w;
	int lfd = -1, r, rc;

	memset(b, 0, sizeof(*b));
	for (r = 0; r < HLCOLL_MAX_RANKS; r++)
		b->fds[r] = -1;
	b->rank = rank;
	b->nranks = nranks;
	b->timeout_ms = timeout_ms;
	rc = hlcoll_id_decode(id, &w);
	if (rc) {
		hlcoll_warn(rank, "bootstrap: not a unique id of hlcoll_get_unique_id()");
		return rc;
	}
	b->secret = w.secret;

	if (rank == 0) {
		lfd = hlcoll_listener_take(w.secret);
		if (lfd < 0) {
			hlcoll_warn(0, "bootstrap: rank 0 must run in the process that created the unique id (or a child forked after it)");
			return -ENOENT;
		}
		if (nranks > 1)
			rc = hlcoll_boot_root(b, lfd, deadline);
		close(lfd);
		if (rc)
			hlcoll_boot_abort(b, rc);
	} else {
		rc = hlcoll_boot_join(b, &w, deadline);
	}
	if (rc)
		hlcoll_boot_close_all(b);
	return rc;
}

int hlcoll_boot_allgather(struct hlcoll_boot *b, const void *mine, void *all,
			  size_t size)
{
	int64_t deadline = hlcoll_now_ms() + b->timeout_ms;
	uint8_t *out = all;
	int r, rc;

	if (b->error)
		return b->error;
	if (!size || size > HLCOLL_BOOT_MAX_BLOB)
		return -EINVAL;
	memmove(out + (size_t)b->rank * size, mine, size);
	if (b->nranks == 1)
		return 0;

	if (b->rank) {
		rc = hlcoll_msg_send(b->fds[0], HLCOLL_MSG_DATA, 0, mine,
				     (uint32_t)size, deadline);
		if (!rc)
			rc = hlcoll_msg_recv(b->fds[0], HLCOLL_MSG_ALL, NULL,
					     all, (uint32_t)(size * b->nranks),
					     deadline);
		if (rc) {
			b->error = rc;
			hlcoll_warn(b->rank, "bootstrap exchange: %s",
				    strerror(-rc));
		}
		return rc;
	}

	for (r = 1; r < b->nranks; r++) {
		rc = hlcoll_msg_recv(b->fds[r], HLCOLL_MSG_DATA, NULL,
				     out + (size_t)r * size, (uint32_t)size,
				     deadline);
		if (rc) {
			hlcoll_warn(0, "bootstrap exchange: rank %d: %s", r,
				    strerror(-rc));
			goto err;
		}
	}
	for (r = 1; r < b->nranks; r++) {
		rc = hlcoll_msg_send(b->fds[r], HLCOLL_MSG_ALL, 0, all,
				     (uint32_t)(size * b->nranks), deadline);
		if (rc)
			goto err;
	}
	return 0;
err:
	hlcoll_boot_abort(b, rc);
	b->error = rc;
	return rc;
}

int hlcoll_boot_poll_error(struct hlcoll_boot *b)
{
	struct hlcoll_msg m;
	struct pollfd pfd;
	ssize_t n;
	int r;

	if (b->error)
		return b->error;
	for (r = 0; r < b->nranks && r < HLCOLL_MAX_RANKS; r++) {
		if (b->fds[r] < 0)
			continue;
		pfd.fd = b->fds[r];
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, 0) <= 0)
			continue;
		n = recv(b->fds[r], &m, sizeof(m), MSG_PEEK | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n == 0 || n < 0)
			b->error = -ECONNRESET;
		else if (n == (ssize_t)sizeof(m) && m.magic == HLCOLL_MSG_MAGIC &&
			 m.type == HLCOLL_MSG_ABORT)
			b->error = m.arg < 0 ? m.arg : -ECONNABORTED;
		else if (n == (ssize_t)sizeof(m) && m.magic == HLCOLL_MSG_MAGIC &&
			 m.type == HLCOLL_MSG_BYE)
			continue;	/* left normally: not an error yet */
		else
			continue;	/* data of an exchange to come */
		if (b->rank == 0)
			hlcoll_boot_abort(b, b->error);
		return b->error;
	}
	return 0;
}

void hlcoll_boot_abort(struct hlcoll_boot *b, int err)
{
	int64_t deadline = hlcoll_now_ms() + 1000;
	int r;

	for (r = 0; r < b->nranks && r < HLCOLL_MAX_RANKS; r++)
		if (b->fds[r] >= 0)
			hlcoll_msg_send(b->fds[r], HLCOLL_MSG_ABORT,
					err < 0 ? err : -ECONNABORTED, NULL, 0,
					deadline);
}

void hlcoll_boot_fini(struct hlcoll_boot *b, bool normal)
{
	int64_t deadline = hlcoll_now_ms() + 100;
	int r;

	for (r = 0; normal && r < b->nranks && r < HLCOLL_MAX_RANKS; r++)
		if (b->fds[r] >= 0)
			hlcoll_msg_send(b->fds[r], HLCOLL_MSG_BYE, 0, NULL, 0,
					deadline);
	hlcoll_boot_close_all(b);
}

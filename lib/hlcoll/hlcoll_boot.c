// SPDX-License-Identifier: MIT
/*
 * hlcoll_boot.c - libhlcoll's bootstrap: the unique id, and a small TCP
 * rendezvous behind it (as NCCL's).
 *
 * hlcoll_get_unique_id() listens on an IPv4 address and an ephemeral port
 * and puts both, with a random tag and a random secret, in the id (the
 * bytes are in hlcoll_wire.h). Rank 0 (the root) takes that listening
 * socket (this process's table of listeners, inherited by a fork) and
 * serves every connection at once (hlcoll_boot_root()): each one connects
 * and says HELLO (the id's tag and a nonce), the root proves the secret
 * (CHALLENGE: its nonce and a MAC of both), the rank checks it before it
 * says anything else and proves the secret in turn (PROOF, with the number
 * of ranks and its rank). The root refuses another id's tag (-ESTALE),
 * another version (-EPROTONOSUPPORT), a wrong proof (-EACCES), a different
 * number of ranks (-ESTALE), a bad or duplicate rank (-EINVAL,
 * -EADDRINUSE) with a WELCOME carrying that error, and goes on waiting for
 * the right ranks until its deadline; when every rank is in, it sends
 * WELCOME 0 to all and shuts the listener down. Afterwards every exchange
 * (hlcoll_boot_allgather()) goes through the root: each rank sends DATA,
 * the root sends the concatenation (ALL) back.
 *
 * Every message is a struct hlcoll_msg header and a payload of hdr.len
 * bytes, read in full (a short read is retried until the deadline, EOF is
 * -ECONNRESET, a header with a wrong magic or an unexpected length is
 * -EPROTO). Every wait is a poll() bounded by the deadline; nothing blocks
 * without one. A rank that fails sends ABORT (with its errno), which the
 * root relays to everyone as soon as it looks (hlcoll_boot_wait_error(),
 * which the collectives call while they wait for the device); a rank that
 * is destroyed sends BYE. A socket on which a message failed partway is
 * shut down, never written to again (an ABORT would land in the middle of
 * that message): the rank at the other end reads -ECONNRESET.
 */
#include "hlcoll_int.h"
#include "hlcoll_wire.h"

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

/*
 * A connection that has not proven the secret: the root serves at most
 * HLCOLL_BOOT_PENDING of them at once (a new one evicts the oldest that
 * has not sent its HELLO, else the oldest, told WELCOME -EAGAIN: a rank
 * comes again), each for at most HLCOLL_BOOT_HANDSHAKE_MS
 */
#define HLCOLL_BOOT_PENDING	64
#define HLCOLL_BOOT_HANDSHAKE_MS	5000

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
/* Protected by hlcoll_listen_lock; a slot is free when its tag is 0 */
static struct {
	uint64_t tag;
	int fd;
} hlcoll_listeners[HLCOLL_MAX_LISTENERS];

/*
 * Is @fd still listening? Rank 0 shuts its listener down when the
 * rendezvous is over (hlcoll_boot_init()), which stops the copies that
 * other processes inherited by fork too: theirs only hold a descriptor.
 */
static bool hlcoll_listening(int fd)
{
	socklen_t len = sizeof(int);
	int on = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len))
		return false;
	return on;
}

/* Close this process's copies of listeners that their rank 0 shut down */
static void hlcoll_listeners_sweep_locked(void)
{
	int i;

	for (i = 0; i < HLCOLL_MAX_LISTENERS; i++) {
		if (!hlcoll_listeners[i].tag ||
		    hlcoll_listening(hlcoll_listeners[i].fd))
			continue;
		close(hlcoll_listeners[i].fd);
		hlcoll_listeners[i].tag = 0;
	}
}

static int hlcoll_listener_add(uint64_t tag, int fd)
{
	int i, rc = -ENFILE;

	pthread_mutex_lock(&hlcoll_listen_lock);
	hlcoll_listeners_sweep_locked();
	for (i = 0; i < HLCOLL_MAX_LISTENERS; i++) {
		if (hlcoll_listeners[i].tag)
			continue;
		hlcoll_listeners[i].tag = tag;
		hlcoll_listeners[i].fd = fd;
		rc = 0;
		break;
	}
	pthread_mutex_unlock(&hlcoll_listen_lock);
	return rc;
}

/* Take (remove from the table) the listener of @tag: its fd, or -1 */
static int hlcoll_listener_take(uint64_t tag)
{
	int i, fd = -1;

	pthread_mutex_lock(&hlcoll_listen_lock);
	for (i = 0; i < HLCOLL_MAX_LISTENERS; i++) {
		if (!tag || hlcoll_listeners[i].tag != tag)
			continue;
		fd = hlcoll_listeners[i].fd;
		hlcoll_listeners[i].tag = 0;
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
		if (!hlcoll_listeners[i].tag)
			continue;
		close(hlcoll_listeners[i].fd);
		hlcoll_listeners[i].tag = 0;
	}
	pthread_mutex_unlock(&hlcoll_listen_lock);
}

static int hlcoll_id_decode(const struct hlcoll_unique_id *id,
			    struct hlcoll_id_wire *w)
{
	size_t i;

	memcpy(w, id->internal, sizeof(*w));
	if (w->magic == HLCOLL_ID_MAGIC && w->version != HLCOLL_ID_VERSION)
		return -EPROTONOSUPPORT;
	for (i = sizeof(*w); i < sizeof(id->internal); i++)
		if (id->internal[i])
			return -EINVAL;
	if (w->magic != HLCOLL_ID_MAGIC || !w->port || !w->tag || w->pad)
		return -EINVAL;
	return 0;
}

/* Close this process's listener of @id: 0, or -ENOENT (none) */
static int hlcoll_boot_release(const struct hlcoll_unique_id *id)
{
	struct hlcoll_id_wire w;
	int fd, rc;

	rc = hlcoll_id_decode(id, &w);
	if (!rc) {
		fd = hlcoll_listener_take(w.tag);
		if (fd >= 0)
			close(fd);
		else
			rc = -ENOENT;
	}
	hlcoll_wipe(&w, sizeof(w));
	return rc;
}

void hlcoll_boot_drop_listener(const struct hlcoll_unique_id *id)
{
	hlcoll_boot_release(id);
}

int hlcoll_release_unique_id(const struct hlcoll_unique_id *id)
{
	return id ? hlcoll_boot_release(id) : -EINVAL;
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

/* @len random bytes, not all zero */
static int hlcoll_random(void *buf, size_t len)
{
	static const uint8_t zero[HLCOLL_SECRET_BYTES];
	ssize_t n;

	do {
		n = getrandom(buf, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)len)
			return n < 0 ? -errno : -EIO;
	} while (len <= sizeof(zero) && !memcmp(buf, zero, len));
	return 0;
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
	rc = hlcoll_random(&w.tag, sizeof(w.tag));
	if (!rc)
		rc = hlcoll_random(w.secret, sizeof(w.secret));
	if (rc)
		goto out;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	/*
	 * A backlog as deep as the host allows: ranks that connect before
	 * rank 0 runs wait there, beside whatever else connected
	 */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(fd, SOMAXCONN) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len)) {
		rc = -errno;
		close(fd);
		goto out;
	}
	rc = hlcoll_listener_add(w.tag, fd);
	if (rc) {
		close(fd);
		goto out;
	}
	w.magic = HLCOLL_ID_MAGIC;
	w.version = HLCOLL_ID_VERSION;
	w.addr = sa.sin_addr.s_addr;
	w.port = sa.sin_port;
	memset(id, 0, sizeof(*id));
	memcpy(id->internal, &w, sizeof(w));
	hlcoll_info(-1, "unique id: %s:%u", inet_ntoa(sa.sin_addr),
		    ntohs(sa.sin_port));
out:
	hlcoll_wipe(&w, sizeof(w));
	return rc;
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

/* One connection to the root that has not proven the secret yet */
struct hlcoll_pending {
	int fd;			/* -1: a free slot */
	uint32_t want;		/* HLCOLL_MSG_HELLO, then _PROOF */
	int64_t since;		/* accepted at (ms) */
	int64_t deadline;	/* of its handshake */
	uint32_t got;		/* bytes of the message in in[] */
	union {
		uint8_t bytes[sizeof(struct hlcoll_msg) +
			      sizeof(struct hlcoll_proof)];
		struct {
			struct hlcoll_msg m;
			union {
				struct hlcoll_hello hello;
				struct hlcoll_proof proof;
			};
		} msg;
	} in;
	uint8_t nonce_rank[HLCOLL_NONCE_BYTES];
	uint8_t nonce_root[HLCOLL_NONCE_BYTES];
};

_Static_assert(sizeof(struct hlcoll_proof) >= sizeof(struct hlcoll_hello),
	       "hlcoll_pending.in.bytes holds the larger message");

static void hlcoll_pending_close(struct hlcoll_pending *p)
{
	if (p->fd >= 0)
		close(p->fd);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
}

/* Refuse @p with WELCOME @why (best effort: never waits) and close it */
static void hlcoll_pending_refuse(struct hlcoll_pending *p, int why)
{
	struct hlcoll_msg m = {
		.magic = HLCOLL_MSG_MAGIC, .type = HLCOLL_MSG_WELCOME,
		.arg = why,
	};

	(void)!send(p->fd, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT);
	hlcoll_pending_close(p);
}

/* The payload length of the message @p waits for */
static uint32_t hlcoll_pending_len(const struct hlcoll_pending *p)
{
	return p->want == HLCOLL_MSG_HELLO ? sizeof(struct hlcoll_hello) :
					     sizeof(struct hlcoll_proof);
}

/* A HELLO is in: the root proves the secret, or refuses another id's */
static void hlcoll_root_hello(struct hlcoll_boot *b, struct hlcoll_pending *p)
{
	const struct hlcoll_hello *h = &p->in.msg.hello;
	struct {
		struct hlcoll_msg m;
		struct hlcoll_challenge c;
	} out = {
		.m = { .magic = HLCOLL_MSG_MAGIC,
		       .type = HLCOLL_MSG_CHALLENGE,
		       .len = sizeof(struct hlcoll_challenge) },
	};

	if (h->version != HLCOLL_ID_VERSION || h->pad) {
		hlcoll_warn(0, "bootstrap: refused a hello of version %u",
			    h->version);
		return hlcoll_pending_refuse(p, -EPROTONOSUPPORT);
	}
	if (h->tag != b->tag) {
		hlcoll_warn(0, "bootstrap: refused a hello for another unique id");
		return hlcoll_pending_refuse(p, -ESTALE);
	}
	memcpy(p->nonce_rank, h->nonce, sizeof(p->nonce_rank));
	if (hlcoll_random(p->nonce_root, sizeof(p->nonce_root)))
		return hlcoll_pending_close(p);
	memcpy(out.c.nonce, p->nonce_root, sizeof(out.c.nonce));
	hlcoll_boot_mac(b->secret, HLCOLL_MAC_ROOT, b->tag, p->nonce_rank,
			p->nonce_root, 0, 0, out.c.mac);
	/* A fresh socket's buffer takes it at once; else the client is odd */
	if (send(p->fd, &out, sizeof(out), MSG_NOSIGNAL | MSG_DONTWAIT) !=
	    (ssize_t)sizeof(out))
		return hlcoll_pending_close(p);
	p->want = HLCOLL_MSG_PROOF;
	p->got = 0;
}

/* A PROOF is in: a rank that proved the secret is in; 1 if taken */
static int hlcoll_root_proof(struct hlcoll_boot *b, struct hlcoll_pending *p)
{
	const struct hlcoll_proof *pr = &p->in.msg.proof;
	uint8_t mac[HLCOLL_SHA256_BYTES];
	int why = 0, r = (int)pr->rank, ok;

	hlcoll_boot_mac(b->secret, HLCOLL_MAC_RANK, b->tag, p->nonce_rank,
			p->nonce_root, pr->nranks, pr->rank, mac);
	ok = hlcoll_memeq_ct(mac, pr->mac, sizeof(mac));
	if (!ok)
		why = -EACCES;
	else if (pr->nranks != (uint32_t)b->nranks)
		why = -ESTALE;
	else if (pr->rank < 1 || pr->rank >= (uint32_t)b->nranks)
		why = -EINVAL;
	else if (b->fds[r] >= 0)
		why = -EADDRINUSE;
	if (why) {
		hlcoll_warn(0, "bootstrap: refused rank %u of %u: %s", pr->rank,
			    pr->nranks, ok ? strerror(-why) :
			    "it could not prove it holds the id's secret");
		hlcoll_pending_refuse(p, why);
		return 0;
	}
	b->fds[r] = p->fd;
	p->fd = -1;
	hlcoll_pending_close(p);
	return 1;
}

/*
 * Read what @p has (never waiting) and act on a whole message: 1 when a
 * rank got in, 0 otherwise (@p may have been closed)
 */
static int hlcoll_root_serve(struct hlcoll_boot *b, struct hlcoll_pending *p)
{
	uint32_t len, need;
	ssize_t n;

	for (;;) {
		len = hlcoll_pending_len(p);
		need = p->got < sizeof(struct hlcoll_msg) ?
		       (uint32_t)sizeof(struct hlcoll_msg) :
		       (uint32_t)sizeof(struct hlcoll_msg) + len;
		if (p->got == need)
			break;
		n = recv(p->fd, p->in.bytes + p->got, need - p->got,
			 MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			hlcoll_pending_close(p);
			return 0;
		}
		if (n < 0)
			return 0;	/* the rest later */
		p->got += (uint32_t)n;
		if (p->got != sizeof(struct hlcoll_msg))
			continue;
		/* A header: what this connection may send next, of its size */
		if (p->in.msg.m.magic != HLCOLL_MSG_MAGIC ||
		    p->in.msg.m.type != p->want) {
			hlcoll_warn(0, "bootstrap: a connection sent something else than a %s",
				    p->want == HLCOLL_MSG_HELLO ? "hello" : "proof");
			hlcoll_pending_close(p);
			return 0;
		}
		if (p->in.msg.m.len != len) {
			/* Another version's hello is told so */
			hlcoll_warn(0, "bootstrap: a message of another size or version");
			hlcoll_pending_refuse(p, p->want == HLCOLL_MSG_HELLO ?
					      -EPROTONOSUPPORT : -EPROTO);
			return 0;
		}
	}
	if (p->want == HLCOLL_MSG_HELLO) {
		hlcoll_root_hello(b, p);
		/* The rank's proof may follow at once */
		return p->fd >= 0 ? hlcoll_root_serve(b, p) : 0;
	}
	return hlcoll_root_proof(b, p);
}

/*
 * Close the connection that has been waiting longest without a HELLO (or,
 * when all sent one, the oldest): its slot, or NULL if none is open
 */
static struct hlcoll_pending *hlcoll_root_evict(struct hlcoll_pending *pend)
{
	struct hlcoll_pending *old = NULL;
	int i;

	for (i = 0; i < HLCOLL_BOOT_PENDING; i++) {
		if (pend[i].fd < 0)
			continue;
		if (!old || (pend[i].want == HLCOLL_MSG_HELLO &&
			     old->want != HLCOLL_MSG_HELLO) ||
		    (pend[i].want == old->want && pend[i].since < old->since))
			old = &pend[i];
	}
	if (old) {
		hlcoll_trace(0, "bootstrap: the oldest connection in its handshake goes");
		/*
		 * One that has our challenge may be a rank about to prove
		 * the secret: told to come again (it does until its deadline)
		 */
		if (old->want == HLCOLL_MSG_PROOF)
			hlcoll_pending_refuse(old, -EAGAIN);
		else
			hlcoll_pending_close(old);
	}
	return old;
}

/* A slot for a new connection: a free one, else the evicted one's */
static struct hlcoll_pending *hlcoll_root_slot(struct hlcoll_pending *pend)
{
	int i;

	for (i = 0; i < HLCOLL_BOOT_PENDING; i++)
		if (pend[i].fd < 0)
			return &pend[i];
	return hlcoll_root_evict(pend);
}

/*
 * Root: serve every connection at once until all ranks are in or the
 * deadline passes. A connection has HLCOLL_BOOT_HANDSHAKE_MS to prove the
 * secret and give a good rank; one that says nothing, or too little, only
 * holds a slot of HLCOLL_BOOT_PENDING until then (or until a newer one
 * needs it): it delays nobody.
 */
static int hlcoll_boot_root(struct hlcoll_boot *b, int lfd, int64_t deadline)
{
	struct pollfd pfd[HLCOLL_BOOT_PENDING + 1];
	struct hlcoll_pending *pend, *p;
	int pending = b->nranks - 1, map[HLCOLL_BOOT_PENDING + 1];
	int64_t now, wake;
	int i, n, fd, rc = 0, one = 1, accepted;

	/* accept() until EAGAIN: whoever is in the backlog, without waiting */
	if (fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK))
		return -errno;
	pend = calloc(HLCOLL_BOOT_PENDING, sizeof(*pend));
	if (!pend)
		return -ENOMEM;
	for (i = 0; i < HLCOLL_BOOT_PENDING; i++)
		pend[i].fd = -1;

	while (pending) {
		now = hlcoll_now_ms();
		if (now >= deadline) {
			hlcoll_warn(0, "bootstrap: %d of %d ranks did not arrive in %u ms",
				    pending, b->nranks, b->timeout_ms);
			rc = -ETIMEDOUT;
			break;
		}
		wake = deadline;
		pfd[0].fd = lfd;
		pfd[0].events = POLLIN;
		n = 1;
		for (i = 0; i < HLCOLL_BOOT_PENDING; i++) {
			p = &pend[i];
			if (p->fd < 0)
				continue;
			if (now >= p->deadline) {
				hlcoll_warn(0, "bootstrap: a connection did not finish its handshake in time");
				hlcoll_pending_close(p);
				continue;
			}
			if (p->deadline < wake)
				wake = p->deadline;
			pfd[n].fd = p->fd;
			pfd[n].events = POLLIN;
			map[n++] = i;
		}
		wake -= now;
		rc = poll(pfd, n, wake > 60000 ? 60000 : (int)wake);
		if (rc < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
		rc = 0;
		for (i = 1; i < n && pending; i++)
			if (pfd[i].revents && pend[map[i]].fd == pfd[i].fd)
				pending -= hlcoll_root_serve(b, &pend[map[i]]);
		if (pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
			/* Shut down: another rank 0 of this id finished */
			hlcoll_warn(0, "bootstrap: the unique id was used by another rank 0");
			rc = -ENOENT;
			break;
		}
		if (!(pfd[0].revents & POLLIN))
			continue;
		/* Everyone waiting, each to a slot of its own */
		for (accepted = 0; pending && accepted < HLCOLL_BOOT_PENDING;
		     accepted++) {
			fd = accept4(lfd, NULL, NULL,
				     SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (fd < 0) {
				if (errno == EINTR || errno == ECONNABORTED)
					continue;
				if (errno == EAGAIN)
					break;
				if (errno == EMFILE || errno == ENFILE ||
				    errno == ENOBUFS || errno == ENOMEM) {
					/* Out of descriptors: the oldest goes */
					if (hlcoll_root_evict(pend))
						continue;
					poll(NULL, 0, 10);
					break;
				}
				rc = -errno;
				goto out;
			}
			/*
			 * As the ranks' ends: with Nagle's algorithm a message
			 * sent right after another waits for its ACK, which
			 * the receiver delays (40 ms on Linux), at every
			 * exchange
			 */
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
			p = hlcoll_root_slot(pend);
			p->fd = fd;
			p->want = HLCOLL_MSG_HELLO;
			p->since = hlcoll_now_ms();
			p->deadline = p->since + HLCOLL_BOOT_HANDSHAKE_MS;
			if (p->deadline > deadline)
				p->deadline = deadline;
			/* A rank's hello is usually there already */
			pending -= hlcoll_root_serve(b, p);
			if (!pending)
				hlcoll_trace(0, "bootstrap: every rank arrived");
		}
	}
out:
	for (i = 0; i < HLCOLL_BOOT_PENDING; i++)
		hlcoll_pending_close(&pend[i]);
	free(pend);
	if (rc)
		return rc;
	for (i = 1; i < b->nranks; i++) {
		rc = hlcoll_msg_send(b->fds[i], HLCOLL_MSG_WELCOME, 0, NULL, 0,
				     deadline);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Non-root: connect to the root and make it prove the secret before
 * telling it anything (a process that took the port of a root that is
 * gone cannot: -ECONNREFUSED), prove it in turn, wait for the welcome
 */
static int hlcoll_boot_join(struct hlcoll_boot *b,
			    const struct hlcoll_id_wire *w, int64_t deadline)
{
	struct hlcoll_hello h = {
		.version = HLCOLL_ID_VERSION, .tag = w->tag,
	};
	struct hlcoll_proof pr = {
		.nranks = (uint32_t)b->nranks, .rank = (uint32_t)b->rank,
	};
	struct hlcoll_challenge c;
	uint8_t mac[HLCOLL_SHA256_BYTES];
	struct hlcoll_msg m;
	struct sockaddr_in sa;
	socklen_t len = sizeof(int);
	int32_t status = 0;
	int fd, rc, err = 0, one = 1;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = w->addr;
	sa.sin_port = w->port;

again:
	rc = hlcoll_random(h.nonce, sizeof(h.nonce));
	if (rc)
		return rc;
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
	if (rc)
		goto out;
	/* The challenge, or a refusal of our id or version (nothing said yet) */
	rc = hlcoll_recv_all(fd, &m, sizeof(m), deadline);
	if (rc == -ECONNRESET && hlcoll_now_ms() + 100 < deadline) {
		/*
		 * Closed before the challenge: the root gave our slot to a
		 * newer connection (a flood of them); again, as a new one
		 */
		hlcoll_trace(b->rank, "bootstrap: the root closed us before its challenge: again");
		close(fd);
		b->fds[0] = -1;
		poll(NULL, 0, 100);
		goto again;
	}
	if (rc)
		goto out;
	if (m.magic == HLCOLL_MSG_MAGIC && m.type == HLCOLL_MSG_WELCOME &&
	    !m.len && (m.arg == -ESTALE || m.arg == -EPROTONOSUPPORT)) {
		rc = m.arg;
		goto out;
	}
	if (m.magic != HLCOLL_MSG_MAGIC || m.type != HLCOLL_MSG_CHALLENGE ||
	    m.len != sizeof(c)) {
		rc = -EPROTO;
		goto out;
	}
	rc = hlcoll_recv_all(fd, &c, sizeof(c), deadline);
	if (rc)
		goto out;
	hlcoll_boot_mac(b->secret, HLCOLL_MAC_ROOT, b->tag, h.nonce, c.nonce,
			0, 0, mac);
	if (!hlcoll_memeq_ct(mac, c.mac, sizeof(mac))) {
		hlcoll_warn(b->rank, "bootstrap: %s:%u could not prove it holds the id's secret: not its root (gone, and the port taken by another process?)",
			    inet_ntoa(sa.sin_addr), ntohs(sa.sin_port));
		rc = -ECONNREFUSED;
		goto out;
	}
	hlcoll_boot_mac(b->secret, HLCOLL_MAC_RANK, b->tag, h.nonce, c.nonce,
			pr.nranks, pr.rank, pr.mac);
	rc = hlcoll_msg_send(fd, HLCOLL_MSG_PROOF, 0, &pr, sizeof(pr),
			     deadline);
	if (!rc)
		rc = hlcoll_msg_recv(fd, HLCOLL_MSG_WELCOME, &status, NULL, 0,
				     deadline);
	if (!rc && status == -EAGAIN && hlcoll_now_ms() + 100 < deadline) {
		/* Evicted after the challenge by a flood of connections */
		hlcoll_trace(b->rank, "bootstrap: the root evicted us after its challenge: again");
		hlcoll_wipe(mac, sizeof(mac));
		close(fd);
		b->fds[0] = -1;
		poll(NULL, 0, 100);
		goto again;
	}
	if (!rc && status)
		rc = status < 0 ? status : -EPROTO;
out:
	if (rc)
		hlcoll_warn(b->rank, "bootstrap: the root did not take us: %s",
			    strerror(-rc));
	hlcoll_wipe(mac, sizeof(mac));
	hlcoll_wipe(&pr, sizeof(pr));
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
		hlcoll_warn(rank, rc == -EPROTONOSUPPORT ?
			    "bootstrap: a unique id of another version of libhlcoll" :
			    "bootstrap: not a unique id of hlcoll_get_unique_id()");
		return rc;
	}
	b->tag = w.tag;
	memcpy(b->secret, w.secret, sizeof(b->secret));
	hlcoll_wipe(&w.secret, sizeof(w.secret));

	if (rank == 0) {
		lfd = hlcoll_listener_take(w.tag);
		if (lfd < 0) {
			hlcoll_warn(0, "bootstrap: rank 0 must run in the process that created the unique id (or a child forked after it)");
			rc = -ENOENT;
		} else if (!hlcoll_listening(lfd)) {
			/* Another process's rank 0 used it up */
			hlcoll_warn(0, "bootstrap: the unique id was used already");
			rc = -ENOENT;
		} else if (nranks > 1) {
			rc = hlcoll_boot_root(b, lfd, deadline);
		}
		if (lfd >= 0) {
			/*
			 * The id is used up: stop listening in every process
			 * that holds a copy (a scheduler that forked the
			 * ranks, the other ranks), so that a stale id is
			 * refused at once (ECONNREFUSED) rather than waiting
			 * in a backlog nobody accepts from
			 */
			shutdown(lfd, SHUT_RDWR);
			close(lfd);
		}
		if (rc)
			hlcoll_boot_abort(b, rc);
	} else {
		rc = hlcoll_boot_join(b, &w, deadline);
	}
	if (rc) {
		hlcoll_boot_close_all(b);
		hlcoll_wipe(b->secret, sizeof(b->secret));
	}
	return rc;
}

/*
 * A message to rank @r failed, maybe partway: nothing more is written to
 * that socket (an ABORT would land in the middle of the broken message and
 * read as garbage); it is shut down instead, which the rank reads as the
 * end of the stream (-ECONNRESET)
 */
static void hlcoll_boot_break(struct hlcoll_boot *b, int r)
{
	if (b->fds[r] < 0 || (b->broken >> r & 1))
		return;
	shutdown(b->fds[r], SHUT_RDWR);
	b->broken |= 1ull << r;
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
		if (rc)
			hlcoll_boot_break(b, 0);
		else
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
		if (rc) {
			hlcoll_warn(0, "bootstrap exchange: to rank %d: %s", r,
				    strerror(-rc));
			hlcoll_boot_break(b, r);
			goto err;
		}
	}
	return 0;
err:
	hlcoll_boot_abort(b, rc);
	b->error = rc;
	return rc;
}

/*
 * What the message at the head of rank @r's socket says: its error (ABORT,
 * or -ECONNRESET when the socket closed), 0 when it is none (BYE: a rank
 * that left normally; DATA or ALL of an exchange to come), or 1 when
 * nothing is there yet
 */
static int hlcoll_boot_peek(struct hlcoll_boot *b, int r)
{
	struct hlcoll_msg m;
	ssize_t n;

	n = recv(b->fds[r], &m, sizeof(m), MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 1;
	if (n <= 0)
		return -ECONNRESET;
	if (n == (ssize_t)sizeof(m) && m.magic == HLCOLL_MSG_MAGIC &&
	    m.type == HLCOLL_MSG_ABORT)
		return m.arg < 0 ? m.arg : -ECONNABORTED;
	return 0;
}

int hlcoll_boot_wait_error(struct hlcoll_boot *b, int timeout_ms)
{
	int64_t deadline = hlcoll_now_ms() + timeout_ms, left;
	struct pollfd pfd[HLCOLL_MAX_RANKS];
	uint64_t quiet = 0;
	int idx[HLCOLL_MAX_RANKS];
	int r, i, n, rc;

	if (b->error)
		return b->error;
	for (;;) {
		n = 0;
		for (r = 0; r < b->nranks && r < HLCOLL_MAX_RANKS; r++) {
			if (b->fds[r] < 0 || (quiet >> r & 1))
				continue;
			pfd[n].fd = b->fds[r];
			pfd[n].events = POLLIN;
			pfd[n].revents = 0;
			idx[n++] = r;
		}
		if (!n)
			return 0;	/* nobody left to hear from */
		left = deadline - hlcoll_now_ms();
		if (left < 0)
			left = 0;
		rc = poll(pfd, (nfds_t)n, (int)left);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0)
			return 0;
		for (i = 0; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			r = idx[i];
			rc = hlcoll_boot_peek(b, r);
			if (rc == 1)
				continue;
			if (rc == 0) {
				/* No error there: not polled again */
				quiet |= 1ull << r;
				continue;
			}
			b->error = rc;
			/* The root relays it to every rank */
			if (b->rank == 0)
				hlcoll_boot_abort(b, b->error);
			return b->error;
		}
		if (hlcoll_now_ms() >= deadline)
			return 0;
	}
}

int hlcoll_boot_poll_error(struct hlcoll_boot *b)
{
	return hlcoll_boot_wait_error(b, 0);
}

void hlcoll_boot_abort(struct hlcoll_boot *b, int err)
{
	int64_t deadline = hlcoll_now_ms() + 1000;
	int r;

	for (r = 0; r < b->nranks && r < HLCOLL_MAX_RANKS; r++) {
		if (b->fds[r] < 0 || (b->broken >> r & 1))
			continue;
		if (hlcoll_msg_send(b->fds[r], HLCOLL_MSG_ABORT,
				    err < 0 ? err : -ECONNABORTED, NULL, 0,
				    deadline))
			hlcoll_boot_break(b, r);
	}
}

void hlcoll_boot_fini(struct hlcoll_boot *b, bool normal)
{
	int64_t deadline = hlcoll_now_ms() + 100;
	int r;

	for (r = 0; normal && r < b->nranks && r < HLCOLL_MAX_RANKS; r++)
		if (b->fds[r] >= 0 && !(b->broken >> r & 1))
			hlcoll_msg_send(b->fds[r], HLCOLL_MSG_BYE, 0, NULL, 0,
					deadline);
	hlcoll_boot_close_all(b);
	hlcoll_wipe(b->secret, sizeof(b->secret));
}

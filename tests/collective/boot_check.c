// SPDX-License-Identifier: MIT
/*
 * boot_check.c - libhlcoll's bootstrap against a hostile user of the same
 * host, on the host: no device (a rank's "device" is /dev/null, so a rank
 * whose bootstrap passed fails right after it with -ENOTTY), real processes
 * over loopback TCP. Run by make check (tests/run-checks) as
 * tests/bin-host/hlcoll_boot_check.
 *
 *   0. The keyed hash the handshake uses: SHA-256 against FIPS 180-4's
 *      examples and against sha256sum for 0..200 bytes (every padding
 *      case), HMAC-SHA-256 against RFC 4231's test cases 1-4, 6 and 7.
 *   1. Silent clients: N TCP connections to the root's port (it is in the
 *      id, and in /proc/net/tcp for every local user) that say nothing, or
 *      send a few bytes of a header and stop, do not delay a 4-rank init:
 *      every rank passes its bootstrap (-ENOTTY) well within its timeout,
 *      also with rank 0 late and with more of them than the root serves
 *      at once.
 *   2. A squatter: after the job's root is gone, a process that binds the
 *      freed port and answers the protocol without knowing the id's secret
 *      (a made-up proof, or a proof the live root gave it earlier for
 *      another nonce) is refused by a rank that comes with the stale id
 *      (-ECONNREFUSED), and receives neither the secret (no 8 bytes of it,
 *      anywhere) nor anything past the rank's HELLO. Control: a squatter
 *      that knows the secret is taken for the root (the same observation
 *      sees the rank's proof and what follows), also when it closed the
 *      rank's first connection before its challenge (as a root flooded
 *      with connections does: the rank connects again).
 *   3. A client without the secret is refused by a live root (-EACCES),
 *      as is one of the old protocol (-EPROTONOSUPPORT), and the root goes
 *      on and takes the real rank. Control: a client that knows the secret
 *      is taken as that rank (the job goes on without the real one).
 *      Near misses, from one that knows the secret: a proof whose MAC
 *      is the root's own, or covers another label, nonce order, rank,
 *      number of ranks, tag or connection is refused (-EACCES). A flood of
 *      HELLOs with the (public) tag does not keep rank 1 out: one evicted
 *      after the challenge is told WELCOME -EAGAIN and comes again.
 *      Garbled frames (wrong magic, wrong type, lengths of 4 GiB - 1) are
 *      closed at once; a HELLO sent a byte at a time is served whole.
 *   4. Ids: one of another version is refused (-EPROTONOSUPPORT); a
 *      scheduler that forks the ranks keeps a copy of the listener, yet a
 *      stale id is refused at once (-ECONNREFUSED, not a timeout) and 20
 *      jobs in a row do not fill its table of 16 listeners (-ENFILE);
 *      hlcoll_release_unique_id() closes this process's copy; a rank 0
 *      whose id another rank 0 used up stops at once (-ENOENT).
 *
 * Exit status: the number of failed checks.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hlcoll.h>
#include <hlcoll_wire.h>

static int failed;

static void check(int cond, const char *what, long long v)
{
	printf("%s - %s (%lld)\n", cond ? "ok" : "not ok", what, v);
	if (!cond)
		failed++;
}

#define CHECK_REL(call, want)						\
	do {								\
		long long v_ = (long long)(call);			\
		check(v_ == (long long)(want), #call " == " #want, v_);	\
	} while (0)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------------
 * What an attacker reads in the source: the id's layout, the messages
 */

#define WIRE_MSG_MAGIC		HLCOLL_MSG_MAGIC
#define WIRE_HELLO		HLCOLL_MSG_HELLO
#define WIRE_WELCOME		HLCOLL_MSG_WELCOME

/* Version 1 (before the proof): the secret, 8 bytes at 16, in the HELLO */
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
	case HLCOLL_ID_VERSION:
		*off = offsetof(struct hlcoll_id_wire, secret);
		*len = HLCOLL_SECRET_BYTES;
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
	struct hlcoll_msg m = {
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
 * 0. SHA-256 and HMAC-SHA-256 against published vectors
 */

static int hex_eq(const uint8_t *d, const char *hex)
{
	char buf[2 * HLCOLL_SHA256_BYTES + 1];
	int i;

	for (i = 0; i < HLCOLL_SHA256_BYTES; i++)
		sprintf(buf + 2 * i, "%02x", d[i]);
	return !strcmp(buf, hex);
}

static void test_hashes(void)
{
	static const struct {
		const char *msg, *digest;
	} sha[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	/* RFC 4231, test cases 1, 2, 3, 4, 6, 7 (5 truncates the output) */
	static const struct {
		uint8_t key_byte;	/* 0: @key as given */
		int key_len;
		const char *key;
		uint8_t data_byte;	/* 0: @data as given */
		int data_len;
		const char *data, *mac;
	} hm[] = {
		{ 0x0b, 20, NULL, 0, 8, "Hi There",
		  "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7" },
		{ 0, 4, "Jefe", 0, 28, "what do ya want for nothing?",
		  "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" },
		{ 0xaa, 20, NULL, 0xdd, 50, NULL,
		  "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe" },
		{ 0, 25, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d"
			 "\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19",
		  0xcd, 50, NULL,
		  "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b" },
		{ 0xaa, 131, NULL, 0, 54,
		  "Test Using Larger Than Block-Size Key - Hash Key First",
		  "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54" },
		{ 0xaa, 131, NULL, 0, 152,
		  "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.",
		  "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2" },
	};
	uint8_t key[131], data[152], out[HLCOLL_SHA256_BYTES], big[1000];
	struct hlcoll_sha256 sh;
	struct hlcoll_hmac h;
	char what[80];
	size_t i;
	int j;

	for (i = 0; i < sizeof(sha) / sizeof(sha[0]); i++) {
		hlcoll_sha256_init(&sh);
		hlcoll_sha256_update(&sh, sha[i].msg, strlen(sha[i].msg));
		hlcoll_sha256_final(&sh, out);
		snprintf(what, sizeof(what), "SHA-256 of \"%.8s...\" (%zu bytes)",
			 sha[i].msg, strlen(sha[i].msg));
		check(hex_eq(out, sha[i].digest), what, (long long)i);
	}
	/* One million 'a', in pieces of 1000 (FIPS 180-4's third example) */
	memset(big, 'a', sizeof(big));
	hlcoll_sha256_init(&sh);
	for (j = 0; j < 1000; j++)
		hlcoll_sha256_update(&sh, big, sizeof(big));
	hlcoll_sha256_final(&sh, out);
	check(hex_eq(out, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
	      "SHA-256 of a million 'a'", 0);
	for (i = 0; i < sizeof(hm) / sizeof(hm[0]); i++) {
		if (hm[i].key)
			memcpy(key, hm[i].key, hm[i].key_len);
		else
			memset(key, hm[i].key_byte, hm[i].key_len);
		if (hm[i].data)
			memcpy(data, hm[i].data, hm[i].data_len);
		else
			memset(data, hm[i].data_byte, hm[i].data_len);
		/* In two pieces, to cross the update boundary */
		hlcoll_hmac_init(&h, key, hm[i].key_len);
		hlcoll_hmac_update(&h, data, 3);
		hlcoll_hmac_update(&h, data + 3, hm[i].data_len - 3);
		hlcoll_hmac_final(&h, out);
		snprintf(what, sizeof(what), "HMAC-SHA-256, RFC 4231 test case %d",
			 i < 4 ? (int)i + 1 : (int)i + 2);
		check(hex_eq(out, hm[i].mac), what, (long long)i);
	}
	check(hlcoll_memeq_ct("abcd", "abcd", 4) && !hlcoll_memeq_ct("abcd", "abce", 4),
	      "constant-time compare", 0);
}

/*
 * SHA-256 of 0..200 bytes (every padding case: 55, 56, 63, 64, 119, 120,
 * 127, 128 among them) against coreutils' sha256sum, in one update, a byte
 * at a time, and split at 55 and at 64
 */
static void test_sha256_lengths(void)
{
	char path[] = "/tmp/hlcoll_boot_check.XXXXXX", cmd[128], ref[80];
	uint8_t data[200], out[HLCOLL_SHA256_BYTES];
	struct hlcoll_sha256 sh;
	int fd, len, way, bad = 0, ran = 0, i;
	FILE *f;

	for (i = 0; i < (int)sizeof(data); i++)
		data[i] = (uint8_t)(i * 131 + 7);
	for (len = 0; len <= (int)sizeof(data); len++) {
		fd = mkstemp(path);
		if (fd < 0)
			break;
		if (write(fd, data, len) != len) {
			close(fd);
			unlink(path);
			break;
		}
		close(fd);
		snprintf(cmd, sizeof(cmd), "sha256sum %s", path);
		f = popen(cmd, "r");
		ref[0] = 0;
		if (f) {
			if (fscanf(f, "%64s", ref) != 1)
				ref[0] = 0;
			pclose(f);
		}
		unlink(path);
		strcpy(path, "/tmp/hlcoll_boot_check.XXXXXX");
		if (strlen(ref) != 64)
			break;
		ran++;
		for (way = 0; way < 4; way++) {
			hlcoll_sha256_init(&sh);
			if (way == 0) {
				hlcoll_sha256_update(&sh, data, len);
			} else if (way == 1) {
				for (i = 0; i < len; i++)
					hlcoll_sha256_update(&sh, data + i, 1);
			} else {
				i = way == 2 ? 55 : 64;
				i = i < len ? i : len;
				hlcoll_sha256_update(&sh, data, i);
				hlcoll_sha256_update(&sh, data + i, len - i);
			}
			hlcoll_sha256_final(&sh, out);
			if (!hex_eq(out, ref)) {
				printf("# SHA-256 of %d bytes (way %d) != sha256sum %s\n",
				       len, way, ref);
				bad++;
			}
		}
	}
	check(ran == (int)sizeof(data) + 1,
	      "sha256sum ran for 0..200 bytes", ran);
	check(!bad, "SHA-256 of 0..200 bytes (55/56/63/64/119/120/127/128 among them), whole, bytewise and split, equals sha256sum's",
	      bad);
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

enum squat_mode {
	SQUAT_FORGE,		/* a made-up proof */
	SQUAT_REPLAY,		/* a challenge the live root sent for another nonce */
	SQUAT_KNOWS,		/* control: knows the secret */
	SQUAT_KNOWS_LATE,	/* as a root that evicted the rank's first try */
};

static const char * const squat_names[] = {
	"a made-up proof", "a proof replayed from the live root",
	"control: knows the secret",
	"a root that closes the rank's first connection before its challenge",
};

static struct hlcoll_msg replay_hdr;
static struct hlcoll_challenge replay;

static void wire_id(const struct hlcoll_unique_id *id, struct hlcoll_id_wire *w)
{
	memcpy(w, id->internal, sizeof(*w));
}

/*
 * Answer what a rank sends, as a root that does not know the secret would
 * (or, in SQUAT_KNOWS, one that does): a version 1 HELLO gets WELCOME 0, a
 * version 2 HELLO a challenge, a PROOF WELCOME 0. Record every byte.
 */
static void squat_serve(int fd, struct capture *c, enum squat_mode mode,
			const struct hlcoll_unique_id *id)
{
	struct hlcoll_id_wire w;
	struct hlcoll_challenge ch;
	struct hlcoll_hello h;
	struct hlcoll_msg m;
	uint32_t len;
	int rc, i;

	wire_id(id, &w);
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
		if (c->msgs < 16)
			c->types[c->msgs] = m.type;
		c->msgs++;
		if (m.type == WIRE_HELLO && len == sizeof(struct wire_hello_v1))
			send_msg(fd, WIRE_WELCOME, 0, NULL, 0);
		if (m.type == WIRE_HELLO && len == sizeof(h)) {
			memcpy(&h, c->buf + c->n, sizeof(h));
			for (i = 0; i < HLCOLL_NONCE_BYTES; i++)
				ch.nonce[i] = (uint8_t)rand();
			for (i = 0; i < HLCOLL_SHA256_BYTES; i++)
				ch.mac[i] = (uint8_t)rand();
			if (mode == SQUAT_REPLAY)
				ch = replay;
			if (mode >= SQUAT_KNOWS)
				hlcoll_boot_mac(w.secret, HLCOLL_MAC_ROOT,
						w.tag, h.nonce, ch.nonce, 0, 0,
						ch.mac);
			send_msg(fd, HLCOLL_MSG_CHALLENGE, 0, &ch, sizeof(ch));
		}
		if (m.type == HLCOLL_MSG_PROOF)
			send_msg(fd, WIRE_WELCOME, 0, NULL, 0);
		c->n += len;
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

/* Connect to @sa and say HELLO for @id's tag (@nonce); the socket or -1 */
static int attacker_hello(const struct sockaddr_in *sa,
			  const struct hlcoll_unique_id *id,
			  const uint8_t *nonce)
{
	struct hlcoll_id_wire w;
	struct hlcoll_hello h = { .version = HLCOLL_ID_VERSION };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	wire_id(id, &w);
	h.tag = w.tag;
	memcpy(h.nonce, nonce, sizeof(h.nonce));
	if (fd < 0 || connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) ||
	    send_msg(fd, HLCOLL_MSG_HELLO, 0, &h, sizeof(h))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void test_squatter(enum squat_mode mode)
{
	static struct capture c;
	static const uint8_t nonce[HLCOLL_NONCE_BYTES] = "replayed nonce!";
	struct hlcoll_unique_id id;
	struct sockaddr_in sa;
	int lfd, fd, rc, want;
	pid_t pid, root, rank1;
	char what[200];

	memset(&c, 0, sizeof(c));
	if (hlcoll_get_unique_id(&id))
		return check(0, "hlcoll_get_unique_id", 0);
	id_addr(&id, &sa);
	if (mode != SQUAT_REPLAY) {
		/* The job: one rank, in this process; its root closes the port */
		rc = init_null(1, &id, 0, 2000);
		check(rc == -ENOTTY, "the job of the id ran", rc);
	} else {
		/*
		 * The job: 2 ranks; meanwhile the attacker asks the live root
		 * to prove the secret for a nonce of its own, and keeps it
		 */
		root = start_rank(2, &id, 0, 5000, NULL, 0);
		check(hlcoll_release_unique_id(&id) == 0,
		      "the scheduler releases its copy of the id", 0);
		fd = attacker_hello(&sa, &id, nonce);
		rc = fd < 0 ? -EIO : read_full(fd, &replay_hdr,
						 sizeof(replay_hdr), 3000);
		if (!rc)
			rc = read_full(fd, &replay, sizeof(replay), 3000);
		check(!rc && replay_hdr.type == HLCOLL_MSG_CHALLENGE,
		      "the live root proves the secret for the attacker's nonce",
		      rc);
		if (fd >= 0)
			close(fd);
		rank1 = start_rank(2, &id, 1, 5000, NULL, 0);
		rc = rank_result(root) * 1000 + rank_result(rank1);
		check(rc == -ENOTTY * 1001, "the job of the id ran", rc);
	}

	lfd = squat_listen(&sa);
	check(lfd >= 0, "the squatter binds the freed port", errno);
	if (lfd < 0)
		return;
	/* A rank restarted with the stale id */
	pid = start_rank(2, &id, 1, 5000, &lfd, 1);
	fd = wait_fd(lfd, POLLIN, 5000) ? -1 : accept(lfd, NULL, NULL);
	check(fd >= 0, "the rank connected to the squatter", fd);
	if (fd >= 0 && mode == SQUAT_KNOWS_LATE) {
		/* Its HELLO in, closed without a word: the rank comes again */
		usleep(50000);
		close(fd);
		fd = wait_fd(lfd, POLLIN, 5000) ? -1 : accept(lfd, NULL, NULL);
		check(fd >= 0, "the rank connected again", fd);
	}
	if (fd >= 0) {
		squat_serve(fd, &c, mode, &id);
		close(fd);
	}
	close(lfd);
	rc = rank_result(pid);
	if (mode >= SQUAT_KNOWS) {
		/* The same observations see a squatter taken for the root */
		snprintf(what, sizeof(what),
			 "%s: the rank takes it for the root and goes on (%d, %d messages: %u %u %u)",
			 squat_names[mode], rc, c.msgs, c.types[0], c.types[1],
			 c.types[2]);
		check(rc == -ENOTTY && c.msgs >= 3 &&
		      c.types[1] == HLCOLL_MSG_PROOF, what, rc);
		return;
	}
	want = -ECONNREFUSED;
	snprintf(what, sizeof(what),
		 "%s: the rank refuses the squatter: -ECONNREFUSED (got %d %s)",
		 squat_names[mode], rc, strerror(-rc < 1000 ? -rc : 0));
	check(rc == want, what, rc);
	snprintf(what, sizeof(what),
		 "%s: the squatter did not receive the secret (no 8 bytes of it in %zu)",
		 squat_names[mode], c.n);
	check(!leaks_secret(&id, c.buf, c.n), what, (long long)c.n);
	snprintf(what, sizeof(what),
		 "%s: the squatter received only the rank's HELLO (%d messages, first type %u, second %u)",
		 squat_names[mode], c.msgs, c.types[0],
		 c.msgs > 1 ? c.types[1] : 0);
	check(c.msgs <= 1 && (!c.msgs || c.types[0] == WIRE_HELLO), what,
	      c.msgs);
}

/* ------------------------------------------------------------------------
 * 3. A client without the secret, at a live root
 */

enum client_mode {
	CLIENT_FORGE,		/* the protocol, a made-up proof */
	CLIENT_V1,		/* the old protocol: a guessed secret in clear */
	CLIENT_KNOWS,		/* control: knows the secret */
};

static const char * const client_names[] = {
	"a made-up proof", "the old protocol's hello",
	"control: knows the secret",
};

static void test_client(enum client_mode mode)
{
	static const uint8_t nonce[HLCOLL_NONCE_BYTES] = "attacker nonce";
	struct hlcoll_unique_id id;
	struct hlcoll_id_wire w;
	struct wire_hello_v1 h1 = { .nranks = 2, .rank = 1 };
	struct hlcoll_proof pr = { .nranks = 2, .rank = 1 };
	struct hlcoll_challenge ch;
	struct hlcoll_msg m;
	struct sockaddr_in sa;
	pid_t root, rank1;
	int fd, rc, r0, r1, want;
	char what[200];

	if (hlcoll_get_unique_id(&id))
		return check(0, "hlcoll_get_unique_id", 0);
	wire_id(&id, &w);
	id_addr(&id, &sa);
	root = start_rank(2, &id, 0, 5000, NULL, 0);
	hlcoll_release_unique_id(&id);
	if (mode == CLIENT_V1) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
		h1.secret = 0x5eC2e75eC2e75eC2ull;
		if (!rc)
			rc = send_msg(fd, WIRE_HELLO, 0, &h1, sizeof(h1));
		want = -EPROTONOSUPPORT;
	} else {
		fd = attacker_hello(&sa, &id, nonce);
		rc = fd < 0 ? -EIO : read_full(fd, &m, sizeof(m), 3000);
		if (!rc)
			rc = read_full(fd, &ch, sizeof(ch), 3000);
		memset(pr.mac, 0x5a, sizeof(pr.mac));
		if (mode == CLIENT_KNOWS)
			hlcoll_boot_mac(w.secret, HLCOLL_MAC_RANK, w.tag, nonce,
					ch.nonce, 2, 1, pr.mac);
		if (!rc)
			rc = send_msg(fd, HLCOLL_MSG_PROOF, 0, &pr, sizeof(pr));
		want = mode == CLIENT_KNOWS ? 0 : -EACCES;
	}
	check(!rc, "the attacker connects and speaks", rc);
	rc = read_full(fd, &m, sizeof(m), 3000);
	snprintf(what, sizeof(what), "%s: the root answers WELCOME %d (got %d, %u %d)",
		 client_names[mode], want, rc, m.type, m.arg);
	/* Control: taken as rank 1, the last one: WELCOME 0, the job runs */
	if (mode == CLIENT_KNOWS) {
		check(!rc && m.type == WIRE_WELCOME && m.arg == 0, what, rc);
		close(fd);
		r0 = rank_result(root);
		check(r0 == -ENOTTY, "control: the root went on with the attacker",
		      r0);
		rank1 = start_rank(2, &id, 1, 5000, NULL, 0);
		r1 = rank_result(rank1);
		check(r1 == -ECONNREFUSED,
		      "control: the real rank 1 finds the rendezvous over", r1);
		return;
	}
	check(!rc && m.type == WIRE_WELCOME && m.arg == want, what,
	      rc ? rc : m.arg);
	close(fd);
	rank1 = start_rank(2, &id, 1, 5000, NULL, 0);
	r0 = rank_result(root);
	r1 = rank_result(rank1);
	snprintf(what, sizeof(what),
		 "%s: the root then takes the real rank 1 (both through the bootstrap: %d %d)",
		 client_names[mode], r0, r1);
	check(r0 == -ENOTTY && r1 == -ENOTTY, what, r0 * 1000 + r1);
}

/*
 * Near misses: an attacker that knows the secret (so that only the one
 * field it gets wrong can make the root refuse) sends a proof whose MAC
 * covers something else than this connection's handshake. Each must be
 * refused (-EACCES); the root then takes the real rank 1.
 */
enum near_miss {
	NEAR_REFLECT,		/* the root's own challenge MAC, sent back */
	NEAR_ROOT_LABEL,	/* the right fields under the root's label */
	NEAR_SWAPPED,		/* the nonces swapped */
	NEAR_RANK,		/* MAC for rank 2 (of 3), claims rank 1 of 2 */
	NEAR_NRANKS,		/* MAC for 3 ranks, claims 2 */
	NEAR_TAG,		/* MAC over another tag */
	NEAR_REPLAY,		/* the right proof of an earlier connection */
	NEAR_NONE,		/* control: the right proof */
};

static const char * const near_names[] = {
	"the root's challenge MAC reflected", "the root's label",
	"the nonces swapped", "the MAC of another rank",
	"the MAC of another number of ranks", "the MAC of another tag",
	"a good proof of an earlier connection", "control: the right proof",
};

/* One handshake at @sa: the root's WELCOME arg, or -1000 + -errno */
static int near_try(const struct sockaddr_in *sa,
		    const struct hlcoll_unique_id *id, enum near_miss how,
		    uint8_t *prev_mac)
{
	static const uint8_t nonce[HLCOLL_NONCE_BYTES] = "near miss nonce";
	struct hlcoll_proof pr = { .nranks = 2, .rank = 1 };
	struct hlcoll_challenge ch;
	struct hlcoll_id_wire w;
	struct hlcoll_msg m;
	int fd, rc;

	wire_id(id, &w);
	fd = attacker_hello(sa, id, nonce);
	rc = fd < 0 ? -EIO : read_full(fd, &m, sizeof(m), 3000);
	if (!rc)
		rc = read_full(fd, &ch, sizeof(ch), 3000);
	if (rc)
		goto out;
	switch (how) {
	case NEAR_REFLECT:
		memcpy(pr.mac, ch.mac, sizeof(pr.mac));
		break;
	case NEAR_ROOT_LABEL:
		hlcoll_boot_mac(w.secret, HLCOLL_MAC_ROOT, w.tag, nonce,
				ch.nonce, 2, 1, pr.mac);
		break;
	case NEAR_SWAPPED:
		hlcoll_boot_mac(w.secret, HLCOLL_MAC_RANK, w.tag, ch.nonce,
				nonce, 2, 1, pr.mac);
		break;
	case NEAR_RANK:
		hlcoll_boot_mac(w.secret, HLCOLL_MAC_RANK, w.tag, nonce,
				ch.nonce, 2, 2, pr.mac);
		break;
	case NEAR_NRANKS:
		hlcoll_boot_mac(w.secret, HLCOLL_MAC_RANK, w.tag, nonce,
				ch.nonce, 3, 1, pr.mac);
		break;
	case NEAR_TAG:
		hlcoll_boot_mac(w.secret, HLCOLL_MAC_RANK, w.tag ^ 1, nonce,
				ch.nonce, 2, 1, pr.mac);
		break;
	case NEAR_REPLAY:
		memcpy(pr.mac, prev_mac, sizeof(pr.mac));
		break;
	case NEAR_NONE:
		hlcoll_boot_mac(w.secret, HLCOLL_MAC_RANK, w.tag, nonce,
				ch.nonce, 2, 1, pr.mac);
		break;
	}
	/* What the right proof of this connection would have been */
	hlcoll_boot_mac(w.secret, HLCOLL_MAC_RANK, w.tag, nonce, ch.nonce, 2,
			1, prev_mac);
	rc = send_msg(fd, HLCOLL_MSG_PROOF, 0, &pr, sizeof(pr));
	if (!rc)
		rc = read_full(fd, &m, sizeof(m), 3000);
	if (!rc)
		rc = m.type == WIRE_WELCOME ? m.arg : -EPROTO;
	else
		rc = -1000 + rc;
out:
	if (fd >= 0)
		close(fd);
	return rc;
}

static void test_near_misses(void)
{
	uint8_t prev[HLCOLL_SHA256_BYTES];
	struct hlcoll_unique_id id;
	struct sockaddr_in sa;
	pid_t root, rank1;
	char what[200];
	int how, rc, r0, r1;

	if (hlcoll_get_unique_id(&id))
		return check(0, "hlcoll_get_unique_id", 0);
	id_addr(&id, &sa);
	root = start_rank(2, &id, 0, 8000, NULL, 0);
	hlcoll_release_unique_id(&id);
	memset(prev, 0, sizeof(prev));
	for (how = NEAR_REFLECT; how < NEAR_NONE; how++) {
		rc = near_try(&sa, &id, how, prev);
		snprintf(what, sizeof(what),
			 "near miss, %s: the live root refuses it: -EACCES (got %d)",
			 near_names[how], rc);
		check(rc == -EACCES, what, rc);
	}
	rank1 = start_rank(2, &id, 1, 5000, NULL, 0);
	r0 = rank_result(root);
	r1 = rank_result(rank1);
	snprintf(what, sizeof(what),
		 "near misses: the root then takes the real rank 1 (%d %d)",
		 r0, r1);
	check(r0 == -ENOTTY && r1 == -ENOTTY, what, r0 * 1000 + r1);

	/* Control: the same harness with the right proof is taken */
	if (hlcoll_get_unique_id(&id))
		return check(0, "hlcoll_get_unique_id", 0);
	id_addr(&id, &sa);
	root = start_rank(2, &id, 0, 5000, NULL, 0);
	hlcoll_release_unique_id(&id);
	rc = near_try(&sa, &id, NEAR_NONE, prev);
	r0 = rank_result(root);
	snprintf(what, sizeof(what),
		 "near miss, %s: taken (WELCOME %d, root %d)",
		 near_names[NEAR_NONE], rc, r0);
	check(rc == 0 && r0 == -ENOTTY, what, rc);
}

/*
 * A flood of handshakes that say HELLO with the id's tag (public: it
 * travels in clear in every HELLO) and never prove anything: each takes a
 * slot past the HELLO, so when all 64 are such, a newer connection evicts
 * the oldest of them, which may be a real rank between the root's
 * challenge and its own proof. That rank must not fail the job at once:
 * it connects again, as one closed before the challenge does. The
 * attacker: a child that keeps @keep such connections open (the oldest
 * goes for a new one) for @ms.
 */
static pid_t tag_flooder(const struct sockaddr_in *sa,
			 const struct hlcoll_unique_id *id, int keep, int ms)
{
	static const uint8_t nonce[HLCOLL_NONCE_BYTES] = "flood nonce";
	pid_t pid = fork();
	double end;
	int *fds, i = 0;

	if (pid)
		return pid;
	fds = calloc(keep, sizeof(*fds));
	for (i = 0; i < keep; i++)
		fds[i] = -1;
	end = now_s() + ms / 1000.0;
	for (i = 0; now_s() < end; i = (i + 1) % keep) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = attacker_hello(sa, id, nonce);
		if (fds[i] < 0)
			usleep(1000);
	}
	_exit(0);
}

static void test_tag_flood(void)
{
	struct hlcoll_unique_id id;
	struct sockaddr_in sa;
	pid_t root, rank1, flood;
	char what[200];
	int r0, r1;
	double t0;

	if (hlcoll_get_unique_id(&id))
		return check(0, "hlcoll_get_unique_id", 0);
	id_addr(&id, &sa);
	root = start_rank(2, &id, 0, 8000, NULL, 0);
	hlcoll_release_unique_id(&id);
	flood = tag_flooder(&sa, &id, 200, 3000);
	usleep(300000);
	t0 = now_s();
	rank1 = start_rank(2, &id, 1, 8000, NULL, 0);
	r1 = rank_result(rank1);
	r0 = rank_result(root);
	kill(flood, SIGKILL);
	rank_result(flood);
	snprintf(what, sizeof(what),
		 "a flood of tagged HELLOs: the real rank 1 gets in (results %d %d after %.2f s)",
		 r0, r1, now_s() - t0);
	check(r0 == -ENOTTY && r1 == -ENOTTY, what, r0 * 1000 + r1);
}

/*
 * Garbled frames at a live root: a wrong magic, a PROOF first, a HELLO of
 * 4 GiB - 1 bytes, a PROOF of 4 GiB - 1 bytes after a good HELLO, and a
 * good HELLO sent a byte every 20 ms. Each ends in a close or a refusal
 * (never a wait on the announced length), and the real rank 1 then gets
 * in within its timeout.
 */
static void test_garbled(void)
{
	static const uint8_t nonce[HLCOLL_NONCE_BYTES] = "garbled nonce";
	struct hlcoll_hello h = { .version = HLCOLL_ID_VERSION };
	struct hlcoll_msg m, bad[4] = {
		{ .magic = 0x12345678, .type = WIRE_HELLO, .len = sizeof(h) },
		{ .magic = WIRE_MSG_MAGIC, .type = HLCOLL_MSG_PROOF,
		  .len = sizeof(struct hlcoll_proof) },
		{ .magic = WIRE_MSG_MAGIC, .type = WIRE_HELLO, .len = ~0u },
		{ .magic = WIRE_MSG_MAGIC, .type = HLCOLL_MSG_PROOF, .len = ~0u },
	};
	struct hlcoll_unique_id id;
	struct hlcoll_id_wire w;
	struct sockaddr_in sa;
	uint8_t frame[sizeof(m) + sizeof(h)], junk[64];
	pid_t root, rank1;
	char what[200];
	int i, fd, rc, r0, r1;
	size_t j;
	double t0;

	if (hlcoll_get_unique_id(&id))
		return check(0, "hlcoll_get_unique_id", 0);
	wire_id(&id, &w);
	id_addr(&id, &sa);
	root = start_rank(2, &id, 0, 8000, NULL, 0);
	hlcoll_release_unique_id(&id);
	usleep(100000);
	for (i = 0; i < 4; i++) {
		if (i == 3) {
			fd = attacker_hello(&sa, &id, nonce);
			rc = fd < 0 ? -EIO : read_full(fd, junk,
					sizeof(m) + sizeof(struct hlcoll_challenge),
					3000);
		} else {
			fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
			rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ?
			     -errno : 0;
		}
		if (!rc && send(fd, &bad[i], sizeof(bad[i]), MSG_NOSIGNAL) !=
		    (ssize_t)sizeof(bad[i]))
			rc = -EIO;
		/* The root's answer: EOF, or a refusal and EOF, at once */
		t0 = now_s();
		while (!rc) {
			rc = read_full(fd, junk, 1, 2000);
			if (rc == -EPIPE || rc == -ECONNRESET)
				rc = 1;
		}
		snprintf(what, sizeof(what),
			 "garbled frame %d: the root closes it at once (%d after %.2f s)",
			 i, rc, now_s() - t0);
		check(rc == 1 && now_s() - t0 < 1.5, what, rc);
		close(fd);
	}
	/* A byte-at-a-time good HELLO: served when whole */
	h.tag = w.tag;
	memcpy(h.nonce, nonce, sizeof(nonce));
	m = (struct hlcoll_msg){ .magic = WIRE_MSG_MAGIC, .type = WIRE_HELLO,
				 .len = sizeof(h) };
	memcpy(frame, &m, sizeof(m));
	memcpy(frame + sizeof(m), &h, sizeof(h));
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	for (j = 0; !rc && j < sizeof(frame); j++) {
		if (send(fd, frame + j, 1, MSG_NOSIGNAL) != 1)
			rc = -EIO;
		usleep(20000);
	}
	if (!rc)
		rc = read_full(fd, &m, sizeof(m), 3000);
	check(!rc && m.type == HLCOLL_MSG_CHALLENGE,
	      "a HELLO a byte every 20 ms: challenged when whole", rc);
	close(fd);
	rank1 = start_rank(2, &id, 1, 5000, NULL, 0);
	r0 = rank_result(root);
	r1 = rank_result(rank1);
	snprintf(what, sizeof(what),
		 "garbled frames: the root then takes the real rank 1 (%d %d)",
		 r0, r1);
	check(r0 == -ENOTTY && r1 == -ENOTTY, what, r0 * 1000 + r1);
}

/* ------------------------------------------------------------------------
 * 4. Ids: versions, a scheduler's copies, releasing
 */

static void test_ids(void)
{
	struct hlcoll_unique_id id, ids[20];
	struct sockaddr_in sa;
	pid_t root, rank1, late;
	uint32_t v = 1;
	int i, fd, rc, r0, r1, enfile = 0;
	double t0;

	/* Another version */
	if (hlcoll_get_unique_id(&id))
		return check(0, "hlcoll_get_unique_id", 0);
	memcpy(id.internal + 4, &v, 4);
	rc = init_null(2, &id, 1, 1000);
	check(rc == -EPROTONOSUPPORT, "an id of version 1: -EPROTONOSUPPORT",
	      rc);
	check(hlcoll_release_unique_id(&id) == -EPROTONOSUPPORT,
	      "release of a version 1 id: -EPROTONOSUPPORT", 0);
	v = HLCOLL_ID_VERSION;
	memcpy(id.internal + 4, &v, 4);

	/* Releasing */
	id_addr(&id, &sa);
	CHECK_REL(hlcoll_release_unique_id(NULL), -EINVAL);
	CHECK_REL(hlcoll_release_unique_id(&id), 0);
	CHECK_REL(hlcoll_release_unique_id(&id), -ENOENT);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	close(fd);
	check(rc == -ECONNREFUSED, "a released id's port refuses connections",
	      rc);
	CHECK_REL(init_null(1, &id, 0, 1000), -ENOENT);

	/* Two rank 0s of one id: the one waiting stops when the other is done */
	if (hlcoll_get_unique_id(&id) == 0) {
		root = start_rank(2, &id, 0, 5000, NULL, 0);
		usleep(200000);
		t0 = now_s();
		CHECK_REL(init_null(1, &id, 0, 1000), -ENOTTY);
		rc = rank_result(root);
		check(rc == -ENOENT && now_s() - t0 < 2,
		      "a rank 0 whose id another rank 0 used up: -ENOENT at once",
		      rc);
	}

	/*
	 * A scheduler: makes the id, forks the ranks, keeps its copy of the
	 * listener (as do they). A stale id is refused at once; 20 jobs do
	 * not fill its table.
	 */
	for (i = 0; i < 20; i++) {
		rc = hlcoll_get_unique_id(&ids[i]);
		if (rc == -ENFILE)
			enfile++;
		if (rc)
			continue;
		root = start_rank(2, &ids[i], 0, 5000, NULL, 0);
		rank1 = start_rank(2, &ids[i], 1, 5000, NULL, 0);
		r0 = rank_result(root);
		r1 = rank_result(rank1);
		if (r0 != -ENOTTY || r1 != -ENOTTY) {
			check(0, "a scheduler's job", r0 * 1000 + r1);
			break;
		}
	}
	check(!enfile, "20 jobs of a scheduler that forks the ranks: no -ENFILE",
	      enfile);
	t0 = now_s();
	late = start_rank(2, &ids[0], 1, 5000, NULL, 0);
	rc = rank_result(late);
	check(rc == -ECONNREFUSED && now_s() - t0 < 2,
	      "a stale id of the scheduler's: -ECONNREFUSED at once", rc);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	srand((unsigned int)getpid());

	test_hashes();
	test_sha256_lengths();
	test_client(CLIENT_FORGE);
	test_client(CLIENT_V1);
	test_client(CLIENT_KNOWS);
	test_near_misses();
	test_tag_flood();
	test_garbled();
	test_squatter(SQUAT_FORGE);
	test_squatter(SQUAT_REPLAY);
	test_squatter(SQUAT_KNOWS);
	test_squatter(SQUAT_KNOWS_LATE);
	test_ids();
	test_silent(16, 0);
	test_silent(16, 1000);
	test_silent(100, 0);

	printf("hlcoll_boot_check: %s (%d failed)\n",
	       failed ? "FAILED" : "passed", failed);
	return failed;
}

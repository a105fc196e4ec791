// SPDX-License-Identifier: MIT
/*
 * hlcoll_ofi.c - libhlcoll between hosts: libfabric (FI_EP_RDM, tagged
 * messages), device memory staged through host memory.
 *
 * connect: one RDM endpoint per rank. The provider is libfabric's choice
 * among those FI_PROVIDER allows; with FI_PROVIDER unset, "tcp;ofi_rxm"
 * is asked for first. Of the provider's interfaces, the first that is
 * neither loopback nor IPv6 is taken unless the provider was told one
 * (FI_TCP_IFACE, FI_VERBS_IFACE, ...), in which case libfabric's first
 * answer is. The endpoint names go round the bootstrap
 * (hlcoll_boot_allgather()) into an address vector; a last round then
 * tells every rank whether every rank took its peers' addresses, so that
 * the communicator is made on every rank or on none.
 *
 * step: the transfers are cut into chunks (the communicator's: the
 * smallest of the ranks' HLCOLL_OFI_CHUNK, 256 KiB by default, and of
 * what their rxm sends without a rendezvous, agreed at connect), and each
 * transfer has HLCOLL_OFI_DEPTH staging slots in pinned host memory that
 * is mapped on the device (fewer when a step has many transfers: the
 * staging memory of one communicator stays under HLCOLL_OFI_STAGE_MAX
 * down to one slot a transfer). A send slot cycles: LIN_DMA of the chunk
 * device -> slot (a CS on the communicator's send queue), fi_tsend() of
 * the slot, free on its completion; a receive slot: fi_trecv() into the
 * slot, then a LIN_DMA slot -> device or a REDUCE (dst = dst op slot) on
 * its receive queue, free when that CS is done. With two slots or more
 * per transfer, the device copy of one chunk runs while another is on the
 * wire.
 *
 * Matching: the tag holds the sender's rank, the number of transfers it
 * sent to this receiver before (both ends count them alike) and the
 * chunk index, so a receive matches exactly its chunk. The sender marks
 * its transfer's last chunk (HLCOLL_OFI_LAST, which the receive ignores):
 * a chunk of another length than the receiver cut, or a last chunk where
 * the receiver expects more, or none where it expects its last, is a
 * count that differs between the two ranks: -EMSGSIZE, as a message
 * longer than its receive within a host (libfabric's own truncation,
 * FI_ETRUNC, gives it too). Without the mark, a message several chunks
 * long whose first chunk filled a one-chunk receive completed it.
 *
 * Credits: a chunk is sent only after its receiver has posted the buffer
 * for it. The receiver, having posted chunk k's receive, sends a credit
 * (an empty message whose tag is chunk k's with HLCOLL_OFI_CREDIT), which
 * the sender's slot for chunk k waits for (a receive posted when the slot
 * starts) before its fi_tsend(). rxm sends the chunks eagerly (no
 * rendezvous: hlcoll_ofi_quirks()), and an eager message that finds no
 * receive is copied into memory rxm mallocs, without a bound, and never
 * frees at fi_close() (1.17's rxm_recv_queue_close(): "TODO cleanup
 * recv_list and unexp msg list"): a sender ahead of a busy receiver grew
 * it by what it sent, an abort leaked it, and a send returned before its
 * receiver had posted it. Unexpected credits are at most the receiver's
 * HLCOLL_OFI_DEPTH a transfer, each in one of rxm's own buffers (those
 * of a failed step stay there until fi_close()).
 *
 * Failure: a step fails with the provider's error (a peer whose process
 * died resets its connections: -ECONNRESET or the like), with the
 * bootstrap's (a rank left or aborted: looked at every
 * HLCOLL_OFI_CHECK_MS), or with -ETIMEDOUT when nothing
 * moved for cfg.timeout_s (a host that is gone without a word). Posted
 * buffers are cancelled and the CSs waited for before the step returns.
 */
#include "hlcoll_int.h"
#include "hlcoll_fi.h"

#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#define HLCOLL_OFI_CHUNK	(256u * 1024)
/* HLCOLL_OFI_CHUNK's largest: staging of a step at one slot a transfer */
#define HLCOLL_OFI_CHUNK_MAX	(1024u * 1024)
#define HLCOLL_OFI_DEPTH	4
#define HLCOLL_OFI_STAGE_MAX	(64ull * 1024 * 1024)
#define HLCOLL_OFI_ADDR		64
/* One packet (LIN_DMA or REDUCE) per slot CB, with room */
#define HLCOLL_OFI_CB_SLOT	128u

/*
 * Tag: last (bit 61) | credit (60) | sequence (24 bits) | sender rank
 * (12) | chunk (24); a credit's "sender" is the receiver of the chunk it
 * grants (rxm keeps bit 63)
 */
#define HLCOLL_OFI_TAG(seq, rank, chunk) \
	((((uint64_t)(seq) & 0xffffff) << 36) | \
	 (((uint64_t)(rank) & 0xfff) << 24) | ((uint64_t)(chunk) & 0xffffff))
#define HLCOLL_OFI_CREDIT	(1ull << 60)
#define HLCOLL_OFI_LAST		(1ull << 61)
/* The tag's bits: 0 .. 61 */
#define HLCOLL_OFI_TAG_BITS	62
#define HLCOLL_OFI_MAX_CHUNKS	(1ull << 24)

enum hlcoll_slot_state {
	SLOT_FREE,
	SLOT_DMA,	/* a CS in flight */
	SLOT_READY,	/* send: staged, fi_tsend() not yet taken */
	SLOT_NET,	/* fi_tsend() or fi_trecv() posted */
};

struct hlcoll_slot {
	struct fi_context2 ctx;	/* first: the completion's op_context */
	struct fi_context2 cctx;	/* send: the credit's receive */
	bool cposted;		/* send: the credit's receive posted */
	bool credit;		/* send: the receiver posted @chunk's buffer */
	bool cowed;		/* receive: @chunk's credit not yet sent */
	int state;
	int xfer;
	uint64_t chunk;
	uint64_t seq;		/* of the CS */
	uint8_t *buf;
	uint64_t va;
	uint8_t *cb;
	uint64_t cb_va;
};

struct hlcoll_ofi_xs {
	uint64_t nch;		/* chunks */
	uint64_t next;		/* next chunk to stage (send) or post (recv) */
	uint64_t done;
	uint32_t seq;
};

struct hlcoll_ofi {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_ep *ep;
	int wait_fd;		/* the CQ's, -1: none (poll with sleeps) */
	bool mr_local;
	fi_addr_t addr[HLCOLL_MAX_RANKS];
	uint32_t send_seq[HLCOLL_MAX_RANKS];
	uint32_t recv_seq[HLCOLL_MAX_RANKS];

	/* Staging memory and the slots' CBs, grown on demand */
	uint8_t *stage;
	uint64_t stage_size, stage_va;
	struct fid_mr *mr;
	void *desc;
	uint8_t *cbs;
	uint64_t cbs_size, cbs_va;
	struct hlcoll_slot *slots;
	int nslots;
	/* Every rank's chunk: the smallest of their chunk_max */
	uint64_t chunk;
};

/*
 * @chunk_max: the rank's largest chunk (HLCOLL_OFI_CHUNK, at most what
 * its rxm sends without a rendezvous), of which every rank takes the
 * smallest; @eager: its rxm's eager limit (hlcoll_ofi_rxm_limits()),
 * which must be every rank's: rxm refuses a connection between endpoints
 * whose limits differ, and the ranks would wait for each other
 */
struct hlcoll_ofi_name {
	int32_t status;
	uint32_t len;
	uint8_t addr[HLCOLL_OFI_ADDR];
	uint64_t chunk_max;
	uint64_t eager;
};

static int hlcoll_fi_errno(int fi_rc)
{
	int e = fi_rc < 0 ? -fi_rc : fi_rc;

	/* A message longer than its receive, as hlcoll.h names it */
	if (e == FI_ETRUNC)
		return -EMSGSIZE;
	/* FI_E* above the errno range have no errno: call them EIO */
	return e && e < FI_ERRNO_OFFSET ? -e : -EIO;
}

static bool hlcoll_ofi_iface_given(void)
{
	static const char * const vars[] = {
		"FI_TCP_IFACE", "FI_VERBS_IFACE", "FI_SOCKETS_IFACE",
		"FI_UDP_IFACE",
	};
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]))
			return true;
	return false;
}

/*
 * The tag bits @i matches: its mem_tag_format's width, the bits after its
 * leading zeros (fi_endpoint(3)); 64 where it says nothing (0)
 */
static int hlcoll_ofi_tag_bits(const struct fi_info *i)
{
	uint64_t f = i->ep_attr ? i->ep_attr->mem_tag_format : 0;

	return f ? 64 - __builtin_clzll(f) : 64;
}

/*
 * Of the providers' answers that match the library's tags (a provider
 * that matches fewer bits would take one chunk's receive for another's:
 * psm2's "tag60" layout, say), the first on an IPv4 interface that is not
 * loopback, unless the provider was told its interface; else the first
 */
static struct fi_info *hlcoll_ofi_pick(struct fi_info *list)
{
	struct fi_info *i, *first = NULL;

	for (i = list; i; i = i->next) {
		const struct sockaddr_in *sin = i->src_addr;

		if (hlcoll_ofi_tag_bits(i) < HLCOLL_OFI_TAG_BITS)
			continue;
		if (!first)
			first = i;
		if (hlcoll_ofi_iface_given())
			break;
		if (i->addr_format != FI_SOCKADDR_IN || !sin ||
		    i->src_addrlen < sizeof(*sin))
			continue;
		if ((ntohl(sin->sin_addr.s_addr) >> 24) == 127)
			continue;
		return i;
	}
	return first;
}

/*
 * No message of this library takes rxm's rendezvous (a message over rxm's
 * eager limit, or over its SAR limit where the core provider has no
 * dynamic receive buffers). libfabric before 2.2 has a bug in each of its
 * two protocols:
 * - the write (FI_OFI_RXM_USE_RNDV_WRITE=1) matches a sender's "write
 *   done" by the sender's message id alone, which two senders to one
 *   receiver share: a receive completes before its data has landed, or
 *   never ("prov/rxm: Fix potential completion mismatch for the
 *   rndv_write protocol", 2.2). An all-to-all across hosts, where every
 *   rank takes chunks from two peers of the other host at once, read
 *   zeros or timed out;
 * - the read (rxm's default): 1.17's tcp provider completes an RMA read's
 *   response twice when the connection goes down while it comes in (fixed
 *   in 1.18): rxm's handler dereferences the freed entry, and a survivor
 *   of a rank's death crashed in fi_close() at its destroy.
 * Over tcp (dynamic receive buffers, direct send) an eager message of any
 * size lands in the posted buffer, so the library raises rxm's eager
 * limit to its default chunk (FI_OFI_RXM_EAGER_LIMIT=262144, unless the
 * user set it; rxm reads it at each endpoint's opening; the same in every
 * process whatever its HLCOLL_OFI_CHUNK, as rxm connects only endpoints of
 * one limit), and every rank's chunks stay at or under the smallest limit
 * of the ranks (hlcoll_ofi_connect()). Which protocol a rendezvous would
 * take no longer matters to it.
 */
static void hlcoll_ofi_quirks(void)
{
	char v[32];

	snprintf(v, sizeof(v), "%u", HLCOLL_OFI_CHUNK);
	setenv("FI_OFI_RXM_EAGER_LIMIT", v, 0);
}

/* A libfabric boolean parameter (fi_param_get_bool()): @dflt if unset or bad */
static bool hlcoll_ofi_env_bool(const char *name, bool dflt)
{
	const char *v = getenv(name);

	if (!v)
		return dflt;
	if (!strcmp(v, "0") || !strcasecmp(v, "false") ||
	    !strcasecmp(v, "no") || !strcasecmp(v, "off"))
		return false;
	if (!strcmp(v, "1") || !strcasecmp(v, "true") ||
	    !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
		return true;
	return dflt;
}

/* A libfabric size parameter (fi_param_get_size_t()), @dflt if unset */
static uint64_t hlcoll_ofi_env_size(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);

	return v ? (uint64_t)strtol(v, NULL, 0) : dflt;
}

/*
 * This process's rxm: its eager limit (@eager) and the largest message it
 * sends without a rendezvous (@max), by libfabric 1.17's rules
 * (rxm_get_info(), rxm_config_dyn_rbuf(), rxm_ep_init_proto(): eager up
 * to the eager limit, then SAR up to the SAR limit; with dynamic receive
 * buffers, the tcp core's unless pass-through, no SAR, and the eager limit
 * is FI_OFI_RXM_EAGER_LIMIT where direct send is on); 0 and UINT64_MAX
 * for a provider that is not rxm
 */
static void hlcoll_ofi_rxm_limits(const struct fi_info *info,
				  uint64_t *eager, uint64_t *max)
{
	const char *prov = info->fabric_attr->prov_name;
	uint64_t buf = hlcoll_ofi_env_size("FI_OFI_RXM_BUFFER_SIZE", 16384);
	uint64_t lim;

	*eager = 0;
	*max = UINT64_MAX;
	if (!prov || !strstr(prov, "ofi_rxm"))
		return;
	if (buf > INT32_MAX)
		buf = INT32_MAX;
	*eager = buf;
	if (!strncmp(prov, "tcp;", 4) &&
	    !hlcoll_ofi_env_bool("FI_OFI_RXM_ENABLE_PASSTHRU", false) &&
	    hlcoll_ofi_env_bool("FI_OFI_RXM_ENABLE_DYN_RBUF", true)) {
		lim = hlcoll_ofi_env_size("FI_OFI_RXM_EAGER_LIMIT", buf);
		if (hlcoll_ofi_env_bool("FI_OFI_RXM_ENABLE_DIRECT_SEND", true) &&
		    lim > buf)
			*eager = lim;
		*max = *eager;
		return;
	}
	if (buf > 65535) {
		*max = buf;
		return;
	}
	/* Set, the SAR limit is the larger of it and the eager limit */
	lim = hlcoll_ofi_env_size("FI_OFI_RXM_SAR_LIMIT", 8 * buf);
	*max = lim > buf ? lim : buf;
}

static pthread_once_t hlcoll_ofi_quirks_once = PTHREAD_ONCE_INIT;

static int hlcoll_ofi_getinfo(struct hlcoll_comm *c, struct fi_info **out)
{
	struct fi_info *hints, *list = NULL, *pick;
	int rc;

	pthread_once(&hlcoll_ofi_quirks_once, hlcoll_ofi_quirks);
	rc = hlcoll_fi_load(c->rank);
	if (rc)
		return rc;
	hints = hlcoll_fi.dupinfo(NULL);
	if (!hints)
		return -ENOMEM;
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_TAGGED;
	hints->mode = FI_CONTEXT | FI_CONTEXT2;
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_ALLOCATED |
				      FI_MR_PROV_KEY | FI_MR_VIRT_ADDR;
	hints->domain_attr->threading = FI_THREAD_DOMAIN;
	hints->tx_attr->msg_order = 0;
	hints->rx_attr->msg_order = 0;
	if (!getenv("FI_PROVIDER"))
		hints->fabric_attr->prov_name = strdup("tcp;ofi_rxm");
	rc = hlcoll_fi.getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints,
			       &list);
	if (rc && hints->fabric_attr->prov_name) {
		free(hints->fabric_attr->prov_name);
		hints->fabric_attr->prov_name = NULL;
		rc = hlcoll_fi.getinfo(FI_VERSION(1, 9), NULL, NULL, 0,
				       hints, &list);
	}
	hlcoll_fi.freeinfo(hints);
	if (rc) {
		hlcoll_warn(c->rank, "libfabric: no RDM provider with tagged messages (FI_PROVIDER=%s): %s",
			    getenv("FI_PROVIDER") ?: "",
			    hlcoll_fi.strerror(-rc));
		return hlcoll_fi_errno(rc);
	}
	pick = hlcoll_ofi_pick(list);
	if (!pick) {
		hlcoll_warn(c->rank, "libfabric: provider %s matches tags of %d bits, this library's have %d",
			    list->fabric_attr->prov_name,
			    hlcoll_ofi_tag_bits(list), HLCOLL_OFI_TAG_BITS);
		hlcoll_fi.freeinfo(list);
		return -ENOPROTOOPT;
	}
	*out = hlcoll_fi.dupinfo(pick);
	hlcoll_fi.freeinfo(list);
	return *out ? 0 : -ENOMEM;
}

static int hlcoll_ofi_open(struct hlcoll_comm *c, struct hlcoll_ofi *o,
			   struct hlcoll_ofi_name *name)
{
	struct fi_cq_attr cq_attr = {
		.format = FI_CQ_FORMAT_TAGGED, .size = 4096,
		.wait_obj = FI_WAIT_FD,
	};
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	size_t len = sizeof(name->addr);
	int rc;

	rc = hlcoll_ofi_getinfo(c, &o->info);
	if (rc)
		return rc;
	o->mr_local = o->info->domain_attr->mr_mode & FI_MR_LOCAL;
	rc = hlcoll_fi.fabric(o->info->fabric_attr, &o->fabric, NULL);
	if (!rc)
		rc = fi_domain(o->fabric, o->info, &o->domain, NULL);
	o->wait_fd = -1;
	if (!rc) {
		/* A file descriptor to sleep on, where the provider has one */
		rc = fi_cq_open(o->domain, &cq_attr, &o->cq, NULL);
		if (!rc && fi_control(&o->cq->fid, FI_GETWAIT, &o->wait_fd))
			o->wait_fd = -1;
		if (rc) {
			cq_attr.wait_obj = FI_WAIT_NONE;
			rc = fi_cq_open(o->domain, &cq_attr, &o->cq, NULL);
		}
	}
	if (!rc)
		rc = fi_av_open(o->domain, &av_attr, &o->av, NULL);
	if (!rc)
		rc = fi_endpoint(o->domain, o->info, &o->ep, NULL);
	if (!rc)
		rc = fi_ep_bind(o->ep, &o->av->fid, 0);
	if (!rc)
		rc = fi_ep_bind(o->ep, &o->cq->fid, FI_TRANSMIT | FI_RECV);
	if (!rc)
		rc = fi_enable(o->ep);
	if (!rc)
		rc = fi_getname(&o->ep->fid, name->addr, &len);
	if (rc) {
		hlcoll_warn(c->rank, "libfabric endpoint (%s): %s",
			    o->info->fabric_attr->prov_name,
			    hlcoll_fi.strerror(-rc));
		return hlcoll_fi_errno(rc);
	}
	name->len = len;
	hlcoll_info(c->rank, "libfabric: provider %s, fabric %s, domain %s%s",
		    o->info->fabric_attr->prov_name, o->info->fabric_attr->name,
		    o->info->domain_attr->name,
		    o->wait_fd < 0 ? " (no wait fd: polls)" : "");
	return 0;
}

/*
 * This rank's largest chunk: HLCOLL_OFI_CHUNK (rounded down to 4 KiB,
 * 4 KiB to HLCOLL_OFI_CHUNK_MAX; else 256 KiB), at most what its provider
 * sends in one message and what its rxm sends without a rendezvous
 * (hlcoll_ofi_quirks()), at least 4 KiB
 */
static uint64_t hlcoll_ofi_chunk_max(struct hlcoll_comm *c,
				     const struct hlcoll_ofi *o,
				     uint64_t *eager)
{
	const char *env = getenv("HLCOLL_OFI_CHUNK");
	uint64_t chunk = HLCOLL_OFI_CHUNK, lim, v;

	v = env ? strtoull(env, NULL, 0) : 0;
	if (env && *env != '-' && v >= 4096 && v <= HLCOLL_OFI_CHUNK_MAX)
		chunk = v / 4096 * 4096;
	hlcoll_ofi_rxm_limits(o->info, eager, &lim);
	if (lim > o->info->ep_attr->max_msg_size)
		lim = o->info->ep_attr->max_msg_size;
	if (chunk > lim)
		chunk = lim / 4096 * 4096;
	if (chunk < 4096) {
		hlcoll_warn(c->rank, "libfabric: messages of %" PRIu64 " bytes at most without a rendezvous; chunks of 4096 take it",
			    lim);
		chunk = 4096;
	}
	return chunk;
}

int hlcoll_ofi_connect(struct hlcoll_comm *c)
{
	struct hlcoll_ofi_name mine, *all;
	struct hlcoll_ofi *o;
	int32_t st, *sts;
	int n = c->nranks, p, rc, rc2;

	all = calloc(n, sizeof(*all));
	sts = calloc(n, sizeof(*sts));
	o = calloc(1, sizeof(*o));
	if (!all || !sts || !o) {
		free(all);
		free(sts);
		free(o);
		return -ENOMEM;
	}
	c->ofi = o;
	memset(&mine, 0, sizeof(mine));
	rc = hlcoll_ofi_open(c, o, &mine);
	mine.status = rc;
	if (!rc)
		mine.chunk_max = hlcoll_ofi_chunk_max(c, o, &mine.eager);
	rc2 = hlcoll_boot_allgather(&c->boot, &mine, all, sizeof(mine));
	if (!rc)
		rc = rc2;
	o->chunk = mine.chunk_max;
	for (p = 0; !rc && p < n; p++) {
		if (all[p].status) {
			rc = -ENOLINK;
			break;
		}
		/* rxm sends its limit in 32 bits and compares all 64 */
		if (all[p].eager != mine.eager || mine.eager > UINT32_MAX) {
			hlcoll_warn(c->rank, "libfabric: rank %d's rxm eager limit is %" PRIu64 " bytes, this rank's %" PRIu64 ": rxm connects only endpoints of the same, under 4 GiB (FI_OFI_RXM_EAGER_LIMIT, FI_OFI_RXM_BUFFER_SIZE)",
				    p, all[p].eager, mine.eager);
			rc = -ENOPROTOOPT;
			break;
		}
		if (all[p].chunk_max < o->chunk)
			o->chunk = all[p].chunk_max;
		o->addr[p] = FI_ADDR_NOTAVAIL;
		if (c->host[p] == c->host[c->rank])
			continue;
		rc2 = fi_av_insert(o->av, all[p].addr, 1, &o->addr[p], 0, NULL);
		if (rc2 != 1) {
			hlcoll_warn(c->rank, "libfabric: address of rank %d refused: %s",
				    p, hlcoll_fi.strerror(rc2 < 0 ? -rc2 :
						   FI_EADDRNOTAVAIL));
			rc = -EADDRNOTAVAIL;
		}
	}
	free(all);

	/*
	 * Every rank has its peers' addresses, or none goes on: a refusal
	 * above comes after the exchange, and would leave the others with a
	 * communicator whose first call across hosts fails
	 */
	st = rc;
	rc2 = hlcoll_boot_allgather(&c->boot, &st, sts, sizeof(st));
	if (!rc)
		rc = rc2;
	for (p = 0; !rc && p < n; p++)
		if (sts[p])
			rc = -ENOLINK;
	free(sts);
	return rc;
}

/* ------------------------------------------------------------------------
 * Staging
 */

static void hlcoll_ofi_stage_free(struct hlcoll_comm *c, struct hlcoll_ofi *o)
{
	if (o->mr)
		fi_close(&o->mr->fid);
	o->mr = NULL;
	o->desc = NULL;
	if (o->stage_va)
		hlthunk_memory_unmap(c->fd, o->stage_va);
	if (o->cbs_va)
		hlthunk_memory_unmap(c->fd, o->cbs_va);
	free(o->stage);
	free(o->cbs);
	free(o->slots);
	o->stage = NULL;
	o->cbs = NULL;
	o->slots = NULL;
	o->stage_va = 0;
	o->cbs_va = 0;
	o->stage_size = 0;
	o->cbs_size = 0;
	o->nslots = 0;
}

/* At least @nslots slots of @chunk bytes */
static int hlcoll_ofi_stage(struct hlcoll_comm *c, struct hlcoll_ofi *o,
			    int nslots, uint64_t chunk)
{
	uint64_t size = (uint64_t)nslots * chunk;
	uint64_t cbs = (uint64_t)nslots * HLCOLL_OFI_CB_SLOT;
	void *p = NULL;
	int i, rc;

	if (o->stage_size >= size && o->nslots >= nslots)
		goto carve;
	hlcoll_ofi_stage_free(c, o);
	cbs = (cbs + HLCOLL_PAGE - 1) / HLCOLL_PAGE * HLCOLL_PAGE;
	if (posix_memalign(&p, HLCOLL_PAGE, size))
		return -ENOMEM;
	o->stage = p;
	o->stage_size = size;
	p = NULL;
	if (posix_memalign(&p, HLCOLL_PAGE, cbs)) {
		rc = -ENOMEM;
		goto err;
	}
	memset(p, 0, cbs);
	o->cbs = p;
	o->cbs_size = cbs;
	o->slots = calloc(nslots, sizeof(*o->slots));
	if (!o->slots) {
		rc = -ENOMEM;
		goto err;
	}
	o->nslots = nslots;
	o->stage_va = hlthunk_host_memory_map(c->fd, o->stage, 0, size);
	if (!o->stage_va) {
		rc = errno ? -errno : -ENOMEM;
		goto err;
	}
	o->cbs_va = hlthunk_host_memory_map(c->fd, o->cbs, 0, cbs);
	if (!o->cbs_va) {
		rc = errno ? -errno : -ENOMEM;
		goto err;
	}
	if (o->mr_local) {
		rc = fi_mr_reg(o->domain, o->stage, size, FI_SEND | FI_RECV, 0,
			       0, 0, &o->mr, NULL);
		if (rc) {
			rc = hlcoll_fi_errno(rc);
			goto err;
		}
		o->desc = fi_mr_desc(o->mr);
	}
carve:
	for (i = 0; i < o->nslots; i++) {
		struct hlcoll_slot *s = &o->slots[i];

		memset(s, 0, sizeof(*s));
		s->buf = o->stage + (uint64_t)i * chunk;
		s->va = o->stage_va + (uint64_t)i * chunk;
		s->cb = o->cbs + (uint64_t)i * HLCOLL_OFI_CB_SLOT;
		s->cb_va = o->cbs_va + (uint64_t)i * HLCOLL_OFI_CB_SLOT;
	}
	return 0;
err:
	hlcoll_warn(c->rank, "staging memory of %" PRIu64 " bytes: %s", size,
		    strerror(-rc));
	hlcoll_ofi_stage_free(c, o);
	return rc;
}

/* Submit the one packet at @s->cb (@len bytes) on @queue */
static int hlcoll_ofi_cs(struct hlcoll_comm *c, struct hlcoll_slot *s,
			 uint32_t len, uint32_t queue)
{
	struct hl_cs_chunk chunk;
	struct hlthunk_cs_in in;
	struct hlthunk_cs_out out;
	int rc;

	memset(&chunk, 0, sizeof(chunk));
	chunk.cb_handle = s->cb_va;
	chunk.queue_index = queue;
	chunk.cb_size = len;
	memset(&in, 0, sizeof(in));
	in.chunks_execute = &chunk;
	in.num_chunks_execute = 1;
	rc = hlthunk_command_submission_timeout(c->fd, &in, &out,
						c->cfg.timeout_s);
	if (rc) {
		hlcoll_warn(c->rank, "staging copy: command submission: %s",
			    strerror(-rc));
		return rc;
	}
	s->seq = out.seq;
	s->state = SLOT_DMA;
	return 0;
}

/* 1 when the slot's CS is done, 0 when not yet, or -errno */
static int hlcoll_ofi_cs_done(struct hlcoll_comm *c, struct hlcoll_slot *s,
			      uint64_t wait_us)
{
	uint32_t status = 0;
	int rc;

	rc = hlthunk_wait_for_cs(c->fd, s->seq, wait_us, &status);
	if (rc) {
		hlcoll_warn(c->rank, "staging copy: CS %" PRIu64 " failed: %s",
			    s->seq, strerror(-rc));
		return rc;
	}
	return status == HL_WAIT_CS_STATUS_BUSY ? 0 : 1;
}

static int64_t hlcoll_ofi_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------------------
 * A step
 */

struct hlcoll_ofi_run {
	struct hlcoll_comm *c;
	struct hlcoll_ofi *o;
	const struct hlcoll_xfer *x;
	struct hlcoll_ofi_xs *xs;
	int n;
	uint64_t chunk;
	enum hlcoll_dtype dtype;
	enum hlcoll_redop op;
	bool progress;
	uint64_t idle;
	int spin;	/* idle rounds in a row */
};

static uint64_t hlcoll_ofi_len(const struct hlcoll_ofi_run *r, int xi,
			       uint64_t k)
{
	uint64_t off = k * r->chunk, b = r->x[xi].bytes;

	return b - off < r->chunk ? b - off : r->chunk;
}

static uint64_t hlcoll_ofi_tag(const struct hlcoll_ofi_run *r, int xi,
			       uint64_t k)
{
	const struct hlcoll_xfer *t = &r->x[xi];
	int sender = t->send ? r->c->rank : t->peer;

	return HLCOLL_OFI_TAG(r->xs[xi].seq, sender, k);
}

/* Whether @s holds its transfer's last chunk (HLCOLL_OFI_LAST) */
static bool hlcoll_ofi_last(const struct hlcoll_ofi_run *r,
			    const struct hlcoll_slot *s)
{
	return s->chunk + 1 == r->xs[s->xfer].nch;
}

/* The tag of @xi's chunk @k's credit (sent by the chunk's receiver) */
static uint64_t hlcoll_ofi_credit_tag(const struct hlcoll_ofi_run *r, int xi,
				      uint64_t k)
{
	const struct hlcoll_xfer *t = &r->x[xi];
	int receiver = t->send ? t->peer : r->c->rank;

	return HLCOLL_OFI_CREDIT | HLCOLL_OFI_TAG(r->xs[xi].seq, receiver, k);
}

/* A receive slot: tell its sender that @s->chunk's buffer is posted */
static int hlcoll_ofi_send_credit(struct hlcoll_ofi_run *r,
				  struct hlcoll_slot *s)
{
	const struct hlcoll_xfer *t = &r->x[s->xfer];
	static const uint8_t none;
	ssize_t rc;

	rc = fi_tinject(r->o->ep, &none, 0, r->o->addr[t->peer],
			hlcoll_ofi_credit_tag(r, s->xfer, s->chunk));
	if (rc == -FI_EAGAIN)
		return 0;
	if (rc) {
		hlcoll_warn(r->c->rank, "libfabric credit to rank %d: %s",
			    t->peer, hlcoll_fi.strerror((int)-rc));
		return hlcoll_fi_errno((int)rc);
	}
	s->cowed = false;
	r->progress = true;
	return 0;
}

/* Start what a free slot of transfer @xi can do; 0 or -errno */
static int hlcoll_ofi_start(struct hlcoll_ofi_run *r, struct hlcoll_slot *s)
{
	const struct hlcoll_xfer *t = &r->x[s->xfer];
	struct hlcoll_ofi_xs *xs = &r->xs[s->xfer];
	uint64_t k = xs->next, len;
	ssize_t rc;

	if (k >= xs->nch)
		return 0;
	len = hlcoll_ofi_len(r, s->xfer, k);
	if (t->send) {
		uint32_t n = hlthunk_pkt_lin_dma(s->cb, t->va + k * r->chunk,
						 s->va, len);

		/* The credit's receive first: the chunk waits for it */
		rc = fi_trecv(r->o->ep, s->buf, 0, r->o->desc, FI_ADDR_UNSPEC,
			      hlcoll_ofi_credit_tag(r, s->xfer, k), 0,
			      &s->cctx);
		if (rc == -FI_EAGAIN)
			return 0;
		if (rc) {
			hlcoll_warn(r->c->rank, "libfabric credit from rank %d: %s",
				    t->peer, hlcoll_fi.strerror((int)-rc));
			return hlcoll_fi_errno((int)rc);
		}
		s->cposted = true;
		s->credit = false;
		s->chunk = k;
		rc = hlcoll_ofi_cs(r->c, s, n, r->c->q_send);
		if (rc)
			return rc;
	} else {
		rc = fi_trecv(r->o->ep, s->buf, len, r->o->desc,
			      FI_ADDR_UNSPEC, hlcoll_ofi_tag(r, s->xfer, k),
			      HLCOLL_OFI_LAST, &s->ctx);
		if (rc == -FI_EAGAIN)
			return 0;
		if (rc) {
			hlcoll_warn(r->c->rank, "libfabric receive from rank %d: %s",
				    t->peer, hlcoll_fi.strerror((int)-rc));
			return hlcoll_fi_errno((int)rc);
		}
		s->chunk = k;
		s->state = SLOT_NET;
		s->cowed = true;
	}
	xs->next++;
	r->progress = true;
	return t->send ? 0 : hlcoll_ofi_send_credit(r, s);
}

/* A staged send slot: hand it to libfabric once its credit came */
static int hlcoll_ofi_post_send(struct hlcoll_ofi_run *r,
				struct hlcoll_slot *s)
{
	const struct hlcoll_xfer *t = &r->x[s->xfer];
	ssize_t rc;

	if (!s->credit) {
		s->state = SLOT_READY;
		return 0;
	}
	rc = fi_tsend(r->o->ep, s->buf, hlcoll_ofi_len(r, s->xfer, s->chunk),
		      r->o->desc, r->o->addr[t->peer],
		      hlcoll_ofi_tag(r, s->xfer, s->chunk) |
		      (hlcoll_ofi_last(r, s) ? HLCOLL_OFI_LAST : 0), &s->ctx);
	if (rc == -FI_EAGAIN) {
		s->state = SLOT_READY;
		return 0;
	}
	if (rc) {
		hlcoll_warn(r->c->rank, "libfabric send to rank %d: %s", t->peer,
			    hlcoll_fi.strerror((int)-rc));
		return hlcoll_fi_errno((int)rc);
	}
	s->state = SLOT_NET;
	r->progress = true;
	return 0;
}

/*
 * Whether received chunk @e is the one @s cut: its length, and the
 * sender's last chunk where the receiver's is
 */
static bool hlcoll_ofi_as_cut(const struct hlcoll_ofi_run *r,
			      const struct hlcoll_slot *s,
			      const struct fi_cq_tagged_entry *e)
{
	return e->len == hlcoll_ofi_len(r, s->xfer, s->chunk) &&
	       hlcoll_ofi_last(r, s) == !!(e->tag & HLCOLL_OFI_LAST);
}

/* A received chunk: copy or reduce it into the device buffer */
static int hlcoll_ofi_unstage(struct hlcoll_ofi_run *r, struct hlcoll_slot *s)
{
	const struct hlcoll_xfer *t = &r->x[s->xfer];
	uint64_t len = hlcoll_ofi_len(r, s->xfer, s->chunk);
	uint64_t dst = t->va + s->chunk * r->chunk;
	uint32_t n;

	if (t->reduce)
		n = hlthunk_pkt_reduce(s->cb, s->va, dst,
				       (uint32_t)(len /
						  hlcoll_dtype_size(r->dtype)),
				       hlcoll_reduce_dtype(r->dtype),
				       hlcoll_reduce_op(r->op));
	else
		n = hlthunk_pkt_lin_dma(s->cb, s->va, dst, len);
	return hlcoll_ofi_cs(r->c, s, n, r->c->q_recv);
}

/* Read the CQ: 0, or -errno of a failed completion */
static int hlcoll_ofi_reap(struct hlcoll_ofi_run *r)
{
	struct fi_cq_tagged_entry e[16];
	struct fi_cq_err_entry err;
	ssize_t n, i;
	int rc;

	n = fi_cq_read(r->o->cq, e, 16);
	if (n == -FI_EAGAIN)
		return 0;
	if (n == -FI_EAVAIL) {
		memset(&err, 0, sizeof(err));
		fi_cq_readerr(r->o->cq, &err, 0);
		if (err.err == FI_ECANCELED)
			return 0;
		hlcoll_warn(r->c->rank, "libfabric completion failed: %s (%s)",
			    hlcoll_fi.strerror(err.err),
			    fi_cq_strerror(r->o->cq, err.prov_errno,
					   err.err_data, NULL, 0));
		return err.err ? hlcoll_fi_errno(-err.err) : -EIO;
	}
	if (n < 0) {
		hlcoll_warn(r->c->rank, "libfabric CQ: %s",
			    hlcoll_fi.strerror((int)-n));
		return hlcoll_fi_errno((int)n);
	}
	for (i = 0; i < n; i++) {
		struct hlcoll_slot *s = e[i].op_context;

		r->progress = true;
		if ((e[i].flags & FI_RECV) && (e[i].tag & HLCOLL_OFI_CREDIT)) {
			/* A credit: the slot's chunk may go */
			s = (struct hlcoll_slot *)((uint8_t *)e[i].op_context -
				offsetof(struct hlcoll_slot, cctx));
			s->cposted = false;
			s->credit = true;
			if (s->state == SLOT_READY) {
				rc = hlcoll_ofi_post_send(r, s);
				if (rc)
					return rc;
			}
			continue;
		}
		if (r->x[s->xfer].send) {
			s->state = SLOT_FREE;
			r->xs[s->xfer].done++;
			continue;
		}
		if (!hlcoll_ofi_as_cut(r, s, &e[i])) {
			hlcoll_warn(r->c->rank, "the message from rank %d is not as long as its receive (%" PRIu64 " B; chunk %" PRIu64 ": %zu B%s): counts differ between the ranks",
				    r->x[s->xfer].peer, r->x[s->xfer].bytes,
				    s->chunk, e[i].len,
				    e[i].tag & HLCOLL_OFI_LAST ?
				    ", the sender's last" : "");
			return -EMSGSIZE;
		}
		rc = hlcoll_ofi_unstage(r, s);
		if (rc)
			return rc;
	}
	return 0;
}

/* The slots' CSs that are done; @wait_us for the first one in flight */
static int hlcoll_ofi_cs_reap(struct hlcoll_ofi_run *r, uint64_t wait_us)
{
	int i, rc;

	for (i = 0; i < r->o->nslots; i++) {
		struct hlcoll_slot *s = &r->o->slots[i];

		if (s->state != SLOT_DMA)
			continue;
		rc = hlcoll_ofi_cs_done(r->c, s, wait_us);
		wait_us = 0;
		if (rc <= 0)
			return rc;
		r->progress = true;
		if (r->x[s->xfer].send) {
			rc = hlcoll_ofi_post_send(r, s);
			if (rc)
				return rc;
		} else {
			s->state = SLOT_FREE;
			r->xs[s->xfer].done++;
		}
	}
	return 0;
}

/* After a failure: cancel what is posted, wait for the CSs in flight */
static void hlcoll_ofi_drain(struct hlcoll_ofi_run *r)
{
	struct fi_cq_tagged_entry e[16];
	struct fi_cq_err_entry err;
	int i, k;

	for (i = 0; i < r->o->nslots; i++) {
		struct hlcoll_slot *s = &r->o->slots[i];

		if (s->state == SLOT_NET)
			fi_cancel(&r->o->ep->fid, &s->ctx);
		if (s->cposted)
			fi_cancel(&r->o->ep->fid, &s->cctx);
		s->cposted = false;
		s->credit = false;
		s->cowed = false;
		if (s->state == SLOT_DMA)
			hlcoll_ofi_cs_done(r->c, s,
					   (r->c->cfg.timeout_s + 30) *
					   1000000ull);
		s->state = SLOT_FREE;
	}
	/* Let the cancellations complete; the rest dies with the endpoint */
	for (k = 0; k < 100; k++) {
		if (fi_cq_read(r->o->cq, e, 16) == -FI_EAVAIL)
			fi_cq_readerr(r->o->cq, &err, 0);
	}
}

/*
 * Nothing moved. The provider moves data only when called (rxm's manual
 * progress) and its wait fd does not wake on data that is in the sockets,
 * so: a CS in flight, wait up to 100 us for it; else give the CPU away
 * (sched_yield()) for the first HLCOLL_OFI_SPIN idle rounds in a row,
 * then sleep 1 ms on the CQ's fd (or in usleep()) between reads.
 */
#define HLCOLL_OFI_SPIN	2000
/* How often a step looks at the bootstrap (ms): another rank failed? */
#define HLCOLL_OFI_CHECK_MS	20

static int hlcoll_ofi_idle(struct hlcoll_ofi_run *r)
{
	struct fid *fids[1] = { &r->o->cq->fid };
	struct pollfd pfd;
	int i;

	r->idle++;
	for (i = 0; i < r->o->nslots; i++)
		if (r->o->slots[i].state == SLOT_DMA)
			return hlcoll_ofi_cs_reap(r, 100);
	if (++r->spin < HLCOLL_OFI_SPIN) {
		sched_yield();
		return 0;
	}
	if (r->o->wait_fd >= 0) {
		if (fi_trywait(r->o->fabric, fids, 1) != FI_SUCCESS)
			return 0;
		pfd.fd = r->o->wait_fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		poll(&pfd, 1, 1);
		return 0;
	}
	usleep(1000);
	return 0;
}

int hlcoll_ofi_step(struct hlcoll_comm *c, const struct hlcoll_xfer *x, int n,
		    enum hlcoll_dtype dtype, enum hlcoll_redop op)
{
	struct hlcoll_ofi *o = c->ofi;
	struct hlcoll_ofi_xs xs[HLCOLL_MAX_GROUP_OPS];
	struct hlcoll_ofi_run r = {
		.c = c, .o = o, .x = x, .xs = xs, .n = n, .dtype = dtype,
		.op = op,
	};
	uint64_t chunk, maxb = 0, idle_ms;
	int64_t last, now, checked, start;
	const char *env;
	int depth = HLCOLL_OFI_DEPTH, i, d, all, rc = 0;

	if (!o)
		return -ENOLINK;
	chunk = o->chunk;
	env = getenv("HLCOLL_OFI_DEPTH");
	if (env && atoi(env) >= 1 && atoi(env) <= 64)
		depth = atoi(env);
	for (i = 0; i < n; i++)
		if (x[i].bytes > maxb)
			maxb = x[i].bytes;
	/*
	 * The chunk is the communicator's (both ends of a transfer must cut
	 * it alike; a transfer under either end's chunk is one chunk at
	 * both); a step with many transfers takes fewer slots each, one at
	 * the least (HLCOLL_MAX_GROUP_OPS chunks of 256 KiB: 64 MiB).
	 */
	if (maxb < chunk)
		chunk = maxb ? (maxb + 4095) / 4096 * 4096 : 4096;
	while (depth > 1 &&
	       (uint64_t)n * depth * chunk > HLCOLL_OFI_STAGE_MAX)
		depth--;
	r.chunk = chunk;
	/* Refused before any sequence number moves: the next step's tags */
	for (i = 0; i < n; i++) {
		xs[i].nch = (x[i].bytes + chunk - 1) / chunk;
		if (xs[i].nch > HLCOLL_OFI_MAX_CHUNKS)
			return -EMSGSIZE;
	}

	rc = hlcoll_ofi_stage(c, o, n * depth, chunk);
	if (rc)
		return rc;
	for (i = 0; i < n; i++) {
		xs[i].next = 0;
		xs[i].done = 0;
		xs[i].seq = x[i].send ? o->send_seq[x[i].peer]++ :
					o->recv_seq[x[i].peer]++;
		for (d = 0; d < depth; d++)
			o->slots[i * depth + d].xfer = i;
	}

	last = checked = start = hlcoll_ofi_now_ms();
	for (;;) {
		r.progress = false;
		/* Receives first, so a peer's chunks find their buffers */
		for (i = 0; !rc && i < n * depth; i++) {
			struct hlcoll_slot *s = &o->slots[i];

			if (s->state == SLOT_FREE && !x[s->xfer].send)
				rc = hlcoll_ofi_start(&r, s);
		}
		for (i = 0; !rc && i < n * depth; i++) {
			struct hlcoll_slot *s = &o->slots[i];

			if (s->state == SLOT_FREE && x[s->xfer].send)
				rc = hlcoll_ofi_start(&r, s);
			else if (s->state == SLOT_READY && s->credit)
				rc = hlcoll_ofi_post_send(&r, s);
			else if (s->cowed)
				rc = hlcoll_ofi_send_credit(&r, s);
		}
		if (!rc)
			rc = hlcoll_ofi_reap(&r);
		if (!rc)
			rc = hlcoll_ofi_cs_reap(&r, 0);
		if (rc)
			break;
		for (i = 0, all = 1; i < n; i++)
			if (xs[i].done < xs[i].nch)
				all = 0;
		if (all)
			break;

		now = hlcoll_ofi_now_ms();
		if (r.progress) {
			last = now;
			r.spin = 0;
		}
		if (now - checked >= HLCOLL_OFI_CHECK_MS) {
			checked = now;
			rc = hlcoll_boot_poll_error(&c->boot);
			if (rc) {
				hlcoll_warn(c->rank, "a rank left or aborted during a transfer between hosts");
				break;
			}
		}
		idle_ms = now - last;
		if (idle_ms >= c->cfg.timeout_s * 1000ull) {
			hlcoll_warn(c->rank, "nothing moved between hosts for %u s (a host or its link is gone?)",
				    c->cfg.timeout_s);
			rc = -ETIMEDOUT;
			break;
		}
		if (!r.progress)
			rc = hlcoll_ofi_idle(&r);
		if (rc)
			break;
	}
	if (rc)
		hlcoll_ofi_drain(&r);
	hlcoll_trace(c->rank, "libfabric step: %d transfers, %" PRIu64 " B chunks x %d, %" PRId64 " ms, %" PRIu64 " idle waits",
		     n, chunk, depth, hlcoll_ofi_now_ms() - start, r.idle);
	return rc;
}

void hlcoll_ofi_abort(struct hlcoll_comm *c)
{
	/* The peers learn it from the bootstrap, or their connections reset */
	(void)c;
}

void hlcoll_ofi_fini(struct hlcoll_comm *c)
{
	struct hlcoll_ofi *o = c->ofi;

	if (!o)
		return;
	/*
	 * The endpoint first: after a failed step its provider may still hold
	 * transfers (a rendezvous with a peer that died) on the staging
	 * buffers and their registration, which go after it.
	 */
	if (o->ep)
		fi_close(&o->ep->fid);
	if (o->av)
		fi_close(&o->av->fid);
	if (o->cq)
		fi_close(&o->cq->fid);
	hlcoll_ofi_stage_free(c, o);
	if (o->domain)
		fi_close(&o->domain->fid);
	if (o->fabric)
		fi_close(&o->fabric->fid);
	if (o->info)
		hlcoll_fi.freeinfo(o->info);
	free(o);
	c->ofi = NULL;
}

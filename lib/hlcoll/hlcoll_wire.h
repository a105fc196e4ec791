/* SPDX-License-Identifier: MIT */
/*
 * hlcoll_wire.h - the bytes of libhlcoll's bootstrap (hlcoll_boot.c): the
 * unique id and the messages on the ranks' TCP connections to the root.
 * Not installed; tests/bin-host/hlcoll_boot_check speaks it to play an
 * attacker. docs/collectives.md ("The bootstrap") describes the protocol.
 */
#ifndef HLCOLL_WIRE_H
#define HLCOLL_WIRE_H

#include <stdint.h>
#include <string.h>

#include "hlcoll_sha256.h"

#define HLCOLL_ID_MAGIC		0x484c4349u	/* "HLCI" */
/*
 * Version 2: the secret is proven, never sent (version 1 sent it in the
 * HELLO). Version 3: the same bootstrap; the connect exchange that follows
 * it carries what the ranks must agree on (bulk_bytes, timeout_s, the
 * chain setting, the libfabric chunk), which a rank of version 2 reads
 * otherwise. Version 4: the same; between hosts the sender marks its
 * transfer's last chunk (hlcoll_ofi.c), which a receiver of version 3
 * does not ignore. Version 5: the same; the connect exchange between
 * hosts ends with one more round (every rank took its peers' libfabric
 * addresses), which a rank of version 4 does not take part in. An id of
 * another version is refused: -EPROTONOSUPPORT.
 */
#define HLCOLL_ID_VERSION	5
#define HLCOLL_MSG_MAGIC	0x484c434du	/* "HLCM" */

#define HLCOLL_SECRET_BYTES	32
#define HLCOLL_NONCE_BYTES	16

/* The bytes of a unique id; the rest of hlcoll_unique_id is zero */
struct hlcoll_id_wire {
	uint32_t magic;
	uint32_t version;
	uint32_t addr;		/* IPv4, network order */
	uint16_t port;		/* network order */
	uint16_t pad;
	/* Names the id (random, non-zero); public: sent in the HELLO */
	uint64_t tag;
	/* Known to the id's holders only; never sent */
	uint8_t secret[HLCOLL_SECRET_BYTES];
};

enum hlcoll_msg_type {
	HLCOLL_MSG_HELLO = 1,	/* rank -> root: struct hlcoll_hello */
	HLCOLL_MSG_WELCOME,	/* root -> rank: arg 0 (all in) or -errno */
	HLCOLL_MSG_DATA,
	HLCOLL_MSG_ALL,
	HLCOLL_MSG_ABORT,
	HLCOLL_MSG_BYE,
	HLCOLL_MSG_CHALLENGE,	/* root -> rank: struct hlcoll_challenge */
	HLCOLL_MSG_PROOF,	/* rank -> root: struct hlcoll_proof */
};

struct hlcoll_msg {
	uint32_t magic;
	uint32_t type;
	uint32_t len;		/* of the payload that follows */
	int32_t arg;		/* WELCOME, ABORT: 0 or -errno */
};

/*
 * The handshake. The rank sends nothing about the job (no secret, no rank)
 * before the root has proven it holds the id's secret, and the root takes
 * no rank that has not proven it too. Each MAC is HMAC-SHA-256 keyed with
 * the secret over a label naming the prover's role, the version, the tag
 * and both sides' fresh nonces (hlcoll_boot_mac()): neither proof answers
 * the other's challenge, nor another connection's.
 */
struct hlcoll_hello {
	uint32_t version;	/* HLCOLL_ID_VERSION */
	uint32_t pad;
	uint64_t tag;
	uint8_t nonce[HLCOLL_NONCE_BYTES];	/* the rank's */
};

struct hlcoll_challenge {
	uint8_t nonce[HLCOLL_NONCE_BYTES];	/* the root's */
	uint8_t mac[HLCOLL_SHA256_BYTES];	/* "hlcoll-boot-root" */
};

struct hlcoll_proof {
	uint32_t nranks;
	uint32_t rank;
	uint8_t mac[HLCOLL_SHA256_BYTES];	/* "hlcoll-boot-rank" */
};

#define HLCOLL_MAC_ROOT		"hlcoll-boot-root"
#define HLCOLL_MAC_RANK		"hlcoll-boot-rank"

static inline void hlcoll_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/*
 * HMAC-SHA-256(secret, label[16] || version || tag || nonce_rank ||
 * nonce_root [|| nranks || rank]), the integers little-endian (32 bits;
 * the tag as its 8 bytes in the id); nranks and rank only for the rank's
 * proof (@label HLCOLL_MAC_RANK)
 */
static inline void hlcoll_boot_mac(const uint8_t *secret, const char *label,
				   uint64_t tag, const uint8_t *nonce_rank,
				   const uint8_t *nonce_root, uint32_t nranks,
				   uint32_t rank,
				   uint8_t out[HLCOLL_SHA256_BYTES])
{
	struct hlcoll_hmac h;
	uint8_t v[4];

	hlcoll_hmac_init(&h, secret, HLCOLL_SECRET_BYTES);
	hlcoll_hmac_update(&h, label, 16);
	hlcoll_put_le32(v, HLCOLL_ID_VERSION);
	hlcoll_hmac_update(&h, v, 4);
	hlcoll_hmac_update(&h, &tag, sizeof(tag));
	hlcoll_hmac_update(&h, nonce_rank, HLCOLL_NONCE_BYTES);
	hlcoll_hmac_update(&h, nonce_root, HLCOLL_NONCE_BYTES);
	if (!memcmp(label, HLCOLL_MAC_RANK, 16)) {
		hlcoll_put_le32(v, nranks);
		hlcoll_hmac_update(&h, v, 4);
		hlcoll_put_le32(v, rank);
		hlcoll_hmac_update(&h, v, 4);
	}
	hlcoll_hmac_final(&h, out);
}

#endif

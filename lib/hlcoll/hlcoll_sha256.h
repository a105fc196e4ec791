/* SPDX-License-Identifier: MIT */
/*
 * hlcoll_sha256.h - SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104) for
 * the bootstrap's proof of the unique id's secret (hlcoll_boot.c). Not
 * installed; tests/bin-host/hlcoll_boot_check builds hlcoll_sha256.c too
 * and checks it against FIPS 180-4's and RFC 4231's vectors.
 */
#ifndef HLCOLL_SHA256_H
#define HLCOLL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define HLCOLL_SHA256_BYTES	32
#define HLCOLL_SHA256_BLOCK	64

struct hlcoll_sha256 {
	uint32_t h[8];
	uint64_t bytes;		/* hashed so far */
	uint8_t buf[HLCOLL_SHA256_BLOCK];
	size_t n;		/* bytes in buf */
};

void hlcoll_sha256_init(struct hlcoll_sha256 *s);
void hlcoll_sha256_update(struct hlcoll_sha256 *s, const void *data,
			  size_t len);
void hlcoll_sha256_final(struct hlcoll_sha256 *s,
			 uint8_t out[HLCOLL_SHA256_BYTES]);

struct hlcoll_hmac {
	struct hlcoll_sha256 inner;
	uint8_t okey[HLCOLL_SHA256_BLOCK];	/* key ^ opad */
};

/* HMAC-SHA-256 of the data given to _update() under @key (any length) */
void hlcoll_hmac_init(struct hlcoll_hmac *h, const void *key, size_t len);
void hlcoll_hmac_update(struct hlcoll_hmac *h, const void *data, size_t len);
void hlcoll_hmac_final(struct hlcoll_hmac *h,
		       uint8_t out[HLCOLL_SHA256_BYTES]);

/* @a and @b equal, in a time that does not depend on where they differ */
int hlcoll_memeq_ct(const void *a, const void *b, size_t len);

/* Wipe @len bytes at @p (not optimised away) */
void hlcoll_wipe(void *p, size_t len);

#endif

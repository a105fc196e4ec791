// SPDX-License-Identifier: MIT
/*
 * hlcoll_sha256.c - SHA-256 as FIPS 180-4 specifies it, and HMAC over it
 * as RFC 2104 does: H((K ^ opad) || H((K ^ ipad) || m)), a key longer than
 * a block hashed first. Small and portable rather than fast: the bootstrap
 * hashes a few hundred bytes per connection.
 */
#include "hlcoll_sha256.h"

#include <string.h>

/* The first 32 bits of the fractional parts of the cube roots of the first 64 primes */
static const uint32_t hlcoll_sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror32(uint32_t x, unsigned int n)
{
	return (x >> n) | (x << (32 - n));
}

static void hlcoll_sha256_block(struct hlcoll_sha256 *s, const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = w[i - 16] + w[i - 7] +
		       (ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^
			(w[i - 15] >> 3)) +
		       (ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^
			(w[i - 2] >> 10));
	a = s->h[0];
	b = s->h[1];
	c = s->h[2];
	d = s->h[3];
	e = s->h[4];
	f = s->h[5];
	g = s->h[6];
	h = s->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25)) +
		     ((e & f) ^ (~e & g)) + hlcoll_sha256_k[i] + w[i];
		t2 = (ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22)) +
		     ((a & b) ^ (a & c) ^ (b & c));
		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	s->h[0] += a;
	s->h[1] += b;
	s->h[2] += c;
	s->h[3] += d;
	s->h[4] += e;
	s->h[5] += f;
	s->h[6] += g;
	s->h[7] += h;
}

void hlcoll_sha256_init(struct hlcoll_sha256 *s)
{
	/* The first 32 bits of the fractional parts of the square roots of the first 8 primes */
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, h0, sizeof(h0));
	s->bytes = 0;
	s->n = 0;
}

void hlcoll_sha256_update(struct hlcoll_sha256 *s, const void *data,
			  size_t len)
{
	const uint8_t *p = data;
	size_t take;

	s->bytes += len;
	while (len) {
		if (!s->n && len >= HLCOLL_SHA256_BLOCK) {
			hlcoll_sha256_block(s, p);
			p += HLCOLL_SHA256_BLOCK;
			len -= HLCOLL_SHA256_BLOCK;
			continue;
		}
		take = HLCOLL_SHA256_BLOCK - s->n;
		if (take > len)
			take = len;
		memcpy(s->buf + s->n, p, take);
		s->n += take;
		p += take;
		len -= take;
		if (s->n == HLCOLL_SHA256_BLOCK) {
			hlcoll_sha256_block(s, s->buf);
			s->n = 0;
		}
	}
}

void hlcoll_sha256_final(struct hlcoll_sha256 *s,
			 uint8_t out[HLCOLL_SHA256_BYTES])
{
	uint64_t bits = s->bytes * 8;
	int i;

	/* 0x80, zeros up to 56 mod 64, the length in bits big-endian */
	s->buf[s->n++] = 0x80;
	if (s->n > HLCOLL_SHA256_BLOCK - 8) {
		memset(s->buf + s->n, 0, HLCOLL_SHA256_BLOCK - s->n);
		hlcoll_sha256_block(s, s->buf);
		s->n = 0;
	}
	memset(s->buf + s->n, 0, HLCOLL_SHA256_BLOCK - 8 - s->n);
	for (i = 0; i < 8; i++)
		s->buf[HLCOLL_SHA256_BLOCK - 1 - i] = (uint8_t)(bits >> (8 * i));
	hlcoll_sha256_block(s, s->buf);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(s->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)s->h[i];
	}
	hlcoll_wipe(s, sizeof(*s));
}

void hlcoll_hmac_init(struct hlcoll_hmac *h, const void *key, size_t len)
{
	uint8_t k[HLCOLL_SHA256_BLOCK], ikey[HLCOLL_SHA256_BLOCK];
	struct hlcoll_sha256 s;
	int i;

	memset(k, 0, sizeof(k));
	if (len > HLCOLL_SHA256_BLOCK) {
		hlcoll_sha256_init(&s);
		hlcoll_sha256_update(&s, key, len);
		hlcoll_sha256_final(&s, k);
	} else if (len) {
		memcpy(k, key, len);
	}
	for (i = 0; i < HLCOLL_SHA256_BLOCK; i++) {
		ikey[i] = k[i] ^ 0x36;
		h->okey[i] = k[i] ^ 0x5c;
	}
	hlcoll_sha256_init(&h->inner);
	hlcoll_sha256_update(&h->inner, ikey, sizeof(ikey));
	hlcoll_wipe(k, sizeof(k));
	hlcoll_wipe(ikey, sizeof(ikey));
}

void hlcoll_hmac_update(struct hlcoll_hmac *h, const void *data, size_t len)
{
	hlcoll_sha256_update(&h->inner, data, len);
}

void hlcoll_hmac_final(struct hlcoll_hmac *h,
		       uint8_t out[HLCOLL_SHA256_BYTES])
{
	uint8_t ih[HLCOLL_SHA256_BYTES];
	struct hlcoll_sha256 s;

	hlcoll_sha256_final(&h->inner, ih);
	hlcoll_sha256_init(&s);
	hlcoll_sha256_update(&s, h->okey, sizeof(h->okey));
	hlcoll_sha256_update(&s, ih, sizeof(ih));
	hlcoll_sha256_final(&s, out);
	hlcoll_wipe(ih, sizeof(ih));
	hlcoll_wipe(h, sizeof(*h));
}

int hlcoll_memeq_ct(const void *a, const void *b, size_t len)
{
	const volatile uint8_t *x = a, *y = b;
	uint8_t d = 0;
	size_t i;

	for (i = 0; i < len; i++)
		d |= x[i] ^ y[i];
	return d == 0;
}

void hlcoll_wipe(void *p, size_t len)
{
	volatile uint8_t *v = p;

	while (len--)
		*v++ = 0;
}

// SPDX-License-Identifier: MIT
/*
 * packets.c - the packet builders of libhlthunk (hlthunk_pkt_*) write the
 * bytes of <misc/habanalabs_pkt.h>: little-endian, the opcode in bits
 * [31:24] of the first word, every reserved byte zero, nothing past the
 * packet; with a NULL buffer they return the size alone. The expected bytes
 * are written out here from the format, field by field, not computed by the
 * code under test. Needs no device.
 * Exit status: the number of failed checks.
 */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <hlthunk.h>
#include <misc/habanalabs_pkt.h>

#define GUARD	0xa5

static int failed;

static void check(const char *what, uint32_t len, uint32_t null_len,
		  const unsigned char *buf, const unsigned char *want,
		  uint32_t want_len)
{
	uint32_t i;

	if (len != want_len || null_len != want_len) {
		failed++;
		fprintf(stderr, "packets: FAIL %s: size %u, %u with NULL, want %u\n",
			what, len, null_len, want_len);
		return;
	}
	for (i = 0; i < 64; i++) {
		unsigned char w = i < want_len ? want[i] : GUARD;

		if (buf[i] != w) {
			failed++;
			fprintf(stderr, "packets: FAIL %s: byte %u is 0x%02x, want 0x%02x\n",
				what, i, buf[i], w);
			return;
		}
	}
}

#define CHECK(what, call_buf, call_null, ...)				\
	do {								\
		const unsigned char want[] = { __VA_ARGS__ };		\
		uint32_t len, null_len;					\
									\
		memset(buf, GUARD, sizeof(buf));			\
		len = call_buf;						\
		null_len = call_null;					\
		check(what, len, null_len, buf, want, sizeof(want));	\
	} while (0)

int main(void)
{
	unsigned char buf[64];

	CHECK("nop", hlthunk_pkt_nop(buf), hlthunk_pkt_nop(NULL),
	      0, 0, 0, 0x00, 0, 0, 0, 0);
	CHECK("lin_dma",
	      hlthunk_pkt_lin_dma(buf, 0x1122334455667788ull,
				  0x99aabbccddeeff00ull, 0x0102030405060708ull),
	      hlthunk_pkt_lin_dma(NULL, 1, 2, 3),
	      0, 0, 0, 0x01, 0, 0, 0, 0,
	      0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
	      0x00, 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99,
	      0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01);
	CHECK("memset",
	      hlthunk_pkt_memset(buf, 0x1000, 0xdeadbeefcafef00dull, 0x20),
	      hlthunk_pkt_memset(NULL, 0, 0, 0),
	      0, 0, 0, 0x02, 0, 0, 0, 0,
	      0x00, 0x10, 0, 0, 0, 0, 0, 0,
	      0x0d, 0xf0, 0xfe, 0xca, 0xef, 0xbe, 0xad, 0xde,
	      0x20, 0, 0, 0, 0, 0, 0, 0);
	CHECK("msg_long",
	      hlthunk_pkt_msg_long(buf, 0xfedcba9876543210ull, 0x01020304),
	      hlthunk_pkt_msg_long(NULL, 0, 0),
	      0, 0, 0, 0x03, 0x04, 0x03, 0x02, 0x01,
	      0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe);
	CHECK("reduce",
	      hlthunk_pkt_reduce(buf, 0x2000, 0x3000, 0x11223344, 0x55667788,
				 0x99aabbcc),
	      hlthunk_pkt_reduce(NULL, 0, 0, 0, 0, 0),
	      0, 0, 0, 0x04, 0x44, 0x33, 0x22, 0x11,
	      0x00, 0x20, 0, 0, 0, 0, 0, 0,
	      0x00, 0x30, 0, 0, 0, 0, 0, 0,
	      0x88, 0x77, 0x66, 0x55, 0xcc, 0xbb, 0xaa, 0x99);
	/* The named types and operations: dtype then op, little-endian */
	CHECK("reduce bf16 max",
	      hlthunk_pkt_reduce(buf, 0x2000, 0x3000, 7, HL_REDUCE_DTYPE_BF16,
				 HL_REDUCE_OP_MAX),
	      hlthunk_pkt_reduce(NULL, 0, 0, 0, 0, 0),
	      0, 0, 0, 0x04, 0x07, 0, 0, 0,
	      0x00, 0x20, 0, 0, 0, 0, 0, 0,
	      0x00, 0x30, 0, 0, 0, 0, 0, 0,
	      0x01, 0, 0, 0, 0x02, 0, 0, 0);
	CHECK("reduce f16 min",
	      hlthunk_pkt_reduce(buf, 0, 0, 1, HL_REDUCE_DTYPE_F16,
				 HL_REDUCE_OP_MIN),
	      hlthunk_pkt_reduce(NULL, 0, 0, 0, 0, 0),
	      0, 0, 0, 0x04, 0x01, 0, 0, 0,
	      0, 0, 0, 0, 0, 0, 0, 0,
	      0, 0, 0, 0, 0, 0, 0, 0,
	      0x02, 0, 0, 0, 0x01, 0, 0, 0);
	CHECK("reduce i32",
	      hlthunk_pkt_reduce(buf, 0, 0, 1, HL_REDUCE_DTYPE_I32,
				 HL_REDUCE_OP_SUM),
	      hlthunk_pkt_reduce(NULL, 0, 0, 0, 0, 0),
	      0, 0, 0, 0x04, 0x01, 0, 0, 0,
	      0, 0, 0, 0, 0, 0, 0, 0,
	      0, 0, 0, 0, 0, 0, 0, 0,
	      0x03, 0, 0, 0, 0, 0, 0, 0);
	/* PROD, and DIV with its divisor in the op word's bits 31:16 */
	CHECK("reduce f32 prod",
	      hlthunk_pkt_reduce(buf, 0x2000, 0x3000, 7, HL_REDUCE_DTYPE_F32,
				 HL_REDUCE_OP_PROD),
	      hlthunk_pkt_reduce(NULL, 0, 0, 0, 0, 0),
	      0, 0, 0, 0x04, 0x07, 0, 0, 0,
	      0x00, 0x20, 0, 0, 0, 0, 0, 0,
	      0x00, 0x30, 0, 0, 0, 0, 0, 0,
	      0x00, 0, 0, 0, 0x03, 0, 0, 0);
	CHECK("reduce bf16 div by 3",
	      hlthunk_pkt_reduce(buf, 0x3000, 0x3000, 5, HL_REDUCE_DTYPE_BF16,
				 HL_REDUCE_OP_DIV_BY(3)),
	      hlthunk_pkt_reduce(NULL, 0, 0, 0, 0, 0),
	      0, 0, 0, 0x04, 0x05, 0, 0, 0,
	      0x00, 0x30, 0, 0, 0, 0, 0, 0,
	      0x00, 0x30, 0, 0, 0, 0, 0, 0,
	      0x01, 0, 0, 0, 0x04, 0, 0x03, 0);
	CHECK("reduce i32 div by the largest divisor",
	      hlthunk_pkt_reduce(buf, 0, 0, 1, HL_REDUCE_DTYPE_I32,
				 HL_REDUCE_OP_DIV_BY(HL_REDUCE_MAX_DIVISOR)),
	      hlthunk_pkt_reduce(NULL, 0, 0, 0, 0, 0),
	      0, 0, 0, 0x04, 0x01, 0, 0, 0,
	      0, 0, 0, 0, 0, 0, 0, 0,
	      0, 0, 0, 0, 0, 0, 0, 0,
	      0x03, 0, 0, 0, 0x04, 0, 0xff, 0xff);
	CHECK("nic_send",
	      hlthunk_pkt_nic_send(buf, 0x0a0b0c0d, 0x4000, 0x100,
				   0x8877665544332211ull),
	      hlthunk_pkt_nic_send(NULL, 0, 0, 0, 0),
	      0, 0, 0, 0x10, 0x0d, 0x0c, 0x0b, 0x0a,
	      0x00, 0x40, 0, 0, 0, 0, 0, 0,
	      0x00, 0x01, 0, 0, 0, 0, 0, 0,
	      0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88);
	CHECK("nic_recv",
	      hlthunk_pkt_nic_recv(buf, 7, 0x5000, 0x40, 9),
	      hlthunk_pkt_nic_recv(NULL, 0, 0, 0, 0),
	      0, 0, 0, 0x11, 7, 0, 0, 0,
	      0x00, 0x50, 0, 0, 0, 0, 0, 0,
	      0x40, 0, 0, 0, 0, 0, 0, 0,
	      9, 0, 0, 0, 0, 0, 0, 0);
	CHECK("nic_write_imm",
	      hlthunk_pkt_nic_write_imm(buf, 7, 0x5000, 0xa1, 0x6000, 0xb2, 0x40,
					9, 0xc3),
	      hlthunk_pkt_nic_write_imm(NULL, 0, 0, 0, 0, 0, 0, 0, 0),
	      0, 0, 0, 0x13, 7, 0, 0, 0,
	      0x00, 0x50, 0, 0, 0, 0, 0, 0,
	      0x00, 0x60, 0, 0, 0, 0, 0, 0,
	      0x40, 0, 0, 0, 0, 0, 0, 0,
	      9, 0, 0, 0, 0, 0, 0, 0,
	      0xa1, 0, 0, 0, 0xb2, 0, 0, 0,
	      0xc3, 0, 0, 0, 0, 0, 0, 0);

	/*
	 * A divisor outside 1 .. HL_REDUCE_MAX_DIVISOR gives the divisor-0
	 * word, which the engine refuses, never an alias of a valid divisor
	 * (65537 was DIV_BY(1), -1 was DIV_BY(65535)).
	 */
	{
		const long long bad_n[] = { 0, -1, -65535, 65536, 65537,
					    0x100000001ll };
		unsigned int i;

		for (i = 0; i < sizeof(bad_n) / sizeof(bad_n[0]); i++) {
			if (HL_REDUCE_OP_DIV_BY(bad_n[i]) != HL_REDUCE_OP_DIV) {
				failed++;
				fprintf(stderr, "packets: FAIL DIV_BY(%lld) = 0x%08x, not the refused divisor-0 word\n",
					bad_n[i], HL_REDUCE_OP_DIV_BY(bad_n[i]));
			}
		}
	}

	if (failed)
		fprintf(stderr, "packets: %d failed\n", failed);
	return failed;
}

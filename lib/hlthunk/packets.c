// SPDX-License-Identifier: MIT
/*
 * packets.c - builders of the emulated ASIC's command-buffer packets
 * (struct hl_pkt_* of <misc/habanalabs_pkt.h>): little-endian, any buffer
 * alignment, reserved bits zero.
 */

#include <endian.h>
#include <string.h>

#include <misc/habanalabs_pkt.h>

#include "hlthunk_internal.h"

static void hlthunk_put_le32(void *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static void hlthunk_put_le64(void *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static uint32_t hlthunk_pkt_ctl(uint32_t opcode)
{
	return opcode << HL_PKT_OPCODE_SHIFT;
}

hlthunk_public uint32_t hlthunk_pkt_nop(void *buf)
{
	char *p = buf;

	if (p) {
		hlthunk_put_le32(p + offsetof(struct hl_pkt_nop, ctl),
				 hlthunk_pkt_ctl(HL_PKT_NOP));
		hlthunk_put_le32(p + offsetof(struct hl_pkt_nop, pad), 0);
	}
	return sizeof(struct hl_pkt_nop);
}

hlthunk_public uint32_t hlthunk_pkt_lin_dma(void *buf, uint64_t src,
					    uint64_t dst, uint64_t size)
{
	char *p = buf;

	if (p) {
		hlthunk_put_le32(p + offsetof(struct hl_pkt_lin_dma, ctl),
				 hlthunk_pkt_ctl(HL_PKT_LIN_DMA));
		hlthunk_put_le32(p + offsetof(struct hl_pkt_lin_dma, pad), 0);
		hlthunk_put_le64(p + offsetof(struct hl_pkt_lin_dma, src_addr),
				 src);
		hlthunk_put_le64(p + offsetof(struct hl_pkt_lin_dma, dst_addr),
				 dst);
		hlthunk_put_le64(p + offsetof(struct hl_pkt_lin_dma, tsize),
				 size);
	}
	return sizeof(struct hl_pkt_lin_dma);
}

hlthunk_public uint32_t hlthunk_pkt_memset(void *buf, uint64_t dst,
					   uint64_t value, uint64_t size)
{
	char *p = buf;

	if (p) {
		hlthunk_put_le32(p + offsetof(struct hl_pkt_memset, ctl),
				 hlthunk_pkt_ctl(HL_PKT_MEMSET));
		hlthunk_put_le32(p + offsetof(struct hl_pkt_memset, pad), 0);
		hlthunk_put_le64(p + offsetof(struct hl_pkt_memset, dst_addr),
				 dst);
		hlthunk_put_le64(p + offsetof(struct hl_pkt_memset, value),
				 value);
		hlthunk_put_le64(p + offsetof(struct hl_pkt_memset, tsize),
				 size);
	}
	return sizeof(struct hl_pkt_memset);
}

hlthunk_public uint32_t hlthunk_pkt_msg_long(void *buf, uint64_t addr,
					     uint32_t value)
{
	char *p = buf;

	if (p) {
		hlthunk_put_le32(p + offsetof(struct hl_pkt_msg_long, ctl),
				 hlthunk_pkt_ctl(HL_PKT_MSG_LONG));
		hlthunk_put_le32(p + offsetof(struct hl_pkt_msg_long, value),
				 value);
		hlthunk_put_le64(p + offsetof(struct hl_pkt_msg_long, addr),
				 addr);
	}
	return sizeof(struct hl_pkt_msg_long);
}

hlthunk_public uint32_t hlthunk_pkt_reduce(void *buf, uint64_t src,
					   uint64_t dst, uint32_t count,
					   uint32_t dtype, uint32_t op)
{
	char *p = buf;

	if (p) {
		hlthunk_put_le32(p + offsetof(struct hl_pkt_reduce, ctl),
				 hlthunk_pkt_ctl(HL_PKT_REDUCE));
		hlthunk_put_le32(p + offsetof(struct hl_pkt_reduce, count),
				 count);
		hlthunk_put_le64(p + offsetof(struct hl_pkt_reduce, src_addr),
				 src);
		hlthunk_put_le64(p + offsetof(struct hl_pkt_reduce, dst_addr),
				 dst);
		hlthunk_put_le32(p + offsetof(struct hl_pkt_reduce, dtype),
				 dtype);
		hlthunk_put_le32(p + offsetof(struct hl_pkt_reduce, op), op);
	}
	return sizeof(struct hl_pkt_reduce);
}

static uint32_t hlthunk_pkt_nic(void *buf, uint32_t opcode, uint32_t conn_id,
				uint64_t addr, uint64_t size, uint64_t wr_id)
{
	char *p = buf;

	if (p) {
		hlthunk_put_le32(p + offsetof(struct hl_pkt_nic_send, ctl),
				 hlthunk_pkt_ctl(opcode));
		hlthunk_put_le32(p + offsetof(struct hl_pkt_nic_send, conn_id),
				 conn_id);
		hlthunk_put_le64(p + offsetof(struct hl_pkt_nic_send, addr),
				 addr);
		hlthunk_put_le64(p + offsetof(struct hl_pkt_nic_send, size),
				 size);
		hlthunk_put_le64(p + offsetof(struct hl_pkt_nic_send, wr_id),
				 wr_id);
	}
	return sizeof(struct hl_pkt_nic_send);
}

/* SEND and RECV share one layout */
_Static_assert(sizeof(struct hl_pkt_nic_send) ==
	       sizeof(struct hl_pkt_nic_recv), "NIC packet layouts");
_Static_assert(offsetof(struct hl_pkt_nic_send, wr_id) ==
	       offsetof(struct hl_pkt_nic_recv, wr_id), "NIC packet layouts");

hlthunk_public uint32_t hlthunk_pkt_nic_send(void *buf, uint32_t conn_id,
					     uint64_t addr, uint64_t size,
					     uint64_t wr_id)
{
	return hlthunk_pkt_nic(buf, HL_PKT_NIC_SEND, conn_id, addr, size,
			       wr_id);
}

hlthunk_public uint32_t hlthunk_pkt_nic_recv(void *buf, uint32_t conn_id,
					     uint64_t addr, uint64_t size,
					     uint64_t wr_id)
{
	return hlthunk_pkt_nic(buf, HL_PKT_NIC_RECV, conn_id, addr, size,
			       wr_id);
}

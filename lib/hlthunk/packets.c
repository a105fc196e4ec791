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

/* One field of a packet: where it is and its width (4 or 8 bytes) */
struct hlthunk_pkt_field {
	uint8_t off;
	uint8_t len;
};

#define HLTHUNK_PKT_FIELD(type, member)					\
	{ offsetof(struct type, member), sizeof(((struct type *)0)->member) }

/*
 * struct hlthunk_pkt_layout - a packet as the builders write it.
 * @size: its size in bytes.
 * @fields: the fields after the header, in the order of the builder's
 *	values, up to the first of length 0; with the header they cover every
 *	byte, so reserved fields are listed too (value 0).
 */
struct hlthunk_pkt_layout {
	uint32_t size;
	struct hlthunk_pkt_field fields[10];
};

/* By opcode */
static const struct hlthunk_pkt_layout hlthunk_pkt_layouts[] = {
	[HL_PKT_NOP] = { sizeof(struct hl_pkt_nop), {
		HLTHUNK_PKT_FIELD(hl_pkt_nop, pad) } },
	[HL_PKT_LIN_DMA] = { sizeof(struct hl_pkt_lin_dma), {
		HLTHUNK_PKT_FIELD(hl_pkt_lin_dma, pad),
		HLTHUNK_PKT_FIELD(hl_pkt_lin_dma, src_addr),
		HLTHUNK_PKT_FIELD(hl_pkt_lin_dma, dst_addr),
		HLTHUNK_PKT_FIELD(hl_pkt_lin_dma, tsize) } },
	[HL_PKT_MEMSET] = { sizeof(struct hl_pkt_memset), {
		HLTHUNK_PKT_FIELD(hl_pkt_memset, pad),
		HLTHUNK_PKT_FIELD(hl_pkt_memset, dst_addr),
		HLTHUNK_PKT_FIELD(hl_pkt_memset, value),
		HLTHUNK_PKT_FIELD(hl_pkt_memset, tsize) } },
	[HL_PKT_MSG_LONG] = { sizeof(struct hl_pkt_msg_long), {
		HLTHUNK_PKT_FIELD(hl_pkt_msg_long, value),
		HLTHUNK_PKT_FIELD(hl_pkt_msg_long, addr) } },
	[HL_PKT_REDUCE] = { sizeof(struct hl_pkt_reduce), {
		HLTHUNK_PKT_FIELD(hl_pkt_reduce, count),
		HLTHUNK_PKT_FIELD(hl_pkt_reduce, src_addr),
		HLTHUNK_PKT_FIELD(hl_pkt_reduce, dst_addr),
		HLTHUNK_PKT_FIELD(hl_pkt_reduce, dtype),
		HLTHUNK_PKT_FIELD(hl_pkt_reduce, op) } },
	[HL_PKT_NIC_SEND] = { sizeof(struct hl_pkt_nic_send), {
		HLTHUNK_PKT_FIELD(hl_pkt_nic_send, conn_id),
		HLTHUNK_PKT_FIELD(hl_pkt_nic_send, addr),
		HLTHUNK_PKT_FIELD(hl_pkt_nic_send, size),
		HLTHUNK_PKT_FIELD(hl_pkt_nic_send, wr_id) } },
	[HL_PKT_NIC_RECV] = { sizeof(struct hl_pkt_nic_recv), {
		HLTHUNK_PKT_FIELD(hl_pkt_nic_recv, conn_id),
		HLTHUNK_PKT_FIELD(hl_pkt_nic_recv, addr),
		HLTHUNK_PKT_FIELD(hl_pkt_nic_recv, size),
		HLTHUNK_PKT_FIELD(hl_pkt_nic_recv, wr_id) } },
#define HLTHUNK_PKT_NIC_WRITE_FIELDS {					\
		HLTHUNK_PKT_FIELD(hl_pkt_nic_write, conn_id),		\
		HLTHUNK_PKT_FIELD(hl_pkt_nic_write, local_addr),	\
		HLTHUNK_PKT_FIELD(hl_pkt_nic_write, remote_addr),	\
		HLTHUNK_PKT_FIELD(hl_pkt_nic_write, size),		\
		HLTHUNK_PKT_FIELD(hl_pkt_nic_write, wr_id),		\
		HLTHUNK_PKT_FIELD(hl_pkt_nic_write, lkey),		\
		HLTHUNK_PKT_FIELD(hl_pkt_nic_write, rkey),		\
		HLTHUNK_PKT_FIELD(hl_pkt_nic_write, imm_data),		\
		HLTHUNK_PKT_FIELD(hl_pkt_nic_write, pad) }
	[HL_PKT_NIC_WRITE] = { sizeof(struct hl_pkt_nic_write),
			       HLTHUNK_PKT_NIC_WRITE_FIELDS },
	[HL_PKT_NIC_WRITE_IMM] = { sizeof(struct hl_pkt_nic_write),
				   HLTHUNK_PKT_NIC_WRITE_FIELDS },
};

/*
 * Writes the packet of @opcode into @buf, when not NULL: its header (the
 * opcode, every other ctl bit zero) at offset 0, then @values in the order
 * of its layout's fields, little-endian. Returns the packet's size.
 */
static uint32_t hlthunk_pkt_write(void *buf, uint32_t opcode,
				  const uint64_t *values)
{
	const struct hlthunk_pkt_layout *l = &hlthunk_pkt_layouts[opcode];
	const struct hlthunk_pkt_field *f = l->fields;
	char *p = buf;
	uint32_t i;

	if (!p)
		return l->size;

	hlthunk_put_le32(p, opcode << HL_PKT_OPCODE_SHIFT);
	for (i = 0; f[i].len; i++) {
		if (f[i].len == sizeof(uint32_t))
			hlthunk_put_le32(p + f[i].off, (uint32_t)values[i]);
		else
			hlthunk_put_le64(p + f[i].off, values[i]);
	}
	return l->size;
}

/* Every packet starts with its 32-bit header, ctl */
_Static_assert(offsetof(struct hl_pkt_nop, ctl) == 0, "packet header");
_Static_assert(offsetof(struct hl_pkt_lin_dma, ctl) == 0, "packet header");
_Static_assert(offsetof(struct hl_pkt_memset, ctl) == 0, "packet header");
_Static_assert(offsetof(struct hl_pkt_msg_long, ctl) == 0, "packet header");
_Static_assert(offsetof(struct hl_pkt_reduce, ctl) == 0, "packet header");
_Static_assert(offsetof(struct hl_pkt_nic_send, ctl) == 0, "packet header");
_Static_assert(offsetof(struct hl_pkt_nic_recv, ctl) == 0, "packet header");

hlthunk_public uint32_t hlthunk_pkt_nop(void *buf)
{
	return hlthunk_pkt_write(buf, HL_PKT_NOP, (const uint64_t[]){ 0 });
}

hlthunk_public uint32_t hlthunk_pkt_lin_dma(void *buf, uint64_t src,
					    uint64_t dst, uint64_t size)
{
	return hlthunk_pkt_write(buf, HL_PKT_LIN_DMA,
				 (const uint64_t[]){ 0, src, dst, size });
}

hlthunk_public uint32_t hlthunk_pkt_memset(void *buf, uint64_t dst,
					   uint64_t value, uint64_t size)
{
	return hlthunk_pkt_write(buf, HL_PKT_MEMSET,
				 (const uint64_t[]){ 0, dst, value, size });
}

hlthunk_public uint32_t hlthunk_pkt_msg_long(void *buf, uint64_t addr,
					     uint32_t value)
{
	return hlthunk_pkt_write(buf, HL_PKT_MSG_LONG,
				 (const uint64_t[]){ value, addr });
}

hlthunk_public uint32_t hlthunk_pkt_reduce(void *buf, uint64_t src,
					   uint64_t dst, uint32_t count,
					   uint32_t dtype, uint32_t op)
{
	return hlthunk_pkt_write(buf, HL_PKT_REDUCE,
				 (const uint64_t[]){ count, src, dst, dtype,
						     op });
}

hlthunk_public uint32_t hlthunk_pkt_nic_send(void *buf, uint32_t conn_id,
					     uint64_t addr, uint64_t size,
					     uint64_t wr_id)
{
	return hlthunk_pkt_write(buf, HL_PKT_NIC_SEND,
				 (const uint64_t[]){ conn_id, addr, size,
						     wr_id });
}

hlthunk_public uint32_t hlthunk_pkt_nic_recv(void *buf, uint32_t conn_id,
					     uint64_t addr, uint64_t size,
					     uint64_t wr_id)
{
	return hlthunk_pkt_write(buf, HL_PKT_NIC_RECV,
				 (const uint64_t[]){ conn_id, addr, size,
						     wr_id });
}

hlthunk_public uint32_t hlthunk_pkt_nic_write(void *buf, uint32_t conn_id,
					      uint64_t local_addr, uint32_t lkey,
					      uint64_t remote_addr,
					      uint32_t rkey, uint64_t size,
					      uint64_t wr_id)
{
	return hlthunk_pkt_write(buf, HL_PKT_NIC_WRITE,
				 (const uint64_t[]){ conn_id, local_addr,
						     remote_addr, size, wr_id,
						     lkey, rkey, 0, 0 });
}

hlthunk_public uint32_t hlthunk_pkt_nic_write_imm(void *buf, uint32_t conn_id,
						  uint64_t local_addr,
						  uint32_t lkey,
						  uint64_t remote_addr,
						  uint32_t rkey, uint64_t size,
						  uint64_t wr_id,
						  uint32_t imm_data)
{
	return hlthunk_pkt_write(buf, HL_PKT_NIC_WRITE_IMM,
				 (const uint64_t[]){ conn_id, local_addr,
						     remote_addr, size, wr_id,
						     lkey, rkey, imm_data, 0 });
}

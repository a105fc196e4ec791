/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: NIC memory regions (HL_NIC_OP_REG_MR / DEREG_MR) and their
 * keys, and the narrow lookup the data path uses to check a key before any
 * byte moves (common/nic_mr.c).
 *
 * Objects and lifetimes:
 *   - struct hl_nic_mr: refcounted. The driver-wide key table (an xarray
 *     indexed by slot) holds one reference from registration until
 *     deregistration or the context's close; the data path holds one
 *     while a write uses the region. The region holds the mapping it lies
 *     in (hl_vm_mapping.mrs, which makes UNMAP -EBUSY) until it is
 *     deregistered; its context is not counted: the region is
 *     deregistered in the context's close (hl_nic_ctx_close()), before the
 *     mappings go, and a write that found it holds the context too.
 *
 * Keys: slot ^ a random salt drawn once per driver load (one for lkeys,
 * one for rkeys) in bits 31..16, and in bits 15..0 a tag of random bits
 * drawn for each key on its own (get_random_u16()), so that no key tells
 * another: not the other key of its region, not a neighbour's (a review
 * found rkey(B) = rkey(A) ^ 0x100 when the low bits were a generation
 * byte shared by every slot of a pass). Slots are allocated cyclically
 * from the driver-wide table, so a slot comes back only after 65535 other
 * registrations, and then with a fresh tag: a stale key names the new
 * region with a chance of 2^-16. A key names a region only with its
 * context (the lookup compares both), so a guess works only against a
 * context at the other end of one's own connection, and each wrong guess
 * costs the connection (ERR).
 */
#ifndef HL_NIC_MR_H_
#define HL_NIC_MR_H_

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/rwsem.h>
#include <linux/types.h>

struct hl_ctx;
struct hl_vm_mapping;

/* Slots of the driver-wide key table: 1 .. this */
#define HL_NIC_MR_MAX_SLOT	0xffff
#define HL_NIC_MR_KEY_SHIFT	16
#define HL_NIC_MR_TAG_MASK	0xffffu

/**
 * struct hl_nic_mr - a registered memory region.
 * @refcount: see the file comment.
 * @ctx: the owning context (not counted).
 * @mapping: the mapping the region lies in; holds it (mapping->mrs).
 * @node: in hl_nic_ctx.mrs.
 * @slot: index in the key table.
 * @lkey: the local key.
 * @rkey: the remote key.
 * @addr: device VA of the first byte.
 * @size: bytes.
 * @iova: the address work names the first byte by.
 * @access: HL_NIC_ACCESS_* flags.
 * @rwsem: Protects @revoked; the data path holds it for read around every
 *	step that moves bytes into or out of the region
 *	(hl_nic_mr_access_begin()), deregistration takes it for write once
 *	to set @revoked, which so waits for those steps.
 * @revoked: deregistered: no byte moves any more.
 */
struct hl_nic_mr {
	struct kref refcount;
	struct hl_ctx *ctx;
	struct hl_vm_mapping *mapping;
	struct list_head node;
	u32 slot;
	u32 lkey;
	u32 rkey;
	u64 addr;
	u64 size;
	u64 iova;
	u32 access;
	struct rw_semaphore rwsem; /* Protects: revoked */
	bool revoked;
};

/* Pure logic (KUnit: common/nic_kunit.c) */
u32 hl_nic_mr_key_make(u32 slot, u32 tag, u32 salt);
u32 hl_nic_mr_key_slot(u32 key, u32 salt);
int hl_nic_mr_check(u64 iova, u64 size, u32 access, u32 need, u64 va,
		    u64 len);

/* For nic.c: the ops and the context's teardown */
int hl_nic_mr_reg(struct hl_ctx *ctx, const struct hl_nic_reg_mr_in *in,
		  struct hl_nic_reg_mr_out *out);
int hl_nic_mr_dereg(struct hl_ctx *ctx, const struct hl_nic_dereg_mr_in *in);
void hl_nic_mr_ctx_close(struct hl_ctx *ctx);

/* For the data path (emu/emu_nic.c) */
int hl_nic_mr_lookup(struct hl_ctx *ctx, u32 key, bool remote, u32 need,
		     u64 va, u64 len, struct hl_nic_mr **mr, u64 *dev_va);
bool hl_nic_mr_access_begin(struct hl_nic_mr *mr);
void hl_nic_mr_access_end(struct hl_nic_mr *mr);
void hl_nic_mr_put(struct hl_nic_mr *mr);

#endif /* HL_NIC_MR_H_ */

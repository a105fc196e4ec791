/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: NIC memory regions (HL_NIC_OP_REG_MR / DEREG_MR) and their
 * keys, and the narrow lookup the data path uses to check a key before any
 * byte moves (common/nic_mr.c).
 *
 * Objects and lifetimes:
 *   - struct hl_nic_mr: refcounted. The registration holds one reference
 *     (the region is in its context's key tables and list) until
 *     deregistration or the context's close; the data path holds one
 *     while a write uses the region. A region bound to a connection holds
 *     a reference on it (struct hl_nic_conn) until it is freed. The
 *     region holds the mapping it lies in (hl_vm_mapping.mrs, which makes
 *     UNMAP -EBUSY) until it is deregistered; its context is not counted:
 *     the region is deregistered in the context's close
 *     (hl_nic_ctx_close()), before the mappings go, and a write that
 *     found it holds the context too.
 *
 * Keys: 32 random bits each (get_random_u32(), never 0), drawn for each
 * key on its own and looked up by value in the owning context's tables
 * (struct hl_nic_mr_keys: one for lkeys, one for rkeys; a draw that
 * collides with a live key of the same table is drawn again). No cursor,
 * slot or salt is in a key, and a context's tables hold only its own keys,
 * so a process's own registrations tell nothing of another context's keys
 * (issue 32: the index half of the old slot ^ salt keys told everyone's).
 *
 * Scope: a region with remote access is bound to one connection of its
 * context (struct hl_nic_reg_mr_in.conn_id), as IB's type-2 memory window
 * is to a QP: the responder's check (hl_nic_mr_lookup_remote()) takes the
 * QP context the write arrived on and compares it with the bound
 * connection's; a destroyed connection has none, so its regions become
 * local only. The region holds a reference on the connection.
 *
 * Failures: each context counts, per requesting device, the writes whose
 * rkey check failed (struct hl_nic_mr_guard); past HL_NIC_RKEY_FREE_FAILS
 * (uAPI) a failure shuts that device out of the context for a backoff that
 * doubles up to HL_NIC_RKEY_BACKOFF_MAX_MS, and checks run one at a time
 * (hl_nic_mr_backoff_ms(); docs/nic.md has the arithmetic of the time to a
 * hit). Each checked failure sends HL_NOTIFIER_EVENT_NIC_KEY_FAULT to the
 * region owner's device.
 */
#ifndef HL_NIC_MR_H_
#define HL_NIC_MR_H_

#include <linux/hashtable.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <uapi/misc/habanalabs.h>

#include "asic.h"

struct hl_ctx;
struct hl_device;
struct hl_nic_conn;
struct hl_vm_mapping;

/* Buckets of a context's key tables: 2^this */
#define HL_NIC_MR_HASH_BITS	7
/* Devices a context keeps rkey failures for (device IDs below this) */
#define HL_NIC_MR_MAX_PEERS	128

/**
 * struct hl_nic_mr_guard - the failed rkey checks of one requesting device
 * against a context.
 * @fails: checks that failed; saturates.
 * @until: jiffies before which the device's writes are not checked.
 */
struct hl_nic_mr_guard {
	unsigned long until;
	u32 fails;
};

/**
 * struct hl_nic_mr_keys - a context's regions by key, and its guards.
 * @lock: Protects @lkeys, @rkeys and @guards; a spinlock taken by the data
 *	paths of every device that writes into the context, under no other
 *	lock of the driver's.
 * @lkeys: regions by lkey (hl_nic_mr.lnode).
 * @rkeys: regions by rkey (hl_nic_mr.rnode).
 * @check_lock: Serialises the rkey checks of the devices past their free
 *	failures (held around one check, hl_nic_mr_lookup_remote(); the
 *	data path takes it with no other lock held, and @lock under it).
 * @guards: by the requesting device's ID.
 */
struct hl_nic_mr_keys {
	spinlock_t lock; /* Protects: lkeys, rkeys, guards */
	struct mutex check_lock; /* Serialises: checks past the free failures */
	DECLARE_HASHTABLE(lkeys, HL_NIC_MR_HASH_BITS);
	DECLARE_HASHTABLE(rkeys, HL_NIC_MR_HASH_BITS);
	struct hl_nic_mr_guard guards[HL_NIC_MR_MAX_PEERS];
};

/**
 * struct hl_nic_mr - a registered memory region.
 * @refcount: see the file comment.
 * @ctx: the owning context (not counted).
 * @mapping: the mapping the region lies in; holds it (mapping->mrs).
 * @node: in hl_nic_ctx.mrs.
 * @lnode: in the context's lkey table while registered.
 * @rnode: in the context's rkey table while registered.
 * @conn: the connection the region is bound to (a reference), or NULL:
 *	local only.
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
	struct hlist_node lnode;
	struct hlist_node rnode;
	struct hl_nic_conn *conn;
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
u32 hl_nic_mr_backoff_ms(u32 fails);
int hl_nic_mr_check(u64 iova, u64 size, u32 access, u32 need, u64 va,
		    u64 len);

/* For nic.c: the ops and the context's set-up and teardown */
void hl_nic_mr_ctx_init(struct hl_ctx *ctx);
int hl_nic_mr_reg(struct hl_ctx *ctx, const struct hl_nic_reg_mr_in *in,
		  struct hl_nic_reg_mr_out *out);
int hl_nic_mr_dereg(struct hl_ctx *ctx, const struct hl_nic_dereg_mr_in *in);
void hl_nic_mr_ctx_close(struct hl_ctx *ctx);

/* For the data path (emu/emu_nic_req.c, emu/emu_nic_resp.c) */
/* The data path's calls (the backend's): asic.h's NIC section */

#endif /* HL_NIC_MR_H_ */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: TEST ONLY knobs (debug.c, built only with
 * CONFIG_HABANALABS_DEBUG): module parameters that exist only for the
 * project's tests, setting one of which taints the kernel, and the bugs
 * they plant. Without CONFIG_HABANALABS_DEBUG the stubs below say "off"
 * and the compiler drops what they guard, so the production module holds
 * none of it; the callers carry no #ifdef.
 *
 * inject_bug: bugs planted on purpose so that the debug-kernel lane can
 * show it catches them.
 */
#ifndef HL_DEBUG_H_
#define HL_DEBUG_H_

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/types.h>

/* The knobs a backend reads (kunit_seed, the fence-signalling bug): asic.h */
#include "asic.h"

struct hl_ctx;

#define HL_INJECT_LEAK		BIT(0)	/* leak an allocation per context */
#define HL_INJECT_RESV_COPY	BIT(1)	/* copy_to_user under a dma_resv lock */
#define HL_INJECT_SIGNAL_ALLOC	BIT(2)	/* GFP_KERNEL in fence signalling */
#define HL_INJECT_MR_NO_SYNC	BIT(3)	/* NIC DEREG_MR does not wait for writes */
#define HL_INJECT_EARLY_RELEASE	BIT(4)	/* no quarantine for late fences */
#define HL_INJECT_MR_ANY_CONN	BIT(5)	/* NIC rkey not bound to its connection */
#define HL_INJECT_CB_LIVE	BIT(6)	/* external queues run the live CB */
#define HL_INJECT_COLL_EARLY	BIT(7)	/* collective slaves do not wait */

#if IS_ENABLED(CONFIG_HABANALABS_DEBUG)
extern unsigned int hl_inject_bug;
extern bool hl_dmabuf_raw_bar_addresses;

/* Whether bug @bug (HL_INJECT_*) is planted (inject_bug) */
static inline bool hl_bug_injected(unsigned int bug)
{
	return unlikely(hl_inject_bug & bug);
}

/* Whether exports carry raw BAR addresses (dmabuf_raw_bar_addresses) */
static inline bool hl_dmabuf_raw_bar(void)
{
	return unlikely(hl_dmabuf_raw_bar_addresses);
}

void hl_bug_ctx_leak(struct hl_ctx *ctx);
int hl_bug_copy_to_user_resv(void __user *to, const void *from,
			     unsigned long len);
#else
static inline bool hl_bug_injected(unsigned int bug)
{
	return false;
}

static inline bool hl_dmabuf_raw_bar(void)
{
	return false;
}

static inline void hl_bug_ctx_leak(struct hl_ctx *ctx)
{
}

static inline int hl_bug_copy_to_user_resv(void __user *to, const void *from,
					   unsigned long len)
{
	return -EFAULT;
}
#endif /* CONFIG_HABANALABS_DEBUG */

#endif /* HL_DEBUG_H_ */

// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: TEST ONLY knobs and the bugs they plant (debug.h). Built
 * only with CONFIG_HABANALABS_DEBUG: the production module has none of
 * this file. Setting any of its parameters taints the kernel.
 */

#include <linux/dma-resv.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "context.h"
#include "debug.h"

unsigned int hl_inject_bug;
module_param_named_unsafe(inject_bug, hl_inject_bug, uint, 0444);
MODULE_PARM_DESC(inject_bug,
		 "TEST ONLY, plants a bug for the debug-kernel lane to catch: 1 = leak an allocation per released context (kmemleak), 2 = copy INFO results to user space under a dma-buf reservation lock (lockdep), 4 = allocate with GFP_KERNEL in the engine's fence-signalling section (lockdep), 8 = NIC DEREG_MR does not wait for the writes in flight into the region (tests/nic's negative control), 16 = release a revoked export's memory with its last reference although fences that may guard it have not signalled (tests/owners/negative-control), 32 = the NIC responder lets a region's rkey work over any connection of its context, not only the one it was registered for (tests/nic's negative control), 64 = a job of an external queue runs the live pages of its kernel CB instead of the copy taken at submission (tests/cs_model's negative control), 128 = the slaves of a collective wait signal its master without waiting for the signal it names (tests/cs_model's collective negative control) (default: 0)");

bool hl_nic_two_copies_on;
module_param_named_unsafe(nic_two_copies, hl_nic_two_copies_on, bool, 0644);
MODULE_PARM_DESC(nic_two_copies,
		 "TEST ONLY, for benchmarks: the emulated NIC copies each byte twice, through a bounce buffer, one device's engine access at a time, as before it moved each byte once; may change at any time (default: false)");

bool hl_dmabuf_raw_bar_addresses;
module_param_named_unsafe(dmabuf_raw_bar_addresses,
			  hl_dmabuf_raw_bar_addresses, bool, 0444);
MODULE_PARM_DESC(dmabuf_raw_bar_addresses,
		 "TEST ONLY, BREAKS DMA: put raw BAR bus addresses in exported sg tables instead of DMA-API addresses for the importer (default: false)");

#if IS_ENABLED(CONFIG_HABANALABS_KUNIT_TEST)
unsigned long hl_kunit_seed = HL_KUNIT_SEED_DEFAULT;
module_param_named_unsafe(kunit_seed, hl_kunit_seed, ulong, 0444);
MODULE_PARM_DESC(kunit_seed,
		 "TEST ONLY: seed of the emulated MMU KUnit test's random mappings (default: 42)");
#endif

/**
 * hl_bug_ctx_leak - HL_INJECT_LEAK: leak an allocation with a context
 * that is being freed (for kmemleak to find).
 * @ctx: the context, about to be freed.
 */
void hl_bug_ctx_leak(struct hl_ctx *ctx)
{
	if (hl_bug_injected(HL_INJECT_LEAK))
		ctx->injected_leak = kmalloc(64, GFP_KERNEL);
}

/**
 * hl_bug_signal_alloc - HL_INJECT_SIGNAL_ALLOC: allocate with GFP_KERNEL,
 * called inside a fence-signalling section: what the annotation is there
 * to catch.
 */
void hl_bug_signal_alloc(void)
{
	if (hl_bug_injected(HL_INJECT_SIGNAL_ALLOC))
		kfree(kmalloc(64, GFP_KERNEL));
}

/**
 * hl_bug_copy_to_user_resv - HL_INJECT_RESV_COPY: copy_to_user() inside a
 * dma-buf reservation lock, the inversion lockdep is primed to catch
 * (dma_resv_lockdep()).
 * @to: user destination.
 * @from: kernel source.
 * @len: bytes.
 *
 * Return: 0, or -EFAULT when not every byte was copied.
 */
int hl_bug_copy_to_user_resv(void __user *to, const void *from,
			     unsigned long len)
{
	struct dma_resv resv;
	unsigned long left;

	dma_resv_init(&resv);
	dma_resv_lock(&resv, NULL);
	left = copy_to_user(to, from, len);
	dma_resv_unlock(&resv);
	dma_resv_fini(&resv);
	return left ? -EFAULT : 0;
}

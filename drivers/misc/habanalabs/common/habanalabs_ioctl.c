// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: ioctl dispatch and HL_IOCTL_INFO.
 *
 * Arguments are extensible: the dispatcher copies min(user size, kernel
 * size) bytes in, zero-fills the rest, refuses a larger user struct with
 * non-zero extra bytes (-E2BIG), calls a handler that takes no user pointer
 * for its argument, and copies min(user size, kernel size) bytes back, also
 * when the handler failed (an output may explain the failure), except when
 * it was interrupted: then the argument stays as the caller gave it.
 *
 * Every ioctl is all or nothing: a call that fails leaves the state as it
 * was. The dispatcher writes the bytes it read back before calling the
 * handler, so an argument the caller cannot write fails with -EFAULT before
 * anything is done; and a handler that creates something registers an undo
 * (hl_ioctl_on_finish()) that runs if the copy back fails anyway (another
 * thread unmapped or protected the page meanwhile). Work that cannot be
 * undone and returns nothing (FREE, UNMAP, destroying a NIC object)
 * succeeds even then (hl_ioctl_no_output()): its copy back only rewrites
 * the caller's own bytes.
 *
 * Owners: a compute-node handler, and its commit or undo, run inside the
 * context's gate (hl_ctx_enter()), which a hard reset, a close and device
 * removal take for write to kill and tear the context down; a handler
 * leaves the gate around every user memory access and every wait
 * (hl_ctx_pause()), and INFO's reply is copied after the handler
 * (hl_ioctl_copy_out()), so none of them waits on user space. A call whose
 * context was killed meanwhile gets -ENODEV, and its commit or undo does
 * not run: the teardown released what the handler made.
 */

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "habanalabs.h"
#include "command_submission.h"
#include "context.h"
#include "debug.h"
#include "device.h"
#include "ioctl.h"
#include "memory.h"

/*
 * A handler gets its argument, copied in, and the call's state, which it
 * hands to hl_ioctl_on_finish() and the other requests to the dispatcher.
 */
typedef int hl_ioctl_t(struct hl_fpriv *fpriv, void *data,
		       struct hl_ioctl_call *call);

/**
 * struct hl_ioctl_desc - one ioctl.
 * @cmd: the command, with the kernel's argument size.
 * @func: its handler.
 */
struct hl_ioctl_desc {
	unsigned int cmd;
	hl_ioctl_t *func;
};

/*
 * INFO's output is copied to user space by the dispatcher, after the
 * handler, outside every section that a reset or removal waits for.
 */
static int hl_info_copy(struct hl_ioctl_call *call, struct hl_info_args *args,
			const void *src, u32 size)
{
	return hl_ioctl_copy_out(call, args->return_pointer, src,
				 min(args->return_size, size));
}

static int hl_info_hw_ip(struct hl_fpriv *fpriv, struct hl_info_args *args,
			 struct hl_ioctl_call *call)
{
	struct hl_device *hdev = fpriv->hdev;
	struct asic_fixed_properties *prop = &hdev->asic_prop;
	struct hl_info_hw_ip_info info = {};

	info.sram_base_address = prop->sram_base_address;
	info.sram_size = prop->sram_size;
	info.dram_base_address = prop->dram_user_base_address;
	info.dram_size = prop->dram_user_size;
	info.device_id = prop->device_id;
	info.module_id = hdev->id;
	info.num_of_events = HL_EVENTS_NUM;
	info.dram_enabled = 1;
	info.tpc_enabled_mask = prop->tpc_enabled_mask;
	info.tpc_enabled_mask_ext = prop->tpc_enabled_mask;
	strscpy(info.cpucp_version, prop->fw_version, sizeof(info.cpucp_version));
	strscpy(info.card_name, prop->card_name, sizeof(info.card_name));
	info.dram_page_size = prop->dram_page_size;
	info.device_mem_alloc_default_page_size = prop->dram_page_size;
	info.revision_id = hdev->pdev->revision;
	info.num_nic_ports = prop->num_nic_ports;
	info.num_queues = prop->num_queues;
	info.host_va_start = prop->va_host_start;
	info.host_va_end = prop->va_host_end;
	info.dram_va_start = prop->va_dram_start;
	info.dram_va_end = prop->va_dram_end;
	info.host_page_size = prop->host_page_size;

	return hl_info_copy(call, args, &info, sizeof(info));
}

static int hl_info_dram_usage(struct hl_fpriv *fpriv, struct hl_info_args *args,
			      struct hl_ioctl_call *call)
{
	struct hl_device *hdev = fpriv->hdev;
	struct hl_info_dram_usage info = {};

	info.dram_free_mem = hdev->asic_prop.dram_user_size -
			     atomic64_read(&hdev->dram_used);
	if (fpriv->ctx)
		info.ctx_dram_mem = atomic64_read(&fpriv->ctx->dram_usage);

	return hl_info_copy(call, args, &info, sizeof(info));
}

static int hl_info_hw_idle(struct hl_fpriv *fpriv, struct hl_info_args *args,
			   struct hl_ioctl_call *call)
{
	struct hl_device *hdev = fpriv->hdev;
	struct hl_info_hw_idle info = {};

	info.is_idle = hdev->asic_funcs->is_device_idle(hdev,
			info.busy_engines_mask_ext, HL_BUSY_ENGINES_MASK_EXT_SIZE);
	info.busy_engines_mask = lower_32_bits(info.busy_engines_mask_ext[0]);

	return hl_info_copy(call, args, &info, sizeof(info));
}

/*
 * The page sizes HL_MEM_OP_ALLOC accepts: the default DRAM page size only;
 * none without a DRAM MMU (ALLOC only accounts there), upstream's 0 for
 * GAUDI
 */
static int hl_info_dev_memalloc_page_sizes(struct hl_fpriv *fpriv,
					   struct hl_info_args *args,
					   struct hl_ioctl_call *call)
{
	const struct asic_fixed_properties *prop = &fpriv->hdev->asic_prop;
	struct hl_info_dev_memalloc_page_sizes info = {};

	if (prop->dram_supports_virtual_memory)
		info.page_order_bitmask = BIT_ULL(ilog2(prop->dram_page_size));

	return hl_info_copy(call, args, &info, sizeof(info));
}

static int hl_info_device_status(struct hl_fpriv *fpriv,
				 struct hl_info_args *args,
				 struct hl_ioctl_call *call)
{
	struct hl_info_device_status info = {};

	info.status = hl_device_status(fpriv->hdev);

	return hl_info_copy(call, args, &info, sizeof(info));
}

static int hl_info_nic_ports(struct hl_fpriv *fpriv, struct hl_info_args *args,
			     struct hl_ioctl_call *call)
{
	struct hl_info_nic_ports *info;
	int rc;

	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;

	rc = hl_nic_info_ports(fpriv->hdev, info);
	if (!rc)
		rc = hl_info_copy(call, args, info, sizeof(*info));
	kfree(info);
	return rc;
}

static int hl_info_page_fault(struct hl_fpriv *fpriv, struct hl_info_args *args,
			      struct hl_ioctl_call *call)
{
	struct hl_info_page_fault_event info;
	struct hl_ctx *ctx = fpriv->ctx;

	if (!ctx)
		return -EINVAL;

	spin_lock(&ctx->fault_lock);
	info = ctx->last_fault;
	spin_unlock(&ctx->fault_lock);

	return hl_info_copy(call, args, &info, sizeof(info));
}

/*
 * Upstream's INFO ops that the emulated device cannot mean: it has no
 * clocks, PLLs, power or energy sensors, PCIe counters, DRAM row
 * replacement, firmware or attestation (docs/uapi.md gives each reason).
 */
static bool hl_info_op_unsupported(u32 op)
{
	switch (op) {
	case HL_INFO_CLK_RATE:
	case HL_INFO_PCI_COUNTERS:
	case HL_INFO_CLK_THROTTLE_REASON:
	case HL_INFO_TOTAL_ENERGY:
	case HL_INFO_PLL_FREQUENCY:
	case HL_INFO_POWER:
	case HL_INFO_DRAM_REPLACED_ROWS:
	case HL_INFO_DRAM_PENDING_ROWS:
	case HL_INFO_SECURED_ATTESTATION:
	case HL_INFO_FW_GENERIC_REQ:
		return true;
	default:
		return false;
	}
}

/*
 * Upstream's error-event ops whose events cannot happen here (no register
 * bus to access illegally, no critical hardware error, no firmware): the
 * reply upstream gives when none happened, all zeros.
 */
static int hl_info_no_event(struct hl_info_args *args,
			    struct hl_ioctl_call *call)
{
	union {
		struct hl_info_razwi_event razwi;
		struct hl_info_hw_err_event hw_err;
		struct hl_info_fw_err_event fw_err;
	} info = {};
	u32 size;

	switch (args->op) {
	case HL_INFO_RAZWI_EVENT:
		size = sizeof(info.razwi);
		break;
	case HL_INFO_HW_ERR_EVENT:
		size = sizeof(info.hw_err);
		break;
	default:
		size = sizeof(info.fw_err);
		break;
	}
	return hl_info_copy(call, args, &info, size);
}

/*
 * HL_INFO_USER_MAPPINGS: upstream returns the mappings it captured at a
 * device page fault, and nothing (0 entries) when it captured none. This
 * driver captures none (the fault itself: HL_INFO_PAGE_FAULT_EVENT).
 */
static int hl_info_user_mappings(struct hl_info_args *args)
{
	args->array_size = 0;
	return 0;
}

/*
 * HL_INFO_SYNC_MANAGER: the first SOB and monitor of dcore dcore_id that
 * user command buffers may use (the driver's SIGNAL, WAIT and collective
 * waits use those below): asic_fixed_properties. A dcore_id above
 * HL_GAUDI_ES_DCORE is -EINVAL. No completion queues (first_available_cq
 * 0).
 */
static int hl_info_sync_manager(struct hl_fpriv *fpriv,
				struct hl_info_args *args,
				struct hl_ioctl_call *call)
{
	const struct asic_fixed_properties *prop = &fpriv->hdev->asic_prop;
	struct hl_info_sync_manager info = {};
	u32 dcore;

	if (!prop->num_sobs)
		return -EOPNOTSUPP;
	if (args->dcore_id >= HL_SM_NUM_DCORES)
		return -EINVAL;
	dcore = array_index_nospec(args->dcore_id, HL_SM_NUM_DCORES);
	info.first_available_sync_object = prop->first_available_sob[dcore];
	info.first_available_monitor = prop->first_available_monitor[dcore];
	return hl_info_copy(call, args, &info, sizeof(info));
}

/*
 * HL_IOCTL_INFO. Errors: listed in the kernel-doc of struct hl_info_args
 * (uAPI header).
 */
static int hl_info_ioctl(struct hl_fpriv *fpriv, void *data,
			 struct hl_ioctl_call *call)
{
	struct hl_info_args *args = data;

	/* Events and counters: ops with argument rules of their own */
	if (hl_events_info_op(args->op))
		return hl_events_info(fpriv, args, call);
	if (args->pad)
		return -EINVAL;
	if (hl_info_op_unsupported(args->op))
		return -EOPNOTSUPP;
	if (!args->return_pointer || !args->return_size)
		return -EINVAL;
	/* Its union member is an input: the size of the caller's array */
	if (args->op == HL_INFO_USER_MAPPINGS)
		return hl_info_user_mappings(args);
	/* Its union member is the dcore */
	if (args->op == HL_INFO_SYNC_MANAGER)
		return hl_info_sync_manager(fpriv, args, call);
	if (args->ctx_id)
		return -EINVAL;

	switch (args->op) {
	case HL_INFO_HW_IP_INFO:
		return hl_info_hw_ip(fpriv, args, call);
	case HL_INFO_DRAM_USAGE:
		return hl_info_dram_usage(fpriv, args, call);
	case HL_INFO_HW_IDLE:
		return hl_info_hw_idle(fpriv, args, call);
	case HL_INFO_DEVICE_STATUS:
		return hl_info_device_status(fpriv, args, call);
	case HL_INFO_DEV_MEM_ALLOC_PAGE_SIZES:
		return hl_info_dev_memalloc_page_sizes(fpriv, args, call);
	case HL_INFO_PAGE_FAULT_EVENT:
		return hl_info_page_fault(fpriv, args, call);
	case HL_INFO_NIC_PORTS:
		return hl_info_nic_ports(fpriv, args, call);
	case HL_INFO_RAZWI_EVENT:
	case HL_INFO_HW_ERR_EVENT:
	case HL_INFO_FW_ERR_EVENT:
		return hl_info_no_event(args, call);
	default:
		return -EINVAL;
	}
}

/*
 * HL_IOCTL_DEBUG: upstream's CoreSight trace and profiling blocks, which
 * the emulated device has not, and its debug mode (HL_DEBUG_OP_SET_MODE),
 * which is the context's: the owner's close ends it, as upstream's context
 * release does. Setting the mode the device is in is -EFAULT, as upstream's.
 * Errors: struct hl_debug_args (uAPI).
 */
static int hl_debug_ioctl(struct hl_fpriv *fpriv, void *data,
			  struct hl_ioctl_call *call)
{
	struct hl_debug_args *args = data;
	struct hl_ctx *ctx = fpriv->ctx;

	if (!ctx || args->op > HL_DEBUG_OP_SET_MODE || args->ctx_id)
		return -EINVAL;
	if (args->op != HL_DEBUG_OP_SET_MODE)
		return -EOPNOTSUPP;
	if (args->enable > 1)
		return -EINVAL;
	if (atomic_xchg(&ctx->debug_mode, args->enable) == args->enable)
		return -EFAULT;
	hl_ioctl_no_output(call);
	return 0;
}

static const struct hl_ioctl_desc hl_ioctls[] = {
	{ HL_IOCTL_INFO, hl_info_ioctl },
	{ HL_IOCTL_MEMORY, hl_mem_ioctl },
	{ HL_IOCTL_CS, hl_events_cs_ioctl },
	{ HL_IOCTL_WAIT_CS, hl_wait_cs_ioctl },
	{ HL_IOCTL_NIC, hl_nic_ioctl },
	{ HL_IOCTL_CB, hl_cb_ioctl },
	{ HL_IOCTL_DEBUG, hl_debug_ioctl },
};

static const struct hl_ioctl_desc hl_ioctls_control[] = {
	{ HL_IOCTL_INFO, hl_info_ioctl },
};

static const struct hl_ioctl_desc *
hl_ioctl_lookup(unsigned int cmd, const struct hl_ioctl_desc *table, size_t n)
{
	size_t i;

	if (_IOC_TYPE(cmd) != 'H')
		return NULL;
	for (i = 0; i < n; i++)
		if (_IOC_NR(table[i].cmd) == _IOC_NR(cmd))
			return _IOC_DIR(table[i].cmd) == _IOC_DIR(cmd) ?
			       &table[i] : NULL;
	return NULL;
}

/* Large enough for every ioctl argument; checked at build time below */
#define HL_IOCTL_MAX_ARG_SIZE	128

/* A second output up to this size needs no allocation (checked below) */
#define HL_IOCTL_MAX_OUT_INLINE	384

/**
 * struct hl_ioctl_call - one ioctl call in progress.
 * @kdata: the argument, copied in; handlers get a pointer to it, and one
 *	to the call (for hl_ioctl_on_finish() and the like).
 * @install_file: a file to install as @install_fd once the result has
 *	reached user space, or NULL.
 * @install_fd: the reserved descriptor for @install_file.
 * @finish: called once the outcome is known (hl_ioctl_on_finish()), or NULL.
 * @finish_priv: its pointer argument.
 * @finish_id: its number argument.
 * @drop: called instead of @finish when the context died before @finish
 *	could run (hl_ioctl_on_drop()), or NULL.
 * @file_only: @finish touches only the file's own state, not its
 *	context's: it runs without the context's gate, also on a context-less
 *	or dead file (hl_ioctl_on_finish_file()).
 * @no_output: the handler returns nothing (hl_ioctl_no_output()).
 * @out_buf: a second output, copied to @out_ptr after the handler
 *	(hl_ioctl_copy_out()): @out_inline, or allocated.
 * @out_ptr: its user address.
 * @out_len: its size.
 * @out_inline: room for a small second output (every INFO reply but
 *	HL_INFO_NIC_PORTS), so that it needs no allocation.
 */
struct hl_ioctl_call {
	u8 kdata[HL_IOCTL_MAX_ARG_SIZE] __aligned(8);
	struct file *install_file;
	int install_fd;
	hl_ioctl_finish_t *finish;
	void *finish_priv;
	u64 finish_id;
	hl_ioctl_drop_t *drop;
	bool file_only;
	bool no_output;
	void *out_buf;
	u64 out_ptr;
	u32 out_len;
	u8 out_inline[HL_IOCTL_MAX_OUT_INLINE] __aligned(8);
};

/**
 * __hl_ioctl_defer_fd_install - install a new file descriptor after the ioctl
 * result was copied to user space.
 * @call: the call, as the dispatcher handed it to the handler.
 * @fd: a descriptor from get_unused_fd_flags().
 * @file: the file; its reference passes to the dispatcher.
 *
 * If the copy to user space fails, the descriptor is put back and the file
 * released, so no error path leaves a live descriptor the caller does not
 * know about.
 */
void __hl_ioctl_defer_fd_install(struct hl_ioctl_call *call, int fd,
				 struct file *file)
{
	call->install_fd = fd;
	call->install_file = file;
}

/**
 * __hl_ioctl_on_finish - run @finish once the ioctl's outcome is known.
 * @call: the call, as the dispatcher handed it to the handler.
 * @finish: called after the result was copied back to user space, with
 *	@committed true when the ioctl returns 0 (the caller has the result),
 *	false when it fails after all (the copy back faulted): then @finish
 *	must undo what the handler did, so that the failed ioctl leaves no
 *	side effect. It must not fail. It runs inside the context's gate
 *	(hl_ctx_enter(); the copy back, which may fault, ran outside it),
 *	and only while the context lives: when a hard reset or removal
 *	killed it meanwhile, @finish does not run (the teardown released
 *	what the handler made) and the drop callback, if any, does.
 * @priv: pointer argument of @finish.
 * @id: number argument of @finish (a handle, an ID, an address).
 *
 * A handler registers at most one; it does so only on success (the
 * dispatcher calls it in any case, with the final outcome).
 */
void __hl_ioctl_on_finish(struct hl_ioctl_call *call, hl_ioctl_finish_t *finish,
			  void *priv, u64 id)
{
	WARN_ON_ONCE(call->finish);
	call->finish = finish;
	call->finish_priv = priv;
	call->finish_id = id;
}

/**
 * __hl_ioctl_on_finish_file - hl_ioctl_on_finish() for an outcome that
 * concerns only the open file (its event notifier), not its context.
 * @call: the call, as the dispatcher handed it to the handler.
 * @finish: as for hl_ioctl_on_finish(), but run in any case, without the
 *	context's gate: it must touch nothing of the context.
 * @priv: pointer argument of @finish.
 * @id: number argument of @finish.
 */
void __hl_ioctl_on_finish_file(struct hl_ioctl_call *call,
			       hl_ioctl_finish_t *finish, void *priv, u64 id)
{
	__hl_ioctl_on_finish(call, finish, priv, id);
	call->file_only = true;
}

/**
 * __hl_ioctl_on_drop - what to do instead of the finish callback when the
 * context died before it could run.
 * @call: the call, as the dispatcher handed it to the handler.
 * @drop: releases what @priv of hl_ioctl_on_finish() holds of its own,
 *	without touching the context's state (the teardown freed that), but
 *	for what the context's structure keeps until its last reference for
 *	such calls (command_submission.c: sig_lock and the per-queue arrays).
 */
void __hl_ioctl_on_drop(struct hl_ioctl_call *call, hl_ioctl_drop_t *drop)
{
	call->drop = drop;
}

/**
 * __hl_ioctl_copy_out - have the dispatcher copy a second output to user
 * space after the handler, outside the sections that reset and removal
 * wait for.
 * @call: the call, as the dispatcher handed it to the handler.
 * @to: the user address.
 * @src: the output, copied now.
 * @size: its size; at most one such output per call.
 *
 * A failed copy fails the ioctl with -EFAULT (so only for outputs whose
 * call has nothing to undo, such as INFO).
 *
 * Return: 0, or -ENOMEM (only above HL_IOCTL_MAX_OUT_INLINE bytes).
 */
int __hl_ioctl_copy_out(struct hl_ioctl_call *call, u64 to, const void *src,
			u32 size)
{
	if (WARN_ON_ONCE(call->out_buf))
		return -EINVAL;
	if (size <= sizeof(call->out_inline)) {
		call->out_buf = memcpy(call->out_inline, src, size);
	} else {
		call->out_buf = kmemdup(src, size, GFP_KERNEL);
		if (!call->out_buf)
			return -ENOMEM;
	}
	call->out_ptr = to;
	call->out_len = size;
	return 0;
}

/*
 * The second output (hl_ioctl_copy_out()). TEST ONLY (HL_INJECT_RESV_COPY):
 * the copy inside a dma-buf reservation lock (debug.c).
 */
static int hl_ioctl_copy_out_now(struct hl_ioctl_call *call)
{
	void __user *to = u64_to_user_ptr(call->out_ptr);

	if (hl_bug_injected(HL_INJECT_RESV_COPY))
		return hl_bug_copy_to_user_resv(to, call->out_buf,
						call->out_len);
	return copy_to_user(to, call->out_buf, call->out_len) ? -EFAULT : 0;
}

/**
 * __hl_ioctl_no_output - the handler succeeded and returns nothing.
 * @call: the call, as the dispatcher handed it to the handler.
 *
 * For work that cannot be undone and has no result (FREE, UNMAP): the copy
 * back then only rewrites the caller's own bytes, which the dispatcher
 * already wrote once before the handler ran, so if it fails after all
 * (another thread unmapped the page meanwhile) the call still succeeded and
 * says so, rather than failing with its work done.
 */
void __hl_ioctl_no_output(struct hl_ioctl_call *call)
{
	call->no_output = true;
}

/*
 * TEST ONLY: debugfs fail_copy_out counts down the copies back to user
 * space that fail as if the page had gone, so that tests reach the undo
 * paths. Returns true when this one is to fail.
 */
static bool hl_ioctl_fail_copy_out(struct hl_device *hdev)
{
	return atomic_add_unless(&hdev->fail_copy_out, -1, 0);
}

static bool hl_ioctl_interrupted(long rc)
{
	return rc == -EINTR || rc == -ERESTARTSYS || rc == -ERESTARTNOINTR ||
	       rc == -ERESTARTNOHAND || rc == -ERESTART_RESTARTBLOCK;
}

static long hl_ioctl_dispatch(struct file *filp, unsigned int cmd,
			      unsigned long arg,
			      const struct hl_ioctl_desc *table, size_t n)
{
	struct hl_fpriv *fpriv = filp->private_data;
	struct hl_device *hdev = fpriv->hdev;
	struct hl_ctx *ctx = fpriv->ctx;
	struct hl_ioctl_call call = {};
	void *kdata = call.kdata;
	void __user *uarg = (void __user *)arg;
	const struct hl_ioctl_desc *desc;
	size_t usize = _IOC_SIZE(cmd), ksize;
	int idx;
	long rc;

	desc = hl_ioctl_lookup(cmd, table, n);
	if (!desc)
		return -ENOTTY;

	ksize = _IOC_SIZE(desc->cmd);
	if (WARN_ON_ONCE(ksize > sizeof(call.kdata)))
		return -ENOTTY;

	rc = copy_struct_from_user(kdata, ksize, uarg, usize);
	if (rc)
		return rc;

	/*
	 * An argument that cannot be written back fails now, before the
	 * handler changes anything: write back the bytes just read.
	 */
	if ((_IOC_DIR(cmd) & _IOC_READ) &&
	    copy_to_user(uarg, kdata, min(usize, ksize)))
		return -EFAULT;

	/*
	 * A compute handler runs inside its context's gate, which a hard
	 * reset or removal waits for: handlers leave it around user memory
	 * accesses and waits (hl_ctx_pause()). A control-node handler has
	 * no context and runs in a device section; it touches no user memory
	 * (its output is copied below).
	 */
	if (READ_ONCE(fpriv->dead) &&
	    hl_events_dead_file_ioctl(fpriv, cmd, kdata)) {
		/*
		 * A file a reset killed still reads and ends its event
		 * notifications (events.c): the file's state, not the dead
		 * context's
		 */
		idx = hl_device_enter(hdev);
		rc = hl_device_unplugged(hdev) ? -ENODEV :
		     desc->func(fpriv, kdata, &call);
		hl_device_exit(hdev, idx);
	} else if (ctx) {
		rc = READ_ONCE(fpriv->dead) ? -ENODEV : hl_ctx_enter(ctx);
		if (!rc) {
			rc = desc->func(fpriv, kdata, &call);
			hl_ctx_exit(ctx);
		}
	} else {
		idx = hl_device_enter(hdev);
		if (hl_device_unplugged(hdev))
			rc = -ENODEV;
		else
			rc = desc->func(fpriv, kdata, &call);
		hl_device_exit(hdev, idx);
	}

	if (call.out_buf) {
		if (!rc)
			rc = hl_ioctl_copy_out_now(&call);
		if (call.out_buf != call.out_inline)
			kfree(call.out_buf);
	}

	/*
	 * Copied back on error too (WAIT_CS returns a status with -EIO), but
	 * not when interrupted: then the argument stays as the caller gave
	 * it, so that retrying the call repeats the same request.
	 */
	if ((_IOC_DIR(cmd) & _IOC_READ) && !hl_ioctl_interrupted(rc) &&
	    (copy_to_user(uarg, kdata, min(usize, ksize)) ||
	     (!rc && unlikely(hl_ioctl_fail_copy_out(hdev)))) &&
	    !rc && !call.no_output)
		rc = -EFAULT;

	/*
	 * The commit or undo runs only on a live context: one that a reset
	 * or removal killed meanwhile was torn down with what the handler
	 * made, and the call fails (its result refers to nothing).
	 */
	if (call.finish && call.file_only) {
		call.finish(fpriv, call.finish_priv, call.finish_id, !rc);
	} else if (call.finish) {
		if (!hl_ctx_enter(ctx)) {
			call.finish(fpriv, call.finish_priv, call.finish_id,
				    !rc);
			hl_ctx_exit(ctx);
		} else {
			if (call.drop)
				call.drop(call.finish_priv);
			rc = -ENODEV;
		}
	}

	if (call.install_file) {
		if (rc) {
			put_unused_fd(call.install_fd);
			fput(call.install_file);
		} else {
			fd_install(call.install_fd, call.install_file);
		}
	}

	return rc;
}

long hl_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	return hl_ioctl_dispatch(filp, cmd, arg, hl_ioctls,
				 ARRAY_SIZE(hl_ioctls));
}

/* The control node serves HL_IOCTL_INFO only; anything else is -ENOTTY */
long hl_ioctl_control(struct file *filp, unsigned int cmd, unsigned long arg)
{
	return hl_ioctl_dispatch(filp, cmd, arg, hl_ioctls_control,
				 ARRAY_SIZE(hl_ioctls_control));
}

static_assert(sizeof(struct hl_info_args) <= HL_IOCTL_MAX_ARG_SIZE);
/* Every INFO reply but NIC_PORTS's (which may fail with -ENOMEM) */
static_assert(sizeof(struct hl_info_hw_ip_info) <= HL_IOCTL_MAX_OUT_INLINE);
/* Upstream's fields of INFO outputs at upstream's offsets, ours after them */
static_assert(offsetof(struct hl_info_hw_ip_info, device_mem_alloc_default_page_size) == 248);
static_assert(offsetof(struct hl_info_hw_ip_info, revision_id) == 277);
static_assert(offsetof(struct hl_info_hw_ip_info, reserved_dram_size) == 296);
static_assert(offsetof(struct hl_info_hw_ip_info, num_nic_ports) == 304);
static_assert(offsetof(struct hl_info_page_fault_event, is_write) == 24);
static_assert(sizeof(union hl_mem_args) <= HL_IOCTL_MAX_ARG_SIZE);
static_assert(sizeof(union hl_cs_args) <= HL_IOCTL_MAX_ARG_SIZE);
static_assert(sizeof(union hl_wait_cs_args) <= HL_IOCTL_MAX_ARG_SIZE);
static_assert(sizeof(struct hl_debug_args) <= HL_IOCTL_MAX_ARG_SIZE);
static_assert(sizeof(struct hl_info_razwi_event) <= HL_IOCTL_MAX_OUT_INLINE);
/* Grown with upstream's fields; old callers pass the earlier sizes */
static_assert(sizeof(struct hl_cs_out) == 24);
static_assert(sizeof(struct hl_wait_cs_in) == 56);
static_assert(sizeof(struct hl_page_fault_info) ==
	      offsetof(struct hl_info_page_fault_event, is_write));
static_assert(sizeof(struct hl_nic_args) <= HL_IOCTL_MAX_ARG_SIZE);
static_assert(sizeof(union hl_cb_args) <= HL_IOCTL_MAX_ARG_SIZE);

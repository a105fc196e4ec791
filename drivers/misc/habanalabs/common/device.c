// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: device lifecycle, character devices, open and release.
 *
 * Lifetime: struct hl_device is refcounted. The PCI binding holds one
 * reference, each of the two node devices holds one (dropped by their
 * release callbacks, i.e. when sysfs and open files are done with them),
 * each open file holds one and each context holds one. Removal (PCI unbind
 * or module unload) stops the hardware at once; what is left answers -ENODEV
 * until the last reference goes.
 */

#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "habanalabs.h"
#include "accel.h"
#include "context.h"
#include "debugfs.h"
#include "device.h"
#include "dmabuf.h"
#include "ioctl.h"
#include "memory.h"
#include "mmu.h"
#include "scrub.h"
#include "sysfs.h"

static void hl_device_release(struct kref *ref)
{
	struct hl_device *hdev = container_of(ref, struct hl_device, refcount);

	hl_mem_fini(hdev);
	hl_mmu_fini(hdev);
	ida_destroy(&hdev->asid_ida);
	mutex_destroy(&hdev->mmu_lock);
	mutex_destroy(&hdev->dmabuf_lock);
	mutex_destroy(&hdev->ctx_list_lock);
	cleanup_srcu_struct(&hdev->unplug_srcu);
	mutex_destroy(&hdev->fpriv_list_lock);
	pci_dev_put(hdev->pdev);
	kfree(hdev);
}

void hl_device_get(struct hl_device *hdev)
{
	kref_get(&hdev->refcount);
}

void hl_device_put(struct hl_device *hdev)
{
	kref_put(&hdev->refcount, hl_device_release);
}

/**
 * hl_device_enter - start a section that may touch the hardware.
 * @hdev: the device.
 *
 * The section runs until hl_device_exit(); inside it, the hardware stays
 * mapped unless hl_device_unplugged() says the device is gone, which the
 * section must check before touching it. Removal waits for every section.
 *
 * Return: the SRCU index to pass to hl_device_exit().
 */
int hl_device_enter(struct hl_device *hdev)
	__acquires(&hdev->unplug_srcu)
{
	return srcu_read_lock(&hdev->unplug_srcu);
}

/**
 * hl_device_exit - end a section started by hl_device_enter().
 * @hdev: the device.
 * @idx: the index hl_device_enter() returned.
 */
void hl_device_exit(struct hl_device *hdev, int idx)
	__releases(&hdev->unplug_srcu)
{
	srcu_read_unlock(&hdev->unplug_srcu, idx);
}

/**
 * hl_device_unplugged - whether the device has been removed.
 * @hdev: the device.
 *
 * Return: true once removal has started; inside a hl_device_enter()
 * section, false means the hardware stays usable until hl_device_exit().
 */
bool hl_device_unplugged(struct hl_device *hdev)
{
	return READ_ONCE(hdev->unplugged);
}

enum hl_device_status hl_device_status(struct hl_device *hdev)
{
	if (hl_device_unplugged(hdev))
		return HL_DEVICE_STATUS_MALFUNCTION;
	return READ_ONCE(hdev->status);
}

bool hl_device_operational(struct hl_device *hdev)
{
	return hl_device_status(hdev) == HL_DEVICE_STATUS_OPERATIONAL;
}

int hl_device_open_hdev(struct hl_device *hdev, struct inode *inode,
			struct file *filp)
{
	struct hl_fpriv *fpriv;
	int idx, rc;

	/*
	 * Without a DRAM MMU the context takes the whole user DRAM, clean:
	 * wait for the scrubber here, with no lock held, not in
	 * hl_ctx_create()
	 */
	if (!hdev->asic_prop.dram_supports_virtual_memory &&
	    !hl_scrub_wait_idle(hdev, MAX_SCHEDULE_TIMEOUT))
		return -EINTR;

	fpriv = kzalloc(sizeof(*fpriv), GFP_KERNEL);
	if (!fpriv)
		return -ENOMEM;

	idx = hl_device_enter(hdev);
	mutex_lock(&hdev->fpriv_list_lock);
	if (hl_device_unplugged(hdev)) {
		rc = -ENODEV;
		goto err_unlock;
	}
	if (!hl_device_operational(hdev)) {
		hl_dbg(hdev, DEV, "open refused: device is not operational\n");
		rc = -EPERM;
		goto err_unlock;
	}
	if (hdev->compute_fpriv) {
		rc = -EBUSY;
		goto err_unlock;
	}

	fpriv->ctx = hl_ctx_create(hdev);
	if (IS_ERR(fpriv->ctx)) {
		rc = PTR_ERR(fpriv->ctx);
		goto err_unlock;
	}

	hl_device_get(hdev);
	fpriv->hdev = hdev;
	hdev->compute_fpriv = fpriv;
	mutex_unlock(&hdev->fpriv_list_lock);
	hl_device_exit(hdev, idx);

	filp->private_data = fpriv;
	return nonseekable_open(inode, filp);

err_unlock:
	mutex_unlock(&hdev->fpriv_list_lock);
	hl_device_exit(hdev, idx);
	kfree(fpriv);
	return rc;
}

static int hl_device_open(struct inode *inode, struct file *filp)
{
	return hl_device_open_hdev(container_of(inode->i_cdev, struct hl_device,
						cdev), inode, filp);
}

static int hl_device_release_file(struct inode *inode, struct file *filp)
{
	struct hl_fpriv *fpriv = filp->private_data;
	struct hl_device *hdev = fpriv->hdev;

	/*
	 * Everything of the context goes before another can open: its work
	 * is cancelled, only what its exports hold stays (context.c).
	 */
	hl_ctx_teardown(fpriv->ctx);

	mutex_lock(&hdev->fpriv_list_lock);
	/* After a hard reset, the node may have a new owner already */
	if (hdev->compute_fpriv == fpriv)
		hdev->compute_fpriv = NULL;
	mutex_unlock(&hdev->fpriv_list_lock);

	hl_events_fpriv_fini(fpriv);
	hl_ctx_put(fpriv->ctx);
	hl_device_put(hdev);
	kfree(fpriv);
	return 0;
}

static int hl_device_open_ctrl_hdev(struct hl_device *hdev,
				    struct inode *inode, struct file *filp)
{
	struct hl_fpriv *fpriv;

	if (hl_device_unplugged(hdev))
		return -ENODEV;

	fpriv = kzalloc(sizeof(*fpriv), GFP_KERNEL);
	if (!fpriv)
		return -ENOMEM;

	hl_device_get(hdev);
	fpriv->hdev = hdev;
	fpriv->is_control = true;
	filp->private_data = fpriv;
	return nonseekable_open(inode, filp);
}

static int hl_device_open_ctrl(struct inode *inode, struct file *filp)
{
	return hl_device_open_ctrl_hdev(container_of(inode->i_cdev,
						     struct hl_device, cdev_ctrl),
					inode, filp);
}

static int hl_device_release_ctrl(struct inode *inode, struct file *filp)
{
	struct hl_fpriv *fpriv = filp->private_data;

	hl_events_fpriv_fini(fpriv);
	hl_device_put(fpriv->hdev);
	kfree(fpriv);
	return 0;
}

static const struct file_operations hl_ops = {
	.owner = THIS_MODULE,
	.open = hl_device_open,
	.release = hl_device_release_file,
	.unlocked_ioctl = hl_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = hl_cb_mmap,
	.llseek = noop_llseek,
};

static const struct file_operations hl_ctrl_ops = {
	.owner = THIS_MODULE,
	.open = hl_device_open_ctrl,
	.release = hl_device_release_ctrl,
	.unlocked_ioctl = hl_ioctl_control,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

#if IS_ENABLED(CONFIG_DRM_ACCEL)
static int hl_accel_open_ctrl(struct inode *inode, struct file *filp)
{
	return hl_device_open_ctrl_hdev(container_of(inode->i_cdev,
						     struct hl_device,
						     cdev_accel_ctrl),
					inode, filp);
}

/* The accel nodes' files are the same as hlN's and hl_controlDN's */
const struct file_operations hl_accel_compute_ops = {
	.owner = THIS_MODULE,
	.open = hl_accel_open,
	.release = hl_device_release_file,
	.unlocked_ioctl = hl_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = hl_cb_mmap,
	.llseek = noop_llseek,
};

const struct file_operations hl_accel_ctrl_ops = {
	.owner = THIS_MODULE,
	.open = hl_accel_open_ctrl,
	.release = hl_device_release_ctrl,
	.unlocked_ioctl = hl_ioctl_control,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};
#endif

static void hl_node_release(struct device *dev)
{
	hl_device_put(dev_get_drvdata(dev));
}

static void hl_node_init(struct hl_device *hdev, struct device *dev, int minor,
			 const struct attribute_group **groups)
{
	device_initialize(dev);
	dev->devt = MKDEV(MAJOR(hl_devt), minor);
	dev->class = &hl_class;
	dev->parent = hdev->dev;
	dev->groups = groups;
	dev->release = hl_node_release;
	dev_set_drvdata(dev, hdev);
	/* Dropped by hl_node_release() */
	hl_device_get(hdev);
}

static int hl_nodes_add(struct hl_device *hdev)
{
	int rc;

	hl_node_init(hdev, &hdev->dev_obj, hdev->id * 2, hl_dev_groups);
	hl_node_init(hdev, &hdev->dev_ctrl_obj, hdev->id * 2 + 1, NULL);

	rc = dev_set_name(&hdev->dev_obj, "hl%d", hdev->id);
	if (rc)
		goto err_put_devices;
	rc = dev_set_name(&hdev->dev_ctrl_obj, "hl_controlD%d", hdev->id);
	if (rc)
		goto err_put_devices;

	cdev_init(&hdev->cdev, &hl_ops);
	hdev->cdev.owner = THIS_MODULE;
	cdev_init(&hdev->cdev_ctrl, &hl_ctrl_ops);
	hdev->cdev_ctrl.owner = THIS_MODULE;

	rc = cdev_device_add(&hdev->cdev, &hdev->dev_obj);
	if (rc)
		goto err_put_devices;
	rc = cdev_device_add(&hdev->cdev_ctrl, &hdev->dev_ctrl_obj);
	if (rc)
		goto err_del_compute;

	return 0;

err_del_compute:
	cdev_device_del(&hdev->cdev, &hdev->dev_obj);
err_put_devices:
	put_device(&hdev->dev_ctrl_obj);
	put_device(&hdev->dev_obj);
	return rc;
}

static void hl_nodes_del(struct hl_device *hdev)
{
	cdev_device_del(&hdev->cdev_ctrl, &hdev->dev_ctrl_obj);
	cdev_device_del(&hdev->cdev, &hdev->dev_obj);
	put_device(&hdev->dev_ctrl_obj);
	put_device(&hdev->dev_obj);
}

/**
 * hl_device_init - bring up a probed device and publish its nodes.
 * @hdev: the device, with pdev, id and asic_funcs set.
 *
 * Return: 0 or a negative errno; on error everything done is undone.
 */
int hl_device_init(struct hl_device *hdev)
{
	int rc;

	rc = hdev->asic_funcs->early_init(hdev);
	if (rc)
		return rc;

	/* The pools live until hl_device_release(): contexts may outlive us */
	rc = hl_mmu_init(hdev);
	if (rc)
		goto err_early_fini;
	rc = hl_mem_init(hdev);
	if (rc)
		goto err_early_fini;

	rc = hdev->asic_funcs->hw_init(hdev);
	if (rc)
		goto err_early_fini;

	/* The first scrub of the DRAM, in the background */
	hl_scrub_start(hdev);
	hl_debugfs_add_device(hdev);
	hl_dmabuf_debugfs_init(hdev);

	/* Opens may start as soon as the nodes exist */
	WRITE_ONCE(hdev->status, HL_DEVICE_STATUS_OPERATIONAL);

	rc = hl_nodes_add(hdev);
	if (rc)
		goto err_debugfs_remove;
	/*
	 * Opens may have come through the nodes already: a failure leaves
	 * the device without its accel nodes rather than unwinding them
	 */
	rc = hl_accel_add(hdev);
	if (rc)
		hl_err(hdev, "no accel nodes: %d\n", rc);

	hl_info(hdev, "%s: %llu MiB HBM, nodes hl%d and hl_controlD%d\n",
		hdev->asic_prop.card_name, hdev->asic_prop.dram_size >> 20,
		hdev->id, hdev->id);
	return 0;

err_debugfs_remove:
	WRITE_ONCE(hdev->status, HL_DEVICE_STATUS_MALFUNCTION);
	hl_debugfs_remove_device(hdev);
	hl_scrub_stop(hdev);
	hdev->asic_funcs->hw_fini(hdev);
err_early_fini:
	hdev->asic_funcs->early_fini(hdev);
	return rc;
}

/**
 * hl_device_hard_reset - reset a device with whatever runs on it.
 * @hdev: the device.
 *
 * The open compute file, if any, is killed: its ioctls get -ENODEV from
 * then on (it can only be closed) and its context is torn down; running
 * submissions fail (WAIT_CS on a new file cannot see them; importers see
 * their fences signal with an error); exports are revoked as on removal
 * and waited for; the context's NIC connections are destroyed, which
 * flushes the peers' work on them; all user HBM is scrubbed. Then the
 * engines start again and a new open gets a working device.
 *
 * Called with hdev->reset_lock held.
 *
 * Return: 0, -ENODEV the device is going away or not operational, or the
 * error of restarting the engines (the device is then MALFUNCTION).
 */
int hl_device_hard_reset(struct hl_device *hdev)
{
	struct asic_fixed_properties *prop = &hdev->asic_prop;
	struct hl_fpriv *fpriv;
	struct hl_ctx *ctx = NULL;
	int rc;

	lockdep_assert_held(&hdev->reset_lock);
	mutex_lock(&hdev->fpriv_list_lock);
	if (!hl_device_operational(hdev)) {
		mutex_unlock(&hdev->fpriv_list_lock);
		return -ENODEV;
	}
	WRITE_ONCE(hdev->status, HL_DEVICE_STATUS_IN_RESET);
	fpriv = hdev->compute_fpriv;
	if (fpriv) {
		WRITE_ONCE(fpriv->dead, true);
		ctx = fpriv->ctx;
		hl_ctx_get(ctx);
		hdev->compute_fpriv = NULL;
	}
	/*
	 * Marks the file killed: under the lock, which the file's release
	 * takes before it frees the file (the reset holds the context only)
	 */
	hl_events_device_reset(hdev, fpriv);
	mutex_unlock(&hdev->fpriv_list_lock);
	hl_info(hdev, "hard reset%s\n", fpriv ? " of a device in use" : "");

	/*
	 * The NIC's waits end (an endless CQ_WAIT too) and the peers see the
	 * context go before its links do, so that their work in flight ends
	 * REMOTE_ERR as at a close (LINK_DOWN is the unbind's). Then stop
	 * the engines: jobs fail, fences signal, waiting ioctls return (a
	 * job queued meanwhile is refused: the engines stay stopped until
	 * hw_init below). The grace period waits for the sections that touch
	 * the hardware without a context (control-node INFO, importers);
	 * none of them waits on user space. The dead file's ioctls are
	 * waited for by the teardown below, at its context's gate, where
	 * none waits on user space either (a user copy, a pin or a wait
	 * leaves the gate; it finds the context dead when it comes back).
	 */
	if (ctx)
		hl_nic_ctx_kill(ctx);
	hdev->asic_funcs->hw_fini(hdev);
	synchronize_srcu(&hdev->unplug_srcu);

	/*
	 * Before the revocation: an EXPORT of the dead file still inside
	 * the gate publishes after it only to be refused (hl_dmabuf_export())
	 */
	if (ctx)
		WRITE_ONCE(ctx->killed, true);
	hl_dmabuf_revoke_all(hdev, false);
	if (ctx) {
		/* If its file's close tears it down, this waits until it is done */
		hl_ctx_teardown(ctx);
		hl_ctx_put(ctx);
	}
	hdev->asic_funcs->scrub_dram(hdev, prop->dram_user_base_address,
				     prop->dram_user_size);
	rc = hdev->asic_funcs->hw_init(hdev);
	if (rc)
		hl_err(hdev, "hard reset failed to restart the engines: %d\n",
		       rc);

	mutex_lock(&hdev->fpriv_list_lock);
	WRITE_ONCE(hdev->status, rc ? HL_DEVICE_STATUS_MALFUNCTION :
				      HL_DEVICE_STATUS_OPERATIONAL);
	mutex_unlock(&hdev->fpriv_list_lock);
	return rc;
}

/**
 * hl_device_fini - stop a device that is going away.
 * @hdev: the device.
 *
 * After it returns, no code path touches the hardware: new opens and ioctls
 * get -ENODEV, sections already inside hl_device_enter() have finished,
 * every context is dead (hl_ctx_kill_all()) and no teardown is running.
 */
void hl_device_fini(struct hl_device *hdev)
{
	bool was_operational;
	struct hl_ctx *ctx;

	mutex_lock(&hdev->reset_lock);
	mutex_lock(&hdev->fpriv_list_lock);
	was_operational = hl_device_operational(hdev);
	WRITE_ONCE(hdev->status, HL_DEVICE_STATUS_MALFUNCTION);
	WRITE_ONCE(hdev->unplugged, true);
	mutex_unlock(&hdev->fpriv_list_lock);

	/*
	 * Stop the engines first: their jobs fail and signal their fences,
	 * which releases ioctls waiting on them, so the grace period below
	 * ends; and a revocation must not wait for a job that waits for user
	 * space. The page tables and HBM stay mapped until early_fini. (After
	 * a failed reset the engines are stopped already.)
	 */
	hl_scrub_stop(hdev);
	if (was_operational)
		hdev->asic_funcs->hw_fini(hdev);
	/* NIC waits end (an endless CQ_WAIT too), peers see the contexts go */
	mutex_lock(&hdev->ctx_list_lock);
	list_for_each_entry(ctx, &hdev->ctx_list, node)
		hl_nic_ctx_kill(ctx);
	mutex_unlock(&hdev->ctx_list_lock);

	/*
	 * Importers must let go of the BAR before it goes: revoke, wait for
	 * their mappings and fences; no export made from now on escapes.
	 */
	hl_dmabuf_revoke_all(hdev, true);
	synchronize_srcu(&hdev->unplug_srcu);

	/*
	 * Contexts may outlive the device (open files): kill them, so that
	 * no ioctl, commit or undo uses the hardware from now on, and let
	 * nothing of theirs stay DMA-mapped for a function the driver lets
	 * go of; closes in progress finish first.
	 */
	hl_ctx_kill_all(hdev);

	hl_accel_del(hdev);
	hl_nodes_del(hdev);
	hl_debugfs_remove_device(hdev);
	hdev->asic_funcs->early_fini(hdev);
	mutex_unlock(&hdev->reset_lock);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: module glue and PCI probe/remove.
 *
 * Binding policy: the emulated ASIC lives on QEMU's ivshmem-plain device, a
 * generic shared-memory device that other software uses too. The driver
 * therefore never binds to it by itself: its id-table entry is
 * override-only, so it binds only to devices whose driver_override names
 * "habanalabs":
 *
 *   echo habanalabs > /sys/bus/pci/devices/<bdf>/driver_override
 *   echo <bdf> > /sys/bus/pci/drivers_probe
 *
 * or, as a convenience, when loaded with bind_ivshmem=1, which sets that
 * override on every unbound ivshmem device at load time. The table is not
 * exported as module aliases, so no device autoloads the module.
 */

#include <linux/idr.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "habanalabs.h"
#include "accel.h"
#include "command_buffer.h"
#include "debugfs.h"
#include "device.h"
#include "dmabuf.h"

#define PCI_VENDOR_ID_REDHAT_QUMRANET	0x1af4
#define PCI_DEVICE_ID_IVSHMEM		0x1110

/*
 * Module parameters: every one of the driver's, here. The others read them
 * through habanalabs.h (READ_ONCE() for the 0644 ones, which sysfs may
 * change at any time). Per-device switches are debugfs files (debugfs.c).
 */

static int hl_param_set_bounded_uint(const char *val,
				     const struct kernel_param *kp, u32 max)
{
	unsigned int n;
	int rc;

	rc = kstrtouint(val, 0, &n);
	if (rc)
		return rc;
	if (!n || n > max)
		return -EINVAL;
	*(unsigned int *)kp->arg = n;
	return 0;
}

static int hl_param_set_job_timeout_max(const char *val,
					const struct kernel_param *kp)
{
	return hl_param_set_bounded_uint(val, kp, 24 * 3600);
}

static int hl_param_set_max_pending_cs(const char *val,
				       const struct kernel_param *kp)
{
	return hl_param_set_bounded_uint(val, kp, 65536);
}

static const struct kernel_param_ops hl_job_timeout_max_ops = {
	.set = hl_param_set_job_timeout_max,
	.get = param_get_uint,
};

static const struct kernel_param_ops hl_max_pending_cs_ops = {
	.set = hl_param_set_max_pending_cs,
	.get = param_get_uint,
};

/*
 * p2p_policy: the string is kept as given (sysfs shows it) and parsed here,
 * once, into hl_p2p_policy; anything but "iommu" is "strict".
 */
static int hl_param_set_p2p_policy(const char *val,
				   const struct kernel_param *kp)
{
	int rc;

	rc = param_set_charp(val, kp);
	if (rc)
		return rc;
	hl_p2p_policy = sysfs_streq(val, "iommu") ? HL_P2P_IOMMU : HL_P2P_STRICT;
	return 0;
}

static const struct kernel_param_ops hl_p2p_policy_ops = {
	.set = hl_param_set_p2p_policy,
	.get = param_get_charp,
	.free = param_free_charp,
};

/*
 * asic: the string is kept as given (sysfs shows it) and parsed here, once,
 * into hl_identity; an unknown name fails the load (EINVAL).
 */
static int hl_param_set_asic(const char *val, const struct kernel_param *kp)
{
	enum hl_identity identity;
	int rc;

	if (sysfs_streq(val, "emu"))
		identity = HL_IDENTITY_EMU;
	else if (sysfs_streq(val, "gaudi"))
		identity = HL_IDENTITY_GAUDI;
	else
		return -EINVAL;
	rc = param_set_charp(val, kp);
	if (rc)
		return rc;
	hl_identity = identity;
	return 0;
}

static const struct kernel_param_ops hl_asic_ops = {
	.set = hl_param_set_asic,
	.get = param_get_charp,
	.free = param_free_charp,
};

static bool bind_ivshmem;
module_param(bind_ivshmem, bool, 0444);
MODULE_PARM_DESC(bind_ivshmem,
		 "Bind to every unbound ivshmem-plain device at load time as an emulated accelerator (default: false)");

enum hl_p2p_policy hl_p2p_policy = HL_P2P_STRICT;
static char *p2p_policy = "strict";
module_param_cb(p2p_policy, &hl_p2p_policy_ops, &p2p_policy, 0444);
__MODULE_PARM_TYPE(p2p_policy, "charp");
MODULE_PARM_DESC(p2p_policy,
		 "When pci_p2pdma_distance() refuses an importer: \"strict\" refuses too, \"iommu\" allows one under the same host bridge behind an IOMMU (default: strict)");

enum hl_identity hl_identity = HL_IDENTITY_EMU;
static char *asic = "emu";
module_param_cb(asic, &hl_asic_ops, &asic, 0444);
__MODULE_PARM_TYPE(asic, "charp");
MODULE_PARM_DESC(asic,
		 "What the devices present themselves as: \"emu\", the emulated ASIC with its function's PCI device ID, or \"gaudi\", a GAUDI as hl-thunk recognises one (HW_IP_INFO device_id 0x1000, sysfs device_type GAUDI) (default: emu)");

bool hl_accel_nodes;
module_param_named(accel_nodes, hl_accel_nodes, bool, 0444);
MODULE_PARM_DESC(accel_nodes,
		 "Also publish each device as upstream's driver does, /dev/accel/accelN (with /sys/class/accel/accelN/pci_addr) and /dev/accel/accel_controlDN, the same files as /dev/hlN and /dev/hl_controlDN; needs a kernel with CONFIG_DRM_ACCEL (default: false)");

bool hl_memory_scrub = true;
module_param_named(memory_scrub, hl_memory_scrub, bool, 0644);
MODULE_PARM_DESC(memory_scrub,
		 "Zero device memory, in the background, when it is released and once after probe, so that allocations start zeroed and no user reads another's data (default: true)");

unsigned int hl_timeout_locked = 30;
module_param_named(timeout_locked, hl_timeout_locked, uint, 0644);
MODULE_PARM_DESC(timeout_locked,
		 "Default job timeout in seconds, for a CS that gives none; 0 means job_timeout_max (default: 30)");

unsigned int hl_job_timeout_max = 60;
module_param_cb(job_timeout_max, &hl_job_timeout_max_ops, &hl_job_timeout_max,
		0644);
MODULE_PARM_DESC(job_timeout_max,
		 "Upper bound in seconds on any job's run time from its submission, 1..86400: a larger CS timeout is clamped to it, and the job is aborted past it (default: 60)");

unsigned int hl_max_pending_cs = 1024;
module_param_cb(max_pending_cs, &hl_max_pending_cs_ops, &hl_max_pending_cs,
		0644);
MODULE_PARM_DESC(max_pending_cs,
		 "Submissions of one context in flight at most, 1..65536; HL_IOCTL_CS fails with EAGAIN past it (default: 1024)");

char *hl_nic_links = "all";
module_param_named(nic_links, hl_nic_links, charp, 0444);
MODULE_PARM_DESC(nic_links,
		 "NIC cabling: \"all\" (port P of device D to port D of device P, devices 0-7), \"none\", or \"D.P-E.Q[,...]\" by module id and port (default: all)");

unsigned int hl_dbg_mask = HL_DBG_ALL;
module_param_named(debug_mask, hl_dbg_mask, uint, 0644);
MODULE_PARM_DESC(debug_mask,
		 "Debug message categories hl_dbg() prints (then subject to dynamic debug): 0x1 device, 0x2 memory, 0x4 CS, 0x8 dma-buf, 0x10 NIC, 0x20 emulated engines, 0x40 MMU faults (default: 0x7f, all)");

/* The lockdep classes of the devices' engine_access_rwsem, by index */
static struct lock_class_key hl_engine_access_keys[HL_MAX_DEVICES];

dev_t hl_devt;
static DEFINE_IDA(hl_dev_ida);

/* Deferred releases (context.c); flushed before the module goes */
struct workqueue_struct *hl_wq;

const struct class hl_class = {
	.name = HL_NAME,
};

static const struct pci_device_id hl_pci_ids[] = {
	{ PCI_DEVICE_DRIVER_OVERRIDE(PCI_VENDOR_ID_REDHAT_QUMRANET,
				     PCI_DEVICE_ID_IVSHMEM, 1),
	  .driver_data = ASIC_EMU },
	{ }
};

static const struct hl_asic_funcs *hl_asic_funcs_of(enum hl_asic_type type)
{
	switch (type) {
	case ASIC_EMU:
		return &hl_emu_funcs;
	default:
		return NULL;
	}
}

static int hl_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct hl_device *hdev;
	int rc;

	if (!hl_asic_funcs_of(id->driver_data))
		return -ENODEV;
	/* A binding hands out all of the HBM, which a late fence may guard */
	if (hl_dmabuf_quarantined(pdev)) {
		pci_warn(pdev, "an export of an earlier binding is quarantined until its fences signal\n");
		return -EBUSY;
	}

	hdev = kzalloc(sizeof(*hdev), GFP_KERNEL);
	if (!hdev)
		return -ENOMEM;

	rc = init_srcu_struct(&hdev->unplug_srcu);
	if (rc) {
		kfree(hdev);
		return rc;
	}

	/* From here on, hl_device_put() frees hdev */
	kref_init(&hdev->refcount);
	hdev->pdev = pci_dev_get(pdev);
	hdev->dev = &pdev->dev;
	hdev->id = -1;
	hdev->asic_type = id->driver_data;
	hdev->asic_funcs = hl_asic_funcs_of(hdev->asic_type);
	hdev->status = HL_DEVICE_STATUS_IN_DEVICE_CREATION;
	mutex_init(&hdev->fpriv_list_lock);
	mutex_init(&hdev->mmu_lock);
	ida_init(&hdev->asid_ida);
	init_rwsem(&hdev->engine_access_rwsem);
	mutex_init(&hdev->ctx_list_lock);
	INIT_LIST_HEAD(&hdev->ctx_list);
	mutex_init(&hdev->dmabuf_lock);
	INIT_LIST_HEAD(&hdev->dmabuf_list);
	atomic_set(&hdev->dmabuf_mappings, 0);
	init_waitqueue_head(&hdev->dmabuf_wq);
	mutex_init(&hdev->reset_lock);
	spin_lock_init(&hdev->nic_lock);
	hl_events_dev_init(hdev);
	mutex_init(&hdev->host_pages_lock);
	xa_init(&hdev->host_pages);

	rc = ida_alloc_max(&hl_dev_ida, HL_MAX_DEVICES - 1, GFP_KERNEL);
	if (rc < 0)
		goto err_put_hdev;
	hdev->id = rc;
	/*
	 * One lockdep class per device index: the NIC holds two devices'
	 * accesses at once, and lockdep checks their order (habanalabs.h)
	 */
	lockdep_set_class(&hdev->engine_access_rwsem,
			  &hl_engine_access_keys[hdev->id]);

	rc = pcim_enable_device(pdev);
	if (rc)
		goto err_free_id;

	rc = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (rc)
		goto err_free_id;
	/* The device MMU maps host memory page by page: any segment will do */
	dma_set_max_seg_size(&pdev->dev, UINT_MAX);

	pci_set_master(pdev);
	pci_set_drvdata(pdev, hdev);

	rc = hl_device_init(hdev);
	if (rc)
		goto err_clear_drvdata;

	return 0;

err_clear_drvdata:
	pci_set_drvdata(pdev, NULL);
	pci_clear_master(pdev);
err_free_id:
	ida_free(&hl_dev_ida, hdev->id);
	hdev->id = -1;
err_put_hdev:
	hl_device_put(hdev);
	return rc;
}

static void hl_pci_remove(struct pci_dev *pdev)
{
	struct hl_device *hdev = pci_get_drvdata(pdev);

	hl_device_fini(hdev);
	pci_clear_master(pdev);
	pci_set_drvdata(pdev, NULL);
	ida_free(&hl_dev_ida, hdev->id);
	hdev->id = -1;
	hl_device_put(hdev);
}

static struct pci_driver hl_pci_driver = {
	.name = HL_NAME,
	.id_table = hl_pci_ids,
	.probe = hl_pci_probe,
	.remove = hl_pci_remove,
};

/* bind_ivshmem=1: name ourselves in driver_override of unbound ivshmem devices */
static void hl_bind_ivshmem_devices(void)
{
	struct pci_dev *pdev = NULL;

	while ((pdev = pci_get_device(PCI_VENDOR_ID_REDHAT_QUMRANET,
				      PCI_DEVICE_ID_IVSHMEM, pdev))) {
		if (pdev->dev.driver)
			continue;
		if (device_set_driver_override(&pdev->dev, HL_NAME))
			continue;
		if (device_attach(&pdev->dev) < 0)
			pci_warn(pdev, "binding as an emulated accelerator failed\n");
	}
}

static int __init hl_init(void)
{
	int rc;

	if (hl_accel_nodes && !IS_ENABLED(CONFIG_DRM_ACCEL))
		pr_notice(HL_NAME ": accel_nodes ignored: this kernel has no CONFIG_DRM_ACCEL (no /dev/accel)\n");

	hl_wq = alloc_workqueue(HL_NAME, 0, 0);
	if (!hl_wq)
		return -ENOMEM;

	rc = alloc_chrdev_region(&hl_devt, 0, HL_MAX_MINORS, HL_NAME);
	if (rc)
		goto err_destroy_wq;

	rc = class_register(&hl_class);
	if (rc)
		goto err_unregister_chrdev;

	hl_debugfs_init();

	rc = pci_register_driver(&hl_pci_driver);
	if (rc)
		goto err_debugfs_fini;

	if (bind_ivshmem)
		hl_bind_ivshmem_devices();

	return 0;

err_debugfs_fini:
	hl_debugfs_fini();
	class_unregister(&hl_class);
err_unregister_chrdev:
	unregister_chrdev_region(hl_devt, HL_MAX_MINORS);
err_destroy_wq:
	destroy_workqueue(hl_wq);
	return rc;
}

static void __exit hl_exit(void)
{
	pci_unregister_driver(&hl_pci_driver);
	hl_debugfs_fini();
	class_unregister(&hl_class);
	unregister_chrdev_region(hl_devt, HL_MAX_MINORS);
	ida_destroy(&hl_dev_ida);
	/* Waits for the last deferred releases */
	destroy_workqueue(hl_wq);
	hl_cb_module_fini();
}

module_init(hl_init);
module_exit(hl_exit);

MODULE_AUTHOR("habanalabs emulation project");
MODULE_DESCRIPTION("Driver for habanalabs-style AI accelerators (emulated ASIC backend)");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: the compute-accelerator nodes (module parameter accel_nodes;
 * built on kernels with CONFIG_DRM_ACCEL).
 *
 * Upstream's driver (drivers/accel/habanalabs, 6.12) is a DRM compute
 * accelerator: its compute node is /dev/accel/accelN, a minor of the DRM
 * core's accel class, and its control node /dev/accel/accel_controlDN, a
 * character device of its own in the same class; /sys/class/accel/accelN
 * has pci_addr, which is how hl-thunk finds a device by PCI bus id. With
 * accel_nodes, each device has those two nodes too, beside /dev/hlN and
 * /dev/hl_controlDN: the same files behind them (one compute owner, whichever
 * node it opened; the same ioctls, mmap and release), not DRM's. The DRM
 * core only routes the open: its accel stub installs the driver's fops
 * (hl_accel_compute_ops, device.c) and calls their open, which finds the
 * device by the minor here; no drm_file is made, no DRM ioctl served.
 *
 * Lifetime: the drm_device is the node; it is unplugged and put by
 * hl_accel_del() when the device goes away (hl_device_fini()), before the
 * device's other nodes. An open file holds the hl_device, as through the
 * other nodes, not the drm_device.
 */

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/sysfs.h>
#include <linux/xarray.h>

#include <drm/drm_accel.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include "habanalabs.h"
#include "accel.h"
#include "device.h"

/* Accel minor index -> hl_device; its xa_lock orders a lookup's get */
static DEFINE_XARRAY(hl_accel_devs);

static const struct drm_driver hl_accel_driver = {
	.driver_features = DRIVER_COMPUTE_ACCEL,
	.name = HL_NAME,
	.desc = "emulated Habana AI accelerator",
	.major = 1,
	.minor = 0,
	.fops = &hl_accel_compute_ops,
};

/**
 * hl_accel_open - open of /dev/accel/accelN, called by the accel core's stub
 * with the driver's fops installed.
 * @inode: the node's inode: its minor is the accel index.
 * @filp: the file.
 *
 * Return: as an open of /dev/hlN; -ENODEV once the device is going away.
 */
int hl_accel_open(struct inode *inode, struct file *filp)
{
	struct hl_device *hdev;
	int rc;

	xa_lock(&hl_accel_devs);
	hdev = xa_load(&hl_accel_devs, iminor(inode));
	if (hdev)
		hl_device_get(hdev);
	xa_unlock(&hl_accel_devs);
	if (!hdev)
		return -ENODEV;

	rc = hl_device_open_hdev(hdev, inode, filp);
	hl_device_put(hdev);
	return rc;
}

static struct hl_device *hl_accel_hdev(struct device *kdev)
{
	struct drm_minor *minor = dev_get_drvdata(kdev);

	return minor->dev->dev_private;
}

static ssize_t pci_addr_show(struct device *kdev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%s\n", pci_name(hl_accel_hdev(kdev)->pdev));
}
static DEVICE_ATTR_RO(pci_addr);

static ssize_t device_type_show(struct device *kdev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  hl_accel_hdev(kdev)->asic_prop.asic_name);
}
static DEVICE_ATTR_RO(device_type);

static struct attribute *hl_accel_attrs[] = {
	&dev_attr_pci_addr.attr,
	&dev_attr_device_type.attr,
	NULL,
};

/*
 * On /sys/class/accel/accelN, where hl-thunk reads pci_addr: the minor's
 * own groups, so that they exist when the node's add event is sent
 */
ATTRIBUTE_GROUPS(hl_accel);

static ssize_t hl_accel_ctrl_pci_addr_show(struct device *dev,
					   struct device_attribute *attr,
					   char *buf)
{
	struct hl_device *hdev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%s\n", pci_name(hdev->pdev));
}

static struct device_attribute hl_accel_ctrl_pci_addr =
	__ATTR(pci_addr, 0444, hl_accel_ctrl_pci_addr_show, NULL);

static struct attribute *hl_accel_ctrl_attrs[] = {
	&hl_accel_ctrl_pci_addr.attr,
	NULL,
};

/*
 * On accel_controlDN: hl-thunk reads the PCI address of a control node's
 * fd at /sys/dev/char/<its major>:<its minor>/pci_addr
 */
ATTRIBUTE_GROUPS(hl_accel_ctrl);

static void hl_accel_ctrl_release(struct device *dev)
{
	hl_device_put(dev_get_drvdata(dev));
}

static int hl_accel_ctrl_add(struct hl_device *hdev, struct drm_device *drm)
{
	struct device *dev = &hdev->dev_accel_ctrl_obj;
	int rc;

	device_initialize(dev);
	dev->devt = MKDEV(MAJOR(hl_devt), HL_ACCEL_CTRL_MINOR(hdev->id));
	dev->class = drm->accel->kdev->class;
	dev->parent = hdev->dev;
	dev->release = hl_accel_ctrl_release;
	dev->groups = hl_accel_ctrl_groups;
	dev_set_drvdata(dev, hdev);
	/* Dropped by hl_accel_ctrl_release() */
	hl_device_get(hdev);
	rc = dev_set_name(dev, "accel_controlD%d", drm->accel->index);
	if (rc)
		goto err_put;

	cdev_init(&hdev->cdev_accel_ctrl, &hl_accel_ctrl_ops);
	hdev->cdev_accel_ctrl.owner = THIS_MODULE;
	rc = cdev_device_add(&hdev->cdev_accel_ctrl, dev);
	if (rc)
		goto err_put;
	return 0;

err_put:
	put_device(dev);
	return rc;
}

/**
 * hl_accel_add - publish /dev/accel/accelN and /dev/accel/accel_controlDN.
 * @hdev: the device, its other nodes published.
 *
 * Nothing without the accel_nodes parameter.
 *
 * Return: 0 or a negative errno, with nothing left published.
 */
int hl_accel_add(struct hl_device *hdev)
{
	struct drm_device *drm;
	int rc;

	if (!hl_accel_nodes)
		return 0;

	drm = drm_dev_alloc(&hl_accel_driver, hdev->dev);
	if (IS_ERR(drm))
		return PTR_ERR(drm);
	drm->dev_private = hdev;

	/*
	 * The node is whole when it appears: its attributes come with its
	 * add event, and an open finds the device as soon as the node exists
	 * (the accel index is the minor's from drm_dev_alloc() on)
	 */
	drm->accel->kdev->groups = hl_accel_groups;
	rc = xa_insert(&hl_accel_devs, drm->accel->index, hdev, GFP_KERNEL);
	if (rc)
		goto err_put;
	rc = drm_dev_register(drm, 0);
	if (rc)
		goto err_erase;
	rc = hl_accel_ctrl_add(hdev, drm);
	if (rc)
		goto err_unplug;

	hdev->drm = drm;
	hl_info(hdev, "nodes accel%d and accel_controlD%d\n",
		drm->accel->index, drm->accel->index);
	return 0;

err_unplug:
	drm_dev_unplug(drm);
err_erase:
	xa_erase(&hl_accel_devs, drm->accel->index);
err_put:
	drm_dev_put(drm);
	return rc;
}

/**
 * hl_accel_del - withdraw what hl_accel_add() published.
 * @hdev: the device, going away.
 *
 * New opens of the nodes get -ENODEV; open files stay the device's.
 */
void hl_accel_del(struct hl_device *hdev)
{
	struct drm_device *drm = hdev->drm;

	if (!drm)
		return;
	cdev_device_del(&hdev->cdev_accel_ctrl, &hdev->dev_accel_ctrl_obj);
	put_device(&hdev->dev_accel_ctrl_obj);
	xa_erase(&hl_accel_devs, drm->accel->index);
	/* Removes the node with its attributes, waiting for their readers */
	drm_dev_unplug(drm);
	drm_dev_put(drm);
	hdev->drm = NULL;
}

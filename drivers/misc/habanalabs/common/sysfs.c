// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: sysfs attributes of /sys/class/habanalabs/hlN.
 *
 * device_type  ASIC type: "emu-gaudi", or "GAUDI" under asic=gaudi
 * dram_size    bytes of user-allocatable DRAM
 * status       "operational", "in reset", "malfunction", ...
 * pci_addr     PCI address of the function
 * hard_reset   write 1 (root only, CAP_SYS_ADMIN): reset the device with
 *              whatever runs on it (hl_device_hard_reset()); EBUSY while
 *              another reset or the device's removal is under way,
 *              ENODEV when the device is not operational
 */

#include <linux/capability.h>
#include <linux/device.h>
#include <linux/sysfs.h>

#include "habanalabs.h"
#include "device.h"
#include "sysfs.h"

static const char * const hl_status_names[] = {
	[HL_DEVICE_STATUS_OPERATIONAL] = "operational",
	[HL_DEVICE_STATUS_IN_RESET] = "in reset",
	[HL_DEVICE_STATUS_MALFUNCTION] = "malfunction",
	[HL_DEVICE_STATUS_NEEDS_RESET] = "needs reset",
	[HL_DEVICE_STATUS_IN_DEVICE_CREATION] = "in device creation",
	[HL_DEVICE_STATUS_IN_RESET_AFTER_DEVICE_RELEASE] = "in reset after device release",
};

static ssize_t device_type_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct hl_device *hdev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%s\n", hdev->asic_prop.asic_name);
}
static DEVICE_ATTR_RO(device_type);

static ssize_t dram_size_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct hl_device *hdev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%llu\n", hdev->asic_prop.dram_user_size);
}
static DEVICE_ATTR_RO(dram_size);

static ssize_t status_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct hl_device *hdev = dev_get_drvdata(dev);
	enum hl_device_status status = hl_device_status(hdev);

	if (status >= ARRAY_SIZE(hl_status_names))
		return sysfs_emit(buf, "unknown\n");
	return sysfs_emit(buf, "%s\n", hl_status_names[status]);
}
static DEVICE_ATTR_RO(status);

static ssize_t pci_addr_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct hl_device *hdev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%s\n", pci_name(hdev->pdev));
}
static DEVICE_ATTR_RO(pci_addr);

static ssize_t hard_reset_store(struct device *dev,
				struct device_attribute *attr, const char *buf,
				size_t count)
{
	struct hl_device *hdev = dev_get_drvdata(dev);
	bool value;
	int rc;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	rc = kstrtobool(buf, &value);
	if (rc)
		return rc;
	if (!value)
		return -EINVAL;
	/* Removal holds it while it waits for this file to be idle */
	if (!mutex_trylock(&hdev->reset_lock))
		return -EBUSY;
	rc = hl_device_hard_reset(hdev);
	mutex_unlock(&hdev->reset_lock);
	return rc ? rc : count;
}
static DEVICE_ATTR_WO(hard_reset);

static struct attribute *hl_dev_attrs[] = {
	&dev_attr_device_type.attr,
	&dev_attr_dram_size.attr,
	&dev_attr_status.attr,
	&dev_attr_pci_addr.attr,
	&dev_attr_hard_reset.attr,
	NULL,
};

static const struct attribute_group hl_dev_group = {
	.attrs = hl_dev_attrs,
};

const struct attribute_group *hl_dev_groups[] = {
	&hl_dev_group,
	NULL,
};

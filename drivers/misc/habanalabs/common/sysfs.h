/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: the device's sysfs attributes (sysfs.c).
 */
#ifndef HL_SYSFS_H_
#define HL_SYSFS_H_

struct attribute_group;

extern const struct attribute_group *hl_dev_groups[];

#endif /* HL_SYSFS_H_ */

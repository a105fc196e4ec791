/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: the compute-accelerator nodes, as upstream's 6.12 driver
 * has them (accel.c; module parameter accel_nodes, kernels with
 * CONFIG_DRM_ACCEL).
 */
#ifndef HL_ACCEL_H_
#define HL_ACCEL_H_

#include <linux/kconfig.h>

struct file;
struct hl_device;
struct inode;

extern bool hl_accel_nodes;

#if IS_ENABLED(CONFIG_DRM_ACCEL)
int hl_accel_add(struct hl_device *hdev);
void hl_accel_del(struct hl_device *hdev);
#else
static inline int hl_accel_add(struct hl_device *hdev)
{
	return 0;
}

static inline void hl_accel_del(struct hl_device *hdev)
{
}
#endif

int hl_accel_open(struct inode *inode, struct file *filp);

/*
 * device.c: an open of @hdev's compute node, whichever node it came by;
 * the fops of the accel nodes (the same files as /dev/hlN's and
 * /dev/hl_controlDN's)
 */
int hl_device_open_hdev(struct hl_device *hdev, struct inode *inode,
			struct file *filp);
extern const struct file_operations hl_accel_compute_ops;
extern const struct file_operations hl_accel_ctrl_ops;

#endif /* HL_ACCEL_H_ */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: the driver's and each device's debugfs files (debugfs.c).
 */
#ifndef HL_DEBUGFS_H_
#define HL_DEBUGFS_H_

struct hl_device;

void hl_debugfs_init(void);
void hl_debugfs_fini(void);
void hl_debugfs_add_device(struct hl_device *hdev);
void hl_debugfs_remove_device(struct hl_device *hdev);

#endif /* HL_DEBUGFS_H_ */

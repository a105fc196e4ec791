/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: the device's life cycle (device.c): probe and removal, its
 * reference count, the unplug guard and hard reset.
 */
#ifndef HL_DEVICE_H_
#define HL_DEVICE_H_

#include <linux/types.h>

#include <uapi/misc/habanalabs.h>

/* hl_device_get(), hl_device_put() and the accessors of a device: asic.h */
#include "asic.h"

struct hl_device;

int hl_device_init(struct hl_device *hdev);
void hl_device_fini(struct hl_device *hdev);
int hl_device_enter(struct hl_device *hdev);
void hl_device_exit(struct hl_device *hdev, int idx);
bool hl_device_unplugged(struct hl_device *hdev);

enum hl_device_status hl_device_status(struct hl_device *hdev);
bool hl_device_operational(struct hl_device *hdev);
int hl_device_hard_reset(struct hl_device *hdev);

#endif /* HL_DEVICE_H_ */

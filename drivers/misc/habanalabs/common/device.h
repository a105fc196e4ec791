/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: the device's life cycle (device.c): probe and removal, its
 * reference count, the unplug guard and hard reset.
 */
#ifndef HL_DEVICE_H_
#define HL_DEVICE_H_

#include <linux/types.h>

#include <uapi/misc/habanalabs.h>

struct hl_device;

int hl_device_init(struct hl_device *hdev);
void hl_device_fini(struct hl_device *hdev);
void hl_device_put(struct hl_device *hdev);
void hl_device_get(struct hl_device *hdev);
int hl_device_enter(struct hl_device *hdev);
void hl_device_exit(struct hl_device *hdev, int idx);
bool hl_device_unplugged(struct hl_device *hdev);

/*
 * Engine accesses: what a backend's engines call around each access to
 * device memory, instead of touching the core's locks (device.c)
 */
void hl_device_hw_access_begin(struct hl_device *hdev);
void hl_device_hw_access_end(struct hl_device *hdev);
void hl_device_hw_access_assert(struct hl_device *hdev);
bool hl_device_hw_enter(struct hl_device *hdev, int *idx);
void hl_device_hw_exit(struct hl_device *hdev, int idx, bool entered);
bool hl_device_hw_before(const struct hl_device *a, const struct hl_device *b);
bool hl_device_hw_enter_pair(struct hl_device *hdev, struct hl_device *peer,
			     int *idx);
void hl_device_hw_exit_pair(struct hl_device *hdev, struct hl_device *peer,
			    int idx, bool entered);
void hl_device_hw_quiesce(struct hl_device *hdev);
enum hl_device_status hl_device_status(struct hl_device *hdev);
bool hl_device_operational(struct hl_device *hdev);
int hl_device_hard_reset(struct hl_device *hdev);

#endif /* HL_DEVICE_H_ */

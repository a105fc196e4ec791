/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: engine accesses: what a backend's engines call around each
 * access to device memory, instead of touching the core's locks
 * (engine_access.c).
 */
#ifndef HL_ENGINE_ACCESS_H_
#define HL_ENGINE_ACCESS_H_

#include <linux/types.h>

struct hl_device;

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

#endif /* HL_ENGINE_ACCESS_H_ */

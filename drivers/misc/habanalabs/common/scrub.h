/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: the DRAM pool and its background scrubber (scrub.c).
 */
#ifndef HL_SCRUB_H_
#define HL_SCRUB_H_

#include <linux/types.h>

struct hl_device;

int hl_scrub_init(struct hl_device *hdev);
void hl_scrub_start(struct hl_device *hdev);
void hl_scrub_stop(struct hl_device *hdev);
void hl_scrub_fini(struct hl_device *hdev);
int hl_dram_alloc(struct hl_device *hdev, u64 size, u64 *addr);
void hl_dram_free(struct hl_device *hdev, u64 addr, u64 size);
u64 hl_scrub_pending(struct hl_device *hdev);
bool hl_scrub_wait_idle(struct hl_device *hdev, unsigned long timeout);

#endif /* HL_SCRUB_H_ */

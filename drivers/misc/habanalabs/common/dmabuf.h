/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: dma-buf export of device memory (dmabuf.c).
 */
#ifndef HL_DMABUF_H_
#define HL_DMABUF_H_

#include <linux/types.h>

struct hl_ctx;
struct hl_device;
struct hl_ioctl_call;
struct hl_mem_in;
struct pci_dev;

int hl_dmabuf_export(struct hl_ctx *ctx, struct hl_mem_in *in,
		     struct hl_ioctl_call *call, int *fd);
void hl_dmabuf_ctx_detach(struct hl_ctx *ctx);
void hl_dmabuf_revoke_all(struct hl_device *hdev, bool for_good);
bool hl_dmabuf_quarantined(struct pci_dev *pdev);
void hl_dmabuf_debugfs_init(struct hl_device *hdev);

#endif /* HL_DMABUF_H_ */

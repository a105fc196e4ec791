/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs emu: the NIC as the rest of the emulated device sees it: its
 * ports and place in the fabric (emu_nic_fabric.c), the packets its engine
 * runs and their entry points: SEND and WRITE in the requester
 * (emu_nic_req.c), RECV in the responder (emu_nic_resp.c). The wire's own
 * records (QP contexts, receives, sends) are in emu_nic_qp.h.
 */
#ifndef HL_EMU_NIC_H_
#define HL_EMU_NIC_H_

#include <linux/kref.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "emu.h"
#include "emu_nic_qp.h"

/* NIC ports per device: 4 devices all-to-all need 3 (emu_nic_fabric.c) */
#define HL_EMU_NIC_PORTS		8

/**
 * struct hl_emu_nic_port - one NIC port.
 * @admin_up: this end of the link is up (debugfs nic/port<N>/link).
 * @nic: the NIC it belongs to (for its debugfs file).
 * @index: its number.
 */
struct hl_emu_nic_port {
	bool admin_up;
	struct hl_emu_nic *nic;
	u32 index;
};

/**
 * struct hl_emu_nic - a device's NIC as the fabric sees it.
 * @refcount: the device holds one from hw_init to early_fini; peer engines
 *	one each while they use it.
 * @hdev: the device; the NIC holds a reference on it.
 * @id: the device's module id.
 * @detached: set by hw_fini before hl_device_hw_quiesce(), cleared by the
 *	hw_init after a hard reset before the device rejoins the fabric;
 *	read inside hl_device_hw_enter(). Once hw_fini's quiesce returned,
 *	no engine touches the device's memory from outside.
 * @ports: the ports.
 * @qps: the QP contexts of the device's connections by connection ID
 *	(emu_nic_qp.c): its own lock guards membership; an entry is the
 *	core's reference, until nic_qp_teardown. Every QP context holds a
 *	reference on the NIC.
 */
struct hl_emu_nic {
	struct kref refcount;
	struct hl_device *hdev;
	u32 id;
	bool detached;
	struct hl_emu_nic_port ports[HL_EMU_NIC_PORTS];
	struct xarray qps;
};

/**
 * struct hl_emu_pkt_nic - HL_PKT_NIC_SEND and HL_PKT_NIC_RECV as the engine
 * reads them (little-endian; struct hl_pkt_nic_send in the uAPI).
 * @ctl: the header.
 * @conn_id: the connection.
 * @addr: device virtual address of the message or buffer.
 * @size: bytes.
 * @wr_id: the user's tag.
 */
struct hl_emu_pkt_nic {
	__le32 ctl;
	__le32 conn_id;
	__le64 addr;
	__le64 size;
	__le64 wr_id;
};

/**
 * struct hl_emu_pkt_nic_write - HL_PKT_NIC_WRITE and HL_PKT_NIC_WRITE_IMM
 * as the engine reads them (struct hl_pkt_nic_write in the uAPI).
 * @ctl: the header.
 * @conn_id: the connection.
 * @local_addr: the source, in the lkey's region.
 * @remote_addr: the destination, in the rkey's region.
 * @size: bytes.
 * @wr_id: the user's tag.
 * @lkey: the local region's key.
 * @rkey: the peer's region's key.
 * @imm_data: WRITE_IMM's immediate value.
 * @pad: 0.
 */
struct hl_emu_pkt_nic_write {
	__le32 ctl;
	__le32 conn_id;
	__le64 local_addr;
	__le64 remote_addr;
	__le64 size;
	__le64 wr_id;
	__le32 lkey;
	__le32 rkey;
	__le32 imm_data;
	__le32 pad;
};

/* emu_nic_fabric.c: the NIC, its ports and links */
int hl_emu_nic_init(struct hl_emu_device *emu);
void hl_emu_nic_fini(struct hl_emu_device *emu);
void hl_emu_nic_free(struct hl_emu_device *emu);
void hl_emu_nic_put(struct hl_emu_nic *nic);
void hl_emu_nic_port_info(struct hl_device *hdev, u32 port,
			  struct hl_info_nic_port *info);
int hl_emu_nic_check_remote(struct hl_device *hdev, u32 port, u64 remote_addr);
struct hl_device *hl_emu_nic_peer_get(struct hl_device *hdev, u32 port,
				      u64 *addr);
void hl_emu_nic_debugfs_init(struct hl_device *hdev, struct dentry *root);
u64 hl_emu_nic_addr(u32 id, u32 port);
struct hl_emu_nic *hl_emu_link_peer_get(struct hl_emu_nic *nic, u32 port,
					u32 *peer_port);
bool hl_emu_link_up(struct hl_emu_nic *nic, u32 port);

/* emu_nic_req.c: the requester's packets */
int hl_emu_nic_exec_send(struct hl_emu_queue *q, struct hl_cs_job *job,
			 const struct hl_emu_pkt_nic *pkt);
int hl_emu_nic_exec_write(struct hl_emu_queue *q, struct hl_cs_job *job,
			  const struct hl_emu_pkt_nic_write *pkt, bool imm);

/* emu_nic_resp.c: the responder's packet */
int hl_emu_nic_exec_recv(struct hl_emu_queue *q, struct hl_cs_job *job,
			 const struct hl_emu_pkt_nic *pkt);

#endif /* HL_EMU_NIC_H_ */

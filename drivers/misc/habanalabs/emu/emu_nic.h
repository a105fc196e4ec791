/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs emu: the NIC (emu_nic.c): its ports, its place in the fabric,
 * the packets its engine runs and the engine's record of one message; the
 * TEST ONLY two-copy step (emu_nic_debug.c, CONFIG_HABANALABS_DEBUG).
 */
#ifndef HL_EMU_NIC_H_
#define HL_EMU_NIC_H_

#include <linux/kref.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "emu.h"
#include "emu_nic_qp.h"

/* NIC ports per device: 4 devices all-to-all need 3 (emu_nic.c) */
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

/* emu_nic.c */
int hl_emu_nic_init(struct hl_emu_device *emu);
void hl_emu_nic_fini(struct hl_emu_device *emu);
void hl_emu_nic_free(struct hl_emu_device *emu);
void hl_emu_nic_port_info(struct hl_device *hdev, u32 port,
			  struct hl_info_nic_port *info);
int hl_emu_nic_check_remote(struct hl_device *hdev, u32 port, u64 remote_addr);
struct hl_device *hl_emu_nic_peer_get(struct hl_device *hdev, u32 port,
				      u64 *addr);
void hl_emu_nic_debugfs_init(struct hl_device *hdev, struct dentry *root);
void hl_emu_nic_put(struct hl_emu_nic *nic);
int hl_emu_nic_exec_send(struct hl_emu_queue *q, struct hl_cs_job *job,
			 const struct hl_emu_pkt_nic *pkt);
int hl_emu_nic_exec_recv(struct hl_emu_queue *q, struct hl_cs_job *job,
			 const struct hl_emu_pkt_nic *pkt);
int hl_emu_nic_exec_write(struct hl_emu_queue *q, struct hl_cs_job *job,
			  const struct hl_emu_pkt_nic_write *pkt, bool imm);

/**
 * struct hl_emu_nic_xfer - one message being sent.
 * @q: the sending queue.
 * @job: its job.
 * @nic: this device's NIC.
 * @qp: the sending QP context (a reference).
 * @send: the wire's record of the send (emu_nic_qp.c).
 * @stopped: the device is stopping: the job fails with -ENODEV.
 * @addr: device VA of the message (a WRITE: translated through @lmr).
 * @size: bytes of the message.
 * @moved: bytes that reached the peer.
 * @peer: the peer's NIC (a reference), once matched.
 * @rctx: the peer connection's context (a reference), once matched.
 * @rqp: the peer QP context (a reference), once matched.
 * @lmr: a WRITE's local region (a reference), once its lkey checked.
 * @rmr: a WRITE's peer region (a reference), once its rkey checked.
 * @dst: a WRITE's destination: device VA in @rctx, translated through
 *	@rmr.
 */
struct hl_emu_nic_xfer {
	struct hl_emu_queue *q;
	struct hl_cs_job *job;
	struct hl_emu_nic *nic;
	struct hl_emu_qp *qp;
	struct hl_emu_send send;
	bool stopped;
	u64 addr;
	u64 size;
	u64 moved;
	struct hl_emu_nic *peer;
	struct hl_ctx *rctx;
	struct hl_emu_qp *rqp;
	struct hl_nic_mr *lmr;
	struct hl_nic_mr *rmr;
	u64 dst;
};

#if IS_ENABLED(CONFIG_HABANALABS_DEBUG)
u32 hl_emu_nic_step_bounce(struct hl_emu_nic_xfer *x, u64 src, u64 dst,
			   u64 len, u64 *done);
#else
/* Never called: hl_nic_two_copies() is false without the parameter */
static inline u32 hl_emu_nic_step_bounce(struct hl_emu_nic_xfer *x, u64 src,
					 u64 dst, u64 len, u64 *done)
{
	*done = 0;
	return HL_NIC_CQE_STATUS_LOCAL_FAULT;
}
#endif /* CONFIG_HABANALABS_DEBUG */

#endif /* HL_EMU_NIC_H_ */

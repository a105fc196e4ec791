/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs emu: the NIC engine's record of one message (emu_nic.c), and
 * the TEST ONLY two-copy step (emu_nic_debug.c, CONFIG_HABANALABS_DEBUG).
 */
#ifndef HL_EMU_NIC_H_
#define HL_EMU_NIC_H_

#include "emu.h"

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

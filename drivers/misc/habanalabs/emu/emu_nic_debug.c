// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs emu: TEST ONLY (nic_two_copies, CONFIG_HABANALABS_DEBUG): the
 * NIC engine's step as it was before each byte moved once, kept as the
 * peer that tools/hl-bench/nic-copies-run times the one-copy step
 * against in one boot. The production module has none of this file.
 */

#include "emu.h"
#include "emu_nic.h"

/*
 * TEST ONLY (nic_two_copies): the step as it was, each byte copied twice.
 * @len bytes of q->buf into the peer's memory at @va, run by run through
 * the peer's MMU (hl_emu_mmu_span() without a TLB, inside
 * hl_device_hw_enter() of the peer); SUCCESS, LINK_DOWN, REMOTE_ERR,
 * REMOTE_ACCESS_ERR or REMOTE_FAULT, after which *@done bytes were
 * written.
 */
static u32 hl_emu_nic_write_peer(struct hl_emu_nic_xfer *x, u64 va, u64 len,
				 u64 *done)
{
	struct hl_device *peer_hdev = x->peer->hdev;
	u32 status = HL_NIC_CQE_STATUS_LINK_DOWN;
	struct hl_emu_span d;
	bool entered;
	int idx;

	*done = 0;
	/* A WRITE's region: no byte lands once its DEREG_MR returned */
	if (x->rmr && !hl_nic_mr_access_begin(x->rmr))
		return HL_NIC_CQE_STATUS_REMOTE_ACCESS_ERR;
	entered = hl_device_hw_enter(peer_hdev, &idx);
	if (entered) {
		/* Checked inside the access, as hl_emu_req_step() does */
		if (hl_emu_send_peer_flushed(&x->send)) {
			status = HL_NIC_CQE_STATUS_REMOTE_ERR;
		} else if (!READ_ONCE(x->peer->detached)) {
			status = HL_NIC_CQE_STATUS_SUCCESS;
			for (; *done < len; *done += d.len) {
				if (hl_emu_mmu_span(to_emu(peer_hdev), NULL,
						    hl_ctx_asid(x->rctx),
						    va + *done, len - *done,
						    &d)) {
					status = HL_NIC_CQE_STATUS_REMOTE_FAULT;
					break;
				}
				hl_emu_span_write(&d, x->q->buf + *done, d.len);
			}
		}
	}
	hl_device_hw_exit(peer_hdev, idx, entered);
	if (x->rmr)
		hl_nic_mr_access_end(x->rmr);
	return status;
}

/*
 * TEST ONLY (nic_two_copies): up to @len bytes of this device's memory at
 * @va into q->buf, run by run through the queue's TLB; *@got bytes were
 * read, -EFAULT if fewer than @len.
 */
static int hl_emu_nic_read_local(struct hl_emu_queue *q, u32 asid, u64 va,
				 u64 len, u64 *got)
{
	struct hl_device *hdev = q->emu->hdev;
	struct hl_emu_span s;
	int rc = 0;

	hl_device_hw_access_begin(hdev);
	for (*got = 0; *got < len; *got += s.len) {
		rc = hl_emu_mmu_span(q->emu, q, asid, va + *got, len - *got,
				     &s);
		if (rc)
			break;
		hl_emu_span_read(&s, q->buf + *got, s.len);
	}
	hl_device_hw_access_end(hdev);
	return rc;
}

/*
 * TEST ONLY (nic_two_copies): hl_emu_req_step() as it was before each
 * byte moved once, kept so that one boot can time both: the step is read
 * into q->buf inside this device's engine access, then written inside the
 * peer's, one access at a time. Same statuses and *@done.
 */
u32 hl_emu_nic_step_bounce(struct hl_emu_nic_xfer *x, u64 src, u64 dst,
			   u64 len, u64 *done)
{
	u32 status = HL_NIC_CQE_STATUS_SUCCESS;
	u64 got;
	int rc;

	*done = 0;
	if (x->lmr && !hl_nic_mr_access_begin(x->lmr))
		return HL_NIC_CQE_STATUS_LOCAL_PROT_ERR;
	rc = hl_emu_nic_read_local(x->q, hl_cs_job_asid(x->job), src, len,
				   &got);
	if (x->lmr)
		hl_nic_mr_access_end(x->lmr);
	if (got)
		status = hl_emu_nic_write_peer(x, dst, got, done);
	if (got && status)
		return status;
	*done = got;
	return rc ? HL_NIC_CQE_STATUS_LOCAL_FAULT : HL_NIC_CQE_STATUS_SUCCESS;
}

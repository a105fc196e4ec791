// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the emulated wire's matching (emu_nic_resp.c,
 * hl_emu_resp_match()): a message is taken only by a QP context that names
 * the sender's whole connection ID (an earlier owner's connection of the
 * same slot is another connection) and port address; a WRITE (no receive)
 * checks PSNs and takes no receive, and a PSN mismatch fails the peer QP.
 * The QP contexts are built here; their device has no owner, so the
 * failure they report to the core (hl_nic_report()) is dropped.
 *
 * Built into habanalabs.ko with CONFIG_HABANALABS_KUNIT_TEST (the debug
 * kernel lane); the suite runs at module load.
 */

#include <kunit/test.h>

#include "emu.h"
#include "emu_nic.h"

#define T_INIT		HL_NIC_CONN_STATE_INIT
#define T_RTR		HL_NIC_CONN_STATE_RTR
#define T_RTS		HL_NIC_CONN_STATE_RTS
#define T_ERR		HL_NIC_CONN_STATE_ERR

/*
 * The QP contexts' NIC: on a device without an owner (its hdev from
 * hl_device_kunit_alloc(), per case)
 */
static struct hl_emu_nic t_nic;

#define T_ADDR		0x02484c000105ull	/* the sender's port address */
#define T_PORT		3			/* the receiver's port */

/* A QP context @id on T_PORT in @state naming @remote_id at @remote_addr */
static void t_conn_init(struct hl_emu_qp *c, u32 id,
			enum hl_nic_conn_state state, u32 remote_id,
			u64 remote_addr)
{
	memset(c, 0, sizeof(*c));
	kref_init(&c->refcount);
	c->nic = &t_nic;
	c->id = id;
	c->port = T_PORT;
	spin_lock_init(&c->lock);
	c->attr.state = state;
	c->attr.flush_status = HL_NIC_CQE_STATUS_FLUSHED;
	c->attr.remote_conn_id = remote_id;
	c->attr.remote_addr = remote_addr;
	INIT_LIST_HEAD(&c->rq);
	init_waitqueue_head(&c->wq);
}

static void t_post(struct hl_emu_qp *c, struct hl_emu_wr *wr)
{
	memset(wr, 0, sizeof(*wr));
	wr->qp = c;
	wr->state = HL_EMU_WR_POSTED;
	wr->epoch = c->epoch;
	list_add_tail(&wr->node, &c->rq);
}

static void hl_emu_qp_test_match_whole_id(struct kunit *test)
{
	const u32 gen = 0x1234, old_gen = 0x1233;
	const u32 me = gen << HL_NIC_CONN_ID_SLOT_BITS | 1;
	const u32 old_me = old_gen << HL_NIC_CONN_ID_SLOT_BITS | 1;
	struct hl_emu_qp *snd, *rcv;
	struct hl_emu_send s = {};
	struct hl_emu_wr wr;

	snd = kunit_kzalloc(test, sizeof(*snd), GFP_KERNEL);
	rcv = kunit_kzalloc(test, sizeof(*rcv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, snd);
	KUNIT_ASSERT_NOT_NULL(test, rcv);
	t_conn_init(snd, me, T_RTS, 7 << HL_NIC_CONN_ID_SLOT_BITS | 1, T_ADDR);
	s.qp = snd;
	s.npkts = 1;

	/* No responder context yet: the sender may wait */
	t_conn_init(rcv, 7 << HL_NIC_CONN_ID_SLOT_BITS | 1, T_INIT, 0, 0);
	KUNIT_EXPECT_EQ(test, hl_emu_resp_match(&s, rcv, T_PORT, T_ADDR),
			HL_EMU_WR_AGAIN);

	/* Set up for an earlier owner's connection of the same slot */
	t_conn_init(rcv, rcv->id, T_RTR, old_me, T_ADDR);
	t_post(rcv, &wr);
	KUNIT_EXPECT_EQ(test, hl_emu_resp_match(&s, rcv, T_PORT, T_ADDR),
			HL_NIC_CQE_STATUS_REMOTE_INVALID);
	KUNIT_EXPECT_EQ(test, wr.state, HL_EMU_WR_POSTED);
	KUNIT_EXPECT_EQ(test, rcv->attr.state, T_RTR);

	/* Naming us, but from another port address, or on another port */
	t_conn_init(rcv, rcv->id, T_RTR, me, T_ADDR ^ 1);
	t_post(rcv, &wr);
	KUNIT_EXPECT_EQ(test, hl_emu_resp_match(&s, rcv, T_PORT, T_ADDR),
			HL_NIC_CQE_STATUS_REMOTE_INVALID);
	t_conn_init(rcv, rcv->id, T_RTR, me, T_ADDR);
	t_post(rcv, &wr);
	KUNIT_EXPECT_EQ(test, hl_emu_resp_match(&s, rcv, T_PORT + 1, T_ADDR),
			HL_NIC_CQE_STATUS_REMOTE_INVALID);
	KUNIT_EXPECT_EQ(test, wr.state, HL_EMU_WR_POSTED);

	/* Naming us: in ERR it answers REMOTE_ERR, else takes the receive */
	rcv->attr.state = T_ERR;
	KUNIT_EXPECT_EQ(test, hl_emu_resp_match(&s, rcv, T_PORT, T_ADDR),
			HL_NIC_CQE_STATUS_REMOTE_ERR);
	rcv->attr.state = T_RTR;
	KUNIT_EXPECT_EQ(test, hl_emu_resp_match(&s, rcv, T_PORT, T_ADDR),
			HL_NIC_CQE_STATUS_SUCCESS);
	KUNIT_EXPECT_EQ(test, wr.state, HL_EMU_WR_ACTIVE);
	KUNIT_EXPECT_PTR_EQ(test, s.wr, &wr);
	KUNIT_EXPECT_TRUE(test, list_empty(&rcv->rq));
}

static void hl_emu_qp_test_write_takes_no_recv(struct kunit *test)
{
	const u32 me = 0x55 << HL_NIC_CONN_ID_SLOT_BITS | 3;
	const u32 peer = 0x66 << HL_NIC_CONN_ID_SLOT_BITS | 4;
	struct hl_emu_qp *snd, *rcv;
	struct hl_emu_send s = {};
	struct hl_emu_wr wr;

	snd = kunit_kzalloc(test, sizeof(*snd), GFP_KERNEL);
	rcv = kunit_kzalloc(test, sizeof(*rcv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, snd);
	KUNIT_ASSERT_NOT_NULL(test, rcv);
	t_conn_init(snd, me, T_RTS, peer, T_ADDR);
	t_conn_init(rcv, peer, T_RTR, me, T_ADDR);
	rcv->rq_psn = 10;
	t_post(rcv, &wr);
	s.qp = snd;
	s.kind = HL_EMU_XFER_WRITE;
	s.npkts = 3;

	/* Right PSN: the peer's PSN moves on, its receive stays posted */
	s.psn = 10;
	KUNIT_EXPECT_EQ(test, hl_emu_resp_match(&s, rcv, T_PORT, T_ADDR),
			HL_NIC_CQE_STATUS_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, s.rqp, rcv);
	KUNIT_EXPECT_NULL(test, s.wr);
	KUNIT_EXPECT_EQ(test, rcv->rq_psn, 13u);
	KUNIT_EXPECT_EQ(test, wr.state, HL_EMU_WR_POSTED);

	/* Wrong PSN: PSN_ERR, the peer goes to ERR */
	s.rqp = NULL;
	s.psn = 10;
	KUNIT_EXPECT_EQ(test, hl_emu_resp_match(&s, rcv, T_PORT, T_ADDR),
			HL_NIC_CQE_STATUS_PSN_ERR);
	KUNIT_EXPECT_EQ(test, rcv->attr.state, T_ERR);
	list_del_init(&wr.node);
}

static int hl_emu_qp_test_init(struct kunit *test)
{
	struct hl_device *hdev = hl_device_kunit_alloc(test, NULL);

	KUNIT_ASSERT_FALSE(test, IS_ERR(hdev));
	t_nic.hdev = hdev;
	return 0;
}

static struct kunit_case hl_emu_qp_test_cases[] = {
	KUNIT_CASE(hl_emu_qp_test_match_whole_id),
	KUNIT_CASE(hl_emu_qp_test_write_takes_no_recv),
	{}
};

static struct kunit_suite hl_emu_qp_test_suite = {
	.name = "habanalabs_emu_nic_qp",
	.init = hl_emu_qp_test_init,
	.test_cases = hl_emu_qp_test_cases,
};

kunit_test_suites(&hl_emu_qp_test_suite);

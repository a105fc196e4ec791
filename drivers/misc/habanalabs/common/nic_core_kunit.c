// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the NIC core against a fake backend (nic.c): the QP/CQ
 * logic the driver keeps on any ASIC, driven through the hooks of "Core and
 * backend" (nic.h). The fake backend is an asic_funcs table whose
 * nic_qp_* ops record what the core programs. Checked: every move of the
 * state machine (HL_NIC_OP_*, through hl_nic_op()) programs the QP
 * context with the state, epoch, PSNs, sizes and CQ handles the uAPI
 * describes, and an illegal one programs nothing; a CQE reported through
 * hl_nic_report() lands in the CQ it names and nowhere else, not for an
 * earlier owner's connection nor after the context was killed; a reported
 * failure moves the connection to ERR only in its epoch; each QP context
 * is torn down once, by DESTROY_CONN or by the context's close.
 *
 * Built into habanalabs.ko with CONFIG_HABANALABS_KUNIT_TEST (the debug
 * kernel lane); the suite runs at module load.
 */

#include <kunit/test.h>
#include <linux/srcu.h>

#include "habanalabs.h"
#include "context.h"
#include "nic.h"

#define T_PORT		2
#define T_RADDR		0x02484c000102ull
#define T_RCONN		(5 << HL_NIC_CONN_ID_SLOT_BITS | 1)
#define T_MAX_QPS	8

/* A QP context of the fake backend */
struct t_qp {
	u32 id;
	u32 port;
	u32 sq_psn;
	u32 rq_psn;
	int torn;
};

/* What the fake backend saw; the cases run one at a time */
static struct {
	struct kunit *test;
	int creates;
	int programs;
	int teardowns;
	struct hl_nic_qp_attr last;
	struct hl_nic_conn_attr last_conn;
	struct t_qp *last_qp;
	struct t_qp *qps[T_MAX_QPS];
} t_be;

static void *t_qp_create(struct hl_device *hdev, struct hl_ctx *ctx,
			 u32 conn_id, u32 port)
{
	struct t_qp *qp = kunit_kzalloc(t_be.test, sizeof(*qp), GFP_KERNEL);

	if (!qp || t_be.creates >= T_MAX_QPS)
		return ERR_PTR(-ENOMEM);
	qp->id = conn_id;
	qp->port = port;
	t_be.qps[t_be.creates++] = qp;
	return qp;
}

static void t_qp_program(struct hl_device *hdev, void *hw,
			 const struct hl_nic_qp_attr *attr)
{
	struct t_qp *qp = hw;

	KUNIT_EXPECT_EQ(t_be.test, qp->torn, 0);
	t_be.programs++;
	t_be.last = *attr;
	t_be.last_conn = *attr->conn;
	t_be.last_qp = qp;
	if (attr->set_sq_psn)
		qp->sq_psn = attr->sq_psn;
	if (attr->set_rq_psn)
		qp->rq_psn = attr->rq_psn;
}

static void t_qp_query(struct hl_device *hdev, void *hw, u32 *sq_psn,
		       u32 *rq_psn)
{
	struct t_qp *qp = hw;

	*sq_psn = qp->sq_psn;
	*rq_psn = qp->rq_psn;
}

static void t_qp_teardown(struct hl_device *hdev, void *hw)
{
	struct t_qp *qp = hw;

	qp->torn++;
	t_be.teardowns++;
}

static int t_check_remote(struct hl_device *hdev, u32 port, u64 remote_addr)
{
	return 0;
}

static const struct hl_asic_funcs t_funcs = {
	.nic_check_remote = t_check_remote,
	.nic_qp_create = t_qp_create,
	.nic_qp_program = t_qp_program,
	.nic_qp_query = t_qp_query,
	.nic_qp_teardown = t_qp_teardown,
};

struct t_env {
	struct hl_device *hdev;
	struct hl_ctx *ctx;
};

static int t_init(struct kunit *test)
{
	struct t_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->hdev = kunit_kzalloc(test, sizeof(*e->hdev), GFP_KERNEL);
	e->ctx = kunit_kzalloc(test, sizeof(*e->ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->hdev);
	KUNIT_ASSERT_NOT_NULL(test, e->ctx);
	KUNIT_ASSERT_EQ(test, init_srcu_struct(&e->hdev->unplug_srcu), 0);
	spin_lock_init(&e->hdev->nic_lock);
	e->hdev->asic_funcs = &t_funcs;
	e->hdev->asic_prop.num_nic_ports = 8;
	e->ctx->hdev = e->hdev;

	memset(&t_be, 0, sizeof(t_be));
	t_be.test = test;
	hl_nic_ctx_init(e->ctx);
	test->priv = e;
	return 0;
}

static void t_exit(struct kunit *test)
{
	struct t_env *e = test->priv;

	hl_nic_ctx_fini(e->ctx);
	cleanup_srcu_struct(&e->hdev->unplug_srcu);
}

static int t_op(struct t_env *e, struct hl_nic_in *in, u32 op,
		struct hl_nic_out *out)
{
	struct hl_nic_out o = {};

	in->op = op;
	return hl_nic_op(e->ctx, in, out ?: &o);
}

static u32 t_cq_create(struct kunit *test, struct t_env *e)
{
	struct hl_nic_in in = { .cq_create.num_entries = 8 };
	struct hl_nic_out out = {};

	KUNIT_ASSERT_EQ(test, t_op(e, &in, HL_NIC_OP_CQ_CREATE, &out), 0);
	return out.cq_create.handle;
}

static u32 t_conn_alloc(struct kunit *test, struct t_env *e)
{
	struct hl_nic_in in = { .alloc_conn.port = T_PORT };
	struct hl_nic_out out = {};

	KUNIT_ASSERT_EQ(test, t_op(e, &in, HL_NIC_OP_ALLOC_CONN, &out), 0);
	return out.alloc_conn.conn_id;
}

static int t_modify(struct t_env *e, u32 id, u32 state)
{
	struct hl_nic_in in = {
		.modify_conn = { .conn_id = id, .state = state },
	};

	return t_op(e, &in, HL_NIC_OP_MODIFY_CONN, NULL);
}

static int t_set_res(struct t_env *e, u32 id, u32 psn, u32 cq)
{
	struct hl_nic_in in = {
		.res_conn_ctx = {
			.remote_addr = T_RADDR, .conn_id = id, .port = T_PORT,
			.remote_conn_id = T_RCONN, .psn = psn, .wq_size = 16,
			.cq_handle = cq,
		},
	};

	return t_op(e, &in, HL_NIC_OP_SET_RES_CONN_CTX, NULL);
}

static int t_set_req(struct t_env *e, u32 id, u32 psn, u32 cq)
{
	struct hl_nic_in in = {
		.req_conn_ctx = {
			.remote_addr = T_RADDR, .conn_id = id, .port = T_PORT,
			.remote_conn_id = T_RCONN, .psn = psn,
			.mtu = HL_NIC_MTU_1024, .wq_size = 8, .cq_handle = cq,
		},
	};

	return t_op(e, &in, HL_NIC_OP_SET_REQ_CONN_CTX, NULL);
}

static struct hl_nic_query_conn_out t_query(struct kunit *test,
					    struct t_env *e, u32 id)
{
	struct hl_nic_in in = { .query_conn.conn_id = id };
	struct hl_nic_out out = {};

	KUNIT_EXPECT_EQ(test, t_op(e, &in, HL_NIC_OP_QUERY_CONN, &out), 0);
	return out.query_conn;
}

/* A connection in RTS reporting receives to @rcq and sends to @scq */
static u32 t_conn_rts(struct kunit *test, struct t_env *e, u32 rcq, u32 scq)
{
	u32 id = t_conn_alloc(test, e);

	KUNIT_ASSERT_EQ(test, t_modify(e, id, HL_NIC_CONN_STATE_INIT), 0);
	KUNIT_ASSERT_EQ(test, t_set_res(e, id, 100, rcq), 0);
	KUNIT_ASSERT_EQ(test, t_set_req(e, id, 200, scq), 0);
	return id;
}

static struct hl_nic_cq *t_cq(struct t_env *e, u32 handle)
{
	return xa_load(&e->ctx->nic.cqs, handle);
}

static void hl_nic_core_test_hooks_follow_state_machine(struct kunit *test)
{
	struct t_env *e = test->priv;
	struct hl_nic_query_conn_out q;
	u32 cq = t_cq_create(test, e);
	u32 id = t_conn_alloc(test, e);
	int programs;

	/* ALLOC_CONN makes the QP context, in RESET: nothing to program */
	KUNIT_EXPECT_EQ(test, t_be.creates, 1);
	KUNIT_EXPECT_EQ(test, t_be.qps[0]->id, id);
	KUNIT_EXPECT_EQ(test, t_be.qps[0]->port, T_PORT);
	KUNIT_EXPECT_EQ(test, t_be.programs, 0);

	KUNIT_EXPECT_EQ(test, t_modify(e, id, HL_NIC_CONN_STATE_INIT), 0);
	KUNIT_EXPECT_EQ(test, t_be.programs, 1);
	KUNIT_EXPECT_PTR_EQ(test, t_be.last_qp, t_be.qps[0]);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.state, HL_NIC_CONN_STATE_INIT);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.epoch, 0u);

	/* The responder context: the peer, the expected PSN, the recv CQ */
	KUNIT_EXPECT_EQ(test, t_set_res(e, id, 100, cq), 0);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.state, HL_NIC_CONN_STATE_RTR);
	KUNIT_EXPECT_TRUE(test, t_be.last.set_rq_psn);
	KUNIT_EXPECT_FALSE(test, t_be.last.set_sq_psn);
	KUNIT_EXPECT_EQ(test, t_be.last.rq_psn, 100u);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.rq_size, 16u);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.recv_cq, cq);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.send_cq, 0u);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.remote_addr, T_RADDR);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.remote_conn_id, (u32)T_RCONN);

	/* The requester context: the send PSN, the MTU, the send CQ */
	KUNIT_EXPECT_EQ(test, t_set_req(e, id, 200, cq), 0);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.state, HL_NIC_CONN_STATE_RTS);
	KUNIT_EXPECT_TRUE(test, t_be.last.set_sq_psn);
	KUNIT_EXPECT_FALSE(test, t_be.last.set_rq_psn);
	KUNIT_EXPECT_EQ(test, t_be.last.sq_psn, 200u);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.mtu, (u32)HL_NIC_MTU_1024);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.sq_size, 8u);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.send_cq, cq);

	/* QUERY_CONN reads the PSNs from the QP context */
	t_be.qps[0]->sq_psn = 205;
	q = t_query(test, e, id);
	KUNIT_EXPECT_EQ(test, q.state, (u32)HL_NIC_CONN_STATE_RTS);
	KUNIT_EXPECT_EQ(test, q.sq_psn, 205u);
	KUNIT_EXPECT_EQ(test, q.rq_psn, 100u);

	/* An illegal move programs nothing */
	programs = t_be.programs;
	KUNIT_EXPECT_EQ(test, t_set_res(e, id, 1, cq), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_modify(e, id, HL_NIC_CONN_STATE_RTR), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_be.programs, programs);

	/* ERR: a new epoch (flush), the contexts kept */
	KUNIT_EXPECT_EQ(test, t_modify(e, id, HL_NIC_CONN_STATE_ERR), 0);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.state, HL_NIC_CONN_STATE_ERR);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.epoch, 1u);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.flush_status,
			(u32)HL_NIC_CQE_STATUS_FLUSHED);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.recv_cq, cq);
	KUNIT_EXPECT_FALSE(test, t_be.last.set_sq_psn);

	/* RESET: another epoch, the contexts, CQs and PSNs forgotten */
	KUNIT_EXPECT_EQ(test, t_modify(e, id, HL_NIC_CONN_STATE_RESET), 0);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.state, HL_NIC_CONN_STATE_RESET);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.epoch, 2u);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.recv_cq, 0u);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.send_cq, 0u);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.remote_conn_id, 0u);
	KUNIT_EXPECT_TRUE(test, t_be.last.set_sq_psn && t_be.last.set_rq_psn);
	KUNIT_EXPECT_EQ(test, t_be.last.sq_psn, 0u);
	KUNIT_EXPECT_EQ(test, t_be.last.rq_psn, 0u);
	KUNIT_EXPECT_FALSE(test, t_be.last_conn.destroyed);
	KUNIT_EXPECT_EQ(test, t_be.teardowns, 0);
}

static void hl_nic_core_test_cqe_lands_in_its_cq(struct kunit *test)
{
	struct t_env *e = test->priv;
	u32 rcq = t_cq_create(test, e), scq = t_cq_create(test, e);
	u32 id = t_conn_rts(test, e, rcq, scq);
	struct hl_nic_cqe_report r = {
		.cqe = { .wr_id = 77, .conn_id = id, .port = T_PORT,
			 .opcode = HL_NIC_CQE_OP_SEND, .byte_len = 5 },
		.cq = scq,
	};

	hl_nic_report(e->hdev, &r);
	KUNIT_EXPECT_EQ(test, t_cq(e, scq)->pi, 1ull);
	KUNIT_EXPECT_EQ(test, t_cq(e, scq)->entries[0].wr_id, 77ull);
	KUNIT_EXPECT_EQ(test, t_cq(e, scq)->entries[0].conn_id, id);
	KUNIT_EXPECT_EQ(test, t_cq(e, scq)->entries[0].byte_len, 5ull);
	KUNIT_EXPECT_EQ(test, t_cq(e, rcq)->pi, 0ull);
	/* A completion is not a failure */
	KUNIT_EXPECT_EQ(test, t_query(test, e, id).state,
			(u32)HL_NIC_CONN_STATE_RTS);

	/* An earlier owner's connection (another generation): dropped */
	r.cqe.conn_id = id + (1 << HL_NIC_CONN_ID_SLOT_BITS);
	r.cq = rcq;
	hl_nic_report(e->hdev, &r);
	KUNIT_EXPECT_EQ(test, t_cq(e, rcq)->pi, 0ull);

	/* No such CQ: nothing, anywhere */
	r.cqe.conn_id = id;
	r.cq = scq + rcq + 1;
	hl_nic_report(e->hdev, &r);
	KUNIT_EXPECT_EQ(test, t_cq(e, scq)->pi + t_cq(e, rcq)->pi, 1ull);

	/* The fabric no longer reaches a killed context: dropped */
	hl_nic_ctx_kill(e->ctx);
	r.cq = scq;
	hl_nic_report(e->hdev, &r);
	KUNIT_EXPECT_EQ(test, t_cq(e, scq)->pi, 1ull);
}

static void hl_nic_core_test_failure_moves_to_err(struct kunit *test)
{
	struct t_env *e = test->priv;
	u32 cq = t_cq_create(test, e);
	u32 id = t_conn_rts(test, e, cq, cq);
	struct hl_nic_cqe_report r = {
		.cqe = { .wr_id = 9, .conn_id = id, .port = T_PORT,
			 .status = HL_NIC_CQE_STATUS_PSN_ERR },
		.cq = cq,
		.epoch = 0,
		.flags = HL_NIC_REPORT_FAIL,
	};
	int programs = t_be.programs;

	/* In its epoch: ERR, programmed with a new epoch, and the CQE */
	hl_nic_report(e->hdev, &r);
	KUNIT_EXPECT_EQ(test, t_query(test, e, id).state,
			(u32)HL_NIC_CONN_STATE_ERR);
	KUNIT_EXPECT_EQ(test, t_be.programs, programs + 1);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.state, HL_NIC_CONN_STATE_ERR);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.epoch, 1u);
	KUNIT_EXPECT_EQ(test, t_cq(e, cq)->pi, 1ull);
	KUNIT_EXPECT_EQ(test, t_cq(e, cq)->entries[0].status,
			(u32)HL_NIC_CQE_STATUS_PSN_ERR);

	/* The same failure again: stale, nothing programmed */
	hl_nic_report(e->hdev, &r);
	KUNIT_EXPECT_EQ(test, t_be.programs, programs + 1);

	/* Reset and set up again: a failure of the old epoch leaves it be */
	KUNIT_EXPECT_EQ(test, t_modify(e, id, HL_NIC_CONN_STATE_RESET), 0);
	KUNIT_EXPECT_EQ(test, t_modify(e, id, HL_NIC_CONN_STATE_INIT), 0);
	r.epoch = 1;
	r.cq = 0;
	hl_nic_report(e->hdev, &r);
	KUNIT_EXPECT_EQ(test, t_query(test, e, id).state,
			(u32)HL_NIC_CONN_STATE_INIT);

	/* Of the current epoch (2), also without a CQE: ERR */
	r.epoch = 2;
	hl_nic_report(e->hdev, &r);
	KUNIT_EXPECT_EQ(test, t_query(test, e, id).state,
			(u32)HL_NIC_CONN_STATE_ERR);
	KUNIT_EXPECT_EQ(test, t_cq(e, cq)->pi, 2ull);
}

static void hl_nic_core_test_teardown_once(struct kunit *test)
{
	struct t_env *e = test->priv;
	u32 cq = t_cq_create(test, e);
	u32 a = t_conn_rts(test, e, cq, cq);
	u32 b = t_conn_alloc(test, e);
	struct hl_nic_in in = { .destroy_conn.conn_id = a };

	KUNIT_ASSERT_EQ(test, t_be.creates, 2);
	KUNIT_EXPECT_EQ(test, t_op(e, &in, HL_NIC_OP_DESTROY_CONN, NULL), 0);
	/* The last program says so, then the teardown, once */
	KUNIT_EXPECT_PTR_EQ(test, t_be.last_qp, t_be.qps[0]);
	KUNIT_EXPECT_TRUE(test, t_be.last_conn.destroyed);
	KUNIT_EXPECT_EQ(test, t_be.last_conn.state, HL_NIC_CONN_STATE_ERR);
	KUNIT_EXPECT_EQ(test, t_be.qps[0]->torn, 1);
	KUNIT_EXPECT_EQ(test, t_be.qps[1]->torn, 0);
	/* The CQ lost its user: it may be destroyed */
	KUNIT_EXPECT_EQ(test, t_cq(e, cq)->users, 0u);

	KUNIT_EXPECT_EQ(test, t_op(e, &in, HL_NIC_OP_DESTROY_CONN, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, t_be.teardowns, 1);

	/* The close tears down what is left, once, however often it runs */
	hl_nic_ctx_close(e->ctx);
	hl_nic_ctx_close(e->ctx);
	KUNIT_EXPECT_EQ(test, t_be.qps[0]->torn, 1);
	KUNIT_EXPECT_EQ(test, t_be.qps[1]->torn, 1);
	KUNIT_EXPECT_EQ(test, t_be.teardowns, 2);
	in.destroy_conn.conn_id = b;
	KUNIT_EXPECT_EQ(test, t_op(e, &in, HL_NIC_OP_DESTROY_CONN, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, t_be.teardowns, 2);
}

static struct kunit_case hl_nic_core_test_cases[] = {
	KUNIT_CASE(hl_nic_core_test_hooks_follow_state_machine),
	KUNIT_CASE(hl_nic_core_test_cqe_lands_in_its_cq),
	KUNIT_CASE(hl_nic_core_test_failure_moves_to_err),
	KUNIT_CASE(hl_nic_core_test_teardown_once),
	{}
};

static struct kunit_suite hl_nic_core_test_suite = {
	.name = "habanalabs_nic_core",
	.init = t_init,
	.exit = t_exit,
	.test_cases = hl_nic_core_test_cases,
};

kunit_test_suites(&hl_nic_core_test_suite);

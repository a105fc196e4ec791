// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the NIC connection (QP) state machine (nic.c): every
 * (state, event) pair against a table written out here from the uAPI's
 * description of the states (include/uapi/misc/habanalabs.h, enum
 * hl_nic_conn_state and HL_NIC_OP_MODIFY_CONN), not from nic.c; the way to
 * RTS; which states take work (matching, the wire's, is tested in
 * emu/emu_nic_kunit.c). Memory-region keys (nic_mr.c): the slot comes
 * back from the key, the tag and the salt change the key; the bounds and
 * access check against ranges written out here, near 2^64 too.
 *
 * Built into habanalabs.ko with CONFIG_HABANALABS_KUNIT_TEST (the debug
 * kernel lane); the suite runs at module load.
 */

#include <kunit/test.h>

#include "habanalabs.h"
#include "debug.h"
#include "nic.h"
#include "nic_mr.h"

#define T_NR_STATES	(HL_NIC_CONN_STATE_ERR + 1)
#define T_NR_EVENTS	(HL_NIC_CONN_EV_FAIL + 1)
#define T_BAD		(-EINVAL)

#define T_RESET		HL_NIC_CONN_STATE_RESET
#define T_INIT		HL_NIC_CONN_STATE_INIT
#define T_RTR		HL_NIC_CONN_STATE_RTR
#define T_RTS		HL_NIC_CONN_STATE_RTS
#define T_ERR		HL_NIC_CONN_STATE_ERR

/* [event][from]: the next state, or T_BAD */
static const int t_next[T_NR_EVENTS][T_NR_STATES] = {
	/*                              RESET    INIT   RTR    RTS    ERR */
	[HL_NIC_CONN_EV_MODIFY_INIT] = { T_INIT, T_BAD, T_BAD, T_BAD, T_BAD },
	[HL_NIC_CONN_EV_SET_RES] =     { T_BAD, T_RTR, T_BAD, T_BAD, T_BAD },
	[HL_NIC_CONN_EV_SET_REQ] =     { T_BAD, T_BAD, T_RTS, T_BAD, T_BAD },
	[HL_NIC_CONN_EV_MODIFY_RESET] = { T_RESET, T_RESET, T_RESET, T_RESET,
					  T_RESET },
	[HL_NIC_CONN_EV_MODIFY_ERR] =  { T_ERR, T_ERR, T_ERR, T_ERR, T_ERR },
	[HL_NIC_CONN_EV_FAIL] =        { T_ERR, T_ERR, T_ERR, T_ERR, T_ERR },
};

static void hl_nic_conn_test_every_pair(struct kunit *test)
{
	int from, ev;

	for (ev = 0; ev < T_NR_EVENTS; ev++)
		for (from = 0; from < T_NR_STATES; from++)
			KUNIT_EXPECT_EQ_MSG(test,
					    hl_nic_conn_next_state(from, ev),
					    t_next[ev][from],
					    "event %d in state %d", ev, from);
}

static void hl_nic_conn_test_unknown_event(struct kunit *test)
{
	int from;

	for (from = 0; from < T_NR_STATES; from++)
		KUNIT_EXPECT_EQ(test, hl_nic_conn_next_state(from, 99),
				-EINVAL);
}

/*
 * From any state, RTS is reached by the bring-up sequence after a reset,
 * and by nothing shorter: no single event but SET_REQ enters RTS, and
 * SET_REQ only from RTR.
 */
static void hl_nic_conn_test_way_to_rts(struct kunit *test)
{
	static const int up[] = {
		HL_NIC_CONN_EV_MODIFY_RESET, HL_NIC_CONN_EV_MODIFY_INIT,
		HL_NIC_CONN_EV_SET_RES, HL_NIC_CONN_EV_SET_REQ,
	};
	int from, ev, i, s;

	for (from = 0; from < T_NR_STATES; from++) {
		s = from;
		for (i = 0; i < ARRAY_SIZE(up); i++) {
			s = hl_nic_conn_next_state(s, up[i]);
			KUNIT_ASSERT_GE(test, s, 0);
		}
		KUNIT_EXPECT_EQ(test, s, T_RTS);

		for (ev = 0; ev < T_NR_EVENTS; ev++) {
			s = hl_nic_conn_next_state(from, ev);
			if (s == T_RTS) {
				KUNIT_EXPECT_EQ(test, ev, HL_NIC_CONN_EV_SET_REQ);
				KUNIT_EXPECT_EQ(test, from, T_RTR);
			}
		}
	}
	/* A failed connection must be reset before it is set up again */
	KUNIT_EXPECT_EQ(test, hl_nic_conn_next_state(T_ERR,
						     HL_NIC_CONN_EV_MODIFY_INIT),
			-EINVAL);
}

static void hl_nic_conn_test_takes_work(struct kunit *test)
{
	int s;

	for (s = 0; s < T_NR_STATES; s++) {
		KUNIT_EXPECT_EQ_MSG(test, hl_nic_conn_takes_sends(s), s == T_RTS,
				    "state %d", s);
		KUNIT_EXPECT_EQ_MSG(test, hl_nic_conn_takes_recvs(s),
				    s == T_RTR || s == T_RTS, "state %d", s);
	}
}

static struct kunit_case hl_nic_conn_test_cases[] = {
	KUNIT_CASE(hl_nic_conn_test_every_pair),
	KUNIT_CASE(hl_nic_conn_test_unknown_event),
	KUNIT_CASE(hl_nic_conn_test_way_to_rts),
	KUNIT_CASE(hl_nic_conn_test_takes_work),
	{}
};

static struct kunit_suite hl_nic_conn_test_suite = {
	.name = "habanalabs_nic_conn",
	.test_cases = hl_nic_conn_test_cases,
};

/* Memory-region keys and checks (nic_mr.c) */

/*
 * The backoff of a device that failed rkey checks: free at first, then
 * doubling from the minimum, never above the maximum, never going down
 */
static void hl_nic_mr_test_backoff(struct kunit *test)
{
	u32 n, ms, prev = 0;

	for (n = 0; n <= HL_NIC_RKEY_FREE_FAILS; n++)
		KUNIT_EXPECT_EQ(test, hl_nic_mr_backoff_ms(n), 0);
	KUNIT_EXPECT_EQ(test, hl_nic_mr_backoff_ms(HL_NIC_RKEY_FREE_FAILS + 1),
			HL_NIC_RKEY_BACKOFF_MIN_MS);
	KUNIT_EXPECT_EQ(test, hl_nic_mr_backoff_ms(HL_NIC_RKEY_FREE_FAILS + 2),
			2 * HL_NIC_RKEY_BACKOFF_MIN_MS);
	for (n = HL_NIC_RKEY_FREE_FAILS + 1; n < 200; n++) {
		ms = hl_nic_mr_backoff_ms(n);
		KUNIT_EXPECT_GE(test, ms, prev);
		KUNIT_EXPECT_LE(test, ms, HL_NIC_RKEY_BACKOFF_MAX_MS);
		KUNIT_EXPECT_TRUE(test, ms == 2 * prev || !prev ||
				  ms == HL_NIC_RKEY_BACKOFF_MAX_MS);
		prev = ms;
	}
	KUNIT_EXPECT_EQ(test, hl_nic_mr_backoff_ms(U32_MAX),
			HL_NIC_RKEY_BACKOFF_MAX_MS);
}

/**
 * struct t_mr_case - a range against a region.
 * @iova: region start.
 * @size: region bytes.
 * @access: region flags.
 * @need: the work's flags.
 * @va: the work's start.
 * @len: the work's bytes.
 * @rc: the expected result.
 */
struct t_mr_case {
	u64 iova, size;
	u32 access, need;
	u64 va, len;
	int rc;
};

#define T_RW	(HL_NIC_ACCESS_LOCAL_WRITE | HL_NIC_ACCESS_REMOTE_WRITE)
#define T_LW	HL_NIC_ACCESS_LOCAL_WRITE
#define T_NEED	HL_NIC_ACCESS_REMOTE_WRITE

static const struct t_mr_case t_mr_cases[] = {
	{ 0x1000, 0x1000, T_RW, T_NEED, 0x1000, 0x1000, 0 },
	{ 0x1000, 0x1000, T_RW, T_NEED, 0x1fff, 1, 0 },
	{ 0x1000, 0x1000, T_RW, T_NEED, 0x2000, 0, 0 },
	{ 0x1000, 0x1000, T_RW, T_NEED, 0x2000, 1, -ERANGE },
	{ 0x1000, 0x1000, T_RW, T_NEED, 0x2001, 0, -ERANGE },
	{ 0x1000, 0x1000, T_RW, T_NEED, 0xfff, 1, -ERANGE },
	{ 0x1000, 0x1000, T_RW, T_NEED, 0x1001, 0x1000, -ERANGE },
	{ 0x1000, 0x1000, T_LW, T_NEED, 0x1000, 1, -EACCES },
	{ 0x1000, 0x1000, T_LW, 0, 0x1000, 1, 0 },
	/* Sums near 2^64 would wrap: none is formed */
	{ 0x1000, 0x1000, T_RW, T_NEED, 0x1800, U64_MAX, -ERANGE },
	{ 0x1000, 0x1000, T_RW, T_NEED, U64_MAX, 2, -ERANGE },
	{ U64_MAX - 0xfff, 0x1000, T_RW, T_NEED, U64_MAX, 1, 0 },
	{ U64_MAX - 0xfff, 0x1000, T_RW, T_NEED, U64_MAX, 2, -ERANGE },
	{ U64_MAX - 0xfff, 0x1000, T_RW, T_NEED, U64_MAX - 0xfff, 0x1000, 0 },
	{ 0, U64_MAX, T_RW, T_NEED, 1, U64_MAX, -ERANGE },
	{ 0, U64_MAX, T_RW, T_NEED, 0, U64_MAX, 0 },
};

static void hl_nic_mr_test_check(struct kunit *test)
{
	const struct t_mr_case *c;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(t_mr_cases); i++) {
		c = &t_mr_cases[i];
		KUNIT_EXPECT_EQ_MSG(test,
				    hl_nic_mr_check(c->iova, c->size, c->access,
						    c->need, c->va, c->len),
				    c->rc, "case %u: [0x%llx + 0x%llx) in [0x%llx + 0x%llx)",
				    i, c->va, c->len, c->iova, c->size);
	}
}

static struct kunit_case hl_nic_mr_test_cases[] = {
	KUNIT_CASE(hl_nic_mr_test_backoff),
	KUNIT_CASE(hl_nic_mr_test_check),
	{}
};

static struct kunit_suite hl_nic_mr_test_suite = {
	.name = "habanalabs_nic_mr",
	.test_cases = hl_nic_mr_test_cases,
};

kunit_test_suites(&hl_nic_conn_test_suite, &hl_nic_mr_test_suite);

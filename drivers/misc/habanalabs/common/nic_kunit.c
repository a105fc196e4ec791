// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the NIC connection (QP) state machine (nic.c): every
 * (state, event) pair against a table written out here from the uAPI's
 * description of the states (include/uapi/misc/habanalabs.h, enum
 * hl_nic_conn_state and HL_NIC_OP_MODIFY_CONN), not from nic.c; the way to
 * RTS; which states take work.
 *
 * Built into habanalabs.ko with CONFIG_HABANALABS_KUNIT_TEST (the debug
 * kernel lane); the suite runs at module load.
 */

#include <kunit/test.h>

#include "habanalabs.h"
#include "nic.h"

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

kunit_test_suite(hl_nic_conn_test_suite);

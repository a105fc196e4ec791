// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the sync manager (emu_sync.c): a FENCE that gives up
 * while its monitor fires. The engine's FENCE (emu_queue.c,
 * hl_emu_exec_fence()) looks at its counter (hl_emu_sync_fence_take()),
 * finds its job past its deadline and gives up (hl_emu_sync_fence_abort());
 * another queue's SOB write may fire the monitor aimed at the counter in
 * between. The cases play that interleaving step by step: a count that
 * lands for a FENCE that gave up must not pass the queue's next FENCE.
 *
 * Built into habanalabs.ko when the kernel has CONFIG_KUNIT (the debug
 * kernel lane); the suite runs at module load.
 */

#include <kunit/test.h>

#include "emu.h"
#include "emu_sync.h"

/* A SOB and a monitor of the user's range, a queue and its fence */
#define T_SOB		256
#define T_MON		128
#define T_QUEUE		1
#define T_FENCE		HL_EMU_WAIT_FENCE

struct hl_emu_sync_test {
	struct hl_emu_device emu;
};

static int hl_emu_sync_test_init(struct kunit *test)
{
	struct hl_emu_sync_test *t;
	struct hl_device *hdev;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	hdev = hl_device_kunit_alloc(test, &t->emu);
	KUNIT_ASSERT_FALSE(test, IS_ERR(hdev));
	t->emu.hdev = hdev;
	/* The sync manager has a fence block per queue: asic=emu's queues */
	t->emu.num_queues = HL_EMU_NUM_QUEUES;
	KUNIT_ASSERT_EQ(test, hl_emu_sync_alloc(&t->emu), 0);
	test->priv = t;
	return 0;
}

static void hl_emu_sync_test_exit(struct kunit *test)
{
	struct hl_emu_sync_test *t = test->priv;

	hl_emu_sync_free(&t->emu);
}

/*
 * What the driver's WAIT does: arm T_MON on T_SOB >= 1 into the fence
 * (T_SOB set to 0 first: a new round)
 */
static void t_arm(struct kunit *test, struct hl_emu_device *emu)
{
	u64 fence = HL_QM_FENCE_RDATA(T_QUEUE, T_FENCE);

	KUNIT_ASSERT_EQ(test, hl_emu_sync_write(emu, HL_SM_SOB_ADDR(T_SOB), 0),
			0);
	KUNIT_ASSERT_EQ(test, hl_emu_sync_write(emu,
						HL_SM_MON_PAY_ADDRL_ADDR(T_MON),
						lower_32_bits(fence)), 0);
	KUNIT_ASSERT_EQ(test, hl_emu_sync_write(emu,
						HL_SM_MON_PAY_ADDRH_ADDR(T_MON),
						upper_32_bits(fence)), 0);
	KUNIT_ASSERT_EQ(test, hl_emu_sync_write(emu,
						HL_SM_MON_PAY_DATA_ADDR(T_MON),
						1), 0);
	KUNIT_ASSERT_EQ(test, hl_emu_sync_write(emu, HL_SM_MON_ARM_ADDR(T_MON),
						HL_SM_MON_ARM(T_SOB / 8,
							      0xff & ~BIT(T_SOB % 8),
							      0, 1)), 0);
}

/* Another queue's SIGNAL: T_SOB + 1 */
static void t_signal(struct kunit *test, struct hl_emu_device *emu)
{
	KUNIT_ASSERT_EQ(test, hl_emu_sync_write(emu, HL_SM_SOB_ADDR(T_SOB),
						HL_SM_SOB_INC | 1), 0);
}

/* The FENCE of the WAIT: target 1, decrement 1 */
static bool t_take(struct hl_emu_device *emu)
{
	return hl_emu_sync_fence_take(emu, T_QUEUE, T_QUEUE, T_FENCE, 1, 1);
}

/* It gives up: the same target and decrement */
static void t_abort(struct hl_emu_device *emu)
{
	hl_emu_sync_fence_abort(emu, T_QUEUE, T_QUEUE, T_FENCE, 1, 1);
}

/* Controls: a fire before the FENCE passes it; one after the abort is lost */
static void hl_emu_sync_test_fire_before_or_after(struct kunit *test)
{
	struct hl_emu_sync_test *t = test->priv;

	t_arm(test, &t->emu);
	KUNIT_EXPECT_FALSE(test, t_take(&t->emu));
	t_signal(test, &t->emu);
	KUNIT_EXPECT_TRUE(test, t_take(&t->emu));
	/* Taken: the counter is back at 0 */
	KUNIT_EXPECT_FALSE(test, t_take(&t->emu));

	/* Gave up, then the late signal: the monitor was disarmed */
	t_arm(test, &t->emu);
	KUNIT_EXPECT_FALSE(test, t_take(&t->emu));
	t_abort(&t->emu);
	t_signal(test, &t->emu);
	KUNIT_EXPECT_FALSE(test, t_take(&t->emu));
}

/*
 * The fire lands between the FENCE's last look and its abort: the count
 * belongs to the FENCE that gave up, never to the queue's next one (a
 * WAIT released by the previous WAIT's signal)
 */
static void hl_emu_sync_test_fire_racing_the_abort(struct kunit *test)
{
	struct hl_emu_sync_test *t = test->priv;

	t_arm(test, &t->emu);
	KUNIT_EXPECT_FALSE(test, t_take(&t->emu));
	t_signal(test, &t->emu);
	t_abort(&t->emu);
	/* The queue's next FENCE, with nothing armed for it */
	KUNIT_EXPECT_FALSE(test, t_take(&t->emu));
}

static struct kunit_case hl_emu_sync_test_cases[] = {
	KUNIT_CASE(hl_emu_sync_test_fire_before_or_after),
	KUNIT_CASE(hl_emu_sync_test_fire_racing_the_abort),
	{}
};

static struct kunit_suite hl_emu_sync_test_suite = {
	.name = "habanalabs_emu_sync",
	.init = hl_emu_sync_test_init,
	.exit = hl_emu_sync_test_exit,
	.test_cases = hl_emu_sync_test_cases,
};

kunit_test_suite(hl_emu_sync_test_suite);

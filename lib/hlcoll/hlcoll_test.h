/* SPDX-License-Identifier: MIT */
/*
 * hlcoll_test.h - libhlcoll's test-only hooks (not installed): planted bugs
 * for the negative controls of tests/collective. The library refers to each
 * hook weakly (hlcoll_int.h) and defines none, so that no environment
 * variable or other run-time knob reaches them: only a program that
 * defines the variable (the collective suite) can set it, before it
 * creates its communicators.
 */
#ifndef HLCOLL_TEST_H
#define HLCOLL_TEST_H

/*
 * The chained steps (hlcoll_nic.c): 0, or HLCOLL_TEST_CHAIN_EARLY: no FENCE
 * between the steps on the send queue, and rank 0 holds its first step's
 * last reduction until its second step's sends went (the schedule that the
 * missing FENCE allows, made certain), so that a partial sum always goes on
 */
#define HLCOLL_TEST_CHAIN_EARLY	1
extern int hlcoll_test_chain_inject;

/*
 * The one-sided path (hlcoll_nic.c, HLCOLL_NIC_WRITE=1): 0, or a planted
 * bug: a chunk written into the other slot (OFFSET), a forged rkey (RKEY),
 * a wrong immediate value (IMM); or STAGE: the send buffer's registration
 * skipped, every chunk staged through the sender's slot (no bug)
 */
#define HLCOLL_TEST_NIC_WRITE_OFFSET	1
#define HLCOLL_TEST_NIC_WRITE_RKEY	2
#define HLCOLL_TEST_NIC_WRITE_IMM	3
#define HLCOLL_TEST_NIC_WRITE_STAGE	4
extern int hlcoll_test_nic_write_inject;

/*
 * The hierarchical collectives across hosts (hlcoll_hosts.c): 0, or
 * HLCOLL_TEST_HIER_NO_LOCAL: their passes within a host are skipped (each
 * result then misses the other ranks of the host)
 */
#define HLCOLL_TEST_HIER_NO_LOCAL	1
extern int hlcoll_test_hier_inject;

/*
 * The small all-reduce (hlcoll_nic.c, hlcoll_nic_allreduce_small()): 0, or
 * HLCOLL_TEST_SMALL_ORDER: each segment's reduction starts one rank later
 * than the ring's (the same values added in another order)
 */
#define HLCOLL_TEST_SMALL_ORDER	1
extern int hlcoll_test_small_inject;

#endif /* HLCOLL_TEST_H */

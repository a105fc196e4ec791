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

#endif /* HLCOLL_TEST_H */

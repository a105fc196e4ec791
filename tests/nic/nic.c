// SPDX-License-Identifier: MIT
/*
 * nic: the NIC ports (HL_INFO_NIC_PORTS), connection set-up and the QP state
 * machine (HL_IOCTL_NIC), completion queues, and the data path: messages
 * sent by HL_PKT_NIC_SEND from one device's memory into another's, and
 * one-sided writes into registered regions, compared byte for byte. One
 * binary, tests/bin/nic, of a file per concern; the fixtures (a pair of
 * connected devices, NIC command submissions, regions) are in
 * tests/common/hltests_nic.[ch]:
 *
 *   nic_conn.c    INFO, connection set-up, the QP state machine, errnos
 *   nic_cq.c      completion queues: create/destroy, poll/wait/update,
 *                 signals
 *   nic_send.c    SEND/RECV: data, order, PSNs, mismatches, link down,
 *                 hard reset, destroyed connections, unmapped addresses
 *   nic_owners.c  processes and owners: two processes, an owner that exits,
 *                 non-owners, a peer unbound mid-transfer, the next owner
 *                 (issue 24), endless CQ waits against reset and unbind
 *   nic_mr.c      memory regions and one-sided writes (issue 19): keys,
 *                 the responder's checks, DEREG_MR against writes in
 *                 flight, teardown with live regions
 *   nic_review.c  reproducers of the reviews: teardown and resets across
 *                 the backend's hooks, both directions at once (issue 20)
 *
 * Each file ends with its table (nic_<concern>_tests[]); main() runs them
 * in the order above as one group, "nic". Most tests use devices 0 and 1
 * from one process (each fd owns its device); the process and owner tests
 * fork one process per device. Tests that need two devices skip with
 * fewer.
 */
#include "hltests_nic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	static const struct {
		const struct CMUnitTest *tests;
		const size_t *num;
	} parts[] = {
		{ nic_conn_tests, &nic_conn_tests_num },
		{ nic_cq_tests, &nic_cq_tests_num },
		{ nic_send_tests, &nic_send_tests_num },
		{ nic_owners_tests, &nic_owners_tests_num },
		{ nic_mr_tests, &nic_mr_tests_num },
		{ nic_review_tests, &nic_review_tests_num },
	};
	struct CMUnitTest *all;
	size_t i, n = 0;
	int rc;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		n += *parts[i].num;
	all = calloc(n, sizeof(*all));
	if (!all)
		return 1;
	for (n = 0, i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		memcpy(all + n, parts[i].tests,
		       *parts[i].num * sizeof(*all));
		n += *parts[i].num;
	}
	print_message("nic: PRNG seed 0x%llx\n", (unsigned long long)SEED);
	rc = hltests_run_group("nic", all, n);
	free(all);
	return rc;
}

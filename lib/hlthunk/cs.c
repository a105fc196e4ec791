// SPDX-License-Identifier: MIT
/*
 * cs.c - command submission wrappers: HL_IOCTL_CS (submit, with or without
 * a custom timeout) and HL_IOCTL_WAIT_CS (wait for one submission, with
 * its completion timestamp). Waiting for the first of several (multi-CS)
 * is in runtime.c.
 */

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "hlthunk_internal.h"

hlthunk_public int hlthunk_command_submission_timeout(int fd,
				struct hlthunk_cs_in *in,
				struct hlthunk_cs_out *out, uint32_t timeout)
{
	union hl_cs_args args;
	int rc;

	if (!in || !out)
		return hlthunk_err(EINVAL);

	memset(&args, 0, sizeof(args));
	hlthunk_cs_args_fill(&args, in, timeout);

	rc = hlthunk_ioctl(fd, HL_IOCTL_CS, &args);
	if (rc < 0)
		return rc;

	out->seq = args.out.seq;
	out->status = args.out.status;
	out->sob_count_before_submission = args.out.sob_count_before_submission;

	return 0;
}

hlthunk_public int hlthunk_command_submission(int fd, struct hlthunk_cs_in *in,
					      struct hlthunk_cs_out *out)
{
	return hlthunk_command_submission_timeout(fd, in, out, 0);
}

hlthunk_public int hlthunk_wait_for_cs_with_timestamp(int fd, uint64_t seq,
				uint64_t timeout_us, uint32_t *status,
				uint64_t *timestamp)
{
	struct hlthunk_deadline deadline;
	union hl_wait_cs_args args;
	uint32_t st;
	int rc;

	/*
	 * A signal ends the driver's wait with EINTR: wait again for what is
	 * left of @timeout_us (once it has run out, a last wait of 0 polls),
	 * so that neither the caller sees EINTR nor a periodic signal makes
	 * the call outlive its timeout. The driver counts in jiffies, which
	 * may run out a little before CLOCK_MONOTONIC says: a BUSY before the
	 * deadline waits for the rest. A timeout of UINT32_MAX us or more has
	 * no limit, as in the driver.
	 */
	hlthunk_deadline_start(&deadline, timeout_us, UINT32_MAX);
	for (;;) {
		memset(&args, 0, sizeof(args));
		args.in.seq = seq;
		args.in.timeout_us = hlthunk_deadline_left_us(&deadline,
							      timeout_us);
		rc = hlthunk_ioctl_once(fd, HL_IOCTL_WAIT_CS, &args);
		if (rc == -EINTR)
			continue;
		if (!rc && args.out.status == HL_WAIT_CS_STATUS_BUSY &&
		    args.in.timeout_us &&
		    hlthunk_deadline_left_us(&deadline, timeout_us))
			continue;
		break;
	}
	if (rc == -EIO) {
		/* The CS failed; the driver's status says so too */
		st = HL_WAIT_CS_STATUS_ABORTED;
	} else if (rc == -ETIMEDOUT) {
		st = HL_WAIT_CS_STATUS_TIMEDOUT;
	} else if (rc < 0) {
		return rc;
	} else {
		rc = 0;
		st = args.out.status;
	}

	if (status)
		*status = st;
	/* As hl-thunk: written only when the driver says it is valid */
	if (timestamp && !rc &&
	    (args.out.flags & HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD))
		*timestamp = (uint64_t)args.out.timestamp_nsec;

	return rc;
}

hlthunk_public int hlthunk_wait_for_cs(int fd, uint64_t seq,
				       uint64_t timeout_us, uint32_t *status)
{
	return hlthunk_wait_for_cs_with_timestamp(fd, seq, timeout_us, status,
						  NULL);
}

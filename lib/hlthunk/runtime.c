// SPDX-License-Identifier: MIT
/*
 * runtime.c - the calls a runtime makes on every step, with hl-thunk's
 * names and signatures: driver-owned command buffers (HL_IOCTL_CB),
 * waiting for the first of several submissions (WAIT_CS multi-CS), device
 * events through an eventfd (the notifier) and the device's counters.
 * hl-thunk's hash table helpers are in hash.c.
 *
 * As everywhere in libhlthunk, a failure returns -errno with errno set
 * (hl-thunk's own versions of these calls mix -1 and -errno).
 */

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "hlthunk_internal.h"

/* HLTHUNK_2.3, and non-default HLTHUNK_2.1 for 2.2.0's binaries */
HLTHUNK_MOVED_FROM_2_1(hlthunk_destroy_command_buffer);
HLTHUNK_MOVED_FROM_2_1(hlthunk_get_cb_usage_count);
HLTHUNK_MOVED_FROM_2_1(hlthunk_get_cs_counters_info);
HLTHUNK_MOVED_FROM_2_1(hlthunk_get_device_utilization);
HLTHUNK_MOVED_FROM_2_1(hlthunk_get_engine_status);
HLTHUNK_MOVED_FROM_2_1(hlthunk_get_event_record);
HLTHUNK_MOVED_FROM_2_1(hlthunk_get_hw_events_arr);
HLTHUNK_MOVED_FROM_2_1(hlthunk_get_mapped_cb_device_va_by_handle);
HLTHUNK_MOVED_FROM_2_1(hlthunk_get_open_stats);
HLTHUNK_MOVED_FROM_2_1(hlthunk_get_reset_count_info);
HLTHUNK_MOVED_FROM_2_1(hlthunk_get_time_sync_info);
HLTHUNK_MOVED_FROM_2_1(hlthunk_notifier_create);
HLTHUNK_MOVED_FROM_2_1(hlthunk_notifier_recv);
HLTHUNK_MOVED_FROM_2_1(hlthunk_notifier_release);
HLTHUNK_MOVED_FROM_2_1(hlthunk_request_command_buffer);
HLTHUNK_MOVED_FROM_2_1(hlthunk_request_mapped_command_buffer);
HLTHUNK_MOVED_FROM_2_1(hlthunk_wait_for_multi_cs);
HLTHUNK_MOVED_FROM_2_1(hlthunk_wait_for_multi_cs_with_timestamp);

/* ------------------------------------------------------------------------
 * Command buffers
 */

static int hlthunk_cb(int fd, union hl_cb_args *args)
{
	int rc = hlthunk_ioctl(fd, HL_IOCTL_CB, args);

	return rc < 0 ? rc : 0;
}

static int hlthunk_cb_create(int fd, uint32_t cb_size, uint32_t flags,
			     uint64_t *cb_handle)
{
	union hl_cb_args args;
	int rc;

	/* The driver's range, checked here too: EINVAL on any fd */
	if (!cb_handle || !cb_size || cb_size > HL_MAX_CB_SIZE)
		return hlthunk_err(EINVAL);

	memset(&args, 0, sizeof(args));
	args.in.op = HL_CB_OP_CREATE;
	args.in.cb_size = cb_size;
	args.in.flags = flags;
	rc = hlthunk_cb(fd, &args);
	if (rc)
		return rc;

	*cb_handle = args.out.cb_handle;
	return 0;
}

hlthunk_public int hlthunk_request_command_buffer(int fd, uint32_t cb_size,
						  uint64_t *cb_handle)
{
	return hlthunk_cb_create(fd, cb_size, 0, cb_handle);
}

hlthunk_public int hlthunk_request_mapped_command_buffer(int fd,
							 uint32_t cb_size,
							 uint64_t *cb_handle)
{
	return hlthunk_cb_create(fd, cb_size, HL_CB_FLAGS_MAP, cb_handle);
}

hlthunk_public int hlthunk_destroy_command_buffer(int fd, uint64_t cb_handle)
{
	union hl_cb_args args;

	memset(&args, 0, sizeof(args));
	args.in.op = HL_CB_OP_DESTROY;
	args.in.cb_handle = cb_handle;
	return hlthunk_cb(fd, &args);
}

hlthunk_public int hlthunk_get_mapped_cb_device_va_by_handle(int fd,
							     uint64_t cb_handle,
							     uint64_t *device_va)
{
	union hl_cb_args args;
	int rc;

	if (!device_va)
		return hlthunk_err(EINVAL);

	memset(&args, 0, sizeof(args));
	args.in.op = HL_CB_OP_INFO;
	args.in.cb_handle = cb_handle;
	args.in.flags = HL_CB_FLAGS_GET_DEVICE_VA;
	rc = hlthunk_cb(fd, &args);
	if (rc)
		return rc;

	*device_va = args.out.device_va;
	return 0;
}

hlthunk_public int hlthunk_get_cb_usage_count(int fd, uint64_t cb_handle,
					      uint32_t *usage_cnt)
{
	union hl_cb_args args;
	int rc;

	if (!usage_cnt)
		return hlthunk_err(EINVAL);

	memset(&args, 0, sizeof(args));
	args.in.op = HL_CB_OP_INFO;
	args.in.cb_handle = cb_handle;
	rc = hlthunk_cb(fd, &args);
	if (rc)
		return rc;

	*usage_cnt = args.out.usage_cnt;
	return 0;
}

/* ------------------------------------------------------------------------
 * Waiting for the first of several submissions
 */

static int hlthunk_wait_multi(int fd, struct hlthunk_wait_multi_cs_in *in,
			      struct hlthunk_wait_multi_cs_out *out,
			      union hl_wait_cs_args *args)
{
	int rc;

	/* A length the u8 cannot hold is refused, not truncated */
	if (!in || !out || !in->seq || !in->seq_len ||
	    in->seq_len > HL_WAIT_MULTI_CS_LIST_MAX_LEN)
		return hlthunk_err(EINVAL);

	memset(args, 0, sizeof(*args));
	args->in.seq = hlthunk_ptr_to_u64(in->seq);
	args->in.timeout_us = in->timeout_us;
	args->in.flags = HL_WAIT_CS_FLAGS_MULTI_CS;
	args->in.seq_arr_len = (uint8_t)in->seq_len;

	rc = hlthunk_ioctl(fd, HL_IOCTL_WAIT_CS, args);
	if (rc < 0 && rc != -EIO)
		return rc;

	/* Also on -EIO (a completed CS failed): which ones completed */
	out->status = args->out.status;
	out->seq_set = args->out.cs_completion_map;
	out->completed = (uint8_t)__builtin_popcount(args->out.cs_completion_map);
	return rc < 0 ? rc : 0;
}

hlthunk_public int hlthunk_wait_for_multi_cs(int fd,
					     struct hlthunk_wait_multi_cs_in *in,
					     struct hlthunk_wait_multi_cs_out *out)
{
	union hl_wait_cs_args args;

	return hlthunk_wait_multi(fd, in, out, &args);
}

hlthunk_public int hlthunk_wait_for_multi_cs_with_timestamp(int fd,
				struct hlthunk_wait_multi_cs_in *in,
				struct hlthunk_wait_multi_cs_out *out,
				uint64_t *timestamp)
{
	union hl_wait_cs_args args;
	int rc;

	if (!timestamp)
		return hlthunk_err(EINVAL);
	*timestamp = 0;

	rc = hlthunk_wait_multi(fd, in, out, &args);
	if ((!rc || rc == -EIO) &&
	    (args.out.flags & HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD))
		*timestamp = (uint64_t)args.out.timestamp_nsec;
	return rc;
}

/* ------------------------------------------------------------------------
 * Events
 */

hlthunk_public int hlthunk_notifier_create(int fd)
{
	struct hl_info_args args;
	int handle, rc;

	handle = eventfd(0, EFD_CLOEXEC);
	if (handle < 0)
		return -errno;

	memset(&args, 0, sizeof(args));
	args.op = HL_INFO_REGISTER_EVENTFD;
	args.eventfd = (uint32_t)handle;
	rc = hlthunk_ioctl(fd, HL_IOCTL_INFO, &args);
	if (rc < 0) {
		close(handle);
		return hlthunk_err(-rc);
	}
	return handle;
}

hlthunk_public int hlthunk_notifier_release(int fd, int handle)
{
	struct hl_info_args args;
	int rc;

	if (handle < 0)
		return hlthunk_err(EINVAL);
	memset(&args, 0, sizeof(args));
	args.op = HL_INFO_UNREGISTER_EVENTFD;
	args.eventfd = (uint32_t)handle;
	rc = hlthunk_ioctl(fd, HL_IOCTL_INFO, &args);
	if (rc < 0)
		return rc;
	if (close(handle))
		return -errno;
	return 0;
}

hlthunk_public int hlthunk_notifier_recv(int fd, int handle,
					 uint64_t *notifier_events,
					 uint64_t *notifier_cnt,
					 uint32_t flags, uint32_t timeout)
{
	struct pollfd pfd = { .fd = handle, .events = POLLIN };
	struct hl_info_args args;
	uint64_t cnt;
	ssize_t n;
	int rc;

	(void)flags;
	/* poll() would ignore a negative @handle and report nothing */
	if (handle < 0 || !notifier_events || !notifier_cnt)
		return hlthunk_err(EINVAL);
	*notifier_cnt = 0;

	rc = poll(&pfd, 1, (int)timeout);
	if (rc < 0)
		return -errno;
	if (rc == 0)
		return 0;

	n = read(handle, &cnt, sizeof(cnt));
	if (n < 0)
		return -errno;
	if (n != sizeof(cnt))
		return hlthunk_err(EIO);

	memset(&args, 0, sizeof(args));
	args.op = HL_INFO_GET_EVENTS;
	args.return_pointer = hlthunk_ptr_to_u64(notifier_events);
	args.return_size = sizeof(*notifier_events);
	rc = hlthunk_ioctl(fd, HL_IOCTL_INFO, &args);
	if (rc < 0)
		return rc;

	*notifier_cnt = cnt;
	return 0;
}

/* ------------------------------------------------------------------------
 * Counters
 */

static int hlthunk_info_arg(int fd, uint32_t op, uint32_t arg, void *buf,
			    uint32_t size)
{
	struct hl_info_args args;
	int rc;

	memset(&args, 0, sizeof(args));
	args.op = op;
	args.period_ms = arg;
	args.return_pointer = hlthunk_ptr_to_u64(buf);
	args.return_size = size;
	rc = hlthunk_ioctl(fd, HL_IOCTL_INFO, &args);
	return rc < 0 ? rc : 0;
}

hlthunk_public int hlthunk_get_reset_count_info(int fd,
				struct hlthunk_reset_count_info *info)
{
	struct hl_info_reset_count raw;
	int rc;

	if (!info)
		return hlthunk_err(EINVAL);
	memset(&raw, 0, sizeof(raw));
	rc = hlthunk_info_arg(fd, HL_INFO_RESET_COUNT, 0, &raw, sizeof(raw));
	if (rc)
		return rc;
	info->hard_reset_count = raw.hard_reset_cnt;
	info->soft_reset_count = raw.soft_reset_cnt;
	return 0;
}

hlthunk_public int hlthunk_get_cs_counters_info(int fd,
				struct hl_info_cs_counters *info)
{
	struct hl_info_cs_counters raw;
	int rc;

	if (!info)
		return hlthunk_err(EINVAL);
	memset(&raw, 0, sizeof(raw));
	rc = hlthunk_info_arg(fd, HL_INFO_CS_COUNTERS, 0, &raw, sizeof(raw));
	if (rc)
		return rc;
	*info = raw;
	return 0;
}

hlthunk_public int hlthunk_get_open_stats(int fd,
				struct hlthunk_open_stats_info *open_stats)
{
	struct hl_open_stats_info raw;
	int rc;

	if (!open_stats)
		return hlthunk_err(EINVAL);
	memset(&raw, 0, sizeof(raw));
	rc = hlthunk_info_arg(fd, HL_INFO_OPEN_STATS, 0, &raw, sizeof(raw));
	if (rc)
		return rc;
	open_stats->open_counter = raw.open_counter;
	open_stats->last_open_period_ms = raw.last_open_period_ms;
	open_stats->is_compute_ctx_active = raw.is_compute_ctx_active;
	open_stats->compute_ctx_in_release = raw.compute_ctx_in_release;
	return 0;
}

hlthunk_public int hlthunk_get_device_utilization(int fd, uint32_t period_ms,
						  uint32_t *rate)
{
	struct hl_info_device_utilization raw;
	int rc;

	/* The driver's range (HL_INFO_DEVICE_UTILIZATION), checked here too */
	if (!rate || period_ms < 100 || period_ms > 1000 || period_ms % 100)
		return hlthunk_err(EINVAL);
	memset(&raw, 0, sizeof(raw));
	rc = hlthunk_info_arg(fd, HL_INFO_DEVICE_UTILIZATION, period_ms, &raw,
			      sizeof(raw));
	if (rc)
		return rc;
	*rate = raw.utilization;
	return 0;
}

hlthunk_public int hlthunk_get_time_sync_info(int fd,
				struct hlthunk_time_sync_info *info)
{
	struct hl_info_time_sync raw;
	int rc;

	if (!info)
		return hlthunk_err(EINVAL);
	memset(&raw, 0, sizeof(raw));
	rc = hlthunk_info_arg(fd, HL_INFO_TIME_SYNC, 0, &raw, sizeof(raw));
	if (rc)
		return rc;
	info->device_time = raw.device_time;
	info->host_time = raw.host_time;
	return 0;
}

/* ------------------------------------------------------------------------
 * Event records, engine status, event counts
 */

hlthunk_public int hlthunk_get_event_record(int fd,
					    enum hlthunk_event_record_id event_id,
					    void *buf)
{
	struct hlthunk_event_record_undefined_opcode *undef = buf;
	struct hlthunk_event_record_open_dev_time *open = buf;
	struct hlthunk_event_record_cs_timeout *cst = buf;
	struct hl_info_undefined_opcode_event raw_undef;
	struct hl_info_last_err_open_dev_time raw_open;
	struct hl_info_cs_timeout_event raw_cst;
	int rc;

	if (!buf)
		return hlthunk_err(EINVAL);

	switch (event_id) {
	case HLTHUNK_OPEN_DEV:
		memset(&raw_open, 0, sizeof(raw_open));
		rc = hlthunk_info_arg(fd, HL_INFO_LAST_ERR_OPEN_DEV_TIME, 0,
				      &raw_open, sizeof(raw_open));
		if (!rc)
			open->timestamp = raw_open.timestamp;
		return rc;
	case HLTHUNK_CS_TIMEOUT:
		memset(&raw_cst, 0, sizeof(raw_cst));
		rc = hlthunk_info_arg(fd, HL_INFO_CS_TIMEOUT_EVENT, 0, &raw_cst,
				      sizeof(raw_cst));
		if (!rc) {
			cst->timestamp = raw_cst.timestamp;
			cst->seq = raw_cst.seq;
		}
		return rc;
	case HLTHUNK_UNDEFINED_OPCODE:
		memset(&raw_undef, 0, sizeof(raw_undef));
		rc = hlthunk_info_arg(fd, HL_INFO_UNDEFINED_OPCODE_EVENT, 0,
				      &raw_undef, sizeof(raw_undef));
		if (rc)
			return rc;
		undef->timestamp = raw_undef.timestamp;
		memcpy(undef->cb_addr_streams, raw_undef.cb_addr_streams,
		       sizeof(undef->cb_addr_streams));
		undef->cq_addr = raw_undef.cq_addr;
		undef->cq_size = raw_undef.cq_size;
		undef->cb_addr_streams_len = raw_undef.cb_addr_streams_len;
		undef->engine_id = raw_undef.engine_id;
		undef->stream_id = raw_undef.stream_id;
		return 0;
	default:
		/* RAZWI, critical HW and FW errors: no such events here */
		return hlthunk_err(EINVAL);
	}
}

hlthunk_public int hlthunk_get_engine_status(int fd, char *status_buf,
					     uint32_t status_buf_size,
					     int *actual_size)
{
	struct hl_info_args args;
	int rc;

	if (!status_buf || !actual_size || status_buf_size < 1024 ||
	    status_buf_size > HL_ENGINES_DATA_MAX_SIZE)
		return hlthunk_err(EINVAL);

	memset(&args, 0, sizeof(args));
	args.op = HL_INFO_ENGINE_STATUS;
	args.return_pointer = hlthunk_ptr_to_u64(status_buf);
	args.return_size = status_buf_size;
	rc = hlthunk_ioctl(fd, HL_IOCTL_INFO, &args);
	if (rc < 0)
		return rc;

	*actual_size = (int)args.user_buffer_actual_size;
	return 0;
}

hlthunk_public int hlthunk_get_hw_events_arr(int fd, bool aggregate,
					     uint32_t hw_events_arr_size,
					     uint32_t *hw_events_arr)
{
	if (!hw_events_arr || !hw_events_arr_size)
		return hlthunk_err(EINVAL);
	return hlthunk_info_arg(fd, aggregate ? HL_INFO_HW_EVENTS_AGGREGATE :
				HL_INFO_HW_EVENTS, 0, hw_events_arr,
				hw_events_arr_size);
}

// SPDX-License-Identifier: MIT
/*
 * nic.c - NIC wrappers: HL_INFO_NIC_PORTS and one function per
 * HL_IOCTL_NIC op (connections and completion queues).
 */

#include <errno.h>
#include <string.h>

#include "hlthunk_internal.h"

static int hlthunk_nic(int fd, struct hl_nic_args *args)
{
	int rc = hlthunk_ioctl(fd, HL_IOCTL_NIC, args);

	return rc < 0 ? rc : 0;
}

static void hlthunk_nic_args_init(struct hl_nic_args *args, uint32_t op)
{
	memset(args, 0, sizeof(*args));
	args->in.op = op;
}

hlthunk_public int hlthunk_get_nic_ports_info_ex(int fd,
						 struct hl_info_nic_ports *info,
						 size_t size)
{
	struct hl_info_args args;
	struct hl_info_nic_ports raw;
	int rc;

	if (!info || size < HLTHUNK_2_0_SIZEOF_NIC_PORTS)
		return hlthunk_err(EINVAL);

	memset(&raw, 0, sizeof(raw));
	memset(&args, 0, sizeof(args));
	args.op = HL_INFO_NIC_PORTS;
	args.return_pointer = hlthunk_ptr_to_u64(&raw);
	args.return_size = sizeof(raw);

	rc = hlthunk_ioctl(fd, HL_IOCTL_INFO, &args);
	if (rc < 0)
		return rc;

	hlthunk_copy_out(info, size, &raw, sizeof(raw));
	return 0;
}

hlthunk_public int hlthunk_get_nic_ports_info(int fd,
					      struct hl_info_nic_ports *info)
{
	return hlthunk_get_nic_ports_info_ex(fd, info,
					     HLTHUNK_2_0_SIZEOF_NIC_PORTS);
}

hlthunk_public int hlthunk_nic_alloc_conn(int fd, uint32_t port,
					  uint32_t *conn_id)
{
	struct hl_nic_args args;
	int rc;

	if (!conn_id)
		return hlthunk_err(EINVAL);

	hlthunk_nic_args_init(&args, HL_NIC_OP_ALLOC_CONN);
	args.in.alloc_conn.port = port;
	rc = hlthunk_nic(fd, &args);
	if (rc)
		return rc;

	*conn_id = args.out.alloc_conn.conn_id;
	return 0;
}

hlthunk_public int hlthunk_nic_set_req_conn_ctx(int fd,
				const struct hl_nic_req_conn_ctx_in *ctx)
{
	struct hl_nic_args args;

	if (!ctx)
		return hlthunk_err(EINVAL);

	hlthunk_nic_args_init(&args, HL_NIC_OP_SET_REQ_CONN_CTX);
	hlthunk_copy_in(&args.in.req_conn_ctx, sizeof(args.in.req_conn_ctx),
			ctx, HLTHUNK_2_0_SIZEOF_NIC_REQ_CONN_CTX);
	return hlthunk_nic(fd, &args);
}

hlthunk_public int hlthunk_nic_set_res_conn_ctx(int fd,
				const struct hl_nic_res_conn_ctx_in *ctx)
{
	struct hl_nic_args args;

	if (!ctx)
		return hlthunk_err(EINVAL);

	hlthunk_nic_args_init(&args, HL_NIC_OP_SET_RES_CONN_CTX);
	hlthunk_copy_in(&args.in.res_conn_ctx, sizeof(args.in.res_conn_ctx),
			ctx, HLTHUNK_2_0_SIZEOF_NIC_RES_CONN_CTX);
	return hlthunk_nic(fd, &args);
}

hlthunk_public int hlthunk_nic_destroy_conn(int fd, uint32_t conn_id)
{
	struct hl_nic_args args;

	hlthunk_nic_args_init(&args, HL_NIC_OP_DESTROY_CONN);
	args.in.destroy_conn.conn_id = conn_id;
	return hlthunk_nic(fd, &args);
}

hlthunk_public int hlthunk_nic_modify_conn(int fd, uint32_t conn_id,
					   uint32_t state)
{
	struct hl_nic_args args;

	hlthunk_nic_args_init(&args, HL_NIC_OP_MODIFY_CONN);
	args.in.modify_conn.conn_id = conn_id;
	args.in.modify_conn.state = state;
	return hlthunk_nic(fd, &args);
}

hlthunk_public int hlthunk_nic_query_conn_ex(int fd, uint32_t conn_id,
					     struct hl_nic_query_conn_out *out,
					     size_t size)
{
	struct hl_nic_args args;
	int rc;

	if (!out || size < HLTHUNK_2_0_SIZEOF_NIC_QUERY_CONN_OUT)
		return hlthunk_err(EINVAL);

	hlthunk_nic_args_init(&args, HL_NIC_OP_QUERY_CONN);
	args.in.query_conn.conn_id = conn_id;
	rc = hlthunk_nic(fd, &args);
	if (rc)
		return rc;

	hlthunk_copy_out(out, size, &args.out.query_conn,
			 sizeof(args.out.query_conn));
	return 0;
}

hlthunk_public int hlthunk_nic_query_conn(int fd, uint32_t conn_id,
					  struct hl_nic_query_conn_out *out)
{
	return hlthunk_nic_query_conn_ex(fd, conn_id, out,
					 HLTHUNK_2_0_SIZEOF_NIC_QUERY_CONN_OUT);
}

hlthunk_public int hlthunk_nic_cq_create(int fd, uint32_t num_entries,
					 uint32_t *handle)
{
	struct hl_nic_args args;
	int rc;

	if (!handle)
		return hlthunk_err(EINVAL);

	hlthunk_nic_args_init(&args, HL_NIC_OP_CQ_CREATE);
	args.in.cq_create.num_entries = num_entries;
	rc = hlthunk_nic(fd, &args);
	if (rc)
		return rc;

	*handle = args.out.cq_create.handle;
	return 0;
}

hlthunk_public int hlthunk_nic_cq_destroy(int fd, uint32_t handle)
{
	struct hl_nic_args args;

	hlthunk_nic_args_init(&args, HL_NIC_OP_CQ_DESTROY);
	args.in.cq_destroy.handle = handle;
	return hlthunk_nic(fd, &args);
}

static int hlthunk_nic_cq_poll_wait(int fd, uint32_t op, uint32_t handle,
				    struct hl_nic_cqe *cqes, uint32_t max_cqes,
				    uint64_t timeout_us,
				    struct hl_nic_cq_poll_wait_out *out)
{
	struct hlthunk_deadline deadline;
	struct hl_nic_args args;
	int rc;

	if (!out || (max_cqes && !cqes))
		return hlthunk_err(EINVAL);

	/*
	 * As WAIT_CS: an interrupted wait resumes with the time left, and a
	 * TIMEOUT before the deadline (jiffies) waits for the rest
	 */
	hlthunk_deadline_start(&deadline, timeout_us, UINT32_MAX);
	for (;;) {
		hlthunk_nic_args_init(&args, op);
		args.in.cq_poll_wait.cqes_ptr = hlthunk_ptr_to_u64(cqes);
		args.in.cq_poll_wait.timeout_us =
			hlthunk_deadline_left_us(&deadline, timeout_us);
		args.in.cq_poll_wait.handle = handle;
		args.in.cq_poll_wait.max_cqes = max_cqes;
		rc = hlthunk_ioctl_once(fd, HL_IOCTL_NIC, &args);
		if (rc == -EINTR)
			continue;
		if (!rc && op == HL_NIC_OP_CQ_WAIT &&
		    args.out.cq_poll_wait.status == HL_NIC_CQ_STATUS_TIMEOUT &&
		    args.in.cq_poll_wait.timeout_us &&
		    hlthunk_deadline_left_us(&deadline, timeout_us))
			continue;
		break;
	}
	if (rc < 0)
		return rc;

	hlthunk_copy_out(out, HLTHUNK_2_0_SIZEOF_NIC_CQ_POLL_WAIT_OUT,
			 &args.out.cq_poll_wait, sizeof(args.out.cq_poll_wait));
	return 0;
}

hlthunk_public int hlthunk_nic_cq_poll(int fd, uint32_t handle,
				       struct hl_nic_cqe *cqes,
				       uint32_t max_cqes,
				       struct hl_nic_cq_poll_wait_out *out)
{
	return hlthunk_nic_cq_poll_wait(fd, HL_NIC_OP_CQ_POLL, handle, cqes,
					max_cqes, 0, out);
}

hlthunk_public int hlthunk_nic_cq_wait(int fd, uint32_t handle,
				       struct hl_nic_cqe *cqes,
				       uint32_t max_cqes, uint64_t timeout_us,
				       struct hl_nic_cq_poll_wait_out *out)
{
	return hlthunk_nic_cq_poll_wait(fd, HL_NIC_OP_CQ_WAIT, handle, cqes,
					max_cqes, timeout_us, out);
}

hlthunk_public int hlthunk_nic_cq_update_consumed_cqes(int fd,
						       uint32_t handle,
						       uint32_t num_cqes)
{
	struct hl_nic_args args;

	hlthunk_nic_args_init(&args, HL_NIC_OP_CQ_UPDATE_CONSUMED_CQES);
	args.in.cq_update_consumed_cqes.handle = handle;
	args.in.cq_update_consumed_cqes.num_cqes = num_cqes;
	return hlthunk_nic(fd, &args);
}

hlthunk_public int hlthunk_nic_reg_mr_conn(int fd, uint64_t addr,
					   uint64_t size, uint64_t iova,
					   uint32_t access, uint32_t conn_id,
					   uint32_t *lkey, uint32_t *rkey)
{
	struct hl_nic_args args;
	int rc;

	if (!lkey || !rkey)
		return hlthunk_err(EINVAL);

	hlthunk_nic_args_init(&args, HL_NIC_OP_REG_MR);
	args.in.reg_mr.addr = addr;
	args.in.reg_mr.size = size;
	args.in.reg_mr.iova = iova;
	args.in.reg_mr.access = access;
	args.in.reg_mr.conn_id = conn_id;
	rc = hlthunk_nic(fd, &args);
	if (rc)
		return rc;

	*lkey = args.out.reg_mr.lkey;
	*rkey = args.out.reg_mr.rkey;
	return 0;
}

hlthunk_public int hlthunk_nic_reg_mr(int fd, uint64_t addr, uint64_t size,
				      uint64_t iova, uint32_t access,
				      uint32_t *lkey, uint32_t *rkey)
{
	return hlthunk_nic_reg_mr_conn(fd, addr, size, iova, access, 0, lkey,
				       rkey);
}

hlthunk_public int hlthunk_nic_dereg_mr(int fd, uint32_t lkey)
{
	struct hl_nic_args args;

	hlthunk_nic_args_init(&args, HL_NIC_OP_DEREG_MR);
	args.in.dereg_mr.lkey = lkey;
	return hlthunk_nic(fd, &args);
}

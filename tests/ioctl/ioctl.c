// SPDX-License-Identifier: MIT
/*
 * Every ioctl is all or nothing: a call that fails leaves the state as it
 * was. Each ioctl and op that returns data is called with its argument on a
 * read-only page (-EFAULT, nothing done), and, through the test-only
 * debugfs knob fail_copy_out, with a copy back that fails after the work
 * was done (-EFAULT, the work undone). Also: HL_IOCTL_MEMORY's unused union
 * bytes, and DRAM_USAGE on the control node.
 */
#include "hltests.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE		4096ul
#define WAIT_US		(120ull * 1000 * 1000)

/* ---- helpers ---- */

/* A page holding @size bytes of @arg, then made read-only */
static void *ro_copy(const void *arg, size_t size)
{
	void *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	memcpy(p, arg, size);
	assert_int_equal(mprotect(p, PAGE, PROT_READ), 0);
	return p;
}

static void ro_free(void *p)
{
	munmap(p, PAGE);
}

/* The ioctl with its argument on a read-only page; returns 0 or -errno */
static int ioctl_ro(int fd, unsigned long req, const void *arg, size_t size)
{
	void *p = ro_copy(arg, size);
	int rc = ioctl(fd, req, p) ? -errno : 0;

	/* Untouched, whatever happened */
	assert_memory_equal(p, arg, size);
	ro_free(p);
	return rc;
}

static int ioctl_rw(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

static uint64_t alloc_handle(int fd)
{
	uint64_t h = hlthunk_device_memory_alloc(fd, 2ull << 20, 0, false, false);

	assert_int_not_equal(h, 0);
	return h;
}

static void mem_args_alloc(union hl_mem_args *a)
{
	memset(a, 0, sizeof(*a));
	a->in.op = HL_MEM_OP_ALLOC;
	a->in.alloc.mem_size = 2ull << 20;
}

static void mem_args_map_device(union hl_mem_args *a, uint64_t handle)
{
	memset(a, 0, sizeof(*a));
	a->in.op = HL_MEM_OP_MAP;
	a->in.map_device.handle = handle;
}

static void mem_args_map_host(union hl_mem_args *a, void *p, uint64_t size)
{
	memset(a, 0, sizeof(*a));
	a->in.op = HL_MEM_OP_MAP;
	a->in.flags = HL_MEM_USERPTR;
	a->in.map_host.host_virt_addr = (uint64_t)(uintptr_t)p;
	a->in.map_host.mem_size = size;
}

static void mem_args_export(union hl_mem_args *a, uint64_t va, uint64_t size)
{
	memset(a, 0, sizeof(*a));
	a->in.op = HL_MEM_OP_EXPORT_DMABUF_FD;
	a->in.flags = O_RDWR | O_CLOEXEC;
	a->in.export_dmabuf_fd.addr = va;
	a->in.export_dmabuf_fd.mem_size = size;
}

static void nic_args(struct hl_nic_args *a, uint32_t op)
{
	memset(a, 0, sizeof(*a));
	a->in.op = op;
}

/* ---- HL_IOCTL_INFO ---- */

static void test_info_read_only_arg(void **state)
{
	static const uint32_t ops[] = {
		HL_INFO_HW_IP_INFO, HL_INFO_DRAM_USAGE, HL_INFO_HW_IDLE,
		HL_INFO_DEVICE_STATUS, HL_INFO_PAGE_FAULT_EVENT,
		HL_INFO_NIC_PORTS,
	};
	struct hltests_state *st = *state;
	static uint8_t buf[8192];
	struct hl_info_args args;
	size_t i, j;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		memset(buf, 0xa5, sizeof(buf));
		memset(&args, 0, sizeof(args));
		args.op = ops[i];
		args.return_pointer = (uint64_t)(uintptr_t)buf;
		args.return_size = sizeof(buf);
		assert_int_equal(ioctl_ro(st->fd, HL_IOCTL_INFO, &args,
					  sizeof(args)), -EFAULT);
		/* Nothing written anywhere */
		for (j = 0; j < sizeof(buf); j++)
			if (buf[j] != 0xa5) {
				print_error("op %u wrote byte %zu of its return buffer\n",
					    ops[i], j);
				fail();
			}
	}
}

/* ---- HL_IOCTL_MEMORY ---- */

static void test_alloc_read_only_arg(void **state)
{
	struct hltests_state *st = *state;
	union hl_mem_args a;
	uint64_t h, before;

	h = alloc_handle(st->fd);
	assert_int_equal(hlthunk_device_memory_free(st->fd, h), 0);
	before = hltests_ctx_dram(st->fd);

	mem_args_alloc(&a);
	assert_int_equal(ioctl_ro(st->fd, HL_IOCTL_MEMORY, &a, sizeof(a)),
			 -EFAULT);
	assert_int_equal(hltests_ctx_dram(st->fd), before);
	/* No allocation took the next handle */
	assert_int_equal(hlthunk_device_memory_free(st->fd, h + 1), -EINVAL);
}

static void test_free_read_only_arg(void **state)
{
	struct hltests_state *st = *state;
	uint64_t h = alloc_handle(st->fd), before = hltests_ctx_dram(st->fd);
	union hl_mem_args a;

	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_FREE;
	a.in.free.handle = h;
	assert_int_equal(ioctl_ro(st->fd, HL_IOCTL_MEMORY, &a, sizeof(a)),
			 -EFAULT);
	/* Still allocated */
	assert_int_equal(hltests_ctx_dram(st->fd), before);
	assert_int_equal(hlthunk_device_memory_free(st->fd, h), 0);
}

static void test_map_device_read_only_arg(void **state)
{
	struct hltests_state *st = *state;
	uint64_t h = alloc_handle(st->fd), va;
	union hl_mem_args a;

	mem_args_map_device(&a, h);
	assert_int_equal(ioctl_ro(st->fd, HL_IOCTL_MEMORY, &a, sizeof(a)),
			 -EFAULT);
	/* Not mapped: FREE works (a mapped allocation is EBUSY) */
	assert_int_equal(hlthunk_device_memory_free(st->fd, h), 0);

	/* And the VA it would have had is free */
	h = alloc_handle(st->fd);
	va = hlthunk_device_memory_map(st->fd, h, 0);
	assert_int_not_equal(va, 0);
	assert_int_equal(va, st->hw_ip.dram_va_start);
	assert_int_equal(hlthunk_memory_unmap(st->fd, va), 0);
	assert_int_equal(hlthunk_device_memory_free(st->fd, h), 0);
}

static void test_map_host_read_only_arg(void **state)
{
	struct hltests_state *st = *state;
	long long pinned = hltests_debugfs_value(0, "pinned_host_pages");
	void *buf = aligned_alloc(PAGE, 4 * PAGE);
	union hl_mem_args a;
	uint64_t va;

	assert_non_null(buf);
	memset(buf, 0, 4 * PAGE);
	mem_args_map_host(&a, buf, 4 * PAGE);
	assert_int_equal(ioctl_ro(st->fd, HL_IOCTL_MEMORY, &a, sizeof(a)),
			 -EFAULT);
	assert_int_equal(hltests_debugfs_value(0, "pinned_host_pages"), pinned);
	/* The first host VA is still free */
	va = hlthunk_host_memory_map(st->fd, buf, 0, 4 * PAGE);
	assert_int_equal(va, st->hw_ip.host_va_start);
	assert_int_equal(hlthunk_memory_unmap(st->fd, va), 0);
	free(buf);
}

static void test_unmap_read_only_arg(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_dram_buf d;
	union hl_mem_args a;

	hltests_dram_map(st->fd, &d, 2ull << 20, false);
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_UNMAP;
	a.in.unmap.device_virt_addr = d.va;
	assert_int_equal(ioctl_ro(st->fd, HL_IOCTL_MEMORY, &a, sizeof(a)),
			 -EFAULT);
	/* Still mapped */
	assert_int_equal(hlthunk_device_memory_free(st->fd, d.handle), -EBUSY);
	hltests_dram_unmap(st->fd, &d);
}

static void test_export_read_only_arg(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_dram_buf d;
	union hl_mem_args a;
	int fds = hltests_count_fds();

	hltests_dram_map(st->fd, &d, 2ull << 20, false);
	mem_args_export(&a, d.va, d.size);
	assert_int_equal(ioctl_ro(st->fd, HL_IOCTL_MEMORY, &a, sizeof(a)),
			 -EFAULT);
	assert_int_equal(hltests_count_fds(), fds);
	/* Not exported: UNMAP works (an exported mapping is EBUSY) */
	hltests_dram_unmap(st->fd, &d);
}

/* ---- HL_IOCTL_CS and HL_IOCTL_WAIT_CS ---- */

/* A CB on @cb that writes @value at device VA @dst */
static uint32_t cb_msg_long(struct hltests_host_buf *cb, uint64_t dst,
			    uint32_t value)
{
	return hlthunk_pkt_msg_long(cb->ptr, dst, value);
}

static void test_cs_read_only_arg(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, data;
	struct hl_cs_chunk chunk;
	union hl_cs_args a;
	uint32_t size, status, nop;
	uint64_t seq;

	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &data, PAGE);
	size = cb_msg_long(&cb, data.va, 0x1234);

	seq = hltests_submit_cb(st->fd, 0, cb.va, size, 0);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, seq, WAIT_US, &status), 0);
	assert_int_equal(*(uint32_t *)data.ptr, 0x1234);
	*(volatile uint32_t *)data.ptr = 0;

	memset(&chunk, 0, sizeof(chunk));
	chunk.cb_handle = cb.va;
	chunk.cb_size = size;
	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uint64_t)(uintptr_t)&chunk;
	a.in.num_chunks_execute = 1;
	assert_int_equal(ioctl_ro(st->fd, HL_IOCTL_CS, &a, sizeof(a)), -EFAULT);

	/* Nothing was submitted: the next CS (a NOP) gets the next number */
	nop = hlthunk_pkt_nop(cb.ptr + 64);
	assert_int_equal(hltests_submit_cb(st->fd, 0, cb.va + 64, nop, 0),
			 seq + 1);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, seq + 1, WAIT_US, &status),
			 0);
	assert_int_equal(*(volatile uint32_t *)data.ptr, 0);

	hltests_host_unmap(st->fd, &cb);
	hltests_host_unmap(st->fd, &data);
}

static void test_wait_cs_read_only_arg(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb;
	union hl_wait_cs_args a;
	uint64_t seq;
	uint32_t status;

	hltests_host_map(st->fd, &cb, PAGE);
	seq = hltests_submit_cb(st->fd, 0, cb.va, hlthunk_pkt_nop(cb.ptr), 0);

	memset(&a, 0, sizeof(a));
	a.in.seq = seq;
	a.in.timeout_us = WAIT_US;
	assert_int_equal(ioctl_ro(st->fd, HL_IOCTL_WAIT_CS, &a, sizeof(a)),
			 -EFAULT);
	assert_int_equal(hlthunk_wait_for_cs(st->fd, seq, WAIT_US, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	hltests_host_unmap(st->fd, &cb);
}

/* ---- HL_IOCTL_NIC ---- */

static void skip_without_nic(struct hltests_state *st)
{
	if (!st->hw_ip.num_nic_ports) {
		print_message("no NIC port: skipped\n");
		skip();
	}
}

static void test_nic_alloc_conn_read_only_arg(void **state)
{
	struct hltests_state *st = *state;
	struct hl_nic_args a;
	uint32_t id;

	skip_without_nic(st);
	assert_int_equal(hlthunk_nic_alloc_conn(st->fd, 0, &id), 0);
	assert_int_equal(hlthunk_nic_destroy_conn(st->fd, id), 0);

	nic_args(&a, HL_NIC_OP_ALLOC_CONN);
	assert_int_equal(ioctl_ro(st->fd, HL_IOCTL_NIC, &a, sizeof(a)), -EFAULT);
	/* No connection took the next ID */
	assert_int_equal(hlthunk_nic_destroy_conn(st->fd, id + 1), -EINVAL);
}

static void test_nic_cq_create_read_only_arg(void **state)
{
	struct hltests_state *st = *state;
	struct hl_nic_args a;
	uint32_t cq;

	skip_without_nic(st);
	assert_int_equal(hlthunk_nic_cq_create(st->fd, 16, &cq), 0);
	assert_int_equal(hlthunk_nic_cq_destroy(st->fd, cq), 0);

	nic_args(&a, HL_NIC_OP_CQ_CREATE);
	a.in.cq_create.num_entries = 16;
	assert_int_equal(ioctl_ro(st->fd, HL_IOCTL_NIC, &a, sizeof(a)), -EFAULT);
	assert_int_equal(hlthunk_nic_cq_destroy(st->fd, cq + 1), -EINVAL);
}

static void test_nic_other_ops_read_only_arg(void **state)
{
	struct hltests_state *st = *state;
	struct hl_nic_cqe cqes[4];
	struct hl_nic_args a;
	uint32_t id, cq, st_out;

	skip_without_nic(st);
	assert_int_equal(hlthunk_nic_alloc_conn(st->fd, 0, &id), 0);
	assert_int_equal(hlthunk_nic_cq_create(st->fd, 16, &cq), 0);

	/* MODIFY_CONN: still in RESET afterwards */
	nic_args(&a, HL_NIC_OP_MODIFY_CONN);
	a.in.modify_conn.conn_id = id;
	a.in.modify_conn.state = HL_NIC_CONN_STATE_INIT;
	assert_int_equal(ioctl_ro(st->fd, HL_IOCTL_NIC, &a, sizeof(a)), -EFAULT);
	nic_args(&a, HL_NIC_OP_QUERY_CONN);
	a.in.query_conn.conn_id = id;
	assert_int_equal(ioctl_rw(st->fd, HL_IOCTL_NIC, &a), 0);
	st_out = a.out.query_conn.state;
	assert_int_equal(st_out, HL_NIC_CONN_STATE_RESET);

	/* QUERY_CONN, CQ_POLL: nothing written */
	nic_args(&a, HL_NIC_OP_QUERY_CONN);
	a.in.query_conn.conn_id = id;
	assert_int_equal(ioctl_ro(st->fd, HL_IOCTL_NIC, &a, sizeof(a)), -EFAULT);
	memset(cqes, 0xa5, sizeof(cqes));
	nic_args(&a, HL_NIC_OP_CQ_POLL);
	a.in.cq_poll_wait.handle = cq;
	a.in.cq_poll_wait.max_cqes = 4;
	a.in.cq_poll_wait.cqes_ptr = (uint64_t)(uintptr_t)cqes;
	assert_int_equal(ioctl_ro(st->fd, HL_IOCTL_NIC, &a, sizeof(a)), -EFAULT);

	/* DESTROY_CONN, CQ_DESTROY: still there */
	nic_args(&a, HL_NIC_OP_DESTROY_CONN);
	a.in.destroy_conn.conn_id = id;
	assert_int_equal(ioctl_ro(st->fd, HL_IOCTL_NIC, &a, sizeof(a)), -EFAULT);
	nic_args(&a, HL_NIC_OP_CQ_DESTROY);
	a.in.cq_destroy.handle = cq;
	assert_int_equal(ioctl_ro(st->fd, HL_IOCTL_NIC, &a, sizeof(a)), -EFAULT);
	assert_int_equal(hlthunk_nic_destroy_conn(st->fd, id), 0);
	assert_int_equal(hlthunk_nic_cq_destroy(st->fd, cq), 0);
}

/* ---- a copy back that fails after the work: undone ---- */

static void test_failed_copy_out_undoes_alloc(void **state)
{
	struct hltests_state *st = *state;
	uint64_t h = alloc_handle(st->fd), before;
	union hl_mem_args a;

	assert_int_equal(hlthunk_device_memory_free(st->fd, h), 0);
	before = hltests_ctx_dram(st->fd);

	hltests_fail_copy_out(1);
	mem_args_alloc(&a);
	assert_int_equal(ioctl_rw(st->fd, HL_IOCTL_MEMORY, &a), -EFAULT);
	assert_int_equal(hltests_ctx_dram(st->fd), before);
	assert_int_equal(hlthunk_device_memory_free(st->fd, h + 1), -EINVAL);
	/* The knob is spent: the next one works */
	h = alloc_handle(st->fd);
	assert_int_equal(hlthunk_device_memory_free(st->fd, h), 0);
}

static void test_failed_copy_out_undoes_map(void **state)
{
	struct hltests_state *st = *state;
	long long pinned = hltests_debugfs_value(0, "pinned_host_pages");
	void *buf = aligned_alloc(PAGE, 4 * PAGE);
	uint64_t h = alloc_handle(st->fd);
	union hl_mem_args a;

	assert_non_null(buf);
	hltests_fail_copy_out(1);
	mem_args_map_device(&a, h);
	assert_int_equal(ioctl_rw(st->fd, HL_IOCTL_MEMORY, &a), -EFAULT);
	assert_int_equal(hlthunk_device_memory_free(st->fd, h), 0);

	hltests_fail_copy_out(1);
	mem_args_map_host(&a, buf, 4 * PAGE);
	assert_int_equal(ioctl_rw(st->fd, HL_IOCTL_MEMORY, &a), -EFAULT);
	assert_int_equal(hltests_debugfs_value(0, "pinned_host_pages"), pinned);
	assert_int_equal(hlthunk_host_memory_map(st->fd, buf, 0, 4 * PAGE),
			 st->hw_ip.host_va_start);
	assert_int_equal(hlthunk_memory_unmap(st->fd, st->hw_ip.host_va_start),
			 0);
	free(buf);
}

static void test_failed_copy_out_undoes_export(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_dram_buf d;
	union hl_mem_args a;
	int fds = hltests_count_fds();

	hltests_dram_map(st->fd, &d, 2ull << 20, false);
	hltests_fail_copy_out(1);
	mem_args_export(&a, d.va, d.size);
	assert_int_equal(ioctl_rw(st->fd, HL_IOCTL_MEMORY, &a), -EFAULT);
	assert_int_equal(hltests_count_fds(), fds);
	hltests_dram_unmap(st->fd, &d);
}

static void test_failed_copy_out_undoes_nic_objects(void **state)
{
	struct hltests_state *st = *state;
	struct hl_nic_args a;
	uint32_t id, cq;

	skip_without_nic(st);
	assert_int_equal(hlthunk_nic_alloc_conn(st->fd, 0, &id), 0);
	assert_int_equal(hlthunk_nic_destroy_conn(st->fd, id), 0);
	assert_int_equal(hlthunk_nic_cq_create(st->fd, 16, &cq), 0);
	assert_int_equal(hlthunk_nic_cq_destroy(st->fd, cq), 0);

	hltests_fail_copy_out(1);
	nic_args(&a, HL_NIC_OP_ALLOC_CONN);
	assert_int_equal(ioctl_rw(st->fd, HL_IOCTL_NIC, &a), -EFAULT);
	assert_int_equal(hlthunk_nic_destroy_conn(st->fd, id + 1), -EINVAL);

	hltests_fail_copy_out(1);
	nic_args(&a, HL_NIC_OP_CQ_CREATE);
	a.in.cq_create.num_entries = 16;
	assert_int_equal(ioctl_rw(st->fd, HL_IOCTL_NIC, &a), -EFAULT);
	assert_int_equal(hlthunk_nic_cq_destroy(st->fd, cq + 1), -EINVAL);
}

/*
 * Work that cannot be undone and returns nothing succeeds even when its
 * copy back fails: FREE, UNMAP and destroying a NIC object report 0, and
 * what they did is done (found by the fault walk: they said EFAULT with
 * their work done).
 */
static void test_failed_copy_out_of_no_output_ops_succeeds(void **state)
{
	struct hltests_state *st = *state;
	uint64_t before = hltests_ctx_dram(st->fd), h = alloc_handle(st->fd), va;
	union hl_mem_args a;
	struct hl_nic_args n;
	uint32_t id;

	va = hlthunk_device_memory_map(st->fd, h, 0);
	assert_int_not_equal(va, 0);

	hltests_fail_copy_out(1);
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_UNMAP;
	a.in.unmap.device_virt_addr = va;
	assert_int_equal(ioctl_rw(st->fd, HL_IOCTL_MEMORY, &a), 0);
	assert_int_equal(hlthunk_memory_unmap(st->fd, va), -EINVAL);

	hltests_fail_copy_out(1);
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_FREE;
	a.in.free.handle = h;
	assert_int_equal(ioctl_rw(st->fd, HL_IOCTL_MEMORY, &a), 0);
	assert_int_equal(hlthunk_device_memory_free(st->fd, h), -EINVAL);
	assert_int_equal(hltests_ctx_dram(st->fd), before);

	if (!st->hw_ip.num_nic_ports)
		return;		/* the memory ops were the test */
	assert_int_equal(hlthunk_nic_alloc_conn(st->fd, 0, &id), 0);
	hltests_fail_copy_out(1);
	nic_args(&n, HL_NIC_OP_DESTROY_CONN);
	n.in.destroy_conn.conn_id = id;
	assert_int_equal(ioctl_rw(st->fd, HL_IOCTL_NIC, &n), 0);
	assert_int_equal(hlthunk_nic_destroy_conn(st->fd, id), -EINVAL);
}

/* ---- HL_IOCTL_MEMORY: the union's unused bytes must be zero ---- */

/* Set byte @off of the input union: EINVAL, nothing done */
static void poke_unused(int fd, union hl_mem_args *a, size_t off)
{
	union hl_mem_args b = *a;

	((uint8_t *)&b.in)[off] = 1;
	assert_int_equal(ioctl_rw(fd, HL_IOCTL_MEMORY, &b), -EINVAL);
}

static void test_memory_unused_union_bytes_rejected(void **state)
{
	struct hltests_state *st = *state;
	size_t end = offsetof(struct hl_mem_in, op), off;
	uint64_t h = alloc_handle(st->fd), before = hltests_ctx_dram(st->fd);
	struct hltests_dram_buf d;
	union hl_mem_args a;

	mem_args_alloc(&a);
	for (off = sizeof(a.in.alloc); off < end; off++)
		poke_unused(st->fd, &a, off);
	assert_int_equal(hltests_ctx_dram(st->fd), before);

	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_FREE;
	a.in.free.handle = h;
	for (off = sizeof(a.in.free); off < end; off++)
		poke_unused(st->fd, &a, off);

	mem_args_map_device(&a, h);
	for (off = sizeof(a.in.map_device); off < end; off++)
		poke_unused(st->fd, &a, off);
	/* Neither freed nor mapped by the refused calls */
	assert_int_equal(hltests_ctx_dram(st->fd), before);
	assert_int_equal(hlthunk_device_memory_free(st->fd, h), 0);

	hltests_dram_map(st->fd, &d, 2ull << 20, false);
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_UNMAP;
	a.in.unmap.device_virt_addr = d.va;
	for (off = sizeof(a.in.unmap); off < end; off++)
		poke_unused(st->fd, &a, off);
	/* Still mapped */
	assert_int_equal(hlthunk_device_memory_free(st->fd, d.handle), -EBUSY);
	hltests_dram_unmap(st->fd, &d);

	/* MAP of host memory and EXPORT use the whole union */
	assert_int_equal(sizeof(a.in.map_host), end);
	assert_int_equal(sizeof(a.in.export_dmabuf_fd), end);
}

/* ---- HL_INFO_DRAM_USAGE on the control node ---- */

static void test_dram_usage_on_control_node(void **state)
{
	struct hltests_state *st = *state;
	struct hlthunk_dram_usage_info c, u;
	uint64_t h;
	int ctl;

	ctl = hltests_open_node(0, 1);
	assert_true(ctl >= 0);
	h = alloc_handle(st->fd);
	assert_int_equal(hlthunk_get_dram_usage(st->fd, &u), 0);
	assert_int_equal(hlthunk_get_dram_usage(ctl, &c), 0);
	/* The device's free memory; no context, so nothing of its own */
	assert_int_equal(c.dram_free_mem, u.dram_free_mem);
	assert_int_equal(c.ctx_dram_mem, 0);
	assert_int_equal(u.ctx_dram_mem, 2ull << 20);
	assert_int_equal(hlthunk_device_memory_free(st->fd, h), 0);
	assert_int_equal(hlthunk_get_dram_usage(ctl, &c), 0);
	assert_int_equal(c.dram_free_mem, u.dram_free_mem + (2ull << 20));
	close(ctl);
}

/*
 * A CS whose sequence number does not reach the caller (the copy back
 * fails after the CS was made): its jobs never run, its CS fails.
 */
static void test_failed_copy_out_cancels_cs(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, data;
	struct hl_cs_chunk chunk;
	union hl_cs_args a;
	uint32_t size, status;

	hltests_host_map(st->fd, &cb, PAGE);
	hltests_host_map(st->fd, &data, PAGE);
	size = cb_msg_long(&cb, data.va, 0x1234);
	*(volatile uint32_t *)data.ptr = 0;

	memset(&chunk, 0, sizeof(chunk));
	chunk.cb_handle = cb.va;
	chunk.cb_size = size;
	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uint64_t)(uintptr_t)&chunk;
	a.in.num_chunks_execute = 1;
	hltests_fail_copy_out(1);
	assert_int_equal(ioctl_rw(st->fd, HL_IOCTL_CS, &a), -EFAULT);

	/* Sequence number 1 was used, but its job never ran */
	status = 0xdead;
	assert_int_equal(hlthunk_wait_for_cs(st->fd, 1, WAIT_US, &status), -EIO);
	assert_int_equal(status, HL_WAIT_CS_STATUS_ABORTED);
	usleep(200 * 1000);
	assert_int_equal(*(volatile uint32_t *)data.ptr, 0);

	hltests_host_unmap(st->fd, &cb);
	hltests_host_unmap(st->fd, &data);
}

#define T(f) cmocka_unit_test_setup_teardown(f, hltests_setup, hltests_teardown)

static const struct CMUnitTest ioctl_tests[] = {
	T(test_info_read_only_arg),
	T(test_failed_copy_out_of_no_output_ops_succeeds),
	T(test_alloc_read_only_arg),
	T(test_free_read_only_arg),
	T(test_map_device_read_only_arg),
	T(test_map_host_read_only_arg),
	T(test_unmap_read_only_arg),
	T(test_export_read_only_arg),
	T(test_cs_read_only_arg),
	T(test_wait_cs_read_only_arg),
	T(test_nic_alloc_conn_read_only_arg),
	T(test_nic_cq_create_read_only_arg),
	T(test_nic_other_ops_read_only_arg),
	T(test_failed_copy_out_undoes_alloc),
	T(test_failed_copy_out_undoes_map),
	T(test_failed_copy_out_undoes_export),
	T(test_failed_copy_out_undoes_nic_objects),
	T(test_failed_copy_out_cancels_cs),
	T(test_memory_unused_union_bytes_rejected),
	T(test_dram_usage_on_control_node),
};

int main(void)
{
	return HLTESTS_RUN("ioctl", ioctl_tests);
}

// SPDX-License-Identifier: MIT
/*
 * badargs: every public function of libhlthunk, called with bad arguments,
 * fails with the errno its documentation gives, sets errno, and neither
 * crashes (SIGSEGV, SIGFPE) nor reaches the driver with a NULL it would
 * have to catch:
 *   - a closed descriptor (-1): EBADF, from the kernel;
 *   - a descriptor of another driver (/dev/null): ENOTTY, from the kernel;
 *   - NULL for an object the call reads or writes, a size below the
 *     minimum, a negative length or index, an unknown device type, a
 *     malformed PCI address: EINVAL, from the library, with a real
 *     device's compute and control nodes when there is a device (in the
 *     VM), with /dev/null otherwise (on the host: tests/symbols/check).
 * Functions that cannot fail (the packet builders, hlthunk_free()) are
 * called with NULL, which they document as allowed.
 * tests/symbols/check verifies that every function of libhlthunk.map is
 * called here.
 */

#include "hltests.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* @call returns -@err and sets errno to @err */
#define ERR(call, err)							\
	do {								\
		long rc_;						\
		errno = 0;						\
		rc_ = (long)(call);					\
		if (rc_ != -(long)(err) || errno != (err)) {		\
			print_error("%s: rc %ld errno %d, want -%d\n",	\
				    #call, rc_, errno, (err));		\
			fail();						\
		}							\
	} while (0)

/* @call returns 0 (a handle, an address, false) and sets errno to @err */
#define ERR0(call, err)							\
	do {								\
		unsigned long long rc_;					\
		errno = 0;						\
		rc_ = (unsigned long long)(call);			\
		if (rc_ != 0 || errno != (err)) {			\
			print_error("%s: rc %llu errno %d, want 0 and %d\n", \
				    #call, rc_, errno, (err));		\
			fail();						\
		}							\
	} while (0)

struct badargs_state {
	int fds[3];	/* compute, control (or /dev/null twice), /dev/null */
	int nfds;
	bool device;
};

static int badargs_setup(void **state)
{
	struct badargs_state *st = calloc(1, sizeof(*st));
	int fd;

	if (!st)
		return -1;
	fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, NULL);
	if (fd >= 0) {
		st->device = true;
		st->fds[st->nfds++] = fd;
		st->fds[st->nfds++] = hlthunk_open_control(0, NULL);
	}
	st->fds[st->nfds++] = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (fd = 0; fd < st->nfds; fd++)
		if (st->fds[fd] < 0)
			return -1;
	*state = st;
	return 0;
}

static int badargs_teardown(void **state)
{
	struct badargs_state *st = *state;
	int i;

	for (i = 0; i < st->nfds; i++)
		close(st->fds[i]);
	free(st);
	return 0;
}

/* Every call that takes a descriptor, on @fd; @err what each must give */
/* The calls of node HLTHUNK_2.4 with good arguments: the fd's errno */
static void hl24_fd_calls(int fd, int err)
{
	struct hlthunk_pll_frequency_info pll;
	struct hlthunk_clk_throttle_info thr;
	struct hlthunk_energy_info energy;
	struct hlthunk_power_info power;
	struct hlthunk_hw_asic_status asic;
	struct hlthunk_pci_counters_info pci;
	struct hlthunk_dram_replaced_rows_info rows;
	struct hlthunk_sec_attest_info *att;
	struct hlthunk_sync_manager_info sm;
	struct hlthunk_signal_in sin;
	struct hlthunk_signal_out sout;
	struct hlthunk_wait_for_signal_data wd;
	struct hlthunk_wait_in win;
	struct hlthunk_wait_out wout;
	struct hlthunk_sig_res_in rin;
	struct hlthunk_sig_res_out rout;
	struct reserve_sig_handle rh;
	struct hl_cs_chunk chunk;
	struct hlthunk_cs_in in;
	struct hlthunk_cs_out out;
	struct hl_debug_args dbg;
	uint64_t u64, seq = 1;
	uint32_t u32, u32b;
	uint8_t req[16];

	ERR(hlthunk_get_clk_rate(fd, &u32, &u32b), err);
	ERR(hlthunk_get_clk_throttle_info(fd, &thr), err);
	ERR(hlthunk_get_pll_frequency(fd, 0, &pll), err);
	ERR(hlthunk_get_power_info(fd, &power), err);
	ERR(hlthunk_get_total_energy_consumption_info(fd, &energy), err);
	ERR(hlthunk_get_hw_asic_status(fd, &asic), err);
	ERR(hlthunk_get_pci_counters_info(fd, &pci), err);
	ERR(hlthunk_get_dram_replaced_rows_info(fd, &rows), err);
	ERR(hlthunk_get_dram_pending_rows_info(fd, &u32), err);
	att = calloc(1, sizeof(*att));
	assert_non_null(att);
	ERR(hlthunk_get_sec_attest_info(fd, 1, att), err);
	free(att);
	ERR(hlthunk_fw_send_generic_request(fd, req, sizeof(req), 0), err);
	ERR(hlthunk_get_sync_manager_info(fd, 0, &sm), err);

	memset(&sin, 0, sizeof(sin));
	ERR(hlthunk_signal_submission(fd, &sin, &sout), err);
	ERR(hlthunk_signal_submission_timeout(fd, &sin, &sout, 1), err);
	memset(&wd, 0, sizeof(wd));
	wd.signal_seq_arr = &seq;
	wd.signal_seq_nr = 1;
	memset(&win, 0, sizeof(win));
	win.hlthunk_wait_for_signal = (uint64_t *)&wd;
	win.num_wait_for_signal = 1;
	ERR(hlthunk_wait_for_signal(fd, &win, &wout), err);
	ERR(hlthunk_wait_for_signal_timeout(fd, &win, &wout, 1), err);
	ERR(hlthunk_wait_for_collective_signal(fd, &win, &wout), err);
	ERR(hlthunk_wait_for_collective_signal_timeout(fd, &win, &wout, 1), err);
	ERR(hlthunk_wait_for_reserved_encaps_signals(fd, &win, &wout), err);
	ERR(hlthunk_wait_for_reserved_encaps_collective_signals(fd, &win, &wout),
	    err);
	memset(&rin, 0, sizeof(rin));
	rin.count = 1;
	ERR(hlthunk_reserve_encaps_signals(fd, &rin, &rout), err);
	memset(&rh, 0, sizeof(rh));
	ERR(hlthunk_unreserve_encaps_signals(fd, &rh, &u32), err);
	memset(&chunk, 0, sizeof(chunk));
	memset(&in, 0, sizeof(in));
	in.chunks_execute = &chunk;
	in.num_chunks_execute = 1;
	in.flags = HL_CS_FLAGS_STAGED_SUBMISSION |
		   HL_CS_FLAGS_STAGED_SUBMISSION_FIRST;
	ERR(hlthunk_staged_command_submission(fd, 0, &in, &out), err);
	ERR(hlthunk_staged_command_submission_timeout(fd, 0, &in, &out, 1), err);
	ERR(hlthunk_staged_command_submission_encaps_signals(fd, 1, &in, &out),
	    err);
	ERR(hlthunk_get_hw_block(fd, 0, &u32, &u64), err);
	ERR(hlthunk_allocate_timestamp_elements(fd, 1, &u64), err);
	memset(&dbg, 0, sizeof(dbg));
	ERR(hlthunk_debug(fd, &dbg), err);
}

static void all_fd_calls(int fd, int err)
{
	struct hlthunk_hw_ip_info hw;
	struct hl_info_hw_ip_info hwx;
	struct hl_info_args info;
	struct hlthunk_dram_usage_info du;
	struct hlthunk_engines_idle_info idle;
	struct hlthunk_page_fault_info pf;
	struct hl_info_page_fault_event pfe;
	struct hl_info_nic_ports ports;
	struct hl_nic_req_conn_ctx_in req;
	struct hl_nic_res_conn_ctx_in res;
	struct hl_nic_query_conn_out q;
	struct hl_nic_cq_poll_wait_out pw;
	struct hl_nic_cqe cqe;
	struct hl_cs_chunk chunk;
	struct hlthunk_cs_in in;
	struct hlthunk_cs_out out;
	struct hlthunk_wait_multi_cs_in min;
	struct hlthunk_wait_multi_cs_out mout;
	struct hlthunk_reset_count_info rci;
	struct hl_info_cs_counters csc;
	struct hlthunk_open_stats_info ost;
	struct hlthunk_time_sync_info ts;
	struct hlthunk_event_record_open_dev_time rec_open;
	struct hlthunk_event_record_cs_timeout rec_cst;
	struct hlthunk_event_record_undefined_opcode rec_undef;
	char busid[HLTHUNK_PCI_BUS_ID_LEN], host[4096], engines[1024];
	uint32_t events[64];
	uint64_t u64, u64b, seq = 1, one = 1;
	uint32_t u32, st;
	int efd, i32;

	hl24_fd_calls(fd, err);
	memset(&info, 0, sizeof(info));
	memset(&req, 0, sizeof(req));
	memset(&res, 0, sizeof(res));
	memset(&chunk, 0, sizeof(chunk));
	memset(&in, 0, sizeof(in));
	in.chunks_execute = &chunk;
	in.num_chunks_execute = 1;

	if (err == EBADF) {
		ERR(hlthunk_close(fd), err);
		ERR(hlthunk_get_pci_bus_id_from_fd(fd, busid, sizeof(busid)), err);
	} else {
		ERR(hlthunk_get_pci_bus_id_from_fd(fd, busid, sizeof(busid)), err);
	}
	ERR0(hlthunk_get_device_id_from_fd(fd), err);
	errno = 0;
	assert_int_equal(hlthunk_get_device_name_from_fd(fd),
			 HLTHUNK_DEVICE_INVALID);
	assert_int_equal(errno, err);
	ERR(hlthunk_get_info(fd, &info), err);
	ERR(hlthunk_get_hw_ip_info(fd, &hw), err);
	ERR(hlthunk_get_hw_ip_info_ext(fd, &hwx), err);
	ERR(hlthunk_get_hw_ip_info_ex(fd, &hwx, sizeof(hwx)), err);
	ERR(hlthunk_get_dram_usage(fd, &du), err);
	ERR((int)hlthunk_get_device_status_info(fd), err);
	ERR0(hlthunk_is_device_idle(fd), err);
	ERR(hlthunk_get_busy_engines_mask(fd, &idle), err);
	ERR(hlthunk_get_page_fault_info(fd, &pf, 0), err);
	ERR(hlthunk_get_page_fault_event(fd, &pfe), err);
	ERR(hlthunk_get_page_fault_event_ex(fd, &pfe, sizeof(pfe)), err);
	ERR(hlthunk_get_dev_memalloc_page_orders(fd, &u64), err);
	ERR(hlthunk_get_nic_ports_info(fd, &ports), err);
	ERR(hlthunk_get_nic_ports_info_ex(fd, &ports, sizeof(ports)), err);

	ERR0(hlthunk_device_memory_alloc(fd, 4096, 0, true, false), err);
	ERR(hlthunk_device_memory_free(fd, 1), err);
	ERR0(hlthunk_device_memory_map(fd, 1, 0), err);
	ERR0(hlthunk_device_memory_map_flags(fd, 1, 0, 0), err);
	ERR(hlthunk_device_memory_export_dmabuf_fd(fd, 1ull << 40, 4096, 0), err);
	ERR(hlthunk_device_mapped_memory_export_dmabuf_fd(fd, 1ull << 40, 4096,
							  0, 0), err);
	ERR0(hlthunk_host_memory_map(fd, host, 0, sizeof(host)), err);
	ERR0(hlthunk_host_memory_map_flags(fd, host, 0, sizeof(host), 0), err);
	ERR(hlthunk_memory_unmap(fd, 1ull << 40), err);

	ERR(hlthunk_command_submission(fd, &in, &out), err);
	ERR(hlthunk_command_submission_timeout(fd, &in, &out, 1), err);
	ERR(hlthunk_wait_for_cs(fd, 1, 0, &st), err);
	ERR(hlthunk_wait_for_cs_with_timestamp(fd, 1, 0, &st, &u64), err);

	ERR(hlthunk_nic_alloc_conn(fd, 0, &u32), err);
	ERR(hlthunk_nic_set_req_conn_ctx(fd, &req), err);
	ERR(hlthunk_nic_set_res_conn_ctx(fd, &res), err);
	ERR(hlthunk_nic_destroy_conn(fd, 1), err);
	ERR(hlthunk_nic_modify_conn(fd, 1, HL_NIC_CONN_STATE_RESET), err);
	ERR(hlthunk_nic_query_conn(fd, 1, &q), err);
	ERR(hlthunk_nic_query_conn_ex(fd, 1, &q, sizeof(q)), err);
	ERR(hlthunk_nic_cq_create(fd, 16, &u32), err);
	ERR(hlthunk_nic_cq_destroy(fd, 1), err);
	ERR(hlthunk_nic_cq_poll(fd, 1, &cqe, 1, &pw), err);
	ERR(hlthunk_nic_cq_wait(fd, 1, &cqe, 1, 0, &pw), err);
	ERR(hlthunk_nic_reg_mr(fd, 1ull << 40, 4096, 0, 0, &u32, &u32), err);
	ERR(hlthunk_nic_reg_mr_conn(fd, 1ull << 40, 4096, 0, 0, 0, &u32, &u32),
	    err);
	ERR(hlthunk_nic_dereg_mr(fd, 1), err);
	ERR(hlthunk_nic_cq_update_consumed_cqes(fd, 1, 1), err);

	/* The runtime calls (HLTHUNK_2.1), with arguments the library takes */
	ERR(hlthunk_request_command_buffer(fd, 4096, &u64), err);
	ERR(hlthunk_request_mapped_command_buffer(fd, 4096, &u64), err);
	ERR(hlthunk_destroy_command_buffer(fd, 1), err);
	ERR(hlthunk_get_mapped_cb_device_va_by_handle(fd, 1, &u64), err);
	ERR(hlthunk_get_cb_usage_count(fd, 1, &u32), err);
	memset(&min, 0, sizeof(min));
	min.seq = &seq;
	min.seq_len = 1;
	ERR(hlthunk_wait_for_multi_cs(fd, &min, &mout), err);
	ERR(hlthunk_wait_for_multi_cs_with_timestamp(fd, &min, &mout, &u64), err);
	ERR(hlthunk_notifier_create(fd), err);
	/* The ioctl refuses @fd before the eventfd is closed */
	ERR(hlthunk_notifier_release(fd, INT32_MAX), err);
	/* A signalled eventfd: poll and read succeed, the ioctl refuses @fd */
	efd = eventfd(0, EFD_CLOEXEC);
	assert_true(efd >= 0);
	assert_int_equal(write(efd, &one, sizeof(one)), sizeof(one));
	ERR(hlthunk_notifier_recv(fd, efd, &u64, &u64b, 0, 0), err);
	close(efd);
	ERR(hlthunk_get_reset_count_info(fd, &rci), err);
	ERR(hlthunk_get_cs_counters_info(fd, &csc), err);
	ERR(hlthunk_get_open_stats(fd, &ost), err);
	ERR(hlthunk_get_device_utilization(fd, 100, &u32), err);
	ERR(hlthunk_get_time_sync_info(fd, &ts), err);
	ERR(hlthunk_get_event_record(fd, HLTHUNK_OPEN_DEV, &rec_open), err);
	ERR(hlthunk_get_event_record(fd, HLTHUNK_CS_TIMEOUT, &rec_cst), err);
	ERR(hlthunk_get_event_record(fd, HLTHUNK_UNDEFINED_OPCODE, &rec_undef),
	    err);
	ERR(hlthunk_get_engine_status(fd, engines, sizeof(engines), &i32), err);
	ERR(hlthunk_get_hw_events_arr(fd, false, sizeof(events), events), err);
	ERR(hlthunk_get_hw_events_arr(fd, true, sizeof(events), events), err);
}

static void test_closed_fd_is_ebadf(void **state)
{
	(void)state;
	all_fd_calls(-1, EBADF);
	all_fd_calls(INT32_MAX, EBADF);
}

static void test_other_drivers_fd_is_enotty(void **state)
{
	struct badargs_state *st = *state;

	all_fd_calls(st->fds[st->nfds - 1], ENOTTY);
}

/* NULL or out-of-range arguments on @fd: EINVAL before any ioctl */
/* The calls of node HLTHUNK_2.4 with NULL or what hl-thunk refuses */
static void hl24_einval_calls(int fd)
{
	struct hlthunk_wait_for_signal_data wd;
	struct hlthunk_signal_out sout;
	struct hlthunk_wait_in win;
	struct hlthunk_wait_out wout;
	struct hlthunk_sig_res_in rin;
	struct hlthunk_sig_res_out rout;
	struct reserve_sig_handle rh;
	struct hlthunk_cs_in in;
	struct hlthunk_cs_out out;
	uint64_t u64, seq = 1;
	uint32_t u32;
	uint8_t req[8];

	ERR(hlthunk_get_clk_rate(fd, NULL, &u32), EINVAL);
	ERR(hlthunk_get_clk_rate(fd, &u32, NULL), EINVAL);
	ERR(hlthunk_get_clk_throttle_info(fd, NULL), EINVAL);
	ERR(hlthunk_get_pll_frequency(fd, 0, NULL), EINVAL);
	ERR(hlthunk_get_power_info(fd, NULL), EINVAL);
	ERR(hlthunk_get_total_energy_consumption_info(fd, NULL), EINVAL);
	ERR(hlthunk_get_hw_asic_status(fd, NULL), EINVAL);
	ERR(hlthunk_get_pci_counters_info(fd, NULL), EINVAL);
	ERR(hlthunk_get_dram_replaced_rows_info(fd, NULL), EINVAL);
	ERR(hlthunk_get_dram_pending_rows_info(fd, NULL), EINVAL);
	ERR(hlthunk_get_sec_attest_info(fd, 0, NULL), EINVAL);
	ERR(hlthunk_fw_send_generic_request(fd, NULL, sizeof(req), 0), EINVAL);
	ERR(hlthunk_fw_send_generic_request(fd, req, 0, 0), EINVAL);
	ERR(hlthunk_get_sync_manager_info(fd, 0, NULL), EINVAL);

	ERR(hlthunk_signal_submission(fd, NULL, &sout), EINVAL);
	ERR(hlthunk_signal_submission_timeout(fd, NULL, &sout, 1), EINVAL);
	memset(&wd, 0, sizeof(wd));
	wd.signal_seq_arr = &seq;
	wd.signal_seq_nr = 1;
	memset(&win, 0, sizeof(win));
	win.hlthunk_wait_for_signal = (uint64_t *)&wd;
	/* hl-thunk takes exactly one wait of exactly one signal */
	win.num_wait_for_signal = 2;
	ERR(hlthunk_wait_for_signal(fd, &win, &wout), EINVAL);
	ERR(hlthunk_wait_for_collective_signal(fd, &win, &wout), EINVAL);
	win.num_wait_for_signal = 1;
	wd.signal_seq_nr = 0;
	ERR(hlthunk_wait_for_signal_timeout(fd, &win, &wout, 1), EINVAL);
	ERR(hlthunk_wait_for_collective_signal_timeout(fd, &win, &wout, 1),
	    EINVAL);
	ERR(hlthunk_wait_for_reserved_encaps_signals(fd, &win, &wout), EINVAL);
	ERR(hlthunk_wait_for_reserved_encaps_collective_signals(fd, &win, &wout),
	    EINVAL);
	win.hlthunk_wait_for_signal = NULL;
	ERR(hlthunk_wait_for_signal(fd, &win, &wout), EINVAL);
	ERR(hlthunk_wait_for_signal(fd, NULL, &wout), EINVAL);
	memset(&rin, 0, sizeof(rin));
	ERR(hlthunk_reserve_encaps_signals(fd, NULL, &rout), EINVAL);
	ERR(hlthunk_reserve_encaps_signals(fd, &rin, NULL), EINVAL);
	memset(&rh, 0, sizeof(rh));
	ERR(hlthunk_unreserve_encaps_signals(fd, NULL, &u32), EINVAL);
	ERR(hlthunk_unreserve_encaps_signals(fd, &rh, NULL), EINVAL);
	/* A staged part without HL_CS_FLAGS_STAGED_SUBMISSION */
	memset(&in, 0, sizeof(in));
	ERR(hlthunk_staged_command_submission(fd, 0, &in, &out), EINVAL);
	ERR(hlthunk_staged_command_submission_timeout(fd, 0, &in, &out, 1),
	    EINVAL);
	ERR(hlthunk_staged_command_submission_encaps_signals(fd, 1, &in, &out),
	    EINVAL);
	ERR(hlthunk_staged_command_submission(fd, 0, NULL, &out), EINVAL);
	ERR(hlthunk_get_hw_block(fd, 0, NULL, &u64), EINVAL);
	ERR(hlthunk_get_hw_block(fd, 0, &u32, NULL), EINVAL);
	ERR(hlthunk_allocate_timestamp_elements(fd, 1, NULL), EINVAL);
	ERR(hlthunk_debug(fd, NULL), EINVAL);
}

static void einval_calls(int fd)
{
	struct hl_info_hw_ip_info hwx;
	struct hl_info_page_fault_event pfe;
	struct hl_info_nic_ports ports;
	struct hl_nic_query_conn_out q;
	struct hl_nic_cq_poll_wait_out pw;
	struct hlthunk_cs_in in;
	struct hlthunk_cs_out out;
	struct hlthunk_wait_multi_cs_in min;
	struct hlthunk_wait_multi_cs_out mout;
	struct hlthunk_event_record_open_dev_time rec;
	char busid[HLTHUNK_PCI_BUS_ID_LEN], engines[1024];
	uint32_t events[64], u32;
	uint64_t u64, seq[HL_WAIT_MULTI_CS_LIST_MAX_LEN + 1] = { 1 };
	int i32;

	memset(&in, 0, sizeof(in));
	ERR(hlthunk_get_pci_bus_id_from_fd(fd, NULL, sizeof(busid)), EINVAL);
	ERR(hlthunk_get_pci_bus_id_from_fd(fd, busid, 0), EINVAL);
	ERR(hlthunk_get_pci_bus_id_from_fd(fd, busid, -1), EINVAL);
	ERR(hlthunk_get_info(fd, NULL), EINVAL);
	ERR(hlthunk_get_hw_ip_info(fd, NULL), EINVAL);
	ERR(hlthunk_get_hw_ip_info_ext(fd, NULL), EINVAL);
	ERR(hlthunk_get_hw_ip_info_ex(fd, NULL, sizeof(hwx)), EINVAL);
	ERR(hlthunk_get_hw_ip_info_ex(fd, &hwx, 0), EINVAL);
	ERR(hlthunk_get_hw_ip_info_ex(fd, &hwx, 255), EINVAL);
	ERR(hlthunk_get_dram_usage(fd, NULL), EINVAL);
	ERR(hlthunk_get_busy_engines_mask(fd, NULL), EINVAL);
	ERR(hlthunk_get_page_fault_info(fd, NULL, 0), EINVAL);
	ERR(hlthunk_get_page_fault_event(fd, NULL), EINVAL);
	ERR(hlthunk_get_page_fault_event_ex(fd, NULL, sizeof(pfe)), EINVAL);
	ERR(hlthunk_get_page_fault_event_ex(fd, &pfe, 31), EINVAL);
	ERR(hlthunk_get_dev_memalloc_page_orders(fd, NULL), EINVAL);
	ERR(hlthunk_get_nic_ports_info(fd, NULL), EINVAL);
	ERR(hlthunk_get_nic_ports_info_ex(fd, NULL, sizeof(ports)), EINVAL);
	ERR(hlthunk_get_nic_ports_info_ex(fd, &ports, 1543), EINVAL);

	ERR0(hlthunk_device_memory_map_flags(fd, 1, 0, HL_MEM_USERPTR), EINVAL);

	ERR(hlthunk_command_submission(fd, NULL, &out), EINVAL);
	ERR(hlthunk_command_submission(fd, &in, NULL), EINVAL);
	ERR(hlthunk_command_submission_timeout(fd, NULL, &out, 1), EINVAL);
	ERR(hlthunk_command_submission_timeout(fd, &in, NULL, 1), EINVAL);

	ERR(hlthunk_nic_alloc_conn(fd, 0, NULL), EINVAL);
	ERR(hlthunk_nic_set_req_conn_ctx(fd, NULL), EINVAL);
	ERR(hlthunk_nic_set_res_conn_ctx(fd, NULL), EINVAL);
	ERR(hlthunk_nic_query_conn(fd, 1, NULL), EINVAL);
	ERR(hlthunk_nic_query_conn_ex(fd, 1, NULL, sizeof(q)), EINVAL);
	ERR(hlthunk_nic_query_conn_ex(fd, 1, &q, 31), EINVAL);
	ERR(hlthunk_nic_cq_create(fd, 16, NULL), EINVAL);
	ERR(hlthunk_nic_cq_poll(fd, 1, NULL, 0, NULL), EINVAL);
	ERR(hlthunk_nic_cq_poll(fd, 1, NULL, 1, &pw), EINVAL);
	ERR(hlthunk_nic_cq_wait(fd, 1, NULL, 0, 0, NULL), EINVAL);
	ERR(hlthunk_nic_reg_mr(fd, 1ull << 40, 4096, 0, 0, NULL, &u32), EINVAL);
	ERR(hlthunk_nic_reg_mr(fd, 1ull << 40, 4096, 0, 0, &u32, NULL), EINVAL);
	ERR(hlthunk_nic_reg_mr_conn(fd, 1ull << 40, 4096, 0, 0, 0, NULL, &u32),
	    EINVAL);
	ERR(hlthunk_nic_reg_mr_conn(fd, 1ull << 40, 4096, 0, 0, 0, &u32, NULL),
	    EINVAL);
	ERR(hlthunk_nic_cq_wait(fd, 1, NULL, 1, 0, &pw), EINVAL);

	/* The runtime calls: NULL outputs, sizes and values out of range */
	ERR(hlthunk_request_command_buffer(fd, 4096, NULL), EINVAL);
	ERR(hlthunk_request_command_buffer(fd, 0, &u64), EINVAL);
	ERR(hlthunk_request_command_buffer(fd, HL_MAX_CB_SIZE + 1, &u64), EINVAL);
	ERR(hlthunk_request_command_buffer(fd, UINT32_MAX, &u64), EINVAL);
	ERR(hlthunk_request_mapped_command_buffer(fd, 4096, NULL), EINVAL);
	ERR(hlthunk_request_mapped_command_buffer(fd, 0, &u64), EINVAL);
	ERR(hlthunk_request_mapped_command_buffer(fd, HL_MAX_CB_SIZE + 1, &u64),
	    EINVAL);
	ERR(hlthunk_get_mapped_cb_device_va_by_handle(fd, 1, NULL), EINVAL);
	ERR(hlthunk_get_cb_usage_count(fd, 1, NULL), EINVAL);

	memset(&min, 0, sizeof(min));
	min.seq = seq;
	min.seq_len = 1;
	ERR(hlthunk_wait_for_multi_cs(fd, NULL, &mout), EINVAL);
	ERR(hlthunk_wait_for_multi_cs(fd, &min, NULL), EINVAL);
	ERR(hlthunk_wait_for_multi_cs_with_timestamp(fd, &min, &mout, NULL),
	    EINVAL);
	ERR(hlthunk_wait_for_multi_cs_with_timestamp(fd, NULL, &mout, &u64),
	    EINVAL);
	min.seq = NULL;
	ERR(hlthunk_wait_for_multi_cs(fd, &min, &mout), EINVAL);
	min.seq = seq;
	min.seq_len = 0;
	ERR(hlthunk_wait_for_multi_cs(fd, &min, &mout), EINVAL);
	ERR(hlthunk_wait_for_multi_cs_with_timestamp(fd, &min, &mout, &u64),
	    EINVAL);
	min.seq_len = HL_WAIT_MULTI_CS_LIST_MAX_LEN + 1;
	ERR(hlthunk_wait_for_multi_cs(fd, &min, &mout), EINVAL);
	min.seq_len = 256;	/* 0 once truncated to the uAPI's u8 */
	ERR(hlthunk_wait_for_multi_cs(fd, &min, &mout), EINVAL);

	ERR(hlthunk_notifier_release(fd, -1), EINVAL);
	ERR(hlthunk_notifier_recv(fd, -1, &u64, &u64, 0, 0), EINVAL);
	ERR(hlthunk_notifier_recv(fd, 0, NULL, &u64, 0, 0), EINVAL);
	ERR(hlthunk_notifier_recv(fd, 0, &u64, NULL, 0, 0), EINVAL);

	ERR(hlthunk_get_reset_count_info(fd, NULL), EINVAL);
	ERR(hlthunk_get_cs_counters_info(fd, NULL), EINVAL);
	ERR(hlthunk_get_open_stats(fd, NULL), EINVAL);
	ERR(hlthunk_get_time_sync_info(fd, NULL), EINVAL);
	ERR(hlthunk_get_device_utilization(fd, 100, NULL), EINVAL);
	ERR(hlthunk_get_device_utilization(fd, 0, &u32), EINVAL);
	ERR(hlthunk_get_device_utilization(fd, 150, &u32), EINVAL);
	ERR(hlthunk_get_device_utilization(fd, 1100, &u32), EINVAL);
	ERR(hlthunk_get_device_utilization(fd, UINT32_MAX, &u32), EINVAL);

	ERR(hlthunk_get_event_record(fd, HLTHUNK_OPEN_DEV, NULL), EINVAL);
	ERR(hlthunk_get_event_record(fd, HLTHUNK_RAZWI_EVENT, &rec), EINVAL);
	ERR(hlthunk_get_event_record(fd, HLTHUNK_HW_ERR_OPCODE, &rec), EINVAL);
	ERR(hlthunk_get_event_record(fd, HLTHUNK_FW_ERR_OPCODE, &rec), EINVAL);
	ERR(hlthunk_get_event_record(fd, (enum hlthunk_event_record_id)-1, &rec),
	    EINVAL);
	ERR(hlthunk_get_event_record(fd, (enum hlthunk_event_record_id)99, &rec),
	    EINVAL);

	ERR(hlthunk_get_engine_status(fd, NULL, sizeof(engines), &i32), EINVAL);
	ERR(hlthunk_get_engine_status(fd, engines, sizeof(engines), NULL),
	    EINVAL);
	ERR(hlthunk_get_engine_status(fd, engines, 0, &i32), EINVAL);
	ERR(hlthunk_get_engine_status(fd, engines, sizeof(engines) - 1, &i32),
	    EINVAL);
	ERR(hlthunk_get_engine_status(fd, engines, HL_ENGINES_DATA_MAX_SIZE + 1,
				      &i32), EINVAL);
	ERR(hlthunk_get_hw_events_arr(fd, false, sizeof(events), NULL), EINVAL);
	ERR(hlthunk_get_hw_events_arr(fd, true, 0, events), EINVAL);
	hl24_einval_calls(fd);
}

static void test_null_and_short_sizes_are_einval(void **state)
{
	struct badargs_state *st = *state;
	int i;

	for (i = 0; i < st->nfds; i++)
		einval_calls(st->fds[i]);
}

/* With a device only: handles that name nothing, which only the driver can tell */
static void test_unknown_handles_are_einval(void **state)
{
	struct badargs_state *st = *state;
	uint64_t u64;
	uint32_t u32;
	int fd;

	if (!st->device)
		skip();
	fd = st->fds[0];
	ERR(hlthunk_destroy_command_buffer(fd, UINT64_MAX), EINVAL);
	ERR(hlthunk_destroy_command_buffer(fd, 0), EINVAL);
	ERR(hlthunk_get_mapped_cb_device_va_by_handle(fd, UINT64_MAX, &u64),
	    EINVAL);
	ERR(hlthunk_get_cb_usage_count(fd, UINT64_MAX, &u32), EINVAL);
	/* No eventfd registered on either node */
	ERR(hlthunk_notifier_release(fd, INT32_MAX), EINVAL);
	ERR(hlthunk_notifier_release(st->fds[1], INT32_MAX), EINVAL);
	/* Command buffers are the compute node's: the control node's ENOTTY */
	ERR(hlthunk_request_command_buffer(st->fds[1], 4096, &u64), ENOTTY);
}

/* The hash helpers: pure user space, the same everywhere */
static void test_hash_bad_tables_and_keys(void **state)
{
	unsigned long key = 0;
	void *t, *v = NULL;
	int x;

	(void)state;
	ERR(hlthunk_hash_destroy(NULL), EINVAL);
	ERR(hlthunk_hash_lookup(NULL, 1, &v), EINVAL);
	ERR(hlthunk_hash_insert(NULL, 1, &x), EINVAL);
	ERR(hlthunk_hash_delete(NULL, 1), EINVAL);
	ERR(hlthunk_hash_first(NULL, &key, &v), EINVAL);
	ERR(hlthunk_hash_next(NULL, &key, &v), EINVAL);

	errno = 0;
	t = hlthunk_hash_create();
	assert_non_null(t);
	assert_int_equal(errno, 0);
	ERR(hlthunk_hash_lookup(t, 1, NULL), EINVAL);
	ERR(hlthunk_hash_first(t, NULL, &v), EINVAL);
	ERR(hlthunk_hash_first(t, &key, NULL), EINVAL);
	ERR(hlthunk_hash_next(t, NULL, &v), EINVAL);
	ERR(hlthunk_hash_next(t, &key, NULL), EINVAL);
	/* Empty table, missing keys: ENOENT */
	ERR(hlthunk_hash_lookup(t, 0, &v), ENOENT);
	ERR(hlthunk_hash_delete(t, 0), ENOENT);
	ERR(hlthunk_hash_first(t, &key, &v), ENOENT);
	ERR(hlthunk_hash_next(t, &key, &v), ENOENT);
	/* Extreme keys are keys like any other */
	assert_int_equal(hlthunk_hash_insert(t, ULONG_MAX, &x), 0);
	assert_int_equal(hlthunk_hash_insert(t, 0, NULL), 0);
	key = ULONG_MAX;
	ERR(hlthunk_hash_next(t, &key, &v), ENOENT);
	assert_int_equal(key, ULONG_MAX);
	assert_int_equal(hlthunk_hash_first(t, &key, &v), 0);
	assert_int_equal(key, 0);
	assert_null(v);
	assert_int_equal(hlthunk_hash_delete(t, ULONG_MAX), 0);
	ERR(hlthunk_hash_delete(t, ULONG_MAX), ENOENT);
	ERR(hlthunk_hash_lookup(t, ULONG_MAX, &v), ENOENT);
	assert_int_equal(hlthunk_hash_destroy(t), 0);
}

/* The device-finding calls: values that name no device */
static void test_bad_names_and_addresses_are_einval(void **state)
{
	(void)state;
	ERR(hlthunk_open((enum hlthunk_device_name)77, NULL), EINVAL);
	ERR(hlthunk_open(HLTHUNK_DEVICE_INVALID, NULL), EINVAL);
	ERR(hlthunk_open((enum hlthunk_device_name)-1, NULL), EINVAL);
	ERR(hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, "not a bus id"), EINVAL);
	ERR(hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, "0000:100:00.0"), EINVAL);
	ERR(hlthunk_open_control(-1, NULL), EINVAL);
	ERR(hlthunk_open_control(0, "0000:00:00.8"), EINVAL);
	ERR(hlthunk_open_control_by_name(HLTHUNK_DEVICE_MAX, NULL), EINVAL);
	ERR(hlthunk_open_control_by_name(HLTHUNK_DEVICE_DONT_CARE, ":"), EINVAL);
	ERR(hlthunk_open_control_by_bus_id(NULL), EINVAL);
	ERR(hlthunk_open_control_by_bus_id(""), EINVAL);
	ERR(hlthunk_get_device_count(HLTHUNK_DEVICE_INVALID), EINVAL);
	ERR(hlthunk_get_device_count((enum hlthunk_device_name)999), EINVAL);
	ERR(hlthunk_get_device_index_from_pci_bus_id(NULL), EINVAL);
	ERR(hlthunk_get_device_index_from_pci_bus_id("00:1f.8"), EINVAL);
	/* Well formed, but nothing there */
	ERR(hlthunk_open_by_module_id(UINT32_MAX), ENODEV);
	ERR(hlthunk_open_control_by_module_id(UINT32_MAX), ENODEV);
	ERR(hlthunk_get_device_index_from_pci_bus_id("ffff:ff:1f.7"), ENODEV);
}

/* The calls that cannot fail accept what they document */
static void test_infallible_calls_take_null(void **state)
{
	char *v;

	(void)state;
	assert_int_equal(hlthunk_pkt_nop(NULL), HLTHUNK_PKT_NOP_SIZE);
	assert_int_equal(hlthunk_pkt_lin_dma(NULL, 0, 0, UINT64_MAX),
			 HLTHUNK_PKT_LIN_DMA_SIZE);
	assert_int_equal(hlthunk_pkt_memset(NULL, 0, 0, UINT64_MAX),
			 HLTHUNK_PKT_MEMSET_SIZE);
	assert_int_equal(hlthunk_pkt_msg_long(NULL, 1, 0),
			 HLTHUNK_PKT_MSG_LONG_SIZE);
	assert_int_equal(hlthunk_pkt_reduce(NULL, 0, 0, 0, UINT32_MAX, UINT32_MAX),
			 HLTHUNK_PKT_REDUCE_SIZE);
	assert_int_equal(hlthunk_pkt_nic_send(NULL, 0, 0, UINT64_MAX, 0),
			 HLTHUNK_PKT_NIC_SEND_SIZE);
	assert_int_equal(hlthunk_pkt_nic_recv(NULL, 0, 0, UINT64_MAX, 0),
			 HLTHUNK_PKT_NIC_RECV_SIZE);
	assert_int_equal(hlthunk_pkt_nic_write(NULL, 0, 0, 0, 0, 0, UINT64_MAX, 0),
			 HLTHUNK_PKT_NIC_WRITE_SIZE);
	assert_int_equal(hlthunk_pkt_nic_write_imm(NULL, 0, 0, 0, 0, 0,
						   UINT64_MAX, 0, 0),
			 HLTHUNK_PKT_NIC_WRITE_SIZE);
	hlthunk_free(NULL);
	errno = 0;
	assert_null(hlthunk_malloc(SIZE_MAX));
	assert_int_equal(errno, ENOMEM);
	v = hlthunk_get_version();
	assert_non_null(v);
	hlthunk_free(v);
}

const struct CMUnitTest badargs_tests[] = {
	cmocka_unit_test_setup_teardown(test_closed_fd_is_ebadf,
					badargs_setup, badargs_teardown),
	cmocka_unit_test_setup_teardown(test_other_drivers_fd_is_enotty,
					badargs_setup, badargs_teardown),
	cmocka_unit_test_setup_teardown(test_null_and_short_sizes_are_einval,
					badargs_setup, badargs_teardown),
	cmocka_unit_test_setup_teardown(test_unknown_handles_are_einval,
					badargs_setup, badargs_teardown),
	cmocka_unit_test(test_hash_bad_tables_and_keys),
	cmocka_unit_test(test_bad_names_and_addresses_are_einval),
	cmocka_unit_test(test_infallible_calls_take_null),
};

/* Runs without a device too (on the host: /dev/null and -1 only) */
int main(void)
{
	if (getenv("HLTESTS_FILTER"))
		cmocka_set_test_filter(getenv("HLTESTS_FILTER"));
	return cmocka_run_group_tests_name("badargs", badargs_tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * upstream.c - hl-thunk's calls of upstream's uAPI that the emulated device
 * answers with -EOPNOTSUPP (INFO queries of clocks, power, PLLs, PCIe
 * counters, DRAM rows, attestation, firmware; hardware blocks, timestamp
 * buffers, debug) or that need the driver's sync manager (signal, wait,
 * collective wait, staged submissions, encapsulated signals). Each issues
 * the ioctl with the argument hl-thunk fills and returns what the driver
 * answers (node HLTHUNK_2.4).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "hlthunk_internal.h"

/* ------------------------------------------------------------------------
 * INFO
 */

/* HL_IOCTL_INFO @op with @arg in the args' union into @buf */
static int hl24_info(int fd, uint32_t op, uint32_t arg, void *buf,
		     uint32_t size)
{
	struct hl_info_args args;
	int rc;

	memset(&args, 0, sizeof(args));
	args.op = op;
	args.ctx_id = arg;
	args.return_pointer = hlthunk_ptr_to_u64(buf);
	args.return_size = size;
	rc = hlthunk_ioctl(fd, HL_IOCTL_INFO, &args);
	return rc < 0 ? rc : 0;
}

hlthunk_public int hlthunk_get_pll_frequency(int fd, uint32_t index,
				struct hlthunk_pll_frequency_info *frequency)
{
	struct hl_pll_frequency_info raw;
	int rc;

	if (!frequency)
		return hlthunk_err(EINVAL);
	memset(&raw, 0, sizeof(raw));
	rc = hl24_info(fd, HL_INFO_PLL_FREQUENCY, index, &raw, sizeof(raw));
	if (rc)
		return rc;
	memcpy(frequency->output, raw.output, sizeof(frequency->output));
	return 0;
}

hlthunk_public int hlthunk_get_clk_rate(int fd, uint32_t *cur_clk_mhz,
					uint32_t *max_clk_mhz)
{
	struct hl_info_clk_rate raw;
	int rc;

	if (!cur_clk_mhz || !max_clk_mhz)
		return hlthunk_err(EINVAL);
	memset(&raw, 0, sizeof(raw));
	rc = hl24_info(fd, HL_INFO_CLK_RATE, 0, &raw, sizeof(raw));
	if (rc)
		return rc;
	*cur_clk_mhz = raw.cur_clk_rate_mhz;
	*max_clk_mhz = raw.max_clk_rate_mhz;
	return 0;
}

hlthunk_public int hlthunk_get_clk_throttle_info(int fd,
				struct hlthunk_clk_throttle_info *info)
{
	struct hl_info_clk_throttle raw;
	int i, rc;

	if (!info)
		return hlthunk_err(EINVAL);
	memset(&raw, 0, sizeof(raw));
	rc = hl24_info(fd, HL_INFO_CLK_THROTTLE_REASON, 0, &raw, sizeof(raw));
	if (rc)
		return rc;
	info->clk_throttle_reason_bitmask = raw.clk_throttling_reason;
	for (i = 0; i < HL_CLK_THROTTLE_TYPE_MAX; i++) {
		info->clk_throttle_start_timestamp_us[i] =
			raw.clk_throttling_timestamp_us[i];
		info->clk_throttle_duration_ns[i] =
			raw.clk_throttling_duration_ns[i];
	}
	return 0;
}

hlthunk_public int hlthunk_get_total_energy_consumption_info(int fd,
				struct hlthunk_energy_info *info)
{
	struct hl_info_energy raw;
	int rc;

	if (!info)
		return hlthunk_err(EINVAL);
	memset(&raw, 0, sizeof(raw));
	rc = hl24_info(fd, HL_INFO_TOTAL_ENERGY, 0, &raw, sizeof(raw));
	if (rc)
		return rc;
	info->total_energy_consumption = raw.total_energy_consumption;
	return 0;
}

hlthunk_public int hlthunk_get_power_info(int fd,
					  struct hlthunk_power_info *info)
{
	struct hl_power_info raw;
	int rc;

	if (!info)
		return hlthunk_err(EINVAL);
	memset(&raw, 0, sizeof(raw));
	rc = hl24_info(fd, HL_INFO_POWER, 0, &raw, sizeof(raw));
	if (rc)
		return rc;
	info->power = raw.power;
	return 0;
}

hlthunk_public int hlthunk_get_hw_asic_status(int fd,
				struct hlthunk_hw_asic_status *hw_asic_status)
{
	int st, rc;

	if (!hw_asic_status)
		return hlthunk_err(EINVAL);

	/* hl-thunk's order; the first failure is the answer */
	hw_asic_status->valid = 0;
	st = hlthunk_get_device_status_info(fd);
	if (st < 0)
		return st;
	hw_asic_status->status = (enum hl_device_status)st;
	hw_asic_status->valid = 1;

	rc = hlthunk_get_clk_throttle_info(fd, &hw_asic_status->throttle);
	if (rc)
		return rc;
	rc = hlthunk_get_open_stats(fd, &hw_asic_status->open_stats);
	if (rc)
		return rc;
	if (st == HL_DEVICE_STATUS_OPERATIONAL) {
		rc = hlthunk_get_power_info(fd, &hw_asic_status->power);
		if (rc)
			return rc;
	}
	hw_asic_status->timestamp_sec = (uint64_t)time(NULL);
	return 0;
}

hlthunk_public int hlthunk_get_pci_counters_info(int fd,
				struct hlthunk_pci_counters_info *info)
{
	struct hl_info_pci_counters raw;
	int rc;

	if (!info)
		return hlthunk_err(EINVAL);
	memset(&raw, 0, sizeof(raw));
	rc = hl24_info(fd, HL_INFO_PCI_COUNTERS, 0, &raw, sizeof(raw));
	if (rc)
		return rc;
	info->rx_throughput = raw.rx_throughput;
	info->tx_throughput = raw.tx_throughput;
	info->replay_cnt = (uint32_t)raw.replay_cnt;
	return 0;
}

hlthunk_public int hlthunk_get_dram_replaced_rows_info(int fd,
				struct hlthunk_dram_replaced_rows_info *info)
{
	struct hlthunk_dram_replaced_rows_info raw;
	int rc;

	if (!info)
		return hlthunk_err(EINVAL);
	/* The driver's reply has this struct's layout (hl-thunk's) */
	memset(&raw, 0, sizeof(raw));
	rc = hl24_info(fd, HL_INFO_DRAM_REPLACED_ROWS, 0, &raw, sizeof(raw));
	if (rc)
		return rc;
	*info = raw;
	return 0;
}

hlthunk_public int hlthunk_get_dram_pending_rows_info(int fd, uint32_t *out)
{
	uint32_t n = 0;
	int rc;

	if (!out)
		return hlthunk_err(EINVAL);
	rc = hl24_info(fd, HL_INFO_DRAM_PENDING_ROWS, 0, &n, sizeof(n));
	if (rc)
		return rc;
	*out = n;
	return 0;
}

hlthunk_public int hlthunk_get_sec_attest_info(int fd, uint32_t nonce,
				struct hlthunk_sec_attest_info *info)
{
	struct hl_info_sec_attest raw;
	int rc;

	if (!info)
		return hlthunk_err(EINVAL);
	memset(&raw, 0, sizeof(raw));
	rc = hl24_info(fd, HL_INFO_SECURED_ATTESTATION, nonce, &raw,
		       sizeof(raw));
	if (rc)
		return rc;
	info->nonce = raw.nonce;
	info->pcr_quote_len = raw.pcr_quote_len;
	info->pub_data_len = raw.pub_data_len;
	info->certificate_len = raw.certificate_len;
	info->pcr_num_reg = raw.pcr_num_reg;
	info->pcr_reg_len = raw.pcr_reg_len;
	info->quote_sig_len = raw.quote_sig_len;
	memcpy(info->pcr_data, raw.pcr_data, sizeof(info->pcr_data));
	memcpy(info->pcr_quote, raw.pcr_quote, sizeof(info->pcr_quote));
	memcpy(info->quote_sig, raw.quote_sig, sizeof(info->quote_sig));
	memcpy(info->public_data, raw.public_data, sizeof(info->public_data));
	memcpy(info->certificate, raw.certificate, sizeof(info->certificate));
	return 0;
}

hlthunk_public int hlthunk_fw_send_generic_request(int fd, void *buff,
						   uint32_t buff_size,
						   uint32_t sub_opcode)
{
	if (!buff || !buff_size)
		return hlthunk_err(EINVAL);
	return hl24_info(fd, HL_INFO_FW_GENERIC_REQ, sub_opcode, buff,
			 buff_size);
}

hlthunk_public int hlthunk_get_sync_manager_info(int fd, int dcore_id,
				struct hlthunk_sync_manager_info *info)
{
	struct hl_info_sync_manager raw;
	int rc;

	if (!info)
		return hlthunk_err(EINVAL);
	memset(&raw, 0, sizeof(raw));
	rc = hl24_info(fd, HL_INFO_SYNC_MANAGER, (uint32_t)dcore_id, &raw,
		       sizeof(raw));
	if (rc)
		return rc;
	info->first_available_sync_object = raw.first_available_sync_object;
	info->first_available_monitor = raw.first_available_monitor;
	info->first_available_cq = raw.first_available_cq;
	return 0;
}

/* ------------------------------------------------------------------------
 * Sync-manager submissions: one HL_IOCTL_CS each
 */

/*
 * HL_IOCTL_CS with @args, its custom @timeout if any; a status other than
 * success is -EINVAL, as in hl-thunk
 */
static int hl24_cs(int fd, union hl_cs_args *args, uint32_t timeout)
{
	int rc;

	if (timeout) {
		args->in.cs_flags |= HL_CS_FLAGS_CUSTOM_TIMEOUT;
		args->in.timeout = timeout;
	}
	rc = hlthunk_ioctl(fd, HL_IOCTL_CS, args);
	if (rc < 0)
		return rc;
	if (args->out.status != HL_CS_STATUS_SUCCESS)
		return hlthunk_err(EINVAL);
	return 0;
}

static int hl24_signal(int fd, struct hlthunk_signal_in *in,
		       struct hlthunk_signal_out *out, uint32_t timeout)
{
	struct hl_cs_chunk chunk;
	union hl_cs_args args;
	int rc;

	if (!in || !out)
		return hlthunk_err(EINVAL);
	memset(&chunk, 0, sizeof(chunk));
	chunk.queue_index = in->queue_index;
	memset(&args, 0, sizeof(args));
	args.in.chunks_restore = hlthunk_ptr_to_u64(in->chunks_restore);
	args.in.num_chunks_restore = in->num_chunks_restore;
	args.in.chunks_execute = hlthunk_ptr_to_u64(&chunk);
	args.in.num_chunks_execute = 1;
	args.in.cs_flags = in->flags | HL_CS_FLAGS_SIGNAL;
	rc = hl24_cs(fd, &args, timeout);
	if (rc)
		return rc;
	out->seq = args.out.seq;
	out->status = args.out.status;
	out->sob_base_addr_offset = args.out.sob_base_addr_offset;
	out->sob_count_before_submission =
		args.out.sob_count_before_submission;
	return 0;
}

hlthunk_public int hlthunk_signal_submission(int fd,
					     struct hlthunk_signal_in *in,
					     struct hlthunk_signal_out *out)
{
	return hl24_signal(fd, in, out, 0);
}

hlthunk_public int hlthunk_signal_submission_timeout(int fd,
					struct hlthunk_signal_in *in,
					struct hlthunk_signal_out *out,
					uint32_t timeout)
{
	return hl24_signal(fd, in, out, timeout);
}

/*
 * A wait CS: @flag HL_CS_FLAGS_WAIT or HL_CS_FLAGS_COLLECTIVE_WAIT, on
 * signal CSs or (@encaps) on reserved signals
 */
static int hl24_wait(int fd, struct hlthunk_wait_in *in,
		     struct hlthunk_wait_out *out, uint32_t timeout,
		     uint32_t flag, bool encaps)
{
	const struct hlthunk_wait_for_signal_data *w;
	struct hl_cs_chunk chunk;
	union hl_cs_args args;
	int rc;

	if (!in || !out || !in->hlthunk_wait_for_signal ||
	    in->num_wait_for_signal != 1)
		return hlthunk_err(EINVAL);
	w = (const struct hlthunk_wait_for_signal_data *)
		(const void *)in->hlthunk_wait_for_signal;
	if (w->signal_seq_nr != 1)
		return hlthunk_err(EINVAL);

	memset(&chunk, 0, sizeof(chunk));
	chunk.queue_index = w->queue_index;
	if (encaps) {
		chunk.encaps_signal_seq = w->encaps_signal_seq;
		chunk.encaps_signal_offset = w->encaps_signal_offset;
	} else {
		chunk.signal_seq_arr = hlthunk_ptr_to_u64(w->signal_seq_arr);
		chunk.num_signal_seq_arr = 1;
	}
	if (flag == HL_CS_FLAGS_COLLECTIVE_WAIT)
		chunk.collective_engine_id = w->collective_engine_id;

	memset(&args, 0, sizeof(args));
	args.in.chunks_restore = hlthunk_ptr_to_u64(in->chunks_restore);
	args.in.num_chunks_restore = in->num_chunks_restore;
	args.in.chunks_execute = hlthunk_ptr_to_u64(&chunk);
	args.in.num_chunks_execute = 1;
	args.in.cs_flags = in->flags | flag |
			   (encaps ? HL_CS_FLAGS_ENCAP_SIGNALS : 0);
	rc = hl24_cs(fd, &args, timeout);
	if (rc)
		return rc;
	out->seq = args.out.seq;
	out->status = args.out.status;
	return 0;
}

hlthunk_public int hlthunk_wait_for_signal(int fd, struct hlthunk_wait_in *in,
					   struct hlthunk_wait_out *out)
{
	return hl24_wait(fd, in, out, 0, HL_CS_FLAGS_WAIT, false);
}

hlthunk_public int hlthunk_wait_for_signal_timeout(int fd,
					struct hlthunk_wait_in *in,
					struct hlthunk_wait_out *out,
					uint32_t timeout)
{
	return hl24_wait(fd, in, out, timeout, HL_CS_FLAGS_WAIT, false);
}

hlthunk_public int hlthunk_wait_for_collective_signal(int fd,
					struct hlthunk_wait_in *in,
					struct hlthunk_wait_out *out)
{
	return hl24_wait(fd, in, out, 0, HL_CS_FLAGS_COLLECTIVE_WAIT, false);
}

hlthunk_public int hlthunk_wait_for_collective_signal_timeout(int fd,
					struct hlthunk_wait_in *in,
					struct hlthunk_wait_out *out,
					uint32_t timeout)
{
	return hl24_wait(fd, in, out, timeout, HL_CS_FLAGS_COLLECTIVE_WAIT,
			 false);
}

hlthunk_public int hlthunk_wait_for_reserved_encaps_signals(int fd,
					struct hlthunk_wait_in *in,
					struct hlthunk_wait_out *out)
{
	return hl24_wait(fd, in, out, 0, HL_CS_FLAGS_WAIT, true);
}

hlthunk_public int hlthunk_wait_for_reserved_encaps_collective_signals(int fd,
					struct hlthunk_wait_in *in,
					struct hlthunk_wait_out *out)
{
	return hl24_wait(fd, in, out, 0, HL_CS_FLAGS_COLLECTIVE_WAIT, true);
}

hlthunk_public int hlthunk_reserve_encaps_signals(int fd,
					struct hlthunk_sig_res_in *in,
					struct hlthunk_sig_res_out *out)
{
	union hl_cs_args args;
	int rc;

	if (!in || !out)
		return hlthunk_err(EINVAL);
	memset(&args, 0, sizeof(args));
	args.in.encaps_signals_count = in->count;
	args.in.encaps_signals_q_idx = in->queue_index;
	args.in.num_chunks_execute = 1;
	args.in.cs_flags = HL_CS_FLAGS_RESERVE_SIGNALS_ONLY;
	rc = hl24_cs(fd, &args, 0);
	if (rc)
		return rc;
	out->handle.id = args.out.handle_id;
	out->handle.sob_base_addr_offset = args.out.sob_base_addr_offset;
	out->handle.count = args.out.count;
	out->status = args.out.status;
	return 0;
}

hlthunk_public int hlthunk_unreserve_encaps_signals(int fd,
					struct reserve_sig_handle *handle,
					uint32_t *status)
{
	union hl_cs_args args;
	int rc;

	if (!handle || !status)
		return hlthunk_err(EINVAL);
	memset(&args, 0, sizeof(args));
	args.in.encaps_sig_handle_id = handle->id;
	args.in.num_chunks_execute = 1;
	args.in.cs_flags = HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY;
	rc = hl24_cs(fd, &args, 0);
	if (rc)
		return rc;
	*status = args.out.status;
	return 0;
}

/*
 * One part of a staged submission: @seq is the first part's sequence
 * number, or (@encaps) the handle id of the reserved signals it signals
 */
static int hl24_staged(int fd, uint64_t seq, struct hlthunk_cs_in *in,
		       struct hlthunk_cs_out *out, uint32_t timeout,
		       bool encaps)
{
	union hl_cs_args args;
	int rc;

	if (!in || !out || !(in->flags & HL_CS_FLAGS_STAGED_SUBMISSION))
		return hlthunk_err(EINVAL);
	memset(&args, 0, sizeof(args));
	if (encaps)
		args.in.encaps_sig_handle_id = (uint32_t)seq;
	else
		args.in.seq = seq;
	hlthunk_cs_args_fill(&args, in, timeout);
	if (encaps)
		args.in.cs_flags |= HL_CS_FLAGS_ENCAP_SIGNALS;
	/* hl-thunk returns the part's status as it is */
	rc = hlthunk_ioctl(fd, HL_IOCTL_CS, &args);
	if (rc < 0)
		return rc;
	out->seq = args.out.seq;
	out->status = args.out.status;
	out->sob_count_before_submission =
		encaps ? args.out.sob_count_before_submission : 0;
	return 0;
}

hlthunk_public int hlthunk_staged_command_submission(int fd, uint64_t sequence,
					struct hlthunk_cs_in *in,
					struct hlthunk_cs_out *out)
{
	return hl24_staged(fd, sequence, in, out, 0, false);
}

hlthunk_public int hlthunk_staged_command_submission_timeout(int fd,
					uint64_t sequence,
					struct hlthunk_cs_in *in,
					struct hlthunk_cs_out *out,
					uint32_t timeout)
{
	return hl24_staged(fd, sequence, in, out, timeout, false);
}

hlthunk_public int hlthunk_staged_command_submission_encaps_signals(int fd,
					uint64_t handle_id,
					struct hlthunk_cs_in *in,
					struct hlthunk_cs_out *out)
{
	return hl24_staged(fd, handle_id, in, out, 0, true);
}

/* ------------------------------------------------------------------------
 * Hardware blocks, timestamp buffers, debug
 */

hlthunk_public int hlthunk_get_hw_block(int fd, uint64_t block_address,
					uint32_t *block_size, uint64_t *handle)
{
	union hl_mem_args args;
	int rc;

	if (!block_size || !handle)
		return hlthunk_err(EINVAL);
	memset(&args, 0, sizeof(args));
	args.in.op = HL_MEM_OP_MAP_BLOCK;
	args.in.map_block.block_addr = block_address;
	rc = hlthunk_ioctl(fd, HL_IOCTL_MEMORY, &args);
	if (rc < 0)
		return rc;
	*handle = args.out.block_handle;
	*block_size = args.out.block_size;
	return 0;
}

hlthunk_public int hlthunk_allocate_timestamp_elements(int fd,
						       uint32_t num_elements,
						       uint64_t *handle)
{
	union hl_mem_args args;
	int rc;

	if (!handle)
		return hlthunk_err(EINVAL);
	memset(&args, 0, sizeof(args));
	args.in.op = HL_MEM_OP_TS_ALLOC;
	args.in.num_of_elements = num_elements;
	rc = hlthunk_ioctl(fd, HL_IOCTL_MEMORY, &args);
	*handle = rc < 0 ? 0 : args.out.handle;
	return rc < 0 ? rc : 0;
}

hlthunk_public int hlthunk_debug(int fd, struct hl_debug_args *debug)
{
	int rc;

	if (!debug)
		return hlthunk_err(EINVAL);
	rc = hlthunk_ioctl(fd, HL_IOCTL_DEBUG, debug);
	return rc < 0 ? rc : 0;
}

// SPDX-License-Identifier: MIT
/*
 * layout.c - prints the offset and size of every upstream-defined field of
 * the uAPI structs this driver shares with upstream, and the values of the
 * shared constants, one "name value" a line. tests/uapi/check builds it
 * once against upstream's misc-era header (linux-libc-dev's
 * /usr/include/misc/habanalabs.h, Linux 6.1 on Debian 12) and once against
 * include/uapi/misc/habanalabs.h, and compares the two outputs.
 *
 * With -DLAYOUT_6_12 it also prints what Linux 6.12's header (hl-thunk-open's
 * era) has and 6.1's has not; tests/uapi/upstream-6.12.txt holds those lines
 * as measured against 6.12's include/uapi/drm/habanalabs_accel.h (built with
 * -DLAYOUT_6_12 -DLAYOUT_ONLY_6_12, which prints only them).
 */
#include <stddef.h>
#include <stdio.h>

#include <misc/habanalabs.h>

#define F(type, field)							\
	printf("%s.%s %zu %zu\n", #type, #field, offsetof(type, field),	\
	       sizeof(((type *)0)->field))
#define C(name) printf("%s %llu\n", #name, (unsigned long long)(name))

int main(void)
{
#ifndef LAYOUT_ONLY_6_12
	F(struct hl_info_hw_ip_info, sram_base_address);
	F(struct hl_info_hw_ip_info, dram_base_address);
	F(struct hl_info_hw_ip_info, dram_size);
	F(struct hl_info_hw_ip_info, sram_size);
	F(struct hl_info_hw_ip_info, num_of_events);
	F(struct hl_info_hw_ip_info, device_id);
	F(struct hl_info_hw_ip_info, module_id);
	F(struct hl_info_hw_ip_info, decoder_enabled_mask);
	F(struct hl_info_hw_ip_info, first_available_interrupt_id);
	F(struct hl_info_hw_ip_info, server_type);
	F(struct hl_info_hw_ip_info, cpld_version);
	F(struct hl_info_hw_ip_info, psoc_pci_pll_nr);
	F(struct hl_info_hw_ip_info, psoc_pci_pll_nf);
	F(struct hl_info_hw_ip_info, psoc_pci_pll_od);
	F(struct hl_info_hw_ip_info, psoc_pci_pll_div_factor);
	F(struct hl_info_hw_ip_info, tpc_enabled_mask);
	F(struct hl_info_hw_ip_info, dram_enabled);
	F(struct hl_info_hw_ip_info, security_enabled);
	F(struct hl_info_hw_ip_info, mme_master_slave_mode);
	F(struct hl_info_hw_ip_info, cpucp_version);
	F(struct hl_info_hw_ip_info, card_name);
	F(struct hl_info_hw_ip_info, tpc_enabled_mask_ext);
	F(struct hl_info_hw_ip_info, dram_page_size);
	F(struct hl_info_hw_ip_info, edma_enabled_mask);
	F(struct hl_info_hw_ip_info, number_of_user_interrupts);
	F(struct hl_info_hw_ip_info, device_mem_alloc_default_page_size);

	F(struct hl_info_dram_usage, dram_free_mem);
	F(struct hl_info_dram_usage, ctx_dram_mem);
	F(struct hl_info_hw_idle, is_idle);
	F(struct hl_info_hw_idle, busy_engines_mask);
	printf("struct hl_info_hw_idle.busy_engines_mask_ext %zu\n",
	       offsetof(struct hl_info_hw_idle, busy_engines_mask_ext));
	F(struct hl_info_device_status, status);
	F(struct hl_info_dev_memalloc_page_sizes, page_order_bitmask);
	F(struct hl_info_args, return_pointer);
	F(struct hl_info_args, return_size);
	F(struct hl_info_args, op);
	F(struct hl_info_args, ctx_id);
	F(struct hl_info_args, pad);

	F(struct hl_mem_in, alloc.mem_size);
	F(struct hl_mem_in, alloc.page_size);
	F(struct hl_mem_in, free.handle);
	F(struct hl_mem_in, map_device.hint_addr);
	F(struct hl_mem_in, map_device.handle);
	F(struct hl_mem_in, map_host.host_virt_addr);
	F(struct hl_mem_in, map_host.hint_addr);
	F(struct hl_mem_in, map_host.mem_size);
	F(struct hl_mem_in, unmap.device_virt_addr);
	F(struct hl_mem_in, export_dmabuf_fd.mem_size);
	F(struct hl_mem_in, op);
	F(struct hl_mem_in, flags);
	F(struct hl_mem_in, ctx_id);
	F(struct hl_mem_out, device_virt_addr);
	F(struct hl_mem_out, handle);
	F(struct hl_mem_out, fd);

	F(struct hl_cs_chunk, cb_handle);
	F(struct hl_cs_chunk, queue_index);
	F(struct hl_cs_chunk, cb_size);
	F(struct hl_cs_chunk, cs_chunk_flags);
	printf("struct hl_cs_chunk %zu\n", sizeof(struct hl_cs_chunk));
	F(struct hl_cs_in, chunks_restore);
	F(struct hl_cs_in, chunks_execute);
	F(struct hl_cs_in, num_chunks_restore);
	F(struct hl_cs_in, num_chunks_execute);
	F(struct hl_cs_in, timeout);
	F(struct hl_cs_in, cs_flags);
	F(struct hl_cs_in, ctx_id);
	F(struct hl_cs_out, seq);
	F(struct hl_cs_out, status);
	F(struct hl_wait_cs_in, seq);
	F(struct hl_wait_cs_in, timeout_us);
	F(struct hl_wait_cs_in, ctx_id);
	F(struct hl_wait_cs_in, flags);
	F(struct hl_wait_cs_out, status);
	F(struct hl_wait_cs_out, flags);
	F(struct hl_wait_cs_out, timestamp_nsec);
	F(struct hl_wait_cs_in, seq_arr_len);
	F(struct hl_wait_cs_out, cs_completion_map);

	F(struct hl_cb_in, cb_handle);
	F(struct hl_cb_in, op);
	F(struct hl_cb_in, cb_size);
	F(struct hl_cb_in, ctx_id);
	F(struct hl_cb_in, flags);
	F(struct hl_cb_out, cb_handle);
	F(struct hl_cb_out, usage_cnt);
	F(struct hl_cb_out, device_va);
	printf("union hl_cb_args %zu\n", sizeof(union hl_cb_args));

	F(struct hl_info_args, period_ms);
	F(struct hl_info_args, eventfd);
	F(struct hl_info_device_utilization, utilization);
	F(struct hl_info_reset_count, hard_reset_cnt);
	F(struct hl_info_reset_count, soft_reset_cnt);
	F(struct hl_info_time_sync, device_time);
	F(struct hl_info_time_sync, host_time);
	F(struct hl_info_cs_counters, total_out_of_mem_drop_cnt);
	F(struct hl_info_cs_counters, ctx_out_of_mem_drop_cnt);
	F(struct hl_info_cs_counters, total_parsing_drop_cnt);
	F(struct hl_info_cs_counters, ctx_parsing_drop_cnt);
	F(struct hl_info_cs_counters, total_queue_full_drop_cnt);
	F(struct hl_info_cs_counters, ctx_queue_full_drop_cnt);
	F(struct hl_info_cs_counters, total_device_in_reset_drop_cnt);
	F(struct hl_info_cs_counters, ctx_device_in_reset_drop_cnt);
	F(struct hl_info_cs_counters, total_max_cs_in_flight_drop_cnt);
	F(struct hl_info_cs_counters, ctx_max_cs_in_flight_drop_cnt);
	F(struct hl_info_cs_counters, total_validation_drop_cnt);
	F(struct hl_info_cs_counters, ctx_validation_drop_cnt);
	F(struct hl_open_stats_info, open_counter);
	F(struct hl_open_stats_info, last_open_period_ms);
	F(struct hl_open_stats_info, is_compute_ctx_active);
	F(struct hl_open_stats_info, compute_ctx_in_release);
	F(struct hl_info_args, user_buffer_actual_size);
	F(struct hl_info_last_err_open_dev_time, timestamp);
	F(struct hl_info_cs_timeout_event, timestamp);
	F(struct hl_info_cs_timeout_event, seq);
	F(struct hl_info_undefined_opcode_event, timestamp);
	F(struct hl_info_undefined_opcode_event, cb_addr_streams);
	F(struct hl_info_undefined_opcode_event, cq_addr);
	F(struct hl_info_undefined_opcode_event, cq_size);
	F(struct hl_info_undefined_opcode_event, cb_addr_streams_len);
	F(struct hl_info_undefined_opcode_event, engine_id);
	F(struct hl_info_undefined_opcode_event, stream_id);

	C(HL_INFO_HW_IP_INFO);
	C(HL_INFO_DRAM_USAGE);
	C(HL_INFO_HW_IDLE);
	C(HL_INFO_DEVICE_STATUS);
	C(HL_INFO_DEV_MEM_ALLOC_PAGE_SIZES);
	C(HL_INFO_DEVICE_UTILIZATION);
	C(HL_INFO_RESET_COUNT);
	C(HL_INFO_TIME_SYNC);
	C(HL_INFO_CS_COUNTERS);
	C(HL_INFO_OPEN_STATS);
	C(HL_INFO_REGISTER_EVENTFD);
	C(HL_INFO_UNREGISTER_EVENTFD);
	C(HL_INFO_GET_EVENTS);
	C(HL_INFO_HW_EVENTS);
	C(HL_INFO_HW_EVENTS_AGGREGATE);
	C(HL_INFO_LAST_ERR_OPEN_DEV_TIME);
	C(HL_INFO_CS_TIMEOUT_EVENT);
	C(HL_INFO_UNDEFINED_OPCODE_EVENT);
	C(HL_INFO_ENGINE_STATUS);
	C(MAX_QMAN_STREAMS_INFO);
	C(OPCODE_INFO_MAX_ADDR_SIZE);
	C(HL_NOTIFIER_EVENT_UNDEFINED_OPCODE);
	C(HL_NOTIFIER_EVENT_DEVICE_RESET);
	C(HL_NOTIFIER_EVENT_CS_TIMEOUT);
	C(HL_NOTIFIER_EVENT_DEVICE_UNAVAILABLE);
	C(HL_NOTIFIER_EVENT_USER_ENGINE_ERR);
	C(HL_CB_OP_CREATE);
	C(HL_CB_OP_DESTROY);
	C(HL_CB_OP_INFO);
	C(HL_MAX_CB_SIZE);
	C(HL_CB_FLAGS_MAP);
	C(HL_CB_FLAGS_GET_DEVICE_VA);
	C(HL_WAIT_CS_FLAGS_MULTI_CS);
	C(HL_WAIT_MULTI_CS_LIST_MAX_LEN);
	C(HL_INFO_VERSION_MAX_LEN);
	C(HL_INFO_CARD_NAME_MAX_LEN);
	C(HL_MEM_OP_ALLOC);
	C(HL_MEM_OP_FREE);
	C(HL_MEM_OP_MAP);
	C(HL_MEM_OP_UNMAP);
	C(HL_MEM_OP_EXPORT_DMABUF_FD);
	C(HL_MEM_CONTIGUOUS);
	C(HL_MEM_SHARED);
	C(HL_MEM_USERPTR);
	C(HL_MEM_FORCE_HINT);
	C(HL_CS_FLAGS_CUSTOM_TIMEOUT);
	C(HL_MAX_JOBS_PER_CS);
	C(HL_CS_STATUS_SUCCESS);
	C(HL_WAIT_CS_STATUS_COMPLETED);
	C(HL_WAIT_CS_STATUS_BUSY);
	C(HL_WAIT_CS_STATUS_TIMEDOUT);
	C(HL_WAIT_CS_STATUS_ABORTED);
	C(HL_WAIT_CS_STATUS_FLAG_GONE);
	C(HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
	C(HL_DEVICE_STATUS_OPERATIONAL);
	C(HL_DEVICE_STATUS_IN_RESET);
	C(HL_DEVICE_STATUS_MALFUNCTION);
	C(HL_DEVICE_STATUS_NEEDS_RESET);
	C(HL_DEVICE_STATUS_IN_DEVICE_CREATION);
	/* Upstream's ops, flags and fields of the hl-thunk-open era */
	F(struct hl_info_args, dcore_id);
	F(struct hl_info_args, pll_index);
	F(struct hl_info_args, sec_attest_nonce);
	F(struct hl_info_clk_rate, cur_clk_rate_mhz);
	F(struct hl_info_clk_rate, max_clk_rate_mhz);
	F(struct hl_info_pci_counters, rx_throughput);
	F(struct hl_info_pci_counters, tx_throughput);
	F(struct hl_info_pci_counters, replay_cnt);
	F(struct hl_info_clk_throttle, clk_throttling_reason);
	F(struct hl_info_clk_throttle, clk_throttling_timestamp_us);
	F(struct hl_info_clk_throttle, clk_throttling_duration_ns);
	printf("struct hl_info_clk_throttle %zu\n",
	       sizeof(struct hl_info_clk_throttle));
	F(struct hl_info_energy, total_energy_consumption);
	F(struct hl_pll_frequency_info, output);
	F(struct hl_power_info, power);
	F(struct hl_info_sync_manager, first_available_sync_object);
	F(struct hl_info_sync_manager, first_available_monitor);
	F(struct hl_info_sync_manager, first_available_cq);
	F(struct hl_info_sync_manager, reserved);
	F(struct hl_info_sec_attest, nonce);
	F(struct hl_info_sec_attest, pcr_quote_len);
	F(struct hl_info_sec_attest, pub_data_len);
	F(struct hl_info_sec_attest, certificate_len);
	F(struct hl_info_sec_attest, pcr_num_reg);
	F(struct hl_info_sec_attest, pcr_reg_len);
	F(struct hl_info_sec_attest, quote_sig_len);
	F(struct hl_info_sec_attest, pcr_data);
	F(struct hl_info_sec_attest, pcr_quote);
	F(struct hl_info_sec_attest, quote_sig);
	F(struct hl_info_sec_attest, public_data);
	F(struct hl_info_sec_attest, certificate);
	printf("struct hl_info_sec_attest %zu\n",
	       sizeof(struct hl_info_sec_attest));

	F(struct hl_mem_in, map_block.block_addr);
	F(struct hl_mem_in, num_of_elements);
	F(struct hl_mem_out, block_handle);
	F(struct hl_mem_out, block_size);
	printf("union hl_mem_args %zu\n", sizeof(union hl_mem_args));

	F(struct hl_cs_chunk, signal_seq_arr);
	F(struct hl_cs_chunk, encaps_signal_seq);
	F(struct hl_cs_chunk, num_signal_seq_arr);
	F(struct hl_cs_chunk, encaps_signal_offset);
	F(struct hl_cs_chunk, collective_engine_id);
	F(struct hl_cs_chunk, pad);
	F(struct hl_cs_in, engine_cores);
	F(struct hl_cs_in, num_engine_cores);
	F(struct hl_cs_in, core_command);
	F(struct hl_cs_in, seq);
	F(struct hl_cs_in, encaps_sig_handle_id);
	F(struct hl_cs_in, encaps_signals_count);
	F(struct hl_cs_in, encaps_signals_q_idx);
	printf("struct hl_cs_in %zu\n", sizeof(struct hl_cs_in));
	F(struct hl_cs_out, handle_id);
	F(struct hl_cs_out, count);
	F(struct hl_cs_out, sob_base_addr_offset);
	F(struct hl_cs_out, sob_count_before_submission);
	printf("struct hl_cs_out %zu\n", sizeof(struct hl_cs_out));
	printf("union hl_cs_args %zu\n", sizeof(union hl_cs_args));
	F(struct hl_wait_cs_in, addr);
	F(struct hl_wait_cs_in, cq_counters_handle);
	F(struct hl_wait_cs_in, target);
	F(struct hl_wait_cs_in, interrupt_timeout_us);
	F(struct hl_wait_cs_in, cq_counters_offset);
	F(struct hl_wait_cs_in, timestamp_handle);
	F(struct hl_wait_cs_in, timestamp_offset);
	printf("struct hl_wait_cs_in %zu\n", sizeof(struct hl_wait_cs_in));
	printf("union hl_wait_cs_args %zu\n", sizeof(union hl_wait_cs_args));

	F(struct hl_debug_params_etr, buffer_address);
	F(struct hl_debug_params_etr, buffer_size);
	F(struct hl_debug_params_etr, sink_mode);
	F(struct hl_debug_params_etf, buffer_address);
	F(struct hl_debug_params_etf, buffer_size);
	F(struct hl_debug_params_etf, sink_mode);
	F(struct hl_debug_params_stm, he_mask);
	F(struct hl_debug_params_stm, sp_mask);
	F(struct hl_debug_params_stm, id);
	F(struct hl_debug_params_stm, frequency);
	F(struct hl_debug_params_bmon, start_addr0);
	F(struct hl_debug_params_bmon, addr_mask0);
	F(struct hl_debug_params_bmon, start_addr1);
	F(struct hl_debug_params_bmon, addr_mask1);
	F(struct hl_debug_params_bmon, bw_win);
	F(struct hl_debug_params_bmon, win_capture);
	F(struct hl_debug_params_bmon, id);
	F(struct hl_debug_params_bmon, control);
	F(struct hl_debug_params_bmon, start_addr2);
	F(struct hl_debug_params_bmon, end_addr2);
	F(struct hl_debug_params_bmon, start_addr3);
	F(struct hl_debug_params_bmon, end_addr3);
	F(struct hl_debug_params_spmu, event_types);
	F(struct hl_debug_params_spmu, event_types_num);
	F(struct hl_debug_params_spmu, pmtrc_val);
	F(struct hl_debug_params_spmu, trc_ctrl_host_val);
	F(struct hl_debug_params_spmu, trc_en_host_val);
	F(struct hl_debug_args, input_ptr);
	F(struct hl_debug_args, output_ptr);
	F(struct hl_debug_args, input_size);
	F(struct hl_debug_args, output_size);
	F(struct hl_debug_args, op);
	F(struct hl_debug_args, reg_idx);
	F(struct hl_debug_args, enable);
	F(struct hl_debug_args, ctx_id);
	printf("struct hl_debug_args %zu\n", sizeof(struct hl_debug_args));

	C(HL_INFO_CLK_RATE);
	C(HL_INFO_PCI_COUNTERS);
	C(HL_INFO_CLK_THROTTLE_REASON);
	C(HL_INFO_SYNC_MANAGER);
	C(HL_INFO_TOTAL_ENERGY);
	C(HL_INFO_PLL_FREQUENCY);
	C(HL_INFO_POWER);
	C(HL_INFO_DRAM_REPLACED_ROWS);
	C(HL_INFO_DRAM_PENDING_ROWS);
	C(HL_INFO_RAZWI_EVENT);
	C(HL_INFO_SECURED_ATTESTATION);
	C(HL_PLL_NUM_OUTPUTS);
	C(HL_CLK_THROTTLE_TYPE_MAX);
	C(HL_CLK_THROTTLE_POWER);
	C(HL_CLK_THROTTLE_THERMAL);
	C(SEC_PCR_DATA_BUF_SZ);
	C(SEC_PCR_QUOTE_BUF_SZ);
	C(SEC_SIGNATURE_BUF_SZ);
	C(SEC_PUB_DATA_BUF_SZ);
	C(SEC_CERTIFICATE_BUF_SZ);
	C(HL_GAUDI_WS_DCORE);
	C(HL_GAUDI_ES_DCORE);
	C(HL_MEM_OP_MAP_BLOCK);
	C(HL_MEM_OP_TS_ALLOC);
	C(HL_CS_CHUNK_FLAGS_USER_ALLOC_CB);
	C(HL_CS_FLAGS_FORCE_RESTORE);
	C(HL_CS_FLAGS_SIGNAL);
	C(HL_CS_FLAGS_WAIT);
	C(HL_CS_FLAGS_COLLECTIVE_WAIT);
	C(HL_CS_FLAGS_TIMESTAMP);
	C(HL_CS_FLAGS_STAGED_SUBMISSION);
	C(HL_CS_FLAGS_STAGED_SUBMISSION_FIRST);
	C(HL_CS_FLAGS_STAGED_SUBMISSION_LAST);
	C(HL_CS_FLAGS_SKIP_RESET_ON_TIMEOUT);
	C(HL_CS_FLAGS_ENCAP_SIGNALS);
	C(HL_CS_FLAGS_RESERVE_SIGNALS_ONLY);
	C(HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY);
	C(HL_CS_FLAGS_ENGINE_CORE_COMMAND);
	C(HL_ENGINE_CORE_HALT);
	C(HL_ENGINE_CORE_RUN);
	C(HL_WAIT_CS_FLAGS_INTERRUPT);
	C(HL_WAIT_CS_FLAGS_INTERRUPT_MASK);
	C(HL_WAIT_CS_FLAGS_ANY_CQ_INTERRUPT);
	C(HL_WAIT_CS_FLAGS_ANY_DEC_INTERRUPT);
	C(HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ);
	C(HL_WAIT_CS_FLAGS_REGISTER_INTERRUPT);
	C(HL_DEBUG_MAX_AUX_VALUES);
	C(HL_DEBUG_OP_ETR);
	C(HL_DEBUG_OP_ETF);
	C(HL_DEBUG_OP_STM);
	C(HL_DEBUG_OP_FUNNEL);
	C(HL_DEBUG_OP_BMON);
	C(HL_DEBUG_OP_SPMU);
	C(HL_DEBUG_OP_TIMESTAMP);
	C(HL_DEBUG_OP_SET_MODE);
	C(HL_NOTIFIER_EVENT_TPC_ASSERT);
	C(HL_NOTIFIER_EVENT_GENERAL_HW_ERR);
	C(_IOC_TYPE(HL_IOCTL_DEBUG));
	C(_IOC_NR(HL_IOCTL_DEBUG));


	/* The ioctls: type and number (the size is negotiated) */
	C(_IOC_TYPE(HL_IOCTL_INFO));
	C(_IOC_NR(HL_IOCTL_INFO));
	C(_IOC_NR(HL_IOCTL_CB));
	C(_IOC_SIZE(HL_IOCTL_CB));
	C(_IOC_NR(HL_IOCTL_CS));
	C(_IOC_NR(HL_IOCTL_WAIT_CS));
	C(_IOC_NR(HL_IOCTL_MEMORY));
#endif

#ifdef LAYOUT_6_12
	/*
	 * Linux 6.12's (hl-thunk-open's era) that 6.1's header has not:
	 * compared with upstream-6.12.txt, measured from 6.12's
	 * include/uapi/drm/habanalabs_accel.h
	 */
	F(struct hl_info_args, array_size);
	F(struct hl_info_args, fw_sub_opcode);
	F(struct hl_info_razwi_event, timestamp);
	F(struct hl_info_razwi_event, addr);
	F(struct hl_info_razwi_event, engine_id);
	F(struct hl_info_razwi_event, num_of_possible_engines);
	F(struct hl_info_razwi_event, flags);
	printf("struct hl_info_razwi_event %zu\n",
	       sizeof(struct hl_info_razwi_event));
	F(struct hl_info_hw_err_event, timestamp);
	F(struct hl_info_hw_err_event, event_id);
	printf("struct hl_info_hw_err_event %zu\n",
	       sizeof(struct hl_info_hw_err_event));
	F(struct hl_info_fw_err_event, timestamp);
	F(struct hl_info_fw_err_event, err_type);
	F(struct hl_info_fw_err_event, event_id);
	printf("struct hl_info_fw_err_event %zu\n",
	       sizeof(struct hl_info_fw_err_event));
	F(struct hl_page_fault_info, timestamp);
	F(struct hl_page_fault_info, addr);
	F(struct hl_page_fault_info, engine_id);
	printf("struct hl_page_fault_info %zu\n",
	       sizeof(struct hl_page_fault_info));
	F(struct hl_user_mapping, dev_va);
	F(struct hl_user_mapping, size);
	F(struct hl_cs_in, engines);
	F(struct hl_cs_in, num_engines);
	F(struct hl_cs_in, engine_command);
	C(HL_INFO_USER_MAPPINGS);
	C(HL_INFO_FW_GENERIC_REQ);
	C(HL_INFO_HW_ERR_EVENT);
	C(HL_INFO_FW_ERR_EVENT);
	C(HL_INFO_FW_HEARTBEAT_ERR);
	C(HL_INFO_FW_REPORTED_ERR);
	C(HL_RAZWI_NA_ENG_ID);
	C(HL_RAZWI_MAX_NUM_OF_ENGINES_PER_RTR);
	C(HL_RAZWI_READ);
	C(HL_RAZWI_WRITE);
	C(HL_RAZWI_LBW);
	C(HL_RAZWI_HBW);
	C(HL_RAZWI_RR);
	C(HL_RAZWI_ADDR_DEC);
	C(HL_CS_FLAGS_FLUSH_PCI_HBW_WRITES);
	C(HL_CS_FLAGS_ENGINES_COMMAND);
	C(HL_ENGINE_STALL);
	C(HL_ENGINE_RESUME);
	C(HL_NOTIFIER_EVENT_RAZWI);
	C(HL_NOTIFIER_EVENT_CRITICL_HW_ERR);
	C(HL_NOTIFIER_EVENT_CRITICL_FW_ERR);
#endif
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * layout.c - prints the offset and size of every upstream-defined field of
 * the uAPI structs this driver shares with upstream, and the values of the
 * shared constants, one "name value" a line. tests/uapi/check builds it
 * once against upstream's misc-era header (linux-libc-dev's
 * /usr/include/misc/habanalabs.h, Linux 6.1 on Debian 12) and once against
 * include/uapi/misc/habanalabs.h, and compares the two outputs.
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
	/* The ioctls: type and number (the size is negotiated) */
	C(_IOC_TYPE(HL_IOCTL_INFO));
	C(_IOC_NR(HL_IOCTL_INFO));
	C(_IOC_NR(HL_IOCTL_CB));
	C(_IOC_SIZE(HL_IOCTL_CB));
	C(_IOC_NR(HL_IOCTL_CS));
	C(_IOC_NR(HL_IOCTL_WAIT_CS));
	C(_IOC_NR(HL_IOCTL_MEMORY));
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The structs of HabanaAI hl-thunk-open include/uapi/hlthunk.h (commit
 * 8636f137c4b3, MIT, Copyright 2019 HabanaLabs, Ltd.) that libhlthunk's
 * functions fill, verbatim but for the tag prefix (hlopen_), for
 * tests/symbols/check to compare their layout with hlthunk.h's.
 */
#include <stdint.h>
#define HLOPEN_INFO_VERSION_MAX_LEN 128	/* HL_INFO_VERSION_MAX_LEN */
#define HLOPEN_INFO_CARD_NAME_MAX_LEN 16	/* HL_INFO_CARD_NAME_MAX_LEN */
#define HLOPEN_BUSY_ENGINES_MASK_SIZE 4	/* HLTHUNK_BUSY_ENGINES_MASK_SIZE */

struct hlopen_hw_ip_info {
	uint64_t sram_base_address;
	uint64_t dram_base_address;
	uint64_t dram_size;
	uint32_t sram_size;
	uint32_t num_of_events;
	uint32_t device_id;
	uint32_t cpld_version;
	uint32_t psoc_pci_pll_nr;
	uint32_t psoc_pci_pll_nf;
	uint32_t psoc_pci_pll_od;
	uint32_t psoc_pci_pll_div_factor;
	uint16_t tpc_enabled_mask;
	uint8_t dram_enabled;
	uint8_t cpucp_version[HLOPEN_INFO_VERSION_MAX_LEN];
	uint32_t module_id;
	uint8_t card_name[HLOPEN_INFO_CARD_NAME_MAX_LEN];
	uint32_t decoder_enabled_mask;
	uint8_t mme_master_slave_mode;
	uint64_t tpc_enabled_mask_ext;
	uint64_t dram_page_size;
	uint16_t first_available_interrupt_id;
	uint32_t edma_enabled_mask;
	uint16_t server_type;
	uint64_t reserved1;
	uint16_t number_of_user_interrupts;
	uint64_t device_mem_alloc_default_page_size;
	uint64_t reserved2;
	uint8_t reserved3;
	uint8_t reserved4;
	uint64_t reserved5;
	uint32_t reserved6;
	uint8_t reserved7;
	uint8_t security_enabled;
	uint8_t revision_id;
	uint16_t tpc_interrupt_id;
	uint64_t engine_core_interrupt_reg_addr;
	uint32_t rotator_enabled_mask;
	uint32_t reserved8;
	uint64_t reserved_dram_size;
};
struct hlopen_dram_usage_info {
	uint64_t dram_free_mem;
	uint64_t ctx_dram_mem;
};
struct hlopen_engines_idle_info {
	uint32_t is_idle;
	uint32_t pad;
	uint64_t mask[HLOPEN_BUSY_ENGINES_MASK_SIZE];
};
struct hlopen_cs_in {
	void *chunks_restore;
	void *chunks_execute;
	uint32_t num_chunks_restore;
	uint32_t num_chunks_execute;
	uint32_t flags;
};
struct hlopen_cs_out {
	uint64_t seq;
	uint32_t status;
	uint16_t sob_count_before_submission;
};
struct hlopen_user_mapping {
	uint64_t dev_va;
	uint64_t size;
};
struct hlopen_page_fault_info {
	int64_t timestamp;
	uint64_t addr;
	uint16_t engine_id;
	uint32_t num_of_mappings;
	struct hlopen_user_mapping *mappings_buf;

};

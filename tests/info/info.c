// SPDX-License-Identifier: MIT
/*
 * info: HL_IOCTL_INFO, through libhlthunk and raw, with every bad input.
 */
#include "hltests.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * The device ID a device reports: its PCI function's, read from its
 * configuration space (sysfs), or GAUDI's 0x1000 when the driver was
 * loaded with asic=gaudi (docs/using.md, "Identity").
 */
static uint32_t expected_device_id(int fd)
{
	char busid[32], path[128];
	uint8_t cfg[4];
	FILE *f;

	if (hltests_identity_gaudi())
		return 0x1000;
	assert_int_equal(hlthunk_get_pci_bus_id_from_fd(fd, busid,
							 sizeof(busid)), 0);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", busid);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(cfg, 1, sizeof(cfg), f), sizeof(cfg));
	fclose(f);
	/* Vendor ID, then device ID, little-endian */
	return cfg[2] | (uint32_t)cfg[3] << 8;
}

static void test_hw_ip_info(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_hw_ip_info *hw = &st->hw_ip;

	uint32_t id = expected_device_id(st->fd);

	print_message("device ID 0x%04x\n", id);
	assert_string_equal((char *)hw->card_name, "emu-gaudi");
	assert_int_equal(hw->device_id, id);
	assert_int_equal(hlthunk_get_device_id_from_fd(st->fd), id);
	assert_int_equal(hlthunk_get_device_name_from_fd(st->fd),
			 hltests_identity_gaudi() ? HLTHUNK_DEVICE_GAUDI :
					       HLTHUNK_DEVICE_GAUDI_EMU);
	assert_true(hw->dram_enabled);
	assert_int_equal(hw->device_mem_alloc_default_page_size,
			 hw->dram_page_size);
	assert_true(hw->dram_size >= 32ull << 20);
	assert_int_equal(hw->dram_page_size, 2 << 20);
	assert_int_equal(hw->dram_base_address % hw->dram_page_size, 0);
	assert_int_equal(hw->dram_size % hw->dram_page_size, 0);
	assert_true(hw->num_queues > 0);
	assert_int_equal(hw->host_page_size, 4096);
	/* VA ranges non-empty, aligned and disjoint */
	assert_true(hw->host_va_start < hw->host_va_end);
	assert_true(hw->dram_va_start < hw->dram_va_end);
	assert_true(hw->host_va_end <= hw->dram_va_start ||
		    hw->dram_va_end <= hw->host_va_start);
	assert_int_equal(hw->dram_va_start % hw->dram_page_size, 0);
	assert_true(hw->host_va_start > 0);
}

static void test_hw_ip_info_same_on_control_node(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_hw_ip_info a, b;
	int ctl;

	ctl = hltests_open_node(0, 1);
	assert_true(ctl >= 0);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	assert_int_equal(hltests_info(st->fd, HL_INFO_HW_IP_INFO, &a, sizeof(a)), 0);
	assert_int_equal(hltests_info(ctl, HL_INFO_HW_IP_INFO, &b, sizeof(b)), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	close(ctl);
}

static void test_dram_usage_idle(void **state)
{
	struct hltests_state *st = *state;
	struct hlthunk_dram_usage_info usage;

	assert_int_equal(hlthunk_get_dram_usage(st->fd, &usage), 0);
	assert_int_equal(usage.dram_free_mem, st->hw_ip.dram_size);
	assert_int_equal(usage.ctx_dram_mem, 0);
}

static void test_device_status(void **state)
{
	struct hltests_state *st = *state;

	assert_int_equal(hlthunk_get_device_status_info(st->fd),
			 HL_DEVICE_STATUS_OPERATIONAL);
}

static void test_device_idle(void **state)
{
	struct hltests_state *st = *state;
	struct hlthunk_engines_idle_info info;
	unsigned int i;

	memset(&info, 0xff, sizeof(info));
	assert_true(hlthunk_is_device_idle(st->fd));
	assert_int_equal(hlthunk_get_busy_engines_mask(st->fd, &info), 0);
	assert_int_equal(info.is_idle, 1);
	for (i = 0; i < HLTHUNK_BUSY_ENGINES_MASK_SIZE; i++)
		assert_int_equal(info.mask[i], 0);
	assert_int_equal(hlthunk_get_busy_engines_mask(st->fd, NULL), -EINVAL);
}

/*
 * Upstream's fields at upstream's offsets (misc-era header: 0..255, accel
 * era: 256..303), this driver's after them: read as raw bytes, so that a
 * field moved in the header fails here.
 */
static void test_hw_ip_info_upstream_layout(void **state)
{
	struct hltests_state *st = *state;
	unsigned char raw[512];
	uint64_t u64;
	uint32_t u32;

	memset(raw, 0xa5, sizeof(raw));
	assert_int_equal(hltests_info(st->fd, HL_INFO_HW_IP_INFO, raw,
				      sizeof(raw)), 0);
	assert_int_equal(sizeof(struct hl_info_hw_ip_info), 352);
	memcpy(&u64, raw + 16, 8);		/* dram_size */
	assert_int_equal(u64, st->hw_ip.dram_size);
	memcpy(&u32, raw + 32, 4);		/* device_id */
	assert_int_equal(u32, expected_device_id(st->fd));
	memcpy(&u32, raw + 36, 4);		/* module_id */
	assert_int_equal(u32, st->hw_ip.module_id);
	assert_int_equal(raw[69], 1);		/* dram_enabled */
	assert_string_equal((char *)raw + 200, "emu-gaudi");	/* card_name */
	memcpy(&u64, raw + 224, 8);		/* dram_page_size */
	assert_int_equal(u64, 2 << 20);
	memcpy(&u32, raw + 232, 4);		/* edma_enabled_mask */
	assert_int_equal(u32, 0);
	memcpy(&u32, raw + 236, 4);		/* number_of_user_interrupts.. */
	assert_int_equal(u32, 0);
	memcpy(&u64, raw + 248, 8);	/* device_mem_alloc_default_page_size */
	assert_int_equal(u64, 2 << 20);
	memcpy(&u64, raw + 296, 8);		/* reserved_dram_size */
	assert_int_equal(u64, 0);
	memcpy(&u32, raw + 304, 4);		/* num_nic_ports (ours) */
	assert_int_equal(u32, st->hw_ip.num_nic_ports);
	assert_true(u32 > 0);
	/* Nothing written past the struct */
	assert_int_equal(raw[352], 0xa5);
}

/* hl-thunk's struct, filled from the driver's */
static void test_hlthunk_hw_ip_info(void **state)
{
	struct hltests_state *st = *state;
	struct hlthunk_hw_ip_info hw;

	memset(&hw, 0xff, sizeof(hw));
	assert_int_equal(hlthunk_get_hw_ip_info(st->fd, &hw), 0);
	assert_int_equal(hw.device_id, expected_device_id(st->fd));
	assert_int_equal(hw.module_id, st->hw_ip.module_id);
	assert_int_equal(hw.dram_base_address, st->hw_ip.dram_base_address);
	assert_int_equal(hw.dram_size, st->hw_ip.dram_size);
	assert_int_equal(hw.dram_page_size, 2 << 20);
	assert_int_equal(hw.device_mem_alloc_default_page_size, 2 << 20);
	assert_int_equal(hw.dram_enabled, 1);
	assert_string_equal((char *)hw.card_name, "emu-gaudi");
	assert_string_equal((char *)hw.cpucp_version, "emulated");
	/* What this device does not have is zero, not left as it was */
	assert_int_equal(hw.sram_size, 0);
	assert_int_equal(hw.tpc_enabled_mask, 0);
	assert_int_equal(hw.edma_enabled_mask, 0);
	assert_int_equal(hw.number_of_user_interrupts, 0);
	assert_int_equal(hw.reserved_dram_size, 0);
	assert_int_equal(hlthunk_get_hw_ip_info(st->fd, NULL), -EINVAL);
}

/* Not one of hl-thunk's device values, so never taken for another ASIC */
static void test_device_name_is_not_an_hl_thunk_value(void **state)
{
	struct hltests_state *st = *state;
	enum hlthunk_device_name name;
	int all;

	name = hlthunk_get_device_name_from_fd(st->fd);
	assert_int_equal(HLTHUNK_DEVICE_GAUDI2, 5);
	assert_int_equal(HLTHUNK_DEVICE_MAX, 9);
	all = hlthunk_get_device_count(HLTHUNK_DEVICE_DONT_CARE);
	assert_true(all >= 1);

	/* Loaded as a GAUDI (asic=gaudi), every device is one, on purpose */
	if (hltests_identity_gaudi()) {
		assert_int_equal(name, HLTHUNK_DEVICE_GAUDI);
		assert_int_equal(hlthunk_get_device_count(HLTHUNK_DEVICE_GAUDI),
				 all);
		assert_int_equal(hlthunk_get_device_count(HLTHUNK_DEVICE_GAUDI2),
				 0);
		return;
	}
	assert_int_equal(name, HLTHUNK_DEVICE_GAUDI_EMU);
	assert_true((unsigned int)name >= HLTHUNK_DEVICE_MAX);
	assert_int_equal(hlthunk_get_device_count(HLTHUNK_DEVICE_GAUDI_EMU), all);
	assert_int_equal(hlthunk_get_device_count(HLTHUNK_DEVICE_GAUDI), 0);
	assert_int_equal(hlthunk_get_device_count(HLTHUNK_DEVICE_GAUDI2), 0);
	assert_int_equal(hlthunk_get_device_count(HLTHUNK_DEVICE_INVALID),
			 -EINVAL);
}

static void test_open_control_by(void **state)
{
	struct hltests_state *st = *state;
	char busid[HLTHUNK_PCI_BUS_ID_LEN];
	struct hl_info_hw_ip_info hw;
	union hl_mem_args m;
	int fd;

	assert_int_equal(hlthunk_get_pci_bus_id_from_fd(st->fd, busid,
							sizeof(busid)), 0);

	fd = hlthunk_open_control_by_bus_id(busid);
	assert_true(fd >= 0);
	assert_int_equal(hlthunk_get_hw_ip_info_ext(fd, &hw), 0);
	assert_int_equal(hw.module_id, st->hw_ip.module_id);
	/* A control node: INFO only */
	memset(&m, 0, sizeof(m));
	m.in.op = HL_MEM_OP_ALLOC;
	m.in.alloc.mem_size = 2 << 20;
	assert_int_equal(hltests_ioctl_sized(fd, HL_IOCTL_MEMORY, sizeof(m), &m),
			 -ENOTTY);
	close(fd);

	fd = hlthunk_open_control_by_module_id(st->hw_ip.module_id);
	assert_true(fd >= 0);
	assert_int_equal(hlthunk_get_hw_ip_info_ext(fd, &hw), 0);
	assert_int_equal(hw.module_id, st->hw_ip.module_id);
	close(fd);

	fd = hlthunk_open_control_by_name(HLTHUNK_DEVICE_GAUDI_EMU, busid);
	assert_true(fd >= 0);
	assert_int_equal(hlthunk_get_hw_ip_info_ext(fd, &hw), 0);
	assert_int_equal(hw.module_id, st->hw_ip.module_id);
	close(fd);

	fd = hlthunk_open_control_by_name(HLTHUNK_DEVICE_GAUDI_EMU, NULL);
	assert_true(fd >= 0);
	close(fd);

	/* A GAUDI only when the driver was loaded as one (asic=gaudi) */
	fd = hlthunk_open_control_by_name(HLTHUNK_DEVICE_GAUDI, NULL);
	if (hltests_identity_gaudi()) {
		assert_true(fd >= 0);
		close(fd);
	} else {
		assert_int_equal(fd, -ENODEV);
	}
	/* A bus id and another type: never opened as that ASIC */
	assert_int_equal(hlthunk_open_control_by_name(HLTHUNK_DEVICE_GAUDI2,
						      busid), -ENODEV);
	assert_int_equal(hlthunk_open(HLTHUNK_DEVICE_GAUDI2, busid), -ENODEV);
	assert_int_equal(hlthunk_open_control_by_module_id(1000), -ENODEV);
	assert_int_equal(hlthunk_open_control_by_bus_id("0000:7f:1f.7"),
			 -ENODEV);
	assert_int_equal(hlthunk_open_control_by_bus_id(NULL), -EINVAL);
}

static void test_dev_memalloc_page_orders(void **state)
{
	struct hltests_state *st = *state;
	uint64_t orders = 0, h;
	int ctl;

	assert_int_equal(hlthunk_get_dev_memalloc_page_orders(st->fd, &orders),
			 0);
	assert_int_equal(orders, 1ull << 21);	/* 2 MiB pages only */

	ctl = hltests_open_node(0, 1);
	assert_true(ctl >= 0);
	orders = 0;
	assert_int_equal(hlthunk_get_dev_memalloc_page_orders(ctl, &orders), 0);
	assert_int_equal(orders, 1ull << 21);
	close(ctl);

	/* What it says goes: page size 0 and 2 MiB allocate, 4 KiB not */
	h = hlthunk_device_memory_alloc(st->fd, 4096, 0, true, false);
	assert_true(h != 0);
	assert_int_equal(hlthunk_device_memory_free(st->fd, h), 0);
	h = hlthunk_device_memory_alloc(st->fd, 4096, 2 << 20, true, false);
	assert_true(h != 0);
	assert_int_equal(hlthunk_device_memory_free(st->fd, h), 0);
	errno = 0;
	assert_int_equal(hlthunk_device_memory_alloc(st->fd, 4096, 4096, true,
						     false), 0);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(hlthunk_get_dev_memalloc_page_orders(st->fd, NULL),
			 -EINVAL);
}

static void test_version_and_malloc(void **state)
{
	unsigned char *p;
	char want[32];
	char *v;
	int i;

	(void)state;
	snprintf(want, sizeof(want), "%d.%d.%d", HLTHUNK_VERSION_MAJOR,
		 HLTHUNK_VERSION_MINOR, HLTHUNK_VERSION_PATCH);
	v = hlthunk_get_version();
	assert_non_null(v);
	assert_string_equal(v, want);
	hlthunk_free(v);

	p = hlthunk_malloc(64);
	assert_non_null(p);
	for (i = 0; i < 64; i++)
		assert_int_equal(p[i], 0);
	hlthunk_free(p);
	hlthunk_free(NULL);
}

static void test_page_fault_info_without_fault(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_page_fault_event pf;
	int ctl;

	memset(&pf, 0xff, sizeof(pf));
	assert_int_equal(hltests_info(st->fd, HL_INFO_PAGE_FAULT_EVENT, &pf,
				      sizeof(pf)), 0);
	assert_int_equal(pf.timestamp, 0);
	assert_int_equal(pf.addr, 0);

	/* hl-thunk's call: no fault, and no mappings reported */
	{
		struct hlthunk_page_fault_info hpf;

		memset(&hpf, 0xff, sizeof(hpf));
		hpf.mappings_buf = NULL;
		assert_int_equal(hlthunk_get_page_fault_info(st->fd, &hpf, 0), 0);
		assert_int_equal(hpf.timestamp, 0);
		assert_int_equal(hpf.num_of_mappings, 0);
	}

	/* A per-context op: the control node has no context */
	ctl = hltests_open_node(0, 1);
	assert_true(ctl >= 0);
	assert_int_equal(hltests_info(ctl, HL_INFO_PAGE_FAULT_EVENT, &pf,
				      sizeof(pf)), -EINVAL);
	close(ctl);
}

static void test_short_buffer_gets_truncated_copy(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_hw_ip_info full;
	unsigned char buf[sizeof(full) + 16];

	memset(&full, 0, sizeof(full));
	assert_int_equal(hltests_info(st->fd, HL_INFO_HW_IP_INFO, &full,
				      sizeof(full)), 0);

	/* 12 bytes asked: 12 written, the rest untouched */
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(hltests_info(st->fd, HL_INFO_HW_IP_INFO, buf, 12), 0);
	assert_memory_equal(buf, &full, 12);
	for (size_t i = 12; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xa5);

	/* A larger buffer: only the struct is written */
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(hltests_info(st->fd, HL_INFO_HW_IP_INFO, buf,
				      sizeof(buf)), 0);
	assert_memory_equal(buf, &full, sizeof(full));
	assert_int_equal(buf[sizeof(full)], 0xa5);
}

static void test_unknown_op_is_einval(void **state)
{
	struct hltests_state *st = *state;
	uint64_t buf[64];

	/* Numbers no op has, upstream's or ours */
	assert_int_equal(hltests_info(st->fd, 5, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(hltests_info(st->fd, 19, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(hltests_info(st->fd, 39, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(hltests_info(st->fd, 9999, buf, sizeof(buf)), -EINVAL);
}

/* Upstream's INFO ops the emulated device cannot mean (docs/uapi.md) */
static const uint32_t unsupported_ops[] = {
	HL_INFO_CLK_RATE, HL_INFO_PCI_COUNTERS, HL_INFO_CLK_THROTTLE_REASON,
	HL_INFO_TOTAL_ENERGY, HL_INFO_PLL_FREQUENCY, HL_INFO_POWER,
	HL_INFO_DRAM_REPLACED_ROWS, HL_INFO_DRAM_PENDING_ROWS,
	HL_INFO_SECURED_ATTESTATION, HL_INFO_FW_GENERIC_REQ,
};

/* HL_IOCTL_INFO with @arg in the union of ctx_id */
static int info_arg(int fd, uint32_t op, uint32_t arg, void *buf,
		    uint32_t size)
{
	struct hl_info_args a;

	memset(&a, 0, sizeof(a));
	a.op = op;
	a.pll_index = arg;
	a.return_pointer = (uintptr_t)buf;
	a.return_size = size;
	return ioctl(fd, HL_IOCTL_INFO, &a) ? -errno : 0;
}

static void test_upstream_ops_eopnotsupp(void **state)
{
	struct hltests_state *st = *state;
	uint8_t buf[4096];
	size_t i;
	int fds[2];

	fds[0] = st->fd;
	fds[1] = hltests_open_node(0, 1);
	assert_true(fds[1] >= 0);
	for (int n = 0; n < 2; n++) {
		for (i = 0; i < sizeof(unsupported_ops) / sizeof(unsupported_ops[0]); i++) {
			memset(buf, 0xa5, sizeof(buf));
			/* with and without the op's argument (PLL, nonce, ...) */
			assert_int_equal(info_arg(fds[n], unsupported_ops[i], 0,
						  buf, sizeof(buf)), -EOPNOTSUPP);
			assert_int_equal(info_arg(fds[n], unsupported_ops[i], 3,
						  buf, sizeof(buf)), -EOPNOTSUPP);
			/* nothing written */
			for (size_t j = 0; j < sizeof(buf); j++)
				assert_int_equal(buf[j], 0xa5);
		}
	}
	close(fds[1]);
}

static void test_upstream_getters_eopnotsupp(void **state)
{
	struct hltests_state *st = *state;
	struct hlthunk_pll_frequency_info pll;
	struct hlthunk_clk_throttle_info thr;
	struct hlthunk_energy_info energy;
	struct hlthunk_power_info power;
	struct hlthunk_hw_asic_status asic;
	struct hlthunk_pci_counters_info pci;
	struct hlthunk_dram_replaced_rows_info rows;
	struct hlthunk_sec_attest_info *att;
	uint32_t cur, max, pending;
	uint8_t req[64];

#define EOPNOTSUPP_CALL(call) do {							errno = 0;								assert_int_equal(call, -EOPNOTSUPP);					assert_int_equal(errno, EOPNOTSUPP);				} while (0)
	EOPNOTSUPP_CALL(hlthunk_get_clk_rate(st->fd, &cur, &max));
	EOPNOTSUPP_CALL(hlthunk_get_clk_throttle_info(st->fd, &thr));
	EOPNOTSUPP_CALL(hlthunk_get_pll_frequency(st->fd, HL_GAUDI_CPU_PLL, &pll));
	EOPNOTSUPP_CALL(hlthunk_get_power_info(st->fd, &power));
	EOPNOTSUPP_CALL(hlthunk_get_total_energy_consumption_info(st->fd, &energy));
	EOPNOTSUPP_CALL(hlthunk_get_pci_counters_info(st->fd, &pci));
	EOPNOTSUPP_CALL(hlthunk_get_dram_replaced_rows_info(st->fd, &rows));
	EOPNOTSUPP_CALL(hlthunk_get_dram_pending_rows_info(st->fd, &pending));
	att = calloc(1, sizeof(*att));
	assert_non_null(att);
	EOPNOTSUPP_CALL(hlthunk_get_sec_attest_info(st->fd, 0x1234, att));
	free(att);
	EOPNOTSUPP_CALL(hlthunk_fw_send_generic_request(st->fd, req, sizeof(req), 1));

	/* hl-thunk's order: the status is read, then throttling fails */
	memset(&asic, 0xa5, sizeof(asic));
	EOPNOTSUPP_CALL(hlthunk_get_hw_asic_status(st->fd, &asic));
	assert_int_equal(asic.valid, 1);
	assert_int_equal(asic.status, HL_DEVICE_STATUS_OPERATIONAL);
#undef EOPNOTSUPP_CALL

	/* NULL pointers are the library's -EINVAL, before any ioctl */
	assert_int_equal(hlthunk_get_clk_rate(st->fd, NULL, &max), -EINVAL);
	assert_int_equal(hlthunk_get_clk_rate(st->fd, &cur, NULL), -EINVAL);
	assert_int_equal(hlthunk_get_clk_throttle_info(st->fd, NULL), -EINVAL);
	assert_int_equal(hlthunk_get_pll_frequency(st->fd, 0, NULL), -EINVAL);
	assert_int_equal(hlthunk_get_power_info(st->fd, NULL), -EINVAL);
	assert_int_equal(hlthunk_get_total_energy_consumption_info(st->fd, NULL),
			 -EINVAL);
	assert_int_equal(hlthunk_get_hw_asic_status(st->fd, NULL), -EINVAL);
	assert_int_equal(hlthunk_get_pci_counters_info(st->fd, NULL), -EINVAL);
	assert_int_equal(hlthunk_get_dram_replaced_rows_info(st->fd, NULL),
			 -EINVAL);
	assert_int_equal(hlthunk_get_dram_pending_rows_info(st->fd, NULL),
			 -EINVAL);
	assert_int_equal(hlthunk_get_sec_attest_info(st->fd, 0, NULL), -EINVAL);
	assert_int_equal(hlthunk_fw_send_generic_request(st->fd, NULL, 8, 1),
			 -EINVAL);
	assert_int_equal(hlthunk_fw_send_generic_request(st->fd, req, 0, 1),
			 -EINVAL);
	assert_int_equal(hlthunk_get_sync_manager_info(st->fd, 0, NULL), -EINVAL);

	/* A closed fd reaches the ioctl: EBADF, not EOPNOTSUPP */
	assert_int_equal(hlthunk_get_clk_rate(-1, &cur, &max), -EBADF);
}

/* RAZWI, HW and FW error events cannot happen: zeros, on both nodes */
static void test_no_event_ops_zero(void **state)
{
	static const struct {
		uint32_t op;
		uint32_t size;
	} ops[] = {
		{ HL_INFO_RAZWI_EVENT, sizeof(struct hl_info_razwi_event) },
		{ HL_INFO_HW_ERR_EVENT, sizeof(struct hl_info_hw_err_event) },
		{ HL_INFO_FW_ERR_EVENT, sizeof(struct hl_info_fw_err_event) },
	};
	struct hltests_state *st = *state;
	uint8_t buf[512];
	int fds[2];
	size_t i, j;

	assert_int_equal(sizeof(struct hl_info_razwi_event), 280);
	fds[0] = st->fd;
	fds[1] = hltests_open_node(0, 1);
	assert_true(fds[1] >= 0);
	for (int n = 0; n < 2; n++) {
		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
			memset(buf, 0xa5, sizeof(buf));
			assert_int_equal(hltests_info(fds[n], ops[i].op, buf,
						      sizeof(buf)), 0);
			for (j = 0; j < ops[i].size; j++)
				assert_int_equal(buf[j], 0);
			for (; j < sizeof(buf); j++)
				assert_int_equal(buf[j], 0xa5);
			/* a short buffer gets its bytes only */
			memset(buf, 0xa5, sizeof(buf));
			assert_int_equal(hltests_info(fds[n], ops[i].op, buf, 4), 0);
			assert_int_equal(buf[3], 0);
			assert_int_equal(buf[4], 0xa5);
		}
	}
	close(fds[1]);
}

/* USER_MAPPINGS: nothing captured, 0 entries, the buffer untouched */
static void test_user_mappings_none(void **state)
{
	struct hltests_state *st = *state;
	struct hl_user_mapping maps[4];
	struct hl_info_args a;

	memset(maps, 0xa5, sizeof(maps));
	memset(&a, 0, sizeof(a));
	a.op = HL_INFO_USER_MAPPINGS;
	a.array_size = 4;
	a.return_pointer = (uintptr_t)maps;
	a.return_size = sizeof(maps);
	assert_int_equal(ioctl(st->fd, HL_IOCTL_INFO, &a), 0);
	assert_int_equal(a.array_size, 0);
	for (size_t i = 0; i < sizeof(maps); i++)
		assert_int_equal(((uint8_t *)maps)[i], 0xa5);
	/* No buffer: -EINVAL, as for every op with one */
	a.return_pointer = 0;
	assert_int_equal(ioctl(st->fd, HL_IOCTL_INFO, &a), -1);
	assert_int_equal(errno, EINVAL);
}

static int set_debug_mode(int fd, uint32_t enable)
{
	struct hl_debug_args d;

	memset(&d, 0, sizeof(d));
	d.op = HL_DEBUG_OP_SET_MODE;
	d.enable = enable;
	return hlthunk_debug(fd, &d);
}

/*
 * HL_IOCTL_DEBUG: no CoreSight blocks, in debug mode or out of it; bad
 * ops are -EINVAL
 */
static void test_debug_ioctl(void **state)
{
	struct hltests_state *st = *state;
	struct hl_debug_params_etr etr;
	struct hl_debug_args d;
	uint32_t op, mode;
	int ctl;

	memset(&etr, 0, sizeof(etr));
	for (mode = 0; mode < 2; mode++) {
		if (mode)
			assert_int_equal(set_debug_mode(st->fd, 1), 0);
		for (op = HL_DEBUG_OP_ETR; op < HL_DEBUG_OP_SET_MODE; op++) {
			memset(&d, 0, sizeof(d));
			d.op = op;
			d.enable = 1;
			d.input_ptr = (uintptr_t)&etr;
			d.input_size = sizeof(etr);
			errno = 0;
			assert_int_equal(hlthunk_debug(st->fd, &d),
					 -EOPNOTSUPP);
			assert_int_equal(errno, EOPNOTSUPP);
		}
	}
	assert_int_equal(set_debug_mode(st->fd, 0), 0);
	assert_int_equal(set_debug_mode(st->fd, 2), -EINVAL);
	memset(&d, 0, sizeof(d));
	d.op = HL_DEBUG_OP_SET_MODE + 1;
	assert_int_equal(hlthunk_debug(st->fd, &d), -EINVAL);
	d.op = HL_DEBUG_OP_ETR;
	d.ctx_id = 1;
	assert_int_equal(hlthunk_debug(st->fd, &d), -EINVAL);
	assert_int_equal(hlthunk_debug(st->fd, NULL), -EINVAL);

	/* The control node serves INFO only */
	ctl = hltests_open_node(0, 1);
	assert_true(ctl >= 0);
	memset(&d, 0, sizeof(d));
	assert_int_equal(ioctl(ctl, HL_IOCTL_DEBUG, &d), -1);
	assert_int_equal(errno, ENOTTY);
	close(ctl);
}

/* Hardware blocks and timestamp buffers: none here */
/*
 * HL_DEBUG_OP_SET_MODE, as upstream's: the device's debug mode is on or
 * off, setting it to what it is is -EFAULT, and the owner's close leaves
 * it off for the next owner (hl-thunk's test_close_without_releasing_debug)
 */
static void test_debug_mode_set_and_released_at_close(void **state)
{
	struct hltests_state *st = *state;
	int fd;

	assert_int_equal(set_debug_mode(st->fd, 0), -EFAULT);
	assert_int_equal(set_debug_mode(st->fd, 1), 0);
	assert_int_equal(set_debug_mode(st->fd, 1), -EFAULT);
	assert_int_equal(set_debug_mode(st->fd, 0), 0);
	assert_int_equal(set_debug_mode(st->fd, 0), -EFAULT);

	/* Closed in debug mode: the next owner finds it off */
	assert_int_equal(set_debug_mode(st->fd, 1), 0);
	assert_int_equal(hlthunk_close(st->fd), 0);
	fd = st->fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, NULL);
	assert_true(fd >= 0);
	assert_int_equal(set_debug_mode(fd, 0), -EFAULT);
	assert_int_equal(set_debug_mode(fd, 1), 0);
}

static void test_hw_block_and_timestamps_eopnotsupp(void **state)
{
	struct hltests_state *st = *state;
	uint64_t handle = 1;
	uint32_t size = 1;

	assert_int_equal(hlthunk_get_hw_block(st->fd, 0x7ffc000000ull, &size,
					      &handle), -EOPNOTSUPP);
	assert_int_equal(hlthunk_get_hw_block(st->fd, 0, NULL, &handle), -EINVAL);
	assert_int_equal(hlthunk_allocate_timestamp_elements(st->fd, 64,
							     &handle),
			 -EOPNOTSUPP);
	assert_int_equal(handle, 0);
	assert_int_equal(hlthunk_allocate_timestamp_elements(st->fd, 64, NULL),
			 -EINVAL);
}

static void test_null_or_empty_buffer_is_einval(void **state)
{
	struct hltests_state *st = *state;
	uint64_t buf[4];

	assert_int_equal(hltests_info(st->fd, HL_INFO_DEVICE_STATUS, NULL, 8),
			 -EINVAL);
	assert_int_equal(hltests_info(st->fd, HL_INFO_DEVICE_STATUS, buf, 0),
			 -EINVAL);
}

static void test_bad_pointers_are_efault(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_hw_ip_info *ro;

	/* The return buffer: unmapped, then read-only */
	assert_int_equal(hltests_info(st->fd, HL_INFO_HW_IP_INFO, (void *)16,
				      64), -EFAULT);
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(ro != MAP_FAILED);
	assert_int_equal(hltests_info(st->fd, HL_INFO_HW_IP_INFO, ro,
				      sizeof(*ro)), -EFAULT);
	munmap(ro, 4096);

	/* The argument itself */
	assert_int_equal(ioctl(st->fd, HL_IOCTL_INFO, (void *)16), -1);
	assert_int_equal(errno, EFAULT);
}

static void test_reserved_fields_must_be_zero(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_device_status ds;
	struct hl_info_args args;

	memset(&args, 0, sizeof(args));
	args.op = HL_INFO_DEVICE_STATUS;
	args.return_pointer = (uint64_t)(uintptr_t)&ds;
	args.return_size = sizeof(ds);
	args.pad = 1;
	assert_int_equal(ioctl(st->fd, HL_IOCTL_INFO, &args), -1);
	assert_int_equal(errno, EINVAL);
	args.pad = 0;
	args.ctx_id = 1;
	assert_int_equal(ioctl(st->fd, HL_IOCTL_INFO, &args), -1);
	assert_int_equal(errno, EINVAL);
	args.ctx_id = 0;
	assert_int_equal(ioctl(st->fd, HL_IOCTL_INFO, &args), 0);
}

/* Extensible args: an older, smaller struct still works */
static void test_smaller_args_struct(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_device_status ds;
	struct hl_info_args args;

	memset(&args, 0, sizeof(args));
	memset(&ds, 0xff, sizeof(ds));
	args.op = HL_INFO_DEVICE_STATUS;
	args.return_pointer = (uint64_t)(uintptr_t)&ds;
	args.return_size = sizeof(ds);
	/* Up to and including op: ctx_id and pad are left out */
	assert_int_equal(hltests_ioctl_sized(st->fd, HL_IOCTL_INFO,
					     offsetof(struct hl_info_args, ctx_id),
					     &args), 0);
	assert_int_equal(ds.status, HL_DEVICE_STATUS_OPERATIONAL);
}

/* Extensible args: a newer, larger struct works iff its tail is zero */
static void test_larger_args_struct(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_device_status ds;
	struct {
		struct hl_info_args args;
		uint64_t future[2];
	} big;

	memset(&big, 0, sizeof(big));
	big.args.op = HL_INFO_DEVICE_STATUS;
	big.args.return_pointer = (uint64_t)(uintptr_t)&ds;
	big.args.return_size = sizeof(ds);
	assert_int_equal(hltests_ioctl_sized(st->fd, HL_IOCTL_INFO, sizeof(big),
					     &big), 0);

	big.future[1] = 1;
	assert_int_equal(hltests_ioctl_sized(st->fd, HL_IOCTL_INFO, sizeof(big),
					     &big), -E2BIG);
}

static void test_info_on_every_device(void **state)
{
	int n = hltests_num_devices(), i;

	(void)state;
	for (i = 0; i < n; i++) {
		struct hl_info_hw_ip_info hw;
		int fd = hltests_open_node(i, 1);

		assert_true(fd >= 0);
		memset(&hw, 0, sizeof(hw));
		assert_int_equal(hltests_info(fd, HL_INFO_HW_IP_INFO, &hw,
					      sizeof(hw)), 0);
		assert_int_equal(hw.module_id, i);
		assert_string_equal((char *)hw.card_name, "emu-gaudi");
		close(fd);
	}
}

/*
 * The struct-size rule: the 2.0 functions write exactly the struct's size at
 * libhlthunk 2.0 (a canary right after it survives), hl-thunk's struct is
 * written at hl-thunk's size, and the _ex functions write the caller's
 * size: the known fields, then zeroes; a size below 2.0's is -EINVAL.
 */
#define CANARY	0xa5

struct sized_buf {
	uint8_t b[4096];
};

static void assert_canary(const struct sized_buf *buf, size_t from)
{
	size_t i;

	for (i = from; i < sizeof(buf->b); i++)
		if (buf->b[i] != CANARY) {
			print_error("byte %zu written past %zu\n", i, from);
			fail();
		}
}

static void test_struct_sizes_are_respected(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_hw_ip_info ref;
	struct sized_buf buf;
	size_t big = sizeof(ref) + 64;

	assert_int_equal(hlthunk_get_hw_ip_info_ex(st->fd, &ref, sizeof(ref)), 0);

	memset(&buf, CANARY, sizeof(buf));
	assert_int_equal(hlthunk_get_hw_ip_info_ext(st->fd,
			 (struct hl_info_hw_ip_info *)&buf), 0);
	assert_canary(&buf, 352);
	assert_memory_equal(&buf, &ref, 352);

	memset(&buf, CANARY, sizeof(buf));
	assert_int_equal(hlthunk_get_hw_ip_info(st->fd,
			 (struct hlthunk_hw_ip_info *)&buf), 0);
	assert_canary(&buf, 336);

	/* A binary built with a larger struct: the rest reads as zero */
	memset(&buf, CANARY, sizeof(buf));
	assert_int_equal(hlthunk_get_hw_ip_info_ex(st->fd,
			 (struct hl_info_hw_ip_info *)&buf, big), 0);
	assert_memory_equal(&buf, &ref, sizeof(ref));
	for (size_t i = sizeof(ref); i < big; i++)
		assert_int_equal(buf.b[i], 0);
	assert_canary(&buf, big);

	/* Upstream's misc-era size: its fields, nothing past them */
	memset(&buf, CANARY, sizeof(buf));
	assert_int_equal(hlthunk_get_hw_ip_info_ex(st->fd,
			 (struct hl_info_hw_ip_info *)&buf, 256), 0);
	assert_memory_equal(&buf, &ref, 256);
	assert_canary(&buf, 256);

	/* Below it: refused, nothing written */
	memset(&buf, CANARY, sizeof(buf));
	errno = 0;
	assert_int_equal(hlthunk_get_hw_ip_info_ex(st->fd,
			 (struct hl_info_hw_ip_info *)&buf, 255), -EINVAL);
	assert_int_equal(errno, EINVAL);
	assert_canary(&buf, 0);

	memset(&buf, CANARY, sizeof(buf));
	assert_int_equal(hlthunk_get_nic_ports_info(st->fd,
			 (struct hl_info_nic_ports *)&buf), 0);
	assert_canary(&buf, 1544);
	memset(&buf, CANARY, sizeof(buf));
	assert_int_equal(hlthunk_get_nic_ports_info_ex(st->fd,
			 (struct hl_info_nic_ports *)&buf, 1600), 0);
	assert_canary(&buf, 1600);
	assert_int_equal(buf.b[1599], 0);
	assert_int_equal(hlthunk_get_nic_ports_info_ex(st->fd,
			 (struct hl_info_nic_ports *)&buf, 1543), -EINVAL);

	memset(&buf, CANARY, sizeof(buf));
	assert_int_equal(hlthunk_get_page_fault_event(st->fd,
			 (struct hl_info_page_fault_event *)&buf), 0);
	assert_canary(&buf, 32);
	assert_int_equal(hlthunk_get_page_fault_event_ex(st->fd,
			 (struct hl_info_page_fault_event *)&buf, 31), -EINVAL);
}

const struct CMUnitTest info_tests[] = {
	cmocka_unit_test_setup_teardown(test_struct_sizes_are_respected,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_hw_ip_info, hltests_setup,
					hltests_teardown),
	cmocka_unit_test_setup_teardown(test_hw_ip_info_same_on_control_node,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_dram_usage_idle, hltests_setup,
					hltests_teardown),
	cmocka_unit_test_setup_teardown(test_device_status, hltests_setup,
					hltests_teardown),
	cmocka_unit_test_setup_teardown(test_device_idle, hltests_setup,
					hltests_teardown),
	cmocka_unit_test_setup_teardown(test_page_fault_info_without_fault,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_hw_ip_info_upstream_layout,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_hlthunk_hw_ip_info,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_device_name_is_not_an_hl_thunk_value,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_open_control_by,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_dev_memalloc_page_orders,
					hltests_setup, hltests_teardown),
	cmocka_unit_test(test_version_and_malloc),
	cmocka_unit_test_setup_teardown(test_short_buffer_gets_truncated_copy,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_unknown_op_is_einval,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_upstream_ops_eopnotsupp,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_upstream_getters_eopnotsupp,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_no_event_ops_zero,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_user_mappings_none,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_debug_ioctl,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_debug_mode_set_and_released_at_close,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_hw_block_and_timestamps_eopnotsupp,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_null_or_empty_buffer_is_einval,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_bad_pointers_are_efault,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_reserved_fields_must_be_zero,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_smaller_args_struct,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_larger_args_struct,
					hltests_setup, hltests_teardown),
	cmocka_unit_test(test_info_on_every_device),
};

int main(void)
{
	return HLTESTS_RUN("info", info_tests);
}

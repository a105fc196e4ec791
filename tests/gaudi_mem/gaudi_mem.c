// SPDX-License-Identifier: MIT
/*
 * gaudi_mem: memory as a GAUDI addresses it (module parameter asic=gaudi):
 * SRAM at HW_IP_INFO.sram_base_address, user DRAM addressed physically from
 * HW_IP_INFO.dram_base_address (no DRAM MMU), host memory through the MMU's
 * host range; what stays out of reach (the driver's HBM, anything past the
 * user ranges), one owner at a time, scrubbing between owners, ALLOC that
 * only accounts, exports by DRAM address. Every test skips under asic=emu.
 * The jobs are the project's own packets (LIN_DMA), which the emulated
 * engines execute in either identity.
 */
#include "hltests.h"

#include <misc/habanalabs_pkt.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KB			(1ull << 10)
#define MB			(1ull << 20)
/* GAUDI's SRAM (upstream's SRAM_BASE_ADDR, SRAM_SIZE) */
#define GAUDI_SRAM_BASE		0x7ff0000000ull
#define GAUDI_SRAM_SIZE		(20 * MB)
/* Where hl-thunk-open's tests put data and command buffers in SRAM */
#define SRAM_DATA		(GAUDI_SRAM_BASE + 0x1000)
#define SRAM_CB			(GAUDI_SRAM_BASE + 0x2000)

static void require_gaudi(void)
{
	if (!hltests_identity_gaudi()) {
		print_message("asic=emu: the suite runs under asic=gaudi\n");
		skip();
	}
}

static int gaudi_setup(void **state)
{
	char buf[32];

	/* Under asic=emu each test skips, without opening anything */
	if (hltests_param_read("asic", buf, sizeof(buf)) || strcmp(buf, "gaudi")) {
		*state = NULL;
		return 0;
	}
	return hltests_setup(state);
}

static struct hl_info_hw_ip_info hw_ip(int fd)
{
	struct hl_info_hw_ip_info hw;

	memset(&hw, 0, sizeof(hw));
	assert_int_equal(hltests_info(fd, HL_INFO_HW_IP_INFO, &hw, sizeof(hw)), 0);
	return hw;
}

static int raw_mem(int fd, uint32_t op, uint64_t a0, uint64_t a1,
		   uint32_t flags, uint64_t *out)
{
	union hl_mem_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.in.op = op;
	/* The first two u64 of every op's member */
	a.in.alloc.mem_size = a0;
	a.in.alloc.page_size = a1;
	a.in.flags = flags;
	rc = hltests_mem_ioctl(fd, &a);
	if (!rc && out)
		*out = a.out.device_virt_addr;
	return rc;
}

static int export_addr(int fd, uint64_t addr, uint64_t size, uint64_t offset)
{
	union hl_mem_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_EXPORT_DMABUF_FD;
	a.in.export_dmabuf_fd.addr = addr;
	a.in.export_dmabuf_fd.mem_size = size;
	a.in.export_dmabuf_fd.offset = offset;
	a.in.flags = O_RDWR | O_CLOEXEC;
	rc = hltests_mem_ioctl(fd, &a);
	return rc ? rc : a.out.fd;
}

static void fill(uint8_t *p, uint64_t n, uint64_t seed)
{
	uint64_t s = seed | 1;

	hltests_fill_random(&s, p, n);
}

/* Write @n bytes of pattern @seed at device address @dst (via a host bounce) */
static void put_pattern(int fd, uint64_t dst, uint64_t n, uint64_t seed)
{
	uint8_t *p = malloc(n);

	assert_non_null(p);
	fill(p, n, seed);
	hltests_write_device(fd, dst, p, n);
	free(p);
}

/* Whether device memory at @src holds pattern @seed */
static void assert_pattern(int fd, uint64_t src, uint64_t n, uint64_t seed)
{
	uint8_t *want = malloc(n), *got = malloc(n);

	assert_non_null(want);
	assert_non_null(got);
	fill(want, n, seed);
	hltests_read_device(fd, src, got, n);
	hltests_assert_bytes_equal(got, want, n, "device memory");
	free(want);
	free(got);
}

/* Bytes of device memory at @src that are not zero */
static uint64_t nonzero_bytes(int fd, uint64_t src, uint64_t n)
{
	uint8_t *got = malloc(n);
	uint64_t i, count = 0;

	assert_non_null(got);
	hltests_read_device(fd, src, got, n);
	for (i = 0; i < n; i++)
		count += got[i] != 0;
	free(got);
	return count;
}

/* HW_IP_INFO as a GAUDI reports its memory */
static void test_hw_ip_reports_gaudi_memory(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_hw_ip_info hw;

	require_gaudi();
	hw = hw_ip(st->fd);
	assert_int_equal(hw.device_id, 0x1000);
	assert_int_equal(hw.sram_base_address, GAUDI_SRAM_BASE);
	assert_int_equal(hw.sram_size, GAUDI_SRAM_SIZE);
	/* The first user byte, past the page tables and the SRAM's backing */
	assert_int_equal(hw.dram_base_address,
			 hltests_debugfs_value(0, "dram_user_base"));
	assert_int_equal(hw.dram_size, hltests_debugfs_value(0, "dram_user_size"));
	assert_true(hw.dram_base_address >= GAUDI_SRAM_SIZE);
	assert_int_equal(hw.dram_base_address % hw.dram_page_size, 0);
	assert_int_equal(hw.dram_base_address + hw.dram_size,
			 hltests_debugfs_value(0, "hbm_size"));
	assert_int_equal(hw.dram_enabled, 1);
	/* No DRAM VA range: DRAM is addressed physically */
	assert_int_equal(hw.dram_va_start, 0);
	assert_int_equal(hw.dram_va_end, 0);
	assert_true(hw.host_va_start < hw.host_va_end);
}

/*
 * ALLOC only accounts, as upstream's GAUDI (handle 0); FREE takes the size
 * back; MAP of device memory finds no allocation; the accounting goes with
 * the owner.
 */
static void test_alloc_accounts_only(void **state)
{
	struct hltests_state *st = *state;
	uint64_t free0, out = 1;

	require_gaudi();
	free0 = hltests_dram_free(st->fd);
	assert_int_equal(free0, hw_ip(st->fd).dram_size);
	assert_int_equal(hltests_ctx_dram(st->fd), 0);

	assert_int_equal(raw_mem(st->fd, HL_MEM_OP_ALLOC, 3 * MB, 0, 0, &out), 0);
	assert_int_equal(out, 0);
	assert_int_equal(hltests_ctx_dram(st->fd), 3 * MB);
	assert_int_equal(hltests_dram_free(st->fd), free0 - 3 * MB);
	assert_int_equal(hltests_debugfs_value(0, "dram_used"), 3 * MB);

	assert_int_equal(raw_mem(st->fd, HL_MEM_OP_ALLOC, 0, 0, 0, NULL), -EINVAL);
	assert_int_equal(raw_mem(st->fd, HL_MEM_OP_ALLOC, MB, 0, 0x100, NULL),
			 -EINVAL);
	assert_int_equal(raw_mem(st->fd, HL_MEM_OP_ALLOC, free0, 0, 0, NULL),
			 -ENOMEM);
	/* MAP of a device handle: there is no allocation to map */
	assert_int_equal(raw_mem(st->fd, HL_MEM_OP_MAP, 0, 0, 0, NULL), -EINVAL);
	assert_int_equal(raw_mem(st->fd, HL_MEM_OP_MAP, 1, 0, 0, NULL), -EINVAL);

	/* FREE: the size in the first u64, at most what was accounted */
	assert_int_equal(raw_mem(st->fd, HL_MEM_OP_FREE, MB, 0, 0, NULL), 0);
	assert_int_equal(hltests_ctx_dram(st->fd), 2 * MB);
	assert_int_equal(raw_mem(st->fd, HL_MEM_OP_FREE, 0, 0, 0, NULL), 0);
	assert_int_equal(hltests_ctx_dram(st->fd), 2 * MB);

	/* Left accounted at close: the next owner starts from none */
	hlthunk_close(st->fd);
	st->fd = hltests_open_node(0, 0);
	assert_true(st->fd >= 0);
	assert_int_equal(hltests_ctx_dram(st->fd), 0);
	assert_int_equal(hltests_dram_free(st->fd), free0);
}

/*
 * No page size for ALLOC to hand out (it only accounts): the page orders
 * are 0, upstream's answer for GAUDI, on the compute and control nodes
 */
static void test_memalloc_page_orders_none(void **state)
{
	struct hltests_state *st = *state;
	uint64_t orders = ~0ull;
	int ctl;

	require_gaudi();
	assert_int_equal(hlthunk_get_dev_memalloc_page_orders(st->fd, &orders),
			 0);
	assert_int_equal(orders, 0);
	ctl = hltests_open_node(0, 1);
	assert_true(ctl >= 0);
	orders = ~0ull;
	assert_int_equal(hlthunk_get_dev_memalloc_page_orders(ctl, &orders), 0);
	assert_int_equal(orders, 0);
	close(ctl);
}

/* LIN_DMA to, from and within physical DRAM, at both ends of it */
static void test_dram_physical_copies(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_hw_ip_info hw;
	uint64_t first, last, mid;

	require_gaudi();
	hw = hw_ip(st->fd);
	first = hw.dram_base_address;
	last = hw.dram_base_address + hw.dram_size - 64 * KB;
	/* Across 2 MiB boundaries */
	mid = hw.dram_base_address + 7 * MB + 4 * KB;

	put_pattern(st->fd, first, 64 * KB, 1);
	put_pattern(st->fd, last, 64 * KB, 2);
	assert_pattern(st->fd, first, 64 * KB, 1);
	assert_pattern(st->fd, last, 64 * KB, 2);

	put_pattern(st->fd, mid, 5 * MB, 3);
	hltests_dma(st->fd, mid, first + 16 * MB, 5 * MB);
	assert_pattern(st->fd, first + 16 * MB, 5 * MB, 3);
	/* DRAM to DRAM, the last bytes of DRAM included */
	hltests_dma(st->fd, first, last, 64 * KB);
	assert_pattern(st->fd, last, 64 * KB, 1);
}

/*
 * SRAM: data at +0x1000 and a command buffer at +0x2000, as hl-thunk-open's
 * tests place them; SRAM to DRAM and back; the last bytes of SRAM.
 */
static void test_sram_copies_and_cb(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_hw_ip_info hw;
	uint8_t cb[64];
	uint64_t dram, len;

	require_gaudi();
	hw = hw_ip(st->fd);
	dram = hw.dram_base_address + 32 * MB;

	put_pattern(st->fd, GAUDI_SRAM_BASE + MB, 256 * KB, 4);
	assert_pattern(st->fd, GAUDI_SRAM_BASE + MB, 256 * KB, 4);
	hltests_dma(st->fd, GAUDI_SRAM_BASE + MB, dram, 256 * KB);
	assert_pattern(st->fd, dram, 256 * KB, 4);
	hltests_dma(st->fd, dram, GAUDI_SRAM_BASE + GAUDI_SRAM_SIZE - 256 * KB,
		    256 * KB);
	assert_pattern(st->fd, GAUDI_SRAM_BASE + GAUDI_SRAM_SIZE - 256 * KB,
		       256 * KB, 4);

	/* A CB in SRAM that copies SRAM to DRAM, fetched from SRAM */
	put_pattern(st->fd, SRAM_DATA, 4 * KB, 5);
	memset(cb, 0, sizeof(cb));
	len = hltests_pkt_lin_dma(cb, SRAM_DATA, dram + MB, 4 * KB);
	hltests_write_device(st->fd, SRAM_CB, cb, len);
	hltests_run_cb_ok(st->fd, hltests_dma_queue(), SRAM_CB, len);
	assert_pattern(st->fd, dram + MB, 4 * KB, 5);
}

/*
 * Every address outside user DRAM, SRAM and the host range faults: the
 * fault is recorded at the address, nothing is copied, and the job
 * completes (a DMA engine's fault is an event, as on a GAUDI:
 * test_dma_fault_is_an_event). The
 * driver's own HBM (page tables at 0, the SRAM's backing below the user
 * DRAM) is not reachable by its physical address, nor is anything past
 * the ends of the user ranges, nor the DRAM VA range of asic=emu.
 */
static void refused(int fd, uint64_t src, uint64_t dst, uint64_t size,
		    uint64_t fault, uint32_t is_write)
{
	struct hltests_host_buf cb;
	struct timespec ts;
	uint32_t len;
	int64_t t0;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	hltests_host_map(fd, &cb, 4096);
	len = hltests_pkt_lin_dma(cb.ptr, src, dst, size);
	hltests_run_cb_ok(fd, hltests_dma_queue(), cb.va, len);
	hltests_host_unmap(fd, &cb);
	hltests_assert_fault_at(fd, t0, fault, hltests_dma_queue(), is_write);
}

static void test_reserved_ranges_refused(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_hw_ip_info hw;
	struct hltests_host_buf b;
	uint64_t base, end, i;
	uint64_t reads[6];

	require_gaudi();
	hw = hw_ip(st->fd);
	base = hw.dram_base_address;
	end = base + hw.dram_size;
	reads[0] = 0;				/* hop0 tables */
	reads[1] = 2 * MB;			/* hop tables */
	reads[2] = base - 4096;			/* the SRAM's backing */
	reads[3] = end;				/* past user DRAM */
	reads[4] = GAUDI_SRAM_BASE + GAUDI_SRAM_SIZE;	/* past SRAM */
	reads[5] = 0x200000000000ull;		/* asic=emu's DRAM VA range */

	hltests_host_map(st->fd, &b, 4096);
	for (i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		memset(b.ptr, 0xa5, 4096);
		refused(st->fd, reads[i], b.va, 4096, reads[i], 0);
		for (uint64_t j = 0; j < 4096; j++)
			assert_int_equal(b.ptr[j], 0xa5);
	}
	/* Runs that leave a user range at its end */
	refused(st->fd, end - 4096, b.va, 8192, end, 0);
	refused(st->fd, GAUDI_SRAM_BASE + GAUDI_SRAM_SIZE - 4096, b.va, 8192,
		GAUDI_SRAM_BASE + GAUDI_SRAM_SIZE, 0);
	/* Writes: into the page tables, the SRAM's backing */
	refused(st->fd, b.va, 4096, 4096, 4096, 1);
	refused(st->fd, b.va, base - 8192, 4096, base - 8192, 1);
	hltests_host_unmap(st->fd, &b);

	/* The device still translates and copies */
	put_pattern(st->fd, base, 4096, 5);
	assert_pattern(st->fd, base, 4096, 5);
}

/* The compute node opens once: no second owner of the physical DRAM */
static void test_second_owner_refused(void **state)
{
	struct hltests_state *st = *state;

	require_gaudi();
	assert_int_equal(hltests_open_node(0, 0), -EBUSY);
	hlthunk_close(st->fd);
	st->fd = hltests_open_node(0, 0);
	assert_true(st->fd >= 0);
}

/*
 * What one owner leaves in DRAM and SRAM, the next one reads as zeroes. With
 * memory_scrub off, the DRAM keeps it (the check can fail); the SRAM is
 * zeroed either way.
 */
static uint64_t leftover(struct hltests_state *st, uint64_t dram,
			 uint64_t dram_last)
{
	uint64_t n;

	put_pattern(st->fd, dram, MB, 6);
	put_pattern(st->fd, dram_last, 64 * KB, 7);
	put_pattern(st->fd, SRAM_DATA, 64 * KB, 8);
	hlthunk_close(st->fd);
	st->fd = hltests_open_node(0, 0);
	assert_true(st->fd >= 0);
	assert_int_equal(nonzero_bytes(st->fd, SRAM_DATA, 64 * KB), 0);
	n = nonzero_bytes(st->fd, dram, MB);
	return n + nonzero_bytes(st->fd, dram_last, 64 * KB);
}

static void test_scrub_between_owners(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_hw_ip_info hw;
	uint64_t dram, last;
	char old[8];

	require_gaudi();
	hw = hw_ip(st->fd);
	dram = hw.dram_base_address + 64 * MB;
	last = hw.dram_base_address + hw.dram_size - 64 * KB;

	assert_int_equal(hltests_param_read("memory_scrub", old, sizeof(old)), 0);
	assert_string_equal(old, "Y");
	assert_int_equal(leftover(st, dram, last), 0);

	hltests_param_set("memory_scrub", "0", NULL, 0);
	assert_true(leftover(st, dram, last) > MB / 2);
	hltests_param_set("memory_scrub", "1", NULL, 0);

	assert_int_equal(leftover(st, dram, last), 0);
}

/*
 * EXPORT_DMABUF_FD names a DRAM physical address: page aligned, inside the
 * user DRAM, offset 0 (upstream's checks). The export holds the owner's
 * DRAM: no new owner while it lives; the DRAM is scrubbed once it goes.
 */
static void test_export_by_dram_address(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_hw_ip_info hw;
	uint64_t base, end;
	int dmabuf, fd2;

	require_gaudi();
	hw = hw_ip(st->fd);
	base = hw.dram_base_address;
	end = base + hw.dram_size;

	assert_int_equal(export_addr(st->fd, base, 0, 0), -EINVAL);
	assert_int_equal(export_addr(st->fd, base, 4096, 4096), -EINVAL);
	assert_int_equal(export_addr(st->fd, base + 2048, 4096, 0), -EINVAL);
	assert_int_equal(export_addr(st->fd, base, 4095, 0), -EINVAL);
	assert_int_equal(export_addr(st->fd, base - 4096, 4096, 0), -EINVAL);
	assert_int_equal(export_addr(st->fd, 0, 4096, 0), -EINVAL);
	assert_int_equal(export_addr(st->fd, end, 4096, 0), -EINVAL);
	assert_int_equal(export_addr(st->fd, end - 4096, 8192, 0), -EINVAL);
	assert_int_equal(export_addr(st->fd, base, hw.dram_size + 4096, 0),
			 -EINVAL);
	assert_int_equal(export_addr(st->fd, SRAM_DATA - 0x1000, 4096, 0),
			 -EINVAL);

	/* The last page, and all of it */
	dmabuf = export_addr(st->fd, end - 4096, 4096, 0);
	assert_true(dmabuf >= 0);
	close(dmabuf);
	dmabuf = export_addr(st->fd, base, hw.dram_size, 0);
	assert_true(dmabuf >= 0);
	close(dmabuf);

	put_pattern(st->fd, base + 2 * MB, 64 * KB, 9);
	dmabuf = export_addr(st->fd, base + 2 * MB, 2 * MB, 0);
	assert_true(dmabuf >= 0);
	hlthunk_close(st->fd);
	/* The export keeps the DRAM: nobody else may own it */
	fd2 = hltests_open_node(0, 0);
	assert_int_equal(fd2, -EBUSY);
	close(dmabuf);
	st->fd = hltests_open_node(0, 0);
	assert_true(st->fd >= 0);
	assert_int_equal(nonzero_bytes(st->fd, base + 2 * MB, 64 * KB), 0);
}

/* debugfs's addr, data32, data64 of device 0, by upstream's name (hl0) */
#define DBG_DIR		"/sys/kernel/debug/habanalabs/hl0/"

static int dbg_read(const char *file, uint64_t addr, uint64_t *val)
{
	char buf[64];
	int rc;

	snprintf(buf, sizeof(buf), "0x%" PRIx64, addr);
	assert_int_equal(hltests_write_file(DBG_DIR "addr", buf), 0);
	rc = hltests_read_file(file, buf, sizeof(buf));
	if (!rc)
		*val = strtoull(buf, NULL, 16);
	return rc;
}

static int dbg_write(const char *file, uint64_t addr, uint64_t val)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, addr);
	assert_int_equal(hltests_write_file(DBG_DIR "addr", buf), 0);
	snprintf(buf, sizeof(buf), "%" PRIx64, val);
	return hltests_write_file(file, buf);
}

/*
 * debugfs register access as upstream's for what the emulator models:
 * SRAM, user DRAM, the sync manager's registers; the driver's HBM, the
 * ends of the ranges and unmodelled registers are -EINVAL.
 */
static void test_debugfs_register_access(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_sync_manager sm;
	struct hl_info_hw_ip_info hw;
	uint64_t dram, end, val, sob;
	uint8_t got[8];
	char text[32];
	uint32_t v32;

	require_gaudi();
	hw = hw_ip(st->fd);
	dram = hw.dram_base_address + 4 * MB;
	end = hw.dram_base_address + hw.dram_size;
	memset(&sm, 0, sizeof(sm));
	assert_int_equal(hltests_info(st->fd, HL_INFO_SYNC_MANAGER, &sm,
				      sizeof(sm)), 0);

	/* clk_gate, which hl-thunk-open's tests open and set: kept */
	assert_int_equal(hltests_write_file(DBG_DIR "clk_gate", "0x1ff"), 0);
	assert_int_equal(hltests_read_file(DBG_DIR "clk_gate", text,
					   sizeof(text)), 0);
	assert_int_equal(strtoull(text, NULL, 16), 0x1ff);
	assert_int_equal(hltests_write_file(DBG_DIR "clk_gate", "0"), 0);

	/* SRAM: written by debugfs, read by an engine, and back */
	assert_int_equal(dbg_write(DBG_DIR "data32", SRAM_DATA, 0x12345678), 0);
	hltests_read_device(st->fd, SRAM_DATA, got, 4);
	memcpy(&v32, got, 4);
	assert_int_equal(v32, 0x12345678);
	assert_int_equal(dbg_read(DBG_DIR "data32", SRAM_DATA, &val), 0);
	assert_int_equal(val, 0x12345678);

	/* DRAM, 64 bits, physically */
	put_pattern(st->fd, dram, 8, 10);
	hltests_read_device(st->fd, dram, got, 8);
	assert_int_equal(dbg_read(DBG_DIR "data64", dram, &val), 0);
	assert_memory_equal(&val, got, 8);
	assert_int_equal(dbg_write(DBG_DIR "data64", end - 8,
				   0x0123456789abcdefull), 0);
	hltests_read_device(st->fd, end - 8, got, 8);
	assert_memory_equal(got, &(uint64_t){ 0x0123456789abcdefull }, 8);

	/* A SOB of the user's, by its register */
	sob = HL_SM_SOB_OBJ_0 + 4ull * sm.first_available_sync_object;
	assert_int_equal(dbg_write(DBG_DIR "data32", sob, 5), 0);
	assert_int_equal(dbg_read(DBG_DIR "data32", sob, &val), 0);
	assert_int_equal(val, 5);
	assert_int_equal(dbg_write(DBG_DIR "data32", sob, 0), 0);

	/* Out of reach */
	assert_int_equal(dbg_read(DBG_DIR "data32", 0, &val), -EINVAL);
	assert_int_equal(dbg_write(DBG_DIR "data32", 0, 1), -EINVAL);
	assert_int_equal(dbg_read(DBG_DIR "data32", hw.dram_base_address - 4,
				  &val), -EINVAL);
	assert_int_equal(dbg_read(DBG_DIR "data64", end - 4, &val), -EINVAL);
	assert_int_equal(dbg_read(DBG_DIR "data32", end, &val), -EINVAL);
	assert_int_equal(dbg_read(DBG_DIR "data64",
				  GAUDI_SRAM_BASE + GAUDI_SRAM_SIZE - 4, &val),
			 -EINVAL);
	assert_int_equal(dbg_read(DBG_DIR "data32", HL_CFG_BASE, &val), -EINVAL);
	assert_int_equal(dbg_write(DBG_DIR "data32", HL_CFG_BASE, 1), -EINVAL);
}

/*
 * Review (issue 34): transfers that start in a user range and run past its
 * end, or wrap, fault at the first byte out of it, for MEMSET as for
 * LIN_DMA, and nothing lands in the driver's HBM; the bytes inside the
 * range before the fault are the user's own.
 */
static void memset_refused(int fd, uint64_t dst, uint64_t size,
			   uint64_t fault)
{
	struct hltests_host_buf cb;
	struct timespec ts;
	uint32_t len;
	int64_t t0;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	hltests_host_map(fd, &cb, 4096);
	len = hltests_pkt_memset(cb.ptr, dst, 0x5a5a5a5a5a5a5a5aull, size);
	hltests_run_cb_ok(fd, hltests_dma_queue(), cb.va, len);
	hltests_host_unmap(fd, &cb);
	hltests_assert_fault_at(fd, t0, fault, hltests_dma_queue(), 1);
}

static void test_runs_past_the_ends_fault(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_hw_ip_info hw;
	struct hltests_host_buf b;
	uint64_t base, end, sram_end = GAUDI_SRAM_BASE + GAUDI_SRAM_SIZE;
	uint64_t top = hltests_gaudi_format() ? (1ull << 56) - 4096 :
						~0ull - 4095;

	require_gaudi();
	hw = hw_ip(st->fd);
	base = hw.dram_base_address;
	end = base + hw.dram_size;

	/*
	 * MEMSET across the end of SRAM, of DRAM; from the top of VA (as
	 * LIN_DMA's destination field keeps it: 56 bits in GAUDI's format)
	 */
	memset_refused(st->fd, sram_end - 4096, 8192, sram_end);
	memset_refused(st->fd, end - 4096, 8192, end);
	memset_refused(st->fd, top, 8192, top);
	/* LIN_DMA writes across the ends, and one that would wrap to 0 */
	hltests_host_map(st->fd, &b, 8192);
	memset(b.ptr, 0x77, 8192);
	refused(st->fd, b.va, sram_end - 4096, 8192, sram_end, 1);
	refused(st->fd, b.va, end - 4096, 8192, end, 1);
	refused(st->fd, b.va, top, 8192, top, 1);
	/* A read from the top of VA that would wrap into the page tables */
	refused(st->fd, ~0ull - 4095, b.va, 8192, ~0ull - 4095, 0);
	hltests_host_unmap(st->fd, &b);

	/* What landed before each fault is in the user's ranges only */
	assert_int_equal(nonzero_bytes(st->fd, sram_end - 4096, 4096), 4096);
	assert_int_equal(nonzero_bytes(st->fd, end - 4096, 4096), 4096);
	/* The page tables still translate: host mappings still work */
	put_pattern(st->fd, base, 4096, 15);
	assert_pattern(st->fd, base, 4096, 15);
}

/*
 * A DMA engine's transfer through an address that does not translate, as on
 * a GAUDI (upstream's MMU page fault and RAZWI events: reported, no reset):
 * the transfer ends at the fault, which is recorded
 * (HL_INFO_PAGE_FAULT_EVENT) and sent as PAGE_FAULT; the job goes on with
 * its next packet and the CS completes. hl-thunk-open's debug
 * test_page_miss and test_transfer_bigger_than_alloc expect this.
 */
static void test_dma_fault_is_an_event(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, b, gone;
	uint8_t *got = malloc(4 * KB);
	struct timespec ts;
	uint32_t len;
	int64_t t0;

	require_gaudi();
	assert_non_null(got);
	hltests_host_map(st->fd, &cb, 4096);
	hltests_host_map(st->fd, &b, 8192);
	fill(b.ptr, 8192, 21);
	/* A host VA that was mapped and no longer is */
	hltests_host_map(st->fd, &gone, 4096);
	hltests_host_unmap(st->fd, &gone);
	put_pattern(st->fd, SRAM_DATA, 4 * KB, 22);
	put_pattern(st->fd, SRAM_DATA + 8 * KB, 8 * KB, 23);

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	/* A copy, a read that faults, a copy after it */
	len = hltests_pkt_lin_dma(cb.ptr, b.va, SRAM_DATA + 8 * KB, 4 * KB);
	len += hltests_pkt_lin_dma(cb.ptr + len, gone.va, SRAM_DATA, 4 * KB);
	len += hltests_pkt_lin_dma(cb.ptr + len, b.va + 4 * KB,
				   SRAM_DATA + 12 * KB, 4 * KB);
	hltests_run_cb_ok(st->fd, hltests_dma_queue(), cb.va, len);
	hltests_assert_fault_at(st->fd, t0, gone.va, hltests_dma_queue(), 0);
	/* Nothing of the faulting read landed; both copies did */
	assert_pattern(st->fd, SRAM_DATA, 4 * KB, 22);
	hltests_read_device(st->fd, SRAM_DATA + 8 * KB, got, 4 * KB);
	assert_memory_equal(got, b.ptr, 4 * KB);
	hltests_read_device(st->fd, SRAM_DATA + 12 * KB, got, 4 * KB);
	assert_memory_equal(got, b.ptr + 4 * KB, 4 * KB);

	/* A write that faults, then a MEMSET: the same */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	len = hltests_pkt_lin_dma(cb.ptr, SRAM_DATA, gone.va, 4 * KB);
	len += hltests_pkt_memset(cb.ptr + len, SRAM_DATA + 8 * KB, 0, 8 * KB);
	hltests_run_cb_ok(st->fd, hltests_dma_queue(), cb.va, len);
	hltests_assert_fault_at(st->fd, t0, gone.va, hltests_dma_queue(), 1);
	assert_int_equal(nonzero_bytes(st->fd, SRAM_DATA + 8 * KB, 8 * KB), 0);

	hltests_host_unmap(st->fd, &b);
	hltests_host_unmap(st->fd, &cb);
	free(got);
}

/*
 * Hostile review of 905b0c7: a job of NFAULTS LIN_DMA packets that each
 * fault (reads of a host VA no longer mapped, then a write to it) still
 * completes, well within its timeout (no fault costs more than a packet),
 * the last fault recorded is the last packet's, and the copy at the end of
 * the job lands. The fault is the owner's: the device's next owner reads
 * none (HL_INFO_PAGE_FAULT_EVENT's timestamp 0).
 */
#define NFAULTS	4000

static void test_many_faults_then_next_owner(void **state)
{
	struct hltests_state *st = *state;
	struct hltests_host_buf cb, b, gone;
	struct hl_info_page_fault_event pf;
	uint8_t *got = malloc(4 * KB);
	struct timespec ts;
	uint64_t start;
	uint32_t len = 0;
	int64_t t0;
	int i;

	require_gaudi();
	assert_non_null(got);
	/* Device 0's owner, so that the next owner below opens the same */
	hlthunk_close(st->fd);
	st->fd = hltests_open_node(0, 0);
	assert_true(st->fd >= 0);

	hltests_host_map(st->fd, &cb, 160 * KB);
	hltests_host_map(st->fd, &b, 4 * KB);
	fill(b.ptr, 4 * KB, 31);
	hltests_host_map(st->fd, &gone, 4096);
	hltests_host_unmap(st->fd, &gone);
	put_pattern(st->fd, SRAM_DATA, 4 * KB, 32);

	for (i = 0; i < NFAULTS - 1; i++)
		len += hltests_pkt_lin_dma(cb.ptr + len, gone.va + i % 4096,
					   SRAM_DATA, 1 * MB);
	len += hltests_pkt_lin_dma(cb.ptr + len, SRAM_DATA, gone.va + 8, 4 * KB);
	len += hltests_pkt_lin_dma(cb.ptr + len, b.va, SRAM_DATA + 4 * KB,
				   4 * KB);
	assert_true(len <= 160 * KB);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	start = hltests_now_ns();
	hltests_run_cb_ok(st->fd, hltests_dma_queue(), cb.va, len);
	print_message("%d faulting packets: %.3f s\n", NFAULTS,
		      (hltests_now_ns() - start) / 1e9);
	hltests_assert_fault_at(st->fd, t0, gone.va + 8, hltests_dma_queue(),
				1);
	/* None of the faulting reads landed; the last copy did */
	assert_pattern(st->fd, SRAM_DATA, 4 * KB, 32);
	hltests_read_device(st->fd, SRAM_DATA + 4 * KB, got, 4 * KB);
	assert_memory_equal(got, b.ptr, 4 * KB);
	hltests_host_unmap(st->fd, &b);
	hltests_host_unmap(st->fd, &cb);
	free(got);

	/* The next owner of device 0 reads no fault */
	hlthunk_close(st->fd);
	st->fd = hltests_open_node(0, 0);
	assert_true(st->fd >= 0);
	pf = hltests_page_fault(st->fd);
	assert_int_equal(pf.timestamp, 0);
	assert_int_equal(pf.addr, 0);
}

/*
 * Review (issue 34): an open racing the owner's close (another thread
 * spinning on open while the owner closes) either waits, gets EBUSY, or
 * opens onto DRAM and SRAM with nothing of the old owner's in it. With
 * memory_scrub off the DRAM keeps it (the check can fail).
 */
struct opener {
	pthread_t t;
	volatile int go;
	int fd;
	int other;
};

static void *opener_thread(void *arg)
{
	struct opener *o = arg;
	int fd;

	while (!__atomic_load_n(&o->go, __ATOMIC_SEQ_CST))
		;
	for (;;) {
		fd = hltests_open_node(0, 0);
		if (fd >= 0 || fd != -EBUSY)
			break;
	}
	if (fd < 0)
		o->other = fd;
	o->fd = fd;
	return NULL;
}

static uint64_t racing_leftover(struct hltests_state *st, uint64_t dram,
				uint64_t dram_last)
{
	struct opener o;

	put_pattern(st->fd, dram, MB, 16);
	put_pattern(st->fd, dram_last, 64 * KB, 17);
	put_pattern(st->fd, SRAM_DATA, 64 * KB, 18);
	memset(&o, 0, sizeof(o));
	assert_int_equal(pthread_create(&o.t, NULL, opener_thread, &o), 0);
	__atomic_store_n(&o.go, 1, __ATOMIC_SEQ_CST);
	hlthunk_close(st->fd);
	assert_int_equal(pthread_join(o.t, NULL), 0);
	assert_int_equal(o.other, 0);
	st->fd = o.fd;
	assert_true(st->fd >= 0);
	assert_int_equal(nonzero_bytes(st->fd, SRAM_DATA, 64 * KB), 0);
	return nonzero_bytes(st->fd, dram, MB) +
	       nonzero_bytes(st->fd, dram_last, 64 * KB);
}

static void test_open_racing_close_sees_nothing_old(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_hw_ip_info hw;
	uint64_t dram, last;
	int i;

	require_gaudi();
	hw = hw_ip(st->fd);
	dram = hw.dram_base_address + 96 * MB;
	last = hw.dram_base_address + hw.dram_size - 64 * KB;

	for (i = 0; i < 3; i++)
		assert_int_equal(racing_leftover(st, dram, last), 0);
	/* Negative control: unscrubbed, the racing opener reads old data */
	hltests_param_set("memory_scrub", "0", NULL, 0);
	assert_true(racing_leftover(st, dram, last) > MB / 2);
	hltests_param_set("memory_scrub", "1", NULL, 0);
	assert_int_equal(racing_leftover(st, dram, last), 0);
}

/*
 * Review (issue 34): a hard reset while the owner's DRAM is exported. The
 * export is revoked, but it still holds the DRAM: no new owner while the
 * dma-buf lives (EBUSY, also once the dead file is closed); once it goes,
 * the next owner finds the DRAM and the SRAM clean.
 */
static void test_export_across_hard_reset(void **state)
{
	struct hltests_state *st = *state;
	struct hl_info_hw_ip_info hw;
	uint64_t dram;
	int dmabuf;

	require_gaudi();
	hw = hw_ip(st->fd);
	dram = hw.dram_base_address + 6 * MB;

	put_pattern(st->fd, dram, 64 * KB, 19);
	put_pattern(st->fd, SRAM_DATA, 64 * KB, 20);
	dmabuf = export_addr(st->fd, dram, 2 * MB, 0);
	assert_true(dmabuf >= 0);
	assert_int_equal(hltests_write_file("/sys/class/habanalabs/hl0/hard_reset",
					    "1"), 0);
	/* The old file is dead; the export still holds the DRAM */
	assert_int_equal(hltests_info(st->fd, HL_INFO_HW_IP_INFO, &hw,
				      sizeof(hw)), -ENODEV);
	assert_int_equal(hltests_open_node(0, 0), -EBUSY);
	hlthunk_close(st->fd);
	st->fd = -1;
	assert_int_equal(hltests_open_node(0, 0), -EBUSY);
	close(dmabuf);

	st->fd = hltests_open_node(0, 0);
	assert_true(st->fd >= 0);
	assert_int_equal(nonzero_bytes(st->fd, dram, 64 * KB), 0);
	assert_int_equal(nonzero_bytes(st->fd, SRAM_DATA, 64 * KB), 0);
}

/*
 * Review (issue 34): debugfs's data32/data64 at the edges: the last bytes
 * of SRAM and DRAM are reachable, a byte further is not; the driver's HBM
 * (the SRAM's backing, the page tables) by its address, host-range VAs
 * (even of the owner's mappings), the top of the address space and
 * unaligned registers are EINVAL, and nothing is written.
 */
static void test_debugfs_edges(void **state)
{
	struct hltests_state *st = *state;
	uint64_t sram_end = GAUDI_SRAM_BASE + GAUDI_SRAM_SIZE;
	struct hl_info_hw_ip_info hw;
	struct hltests_host_buf b;
	uint64_t base, end, val, i;
	uint8_t before[64], after[64];
	uint32_t v32;

	require_gaudi();
	hw = hw_ip(st->fd);
	base = hw.dram_base_address;
	end = base + hw.dram_size;

	assert_int_equal(dbg_write(DBG_DIR "data32", sram_end - 4, 0xa5a5a5a5), 0);
	hltests_read_device(st->fd, sram_end - 4, &v32, 4);
	assert_int_equal(v32, 0xa5a5a5a5);
	assert_int_equal(dbg_read(DBG_DIR "data64", sram_end - 8, &val), 0);
	assert_int_equal(val >> 32, 0xa5a5a5a5);
	assert_int_equal(dbg_read(DBG_DIR "data32", sram_end - 2, &val), -EINVAL);
	assert_int_equal(dbg_write(DBG_DIR "data64", sram_end - 6, 1), -EINVAL);
	assert_int_equal(dbg_read(DBG_DIR "data32", end - 4, &val), 0);
	assert_int_equal(dbg_write(DBG_DIR "data32", end - 2, 1), -EINVAL);
	assert_int_equal(dbg_write(DBG_DIR "data64", end - 6, 1), -EINVAL);

	/* The SRAM's backing by its HBM address: first and last bytes */
	hltests_read_device(st->fd, GAUDI_SRAM_BASE, before, sizeof(before));
	assert_int_equal(dbg_write(DBG_DIR "data64", base - GAUDI_SRAM_SIZE,
				   0x1122334455667788ull), -EINVAL);
	assert_int_equal(dbg_write(DBG_DIR "data32", base - 4, 1), -EINVAL);
	assert_int_equal(dbg_read(DBG_DIR "data64", base - GAUDI_SRAM_SIZE,
				  &val), -EINVAL);
	hltests_read_device(st->fd, GAUDI_SRAM_BASE, after, sizeof(after));
	assert_memory_equal(before, after, sizeof(before));
	/* The page tables, and the top of the address space */
	assert_int_equal(dbg_write(DBG_DIR "data64", 8, 0), -EINVAL);
	assert_int_equal(dbg_read(DBG_DIR "data64", ~0ull - 7, &val), -EINVAL);
	assert_int_equal(dbg_read(DBG_DIR "data32", ~0ull - 3, &val), -EINVAL);

	/* A host-range VA of the owner's own mapping: no host access */
	hltests_host_map(st->fd, &b, 4096);
	memset(b.ptr, 0x3c, 4096);
	assert_int_equal(dbg_write(DBG_DIR "data32", b.va, 0), -EINVAL);
	assert_int_equal(dbg_write(DBG_DIR "data64", b.va + 8, 0), -EINVAL);
	assert_int_equal(dbg_read(DBG_DIR "data32", b.va, &val), -EINVAL);
	for (i = 0; i < 4096; i++)
		assert_int_equal(b.ptr[i], 0x3c);
	hltests_host_unmap(st->fd, &b);

	/* An unaligned register */
	assert_int_equal(dbg_write(DBG_DIR "data32", HL_SM_SOB_OBJ_0 + 2, 1),
			 -EINVAL);
	assert_int_equal(dbg_read(DBG_DIR "data32", HL_SM_SOB_OBJ_0 + 1, &val),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hw_ip_reports_gaudi_memory,
						gaudi_setup, hltests_teardown),
		cmocka_unit_test_setup_teardown(test_alloc_accounts_only,
						gaudi_setup, hltests_teardown),
		cmocka_unit_test_setup_teardown(test_memalloc_page_orders_none,
						gaudi_setup, hltests_teardown),
		cmocka_unit_test_setup_teardown(test_dram_physical_copies,
						gaudi_setup, hltests_teardown),
		cmocka_unit_test_setup_teardown(test_sram_copies_and_cb,
						gaudi_setup, hltests_teardown),
		cmocka_unit_test_setup_teardown(test_reserved_ranges_refused,
						gaudi_setup, hltests_teardown),
		cmocka_unit_test_setup_teardown(test_second_owner_refused,
						gaudi_setup, hltests_teardown),
		cmocka_unit_test_setup_teardown(test_scrub_between_owners,
						gaudi_setup, hltests_teardown),
		cmocka_unit_test_setup_teardown(test_export_by_dram_address,
						gaudi_setup, hltests_teardown),
		cmocka_unit_test_setup_teardown(test_debugfs_register_access,
						gaudi_setup, hltests_teardown),
		cmocka_unit_test_setup_teardown(test_runs_past_the_ends_fault,
						gaudi_setup, hltests_teardown),
		cmocka_unit_test_setup_teardown(test_dma_fault_is_an_event,
						gaudi_setup, hltests_teardown),
		cmocka_unit_test_setup_teardown(test_many_faults_then_next_owner,
						gaudi_setup, hltests_teardown),
		cmocka_unit_test_setup_teardown(test_open_racing_close_sees_nothing_old,
						gaudi_setup, hltests_teardown),
		cmocka_unit_test_setup_teardown(test_export_across_hard_reset,
						gaudi_setup, hltests_teardown),
		cmocka_unit_test_setup_teardown(test_debugfs_edges,
						gaudi_setup, hltests_teardown),
	};

	return HLTESTS_RUN("gaudi_mem", tests);
}

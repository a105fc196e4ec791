/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers of the cmocka suites. Each suite is one binary per area
 * (tests/<area>/<area>.c; nic is a file per concern, tests/nic/nic.c lists
 * them, with its fixtures in hltests_nic.h) with test_<behaviour> functions
 * in an <area>_tests[] table; they run inside the test VM (dev/hlvm)
 * against the real driver.
 */
#ifndef HLTESTS_H
#define HLTESTS_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/ioctl.h>
#include <time.h>

#include "hlthunk.h"

/**
 * struct hltests_state - what setup hands to each test.
 * @fd: the compute node of device 0, opened with hlthunk_open().
 * @hw_ip: its HW IP info.
 */
struct hltests_state {
	int fd;
	struct hl_info_hw_ip_info hw_ip;
};

/* Number of /dev/hlN nodes */
int hltests_num_devices(void);

/* open("/dev/hl%d" or "/dev/hl_controlD%d"); returns fd or -errno */
int hltests_open_node(int idx, int control);

/*
 * Raw ioctl with an explicit argument size (for the extensible-struct
 * tests); returns 0 or -errno.
 */
int hltests_ioctl_sized(int fd, unsigned long request, size_t size, void *arg);

/* Raw HL_IOCTL_INFO; returns 0 or -errno */
int hltests_info(int fd, uint32_t op, void *buf, uint32_t size);

/* Read a whole small text file into buf (NUL-terminated, trailing newline
 * removed); returns 0 or -errno */
int hltests_read_file(const char *path, char *buf, size_t size);

/* The open file descriptors of this process, or -1 if it cannot tell */
int hltests_count_fds(void);

/* Write a string to a (sysfs) file; returns 0 or -errno */
int hltests_write_file(const char *path, const char *text);

/* CLOCK_MONOTONIC (hltests_now_ns) or another clock @clk, in ns */
uint64_t hltests_clock_ns(clockid_t clk);

static inline uint64_t hltests_now_ns(void)
{
	return hltests_clock_ns(CLOCK_MONOTONIC);
}

/* CLOCK_MONOTONIC in seconds */
static inline double hltests_now_s(void)
{
	return hltests_now_ns() / 1e9;
}

/*
 * Module parameter @name of habanalabs: hltests_param_get() reads it (a
 * number), hltests_param_set() writes @value and, with @old, first reads
 * the old value into @old (@size bytes) for the caller to write back; both
 * fail the test when the file cannot be read or written
 */
long hltests_param_get(const char *name);
/* Its text, as hltests_read_file() reads it (0 or -errno) */
int hltests_param_read(const char *name, char *buf, size_t size);
/*
 * The identity the driver was loaded with (module parameter asic): true
 * for "gaudi", false for the default "emu"; anything else fails the test.
 */
bool hltests_identity_gaudi(void);
/*
 * asic=gaudi: GAUDI's queue managers at GAUDI's addresses (golden, from
 * upstream's asic_reg headers): the base of @queue's, and its registers
 */
#define HLTESTS_GAUDI_LOWER_CP	4
uint64_t hltests_gaudi_qm(uint32_t queue);
uint64_t hltests_gaudi_fence_reg(uint32_t queue, uint32_t stream, uint32_t id);
uint64_t hltests_gaudi_msg_base_reg(uint32_t queue, uint32_t stream,
				    uint32_t base);
uint64_t hltests_gaudi_engine_block(uint32_t queue);
void hltests_param_set(const char *name, const char *value, char *old,
		       size_t size);

/* The next @n successful ioctls of device 0 fail their copy back (debugfs) */
void hltests_fail_copy_out(unsigned int n);

/* PCI address of device idx, e.g. "0000:00:04.0"; returns 0 or -errno */
int hltests_pci_addr(int idx, char *buf, size_t size);

/* Setup/teardown that open and close device 0's compute node */
int hltests_setup(void **state);
int hltests_teardown(void **state);

/*
 * The RDMA core's importer, tests/importer/hl_umem.ko, on the VM's one edu
 * device (hl_importer's otherwise). hltests_umem_start() loads ib_uverbs
 * ($HLTESTS_MODPROBE or modprobe) and the module ($HLTESTS_UMEM_KO, default
 * tests/importer/hl_umem.ko beside tests/bin) unless it is loaded, and
 * binds edu to it (driver_override): 0, 1 when this kernel has no
 * ib_uverbs (the reason printed), -1 on failure. hltests_umem_stop() gives
 * edu back to whichever driver matches it and unloads the module if
 * hltests_umem_start() loaded it: 0 or -1.
 */
int hltests_umem_start(void);
int hltests_umem_stop(void);

/* modprobe ($HLTESTS_MODPROBE or modprobe) a module; 0 when loaded */
int hltests_modprobe(const char *name);

/*
 * Runs a suite. Skips it all, with the reason printed, when the VM has no
 * device (a suite run on a machine without the driver).
 */
int hltests_run_group(const char *name, const struct CMUnitTest *tests,
		      size_t num_tests);

#define HLTESTS_RUN(name, tests) \
	hltests_run_group(name, tests, sizeof(tests) / sizeof((tests)[0]))


/* ---- device memory and DMA jobs (tests/common/hltests_dma.c) ---- */

/**
 * struct hltests_host_buf - page-aligned host memory mapped to the device.
 * @ptr: CPU address.
 * @va: device virtual address.
 * @size: bytes.
 */
struct hltests_host_buf {
	uint8_t *ptr;
	uint64_t va;
	uint64_t size;
};

/**
 * struct hltests_dram_buf - device memory, allocated and mapped.
 * @handle: the allocation.
 * @va: device virtual address.
 * @size: bytes.
 */
struct hltests_dram_buf {
	uint64_t handle;
	uint64_t va;
	uint64_t size;
};

/* xorshift64 PRNG with an explicit state, for reproducible patterns */
uint64_t hltests_prng(uint64_t *state);
void hltests_fill_random(uint64_t *state, uint8_t *p, uint64_t n);

/* Fail the test at the first differing byte, saying where */
void hltests_assert_bytes_equal(const uint8_t *found, const uint8_t *expected,
				uint64_t n, const char *what);

void hltests_host_map(int fd, struct hltests_host_buf *b, uint64_t size);
void hltests_host_unmap(int fd, struct hltests_host_buf *b);
void hltests_dram_map(int fd, struct hltests_dram_buf *d, uint64_t size,
		      bool contiguous);
void hltests_dram_unmap(int fd, struct hltests_dram_buf *d);

/*
 * Copy @size bytes from device VA @src to @dst with one LIN_DMA job on
 * queue 0 and wait for it (fails the test unless it completes).
 */
void hltests_dma(int fd, uint64_t src, uint64_t dst, uint64_t size);
/*
 * The format the queues speak: GAUDI's under asic=gaudi (docs/gaudi.md),
 * else this project's; the helpers' DMA jobs then run on DMA_2_0 (an
 * internal queue: DMA 0-1 take kernel CBs), else on queue 0. The packet
 * builders write 32 bytes in either format.
 */
bool hltests_gaudi_format(void);
uint32_t hltests_dma_queue(void);
uint32_t hltests_pkt_lin_dma(void *buf, uint64_t src, uint64_t dst,
			     uint64_t size);
uint32_t hltests_pkt_memset(void *buf, uint64_t dst, uint64_t value,
			    uint64_t size);

/*
 * Submit the LIN_DMA without waiting; returns the CS sequence number. The
 * command buffer stays mapped in @cb: hltests_host_unmap() it after the CS.
 */
uint64_t hltests_dma_async(int fd, uint64_t src, uint64_t dst, uint64_t size,
			   struct hltests_host_buf *cb);

/* Fill device memory at @dst with @size bytes of @data (via a bounce) */
void hltests_write_device(int fd, uint64_t dst, const void *data,
			  uint64_t size);
/* Read @size bytes of device memory at @src into @data (via a bounce) */
void hltests_read_device(int fd, uint64_t src, void *data, uint64_t size);

/* A field "key: value" of /sys/kernel/debug/habanalabs/<bdf>/info */
long long hltests_debugfs_value(int dev, const char *key);

/*
 * Submit one command buffer of @cb_size bytes at device VA @cb_va to
 * @queue (@timeout_s 0: the driver's default); fails the test unless the
 * submission is accepted. Returns the sequence number.
 */
uint64_t hltests_submit_cb(int fd, uint32_t queue, uint64_t cb_va,
			   uint32_t cb_size, uint32_t timeout_s);

/* Submit and wait; returns the wait's rc, *status the CS status */
int hltests_run_cb(int fd, uint32_t queue, uint64_t cb_va, uint32_t cb_size,
		   uint32_t *status);

/* Submit and wait; fail unless the CS completes / is aborted (-EIO) */
void hltests_run_cb_ok(int fd, uint32_t queue, uint64_t cb_va,
		       uint32_t cb_size);
void hltests_run_cb_aborted(int fd, uint32_t queue, uint64_t cb_va,
			    uint32_t cb_size);

/* The context's last MMU fault (HL_INFO_PAGE_FAULT_EVENT) */
struct hl_info_page_fault_event hltests_page_fault(int fd);

/* Fail unless the last MMU fault is after @after (ns) at @addr by @queue */
void hltests_assert_fault_at(int fd, int64_t after, uint64_t addr,
			     uint32_t queue, uint32_t is_write);

/* ---- dma-buf exports and importers (tests/common/hltests_export.c) ---- */

/* ioctl() with 0 or -errno */
int hltests_ioctl(int fd, unsigned long req, void *arg);

/* Raw HL_IOCTL_MEMORY, HL_IOCTL_CS and HL_IOCTL_WAIT_CS: 0 or -errno */
static inline int hltests_mem_ioctl(int fd, union hl_mem_args *args)
{
	return ioctl(fd, HL_IOCTL_MEMORY, args) ? -errno : 0;
}

static inline int hltests_cs_ioctl(int fd, union hl_cs_args *args)
{
	return ioctl(fd, HL_IOCTL_CS, args) ? -errno : 0;
}

static inline int hltests_wait_ioctl(int fd, union hl_wait_cs_args *args)
{
	return ioctl(fd, HL_IOCTL_WAIT_CS, args) ? -errno : 0;
}

/**
 * struct hltests_export - device memory with a known pattern, exported.
 * @dram: the allocation, mapped.
 * @pattern: what the accelerator wrote, the whole allocation.
 * @size: the allocation's size.
 * @dmabuf: the dma-buf's fd.
 */
struct hltests_export {
	struct hltests_dram_buf dram;
	uint8_t *pattern;
	uint64_t size;
	int dmabuf;
};

/*
 * Allocate @size of DRAM (@contiguous), have the accelerator write a random
 * pattern from @seed into it (a DMA job from host memory), and export
 * [@offset, @offset + @len) read-write, close-on-exec.
 */
void hltests_export_pattern(int fd, struct hltests_export *e, uint64_t size,
			    bool contiguous, uint64_t offset, uint64_t len,
			    uint64_t seed);
/* Close the dma-buf, unmap and free the allocation (not for @fd < 0) */
void hltests_export_release(int fd, struct hltests_export *e);

/* The device's free DRAM and the context's DRAM (HL_INFO_DRAM_USAGE) */
uint64_t hltests_dram_free(int fd);
uint64_t hltests_ctx_dram(int fd);

/**
 * struct hltests_import_fixture - what an importer suite's setup hands to
 * each test.
 * @st: device 0's compute node, as hltests_setup() opens it.
 * @ifd: the test importer's node.
 */
struct hltests_import_fixture {
	struct hltests_state st;
	int ifd;
};

/*
 * Setup: hltests_setup() and open @node; -1 (with @hint after the error)
 * when it cannot be opened.
 */
int hltests_import_setup(void **state, const char *node, const char *hint);
/* Teardown: close both */
void hltests_import_teardown(void **state);

#endif /* HLTESTS_H */

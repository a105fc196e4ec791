// SPDX-License-Identifier: MIT
/*
 * Shared helpers of the device suites: memory, DMA jobs, patterns.
 */
#include "hltests.h"

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HLTESTS_PAGE		4096ull
#define HLTESTS_WAIT_US		(120ull * 1000 * 1000)

uint64_t hltests_prng(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

void hltests_fill_random(uint64_t *state, uint8_t *p, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(hltests_prng(state) >> 24);
}

void hltests_assert_bytes_equal(const uint8_t *found, const uint8_t *expected,
				uint64_t n, const char *what)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (found[i] != expected[i]) {
			print_error("%s: byte %" PRIu64 " of %" PRIu64
				    " is 0x%02x, expected 0x%02x\n", what, i, n,
				    found[i], expected[i]);
			fail();
		}
	}
}

void hltests_host_map(int fd, struct hltests_host_buf *b, uint64_t size)
{
	void *p = NULL;

	b->size = size;
	assert_int_equal(posix_memalign(&p, HLTESTS_PAGE,
					(size + HLTESTS_PAGE - 1) & ~(HLTESTS_PAGE - 1)), 0);
	b->ptr = p;
	memset(b->ptr, 0, size);
	b->va = hlthunk_host_memory_map(fd, b->ptr, 0, size);
	if (!b->va)
		print_error("host map of %" PRIu64 " bytes: %s\n", size,
			    strerror(errno));
	assert_int_not_equal(b->va, 0);
}

void hltests_host_unmap(int fd, struct hltests_host_buf *b)
{
	assert_int_equal(hlthunk_memory_unmap(fd, b->va), 0);
	free(b->ptr);
	b->ptr = NULL;
}

void hltests_dram_map(int fd, struct hltests_dram_buf *d, uint64_t size,
		      bool contiguous)
{
	d->size = size;
	d->handle = hlthunk_device_memory_alloc(fd, size, 0, contiguous, false);
	if (!d->handle)
		print_error("DRAM alloc of %" PRIu64 " bytes: %s\n", size,
			    strerror(errno));
	assert_int_not_equal(d->handle, 0);
	d->va = hlthunk_device_memory_map(fd, d->handle, 0);
	assert_int_not_equal(d->va, 0);
}

void hltests_dram_unmap(int fd, struct hltests_dram_buf *d)
{
	assert_int_equal(hlthunk_memory_unmap(fd, d->va), 0);
	assert_int_equal(hlthunk_device_memory_free(fd, d->handle), 0);
}

uint64_t hltests_submit_cb(int fd, uint32_t queue, uint64_t cb_va,
			   uint32_t cb_size, uint32_t timeout_s)
{
	struct hlthunk_cs_in in;
	struct hlthunk_cs_out out;
	struct hl_cs_chunk chunk;

	memset(&chunk, 0, sizeof(chunk));
	chunk.cb_handle = cb_va;
	chunk.queue_index = queue;
	chunk.cb_size = cb_size;
	memset(&in, 0, sizeof(in));
	in.chunks_execute = &chunk;
	in.num_chunks_execute = 1;
	assert_int_equal(hlthunk_command_submission_timeout(fd, &in, &out,
							    timeout_s), 0);
	assert_int_equal(out.status, HL_CS_STATUS_SUCCESS);
	assert_int_not_equal(out.seq, 0);
	return out.seq;
}

int hltests_run_cb(int fd, uint32_t queue, uint64_t cb_va, uint32_t cb_size,
		   uint32_t *status)
{
	uint64_t seq = hltests_submit_cb(fd, queue, cb_va, cb_size, 0);

	*status = 0xdead;
	return hlthunk_wait_for_cs(fd, seq, HLTESTS_WAIT_US, status);
}

void hltests_run_cb_ok(int fd, uint32_t queue, uint64_t cb_va,
		       uint32_t cb_size)
{
	uint32_t status;

	assert_int_equal(hltests_run_cb(fd, queue, cb_va, cb_size, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
}

void hltests_run_cb_aborted(int fd, uint32_t queue, uint64_t cb_va,
			    uint32_t cb_size)
{
	uint32_t status;

	assert_int_equal(hltests_run_cb(fd, queue, cb_va, cb_size, &status),
			 -EIO);
	assert_int_equal(status, HL_WAIT_CS_STATUS_ABORTED);
}

struct hl_info_page_fault_event hltests_page_fault(int fd)
{
	struct hl_info_page_fault_event pf;

	memset(&pf, 0xff, sizeof(pf));
	assert_int_equal(hlthunk_get_page_fault_event(fd, &pf), 0);
	return pf;
}

void hltests_assert_fault_at(int fd, int64_t after, uint64_t addr,
			     uint32_t queue, uint32_t is_write)
{
	struct hl_info_page_fault_event pf = hltests_page_fault(fd);
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	assert_true(pf.timestamp > after);
	assert_true(pf.timestamp <= (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
	assert_int_equal(pf.addr, addr);
	assert_int_equal(pf.engine_id, queue);
	assert_int_equal(pf.is_write, is_write);
}

bool hltests_gaudi_format(void)
{
	return hltests_identity_gaudi();
}

uint32_t hltests_dma_queue(void)
{
	return hltests_gaudi_format() ? GAUDI_QUEUE_ID_DMA_2_0 : 0;
}

/* GAUDI's LIN_DMA (24 bytes) and a NOP: 32 bytes, as this project's */
static uint32_t hltests_gaudi_lin_dma(void *buf, uint64_t src, uint64_t dst,
				      uint64_t size, bool mem_set)
{
	uint32_t g[8] = {
		htole32((uint32_t)size),
		htole32(HL_GAUDI_PKT_CTL(HL_GAUDI_PKT_LIN_DMA) | 1u << 3 |
			(mem_set ? 1u << 4 : 0)),
		htole32((uint32_t)src),
		htole32((uint32_t)(src >> 32)),
		htole32((uint32_t)dst),
		htole32((uint32_t)(dst >> 32)),
		0,
		htole32(HL_GAUDI_PKT_CTL(HL_GAUDI_PKT_NOP)),
	};

	assert_true(size <= UINT32_MAX);
	memcpy(buf, g, sizeof(g));
	return sizeof(g);
}

uint32_t hltests_pkt_lin_dma(void *buf, uint64_t src, uint64_t dst,
			     uint64_t size)
{
	if (hltests_gaudi_format())
		return hltests_gaudi_lin_dma(buf, src, dst, size, false);
	return hlthunk_pkt_lin_dma(buf, src, dst, size);
}

uint32_t hltests_pkt_memset(void *buf, uint64_t dst, uint64_t value,
			    uint64_t size)
{
	if (hltests_gaudi_format())
		return hltests_gaudi_lin_dma(buf, value, dst, size, true);
	return hlthunk_pkt_memset(buf, dst, value, size);
}

/*
 * The command buffer of a helper job lives in its own small host mapping,
 * made and dropped per job: simple, and every job also exercises MAP/UNMAP.
 */
static uint64_t hltests_dma_submit(int fd, uint64_t src, uint64_t dst,
				   uint64_t size, struct hltests_host_buf *cb)
{
	uint32_t len;

	hltests_host_map(fd, cb, HLTESTS_PAGE);
	len = hltests_pkt_lin_dma(cb->ptr, src, dst, size);
	return hltests_submit_cb(fd, hltests_dma_queue(), cb->va, len, 0);
}

uint64_t hltests_dma_async(int fd, uint64_t src, uint64_t dst, uint64_t size,
			   struct hltests_host_buf *cb)
{
	return hltests_dma_submit(fd, src, dst, size, cb);
}

void hltests_dma(int fd, uint64_t src, uint64_t dst, uint64_t size)
{
	struct hltests_host_buf cb;
	uint64_t seq = hltests_dma_submit(fd, src, dst, size, &cb);
	uint32_t status = 0xdead;

	assert_int_equal(hlthunk_wait_for_cs(fd, seq, HLTESTS_WAIT_US, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);
	hltests_host_unmap(fd, &cb);
}

void hltests_write_device(int fd, uint64_t dst, const void *data,
			  uint64_t size)
{
	struct hltests_host_buf b;

	hltests_host_map(fd, &b, size);
	memcpy(b.ptr, data, size);
	hltests_dma(fd, b.va, dst, size);
	hltests_host_unmap(fd, &b);
}

void hltests_read_device(int fd, uint64_t src, void *data, uint64_t size)
{
	struct hltests_host_buf b;

	hltests_host_map(fd, &b, size);
	hltests_dma(fd, src, b.va, size);
	memcpy(data, b.ptr, size);
	hltests_host_unmap(fd, &b);
}

long long hltests_debugfs_value(int dev, const char *key)
{
	char busid[32], path[160], buf[2048], *p;

	assert_int_equal(hltests_pci_addr(dev, busid, sizeof(busid)), 0);
	snprintf(path, sizeof(path), "/sys/kernel/debug/habanalabs/%s/info",
		 busid);
	assert_int_equal(hltests_read_file(path, buf, sizeof(buf)), 0);
	p = strstr(buf, key);
	assert_non_null(p);
	return strtoll(p + strlen(key) + 1, NULL, 0);
}

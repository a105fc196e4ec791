// SPDX-License-Identifier: MIT
/*
 * Shared helpers of the dma-buf export suites (dmabuf, umem): an allocation
 * with a known pattern exported as a dma-buf, and the fixture that opens
 * the device and a test importer's node.
 */
#include "hltests.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int hltests_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

void hltests_export_pattern(int fd, struct hltests_export *e, uint64_t size,
			    bool contiguous, uint64_t offset, uint64_t len,
			    uint64_t seed)
{
	uint64_t state = seed;

	hltests_dram_map(fd, &e->dram, size, contiguous);
	e->size = size;
	e->pattern = malloc(size);
	assert_non_null(e->pattern);
	hltests_fill_random(&state, e->pattern, size);
	hltests_write_device(fd, e->dram.va, e->pattern, size);
	e->dmabuf = hlthunk_device_mapped_memory_export_dmabuf_fd(fd, e->dram.va,
								  len, offset,
								  O_RDWR | O_CLOEXEC);
	if (e->dmabuf < 0)
		print_error("export: %s\n", strerror(-e->dmabuf));
	assert_true(e->dmabuf >= 0);
}

void hltests_export_release(int fd, struct hltests_export *e)
{
	if (e->dmabuf >= 0)
		close(e->dmabuf);
	if (fd >= 0)
		hltests_dram_unmap(fd, &e->dram);
	free(e->pattern);
}

uint64_t hltests_dram_free(int fd)
{
	struct hlthunk_dram_usage_info u;

	assert_int_equal(hlthunk_get_dram_usage(fd, &u), 0);
	return u.dram_free_mem;
}

uint64_t hltests_ctx_dram(int fd)
{
	struct hlthunk_dram_usage_info u;

	assert_int_equal(hlthunk_get_dram_usage(fd, &u), 0);
	return u.ctx_dram_mem;
}

int hltests_import_setup(void **state, const char *node, const char *hint)
{
	struct hltests_import_fixture *f;
	void *st = NULL;

	if (hltests_setup(&st))
		return -1;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	f->st = *(struct hltests_state *)st;
	free(st);
	f->ifd = open(node, O_RDWR | O_CLOEXEC);
	if (f->ifd < 0) {
		print_error("%s: %s%s\n", node, strerror(errno), hint);
		hlthunk_close(f->st.fd);
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

void hltests_import_teardown(void **state)
{
	struct hltests_import_fixture *f = *state;

	if (f) {
		if (f->ifd >= 0)
			close(f->ifd);
		if (f->st.fd >= 0)
			hlthunk_close(f->st.fd);
		free(f);
	}
}

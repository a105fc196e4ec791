// SPDX-License-Identifier: MIT
/*
 * consumer: libhlthunk as hl-thunk's users see it. Built against the
 * installed library only, exactly as a consumer builds (tests/Makefile
 * installs lib/hlthunk into a DESTDIR staging prefix and compiles this file
 * with -I<stage>/include and -L<stage>/lib -lhl-thunk: no include path or
 * library of the tree), in the shape of perftest's Habana memory backend
 * (linux-rdma/perftest src/hl_memory.c, ib_write_bw --use_hl):
 *
 *   hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, <PCI bus id>)
 *   hlthunk_device_memory_alloc(fd, size, 0, HL_MEM_CONTIGUOUS, false)
 *   hlthunk_device_memory_map(fd, handle, 0)
 *   hlthunk_device_mapped_memory_export_dmabuf_fd(fd, va, size, offset,
 *                                                 O_RDWR | O_CLOEXEC)
 *   ... the dma-buf goes to the RDMA stack (ibv_reg_dmabuf_mr) ...
 *   hlthunk_memory_unmap(fd, va), hlthunk_device_memory_free(fd, handle),
 *   hlthunk_close(fd)
 *
 * The RDMA NIC of perftest is played by the test importer (tests/importer:
 * QEMU's edu device reading the dma-buf through the IOMMU); its uAPI header
 * is included by relative path, as a consumer includes its verbs header.
 * To have something to read, the buffer is first filled by a DMA job,
 * through the installed API as well.
 *
 * Environment: HL_CONSUMER_BUSID, the PCI bus id to open (default: the
 * device of /dev/hl_controlD0, as perftest's --use_hl=<bus id>).
 */

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cmocka.h>

/*
 * Debian's linux-libc-dev header first, as a program that also speaks to
 * the upstream driver includes it: the installed <habanalabs/hlthunk.h>
 * lives beside it (its uAPI is <habanalabs/habanalabs_uapi.h>, with a
 * guard of its own), and the types both define are upstream's here.
 */
#include <misc/habanalabs.h>
#include <habanalabs/hlthunk.h>

#include "../importer/hl_importer.h"

#define ACCEL_PAGE_SIZE	4096ull		/* perftest's rounding */
#define HOST_PAGE	4096ull
#define WAIT_US		(30ull * 1000 * 1000)

/* The buffer: perftest rounds up to 4 KiB, the driver to its DRAM page */
#define BUF_SIZE	(3 * (2ull << 20) + 100)
/* The exported sub-range, at an offset from the mapping */
#define EXP_OFFSET	((2ull << 20) - 2 * ACCEL_PAGE_SIZE)
#define EXP_SIZE	(4 * ACCEL_PAGE_SIZE)
/* The bytes the importer reads: across the 2 MiB page boundary */
#define READ_OFFSET	(2 * ACCEL_PAGE_SIZE - 2048)
#define READ_SIZE	4096ull

/**
 * struct consumer - what perftest's hl_memory_ctx keeps, plus the fill.
 * @busid: the PCI bus id opened.
 * @fd: the device fd.
 * @handle: the allocation's handle.
 * @va: its device VA.
 * @buf_size: bytes allocated.
 */
struct consumer {
	char busid[HLTHUNK_PCI_BUS_ID_LEN];
	int fd;
	uint64_t handle;
	uint64_t va;
	uint64_t buf_size;
};

static uint8_t pattern_byte(uint64_t off)
{
	return (uint8_t)((off * 131) ^ (off >> 9) ^ 0x5a);
}

/* perftest's hl_memory_init: open by PCI bus id, any device type */
static int setup(void **state)
{
	struct consumer *c = calloc(1, sizeof(*c));
	const char *env = getenv("HL_CONSUMER_BUSID");
	int cfd;

	if (!c)
		return -1;
	if (env) {
		snprintf(c->busid, sizeof(c->busid), "%s", env);
	} else {
		cfd = hlthunk_open_control(0, NULL);
		if (cfd < 0 || hlthunk_get_pci_bus_id_from_fd(cfd, c->busid,
							      sizeof(c->busid))) {
			print_error("no device: %s\n", strerror(-cfd));
			free(c);
			return -1;
		}
		hlthunk_close(cfd);
	}

	c->fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, c->busid);
	if (c->fd < 0) {
		print_error("hlthunk_open(DONT_CARE, %s): %s\n", c->busid,
			    strerror(-c->fd));
		free(c);
		return -1;
	}
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct consumer *c = *state;
	int rc = hlthunk_close(c->fd);

	free(c);
	return rc;
}

/* perftest's hl_memory_allocate_buffer up to the export */
static void alloc_and_map(struct consumer *c)
{
	const uint64_t page_size = 0;
	const bool not_shared = false;

	c->buf_size = (BUF_SIZE + ACCEL_PAGE_SIZE - 1) & ~(ACCEL_PAGE_SIZE - 1);
	c->handle = hlthunk_device_memory_alloc(c->fd, c->buf_size, page_size,
						HL_MEM_CONTIGUOUS, not_shared);
	assert_true(c->handle != 0);
	c->va = hlthunk_device_memory_map(c->fd, c->handle, 0);
	assert_true(c->va != 0);
}

/* perftest's hl_memory_free_buffer */
static void unmap_and_free(struct consumer *c)
{
	assert_int_equal(hlthunk_memory_unmap(c->fd, c->va), 0);
	assert_int_equal(hlthunk_device_memory_free(c->fd, c->handle), 0);
}

/* Fill [va + off, + size) with the pattern by a DMA job from host memory */
static void fill(struct consumer *c, uint64_t off, uint64_t size)
{
	struct hlthunk_cs_out out;
	struct hlthunk_cs_in in;
	struct hl_cs_chunk chunk;
	uint64_t i, src_va, cb_va;
	uint8_t *src = NULL, *cb = NULL;
	uint32_t status, n;

	assert_int_equal(posix_memalign((void **)&src, HOST_PAGE, size), 0);
	assert_int_equal(posix_memalign((void **)&cb, HOST_PAGE, HOST_PAGE), 0);
	for (i = 0; i < size; i++)
		src[i] = pattern_byte(off + i);
	src_va = hlthunk_host_memory_map(c->fd, src, 0, size);
	assert_true(src_va != 0);
	cb_va = hlthunk_host_memory_map(c->fd, cb, 0, HOST_PAGE);
	assert_true(cb_va != 0);

	n = hlthunk_pkt_lin_dma(cb, src_va, c->va + off, size);
	memset(&chunk, 0, sizeof(chunk));
	chunk.cb_handle = cb_va;
	chunk.queue_index = 0;
	chunk.cb_size = n;
	memset(&in, 0, sizeof(in));
	in.chunks_execute = &chunk;
	in.num_chunks_execute = 1;
	assert_int_equal(hlthunk_command_submission(c->fd, &in, &out), 0);
	assert_int_equal(hlthunk_wait_for_cs(c->fd, out.seq, WAIT_US, &status),
			 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_COMPLETED);

	assert_int_equal(hlthunk_memory_unmap(c->fd, cb_va), 0);
	assert_int_equal(hlthunk_memory_unmap(c->fd, src_va), 0);
	free(cb);
	free(src);
}

static void assert_rdwr_cloexec(int dmabuf)
{
	int fl = fcntl(dmabuf, F_GETFL), fdfl = fcntl(dmabuf, F_GETFD);

	assert_true(fl >= 0 && fdfl >= 0);
	assert_int_equal(fl & O_ACCMODE, O_RDWR);
	assert_true(fdfl & FD_CLOEXEC);
}

static int imp_ioctl(int ifd, unsigned long req, void *arg)
{
	return ioctl(ifd, req, arg) ? -errno : 0;
}

/* Whether the driver lets a PCI importer map device memory (p2p_policy) */
static bool p2p_allowed(void)
{
	char policy[32] = "";
	FILE *f = fopen("/sys/module/habanalabs/parameters/p2p_policy", "r");

	if (f) {
		if (!fgets(policy, sizeof(policy), f))
			policy[0] = 0;
		fclose(f);
	}
	return strncmp(policy, "strict", 6) != 0;
}

/*
 * The importer (the stand-in for the RDMA NIC) reads @size bytes at @off of
 * the dma-buf by device DMA through the IOMMU.
 */
static void importer_read(int dmabuf, uint64_t off, void *buf, uint64_t size)
{
	struct hl_importer_handle h;
	struct hl_importer_import imp;
	struct hl_importer_map map;
	struct hl_importer_dma dma;
	int ifd;

	ifd = open("/dev/hl_importer", O_RDWR | O_CLOEXEC);
	if (ifd < 0) {
		print_error("/dev/hl_importer: %s\n", strerror(errno));
		fail();
	}

	memset(&imp, 0, sizeof(imp));
	imp.fd = (uint32_t)dmabuf;
	imp.flags = HL_IMPORTER_F_DYNAMIC;
	assert_int_equal(imp_ioctl(ifd, HL_IMPORTER_IOCTL_IMPORT, &imp), 0);
	assert_int_equal(imp.size, EXP_SIZE);

	memset(&map, 0, sizeof(map));
	map.handle = imp.handle;
	assert_int_equal(imp_ioctl(ifd, HL_IMPORTER_IOCTL_MAP, &map), 0);
	assert_int_equal(map.total_len, EXP_SIZE);

	memset(&dma, 0, sizeof(dma));
	dma.handle = imp.handle;
	dma.offset = off;
	dma.size = size;
	dma.user_ptr = (uint64_t)(uintptr_t)buf;
	assert_int_equal(imp_ioctl(ifd, HL_IMPORTER_IOCTL_DMA_READ, &dma), 0);

	memset(&h, 0, sizeof(h));
	h.handle = imp.handle;
	assert_int_equal(imp_ioctl(ifd, HL_IMPORTER_IOCTL_UNMAP, &h), 0);
	assert_int_equal(imp_ioctl(ifd, HL_IMPORTER_IOCTL_RELEASE, &h), 0);
	close(ifd);
}

/*
 * perftest's whole buffer life: alloc (page size 0, HL_MEM_CONTIGUOUS),
 * map, export a sub-range at an offset with O_RDWR | O_CLOEXEC, hand it to
 * the "NIC", which reads what the device holds there; then unmap, free.
 */
static void test_perftest_buffer_read_by_importer(void **state)
{
	struct consumer *c = *state;
	uint8_t got[READ_SIZE];
	uint64_t i, at;
	int dmabuf;

	if (!p2p_allowed()) {
		print_message("p2p_policy=strict: no PCI importer may map device memory\n");
		skip();
	}

	alloc_and_map(c);
	fill(c, EXP_OFFSET, EXP_SIZE);

	dmabuf = hlthunk_device_mapped_memory_export_dmabuf_fd(c->fd, c->va,
				EXP_SIZE, EXP_OFFSET, O_RDWR | O_CLOEXEC);
	assert_true(dmabuf >= 0);
	assert_rdwr_cloexec(dmabuf);

	memset(got, 0, sizeof(got));
	importer_read(dmabuf, READ_OFFSET, got, READ_SIZE);
	for (i = 0; i < READ_SIZE; i++) {
		at = EXP_OFFSET + READ_OFFSET + i;
		if (got[i] != pattern_byte(at)) {
			print_error("byte %llu of the buffer: 0x%02x, expected 0x%02x\n",
				    (unsigned long long)at, got[i],
				    pattern_byte(at));
			fail();
		}
	}

	/* The exported memory is pinned until the dma-buf goes */
	assert_int_equal(hlthunk_device_memory_free(c->fd, c->handle), -EBUSY);
	close(dmabuf);
	unmap_and_free(c);
}

/* hl-thunk's export always gives O_RDWR | O_CLOEXEC: flags 0 do too */
static void test_export_flags_zero_is_rdwr_cloexec(void **state)
{
	struct consumer *c = *state;
	int dmabuf;

	alloc_and_map(c);

	dmabuf = hlthunk_device_memory_export_dmabuf_fd(c->fd, c->va,
							 c->buf_size, 0);
	assert_true(dmabuf >= 0);
	assert_rdwr_cloexec(dmabuf);
	close(dmabuf);

	dmabuf = hlthunk_device_mapped_memory_export_dmabuf_fd(c->fd, c->va,
				EXP_SIZE, EXP_OFFSET, 0);
	assert_true(dmabuf >= 0);
	assert_rdwr_cloexec(dmabuf);
	close(dmabuf);

	unmap_and_free(c);
}

/* A consumer that checks the device type sees an unknown one, not Gaudi2 */
static void test_device_type_is_no_other_asic(void **state)
{
	struct consumer *c = *state;
	enum hlthunk_device_name name = hlthunk_get_device_name_from_fd(c->fd);
	struct hlthunk_hw_ip_info hw;
	uint64_t orders = 0;

	assert_int_equal(name, HLTHUNK_DEVICE_GAUDI_EMU);
	switch (name) {
	case HLTHUNK_DEVICE_GOYA:
	case HLTHUNK_DEVICE_GAUDI:
	case HLTHUNK_DEVICE_GAUDI2:
	case HLTHUNK_DEVICE_INVALID:
	case HLTHUNK_DEVICE_DONT_CARE:
		fail_msg("device type %d is one of hl-thunk's", name);
		break;
	default:
		break;
	}

	assert_int_equal(hlthunk_get_hw_ip_info(c->fd, &hw), 0);
	assert_string_equal((char *)hw.card_name, "emu-gaudi");
	assert_int_equal(hlthunk_get_dev_memalloc_page_orders(c->fd, &orders),
			 0);
	assert_int_equal(orders, hw.device_mem_alloc_default_page_size);
}

static const struct CMUnitTest consumer_tests[] = {
	cmocka_unit_test_setup_teardown(test_perftest_buffer_read_by_importer,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_export_flags_zero_is_rdwr_cloexec,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_device_type_is_no_other_asic,
					setup, teardown),
};

int main(void)
{
	return cmocka_run_group_tests_name("consumer", consumer_tests, NULL,
					   NULL);
}

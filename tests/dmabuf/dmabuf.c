// SPDX-License-Identifier: MIT
/*
 * dmabuf: HL_MEM_OP_EXPORT_DMABUF_FD, proven by a real DMA importer: the
 * test importer (tests/importer) attaches QEMU's edu device to the dma-buf
 * and moves data by edu DMA through the strict IOMMU, as an RDMA NIC would.
 *
 * The accelerator writes patterns into HBM with DMA jobs and the importer
 * reads them back (and the other way round), at the first and last pages,
 * across 4 KiB and 2 MiB boundaries and at unaligned offsets. Also: the
 * sg_table's chunking and its addresses (IOVAs, not BAR addresses), the
 * P2P policy, pinned and static importers, CPU access refused, lifetimes
 * (device fd closed first, owner process gone, many exports, sub-ranges),
 * fences, and revocation on unbind.
 *
 * Modes (argv[1]):
 *   (none)                 the suite; answers follow the module's
 *                          p2p_policy, read from sysfs ("strict" expects
 *                          every import refused with -EXDEV)
 *   --negative-control     with dmabuf_raw_bar_addresses=1: the importer
 *                          must read wrong data and the IOMMU must fault
 */
#include "hltests.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/dma-buf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../importer/hl_importer.h"

#define KB		1024ull
#define MB		(1024ull * KB)
#define PAGE		4096ull
#define XFER		2048ull

static bool policy_strict;

/* ---- the importer ---- */

/* Returns the handle, or -errno */
static int imp_import(int ifd, int dmabuf, uint32_t flags)
{
	struct hl_importer_import a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.fd = dmabuf;
	a.flags = flags;
	rc = hltests_ioctl(ifd, HL_IMPORTER_IOCTL_IMPORT, &a);
	return rc ? rc : (int)a.handle;
}

static int imp_map(int ifd, int h, struct hl_importer_map *m)
{
	memset(m, 0, sizeof(*m));
	m->handle = h;
	return hltests_ioctl(ifd, HL_IMPORTER_IOCTL_MAP, m);
}

static int imp_sg(int ifd, int h, uint32_t i, uint64_t *addr, uint64_t *len)
{
	struct hl_importer_sg_entry e;
	int rc;

	memset(&e, 0, sizeof(e));
	e.handle = h;
	e.index = i;
	rc = hltests_ioctl(ifd, HL_IMPORTER_IOCTL_SG_ENTRY, &e);
	*addr = e.dma_addr;
	*len = e.len;
	return rc;
}

static int imp_dma(int ifd, bool write, int h, uint64_t off, void *buf,
		   uint64_t size, uint32_t flags)
{
	struct hl_importer_dma d;

	memset(&d, 0, sizeof(d));
	d.handle = h;
	d.flags = flags;
	d.offset = off;
	d.size = size;
	d.user_ptr = (uint64_t)(uintptr_t)buf;
	return hltests_ioctl(ifd, write ? HL_IMPORTER_IOCTL_DMA_WRITE :
				      HL_IMPORTER_IOCTL_DMA_READ, &d);
}

static int imp_handle_op(int ifd, unsigned long req, int h)
{
	struct hl_importer_handle a;

	memset(&a, 0, sizeof(a));
	a.handle = h;
	return hltests_ioctl(ifd, req, &a);
}

static struct hl_importer_status imp_status(int ifd, int h)
{
	struct hl_importer_status s;

	memset(&s, 0, sizeof(s));
	s.handle = h;
	assert_int_equal(hltests_ioctl(ifd, HL_IMPORTER_IOCTL_STATUS, &s), 0);
	return s;
}

/* ---- the exporter side (tests/common/hltests_export.c) ---- */

/* Importer reads [off, off + n) of the dma-buf; compare with @expected */
static void check_read(int ifd, int h, uint64_t off, const uint8_t *expected,
		       uint64_t n, const char *what)
{
	uint8_t *buf = malloc(n);

	assert_non_null(buf);
	memset(buf, 0x5a, n);
	assert_int_equal(imp_dma(ifd, false, h, off, buf, n, 0), 0);
	hltests_assert_bytes_equal(buf, expected, n, what);
	free(buf);
}

static int setup(void **state)
{
	return hltests_import_setup(state, "/dev/hl_importer",
				    " (is tests/importer built?)");
}

static int teardown(void **state)
{
	hltests_import_teardown(state);
	return 0;
}

static void skip_if_strict(void)
{
	if (policy_strict) {
		print_message("p2p_policy=strict: every import is refused (see test_p2p_policy)\n");
		skip();
	}
}

/* ---- tests ---- */

static void test_export_errors(void **state)
{
	struct hltests_import_fixture *f = *state;
	int fd = f->st.fd, ctl;
	struct hltests_host_buf host;
	struct hltests_dram_buf d;
	union hl_mem_args a;

	hltests_dram_map(fd, &d, 4 * MB, false);
	hltests_host_map(fd, &host, 8 * PAGE);

#define EXPORT(addr, size, off, flags) \
	hlthunk_device_mapped_memory_export_dmabuf_fd(fd, addr, size, off, flags)
	assert_int_equal(EXPORT(d.va, 0, 0, O_RDWR), -EINVAL);
	assert_int_equal(EXPORT(d.va, 100, 0, O_RDWR), -EINVAL);
	assert_int_equal(EXPORT(d.va, PAGE, 100, O_RDWR), -EINVAL);
	assert_int_equal(EXPORT(d.va, 4 * MB + PAGE, 0, O_RDWR), -EINVAL);
	assert_int_equal(EXPORT(d.va, PAGE, 4 * MB, O_RDWR), -EINVAL);
	assert_int_equal(EXPORT(d.va, 4 * MB, PAGE, O_RDWR), -EINVAL);
	assert_int_equal(EXPORT(d.va, PAGE, UINT64_MAX & ~(PAGE - 1), O_RDWR),
			 -EINVAL);
	/* Not the address MAP returned; host memory; nothing mapped */
	assert_int_equal(EXPORT(d.va + 2 * MB, PAGE, 0, O_RDWR), -EINVAL);
	assert_int_equal(EXPORT(host.va, PAGE, 0, O_RDWR), -EINVAL);
	assert_int_equal(EXPORT(f->st.hw_ip.dram_va_end - 2 * MB, PAGE, 0, O_RDWR),
			 -EINVAL);
	assert_int_equal(EXPORT(0, PAGE, 0, O_RDWR), -EINVAL);
	/* Flags: dma-buf file flags O_RDWR and O_CLOEXEC only */
	assert_int_equal(EXPORT(d.va, PAGE, 0, O_WRONLY), -EINVAL);
	assert_int_equal(EXPORT(d.va, PAGE, 0, O_RDWR | O_NONBLOCK), -EINVAL);
	assert_int_equal(EXPORT(d.va, PAGE, 0, O_RDWR | O_APPEND), -EINVAL);
	assert_int_equal(EXPORT(d.va, PAGE, 0, HL_MEM_CONTIGUOUS << 20), -EINVAL);
#undef EXPORT

	/* Reserved fields */
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_EXPORT_DMABUF_FD;
	a.in.export_dmabuf_fd.addr = d.va;
	a.in.export_dmabuf_fd.mem_size = PAGE;
	a.in.flags = O_RDWR;
	a.in.pad = 1;
	assert_int_equal(ioctl(fd, HL_IOCTL_MEMORY, &a), -1);
	assert_int_equal(errno, EINVAL);

	/* The control node exports nothing */
	ctl = hltests_open_node(0, 1);
	assert_true(ctl >= 0);
	a.in.pad = 0;
	assert_int_equal(ioctl(ctl, HL_IOCTL_MEMORY, &a), -1);
	assert_int_equal(errno, ENOTTY);
	close(ctl);

	/* No failed export left an fd or a reference: all of it goes away */
	hltests_host_unmap(fd, &host);
	hltests_dram_unmap(fd, &d);
}

static void test_fd_is_a_dmabuf_without_cpu_access(void **state)
{
	struct hltests_import_fixture *f = *state;
	char path[64], buf[4096], name[] = "hl-test-buffer";
	struct hltests_export e;
	void *p;
	int rc;

	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 1);

	/* O_CLOEXEC honoured; fdinfo names the exporter */
	assert_true(fcntl(e.dmabuf, F_GETFD) & FD_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", e.dmabuf);
	assert_int_equal(hltests_read_file(path, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "exp_name:\thabanalabs"));
	assert_non_null(strstr(buf, "size:\t2097152"));
	assert_int_equal(lseek(e.dmabuf, 0, SEEK_END), 2 * MB);

	/* No CPU mapping, read-only or not */
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, e.dmabuf, 0);
	assert_true(p == MAP_FAILED);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, e.dmabuf, 0);
	assert_true(p == MAP_FAILED);

	/* DMA_BUF_SET_NAME, shown in debugfs bufinfo */
	assert_int_equal(ioctl(e.dmabuf, DMA_BUF_SET_NAME_B, name), 0);
	rc = hltests_read_file("/sys/kernel/debug/dma_buf/bufinfo", buf,
			       sizeof(buf));
	assert_int_equal(rc, 0);
	assert_non_null(strstr(buf, "habanalabs"));
	assert_non_null(strstr(buf, name));

	/* Exported: the mapping cannot go, nor the allocation */
	assert_int_equal(hlthunk_memory_unmap(f->st.fd, e.dram.va), -EBUSY);
	assert_int_equal(hlthunk_device_memory_free(f->st.fd, e.dram.handle),
			 -EBUSY);
	hltests_export_release(f->st.fd, &e);
}

static void test_p2p_policy(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hltests_export e;
	int h;

	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 2);
	h = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_DYNAMIC);
	if (policy_strict) {
		/* No CONFIG_PCI_P2PDMA and no trust in the IOMMU: refused */
		assert_int_equal(h, -EXDEV);
	} else {
		assert_true(h > 0);
		assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE,
					       h), 0);
	}
	hltests_export_release(f->st.fd, &e);
}

static void test_importer_without_p2p_is_refused(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hltests_export e;

	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 3);
	/* A static importer (dma_buf_attach) cannot do peer-to-peer */
	assert_int_equal(imp_import(f->ifd, e.dmabuf, 0), -EOPNOTSUPP);
	assert_int_equal(imp_import(f->ifd, e.dmabuf,
				    HL_IMPORTER_F_DYNAMIC | HL_IMPORTER_F_NO_P2P),
			 -EOPNOTSUPP);
	assert_int_equal(imp_import(f->ifd, e.dmabuf,
				    HL_IMPORTER_F_PIN | HL_IMPORTER_F_NO_P2P),
			 -EOPNOTSUPP);
	hltests_export_release(f->st.fd, &e);
}

/*
 * The accelerator wrote the pattern; edu reads it at the edges, across 4 KiB
 * pages and across the 2 MiB DRAM pages of a non-contiguous allocation.
 */
static void read_at_edges(int ifd, int h, const uint8_t *pat, uint64_t size)
{
	check_read(ifd, h, 0, pat, XFER, "first bytes");
	check_read(ifd, h, size - XFER, pat + size - XFER, XFER, "last bytes");
	check_read(ifd, h, PAGE - 1000, pat + PAGE - 1000, 2000,
		   "across a 4 KiB page");
	check_read(ifd, h, 2 * MB - 1500, pat + 2 * MB - 1500, 3000,
		   "across a 2 MiB DRAM page");
	check_read(ifd, h, 3 * MB + 777, pat + 3 * MB + 777, 333, "unaligned");
}

static void test_importer_reads_what_the_accelerator_wrote(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hl_importer_map m;
	struct hltests_export e;
	int h;

	skip_if_strict();
	hltests_export_pattern(f->st.fd, &e, 8 * MB, false, 0, 8 * MB, 4);
	h = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_DYNAMIC);
	assert_true(h > 0);
	assert_int_equal(imp_map(f->ifd, h, &m), 0);
	assert_true(m.total_len >= 8 * MB);
	read_at_edges(f->ifd, h, e.pattern, 8 * MB);
	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	hltests_export_release(f->st.fd, &e);
}

static void test_accelerator_reads_what_the_importer_wrote(void **state)
{
	struct hltests_import_fixture *f = *state;
	uint64_t offs[] = { 0, PAGE - 100, 2 * MB - 1024, 4 * MB - XFER };
	uint64_t seed = 77;
	struct hl_importer_map m;
	struct hltests_export e;
	uint8_t *dev, buf[XFER];
	unsigned int i;
	int h;

	skip_if_strict();
	hltests_export_pattern(f->st.fd, &e, 4 * MB, false, 0, 4 * MB, 5);
	h = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_PIN);
	assert_true(h > 0);
	assert_int_equal(imp_map(f->ifd, h, &m), 0);

	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		hltests_fill_random(&seed, buf, XFER);
		assert_int_equal(imp_dma(f->ifd, true, h, offs[i], buf, XFER, 0), 0);
		memcpy(e.pattern + offs[i], buf, XFER);
	}
	/* The accelerator copies the whole allocation out: every byte agrees */
	dev = malloc(4 * MB);
	assert_non_null(dev);
	hltests_read_device(f->st.fd, e.dram.va, dev, 4 * MB);
	hltests_assert_bytes_equal(dev, e.pattern, 4 * MB, "device view");
	free(dev);
	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	hltests_export_release(f->st.fd, &e);
}

/* BAR2 of device 0, from sysfs: [start, end] */
static void bar2_range(uint64_t *start, uint64_t *end)
{
	char busid[32], path[128], buf[4096], *line;
	int i;

	assert_int_equal(hltests_pci_addr(0, busid, sizeof(busid)), 0);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource", busid);
	assert_int_equal(hltests_read_file(path, buf, sizeof(buf)), 0);
	line = buf;
	for (i = 0; i < 2; i++)
		line = strchr(line, '\n') + 1;
	assert_int_equal(sscanf(line, "%" SCNx64 " %" SCNx64, start, end), 2);
	assert_true(*end > *start);
}

/*
 * A fragmented allocation: its 2 MiB pages are not consecutive. The
 * sg_table has an entry per physically contiguous piece, each no longer
 * than edu's max segment size, with DMA addresses from the DMA API (IOVAs
 * under the IOMMU), never the BAR's bus addresses.
 */
static void test_sg_table_chunks_and_addresses(void **state)
{
	struct hltests_import_fixture *f = *state;
	int fd = f->st.fd;
	uint64_t bar_start, bar_end, total = 0, addr, len, hs[4];
	struct hl_importer_map m;
	struct hltests_export e;
	unsigned int i;
	int h;

	skip_if_strict();
	/* Fragment DRAM: 2 MiB holes between live allocations */
	for (i = 0; i < 4; i++)
		hs[i] = hlthunk_device_memory_alloc(fd, 2 * MB, 0, false, false);
	assert_int_equal(hlthunk_device_memory_free(fd, hs[0]), 0);
	assert_int_equal(hlthunk_device_memory_free(fd, hs[2]), 0);
	hltests_export_pattern(fd, &e, 6 * MB, false, 0, 6 * MB, 6);

	h = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_DYNAMIC);
	assert_true(h > 0);
	assert_int_equal(imp_map(f->ifd, h, &m), 0);
	bar2_range(&bar_start, &bar_end);
	print_message("%u entries, max segment %u, BAR2 [0x%" PRIx64 ", 0x%" PRIx64 "]\n",
		      m.nents, m.max_seg_size, bar_start, bar_end);
	assert_true(m.nents >= 6 * MB / m.max_seg_size);
	for (i = 0; i < m.nents; i++) {
		assert_int_equal(imp_sg(f->ifd, h, i, &addr, &len), 0);
		assert_true(len > 0 && len <= m.max_seg_size);
		assert_int_equal(len % PAGE, 0);
		/* Not a raw BAR address: the importer's IOMMU mapping of it */
		assert_false(addr >= bar_start && addr <= bar_end);
		total += len;
	}
	assert_int_equal(total, 6 * MB);
	assert_int_equal(imp_sg(f->ifd, h, m.nents, &addr, &len), -EINVAL);
	read_at_edges(f->ifd, h, e.pattern, 6 * MB);

	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	hltests_export_release(fd, &e);
	assert_int_equal(hlthunk_device_memory_free(fd, hs[1]), 0);
	assert_int_equal(hlthunk_device_memory_free(fd, hs[3]), 0);
}

/*
 * Rebind the test importer with these DMA parameters (0: the PCI default),
 * reopening the fixture's importer fd.
 */
static void importer_rebind(struct hltests_import_fixture *f,
			    unsigned int max_seg, unsigned long boundary)
{
	const char *drv = "/sys/bus/pci/drivers/hl_importer";
	char val[32], busid[300] = "";
	struct dirent *de;
	DIR *d;

	close(f->ifd);
	d = opendir(drv);
	assert_non_null(d);
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "0000:", 5))
			snprintf(busid, sizeof(busid), "%s", de->d_name);
	closedir(d);
	assert_true(busid[0]);
	snprintf(val, sizeof(val), "%u", max_seg);
	assert_int_equal(hltests_write_file("/sys/module/hl_importer/parameters/max_seg_size",
					    val), 0);
	snprintf(val, sizeof(val), "%lu", boundary);
	assert_int_equal(hltests_write_file("/sys/module/hl_importer/parameters/seg_boundary",
					    val), 0);
	assert_int_equal(hltests_write_file("/sys/bus/pci/drivers/hl_importer/unbind",
					    busid), 0);
	assert_int_equal(hltests_write_file("/sys/bus/pci/drivers_probe", busid), 0);
	f->ifd = open("/dev/hl_importer", O_RDWR | O_CLOEXEC);
	assert_true(f->ifd >= 0);
}

/*
 * The exporter maps each physically contiguous run once and cuts it where
 * the importer needs: no entry longer than its max segment size, none
 * across its segment boundary (the importer refuses such a table with
 * -EMSGSIZE, and this test checks each entry itself too); with a max
 * segment of 4 GiB - 4 KiB, one entry per run. The data reads back right
 * either way.
 */
static void test_entries_cut_at_importer_limits(void **state)
{
	const uint64_t size = 6 * MB, boundary = 256 * 1024 - 1;
	struct hltests_import_fixture *f = *state;
	int fd = f->st.fd;
	uint64_t addr, len, total, hs[4];
	struct hl_importer_map m;
	struct hltests_export e;
	unsigned int i, pass;
	int h;

	skip_if_strict();
	/* Fragment DRAM: the export is made of three 2 MiB runs */
	for (i = 0; i < 4; i++)
		hs[i] = hlthunk_device_memory_alloc(fd, 2 * MB, 0, false, false);
	assert_int_equal(hlthunk_device_memory_free(fd, hs[0]), 0);
	assert_int_equal(hlthunk_device_memory_free(fd, hs[2]), 0);
	hltests_export_pattern(fd, &e, size, false, 0, size, 7);

	for (pass = 0; pass < 2; pass++) {
		if (pass == 0)
			importer_rebind(f, MB, boundary);
		else
			importer_rebind(f, 0xfffff000u, 0);
		h = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_DYNAMIC);
		assert_true(h > 0);
		assert_int_equal(imp_map(f->ifd, h, &m), 0);
		print_message("max segment %u: %u entries\n", m.max_seg_size,
			      m.nents);
		total = 0;
		for (i = 0; i < m.nents; i++) {
			assert_int_equal(imp_sg(f->ifd, h, i, &addr, &len), 0);
			assert_true(len > 0 && len <= m.max_seg_size);
			if (pass == 0)
				assert_int_equal((addr ^ (addr + len - 1)) & ~boundary, 0);
			total += len;
		}
		assert_int_equal(total, size);
		if (pass == 0)
			assert_true(m.nents >= size / (boundary + 1));
		else
			assert_true(m.nents <= 3);
		read_at_edges(f->ifd, h, e.pattern, size);
		assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	}
	importer_rebind(f, 0, 0);

	hltests_export_release(fd, &e);
	assert_int_equal(hlthunk_device_memory_free(fd, hs[1]), 0);
	assert_int_equal(hlthunk_device_memory_free(fd, hs[3]), 0);
}

static void test_sub_range_export(void **state)
{
	struct hltests_import_fixture *f = *state;
	uint64_t off = 2 * MB + 3 * PAGE, len = 5 * PAGE;
	struct hl_importer_import imp;
	struct hl_importer_map m;
	struct hltests_export e;
	int h;

	skip_if_strict();
	hltests_export_pattern(f->st.fd, &e, 4 * MB, false, off, len, 7);
	assert_int_equal(lseek(e.dmabuf, 0, SEEK_END), (off_t)len);
	h = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_DYNAMIC);
	assert_true(h > 0);
	assert_int_equal(imp_map(f->ifd, h, &m), 0);
	assert_int_equal(m.total_len, len);
	check_read(f->ifd, h, 0, e.pattern + off, XFER, "sub-range start");
	check_read(f->ifd, h, len - XFER, e.pattern + off + len - XFER, XFER,
		   "sub-range end");
	/* Nothing beyond the exported range is reachable */
	memset(&imp, 0, sizeof(imp));
	assert_int_equal(imp_dma(f->ifd, false, h, len - 8, &imp, 16, 0), -EINVAL);
	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	hltests_export_release(f->st.fd, &e);
}

static void test_many_exports_of_one_allocation(void **state)
{
	struct hltests_import_fixture *f = *state;
	int fds[6], hs[6], i;
	struct hl_importer_map m;
	struct hltests_export e;

	skip_if_strict();
	hltests_export_pattern(f->st.fd, &e, 4 * MB, true, 0, 4 * MB, 8);
	for (i = 0; i < 6; i++) {
		fds[i] = hlthunk_device_mapped_memory_export_dmabuf_fd(f->st.fd,
				e.dram.va, 2 * MB, (uint64_t)(i % 3) * MB, O_RDWR);
		assert_true(fds[i] >= 0);
		hs[i] = imp_import(f->ifd, fds[i], i % 2 ? HL_IMPORTER_F_PIN :
							   HL_IMPORTER_F_DYNAMIC);
		assert_true(hs[i] > 0);
		assert_int_equal(imp_map(f->ifd, hs[i], &m), 0);
	}
	for (i = 5; i >= 0; i--) {
		check_read(f->ifd, hs[i], 100, e.pattern + (i % 3) * MB + 100, 500,
			   "one of many exports");
		close(fds[i]);
		/* The import still holds the dma-buf */
		check_read(f->ifd, hs[i], 0, e.pattern + (i % 3) * MB, 256,
			   "after its fd closed");
		assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE,
					       hs[i]), 0);
		if (i)
			assert_int_equal(hlthunk_memory_unmap(f->st.fd, e.dram.va),
					 -EBUSY);
	}
	hltests_export_release(f->st.fd, &e);
}

/*
 * Found by tools/hl-fuzz on the debug kernel (seed 0x5eed0001): nine
 * importers mapping the same export at once are nine dma_map_resource()
 * mappings of the same HBM, and DMA-API debugging WARNs past seven
 * overlaps of a cacheline ("exceeded 7 overlapping mappings",
 * add_dma_entry from hl_dmabuf_map_piece), which fails the debug lane. Any
 * number of importers must be able to map one export. Passes on the stock
 * kernel (no DMA-API debugging); the debug lane is its real run.
 */
/*
 * A page of device memory is in at most HL_DMABUF_MAX_PAGE_MAPS importer
 * mappings, through every export of its allocation together: one more is
 * -EBUSY, pages the full one does not share are not affected, and an unmap
 * makes room. (Nine mappings of one page made DMA-API debugging WARN: each
 * is a dma_map_resource() of the same BAR range; found by hl-fuzz.)
 */
static void test_importer_maps_of_a_page_are_bounded(void **state)
{
	const int max = HL_DMABUF_MAX_PAGE_MAPS;
	struct hltests_import_fixture *f = *state;
	struct hlthunk_hw_ip_info hw;
	struct hl_importer_map m;
	int hs[HL_DMABUF_MAX_PAGE_MAPS], same, other, i;
	uint64_t page;
	struct hltests_export e;

	skip_if_strict();
	assert_int_equal(hlthunk_get_hw_ip_info(f->st.fd, &hw), 0);
	page = hw.dram_page_size;
	/* Two pages; the export is the first one */
	hltests_export_pattern(f->st.fd, &e, 2 * page, true, 0, page, 10);
	for (i = 0; i < max; i++) {
		hs[i] = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_DYNAMIC);
		assert_true(hs[i] > 0);
		assert_int_equal(imp_map(f->ifd, hs[i], &m), 0);
	}
	check_read(f->ifd, hs[max - 1], page - 8, e.pattern + page - 8, 8,
		   "the last importer's mapping");

	/* One more of the same page, through this export or another one */
	same = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_DYNAMIC);
	assert_true(same > 0);
	assert_int_equal(imp_map(f->ifd, same, &m), -EBUSY);
	{
		int fd2 = hlthunk_device_mapped_memory_export_dmabuf_fd(
				f->st.fd, e.dram.va, 4096, page - 4096,
				O_RDWR | O_CLOEXEC);
		int h2;

		assert_true(fd2 >= 0);
		h2 = imp_import(f->ifd, fd2, HL_IMPORTER_F_DYNAMIC);
		assert_true(h2 > 0);
		assert_int_equal(imp_map(f->ifd, h2, &m), -EBUSY);
		assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE,
					       h2), 0);
		close(fd2);

		/* The second page is in no mapping: it maps */
		fd2 = hlthunk_device_mapped_memory_export_dmabuf_fd(
				f->st.fd, e.dram.va, page, page,
				O_RDWR | O_CLOEXEC);
		assert_true(fd2 >= 0);
		other = imp_import(f->ifd, fd2, HL_IMPORTER_F_DYNAMIC);
		assert_true(other > 0);
		assert_int_equal(imp_map(f->ifd, other, &m), 0);
		check_read(f->ifd, other, 0, e.pattern + page, 16,
			   "the other page's mapping");
		close(fd2);
	}

	/* An unmap makes room for one */
	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE,
				       hs[0]), 0);
	assert_int_equal(imp_map(f->ifd, same, &m), 0);
	check_read(f->ifd, same, 0, e.pattern, 16, "the mapping made after");

	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, same),
			 0);
	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE,
				       other), 0);
	for (i = 1; i < max; i++)
		assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE,
					       hs[i]), 0);
	hltests_export_release(f->st.fd, &e);
}

/*
 * The device fd is closed first: the dma-buf keeps allocation and context
 * alive, a new open sees the memory as used, and it comes back with the
 * last dma-buf reference.
 */
static void test_device_fd_closed_before_dmabuf(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hl_importer_map m;
	struct hltests_export e;
	uint64_t free0;
	int fd, h;

	skip_if_strict();
	/* This test needs the device to itself: close the fixture's fd */
	hlthunk_close(f->st.fd);
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	free0 = hltests_dram_free(fd);
	hltests_export_pattern(fd, &e, 4 * MB, false, 0, 4 * MB, 9);
	h = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_DYNAMIC);
	assert_true(h > 0);
	close(e.dmabuf);
	close(fd);

	/* The importer still reaches the data the dead context wrote */
	assert_int_equal(imp_map(f->ifd, h, &m), 0);
	check_read(f->ifd, h, 4 * MB - XFER, e.pattern + 4 * MB - XFER, XFER,
		   "after the owner closed the device");

	/* A new context: fresh, and the exported memory is still in use */
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	assert_int_equal(hltests_dram_free(fd), free0 - 4 * MB);
	assert_int_equal(hlthunk_device_memory_free(fd, e.dram.handle), -EINVAL);

	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	assert_int_equal(hltests_dram_free(fd), free0);
	free(e.pattern);
	f->st.fd = fd;
}

/* The exporting process exits; its dma-buf lives on in another process */
static void test_owner_process_exits(void **state)
{
	struct hltests_import_fixture *f = *state;
	int sv[2], status, dmabuf, h;
	struct hl_importer_map m;
	uint8_t pattern[XFER];
	uint64_t seed = 1234, free0;
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr msg;
	struct iovec iov;
	char byte = 0;
	pid_t pid;

	skip_if_strict();
	hltests_fill_random(&seed, pattern, XFER);
	hlthunk_close(f->st.fd);
	f->st.fd = -1;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct hltests_dram_buf d;
		struct cmsghdr *c;
		int fd = hltests_open_node(0, 0), x;

		if (fd < 0)
			_exit(1);
		hltests_dram_map(fd, &d, 2 * MB, false);
		hltests_write_device(fd, d.va, pattern, XFER);
		x = hlthunk_device_memory_export_dmabuf_fd(fd, d.va, 2 * MB, O_RDWR);
		if (x < 0)
			_exit(2);
		memset(&msg, 0, sizeof(msg));
		iov.iov_base = &byte;
		iov.iov_len = 1;
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &x, sizeof(int));
		_exit(sendmsg(sv[1], &msg, 0) == 1 ? 0 : 3);
	}
	close(sv[1]);
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = &byte;
	iov.iov_len = 1;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	assert_int_equal(recvmsg(sv[0], &msg, 0), 1);
	memcpy(&dmabuf, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof(int));
	close(sv[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	/* The owner is gone; its memory is not */
	h = imp_import(f->ifd, dmabuf, HL_IMPORTER_F_PIN);
	assert_true(h > 0);
	assert_int_equal(imp_map(f->ifd, h, &m), 0);
	check_read(f->ifd, h, 0, pattern, XFER, "exported by a dead process");
	f->st.fd = hltests_open_node(0, 0);
	assert_true(f->st.fd >= 0);
	free0 = hltests_dram_free(f->st.fd);
	close(dmabuf);
	assert_int_equal(hltests_dram_free(f->st.fd), free0);
	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	assert_int_equal(hltests_dram_free(f->st.fd), free0 + 2 * MB);
}

/*
 * Unbinding the device revokes its exports: dynamic importers get
 * move_notify, their mapping is gone, and a new one is refused. The dma-buf
 * lives until its last reference. The device is bound again afterwards.
 */
static void test_unbind_revokes_exports(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hl_importer_status s;
	struct hl_importer_map m;
	char busid[32], buf[XFER];
	struct hltests_export e;
	int h, hp;

	skip_if_strict();
	assert_int_equal(hltests_pci_addr(0, busid, sizeof(busid)), 0);
	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 11);
	h = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_DYNAMIC);
	assert_true(h > 0);
	assert_int_equal(imp_map(f->ifd, h, &m), 0);
	check_read(f->ifd, h, 0, e.pattern, 512, "before unbind");
	hp = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_DYNAMIC);
	assert_true(hp > 0);

	assert_int_equal(hltests_write_file("/sys/bus/pci/drivers/habanalabs/unbind",
				     busid), 0);

	s = imp_status(f->ifd, h);
	assert_int_equal(s.state, HL_IMPORTER_STATE_REVOKED);
	assert_true(s.move_notify_count >= 1);
	assert_int_equal(imp_dma(f->ifd, false, h, 0, buf, 512, 0), -ESTALE);
	assert_int_equal(imp_map(f->ifd, h, &m), -ENODEV);
	assert_int_equal(imp_map(f->ifd, hp, &m), -ENODEV);
	/* The device's own fd is dead too */
	assert_int_equal(hlthunk_memory_unmap(f->st.fd, e.dram.va), -ENODEV);

	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, hp), 0);
	close(e.dmabuf);
	hlthunk_close(f->st.fd);
	free(e.pattern);

	assert_int_equal(hltests_write_file("/sys/bus/pci/drivers_probe", busid), 0);
	f->st.fd = hltests_open_node(0, 0);
	assert_true(f->st.fd >= 0);
}


/* ---- fences: bounded, WRITE usage, carried by late exports ---- */

/* WAIT_CS on @seq must return @rc with @status */
static void assert_cs(int fd, uint64_t seq, uint64_t timeout_us, int rc,
		      uint32_t status)
{
	uint32_t found = 0xdead;

	assert_int_equal(hlthunk_wait_for_cs(fd, seq, timeout_us, &found), rc);
	assert_int_equal(found, status);
}

/*
 * Submit one job that fills [@va, @va + @size) with MEMSET packets for
 * about @seconds, the last packet with @value. Returns the CS seq; @cb
 * holds the command buffer (unmap it after the CS).
 */
static uint64_t slow_fill(int fd, uint64_t va, uint64_t size, uint64_t value,
			  double seconds, struct hltests_host_buf *cb)
{
	uint32_t count, i;
	uint64_t t0, seq;
	uint8_t *p;
	double one;

	hltests_host_map(fd, cb, 2 * MB);
	/* The time of one fill, from four (the first may be slower) */
	for (i = 0; i < 4; i++)
		hlthunk_pkt_memset(cb->ptr + i * HLTHUNK_PKT_MEMSET_SIZE, va, 0,
				   size);
	t0 = hltests_now_ns();
	hltests_run_cb_ok(fd, 2, cb->va, 4 * HLTHUNK_PKT_MEMSET_SIZE);
	one = (hltests_now_ns() - t0) / 4e9;
	count = (uint32_t)(seconds / one) + 1;
	if (count > 2 * MB / HLTHUNK_PKT_MEMSET_SIZE)
		count = 2 * MB / HLTHUNK_PKT_MEMSET_SIZE;
	p = cb->ptr;
	for (i = 0; i < count; i++)
		p += hlthunk_pkt_memset(p, va, i + 1 == count ? value : i, size);
	seq = hltests_submit_cb(fd, 2, cb->va, p - cb->ptr, 60);
	assert_cs(fd, seq, 0, 0, HL_WAIT_CS_STATUS_BUSY);
	return seq;
}

static void assert_filled(const uint8_t *p, uint8_t v, uint64_t n,
			  const char *what)
{
	uint8_t *expected = malloc(n);

	assert_non_null(expected);
	memset(expected, v, n);
	hltests_assert_bytes_equal(p, expected, n, what);
	free(expected);
}

/*
 * An export made while a CS of the context still runs carries that CS's
 * fence: an importer that syncs implicitly (waits for the writers) reads
 * what the job wrote, not what was there before.
 */
static void test_export_during_cs_carries_its_fence(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hltests_host_buf cb;
	struct hl_importer_map m;
	struct hltests_export e;
	uint8_t buf[XFER];
	uint64_t seq;
	int h;

	skip_if_strict();
	/* Pattern first, so that stale data differs from the job's */
	hltests_export_pattern(f->st.fd, &e, 8 * MB, false, 0, 2 * MB, 21);
	close(e.dmabuf);
	seq = slow_fill(f->st.fd, e.dram.va, 8 * MB, 0xa5a5a5a5a5a5a5a5ull, 2.0,
			&cb);
	e.dmabuf = hlthunk_device_memory_export_dmabuf_fd(f->st.fd, e.dram.va,
							  8 * MB, O_RDWR);
	assert_true(e.dmabuf >= 0);
	h = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_DYNAMIC);
	assert_true(h > 0);
	assert_int_equal(imp_map(f->ifd, h, &m), 0);
	assert_int_equal(imp_dma(f->ifd, false, h, 8 * MB - XFER, buf, XFER,
				 HL_IMPORTER_DMA_F_WAIT), 0);
	assert_filled(buf, 0xa5, XFER, "after waiting for the writers");
	assert_cs(f->st.fd, seq, 0, 0, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	hltests_host_unmap(f->st.fd, &cb);
	hltests_export_release(f->st.fd, &e);
}

/*
 * User work is published as DMA_RESV_USAGE_WRITE, not KERNEL: an importer
 * that waits only for kernel fences before mapping (as ib_umem_dmabuf does)
 * is not held up by it. Implicit sync comes from the WRITE fence: the
 * dma-buf's sync_file (DMA_BUF_IOCTL_EXPORT_SYNC_FILE), and an importer
 * that waits for the writers.
 */
static void test_cs_fence_is_write_usage(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct dma_buf_export_sync_file sync;
	struct hltests_host_buf cb;
	struct hl_importer_map m;
	struct pollfd pfd;
	struct hltests_export e;
	uint8_t buf[XFER];
	uint64_t seq;
	int h;

	skip_if_strict();
	hltests_export_pattern(f->st.fd, &e, 8 * MB, false, 0, 8 * MB, 22);
	h = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_DYNAMIC);
	assert_true(h > 0);
	seq = slow_fill(f->st.fd, e.dram.va, 8 * MB, 0x3c3c3c3c3c3c3c3cull, 3.0,
			&cb);

	/* MAP waits for kernel fences only: the job still runs after it */
	assert_int_equal(imp_map(f->ifd, h, &m), 0);
	assert_cs(f->st.fd, seq, 0, 0, HL_WAIT_CS_STATUS_BUSY);

	/* The readers' sync_file holds the job's fence */
	memset(&sync, 0, sizeof(sync));
	sync.flags = DMA_BUF_SYNC_READ;
	assert_int_equal(ioctl(e.dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &sync), 0);
	pfd.fd = sync.fd;
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 0), 0);
	assert_int_equal(poll(&pfd, 1, 60000), 1);
	assert_cs(f->st.fd, seq, 0, 0, HL_WAIT_CS_STATUS_COMPLETED);
	close(sync.fd);
	assert_int_equal(imp_dma(f->ifd, false, h, 0, buf, XFER,
				 HL_IMPORTER_DMA_F_WAIT), 0);
	assert_filled(buf, 0x3c, XFER, "after the sync_file signalled");

	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	hltests_host_unmap(f->st.fd, &cb);
	hltests_export_release(f->st.fd, &e);
}

/*
 * What an RDMA user does (its NIC does not wait for fences): WAIT_CS for
 * the writer before posting the transfer.
 */
static void test_wait_cs_before_posting(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hltests_host_buf cb;
	struct hl_importer_map m;
	struct hltests_export e;
	uint8_t buf[XFER];
	uint64_t seq;
	int h;

	skip_if_strict();
	hltests_export_pattern(f->st.fd, &e, 8 * MB, false, 0, 8 * MB, 23);
	h = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_PIN);
	assert_true(h > 0);
	assert_int_equal(imp_map(f->ifd, h, &m), 0);
	seq = slow_fill(f->st.fd, e.dram.va, 8 * MB, 0x1111111111111111ull, 1.0,
			&cb);
	assert_cs(f->st.fd, seq, 120000000, 0, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(imp_dma(f->ifd, false, h, 8 * MB - XFER, buf, XFER, 0), 0);
	assert_filled(buf, 0x11, XFER, "posted after WAIT_CS");
	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	hltests_host_unmap(f->st.fd, &cb);
	hltests_export_release(f->st.fd, &e);
}

/* ---- close: everything but the exported memory goes ---- */

static long long contexts(void)
{
	return hltests_debugfs_value(0, "contexts");
}

/*
 * Closing the compute node releases every mapping, pinned host page and
 * allocation that is not exported, even while an export is kept: only the
 * exported allocation stays, and no context.
 */
static void test_close_releases_all_but_exports(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hltests_dram_buf big, ex;
	struct hltests_host_buf host;
	struct hl_importer_map m;
	uint64_t free0;
	int fd, dmabuf, h;

	skip_if_strict();
	hlthunk_close(f->st.fd);
	f->st.fd = -1;
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	free0 = hltests_dram_free(fd);
	hltests_dram_map(fd, &big, 200 * MB, false);
	hltests_host_map(fd, &host, 64 * MB);
	hltests_dram_map(fd, &ex, 2 * MB, false);
	dmabuf = hlthunk_device_memory_export_dmabuf_fd(fd, ex.va, 2 * MB, O_RDWR);
	assert_true(dmabuf >= 0);
	assert_true(hltests_debugfs_value(0, "pinned_host_pages") >= 16384);
	close(fd);

	assert_int_equal(hltests_debugfs_value(0, "pinned_host_pages"), 0);
	assert_int_equal(hltests_debugfs_value(0, "dram_used"), 2 * MB);
	assert_int_equal(contexts(), 0);
	munmap(host.ptr, 64 * MB);

	/* The export still works */
	h = imp_import(f->ifd, dmabuf, HL_IMPORTER_F_DYNAMIC);
	assert_true(h > 0);
	assert_int_equal(imp_map(f->ifd, h, &m), 0);
	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	close(dmabuf);
	assert_int_equal(hltests_debugfs_value(0, "dram_used"), 0);

	f->st.fd = hltests_open_node(0, 0);
	assert_true(f->st.fd >= 0);
	assert_int_equal(hltests_dram_free(f->st.fd), free0);
}

/* 200 close/reopen cycles, each keeping an export: no ASID runs out */
static void test_reopen_with_kept_exports(void **state)
{
	struct hltests_import_fixture *f = *state;
	enum { CYCLES = 200 };
	struct hltests_dram_buf d;
	int *kept, i, fd;
	uint64_t free0;

	skip_if_strict();
	kept = calloc(CYCLES, sizeof(*kept));
	assert_non_null(kept);
	hlthunk_close(f->st.fd);
	f->st.fd = -1;
	for (i = 0; i < CYCLES; i++) {
		fd = hltests_open_node(0, 0);
		if (fd < 0)
			print_error("open %d: %s\n", i, strerror(-fd));
		assert_true(fd >= 0);
		if (!i)
			free0 = hltests_dram_free(fd);
		hltests_dram_map(fd, &d, 2 * MB, false);
		kept[i] = hlthunk_device_memory_export_dmabuf_fd(fd, d.va, 2 * MB,
								 O_RDWR);
		assert_true(kept[i] >= 0);
		close(fd);
	}
	assert_int_equal(contexts(), 0);
	for (i = 0; i < CYCLES; i++)
		close(kept[i]);
	free(kept);
	f->st.fd = hltests_open_node(0, 0);
	assert_true(f->st.fd >= 0);
	assert_int_equal(hltests_dram_free(f->st.fd), free0);
}

/* debugfs names each live export: size, owner, its attachments */
static void test_debugfs_lists_exports(void **state)
{
	struct hltests_import_fixture *f = *state;
	char busid[32], path[160], buf[4096], line[128];
	struct hltests_export e;
	int h1, h2;

	skip_if_strict();
	assert_int_equal(hltests_pci_addr(0, busid, sizeof(busid)), 0);
	snprintf(path, sizeof(path), "/sys/kernel/debug/habanalabs/%s/exports",
		 busid);
	hltests_export_pattern(f->st.fd, &e, 4 * MB, false, 0, 4 * MB, 24);
	h1 = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_DYNAMIC);
	h2 = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_PIN);
	assert_true(h1 > 0 && h2 > 0);
	assert_int_equal(hltests_read_file(path, buf, sizeof(buf)), 0);
	print_message("%s", buf);
	snprintf(line, sizeof(line), "size %llu pid %d comm %.15s",
		 4 * MB, (int)getpid(), program_invocation_short_name);
	assert_non_null(strstr(buf, line));
	assert_non_null(strstr(buf, "dynamic"));
	assert_non_null(strstr(buf, "pinned"));
	assert_non_null(strstr(buf, "0000:00:08.0"));
	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, h1), 0);
	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, h2), 0);
	hltests_export_release(f->st.fd, &e);
	assert_int_equal(hltests_read_file(path, buf, sizeof(buf)), 0);
	assert_null(strstr(buf, "size"));
}

/* ---- revocation ---- */

static void rebind(int *fd, const char *busid)
{
	assert_int_equal(hltests_write_file("/sys/bus/pci/drivers_probe", busid), 0);
	*fd = hltests_open_node(0, 0);
	assert_true(*fd >= 0);
}

#define RACE_FDS	200

struct exporter_arg {
	int fd;
	uint64_t va;
	volatile int stop;
	int fds[RACE_FDS];
	int n;
};

/* Exports in a loop, keeping the last ones made (at most RACE_FDS) */
static void *export_loop(void *arg)
{
	struct exporter_arg *a = arg;
	int x;

	while (!a->stop) {
		if (a->n == RACE_FDS) {
			while (a->n > RACE_FDS / 2)
				close(a->fds[--a->n]);
		}
		x = hlthunk_device_memory_export_dmabuf_fd(a->fd, a->va, 2 * MB,
							   O_RDWR);
		if (x >= 0)
			a->fds[a->n++] = x;
		else if (x == -ENODEV)
			break;
	}
	return NULL;
}

/*
 * EXPORT racing unbind: no export escapes the revocation. Every dma-buf
 * made before, during or after is refused by the importer with ENODEV.
 */
static void test_export_racing_unbind(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct exporter_arg *a;
	struct hl_importer_map m;
	struct hltests_dram_buf d;
	char busid[32];
	pthread_t t[2];
	int i, k, h, refused = 0;

	skip_if_strict();
	assert_int_equal(hltests_pci_addr(0, busid, sizeof(busid)), 0);
	hltests_dram_map(f->st.fd, &d, 2 * MB, false);
	a = calloc(2, sizeof(*a));
	assert_non_null(a);
	for (i = 0; i < 2; i++) {
		a[i].fd = f->st.fd;
		a[i].va = d.va;
		assert_int_equal(pthread_create(&t[i], NULL, export_loop, &a[i]), 0);
	}
	usleep(20000);
	assert_int_equal(hltests_write_file("/sys/bus/pci/drivers/habanalabs/unbind",
					    busid), 0);
	for (i = 0; i < 2; i++) {
		a[i].stop = 1;
		pthread_join(t[i], NULL);
	}
	for (i = 0; i < 2; i++) {
		for (k = 0; k < a[i].n; k++) {
			h = imp_import(f->ifd, a[i].fds[k], HL_IMPORTER_F_DYNAMIC);
			if (h > 0) {
				assert_int_equal(imp_map(f->ifd, h, &m), -ENODEV);
				assert_int_equal(imp_handle_op(f->ifd,
					HL_IMPORTER_IOCTL_RELEASE, h), 0);
			} else {
				assert_int_equal(h, -ENODEV);
			}
			refused++;
			close(a[i].fds[k]);
		}
	}
	print_message("%d exports made around the unbind, all revoked\n", refused);
	free(a);
	hlthunk_close(f->st.fd);
	rebind(&f->st.fd, busid);
}

/*
 * After the revocation, a DMA through the revoked mapping's addresses (an
 * importer that kept them) faults in the IOMMU instead of reaching HBM.
 */
static void test_revoked_mapping_is_cut_off(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hl_importer_map m;
	uint8_t buf[XFER];
	char busid[32];
	struct hltests_export e;
	int h, kmsg;

	skip_if_strict();
	assert_int_equal(hltests_pci_addr(0, busid, sizeof(busid)), 0);
	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 25);
	h = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_DYNAMIC);
	assert_true(h > 0);
	assert_int_equal(imp_map(f->ifd, h, &m), 0);
	/* The stale path works while the mapping is live */
	assert_int_equal(imp_dma(f->ifd, false, h, 0, buf, XFER,
				 HL_IMPORTER_DMA_F_STALE), 0);
	hltests_assert_bytes_equal(buf, e.pattern, XFER, "live mapping");

	assert_int_equal(hltests_write_file("/sys/bus/pci/drivers/habanalabs/unbind",
					    busid), 0);
	kmsg = open("/dev/kmsg", O_WRONLY);
	assert_true(kmsg >= 0);
	assert_true(write(kmsg, "hlvm: expect-dmar-faults begin\n", 31) > 0);
	memset(buf, 0x5a, sizeof(buf));
	imp_dma(f->ifd, false, h, 0, buf, XFER, HL_IMPORTER_DMA_F_STALE);
	usleep(200 * 1000);
	assert_true(write(kmsg, "hlvm: expect-dmar-faults end\n", 29) > 0);
	close(kmsg);
	assert_memory_not_equal(buf, e.pattern, XFER);

	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	close(e.dmabuf);
	free(e.pattern);
	hlthunk_close(f->st.fd);
	rebind(&f->st.fd, busid);
}

/*
 * An importer that cannot be revoked (a pinned import that ignores
 * move_notify, as ib_umem_dmabuf_get_pinned's) keeps its mapping: unbind
 * waits until it lets go, instead of releasing a BAR that it still reaches.
 */
static void test_unbind_waits_for_unrevocable_pin(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct hl_importer_map m;
	char busid[32];
	struct hltests_export e;
	int h, status, i;
	pid_t pid;

	skip_if_strict();
	assert_int_equal(hltests_pci_addr(0, busid, sizeof(busid)), 0);
	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 26);
	h = imp_import(f->ifd, e.dmabuf,
		       HL_IMPORTER_F_PIN | HL_IMPORTER_F_PIN_NO_REVOKE);
	assert_true(h > 0);
	assert_int_equal(imp_map(f->ifd, h, &m), 0);
	close(e.dmabuf);
	hlthunk_close(f->st.fd);
	f->st.fd = -1;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* The import must not live on in this child */
		close(f->ifd);
		_exit(hltests_write_file("/sys/bus/pci/drivers/habanalabs/unbind",
					 busid) ? 1 : 0);
	}
	sleep(2);
	/* Still waiting: the device's nodes are still there */
	assert_int_equal(waitpid(pid, &status, WNOHANG), 0);
	assert_int_equal(access("/sys/class/habanalabs/hl0", F_OK), 0);
	/* The data is still there for the importer that holds it */
	check_read(f->ifd, h, 0, e.pattern, XFER, "pinned through the unbind");

	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	for (i = 0; i < 300 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(100000);
	assert_true(i < 300);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	free(e.pattern);
	rebind(&f->st.fd, busid);
}

/* ---- hard reset with live state ---- */

struct waiter {
	int fd;
	uint64_t seq;
	uint32_t status;
	int rc;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	w->status = 0xdead;
	w->rc = hlthunk_wait_for_cs(w->fd, w->seq, 120000000, &w->status);
	return NULL;
}

/*
 * A hard reset (root, sysfs) while memory is allocated, mapped, exported
 * to an attached importer and a CS runs: the CS fails, the export is
 * revoked, HBM is scrubbed, the old fd can only be closed (ENODEV), a new
 * open gets a working device.
 */
static void test_hard_reset_with_live_state(void **state)
{
	const char *scrub = "/sys/module/habanalabs/parameters/memory_scrub";
	struct hltests_import_fixture *f = *state;
	struct hlthunk_hw_ip_info hw;
	struct hltests_dram_buf big, d;
	struct hltests_host_buf cb;
	struct hl_importer_status st;
	struct hl_importer_map m;
	struct hltests_export e;
	struct waiter w;
	uint8_t *buf, *zero;
	char old_scrub[8];
	pthread_t t;
	int old, h, fd;
	uint64_t seed = 77, i;

	skip_if_strict();
	old = f->st.fd;
	assert_int_equal(hlthunk_get_hw_ip_info(old, &hw), 0);
	/* 64 MiB of pattern that no later owner may read */
	hltests_dram_map(old, &big, 64 * MB, false);
	buf = malloc(64 * MB);
	zero = calloc(1, 64 * MB);
	assert_non_null(buf);
	assert_non_null(zero);
	hltests_fill_random(&seed, buf, 64 * MB);
	hltests_write_device(old, big.va, buf, 64 * MB);
	hltests_export_pattern(old, &e, 4 * MB, false, 0, 4 * MB, 28);
	h = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_DYNAMIC);
	assert_true(h > 0);
	assert_int_equal(imp_map(f->ifd, h, &m), 0);
	/* A job of hours: 65536 MEMSETs of the export, cut by the reset */
	memset(&w, 0, sizeof(w));
	w.fd = old;
	hltests_host_map(old, &cb, 2 * MB);
	for (i = 0; i < 2 * MB / HLTHUNK_PKT_MEMSET_SIZE; i++)
		hlthunk_pkt_memset(cb.ptr + i * HLTHUNK_PKT_MEMSET_SIZE,
				   e.dram.va, i, 4 * MB);
	w.seq = hltests_submit_cb(old, 2, cb.va, 2 * MB, 60);
	assert_int_equal(pthread_create(&t, NULL, wait_thread, &w), 0);
	usleep(100000);

	assert_int_equal(hltests_read_file(scrub, old_scrub, sizeof(old_scrub)), 0);
	assert_int_equal(hltests_write_file(scrub, "0"), 0);
	assert_int_equal(hltests_write_file("/sys/class/habanalabs/hl0/hard_reset",
					    "1"), 0);

	/* The running CS failed */
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(w.rc, -EIO);
	assert_int_equal(w.status, HL_WAIT_CS_STATUS_ABORTED);
	/* The export is revoked */
	st = imp_status(f->ifd, h);
	assert_int_equal(st.state, HL_IMPORTER_STATE_REVOKED);
	assert_int_equal(imp_map(f->ifd, h, &m), -ENODEV);
	/* The old fd is dead */
	assert_int_equal(hlthunk_get_hw_ip_info(old, &hw), -ENODEV);
	assert_int_equal(hlthunk_memory_unmap(old, big.va), -ENODEV);

	/* A new open works, while the old fd is still open */
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);
	assert_int_equal(hltests_dram_free(fd), hw.dram_size - 4 * MB);
	hltests_dram_map(fd, &d, 64 * MB, false);
	hltests_read_device(fd, d.va, buf, 64 * MB);
	assert_int_equal(hltests_write_file(scrub, old_scrub), 0);
	hltests_assert_bytes_equal(buf, zero, 64 * MB, "HBM after the reset");
	/* And runs DMA */
	hltests_fill_random(&seed, buf, 2 * MB);
	hltests_write_device(fd, d.va, buf, 2 * MB);
	hltests_read_device(fd, d.va, zero, 2 * MB);
	hltests_assert_bytes_equal(zero, buf, 2 * MB, "DMA after the reset");
	hltests_dram_unmap(fd, &d);

	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	close(e.dmabuf);
	free(e.pattern);
	hlthunk_close(old);
	assert_int_equal(hltests_dram_free(fd), hw.dram_size);
	f->st.fd = fd;
	free(buf);
	free(zero);
}

/*
 * A CS fence handed out (a sync_file) must not outlive the module's code:
 * while it lives, the module cannot be removed. (Runs last: with the bug,
 * rmmod succeeds and the suite's device is gone.)
 */
static void test_fence_keeps_module(void **state)
{
	struct hltests_import_fixture *f = *state;
	struct dma_buf_export_sync_file sync;
	struct hltests_host_buf cb;
	struct hltests_export e;
	uint64_t seq;
	int rc;

	skip_if_strict();
	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 27);
	seq = slow_fill(f->st.fd, e.dram.va, 2 * MB, 0, 0.5, &cb);
	memset(&sync, 0, sizeof(sync));
	sync.flags = DMA_BUF_SYNC_READ;
	assert_int_equal(ioctl(e.dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &sync), 0);
	(void)seq;
	close(e.dmabuf);
	free(e.pattern);
	hlthunk_close(f->st.fd);
	f->st.fd = -1;
	close(f->ifd);
	f->ifd = -1;

	rc = system("rmmod habanalabs 2>/dev/null");
	assert_int_not_equal(rc, 0);
	close(sync.fd);
	f->st.fd = hltests_open_node(0, 0);
	assert_true(f->st.fd >= 0);
	f->ifd = open("/dev/hl_importer", O_RDWR | O_CLOEXEC);
	assert_true(f->ifd >= 0);
}

/*
 * The negative control (a separate VM run, dmabuf_raw_bar_addresses=1):
 * the exporter puts raw BAR bus addresses in the sg_table, as the rejected
 * upstream approach did. Under the strict IOMMU the edu device must fault
 * and read wrong data: the same reads that pass above fail here, so they
 * would catch that bug.
 */
static void test_raw_bar_addresses_are_caught(void **state)
{
	struct hltests_import_fixture *f = *state;
	uint8_t buf[XFER];
	struct hl_importer_map m;
	struct hltests_export e;
	char dmesg[1 << 16];
	int h, kmsg;
	FILE *p;
	size_t n;

	hltests_export_pattern(f->st.fd, &e, 2 * MB, false, 0, 2 * MB, 12);
	h = imp_import(f->ifd, e.dmabuf, HL_IMPORTER_F_DYNAMIC);
	assert_true(h > 0);
	assert_int_equal(imp_map(f->ifd, h, &m), 0);

	kmsg = open("/dev/kmsg", O_WRONLY);
	assert_true(kmsg >= 0);
	assert_true(write(kmsg, "hlvm: expect-dmar-faults begin\n", 31) > 0);
	memset(buf, 0x5a, sizeof(buf));
	/* edu reports no error: the transfer "succeeds" with wrong data */
	assert_int_equal(imp_dma(f->ifd, false, h, 0, buf, XFER, 0), 0);
	usleep(200 * 1000);
	assert_true(write(kmsg, "hlvm: expect-dmar-faults end\n", 29) > 0);
	close(kmsg);

	assert_memory_not_equal(buf, e.pattern, XFER);
	p = popen("dmesg", "r");
	assert_non_null(p);
	n = fread(dmesg, 1, sizeof(dmesg) - 1, p);
	pclose(p);
	dmesg[n] = '\0';
	assert_non_null(strstr(dmesg, "DMAR: [DMA Read"));
	print_message("the raw BAR address faulted in the IOMMU and read wrong data, as it must\n");

	assert_int_equal(imp_handle_op(f->ifd, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	hltests_export_release(f->st.fd, &e);
}

static const struct CMUnitTest dmabuf_tests[] = {
	cmocka_unit_test_setup_teardown(test_export_errors, setup, teardown),
	cmocka_unit_test_setup_teardown(test_fd_is_a_dmabuf_without_cpu_access,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_p2p_policy, setup, teardown),
	cmocka_unit_test_setup_teardown(test_importer_without_p2p_is_refused,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_importer_reads_what_the_accelerator_wrote,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_accelerator_reads_what_the_importer_wrote,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_sg_table_chunks_and_addresses,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_entries_cut_at_importer_limits,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_sub_range_export, setup, teardown),
	cmocka_unit_test_setup_teardown(test_many_exports_of_one_allocation,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_importer_maps_of_a_page_are_bounded,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_device_fd_closed_before_dmabuf,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_owner_process_exits, setup,
					teardown),
	cmocka_unit_test_setup_teardown(test_export_during_cs_carries_its_fence,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_cs_fence_is_write_usage, setup,
					teardown),
	cmocka_unit_test_setup_teardown(test_wait_cs_before_posting, setup,
					teardown),
	cmocka_unit_test_setup_teardown(test_close_releases_all_but_exports,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_reopen_with_kept_exports, setup,
					teardown),
	cmocka_unit_test_setup_teardown(test_debugfs_lists_exports, setup,
					teardown),
	cmocka_unit_test_setup_teardown(test_unbind_revokes_exports, setup,
					teardown),
	cmocka_unit_test_setup_teardown(test_export_racing_unbind, setup,
					teardown),
	cmocka_unit_test_setup_teardown(test_revoked_mapping_is_cut_off, setup,
					teardown),
	cmocka_unit_test_setup_teardown(test_unbind_waits_for_unrevocable_pin,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_hard_reset_with_live_state, setup,
					teardown),
	/* Last: with the bug it removes the module */
	cmocka_unit_test_setup_teardown(test_fence_keeps_module, setup,
					teardown),
};

static const struct CMUnitTest dmabuf_negative_tests[] = {
	cmocka_unit_test_setup_teardown(test_raw_bar_addresses_are_caught,
					setup, teardown),
};

int main(int argc, char **argv)
{
	char policy[32] = "";

	hltests_read_file("/sys/module/habanalabs/parameters/p2p_policy",
			  policy, sizeof(policy));
	policy_strict = strcmp(policy, "iommu") != 0;
	fprintf(stderr, "dmabuf: p2p_policy=%s\n", policy);

	if (argc > 1 && !strcmp(argv[1], "--negative-control"))
		return HLTESTS_RUN("dmabuf_negative_control", dmabuf_negative_tests);
	return HLTESTS_RUN("dmabuf", dmabuf_tests);
}

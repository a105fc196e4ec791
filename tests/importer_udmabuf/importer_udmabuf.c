// SPDX-License-Identifier: MIT
/*
 * importer_udmabuf: the dma-buf test importer (tests/importer/hl_importer.ko,
 * QEMU's edu device) against udmabuf, an exporter of system memory. Data
 * written with the CPU into a memfd must come back by edu DMA through the
 * IOMMU at the DMA addresses of udmabuf's sg_table, and data written by edu
 * DMA must show up in the memfd.
 *
 * Needs /dev/hl_importer and /dev/udmabuf (run inside dev/hlvm), not
 * /dev/hlN. A few tests rebind the edu device and need root.
 *
 *   importer_udmabuf                     the suite
 *   importer_udmabuf --negative-control  with corrupt_dma_addr=1 the DMA
 *       must go wrong and an IOMMU fault must be logged (expects hlvm's
 *       "expect-dmar-faults" markers; see tests/importer/negative-control)
 *
 * Every edu DMA takes about 100 ms, so transfers are kept small.
 */
#include "hltests.h"
#include "../importer/hl_importer.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <linux/dma-buf.h>
#include <linux/udmabuf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define IMPORTER_DEV	"/dev/hl_importer"
#define UDMABUF_DEV	"/dev/udmabuf"
#define IMPORTER_SYSFS	"/sys/bus/pci/drivers/hl_importer"
#define IMPORTER_PARAMS	"/sys/module/hl_importer/parameters"
#define BUFINFO		"/sys/kernel/debug/dma_buf/bufinfo"
#define SW_SYNC		"/sys/kernel/debug/sync/sw_sync"
#define PAGE		4096u
#define EDU_PIECE	2048u

/* A udmabuf over a memfd that the test also maps */
struct ubuf {
	int memfd;
	int dmabuf;
	size_t size;
	uint8_t *cpu;
};

struct state {
	int imp;	/* /dev/hl_importer */
};

/* ---------------------------------------------------------------------- */
/* Helpers */

static uint8_t pattern_byte(size_t i, uint32_t seed)
{
	uint32_t x = (uint32_t)i * 2654435761u ^ seed * 0x9e3779b9u;

	x ^= x >> 15;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	return (uint8_t)x;
}

static void fill_pattern(uint8_t *p, size_t off, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pattern_byte(off + i, seed);
}

/* Compare and print the first difference */
static bool same_bytes(const uint8_t *got, const uint8_t *want, size_t len,
		       size_t base)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (got[i] != want[i]) {
			print_error("byte at offset %zu: expected 0x%02x, found 0x%02x\n",
				    base + i, want[i], got[i]);
			return false;
		}
	}
	return true;
}

static int ubuf_create(struct ubuf *u, size_t size, uint32_t seed)
{
	struct udmabuf_create create;
	int dev, ret;

	memset(u, 0, sizeof(*u));
	u->memfd = -1;
	u->dmabuf = -1;
	u->size = size;
	u->memfd = memfd_create("importer_udmabuf", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (u->memfd < 0)
		return -errno;
	if (ftruncate(u->memfd, size) || fcntl(u->memfd, F_ADD_SEALS, F_SEAL_SHRINK))
		return -errno;
	u->cpu = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, u->memfd, 0);
	if (u->cpu == MAP_FAILED) {
		u->cpu = NULL;
		return -errno;
	}
	fill_pattern(u->cpu, 0, size, seed);

	dev = open(UDMABUF_DEV, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -errno;
	memset(&create, 0, sizeof(create));
	create.memfd = u->memfd;
	create.flags = UDMABUF_FLAGS_CLOEXEC;
	create.offset = 0;
	create.size = size;
	ret = ioctl(dev, UDMABUF_CREATE, &create);
	if (ret < 0)
		ret = -errno;
	close(dev);
	if (ret < 0)
		return ret;
	u->dmabuf = ret;
	return 0;
}

static void ubuf_destroy(struct ubuf *u)
{
	if (u->cpu)
		munmap(u->cpu, u->size);
	if (u->dmabuf >= 0)
		close(u->dmabuf);
	if (u->memfd >= 0)
		close(u->memfd);
	memset(u, 0, sizeof(*u));
}

static struct ubuf *ubuf_new(size_t size, uint32_t seed)
{
	struct ubuf *u = calloc(1, sizeof(*u));
	int ret;

	assert_non_null(u);
	ret = ubuf_create(u, size, seed);
	if (ret)
		print_error("udmabuf of %zu bytes: %s\n", size, strerror(-ret));
	assert_int_equal(ret, 0);
	return u;
}

static void ubuf_free(struct ubuf *u)
{
	ubuf_destroy(u);
	free(u);
}

static int imp_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

static int imp_import(int fd, int dmabuf, uint32_t flags, uint32_t *handle,
		      uint64_t *size)
{
	struct hl_importer_import a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.fd = (uint32_t)dmabuf;
	a.flags = flags;
	ret = imp_ioctl(fd, HL_IMPORTER_IOCTL_IMPORT, &a);
	if (!ret) {
		*handle = a.handle;
		if (size)
			*size = a.size;
	}
	return ret;
}

static int imp_map(int fd, uint32_t handle, struct hl_importer_map *out)
{
	struct hl_importer_map a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.handle = handle;
	ret = imp_ioctl(fd, HL_IMPORTER_IOCTL_MAP, &a);
	if (out)
		*out = a;
	return ret;
}

static int imp_sg_entry(int fd, uint32_t handle, uint32_t index,
			uint64_t *addr, uint64_t *len)
{
	struct hl_importer_sg_entry a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.handle = handle;
	a.index = index;
	ret = imp_ioctl(fd, HL_IMPORTER_IOCTL_SG_ENTRY, &a);
	if (!ret) {
		*addr = a.dma_addr;
		*len = a.len;
	}
	return ret;
}

static int imp_dma_flags(int fd, bool write, uint32_t flags, uint32_t handle,
			 uint64_t offset, uint64_t size, void *p)
{
	struct hl_importer_dma a;

	memset(&a, 0, sizeof(a));
	a.handle = handle;
	a.flags = flags;
	a.offset = offset;
	a.size = size;
	a.user_ptr = (uint64_t)(uintptr_t)p;
	return imp_ioctl(fd, write ? HL_IMPORTER_IOCTL_DMA_WRITE :
			 HL_IMPORTER_IOCTL_DMA_READ, &a);
}

static int imp_dma(int fd, bool write, uint32_t handle, uint64_t offset,
		   uint64_t size, void *p)
{
	return imp_dma_flags(fd, write, 0, handle, offset, size, p);
}

static int imp_handle_op(int fd, unsigned long req, uint32_t handle)
{
	struct hl_importer_handle a;

	memset(&a, 0, sizeof(a));
	a.handle = handle;
	return imp_ioctl(fd, req, &a);
}

static int imp_status(int fd, uint32_t handle, struct hl_importer_status *st)
{
	memset(st, 0, sizeof(*st));
	st->handle = handle;
	return imp_ioctl(fd, HL_IMPORTER_IOCTL_STATUS, st);
}

/* DMA_READ @len bytes at @off and compare with the memfd */
static void check_read(int fd, uint32_t handle, const struct ubuf *u,
		       size_t off, size_t len)
{
	uint8_t *got = malloc(len);
	int ret;

	assert_non_null(got);
	memset(got, 0, len);
	ret = imp_dma(fd, false, handle, off, len, got);
	if (ret)
		print_error("DMA_READ offset %zu size %zu: %s\n", off, len,
			    strerror(-ret));
	assert_int_equal(ret, 0);
	assert_true(same_bytes(got, u->cpu + off, len, off));
	free(got);
}

/* DMA_WRITE a new pattern at @off and check the memfd, and its neighbours */
static void check_write(int fd, uint32_t handle, struct ubuf *u, size_t off,
			size_t len, uint32_t seed)
{
	uint8_t *src = malloc(len), *before = malloc(u->size);
	int ret;

	assert_non_null(src);
	assert_non_null(before);
	fill_pattern(src, off, len, seed);
	memcpy(before, u->cpu, u->size);
	ret = imp_dma(fd, true, handle, off, len, src);
	if (ret)
		print_error("DMA_WRITE offset %zu size %zu: %s\n", off, len,
			    strerror(-ret));
	assert_int_equal(ret, 0);
	assert_true(same_bytes(u->cpu + off, src, len, off));
	assert_true(same_bytes(u->cpu, before, off, 0));
	assert_true(same_bytes(u->cpu + off + len, before + off + len,
			       u->size - off - len, off + len));
	free(before);
	free(src);
}

/* Check the mapping's segments against MAP's summary; returns nents */
static uint32_t check_segments(int fd, uint32_t handle,
			       const struct hl_importer_map *m, uint64_t size)
{
	uint64_t addr, len, total = 0;
	uint32_t i;

	assert_true(m->nents >= 1);
	assert_true(m->total_len >= size);
	assert_true(m->max_seg_size >= PAGE);
	for (i = 0; i < m->nents; i++) {
		assert_int_equal(imp_sg_entry(fd, handle, i, &addr, &len), 0);
		assert_true(len > 0);
		assert_true(len <= m->max_seg_size);
		assert_true(addr != 0);
		total += len;
	}
	assert_int_equal(total, m->total_len);
	assert_int_equal(imp_sg_entry(fd, handle, m->nents, &addr, &len), -EINVAL);
	return m->nents;
}

/* PCI name of the edu device bound to hl_importer, e.g. "0000:00:08.0" */
static int edu_bdf(char *buf, size_t size)
{
	glob_t g;
	int ret = -ENODEV;

	if (glob(IMPORTER_SYSFS "/0000:*", 0, NULL, &g))
		return -ENODEV;
	if (g.gl_pathc == 1) {
		snprintf(buf, size, "%s", strrchr(g.gl_pathv[0], '/') + 1);
		ret = 0;
	}
	globfree(&g);
	return ret;
}

static int write_file(const char *path, const char *text)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	return 0;
}

static int set_param(const char *name, unsigned int val)
{
	char path[128], text[32];

	snprintf(path, sizeof(path), IMPORTER_PARAMS "/%s", name);
	snprintf(text, sizeof(text), "%u", val);
	return write_file(path, text);
}

/* Unbind and bind the edu device again (probe re-reads max_seg_size) */
static int rebind_edu(const char *bdf)
{
	int ret;

	ret = write_file(IMPORTER_SYSFS "/unbind", bdf);
	if (ret)
		return ret;
	return write_file(IMPORTER_SYSFS "/bind", bdf);
}

/* Whether debugfs' bufinfo lists the dma-buf of inode @ino */
static int bufinfo_has_inode(unsigned long ino)
{
	char line[512], want[32];
	bool found = false;
	FILE *f;

	f = fopen(BUFINFO, "re");
	if (!f)
		return -errno;
	snprintf(want, sizeof(want), "\t%08lu\t", ino);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, want))
			found = true;
	fclose(f);
	return found;
}

static int setup(void **state)
{
	struct state *st = calloc(1, sizeof(*st));

	if (!st)
		return -1;
	st->imp = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	if (st->imp < 0) {
		print_error("open %s: %s\n", IMPORTER_DEV, strerror(errno));
		free(st);
		return -1;
	}
	*state = st;
	return 0;
}

static int teardown(void **state)
{
	struct state *st = *state;

	if (st) {
		if (st->imp >= 0)
			close(st->imp);
		free(st);
	}
	*state = NULL;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Tests */

/* Import with @flags, map, and read at the interesting offsets */
static void read_offsets(int fd, uint32_t flags)
{
	const size_t size = 16 * PAGE;
	struct ubuf *u = ubuf_new(size, 1 + flags);
	struct hl_importer_map m;
	uint64_t got_size = 0;
	uint32_t h = 0;

	assert_int_equal(imp_import(fd, u->dmabuf, flags, &h, &got_size), 0);
	assert_true(h >= 1);
	assert_int_equal(got_size, size);
	assert_int_equal(imp_map(fd, h, &m), 0);
	check_segments(fd, h, &m, size);

	check_read(fd, h, u, 0, EDU_PIECE);			/* start */
	check_read(fd, h, u, size - EDU_PIECE, EDU_PIECE);	/* the end */
	check_read(fd, h, u, 3 * PAGE - 700, 1500);		/* a page boundary */
	check_read(fd, h, u, 5 * PAGE + 13, 333);		/* unaligned */
	check_read(fd, h, u, size - 1, 1);			/* last byte */

	assert_int_equal(imp_handle_op(fd, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	ubuf_free(u);
}

static void test_static_import_reads_memfd_data(void **state)
{
	struct state *st = *state;

	read_offsets(st->imp, 0);
}

static void test_dynamic_import_reads_memfd_data(void **state)
{
	struct state *st = *state;

	read_offsets(st->imp, HL_IMPORTER_F_DYNAMIC);
}

static void test_pinned_import_reads_memfd_data(void **state)
{
	struct state *st = *state;

	read_offsets(st->imp, HL_IMPORTER_F_PIN);
}

static void test_no_p2p_import_reads_memfd_data(void **state)
{
	struct state *st = *state;

	/* System memory: allow_peer2peer = false changes nothing */
	read_offsets(st->imp, HL_IMPORTER_F_DYNAMIC | HL_IMPORTER_F_NO_P2P);
}

static void test_dma_write_shows_in_memfd(void **state)
{
	static const uint32_t flags[] = { 0, HL_IMPORTER_F_DYNAMIC };
	struct state *st = *state;
	const size_t size = 4 * PAGE;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct ubuf *u = ubuf_new(size, 10 + i);
		uint32_t h = 0;

		assert_int_equal(imp_import(st->imp, u->dmabuf, flags[i], &h, NULL), 0);
		assert_int_equal(imp_map(st->imp, h, NULL), 0);
		check_write(st->imp, h, u, PAGE - 100, 300, 20 + i);	/* page boundary */
		check_write(st->imp, h, u, 2 * PAGE + 7, 101, 30 + i);	/* unaligned */
		check_write(st->imp, h, u, size - EDU_PIECE, EDU_PIECE, 40 + i);
		/* What was written reads back by DMA too */
		check_read(st->imp, h, u, PAGE - 100, 300);
		ubuf_free(u);	/* the import keeps the dma-buf alive */
		assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	}
}

static void test_multi_piece_transfer_whole_buffer(void **state)
{
	struct state *st = *state;
	const size_t size = 4 * PAGE;
	struct ubuf *u = ubuf_new(size, 50);
	uint8_t *src = malloc(size);
	uint32_t h = 0;

	assert_non_null(src);
	assert_int_equal(imp_import(st->imp, u->dmabuf, HL_IMPORTER_F_DYNAMIC, &h, NULL), 0);
	assert_int_equal(imp_map(st->imp, h, NULL), 0);
	check_read(st->imp, h, u, 0, size);

	fill_pattern(src, 0, size, 51);
	assert_int_equal(imp_dma(st->imp, true, h, 0, size, src), 0);
	assert_true(same_bytes(u->cpu, src, size, 0));
	free(src);
	ubuf_free(u);
	assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_RELEASE, h), 0);
}

static void test_move_notify_revokes_until_remap(void **state)
{
	static const uint32_t flags[] = { HL_IMPORTER_F_DYNAMIC, HL_IMPORTER_F_PIN };
	struct state *st = *state;
	struct hl_importer_status s;
	uint64_t addr = 0, len = 0;
	uint8_t b;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct ubuf *u = ubuf_new(2 * PAGE, 60 + i);
		uint32_t h = 0;

		assert_int_equal(imp_import(st->imp, u->dmabuf, flags[i], &h, NULL), 0);
		assert_int_equal(imp_status(st->imp, h, &s), 0);
		assert_int_equal(s.state, HL_IMPORTER_STATE_UNMAPPED);
		assert_int_equal(s.flags, flags[i]);
		assert_int_equal(s.move_notify_count, 0);

		assert_int_equal(imp_map(st->imp, h, NULL), 0);
		assert_int_equal(imp_status(st->imp, h, &s), 0);
		assert_int_equal(s.state, HL_IMPORTER_STATE_MAPPED);
		assert_true(s.nents >= 1);
		check_read(st->imp, h, u, PAGE - 10, 20);

		assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_FAKE_MOVE, h), 0);
		assert_int_equal(imp_status(st->imp, h, &s), 0);
		assert_int_equal(s.state, HL_IMPORTER_STATE_REVOKED);
		assert_int_equal(s.move_notify_count, 1);
		assert_int_equal(s.nents, 0);
		assert_int_equal(imp_dma(st->imp, false, h, 0, 1, &b), -ESTALE);
		assert_int_equal(imp_dma(st->imp, true, h, 0, 1, &b), -ESTALE);
		assert_int_equal(imp_sg_entry(st->imp, h, 0, &addr, &len), -ESTALE);

		/* A second notification while revoked only counts */
		assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_FAKE_MOVE, h), 0);
		assert_int_equal(imp_status(st->imp, h, &s), 0);
		assert_int_equal(s.move_notify_count, 2);

		/* MAP again: DMA works again (a pinned import is pinned again) */
		assert_int_equal(imp_map(st->imp, h, NULL), 0);
		check_read(st->imp, h, u, PAGE - 10, 20);
		assert_int_equal(imp_status(st->imp, h, &s), 0);
		assert_int_equal(s.state, HL_IMPORTER_STATE_MAPPED);

		/* Revoked, then UNMAP: plain unmapped */
		assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_FAKE_MOVE, h), 0);
		assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_UNMAP, h), 0);
		assert_int_equal(imp_status(st->imp, h, &s), 0);
		assert_int_equal(s.state, HL_IMPORTER_STATE_UNMAPPED);
		assert_int_equal(imp_dma(st->imp, false, h, 0, 1, &b), -ENODATA);

		/* Left mapped and revoked again: RELEASE cleans up */
		assert_int_equal(imp_map(st->imp, h, NULL), 0);
		assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_FAKE_MOVE, h), 0);
		assert_int_equal(imp_map(st->imp, h, NULL), 0);
		assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_RELEASE, h), 0);
		ubuf_free(u);
	}
}

static void test_map_unmap_cycles(void **state)
{
	struct state *st = *state;
	struct ubuf *u = ubuf_new(2 * PAGE, 70);
	struct hl_importer_map m1, m2;
	uint32_t h = 0;
	uint8_t b;
	int i;

	assert_int_equal(imp_import(st->imp, u->dmabuf, 0, &h, NULL), 0);
	assert_int_equal(imp_dma(st->imp, false, h, 0, 1, &b), -ENODATA);
	assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_UNMAP, h), -ENODATA);
	for (i = 0; i < 3; i++) {
		assert_int_equal(imp_map(st->imp, h, &m1), 0);
		/* MAP of a mapped import reports the same mapping */
		assert_int_equal(imp_map(st->imp, h, &m2), 0);
		assert_int_equal(m1.nents, m2.nents);
		assert_int_equal(m1.total_len, m2.total_len);
		assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_UNMAP, h), 0);
		assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_UNMAP, h), -ENODATA);
	}
	assert_int_equal(imp_map(st->imp, h, NULL), 0);
	check_read(st->imp, h, u, PAGE + 1, 10);
	assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	ubuf_free(u);
}

static void test_same_dmabuf_imported_twice_and_by_two_files(void **state)
{
	struct state *st = *state;
	struct ubuf *u = ubuf_new(2 * PAGE, 80);
	uint32_t h1 = 0, h2 = 0, h3 = 0;
	int fd2;

	fd2 = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	assert_true(fd2 >= 0);
	assert_int_equal(imp_import(st->imp, u->dmabuf, 0, &h1, NULL), 0);
	assert_int_equal(imp_import(st->imp, u->dmabuf, HL_IMPORTER_F_DYNAMIC, &h2, NULL), 0);
	assert_int_equal(imp_import(fd2, u->dmabuf, 0, &h3, NULL), 0);
	assert_true(h1 != h2);
	assert_int_equal(imp_map(st->imp, h1, NULL), 0);
	assert_int_equal(imp_map(st->imp, h2, NULL), 0);
	assert_int_equal(imp_map(fd2, h3, NULL), 0);
	check_read(st->imp, h1, u, 100, 50);
	check_read(st->imp, h2, u, PAGE + 100, 50);
	check_read(fd2, h3, u, 2 * PAGE - 50, 50);
	/* Handles are per file */
	assert_int_equal(imp_handle_op(fd2, HL_IMPORTER_IOCTL_UNMAP, h2 + 100), -ENOENT);
	/* A revocation of one attachment leaves the others mapped */
	assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_FAKE_MOVE, h2), 0);
	check_read(st->imp, h1, u, 200, 50);
	check_read(fd2, h3, u, 200, 50);
	close(fd2);
	check_read(st->imp, h1, u, 300, 50);
	ubuf_free(u);
}

struct racer {
	int fd;
	uint32_t handle;
	int rounds;
	int errors;	/* unexpected results */
	int result;
	int done;
};

/* Revoke and map again, over and over, as a moving exporter would */
static void *move_and_remap(void *arg)
{
	struct racer *r = arg;
	int i, ret;

	for (i = 0; i < r->rounds; i++) {
		ret = imp_handle_op(r->fd, HL_IMPORTER_IOCTL_FAKE_MOVE, r->handle);
		if (ret)
			r->errors++;
		usleep(30 * 1000);
		ret = imp_map(r->fd, r->handle, NULL);
		if (ret)
			r->errors++;
		usleep(120 * 1000);
	}
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_move_notify_races_with_dma(void **state)
{
	struct state *st = *state;
	struct ubuf *u = ubuf_new(2 * PAGE, 140);
	struct racer r = { .fd = st->imp, .rounds = 8 };
	struct hl_importer_status s;
	int i, ok = 0, stale = 0, ret;
	uint8_t got[64];
	pthread_t t;

	assert_int_equal(imp_import(st->imp, u->dmabuf, HL_IMPORTER_F_DYNAMIC, &r.handle, NULL), 0);
	assert_int_equal(imp_map(st->imp, r.handle, NULL), 0);
	assert_int_equal(pthread_create(&t, NULL, move_and_remap, &r), 0);
	/* Read until the mover is done */
	for (i = 0; !__atomic_load_n(&r.done, __ATOMIC_ACQUIRE); i++) {
		size_t off = (i * 1237) % (2 * PAGE - sizeof(got));

		ret = imp_dma(st->imp, false, r.handle, off, sizeof(got), got);
		if (ret == 0) {
			/* Never data from a mapping that was revoked meanwhile */
			assert_true(same_bytes(got, u->cpu + off, sizeof(got), off));
			ok++;
		} else {
			assert_int_equal(ret, -ESTALE);
			stale++;
			usleep(10 * 1000);
		}
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	print_message("%d reads ok, %d found the mapping revoked\n", ok, stale);
	assert_int_equal(r.errors, 0);
	assert_true(ok > 0);
	assert_int_equal(imp_status(st->imp, r.handle, &s), 0);
	assert_int_equal(s.move_notify_count, r.rounds);
	assert_int_equal(s.state, HL_IMPORTER_STATE_MAPPED);
	ubuf_free(u);
}

static void *release_later(void *arg)
{
	struct racer *r = arg;

	usleep(150 * 1000);
	r->result = imp_handle_op(r->fd, HL_IMPORTER_IOCTL_RELEASE, r->handle);
	return NULL;
}

static void test_release_during_dma_waits_for_it(void **state)
{
	struct state *st = *state;
	const size_t size = 2 * PAGE;
	struct ubuf *u = ubuf_new(size, 150);
	struct racer r = { .fd = st->imp, .result = 1 };
	uint8_t *got = malloc(size);
	pthread_t t;
	uint8_t b;

	assert_non_null(got);
	assert_int_equal(imp_import(st->imp, u->dmabuf, 0, &r.handle, NULL), 0);
	assert_int_equal(imp_map(st->imp, r.handle, NULL), 0);
	/* 4 pieces, about 800 ms; RELEASE comes in the middle */
	assert_int_equal(pthread_create(&t, NULL, release_later, &r), 0);
	assert_int_equal(imp_dma(st->imp, false, r.handle, 0, size, got), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(r.result, 0);
	assert_true(same_bytes(got, u->cpu, size, 0));
	assert_int_equal(imp_dma(st->imp, false, r.handle, 0, 1, &b), -ENOENT);
	free(got);
	ubuf_free(u);
}

static void test_dma_wait_flag_without_fences(void **state)
{
	struct state *st = *state;
	struct ubuf *u = ubuf_new(PAGE, 160);
	uint8_t got[100], src[100];
	uint32_t h = 0;

	assert_int_equal(imp_import(st->imp, u->dmabuf, 0, &h, NULL), 0);
	assert_int_equal(imp_map(st->imp, h, NULL), 0);
	assert_int_equal(imp_dma_flags(st->imp, false, HL_IMPORTER_DMA_F_WAIT, h, 7,
				       sizeof(got), got), 0);
	assert_true(same_bytes(got, u->cpu + 7, sizeof(got), 7));
	fill_pattern(src, 7, sizeof(src), 161);
	assert_int_equal(imp_dma_flags(st->imp, true, HL_IMPORTER_DMA_F_WAIT, h, 7,
				       sizeof(src), src), 0);
	assert_true(same_bytes(u->cpu + 7, src, sizeof(src), 7));
	ubuf_free(u);
}

/* sw_sync (CONFIG_SW_SYNC, debugfs): a fence that userspace signals */
struct sw_sync_create_fence_data {
	uint32_t value;
	char name[32];
	int32_t fence;
};

#define SW_SYNC_IOC_CREATE_FENCE _IOWR('W', 0, struct sw_sync_create_fence_data)
#define SW_SYNC_IOC_INC		_IOW('W', 1, uint32_t)

struct signaller {
	int timeline;
	int delay_ms;
	double signalled_at;
};

static void *signal_later(void *arg)
{
	struct signaller *s = arg;
	uint32_t one = 1;

	usleep(s->delay_ms * 1000);
	s->signalled_at = hltests_now_s();
	if (ioctl(s->timeline, SW_SYNC_IOC_INC, &one))
		s->signalled_at = -1;
	return NULL;
}

static void test_dma_wait_flag_waits_for_write_fence(void **state)
{
	struct state *st = *state;
	struct sw_sync_create_fence_data fd_data;
	struct dma_buf_import_sync_file isf;
	struct signaller sig = { .delay_ms = 600 };
	struct ubuf *u;
	uint8_t got[64];
	uint32_t h = 0, h2 = 0;
	double t0, t1;
	pthread_t t;

	sig.timeline = open(SW_SYNC, O_RDWR | O_CLOEXEC);
	if (sig.timeline < 0) {
		print_message("%s: %s (kernel without CONFIG_SW_SYNC): skipped\n", SW_SYNC,
			      strerror(errno));
		skip();
	}
	u = ubuf_new(PAGE, 170);
	assert_int_equal(imp_import(st->imp, u->dmabuf, HL_IMPORTER_F_DYNAMIC, &h, NULL), 0);
	assert_int_equal(imp_map(st->imp, h, NULL), 0);

	/* An unsignalled WRITE fence in the dma-buf's reservation object */
	memset(&fd_data, 0, sizeof(fd_data));
	fd_data.value = 1;
	snprintf(fd_data.name, sizeof(fd_data.name), "importer_udmabuf");
	assert_int_equal(ioctl(sig.timeline, SW_SYNC_IOC_CREATE_FENCE, &fd_data), 0);
	memset(&isf, 0, sizeof(isf));
	isf.flags = DMA_BUF_SYNC_WRITE;
	isf.fd = fd_data.fence;
	assert_int_equal(ioctl(u->dmabuf, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &isf), 0);
	close(fd_data.fence);

	/* MAP waits for KERNEL fences only; a plain DMA waits for none */
	assert_int_equal(imp_import(st->imp, u->dmabuf, HL_IMPORTER_F_DYNAMIC, &h2, NULL), 0);
	t0 = hltests_now_s();
	assert_int_equal(imp_map(st->imp, h2, NULL), 0);
	check_read(st->imp, h, u, 0, sizeof(got));
	t1 = hltests_now_s();
	print_message("MAP + DMA_READ with a pending WRITE fence: %.0f ms\n",
		      (t1 - t0) * 1000);

	/* F_WAIT: the read starts only once the fence signalled */
	assert_int_equal(pthread_create(&t, NULL, signal_later, &sig), 0);
	t0 = hltests_now_s();
	assert_int_equal(imp_dma_flags(st->imp, false, HL_IMPORTER_DMA_F_WAIT, h, 0,
				       sizeof(got), got), 0);
	t1 = hltests_now_s();
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(sig.signalled_at > 0);
	print_message("DMA_READ with F_WAIT returned %.0f ms after the signal\n",
		      (t1 - sig.signalled_at) * 1000);
	assert_true(t1 >= sig.signalled_at);
	assert_true(t1 - t0 >= sig.delay_ms / 1000.0 - 0.05);
	assert_true(same_bytes(got, u->cpu, sizeof(got), 0));
	close(sig.timeline);
	ubuf_free(u);
}

static void test_errnos(void **state)
{
	struct state *st = *state;
	struct ubuf *u = ubuf_new(2 * PAGE, 90);
	struct hl_importer_import imp, *ro;
	struct hl_importer_map map;
	struct hl_importer_sg_entry sge;
	struct hl_importer_dma dma;
	struct hl_importer_handle hd;
	struct hl_importer_status s;
	uint8_t buf[64];
	uint64_t addr = 0, len = 0;
	uint32_t h = 0;

	/* IMPORT */
	assert_int_equal(imp_import(st->imp, -1, 0, &h, NULL), -EBADF);
	assert_int_equal(imp_import(st->imp, 1000, 0, &h, NULL), -EBADF);
	assert_int_equal(imp_import(st->imp, u->memfd, 0, &h, NULL), -EINVAL);
	assert_int_equal(imp_import(st->imp, u->dmabuf, 0x80, &h, NULL), -EINVAL);
	memset(&imp, 0, sizeof(imp));
	imp.fd = u->dmabuf;
	imp.pad = 1;
	assert_int_equal(imp_ioctl(st->imp, HL_IMPORTER_IOCTL_IMPORT, &imp), -EINVAL);
	imp.pad = 0;
	imp.reserved = 1;
	assert_int_equal(imp_ioctl(st->imp, HL_IMPORTER_IOCTL_IMPORT, &imp), -EINVAL);

	/* The result cannot be written back: the import is undone */
	ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(ro != MAP_FAILED);
	memset(ro, 0, sizeof(*ro));
	ro->fd = u->dmabuf;
	assert_int_equal(mprotect(ro, PAGE, PROT_READ), 0);
	assert_int_equal(imp_ioctl(st->imp, HL_IMPORTER_IOCTL_IMPORT, ro), -EFAULT);
	munmap(ro, PAGE);
	assert_int_equal(imp_status(st->imp, 1, &s), -ENOENT);

	assert_int_equal(imp_import(st->imp, u->dmabuf, 0, &h, NULL), 0);
	assert_int_equal(h, 1);

	/* Bad handles */
	assert_int_equal(imp_map(st->imp, 0, NULL), -ENOENT);
	assert_int_equal(imp_map(st->imp, h + 1, NULL), -ENOENT);
	assert_int_equal(imp_dma(st->imp, false, h + 1, 0, 1, buf), -ENOENT);
	assert_int_equal(imp_sg_entry(st->imp, h + 1, 0, &addr, &len), -ENOENT);
	assert_int_equal(imp_status(st->imp, h + 1, &s), -ENOENT);
	assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_UNMAP, h + 1), -ENOENT);
	assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_RELEASE, h + 1), -ENOENT);
	assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_FAKE_MOVE, h + 1), -ENOENT);

	/* Not mapped yet */
	assert_int_equal(imp_dma(st->imp, false, h, 0, 1, buf), -ENODATA);
	assert_int_equal(imp_dma(st->imp, true, h, 0, 1, buf), -ENODATA);
	assert_int_equal(imp_sg_entry(st->imp, h, 0, &addr, &len), -ENODATA);
	/* A static import has no move_notify */
	assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_FAKE_MOVE, h), -EINVAL);

	/* Reserved and padding fields */
	memset(&map, 0, sizeof(map));
	map.handle = h;
	map.reserved = 1;
	assert_int_equal(imp_ioctl(st->imp, HL_IMPORTER_IOCTL_MAP, &map), -EINVAL);
	map.reserved = 0;
	map.pad = 1;
	assert_int_equal(imp_ioctl(st->imp, HL_IMPORTER_IOCTL_MAP, &map), -EINVAL);
	assert_int_equal(imp_map(st->imp, h, NULL), 0);

	memset(&sge, 0, sizeof(sge));
	sge.handle = h;
	sge.reserved = 1;
	assert_int_equal(imp_ioctl(st->imp, HL_IMPORTER_IOCTL_SG_ENTRY, &sge), -EINVAL);
	assert_int_equal(imp_sg_entry(st->imp, h, 1u << 30, &addr, &len), -EINVAL);

	memset(&dma, 0, sizeof(dma));
	dma.handle = h;
	dma.size = 1;
	dma.user_ptr = (uintptr_t)buf;
	dma.flags = 0x4;
	assert_int_equal(imp_ioctl(st->imp, HL_IMPORTER_IOCTL_DMA_READ, &dma), -EINVAL);
	dma.flags = 0;
	dma.reserved = 1;
	assert_int_equal(imp_ioctl(st->imp, HL_IMPORTER_IOCTL_DMA_WRITE, &dma), -EINVAL);

	memset(&hd, 0, sizeof(hd));
	hd.handle = h;
	hd.pad = 1;
	assert_int_equal(imp_ioctl(st->imp, HL_IMPORTER_IOCTL_UNMAP, &hd), -EINVAL);
	hd.pad = 0;
	hd.reserved = 1;
	assert_int_equal(imp_ioctl(st->imp, HL_IMPORTER_IOCTL_RELEASE, &hd), -EINVAL);

	memset(&s, 0, sizeof(s));
	s.handle = h;
	s.reserved = 1;
	assert_int_equal(imp_ioctl(st->imp, HL_IMPORTER_IOCTL_STATUS, &s), -EINVAL);

	/* Out-of-range transfers (no DMA is started) */
	assert_int_equal(imp_dma(st->imp, false, h, 2 * PAGE, 1, buf), -EINVAL);
	assert_int_equal(imp_dma(st->imp, false, h, 2 * PAGE - 10, 11, buf), -EINVAL);
	assert_int_equal(imp_dma(st->imp, true, h, 2 * PAGE - 10, 11, buf), -EINVAL);
	assert_int_equal(imp_dma(st->imp, false, h, UINT64_MAX - 5, 10, buf), -EINVAL);
	assert_int_equal(imp_dma(st->imp, false, h, 0, 0, buf), -EINVAL);
	assert_int_equal(imp_dma(st->imp, false, h, 0, HL_IMPORTER_MAX_XFER + 1ull, buf),
			 -EINVAL);
	/* A bad user pointer */
	assert_int_equal(imp_dma(st->imp, true, h, 0, 16, NULL), -EFAULT);
	assert_int_equal(imp_dma(st->imp, false, h, 0, 16, NULL), -EFAULT);
	assert_int_equal(imp_ioctl(st->imp, HL_IMPORTER_IOCTL_MAP, NULL), -EFAULT);

	/* Unknown ioctls, and a known one with another struct size */
	assert_int_equal(imp_ioctl(st->imp, _IOWR('I', 0x3f, struct hl_importer_handle), &hd),
			 -ENOTTY);
	assert_int_equal(imp_ioctl(st->imp, _IOWR('I', 0x06, struct hl_importer_status), &s),
			 -ENOTTY);
	assert_int_equal(imp_ioctl(st->imp, _IO('u', 0x42), NULL), -ENOTTY);

	/* RELEASE twice */
	assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_RELEASE, h), 0);
	assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_RELEASE, h), -ENOENT);
	ubuf_free(u);
}

static void test_close_with_live_mappings_frees_everything(void **state)
{
	static const uint32_t flags[] = { 0, HL_IMPORTER_F_DYNAMIC, HL_IMPORTER_F_PIN };
	struct state *st = *state;
	struct ubuf *u[3];
	unsigned long ino[3];
	struct stat sb;
	uint32_t h = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < 3; i++) {
		u[i] = ubuf_new(2 * PAGE, 100 + i);
		assert_int_equal(fstat(u[i]->dmabuf, &sb), 0);
		ino[i] = sb.st_ino;
		assert_int_equal(imp_import(st->imp, u[i]->dmabuf, flags[i], &h, NULL), 0);
		assert_int_equal(imp_map(st->imp, h, NULL), 0);
		/* The import holds the dma-buf: close our fd, then DMA */
		close(u[i]->dmabuf);
		u[i]->dmabuf = -1;
		check_read(st->imp, h, u[i], PAGE - 8, 16);
		ret = bufinfo_has_inode(ino[i]);
		if (ret >= 0)
			assert_int_equal(ret, 1);
	}

	/* Close with three live mappings; the dma-bufs must go away */
	close(st->imp);
	st->imp = -1;
	for (i = 0; i < 3; i++) {
		ret = bufinfo_has_inode(ino[i]);
		if (ret < 0) {
			print_message("%s: %s; dma-buf release not checked\n",
				      BUFINFO, strerror(-ret));
		} else {
			assert_int_equal(ret, 0);
		}
		ubuf_free(u[i]);
	}
}

static void test_max_seg_size_splits_segments(void **state)
{
	struct state *st = *state;
	const size_t size = 16 * PAGE;
	const unsigned int seg = 4 * PAGE;
	struct hl_importer_map m;
	char bdf[32];
	struct ubuf *u;
	uint64_t addr = 0, len = 0;
	uint32_t h = 0, i;
	int fd, ret;

	if (edu_bdf(bdf, sizeof(bdf)) || access(IMPORTER_PARAMS "/max_seg_size", W_OK)) {
		print_message("cannot rebind the edu device (not root?): skipped\n");
		skip();
	}
	close(st->imp);
	st->imp = -1;
	assert_int_equal(set_param("max_seg_size", seg), 0);
	ret = rebind_edu(bdf);
	assert_int_equal(set_param("max_seg_size", 0), 0);
	assert_int_equal(ret, 0);

	fd = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	st->imp = fd;
	u = ubuf_new(size, 110);
	assert_int_equal(imp_import(fd, u->dmabuf, HL_IMPORTER_F_DYNAMIC, &h, NULL), 0);
	assert_int_equal(imp_map(fd, h, &m), 0);
	assert_int_equal(m.max_seg_size, seg);
	assert_true(m.nents >= size / seg);
	check_segments(fd, h, &m, size);
	for (i = 0; i < m.nents; i++) {
		assert_int_equal(imp_sg_entry(fd, h, i, &addr, &len), 0);
		print_message("segment %u: %#" PRIx64 " + %#" PRIx64 "\n", i, addr, len);
	}
	/* Across the split between segments */
	check_read(fd, h, u, seg - 1000, 2000);
	ubuf_free(u);
	close(fd);

	/* Back to the default for the other tests */
	st->imp = -1;
	assert_int_equal(rebind_edu(bdf), 0);
	fd = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	st->imp = fd;
	u = ubuf_new(size, 111);
	assert_int_equal(imp_import(fd, u->dmabuf, 0, &h, NULL), 0);
	assert_int_equal(imp_map(fd, h, &m), 0);
	assert_int_equal(m.max_seg_size, 65536);
	ubuf_free(u);
}

static void test_unbind_with_open_file_gives_enodev(void **state)
{
	struct state *st = *state;
	struct ubuf *u;
	char bdf[32];
	uint32_t h = 0;
	uint8_t b;
	int fd;

	if (edu_bdf(bdf, sizeof(bdf))) {
		print_message("cannot rebind the edu device (not root?): skipped\n");
		skip();
	}
	u = ubuf_new(2 * PAGE, 120);
	assert_int_equal(imp_import(st->imp, u->dmabuf, HL_IMPORTER_F_DYNAMIC, &h, NULL), 0);
	assert_int_equal(imp_map(st->imp, h, NULL), 0);

	/* Unbinding releases the imports of the open file */
	assert_int_equal(write_file(IMPORTER_SYSFS "/unbind", bdf), 0);
	assert_int_equal(imp_dma(st->imp, false, h, 0, 1, &b), -ENODEV);
	assert_int_equal(imp_handle_op(st->imp, HL_IMPORTER_IOCTL_RELEASE, h), -ENODEV);
	assert_true(open(IMPORTER_DEV, O_RDWR | O_CLOEXEC) < 0);
	close(st->imp);
	st->imp = -1;

	assert_int_equal(write_file(IMPORTER_SYSFS "/bind", bdf), 0);
	fd = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	st->imp = fd;
	assert_int_equal(imp_import(fd, u->dmabuf, 0, &h, NULL), 0);
	assert_int_equal(imp_map(fd, h, NULL), 0);
	check_read(fd, h, u, 10, 10);
	ubuf_free(u);
}

static const struct CMUnitTest importer_udmabuf_tests[] = {
	cmocka_unit_test_setup_teardown(test_static_import_reads_memfd_data, setup, teardown),
	cmocka_unit_test_setup_teardown(test_dynamic_import_reads_memfd_data, setup, teardown),
	cmocka_unit_test_setup_teardown(test_pinned_import_reads_memfd_data, setup, teardown),
	cmocka_unit_test_setup_teardown(test_no_p2p_import_reads_memfd_data, setup, teardown),
	cmocka_unit_test_setup_teardown(test_dma_write_shows_in_memfd, setup, teardown),
	cmocka_unit_test_setup_teardown(test_multi_piece_transfer_whole_buffer, setup, teardown),
	cmocka_unit_test_setup_teardown(test_move_notify_revokes_until_remap, setup, teardown),
	cmocka_unit_test_setup_teardown(test_map_unmap_cycles, setup, teardown),
	cmocka_unit_test_setup_teardown(test_same_dmabuf_imported_twice_and_by_two_files,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_move_notify_races_with_dma, setup, teardown),
	cmocka_unit_test_setup_teardown(test_release_during_dma_waits_for_it, setup, teardown),
	cmocka_unit_test_setup_teardown(test_dma_wait_flag_without_fences, setup, teardown),
	cmocka_unit_test_setup_teardown(test_dma_wait_flag_waits_for_write_fence, setup,
					teardown),
	cmocka_unit_test_setup_teardown(test_errnos, setup, teardown),
	cmocka_unit_test_setup_teardown(test_close_with_live_mappings_frees_everything,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_max_seg_size_splits_segments, setup, teardown),
	cmocka_unit_test_setup_teardown(test_unbind_with_open_file_gives_enodev, setup, teardown),
};

/* ---------------------------------------------------------------------- */
/* Negative control: a wrong DMA address must be caught */

static void kmsg_write(const char *text)
{
	assert_int_equal(write_file("/dev/kmsg", text), 0);
}

/*
 * Wait up to @timeout_s for a DMAR fault record from @dev ("00:08.0") in
 * /dev/kmsg after the reader's position; returns its fault address or 0.
 */
static uint64_t kmsg_wait_dmar_fault(int kfd, const char *dev, int timeout_s)
{
	char rec[8192], want[64];
	time_t end = time(NULL) + timeout_s;
	uint64_t addr = 0;
	char *p;
	ssize_t n;

	snprintf(want, sizeof(want), "Request device [%s] fault addr 0x", dev);
	while (time(NULL) <= end) {
		n = read(kfd, rec, sizeof(rec) - 1);
		if (n < 0) {
			if (errno == EAGAIN)
				usleep(100 * 1000);
			/* EPIPE: records were overwritten; keep reading */
			continue;
		}
		rec[n] = '\0';
		p = strstr(rec, want);
		if (strstr(rec, "DMAR:") && p) {
			print_message("%s", strchr(rec, ';') ? strchr(rec, ';') + 1 : rec);
			addr = strtoull(p + strlen(want), NULL, 16);
			return addr ? addr : 1;
		}
	}
	return 0;
}

static int negative_teardown(void **state)
{
	set_param("corrupt_dma_addr", 0);
	return teardown(state);
}

static void test_corrupt_dma_addr_is_caught(void **state)
{
	struct state *st = *state;
	/* 3 pages: the IOVA allocation is rounded up to 4 pages, so one page
	 * past the end is reserved and unmapped and must fault.
	 */
	const size_t size = 3 * PAGE, off = 2 * PAGE;
	struct ubuf *u = ubuf_new(size, 130);
	uint8_t *got = malloc(PAGE), *src = malloc(PAGE), *before = malloc(PAGE);
	struct hl_importer_map m;
	uint64_t addr = 0, len = 0, seg_off = off, fault, want;
	char bdf[32];
	uint32_t h = 0, i;
	int kfd, rr, rw;

	assert_non_null(got);
	assert_non_null(src);
	assert_non_null(before);
	assert_int_equal(edu_bdf(bdf, sizeof(bdf)), 0);
	assert_int_equal(imp_import(st->imp, u->dmabuf, 0, &h, NULL), 0);
	assert_int_equal(imp_map(st->imp, h, &m), 0);

	/* The bus address the last page would be read from when corrupted */
	for (i = 0; i < m.nents; i++) {
		assert_int_equal(imp_sg_entry(st->imp, h, i, &addr, &len), 0);
		if (seg_off < len)
			break;
		seg_off -= len;
	}
	assert_true(i < m.nents);
	want = (addr + seg_off + PAGE) & ~(uint64_t)(PAGE - 1);

	/* Works before */
	check_read(st->imp, h, u, off, PAGE);

	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(kfd >= 0);
	assert_true(lseek(kfd, 0, SEEK_END) >= 0);
	kmsg_write("hlvm: expect-dmar-faults begin");
	assert_int_equal(set_param("corrupt_dma_addr", 1), 0);

	memset(got, 0, PAGE);
	rr = imp_dma(st->imp, false, h, off, PAGE, got);
	memcpy(before, u->cpu + off, PAGE);
	fill_pattern(src, off, PAGE, 131);
	rw = imp_dma(st->imp, true, h, off, PAGE, src);

	assert_int_equal(set_param("corrupt_dma_addr", 0), 0);
	fault = kmsg_wait_dmar_fault(kfd, bdf + 5, 10);
	kmsg_write("hlvm: expect-dmar-faults end");
	close(kfd);

	print_message("corrupted DMA_READ: %s, data %s; DMA_WRITE: %s, target %s\n",
		      rr ? strerror(-rr) : "ok",
		      memcmp(got, u->cpu + off, PAGE) ? "wrong" : "RIGHT",
		      rw ? strerror(-rw) : "ok",
		      memcmp(u->cpu + off, before, PAGE) ? "written" : "untouched");
	/* The read brought wrong data (or failed)... */
	assert_true(rr != 0 || memcmp(got, u->cpu + off, PAGE) != 0);
	/* ...the write did not land where it should have... */
	assert_true(memcmp(u->cpu + off, src, PAGE) != 0);
	/* ...and the IOMMU reported the edu device at the corrupted address */
	assert_true(fault != 0);
	print_message("DMAR fault at %#" PRIx64 ", corrupted address page %#" PRIx64 "\n",
		      fault, want);
	assert_true(fault == want);

	/* And with the knob off the same transfer is right again */
	check_read(st->imp, h, u, off, PAGE);
	free(before);
	free(src);
	free(got);
	ubuf_free(u);
}

static const struct CMUnitTest importer_udmabuf_negative_tests[] = {
	cmocka_unit_test_setup_teardown(test_corrupt_dma_addr_is_caught, setup,
					negative_teardown),
};

static void skip_test(void **state)
{
	(void)state;
	skip();
}

/* Run a group; skip it all, with the reason, without /dev/hl_importer */
static int run_group(const char *name, const struct CMUnitTest *tests, size_t n)
{
	struct CMUnitTest *skipped;
	const char *why = NULL;
	size_t i;
	int rc;

	if (access(IMPORTER_DEV, R_OK | W_OK))
		why = IMPORTER_DEV " is missing (hl_importer.ko not loaded or no edu device)";
	else if (access(UDMABUF_DEV, R_OK | W_OK))
		why = UDMABUF_DEV " is missing (kernel without CONFIG_UDMABUF)";
	if (!why)
		return _cmocka_run_group_tests(name, tests, n, NULL, NULL);

	fprintf(stderr, "%s: %s: skipping every test\n", name, why);
	skipped = calloc(n, sizeof(*skipped));
	if (!skipped)
		return 1;
	for (i = 0; i < n; i++) {
		skipped[i].name = tests[i].name;
		skipped[i].test_func = skip_test;
	}
	rc = _cmocka_run_group_tests(name, skipped, n, NULL, NULL);
	free(skipped);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--negative-control"))
		return run_group("importer_udmabuf_negative",
				 importer_udmabuf_negative_tests,
				 sizeof(importer_udmabuf_negative_tests) /
				 sizeof(importer_udmabuf_negative_tests[0]));
	if (argc > 1) {
		fprintf(stderr, "usage: %s [--negative-control]\n", argv[0]);
		return 2;
	}
	return run_group("importer_udmabuf", importer_udmabuf_tests,
			 sizeof(importer_udmabuf_tests) / sizeof(importer_udmabuf_tests[0]));
}

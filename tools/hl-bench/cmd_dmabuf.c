// SPDX-License-Identifier: MIT
/*
 * hl-bench dmabuf: ALLOC+MAP+EXPORT and import by the test importer,
 * against udmabuf
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/udmabuf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hlthunk.h"
#include "hl-bench.h"
#include "../../tests/importer/hl_importer.h"

/* ---- dma-buf: create, then attach + map + unmap + detach ---- */

/* The importer's max segment size, as its last MAP reported it */
static uint32_t g_imp_max_seg;

/* One import by the test importer; returns the number of DMA segments */
static uint32_t import_cycle(int imp, int dmabuf)
{
	struct hl_importer_import in = { .fd = dmabuf,
					 .flags = HL_IMPORTER_F_DYNAMIC };
	struct hl_importer_map map = { 0 };
	struct hl_importer_handle h = { 0 };

	if (ioctl(imp, HL_IMPORTER_IOCTL_IMPORT, &in))
		die("importer IMPORT: %s", strerror(errno));
	map.handle = in.handle;
	if (ioctl(imp, HL_IMPORTER_IOCTL_MAP, &map))
		die("importer MAP: %s", strerror(errno));
	g_imp_max_seg = map.max_seg_size;
	h.handle = in.handle;
	if (ioctl(imp, HL_IMPORTER_IOCTL_UNMAP, &h))
		die("importer UNMAP: %s", strerror(errno));
	if (ioctl(imp, HL_IMPORTER_IOCTL_RELEASE, &h))
		die("importer RELEASE: %s", strerror(errno));
	return map.nents;
}

struct hl_export {
	uint64_t handle;
	uint64_t va;
	int fd;
};

static void hl_export_create(int fd, uint64_t size, struct hl_export *e)
{
	e->handle = hlthunk_device_memory_alloc(fd, size, 0, false, false);
	if (!e->handle)
		die("ALLOC %" PRIu64 ": %s", size, strerror(errno));
	e->va = hlthunk_device_memory_map(fd, e->handle, 0);
	if (!e->va)
		die("MAP: %s", strerror(errno));
	e->fd = hlthunk_device_memory_export_dmabuf_fd(fd, e->va, size,
						       O_RDWR | O_CLOEXEC);
	if (e->fd < 0)
		die("EXPORT: %s", strerror(-e->fd));
}

static void hl_export_destroy(int fd, struct hl_export *e)
{
	close(e->fd);
	if (hlthunk_memory_unmap(fd, e->va))
		die("UNMAP: %s", strerror(errno));
	if (hlthunk_device_memory_free(fd, e->handle))
		die("FREE: %s", strerror(errno));
}

struct u_export {
	int memfd;
	int fd;
};

static void u_export_create(int udev, uint64_t size, struct u_export *e)
{
	struct udmabuf_create c = { 0 };

	e->memfd = memfd_create("hl-bench", MFD_ALLOW_SEALING);
	if (e->memfd < 0 || ftruncate(e->memfd, size) ||
	    fcntl(e->memfd, F_ADD_SEALS, F_SEAL_SHRINK) < 0)
		die("memfd of %" PRIu64 " bytes: %s", size, strerror(errno));
	c.memfd = e->memfd;
	c.flags = UDMABUF_FLAGS_CLOEXEC;
	c.size = size;
	e->fd = ioctl(udev, UDMABUF_CREATE, &c);
	if (e->fd < 0)
		die("UDMABUF_CREATE %" PRIu64 ": %s", size, strerror(errno));
}

static void u_export_destroy(struct u_export *e)
{
	close(e->fd);
	close(e->memfd);
}

static void emit_dmabuf(const char *impl, uint64_t size, double create,
			double import, double destroy, uint32_t nents)
{
	printf("{\"series\":\"dmabuf\",\"impl\":\"%s\",\"size\":%" PRIu64
	       ",\"create_us\":%.1f,\"import_us\":%.1f,\"destroy_us\":%.1f,\"nents\":%u,\"max_seg\":%u}\n",
	       impl, size, create, import, destroy, nents, g_imp_max_seg);
	fflush(stdout);
}

int cmd_dmabuf(void)
{
	double c[2][16], im[2][16], d[2][16], t0;
	uint32_t nents[2] = { 0 };
	int fd, imp, udev, s, i, n;
	char limit[32];

	default_sizes("2M,8M,32M,128M,512M,1G");
	fd = open_dev(g_dev);
	imp = open(IMPORTER_DEV, O_RDWR);
	udev = open(UDMABUF_DEV, O_RDWR);
	if (imp < 0 || udev < 0)
		die("%s or %s: %s", IMPORTER_DEV, UDMABUF_DEV, strerror(errno));
	snprintf(limit, sizeof(limit), "%d", 4096);
	write_text(UDMABUF_LIMIT, limit);

	for (s = 0; s < g_nsizes; s++) {
		uint64_t size = g_sizes[s];

		n = iters();
		for (i = 0; i < n; i++) {
			struct hl_export he;
			struct u_export ue;

			/* Alternate the two, so that drift hits both alike */
			t0 = now_us();
			hl_export_create(fd, size, &he);
			c[0][i] = now_us() - t0;
			t0 = now_us();
			nents[0] = import_cycle(imp, he.fd);
			im[0][i] = now_us() - t0;
			t0 = now_us();
			hl_export_destroy(fd, &he);
			d[0][i] = now_us() - t0;
			wait_scrub_idle(fd);

			t0 = now_us();
			u_export_create(udev, size, &ue);
			c[1][i] = now_us() - t0;
			t0 = now_us();
			nents[1] = import_cycle(imp, ue.fd);
			im[1][i] = now_us() - t0;
			t0 = now_us();
			u_export_destroy(&ue);
			d[1][i] = now_us() - t0;
		}
		emit_dmabuf("hl", size, best(c[0], n), best(im[0], n),
			    best(d[0], n), nents[0]);
		emit_dmabuf("udmabuf", size, best(c[1], n), best(im[1], n),
			    best(d[1], n), nents[1]);
	}
	close(udev);
	close(imp);
	hlthunk_close(fd);
	return 0;
}

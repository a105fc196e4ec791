// SPDX-License-Identifier: MIT
/*
 * hl-coll-demo - the in-VM part of make demo: a ring all-reduce across
 * every device (libhlcoll, one process per device), then device 0's result
 * buffer exported as a dma-buf and read by the test importer
 * (/dev/hl_importer: QEMU's edu device doing DMA through the IOMMU to the
 * accelerator's BAR), and the bytes that arrive checked against the sum the
 * host computes.
 *
 *   hl-coll-demo [--count N] [--ranks N]
 *
 * Exit status 0 when every rank's result and the imported bytes match the
 * host's sum, 1 otherwise.
 */
#include "hlcoll.h"
#include "hlcoll_data.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "hlthunk.h"
#include "../../tests/importer/hl_importer.h"

#define PAGE		4096ull
#define SEED		0xde5eed0fa11ull

struct demo {
	uint64_t count;
	uint32_t devices[HLCOLL_MAX_RANKS];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* FNV-1a, 64 bits */
static uint64_t fnv1a(const void *p, uint64_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ull;
	}
	return h;
}

static int imp_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

/*
 * Import @dmabuf into the test importer, map it for the edu device and read
 * @len bytes by edu DMA into @out.
 */
static int import_and_read(int dmabuf, void *out, uint64_t len)
{
	struct hl_importer_import imp;
	struct hl_importer_map map;
	struct hl_importer_sg_entry sg;
	struct hl_importer_dma dma;
	struct hl_importer_handle rel;
	uint64_t off, n;
	double t;
	int ifd, rc;

	ifd = open("/dev/hl_importer", O_RDWR | O_CLOEXEC);
	if (ifd < 0) {
		fprintf(stderr, "/dev/hl_importer: %s (is tests/importer built and loaded?)\n",
			strerror(errno));
		return -errno;
	}

	memset(&imp, 0, sizeof(imp));
	imp.fd = dmabuf;
	imp.flags = HL_IMPORTER_F_DYNAMIC;
	rc = imp_ioctl(ifd, HL_IMPORTER_IOCTL_IMPORT, &imp);
	if (rc) {
		fprintf(stderr, "importer: import: %s%s\n", strerror(-rc),
			rc == -EXDEV ? " (load habanalabs with p2p_policy=iommu)" : "");
		goto out_close;
	}
	printf("importer: dma-buf of %" PRIu64 " bytes attached (dynamic, peer-to-peer)\n",
	       (uint64_t)imp.size);

	memset(&map, 0, sizeof(map));
	map.handle = imp.handle;
	rc = imp_ioctl(ifd, HL_IMPORTER_IOCTL_MAP, &map);
	if (rc) {
		fprintf(stderr, "importer: map: %s\n", strerror(-rc));
		goto out_release;
	}
	memset(&sg, 0, sizeof(sg));
	sg.handle = imp.handle;
	rc = imp_ioctl(ifd, HL_IMPORTER_IOCTL_SG_ENTRY, &sg);
	if (rc)
		goto out_release;
	printf("importer: mapped for the edu device: %u DMA segment(s), the first at IOVA 0x%" PRIx64 " (%" PRIu64 " bytes)\n",
	       map.nents, (uint64_t)sg.dma_addr, (uint64_t)sg.len);

	t = now_s();
	for (off = 0; off < len; off += n) {
		n = len - off < HL_IMPORTER_MAX_XFER ? len - off :
						      HL_IMPORTER_MAX_XFER;
		memset(&dma, 0, sizeof(dma));
		dma.handle = imp.handle;
		dma.offset = off;
		dma.size = n;
		dma.user_ptr = (uintptr_t)out + off;
		rc = imp_ioctl(ifd, HL_IMPORTER_IOCTL_DMA_READ, &dma);
		if (rc) {
			fprintf(stderr, "importer: DMA read at %" PRIu64 ": %s\n",
				off, strerror(-rc));
			goto out_release;
		}
	}
	printf("importer: read %" PRIu64 " bytes by edu DMA through the IOMMU in %.1f s\n",
	       len, now_s() - t);

out_release:
	memset(&rel, 0, sizeof(rel));
	rel.handle = imp.handle;
	imp_ioctl(ifd, HL_IMPORTER_IOCTL_RELEASE, &rel);
out_close:
	close(ifd);
	return rc;
}

static int rank_main(int rank, int nranks, const struct hlcoll_unique_id *id,
		     void *arg)
{
	struct demo *d = arg;
	uint64_t bytes = d->count * 4, export_bytes, i, wrong = 0;
	struct hlcoll_bufs bufs = { 0 };
	uint32_t *expect = NULL, *imported = NULL;
	struct hlcoll_comm *comm = NULL;
	uint64_t all_wrong[HLCOLL_MAX_RANKS];
	int fd, dmabuf, rc, r;
	double t;

	fd = hlthunk_open_by_module_id(d->devices[rank]);
	if (fd < 0) {
		fprintf(stderr, "rank %d: %s\n", rank, strerror(-fd));
		return 1;
	}
	rc = hlcoll_comm_init_rank(&comm, nranks, id, rank, fd, NULL);
	if (rc) {
		fprintf(stderr, "rank %d: hlcoll_comm_init_rank: %s\n", rank,
			hlcoll_get_error_string(rc));
		goto out;
	}

	/* Past the data: room for every rank's verdict */
	rc = hlcoll_bufs_setup(fd, &bufs, bytes, bytes + PAGE);
	if (rc)
		goto out;
	rc = -ENOMEM;
	expect = malloc(bytes);
	if (!expect)
		goto out;

	for (i = 0; i < d->count; i++) {
		bufs.stage[i] = hlcoll_data_value(SEED, rank, i);
		expect[i] = hlcoll_data_allreduce(SEED, nranks, d->count, i);
	}
	rc = hlcoll_memcpy(comm, bufs.send_va, bufs.stage_va, bytes);
	if (rc)
		goto out;

	if (rank == 0) {
		printf("all-reduce (float32 sum) of %" PRIu64 " elements (%" PRIu64 " bytes) across %d devices:",
		       d->count, bytes, nranks);
		for (r = 0; r < nranks; r++)
			printf(" %u", d->devices[r]);
		printf("\n");
	}
	rc = hlcoll_barrier(comm);
	t = now_s();
	if (!rc)
		rc = hlcoll_allreduce(comm, bufs.send_va, bufs.recv_va, d->count,
				      HLCOLL_FLOAT32, HLCOLL_SUM);
	t = now_s() - t;
	if (!rc)
		rc = hlcoll_memcpy(comm, bufs.stage_va, bufs.recv_va, bytes);
	for (i = 0; !rc && i < d->count; i++)
		wrong += bufs.stage[i] != expect[i];
	if (rc)
		wrong = d->count;

	/* Every rank's verdict, printed by rank 0: an all-gather of it */
	memcpy(bufs.stage + d->count, &wrong, sizeof(wrong));
	rc = hlcoll_allgather(comm, bufs.stage_va + bytes,
			      bufs.stage_va + bytes + sizeof(wrong), 2,
			      HLCOLL_INT32);
	if (rc)
		goto out;
	memcpy(all_wrong, bufs.stage + d->count + 2,
	       sizeof(wrong) * nranks);
	if (rank == 0) {
		printf("all-reduce done in %.3f s\n", t);
		for (r = 0; r < nranks; r++)
			printf("  rank %d (device %u): %s\n", r,
			       d->devices[r],
			       all_wrong[r] ? "result DIFFERS from the host's sum" :
					      "result == the host's sum, bit for bit");
	}
	for (r = 0; r < nranks; r++)
		if (all_wrong[r])
			rc = -EIO;
	if (rc || rank != 0)
		goto out;

	/* Rank 0: export the result buffer, have the importer read it */
	export_bytes = (bytes + PAGE - 1) & ~(PAGE - 1);
	dmabuf = hlthunk_device_memory_export_dmabuf_fd(fd, bufs.recv_va,
							 export_bytes,
							 O_RDWR | O_CLOEXEC);
	if (dmabuf < 0) {
		rc = dmabuf;
		fprintf(stderr, "export: %s\n", strerror(-rc));
		goto out;
	}
	printf("rank 0: result buffer exported as dma-buf (fd %d, %" PRIu64 " bytes)\n",
	       dmabuf, export_bytes);
	imported = malloc(bytes);
	rc = imported ? import_and_read(dmabuf, imported, bytes) : -ENOMEM;
	close(dmabuf);
	if (rc)
		goto out;

	printf("checksum (FNV-1a 64) of the bytes the importer read: 0x%016" PRIx64 "\n",
	       fnv1a(imported, bytes));
	printf("checksum (FNV-1a 64) of the host-computed sum:        0x%016" PRIx64 "\n",
	       fnv1a(expect, bytes));
	if (memcmp(imported, expect, bytes)) {
		printf("checksum MISMATCH: the dma-buf does not hold the all-reduce result\n");
		rc = -EIO;
	} else {
		printf("checksum matches: the importer read the all-reduce result through the IOMMU\n");
	}

out:
	free(imported);
	free(expect);
	hlcoll_bufs_release(fd, &bufs);
	hlcoll_comm_destroy(comm);
	hlthunk_close(fd);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'c' },
		{ "ranks", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hlthunk_hw_ip_info hw_ip;
	struct demo d = { .count = 16387 };
	int nranks = 0, n = 0, c, i, fd;

	while ((c = getopt_long(argc, argv, "c:g:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			d.count = strtoull(optarg, NULL, 0);
			break;
		case 'g':
			nranks = atoi(optarg);
			break;
		default:
			fprintf(c == 'h' ? stdout : stderr,
				"Usage: hl-coll-demo [--count N] [--ranks N]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (!d.count || d.count > (64ull << 20))
		return 2;

	for (i = 0; i < HLTHUNK_MAX_MINOR && n < HLCOLL_MAX_RANKS; i++) {
		fd = hlthunk_open_control(i, NULL);
		if (fd < 0)
			continue;
		if (!hlthunk_get_hw_ip_info(fd, &hw_ip))
			d.devices[n++] = hw_ip.module_id;
		hlthunk_close(fd);
	}
	if (!nranks)
		nranks = n;
	if (nranks < 1 || nranks > n) {
		fprintf(stderr, "hl-coll-demo: %d ranks, %d devices\n", nranks, n);
		return 1;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	return hlcoll_launch(nranks, rank_main, &d) ? 1 : 0;
}

// SPDX-License-Identifier: MIT
/*
 * hl-bench mem: ALLOC/FREE, device MAP/UNMAP, host MAP/UNMAP latency
 * against the number of live host mappings
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hlthunk.h"
#include "hl-bench.h"

/*
 * ---- memory: latency against the number of live objects ----
 *
 * The live objects are host mappings of a page each (400 MB pinned at
 * 100,000); the measured ops are an ALLOC/FREE of 2 MiB, a MAP/UNMAP of a
 * 2 MiB allocation and a host MAP/UNMAP of another page, 50 of each.
 */

int cmd_mem(void)
{
	static const uint64_t lives[] = { 1, 10, 100, 1000, 10000, 100000 };
	uint64_t *live_va, nlive = 0, handle, va, k, reps;
	double t_alloc, t_free, t_map, t_unmap, t_hmap, t_hunmap, t0;
	void *page, *hbuf;
	size_t li;
	int fd;

	fd = open_dev(g_dev);
	/* A page per live mapping: a host page is in a few mappings at most */
	page = mmap(NULL, lives[5] * HOST_PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	hbuf = aligned_alloc(HOST_PAGE, HOST_PAGE);
	live_va = calloc(lives[5], sizeof(*live_va));
	if (page == MAP_FAILED || !hbuf || !live_va)
		die("out of memory");
	memset(page, 1, lives[5] * HOST_PAGE);
	memset(hbuf, 2, HOST_PAGE);

	handle = hlthunk_device_memory_alloc(fd, 2 * MiB, 0, false, false);
	if (!handle)
		die("ALLOC: %s", strerror(errno));

	for (li = 0; li < sizeof(lives) / sizeof(lives[0]); li++) {
		/* The live objects: host mappings of one pinned page each */
		while (nlive < lives[li]) {
			live_va[nlive] = hlthunk_host_memory_map(fd,
						(char *)page + nlive * HOST_PAGE,
						0, HOST_PAGE);
			if (!live_va[nlive])
				die("host MAP #%" PRIu64 ": %s", nlive,
				    strerror(errno));
			nlive++;
		}

		reps = 50;
		t_alloc = t_free = t_map = t_unmap = t_hmap = t_hunmap = 0;
		for (k = 0; k < reps; k++) {
			uint64_t h;

			/*
			 * The freed page is zeroed in the background: under
			 * TCG that takes the same CPU as the next ioctl, so
			 * it is left to finish first (not timed)
			 */
			wait_scrub_idle(fd);
			t0 = now_us();
			h = hlthunk_device_memory_alloc(fd, 2 * MiB, 0, false, false);
			t_alloc += now_us() - t0;
			if (!h)
				die("ALLOC: %s", strerror(errno));
			t0 = now_us();
			if (hlthunk_device_memory_free(fd, h))
				die("FREE: %s", strerror(errno));
			t_free += now_us() - t0;
			wait_scrub_idle(fd);

			t0 = now_us();
			va = hlthunk_device_memory_map(fd, handle, 0);
			t_map += now_us() - t0;
			if (!va)
				die("MAP: %s", strerror(errno));
			t0 = now_us();
			if (hlthunk_memory_unmap(fd, va))
				die("UNMAP: %s", strerror(errno));
			t_unmap += now_us() - t0;

			t0 = now_us();
			va = hlthunk_host_memory_map(fd, hbuf, 0, HOST_PAGE);
			t_hmap += now_us() - t0;
			if (!va)
				die("host MAP: %s", strerror(errno));
			t0 = now_us();
			if (hlthunk_memory_unmap(fd, va))
				die("host UNMAP: %s", strerror(errno));
			t_hunmap += now_us() - t0;
		}
		printf("{\"series\":\"mem\",\"impl\":\"hl\",\"live\":%" PRIu64
		       ",\"alloc_us\":%.2f,\"free_us\":%.2f,\"map_us\":%.2f,\"unmap_us\":%.2f"
		       ",\"host_map_us\":%.2f,\"host_unmap_us\":%.2f}\n",
		       nlive, t_alloc / reps, t_free / reps, t_map / reps,
		       t_unmap / reps, t_hmap / reps, t_hunmap / reps);
		fflush(stdout);
	}

	while (nlive)
		hlthunk_memory_unmap(fd, live_va[--nlive]);
	hlthunk_device_memory_free(fd, handle);
	hlthunk_close(fd);
	free(live_va);
	munmap(page, lives[5] * HOST_PAGE);
	free(hbuf);
	return 0;
}

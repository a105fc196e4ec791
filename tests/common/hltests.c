// SPDX-License-Identifier: MIT
#include "hltests.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int hltests_num_devices(void)
{
	glob_t g;
	int n;

	if (glob("/dev/hl[0-9]*", 0, NULL, &g))
		return 0;
	n = (int)g.gl_pathc;
	globfree(&g);
	return n;
}

int hltests_open_node(int idx, int control)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), control ? "/dev/hl_controlD%d" : "/dev/hl%d",
		 idx);
	fd = open(path, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int hltests_ioctl_sized(int fd, unsigned long request, size_t size, void *arg)
{
	unsigned long req = (request & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
			    ((unsigned long)size << _IOC_SIZESHIFT);

	return ioctl(fd, req, arg) ? -errno : 0;
}

int hltests_info(int fd, uint32_t op, void *buf, uint32_t size)
{
	struct hl_info_args args;

	memset(&args, 0, sizeof(args));
	args.op = op;
	args.return_pointer = (uint64_t)(uintptr_t)buf;
	args.return_size = size;
	return ioctl(fd, HL_IOCTL_INFO, &args) ? -errno : 0;
}

int hltests_read_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

int hltests_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	n = n < 0 ? -errno : 0;
	close(fd);
	return (int)n;
}

uint64_t hltests_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The driver's parameters: the tree's module is habanalabs, the package's
 * (DKMS, tests/deb) habanalabs_emu
 */
static const char *param_dir(void)
{
	if (!access("/sys/module/habanalabs/parameters", F_OK))
		return "/sys/module/habanalabs/parameters/";
	return "/sys/module/habanalabs_emu/parameters/";
}

int hltests_param_read(const char *name, char *buf, size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), "%s%s", param_dir(), name);
	return hltests_read_file(path, buf, size);
}

bool hltests_identity_gaudi(void)
{
	static int gaudi = -1;
	char buf[32];

	if (gaudi < 0) {
		assert_int_equal(hltests_param_read("asic", buf, sizeof(buf)),
				 0);
		if (strcmp(buf, "gaudi"))
			assert_string_equal(buf, "emu");
		gaudi = !strcmp(buf, "gaudi");
	}
	return gaudi;
}

/*
 * GAUDI's queue managers (upstream's gaudi_blocks.h, mm*_QM_BASE), by
 * queue id (upstream's enum gaudi_queue_id): DMA 0-7, MME 0 on MME2_QM and
 * MME 1 on MME0_QM (upstream's gaudi.c maps them so), TPC 0-7, NIC 0-9 on
 * NICn_QM0/QM1. Written out, not computed, so that the driver's table is
 * checked against them.
 */
uint64_t hltests_gaudi_qm(uint32_t queue)
{
	static const uint64_t dma[8] = {
		0x7ffc508000ull, 0x7ffc528000ull, 0x7ffc548000ull,
		0x7ffc568000ull, 0x7ffc588000ull, 0x7ffc5a8000ull,
		0x7ffc5c8000ull, 0x7ffc5e8000ull,
	};
	static const uint64_t tpc[8] = {
		0x7ffce08000ull, 0x7ffce48000ull, 0x7ffce88000ull,
		0x7ffcec8000ull, 0x7ffcf08000ull, 0x7ffcf48000ull,
		0x7ffcf88000ull, 0x7ffcfc8000ull,
	};
	static const uint64_t nic[10] = {
		0x7ffcce0000ull, 0x7ffcce2000ull, 0x7ffcd20000ull,
		0x7ffcd22000ull, 0x7ffcd60000ull, 0x7ffcd62000ull,
		0x7ffcda0000ull, 0x7ffcda2000ull, 0x7ffcde0000ull,
		0x7ffcde2000ull,
	};

	if (queue <= GAUDI_QUEUE_ID_DMA_1_3)
		return dma[queue / 4];
	if (queue == GAUDI_QUEUE_ID_CPU_PQ)
		return 0;
	if (queue <= GAUDI_QUEUE_ID_DMA_7_3)
		return dma[2 + (queue - GAUDI_QUEUE_ID_DMA_2_0) / 4];
	if (queue <= GAUDI_QUEUE_ID_MME_0_3)
		return 0x7ffc168000ull;
	if (queue <= GAUDI_QUEUE_ID_MME_1_3)
		return 0x7ffc068000ull;
	if (queue <= GAUDI_QUEUE_ID_TPC_7_3)
		return tpc[(queue - GAUDI_QUEUE_ID_TPC_0_0) / 4];
	return nic[(queue - GAUDI_QUEUE_ID_NIC_0_0) / 4];
}

/* @queue's stream (its own, or HLTESTS_GAUDI_LOWER_CP) */
static uint32_t hltests_gaudi_stream(uint32_t queue, uint32_t stream)
{
	if (stream == HLTESTS_GAUDI_LOWER_CP)
		return stream;
	return queue <= GAUDI_QUEUE_ID_DMA_1_3 ? queue % 4 :
	       (queue - GAUDI_QUEUE_ID_DMA_2_0) % 4;
}

/* CP_FENCE<id>_RDATA_<stream> of @queue's queue manager; stream 0: own */
uint64_t hltests_gaudi_fence_reg(uint32_t queue, uint32_t stream, uint32_t id)
{
	return hltests_gaudi_qm(queue) + 0x308 + 0x14 * id +
	       4 * hltests_gaudi_stream(queue, stream);
}

/* CP_MSG_BASE<base>_ADDR_LO_<stream> (_HI is 0x14 further) */
uint64_t hltests_gaudi_msg_base_reg(uint32_t queue, uint32_t stream,
				    uint32_t base)
{
	return hltests_gaudi_qm(queue) + 0x228 + 0x28 * base +
	       4 * hltests_gaudi_stream(queue, stream);
}

/* The engine block WREG_32 addresses: DMA n's is DMAn_CORE, 0x8000 below */
uint64_t hltests_gaudi_engine_block(uint32_t queue)
{
	return hltests_gaudi_qm(queue) - 0x8000;
}

long hltests_param_get(const char *name)
{
	char buf[32];

	assert_int_equal(hltests_param_read(name, buf, sizeof(buf)), 0);
	return strtol(buf, NULL, 0);
}

void hltests_param_set(const char *name, const char *value, char *old,
		       size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), "%s%s", param_dir(), name);
	if (old)
		assert_int_equal(hltests_read_file(path, old, size), 0);
	assert_int_equal(hltests_write_file(path, value), 0);
}

void hltests_fail_copy_out(unsigned int n)
{
	char busid[32], path[160], val[16];

	assert_int_equal(hltests_pci_addr(0, busid, sizeof(busid)), 0);
	snprintf(path, sizeof(path),
		 "/sys/kernel/debug/habanalabs/%s/fail_copy_out", busid);
	snprintf(val, sizeof(val), "%u", n);
	assert_int_equal(hltests_write_file(path, val), 0);
}

int hltests_pci_addr(int idx, char *buf, size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/class/habanalabs/hl%d/pci_addr", idx);
	return hltests_read_file(path, buf, size);
}

int hltests_setup(void **state)
{
	struct hltests_state *st;
	int rc;

	st = calloc(1, sizeof(*st));
	if (!st)
		return -1;
	st->fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, NULL);
	if (st->fd < 0) {
		print_error("hlthunk_open: %s\n", strerror(-st->fd));
		free(st);
		return -1;
	}
	rc = hlthunk_get_hw_ip_info_ext(st->fd, &st->hw_ip);
	if (rc) {
		print_error("hlthunk_get_hw_ip_info_ext: %s\n", strerror(-rc));
		hlthunk_close(st->fd);
		free(st);
		return -1;
	}
	*state = st;
	return 0;
}

int hltests_teardown(void **state)
{
	struct hltests_state *st = *state;

	if (st) {
		hlthunk_close(st->fd);
		free(st);
	}
	*state = NULL;
	return 0;
}

static void hltests_skip_all(void **state)
{
	(void)state;
	skip();
}

int hltests_run_group(const char *name, const struct CMUnitTest *tests,
		      size_t num_tests)
{
	if (hltests_num_devices() == 0) {
		struct CMUnitTest *skipped = calloc(num_tests, sizeof(*skipped));
		size_t i;
		int rc;

		if (!skipped)
			return 1;
		fprintf(stderr, "%s: no /dev/hlN device (driver not loaded or not bound): skipping every test\n",
			name);
		for (i = 0; i < num_tests; i++) {
			skipped[i].name = tests[i].name;
			skipped[i].test_func = hltests_skip_all;
		}
		rc = _cmocka_run_group_tests(name, skipped, num_tests, NULL, NULL);
		free(skipped);
		return rc;
	}
	/* HLTESTS_FILTER=test_x*: run the matching tests only */
	if (getenv("HLTESTS_FILTER"))
		cmocka_set_test_filter(getenv("HLTESTS_FILTER"));
	return _cmocka_run_group_tests(name, tests, num_tests, NULL, NULL);
}

int hltests_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own fd */
}

/* ---- the RDMA core's importer on edu (tests/importer/hl_umem.ko) ---- */

static char hltests_edu_bdf[32];
static bool hltests_umem_loaded;

int hltests_modprobe(const char *name)
{
	const char *mp = getenv("HLTESTS_MODPROBE");
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "%s %s 2>/dev/null", mp ? mp : "modprobe",
		 name);
	return system(cmd) == 0 ? 0 : -1;
}

/* The edu device (1234:11e8): 0 or -1 */
static int hltests_find_edu(void)
{
	char path[300], v[16], d[16];
	glob_t g;
	size_t i;
	int rc = -1;

	if (glob("/sys/bus/pci/devices/*", 0, NULL, &g))
		return -1;
	for (i = 0; i < g.gl_pathc; i++) {
		snprintf(path, sizeof(path), "%s/vendor", g.gl_pathv[i]);
		if (hltests_read_file(path, v, sizeof(v)))
			continue;
		snprintf(path, sizeof(path), "%s/device", g.gl_pathv[i]);
		if (hltests_read_file(path, d, sizeof(d)))
			continue;
		if (!strcmp(v, "0x1234") && !strcmp(d, "0x11e8")) {
			snprintf(hltests_edu_bdf, sizeof(hltests_edu_bdf), "%s",
				 strrchr(g.gl_pathv[i], '/') + 1);
			rc = 0;
			break;
		}
	}
	globfree(&g);
	return rc;
}

/* Bind edu to @driver ("" = whichever matches); 0 or -errno */
static int hltests_bind_edu(const char *driver)
{
	char path[200];
	int rc;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver/unbind",
		 hltests_edu_bdf);
	if (access(path, F_OK) == 0) {
		rc = hltests_write_file(path, hltests_edu_bdf);
		if (rc)
			return rc;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver_override",
		 hltests_edu_bdf);
	rc = hltests_write_file(path, *driver ? driver : "\n");
	if (rc)
		return rc;
	return hltests_write_file("/sys/bus/pci/drivers_probe", hltests_edu_bdf);
}

int hltests_umem_start(void)
{
	const char *env = getenv("HLTESTS_UMEM_KO");
	char ko[512], exe[512], cmd[600];
	ssize_t n;

	if (hltests_find_edu()) {
		fprintf(stderr, "umem: no edu device (run in dev/hlvm)\n");
		return -1;
	}
	if (access("/sys/module/hl_umem", F_OK)) {
		if (hltests_modprobe("ib_uverbs")) {
			fprintf(stderr, "umem: cannot load ib_uverbs: this kernel has no RDMA core umem (CONFIG_INFINIBAND_USER_MEM)\n");
			return 1;
		}
		if (env) {
			snprintf(ko, sizeof(ko), "%s", env);
		} else {
			n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
			if (n < 0)
				return -1;
			exe[n] = '\0';
			snprintf(ko, sizeof(ko), "%s/../importer/hl_umem.ko",
				 dirname(exe));
		}
		snprintf(cmd, sizeof(cmd), "insmod %s", ko);
		if (system(cmd)) {
			fprintf(stderr, "umem: %s failed\n", cmd);
			return -1;
		}
		hltests_umem_loaded = true;
	}
	if (hltests_bind_edu("hl_umem") || access("/dev/hl_umem", F_OK)) {
		fprintf(stderr, "umem: cannot bind %s to hl_umem\n",
			hltests_edu_bdf);
		return -1;
	}
	return 0;
}

int hltests_umem_stop(void)
{
	int rc = 0;

	if (!hltests_edu_bdf[0])
		return 0;
	if (hltests_bind_edu("")) {
		fprintf(stderr, "umem: cannot give %s back\n", hltests_edu_bdf);
		rc = -1;
	}
	if (hltests_umem_loaded && system("rmmod hl_umem")) {
		fprintf(stderr, "umem: rmmod hl_umem failed\n");
		rc = -1;
	}
	hltests_umem_loaded = false;
	return rc;
}

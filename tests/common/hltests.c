// SPDX-License-Identifier: MIT
#include "hltests.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
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

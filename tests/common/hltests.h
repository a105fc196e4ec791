/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers of the cmocka suites. Each suite is one binary per area
 * (tests/<area>/<area>.c) with test_<behaviour> functions in an
 * <area>_tests[] table; they run inside the test VM (tools/hlvm) against
 * the real driver.
 */
#ifndef HLTESTS_H
#define HLTESTS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/ioctl.h>

#include "hlthunk.h"

/**
 * struct hltests_state - what setup hands to each test.
 * @fd: the compute node of device 0, opened with hlthunk_open().
 * @hw_ip: its HW IP info.
 */
struct hltests_state {
	int fd;
	struct hlthunk_hw_ip_info hw_ip;
};

/* Number of /dev/hlN nodes */
int hltests_num_devices(void);

/* open("/dev/hl%d" or "/dev/hl_controlD%d"); returns fd or -errno */
int hltests_open_node(int idx, int control);

/*
 * Raw ioctl with an explicit argument size (for the extensible-struct
 * tests); returns 0 or -errno.
 */
int hltests_ioctl_sized(int fd, unsigned long request, size_t size, void *arg);

/* Raw HL_IOCTL_INFO; returns 0 or -errno */
int hltests_info(int fd, uint32_t op, void *buf, uint32_t size);

/* Read a whole small text file into buf (NUL-terminated, trailing newline
 * removed); returns 0 or -errno */
int hltests_read_file(const char *path, char *buf, size_t size);

/* PCI address of device idx, e.g. "0000:00:04.0"; returns 0 or -errno */
int hltests_pci_addr(int idx, char *buf, size_t size);

/* Setup/teardown that open and close device 0's compute node */
int hltests_setup(void **state);
int hltests_teardown(void **state);

/*
 * Runs a suite. Skips it all, with the reason printed, when the VM has no
 * device (a suite run on a machine without the driver).
 */
int hltests_run_group(const char *name, const struct CMUnitTest *tests,
		      size_t num_tests);

#define HLTESTS_RUN(name, tests) \
	hltests_run_group(name, tests, sizeof(tests) / sizeof((tests)[0]))

#endif /* HLTESTS_H */

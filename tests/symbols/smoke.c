// SPDX-License-Identifier: MIT
/*
 * smoke.c - link against libhlthunk and check its error contract on paths
 * that need no device: a failure returns -errno and leaves errno set to the
 * same value; handle-returning functions return 0 with errno set.
 *
 * With no habanalabs device, hlthunk_open() must fail; with one, it may
 * succeed (run inside the VM) and the program closes the fd.
 * Exit status: the number of failed checks.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <hlthunk.h>

static int failed;

static void check(int cond, const char *what, int rc)
{
	if (!cond) {
		failed++;
		fprintf(stderr, "smoke: FAIL %s (rc %d, errno %d %s)\n", what,
			rc, errno, strerror(errno));
	}
}

/* @rc is -@err and errno is @err */
#define CHECK_ERR(call, err)						\
	do {								\
		int rc_;						\
		errno = 0;						\
		rc_ = (int)(call);					\
		check(rc_ == -(err) && errno == (err), #call, rc_);	\
	} while (0)

int main(void)
{
	struct hlthunk_hw_ip_info hw_ip;
	uint32_t status = 0xdead;
	char busid[HLTHUNK_PCI_BUS_ID_LEN];
	uint64_t ret64;
	int fd, nullfd;

	errno = 0;
	fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, NULL);
	if (fd >= 0) {
		printf("smoke: hlthunk_open: opened a device, fd %d\n", fd);
		check(hlthunk_close(fd) == 0, "hlthunk_close", 0);
	} else {
		printf("smoke: hlthunk_open: %d (%s)\n", fd, strerror(-fd));
		check(errno == -fd, "hlthunk_open sets errno = -rc", fd);
	}

	CHECK_ERR(hlthunk_open(HLTHUNK_DEVICE_INVALID, NULL), EINVAL);
	CHECK_ERR(hlthunk_open(HLTHUNK_DEVICE_MAX, NULL), EINVAL);
	CHECK_ERR(hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, "not-a-bus-id"), EINVAL);
	CHECK_ERR(hlthunk_open_control(-1, NULL), EINVAL);
	CHECK_ERR(hlthunk_get_device_index_from_pci_bus_id(NULL), EINVAL);
	CHECK_ERR(hlthunk_get_device_index_from_pci_bus_id("0000:00:04"),
		  EINVAL);
	CHECK_ERR(hlthunk_get_pci_bus_id_from_fd(-1, busid, sizeof(busid)),
		  EBADF);
	CHECK_ERR(hlthunk_get_pci_bus_id_from_fd(0, NULL, 13), EINVAL);
	CHECK_ERR(hlthunk_get_hw_ip_info(-1, &hw_ip), EBADF);
	CHECK_ERR(hlthunk_get_hw_ip_info(-1, NULL), EINVAL);
	CHECK_ERR(hlthunk_get_info(-1, NULL), EINVAL);
	CHECK_ERR(hlthunk_memory_unmap(-1, 0x1000), EBADF);
	CHECK_ERR(hlthunk_close(-1), EBADF);
	CHECK_ERR(hlthunk_device_mapped_memory_export_dmabuf_fd(-1, 0x1000,
			4096, 0, O_RDWR | O_CLOEXEC), EBADF);

	/* The status of a failure is -errno as an int, never a real status */
	CHECK_ERR(hlthunk_get_device_status_info(-1), EBADF);

	errno = 0;
	check(!hlthunk_is_device_idle(-1) && errno == EBADF,
	      "hlthunk_is_device_idle(-1)", 0);

	errno = 0;
	ret64 = hlthunk_device_memory_alloc(-1, 4096, 0, false, false);
	check(ret64 == 0 && errno == EBADF, "hlthunk_device_memory_alloc(-1)",
	      (int)ret64);

	errno = 0;
	ret64 = hlthunk_device_memory_map_flags(-1, 1, 0, HL_MEM_USERPTR);
	check(ret64 == 0 && errno == EINVAL,
	      "hlthunk_device_memory_map_flags(USERPTR)", (int)ret64);

	errno = 0;
	ret64 = hlthunk_host_memory_map(-1, &status, 0, sizeof(status));
	check(ret64 == 0 && errno == EBADF, "hlthunk_host_memory_map(-1)",
	      (int)ret64);

	/* Other errors leave *status untouched */
	CHECK_ERR(hlthunk_wait_for_cs(-1, 1, 0, &status), EBADF);
	check(status == 0xdead, "hlthunk_wait_for_cs leaves status", 0);

	/* A character device of another driver */
	nullfd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nullfd >= 0) {
		CHECK_ERR(hlthunk_get_pci_bus_id_from_fd(nullfd, busid,
							 sizeof(busid)),
			  ENOTTY);
		CHECK_ERR(hlthunk_get_hw_ip_info(nullfd, &hw_ip), ENOTTY);
		close(nullfd);
	}

	printf("smoke: %s\n", failed ? "FAILED" : "passed");
	return failed;
}

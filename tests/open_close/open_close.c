// SPDX-License-Identifier: MIT
/*
 * open_close: the device nodes, who may open them, and what they accept.
 */
#include "hltests.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_open_close(void **state)
{
	int fd;

	(void)state;
	fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, NULL);
	assert_true(fd >= 0);
	assert_int_equal(hlthunk_close(fd), 0);
}

static void test_second_open_is_busy(void **state)
{
	int fd, fd2;

	(void)state;
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);

	fd2 = hltests_open_node(0, 0);
	assert_int_equal(fd2, -EBUSY);

	close(fd);

	/* Free again once the holder closed it */
	fd2 = hltests_open_node(0, 0);
	assert_true(fd2 >= 0);
	close(fd2);
}

static void test_second_open_from_other_process_is_busy(void **state)
{
	int fd, status;
	pid_t pid;

	(void)state;
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd2 = hltests_open_node(0, 0);

		_exit(fd2 == -EBUSY ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(fd);
}

static void test_fd_inherited_by_child_keeps_ownership(void **state)
{
	int fd, fd2, status;
	pid_t pid;

	(void)state;
	fd = hltests_open_node(0, 0);
	assert_true(fd >= 0);

	/* The child shares the open file: closing it in the parent is not the
	 * last close, so the node stays busy until the child exits.
	 */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct hl_info_device_status st;

		usleep(200 * 1000);
		_exit(hltests_info(fd, HL_INFO_DEVICE_STATUS, &st, sizeof(st)) ? 1 : 0);
	}
	close(fd);
	fd2 = hltests_open_node(0, 0);
	if (fd2 >= 0) {
		/* The child may already have exited on a slow VM */
		close(fd2);
	} else {
		assert_int_equal(fd2, -EBUSY);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	fd2 = hltests_open_node(0, 0);
	assert_true(fd2 >= 0);
	close(fd2);
}

static void test_control_node_many_openers(void **state)
{
	struct hl_info_device_status st;
	int fds[4], i, compute;

	(void)state;
	compute = hltests_open_node(0, 0);
	assert_true(compute >= 0);
	for (i = 0; i < 4; i++) {
		fds[i] = hltests_open_node(0, 1);
		assert_true(fds[i] >= 0);
	}
	for (i = 0; i < 4; i++) {
		memset(&st, 0xff, sizeof(st));
		assert_int_equal(hltests_info(fds[i], HL_INFO_DEVICE_STATUS, &st,
					      sizeof(st)), 0);
		assert_int_equal(st.status, HL_DEVICE_STATUS_OPERATIONAL);
		close(fds[i]);
	}
	close(compute);
}

static void test_hlthunk_open_control(void **state)
{
	struct hlthunk_hw_ip_info hw_ip;
	int fd;

	(void)state;
	fd = hlthunk_open_control(0, NULL);
	assert_true(fd >= 0);
	assert_int_equal(hlthunk_get_hw_ip_info(fd, &hw_ip), 0);
	assert_string_equal((char *)hw_ip.card_name, "emu-gaudi");
	hlthunk_close(fd);
}

static void test_control_node_only_info(void **state)
{
	union hl_mem_args mem;
	union hl_cs_args cs;
	int fd;

	(void)state;
	fd = hltests_open_node(0, 1);
	assert_true(fd >= 0);

	memset(&mem, 0, sizeof(mem));
	mem.in.op = HL_MEM_OP_ALLOC;
	mem.in.alloc.mem_size = 1 << 21;
	assert_int_equal(ioctl(fd, HL_IOCTL_MEMORY, &mem), -1);
	assert_int_equal(errno, ENOTTY);

	memset(&cs, 0, sizeof(cs));
	assert_int_equal(ioctl(fd, HL_IOCTL_CS, &cs), -1);
	assert_int_equal(errno, ENOTTY);
	close(fd);
}

static void test_unknown_ioctl_is_enotty(void **state)
{
	struct hltests_state *st = *state;
	uint64_t buf[8] = { 0 };

	/* Unused number, wrong type, wrong direction */
	assert_int_equal(ioctl(st->fd, _IOWR('H', 0x3f, struct hl_info_args), buf), -1);
	assert_int_equal(errno, ENOTTY);
	assert_int_equal(ioctl(st->fd, _IOWR('X', 0x01, struct hl_info_args), buf), -1);
	assert_int_equal(errno, ENOTTY);
	assert_int_equal(ioctl(st->fd, _IOW('H', 0x01, struct hl_info_args), buf), -1);
	assert_int_equal(errno, ENOTTY);
}

static void test_all_devices_open_at_once(void **state)
{
	int n = hltests_num_devices(), i, fds[16];

	(void)state;
	if (n < 2) {
		print_message("only %d device: nothing to open at once\n", n);
		skip();
	}
	if (n > 16)
		n = 16;
	for (i = 0; i < n; i++) {
		fds[i] = hltests_open_node(i, 0);
		assert_true(fds[i] >= 0);
	}
	/* hlthunk_open() finds no free device now */
	assert_int_equal(hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, NULL), -EBUSY);
	for (i = 0; i < n; i++)
		close(fds[i]);
}

static void test_open_by_busid(void **state)
{
	char busid[32], got[32];
	int fd;

	(void)state;
	assert_int_equal(hltests_pci_addr(0, busid, sizeof(busid)), 0);
	fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, busid);
	assert_true(fd >= 0);
	assert_int_equal(hlthunk_get_pci_bus_id_from_fd(fd, got, sizeof(got)), 0);
	assert_string_equal(got, busid);
	hlthunk_close(fd);

	assert_true(hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, "0000:ff:1f.7") < 0);
}

static void test_sysfs_attributes(void **state)
{
	struct hltests_state *st = *state;
	char buf[128];

	assert_int_equal(hltests_read_file("/sys/class/habanalabs/hl0/device_type",
					   buf, sizeof(buf)), 0);
	assert_string_equal(buf, "emu-gaudi");
	assert_int_equal(hltests_read_file("/sys/class/habanalabs/hl0/status",
					   buf, sizeof(buf)), 0);
	assert_string_equal(buf, "operational");
	assert_int_equal(hltests_read_file("/sys/class/habanalabs/hl0/dram_size",
					   buf, sizeof(buf)), 0);
	assert_int_equal(strtoull(buf, NULL, 0), st->hw_ip.dram_size);
	assert_int_equal(access("/dev/hl_controlD0", R_OK | W_OK), 0);
}

static void test_debugfs_shows_compute_owner(void **state)
{
	char busid[32], path[160], buf[512];

	(void)state;
	assert_int_equal(hltests_pci_addr(0, busid, sizeof(busid)), 0);
	snprintf(path, sizeof(path), "/sys/kernel/debug/habanalabs/%s/info", busid);
	/* state's fd holds device 0 open */
	assert_int_equal(hltests_read_file(path, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "compute_open: 1"));
}

static void test_open_nonexistent_control(void **state)
{
	(void)state;
	assert_true(hlthunk_open_control(99, NULL) < 0);
}

const struct CMUnitTest open_close_tests[] = {
	cmocka_unit_test(test_open_close),
	cmocka_unit_test(test_second_open_is_busy),
	cmocka_unit_test(test_second_open_from_other_process_is_busy),
	cmocka_unit_test(test_fd_inherited_by_child_keeps_ownership),
	cmocka_unit_test(test_control_node_many_openers),
	cmocka_unit_test(test_hlthunk_open_control),
	cmocka_unit_test(test_control_node_only_info),
	cmocka_unit_test_setup_teardown(test_unknown_ioctl_is_enotty,
					hltests_setup, hltests_teardown),
	cmocka_unit_test(test_all_devices_open_at_once),
	cmocka_unit_test(test_open_by_busid),
	cmocka_unit_test_setup_teardown(test_sysfs_attributes,
					hltests_setup, hltests_teardown),
	cmocka_unit_test_setup_teardown(test_debugfs_shows_compute_owner,
					hltests_setup, hltests_teardown),
	cmocka_unit_test(test_open_nonexistent_control),
};

int main(void)
{
	return HLTESTS_RUN("open_close", open_close_tests);
}

// SPDX-License-Identifier: MIT
/*
 * hl-smi: list the habanalabs devices and what INFO says about them, through
 * their control nodes (so it works while another process owns the compute
 * node).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hlthunk.h"

static const char *status_name(int status)
{
	switch (status) {
	case HL_DEVICE_STATUS_OPERATIONAL:
		return "operational";
	case HL_DEVICE_STATUS_IN_RESET:
		return "in reset";
	case HL_DEVICE_STATUS_MALFUNCTION:
		return "malfunction";
	case HL_DEVICE_STATUS_NEEDS_RESET:
		return "needs reset";
	case HL_DEVICE_STATUS_IN_DEVICE_CREATION:
		return "in creation";
	default:
		return "unknown";
	}
}

static int show_device(int idx, int verbose)
{
	struct hlthunk_dram_usage_info usage;
	struct hlthunk_engines_idle_info idle;
	struct hl_info_hw_ip_info hw;
	char busid[32] = "?";
	uint32_t busy = 0;
	int fd, rc, status;

	fd = hlthunk_open_control(idx, NULL);
	if (fd < 0)
		return fd;

	rc = hlthunk_get_hw_ip_info_ext(fd, &hw);
	if (!rc)
		rc = hlthunk_get_dram_usage(fd, &usage);
	if (rc) {
		fprintf(stderr, "hl-smi: device %d: %s\n", idx, strerror(-rc));
		hlthunk_close(fd);
		return rc;
	}
	hlthunk_get_pci_bus_id_from_fd(fd, busid, sizeof(busid));
	status = hlthunk_get_device_status_info(fd);
	if (!hlthunk_get_busy_engines_mask(fd, &idle))
		busy = (uint32_t)idle.mask[0];

	printf("hl%-3d %-12s %-13s %-12s %6llu / %6llu MiB  %2u queues  busy 0x%x\n",
	       idx, busid, (char *)hw.card_name, status_name(status),
	       (unsigned long long)((hw.dram_size - usage.dram_free_mem) >> 20),
	       (unsigned long long)(hw.dram_size >> 20), hw.num_queues, busy);
	if (verbose) {
		printf("      device id 0x%04x, module id %u, DRAM base 0x%llx, DRAM page %llu KiB\n",
		       hw.device_id, hw.module_id,
		       (unsigned long long)hw.dram_base_address,
		       (unsigned long long)(hw.dram_page_size >> 10));
		printf("      device VA: host [0x%llx, 0x%llx) dram [0x%llx, 0x%llx), %u NIC ports\n",
		       (unsigned long long)hw.host_va_start,
		       (unsigned long long)hw.host_va_end,
		       (unsigned long long)hw.dram_va_start,
		       (unsigned long long)hw.dram_va_end, hw.num_nic_ports);
	}
	hlthunk_close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int verbose = 0, found = 0, idx, opt;

	while ((opt = getopt(argc, argv, "qh")) != -1) {
		switch (opt) {
		case 'q':
			verbose = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-q]\n  -q  more detail per device\n",
				argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}

	printf("dev   PCI          ASIC          status       DRAM used / size\n");
	for (idx = 0; idx < HLTHUNK_MAX_MINOR; idx++) {
		int rc = show_device(idx, verbose);

		if (rc == -ENOENT || rc == -ENODEV)
			continue;
		if (rc)
			return 1;
		found++;
	}
	if (!found) {
		fprintf(stderr, "hl-smi: no habanalabs device (is the driver loaded and bound?)\n");
		return 1;
	}
	return 0;
}

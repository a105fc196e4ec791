// SPDX-License-Identifier: MIT
/*
 * libhlthunk.c - the ioctl helper, opening and closing device nodes, and the
 * INFO wrappers.
 *
 * Device discovery uses only what the driver documents: /dev/hlN (compute),
 * /dev/hl_controlDN (control), the class directory /sys/class/habanalabs/
 * holding hlN and hl_controlDN, and each one's "device" link to its PCI
 * function. A "pci_addr" attribute (the upstream driver's) is read when the
 * link is missing.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "hlthunk_internal.h"

#define HLTHUNK_SYSFS_CLASS	"/sys/class/habanalabs"
#define HLTHUNK_SYSFS_CHAR	"/sys/dev/char"
#define HLTHUNK_SUBSYSTEM	"habanalabs"

/* Upstream PCI device IDs, for hl-thunk compatibility of the name helpers */
#define HLTHUNK_PCI_ID_GOYA	0x0001
#define HLTHUNK_PCI_ID_GAUDI	0x1000
#define HLTHUNK_PCI_ID_GAUDI_SEC 0x1010
#define HLTHUNK_PCI_ID_GAUDI2	0x1020

int hlthunk_ioctl_once(int fd, unsigned long request, void *arg)
{
	int ret = ioctl(fd, request, arg);

	return ret < 0 ? -errno : ret;
}

/* Sleep @us microseconds; a signal cuts it short (the caller retries) */
static void hlthunk_sleep_us(unsigned int us)
{
	struct timespec ts = {
		.tv_sec = us / 1000000,
		.tv_nsec = (long)(us % 1000000) * 1000,
	};
	int saved = errno;

	nanosleep(&ts, NULL);
	errno = saved;
}

int hlthunk_ioctl(int fd, unsigned long request, void *arg)
{
	unsigned int backoff_us = HLTHUNK_BACKOFF_MIN_US;
	int ret;

	for (;;) {
		ret = hlthunk_ioctl_once(fd, request, arg);
		if (ret == -EINTR)
			continue;
		if (ret != -EAGAIN)
			return ret;
		hlthunk_sleep_us(backoff_us);
		if (backoff_us < HLTHUNK_BACKOFF_MAX_US)
			backoff_us = backoff_us * 2 < HLTHUNK_BACKOFF_MAX_US ?
				     backoff_us * 2 : HLTHUNK_BACKOFF_MAX_US;
	}
}

static uint64_t hlthunk_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void hlthunk_deadline_start(struct hlthunk_deadline *d, uint64_t timeout_us,
			    uint64_t forever_us)
{
	uint64_t now = hlthunk_now_ns();

	d->end_ns = 0;
	if (timeout_us >= forever_us || timeout_us > UINT64_MAX / 1000)
		return;
	if (UINT64_MAX - now < timeout_us * 1000)
		return;
	d->end_ns = now + timeout_us * 1000;
	/* 0 means "no limit": a deadline at 0 ns cannot happen after boot */
	if (!d->end_ns)
		d->end_ns = 1;
}

uint64_t hlthunk_deadline_left_us(const struct hlthunk_deadline *d,
				  uint64_t timeout_us)
{
	uint64_t now;

	if (!d->end_ns)
		return timeout_us;
	now = hlthunk_now_ns();
	if (now >= d->end_ns)
		return 0;
	return (d->end_ns - now + 999) / 1000;
}

/* close(2) for cleanup paths: keeps the errno being reported */
static void hlthunk_close_quiet(int fd)
{
	int saved = errno;

	close(fd);
	errno = saved;
}

/* ------------------------------------------------------------------------
 * PCI bus IDs
 */

static int hlthunk_parse_hex(const char **s, unsigned int max_digits,
			     unsigned int *val)
{
	const char *p = *s;
	unsigned int v = 0, n = 0;

	while (isxdigit((unsigned char)*p)) {
		if (++n > max_digits)
			return -1;
		v = v * 16 + (isdigit((unsigned char)*p) ?
			      (unsigned int)(*p - '0') :
			      (unsigned int)(tolower((unsigned char)*p) - 'a' + 10));
		p++;
	}
	if (!n)
		return -1;

	*s = p;
	*val = v;
	return 0;
}

/*
 * Parse "dddd:bb:dd.f" or "bb:dd.f" (any case, domain up to 8 digits) into
 * the canonical lower-case "dddd:bb:dd.f". Return 0 or -EINVAL.
 */
static int hlthunk_canon_busid(const char *in, char *out, size_t outlen)
{
	unsigned int a, b, dom, bus, dev, fn;
	const char *p = in;
	int n;

	if (hlthunk_parse_hex(&p, 8, &a) || *p != ':')
		return -EINVAL;
	p++;
	if (hlthunk_parse_hex(&p, 2, &b))
		return -EINVAL;

	if (*p == ':') {
		p++;
		dom = a;
		bus = b;
		if (hlthunk_parse_hex(&p, 2, &dev))
			return -EINVAL;
	} else {
		dom = 0;
		bus = a;
		dev = b;
	}

	if (*p != '.')
		return -EINVAL;
	p++;
	if (hlthunk_parse_hex(&p, 1, &fn) || *p != '\0')
		return -EINVAL;

	if (bus > 0xff || dev > 0x1f || fn > 7)
		return -EINVAL;

	n = snprintf(out, outlen, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	if (n < 0 || (size_t)n >= outlen)
		return -EINVAL;

	return 0;
}

/*
 * The canonical PCI bus ID of the device behind a sysfs device directory
 * (a class device or a /sys/dev/char entry). Return 0 or -ENODEV.
 */
static int hlthunk_sysfs_busid(const char *devdir, char *out, size_t outlen)
{
	char path[PATH_MAX], link[PATH_MAX], attr[64];
	const char *base;
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/device", devdir) >=
	    (int)sizeof(path))
		return -ENODEV;

	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		base = strrchr(link, '/');
		base = base ? base + 1 : link;
		if (!hlthunk_canon_busid(base, out, outlen))
			return 0;
	}

	/* No PCI parent link: try an upstream-style pci_addr attribute */
	if (snprintf(path, sizeof(path), "%s/pci_addr", devdir) >=
	    (int)sizeof(path))
		return -ENODEV;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENODEV;
	n = read(fd, attr, sizeof(attr) - 1);
	close(fd);
	if (n <= 0)
		return -ENODEV;

	attr[n] = '\0';
	while (n > 0 && isspace((unsigned char)attr[n - 1]))
		attr[--n] = '\0';

	return hlthunk_canon_busid(attr, out, outlen) ? -ENODEV : 0;
}

/* N of a class entry named "hlN", or -1 for any other name */
static int hlthunk_class_entry_index(const char *name)
{
	const char *p;
	long idx = 0;

	if (strncmp(name, "hl", 2) != 0 || !isdigit((unsigned char)name[2]))
		return -1;

	for (p = name + 2; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		idx = idx * 10 + (*p - '0');
		if (idx >= INT_MAX / 10)
			return -1;
	}

	return (int)idx;
}

hlthunk_public int hlthunk_get_device_index_from_pci_bus_id(const char *busid)
{
	char want[32], have[32], devdir[PATH_MAX];
	struct dirent *entry;
	int idx, found = -1;
	DIR *dir;

	if (!busid || hlthunk_canon_busid(busid, want, sizeof(want)))
		return hlthunk_err(EINVAL);

	dir = opendir(HLTHUNK_SYSFS_CLASS);
	if (!dir)
		return hlthunk_err(errno == ENOENT ? ENODEV : errno);

	while ((entry = readdir(dir)) != NULL) {
		idx = hlthunk_class_entry_index(entry->d_name);
		if (idx < 0)
			continue;

		if (snprintf(devdir, sizeof(devdir), "%s/%s",
			     HLTHUNK_SYSFS_CLASS, entry->d_name) >=
		    (int)sizeof(devdir))
			continue;

		if (hlthunk_sysfs_busid(devdir, have, sizeof(have)))
			continue;

		if (!strcmp(have, want)) {
			found = idx;
			break;
		}
	}

	closedir(dir);

	return found >= 0 ? found : hlthunk_err(ENODEV);
}

hlthunk_public int hlthunk_get_pci_bus_id_from_fd(int fd, char *pci_bus_id,
						  int len)
{
	char devdir[64], path[96], link[PATH_MAX], busid[32];
	const char *base;
	struct stat st;
	size_t need;
	ssize_t n;
	int rc;

	if (!pci_bus_id || len <= 0)
		return hlthunk_err(EINVAL);

	if (fstat(fd, &st))
		return -errno;

	if (!S_ISCHR(st.st_mode))
		return hlthunk_err(ENOTTY);

	snprintf(devdir, sizeof(devdir), "%s/%u:%u", HLTHUNK_SYSFS_CHAR,
		 major(st.st_rdev), minor(st.st_rdev));

	/* Refuse character devices of other drivers when sysfs says so */
	snprintf(path, sizeof(path), "%s/subsystem", devdir);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		base = strrchr(link, '/');
		base = base ? base + 1 : link;
		if (strcmp(base, HLTHUNK_SUBSYSTEM) != 0)
			return hlthunk_err(ENOTTY);
	}

	rc = hlthunk_sysfs_busid(devdir, busid, sizeof(busid));
	if (rc)
		return hlthunk_err(-rc);

	need = strlen(busid) + 1;
	if (need > (size_t)len)
		return hlthunk_err(ERANGE);

	memcpy(pci_bus_id, busid, need);
	return 0;
}

/* ------------------------------------------------------------------------
 * INFO
 */

static int hlthunk_info(int fd, uint32_t op, void *buf, uint32_t size)
{
	struct hl_info_args args;
	int rc;

	memset(&args, 0, sizeof(args));
	args.op = op;
	args.return_pointer = hlthunk_ptr_to_u64(buf);
	args.return_size = size;

	rc = hlthunk_ioctl(fd, HL_IOCTL_INFO, &args);

	return rc < 0 ? rc : 0;
}

static int hlthunk_raw_hw_ip(int fd, struct hl_info_hw_ip_info *hw_ip)
{
	memset(hw_ip, 0, sizeof(*hw_ip));
	return hlthunk_info(fd, HL_INFO_HW_IP_INFO, hw_ip, sizeof(*hw_ip));
}

/*
 * The ASIC type a device claims, by its PCI device ID as hl-thunk tells
 * them apart: the driver's devices are the emulated ASIC (ivshmem's ID, or
 * the card name when the function has another), or a GAUDI when the driver
 * was loaded with asic=gaudi (device ID 0x1000).
 */
static enum hlthunk_device_name
hlthunk_name_of(const struct hl_info_hw_ip_info *hw_ip)
{
	switch (hw_ip->device_id) {
	case HLTHUNK_PCI_ID_GAUDI_EMU:
		return HLTHUNK_DEVICE_GAUDI_EMU;
	case HLTHUNK_PCI_ID_GOYA:
		return HLTHUNK_DEVICE_GOYA;
	case HLTHUNK_PCI_ID_GAUDI:
	case HLTHUNK_PCI_ID_GAUDI_SEC:
		return HLTHUNK_DEVICE_GAUDI;
	case HLTHUNK_PCI_ID_GAUDI2:
		return HLTHUNK_DEVICE_GAUDI2;
	default:
		break;
	}

	if (!strncmp((const char *)hw_ip->card_name,
		     HLTHUNK_CARD_NAME_GAUDI_EMU, sizeof(hw_ip->card_name)))
		return HLTHUNK_DEVICE_GAUDI_EMU;

	return HLTHUNK_DEVICE_INVALID;
}

/*
 * Whether a device is of type @name for the open and count functions: the
 * type it claims, and HLTHUNK_DEVICE_GAUDI_EMU for every emulated device
 * (its card name), whatever it claims, so that this library's users find
 * the emulated ASIC under asic=gaudi too.
 */
static bool hlthunk_is(const struct hl_info_hw_ip_info *hw_ip,
		       enum hlthunk_device_name name)
{
	if (name == HLTHUNK_DEVICE_DONT_CARE)
		return true;

	if (name == HLTHUNK_DEVICE_GAUDI_EMU &&
	    !strncmp((const char *)hw_ip->card_name,
		     HLTHUNK_CARD_NAME_GAUDI_EMU, sizeof(hw_ip->card_name)))
		return true;

	return hlthunk_name_of(hw_ip) == name;
}

/* The ASIC type behind @fd; HLTHUNK_DEVICE_INVALID with errno set */
static enum hlthunk_device_name hlthunk_name_of_fd(int fd)
{
	struct hl_info_hw_ip_info hw_ip;
	enum hlthunk_device_name name;

	if (hlthunk_raw_hw_ip(fd, &hw_ip) < 0)
		return HLTHUNK_DEVICE_INVALID;

	name = hlthunk_name_of(&hw_ip);
	if (name == HLTHUNK_DEVICE_INVALID)
		errno = ENODEV;

	return name;
}

/* Whether the device behind @fd is of type @name (hlthunk_is()) */
static bool hlthunk_fd_is(int fd, enum hlthunk_device_name name)
{
	struct hl_info_hw_ip_info hw_ip;

	if (name == HLTHUNK_DEVICE_DONT_CARE)
		return true;

	if (hlthunk_raw_hw_ip(fd, &hw_ip) < 0)
		return false;

	return hlthunk_is(&hw_ip, name);
}

hlthunk_public int hlthunk_get_info(int fd, struct hl_info_args *info)
{
	struct hl_info_args args;
	int rc;

	if (!info)
		return hlthunk_err(EINVAL);

	/* The caller's struct has 2.0's size, whatever the uAPI grows to */
	hlthunk_copy_in(&args, sizeof(args), info, HLTHUNK_2_0_SIZEOF_INFO_ARGS);
	rc = hlthunk_ioctl(fd, HL_IOCTL_INFO, &args);

	return rc < 0 ? rc : 0;
}

hlthunk_public int hlthunk_get_hw_ip_info(int fd,
					  struct hlthunk_hw_ip_info *hw_ip)
{
	struct hlthunk_hw_ip_info *caller = hw_ip;
	struct hl_info_hw_ip_info raw;
	struct hlthunk_hw_ip_info out;
	int rc;

	if (!hw_ip)
		return hlthunk_err(EINVAL);

	rc = hlthunk_raw_hw_ip(fd, &raw);
	if (rc < 0)
		return rc;

	/* Filled here, then copied at the size of hl-thunk's struct */
	memset(&out, 0, sizeof(out));
	hw_ip = &out;
	hw_ip->sram_base_address = raw.sram_base_address;
	hw_ip->dram_base_address = raw.dram_base_address;
	hw_ip->dram_size = raw.dram_size;
	hw_ip->sram_size = raw.sram_size;
	hw_ip->num_of_events = raw.num_of_events;
	hw_ip->device_id = raw.device_id;
	hw_ip->cpld_version = raw.cpld_version;
	hw_ip->psoc_pci_pll_nr = raw.psoc_pci_pll_nr;
	hw_ip->psoc_pci_pll_nf = raw.psoc_pci_pll_nf;
	hw_ip->psoc_pci_pll_od = raw.psoc_pci_pll_od;
	hw_ip->psoc_pci_pll_div_factor = raw.psoc_pci_pll_div_factor;
	hw_ip->tpc_enabled_mask = raw.tpc_enabled_mask;
	hw_ip->dram_enabled = raw.dram_enabled;
	/* The last byte stays NUL whatever the driver sent */
	memcpy(hw_ip->cpucp_version, raw.cpucp_version,
	       sizeof(hw_ip->cpucp_version) - 1);
	hw_ip->module_id = raw.module_id;
	memcpy(hw_ip->card_name, raw.card_name, sizeof(hw_ip->card_name) - 1);
	hw_ip->decoder_enabled_mask = raw.decoder_enabled_mask;
	hw_ip->mme_master_slave_mode = raw.mme_master_slave_mode;
	hw_ip->tpc_enabled_mask_ext = raw.tpc_enabled_mask_ext;
	hw_ip->dram_page_size = raw.dram_page_size;
	hw_ip->first_available_interrupt_id = raw.first_available_interrupt_id;
	hw_ip->edma_enabled_mask = raw.edma_enabled_mask;
	hw_ip->server_type = raw.server_type;
	hw_ip->number_of_user_interrupts = raw.number_of_user_interrupts;
	hw_ip->device_mem_alloc_default_page_size =
		raw.device_mem_alloc_default_page_size;
	hw_ip->security_enabled = raw.security_enabled;
	hw_ip->revision_id = raw.revision_id;
	hw_ip->tpc_interrupt_id = raw.tpc_interrupt_id;
	hw_ip->engine_core_interrupt_reg_addr =
		raw.engine_core_interrupt_reg_addr;
	hw_ip->rotator_enabled_mask = raw.rotator_enabled_mask;
	hw_ip->reserved_dram_size = raw.reserved_dram_size;

	memcpy(caller, &out, HLTHUNK_SIZEOF_HW_IP_INFO < sizeof(out) ?
	       HLTHUNK_SIZEOF_HW_IP_INFO : sizeof(out));
	return 0;
}

hlthunk_public int hlthunk_get_hw_ip_info_ex(int fd,
					     struct hl_info_hw_ip_info *hw_ip,
					     size_t size)
{
	struct hl_info_hw_ip_info raw;
	int rc;

	if (!hw_ip || size < HLTHUNK_UPSTREAM_SIZEOF_HW_IP_INFO)
		return hlthunk_err(EINVAL);

	rc = hlthunk_raw_hw_ip(fd, &raw);
	if (rc < 0)
		return rc;

	hlthunk_copy_out(hw_ip, size, &raw, sizeof(raw));
	return 0;
}

hlthunk_public int hlthunk_get_hw_ip_info_ext(int fd,
					      struct hl_info_hw_ip_info *hw_ip)
{
	return hlthunk_get_hw_ip_info_ex(fd, hw_ip,
					 HLTHUNK_2_0_SIZEOF_HW_IP_INFO);
}

hlthunk_public int hlthunk_get_dram_usage(int fd,
				struct hlthunk_dram_usage_info *dram_usage)
{
	struct hl_info_dram_usage raw;
	int rc;

	if (!dram_usage)
		return hlthunk_err(EINVAL);

	memset(&raw, 0, sizeof(raw));
	rc = hlthunk_info(fd, HL_INFO_DRAM_USAGE, &raw, sizeof(raw));
	if (rc < 0)
		return rc;

	dram_usage->dram_free_mem = raw.dram_free_mem;
	dram_usage->ctx_dram_mem = raw.ctx_dram_mem;

	return 0;
}

hlthunk_public enum hl_device_status hlthunk_get_device_status_info(int fd)
{
	struct hl_info_device_status raw;
	int rc;

	memset(&raw, 0, sizeof(raw));
	rc = hlthunk_info(fd, HL_INFO_DEVICE_STATUS, &raw, sizeof(raw));
	if (rc < 0)
		return (enum hl_device_status)rc;

	return (enum hl_device_status)raw.status;
}

static int hlthunk_hw_idle(int fd, struct hl_info_hw_idle *raw)
{
	memset(raw, 0, sizeof(*raw));
	return hlthunk_info(fd, HL_INFO_HW_IDLE, raw, sizeof(*raw));
}

hlthunk_public bool hlthunk_is_device_idle(int fd)
{
	struct hl_info_hw_idle raw;

	if (hlthunk_hw_idle(fd, &raw) < 0)
		return false;

	return raw.is_idle != 0;
}

hlthunk_public int hlthunk_get_busy_engines_mask(int fd,
				struct hlthunk_engines_idle_info *info)
{
	struct hl_info_hw_idle raw;
	int rc;

	if (!info)
		return hlthunk_err(EINVAL);

	rc = hlthunk_hw_idle(fd, &raw);
	if (rc < 0)
		return rc;

	memset(info, 0, sizeof(*info));
	info->is_idle = raw.is_idle;
	memcpy(info->mask, raw.busy_engines_mask_ext, sizeof(info->mask));

	return 0;
}

hlthunk_public int hlthunk_get_page_fault_event_ex(int fd,
				struct hl_info_page_fault_event *info,
				size_t size)
{
	struct hl_info_page_fault_event raw;
	int rc;

	if (!info || size < HLTHUNK_2_0_SIZEOF_PAGE_FAULT_EVENT)
		return hlthunk_err(EINVAL);

	memset(&raw, 0, sizeof(raw));
	rc = hlthunk_info(fd, HL_INFO_PAGE_FAULT_EVENT, &raw, sizeof(raw));
	if (rc < 0)
		return rc;

	hlthunk_copy_out(info, size, &raw, sizeof(raw));
	return 0;
}

hlthunk_public int hlthunk_get_page_fault_event(int fd,
				struct hl_info_page_fault_event *info)
{
	return hlthunk_get_page_fault_event_ex(fd, info,
					HLTHUNK_2_0_SIZEOF_PAGE_FAULT_EVENT);
}

hlthunk_public int hlthunk_get_page_fault_info(int fd,
				struct hlthunk_page_fault_info *pf,
				uint32_t num_of_allocated_mappings)
{
	struct hl_info_page_fault_event raw;
	int rc;

	(void)num_of_allocated_mappings;

	if (!pf)
		return hlthunk_err(EINVAL);

	rc = hlthunk_get_page_fault_event(fd, &raw);
	if (rc < 0)
		return rc;

	pf->timestamp = raw.timestamp;
	pf->addr = raw.addr;
	pf->engine_id = raw.engine_id;
	pf->num_of_mappings = 0;

	return 0;
}

hlthunk_public int hlthunk_get_dev_memalloc_page_orders(int fd,
				uint64_t *page_order_bitmask)
{
	struct hl_info_dev_memalloc_page_sizes raw;
	int rc;

	if (!page_order_bitmask)
		return hlthunk_err(EINVAL);

	memset(&raw, 0, sizeof(raw));
	rc = hlthunk_info(fd, HL_INFO_DEV_MEM_ALLOC_PAGE_SIZES, &raw,
			  sizeof(raw));
	if (rc < 0)
		return rc;

	*page_order_bitmask = raw.page_order_bitmask;
	return 0;
}

hlthunk_public uint32_t hlthunk_get_device_id_from_fd(int fd)
{
	struct hl_info_hw_ip_info hw_ip;

	if (hlthunk_raw_hw_ip(fd, &hw_ip) < 0)
		return 0;

	return hw_ip.device_id;
}

hlthunk_public enum hlthunk_device_name hlthunk_get_device_name_from_fd(int fd)
{
	return hlthunk_name_of_fd(fd);
}

/* ------------------------------------------------------------------------
 * Opening and closing
 */

/* open(2) node @type of device @idx; the fd or -errno */
static int hlthunk_open_node(enum hlthunk_node_type type, int idx)
{
	char path[64];
	int fd;

	if (idx < 0)
		return hlthunk_err(EINVAL);

	switch (type) {
	case HLTHUNK_NODE_PRIMARY:
		snprintf(path, sizeof(path), HLTHUNK_DEV_NAME_PRIMARY, idx);
		break;
	case HLTHUNK_NODE_CONTROL:
		snprintf(path, sizeof(path), HLTHUNK_DEV_NAME_CONTROL, idx);
		break;
	default:
		return hlthunk_err(EINVAL);
	}

	fd = open(path, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/*
 * How telling an open failure is, for reporting one error out of a scan:
 * another owner beats no permission beats an unexpected error beats
 * "nothing (suitable) there".
 */
static int hlthunk_err_rank(int err)
{
	switch (err) {
	case EBUSY:
		return 3;
	case EACCES:
	case EPERM:
		return 2;
	case ENOENT:
	case ENXIO:
	case ENODEV:
		return 0;
	default:
		return 1;
	}
}

static void hlthunk_keep_worst(int *worst, int err)
{
	if (hlthunk_err_rank(err) > hlthunk_err_rank(*worst))
		*worst = err;
}

/*
 * Open the compute node of device @idx if it is of type @name. The type is
 * checked through the control node when possible, so that a device of
 * another type is never opened for compute (its single-owner slot taken).
 * Return the fd, -ENODEV for another type, or the open(2) -errno.
 */
static int hlthunk_open_index(int idx, enum hlthunk_device_name name)
{
	bool checked = false;
	int fd, cfd;

	if (name != HLTHUNK_DEVICE_DONT_CARE) {
		cfd = hlthunk_open_node(HLTHUNK_NODE_CONTROL, idx);
		if (cfd >= 0) {
			bool is = hlthunk_fd_is(cfd, name);

			hlthunk_close_quiet(cfd);
			if (!is)
				return hlthunk_err(ENODEV);
			checked = true;
		}
	}

	fd = hlthunk_open_node(HLTHUNK_NODE_PRIMARY, idx);
	if (fd < 0)
		return fd;

	if (name != HLTHUNK_DEVICE_DONT_CARE && !checked &&
	    !hlthunk_fd_is(fd, name)) {
		hlthunk_close_quiet(fd);
		return hlthunk_err(ENODEV);
	}

	return fd;
}

/* A device type, or DONT_CARE: what the open functions accept */
static bool hlthunk_name_valid(enum hlthunk_device_name name)
{
	if (name == HLTHUNK_DEVICE_GAUDI_EMU)
		return true;

	return (unsigned int)name < HLTHUNK_DEVICE_MAX &&
	       name != HLTHUNK_DEVICE_INVALID;
}

hlthunk_public int hlthunk_open(enum hlthunk_device_name device_name,
				const char *busid)
{
	int idx, fd, worst = ENODEV;

	if (!hlthunk_name_valid(device_name))
		return hlthunk_err(EINVAL);

	if (busid) {
		idx = hlthunk_get_device_index_from_pci_bus_id(busid);
		if (idx < 0)
			return idx;
		return hlthunk_open_index(idx, device_name);
	}

	for (idx = 0; idx < HLTHUNK_MAX_MINOR; idx++) {
		fd = hlthunk_open_index(idx, device_name);
		if (fd >= 0)
			return fd;
		hlthunk_keep_worst(&worst, -fd);
	}

	return hlthunk_err(worst);
}

hlthunk_public int hlthunk_open_control(int dev_id, const char *busid)
{
	if (busid) {
		dev_id = hlthunk_get_device_index_from_pci_bus_id(busid);
		if (dev_id < 0)
			return dev_id;
	}

	if (dev_id < 0)
		return hlthunk_err(EINVAL);

	return hlthunk_open_node(HLTHUNK_NODE_CONTROL, dev_id);
}

hlthunk_public int hlthunk_open_control_by_name(
				enum hlthunk_device_name device_name,
				const char *busid)
{
	int idx, cfd, worst = ENODEV;

	if (!hlthunk_name_valid(device_name))
		return hlthunk_err(EINVAL);

	/* As hlthunk_open(): the device at @busid must be of that type */
	if (busid) {
		cfd = hlthunk_open_control(0, busid);
		if (cfd < 0 || hlthunk_fd_is(cfd, device_name))
			return cfd;
		hlthunk_close_quiet(cfd);
		return hlthunk_err(ENODEV);
	}

	for (idx = 0; idx < HLTHUNK_MAX_MINOR; idx++) {
		cfd = hlthunk_open_node(HLTHUNK_NODE_CONTROL, idx);
		if (cfd < 0) {
			hlthunk_keep_worst(&worst, -cfd);
			continue;
		}

		if (hlthunk_fd_is(cfd, device_name))
			return cfd;

		hlthunk_close_quiet(cfd);
	}

	return hlthunk_err(worst);
}

/*
 * The index of the device whose module ID is @module_id, found through the
 * control nodes; -errno (the most telling error met) when none has it.
 */
static int hlthunk_index_of_module_id(uint32_t module_id)
{
	struct hl_info_hw_ip_info hw_ip;
	int idx, cfd, rc, worst = ENODEV;

	for (idx = 0; idx < HLTHUNK_MAX_MINOR; idx++) {
		cfd = hlthunk_open_node(HLTHUNK_NODE_CONTROL, idx);
		if (cfd < 0) {
			hlthunk_keep_worst(&worst, -cfd);
			continue;
		}

		rc = hlthunk_raw_hw_ip(cfd, &hw_ip);
		hlthunk_close_quiet(cfd);
		if (rc < 0) {
			hlthunk_keep_worst(&worst, -rc);
			continue;
		}

		if (hw_ip.module_id == module_id)
			return idx;
	}

	return hlthunk_err(worst);
}

hlthunk_public int hlthunk_open_by_module_id(uint32_t module_id)
{
	int idx = hlthunk_index_of_module_id(module_id);

	if (idx < 0)
		return idx;

	return hlthunk_open_index(idx, HLTHUNK_DEVICE_DONT_CARE);
}

hlthunk_public int hlthunk_open_control_by_module_id(uint32_t module_id)
{
	int idx = hlthunk_index_of_module_id(module_id);

	if (idx < 0)
		return idx;

	return hlthunk_open_node(HLTHUNK_NODE_CONTROL, idx);
}

hlthunk_public int hlthunk_open_control_by_bus_id(const char *busid)
{
	if (!busid)
		return hlthunk_err(EINVAL);

	return hlthunk_open_control(0, busid);
}

hlthunk_public int hlthunk_get_device_count(enum hlthunk_device_name device_name)
{
	int idx, cfd, count = 0;

	if (!hlthunk_name_valid(device_name))
		return hlthunk_err(EINVAL);

	for (idx = 0; idx < HLTHUNK_MAX_MINOR; idx++) {
		cfd = hlthunk_open_node(HLTHUNK_NODE_CONTROL, idx);
		if (cfd < 0)
			continue;

		if (hlthunk_fd_is(cfd, device_name))
			count++;

		hlthunk_close_quiet(cfd);
	}

	return count;
}

hlthunk_public int hlthunk_close(int fd)
{
	return close(fd) ? -errno : 0;
}

/* ------------------------------------------------------------------------
 * Utilities
 */

hlthunk_public void *hlthunk_malloc(size_t size)
{
	return calloc(1, size);
}

hlthunk_public void hlthunk_free(void *pt)
{
	free(pt);
}

hlthunk_public char *hlthunk_get_version(void)
{
	char *version = hlthunk_malloc(32);

	if (!version)
		return NULL;

	snprintf(version, 32, "%d.%d.%d", HLTHUNK_VERSION_MAJOR,
		 HLTHUNK_VERSION_MINOR, HLTHUNK_VERSION_PATCH);
	return version;
}

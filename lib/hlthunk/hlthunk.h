/* SPDX-License-Identifier: MIT */
/*
 * hlthunk.h - libhlthunk, a thin C library over the habanalabs ioctls.
 *
 * Source compatible with HabanaAI's hl-thunk (hl-thunk-open,
 * include/uapi/hlthunk.h): every function of hl-thunk's public header that
 * this library has takes hl-thunk's signature and semantics, and the
 * structs those functions fill have hl-thunk's fields, types and order.
 * Functions and fields marked "(libhlthunk)" are this library's own; their
 * names are not in hl-thunk's header (tests/symbols/check compares the
 * prototypes with tests/symbols/hl-thunk-open.txt).
 *
 * Installed as <habanalabs/hlthunk.h>, with the driver's uAPI beside it as
 * <habanalabs/habanalabs_uapi.h> (and its packets,
 * <habanalabs/habanalabs_uapi_pkt.h>): build with
 * "#include <habanalabs/hlthunk.h>" and -lhl-thunk, or with
 * -I<includedir>/habanalabs and "#include <hlthunk.h>" (pkg-config hlthunk or
 * hl-thunk gives those flags).
 *
 * The uAPI header has a name and an include guard of its own, so that it
 * never hides or clashes with the misc-era upstream <misc/habanalabs.h>
 * (Debian's linux-libc-dev): a file may include both, in either order.
 * The types both define come from whichever is included first (upstream's
 * fields are at the same offsets in both); with upstream's first, pass
 * sizeof() to the _ex functions (hlthunk_get_hw_ip_info_ex()) rather than
 * calling the 2.0 functions that assume this header's struct sizes.
 *
 * Error convention, for every function:
 *   - int-returning functions return 0 (or a non-negative value such as a
 *     file descriptor where documented) on success, and -errno on failure;
 *     errno is set to the same value on failure.
 *   - functions returning a handle or a device address return 0 on failure
 *     and set errno.
 *   - on failure, output arguments are left untouched unless documented.
 * errno is never cleared on success.
 *
 * Signals and back-pressure (hl-thunk's contract, without its busy loop):
 *   - no function fails with EINTR. An ioctl interrupted by a signal before
 *     the driver did anything is issued again.
 *   - the waits (hlthunk_wait_for_cs(), hlthunk_wait_for_cs_with_timestamp(),
 *     hlthunk_nic_cq_wait()) never outlast their timeout: a wait interrupted
 *     by a signal is resumed with the time left, measured on
 *     CLOCK_MONOTONIC, so that a process with a periodic timer still gets
 *     its answer (e.g. HL_WAIT_CS_STATUS_BUSY) when the timeout runs out;
 *     and a driver wait that ends before that deadline (the driver counts
 *     jiffies) is continued for the rest, so the answer never comes early.
 *   - hlthunk_command_submission() never fails with EAGAIN: when the
 *     context has max_pending_cs submissions in flight (the driver's
 *     back-pressure), it sleeps and submits again, the sleep doubling from
 *     20 us to 16 ms, until a submission in flight completes. It takes
 *     next to no CPU meanwhile (about 60 wake-ups a second), and the wait
 *     is bounded by the driver, which ends
 *     every job within its job timeout (job_timeout_max). A caller that
 *     wants to do something else instead must keep fewer submissions in
 *     flight (hlthunk_wait_for_cs() on its oldest).
 *   Signal handlers run as usual during all of these; a handler that must
 *   end a wait early has to make the thread leave it some other way (e.g. a
 *   short timeout in a loop that checks a flag).
 *
 * Thread safety: the library keeps no global state; every function may be
 * called from any thread. Concurrent calls on one fd are serialised (or not)
 * by the driver, not by the library.
 *
 * Struct sizes: the structs of hl-thunk's functions keep hl-thunk's size
 * (the library copies exactly that much). The driver's uAPI structs may
 * grow: a function of HLTHUNK_2.0 reads or writes exactly the size the
 * struct had in libhlthunk 2.0, whatever header the library was built
 * with; the _ex functions (HLTHUNK_2.1) take the caller's sizeof(), as
 * rdma-core's ibv_query_device_ex() does, and fill what the library does
 * not know with zeroes.
 *
 * Symbols are versioned (nodes HLTHUNK_2.0 to HLTHUNK_2.3, one per release
 * that added functions: libhlthunk.map); the SONAME is
 * libhlthunk.so.2, and libhl-thunk.so (hl-thunk's name, for -lhl-thunk and
 * dlopen(); in the -dev package only) links to it.
 */
#ifndef HLTHUNK_H
#define HLTHUNK_H

/* Quoted: found beside this header, whatever the include path says */
#include "habanalabs_uapi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define hlthunk_public	__attribute__((visibility("default")))

/* Library version; the SONAME major is HLTHUNK_VERSION_MAJOR */
#define HLTHUNK_VERSION_MAJOR		2
#define HLTHUNK_VERSION_MINOR		3
#define HLTHUNK_VERSION_PATCH		0

/*
 * Device indices scanned by the open functions: /dev/hl0 .. /dev/hl127.
 * (The driver gives device N the minors 2N and 2N + 1 of a 256-minor region.)
 */
#define HLTHUNK_MAX_MINOR		128
#define HLTHUNK_DEV_NAME_PRIMARY	"/dev/hl%d"
#define HLTHUNK_DEV_NAME_CONTROL	"/dev/hl_controlD%d"
/* hl-thunk's names of the misc-driver nodes, which this driver has */
#define HLTHUNK_DEV_NAME_PRIMARY_LEGACY	HLTHUNK_DEV_NAME_PRIMARY
#define HLTHUNK_DEV_NAME_CONTROL_LEGACY	HLTHUNK_DEV_NAME_CONTROL

/* Buffer size that holds any PCI bus ID "dddd:bb:dd.f" and its NUL */
#define HLTHUNK_PCI_BUS_ID_LEN		13

/* Number of u64 words in struct hlthunk_engines_idle_info.mask */
#define HLTHUNK_BUSY_ENGINES_MASK_SIZE	4

/* PCI device ID and card name of the emulated ASIC */
#define HLTHUNK_PCI_ID_GAUDI_EMU	0x1110
#define HLTHUNK_CARD_NAME_GAUDI_EMU	"emu-gaudi"

/**
 * enum hlthunk_node_type - the two device nodes of a device.
 * @HLTHUNK_NODE_PRIMARY: /dev/hlN, the compute node; one owner at a time.
 * @HLTHUNK_NODE_CONTROL: /dev/hl_controlDN, INFO only; any number of users.
 * @HLTHUNK_NODE_MAX: number of node types.
 */
enum hlthunk_node_type {
	HLTHUNK_NODE_PRIMARY,
	HLTHUNK_NODE_CONTROL,
	HLTHUNK_NODE_MAX
};

/**
 * enum hlthunk_device_name - ASIC types, with hl-thunk's values.
 * @HLTHUNK_DEVICE_GOYA: Goya (not driven here).
 * @HLTHUNK_DEVICE_PLACEHOLDER1: unused.
 * @HLTHUNK_DEVICE_GAUDI: Gaudi; the emulated ASIC when the driver was loaded
 *	with asic=gaudi (PCI device ID 0x1000).
 * @HLTHUNK_DEVICE_INVALID: an unknown device, or an error.
 * @HLTHUNK_DEVICE_DONT_CARE: hlthunk_open(): any device.
 * @HLTHUNK_DEVICE_GAUDI2: Gaudi2 (not driven here).
 * @HLTHUNK_DEVICE_PLACEHOLDER2: unused.
 * @HLTHUNK_DEVICE_PLACEHOLDER3: unused.
 * @HLTHUNK_DEVICE_PLACEHOLDER4: unused.
 * @HLTHUNK_DEVICE_MAX: number of hl-thunk's values.
 * @HLTHUNK_DEVICE_GAUDI_EMU: the emulated Gaudi-like ASIC (libhlthunk). Its
 *	value lies above HLTHUNK_DEVICE_MAX, away from any value hl-thunk has
 *	or may add next, so that code written for hl-thunk takes it for an
 *	unknown device, never for another ASIC; code that indexes an array
 *	with the enum must check the value against HLTHUNK_DEVICE_MAX. The
 *	open and count functions find every emulated device under this
 *	name, also one that claims to be a GAUDI (asic=gaudi).
 */
enum hlthunk_device_name {
	HLTHUNK_DEVICE_GOYA,
	HLTHUNK_DEVICE_PLACEHOLDER1,
	HLTHUNK_DEVICE_GAUDI,
	HLTHUNK_DEVICE_INVALID,
	HLTHUNK_DEVICE_DONT_CARE,
	HLTHUNK_DEVICE_GAUDI2,
	HLTHUNK_DEVICE_PLACEHOLDER2,
	HLTHUNK_DEVICE_PLACEHOLDER3,
	HLTHUNK_DEVICE_PLACEHOLDER4,
	HLTHUNK_DEVICE_MAX,
	HLTHUNK_DEVICE_GAUDI_EMU = 0x100
};

/**
 * struct hlthunk_hw_ip_info - static properties of a device: hl-thunk's
 * struct, field for field. Fields for hardware the emulated ASIC does not
 * have are 0; this driver's own properties (queues, NIC ports, device VA
 * ranges) are in struct hl_info_hw_ip_info, from hlthunk_get_hw_ip_info_ext().
 * @sram_base_address: device address of the on-chip SRAM (0: none).
 * @dram_base_address: device physical address of user-allocatable DRAM.
 * @dram_size: bytes of user-allocatable DRAM.
 * @sram_size: bytes of on-chip SRAM (0: none).
 * @num_of_events: number of asynchronous event types (0).
 * @device_id: PCI device ID of the function.
 * @cpld_version: firmware CPLD version (0).
 * @psoc_pci_pll_nr: PLL parameter (0).
 * @psoc_pci_pll_nf: PLL parameter (0).
 * @psoc_pci_pll_od: PLL parameter (0).
 * @psoc_pci_pll_div_factor: PLL parameter (0).
 * @tpc_enabled_mask: mask of enabled TPC engines (0: none).
 * @dram_enabled: 1 when the device has DRAM.
 * @cpucp_version: NUL-terminated firmware version ("emulated").
 * @module_id: index of the device among the devices of the driver.
 * @card_name: NUL-terminated ASIC name, e.g. "emu-gaudi".
 * @decoder_enabled_mask: 0 (no decoders).
 * @mme_master_slave_mode: 0 (no MME).
 * @tpc_enabled_mask_ext: 0 (no TPC engines).
 * @dram_page_size: default DRAM page size in bytes.
 * @first_available_interrupt_id: 0 (no user interrupts).
 * @edma_enabled_mask: 0 (no EDMA engines).
 * @server_type: 0 (HL_SERVER_TYPE_UNKNOWN in hl-thunk's uAPI).
 * @reserved1: 0.
 * @number_of_user_interrupts: 0 (no user interrupts).
 * @device_mem_alloc_default_page_size: page size of an allocation with
 *	page_size 0 (== @dram_page_size).
 * @reserved2: 0.
 * @reserved3: 0.
 * @reserved4: 0.
 * @reserved5: 0.
 * @reserved6: 0.
 * @reserved7: 0.
 * @security_enabled: 0 (no secured firmware).
 * @revision_id: PCI revision ID of the function.
 * @tpc_interrupt_id: 0 (no TPC interrupts).
 * @engine_core_interrupt_reg_addr: 0 (no engine cores).
 * @rotator_enabled_mask: 0 (no rotators).
 * @reserved8: 0.
 * @reserved_dram_size: 0 (DRAM the driver keeps is not in @dram_size).
 */
struct hlthunk_hw_ip_info {
	uint64_t sram_base_address;
	uint64_t dram_base_address;
	uint64_t dram_size;
	uint32_t sram_size;
	uint32_t num_of_events;
	uint32_t device_id;
	uint32_t cpld_version;
	uint32_t psoc_pci_pll_nr;
	uint32_t psoc_pci_pll_nf;
	uint32_t psoc_pci_pll_od;
	uint32_t psoc_pci_pll_div_factor;
	uint16_t tpc_enabled_mask;
	uint8_t dram_enabled;
	uint8_t cpucp_version[HL_INFO_VERSION_MAX_LEN];
	uint32_t module_id;
	uint8_t card_name[HL_INFO_CARD_NAME_MAX_LEN];
	uint32_t decoder_enabled_mask;
	uint8_t mme_master_slave_mode;
	uint64_t tpc_enabled_mask_ext;
	uint64_t dram_page_size;
	uint16_t first_available_interrupt_id;
	uint32_t edma_enabled_mask;
	uint16_t server_type;
	uint64_t reserved1;
	uint16_t number_of_user_interrupts;
	uint64_t device_mem_alloc_default_page_size;
	uint64_t reserved2;
	uint8_t reserved3;
	uint8_t reserved4;
	uint64_t reserved5;
	uint32_t reserved6;
	uint8_t reserved7;
	uint8_t security_enabled;
	uint8_t revision_id;
	uint16_t tpc_interrupt_id;
	uint64_t engine_core_interrupt_reg_addr;
	uint32_t rotator_enabled_mask;
	uint32_t reserved8;
	uint64_t reserved_dram_size;
};

/**
 * struct hlthunk_dram_usage_info - DRAM accounting.
 * @dram_free_mem: free bytes of user-allocatable DRAM.
 * @ctx_dram_mem: bytes allocated by the caller's context.
 */
struct hlthunk_dram_usage_info {
	uint64_t dram_free_mem;
	uint64_t ctx_dram_mem;
};

/**
 * struct hlthunk_engines_idle_info - engine activity.
 * @is_idle: 1 when no engine queue has work, else 0.
 * @pad: zeroed.
 * @mask: bit per busy engine queue; queue q is bit (q % 64) of mask[q / 64].
 */
struct hlthunk_engines_idle_info {
	uint32_t is_idle;
	uint32_t pad;
	uint64_t mask[HLTHUNK_BUSY_ENGINES_MASK_SIZE];
};

/**
 * struct hlthunk_user_mapping - a device VA range of a context (hl-thunk's).
 * @dev_va: first device VA.
 * @size: bytes.
 */
struct hlthunk_user_mapping {
	uint64_t dev_va;
	uint64_t size;
};

/**
 * struct hlthunk_page_fault_info - the last device MMU fault (hl-thunk's).
 * @timestamp: ktime (ns, CLOCK_MONOTONIC) of the fault; 0 when there was
 *	none.
 * @addr: faulting device VA.
 * @engine_id: queue index of the job that faulted.
 * @num_of_mappings: number of entries written to @mappings_buf. This driver
 *	does not record the context's mappings at fault time
 *	(HL_INFO_USER_MAPPINGS): always 0.
 * @mappings_buf: caller's array; not written.
 */
struct hlthunk_page_fault_info {
	int64_t timestamp;
	uint64_t addr;
	uint16_t engine_id;
	uint32_t num_of_mappings;
	struct hlthunk_user_mapping *mappings_buf;
};

/**
 * struct hlthunk_cs_in - a command submission.
 * @chunks_restore: array of @num_chunks_restore struct hl_cs_chunk: the
 *	restore chunks, which the driver runs (and waits for) before the
 *	execute chunks on the context's first CS, or with
 *	HL_CS_FLAGS_FORCE_RESTORE, and ignores otherwise; or NULL.
 * @chunks_execute: array of @num_chunks_execute struct hl_cs_chunk.
 * @num_chunks_restore: 0 .. HL_MAX_JOBS_PER_CS.
 * @num_chunks_execute: 1 .. HL_MAX_JOBS_PER_CS.
 * @flags: HL_CS_FLAGS_* (HL_CS_FLAGS_CUSTOM_TIMEOUT is set by
 *	hlthunk_command_submission_timeout(); the staged-submission flags by
 *	the callers of hlthunk_staged_command_submission()). The driver
 *	refuses the flags of features it does not have (-EINVAL).
 */
struct hlthunk_cs_in {
	void *chunks_restore;
	void *chunks_execute;
	uint32_t num_chunks_restore;
	uint32_t num_chunks_execute;
	uint32_t flags;
};

/**
 * struct hlthunk_cs_out - result of a command submission.
 * @seq: sequence number for hlthunk_wait_for_cs().
 * @status: HL_CS_STATUS_SUCCESS.
 * @sob_count_before_submission: the driver's (the value of the sync object
 *	before a staged submission's encapsulated signals; else 0).
 */
struct hlthunk_cs_out {
	uint64_t seq;
	uint32_t status;
	uint16_t sob_count_before_submission;
};

/* ------------------------------------------------------------------------
 * Opening and closing
 */

/**
 * hlthunk_open() - open the compute node of a device.
 * @device_name: the ASIC type wanted, or HLTHUNK_DEVICE_DONT_CARE.
 * @busid: PCI address "dddd:bb:dd.f" (or "bb:dd.f", domain 0), or NULL.
 *
 * With @busid NULL, tries /dev/hl0 .. /dev/hl<HLTHUNK_MAX_MINOR - 1> in order
 * and returns the first one that is of type @device_name and can be opened;
 * a node owned by another process (EBUSY) is skipped. When @device_name is
 * not DONT_CARE, the type is checked through the control node first, so
 * devices of another type are never opened for compute.
 * With @busid, opens the device at that PCI address, and fails if it is not
 * of type @device_name (unless DONT_CARE).
 * The fd is opened O_RDWR | O_CLOEXEC.
 *
 * Return: the fd (>= 0), or -errno:
 * -EINVAL bad @device_name or malformed @busid; -EBUSY every matching device
 * is owned by someone else; -EACCES/-EPERM no permission; -ENODEV no device
 * (of that type, or at that address); another open(2) errno (e.g. -EMFILE).
 * When several nodes fail differently, the most telling error wins, in this
 * order: EBUSY, EACCES/EPERM, other open(2) errors, ENODEV.
 */
hlthunk_public int hlthunk_open(enum hlthunk_device_name device_name,
				const char *busid);

/**
 * hlthunk_open_control() - open the control node of a device.
 * @dev_id: N of /dev/hl_controlDN (used when @busid is NULL).
 * @busid: PCI address of the device, or NULL.
 *
 * The control node accepts INFO only, has no owner, and any number of
 * processes may hold it.
 *
 * Return: the fd (>= 0), or -errno: -EINVAL negative @dev_id or malformed
 * @busid; -ENODEV no such device; or the open(2) errno.
 */
hlthunk_public int hlthunk_open_control(int dev_id, const char *busid);

/**
 * hlthunk_open_control_by_name() - open the control node of a device of a
 * given type.
 * @device_name: the ASIC type wanted, or HLTHUNK_DEVICE_DONT_CARE.
 * @busid: PCI address of the device, or NULL.
 *
 * With @busid, opens that device's control node if it is of type
 * @device_name (or DONT_CARE), as hlthunk_open() does (hl-thunk ignores the
 * type when given a bus ID); without, the first device of that type.
 *
 * Return: the fd (>= 0), or -errno: -EINVAL bad @device_name or malformed
 * @busid; -ENODEV no such device; or the open(2) errno.
 */
hlthunk_public int hlthunk_open_control_by_name(
				enum hlthunk_device_name device_name,
				const char *busid);

/**
 * hlthunk_open_control_by_module_id() - open the control node of the device
 * whose hw_ip_info.module_id is @module_id.
 * @module_id: the module ID.
 *
 * Return: the fd (>= 0), or -errno: -ENODEV no device has that module ID
 * (hl-thunk: -EBADF), or the most telling error met while scanning.
 */
hlthunk_public int hlthunk_open_control_by_module_id(uint32_t module_id);

/**
 * hlthunk_open_control_by_bus_id() - open the control node of the device at
 * a PCI address.
 * @busid: "dddd:bb:dd.f", or "bb:dd.f" for domain 0.
 *
 * Return: the fd (>= 0), or -errno: -EINVAL NULL or malformed @busid;
 * -ENODEV no device there (hl-thunk: -EBADF); or the open(2) errno.
 */
hlthunk_public int hlthunk_open_control_by_bus_id(const char *busid);

/**
 * hlthunk_get_device_count() - number of devices of a type.
 * @device_name: the ASIC type, or HLTHUNK_DEVICE_DONT_CARE for all.
 *
 * Counts the control nodes that open and report that type.
 *
 * Return: the count (>= 0), or -EINVAL for HLTHUNK_DEVICE_INVALID or a
 * value that is not a device type.
 */
hlthunk_public int hlthunk_get_device_count(enum hlthunk_device_name device_name);

/**
 * hlthunk_open_by_module_id() - open the compute node of the device whose
 * hw_ip_info.module_id is @module_id.
 * @module_id: the module ID.
 *
 * Scans the control nodes (INFO HW_IP_INFO), then opens the compute node of
 * the same index.
 *
 * Return: the fd (>= 0), or -errno: -ENODEV no device has that module ID
 * (or the most telling error met while scanning, ranked as in
 * hlthunk_open()); or the open(2) errno of the compute node (-EBUSY: owned).
 */
hlthunk_public int hlthunk_open_by_module_id(uint32_t module_id);

/**
 * hlthunk_close() - close a device fd.
 * @fd: an fd from one of the open functions.
 *
 * Return: 0, or -errno from close(2) (the fd is released even then).
 */
hlthunk_public int hlthunk_close(int fd);

/* ------------------------------------------------------------------------
 * Device identity
 */

/**
 * hlthunk_get_device_id_from_fd() - PCI device ID of a device.
 * @fd: compute or control node fd.
 *
 * Return: the PCI device ID, or 0 on failure with errno set (as
 * hlthunk_get_hw_ip_info()).
 */
hlthunk_public uint32_t hlthunk_get_device_id_from_fd(int fd);

/**
 * hlthunk_get_device_name_from_fd() - ASIC type of a device.
 * @fd: compute or control node fd.
 *
 * Return: the type; HLTHUNK_DEVICE_INVALID with errno set on failure:
 * errno of hlthunk_get_hw_ip_info(), or ENODEV for a device this library
 * does not know.
 */
hlthunk_public enum hlthunk_device_name hlthunk_get_device_name_from_fd(int fd);

/**
 * hlthunk_get_pci_bus_id_from_fd() - PCI address of a device.
 * @fd: compute or control node fd.
 * @pci_bus_id: receives "dddd:bb:dd.f" and a NUL (lower-case hex).
 * @len: size of @pci_bus_id; HLTHUNK_PCI_BUS_ID_LEN is enough.
 *
 * Found through sysfs: /sys/dev/char/<major>:<minor>/device.
 *
 * Return: 0, or -errno: -EINVAL NULL @pci_bus_id or @len <= 0; -EBADF bad
 * @fd; -ENOTTY @fd is not a habanalabs device node; -ENODEV no PCI device
 * behind it; -ERANGE @len too small (nothing written).
 */
hlthunk_public int hlthunk_get_pci_bus_id_from_fd(int fd, char *pci_bus_id,
						  int len);

/**
 * hlthunk_get_device_index_from_pci_bus_id() - N of /dev/hlN for a PCI
 * address.
 * @busid: "dddd:bb:dd.f", or "bb:dd.f" for domain 0; hex in either case.
 *
 * Return: the index (>= 0), or -errno: -EINVAL NULL or malformed @busid;
 * -ENODEV no habanalabs device at that address (or the driver is not
 * loaded).
 */
hlthunk_public int hlthunk_get_device_index_from_pci_bus_id(const char *busid);

/* ------------------------------------------------------------------------
 * INFO
 */

/**
 * hlthunk_get_info() - raw HL_IOCTL_INFO.
 * @fd: compute or control node fd.
 * @info: the caller's filled-in argument, passed to the driver as is.
 *
 * Return: 0, or -errno: -EINVAL NULL @info, or as HL_IOCTL_INFO (-EINVAL
 * bad op, non-zero ctx_id/pad, compute-only op on the control node;
 * -EFAULT bad pointer; -ENODEV device gone).
 */
hlthunk_public int hlthunk_get_info(int fd, struct hl_info_args *info);

/**
 * hlthunk_get_hw_ip_info() - static properties of a device, in hl-thunk's
 * struct.
 * @fd: compute or control node fd.
 * @hw_ip: receives the properties (zeroed first).
 *
 * Return: 0, or -errno: -EINVAL NULL @hw_ip; else as HL_IOCTL_INFO.
 */
hlthunk_public int hlthunk_get_hw_ip_info(int fd,
					  struct hlthunk_hw_ip_info *hw_ip);

/**
 * hlthunk_get_hw_ip_info_ext() - static properties of a device, in the
 * driver's struct, with this driver's own fields (queues, NIC ports, device
 * VA ranges, host page size) (libhlthunk).
 * @fd: compute or control node fd.
 * @hw_ip: receives the properties (zeroed first).
 *
 * Return: 0, or -errno: -EINVAL NULL @hw_ip; else as HL_IOCTL_INFO.
 */
hlthunk_public int hlthunk_get_hw_ip_info_ext(int fd,
					      struct hl_info_hw_ip_info *hw_ip);

/*
 * Where <misc/habanalabs.h> (linux-libc-dev) came before this header, its
 * struct hl_info_hw_ip_info is the caller's (256 bytes: habanalabs_uapi.h
 * then defines HLTHUNK_UAPI_OWN_TYPES 0), and hlthunk_get_hw_ip_info_ext()
 * would write 352 into it: a call does not compile, and says why.
 */
#if defined(HLTHUNK_UAPI_OWN_TYPES) && !HLTHUNK_UAPI_OWN_TYPES && \
	defined(__has_attribute)
#if __has_attribute(__error__)
hlthunk_public int hlthunk_get_hw_ip_info_ext(int fd,
					      struct hl_info_hw_ip_info *hw_ip)
	__attribute__((__error__("<misc/habanalabs.h> (linux-libc-dev) was included before <habanalabs/hlthunk.h>: its struct hl_info_hw_ip_info is 256 bytes, hlthunk_get_hw_ip_info_ext() writes 352; call hlthunk_get_hw_ip_info_ex(fd, hw_ip, sizeof(*hw_ip))")));
#endif
#endif

/**
 * hlthunk_get_hw_ip_info_ex() - hlthunk_get_hw_ip_info_ext() for a struct
 * of the caller's size (libhlthunk, HLTHUNK_2.1).
 * @fd: compute or control node fd.
 * @hw_ip: receives the properties.
 * @size: sizeof(*hw_ip) as the caller was built: the library writes @size
 *	bytes, the fields it knows and zeroes after them, so that a binary
 *	built against an older or a newer uAPI header gets what its struct
 *	holds. hlthunk_get_hw_ip_info_ext() is this with the struct's size at
 *	libhlthunk 2.0 (352 bytes). At least 256: the size of upstream's
 *	misc-era struct (linux-libc-dev's <misc/habanalabs.h>), whose fields
 *	this one keeps at their offsets, so that a consumer that included
 *	upstream's header first passes its sizeof() and gets them.
 *
 * Return: 0, or -errno: -EINVAL NULL @hw_ip or @size below 256; else as
 * HL_IOCTL_INFO.
 */
hlthunk_public int hlthunk_get_hw_ip_info_ex(int fd,
					     struct hl_info_hw_ip_info *hw_ip,
					     size_t size);

/**
 * hlthunk_get_dram_usage() - DRAM accounting.
 * @fd: compute or control node fd.
 * @dram_usage: receives free and per-context bytes (ctx_dram_mem is 0 on a
 *	control node fd, which has no context).
 *
 * Return: 0, or -errno: -EINVAL NULL @dram_usage; else as HL_IOCTL_INFO.
 */
hlthunk_public int hlthunk_get_dram_usage(int fd,
				struct hlthunk_dram_usage_info *dram_usage);

/**
 * hlthunk_get_device_status_info() - state of a device.
 * @fd: compute or control node fd.
 *
 * Return: an enum hl_device_status (>= 0) on success. On failure, -errno
 * converted to the enum type, with errno set, as in hl-thunk: store the
 * result in an int and test it for < 0. A failure never compares equal to
 * any HL_DEVICE_STATUS_* value.
 */
hlthunk_public enum hl_device_status hlthunk_get_device_status_info(int fd);

/**
 * hlthunk_is_device_idle() - whether no engine queue has work.
 * @fd: compute or control node fd.
 *
 * Return: true when idle; false when busy, or on failure with errno set.
 * Use hlthunk_get_busy_engines_mask() to tell the two apart.
 */
hlthunk_public bool hlthunk_is_device_idle(int fd);

/**
 * hlthunk_get_busy_engines_mask() - idle flag and busy mask of all engine
 * queues.
 * @fd: compute or control node fd.
 * @info: receives the idle flag and a bit per busy queue.
 *
 * Return: 0, or -errno: -EINVAL NULL @info; else as HL_IOCTL_INFO.
 */
hlthunk_public int hlthunk_get_busy_engines_mask(int fd,
				struct hlthunk_engines_idle_info *info);

/**
 * hlthunk_get_page_fault_info() - the last device MMU fault of the caller's
 * context.
 * @fd: compute node fd.
 * @pf: receives the fault (timestamp 0 when there was none); see struct
 *	hlthunk_page_fault_info for the mappings, which this driver does not
 *	report (num_of_mappings 0).
 * @num_of_allocated_mappings: entries of pf->mappings_buf (unused).
 *
 * Return: 0, or -errno: -EINVAL NULL @pf or a control node fd; else as
 * HL_IOCTL_INFO.
 */
hlthunk_public int hlthunk_get_page_fault_info(int fd,
				struct hlthunk_page_fault_info *pf,
				uint32_t num_of_allocated_mappings);

/**
 * hlthunk_get_page_fault_event() - the last device MMU fault of the caller's
 * context, in the driver's struct, with the access direction (libhlthunk).
 * @fd: compute node fd.
 * @info: receives the fault; info->timestamp is 0 when there was none.
 *
 * Return: 0, or -errno: -EINVAL NULL @info or a control node fd; else as
 * HL_IOCTL_INFO.
 */
hlthunk_public int hlthunk_get_page_fault_event(int fd,
				struct hl_info_page_fault_event *info);

/**
 * hlthunk_get_page_fault_event_ex() - hlthunk_get_page_fault_event() for a
 * struct of the caller's size (libhlthunk, HLTHUNK_2.1).
 * @fd: compute node fd.
 * @info: receives the fault.
 * @size: sizeof(*info) as the caller was built (see
 *	hlthunk_get_hw_ip_info_ex()); at least 32, the size at 2.0.
 *
 * Return: 0, or -errno: -EINVAL NULL @info or @size below 32; else as
 * hlthunk_get_page_fault_event().
 */
hlthunk_public int hlthunk_get_page_fault_event_ex(int fd,
				struct hl_info_page_fault_event *info,
				size_t size);

/**
 * hlthunk_get_dev_memalloc_page_orders() - the page sizes that
 * hlthunk_device_memory_alloc() accepts.
 * @fd: compute or control node fd.
 * @page_order_bitmask: receives bit N set for a page size of 2^N bytes.
 *
 * Return: 0, or -errno: -EINVAL NULL @page_order_bitmask; else as
 * HL_IOCTL_INFO.
 */
hlthunk_public int hlthunk_get_dev_memalloc_page_orders(int fd,
				uint64_t *page_order_bitmask);

/* ------------------------------------------------------------------------
 * Device memory (DRAM)
 */

/**
 * hlthunk_device_memory_alloc() - allocate device memory.
 * @fd: compute node fd.
 * @size: bytes, > 0; rounded up to the page size.
 * @page_size: 0 for the default DRAM page size, else one of the sizes of
 *	hlthunk_get_dev_memalloc_page_orders().
 * @contiguous: one physically contiguous range (HL_MEM_CONTIGUOUS, i.e.
 *	true, as hl-thunk's callers pass it).
 * @shared: accepted for hl-thunk compatibility; no effect.
 *
 * Return: the allocation's handle, or 0 with errno set: EINVAL bad size or
 * page size; ENOMEM out of DRAM; or the driver's errno.
 */
hlthunk_public uint64_t hlthunk_device_memory_alloc(int fd, uint64_t size,
						uint64_t page_size,
						bool contiguous, bool shared);

/**
 * hlthunk_device_memory_free() - free device memory.
 * @fd: compute node fd.
 * @handle: from hlthunk_device_memory_alloc().
 *
 * Return: 0, or -errno: -EINVAL unknown handle; -EBUSY still mapped or
 * exported; or the driver's errno.
 */
hlthunk_public int hlthunk_device_memory_free(int fd, uint64_t handle);

/**
 * hlthunk_device_memory_map() - map device memory into the device VA space.
 * @fd: compute node fd.
 * @handle: from hlthunk_device_memory_alloc().
 * @hint_addr: preferred device VA, or 0; the driver may pick another.
 *
 * Return: the device VA, or 0 with errno set (the driver's errno).
 */
hlthunk_public uint64_t hlthunk_device_memory_map(int fd, uint64_t handle,
						  uint64_t hint_addr);

/**
 * hlthunk_device_memory_map_flags() - hlthunk_device_memory_map() with
 * HL_MEM_* map flags (libhlthunk).
 * @fd: compute node fd.
 * @handle: from hlthunk_device_memory_alloc().
 * @hint_addr: preferred device VA, or 0.
 * @flags: HL_MEM_FORCE_HINT: map exactly at @hint_addr or fail with EBUSY.
 *
 * Return: the device VA, or 0 with errno set: EINVAL HL_MEM_USERPTR in
 * @flags, unknown flags; EBUSY forced hint taken; or the driver's errno.
 */
hlthunk_public uint64_t hlthunk_device_memory_map_flags(int fd,
				uint64_t handle, uint64_t hint_addr,
				uint32_t flags);

/**
 * hlthunk_device_memory_export_dmabuf_fd() - export mapped device memory as
 * a dma-buf.
 * @fd: compute node fd.
 * @addr: device VA returned by hlthunk_device_memory_map() (not a physical
 *	address: this driver exports through the mapping).
 * @size: bytes to export from @addr.
 * @flags: dma-buf file flags: O_RDWR, O_CLOEXEC, both, or 0 for
 *	O_RDWR | O_CLOEXEC (what hl-thunk always uses).
 *
 * Same as hlthunk_device_mapped_memory_export_dmabuf_fd() with offset 0.
 * The dma-buf holds the allocation and the context alive until its last fd
 * is closed.
 *
 * Return: the dma-buf fd (>= 0), or -errno (the driver's errno).
 */
hlthunk_public int hlthunk_device_memory_export_dmabuf_fd(int fd,
				uint64_t addr, uint64_t size, uint32_t flags);

/**
 * hlthunk_device_mapped_memory_export_dmabuf_fd() - export part of mapped
 * device memory as a dma-buf.
 * @fd: compute node fd.
 * @addr: device VA returned by hlthunk_device_memory_map().
 * @size: bytes to export.
 * @offset: offset of the exported range from @addr, page aligned.
 * @flags: dma-buf file flags: O_RDWR | O_CLOEXEC (what hl-thunk requires),
 *	0 for the same, or O_RDWR or O_CLOEXEC alone.
 *
 * Return: the dma-buf fd (>= 0), or -errno (the driver's errno).
 */
hlthunk_public int hlthunk_device_mapped_memory_export_dmabuf_fd(int fd,
				uint64_t addr, uint64_t size, uint64_t offset,
				uint32_t flags);

/* ------------------------------------------------------------------------
 * Host memory
 */

/**
 * hlthunk_host_memory_map() - pin host memory and map it into the device VA
 * space.
 * @fd: compute node fd.
 * @host_virt_addr: start of the host buffer.
 * @hint_addr: preferred device VA, or 0.
 * @host_size: bytes, > 0.
 *
 * Return: the device VA, or 0 with errno set: EINVAL bad range; EFAULT
 * unmapped host memory; ENOMEM; or the driver's errno.
 */
hlthunk_public uint64_t hlthunk_host_memory_map(int fd, void *host_virt_addr,
						uint64_t hint_addr,
						uint64_t host_size);

/**
 * hlthunk_host_memory_map_flags() - hlthunk_host_memory_map() with HL_MEM_*
 * map flags.
 * @fd: compute node fd.
 * @host_virt_addr: start of the host buffer.
 * @hint_addr: preferred device VA, or 0.
 * @host_size: bytes, > 0.
 * @flags: HL_MEM_FORCE_HINT; HL_MEM_USERPTR is added by the library.
 *
 * Return: as hlthunk_host_memory_map(); EBUSY forced hint taken.
 */
hlthunk_public uint64_t hlthunk_host_memory_map_flags(int fd,
				void *host_virt_addr, uint64_t hint_addr,
				uint64_t host_size, uint32_t flags);

/**
 * hlthunk_memory_unmap() - remove a device or host mapping.
 * @fd: compute node fd.
 * @device_virt_addr: the VA returned by one of the map functions.
 *
 * Return: 0, or -errno: -EINVAL no mapping at that VA; or the driver's
 * errno.
 */
hlthunk_public int hlthunk_memory_unmap(int fd, uint64_t device_virt_addr);

/* ------------------------------------------------------------------------
 * Command submission
 */

/**
 * hlthunk_command_submission() - submit jobs to engine queues.
 * @fd: compute node fd.
 * @in: the jobs.
 * @out: receives the sequence number and status.
 *
 * Uses the driver's default job timeout. When max_pending_cs submissions of
 * the context are in flight, waits (sleeping, with back-off) until one
 * completes, instead of failing with EAGAIN.
 *
 * Return: 0, or -errno: -EINVAL NULL @in/@out or a bad submission; or the
 * driver's errno.
 */
hlthunk_public int hlthunk_command_submission(int fd, struct hlthunk_cs_in *in,
					      struct hlthunk_cs_out *out);

/**
 * hlthunk_command_submission_timeout() - hlthunk_command_submission() with
 * a job timeout.
 * @fd: compute node fd.
 * @in: the jobs.
 * @out: receives the sequence number and status.
 * @timeout: job timeout in seconds, 0 for the driver default; a job that
 *	runs longer is aborted and the CS completes as ABORTED. A non-zero
 *	@timeout is passed with HL_CS_FLAGS_CUSTOM_TIMEOUT, as hl-thunk does.
 *
 * Return: as hlthunk_command_submission().
 */
hlthunk_public int hlthunk_command_submission_timeout(int fd,
				struct hlthunk_cs_in *in,
				struct hlthunk_cs_out *out, uint32_t timeout);

/**
 * hlthunk_wait_for_cs() - wait for a command submission.
 * @fd: compute node fd.
 * @seq: from hlthunk_command_submission().
 * @timeout_us: how long to wait; 0 only polls; UINT32_MAX and above: no
 *	limit (as the driver). Signals neither cut the wait short nor extend
 *	it: BUSY comes @timeout_us after the call on CLOCK_MONOTONIC, give
 *	or take a scheduler tick (see "Signals and back-pressure" above).
 * @status: receives HL_WAIT_CS_STATUS_*; may be NULL.
 *
 * Return:
 * 0 with *status COMPLETED (done) or BUSY (still running when
 * @timeout_us passed: not an error);
 * -EIO with *status ABORTED: the CS failed (a job timed out or faulted;
 * hlthunk_get_page_fault_info() tells of an MMU fault);
 * -ETIMEDOUT with *status TIMEDOUT, if the driver reports a timed-out CS
 * that way;
 * other -errno (-EINVAL unknown @seq, ...) with *status untouched.
 * errno is set on every failure.
 */
hlthunk_public int hlthunk_wait_for_cs(int fd, uint64_t seq,
				       uint64_t timeout_us, uint32_t *status);

/**
 * hlthunk_wait_for_cs_with_timestamp() - hlthunk_wait_for_cs() that also
 * returns the completion time.
 * @fd: compute node fd.
 * @seq: from hlthunk_command_submission().
 * @timeout_us: how long to wait; 0 only polls.
 * @status: receives HL_WAIT_CS_STATUS_*; may be NULL.
 * @timestamp: receives the completion time (ns, CLOCK_MONOTONIC) when the
 *	driver reports one (HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD: status
 *	COMPLETED, CS still tracked), else untouched, as in hl-thunk; may be
 *	NULL.
 *
 * Return: as hlthunk_wait_for_cs().
 */
hlthunk_public int hlthunk_wait_for_cs_with_timestamp(int fd, uint64_t seq,
				uint64_t timeout_us, uint32_t *status,
				uint64_t *timestamp);

/* ------------------------------------------------------------------------
 * Utilities
 */

/**
 * hlthunk_malloc() - zeroed memory, for buffers the library hands out.
 * @size: bytes.
 *
 * Return: the memory (free it with hlthunk_free()), or NULL with errno set.
 */
hlthunk_public void *hlthunk_malloc(size_t size);

/**
 * hlthunk_free() - free memory from hlthunk_malloc() or hlthunk_get_version().
 * @pt: the memory, or NULL.
 */
hlthunk_public void hlthunk_free(void *pt);

/**
 * hlthunk_get_version() - the library's version, "MAJOR.MINOR.PATCH".
 *
 * Return: a string to free with hlthunk_free(), or NULL with errno set.
 */
hlthunk_public char *hlthunk_get_version(void);

/* ------------------------------------------------------------------------
 * Command-buffer packets of the emulated ASIC (libhlthunk)
 *
 * A command buffer is a sequence of packets that one engine queue fetches
 * through the device MMU and executes in order; submit it with
 * hlthunk_command_submission(), its chunk's cb_handle being the device VA
 * of the buffer (8-byte aligned) and cb_size the sum of the packet sizes.
 * Every address in a packet is a device VA (a host mapping from
 * hlthunk_host_memory_map() or a device-memory mapping).
 *
 * Each builder writes one packet at @buf (any alignment; little-endian, all
 * reserved bits zero) and returns the number of bytes written, a multiple
 * of 8, so that packets are appended with "p += hlthunk_pkt_...(p, ...)".
 * With @buf NULL, nothing is written and the size is returned. The engine
 * rejects a packet whose reserved bits are set (the CS completes ABORTED).
 */

/* Sizes of the packets, in bytes */
#define HLTHUNK_PKT_NOP_SIZE		((uint32_t)sizeof(struct hl_pkt_nop))
#define HLTHUNK_PKT_LIN_DMA_SIZE	((uint32_t)sizeof(struct hl_pkt_lin_dma))
#define HLTHUNK_PKT_MEMSET_SIZE		((uint32_t)sizeof(struct hl_pkt_memset))
#define HLTHUNK_PKT_MSG_LONG_SIZE	((uint32_t)sizeof(struct hl_pkt_msg_long))
#define HLTHUNK_PKT_REDUCE_SIZE		((uint32_t)sizeof(struct hl_pkt_reduce))

/**
 * hlthunk_pkt_nop() - a packet that does nothing (libhlthunk).
 * @buf: where to write HLTHUNK_PKT_NOP_SIZE bytes, or NULL.
 *
 * Return: HLTHUNK_PKT_NOP_SIZE.
 */
hlthunk_public uint32_t hlthunk_pkt_nop(void *buf);

/**
 * hlthunk_pkt_lin_dma() - copy @size bytes from @src to @dst (libhlthunk).
 * @buf: where to write HLTHUNK_PKT_LIN_DMA_SIZE bytes, or NULL.
 * @src: source device VA.
 * @dst: destination device VA.
 * @size: bytes to copy; any size and alignment, 0 copies nothing.
 *
 * Overlapping ranges are copied as if through a temporary buffer only
 * within 4 KiB: do not rely on the result of an overlapping copy.
 *
 * Return: HLTHUNK_PKT_LIN_DMA_SIZE.
 */
hlthunk_public uint32_t hlthunk_pkt_lin_dma(void *buf, uint64_t src,
					    uint64_t dst, uint64_t size);

/**
 * hlthunk_pkt_memset() - fill @size bytes at @dst with a 64-bit pattern
 * (libhlthunk).
 * @buf: where to write HLTHUNK_PKT_MEMSET_SIZE bytes, or NULL.
 * @dst: destination device VA.
 * @value: the pattern: byte i of the range gets byte ((@dst + i) % 8) of
 *	@value in little-endian order, i.e. the pattern is aligned to device
 *	VA, not to @dst.
 * @size: bytes to fill.
 *
 * Return: HLTHUNK_PKT_MEMSET_SIZE.
 */
hlthunk_public uint32_t hlthunk_pkt_memset(void *buf, uint64_t dst,
					   uint64_t value, uint64_t size);

/**
 * hlthunk_pkt_msg_long() - write the 32-bit @value at @addr in one store,
 * e.g. a completion flag the host polls (libhlthunk).
 * @buf: where to write HLTHUNK_PKT_MSG_LONG_SIZE bytes, or NULL.
 * @addr: device VA, 4-byte aligned (else the CS completes ABORTED).
 * @value: the value, stored little-endian.
 *
 * Return: HLTHUNK_PKT_MSG_LONG_SIZE.
 */
hlthunk_public uint32_t hlthunk_pkt_msg_long(void *buf, uint64_t addr,
					     uint32_t value);

/**
 * hlthunk_pkt_reduce() - element-wise dst[i] = dst[i] @op src[i] on the
 * device, for i = 0 .. @count - 1 (libhlthunk).
 * @buf: where to write HLTHUNK_PKT_REDUCE_SIZE bytes, or NULL.
 * @src: device VA of the second operand, aligned to the element size.
 * @dst: device VA of the first operand and of the result, aligned to the
 *	element size.
 * @count: number of elements, > 0.
 * @dtype: HL_REDUCE_DTYPE_F32, _BF16, _F16 or _I32.
 * @op: HL_REDUCE_OP_SUM, _MIN, _MAX, _PROD, or HL_REDUCE_OP_DIV_BY(n)
 *	(dst[i] = src[i] / n, n in 1 .. HL_REDUCE_MAX_DIVISOR).
 *
 * With HL_REDUCE_DTYPE_F32 and HL_REDUCE_OP_SUM every element is the IEEE
 * float sum dst[i] + src[i], rounded to nearest even, exactly as the host
 * computes it; struct hl_pkt_reduce gives every type's and operation's
 * arithmetic (NaN results, rounding of the 16-bit types). A misaligned
 * address, @count 0 or an unknown @dtype or @op makes the packet malformed
 * (the CS completes ABORTED). @src == @dst is allowed; other overlaps are
 * not defined.
 *
 * Return: HLTHUNK_PKT_REDUCE_SIZE.
 */
hlthunk_public uint32_t hlthunk_pkt_reduce(void *buf, uint64_t src,
					   uint64_t dst, uint32_t count,
					   uint32_t dtype, uint32_t op);

/* ------------------------------------------------------------------------
 * NIC (libhlthunk): ports, connections and completion queues
 *
 * A connection (a reliable-connected queue pair of the device's NIC) is
 * bound to one port and talks to one connection of the device cabled to
 * that port. Set-up, on each side (remote_addr is the local port's
 * peer_addr from hlthunk_get_nic_ports_info(); the two processes exchange
 * their connection IDs themselves):
 *
 *   hlthunk_nic_alloc_conn(fd, port, &id);                     RESET
 *   hlthunk_nic_modify_conn(fd, id, HL_NIC_CONN_STATE_INIT);    INIT
 *   hlthunk_nic_set_res_conn_ctx(fd, &res);   receive side      RTR
 *   hlthunk_nic_set_req_conn_ctx(fd, &req);   send side         RTS
 *
 * then HL_PKT_NIC_RECV / HL_PKT_NIC_SEND packets in command submissions
 * move the data, and the CQs named by the contexts collect one
 * struct hl_nic_cqe per message. The states, statuses and every errno are
 * documented in <misc/habanalabs.h> (HL_IOCTL_NIC). Every function needs
 * the compute node fd of the process that opened it (else -EPERM), except
 * hlthunk_get_nic_ports_info().
 */

/**
 * hlthunk_get_nic_ports_info() - the NIC ports of a device: address, cabling,
 * peer device (module_id) and port, link state (libhlthunk).
 * @fd: compute or control node fd.
 * @info: receives the ports (info->num_ports of them).
 *
 * Return: 0, or -errno: -EINVAL NULL @info; else as HL_IOCTL_INFO.
 */
hlthunk_public int hlthunk_get_nic_ports_info(int fd,
					      struct hl_info_nic_ports *info);

/**
 * hlthunk_get_nic_ports_info_ex() - hlthunk_get_nic_ports_info() for a
 * struct of the caller's size (libhlthunk, HLTHUNK_2.1).
 * @fd: compute or control node fd.
 * @info: receives the ports.
 * @size: sizeof(*info) as the caller was built (see
 *	hlthunk_get_hw_ip_info_ex()); at least 1544, the size at 2.0.
 *
 * Return: 0, or -errno: -EINVAL NULL @info or @size below 1544; else as
 * HL_IOCTL_INFO.
 */
hlthunk_public int hlthunk_get_nic_ports_info_ex(int fd,
						 struct hl_info_nic_ports *info,
						 size_t size);

/**
 * hlthunk_nic_alloc_conn() - allocate a connection on a port, in RESET
 * (libhlthunk).
 * @fd: compute node fd.
 * @port: the port.
 * @conn_id: receives the connection ID.
 *
 * Return: 0, or -errno: -EINVAL NULL @conn_id, bad port; -ENOSPC no free
 * ID; else the driver's errno.
 */
hlthunk_public int hlthunk_nic_alloc_conn(int fd, uint32_t port,
					  uint32_t *conn_id);

/**
 * hlthunk_nic_set_req_conn_ctx() - set the requester (send) context of a
 * connection in RTR; it moves to RTS (libhlthunk).
 * @fd: compute node fd.
 * @ctx: the context; reserved fields zero.
 *
 * Return: 0, or -errno: -EINVAL NULL @ctx, bad context or state;
 * -ENETDOWN, -EADDRNOTAVAIL, -EHOSTUNREACH (see HL_IOCTL_NIC).
 */
hlthunk_public int hlthunk_nic_set_req_conn_ctx(int fd,
				const struct hl_nic_req_conn_ctx_in *ctx);

/**
 * hlthunk_nic_set_res_conn_ctx() - set the responder (receive) context of a
 * connection in INIT; it moves to RTR (libhlthunk).
 * @fd: compute node fd.
 * @ctx: the context; reserved fields zero.
 *
 * Return: as hlthunk_nic_set_req_conn_ctx().
 */
hlthunk_public int hlthunk_nic_set_res_conn_ctx(int fd,
				const struct hl_nic_res_conn_ctx_in *ctx);

/**
 * hlthunk_nic_destroy_conn() - destroy a connection; its outstanding work
 * is flushed (libhlthunk).
 * @fd: compute node fd.
 * @conn_id: the connection.
 *
 * Return: 0, or -errno: -EINVAL unknown connection.
 */
hlthunk_public int hlthunk_nic_destroy_conn(int fd, uint32_t conn_id);

/**
 * hlthunk_nic_modify_conn() - move a connection to INIT (from RESET), ERR
 * or RESET (libhlthunk).
 * @fd: compute node fd.
 * @conn_id: the connection.
 * @state: HL_NIC_CONN_STATE_INIT, _ERR or _RESET.
 *
 * Return: 0, or -errno: -EINVAL unknown connection, illegal transition.
 */
hlthunk_public int hlthunk_nic_modify_conn(int fd, uint32_t conn_id,
					   uint32_t state);

/**
 * hlthunk_nic_query_conn() - state, port, remote and PSNs of a connection
 * (libhlthunk).
 * @fd: compute node fd.
 * @conn_id: the connection.
 * @out: receives them.
 *
 * Return: 0, or -errno: -EINVAL NULL @out, unknown connection.
 */
hlthunk_public int hlthunk_nic_query_conn(int fd, uint32_t conn_id,
					  struct hl_nic_query_conn_out *out);

/**
 * hlthunk_nic_query_conn_ex() - hlthunk_nic_query_conn() for a struct of
 * the caller's size (libhlthunk, HLTHUNK_2.1).
 * @fd: compute node fd.
 * @conn_id: the connection.
 * @out: receives them.
 * @size: sizeof(*out) as the caller was built (see
 *	hlthunk_get_hw_ip_info_ex()); at least 32, the size at 2.0.
 *
 * Return: 0, or -errno: -EINVAL NULL @out, @size below 32, unknown
 * connection.
 */
hlthunk_public int hlthunk_nic_query_conn_ex(int fd, uint32_t conn_id,
					     struct hl_nic_query_conn_out *out,
					     size_t size);

/**
 * hlthunk_nic_cq_create() - create a completion queue (libhlthunk).
 * @fd: compute node fd.
 * @num_entries: capacity, a power of 2 up to HL_NIC_MAX_CQ_ENTRIES.
 * @handle: receives the CQ's handle.
 *
 * Return: 0, or -errno: -EINVAL NULL @handle, bad size; -ENOSPC too many
 * CQs; -ENOMEM.
 */
hlthunk_public int hlthunk_nic_cq_create(int fd, uint32_t num_entries,
					 uint32_t *handle);

/**
 * hlthunk_nic_cq_destroy() - destroy a completion queue (libhlthunk).
 * @fd: compute node fd.
 * @handle: the CQ.
 *
 * Return: 0, or -errno: -EINVAL unknown CQ; -EBUSY a connection context
 * names it.
 */
hlthunk_public int hlthunk_nic_cq_destroy(int fd, uint32_t handle);

/**
 * hlthunk_nic_cq_poll() - copy the oldest unconsumed entries of a CQ,
 * without waiting and without consuming them (libhlthunk).
 * @fd: compute node fd.
 * @handle: the CQ.
 * @cqes: room for @max_cqes entries (may be NULL when @max_cqes is 0).
 * @max_cqes: entries to copy at most.
 * @out: receives num_cqes (copied), avail and status (SUCCESS or
 *	OVERFLOW).
 *
 * Return: 0, or -errno: -EINVAL NULL @out, unknown CQ; -EFAULT.
 */
hlthunk_public int hlthunk_nic_cq_poll(int fd, uint32_t handle,
				       struct hl_nic_cqe *cqes,
				       uint32_t max_cqes,
				       struct hl_nic_cq_poll_wait_out *out);

/**
 * hlthunk_nic_cq_wait() - hlthunk_nic_cq_poll() that first waits for an
 * entry (libhlthunk).
 * @fd: compute node fd.
 * @handle: the CQ.
 * @cqes: room for @max_cqes entries.
 * @max_cqes: entries to copy at most.
 * @timeout_us: how long to wait; 0 only polls; UINT32_MAX and above: no
 *	limit. A signal does not end the wait early, nor make it longer: it
 *	is resumed with the time left.
 * @out: as for hlthunk_nic_cq_poll(); status TIMEOUT when no entry came.
 *
 * Return: as hlthunk_nic_cq_poll(); -EINVAL also when the CQ was destroyed
 * while waiting.
 */
hlthunk_public int hlthunk_nic_cq_wait(int fd, uint32_t handle,
				       struct hl_nic_cqe *cqes,
				       uint32_t max_cqes, uint64_t timeout_us,
				       struct hl_nic_cq_poll_wait_out *out);

/**
 * hlthunk_nic_cq_update_consumed_cqes() - release the oldest @num_cqes
 * entries of a CQ (libhlthunk).
 * @fd: compute node fd.
 * @handle: the CQ.
 * @num_cqes: at most the entries available.
 *
 * Return: 0, or -errno: -EINVAL unknown CQ, too many entries.
 */
hlthunk_public int hlthunk_nic_cq_update_consumed_cqes(int fd,
						       uint32_t handle,
						       uint32_t num_cqes);

/* Sizes of the NIC packets, in bytes */
#define HLTHUNK_PKT_NIC_SEND_SIZE	((uint32_t)sizeof(struct hl_pkt_nic_send))
#define HLTHUNK_PKT_NIC_RECV_SIZE	((uint32_t)sizeof(struct hl_pkt_nic_recv))
#define HLTHUNK_PKT_NIC_WRITE_SIZE	((uint32_t)sizeof(struct hl_pkt_nic_write))

/**
 * hlthunk_pkt_nic_send() - send @size bytes at @addr on a connection in RTS
 * (libhlthunk).
 * @buf: where to write HLTHUNK_PKT_NIC_SEND_SIZE bytes, or NULL.
 * @conn_id: a connection of the submitting fd's context.
 * @addr: device VA of the message.
 * @size: bytes, at most HL_NIC_MAX_MSG_SIZE and at most the receive's size.
 * @wr_id: returned in the send's completion entry.
 *
 * The packet waits for a receive posted on the peer connection (at most the
 * job's timeout) and completes when the message has landed. Put it in
 * another queue than a RECV that must run before the peer can post its own.
 *
 * Return: HLTHUNK_PKT_NIC_SEND_SIZE.
 */
hlthunk_public uint32_t hlthunk_pkt_nic_send(void *buf, uint32_t conn_id,
					     uint64_t addr, uint64_t size,
					     uint64_t wr_id);

/**
 * hlthunk_pkt_nic_recv() - post a receive of up to @size bytes at @addr on
 * a connection in RTR or RTS, and wait for the message (libhlthunk).
 * @buf: where to write HLTHUNK_PKT_NIC_RECV_SIZE bytes, or NULL.
 * @conn_id: a connection of the submitting fd's context.
 * @addr: device VA of the buffer.
 * @size: bytes, at most HL_NIC_MAX_MSG_SIZE.
 * @wr_id: returned in the receive's completion entry.
 *
 * Return: HLTHUNK_PKT_NIC_RECV_SIZE.
 */
hlthunk_public uint32_t hlthunk_pkt_nic_recv(void *buf, uint32_t conn_id,
					     uint64_t addr, uint64_t size,
					     uint64_t wr_id);

/* ------------------------------------------------------------------------
 * NIC memory regions and one-sided writes (node HLTHUNK_2.2); the rules of
 * keys, checks and deregistration are above HL_PKT_NIC_WRITE in the uAPI
 * and in docs/nic.md
 */

/**
 * hlthunk_nic_reg_mr() - register a memory region of the fd's context
 * (libhlthunk).
 * @fd: compute node fd.
 * @addr: device VA of the region, inside one mapping of the context.
 * @size: bytes, > 0.
 * @iova: the address work names the region's first byte by (@addr to use
 *	device addresses).
 * @access: HL_NIC_ACCESS_* flags.
 * @lkey: receives the key this context's work names the region by.
 * @rkey: receives the key the peer's work names the region by.
 *
 * The region is local only (hlthunk_nic_reg_mr_conn() with connection 0):
 * since issue 32 @access must not have HL_NIC_ACCESS_REMOTE_WRITE or
 * HL_NIC_ACCESS_REMOTE_READ (-EINVAL); a region for a peer is registered
 * with hlthunk_nic_reg_mr_conn(). While the region lives, its mapping
 * cannot be unmapped (-EBUSY).
 *
 * Return: 0, or -errno: -EINVAL NULL @lkey or @rkey, size 0, bad flags,
 * remote access, range not inside one mapping, @iova + @size past 2^64;
 * -ENOSPC HL_NIC_MAX_MRS regions; -ENOMEM.
 */
hlthunk_public int hlthunk_nic_reg_mr(int fd, uint64_t addr, uint64_t size,
				      uint64_t iova, uint32_t access,
				      uint32_t *lkey, uint32_t *rkey);

/**
 * hlthunk_nic_reg_mr_conn() - register a memory region of the fd's context
 * for one of its connections (libhlthunk, node HLTHUNK_2.3).
 * @fd: compute node fd.
 * @addr: device VA of the region, inside one mapping of the context.
 * @size: bytes, > 0.
 * @iova: the address work names the region's first byte by (@addr to use
 *	device addresses).
 * @access: HL_NIC_ACCESS_* flags.
 * @conn_id: the connection the region is for (ALLOC_CONN's whole ID): the
 *	peer reaches the region (its rkey) over the peer connection of
 *	@conn_id only, and only while @conn_id is not destroyed; 0: local
 *	only, and @access must then have no HL_NIC_ACCESS_REMOTE_* flag.
 * @lkey: receives the key this context's work names the region by.
 * @rkey: receives the key the peer's work names the region by: 32 random
 *	bits, to hand to that peer only.
 *
 * While the region lives, its mapping cannot be unmapped (-EBUSY).
 *
 * Return: 0, or -errno: -EINVAL NULL @lkey or @rkey, size 0, bad flags,
 * remote access without @conn_id or @conn_id without remote access,
 * @conn_id not a connection of the context, range not inside one mapping,
 * @iova + @size past 2^64; -ENOSPC HL_NIC_MAX_MRS regions; -ENOMEM.
 */
hlthunk_public int hlthunk_nic_reg_mr_conn(int fd, uint64_t addr,
					   uint64_t size, uint64_t iova,
					   uint32_t access, uint32_t conn_id,
					   uint32_t *lkey, uint32_t *rkey);

/**
 * hlthunk_nic_dereg_mr() - deregister a memory region (libhlthunk).
 * @fd: compute node fd.
 * @lkey: the region's lkey.
 *
 * On return no byte of a write lands in the region any more.
 *
 * Return: 0, or -errno: -EINVAL @lkey names no region of the context.
 */
hlthunk_public int hlthunk_nic_dereg_mr(int fd, uint32_t lkey);

/**
 * hlthunk_pkt_nic_write() - one-sided write of @size bytes from a region of
 * this context into a region of the peer connection's (libhlthunk).
 * @buf: where to write HLTHUNK_PKT_NIC_WRITE_SIZE bytes, or NULL.
 * @conn_id: a connection in RTS of the submitting fd's context.
 * @local_addr: the source, in @lkey's region's iova space.
 * @lkey: the local region's lkey.
 * @remote_addr: the destination, in @rkey's region's iova space.
 * @rkey: the peer's region's rkey (REMOTE_WRITE).
 * @size: bytes, at most HL_NIC_MAX_MSG_SIZE.
 * @wr_id: returned in this side's completion entry (RDMA_WRITE).
 *
 * Return: HLTHUNK_PKT_NIC_WRITE_SIZE.
 */
hlthunk_public uint32_t hlthunk_pkt_nic_write(void *buf, uint32_t conn_id,
					      uint64_t local_addr, uint32_t lkey,
					      uint64_t remote_addr,
					      uint32_t rkey, uint64_t size,
					      uint64_t wr_id);

/**
 * hlthunk_pkt_nic_write_imm() - hlthunk_pkt_nic_write(), then the peer's
 * oldest posted receive completes with @imm_data (libhlthunk).
 * @buf: where to write HLTHUNK_PKT_NIC_WRITE_SIZE bytes, or NULL.
 * @conn_id: as hlthunk_pkt_nic_write().
 * @local_addr: as hlthunk_pkt_nic_write().
 * @lkey: as hlthunk_pkt_nic_write().
 * @remote_addr: as hlthunk_pkt_nic_write().
 * @rkey: as hlthunk_pkt_nic_write().
 * @size: as hlthunk_pkt_nic_write(); 0 only delivers @imm_data.
 * @wr_id: as hlthunk_pkt_nic_write().
 * @imm_data: the value of the peer's RECV_RDMA_WITH_IMM completion entry.
 *
 * Return: HLTHUNK_PKT_NIC_WRITE_SIZE.
 */
hlthunk_public uint32_t hlthunk_pkt_nic_write_imm(void *buf, uint32_t conn_id,
						  uint64_t local_addr,
						  uint32_t lkey,
						  uint64_t remote_addr,
						  uint32_t rkey, uint64_t size,
						  uint64_t wr_id,
						  uint32_t imm_data);

/* ------------------------------------------------------------------------
 * Runtime calls (runtime.c, node HLTHUNK_2.3): command buffers, multi-CS
 * wait, the event notifier, counters
 */

/**
 * hlthunk_request_command_buffer() - create a driver-owned command buffer.
 * @fd: compute node fd.
 * @cb_size: bytes, 1 .. HL_MAX_CB_SIZE (rounded up to pages).
 * @cb_handle: receives its handle, also the offset at which to mmap() it
 *	(MAP_SHARED, PROT_READ | PROT_WRITE) on @fd.
 *
 * Such a CB has no device address. It is submitted by handle on an
 * external queue (a chunk's cb_handle; under the module parameter
 * asic=gaudi, GAUDI's DMA 0-1 queues), where the driver runs its own copy,
 * taken at submission; an internal queue fetches through the device MMU
 * and takes a device VA or a mapped CB (see the mapped variant).
 *
 * Return: 0 or -errno (errno set; -EINVAL: @cb_handle NULL or @cb_size
 * out of range, checked before the ioctl).
 */
hlthunk_public int hlthunk_request_command_buffer(int fd, uint32_t cb_size,
						  uint64_t *cb_handle);

/**
 * hlthunk_request_mapped_command_buffer() - create a command buffer that is
 * also mapped into the device MMU (HL_CB_FLAGS_MAP): a CS chunk may name it
 * by @cb_handle.
 * @fd: compute node fd.
 * @cb_size: bytes, 1 .. HL_MAX_CB_SIZE.
 * @cb_handle: receives its handle (and mmap offset).
 *
 * Return: 0 or -errno (errno set; -EINVAL as
 * hlthunk_request_command_buffer()).
 */
hlthunk_public int hlthunk_request_mapped_command_buffer(int fd,
							 uint32_t cb_size,
							 uint64_t *cb_handle);

/**
 * hlthunk_destroy_command_buffer() - drop a command buffer's handle; the CB
 * lives on while a CS naming it runs, its pages while mmap()ed.
 * @fd: compute node fd.
 * @cb_handle: the handle.
 *
 * Return: 0 or -errno (errno set; -EINVAL: no such CB).
 */
hlthunk_public int hlthunk_destroy_command_buffer(int fd, uint64_t cb_handle);

/**
 * hlthunk_get_mapped_cb_device_va_by_handle() - the device VA of a mapped
 * command buffer.
 * @fd: compute node fd.
 * @cb_handle: the handle.
 * @device_va: receives the address.
 *
 * Return: 0 or -errno (errno set; -EINVAL: @device_va NULL, no such CB,
 * or not mapped).
 */
hlthunk_public int hlthunk_get_mapped_cb_device_va_by_handle(int fd,
							     uint64_t cb_handle,
							     uint64_t *device_va);

/**
 * hlthunk_get_cb_usage_count() - how many submitted CSs naming the command
 * buffer have not completed yet.
 * @fd: compute node fd.
 * @cb_handle: the handle.
 * @usage_cnt: receives the count.
 *
 * Return: 0 or -errno (errno set; -EINVAL: @usage_cnt NULL, no such CB).
 */
hlthunk_public int hlthunk_get_cb_usage_count(int fd, uint64_t cb_handle,
					      uint32_t *usage_cnt);

/**
 * struct hlthunk_wait_multi_cs_in - input of hlthunk_wait_for_multi_cs().
 * @seq: array of sequence numbers from hlthunk_command_submission().
 * @timeout_us: how long to wait; 0 only polls.
 * @seq_len: entries of @seq, 1 .. HL_WAIT_MULTI_CS_LIST_MAX_LEN (32).
 */
struct hlthunk_wait_multi_cs_in {
	uint64_t *seq;
	uint64_t timeout_us;
	uint32_t seq_len;
};

/**
 * struct hlthunk_wait_multi_cs_out - output of hlthunk_wait_for_multi_cs().
 * @status: HL_WAIT_CS_STATUS_COMPLETED, _BUSY (none completed in time) or
 *	_ABORTED (a completed one failed; the call returns -EIO).
 * @seq_set: bit i set when @seq[i] has completed.
 * @completed: number of bits in @seq_set.
 */
struct hlthunk_wait_multi_cs_out {
	uint32_t status;
	uint32_t seq_set;
	uint8_t completed;
};

/**
 * hlthunk_wait_for_multi_cs() - wait until at least one of several command
 * submissions has completed.
 * @fd: compute node fd.
 * @in: the sequence numbers and the timeout.
 * @out: the outcome; also filled when the call returns -EIO.
 *
 * Return: 0 (see @out->status), -EIO a completed CS failed, or -errno
 * (errno set; -EINVAL: @in, @out or @in->seq NULL, @in->seq_len 0 or above
 * HL_WAIT_MULTI_CS_LIST_MAX_LEN, checked before the ioctl).
 */
hlthunk_public int hlthunk_wait_for_multi_cs(int fd,
					     struct hlthunk_wait_multi_cs_in *in,
					     struct hlthunk_wait_multi_cs_out *out);

/**
 * hlthunk_wait_for_multi_cs_with_timestamp() - hlthunk_wait_for_multi_cs()
 * that also returns the earliest completion time of the completed CSs.
 * @fd: compute node fd.
 * @in: as hlthunk_wait_for_multi_cs().
 * @out: as hlthunk_wait_for_multi_cs().
 * @timestamp: receives the time (ns, CLOCK_MONOTONIC), or 0 when none
 *	has one (none completed, or only forgotten ones).
 *
 * Return: as hlthunk_wait_for_multi_cs(); -EINVAL also for @timestamp
 * NULL.
 */
hlthunk_public int hlthunk_wait_for_multi_cs_with_timestamp(int fd,
				struct hlthunk_wait_multi_cs_in *in,
				struct hlthunk_wait_multi_cs_out *out,
				uint64_t *timestamp);

/**
 * hlthunk_notifier_create() - register a new eventfd for the device's
 * events (HL_INFO_REGISTER_EVENTFD): a hard reset, an MMU page fault, a
 * failed CS, a NIC link up or down, a peer's write that failed its rkey
 * check (HL_NOTIFIER_EVENT_*).
 * @fd: compute or control node fd; one eventfd per fd.
 *
 * Return: the eventfd (close-on-exec), or -errno (errno set).
 */
hlthunk_public int hlthunk_notifier_create(int fd);

/**
 * hlthunk_notifier_release() - unregister @fd's eventfd and close it.
 * @fd: the fd it was registered on.
 * @handle: the eventfd from hlthunk_notifier_create().
 *
 * Return: 0 or -errno (errno set; -EINVAL: @handle negative, or no eventfd
 * registered on @fd; @handle is closed only on success).
 */
hlthunk_public int hlthunk_notifier_release(int fd, int handle);

/**
 * hlthunk_notifier_recv() - wait for events and read them.
 * @fd: the fd the eventfd is registered on.
 * @handle: the eventfd.
 * @notifier_events: receives the HL_NOTIFIER_EVENT_* bits since the last
 *	read (HL_INFO_GET_EVENTS, which clears them).
 * @notifier_cnt: receives the number of times the eventfd was signalled
 *	since the last read; 0 when nothing came within @timeout.
 * @flags: not used (hl-thunk's).
 * @timeout: in milliseconds, as poll(2) (-1: no limit).
 *
 * Return: 0 (also when nothing came: @notifier_cnt is 0) or -errno
 * (errno set; -EINVAL: @handle negative, @notifier_events or
 * @notifier_cnt NULL; errors of @fd show only once @handle was signalled).
 */
hlthunk_public int hlthunk_notifier_recv(int fd, int handle,
					 uint64_t *notifier_events,
					 uint64_t *notifier_cnt,
					 uint32_t flags, uint32_t timeout);

/**
 * struct hlthunk_reset_count_info - hlthunk_get_reset_count_info().
 * @hard_reset_count: hard resets since the driver bound the device.
 * @soft_reset_count: 0: the device has no soft reset.
 */
struct hlthunk_reset_count_info {
	uint32_t hard_reset_count;
	uint32_t soft_reset_count;
};

/**
 * hlthunk_get_reset_count_info() - the device's reset counts.
 * @fd: compute or control node fd.
 * @info: receives them.
 *
 * Return: 0 or -errno (errno set; -EINVAL: a NULL pointer).
 */
hlthunk_public int hlthunk_get_reset_count_info(int fd,
				struct hlthunk_reset_count_info *info);

/**
 * hlthunk_get_cs_counters_info() - HL_IOCTL_CS calls refused, by reason
 * (struct hl_info_cs_counters in <misc/habanalabs.h>).
 * @fd: compute or control node fd (the control node's ctx_* are 0).
 * @info: receives them.
 *
 * Return: 0 or -errno (errno set; -EINVAL: a NULL pointer).
 */
hlthunk_public int hlthunk_get_cs_counters_info(int fd,
				struct hl_info_cs_counters *info);

/**
 * struct hlthunk_open_stats_info - hlthunk_get_open_stats().
 * @open_counter: opens of the compute node since the device was bound.
 * @last_open_period_ms: length of the last open (to now while open).
 * @is_compute_ctx_active: 1 while the compute node is open.
 * @compute_ctx_in_release: 1 while a closed context is being torn down.
 */
struct hlthunk_open_stats_info {
	uint64_t open_counter;
	uint64_t last_open_period_ms;
	uint8_t is_compute_ctx_active;
	uint8_t compute_ctx_in_release;
};

/**
 * hlthunk_get_open_stats() - statistics of the compute node's opens.
 * @fd: compute or control node fd.
 * @open_stats: receives them.
 *
 * Return: 0 or -errno (errno set; -EINVAL: a NULL pointer).
 */
hlthunk_public int hlthunk_get_open_stats(int fd,
				struct hlthunk_open_stats_info *open_stats);

/**
 * hlthunk_get_device_utilization() - the share of the last @period_ms
 * during which an engine queue of the device had work.
 * @fd: compute or control node fd.
 * @period_ms: 100 .. 1000, a multiple of 100.
 * @rate: receives the percentage, 0 .. 100.
 *
 * Return: 0 or -errno (errno set; -EINVAL: @rate NULL or @period_ms out of
 * range, checked before the ioctl).
 */
hlthunk_public int hlthunk_get_device_utilization(int fd, uint32_t period_ms,
						  uint32_t *rate);

/**
 * struct hlthunk_time_sync_info - hlthunk_get_time_sync_info().
 * @device_time: the device's clock, ns: CLOCK_MONOTONIC, the clock of the
 *	WAIT_CS completion timestamps.
 * @host_time: CLOCK_MONOTONIC_RAW, ns, read at the same time.
 */
struct hlthunk_time_sync_info {
	uint64_t device_time;
	uint64_t host_time;
};

/**
 * hlthunk_get_time_sync_info() - read the device's and the host's clocks
 * together.
 * @fd: compute or control node fd.
 * @info: receives them.
 *
 * Return: 0 or -errno (errno set; -EINVAL: a NULL pointer).
 */
hlthunk_public int hlthunk_get_time_sync_info(int fd,
				struct hlthunk_time_sync_info *info);

/**
 * enum hlthunk_event_record_id - hlthunk_get_event_record()'s records
 * (hl-thunk's values).
 * @HLTHUNK_OPEN_DEV: struct hlthunk_event_record_open_dev_time.
 * @HLTHUNK_CS_TIMEOUT: struct hlthunk_event_record_cs_timeout.
 * @HLTHUNK_RAZWI_EVENT: not on this device (-EINVAL).
 * @HLTHUNK_UNDEFINED_OPCODE: struct hlthunk_event_record_undefined_opcode.
 * @HLTHUNK_HW_ERR_OPCODE: not on this device (-EINVAL).
 * @HLTHUNK_FW_ERR_OPCODE: not on this device (-EINVAL).
 */
enum hlthunk_event_record_id {
	HLTHUNK_OPEN_DEV,
	HLTHUNK_CS_TIMEOUT,
	HLTHUNK_RAZWI_EVENT,
	HLTHUNK_UNDEFINED_OPCODE,
	HLTHUNK_HW_ERR_OPCODE,
	HLTHUNK_FW_ERR_OPCODE
};

/**
 * struct hlthunk_event_record_open_dev_time - HLTHUNK_OPEN_DEV.
 * @timestamp: the last successful open of the compute node (ns,
 *	CLOCK_MONOTONIC), 0 if none.
 */
struct hlthunk_event_record_open_dev_time {
	int64_t timestamp;
};

/**
 * struct hlthunk_event_record_cs_timeout - HLTHUNK_CS_TIMEOUT: the last CS
 * of the device that failed on its timeout.
 * @timestamp: when (ns, CLOCK_MONOTONIC), 0 if none did.
 * @seq: its sequence number.
 */
struct hlthunk_event_record_cs_timeout {
	int64_t timestamp;
	uint64_t seq;
};

/**
 * struct hlthunk_event_record_undefined_opcode - HLTHUNK_UNDEFINED_OPCODE:
 * the last job of the device that failed on a malformed command buffer.
 * @timestamp: when (ns, CLOCK_MONOTONIC), 0 if none did.
 * @cb_addr_streams: the job's command buffer (device VA) in the first
 *	entry of the first stream; the rest 0.
 * @cq_addr: 0.
 * @cq_size: 0.
 * @cb_addr_streams_len: 1 (one stream per queue).
 * @engine_id: the engine queue.
 * @stream_id: 0.
 */
struct hlthunk_event_record_undefined_opcode {
	int64_t timestamp;
	uint64_t cb_addr_streams[MAX_QMAN_STREAMS_INFO][OPCODE_INFO_MAX_ADDR_SIZE];
	uint64_t cq_addr;
	uint32_t cq_size;
	uint32_t cb_addr_streams_len;
	uint32_t engine_id;
	uint32_t stream_id;
};

/**
 * hlthunk_get_event_record() - read one of the device's event records.
 * @fd: compute or control node fd.
 * @event_id: which record.
 * @buf: receives it (the struct of @event_id).
 *
 * Return: 0, -EINVAL for the records this device has no events for, an
 * unknown @event_id or @buf NULL, or -errno (errno set).
 */
hlthunk_public int hlthunk_get_event_record(int fd,
					    enum hlthunk_event_record_id event_id,
					    void *buf);

/**
 * hlthunk_get_engine_status() - one line per engine queue, idle or busy.
 * @fd: compute or control node fd.
 * @status_buf: receives the text (not NUL-terminated).
 * @status_buf_size: its size, 1 KiB .. HL_ENGINES_DATA_MAX_SIZE.
 * @actual_size: receives the length of the text.
 *
 * Return: 0 or -errno (errno set; -EINVAL: a NULL pointer or
 * @status_buf_size out of range, checked before the ioctl).
 */
hlthunk_public int hlthunk_get_engine_status(int fd, char *status_buf,
					     uint32_t status_buf_size,
					     int *actual_size);

/**
 * hlthunk_get_hw_events_arr() - how many times each event was sent:
 * entry i counts HL_NOTIFIER_EVENT_* bit i (hw_ip num_of_events entries).
 * @fd: compute or control node fd.
 * @aggregate: since the device was bound, else since the last hard reset.
 * @hw_events_arr_size: size of @hw_events_arr in bytes (a shorter one
 *	gets the first entries).
 * @hw_events_arr: receives the counts.
 *
 * Return: 0 or -errno (errno set; -EINVAL: @hw_events_arr NULL or
 * @hw_events_arr_size 0).
 */
hlthunk_public int hlthunk_get_hw_events_arr(int fd, bool aggregate,
					     uint32_t hw_events_arr_size,
					     uint32_t *hw_events_arr);

/* ------------------------------------------------------------------------
 * hl-thunk's hash table helpers (hash.c): unsigned long keys to pointers.
 * hl-thunk-open declares them without defining them; the semantics are
 * libhlthunk's: lookup, delete, first and next return -ENOENT for no such
 * entry; insert replaces an earlier value; first/next iterate in ascending
 * key order (next takes the previous key, which may be gone since).
 * Errors: -errno with errno set; create returns NULL with errno set.
 */

/**
 * hlthunk_hash_create() - a new, empty hash table.
 *
 * Return: the table, or NULL with errno ENOMEM.
 */
hlthunk_public void *hlthunk_hash_create(void);

/**
 * hlthunk_hash_destroy() - free a table (not the values it points to).
 * @t: the table.
 *
 * Return: 0, or -EINVAL for NULL.
 */
hlthunk_public int hlthunk_hash_destroy(void *t);

/**
 * hlthunk_hash_lookup() - the value of a key.
 * @t: the table.
 * @key: the key.
 * @value: receives its value.
 *
 * Return: 0, -ENOENT no such key, -EINVAL.
 */
hlthunk_public int hlthunk_hash_lookup(void *t, unsigned long key,
				       void **value);

/**
 * hlthunk_hash_insert() - map a key to a value, replacing an earlier one.
 * @t: the table.
 * @key: the key.
 * @value: its value.
 *
 * Return: 0, -ENOMEM, -EINVAL.
 */
hlthunk_public int hlthunk_hash_insert(void *t, unsigned long key, void *value);

/**
 * hlthunk_hash_delete() - remove a key.
 * @t: the table.
 * @key: the key.
 *
 * Return: 0, -ENOENT no such key, -EINVAL.
 */
hlthunk_public int hlthunk_hash_delete(void *t, unsigned long key);

/**
 * hlthunk_hash_next() - the entry after a key, in ascending key order.
 * @t: the table.
 * @key: the previous key (which need not be in the table any more);
 *	receives the next one.
 * @value: receives its value.
 *
 * Return: 0, -ENOENT at the end, -EINVAL.
 */
hlthunk_public int hlthunk_hash_next(void *t, unsigned long *key, void **value);

/**
 * hlthunk_hash_first() - the entry with the smallest key.
 * @t: the table.
 * @key: receives the key.
 * @value: receives its value.
 *
 * Return: 0, -ENOENT the table is empty, -EINVAL.
 */
hlthunk_public int hlthunk_hash_first(void *t, unsigned long *key,
				      void **value);

/* ------------------------------------------------------------------------
 * Upstream's INFO queries, sync-manager submissions, staged submissions,
 * hardware blocks, timestamps and debug (node HLTHUNK_2.4). Each issues
 * the ioctl hl-thunk issues, with the argument hl-thunk fills, and returns
 * what the driver answers: the queries of what the emulated device cannot
 * mean (clocks, power, PLLs, PCI counters, DRAM rows, attestation,
 * firmware) and hardware blocks, timestamps and debug are -EOPNOTSUPP
 * (docs/uapi.md); the signal, wait, staged and encapsulated-signal
 * submissions are served once the driver has its sync manager (-EINVAL
 * before).
 */

/**
 * struct hlthunk_pll_frequency_info - hlthunk_get_pll_frequency().
 * @output: the frequency of each output of the PLL, in MHz.
 */
struct hlthunk_pll_frequency_info {
	uint16_t output[HL_PLL_NUM_OUTPUTS];
};

/**
 * hlthunk_get_pll_frequency() - the frequencies of one PLL
 * (HL_INFO_PLL_FREQUENCY).
 * @fd: compute or control node fd.
 * @index: the PLL (enum hl_gaudi_pll_index and the like).
 * @frequency: receives them.
 *
 * Return: 0 or -errno (errno set; -EINVAL: @frequency NULL; -EOPNOTSUPP:
 * the emulated device has no PLLs).
 */
hlthunk_public int hlthunk_get_pll_frequency(int fd, uint32_t index,
				struct hlthunk_pll_frequency_info *frequency);

/**
 * hlthunk_get_clk_rate() - the device's current and highest clock rates
 * (HL_INFO_CLK_RATE).
 * @fd: compute or control node fd.
 * @cur_clk_mhz: receives the current rate, MHz.
 * @max_clk_mhz: receives the highest rate, MHz.
 *
 * Return: 0 or -errno (errno set; -EINVAL: a NULL pointer; -EOPNOTSUPP:
 * the emulated engines have no clock).
 */
hlthunk_public int hlthunk_get_clk_rate(int fd, uint32_t *cur_clk_mhz,
					uint32_t *max_clk_mhz);

/* struct hlthunk_clk_throttle_info.clk_throttle_reason_bitmask */
#define HLTHUNK_CLK_THROTTLE_POWER	(1 << HL_CLK_THROTTLE_TYPE_POWER)
#define HLTHUNK_CLK_THROTTLE_THERMAL	(1 << HL_CLK_THROTTLE_TYPE_THERMAL)

/**
 * struct hlthunk_clk_throttle_info - hlthunk_get_clk_throttle_info().
 * @clk_throttle_reason_bitmask: HLTHUNK_CLK_THROTTLE_* now throttling.
 * @clk_throttle_start_timestamp_us: when each kind started, us.
 * @clk_throttle_duration_ns: how long each kind lasted, ns.
 */
struct hlthunk_clk_throttle_info {
	uint32_t clk_throttle_reason_bitmask;
	uint64_t clk_throttle_start_timestamp_us[HL_CLK_THROTTLE_TYPE_MAX];
	uint64_t clk_throttle_duration_ns[HL_CLK_THROTTLE_TYPE_MAX];
};

/**
 * hlthunk_get_clk_throttle_info() - why and since when the clock is
 * throttled (HL_INFO_CLK_THROTTLE_REASON).
 * @fd: compute or control node fd.
 * @info: receives it.
 *
 * Return: 0 or -errno (errno set; -EINVAL: @info NULL; -EOPNOTSUPP: no
 * clock, so no throttling).
 */
hlthunk_public int hlthunk_get_clk_throttle_info(int fd,
				struct hlthunk_clk_throttle_info *info);

/**
 * struct hlthunk_energy_info - hlthunk_get_total_energy_consumption_info().
 * @total_energy_consumption: energy used since the device came up, mJ.
 */
struct hlthunk_energy_info {
	uint64_t total_energy_consumption;
};

/**
 * hlthunk_get_total_energy_consumption_info() - the device's energy use
 * (HL_INFO_TOTAL_ENERGY).
 * @fd: compute or control node fd.
 * @info: receives it.
 *
 * Return: 0 or -errno (errno set; -EINVAL: @info NULL; -EOPNOTSUPP: no
 * energy counter).
 */
hlthunk_public int hlthunk_get_total_energy_consumption_info(int fd,
				struct hlthunk_energy_info *info);

/**
 * struct hlthunk_power_info - hlthunk_get_power_info().
 * @power: the device's power draw, mW.
 */
struct hlthunk_power_info {
	uint64_t power;
};

/**
 * hlthunk_get_power_info() - the device's power draw (HL_INFO_POWER).
 * @fd: compute or control node fd.
 * @info: receives it.
 *
 * Return: 0 or -errno (errno set; -EINVAL: @info NULL; -EOPNOTSUPP: no
 * power sensor).
 */
hlthunk_public int hlthunk_get_power_info(int fd,
					  struct hlthunk_power_info *info);

/**
 * struct hlthunk_hw_asic_status - hlthunk_get_hw_asic_status().
 * @throttle: hlthunk_get_clk_throttle_info()'s.
 * @open_stats: hlthunk_get_open_stats()'s.
 * @power: hlthunk_get_power_info()'s (an operational device only).
 * @status: hlthunk_get_device_status_info()'s.
 * @timestamp_sec: time(NULL) when all were read.
 * @valid: 1 once @status was read.
 */
struct hlthunk_hw_asic_status {
	struct hlthunk_clk_throttle_info throttle;
	struct hlthunk_open_stats_info open_stats;
	struct hlthunk_power_info power;
	enum hl_device_status status;
	uint64_t timestamp_sec;
	uint8_t valid;
};

/**
 * hlthunk_get_hw_asic_status() - the device's status, clock throttling,
 * open statistics and power, as hl-thunk gathers them.
 * @fd: compute or control node fd.
 * @hw_asic_status: receives them; @valid is 1 once the status was read.
 *
 * The parts are read in hl-thunk's order (status, throttling, open
 * statistics, then power) and the first failure is returned: here the
 * throttling query's -EOPNOTSUPP, after @status and @valid were filled.
 *
 * Return: 0 or -errno (errno set; -EINVAL: @hw_asic_status NULL;
 * -EOPNOTSUPP: no clock throttling or power information on this device).
 */
hlthunk_public int hlthunk_get_hw_asic_status(int fd,
				struct hlthunk_hw_asic_status *hw_asic_status);

/**
 * struct hlthunk_pci_counters_info - hlthunk_get_pci_counters_info().
 * @rx_throughput: PCIe receive throughput, bytes per second.
 * @tx_throughput: PCIe transmit throughput, bytes per second.
 * @replay_cnt: PCIe replays since the last reset.
 */
struct hlthunk_pci_counters_info {
	uint64_t rx_throughput;
	uint64_t tx_throughput;
	uint32_t replay_cnt;
};

/**
 * hlthunk_get_pci_counters_info() - the device's PCIe link counters
 * (HL_INFO_PCI_COUNTERS).
 * @fd: compute or control node fd.
 * @info: receives them.
 *
 * Return: 0 or -errno (errno set; -EINVAL: @info NULL; -EOPNOTSUPP: the
 * emulation models no PCIe link).
 */
hlthunk_public int hlthunk_get_pci_counters_info(int fd,
				struct hlthunk_pci_counters_info *info);

/* Entries of struct hlthunk_dram_replaced_rows_info.replaced_rows */
#define DRAM_ROW_REPLACE_MAX	32

/**
 * enum hlthunk_dram_row_replace_cause - why a DRAM row was replaced.
 * @HLTHUNK_ROW_REPLACE_CAUSE_DOUBLE_ECC_ERR: a double-bit ECC error.
 * @HLTHUNK_ROW_REPLACE_CAUSE_MULTI_SINGLE_ECC_ERR: repeated single-bit
 *	ECC errors.
 */
enum hlthunk_dram_row_replace_cause {
	HLTHUNK_ROW_REPLACE_CAUSE_DOUBLE_ECC_ERR,
	HLTHUNK_ROW_REPLACE_CAUSE_MULTI_SINGLE_ECC_ERR,
};

/**
 * struct hlthunk_dram_row_info - one replaced DRAM row.
 * @dram_idx: the HBM stack.
 * @pc: the pseudo channel.
 * @sid: the stack id.
 * @bank_idx: the bank.
 * @row_addr: the row.
 * @replaced_row_cause: enum hlthunk_dram_row_replace_cause.
 * @pad: 0.
 */
struct hlthunk_dram_row_info {
	uint8_t dram_idx;
	uint8_t pc;
	uint8_t sid;
	uint8_t bank_idx;
	uint16_t row_addr;
	uint8_t replaced_row_cause;
	uint8_t pad;
};

/**
 * struct hlthunk_dram_replaced_rows_info - hlthunk_get_dram_replaced_rows_info().
 * @num_replaced_rows: entries of @replaced_rows.
 * @pad: 0.
 * @replaced_rows: the replaced rows.
 */
struct hlthunk_dram_replaced_rows_info {
	uint16_t num_replaced_rows;
	uint8_t pad[6];
	struct hlthunk_dram_row_info replaced_rows[DRAM_ROW_REPLACE_MAX];
};

/**
 * hlthunk_get_dram_replaced_rows_info() - the HBM rows replaced so far
 * (HL_INFO_DRAM_REPLACED_ROWS).
 * @fd: compute or control node fd.
 * @info: receives them.
 *
 * Return: 0 or -errno (errno set; -EINVAL: @info NULL; -EOPNOTSUPP: the
 * emulated HBM has no row replacement).
 */
hlthunk_public int hlthunk_get_dram_replaced_rows_info(int fd,
				struct hlthunk_dram_replaced_rows_info *info);

/**
 * hlthunk_get_dram_pending_rows_info() - the HBM rows waiting to be
 * replaced at the next reset (HL_INFO_DRAM_PENDING_ROWS).
 * @fd: compute or control node fd.
 * @out: receives their number.
 *
 * Return: 0 or -errno (errno set; -EINVAL: @out NULL; -EOPNOTSUPP: the
 * emulated HBM has no row replacement).
 */
hlthunk_public int hlthunk_get_dram_pending_rows_info(int fd, uint32_t *out);

/**
 * struct hlthunk_sec_attest_info - hlthunk_get_sec_attest_info().
 * @nonce: the nonce the quote was made with.
 * @pcr_quote_len: bytes of @pcr_quote.
 * @pub_data_len: bytes of @public_data.
 * @certificate_len: bytes of @certificate.
 * @pcr_num_reg: PCR registers in @pcr_data.
 * @pcr_reg_len: bytes of one PCR register.
 * @quote_sig_len: bytes of @quote_sig.
 * @pcr_data: the PCR registers.
 * @pcr_quote: the attestation quote.
 * @quote_sig: its signature.
 * @public_data: the signing key's public part.
 * @certificate: the key's certificate.
 */
struct hlthunk_sec_attest_info {
	uint32_t nonce;
	uint16_t pcr_quote_len;
	uint16_t pub_data_len;
	uint16_t certificate_len;
	uint8_t pcr_num_reg;
	uint8_t pcr_reg_len;
	uint8_t quote_sig_len;
	uint8_t pcr_data[SEC_PCR_DATA_BUF_SZ];
	uint8_t pcr_quote[SEC_PCR_QUOTE_BUF_SZ];
	uint8_t quote_sig[SEC_SIGNATURE_BUF_SZ];
	uint8_t public_data[SEC_PUB_DATA_BUF_SZ];
	uint8_t certificate[SEC_CERTIFICATE_BUF_SZ];
};

/**
 * hlthunk_get_sec_attest_info() - the firmware's signed attestation
 * (HL_INFO_SECURED_ATTESTATION).
 * @fd: compute or control node fd.
 * @nonce: the nonce to sign with.
 * @info: receives the attestation.
 *
 * Return: 0 or -errno (errno set; -EINVAL: @info NULL; -EOPNOTSUPP: no
 * firmware, no TPM).
 */
hlthunk_public int hlthunk_get_sec_attest_info(int fd, uint32_t nonce,
				struct hlthunk_sec_attest_info *info);

/**
 * hlthunk_fw_send_generic_request() - a request to the device's firmware
 * (HL_INFO_FW_GENERIC_REQ).
 * @fd: compute or control node fd.
 * @buff: the request's buffer, which receives the answer.
 * @buff_size: its size, > 0.
 * @sub_opcode: the request.
 *
 * Return: 0 or -errno (errno set; -EINVAL: @buff NULL or @buff_size 0;
 * -EOPNOTSUPP: no firmware).
 */
hlthunk_public int hlthunk_fw_send_generic_request(int fd, void *buff,
						   uint32_t buff_size,
						   uint32_t sub_opcode);

/**
 * struct hlthunk_sync_manager_info - hlthunk_get_sync_manager_info().
 * @first_available_sync_object: the first sync object left to users.
 * @first_available_monitor: the first monitor left to users.
 * @first_available_cq: the first completion queue left to users.
 * @reserved: 0.
 */
struct hlthunk_sync_manager_info {
	uint32_t first_available_sync_object;
	uint32_t first_available_monitor;
	uint32_t first_available_cq;
	uint32_t reserved;
};

/**
 * hlthunk_get_sync_manager_info() - the sync-manager resources of a dcore
 * that the driver leaves to users (HL_INFO_SYNC_MANAGER).
 * @fd: compute or control node fd.
 * @dcore_id: the dcore (enum gaudi_dcores).
 * @info: receives them.
 *
 * Return: 0 or -errno (errno set; -EINVAL: @info NULL; -EOPNOTSUPP: a
 * driver whose emulated ASIC has no sync manager).
 */
hlthunk_public int hlthunk_get_sync_manager_info(int fd, int dcore_id,
				struct hlthunk_sync_manager_info *info);

/**
 * struct hlthunk_signal_in - hlthunk_signal_submission().
 * @chunks_restore: restore chunks (struct hl_cs_chunk), or NULL.
 * @num_chunks_restore: entries of @chunks_restore.
 * @queue_index: the queue whose sync object the CS signals.
 * @flags: more HL_CS_FLAGS_* (HL_CS_FLAGS_SIGNAL is added).
 */
struct hlthunk_signal_in {
	void *chunks_restore;
	uint32_t num_chunks_restore;
	uint32_t queue_index;
	uint32_t flags;
};

/**
 * struct hlthunk_signal_out - the result of hlthunk_signal_submission().
 * @seq: the signal CS's sequence number (for a wait, and WAIT_CS).
 * @status: HL_CS_STATUS_SUCCESS.
 * @sob_base_addr_offset: the offset of the sync object signalled.
 * @sob_count_before_submission: its value before this signal.
 */
struct hlthunk_signal_out {
	uint64_t seq;
	uint32_t status;
	uint32_t sob_base_addr_offset;
	uint16_t sob_count_before_submission;
};

/**
 * hlthunk_signal_submission() - submit a CS that signals a queue's sync
 * object (HL_CS_FLAGS_SIGNAL, one chunk on @in's queue).
 * @fd: compute node fd.
 * @in: the queue, restore chunks and flags.
 * @out: receives the sequence number and the sync object's state.
 *
 * Return: 0 or -errno (errno set; -EINVAL: a NULL pointer, a status other
 * than HL_CS_STATUS_SUCCESS, or a driver without the sync manager).
 */
hlthunk_public int hlthunk_signal_submission(int fd,
					     struct hlthunk_signal_in *in,
					     struct hlthunk_signal_out *out);

/**
 * hlthunk_signal_submission_timeout() - hlthunk_signal_submission() with
 * a job timeout (HL_CS_FLAGS_CUSTOM_TIMEOUT when @timeout is not 0).
 * @fd: compute node fd.
 * @in: the queue, restore chunks and flags.
 * @out: receives the sequence number and the sync object's state.
 * @timeout: the job timeout, s; 0 for the driver's.
 *
 * Return: as hlthunk_signal_submission().
 */
hlthunk_public int hlthunk_signal_submission_timeout(int fd,
					struct hlthunk_signal_in *in,
					struct hlthunk_signal_out *out,
					uint32_t timeout);

/**
 * struct hlthunk_wait_for_signal_data - what a wait CS waits for.
 * @signal_seq_arr: the sequence numbers of the signal CSs (one).
 * @encaps_signal_seq: encapsulated signals: the reservation's handle id.
 * @signal_seq_nr: entries of @signal_seq_arr: 1.
 * @queue_index: the queue that waits.
 * @flags: unused.
 * @collective_engine_id: collective waits: the engine that gathers.
 * @encaps_signal_offset: encapsulated signals: which one, from 1.
 */
struct hlthunk_wait_for_signal_data {
	union {
		uint64_t *signal_seq_arr;
		uint64_t encaps_signal_seq;
	};
	uint32_t signal_seq_nr;
	uint32_t queue_index;
	uint32_t flags;
	uint32_t collective_engine_id;
	uint32_t encaps_signal_offset;
};

/**
 * struct hlthunk_wait_in - hlthunk_wait_for_signal() and its kin.
 * @chunks_restore: restore chunks (struct hl_cs_chunk), or NULL.
 * @num_chunks_restore: entries of @chunks_restore.
 * @hlthunk_wait_for_signal: a struct hlthunk_wait_for_signal_data (as
 *	hl-thunk declares it, a uint64_t pointer).
 * @num_wait_for_signal: entries of @hlthunk_wait_for_signal: 1.
 * @flags: more HL_CS_FLAGS_*.
 */
struct hlthunk_wait_in {
	void *chunks_restore;
	uint32_t num_chunks_restore;
	uint64_t *hlthunk_wait_for_signal;
	uint32_t num_wait_for_signal;
	uint32_t flags;
};

/**
 * struct hlthunk_wait_out - the result of a wait submission.
 * @seq: the wait CS's sequence number.
 * @status: HL_CS_STATUS_SUCCESS.
 */
struct hlthunk_wait_out {
	uint64_t seq;
	uint32_t status;
};

/**
 * hlthunk_wait_for_signal() - submit a CS that makes a queue wait for a
 * signal CS (HL_CS_FLAGS_WAIT, one chunk).
 * @fd: compute node fd.
 * @in: the signal to wait for and the waiting queue (one of each).
 * @out: receives the wait CS's sequence number.
 *
 * Return: 0 or -errno (errno set; -EINVAL: a NULL pointer, not exactly
 * one wait or one signal, a status other than HL_CS_STATUS_SUCCESS, or a
 * driver without the sync manager).
 */
hlthunk_public int hlthunk_wait_for_signal(int fd, struct hlthunk_wait_in *in,
					   struct hlthunk_wait_out *out);

/**
 * hlthunk_wait_for_signal_timeout() - hlthunk_wait_for_signal() with a job
 * timeout.
 * @fd: compute node fd.
 * @in: the signal to wait for and the waiting queue.
 * @out: receives the wait CS's sequence number.
 * @timeout: the job timeout, s; 0 for the driver's.
 *
 * Return: as hlthunk_wait_for_signal().
 */
hlthunk_public int hlthunk_wait_for_signal_timeout(int fd,
					struct hlthunk_wait_in *in,
					struct hlthunk_wait_out *out,
					uint32_t timeout);

/**
 * hlthunk_wait_for_collective_signal() - submit a collective wait
 * (HL_CS_FLAGS_COLLECTIVE_WAIT): the queues of the master's stream of
 * every NIC port and of the collective engine (GAUDI_ENGINE_ID_DMA_5 or
 * _TPC_7) wait for a signal CS and signal the master queue (an external
 * queue), which runs nothing after the wait before all of them did.
 * @fd: compute node fd.
 * @in: the signal, the waiting (master) queue and the collective engine.
 * @out: receives the wait CS's sequence number (UINT64_MAX: the signal
 *	had completed, no CS was made).
 *
 * Return: as hlthunk_wait_for_signal(); also -EINVAL a master that is no
 * external queue or another engine, -EOPNOTSUPP a device without
 * collective queues (the driver's asic=emu).
 */
hlthunk_public int hlthunk_wait_for_collective_signal(int fd,
					struct hlthunk_wait_in *in,
					struct hlthunk_wait_out *out);

/**
 * hlthunk_wait_for_collective_signal_timeout() - a collective wait with a
 * job timeout.
 * @fd: compute node fd.
 * @in: the signal, the waiting queue and the collective engine.
 * @out: receives the wait CS's sequence number.
 * @timeout: the job timeout, s; 0 for the driver's.
 *
 * Return: as hlthunk_wait_for_signal().
 */
hlthunk_public int hlthunk_wait_for_collective_signal_timeout(int fd,
					struct hlthunk_wait_in *in,
					struct hlthunk_wait_out *out,
					uint32_t timeout);

/**
 * struct hlthunk_sig_res_in - hlthunk_reserve_encaps_signals().
 * @queue_index: the queue whose sync object the signals are reserved on.
 * @count: how many signals.
 */
struct hlthunk_sig_res_in {
	uint32_t queue_index;
	uint32_t count;
};

/**
 * struct reserve_sig_handle - reserved (encapsulated) signals.
 * @id: the reservation's handle id.
 * @sob_base_addr_offset: the offset of their sync object.
 * @count: how many were reserved.
 */
struct reserve_sig_handle {
	uint32_t id;
	uint32_t sob_base_addr_offset;
	uint32_t count;
};

/**
 * struct hlthunk_sig_res_out - the result of hlthunk_reserve_encaps_signals().
 * @handle: the reservation.
 * @status: HL_CS_STATUS_SUCCESS.
 */
struct hlthunk_sig_res_out {
	struct reserve_sig_handle handle;
	uint32_t status;
};

/**
 * hlthunk_reserve_encaps_signals() - reserve signals of a queue's sync
 * object for a later staged submission (HL_CS_FLAGS_RESERVE_SIGNALS_ONLY).
 * @fd: compute node fd.
 * @in: the queue and the count.
 * @out: receives the reservation.
 *
 * Return: 0 or -errno (errno set; -EINVAL: a status other than
 * HL_CS_STATUS_SUCCESS, or a driver without the sync manager).
 */
hlthunk_public int hlthunk_reserve_encaps_signals(int fd,
					struct hlthunk_sig_res_in *in,
					struct hlthunk_sig_res_out *out);

/**
 * hlthunk_unreserve_encaps_signals() - release reserved signals
 * (HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY).
 * @fd: compute node fd.
 * @handle: the reservation (its @id is used).
 * @status: receives HL_CS_STATUS_SUCCESS.
 *
 * Return: 0 or -errno (errno set; -EINVAL: a status other than
 * HL_CS_STATUS_SUCCESS, or a driver without the sync manager).
 */
hlthunk_public int hlthunk_unreserve_encaps_signals(int fd,
					struct reserve_sig_handle *handle,
					uint32_t *status);

/**
 * hlthunk_wait_for_reserved_encaps_signals() - a wait CS for reserved
 * signals (HL_CS_FLAGS_WAIT with HL_CS_FLAGS_ENCAP_SIGNALS).
 * @fd: compute node fd.
 * @in: the reservation's handle id (encaps_signal_seq), the signal
 *	(encaps_signal_offset) and the waiting queue.
 * @out: receives the wait CS's sequence number.
 *
 * Return: as hlthunk_wait_for_signal().
 */
hlthunk_public int hlthunk_wait_for_reserved_encaps_signals(int fd,
					struct hlthunk_wait_in *in,
					struct hlthunk_wait_out *out);

/**
 * hlthunk_wait_for_reserved_encaps_collective_signals() - a collective
 * wait for reserved signals (HL_CS_FLAGS_COLLECTIVE_WAIT with
 * HL_CS_FLAGS_ENCAP_SIGNALS).
 * @fd: compute node fd.
 * @in: the reservation, the signal, the waiting queue and the engine.
 * @out: receives the wait CS's sequence number.
 *
 * Return: as hlthunk_wait_for_signal().
 */
hlthunk_public int hlthunk_wait_for_reserved_encaps_collective_signals(int fd,
					struct hlthunk_wait_in *in,
					struct hlthunk_wait_out *out);

/**
 * hlthunk_staged_command_submission() - one part of a staged submission
 * (HL_CS_FLAGS_STAGED_SUBMISSION in @in's flags, with _FIRST for the
 * first part and _LAST for the last).
 * @fd: compute node fd.
 * @sequence: the first part's sequence number (0 for the first part).
 * @in: the part's chunks and flags.
 * @out: receives the part's sequence number and status.
 *
 * Return: 0 or -errno (errno set; -EINVAL: a NULL pointer, no
 * HL_CS_FLAGS_STAGED_SUBMISSION in @in's flags, or a driver without staged
 * submissions).
 */
hlthunk_public int hlthunk_staged_command_submission(int fd, uint64_t sequence,
					struct hlthunk_cs_in *in,
					struct hlthunk_cs_out *out);

/**
 * hlthunk_staged_command_submission_timeout() - a part of a staged
 * submission with a job timeout.
 * @fd: compute node fd.
 * @sequence: the first part's sequence number (0 for the first part).
 * @in: the part's chunks and flags.
 * @out: receives the part's sequence number and status.
 * @timeout: the job timeout, s; 0 for the driver's.
 *
 * Return: as hlthunk_staged_command_submission().
 */
hlthunk_public int hlthunk_staged_command_submission_timeout(int fd,
					uint64_t sequence,
					struct hlthunk_cs_in *in,
					struct hlthunk_cs_out *out,
					uint32_t timeout);

/**
 * hlthunk_staged_command_submission_encaps_signals() - the first part of a
 * staged submission that signals reserved signals
 * (HL_CS_FLAGS_ENCAP_SIGNALS is added).
 * @fd: compute node fd.
 * @handle_id: the reservation's handle id.
 * @in: the part's chunks and flags (with HL_CS_FLAGS_STAGED_SUBMISSION).
 * @out: receives the sequence number, status and the sync object's value
 *	before the submission.
 *
 * Return: as hlthunk_staged_command_submission().
 */
hlthunk_public int hlthunk_staged_command_submission_encaps_signals(int fd,
					uint64_t handle_id,
					struct hlthunk_cs_in *in,
					struct hlthunk_cs_out *out);

/**
 * hlthunk_get_hw_block() - map a hardware register block for mmap()
 * (HL_MEM_OP_MAP_BLOCK).
 * @fd: compute node fd.
 * @block_address: the block's address.
 * @block_size: receives its size.
 * @handle: receives the mmap offset.
 *
 * Return: 0 or -errno (errno set; -EINVAL: a NULL pointer; -EOPNOTSUPP:
 * the emulated ASIC has no register blocks).
 */
hlthunk_public int hlthunk_get_hw_block(int fd, uint64_t block_address,
					uint32_t *block_size, uint64_t *handle);

/**
 * hlthunk_allocate_timestamp_elements() - a buffer of timestamps for user
 * interrupt registrations (HL_MEM_OP_TS_ALLOC).
 * @fd: compute node fd.
 * @num_elements: the buffer's 64-bit elements.
 * @handle: receives the buffer's handle (0 on failure).
 *
 * Return: 0 or -errno (errno set; -EINVAL: @handle NULL; -EOPNOTSUPP: the
 * emulated device raises no user interrupts).
 */
hlthunk_public int hlthunk_allocate_timestamp_elements(int fd,
						       uint32_t num_elements,
						       uint64_t *handle);

/**
 * hlthunk_debug() - configure the device's debug and trace blocks
 * (HL_IOCTL_DEBUG, struct hl_debug_args in <misc/habanalabs.h>).
 * @fd: compute node fd.
 * @debug: the operation, passed to the driver as it is.
 *
 * Return: 0 or -errno (errno set; -EINVAL: @debug NULL, a bad op;
 * -EOPNOTSUPP: the emulated device has no CoreSight blocks).
 */
hlthunk_public int hlthunk_debug(int fd, struct hl_debug_args *debug);

#ifdef __cplusplus
}
#endif

#endif /* HLTHUNK_H */

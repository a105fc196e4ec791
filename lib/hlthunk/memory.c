// SPDX-License-Identifier: MIT
/*
 * memory.c - HL_IOCTL_MEMORY wrappers: alloc, free, map, unmap, dma-buf
 * export. Command submission is in cs.c.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "hlthunk_internal.h"

static int hlthunk_mem(int fd, union hl_mem_args *args)
{
	int rc = hlthunk_ioctl(fd, HL_IOCTL_MEMORY, args);

	return rc < 0 ? rc : 0;
}

/* ------------------------------------------------------------------------
 * Device memory
 */

hlthunk_public uint64_t hlthunk_device_memory_alloc(int fd, uint64_t size,
						uint64_t page_size,
						bool contiguous, bool shared)
{
	union hl_mem_args args;

	memset(&args, 0, sizeof(args));
	args.in.op = HL_MEM_OP_ALLOC;
	args.in.alloc.mem_size = size;
	args.in.alloc.page_size = page_size;
	if (contiguous)
		args.in.flags |= HL_MEM_CONTIGUOUS;
	if (shared)
		args.in.flags |= HL_MEM_SHARED;

	if (hlthunk_mem(fd, &args) < 0)
		return 0;

	/* The driver never hands out handle 0: it means failure here */
	if (!args.out.handle) {
		errno = EPROTO;
		return 0;
	}

	return args.out.handle;
}

hlthunk_public int hlthunk_device_memory_free(int fd, uint64_t handle)
{
	union hl_mem_args args;

	memset(&args, 0, sizeof(args));
	args.in.op = HL_MEM_OP_FREE;
	args.in.free.handle = handle;

	return hlthunk_mem(fd, &args);
}

/* HL_MEM_OP_MAP; the device VA, or 0 with errno set */
static uint64_t hlthunk_map(int fd, union hl_mem_args *args)
{
	args->in.op = HL_MEM_OP_MAP;

	if (hlthunk_mem(fd, args) < 0)
		return 0;

	/* The driver's VA ranges exclude 0: it means failure here */
	if (!args->out.device_virt_addr) {
		errno = EPROTO;
		return 0;
	}

	return args->out.device_virt_addr;
}

hlthunk_public uint64_t hlthunk_device_memory_map_flags(int fd,
				uint64_t handle, uint64_t hint_addr,
				uint32_t flags)
{
	union hl_mem_args args;

	/* USERPTR would make the driver read map_host from map_device */
	if (flags & HL_MEM_USERPTR) {
		errno = EINVAL;
		return 0;
	}

	memset(&args, 0, sizeof(args));
	args.in.map_device.handle = handle;
	args.in.map_device.hint_addr = hint_addr;
	args.in.flags = flags;

	return hlthunk_map(fd, &args);
}

hlthunk_public uint64_t hlthunk_device_memory_map(int fd, uint64_t handle,
						  uint64_t hint_addr)
{
	return hlthunk_device_memory_map_flags(fd, handle, hint_addr, 0);
}

hlthunk_public int hlthunk_device_mapped_memory_export_dmabuf_fd(int fd,
				uint64_t addr, uint64_t size, uint64_t offset,
				uint32_t flags)
{
	union hl_mem_args args;
	int rc;

	memset(&args, 0, sizeof(args));
	args.in.op = HL_MEM_OP_EXPORT_DMABUF_FD;
	args.in.export_dmabuf_fd.addr = addr;
	args.in.export_dmabuf_fd.mem_size = size;
	args.in.export_dmabuf_fd.offset = offset;
	/* hl-thunk always exports O_RDWR | O_CLOEXEC */
	args.in.flags = flags ?: (uint32_t)(O_RDWR | O_CLOEXEC);

	rc = hlthunk_mem(fd, &args);
	if (rc < 0)
		return rc;

	if (args.out.fd < 0)
		return hlthunk_err(EPROTO);

	return args.out.fd;
}

hlthunk_public int hlthunk_device_memory_export_dmabuf_fd(int fd,
				uint64_t addr, uint64_t size, uint32_t flags)
{
	return hlthunk_device_mapped_memory_export_dmabuf_fd(fd, addr, size, 0,
							     flags);
}

/* ------------------------------------------------------------------------
 * Host memory
 */

hlthunk_public uint64_t hlthunk_host_memory_map_flags(int fd,
				void *host_virt_addr, uint64_t hint_addr,
				uint64_t host_size, uint32_t flags)
{
	union hl_mem_args args;

	memset(&args, 0, sizeof(args));
	args.in.map_host.host_virt_addr = hlthunk_ptr_to_u64(host_virt_addr);
	args.in.map_host.hint_addr = hint_addr;
	args.in.map_host.mem_size = host_size;
	args.in.flags = flags | HL_MEM_USERPTR;

	return hlthunk_map(fd, &args);
}

hlthunk_public uint64_t hlthunk_host_memory_map(int fd, void *host_virt_addr,
						uint64_t hint_addr,
						uint64_t host_size)
{
	return hlthunk_host_memory_map_flags(fd, host_virt_addr, hint_addr,
					     host_size, 0);
}

hlthunk_public int hlthunk_memory_unmap(int fd, uint64_t device_virt_addr)
{
	union hl_mem_args args;

	memset(&args, 0, sizeof(args));
	args.in.op = HL_MEM_OP_UNMAP;
	args.in.unmap.device_virt_addr = device_virt_addr;

	return hlthunk_mem(fd, &args);
}

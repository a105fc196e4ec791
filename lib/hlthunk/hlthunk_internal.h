/* SPDX-License-Identifier: MIT */
/*
 * hlthunk_internal.h - helpers shared by the libhlthunk sources. Nothing here
 * is exported: the library is built with -fvisibility=hidden and the version
 * script lists only the hlthunk_public functions of hlthunk.h.
 */
#ifndef HLTHUNK_INTERNAL_H
#define HLTHUNK_INTERNAL_H

#include <errno.h>
#include <stdint.h>

#include "hlthunk.h"

#define hlthunk_internal	__attribute__((visibility("hidden")))

/*
 * hlthunk_ioctl() - ioctl(2), retried while it fails with EINTR or EAGAIN.
 * Return: the ioctl's non-negative result, or -errno with errno set.
 */
hlthunk_internal int hlthunk_ioctl(int fd, unsigned long request, void *arg);

/* Set errno to @err (> 0) and return -@err: "return hlthunk_err(EINVAL);" */
static inline int hlthunk_err(int err)
{
	errno = err;
	return -err;
}

/* A user pointer as the __u64 the uAPI carries */
static inline uint64_t hlthunk_ptr_to_u64(const void *ptr)
{
	return (uint64_t)(uintptr_t)ptr;
}

#endif /* HLTHUNK_INTERNAL_H */

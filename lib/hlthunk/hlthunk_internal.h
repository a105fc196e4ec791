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
#include <string.h>

#include "hlthunk.h"

#define hlthunk_internal	__attribute__((visibility("hidden")))

/*
 * HLTHUNK_MOVED_FROM_2_1(name) - at file scope of the source that defines
 * @name, before its definition: @name's default version is HLTHUNK_2.3
 * (libhlthunk.map), and it is also exported as name@HLTHUNK_2.1, not
 * default. libhlthunk 2.2.0 shipped these 25 functions in HLTHUNK_2.1, which
 * 2.1.0 had released without them (issue 36): its binaries ask for
 * name@HLTHUNK_2.1, and keep finding it; a new link records
 * name@HLTHUNK_2.3. The definition's object symbol is name__HLTHUNK_2_3
 * (an asm label): GNU ld drops a plain "name" beside a versioned one, so
 * both versions are given by .symver, to that symbol and to its alias
 * name__HLTHUNK_2_1. In libhlthunk.a, a reference to @name resolves to the
 * default name@@HLTHUNK_2.3 as it does in the shared library.
 */
#define HLTHUNK_MOVED_FROM_2_1(name)					\
	extern __typeof__(name) name __asm__(#name "__HLTHUNK_2_3");	\
	extern __typeof__(name) name##__HLTHUNK_2_1			\
		__attribute__((alias(#name "__HLTHUNK_2_3"),		\
			       visibility("default")));			\
	__asm__(".symver " #name "__HLTHUNK_2_3, " #name "@@HLTHUNK_2.3\n\t" \
		".symver " #name "__HLTHUNK_2_1, " #name "@HLTHUNK_2.1")

/*
 * hlthunk_ioctl() - ioctl(2) for a request that does not wait on a caller's
 * timeout. EINTR (the driver did nothing) is retried at once: each retry
 * follows a signal, never a spin. EAGAIN (back-pressure: HL_IOCTL_CS with
 * max_pending_cs submissions in flight) is retried after a sleep that
 * doubles from HLTHUNK_BACKOFF_MIN_US to HLTHUNK_BACKOFF_MAX_US, so that a
 * full queue costs the caller a few hundred wake-ups a second, not a CPU.
 * The wait ends when the driver has room, which it bounds (no job runs past
 * its job_timeout_max).
 * Return: the ioctl's non-negative result, or -errno with errno set.
 */
hlthunk_internal int hlthunk_ioctl(int fd, unsigned long request, void *arg);

#define HLTHUNK_BACKOFF_MIN_US	20
#define HLTHUNK_BACKOFF_MAX_US	16000

/*
 * A deadline for the requests that wait (WAIT_CS, NIC CQ_WAIT): an
 * interrupted wait is resumed with the time left, never the whole timeout.
 */
struct hlthunk_deadline {
	uint64_t end_ns;	/* CLOCK_MONOTONIC; 0: no limit */
};

/*
 * hlthunk_deadline_start() - the deadline @timeout_us from now; a timeout
 * at or above @forever_us (or one that overflows) has none.
 */
hlthunk_internal void hlthunk_deadline_start(struct hlthunk_deadline *d,
					     uint64_t timeout_us,
					     uint64_t forever_us);

/*
 * hlthunk_deadline_left_us() - microseconds left until @d (rounded up), 0
 * when it has passed; @timeout_us unchanged when @d has no limit.
 */
hlthunk_internal uint64_t hlthunk_deadline_left_us(const struct hlthunk_deadline *d,
						   uint64_t timeout_us);

/* ioctl(2) once: the non-negative result, or -errno with errno set */
hlthunk_internal int hlthunk_ioctl_once(int fd, unsigned long request,
					void *arg);

/*
 * The struct-size rule: a library never writes or reads more of a caller's
 * struct than the caller's build allocated.
 *
 * hl-thunk's structs (struct hlthunk_hw_ip_info, ...; hl-thunk's fixed
 * signatures): the library copies exactly the size of hl-thunk's struct,
 * which these never outgrow (tests/symbols/check compares the layouts with
 * hl-thunk-open's). A field hl-thunk adds later goes into a new function.
 *
 * The driver's uAPI structs, which may grow: a function released in
 * HLTHUNK_2.0 copies the struct's size at 2.0 (below), whatever the uAPI
 * header it is built with says; the _ex functions (HLTHUNK_2.1) take the
 * caller's sizeof, as rdma-core's ibv_query_device_ex() does.
 */
#define HLTHUNK_SIZEOF_HW_IP_INFO		336	/* hl-thunk's, LP64 */
#define HLTHUNK_2_0_SIZEOF_INFO_ARGS		24
#define HLTHUNK_2_0_SIZEOF_HW_IP_INFO		352
/*
 * The misc-era upstream struct hl_info_hw_ip_info (linux-libc-dev 6.1's
 * <misc/habanalabs.h>), whose fields this one keeps at their offsets: the
 * smallest size hlthunk_get_hw_ip_info_ex() accepts, for a consumer built
 * with upstream's header
 */
#define HLTHUNK_UPSTREAM_SIZEOF_HW_IP_INFO	256
#define HLTHUNK_2_0_SIZEOF_NIC_PORTS		1544
#define HLTHUNK_2_0_SIZEOF_PAGE_FAULT_EVENT	32
#define HLTHUNK_2_0_SIZEOF_NIC_QUERY_CONN_OUT	32
#define HLTHUNK_2_0_SIZEOF_NIC_CQ_POLL_WAIT_OUT	16
#define HLTHUNK_2_0_SIZEOF_NIC_REQ_CONN_CTX	40
#define HLTHUNK_2_0_SIZEOF_NIC_RES_CONN_CTX	40

#if defined(__LP64__)
_Static_assert(sizeof(struct hlthunk_hw_ip_info) == HLTHUNK_SIZEOF_HW_IP_INFO,
	       "struct hlthunk_hw_ip_info is hl-thunk's: it cannot grow");
#endif
_Static_assert(sizeof(struct hl_info_args) >= HLTHUNK_2_0_SIZEOF_INFO_ARGS &&
	       sizeof(struct hl_info_hw_ip_info) >= HLTHUNK_2_0_SIZEOF_HW_IP_INFO &&
	       sizeof(struct hl_info_nic_ports) >= HLTHUNK_2_0_SIZEOF_NIC_PORTS &&
	       sizeof(struct hl_info_page_fault_event) >=
			HLTHUNK_2_0_SIZEOF_PAGE_FAULT_EVENT &&
	       sizeof(struct hl_nic_query_conn_out) >=
			HLTHUNK_2_0_SIZEOF_NIC_QUERY_CONN_OUT &&
	       sizeof(struct hl_nic_cq_poll_wait_out) >=
			HLTHUNK_2_0_SIZEOF_NIC_CQ_POLL_WAIT_OUT &&
	       sizeof(struct hl_nic_req_conn_ctx_in) >=
			HLTHUNK_2_0_SIZEOF_NIC_REQ_CONN_CTX &&
	       sizeof(struct hl_nic_res_conn_ctx_in) >=
			HLTHUNK_2_0_SIZEOF_NIC_RES_CONN_CTX,
	       "a uAPI struct shrank below its size at libhlthunk 2.0");

/*
 * Copy the library's @src (@src_size bytes) to the caller's @dst of
 * @dst_size bytes: what both have, then zeroes for the caller's fields the
 * library does not know.
 */
static inline void hlthunk_copy_out(void *dst, size_t dst_size,
				    const void *src, size_t src_size)
{
	size_t n = dst_size < src_size ? dst_size : src_size;

	memcpy(dst, src, n);
	if (dst_size > n)
		memset((char *)dst + n, 0, dst_size - n);
}

/*
 * Copy the caller's @src of @src_size bytes into the library's zeroed
 * @dst of @dst_size bytes. Return 0, or -EINVAL when the caller's struct
 * has non-zero bytes in fields the library does not know (a request this
 * library cannot honour).
 */
static inline int hlthunk_copy_in(void *dst, size_t dst_size,
				  const void *src, size_t src_size)
{
	size_t i;

	memset(dst, 0, dst_size);
	memcpy(dst, src, src_size < dst_size ? src_size : dst_size);
	for (i = dst_size; i < src_size; i++)
		if (((const unsigned char *)src)[i])
			return -EINVAL;
	return 0;
}

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

/*
 * A CS's chunks, flags and timeout from hl-thunk's hlthunk_cs_in into
 * @args (zeroed by the caller); as hl-thunk, a custom timeout is flagged
 */
static inline void hlthunk_cs_args_fill(union hl_cs_args *args,
					const struct hlthunk_cs_in *in,
					uint32_t timeout)
{
	args->in.chunks_restore = hlthunk_ptr_to_u64(in->chunks_restore);
	args->in.chunks_execute = hlthunk_ptr_to_u64(in->chunks_execute);
	args->in.num_chunks_restore = in->num_chunks_restore;
	args->in.num_chunks_execute = in->num_chunks_execute;
	args->in.cs_flags = in->flags;
	if (timeout) {
		args->in.cs_flags |= HL_CS_FLAGS_CUSTOM_TIMEOUT;
		args->in.timeout = timeout;
	}
}

#endif /* HLTHUNK_INTERNAL_H */

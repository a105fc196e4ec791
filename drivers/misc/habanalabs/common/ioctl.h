/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: the ioctl dispatcher (habanalabs_ioctl.c): the entry points
 * of both nodes and what a handler may ask of the dispatcher.
 */
#ifndef HL_IOCTL_H_
#define HL_IOCTL_H_

#include <linux/build_bug.h>
#include <linux/compiler_types.h>
#include <linux/types.h>

struct file;
struct hl_fpriv;

/* One ioctl call in progress; the dispatcher's, opaque to handlers */
struct hl_ioctl_call;

long hl_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);
long hl_ioctl_control(struct file *filp, unsigned int cmd, unsigned long arg);
void __hl_ioctl_defer_fd_install(struct hl_ioctl_call *call, int fd,
				 struct file *file);
void __hl_ioctl_no_output(struct hl_ioctl_call *call);
typedef void hl_ioctl_finish_t(struct hl_fpriv *fpriv, void *priv, u64 id,
			       bool committed);
void __hl_ioctl_on_finish(struct hl_ioctl_call *call, hl_ioctl_finish_t *finish,
			  void *priv, u64 id);
typedef void hl_ioctl_drop_t(void *priv);
void __hl_ioctl_on_finish_file(struct hl_ioctl_call *call,
			       hl_ioctl_finish_t *finish, void *priv, u64 id);
void __hl_ioctl_on_drop(struct hl_ioctl_call *call, hl_ioctl_drop_t *drop);
int __hl_ioctl_copy_out(struct hl_ioctl_call *call, u64 to, const void *src,
			u32 size);

/*
 * The requests a handler makes of the dispatcher take the call the handler
 * was handed. Through these macros anything else fails to build, where a
 * void pointer (the handler's argument, say) would convert silently.
 */
#define HL_IOCTL_CALL(call)						\
	({								\
		typeof(call) __call = (call);				\
									\
		static_assert(__same_type(__call,			\
					  struct hl_ioctl_call *),	\
			      "not the handler's struct hl_ioctl_call *"); \
		__call;							\
	})
#define hl_ioctl_defer_fd_install(call, fd, file)			\
	__hl_ioctl_defer_fd_install(HL_IOCTL_CALL(call), fd, file)
#define hl_ioctl_no_output(call)					\
	__hl_ioctl_no_output(HL_IOCTL_CALL(call))
#define hl_ioctl_on_finish(call, finish, priv, id)			\
	__hl_ioctl_on_finish(HL_IOCTL_CALL(call), finish, priv, id)
#define hl_ioctl_on_finish_file(call, finish, priv, id)		\
	__hl_ioctl_on_finish_file(HL_IOCTL_CALL(call), finish, priv, id)
#define hl_ioctl_on_drop(call, drop)					\
	__hl_ioctl_on_drop(HL_IOCTL_CALL(call), drop)
#define hl_ioctl_copy_out(call, to, src, size)				\
	__hl_ioctl_copy_out(HL_IOCTL_CALL(call), to, src, size)

#endif /* HL_IOCTL_H_ */

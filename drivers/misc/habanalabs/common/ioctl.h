/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs: the ioctl dispatcher (habanalabs_ioctl.c): the entry points
 * of both nodes and what a handler may ask of the dispatcher.
 */
#ifndef HL_IOCTL_H_
#define HL_IOCTL_H_

#include <linux/types.h>

struct file;
struct hl_fpriv;

/* One ioctl call in progress; the dispatcher's, opaque to handlers */
struct hl_ioctl_call;

long hl_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);
long hl_ioctl_control(struct file *filp, unsigned int cmd, unsigned long arg);
void hl_ioctl_defer_fd_install(struct hl_ioctl_call *call, int fd,
			       struct file *file);
void hl_ioctl_no_output(struct hl_ioctl_call *call);
typedef void hl_ioctl_finish_t(struct hl_fpriv *fpriv, void *priv, u64 id,
			       bool committed);
void hl_ioctl_on_finish(struct hl_ioctl_call *call, hl_ioctl_finish_t *finish,
			void *priv, u64 id);
typedef void hl_ioctl_drop_t(void *priv);
void hl_ioctl_on_finish_file(struct hl_ioctl_call *call,
			     hl_ioctl_finish_t *finish, void *priv, u64 id);
void hl_ioctl_on_drop(struct hl_ioctl_call *call, hl_ioctl_drop_t *drop);
int hl_ioctl_copy_out(struct hl_ioctl_call *call, u64 to, const void *src,
		      u32 size);

#endif /* HL_IOCTL_H_ */

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

long hl_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);
long hl_ioctl_control(struct file *filp, unsigned int cmd, unsigned long arg);
void hl_ioctl_defer_fd_install(void *data, int fd, struct file *file);
void hl_ioctl_no_output(void *data);
typedef void hl_ioctl_finish_t(struct hl_fpriv *fpriv, void *priv, u64 id,
			       bool committed);
void hl_ioctl_on_finish(void *data, hl_ioctl_finish_t *finish, void *priv,
			u64 id);
typedef void hl_ioctl_drop_t(void *priv);
void hl_ioctl_on_finish_file(void *data, hl_ioctl_finish_t *finish,
			     void *priv, u64 id);
void hl_ioctl_on_drop(void *data, hl_ioctl_drop_t *drop);
int hl_ioctl_copy_out(void *data, u64 to, const void *src, u32 size);

#endif /* HL_IOCTL_H_ */

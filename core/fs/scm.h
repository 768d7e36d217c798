/* SCM_RIGHTS control messages (scm.c). */
#ifndef BAREMON_FS_SCM_H
#define BAREMON_FS_SCM_H

#include <stdbool.h>
#include <stddef.h>
#include "core/proc/syscall.h"
#include "socket.h"

/* sendmsg: the descriptors of the control buffer (len bytes at ctl) as
 * one set with a reference to each file (*out NULL if none), or -errno
 * (EBADF, EINVAL, EFAULT, ENOBUFS). */
long scm_from_user(const void __user *ctl, size_t len, struct scm_rights **out);
/* recvmsg: install r's files as new descriptors and write the
 * SCM_RIGHTS message into the control buffer; returns the control bytes
 * used (the new msg_controllen). r is consumed. */
long scm_to_user(struct scm_rights *r, void __user *ctl, size_t len, bool cloexec,
		 int *msg_flags);

#endif

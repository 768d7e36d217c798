/*
 * Control messages of AF_UNIX sendmsg/recvmsg: SCM_RIGHTS passes open
 * files (a reference each while in flight, a new descriptor in the
 * receiver), SCM_CREDENTIALS is accepted and not carried. Linux's
 * rules: messages of other levels are skipped, at most SCM_MAX_FD
 * descriptors per send, a control buffer too small for what came sets
 * MSG_CTRUNC and closes the rest.
 */
#include "core/mm/mm.h"
#include "core/mm/uaccess.h"
#include "core/proc/task.h"
#include "scm.h"
#include "socket.h"

#define CONTROL_MAX 20480 /* Linux's optmem_max: more is ENOBUFS */

void scm_rights_free(struct scm_rights *r)
{
	while (r) {
		struct scm_rights *next = r->next;
		for (int i = 0; i < r->n; i++)
			if (r->files[i])
				file_put(r->files[i]);
		kfree(r);
		r = next;
	}
}

/* Add the descriptors of one SCM_RIGHTS message to *set. */
static int take_fds(const int *fds, int n, struct scm_rights **set)
{
	int have = *set ? (*set)->n : 0;
	if (have + n > SCM_MAX_FD)
		return -EINVAL;
	struct scm_rights *r = kmalloc(sizeof(*r) + sizeof(struct file *) * (size_t)(have + n));
	if (!r)
		return -ENOMEM;
	r->next = NULL;
	r->n = have;
	if (*set)
		memcpy(r->files, (*set)->files, sizeof(struct file *) * (size_t)have);
	kfree(*set);
	*set = r;
	for (int i = 0; i < n; i++) {
		struct file *f = fds[i] < 0 ? NULL : fget(fds[i]);
		if (!f)
			return -EBADF;
		r->files[r->n++] = f;
	}
	return 0;
}

/* Walk a kernel copy of the control buffer. */
static int parse(const uint8_t *buf, size_t len, struct scm_rights **out)
{
	size_t off = 0;
	while (len - off >= sizeof(struct cmsghdr)) {
		const struct cmsghdr *c = (const struct cmsghdr *)(buf + off);
		if (c->cmsg_len < sizeof(*c) || c->cmsg_len > len - off)
			return -EINVAL;
		size_t data = c->cmsg_len - sizeof(*c);
		if (c->cmsg_level == SOL_SOCKET) {
			int r = 0;
			if (c->cmsg_type == SCM_RIGHTS)
				r = take_fds((const int *)(c + 1), (int)(data / sizeof(int)), out);
			else if (c->cmsg_type != SCM_CREDENTIALS || data != sizeof(struct ucred))
				r = -EINVAL;
			if (r)
				return r;
		}
		off += CMSG_ALIGN(c->cmsg_len);
		if (off > len)
			break;
	}
	return 0;
}

long scm_from_user(const void __user *ctl, size_t len, struct scm_rights **out)
{
	*out = NULL;
	if (!len)
		return 0;
	if (len > CONTROL_MAX)
		return -ENOBUFS;
	uint8_t *buf = kmalloc(len);
	if (!buf)
		return -ENOMEM;
	long r = copy_from_user(buf, ctl, len) ? -EFAULT : parse(buf, len, out);
	kfree(buf);
	if (r) {
		scm_rights_free(*out);
		*out = NULL;
	}
	return r;
}

long scm_to_user(struct scm_rights *r, void __user *ctl, size_t len, bool cloexec,
		 int *msg_flags)
{
	if (!r)
		return 0;
	size_t room = len > sizeof(struct cmsghdr)
		? (len - sizeof(struct cmsghdr)) / sizeof(int) : 0;
	int want = r->n, n = 0;
	int fds[SCM_MAX_FD];
	for (int i = 0; i < want && (size_t)n < room; i++) {
		int fd = fd_install(current->files, r->files[i], cloexec ? O_CLOEXEC : 0);
		if (fd < 0)
			break;
		r->files[i] = NULL; /* the table's reference now */
		fds[n++] = fd;
	}
	if (n < want)
		*msg_flags |= MSG_CTRUNC;
	scm_rights_free(r); /* what did not fit is closed */
	if (!n)
		return 0;
	struct cmsghdr h = { CMSG_LEN(sizeof(int) * (size_t)n), SOL_SOCKET, SCM_RIGHTS };
	if (copy_to_user(ctl, &h, sizeof(h)) ||
	    copy_to_user((uint8_t __user *)ctl + sizeof(h), fds, sizeof(int) * (size_t)n))
		return -EFAULT;
	size_t used = CMSG_SPACE(sizeof(int) * (size_t)n);
	return (long)(used < len ? used : len);
}

/*
 * open, openat, creat, close, close_range. The descriptor is reserved
 * before the path is resolved, so a full table fails with EMFILE first,
 * as on Linux.
 */
#include <linux/close_range.h>
#include "mm/mm.h"
#include "sys.h"

static long do_openat(int dirfd, uint64_t upath, int flags, int mode)
{
	long err;
	char *path = user_path(upath, false, &err);
	if (!path)
		return err;
	struct files *files = current->files;
	int fd = fd_reserve(files, flags & O_CLOEXEC);
	struct path start;
	const struct path *sp = NULL;
	struct file *f = NULL;
	int r = fd < 0 ? fd : at_start(dirfd, path, &start, &sp);
	if (!r)
		r = vfs_openat(current->fs, sp, path, flags, mode, &f);
	at_end(sp);
	kfree(path);
	if (fd >= 0)
		fd_commit(files, fd, r ? NULL : f);
	return r ? r : fd;
}

SYSCALL_DEFINE(open)
{
	return do_openat(AT_FDCWD, a0, (int)a1, (int)a2);
}

SYSCALL_DEFINE(openat)
{
	return do_openat((int)a0, a1, (int)a2, (int)a3);
}

SYSCALL_DEFINE(creat)
{
	return do_openat(AT_FDCWD, a0, O_CREAT | O_WRONLY | O_TRUNC, (int)a1);
}

SYSCALL_DEFINE(close)
{
	if ((uint32_t)a0 > INT32_MAX)
		return -EBADF;
	return fd_close(current->files, (int)(uint32_t)a0);
}

SYSCALL_DEFINE(close_range)
{
	unsigned first = (unsigned)a0, last = (unsigned)a1, flags = (unsigned)a2;
	if (flags & ~(unsigned)(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC))
		return -EINVAL;
	if (first > last)
		return -EINVAL;
	struct files *files = current->files;
	for (unsigned fd = first; fd <= last && fd < MAX_FDS; fd++) {
		if (flags & CLOSE_RANGE_CLOEXEC)
			fd_set_cloexec(files, (int)fd, true);
		else
			fd_close(files, (int)fd);
	}
	return 0;
}

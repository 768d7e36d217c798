/*
 * open, openat, creat, close, close_range. The descriptor is reserved
 * before the path is resolved, so a full table fails with EMFILE first,
 * as on Linux.
 */
#include <linux/close_range.h>
#include "core/mm/mm.h"
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

SYSCALL_DEFINE3(open, uint64_t, upath, int, flags, int, mode)
{
	return do_openat(AT_FDCWD, upath, flags, mode);
}

SYSCALL_DEFINE4(openat, int, dfd, uint64_t, upath, int, flags, int, mode)
{
	return do_openat(dfd, upath, flags, mode);
}

SYSCALL_DEFINE2(creat, uint64_t, upath, int, mode)
{
	return do_openat(AT_FDCWD, upath, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

SYSCALL_DEFINE1(close, unsigned int, fd)
{
	if (fd > INT32_MAX)
		return -EBADF;
	return fd_close(current->files, (int)fd);
}

SYSCALL_DEFINE3(close_range, unsigned int, first, unsigned int, last, unsigned int, flags)
{
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

/*
 * truncate, ftruncate, fsync, fdatasync, sync, syncfs, umask. Nothing
 * here is backed by a disk, so the sync calls only check their argument.
 */
#include "mm/mm.h"
#include "sys.h"

SYSCALL_DEFINE(truncate)
{
	if ((int64_t)a1 < 0)
		return -EINVAL;
	long err;
	char *path = user_path(a0, false, &err);
	if (!path)
		return err;
	int r = vfs_truncate(path, (int64_t)a1);
	kfree(path);
	return r;
}

SYSCALL_DEFINE(ftruncate)
{
	if ((int64_t)a1 < 0)
		return -EINVAL;
	struct file *f = task_file_io(a0);
	if (!f)
		return -EBADF;
	int r = -EINVAL;
	if (S_ISREG(f->path.inode->mode) && (f->fmode & FMODE_WRITE))
		r = vfs_truncate_inode(f->path.inode, (int64_t)a1);
	file_put(f);
	return r;
}

static long sync_fd(uint64_t fd)
{
	struct file *f = task_file_io(fd);
	if (!f)
		return -EBADF;
	uint32_t mode = f->path.inode->mode;
	file_put(f);
	return S_ISREG(mode) || S_ISDIR(mode) ? 0 : -EINVAL;
}

SYSCALL_DEFINE(fsync)
{
	return sync_fd(a0);
}

SYSCALL_DEFINE(fdatasync)
{
	return sync_fd(a0);
}

SYSCALL_DEFINE(sync)
{
	return 0;
}

SYSCALL_DEFINE(syncfs)
{
	struct file *f = task_file(a0);
	file_put(f);
	return f ? 0 : -EBADF;
}

SYSCALL_DEFINE(umask)
{
	struct fs_context *fs = current->fs;
	return __atomic_exchange_n(&fs->umask, (unsigned)a0 & 0777, __ATOMIC_RELAXED);
}

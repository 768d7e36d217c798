/*
 * truncate, ftruncate, fsync, fdatasync, sync, syncfs, umask. Nothing
 * here is backed by a disk, so the sync calls only check their argument.
 */
#include "core/mm/mm.h"
#include "sys.h"

SYSCALL_DEFINE2(truncate, uint64_t, upath, long, length)
{
	if (length < 0)
		return -EINVAL;
	long err;
	char *path = user_path(upath, false, &err);
	if (!path)
		return err;
	int r = vfs_truncate(path, length);
	kfree(path);
	return r;
}

SYSCALL_DEFINE2(ftruncate, unsigned int, fd, long, length)
{
	if (length < 0)
		return -EINVAL;
	struct file *f = task_file_io(fd);
	if (!f)
		return -EBADF;
	int r = -EINVAL;
	if (S_ISREG(f->path.inode->mode) && (f->fmode & FMODE_WRITE))
		r = vfs_truncate_inode(f->path.inode, length);
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

SYSCALL_DEFINE1(fsync, unsigned int, fd)
{
	return sync_fd(fd);
}

SYSCALL_DEFINE1(fdatasync, unsigned int, fd)
{
	return sync_fd(fd);
}

SYSCALL_DEFINE0(sync)
{
	return 0;
}

SYSCALL_DEFINE1(syncfs, unsigned int, fd)
{
	struct file *f = task_file(fd);
	file_put(f);
	return f ? 0 : -EBADF;
}

SYSCALL_DEFINE1(umask, unsigned int, mask)
{
	struct fs_context *fs = current->fs;
	return __atomic_exchange_n(&fs->umask, mask & 0777, __ATOMIC_RELAXED);
}

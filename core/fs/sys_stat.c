/*
 * stat, fstat, lstat, newfstatat, statx; access, faccessat, faccessat2;
 * readlink, readlinkat.
 */
#include "core/mm/mm.h"
#include "sys.h"

#define STAT_AT_FLAGS (AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH)

static long stat_out(struct path *p, uint64_t ubuf)
{
	struct stat st;
	inode_fill_stat(p->inode, &st);
	path_put(p);
	return copy_to_user((void *)ubuf, &st, sizeof(st));
}

static long do_fstatat(int dirfd, uint64_t upath, uint64_t ubuf, int flags)
{
	if (flags & ~STAT_AT_FLAGS)
		return -EINVAL;
	struct path p;
	int r = resolve_at(dirfd, upath, flags & AT_EMPTY_PATH,
			   !(flags & AT_SYMLINK_NOFOLLOW), &p);
	return r ? r : stat_out(&p, ubuf);
}

SYSCALL_DEFINE2(stat, uint64_t, upath, uint64_t, ubuf)
{
	return do_fstatat(AT_FDCWD, upath, ubuf, 0);
}

SYSCALL_DEFINE2(lstat, uint64_t, upath, uint64_t, ubuf)
{
	return do_fstatat(AT_FDCWD, upath, ubuf, AT_SYMLINK_NOFOLLOW);
}

SYSCALL_DEFINE4(newfstatat, int, dfd, uint64_t, upath, uint64_t, ubuf, int, flags)
{
	return do_fstatat(dfd, upath, ubuf, flags);
}

SYSCALL_DEFINE2(fstat, unsigned int, fd, uint64_t, ubuf)
{
	struct file *f = task_file(fd);
	if (!f)
		return -EBADF;
	struct path p = f->path;
	path_get(&p);
	file_put(f);
	return stat_out(&p, ubuf);
}

/* ---- statx ---- */

static struct statx_timestamp stx_time(uint64_t ns)
{
	return (struct statx_timestamp){ .tv_sec = (int64_t)(ns / 1000000000),
					 .tv_nsec = (uint32_t)(ns % 1000000000) };
}

static void fill_statx(struct inode *ino, struct statx *sx)
{
	memset(sx, 0, sizeof(*sx));
	sx->stx_mask = STATX_BASIC_STATS;
	sx->stx_blksize = 4096;
	sx->stx_nlink = ino->nlink;
	sx->stx_uid = ino->uid;
	sx->stx_gid = ino->gid;
	sx->stx_mode = (uint16_t)ino->mode;
	sx->stx_ino = ino->ino;
	sx->stx_size = ino->size;
	sx->stx_blocks = S_ISREG(ino->mode) ? ALIGN_UP(ino->size, 4096) / 512 : 0;
	sx->stx_atime = stx_time(ino->atime);
	sx->stx_ctime = stx_time(ino->ctime);
	sx->stx_mtime = stx_time(ino->mtime);
	sx->stx_rdev_major = (ino->rdev >> 8) & 0xfff;
	sx->stx_rdev_minor = (ino->rdev & 0xff) | ((ino->rdev >> 12) & 0xfff00);
	sx->stx_dev_major = 0;
	sx->stx_dev_minor = ino->sb->dev;
}

SYSCALL_DEFINE5(statx, int, dfd, uint64_t, upath, int, flags, unsigned int, mask,
		struct statx __user *, buffer)
{
	if (flags & ~(STAT_AT_FLAGS | AT_STATX_SYNC_TYPE))
		return -EINVAL;
	if ((flags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE)
		return -EINVAL;
	if (mask & STATX__RESERVED)
		return -EINVAL;
	struct path p;
	int r = resolve_at(dfd, upath, flags & AT_EMPTY_PATH,
			   !(flags & AT_SYMLINK_NOFOLLOW), &p);
	if (r)
		return r;
	struct statx sx;
	fill_statx(p.inode, &sx);
	path_put(&p);
	return copy_to_user(buffer, &sx, sizeof(sx));
}

/* ---- access ---- */

static long do_access(int dirfd, uint64_t upath, int mode, int flags)
{
	/* R_OK, W_OK, X_OK have the values of MAY_READ, MAY_WRITE, MAY_EXEC */
	if (mode & ~(MAY_READ | MAY_WRITE | MAY_EXEC))
		return -EINVAL;
	if (flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	struct path p;
	int r = resolve_at(dirfd, upath, flags & AT_EMPTY_PATH,
			   !(flags & AT_SYMLINK_NOFOLLOW), &p);
	if (r)
		return r;
	uint32_t uid, gid;
	current_ids(&uid, &gid, !(flags & AT_EACCESS));
	if (mode != 0)     /* F_OK: existence only */
		r = inode_access(p.inode, mode, uid, gid);
	path_put(&p);
	return r;
}

SYSCALL_DEFINE2(access, uint64_t, upath, int, mode)
{
	return do_access(AT_FDCWD, upath, mode, 0);
}

SYSCALL_DEFINE3(faccessat, int, dfd, uint64_t, upath, int, mode)
{
	return do_access(dfd, upath, mode, 0);
}

SYSCALL_DEFINE4(faccessat2, int, dfd, uint64_t, upath, int, mode, int, flags)
{
	return do_access(dfd, upath, mode, flags);
}

/* ---- readlink ---- */

static long do_readlinkat(int dirfd, uint64_t upath, uint64_t ubuf, int size)
{
	if (size <= 0)
		return -EINVAL;
	struct path p;
	int r = resolve_at(dirfd, upath, true, false, &p);
	if (r)
		return r;
	char *buf = kmalloc(PATH_MAX);
	if (!buf)
		r = -ENOMEM;
	else if (!S_ISLNK(p.inode->mode) || !p.inode->ops->readlink)
		r = -EINVAL;
	else
		r = p.inode->ops->readlink(p.inode, buf, PATH_MAX);
	path_put(&p);
	if (r > PATH_MAX)
		r = PATH_MAX;
	if (r > size)
		r = size;
	if (r > 0 && copy_to_user((void *)ubuf, buf, (size_t)r))
		r = -EFAULT;
	kfree(buf);
	return r;
}

SYSCALL_DEFINE3(readlink, uint64_t, upath, uint64_t, ubuf, int, bufsiz)
{
	return do_readlinkat(AT_FDCWD, upath, ubuf, bufsiz);
}

SYSCALL_DEFINE4(readlinkat, int, dfd, uint64_t, upath, uint64_t, ubuf, int, bufsiz)
{
	return do_readlinkat(dfd, upath, ubuf, bufsiz);
}

/*
 * Directory system calls: getdents64, getcwd, chdir, fchdir, mkdir(at),
 * rmdir, unlink(at), rename(at, at2), symlink(at), chmod, fchmod,
 * fchmodat.
 */
#include "mm/mm.h"
#include "sys.h"

/* Linux's record layout (not in the uapi headers). */
struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	uint16_t d_reclen;
	uint8_t d_type;
	char d_name[];
};

struct dents {
	char *buf;
	size_t used, cap;
	bool full;
};

static bool emit_dent(void *arg, const char *name, size_t len, uint64_t ino,
		      unsigned type, uint64_t next)
{
	struct dents *d = arg;
	size_t reclen = ALIGN_UP(offsetof(struct linux_dirent64, d_name) + len + 1, 8);
	if (d->used + reclen > d->cap) {
		d->full = true;
		return false;
	}
	struct linux_dirent64 *e = (void *)(d->buf + d->used);
	memset(e, 0, reclen);
	e->d_ino = ino;
	e->d_off = (int64_t)next;
	e->d_reclen = (uint16_t)reclen;
	e->d_type = (uint8_t)type;
	memcpy(e->d_name, name, len);
	d->used += reclen;
	return true;
}

SYSCALL_DEFINE(getdents64)
{
	struct file *f = task_file(a0);
	if (!f)
		return -EBADF;
	size_t count = a2 < 65536 ? a2 : 65536;
	struct dents d = { .cap = count };
	long r = user_range_ok(a1, a2) ? 0 : -EFAULT;
	if (!r && !(d.buf = kmalloc(count ? count : 1)))
		r = -ENOMEM;
	if (!r)
		r = vfs_readdir(f, emit_dent, &d);
	if (!r && d.used == 0 && d.full)
		r = -EINVAL;         /* buffer too small for one entry */
	if (!r)
		r = copy_to_user((void *)a1, d.buf, d.used) ? -EFAULT : (long)d.used;
	kfree(d.buf);
	file_put(f);
	return r;
}

SYSCALL_DEFINE(getcwd)
{
	char *buf = kmalloc(PATH_MAX);
	if (!buf)
		return -ENOMEM;
	long r = vfs_getcwd(current->fs, buf, a1 < PATH_MAX ? a1 : PATH_MAX);
	if (r > 0 && copy_to_user((void *)a0, buf, (size_t)r))
		r = -EFAULT;
	kfree(buf);
	return r;
}

SYSCALL_DEFINE(chdir)
{
	long err;
	char *path = user_path(a0, false, &err);
	if (!path)
		return err;
	int r = vfs_chdir(current->fs, path);
	kfree(path);
	return r;
}

SYSCALL_DEFINE(fchdir)
{
	struct file *f = task_file(a0);
	if (!f)
		return -EBADF;
	int r = vfs_fchdir(current->fs, f);
	file_put(f);
	return r;
}

/* What the one-path *at calls do once the path and start are known. */
enum path_op { OP_MKDIR, OP_RMDIR, OP_UNLINK };

static long path_call(int dirfd, uint64_t upath, enum path_op op, int mode)
{
	long err;
	char *path = user_path(upath, false, &err);
	if (!path)
		return err;
	struct path start;
	const struct path *sp;
	int r = at_start(dirfd, path, &start, &sp);
	struct fs_context *fs = current->fs;
	if (!r && op == OP_MKDIR)
		r = vfs_mkdirat(fs, sp, path, mode);
	else if (!r && op == OP_RMDIR)
		r = vfs_rmdirat(fs, sp, path);
	else if (!r)
		r = vfs_unlinkat(fs, sp, path);
	at_end(sp);
	kfree(path);
	return r;
}

SYSCALL_DEFINE(mkdir)
{
	return path_call(AT_FDCWD, a0, OP_MKDIR, (int)a1);
}

SYSCALL_DEFINE(mkdirat)
{
	return path_call((int)a0, a1, OP_MKDIR, (int)a2);
}

SYSCALL_DEFINE(rmdir)
{
	return path_call(AT_FDCWD, a0, OP_RMDIR, 0);
}

SYSCALL_DEFINE(unlink)
{
	return path_call(AT_FDCWD, a0, OP_UNLINK, 0);
}

SYSCALL_DEFINE(unlinkat)
{
	int flags = (int)a2;
	if (flags & ~AT_REMOVEDIR)
		return -EINVAL;
	return path_call((int)a0, a1, flags ? OP_RMDIR : OP_UNLINK, 0);
}

/* ---- two-path calls ---- */

static long do_renameat2(int odfd, uint64_t uold, int ndfd, uint64_t unew,
			 unsigned flags)
{
	long err;
	char *from = user_path(uold, false, &err);
	if (!from)
		return err;
	char *to = user_path(unew, false, &err);
	if (!to) {
		kfree(from);
		return err;
	}
	struct path ostart, nstart;
	const struct path *osp = NULL, *nsp = NULL;
	int r = at_start(odfd, from, &ostart, &osp);
	if (!r)
		r = at_start(ndfd, to, &nstart, &nsp);
	if (!r)
		r = vfs_renameat(current->fs, osp, from, nsp, to, flags);
	at_end(osp);
	at_end(nsp);
	kfree(from);
	kfree(to);
	return r;
}

SYSCALL_DEFINE(rename)
{
	return do_renameat2(AT_FDCWD, a0, AT_FDCWD, a1, 0);
}

SYSCALL_DEFINE(renameat)
{
	return do_renameat2((int)a0, a1, (int)a2, a3, 0);
}

SYSCALL_DEFINE(renameat2)
{
	return do_renameat2((int)a0, a1, (int)a2, a3, (unsigned)a4);
}

static long do_symlinkat(uint64_t utarget, int dirfd, uint64_t upath)
{
	long err;
	char *target = user_path(utarget, false, &err);
	if (!target)
		return err;
	char *path = user_path(upath, false, &err);
	if (!path) {
		kfree(target);
		return err;
	}
	struct path start;
	const struct path *sp;
	int r = at_start(dirfd, path, &start, &sp);
	if (!r)
		r = vfs_symlinkat(current->fs, sp, target, path);
	at_end(sp);
	kfree(path);
	kfree(target);
	return r;
}

SYSCALL_DEFINE(symlink)
{
	return do_symlinkat(a0, AT_FDCWD, a1);
}

SYSCALL_DEFINE(symlinkat)
{
	return do_symlinkat(a0, (int)a1, a2);
}

/* ---- modes ---- */

static long chmod_at(int dirfd, uint64_t upath, uint32_t mode)
{
	struct path p;
	int r = resolve_at(dirfd, upath, false, true, &p);
	if (r)
		return r;
	r = vfs_chmod_inode(p.inode, mode);
	path_put(&p);
	return r;
}

SYSCALL_DEFINE(chmod)
{
	return chmod_at(AT_FDCWD, a0, (uint32_t)a1);
}

SYSCALL_DEFINE(fchmodat)
{
	return chmod_at((int)a0, a1, (uint32_t)a2);
}

SYSCALL_DEFINE(fchmod)
{
	struct file *f = task_file_io(a0);
	if (!f)
		return -EBADF;
	int r = vfs_chmod_inode(f->path.inode, (uint32_t)a1);
	file_put(f);
	return r;
}

/*
 * Directory system calls: getdents64, getcwd, chdir, fchdir, mkdir(at),
 * rmdir, unlink(at), rename(at, at2), symlink(at), chmod, fchmod,
 * fchmodat.
 */
#include "core/mm/mm.h"
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

SYSCALL_DEFINE3(getdents64, unsigned int, fd, void __user *, dirent, size_t, count)
{
	struct file *f = task_file(fd);
	if (!f)
		return -EBADF;
	size_t cap = count < 65536 ? count : 65536;
	struct dents d = { .cap = cap };
	long r = user_range_ok((uint64_t)dirent, count) ? 0 : -EFAULT;
	if (!r && !(d.buf = kmalloc(cap ? cap : 1)))
		r = -ENOMEM;
	if (!r)
		r = vfs_readdir(f, emit_dent, &d);
	if (!r && d.used == 0 && d.full)
		r = -EINVAL;         /* buffer too small for one entry */
	if (!r)
		r = copy_to_user(dirent, d.buf, d.used) ? -EFAULT : (long)d.used;
	kfree(d.buf);
	file_put(f);
	return r;
}

SYSCALL_DEFINE2(getcwd, char __user *, ubuf, unsigned long, size)
{
	char *buf = kmalloc(PATH_MAX);
	if (!buf)
		return -ENOMEM;
	long r = vfs_getcwd(current->fs, buf, size < PATH_MAX ? size : PATH_MAX);
	if (r > 0 && copy_to_user(ubuf, buf, (size_t)r))
		r = -EFAULT;
	kfree(buf);
	return r;
}

SYSCALL_DEFINE1(chdir, uint64_t, upath)
{
	long err;
	char *path = user_path(upath, false, &err);
	if (!path)
		return err;
	int r = vfs_chdir(current->fs, path);
	kfree(path);
	return r;
}

SYSCALL_DEFINE1(fchdir, unsigned int, fd)
{
	struct file *f = task_file(fd);
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

SYSCALL_DEFINE2(mkdir, uint64_t, upath, int, mode)
{
	return path_call(AT_FDCWD, upath, OP_MKDIR, mode);
}

SYSCALL_DEFINE3(mkdirat, int, dfd, uint64_t, upath, int, mode)
{
	return path_call(dfd, upath, OP_MKDIR, mode);
}

SYSCALL_DEFINE1(rmdir, uint64_t, upath)
{
	return path_call(AT_FDCWD, upath, OP_RMDIR, 0);
}

SYSCALL_DEFINE1(unlink, uint64_t, upath)
{
	return path_call(AT_FDCWD, upath, OP_UNLINK, 0);
}

SYSCALL_DEFINE3(unlinkat, int, dfd, uint64_t, upath, int, flags)
{
	if (flags & ~AT_REMOVEDIR)
		return -EINVAL;
	return path_call(dfd, upath, flags ? OP_RMDIR : OP_UNLINK, 0);
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

SYSCALL_DEFINE2(rename, uint64_t, uold, uint64_t, unew)
{
	return do_renameat2(AT_FDCWD, uold, AT_FDCWD, unew, 0);
}

SYSCALL_DEFINE4(renameat, int, olddfd, uint64_t, uold, int, newdfd, uint64_t, unew)
{
	return do_renameat2(olddfd, uold, newdfd, unew, 0);
}

SYSCALL_DEFINE5(renameat2, int, olddfd, uint64_t, uold, int, newdfd, uint64_t, unew,
		unsigned int, flags)
{
	return do_renameat2(olddfd, uold, newdfd, unew, flags);
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

SYSCALL_DEFINE2(symlink, uint64_t, utarget, uint64_t, ulink)
{
	return do_symlinkat(utarget, AT_FDCWD, ulink);
}

SYSCALL_DEFINE3(symlinkat, uint64_t, utarget, int, newdfd, uint64_t, ulink)
{
	return do_symlinkat(utarget, newdfd, ulink);
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

SYSCALL_DEFINE2(chmod, uint64_t, upath, unsigned int, mode)
{
	return chmod_at(AT_FDCWD, upath, mode);
}

SYSCALL_DEFINE3(fchmodat, int, dfd, uint64_t, upath, unsigned int, mode)
{
	return chmod_at(dfd, upath, mode);
}

SYSCALL_DEFINE2(fchmod, unsigned int, fd, unsigned int, mode)
{
	struct file *f = task_file_io(fd);
	if (!f)
		return -EBADF;
	int r = vfs_chmod_inode(f->path.inode, mode);
	file_put(f);
	return r;
}

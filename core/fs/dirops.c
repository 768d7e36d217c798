/*
 * Changes to the directory tree (mkdir, rmdir, unlink, rename) and the
 * path-based queries (stat, readlink, truncate). The VFS checks what it
 * can see from the names and inodes, in Linux's order; the file system
 * checks the rest (ENOTEMPTY, renaming a directory into itself) under
 * its own lock.
 */
#include "fs.h"

static bool is_dot(const struct lastname *l)
{
	return l->len == 1 && l->name[0] == '.';
}

static bool is_dotdot(const struct lastname *l)
{
	return l->len == 2 && l->name[0] == '.' && l->name[1] == '.';
}

static unsigned umask_of(struct fs_context *fs)
{
	if (!fs)
		fs = fs_current();
	return fs ? fs->umask : 022;
}

static int may_change_dir(struct inode *dir)
{
	if (dir->nlink == 0)
		return -ENOENT;
	return inode_permission(dir, MAY_WRITE | MAY_EXEC);
}

/*
 * The parent directory of a name that is to be created. Returns -ENOENT
 * (the name is free: go ahead) with *dir held, or another errno (EEXIST
 * for ".", ".." or an existing entry) with nothing held.
 */
static int prepare_create(struct fs_context *fs, const struct path *start,
			  const char *path, struct path *dir, struct lastname *last)
{
	struct path child;
	int r = path_walk_parent(fs, start, path, dir, last);
	if (r)
		return r;
	if (last->len == 0 || is_dot(last) || is_dotdot(last)) {
		r = -EEXIST;
	} else if ((r = path_lookup_one(dir, last->name, last->len, &child)) == 0) {
		path_put(&child);
		r = -EEXIST;
	}
	if (r != -ENOENT)
		path_put(dir);
	return r;
}

int vfs_mkdirat(struct fs_context *fs, const struct path *start,
		const char *path, int mode)
{
	struct path dir;
	struct lastname last;
	int r = prepare_create(fs, start, path, &dir, &last);
	if (r != -ENOENT)
		return r;
	r = may_change_dir(dir.inode);
	if (!r) {
		uint32_t m = (uint32_t)mode & 01777 & ~umask_of(fs);
		r = dir.inode->ops->mkdir
			? dir.inode->ops->mkdir(dir.inode, last.name, last.len, m)
			: -EPERM;
	}
	path_put(&dir);
	return r;
}

/* Find the entry an rmdir/unlink/rename acts on (no symlink following).
 * If it is a mount point, child is the mounted root: see is_mounted. */
static int lookup_victim(struct path *dir, const struct lastname *last,
			 struct path *child)
{
	return path_lookup_one(dir, last->name, last->len, child);
}

static bool is_mounted(const struct path *dir, const struct path *child)
{
	return child->mnt != dir->mnt;
}

int vfs_rmdirat(struct fs_context *fs, const struct path *start,
		const char *path)
{
	struct path dir, child;
	struct lastname last;
	int r = path_walk_parent(fs, start, path, &dir, &last);
	if (r)
		return r;
	if (is_dot(&last))
		r = -EINVAL;
	else if (is_dotdot(&last))
		r = -ENOTEMPTY;
	else if (last.len == 0)
		r = -EBUSY;
	else if (dir.inode->sb->rdonly)
		r = -EROFS;
	else if ((r = lookup_victim(&dir, &last, &child)) == 0) {
		if (!S_ISDIR(child.inode->mode))
			r = -ENOTDIR;
		else if (is_mounted(&dir, &child))
			r = -EBUSY;
		else if (!(r = may_change_dir(dir.inode)))
			r = dir.inode->ops->rmdir
				? dir.inode->ops->rmdir(dir.inode, last.name, last.len)
				: -EPERM;
		path_put(&child);
	}
	path_put(&dir);
	return r;
}

int vfs_unlinkat(struct fs_context *fs, const struct path *start,
		 const char *path)
{
	struct path dir, child;
	struct lastname last;
	int r = path_walk_parent(fs, start, path, &dir, &last);
	if (r)
		return r;
	if (last.len == 0 || is_dot(&last) || is_dotdot(&last))
		r = -EISDIR;
	else if (dir.inode->sb->rdonly)
		r = -EROFS;
	else if ((r = lookup_victim(&dir, &last, &child)) == 0) {
		if (S_ISDIR(child.inode->mode))
			r = -EISDIR;
		else if (last.slash)
			r = -ENOTDIR;
		else if (!(r = may_change_dir(dir.inode)))
			r = dir.inode->ops->unlink
				? dir.inode->ops->unlink(dir.inode, last.name, last.len)
				: -EPERM;
		path_put(&child);
	}
	path_put(&dir);
	return r;
}

/* What a rename may replace: Linux's checks on the two inodes. */
static int rename_target_ok(struct inode *old, struct path *ndir,
			    const struct lastname *nlast, unsigned flags)
{
	struct path target;
	int r = lookup_victim(ndir, nlast, &target);
	if (r == -ENOENT)
		return nlast->slash && !S_ISDIR(old->mode) ? -ENOTDIR : 0;
	if (r)
		return r;
	if (is_mounted(ndir, &target))
		r = -EBUSY;
	else if (flags & RENAME_NOREPLACE)
		r = -EEXIST;
	else if (S_ISDIR(old->mode) && !S_ISDIR(target.inode->mode))
		r = -ENOTDIR;
	else if (!S_ISDIR(old->mode) && S_ISDIR(target.inode->mode))
		r = -EISDIR;
	else if (target.inode == old)
		r = 1;      /* same file: nothing to do */
	path_put(&target);
	return r;
}

static int rename_in(struct path *odir, const struct lastname *olast,
		     struct path *ndir, const struct lastname *nlast,
		     unsigned flags)
{
	struct path old;
	int r = lookup_victim(odir, olast, &old);
	if (r)
		return r;
	if (olast->slash && !S_ISDIR(old.inode->mode))
		r = -ENOTDIR;
	else if (is_mounted(odir, &old))
		r = -EBUSY;
	if (!r)
		r = rename_target_ok(old.inode, ndir, nlast, flags);
	if (!r)
		r = may_change_dir(odir->inode);
	if (!r)
		r = may_change_dir(ndir->inode);
	if (!r)
		r = odir->inode->ops->rename
			? odir->inode->ops->rename(odir->inode, olast->name,
						   olast->len, ndir->inode,
						   nlast->name, nlast->len, flags)
			: -EPERM;
	path_put(&old);
	return r > 0 ? 0 : r;
}

int vfs_renameat(struct fs_context *fs, const struct path *ostart,
		 const char *from, const struct path *nstart, const char *to,
		 unsigned flags)
{
	if (flags & ~(unsigned)RENAME_NOREPLACE)
		return -EINVAL;   /* RENAME_EXCHANGE, RENAME_WHITEOUT: not here */
	struct path odir, ndir;
	struct lastname olast, nlast;
	int r = path_walk_parent(fs, ostart, from, &odir, &olast);
	if (r)
		return r;
	r = path_walk_parent(fs, nstart, to, &ndir, &nlast);
	if (r) {
		path_put(&odir);
		return r;
	}
	if (odir.mnt != ndir.mnt)
		r = -EXDEV;
	else if (olast.len == 0 || is_dot(&olast) || is_dotdot(&olast) ||
		 nlast.len == 0 || is_dot(&nlast) || is_dotdot(&nlast))
		r = -EBUSY;
	else if (odir.inode->sb->rdonly)
		r = -EROFS;
	else
		r = rename_in(&odir, &olast, &ndir, &nlast, flags);
	path_put(&odir);
	path_put(&ndir);
	return r;
}

int vfs_mknod_socket(const char *path, struct inode **out)
{
	struct fs_context *fs = fs_current();
	struct path dir;
	struct lastname last;
	int r = prepare_create(fs, NULL, path, &dir, &last);
	if (r != -ENOENT)
		return r;
	r = may_change_dir(dir.inode);
	if (!r) {
		uint32_t m = S_IFSOCK | (0777 & ~umask_of(fs));
		r = dir.inode->ops->create
			? dir.inode->ops->create(dir.inode, last.name, last.len, m, out)
			: -EPERM;
	}
	path_put(&dir);
	return r;
}

int vfs_symlinkat(struct fs_context *fs, const struct path *start,
		  const char *target, const char *path)
{
	if (!*target)
		return -ENOENT;
	struct path dir;
	struct lastname last;
	int r = prepare_create(fs, start, path, &dir, &last);
	if (r != -ENOENT)
		return r;
	r = may_change_dir(dir.inode);
	if (!r)
		r = dir.inode->ops->symlink
			? dir.inode->ops->symlink(dir.inode, last.name, last.len, target)
			: -EPERM;
	path_put(&dir);
	return r;
}

/* Only the owner (or root) may change a mode; file systems without
 * chmod_ok refuse with EPERM. */
int vfs_chmod_inode(struct inode *ino, uint32_t mode)
{
	uint32_t uid, gid;
	current_ids(&uid, &gid, false);
	if (ino->sb->rdonly)
		return -EROFS;
	if (uid != 0 && uid != ino->uid)
		return -EPERM;
	if (!ino->sb->chmod_ok)
		return -EPERM;
	ino->mode = (ino->mode & S_IFMT) | (mode & 07777);
	ino->ctime = vfs_time_ns();
	return 0;
}

int vfs_truncate_inode(struct inode *ino, int64_t len)
{
	if (len < 0)
		return -EINVAL;
	if (S_ISDIR(ino->mode))
		return -EISDIR;
	if (!S_ISREG(ino->mode))
		return -EINVAL;
	if (!ino->ops->truncate)
		return ino->sb->rdonly ? -EROFS : -EPERM;
	return ino->ops->truncate(ino, (uint64_t)len);
}

int vfs_readlinkat(struct fs_context *fs, const struct path *start,
		   const char *path, char *buf, size_t max)
{
	struct path p;
	int r = path_walk(fs, start, path, 0, &p);
	if (r)
		return r;
	if (!S_ISLNK(p.inode->mode) || !p.inode->ops->readlink)
		r = -EINVAL;
	else
		r = p.inode->ops->readlink(p.inode, buf, max);
	if (r > (int)max)
		r = (int)max;
	path_put(&p);
	return r;
}

/* ---- the simple path-based entry points ---- */

int vfs_stat(const char *path, struct stat *st, bool follow)
{
	struct path p;
	int r = path_walk(NULL, NULL, path, follow ? WALK_FOLLOW : 0, &p);
	if (r)
		return r;
	inode_fill_stat(p.inode, st);
	path_put(&p);
	return 0;
}

int vfs_mkdir(const char *path, int mode)
{
	return vfs_mkdirat(NULL, NULL, path, mode);
}

int vfs_rmdir(const char *path)
{
	return vfs_rmdirat(NULL, NULL, path);
}

int vfs_unlink(const char *path)
{
	return vfs_unlinkat(NULL, NULL, path);
}

int vfs_rename(const char *from, const char *to)
{
	return vfs_renameat(NULL, NULL, from, NULL, to, 0);
}

int vfs_readlink(const char *path, char *buf, size_t max)
{
	return vfs_readlinkat(NULL, NULL, path, buf, max);
}

int vfs_truncate(const char *path, int64_t len)
{
	struct path p;
	int r = path_walk(NULL, NULL, path, WALK_FOLLOW, &p);
	if (r)
		return r;
	r = S_ISDIR(p.inode->mode) ? -EISDIR : inode_permission(p.inode, MAY_WRITE);
	bool reg = S_ISREG(p.inode->mode);
	if (!r && reg)
		r = inode_get_write(p.inode); /* -ETXTBSY: a running program's */
	if (!r) {
		r = vfs_truncate_inode(p.inode, len);
		if (reg)
			inode_put_write(p.inode);
	}
	path_put(&p);
	return r;
}

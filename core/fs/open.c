/*
 * open(2) in the kernel: resolve (or create) the file, check the flags
 * against what it is, check permissions, make the struct file. Order and
 * errors follow Linux: EEXIST for O_CREAT|O_EXCL, EISDIR for a directory
 * opened for writing or with O_CREAT, ENOTDIR for O_DIRECTORY, ELOOP for
 * O_NOFOLLOW on a symlink, EACCES/EROFS from the permission check.
 */
#include "fs.h"

static unsigned current_umask(struct fs_context *fs)
{
	if (!fs)
		fs = fs_current();
	return fs ? fs->umask : 022;
}

static bool is_dot_or_dotdot(const struct lastname *l)
{
	return (l->len == 1 && l->name[0] == '.') ||
	       (l->len == 2 && l->name[0] == '.' && l->name[1] == '.');
}

/* Make a regular file name in dir; *out gets it. */
static int create_in(struct path *dir, const struct lastname *last,
		     uint32_t mode, struct path *out)
{
	struct inode *d = dir->inode;
	if (d->nlink == 0)
		return -ENOENT;
	int r = inode_permission(d, MAY_WRITE | MAY_EXEC);
	if (r)
		return r;
	if (!d->ops->create)
		return -EACCES;
	struct inode *ino;
	r = d->ops->create(d, last->name, last->len, S_IFREG | mode, &ino);
	if (r)
		return r;
	out->mnt = dir->mnt;
	out->inode = ino;
	return 0;
}

/* Note last (in dir) as where a file opened is found. */
static void leaf_of(struct path_leaf *leaf, struct path *dir,
		    const struct lastname *last)
{
	leaf->dir = *dir;
	path_get(&leaf->dir);
	memcpy(leaf->name, last->name, last->len);
	leaf->name[last->len] = 0;
}

static int open_create(struct fs_context *fs, const struct path *start,
		       const char *path, int flags, int mode, struct path *out,
		       bool *created, struct path_leaf *leaf)
{
	leaf->dir = (struct path){ 0 };
	struct path dir;
	struct lastname last;
	int r = path_walk_parent(fs, start, path, &dir, &last);
	if (r)
		return r;
	if (last.len == 0 || last.slash || is_dot_or_dotdot(&last)) {
		path_put(&dir);
		return -EISDIR;
	}
	r = path_lookup_one(&dir, last.name, last.len, out);
	if (r == 0) {
		if (flags & O_EXCL)
			r = -EEXIST;
		else if (S_ISLNK(out->inode->mode) && !(flags & O_NOFOLLOW))
			r = path_follow_link(fs, &dir, out, WALK_FOLLOW); /* leaf unknown */
		else
			leaf_of(leaf, &dir, &last);
		if (r)
			path_put(out);
	} else if (r == -ENOENT) {
		uint32_t m = (uint32_t)mode & 07777 & ~current_umask(fs);
		r = create_in(&dir, &last, m, out);
		*created = r == 0;
		if (*created)
			leaf_of(leaf, &dir, &last);
	}
	path_put(&dir);
	return r;
}

static int open_mask(int flags)
{
	static const int acc[4] = { MAY_READ, MAY_WRITE, MAY_READ | MAY_WRITE,
				    MAY_READ | MAY_WRITE };
	int m = acc[flags & O_ACCMODE];
	if (flags & O_TRUNC)
		m |= MAY_WRITE;
	return m;
}

static unsigned open_fmode(int flags)
{
	static const unsigned fm[4] = { FMODE_READ, FMODE_WRITE,
					FMODE_READ | FMODE_WRITE, 0 };
	return fm[flags & O_ACCMODE];
}

/* Is the opened inode compatible with the flags? */
static int open_check_type(struct inode *ino, int flags)
{
	if (S_ISLNK(ino->mode))
		return -ELOOP;
	if ((flags & O_DIRECTORY) && !S_ISDIR(ino->mode))
		return -ENOTDIR;
	if (S_ISDIR(ino->mode) &&
	    ((flags & O_ACCMODE) != O_RDONLY || (flags & O_CREAT)))
		return -EISDIR;
	return 0;
}

static int open_path_only(struct path *p, int flags, struct file **out)
{
	if ((flags & O_DIRECTORY) && !S_ISDIR(p->inode->mode))
		return -ENOTDIR;
	struct file *f = file_alloc(p, FMODE_PATH, O_PATH | O_LARGEFILE |
				    ((unsigned)flags & (O_DIRECTORY | O_NOFOLLOW)));
	if (!f)
		return -ENOMEM;
	f->fmode &= ~FMODE_POS;
	*out = f;
	return 0;
}

static int open_inode(struct path *p, int flags, bool created,
		      struct path_leaf *leaf, struct file **out)
{
	struct inode *ino = p->inode;
	if (flags & O_PATH)
		return open_path_only(p, flags, out);
	int r = open_check_type(ino, flags);
	if (!r && !created)
		r = inode_permission(ino, open_mask(flags));
	if (r)
		return r;
	unsigned keep = (unsigned)flags &
		~(unsigned)(O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_CLOEXEC);
	struct file *f = file_alloc(p, open_fmode(flags), keep | O_LARGEFILE);
	if (!f)
		return -ENOMEM;
	if ((f->fmode & FMODE_WRITE) && S_ISREG(ino->mode)) { /* as Linux: ETXTBSY */
		if ((r = inode_get_write(ino)) == 0)
			f->fmode |= FMODE_WCOUNT;
	}
	if (r || (ino->ops->open && (r = ino->ops->open(ino, f)) != 0)) {
		f->ops = NULL;    /* not opened: no release */
		file_put(f);
		return r;
	}
	if ((flags & O_TRUNC) && S_ISREG(ino->mode) && !created)
		r = vfs_truncate_inode(ino, 0);
	if (r) {
		file_put(f);
		return r;
	}
	file_set_leaf(f, leaf);
	*out = f;
	return 0;
}

int vfs_openat(struct fs_context *fs, const struct path *start,
	       const char *path, int flags, int mode, struct file **out)
{
	if ((flags & __O_TMPFILE) == __O_TMPFILE)
		return -EOPNOTSUPP;
	if (flags & O_PATH)
		flags &= O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	struct path p;
	struct path_leaf leaf;
	bool created = false;
	int r;
	if (flags & O_CREAT)
		r = open_create(fs, start, path, flags, mode, &p, &created, &leaf);
	else
		r = path_walk_leaf(fs, start, path,
				   (flags & O_NOFOLLOW) ? 0 : WALK_FOLLOW, &p, &leaf);
	if (r)
		return r;
	r = open_inode(&p, flags, created, &leaf, out);
	path_put(&p);
	path_leaf_put(&leaf);
	return r;
}

int vfs_open(const char *path, int flags, int mode, struct file **out)
{
	return vfs_openat(NULL, NULL, path, flags, mode, out);
}

int vfs_open_in(struct fs_context *fs, const char *path, int flags, int mode,
		struct file **out)
{
	return vfs_openat(fs, NULL, path, flags, mode, out);
}

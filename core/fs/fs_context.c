/*
 * Per-process root, working directory and umask (struct fs_context),
 * shared between tasks made with CLONE_FS. Locking: fs->lock guards the
 * two paths while they are copied or replaced; the references they hold
 * are dropped after the lock is released.
 */
#include "fs.h"
#include "core/mm/mm.h"
#include "core/proc/task.h"

static struct fs_context *fs_alloc(const struct path *root,
				   const struct path *cwd, unsigned umask)
{
	struct fs_context *fs = kzalloc(sizeof(*fs));
	if (!fs)
		return NULL;
	fs->refs = 1;
	fs->lock = (struct spinlock)SPINLOCK_INIT("fs_context");
	fs->root = *root;
	fs->cwd = *cwd;
	path_get(&fs->root);
	path_get(&fs->cwd);
	fs->umask = umask;
	return fs;
}

struct fs_context *fs_new_root(void)
{
	struct mount *m = mount_root();
	if (!m)
		return NULL;
	struct path root = { m, m->root };
	return fs_alloc(&root, &root, 022);
}

struct fs_context *fs_clone(struct fs_context *src)
{
	struct path root, cwd;
	fs_paths(src, &root, &cwd);
	struct fs_context *fs = fs_alloc(&root, &cwd, src->umask);
	path_put(&root);
	path_put(&cwd);
	return fs;
}

void fs_get(struct fs_context *fs)
{
	atomic_inc(&fs->refs);
}

void fs_put(struct fs_context *fs)
{
	if (!fs || atomic_dec(&fs->refs))
		return;
	path_put(&fs->root);
	path_put(&fs->cwd);
	kfree(fs);
}

struct fs_context *fs_current(void)
{
	struct task *t = current;
	return t ? t->fs : NULL;
}

void fs_paths(struct fs_context *fs, struct path *root, struct path *cwd)
{
	if (!fs)
		fs = fs_current();
	if (!fs) {
		struct mount *m = mount_root();
		*root = *cwd = (struct path){ m, m->root };
		path_get(root);
		path_get(cwd);
		return;
	}
	uint64_t fl = spin_lock_irqsave(&fs->lock);
	*root = fs->root;
	*cwd = fs->cwd;
	path_get(root);
	path_get(cwd);
	spin_unlock_irqrestore(&fs->lock, fl);
}

/* Make p (a directory; reference given) the cwd of fs. */
static int fs_set_cwd(struct fs_context *fs, struct path *p)
{
	int r = inode_permission(p->inode, MAY_EXEC);
	if (r) {
		path_put(p);
		return r;
	}
	uint64_t fl = spin_lock_irqsave(&fs->lock);
	struct path old = fs->cwd;
	fs->cwd = *p;
	spin_unlock_irqrestore(&fs->lock, fl);
	path_put(&old);
	return 0;
}

int vfs_chdir(struct fs_context *fs, const char *path)
{
	if (!fs)
		fs = fs_current();
	if (!fs)
		return -ESRCH;
	struct path p;
	int r = path_walk(fs, NULL, path, WALK_FOLLOW | WALK_DIR, &p);
	return r ? r : fs_set_cwd(fs, &p);
}

int vfs_fchdir(struct fs_context *fs, struct file *f)
{
	if (!inode_is_dir(f->path.inode))
		return -ENOTDIR;
	struct path p = f->path;
	path_get(&p);
	return fs_set_cwd(fs, &p);
}

/* ---- getcwd: climb with "..", finding each name in its parent ---- */

struct name_search {
	uint64_t ino;
	char *name;     /* NAME_MAX + 1 bytes */
	bool found;
};

static bool match_ino(void *arg, const char *name, size_t len, uint64_t ino,
		      unsigned type, uint64_t next)
{
	struct name_search *s = arg;
	if (ino != s->ino || (len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return true;
	memcpy(s->name, name, len);
	s->name[len] = 0;
	s->found = true;
	return false;
}

/* The name of child in dir, into name[NAME_MAX + 1]. */
static int name_in_dir(struct inode *dir, struct inode *child, char *name)
{
	struct name_search s = { .ino = child->ino, .name = name };
	struct dir_ctx ctx = { .pos = 2, .fn = match_ino, .arg = &s };
	int r = dir->ops->iterate ? dir->ops->iterate(dir, &ctx) : -ENOTDIR;
	if (r)
		return r;
	return s.found ? 0 : -ENOENT;
}

/* Prepend "/name" to the string ending at buf + *pos. */
static int prepend(char *buf, size_t *pos, const char *name)
{
	size_t n = strlen(name);
	if (*pos < n + 1)
		return -ENAMETOOLONG;
	*pos -= n;
	memcpy(buf + *pos, name, n);
	buf[--*pos] = '/';
	return 0;
}

/* Build the path of cwd (relative to root) at the end of buf[PATH_MAX]. */
static int build_cwd(struct path *root, struct path cur, char *buf,
		     size_t *pos, char *name)
{
	int r = 0;
	path_get(&cur);
	if (cur.inode->nlink == 0)
		r = -ENOENT;             /* removed directory */
	while (!r && !path_equal(&cur, root)) {
		if (cur.inode == cur.mnt->root) {
			if (!cur.mnt->parent)
				break;
			path_to_mountpoint(&cur);
			continue;
		}
		struct inode *parent;
		r = cur.inode->ops->lookup(cur.inode, "..", 2, &parent);
		if (r)
			break;
		r = name_in_dir(parent, cur.inode, name);
		if (!r)
			r = prepend(buf, pos, name);
		inode_put(cur.inode);
		cur.inode = parent;
	}
	path_put(&cur);
	return r;
}

long vfs_getcwd(struct fs_context *fs, char *out, size_t size)
{
	struct path root, cwd;
	fs_paths(fs, &root, &cwd);
	char *buf = kmalloc(PATH_MAX + NAME_MAX + 1);
	long r = -ENOMEM;
	if (buf) {
		size_t pos = PATH_MAX;
		buf[--pos] = 0;
		r = build_cwd(&root, cwd, buf, &pos, buf + PATH_MAX);
		if (!r && pos == PATH_MAX - 1)
			buf[--pos] = '/';
		size_t len = PATH_MAX - pos;
		if (!r && len > size)
			r = -ERANGE;
		if (!r) {
			memcpy(out, buf + pos, len);
			r = (long)len;
		}
		kfree(buf);
	}
	path_put(&root);
	path_put(&cwd);
	return r;
}

/*
 * tmpfs: a writable file system in memory (mounted on /tmp).
 *
 * Locking: tree_lock (a sleeplock) guards every directory's entry list,
 * the parent links and link counts. A file's data (page array and size)
 * is guarded by its own data_lock. A directory entry holds a reference
 * to its inode; a directory holds one to its parent (so ".." of a
 * removed directory stays valid while someone is inside it).
 */
#include "fs.h"
#include "core/mm/mm.h"
#include "tmpfs.h"

static struct super_block tmpfs_sb = { .type = "tmpfs", .dev = 2, .chmod_ok = true };
static struct sleeplock tree_lock;
static struct tnode *troot;
static const struct inode_ops tnode_iops;

struct tdirent {
	struct list node;     /* in the directory's entries, cookie order */
	uint64_t cookie;      /* getdents position; 2, 3, ... never reused */
	struct tnode *child;
	size_t len;
	char name[];
};

static struct tnode *tnode_new(uint32_t mode)
{
	struct tnode *n = kzalloc(sizeof(*n));
	if (!n)
		return NULL;
	inode_init(&n->inode, &tmpfs_sb, mode, &tnode_iops,
		   S_ISDIR(mode) ? &dir_fops : S_ISREG(mode) ? &tmpfs_file_fops : NULL);
	current_ids(&n->inode.uid, &n->inode.gid, false);
	sleeplock_init(&n->data_lock);
	list_init(&n->entries);
	n->next_cookie = 2;
	return n;
}

static void tnode_free(struct inode *ino)
{
	struct tnode *n = T(ino);
	if (S_ISREG(ino->mode))
		tmpfs_free_pages(n, 0);
	kfree(n->pages);
	kfree(n->target);
	if (n->parent)
		inode_put(&n->parent->inode);
	kfree(n);
}

static struct tdirent *find_entry(struct tnode *dir, const char *name, size_t len)
{
	list_for_each(pos, &dir->entries) {
		struct tdirent *d = list_entry(pos, struct tdirent, node);
		if (d->len == len && memcmp(d->name, name, len) == 0)
			return d;
	}
	return NULL;
}

/* Link child into dir under name; the entry takes the caller's reference. */
static int add_entry(struct tnode *dir, const char *name, size_t len,
		     struct tnode *child)
{
	struct tdirent *d = kmalloc(sizeof(*d) + len + 1);
	if (!d)
		return -ENOMEM;
	memcpy(d->name, name, len);
	d->name[len] = 0;
	d->len = len;
	d->child = child;
	d->cookie = dir->next_cookie++;
	list_add_tail(&d->node, &dir->entries);
	dir->inode.mtime = dir->inode.ctime = vfs_time_ns();
	return 0;
}

/* Unlink entry d from dir; returns the child whose reference the caller
 * must drop (after releasing tree_lock). */
static struct tnode *remove_entry(struct tnode *dir, struct tdirent *d)
{
	struct tnode *child = d->child;
	list_remove(&d->node);
	kfree(d);
	if (S_ISDIR(child->inode.mode)) {
		child->inode.nlink = 0;
		dir->inode.nlink--;
	} else {
		child->inode.nlink--;
	}
	child->inode.ctime = dir->inode.mtime = dir->inode.ctime = vfs_time_ns();
	return child;
}

static int tnode_lookup(struct inode *dir, const char *name, size_t len,
			struct inode **out)
{
	struct tnode *d = T(dir);
	int r = 0;
	sleep_lock(&tree_lock);          /* rename may be moving d */
	if (len == 2 && name[0] == '.' && name[1] == '.') {
		*out = d->parent ? &d->parent->inode : dir;
	} else {
		struct tdirent *e = dir->nlink ? find_entry(d, name, len) : NULL;
		*out = e ? &e->child->inode : NULL;
		r = e ? 0 : -ENOENT;
	}
	if (!r)
		inode_get(*out);
	sleep_unlock(&tree_lock);
	return r;
}

/* Make a node of mode under name in dir. */
static int make_node(struct inode *dir, const char *name, size_t len,
		     uint32_t mode, struct tnode **out)
{
	struct tnode *d = T(dir);
	struct tnode *n = tnode_new(mode);
	if (!n)
		return -ENOMEM;
	int r = 0;
	sleep_lock(&tree_lock);
	if (dir->nlink == 0)
		r = -ENOENT;
	else if (find_entry(d, name, len))
		r = -EEXIST;
	else
		r = add_entry(d, name, len, n);
	if (!r && S_ISDIR(mode)) {
		n->parent = d;
		inode_get(dir);
		dir->nlink++;
	}
	if (!r && out) {
		inode_get(&n->inode);
		*out = n;
	}
	sleep_unlock(&tree_lock);
	if (r)
		kfree(n);
	return r;
}

static int tnode_create(struct inode *dir, const char *name, size_t len,
			uint32_t mode, struct inode **out)
{
	struct tnode *n;
	int r = make_node(dir, name, len, mode, &n);
	if (!r)
		*out = &n->inode;
	return r;
}

static int tnode_mkdir(struct inode *dir, const char *name, size_t len,
		       uint32_t mode)
{
	return make_node(dir, name, len, S_IFDIR | mode, NULL);
}

int tmpfs_symlink(struct inode *dir, const char *name, size_t len,
		  const char *target)
{
	struct tnode *n;
	char *t = name_dup(target, strlen(target));
	if (!t)
		return -ENOMEM;
	int r = make_node(dir, name, len, S_IFLNK | 0777, &n);
	if (r) {
		kfree(t);
		return r;
	}
	n->target = t;
	n->inode.size = strlen(t);
	inode_put(&n->inode);
	return 0;
}

/* Remove name from dir if want_dir matches what it is. */
static int remove_name(struct inode *dir, const char *name, size_t len,
		       bool want_dir)
{
	struct tnode *victim = NULL;
	int r = 0;
	sleep_lock(&tree_lock);
	struct tdirent *e = find_entry(T(dir), name, len);
	if (!e)
		r = -ENOENT;
	else if (S_ISDIR(e->child->inode.mode) != want_dir)
		r = want_dir ? -ENOTDIR : -EISDIR;
	else if (want_dir && !list_empty(&e->child->entries))
		r = -ENOTEMPTY;
	else
		victim = remove_entry(T(dir), e);
	sleep_unlock(&tree_lock);
	if (victim)
		inode_put(&victim->inode);
	return r;
}

static int tnode_unlink(struct inode *dir, const char *name, size_t len)
{
	return remove_name(dir, name, len, false);
}

static int tnode_rmdir(struct inode *dir, const char *name, size_t len)
{
	return remove_name(dir, name, len, true);
}

/* Is d inside (or equal to) dir? Caller holds tree_lock. */
static bool is_within(struct tnode *d, struct tnode *dir)
{
	for (;;) {
		if (d == dir)
			return true;
		if (!d->parent)
			return false;
		d = d->parent;
	}
}

/* Under tree_lock: the checks only the tree can answer. */
static int rename_check(struct tnode *od, struct tdirent *oe, struct tnode *nd,
			struct tdirent *ne)
{
	if (!oe)
		return -ENOENT;
	if (nd->inode.nlink == 0)
		return -ENOENT;
	if (S_ISDIR(oe->child->inode.mode) && is_within(nd, oe->child))
		return -EINVAL;
	if (ne && S_ISDIR(ne->child->inode.mode) && !list_empty(&ne->child->entries))
		return -ENOTEMPTY;
	return 0;
}

/* Move entry oe from od to nd under the new name. */
static int move_entry(struct tnode *od, struct tdirent *oe, struct tnode *nd,
		      const char *name, size_t len, struct tnode **old_parent)
{
	struct tnode *child = oe->child;
	int r = add_entry(nd, name, len, child);
	if (r)
		return r;
	list_remove(&oe->node);
	kfree(oe);
	od->inode.mtime = od->inode.ctime = child->inode.ctime = vfs_time_ns();
	if (S_ISDIR(child->inode.mode) && od != nd) {
		od->inode.nlink--;
		nd->inode.nlink++;
		inode_get(&nd->inode);
		*old_parent = child->parent;
		child->parent = nd;
	}
	return 0;
}

static int tnode_rename(struct inode *odir, const char *oname, size_t olen,
			struct inode *ndir, const char *nname, size_t nlen,
			unsigned flags)
{
	struct tnode *od = T(odir), *nd = T(ndir);
	struct tnode *victim = NULL, *old_parent = NULL;
	sleep_lock(&tree_lock);
	struct tdirent *oe = find_entry(od, oname, olen);
	struct tdirent *ne = find_entry(nd, nname, nlen);
	int r = rename_check(od, oe, nd, ne);
	if (!r && ne && (flags & RENAME_NOREPLACE))
		r = -EEXIST;
	bool same = !r && ne && ne->child == oe->child;  /* nothing to do */
	if (!r && !same && ne)
		victim = remove_entry(nd, ne);
	if (!r && !same)
		r = move_entry(od, oe, nd, nname, nlen, &old_parent);
	sleep_unlock(&tree_lock);
	if (victim)
		inode_put(&victim->inode);
	if (old_parent)
		inode_put(&old_parent->inode);
	return r;
}

static int tnode_iterate(struct inode *dir, struct dir_ctx *ctx)
{
	if (!dir_emit_dots(ctx, dir))
		return 0;
	sleep_lock(&tree_lock);
	list_for_each(pos, &T(dir)->entries) {
		struct tdirent *d = list_entry(pos, struct tdirent, node);
		if (d->cookie < ctx->pos)
			continue;
		if (!dir_emit(ctx, d->name, d->len, d->child->inode.ino,
			      d->child->inode.mode, d->cookie + 1))
			break;
	}
	sleep_unlock(&tree_lock);
	return 0;
}

static int tnode_readlink(struct inode *ino, char *buf, size_t max)
{
	size_t n = strlen(T(ino)->target);
	if (n > max)
		n = max;
	memcpy(buf, T(ino)->target, n);
	return (int)n;
}

static const struct inode_ops tnode_iops = {
	.lookup = tnode_lookup,
	.create = tnode_create,
	.mkdir = tnode_mkdir,
	.unlink = tnode_unlink,
	.rmdir = tnode_rmdir,
	.rename = tnode_rename,
	.symlink = tmpfs_symlink,
	.readlink = tnode_readlink,
	.iterate = tnode_iterate,
	.truncate = tmpfs_truncate,
	.free = tnode_free,
};

struct inode *tmpfs_mount(struct super_block **sb)
{
	if (!troot) {
		sleeplock_init(&tree_lock);
		troot = tnode_new(S_IFDIR | 01777);
		if (!troot)
			return NULL;
		troot->inode.uid = troot->inode.gid = 0;
	}
	*sb = &tmpfs_sb;
	inode_get(&troot->inode);
	return &troot->inode;
}

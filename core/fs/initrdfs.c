/*
 * The root file system: the initrd's cpio archive as a read-only tree.
 * The tree is built once at mount time (directories an archive only
 * implies by its paths are made too) and never changes afterwards, so it
 * is read without locks. File data stays in the archive.
 */
#include "fs.h"
#include "initrd.h"
#include "core/mm/mm.h"

struct rnode {
	struct inode inode;
	char *name;
	struct rnode *parent;
	struct rnode *children, *next;   /* in archive order */
	const void *data;
};

static struct super_block initrd_sb = { .type = "rootfs", .dev = 1, .rdonly = true };
static struct rnode *rroot;
static const struct inode_ops rnode_iops;
static const struct file_ops rfile_fops;

static struct rnode *R(struct inode *ino)
{
	return container_of(ino, struct rnode, inode);
}

static struct rnode *rnode_child(struct rnode *dir, const char *name, size_t len)
{
	for (struct rnode *c = dir->children; c; c = c->next)
		if (name_eq(c->name, name, len))
			return c;
	return NULL;
}

static struct rnode *rnode_new(struct rnode *parent, const char *name,
			       size_t len, uint32_t mode)
{
	struct rnode *n = kzalloc(sizeof(*n));
	if (!n || !(n->name = name_dup(name, len))) {
		kfree(n);
		return NULL;
	}
	inode_init(&n->inode, &initrd_sb, mode, &rnode_iops,
		   S_ISDIR(mode) ? &dir_fops : S_ISREG(mode) ? &rfile_fops : NULL);
	n->parent = parent ? parent : n;
	if (parent) {
		struct rnode **tail = &parent->children;
		while (*tail)
			tail = &(*tail)->next;
		*tail = n;
		parent->inode.nlink += S_ISDIR(mode);
	}
	return n;
}

/* Find or make name in dir; a directory for every component but the last. */
static struct rnode *rnode_get(struct rnode *dir, const char *name,
			       size_t len, uint32_t mode)
{
	struct rnode *n = rnode_child(dir, name, len);
	return n ? n : rnode_new(dir, name, len, mode);
}

static void rnode_set(struct rnode *n, const struct cpio_entry *e)
{
	if ((e->mode & S_IFMT) != (n->inode.mode & S_IFMT) && n->children)
		return;   /* an implied directory stays one */
	n->inode.mode = e->mode;
	n->inode.size = e->size;
	n->inode.mtime = n->inode.ctime = n->inode.atime =
		(uint64_t)e->mtime * 1000000000ULL;
	n->data = e->data;
	n->inode.fops = S_ISDIR(e->mode) ? &dir_fops :
			S_ISREG(e->mode) ? &rfile_fops : NULL;
}

static bool add_entry(const struct cpio_entry *e, void *ctx)
{
	const char *p = e->name;
	struct rnode *dir = rroot;
	for (;;) {
		while (*p == '/' || (p[0] == '.' && (p[1] == '/' || !p[1])))
			p++;
		if (!*p)
			return true;    /* "." or "/": the root itself */
		const char *end = p;
		while (*end && *end != '/')
			end++;
		const char *rest = end;
		while (*rest == '/')
			rest++;
		bool last = !*rest;
		struct rnode *n = rnode_get(dir, p, (size_t)(end - p),
					    last ? e->mode : S_IFDIR | 0755);
		if (!n)
			return false;
		if (last) {
			rnode_set(n, e);
			return true;
		}
		dir = n;
		p = rest;
	}
}

int initrdfs_add_dir(const char *name)
{
	if (!rroot)
		return -ENOENT;
	return rnode_get(rroot, name, strlen(name), S_IFDIR | 0755) ? 0 : -ENOMEM;
}

struct inode *initrdfs_mount(struct super_block **sb)
{
	if (!rroot) {
		rroot = rnode_new(NULL, "", 0, S_IFDIR | 0755);
		if (!rroot)
			return NULL;
		initrd_foreach(add_entry, NULL);
	}
	*sb = &initrd_sb;
	inode_get(&rroot->inode);
	return &rroot->inode;
}

/* ---- inode operations ---- */

static int rnode_lookup(struct inode *dir, const char *name, size_t len,
			struct inode **out)
{
	struct rnode *n = (len == 2 && name[0] == '.' && name[1] == '.')
		? R(dir)->parent : rnode_child(R(dir), name, len);
	if (!n)
		return -ENOENT;
	inode_get(&n->inode);
	*out = &n->inode;
	return 0;
}

static int rnode_iterate(struct inode *dir, struct dir_ctx *ctx)
{
	if (!dir_emit_dots(ctx, dir))
		return 0;
	uint64_t i = 2;
	for (struct rnode *c = R(dir)->children; c; c = c->next, i++) {
		if (i < ctx->pos)
			continue;
		if (!dir_emit(ctx, c->name, strlen(c->name), c->inode.ino,
			      c->inode.mode, i + 1))
			return 0;
	}
	return 0;
}

static int rnode_readlink(struct inode *ino, char *buf, size_t max)
{
	size_t n = ino->size < max ? ino->size : max;
	memcpy(buf, R(ino)->data, n);
	return (int)n;
}

static const struct inode_ops rnode_iops = {
	.lookup = rnode_lookup,
	.iterate = rnode_iterate,
	.readlink = rnode_readlink,
};

/* ---- regular files: bytes straight from the archive ---- */

static long rfile_read(struct file *f, struct uio *u, uint64_t *pos)
{
	struct inode *ino = f->path.inode;
	if (*pos >= ino->size)
		return 0;
	size_t n = ino->size - *pos;
	long r = uio_copy_out(u, (const char *)R(ino)->data + *pos, n);
	if (r > 0)
		*pos += (uint64_t)r;
	return r;
}

static int64_t rfile_lseek(struct file *f, int64_t off, int whence)
{
	return generic_file_lseek(f, off, whence, f->path.inode->size);
}

static const struct file_ops rfile_fops = {
	.read = rfile_read,
	.lseek = rfile_lseek,
};

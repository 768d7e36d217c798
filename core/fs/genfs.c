/*
 * genfs: see genfs.h. Generated files take their snapshot at open, so a
 * reader sees one consistent text however it splits its reads.
 */
#include "genfs.h"
#include "core/mm/mm.h"

static const struct inode_ops gnode_iops;

static struct gnode *gnode_new(struct genfs *fs, struct gnode *parent,
			       const char *name, size_t len, uint32_t mode)
{
	struct gnode *n = kzalloc(sizeof(*n));
	if (!n || !(n->name = name_dup(name, len))) {
		kfree(n);
		return NULL;
	}
	inode_init(&n->inode, &fs->sb, mode, &gnode_iops,
		   S_ISDIR(mode) ? &dir_fops : S_ISREG(mode) ? &genfile_fops : NULL);
	n->fs = fs;
	n->parent = parent ? parent : n;
	if (parent) {
		struct gnode **tail = &parent->children;
		while (*tail)
			tail = &(*tail)->next;
		*tail = n;
		parent->inode.nlink += S_ISDIR(mode);
	}
	return n;
}

struct gnode *genfs_root(struct genfs *fs)
{
	uint64_t fl = spin_lock_irqsave(&fs->lock);
	if (!fs->root)
		fs->root = gnode_new(fs, NULL, "", 0, S_IFDIR | 0555);
	struct gnode *r = fs->root;
	spin_unlock_irqrestore(&fs->lock, fl);
	return r;
}

static struct gnode *child_named(struct gnode *dir, const char *name, size_t len)
{
	for (struct gnode *c = dir->children; c; c = c->next)
		if (name_eq(c->name, name, len))
			return c;
	return NULL;
}

/* Under fs->lock: the node for path, made (with its directories) if new. */
static int add_locked(struct genfs *fs, const char *p, uint32_t mode,
		      struct gnode **out)
{
	struct gnode *dir = fs->root;
	for (;;) {
		while (*p == '/')
			p++;
		const char *end = p;
		while (*end && *end != '/')
			end++;
		const char *rest = end;
		while (*rest == '/')
			rest++;
		bool last = !*rest;
		struct gnode *n = child_named(dir, p, (size_t)(end - p));
		if (n && last)
			return S_ISDIR(n->inode.mode) && S_ISDIR(mode) ? 1 : -EEXIST;
		if (n && !S_ISDIR(n->inode.mode))
			return -ENOTDIR;
		if (!n)
			n = gnode_new(fs, dir, p, (size_t)(end - p),
				      last ? mode : S_IFDIR | 0555);
		if (!n)
			return -ENOMEM;
		if (last) {
			*out = n;
			return 0;
		}
		dir = n;
		p = rest;
	}
}

int genfs_add(struct genfs *fs, const char *path, uint32_t mode, gen_fn gen,
	      write_fn write, glink_fn link, void *arg)
{
	if (!genfs_root(fs))
		return -ENOMEM;
	if (!*path)
		return -EEXIST;
	struct gnode *n = NULL;
	uint64_t fl = spin_lock_irqsave(&fs->lock);
	int r = add_locked(fs, path, mode, &n);
	if (r == 0) {
		n->gen = gen;
		n->write = write;
		n->link = link;
		n->arg = arg;
	}
	spin_unlock_irqrestore(&fs->lock, fl);
	return r > 0 ? 0 : r;
}

int genfs_set_dyn(struct genfs *fs, const struct gdir_ops *dyn)
{
	struct gnode *root = genfs_root(fs);
	if (!root)
		return -ENOMEM;
	root->dyn = dyn;
	return 0;
}

/* ---- inode operations ---- */

static struct gnode *G(struct inode *ino)
{
	return container_of(ino, struct gnode, inode);
}

static int gnode_lookup(struct inode *dir, const char *name, size_t len,
			struct inode **out)
{
	struct gnode *d = G(dir);
	struct gnode *n = NULL;
	if (len == 2 && name[0] == '.' && name[1] == '.') {
		n = d->parent;
	} else {
		uint64_t fl = spin_lock_irqsave(&d->fs->lock);
		n = child_named(d, name, len);
		spin_unlock_irqrestore(&d->fs->lock, fl);
	}
	if (!n)
		return d->dyn ? d->dyn->lookup(d, name, len, out) : -ENOENT;
	inode_get(&n->inode);
	*out = &n->inode;
	return 0;
}

static int gnode_iterate(struct inode *dir, struct dir_ctx *ctx)
{
	struct gnode *d = G(dir);
	if (!dir_emit_dots(ctx, dir))
		return 0;
	uint64_t fl = spin_lock_irqsave(&d->fs->lock);
	uint64_t i = 2;
	bool more = true;
	for (struct gnode *c = d->children; c && more; c = c->next, i++) {
		if (i < ctx->pos)
			continue;
		more = dir_emit(ctx, c->name, strlen(c->name), c->inode.ino,
				c->inode.mode, i + 1);
	}
	spin_unlock_irqrestore(&d->fs->lock, fl);
	if (more && d->dyn) {
		if (ctx->pos < GEN_DYN_BASE)
			ctx->pos = GEN_DYN_BASE;
		d->dyn->iterate(d, ctx);
	}
	return 0;
}

static int gnode_readlink(struct inode *ino, char *buf, size_t max)
{
	struct gnode *n = G(ino);
	return n->link ? n->link(buf, max, n->arg) : -EINVAL;
}

static int gnode_open(struct inode *ino, struct file *f)
{
	struct gnode *n = G(ino);
	if (!S_ISREG(ino->mode))
		return 0;
	if ((f->fmode & FMODE_WRITE) && !n->write)
		return -EACCES;
	struct seqbuf sb = { 0 };
	if ((f->fmode & FMODE_READ) && n->gen) {
		int r = n->gen(&sb, n->arg);
		if (r >= 0)
			r = sb.err;
		if (r < 0) {
			sb_free(&sb);
			return r;
		}
	}
	return genfile_attach(f, &sb, n->write, n->arg);
}

/* O_TRUNC on a generated file changes nothing, as on Linux. */
static int gnode_truncate(struct inode *ino, uint64_t size)
{
	return 0;
}

static const struct inode_ops gnode_iops = {
	.lookup = gnode_lookup,
	.iterate = gnode_iterate,
	.readlink = gnode_readlink,
	.open = gnode_open,
	.truncate = gnode_truncate,
};

/* ---- snapshot files ---- */

struct gen_file {
	struct seqbuf sb;
	write_fn write;
	void *arg;
};

int genfile_attach(struct file *f, struct seqbuf *sb, write_fn write, void *arg)
{
	struct gen_file *g = kmalloc(sizeof(*g));
	if (!g) {
		sb_free(sb);
		return -ENOMEM;
	}
	g->sb = *sb;
	g->write = write;
	g->arg = arg;
	f->priv = g;
	f->ops = &genfile_fops;
	return 0;
}

static long genfile_read(struct file *f, struct uio *u, uint64_t *pos)
{
	struct gen_file *g = f->priv;
	if (*pos >= g->sb.len)
		return 0;
	long r = uio_copy_out(u, g->sb.buf + *pos, g->sb.len - *pos);
	if (r > 0)
		*pos += (uint64_t)r;
	return r;
}

/* One write(2) is one value: at most a page, handed over NUL-terminated. */
static long genfile_write(struct file *f, struct uio *u, uint64_t *pos)
{
	struct gen_file *g = f->priv;
	if (!g->write)
		return -EINVAL;
	size_t n = u->resid;
	if (n >= PAGE_SIZE)
		return -EINVAL;
	char *buf = kmalloc(n + 1);
	if (!buf)
		return -ENOMEM;
	long r = uio_copy_in(u, buf, n);
	if (r >= 0 && (size_t)r < n)
		r = -EFAULT;
	if (r >= 0) {
		buf[n] = 0;
		int e = g->write(buf, n, g->arg);
		r = e < 0 ? e : e > 0 ? e : (long)n; /* e > 0: bytes it took */
	}
	kfree(buf);
	return r;
}

static int64_t genfile_lseek(struct file *f, int64_t off, int whence)
{
	struct gen_file *g = f->priv;
	return generic_file_lseek(f, off, whence, g->sb.len);
}

static void genfile_release(struct file *f)
{
	struct gen_file *g = f->priv;
	if (g) {
		sb_free(&g->sb);
		kfree(g);
	}
}

const struct file_ops genfile_fops = {
	.read = genfile_read,
	.write = genfile_write,
	.lseek = genfile_lseek,
	.release = genfile_release,
};

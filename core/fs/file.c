/*
 * Open files: allocation, reference counting, the position, and helpers
 * other subsystems use on a struct file. A file holds a reference to its
 * inode for its whole life; the last file_put runs ops->release.
 */
#include "fasync.h"
#include "fs.h"
#include "core/mm/mm.h"

/* Freed files, for the next open (mm.h's object caches). */
static struct heap_cache file_cache = HEAP_CACHE_INIT("file", sizeof(struct file));

/* Every field is set here, none left from the cache, each written once
 * (no zeroing first). */
struct file *file_alloc(const struct path *p, unsigned fmode, unsigned flags)
{
	struct file *f = heap_cache_alloc(&file_cache);
	if (!f)
		return NULL;
	if (S_ISREG(p->inode->mode) || S_ISDIR(p->inode->mode))
		fmode |= FMODE_POS;
	f->refs = 1;
	f->fmode = fmode;
	f->flags = flags;
	f->pos = 0;
	f->pos_lock = (struct sleeplock){ .locked = 0, .wq = WAITQ_INIT(f->pos_lock.wq) };
	f->path = *p;
	path_get(&f->path);
	f->ops = p->inode->fops;
	f->priv = NULL;
	f->owner_type = f->owner_pid = f->owner_sig = 0;
	f->owner_uid = f->owner_euid = 0;
	f->leaf_dir = (struct path){ 0 };
	f->leaf = NULL;
	f->pathname = NULL;
	return f;
}

void file_set_leaf(struct file *f, struct path_leaf *leaf)
{
	if (!leaf->dir.inode || !S_ISREG(f->path.inode->mode))
		return;
	size_t n = strlen(leaf->name) + 1;
	if (!(f->leaf = kmalloc(n)))
		return; /* the path stays unknown */
	memcpy(f->leaf, leaf->name, n);
	f->leaf_dir = leaf->dir;
	leaf->dir = (struct path){ 0 }; /* the file holds it now */
}

/* The path of the directory f was found in, "/", f's name; kmalloc'd to
 * its length, NULL when not known. */
static char *build_path_name(struct file *f)
{
	size_t leaf_len = strlen(f->leaf);
	char *buf = kmalloc(PATH_MAX);
	if (!buf)
		return NULL;
	long n = vfs_dir_path(NULL, &f->leaf_dir, buf, PATH_MAX);
	size_t dir_len = n > 0 ? (size_t)n - 1 : 0;
	bool slash = dir_len > 0 && buf[dir_len - 1] != '/';
	size_t len = dir_len + slash + leaf_len;
	char *name = n > 0 && len < PATH_MAX ? kmalloc(len + 1) : NULL;
	if (name) {
		memcpy(name, buf, dir_len);
		name[dir_len] = '/';
		memcpy(name + dir_len + slash, f->leaf, leaf_len + 1);
	}
	kfree(buf);
	return name;
}

const char *file_path_name(struct file *f)
{
	char *known = __atomic_load_n(&f->pathname, __ATOMIC_ACQUIRE);
	if (known || !f->leaf)
		return known;
	char *built = build_path_name(f);
	if (!built)
		return NULL;
	char *expected = NULL;
	if (!__atomic_compare_exchange_n(&f->pathname, &expected, built, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		kfree(built); /* another caller built it first */
		return expected;
	}
	return built;
}

void file_ident(const struct file *f, uint32_t *dev, uint64_t *ino)
{
	*dev = f->path.inode->sb ? f->path.inode->sb->dev : 0;
	*ino = f->path.inode->ino;
}

bool file_unlinked(const struct file *f)
{
	return f->path.inode->nlink == 0;
}

void file_get(struct file *f)
{
	atomic_inc(&f->refs);
}

void file_put(struct file *f)
{
	if (!f)
		return;
	int left = atomic_dec(&f->refs);
	BUG_ON(left < 0);
	if (left)
		return;
	fasync_release(f); /* off its O_ASYNC list before it goes */
	file_put_access(f);
	if (f->ops && f->ops->release && !(f->fmode & FMODE_PATH))
		f->ops->release(f);
	path_put(&f->path);
	if (f->leaf_dir.inode)
		path_put(&f->leaf_dir);
	kfree(f->leaf);
	kfree(f->pathname);
	heap_cache_free(&file_cache, f);
}

static unsigned acc_fmode(int flags)
{
	switch (flags & O_ACCMODE) {
	case O_RDONLY: return FMODE_READ;
	case O_WRONLY: return FMODE_WRITE;
	case O_RDWR: return FMODE_READ | FMODE_WRITE;
	default: return 0;
	}
}

struct file *file_new_anon(const struct file_ops *ops, void *priv,
			   int flags, uint32_t mode)
{
	struct inode *ino = anon_inode_new(mode ? mode : 0600);
	if (!ino)
		return NULL;
	ino->fops = ops;
	struct path p = { NULL, ino };
	struct file *f = file_alloc(&p, acc_fmode(flags),
				    (unsigned)flags & (O_ACCMODE | O_NONBLOCK));
	inode_put(ino);
	if (f)
		f->priv = priv;
	return f;
}

long kernel_read(struct file *f, void *buf, size_t n, uint64_t off)
{
	if (!(f->fmode & FMODE_READ))
		return -EBADF;
	if (!f->ops || !f->ops->read)
		return -EINVAL;
	struct iovec seg;
	struct uio u;
	uio_init(&u, &seg, buf, n, false);
	return f->ops->read(f, &u, &off);
}

long kernel_write(struct file *f, const void *buf, size_t n)
{
	struct iovec seg;
	struct uio u;
	uio_init(&u, &seg, (void *)buf, n, false);
	return vfs_write(f, &u, NULL);
}

int file_size(struct file *f, uint64_t *size)
{
	*size = f->path.inode->size;
	return 0;
}

bool file_is_regular(struct file *f)
{
	return S_ISREG(f->path.inode->mode);
}

bool file_executable(struct file *f)
{
	return file_is_regular(f) && !(f->fmode & FMODE_PATH) &&
	       inode_permission(f->path.inode, MAY_EXEC) == 0;
}

int file_stat(struct file *f, struct stat *st)
{
	inode_fill_stat(f->path.inode, st);
	return 0;
}

/* The caller holds f->pos_lock (or owns f alone). */
int64_t generic_file_lseek(struct file *f, int64_t off, int whence,
			   uint64_t size)
{
	int64_t base;
	switch (whence) {
	case SEEK_SET: base = 0; break;
	case SEEK_CUR: base = (int64_t)f->pos; break;
	case SEEK_END: base = (int64_t)size; break;
	case SEEK_DATA:
	case SEEK_HOLE:
		if (off < 0 || (uint64_t)off >= size)
			return -ENXIO;
		base = 0;
		if (whence == SEEK_HOLE)
			off = (int64_t)size;
		break;
	default:
		return -EINVAL;
	}
	int64_t pos;
	if (__builtin_add_overflow(base, off, &pos))
		return -EOVERFLOW;
	if (pos < 0)
		return -EINVAL;
	f->pos = (uint64_t)pos;
	return pos;
}

/* ---- directories opened as files ---- */

static long dir_read(struct file *f, struct uio *u, uint64_t *pos)
{
	return -EISDIR;
}

static int dir_iterate(struct file *f, struct dir_ctx *ctx)
{
	struct inode *dir = f->path.inode;
	if (!dir->ops->iterate)
		return -ENOTDIR;
	if (dir->nlink == 0)
		return 0;   /* removed: nothing to list */
	return dir->ops->iterate(dir, ctx);
}

/* Directory positions are cookies: only SEEK_SET to one, or SEEK_CUR 0. */
static int64_t dir_lseek(struct file *f, int64_t off, int whence)
{
	if (whence == SEEK_CUR && off == 0)
		return (int64_t)f->pos;
	if (whence != SEEK_SET || off < 0)
		return -EINVAL;
	f->pos = (uint64_t)off;
	return off;
}

const struct file_ops dir_fops = {
	.read = dir_read,
	.write = NULL,
	.lseek = dir_lseek,
	.iterate = dir_iterate,
};

int vfs_readdir(struct file *f, dir_emit_fn fn, void *arg)
{
	if ((f->fmode & FMODE_PATH) || !f->ops || !f->ops->iterate)
		return (f->fmode & FMODE_PATH) ? -EBADF : -ENOTDIR;
	sleep_lock(&f->pos_lock);
	struct dir_ctx ctx = { .pos = f->pos, .fn = fn, .arg = arg };
	int r = f->ops->iterate(f, &ctx);
	f->pos = ctx.pos;
	sleep_unlock(&f->pos_lock);
	return r;
}

/* ---- anonymous inodes: pipes, perf events ---- */

static struct super_block anon_sb = { .type = "anon_inodefs", .dev = 14 };

static void anon_free(struct inode *ino)
{
	kfree(ino);
}

static const struct inode_ops anon_iops = { .free = anon_free };

struct inode *anon_inode_new(uint32_t mode)
{
	struct inode *ino = kmalloc(sizeof(*ino));
	if (ino)
		inode_init(ino, &anon_sb, mode, &anon_iops, NULL);
	return ino;
}

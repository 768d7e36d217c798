/*
 * Inside the VFS: inodes, super blocks, mounts and path walking, shared
 * by the file systems in core/fs/. Users of files include core/fs/vfs.h.
 *
 * Inodes are reference counted (inode_get/inode_put). Every holder
 * counts: a directory entry, an open file, a cwd, a walk in progress.
 * When the count drops to zero, ops->free (if any) releases the inode;
 * file systems whose inodes live as long as the file system (the initrd,
 * static proc/sys nodes) keep one reference forever instead.
 *
 * Directory operations take the parent directory inode and a name that
 * is neither "." nor ".." (the walker handles those) and is at most
 * NAME_MAX bytes. Each file system does its own locking.
 */
#ifndef BAREMON_FS_H
#define BAREMON_FS_H

#include <string.h>
#include <linux/fs.h>    /* SEEK_*, RENAME_* */
#include "core/kernel.h"
#include "vfs.h"

struct dir_ctx;

struct inode_ops {
	/* Child called name (new reference) or -ENOENT. ".." must work
	 * (the root is its own parent). */
	int (*lookup)(struct inode *dir, const char *name, size_t len,
		      struct inode **out);
	/* Make a regular file (new reference in *out). */
	int (*create)(struct inode *dir, const char *name, size_t len,
		      uint32_t mode, struct inode **out);
	int (*mkdir)(struct inode *dir, const char *name, size_t len,
		     uint32_t mode);
	int (*unlink)(struct inode *dir, const char *name, size_t len);
	int (*rmdir)(struct inode *dir, const char *name, size_t len);
	/* Both directories are on the same super block. */
	int (*rename)(struct inode *odir, const char *oname, size_t olen,
		      struct inode *ndir, const char *nname, size_t nlen,
		      unsigned flags);
	int (*symlink)(struct inode *dir, const char *name, size_t len,
		       const char *target);
	/* Symlink target into buf (no NUL needed): its length, at most max. */
	int (*readlink)(struct inode *ino, char *buf, size_t max);
	int (*iterate)(struct inode *dir, struct dir_ctx *ctx);
	int (*truncate)(struct inode *ino, uint64_t size);
	/* Called on open after the permission checks: may set f->ops and
	 * f->priv (f->ops starts as inode->fops). */
	int (*open)(struct inode *ino, struct file *f);
	void (*free)(struct inode *ino);
};

struct super_block {
	const char *type;        /* "tmpfs", "proc", ... (/proc/mounts) */
	uint32_t dev;            /* st_dev */
	bool rdonly;
	bool chmod_ok;           /* chmod may change modes here */
	uint64_t next_ino;       /* atomic */
};

struct inode {
	int refs;                /* atomic */
	uint64_t ino;
	uint32_t mode;           /* S_IF* | permissions */
	uint32_t nlink, uid, gid;
	uint32_t rdev;           /* device number (Linux encoding) */
	uint64_t size;
	uint64_t atime, mtime, ctime;   /* ns */
	struct super_block *sb;
	const struct inode_ops *ops;
	const struct file_ops *fops;    /* how it reads once opened */
	void *priv;
	int writecount;          /* Linux's i_writecount (atomic): > 0 files
				  * open for writing, < 0 programs running
				  * from it (exec): each excludes the other */
};

/* Fill in the common fields; refs = 1. */
void inode_init(struct inode *ino, struct super_block *sb, uint32_t mode,
		const struct inode_ops *ops, const struct file_ops *fops);
uint64_t sb_new_ino(struct super_block *sb);
/* A write access to the inode (open for writing, truncate): 0, or
 * -ETXTBSY while a program runs from it; inode_put_write ends it. */
int inode_get_write(struct inode *ino);
void inode_put_write(struct inode *ino);
void inode_get(struct inode *ino);
void inode_put(struct inode *ino);
void inode_fill_stat(struct inode *ino, struct stat *st);
static inline bool inode_is_dir(const struct inode *ino)
{
	return S_ISDIR(ino->mode);
}

/* Permission bits for inode_permission. */
#define MAY_EXEC  1
#define MAY_WRITE 2
#define MAY_READ  4
/* Check mask against the current task's effective ids (-EACCES), and
 * writes against a read-only file system (-EROFS). */
int inode_permission(struct inode *ino, int mask);
int inode_access(struct inode *ino, int mask, uint32_t uid, uint32_t gid);
/* Effective ids of the caller (root when there is no task). */
void current_ids(uint32_t *uid, uint32_t *gid, bool real);

/* Linux device numbers as stat shows them (new_encode_dev). */
static inline uint32_t mkdev(uint32_t major, uint32_t minor)
{
	return (minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12);
}

/* ---- directory listing ---------------------------------------------- */

/*
 * Iterators start at ctx->pos and call dir_emit for each entry with the
 * position just after it (`next`, a cookie of the file system's choice);
 * dir_emit moves ctx->pos there when the entry is taken. They stop as
 * soon as dir_emit returns false. Positions 0 and 1 are "." and "..".
 */
struct dir_ctx {
	uint64_t pos;
	dir_emit_fn fn;
	void *arg;
};
static inline bool dir_emit(struct dir_ctx *ctx, const char *name, size_t len,
			    uint64_t ino, uint32_t mode, uint64_t next)
{
	if (!ctx->fn(ctx->arg, name, len, ino, (mode >> 12) & 15, next))
		return false;
	ctx->pos = next;
	return true;
}
/* Emit "." and ".." for positions 0 and 1; false if the caller must stop. */
bool dir_emit_dots(struct dir_ctx *ctx, struct inode *dir);

/* ---- mounts (mount.c) -------------------------------------------------- */

struct mount {
	struct super_block *sb;
	struct inode *root;
	struct mount *parent;      /* NULL for "/" */
	struct inode *mountpoint;  /* directory in parent it covers */
	const char *source, *where;
};

/* The mount covering (mnt, dir), or NULL. */
struct mount *mount_at(struct mount *mnt, struct inode *dir);
int vfs_mount(struct super_block *sb, struct inode *root, const char *source,
	      const char *where);
struct mount *mount_root(void);
unsigned mount_count(void);
struct mount *mount_nth(unsigned i);

static inline void path_get(struct path *p) { inode_get(p->inode); }
static inline void path_put(struct path *p) { inode_put(p->inode); }
static inline bool path_equal(const struct path *a, const struct path *b)
{
	return a->mnt == b->mnt && a->inode == b->inode;
}

/* ---- path walking (namei.c) ------------------------------------------ */

#define WALK_FOLLOW 1u     /* follow a symlink in the last component */
#define WALK_DIR    2u     /* the result must be a directory */

/*
 * Resolve path. fs gives the root and cwd (NULL: the current task's, or
 * "/"); start, if not NULL, replaces the cwd for relative paths (openat's
 * dirfd). On success *out holds a new reference.
 */
int path_walk(struct fs_context *fs, const struct path *start,
	      const char *path, unsigned flags, struct path *out);

/*
 * Where a walk found its result: the directory that holds the entry and
 * the entry's name there, symlinks followed (a file opened as
 * /lib64/ld.so is found in the directory its link names). dir.inode is
 * NULL when the walk ended on "." or "..", or failed. A reference to dir
 * is held: path_leaf_put.
 */
struct path_leaf {
	struct path dir;
	char name[NAME_MAX + 1];
};
int path_walk_leaf(struct fs_context *fs, const struct path *start,
		   const char *path, unsigned flags, struct path *out,
		   struct path_leaf *leaf);
void path_leaf_put(struct path_leaf *leaf);

/*
 * Resolve all but the last component. *parent gets a reference; *last
 * points into path (not NUL-terminated: *lastlen) and may be ".", ".."
 * or empty (for "/"); *slash tells whether the path ended in '/'.
 */
struct lastname {
	const char *name;
	size_t len;
	bool slash;
};
int path_walk_parent(struct fs_context *fs, const struct path *start,
		     const char *path, struct path *parent,
		     struct lastname *last);
/* Look name up in dir (crossing mounts, no symlink following). */
int path_lookup_one(const struct path *dir, const char *name, size_t len,
		    struct path *out);
/* Follow a symlink at link (found in dir) to what it names. */
int path_follow_link(struct fs_context *fs, const struct path *dir,
		     struct path *link, unsigned flags);

/* Replace *cur (the root of a mount) with the mount point it covers. */
void path_to_mountpoint(struct path *cur);
int vfs_fchdir(struct fs_context *fs, struct file *f);

/* The root and cwd used for fs (see path_walk); references taken. */
void fs_paths(struct fs_context *fs, struct path *root, struct path *cwd);
struct fs_context *fs_current(void);

/* ---- descriptors being opened (fdtable.c) ------------------------------- */

/* Take the lowest free descriptor before the file exists (-EMFILE). */
int fd_reserve(struct files *fs, bool cloexec);
/* Fill a reserved descriptor with f (reference taken over), or free it
 * again with f == NULL. */
void fd_commit(struct files *fs, int fd, struct file *f);

/* ---- opening (open.c) --------------------------------------------------- */

int vfs_openat(struct fs_context *fs, const struct path *start,
	       const char *path, int flags, int mode, struct file **out);
/* A new file for an inode (reference taken); no permission checks. */
struct file *file_alloc(const struct path *p, unsigned fmode, unsigned flags);
/* A regular file f was found where leaf says: f keeps that (takes the
 * reference leaf holds) for file_path_name. */
void file_set_leaf(struct file *f, struct path_leaf *leaf);

/* ---- directory operations (dirops.c) ------------------------------------ */

int vfs_mkdirat(struct fs_context *fs, const struct path *start,
		const char *path, int mode);
int vfs_rmdirat(struct fs_context *fs, const struct path *start,
		const char *path);
int vfs_unlinkat(struct fs_context *fs, const struct path *start,
		 const char *path);
int vfs_renameat(struct fs_context *fs, const struct path *ostart,
		 const char *from, const struct path *nstart, const char *to,
		 unsigned flags);
/* bind(2) of an AF_UNIX socket to path: a new socket inode there (new
 * reference in *out); -EEXIST if the name is taken. */
int vfs_mknod_socket(const char *path, struct inode **out);
int vfs_symlinkat(struct fs_context *fs, const struct path *start,
		  const char *target, const char *path);
int vfs_chmod_inode(struct inode *ino, uint32_t mode);
int vfs_truncate_inode(struct inode *ino, int64_t len);
int vfs_readlinkat(struct fs_context *fs, const struct path *start,
		   const char *path, char *buf, size_t max);

/* ---- the file systems ---------------------------------------------------- */

struct inode *initrdfs_mount(struct super_block **sb);
/* Give the initrd tree an empty directory (for a mount point). */
int initrdfs_add_dir(const char *name);
struct inode *tmpfs_mount(struct super_block **sb);
size_t tmpfs_pages_in_use(void);
struct inode *devfs_mount(struct super_block **sb);
struct inode *procfs_mount(struct super_block **sb);
struct inode *sysfs_mount(struct super_block **sb);
void procfs_init_files(void);
void sysfs_init_files(void);
/* ino lies in /sys/kernel/tracing or /sys/kernel/debug/tracing, which
 * Linux mounts as tracefs (statfs says so). */
bool sysfs_in_tracefs(struct inode *ino);
/* /sys/devices/system/cpu/cpuN/cache/ (sysfs_cache.c). */
void sysfs_cache_init(void);
void random_init(void);

/* Register a character device under /dev (before or after vfs_init). */
/* /dev/cpu (devfs_cpu.c): made once at mount, under parent (/dev). */
struct inode *devfs_cpu_root(struct super_block *sb, struct inode *parent);
/* The CPU a /dev/cpu/N device file is for. */
unsigned devfs_cpu_of(struct file *f);
/* Linux's msr and cpuid drivers (core/arch/msr_dev.c, cpuid_dev.c). */
extern const struct file_ops msr_dev_fops, cpuid_dev_fops;
/* Their lseek: Linux's no_seek_end_llseek (msr_dev.c). */
int64_t cpudev_lseek(struct file *f, int64_t off, int whence);
int devfs_register(const char *name, uint32_t mode, uint32_t rdev,
		   const struct file_ops *fops);
extern const struct file_ops tty_fops;
extern const struct file_ops random_fops;

/* Directory files: read gives EISDIR, getdents lists. */
extern const struct file_ops dir_fops;

/* Ops for files made by file_new_anon. */
struct inode *anon_inode_new(uint32_t mode);

/* ---- pipes (pipe.c) ---------------------------------------------------- */

int pipe_create(struct file **rd, struct file **wr, int flags);
long pipe_fcntl_size(struct file *f, bool set, unsigned long arg);

/* ---- small helpers ------------------------------------------------------ */

static inline int atomic_inc(int *v)
{
	return __atomic_add_fetch(v, 1, __ATOMIC_ACQ_REL);
}
static inline int atomic_dec(int *v)
{
	return __atomic_sub_fetch(v, 1, __ATOMIC_ACQ_REL);
}

/* Copy a name of len bytes into a new NUL-terminated string. */
char *name_dup(const char *name, size_t len);
static inline bool name_eq(const char *a, const char *b, size_t blen)
{
	return strlen(a) == blen && memcmp(a, b, blen) == 0;
}

#endif

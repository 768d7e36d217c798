/*
 * Inodes: reference counts, stat, permission checks. An inode's fields
 * other than refs are written by its file system under that file
 * system's lock; readers here accept a value that is a moment old.
 */
#include "fs.h"
#include "core/mm/mm.h"
#include "core/proc/task.h"
#include "core/arch/tsc.h"

uint64_t vfs_time_ns(void)
{
	return time_since_boot_ns();
}

uint64_t sb_new_ino(struct super_block *sb)
{
	return __atomic_add_fetch(&sb->next_ino, 1, __ATOMIC_RELAXED);
}

void inode_init(struct inode *ino, struct super_block *sb, uint32_t mode,
		const struct inode_ops *ops, const struct file_ops *fops)
{
	memset(ino, 0, sizeof(*ino));
	ino->refs = 1;
	ino->sb = sb;
	ino->ino = sb_new_ino(sb);
	ino->mode = mode;
	ino->nlink = S_ISDIR(mode) ? 2 : 1;
	ino->ops = ops;
	ino->fops = fops;
	ino->atime = ino->mtime = ino->ctime = vfs_time_ns();
}

/* ---- writers and running programs (i_writecount) ---- */

/* Move writecount one step in dir (+1 a writer, -1 a program) unless it
 * stands the other way. */
static int writecount_step(struct inode *ino, int dir)
{
	int c = __atomic_load_n(&ino->writecount, __ATOMIC_RELAXED);
	do {
		if (c * dir < 0)
			return -ETXTBSY;
	} while (!__atomic_compare_exchange_n(&ino->writecount, &c, c + dir, false,
					      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	return 0;
}

int inode_get_write(struct inode *ino)
{
	return writecount_step(ino, 1);
}

void inode_put_write(struct inode *ino)
{
	__atomic_sub_fetch(&ino->writecount, 1, __ATOMIC_ACQ_REL);
}

int file_deny_write(struct file *f)
{
	int r = writecount_step(f->path.inode, -1);
	if (!r)
		f->fmode |= FMODE_DENYW;
	return r;
}

void file_put_access(struct file *f)
{
	if (f->fmode & FMODE_WCOUNT)
		inode_put_write(f->path.inode);
	if (f->fmode & FMODE_DENYW)
		__atomic_add_fetch(&f->path.inode->writecount, 1, __ATOMIC_ACQ_REL);
}

void inode_get(struct inode *ino)
{
	atomic_inc(&ino->refs);
}

void inode_put(struct inode *ino)
{
	if (!ino)
		return;
	int left = atomic_dec(&ino->refs);
	BUG_ON(left < 0);
	if (left == 0 && ino->ops && ino->ops->free)
		ino->ops->free(ino);
}

void inode_fill_stat(struct inode *ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = ino->sb->dev;
	st->st_ino = ino->ino;
	st->st_nlink = ino->nlink;
	st->st_mode = ino->mode;
	st->st_uid = ino->uid;
	st->st_gid = ino->gid;
	st->st_rdev = ino->rdev;
	st->st_size = (long)ino->size;
	st->st_blksize = 4096;
	st->st_blocks = S_ISREG(ino->mode) ? (long)(ALIGN_UP(ino->size, 4096) / 512) : 0;
	st->st_atime = ino->atime / 1000000000;
	st->st_atime_nsec = ino->atime % 1000000000;
	st->st_mtime = ino->mtime / 1000000000;
	st->st_mtime_nsec = ino->mtime % 1000000000;
	st->st_ctime = ino->ctime / 1000000000;
	st->st_ctime_nsec = ino->ctime % 1000000000;
}

void current_ids(uint32_t *uid, uint32_t *gid, bool real)
{
	struct task *t = current;
	if (!t) {
		*uid = *gid = 0;
		return;
	}
	*uid = real ? t->uid : t->euid;
	*gid = real ? t->gid : t->egid;
}

/* Linux's generic_permission, with root holding CAP_DAC_OVERRIDE. */
int inode_access(struct inode *ino, int mask, uint32_t uid, uint32_t gid)
{
	if ((mask & MAY_WRITE) && ino->sb->rdonly &&
	    (S_ISREG(ino->mode) || S_ISDIR(ino->mode) || S_ISLNK(ino->mode)))
		return -EROFS;
	if (uid == 0) {
		if ((mask & MAY_EXEC) && !S_ISDIR(ino->mode) &&
		    !(ino->mode & (S_IXUSR | S_IXGRP | S_IXOTH)))
			return -EACCES;
		return 0;
	}
	unsigned bits = ino->mode & 7;
	if (uid == ino->uid)
		bits = (ino->mode >> 6) & 7;
	else if (gid == ino->gid)
		bits = (ino->mode >> 3) & 7;
	return (mask & ~bits & 7) ? -EACCES : 0;
}

int inode_permission(struct inode *ino, int mask)
{
	uint32_t uid, gid;
	current_ids(&uid, &gid, false);
	return inode_access(ino, mask, uid, gid);
}

bool dir_emit_dots(struct dir_ctx *ctx, struct inode *dir)
{
	if (ctx->pos == 0) {
		if (!dir_emit(ctx, ".", 1, dir->ino, S_IFDIR, 1))
			return false;
	}
	if (ctx->pos == 1) {
		uint64_t pino = dir->ino;
		struct inode *parent;
		if (dir->ops->lookup(dir, "..", 2, &parent) == 0) {
			pino = parent->ino;
			inode_put(parent);
		}
		if (!dir_emit(ctx, "..", 2, pino, S_IFDIR, 2))
			return false;
	}
	return true;
}

char *name_dup(const char *name, size_t len)
{
	char *s = kmalloc(len + 1);
	if (s) {
		memcpy(s, name, len);
		s[len] = 0;
	}
	return s;
}

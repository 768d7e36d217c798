/*
 * The common path of read and write: access mode checks, the length cap,
 * and the file position. A file with FMODE_POS (regular files and
 * directories) moves its position under pos_lock, so threads sharing the
 * file see each read or write as one step, as on Linux.
 */
#include "fs.h"

static long rw_common(struct file *f, struct uio *u, const uint64_t *at,
		      bool write)
{
	long (*op)(struct file *, struct uio *, uint64_t *);
	if (!(f->fmode & (write ? FMODE_WRITE : FMODE_READ)))
		return -EBADF;
	op = f->ops ? (write ? f->ops->write : f->ops->read) : NULL;
	if (!op)
		return -EINVAL;
	if (!uio_user_ok(u))
		return -EFAULT;
	uio_clamp(u, MAX_RW_COUNT);
	bool dir = S_ISDIR(f->path.inode->mode);   /* EISDIR even for 0 bytes */
	if (at) {
		if (!f->ops->lseek)
			return -ESPIPE;
		if ((int64_t)*at < 0)
			return -EINVAL;
		uint64_t pos = *at;
		return u->resid || dir || (f->fmode & FMODE_ZERO_IO) ? op(f, u, &pos) : 0;
	}
	if (!u->resid && !dir && !(f->fmode & FMODE_ZERO_IO))
		return 0;
	if (!(f->fmode & FMODE_POS))
		return op(f, u, &f->pos);
	sleep_lock(&f->pos_lock);
	long r = op(f, u, &f->pos);
	sleep_unlock(&f->pos_lock);
	return r;
}

long vfs_read(struct file *f, struct uio *u, const uint64_t *at)
{
	return rw_common(f, u, at, false);
}

long vfs_write(struct file *f, struct uio *u, const uint64_t *at)
{
	return rw_common(f, u, at, true);
}

/*
 * read, write, pread64, pwrite64, readv, writev, preadv, pwritev, lseek.
 * The vector forms copy the iovec array in and check it as Linux does:
 * at most UIO_MAXIOV entries, no negative length, the total capped at
 * MAX_RW_COUNT.
 */
#include "core/mm/mm.h"
#include "sys.h"

static long rw_buf(uint64_t fd, uint64_t buf, uint64_t n, const uint64_t *at,
		   bool write)
{
	if (at && (int64_t)*at < 0)
		return -EINVAL;
	bool ref;
	struct file *f = task_file_io_light(fd, &ref);
	if (!f)
		return -EBADF;
	struct iovec seg;
	struct uio u;
	uio_init(&u, &seg, (void *)buf, n, true);
	long r = write ? vfs_write(f, &u, at) : vfs_read(f, &u, at);
	task_file_done(f, ref);
	return r;
}

/* read(2) of a file with file_ops.read_direct (a perf counter): no uio,
 * no reference on an unshared table. -ENOIOCTLCMD: the usual path. */
static long read_direct(unsigned fd, uint64_t ubuf, size_t n)
{
	bool ref;
	struct file *f = fd_get_light(current->files, (int)fd, &ref);
	if (!f)
		return -ENOIOCTLCMD;
	long r = -ENOIOCTLCMD;
	if ((f->fmode & (FMODE_READ | FMODE_PATH)) == FMODE_READ && f->ops &&
	    f->ops->read_direct)
		r = f->ops->read_direct(f, ubuf, n);
	task_file_done(f, ref);
	return r;
}

SYSCALL_DEFINE3(read, unsigned int, fd, uint64_t, ubuf, size_t, count)
{
	long r = read_direct(fd, ubuf, count);
	return r != -ENOIOCTLCMD ? r : rw_buf(fd, ubuf, count, NULL, false);
}

SYSCALL_DEFINE3(write, unsigned int, fd, uint64_t, ubuf, size_t, count)
{
	return rw_buf(fd, ubuf, count, NULL, true);
}

SYSCALL_DEFINE4(pread64, unsigned int, fd, uint64_t, ubuf, size_t, count, uint64_t, pos)
{
	return rw_buf(fd, ubuf, count, &pos, false);
}

SYSCALL_DEFINE4(pwrite64, unsigned int, fd, uint64_t, ubuf, size_t, count, uint64_t, pos)
{
	return rw_buf(fd, ubuf, count, &pos, true);
}

/* Copy and check a user iovec array; *out is kmalloc'd (NULL for 0).
 * Returns the total length. */
long iov_in(uint64_t uiov, uint64_t cnt, struct iovec **out)
{
	*out = NULL;
	if (cnt > UIO_MAXIOV)
		return -EINVAL;
	if (cnt == 0)
		return 0;
	struct iovec *iov = kmalloc(cnt * sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	if (copy_from_user(iov, (void *)uiov, cnt * sizeof(*iov))) {
		kfree(iov);
		return -EFAULT;
	}
	size_t total = 0;
	for (uint64_t i = 0; i < cnt; i++) {
		if ((int64_t)iov[i].iov_len < 0) {
			kfree(iov);
			return -EINVAL;
		}
		if (iov[i].iov_len > (size_t)MAX_RW_COUNT - total)
			iov[i].iov_len = (size_t)MAX_RW_COUNT - total;
		total += iov[i].iov_len;
	}
	*out = iov;
	return (long)total;
}

static long rw_vec(uint64_t fd, uint64_t uiov, uint64_t cnt, const uint64_t *at,
		   bool write)
{
	if (at && (int64_t)*at < 0)
		return -EINVAL;
	struct file *f = task_file_io(fd);
	if (!f)
		return -EBADF;
	struct iovec *iov;
	long r = iov_in(uiov, cnt, &iov);
	if (r > 0 || (r == 0 && cnt > 0)) {
		struct uio u = { iov, (unsigned)cnt, 0, (size_t)r, true };
		r = write ? vfs_write(f, &u, at) : vfs_read(f, &u, at);
	}
	kfree(iov);
	file_put(f);
	return r;
}

SYSCALL_DEFINE3(readv, unsigned int, fd, uint64_t, uvec, unsigned long, vlen)
{
	return rw_vec(fd, uvec, vlen, NULL, false);
}

SYSCALL_DEFINE3(writev, unsigned int, fd, uint64_t, uvec, unsigned long, vlen)
{
	return rw_vec(fd, uvec, vlen, NULL, true);
}

SYSCALL_DEFINE4(preadv, unsigned int, fd, uint64_t, uvec, unsigned long, vlen, uint64_t, pos)
{
	return rw_vec(fd, uvec, vlen, &pos, false);
}

SYSCALL_DEFINE4(pwritev, unsigned int, fd, uint64_t, uvec, unsigned long, vlen, uint64_t, pos)
{
	return rw_vec(fd, uvec, vlen, &pos, true);
}

SYSCALL_DEFINE3(lseek, unsigned int, fd, long, offset, int, whence)
{
	struct file *f = task_file_io(fd);
	if (!f)
		return -EBADF;
	long r;
	if (!f->ops || !f->ops->lseek)
		r = -ESPIPE;
	else if (whence < SEEK_SET || whence > SEEK_MAX)
		r = -EINVAL;
	else if (f->fmode & FMODE_POS) {
		sleep_lock(&f->pos_lock);
		r = f->ops->lseek(f, offset, whence);
		sleep_unlock(&f->pos_lock);
	} else {
		r = f->ops->lseek(f, offset, whence);
	}
	file_put(f);
	return r;
}

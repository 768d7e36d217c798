/*
 * Pipes: a 64 KiB byte ring between a read end and a write end. Reads
 * return what is there (blocking only when empty), 0 once every writer
 * has gone; writes of at most PIPE_BUF bytes go in whole or not at all;
 * writing with no reader left raises SIGPIPE and fails with EPIPE.
 * O_NONBLOCK turns every wait into EAGAIN.
 *
 * Locking: pipe.lock (a sleeplock: the ring is copied to and from user
 * memory under it) guards the ring and the end counts. Sleepers wait on
 * pipe.wq for "data or no writers" / "room or no readers"; every change
 * wakes them all and the poll queue. O_ASYNC (fasync.c): readers' owners
 * hear POLL_IN when data arrives, writers' POLL_OUT when data leaves,
 * and both when the other end goes (Linux's pipe.c).
 */
#include <asm/ioctls.h>
#include <asm/signal.h>
#include <asm/siginfo.h>
#include <linux/poll.h>
#include "fasync.h"
#include "fs.h"
#include "core/mm/mm.h"
#include "core/proc/task.h"
#include "core/mm/uaccess.h"

#define PIPE_SIZE (64 * 1024)

struct pipe {
	struct sleeplock lock;
	char *buf;
	size_t head, len;
	int readers, writers;
	struct waitq wq;
	struct fasync *fasync_readers, *fasync_writers;
};

static const struct file_ops pipe_fops;

static size_t pipe_len(struct pipe *p)
{
	return __atomic_load_n(&p->len, __ATOMIC_ACQUIRE);
}

static int ends(int *count)
{
	return __atomic_load_n(count, __ATOMIC_ACQUIRE);
}

static void pipe_wake(struct pipe *p)
{
	waitq_wake_all(&p->wq);
	poll_wake_all();
}

/* Copy up to n bytes out of the ring; caller holds the lock. */
static long ring_out(struct pipe *p, struct uio *u, size_t n)
{
	size_t first = n < PIPE_SIZE - p->head ? n : PIPE_SIZE - p->head;
	long r = uio_copy_out(u, p->buf + p->head, first);
	if (r == (long)first && n > first) {
		long r2 = uio_copy_out(u, p->buf, n - first);
		if (r2 > 0)
			r += r2;
	}
	if (r > 0) {
		p->head = (p->head + (size_t)r) % PIPE_SIZE;
		__atomic_store_n(&p->len, p->len - (size_t)r, __ATOMIC_RELEASE);
	}
	return r;
}

/* Copy up to n bytes into the ring's free space; caller holds the lock. */
static long ring_in(struct pipe *p, struct uio *u, size_t n)
{
	size_t tail = (p->head + p->len) % PIPE_SIZE;
	size_t first = n < PIPE_SIZE - tail ? n : PIPE_SIZE - tail;
	long r = uio_copy_in(u, p->buf + tail, first);
	if (r == (long)first && n > first) {
		long r2 = uio_copy_in(u, p->buf, n - first);
		if (r2 > 0)
			r += r2;
	}
	if (r > 0)
		__atomic_store_n(&p->len, p->len + (size_t)r, __ATOMIC_RELEASE);
	return r;
}

static long pipe_read(struct file *f, struct uio *u, uint64_t *pos)
{
	struct pipe *p = f->priv;
	for (;;) {
		sleep_lock(&p->lock);
		if (p->len) {
			long r = ring_out(p, u, u->resid < p->len ? u->resid : p->len);
			sleep_unlock(&p->lock);
			pipe_wake(p);
			kill_fasync(&p->fasync_writers, SIGIO, POLL_OUT);
			return r;
		}
		bool eof = p->writers == 0;
		sleep_unlock(&p->lock);
		if (eof || (f->flags & O_NONBLOCK)) /* Linux signals here too */
			kill_fasync(&p->fasync_writers, SIGIO, POLL_OUT);
		if (eof)
			return 0;
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		long r = wait_event_interruptible(p->wq,
				pipe_len(p) > 0 || ends(&p->writers) == 0);
		if (r)
			return r;
	}
}

/* One step of a write: copy what fits now. *wait is set when the caller
 * must wait for `need` bytes of room. */
static long write_step(struct pipe *p, struct uio *u, size_t need, bool *wait)
{
	size_t room = PIPE_SIZE - p->len;
	*wait = room < need;
	if (*wait)
		return 0;
	return ring_in(p, u, u->resid < room ? u->resid : room);
}

static long pipe_write(struct file *f, struct uio *u, uint64_t *pos)
{
	struct pipe *p = f->priv;
	bool atomic = u->resid <= PIPE_BUF;
	long done = 0;
	for (;;) {
		bool wait;
		sleep_lock(&p->lock);
		if (p->readers == 0) {
			sleep_unlock(&p->lock);
			if (current)
				signal_send_current(SIGPIPE);
			return done ? done : -EPIPE;
		}
		long r = write_step(p, u, atomic ? u->resid : 1, &wait);
		sleep_unlock(&p->lock);
		if (r < 0)
			return done ? done : r;
		if (r > 0) {
			done += r;
			pipe_wake(p);
			kill_fasync(&p->fasync_readers, SIGIO, POLL_IN);
		}
		if (!u->resid || (!wait && r == 0))
			return done;
		if (f->flags & O_NONBLOCK)
			return done ? done : -EAGAIN;
		size_t need = atomic ? u->resid : 1;
		r = wait_event_interruptible(p->wq, PIPE_SIZE - pipe_len(p) >= need ||
						    ends(&p->readers) == 0);
		if (r)
			return done ? done : r;
	}
}

static unsigned pipe_poll(struct file *f)
{
	struct pipe *p = f->priv;
	unsigned m = 0;
	if (f->fmode & FMODE_READ) {
		if (pipe_len(p))
			m |= POLLIN | POLLRDNORM;
		if (!ends(&p->writers))
			m |= POLLHUP;
	}
	if (f->fmode & FMODE_WRITE) {
		if (PIPE_SIZE - pipe_len(p) >= PIPE_BUF)
			m |= POLLOUT | POLLWRNORM;
		if (!ends(&p->readers))
			m |= POLLERR;
	}
	return m;
}

static long pipe_ioctl(struct file *f, unsigned cmd, uint64_t arg)
{
	struct pipe *p = f->priv;
	if (cmd != FIONREAD)
		return -ENOTTY;
	return put_user((int)pipe_len(p), (int *)arg);
}

static void pipe_release(struct file *f)
{
	struct pipe *p = f->priv;
	sleep_lock(&p->lock);
	if (f->fmode & FMODE_READ)
		p->readers--;
	if (f->fmode & FMODE_WRITE)
		p->writers--;
	bool last = p->readers == 0 && p->writers == 0;
	sleep_unlock(&p->lock);
	if (!last) {
		pipe_wake(p);
		kill_fasync(&p->fasync_readers, SIGIO, POLL_IN);
		kill_fasync(&p->fasync_writers, SIGIO, POLL_OUT);
		return;
	}
	kfree(p->buf);
	kfree(p);
}

/* O_ASYNC on one end: the list of that end (both for a read-write one). */
static int pipe_fasync(struct file *f, int fd, bool on)
{
	struct pipe *p = f->priv;
	int r = 0;
	if (f->fmode & FMODE_READ)
		r = fasync_helper(fd, f, on, &p->fasync_readers);
	if (!r && (f->fmode & FMODE_WRITE)) {
		r = fasync_helper(fd, f, on, &p->fasync_writers);
		if (r && (f->fmode & FMODE_READ))
			fasync_helper(-1, f, false, &p->fasync_readers);
	}
	return r;
}

static const struct file_ops pipe_fops = {
	.read = pipe_read,
	.write = pipe_write,
	.ioctl = pipe_ioctl,
	.poll = pipe_poll,
	.release = pipe_release,
	.fasync = pipe_fasync,
};

static bool file_is_pipe(struct file *f)
{
	return f->ops == &pipe_fops;
}

/* F_GETPIPE_SZ / F_SETPIPE_SZ: the ring's size is fixed at 64 KiB. */
long pipe_fcntl_size(struct file *f, bool set, unsigned long arg)
{
	if (!file_is_pipe(f))
		return -EBADF;
	if (set && arg > 1048576)
		return -EPERM;
	return PIPE_SIZE;
}

static struct file *pipe_end(struct path *p, struct pipe *pp, unsigned fmode,
			     int flags)
{
	struct file *f = file_alloc(p, fmode, (unsigned)flags);
	if (f) {
		f->ops = &pipe_fops;
		f->priv = pp;
	}
	return f;
}

int pipe_create(struct file **rd, struct file **wr, int flags)
{
	struct pipe *pp = kzalloc(sizeof(*pp));
	struct inode *ino = anon_inode_new(S_IFIFO | 0600);
	char *buf = kmalloc(PIPE_SIZE);
	struct path path = { NULL, ino };
	struct file *r = NULL, *w = NULL;
	if (pp && ino && buf) {
		sleeplock_init(&pp->lock);
		waitq_init(&pp->wq);
		pp->buf = buf;
		pp->readers = pp->writers = 1;
		r = pipe_end(&path, pp, FMODE_READ, O_RDONLY | (flags & O_NONBLOCK));
		w = pipe_end(&path, pp, FMODE_WRITE, O_WRONLY | (flags & O_NONBLOCK));
	}
	inode_put(ino);
	if (!r || !w) {
		if (r)
			r->ops = NULL;
		if (w)
			w->ops = NULL;
		file_put(r);
		file_put(w);
		kfree(buf);
		kfree(pp);
		return -ENOMEM;
	}
	*rd = r;
	*wr = w;
	return 0;
}

/*
 * eventfd(2) and eventfd2(2), as Linux's fs/eventfd.c: a 64-bit counter
 * behind a descriptor. write(2) of 8 bytes adds to it (blocking while the
 * sum would pass 0xfffffffffffffffe), read(2) of at least 8 takes it all
 * and leaves 0, or with EFD_SEMAPHORE takes 1 (blocking while it is 0).
 * poll: POLLIN when non-zero, POLLOUT while 1 more fits, POLLERR at the
 * overflow value (which only Linux's in-kernel signalling reaches).
 * Errnos as Linux: EINVAL for a short buffer, a write of ULLONG_MAX or
 * unknown flags; EAGAIN under EFD_NONBLOCK; EFAULT for a bad buffer (a
 * read's value is taken first and lost then, as on Linux); lseek does
 * nothing and returns 0 (Linux's noop_llseek).
 *
 * Locking: efd.lock (irqsave) guards count; waiters sleep on efd.wq and
 * every change wakes them and the poll queue.
 */
#include <sys/eventfd.h>
#include <linux/poll.h>
#include "fs.h"
#include "sys.h"
#include "core/mm/mm.h"

struct eventfd {
	struct spinlock lock;
	uint64_t count;
	unsigned flags;      /* EFD_SEMAPHORE */
	struct waitq wq;
};

static uint64_t efd_count(struct eventfd *e)
{
	return __atomic_load_n(&e->count, __ATOMIC_ACQUIRE);
}

static void efd_wake(struct eventfd *e)
{
	waitq_wake_all(&e->wq);
	poll_wake_all();
}

/* Take what a read takes, if anything is there: true and *v set. */
static bool efd_take(struct eventfd *e, uint64_t *v)
{
	uint64_t fl = spin_lock_irqsave(&e->lock);
	bool got = e->count != 0;
	if (got) {
		*v = (e->flags & EFD_SEMAPHORE) ? 1 : e->count;
		__atomic_store_n(&e->count, e->count - *v, __ATOMIC_RELEASE);
	}
	spin_unlock_irqrestore(&e->lock, fl);
	return got;
}

/* Add v if the sum stays below ULLONG_MAX: true when added. */
static bool efd_add(struct eventfd *e, uint64_t v)
{
	uint64_t fl = spin_lock_irqsave(&e->lock);
	bool fits = UINT64_MAX - e->count > v;
	if (fits)
		__atomic_store_n(&e->count, e->count + v, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&e->lock, fl);
	return fits;
}

static long efd_read(struct file *f, struct uio *u, uint64_t *pos)
{
	struct eventfd *e = f->priv;
	uint64_t v;
	if (u->resid < sizeof(v))
		return -EINVAL;
	while (!efd_take(e, &v)) {
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		long r = wait_event_interruptible(e->wq, efd_count(e) != 0);
		if (r)
			return r;
	}
	efd_wake(e);
	return uio_copy_out(u, &v, sizeof(v)) == sizeof(v) ? (long)sizeof(v)
							    : -EFAULT;
}

static long efd_write(struct file *f, struct uio *u, uint64_t *pos)
{
	struct eventfd *e = f->priv;
	uint64_t v;
	if (u->resid < sizeof(v))
		return -EINVAL;
	if (uio_copy_in(u, &v, sizeof(v)) != sizeof(v))
		return -EFAULT;
	if (v == UINT64_MAX)
		return -EINVAL;
	while (!efd_add(e, v)) {
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		long r = wait_event_interruptible(e->wq,
				UINT64_MAX - efd_count(e) > v);
		if (r)
			return r;
	}
	efd_wake(e);
	return sizeof(v);
}

static unsigned efd_poll(struct file *f)
{
	uint64_t c = efd_count(f->priv);
	unsigned m = 0;
	if (c > 0)
		m |= POLLIN | POLLRDNORM;
	if (c == UINT64_MAX)
		m |= POLLERR;
	if (UINT64_MAX - 1 > c)
		m |= POLLOUT | POLLWRNORM;
	return m;
}

static int64_t efd_lseek(struct file *f, int64_t off, int whence)
{
	return 0;
}

static void efd_release(struct file *f)
{
	kfree(f->priv);
}

static const struct file_ops eventfd_ops = {
	.read = efd_read,
	.write = efd_write,
	.poll = efd_poll,
	.lseek = efd_lseek,
	.release = efd_release,
};

SYSCALL_DEFINE2(eventfd2, unsigned int, count, int, flags)
{
	if (flags & ~(EFD_SEMAPHORE | EFD_CLOEXEC | EFD_NONBLOCK))
		return -EINVAL;
	struct eventfd *e = kzalloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->lock = (struct spinlock)SPINLOCK_INIT("eventfd");
	e->count = count;
	e->flags = (unsigned)flags & EFD_SEMAPHORE;
	waitq_init(&e->wq);
	struct file *f = file_new_anon(&eventfd_ops, e,
				       O_RDWR | (flags & EFD_NONBLOCK), 0600);
	if (!f) {
		kfree(e);
		return -ENOMEM;
	}
	int fd = task_install(f, flags & EFD_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

SYSCALL_DEFINE1(eventfd, unsigned int, count)
{
	return sys_eventfd2(count, 0);
}

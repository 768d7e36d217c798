/*
 * timerfd_create(2), timerfd_settime(2), timerfd_gettime(2), as Linux's
 * fs/timerfd.c: a timer behind a descriptor. read(2) of at least 8
 * bytes returns the number of expirations since the last read or
 * settime (blocking while there are none, EAGAIN under TFD_NONBLOCK),
 * poll says POLLIN while there are some. Clocks: CLOCK_REALTIME,
 * MONOTONIC, BOOTTIME and their _ALARM forms (root only, EPERM, as
 * Linux's CAP_WAKE_ALARM; they do not wake a suspended machine: baremon
 * never suspends). Errnos as Linux: EINVAL for unknown flags or clocks,
 * a bad itimerspec (tv_nsec outside [0, 1e9), negative seconds), a
 * short read buffer or a descriptor that is no timerfd; EBADF, EFAULT.
 * TFD_TIMER_CANCEL_ON_SET is accepted and never fires (baremon's
 * realtime clock is not set while it runs).
 *
 * Expirations are counted from the clock when asked (catch_up), not by
 * the timer's interrupt, which only wakes readers and pollers: a count
 * is exact however late the interrupt. Deadlines are kept on the boot
 * clock (time_since_boot_ns); an absolute realtime deadline is
 * converted once, at settime.
 *
 * Locking: tfd.lock (irqsave) guards deadline, interval and ticks; the
 * ktimer's callback takes it too (under ktimer_lock: the order is
 * ktimer_lock, then tfd.lock, and settime arms the ktimer after
 * dropping tfd.lock).
 */
#include <linux/poll.h>
#include <linux/time_types.h>
#include <linux/timerfd.h>
#include "fs.h"
#include "sys.h"
#include "core/mm/mm.h"
#include "core/arch/tsc.h"
#include "core/mm/uaccess.h"
#include "core/proc/timekeeping.h"
#include "core/proc/timers.h"
#include "core/proc/task.h"

#define NSEC 1000000000ULL
#define TFD_CREATE_FLAGS (TFD_CLOEXEC | TFD_NONBLOCK)
#define TFD_SETTIME_FLAGS (TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)

struct timerfd {
	struct spinlock lock;
	int clock;               /* the base clock (an _ALARM id mapped) */
	uint64_t deadline_ns;    /* boot clock; 0: disarmed */
	uint64_t interval_ns;
	uint64_t ticks;          /* expirations not read yet */
	struct waitq wq;
	struct ktimer timer;
};

static const struct file_ops timerfd_ops;

/* Fold expirations up to now into ticks. Under t->lock. */
static void catch_up(struct timerfd *t, uint64_t now)
{
	if (!t->deadline_ns || now < t->deadline_ns)
		return;
	uint64_t n = 1;
	if (t->interval_ns) {
		n += (now - t->deadline_ns) / t->interval_ns;
		t->deadline_ns += n * t->interval_ns;
	} else {
		t->deadline_ns = 0;
	}
	t->ticks += n;
}

static uint64_t pending(struct timerfd *t)
{
	uint64_t f = spin_lock_irqsave(&t->lock);
	catch_up(t, time_since_boot_ns());
	uint64_t n = t->ticks;
	spin_unlock_irqrestore(&t->lock, f);
	return n;
}

/* The ktimer (boot CPU, interrupts off): wake whoever waits. */
static uint64_t timer_fired(struct ktimer *k, uint64_t now)
{
	struct timerfd *t = container_of(k, struct timerfd, timer);
	spin_lock(&t->lock);
	catch_up(t, now);
	uint64_t next = t->deadline_ns;
	spin_unlock(&t->lock);
	waitq_wake_all(&t->wq);
	poll_wake_all();
	return next;
}

static long tfd_read(struct file *f, struct uio *u, uint64_t *pos)
{
	struct timerfd *t = f->priv;
	uint64_t v = 0;
	if (u->resid < sizeof(v))
		return -EINVAL;
	for (;;) {
		uint64_t fl = spin_lock_irqsave(&t->lock);
		catch_up(t, time_since_boot_ns());
		v = t->ticks;
		t->ticks = 0;
		spin_unlock_irqrestore(&t->lock, fl);
		if (v)
			break;
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		long r = wait_event_interruptible(t->wq, pending(t) != 0);
		if (r)
			return r;
	}
	return uio_copy_out(u, &v, sizeof(v)) == sizeof(v) ? (long)sizeof(v) : -EFAULT;
}

static unsigned tfd_poll(struct file *f)
{
	return pending(f->priv) ? POLLIN | POLLRDNORM : 0;
}

static int64_t tfd_lseek(struct file *f, int64_t off, int whence)
{
	return 0; /* Linux's noop_llseek */
}

static void tfd_release(struct file *f)
{
	struct timerfd *t = f->priv;
	ktimer_disarm(&t->timer); /* its callback is not running after this */
	kfree(t);
}

static const struct file_ops timerfd_ops = {
	.read = tfd_read,
	.poll = tfd_poll,
	.lseek = tfd_lseek,
	.release = tfd_release,
};

/* The base clock of a timerfd clock id, or -1 when timerfd refuses it. */
static int base_clock(int clockid)
{
	switch (clockid) {
	case CLOCK_REALTIME_ID:
	case CLOCK_REALTIME_ALARM_ID:
		return CLOCK_REALTIME_ID;
	case CLOCK_MONOTONIC_ID:
		return CLOCK_MONOTONIC_ID;
	case CLOCK_BOOTTIME_ID:
	case CLOCK_BOOTTIME_ALARM_ID:
		return CLOCK_BOOTTIME_ID;
	}
	return -1;
}

SYSCALL_DEFINE2(timerfd_create, int, clockid, int, flags)
{
	int clock = base_clock(clockid);
	if ((flags & ~TFD_CREATE_FLAGS) || clock < 0)
		return -EINVAL;
	if ((clockid == CLOCK_REALTIME_ALARM_ID || clockid == CLOCK_BOOTTIME_ALARM_ID) &&
	    current->euid != 0)
		return -EPERM;
	struct timerfd *t = kzalloc(sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->lock = (struct spinlock)SPINLOCK_INIT("timerfd");
	t->clock = clock;
	waitq_init(&t->wq);
	ktimer_init(&t->timer, timer_fired);
	struct file *f = file_new_anon(&timerfd_ops, t, O_RDWR | (flags & TFD_NONBLOCK), 0600);
	if (!f) {
		kfree(t);
		return -ENOMEM;
	}
	int fd = task_install(f, flags & TFD_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

/* The timerfd behind fd, with a reference (file_put), or NULL and *err. */
static struct file *timerfd_get(int fd, long *err)
{
	struct file *f = fget(fd);
	*err = -EBADF;
	if (f && f->ops != &timerfd_ops) {
		file_put(f);
		f = NULL;
		*err = -EINVAL;
	}
	return f;
}

static bool valid_ts(const struct __kernel_timespec *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && (uint64_t)ts->tv_nsec < NSEC;
}

static uint64_t ts_ns(const struct __kernel_timespec *ts)
{
	return (uint64_t)ts->tv_sec * NSEC + (uint64_t)ts->tv_nsec;
}

static struct __kernel_timespec ns_ts(uint64_t ns)
{
	return (struct __kernel_timespec){ .tv_sec = (long long)(ns / NSEC),
					   .tv_nsec = (long long)(ns % NSEC) };
}

/* What gettime and settime's old value say. Under t->lock. */
static struct __kernel_itimerspec current_value(struct timerfd *t, uint64_t now)
{
	catch_up(t, now);
	uint64_t left = t->deadline_ns > now ? t->deadline_ns - now : 0;
	return (struct __kernel_itimerspec){ .it_interval = ns_ts(t->interval_ns),
					     .it_value = ns_ts(left) };
}

SYSCALL_DEFINE4(timerfd_settime, int, fd, int, flags, uint64_t, unew, uint64_t, uold)
{
	struct __kernel_itimerspec nv, ov;
	if (copy_from_user(&nv, (const void __user *)unew, sizeof(nv)))
		return -EFAULT; /* first, as Linux */
	if ((flags & ~TFD_SETTIME_FLAGS) || !valid_ts(&nv.it_value) ||
	    !valid_ts(&nv.it_interval))
		return -EINVAL;
	long err;
	struct file *f = timerfd_get(fd, &err);
	if (!f)
		return err;
	struct timerfd *t = f->priv;
	uint64_t value = ts_ns(&nv.it_value), now = time_since_boot_ns();
	uint64_t deadline = 0;
	if (value && !(flags & TFD_TIMER_ABSTIME))
		deadline = now + value;
	else if (value)
		deadline = clock_to_boot_ns(t->clock, value);
	if (value && !deadline)
		deadline = now ? now : 1; /* already past: expires at once */
	uint64_t fl = spin_lock_irqsave(&t->lock);
	ov = current_value(t, now);
	t->ticks = 0;
	t->deadline_ns = deadline;
	t->interval_ns = ts_ns(&nv.it_interval); /* kept disarmed too, as Linux */
	spin_unlock_irqrestore(&t->lock, fl);
	ktimer_arm(&t->timer, deadline);
	file_put(f);
	if (uold && copy_to_user((void __user *)uold, &ov, sizeof(ov)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE2(timerfd_gettime, int, fd, uint64_t, ucur)
{
	long err;
	struct file *f = timerfd_get(fd, &err);
	if (!f)
		return err;
	struct timerfd *t = f->priv;
	uint64_t fl = spin_lock_irqsave(&t->lock);
	struct __kernel_itimerspec cur = current_value(t, time_since_boot_ns());
	spin_unlock_irqrestore(&t->lock, fl);
	file_put(f);
	return copy_to_user((void __user *)ucur, &cur, sizeof(cur)) ? -EFAULT : 0;
}

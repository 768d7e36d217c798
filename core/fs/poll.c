/*
 * poll and ppoll, and the waiting that select shares. Design: one global
 * wait queue. Any file whose readiness may have changed calls
 * poll_wake_all(), which bumps poll_seq and wakes every poller; pollers
 * re-scan their descriptors. Simple and correct; the cost is spurious
 * re-scans when unrelated files change.
 *
 * No lost wakeup: a poller samples poll_seq before scanning and, after
 * queueing itself, sleeps only if poll_seq is unchanged; the waker bumps
 * poll_seq (a full barrier) before it looks at the queue.
 */
#include <asm/signal.h>
#include "core/mm/mm.h"
#include "poll.h"
#include "core/proc/syscall.h"
#include "core/proc/task.h"
#include "core/mm/uaccess.h"

static struct waitq poll_wq = WAITQ_INIT(poll_wq);
static uint64_t poll_seq;

void poll_wake_all(void)
{
	__atomic_add_fetch(&poll_seq, 1, __ATOMIC_SEQ_CST);
	if (!list_empty(&poll_wq.waiters))
		waitq_wake_all(&poll_wq);
}

unsigned file_poll(struct file *f)
{
	if (!f->ops || !f->ops->poll)
		return DEFAULT_POLLMASK;
	return f->ops->poll(f);
}

long poll_wait_loop(long (*scan)(void *ctx), void *ctx, uint64_t deadline,
		    bool nowait)
{
	for (;;) {
		uint64_t seq = __atomic_load_n(&poll_seq, __ATOMIC_SEQ_CST);
		long n = scan(ctx);
		if (n != 0 || nowait)
			return n;
		if (deadline && vfs_time_ns() >= deadline)
			return 0;
		if (signal_pending_current())
			return -EINTR;
		struct waiter w = { .queued = false };
		waitq_prepare(&poll_wq, &w, true);
		if (__atomic_load_n(&poll_seq, __ATOMIC_SEQ_CST) == seq &&
		    !signal_pending_current())
			schedule_until(deadline);
		waitq_finish(&poll_wq, &w);
	}
}

struct poll_scan {
	struct files *files;
	struct pollfd *fds;
	unsigned nfds;
};

static long scan_pollfds(void *arg)
{
	struct poll_scan *s = arg;
	long ready = 0;
	for (unsigned i = 0; i < s->nfds; i++) {
		struct pollfd *p = &s->fds[i];
		p->revents = 0;
		if (p->fd < 0)
			continue;
		struct file *f = fd_get(s->files, p->fd);
		unsigned m = POLLNVAL;
		if (f && !(f->fmode & FMODE_PATH))
			m = file_poll(f) & ((unsigned)(uint16_t)p->events | POLLERR | POLLHUP);
		file_put(f);
		p->revents = (short)m;
		ready += m != 0;
	}
	return ready;
}

long poll_fds(struct files *files, struct pollfd *fds, unsigned nfds,
	      uint64_t deadline, bool nowait)
{
	struct poll_scan s = { files, fds, nfds };
	return poll_wait_loop(scan_pollfds, &s, deadline, nowait);
}

/* ---- time and signal-mask arguments ---- */

int timespec_deadline(const struct __kernel_timespec *ts, uint64_t *deadline,
		      bool *nowait)
{
	if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000)
		return -EINVAL;
	uint64_t ns;
	if (__builtin_mul_overflow((uint64_t)ts->tv_sec, 1000000000ULL, &ns) ||
	    __builtin_add_overflow(ns, (uint64_t)ts->tv_nsec, &ns))
		ns = UINT64_MAX / 2;
	*nowait = ns == 0;
	*deadline = vfs_time_ns() + (ns > UINT64_MAX / 2 ? UINT64_MAX / 2 : ns);
	return 0;
}

void timespec_remaining(struct __kernel_timespec *uts, uint64_t deadline)
{
	uint64_t now = vfs_time_ns();
	uint64_t left = deadline > now ? deadline - now : 0;
	struct __kernel_timespec ts = { (long long)(left / 1000000000),
					(long long)(left % 1000000000) };
	copy_to_user(uts, &ts, sizeof(ts));   /* failure is ignored, as Linux */
}

#define UNBLOCKABLE ((1ULL << (SIGKILL - 1)) | (1ULL << (SIGSTOP - 1)))

int sigmask_swap(const void *umask, size_t size, uint64_t *old, bool *swapped)
{
	*swapped = false;
	if (!umask)
		return 0;
	if (size != sizeof(uint64_t))
		return -EINVAL;
	uint64_t mask;
	if (copy_from_user(&mask, umask, sizeof(mask)))
		return -EFAULT;
	struct task *t = current;
	*old = t->sigmask;
	t->sigmask = mask & ~UNBLOCKABLE;
	*swapped = true;
	return 0;
}

void sigmask_restore(uint64_t old, bool swapped, long result)
{
	if (!swapped)
		return;
	if (result == -EINTR)
		signal_restore_mask_after_delivery(old);
	else
		current->sigmask = old;
}

/* ---- the system calls ---- */

static long do_poll(uint64_t ufds, uint64_t nfds, uint64_t deadline, bool nowait)
{
	if (nfds > MAX_FDS)
		return -EINVAL;
	size_t bytes = nfds * sizeof(struct pollfd);
	struct pollfd *fds = kmalloc(bytes ? bytes : 1);
	if (!fds)
		return -ENOMEM;
	long r = copy_from_user(fds, (void *)ufds, bytes);
	if (!r)
		r = poll_fds(current->files, fds, (unsigned)nfds, deadline, nowait);
	if (r >= 0 || r == -EINTR)
		if (copy_to_user((void *)ufds, fds, bytes))
			r = -EFAULT;
	kfree(fds);
	return r;
}

SYSCALL_DEFINE3(poll, uint64_t, ufds, unsigned long, nfds, int, timeout)
{
	uint64_t deadline = 0;
	if (timeout > 0)
		deadline = vfs_time_ns() + (uint64_t)timeout * 1000000ULL;
	return do_poll(ufds, nfds, deadline, timeout == 0);
}

SYSCALL_DEFINE5(ppoll, uint64_t, ufds, unsigned long, nfds,
		struct __kernel_timespec __user *, tsp,
		const void __user *, sigmask, size_t, sigsetsize)
{
	uint64_t deadline = 0, old = 0;
	bool nowait = false, swapped;
	struct __kernel_timespec ts;
	if (tsp) {
		if (copy_from_user(&ts, tsp, sizeof(ts)))
			return -EFAULT;
		int e = timespec_deadline(&ts, &deadline, &nowait);
		if (e)
			return e;
	}
	int e = sigmask_swap(sigmask, sigsetsize, &old, &swapped);
	if (e)
		return e;
	long r = do_poll(ufds, nfds, deadline, nowait);
	sigmask_restore(old, swapped, r);
	if (tsp)
		timespec_remaining(tsp, deadline);
	return r;
}

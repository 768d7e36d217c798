/*
 * signalfd(2) and signalfd4(2), as Linux's fs/signalfd.c: a descriptor
 * that reads the caller's pending signals of a set as struct
 * signalfd_siginfo (128 bytes each), taking them as delivery would
 * (the program blocks them so that they wait for it). read(2) returns as
 * many as fit, blocking for the first (EAGAIN under SFD_NONBLOCK, EINTR
 * or a restart when another signal comes); poll says POLLIN while one of
 * the set is pending for the thread that polls. SIGKILL and SIGSTOP are
 * never in the set. Errnos as Linux: EINVAL for unknown flags, a mask
 * size other than 8, a descriptor that is no signalfd, a read buffer
 * under 128 bytes; EBADF; EFAULT.
 *
 * As on Linux, the signals read are those of the reading thread:
 * process-directed signals are queued on one thread (core/proc/signal.c),
 * which is the one that reads them.
 *
 * Locking: the set is a word written by signalfd4 and read atomically;
 * the pending signals are signal.c's, under its lock.
 */
#include <linux/signalfd.h>
#include <linux/poll.h>
#include "fs.h"
#include "sys.h"
#include "core/mm/mm.h"
#include "core/mm/uaccess.h"
#include "core/proc/signal.h"

#define SFD_FLAGS (SFD_CLOEXEC | SFD_NONBLOCK)
#define NEVER_READ ((1ULL << (SIGKILL - 1)) | (1ULL << (SIGSTOP - 1)))

static const struct file_ops signalfd_ops;

static uint64_t set_of(struct file *f)
{
	return __atomic_load_n((uint64_t *)&f->priv, __ATOMIC_ACQUIRE);
}

static void fill(struct signalfd_siginfo *o, const struct ksiginfo *k)
{
	memset(o, 0, sizeof(*o));
	o->ssi_signo = (uint32_t)k->signo;
	o->ssi_errno = k->errno_;
	o->ssi_code = k->code;
	o->ssi_pid = (uint32_t)k->pid;
	o->ssi_uid = k->uid;
	o->ssi_fd = k->fd;
	o->ssi_band = (uint32_t)k->band;
	o->ssi_status = k->status;
	o->ssi_int = (int32_t)k->value;
	o->ssi_ptr = k->value;
	o->ssi_addr = k->addr;
}

static long sfd_read(struct file *f, struct uio *u, uint64_t *pos)
{
	struct signalfd_siginfo out;
	if (u->resid < sizeof(out))
		return -EINVAL;
	long done = 0;
	while (u->resid >= sizeof(out)) {
		struct ksiginfo k;
		uint64_t set = set_of(f);
		if (!signal_dequeue_set(set, &k)) {
			if (done)
				break;
			if (f->flags & O_NONBLOCK)
				return -EAGAIN;
			long r = signal_wait_set(set);
			if (r)
				return r;
			continue;
		}
		fill(&out, &k);
		if (uio_copy_out(u, &out, sizeof(out)) != sizeof(out))
			return done ? done : -EFAULT; /* the signal is taken: as Linux */
		done += sizeof(out);
	}
	return done;
}

static unsigned sfd_poll(struct file *f)
{
	return signal_pending_in(set_of(f)) ? POLLIN | POLLRDNORM : 0;
}

static int64_t sfd_lseek(struct file *f, int64_t off, int whence)
{
	return 0; /* Linux's noop_llseek */
}

static const struct file_ops signalfd_ops = {
	.read = sfd_read,
	.poll = sfd_poll,
	.lseek = sfd_lseek,
};

SYSCALL_DEFINE4(signalfd4, int, ufd, uint64_t, umask, size_t, sizemask, int, flags)
{
	uint64_t set;
	if (sizemask != sizeof(set))
		return -EINVAL;
	if (copy_from_user(&set, (const void __user *)umask, sizeof(set)))
		return -EFAULT;
	if (flags & ~SFD_FLAGS) /* after the copy, as Linux */
		return -EINVAL;
	set &= ~NEVER_READ;
	if (ufd != -1) { /* a new set for an existing signalfd */
		struct file *f = fget(ufd);
		if (!f)
			return -EBADF;
		bool ours = f->ops == &signalfd_ops;
		if (ours)
			__atomic_store_n((uint64_t *)&f->priv, set, __ATOMIC_RELEASE);
		file_put(f);
		return ours ? ufd : -EINVAL;
	}
	struct file *f = file_new_anon(&signalfd_ops, (void *)set,
				       O_RDWR | (flags & SFD_NONBLOCK), 0600);
	if (!f)
		return -ENOMEM;
	int fd = task_install(f, flags & SFD_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

SYSCALL_DEFINE3(signalfd, int, ufd, uint64_t, umask, size_t, sizemask)
{
	return sys_signalfd4(ufd, umask, sizemask, 0);
}

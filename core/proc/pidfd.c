/* pidfd_open(2): a file descriptor that becomes readable (POLLIN) when
 * the process it names has exited and can be reaped: as Linux, which
 * makes it readable when the zombie is ready for wait, so that
 * waitpid(WNOHANG) after a readable poll finds it. Nothing else is
 * supported on it yet (pidfd_send_signal, waitid P_PIDFD). */
#include <linux/errno.h>
#include <linux/fcntl.h>
#include <linux/poll.h>
#include "core/kernel.h"
#include "syscall.h"
#include "process.h"
#include "task.h"
#include "core/proc/tasks.h"
#include "core/fs/vfs.h"

static unsigned pidfd_poll(struct file *f)
{
	int pid = (int)(long)f->priv;
	struct task *t = task_find_pinned(pid);
	if (!t)
		return POLLIN | POLLRDNORM;
	/* pidfd_open took a process's pid: its leader is t itself, and
	 * a thread with that tid now means the process is gone; a leader
	 * gone before its other threads is a zombie not yet reapable. */
	bool exited = t->tgid != pid || t->state == TASK_DEAD || process_reapable(t);
	task_unpin(t);
	return exited ? POLLIN | POLLRDNORM : 0;
}

static const struct file_ops pidfd_ops = {
	.poll = pidfd_poll,
};

SYSCALL_DEFINE2(pidfd_open, pid_t, pid, unsigned int, flags)
{
	if (flags & ~(unsigned)O_NONBLOCK)
		return -EINVAL;
	if (pid <= 0)
		return -EINVAL;
	struct task *t = task_find_pinned(pid);
	if (!t)
		return -ESRCH;
	bool thread = t->tgid != pid;
	task_unpin(t);
	if (thread)
		return -EINVAL; /* a thread, not a process */
	return pidfd_create(pid, flags);
}

int pidfd_create(int pid, unsigned flags)
{
	struct file *f = file_new_anon(&pidfd_ops, (void *)(long)pid,
				       O_RDWR | (int)flags, 0600);
	if (!f)
		return -ENOMEM;
	int fd = fd_install(current->files, f, O_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

/*
 * Descriptor system calls: dup, dup2, dup3, fcntl, ioctl, pipe, pipe2.
 *
 * fcntl's owner and signal settings (F_SETOWN, F_SETOWN_EX, F_SETSIG)
 * and O_ASYNC are fasync.c's: files that signal use them; record locks
 * are accepted and checked but not enforced (F_GETLK always finds the
 * range unlocked): processes here do not share files on disk.
 */
#include <asm/ioctls.h>
#include "fasync.h"
#include "sys.h"

SYSCALL_DEFINE1(dup, unsigned int, fildes)
{
	struct file *f = task_file(fildes);
	if (!f)
		return -EBADF;
	int fd = fd_install_from(current->files, f, 0, false);
	if (fd < 0)
		file_put(f);
	return fd;
}

SYSCALL_DEFINE2(dup2, unsigned int, oldfd, unsigned int, newfd)
{
	if (oldfd == newfd) {
		struct file *f = task_file(oldfd);
		file_put(f);
		return f ? (long)newfd : -EBADF;
	}
	if (oldfd > INT32_MAX || newfd > INT32_MAX)
		return -EBADF;
	return fd_dup2(current->files, (int)oldfd, (int)newfd, false);
}

SYSCALL_DEFINE3(dup3, unsigned int, oldfd, unsigned int, newfd, int, flags)
{
	if (flags & ~O_CLOEXEC)
		return -EINVAL;
	if (oldfd == newfd)
		return -EINVAL;
	if (oldfd > INT32_MAX || newfd > INT32_MAX)
		return -EBADF;
	return fd_dup2(current->files, (int)oldfd, (int)newfd, flags & O_CLOEXEC);
}

/* ---- fcntl ---- */

/* FASYNC is not among them: a file's fasync op sets and clears it. */
#define SETFL_MASK (O_APPEND | O_NONBLOCK | O_DIRECT | O_NOATIME)

/* Replace the bits of f->flags in mask (other bits are kept). */
static void set_flags(struct file *f, unsigned mask, unsigned val)
{
	unsigned old = __atomic_load_n(&f->flags, __ATOMIC_RELAXED), nv;
	do {
		nv = (old & ~mask) | (val & mask);
	} while (!__atomic_compare_exchange_n(&f->flags, &old, nv, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

static long fcntl_lock(struct file *f, unsigned cmd, uint64_t arg)
{
	struct flock fl;
	if (copy_from_user(&fl, (void *)arg, sizeof(fl)))
		return -EFAULT;
	if (fl.l_type != F_RDLCK && fl.l_type != F_WRLCK && fl.l_type != F_UNLCK)
		return -EINVAL;
	if (cmd == F_GETLK || cmd == F_OFD_GETLK) {
		if (fl.l_type == F_UNLCK)
			return -EINVAL;
		fl.l_type = F_UNLCK;
		return copy_to_user((void *)arg, &fl, sizeof(fl));
	}
	if ((fl.l_type == F_RDLCK && !(f->fmode & FMODE_READ)) ||
	    (fl.l_type == F_WRLCK && !(f->fmode & FMODE_WRITE)))
		return -EBADF;
	return 0;
}

/* F_SETFL: the file's fasync op sees O_ASYNC change first (Linux's
 * setfl), then the other flags are set. */
static long setfl(struct file *f, int fd, unsigned arg)
{
	long r = fasync_setfl(f, fd, arg & FASYNC);
	if (!r)
		set_flags(f, SETFL_MASK, arg);
	return r;
}

static long fcntl_file(struct file *f, int fd, unsigned cmd, uint64_t arg)
{
	switch (cmd) {
	case F_GETFL:
		return f->flags;
	case F_SETFL:
		return setfl(f, fd, (unsigned)arg);
	case F_GETOWN: case F_SETOWN: case F_GETOWN_EX: case F_SETOWN_EX:
		return fasync_owner_fcntl(f, cmd, arg);
	case F_GETSIG:
		return f->owner_sig;
	case F_SETSIG:  /* an int; 0 restores SIGIO */
		if ((unsigned)(int)arg > 64)
			return -EINVAL;
		f->owner_sig = (int)arg;
		return 0;
	case F_GETPIPE_SZ: case F_SETPIPE_SZ:
		return pipe_fcntl_size(f, cmd == F_SETPIPE_SZ, arg);
	case F_GETLK: case F_SETLK: case F_SETLKW:
	case F_OFD_GETLK: case F_OFD_SETLK: case F_OFD_SETLKW:
		return fcntl_lock(f, cmd, arg);
	case F_GETLEASE:
		return F_UNLCK;
	default:
		return -EINVAL;
	}
}

SYSCALL_DEFINE3(fcntl, unsigned int, fd, unsigned int, cmd, unsigned long, arg)
{
	struct file *f = task_file(fd);
	if (!f)
		return -EBADF;
	struct files *files = current->files;
	long r;
	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) {
		r = arg >= MAX_FDS ? -EINVAL :
		    fd_install_from(files, f, (int)arg, cmd == F_DUPFD_CLOEXEC);
		if (r >= 0)
			return r;       /* the table took our reference */
	} else if (cmd == F_GETFD) {
		r = fd_get_cloexec(files, fd) > 0 ? FD_CLOEXEC : 0;
	} else if (cmd == F_SETFD) {
		r = fd_set_cloexec(files, fd, arg & FD_CLOEXEC);
	} else if (f->fmode & FMODE_PATH) {
		r = -EBADF;
	} else {
		r = fcntl_file(f, fd, cmd, arg);
	}
	file_put(f);
	return r;
}

/* ---- ioctl ---- */

/* The commands every descriptor understands; -ENOIOCTLCMD for others. */
static long ioctl_generic(int fd, struct file *f, unsigned cmd, uint64_t arg)
{
	int on;
	struct inode *ino = f->path.inode;
	switch (cmd) {
	case FIOCLEX: case FIONCLEX:
		return fd_set_cloexec(current->files, fd, cmd == FIOCLEX);
	case FIONBIO:
		if (get_user(on, (int *)arg))
			return -EFAULT;
		set_flags(f, O_NONBLOCK, on ? ~0u : 0);
		return 0;
	case FIOASYNC: /* the fasync op sets the flag; ENOTTY without one */
		if (get_user(on, (int *)arg))
			return -EFAULT;
		if (!on == !(f->flags & FASYNC))
			return 0;
		return f->ops && f->ops->fasync ? fasync_setfl(f, fd, on) : -ENOTTY;
	case FIONREAD:
		if (!S_ISREG(ino->mode))
			return -ENOIOCTLCMD;
		return put_user((int)(ino->size > f->pos ? ino->size - f->pos : 0),
				(int *)arg);
	case FIOQSIZE:
		if (!S_ISREG(ino->mode) && !S_ISDIR(ino->mode) && !S_ISLNK(ino->mode))
			return -ENOTTY;
		return put_user((int64_t)ino->size, (int64_t *)arg);
	default:
		return -ENOIOCTLCMD;
	}
}

SYSCALL_DEFINE3(ioctl, unsigned int, fd, unsigned int, cmd, unsigned long, arg)
{
	bool ref;
	struct file *f = task_file_io_light(fd, &ref);
	if (!f)
		return -EBADF;
	long r = ioctl_generic(fd, f, cmd, arg);
	if (r == -ENOIOCTLCMD)
		r = f->ops && f->ops->ioctl ? f->ops->ioctl(f, cmd, arg) : -ENOTTY;
	task_file_done(f, ref);
	return r;
}

/* ---- pipes ---- */

static long do_pipe2(uint64_t ufds, int flags)
{
	if (flags & ~(O_CLOEXEC | O_NONBLOCK | O_DIRECT))
		return -EINVAL;
	struct files *files = current->files;
	struct file *rd, *wr;
	int fds[2] = { fd_reserve(files, flags & O_CLOEXEC), -1 };
	if (fds[0] >= 0)
		fds[1] = fd_reserve(files, flags & O_CLOEXEC);
	long r = fds[0] < 0 ? fds[0] : fds[1] < 0 ? fds[1] : 0;
	if (!r)
		r = pipe_create(&rd, &wr, flags);
	if (!r && copy_to_user((void *)ufds, fds, sizeof(fds))) {
		file_put(rd);
		file_put(wr);
		r = -EFAULT;
	}
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			fd_commit(files, fds[i], r ? NULL : i ? wr : rd);
	return r;
}

SYSCALL_DEFINE1(pipe, uint64_t, ufds)
{
	return do_pipe2(ufds, 0);
}

SYSCALL_DEFINE2(pipe2, uint64_t, ufds, int, flags)
{
	return do_pipe2(ufds, flags);
}

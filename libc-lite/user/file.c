/*
 * file.c: system calls on file descriptors: open, read, write, seek,
 * close, duplicate, pipe, fcntl, ioctl.
 *
 * open() and friends use the x86-64 system calls of the same name
 * (open, not openat with AT_FDCWD), so strace shows what the program
 * wrote. O_LARGEFILE is never added: on x86-64 every file is "large".
 */
#include <fcntl.h>
#include <stdarg.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/fs.h>
#include "sys.h"

_Static_assert(SEEK_SET == 0 && SEEK_CUR == 1 && SEEK_END == 2,
               "unistd.h SEEK_* differ from <linux/fs.h>");

/* Whether open's mode argument is present (O_TMPFILE includes O_DIRECTORY). */
static int takes_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (takes_mode(flags)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return __syscall_ret(sys3(__NR_open, path, flags, mode));
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (takes_mode(flags)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return __syscall_ret(sys4(__NR_openat, dirfd, path, flags, mode));
}

int creat(const char *path, mode_t mode)
{
	return open(path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

int close(int fd)
{
	return __syscall_ret(sys1(__NR_close, fd));
}

ssize_t read(int fd, void *buf, size_t n)
{
	return __syscall_ret(sys3(__NR_read, fd, buf, n));
}

ssize_t write(int fd, const void *buf, size_t n)
{
	return __syscall_ret(sys3(__NR_write, fd, buf, n));
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return __syscall_ret(sys4(__NR_pread64, fd, buf, n, off));
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return __syscall_ret(sys4(__NR_pwrite64, fd, buf, n, off));
}

ssize_t readv(int fd, const struct iovec *iov, int n)
{
	return __syscall_ret(sys3(__NR_readv, fd, iov, n));
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	return __syscall_ret(sys3(__NR_writev, fd, iov, n));
}

off_t lseek(int fd, off_t off, int whence)
{
	return __syscall_ret(sys3(__NR_lseek, fd, off, whence));
}

int dup(int fd)
{
	return __syscall_ret(sys1(__NR_dup, fd));
}

int dup2(int fd, int newfd)
{
	return __syscall_ret(sys2(__NR_dup2, fd, newfd));
}

int dup3(int fd, int newfd, int flags)
{
	return __syscall_ret(sys3(__NR_dup3, fd, newfd, flags));
}

int pipe(int fds[2])
{
	return __syscall_ret(sys1(__NR_pipe, fds));
}

int pipe2(int fds[2], int flags)
{
	return __syscall_ret(sys2(__NR_pipe2, fds, flags));
}

/* Like syscall(): the argument is always fetched (see syscall.c). */
int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	return __syscall_ret(sys3(__NR_fcntl, fd, cmd, arg));
}

int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	long arg;

	va_start(ap, request);
	arg = va_arg(ap, long);
	va_end(ap);
	return __syscall_ret(sys3(__NR_ioctl, fd, request, arg));
}

/* A terminal is whatever answers TCGETS; anything else gives ENOTTY. */
int isatty(int fd)
{
	struct termios t;

	return ioctl(fd, TCGETS, &t) == 0;
}

int eventfd(unsigned int count, int flags)
{
	return __syscall_ret(sys2(__NR_eventfd2, count, flags));
}

/*
 * fs.c: system calls on the file-system name space: stat, access, links,
 * directories, the working directory, the umask.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include "sys.h"

int stat(const char *restrict path, struct stat *restrict st)
{
	return __syscall_ret(sys2(__NR_stat, path, st));
}

int fstat(int fd, struct stat *st)
{
	return __syscall_ret(sys2(__NR_fstat, fd, st));
}

int lstat(const char *restrict path, struct stat *restrict st)
{
	return __syscall_ret(sys2(__NR_lstat, path, st));
}

int access(const char *path, int mode)
{
	return __syscall_ret(sys2(__NR_access, path, mode));
}

int mkdir(const char *path, mode_t mode)
{
	return __syscall_ret(sys2(__NR_mkdir, path, mode));
}

int rmdir(const char *path)
{
	return __syscall_ret(sys1(__NR_rmdir, path));
}

int unlink(const char *path)
{
	return __syscall_ret(sys1(__NR_unlink, path));
}

int chmod(const char *path, mode_t mode)
{
	return __syscall_ret(sys2(__NR_chmod, path, mode));
}

mode_t umask(mode_t mask)
{
	return (mode_t)sys1(__NR_umask, mask);   /* cannot fail */
}

int chdir(const char *path)
{
	return __syscall_ret(sys1(__NR_chdir, path));
}

ssize_t getdents64(int fd, void *buf, size_t len)
{
	return __syscall_ret(sys3(__NR_getdents64, fd, buf, len));
}

/* The system call returns the length with the NUL; we return buf. */
char *getcwd(char *buf, size_t size)
{
	char *mine = NULL;

	if (buf == NULL) {
		size = size ? size : PATH_MAX;
		buf = mine = malloc(size);
		if (buf == NULL)
			return NULL;
	}
	if (__syscall_ret(sys2(__NR_getcwd, buf, size)) < 0) {
		free(mine);
		return NULL;
	}
	return buf;
}

int statfs(const char *path, struct statfs *buf)
{
	return __syscall_ret(sys2(__NR_statfs, path, buf));
}

int fstatfs(int fd, struct statfs *buf)
{
	return __syscall_ret(sys2(__NR_fstatfs, fd, buf));
}

/*
 * process.c: creating, replacing, ending and waiting for processes.
 *
 * fork() is the fork system call (57), not clone. _exit() is exit_group,
 * which ends every thread (libc-lite programs have one).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sys.h"

pid_t fork(void)
{
	return __syscall_ret(sys0(__NR_fork));
}

int execve(const char *path, char *const argv[], char *const envp[])
{
	return __syscall_ret(sys3(__NR_execve, path, argv, envp));
}

int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

/*
 * Try file in each directory of $PATH ("/bin" when unset); an empty
 * name is ENOENT, a name with a '/' is used as it is. Like other C
 * libraries: an EACCES seen along the way is reported if nothing ran,
 * otherwise the last error (ENOENT when the name is nowhere).
 */
int execvp(const char *file, char *const argv[])
{
	const char *path = getenv("PATH");
	size_t flen = strlen(file);
	int seen_eacces = 0;

	if (*file == '\0') {
		errno = ENOENT;
		return -1;
	}
	if (strchr(file, '/'))
		return execve(file, argv, environ);
	if (path == NULL)
		path = "/bin";
	for (const char *p = path;; p++) {
		size_t dlen = strcspn(p, ":");
		char full[PATH_MAX];
		if (dlen + 1 + flen < sizeof(full)) {
			memcpy(full, p, dlen);
			full[dlen] = '/';
			memcpy(full + dlen + 1, file, flen + 1);
			execve(dlen ? full : file, argv, environ);
			seen_eacces |= errno == EACCES;
		}
		p += dlen;
		if (*p == '\0')
			break;
	}
	if (seen_eacces)
		errno = EACCES;
	return -1;
}

__attribute__((noreturn)) void _exit(int status)
{
	for (;;)
		sys1(__NR_exit_group, status);
}

pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	return __syscall_ret(sys4(__NR_wait4, pid, status, options, ru));
}

pid_t waitpid(pid_t pid, int *status, int options)
{
	return wait4(pid, status, options, NULL);
}

pid_t wait(int *status)
{
	return wait4(-1, status, 0, NULL);
}

/* child.c: child processes for tests (abi.h, perf.h). */
#include <sys/wait.h>
#include <unistd.h>
#include "perf.h"

pid_t waiting_child(int fd[2])
{
	pid_t pid;
	char c;

	if (pipe(fd) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fd[1]);
		if (read(fd[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(fd[0]);
	return pid;
}

void release_child(pid_t pid, int fd[2])
{
	close(fd[1]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

void in_child(void (*fn)(long), long arg, const char *what)
{
	int p[2], counts[2] = { 0, 0 }, st = -1;
	ssize_t n;
	pid_t pid;

	if (pipe(p) != 0) {
		CHECK(0, "%s: pipe", what);
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		abi_passed = abi_failed = 0;
		fn(arg);
		counts[0] = abi_passed;
		counts[1] = abi_failed;
		if (write(p[1], counts, sizeof(counts)) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	n = pid < 0 ? -1 : read(p[0], counts, sizeof(counts));
	if (pid > 0)
		waitpid(pid, &st, 0);
	close(p[0]);
	if (n == (ssize_t)sizeof(counts)) {
		abi_passed += counts[0];
		abi_failed += counts[1];
	}
	CHECK(n == (ssize_t)sizeof(counts) && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, "%s: the child process finishes", what);
}

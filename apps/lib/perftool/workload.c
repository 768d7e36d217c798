/*
 * The measured program. It is forked first and waits on a pipe, so the
 * counters can be opened on its pid before it runs; one byte starts it
 * (it execs, and enable_on_exec starts task counters there). It holds
 * the write end of a second pipe, close-on-exec: the tool reads end of
 * file there once the exec is done, or the errno of a failed exec.
 * Waiting with a timeout polls a pidfd, which becomes readable when the
 * program exits; without pidfd_open it sleeps and checks. The tool
 * ignores SIGINT while the program runs, so ^C ends the program and the
 * tool still reports what it measured.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "perftool.h"

static void child(const char *tool, int go, int execd, char **argv, bool stdout_to_stderr)
{
	char byte;
	if (read(go, &byte, 1) != 1)
		_exit(127); /* the tool gave up before starting it */
	if (stdout_to_stderr)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	execvp(argv[0], argv);
	int err = errno;
	fprintf(stderr, "%s: %s: %s\n", tool, argv[0], strerror(err));
	if (write(execd, &err, sizeof err) < 0)
		_exit(127);
	_exit(127);
}

static void complain(const struct workload *w, const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", w->tool, what, strerror(errno));
}

bool workload_prepare(struct workload *w, const char *tool, char **argv, bool stdout_to_stderr)
{
	int go[2], execd[2];
	memset(w, 0, sizeof *w);
	w->tool = tool;
	w->go = w->execd = w->pidfd = -1;
	if (pipe2(go, O_CLOEXEC) || pipe2(execd, O_CLOEXEC)) {
		complain(w, "pipe");
		return false;
	}
	fflush(NULL);
	w->pid = fork();
	if (w->pid < 0) {
		complain(w, "fork");
		return false;
	}
	if (w->pid == 0) {
		close(go[1]);
		close(execd[0]);
		child(tool, go[0], execd[1], argv, stdout_to_stderr);
	}
	close(go[0]);
	close(execd[1]);
	w->go = go[1];
	w->execd = execd[0];
	w->pidfd = (int)syscall(SYS_pidfd_open, w->pid, 0);
	signal(SIGINT, SIG_IGN);
	return true;
}

void workload_start(struct workload *w)
{
	if (write(w->go, "x", 1) != 1)
		complain(w, "starting the program");
	close(w->go);
	w->go = -1;
}

bool workload_wait_exec(struct workload *w)
{
	int err = 0;
	ssize_t n;
	while ((n = read(w->execd, &err, sizeof err)) < 0 && errno == EINTR)
		;
	return n == 0;
}

static bool reap(struct workload *w, int flags)
{
	struct rusage ru;
	pid_t r;
	while ((r = wait4(w->pid, &w->status, flags, &ru)) < 0 && errno == EINTR)
		;
	if (r != w->pid)
		return false;
	w->utime_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000ULL + (uint64_t)ru.ru_utime.tv_usec * 1000;
	w->stime_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000ULL + (uint64_t)ru.ru_stime.tv_usec * 1000;
	if (w->pidfd >= 0)
		close(w->pidfd);
	if (w->execd >= 0)
		close(w->execd);
	w->pidfd = w->execd = -1;
	signal(SIGINT, SIG_DFL);
	return true;
}

void workload_abort(struct workload *w)
{
	if (w->go >= 0)
		close(w->go); /* the child reads end of file and exits */
	w->go = -1;
	reap(w, 0);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

bool workload_wait(struct workload *w, int timeout_ms)
{
	if (timeout_ms < 0)
		return reap(w, 0);
	if (w->pidfd >= 0) {
		struct pollfd p = { .fd = w->pidfd, .events = POLLIN };
		if (poll(&p, 1, timeout_ms) <= 0)
			return false;
	} else {
		if (reap(w, WNOHANG))
			return true;
		sleep_ms(timeout_ms < 10 ? timeout_ms : 10);
	}
	return reap(w, WNOHANG);
}

int workload_exit_status(const struct workload *w)
{
	return WIFEXITED(w->status) ? WEXITSTATUS(w->status) : 128 + WTERMSIG(w->status);
}

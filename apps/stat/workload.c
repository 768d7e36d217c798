/*
 * The measured program. It is forked first and waits on a pipe, so the
 * counters can be opened on its pid before it runs; one byte starts it
 * (it execs, and enable_on_exec starts task counters there). Waiting
 * with a timeout (for -I) polls a pidfd, which becomes readable when the
 * program exits; without pidfd_open it sleeps and checks. stat ignores
 * SIGINT while the program runs, so ^C ends the program and stat still
 * prints what was counted.
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
#include "stat.h"

static void child(int go, char **argv)
{
	char byte;
	if (read(go, &byte, 1) != 1)
		_exit(127); /* stat gave up before starting it */
	execvp(argv[0], argv);
	fprintf(stderr, "stat: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

bool workload_prepare(struct workload *w, char **argv)
{
	int go[2];
	memset(w, 0, sizeof *w);
	if (pipe2(go, O_CLOEXEC)) {
		perror("stat: pipe");
		return false;
	}
	fflush(NULL);
	w->pid = fork();
	if (w->pid < 0) {
		perror("stat: fork");
		return false;
	}
	if (w->pid == 0) {
		close(go[1]);
		child(go[0], argv);
	}
	close(go[0]);
	w->go = go[1];
	w->pidfd = (int)syscall(SYS_pidfd_open, w->pid, 0);
	signal(SIGINT, SIG_IGN);
	return true;
}

void workload_start(struct workload *w)
{
	if (write(w->go, "x", 1) != 1)
		perror("stat: starting the program");
	close(w->go);
	w->go = -1;
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
	w->pidfd = -1;
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

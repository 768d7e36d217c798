/*
 * exec.c: running a program: fork, execvp in the child, wait4 in the
 * parent, and the status and message for each way it can end.
 *
 * The child reports a failed exec itself (it has the errno) and exits
 * 127 or 126, so the parent needs no side channel. The signals an
 * interactive shell ignores get their default action back before the
 * exec (an ignored signal would stay ignored in the new program).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sh.h"

__attribute__((noreturn)) static void child(char **argv)
{
	int err;

	if (sh.interactive) {   /* main() ignored these */
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
	}
	execvp(argv[0], argv);
	err = errno;
	if (err == ENOENT) {
		dprintf(2, "sh: %s: command not found\n", argv[0]);
		_exit(127);
	}
	dprintf(2, "sh: %s: %s\n", argv[0], strerror(err));
	_exit(126);
}

/* The shell's status for a wait status, with a message for a signal. */
static int status_of(const char *name, int st)
{
	int sig;
	const char *abbrev;

	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (!WIFSIGNALED(st))
		return 128;   /* not waited for with WUNTRACED: unreachable */
	sig = WTERMSIG(st);
	abbrev = sigabbrev_np(sig);
	fprintf(stderr, "sh: %s: terminated by signal %d (%s%s)%s\n", name,
	        sig, abbrev ? "SIG" : "", abbrev ? abbrev : strsignal(sig),
	        WCOREDUMP(st) ? " (core dumped)" : "");
	return 128 + sig;
}

int sh_exec(char **argv)
{
	pid_t pid, got;
	int st = 0;

	fflush(NULL);   /* or the child would write our buffer again */
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "sh: fork: %s\n", strerror(errno));
		return 126;
	}
	if (pid == 0)
		child(argv);
	do
		got = wait4(pid, &st, 0, NULL);
	while (got < 0 && errno == EINTR);
	if (got < 0) {
		fprintf(stderr, "sh: wait: %s\n", strerror(errno));
		return 126;
	}
	/* Reap orphans handed to us (as init): they would stay zombies. */
	while (wait4(-1, NULL, WNOHANG, NULL) > 0)
		;
	return status_of(argv[0], st);
}

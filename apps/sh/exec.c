/*
 * exec.c: running a program: fork, execvp in the child, wait4 in the
 * parent, and the status and message for each way it can end; reaping
 * the orphans the shell adopts as pid 1.
 *
 * The shell starts no background jobs, so any child other than the
 * command running is an orphan the kernel handed to init: it is reaped
 * as soon as it exits, while a command runs (the wait takes any child
 * and drops the others) and at the prompt (the SIGCHLD handler). SIGCHLD
 * is blocked while a command runs, so the handler never takes the
 * command's own status.
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

static sigset_t sh_saved_mask;   /* the mask outside sh_exec */

__attribute__((noreturn)) static void child(char **argv)
{
	int err;

	if (sh.interactive) {   /* main() ignored these */
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
	}
	sigprocmask(SIG_SETMASK, &sh_saved_mask, NULL);   /* a mask stays over exec */
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

/* At the prompt: reap every orphan that has exited (errno is kept). */
static void reap_orphans(int sig)
{
	int saved = errno;

	(void)sig;
	while (wait4(-1, NULL, WNOHANG, NULL) > 0)
		;
	errno = saved;
}

void sh_reap_orphans_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = reap_orphans;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGCHLD, &sa, NULL);
	reap_orphans(SIGCHLD);   /* any that exited before */
}

/* Wait for pid, reaping any orphan that exits meanwhile. */
static pid_t wait_command(pid_t pid, int *st)
{
	pid_t got;

	for (;;) {
		got = wait4(-1, st, 0, NULL);
		if (got == pid || (got < 0 && errno != EINTR))
			return got;
	}
}

int sh_exec(char **argv)
{
	pid_t pid, got;
	int st = 0;
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &sh_saved_mask);
	fflush(NULL);   /* or the child would write our buffer again */
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "sh: fork: %s\n", strerror(errno));
		sigprocmask(SIG_SETMASK, &sh_saved_mask, NULL);
		return 126;
	}
	if (pid == 0)
		child(argv);
	got = wait_command(pid, &st);
	sigprocmask(SIG_SETMASK, &sh_saved_mask, NULL);
	if (got < 0) {
		fprintf(stderr, "sh: wait: %s\n", strerror(errno));
		return 126;
	}
	return status_of(argv[0], st);
}

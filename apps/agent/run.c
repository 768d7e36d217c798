/*
 * Running one command for the host: fork, stdin from /dev/null, stdout
 * and stderr on pipes whose bytes go out as OUTPUT frames, and EXIT with
 * the status once both pipes are closed and the child is reaped. The
 * command leads a process group of its own, so that run_kill ends it
 * with everything it started (a host that went away, a new session).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "agent.h"

#define MAX_ARGS 64

static pid_t child = -1;
static int pipes[2] = { -1, -1 };   /* read ends: stdout, stderr */

bool run_active(void)
{
	return child > 0;
}

int run_fd(int which)
{
	return pipes[which];
}

/* Split the NUL-terminated strings of a RUN payload into argv. */
static int split_argv(const uint8_t *p, size_t n, char **argv, char *store)
{
	memcpy(store, p, n);
	store[n] = 0;
	int argc = 0;
	for (size_t i = 0; i < n && argc < MAX_ARGS; i += strlen(store + i) + 1)
		argv[argc++] = store + i;
	argv[argc] = NULL;
	return argc;
}

static void exec_child(char **argv, int out[2], int err[2])
{
	setpgid(0, 0);
	int null = open("/dev/null", O_RDONLY);
	dup2(null, STDIN_FILENO);
	dup2(out[1], STDOUT_FILENO);
	dup2(err[1], STDERR_FILENO);
	close(out[0]);
	close(err[0]);
	execvp(argv[0], argv);
	int e = errno;
	dprintf(STDERR_FILENO, "%s: %s\n", argv[0], strerror(e));
	_exit(e == ENOENT ? 127 : 126);
}

void run_start(const uint8_t *p, size_t n)
{
	static char store[FRAME_MAX_PAYLOAD + 1];
	char *argv[MAX_ARGS + 1];
	if (child > 0) {
		send_result(-EBUSY, "a command is already running");
		return;
	}
	if (split_argv(p, n, argv, store) == 0) {
		send_result(-EINVAL, "empty command");
		return;
	}
	int out[2], err[2];
	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		send_result(-errno, "pipe");
		return;
	}
	child = fork();
	if (child == 0)
		exec_child(argv, out, err);
	close(out[1]);
	close(err[1]);
	if (child < 0) {
		send_result(-errno, "fork");
		close(out[0]);
		close(err[0]);
		return;
	}
	setpgid(child, child);   /* before run_kill can need it */
	pipes[0] = out[0];
	pipes[1] = err[0];
}

void run_kill(void)
{
	if (child <= 0)
		return;
	kill(-child, SIGKILL);
	kill(child, SIGKILL);
	for (int w = 0; w < 2; w++) {
		if (pipes[w] >= 0)
			close(pipes[w]);
		pipes[w] = -1;
	}
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	child = -1;
}

void run_drain(int which)
{
	uint8_t buf[FRAME_MAX_PAYLOAD];
	ssize_t n = read(pipes[which], buf, sizeof(buf));
	if (n > 0) {
		out_send(FRAME_OUTPUT, which ? CHAN_STDERR : CHAN_STDOUT, buf, (size_t)n);
		return;
	}
	if (n < 0 && errno == EINTR)
		return;
	close(pipes[which]);   /* end of file (or an error): done with it */
	pipes[which] = -1;
}

void run_check_exit(void)
{
	if (child <= 0 || pipes[0] >= 0 || pipes[1] >= 0 || !out_empty())
		return;
	int st;
	if (waitpid(child, &st, WNOHANG) != child)
		return;
	uint32_t code = WIFEXITED(st) ? (uint32_t)WEXITSTATUS(st)
				      : 128u + (uint32_t)WTERMSIG(st);
	/* The status as a shell gives it, then the signal that ended the
	 * command (0: it exited), which the host names as a shell does. */
	uint8_t p[8];
	put_le32(p, code);
	put_le32(p + 4, WIFSIGNALED(st) ? (uint32_t)WTERMSIG(st) : 0);
	out_send(FRAME_EXIT, CHAN_CONTROL, p, sizeof(p));
	child = -1;
}

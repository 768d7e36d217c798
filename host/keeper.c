/*
 * The warm target's keeper (warm.c has the state directory): a process
 * of its own session (setsid: no terminal, no process group to be
 * killed with the command that started it) that runs run-qemu.sh with
 * the agent serving session after session, and
 * - boots a new machine when QEMU stops without powering off (killed,
 *   a kernel panic), leaving a note the next command prints; twice in a
 *   row a machine that never answered ends it instead;
 * - stops QEMU on SIGTERM (`baremon down`) or once no command has used
 *   the target for its idle time, and removes the state directory;
 * - ends when the guest powers off (`baremon poweroff`).
 * run-qemu.sh gets SIGTERM when the keeper dies (PR_SET_PDEATHSIG), so
 * a killed keeper takes its QEMU with it; the next command replaces
 * both (warm_open).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "baremon.h"

#define POLL_MS 200

static volatile sig_atomic_t keeper_signal;

static void on_signal(int sig)
{
	keeper_signal = sig;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* The argument vector of run-qemu.sh for the options in t. */
static void boot_argv(const struct target *t, const char **argv)
{
	static char sock[600], pidfile[600];
	char path[512];
	int n = 0;
	bool smp = false;
	argv[n++] = run_qemu_path();
	argv[n++] = "--tcg-icount";
	argv[n++] = TARGET_DEFAULT_ICOUNT;
	for (int i = 0; i < t->nuser; i++) {
		smp |= !strcmp(t->qemu_args[i], "--smp");
		argv[n++] = t->qemu_args[i];
	}
	/* As bench_prepare shapes a QEMU of its own: bench runs on CPU 1,
	 * isolated; every other command runs on CPU 0. */
	if (!smp) {
		argv[n++] = "--smp";
		argv[n++] = "2";
		argv[n++] = "--cmdline";
		argv[n++] = "isolcpus=1";
	}
	warm_path(path, sizeof(path), "console.sock");
	snprintf(sock, sizeof(sock), "socket:%s", path);
	warm_path(pidfile, sizeof(pidfile), "qemu.pid");
	argv[n++] = "--serial";
	argv[n++] = sock;
	argv[n++] = "--pidfile";
	argv[n++] = pidfile;
	argv[n++] = "--quiet";
	argv[n++] = "--run";
	argv[n++] = "agent --serve";
	argv[n] = NULL;
}

static pid_t spawn(const char **argv)
{
	char log[512];
	warm_path(log, sizeof(log), "run-qemu.log");
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		signal(SIGTERM, SIG_DFL);
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* No command for idle_s seconds, and none holding the target now (the
 * lock is then kept, so none starts while we stop). */
static bool idle_over(int idle_s, int *lock)
{
	char path[512];
	struct stat st;
	warm_path(path, sizeof(path), "used");
	if (idle_s <= 0 || stat(path, &st) != 0 || time(NULL) - st.st_mtime < idle_s)
		return false;
	warm_path(path, sizeof(path), "lock");
	*lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (*lock >= 0 && flock(*lock, LOCK_EX | LOCK_NB) == 0)
		return true;
	if (*lock >= 0)
		close(*lock);
	*lock = -1;
	return false;
}

/* Wait for run-qemu.sh; its status, or -1 when we stopped it. */
static int watch(pid_t pid, int idle_s)
{
	int lock = -1;
	for (;;) {
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (keeper_signal || idle_over(idle_s, &lock)) {
			kill(pid, SIGTERM);   /* run-qemu.sh stops QEMU, then exits */
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
			return -1;
		}
		sleep_ms(POLL_MS);
	}
}

/* run-qemu.sh's last verdict line ("kernel panic: ..."), or a default. */
static void verdict(char *out, size_t size)
{
	char path[512], line[1024];
	warm_path(path, sizeof(path), "run-qemu.log");
	snprintf(out, size, "QEMU stopped");
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "run-qemu: ", 10) && !strstr(line, " CPU(s), "))
			snprintf(out, size, "%s", line + 10);
	}
	if (f)
		fclose(f);
}

static __attribute__((noreturn)) void keeper_main(struct target *t, int idle_s)
{
	setsid();
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	/* Nothing of the command that started us: its pipes (a caller
	 * waiting for its output to close) and files stay its own. */
	int null = open("/dev/null", O_RDWR);
	dup2(null, STDIN_FILENO);
	dup2(null, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
	close_range(3, ~0U, 0);
	const char *argv[sizeof(t->qemu_args) / sizeof(t->qemu_args[0]) + 16];
	boot_argv(t, argv);
	int silent_boots = 0;
	for (;;) {
		warm_remove("ready");
		warm_remove("console.sock");
		warm_remove("qemu.pid");
		int st = watch(spawn(argv), idle_s);
		if (st <= 0)
			break;   /* stopped by us, or the guest powered off */
		char why[1024], note[1200];
		verdict(why, sizeof(why));
		char ready[8];
		bool answered = warm_read("ready", ready, sizeof(ready));
		silent_boots = answered ? 0 : silent_boots + 1;
		if (silent_boots >= 2)
			break;   /* it does not boot: the next command shows why */
		snprintf(note, sizeof(note), "the warm target stopped (%s): a new one was booted",
			 why);
		warm_write("note", note);
	}
	warm_clean();
	_exit(0);
}

int warm_start(struct target *t, int idle_s)
{
	char text[2048], num[32];
	if (mkdir(warm_dir(), 0700) != 0 && errno != EEXIST) {
		fprintf(stderr, "baremon: cannot make %s: %s\n", warm_dir(), strerror(errno));
		return -1;
	}
	warm_touch();
	snprintf(num, sizeof(num), "%d\n", idle_s);
	warm_write("idle", num);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		keeper_main(t, idle_s);
	/* keeper.pid before options: a command that finds the options
	 * finds the keeper too. */
	snprintf(num, sizeof(num), "%d\n", (int)pid);
	warm_write("keeper.pid", num);
	warm_options_text((char *const *)t->qemu_args, t->nuser, text, sizeof(text));
	warm_write("options", text);
	return 0;
}

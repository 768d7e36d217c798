/*
 * process.c: ABI test of processes: identities, fork and the values it
 * returns on each side, exit statuses through wait4/waitpid, WNOHANG,
 * ECHILD, death by signal, process groups (and a SIGKILL to one while
 * its members fork: none escapes), and execve (of /bin/true,
 * a program file mostly a 128 MiB hole,
 * /bin/false and /bin/echo with a pipe for its output, and its errors).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "abi.h"

static void test_ids(void)
{
	CHECK(getpid() > 0, "getpid > 0");
	CHECK(getppid() >= 0 && getppid() != getpid(), "getppid != getpid");
	CHECK(gettid() == getpid(), "gettid == getpid in a single thread");
}

/* The child reports getpid() and getppid() through a pipe. */
static void test_fork_ids(void)
{
	int p[2], st;
	pid_t ids[2] = { 0, 0 };
	pid_t parent = getpid(), pid;

	pipe(p);
	pid = fork();
	if (pid == 0) {
		pid_t mine[2] = { getpid(), getppid() };
		write(p[1], mine, sizeof(mine));
		_exit(0);
	}
	CHECK(pid > 0 && pid != parent, "fork returns the child's pid");
	CHECK(read(p[0], ids, sizeof(ids)) == sizeof(ids), "the child ran");
	CHECK(ids[0] == pid, "the child's getpid is that pid");
	CHECK(ids[1] == parent, "the child's getppid is the parent");
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid returns the child");
	close(p[0]);
	close(p[1]);
}

static int status_of_child_exiting(int code)
{
	int st = -1;
	pid_t pid = fork();

	if (pid == 0)
		_exit(code);
	waitpid(pid, &st, 0);
	return st;
}

static void test_exit_status(void)
{
	struct rusage ru;
	int st;
	pid_t pid;

	st = status_of_child_exiting(0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit 0 -> status 0");
	st = status_of_child_exiting(42);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 42 && !WIFSIGNALED(st),
	      "exit 42 -> WEXITSTATUS 42 (status %#x)", st);
	st = status_of_child_exiting(256 + 7);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "exit 263 -> 7");
	pid = fork();
	if (pid == 0)
		exit(3);   /* the C library's exit, not _exit */
	CHECK(wait4(pid, &st, 0, &ru) == pid && WEXITSTATUS(st) == 3,
	      "wait4 with a rusage");
	CHECK_ERR(waitpid(-1, &st, 0), ECHILD, "waitpid with no children");
	CHECK_ERR(waitpid(getpid(), &st, 0), ECHILD,
	          "waitpid for a process that is not a child");
}

static void test_wnohang(void)
{
	int p[2], st;
	char c;
	pid_t pid;

	pipe(p);
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		read(p[0], &c, 1);   /* until the parent closes its end */
		_exit(9);
	}
	close(p[0]);
	CHECK(waitpid(pid, &st, WNOHANG) == 0, "WNOHANG: 0 while it runs");
	CHECK(kill(pid, 0) == 0, "kill(pid, 0): the child exists");
	close(p[1]);
	CHECK(waitpid(pid, &st, 0) == pid && WEXITSTATUS(st) == 9,
	      "then waitpid reaps it");
	CHECK_ERR(kill(pid, 0), ESRCH, "kill(pid, 0) after the reaping");
}

static void test_killed(void)
{
	int st;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	CHECK(kill(pid, SIGKILL) == 0, "kill a paused child with SIGKILL");
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) &&
	      WTERMSIG(st) == SIGKILL && !WIFEXITED(st),
	      "it died of SIGKILL (status %#x)", st);
	pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	kill(pid, SIGTERM);
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) &&
	      WTERMSIG(st) == SIGTERM, "SIGTERM kills by default");
	pid = fork();
	if (pid == 0) {
		abort();
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) &&
	      WTERMSIG(st) == SIGABRT, "abort() dies of SIGABRT");
}

static void test_groups(void)
{
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		if (setpgid(0, 0) != 0)
			_exit(1);
		_exit(getpgid(0) == getpid() && getpgrp() == getpid() ? 0 : 2);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "setpgid(0, 0) makes a child its own group leader");
	CHECK(getpgid(0) > 0, "getpgid(0)");
	CHECK_ERR(getpgid(-5), ESRCH, "getpgid of no such process");
}

/* A chain of processes: each forks the next and waits in pause(); a
 * fork that fails is retried (the group kill is what ends it). */
static void fork_chain(void)
{
	for (;;) {
		pid_t c = fork();
		if (c > 0)
			for (;;)
				pause();
		if (c < 0)
			usleep(1000);
	}
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * SIGKILL to a process group while its members fork: no child escapes
 * it (a fork racing with a fatal group signal fails or its child dies
 * too). Orphans come to us where PR_SET_CHILD_SUBREAPER exists (Linux)
 * and are reaped here; elsewhere init takes them. The group is empty
 * once kill(-pgid, 0) says ESRCH. Rounds with the kill at different
 * points of the chain's growth.
 */
static void test_group_kill_forking(void)
{
	int survivors = 0, rounds = 8, others = 0;

	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	for (int round = 0; round < rounds; round++) {
		pid_t leader = fork();
		struct timespec t0;
		int st, gone = 0;

		if (leader == 0) {
			setpgid(0, 0);
			fork_chain();
		}
		setpgid(leader, leader);
		usleep(2000 + 3000 * round);
		kill(-leader, SIGKILL);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (ms_since(&t0) < 10000) {
			pid_t w;
			while ((w = waitpid(-1, &st, WNOHANG)) > 0)
				others += !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
			if (kill(-leader, 0) != 0 && errno == ESRCH) {
				gone = 1;
				break;
			}
			usleep(1000);
		}
		if (!gone) {
			survivors++;
			kill(-leader, SIGKILL);
		}
	}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	CHECK(survivors == 0, "SIGKILL to a forking process group: none survives "
	      "(%d of %d rounds left one)", survivors, rounds);
	CHECK(others == 0, "every member reaped here died of SIGKILL (%d did not)", others);
}

/* fork, execve path with argv, wait: the exit status. */
static int run(const char *path, char *const argv[])
{
	char *envp[] = { "ABI_PROCESS=1", NULL };
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		execve(path, argv, envp);
		_exit(100 + errno);
	}
	waitpid(pid, &st, 0);
	return st;
}

static void test_exec(void)
{
	char *t[] = { "true", NULL }, *f[] = { "false", NULL };
	char *e[] = { "echo", "hello", "from", "echo", NULL };
	char junk[] = "/tmp/abi-process-junk-XXXXXX";
	char buf[64] = { 0 };
	int st, p[2], fd;
	pid_t pid;

	st = run("/bin/true", t);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "execve /bin/true: 0");
	st = run("/bin/false", f);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1, "execve /bin/false: 1");

	pipe(p);
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execve("/bin/echo", e, environ);
		_exit(127);
	}
	close(p[1]);
	for (ssize_t n, got = 0;
	     (n = read(p[0], buf + got, sizeof(buf) - 1 - got)) > 0;)
		got += n;
	close(p[0]);
	waitpid(pid, &st, 0);
	CHECK(strcmp(buf, "hello from echo\n") == 0 && WEXITSTATUS(st) == 0,
	      "execve /bin/echo: argv arrives, stdout is the pipe");

	CHECK_ERR(execve("/nonexistent/abi", t, environ), ENOENT,
	          "execve of a missing file");
	CHECK_ERR(execve("/tmp", t, environ), EACCES, "execve of a directory");
	snprintf(junk, sizeof(junk), "/tmp/abi-process-%d", (int)getpid());
	fd = open(junk, O_CREAT | O_WRONLY | O_TRUNC, 0755);
	write(fd, "not a program\n", 14);
	close(fd);
	CHECK_ERR(execve(junk, t, environ), ENOEXEC,
	          "execve of a file that is not a program");
	chmod(junk, 0644);
	CHECK_ERR(execve(junk, t, environ), EACCES,
	          "execve of a file without execute permission");
	unlink(junk);
}

#define BIG "/tmp/abi-process-big"

/* This program followed by a hole of tail bytes and one more byte: an
 * ELF file that runs (nothing maps the tail) and takes no more memory
 * or disk than the program. 0 or -1. */
static int make_big(long tail)
{
	static char buf[65536];
	int in = open("/proc/self/exe", O_RDONLY);
	int out = open(BIG, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n;
	int ok = in >= 0 && out >= 0;

	while (ok && (n = read(in, buf, sizeof(buf))) > 0)
		ok = write(out, buf, (size_t)n) == n;
	ok = ok && lseek(out, tail, SEEK_CUR) > 0 && write(out, "", 1) == 1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return ok ? 0 : -1;
}

/*
 * execve of a program file bigger than all memory: the kernel must need
 * memory for what it maps, not for the whole file (it reads the file a
 * page at a time). The file is the program and a 128 MiB hole (a
 * kernel that reads it whole needs that much, in one piece).
 */
static void test_exec_big(void)
{
	long tail = 128L << 20;
	int st = -1;
	pid_t pid;

	if (!CHECK(make_big(tail) == 0, "a program followed by a %ld MiB hole in /tmp",
	           tail >> 20))
		return;
	pid = fork();
	if (pid == 0) {
		char *argv[] = { BIG, "--exit0", NULL }, *envp[] = { NULL };
		execve(BIG, argv, envp);
		_exit(100 + errno);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "it runs (status %#x)", st);
	unlink(BIG);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--exit0") == 0)
		return 0; /* run by test_exec_big */
	test_ids();
	test_fork_ids();
	test_exit_status();
	test_wnohang();
	test_killed();
	test_groups();
	test_group_kill_forking();
	test_exec();
	test_exec_big();
	return abi_done("process");
}

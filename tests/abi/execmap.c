/*
 * execmap.c: ABI test of how exec maps a program. A copy of this very
 * program (in /tmp) is exec'd in roles given by argv[1]; it must find
 * its initialized data and its zeroed BSS, its writes stay its own (the
 * file is unchanged), MADV_DONTNEED gives a data page the file's bytes
 * back, a read() from its own file into a data page it never touched
 * works, so does a write() from one, and it keeps running, untouched pages and all, after its file
 * is unlinked. ETXTBSY both ways: open for writing (and truncate) of a
 * running program's file, and exec of a file open for writing. A
 * tracer's PTRACE_PEEKDATA and a fork child see read-only data nobody
 * touched yet. Arguments: one of 100 KiB arrives whole, one over
 * 128 KiB is E2BIG (Linux's MAX_ARG_STRLEN).
 *
 * Linux reads a program's pages from its file at first touch; so does
 * baremon (core/mm/usermm.h, mm_map_file): these are the cases where
 * doing that lazily could go wrong.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "abi.h"

#ifndef MADV_DONTNEED
#define MADV_DONTNEED 4
#endif
#define PTRACE_TRACEME_ 0
#define PTRACE_PEEKDATA_ 2
#define PTRACE_KILL_ 8

#define PG 4096
#define BIG_ARG (100 * 1024)
#define HUGE_ARG (130 * 1024)

/* In .data: the bytes are in the file, each marker on a page of its own. */
static volatile unsigned char data_blob[4 * PG] __attribute__((aligned(PG))) = {
	[0] = 1, [PG] = 2, [2 * PG] = 3, [3 * PG] = 4, [4 * PG - 1] = 5,
};
/* Read only data, read by nobody but a tracer and a fork child. */
static const unsigned char ro_blob[3 * PG] __attribute__((aligned(PG))) = {
	[0] = 7, [PG] = 8, [2 * PG] = 9, [2 * PG + 1] = 10,
};
/* Pages of BSS alone (Linux maps them anonymous: the partial page's
 * tail comes back from the file after MADV_DONTNEED there). */
static volatile unsigned char bss_blob[2 * PG] __attribute__((aligned(PG)));
static volatile int bss_small[8];

static char copy[64];

/* ---- the exec'd copy's roles ---- */

/* Bit i of the exit status: check i failed. */
static int role_data(void)
{
	int bad = 0;
	if (data_blob[0] != 1 || data_blob[PG] != 2 || data_blob[4 * PG - 1] != 5)
		bad |= 1;
	for (int i = 0; i < 2 * PG; i++)
		if (bss_blob[i])
			bad |= 2;
	for (int i = 0; i < 8; i++)
		if (bss_small[i])
			bad |= 2;
	data_blob[PG] = 0x55;
	bss_blob[0] = 0x66;
	if (data_blob[PG] != 0x55 || bss_blob[0] != 0x66)
		bad |= 4;
	if (syscall(SYS_madvise, &data_blob[PG], PG, MADV_DONTNEED) != 0 || data_blob[PG] != 2)
		bad |= 8;
	if (syscall(SYS_madvise, bss_blob, PG, MADV_DONTNEED) != 0 || bss_blob[0] != 0)
		bad |= 16;
	int p[2]; /* write() from a page not touched yet: the kernel reads it */
	char c = 0;
	if (pipe(p) || write(p[1], &ro_blob[PG], 1) != 1 || read(p[0], &c, 1) != 1 || c != 8)
		bad |= 32;
	return bad;
}

/* read() from this program's own file into a page of it not touched yet. */
static int role_read(const char *self)
{
	int fd = open(self, O_RDONLY);
	void *to = (void *)&data_blob[2 * PG];
	long n = fd >= 0 ? read(fd, to, PG) : -1;
	return n == PG && memcmp(to, "\177ELF", 4) == 0 ? 0 : 1;
}

/* Say it runs, wait for the word (its file unlinked meanwhile), then
 * read pages it never touched. */
static int role_wait(void)
{
	char c;
	if (write(1, "r", 1) != 1 || read(0, &c, 1) != 1)
		return 2;
	return data_blob[3 * PG] == 4 && data_blob[4 * PG - 1] == 5 &&
	       data_blob[2 * PG] == 3 ? 0 : 1;
}

static int role(int argc, char **argv)
{
	if (!strcmp(argv[1], "data"))
		return role_data();
	if (!strcmp(argv[1], "read"))
		return role_read(argv[2]);
	if (!strcmp(argv[1], "wait"))
		return role_wait();
	if (!strcmp(argv[1], "args"))
		return argc == 3 && strlen(argv[2]) == BIG_ARG - 1 ? 0 : 1;
	return 0; /* "exit" */
}

/* ---- the test ---- */

/* Copy /proc/self/exe to path, executable; 0 on success. */
static int make_copy(const char *path)
{
	static char buf[65536];
	int in = open("/proc/self/exe", O_RDONLY);
	int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	long n = 0;
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			n = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return in >= 0 && out >= 0 && n == 0 ? 0 : -1;
}

/* Do two files hold the same bytes? */
static int same_file(const char *a, const char *b)
{
	static char x[4096], y[4096];
	int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY), same = fa >= 0 && fb >= 0;
	while (same) {
		long n = read(fa, x, sizeof x), m = read(fb, y, sizeof y);
		if (n != m || n < 0 || memcmp(x, y, (size_t)(n > 0 ? n : 0)))
			same = 0;
		if (n <= 0)
			break;
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

/* fork, exec the copy as role with arg, wait: the wait status. */
static int run(const char *role_name, const char *arg)
{
	pid_t p = fork();
	if (p == 0) {
		char *argv[] = { copy, (char *)role_name, (char *)arg, NULL };
		execve(copy, argv, environ);
		_exit(errno == E2BIG ? 100 : errno == ETXTBSY ? 101 : 127);
	}
	int st = -1;
	waitpid(p, &st, 0);
	return st;
}

static int exit_code(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void test_data(void)
{
	int st = exit_code(run("data", NULL));
	CHECK(!(st & ~63), "the exec'd copy exits normally (%d)", st);
	CHECK(!(st & 1), "initialized data holds the file's bytes");
	CHECK(!(st & 2), "BSS reads as zero");
	CHECK(!(st & 4), "data and BSS are writable");
	CHECK(!(st & 8), "MADV_DONTNEED gives a data page the file's bytes back");
	CHECK(!(st & 16), "MADV_DONTNEED gives a BSS page zeros");
	CHECK(!(st & 32), "write() from read-only data not touched yet");
	CHECK(same_file(copy, "/proc/self/exe"), "the program's writes left its file unchanged");
	CHECK(exit_code(run("read", copy)) == 0,
	      "read() of its own file into a data page not touched yet");
}

/* A running copy: its file cannot be written; unlinked, it runs on. */
static void test_running(void)
{
	int to[2], from[2];
	char c = 0;
	if (pipe(to) || pipe(from))
		return (void)CHECK(0, "pipe");
	pid_t p = fork();
	if (p == 0) {
		char *argv[] = { copy, "wait", NULL };
		dup2(to[0], 0);
		dup2(from[1], 1);
		execve(copy, argv, environ);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	CHECK(read(from[0], &c, 1) == 1 && c == 'r', "the copy runs");
	CHECK_ERR(open(copy, O_WRONLY), ETXTBSY, "open for writing of a running program's file");
	CHECK_ERR(open(copy, O_RDWR | O_TRUNC), ETXTBSY, "open O_RDWR|O_TRUNC of it");
	CHECK_ERR(syscall(SYS_truncate, copy, 0L), ETXTBSY, "truncate of it");
	int fd = open(copy, O_RDONLY);
	CHECK(fd >= 0, "open for reading of it works");
	if (fd >= 0)
		close(fd);
	CHECK(unlink(copy) == 0, "unlink of it works");
	CHECK(write(to[1], "g", 1) == 1, "go");
	int st = -1;
	waitpid(p, &st, 0);
	CHECK(exit_code(st) == 0, "the unlinked program reads pages it never touched (%d)",
	      exit_code(st));
	close(to[1]);
	close(from[0]);
}

static void test_open_for_write(void)
{
	int fd = open(copy, O_WRONLY);
	CHECK(fd >= 0, "open for writing of the (not running) copy");
	CHECK(exit_code(run("exit", NULL)) == 101, "exec of a file open for writing: ETXTBSY");
	close(fd);
	CHECK(exit_code(run("exit", NULL)) == 0, "exec after its close works");
}

/* A tracer and a fork child read read-only data nobody touched yet. */
static void test_untouched(void)
{
	pid_t p = fork();
	if (p == 0) {
		syscall(SYS_ptrace, PTRACE_TRACEME_, 0, 0, 0);
		raise(SIGSTOP);
		_exit(0);
	}
	int st = -1;
	waitpid(p, &st, 0);
	long word = 0;
	long r = syscall(SYS_ptrace, PTRACE_PEEKDATA_, p, &ro_blob[2 * PG], &word);
	CHECK(WIFSTOPPED(st) && r == 0 && (word & 0xffff) == 0x0a09,
	      "PTRACE_PEEKDATA of read-only data not touched yet");
	kill(p, SIGKILL);
	waitpid(p, &st, 0);
	p = fork();
	if (p == 0)
		_exit(ro_blob[2 * PG + 1] == 10 && data_blob[PG] == 2 ? 0 : 1);
	waitpid(p, &st, 0);
	CHECK(exit_code(st) == 0, "a fork child reads pages its parent never touched");
}

static void test_args(void)
{
	char *big = malloc(HUGE_ARG + 1);
	if (!big)
		return (void)CHECK(0, "malloc");
	memset(big, 'a', HUGE_ARG);
	big[BIG_ARG - 1] = 0;
	CHECK(exit_code(run("args", big)) == 0, "an argument of 100 KiB arrives whole");
	big[BIG_ARG - 1] = 'a';
	big[HUGE_ARG] = 0;
	CHECK(exit_code(run("args", big)) == 100, "an argument of 130 KiB: E2BIG");
	free(big);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return role(argc, argv);
	snprintf(copy, sizeof copy, "/tmp/execmap.%d", (int)getpid());
	if (!CHECK(make_copy(copy) == 0, "copy of the program in /tmp"))
		return abi_done("execmap");
	test_data();
	test_open_for_write();
	test_args();
	test_untouched();
	test_running(); /* unlinks the copy */
	unlink(copy);
	return abi_done("execmap");
}

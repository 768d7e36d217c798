/*
 * libc.c: the C library behaviour programs rely on, checked the same way
 * in libc-lite, musl and glibc: formatted output and its return values,
 * stream output and flushing at exit, atexit order, the heap, qsort,
 * strtol limits, getenv against environ, strerror and strsignal texts.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "abi.h"

static void test_format(void)
{
	char buf[64];
	int p[2];
	ssize_t n;
	volatile size_t four = 4;   /* hide the truncation from gcc */

	CHECK(snprintf(buf, sizeof(buf), "%d|%5s|%-3x|%lu|%c|%%", -42, "ab",
	               255, 123456789012UL, 'z') == 30 &&
	      strcmp(buf, "-42|   ab|ff |123456789012|z|%") == 0,
	      "snprintf conversions (%s)", buf);
	CHECK(snprintf(buf, four, "%s", "abcdef") == 6 && strcmp(buf, "abc") == 0,
	      "snprintf truncates and returns the full length");
	CHECK(sprintf(buf, "%8.3d|%p", 7, (void *)0x1234) == 15 &&
	      strcmp(buf, "     007|0x1234") == 0, "sprintf (%s)", buf);
	pipe(p);
	CHECK(dprintf(p[1], "x=%d\n", 42) == 5, "dprintf returns the length");
	n = read(p[0], buf, sizeof(buf));
	CHECK(n == 5 && memcmp(buf, "x=42\n", 5) == 0, "dprintf wrote to fd");
	close(p[0]);
	close(p[1]);
	CHECK(printf("# printf\n") == 9, "printf returns the length");
	CHECK(fputs("# fputs\n", stdout) >= 0, "fputs succeeds");
	CHECK(puts("# puts") >= 0, "puts succeeds");
	CHECK(fwrite("# fwrite\n", 3, 3, stdout) == 3, "fwrite returns items");
	CHECK(putchar('#') == '#' && putchar('\n') == '\n', "putchar");
	CHECK(fprintf(stderr, "%s", "") == 0 && fflush(NULL) == 0,
	      "fprintf to stderr, fflush(NULL)");
}


static void first(void)  { printf("[first]"); }
static void second(void) { printf("[second]"); }

/* A child whose stdout is a pipe; returns what it wrote and its status. */
static int child_output(void (*fn)(void), char *buf, size_t size)
{
	int p[2], st = -1;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	fflush(stdout);
	pipe(p);
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		fn();
		_exit(99);
	}
	close(p[1]);
	while (got + 1 < size && (n = read(p[0], buf + got, size - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	close(p[0]);
	waitpid(pid, &st, 0);
	return st;
}

static void exit_with_handlers(void)
{
	atexit(first);
	atexit(second);
	printf("unflushed");   /* no newline: only exit() writes it */
	exit(3);
}

static void return_from_main_like(void)
{
	printf("no newline either");
	exit(0);
}

static void test_exit(void)
{
	char buf[128];
	int st;

	st = child_output(exit_with_handlers, buf, sizeof(buf));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3, "exit(3) status");
	CHECK(strcmp(buf, "unflushed[second][first]") == 0,
	      "exit runs atexit last-first, then flushes stdout (%s)", buf);
	st = child_output(return_from_main_like, buf, sizeof(buf));
	CHECK(strcmp(buf, "no newline either") == 0, "exit(0) flushes");
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static void test_qsort_heap(void)
{
	int v[1000], ok = 1;
	unsigned seed = 12345;

	for (int i = 0; i < 1000; i++) {
		seed = seed * 1103515245 + 12345;
		v[i] = (int)(seed >> 16) % 100 - 50;   /* many duplicates */
	}
	qsort(v, 1000, sizeof(v[0]), cmp_int);
	for (int i = 1; i < 1000; i++)
		ok &= v[i - 1] <= v[i];
	CHECK(ok, "qsort sorts 1000 ints");
	qsort(v, 0, sizeof(v[0]), cmp_int);
	CHECK(1, "qsort of nothing");

	char *s = strdup("duplicate me");
	CHECK(s && strcmp(s, "duplicate me") == 0, "strdup");
	free(s);
	void *a = malloc(0);
	free(a);
	CHECK(1, "malloc(0) and free");
	free(NULL);
	volatile size_t huge = (size_t)-1;
	CHECK(calloc(huge, 16) == NULL, "calloc overflow gives NULL");
}

static void test_strings(void)
{
	char *end;

	CHECK(strtol("9223372036854775808", &end, 10) == LONG_MAX && *end == 0,
	      "strtol saturates at LONG_MAX");
	CHECK(strtol("  -0x1f", NULL, 0) == -31, "strtol base 0, sign, hex");
	CHECK(strtoul("777", NULL, 8) == 511, "strtoul base 8");
	CHECK(atoi("42abc") == 42, "atoi");
	CHECK(getenv("ABI_SURELY_UNSET_VARIABLE") == NULL, "getenv of unset");
	int ok = 1;
	for (char **e = environ; e && *e; e++) {
		char name[256];
		const char *eq = strchr(*e, '=');
		size_t n = eq ? (size_t)(eq - *e) : 0;
		if (!eq || n == 0 || n >= sizeof(name))
			continue;
		memcpy(name, *e, n);
		name[n] = '\0';
		const char *v = getenv(name);
		ok &= v != NULL;   /* the first of duplicates may differ */
	}
	CHECK(ok, "getenv finds every variable in environ");
	CHECK(strcmp(strerror(ENOENT), "No such file or directory") == 0 &&
	      strcmp(strerror(EBADF), "Bad file descriptor") == 0 &&
	      strcmp(strerror(EACCES), "Permission denied") == 0,
	      "strerror texts");
	CHECK(strcmp(strsignal(SIGSEGV), "Segmentation fault") == 0 &&
	      strcmp(strsignal(SIGKILL), "Killed") == 0, "strsignal texts");
}

int main(void)
{
	test_format();
	test_exit();
	test_qsort_heap();
	test_strings();
	return abi_done("libc");
}

/*
 * abi.h: the little harness every ABI test uses. Each test is one program
 * written against POSIX and Linux interfaces only, so that it builds with
 * libc-lite, musl and glibc alike and runs on Linux and on baremon.
 *
 *   CHECK(cond, "what", ...)       "ok - what" or "not ok - what"
 *   CHECK_ERR(expr, ERRNO, "what") expr must give -1 with errno ERRNO
 *   return abi_done("name");       "name: N passed, N failed"; exit status
 *
 * Output is flushed after every line, so fork() never duplicates it and a
 * test that dies mid-way still shows how far it got.
 */
#ifndef ABI_H
#define ABI_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int abi_passed, abi_failed;

__attribute__((format(printf, 2, 3)))
static int abi_check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (ok)
		abi_passed++;
	else
		abi_failed++;
	return ok;
}

#define CHECK(cond, ...) abi_check(!!(cond), __VA_ARGS__)

/* Evaluate expr once; pass if it is -1 with errno == err, else say why. */
#define CHECK_ERR(expr, err, what)                                          \
	do {                                                                \
		errno = 0;                                                  \
		long r_ = (long)(expr);                                     \
		int e_ = errno;                                             \
		if (!abi_check(r_ == -1 && e_ == (err), "%s -> %s", what,  \
		               #err))                                       \
			printf("#   got %ld, errno %d (%s)\n", r_, e_,      \
			       strerror(e_));                               \
	} while (0)

/* Print a diagnostic line ("# ..."), not counted. */
__attribute__((format(printf, 1, 2), unused))
static void abi_note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int abi_done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, abi_passed, abi_failed);
	fflush(stdout);
	return abi_failed != 0;
}

#endif

/*
 * abi.h: the little harness every ABI test uses (tests/lib, compiled
 * once per C library into build/testlib/FLAVOUR/libtest.a). Each test is
 * one program written against POSIX and Linux interfaces only, so that
 * it builds with libc-lite, musl and glibc alike and runs on Linux and
 * on baremon.
 *
 *   CHECK(cond, "what", ...)       "ok - what" or "not ok - what"
 *   CHECK_ERR(expr, ERRNO, "what") expr must give -1 with errno ERRNO
 *   abi_note("...")                a "# ..." line, not counted
 *   abi_on_baremon()               running on baremon (else: the reference)
 *   in_child(fn, arg, "what")      fn(arg) in a child, its checks counted here
 *   return abi_done("name");       "name: N passed, N failed"; exit status
 *
 * Output is flushed after every line, so fork() never duplicates it and a
 * test that dies mid-way still shows how far it got.
 */
#ifndef TESTS_LIB_ABI_H
#define TESTS_LIB_ABI_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The checks made so far by this process (abi.c). */
extern int abi_passed, abi_failed;

/* Print "ok - ..." or "not ok - ..." and count it; returns ok. */
__attribute__((format(printf, 2, 3)))
int abi_check(int ok, const char *fmt, ...);

/* Print a diagnostic line ("# ..."), not counted. */
__attribute__((format(printf, 1, 2)))
void abi_note(const char *fmt, ...);

/* Running on baremon: it names itself in uname's release
 * ("6.1.0-baremon") and node name. */
int abi_on_baremon(void);

/* "name: N passed, N failed"; 1 if any check failed, else 0. */
int abi_done(const char *name);

/*
 * Run fn(arg) in a child process (one that may setuid, change limits or
 * crash) and add the checks it made to this process's counts; the child
 * finishing cleanly is a check of its own (child.c).
 */
void in_child(void (*fn)(long), long arg, const char *what);

#ifdef __cplusplus
}
#endif

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

#endif

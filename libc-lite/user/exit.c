/*
 * exit.c: normal and abnormal process termination.
 *
 * exit() runs the atexit functions, last registered first (each one
 * once, even if a later one calls exit again), flushes stdio and ends the
 * process with exit_group (_exit). abort() raises SIGABRT; if a handler
 * returns or the signal is blocked or ignored, it restores the default
 * action, unblocks the signal and raises it again.
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include "sys.h"

#define ATEXIT_MAX 32

static void (*handlers[ATEXIT_MAX])(void);
static int nhandlers;

int atexit(void (*fn)(void))
{
	if (nhandlers == ATEXIT_MAX)
		return -1;
	handlers[nhandlers++] = fn;
	return 0;
}

__attribute__((noreturn)) void exit(int status)
{
	while (nhandlers > 0)
		handlers[--nhandlers]();
	__stdio_flush_all();
	_exit(status);
}

__attribute__((noreturn)) void _Exit(int status)
{
	_exit(status);
}

__attribute__((noreturn)) void abort(void)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t abrt;

	raise(SIGABRT);
	sigaction(SIGABRT, &dfl, NULL);
	sigemptyset(&abrt);
	sigaddset(&abrt, SIGABRT);
	sigprocmask(SIG_UNBLOCK, &abrt, NULL);
	raise(SIGABRT);
	_exit(127);   /* only if the kernel would not kill us */
}

/*
 * signal.h: signals (libc-lite, user programs).
 *
 * Signal numbers, SA_* flags, SIG_DFL/SIG_IGN, stack_t and sigset_t come
 * from <asm/signal.h>; siginfo_t and its si_* names and codes from
 * <asm/siginfo.h>. sigset_t is therefore the kernel's: one unsigned long,
 * bit (n - 1) for signal n, signals 1..64.
 *
 * struct sigaction has the POSIX member names and the kernel's x86-64
 * layout, so sigaction() hands it to rt_sigaction unchanged. The uapi
 * header's own struct sigaction (same layout, but no sa_sigaction) is
 * renamed struct uapi_sigaction while it is included; the static
 * assertions in signal.c check that both layouts agree. (A program must
 * not include <asm/signal.h> before this header.)
 */
#ifndef LIBC_LITE_SIGNAL_H
#define LIBC_LITE_SIGNAL_H

#include <sys/types.h>

#define sigaction uapi_sigaction
#include <asm/signal.h>
#undef sigaction
#include <asm/siginfo.h>

/* glibc and musl count NSIG as one more than the largest signal number. */
#undef NSIG
#define NSIG 65
#define _NSIG 64   /* SIGRTMAX from <asm/signal.h> is _NSIG */

typedef __sighandler_t sighandler_t;
typedef int sig_atomic_t;

struct sigaction {
	union {
		void (*sa_handler)(int);
		void (*sa_sigaction)(int, siginfo_t *, void *);
	};
	unsigned long sa_flags;
	void (*sa_restorer)(void);  /* set by sigaction(); ignored on input */
	sigset_t sa_mask;
};

/* Install act (when not NULL) and return the previous action in *old. */
int sigaction(int sig, const struct sigaction *restrict act,
              struct sigaction *restrict old);

/* BSD semantics, as glibc: SA_RESTART, the handler stays installed. */
sighandler_t signal(int sig, sighandler_t handler);

int sigprocmask(int how, const sigset_t *restrict set, sigset_t *restrict old);
int sigpending(sigset_t *set);
int sigsuspend(const sigset_t *mask);

int sigemptyset(sigset_t *set);
int sigfillset(sigset_t *set);
int sigaddset(sigset_t *set, int sig);      /* EINVAL outside 1..64 */
int sigdelset(sigset_t *set, int sig);
int sigismember(const sigset_t *set, int sig);

int kill(pid_t pid, int sig);

/* kill(getpid(), sig): in a single-threaded program the same thing. */
int raise(int sig);

#endif

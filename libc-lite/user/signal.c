/*
 * signal.c: signal actions, masks and sending.
 *
 * The kernel returns from a handler through the restorer named in
 * sa_restorer (SA_RESTORER): x86-64 Linux has no default one. Ours is
 * __restore_rt below, which calls rt_sigreturn with rsp where the kernel
 * left it (at the signal frame), so it must be plain code with no
 * prologue: hence top-level assembly, with the number from <asm/unistd.h>.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <unistd.h>
#include "sys.h"

/* Our struct sigaction must be the kernel's (see signal.h). */
#define SAME(f) (offsetof(struct sigaction, f) == \
                 offsetof(struct uapi_sigaction, f))
_Static_assert(sizeof(struct sigaction) == sizeof(struct uapi_sigaction) &&
               SAME(sa_handler) && SAME(sa_flags) && SAME(sa_restorer) &&
               SAME(sa_mask), "struct sigaction differs from the kernel's");

#define STR_(x) #x
#define STR(x) STR_(x)
void __restore_rt(void);
__asm__(".pushsection .text\n"
        ".global __restore_rt\n"
        ".type __restore_rt, @function\n"
        "__restore_rt:\n"
        "	mov $" STR(__NR_rt_sigreturn) ", %eax\n"
        "	syscall\n"
        "	ud2\n"
        ".size __restore_rt, . - __restore_rt\n"
        ".popsection\n");

int sigaction(int sig, const struct sigaction *restrict act,
              struct sigaction *restrict old)
{
	struct sigaction k;

	if (act) {
		k = *act;
		k.sa_flags |= SA_RESTORER;
		k.sa_restorer = __restore_rt;
	}
	return __syscall_ret(sys4(__NR_rt_sigaction, sig, act ? &k : NULL, old,
	                          sizeof(sigset_t)));
}

sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction sa = { .sa_handler = handler, .sa_flags = SA_RESTART };
	struct sigaction old;

	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

int sigprocmask(int how, const sigset_t *restrict set, sigset_t *restrict old)
{
	return __syscall_ret(sys4(__NR_rt_sigprocmask, how, set, old,
	                          sizeof(sigset_t)));
}

int sigpending(sigset_t *set)
{
	return __syscall_ret(sys2(__NR_rt_sigpending, set, sizeof(sigset_t)));
}

int sigsuspend(const sigset_t *mask)
{
	return __syscall_ret(sys2(__NR_rt_sigsuspend, mask, sizeof(sigset_t)));
}

int kill(pid_t pid, int sig)
{
	return __syscall_ret(sys2(__NR_kill, pid, sig));
}

int raise(int sig)
{
	return kill(getpid(), sig);
}

unsigned alarm(unsigned seconds)
{
	return (unsigned)sys1(__NR_alarm, seconds);   /* cannot fail */
}

int pause(void)
{
	return __syscall_ret(sys0(__NR_pause));
}

/* ---- signal sets: bit (sig - 1) of one unsigned long ---- */

static int bad_signal(int sig)
{
	if (sig >= 1 && sig <= _NSIG)
		return 0;
	errno = EINVAL;
	return 1;
}

int sigemptyset(sigset_t *set)
{
	*set = 0;
	return 0;
}

int sigfillset(sigset_t *set)
{
	*set = ~0UL;
	return 0;
}

int sigaddset(sigset_t *set, int sig)
{
	if (bad_signal(sig))
		return -1;
	*set |= 1UL << (sig - 1);
	return 0;
}

int sigdelset(sigset_t *set, int sig)
{
	if (bad_signal(sig))
		return -1;
	*set &= ~(1UL << (sig - 1));
	return 0;
}

int sigismember(const sigset_t *set, int sig)
{
	if (bad_signal(sig))
		return -1;
	return (*set >> (sig - 1)) & 1;
}

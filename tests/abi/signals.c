/*
 * signals.c: ABI test of signals: handlers and what they are given
 * (SA_SIGINFO fields), the mask during a handler and after it, SA_NODEFER
 * and SA_RESETHAND, blocking and pending signals, sigsuspend, SIG_IGN,
 * default actions, EINTR, SIGCHLD, alarm and an interval timer, and the
 * errors of sigaction and kill.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "abi.h"

static volatile sig_atomic_t hits;
static volatile int last_sig, info_code, info_pid, info_uid, info_status;
static volatile int had_context, mask_had_self, mask_had_extra;

static void on_signal(int sig)
{
	hits++;
	last_sig = sig;
}

/* Records the siginfo and the signal mask in force inside the handler. */
static void on_info(int sig, siginfo_t *si, void *uc)
{
	sigset_t now;

	hits++;
	last_sig = si->si_signo;
	info_code = si->si_code;
	info_pid = si->si_pid;
	info_uid = si->si_uid;
	info_status = si->si_status;
	had_context = uc != NULL;
	sigprocmask(SIG_BLOCK, NULL, &now);
	mask_had_self = sigismember(&now, sig);
	mask_had_extra = sigismember(&now, SIGUSR2);
}

static int install(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	return sigaction(sig, &sa, NULL);
}

static void test_handler(void)
{
	struct sigaction old;
	sigset_t after;

	hits = 0;
	CHECK(signal(SIGUSR1, on_signal) != SIG_ERR, "signal() installs");
	CHECK(kill(getpid(), SIGUSR1) == 0 && hits == 1 && last_sig == SIGUSR1,
	      "kill to self runs the handler before kill returns");
	CHECK(raise(SIGUSR1) == 0 && hits == 2, "raise runs it too");
	CHECK(sigaction(SIGUSR1, NULL, &old) == 0 &&
	      old.sa_handler == on_signal, "sigaction reads the handler back");

	hits = 0;
	CHECK(install(SIGUSR1, on_info, 0) == 0, "sigaction with SA_SIGINFO");
	kill(getpid(), SIGUSR1);
	CHECK(hits == 1 && last_sig == SIGUSR1, "si_signo is SIGUSR1");
	CHECK(info_code == SI_USER, "si_code is SI_USER (got %d)", info_code);
	CHECK(info_pid == getpid(), "si_pid is the sender");
	CHECK(info_uid == (int)getuid(), "si_uid is the sender's uid");
	CHECK(had_context, "the third argument (ucontext) is not NULL");
	CHECK(mask_had_self, "the signal is blocked inside its handler");
	CHECK(mask_had_extra, "and so is sa_mask (SIGUSR2)");
	sigprocmask(SIG_BLOCK, NULL, &after);
	CHECK(!sigismember(&after, SIGUSR1) && !sigismember(&after, SIGUSR2),
	      "the mask is restored after the handler");

	install(SIGUSR1, on_info, SA_NODEFER);
	kill(getpid(), SIGUSR1);
	CHECK(!mask_had_self, "SA_NODEFER: not blocked inside the handler");
	hits = 0;
	install(SIGUSR1, on_info, SA_RESETHAND);
	kill(getpid(), SIGUSR1);
	CHECK(sigaction(SIGUSR1, NULL, &old) == 0 && hits == 1 &&
	      old.sa_handler == SIG_DFL, "SA_RESETHAND: back to SIG_DFL");
}

static void test_blocking(void)
{
	sigset_t set, old, pend;

	hits = 0;
	signal(SIGUSR2, on_signal);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	CHECK(sigprocmask(SIG_BLOCK, &set, &old) == 0, "block SIGUSR2");
	CHECK(!sigismember(&old, SIGUSR2), "the old mask did not have it");
	kill(getpid(), SIGUSR2);
	kill(getpid(), SIGUSR2);
	CHECK(hits == 0, "a blocked signal is not delivered");
	CHECK(sigpending(&pend) == 0 && sigismember(&pend, SIGUSR2),
	      "it is pending");
	CHECK(sigprocmask(SIG_UNBLOCK, &set, NULL) == 0 && hits == 1,
	      "unblocking delivers it, once (standard signals do not queue)");
	CHECK(sigpending(&pend) == 0 && !sigismember(&pend, SIGUSR2),
	      "nothing is pending afterwards");

	sigprocmask(SIG_BLOCK, &set, NULL);
	kill(getpid(), SIGUSR2);
	sigemptyset(&old);
	CHECK(sigsuspend(&old) == -1 && errno == EINTR && hits == 2,
	      "sigsuspend delivers a pending signal and returns EINTR");
	sigprocmask(SIG_BLOCK, NULL, &old);
	CHECK(sigismember(&old, SIGUSR2), "sigsuspend restores the mask");
	sigprocmask(SIG_UNBLOCK, &set, NULL);

	sigfillset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	sigprocmask(SIG_SETMASK, NULL, &old);
	CHECK(!sigismember(&old, SIGKILL) && !sigismember(&old, SIGSTOP) &&
	      sigismember(&old, SIGTERM), "SIGKILL and SIGSTOP cannot be blocked");
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	CHECK_ERR(sigprocmask(99, &set, NULL), EINVAL, "sigprocmask bad how");
}

static void test_ignore_default(void)
{
	int st = -1;
	pid_t pid;

	signal(SIGUSR1, SIG_IGN);
	CHECK(kill(getpid(), SIGUSR1) == 0, "an ignored signal does nothing");
	pid = fork();
	if (pid == 0) {
		signal(SIGUSR1, SIG_DFL);
		kill(getpid(), SIGUSR1);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR1,
	      "SIGUSR1's default action terminates (status %#x)", st);
	pid = fork();
	if (pid == 0) {
		kill(getpid(), SIGUSR1);   /* still ignored after fork */
		signal(SIGCHLD, SIG_DFL);
		kill(getpid(), SIGCHLD);   /* default: ignore */
		_exit(5);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 5,
	      "ignoring is inherited by fork; SIGCHLD's default is to ignore");
	signal(SIGUSR1, SIG_DFL);
}

static void test_sigchld(void)
{
	int st;
	pid_t pid;

	hits = 0;
	install(SIGCHLD, on_info, SA_RESTART);
	pid = fork();
	if (pid == 0)
		_exit(7);
	waitpid(pid, &st, 0);
	CHECK(hits == 1 && last_sig == SIGCHLD, "SIGCHLD when a child exits");
	CHECK(info_code == CLD_EXITED && info_pid == pid && info_status == 7,
	      "si_code CLD_EXITED, si_pid the child, si_status 7");
	signal(SIGCHLD, SIG_DFL);
}

static void test_timers(void)
{
	/* Periodic: a task descheduled past the first expiry (a busy host:
	 * the signal came before pause or the read blocked) is still
	 * interrupted by the next one, where a one-shot timer left it
	 * waiting for good. Cancelled after each use. */
	struct itimerval it = { { 0, 20000 }, { 0, 20000 } }, cur;
	const struct itimerval off = { { 0, 0 }, { 0, 0 } };
	int p[2];
	char c;

	CHECK(alarm(10) == 0, "alarm(10) returns 0 (none pending)");
	unsigned left = alarm(5);
	CHECK(left == 10 || left == 9, "alarm(5) returns the 10 s left");
	left = alarm(0);
	CHECK(left == 5 || left == 4, "alarm(0) cancels, returns 5");

	hits = 0;
	signal(SIGALRM, on_signal);
	CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0, "setitimer 20 ms");
	CHECK(getitimer(ITIMER_REAL, &cur) == 0 && cur.it_value.tv_sec == 0 &&
	      cur.it_value.tv_usec > 0 && cur.it_value.tv_usec <= 20000,
	      "getitimer shows it running");
	CHECK(pause() == -1 && errno == EINTR && hits >= 1 &&
	      last_sig == SIGALRM, "pause returns EINTR after SIGALRM");
	setitimer(ITIMER_REAL, &off, NULL);

	struct sigaction sa = { 0 };
	sa.sa_handler = on_signal;   /* no SA_RESTART */
	sigaction(SIGALRM, &sa, NULL);
	pipe(p);
	setitimer(ITIMER_REAL, &it, NULL);
	CHECK_ERR(read(p[0], &c, 1), EINTR,
	          "a blocked read is interrupted by a handled signal");
	setitimer(ITIMER_REAL, &off, NULL);
	close(p[0]);
	close(p[1]);
	signal(SIGALRM, SIG_DFL);
}

static void test_errors(void)
{
	struct sigaction sa = { 0 };
	int st;
	pid_t pid;

	sa.sa_handler = on_signal;
	CHECK_ERR(sigaction(SIGKILL, &sa, NULL), EINVAL, "sigaction SIGKILL");
	CHECK_ERR(sigaction(SIGSTOP, &sa, NULL), EINVAL, "sigaction SIGSTOP");
	CHECK_ERR(sigaction(0, &sa, NULL), EINVAL, "sigaction signal 0");
	CHECK_ERR(sigaction(65, &sa, NULL), EINVAL, "sigaction signal 65");
	CHECK_ERR(kill(getpid(), 65), EINVAL, "kill with signal 65");
	pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, &st, 0);
	CHECK_ERR(kill(pid, SIGTERM), ESRCH, "kill a reaped child");
	CHECK(kill(getpid(), 0) == 0, "kill(self, 0) checks only");
}

int main(void)
{
	test_handler();
	test_blocking();
	test_ignore_default();
	test_sigchld();
	test_timers();
	test_errors();
	return abi_done("signals");
}

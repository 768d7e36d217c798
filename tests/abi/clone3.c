/*
 * clone3.c: ABI test of clone3(2), which glibc tries first for
 * pthread_create and posix_spawn: struct clone_args' size rules (EINVAL
 * below version 0, E2BIG above a page or with unknown fields set,
 * EFAULT), the field checks (the CSIGNAL byte and CLONE_DETACHED are
 * not flags here, exit_signal at most 64 and none for a thread, a stack
 * needs its size and a size its stack, CLONE_SIGHAND with
 * CLONE_CLEAR_SIGHAND, a pidfd where the parent's tid goes), then what it makes: a fork-like child whose exit
 * status the parent reaps, the parent's tid and a pidfd that polls
 * readable once the child has exited, CLONE_CLEAR_SIGHAND (handlers
 * back to SIG_DFL, SIG_IGN kept), and a CLONE_VM | CLONE_VFORK child
 * running on the stack it was given (stack + stack_size).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <asm/unistd.h>
#include <linux/sched.h>
#include "abi.h"

static long clone3(struct clone_args *a, size_t size)
{
	return syscall(__NR_clone3, a, size);
}

static void test_sizes(void)
{
	struct { struct clone_args a; uint64_t more[2]; } big;
	memset(&big, 0, sizeof(big));
	big.a.exit_signal = SIGCHLD;
	CHECK_ERR(clone3(&big.a, 0), EINVAL, "size 0");
	CHECK_ERR(clone3(&big.a, CLONE_ARGS_SIZE_VER0 - 1), EINVAL, "size 63");
	CHECK_ERR(clone3(&big.a, 4097), E2BIG, "size above a page");
	big.more[1] = 1;
	CHECK_ERR(clone3(&big.a, sizeof(big)), E2BIG, "an unknown field set");
	CHECK_ERR(clone3((struct clone_args *)8, CLONE_ARGS_SIZE_VER0), EFAULT, "bad pointer");
}

/* clone3 of a with flags and exit_signal set must fail with EINVAL. */
static void invalid(uint64_t flags, uint64_t exit_signal, uint64_t stack, uint64_t size,
		    const char *what)
{
	struct clone_args a = { .flags = flags, .exit_signal = exit_signal, .stack = stack,
				.stack_size = size };
	CHECK_ERR(clone3(&a, sizeof(a)), EINVAL, what);
}

static void test_fields(void)
{
	static char stack[4096];
	uint64_t s = (uint64_t)(uintptr_t)stack;
	uint64_t thread = CLONE_VM | CLONE_SIGHAND | CLONE_THREAD;
	invalid(SIGCHLD, 0, 0, 0, "the CSIGNAL byte in flags");
	invalid(CLONE_DETACHED, SIGCHLD, 0, 0, "CLONE_DETACHED");
	invalid(0, 65, 0, 0, "exit_signal 65");
	invalid(thread, SIGCHLD, 0, 0, "a thread with an exit signal");
	invalid(0, SIGCHLD, s, 0, "a stack without its size");
	invalid(0, SIGCHLD, 0, sizeof(stack), "a size without its stack");
	invalid(CLONE_VM | CLONE_SIGHAND | CLONE_CLEAR_SIGHAND, SIGCHLD, 0, 0,
		"CLONE_SIGHAND with CLONE_CLEAR_SIGHAND");
	invalid(1ULL << 40, SIGCHLD, 0, 0, "an unknown flag");
	int fd = -1;
	struct clone_args a = { .flags = CLONE_PIDFD | CLONE_PARENT_SETTID,
				.pidfd = (uint64_t)(uintptr_t)&fd,
				.parent_tid = (uint64_t)(uintptr_t)&fd, .exit_signal = SIGCHLD };
	CHECK_ERR(clone3(&a, sizeof(a)), EINVAL, "pidfd and parent_tid at one address");
	/* (CLONE_PIDFD with CLONE_THREAD: EINVAL in Linux 6.1, as baremon;
	 * a thread's pidfd since 6.9, so not checked here.) */
}

/* The child's exit status, or -1. */
static int reap(long pid)
{
	int status;
	if (waitpid((pid_t)pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void test_fork_like(void)
{
	struct { struct clone_args a; uint64_t zero[2]; } v = { .a = { .exit_signal = SIGCHLD } };
	long pid = clone3(&v.a, CLONE_ARGS_SIZE_VER0);
	if (pid == 0)
		_exit(7);
	CHECK(pid > 0 && reap(pid) == 7, "version 0: a child that exits 7 is reaped (%ld)", pid);
	pid = clone3(&v.a, sizeof(v));
	if (pid == 0)
		_exit(8);
	CHECK(pid > 0 && reap(pid) == 8, "a larger struct with zeros past it works too");
}

static void test_pidfd(void)
{
	int pidfd = -1, ptid = 0;
	struct clone_args a = { .flags = CLONE_PIDFD | CLONE_PARENT_SETTID,
				.pidfd = (uint64_t)(uintptr_t)&pidfd,
				.parent_tid = (uint64_t)(uintptr_t)&ptid, .exit_signal = SIGCHLD };
	long pid = clone3(&a, sizeof(a));
	if (pid == 0)
		_exit(0);
	CHECK(pid > 0 && ptid == pid, "CLONE_PARENT_SETTID: the child's tid (%d = %ld)", ptid, pid);
	CHECK(pidfd >= 0, "CLONE_PIDFD: a pidfd (%d)", pidfd);
	struct pollfd p = { pidfd, POLLIN, 0 };
	int r = poll(&p, 1, 10000);
	CHECK(r == 1 && (p.revents & POLLIN), "the pidfd polls readable once the child exits");
	CHECK(reap(pid) == 0, "and the child is reaped");
	close(pidfd);
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void test_clear_sighand(void)
{
	struct sigaction sa, old1, old2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, &old1);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGUSR2, &sa, &old2);
	struct clone_args a = { .flags = CLONE_CLEAR_SIGHAND, .exit_signal = SIGCHLD };
	long pid = clone3(&a, sizeof(a));
	if (pid == 0) {
		struct sigaction u1, u2;
		sigaction(SIGUSR1, NULL, &u1);
		sigaction(SIGUSR2, NULL, &u2);
		_exit((u1.sa_handler == SIG_DFL ? 0 : 1) | (u2.sa_handler == SIG_IGN ? 0 : 2));
	}
	int st = reap(pid);
	CHECK(st == 0, "CLONE_CLEAR_SIGHAND: a handler is SIG_DFL in the child, SIG_IGN stays (%d)",
	      st);
	struct sigaction now;
	sigaction(SIGUSR1, NULL, &now);
	CHECK(now.sa_handler == on_usr1, "and the parent keeps its handler");
	sigaction(SIGUSR1, &old1, NULL);
	sigaction(SIGUSR2, &old2, NULL);
}

/* Where the CLONE_VM child found its stack (it shares our memory). */
static volatile uintptr_t child_sp;

/* The child's whole life on its new stack: note where it is, exit. */
static __attribute__((noinline, noreturn, used)) void child_on_stack(void)
{
	volatile char here = 0;
	child_sp = (uintptr_t)&here;
	for (;;)
		__asm__ volatile("syscall" : : "a"(__NR_exit), "D"(0) : "rcx", "r11", "memory");
}

/* clone3 whose child calls child_on_stack at once (it never returns to
 * this frame, which is not on its stack). */
static long clone3_on_stack(struct clone_args *a)
{
	long ret;
	register void (*fn)(void) __asm__("r12") = child_on_stack;
	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "call *%%r12\n"
			 "1:"
			 : "=a"(ret)
			 : "a"((long)__NR_clone3), "D"(a), "S"(sizeof(*a)), "r"(fn)
			 : "rcx", "r11", "memory");
	return ret;
}

static void test_stack(void)
{
	static char stack[65536] __attribute__((aligned(16)));
	struct clone_args a = { .flags = CLONE_VM | CLONE_VFORK, .exit_signal = SIGCHLD,
				.stack = (uint64_t)(uintptr_t)stack, .stack_size = sizeof(stack) };
	long pid = clone3_on_stack(&a);
	int st = pid > 0 ? reap(pid) : -1;
	uintptr_t lo = (uintptr_t)stack, hi = lo + sizeof(stack);
	CHECK(st == 0 && child_sp >= hi - 4096 && child_sp < hi,
	      "CLONE_VM|CLONE_VFORK: the child runs at the top of its stack (%#lx in [%#lx, %#lx))",
	      (unsigned long)child_sp, (unsigned long)lo, (unsigned long)hi);
}

int main(void)
{
	test_sizes();
	test_fields();
	test_fork_like();
	test_pidfd();
	test_clear_sighand();
	test_stack();
	return abi_done("clone3");
}

/*
 * leaderexit.c: ABI test of a process whose leader thread exits before
 * its other thread. The process stays (the leader a zombie, not yet
 * waitable) until the last thread exits; wait then reports the exit code
 * of the thread that exited last, as Linux 6.18 does. A parent polling with WNOHANG while the
 * last thread exits races with that exit: 300 rounds of it must each reap
 * the child exactly once, with the right status (baremon once let the
 * parent reap, and free, the leader while the last thread still used it).
 *
 * The second thread is a raw clone running a few instructions of its
 * own, so libc-lite builds this too and no libc runs in that thread.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "abi.h"

#define ROUNDS 300

static char thread_stack[16 * 1024] __attribute__((aligned(16)));

/*
 * Clone a thread that spins `spins` times and exits with code 7; the
 * caller (the leader) then exits with code 3 as a thread alone. Never
 * returns.
 */
static void __attribute__((noreturn)) leader_exits_first(long spins)
{
	long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
		     CLONE_THREAD | CLONE_SYSVSEM;
	register long r10 __asm__("r10") = 0;
	register long r8 __asm__("r8") = 0;
	long ret = SYS_clone;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 2f\n\t"
			 "mov %[spins], %%rcx\n"
			 "1:\n\t"
			 "dec %%rcx\n\t"
			 "jnz 1b\n\t"
			 "mov %[exit], %%eax\n\t"
			 "mov $7, %%edi\n\t"
			 "syscall\n"
			 "2:"
			 : "+a"(ret)
			 : "D"(flags), "S"(thread_stack + sizeof(thread_stack)),
			   "d"(0L), "r"(r10), "r"(r8), [spins] "r"(spins | 1),
			   [exit] "i"(SYS_exit)
			 : "rcx", "r11", "memory");
	syscall(SYS_exit, 3); /* this thread only */
	for (;;)
		;
}

static void test_status(void)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0)
		leader_exits_first(20000000);
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid reaps the process");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7,
	      "the status is the last thread's exit code 7, not the leader's 3 "
	      "(status 0x%x)", status);
}

static void test_race(void)
{
	int reaped = 0, right = 0, extra = 0;

	for (int i = 0; i < ROUNDS; i++) {
		int status = -1;
		pid_t pid = fork();

		if (pid == 0)
			leader_exits_first(1000 + (i % 50) * 200);
		for (;;) {
			pid_t r = waitpid(pid, &status, WNOHANG);
			if (r == pid)
				break;
			if (r != 0)
				goto out;
		}
		reaped++;
		right += WIFEXITED(status) &&
			 (WEXITSTATUS(status) == 3 || WEXITSTATUS(status) == 7);
		extra += waitpid(pid, &status, WNOHANG) != -1 || errno != ECHILD;
	}
out:
	CHECK(reaped == ROUNDS, "%d rounds, each child reaped (%d)", ROUNDS, reaped);
	CHECK(right == reaped, "each with one thread's status, 3 or 7 (%d of %d)",
	      right, reaped);
	CHECK(extra == 0, "and only once (ECHILD after)");
}

int main(void)
{
	test_status();
	test_race();
	return abi_done("leaderexit");
}

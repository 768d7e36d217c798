/*
 * migrexit.c: ABI test of a process that moves itself to another CPU
 * (sched_setaffinity) and exits at once, ROUNDS times. Each child must
 * be reaped once, with its exit status.
 *
 * On several CPUs this is a race in the kernel: the CPU a task leaves
 * hands it to its new CPU's queue after the switch, and the task may run
 * there, exit and be reaped (freed) while the old CPU still finishes
 * that switch. baremon once read the freed task's state there, saw the
 * TASK_DEAD that reaping had set, and freed it again (a kernel panic in
 * kfree from sched_finish). With one CPU no child moves; it still passes.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "abi.h"

#define ROUNDS 1000

static int ncpus_allowed(cpu_set_t *all)
{
	if (sched_getaffinity(0, sizeof(*all), all) != 0)
		return 0;
	return CPU_COUNT(all);
}

/* The next allowed CPU after `cur`, wrapping; `cur` itself if alone. */
static int next_cpu(const cpu_set_t *all, int cur)
{
	for (int i = 1; i <= CPU_SETSIZE; i++) {
		int c = (cur + i) % CPU_SETSIZE;
		if (CPU_ISSET(c, all))
			return c;
	}
	return cur;
}

/* In the child: move to another CPU and exit with `code` straight away. */
static void __attribute__((noreturn)) move_and_exit(const cpu_set_t *all, int code)
{
	unsigned cpu = 0;
	cpu_set_t one;

	syscall(SYS_getcpu, &cpu, NULL, NULL);
	CPU_ZERO(&one);
	CPU_SET(next_cpu(all, (int)cpu), &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0)
		code = 99;
	syscall(SYS_exit_group, code);
	for (;;)
		;
}

int main(void)
{
	cpu_set_t all;
	int n = ncpus_allowed(&all), reaped = 0, right = 0, extra = 0;

	CHECK(n > 0, "sched_getaffinity names %d CPUs", n);
	for (int i = 0; i < ROUNDS; i++) {
		int status = -1, code = i & 0x7f;
		pid_t pid = fork();

		if (pid == 0)
			move_and_exit(&all, code);
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			break;
		reaped++;
		right += WIFEXITED(status) && WEXITSTATUS(status) == code;
		extra += waitpid(pid, &status, WNOHANG) != -1 || errno != ECHILD;
	}
	CHECK(reaped == ROUNDS, "%d rounds, each child reaped (%d)", ROUNDS, reaped);
	CHECK(right == reaped, "each with its own exit status (%d of %d)", right, reaped);
	CHECK(extra == 0, "and only once (ECHILD after)");
	return abi_done("migrexit");
}

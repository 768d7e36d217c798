/*
 * prctlspin.c: prctl(PR_TASK_PERF_EVENTS_ENABLE/DISABLE) beside
 * spinning children. The parent opens, disabled, more hardware cycle
 * counters than the PMU has (so its groups take turns: rotation) and
 * inherited software events, forks children that spin (one pinned to
 * each CPU), pins itself beside one of them and enables everything with
 * prctl: it must keep running user code (work that needs it switched
 * in many times beside the spinner), on each CPU in turn, and every
 * prctl returns.
 *
 * baremon once livelocked here (found by a fuzzer, 2 CPUs): each time
 * the task came back on its CPU its own waiting groups started
 * rotation, which asked for a reschedule although the tick was running,
 * so it yielded to the spinner on every way back to user mode and never
 * got there. A watchdog kills the test after 60 s so that a hang shows
 * as a failure. Where there is no hardware PMU (the host here) the
 * cycle counters are left out and it says so.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include "perf.h"

#define NCYCLES 10   /* more than any PMU's counters, fixed ones included */

static int ncpu;

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void unpin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int c = 0; c < ncpu; c++)
		CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* A child spinning on cpu until killed. */
static pid_t spinner(int cpu)
{
	pid_t c = fork();

	if (c == 0) {
		pin(cpu);
		for (volatile unsigned long i = 0;; i++)
			;
	}
	return c;
}

/* Kill us after secs, saying why. */
static pid_t watchdog(int secs)
{
	pid_t parent = getpid(), c = fork();

	if (c == 0) {
		sleep((unsigned)secs);
		if (getppid() == parent) {
			printf("not ok - watchdog: the test did not finish in %d s "
			       "(a prctl or the way back to user mode hung)\n", secs);
			printf("prctlspin: 0 passed, 1 failed\n");
			fflush(stdout);
			kill(parent, SIGKILL);
		}
		_exit(0);
	}
	return c;
}

static int open_on(uint32_t type, uint64_t config, pid_t pid, int group, int inherit)
{
	struct perf_event_attr a;

	perf_attr(&a, type, config);
	a.inherit = (uint64_t)inherit;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	return perf_open(&a, pid, -1, group, 0);
}

int main(void)
{
	int fds[NCYCLES + 4], n = 0, cycles = 0, calls = 0, rounds = 0;
	pid_t kids[4];

	ncpu = cpu_list("/sys/devices/system/cpu/online", NULL, 0);
	ncpu = ncpu < 1 ? 1 : ncpu > 4 ? 4 : ncpu;
	pid_t dog = watchdog(60);

	int lead = open_on(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, -1, 1);
	CHECK(lead >= 0, "an inherited task-clock group on ourselves");
	fds[n++] = lead;
	fds[n++] = open_on(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, lead, 1);
	for (int i = 0; i < NCYCLES; i++) {
		int fd = open_on(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, -1, 0);
		if (fd >= 0)
			fds[n++] = fd, cycles++;
	}
	if (!cycles)
		abi_note("no hardware cycles event here (%s): software events only",
		         strerror(errno));
	for (int c = 0; c < ncpu; c++)
		kids[c] = spinner(c);

	for (int c = 0; c < ncpu; c++) {
		if (pin(c) != 0)
			continue;
		for (int r = 0; r < 2; r++) {
			calls += prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0) == 0;
			/* CPU time of our own, a slice at a time beside the
			 * spinner: many switches back in. */
			work_ns(20000000);
			calls += prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0) == 0;
			rounds++;
		}
	}
	unpin();
	CHECK(calls == 2 * rounds && rounds == 2 * ncpu, "%d prctl calls beside "
	      "spinning children, with %d cycle counters waiting their turn, "
	      "returned 0 (%d did)", 4 * ncpu, cycles, calls);
	uint64_t v = perf_value(lead);
	CHECK(v != PERF_BAD_VALUE && v >= 2ULL * ncpu * 20000000 / 2,
	      "the task-clock counted the work done while enabled (%llu ns)",
	      (unsigned long long)v);
	for (int c = 0; c < ncpu; c++)
		kill(kids[c], SIGKILL);
	for (int c = 0; c < ncpu; c++)
		waitpid(kids[c], NULL, 0);
	kill(dog, SIGKILL);
	waitpid(dog, NULL, 0);
	for (int i = 0; i < n; i++)
		close(fds[i]);
	return abi_done("prctlspin");
}

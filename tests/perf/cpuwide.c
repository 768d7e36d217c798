/*
 * cpuwide.c: counting per CPU (pid -1, cpu N), which needs root (or
 * perf_event_paranoid <= 0), and a task counted on one CPU only (pid 0,
 * cpu N). CPU 0's cpu-clock runs with wall time whether the CPU is busy
 * or idle; its page faults and context switches include this task's when
 * it runs there. A task event bound to CPU 0 stops while the task runs on
 * another CPU.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "perf.h"

#define SPAN 20000000   /* ns */

/* online[i]: CPU i is online (sysfs), i < ncpu; other: one not CPU 0, or -1. */
static unsigned char online[1024];
static int ncpu, other = -1;

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int open_on(uint64_t config, pid_t pid, int cpu, uint64_t fmt)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, config);
	a.read_format = fmt;
	return perf_open(&a, pid, cpu, -1, 0);
}

static int within3(uint64_t v, uint64_t ref)
{
	return v * 3 >= ref && v <= ref * 3;
}

static void test_cpu_clock(void)
{
	int fd = open_on(PERF_COUNT_SW_CPU_CLOCK, -1, 0,
	                 PERF_FORMAT_TOTAL_TIME_ENABLED |
	                 PERF_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t r0[3], r1[3], el;

	if (!CHECK(fd >= 0, "open cpu-clock on CPU 0 (pid -1, cpu 0)")) {
		printf("#   errno %d (%s)\n", errno, strerror(errno));
		return;
	}
	read(fd, r0, sizeof(r0));
	el = spin_ns(SPAN);
	read(fd, r1, sizeof(r1));
	abi_note("busy %llu ns on CPU 0: cpu-clock +%llu",
	         (unsigned long long)el, (unsigned long long)(r1[0] - r0[0]));
	CHECK(within3(r1[0] - r0[0], el),
	      "busy on CPU 0: its cpu-clock grows by about the time spent");
	CHECK(r1[1] >= r1[2] && r1[2] > 0, "enabled >= running > 0");

	read(fd, r0, sizeof(r0));
	el = now_ns();
	sleep_ns(SPAN);
	el = now_ns() - el;
	read(fd, r1, sizeof(r1));
	abi_note("asleep %llu ns: cpu-clock +%llu",
	         (unsigned long long)el, (unsigned long long)(r1[0] - r0[0]));
	CHECK(within3(r1[0] - r0[0], el),
	      "asleep: it grows all the same (a CPU's clock is wall time)");
	close(fd);
}

static void test_cpu_events(void)
{
	int pf = open_on(PERF_COUNT_SW_PAGE_FAULTS, -1, 0, 0);
	int cs = open_on(PERF_COUNT_SW_CONTEXT_SWITCHES, -1, 0, 0);
	uint64_t p0, c0, p1, c1;
	int all = 1;

	CHECK(pf >= 0 && cs >= 0, "open page-faults, context-switches on CPU 0");
	p0 = perf_value(pf);
	c0 = perf_value(cs);
	touch_pages(64);
	for (int i = 0; i < 5; i++)
		sleep_ns(SWITCH_SLEEP_NS);
	p1 = perf_value(pf);
	c1 = perf_value(cs);
	CHECK(p1 - p0 >= 64 && p1 != PERF_BAD_VALUE,
	      "CPU 0's page faults include this task's 64 (+%llu)",
	      (unsigned long long)(p1 - p0));
	CHECK(c1 - c0 >= 5 && c1 != PERF_BAD_VALUE,
	      "and its context switches this task's 5 sleeps (+%llu)",
	      (unsigned long long)(c1 - c0));
	close(pf);
	close(cs);

	for (int cpu = 0; cpu < ncpu && cpu < (int)sizeof(online); cpu++) {
		int fd;

		if (!online[cpu])
			continue;
		fd = open_on(PERF_COUNT_SW_CPU_CLOCK, -1, cpu, 0);
		all = all && fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	CHECK(all, "cpu-clock opens on each online CPU");
}

/* Enabled from CPU 0, an event of another CPU counts at once, even
 * when that CPU stays idle (what perf stat -a does). */
static void test_enable_remote(void)
{
	uint64_t r[3];
	struct perf_event_attr a;
	int fd;

	if (other < 0) {
		abi_note("one CPU: not testing an event of another CPU");
		return;
	}
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	a.disabled = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
	                PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = perf_open(&a, -1, other, -1, 0);
	if (!CHECK(fd >= 0, "open a disabled cpu-clock on CPU %d", other))
		return;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	sleep_ns(SPAN);
	read(fd, r, sizeof(r));
	abi_note("CPU %d, enabled from CPU 0: cpu-clock %llu, running %llu",
	         other, (unsigned long long)r[0], (unsigned long long)r[2]);
	CHECK(r[2] > 0 && within3(r[0], SPAN),
	      "enabled from CPU 0, CPU %d's cpu-clock runs at once", other);
	close(fd);
}

static void test_task_on_cpu(void)
{
	int fd = open_on(PERF_COUNT_SW_TASK_CLOCK, 0, 0, 0);
	int pf = open_on(PERF_COUNT_SW_PAGE_FAULTS, 0, 0, 0);
	uint64_t v0, v1, p0, p1, el;

	CHECK(fd >= 0 && pf >= 0,
	      "open task-clock, page-faults for this task on CPU 0 (pid 0, cpu 0)");
	v0 = perf_value(fd);
	el = work_ns(SPAN);
	v1 = perf_value(fd);
	CHECK(within3(v1 - v0, el), "running on CPU 0, it counts (+%llu)",
	      (unsigned long long)(v1 - v0));
	if (other < 0 || pin(other) != 0) {
		abi_note("one CPU: not testing a task on another CPU");
		close(fd);
		close(pf);
		return;
	}
	sched_yield();
	v0 = perf_value(fd);
	p0 = perf_value(pf);
	work_ns(SPAN);
	touch_pages(64);
	v1 = perf_value(fd);
	p1 = perf_value(pf);
	CHECK(v1 == v0 && v0 != PERF_BAD_VALUE,
	      "running on another CPU, its CPU 0 task-clock stands still (+%llu)",
	      (unsigned long long)(v1 - v0));
	CHECK(p1 == p0 && p0 != PERF_BAD_VALUE,
	      "and its CPU 0 page-faults (+%llu)", (unsigned long long)(p1 - p0));
	pin(0);
	sched_yield();
	v0 = perf_value(fd);
	work_ns(SPAN);
	v1 = perf_value(fd);
	CHECK(v1 - v0 > SPAN / 3, "back on CPU 0, it counts again");
	close(fd);
	close(pf);
}

int main(void)
{
	if (geteuid() != 0)
		abi_note("not root: per-CPU events need root or "
		         "perf_event_paranoid <= 0");
	ncpu = cpu_list("/sys/devices/system/cpu/online", online,
	                (int)sizeof(online));
	CHECK(ncpu > 0 && online[0], "CPU 0 is online (sysfs)");
	for (int cpu = 1; cpu < ncpu && cpu < (int)sizeof(online); cpu++)
		if (online[cpu] && other < 0)
			other = cpu;
	CHECK(pin(0) == 0, "run on CPU 0 (sched_setaffinity)");
	test_cpu_clock();
	test_cpu_events();
	test_enable_remote();
	test_task_on_cpu();
	return abi_done("cpuwide");
}

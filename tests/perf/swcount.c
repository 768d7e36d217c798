/*
 * swcount.c: software events counting for the calling task (pid 0, any
 * CPU): task-clock and cpu-clock against clock_gettime while busy,
 * page-faults and minor-faults for fresh anonymous pages, context
 * switches from sleeping, cpu-migrations readable, both counted as kernel
 * events (0 with exclude_kernel, as Linux), the events x86 never
 * raises (major, alignment and emulation faults) and the dummy event at
 * 0, and a counter opened disabled reading 0 until enabled.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "perf.h"

#define PAGES 64

/* v is no less than ref, less 10% and 1 ms. */
static int at_least(uint64_t v, uint64_t ref)
{
	return v + ref / 10 + 1000000 >= ref;
}

/* A counter opened with disabled = 0 starts at 0 and only grows. */
static void test_clocks(void)
{
	int task = perf_sw(PERF_COUNT_SW_TASK_CLOCK, 0);
	int cpu = perf_sw(PERF_COUNT_SW_CPU_CLOCK, 0);
	uint64_t t0, c0, t1, c1, el, busy, wall;

	CHECK(task >= 0, "open task-clock");
	CHECK(cpu >= 0, "open cpu-clock");
	wall = now_ns();
	t0 = perf_value(task);
	c0 = perf_value(cpu);
	CHECK(t0 != PERF_BAD_VALUE && c0 != PERF_BAD_VALUE,
	      "read() gives 8 bytes for each");
	busy = cpu_ns();
	el = spin_ns(30000000);
	busy = cpu_ns() - busy;
	t1 = perf_value(task);
	c1 = perf_value(cpu);
	wall = now_ns() - wall; /* the whole window t0..c1 spans */
	abi_note("busy %llu ns (CPU time %llu): task-clock +%llu, cpu-clock +%llu",
	         (unsigned long long)el, (unsigned long long)busy,
	         (unsigned long long)(t1 - t0), (unsigned long long)(c1 - c0));
	CHECK(t1 > t0 && c1 > c0, "both grow while busy");
	/*
	 * Both count the time the task runs: at least its CPU-time clock
	 * (CLOCK_THREAD_CPUTIME_ID, within 10% and 1 ms), however loaded the
	 * machine. Not at most: Linux's CPU-time clock runs on the run
	 * queue's task clock, which leaves out time stolen by the hypervisor
	 * and spent in interrupts, while task-clock and cpu-clock advance
	 * with perf's clock over the whole time the task is on the CPU (seen
	 * in a VM: CPU time 24.7 ms, task-clock 28.9 ms). (Against the
	 * elapsed time alone the check would depend on the load: with 4
	 * busy processes on 2 CPUs the task runs a third of the time.) And
	 * a single thread never runs longer than the elapsed time of the
	 * whole window, reads included (a stall of the virtual CPU between
	 * the reads and the spin is the task's time too).
	 */
	CHECK(at_least(t1 - t0, busy), "task-clock is at least the thread's CPU time");
	CHECK(at_least(c1 - c0, busy), "cpu-clock (of a task) is too");
	CHECK(t1 - t0 <= wall + wall / 10 + 1000000 &&
	      c1 - c0 <= wall + wall / 10 + 1000000,
	      "neither exceeds the elapsed time (%llu ns)", (unsigned long long)wall);

	/* Asleep, a task's clocks stand still (up to the wake-up's cost). */
	t0 = perf_value(task);
	sleep_ns(30000000);
	t1 = perf_value(task);
	CHECK(t1 - t0 < 10000000, "task-clock grows < 10 ms over a 30 ms sleep"
	      " (+%llu ns)", (unsigned long long)(t1 - t0));
	close(task);
	close(cpu);
}

static void test_faults(void)
{
	int pf = perf_sw(PERF_COUNT_SW_PAGE_FAULTS, 0);
	int min = perf_sw(PERF_COUNT_SW_PAGE_FAULTS_MIN, 0);
	int maj = perf_sw(PERF_COUNT_SW_PAGE_FAULTS_MAJ, 0);
	uint64_t p0, m0, p1, m1, j0, j1;

	CHECK(pf >= 0 && min >= 0 && maj >= 0,
	      "open page-faults, minor-faults, major-faults");
	/*
	 * Run the code measured once first: the first call of a function
	 * may fault its page of the program in, and under load such a
	 * file-backed fault can be major (it waits for the page or retries).
	 */
	touch_pages(1);
	p0 = perf_value(pf);
	m0 = perf_value(min);
	j0 = perf_value(maj);
	CHECK(touch_pages(PAGES) == 0, "map and touch %d pages", PAGES);
	p1 = perf_value(pf);
	m1 = perf_value(min);
	j1 = perf_value(maj);
	abi_note("page-faults +%llu, minor +%llu, major +%llu",
	         (unsigned long long)(p1 - p0), (unsigned long long)(m1 - m0),
	         (unsigned long long)(j1 - j0));
	CHECK(p1 - p0 >= PAGES, "page-faults grow by at least %d", PAGES);
	CHECK(m1 - m0 >= PAGES, "minor-faults grow by at least %d", PAGES);
	/* A fresh anonymous page needs no I/O: none is major. */
	CHECK(j1 - j0 == 0, "major-faults does not grow (%llu)",
	      (unsigned long long)(j1 - j0));
	/* Each fault is either minor or major: the two sum to the total. */
	CHECK(p1 - p0 == (m1 - m0) + (j1 - j0),
	      "page-faults = minor + major over the same stretch");
	close(pf);
	close(min);
	close(maj);
}

static void test_switches(void)
{
	int cs = perf_sw(PERF_COUNT_SW_CONTEXT_SWITCHES, 0);
	int mig = perf_sw(PERF_COUNT_SW_CPU_MIGRATIONS, 0);
	uint64_t v;

	CHECK(cs >= 0 && mig >= 0, "open context-switches, cpu-migrations");
	/* Each sleep blocks the task: a voluntary switch away. */
	for (int i = 0; i < 5; i++)
		sleep_ns(SWITCH_SLEEP_NS);
	v = perf_value(cs);
	CHECK(v >= 5 && v != PERF_BAD_VALUE,
	      "context-switches >= 5 after 5 sleeps (%llu)",
	      (unsigned long long)v);
	v = perf_value(mig);
	CHECK(v != PERF_BAD_VALUE, "cpu-migrations reads (%llu)",
	      (unsigned long long)v);
	close(cs);
	close(mig);
}

/* Linux counts switches and migrations where the scheduler runs, in the
 * kernel (perf_sw_event_sched with the caller's kernel registers): 0
 * with exclude_kernel, every one with exclude_user. */
static int sw_mode(uint64_t config, int exclude_kernel)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, config);
	a.exclude_kernel = exclude_kernel;
	a.exclude_user = !exclude_kernel;
	return perf_open(&a, 0, -1, -1, 0);
}

static void test_switch_modes(void)
{
	int cs_u = sw_mode(PERF_COUNT_SW_CONTEXT_SWITCHES, 1);
	int cs_k = sw_mode(PERF_COUNT_SW_CONTEXT_SWITCHES, 0);
	int mig_u = sw_mode(PERF_COUNT_SW_CPU_MIGRATIONS, 1);
	int mig_k = sw_mode(PERF_COUNT_SW_CPU_MIGRATIONS, 0);
	cpu_set_t all, one;
	int ncpu = 0;

	CHECK(cs_u >= 0 && cs_k >= 0 && mig_u >= 0 && mig_k >= 0,
	      "open both with exclude_kernel and with exclude_user");
	sched_getaffinity(0, sizeof(all), &all);
	for (int i = 0; i < 5; i++)
		sleep_ns(SWITCH_SLEEP_NS);
	/* Hop between two allowed CPUs, if there are two: migrations. */
	for (int hop = 0; hop < 4; hop++) {
		int want = hop % 2, seen = 0;
		for (int c = 0; c < CPU_SETSIZE; c++) {
			if (!CPU_ISSET(c, &all) || seen++ != want)
				continue;
			CPU_ZERO(&one);
			CPU_SET(c, &one);
			sched_setaffinity(0, sizeof(one), &one);
			ncpu = seen;
			break;
		}
	}
	sched_setaffinity(0, sizeof(all), &all);
	uint64_t vcs_u = perf_value(cs_u), vcs_k = perf_value(cs_k);
	uint64_t vmig_u = perf_value(mig_u), vmig_k = perf_value(mig_k);
	CHECK(vcs_u == 0, "context-switches with exclude_kernel: 0 (%llu)",
	      (unsigned long long)vcs_u);
	CHECK(vcs_k >= 5 && vcs_k != PERF_BAD_VALUE,
	      "context-switches with exclude_user: >= 5 (%llu)",
	      (unsigned long long)vcs_k);
	CHECK(vmig_u == 0, "cpu-migrations with exclude_kernel: 0 (%llu)",
	      (unsigned long long)vmig_u);
	if (ncpu >= 2)
		CHECK(vmig_k >= 1 && vmig_k != PERF_BAD_VALUE,
		      "cpu-migrations with exclude_user: >= 1 after 4 hops (%llu)",
		      (unsigned long long)vmig_k);
	else
		abi_note("one CPU: no migration to count");
	close(cs_u);
	close(cs_k);
	close(mig_u);
	close(mig_k);
}

/* Events x86 Linux never raises for a well-behaved program. */
static void test_zero_events(void)
{
	static const struct {
		uint64_t config;
		const char *name;
	} ev[] = {
		{ PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment-faults" },
		{ PERF_COUNT_SW_EMULATION_FAULTS, "emulation-faults" },
		{ PERF_COUNT_SW_DUMMY, "dummy" },
	};
	int fd[3];

	for (int i = 0; i < 3; i++) {
		fd[i] = perf_sw(ev[i].config, 0);
		CHECK(fd[i] >= 0, "open %s", ev[i].name);
	}
	work_ns(5000000);
	touch_pages(8);
	sleep_ns(SWITCH_SLEEP_NS);
	for (int i = 0; i < 3; i++) {
		uint64_t v = perf_value(fd[i]);
		CHECK(v == 0, "%s reads 0 (%llu)", ev[i].name,
		      (unsigned long long)v);
		close(fd[i]);
	}
}

static void test_disabled(void)
{
	int fd = perf_sw(PERF_COUNT_SW_TASK_CLOCK, 1);
	int pf = perf_sw(PERF_COUNT_SW_PAGE_FAULTS, 1);
	uint64_t v;

	CHECK(fd >= 0 && pf >= 0, "open task-clock and page-faults disabled");
	work_ns(5000000);
	touch_pages(8);
	v = perf_value(fd);
	CHECK(v == 0, "disabled task-clock reads 0 after work (%llu)",
	      (unsigned long long)v);
	v = perf_value(pf);
	CHECK(v == 0, "disabled page-faults reads 0 after faults (%llu)",
	      (unsigned long long)v);
	CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0 &&
	      ioctl(pf, PERF_EVENT_IOC_ENABLE, 0) == 0, "enable them");
	work_ns(5000000);
	touch_pages(8);
	v = perf_value(fd);
	CHECK(v > 1000000 && v != PERF_BAD_VALUE,
	      "then task-clock counts (> 1 ms after 5 ms busy: %llu)",
	      (unsigned long long)v);
	v = perf_value(pf);
	CHECK(v >= 8 && v != PERF_BAD_VALUE,
	      "and page-faults counts (>= 8: %llu)", (unsigned long long)v);
	close(fd);
	close(pf);
}

/* exclude_user / exclude_kernel apply to the mode the fault happened in:
 * faults on user pages touched from user mode count only without
 * exclude_user (perf stat sets exclude_kernel for non-root users). */
static void test_exclude(void)
{
	struct perf_event_attr a;
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	a.exclude_kernel = 1;
	int k = perf_open(&a, 0, -1, -1, 0);
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	a.exclude_user = 1;
	int u = perf_open(&a, 0, -1, -1, 0);
	CHECK(k >= 0 && u >= 0, "open with exclude_kernel and with exclude_user");
	CHECK(touch_pages(PAGES) == 0, "touch %d pages from user mode", PAGES);
	uint64_t vk = perf_value(k), vu = perf_value(u);
	CHECK(vk >= PAGES && vk != ~0ULL, "exclude_kernel counts user faults (%llu >= %d)",
	      (unsigned long long)vk, PAGES);
	CHECK(vu < PAGES, "exclude_user does not count them (%llu)", (unsigned long long)vu);
	close(k);
	close(u);
}

int main(void)
{
	test_clocks();
	test_faults();
	test_switches();
	test_switch_modes();
	test_zero_events();
	test_disabled();
	test_exclude();
	return abi_done("swcount");
}

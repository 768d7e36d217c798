/*
 * swswitch.c: software events across many context switches. Two
 * processes pinned to one CPU hand it back and forth through two pipes
 * (each blocks in read() until the other writes, so each round switches
 * each of them out at least once), each counting its own task-clock and
 * cpu-clock (with time_enabled and time_running), page-faults and
 * context-switches, and a group {task-clock, context-switches}:
 *
 *  - context-switches: at least one per round, the group's member equal
 *    to the lone event (the same switches, in the same context; within
 *    4 on Linux, where a switch may fall between the two reads);
 *  - task-clock, cpu-clock: running == enabled (a software event always
 *    has room); on baremon the value is time_enabled to the nanosecond
 *    (one clock for the count and the times, stopped and started at the
 *    same instants at every switch);
 *  - the two processes' task-clocks over the exchange together fit in
 *    its wall time: the time a process is switched out counts for
 *    neither, however many switches there were;
 *  - page-faults: at least the pages touched between rounds;
 *  - with a CPU PMU (baremon's vpmu under TCG), a pinned cycles:u in the
 *    same context counts whenever the context does (running == enabled,
 *    value > 0): a hardware group still goes on the counters at every
 *    switch-in beside the software groups.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <string.h>
#include "perf.h"

#define ROUNDS 300
#define TOUCHED 16  /* pages the parent touches, one per early round */

enum { TASK, CPU, FAULTS, SWITCHES, GROUP, GROUP_SWITCHES, CYCLES, NFD };

struct times { uint64_t value, enabled, running; };

/* What one process saw over the exchange: deltas of every counter. */
struct seen {
	struct times t[NFD];
	int cycles; /* cycles:u could be opened */
};

static int open_one(uint32_t type, uint64_t config, int group, int pinned)
{
	struct perf_event_attr a;

	perf_attr(&a, type, config);
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.pinned = pinned ? 1 : 0;
	a.exclude_kernel = type == PERF_TYPE_HARDWARE;
	return perf_open(&a, 0, -1, group, 0);
}

static void open_all(int *fd)
{
	fd[TASK] = open_one(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, -1, 0);
	fd[CPU] = open_one(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, -1, 0);
	fd[FAULTS] = open_one(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, -1, 0);
	fd[SWITCHES] = open_one(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, -1, 0);
	fd[GROUP] = open_one(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, -1, 0);
	fd[GROUP_SWITCHES] = open_one(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
	                              fd[GROUP], 0);
	fd[CYCLES] = open_one(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, -1, 1);
}

static void read_all(const int *fd, struct times *t)
{
	for (int i = 0; i < NFD; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		if (fd[i] >= 0 && read(fd[i], &t[i], sizeof(t[i])) != (ssize_t)sizeof(t[i]))
			t[i].value = PERF_BAD_VALUE;
	}
}

static void deltas(struct seen *s, const struct times *a, const struct times *b, const int *fd)
{
	for (int i = 0; i < NFD; i++) {
		s->t[i].value = b[i].value - a[i].value;
		s->t[i].enabled = b[i].enabled - a[i].enabled;
		s->t[i].running = b[i].running - a[i].running;
	}
	s->cycles = fd[CYCLES] >= 0;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int xfer(int fd, void *p, size_t n, int out)
{
	ssize_t r = out ? write(fd, p, n) : read(fd, p, n);
	return r == (ssize_t)n ? 0 : -1;
}

/* The child: answers every byte of `in` on `out` until 'q', then sends
 * what it counted from the first byte to the 'q'. */
static void child(int in, int out)
{
	int fd[NFD];
	struct times a[NFD], b[NFD];
	struct seen s;
	char c;

	open_all(fd);
	if (xfer(in, &c, 1, 0))
		_exit(1);
	read_all(fd, a);
	while (c != 'q') {
		if (xfer(out, &c, 1, 1) || xfer(in, &c, 1, 0))
			_exit(1);
	}
	read_all(fd, b);
	deltas(&s, a, b, fd);
	_exit(xfer(out, &s, sizeof(s), 1) ? 1 : 0);
}

static void check_one(const char *who, const struct seen *s)
{
	const struct times *t = s->t;
	int exact = abi_on_baremon();

	CHECK(t[SWITCHES].value >= ROUNDS && t[SWITCHES].value != PERF_BAD_VALUE,
	      "%s: context-switches %llu, at least one a round (%d)", who,
	      (unsigned long long)t[SWITCHES].value, ROUNDS);
	/* Read one after the other: a switch between two reads (a busy
	 * Linux host preempts) counts in one delta and not the other. */
	uint64_t gs = t[GROUP_SWITCHES].value, ls = t[SWITCHES].value;
	uint64_t apart = gs > ls ? gs - ls : ls - gs;
	CHECK(exact ? apart == 0 : apart <= 4,
	      "%s: the group's context-switches %llu equal the lone event's%s", who,
	      (unsigned long long)gs, exact ? "" : " (within 4)");
	for (int i = TASK; i <= GROUP; i += GROUP - TASK) {
		const char *name = i == TASK ? "task-clock" : "the group's task-clock";
		CHECK(t[i].value > 0 && t[i].enabled == t[i].running,
		      "%s: %s %llu ns, enabled %llu == running %llu", who, name,
		      (unsigned long long)t[i].value, (unsigned long long)t[i].enabled,
		      (unsigned long long)t[i].running);
		if (exact)
			CHECK(t[i].value == t[i].enabled,
			      "%s: %s equals its time_enabled to the ns", who, name);
	}
	CHECK(t[CPU].value > 0 && t[CPU].enabled == t[CPU].running,
	      "%s: cpu-clock %llu ns, enabled == running", who,
	      (unsigned long long)t[CPU].value);
	if (exact)
		CHECK(t[CPU].value == t[CPU].enabled,
		      "%s: cpu-clock equals its time_enabled to the ns", who);
	if (s->cycles)
		CHECK(t[CYCLES].value > 0 && t[CYCLES].enabled == t[CYCLES].running &&
		      t[CYCLES].enabled > 0,
		      "%s: pinned cycles:u %llu, running %llu == enabled %llu", who,
		      (unsigned long long)t[CYCLES].value,
		      (unsigned long long)t[CYCLES].running,
		      (unsigned long long)t[CYCLES].enabled);
}

int main(void)
{
	int to_kid[2], to_me[2], fd[NFD];
	struct times a[NFD], b[NFD];
	struct seen mine, kids;
	char c = 'x';
	unsigned cpu_u = 0;
	int cpu = syscall(__NR_getcpu, &cpu_u, NULL, NULL) == 0 ? (int)cpu_u : -1;

	if (!CHECK(cpu >= 0 && pin(cpu) == 0, "pinned to cpu %d", cpu))
		return abi_done("swswitch");
	if (!CHECK(pipe(to_kid) == 0 && pipe(to_me) == 0, "two pipes"))
		return abi_done("swswitch");
	open_all(fd);
	if (!CHECK(fd[TASK] >= 0 && fd[CPU] >= 0 && fd[FAULTS] >= 0 && fd[SWITCHES] >= 0 &&
	           fd[GROUP] >= 0 && fd[GROUP_SWITCHES] >= 0, "software events opened"))
		return abi_done("swswitch");
	if (fd[CYCLES] < 0)
		abi_note("no cycles:u here (%s): the hardware check is skipped", strerror(errno));
	pid_t kid = fork();
	if (kid == 0)
		child(to_kid[0], to_me[1]);
	uint64_t t0 = now_ns();
	read_all(fd, a);
	int ok = 1;
	for (int i = 0; i < ROUNDS && ok; i++) {
		if (i < TOUCHED)
			ok = touch_pages(1) == 0;
		ok = ok && !xfer(to_kid[1], &c, 1, 1) && !xfer(to_me[0], &c, 1, 0);
	}
	read_all(fd, b);
	c = 'q';
	ok = ok && !xfer(to_kid[1], &c, 1, 1) && !xfer(to_me[0], &kids, sizeof(kids), 0);
	uint64_t wall = now_ns() - t0;
	int status = -1;
	waitpid(kid, &status, 0);
	if (!CHECK(ok && status == 0, "%d rounds exchanged, the child's counts received", ROUNDS))
		return abi_done("swswitch");
	deltas(&mine, a, b, fd);
	check_one("parent", &mine);
	check_one("child", &kids);
	CHECK(mine.t[FAULTS].value >= TOUCHED && mine.t[FAULTS].value != PERF_BAD_VALUE,
	      "parent: page-faults %llu, at least the %d pages touched",
	      (unsigned long long)mine.t[FAULTS].value, TOUCHED);
	uint64_t both = mine.t[TASK].value + kids.t[TASK].value;
	CHECK(both <= wall + wall / 100 + 100000,
	      "the two task-clocks together (%llu ns) fit in the exchange's wall time "
	      "(%llu ns): time switched out counts for neither",
	      (unsigned long long)both, (unsigned long long)wall);
	return abi_done("swswitch");
}

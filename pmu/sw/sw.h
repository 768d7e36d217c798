/*
 * The software PMU's start, read and stop (pmu/sw/sw.c), inline so that the
 * scheduler's switch of a context of software groups (pmu/events/ctx_sched.c)
 * and the perf fd's lean path (pmu/events/lone_fd_ops.c) run them without the
 * PMU's indirection. A clock (cpu-clock,
 * task-clock) counts TSC time from start to stop; a sampling one has
 * its hrtimer armed in between (clock_sample.c); other software events
 * are counted where the kernel sees them and need nothing here.
 *
 * Locking: under perf_lock, interrupts off, on the event's CPU.
 */
#ifndef BAREMON_PMU_SW_H
#define BAREMON_PMU_SW_H

#include "pmu/events/event.h"
#include "pmu/events/throttle.h"

static inline bool perf_sw_is_clock(const struct perf_event *e)
{
	return e->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
	       e->attr.config == PERF_COUNT_SW_TASK_CLOCK;
}

static inline void perf_sw_start(struct perf_event *e, uint64_t now)
{
	e->start_value = now;
	if (e->attr.sample_period && perf_sw_is_clock(e))
		perf_clock_sample_start(e);
}

/* The count of an active software event now: a clock's runs from its
 * start; the others' is kept up to date where they happen. */
static inline uint64_t perf_sw_read(const struct perf_event *e, uint64_t now)
{
	return perf_sw_is_clock(e) ? e->count + (now - e->start_value) : e->count;
}

/* A software event (enabled, its times up to date) onto this CPU's
 * counters: event_start_here's steps without the PMU's indirection. A
 * software event cannot fail to go on; one that does not sample cannot
 * be throttled, and starting it arms nothing. */
static inline void perf_sw_event_start(struct perf_event *e, uint64_t now, int cpu)
{
	if (perf_throttled(e))
		perf_throttle_sched_in(e);
	perf_sw_start(e, now);
	e->state = EVENT_ACTIVE;
	e->oncpu = cpu;
	if (e->rb)
		perf_event_update_userpage(e, now);
}

static inline void perf_sw_stop(struct perf_event *e, uint64_t now)
{
	if (!perf_sw_is_clock(e))
		return;
	if (e->attr.sample_period)
		perf_clock_sample_stop(e);
	e->count += now - e->start_value;
}

#endif

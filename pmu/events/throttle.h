/*
 * Throttling (throttle.c) and freq-mode periods of interrupting events
 * (hwfreq.c), as Linux's __perf_event_account_interrupt and
 * perf_adjust_freq_unthr_context.
 *
 * An event that takes more than max_samples_per_tick =
 * DIV_ROUND_UP(perf_event_max_sample_rate, HZ) overflow interrupts in
 * one tick is throttled: a PERF_RECORD_THROTTLE goes out, it takes no
 * further samples (a hardware counter is stopped), and at the CPU's
 * next tick - or when its context next goes on a CPU - a
 * PERF_RECORD_UNTHROTTLE goes out and it runs again.
 *
 * Calling rules: under perf_lock with interrupts off, on the event's CPU.
 */
#ifndef BAREMON_PMU_THROTTLE_H
#define BAREMON_PMU_THROTTLE_H

#include <stdbool.h>
#include <stdint.h>

struct perf_event;
struct trap_frame;

#define PERF_HZ 100                     /* the tick */
#define PERF_TICK_NS (1000000000ULL / PERF_HZ)
#define PERF_MAX_INTERRUPTS (~0u)       /* e->interrupts of a throttled event */

/* DIV_ROUND_UP(perf_event_max_sample_rate, HZ). */
uint32_t perf_max_samples_per_tick(void);
/* One more overflow interrupt of e. `throttle`: this one may throttle
 * (hardware and timer overflows always; a software event only from the
 * second overflow of one occurrence on). True: e is throttled now (the
 * THROTTLE record is written). */
bool perf_throttle_account(struct perf_event *e, bool throttle);
static inline bool perf_throttled(const struct perf_event *e);
/* e goes on a CPU's counters: a throttled one is unthrottled (record). */
void perf_throttle_sched_in(struct perf_event *e);
/* Every tick (not under perf_lock): a new throttling interval; unthrottle
 * this CPU's throttled events and adjust freq-mode hardware periods. */
void perf_throttle_tick(void);

/* This CPU's tick must run: an event was throttled here since it last
 * ran (perf_wants_tick). */
bool perf_throttle_wants_tick(unsigned cpu);

/* hwfreq.c: freq mode for events whose PMU interrupts on overflow
 * (pmu->scarce). At an overflow (a period ended at now_ns): move the
 * period toward sample_freq (Linux's perf_adjust_period). True: what
 * was left of the period was dropped (period_left 0): arm it again. */
bool perf_freq_overflow(struct perf_event *e, uint64_t now_ns);
/* At the tick: the count since the last tick gives the rate. */
void perf_freq_tick(struct perf_event *e);

#include "event.h"
static inline bool perf_throttled(const struct perf_event *e)
{
	return e->interrupts == PERF_MAX_INTERRUPTS;
}

#endif

/*
 * How an event source reports an occurrence to the event core: software
 * events, breakpoints, tracepoints (and, for sampling, hardware
 * overflows). The core adds to the count and, for a sampling event
 * (attr.sample_period/freq), counts the period down and writes a
 * PERF_RECORD_SAMPLE into the event's ring buffer when it runs out.
 *
 * Calling rule: under perf_lock with interrupts off, on the CPU where
 * the occurrence happened, for an ACTIVE event.
 */
#ifndef BAREMON_PMU_HIT_H
#define BAREMON_PMU_HIT_H

#include <stdbool.h>
#include <stdint.h>
#include "pmu/perf.h"  /* struct perf_hit */

struct perf_event;

/* e saw n more occurrences. */
void perf_event_hit(struct perf_event *e, uint64_t n, const struct perf_hit *hit);

/* sw.c: perf_sw_event (no sample registers) for a caller that holds
 * perf_lock already, t being current: counts into t's context and this
 * CPU's (the scheduler's switch-out counts context switches so, in the
 * same critical section as it takes t's events off the counters). */
struct task;
void perf_sw_event_locked(struct task *t, unsigned config, uint64_t n,
			  enum perf_sw_where where);

/* e's period ran out: one sample standing for `period` occurrences
 * (overflow.c). True when the event must stop taking samples now
 * (throttled, or its REFRESH limit reached): the caller stops counting
 * down (a hardware driver leaves its counter unarmed). */
bool perf_event_overflow(struct perf_event *e, const struct perf_hit *hit, uint64_t period);
/* The same where `throttle` says whether this overflow may throttle the
 * event (false for the first of a software occurrence, as Linux's
 * perf_swevent_overflow). */
bool perf_event_overflow_at(struct perf_event *e, const struct perf_hit *hit,
			    uint64_t period, bool throttle);

#endif

/*
 * What the x86 core-PMU drivers (pmu/x86/intel, pmu/x86/amd) do the same way:
 * arming a counter for what is left of an event's period, folding what
 * it counted into the event, and the PMI's step for one overflowed
 * counter (fold, re-arm, sample). A driver describes the counter an
 * event holds (struct x86_counter); everything here runs on that CPU,
 * with interrupts off, under perf_lock.
 */
#ifndef BAREMON_PMU_X86_COMMON_H
#define BAREMON_PMU_X86_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include "pmu/events/event.h"

struct trap_frame;

struct x86_counter {
	uint32_t msr;          /* the count register a write arms */
	uint64_t mask;         /* its width */
	uint64_t max_period;   /* the longest period one write can arm */
};

/* Arm e's counter with what is left of its period (Linux's
 * x86_perf_event_set_period). From the PMI (`pmi`), returns whether a
 * period ended since the counter was last armed (then hw.last_period is
 * its length); elsewhere an ended period stays owed and the counter is
 * armed to overflow at once. */
bool x86_set_period(struct perf_event *e, const struct x86_counter *k, bool pmi);
/* Add what the counter counted since prev_count to e->count and take it
 * off period_left (the difference sign-extended from the width). */
void x86_fold(struct perf_event *e, const struct x86_counter *k);
/* The PMI's work for e's counter, which overflowed: fold, re-arm and,
 * when the whole period has passed, sample with registers f. `where`
 * (may be NULL) is the PMI's own hit: its kernel callchain is used when
 * f is the interrupted frame itself (not the model's user frame). True
 * when the event is throttled: the driver stops its counter. */
bool x86_overflowed(struct perf_event *e, const struct x86_counter *k, struct trap_frame *f,
		    const struct perf_hit *where);

#endif

/*
 * Which event holds which counter of a CPU, the same way for the Intel
 * and AMD drivers: a driver's per-CPU state embeds a struct
 * x86_counters; an event holds counter idx (e->hw.idx) from claim to
 * release. A counter index is a bit of `used`/`active` (Intel: GP i, or
 * PMC_IDX_FIXED + j; AMD: counter i).
 *
 * Locking: a CPU's struct belongs to it and is touched only there, with
 * interrupts off (the pmu ops under perf_lock, the PMI).
 */
#ifndef BAREMON_PMU_X86_COUNTERS_H
#define BAREMON_PMU_X86_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>
#include "pmu/events/event.h"

#define X86_MAX_IDX 40  /* Intel's fixed counters start at index 32 */

struct x86_counters {
	struct perf_event *owner[X86_MAX_IDX];
	uint64_t used;     /* bit idx: owner[idx] set */
	uint64_t active;   /* bit idx: counter idx enabled (Intel: GLOBAL_CTRL) */
};

/* The counter an event takes when those in `used` are taken, -1: none. */
typedef int (*x86_pick_fn)(const struct perf_event *e, uint64_t used);

/* e takes counter idx (free: the caller picked it). */
void x86_claim(struct x86_counters *c, struct perf_event *e, int idx);
/* e gives its counter back. */
void x86_release(struct x86_counters *c, struct perf_event *e);
/* Does e hold one of c's counters? */
bool x86_owns(const struct x86_counters *c, const struct perf_event *e);
/* Is e's counter enabled? (e holds it) */
bool x86_is_active(const struct x86_counters *c, const struct perf_event *e);

/* Could leader's group, plus extra (may be NULL), be on pmu's counters
 * at once? Each of pmu's events, in the group's order, takes the
 * counter pick gives it, as add() would place them; other PMUs' events
 * take none. */
bool x86_group_fits(const struct pmu *pmu, x86_pick_fn pick, struct perf_event *leader,
		    struct perf_event *extra);

#endif

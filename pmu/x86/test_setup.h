/*
 * What the Intel and AMD drivers' self-tests set up the same way:
 * whether a test can run, events as perf_event_open would make them
 * (not attached), and the errno a driver's event_init gives.
 */
#ifndef BAREMON_PMU_X86_TEST_H
#define BAREMON_PMU_X86_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include "pmu/events/event.h"
#include "pmu/perf.h"
#include "core/selftest.h"

/* Can t run? Not when the driver's PMU is not registered (t is skipped,
 * `what` naming the PMU looked for); when it needs this CPU's counters
 * (busy not NULL), not when events hold them (t fails). */
bool x86_test_usable(struct selftest_ctx *t, bool registered, const char *what,
		     bool (*busy)(void));
/* An event of pmu (or the software PMU for PERF_TYPE_SOFTWARE). */
struct perf_event *x86_test_event(struct pmu *pmu, uint32_t type, uint64_t config);
/* pmu's event_init on such an event, attr first changed by tweak. */
int x86_test_init_errno(struct pmu *pmu, uint32_t type, uint64_t config,
			void (*tweak)(struct perf_event_attr *));

/* pmu's event_init on a sampling RAW event `config`, user mode only,
 * with a branch stack of type bst and period `period`. */
int x86_test_branch_errno(struct pmu *pmu, uint64_t config, uint64_t bst, uint64_t period);
/* A group of pmu's: a cycles leader and n - 1 cycles siblings; one
 * more cycles event in *extra. Freed (all of it) by x86_test_free_group. */
struct perf_event *x86_test_cycles_group(struct pmu *pmu, int n, struct perf_event **extra);
void x86_test_free_group(struct perf_event *leader, struct perf_event *extra);

/* Load e's counter (e holds one on this CPU; under perf_lock) with a
 * raw value, as if it had counted up to it. */
void x86_test_load(struct perf_event *e, uint64_t raw);

/* Tweaks: precise_ip 1; a branch stack; a period of 1 (BTS on branches). */
void x86_test_precise(struct perf_event_attr *a);
void x86_test_branch_stack(struct perf_event_attr *a);
void x86_test_bts(struct perf_event_attr *a);
void x86_test_user_only(struct perf_event_attr *a);

#endif

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

/* Tweaks: precise_ip 1; a branch stack; a period of 1 (BTS on branches). */
void x86_test_precise(struct perf_event_attr *a);
void x86_test_branch_stack(struct perf_event_attr *a);
void x86_test_bts(struct perf_event_attr *a);
void x86_test_user_only(struct perf_event_attr *a);

#endif

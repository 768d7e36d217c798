/*
 * The PMI's delivery, shared by the x86 core-PMU drivers (Intel, AMD;
 * the code is pmu/x86/pmi.c): `pmi=nmi` (the default, as Linux) has
 * LVTPC deliver it as an NMI, `pmi=irq` as the maskable VEC_PMI. The
 * NMI path's rules (trylock perf_lock or defer to VEC_PMI, wake-ups
 * through irq_work) are pmi.c's; a driver gives the handling of its
 * overflowed counters.
 */
#ifndef BAREMON_PMU_X86_PMI_H
#define BAREMON_PMU_X86_PMI_H

#include <stdbool.h>
#include <stdint.h>
#include "pmu/perf.h"

/* Rounds of a status loop before the PMU is reset (Linux's 100). */
#define X86_PMI_MAX_LOOPS 100

struct x86_pmi_ops {
	/* Handle this CPU's overflowed counters, sampling where->regs (and
	 * where->kchain when set): under perf_lock, interrupts off (or in
	 * an NMI that holds perf_lock). */
	void (*handle)(const struct perf_hit *where);
	/* An NMI that LVTPC did not deliver (it is not masked): true to
	 * claim it anyway (AMD's late NMIs, Linux's perf_nmi_window). NMI
	 * context, no lock. NULL: never. */
	bool (*claim_late)(void);
};

/* Boot, by the one registered core-PMU driver: read `pmi=`, install
 * the VEC_PMI and NMI handlers. */
void x86_pmi_init(const struct x86_pmi_ops *ops);
bool x86_pmi_is_nmi(void);
uint32_t x86_lvtpc(void);        /* LVTPC, unmasked, in the chosen mode */
void x86_pmi_stuck(void);        /* a status loop gave up: reset done */

/* Counts, per CPU: PMIs taken (/proc/interrupts' PMI row), NMIs handed
 * to VEC_PMI; status loops that gave up. */
uint64_t x86_pmi_count(unsigned cpu);
uint64_t x86_pmi_deferred_count(unsigned cpu);
uint64_t x86_pmi_stuck_count(void);
/* Self-tests: NMIs on the model are handled at once, not deferred (the
 * test sends them itself, from outside the model). */
void x86_test_nmi_direct(bool on);

#endif

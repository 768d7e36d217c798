/*
 * The AMD core PMU driver, PMU "cpu" (PERF_TYPE_RAW, and HARDWARE/
 * HW_CACHE through it), as Linux's arch/x86/events/amd/core.c, on the
 * x86 layer (pmu/x86/core.h): amd.c detects the PMU and gives its event
 * tables and checks; amd_counters.c its registers. Shared with the
 * self-tests.
 */
#ifndef BAREMON_PMU_AMD_H
#define BAREMON_PMU_AMD_H

#include <stdbool.h>
#include <stdint.h>
#include "pmu/events/event.h"

#define AMD_MAX_COUNTERS 16
#define AMD_WIDTH 48

/* PERF_CTL bits beyond Intel's layout (msr.h has the shared ones). */
#define AMD_EVENTSEL_EVENT_HI   (0xfULL << 32)   /* event bits 8-11 */
#define AMD_EVENTSEL_GUESTONLY  (1ULL << 40)
#define AMD_EVENTSEL_HOSTONLY   (1ULL << 41)
/* What a raw config selects (Linux's AMD64_RAW_EVENT_MASK). */
#define AMD_RAW_EVENT_MASK (EVTSEL_EVENT | AMD_EVENTSEL_EVENT_HI | EVTSEL_UMASK | \
			    EVTSEL_EDGE | EVTSEL_INV | EVTSEL_CMASK)

/* What CPUID said, fixed at boot. */
struct amd_caps {
	unsigned family, model;
	unsigned n_counters;      /* 4 legacy, 6 PerfCtrExtCore, or 8000_0022H's */
	bool perfctr_core;        /* CPUID 8000_0001H.ECX[23]: C001_0200.. */
	bool perfmon_v2;          /* CPUID 8000_0022H.EAX[0]: the global MSRs */
	bool model_pmu;           /* the software model stands in */
	bool registered;          /* the "cpu" PMU exists */
};

extern struct amd_caps amd_caps;
extern struct pmu amd_pmu;

/* Boot: detect (AMD and Hygon CPUs only), install the model if need
 * be, register "cpu". */
void amd_pmu_init(void);

/* amd_counters.c: counter i's PERF_CTL and PERF_CTR; the counter an
 * event gets when those in `used` are taken (-1: none); the counters'
 * part of the x86 layer's ops (pmu/x86/core.h). */
uint32_t amd_ctl_msr(unsigned i);
uint32_t amd_ctr_msr(unsigned i);
int amd_pick_counter(uint64_t used);
struct x86_pmu;
void amd_counters_ops(struct x86_pmu *p);

/* PMIs that found nothing overflowed, per CPU: claimed in the window
 * after one that did (spurious), or outside it (unknown). */
uint64_t amd_spurious_count(unsigned cpu);
uint64_t amd_unknown_count(unsigned cpu);

#endif

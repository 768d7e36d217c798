/*
 * The AMD core PMU driver, PMU "cpu" (PERF_TYPE_RAW, and HARDWARE/
 * HW_CACHE through it), as Linux's arch/x86/events/amd/core.c: amd.c
 * detects the PMU and turns attributes into PERF_CTL values; amd_counters.c
 * places events on counters, reads them and takes the PMI. Shared with
 * the self-tests.
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
	bool model_pmu;           /* the vpmu stands in */
	bool registered;          /* the "cpu" PMU exists */
};

extern struct amd_caps amd_caps;
extern struct pmu amd_pmu;

/* Boot: detect (AMD and Hygon CPUs only), install the model if need
 * be, register "cpu". */
void amd_pmu_init(void);

/* amd.c: the PERF_CTL value (without EN) e's attributes ask for. */
uint64_t amd_event_config(const struct perf_event *e);

/* amd_counters.c */
uint32_t amd_ctl_msr(unsigned i);
uint32_t amd_ctr_msr(unsigned i);
int amd_pick_counter(uint64_t used);
int amd_add(struct perf_event *e, uint64_t now);
void amd_del(struct perf_event *e, uint64_t now);
void amd_start(struct perf_event *e, uint64_t now);
void amd_stop(struct perf_event *e, uint64_t now);
uint64_t amd_read(struct perf_event *e, uint64_t now);
bool amd_group_fits(struct perf_event *leader, struct perf_event *extra);
void amd_counters_init(void);  /* boot: the PMI (pmu/x86/pmi.h) */
/* Handle this CPU's overflowed counters (x86_pmi_ops.handle). */
struct perf_hit;
void amd_handle_overflows(const struct perf_hit *where);

/* For the self-tests. */
uint64_t amd_spurious_count(unsigned cpu);  /* claimed in the window */
uint64_t amd_unknown_count(unsigned cpu);   /* nothing overflowed, outside it */
/* Make PerfMonV2's status come back after each acknowledgement. */
void amd_test_stuck_status(bool on);
bool amd_counters_busy(void);

#endif

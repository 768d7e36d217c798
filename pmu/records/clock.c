/*
 * The clock of an event's record times (attr.use_clockid / clockid):
 * TIME in samples, in sample_id_all trailers and in FORK/EXIT records.
 * Without use_clockid it is the perf clock, ns since boot (what the
 * control page's time_zero extrapolates).
 *
 * Linux's perf_event_set_clock: MONOTONIC and MONOTONIC_RAW for any PMU
 * (NMI-safe), REALTIME, BOOTTIME and TAI only for PMUs that never sample
 * from an NMI (software events), every other id EINVAL; a group shares
 * one clock (EINVAL otherwise). baremon has no suspend and does not slew:
 * MONOTONIC, MONOTONIC_RAW and BOOTTIME are all ns since boot;
 * REALTIME is the RTC's reading at boot plus that, TAI REALTIME plus 37 s.
 */
#include <linux/errno.h>
#include "pmu/events/event.h"
#include "records.h"
#include "core/proc/timekeeping.h"
#include "core/arch/tsc.h"

static bool nmi_safe(int clockid)
{
	return clockid == CLOCK_MONOTONIC_ID || clockid == CLOCK_MONOTONIC_RAW_ID;
}

static bool known(int clockid)
{
	return nmi_safe(clockid) || clockid == CLOCK_REALTIME_ID ||
	       clockid == CLOCK_BOOTTIME_ID || clockid == CLOCK_TAI_ID;
}

/* The clock events of this attr stamp with (-1: the perf clock). */
static int clock_of(const struct perf_event_attr *a)
{
	return a->use_clockid ? (int)a->clockid : -1;
}

int perf_clock_check(const struct perf_event_attr *a, const struct pmu *pmu,
		     const struct perf_event *leader)
{
	if (a->use_clockid) {
		if (!known((int)a->clockid))
			return -EINVAL;
		if (!nmi_safe((int)a->clockid) && pmu != &perf_sw_pmu)
			return -EINVAL; /* the PMU may sample from an NMI */
	}
	if (leader && clock_of(&leader->attr) != clock_of(a))
		return -EINVAL;
	return 0;
}

uint64_t perf_event_clock(const struct perf_event *e)
{
	uint64_t ns;
	if (e->attr.use_clockid && clock_now((int)e->attr.clockid, &ns) == 0)
		return ns;
	return time_since_boot_ns();
}

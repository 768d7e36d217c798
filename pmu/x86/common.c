/*
 * Periods, folding and the per-counter PMI step shared by the Intel
 * and AMD drivers (common.h).
 *
 * Periods (Linux's x86_perf_event_set_period): a counter is armed at
 * -left (masked to its width) so that it overflows, and raises the PMI,
 * after `left` events, where left is what remains of the event's
 * period (e->period_left), at most max_period: a longer period takes
 * several overflows, and only the one that ends it samples. A counting
 * event's period is max_period, so it survives any number of wraps.
 */
#include "core/arch/tsc.h"
#include "pmu/events/hit.h"
#include "msr.h"
#include "pmu/perf.h"
#include "pmu/events/throttle.h"
#include "pmu/x86/common.h"

bool x86_set_period(struct perf_event *e, const struct x86_counter *k, bool pmi)
{
	int64_t period = (int64_t)e->sample_period, left = e->period_left;
	bool ended = false;
	if (!perf_is_sampling(e) || period <= 0) {
		period = left = (int64_t)k->max_period;
		e->period_left = left;
	} else if (!pmi) {
		/* keep left: an ended period stays owed */
	} else if (left <= -period) {
		left = period;
		ended = true;
	} else if (left <= 0) {
		left += period;
		ended = true;
	}
	if (ended) {
		e->period_left = left;
		e->hw.last_period = (uint64_t)period;
	}
	if (left < 2)
		left = 2; /* as Linux: some CPUs mishandle 1 */
	if ((uint64_t)left > k->max_period)
		left = (int64_t)k->max_period;
	uint64_t start = (0 - (uint64_t)left) & k->mask;
	pmu_wrmsr(k->msr, start);
	e->hw.prev_count = start;
	if (pmi && e->rb)
		perf_event_update_userpage(e, time_since_boot_ns()); /* RDPMC's offset */
	return ended;
}

/* The difference is taken modulo the width and sign-extended, so a
 * counter that wrapped once still gives the right (positive) delta. */
void x86_fold(struct perf_event *e, const struct x86_counter *k)
{
	uint64_t mask = k->mask;
	uint64_t now = pmu_rdmsr(k->msr) & mask;
	uint64_t delta = (now - e->hw.prev_count) & mask;
	if (delta & (mask ^ (mask >> 1)))
		delta |= ~mask;
	e->hw.prev_count = now;
	e->count += delta;
	e->period_left -= (int64_t)delta;
}

/* Linux's handle_pmi_common for one counter. */
bool x86_overflowed(struct perf_event *e, const struct x86_counter *k, struct trap_frame *f,
		    const struct perf_hit *where)
{
	x86_fold(e, k);
	if (!x86_set_period(e, k, true) || !perf_is_sampling(e))
		return false;
	uint64_t period = e->hw.last_period; /* what this sample stands for */
	if (e->attr.freq && perf_freq_overflow(e, time_since_boot_ns()))
		x86_set_period(e, k, true); /* the rest of a far longer period was dropped */
	struct perf_hit hit = { .regs = f };
	if (where) {
		hit.branches = where->branches;
		hit.branches_nr = where->branches_nr;
		hit.branches_hw_idx = where->branches_hw_idx;
	}
	if (where && f == where->regs) {
		hit.kchain = where->kchain;
		hit.kchain_nr = where->kchain_nr;
	}
	return perf_event_overflow(e, &hit, period);
}

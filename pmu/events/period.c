/*
 * PERF_EVENT_IOC_PERIOD: a new sample_period (sample_freq in freq mode)
 * that takes effect at once, as Linux's __perf_event_period: the period
 * in progress is dropped and a whole new one starts. The change runs
 * with the event's context off the counters (perf_ctx_call), so a
 * hardware counter is re-armed and a clock event's timer restarted when
 * it goes back on, and a throttled event is unthrottled on the way.
 */
#include <linux/errno.h>
#include "event.h"
#include "core/kernel.h"
#include "notify.h"
#include "core/fs/vfs.h"

static void set_period_fn(struct perf_event *e, void *arg, uint64_t now)
{
	uint64_t v = *(uint64_t *)arg;
	if (e->attr.freq) {
		e->attr.sample_freq = v;
	} else {
		e->attr.sample_period = v;
		e->sample_period = v;
	}
	if (perf_is_clock(e))
		perf_clock_sample_reset(e);
	else /* through jitter.c: last_period (PERIOD) follows, jitter too */
		e->period_left = (int64_t)perf_next_period(e);
}

/* A period of 1 on branch instructions asks the x86 PMU for BTS
 * (Linux's intel_pmu_check_period): refused as at open. */
static bool wants_bts(const struct perf_event *e, uint64_t v)
{
	return e->pmu->scarce && !e->attr.freq && v == 1 &&
	       e->attr.type == PERF_TYPE_HARDWARE &&
	       e->attr.config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
}

int perf_event_set_period(struct perf_event *e, uint64_t v)
{
	if (!perf_is_sampling(e) || !v)
		return -EINVAL;
	if (e->attr.freq && v > (uint64_t)sysctl_perf_event_max_sample_rate())
		return -EINVAL;
	if (!e->attr.freq && (v & (1ULL << 63)))
		return -EINVAL;
	if (wants_bts(e, v))
		return -EINVAL;
	perf_ctx_call(e, set_period_fn, &v);
	return 0;
}

/*
 * freq mode (attr.freq, sample_freq samples a second) for events whose
 * PMU interrupts on overflow (hardware counters), as Linux's
 * perf_adjust_period: the period starts at 1 and is moved an eighth of
 * the way toward what the rate seen would need, at every overflow (the
 * rate since the previous one, when that was less than two ticks ago)
 * and at every tick (the count since the event's previous tick). A period left far
 * beyond the new one (8 times) is cut short.
 *
 * Software events adjust their own period at each sample (hit.c).
 *
 * Calling rules: under perf_lock with interrupts off, on the event's CPU.
 */
#include "event.h"
#include "throttle.h"
#include "core/arch/tsc.h"

#define NSEC_PER_SEC 1000000000ULL

/* count events in ns at sample_freq a second: the period that gives
 * one sample each 1/sample_freq s. Both are halved until count * 1e9
 * cannot overflow 64 bits (their ratio is what matters). */
static uint64_t wanted_period(const struct perf_event *e, uint64_t ns, uint64_t count)
{
	uint64_t freq = e->attr.sample_freq;
	while (count >= (1ULL << 33)) {
		count >>= 1;
		ns >>= 1;
	}
	if (!ns || !freq)
		return e->sample_period;
	return count * NSEC_PER_SEC / ns / freq;
}

/* Linux's perf_adjust_period. True: period_left was reset, the counter
 * needs arming again. */
static bool adjust(struct perf_event *e, uint64_t ns, uint64_t count)
{
	int64_t delta = (int64_t)(wanted_period(e, ns, count) - e->sample_period);
	delta = (delta + 7) / 8; /* low-pass filter */
	uint64_t p = e->sample_period + (uint64_t)delta;
	e->sample_period = p ? p : 1;
	if (e->period_left > 0 && (uint64_t)e->period_left > 8 * e->sample_period) {
		e->period_left = 0;
		return true;
	}
	return false;
}

bool perf_freq_overflow(struct perf_event *e, uint64_t now_ns)
{
	uint64_t dt = now_ns - e->last_sample_ns;
	e->last_sample_ns = now_ns;
	if ((int64_t)dt <= 0 || dt >= 2 * PERF_TICK_NS)
		return false;
	return adjust(e, dt, e->hw.last_period);
}

/* Linux divides the tick's count by TICK_NSEC; the time since this
 * event's previous tick is used here instead, which is the same on a
 * CPU that ticks for it every 10 ms and stays right when the task
 * moved between CPUs (whose ticks are not in step) or missed ticks. */
void perf_freq_tick(struct perf_event *e)
{
	uint64_t now = time_since_boot_ns();
	e->pmu->stop(e, now);            /* folds the counter */
	uint64_t delta = e->count - e->hw.freq_count_stamp;
	uint64_t ns = e->hw.freq_tick_ns ? now - e->hw.freq_tick_ns : 0;
	e->hw.freq_count_stamp = e->count;
	e->hw.freq_tick_ns = now;
	if (delta && ns && (int64_t)ns > 0)
		adjust(e, ns, delta);
	e->pmu->start(e, now);           /* re-armed from period_left */
}

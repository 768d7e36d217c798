/*
 * Occurrences reported by event sources (hit.h), and sampling: a
 * sampling event (attr.sample_period, or attr.freq with sample_freq)
 * counts its period down and writes a PERF_RECORD_SAMPLE each time it
 * runs out - unless it asks for PERF_SAMPLE_PERIOD with a fixed period:
 * then, as on Linux, every occurrence is a sample.
 *
 * Periods: fixed, or in freq mode re-computed at each sample from the
 * rate seen since the previous one so that samples come sample_freq
 * times a second (Linux adjusts likewise, smoothed). Clock events
 * (cpu-clock, task-clock) are sampled by their own hrtimer instead:
 * pmu/sw/clock_sample.c.
 *
 * Wake-ups of pollers cannot happen under perf_lock (the scheduler
 * takes it inside its run-queue lock), nor in an NMI: the writer sets
 * this CPU's perf_wakeup and perf_wakeup_pending() does them later (an
 * NMI raises irq_work for it when perf_wakeup_owed()).
 */
#include "event.h"
#include "core/kernel.h"
#include "notify.h"
#include "core/arch/percpu.h"
#include "pmu/perf.h"
#include "hit.h"
#include "core/proc/task.h"
#include "core/arch/tsc.h"
#include "core/fs/vfs.h"

#define MAX_SAMPLES_PER_HIT 16

bool perf_is_sampling(const struct perf_event *e)
{
	return e->attr.sample_period != 0; /* sample_freq shares it */
}

void perf_sample_init(struct perf_event *e)
{
	e->sample_period = e->attr.freq ? 1 : e->attr.sample_period;
	e->period_left = (int64_t)e->sample_period;
	e->last_period = e->sample_period;
	e->last_sample_ns = time_since_boot_ns();
	perf_clock_sample_init(e);
}

/* freq mode: the period that would have given sample_freq samples a
 * second at the rate seen since the last sample, moved 1/8 of the way
 * there per sample, never 0. */
static void adjust_period(struct perf_event *e, uint64_t now)
{
	uint64_t dt = now - e->last_sample_ns;
	e->last_sample_ns = now;
	if (!dt || !e->attr.sample_freq)
		return;
	uint64_t p0 = e->sample_period;
	uint64_t want = p0 < (1ULL << 34) ? p0 * 1000000000ULL / dt / e->attr.sample_freq
					 : p0 / dt * 1000000000ULL / e->attr.sample_freq;
	int64_t delta = ((int64_t)(uint64_t)want - (int64_t)e->sample_period) / 8;
	if (!delta) /* close: step by one */
		delta = (want > p0) - (want < p0);
	int64_t p = (int64_t)p0 + delta;
	e->sample_period = p > 0 ? (uint64_t)p : 1;
}

/* n more occurrences toward the period: samples for each one used up. */
static void account(struct perf_event *e, uint64_t n, const struct perf_hit *hit)
{
	e->period_left -= (int64_t)n;
	for (int i = 0; e->period_left <= 0 && i < MAX_SAMPLES_PER_HIT; i++) {
		uint64_t period = e->last_period; /* the one that ran out */
		if (e->attr.freq)
			adjust_period(e, time_since_boot_ns());
		e->period_left += (int64_t)perf_next_period(e); /* jitter.c */
		if (perf_event_overflow_at(e, hit, period, i > 0))
			break;
	}
	if (e->period_left <= 0) /* a burst beyond what we write: drop it */
		e->period_left = (int64_t)perf_next_period(e);
}

/* Linux's perf_swevent_event: an event that asks for PERF_SAMPLE_PERIOD
 * with a fixed period is sampled at every occurrence, its PERIOD the n
 * occurrences it stands for; the period is not counted down. */
static bool samples_each_hit(const struct perf_event *e)
{
	return (e->attr.sample_type & PERF_SAMPLE_PERIOD) && !e->attr.freq;
}

void perf_event_hit(struct perf_event *e, uint64_t n, const struct perf_hit *hit)
{
	e->count += n;
	if (!perf_is_sampling(e))
		return;
	if (samples_each_hit(e))
		perf_event_overflow_at(e, hit, n, false);
	else
		account(e, n, hit);
}

/* ---- wake-ups ---- */

bool perf_wakeup_owed(void)
{
	return this_cpu()->perf_wakeup || perf_notify_owed();
}

void perf_wakeup_pending(void)
{
	perf_notify_pending(); /* owners' signals, REFRESH limits */
	if (!this_cpu()->perf_wakeup)
		return;
	this_cpu()->perf_wakeup = 0;
	poll_wake_all();
}

/*
 * Occurrences reported by event sources (sample.h), and sampling: a
 * sampling event (attr.sample_period, or attr.freq with sample_freq)
 * counts its period down and writes a PERF_RECORD_SAMPLE each time it
 * runs out.
 *
 * Periods: fixed, or in freq mode re-computed at each sample from the
 * rate seen since the previous one so that samples come sample_freq
 * times a second (Linux adjusts likewise, smoothed). Clock events
 * (cpu-clock, task-clock) are sampled from the CPU's tick: one sample
 * per tick at most, whose PERIOD is the whole periods that elapsed.
 *
 * Wake-ups of pollers cannot happen under perf_lock (the scheduler
 * takes it inside its run-queue lock): the writer sets this CPU's
 * perf_wakeup and perf_wakeup_pending() does them later.
 */
#include "event.h"
#include "kernel.h"
#include "percpu.h"
#include "perf.h"
#include "ringbuf.h"
#include "sample.h"
#include "task.h"
#include "tsc.h"
#include "vfs.h"

#define MAX_SAMPLES_PER_HIT 16

bool perf_is_sampling(const struct perf_event *e)
{
	return e->attr.sample_period != 0; /* sample_freq shares it */
}

void perf_sample_init(struct perf_event *e)
{
	e->sample_period = e->attr.freq ? 1 : e->attr.sample_period;
	e->period_left = (int64_t)e->sample_period;
	e->last_sample_ns = time_since_boot_ns();
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
		uint64_t period = e->sample_period;
		if (e->attr.freq)
			adjust_period(e, time_since_boot_ns());
		e->period_left += (int64_t)e->sample_period;
		if (perf_event_overflow_at(e, hit, period, i > 0))
			break;
	}
	if (e->period_left <= 0) /* a burst beyond what we write: drop it */
		e->period_left = (int64_t)e->sample_period;
}

void perf_event_hit(struct perf_event *e, uint64_t n, const struct perf_hit *hit)
{
	e->count += n;
	if (perf_is_sampling(e))
		account(e, n, hit);
}

/* ---- clock events, from the tick ---- */

static bool is_clock(const struct perf_event *e)
{
	return e->pmu == &perf_sw_pmu && (e->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
					  e->attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

/* One sample for the whole periods of clock time since the last tick. */
static void clock_tick(struct perf_event *e, uint64_t now, const struct perf_hit *hit)
{
	uint64_t count = e->pmu->read(e, now);
	uint64_t delta = count - e->clock_seen;
	e->clock_seen = count;
	e->period_left -= (int64_t)delta;
	if (e->period_left > 0)
		return;
	uint64_t periods = (uint64_t)(-e->period_left) / e->sample_period + 1;
	if (e->attr.freq)
		adjust_period(e, now);
	e->period_left = (int64_t)e->sample_period;
	perf_event_overflow(e, hit, periods * e->sample_period);
}

static void clocks_in(struct list *ctx, uint64_t now, const struct perf_hit *hit)
{
	list_for_each(n, ctx) {
		struct perf_event *l = list_entry(n, struct perf_event, ctx_node);
		if (l->state == EVENT_ACTIVE && is_clock(l) && perf_is_sampling(l))
			clock_tick(l, now, hit);
		list_for_each(m, &l->siblings) {
			struct perf_event *s = list_entry(m, struct perf_event, sibling_node);
			if (s->state == EVENT_ACTIVE && is_clock(s) && perf_is_sampling(s))
				clock_tick(s, now, hit);
		}
	}
}

void perf_sample_clocks(struct trap_frame *f)
{
	struct task *t = current;
	struct list *cpu_list = perf_cpu_events(this_cpu_id());
	if ((!t || list_empty(&t->perf_events)) && list_empty(cpu_list))
		return;
	struct perf_hit hit = { .regs = f };
	uint64_t now = time_since_boot_ns();
	spin_lock(&perf_lock);
	if (t && t->perf_ctx_in)
		clocks_in(&t->perf_events, now, &hit);
	clocks_in(cpu_list, now, &hit);
	spin_unlock(&perf_lock);
}

/* A clock event goes on the counters: its time counts from here. */
void perf_sample_clock_start(struct perf_event *e, uint64_t now)
{
	if (is_clock(e) && perf_is_sampling(e))
		e->clock_seen = e->pmu->read(e, now);
}

/* ---- wake-ups ---- */

void perf_wakeup_pending(void)
{
	if (!this_cpu()->perf_wakeup)
		return;
	this_cpu()->perf_wakeup = 0;
	poll_wake_all();
}

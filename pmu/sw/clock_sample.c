/*
 * Sampling clock events (cpu-clock, task-clock) from an hrtimer, as
 * Linux's perf_swevent_hrtimer: each sampling clock event has its own
 * timer (e->clock_timer) on the CPU whose counters hold it, armed while
 * the event counts there, firing every sample_period ns of that time
 * (at least every 10 us: Linux's floor for clock events; the PERIOD a
 * sample reports stays sample_period). freq mode is a fixed period of
 * 1e9 / sample_freq ns, as Linux turns freq into a period for these
 * events when it opens them. period_left holds, between stop and
 * start, what was left of the interval in TSC cycles (0: nothing kept).
 *
 * Locking: the software PMU's start/stop (pmu/sw/sw.c) arm and disarm the
 * timer under perf_lock with interrupts off on the event's CPU, which
 * is the timer's CPU (hrtimer.h). The callback runs from that CPU's
 * timer interrupt and takes perf_lock itself; an event that is no
 * longer ACTIVE there (stopped meanwhile) is left alone.
 */
#include "pmu/events/event.h"
#include "core/arch/hrtimer.h"
#include "core/kernel.h"
#include "core/arch/percpu.h"
#include "pmu/perf.h"
#include "pmu/events/hit.h"
#include "core/proc/task.h"
#include "core/arch/trap.h"
#include "core/arch/x86.h"

#define CLOCK_MIN_PERIOD_NS 10000ULL

static uint64_t interval_tsc(const struct perf_event *e)
{
	uint64_t ns = e->sample_period > CLOCK_MIN_PERIOD_NS ? e->sample_period
							       : CLOCK_MIN_PERIOD_NS;
	return hrtimer_ns_to_tsc(ns);
}

static bool excluded(const struct perf_event *e, const struct trap_frame *f)
{
	bool user = (f->cs & 3) == 3;
	if ((user && e->attr.exclude_user) || (!user && e->attr.exclude_kernel))
		return true;
	return e->attr.exclude_idle && current && current->tid == 0;
}

/* The timer callback: one sample with the interrupted registers, then
 * the next expiry one interval later (whole intervals skipped when the
 * CPU was late, as hrtimer_forward_now: missed samples are not made
 * up). perf_event_overflow saying stop (throttled) leaves it unarmed;
 * the PMU's start re-arms it. */
static void clock_fire(struct hrtimer *t, struct trap_frame *f)
{
	struct perf_event *e = container_of(t, struct perf_event, clock_timer);
	bool stop = false;
	spin_lock(&perf_lock);
	if (e->state != EVENT_ACTIVE || e->oncpu != (int)this_cpu_id()) {
		spin_unlock(&perf_lock);
		return;
	}
	if (!excluded(e, f)) {
		struct perf_hit hit = { .regs = f };
		stop = perf_event_overflow(e, &hit, e->sample_period);
	}
	if (!stop) {
		uint64_t step = interval_tsc(e), next = t->expires + step, now = rdtsc();
		if (next <= now)
			next += ((now - next) / step + 1) * step;
		hrtimer_start(t, next);
	}
	spin_unlock(&perf_lock);
	perf_wakeup_pending(); /* no lock held: the interrupt came with irqs on */
}

/* Every new event (event_alloc, inherited copies too): the timer is
 * not armed; a software clock's freq mode becomes its fixed period. */
bool perf_is_clock(const struct perf_event *e)
{
	return e->attr.type == PERF_TYPE_SOFTWARE &&
	       (e->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
		e->attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

void perf_clock_sample_reset(struct perf_event *e)
{
	e->period_left = 0;
	if (e->attr.freq && e->attr.sample_freq) {
		uint64_t p = 1000000000ULL / e->attr.sample_freq;
		e->sample_period = p ? p : 1;
	}
}

void perf_clock_sample_init(struct perf_event *e)
{
	hrtimer_init(&e->clock_timer, clock_fire);
	if (perf_is_clock(e))
		perf_clock_sample_reset(e);
}

/* The event starts counting on this CPU: arm its timer for what was
 * left of the interval when it stopped (at most 10 us if that had
 * passed), or a whole interval. */
void perf_clock_sample_start(struct perf_event *e)
{
	if (!perf_is_sampling(e))
		return;
	int64_t left = e->period_left;
	uint64_t delay = left > 0 ? (uint64_t)left
			 : left < 0 ? hrtimer_ns_to_tsc(CLOCK_MIN_PERIOD_NS) : interval_tsc(e);
	e->period_left = 0;
	hrtimer_start(&e->clock_timer, rdtsc() + delay);
}

/* The event stops counting here: keep what is left of the interval
 * (TSC cycles in period_left, negative when already due). */
void perf_clock_sample_stop(struct perf_event *e)
{
	if (!hrtimer_queued(&e->clock_timer))
		return;
	e->period_left = (int64_t)(e->clock_timer.expires - rdtsc());
	if (!e->period_left)
		e->period_left = -1;
	hrtimer_cancel(&e->clock_timer);
}

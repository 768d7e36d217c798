/*
 * Throttling, as Linux's __perf_event_account_interrupt and the
 * unthrottling half of perf_adjust_freq_unthr_context.
 *
 * Each CPU numbers its ticks (seq). An event counts its overflow
 * interrupts within the current tick (e->interrupts, restarted at 1 by
 * the first one of a new tick); the one that takes it past
 * max_samples_per_tick, if it may throttle, throttles the event:
 * e->interrupts = PERF_MAX_INTERRUPTS, a PERF_RECORD_THROTTLE, and the
 * caller stops it (perf_event_overflow returns true: a hardware counter
 * is left stopped, a software event writes no samples). The CPU's next
 * tick unthrottles every throttled event of its contexts with a
 * PERF_RECORD_UNTHROTTLE and restarts hardware counters; an event
 * whose context went off the CPU meanwhile is unthrottled when it goes
 * on again (Linux's event_sched_in).
 *
 * Which overflows may throttle (Linux's `throttle` argument): a hardware
 * counter's and a timer's always; a software event's (and a tracepoint's
 * or breakpoint's) only the second and later of one occurrence, so one
 * sample per occurrence is never throttled.
 *
 * Locking: under perf_lock with interrupts off on the event's CPU;
 * seq[c] and need_tick[c] are CPU c's own (read by its scheduler).
 */
#include "event.h"
#include "core/kernel.h"
#include "core/arch/percpu.h"
#include "core/proc/sched.h"
#include "core/proc/task.h"
#include "pmu/records/records.h"
#include "throttle.h"
#include "core/arch/tsc.h"
#include "core/fs/vfs.h"

static uint64_t seq[MAX_CPUS];        /* this CPU's tick number */
static bool need_tick[MAX_CPUS];      /* an event throttled since the tick */

uint32_t perf_max_samples_per_tick(void)
{
	int rate = sysctl_perf_event_max_sample_rate();
	return rate > 0 ? (uint32_t)((rate + PERF_HZ - 1) / PERF_HZ) : 1;
}

bool perf_throttle_account(struct perf_event *e, bool throttle)
{
	unsigned cpu = this_cpu_id();
	if (e->interrupts_seq != seq[cpu]) {
		e->interrupts_seq = seq[cpu];
		e->interrupts = 1;
		return false;
	}
	e->interrupts++;
	if (!throttle || e->interrupts <= perf_max_samples_per_tick())
		return false;
	e->interrupts = PERF_MAX_INTERRUPTS;
	perf_record_throttle(e, false);
	/* The tick unthrottles: an idle or isolated CPU that stopped it
	 * starts it again (Linux's TICK_DEP_BIT_PERF_EVENTS). */
	need_tick[cpu] = true;
	sched_want_tick();
	return true;
}

/* Let e sample again (its record first, as Linux logs it). An event
 * still on this CPU is restarted by its PMU: stop then start, which
 * keeps every PMU's count and re-arms what throttling left unarmed (a
 * hardware counter, a clock event's timer). */
static void unthrottle(struct perf_event *e, bool restart)
{
	e->interrupts = 0;
	perf_record_throttle(e, true);
	if (restart && e->state == EVENT_ACTIVE) {
		uint64_t now = time_since_boot_ns();
		e->pmu->stop(e, now);
		e->pmu->start(e, now);
	}
}

bool perf_throttle_wants_tick(unsigned cpu)
{
	return need_tick[cpu];
}

void perf_throttle_sched_in(struct perf_event *e)
{
	if (perf_throttled(e))
		unthrottle(e, false); /* add() arms its counter */
}

/* One event at the tick: unthrottle, then the freq-mode period. */
static void tick_one(struct perf_event *e)
{
	if (e->state != EVENT_ACTIVE)
		return;
	if (perf_throttled(e))
		unthrottle(e, true);
	if (e->attr.freq && e->attr.sample_freq && e->pmu->scarce)
		perf_freq_tick(e);
}

static void tick_ctx(struct list *ctx)
{
	list_for_each(n, ctx) {
		struct perf_event *l = list_entry(n, struct perf_event, ctx_node);
		tick_one(l);
		list_for_each(m, &l->siblings)
			tick_one(list_entry(m, struct perf_event, sibling_node));
	}
}

void perf_throttle_tick(void)
{
	unsigned cpu = this_cpu_id();
	struct task *t = current;
	struct list *cpu_list = perf_cpu_events(cpu);
	seq[cpu]++; /* a new interval for every event of this CPU */
	need_tick[cpu] = false; /* what is throttled here is unthrottled now */
	if ((!t || list_empty(&t->perf_events)) && list_empty(cpu_list))
		return;
	spin_lock(&perf_lock); /* the tick runs with interrupts off */
	if (t && t->perf_ctx_in)
		tick_ctx(&t->perf_events);
	tick_ctx(cpu_list);
	spin_unlock(&perf_lock);
}

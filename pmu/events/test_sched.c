/*
 * Self-tests of the event core's counter scheduling, with a PMU of two
 * counters made up for the test (not registered): groups go on whole or
 * not at all, waiting groups rotate round robin in creation order on the
 * tick, times let the scaled count be computed, pinned groups that do
 * not fit go to the error state, exclusive groups run alone.
 *
 * The events are CPU events of the CPU running the test; checks of what
 * is on the counters run with interrupts off so no tick rotates between
 * them.
 */
#include "event.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "core/arch/percpu.h"
#include "core/proc/sched.h"
#include "core/selftest.h"
#include "core/arch/tsc.h"
#include "core/arch/x86.h"

#define NR_FAKE 2

static struct perf_event *fake_slot[MAX_CPUS][NR_FAKE];

static int fake_add(struct perf_event *e, uint64_t now)
{
	struct perf_event **slot = fake_slot[this_cpu_id()];
	for (int i = 0; i < NR_FAKE; i++) {
		if (slot[i])
			continue;
		slot[i] = e;
		e->hw.idx = i;
		e->start_value = now;
		return 0;
	}
	return -1;
}

static void fake_del(struct perf_event *e, uint64_t now)
{
	e->count += now - e->start_value;
	fake_slot[this_cpu_id()][e->hw.idx] = NULL;
	e->hw.idx = -1;
}

static uint64_t fake_read(struct perf_event *e, uint64_t now)
{
	return e->count + (now - e->start_value);
}

static struct pmu fake_pmu = {
	.name = "selftest", .scarce = true, .add = fake_add, .del = fake_del,
	.read = fake_read, .mux_interval_ms = 1,
};

static struct perf_event *fake_event(struct pmu *pmu, bool pinned, bool exclusive)
{
	struct perf_event_attr attr = { .pinned = pinned, .exclusive = exclusive };
	struct perf_event *e = event_alloc(&attr, NULL, (int)this_cpu_id(), EVENT_INACTIVE);
	if (e)
		e->pmu = pmu;
	return e;
}

static void put_all(struct perf_event **ev, int n)
{
	for (int i = n - 1; i >= 0; i--)
		if (ev[i])
			event_put(ev[i]);
}

/* Three single events, two counters: the third waits, and rotation
 * moves the first to the end each time. */
SELFTEST(perf_rotation_order)
{
	struct perf_event *ev[3];
	for (int i = 0; i < 3; i++)
		ev[i] = fake_event(&fake_pmu, false, false);
	uint64_t f = irq_save();
	for (int i = 0; i < 3; i++)
		event_attach(ev[i], NULL);
	ST_CHECK(t, ev[0]->state == EVENT_ACTIVE && ev[1]->state == EVENT_ACTIVE);
	ST_CHECK(t, ev[2]->state == EVENT_INACTIVE);
	ST_CHECK(t, perf_wants_tick(this_cpu_id()));
	spin_lock(&perf_lock);
	perf_rotate(time_since_boot_ns());
	spin_unlock(&perf_lock);
	ST_CHECK(t, ev[0]->state == EVENT_INACTIVE);
	ST_CHECK(t, ev[1]->state == EVENT_ACTIVE && ev[2]->state == EVENT_ACTIVE);
	spin_lock(&perf_lock);
	perf_rotate(time_since_boot_ns());
	spin_unlock(&perf_lock);
	ST_CHECK(t, ev[1]->state == EVENT_INACTIVE);
	ST_CHECK(t, ev[2]->state == EVENT_ACTIVE && ev[0]->state == EVENT_ACTIVE);
	irq_restore(f);
	put_all(ev, 3);
	ST_CHECK(t, !perf_wants_tick(this_cpu_id()));
}

/* Has every event both run and waited (0 < running < enabled)? */
static bool all_rotated(struct perf_event **ev, int n)
{
	for (int i = 0; i < n; i++) {
		uint64_t v, en, run;
		uint64_t f = spin_lock_irqsave(&perf_lock);
		event_totals(ev[i], &v, &en, &run);
		spin_unlock_irqrestore(&perf_lock, f);
		if (!run || run >= en)
			return false;
	}
	return true;
}

/* With ticks on, every event runs part of the time; the counts scale.
 * Ticks, not wall time, rotate: a loaded host may run the vCPU through
 * 100 ms with no tick in it, so the wait is for the second rotation
 * (every event has run and waited), within 30 s. Two counters for
 * three events keep exactly two on at every instant, however
 * irregular the ticks: running is 2/3 of enabled. */
SELFTEST(perf_rotation_times)
{
	struct perf_event *ev[3];
	for (int i = 0; i < 3; i++) {
		ev[i] = fake_event(&fake_pmu, false, false);
		event_attach(ev[i], NULL);
	}
	udelay(100000); /* ten ticks: ten rotations, on an idle host */
	for (int ms = 0; ms < 30000 && !all_rotated(ev, 3); ms += 10)
		udelay(10000);
	uint64_t sum_run = 0, sum_en = 0;
	for (int i = 0; i < 3; i++) {
		uint64_t v, en, run;
		uint64_t f = spin_lock_irqsave(&perf_lock);
		event_totals(ev[i], &v, &en, &run);
		spin_unlock_irqrestore(&perf_lock, f);
		ST_CHECK(t, run > 0 && run < en);
		/* The fake counter counts ns while on: value == running. */
		ST_CHECK(t, v + 1000000 >= run && v <= run + 1000000);
		sum_run += run;
		sum_en += en;
	}
	/* Two counters for three events: 2/3 of the time on, give or take
	 * a tick's share. */
	ST_CHECK(t, sum_run * 100 > sum_en * 55 && sum_run * 100 < sum_en * 78);
	put_all(ev, 3);
}

/* A group of two goes on whole or not at all; a software sibling rides
 * with its group. */
SELFTEST(perf_group_whole)
{
	struct perf_event *a = fake_event(&fake_pmu, false, false);
	struct perf_event *g = fake_event(&fake_pmu, false, false);
	struct perf_event *s1 = fake_event(&fake_pmu, false, false);
	struct perf_event *sw = fake_event(&perf_sw_pmu, false, false);
	uint64_t f = irq_save();
	event_attach(a, NULL);
	event_attach(g, NULL);
	event_attach(s1, g);
	event_attach(sw, g);
	/* a holds one counter, g's group needs two: it waits, whole. */
	ST_CHECK(t, a->state == EVENT_ACTIVE);
	ST_CHECK(t, g->state == EVENT_INACTIVE && s1->state == EVENT_INACTIVE);
	ST_CHECK(t, sw->state == EVENT_INACTIVE);
	spin_lock(&perf_lock);
	perf_rotate(time_since_boot_ns());
	spin_unlock(&perf_lock);
	ST_CHECK(t, a->state == EVENT_INACTIVE);
	ST_CHECK(t, g->state == EVENT_ACTIVE && s1->state == EVENT_ACTIVE &&
		    sw->state == EVENT_ACTIVE);
	irq_restore(f);
	struct perf_event *all[] = { a, g, s1, sw };
	put_all(all, 4);
}

/* Pinned groups come first; one that cannot fit is in error. */
SELFTEST(perf_pinned_error)
{
	struct perf_event *ev[4];
	ev[0] = fake_event(&fake_pmu, false, false);
	for (int i = 1; i < 4; i++)
		ev[i] = fake_event(&fake_pmu, true, false);
	uint64_t f = irq_save();
	for (int i = 0; i < 4; i++)
		event_attach(ev[i], NULL);
	ST_CHECK(t, ev[1]->state == EVENT_ACTIVE && ev[2]->state == EVENT_ACTIVE);
	ST_CHECK(t, ev[3]->state == EVENT_ERROR);
	ST_CHECK(t, ev[0]->state == EVENT_INACTIVE); /* flexible waits */
	irq_restore(f);
	/* Closing a pinned one makes room; re-enabling retries the error. */
	event_put(ev[1]);
	ev[1] = NULL;
	event_enable(ev[3], false);
	ST_CHECK(t, ev[3]->state == EVENT_ACTIVE);
	put_all(ev, 4);
}

/* An exclusive group runs with no other scarce group beside it. */
SELFTEST(perf_exclusive_alone)
{
	struct perf_event *x = fake_event(&fake_pmu, false, true);
	struct perf_event *y = fake_event(&fake_pmu, false, false);
	struct perf_event *sw = fake_event(&perf_sw_pmu, false, false);
	uint64_t f = irq_save();
	event_attach(x, NULL);
	event_attach(y, NULL);
	event_attach(sw, NULL);
	ST_CHECK(t, x->state == EVENT_ACTIVE && y->state == EVENT_INACTIVE);
	ST_CHECK(t, sw->state == EVENT_ACTIVE); /* software always fits */
	spin_lock(&perf_lock);
	perf_rotate(time_since_boot_ns());
	spin_unlock(&perf_lock);
	ST_CHECK(t, x->state == EVENT_INACTIVE && y->state == EVENT_ACTIVE);
	irq_restore(f);
	struct perf_event *all[] = { x, y, sw };
	put_all(all, 3);
}

/* Events of another CPU, opened from here: attached there by IPI, and
 * rotated by that CPU's tick even while it idles (it restarts its tick
 * for them). Needs two CPUs. */
SELFTEST(perf_rotation_remote_idle)
{
	unsigned me = this_cpu_id();
	int other = -1;
	for (unsigned c = 0; c < MAX_CPUS && other < 0; c++)
		if (c != me && sched_cpu_online(c))
			other = (int)c;
	if (other < 0)
		return; /* one CPU: nothing to test */
	struct perf_event *ev[3];
	for (int i = 0; i < 3; i++) {
		ev[i] = fake_event(&fake_pmu, false, false);
		ev[i]->cpu = other;
		event_attach(ev[i], NULL);
	}
	ST_CHECK(t, ev[0]->oncpu == other && ev[1]->oncpu == other);
	udelay(100000);
	for (int i = 0; i < 3; i++) {
		uint64_t v, en, run;
		event_sync_remote(ev[i]);
		uint64_t f = spin_lock_irqsave(&perf_lock);
		event_totals(ev[i], &v, &en, &run);
		spin_unlock_irqrestore(&perf_lock, f);
		ST_CHECK(t, run > 0 && run < en);
		ST_CHECK(t, v > 0);
	}
	put_all(ev, 3);
}

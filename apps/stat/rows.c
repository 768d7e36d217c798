/*
 * Readings into rows. Each CPU's count is scaled on its own when the
 * event ran part of the time it was enabled (value * enabled / running),
 * then the CPUs of a slot are summed: every CPU without -A, one with it.
 * A counter that never opened is <not supported>; one that did not run
 * (running 0) <not counted>.
 */
#include "stat.h"

static double scaled(struct reading r)
{
	if (!r.running)
		return 0;
	if (r.running < r.enabled)
		return (double)r.value * (double)r.enabled / (double)r.running;
	return (double)r.value;
}

static struct reading minus(struct reading a, struct reading b)
{
	return (struct reading){ a.value - b.value, a.enabled - b.enabled, a.running - b.running };
}

static enum row_state state_of(const struct counter *c, double running)
{
	if (!c->supported)
		return ROW_NOT_SUPPORTED;
	return running > 0 ? ROW_COUNTED : ROW_NOT_COUNTED;
}

/* Counter c on slot s: its last reading, or what it counted since the
 * one before (delta). */
static struct row slot_row(const struct counter *c, const struct target *t, int s, bool delta)
{
	struct row w = { .c = c, .cpu = t->no_aggr ? t->cpu[s] : -1, .slot = s };
	int first = t->no_aggr ? s : 0, end = t->no_aggr ? s + 1 : t->ncpus;
	for (int k = first; k < end; k++) {
		struct reading r = delta ? minus(c->now[k], c->prev[k]) : c->now[k];
		w.value += scaled(r);
		w.enabled += (double)r.enabled;
		w.running += (double)r.running;
	}
	w.state = state_of(c, w.running);
	return w;
}

void rows_from_readings(struct row *rows, const struct counter *c, int n,
			const struct target *t, bool delta)
{
	int slots = target_slots(t);
	for (int i = 0; i < n; i++)
		for (int s = 0; s < slots; s++)
			rows[i * slots + s] = slot_row(&c[i], t, s, delta);
}

void rows_accumulate(struct counter *c, int n, const struct target *t)
{
	for (int i = 0; i < n; i++) {
		for (int s = 0; s < target_slots(t); s++) {
			struct row w = slot_row(&c[i], t, s, false);
			stats_add(&c[i].acc[s].value, w.value);
			stats_add(&c[i].acc[s].enabled, w.enabled);
			stats_add(&c[i].acc[s].running, w.running);
		}
	}
}

void rows_from_runs(struct row *rows, const struct counter *c, int n, const struct target *t)
{
	int slots = target_slots(t);
	for (int i = 0; i < n; i++) {
		for (int s = 0; s < slots; s++) {
			const struct acc *a = &c[i].acc[s];
			struct row *w = &rows[i * slots + s];
			w->c = &c[i];
			w->cpu = t->no_aggr ? t->cpu[s] : -1;
			w->slot = s;
			w->value = stats_mean(&a->value);
			w->enabled = stats_mean(&a->enabled);
			w->running = stats_mean(&a->running);
			w->noise = rel_pct(stats_stddev_mean(&a->value), w->value);
			w->state = state_of(&c[i], w->running);
		}
	}
}

/*
 * The metric column perf stat derives from other counters of the same
 * slot (the same CPU with -A, else the totals):
 *   task-clock, cpu-clock  CPUs utilized = clock ns / elapsed ns
 *   instructions           insn per cycle (with cycles)
 *   branch-misses          % of all branches (with branches)
 *   cache-misses           % of all cache refs (with cache-references)
 *   cycles                 GHz = cycles / clock ns
 *   anything else          events per second of clock time, in /sec,
 *                          K/sec, M/sec or G/sec
 * A metric whose other counter is absent or not counted is left out.
 */
#include "stat.h"

bool is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_TASK_CLOCK || a->config == PERF_COUNT_SW_CPU_CLOCK);
}

static bool is_hw(const struct row *r, uint64_t config)
{
	return r->c->attr.type == PERF_TYPE_HARDWARE && r->c->attr.config == config;
}

struct slot {
	const struct row *rows;
	int n, stride;
};

static const struct row *find_hw(const struct slot *s, uint64_t config)
{
	for (int i = 0; i < s->n; i++) {
		const struct row *r = &s->rows[i * s->stride];
		if (r->state == ROW_COUNTED && is_hw(r, config))
			return r;
	}
	return 0;
}

static const struct row *find_clock(const struct slot *s)
{
	for (int i = 0; i < s->n; i++) {
		const struct row *r = &s->rows[i * s->stride];
		if (is_clock(&r->c->attr))
			return r->state == ROW_COUNTED ? r : 0;
	}
	return 0;
}

static struct metric make(double v, int width, int decimals, const char *suffix, const char *unit)
{
	return (struct metric){ true, v, width, decimals, suffix, unit };
}

static struct metric rate(double per_sec)
{
	static const char *const units[] = { "/sec", "K/sec", "M/sec", "G/sec" };
	int u = 0;
	while (u < 3 && per_sec > 1000.0) {
		per_sec /= 1000.0;
		u++;
	}
	return make(per_sec, 8, 3, "", units[u]);
}

/* Hardware events with a metric of their own: present = handled. */
static bool hw_metric(const struct row *r, const struct slot *s, struct metric *m)
{
	const struct row *other;
	if (is_hw(r, PERF_COUNT_HW_INSTRUCTIONS)) {
		if ((other = find_hw(s, PERF_COUNT_HW_CPU_CYCLES)) && other->value > 0)
			*m = make(r->value / other->value, 7, 2, " ", "insn per cycle");
		return true;
	}
	if (is_hw(r, PERF_COUNT_HW_BRANCH_MISSES) &&
	    (other = find_hw(s, PERF_COUNT_HW_BRANCH_INSTRUCTIONS))) {
		*m = make(other->value > 0 ? 100.0 * r->value / other->value : 0, 7, 2, "%",
			  "of all branches");
		return true;
	}
	if (is_hw(r, PERF_COUNT_HW_CACHE_MISSES) &&
	    (other = find_hw(s, PERF_COUNT_HW_CACHE_REFERENCES))) {
		*m = make(other->value > 0 ? 100.0 * r->value / other->value : 0, 7, 2, "%",
			  "of all cache refs");
		return true;
	}
	if (is_hw(r, PERF_COUNT_HW_CPU_CYCLES)) {
		if ((other = find_clock(s)) && other->value > 0)
			*m = make(r->value / other->value, 8, 3, "", "GHz");
		return true;
	}
	return false;
}

struct metric metric_of(const struct row *r, const struct row *slot, int n, int stride,
			double elapsed_ns)
{
	struct metric m = { 0 };
	struct slot s = { slot, n, stride };
	const struct row *clock;
	if (r->state != ROW_COUNTED)
		return m;
	if (is_clock(&r->c->attr)) {
		if (elapsed_ns > 0)
			m = make(r->value / elapsed_ns, 8, 3, "", "CPUs utilized");
	} else if (!hw_metric(r, &s, &m) && (clock = find_clock(&s))) {
		m = rate(clock->value > 0 ? r->value * 1e9 / clock->value : 0);
	}
	return m;
}

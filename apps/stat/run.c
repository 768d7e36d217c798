/*
 * One run: fork the program, open the counters on it (or on the CPUs),
 * start it, wait for it, read. With -I the wait is cut into intervals,
 * each printing what was counted since the last. Per-CPU counters are
 * enabled just before the program starts and disabled once it exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "stat.h"

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

struct ticker {
	const struct config *cfg;
	struct counter *c;
	int n;
	const struct target *t;
	struct row *rows;
	uint64_t start, last;        /* the run's start, the last tick */
	int printed;                 /* intervals printed */
};

/* Print what was counted since the last tick. */
static void tick(struct ticker *k, uint64_t now)
{
	struct report r = {
		.how = k->cfg->how, .sep = k->cfg->sep, .runs = 1, .interval = true,
		.time_s = (double)(now - k->start) / 1e9, .per_cpu_rows = k->t->no_aggr,
		.elapsed_ns = (double)(now - k->last),
	};
	counters_read(k->c, k->n, k->t);
	rows_from_readings(k->rows, k->c, k->n, k->t, true);
	if (k->printed++ % 25 == 0)
		print_interval_header(&r);
	print_rows(&r, k->rows, k->n, target_slots(k->t));
	k->last = now;
}

static void wait_ticking(struct ticker *k, struct workload *w)
{
	uint64_t period = k->cfg->interval_ms * 1000000ULL, next = k->start + period;
	for (;;) {
		uint64_t now = now_ns();
		if (now >= next) {
			tick(k, now);
			next += period;
			if (next <= now)
				next = now + period;
			continue;
		}
		if (workload_wait(w, (int)((next - now + 999999) / 1000000)))
			return;
	}
}

int run_once(const struct config *cfg, struct counter *c, int n, const struct target *t,
	     struct stats *elapsed, struct workload *w)
{
	struct ticker k = { cfg, c, n, t, NULL, 0, 0, 0 };
	if (!workload_prepare(w, "stat", cfg->argv, false))
		return -1;
	if (!counters_open(c, n, t, w->pid, cfg->verbose)) {
		workload_abort(w);
		return -1;
	}
	if (t->per_cpu)
		counters_enable(c, n, t, true);
	k.start = k.last = now_ns();
	workload_start(w);
	if (cfg->interval_ms && (k.rows = malloc((size_t)(n * target_slots(t)) * sizeof *k.rows)))
		wait_ticking(&k, w);
	else
		workload_wait(w, -1);
	uint64_t end = now_ns();
	if (t->per_cpu)
		counters_enable(c, n, t, false);
	if (k.rows)
		tick(&k, end);
	else
		counters_read(c, n, t);
	rows_accumulate(c, n, t);
	stats_add(elapsed, (double)(end - k.start));
	counters_close(c, n, t);
	free(k.rows);
	return workload_exit_status(w);
}

/*
 * One run: fork the program, open the counters on it (or on the CPUs),
 * start it, wait for it, read. With -I the wait is cut into intervals,
 * each printing what was counted since the last. Per-CPU and per-thread
 * counters are enabled just before the program starts and disabled once
 * it exits. With -p or -t and no program, the run lasts until the last
 * target thread has gone, or until SIGINT (^C), as perf stat's.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "stat.h"

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Until the program exits, or without one the targets: true once over;
 * at most ms (< 0: no limit). */
static bool wait_end(struct workload *w, const struct target *t, bool prog, int ms)
{
	if (prog)
		return workload_wait(w, ms);
	for (;;) {
		if (interrupted || !threads_alive(t))
			return true;
		if (ms == 0)
			return false;
		int step = ms < 0 || ms > 50 ? 50 : ms;
		struct timespec ts = { 0, step * 1000000L };
		nanosleep(&ts, NULL);
		if (ms > 0)
			ms -= step;
	}
}

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
	bool prog;                   /* a program gives the run's length */
	struct row *rows;
	uint64_t start, last;        /* the run's start, the last tick */
	int printed;                 /* intervals printed */
};

/* Print what was counted since the last tick. */
static void tick(struct ticker *k, uint64_t now)
{
	struct report r = {
		.how = k->cfg->how, .sep = k->cfg->sep, .runs = 1, .interval = true,
		.time_s = (double)(now - k->start) / 1e9,
		.per_cpu_rows = k->t->no_aggr && !k->t->threads,
		.thread_rows = k->t->no_aggr && k->t->threads ? k->t : NULL,
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
		if (wait_end(w, k->t, k->prog, (int)((next - now + 999999) / 1000000)))
			return;
	}
}

int run_once(const struct config *cfg, struct counter *c, int n, const struct target *t,
	     struct stats *elapsed, struct workload *w)
{
	bool prog = cfg->argv[0] != NULL;
	struct ticker k = { cfg, c, n, t, prog, NULL, 0, 0, 0 };
	memset(w, 0, sizeof *w);
	if (prog && !workload_prepare(w, "stat", cfg->argv, false))
		return -1;
	if (!counters_open(c, n, t, w->pid, cfg->verbose)) {
		if (prog)
			workload_abort(w);
		return -1;
	}
	if (!prog)
		signal(SIGINT, on_sigint);
	if (t->per_cpu || t->threads)
		counters_enable(c, n, t, true);
	k.start = k.last = now_ns();
	if (prog)
		workload_start(w);
	if (cfg->interval_ms && (k.rows = malloc((size_t)(n * target_slots(t)) * sizeof *k.rows)))
		wait_ticking(&k, w);
	else
		wait_end(w, t, prog, -1);
	uint64_t end = now_ns();
	if (t->per_cpu || t->threads)
		counters_enable(c, n, t, false);
	if (k.rows)
		tick(&k, end);
	else
		counters_read(c, n, t);
	rows_accumulate(c, n, t);
	stats_add(elapsed, (double)(end - k.start));
	counters_close(c, n, t);
	free(k.rows);
	return prog ? workload_exit_status(w) : 0;
}

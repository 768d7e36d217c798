/*
 * stat [-e EVENT,...] [-r N] [-C CPUS | -a] [-A] [-I MS] [-x SEP | -j] [-v]
 *      [--] PROG [ARGS...]
 * stat [-e EVENT,...] (-p PIDS | -t TIDS | -a) [--per-thread] ... [[--] PROG]
 *
 * Runs PROG and counts events for it (and its children: inherit) from
 * its exec to its exit, like perf stat; with -a or -C, everything on
 * those CPUs while it runs. Without -e: task-clock, context-switches,
 * cpu-migrations, page-faults, cycles, instructions, branches,
 * branch-misses (those the machine cannot count print
 * "<not supported>"); on a hybrid machine the hardware ones count once
 * per core PMU, in rows such as cpu_core/cycles/ and cpu_atom/cycles/. Output goes to standard error, as perf's does.
 * Exit status: PROG's (of the last run); 2 for a usage error or an
 * unknown event, 1 when counting could not start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stat.h"

static const char default_events[] =
	"task-clock,context-switches,cpu-migrations,page-faults,"
	"cycles,instructions,branches,branch-misses";

static bool parse_list(const char *list, struct counter *c, int *n)
{
	static struct evspec e[MAX_EVENTS];
	char err[256];
	int first = *n;
	if (!evlist_parse(list, e, n, MAX_EVENTS, err, sizeof err)) {
		fprintf(stderr, "stat: %s\n", err);
		return false;
	}
	for (int i = first; i < *n; i++) {
		c[i].name = e[i].name;
		c[i].attr = e[i].attr;
		c[i].leader = e[i].leader;
	}
	return true;
}

static bool parse_events(struct config *cfg, struct counter *c, int *n)
{
	for (int i = 0; i < cfg->nevents; i++)
		if (!parse_list(cfg->events[i], c, n))
			return false;
	return *n > 0 || parse_list(default_events, c, n);
}

/* The program and its arguments, as perf quotes them. */
static const char *command(char **argv)
{
	static char cmd[256];
	strlcpy(cmd, "'", sizeof cmd);
	for (int k = 0; argv[k]; k++) {
		if (k)
			strlcat(cmd, " ", sizeof cmd);
		strlcat(cmd, argv[k], sizeof cmd);
	}
	strlcat(cmd, "'", sizeof cmd);
	return cmd;
}

static void summary(const struct config *cfg, struct counter *c, int n, const struct target *t,
		    const struct stats *elapsed, const struct workload *w)
{
	struct row *rows = malloc((size_t)(n * target_slots(t)) * sizeof *rows);
	struct report r = {
		.how = cfg->how, .sep = cfg->sep, .runs = cfg->repeat,
		.per_cpu_rows = t->no_aggr && !t->threads,
		.thread_rows = t->no_aggr && t->threads ? t : NULL,
		.elapsed_ns = stats_mean(elapsed),
	};
	if (!rows)
		return;
	rows_from_runs(rows, c, n, t);
	print_header(&r, t->per_cpu || t->threads ? t->label : command(cfg->argv));
	print_rows(&r, rows, n, target_slots(t));
	print_footer(&r, elapsed, w, !t->per_cpu && !t->threads);
	free(rows);
}

int main(int argc, char **argv)
{
	static struct config cfg;
	static struct counter c[MAX_EVENTS];
	static struct target t;
	struct stats elapsed = { 0, 0, 0 };
	struct workload w;
	int n = 0, status = 0;
	int bad = parse_options(argc, argv, &cfg);
	if (bad)
		return bad < 0 ? 0 : bad;
	if (!parse_events(&cfg, c, &n) || !hybrid_expand(c, &n) || !target_setup(&cfg, &t))
		return 2;
	if (cfg.how == OUT_TEXT) /* CSV and JSON readers get the counts alone */
		model_notes("stat", &c[0].attr, sizeof c[0], n, true);
	if (!counters_alloc(c, n, &t)) {
		fprintf(stderr, "stat: out of memory\n");
		return 1;
	}
	for (int run = 0; run < cfg.repeat; run++)
		if ((status = run_once(&cfg, c, n, &t, &elapsed, &w)) < 0)
			return 1;
	if (!cfg.interval_ms)
		summary(&cfg, c, n, &t, &elapsed, &w);
	return status;
}

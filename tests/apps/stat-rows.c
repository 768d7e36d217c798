/*
 * stat-rows: stat's rows and outputs (apps/stat: rows.c, metrics.c,
 * print.c) on readings given on the command line, for what no kernel
 * here produces: counts scaled by multiplexing, <not counted> beside
 * counted CPUs, metrics of hardware events, exact variances.
 *
 *   stat-rows [-A] [-x SEP | -j] [-I SECONDS] [-t ELAPSED_NS] EVENT=READINGS...
 *
 * READINGS: one "value/enabled/running" per CPU joined by '+', runs
 * joined by ';'; "-" for an event that did not open. Every event needs
 * the same number of CPUs and runs. Prints the rows as stat does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stat.h"

static struct counter c[MAX_EVENTS];
static struct target t;
static struct report r = { .how = OUT_TEXT, .sep = ",", .runs = 1 };

static int count_of(const char *s, char ch)
{
	int n = 1;
	for (; *s; s++)
		n += *s == ch;
	return n;
}

static struct reading reading_of(const char *s)
{
	struct reading v = { 0, 0, 0 };
	char *end;
	v.value = strtoull(s, &end, 10);
	v.enabled = strtoull(end + (*end == '/'), &end, 10);
	v.running = strtoull(end + (*end == '/'), &end, 10);
	return v;
}

/* The readings of run `run` into every counter's now[]. */
static void load_run(char **specs, int n, int run)
{
	for (int i = 0; i < n; i++) {
		const char *s = strchr(specs[i], '=') + 1;
		for (int k = 0; k < run; k++)
			s = strchr(s, ';') + 1;
		for (int k = 0; k < t.ncpus; k++) {
			c[i].now[k] = reading_of(s);
			s += strcspn(s, "+;");
			s += *s == '+';
		}
	}
}

/* One event name into c[i]. */
static bool parse_one(const char *name, int i)
{
	static struct evspec e[MAX_EVENTS];
	char err[256];
	int n = i;
	if (!evlist_parse(name, e, &n, MAX_EVENTS, err, sizeof err) || n != i + 1)
		return false;
	c[i].name = e[i].name;
	c[i].attr = e[i].attr;
	c[i].leader = e[i].leader;
	return true;
}

static int setup(char **specs, int n)
{
	for (int i = 0; i < n; i++) {
		char *eq = strchr(specs[i], '=');
		if (!eq)
			return -1;
		*eq = 0;
		if (!parse_one(specs[i], i))
			return -1;
		*eq = '=';
		c[i].supported = strcmp(eq + 1, "-") != 0;
	}
	const char *first = strchr(specs[0], '=') + 1;
	t.ncpus = count_of(strndup(first, strcspn(first, ";")), '+');
	for (int k = 0; k < t.ncpus; k++)
		t.cpu[k] = k;
	t.per_cpu = true;
	return counters_alloc(c, n, &t) ? count_of(first, ';') : -1;
}

static int options(int argc, char **argv)
{
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-A"))
			t.no_aggr = r.per_cpu_rows = true;
		else if (!strcmp(argv[i], "-j"))
			r.how = OUT_JSON;
		else if (!strcmp(argv[i], "-x") && i + 1 < argc)
			r.how = OUT_CSV, r.sep = argv[++i];
		else if (!strcmp(argv[i], "-I") && i + 1 < argc)
			r.interval = true, r.time_s = strtoull(argv[++i], NULL, 10) / 1e9;
		else if (!strcmp(argv[i], "-t") && i + 1 < argc)
			r.elapsed_ns = (double)strtoull(argv[++i], NULL, 10);
		else
			return -1;
	}
	return i;
}

int main(int argc, char **argv)
{
	int first = options(argc, argv), n = argc - first;
	int runs = first > 0 && n > 0 ? setup(argv + first, n) : -1;
	if (runs < 0) {
		fprintf(stderr, "usage: stat-rows [-A] [-x SEP | -j] [-I NS] [-t NS] EVENT=READINGS...\n");
		return 2;
	}
	for (int run = 0; run < runs; run++) {
		load_run(argv + first, n, run);
		rows_accumulate(c, n, &t);
	}
	struct row *rows = calloc((size_t)(n * target_slots(&t)), sizeof *rows);
	rows_from_runs(rows, c, n, &t);
	r.runs = runs;
	print_rows(&r, rows, n, target_slots(&t));
	return 0;
}

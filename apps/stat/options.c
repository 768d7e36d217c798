/*
 * The command line, as perf stat spells its options:
 *   -e, --event EVENT,...       events (repeatable)
 *   -x, --field-separator SEP   CSV output
 *   -j, --json-output           JSON lines
 *   -r, --repeat N              run N times: means and variance
 *   -I, --interval-print MS     counts every MS milliseconds
 *   -a, --all-cpus              count on every online CPU
 *   -C, --cpu LIST              count on the listed CPUs
 *   -A, --no-aggr               a row per CPU (with -a or -C)
 *   -p, --pid PID,...           count these processes' threads (PROG optional:
 *                               it then only says how long)
 *   -t, --tid TID,...           count these threads
 *       --per-thread            a row per thread (with -p, -t or -a)
 *   -v, --verbose               show each perf_event_attr opened
 * An option's argument follows it (-r 3), is attached (-r3, -x,) or
 * after '=' (--repeat=3). Options end at "--" or at the program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stat.h"

enum { PER_THREAD = 1 };   /* options without a letter */

static const struct ptopt opts[] = {
	{ 'e', "event", true },   { 'x', "field-separator", true }, { 'j', "json-output", false },
	{ 'r', "repeat", true },  { 'I', "interval-print", true },  { 'a', "all-cpus", false },
	{ 'C', "cpu", true },     { 'A', "no-aggr", false },        { 'v', "verbose", false },
	{ 'p', "pid", true },     { 't', "tid", true },             { PER_THREAD, "per-thread", false },
	{ 'h', "help", false },
};

#define NOPTS ((int)(sizeof(opts) / sizeof(opts[0])))

static const char usage_text[] =
	"usage: stat [-e EVENT,...] [-r N] [-C CPUS | -a] [-A] [-I MS] [-x SEP | -j] [-v]\n"
	"            [--] PROG [ARGS...]\n"
	"       stat [-e EVENT,...] (-p PIDS | -t TIDS | -a) [--per-thread] [-I MS] [-x SEP | -j]\n"
	"            [-v] [[--] PROG [ARGS...]]\n";

static int usage(void)
{
	fputs(usage_text, stderr);
	return 2;
}

static bool number(const char *s, long lo, long hi, long *out)
{
	char *end;
	*out = strtol(s, &end, 10);
	return end != s && !*end && *out >= lo && *out <= hi;
}

static int apply(struct config *cfg, char letter, const char *val)
{
	long v;
	switch (letter) {
	case 'e':
		if (cfg->nevents == MAX_EVENTS)
			return usage();
		cfg->events[cfg->nevents++] = (char *)val;
		return 0;
	case 'x': cfg->how = OUT_CSV; cfg->sep = val; return 0;
	case 'j': cfg->how = OUT_JSON; return 0;
	case 'a': cfg->all_cpus = true; return 0;
	case 'C': cfg->cpu_list = val; return 0;
	case 'A': cfg->no_aggr = true; return 0;
	case 'v': cfg->verbose = true; return 0;
	case 'p': cfg->pids = val; return 0;
	case 't': cfg->tids = val; return 0;
	case PER_THREAD: cfg->per_thread = true; return 0;
	case 'h': fputs(usage_text, stdout); return -1;
	case 'r':
		if (!number(val, 1, 100000, &v)) {
			fprintf(stderr, "stat: -r needs a count of runs >= 1\n");
			return 2;
		}
		cfg->repeat = (int)v;
		return 0;
	default: /* 'I' */
		if (!number(val, 10, 86400000, &v)) {
			fprintf(stderr, "stat: -I needs an interval of at least 10 ms\n");
			return 2;
		}
		cfg->interval_ms = (unsigned)v;
		return 0;
	}
}

static int check(const struct config *cfg)
{
	const char *why = NULL;
	bool existing = cfg->pids || cfg->tids;
	if (!cfg->argv[0] && !existing)
		return usage();
	if (cfg->per_thread && !existing && !cfg->all_cpus)
		why = "The --per-thread option is only available when monitoring via -p -t -a "
		      "options or only --per-thread.";
	else if (existing && (cfg->all_cpus || cfg->cpu_list))
		why = "-p/-t and -a/-C exclude each other";
	else if (cfg->pids && cfg->tids)
		why = "-p and -t exclude each other";
	else if (cfg->per_thread && cfg->cpu_list)
		why = "--per-thread and -C exclude each other";
	else if (existing && cfg->repeat > 1)
		why = "-r repeats a program's run: not with -p or -t";
	else if (cfg->interval_ms && cfg->repeat > 1)
		why = "-I and -r cannot be used together";
	else if (cfg->no_aggr && (!(cfg->all_cpus || cfg->cpu_list) || cfg->per_thread))
		why = "-A needs -a or -C";
	else if (cfg->how == OUT_CSV && !*cfg->sep)
		why = "-x needs a separator";
	if (why)
		fprintf(stderr, "stat: %s\n", why);
	return why ? 2 : 0;
}

/* 0, -1 for --help (exit 0), or the exit status of a usage error. */
int parse_options(int argc, char **argv, struct config *cfg)
{
	int i = 1;
	memset(cfg, 0, sizeof *cfg);
	cfg->sep = ",";
	cfg->repeat = 1;
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *val;
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		const struct ptopt *o = opt_next(opts, NOPTS, "stat", argc, argv, &i, &val);
		if (!o)
			return usage();
		int r = apply(cfg, o->letter, val);
		if (r)
			return r;
	}
	cfg->argv = argv + i;
	return check(cfg);
}

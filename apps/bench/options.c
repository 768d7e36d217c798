/*
 * options.c: nanoBench's command line. Options take one dash; a unique
 * prefix is enough (-l for -loop_count), as nanoBench allows; an exact
 * name wins over longer ones (-min vs. -median is then unambiguous).
 * --csv and --json are baremon's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

enum kind { FLAG, COUNT, PATH, AGG, INT, HELP };

struct option {
	const char *name;
	enum kind kind;
	size_t off;           /* into struct bench_opts */
	int agg;              /* for AGG */
};

#define O(f) offsetof(struct bench_opts, f)
static const struct option table[] = {
	{ "code", PATH, O(code), 0 },
	{ "code_init", PATH, O(code_init), 0 },
	{ "code_late_init", PATH, O(code_late_init), 0 },
	{ "code_one_time_init", PATH, O(code_one_time_init), 0 },
	{ "config", PATH, O(config), 0 },
	{ "msr_config", PATH, O(msr_config), 0 },
	{ "fixed_counters", FLAG, O(fixed_counters), 0 },
	{ "n_measurements", COUNT, O(n_measurements), 0 },
	{ "unroll_count", COUNT, O(unroll_count), 0 },
	{ "loop_count", COUNT, O(loop_count), 0 },
	{ "warm_up_count", COUNT, O(warm_up_count), 0 },
	{ "initial_warm_up_count", COUNT, O(initial_warm_up_count), 0 },
	{ "alignment_offset", COUNT, O(alignment_offset), 0 },
	{ "avg", AGG, O(agg), AGG_AVG },
	{ "median", AGG, O(agg), AGG_MEDIAN },
	{ "min", AGG, O(agg), AGG_MIN },
	{ "max", AGG, O(agg), AGG_MAX },
	{ "range", FLAG, O(range), 0 },
	{ "basic_mode", FLAG, O(basic_mode), 0 },
	{ "no_mem", FLAG, O(no_mem), 0 },
	{ "no_normalization", FLAG, O(no_normalization), 0 },
	{ "df", FLAG, O(df), 0 },
	{ "remove_empty_events", FLAG, O(remove_empty_events), 0 },
	{ "cpu", INT, O(cpu), 0 },
	{ "verbose", FLAG, O(verbose), 0 },
	{ "usr", INT, O(usr), 0 },
	{ "os", INT, O(os), 0 },
	{ "kernel", FLAG, O(kernel), 0 },
	{ "-csv", FLAG, O(csv), 0 },
	{ "-json", FLAG, O(json), 0 },
	{ "h", HELP, 0, 0 },
	{ "help", HELP, 0, 0 },
	{ "-help", HELP, 0, 0 },
};
#define NOPTS (sizeof table / sizeof table[0])

static void usage_to(FILE *to)
{
	fprintf(to,
		"usage: bench -code FILE [-code_init FILE] [-code_late_init FILE]\n"
		"             [-code_one_time_init FILE] [-config FILE] [-fixed_counters]\n"
		"             [-n_measurements N] [-unroll_count N] [-loop_count N]\n"
		"             [-warm_up_count N] [-initial_warm_up_count N] [-alignment_offset N]\n"
		"             [-avg|-median|-min|-max] [-range] [-basic_mode] [-no_mem]\n"
		"             [-no_normalization] [-df] [-remove_empty_events] [-cpu N]\n"
		"             [-verbose] [-usr 0|1] [-os 0|1] [-kernel] [--csv|--json]\n"
		"             [-h]\n"
		"-asm TEXT (and -asm_init ...): baremon bench assembles it with NASM on the\n"
		"host and passes it as -code (docs/bench.md)\n");
}

static void usage(void)
{
	usage_to(stderr);
	exit(2);
}

static const struct option *find(const char *arg)
{
	const struct option *hit = NULL;
	size_t len = strlen(arg);
	for (size_t i = 0; i < NOPTS; i++) {
		if (strncmp(table[i].name, arg, len))
			continue;
		if (!table[i].name[len])
			return &table[i];
		if (hit) {
			fprintf(stderr, "bench: -%s is ambiguous (-%s, -%s)\n", arg,
				hit->name, table[i].name);
			exit(2);
		}
		hit = &table[i];
	}
	return hit;
}

static uint64_t number(const char *opt, const char *v)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 0);
	if (!*v || *end || errno || v[0] == '-') {
		fprintf(stderr, "bench: -%s needs a number, not '%s'\n", opt, v);
		exit(2);
	}
	return n;
}

static void defaults(struct bench_opts *o)
{
	memset(o, 0, sizeof *o);
	o->n_measurements = 10;
	o->unroll_count = 1000;
	o->warm_up_count = 5;
	o->agg = AGG_AVG;
	o->cpu = -1;
	o->usr = -1;
	o->os = -1;
}

static void check(struct bench_opts *o)
{
	if (!o->code) {
		fprintf(stderr, "bench: no -code FILE given\n");
		usage();
	}
	if (!o->n_measurements || !o->unroll_count) {
		fprintf(stderr, "bench: -n_measurements and -unroll_count must be at least 1\n");
		exit(2);
	}
	if (o->csv && o->json) {
		fprintf(stderr, "bench: --csv and --json exclude each other\n");
		exit(2);
	}
	if (o->usr < 0)
		o->usr = 1;
	if (o->os < 0)
		o->os = o->kernel;
	if (o->usr > 1 || o->os > 1) {
		fprintf(stderr, "bench: -usr and -os take 0 or 1\n");
		exit(2);
	}
}

void options_parse(int argc, char **argv, struct bench_opts *o)
{
	defaults(o);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-' || !a[1])
			usage();
		if (!strncmp(a, "-asm", 4)) {
			fprintf(stderr, "bench: %s: this program takes machine code (-code*);\n"
				"  baremon bench assembles -asm strings with NASM\n", a);
			exit(2);
		}
		const struct option *opt = find(a + 1);
		if (!opt) {
			fprintf(stderr, "bench: unknown option %s\n", a);
			usage();
		}
		if (opt->kind == HELP) {
			usage_to(stdout);
			exit(0);
		}
		char *field = (char *)o + opt->off;
		if (opt->kind == FLAG) {
			*(bool *)field = true;
			continue;
		}
		if (opt->kind == AGG) {
			*(enum bench_agg *)field = (enum bench_agg)opt->agg;
			continue;
		}
		if (++i >= argc) {
			fprintf(stderr, "bench: -%s needs a value\n", opt->name);
			exit(2);
		}
		if (opt->kind == PATH)
			*(const char **)field = argv[i];
		else if (opt->kind == COUNT)
			*(uint64_t *)field = number(opt->name, argv[i]);
		else
			*(int *)field = (int)number(opt->name, argv[i]);
	}
	check(o);
}

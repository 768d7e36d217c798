/*
 * run.c: nanoBench's run(): warm-ups, measurements, and the difference
 * between two generated functions (n and 2n copies, or none and n with
 * -basic_mode) divided by the copies executed (docs/bench.md).
 *
 * State is process-wide: one bench_ctx, its register areas, and the code
 * of the two variants (variant.c), generated again for each counter set.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "bench.h"
#include "report.h"

#define AREA_SIZE (1u << 20)
#define MAX_COUNTERS BENCH_SLOTS
#define MAX_ROWS (BENCH_MAX_EVENTS + 8)

static struct bench_ctx ctx;
static struct variant variants[2], one_time;
static const struct bench_code *code;
static const struct bench_opts *opts;

static struct bench_row rows[MAX_ROWS];
static char row_names[MAX_ROWS][64];
static size_t nrows;

static void areas(void)
{
	uint8_t *a = mmap(NULL, 5 * AREA_SIZE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED) {
		perror("bench: mmap");
		exit(1);
	}
	memset(a, 0, 5 * AREA_SIZE); /* present: kernel mode takes no page faults */
	uint64_t mid = AREA_SIZE / 2;
	ctx.init_r14 = (uint64_t)(uintptr_t)a + mid;
	ctx.init_rdi = (uint64_t)(uintptr_t)a + AREA_SIZE + mid;
	ctx.init_rsi = (uint64_t)(uintptr_t)a + 2 * AREA_SIZE + mid;
	ctx.init_rbp = (uint64_t)(uintptr_t)a + 3 * AREA_SIZE + mid;
	ctx.init_rsp = (uint64_t)(uintptr_t)a + 4 * AREA_SIZE + mid;
}

/* -no_mem's RDPMC counters for the set now open (codegen.h). */
static unsigned no_mem_pmcs;
static uint32_t no_mem_index[3];

/* Generate one variant: the measured code, or the one-time init. */
static void build(struct variant *v, uint64_t copies, bool measure)
{
	struct codegen_in in = {
		.code = code->code, .init = measure ? code->init : code->one_time,
		.late_init = measure ? code->late_init : (struct snippet){ 0 },
		.ctx_addr = (uint64_t)(uintptr_t)&ctx, .copies = measure ? copies : 0,
		.loop_count = measure ? opts->loop_count : 0,
		.alignment_offset = (unsigned)opts->alignment_offset,
		.drain_frontend = measure && opts->df, .measure = measure,
		.no_mem = opts->no_mem, .n_pmc = no_mem_pmcs,
	};
	memcpy(in.pmc_index, no_mem_index, sizeof in.pmc_index);
	variant_build(v, &in, measure ? "-code_init" : "-code_one_time_init");
}

static void call(const struct variant *v)
{
	variant_call(v, &ctx, opts->kernel);
}

/*
 * -no_mem reads inline: RDTSC into R8 and at most three counters by
 * RDPMC into R9-R11 (kernel mode: RDTSC only). Returns the counters to
 * report, or -1 after saying why the set cannot be read so.
 */
static int no_mem_plan(int nc)
{
	no_mem_pmcs = 0;
	if (!opts->no_mem)
		return nc;
	if (opts->kernel)
		return 1;
	int n = counters_pmc_indexes(no_mem_index, 3);
	if (n < 0) {
		fprintf(stderr, "bench: -no_mem reads at most 3 counters, with rdpmc; "
			"here they are read with %s\n", counters_method());
		return -1;
	}
	no_mem_pmcs = (unsigned)n;
	return nc;
}

/* One run(): warm-ups, then n_measurements deltas per counter into raw. */
static void measure(const struct variant *v, const struct bench_counter *c, int nc,
		    int64_t *raw[MAX_COUNTERS])
{
	for (uint64_t i = 0; i < opts->warm_up_count; i++)
		call(v);
	for (uint64_t m = 0; m < opts->n_measurements; m++) {
		call(v);
		for (int k = 0; k < nc; k++) {
			int s = c[k].slot;
			raw[k][m] = (int64_t)(ctx.reading[1][s] - ctx.reading[0][s]);
		}
		if (opts->verbose) {
			printf("run %llu, measurement %llu:",
			       (unsigned long long)(v == &variants[0] ? 0 : 1), (unsigned long long)m);
			for (int k = 0; k < nc; k++)
				printf(" %s=%lld", c[k].name, (long long)raw[k][m]);
			printf("\n");
		}
	}
}

static double aggregate(const int64_t *raw, enum bench_agg agg)
{
	int64_t tmp[opts->n_measurements];
	memcpy(tmp, raw, sizeof tmp);
	return stats_aggregate(tmp, opts->n_measurements, agg);
}

static bool all_zero(const int64_t *a, const int64_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] || b[i])
			return false;
	return true;
}

/* Rows for counters c[first..nc) after both runs of one counter set. */
static void add_rows(const struct bench_counter *c, int first, int nc,
		     int64_t *raw[2][MAX_COUNTERS], uint64_t copies[2])
{
	uint64_t unroll = opts->unroll_count;
	double norm = opts->no_normalization ? 1.0 :
		      (double)(opts->loop_count > 1 ? opts->loop_count * unroll : unroll);
	for (int k = first; k < nc && nrows < MAX_ROWS; k++) {
		size_t n = opts->n_measurements;
		if (opts->remove_empty_events && all_zero(raw[0][k], raw[1][k], n))
			continue;
		struct bench_row *r = &rows[nrows];
		snprintf(row_names[nrows], sizeof row_names[0], "%s", c[k].name);
		r->name = row_names[nrows];
		r->value = (aggregate(raw[1][k], opts->agg) - aggregate(raw[0][k], opts->agg)) / norm;
		/* The range of the difference itself: from the longer run's
		 * least less the shorter's most to the other way round, so it
		 * holds the value whatever the aggregate. */
		r->min = (aggregate(raw[1][k], AGG_MIN) - aggregate(raw[0][k], AGG_MAX)) / norm;
		r->max = (aggregate(raw[1][k], AGG_MAX) - aggregate(raw[0][k], AGG_MIN)) / norm;
		for (int run = 0; run < 2; run++) {
			int64_t *keep = malloc(n * sizeof *keep);
			if (!keep) {
				fprintf(stderr, "bench: out of memory\n");
				exit(1);
			}
			memcpy(keep, raw[run][k], n * sizeof *keep);
			r->raw[run] = keep;
			r->copies[run] = copies[run];
		}
		r->nraw = n;
		nrows++;
	}
}

/* Both runs with the counters now open; rows from counter `first` on. */
static void run_set(const struct bench_counter *c, int nc, int first)
{
	int64_t *raw[2][MAX_COUNTERS];
	for (int run = 0; run < 2; run++)
		for (int k = 0; k < nc; k++)
			raw[run][k] = calloc(opts->n_measurements, sizeof(int64_t));
	uint64_t copies[2] = { opts->basic_mode ? 0 : opts->unroll_count,
			       (opts->basic_mode ? 1 : 2) * opts->unroll_count };
	for (int run = 0; run < 2; run++)
		measure(&variants[run], c, nc, raw[run]);
	add_rows(c, first, nc, raw, copies);
	for (int run = 0; run < 2; run++)
		for (int k = 0; k < nc; k++)
			free(raw[run][k]);
}

static int fixed_part(const struct bench_counter *c, int nc)
{
	int n = 0;
	while (n < nc && (!strcmp(c[n].name, "RDTSC") || !strcmp(c[n].name, "Instructions retired") ||
			  !strcmp(c[n].name, "Core cycles") || !strcmp(c[n].name, "Reference cycles") ||
			  !strcmp(c[n].name, "APERF") || !strcmp(c[n].name, "MPERF")))
		n++;
	return n;
}

static void sink_stdout(void *unused, const char *s, size_t n)
{
	fwrite(s, 1, n, stdout);
}

static void print_report(void)
{
	if (opts->csv) {
		report_csv(sink_stdout, NULL, rows, nrows);
	} else if (opts->json) {
		struct report_info info = {
			.mode = opts->kernel ? "kernel" : "user",
			.aggregate = stats_agg_name(opts->agg),
			.unroll_count = opts->unroll_count, .loop_count = opts->loop_count,
			.basic_mode = opts->basic_mode, .normalized = !opts->no_normalization,
		};
		report_json(sink_stdout, NULL, &info, rows, nrows);
	} else {
		report_text(sink_stdout, NULL, rows, nrows, opts->range);
	}
}

/* Open the counter set that starts at event `done`; how many events it
 * takes in *take; the counters to read, or -1. */
static int open_set(const struct bench_opts *o, const struct bench_events *w, int set,
		    int done, int *take, struct bench_counter *counters)
{
	int left = w->nev - done;
	if (!o->kernel) {
		int per_set = counters_per_set();
		*take = left < per_set ? left : per_set;
		return counters_open(o, w->ev + done, *take, counters, MAX_COUNTERS);
	}
	/* -msr_config lines are read in the first set only; they take slots. */
	static int ctr[BENCH_MAX_EVENTS];
	int nmc = set == 0 ? w->nmc : 0;
	int room = KBENCH_MAX_MSR_READS - nmc, per_set = counters_per_set();
	*take = config_kernel_set(w->ev + done, left, per_set < room ? per_set : room, ctr);
	struct kbench_set ks = { w->ev + done, ctr, *take, w->mc, nmc };
	return kmode_open(o, &ks, counters, MAX_COUNTERS);
}

int run_all(const struct bench_opts *o, const struct bench_code *c,
	    const struct bench_events *w)
{
	opts = o;
	code = c;
	areas();
	ctx.reader = counters_read;
	variant_catch_faults();
	build(&one_time, 0, false);
	struct bench_counter counters[MAX_COUNTERS];
	int done = 0, set = 0;
	do {
		int take;
		int nc = open_set(o, w, set, done, &take, counters);
		if (nc >= 0)
			nc = no_mem_plan(nc);
		if (nc < 0)
			return 1;
		if (o->verbose)
			printf("counter set %d: %d counters, read with %s\n", set, nc,
			       o->no_mem ? "inline rdtsc/rdpmc (-no_mem)" :
			       o->kernel ? "the kernel's reader" : counters_method());
		/* The code of this set (-no_mem compiles its counters in). */
		build(&variants[0], o->basic_mode ? 0 : o->unroll_count, true);
		build(&variants[1], (o->basic_mode ? 1 : 2) * o->unroll_count, true);
		if (set == 0) {
			call(&one_time);
			for (uint64_t i = 0; i < o->initial_warm_up_count; i++)
				call(&variants[0]);
		}
		run_set(counters, nc, set ? fixed_part(counters, nc) : 0);
		o->kernel ? kmode_close() : counters_close();
		done += take;
		set++;
	} while (done < w->nev);
	print_report();
	return 0;
}

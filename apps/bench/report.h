/*
 * report.h: the results as nanoBench prints them, and as CSV and JSON
 * with every measurement. Output goes to a libc-lite fmt_sink, so the
 * same code writes to stdout or, in the unit tests, to a buffer.
 */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One reported event: its value per copy and the raw deltas it came from. */
struct bench_row {
	const char *name;
	double value, min, max;     /* after subtraction and normalization */
	const int64_t *raw[2];      /* each measurement of the two runs */
	uint64_t copies[2];         /* code copies of each run (0: empty) */
	size_t nraw;                /* measurements per run */
};

struct report_info {
	const char *mode;           /* "user" or "kernel" */
	const char *aggregate;      /* stats_agg_name() */
	uint64_t unroll_count, loop_count;
	bool basic_mode, normalized;
};

/* "NAME: 1.00", or "NAME: 1.00 [0.99;1.01]" with range. */
void report_text(fmt_sink out, void *ctx, const struct bench_row *rows,
		 size_t n, bool range);
/* Header "event,value,min,max,copies,measurement,raw", one line per
 * measurement of each run. */
void report_csv(fmt_sink out, void *ctx, const struct bench_row *rows, size_t n);
/* One JSON object: the settings and, per event, value/min/max and both
 * runs' measurements. */
void report_json(fmt_sink out, void *ctx, const struct report_info *info,
		 const struct bench_row *rows, size_t n);

/* v as "%.2f" would print it (rounded half away from zero, no "-0.00"). */
const char *report_fixed2(char *buf, size_t len, double v);

#endif

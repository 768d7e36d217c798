/*
 * perf stat's three outputs, a line per counter (per counter and CPU
 * with -A), on standard error:
 *   text  "%18s %-4s %-32s # metric" with the metric padded to column
 *         91, then "  ( +- x.xx% )" with -r and "  (xx.xx%)" when the
 *         counter ran part of the time it was enabled (scaled)
 *   -x    value, unit, event, [variance%,] run time, % running, metric
 *         value, metric unit
 *   -j    one object: counter-value, unit, event, [variance,]
 *         event-runtime, pcnt-running, metric-value, metric-unit
 * -I puts the timestamp first ("interval" in JSON), -A the CPU. Trailing
 * blanks perf pads with are left out.
 */
#include <stdio.h>
#include "stat.h"

#define METRIC_END 91       /* text: where the metric column ends */
#define NOT_COUNTED_END 84  /* the same for <not counted> rows */

/* The count: clocks in msec with 2 decimals, others whole; JSON has 6
 * decimals for both. */
static const char *value_text(const struct row *w, char *buf, size_t n, bool json)
{
	bool clock = is_clock(&w->c->attr);
	if (w->state == ROW_NOT_SUPPORTED)
		return "<not supported>";
	if (w->state == ROW_NOT_COUNTED)
		return "<not counted>";
	return fmt_fixed(buf, n, clock ? w->value / 1e6 : w->value, json ? 6 : clock ? 2 : 0);
}

static const char *unit_of(const struct row *w)
{
	return is_clock(&w->c->attr) ? "msec" : "";
}

static double pct_running(const struct row *w)
{
	return w->enabled > 0 && w->running != w->enabled ? 100.0 * w->running / w->enabled : 100.0;
}

static void text_metric(struct line *l, const struct metric *m)
{
	char v[40];
	line_add(l, " # %*s%s %s", m->width, fmt_fixed(v, sizeof v, m->value, m->decimals),
		 m->suffix, m->unit);
}

static void text_row(const struct report *r, const struct row *w, const struct metric *m,
		     struct line *l)
{
	char v[48], p[16];
	size_t base = l->len;
	line_add(l, "%18s %-4s %-32s", value_text(w, v, sizeof v, false), unit_of(w), w->c->name);
	if (m->present)
		text_metric(l, m);
	line_pad(l, base + (w->state == ROW_COUNTED ? METRIC_END : NOT_COUNTED_END));
	double noise = w->noise;
	if (r->runs > 1 && w->state == ROW_COUNTED && noise != 0)
		line_add(l, "  ( +-%6s%% )", fmt_fixed(p, sizeof p, noise, 2));
	if (w->state != ROW_NOT_SUPPORTED && w->running != w->enabled)
		line_add(l, "  (%s%%)", fmt_fixed(p, sizeof p, pct_running(w), 2));
}

static void csv_row(const struct report *r, const struct row *w, const struct metric *m,
		    struct line *l)
{
	char v[48], p[16], mv[40];
	const char *s = r->sep;
	line_add(l, "%s%s%s%s", value_text(w, v, sizeof v, false), s, unit_of(w), s);
	line_add(l, "%s", w->c->name);
	if (r->runs > 1)
		line_add(l, "%s%s%%", s, fmt_fixed(p, sizeof p, w->noise, 2));
	line_add(l, "%s%s", s, fmt_fixed(v, sizeof v, w->running, 0));
	line_add(l, "%s%s%s", s, fmt_fixed(p, sizeof p, pct_running(w), 2), s);
	if (m->present)
		line_add(l, "%s%s%s", fmt_fixed(mv, sizeof mv, m->value, m->decimals), s, m->unit);
	else
		line_add(l, "%s", s);
}

static void json_row(const struct report *r, const struct row *w, const struct metric *m,
		     struct line *l)
{
	char v[48], p[16], mv[40];
	line_add(l, "\"counter-value\" : \"%s\", \"unit\" : \"%s\", \"event\" : ",
		 value_text(w, v, sizeof v, true), unit_of(w));
	line_json_string(l, w->c->name);
	if (r->runs > 1)
		line_add(l, ", \"variance\" : %s", fmt_fixed(p, sizeof p, w->noise, 2));
	line_add(l, ", \"event-runtime\" : %s", fmt_fixed(v, sizeof v, w->running, 0));
	line_add(l, ", \"pcnt-running\" : %s", fmt_fixed(p, sizeof p, pct_running(w), 2));
	line_add(l, ", \"metric-value\" : %s, \"metric-unit\" : \"%s\"}",
		 fmt_fixed(mv, sizeof mv, m->present ? m->value : 0, 6), m->present ? m->unit : "");
}

/* The timestamp and CPU columns that start a row. */
static void prefix(const struct report *r, const struct row *w, struct line *l)
{
	char t[32];
	if (r->how == OUT_JSON) {
		line_add(l, "{");
		if (r->interval)
			line_add(l, "\"interval\" : %s, ", fmt_fixed(t, sizeof t, r->time_s, 9));
		if (r->per_cpu_rows)
			line_add(l, "\"cpu\" : \"%d\", ", w->cpu);
		if (r->thread_rows)
			line_add(l, "\"thread\" : \"%s-%d\", ", r->thread_rows->comm[w->slot],
				 (int)r->thread_rows->tid[w->slot]);
		return;
	}
	const char *s = r->how == OUT_CSV ? r->sep : " ";
	if (r->interval)
		line_add(l, "%16s%s", fmt_fixed(t, sizeof t, r->time_s, 9), s);
	if (r->per_cpu_rows && r->how == OUT_CSV)
		line_add(l, "CPU%d%s", w->cpu, s);
	else if (r->per_cpu_rows)
		line_add(l, "CPU%-7d ", w->cpu);
	else if (r->thread_rows && r->how == OUT_CSV)
		line_add(l, "%s-%d%s", r->thread_rows->comm[w->slot], (int)r->thread_rows->tid[w->slot],
			 s);
	else if (r->thread_rows)   /* perf's "%*s-%*d": 16 and -8 */
		line_add(l, "%16s-%-8d", r->thread_rows->comm[w->slot],
			 (int)r->thread_rows->tid[w->slot]);
}

void print_rows(const struct report *r, const struct row *rows, int ncounters, int nslots)
{
	struct line l = { .len = 0 };
	for (int i = 0; i < ncounters; i++) {
		for (int s = 0; s < nslots; s++) {
			const struct row *w = &rows[i * nslots + s];
			struct metric m = metric_of(w, &rows[s], ncounters, nslots, r->elapsed_ns);
			prefix(r, w, &l);
			if (r->how == OUT_CSV)
				csv_row(r, w, &m, &l);
			else if (r->how == OUT_JSON)
				json_row(r, w, &m, &l);
			else
				text_row(r, w, &m, &l);
			line_end(&l);
		}
	}
}

void print_header(const struct report *r, const char *what)
{
	if (r->how != OUT_TEXT)
		return;
	if (r->runs > 1)
		fprintf(stderr, "\n Performance counter stats for %s (%d runs):\n\n", what, r->runs);
	else
		fprintf(stderr, "\n Performance counter stats for %s:\n\n", what);
}

void print_interval_header(const struct report *r)
{
	if (r->how != OUT_TEXT)
		return;
	if (r->per_cpu_rows)
		fputs("#           time CPU                    counts unit events\n", stderr);
	else if (r->thread_rows)
		fputs("#           time             comm-pid                  counts unit events\n",
		      stderr);
	else
		fputs("#           time             counts unit events\n", stderr);
}

/* perf's precision for "avg +- stddev": two digits past the first
 * significant digit of stddev. */
static int precision(double sd)
{
	int k = 0;
	if (!(sd > 0))
		return 9;
	while (sd < 1.0 && k < 7) /* fmt_fixed: at most 9 decimals */ {
		sd *= 10;
		k++;
	}
	return k + 2;
}

static void footer_runs(const struct stats *elapsed)
{
	char a[40], d[40], p[16];
	double avg = stats_mean(elapsed) / 1e9, sd = stats_stddev_mean(elapsed) / 1e9;
	int prec = precision(sd);
	struct line l = { .len = 0 };
	line_add(&l, " %17s +- %s seconds time elapsed", fmt_fixed(a, sizeof a, avg, prec),
		 fmt_fixed(d, sizeof d, sd, prec));
	if (rel_pct(sd, avg) != 0)
		line_add(&l, "  ( +-%6s%% )", fmt_fixed(p, sizeof p, rel_pct(sd, avg), 2));
	line_end(&l);
}

void print_footer(const struct report *r, const struct stats *elapsed,
		  const struct workload *w, bool show_times)
{
	char a[40], b[40];
	if (r->how != OUT_TEXT)
		return;
	fputs("\n", stderr);
	if (r->runs > 1) {
		footer_runs(elapsed);
		fputs("\n", stderr);
		return;
	}
	fprintf(stderr, "%18s seconds time elapsed\n\n",
		fmt_fixed(a, sizeof a, stats_mean(elapsed) / 1e9, 9));
	if (show_times)
		fprintf(stderr, "%18s seconds user\n%18s seconds sys\n\n\n",
			fmt_fixed(a, sizeof a, (double)w->utime_ns / 1e9, 9),
			fmt_fixed(b, sizeof b, (double)w->stime_ns / 1e9, 9));
}

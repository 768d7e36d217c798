/*
 * report.c: text, CSV and JSON output of report.h. libc-lite's printf
 * has no floating point, so values go through report_fixed2.
 */
#include <stdarg.h>
#include <string.h>
#include "report.h"

static void say(fmt_sink out, void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(fmt_sink out, void *ctx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vformat(out, ctx, fmt, ap);
	va_end(ap);
}

const char *report_fixed2(char *buf, size_t len, double v)
{
	int neg = v < 0;
	double a = neg ? -v : v;
	unsigned long long h = (unsigned long long)(a * 100 + 0.5);
	snprintf(buf, len, "%s%llu.%02llu", neg && h ? "-" : "", h / 100, h % 100);
	return buf;
}

void report_text(fmt_sink out, void *ctx, const struct bench_row *rows,
		 size_t n, bool range)
{
	char v[48], lo[48], hi[48];
	for (size_t i = 0; i < n; i++) {
		const struct bench_row *r = &rows[i];
		say(out, ctx, "%s: %s", r->name, report_fixed2(v, sizeof v, r->value));
		if (range)
			say(out, ctx, " [%s;%s]", report_fixed2(lo, sizeof lo, r->min),
			    report_fixed2(hi, sizeof hi, r->max));
		say(out, ctx, "\n");
	}
}

/* A CSV field: quoted when it holds a comma, quote or line break. */
static void csv_name(fmt_sink out, void *ctx, const char *s)
{
	bool plain = true;
	for (const char *p = s; *p; p++)
		if (strchr(",\"\r\n", *p))
			plain = false;
	if (plain) {
		say(out, ctx, "%s", s);
		return;
	}
	say(out, ctx, "\"");
	for (; *s; s++)
		say(out, ctx, *s == '"' ? "\"\"" : "%c", *s);
	say(out, ctx, "\"");
}

void report_csv(fmt_sink out, void *ctx, const struct bench_row *rows, size_t n)
{
	char v[48], lo[48], hi[48];
	say(out, ctx, "event,value,min,max,copies,measurement,raw\n");
	for (size_t i = 0; i < n; i++) {
		const struct bench_row *r = &rows[i];
		report_fixed2(v, sizeof v, r->value);
		report_fixed2(lo, sizeof lo, r->min);
		report_fixed2(hi, sizeof hi, r->max);
		for (int run = 0; run < 2; run++)
			for (size_t m = 0; m < r->nraw; m++) {
				csv_name(out, ctx, r->name);
				say(out, ctx, ",%s,%s,%s,%llu,%zu,%lld\n", v, lo, hi,
				    (unsigned long long)r->copies[run], m,
				    (long long)r->raw[run][m]);
			}
	}
}

static void json_string(fmt_sink out, void *ctx, const char *s)
{
	say(out, ctx, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			say(out, ctx, "\\%c", c);
		else if (c < 0x20)
			say(out, ctx, "\\u%04x", c);
		else
			say(out, ctx, "%c", c);
	}
	say(out, ctx, "\"");
}

static void json_run(fmt_sink out, void *ctx, const struct bench_row *r, int run)
{
	say(out, ctx, "{\"copies\":%llu,\"measurements\":[",
	    (unsigned long long)r->copies[run]);
	for (size_t m = 0; m < r->nraw; m++)
		say(out, ctx, "%s%lld", m ? "," : "", (long long)r->raw[run][m]);
	say(out, ctx, "]}");
}

void report_json(fmt_sink out, void *ctx, const struct report_info *info,
		 const struct bench_row *rows, size_t n)
{
	char v[48], lo[48], hi[48];
	say(out, ctx, "{\"mode\":\"%s\",\"aggregate\":\"%s\",\"unroll_count\":%llu,"
	    "\"loop_count\":%llu,\"basic_mode\":%s,\"normalized\":%s,\"events\":[",
	    info->mode, info->aggregate, (unsigned long long)info->unroll_count,
	    (unsigned long long)info->loop_count, info->basic_mode ? "true" : "false",
	    info->normalized ? "true" : "false");
	for (size_t i = 0; i < n; i++) {
		const struct bench_row *r = &rows[i];
		say(out, ctx, "%s{\"name\":", i ? "," : "");
		json_string(out, ctx, r->name);
		say(out, ctx, ",\"value\":%s,\"min\":%s,\"max\":%s,\"runs\":[",
		    report_fixed2(v, sizeof v, r->value), report_fixed2(lo, sizeof lo, r->min),
		    report_fixed2(hi, sizeof hi, r->max));
		json_run(out, ctx, r, 0);
		say(out, ctx, ",");
		json_run(out, ctx, r, 1);
		say(out, ctx, "]}");
	}
	say(out, ctx, "]}\n");
}

/*
 * perf stat's three outputs: the text table, -x SEP (CSV columns value,
 * unit, event, run time, % running, metric value, metric unit) and -j
 * (one JSON object per line). libc-lite's printf has no floating point,
 * so decimals are printed from integers.
 */
#include <stdio.h>
#include <string.h>
#include "stat.h"

/* v / 10^scale with `decimals` digits after the point, into buf. */
static const char *fixed(char *buf, size_t n, uint64_t v, int scale, int decimals)
{
	uint64_t div = 1, keep = 1;
	for (int i = 0; i < scale; i++)
		div *= 10;
	for (int i = 0; i < decimals; i++)
		keep *= 10;
	/* round to the kept digits */
	uint64_t scaled = div >= keep ? (v + div / keep / 2) / (div / keep) : v * (keep / div);
	if (decimals)
		snprintf(buf, n, "%llu.%0*llu", (unsigned long long)(scaled / keep), decimals,
			 (unsigned long long)(scaled % keep));
	else
		snprintf(buf, n, "%llu", (unsigned long long)scaled);
	return buf;
}

static bool is_clock(const struct counter *c)
{
	return c->attr.type == PERF_TYPE_SOFTWARE &&
	       (c->attr.config == PERF_COUNT_SW_TASK_CLOCK ||
		c->attr.config == PERF_COUNT_SW_CPU_CLOCK);
}

/* The count scaled for multiplexing: value * enabled / running. */
static uint64_t scaled(const struct counter *c)
{
	if (!c->running || c->running == c->enabled)
		return c->value;
	return (uint64_t)((unsigned __int128)c->value * c->enabled / c->running);
}

static uint64_t pct_running_x100(const struct counter *c)
{
	return c->enabled ? c->running * 10000 / c->enabled : 10000;
}

struct metric {
	char value[32];
	const char *unit;
};

static struct metric metric_of(const struct counter *c, uint64_t task_ns, uint64_t elapsed_ns)
{
	struct metric m = { "", "" };
	if (c->fd < 0)
		return m;
	if (is_clock(c) && elapsed_ns) {
		fixed(m.value, sizeof m.value, scaled(c) * 1000 / elapsed_ns, 3, 3);
		m.unit = "CPUs utilized";
	} else if (!is_clock(c) && task_ns) {
		/* events per second of task time, in thousands */
		fixed(m.value, sizeof m.value, scaled(c) * 1000000000ULL / task_ns, 3, 3);
		m.unit = "K/sec";
	}
	return m;
}

static void value_text(const struct counter *c, char *buf, size_t n, const char **unit)
{
	*unit = "";
	if (c->fd < 0) {
		snprintf(buf, n, "<not supported>");
	} else if (is_clock(c)) {
		fixed(buf, n, scaled(c), 6, 2); /* ns -> msec */
		*unit = "msec";
	} else {
		snprintf(buf, n, "%llu", (unsigned long long)scaled(c));
	}
}

static void print_text(struct counter *c, int n, const char *cmd, uint64_t task_ns,
		       uint64_t elapsed_ns)
{
	fprintf(stderr, "\n Performance counter stats for '%s':\n\n", cmd);
	for (int i = 0; i < n; i++) {
		char v[40], pct[16];
		const char *unit;
		value_text(&c[i], v, sizeof v, &unit);
		struct metric m = metric_of(&c[i], task_ns, elapsed_ns);
		fprintf(stderr, "%18s %-4s %-24s", v, unit, c[i].name);
		if (m.value[0])
			fprintf(stderr, " #  %8s %s", m.value, m.unit);
		if (c[i].fd >= 0 && c[i].running != c[i].enabled)
			fprintf(stderr, "  (%s%%)", fixed(pct, sizeof pct, pct_running_x100(&c[i]), 2, 2));
		fprintf(stderr, "\n");
	}
	char secs[32];
	fprintf(stderr, "\n%18s seconds time elapsed\n\n", fixed(secs, sizeof secs, elapsed_ns, 9, 9));
}

static void print_csv(struct counter *c, int n, const char *sep, uint64_t task_ns,
		      uint64_t elapsed_ns)
{
	for (int i = 0; i < n; i++) {
		char v[40], pct[16];
		const char *unit;
		value_text(&c[i], v, sizeof v, &unit);
		struct metric m = metric_of(&c[i], task_ns, elapsed_ns);
		fprintf(stderr, "%s%s%s%s%s%s%llu%s%s%s%s%s%s\n", v, sep, unit, sep, c[i].name, sep,
		       (unsigned long long)c[i].running, sep,
		       fixed(pct, sizeof pct, pct_running_x100(&c[i]), 2, 2), sep,
		       m.value, sep, m.unit);
	}
}

static void print_json(struct counter *c, int n, uint64_t task_ns, uint64_t elapsed_ns)
{
	for (int i = 0; i < n; i++) {
		char v[40], pct[16];
		const char *unit;
		value_text(&c[i], v, sizeof v, &unit);
		struct metric m = metric_of(&c[i], task_ns, elapsed_ns);
		fprintf(stderr, "{\"counter-value\" : \"%s\", \"unit\" : \"%s\", \"event\" : \"%s\", "
		       "\"event-runtime\" : %llu, \"pcnt-running\" : %s",
		       v, unit, c[i].name, (unsigned long long)c[i].running,
		       fixed(pct, sizeof pct, pct_running_x100(&c[i]), 2, 2));
		if (m.value[0])
			fprintf(stderr, ", \"metric-value\" : \"%s\", \"metric-unit\" : \"%s\"", m.value, m.unit);
		fprintf(stderr, "}\n");
	}
}

void print_counters(struct counter *c, int n, enum output how, const char *sep,
		    const char *cmd, uint64_t elapsed_ns)
{
	uint64_t task_ns = 0;
	for (int i = 0; i < n; i++)
		if (c[i].fd >= 0 && is_clock(&c[i]) && !task_ns)
			task_ns = scaled(&c[i]);
	if (how == OUT_CSV)
		print_csv(c, n, sep, task_ns, elapsed_ns);
	else if (how == OUT_JSON)
		print_json(c, n, task_ns, elapsed_ns);
	else
		print_text(c, n, cmd, task_ns, elapsed_ns);
}

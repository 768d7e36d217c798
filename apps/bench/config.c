/*
 * config.c: nanoBench config lines into bench_events (config.h).
 * One line at a time: strip the comment, split the specification from
 * the name at the first blank, then walk the '.'-separated fields.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"

struct line_err {
	char *buf;
	size_t len;
	unsigned line;
};

static int fail(struct line_err *e, const char *what, const char *field)
{
	snprintf(e->buf, e->len, "line %u: %s '%s'", e->line, what, field);
	return -1;
}

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* A hex number filling all of s, at most `max`. */
static bool hex_field(const char *s, unsigned max, unsigned *out)
{
	char *end;
	if (!*s || s[0] == '-' || s[0] == '+')
		return false;
	unsigned long v = strtoul(s, &end, 16);
	if (*end || v > max)
		return false;
	*out = (unsigned)v;
	return true;
}

/* "KEY=VALUE" with a C number (0x.. or decimal) filling VALUE. */
static bool number_after(const char *s, const char *key, uint64_t *out)
{
	size_t k = strlen(key);
	if (strncmp(s, key, k) || s[k] != '=' || !s[k + 1] || s[k + 1] == '-')
		return false;
	char *end;
	*out = strtoull(s + k + 1, &end, 0);
	return !*end;
}

static int flag_or_value(struct bench_event *ev, const char *f, struct line_err *e)
{
	uint64_t v;
	if (!strcmp(f, "AnyT"))
		ev->any = 1;
	else if (!strcmp(f, "EDG"))
		ev->edge = 1;
	else if (!strcmp(f, "INV"))
		ev->inv = 1;
	else if (!strncmp(f, "CMSK=", 5)) {
		if (!number_after(f, "CMSK", &v) || v > 255)
			return fail(e, "bad counter mask", f);
		ev->cmask = (unsigned)v;
	} else if (!strncmp(f, "CTR=", 4)) {
		if (!number_after(f, "CTR", &v) || v > 31)
			return fail(e, "bad counter number", f);
		ev->ctr = (int)v;
	} else if (!strncmp(f, "MSR_", 4)) {
		const char *eq = strchr(f, '=');
		size_t n = eq ? (size_t)(eq - f - 4) : 0;
		if (!eq || !n || n >= sizeof ev->msr[0].name || ev->nmsr == BENCH_EVENT_MSRS)
			return fail(e, "bad MSR field", f);
		struct bench_msr *m = &ev->msr[ev->nmsr];
		memcpy(m->name, f + 4, n);
		m->name[n] = 0;
		if (!number_after(f + 4, m->name, &m->value))
			return fail(e, "bad MSR value", f);
		ev->nmsr++;
	} else {
		return fail(e, "unknown field", f);
	}
	return 0;
}

/* "EvtSel.UMASK(.field)*" (spec, modified in place) into ev. */
static int parse_spec(char *spec, struct bench_event *ev, struct line_err *e)
{
	char *fields[16];
	int n = 0;
	for (char *p = spec; n < 16; ) {
		fields[n++] = p;
		p = strchr(p, '.');
		if (!p)
			break;
		*p++ = 0;
	}
	if (n < 2)
		return fail(e, "expected EvtSel.UMASK, got", spec);
	if (!hex_field(fields[0], 0xfff, &ev->evtsel))
		return fail(e, "bad event select", fields[0]);
	if (!hex_field(fields[1], 0xff, &ev->umask))
		return fail(e, "bad unit mask", fields[1]);
	for (int i = 2; i < n; i++)
		if (flag_or_value(ev, fields[i], e))
			return -1;
	return 0;
}

/* One line (NUL-terminated, modified): 1 event, 0 nothing, -1 error. */
static int parse_line(char *s, struct bench_event *ev, struct line_err *e)
{
	char *hash = strchr(s, '#');
	if (hash)
		*hash = 0;
	while (is_blank(*s))
		s++;
	size_t len = strlen(s);
	while (len && is_blank(s[len - 1]))
		s[--len] = 0;
	if (!len)
		return 0;
	char *name = s;
	while (*name && !is_blank(*name))
		name++;
	if (!*name)
		return fail(e, "no event name after", s);
	*name++ = 0;
	while (is_blank(*name))
		name++;
	memset(ev, 0, sizeof *ev);
	ev->ctr = -1;
	ev->line = e->line;
	if (strlen(name) >= sizeof ev->name)
		return fail(e, "event name too long", name);
	strcpy(ev->name, name);
	return parse_spec(s, ev, e) ? -1 : 1;
}

int config_parse(const char *text, struct bench_event *ev, int max,
		 char *err, size_t errlen)
{
	struct line_err e = { err, errlen, 0 };
	int n = 0;
	char line[512];
	for (const char *p = text; *p; ) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		e.line++;
		if (len >= sizeof line) {
			snprintf(err, errlen, "line %u: longer than %zu characters", e.line, sizeof line - 1);
			return -1;
		}
		memcpy(line, p, len);
		line[len] = 0;
		p += len + (nl ? 1 : 0);
		if (n == max) {
			struct bench_event spare;
			if (parse_line(line, &spare, &e) == 0)
				continue;
			snprintf(err, errlen, "line %u: more than %d events", e.line, max);
			return -1;
		}
		int r = parse_line(line, &ev[n], &e);
		if (r < 0)
			return -1;
		n += r;
	}
	return n;
}

uint64_t config_raw(const struct bench_event *e)
{
	uint64_t c = (e->evtsel & 0xffu) | (uint64_t)e->umask << 8 |
		     (uint64_t)(e->evtsel >> 8 & 0xf) << 32 | (uint64_t)e->cmask << 24;
	if (e->edge)
		c |= 1ull << 18;
	if (e->any)
		c |= 1ull << 21;
	if (e->inv)
		c |= 1ull << 23;
	return c;
}

int64_t config_msr(const struct bench_event *e, const char *name)
{
	for (int i = 0; i < e->nmsr; i++)
		if (!strcmp(e->msr[i].name, name))
			return (int64_t)e->msr[i].value;
	return -1;
}

int64_t config_msr_address(const char *name)
{
	static const struct { const char *name; uint32_t msr; } known[] = {
		{ "RSP0", 0x1a6 }, { "RSP1", 0x1a7 }, { "3F6H", 0x3f6 }, { "PF", 0x3f7 },
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (!strcmp(name, known[i].name))
			return known[i].msr;
	char *end;
	if (!*name || *name == '-' || *name == '+')
		return -1;
	unsigned long long v = strtoull(name, &end, 16);
	if (*end == 'H' || *end == 'h')
		end++;
	return *end || v > 0xffffffffull ? -1 : (int64_t)v;
}

static bool perf_config1(const char *name)
{
	return !strcmp(name, "RSP0") || !strcmp(name, "RSP1") ||
	       !strcmp(name, "3F6H") || !strcmp(name, "PF");
}

int config_check_user(const struct bench_event *ev, int n, char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		const struct bench_event *e = &ev[i];
		if (e->ctr >= 0) {
			snprintf(err, errlen, "line %u: .CTR=%d needs -kernel (in user mode perf "
				 "chooses the counter)", e->line, e->ctr);
			return -1;
		}
		for (int m = 0; m < e->nmsr; m++) {
			if (!perf_config1(e->msr[m].name) || m > 0) {
				snprintf(err, errlen, "line %u: .MSR_%s= needs -kernel (user mode "
					 "passes one of RSP0, RSP1, 3F6H, PF to perf as config1)",
					 e->line, e->msr[m].name);
				return -1;
			}
		}
	}
	return 0;
}

int config_check_kernel(const struct bench_event *ev, int n, int counters,
			char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		const struct bench_event *e = &ev[i];
		if (e->ctr >= counters) {
			snprintf(err, errlen, "line %u: .CTR=%d: this CPU has %d programmable "
				 "counters", e->line, e->ctr, counters);
			return -1;
		}
		for (int m = 0; m < e->nmsr; m++) {
			if (config_msr_address(e->msr[m].name) < 0) {
				snprintf(err, errlen, "line %u: .MSR_%s= names no MSR (RSP0, RSP1, "
					 "3F6H, PF or a hex address)", e->line, e->msr[m].name);
				return -1;
			}
		}
	}
	return 0;
}

int config_kernel_set(const struct bench_event *ev, int n, int counters, int *ctr)
{
	uint32_t used = 0;
	int take = 0, free_needed = 0;
	for (; take < n; take++) {
		int c = ev[take].ctr;
		if (c >= 0 && (used >> c & 1))
			break;
		int fixed = __builtin_popcount(used) + (c >= 0);
		if (fixed + free_needed + (c < 0) > counters)
			break;
		if (c >= 0)
			used |= 1u << c;
		else
			free_needed++;
	}
	if (take == 0 && n > 0)
		take = 1; /* a lone event always fits (its .CTR= was checked) */
	for (int i = 0, next = 0; i < take; i++) {
		if (ev[i].ctr >= 0) {
			ctr[i] = ev[i].ctr;
			continue;
		}
		while (used >> next & 1)
			next++;
		ctr[i] = next;
		used |= 1u << next;
	}
	return take;
}

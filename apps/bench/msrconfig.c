/*
 * msrconfig.c: -msr_config lines into bench_msr_cfgs (msrconfig.h). One
 * line at a time: strip the comment, split off the name after the last
 * blank-separated field, then walk the '.'-separated writes.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "msrconfig.h"

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* "msr_ADDR" (all of s): the address. */
static bool msr_address(const char *s, uint32_t *out)
{
	if (strncmp(s, "msr_", 4) && strncmp(s, "MSR_", 4))
		return false;
	s += 4;
	char *end;
	if (!*s || *s == '-' || *s == '+')
		return false;
	unsigned long long v = strtoull(s, &end, 16);
	if (*end == 'h' || *end == 'H')
		end++;
	if (*end || end == s || v > 0xffffffffull)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* "msr_ADDR=VALUE" (modified in place). */
static bool msr_write(char *s, uint32_t *addr, uint64_t *val)
{
	char *eq = strchr(s, '=');
	if (!eq || !eq[1] || eq[1] == '-')
		return false;
	*eq = 0;
	char *end;
	*val = strtoull(eq + 1, &end, 0);
	return !*end && msr_address(s, addr);
}

static int fail(char *err, size_t len, unsigned line, const char *what, const char *field)
{
	snprintf(err, len, "line %u: %s '%s'", line, what, field);
	return -1;
}

/* One line (modified): 1 entry, 0 nothing, -1 error. */
static int parse_line(char *s, unsigned line, struct bench_msr_cfg *mc, char *err, size_t elen)
{
	char *hash = strchr(s, '#');
	if (hash)
		*hash = 0;
	char *f[3];
	int n = 0;
	for (char *p = s; *p && n < 3; ) {
		while (is_blank(*p))
			p++;
		if (!*p)
			break;
		f[n++] = p;
		if (n == 3) /* the name runs to the end of the line */
			break;
		while (*p && !is_blank(*p))
			p++;
		if (*p)
			*p++ = 0;
	}
	if (n == 0)
		return 0;
	memset(mc, 0, sizeof *mc);
	mc->line = line;
	if (n == 1)
		return fail(err, elen, line, "no name after", f[0]);
	char *name = f[n - 1];
	size_t len = strlen(name);
	while (len && is_blank(name[len - 1]))
		name[--len] = 0;
	if (len >= sizeof mc->name)
		return fail(err, elen, line, "name too long", name);
	strcpy(mc->name, name);
	if (!msr_address(f[n - 2], &mc->read))
		return fail(err, elen, line, "bad MSR to read", f[n - 2]);
	if (n == 2)
		return 1;
	for (char *w = f[0]; w; ) {
		char *dot = strchr(w, '.');
		if (dot)
			*dot = 0;
		if (mc->nwr == BENCH_MSR_WRITES)
			return fail(err, elen, line, "more than 10 writes at", w);
		char copy[64];
		snprintf(copy, sizeof copy, "%s", w);
		if (!msr_write(w, &mc->wr[mc->nwr], &mc->wrval[mc->nwr]))
			return fail(err, elen, line, "bad MSR write", copy);
		mc->nwr++;
		w = dot ? dot + 1 : NULL;
	}
	return 1;
}

int msrconfig_parse(const char *text, struct bench_msr_cfg *mc, int max,
		    char *err, size_t errlen)
{
	int n = 0;
	unsigned line = 0;
	char buf[512];
	for (const char *p = text; *p; ) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		line++;
		if (len >= sizeof buf) {
			snprintf(err, errlen, "line %u: longer than %zu characters", line, sizeof buf - 1);
			return -1;
		}
		memcpy(buf, p, len);
		buf[len] = 0;
		p += len + (nl ? 1 : 0);
		struct bench_msr_cfg spare;
		int r = parse_line(buf, line, n < max ? &mc[n] : &spare, err, errlen);
		if (r < 0)
			return -1;
		if (r && n == max) {
			snprintf(err, errlen, "line %u: more than %d MSRs to read", line, max);
			return -1;
		}
		n += r;
	}
	return n;
}

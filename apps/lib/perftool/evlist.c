/*
 * -e lists as perf writes them: events separated by commas, where a
 * comma inside pmu/.../ or a group {a,b} does not separate; a group may
 * carry modifiers for all of its members ({a,b}:u). An event is
 *   NAME[:MODS]             perf's names, HW_CACHE names, rNNNN, or an
 *                           alias in some PMU's events/ (pmu.c)
 *   PMU/TERMS/[[:]MODS]     resolved through sysfs (pmu.c)
 *   GROUP:NAME[:MODS]       a tracepoint, its id from tracefs
 *                           (sysfs kernel/tracing/events/GROUP/NAME/id)
 * MODS: u (user only), k (kernel only), h (hypervisor only) in any
 * combination, G (guest), H (host), p (more precise, up to ppp), D
 * (pinned), I (not while idle).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perftool.h"

#define MODIFIERS "ukhGHpDI"

/* The end of the item starting at s: a top-level ',' or the end. */
static const char *item_end(const char *s)
{
	int depth = 0;
	bool in_pmu = false;
	for (; *s; s++) {
		if (*s == '/')
			in_pmu = !in_pmu;
		else if (*s == '{')
			depth++;
		else if (*s == '}')
			depth--;
		else if (*s == ',' && !depth && !in_pmu)
			break;
	}
	return s;
}

static bool valid_mods(const char *m)
{
	return *m && strspn(m, MODIFIERS) == strlen(m);
}

static void apply_mods(struct perf_event_attr *a, const char *m)
{
	if (!m)
		return;
	bool u = strchr(m, 'u'), k = strchr(m, 'k'), h = strchr(m, 'h');
	if (u || k || h) {
		a->exclude_user = !u;
		a->exclude_kernel = !k;
		a->exclude_hv = !h;
	}
	for (; *m; m++) {
		if (*m == 'G') {
			a->exclude_guest = 0;
			a->exclude_host = 1;
		} else if (*m == 'H') {
			a->exclude_guest = 1;
			a->exclude_host = 0;
		} else if (*m == 'p' && a->precise_ip < 3) {
			a->precise_ip++;
		} else if (*m == 'D') {
			a->pinned = 1;
		} else if (*m == 'I') {
			a->exclude_idle = 1;
		}
	}
}

/* Where parsed events go, and where an error is explained. */
struct parse {
	struct evspec *e;
	int *n, max;
	char *err;
	size_t errlen;
};

static int unknown(struct parse *p, const char *spec, const char *why)
{
	if (why && *why)
		snprintf(p->err, p->errlen, "unknown event '%s': %s", spec, why);
	else
		snprintf(p->err, p->errlen, "unknown event '%s'", spec);
	return -1;
}

/* PMU/TERMS/[[:]MODS] in s (a copy); *mods set to the modifiers. */
static int resolve_pmu(struct parse *p, char *s, const char *spec, struct perf_event_attr *a,
		       char **name, char **mods)
{
	char err[160] = "", *slash = strchr(s, '/'), *last = strrchr(s, '/');
	if (last == slash)
		return unknown(p, spec, "missing '/' after the terms");
	*slash = *last = 0;
	*mods = last[1] == ':' ? last + 2 : last + 1;
	if (**mods && !valid_mods(*mods))
		return unknown(p, spec, "bad modifiers");
	int r = pmu_event(s, slash + 1, a, name, err, sizeof err);
	if (r == 0)
		snprintf(err, sizeof err, "no PMU '%s' in %s/bus/event_source/devices", s,
			 sysfs_root());
	return r > 0 ? 0 : unknown(p, spec, err);
}

/* GROUP:NAME: PERF_TYPE_TRACEPOINT with the id tracefs gives it. */
static bool tracepoint_event(const char *s, struct perf_event_attr *a, char *err, size_t n)
{
	const char *colon = strchr(s, ':');
	char rel[320], id[32], *end;
	snprintf(rel, sizeof rel, "kernel/tracing/events/%.*s/%s/id", (int)(colon - s), s,
		 colon + 1);
	if (strchr(colon + 1, ':') || strchr(s, '.') || !sysfs_read(rel, id, sizeof id)) {
		snprintf(err, n, "no tracepoint %s/%s", sysfs_root(), rel);
		return false;
	}
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = strtoull(id, &end, 10);
	return end != id;
}

/* NAME[:MODS] in s (a copy). */
static int resolve_name(struct parse *p, char *s, const char *spec, struct perf_event_attr *a,
			char **mods)
{
	char err[160] = "", *colon = strrchr(s, ':');
	*mods = NULL;
	if (colon && valid_mods(colon + 1)) {
		*colon = 0;
		*mods = colon + 1;
	}
	if (event_symbolic(s, a) || event_hwcache(s, a))
		return 0;
	if (strchr(s, ':'))
		return tracepoint_event(s, a, err, sizeof err) ? 0 : unknown(p, spec, err);
	int r = pmu_alias(s, a, err, sizeof err);
	return r > 0 ? 0 : unknown(p, spec, err);
}

/* Parse one event spec into the next evspec, in group `leader` (-1: its
 * own). */
static bool add_event(struct parse *p, const char *spec, const char *group_mods, int leader)
{
	if (*p->n == p->max) {
		snprintf(p->err, p->errlen, "at most %d events", p->max);
		return false;
	}
	struct evspec *e = &p->e[*p->n];
	char *copy = strdup(spec), *mods = NULL, *name = NULL;
	memset(&e->attr, 0, sizeof e->attr);
	e->attr.size = sizeof e->attr;
	e->attr.exclude_guest = 1;
	int r = strchr(copy, '/') ? resolve_pmu(p, copy, spec, &e->attr, &name, &mods)
				  : resolve_name(p, copy, spec, &e->attr, &mods);
	if (r == 0) {
		apply_mods(&e->attr, mods);
		apply_mods(&e->attr, group_mods);
		e->name = name ? name : strdup(spec);
		e->leader = leader < 0 ? *p->n : leader;
		(*p->n)++;
	}
	free(copy);
	return r == 0;
}

static bool add_member(struct parse *p, const char *member, const char *mods, int leader)
{
	if (strchr(member, '{')) {
		snprintf(p->err, p->errlen, "groups do not nest: '%s'", member);
		return false;
	}
	return add_event(p, member, mods, *p->n == leader ? -1 : leader);
}

/* {a,b,...}[:MODS]: the first member leads the others. */
static bool add_group(struct parse *p, const char *item)
{
	char *s = strdup(item), *close = strrchr(s, '}'), *mods = NULL, *q = s + 1;
	bool ok = close && (!close[1] || (close[1] == ':' && valid_mods(close + 2)));
	if (!ok) {
		snprintf(p->err, p->errlen, "bad group '%s'", item);
		free(s);
		return false;
	}
	if (close[1])
		mods = close + 2;
	*close = 0;
	for (int leader = *p->n; ok; q++) {
		const char *end = item_end(q);
		char *member = strndup(q, (size_t)(end - q));
		ok = add_member(p, member, mods, leader);
		free(member);
		if (!*end)
			break;
		q = (char *)end;
	}
	free(s);
	return ok;
}

bool evlist_parse(const char *list, struct evspec *e, int *n, int max, char *err,
		  size_t errlen)
{
	struct parse p = { e, n, max, err, errlen };
	for (const char *s = list;;) {
		const char *end = item_end(s);
		char *item = strndup(s, (size_t)(end - s));
		bool ok = item[0] == '{' ? add_group(&p, item) : add_event(&p, item, NULL, -1);
		free(item);
		if (!ok)
			return false;
		if (!*end)
			return true;
		s = end + 1;
	}
}

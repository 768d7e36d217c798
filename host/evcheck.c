/*
 * Event names the host can judge before it boots anything (check.c).
 * A -e list is split as the target's tools split it (commas outside
 * PMU/.../ and {groups}); an event is good here when it is one of
 * perf's symbolic or HW_CACHE names or rNNNN (apps/lib/perftool, the
 * target's own tables), an alias one of baremon's PMUs publishes, or
 * spelled PMU/TERMS/ or GROUP:NAME (a tracepoint): whether those exist
 * is the target's to say, and it does (exit 2).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perftool.h"
#include "host/guestopts.h"

#define MODIFIERS "ukhGHpDI"

/* The aliases of baremon's PMUs (pmu/msrpmu.c) that are not perf names. */
static const char *const pmu_aliases[] = { "tsc", "aperf", "mperf", NULL };

static bool known_alias(const char *name)
{
	for (int i = 0; pmu_aliases[i]; i++)
		if (!strcmp(pmu_aliases[i], name))
			return true;
	return false;
}

/* One event, without group braces. */
static bool event_ok(const char *tool, char *ev)
{
	if (strchr(ev, '/'))
		return true;
	char *colon = strrchr(ev, ':');
	if (colon && colon[1] && strspn(colon + 1, MODIFIERS) == strlen(colon + 1))
		*colon = 0;
	if (strchr(ev, ':'))
		return true;   /* a tracepoint: the target's tracefs says */
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	return event_symbolic(ev, &a) || event_hwcache(ev, &a) || known_alias(ev);
}

/* The list without group braces and the groups' modifiers: what is
 * left is events separated by commas outside PMU/.../. */
static void flatten(char *s)
{
	char *out = s;
	for (char *in = s; *in; in++) {
		if (*in == '{')
			continue;
		if (*in == '}') {
			if (in[1] == ':')
				in += 1 + strspn(in + 2, MODIFIERS);
			continue;
		}
		*out++ = *in;
	}
	*out = 0;
}

static bool list_ok(const char *tool, const char *list)
{
	char *copy = strdup(list), *s = copy;
	bool ok = copy != NULL;
	if (ok)
		flatten(copy);
	while (ok && s) {
		bool in_pmu = false;
		char *e = s;
		for (; *e && (*e != ',' || in_pmu); e++)
			in_pmu ^= *e == '/';
		char *next = *e ? e + 1 : NULL;
		*e = 0;
		if (!*s) {
			fprintf(stderr, "%s: an empty event in '%s'\n", tool, list);
			ok = false;
		} else if (!event_ok(tool, s)) {
			ok = false;
			fprintf(stderr, "%s: unknown event '%s'\nRun 'baremon list' for the "
				"target's events\n", tool, *s ? s : list);
		}
		s = next;
	}
	free(copy);
	return ok;
}

bool events_check(const char *tool, char **lists, int n)
{
	for (int i = 0; i < n; i++)
		if (!list_ok(tool, lists[i]))
			return false;
	return true;
}

/*
 * list: the target's events in perf list's layout, from what the
 * target publishes: its PMUs' events/ in sysfs, perf's software events,
 * and tracefs' available_events. The hardware events are the generic
 * names the CPU's PMU (cpu, cpu_core, cpu_atom) lists; each PMU's own
 * names follow as PMU/NAME/ ("Kernel PMU event"), as perf shows them.
 * Nothing is opened to try it: HW_CACHE names are left out (perf lists
 * those it could open).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "baremon.h"

#define DEVICES "/sys/bus/event_source/devices"

static void row(const char *name, const char *kind)
{
	printf("  %-50s [%s]\n", name, kind);
}

/* perf's names of the generic events, with their short forms. */
static const struct { const char *name, *alias; } hardware[] = {
	{ "branch-instructions", "branches" }, { "branch-misses", NULL },
	{ "bus-cycles", NULL }, { "cache-misses", NULL }, { "cache-references", NULL },
	{ "cpu-cycles", "cycles" }, { "instructions", NULL }, { "ref-cycles", NULL },
	{ "stalled-cycles-backend", "idle-cycles-backend" },
	{ "stalled-cycles-frontend", "idle-cycles-frontend" },
}, software[] = {
	{ "alignment-faults", NULL }, { "context-switches", "cs" }, { "cpu-clock", NULL },
	{ "cpu-migrations", "migrations" }, { "dummy", NULL }, { "emulation-faults", NULL },
	{ "major-faults", NULL }, { "minor-faults", NULL }, { "page-faults", "faults" },
	{ "task-clock", NULL },
};
#define N(a) (sizeof(a) / sizeof(a[0]))

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, line, n) && (p[n] == '\n' || p[n] == 0))
			return true;
	return false;
}

static char *ls(struct conn *c, const char *dir)
{
	int st;
	char *argv[] = { "ls", (char *)dir, NULL };
	char *text = run_capture(c, argv, &st);
	if (st != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* The generic names the CPU's PMU lists, as "Hardware event" rows. */
static void list_hardware(char **events, char **pmus, int n)
{
	for (size_t i = 0; i < N(hardware); i++) {
		for (int k = 0; k < n; k++) {
			if (strncmp(pmus[k], "cpu", 3) || !events[k] ||
			    !has_line(events[k], hardware[i].name))
				continue;
			char name[128];
			snprintf(name, sizeof(name), "%s%s%s", hardware[i].name,
				 hardware[i].alias ? " OR " : "",
				 hardware[i].alias ? hardware[i].alias : "");
			row(name, "Hardware event");
			break;
		}
	}
}

static void list_pmus(char **events, char **pmus, int n)
{
	for (int k = 0; k < n; k++) {
		for (char *e = events[k]; e && *e;) {
			size_t len = strcspn(e, "\n");
			char name[256];
			snprintf(name, sizeof(name), "%s/%.*s/", pmus[k], (int)len, e);
			if (len && !strchr(name, '.'))   /* NAME.unit, NAME.scale */
				row(name, "Kernel PMU event");
			e += len + (e[len] == '\n');
		}
	}
}

int cmd_list(struct conn *c)
{
	char *devices = ls(c, DEVICES);
	if (!devices) {
		fprintf(stderr, "baremon: list: the target has no %s\n", DEVICES);
		return EXIT_IOERR;
	}
	char *pmus[64], *events[64];
	int n = 0;
	for (char *p = strtok(devices, "\n"); p && n < 64; p = strtok(NULL, "\n")) {
		char dir[512];
		snprintf(dir, sizeof(dir), "%s/%s/events", DEVICES, p);
		pmus[n] = p;
		events[n++] = ls(c, dir);
	}
	int st;
	char *cat[] = { "cat", "/sys/kernel/tracing/available_events", NULL };
	char *tps = run_capture(c, cat, &st);
	printf("\nList of pre-defined events (to be used in -e or -M):\n\n");
	list_hardware(events, pmus, n);
	for (size_t i = 0; i < N(software); i++) {
		char name[128];
		snprintf(name, sizeof(name), "%s%s%s", software[i].name,
			 software[i].alias ? " OR " : "", software[i].alias ? software[i].alias : "");
		row(name, "Software event");
	}
	list_pmus(events, pmus, n);
	for (char *t = st == 0 ? strtok(tps, "\n") : NULL; t; t = strtok(NULL, "\n"))
		row(t, "Tracepoint event");
	printf("\n");
	for (int k = 0; k < n; k++)
		free(events[k]);
	free(devices);
	free(tps);
	return 0;
}

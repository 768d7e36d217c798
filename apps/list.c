/*
 * list: the events this machine can count, in perf list's layout
 * ("  NAME    [Kind]", a kind per block, each block sorted):
 *   Hardware event        the generic names the CPU's PMU (cpu, cpu_core,
 *                         cpu_atom) publishes in its sysfs events/
 *   Software event        perf's software events
 *   Hardware cache event  the HW_CACHE names that open here, tried as perf
 *                         list tries them (user mode, this task, any CPU)
 *   Kernel PMU event      every PMU's events/ as PMU/NAME/
 *   Tracepoint event      tracefs' available_events
 * `baremon list` on the host runs this. Status 0, or 1 when sysfs has no
 * event sources at all.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perf_event_open.h>
#include "perftool.h"

#define DEVICES "bus/event_source/devices"
#define MAX_NAMES 512

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

static void row_aliased(const char *name, const char *alias, const char *kind)
{
	char text[128];
	snprintf(text, sizeof(text), "%s%s%s", name, alias ? " OR " : "", alias ? alias : "");
	row(text, kind);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in directory path (under sysfs' root), sorted, without
 * dot files; the count (0 if it cannot be read). Caller frees each. */
static int names_in(const char *rel, char **names, int max)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", sysfs_root(), rel);
	DIR *d = opendir(path);
	int n = 0;
	for (struct dirent *e; d && n < max && (e = readdir(d));)
		if (e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	if (d)
		closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), by_name);
	return n;
}

static void free_names(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
}

/* Whether a CPU PMU (cpu, cpu_core, cpu_atom) lists this generic event. */
static bool cpu_pmu_has(char **pmus, int npmus, const char *event)
{
	for (int k = 0; k < npmus; k++) {
		char rel[512];
		if (strncmp(pmus[k], "cpu", 3))
			continue;
		snprintf(rel, sizeof(rel), DEVICES "/%s/events/%s", pmus[k], event);
		if (sysfs_exists(rel))
			return true;
	}
	return false;
}

static void list_hardware(char **pmus, int npmus)
{
	for (size_t i = 0; i < N(hardware); i++)
		if (cpu_pmu_has(pmus, npmus, hardware[i].name))
			row_aliased(hardware[i].name, hardware[i].alias, "Hardware event");
}

static bool opens(struct perf_event_attr *a)
{
	a->size = sizeof(*a);
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->disabled = 1;
	int fd = perf_event_open(a, 0, -1, -1, 0);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static void list_hwcache(void)
{
	char *names[64];
	int n = 0;
	for (int i = 0; n < (int)N(names); i++) {
		char name[64];
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		if (!hwcache_name(i, name, sizeof(name), &a))
			break;
		if (opens(&a))
			names[n++] = strdup(name);
	}
	qsort(names, (size_t)n, sizeof(names[0]), by_name);
	for (int i = 0; i < n; i++)
		row(names[i], "Hardware cache event");
	free_names(names, n);
}

static void list_pmu_events(char **pmus, int npmus)
{
	for (int k = 0; k < npmus; k++) {
		char rel[512], *events[MAX_NAMES];
		snprintf(rel, sizeof(rel), DEVICES "/%s/events", pmus[k]);
		int n = names_in(rel, events, MAX_NAMES);
		for (int i = 0; i < n; i++) {
			char name[600];
			snprintf(name, sizeof(name), "%s/%s/", pmus[k], events[i]);
			if (!strchr(events[i], '.'))   /* NAME.unit, NAME.scale */
				row(name, "Kernel PMU event");
		}
		free_names(events, n);
	}
}

static void list_tracepoints(void)
{
	static char text[256 * 1024];
	int fd = open("/sys/kernel/tracing/available_events", O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	for (ssize_t got = 1; fd >= 0 && got > 0 && len < sizeof(text) - 1; len += (size_t)got)
		if ((got = read(fd, text + len, sizeof(text) - 1 - len)) < 0)
			got = 0;
	if (fd >= 0)
		close(fd);
	text[len] = 0;
	for (char *line = text, *end; *line; line = end + (*end != 0)) {
		end = line + strcspn(line, "\n");
		char saved = *end;
		*end = 0;
		if (*line)
			row(line, "Tracepoint event");
		*end = saved;
	}
}

int main(void)
{
	char *pmus[64];
	int npmus = names_in(DEVICES, pmus, 64);
	if (npmus == 0) {
		fprintf(stderr, "list: %s/%s has no event sources\n", sysfs_root(), DEVICES);
		return 1;
	}
	printf("\nList of pre-defined events (to be used in -e or -M):\n\n");
	list_hardware(pmus, npmus);
	for (size_t i = 0; i < N(software); i++)
		row_aliased(software[i].name, software[i].alias, "Software event");
	list_hwcache();
	list_pmu_events(pmus, npmus);
	list_tracepoints();
	printf("\n");
	free_names(pmus, npmus);
	return 0;
}

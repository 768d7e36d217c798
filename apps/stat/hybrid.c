/*
 * Hybrid CPUs, as perf stat shows them: where the kernel has two core
 * PMUs (cpu_core and cpu_atom, each with its own type), a generic
 * hardware or cache event counts on one of them only, so each such
 * event (not in a group) becomes one counter per core PMU, named
 * "cpu_core/cycles/" and "cpu_atom/cycles/", the PMU's type in config
 * bits 63-32 (Linux's extended type, PERF_PMU_TYPE_SHIFT).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stat.h"

static const char *const core_pmus[] = { "cpu_core", "cpu_atom" };
#define NR_CORE_PMUS 2

/* The core PMUs' types; false when this is not a hybrid machine. */
static bool core_types(uint64_t type[NR_CORE_PMUS])
{
	for (int p = 0; p < NR_CORE_PMUS; p++) {
		char rel[96], buf[32];
		snprintf(rel, sizeof rel, "bus/event_source/devices/%s/type", core_pmus[p]);
		if (!sysfs_read(rel, buf, sizeof buf))
			return false;
		type[p] = strtoull(buf, NULL, 10);
	}
	return true;
}

static bool alone(const struct counter *c, int n, int i)
{
	if (c[i].leader != i)
		return false;
	for (int k = 0; k < n; k++)
		if (k != i && c[k].leader == i)
			return false;
	return true;
}

static bool splits(const struct counter *c, int n, int i)
{
	uint32_t t = c[i].attr.type;
	return (t == PERF_TYPE_HARDWARE || t == PERF_TYPE_HW_CACHE) &&
	       !(c[i].attr.config >> PERF_PMU_TYPE_SHIFT) && alone(c, n, i);
}

/* "cycles:u" on cpu_core: "cpu_core/cycles/u". */
static char *pmu_name(const char *pmu, const char *event)
{
	size_t base = strcspn(event, ":");
	const char *mods = event[base] ? event + base + 1 : "";
	size_t len = strlen(pmu) + strlen(event) + 4;
	char *s = malloc(len);
	if (s)
		snprintf(s, len, "%s/%.*s/%s", pmu, (int)base, event, mods);
	return s;
}

bool hybrid_expand(struct counter *c, int *n)
{
	static struct counter out[MAX_EVENTS];
	int map[MAX_EVENTS], m = 0;
	uint64_t type[NR_CORE_PMUS];
	if (!core_types(type))
		return true;
	for (int i = 0; i < *n; i++) {
		int copies = splits(c, *n, i) ? NR_CORE_PMUS : 1;
		if (m + copies > MAX_EVENTS) {
			fprintf(stderr, "stat: too many events for two core PMUs\n");
			return false;
		}
		map[i] = m;
		for (int p = 0; p < copies; p++, m++) {
			out[m] = c[i];
			if (copies == 1)
				continue;
			out[m].attr.config |= type[p] << PERF_PMU_TYPE_SHIFT;
			if (!(out[m].name = pmu_name(core_pmus[p], c[i].name)))
				return false;
		}
	}
	/* group members follow their leader to its new index */
	for (int i = 0, k = 0; i < *n; i++) {
		int copies = splits(c, *n, i) ? NR_CORE_PMUS : 1;
		for (int p = 0; p < copies; p++, k++)
			out[k].leader = copies == 1 ? map[c[i].leader] : k;
	}
	memcpy(c, out, (size_t)m * sizeof *c);
	*n = m;
	return true;
}

/*
 * The PMU registry: which PMU owns each attr.type, and the PMU's
 * directory under /sys/bus/event_source/devices/<name>/ (type, format/,
 * events/, caps/, perf_event_mux_interval_ms), as Linux lays it out.
 *
 * PMUs register once at boot, before user space, and are never removed:
 * the list is read without a lock afterwards.
 */
#include <stdio.h>
#include <string.h>
#include <linux/errno.h>
#include <linux/perf_event.h>
#include "event.h"
#include "core/kernel.h"
#include "core/fs/vfs.h"

static struct list pmus = LIST_INIT(pmus);
static uint32_t next_dynamic_type = PERF_TYPE_MAX;

static struct pmu *find_type(uint32_t type)
{
	list_for_each(n, &pmus) {
		struct pmu *p = list_entry(n, struct pmu, node);
		if (p->type == type)
			return p;
	}
	return NULL;
}

/* Linux's default rotation period: one tick of a HZ=250 kernel. Ours
 * rounds up to the 10 ms tick (see docs/perf.md). */
#define DEFAULT_MUX_INTERVAL_MS 4

static int gen_type(struct seqbuf *out, void *arg)
{
	sb_printf(out, "%u\n", ((struct pmu *)arg)->type);
	return 0;
}

static int gen_mux(struct seqbuf *out, void *arg)
{
	sb_printf(out, "%d\n", ((struct pmu *)arg)->mux_interval_ms);
	return 0;
}

/* Linux accepts any integer >= 1 (kstrtoint), else EINVAL. */
static int write_mux(const char *data, size_t len, void *arg)
{
	int v = 0;
	size_t i = 0;
	while (i < len && data[i] >= '0' && data[i] <= '9' && v < 100000000)
		v = v * 10 + (data[i++] - '0');
	if (i < len && data[i] == '\n')
		i++;
	if (i == 0 || i != len || v < 1)
		return -EINVAL;
	((struct pmu *)arg)->mux_interval_ms = v;
	return 0;
}

static void sysfs_dir(const struct pmu *pmu, const char *dir,
		      const struct pmu_sysfs_entry *entries)
{
	char path[160];
	if (!entries)
		return;
	for (; entries->name; entries++) {
		snprintf(path, sizeof(path), "bus/event_source/devices/%s/%s/%s",
			 pmu->name, dir, entries->name);
		sysfs_register_string(path, entries->value);
	}
}

int perf_pmu_register(struct pmu *pmu, int type)
{
	char path[128];
	if (type < 0)
		type = (int)next_dynamic_type++;
	pmu->type = (uint32_t)type;
	if (!pmu->mux_interval_ms)
		pmu->mux_interval_ms = DEFAULT_MUX_INTERVAL_MS;
	list_add_tail(&pmu->node, &pmus);
	snprintf(path, sizeof(path), "bus/event_source/devices/%s/type", pmu->name);
	sysfs_register(path, gen_type, NULL, pmu);
	snprintf(path, sizeof(path), "bus/event_source/devices/%s/perf_event_mux_interval_ms",
		 pmu->name);
	sysfs_register(path, gen_mux, write_mux, pmu);
	if (pmu->cpus) {
		snprintf(path, sizeof(path), "bus/event_source/devices/%s/cpus", pmu->name);
		sysfs_register_string(path, pmu->cpus);
	}
	sysfs_dir(pmu, "format", pmu->format);
	sysfs_dir(pmu, "events", pmu->events);
	sysfs_dir(pmu, "caps", pmu->caps);
	return type;
}

struct pmu *perf_pmu_find(uint32_t type)
{
	if (type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE)
		type = PERF_TYPE_RAW;
	return find_type(type);
}

static bool filtered(const struct pmu *p, int cpu)
{
	return cpu >= 0 && p->filter && p->filter(p, (unsigned)cpu);
}

/* A HARDWARE/HW_CACHE event for `cpu` without a PMU type: the one at
 * PERF_TYPE_RAW, or, when it cannot count on that CPU (a hybrid CPU's
 * other core type), the first PMU taking such events that can - as
 * Linux's perf_init_event retries every PMU after cpu_core's ENOENT. */
static struct pmu *generic_pmu(int cpu)
{
	struct pmu *raw = find_type(PERF_TYPE_RAW);
	if (!raw || !filtered(raw, cpu))
		return raw;
	list_for_each(n, &pmus) {
		struct pmu *p = list_entry(n, struct pmu, node);
		if (p->extended_hw && !filtered(p, cpu))
			return p;
	}
	return raw;
}

struct pmu *perf_pmu_for_attr(struct perf_event_attr *attr, int cpu)
{
	if (attr->type != PERF_TYPE_HARDWARE && attr->type != PERF_TYPE_HW_CACHE)
		return find_type(attr->type);
	uint32_t type = (uint32_t)(attr->config >> PERF_PMU_TYPE_SHIFT);
	if (!type)
		return generic_pmu(cpu);
	struct pmu *p = find_type(type);
	if (!p || (type != PERF_TYPE_RAW && !p->extended_hw))
		return NULL;
	if (filtered(p, cpu))
		return NULL; /* Linux's x86_pmu_event_init: ENOENT */
	attr->config &= PERF_HW_EVENT_MASK;
	return p;
}

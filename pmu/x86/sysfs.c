/*
 * format/, events/ and caps/ of the x86 core PMUs (sysfs.h).
 */
#include <stdio.h>
#include "core/kernel.h"
#include "pmu/x86/msr.h"
#include "pmu/vpmu/vpmu.h"
#include "pmu/x86/sysfs.h"

void x86_sysfs_add(struct pmu_sysfs_entry *dir, const char *name, const char *value)
{
	while (dir->name)
		dir++;
	dir->name = name;
	dir->value = value;
}

/* Linux's generic events (arch/x86/events/core.c), in its order. */
static const struct { const char *name; unsigned id; } generic[] = {
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
};

void x86_sysfs_events(struct x86_sysfs *s, const uint64_t event_map[PERF_COUNT_HW_MAX])
{
	for (unsigned i = 0; i < ARRAY_SIZE(generic); i++) {
		uint64_t enc = event_map[generic[i].id];
		if (!enc)
			continue;
		char *text = s->text[i];
		size_t size = sizeof(s->text[i]);
		unsigned event = (unsigned)((enc & 0xff) | (enc >> 24 & 0xf00));
		unsigned umask = (unsigned)(enc >> 8 & 0xff);
		int n = snprintf(text, size, "event=0x%02x", event);
		if (umask)
			snprintf(text + n, size - (size_t)n, ",umask=0x%02x", umask);
		x86_sysfs_add(s->events, generic[i].name, text);
	}
}

void x86_sysfs_branches(struct x86_sysfs *s, unsigned depth)
{
	if (!depth)
		return;
	snprintf(s->branches, sizeof(s->branches), "%u", depth);
	x86_sysfs_add(s->caps, "branches", s->branches);
}

void x86_sysfs_model(struct x86_sysfs *s)
{
	if (!pmu_model_in_use())
		return;
	if (vpmu_icount_on())
		snprintf(s->model_clock, sizeof(s->model_clock), "icount %u", vpmu_icount_shift());
	else
		snprintf(s->model_clock, sizeof(s->model_clock), "tsc");
	x86_sysfs_add(s->caps, "model_clock", s->model_clock);
}

void x86_sysfs_attach(struct pmu *pmu, struct x86_sysfs *s)
{
	pmu->format = s->format;
	pmu->events = s->events;
	pmu->caps = s->caps;
}

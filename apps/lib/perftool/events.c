/* perf's symbolic event names: the generic hardware events, the
 * software events with their aliases, and raw rNNNN codes (hex). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "perftool.h"

struct named {
	const char *name;
	uint32_t type;
	uint64_t config;
};

#define HW(n, c) { n, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c }
#define SW(n, c) { n, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c }

static const struct named names[] = {
	HW("cpu-cycles", CPU_CYCLES),
	HW("cycles", CPU_CYCLES),
	HW("instructions", INSTRUCTIONS),
	HW("cache-references", CACHE_REFERENCES),
	HW("cache-misses", CACHE_MISSES),
	HW("branch-instructions", BRANCH_INSTRUCTIONS),
	HW("branches", BRANCH_INSTRUCTIONS),
	HW("branch-misses", BRANCH_MISSES),
	HW("bus-cycles", BUS_CYCLES),
	HW("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND),
	HW("idle-cycles-frontend", STALLED_CYCLES_FRONTEND),
	HW("stalled-cycles-backend", STALLED_CYCLES_BACKEND),
	HW("idle-cycles-backend", STALLED_CYCLES_BACKEND),
	HW("ref-cycles", REF_CPU_CYCLES),
	SW("cpu-clock", CPU_CLOCK),
	SW("task-clock", TASK_CLOCK),
	SW("page-faults", PAGE_FAULTS),
	SW("faults", PAGE_FAULTS),
	SW("context-switches", CONTEXT_SWITCHES),
	SW("cs", CONTEXT_SWITCHES),
	SW("cpu-migrations", CPU_MIGRATIONS),
	SW("migrations", CPU_MIGRATIONS),
	SW("minor-faults", PAGE_FAULTS_MIN),
	SW("major-faults", PAGE_FAULTS_MAJ),
	SW("alignment-faults", ALIGNMENT_FAULTS),
	SW("emulation-faults", EMULATION_FAULTS),
	SW("dummy", DUMMY),
	SW("bpf-output", BPF_OUTPUT),
	SW("cgroup-switches", CGROUP_SWITCHES),
};

/* rNNNN: PERF_TYPE_RAW with the hex digits as config. */
static bool raw_event(const char *name, struct perf_event_attr *attr)
{
	const char *p = name + 1;
	if (name[0] != 'r' || !*p)
		return false;
	for (const char *q = p; *q; q++)
		if (!isxdigit((unsigned char)*q))
			return false;
	attr->type = PERF_TYPE_RAW;
	attr->config = strtoull(p, NULL, 16);
	return true;
}

bool event_symbolic(const char *name, struct perf_event_attr *attr)
{
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(names[i].name, name) == 0) {
			attr->type = names[i].type;
			attr->config = names[i].config;
			return true;
		}
	}
	return raw_event(name, attr);
}

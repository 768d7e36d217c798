/*
 * User-space RDPMC, as on Linux x86: who may execute it (CR4.PCE per
 * task, /sys/bus/event_source/devices/cpu/rdpmc: 0 never, 1 tasks whose
 * mm maps a buffer of a cpu-PMU event, 2 always) and what the control
 * page tells a self-monitoring reader (index, offset, pmc_width,
 * cap_user_rdpmc). See rdpmc.c.
 */
#ifndef BAREMON_PMU_RDPMC_H
#define BAREMON_PMU_RDPMC_H

#include <stdbool.h>
#include <stdint.h>

struct perf_event;
struct task;
struct mm;

/* The control page's RDPMC fields for e, whose count is `count`. */
struct perf_rdpmc_fields {
	uint32_t index;    /* RDPMC's ECX + 1, 0: not on a counter */
	int64_t offset;    /* count - the counter's value (sign-extended) */
	uint16_t width;    /* counter bits */
	bool cap;          /* cap_user_rdpmc */
};
struct perf_rdpmc_fields perf_rdpmc_fields(const struct perf_event *e, uint64_t count);

/* Boot: the sysfs file (the cpu PMU registered); perf_rdpmc_sysfs puts
 * it under another core PMU's directory (cpu_core/, cpu_atom/): one
 * setting behind every copy. */
void perf_rdpmc_init(void);
void perf_rdpmc_sysfs(const char *pmu_name);
/* CR4.PCE for the task now running here. */
void perf_rdpmc_sched_in(struct task *next);
/* A buffer of e was mapped into mm: whether the mapping counts toward
 * RDPMC (e is a cpu-PMU event); perf_rdpmc_unmap when it goes. */
bool perf_rdpmc_map(const struct perf_event *e, struct mm *mm);
void perf_rdpmc_unmap(struct mm *mm);

#endif

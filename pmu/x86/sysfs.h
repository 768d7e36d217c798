/*
 * The sysfs directories of an x86 core PMU (format/, events/, caps/),
 * built the same way by the Intel and AMD drivers: one struct per
 * registered PMU holds the entries and the text they point to, so a
 * hybrid CPU's two PMUs each have their own. Filled at boot, before
 * user space, then only read.
 */
#ifndef BAREMON_PMU_X86_SYSFS_H
#define BAREMON_PMU_X86_SYSFS_H

#include <stdint.h>
#include "pmu/events/event.h"

#define X86_SYSFS_FORMAT 8
#define X86_SYSFS_EVENTS (PERF_COUNT_HW_MAX + 2)
#define X86_SYSFS_CAPS   4

/* Each array ends with a NULL name (one slot more than it may fill). */
struct x86_sysfs {
	struct pmu_sysfs_entry format[X86_SYSFS_FORMAT + 1];
	struct pmu_sysfs_entry events[X86_SYSFS_EVENTS + 1];
	struct pmu_sysfs_entry caps[X86_SYSFS_CAPS + 1];
	char text[X86_SYSFS_EVENTS][32];   /* events/ values */
	char branches[12];                 /* caps/branches' value */
	char model_clock[24];              /* caps/model_clock's value */
};

/* Append name = value to a directory (value must outlive it). */
void x86_sysfs_add(struct pmu_sysfs_entry *dir, const char *name, const char *value);
/* events/: Linux's generic-event names, in Linux's order, for each
 * PERF_COUNT_HW_* that has an encoding in event_map (0: none), written
 * as Linux's x86 event_sysfs_show: "event=0x76" with the 12-bit event
 * number (bits 0-7 and 32-35), then ",umask=0x.." when there is one. */
void x86_sysfs_events(struct x86_sysfs *s, const uint64_t event_map[PERF_COUNT_HW_MAX]);
/* caps/branches: the branch-stack depth, as Linux's x86_pmu.lbr_nr
 * (the package's, so alike on a hybrid CPU's two PMUs); none without
 * branch stacks (depth 0), as Linux hides it then. */
void x86_sysfs_branches(struct x86_sysfs *s, unsigned depth);
/* Point pmu's format/, events/ and caps/ at s. */
void x86_sysfs_attach(struct pmu *pmu, struct x86_sysfs *s);
/* caps/model_clock, on the software model only (Linux has no such file):
 * what its cycles are and whether instructions come from a clock -
 * "icount N" (QEMU's instruction clock, 2^N TSC ticks an instruction;
 * instructions exact and not stepped) or "tsc" (instructions and
 * branches are counted by single-stepping the user code). The tools
 * read it for their notes (apps/lib/perftool/modelnote.c). */
void x86_sysfs_model(struct x86_sysfs *s);

#endif

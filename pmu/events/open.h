/*
 * What perf_event_open's two paths share: the full path (core.c's
 * event_open) and the lean open of a plain counting software event on
 * the caller (open_self_count.c).
 */
#ifndef BAREMON_PMU_OPEN_H
#define BAREMON_PMU_OPEN_H

#include <stdbool.h>
#include "event.h"
#include "core/mm/mm.h"

/* Freed events, for the next open (mm.h's object caches): event_free
 * puts an event there. */
extern struct heap_cache perf_event_cache;
/* e's file, read-write, on the shared anonymous inode, holding e: its
 * release frees e. NULL when out of memory. */
struct file *perf_event_file(struct perf_event *e);
/* Would the full path's attr, permission, target and PMU checks pass
 * attr for an event of the caller on the software PMU? (The lean
 * open's debug-build cross-check.) */
bool perf_open_checks_pass(const struct perf_event_attr *attr);
/* Register the lean open (boot, once). */
void perf_open_lean_init(void);

#endif

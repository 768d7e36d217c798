/*
 * The breakpoint PMU (type PERF_TYPE_BREAKPOINT): hardware breakpoints
 * and watchpoints on DR0-DR3. See docs/breakpoints.md.
 *
 *   breakpoint.c  the PMU: event_init, add/del (the debug registers of
 *                 this CPU), the #DB handler that reports hits
 *   attr.c        what a breakpoint may be (Linux's errnos) and
 *                 PERF_EVENT_IOC_MODIFY_ATTRIBUTES
 *   slots.c       open-time accounting of the four registers (ENOSPC)
 */
#ifndef BAREMON_PMU_BREAKPOINT_H
#define BAREMON_PMU_BREAKPOINT_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct perf_event;

extern struct pmu perf_bp_pmu;

/* breakpoint.c */
/* DR7's bits for debug register n holding the breakpoint `a` describes
 * (enable bit, R/W and LEN fields). */
uint64_t bp_dr7_bits(int n, const struct perf_event_attr *a);
/* Does [start, end) hold data the #DB path or exception delivery
 * touches (this PMU's own state included)? A breakpoint there is
 * EINVAL, as Linux refuses its CPU entry area. */
bool bp_unsafe_range(uint64_t start, uint64_t end);
/* Every CPU reloads its debug registers from its events' attrs (after
 * MODIFY_ATTRIBUTES changed them). Caller must not hold perf_lock. */
void bp_reload_all(void);

/* attr.c */
/* Linux's hw_breakpoint_parse: the address, type and length checks of
 * x86 and who may watch the kernel. 0 or -EINVAL, -EOPNOTSUPP, -EPERM.
 * Uses current's credentials. */
int bp_parse(const struct perf_event_attr *a);
/* PERF_EVENT_IOC_MODIFY_ATTRIBUTES with the attr at user address uattr:
 * 0 or -errno as Linux (EINVAL for events other than breakpoints). Not
 * under perf_lock. */
long perf_bp_modify(struct perf_event *e, uint64_t uattr);

/* slots.c */
/* Would e fit beside the breakpoints already open wherever it may be
 * installed? 0 or -ENOSPC. Not under perf_lock or task_lock. */
int bp_reserve(const struct perf_event *e);

#endif

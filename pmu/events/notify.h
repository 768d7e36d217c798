/*
 * What an overflow tells user space (notify.c): the O_ASYNC signal to
 * the fd's owner, PERF_EVENT_IOC_REFRESH's overflow limit, attr.sigtrap;
 * and the baremon period jitter (jitter.c).
 */
#ifndef BAREMON_PMU_NOTIFY_H
#define BAREMON_PMU_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

struct perf_event;
struct perf_hit;
struct file;

/* Step 3 of perf_event_overflow, under perf_lock on the overflow's CPU:
 * count the REFRESH limit down, queue the SIGTRAP, owe the owner its
 * signal. True when the limit was reached (stop sampling now). */
bool perf_notify_overflow(struct perf_event *e, const struct perf_hit *hit);
/* Do what overflows on this CPU left owed: disable events at their
 * limit, signal owners. From perf_wakeup_pending: not under perf_lock,
 * nor under a run-queue or wait-queue lock. */
void perf_notify_pending(void);
/* Does this CPU owe perf_notify_pending() some work? NMI-safe. */
bool perf_notify_owed(void);
/* PERF_EVENT_IOC_REFRESH: n more overflows, then enable. */
long perf_refresh(struct perf_event *e, int n);
/* file_ops.fasync of a perf fd. */
int perf_fasync(struct file *f, int fd, bool on);

/* baremon's PERF_EVENT_IOC_BAREMON_JITTER (jitter.c): outside Linux's
 * '$' numbers 0..0x0b. */
#define PERF_EVENT_IOC_BAREMON_JITTER _IOW('$', 0x80, __u64)
long perf_set_jitter(struct perf_event *e, uint64_t uarg);
/* The next period to count down (sets e->last_period). Under perf_lock. */
uint64_t perf_next_period(struct perf_event *e);

#endif

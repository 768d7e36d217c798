/*
 * perf_event_open.h: the perf_event_open(2) system call, which no C
 * library wraps (libc-lite, user programs). The attr structure and the
 * PERF_* constants come from <linux/perf_event.h>.
 */
#ifndef LIBC_LITE_PERF_EVENT_OPEN_H
#define LIBC_LITE_PERF_EVENT_OPEN_H

#include <sys/types.h>
#include <linux/perf_event.h>

/* Returns a file descriptor, or -1 with errno set. */
int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
                    int group_fd, unsigned long flags);

#endif

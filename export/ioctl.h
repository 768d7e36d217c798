/* baremon's PERF_EVENT_IOC_BAREMON_EXPORT; see ioctl.c. */
#ifndef BAREMON_PMU_EXPORT_H
#define BAREMON_PMU_EXPORT_H

#include <stdint.h>
#include <linux/ioctl.h>

struct perf_event;

/* Outside Linux's '$' numbers 0..0x0b, after JITTER (0x80). */
#define PERF_EVENT_IOC_BAREMON_EXPORT _IO('$', 0x81)
long perf_export_ioctl(struct perf_event *e, uint64_t arg);

#endif

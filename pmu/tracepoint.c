/*
 * The tracepoint PMU (type PERF_TYPE_TRACEPOINT): attr.config is a
 * tracepoint id from /sys/kernel/tracing/events/<group>/<name>/id. No
 * tracepoint is defined yet (sampling issue), so every id is unknown:
 * EINVAL, as Linux answers for an id no tracepoint has.
 */
#include <linux/errno.h>
#include "event.h"

static int tp_init(struct perf_event *e)
{
	if (e->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;
	return -EINVAL;
}

struct pmu perf_tracepoint_pmu = {
	.name = "tracepoint",
	.event_init = tp_init,
};

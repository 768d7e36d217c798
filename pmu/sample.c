/*
 * Occurrences reported by event sources (sample.h). Counting events add
 * to their count.
 */
#include "event.h"
#include "sample.h"

void perf_event_hit(struct perf_event *e, uint64_t n, const struct perf_hit *hit)
{
	(void)hit;
	e->count += n;
}

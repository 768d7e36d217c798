/*
 * The one path every sample takes: an event's period ran out (a
 * software occurrence, a clock event's timer, a hardware counter's
 * overflow interrupt) and perf_event_overflow decides what follows, in
 * Linux's order (__perf_event_overflow):
 *
 *   1. throttling (throttle.c): count this interrupt against
 *      perf_event_max_sample_rate; an event throttled now still writes
 *      this sample, one already throttled writes nothing;
 *   2. the SAMPLE record into the event's ring buffer;
 *   3. notification (notify.c): REFRESH's event_limit, sigtrap, O_ASYNC
 *      signals.
 *
 * Calling rule: as perf_event_hit (hit.h): perf_lock held, interrupts
 * off, on the CPU where it happened, for an ACTIVE event.
 */
#include "event.h"
#include "notify.h"
#include "pmu/records/records.h"
#include "hit.h"
#include "throttle.h"

bool perf_event_overflow_at(struct perf_event *e, const struct perf_hit *hit,
			    uint64_t period, bool throttle)
{
	if (!perf_is_sampling(e))
		return false;
	if (perf_throttled(e))
		return true; /* until the tick unthrottles it */
	bool stop = perf_throttle_account(e, throttle);
	perf_output_sample(e, hit, period);
	stop |= perf_notify_overflow(e, hit); /* 3: notify.c */
	return stop;
}

bool perf_event_overflow(struct perf_event *e, const struct perf_hit *hit, uint64_t period)
{
	return perf_event_overflow_at(e, hit, period, true);
}

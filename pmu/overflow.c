/*
 * The one path every sample takes: an event's period ran out (a
 * software occurrence, a clock event's timer, a hardware counter's
 * overflow interrupt) and perf_event_overflow decides what follows, in
 * Linux's order (__perf_event_overflow):
 *
 *   1. throttling: count this interrupt against perf_event_max_sample_rate;
 *   2. the SAMPLE record into the event's ring buffer;
 *   3. notification: REFRESH's event_limit, sigtrap, O_ASYNC signals.
 *
 * Calling rule: as perf_event_hit (sample.h): perf_lock held, interrupts
 * off, on the CPU where it happened, for an ACTIVE event.
 */
#include "event.h"
#include "notify.h"
#include "ringbuf.h"
#include "sample.h"

bool perf_event_overflow(struct perf_event *e, const struct perf_hit *hit, uint64_t period)
{
	bool stop = false;
	perf_output_sample(e, hit, period);
	stop |= perf_notify_overflow(e, hit); /* 3: notify.c */
	return stop;
}

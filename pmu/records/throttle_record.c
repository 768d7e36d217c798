/*
 * PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE (Linux's
 * perf_log_throttle): header, time (the event's clock), id (the
 * original's for an inherited copy), stream_id (the event's own), then
 * with attr.sample_id_all the sample_id trailer of the current task
 * (sample_id.c).
 *
 * Called by pmu/events/throttle.c under perf_lock with interrupts off (from an
 * overflow interrupt or the tick); writes nothing when the event has no
 * buffer.
 */
#include "pmu/events/event.h"
#include "records.h"

void perf_record_throttle(struct perf_event *e, bool unthrottle)
{
	struct {
		struct perf_event_header h;
		uint64_t time, id, stream_id;
	} rec;
	uint32_t size = sizeof(rec) + perf_sample_id_size(e);
	struct rb_output o;
	if (!perf_output_begin(&o, e, size))
		return;
	rec.h.type = unthrottle ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE;
	rec.h.misc = 0;
	rec.h.size = (uint16_t)size;
	rec.time = perf_event_clock(e);
	rec.id = e->id;
	rec.stream_id = e->stream_id;
	rb_output_copy(&o, &rec, sizeof(rec));
	perf_put_sample_id(&o, e);
	perf_output_end(&o, e, false);
}

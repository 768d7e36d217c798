/*
 * PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE (Linux's
 * perf_log_throttle): header, time, id (the original event's id for an
 * inherited copy), stream_id (the event's own), then with
 * attr.sample_id_all the sample_id trailer (TID, TIME, ID, STREAM_ID,
 * CPU, IDENTIFIER as sample_type selects) of the current task.
 *
 * Called by pmu/throttle.c under perf_lock with interrupts off (from an
 * overflow interrupt or the tick); writes nothing when the event has no
 * buffer.
 */
#include "event.h"
#include "kernel.h"
#include "percpu.h"
#include "ringbuf.h"
#include "task.h"
#include "throttle.h"
#include "tsc.h"

#define ID_TRAILER_TYPES (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
			  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

static uint64_t primary_id(const struct perf_event *e)
{
	return e->parent ? e->parent->id : e->id;
}

static uint32_t trailer_size(const struct perf_event *e)
{
	if (!e->attr.sample_id_all)
		return 0;
	return 8 * popcount64(e->attr.sample_type & ID_TRAILER_TYPES);
}

static void put(struct perf_output *o, uint64_t v)
{
	rb_output_copy(o, &v, 8);
}

/* The trailer, in Linux's order (__perf_event__output_id_sample). */
static void put_trailer(struct perf_output *o, const struct perf_event *e, uint64_t time)
{
	uint64_t t = e->attr.sample_type;
	struct task *cur = current;
	if (!e->attr.sample_id_all)
		return;
	if (t & PERF_SAMPLE_TID)
		put(o, cur ? (uint64_t)(uint32_t)cur->tid << 32 | (uint32_t)cur->tgid : 0);
	if (t & PERF_SAMPLE_TIME)
		put(o, time);
	if (t & PERF_SAMPLE_ID)
		put(o, primary_id(e));
	if (t & PERF_SAMPLE_STREAM_ID)
		put(o, e->id);
	if (t & PERF_SAMPLE_CPU)
		put(o, this_cpu_id());
	if (t & PERF_SAMPLE_IDENTIFIER)
		put(o, primary_id(e));
}

void perf_record_throttle(struct perf_event *e, bool unthrottle)
{
	struct {
		struct perf_event_header h;
		uint64_t time, id, stream_id;
	} rec;
	uint32_t size = sizeof(rec) + trailer_size(e);
	struct perf_output o;
	if (!rb_output_begin(&o, e, size))
		return;
	rec.h.type = unthrottle ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE;
	rec.h.misc = 0;
	rec.h.size = (uint16_t)size;
	rec.time = time_since_boot_ns();
	rec.id = primary_id(e);
	rec.stream_id = e->id;
	rb_output_copy(&o, &rec, sizeof(rec));
	put_trailer(&o, e, rec.time);
	rb_output_end(&o, e, false);
}

/*
 * The sample_id trailer that ends every non-sample record of an event
 * with attr.sample_id_all: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER as
 * sample_type selects, in that order (Linux's
 * perf_event__output_id_sample). TID is the current task's, TIME the
 * event's clock (clock.c).
 */
#include "pmu/events/event.h"
#include "core/kernel.h"
#include "core/arch/percpu.h"
#include "records.h"
#include "core/proc/task.h"

#define ID_TRAILER_TYPES (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
			  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

uint32_t perf_sample_id_size(const struct perf_event *e)
{
	if (!e->attr.sample_id_all)
		return 0;
	return 8 * popcount64(e->attr.sample_type & ID_TRAILER_TYPES);
}

void perf_put_sample_id(struct rb_output *o, const struct perf_event *e)
{
	uint64_t t = e->attr.sample_type, v;
	struct task *cur = current;
	if (!e->attr.sample_id_all)
		return;
	if (t & PERF_SAMPLE_TID) {
		v = (uint64_t)(uint32_t)cur->tid << 32 | (uint32_t)cur->tgid;
		rb_output_copy(o, &v, 8);
	}
	if (t & PERF_SAMPLE_TIME) {
		v = perf_event_clock(e);
		rb_output_copy(o, &v, 8);
	}
	if (t & PERF_SAMPLE_ID)
		rb_output_copy(o, &e->id, 8);
	if (t & PERF_SAMPLE_STREAM_ID)
		rb_output_copy(o, &e->stream_id, 8);
	if (t & PERF_SAMPLE_CPU) {
		v = this_cpu_id();
		rb_output_copy(o, &v, 8);
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		rb_output_copy(o, &e->id, 8);
}

/*
 * PERF_RECORD_READ (attr.inherit_stat), Linux's perf_event_read_event:
 * when an inherited copy of an event leaves its task (the task exits,
 * or remove_on_exec at exec), the copy's read_format values go into the
 * original's buffer as {header, pid, tid, values, sample_id}: pid/tid of
 * the copy's task, the values as read() of the copy would give them
 * (its count and times, its own inherited children's included; ID the
 * original's).
 *
 * Under perf_lock, from the exiting (or exec'ing) task itself, before
 * the copy is folded into its parent.
 */
#include "pmu/events/event.h"
#include "core/kernel.h"
#include "records.h"
#include "core/proc/task.h"

void perf_record_read(struct perf_event *c)
{
	uint64_t values[64];
	int n = perf_read_size(c);
	if (!c->attr.inherit_stat || !c->task || n <= 0 || n > (int)sizeof(values))
		return;
	perf_format_read(c, values);
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
	} rec = { { PERF_RECORD_READ, 0, 0 }, (uint32_t)c->task->tgid, (uint32_t)c->task->tid };
	rec.h.size = (uint16_t)(sizeof(rec) + (uint32_t)n + perf_sample_id_size(c));
	struct rb_output o;
	if (!perf_output_begin(&o, c, rec.h.size))
		return;
	rb_output_copy(&o, &rec, sizeof(rec));
	rb_output_copy(&o, values, (uint32_t)n);
	perf_put_sample_id(&o, c);
	perf_output_end(&o, c, false);
}

/*
 * An event's records into the ring buffer (ringbuf/write.c): which
 * buffer, what the event's attr asks of it (direction, wake-ups), and
 * the PERF_RECORD_LOST {header, id, lost, sample_id} that reports the
 * records the buffer dropped, written just before the next one that
 * fits (Linux's __perf_output_begin).
 */
#include "pmu/events/event.h"
#include "records.h"

static struct perf_event *root_of(const struct perf_event *e)
{
	while (e->parent) /* inherited copies write to the original's */
		e = e->parent;
	return (struct perf_event *)e;
}

struct ring_buffer *perf_event_buffer(const struct perf_event *e)
{
	return root_of(e)->rb;
}

static uint32_t lost_size(struct perf_event *root)
{
	return 3 * sizeof(uint64_t) + perf_sample_id_size(root);
}

static void put_lost(struct rb_output *o, struct perf_event *root)
{
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
	} rec = { { PERF_RECORD_LOST, 0, (uint16_t)lost_size(root) }, root->id, o->lost };
	rb_output_copy(o, &rec, sizeof(rec));
	perf_put_sample_id(o, root);
}

bool perf_output_begin(struct rb_output *o, struct perf_event *e, uint32_t size)
{
	struct perf_event *root = root_of(e);
	if (!rb_has_data(root->rb))
		return false;
	if (!rb_output_begin(o, root->rb, size, lost_size(root), e->attr.write_backward)) {
		root->lost_samples++; /* PERF_FORMAT_LOST, as Linux */
		return false;
	}
	if (o->lost_record)
		put_lost(o, root);
	return true;
}

/* Linux's wake-up rules: every wakeup_events samples (without
 * attr.watermark), and past wakeup_watermark (with it). */
void perf_output_end(struct rb_output *o, struct perf_event *e, bool sample)
{
	const struct perf_event_attr *a = &e->attr;
	uint32_t events = !a->watermark && sample ? a->wakeup_events : 0;
	uint64_t watermark = a->watermark ? a->wakeup_watermark : 0;
	rb_output_end(o, events, watermark);
}

/*
 * PERF_EVENT_IOC_BAREMON_EXPORT (docs/export.md, "The exporter"): the
 * event side of the kernel's exporter (export/exporter.c). arg 1
 * starts exporting the event's ring buffer (mapped writable: the
 * exporter then owns data_tail; the mapper must not read the ring) and
 * returns its channel; arg 0 sends what is left and the END frame,
 * sleeping until the line took it. Linux has no such request (ENOTTY
 * there).
 *
 * Locking: e->rb is read, and a reference taken, under perf_lock; the
 * exporter is called outside it (it allocates nothing but sleeps).
 */
#include <linux/errno.h>
#include "pmu/events/event.h"
#include "export/ioctl.h"
#include "export/exporter.h"

/* The event's buffer with a reference, or NULL. */
static struct ring_buffer *event_rb(struct perf_event *e, uint64_t *lost)
{
	uint64_t f = spin_lock_irqsave(&perf_lock);
	struct ring_buffer *rb = e->rb;
	if (rb) {
		rb_get(rb);
		*lost = rb->lost;
	}
	spin_unlock_irqrestore(&perf_lock, f);
	return rb;
}

long perf_export_ioctl(struct perf_event *e, uint64_t arg)
{
	if (arg > 1)
		return -EINVAL;
	uint64_t lost = 0;
	struct ring_buffer *rb = event_rb(e, &lost);
	if (!rb)
		return -EINVAL;   /* not mapped: nothing to export */
	long r = arg ? rb_export_start(rb) : rb_export_stop(rb, lost);
	rb_put(rb);
	return r;
}

/*
 * Redirecting an event's records into another event's buffer
 * (PERF_FLAG_FD_OUTPUT at open, PERF_EVENT_IOC_SET_OUTPUT), with Linux's
 * restrictions, each EINVAL: not into itself, same CPU, same task for
 * per-task events, same clock, same direction (write_backward), the
 * target mapped, and the event not mapped itself.
 */
#include <linux/errno.h>
#include "pmu/event.h"
#include "ringbuf.h"

static bool compatible(const struct perf_event *e, const struct perf_event *out)
{
	if (out == e || out->cpu != e->cpu)
		return false;
	if (out->cpu == -1 && out->task != e->task)
		return false;
	if (out->attr.use_clockid != e->attr.use_clockid ||
	    (e->attr.use_clockid && out->attr.clockid != e->attr.clockid))
		return false;
	return out->attr.write_backward == e->attr.write_backward;
}

static bool mapped(const struct perf_buffer *rb)
{
	return rb && __atomic_load_n(&rb->mmap_count, __ATOMIC_ACQUIRE) > 0;
}

int rb_set_output(struct perf_event *e, struct perf_event *out)
{
	int r = -EINVAL;
	uint64_t f = spin_lock_irqsave(&perf_lock);
	if ((!out || compatible(e, out)) && !mapped(e->rb) && (!out || mapped(out->rb))) {
		if (e->rb)
			rb_put(e->rb);
		e->rb = out ? out->rb : NULL;
		if (e->rb)
			__atomic_add_fetch(&e->rb->refs, 1, __ATOMIC_ACQ_REL);
		r = 0;
	}
	spin_unlock_irqrestore(&perf_lock, f);
	return r;
}

/* Linux's PAUSE_OUTPUT: on the buffer e writes to (its own or the one
 * SET_OUTPUT gave it), not on e; EINVAL without data pages. While
 * paused every record is dropped and counted (write.c); the count goes
 * out as one LOST record before the first record after resuming. */
int rb_pause(struct perf_event *e, bool pause)
{
	int r = -EINVAL;
	uint64_t f = spin_lock_irqsave(&perf_lock);
	struct perf_buffer *rb = e->rb;
	if (rb && rb->nr_pages) {
		rb->paused = pause;
		r = 0;
	}
	spin_unlock_irqrestore(&perf_lock, f);
	return r;
}

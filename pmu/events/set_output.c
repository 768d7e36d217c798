/*
 * Redirecting an event's records into another event's buffer
 * (PERF_FLAG_FD_OUTPUT at open, PERF_EVENT_IOC_SET_OUTPUT), with Linux's
 * restrictions, each EINVAL: not into itself, same CPU, same task for
 * per-task events, same clock, same direction (write_backward), the
 * target mapped, and the event not mapped itself (the last two are the
 * buffers' rules: ringbuf/redirect.c). And PAUSE_OUTPUT on the buffer
 * an event writes to.
 */
#include <linux/errno.h>
#include "event.h"
#include "ringbuf/ringbuf.h"

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

int perf_event_set_output(struct perf_event *e, struct perf_event *out)
{
	int r = -EINVAL;
	uint64_t f = spin_lock_irqsave(&perf_lock);
	if (!out) /* back to no buffer */
		r = rb_redirect(&e->rb, NULL);
	else if (compatible(e, out) && out->rb) /* out has one to share */
		r = rb_redirect(&e->rb, out->rb);
	spin_unlock_irqrestore(&perf_lock, f);
	return r;
}

/* Linux's PAUSE_OUTPUT: on the buffer e writes to (its own or the one
 * SET_OUTPUT gave it), not on e; EINVAL without data pages. While
 * paused every record is dropped and counted (ringbuf/write.c); the
 * count goes out as one LOST record before the first record after
 * resuming (records/output.c). */
int perf_event_pause_output(struct perf_event *e, bool pause)
{
	uint64_t f = spin_lock_irqsave(&perf_lock);
	int r = e->rb ? rb_set_paused(e->rb, pause) : -EINVAL;
	spin_unlock_irqrestore(&perf_lock, f);
	return r;
}

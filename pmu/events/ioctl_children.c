/*
 * ENABLE, DISABLE and RESET reach an event's inherited copies, as
 * Linux's _perf_ioctl does (perf_event_for_each_child; with
 * PERF_IOC_FLAG_GROUP, perf_event_for_each: every member's copies). The
 * copies of an event all hang off the original (inherit.c), so one walk
 * of its child_list finds them, grandchildren's included.
 *
 * Locking: the copies are taken (event_get_live) under perf_lock and
 * changed after it is dropped, since event_enable and its kin take it
 * themselves and may wait for another CPU; a copy whose task exits
 * meanwhile is folded and freed only at its last put.
 */
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "event.h"
#include "pmu/perf.h"

/* e's live copies, each with a reference; their number (0: none, or no
 * memory for the list - then they keep their state, as before). */
static unsigned take_copies(struct perf_event *e, struct perf_event ***out)
{
	uint64_t f = spin_lock_irqsave(&perf_lock);
	unsigned n = 0;
	list_for_each(p, &e->child_list)
		n++;
	spin_unlock_irqrestore(&perf_lock, f);
	if (!n)
		return 0;
	struct perf_event **v = kmalloc(n * sizeof(*v));
	if (!v)
		return 0;
	unsigned got = 0;
	f = spin_lock_irqsave(&perf_lock);
	list_for_each(p, &e->child_list) {
		struct perf_event *c = list_entry(p, struct perf_event, child_node);
		if (got < n && event_get_live(c))
			v[got++] = c;
	}
	spin_unlock_irqrestore(&perf_lock, f);
	*out = v;
	return got;
}

void event_control_copies(struct perf_event *e, void (*fn)(struct perf_event *, bool),
			  bool group)
{
	struct perf_event **v = NULL;
	unsigned n = take_copies(e, &v);
	for (unsigned i = 0; i < n; i++) {
		fn(v[i], group);
		event_put(v[i]);
	}
	kfree(v);
}

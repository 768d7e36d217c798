/*
 * The control page of a perf buffer (struct perf_event_mmap_page): what
 * a self-monitoring reader needs without a system call. The event fills
 * its fields under the page's seqlock (ringbuf/control_page.c: `lock`
 * odd while writing) whenever it goes on or off the counters and at
 * mmap; readers retry while it changes. The ring owns data_head,
 * data_tail, data_offset and data_size.
 *
 * Time: cap_user_time and cap_user_time_zero with the TSC's time_mult /
 * time_shift; time_zero makes `time_zero + ns(tsc)` the perf clock (ns
 * since boot), time_offset extrapolates time_enabled/time_running from
 * the last update (Linux's documented formulas). RDPMC: index, offset,
 * pmc_width and cap_user_rdpmc from pmu/x86/rdpmc.c (index 0 while the event
 * is on no counter: offset is then the whole count).
 */
#include "event.h"
#include "pmu/x86/rdpmc.h"
#include "ringbuf/ringbuf.h"
#include "core/arch/tsc.h"
#include "core/arch/x86.h"

void perf_event_update_userpage(struct perf_event *e, uint64_t now)
{
	uint32_t mult;
	uint16_t shift;
	uint64_t zero;
	tsc_time_params(&mult, &shift, &zero);
	uint64_t count = e->state == EVENT_ACTIVE ? e->pmu->read(e, now) : e->count;
	struct perf_event_mmap_page *p = rb_userpage_begin(e->rb);
	struct perf_rdpmc_fields rd = perf_rdpmc_fields(e, count);
	p->index = rd.index;
	p->offset = rd.offset;
	p->pmc_width = rd.width;
	p->time_enabled = e->enabled_ns;
	p->time_running = e->running_ns;
	p->cap_bit0_is_deprecated = 1;
	p->cap_user_rdpmc = rd.cap;
	p->cap_user_time = mult != 0;
	p->time_mult = mult;
	p->time_shift = shift;
	/* Records stamped with another clock (use_clockid): time_zero
	 * would not convert to their times; Linux leaves it unset. */
	p->cap_user_time_zero = mult != 0 && !e->attr.use_clockid;
	if (!e->attr.use_clockid)
		p->time_zero = zero;
	/* enabled += time_offset + ns(tsc): the time since this update. */
	p->time_offset = zero - now; /* -(ns(tsc) now) */
	rb_userpage_end(e->rb);
}

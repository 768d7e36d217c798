/*
 * The software PMU (type PERF_TYPE_SOFTWARE): clocks from the TSC while
 * the event is active, everything else counted by perf_sw_event() at the
 * place the kernel sees it (page faults, context switches, migrations).
 * Events baremon cannot see on x86 (alignment and emulation faults) stay
 * at 0, as on x86 Linux; bpf-output and dummy never count.
 */
#include <linux/errno.h>
#include "pmu/events/event.h"
#include "core/kernel.h"
#include "core/arch/percpu.h"
#include "pmu/perf.h"
#include "pmu/events/hit.h"
#include "sw.h"
#include "core/proc/task.h"
#include "core/arch/tsc.h"

static int sw_init(struct perf_event *e)
{
	if (e->attr.config >= PERF_COUNT_SW_MAX)
		return -ENOENT;
	if (e->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;
	return 0;
}

/* Software events need no counter: there is always room. */
static int sw_add(struct perf_event *e, uint64_t now)
{
	perf_sw_start(e, now);
	return 0;
}

static uint64_t sw_read(struct perf_event *e, uint64_t now)
{
	return perf_sw_read(e, now);
}

struct pmu perf_sw_pmu = {
	.name = "software",
	.event_init = sw_init,
	.add = sw_add,
	.del = perf_sw_stop,
	.start = perf_sw_start,
	.stop = perf_sw_stop,
	.read = sw_read,
};

static bool excluded(const struct perf_event *e, enum perf_sw_where where)
{
	return (where == PERF_SW_USER && e->attr.exclude_user) ||
	       (where == PERF_SW_KERNEL && e->attr.exclude_kernel);
}

/* Add n to the active events of `config` in one context list. */
static void count_in(struct list *events, unsigned config, uint64_t n,
		     enum perf_sw_where where, const struct perf_hit *hit)
{
	list_for_each(node, events) {
		struct perf_event *l = list_entry(node, struct perf_event, ctx_node);
		struct perf_event *e = l;
		struct list *next_sib = l->siblings.next;
		for (;;) {
			if (e->state == EVENT_ACTIVE && e->pmu == &perf_sw_pmu &&
			    e->attr.config == config && !excluded(e, where))
				perf_event_hit(e, n, hit);
			if (next_sib == &l->siblings)
				break;
			e = list_entry(next_sib, struct perf_event, sibling_node);
			next_sib = next_sib->next;
		}
	}
}

void perf_sw_event(unsigned config, uint64_t n, enum perf_sw_where where)
{
	perf_sw_event_at(config, n, where, NULL);
}

void perf_sw_event_at(unsigned config, uint64_t n, enum perf_sw_where where,
		      const struct perf_hit *hit)
{
	struct task *t = current;
	struct list *cpu_list = perf_cpu_events(this_cpu_id());
	if ((!t || list_empty(&t->perf_events)) && list_empty(cpu_list))
		return;
	uint64_t f = spin_lock_irqsave(&perf_lock);
	if (t)
		count_in(&t->perf_events, config, n, where, hit);
	count_in(cpu_list, config, n, where, hit);
	spin_unlock_irqrestore(&perf_lock, f);
}

void perf_sw_event_locked(struct task *t, unsigned config, uint64_t n,
			  enum perf_sw_where where)
{
	if (!list_empty(&t->perf_events))
		count_in(&t->perf_events, config, n, where, NULL);
	struct list *cpu_list = perf_cpu_events(this_cpu_id());
	if (!list_empty(cpu_list))
		count_in(cpu_list, config, n, where, NULL);
}

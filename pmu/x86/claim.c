/*
 * Counter ownership and group fitting of the x86 core PMUs
 * (claim.h).
 */
#include "pmu/x86/claim.h"

#define HW_ON_COUNTER (1ULL << 0)  /* e->hw.idx is e's counter */

void x86_claim(struct x86_counters *c, struct perf_event *e, int idx)
{
	c->owner[idx] = e;
	c->used |= 1ULL << idx;
	e->hw.idx = idx;
	e->hw.flags = HW_ON_COUNTER;
}

void x86_release(struct x86_counters *c, struct perf_event *e)
{
	int idx = e->hw.idx;
	c->owner[idx] = NULL;
	c->used &= ~(1ULL << idx);
	c->active &= ~(1ULL << idx);
	e->hw.idx = -1;
	e->hw.flags = 0;
}

bool x86_owns(const struct x86_counters *c, const struct perf_event *e)
{
	int idx = e->hw.idx;
	return (e->hw.flags & HW_ON_COUNTER) && idx >= 0 && idx < X86_MAX_IDX &&
	       c->owner[idx] == e;
}

bool x86_is_active(const struct x86_counters *c, const struct perf_event *e)
{
	return c->active >> e->hw.idx & 1;
}

static bool take(const struct pmu *pmu, x86_pick_fn pick, uint64_t *used,
		 const struct perf_event *e)
{
	if (e->pmu != pmu)
		return true; /* another PMU's event needs none of these */
	int idx = pick(e, *used);
	if (idx < 0)
		return false;
	*used |= 1ULL << idx;
	return true;
}

bool x86_group_fits(const struct pmu *pmu, x86_pick_fn pick, struct perf_event *leader,
		    struct perf_event *extra)
{
	uint64_t used = 0;
	if (!take(pmu, pick, &used, leader))
		return false;
	list_for_each(n, &leader->siblings)
		if (!take(pmu, pick, &used, list_entry(n, struct perf_event, sibling_node)))
			return false;
	return !extra || take(pmu, pick, &used, extra);
}

/*
 * The x86 drivers' shared self-test set-up (test_setup.h).
 */
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "pmu/x86/claim.h"
#include "pmu/x86/core.h"
#include "pmu/x86/msr.h"
#include "pmu/x86/test_setup.h"

bool x86_test_usable(struct selftest_ctx *t, bool registered, const char *what,
		     bool (*busy)(void))
{
	if (!registered) {
		ST_SKIP(t, "no %s PMU", what);
		return false;
	}
	if (busy && busy()) {
		ST_FAIL(t, "events hold this CPU's counters");
		return false;
	}
	return true;
}

struct perf_event *x86_test_event(struct pmu *pmu, uint32_t type, uint64_t config)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .type = type, .config = config };
	struct perf_event *e = event_alloc(&attr, NULL, -1, EVENT_INACTIVE);
	BUG_ON(!e);
	e->pmu = type == PERF_TYPE_SOFTWARE ? &perf_sw_pmu : pmu;
	return e;
}

int x86_test_init_errno(struct pmu *pmu, uint32_t type, uint64_t config,
			void (*tweak)(struct perf_event_attr *))
{
	struct perf_event *e = x86_test_event(pmu, type, config);
	if (tweak)
		tweak(&e->attr);
	int r = pmu->event_init(e);
	event_free(e); /* with what event_init took */
	return r;
}

int x86_test_branch_errno(struct pmu *pmu, uint64_t config, uint64_t bst, uint64_t period)
{
	struct perf_event *e = x86_test_event(pmu, PERF_TYPE_RAW, config);
	e->attr.sample_period = period;
	e->attr.exclude_kernel = 1;
	e->attr.sample_type = PERF_SAMPLE_BRANCH_STACK;
	e->attr.branch_sample_type = bst;
	int r = pmu->event_init(e);
	event_free(e);
	return r;
}

struct perf_event *x86_test_cycles_group(struct pmu *pmu, int n, struct perf_event **extra)
{
	struct perf_event *l = x86_test_event(pmu, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	for (int i = 1; i < n; i++) {
		struct perf_event *s = x86_test_event(pmu, PERF_TYPE_HARDWARE,
						      PERF_COUNT_HW_CPU_CYCLES);
		s->leader = l;
		list_add_tail(&s->sibling_node, &l->siblings);
	}
	*extra = x86_test_event(pmu, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	return l;
}

void x86_test_free_group(struct perf_event *l, struct perf_event *extra)
{
	list_for_each_safe(n, &l->siblings)
		kfree(list_entry(n, struct perf_event, sibling_node));
	kfree(l);
	kfree(extra);
}

void x86_test_precise(struct perf_event_attr *a)
{
	a->precise_ip = 1;
}

void x86_test_branch_stack(struct perf_event_attr *a)
{
	a->sample_type = PERF_SAMPLE_BRANCH_STACK;
}

void x86_test_bts(struct perf_event_attr *a)
{
	a->sample_period = 1;
}

void x86_test_user_only(struct perf_event_attr *a)
{
	a->exclude_kernel = 1;
}

void x86_test_load(struct perf_event *e, uint64_t raw)
{
	if (!x86_owns(x86_counters_here(), e))
		return;
	struct x86_counter k = x86_pmu->counter(e->hw.idx);
	raw &= k.mask;
	pmu_wrmsr(k.msr, raw);
	e->hw.prev_count = raw;
}

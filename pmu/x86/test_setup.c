/*
 * The x86 drivers' shared self-test set-up (test_setup.h).
 */
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "pmu/x86/test_setup.h"

bool x86_test_usable(struct selftest_ctx *t, bool registered, const char *what,
		     bool (*busy)(void))
{
	if (!registered) {
		kprintf("selftest: %s: skipped (no %s PMU)\n", t->name, what);
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

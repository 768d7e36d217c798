/*
 * Self-tests of the AMD LbrExtV2 checks (lbr_extv2.c) through the driver's
 * event_init, as Linux's amd/lbr.c gives them: a counting event is
 * EINVAL; CALL_STACK, the TSX filters, NO_FLAGS and NO_CYCLES are
 * EOPNOTSUPP; every other filter opens; kernel branches EOPNOTSUPP on
 * the model, whose LbrExtV2 is 16 deep.
 */
#include <linux/errno.h>
#include "amd.h"
#include "core/kernel.h"
#include "pmu/x86/amd/lbr_extv2.h"
#include "core/mm/mm.h"
#include "core/selftest.h"

#define BR(x) PERF_SAMPLE_BRANCH_##x

static int branch_errno(uint64_t bst, uint64_t period)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .type = PERF_TYPE_RAW, .config = 0x76,
					.sample_period = period, .exclude_kernel = 1,
					.sample_type = PERF_SAMPLE_BRANCH_STACK,
					.branch_sample_type = bst };
	struct perf_event *e = event_alloc(&attr, NULL, -1, EVENT_INACTIVE);
	BUG_ON(!e);
	e->pmu = &amd_pmu;
	int r = amd_pmu.event_init(e);
	kfree(e);
	return r;
}

SELFTEST(amd_lbr_checks)
{
	if (!amd_caps.registered || !amd_lbr_depth()) {
		kprintf("selftest: %s: skipped (no LbrExtV2)\n", t->name);
		return;
	}
	uint64_t user = BR(USER);
	if (amd_caps.model_pmu) {
		ST_CHECK(t, amd_lbr_depth() == 16);
		ST_CHECK(t, branch_errno(BR(ANY) | BR(KERNEL), 1000) == -EOPNOTSUPP);
	}
	static const uint64_t ok[] = {
		BR(ANY), BR(ANY_CALL) | BR(TYPE_SAVE), BR(ANY_RETURN), BR(IND_CALL), BR(COND),
		BR(IND_JUMP), BR(CALL), BR(ANY) | BR(HW_INDEX) | BR(HV),
	};
	for (unsigned i = 0; i < ARRAY_SIZE(ok); i++)
		ST_CHECK(t, branch_errno(ok[i] | user, 1000) == 0);
	ST_CHECK(t, branch_errno(BR(ANY) | user, 0) == -EINVAL);
	static const uint64_t refused[] = {
		BR(CALL_STACK), BR(ANY) | BR(IN_TX), BR(ANY) | BR(NO_TX), BR(ANY) | BR(ABORT_TX),
		BR(ANY) | BR(NO_FLAGS), BR(ANY) | BR(NO_CYCLES),
	};
	for (unsigned i = 0; i < ARRAY_SIZE(refused); i++)
		ST_CHECK(t, branch_errno(refused[i] | user, 1000) == -EOPNOTSUPP);
}

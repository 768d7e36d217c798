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
#include "pmu/x86/test_setup.h"
#include "core/mm/mm.h"
#include "core/selftest.h"

#define BR(x) PERF_SAMPLE_BRANCH_##x

static int branch_errno(uint64_t bst, uint64_t period)
{
	return x86_test_branch_errno(&amd_pmu, 0x76, bst, period);
}

SELFTEST(amd_lbr_checks)
{
	if (!amd_caps.registered || !amd_lbr_depth()) {
		ST_SKIP(t, "no LbrExtV2");
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

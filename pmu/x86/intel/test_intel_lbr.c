/*
 * Self-tests of the Intel branch-stack checks (lbr.c) through the
 * driver's event_init, as Linux orders them: CALL_STACK with another
 * branch kind is EINVAL, the TSX filters EOPNOTSUPP, kernel branches
 * EOPNOTSUPP on the model, every filter perf offers opens; and on the
 * model that the face found is the mode's (legacy on intel, arch on
 * intel-v5 and hybrid, none on intel-v2).
 */
#include <string.h>
#include <linux/errno.h>
#include "intel.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "pmu/x86/msr.h"
#include "pmu/x86/test_setup.h"
#include "core/selftest.h"

#define BR(x) PERF_SAMPLE_BRANCH_##x

/* event_init's answer for a sampling RAW cycles event with bst. */
static int branch_errno(uint64_t bst)
{
	return x86_test_branch_errno(&intel_pmu, 0x3c, bst, 1000);
}

SELFTEST(intel_lbr_checks)
{
	if (!intel_caps.registered || !intel_lbr_depth()) {
		ST_SKIP(t, "no Intel LBR");
		return;
	}
	if (intel_caps.model) {
		const char *face = pmu_model_lbr_face();
		ST_CHECK(t, strcmp(intel_lbr_name(), strcmp(face, "legacy") == 0 ? "legacy LBR"
										 : "architectural LBR") == 0);
		ST_CHECK(t, intel_lbr_depth() == 32);
		ST_CHECK(t, branch_errno(BR(ANY) | BR(KERNEL)) == -EOPNOTSUPP);
	}
	static const uint64_t ok[] = {
		BR(ANY), BR(ANY_CALL) | BR(TYPE_SAVE), BR(ANY_RETURN), BR(IND_CALL), BR(COND),
		BR(IND_JUMP), BR(CALL), BR(CALL_STACK), BR(ANY) | BR(HW_INDEX) | BR(NO_CYCLES),
	};
	for (unsigned i = 0; i < ARRAY_SIZE(ok); i++)
		ST_CHECK(t, branch_errno(ok[i] | BR(USER)) == 0);
	ST_CHECK(t, branch_errno(BR(CALL_STACK) | BR(ANY) | BR(USER)) == -EINVAL);
	ST_CHECK(t, branch_errno(BR(CALL_STACK) | BR(COND) | BR(USER)) == -EINVAL);
	ST_CHECK(t, branch_errno(BR(ANY) | BR(IN_TX) | BR(USER)) == -EOPNOTSUPP);
}

SELFTEST(intel_lbr_none)
{
	if (!intel_caps.registered || !intel_caps.model || strcmp(pmu_model_lbr_face(), "none") != 0) {
		ST_SKIP(t, "not the model without LBR");
		return;
	}
	ST_CHECK(t, intel_lbr_depth() == 0);
	ST_CHECK(t, branch_errno(BR(ANY) | BR(USER)) == -EOPNOTSUPP);
}

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
#include "pmu/vpmu/lbr_model.h"
#include "core/selftest.h"

#define BR(x) PERF_SAMPLE_BRANCH_##x

/* event_init's answer for a sampling RAW cycles event with bst. */
static int branch_errno(uint64_t bst)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .type = PERF_TYPE_RAW, .config = 0x3c,
					.sample_period = 1000, .exclude_kernel = 1,
					.sample_type = PERF_SAMPLE_BRANCH_STACK,
					.branch_sample_type = bst };
	struct perf_event *e = event_alloc(&attr, NULL, -1, EVENT_INACTIVE);
	BUG_ON(!e);
	e->pmu = &intel_pmu;
	int r = intel_pmu.event_init(e);
	kfree(e);
	return r;
}

SELFTEST(intel_lbr_checks)
{
	if (!intel_caps.registered || !intel_lbr_depth()) {
		kprintf("selftest: %s: skipped (no Intel LBR)\n", t->name);
		return;
	}
	if (intel_caps.model) {
		const char *face = vpmu_lbr_face_name();
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
	if (!intel_caps.registered || !intel_caps.model || strcmp(vpmu_lbr_face_name(), "none") != 0) {
		kprintf("selftest: %s: skipped (not the model without LBR)\n", t->name);
		return;
	}
	ST_CHECK(t, intel_lbr_depth() == 0);
	ST_CHECK(t, branch_errno(BR(ANY) | BR(USER)) == -EOPNOTSUPP);
}

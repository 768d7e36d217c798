/*
 * Self-tests of what the vpmu refuses at open rather than count wrong
 * (vpmu_event_check, events.c): cmask, inv and edge on the instruction
 * and branch events, far branches (Intel C4H umask 40H), kernel-mode
 * branches; and what it accepts: plain user instructions and
 * branches, cycles with cmask 1. Intel modes (their encodings).
 */
#include <linux/errno.h>
#include "core/kernel.h"
#include "pmu/x86/msr.h"
#include "core/selftest.h"
#include "vpmu.h"

#define USER (EVTSEL_USR | EVTSEL_EN)
#define CMASK(n) ((uint64_t)(n) << 24)

SELFTEST(vpmu_refuses_filters)
{
	if (!pmu_model_in_use() || vpmu_is_amd()) {
		ST_SKIP(t, "no Intel vpmu");
		return;
	}
	ST_CHECK(t, vpmu_event_check(ARCH_INSTRUCTIONS | USER) == 0);
	ST_CHECK(t, vpmu_event_check(ARCH_BRANCHES | USER) == 0);
	ST_CHECK(t, vpmu_event_check(ARCH_CORE_CYCLES | USER | CMASK(1)) == 0);
	ST_CHECK(t, vpmu_event_check(ARCH_INSTRUCTIONS | USER | CMASK(1)) == -EOPNOTSUPP);
	ST_CHECK(t, vpmu_event_check(ARCH_INSTRUCTIONS | USER | CMASK(1) | EVTSEL_INV) == -EOPNOTSUPP);
	ST_CHECK(t, vpmu_event_check(ARCH_INSTRUCTIONS | USER | EVTSEL_EDGE) == -EOPNOTSUPP);
	ST_CHECK(t, vpmu_event_check(ARCH_BRANCHES | USER | CMASK(2)) == -EOPNOTSUPP);
	ST_CHECK(t, vpmu_event_check(ARCH_BRANCHES | USER | EVTSEL_EDGE) == -EOPNOTSUPP);
	ST_CHECK(t, vpmu_event_check(0x40c4 | USER) == -EOPNOTSUPP);    /* far branches */
	ST_CHECK(t, vpmu_event_check(ARCH_BRANCHES | USER | EVTSEL_OS) == -EOPNOTSUPP);
}

/*
 * What each vpmu counter counts: its selector (or fixed-counter index)
 * names a source - cycles from the TSC, instructions from the
 * instruction clock or single-stepping, branches from decoding stepped
 * instructions - and, for branches, which kinds. Also the open-time
 * question "can the model count this exactly?", so an event it cannot
 * count is refused rather than given a made-up number.
 *
 * Branch umasks follow BR_INST_RETIRED (event C4H) of Skylake-era
 * cores: 00H/04H all, 01H conditional, 02H near call, 08H near return,
 * 10H conditional not taken, 20H near taken. Far branches (40H) and
 * combinations are not modelled.
 */
#include <linux/errno.h>
#include "pmu/msr.h"
#include "vpmu.h"

/* One branch umask: the kinds it counts. */
static bool umask_kinds(unsigned umask, unsigned *kinds)
{
	switch (umask) {
	case 0x00: case 0x04: *kinds = VPMU_BR_ALL; return true;
	case 0x01: *kinds = VPMU_BR_COND_TAKEN | VPMU_BR_COND_NOT_TAKEN; return true;
	case 0x02: *kinds = VPMU_BR_CALL; return true;
	case 0x08: *kinds = VPMU_BR_RET; return true;
	case 0x10: *kinds = VPMU_BR_COND_NOT_TAKEN; return true;
	case 0x20: *kinds = VPMU_BR_ALL & ~VPMU_BR_COND_NOT_TAKEN; return true;
	}
	return false;
}

/* Cycles events add 1 per unhalted cycle, so a counter mask of 1 passes
 * every cycle and a larger one none (INV flips that); EDGE counts
 * changes of a condition that never changes. */
static bool cycles_pass_filters(uint64_t sel)
{
	unsigned cmask = (unsigned)(sel >> 24);
	if (!cmask)
		return !(sel & EVTSEL_EDGE);
	bool pass = cmask <= 1;
	if (sel & EVTSEL_INV)
		pass = !pass;
	return pass && !(sel & EVTSEL_EDGE);
}

struct vpmu_event vpmu_gp_event(uint64_t sel)
{
	struct vpmu_event ev = { VPMU_SRC_NONE, 0 };
	uint64_t code = sel & (EVTSEL_EVENT | EVTSEL_UMASK);
	bool filtered = sel & (EVTSEL_CMASK | EVTSEL_INV | EVTSEL_EDGE);
	if (code == ARCH_CORE_CYCLES || code == ARCH_REF_CYCLES) {
		if (cycles_pass_filters(sel))
			ev.src = VPMU_SRC_CYCLES;
	} else if (code == ARCH_INSTRUCTIONS) {
		if (!filtered)
			ev.src = VPMU_SRC_INSNS;
	} else if ((sel & EVTSEL_EVENT) == (ARCH_BRANCHES & EVTSEL_EVENT)) {
		if (!filtered && umask_kinds((unsigned)(sel >> 8) & 0xff, &ev.branch_kinds))
			ev.src = VPMU_SRC_BRANCHES;
	}
	return ev;
}

struct vpmu_event vpmu_fixed_event(unsigned j)
{
	struct vpmu_event ev = { j == 0 ? VPMU_SRC_INSNS : VPMU_SRC_CYCLES, 0 };
	return ev;
}

/*
 * Can the model count selector `sel` (USR/OS as the event asks) exactly?
 * Instructions: in user mode always (the instruction clock, else
 * single-stepping); in kernel mode only from the instruction clock.
 * Branches: user mode only (they need stepping, and the kernel is never
 * stepped); filters (cmask, inv, edge) on either are not modelled.
 * Everything else opens as before (cycles count; unmodelled events
 * stay 0, as CPUID 0AH.EBX warns).
 */
int vpmu_event_check(uint64_t sel)
{
	uint64_t code = sel & (EVTSEL_EVENT | EVTSEL_UMASK);
	bool insns = code == ARCH_INSTRUCTIONS;
	bool branches = (sel & EVTSEL_EVENT) == (ARCH_BRANCHES & EVTSEL_EVENT);
	if (!insns && !branches)
		return 0;
	if (vpmu_gp_event(sel).src == VPMU_SRC_NONE)
		return -EOPNOTSUPP; /* a filter or umask the model cannot know */
	if ((sel & EVTSEL_OS) && (branches || !vpmu_icount_on()))
		return -EOPNOTSUPP; /* kernel mode: no exact count */
	return 0;
}

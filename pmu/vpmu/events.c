/*
 * What each vpmu counter counts: its selector (or fixed-counter index)
 * names a source - cycles from the TSC, instructions from the
 * instruction clock or single-stepping, branches from decoding stepped
 * instructions - and, for branches, which kinds. Also the open-time
 * question "can the model count this exactly?", so an event it cannot
 * count is refused rather than given a made-up number.
 *
 * Intel: branch umasks follow BR_INST_RETIRED (event C4H) of
 * Skylake-era cores: 00H/04H all, 01H conditional, 02H near call, 08H
 * near return, 10H conditional not taken, 20H near taken. Far branches
 * (40H) and combinations are not modelled.
 *
 * AMD (Family 17h and later PPRs; the event number is bits 0-7 and
 * 32-35 of PERF_CTL): 76H cycles not halted, C0H retired instructions,
 * C2H retired branches, C4H retired taken branches, C8H retired near
 * returns, D1H retired conditional branches (family 17h on; before it
 * D1H is dispatch stalls, not modelled), all with umask 0. Far
 * control transfers (C6H) and mispredictions are not modelled.
 *
 * decode.c's output (VPMU_BR_* of each stepped user instruction) is the
 * one place branch kinds come from: a branch-record model (LBR) would
 * take its records there too.
 */
#include <linux/errno.h>
#include "core/arch/cpu.h"
#include "pmu/x86/msr.h"
#include "mode.h"

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
	unsigned cmask = (unsigned)(sel >> 24) & 0xff;
	if (!cmask)
		return !(sel & EVTSEL_EDGE);
	bool pass = cmask <= 1;
	if (sel & EVTSEL_INV)
		pass = !pass;
	return pass && !(sel & EVTSEL_EDGE);
}

struct vpmu_event vpmu_intel_gp_event(uint64_t sel)
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

/* Fixed counters 0-2: instructions, core cycles, reference cycles;
 * 3 (topdown slots, v5) is not modelled. */
struct vpmu_event vpmu_intel_fixed_event(unsigned j)
{
	struct vpmu_event ev = { VPMU_SRC_NONE, 0 };
	if (j == 0)
		ev.src = VPMU_SRC_INSNS;
	else if (j <= 2)
		ev.src = VPMU_SRC_CYCLES;
	return ev;
}

/* AMD's 12-bit event number: PERF_CTL bits 0-7 and 32-35. */
static unsigned amd_event_code(uint64_t sel)
{
	return (unsigned)((sel >> 24 & 0xf00) | (sel & 0xff));
}

/* The branch kinds an AMD branch event counts; false: not a branch
 * event the model knows. */
static bool amd_branch_kinds(unsigned code, unsigned *kinds)
{
	switch (code) {
	case 0xc2: *kinds = VPMU_BR_ALL; return true;
	case 0xc4: *kinds = VPMU_BR_ALL & ~VPMU_BR_COND_NOT_TAKEN; return true;
	case 0xc8: *kinds = VPMU_BR_RET; return true;
	case 0xd1: /* Zen's; dispatch stalls on older families */
		if (cpu.family < 0x17)
			return false;
		*kinds = VPMU_BR_COND_TAKEN | VPMU_BR_COND_NOT_TAKEN;
		return true;
	}
	return false;
}

struct vpmu_event vpmu_amd_gp_event(uint64_t sel)
{
	struct vpmu_event ev = { VPMU_SRC_NONE, 0 };
	unsigned code = amd_event_code(sel), umask = (unsigned)(sel >> 8) & 0xff;
	bool filtered = sel & (EVTSEL_CMASK | EVTSEL_INV | EVTSEL_EDGE);
	if (umask || (sel >> 40 & 3) == 1)
		return ev; /* no umask of these is modelled; GuestOnly: no guests */
	if (code == 0x76) {
		if (cycles_pass_filters(sel))
			ev.src = VPMU_SRC_CYCLES;
	} else if (code == 0xc0) {
		if (!filtered)
			ev.src = VPMU_SRC_INSNS;
	} else if (!filtered && amd_branch_kinds(code, &ev.branch_kinds)) {
		ev.src = VPMU_SRC_BRANCHES;
	}
	return ev;
}

struct vpmu_event vpmu_gp_event(uint64_t sel)
{
	return vpmu_mode->gp_event(sel);
}

struct vpmu_event vpmu_fixed_event(unsigned j)
{
	return vpmu_mode->fixed_event ? vpmu_mode->fixed_event(j)
				      : (struct vpmu_event){ VPMU_SRC_NONE, 0 };
}

/* Is `sel` an instructions or a branch event of the mode's encoding?
 * (Those need more than the TSC, so their modes are checked.) */
static bool is_insns(uint64_t sel)
{
	if (vpmu_mode->amd)
		return amd_event_code(sel) == 0xc0;
	return (sel & (EVTSEL_EVENT | EVTSEL_UMASK)) == ARCH_INSTRUCTIONS;
}

static bool is_branches(uint64_t sel)
{
	unsigned kinds;
	if (vpmu_mode->amd)
		return amd_branch_kinds(amd_event_code(sel), &kinds);
	return (sel & EVTSEL_EVENT) == (ARCH_BRANCHES & EVTSEL_EVENT);
}

bool vpmu_event_known(uint64_t sel)
{
	sel &= ~(EVTSEL_CMASK | EVTSEL_INV | EVTSEL_EDGE);
	return vpmu_gp_event(sel).src != VPMU_SRC_NONE;
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
	bool insns = is_insns(sel), branches = is_branches(sel);
	if (!insns && !branches)
		return 0;
	if (vpmu_gp_event(sel).src == VPMU_SRC_NONE)
		return -EOPNOTSUPP; /* a filter or umask the model cannot know */
	if ((sel & EVTSEL_OS) && (branches || !vpmu_icount_on()))
		return -EOPNOTSUPP; /* kernel mode: no exact count */
	return 0;
}

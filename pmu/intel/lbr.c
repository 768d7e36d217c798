/*
 * Branch stacks from architectural LBR (Intel SDM vol. 3B, "Last Branch
 * Records"; CPUID 7.EDX[19] and leaf 1CH), as Linux's arch LBR support
 * gives them to PERF_SAMPLE_BRANCH_STACK:
 *
 *   - event_init turns attr.branch_sample_type into an IA32_LBR_CTL
 *     value; a request the LBR cannot honour is EOPNOTSUPP (no LBR, the
 *     TSX filters, call-stack mode without CPUID 1CH.EBX[2], and on the
 *     vpmu kernel branches: the model never steps the kernel);
 *   - add/del turn the LBRs on for the CPU while at least one branch
 *     stack event is on it (the first one's filter: events sharing a
 *     CPU should ask for the same, as perf record's do), clearing the
 *     records when the first comes on;
 *   - at an overflow the records, newest first, become the sample's
 *     branch stack (from, to, and with BRANCH_TYPE_SAVE the type).
 *
 * Legacy LBR (DEBUGCTL.LBR, LASTBRANCH_TOS, LBR_SELECT) is not driven:
 * on a CPU with only legacy LBR, branch stacks are EOPNOTSUPP.
 *
 * Locking: lbr_cpus[c] is CPU c's, touched there with interrupts off
 * (add/del under perf_lock, the PMI).
 */
#include <linux/errno.h>
#include <linux/perf_event.h>
#include "arch/msr-index.h"
#include "arch/percpu.h"
#include "kernel.h"
#include "pmu/event.h"
#include "pmu/msr.h"
#include "pmu/vpmu/lbr.h"
#include "intel.h"

struct lbr_cpu {
	unsigned users;
	struct perf_branch_entry entries[ARCH_LBR_MAX_DEPTH];
};

static struct lbr_cpu lbr_cpus[MAX_CPUS];
static unsigned lbr_depth;      /* 0: no architectural LBR */
static bool lbr_call_stack;     /* CPUID 1CH.EBX[2] */

void intel_lbr_init(void)
{
	if (!(pmu_cpuid(7, 0).edx & CPUID_7_EDX_ARCH_LBR))
		return;
	struct cpuid_regs r = pmu_cpuid(CPUID_ARCH_LBR_LEAF, 0);
	for (unsigned bit = 0; bit < 8; bit++)
		if (r.eax >> bit & 1)
			lbr_depth = 8 * (bit + 1);
	if (lbr_depth > ARCH_LBR_MAX_DEPTH)
		lbr_depth = ARCH_LBR_MAX_DEPTH;
	lbr_call_stack = r.ebx & (1u << 2);
}

unsigned intel_lbr_depth(void)
{
	return lbr_depth;
}

#define BR(x) PERF_SAMPLE_BRANCH_##x
/* Output modifiers: they change the records, not which are taken. */
#define OUTPUT_ONLY (BR(NO_FLAGS) | BR(NO_CYCLES) | BR(TYPE_SAVE) | BR(HW_INDEX) | BR(PRIV_SAVE))

/* IA32_LBR_CTL for branch_sample_type `bst` (its privilege bits set),
 * or -EOPNOTSUPP. */
static int64_t lbr_ctl_for(uint64_t bst)
{
	uint64_t ctl = ARCH_LBR_CTL_LBREN;
	if (bst & (BR(ABORT_TX) | BR(IN_TX) | BR(NO_TX)))
		return -EOPNOTSUPP; /* arch LBR has no TSX filter */
	if ((bst & BR(CALL_STACK)) && !lbr_call_stack)
		return -EOPNOTSUPP;
	if ((bst & BR(KERNEL)) && intel_caps.model)
		return -EOPNOTSUPP; /* the model records user branches only */
	if (bst & BR(USER)) ctl |= ARCH_LBR_CTL_USR;
	if (bst & BR(KERNEL)) ctl |= ARCH_LBR_CTL_OS;
	if (bst & BR(ANY)) ctl |= ARCH_LBR_CTL_BRANCHES;
	if (bst & BR(ANY_CALL)) ctl |= ARCH_LBR_CTL_REL_CALL | ARCH_LBR_CTL_IND_CALL | ARCH_LBR_CTL_OTHER;
	if (bst & BR(ANY_RETURN)) ctl |= ARCH_LBR_CTL_RET | ARCH_LBR_CTL_OTHER;
	if (bst & BR(IND_CALL)) ctl |= ARCH_LBR_CTL_IND_CALL;
	if (bst & BR(COND)) ctl |= ARCH_LBR_CTL_JCC;
	if (bst & BR(IND_JUMP)) ctl |= ARCH_LBR_CTL_IND_JMP;
	if (bst & BR(CALL)) ctl |= ARCH_LBR_CTL_REL_CALL;
	if (bst & BR(CALL_STACK)) ctl |= ARCH_LBR_CTL_CALL_STACK | ARCH_LBR_CTL_REL_CALL |
					 ARCH_LBR_CTL_IND_CALL | ARCH_LBR_CTL_RET;
	return (int64_t)ctl;
}

int intel_lbr_event_init(const struct perf_event_attr *a)
{
	if (!(a->sample_type & PERF_SAMPLE_BRANCH_STACK))
		return 0;
	if (!lbr_depth)
		return -EOPNOTSUPP;
	int64_t ctl = lbr_ctl_for(a->branch_sample_type);
	return ctl < 0 ? (int)ctl : 0;
}

static bool wants_lbr(const struct perf_event *e)
{
	return lbr_depth && (e->attr.sample_type & PERF_SAMPLE_BRANCH_STACK);
}

void intel_lbr_add(struct perf_event *e)
{
	if (!wants_lbr(e))
		return;
	struct lbr_cpu *l = &lbr_cpus[this_cpu_id()];
	if (l->users++)
		return;
	pmu_wrmsr(MSR_ARCH_LBR_CTL, 0);
	pmu_wrmsr(MSR_ARCH_LBR_DEPTH, lbr_depth); /* clears the records */
	pmu_wrmsr(MSR_ARCH_LBR_CTL, (uint64_t)lbr_ctl_for(e->attr.branch_sample_type));
}

void intel_lbr_del(struct perf_event *e)
{
	if (!wants_lbr(e))
		return;
	struct lbr_cpu *l = &lbr_cpus[this_cpu_id()];
	if (l->users && !--l->users)
		pmu_wrmsr(MSR_ARCH_LBR_CTL, 0);
}

/* perf's branch type for an arch LBR INFO type (PERF_BR_*). */
static unsigned perf_type(unsigned t)
{
	switch (t) {
	case ARCH_LBR_TYPE_JCC: return PERF_BR_COND;
	case ARCH_LBR_TYPE_IND_JMP: return PERF_BR_IND;
	case ARCH_LBR_TYPE_REL_JMP: return PERF_BR_UNCOND;
	case ARCH_LBR_TYPE_IND_CALL: return PERF_BR_IND_CALL;
	case ARCH_LBR_TYPE_REL_CALL: return PERF_BR_CALL;
	case ARCH_LBR_TYPE_RET: return PERF_BR_RET;
	}
	return PERF_BR_UNKNOWN;
}

/* The records, newest first, into hit's branch stack (a buffer of this
 * CPU's, good until the next PMI here). In the PMI. */
void intel_lbr_read(const struct perf_event *e, struct perf_hit *hit)
{
	if (!wants_lbr(e))
		return;
	struct lbr_cpu *l = &lbr_cpus[this_cpu_id()];
	bool save_type = e->attr.branch_sample_type & BR(TYPE_SAVE);
	unsigned n = 0;
	for (unsigned x = 0; x < lbr_depth; x++) {
		uint64_t from = pmu_rdmsr(MSR_ARCH_LBR_FROM_0 + x);
		if (!from)
			break; /* cleared: no older records */
		struct perf_branch_entry *b = &l->entries[n++];
		*b = (struct perf_branch_entry){ .from = from,
						 .to = pmu_rdmsr(MSR_ARCH_LBR_TO_0 + x) };
		if (save_type) {
			uint64_t info = pmu_rdmsr(MSR_ARCH_LBR_INFO_0 + x);
			b->type = perf_type((unsigned)(info >> ARCH_LBR_INFO_TYPE_SHIFT) & 0xf) & 0xf;
		}
	}
	hit->branches = l->entries;
	hit->branches_nr = n;
}

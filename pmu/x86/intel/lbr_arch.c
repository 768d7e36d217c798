/*
 * Architectural LBR (Intel SDM vol. 3B, "Last Branch Records"; CPUID
 * 7.EDX[19] and leaf 1CH), as Linux's arch LBR support drives it:
 * branch_sample_type maps to IA32_LBR_CTL (USER/KERNEL to USR/OS, HV
 * ignored, each branch kind to its enable bit; no TSX filters); writing
 * IA32_LBR_DEPTH clears the records; entry 0 is the newest and INFO
 * gives each record's branch type. A task's call stack is saved from
 * entry 0 up to the first empty entry and restored by clearing the
 * records (unless the stack fills them) and writing the saved entries
 * back from entry 0, as Linux's MSR path does (Linux may use XSAVES).
 *
 * No state of its own beyond what CPUID said at boot.
 */
#include <stddef.h>
#include <linux/errno.h>
#include <linux/perf_event.h>
#include "core/arch/msr-index.h"
#include "pmu/x86/msr.h"
#include "pmu/vpmu/lbr_model.h"
#include "pmu/x86/intel/lbr_faces.h"

#define BR(x) PERF_SAMPLE_BRANCH_##x

static unsigned depth;

static int64_t arch_config(uint64_t bst)
{
	uint64_t ctl = ARCH_LBR_CTL_LBREN;
	if (bst & (BR(ABORT_TX) | BR(IN_TX) | BR(NO_TX)))
		return -EOPNOTSUPP; /* arch LBR has no TSX filter */
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

static void arch_enable(uint64_t ctl, bool keep)
{
	pmu_wrmsr(MSR_ARCH_LBR_CTL, 0);
	if (!keep)
		pmu_wrmsr(MSR_ARCH_LBR_DEPTH, depth); /* clears the records */
	pmu_wrmsr(MSR_ARCH_LBR_CTL, ctl);
}

static void arch_disable(void)
{
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

static uint32_t arch_read(struct perf_branch_entry *b, bool call_stack, uint64_t *hw_idx)
{
	(void)call_stack;
	uint32_t n = 0;
	*hw_idx = 0; /* entry 0 is always the newest: no top of stack */
	for (unsigned x = 0; x < depth; x++) {
		uint64_t from = pmu_rdmsr(MSR_ARCH_LBR_FROM_0 + x);
		if (!from)
			break; /* cleared: no older records */
		uint64_t info = pmu_rdmsr(MSR_ARCH_LBR_INFO_0 + x);
		b[n++] = (struct perf_branch_entry){
			.from = from,
			.to = pmu_rdmsr(MSR_ARCH_LBR_TO_0 + x),
			.type = perf_type((unsigned)(info >> ARCH_LBR_INFO_TYPE_SHIFT) & 0xf) & 0xf,
		};
	}
	return n;
}

static uint32_t arch_save(struct intel_lbr_record *r)
{
	uint32_t n = 0;
	for (; n < depth; n++) {
		uint64_t from = pmu_rdmsr(MSR_ARCH_LBR_FROM_0 + n);
		if (!from)
			break; /* cleared: no older records */
		r[n] = (struct intel_lbr_record){ .from = from,
						  .to = pmu_rdmsr(MSR_ARCH_LBR_TO_0 + n),
						  .info = pmu_rdmsr(MSR_ARCH_LBR_INFO_0 + n) };
	}
	return n;
}

static void arch_restore(const struct intel_lbr_record *r, uint32_t n)
{
	if (n < depth)
		pmu_wrmsr(MSR_ARCH_LBR_DEPTH, depth); /* clears the records */
	for (uint32_t x = 0; x < n; x++) {
		pmu_wrmsr(MSR_ARCH_LBR_FROM_0 + x, r[x].from);
		pmu_wrmsr(MSR_ARCH_LBR_TO_0 + x, r[x].to);
		pmu_wrmsr(MSR_ARCH_LBR_INFO_0 + x, r[x].info);
	}
}

static struct intel_lbr_face arch_face = {
	.name = "architectural LBR",
	.typed = true,
	.config = arch_config,
	.enable = arch_enable,
	.disable = arch_disable,
	.read = arch_read,
	.save = arch_save,
	.restore = arch_restore,
};

const struct intel_lbr_face *intel_lbr_arch_probe(void)
{
	if (!(pmu_cpuid(7, 0).edx & CPUID_7_EDX_ARCH_LBR))
		return NULL;
	struct cpuid_regs r = pmu_cpuid(CPUID_ARCH_LBR_LEAF, 0);
	for (unsigned bit = 0; bit < 8; bit++)
		if (r.eax >> bit & 1)
			depth = 8 * (bit + 1);
	if (depth > ARCH_LBR_MAX_DEPTH)
		depth = ARCH_LBR_MAX_DEPTH;
	if (!depth)
		return NULL;
	arch_face.depth = depth;
	arch_face.call_stack = r.ebx & (1u << 2);   /* CPUID 1CH.EBX[2] */
	return &arch_face;
}

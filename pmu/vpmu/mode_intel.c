/*
 * The vpmu as Intel architectural perfmon (Intel SDM vol. 3B, chapter
 * "Performance Monitoring"): the register map and CPUID leaf 0AH of
 * three versions.
 *
 *   intel     version 4: 4 GP + 3 fixed counters, 48 bits; GLOBAL_CTRL,
 *             _STATUS, _STATUS_RESET (OVF_CTRL), _STATUS_SET;
 *             PERF_CAPABILITIES with full-width writes (IA32_A_PMCx)
 *             and LBR format 5 (lbr.c's legacy LBR, Skylake's).
 *   intel-v2  version 2, as Core 2: 2 GP + 3 fixed counters, 40 bits;
 *             GLOBAL_CTRL, _STATUS, _OVF_CTRL, and nothing of v4: no
 *             _STATUS_SET, no PDCM, so no PERF_CAPABILITIES and no
 *             full-width writes (legacy writes sign-extend bit 31).
 *   intel-v5  version 5: 8 GP + 4 fixed counters, 48 bits; CPUID 0AH
 *             ECX is the fixed-counter bitmap (EDX[4:0] says 3: the
 *             fourth, topdown slots, is known from ECX alone) and
 *             EDX[15] deprecates AnyThread. Fixed counter 3 counts
 *             nothing the model knows.
 */
#include "core/kernel.h"
#include "pmu/x86/msr.h"
#include "pmu/vpmu/lbr_model.h"
#include "mode.h"

/* CPUID 0AH.EBX: no cache events and no branch misses (the model has
 * neither caches nor a predictor). */
#define MODEL_UNAVAILABLE (PERFMON_EBX_LLC_REFS | PERFMON_EBX_LLC_MISSES | \
			   PERFMON_EBX_BRANCH_MISSES)
#define V5_FIXED_IN_EDX 3

static bool full_width(unsigned version)
{
	return version >= 4;
}

/* The index of `msr` in a block of n registers from `base`, or -1. */
static int in_block(uint32_t msr, uint32_t base, unsigned n)
{
	return msr >= base && msr < base + n ? (int)(msr - base) : -1;
}

uint64_t vpmu_intel_rdmsr(struct vpmu_regs *r, const struct vpmu_shape *s, uint32_t msr,
			  unsigned version)
{
	int i;
	if ((i = in_block(msr, MSR_IA32_PMC0, s->n_gp)) >= 0)
		return r->pmc[i];
	if (full_width(version) && (i = in_block(msr, MSR_IA32_A_PMC0, s->n_gp)) >= 0)
		return r->pmc[i];
	if ((i = in_block(msr, MSR_IA32_PERFEVTSEL0, s->n_gp)) >= 0)
		return r->evtsel[i];
	if ((i = in_block(msr, MSR_IA32_FIXED_CTR0, s->n_fixed)) >= 0)
		return r->fixed[i];
	switch (msr) {
	case MSR_IA32_FIXED_CTR_CTRL: return r->fixed_ctrl;
	case MSR_IA32_PERF_GLOBAL_CTRL: return r->global_ctrl;
	case MSR_IA32_PERF_GLOBAL_STATUS: return r->global_status;
	case MSR_IA32_PERF_CAPABILITIES:
		return full_width(version) ? PERF_CAP_FW_WRITE | vpmu_lbr_format() : 0;
	}
	return 0;
}

void vpmu_intel_wrmsr(struct vpmu_regs *r, const struct vpmu_shape *s, uint32_t msr,
		      uint64_t v, unsigned version)
{
	uint64_t mask = vpmu_width_mask(s), bits = vpmu_counter_bits(s);
	int i;
	if ((i = in_block(msr, MSR_IA32_PMC0, s->n_gp)) >= 0)
		r->pmc[i] = (uint64_t)(int64_t)(int32_t)v & mask; /* bit 31 extends */
	else if (full_width(version) && (i = in_block(msr, MSR_IA32_A_PMC0, s->n_gp)) >= 0)
		r->pmc[i] = v & mask;
	else if ((i = in_block(msr, MSR_IA32_PERFEVTSEL0, s->n_gp)) >= 0)
		r->evtsel[i] = v & 0xffffffffULL;
	else if ((i = in_block(msr, MSR_IA32_FIXED_CTR0, s->n_fixed)) >= 0)
		r->fixed[i] = v & mask;
	else if (msr == MSR_IA32_FIXED_CTR_CTRL)
		r->fixed_ctrl = v & ((1ULL << (4 * s->n_fixed)) - 1);
	else if (msr == MSR_IA32_PERF_GLOBAL_CTRL)
		r->global_ctrl = v & bits;
	else if (msr == MSR_IA32_PERF_GLOBAL_OVF_CTRL)
		r->global_status &= ~v;
	else if (msr == MSR_IA32_PERF_GLOBAL_STATUS_SET && version >= 4)
		r->global_status |= v & bits;
	/* GLOBAL_STATUS is read-only; anything else is no register */
}

void vpmu_intel_leaf_0a(const struct vpmu_shape *s, unsigned version, struct cpuid_regs *r)
{
	/* instructions and branches count in user mode at least */
	r->eax = version | s->n_gp << 8 | s->width << 16 | PERFMON_EVENTS << 24;
	r->ebx = MODEL_UNAVAILABLE;
	r->ecx = 0;
	r->edx = s->n_fixed | s->width << 5;
	if (version >= 5) {
		r->ecx = (1u << s->n_fixed) - 1;
		r->edx = (s->n_fixed < V5_FIXED_IN_EDX ? s->n_fixed : V5_FIXED_IN_EDX) |
			 s->width << 5 | PERFMON_EDX_ANY_DEPRECATED;
	}
}

uint32_t vpmu_intel_rdpmc_msr(const struct vpmu_shape *s, uint32_t ecx)
{
	uint32_t n = ecx & ~(1u << 31 | 1u << 30);
	if (ecx & 1u << 30)
		return n < s->n_fixed ? MSR_IA32_FIXED_CTR0 + n : 0;
	return n < s->n_gp ? MSR_IA32_PMC0 + n : 0;
}

/* GP enables set, so that EN alone starts a GP counter, as version 1
 * software expects. */
uint64_t vpmu_intel_global_reset(const struct vpmu_shape *s)
{
	return (1ULL << s->n_gp) - 1;
}

/* CPUID as a CPU of this version says it: PDCM (PERF_CAPABILITIES
 * exists) from version 4, leaf 0AH. */
static void version_cpuid(const struct vpmu_shape *s, unsigned version, uint32_t leaf,
			struct cpuid_regs *r)
{
	if (leaf == 1) {
		if (full_width(version))
			r->ecx |= CPUID_1_ECX_PDCM;
		else
			r->ecx &= ~CPUID_1_ECX_PDCM;
	}
	if (leaf == CPUID_PERFMON)
		vpmu_intel_leaf_0a(s, version, r);
}

/* ---- the three modes ---- */

#define INTEL_MODE(id, str, ver, gp, fx, bits)                                           \
	static void id##_shape(unsigned cpu, struct vpmu_shape *s)                       \
	{                                                                                \
		(void)cpu;                                                               \
		*s = (struct vpmu_shape){ gp, fx, bits };                                \
	}                                                                                \
	static uint64_t id##_rdmsr(struct vpmu_regs *r, const struct vpmu_shape *s,      \
				   uint32_t msr)                                         \
	{                                                                                \
		return vpmu_intel_rdmsr(r, s, msr, ver);                                 \
	}                                                                                \
	static void id##_wrmsr(struct vpmu_regs *r, const struct vpmu_shape *s,          \
			       uint32_t msr, uint64_t v)                                 \
	{                                                                                \
		vpmu_intel_wrmsr(r, s, msr, v, ver);                                     \
	}                                                                                \
	static void id##_cpuid(unsigned cpu, uint32_t leaf, uint32_t sub,                \
			       struct cpuid_regs *r)                                     \
	{                                                                                \
		(void)sub;                                                               \
		struct vpmu_shape s;                                                     \
		id##_shape(cpu, &s);                                                     \
		version_cpuid(&s, ver, leaf, r);                                           \
	}                                                                                \
	const struct vpmu_kind vpmu_mode_##id = {                                        \
		.name = str,                                                             \
		.amd = false,                                                            \
		.shape = id##_shape,                                                     \
		.global_reset = vpmu_intel_global_reset,                                 \
		.rdmsr = id##_rdmsr,                                                     \
		.wrmsr = id##_wrmsr,                                                     \
		.cpuid = id##_cpuid,                                                     \
		.gp_event = vpmu_intel_gp_event,                                         \
		.fixed_event = vpmu_intel_fixed_event,                                   \
		.rdpmc_msr = vpmu_intel_rdpmc_msr,                                       \
	}

INTEL_MODE(intel, "intel", 4, 4, 3, 48);
INTEL_MODE(intel_v2, "intel-v2", 2, 2, 3, 40);
INTEL_MODE(intel_v5, "intel-v5", 5, 8, 4, 48);

/*
 * The vpmu as a hybrid Intel CPU (Alder Lake's kind): two core types,
 * each with its own arch perfmon version 5 PMU, told apart by CPUID
 * leaf 1AH (EAX[31:24]: 40H core, 20H atom) on each CPU, with CPUID
 * 07H.EDX[15] (Hybrid) set on all.
 *
 *   core  8 GP + 4 fixed counters, 48 bits
 *   atom  6 GP + 3 fixed counters, 48 bits
 *
 * Which CPU is which: even CPUs core, odd ones atom; `vpmu_cores=N` on
 * the command line makes CPUs 0..N-1 core and the rest atom instead.
 * The register map is mode_intel.c's (version 5) on each CPU's shape.
 */
#include "core/cmdline.h"
#include "pmu/x86/msr.h"
#include "mode.h"

#define HYBRID_VERSION 5
#define CORE_TYPE_ATOM 0x20u
#define CORE_TYPE_CORE 0x40u
#define CPUID_HYBRID_LEAF 0x1a
#define CPUID_7_EDX_HYBRID (1u << 15)

static bool is_core(unsigned cpu)
{
	if (cmdline_has("vpmu_cores"))
		return cpu < cmdline_get_u64("vpmu_cores", 0);
	return cpu % 2 == 0;
}

static void hybrid_shape(unsigned cpu, struct vpmu_shape *s)
{
	if (is_core(cpu))
		*s = (struct vpmu_shape){ 8, 4, 48 };
	else
		*s = (struct vpmu_shape){ 6, 3, 48 };
}

static uint64_t hybrid_rdmsr(struct vpmu_regs *r, const struct vpmu_shape *s, uint32_t msr)
{
	return vpmu_intel_rdmsr(r, s, msr, HYBRID_VERSION);
}

static void hybrid_wrmsr(struct vpmu_regs *r, const struct vpmu_shape *s, uint32_t msr,
			 uint64_t v)
{
	vpmu_intel_wrmsr(r, s, msr, v, HYBRID_VERSION);
}

static void hybrid_cpuid(unsigned cpu, uint32_t leaf, uint32_t sub, struct cpuid_regs *r)
{
	struct vpmu_shape s;
	hybrid_shape(cpu, &s);
	switch (leaf) {
	case 0:
		if (r->eax < CPUID_HYBRID_LEAF)
			r->eax = CPUID_HYBRID_LEAF;
		break;
	case 1:
		r->ecx |= CPUID_1_ECX_PDCM;
		break;
	case 7:
		if (sub == 0)
			r->edx |= CPUID_7_EDX_HYBRID;
		break;
	case CPUID_PERFMON:
		vpmu_intel_leaf_0a(&s, HYBRID_VERSION, r);
		break;
	case CPUID_HYBRID_LEAF:
		*r = (struct cpuid_regs){ 0 };
		r->eax = (is_core(cpu) ? CORE_TYPE_CORE : CORE_TYPE_ATOM) << 24;
		break;
	}
}

const struct vpmu_kind vpmu_mode_hybrid = {
	.name = "hybrid",
	.amd = false,
	.shape = hybrid_shape,
	.global_reset = vpmu_intel_global_reset,
	.rdmsr = hybrid_rdmsr,
	.wrmsr = hybrid_wrmsr,
	.cpuid = hybrid_cpuid,
	.gp_event = vpmu_intel_gp_event,
	.fixed_event = vpmu_intel_fixed_event,
	.rdpmc_msr = vpmu_intel_rdpmc_msr,
};

/*
 * The PMU register accessors: the real instructions, or the software
 * model when the CPU has no PMU. `model` is set once at boot, before any
 * counter is programmed, and only read afterwards.
 */
#include "msr.h"
#include "pmu/vpmu/vpmu.h"

static bool model;

void pmu_use_model(void)
{
	model = true;
	vpmu_init();
}

bool pmu_model_in_use(void)
{
	return model;
}

uint64_t pmu_rdmsr(uint32_t msr)
{
	return model ? vpmu_rdmsr(msr) : rdmsr(msr);
}

void pmu_wrmsr(uint32_t msr, uint64_t value)
{
	if (model)
		vpmu_wrmsr(msr, value);
	else
		wrmsr(msr, value);
}

struct cpuid_regs pmu_cpuid(uint32_t leaf, uint32_t subleaf)
{
	return model ? vpmu_cpuid(leaf, subleaf) : cpuid(leaf, subleaf);
}

struct trap_frame *pmu_pmi_frame(struct trap_frame *f)
{
	return model ? vpmu_pmi_frame(f) : f;
}

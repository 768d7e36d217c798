/*
 * The PMU register accessors: the real instructions, or the software
 * model when the CPU has no PMU. `model` is set once at boot, before any
 * counter is programmed, and only read afterwards.
 */
#include <string.h>
#include "core/arch/cpu.h"
#include "msr.h"
#include "pmu/vpmu/lbr_model.h"
#include "pmu/vpmu/vpmu.h"

static bool model;

void pmu_use_model(void)
{
	if (model)
		return;
	model = true;
	vpmu_init();
}

bool pmu_cpu_is_amd(void)
{
	return strcmp(cpu.vendor, "AuthenticAMD") == 0 ||
	       strcmp(cpu.vendor, "HygonGenuine") == 0;
}

/*
 * Does this CPU lack the PMU its vendor's driver looks for? Intel (and
 * any non-AMD vendor): no CPUID leaf 0AH perfmon. AMD: no PerfCtrExtCore
 * under a hypervisor - the legacy K7 counters are not in CPUID, so a
 * guest without that bit is taken to have no counters (emulators accept
 * and ignore the MSRs; probing them would prove nothing), while bare
 * metal without it has the legacy four.
 */
bool pmu_need_model(void)
{
	if (pmu_cpu_is_amd())
		return !cpu.amd_perfctr_core && cpu.hypervisor[0];
	return !cpu.pmu_version;
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

bool pmu_model_busy(void)
{
	return model && vpmu_busy();
}

struct trap_frame *pmu_pmi_frame(struct trap_frame *f)
{
	return model ? vpmu_pmi_frame(f) : f;
}

/* ---- what the model says of itself ---- */

const char *pmu_model_name(void)
{
	return "vpmu";
}

int pmu_model_event_check(uint64_t evtsel)
{
	return model ? vpmu_event_check(evtsel) : 0;
}

bool pmu_model_event_known(uint64_t evtsel)
{
	return !model || vpmu_event_known(evtsel);
}

void pmu_model_counter_owner(int idx, bool cpu_wide)
{
	if (model)
		vpmu_cap_counter_owner(idx, cpu_wide);
}

bool pmu_model_insns_by_clock(void)
{
	return model && vpmu_icount_on();
}

const char *pmu_model_lbr_face(void)
{
	return model ? vpmu_lbr_face_name() : NULL;
}

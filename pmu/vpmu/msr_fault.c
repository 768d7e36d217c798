/*
 * Which register writes the model's WRMSR refuses with #GP, as the
 * hardware does: on Intel, a full-width counter write (IA32_A_PMCx,
 * PERF_CAPABILITIES.FW_WRITE) that sets bits above the counter's width
 * (Intel SDM vol. 3B, "Full-Width Writes to Performance Counters"; KVM
 * checks the same). Legacy IA32_PMCx writes never fault: they take the
 * low 32 bits and sign-extend bit 31. AMD's PERF_CTR writes and the
 * fixed counters are not checked (the model keeps their low bits).
 */
#include "pmu/x86/msr.h"
#include "mode.h"

bool vpmu_write_faults(const struct vpmu_shape *s, uint32_t msr, uint64_t v)
{
	if (vpmu_mode->amd)
		return false;
	bool full_width = msr >= MSR_IA32_A_PMC0 && msr < MSR_IA32_A_PMC0 + s->n_gp;
	return full_width && (v & ~vpmu_width_mask(s));
}

/* What the boot CPU offers, from CPUID. Filled once by cpu_detect(). */
#ifndef BAREMON_CPU_H
#define BAREMON_CPU_H

#include <stdbool.h>
#include <stdint.h>

struct cpu_features {
	char vendor[13];
	char brand[49];
	char hypervisor[13];      /* "" on bare metal */
	uint32_t family, model, stepping;
	uint32_t max_leaf, max_ext_leaf;
	bool x2apic, tsc_deadline, invariant_tsc, nx, pdpe1gb, smep, smap;
	bool umip, fsgsbase, pcid, rdtscp, xsave;
	/* Intel architectural perfmon, CPUID leaf 0AH */
	uint32_t pmu_version;
	uint32_t pmu_gp_counters, pmu_gp_width;
	uint32_t pmu_fixed_counters, pmu_fixed_width;
	uint32_t pmu_events_unavailable;  /* EBX: bit set = event NOT available */
	uint32_t pmu_event_mask_len;
	/* AMD extensions (CPUID 8000_0001H ECX, 8000_0022H) */
	bool amd_perfctr_core, amd_perfctr_nb, amd_perfctr_llc;
	uint32_t amd_perfmon_v2_counters;  /* 0 without PerfMonV2 */
	/* TSC/crystal (leaf 15H/16H) */
	uint32_t tsc_ratio_num, tsc_ratio_den, crystal_hz, base_mhz;
};

extern struct cpu_features cpu;

void cpu_detect(void);
/* Print the feature report (boot log and the `cpus` command). */
void cpu_report(void);
/* True when some PMU is present (Intel leaf 0AH or AMD perfctr-core). */
bool cpu_has_pmu(void);

#endif

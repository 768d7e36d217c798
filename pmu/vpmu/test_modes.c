/*
 * Self-tests of the vpmu's modes other than the default intel one (whose
 * registers test_vpmu.c checks): what each mode's CPUID says and its
 * register map's particulars - v2's missing STATUS_SET and full-width
 * writes, v5's fixed bitmap, hybrid's per-CPU core type, AMD's counter
 * aliases, global MSRs and overflow (bit 47 clear, the status bit set).
 * Each runs in the mode the kernel booted with and skips in others;
 * each leaves the registers it touched at 0.
 */
#include <string.h>
#include "core/arch/percpu.h"
#include "pmu/x86/amd/amd.h"
#include "pmu/x86/intel/intel.h"
#include "pmu/x86/core.h"
#include "pmu/x86/msr.h"
#include "core/selftest.h"
#include "vpmu.h"

#define MASK48 ((1ULL << 48) - 1)
#define AMD_CYCLES_OS (0x76 | EVTSEL_OS | EVTSEL_EN)

static bool in_mode(struct selftest_ctx *t, const char *mode)
{
	if (!pmu_model_in_use() || strcmp(vpmu_mode_name(), mode) != 0) {
		ST_SKIP(t, "not vpmu=%s", mode);
		return false;
	}
	if (x86_counters_busy()) {
		ST_FAIL(t, "events hold this CPU's counters");
		return false;
	}
	return true;
}

static void spin(void)
{
	for (volatile int i = 0; i < 100000; i++)
		;
}

SELFTEST(vpmu_mode_intel_v2)
{
	if (!in_mode(t, "intel-v2"))
		return;
	struct cpuid_regs r = pmu_cpuid(CPUID_PERFMON, 0);
	ST_CHECK(t, PERFMON_EAX_VERSION(r.eax) == 2);
	ST_CHECK(t, PERFMON_EAX_GP(r.eax) == 2 && PERFMON_EAX_GP_WIDTH(r.eax) == 40);
	ST_CHECK(t, PERFMON_EDX_FIXED(r.edx) == 3 && PERFMON_EDX_FIXED_WIDTH(r.edx) == 40);
	ST_CHECK(t, !(pmu_cpuid(1, 0).ecx & CPUID_1_ECX_PDCM));
	ST_CHECK(t, !intel_caps.full_width);
	uint64_t f = irq_save();
	pmu_wrmsr(MSR_IA32_PMC0, 0);
	pmu_wrmsr(MSR_IA32_A_PMC0, 0x1234);            /* no such register */
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PMC0) == 0);
	pmu_wrmsr(MSR_IA32_PMC0, 0x80000000ULL);       /* bit 31 extends to 40 */
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PMC0) == 0xff80000000ULL);
	pmu_wrmsr(MSR_IA32_PMC0, 0);
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_SET, 1); /* v4's: not here */
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) == 0);
	irq_restore(f);
}

SELFTEST(vpmu_mode_intel_v5)
{
	if (!in_mode(t, "intel-v5"))
		return;
	struct cpuid_regs r = pmu_cpuid(CPUID_PERFMON, 0);
	ST_CHECK(t, PERFMON_EAX_VERSION(r.eax) == 5);
	ST_CHECK(t, PERFMON_EAX_GP(r.eax) == 8);
	ST_CHECK(t, r.ecx == 0xf);                    /* fixed 0-3 by the bitmap */
	ST_CHECK(t, PERFMON_EDX_FIXED(r.edx) == 3);    /* the fourth from ECX only */
	ST_CHECK(t, r.edx & PERFMON_EDX_ANY_DEPRECATED);
	ST_CHECK(t, intel_caps.any_deprecated);
	uint64_t f = irq_save();
	pmu_wrmsr(MSR_IA32_FIXED_CTR0 + 3, 0x5555);    /* the fourth exists */
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_FIXED_CTR0 + 3) == 0x5555);
	pmu_wrmsr(MSR_IA32_FIXED_CTR0 + 3, 0);
	pmu_wrmsr(MSR_IA32_A_PMC0 + 7, 0x1234);        /* and GP counter 7 */
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PMC0 + 7) == 0x1234);
	pmu_wrmsr(MSR_IA32_A_PMC0 + 7, 0);
	irq_restore(f);
}

SELFTEST(vpmu_mode_hybrid)
{
	if (!in_mode(t, "hybrid"))
		return;
	uint64_t f = irq_save();
	bool core = this_cpu_id() % 2 == 0;
	struct cpuid_regs r = pmu_cpuid(CPUID_PERFMON, 0);
	ST_CHECK(t, pmu_cpuid(7, 0).edx & (1u << 15));
	ST_CHECK(t, pmu_cpuid(0, 0).eax >= 0x1a);
	ST_CHECK(t, pmu_cpuid(0x1a, 0).eax >> 24 == (core ? 0x40u : 0x20u));
	ST_CHECK(t, PERFMON_EAX_GP(r.eax) == (core ? 8u : 6u));
	ST_CHECK(t, r.ecx == (core ? 0xfu : 0x7u));
	pmu_wrmsr(MSR_IA32_A_PMC0 + 6, 0x77);          /* GP 6: core only */
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PMC0 + 6) == (core ? 0x77u : 0u));
	pmu_wrmsr(MSR_IA32_A_PMC0 + 6, 0);
	irq_restore(f);
}

/* AMD: the model's CPUID, legacy aliases, GlobalCtl's gate, a wrap
 * leaving bit 47 clear with its GlobalStatus bit, StatusClr/Set. */
SELFTEST(vpmu_mode_amd)
{
	if (!in_mode(t, "amd"))
		return;
	ST_CHECK(t, pmu_cpuid(0x80000001, 0).ecx & (1u << 23));
	struct cpuid_regs r = pmu_cpuid(0x80000022, 0);
	ST_CHECK(t, (r.eax & 1) && (r.ebx & 0xf) == 6);
	ST_CHECK(t, amd_caps.perfctr_core && amd_caps.perfmon_v2 && amd_caps.n_counters == 6);
	uint64_t f = irq_save();
	pmu_wrmsr(MSR_K7_PERFCTR0 + 3, 0x123456789abcULL); /* legacy = counter 3 */
	ST_CHECK(t, pmu_rdmsr(MSR_F15H_PERF_CTR + 6) == 0x123456789abcULL);
	pmu_wrmsr(MSR_F15H_PERF_CTR + 6, 0);
	pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0);          /* gated off */
	pmu_wrmsr(MSR_F15H_PERF_CTR, 0);
	pmu_wrmsr(MSR_F15H_PERF_CTL, AMD_CYCLES_OS | 1ULL << 19); /* reserved bit */
	ST_CHECK(t, pmu_rdmsr(MSR_K7_EVNTSEL0) == AMD_CYCLES_OS);
	spin();
	ST_CHECK(t, pmu_rdmsr(MSR_F15H_PERF_CTR) == 0);
	pmu_wrmsr(MSR_F15H_PERF_CTR, MASK48 - 100);            /* about to wrap */
	pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 1);
	spin();
	pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0);
	uint64_t v = pmu_rdmsr(MSR_F15H_PERF_CTR);
	ST_CHECK(t, v < MASK48 - 100 && !(v >> 47 & 1));       /* wrapped: bit 47 clear */
	ST_CHECK(t, pmu_rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS) == 1);
	pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, 0);       /* read-only */
	ST_CHECK(t, pmu_rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS) == 1);
	pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, 1);
	ST_CHECK(t, pmu_rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS) == 0);
	pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET, 0x24);
	ST_CHECK(t, pmu_rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS) == 0x24);
	pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, ~0ULL);
	pmu_wrmsr(MSR_F15H_PERF_CTL, 0);
	pmu_wrmsr(MSR_F15H_PERF_CTR, 0);
	irq_restore(f);
}

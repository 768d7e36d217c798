/*
 * The vpmu as an AMD core PMU with PerfCtrExtCore and PerfMonV2 (AMD
 * APM vol. 2, "Performance Monitoring Counters"; CPUID 8000_0001H and
 * 8000_0022H), as on Zen 4:
 *
 *   6 counters of 48 bits: PERF_CTL x at C001_0200 + 2x, PERF_CTR x at
 *     C001_0201 + 2x; the first four also under their legacy K7 numbers
 *     (EVNTSEL C001_0000..3, PERFCTR C001_0004..7). A counter write
 *     takes all 48 bits (no sign extension).
 *   PERF_CTL: event bits 0-7 and 32-35, umask, USR, OS, edge, INT, EN,
 *     inv, cmask, GuestOnly/HostOnly (40-41, accepted and ignored: the
 *     model has no guests); bits 19 and 21 are reserved and dropped.
 *   PerfMonV2: GlobalCtl (C000_0301; out of reset every counter's bit
 *     set, so EN alone counts, as for legacy software), GlobalStatus
 *     (C000_0300, read-only), GlobalStatusClr (C000_0302) and
 *     GlobalStatusSet (C000_0303). A counter counts with EN and its
 *     GlobalCtl bit.
 *   CPUID: 8000_0001H.ECX[23] PerfCtrExtCore; 8000_0022H EAX[0]
 *     PerfMonV2, EBX[3:0] 6 core counters; the extended leaves reach
 *     8000_0022H.
 *
 * An overflow is a counter passing 2^48: it wraps to a value whose bit
 * 47 is clear (what a driver without PerfMonV2 looks for), sets its
 * GlobalStatus bit and, with INT, raises the PMI (vpmu.c).
 */
#include "pmu/x86/msr.h"
#include "mode.h"

#define AMD_COUNTERS 6
#define AMD_LEGACY_COUNTERS 4
#define CPUID_EXT_FEATURES 0x80000001
#define CPUID_EXT_PERFMON 0x80000022
#define CPUID_PERFCTR_CORE (1u << 23)
#define PERF_CTL_RESERVED ((1ULL << 19) | (1ULL << 21))
#define PERF_CTL_BITS (0xffffffffULL | 0xfULL << 32 | 3ULL << 40)

static void amd_shape(unsigned cpu, struct vpmu_shape *s)
{
	(void)cpu;
	*s = (struct vpmu_shape){ AMD_COUNTERS, 0, 48 };
}

static uint64_t amd_global_reset(const struct vpmu_shape *s)
{
	return vpmu_counter_bits(s);
}

/* Counter i's control (ctl) or count register behind msr; -1: none. */
static int counter_of(uint32_t msr, bool *ctl)
{
	if (msr >= MSR_F15H_PERF_CTL && msr < MSR_F15H_PERF_CTL + 2 * AMD_COUNTERS) {
		*ctl = (msr - MSR_F15H_PERF_CTL) % 2 == 0;
		return (int)(msr - MSR_F15H_PERF_CTL) / 2;
	}
	if (msr >= MSR_K7_EVNTSEL0 && msr < MSR_K7_EVNTSEL0 + AMD_LEGACY_COUNTERS) {
		*ctl = true;
		return (int)(msr - MSR_K7_EVNTSEL0);
	}
	if (msr >= MSR_K7_PERFCTR0 && msr < MSR_K7_PERFCTR0 + AMD_LEGACY_COUNTERS) {
		*ctl = false;
		return (int)(msr - MSR_K7_PERFCTR0);
	}
	return -1;
}

static uint64_t amd_rdmsr(struct vpmu_regs *r, const struct vpmu_shape *s, uint32_t msr)
{
	(void)s;
	bool ctl;
	int i = counter_of(msr, &ctl);
	if (i >= 0)
		return ctl ? r->evtsel[i] : r->pmc[i];
	switch (msr) {
	case MSR_AMD64_PERF_CNTR_GLOBAL_STATUS: return r->global_status;
	case MSR_AMD64_PERF_CNTR_GLOBAL_CTL: return r->global_ctrl;
	}
	return 0; /* StatusClr and StatusSet read as 0 */
}

static void amd_wrmsr(struct vpmu_regs *r, const struct vpmu_shape *s, uint32_t msr,
		      uint64_t v)
{
	uint64_t bits = vpmu_counter_bits(s);
	bool ctl;
	int i = counter_of(msr, &ctl);
	if (i >= 0) {
		if (ctl)
			r->evtsel[i] = v & PERF_CTL_BITS & ~PERF_CTL_RESERVED;
		else
			r->pmc[i] = v & vpmu_width_mask(s);
		return;
	}
	switch (msr) {
	case MSR_AMD64_PERF_CNTR_GLOBAL_CTL: r->global_ctrl = v & bits; break;
	case MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR: r->global_status &= ~v; break;
	case MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET: r->global_status |= v & bits; break;
	}
}

static void amd_cpuid(unsigned cpu, uint32_t leaf, uint32_t sub, struct cpuid_regs *r)
{
	(void)cpu;
	(void)sub;
	if (leaf == 0x80000000 && r->eax < CPUID_EXT_PERFMON)
		r->eax = CPUID_EXT_PERFMON;
	if (leaf == CPUID_EXT_FEATURES)
		r->ecx |= CPUID_PERFCTR_CORE;
	if (leaf == CPUID_EXT_PERFMON)
		*r = (struct cpuid_regs){ .eax = 1, .ebx = AMD_COUNTERS };
	if (leaf == CPUID_PERFMON)
		*r = (struct cpuid_regs){ 0 }; /* no Intel perfmon */
}

/* RDPMC ECX 0-5 reads core counter ECX. */
static uint32_t amd_rdpmc_msr(const struct vpmu_shape *s, uint32_t ecx)
{
	return ecx < s->n_gp ? MSR_F15H_PERF_CTR + 2 * ecx : 0;
}

const struct vpmu_kind vpmu_mode_amd = {
	.name = "amd",
	.amd = true,
	.shape = amd_shape,
	.global_reset = amd_global_reset,
	.rdmsr = amd_rdmsr,
	.wrmsr = amd_wrmsr,
	.cpuid = amd_cpuid,
	.gp_event = vpmu_amd_gp_event,
	.fixed_event = NULL,
	.rdpmc_msr = amd_rdpmc_msr,
};

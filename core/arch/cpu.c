/* CPUID feature detection and the boot-time feature report. */
#include <string.h>
#include "cpu.h"
#include "core/kernel.h"
#include "x86.h"

struct cpu_features cpu;

static void copy_regs(char *dst, const uint32_t *regs, int n)
{
	memcpy(dst, regs, (size_t)n * 4);
	dst[n * 4] = 0;
}

static void detect_basic(void)
{
	struct cpuid_regs r = cpuid(0, 0);
	cpu.max_leaf = r.eax;
	uint32_t v[3] = { r.ebx, r.edx, r.ecx };
	copy_regs(cpu.vendor, v, 3);

	r = cpuid(1, 0);
	uint32_t fam = (r.eax >> 8) & 0xf, model = (r.eax >> 4) & 0xf;
	if (fam == 0xf)
		fam += (r.eax >> 20) & 0xff;
	if (fam >= 6)
		model |= ((r.eax >> 16) & 0xf) << 4;
	cpu.family = fam;
	cpu.model = model;
	cpu.stepping = r.eax & 0xf;
	cpu.x2apic = r.ecx & (1u << 21);
	cpu.tsc_deadline = r.ecx & (1u << 24);
	cpu.xsave = r.ecx & (1u << 26);
	cpu.pcid = r.ecx & (1u << 17);
	if (r.ecx & (1u << 31)) {
		struct cpuid_regs h = cpuid(0x40000000, 0);
		uint32_t hv[3] = { h.ebx, h.ecx, h.edx };
		copy_regs(cpu.hypervisor, hv, 3);
	}
	if (cpu.max_leaf >= 7) {
		r = cpuid(7, 0);
		cpu.fsgsbase = r.ebx & 1;
		cpu.smep = r.ebx & (1u << 7);
		cpu.smap = r.ebx & (1u << 20);
		cpu.umip = r.ecx & (1u << 2);
	}
}

static void detect_extended(void)
{
	struct cpuid_regs r = cpuid(0x80000000, 0);
	cpu.max_ext_leaf = r.eax;
	if (cpu.max_ext_leaf >= 0x80000001) {
		r = cpuid(0x80000001, 0);
		cpu.nx = r.edx & (1u << 20);
		cpu.pdpe1gb = r.edx & (1u << 26);
		cpu.rdtscp = r.edx & (1u << 27);
		cpu.amd_perfctr_core = r.ecx & (1u << 23);
		cpu.amd_perfctr_nb = r.ecx & (1u << 24);
		cpu.amd_perfctr_llc = r.ecx & (1u << 28);
	}
	if (cpu.max_ext_leaf >= 0x80000004) {
		uint32_t b[12];
		for (uint32_t i = 0; i < 3; i++) {
			r = cpuid(0x80000002 + i, 0);
			b[i * 4] = r.eax, b[i * 4 + 1] = r.ebx;
			b[i * 4 + 2] = r.ecx, b[i * 4 + 3] = r.edx;
		}
		copy_regs(cpu.brand, b, 12);
	}
	if (cpu.max_ext_leaf >= 0x80000007)
		cpu.invariant_tsc = cpuid(0x80000007, 0).edx & (1u << 8);
	if (cpu.max_ext_leaf >= 0x80000022 && cpu.amd_perfctr_core &&
	    (cpuid(0x80000022, 0).eax & 1))
		cpu.amd_perfmon_v2_counters = cpuid(0x80000022, 0).ebx & 0xf;
}

static void detect_pmu(void)
{
	if (cpu.max_leaf < 0xa)
		return;
	struct cpuid_regs r = cpuid(0xa, 0);
	cpu.pmu_version = r.eax & 0xff;
	cpu.pmu_gp_counters = (r.eax >> 8) & 0xff;
	cpu.pmu_gp_width = (r.eax >> 16) & 0xff;
	cpu.pmu_event_mask_len = (r.eax >> 24) & 0xff;
	cpu.pmu_events_unavailable = r.ebx;
	if (cpu.pmu_version >= 2) {
		cpu.pmu_fixed_counters = r.edx & 0x1f;
		cpu.pmu_fixed_width = (r.edx >> 5) & 0xff;
	}
}

static void detect_tsc_leaves(void)
{
	if (cpu.max_leaf >= 0x15) {
		struct cpuid_regs r = cpuid(0x15, 0);
		cpu.tsc_ratio_den = r.eax;
		cpu.tsc_ratio_num = r.ebx;
		cpu.crystal_hz = r.ecx;
	}
	if (cpu.max_leaf >= 0x16)
		cpu.base_mhz = cpuid(0x16, 0).eax & 0xffff;
}

void cpu_detect(void)
{
	detect_basic();
	detect_extended();
	detect_pmu();
	detect_tsc_leaves();
}

bool cpu_has_pmu(void)
{
	return cpu.pmu_version > 0 || cpu.amd_perfctr_core;
}

static const char *yes(bool b)
{
	return b ? "yes" : "no";
}

void cpu_report(void)
{
	klog("cpu: %s family %u model %u stepping %u \"%s\"", cpu.vendor,
	     cpu.family, cpu.model, cpu.stepping, cpu.brand);
	klog("cpu: hypervisor %s, x2apic %s, tsc-deadline %s, invariant tsc %s",
	     cpu.hypervisor[0] ? cpu.hypervisor : "none", yes(cpu.x2apic),
	     yes(cpu.tsc_deadline), yes(cpu.invariant_tsc));
	klog("cpu: nx %s, 1g pages %s, smep %s, smap %s, umip %s, rdtscp %s",
	     yes(cpu.nx), yes(cpu.pdpe1gb), yes(cpu.smep), yes(cpu.smap),
	     yes(cpu.umip), yes(cpu.rdtscp));
	if (cpu.pmu_version)
		klog("pmu: intel arch perfmon v%u: %u gp counters x %u bits, %u fixed x %u bits, "
		     "event mask len %u, unavailable %#x",
		     cpu.pmu_version, cpu.pmu_gp_counters, cpu.pmu_gp_width,
		     cpu.pmu_fixed_counters, cpu.pmu_fixed_width,
		     cpu.pmu_event_mask_len, cpu.pmu_events_unavailable);
	else
		klog("pmu: no intel arch perfmon (cpuid 0ah eax=0)");
	klog("pmu: amd perfctr-core %s, perfctr-nb %s, perfctr-llc %s, perfmon-v2 %s",
	     yes(cpu.amd_perfctr_core), yes(cpu.amd_perfctr_nb),
	     yes(cpu.amd_perfctr_llc),
	     cpu.amd_perfmon_v2_counters ? "yes" : "no");
	if (!cpu_has_pmu())
		klog("pmu: this CPU offers no hardware counters");
}

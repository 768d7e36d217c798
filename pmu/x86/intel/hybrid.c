/*
 * Hybrid CPUs (Alder Lake and later): CPUID 07H.EDX[15] says the
 * package mixes core types; on each CPU, CPUID 1AH.EAX[31:24] says which
 * one it is: 40H a Core (performance) core, 20H an Atom (efficient)
 * core. As Linux, baremon then registers two PMUs instead of "cpu":
 *
 *   cpu_core  type PERF_TYPE_RAW (4), the Core CPUs' counters;
 *   cpu_atom  a dynamic type, the Atom CPUs' counters;
 *
 * each with a `cpus` file, its own format/, events/ and caps/ from its
 * type's CPUID 0AH, and a filter: an event of one PMU is scheduled only
 * on CPUs of its type (a task's event counts while the task runs there).
 * Which PMU an event goes to is pmu/events/registry.c's (Linux's extended
 * type in config bits 63-32).
 *
 * The types are learnt once every CPU is up (perf_pmu_smp_init, before
 * user space): each CPU reads its own CPUID leaves, through perf_xcall.
 * cpu_type[] and type_caps[] are written then and only read afterwards.
 */
#include <stdio.h>
#include <string.h>
#include "core/cpumask.h"
#include "core/arch/cpu.h"
#include "core/arch/percpu.h"
#include "intel.h"
#include "core/kernel.h"
#include "pmu/x86/msr.h"
#include "pmu/perf.h"
#include "pmu/x86/rdpmc.h"
#include "pmu/x86/sysfs.h"

#define CPUID_7_EDX_HYBRID (1u << 15)
#define CORE_TYPE(eax)     ((eax) >> 24)
#define CORE_TYPE_ATOM     0x20
#define CORE_TYPE_CORE     0x40
#define CPUID_HYBRID       0x1a

enum { TYPE_CORE, TYPE_ATOM, NR_TYPES };

static bool hybrid;
static int8_t cpu_type[MAX_CPUS];          /* TYPE_*, -1: unknown */
static struct intel_caps type_caps[NR_TYPES];
static struct cpumask type_cpus[NR_TYPES];
static char cpus_text[NR_TYPES][4096];
static struct x86_sysfs type_sysfs[NR_TYPES];

bool intel_is_hybrid(uint32_t cpuid_7_edx)
{
	return cpuid_7_edx & CPUID_7_EDX_HYBRID;
}

const char *intel_hybrid_pmu_name(uint32_t cpuid_1a_eax)
{
	switch (CORE_TYPE(cpuid_1a_eax)) {
	case CORE_TYPE_CORE: return "cpu_core";
	case CORE_TYPE_ATOM: return "cpu_atom";
	}
	return NULL;
}

/* "0-3,8,10-11": runs of set CPUs, as Linux's cpumap lists; -1 if it
 * does not fit in size bytes. */
int intel_cpus_list(const struct cpumask *cpus, char *buf, size_t size)
{
	if (size < 2)
		return -1;
	cpumask_format(buf, size, cpus);
	size_t n = strlen(buf);
	return n + 1 >= size ? -1 : (int)n;
}

static int type_of(const struct pmu *pmu)
{
	return pmu == &intel_atom_pmu ? TYPE_ATOM : TYPE_CORE;
}

/* Linux's pmu::filter: true when `cpu` is not of pmu's core type. */
static bool filter(const struct pmu *pmu, unsigned c)
{
	return c >= MAX_CPUS || cpu_type[c] != type_of(pmu);
}

const struct intel_caps *intel_pmu_caps(const struct pmu *pmu)
{
	return hybrid ? &type_caps[type_of(pmu)] : &intel_caps;
}

const struct intel_caps *intel_caps_here(void)
{
	int t = hybrid ? cpu_type[this_cpu_id()] : -1;
	return t < 0 ? &intel_caps : &type_caps[t];
}

void intel_hybrid_init(void)
{
	hybrid = true;
	for (unsigned c = 0; c < MAX_CPUS; c++)
		cpu_type[c] = -1;
	intel_pmu.name = "cpu_core";
	intel_pmu.filter = intel_atom_pmu.filter = filter;
	intel_pmu.extended_hw = intel_atom_pmu.extended_hw = true;
	klog("pmu: cpu: hybrid (cpuid 07h edx[15]): cpu_core and cpu_atom, by cpuid 1ah per cpu");
}

/* On each CPU: its core type and that type's counters (CPUID 0AH). */
static void probe(void *arg)
{
	(void)arg;
	const char *name = intel_hybrid_pmu_name(pmu_cpuid(CPUID_HYBRID, 0).eax);
	if (!name)
		return; /* neither type: no core PMU counts here */
	int t = name[4] == 'a' ? TYPE_ATOM : TYPE_CORE;
	if (cpumask_empty(&type_cpus[t])) {
		struct cpuid_regs r = pmu_cpuid(CPUID_PERFMON, 0);
		struct intel_caps c = intel_caps; /* full width, model: the package's */
		if (!intel_parse_perfmon(&c, &r, !cpu.hypervisor[0]))
			return;
		type_caps[t] = c;
	}
	cpu_type[this_cpu_id()] = (int8_t)t;
	cpumask_set_atomic(&type_cpus[t], this_cpu_id());
}

static unsigned bits(uint32_t v)
{
	unsigned n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

static void register_type(int t, struct pmu *pmu, int type)
{
	const struct intel_caps *c = &type_caps[t];
	if (cpumask_empty(&type_cpus[t]))
		return;
	if (intel_cpus_list(&type_cpus[t], cpus_text[t], sizeof(cpus_text[t])) < 0)
		return;
	pmu->cpus = cpus_text[t];
	intel_sysfs_build(&type_sysfs[t], c);
	x86_sysfs_attach(pmu, &type_sysfs[t]);
	type = perf_pmu_register(pmu, type);
	perf_rdpmc_sysfs(pmu->name);
	klog("pmu: %s: type %d, cpus %s: arch perfmon v%u, %u gp + %u fixed counters", pmu->name,
	     type, pmu->cpus, c->version, c->n_gp, bits(c->fixed_mask));
}

void perf_pmu_smp_init(void)
{
	if (!hybrid)
		return;
	for (unsigned c = 0; c < cpu_ids; c++)
		if (percpu_area[c].online)
			perf_xcall(c, probe, NULL);
	register_type(TYPE_CORE, &intel_pmu, PERF_TYPE_RAW);
	register_type(TYPE_ATOM, &intel_atom_pmu, -1);
	intel_caps.registered = !cpumask_empty(&type_cpus[TYPE_CORE]) ||
			       !cpumask_empty(&type_cpus[TYPE_ATOM]);
}

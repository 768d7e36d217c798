/*
 * Hybrid CPUs (Alder Lake and later), the pure part: CPUID 07H.EDX[15]
 * says the package mixes core types; on each CPU, CPUID 1AH.EAX[31:24]
 * says which one it is: 40H a Core (performance) core, 20H an Atom
 * (efficient) core. Linux registers one PMU per type, "cpu_core" and
 * "cpu_atom", each with a `cpus` file listing its CPUs, and binds an
 * event to its PMU's CPUs. baremon parses and names them here; the two
 * PMUs are not registered yet (docs/pmu.md): each type needs its own
 * CPUID 0AH capabilities and the event core a per-CPU PMU filter.
 */
#include <stdio.h>
#include "intel.h"

#define CPUID_7_EDX_HYBRID (1u << 15)
#define CORE_TYPE(eax)     ((eax) >> 24)
#define CORE_TYPE_ATOM     0x20
#define CORE_TYPE_CORE     0x40

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

/* "0-3,8,10-11": runs of set bits, as Linux's cpumap lists. */
int intel_cpus_list(uint64_t cpus, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = 0;
	for (unsigned c = 0; c < 64;) {
		if (!(cpus >> c & 1)) {
			c++;
			continue;
		}
		unsigned end = c;
		while (end + 1 < 64 && (cpus >> (end + 1) & 1))
			end++;
		int w = end > c ? snprintf(buf + n, size - n, "%s%u-%u", n ? "," : "", c, end)
				: snprintf(buf + n, size - n, "%s%u", n ? "," : "", c);
		if (w < 0 || (size_t)w >= size - n)
			return -1;
		n += (size_t)w;
		c = end + 1;
	}
	return (int)n;
}

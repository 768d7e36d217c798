/*
 * Self-tests of the Intel driver's pure parts, fed synthetic CPUs: CPUID
 * 0AH parsing (the v5 fixed-counter bitmap, more than 3 fixed and more
 * than 8 GP counters), counter placement with Linux's constraint tables
 * and Eranian's fixed-counter rule, hybrid core types. None needs the
 * model: these are the paths no vpmu mode exercised when written.
 */
#include <string.h>
#include "intel.h"
#include "core/kernel.h"
#include "pmu/x86/msr.h"
#include "core/selftest.h"

#define EAX(ver, gp, width) ((ver) | (gp) << 8 | (width) << 16 | 7u << 24)
#define EDX(fixed, width)   ((fixed) | (width) << 5)

static struct intel_caps parse(uint32_t eax, uint32_t ecx, uint32_t edx, bool bare, bool *ok)
{
	struct intel_caps c = { 0 };
	struct cpuid_regs r = { .eax = eax, .ebx = 0, .ecx = ecx, .edx = edx };
	*ok = intel_parse_perfmon(&c, &r, bare);
	return c;
}

SELFTEST(intel_cpuid_fixed_bitmap)
{
	bool ok;
	/* v5: ECX bitmap alone (fixed 0 and 3), EDX counting none */
	struct intel_caps c = parse(EAX(5, 8, 48), 0x9, EDX(0, 48), true, &ok);
	ST_CHECK(t, ok && c.version == 5 && c.fixed_mask == 0x9 && c.fixed_width == 48);
	/* v5: EDX's first 3, plus bit 3 (TOPDOWN.SLOTS) from ECX */
	c = parse(EAX(5, 8, 48), 0x8, EDX(3, 48), true, &ok);
	ST_CHECK(t, ok && c.fixed_mask == 0xf);
	/* v5: bits past what the driver handles are dropped */
	c = parse(EAX(5, 8, 48), 0xff, EDX(0, 48), true, &ok);
	ST_CHECK(t, ok && c.fixed_mask == (1u << INTEL_MAX_FIXED) - 1);
	/* v4: ECX is no bitmap; EDX = 4 gives 4 fixed counters */
	c = parse(EAX(4, 4, 48), 0x40, EDX(4, 48), true, &ok);
	ST_CHECK(t, ok && c.fixed_mask == 0xf);
	/* v2 on bare metal reporting none: 3 assumed, as Linux; in a VM: none */
	c = parse(EAX(2, 2, 40), 0, EDX(0, 0), true, &ok);
	ST_CHECK(t, ok && c.fixed_mask == 0x7 && c.fixed_width == 40);
	c = parse(EAX(2, 2, 40), 0, EDX(0, 0), false, &ok);
	ST_CHECK(t, ok && c.fixed_mask == 0);
	/* v1: no fixed counters */
	c = parse(EAX(1, 2, 40), 0x7, EDX(3, 40), true, &ok);
	ST_CHECK(t, ok && c.fixed_mask == 0);
	/* v5: AnyThread deprecated (EDX[15]) */
	c = parse(EAX(5, 8, 48), 0, EDX(3, 48) | 1u << 15, true, &ok);
	ST_CHECK(t, ok && c.any_deprecated);
	/* an EBX vector shorter than the 7 architectural events: unusable */
	struct cpuid_regs r = { .eax = 5 | 8 << 8 | 48 << 16 | 6u << 24 };
	ST_CHECK(t, !intel_parse_perfmon(&c, &r, true));
}

SELFTEST(intel_cpuid_many_gp)
{
	bool ok;
	struct intel_caps c = parse(EAX(5, 10, 48), 0, EDX(3, 48), true, &ok);
	ST_CHECK(t, ok && c.n_gp == 10);
	c = parse(EAX(5, 40, 48), 0, EDX(3, 48), true, &ok);
	ST_CHECK(t, ok && c.n_gp == INTEL_MAX_GP);
	/* every one of 12 is placed, GP 0..11, then none is left */
	c = parse(EAX(5, 12, 48), 0, EDX(3, 48), true, &ok);
	const struct intel_constraint *none = intel_constraints_for(6, 0x55);
	uint64_t used = 0;
	for (int i = 0; i < 12; i++) {
		int idx = intel_place(&c, none, ARCH_BRANCHES | EVTSEL_USR, used);
		ST_CHECK(t, idx == i);
		used |= 1ULL << (idx < 0 ? 63 : idx);
	}
	ST_CHECK(t, intel_place(&c, none, ARCH_BRANCHES, used) == -1);
}

/* Eranian's rule: fixed counters filter by mode only. */
SELFTEST(intel_fixed_mode_only)
{
	struct intel_caps c = { .version = 5, .n_gp = 4, .fixed_mask = 0x7f };
	const struct intel_constraint *none = intel_constraints_for(6, 0x55);
	uint64_t usr_os = EVTSEL_USR | EVTSEL_OS;
	ST_CHECK(t, intel_place(&c, none, ARCH_INSTRUCTIONS | usr_os, 0) == PMC_IDX_FIXED + 0);
	ST_CHECK(t, intel_place(&c, none, ARCH_CORE_CYCLES | EVTSEL_USR, 0) == PMC_IDX_FIXED + 1);
	ST_CHECK(t, intel_place(&c, none, ARCH_INSTRUCTIONS | 1ULL << 24, 0) == 0); /* cmask */
	ST_CHECK(t, intel_place(&c, none, ARCH_INSTRUCTIONS | EVTSEL_INV, 0) == 0);
	ST_CHECK(t, intel_place(&c, none, ARCH_CORE_CYCLES | EVTSEL_EDGE, 0) == 0);
	ST_CHECK(t, intel_place(&c, none, ARCH_CORE_CYCLES | EVTSEL_ANY, 0) == 0);
	/* the fixed counter taken: a GP one */
	ST_CHECK(t, intel_place(&c, none, ARCH_CORE_CYCLES, 1ULL << (PMC_IDX_FIXED + 1)) == 0);
	/* pseudo-encodings: their fixed counter or nothing */
	ST_CHECK(t, intel_place(&c, none, ARCH_REF_CYCLES_FIXED, 0) == PMC_IDX_FIXED + 2);
	ST_CHECK(t, intel_place(&c, none, 0x0400, 0) == PMC_IDX_FIXED + 3); /* TOPDOWN.SLOTS */
	ST_CHECK(t, intel_place(&c, none, 0x0600, 0) == PMC_IDX_FIXED + 5);
	ST_CHECK(t, intel_place(&c, none, 0x0400, 1ULL << (PMC_IDX_FIXED + 3)) == -1);
	c.fixed_mask = 0x7; /* no fixed 3 */
	ST_CHECK(t, intel_place(&c, none, 0x0400, 0) == -1);
	ST_CHECK(t, intel_place(&c, none, 0x0200, 0) == 0); /* not a pseudo-encoding */
	ST_CHECK(t, intel_fixed_for(0x0400 | 1ULL << 24) == -1);
}

/* Sandy Bridge's table: constrained events on their counters only;
 * unconstrained ones take the counters fewest entries want first. */
SELFTEST(intel_constraints_snb)
{
	struct intel_caps c = { .version = 3, .n_gp = 4, .fixed_mask = 0x7 };
	const struct intel_constraint *snb = intel_constraints_for(6, 0x2a);
	ST_CHECK(t, snb != intel_constraints_for(6, 0x55));
	uint64_t l1d_pend = 0x0148 | EVTSEL_USR, prec_dist = 0x01c0, ldlat = 0x01cd;
	ST_CHECK(t, intel_place(&c, snb, l1d_pend, 0) == 2);
	ST_CHECK(t, intel_place(&c, snb, l1d_pend, 1ULL << 2) == -1);
	ST_CHECK(t, intel_place(&c, snb, prec_dist, 0) == 1);
	ST_CHECK(t, intel_place(&c, snb, ldlat, 0) == 3);
	ST_CHECK(t, intel_place(&c, snb, 0x04a3, 0x1) == 1); /* 0xf: the lowest free */
	ST_CHECK(t, intel_place(&c, snb, 0x08a3, 0) == 0);   /* umask not in the table */
	/* four unconstrained: 0, 1, 3 (wanted by 3 entries), 2 (by 5) */
	int want[4] = { 0, 1, 3, 2 };
	uint64_t used = 0;
	for (int i = 0; i < 4; i++) {
		int idx = intel_place(&c, snb, ARCH_BRANCHES, used);
		ST_CHECK(t, idx == want[i]);
		if (i == 2) /* three placed: counter 2 still free for L1D_PEND_MISS */
			ST_CHECK(t, intel_place(&c, snb, l1d_pend, used | 1ULL << idx) == 2);
		used |= 1ULL << (idx < 0 ? 63 : idx);
	}
	/* Westmere: OFFCORE_REQUESTS_OUTSTANDING on counter 0 only */
	const struct intel_constraint *wsm = intel_constraints_for(6, 0x2c);
	ST_CHECK(t, intel_place(&c, wsm, 0x0160, 0) == 0);
	ST_CHECK(t, intel_place(&c, wsm, 0x0160, 1) == -1);
}

SELFTEST(intel_hybrid_core_types)
{
	ST_CHECK(t, intel_is_hybrid(1u << 15) && !intel_is_hybrid(0));
	ST_CHECK(t, strcmp(intel_hybrid_pmu_name(0x40000001), "cpu_core") == 0);
	ST_CHECK(t, strcmp(intel_hybrid_pmu_name(0x20000000), "cpu_atom") == 0);
	ST_CHECK(t, intel_hybrid_pmu_name(0) == NULL);
	char buf[32];
	struct cpumask m;
	cpumask_clear(&m);
	for (unsigned c = 0; c < 12; c++)
		if (0xd0f >> c & 1)
			cpumask_set(&m, c);
	ST_CHECK(t, intel_cpus_list(&m, buf, sizeof(buf)) > 0 && strcmp(buf, "0-3,8,10-11") == 0);
	m = cpumask_of(1000); /* past the old 64-bit mask */
	ST_CHECK(t, intel_cpus_list(&m, buf, sizeof(buf)) > 0 && strcmp(buf, "1000") == 0);
	cpumask_clear(&m);
	for (unsigned c = 0; c < 16; c += 2)
		cpumask_set(&m, c);
	ST_CHECK(t, intel_cpus_list(&m, buf, 4) == -1);
}

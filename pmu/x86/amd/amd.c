/*
 * The AMD core PMU driver: finds the PMU from CPUID (vendor AuthenticAMD
 * or HygonGenuine; 8000_0001H.ECX[23] PerfCtrExtCore for six counters at
 * C001_0200.., else the four legacy K7 counters at C001_0000..;
 * 8000_0022H for PerfMonV2's global control and status and its counter
 * count), falls back to the software model (its AMD mode) when a guest
 * has no counters, and registers the PMU "cpu" with Linux's attribute rules
 * (arch/x86/events/amd/core.c):
 *
 *   HARDWARE  Linux's generic map for the family (17h and later, or the
 *             older one); configs past PERF_COUNT_HW_MAX EINVAL, events
 *             without an encoding ENOENT;
 *   HW_CACHE  Linux's table for the family: a 0 entry ENOENT, a -1
 *             entry (no such combination) EINVAL;
 *   RAW       event bits 0-7 and 32-35, umask, edge, inv, cmask; other
 *             bits are dropped, as Linux drops them.
 *
 * On the model, events it never counts (cache events, branch misses,
 * stalls) are left out of both tables - the model's answer to CPUID
 * 0AH.EBX on Intel - so they are ENOENT rather than a count of 0.
 *
 * amd_caps is written once at boot, before user space, then only read.
 */
#include <linux/errno.h>
#include "amd.h"
#include "core/arch/cpu.h"
#include "core/kernel.h"
#include "pmu/perf.h"
#include "pmu/x86/amd/lbr_extv2.h"
#include "pmu/x86/core.h"
#include "pmu/x86/msr.h"
#include "pmu/x86/sysfs.h"

#define CPUID_EXT_FEATURES 0x80000001
#define CPUID_EXT_PERFMON 0x80000022
#define CPUID_PERFCTR_CORE (1u << 23)
#define LEGACY_COUNTERS 4
#define EXT_CORE_COUNTERS 6
#define FAMILY_ZEN 0x17

struct amd_caps amd_caps;

/* ---- Linux's tables ---- */

/* Families up to 16h (K7 and later). */
static const uint64_t map_k7[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES] = 0x0076,
	[PERF_COUNT_HW_INSTRUCTIONS] = 0x00c0,
	[PERF_COUNT_HW_CACHE_REFERENCES] = 0x077d,
	[PERF_COUNT_HW_CACHE_MISSES] = 0x077e,
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = 0x00c2,
	[PERF_COUNT_HW_BRANCH_MISSES] = 0x00c3,
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = 0x00d0,
	[PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = 0x00d1,
};

/* Family 17h and later. */
static const uint64_t map_zen[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES] = 0x0076,
	[PERF_COUNT_HW_INSTRUCTIONS] = 0x00c0,
	[PERF_COUNT_HW_CACHE_REFERENCES] = 0xff60,
	[PERF_COUNT_HW_CACHE_MISSES] = 0x0964,
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = 0x00c2,
	[PERF_COUNT_HW_BRANCH_MISSES] = 0x00c3,
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = 0x0287,
	[PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = 0x0187,
};

/* HW_CACHE: [cache][op][result]; 0 no event (ENOENT), NA no such
 * combination (EINVAL). */
#define NA X86_CACHE_NA
#define NC PERF_COUNT_HW_CACHE_MAX
#define NO PERF_COUNT_HW_CACHE_OP_MAX
#define NR PERF_COUNT_HW_CACHE_RESULT_MAX
static const x86_cache_table cache_k7 = {
	/* L1D */  { { 0x0040, 0x0141 }, { 0, 0 }, { 0x0267, 0x0167 } },
	/* L1I */  { { 0x0080, 0x0081 }, { NA, NA }, { 0x014b, 0 } },
	/* LL */   { { 0x037d, 0x037e }, { 0x017f, 0 }, { 0, 0 } },
	/* DTLB */ { { 0x0040, 0x0746 }, { 0, 0 }, { 0, 0 } },
	/* ITLB */ { { 0x0080, 0x0385 }, { NA, NA }, { NA, NA } },
	/* BPU */  { { 0x00c2, 0x00c3 }, { NA, NA }, { NA, NA } },
	/* NODE */ { { 0xb8e9, 0x98e9 }, { NA, NA }, { NA, NA } },
};
static const x86_cache_table cache_zen = {
	/* L1D */  { { 0x0040, 0xc860 }, { 0, 0 }, { 0xff5a, 0 } },
	/* L1I */  { { 0x0080, 0x0081 }, { NA, NA }, { 0, 0 } },
	/* LL */   { { 0, 0 }, { 0, 0 }, { 0, 0 } },
	/* DTLB */ { { 0xff45, 0xf045 }, { 0, 0 }, { 0, 0 } },
	/* ITLB */ { { 0x0084, 0xff85 }, { NA, NA }, { NA, NA } },
	/* BPU */  { { 0x00c2, 0x00c3 }, { NA, NA }, { NA, NA } },
	/* NODE */ { { 0, 0 }, { NA, NA }, { NA, NA } },
};

/* This CPU's tables, copied at boot (and pruned on the model). */
static uint64_t event_map[PERF_COUNT_HW_MAX];
static x86_cache_table cache_map;

/* ---- attributes (the x86 layer's hw_config.c does the rest) ---- */

static bool is_raw(const struct perf_event *e)
{
	return e->attr.type == PERF_TYPE_RAW;
}

/* Linux's amd_core_hw_config: host/guest bits; both excluded counts
 * nowhere. */
static uint64_t config_fixup(const struct perf_event *e, uint64_t c)
{
	const struct perf_event_attr *a = &e->attr;
	if (a->exclude_host && a->exclude_guest)
		c &= ~(EVTSEL_USR | EVTSEL_OS);
	else if (a->exclude_host)
		c |= AMD_EVENTSEL_GUESTONLY;
	else if (a->exclude_guest)
		c |= AMD_EVENTSEL_HOSTONLY;
	return c;
}

/* Linux's order (amd_pmu_hw_config, x86_pmu_hw_config): branch stacks,
 * the event itself, aux output, then the LBR's own checks. */
static int hw_config(struct perf_event *e)
{
	const struct perf_event_attr *a = &e->attr;
	int r;
	if ((a->sample_type & PERF_SAMPLE_BRANCH_STACK) && !amd_lbr_depth())
		return -EOPNOTSUPP; /* no LbrExtV2 */
	if ((r = x86_setup_perfctr(a)) != 0)
		return r;
	if (a->aux_output)
		return -EINVAL;
	return amd_lbr_event_init(e);
}

static struct x86_pmu ops = {
	.name = "amd",
	.pmus = { &amd_pmu, NULL },
	.event_map = event_map,
	.cache_map = &cache_map,
	.raw_mask = AMD_RAW_EVENT_MASK,
	.is_raw = is_raw,
	.hw_config = hw_config,
	.config_fixup = config_fixup,
};

/* ---- sysfs ---- */

static struct x86_sysfs sysfs;

/* Linux's amd_format_attr. */
static void sysfs_format(void)
{
	x86_sysfs_add(sysfs.format, "event", "config:0-7,32-35");
	x86_sysfs_add(sysfs.format, "umask", "config:8-15");
	x86_sysfs_add(sysfs.format, "edge", "config:18");
	x86_sysfs_add(sysfs.format, "inv", "config:23");
	x86_sysfs_add(sysfs.format, "cmask", "config:24-31");
}

/* Its ops are the x86 layer's (x86_pmu_register). */
struct pmu amd_pmu = { .name = "cpu" };

/* ---- detection ---- */

/* The model's known events only: what it never counts is ENOENT. */
static void prune_for_model(void)
{
	for (unsigned i = 0; i < PERF_COUNT_HW_MAX; i++)
		if (event_map[i] && !pmu_model_event_known(event_map[i]))
			event_map[i] = 0;
	for (unsigned t = 0; t < NC; t++)
		for (unsigned o = 0; o < NO; o++)
			for (unsigned r = 0; r < NR; r++) {
				uint64_t v = cache_map[t][o][r];
				if (v && v != NA && !pmu_model_event_known(v))
					cache_map[t][o][r] = 0;
			}
}

static void copy_tables(void)
{
	bool zen = amd_caps.family >= FAMILY_ZEN;
	const uint64_t *m = zen ? map_zen : map_k7;
	for (unsigned i = 0; i < PERF_COUNT_HW_MAX; i++)
		event_map[i] = m[i];
	for (unsigned t = 0; t < NC; t++)
		for (unsigned o = 0; o < NO; o++)
			for (unsigned r = 0; r < NR; r++)
				cache_map[t][o][r] = zen ? cache_zen[t][o][r] : cache_k7[t][o][r];
	if (amd_caps.model_pmu)
		prune_for_model();
}

static bool detect(void)
{
	if (!pmu_cpu_is_amd())
		return false;
	amd_caps.family = cpu.family;
	amd_caps.model = cpu.model;
	amd_caps.model_pmu = pmu_need_model();
	if (amd_caps.model_pmu)
		pmu_use_model();
	struct cpuid_regs r = pmu_cpuid(0x80000000, 0);
	uint32_t max_ext = r.eax;
	if (max_ext >= CPUID_EXT_FEATURES)
		amd_caps.perfctr_core = pmu_cpuid(CPUID_EXT_FEATURES, 0).ecx & CPUID_PERFCTR_CORE;
	amd_caps.n_counters = amd_caps.perfctr_core ? EXT_CORE_COUNTERS : LEGACY_COUNTERS;
	if (amd_caps.perfctr_core && max_ext >= CPUID_EXT_PERFMON) {
		r = pmu_cpuid(CPUID_EXT_PERFMON, 0);
		amd_caps.perfmon_v2 = r.eax & 1;
		if (amd_caps.perfmon_v2 && (r.ebx & 0xf))
			amd_caps.n_counters = r.ebx & 0xf;
	}
	if (amd_caps.n_counters > AMD_MAX_COUNTERS)
		amd_caps.n_counters = AMD_MAX_COUNTERS;
	return true;
}

static void report(void)
{
	bool m = amd_caps.model_pmu;
	klog("pmu: cpu: amd family %xh model %xh: %s%s%s, %u counters x %u bits%s",
	     amd_caps.family, amd_caps.model,
	     m ? pmu_model_name() : "", m ? ", a software model of " : "",
	     amd_caps.perfctr_core ? "perfctr-core" : "legacy k7 counters",
	     amd_caps.n_counters, AMD_WIDTH, amd_caps.perfmon_v2 ? ", perfmon-v2" : "");
	if (amd_caps.model_pmu)
		klog("pmu: cpu: the model counts cycles (76h), instructions (c0h: %s) and "
		     "branches (c2h, c4h, c8h, d1h from family 17h: single-step, user mode); cache events, "
		     "branch misses and stalls are not modelled",
		     pmu_model_insns_by_clock() ? "instruction clock, both modes"
						: "single-step, user mode only");
}

void amd_pmu_init(void)
{
	if (!detect())
		return;
	copy_tables();
	sysfs_format();
	x86_sysfs_events(&sysfs, event_map);
	amd_counters_ops(&ops);
	x86_pmu_register(&ops);
	amd_lbr_init();
	x86_sysfs_branches(&sysfs, amd_lbr_depth()); /* Linux's group_caps_amd_branches */
	x86_sysfs_add(sysfs.caps, "max_precise", "0");
	x86_sysfs_model(&sysfs);
	x86_sysfs_attach(&amd_pmu, &sysfs);
	perf_pmu_register(&amd_pmu, PERF_TYPE_RAW);
	amd_caps.registered = true;
	report();
}

/*
 * The AMD core PMU driver: finds the PMU from CPUID (vendor AuthenticAMD
 * or HygonGenuine; 8000_0001H.ECX[23] PerfCtrExtCore for six counters at
 * C001_0200.., else the four legacy K7 counters at C001_0000..;
 * 8000_0022H for PerfMonV2's global control and status and its counter
 * count), falls back to the software model (vpmu=amd) when a guest has
 * no counters, and registers the PMU "cpu" with Linux's attribute rules
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
 * stalls) are left out of both tables - the vpmu's answer to CPUID
 * 0AH.EBX on Intel - so they are ENOENT rather than a count of 0.
 *
 * amd_caps is written once at boot, before user space, then only read.
 */
#include <linux/errno.h>
#include "amd.h"
#include "pmu/x86/amd/lbr_extv2.h"
#include "core/arch/cpu.h"
#include "core/kernel.h"
#include "pmu/x86/msr.h"
#include "pmu/perf.h"
#include "pmu/vpmu/vpmu.h"
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
#define NA (~0ULL)
#define NC PERF_COUNT_HW_CACHE_MAX
#define NO PERF_COUNT_HW_CACHE_OP_MAX
#define NR PERF_COUNT_HW_CACHE_RESULT_MAX
static const uint64_t cache_k7[NC][NO][NR] = {
	/* L1D */  { { 0x0040, 0x0141 }, { 0, 0 }, { 0x0267, 0x0167 } },
	/* L1I */  { { 0x0080, 0x0081 }, { NA, NA }, { 0x014b, 0 } },
	/* LL */   { { 0x037d, 0x037e }, { 0x017f, 0 }, { 0, 0 } },
	/* DTLB */ { { 0x0040, 0x0746 }, { 0, 0 }, { 0, 0 } },
	/* ITLB */ { { 0x0080, 0x0385 }, { NA, NA }, { NA, NA } },
	/* BPU */  { { 0x00c2, 0x00c3 }, { NA, NA }, { NA, NA } },
	/* NODE */ { { 0xb8e9, 0x98e9 }, { NA, NA }, { NA, NA } },
};
static const uint64_t cache_zen[NC][NO][NR] = {
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
static uint64_t cache_map[NC][NO][NR];

/* ---- attributes ---- */

uint64_t amd_event_config(const struct perf_event *e)
{
	const struct perf_event_attr *a = &e->attr;
	uint64_t c = EVTSEL_INT;
	if (!a->exclude_user)
		c |= EVTSEL_USR;
	if (!a->exclude_kernel)
		c |= EVTSEL_OS;
	if (a->type == PERF_TYPE_HARDWARE && a->config < PERF_COUNT_HW_MAX)
		c |= event_map[a->config];
	else if (a->type == PERF_TYPE_HW_CACHE)
		c |= cache_map[a->config & 0xff][a->config >> 8 & 0xff][a->config >> 16 & 0xff];
	else if (a->type == PERF_TYPE_RAW)
		c |= a->config & AMD_RAW_EVENT_MASK;
	/* Linux's amd_core_hw_config: host/guest bits; both excluded counts
	 * nowhere. */
	if (a->exclude_host && a->exclude_guest)
		c &= ~(EVTSEL_USR | EVTSEL_OS);
	else if (a->exclude_host)
		c |= AMD_EVENTSEL_GUESTONLY;
	else if (a->exclude_guest)
		c |= AMD_EVENTSEL_HOSTONLY;
	return c;
}

static int check_hardware(const struct perf_event_attr *a)
{
	if (a->config >= PERF_COUNT_HW_MAX)
		return -EINVAL;
	if (!event_map[a->config])
		return -ENOENT;
	/* A period of 1 on branches asks for BTS, which AMD lacks. */
	if (a->config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS && !a->freq &&
	    a->sample_period == 1)
		return -EOPNOTSUPP;
	return 0;
}

static int check_cache(uint64_t config)
{
	unsigned type = config & 0xff, op = config >> 8 & 0xff, res = config >> 16 & 0xff;
	if (type >= NC || op >= NO || res >= NR)
		return -EINVAL;
	uint64_t v = cache_map[type][op][res];
	if (v == NA)
		return -EINVAL;
	return v ? 0 : -ENOENT;
}

/* Linux's order (amd_pmu_hw_config, x86_pmu_hw_config): precise_ip
 * (IBS, which we lack), branch stacks, the event itself, aux output,
 * then whether it fits the counters. */
static int amd_event_init(struct perf_event *e)
{
	const struct perf_event_attr *a = &e->attr;
	int r = 0;
	if (a->type != PERF_TYPE_HARDWARE && a->type != PERF_TYPE_HW_CACHE &&
	    a->type != PERF_TYPE_RAW)
		return -ENOENT;
	if (a->precise_ip)
		return -EOPNOTSUPP; /* no IBS: max_precise is 0 */
	if ((a->sample_type & PERF_SAMPLE_BRANCH_STACK) && !amd_lbr_depth())
		return -EOPNOTSUPP; /* no LbrExtV2 */
	if (a->type == PERF_TYPE_HARDWARE)
		r = check_hardware(a);
	else if (a->type == PERF_TYPE_HW_CACHE)
		r = check_cache(a->config);
	if (r)
		return r;
	if (a->aux_output)
		return -EINVAL;
	if ((r = amd_lbr_event_init(e)) != 0)
		return r;
	e->hw.config = amd_event_config(e);
	if (amd_caps.model_pmu && (r = vpmu_event_check(e->hw.config)) != 0)
		return r; /* the model cannot count it exactly */
	e->hw.idx = -1;
	e->hw.flags = 0;
	return amd_pick_counter(0) < 0 ? -EINVAL : 0;
}

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

struct pmu amd_pmu = {
	.name = "cpu",
	.scarce = true,
	.event_init = amd_event_init,
	.group_fits = amd_group_fits,
	.add = amd_add,
	.del = amd_del,
	.start = amd_start,
	.stop = amd_stop,
	.read = amd_read,
};

/* ---- detection ---- */

/* The model's known events only: what it never counts is ENOENT. */
static void prune_for_model(void)
{
	for (unsigned i = 0; i < PERF_COUNT_HW_MAX; i++)
		if (event_map[i] && !vpmu_event_known(event_map[i]))
			event_map[i] = 0;
	for (unsigned t = 0; t < NC; t++)
		for (unsigned o = 0; o < NO; o++)
			for (unsigned r = 0; r < NR; r++) {
				uint64_t v = cache_map[t][o][r];
				if (v && v != NA && !vpmu_event_known(v))
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
	klog("pmu: cpu: amd family %xh model %xh: %s%s, %u counters x %u bits%s",
	     amd_caps.family, amd_caps.model,
	     amd_caps.model_pmu ? "vpmu, a software model of " : "",
	     amd_caps.perfctr_core ? "perfctr-core" : "legacy k7 counters",
	     amd_caps.n_counters, AMD_WIDTH, amd_caps.perfmon_v2 ? ", perfmon-v2" : "");
	if (amd_caps.model_pmu)
		klog("pmu: cpu: the model counts cycles (76h), instructions (c0h: %s) and "
		     "branches (c2h, c4h, c8h, d1h from family 17h: single-step, user mode); cache events, "
		     "branch misses and stalls are not modelled",
		     vpmu_icount_on() ? "instruction clock, both modes"
				      : "single-step, user mode only");
}

void amd_pmu_init(void)
{
	if (!detect())
		return;
	copy_tables();
	sysfs_format();
	x86_sysfs_events(&sysfs, event_map);
	amd_counters_init();
	amd_lbr_init();
	x86_sysfs_branches(&sysfs, amd_lbr_depth()); /* Linux's group_caps_amd_branches */
	x86_sysfs_add(sysfs.caps, "max_precise", "0");
	x86_sysfs_model(&sysfs);
	x86_sysfs_attach(&amd_pmu, &sysfs);
	perf_pmu_register(&amd_pmu, PERF_TYPE_RAW);
	amd_caps.registered = true;
	report();
}

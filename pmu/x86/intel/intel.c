/*
 * The Intel architectural perfmon driver: finds the PMU from CPUID leaf
 * 0AH alone (MSRs are never probed: emulators accept and ignore them),
 * falls back to the software model (pmu_use_model) when the CPU has no PMU,
 * and registers the PMU "cpu" with Linux's attribute rules:
 *
 *   HARDWARE  generic events mapped to architectural encodings; those
 *             CPUID 0AH.EBX marks unavailable are ENOENT, configs past
 *             PERF_COUNT_HW_MAX EINVAL;
 *   HW_CACHE  no cache-event table on architectural perfmon: a valid
 *             (type, op, result) is ENOENT, an invalid one EINVAL;
 *   RAW       the selector bits event, umask, edge, inv, cmask (and any,
 *             checked); other bits are dropped, as Linux drops them.
 *
 * intel_caps is written once at boot, before user space, then only read.
 */
#include <linux/errno.h>
#include "core/arch/cpu.h"
#include "core/fs/vfs.h"
#include "core/kernel.h"
#include "core/proc/task.h"
#include "intel.h"
#include "pmu/perf.h"
#include "pmu/x86/core.h"
#include "pmu/x86/msr.h"
#include "pmu/x86/sysfs.h"

struct intel_caps intel_caps;

/* Linux's generic map for Intel; ref-cycles uses a pseudo-encoding only
 * fixed counter 2 takes. Unavailable events are zeroed at boot. */
static uint64_t event_map[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES] = ARCH_CORE_CYCLES,
	[PERF_COUNT_HW_INSTRUCTIONS] = ARCH_INSTRUCTIONS,
	[PERF_COUNT_HW_CACHE_REFERENCES] = ARCH_LLC_REFS,
	[PERF_COUNT_HW_CACHE_MISSES] = ARCH_LLC_MISSES,
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = ARCH_BRANCHES,
	[PERF_COUNT_HW_BRANCH_MISSES] = ARCH_BRANCH_MISSES,
	[PERF_COUNT_HW_BUS_CYCLES] = ARCH_REF_CYCLES,
	[PERF_COUNT_HW_REF_CPU_CYCLES] = ARCH_REF_CYCLES_FIXED,
};

/* The generic event each CPUID 0AH.EBX bit takes away (Linux's pairing:
 * the reference-cycles bit removes bus-cycles, 013CH). */
static const unsigned ebx_event[PERFMON_EVENTS] = {
	PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS,
	PERF_COUNT_HW_BUS_CYCLES, PERF_COUNT_HW_CACHE_REFERENCES,
	PERF_COUNT_HW_CACHE_MISSES, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	PERF_COUNT_HW_BRANCH_MISSES,
};

/* ---- attributes ---- */

/* A raw selector: PERF_TYPE_RAW, or cpu_atom's dynamic type. */
static bool is_raw(const struct perf_event *e)
{
	uint32_t t = e->attr.type;
	return t == PERF_TYPE_RAW || (e->pmu == &intel_atom_pmu && t == intel_atom_pmu.type);
}

/* AnyThread counts the sibling hyper-thread too: version 3 or later,
 * not deprecated, and CPU-wide permission (perf_allow_cpu). */
static int check_any(const struct perf_event *e)
{
	const struct perf_event_attr *a = &e->attr;
	if (!is_raw(e) || !(a->config & EVTSEL_ANY))
		return 0;
	if (intel_caps.version < 3 || intel_caps.any_deprecated)
		return -EINVAL;
	if (sysctl_perf_event_paranoid() > 0 && current->euid != 0)
		return -EACCES;
	return 0;
}

/* Linux's order (intel_pmu_hw_config): the event itself, branch
 * stacks, aux output, AnyThread. */
static int hw_config(struct perf_event *e)
{
	const struct perf_event_attr *a = &e->attr;
	int r;
	if ((r = x86_setup_perfctr(a)) != 0)
		return r;
	if ((r = intel_lbr_event_init(a)) != 0)
		return r; /* no LBR, or a filter it cannot apply */
	if (a->aux_output)
		return -EINVAL; /* needs precise_ip */
	return check_any(e);
}

/* The x86 layer's ops: intel.c's part (intel_counters.c adds the
 * counters'). */
static struct x86_pmu ops = {
	.name = "intel",
	.pmus = { &intel_pmu, &intel_atom_pmu },
	.event_map = event_map,
	.cache_map = NULL, /* architectural perfmon has no cache events */
	.raw_mask = EVTSEL_RAW_MASK | EVTSEL_ANY,
	.is_raw = is_raw,
	.hw_config = hw_config,
	.event_init_done = intel_lbr_alloc, /* a task's call stack: room to save it */
};

/* ---- sysfs ---- */

static void sysfs_format(struct x86_sysfs *s, const struct intel_caps *c)
{
	struct pmu_sysfs_entry *f = s->format;
	x86_sysfs_add(f, "event", "config:0-7");
	x86_sysfs_add(f, "umask", "config:8-15");
	x86_sysfs_add(f, "edge", "config:18");
	x86_sysfs_add(f, "pc", "config:19");
	if (c->version >= 3 && !c->any_deprecated)
		x86_sysfs_add(f, "any", "config:21");
	x86_sysfs_add(f, "inv", "config:23");
	x86_sysfs_add(f, "cmask", "config:24-31");
}

/* The generic events this CPU has; TOPDOWN.SLOTS where fixed 3 is. */
static void sysfs_events(struct x86_sysfs *s, const struct intel_caps *c)
{
	x86_sysfs_events(s, event_map);
	if (c->fixed_mask >> 3 & 1)
		x86_sysfs_add(s->events, "slots", "event=0x00,umask=0x4");
}

const char *intel_pmu_name(const struct intel_caps *c)
{
	if (c->model)
		return pmu_model_name();
	if (c->version == 1)
		return "generic_arch_v1";
	return c->version < 5 ? "generic_arch_v2+" : "generic_arch_v5+";
}

/* Linux's: max_precise, pmu_name and, with LBR, branches. pmu_name is
 * the package's (intel_caps), so a hybrid CPU's two PMUs show one name,
 * as Linux's one x86_pmu behind both. */
static void sysfs_caps(struct x86_sysfs *s)
{
	x86_sysfs_branches(s, intel_lbr_depth());
	x86_sysfs_add(s->caps, "max_precise", "0");
	x86_sysfs_add(s->caps, "pmu_name", intel_pmu_name(&intel_caps));
	x86_sysfs_model(s);
}

void intel_sysfs_build(struct x86_sysfs *s, const struct intel_caps *c)
{
	sysfs_format(s, c);
	sysfs_events(s, c);
	sysfs_caps(s);
}

/* Counter ops are the x86 layer's (x86_pmu_register). */
struct pmu intel_pmu = {
	.name = "cpu",           /* "cpu_core" on a hybrid CPU */
	.inherit = intel_lbr_inherit,
	.free = intel_lbr_free,
};

/* A hybrid CPU's Atom cores (hybrid.c registers it; cpu_core is
 * intel_pmu). */
struct pmu intel_atom_pmu = {
	.name = "cpu_atom",
	.inherit = intel_lbr_inherit,
	.free = intel_lbr_free,
};

/* ---- detection ---- */

static unsigned min_u(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

/* Fixed counters: EDX[4:0] counts them from 0; from version 5, ECX is
 * a bitmap and counter j exists if its bit is set or j < EDX[4:0].
 * Versions 2-4 on bare metal may under-report them: assume 3, as Linux
 * does. */
static void parse_fixed(struct intel_caps *c, const struct cpuid_regs *r, bool bare_metal)
{
	unsigned n = PERFMON_EDX_FIXED(r->edx);
	c->fixed_width = PERFMON_EDX_FIXED_WIDTH(r->edx);
	if (c->version >= 2 && c->version < 5 && bare_metal && n < 3) {
		n = 3;
		if (!c->fixed_width)
			c->fixed_width = c->gp_width;
	}
	if (c->version < 2)
		n = 0;
	uint32_t mask = n >= 32 ? ~0u : (1u << n) - 1;
	if (c->version >= 5)
		mask |= r->ecx;
	c->fixed_mask = mask & ((1u << INTEL_MAX_FIXED) - 1);
	c->any_deprecated = c->version >= 5 && (r->edx & PERFMON_EDX_ANY_DEPRECATED);
}

bool intel_parse_perfmon(struct intel_caps *c, const struct cpuid_regs *r, bool bare_metal)
{
	c->version = PERFMON_EAX_VERSION(r->eax);
	c->n_gp = min_u(PERFMON_EAX_GP(r->eax), INTEL_MAX_GP);
	c->gp_width = PERFMON_EAX_GP_WIDTH(r->eax);
	c->unavailable = r->ebx;
	if (PERFMON_EAX_EBX_LEN(r->eax) < PERFMON_EVENTS || !c->gp_width)
		return false;
	parse_fixed(c, r, bare_metal);
	return true;
}

static bool detect(void)
{
	if (pmu_cpu_is_amd())
		return false; /* the AMD driver's */
	intel_caps.model = pmu_need_model(); /* cpu.c found no leaf 0AH PMU */
	if (intel_caps.model)
		pmu_use_model();
	struct cpuid_regs r = pmu_cpuid(CPUID_PERFMON, 0);
	if (!intel_parse_perfmon(&intel_caps, &r, !cpu.hypervisor[0])) {
		klog("pmu: cpu: cpuid 0ah eax=%#x describes too little; no hardware events", r.eax);
		return false;
	}
	if (pmu_cpuid(1, 0).ecx & CPUID_1_ECX_PDCM)
		intel_caps.full_width = pmu_rdmsr(MSR_IA32_PERF_CAPABILITIES) & PERF_CAP_FW_WRITE;
	for (unsigned bit = 0; bit < PERFMON_EVENTS; bit++)
		if (intel_caps.unavailable >> bit & 1)
			event_map[ebx_event[bit]] = 0;
	return true;
}

static unsigned popcount(uint32_t v)
{
	unsigned n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

static void report(void)
{
	if (intel_caps.model)
		klog("pmu: cpu: %s, a software model of intel arch perfmon v%u: %u gp x %u bits, "
		     "%u fixed x %u bits%s; cycles and ref-cycles follow the TSC "
		     "(unhalted, by mode); instructions %s; branches by single-step, user mode; "
		     "cache events and branch misses are not modelled (cpuid 0ah ebx %#x)",
		     pmu_model_name(), intel_caps.version, intel_caps.n_gp,
		     intel_caps.gp_width, popcount(intel_caps.fixed_mask),
		     intel_caps.fixed_width, intel_caps.full_width ? ", full-width writes" : "",
		     pmu_model_insns_by_clock() ? "from the instruction clock, both modes"
						: "by single-step, user mode only",
		     intel_caps.unavailable);
	else
		klog("pmu: cpu: intel arch perfmon v%u: %u gp x %u bits, %u fixed x %u bits%s, "
		     "unavailable events %#x", intel_caps.version, intel_caps.n_gp,
		     intel_caps.gp_width, popcount(intel_caps.fixed_mask), intel_caps.fixed_width,
		     intel_caps.full_width ? ", full-width writes" : "", intel_caps.unavailable);
}

/* Boot: one "cpu" PMU now, or, on a hybrid CPU, cpu_core and cpu_atom
 * once every CPU is up and has said its core type (hybrid.c). */
void intel_pmu_init(void)
{
	static struct x86_sysfs sysfs;
	if (!detect())
		return;
	intel_counters_ops(&ops);
	intel_lbr_init();
	x86_pmu_register(&ops);
	report();
	if (intel_is_hybrid(pmu_cpuid(7, 0).edx)) {
		intel_hybrid_init();
		return;
	}
	intel_sysfs_build(&sysfs, &intel_caps);
	x86_sysfs_attach(&intel_pmu, &sysfs);
	perf_pmu_register(&intel_pmu, PERF_TYPE_RAW);
	intel_caps.registered = true;
}

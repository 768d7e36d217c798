/*
 * The Intel driver's counters, as the x86 layer's ops (pmu/x86/core.h):
 * GP counter i at IA32_PERFEVTSEL0 + i and IA32_PMC0 + i (IA32_A_PMC0 +
 * i with full-width writes), fixed counter j at IA32_FIXED_CTR0 + j
 * with four bits of IA32_FIXED_CTR_CTRL, IA32_PERF_GLOBAL_CTRL and
 * GLOBAL_STATUS from version 2 (index PMC_IDX_FIXED + j for fixed
 * counter j). Placing events, periods and the overflow loop are the x86
 * layer's; which counter an event may take is place.c's.
 *
 * A counter is armed at -left (common.c) at most max_period: what a
 * write can set - beyond 2^31 with legacy writes, or beyond the
 * counter's width, a period takes several overflows.
 *
 * Locking: fixed_ctrl[c] belongs to CPU c and is touched only there,
 * with interrupts off (the pmu ops under perf_lock, the PMI).
 */
#include "core/arch/cpu.h"
#include "core/arch/percpu.h"
#include "intel.h"
#include "pmu/x86/claim.h"
#include "pmu/x86/core.h"
#include "pmu/x86/msr.h"

#define NR_IDX (PMC_IDX_FIXED + INTEL_MAX_FIXED)
_Static_assert(NR_IDX <= X86_MAX_IDX, "x86_counters holds every counter");

static uint64_t fixed_ctrl[MAX_CPUS];  /* what FIXED_CTR_CTRL holds */
static const struct intel_constraint *constraints; /* this CPU model's */

/* This CPU's counters (a hybrid CPU's core types differ). */
static const struct intel_caps *caps(void)
{
	return intel_caps_here();
}

static bool is_fixed(int idx)
{
	return idx >= PMC_IDX_FIXED;
}

static uint64_t width_mask(int idx)
{
	unsigned w = is_fixed(idx) ? caps()->fixed_width : caps()->gp_width;
	return w >= 64 ? ~0ULL : (1ULL << w) - 1;
}

static uint32_t counter_msr(int idx)
{
	if (is_fixed(idx))
		return MSR_IA32_FIXED_CTR0 + (uint32_t)(idx - PMC_IDX_FIXED);
	return (caps()->full_width ? MSR_IA32_A_PMC0 : MSR_IA32_PMC0) + (uint32_t)idx;
}

/* The longest period a write can arm: legacy IA32_PMCx writes carry 31
 * bits and a sign, IA32_A_PMCx the full width. Fixed counters get the
 * same as GP ones (what Linux relies on). */
static uint64_t max_period(int idx)
{
	if (caps()->full_width)
		return width_mask(idx) >> 1;
	return (1ULL << 31) - 1;
}

static struct x86_counter counter(int idx)
{
	return (struct x86_counter){ counter_msr(idx), width_mask(idx), max_period(idx) };
}

/* The GLOBAL_CTRL/STATUS bits of the counters this driver uses. */
static uint64_t counter_bits(void)
{
	return ((1ULL << caps()->n_gp) - 1) |
	       (uint64_t)caps()->fixed_mask << PMC_IDX_FIXED;
}

static uint64_t fixed_bits(uint64_t config)
{
	uint64_t b = FIXED_CTRL_PMI;
	if (config & EVTSEL_USR)
		b |= FIXED_CTRL_USR;
	if (config & EVTSEL_OS)
		b |= FIXED_CTRL_OS;
	return b;
}

/* Fixed counter idx's four bits of FIXED_CTR_CTRL become `bits`. */
static void write_fixed(int idx, uint64_t bits)
{
	uint64_t *ctrl = &fixed_ctrl[this_cpu_id()];
	int sh = FIXED_CTRL_SHIFT(idx - PMC_IDX_FIXED);
	*ctrl = (*ctrl & ~(0xfULL << sh)) | bits << sh;
	pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, *ctrl);
}

static void enable_counter(int idx, uint64_t config)
{
	if (is_fixed(idx))
		write_fixed(idx, fixed_bits(config));
	else
		pmu_wrmsr(MSR_IA32_PERFEVTSEL0 + (uint32_t)idx, config | EVTSEL_EN);
}

static void disable_counter(int idx)
{
	if (is_fixed(idx))
		write_fixed(idx, 0);
	else
		pmu_wrmsr(MSR_IA32_PERFEVTSEL0 + (uint32_t)idx, 0);
}

/* On this CPU's counters. */
static int pick(const struct perf_event *e, uint64_t used)
{
	return intel_place(caps(), constraints, e->hw.config, used);
}

/* On the counters of e's PMU (its core type's, on a hybrid CPU),
 * placed as add() will (place.c: each fixed counter serves one event;
 * constrained events take the lowest counter they may, free ones the
 * least wanted). */
static int group_pick(const struct perf_event *e, uint64_t used)
{
	return intel_place(intel_pmu_caps(e->pmu), constraints, x86_event_config(e), used);
}

/* ---- version 2's global control and status ---- */

static void enable_all(uint64_t active)
{
	if (caps()->version >= 2)
		pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, active);
}

static void disable_all(void)
{
	enable_all(0);
}

static uint64_t get_status(void)
{
	return pmu_rdmsr(MSR_IA32_PERF_GLOBAL_STATUS);
}

static void ack_status(uint64_t bits)
{
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, bits);
}

static void set_status(uint64_t bits)
{
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_SET, bits);
}

/* Boot: this CPU model's constraints; the counters' part of the x86
 * layer's ops (intel.c adds the rest). */
void intel_counters_ops(struct x86_pmu *p)
{
	constraints = intel_constraints_for(cpu.family, cpu.model);
	p->counter_bits = counter_bits;
	p->counter = counter;
	p->enable_counter = enable_counter;
	p->disable_counter = disable_counter;
	p->pick = pick;
	p->group_pick = group_pick;
	p->enable_all = enable_all;
	p->disable_all = disable_all;
	if (intel_caps.version >= 2) {
		p->get_status = get_status;
		p->ack_status = ack_status;
		p->set_status = set_status;
	}
	p->lbr_add = intel_lbr_add;
	p->lbr_del = intel_lbr_del;
	p->lbr_read = intel_lbr_read;
}

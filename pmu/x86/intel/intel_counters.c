/*
 * The Intel driver's counters: which event holds which counter of a CPU,
 * programming and reading them, and the PMI.
 *
 * Periods and folding are pmu/x86/common.c's (shared with the AMD
 * driver): a counter is armed at -left so that it overflows after what
 * remains of the event's period, at most max_period (what a write can
 * set: beyond 2^31, or beyond the counter's width, a period takes
 * several overflows).
 *
 * The PMI's delivery (NMI by default, or the maskable interrupt) and
 * what may run in it are pmi.c's; handling the overflows is here.
 *
 * Locking: counters[c] belongs to CPU c and is touched only on CPU c with
 * interrupts off: the pmu ops run so (under perf_lock), and the PMI
 * handles overflows only under perf_lock (pmi.c: an NMI that cannot
 * trylock it defers the work to an IPI). e->count and e->hw change
 * under perf_lock only.
 */
#include <linux/errno.h>
#include "core/arch/apic.h"
#include "core/arch/cpu.h"
#include "intel.h"
#include "core/kernel.h"
#include "pmu/x86/msr.h"
#include "core/arch/percpu.h"
#include "pmu/perf.h"
#include "pmu/events/hit.h"
#include "pmu/events/throttle.h"
#include "core/arch/trap.h"
#include "core/arch/tsc.h"
#include "pmu/x86/common.h"
#include "pmu/x86/claim.h"
#include "core/arch/percpu_table.h"

#define NR_IDX (PMC_IDX_FIXED + INTEL_MAX_FIXED)
_Static_assert(NR_IDX <= X86_MAX_IDX, "x86_counters holds every counter");

struct cpu_counters {
	struct x86_counters k; /* k.active: what GLOBAL_CTRL holds */
	uint64_t fixed_ctrl;   /* what FIXED_CTR_CTRL holds */
	bool ready;            /* registers cleared, LVTPC set, on this CPU */
};

PERCPU_TABLE(struct cpu_counters, counters);

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

static const struct intel_constraint *constraints; /* this CPU model's */

const struct intel_constraint *intel_constraints(void)
{
	return constraints;
}

int intel_pick_counter(uint64_t config, uint64_t used)
{
	return intel_place(caps(), constraints, config, used);
}

/* The GLOBAL_CTRL/STATUS bits of the counters this driver uses. */
static uint64_t counter_bits(void)
{
	return ((1ULL << caps()->n_gp) - 1) |
	       (uint64_t)caps()->fixed_mask << PMC_IDX_FIXED;
}

static void write_global(struct cpu_counters *c)
{
	if (caps()->version >= 2)
		pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, c->k.active);
}

/* First use on this CPU: nothing counting, no stale overflow, and the
 * PMI on its vector (apic_init_cpu left LVTPC masked). */
static struct cpu_counters *here(void)
{
	struct cpu_counters *c = &counters[this_cpu_id()];
	if (c->ready)
		return c;
	write_global(c);
	for (unsigned i = 0; i < caps()->n_gp; i++)
		pmu_wrmsr(MSR_IA32_PERFEVTSEL0 + i, 0);
	if (caps()->fixed_mask)
		pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	if (caps()->version >= 2) /* reserved bits would #GP */
		pmu_wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, counter_bits());
	apic_write(APIC_LVT_PMC, x86_lvtpc()); /* unmasked: NMI or VEC_PMI */
	c->ready = true;
	return c;
}

static bool owned_here(const struct perf_event *e)
{
	return x86_owns(&counters[this_cpu_id()].k, e);
}

/* e's counter, for the shared period and fold code (common.c). */
static struct x86_counter counter_of(const struct perf_event *e)
{
	int idx = e->hw.idx;
	return (struct x86_counter){ counter_msr(idx), width_mask(idx), max_period(idx) };
}

static bool set_period(struct perf_event *e, bool pmi)
{
	struct x86_counter k = counter_of(e);
	return x86_set_period(e, &k, pmi);
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

static void enable(struct cpu_counters *c, struct perf_event *e)
{
	int idx = e->hw.idx;
	if (is_fixed(idx)) {
		int sh = FIXED_CTRL_SHIFT(idx - PMC_IDX_FIXED);
		c->fixed_ctrl = (c->fixed_ctrl & ~(0xfULL << sh)) | fixed_bits(e->hw.config) << sh;
		pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, c->fixed_ctrl);
	} else {
		pmu_wrmsr(MSR_IA32_PERFEVTSEL0 + (uint32_t)idx, e->hw.config | EVTSEL_EN);
	}
	c->k.active |= 1ULL << idx;
	write_global(c);
}

/* Clear e's selector (or its fixed-counter bits); GLOBAL_CTRL is the
 * caller's. */
static void clear_selector(struct cpu_counters *c, struct perf_event *e)
{
	int idx = e->hw.idx;
	if (is_fixed(idx)) {
		c->fixed_ctrl &= ~(0xfULL << FIXED_CTRL_SHIFT(idx - PMC_IDX_FIXED));
		pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, c->fixed_ctrl);
	} else {
		pmu_wrmsr(MSR_IA32_PERFEVTSEL0 + (uint32_t)idx, 0);
	}
}

static void disable(struct cpu_counters *c, struct perf_event *e)
{
	c->k.active &= ~(1ULL << e->hw.idx);
	write_global(c);
	clear_selector(c, e);
}

static void fold(struct perf_event *e)
{
	struct x86_counter k = counter_of(e);
	x86_fold(e, &k);
}

/* The selector comes from the attributes again: inherited copies reach
 * add() without event_init. */
int intel_add(struct perf_event *e, uint64_t now)
{
	(void)now;
	struct cpu_counters *c = here();
	e->hw.config = intel_event_config(e);
	int idx = intel_pick_counter(e->hw.config, c->k.used);
	if (idx < 0)
		return -EAGAIN;
	x86_claim(&c->k, e, idx);
	set_period(e, false);
	intel_lbr_add(e);
	enable(c, e);
	return 0;
}

void intel_del(struct perf_event *e, uint64_t now)
{
	(void)now;
	if (!owned_here(e))
		return;
	struct cpu_counters *c = &counters[this_cpu_id()];
	if (x86_is_active(&c->k, e)) {
		disable(c, e);
		fold(e);
	}
	intel_lbr_del(e);
	x86_release(&c->k, e);
}

/* Resume an event stopped on its counter. */
void intel_start(struct perf_event *e, uint64_t now)
{
	(void)now;
	if (!owned_here(e))
		return;
	struct cpu_counters *c = &counters[this_cpu_id()];
	if (x86_is_active(&c->k, e))
		return;
	set_period(e, false);
	enable(c, e);
}

void intel_stop(struct perf_event *e, uint64_t now)
{
	(void)now;
	if (!owned_here(e))
		return;
	struct cpu_counters *c = &counters[this_cpu_id()];
	if (!x86_is_active(&c->k, e))
		return;
	disable(c, e);
	fold(e);
}

uint64_t intel_read(struct perf_event *e, uint64_t now)
{
	(void)now;
	if (owned_here(e) && x86_is_active(&counters[this_cpu_id()].k, e))
		fold(e);
	return e->count;
}

/* ---- groups ---- */

/* On the counters of e's PMU (its core type's, on a hybrid CPU). */
static int pick(const struct perf_event *e, uint64_t used)
{
	return intel_place(intel_pmu_caps(e->pmu), constraints, intel_event_config(e), used);
}

static bool is_ours(const struct perf_event *e)
{
	return e && (e->pmu == &intel_pmu || e->pmu == &intel_atom_pmu);
}

/* The group's PMU of this driver (a group holds one hardware PMU). */
static const struct pmu *group_pmu(struct perf_event *leader, struct perf_event *extra)
{
	if (is_ours(leader))
		return leader->pmu;
	list_for_each(n, &leader->siblings) {
		struct perf_event *s = list_entry(n, struct perf_event, sibling_node);
		if (is_ours(s))
			return s->pmu;
	}
	return is_ours(extra) ? extra->pmu : &intel_pmu;
}

/* The group placed in its order, as add() will place it (place.c: each
 * fixed counter serves one event; constrained events take the lowest
 * counter they may, free ones the least wanted). */
bool intel_group_fits(struct perf_event *leader, struct perf_event *extra)
{
	return x86_group_fits(group_pmu(leader, extra), pick, leader, extra);
}

/* ---- the PMI ---- */

/* Stop a throttled event's counter (it stays ours, unarmed, until
 * intel_start). The counters stay frozen: the PMI writes GLOBAL_CTRL
 * from c->k.active at its end. */
static void stop_in_pmi(struct cpu_counters *c, struct perf_event *e)
{
	c->k.active &= ~(1ULL << e->hw.idx);
	clear_selector(c, e);
}

/* Counter idx overflowed: fold, arm what is left of the period and,
 * when the whole period has passed, take a sample with the interrupted
 * registers (Linux's handle_pmi_common for one counter). */
static void overflowed(struct cpu_counters *c, int idx, struct trap_frame *f,
		       const struct perf_hit *where)
{
	struct perf_event *e = c->k.owner[idx];
	if (!e || !(c->k.active >> idx & 1))
		return;
	struct x86_counter k = counter_of(e);
	struct perf_hit with_branches = *where;
	intel_lbr_read(e, &with_branches);
	if (x86_overflowed(e, &k, f, &with_branches))
		stop_in_pmi(c, e);
}

/* Linux's intel_pmu_reset, for a PMI that does not stop: every
 * selector and counter zeroed, status acknowledged. Events keep their
 * counters, stopped (their GLOBAL_CTRL bits off) until sched in/out or
 * intel_start arms them again. */
static void reset_counters(struct cpu_counters *c)
{
	for (unsigned i = 0; i < caps()->n_gp; i++) {
		pmu_wrmsr(MSR_IA32_PERFEVTSEL0 + i, 0);
		pmu_wrmsr(counter_msr((int)i), 0);
	}
	for (unsigned j = 0; j < INTEL_MAX_FIXED; j++)
		if (caps()->fixed_mask >> j & 1)
			pmu_wrmsr(counter_msr(PMC_IDX_FIXED + (int)j), 0);
	if (caps()->fixed_mask)
		pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	c->fixed_ctrl = 0;
	c->k.active = 0;
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, counter_bits());
}

static bool test_stuck[MAX_CPUS]; /* self-test: status comes back each loop */

/* Handle every overflowed counter until the status is clear, with the
 * counters frozen meanwhile; each status bit is acknowledged
 * (GLOBAL_OVF_CTRL) before its counter is re-armed. A status that is
 * still set after X86_PMI_MAX_LOOPS rounds will not clear (Linux's
 * "irq loop stuck"): the PMU is reset and pmi.c reports it. */
static void handle_overflows(struct cpu_counters *c, struct trap_frame *f,
			     const struct perf_hit *where)
{
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	for (int loops = 0;; loops++) {
		uint64_t st = pmu_rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & counter_bits();
		if (!st)
			break;
		if (loops == X86_PMI_MAX_LOOPS) {
			reset_counters(c);
			x86_pmi_stuck();
			break;
		}
		pmu_wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, st);
		for (int idx = 0; idx < NR_IDX; idx++)
			if (st >> idx & 1)
				overflowed(c, idx, f, where);
		if (test_stuck[this_cpu_id()])
			pmu_wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_SET, st);
	}
	write_global(c);
}

/* Version 1 has no status register: a counter armed negative that reads
 * with its top bit clear has passed zero. */
static void handle_overflows_v1(struct cpu_counters *c, struct trap_frame *f,
				const struct perf_hit *where)
{
	for (unsigned i = 0; i < caps()->n_gp; i++) {
		struct perf_event *e = c->k.owner[i];
		if (!e || !(c->k.active >> i & 1))
			continue;
		uint64_t now = pmu_rdmsr(counter_msr((int)i)) & width_mask((int)i);
		if (!(now >> (caps()->gp_width - 1) & 1))
			overflowed(c, (int)i, f, where);
	}
}

void intel_handle_overflows(const struct perf_hit *where)
{
	struct cpu_counters *c = &counters[this_cpu_id()];
	/* the model's user-time overflow: user registers */
	struct trap_frame *f = pmu_pmi_frame(where->regs);
	if (caps()->version >= 2)
		handle_overflows(c, f, where);
	else
		handle_overflows_v1(c, f, where);
}

/* ---- self-test helpers ---- */

void intel_counters_init(void)
{
	constraints = intel_constraints_for(cpu.family, cpu.model);
}

void intel_test_stuck_status(bool on)
{
	test_stuck[this_cpu_id()] = on;
}

bool intel_counters_busy(void)
{
	return counters[this_cpu_id()].k.used != 0;
}

void intel_test_load(struct perf_event *e, uint64_t raw)
{
	if (!owned_here(e))
		return;
	raw &= width_mask(e->hw.idx);
	pmu_wrmsr(counter_msr(e->hw.idx), raw);
	e->hw.prev_count = raw;
}

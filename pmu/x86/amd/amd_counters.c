/*
 * The AMD driver's counters: which event holds which counter of a CPU,
 * programming and reading them, and the PMI (Linux's
 * arch/x86/events/amd/core.c). Periods, folding and the per-counter
 * sample step are pmu/x86/common.c's, as for the Intel driver.
 *
 * Counter i's registers: PERF_CTL/PERF_CTR at C001_0200 + 2i /
 * C001_0201 + 2i with PerfCtrExtCore, else the legacy C001_0000 + i /
 * C001_0004 + i. Every counter takes every event (the families this
 * driver knows have no per-counter constraints for core events). A
 * counter counts while its PERF_CTL has EN and, with PerfMonV2, its
 * GlobalCtl bit is set.
 *
 * Overflow, without PerfMonV2: a counter armed at -left (bit 47 set)
 * that reads with bit 47 clear has passed zero - the only sign there is.
 * With PerfMonV2: GlobalStatus says which, GlobalStatusClr acknowledges.
 * With PerfMonV2 the status is handled in rounds, as Intel's: one that
 * is still set after X86_PMI_MAX_LOOPS rounds resets the PMU (reported
 * by pmu/x86/pmi.c).
 *
 * A PMI that finds no overflowed counter is spurious: within 100 ms of
 * one that found some (a late interrupt for a counter a previous PMI
 * already handled, Linux's perf_nmi_window) it is claimed and counted as
 * such, else counted as unknown. So is, with pmi=nmi, any NMI inside
 * that window that LVTPC did not deliver: AMD cannot tell a late PMI
 * from another NMI, and Linux claims them all while the window lasts.
 *
 * The PMI's delivery (an NMI by default, `pmi=irq` the maskable vector)
 * and what may run in it are pmu/x86/pmi.c's, shared with the Intel
 * driver (pmu/x86/pmi.h).
 *
 * Locking: counters[c] belongs to CPU c and is touched only on CPU c with
 * interrupts off: the pmu ops run so (under perf_lock), and the PMI
 * handles overflows only under perf_lock (an NMI that cannot trylock it
 * defers to VEC_PMI). e->count and e->hw change under perf_lock only.
 * claim_late runs in an NMI without the lock: it only reads window_end
 * and bumps a counter of its own CPU.
 */
#include <linux/errno.h>
#include "amd.h"
#include "core/arch/apic.h"
#include "core/arch/percpu.h"
#include "core/arch/trap.h"
#include "core/arch/tsc.h"
#include "core/kernel.h"
#include "pmu/x86/msr.h"
#include "pmu/perf.h"
#include "pmu/x86/common.h"
#include "pmu/x86/claim.h"
#include "pmu/x86/pmi.h"
#include "pmu/x86/amd/lbr_extv2.h"
#include "core/arch/percpu_table.h"

#define SPURIOUS_WINDOW_NS 100000000ULL  /* Linux's perf_nmi_window */
#define WIDTH_MASK ((1ULL << AMD_WIDTH) - 1)
#define TOP_BIT (1ULL << (AMD_WIDTH - 1))
#define MAX_PERIOD (TOP_BIT - 1)         /* Linux's (1 << 47) - 1 */

struct cpu_counters {
	struct x86_counters k; /* active: counter enabled (EN, GlobalCtl) */
	uint64_t window_end;   /* ns: a PMI finding nothing before this is ours */
	bool ready;
};

PERCPU_TABLE(struct cpu_counters, counters);
static uint64_t spurious_counts[MAX_CPUS], unknown_counts[MAX_CPUS];
static bool test_stuck[MAX_CPUS]; /* self-test: status comes back each round */

uint32_t amd_ctl_msr(unsigned i)
{
	return amd_caps.perfctr_core ? MSR_F15H_PERF_CTL + 2 * i : MSR_K7_EVNTSEL0 + i;
}

uint32_t amd_ctr_msr(unsigned i)
{
	return amd_caps.perfctr_core ? MSR_F15H_PERF_CTR + 2 * i : MSR_K7_PERFCTR0 + i;
}

static uint64_t all_counters(void)
{
	return (1ULL << amd_caps.n_counters) - 1;
}

static struct x86_counter counter_of(const struct perf_event *e)
{
	return (struct x86_counter){ amd_ctr_msr((unsigned)e->hw.idx), WIDTH_MASK, MAX_PERIOD };
}

int amd_pick_counter(uint64_t used)
{
	for (unsigned i = 0; i < amd_caps.n_counters; i++)
		if (!(used >> i & 1))
			return (int)i;
	return -1;
}

static int pick(const struct perf_event *e, uint64_t used)
{
	(void)e; /* every counter takes every event */
	return amd_pick_counter(used);
}

static void write_global(const struct cpu_counters *c)
{
	if (amd_caps.perfmon_v2)
		pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, c->k.active);
}

/* First use on this CPU: nothing counting, no stale overflow, and the
 * PMI on its vector (apic_init_cpu left LVTPC masked). */
static struct cpu_counters *here(void)
{
	struct cpu_counters *c = &counters[this_cpu_id()];
	if (c->ready)
		return c;
	write_global(c);
	for (unsigned i = 0; i < amd_caps.n_counters; i++)
		pmu_wrmsr(amd_ctl_msr(i), 0);
	if (amd_caps.perfmon_v2)
		pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, all_counters());
	apic_write(APIC_LVT_PMC, x86_lvtpc()); /* unmasked: NMI or VEC_PMI */
	c->ready = true;
	return c;
}

static bool owned_here(const struct perf_event *e)
{
	return x86_owns(&counters[this_cpu_id()].k, e);
}

static bool set_period(struct perf_event *e, bool pmi)
{
	struct x86_counter k = counter_of(e);
	return x86_set_period(e, &k, pmi);
}

static void fold(struct perf_event *e)
{
	struct x86_counter k = counter_of(e);
	x86_fold(e, &k);
}

static void enable(struct cpu_counters *c, struct perf_event *e)
{
	unsigned i = (unsigned)e->hw.idx;
	pmu_wrmsr(amd_ctl_msr(i), e->hw.config | EVTSEL_EN);
	c->k.active |= 1ULL << i;
	write_global(c);
}

static void disable(struct cpu_counters *c, struct perf_event *e)
{
	unsigned i = (unsigned)e->hw.idx;
	c->k.active &= ~(1ULL << i);
	write_global(c);
	pmu_wrmsr(amd_ctl_msr(i), 0);
}

/* The PERF_CTL value comes from the attributes again: inherited copies
 * reach add() without event_init. */
int amd_add(struct perf_event *e, uint64_t now)
{
	(void)now;
	struct cpu_counters *c = here();
	e->hw.config = amd_event_config(e);
	int idx = amd_pick_counter(c->k.used);
	if (idx < 0)
		return -EAGAIN;
	x86_claim(&c->k, e, idx);
	set_period(e, false);
	enable(c, e);
	amd_lbr_add(e);
	return 0;
}

void amd_del(struct perf_event *e, uint64_t now)
{
	(void)now;
	if (!owned_here(e))
		return;
	struct cpu_counters *c = &counters[this_cpu_id()];
	if (x86_is_active(&c->k, e)) {
		disable(c, e);
		fold(e);
	}
	amd_lbr_del(e);
	x86_release(&c->k, e);
}

void amd_start(struct perf_event *e, uint64_t now)
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

void amd_stop(struct perf_event *e, uint64_t now)
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

uint64_t amd_read(struct perf_event *e, uint64_t now)
{
	(void)now;
	if (owned_here(e) && x86_is_active(&counters[this_cpu_id()].k, e))
		fold(e);
	return e->count;
}

/* ---- groups ---- */

bool amd_group_fits(struct perf_event *leader, struct perf_event *extra)
{
	return x86_group_fits(&amd_pmu, pick, leader, extra);
}

/* ---- the PMI ---- */

/* Counter i overflowed: the shared step (fold, re-arm, sample); a
 * throttled event's counter is stopped (it stays ours, unarmed, until
 * amd_start). */
static void overflowed(struct cpu_counters *c, unsigned i, struct trap_frame *f,
		       const struct perf_hit *where)
{
	struct perf_event *e = c->k.owner[i];
	if (!e || !(c->k.active >> i & 1))
		return;
	struct x86_counter k = counter_of(e);
	struct perf_hit with_branches = *where;
	amd_lbr_read(e, &with_branches);
	if (x86_overflowed(e, &k, f, &with_branches)) {
		c->k.active &= ~(1ULL << i);
		pmu_wrmsr(amd_ctl_msr(i), 0);
	}
}

/* Without PerfMonV2: an active counter whose top bit cleared has
 * overflowed (armed counters start negative). How many were. */
static unsigned handle_by_top_bit(struct cpu_counters *c, struct trap_frame *f,
				  const struct perf_hit *where)
{
	unsigned handled = 0;
	for (unsigned i = 0; i < amd_caps.n_counters; i++) {
		if (!(c->k.active >> i & 1))
			continue;
		if (pmu_rdmsr(amd_ctr_msr(i)) & TOP_BIT)
			continue;
		overflowed(c, i, f, where);
		handled++;
	}
	return handled;
}

/* Linux's amd_pmu_reset, for a status that does not clear: every
 * counter stopped and zeroed, the status acknowledged. Events keep
 * their counters, unarmed, until sched in/out or amd_start. */
static void reset_counters(struct cpu_counters *c)
{
	for (unsigned i = 0; i < amd_caps.n_counters; i++) {
		pmu_wrmsr(amd_ctl_msr(i), 0);
		pmu_wrmsr(amd_ctr_msr(i), 0);
	}
	c->k.active = 0;
	pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, all_counters());
}

/* PerfMonV2: counters stopped (GlobalCtl 0) while the status is
 * handled, in rounds until it reads clear; each round acknowledges its
 * bits (GlobalStatusClr) before their counters are re-armed. Then the
 * active counters run again. How many overflows were handled. */
static unsigned handle_by_status(struct cpu_counters *c, struct trap_frame *f,
				 const struct perf_hit *where)
{
	unsigned handled = 0;
	pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0);
	for (int loops = 0;; loops++) {
		uint64_t st = pmu_rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS) & all_counters();
		if (!st)
			break;
		if (loops == X86_PMI_MAX_LOOPS) {
			reset_counters(c);
			x86_pmi_stuck();
			break;
		}
		pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, st);
		for (unsigned i = 0; i < amd_caps.n_counters; i++)
			if (st >> i & 1) {
				overflowed(c, i, f, where);
				handled++;
			}
		if (test_stuck[this_cpu_id()])
			pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET, st);
	}
	write_global(c);
	return handled;
}

/* A PMI with nothing overflowed: claimed inside the window after one
 * that handled something, else unknown. */
static void account(struct cpu_counters *c, unsigned cpu, unsigned handled)
{
	uint64_t now = time_since_boot_ns();
	if (handled)
		c->window_end = now + SPURIOUS_WINDOW_NS;
	else if (now < c->window_end)
		spurious_counts[cpu]++;
	else
		unknown_counts[cpu]++;
}

void amd_handle_overflows(const struct perf_hit *where)
{
	unsigned cpu = this_cpu_id();
	struct cpu_counters *c = &counters[cpu];
	/* the model's user-time overflow: user registers */
	struct trap_frame *f = pmu_pmi_frame(where->regs);
	unsigned handled = amd_caps.perfmon_v2 ? handle_by_status(c, f, where)
					       : handle_by_top_bit(c, f, where);
	account(c, cpu, handled);
}

/* An NMI LVTPC did not deliver: a late PMI while the window lasts. */
static bool claim_late(void)
{
	unsigned cpu = this_cpu_id();
	if (time_since_boot_ns() >= counters[cpu].window_end)
		return false;
	spurious_counts[cpu]++;
	return true;
}

static const struct x86_pmi_ops pmi_ops = {
	.handle = amd_handle_overflows,
	.claim_late = claim_late,
};

void amd_counters_init(void)
{
	x86_pmi_init(&pmi_ops);
}

/* ---- self-test helpers ---- */

uint64_t amd_spurious_count(unsigned cpu)
{
	return spurious_counts[cpu];
}

uint64_t amd_unknown_count(unsigned cpu)
{
	return unknown_counts[cpu];
}

void amd_test_stuck_status(bool on)
{
	test_stuck[this_cpu_id()] = on;
}

bool amd_counters_busy(void)
{
	return counters[this_cpu_id()].k.used != 0;
}

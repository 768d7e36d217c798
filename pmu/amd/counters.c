/*
 * The AMD driver's counters: which event holds which counter of a CPU,
 * programming and reading them, and the PMI (Linux's
 * arch/x86/events/amd/core.c). Periods, folding and the per-counter
 * sample step are pmu/x86_common.c's, as for the Intel driver.
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
 * A PMI that finds no overflowed counter is spurious: within 100 ms of
 * one that found some (a late interrupt for a counter a previous PMI
 * already handled, Linux's perf_nmi_window) it is claimed and counted as
 * such, else counted as unknown. The PMI is the maskable LVTPC vector,
 * as the Intel driver's.
 *
 * Locking: counters[c] belongs to CPU c and is touched only on CPU c with
 * interrupts off: the pmu ops run so (under perf_lock), the PMI handler
 * is an interrupt there. e->count and e->hw change under perf_lock only;
 * the PMI handler takes it.
 */
#include <linux/errno.h>
#include "amd.h"
#include "arch/apic.h"
#include "arch/percpu.h"
#include "arch/trap.h"
#include "arch/tsc.h"
#include "kernel.h"
#include "pmu/msr.h"
#include "pmu/perf.h"
#include "pmu/x86_common.h"
#include "lbr.h"

#define HW_ON_COUNTER (1ULL << 0)        /* e->hw.idx is e's counter */
#define SPURIOUS_WINDOW_NS 100000000ULL  /* Linux's perf_nmi_window */
#define WIDTH_MASK ((1ULL << AMD_WIDTH) - 1)
#define TOP_BIT (1ULL << (AMD_WIDTH - 1))
#define MAX_PERIOD (TOP_BIT - 1)         /* Linux's (1 << 47) - 1 */

struct cpu_counters {
	struct perf_event *owner[AMD_MAX_COUNTERS];
	uint64_t used;         /* bit i: owner[i] set */
	uint64_t active;       /* bit i: counter i enabled (EN, GlobalCtl) */
	uint64_t window_end;   /* ns: a PMI finding nothing before this is ours */
	bool ready;
};

static struct cpu_counters counters[MAX_CPUS];
static uint64_t pmi_counts[MAX_CPUS], spurious_counts[MAX_CPUS], unknown_counts[MAX_CPUS];

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

static void write_global(const struct cpu_counters *c)
{
	if (amd_caps.perfmon_v2)
		pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, c->active);
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
	apic_write(APIC_LVT_PMC, VEC_PMI);
	c->ready = true;
	return c;
}

static bool owned_here(const struct perf_event *e)
{
	int idx = e->hw.idx;
	return (e->hw.flags & HW_ON_COUNTER) && idx >= 0 && idx < AMD_MAX_COUNTERS &&
	       counters[this_cpu_id()].owner[idx] == e;
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
	c->active |= 1ULL << i;
	write_global(c);
}

static void disable(struct cpu_counters *c, struct perf_event *e)
{
	unsigned i = (unsigned)e->hw.idx;
	c->active &= ~(1ULL << i);
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
	int idx = amd_pick_counter(c->used);
	if (idx < 0)
		return -EAGAIN;
	c->owner[idx] = e;
	c->used |= 1ULL << idx;
	e->hw.idx = idx;
	e->hw.flags = HW_ON_COUNTER;
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
	int idx = e->hw.idx;
	if (c->active >> idx & 1) {
		disable(c, e);
		fold(e);
	}
	amd_lbr_del(e);
	c->owner[idx] = NULL;
	c->used &= ~(1ULL << idx);
	e->hw.idx = -1;
	e->hw.flags = 0;
}

void amd_start(struct perf_event *e, uint64_t now)
{
	(void)now;
	if (!owned_here(e))
		return;
	struct cpu_counters *c = &counters[this_cpu_id()];
	if (c->active >> e->hw.idx & 1)
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
	if (!(c->active >> e->hw.idx & 1))
		return;
	disable(c, e);
	fold(e);
}

uint64_t amd_read(struct perf_event *e, uint64_t now)
{
	(void)now;
	if (owned_here(e) && (counters[this_cpu_id()].active >> e->hw.idx & 1))
		fold(e);
	return e->count;
}

/* ---- groups ---- */

/* Every counter takes every event: a group fits when it has no more
 * of this PMU's events than there are counters. */
bool amd_group_fits(struct perf_event *leader, struct perf_event *extra)
{
	unsigned n = leader->pmu == &amd_pmu;
	list_for_each(node, &leader->siblings)
		n += list_entry(node, struct perf_event, sibling_node)->pmu == &amd_pmu;
	if (extra)
		n += extra->pmu == &amd_pmu;
	return n <= amd_caps.n_counters;
}

/* ---- the PMI ---- */

/* Counter i overflowed: the shared step (fold, re-arm, sample); a
 * throttled event's counter is stopped (it stays ours, unarmed, until
 * amd_start). */
static void overflowed(struct cpu_counters *c, unsigned i, struct trap_frame *f)
{
	struct perf_event *e = c->owner[i];
	if (!e || !(c->active >> i & 1))
		return;
	struct x86_counter k = counter_of(e);
	struct perf_hit hit = { .regs = f };
	amd_lbr_read(e, &hit);
	if (x86_overflowed(e, &k, f, &hit)) {
		c->active &= ~(1ULL << i);
		pmu_wrmsr(amd_ctl_msr(i), 0);
	}
}

/* Without PerfMonV2: an active counter whose top bit cleared has
 * overflowed (armed counters start negative). How many were. */
static unsigned handle_by_top_bit(struct cpu_counters *c, struct trap_frame *f)
{
	unsigned handled = 0;
	for (unsigned i = 0; i < amd_caps.n_counters; i++) {
		if (!(c->active >> i & 1))
			continue;
		if (pmu_rdmsr(amd_ctr_msr(i)) & TOP_BIT)
			continue;
		overflowed(c, i, f);
		handled++;
	}
	return handled;
}

/* PerfMonV2: counters stopped (GlobalCtl 0) while GlobalStatus is read
 * and each overflow handled; the status acknowledged through
 * GlobalStatusClr; then the active counters run again. */
static unsigned handle_by_status(struct cpu_counters *c, struct trap_frame *f)
{
	unsigned handled = 0;
	pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0);
	uint64_t st = pmu_rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS) & all_counters();
	for (unsigned i = 0; i < amd_caps.n_counters; i++)
		if (st >> i & 1) {
			overflowed(c, i, f);
			handled++;
		}
	if (st)
		pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, st);
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

/* The PMI: with interrupts off, on the CPU whose counters overflowed. */
static void amd_pmi(struct trap_frame *f)
{
	unsigned cpu = this_cpu_id();
	struct cpu_counters *c = &counters[cpu];
	pmi_counts[cpu]++;
	f = pmu_pmi_frame(f); /* the model's user-time overflow: user registers */
	spin_lock(&perf_lock);
	unsigned handled = amd_caps.perfmon_v2 ? handle_by_status(c, f) : handle_by_top_bit(c, f);
	account(c, cpu, handled);
	spin_unlock(&perf_lock);
	apic_write(APIC_LVT_PMC, VEC_PMI); /* delivery masked it */
	apic_eoi();
	perf_wakeup_pending(); /* pollers of the buffers written */
}

void amd_counters_init(void)
{
	trap_set_handler(VEC_PMI, amd_pmi);
}

/* ---- self-test helpers ---- */

uint64_t amd_pmi_count(unsigned cpu)
{
	return pmi_counts[cpu];
}

uint64_t amd_spurious_count(unsigned cpu)
{
	return spurious_counts[cpu];
}

uint64_t amd_unknown_count(unsigned cpu)
{
	return unknown_counts[cpu];
}

bool amd_counters_busy(void)
{
	return counters[this_cpu_id()].used != 0;
}

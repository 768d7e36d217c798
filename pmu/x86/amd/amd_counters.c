/*
 * The AMD driver's counters, as the x86 layer's ops (pmu/x86/core.h;
 * Linux's arch/x86/events/amd/core.c): their registers, the global
 * control and status, and the PMI's spurious accounting. Placing events,
 * periods and the overflow loop are the x86 layer's.
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
 * With PerfMonV2 the status is handled in rounds (pmu/x86/overflow.c).
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
 * Locking: the per-CPU arrays belong to their CPU and are touched only
 * there with interrupts off. claim_late runs in an NMI without the
 * lock: it only reads window_end and bumps a counter of its own CPU.
 */
#include "amd.h"
#include "core/arch/percpu.h"
#include "core/arch/tsc.h"
#include "pmu/x86/amd/lbr_extv2.h"
#include "pmu/x86/core.h"
#include "pmu/x86/msr.h"

#define SPURIOUS_WINDOW_NS 100000000ULL  /* Linux's perf_nmi_window */
#define WIDTH_MASK ((1ULL << AMD_WIDTH) - 1)
#define MAX_PERIOD ((1ULL << (AMD_WIDTH - 1)) - 1)  /* Linux's (1 << 47) - 1 */

static uint64_t window_end[MAX_CPUS];  /* ns: a PMI finding nothing before this is ours */
static uint64_t spurious_counts[MAX_CPUS], unknown_counts[MAX_CPUS];

uint32_t amd_ctl_msr(unsigned i)
{
	return amd_caps.perfctr_core ? MSR_F15H_PERF_CTL + 2 * i : MSR_K7_EVNTSEL0 + i;
}

uint32_t amd_ctr_msr(unsigned i)
{
	return amd_caps.perfctr_core ? MSR_F15H_PERF_CTR + 2 * i : MSR_K7_PERFCTR0 + i;
}

static uint64_t counter_bits(void)
{
	return (1ULL << amd_caps.n_counters) - 1;
}

static struct x86_counter counter(int idx)
{
	return (struct x86_counter){ amd_ctr_msr((unsigned)idx), WIDTH_MASK, MAX_PERIOD };
}

static void enable_counter(int idx, uint64_t config)
{
	pmu_wrmsr(amd_ctl_msr((unsigned)idx), config | EVTSEL_EN);
}

static void disable_counter(int idx)
{
	pmu_wrmsr(amd_ctl_msr((unsigned)idx), 0);
}

/* Every counter takes every event. */
int amd_pick_counter(uint64_t used)
{
	for (unsigned i = 0; i < amd_caps.n_counters; i++)
		if (!(used >> i & 1))
			return (int)i;
	return -1;
}

static int pick(const struct perf_event *e, uint64_t used)
{
	(void)e;
	return amd_pick_counter(used);
}

/* ---- PerfMonV2's global control and status ---- */

static void enable_all(uint64_t active)
{
	if (amd_caps.perfmon_v2)
		pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, active);
}

static void disable_all(void)
{
	enable_all(0);
}

static uint64_t get_status(void)
{
	return pmu_rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS);
}

static void ack_status(uint64_t bits)
{
	pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, bits);
}

static void set_status(uint64_t bits)
{
	pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET, bits);
}

/* ---- the PMI ---- */

/* A PMI with nothing overflowed: claimed inside the window after one
 * that handled something, else unknown. */
static void account(unsigned handled)
{
	unsigned cpu = this_cpu_id();
	uint64_t now = time_since_boot_ns();
	if (handled)
		window_end[cpu] = now + SPURIOUS_WINDOW_NS;
	else if (now < window_end[cpu])
		spurious_counts[cpu]++;
	else
		unknown_counts[cpu]++;
}

/* An NMI LVTPC did not deliver: a late PMI while the window lasts. */
static bool claim_late(void)
{
	unsigned cpu = this_cpu_id();
	if (time_since_boot_ns() >= window_end[cpu])
		return false;
	spurious_counts[cpu]++;
	return true;
}

uint64_t amd_spurious_count(unsigned cpu)
{
	return spurious_counts[cpu];
}

uint64_t amd_unknown_count(unsigned cpu)
{
	return unknown_counts[cpu];
}

/* The counters' part of the x86 layer's ops (amd.c adds the rest). */
void amd_counters_ops(struct x86_pmu *p)
{
	p->counter_bits = counter_bits;
	p->counter = counter;
	p->enable_counter = enable_counter;
	p->disable_counter = disable_counter;
	p->pick = pick;
	p->group_pick = pick;
	p->enable_all = enable_all;
	p->disable_all = disable_all;
	if (amd_caps.perfmon_v2) {
		p->get_status = get_status;
		p->ack_status = ack_status;
		p->set_status = set_status;
	}
	p->after_overflows = account;
	p->claim_late = claim_late;
	p->lbr_add = amd_lbr_add;
	p->lbr_del = amd_lbr_del;
	p->lbr_read = amd_lbr_read;
}

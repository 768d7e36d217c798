/*
 * Self-tests of the AMD driver through its struct pmu, on this CPU's
 * counters (real or modelled): attribute checks and their errnos, the
 * RAW and host/guest bits, the tables' 0 (ENOENT) and -1 (EINVAL)
 * entries, group_fits, and a count folded across a wrap with the PMI
 * (PerfMonV2's status, or the top bit), a PMI (pmi=irq) or an NMI not
 * from LVTPC (pmi=nmi) right after it claimed as spurious rather than
 * unknown, and PerfMonV2's stuck-status guard. They skip where "cpu" is
 * not the AMD driver's.
 */
#include <linux/errno.h>
#include "amd.h"
#include "pmu/x86/amd/lbr_extv2.h"
#include "core/arch/apic.h"
#include "core/arch/nmi.h"
#include "core/arch/percpu.h"
#include "core/arch/trap.h"
#include "core/arch/tsc.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "pmu/x86/msr.h"
#include "pmu/x86/core.h"
#include "core/selftest.h"
#include "pmu/x86/pmi.h"
#include "pmu/x86/test_setup.h"

/* An event of this driver's PMU, and its event_init's errno
 * (test_setup.h). */
#define new_event(type, config) x86_test_event(&amd_pmu, type, config)
#define init_errno(type, config, tweak) x86_test_init_errno(&amd_pmu, type, config, tweak)

static bool usable(struct selftest_ctx *t, bool counters)
{
	return x86_test_usable(t, amd_caps.registered, "AMD \"cpu\"",
			       counters ? x86_counters_busy : NULL);
}

static uint64_t cache(unsigned type, unsigned op, unsigned result)
{
	return type | op << 8 | result << 16;
}

SELFTEST(amd_event_init)
{
	if (!usable(t, false))
		return;
	ST_CHECK(t, init_errno(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, NULL) == 0);
	ST_CHECK(t, init_errno(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, x86_test_user_only) == 0);
	ST_CHECK(t, init_errno(PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, NULL) == -ENOENT);
	ST_CHECK(t, init_errno(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, NULL) == -ENOENT);
	ST_CHECK(t, init_errno(PERF_TYPE_HARDWARE, PERF_COUNT_HW_MAX, NULL) == -EINVAL);
	/* -1 entries: no such combination */
	ST_CHECK(t, init_errno(PERF_TYPE_HW_CACHE, cache(PERF_COUNT_HW_CACHE_BPU,
		PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_ACCESS), NULL) == -EINVAL);
	ST_CHECK(t, init_errno(PERF_TYPE_HW_CACHE, cache(PERF_COUNT_HW_CACHE_ITLB,
		PERF_COUNT_HW_CACHE_OP_PREFETCH, PERF_COUNT_HW_CACHE_RESULT_MISS), NULL) == -EINVAL);
	/* 0 entries: no event */
	ST_CHECK(t, init_errno(PERF_TYPE_HW_CACHE, cache(PERF_COUNT_HW_CACHE_L1D,
		PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_ACCESS), NULL) == -ENOENT);
	ST_CHECK(t, init_errno(PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_MAX, NULL) == -EINVAL);
	/* branches: an entry in both tables (user mode on the model) */
	ST_CHECK(t, init_errno(PERF_TYPE_HW_CACHE, cache(PERF_COUNT_HW_CACHE_BPU,
		PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS), x86_test_user_only) == 0);
	if (amd_caps.model_pmu) {
		/* what the model never counts is left out */
		ST_CHECK(t, init_errno(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, NULL) == -ENOENT);
		ST_CHECK(t, init_errno(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, NULL) == -ENOENT);
	}
	ST_CHECK(t, init_errno(PERF_TYPE_SOFTWARE, 0, NULL) == -ENOENT);
	ST_CHECK(t, init_errno(PERF_TYPE_HARDWARE, 0, x86_test_precise) == -EOPNOTSUPP);
	/* with LbrExtV2, a counting branch stack event (test_lbr_extv2.c) */
	ST_CHECK(t, init_errno(PERF_TYPE_RAW, 0x76, x86_test_branch_stack) ==
		    (amd_lbr_depth() ? -EINVAL : -EOPNOTSUPP));
	ST_CHECK(t, init_errno(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, x86_test_bts) ==
		    -EOPNOTSUPP);

	/* RAW keeps event bits 0-7 and 32-35, umask, edge, inv, cmask and
	 * drops the rest (EN, INT, USR, OS, bits 19, 21, 40); exclude_guest
	 * sets HostOnly. */
	uint64_t keep = 0x76 | 0x3ULL << 32 | EVTSEL_EDGE | EVTSEL_INV | 1ULL << 24;
	struct perf_event *e = new_event(PERF_TYPE_RAW, keep | EVTSEL_EN | EVTSEL_INT | 1ULL << 19 |
				       1ULL << 21 | EVTSEL_USR | EVTSEL_OS | 1ULL << 40);
	e->attr.exclude_kernel = 1;
	e->attr.exclude_guest = 1;
	(void)amd_pmu.event_init(e); /* the model refuses the filters: config is set anyway */
	ST_CHECK(t, x86_event_config(e) ==
		    (keep | EVTSEL_INT | EVTSEL_USR | AMD_EVENTSEL_HOSTONLY));
	e->attr.exclude_host = 1;
	ST_CHECK(t, !(x86_event_config(e) & (EVTSEL_USR | EVTSEL_OS))); /* counts nowhere */
	kfree(e);
}

/* Every counter takes every event: n_counters fit, one more does not;
 * a software sibling takes none; add() fills counters 0.. in order. */
SELFTEST(amd_group_fits)
{
	if (!usable(t, true))
		return;
	int n = (int)amd_caps.n_counters;
	struct perf_event *extra, *l = x86_test_cycles_group(&amd_pmu, n, &extra);
	ST_CHECK(t, amd_pmu.group_fits(l, NULL));
	ST_CHECK(t, !amd_pmu.group_fits(l, extra));
	struct perf_event *sw = new_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	sw->leader = l;
	list_add_tail(&sw->sibling_node, &l->siblings);
	ST_CHECK(t, amd_pmu.group_fits(l, NULL));
	x86_test_free_group(l, extra);

	struct perf_event *ev[AMD_MAX_COUNTERS + 1];
	uint64_t f = spin_lock_irqsave(&perf_lock);
	int added = 0, last = 0;
	for (; added <= n; added++) {
		ev[added] = new_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
		if ((last = amd_pmu.add(ev[added], 0)) != 0)
			break;
		if (ev[added]->hw.idx != added)
			ST_FAIL(t, "event %d on counter %d", added, ev[added]->hw.idx);
	}
	for (int i = 0; i < added; i++)
		amd_pmu.del(ev[i], 0);
	spin_unlock_irqrestore(&perf_lock, f);
	ST_CHECK(t, added == n && last == -EAGAIN);
	ST_CHECK(t, !x86_counters_busy());
	for (int i = 0; i <= added && i <= n; i++)
		kfree(ev[i]);
}

/* A kernel-cycles event 5,000 short of overflowing: the PMI comes,
 * finds it (GlobalStatus or its top bit), folds and re-arms; the count
 * grows by what was counted, not by ~2^47. */
SELFTEST(amd_wrap_folds)
{
	if (!usable(t, true))
		return;
	unsigned cpu = this_cpu_id();
	uint64_t pmis = x86_pmi_count(cpu), unknown = amd_unknown_count(cpu);
	uint64_t before = 5000, mid = 0, end;
	struct perf_event *e = new_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	e->attr.exclude_user = 1;
	uint64_t f = spin_lock_irqsave(&perf_lock);
	ST_CHECK(t, amd_pmu.add(e, 0) == 0);
	uint64_t raw = (0 - before) & ((1ULL << AMD_WIDTH) - 1);
	pmu_wrmsr(amd_ctr_msr((unsigned)e->hw.idx), raw);
	e->hw.prev_count = raw;
	spin_unlock_irqrestore(&perf_lock, f);
	for (int i = 0; i < 200 && x86_pmi_count(cpu) == pmis; i++) {
		udelay(50);
		f = spin_lock_irqsave(&perf_lock);
		amd_pmu.read(e, 0);
		spin_unlock_irqrestore(&perf_lock, f);
	}
	f = spin_lock_irqsave(&perf_lock);
	mid = amd_pmu.read(e, 0);
	amd_pmu.stop(e, 0);
	end = e->count;
	amd_pmu.del(e, 0);
	spin_unlock_irqrestore(&perf_lock, f);
	ST_CHECK(t, x86_pmi_count(cpu) > pmis);
	ST_CHECK(t, amd_unknown_count(cpu) == unknown); /* the PMI found its counter */
	/* Right after, with nothing overflowed: a late PMI for what was
	 * handled (pmi=irq: VEC_PMI; pmi=nmi: an NMI LVTPC did not send),
	 * claimed inside the window, not unknown. */
	uint64_t spurious = amd_spurious_count(cpu), nmi_unknown = nmi_unknown_count(cpu);
	pmis = x86_pmi_count(cpu);
	bool nmi = x86_pmi_is_nmi();
	apic_send_ipi(this_cpu()->apic_id, nmi ? LVT_DELIVERY_NMI : VEC_PMI);
	for (int i = 0; i < 200 && amd_spurious_count(cpu) == spurious; i++)
		udelay(50);
	ST_CHECK(t, x86_pmi_count(cpu) == pmis + !nmi); /* an NMI not from LVTPC is no PMI */
	ST_CHECK(t, amd_spurious_count(cpu) == spurious + 1);
	ST_CHECK(t, amd_unknown_count(cpu) == unknown);
	ST_CHECK(t, nmi_unknown_count(cpu) == nmi_unknown);
	if (mid <= before || mid >= (1ULL << 40) || end < mid)
		ST_FAIL(t, "count %llu, then %llu, after the wrap", (unsigned long long)mid,
			(unsigned long long)end);
	kfree(e);
}

/* PerfMonV2: a status that comes back after every acknowledgement. The
 * handler gives up after X86_PMI_MAX_LOOPS rounds, stops and zeroes the
 * counters (the event keeps its counter, unarmed) and counts it. */
SELFTEST(amd_pmi_stuck_loop_resets)
{
	if (!usable(t, true))
		return;
	if (!amd_caps.perfmon_v2) {
		ST_SKIP(t, "no PerfMonV2");
		return;
	}
	struct perf_event *e = new_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	e->attr.exclude_user = 1;
	uint64_t stuck = x86_pmi_stuck_count();
	struct trap_frame regs = { .cs = KERNEL_CS, .rflags = 0x2 };
	struct perf_hit where = { .regs = &regs };
	uint64_t f = spin_lock_irqsave(&perf_lock);
	ST_CHECK(t, amd_pmu.add(e, 0) == 0);
	unsigned bit = (unsigned)e->hw.idx;
	selftest_set_knob(SELFTEST_STUCK_STATUS, true);
	pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET, 1ULL << bit);
	x86_handle_overflows(&where);
	selftest_set_knob(SELFTEST_STUCK_STATUS, false);
	ST_CHECK(t, x86_pmi_stuck_count() == stuck + 1);
	ST_CHECK(t, !(pmu_rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS) >> bit & 1));
	ST_CHECK(t, !(pmu_rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL) >> bit & 1)); /* reset */
	ST_CHECK(t, !(pmu_rdmsr(amd_ctl_msr(bit)) & EVTSEL_EN));
	amd_pmu.del(e, 0);
	spin_unlock_irqrestore(&perf_lock, f);
	ST_CHECK(t, !x86_counters_busy());
	kfree(e);
}

/*
 * Self-tests of the Intel driver through its struct pmu, on this CPU's
 * counters (real or modelled): attribute checks and their errnos,
 * counter placement, group_fits, and a count that survives its counter
 * wrapping. The counter tests need this CPU's counters free of events.
 */
#include <string.h>
#include <linux/errno.h>
#include "intel.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "pmu/x86/msr.h"
#include "core/arch/percpu.h"
#include "pmu/vpmu/vpmu.h"
#include "core/selftest.h"
#include "pmu/x86/test_setup.h"
#include "core/arch/tsc.h"

static bool usable(struct selftest_ctx *t, bool counters)
{
	return x86_test_usable(t, intel_caps.registered, "\"cpu\"",
			       counters ? intel_counters_busy : NULL);
}

static struct perf_event *new_event(uint32_t type, uint64_t config)
{
	return x86_test_event(&intel_pmu, type, config);
}

static int init_errno(uint32_t type, uint64_t config, void (*tweak)(struct perf_event_attr *))
{
	return x86_test_init_errno(&intel_pmu, type, config, tweak);
}

static void user_branches(struct perf_event_attr *a)
{
	a->sample_type = PERF_SAMPLE_BRANCH_STACK;
	a->branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
}
static void kernel_branches(struct perf_event_attr *a)
{
	a->sample_type = PERF_SAMPLE_BRANCH_STACK;
	a->branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_KERNEL;
}
static void tsx_branches(struct perf_event_attr *a)
{
	user_branches(a);
	a->branch_sample_type |= PERF_SAMPLE_BRANCH_IN_TX;
}

SELFTEST(intel_event_init)
{
	if (!usable(t, false))
		return;
	bool no_insns = intel_caps.unavailable & PERFMON_EBX_INSTRUCTIONS;
	/* the model counts kernel instructions only from the clock */
	bool no_kernel_insns = intel_caps.model && !vpmu_icount_on();
	ST_CHECK(t, init_errno(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, NULL) == 0);
	ST_CHECK(t, init_errno(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, NULL) ==
		    (no_insns ? -ENOENT : no_kernel_insns ? -EOPNOTSUPP : 0));
	ST_CHECK(t, init_errno(PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, NULL) == -ENOENT);
	ST_CHECK(t, init_errno(PERF_TYPE_HARDWARE, PERF_COUNT_HW_MAX, NULL) == -EINVAL);
	ST_CHECK(t, init_errno(PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_L1D, NULL) == -ENOENT);
	ST_CHECK(t, init_errno(PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_MAX, NULL) == -EINVAL);
	ST_CHECK(t, init_errno(PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_OP_MAX << 8, NULL) == -EINVAL);
	ST_CHECK(t, init_errno(PERF_TYPE_SOFTWARE, 0, NULL) == -ENOENT);
	ST_CHECK(t, init_errno(PERF_TYPE_HARDWARE, 0, x86_test_precise) == -EOPNOTSUPP);
	/* branch stacks: with arch LBR (the model has it), user branches
	 * open; the TSX filters never, kernel ones not on the model */
	bool lbr = intel_lbr_depth() != 0;
	ST_CHECK(t, init_errno(PERF_TYPE_RAW, 0x3c, user_branches) == (lbr ? 0 : -EOPNOTSUPP));
	ST_CHECK(t, init_errno(PERF_TYPE_RAW, 0x3c, tsx_branches) == -EOPNOTSUPP);
	if (intel_caps.model)
		ST_CHECK(t, init_errno(PERF_TYPE_RAW, 0x3c, kernel_branches) == -EOPNOTSUPP);
	if (!lbr)
		ST_CHECK(t, init_errno(PERF_TYPE_RAW, 0x3c, x86_test_branch_stack) == -EOPNOTSUPP);
	if (!(intel_caps.unavailable & PERFMON_EBX_BRANCHES))
		ST_CHECK(t, init_errno(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, x86_test_bts) ==
			    -EOPNOTSUPP);

	/* RAW keeps the selector bits and drops the rest, as Linux does. */
	uint64_t keep = 0x3c | EVTSEL_EDGE | EVTSEL_INV | 1ULL << 24;
	struct perf_event *e = new_event(PERF_TYPE_RAW, keep | EVTSEL_EN | EVTSEL_INT |
				       EVTSEL_PC | EVTSEL_USR | EVTSEL_OS | 1ULL << 40);
	e->attr.exclude_kernel = 1;
	ST_CHECK(t, intel_pmu.event_init(e) == 0);
	ST_CHECK(t, e->hw.config == (keep | EVTSEL_INT | EVTSEL_USR));
	kfree(e);
}

/* Add cycles events until one is refused; note where each went. */
static int fill_with_cycles(struct perf_event **ev, int *idx, int max)
{
	int n = 0;
	for (; n < max; n++) {
		ev[n] = new_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
		int r = intel_pmu.add(ev[n], 0);
		idx[n] = r ? r : ev[n]->hw.idx;
		if (r) {
			kfree(ev[n]);
			break;
		}
	}
	return n;
}

SELFTEST(intel_counter_order)
{
	if (!usable(t, true))
		return;
	struct perf_event *ev[INTEL_MAX_GP + 2];
	int idx[INTEL_MAX_GP + 2], want[INTEL_MAX_GP + 2], w = 0;
	if (intel_caps.fixed_mask & 2)
		want[w++] = PMC_IDX_FIXED + 1;
	for (unsigned i = 0; i < intel_caps.n_gp; i++)
		want[w++] = (int)i;
	want[w] = -EAGAIN;

	uint64_t f = spin_lock_irqsave(&perf_lock);
	int n = fill_with_cycles(ev, idx, w + 1);
	/* A freed fixed counter is taken first again; cmask needs a GP one. */
	struct perf_event *again = NULL, *masked = new_event(PERF_TYPE_RAW, 0x0100003c);
	int masked_r = intel_pmu.add(masked, 0);
	if (n > 0 && idx[0] >= PMC_IDX_FIXED) {
		intel_pmu.del(ev[0], 0);
		again = new_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
		ST_CHECK(t, intel_pmu.add(again, 0) == 0 && again->hw.idx == idx[0]);
		intel_pmu.del(again, 0);
	}
	for (int i = 0; i < n; i++)
		intel_pmu.del(ev[i], 0);
	intel_pmu.del(masked, 0);
	spin_unlock_irqrestore(&perf_lock, f);

	ST_CHECK(t, n == w);
	for (int i = 0; i <= w && i <= n; i++)
		if (idx[i] != want[i])
			ST_FAIL(t, "event %d went to %d, not %d", i, idx[i], want[i]);
	ST_CHECK(t, masked_r == -EAGAIN); /* every GP counter was taken */
	ST_CHECK(t, !intel_counters_busy());
	for (int i = 0; i < n; i++)
		kfree(ev[i]);
	kfree(again);
	kfree(masked);
}

SELFTEST(intel_ref_cycles_fixed_only)
{
	if (!usable(t, true) || !(intel_caps.fixed_mask & 4))
		return;
	struct perf_event *a = new_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES);
	struct perf_event *b = new_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES);
	uint64_t f = spin_lock_irqsave(&perf_lock);
	int ra = intel_pmu.add(a, 0), rb = intel_pmu.add(b, 0);
	int ia = a->hw.idx;
	intel_pmu.del(a, 0);
	intel_pmu.del(b, 0);
	spin_unlock_irqrestore(&perf_lock, f);
	ST_CHECK(t, ra == 0 && ia == PMC_IDX_FIXED + 2);
	ST_CHECK(t, rb == -EAGAIN); /* the pseudo-encoding has no GP form */
	kfree(a);
	kfree(b);
}

/* A leader and n - 1 siblings, all cycles; one more is `extra`. */
static struct perf_event *cycles_group(int n, struct perf_event **extra)
{
	struct perf_event *l = new_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	for (int i = 1; i < n; i++) {
		struct perf_event *s = new_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
		s->leader = l;
		list_add_tail(&s->sibling_node, &l->siblings);
	}
	*extra = new_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	return l;
}

static void free_group(struct perf_event *l, struct perf_event *extra)
{
	list_for_each_safe(n, &l->siblings)
		kfree(list_entry(n, struct perf_event, sibling_node));
	kfree(l);
	kfree(extra);
}

SELFTEST(intel_group_fits)
{
	if (!usable(t, false))
		return;
	int room = (int)intel_caps.n_gp + ((intel_caps.fixed_mask & 2) ? 1 : 0);
	struct perf_event *extra, *l = cycles_group(room, &extra);
	ST_CHECK(t, intel_pmu.group_fits(l, NULL));      /* 5 on the model */
	ST_CHECK(t, !intel_pmu.group_fits(l, extra));    /* 6 */
	/* a software sibling takes no counter */
	struct perf_event *sw = new_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	sw->leader = l;
	list_add_tail(&sw->sibling_node, &l->siblings);
	ST_CHECK(t, intel_pmu.group_fits(l, NULL));
	free_group(l, extra);
	l = cycles_group(room - 1, &extra);
	ST_CHECK(t, intel_pmu.group_fits(l, extra));
	free_group(l, extra);
}

/* Put the counter `before` events short of its width, let it pass, and
 * read: the count grows by what was counted, not by ~2^48; the PMI
 * folds and re-arms the counter. */
SELFTEST(intel_wrap_folds)
{
	if (!usable(t, true))
		return;
	unsigned cpu = this_cpu_id();
	uint64_t pmis = x86_pmi_count(cpu), before = 5000, mid = 0, end;
	struct perf_event *e = new_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	e->attr.exclude_user = 1;
	uint64_t f = spin_lock_irqsave(&perf_lock);
	ST_CHECK(t, intel_pmu.add(e, 0) == 0);
	intel_test_load(e, 0 - before);
	spin_unlock_irqrestore(&perf_lock, f);
	/* Read until the PMI has come (interrupts are on between reads; the
	 * model notices the wrap when a register is read). */
	for (int i = 0; i < 200 && x86_pmi_count(cpu) == pmis; i++) {
		udelay(50);
		f = spin_lock_irqsave(&perf_lock);
		mid = intel_pmu.read(e, 0);
		spin_unlock_irqrestore(&perf_lock, f);
	}
	/* Once more after the PMI (it may come before the first read when
	 * the host holds this vCPU back a few microseconds). */
	f = spin_lock_irqsave(&perf_lock);
	mid = intel_pmu.read(e, 0);
	spin_unlock_irqrestore(&perf_lock, f);
	f = spin_lock_irqsave(&perf_lock);
	intel_pmu.stop(e, 0);
	end = e->count;
	intel_pmu.del(e, 0);
	spin_unlock_irqrestore(&perf_lock, f);
	ST_CHECK(t, x86_pmi_count(cpu) > pmis);
	ST_CHECK(t, mid > before && mid < (1ULL << 40));
	ST_CHECK(t, end >= mid && end < (1ULL << 40));
	if (mid <= before || mid >= (1ULL << 40))
		ST_FAIL(t, "count %llu after the wrap", (unsigned long long)mid);
	kfree(e);
}

/* Wait (interrupts on between reads) until `n` more PMIs came on cpu. */
static bool wait_pmis(struct perf_event *e, unsigned cpu, uint64_t from, uint64_t n)
{
	for (int i = 0; i < 400 && x86_pmi_count(cpu) < from + n; i++) {
		udelay(50);
		uint64_t f = spin_lock_irqsave(&perf_lock);
		intel_pmu.read(e, 0);
		spin_unlock_irqrestore(&perf_lock, f);
	}
	return x86_pmi_count(cpu) >= from + n;
}

/* A period longer than the counter (2^48 + 5000): armed at the longest
 * a write can set, re-armed at each overflow with what is left, and
 * only the overflow that ends the whole period samples (overflow.c's
 * throttle accounting then counts it: e->interrupts). */
SELFTEST(intel_long_period)
{
	if (!usable(t, true))
		return;
	const uint64_t period = (1ULL << 48) + 5000;
	const uint64_t maxp = intel_caps.full_width ? (1ULL << (intel_caps.fixed_width - 1)) - 1
						    : (1ULL << 31) - 1;
	unsigned cpu = this_cpu_id();
	struct perf_event *e = new_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	e->attr.exclude_user = 1;
	e->attr.sample_period = period;
	perf_sample_init(e);
	uint64_t f = spin_lock_irqsave(&perf_lock);
	ST_CHECK(t, intel_pmu.add(e, 0) == 0);
	uint32_t msr = e->hw.idx >= PMC_IDX_FIXED ? MSR_IA32_FIXED_CTR0 + (uint32_t)(e->hw.idx - PMC_IDX_FIXED)
						  : MSR_IA32_A_PMC0 + (uint32_t)e->hw.idx;
	uint64_t mask = e->hw.idx >= PMC_IDX_FIXED ? (1ULL << intel_caps.fixed_width) - 1
						   : (1ULL << intel_caps.gp_width) - 1;
	uint64_t raw = pmu_rdmsr(msr) & mask;
	ST_CHECK(t, raw >= ((0 - maxp) & mask) && raw < ((0 - maxp) & mask) + (1ULL << 30));
	/* 1000 before the wrap, the period far from over */
	uint64_t pmis = x86_pmi_count(cpu);
	intel_test_load(e, 0 - 1000ULL);
	spin_unlock_irqrestore(&perf_lock, f);
	ST_CHECK(t, wait_pmis(e, cpu, pmis, 1));
	f = spin_lock_irqsave(&perf_lock);
	ST_CHECK(t, e->interrupts == 0);                 /* no sample */
	ST_CHECK(t, e->period_left > 0 && (uint64_t)e->period_left < period - 1000);
	raw = pmu_rdmsr(msr) & mask;                     /* re-armed at the max */
	ST_CHECK(t, raw >= ((0 - maxp) & mask) && raw < ((0 - maxp) & mask) + (1ULL << 30));
	/* Now 1500 left, the counter 1000 before its wrap: one PMI that
	 * re-arms for the last 500 and one that samples (or, when the
	 * wrap is noticed more than 500 late, one that does both). */
	e->period_left = 1500;
	pmis = x86_pmi_count(cpu);
	intel_test_load(e, 0 - 1000ULL);
	spin_unlock_irqrestore(&perf_lock, f);
	for (int i = 0; i < 400 && !__atomic_load_n(&e->interrupts, __ATOMIC_RELAXED); i++)
		wait_pmis(e, cpu, x86_pmi_count(cpu), 1);
	f = spin_lock_irqsave(&perf_lock);
	ST_CHECK(t, x86_pmi_count(cpu) > pmis);
	ST_CHECK(t, e->interrupts == 1);                 /* one sample */
	ST_CHECK(t, e->hw.last_period == period);
	ST_CHECK(t, e->period_left > 0 && (uint64_t)e->period_left <= period);
	intel_pmu.del(e, 0);
	spin_unlock_irqrestore(&perf_lock, f);
	kfree(e);
}

/* caps/pmu_name: the model's own, else Linux's generic name by version
 * (arch perfmon v5 and later are generic_arch_v5+, as on Linux). */
SELFTEST(intel_pmu_name)
{
	struct intel_caps c = { .version = 1 };
	ST_CHECK(t, !strcmp(intel_pmu_name(&c), "generic_arch_v1"));
	c.version = 4;
	ST_CHECK(t, !strcmp(intel_pmu_name(&c), "generic_arch_v2+"));
	c.version = 5;
	ST_CHECK(t, !strcmp(intel_pmu_name(&c), "generic_arch_v5+"));
	c.model = true;
	ST_CHECK(t, !strcmp(intel_pmu_name(&c), "vpmu"));
}

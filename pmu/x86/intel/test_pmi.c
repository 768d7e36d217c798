/*
 * Self-tests of the Intel driver's PMI (pmi.c): an NMI handled at once,
 * an NMI that finds perf_lock taken and hands the PMI to VEC_PMI, and
 * the stuck-loop guard. The PMI is made by hand: the counter's status
 * bit set (GLOBAL_STATUS_SET, v4), LVTPC masked as delivery masks it,
 * and an NMI sent to this CPU - from outside the software model, which
 * the handler may then enter (x86_test_nmi_direct).
 */
#include "core/arch/apic.h"
#include "core/arch/percpu.h"
#include "intel.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "pmu/x86/core.h"
#include "pmu/x86/msr.h"
#include "core/selftest.h"

static struct perf_event *cycles_on_counter(struct selftest_ctx *t)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .type = PERF_TYPE_HARDWARE,
					.config = PERF_COUNT_HW_CPU_CYCLES, .exclude_user = 1 };
	struct perf_event *e = event_alloc(&attr, NULL, -1, EVENT_INACTIVE);
	BUG_ON(!e);
	e->pmu = &intel_pmu;
	uint64_t f = spin_lock_irqsave(&perf_lock);
	ST_CHECK(t, intel_pmu.add(e, 0) == 0);
	spin_unlock_irqrestore(&perf_lock, f);
	return e;
}

static void drop(struct perf_event *e)
{
	uint64_t f = spin_lock_irqsave(&perf_lock);
	intel_pmu.del(e, 0);
	spin_unlock_irqrestore(&perf_lock, f);
	kfree(e);
}

static bool usable(struct selftest_ctx *t, bool nmi)
{
	if (!intel_caps.registered || intel_caps.version < 4 || (nmi && !x86_pmi_is_nmi())) {
		ST_SKIP(t, "needs a v4 \"cpu\" PMU%s", nmi ? " and pmi=nmi" : "");
		return false;
	}
	if (x86_counters_busy()) {
		ST_FAIL(t, "events hold this CPU's counters");
		return false;
	}
	return true;
}

static uint64_t status_of(const struct perf_event *e)
{
	return pmu_rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) >> e->hw.idx & 1;
}

static bool lvtpc_masked(void)
{
	return apic_read(APIC_LVT_PMC) & LVT_MASKED;
}

/* e's counter overflowed and LVTPC delivered the PMI as an NMI. */
static void fake_pmi_nmi(const struct perf_event *e)
{
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_SET, 1ULL << e->hw.idx);
	apic_write(APIC_LVT_PMC, x86_lvtpc() | LVT_MASKED);
	apic_send_ipi(this_cpu()->apic_id, LVT_DELIVERY_NMI);
}

/* perf_lock free: the NMI handles the overflow itself and unmasks. */
SELFTEST(intel_pmi_nmi_direct)
{
	if (!usable(t, true))
		return;
	unsigned cpu = this_cpu_id();
	struct perf_event *e = cycles_on_counter(t);
	uint64_t pmis = x86_pmi_count(cpu), deferred = x86_pmi_deferred_count(cpu);
	uint64_t f = irq_save();
	selftest_set_knob(SELFTEST_NMI_DIRECT, true);
	fake_pmi_nmi(e);
	selftest_set_knob(SELFTEST_NMI_DIRECT, false);
	ST_CHECK(t, x86_pmi_count(cpu) == pmis + 1);
	ST_CHECK(t, x86_pmi_deferred_count(cpu) == deferred);
	ST_CHECK(t, !status_of(e));
	ST_CHECK(t, !lvtpc_masked());
	irq_restore(f);
	drop(e);
}

/* perf_lock held where the NMI lands: nothing is touched until the lock
 * is dropped and interrupts come back, then VEC_PMI handles it. */
SELFTEST(intel_pmi_nmi_defers_under_perf_lock)
{
	if (!usable(t, true))
		return;
	unsigned cpu = this_cpu_id();
	struct perf_event *e = cycles_on_counter(t);
	uint64_t pmis = x86_pmi_count(cpu), deferred = x86_pmi_deferred_count(cpu);
	uint64_t f = spin_lock_irqsave(&perf_lock);
	selftest_set_knob(SELFTEST_NMI_DIRECT, true);
	fake_pmi_nmi(e);
	ST_CHECK(t, x86_pmi_count(cpu) == pmis + 1);
	ST_CHECK(t, x86_pmi_deferred_count(cpu) == deferred + 1);
	ST_CHECK(t, status_of(e));   /* untouched */
	ST_CHECK(t, lvtpc_masked()); /* until the PMI is done */
	spin_unlock_irqrestore(&perf_lock, f);
	selftest_set_knob(SELFTEST_NMI_DIRECT, false);
	for (int i = 0; i < 1000 && lvtpc_masked(); i++)
		cpu_relax();
	f = irq_save();
	ST_CHECK(t, !status_of(e));
	ST_CHECK(t, !lvtpc_masked());
	irq_restore(f);
	drop(e);
}

/* A status that comes back after every acknowledgement: the handler
 * gives up after X86_PMI_MAX_LOOPS rounds, resets the counters and
 * counts it (reported once in the log). */
SELFTEST(intel_pmi_stuck_loop_resets)
{
	if (!usable(t, false))
		return;
	struct perf_event *e = cycles_on_counter(t);
	uint64_t stuck = x86_pmi_stuck_count();
	struct trap_frame regs = { .cs = KERNEL_CS, .rflags = 0x2 };
	struct perf_hit where = { .regs = &regs };
	uint64_t f = spin_lock_irqsave(&perf_lock);
	selftest_set_knob(SELFTEST_STUCK_STATUS, true);
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_SET, 1ULL << e->hw.idx);
	x86_handle_overflows(&where);
	selftest_set_knob(SELFTEST_STUCK_STATUS, false);
	ST_CHECK(t, x86_pmi_stuck_count() == stuck + 1);
	ST_CHECK(t, !status_of(e));
	ST_CHECK(t, !(pmu_rdmsr(MSR_IA32_PERF_GLOBAL_CTRL) >> e->hw.idx & 1)); /* reset */
	spin_unlock_irqrestore(&perf_lock, f);
	drop(e);
}

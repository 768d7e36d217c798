/*
 * PMU conformance self-tests, after kvm-unit-tests' x86/pmu.c: what a
 * driver relies on, checked against whatever PMU the machine has (the
 * vpmu under TCG in any of its modes, the CPU's own on hardware),
 * through the driver's accessors, on this CPU's counters while no event
 * holds them, with interrupts off around each measurement. Each test
 * leaves the counters it touched at 0. Intel (arch perfmon, its GP and
 * fixed counters) or AMD (PERF_CTL/PERF_CTR, legacy or PerfCtrExtCore,
 * GlobalCtl with PerfMonV2), whichever driver registered "cpu"; the
 * view below hides the difference. On a hybrid CPU the counters are
 * this CPU's own (its leaf 0AH), whatever the boot CPU had.
 *
 *   conformance_gp_events     every GP counter: cycles, reference cycles
 *                             and (where kernel instructions can be
 *                             counted) instructions of a known loop
 *                             within bounds
 *   conformance_fixed         every fixed counter, the same
 *   conformance_all_at_once   every counter enabled together counts
 *   conformance_rdpmc         RDPMC plain, fast (ECX[31]) and fixed
 *                             (ECX[30]) read what RDMSR reads
 *   conformance_running_write WRMSR to a running counter: it goes on
 *                             from the value written
 *   conformance_write_width   legacy IA32_PMCx writes sign-extend bit
 *                             31; IA32_A_PMCx (full-width) and AMD's
 *                             PERF_CTR take the counter's width
 *
 *   conformance_write_gp      a full-width write with bits above the
 *                             width raises #GP (pmu_wrmsr_safe: -EIO)
 *                             and leaves the counter as it was
 *   conformance_rdpmc_gp      RDPMC of a counter that does not exist
 *                             raises #GP in kernel mode
 *
 * Overflow status, its reset and the PMI only with INT are in
 * test_vpmu.c (vpmu_overflow_pmi); RDPMC's #GP on a bad counter and
 * without CR4.PCE in user mode (a signal) in tests/perf/rdpmc.c.
 * Not checked: cmask on instructions (the model refuses it at open).
 */
#include <linux/errno.h>
#include "pmu/x86/amd/amd.h"
#include "pmu/x86/intel/intel.h"
#include "core/kernel.h"
#include "msr.h"
#include "core/selftest.h"
#include "pmu/x86/core.h"

#define LOOP 100000u            /* iterations: 2 instructions each */
#define KERNEL_CYCLES (EVTSEL_OS | EVTSEL_EN)
#define AMD_CYCLES 0x76

/* ---- the view: GP counters of either vendor, Intel's fixed ones ---- */

static bool amd(void)
{
	return amd_caps.registered;
}

/* This CPU's leaf 0AH: on a hybrid CPU its core type's counters,
 * which may be fewer than the boot CPU's the driver registered. */
static struct cpuid_regs this_leaf_0a(void)
{
	return pmu_cpuid(CPUID_PERFMON, 0);
}

static unsigned n_gp(void)
{
	if (amd())
		return amd_caps.n_counters;
	unsigned here = PERFMON_EAX_GP(this_leaf_0a().eax);
	return here < intel_caps.n_gp ? here : intel_caps.n_gp;
}

static unsigned gp_width(void)
{
	return amd() ? AMD_WIDTH : intel_caps.gp_width;
}

static uint32_t sel_msr(unsigned i)
{
	return amd() ? amd_ctl_msr(i) : MSR_IA32_PERFEVTSEL0 + i;
}

/* The count register as read (and as a legacy Intel write takes it). */
static uint32_t ctr_msr(unsigned i)
{
	return amd() ? amd_ctr_msr(i) : MSR_IA32_PMC0 + i;
}

/* A register that takes a write of the counter's full width, or 0. */
static uint32_t wide_msr(unsigned i)
{
	if (amd())
		return amd_ctr_msr(i);
	return intel_caps.full_width ? MSR_IA32_A_PMC0 + i : 0;
}

static bool has_global(void)
{
	return amd() ? amd_caps.perfmon_v2 : intel_caps.version >= 2;
}

/* Enable exactly the counters in `mask` (GLOBAL bit numbers). */
static void global(uint64_t mask)
{
	if (!has_global())
		return;
	pmu_wrmsr(amd() ? MSR_AMD64_PERF_CNTR_GLOBAL_CTL : MSR_IA32_PERF_GLOBAL_CTRL, mask);
}

static uint64_t cycles_event(void)
{
	return amd() ? AMD_CYCLES : ARCH_CORE_CYCLES;
}

/* Fixed counter j exists and counts an architectural event with known
 * bounds for the loop: 0 instructions, 1 core cycles, 2 reference
 * cycles. Fixed 3 and up (TOPDOWN.SLOTS, ...) count issue slots and
 * topdown events, whose values for a loop these checks cannot bound. */
static bool fixed_usable(unsigned j)
{
	if (amd() || j > 2 || !(intel_caps.fixed_mask >> j & 1))
		return false;
	struct cpuid_regs r = this_leaf_0a();
	return PERFMON_EDX_FIXED(r.edx) > j || (PERFMON_EAX_VERSION(r.eax) >= 5 && (r.ecx >> j & 1));
}

static bool usable(struct selftest_ctx *t)
{
	if (!intel_caps.registered && !amd_caps.registered) {
		ST_SKIP(t, "no \"cpu\" PMU");
		return false;
	}
	if (x86_counters_busy()) {
		ST_FAIL(t, "events hold this CPU's counters");
		return false;
	}
	return true;
}

/* Kernel instructions can be counted: on hardware, or on the model
 * with the instruction clock. */
static bool kernel_insns(void)
{
	return !pmu_model_in_use() || pmu_model_insns_by_clock();
}

static void known_loop(void)
{
	uint32_t n = LOOP;
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n));
}

static void reset(void)
{
	global(0);
	if (!amd() && intel_caps.fixed_mask)
		pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	for (unsigned i = 0; i < n_gp(); i++) {
		pmu_wrmsr(sel_msr(i), 0);
		pmu_wrmsr(ctr_msr(i), 0);
	}
	for (unsigned j = 0; j < INTEL_MAX_FIXED; j++)
		if (fixed_usable(j))
			pmu_wrmsr(MSR_IA32_FIXED_CTR0 + j, 0);
	if (amd() && amd_caps.perfmon_v2)
		pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, ~0ULL);
	else if (!amd() && intel_caps.version >= 2)
		pmu_wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, (1ULL << n_gp()) - 1);
}

/* GP counter i's count of the known loop with selector `sel`. */
static uint64_t gp_count(unsigned i, uint64_t sel)
{
	pmu_wrmsr(ctr_msr(i), 0);
	pmu_wrmsr(sel_msr(i), sel);
	global(1ULL << i);
	known_loop();
	global(0);
	pmu_wrmsr(sel_msr(i), 0);
	return pmu_rdmsr(ctr_msr(i));
}

/* Fixed counter j's count of the known loop, kernel mode. */
static uint64_t fixed_count(unsigned j)
{
	pmu_wrmsr(MSR_IA32_FIXED_CTR0 + j, 0);
	pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS << FIXED_CTRL_SHIFT(j));
	global(1ULL << (PMC_IDX_FIXED + j));
	known_loop();
	global(0);
	pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	return pmu_rdmsr(MSR_IA32_FIXED_CTR0 + j);
}

/* Instructions: the loop's 2 x LOOP and the few around it (and under
 * the model's clock, nothing of the model itself). Cycles: at least
 * one per 100 instructions, at most 1000 per instruction (but on the
 * model) - a slow emulator's and a fast core's bounds, as
 * kvm-unit-tests gives ranges. */
static bool insns_ok(uint64_t v)
{
	return v >= 2 * LOOP && v <= 2 * LOOP + 200;
}

static bool cycles_ok(uint64_t v)
{
	if (v < 2 * LOOP / 100)
		return false;
	/* The model's cycles are the TSC's: wall time, which a busy host
	 * stretches without bound while it runs another process. */
	return pmu_model_in_use() || v <= 2000ULL * LOOP;
}

SELFTEST(conformance_gp_events)
{
	if (!usable(t))
		return;
	uint64_t f = irq_save();
	reset();
	for (unsigned i = 0; i < n_gp(); i++) {
		uint64_t c = gp_count(i, cycles_event() | KERNEL_CYCLES);
		uint64_t r = amd() ? c : gp_count(i, ARCH_REF_CYCLES | KERNEL_CYCLES);
		if (!cycles_ok(c) || !cycles_ok(r))
			ST_FAIL(t, "gp %u: cycles %llu, ref cycles %llu", i,
				(unsigned long long)c, (unsigned long long)r);
		if (!kernel_insns())
			continue;
		uint64_t n = gp_count(i, ARCH_INSTRUCTIONS | KERNEL_CYCLES);
		if (!insns_ok(n))
			ST_FAIL(t, "gp %u: %llu instructions for a %u-instruction loop", i,
				(unsigned long long)n, 2 * LOOP);
	}
	reset();
	irq_restore(f);
}

SELFTEST(conformance_fixed)
{
	if (!usable(t))
		return;
	uint64_t f = irq_save();
	reset();
	for (unsigned j = 0; j < INTEL_MAX_FIXED; j++) {
		if (!fixed_usable(j) || (j == 0 && !kernel_insns()))
			continue;
		uint64_t v = fixed_count(j);
		if (j == 0 ? !insns_ok(v) : !cycles_ok(v))
			ST_FAIL(t, "fixed %u: %llu for a %u-instruction loop", j,
				(unsigned long long)v, 2 * LOOP);
	}
	reset();
	irq_restore(f);
}

SELFTEST(conformance_all_at_once)
{
	if (!usable(t))
		return;
	uint64_t f = irq_save();
	reset();
	uint64_t all = 0, fixed_ctrl = 0;
	for (unsigned i = 0; i < n_gp(); i++) {
		pmu_wrmsr(sel_msr(i), cycles_event() | KERNEL_CYCLES);
		all |= 1ULL << i;
	}
	for (unsigned j = 1; j < INTEL_MAX_FIXED; j++)
		if (fixed_usable(j)) {
			fixed_ctrl |= FIXED_CTRL_OS << FIXED_CTRL_SHIFT(j);
			all |= 1ULL << (PMC_IDX_FIXED + j);
		}
	if (fixed_ctrl)
		pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, fixed_ctrl);
	global(all);
	known_loop();
	global(0);
	for (unsigned i = 0; i < n_gp(); i++)
		if (!cycles_ok(pmu_rdmsr(ctr_msr(i))))
			ST_FAIL(t, "gp %u did not count with the others", i);
	for (unsigned j = 1; j < INTEL_MAX_FIXED; j++)
		if (fixed_usable(j) && !cycles_ok(pmu_rdmsr(MSR_IA32_FIXED_CTR0 + j)))
			ST_FAIL(t, "fixed %u did not count with the others", j);
	reset();
	irq_restore(f);
}

static uint64_t rdpmc(uint32_t ecx)
{
	uint32_t lo, hi;
	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(ecx));
	return (uint64_t)hi << 32 | lo;
}

/* Stopped counters with distinct values: RDPMC reads each as RDMSR. */
SELFTEST(conformance_rdpmc)
{
	if (!usable(t))
		return;
	uint64_t f = irq_save();
	reset();
	for (unsigned i = 0; i < n_gp(); i++) {
		uint64_t v = 0x123456789aULL + i;
		pmu_wrmsr(wide_msr(i) ? wide_msr(i) : ctr_msr(i), v);
		uint64_t want = pmu_rdmsr(ctr_msr(i));
		ST_CHECK(t, rdpmc(i) == want);
		if (!amd()) /* Intel's fast read, ECX[31]: the low 32 bits */
			ST_CHECK(t, rdpmc(i | 1u << 31) == (want & 0xffffffffULL));
	}
	for (unsigned j = 0; j < INTEL_MAX_FIXED; j++) {
		if (!fixed_usable(j))
			continue;
		pmu_wrmsr(MSR_IA32_FIXED_CTR0 + j, 0x2345678ULL + j);
		ST_CHECK(t, rdpmc(1u << 30 | j) == pmu_rdmsr(MSR_IA32_FIXED_CTR0 + j));
	}
	reset();
	irq_restore(f);
}

/* A counter written while it runs goes on from the value written. */
SELFTEST(conformance_running_write)
{
	if (!usable(t))
		return;
	uint64_t f = irq_save();
	reset();
	const uint64_t base = 1ULL << 40;
	pmu_wrmsr(sel_msr(0), cycles_event() | KERNEL_CYCLES);
	global(1);
	known_loop();
	pmu_wrmsr(wide_msr(0) ? wide_msr(0) : ctr_msr(0), wide_msr(0) ? base : 0);
	known_loop();
	global(0);
	pmu_wrmsr(sel_msr(0), 0);
	uint64_t v = pmu_rdmsr(ctr_msr(0));
	uint64_t from = wide_msr(0) ? base : 0;
	if (!(v >= from && cycles_ok(v - from)))
		ST_FAIL(t, "written %#llx while running, then read %#llx",
			(unsigned long long)from, (unsigned long long)v);
	reset();
	irq_restore(f);
}

/* Intel's legacy writes carry 32 bits and sign-extend bit 31 to the
 * width; full-width writes (Intel's IA32_A_PMCx, every AMD counter
 * write) carry the width. */
SELFTEST(conformance_write_width)
{
	if (!usable(t))
		return;
	uint64_t f = irq_save();
	reset();
	uint64_t mask = gp_width() >= 64 ? ~0ULL : (1ULL << gp_width()) - 1;
	if (!amd()) {
		pmu_wrmsr(MSR_IA32_PMC0, 0x80000001ULL);
		ST_CHECK(t, pmu_rdmsr(MSR_IA32_PMC0) == (0xffffffff80000001ULL & mask));
		pmu_wrmsr(MSR_IA32_PMC0, 0x7fffffffULL);
		ST_CHECK(t, pmu_rdmsr(MSR_IA32_PMC0) == 0x7fffffffULL);
	}
	if (wide_msr(0)) {
		pmu_wrmsr(wide_msr(0), mask & 0x0000800012345678ULL);
		ST_CHECK(t, pmu_rdmsr(ctr_msr(0)) == (mask & 0x0000800012345678ULL));
	}
	reset();
	irq_restore(f);
}

/* Bits above the width in a full-width write: #GP, the counter kept. */
SELFTEST(conformance_write_gp)
{
	if (!usable(t))
		return;
	if (amd() || !wide_msr(0) || gp_width() >= 64) {
		ST_SKIP(t, "no Intel full-width writes");
		return;
	}
	uint64_t f = irq_save();
	reset();
	uint64_t top = 1ULL << gp_width();
	ST_CHECK(t, pmu_wrmsr_safe(wide_msr(0), 0x1234) == 0);
	ST_CHECK(t, pmu_wrmsr_safe(wide_msr(0), top | 0x5678) == -EIO);
	ST_CHECK(t, pmu_rdmsr(ctr_msr(0)) == 0x1234);
	ST_CHECK(t, pmu_wrmsr_safe(wide_msr(0), top - 1) == 0);
	ST_CHECK(t, pmu_rdmsr(ctr_msr(0)) == top - 1);
	reset();
	irq_restore(f);
}

/* RDPMC of a GP (and on Intel, a fixed) counter past the last: #GP;
 * of the last one: its value. */
SELFTEST(conformance_rdpmc_gp)
{
	if (!usable(t))
		return;
	uint64_t f = irq_save(), v = 0;
	reset();
	unsigned last = n_gp() - 1;
	pmu_wrmsr(wide_msr(last) ? wide_msr(last) : ctr_msr(last), 0x4321);
	ST_CHECK(t, pmu_rdpmc_safe(last, &v) == 0 && v == 0x4321);
	ST_CHECK(t, pmu_rdpmc_safe(amd() ? 0x100 : n_gp(), &v) == -EIO);
	if (!amd())
		ST_CHECK(t, pmu_rdpmc_safe(1u << 30 | INTEL_MAX_FIXED, &v) == -EIO);
	reset();
	irq_restore(f);
}

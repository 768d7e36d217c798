/*
 * kbench_msr.c: MSR writes, reads and programmable counters around a
 * /dev/kbench run (kbench_msr.h; kbench_uapi.h has the interface).
 *
 * A programmable counter i with event select v becomes, in order:
 * EVTSEL_i = 0, PMC_i = 0, EVTSEL_i = v | EN, GLOBAL_CTRL |= bit i (Intel,
 * version 2 and later), and a read of PMC_i. Each write saves the old
 * value first and the undo writes them back last-first, so the perf
 * core's programming of the counters comes back exactly.
 *
 * PMU registers go through the PMU accessors (pmu/x86/msr.h: the vpmu's
 * under TCG); other MSRs through RDMSR/WRMSR, which raise #GP for an MSR
 * the CPU lacks: the caller runs apply under its fault recovery. On the
 * software model an event it cannot count is -EOPNOTSUPP.
 */
#include <linux/errno.h>
#include "kbench_msr.h"
#include "pmu/x86/msr.h"
#include "pmu/vpmu/vpmu.h"

#define AMD_PERF_CTL0     0xc0010000u  /* legacy: 4 counters, CTL then CTR */
#define AMD_PERF_CTR0     0xc0010004u
#define AMD_PERF_CTL_EXT0 0xc0010200u  /* PerfCtrExtCore: CTL/CTR pairs */
#define AMD_PERF_CTR_LAST 0xc001020bu
#define VENDOR_AMD_EBX    0x68747541u  /* "Auth" */

static bool is_pmu_msr(uint32_t msr)
{
	return (msr >= MSR_IA32_PMC0 && msr < MSR_IA32_PMC0 + 8) ||
	       (msr >= MSR_IA32_A_PMC0 && msr < MSR_IA32_A_PMC0 + 8) ||
	       (msr >= MSR_IA32_PERFEVTSEL0 && msr < MSR_IA32_PERFEVTSEL0 + 8) ||
	       (msr >= MSR_IA32_FIXED_CTR0 && msr < MSR_IA32_FIXED_CTR0 + 4) ||
	       (msr >= MSR_IA32_FIXED_CTR_CTRL && msr <= MSR_IA32_PERF_GLOBAL_STATUS_SET) ||
	       msr == MSR_IA32_PERF_CAPABILITIES ||
	       (msr >= AMD_PERF_CTL0 && msr < AMD_PERF_CTR0 + 4) ||
	       (msr >= AMD_PERF_CTL_EXT0 && msr <= AMD_PERF_CTR_LAST);
}

static uint64_t msr_get(uint32_t msr)
{
	return is_pmu_msr(msr) ? pmu_rdmsr(msr) : rdmsr(msr);
}

static void msr_set(uint32_t msr, uint64_t v)
{
	if (is_pmu_msr(msr))
		pmu_wrmsr(msr, v);
	else
		wrmsr(msr, v);
}

/* The PMU's programmable counters: registers and how many. */
struct pmc_regs {
	uint32_t evtsel0, pmc0;
	unsigned count;
	bool global_ctrl;
};

static struct pmc_regs pmc_regs(void)
{
	struct pmc_regs r = { MSR_IA32_PERFEVTSEL0, MSR_IA32_PMC0, 0, false };
	struct cpuid_regs v = pmu_cpuid(0, 0);
	struct cpuid_regs a = v.eax >= CPUID_PERFMON ? pmu_cpuid(CPUID_PERFMON, 0) :
			      (struct cpuid_regs){ 0 };
	if (PERFMON_EAX_VERSION(a.eax)) {
		r.count = PERFMON_EAX_GP(a.eax);
		r.global_ctrl = PERFMON_EAX_VERSION(a.eax) >= 2;
	} else if (v.ebx == VENDOR_AMD_EBX) {
		r = (struct pmc_regs){ AMD_PERF_CTL0, AMD_PERF_CTR0, 4, false };
	}
	return r;
}

static int add_step(struct kbench_msrs *m, unsigned op, uint32_t msr, uint8_t kind, uint64_t v)
{
	if (m->nsteps == KBENCH_MAX_STEPS)
		return -EINVAL;
	m->step[m->nsteps++] = (struct kbench_step){ .msr = msr, .kind = kind, .op = (uint8_t)op,
						      .value = v };
	return 0;
}

static int add_read(struct kbench_msrs *m, unsigned op, uint32_t msr)
{
	if (m->nreads == KBENCH_MAX_MSR_READS)
		return -EINVAL;
	m->read_op[m->nreads] = (uint8_t)op;
	m->read[m->nreads++] = msr;
	return 0;
}

static int add_counter(struct kbench_msrs *m, unsigned op, const struct pmc_regs *r,
		       uint32_t ctr, uint64_t evtsel)
{
	if (ctr >= r->count || ctr >= 32)
		return -EINVAL;
	uint32_t sel = r->evtsel0 + ctr;
	uint32_t pmc = r->pmc0 + ctr;
	uint64_t v = (evtsel & ~(EVTSEL_EN | EVTSEL_INT)) | EVTSEL_EN;
	/* The model cannot count some events (kernel-mode branches, kernel
	 * instructions without the instruction clock): refused, as at
	 * perf_event_open, rather than read as 0. */
	if (pmu_model_in_use() && vpmu_event_check(v))
		return -EOPNOTSUPP;
	int err = add_step(m, op, sel, STEP_WRITE, 0);
	err = err ? err : add_step(m, op, pmc, STEP_WRITE, 0);
	err = err ? err : add_step(m, op, sel, STEP_WRITE, v);
	if (!err && r->global_ctrl)
		err = add_step(m, op, MSR_IA32_PERF_GLOBAL_CTRL, STEP_OR, 1ull << ctr);
	return err ? err : add_read(m, op, pmc);
}

int kbench_msrs_prepare(struct kbench_msrs *m, const struct kbench_msr *ops, unsigned n)
{
	struct pmc_regs r = pmc_regs();
	m->nsteps = m->done = m->nreads = m->probed = m->cur_op = 0;
	if (n > KBENCH_MAX_MSRS)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		int err;
		switch (ops[i].op) {
		case KBENCH_MSR_WRITE: err = add_step(m, i, ops[i].msr, STEP_WRITE, ops[i].value); break;
		case KBENCH_MSR_READ: err = add_read(m, i, ops[i].msr); break;
		case KBENCH_MSR_PMC: err = add_counter(m, i, &r, ops[i].msr, ops[i].value); break;
		default: err = -EINVAL; break;
		}
		if (err)
			return err;
	}
	return 0;
}

void kbench_msrs_apply(struct kbench_msrs *m)
{
	for (; m->done < m->nsteps; m->done++) {
		struct kbench_step *s = &m->step[m->done];
		m->cur_op = s->op;
		s->old = msr_get(s->msr);
		msr_set(s->msr, s->kind == STEP_OR ? s->old | s->value : s->value);
	}
	for (; m->probed < m->nreads; m->probed++) {
		m->cur_op = m->read_op[m->probed];
		(void)msr_get(m->read[m->probed]);
	}
}

void kbench_msrs_undo(struct kbench_msrs *m)
{
	while (m->done) {
		const struct kbench_step *s = &m->step[--m->done];
		msr_set(s->msr, s->old);
	}
}

void kbench_msrs_read(const struct kbench_msrs *m, uint64_t *out)
{
	for (unsigned i = 0; i < m->nreads; i++)
		out[i] = msr_get(m->read[i]);
}

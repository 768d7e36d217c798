/*
 * The PMI's overflow handling of the x86 layer (core.h), once for
 * every vendor (Linux's handle_pmi_common and the vendors' handle_irq):
 *
 *   with a status register (Intel v2+, AMD PerfMonV2): the counters are
 *   stopped (disable_all) while the status is handled, in rounds until
 *   it reads clear; each round acknowledges its bits before their
 *   counters are re-armed. A status still set after X86_PMI_MAX_LOOPS
 *   rounds will not clear (Linux's "irq loop stuck"): the PMU is reset
 *   and pmi.c reports it. Then the active counters run again;
 *
 *   without one (Intel v1, AMD's legacy counters): an active counter
 *   armed negative whose top bit reads clear has passed zero.
 *
 * A throttled event's counter is stopped in the PMI: it stays the
 * event's, unarmed, until start() (the global control is written from
 * `active` at the end).
 *
 * Runs on the PMI's CPU under perf_lock, interrupts off (or in an NMI
 * that holds perf_lock).
 */
#include "core/selftest.h"
#include "pmu/x86/claim.h"
#include "pmu/x86/core.h"
#include "pmu/x86/msr.h"
#include "pmu/x86/pmi.h"

/* Counter idx overflowed: fold, arm what is left of the period and,
 * when the whole period has passed, take a sample (common.c). */
static void overflowed(struct x86_counters *k, int idx, struct trap_frame *f,
		       const struct perf_hit *where)
{
	struct perf_event *e = k->owner[idx];
	if (!e || !(k->active >> idx & 1))
		return;
	struct x86_counter c = x86_pmu->counter(idx);
	struct perf_hit with_branches = *where;
	x86_pmu->lbr_read(e, &with_branches);
	if (x86_overflowed(e, &c, f, &with_branches)) {
		k->active &= ~(1ULL << idx);
		x86_pmu->disable_counter(idx);
	}
}

/* Linux's x86_pmu_reset, for a status that does not clear: every
 * selector and counter zeroed, the status acknowledged. Events keep
 * their counters, stopped, until sched in/out or start() arms them. */
static void reset_counters(struct x86_counters *k, uint64_t bits)
{
	for (int idx = 0; idx < X86_MAX_IDX; idx++)
		if (bits >> idx & 1) {
			x86_pmu->disable_counter(idx);
			pmu_wrmsr(x86_pmu->counter(idx).msr, 0);
		}
	k->active = 0;
	x86_pmu->ack_status(bits);
}

static unsigned handle_by_status(struct x86_counters *k, struct trap_frame *f,
				 const struct perf_hit *where)
{
	uint64_t bits = x86_pmu->counter_bits();
	unsigned handled = 0;
	x86_pmu->disable_all();
	for (int loops = 0;; loops++) {
		uint64_t st = x86_pmu->get_status() & bits;
		if (!st)
			break;
		if (loops == X86_PMI_MAX_LOOPS) {
			reset_counters(k, bits);
			x86_pmi_stuck();
			break;
		}
		x86_pmu->ack_status(st);
		for (int idx = 0; idx < X86_MAX_IDX; idx++)
			if (st >> idx & 1) {
				overflowed(k, idx, f, where);
				handled++;
			}
		if (selftest_knob(SELFTEST_STUCK_STATUS))
			x86_pmu->set_status(st);
	}
	x86_pmu->enable_all(k->active);
	return handled;
}

static unsigned handle_by_top_bit(struct x86_counters *k, struct trap_frame *f,
				  const struct perf_hit *where)
{
	uint64_t bits = x86_pmu->counter_bits() & k->active;
	unsigned handled = 0;
	for (int idx = 0; idx < X86_MAX_IDX; idx++) {
		if (!(bits >> idx & 1))
			continue;
		struct x86_counter c = x86_pmu->counter(idx);
		if (pmu_rdmsr(c.msr) & (c.mask ^ (c.mask >> 1)))
			continue;
		overflowed(k, idx, f, where);
		handled++;
	}
	return handled;
}

void x86_handle_overflows(const struct perf_hit *where)
{
	struct x86_counters *k = x86_counters_here();
	/* the model's user-time overflow: user registers */
	struct trap_frame *f = pmu_pmi_frame(where->regs);
	unsigned handled = x86_pmu->get_status ? handle_by_status(k, f, where)
					       : handle_by_top_bit(k, f, where);
	if (x86_pmu->after_overflows)
		x86_pmu->after_overflows(handled);
}

/*
 * Per-CPU one-shot timers on the local APIC timer (TSC-deadline mode
 * when the CPU has it, else the APIC timer in one-shot mode): the
 * scheduler tick is one of them; perf's clock events and the vpmu's
 * counter overflows are others.
 *
 * A timer belongs to the CPU it was started on and fires there, from
 * the timer interrupt, with interrupts off; its callback may restart it
 * (hrtimer_forward-style) by calling hrtimer_start again.
 *
 * Calling rules: hrtimer_start and hrtimer_cancel run on the timer's
 * CPU with interrupts off (they never take a lock another CPU holds).
 * Expiry times are TSC values (rdtsc()); hrtimer_ns_to_tsc converts ns.
 *
 * Each CPU's queue is its own: only that CPU touches it, always with
 * interrupts off, so it needs no lock. The hardware timer is armed for
 * the queue's head and disarmed when the queue is empty (an idle or
 * isolated CPU with no timers takes no timer interrupt at all).
 */
#ifndef BAREMON_HRTIMER_H
#define BAREMON_HRTIMER_H

#include <stdbool.h>
#include <stdint.h>
#include "core/list.h"

struct trap_frame;
struct hrtimer;

/* f: the registers the timer interrupt found (user or kernel). */
typedef void (*hrtimer_fn)(struct hrtimer *t, struct trap_frame *f);

struct hrtimer {
	uint64_t expires;   /* TSC value */
	hrtimer_fn fn;
	struct list node;   /* in its CPU's queue, sorted by expires */
	int cpu;            /* where queued, -1: not queued */
};

void hrtimer_init(struct hrtimer *t, hrtimer_fn fn);
/* (Re)arm t on this CPU to fire at TSC `expires` (past: as soon as
 * possible). */
void hrtimer_start(struct hrtimer *t, uint64_t expires);
/* Disarm t if queued (on this CPU). */
void hrtimer_cancel(struct hrtimer *t);
/* This CPU's queue and its APIC timer (one-shot or TSC-deadline), on
 * VEC_TIMER. Each CPU once, before it starts any timer. */
void hrtimer_init_cpu(void);
/* Arm this CPU's timer again for its earliest hrtimer, even if armed: an
 * expiry while the timer's LVT entry was masked is lost (pmu/kbench/). */
void hrtimer_rearm_cpu(void);
/* TSC cycles in ns nanoseconds (after TSC calibration). */
uint64_t hrtimer_ns_to_tsc(uint64_t ns);

static inline bool hrtimer_queued(const struct hrtimer *t)
{
	return t->cpu >= 0;
}

#endif

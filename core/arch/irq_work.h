/*
 * Deferred work for NMI handlers (Linux's irq_work, reduced): an NMI may
 * land while the interrupted code holds any lock, so whatever takes a
 * lock or wakes a task is raised here and runs soon after on the same
 * CPU, in an ordinary interrupt: a self-IPI on VEC_IPI_WORK, taken as
 * soon as the interrupted code lets interrupts in (so after it has
 * dropped its irqsave locks).
 */
#ifndef BAREMON_IRQ_WORK_H
#define BAREMON_IRQ_WORK_H

#include <stdint.h>

#define IRQ_WORK_SLOTS 8

typedef void (*irq_work_fn)(void);

/* Boot, before any raise: a slot for fn, or -1 when all are taken.
 * fn runs with interrupts off, holding no lock, on the raising CPU. */
int irq_work_register(irq_work_fn fn);
/* NMI-safe: owe slot `id` a run on this CPU. Raising again before it
 * ran is one run. */
void irq_work_raise(int id);
/* Run what this CPU owes (the IPI's handler; callable with interrupts
 * off from anywhere no lock is held). */
void irq_work_run(void);
/* NMI-safe: a fixed interrupt on `vector` to this CPU (the ICR's "self"
 * shorthand, one write). */
void self_ipi(unsigned vector);
/* Self-IPIs irq_work sent on this CPU so far (for the self-tests). */
uint64_t irq_work_ipis(unsigned cpu);

#endif

/*
 * Cross-CPU calls for the event core: run a function on the CPU whose
 * counters hold a context, from its VEC_IPI_PERF handler, and wait.
 *
 * Each CPU has one mailbox. A sender claims the target's mailbox (one
 * sender at a time), fills it, sends the IPI and spins until the target
 * clears it. While spinning, possibly with interrupts off, a sender
 * serves its own mailbox (and TLB shootdown requests, whose senders spin
 * the same way), so two CPUs calling each other both progress.
 * Senders never hold perf_lock: the called function takes it.
 */
#include "core/arch/apic.h"
#include "event.h"
#include "core/kernel.h"
#include "core/arch/percpu.h"
#include "core/mm/tlb.h"
#include "core/arch/trap.h"
#include "core/arch/x86.h"
#include "core/arch/percpu_table.h"

struct mailbox {
	int busy;                  /* claimed by a sender */
	void (*fn)(void *);
	void *arg;
	int pending;               /* set by the sender, cleared when done */
};

PERCPU_TABLE(struct mailbox, boxes);

/* Run this CPU's pending call. Interrupts off, so the IPI handler and
 * a spinning sender on this CPU never both run it. */
static void serve(void)
{
	uint64_t fl = irq_save();
	struct mailbox *m = &boxes[this_cpu_id()];
	if (__atomic_load_n(&m->pending, __ATOMIC_ACQUIRE)) {
		m->fn(m->arg);
		__atomic_store_n(&m->pending, 0, __ATOMIC_RELEASE);
	}
	irq_restore(fl);
}

static void xcall_ipi(struct trap_frame *f)
{
	(void)f;
	serve();
	apic_eoi();
}

void perf_xcall_init(void)
{
	trap_set_handler(VEC_IPI_PERF, xcall_ipi);
}

void perf_xcall(unsigned cpu, void (*fn)(void *), void *arg)
{
	if (cpu == this_cpu_id()) {
		uint64_t fl = irq_save();
		fn(arg);
		irq_restore(fl);
		return;
	}
	struct mailbox *m = &boxes[cpu];
	int free = 0;
	while (!__atomic_compare_exchange_n(&m->busy, &free, 1, false,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		free = 0;
		serve();
		cpu_relax();
	}
	m->fn = fn;
	m->arg = arg;
	__atomic_store_n(&m->pending, 1, __ATOMIC_RELEASE);
	apic_send_ipi(percpu_area[cpu].apic_id, VEC_IPI_PERF);
	while (__atomic_load_n(&m->pending, __ATOMIC_ACQUIRE)) {
		serve();
		tlb_serve_pending();
		cpu_relax();
	}
	__atomic_store_n(&m->busy, 0, __ATOMIC_RELEASE);
}

/*
 * Deferred work (irq_work.h). pending[c] is a bitmask of slots CPU c
 * owes a run; it is set by the raising CPU (in an NMI, possibly) and
 * taken whole with an atomic exchange by the same CPU's handler, so the
 * only concurrency is an NMI interrupting the handler: a bit it sets
 * after the exchange makes a new IPI, which runs it.
 *
 * The IPI uses the "self" destination shorthand, one write of the ICR's
 * low half: an NMI that interrupts code between its writes of the
 * xAPIC's ICR high and low halves leaves that code's destination alone.
 */
#include "irq_work.h"
#include "apic.h"
#include "core/kernel.h"
#include "percpu.h"
#include "trap.h"

#define ICR_DEST_SELF (1u << 18)

static irq_work_fn slots[IRQ_WORK_SLOTS];
static int nr_slots;
static uint32_t pending[MAX_CPUS];
static uint64_t ipis[MAX_CPUS];

static void work_ipi(struct trap_frame *f)
{
	(void)f;
	apic_eoi();
	irq_work_run();
}

int irq_work_register(irq_work_fn fn)
{
	if (nr_slots == IRQ_WORK_SLOTS)
		return -1;
	if (!nr_slots)
		trap_set_handler(VEC_IPI_WORK, work_ipi);
	slots[nr_slots] = fn;
	return nr_slots++;
}

void irq_work_raise(int id)
{
	if (id < 0 || id >= nr_slots)
		return;
	unsigned cpu = this_cpu_id();
	uint32_t old = __atomic_fetch_or(&pending[cpu], 1u << id, __ATOMIC_RELAXED);
	if (old & (1u << id))
		return; /* already owed: its IPI is on the way */
	ipis[cpu]++;
	self_ipi(VEC_IPI_WORK);
}

void self_ipi(unsigned vector)
{
	apic_write(APIC_ICR, ICR_DEST_SELF | vector);
}

void irq_work_run(void)
{
	uint32_t owed = __atomic_exchange_n(&pending[this_cpu_id()], 0, __ATOMIC_RELAXED);
	for (int id = 0; owed; id++, owed >>= 1)
		if (owed & 1)
			slots[id]();
}

uint64_t irq_work_ipis(unsigned cpu)
{
	return ipis[cpu];
}

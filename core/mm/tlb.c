/*
 * TLB shootdown by IPI. Each CPU has one request word: a sender sets it,
 * sends VEC_IPI_CALL and spins until the target clears it. Requests are
 * "flush the whole non-global TLB" (reloading CR3), which is always
 * correct and cheap for our small address spaces.
 *
 * Deadlock freedom: a sender spins with interrupts possibly off (it may
 * hold an mm lock), so while spinning it also serves its own request
 * word; two CPUs shooting at each other both make progress.
 */
#include "arch/apic.h"
#include "kernel.h"
#include "arch/percpu.h"
#include "tlb.h"
#include "arch/trap.h"
#include "arch/x86.h"

static volatile int flush_request[MAX_CPUS];

void tlb_serve_pending(void)
{
	unsigned me = this_cpu_id();
	if (__atomic_load_n(&flush_request[me], __ATOMIC_ACQUIRE)) {
		write_cr3(read_cr3());
		__atomic_store_n(&flush_request[me], 0, __ATOMIC_RELEASE);
	}
}

static void flush_ipi(struct trap_frame *f)
{
	(void)f;
	tlb_serve_pending();
	apic_eoi();
}

void tlb_init_cpu(void)
{
	if (this_cpu_id() == 0)
		trap_set_handler(VEC_IPI_CALL, flush_ipi);
}

void tlb_flush_others(const struct cpumask *cpus, uint64_t va)
{
	unsigned me = this_cpu_id();
	invlpg(va);
	for_each_cpu(c, cpus) {
		if (c == me)
			continue;
		__atomic_store_n(&flush_request[c], 1, __ATOMIC_RELEASE);
		apic_send_ipi(percpu_area[c].apic_id, VEC_IPI_CALL);
	}
	for_each_cpu(c, cpus) {
		if (c == me)
			continue;
		while (__atomic_load_n(&flush_request[c], __ATOMIC_ACQUIRE)) {
			tlb_serve_pending();
			cpu_relax();
		}
	}
}

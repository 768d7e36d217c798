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
#include "core/arch/apic.h"
#include "core/kernel.h"
#include "core/arch/percpu.h"
#include "tlb.h"
#include "core/arch/trap.h"
#include "core/arch/x86.h"

#define FLUSH_USER 1
#define FLUSH_ALL  2

static volatile int flush_request[MAX_CPUS];

/* Toggling CR4.PGE drops global entries as well (SDM vol. 3A 4.10.4.1). */
static void flush_all_local(void)
{
	uint64_t cr4 = read_cr4();
	write_cr4(cr4 & ~CR4_PGE);
	write_cr4(cr4);
}

/* A request that arrives while this CPU flushes is kept: the word is
 * cleared only if it still holds what was served, so a sender never sees
 * its bits cleared by a flush that started before it asked. */
void tlb_serve_pending(void)
{
	unsigned me = this_cpu_id();
	int req = __atomic_load_n(&flush_request[me], __ATOMIC_ACQUIRE);
	while (req) {
		if (req & FLUSH_ALL)
			flush_all_local();
		else
			write_cr3(read_cr3());
		if (__atomic_compare_exchange_n(&flush_request[me], &req, 0, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			break;
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

static void flush_cpus(const struct cpumask *cpus, uint64_t va, int req)
{
	unsigned me = this_cpu_id();
	invlpg(va);
	for_each_cpu(c, cpus) {
		if (c == me)
			continue;
		__atomic_or_fetch(&flush_request[c], req, __ATOMIC_ACQ_REL);
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

void tlb_flush_others(const struct cpumask *cpus, uint64_t va)
{
	flush_cpus(cpus, va, FLUSH_USER);
}

void tlb_flush_kernel_page(uint64_t va)
{
	struct cpumask online;
	cpumask_clear(&online);
	for (unsigned c = 0; c < cpu_ids; c++)
		if (__atomic_load_n(&percpu_area[c].online, __ATOMIC_ACQUIRE))
			cpumask_set(&online, c);
	flush_cpus(&online, va, FLUSH_ALL);
}

/*
 * SMP start-up: every enabled application processor in the MADT (up to
 * MAX_CPUS in all) is started at once: INIT to each, one 10 ms wait,
 * then two rounds of STARTUP IPIs, then one wait for them all. Each AP
 * runs trampoline.nasm from physical 0x8000, takes a ticket there that
 * picks its stack, and enters ap_entry(), which finds its CPU number
 * from its APIC ID (CPU numbers follow MADT order, the boot CPU being 0)
 * and sets up its own GDT/TSS, per-CPU area, APIC and idle task before
 * joining the scheduler.
 *
 * A CPU that does not claim its number in time is abandoned: its slot's
 * state moves WAITING -> ABANDONED, and an AP arriving later loses the
 * compare-and-swap (WAITING -> CLAIMED) and halts for good. Every MADT
 * CPU ends in one enum cpu_boot_state, which the log and `cpus` show.
 *
 * The page at 0x8000 is mapped 1:1 in the kernel's tables only while
 * CPUs start, and low memory is never handed out by the page allocator.
 */
#include <stdlib.h>
#include <string.h>
#include "acpi.h"
#include "apic.h"
#include "core/cmdline.h"
#include "cpu.h"
#include "gdt.h"
#include "core/kernel.h"
#include "core/mm/kstack.h"
#include "core/mm/mm.h"
#include "percpu.h"
#include "core/proc/sched.h"
#include "smp.h"
#include "core/proc/syscall.h"
#include "core/proc/tasks.h"
#include "trap.h"
#include "tsc.h"
#include "x86.h"
#include "core/mm/uaccess.h"
#include "numa.h"

#define TRAMPOLINE_PHYS 0x8000ULL
#define ICR_INIT   0x00004500u
#define ICR_STARTUP 0x00004600u

extern const uint8_t trampoline_start[], trampoline_end[];

struct trampoline_params {
	uint64_t cr3, stacks, entry, ticket, nstacks;
};

enum { AP_WAITING, AP_CLAIMED, AP_ABANDONED };

static unsigned online_count = 1;
static unsigned ap_count;                  /* APs asked to start: cpus 1..ap_count */
static uint8_t ap_state[MAX_CPUS];          /* AP_*, by CPU number */
static int ap_madt_index[MAX_CPUS];         /* its acpi.cpus[] entry */
static uint64_t ap_stack_top[MAX_CPUS];     /* by ticket (trampoline reads) */
static uint64_t cpu_stack_top[MAX_CPUS];    /* by CPU number: its idle stack */

uint64_t smp_cpu_stack_top(unsigned n)
{
	return n < MAX_CPUS ? cpu_stack_top[n] : 0;
}

unsigned smp_cpu_count(void)
{
	return online_count;
}

/* This CPU's APIC ID before its APIC is set up: the x2APIC ID from
 * CPUID 0BH when the CPU has x2APIC (all 32 bits; the same number as
 * the xAPIC ID below 255, so right in either mode), else the 8-bit
 * initial APIC ID from CPUID 1. */
static uint32_t initial_apic_id(void)
{
	if (cpu.x2apic && cpu.max_leaf >= 0xb)
		return cpuid(0xb, 0).edx;
	return cpuid(1, 0).ebx >> 24;
}

/* The CPU number waiting for this APIC ID, claimed; 0 if none. */
static unsigned claim_cpu_number(uint32_t apic_id)
{
	for (unsigned n = 1; n <= ap_count; n++) {
		if (percpu_area[n].apic_id != apic_id)
			continue;
		uint8_t want = AP_WAITING;
		if (__atomic_compare_exchange_n(&ap_state[n], &want, AP_CLAIMED, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return n;
		return 0;
	}
	return 0;
}

static void __attribute__((noreturn)) park(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

/* The same per-CPU set-up the boot CPU did in kmain, on CPU n's own
 * stack (on its node), which becomes its idle task's. */
static void __attribute__((noreturn, used)) ap_start(unsigned n)
{
	gdt_init_cpu(n);
	percpu_init(n, percpu_area[n].apic_id);
	idt_load();
	write_cr0(read_cr0() | CR0_WP);
	write_cr4(read_cr4() | CR4_PGE);
	fpu_init_cpu();
	if (cpu.smep)
		write_cr4(read_cr4() | CR4_SMEP);
	if (smap_enabled)
		write_cr4(read_cr4() | CR4_SMAP);
	syscall_init_cpu();
	apic_init_cpu();
	this_cpu()->apic_id = apic_current_id();
	sched_init_cpu(task_create_idle(n, cpu_stack_top[n] - KSTACK_SIZE));
	sched_tick_start();
	__atomic_store_n(&this_cpu()->online, 1, __ATOMIC_RELEASE);
	sched_idle_loop();
}

/* The trampoline's jump target, on the small stack its ticket picked
 * (an AP cannot know its number before it runs C): claim the number,
 * then move to that CPU's stack for good. */
static void __attribute__((noreturn)) ap_entry(uint64_t ticket)
{
	(void)ticket;
	unsigned n = claim_cpu_number(initial_apic_id());
	if (!n)
		park(); /* abandoned, or not a CPU we asked for */
	/* call, not jmp: ap_start sees the stack as after any call */
	__asm__ volatile("mov %0, %%rsp\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "call ap_start"
			 : : "r"(cpu_stack_top[n]), "D"((uint64_t)n) : "memory");
	__builtin_unreachable();
}

static struct trampoline_params *params(void)
{
	size_t size = (size_t)(trampoline_end - trampoline_start);
	return phys_to_virt(TRAMPOLINE_PHYS + size - sizeof(struct trampoline_params));
}

/* Give CPU numbers 1.. to the MADT's other enabled CPUs, in MADT order,
 * up to `limit` CPUs in all; mark the rest. Returns how many got a
 * number. */
static unsigned assign_cpu_numbers(unsigned limit)
{
	unsigned n = 0;
	for (unsigned i = 0; i < acpi.ncpus; i++) {
		struct acpi_cpu *c = &acpi.cpus[i];
		if (c->apic_id == this_cpu()->apic_id) {
			c->state = CPU_ONLINE;
			c->cpu = 0;
		} else if (!c->enabled) {
			continue;
		} else if (c->apic_id > 254 && !apic_x2apic_mode()) {
			c->state = CPU_NEEDS_X2APIC;
		} else if (n + 1 >= limit) {
			c->state = CPU_OVER_LIMIT;
		} else {
			n++;
			percpu_area[n].apic_id = c->apic_id;
			ap_madt_index[n] = (int)i;
		}
	}
	return n;
}

/* Per AP: a one-page start-up stack (by ticket), and its kernel stack
 * and interrupt stacks (by CPU number) on the CPU's NUMA node, each with
 * its guard page (mm/kstack.h); fewer APs are started if memory runs
 * out. */
static bool alloc_ap_stacks(unsigned t)
{
	unsigned n = t + 1, node = numa_node_of_cpu(n);
	uint64_t ticket = kstack_alloc(PAGE_SIZE);
	uint64_t stack = kstack_alloc_node(KSTACK_SIZE, node);
	if (ticket && stack && gdt_alloc_ist(n, node)) {
		ap_stack_top[t] = ticket + PAGE_SIZE;
		cpu_stack_top[n] = stack + KSTACK_SIZE;
		return true;
	}
	if (ticket)
		kstack_free(ticket, PAGE_SIZE);
	if (stack)
		kstack_free(stack, KSTACK_SIZE);
	return false;
}

static unsigned alloc_stacks(unsigned n)
{
	for (unsigned t = 0; t < n; t++) {
		if (alloc_ap_stacks(t))
			continue;
		for (unsigned k = t + 1; k <= n; k++)
			acpi.cpus[ap_madt_index[k]].state = CPU_NO_MEMORY;
		return t;
	}
	return n;
}

/* The start-up stacks, once no AP can be on one: every AP asked is
 * online (so has left it). A late AP may still be parked on one
 * otherwise, and they stay. */
static void free_ticket_stacks(bool all_online)
{
	if (!all_online)
		return;
	for (unsigned t = 0; t < ap_count; t++) {
		kstack_free(ap_stack_top[t] - PAGE_SIZE, PAGE_SIZE);
		ap_stack_top[t] = 0;
	}
}

static bool claimed(unsigned n)
{
	return __atomic_load_n(&ap_state[n], __ATOMIC_ACQUIRE) == AP_CLAIMED;
}

static bool is_online(unsigned n)
{
	return __atomic_load_n(&percpu_area[n].online, __ATOMIC_ACQUIRE);
}

/* Wait until every AP is online or `us` have passed; true if all are. */
static bool wait_online(uint64_t us)
{
	uint64_t end = rdtsc() + tsc_hz() / 1000000 * us;
	for (;;) {
		unsigned up = 0;
		for (unsigned n = 1; n <= ap_count; n++)
			up += is_online(n);
		if (up == ap_count)
			return true;
		if (rdtsc() > end)
			return false;
		udelay(100);
	}
}

static void send_startup(bool only_unclaimed)
{
	for (unsigned n = 1; n <= ap_count; n++)
		if (!only_unclaimed || !claimed(n))
			apic_send_ipi(percpu_area[n].apic_id,
				      ICR_STARTUP | (uint32_t)(TRAMPOLINE_PHYS >> 12));
}

/* INIT, 10 ms, STARTUP, 200 us, STARTUP again to whoever has not
 * claimed its number, then a wait that grows with the count (emulators
 * run many virtual CPUs on few real ones). */
static void start_all(void)
{
	struct trampoline_params *p = params();
	p->cr3 = vm_kernel_pml4();
	p->stacks = (uint64_t)ap_stack_top;
	p->entry = (uint64_t)ap_entry;
	p->ticket = 0;
	p->nstacks = ap_count;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	for (unsigned n = 1; n <= ap_count; n++)
		apic_send_ipi(percpu_area[n].apic_id, ICR_INIT);
	udelay(10000);
	send_startup(false);
	udelay(200);
	send_startup(true);
	uint64_t budget_us = 2000000 + 200000ULL * ap_count;
	if (wait_online(budget_us)) {
		free_ticket_stacks(true);
		return;
	}
	/* Abandon the silent ones; a claimed one is running our code and
	 * gets one more second to finish. */
	for (unsigned n = 1; n <= ap_count; n++) {
		uint8_t want = AP_WAITING;
		__atomic_compare_exchange_n(&ap_state[n], &want, AP_ABANDONED, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	}
	wait_online(1000000);
}

/* Record each AP's fate in its MADT entry and log the failures. */
static void record_results(void)
{
	for (unsigned n = 1; n <= ap_count; n++) {
		struct acpi_cpu *c = &acpi.cpus[ap_madt_index[n]];
		if (is_online(n)) {
			c->state = CPU_ONLINE;
			c->cpu = (int)n;
			online_count++;
			cpu_ids = n + 1;
		} else {
			c->state = CPU_FAILED;
			klog("smp: cpu with apic id %u (madt entry %d) did not start",
			     c->apic_id, ap_madt_index[n]);
		}
	}
	for (unsigned i = 0; i < acpi.ncpus; i++) {
		struct acpi_cpu *c = &acpi.cpus[i];
		if (c->state == CPU_OVER_LIMIT || c->state == CPU_NO_MEMORY ||
		    c->state == CPU_NEEDS_X2APIC)
			klog("smp: cpu with apic id %u not started: %s", c->apic_id,
			     smp_state_name(c->state));
	}
}

const char *smp_state_name(unsigned state)
{
	switch (state) {
	case CPU_ONLINE: return "online";
	case CPU_FAILED: return "did not start";
	case CPU_OVER_LIMIT: return "beyond the cpu limit (maxcpus=, or MAX_CPUS 1024)";
	case CPU_NO_MEMORY: return "no memory for its stack";
	case CPU_NEEDS_X2APIC: return "apic id above 254 needs x2apic, which this cpu lacks";
	default: return "not started (disabled or nosmp)";
	}
}

/* "1-3,5" -> bits 1, 2, 3, 5. Malformed parts are ignored. */
static struct cpumask parse_cpu_list(const char *s)
{
	struct cpumask mask;
	cpumask_clear(&mask);
	while (*s) {
		char *end;
		unsigned long lo = strtoul(s, &end, 10), hi = lo;
		if (end == s)
			break;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		for (unsigned long c = lo; c <= hi && c < MAX_CPUS; c++)
			cpumask_set(&mask, (unsigned)c);
		s = *end == ',' ? end + 1 : end;
		if (*end != ',' )
			break;
	}
	cpumask_clear_cpu(&mask, 0); /* CPU 0 keeps the housekeeping */
	return mask;
}

static unsigned count_state(unsigned state)
{
	unsigned k = 0;
	for (unsigned i = 0; i < acpi.ncpus; i++)
		k += acpi.cpus[i].state == state;
	return k;
}

static unsigned planned;                 /* APs numbered by smp_plan_cpus */
static unsigned limit = MAX_CPUS;        /* maxcpus= */

unsigned smp_plan_cpus(void)
{
	for (unsigned i = 0; i < acpi.ncpus; i++)
		if (acpi.cpus[i].apic_id == this_cpu()->apic_id)
			acpi.cpus[i].state = CPU_ONLINE, acpi.cpus[i].cpu = 0;
	if (cmdline_has("nosmp") || acpi.ncpus <= 1)
		return 1;
	uint64_t asked = cmdline_get_u64("maxcpus", MAX_CPUS);
	limit = asked < 1 || asked > MAX_CPUS ? MAX_CPUS : (unsigned)asked;
	planned = assign_cpu_numbers(limit);
	return planned + 1;
}

unsigned smp_init(void)
{
	const char *iso = cmdline_get("isolcpus");
	if (iso) {
		struct cpumask isolated = parse_cpu_list(iso);
		sched_set_isolated(&isolated);
		klog("smp: isolated cpus %s (tickless when running one task)", iso);
	}
	if (!planned)
		return online_count;
	BUG_ON(vm_kernel_pml4() >= GiB(4)); /* the trampoline loads it in 32-bit mode */
	ap_count = alloc_stacks(planned);
	trap_size_counts(ap_count + 1);
	uint64_t t0 = rdtsc();
	size_t size = (size_t)(trampoline_end - trampoline_start);
	vm_map_identity(TRAMPOLINE_PHYS, PAGE_SIZE);
	memcpy(phys_to_virt(TRAMPOLINE_PHYS), trampoline_start, size);
	start_all();
	vm_unmap_identity(TRAMPOLINE_PHYS, PAGE_SIZE);
	record_results();
	klog("smp: %u cpus online of %u in the MADT (%u failed, %u beyond the limit of %u, "
	     "%u disabled) in %llu us", online_count, acpi.ncpus + acpi.ncpus_dropped,
	     count_state(CPU_FAILED), count_state(CPU_OVER_LIMIT), limit,
	     count_state(CPU_NOT_TRIED), (unsigned long long)(tsc_to_ns(rdtsc() - t0) / 1000));
	char list[128];
	cpumask_format(list, sizeof(list), sched_online_mask());
	klog("smp: online: cpus %s%s", list, count_state(CPU_NEEDS_X2APIC) ?
	     "; some need x2apic (see above)" : "");
	return online_count;
}

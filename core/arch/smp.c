/*
 * SMP start-up: INIT-SIPI-SIPI to each application processor in the MADT,
 * one at a time. Each AP runs trampoline.nasm from physical 0x8000 and
 * then ap_entry(), which sets up its own GDT/TSS, per-CPU area, APIC and
 * idle task before joining the scheduler.
 *
 * The page at 0x8000 is mapped 1:1 in the kernel's tables only while
 * CPUs start, and low memory is never handed out by the page allocator.
 */
#include <stdlib.h>
#include <string.h>
#include "acpi.h"
#include "apic.h"
#include "cmdline.h"
#include "cpu.h"
#include "gdt.h"
#include "kernel.h"
#include "mm/mm.h"
#include "percpu.h"
#include "proc/sched.h"
#include "smp.h"
#include "proc/syscall.h"
#include "proc/tasks.h"
#include "trap.h"
#include "tsc.h"
#include "x86.h"
#include "mm/uaccess.h"

#define TRAMPOLINE_PHYS 0x8000ULL
#define ICR_INIT   0x00004500u
#define ICR_STARTUP 0x00004600u
#define AP_STACK_PAGES (KSTACK_SIZE / PAGE_SIZE)

extern const uint8_t trampoline_start[], trampoline_end[];

struct trampoline_params {
	uint64_t cr3, stack, entry, cpu;
};

static unsigned online_count = 1;
static volatile uint64_t ap_stack_base[MAX_CPUS];

unsigned smp_cpu_count(void)
{
	return online_count;
}

/* The same per-CPU set-up the boot CPU did in kmain. */
static void __attribute__((noreturn)) ap_entry(uint64_t n)
{
	gdt_init_cpu((unsigned)n);
	percpu_init((unsigned)n, percpu_area[n].apic_id);
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
	sched_init_cpu(task_create_idle((unsigned)n, ap_stack_base[n]));
	sched_tick_start();
	__atomic_store_n(&this_cpu()->online, 1, __ATOMIC_RELEASE);
	sched_idle_loop();
}

static struct trampoline_params *params(void)
{
	size_t size = (size_t)(trampoline_end - trampoline_start);
	return phys_to_virt(TRAMPOLINE_PHYS + size - sizeof(struct trampoline_params));
}

static bool start_cpu(unsigned index, uint32_t apic_id)
{
	uint64_t stack = pmm_alloc_pages(AP_STACK_PAGES);
	if (!stack)
		return false;
	ap_stack_base[index] = (uint64_t)phys_to_virt(stack);
	struct trampoline_params *p = params();
	p->cr3 = vm_kernel_pml4();
	p->stack = ap_stack_base[index] + KSTACK_SIZE;
	p->entry = (uint64_t)ap_entry;
	p->cpu = index;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	apic_send_ipi(apic_id, ICR_INIT);
	udelay(10000);
	for (int sipi = 0; sipi < 2; sipi++) {
		apic_send_ipi(apic_id, ICR_STARTUP | (uint32_t)(TRAMPOLINE_PHYS >> 12));
		for (int i = 0; i < 2000; i++) { /* up to 200 ms */
			if (__atomic_load_n(&percpu_area[index].online, __ATOMIC_ACQUIRE))
				return true;
			udelay(100);
		}
	}
	return false;
}

/* "1-3,5" -> bits 1, 2, 3, 5. Malformed parts are ignored. */
static uint64_t parse_cpu_list(const char *s)
{
	uint64_t mask = 0;
	while (*s) {
		char *end;
		unsigned long lo = strtoul(s, &end, 10), hi = lo;
		if (end == s)
			break;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		for (unsigned long c = lo; c <= hi && c < MAX_CPUS; c++)
			mask |= 1ULL << c;
		s = *end == ',' ? end + 1 : end;
		if (*end != ',' )
			break;
	}
	return mask & ~1ULL; /* CPU 0 keeps the housekeeping */
}

unsigned smp_init(void)
{
	const char *iso = cmdline_get("isolcpus");
	if (iso) {
		sched_set_isolated(parse_cpu_list(iso));
		klog("smp: isolated cpus %s (tickless when running one task)", iso);
	}
	if (cmdline_has("nosmp") || acpi.ncpus <= 1)
		return online_count;
	BUG_ON(vm_kernel_pml4() >= GiB(4)); /* the trampoline loads it in 32-bit mode */
	size_t size = (size_t)(trampoline_end - trampoline_start);
	vm_map_identity(TRAMPOLINE_PHYS, PAGE_SIZE);
	memcpy(phys_to_virt(TRAMPOLINE_PHYS), trampoline_start, size);
	unsigned next = 1;
	for (unsigned i = 0; i < acpi.ncpus && next < MAX_CPUS; i++) {
		struct acpi_cpu *c = &acpi.cpus[i];
		if (c->apic_id == this_cpu()->apic_id || !c->enabled)
			continue;
		/* CPU numbers follow MADT order, the boot CPU being 0. */
		percpu_area[next].apic_id = c->apic_id;
		if (start_cpu(next, c->apic_id)) {
			online_count++;
			next++;
		} else {
			klog("smp: cpu with apic id %u did not start", c->apic_id);
		}
	}
	vm_unmap_identity(TRAMPOLINE_PHYS, PAGE_SIZE);
	klog("smp: %u cpus online", online_count);
	return online_count;
}

/*
 * The IDT and trap dispatch. The IDT is built once by the boot CPU and
 * then only read; handlers[] is written during single-threaded init (and
 * by drivers before they enable their interrupt source), read on every
 * trap. counts[] rows belong to their CPU: the boot CPU's row is static,
 * the table for all CPUs is allocated once by smp_init before the others
 * start (trap_size_counts), then never moves.
 */
#include <string.h>
#include "trap.h"
#include "nmi.h"
#include "gdt.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "core/panic.h"
#include "percpu.h"
#include "core/proc/task.h"
#include "pmu/perf.h"
#include "core/proc/userret.h"

struct idt_entry {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_hi;
	uint32_t zero;
} __packed;

struct idt_ptr {
	uint16_t limit;
	uint64_t base;
} __packed;

extern const uint64_t isr_stubs[256];
extern const char nmi_entry[]; /* nmi_entry.asm */

static struct idt_entry idt[256] __attribute__((aligned(16)));
static trap_handler handlers[256];
static uint64_t boot_counts[1][256];
static uint64_t (*counts)[256] = boot_counts;
static unsigned count_rows = 1;   /* CPUs with a row in counts */
static const char *irq_names[NR_IRQS];

static const char *const exception_names[32] = {
	"divide error (#DE)", "debug (#DB)", "NMI", "breakpoint (#BP)",
	"overflow (#OF)", "bound range (#BR)", "invalid opcode (#UD)",
	"device not available (#NM)", "double fault (#DF)",
	"coprocessor segment overrun", "invalid TSS (#TS)",
	"segment not present (#NP)", "stack fault (#SS)",
	"general protection (#GP)", "page fault (#PF)", "reserved 15",
	"x87 error (#MF)", "alignment check (#AC)", "machine check (#MC)",
	"SIMD error (#XM)", "virtualization (#VE)", "control protection (#CP)",
	"reserved 22", "reserved 23", "reserved 24", "reserved 25",
	"reserved 26", "reserved 27", "hypervisor injection (#HV)",
	"VMM communication (#VC)", "security (#SX)", "reserved 31",
};

const char *trap_name(unsigned vector)
{
	if (vector < 32)
		return exception_names[vector];
	if (vector == VEC_TIMER)
		return "LAPIC timer";
	if (vector == VEC_IPI_RESCHED)
		return "rescheduling IPI";
	if (vector == VEC_IPI_CALL)
		return "TLB shootdown IPI";
	if (vector == VEC_IPI_TIMERS)
		return "interval-timer IPI";
	if (vector == VEC_IPI_KICK)
		return "signal kick IPI";
	if (vector == VEC_IPI_WORK)
		return "irq work IPI";
	if (vector == VEC_ERROR)
		return "APIC error";
	if (vector == VEC_PMI)
		return "PMI";
	if (vector == VEC_IRQ_BASE + 4)
		return "IRQ 4 (COM1)";
	if (vector == VEC_SPURIOUS)
		return "spurious";
	return "interrupt";
}

static void set_gate(unsigned v, uint64_t addr, uint8_t ist, uint8_t dpl)
{
	idt[v] = (struct idt_entry){
		.offset_lo = addr & 0xffff,
		.selector = KERNEL_CS,
		.ist = ist,
		.type_attr = (uint8_t)(0x8e | (dpl << 5)), /* present, interrupt gate */
		.offset_mid = (addr >> 16) & 0xffff,
		.offset_hi = (uint32_t)(addr >> 32),
	};
}

void idt_load(void)
{
	struct idt_ptr p = { sizeof(idt) - 1, (uint64_t)idt };
	__asm__ volatile("lidt %0" : : "m"(p));
}

void idt_init(void)
{
	for (unsigned v = 0; v < 256; v++)
		set_gate(v, isr_stubs[v], 0, 0);
	idt[VEC_DOUBLE_FAULT].ist = IST_DOUBLE_FAULT;
	set_gate(VEC_NMI, (uint64_t)nmi_entry, IST_NMI, 0); /* its own entry */
	idt[VEC_MACHINE_CHECK].ist = IST_MACHINE_CHECK;
	idt[VEC_BREAKPOINT].type_attr |= 3 << 5; /* int3 allowed from user */
	idt_load();
	nmi_init();
}

void trap_set_handler(unsigned vector, trap_handler h)
{
	handlers[vector] = h;
}

void trap_set_irq_name(unsigned irq, const char *name)
{
	irq_names[irq] = name;
}

trap_handler trap_get_handler(unsigned vector)
{
	return handlers[vector];
}

uint64_t trap_count(unsigned cpu, unsigned vector)
{
	return cpu < count_rows ? counts[cpu][vector] : 0;
}

void trap_size_counts(unsigned ncpus)
{
	size_t bytes = (size_t)ncpus * sizeof(counts[0]);
	uint64_t phys = ncpus > 1 ? pmm_alloc_pages((bytes + PAGE_SIZE - 1) / PAGE_SIZE) : 0;
	if (!phys)
		return; /* the other CPUs' traps go uncounted */
	uint64_t (*rows)[256] = phys_to_virt(phys);
	memcpy(rows[0], boot_counts[0], sizeof(boot_counts[0]));
	counts = rows;
	count_rows = ncpus;
}

static bool overlaps(uint64_t start, uint64_t end, const void *p, uint64_t size)
{
	return start < (uint64_t)p + size && end > (uint64_t)p;
}

bool trap_tables_overlap(uint64_t start, uint64_t end)
{
	return overlaps(start, end, idt, sizeof(idt)) ||
	       overlaps(start, end, handlers, sizeof(handlers)) ||
	       overlaps(start, end, counts, count_rows * sizeof(counts[0]));
}

void trap_dispatch(struct trap_frame *f)
{
	unsigned v = (unsigned)f->vector;
	bool user = (f->cs & 3) == 3;
	unsigned cpu = this_cpu_id();
	if (cpu < count_rows)
		counts[cpu][v]++;
	if (user) {
		current->frame = f;
		account_user_to_kernel(current);
	} else {
		vpmu_hook_kernel_trap(v);
	}
	if (v - VEC_IRQ_BASE < NR_IRQS && handlers[v])
		trace_irq_handler_entry((int)(v - VEC_IRQ_BASE), irq_names[v - VEC_IRQ_BASE]);
	if (handlers[v])
		handlers[v](f);
	else if (v < 32 || v == VEC_NMI)
		panic_frame(f, "unhandled %s", trap_name(v));
	/* else: an unexpected device interrupt, counted and ignored. */
	if (user)
		return_to_user(f);
}

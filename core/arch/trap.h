/* Interrupt and exception dispatch. See trap.c. */
#ifndef BAREMON_TRAP_H
#define BAREMON_TRAP_H

#include <stdbool.h>
#include <stdint.h>

/* Saved state as core/arch/isr.asm lays it out on the stack. */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;
};

#define VEC_DIVIDE       0
#define VEC_DEBUG        1
#define VEC_NMI          2
#define VEC_BREAKPOINT   3
#define VEC_INVALID_OP   6
#define VEC_DOUBLE_FAULT 8
#define VEC_GP           13
#define VEC_PAGE_FAULT   14
#define VEC_MACHINE_CHECK 18
/* Hardware interrupt vectors. */
#define VEC_IRQ_BASE     32   /* legacy/IOAPIC IRQs 0-23 */
#define VEC_TIMER        0xf0 /* LAPIC timer */
#define VEC_PMI          0xf1 /* LVTPC (delivered as NMI when configured so) */
#define VEC_IPI_RESCHED  0xf2
#define VEC_IPI_CALL     0xf3
#define VEC_IPI_PERF     0xf4 /* perf cross-CPU calls (pmu/events/xcall.c) */
#define VEC_IPI_TIMERS   0xf5 /* re-arm the interval timers (proc/timers.c) */
#define VEC_IPI_KICK     0xf6 /* into the kernel and back: signals (sched.c) */
#define VEC_IPI_WORK     0xf7 /* deferred work of NMI handlers (irq_work.c) */
#define VEC_ERROR        0xfe /* LAPIC error */
#define VEC_SPURIOUS     0xff

typedef void (*trap_handler)(struct trap_frame *f);

/* Install the IDT on this CPU (the table is shared by all CPUs). */
void idt_init(void);
/* Route CPU exceptions: signals for user faults, panic for the kernel's
 * (exceptions.c). */
void exceptions_init(void);
void idt_load(void);
/* Route a vector to a handler. Handlers run with interrupts off. */
void trap_set_handler(unsigned vector, trap_handler h);
trap_handler trap_get_handler(unsigned vector);
/* Device IRQs (I/O APIC inputs) on vectors VEC_IRQ_BASE + irq. */
#define NR_IRQS 24
/* Name IRQ irq's handler as Linux names its irqaction ("ttyS0"): what
 * irq:irq_handler_entry reports. */
void trap_set_irq_name(unsigned irq, const char *name);
/* Per-CPU count of interrupts taken on `vector` (for /proc/interrupts). */
uint64_t trap_count(unsigned cpu, unsigned vector);
/* Room for ncpus CPUs' trap counts (smp_init, before the others start;
 * until then only CPU 0 has a row). */
void trap_size_counts(unsigned ncpus);
const char *trap_name(unsigned vector);
/* Does [start, end) overlap the IDT or the dispatch tables? Every trap
 * reads or writes them before its handler runs, so a data breakpoint
 * there would fire again inside its own #DB (pmu/bp/breakpoint.c). */
bool trap_tables_overlap(uint64_t start, uint64_t end);

void trap_dispatch(struct trap_frame *f);

#endif

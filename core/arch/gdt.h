/* Segments, the TSS and its interrupt stacks. See gdt.c. */
#ifndef BAREMON_GDT_H
#define BAREMON_GDT_H

#include <stdbool.h>
#include <stdint.h>
#include "core/cpumask.h" /* MAX_CPUS */

/* Selector values; user ones fit SYSRET's layout (STAR base 0x10). */
#define KERNEL_CS 0x08
#define KERNEL_DS 0x10
#define USER_DS   0x1b
#define USER_CS   0x23
#define TSS_SEL   0x28

/* IST slots (1-based, as the IDT encodes them). */
#define IST_DOUBLE_FAULT 1
#define IST_NMI          2
#define IST_MACHINE_CHECK 3
#define IST_COUNT        3
#define IST_STACK_SIZE   (16 * 1024)

/* Load GDT and TSS for CPU `cpu` (0 = the boot CPU). */
void gdt_init_cpu(unsigned cpu);
/* Allocate an AP's IST_COUNT interrupt stacks, each with its guard
 * page, on NUMA node `node` when it has room, before it starts (smp.c);
 * false when memory runs out. The boot CPU's are static. */
bool gdt_alloc_ist(unsigned cpu, unsigned node);
/* Ring-0 stack used on entry from user mode (TSS.rsp0). */
void tss_set_rsp0(unsigned cpu, uint64_t rsp0);
/* Bounds of an IST stack, for the panic report and self-tests. */
uint64_t ist_stack_top(unsigned cpu, unsigned ist);
/* Unmap the guard page below every IST stack (after vm_init). */
void gdt_guard_ist_stacks(void);
/* Does [start, end) overlap a GDT, TSS or interrupt stack? The CPU
 * reads them while delivering an exception, so no data breakpoint may
 * watch them (pmu/bp/breakpoint.c). */
bool gdt_overlaps(uint64_t start, uint64_t end);

#endif

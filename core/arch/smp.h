/* Bringing up the other CPUs listed in the MADT. See smp.c. */
#ifndef BAREMON_SMP_H
#define BAREMON_SMP_H

#include <stdint.h>

/* Number the CPUs the boot will start (MADT order, maxcpus=, nosmp),
 * before any per-CPU table exists; returns how many numbers were given
 * (the boot CPU's included), which sizes those tables. After
 * apic_init_cpu on the boot CPU. */
unsigned smp_plan_cpus(void);
/* Start the CPUs smp_plan_cpus numbered; returns how many are online
 * (boot CPU too). Each MADT entry's state (acpi.h) says what became of
 * it. */
unsigned smp_init(void);
unsigned smp_cpu_count(void);
/* The top of an AP's kernel stack (its idle task's); 0 for the boot CPU
 * (its stack is in the kernel image) and CPUs not started. */
uint64_t smp_cpu_stack_top(unsigned cpu);
/* Words for an enum cpu_boot_state, e.g. "did not start". */
const char *smp_state_name(unsigned state);

#endif

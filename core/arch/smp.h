/* Bringing up the other CPUs listed in the MADT. See smp.c. */
#ifndef BAREMON_SMP_H
#define BAREMON_SMP_H

/* Start every enabled CPU; returns how many are online (boot CPU too).
 * Each MADT entry's state (acpi.h) says what became of it. */
unsigned smp_init(void);
unsigned smp_cpu_count(void);
/* Words for an enum cpu_boot_state, e.g. "did not start". */
const char *smp_state_name(unsigned state);

#endif

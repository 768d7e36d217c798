/* Bringing up the other CPUs listed in the MADT. See smp.c. */
#ifndef BAREMON_SMP_H
#define BAREMON_SMP_H

/* Start every enabled CPU; returns how many are online (boot CPU too). */
unsigned smp_init(void);
unsigned smp_cpu_count(void);

#endif

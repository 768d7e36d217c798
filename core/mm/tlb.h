/*
 * TLB shootdown: after the kernel changes or removes a user mapping, every
 * CPU that may cache it must forget it before the page is reused.
 */
#ifndef BAREMON_TLB_H
#define BAREMON_TLB_H

#include <stdint.h>
#include "core/cpumask.h"

/* Flush va on this CPU and on every other CPU in `cpus` (a mask of CPUs
 * using the address space); returns once they all did. Safe with
 * interrupts off: a CPU waiting here serves other CPUs' requests. */
void tlb_flush_others(const struct cpumask *cpus, uint64_t va);
void tlb_init_cpu(void);
/* Flush the kernel (global) page va on every online CPU; same rules. */
void tlb_flush_kernel_page(uint64_t va);
/* Flush now if another CPU asked this one to: for code that spins with
 * interrupts off on a lock a flushing CPU may hold (usermm.c). */
void tlb_serve_pending(void);

#endif

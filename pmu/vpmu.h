/*
 * vpmu: a software model of Intel architectural perfmon version 4 for
 * CPUs with no PMU (QEMU TCG), behind the accessors of msr.h. See
 * vpmu.c for what it models and docs/pmu.md for what it does not.
 *
 * The core tells the model where the CPU is (user, kernel, halted) with
 * the vpmu_hook_* calls below; each is one flag test while no model
 * counter is enabled on the CPU.
 */
#ifndef BAREMON_PMU_VPMU_H
#define BAREMON_PMU_VPMU_H

#include <stdint.h>
#include "arch/gdt.h"
#include "arch/percpu.h"
#include "arch/trap.h"
#include "arch/x86.h"

#define VPMU_GP     4
#define VPMU_FIXED  3
#define VPMU_WIDTH  48

enum vpmu_mode { VPMU_KERNEL, VPMU_USER, VPMU_HALT };

uint64_t vpmu_rdmsr(uint32_t msr);
void vpmu_wrmsr(uint32_t msr, uint64_t value);
struct cpuid_regs vpmu_cpuid(uint32_t leaf, uint32_t subleaf);
/* This CPU now runs in `mode`: counters catch up, then filter by it. */
void vpmu_set_mode(enum vpmu_mode mode);

/* The TSC value at which this CPU's model next raises a PMI if the CPU
 * stays in its mode (a counter with INT wraps); ~0: never. Self-tests. */
uint64_t vpmu_wrap_due(void);

/* Non-zero while some model counter of that CPU is enabled (EN or a
 * fixed-counter enable, and its GLOBAL_CTRL bit). Written by its CPU
 * with interrupts off. */
extern volatile uint8_t vpmu_counting[MAX_CPUS];

static inline void vpmu_hook(enum vpmu_mode mode)
{
	if (vpmu_counting[this_cpu_id()])
		vpmu_set_mode(mode);
}

/* A trap taken in kernel mode (from the idle loop's hlt, say). Not for
 * NMIs and machine checks: they may interrupt the model itself, which
 * only keeps ordinary interrupts out. */
static inline void vpmu_hook_kernel_trap(unsigned vector)
{
	if (vector != VEC_NMI && vector != VEC_MACHINE_CHECK)
		vpmu_hook(VPMU_KERNEL);
}

#endif

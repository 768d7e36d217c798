/*
 * vpmu: a software model of Intel architectural perfmon version 4 for
 * CPUs with no PMU (QEMU TCG), behind the accessors of msr.h. See
 * vpmu.c for what it models and docs/pmu.md for what it does not.
 *
 * The core tells the model where the CPU is (user, kernel, halted)
 * with the vpmu_hook* calls of perf.h (the model's public side); each
 * is one flag test while no model counter is enabled on the CPU.
 */
#ifndef BAREMON_PMU_VPMU_H
#define BAREMON_PMU_VPMU_H

#include <stdint.h>
#include "arch/gdt.h"
#include "arch/percpu.h"
#include "arch/trap.h"
#include "arch/x86.h"
#include "perf.h"

#define VPMU_GP     4
#define VPMU_FIXED  3
#define VPMU_WIDTH  48

uint64_t vpmu_rdmsr(uint32_t msr);
void vpmu_wrmsr(uint32_t msr, uint64_t value);
struct cpuid_regs vpmu_cpuid(uint32_t leaf, uint32_t subleaf);
/* The TSC value at which this CPU's model next raises a PMI if the CPU
 * stays in its mode (a counter with INT wraps); ~0: never. Self-tests. */
uint64_t vpmu_wrap_due(void);

#endif

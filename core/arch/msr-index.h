/*
 * Every model-specific register number the kernel uses, in one place.
 *
 * Names are MSR_ followed by the register's name in the Intel SDM
 * (vol. 4, "Model-Specific Registers"), as Linux's msr-index.h spells
 * most of them; for the long-mode system registers Linux's shorter names
 * (MSR_EFER, MSR_STAR, MSR_FS_BASE, ...) are used. Register bits live
 * with the code that owns the register (EFER_NXE in x86.h, the PMU's in
 * pmu/x86/msr.h). The AP start-up code (trampoline.nasm) cannot include a C
 * header and names EFER by number.
 */
#ifndef BAREMON_MSR_INDEX_H
#define BAREMON_MSR_INDEX_H

/* Long mode: EFER, SYSCALL/SYSRET, segment bases. */
#define MSR_EFER               0xc0000080
#define MSR_STAR               0xc0000081  /* SYSCALL/SYSRET selector bases */
#define MSR_LSTAR              0xc0000082  /* SYSCALL entry point */
#define MSR_SYSCALL_MASK       0xc0000084  /* SDM: IA32_FMASK */
#define MSR_FS_BASE            0xc0000100
#define MSR_GS_BASE            0xc0000101
#define MSR_KERNEL_GS_BASE     0xc0000102  /* swapped with GS_BASE by SWAPGS */

/* Local APIC. In x2APIC mode the register at xAPIC offset r is the MSR
 * MSR_X2APIC_FIRST + r / 16 (SDM vol. 3A, "x2APIC Register Address Space"). */
#define MSR_IA32_APICBASE      0x01b
#define MSR_IA32_TSC_DEADLINE  0x6e0
#define MSR_X2APIC_FIRST       0x800
#define MSR_X2APIC_REG(r)      (MSR_X2APIC_FIRST + ((r) >> 4))

/* Frequency. */
#define MSR_PLATFORM_INFO      0x0ce
#define MSR_IA32_MPERF         0x0e7
#define MSR_IA32_APERF         0x0e8

/* Architectural performance monitoring (SDM vol. 3B, chapter "Performance
 * Monitoring"); counter x is the first register + x. */
#define MSR_IA32_PMC0                   0x0c1  /* legacy: writes sign-extend bit 31 */
#define MSR_IA32_PERFEVTSEL0            0x186
#define MSR_IA32_FIXED_CTR0             0x309  /* instructions retired */
#define MSR_IA32_FIXED_CTR1             0x30a  /* unhalted core cycles */
#define MSR_IA32_FIXED_CTR2             0x30b  /* unhalted reference cycles */
#define MSR_IA32_PERF_CAPABILITIES      0x345
#define MSR_IA32_FIXED_CTR_CTRL         0x38d
#define MSR_IA32_PERF_GLOBAL_STATUS     0x38e
#define MSR_IA32_PERF_GLOBAL_CTRL       0x38f
#define MSR_IA32_PERF_GLOBAL_OVF_CTRL   0x390  /* v4: GLOBAL_STATUS_RESET */
#define MSR_IA32_PERF_GLOBAL_STATUS_SET 0x391  /* v4 */
#define MSR_IA32_A_PMC0                 0x4c1  /* full-width writes (FW_WRITE) */

/* AMD core performance counters (AMD APM vol. 2, "Performance
 * Monitoring Counters"). Legacy (K7): PERF_CTL x at EVNTSEL0 + x, PERF_CTR
 * x at PERFCTR0 + x, four of them. PerfCtrExtCore: six, CTL x at
 * F15H_PERF_CTL + 2x, CTR x at F15H_PERF_CTL + 2x + 1; the first four
 * are the legacy ones under new numbers. PerfMonV2: the global MSRs. */
#define MSR_K7_EVNTSEL0                 0xc0010000
#define MSR_K7_PERFCTR0                 0xc0010004
#define MSR_F15H_PERF_CTL               0xc0010200
#define MSR_F15H_PERF_CTR               0xc0010201
#define MSR_AMD64_PERF_CNTR_GLOBAL_STATUS     0xc0000300
#define MSR_AMD64_PERF_CNTR_GLOBAL_CTL        0xc0000301
#define MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR 0xc0000302
#define MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET 0xc0000303

/* Architectural LBR (CPUID 7.EDX[19], leaf 1CH). */
#define MSR_ARCH_LBR_CTL       0x000014ce
#define MSR_ARCH_LBR_DEPTH     0x000014cf
#define MSR_ARCH_LBR_INFO_0    0x00001200
#define MSR_ARCH_LBR_FROM_0    0x00001500
#define MSR_ARCH_LBR_TO_0      0x00001600

#endif

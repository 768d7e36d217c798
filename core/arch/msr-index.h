/*
 * Every model-specific register number the kernel uses, in one place.
 *
 * Names are MSR_ followed by the register's name in the Intel SDM
 * (vol. 4, "Model-Specific Registers"), as Linux's msr-index.h spells
 * most of them; for the long-mode system registers Linux's shorter names
 * (MSR_EFER, MSR_STAR, MSR_FS_BASE, ...) are used. The architectural
 * bits of the PMU and LBR registers are here too, below the numbers
 * (the drivers and the software model that stands in for them share
 * them); other register bits live with the code that owns the register
 * (EFER_NXE in x86.h). The AP start-up code (trampoline.nasm) cannot include a C
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
#define MSR_TSC_AUX            0xc0000103  /* what RDTSCP/RDPID return in ECX */

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

/* ---- PMU register bits (Intel SDM vol. 3B, "Performance Monitoring") ---- */

/* IA32_PERFEVTSELx */
#define EVTSEL_EVENT    0x000000ffULL
#define EVTSEL_UMASK    0x0000ff00ULL
#define EVTSEL_USR      (1ULL << 16)
#define EVTSEL_OS       (1ULL << 17)
#define EVTSEL_EDGE     (1ULL << 18)
#define EVTSEL_PC       (1ULL << 19)
#define EVTSEL_INT      (1ULL << 20)
#define EVTSEL_ANY      (1ULL << 21)  /* v3+ */
#define EVTSEL_EN       (1ULL << 22)
#define EVTSEL_INV      (1ULL << 23)
#define EVTSEL_CMASK    0xff000000ULL
/* What selects an event; Linux keeps only these bits of a raw config. */
#define EVTSEL_RAW_MASK (EVTSEL_EVENT | EVTSEL_UMASK | EVTSEL_EDGE | \
			 EVTSEL_INV | EVTSEL_CMASK)

/* IA32_FIXED_CTR_CTRL: four bits per fixed counter. */
#define FIXED_CTRL_OS   0x1ULL
#define FIXED_CTRL_USR  0x2ULL
#define FIXED_CTRL_ANY  0x4ULL  /* v3+ */
#define FIXED_CTRL_PMI  0x8ULL
#define FIXED_CTRL_SHIFT(j) (4 * (j))

/* GLOBAL_CTRL / GLOBAL_STATUS: GP counter i is bit i, fixed j bit 32+j. */
#define PMC_IDX_FIXED   32

/* IA32_PERF_CAPABILITIES */
#define PERF_CAP_FW_WRITE (1ULL << 13)

/* ---- LBR registers and bits (Intel SDM vol. 3B, "Last Branch
 * Records"; Linux's arch/x86/events/amd/lbr.c for AMD's) ---- */

/* IA32_LBR_CTL */
#define ARCH_LBR_CTL_LBREN      (1ULL << 0)
#define ARCH_LBR_CTL_OS         (1ULL << 1)
#define ARCH_LBR_CTL_USR        (1ULL << 2)
#define ARCH_LBR_CTL_CALL_STACK (1ULL << 3)
#define ARCH_LBR_CTL_JCC        (1ULL << 16)
#define ARCH_LBR_CTL_REL_JMP    (1ULL << 17)
#define ARCH_LBR_CTL_IND_JMP    (1ULL << 18)
#define ARCH_LBR_CTL_REL_CALL   (1ULL << 19)
#define ARCH_LBR_CTL_IND_CALL   (1ULL << 20)
#define ARCH_LBR_CTL_RET        (1ULL << 21)
#define ARCH_LBR_CTL_OTHER      (1ULL << 22)
#define ARCH_LBR_CTL_BRANCHES   (0x7fULL << 16)

/* IA32_LBR_x_INFO: the branch type (bits 59:56). */
#define ARCH_LBR_INFO_TYPE_SHIFT 56
enum arch_lbr_type {
	ARCH_LBR_TYPE_JCC, ARCH_LBR_TYPE_IND_JMP, ARCH_LBR_TYPE_REL_JMP,
	ARCH_LBR_TYPE_IND_CALL, ARCH_LBR_TYPE_REL_CALL, ARCH_LBR_TYPE_RET,
};

/* Legacy LBR (Intel SDM vol. 4, Skylake's MSRs; Linux's names). */
#define MSR_IA32_DEBUGCTLMSR     0x000001d9
#define DEBUGCTL_LBR             (1ULL << 0)
#define DEBUGCTL_FREEZE_LBRS_ON_PMI (1ULL << 11)
#define MSR_LBR_SELECT           0x000001c8
#define MSR_LBR_TOS              0x000001c9
#define MSR_LBR_NHM_FROM         0x00000680
#define MSR_LBR_NHM_TO           0x000006c0
#define MSR_LBR_INFO_0           0x00000dc0
#define LBR_INFO_MISPRED         (1ULL << 63)
#define LBR_INFO_CYCLES          0xffffULL
#define PERF_CAP_LBR_FORMAT      0x3fULL
#define LBR_FORMAT_INFO          0x05
#define LEGACY_LBR_DEPTH         32   /* Skylake's */

/* LBR_SELECT, legacy and AMD alike: bits 0-8 suppress what they name
 * (CPL_EQ_0, CPL_NEQ_0, JCC, NEAR_REL_CALL, NEAR_IND_CALL, NEAR_RET,
 * NEAR_IND_JMP, NEAR_REL_JMP, FAR_BRANCH); bit 9 (Intel, Haswell on)
 * turns call-stack mode on. */
#define LBR_SEL_KERNEL           (1ULL << 0)
#define LBR_SEL_USER             (1ULL << 1)
#define LBR_SEL_JCC              (1ULL << 2)
#define LBR_SEL_REL_CALL         (1ULL << 3)
#define LBR_SEL_IND_CALL         (1ULL << 4)
#define LBR_SEL_RETURN           (1ULL << 5)
#define LBR_SEL_IND_JMP          (1ULL << 6)
#define LBR_SEL_REL_JMP          (1ULL << 7)
#define LBR_SEL_FAR              (1ULL << 8)
#define LBR_SEL_CALL_STACK       (1ULL << 9)
#define LBR_SEL_SUPPRESS_MASK    0x1ffULL
#define LBR_SEL_ANY (LBR_SEL_JCC | LBR_SEL_REL_CALL | LBR_SEL_IND_CALL | LBR_SEL_RETURN | \
		     LBR_SEL_REL_JMP | LBR_SEL_IND_JMP | LBR_SEL_FAR)

/* AMD LbrExtV2 (Linux's arch/x86/events/amd/lbr.c names). */
#define CPUID_AMD_EXT_PERFMON    0x80000022
#define CPUID_AMD_LBR_V2         (1u << 1)              /* EAX */
#define CPUID_AMD_LBR_V2_DEPTH(ebx) (((ebx) >> 4) & 0x3f)  /* EBX[9:4] */
#define MSR_AMD64_LBR_SELECT     0xc000010e
#define MSR_AMD_DBG_EXTN_CFG     0xc000010f
#define DBG_EXTN_CFG_LBRV2EN     (1ULL << 6)
#define MSR_AMD_SAMP_BR_FROM     0xc0010300   /* entry i: FROM +2i, TO +2i+1 */
#define AMD_LBR_FROM_MISPRED     (1ULL << 63)
#define AMD_LBR_TO_VALID         (1ULL << 63)
#define AMD_LBR_TO_SPEC          (1ULL << 62)
#define AMD_LBR_IP_BITS          58
#define AMD_LBR_DEPTH            16   /* Zen 4's */

#define CPUID_ARCH_LBR_LEAF   0x1c
#define CPUID_7_EDX_ARCH_LBR  (1u << 19)
#define ARCH_LBR_MAX_DEPTH    32

#endif

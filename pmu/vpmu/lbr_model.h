/*
 * The vpmu's branch records: one model of the last branches, fed by the
 * single-step path with decode.c's branch kinds (so every record is a
 * branch the user code really took), shown through the register face
 * the mode's CPU has:
 *
 *   intel-v5, hybrid  architectural LBR (Intel SDM vol. 3B, "Last
 *                     Branch Records"): IA32_LBR_CTL, IA32_LBR_DEPTH,
 *                     IA32_LBR_x_FROM_IP/TO_IP/INFO, CPUID 7.EDX[19]
 *                     and leaf 1CH, as Alder Lake and later;
 *   intel             legacy LBR as Skylake has it: IA32_DEBUGCTL.LBR,
 *                     MSR_LBR_SELECT, MSR_LASTBRANCH_TOS, 32
 *                     FROM_/TO_ pairs at 680H/6C0H and LBR_INFO at
 *                     DC0H, format 5 in IA32_PERF_CAPABILITIES[5:0];
 *   amd               LbrExtV2 as Zen 4 has it: CPUID 8000_0022H.EAX[1]
 *                     and EBX[9:4] (16 entries), DBG_EXTN_CFG.LBRV2EN,
 *                     LBR_SELECT C000_010EH, FROM/TO pairs at
 *                     C001_0300H, entry 0 the newest;
 *   intel-v2          none (a perfmon v2 part is a Core 2, whose
 *                     4-deep LBR without LBR_SELECT is not modelled).
 */
#ifndef BAREMON_PMU_VPMU_LBR_H
#define BAREMON_PMU_VPMU_LBR_H

#include <stdbool.h>
#include <stdint.h>
#include "core/arch/x86.h"

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

/* The user instruction at `from` was a taken-or-not branch of VPMU_BR_*
 * kind `kind` (0: none) and the next one is at `to`: record it if the
 * LBRs are on for user mode and `kind` passes the filter. */
void vpmu_lbr_user_branch(uint64_t from, uint64_t to, unsigned kind);
/* Are this CPU's LBRs recording user branches (the user code must be
 * stepped)? */
bool vpmu_lbr_wants_steps(void);
/* The LBR MSRs: true when msr is one (*v read, or v written). */
bool vpmu_lbr_rdmsr(uint32_t msr, uint64_t *v);
bool vpmu_lbr_wrmsr(uint32_t msr, uint64_t v);
/* CPUID 7 and 1CH (arch LBR), 8000_0022H (LbrExtV2) as the mode's CPU
 * answers them. */
void vpmu_lbr_cpuid(uint32_t leaf, uint32_t sub, struct cpuid_regs *r);
/* IA32_PERF_CAPABILITIES[5:0], the LBR format (legacy face: 5). */
uint64_t vpmu_lbr_format(void);
/* The mode's face: "arch", "legacy", "amd" or "none". */
const char *vpmu_lbr_face_name(void);

#endif

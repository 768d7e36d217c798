/*
 * The vpmu's architectural LBR (Intel SDM vol. 3B, "Last Branch
 * Records", architectural LBR): IA32_LBR_CTL, IA32_LBR_DEPTH and the
 * IA32_LBR_x_FROM_IP/TO_IP/INFO records, CPUID 7.EDX[19] and leaf 1CH.
 * Fed by the single-step path with decode.c's branch kinds, so every
 * record is a branch the user code really took. Intel modes only.
 */
#ifndef BAREMON_PMU_VPMU_LBR_H
#define BAREMON_PMU_VPMU_LBR_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86.h"

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
/* CPUID 7 and 1CH as a CPU with arch LBR answers them. */
void vpmu_lbr_cpuid(uint32_t leaf, uint32_t sub, struct cpuid_regs *r);

#endif

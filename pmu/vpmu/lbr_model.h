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
#include "core/arch/msr-index.h"  /* the LBR registers and their bits */
#include "core/arch/x86.h"

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

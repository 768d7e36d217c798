/*
 * Self-tests of the vpmu's branch records (lbr_model.c) through each register
 * face, and of the branch kinds decode.c gives them. Architectural LBR
 * (intel-v5, hybrid): the CPUID bits, records newest first with the
 * right INFO type, the depth, CPL and branch-type filters, call-stack
 * mode. Legacy LBR (intel): no arch LBR bit, LBR format 5, records by
 * TOS, LBR_SELECT's suppress bits, call-stack mode. LbrExtV2 (amd):
 * CPUID 8000_0022H, entry 0 the newest with TO's VALID bit, the
 * filter. The records are fed as the step path feeds them
 * (vpmu_lbr_user_branch); the real stepping path is tests/perf/lbr.c's.
 */
#include <string.h>
#include "core/arch/msr-index.h"
#include "core/kernel.h"
#include "pmu/x86/msr.h"
#include "core/selftest.h"
#include "pmu/vpmu/lbr_model.h"
#include "vpmu.h"

#define ALL_USER (ARCH_LBR_CTL_LBREN | ARCH_LBR_CTL_USR | ARCH_LBR_CTL_BRANCHES)

/* Is the model in use with this LBR face? */
static bool face_is(struct selftest_ctx *t, const char *face)
{
	if (!pmu_model_in_use() || strcmp(vpmu_lbr_face_name(), face) != 0) {
		ST_SKIP(t, "no vpmu with %s LBR", face);
		return false;
	}
	return true;
}

static bool lbr_model(struct selftest_ctx *t)
{
	return face_is(t, "arch");
}

static unsigned info_type(unsigned x)
{
	return (unsigned)(pmu_rdmsr(MSR_ARCH_LBR_INFO_0 + x) >> ARCH_LBR_INFO_TYPE_SHIFT) & 0xf;
}

/* Clear the records, then set LBR_CTL. */
static void lbr_start(unsigned depth, uint64_t ctl)
{
	pmu_wrmsr(MSR_ARCH_LBR_CTL, 0);
	pmu_wrmsr(MSR_ARCH_LBR_DEPTH, depth);
	pmu_wrmsr(MSR_ARCH_LBR_CTL, ctl);
}

static void lbr_stop(void)
{
	pmu_wrmsr(MSR_ARCH_LBR_CTL, 0);
	pmu_wrmsr(MSR_ARCH_LBR_DEPTH, ARCH_LBR_MAX_DEPTH);
}

SELFTEST(vpmu_lbr_cpuid)
{
	if (!lbr_model(t))
		return;
	ST_CHECK(t, pmu_cpuid(7, 0).edx & CPUID_7_EDX_ARCH_LBR);
	struct cpuid_regs r = pmu_cpuid(CPUID_ARCH_LBR_LEAF, 0);
	ST_CHECK(t, r.eax & (1u << 3)); /* depth 32 */
	ST_CHECK(t, (r.ebx & 3) == 3);  /* CPL and branch filtering */
	ST_CHECK(t, r.ecx & (1u << 2)); /* INFO's branch type */
}

/* A call, a not-taken and a taken conditional, an indirect jump and a
 * return: four records, newest in entry 0, each of its type. */
SELFTEST(vpmu_lbr_records)
{
	if (!lbr_model(t))
		return;
	uint64_t f = irq_save();
	lbr_start(8, ALL_USER);
	vpmu_lbr_user_branch(0x1000, 0x2000, VPMU_BR_CALL);
	vpmu_lbr_user_branch(0x2004, 0x2006, VPMU_BR_COND_NOT_TAKEN);
	vpmu_lbr_user_branch(0x2006, 0x2100, VPMU_BR_COND_TAKEN);
	vpmu_lbr_user_branch(0x2104, 0x2200, VPMU_BR_JMP | VPMU_BR_INDIRECT);
	vpmu_lbr_user_branch(0x2204, 0x1005, VPMU_BR_RET);
	vpmu_lbr_user_branch(0x1005, 0x1006, 0); /* no branch */
	ST_CHECK(t, pmu_rdmsr(MSR_ARCH_LBR_FROM_0) == 0x2204 && pmu_rdmsr(MSR_ARCH_LBR_TO_0) == 0x1005);
	ST_CHECK(t, info_type(0) == ARCH_LBR_TYPE_RET);
	ST_CHECK(t, pmu_rdmsr(MSR_ARCH_LBR_FROM_0 + 1) == 0x2104 && info_type(1) == ARCH_LBR_TYPE_IND_JMP);
	ST_CHECK(t, pmu_rdmsr(MSR_ARCH_LBR_FROM_0 + 2) == 0x2006 && info_type(2) == ARCH_LBR_TYPE_JCC);
	ST_CHECK(t, pmu_rdmsr(MSR_ARCH_LBR_TO_0 + 3) == 0x2000 && info_type(3) == ARCH_LBR_TYPE_REL_CALL);
	ST_CHECK(t, pmu_rdmsr(MSR_ARCH_LBR_FROM_0 + 4) == 0);
	lbr_stop();
	irq_restore(f);
}

/* Depth 8 keeps the newest 8 of 10; a filter keeps only its kinds;
 * without USR nothing is recorded. */
SELFTEST(vpmu_lbr_filters)
{
	if (!lbr_model(t))
		return;
	uint64_t f = irq_save();
	lbr_start(8, ALL_USER);
	for (uint64_t i = 1; i <= 10; i++)
		vpmu_lbr_user_branch(i * 16, i * 16 + 1, VPMU_BR_JMP);
	ST_CHECK(t, pmu_rdmsr(MSR_ARCH_LBR_DEPTH) == 8);
	ST_CHECK(t, pmu_rdmsr(MSR_ARCH_LBR_FROM_0) == 160 && pmu_rdmsr(MSR_ARCH_LBR_FROM_0 + 7) == 48);
	lbr_start(16, ARCH_LBR_CTL_LBREN | ARCH_LBR_CTL_USR | ARCH_LBR_CTL_RET | ARCH_LBR_CTL_IND_CALL);
	vpmu_lbr_user_branch(0x10, 0x20, VPMU_BR_CALL);
	vpmu_lbr_user_branch(0x30, 0x40, VPMU_BR_CALL | VPMU_BR_INDIRECT);
	vpmu_lbr_user_branch(0x50, 0x60, VPMU_BR_COND_TAKEN);
	vpmu_lbr_user_branch(0x70, 0x80, VPMU_BR_RET);
	ST_CHECK(t, pmu_rdmsr(MSR_ARCH_LBR_FROM_0) == 0x70 && pmu_rdmsr(MSR_ARCH_LBR_FROM_0 + 1) == 0x30);
	ST_CHECK(t, info_type(1) == ARCH_LBR_TYPE_IND_CALL && pmu_rdmsr(MSR_ARCH_LBR_FROM_0 + 2) == 0);
	lbr_start(8, ARCH_LBR_CTL_LBREN | ARCH_LBR_CTL_OS | ARCH_LBR_CTL_BRANCHES);
	vpmu_lbr_user_branch(0x10, 0x20, VPMU_BR_CALL);
	ST_CHECK(t, pmu_rdmsr(MSR_ARCH_LBR_FROM_0) == 0);
	lbr_stop();
	irq_restore(f);
}

/* decode.c's kinds, which the records' types come from. */
SELFTEST(vpmu_decode_kinds)
{
	static const uint8_t call_rel[] = { 0xe8, 0, 0, 0, 0 }, call_rax[] = { 0xff, 0xd0 };
	static const uint8_t jmp_rax[] = { 0xff, 0xe0 }, ret[] = { 0xc3 };
	static const uint8_t je8[] = { 0x74, 0x10 }, jne32[] = { 0x0f, 0x85, 0, 1, 0, 0 };
	static const uint8_t rex_call[] = { 0x41, 0xff, 0xd3 }, nop[] = { 0x90 };
	ST_CHECK(t, vpmu_decode_branch(call_rel, 5, 0x100, 0x200) == VPMU_BR_CALL);
	ST_CHECK(t, vpmu_decode_branch(call_rax, 2, 0x100, 0x200) == (VPMU_BR_CALL | VPMU_BR_INDIRECT));
	ST_CHECK(t, vpmu_decode_branch(rex_call, 3, 0x100, 0x200) == (VPMU_BR_CALL | VPMU_BR_INDIRECT));
	ST_CHECK(t, vpmu_decode_branch(jmp_rax, 2, 0x100, 0x200) == (VPMU_BR_JMP | VPMU_BR_INDIRECT));
	ST_CHECK(t, vpmu_decode_branch(ret, 1, 0x100, 0x200) == VPMU_BR_RET);
	ST_CHECK(t, vpmu_decode_branch(je8, 2, 0x100, 0x102) == VPMU_BR_COND_NOT_TAKEN);
	ST_CHECK(t, vpmu_decode_branch(je8, 2, 0x100, 0x112) == VPMU_BR_COND_TAKEN);
	ST_CHECK(t, vpmu_decode_branch(jne32, 6, 0x100, 0x206) == VPMU_BR_COND_TAKEN);
	ST_CHECK(t, vpmu_decode_branch(nop, 1, 0x100, 0x101) == 0);
}

/* Call-stack mode: calls push, returns pop, jumps are not recorded;
 * what is left is the calls still open, innermost first. */
SELFTEST(vpmu_lbr_call_stack)
{
	if (!lbr_model(t))
		return;
	uint64_t f = irq_save();
	lbr_start(8, ALL_USER | ARCH_LBR_CTL_CALL_STACK);
	vpmu_lbr_user_branch(0x100, 0x1000, VPMU_BR_CALL);            /* main -> a */
	vpmu_lbr_user_branch(0x1010, 0x2000, VPMU_BR_CALL | VPMU_BR_INDIRECT); /* a -> b */
	vpmu_lbr_user_branch(0x2004, 0x2010, VPMU_BR_JMP);
	vpmu_lbr_user_branch(0x2010, 0x3000, VPMU_BR_CALL);           /* b -> c */
	vpmu_lbr_user_branch(0x3004, 0x2015, VPMU_BR_RET);            /* c returns */
	ST_CHECK(t, pmu_rdmsr(MSR_ARCH_LBR_FROM_0) == 0x1010 && pmu_rdmsr(MSR_ARCH_LBR_TO_0) == 0x2000);
	ST_CHECK(t, pmu_rdmsr(MSR_ARCH_LBR_FROM_0 + 1) == 0x100);
	ST_CHECK(t, pmu_rdmsr(MSR_ARCH_LBR_FROM_0 + 2) == 0);
	lbr_stop();
	irq_restore(f);
}

/* ---- legacy LBR (vpmu=intel) ---- */

#define LEGACY_ALL_USER (LBR_SEL_KERNEL) /* suppress ring 0 only */

static void legacy_start(uint64_t select)
{
	pmu_wrmsr(MSR_IA32_DEBUGCTLMSR, 0);
	for (unsigned i = 0; i < LEGACY_LBR_DEPTH; i++) {
		pmu_wrmsr(MSR_LBR_NHM_FROM + i, 0);
		pmu_wrmsr(MSR_LBR_NHM_TO + i, 0);
	}
	pmu_wrmsr(MSR_LBR_SELECT, select);
	pmu_wrmsr(MSR_IA32_DEBUGCTLMSR, DEBUGCTL_LBR | DEBUGCTL_FREEZE_LBRS_ON_PMI);
}

/* The FROM of the record `back` records before the newest. */
static uint64_t legacy_from(unsigned back)
{
	unsigned tos = (unsigned)pmu_rdmsr(MSR_LBR_TOS);
	return pmu_rdmsr(MSR_LBR_NHM_FROM + (tos + LEGACY_LBR_DEPTH - back) % LEGACY_LBR_DEPTH);
}

SELFTEST(vpmu_lbr_legacy)
{
	if (!face_is(t, "legacy"))
		return;
	ST_CHECK(t, !(pmu_cpuid(7, 0).edx & CPUID_7_EDX_ARCH_LBR));
	ST_CHECK(t, (pmu_rdmsr(MSR_IA32_PERF_CAPABILITIES) & PERF_CAP_LBR_FORMAT) == LBR_FORMAT_INFO);
	uint64_t f = irq_save();
	legacy_start(LEGACY_ALL_USER);
	ST_CHECK(t, vpmu_lbr_wants_steps());
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_DEBUGCTLMSR) == (DEBUGCTL_LBR | DEBUGCTL_FREEZE_LBRS_ON_PMI));
	uint64_t tos = pmu_rdmsr(MSR_LBR_TOS); /* read-only: moves on from where it was */
	for (unsigned i = 1; i <= 40; i++) /* wraps the 32 slots */
		vpmu_lbr_user_branch(i * 16, i * 16 + 1, VPMU_BR_JMP);
	ST_CHECK(t, pmu_rdmsr(MSR_LBR_TOS) == (tos + 40) % LEGACY_LBR_DEPTH);
	pmu_wrmsr(MSR_LBR_TOS, 3);
	ST_CHECK(t, pmu_rdmsr(MSR_LBR_TOS) == (tos + 40) % LEGACY_LBR_DEPTH);
	ST_CHECK(t, legacy_from(0) == 640 && legacy_from(31) == 144 && legacy_from(32) == 640);
	ST_CHECK(t, pmu_rdmsr(MSR_LBR_INFO_0) == 0); /* no misprediction, no cycles */
	/* suppress everything but returns and indirect calls */
	legacy_start(LBR_SEL_SUPPRESS_MASK & ~(LBR_SEL_USER | LBR_SEL_RETURN | LBR_SEL_IND_CALL));
	vpmu_lbr_user_branch(0x10, 0x20, VPMU_BR_CALL);
	vpmu_lbr_user_branch(0x30, 0x40, VPMU_BR_CALL | VPMU_BR_INDIRECT);
	vpmu_lbr_user_branch(0x50, 0x60, VPMU_BR_COND_TAKEN);
	vpmu_lbr_user_branch(0x70, 0x80, VPMU_BR_RET);
	ST_CHECK(t, legacy_from(0) == 0x70 && legacy_from(1) == 0x30 && legacy_from(2) == 0);
	/* user branches suppressed: nothing recorded, nothing stepped */
	legacy_start(LBR_SEL_USER);
	ST_CHECK(t, !vpmu_lbr_wants_steps());
	vpmu_lbr_user_branch(0x10, 0x20, VPMU_BR_CALL);
	ST_CHECK(t, legacy_from(0) == 0);
	/* call-stack mode (bit 9 is not a suppress bit) */
	legacy_start(LEGACY_ALL_USER | LBR_SEL_CALL_STACK);
	vpmu_lbr_user_branch(0x100, 0x1000, VPMU_BR_CALL);
	vpmu_lbr_user_branch(0x1010, 0x2000, VPMU_BR_CALL);
	vpmu_lbr_user_branch(0x2004, 0x2010, VPMU_BR_JMP);
	vpmu_lbr_user_branch(0x2010, 0x3000, VPMU_BR_CALL);
	vpmu_lbr_user_branch(0x3004, 0x2015, VPMU_BR_RET);
	ST_CHECK(t, legacy_from(0) == 0x1010 && legacy_from(1) == 0x100 && legacy_from(2) == 0);
	pmu_wrmsr(MSR_IA32_DEBUGCTLMSR, 0);
	ST_CHECK(t, !vpmu_lbr_wants_steps());
	irq_restore(f);
}

/* ---- LbrExtV2 (vpmu=amd) ---- */

static uint64_t amd_from(unsigned x) { return pmu_rdmsr(MSR_AMD_SAMP_BR_FROM + 2 * x); }
static uint64_t amd_to(unsigned x) { return pmu_rdmsr(MSR_AMD_SAMP_BR_FROM + 2 * x + 1); }

static void amd_start(uint64_t select)
{
	pmu_wrmsr(MSR_AMD_DBG_EXTN_CFG, 0);
	for (unsigned i = 0; i < AMD_LBR_DEPTH; i++) {
		pmu_wrmsr(MSR_AMD_SAMP_BR_FROM + 2 * i, 0);
		pmu_wrmsr(MSR_AMD_SAMP_BR_FROM + 2 * i + 1, 0);
	}
	pmu_wrmsr(MSR_AMD64_LBR_SELECT, select);
	pmu_wrmsr(MSR_AMD_DBG_EXTN_CFG, DBG_EXTN_CFG_LBRV2EN);
}

SELFTEST(vpmu_lbr_amd)
{
	if (!face_is(t, "amd"))
		return;
	struct cpuid_regs r = pmu_cpuid(CPUID_AMD_EXT_PERFMON, 0);
	ST_CHECK(t, (r.eax & CPUID_AMD_LBR_V2) && CPUID_AMD_LBR_V2_DEPTH(r.ebx) == AMD_LBR_DEPTH);
	ST_CHECK(t, (r.eax & 1) && (r.ebx & 0xf) == 6); /* PerfMonV2 and its counters kept */
	uint64_t f = irq_save();
	amd_start(LBR_SEL_KERNEL);
	ST_CHECK(t, vpmu_lbr_wants_steps());
	ST_CHECK(t, !(amd_to(0) & AMD_LBR_TO_VALID));
	for (unsigned i = 1; i <= 20; i++) /* wraps the 16 entries */
		vpmu_lbr_user_branch(0x7fff0000 + i * 16, 0x7fff0001 + i * 16, VPMU_BR_JMP);
	ST_CHECK(t, amd_from(0) == 0x7fff0000 + 20 * 16 && amd_from(15) == 0x7fff0000 + 5 * 16);
	ST_CHECK(t, amd_to(0) == (AMD_LBR_TO_VALID | (0x7fff0001 + 20 * 16)));
	ST_CHECK(t, !(amd_from(0) & AMD_LBR_FROM_MISPRED));
	amd_start(LBR_SEL_SUPPRESS_MASK & ~(LBR_SEL_USER | LBR_SEL_JCC));
	vpmu_lbr_user_branch(0x10, 0x20, VPMU_BR_CALL);
	vpmu_lbr_user_branch(0x50, 0x60, VPMU_BR_COND_TAKEN);
	vpmu_lbr_user_branch(0x70, 0x80, VPMU_BR_RET);
	ST_CHECK(t, amd_from(0) == 0x50 && (amd_to(0) & AMD_LBR_TO_VALID));
	ST_CHECK(t, !(amd_to(1) & AMD_LBR_TO_VALID));
	pmu_wrmsr(MSR_AMD_DBG_EXTN_CFG, 0);
	ST_CHECK(t, !vpmu_lbr_wants_steps());
	vpmu_lbr_user_branch(0x90, 0xa0, VPMU_BR_CALL);
	ST_CHECK(t, amd_from(0) == 0x50);
	irq_restore(f);
}

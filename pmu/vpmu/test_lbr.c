/*
 * Self-tests of the vpmu's architectural LBR (lbr.c) and of the branch
 * kinds decode.c gives it: the CPUID bits, records newest first with
 * the right INFO type, the depth, CPL and branch-type filters. The
 * records are fed as the step path feeds them (vpmu_lbr_user_branch);
 * the real stepping path is tests/perf/lbr.c's. Intel modes only.
 */
#include "arch/msr-index.h"
#include "kernel.h"
#include "pmu/msr.h"
#include "selftest.h"
#include "lbr.h"
#include "vpmu.h"

#define ALL_USER (ARCH_LBR_CTL_LBREN | ARCH_LBR_CTL_USR | ARCH_LBR_CTL_BRANCHES)

static bool lbr_model(struct selftest_ctx *t)
{
	if (!pmu_model_in_use() || vpmu_is_amd()) {
		kprintf("selftest: %s: skipped (no Intel vpmu)\n", t->name);
		return false;
	}
	return true;
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

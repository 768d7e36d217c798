/*
 * Legacy LBR, as Linux's arch/x86/events/intel/lbr.c drives it on the
 * parts from Nehalem to Ice/Tiger Lake that have no architectural LBR:
 *
 *   - which parts and how deep come from the CPU model (Linux's
 *     tables: 16 on Nehalem/Westmere, Sandy/Ivy Bridge and Haswell/
 *     Broadwell, 32 from Skylake); the vpmu's legacy face is Skylake's;
 *     the record format from IA32_PERF_CAPABILITIES[5:0];
 *   - branch_sample_type maps through the part's LBR_SELECT map
 *     (Linux's nhm, snb and hsw maps; call-stack mode from Haswell).
 *     LBR_SELECT's bits 0-8 suppress what they name, so the value
 *     written is the wanted kinds flipped; bit 9 (call stack) is not;
 *   - on: LBR_SELECT, then IA32_DEBUGCTL.LBR with FREEZE_LBRS_ON_PMI;
 *     the records are cleared first (FROM/TO/INFO written 0);
 *   - read: from MSR_LASTBRANCH_TOS backwards (slot (tos - i) mod
 *     depth), newest first, up to the first cleared slot; with format 5
 *     (LBR_INFO) misprediction and cycles from INFO, with formats 3 and
 *     4 the misprediction from FROM's bit 63. Records carry no type:
 *     lbr.c decodes them (branch_type.c), as Linux does;
 *   - a task's call stack: saved from the TOS backwards up to the
 *     first cleared slot, FROM/TO (and INFO with format 5) as they are;
 *     restored around the TOS the CPU has, every other slot cleared
 *     (Linux writes its saved TOS back instead; the records are the
 *     same either way, and this needs no writable TOS).
 *
 * Core 2, Atom and Silvermont (4 or 8 records at 40H/60H, no or other
 * LBR_SELECT) are not driven: no branch stacks there.
 *
 * State written once at boot, then only read.
 */
#include <linux/errno.h>
#include <linux/perf_event.h>
#include "core/arch/cpu.h"
#include "core/arch/msr-index.h"
#include "pmu/x86/msr.h"
#include "pmu/vpmu/lbr_model.h"
#include "intel.h"
#include "pmu/x86/intel/lbr_faces.h"

#define BR(x) PERF_SAMPLE_BRANCH_##x
#define NOT_SUPP (-1LL)
#define FORMAT_EIP_FLAGS 3
#define FORMAT_EIP_FLAGS2 4
#define SEL(x) ((int64_t)LBR_SEL_##x)

enum generation { NONE, NHM, SNB, HSW, SKL };

static const struct { uint8_t model; uint8_t gen; } models[] = {
	{ 0x1a, NHM }, { 0x1e, NHM }, { 0x2e, NHM }, { 0x25, NHM }, { 0x2c, NHM }, { 0x2f, NHM },
	{ 0x2a, SNB }, { 0x2d, SNB }, { 0x3a, SNB }, { 0x3e, SNB },
	{ 0x3c, HSW }, { 0x3f, HSW }, { 0x45, HSW }, { 0x46, HSW },
	{ 0x3d, HSW }, { 0x47, HSW }, { 0x4f, HSW }, { 0x56, HSW },
	{ 0x4e, SKL }, { 0x5e, SKL }, { 0x55, SKL }, { 0x8e, SKL }, { 0x9e, SKL },
	{ 0xa5, SKL }, { 0xa6, SKL }, { 0x66, SKL }, { 0x7d, SKL }, { 0x7e, SKL },
	{ 0x6a, SKL }, { 0x6c, SKL }, { 0x8c, SKL }, { 0x8d, SKL }, { 0xa7, SKL },
};

static enum generation gen;
static unsigned format;   /* IA32_PERF_CAPABILITIES[5:0] */
static unsigned depth;

/* Linux's LBR_SELECT maps: what each branch_sample_type bit records. */
static int64_t map_bit(unsigned shift)
{
	bool nhm = gen == NHM;
	switch (1ULL << shift) {
	case BR(USER): return SEL(USER);
	case BR(KERNEL): return SEL(KERNEL);
	case BR(HV): return 0;
	case BR(ANY): return (int64_t)LBR_SEL_ANY;
	/* Nehalem/Westmere errata: returns and calls need the jumps too */
	case BR(ANY_RETURN): return SEL(RETURN) | SEL(FAR) | (nhm ? SEL(REL_JMP) | SEL(IND_JMP) : 0);
	case BR(ANY_CALL):
		return SEL(REL_CALL) | SEL(IND_CALL) | SEL(FAR) | (nhm ? SEL(REL_JMP) | SEL(IND_JMP) : 0);
	case BR(IND_CALL): return SEL(IND_CALL) | (nhm ? SEL(IND_JMP) : 0);
	case BR(COND): return SEL(JCC);
	case BR(IND_JUMP): return SEL(IND_JMP);
	case BR(CALL): return nhm ? 0 : SEL(REL_CALL);
	case BR(CALL_STACK):
		return gen >= HSW ? SEL(REL_CALL) | SEL(IND_CALL) | SEL(RETURN) | SEL(CALL_STACK)
				  : NOT_SUPP;
	}
	return 0; /* software-filtered or output-only bits */
}

static int64_t legacy_config(uint64_t bst)
{
	uint64_t mask = 0;
	if (bst & (BR(ABORT_TX) | BR(IN_TX) | BR(NO_TX)))
		return -EOPNOTSUPP; /* no TSX records (see docs/pmu.md) */
	for (unsigned s = 0; s < PERF_SAMPLE_BRANCH_MAX_SHIFT; s++) {
		if (!(bst >> s & 1))
			continue;
		int64_t v = map_bit(s);
		if (v == NOT_SUPP)
			return -EOPNOTSUPP;
		mask |= (uint64_t)v;
	}
	return (int64_t)(mask ^ LBR_SEL_SUPPRESS_MASK);
}

static void legacy_enable(uint64_t select, bool keep)
{
	pmu_wrmsr(MSR_IA32_DEBUGCTLMSR, 0);
	for (unsigned i = 0; i < depth && !keep; i++) {
		pmu_wrmsr(MSR_LBR_NHM_FROM + i, 0);
		pmu_wrmsr(MSR_LBR_NHM_TO + i, 0);
		if (format >= LBR_FORMAT_INFO)
			pmu_wrmsr(MSR_LBR_INFO_0 + i, 0);
	}
	pmu_wrmsr(MSR_LBR_SELECT, select);
	pmu_wrmsr(MSR_IA32_DEBUGCTLMSR, DEBUGCTL_LBR | DEBUGCTL_FREEZE_LBRS_ON_PMI);
}

static void legacy_disable(void)
{
	pmu_wrmsr(MSR_IA32_DEBUGCTLMSR, 0);
}

/* An address with `flags` flag bits on top, sign-extended. */
static uint64_t strip(uint64_t v, unsigned flags)
{
	return (uint64_t)((int64_t)(v << flags) >> flags);
}

static uint32_t legacy_read(struct perf_branch_entry *b, bool call_stack, uint64_t *hw_idx)
{
	(void)call_stack;
	unsigned n = depth, tos = (unsigned)pmu_rdmsr(MSR_LBR_TOS) % n;
	*hw_idx = tos;
	uint32_t out = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned slot = (tos + n - i) % n;
		uint64_t from = pmu_rdmsr(MSR_LBR_NHM_FROM + slot);
		if (!from)
			break; /* cleared: no older records */
		struct perf_branch_entry *e = &b[out++];
		*e = (struct perf_branch_entry){ .to = pmu_rdmsr(MSR_LBR_NHM_TO + slot) };
		if (format >= LBR_FORMAT_INFO) {
			uint64_t info = pmu_rdmsr(MSR_LBR_INFO_0 + slot);
			e->from = from;
			e->mispred = !!(info & LBR_INFO_MISPRED);
			e->predicted = !e->mispred;
			e->cycles = info & LBR_INFO_CYCLES;
		} else if (format == FORMAT_EIP_FLAGS || format == FORMAT_EIP_FLAGS2) {
			e->mispred = from >> 63;
			e->predicted = !e->mispred;
			e->from = strip(from, format == FORMAT_EIP_FLAGS ? 1 : 3);
		} else {
			e->from = from;
		}
	}
	return out;
}

static uint32_t legacy_save(struct intel_lbr_record *r)
{
	unsigned tos = (unsigned)pmu_rdmsr(MSR_LBR_TOS) % depth;
	uint32_t n = 0;
	for (; n < depth; n++) {
		unsigned slot = (tos + depth - n) % depth;
		uint64_t from = pmu_rdmsr(MSR_LBR_NHM_FROM + slot);
		if (!from)
			break; /* cleared: no older records */
		r[n] = (struct intel_lbr_record){
			.from = from,
			.to = pmu_rdmsr(MSR_LBR_NHM_TO + slot),
			.info = format >= LBR_FORMAT_INFO ? pmu_rdmsr(MSR_LBR_INFO_0 + slot) : 0,
		};
	}
	return n;
}

static void legacy_restore(const struct intel_lbr_record *r, uint32_t n)
{
	static const struct intel_lbr_record cleared;
	unsigned tos = (unsigned)pmu_rdmsr(MSR_LBR_TOS) % depth;
	for (unsigned i = 0; i < depth; i++) {
		unsigned slot = (tos + depth - i) % depth;
		const struct intel_lbr_record *x = i < n ? &r[i] : &cleared;
		pmu_wrmsr(MSR_LBR_NHM_FROM + slot, x->from);
		pmu_wrmsr(MSR_LBR_NHM_TO + slot, x->to);
		if (format >= LBR_FORMAT_INFO)
			pmu_wrmsr(MSR_LBR_INFO_0 + slot, x->info);
	}
}

static struct intel_lbr_face legacy_face = {
	.name = "legacy LBR",
	.typed = false,
	.config = legacy_config,
	.enable = legacy_enable,
	.disable = legacy_disable,
	.read = legacy_read,
	.save = legacy_save,
	.restore = legacy_restore,
};

static enum generation generation_of(unsigned family, unsigned model)
{
	if (family != 6)
		return NONE;
	for (unsigned i = 0; i < sizeof models / sizeof models[0]; i++)
		if (models[i].model == model)
			return (enum generation)models[i].gen;
	return NONE;
}

const struct intel_lbr_face *intel_lbr_legacy_probe(void)
{
	uint64_t fmt = 0;
	if (pmu_cpuid(1, 0).ecx & CPUID_1_ECX_PDCM)
		fmt = pmu_rdmsr(MSR_IA32_PERF_CAPABILITIES) & PERF_CAP_LBR_FORMAT;
	/* The vpmu's legacy face is Skylake's (format 5), whatever model
	 * QEMU's CPUID says; without it the model has no legacy LBR. */
	if (intel_caps.model)
		gen = fmt == LBR_FORMAT_INFO ? SKL : NONE;
	else
		gen = generation_of(cpu.family, cpu.model);
	if (gen == NONE)
		return NULL;
	format = (unsigned)fmt;
	depth = gen == SKL ? 32 : 16;
	legacy_face.depth = depth;
	legacy_face.call_stack = gen >= HSW;
	return &legacy_face;
}

/*
 * The vpmu's branch records (see lbr_model.h): one record store per CPU and
 * three register faces on it (architectural LBR, Skylake's legacy LBR,
 * AMD's LbrExtV2), chosen by the mode.
 *
 * The store is a ring of `depth` records with a top-of-stack index: a
 * recorded branch moves tos up one slot and takes it, so the oldest
 * falls off at the depth. Legacy LBR shows the ring as it is (TOS,
 * FROM_/TO_ by slot); architectural LBR and LbrExtV2 show it newest
 * first (entry x is slot tos - x). Only near branches that were taken
 * are recorded (a conditional branch that was not taken is no record);
 * kernel branches never are (the kernel is not stepped: a driver asking
 * for kernel records gets user records only, so the drivers refuse
 * kernel branch sampling on the model). No cycle counts, no
 * misprediction: the model has no predictor, the bits stay 0.
 *
 * Each face's registers reduce to one filter, a set of LBR_SEL_* bits
 * in their "record" sense (a bit set: that kind or that privilege is
 * recorded), plus call-stack mode: a return takes off the newest record
 * (its call), a branch that is no call or return is not recorded, so
 * the records are the calls still open, innermost first.
 *
 * Freeze on PMI (DEBUGCTL bit 11) is kept but has nothing to freeze:
 * the PMI handler is kernel code, which the model never records.
 *
 * Locking: lbrs[c] belongs to CPU c, touched there with interrupts off
 * (the model's entry points, the step path).
 */
#include <string.h>
#include "core/arch/msr-index.h"
#include "core/arch/percpu.h"
#include "core/kernel.h"
#include "pmu/vpmu/lbr_model.h"
#include "mode.h"
#include "vpmu.h"
#include "core/arch/percpu_table.h"

#define DEPTHS_BITMAP 0x0bu  /* CPUID 1CH.EAX: depths 8, 16, 32 */
#define CAP_CPL_FILTER    (1u << 0)
#define CAP_BRANCH_FILTER (1u << 1)
#define CAP_CALL_STACK    (1u << 2)
#define CAP_BRANCH_TYPE   (1u << 2)  /* ECX: INFO's branch type */
#define MAX_DEPTH ARCH_LBR_MAX_DEPTH

enum face { FACE_NONE, FACE_ARCH, FACE_LEGACY, FACE_AMD };

struct lbr_record {
	uint64_t from, to;
	enum arch_lbr_type type;
};

struct lbr_cpu {
	uint64_t arch_ctl;             /* IA32_LBR_CTL */
	uint64_t debugctl, select;     /* IA32_DEBUGCTL, LBR_SELECT */
	uint64_t extn_cfg;             /* AMD DBG_EXTN_CFG */
	unsigned depth, tos;           /* tos: the newest record's slot */
	struct lbr_record rec[MAX_DEPTH];
};

PERCPU_TABLE(struct lbr_cpu, lbrs);

/* Which face the mode's CPU has (lbr_model.h's table). */
static enum face face(void)
{
	if (vpmu_mode->amd)
		return FACE_AMD;
	if (vpmu_mode == &vpmu_mode_intel)
		return FACE_LEGACY;
	if (vpmu_mode == &vpmu_mode_intel_v2)
		return FACE_NONE;
	return FACE_ARCH;
}

static unsigned default_depth(void)
{
	switch (face()) {
	case FACE_LEGACY: return LEGACY_LBR_DEPTH;
	case FACE_AMD: return AMD_LBR_DEPTH;
	default: return ARCH_LBR_MAX_DEPTH;
	}
}

static struct lbr_cpu *this_lbr(void)
{
	struct lbr_cpu *l = &lbrs[this_cpu_id()];
	if (!l->depth)
		l->depth = default_depth();
	return l;
}

/* ---- the store ---- */

static unsigned slot(const struct lbr_cpu *l, unsigned back)
{
	return (l->tos + l->depth - back % l->depth) % l->depth;
}

static void clear_records(struct lbr_cpu *l)
{
	memset(l->rec, 0, sizeof l->rec);
	l->tos = 0;
}

static void push(struct lbr_cpu *l, struct lbr_record r)
{
	l->tos = (l->tos + 1) % l->depth;
	l->rec[l->tos] = r;
}

/* Call-stack mode's return: the newest record (its call) goes. */
static void pop(struct lbr_cpu *l)
{
	l->rec[l->tos] = (struct lbr_record){ 0, 0, 0 };
	l->tos = (l->tos + l->depth - 1) % l->depth;
}

/* ---- the faces' filters ---- */

/* What this CPU records: LBR_SEL_* in the record sense, with
 * LBR_SEL_CALL_STACK for call-stack mode; 0 when the LBRs are off. */
static uint64_t recording(const struct lbr_cpu *l)
{
	uint64_t c = l->arch_ctl, r = 0;
	switch (face()) {
	case FACE_ARCH:
		if (!(c & ARCH_LBR_CTL_LBREN))
			return 0;
		r |= c & ARCH_LBR_CTL_OS ? LBR_SEL_KERNEL : 0;
		r |= c & ARCH_LBR_CTL_USR ? LBR_SEL_USER : 0;
		r |= c & ARCH_LBR_CTL_JCC ? LBR_SEL_JCC : 0;
		r |= c & ARCH_LBR_CTL_REL_JMP ? LBR_SEL_REL_JMP : 0;
		r |= c & ARCH_LBR_CTL_IND_JMP ? LBR_SEL_IND_JMP : 0;
		r |= c & ARCH_LBR_CTL_REL_CALL ? LBR_SEL_REL_CALL : 0;
		r |= c & ARCH_LBR_CTL_IND_CALL ? LBR_SEL_IND_CALL : 0;
		r |= c & ARCH_LBR_CTL_RET ? LBR_SEL_RETURN : 0;
		r |= c & ARCH_LBR_CTL_OTHER ? LBR_SEL_FAR : 0;
		return r | (c & ARCH_LBR_CTL_CALL_STACK ? LBR_SEL_CALL_STACK : 0);
	case FACE_LEGACY:
		if (!(l->debugctl & DEBUGCTL_LBR))
			return 0;
		return (~l->select & LBR_SEL_SUPPRESS_MASK) | (l->select & LBR_SEL_CALL_STACK);
	case FACE_AMD:
		if (!(l->extn_cfg & DBG_EXTN_CFG_LBRV2EN))
			return 0;
		return ~l->select & LBR_SEL_SUPPRESS_MASK;
	default:
		return 0;
	}
}

/* The INFO type and LBR_SEL_* kind of a recorded branch kind; false
 * for one that is no record (not taken, not a branch). */
static bool classify(unsigned kind, enum arch_lbr_type *type, uint64_t *sel)
{
	bool ind = kind & VPMU_BR_INDIRECT;
	if (kind & VPMU_BR_COND_TAKEN) {
		*type = ARCH_LBR_TYPE_JCC, *sel = LBR_SEL_JCC;
	} else if (kind & VPMU_BR_CALL) {
		*type = ind ? ARCH_LBR_TYPE_IND_CALL : ARCH_LBR_TYPE_REL_CALL;
		*sel = ind ? LBR_SEL_IND_CALL : LBR_SEL_REL_CALL;
	} else if (kind & VPMU_BR_JMP) {
		*type = ind ? ARCH_LBR_TYPE_IND_JMP : ARCH_LBR_TYPE_REL_JMP;
		*sel = ind ? LBR_SEL_IND_JMP : LBR_SEL_REL_JMP;
	} else if (kind & VPMU_BR_RET) {
		*type = ARCH_LBR_TYPE_RET, *sel = LBR_SEL_RETURN;
	} else {
		return false;
	}
	return true;
}

bool vpmu_lbr_wants_steps(void)
{
	return recording(&lbrs[this_cpu_id()]) & LBR_SEL_USER;
}

void vpmu_lbr_user_branch(uint64_t from, uint64_t to, unsigned kind)
{
	struct lbr_cpu *l = this_lbr();
	uint64_t rec = recording(l), sel;
	enum arch_lbr_type type;
	if (!(rec & LBR_SEL_USER) || !classify(kind, &type, &sel) || !(rec & sel))
		return;
	if (rec & LBR_SEL_CALL_STACK) {
		if (type == ARCH_LBR_TYPE_RET)
			pop(l);
		if (type == ARCH_LBR_TYPE_REL_CALL || type == ARCH_LBR_TYPE_IND_CALL)
			push(l, (struct lbr_record){ from, to, type });
		return;
	}
	push(l, (struct lbr_record){ from, to, type });
}

/* ---- the register faces ---- */

/* Record x of a block of `n` registers from base, every `stride`, or -1. */
static int record_of(uint32_t msr, uint32_t base, unsigned n, unsigned stride)
{
	if (msr < base || msr >= base + n * stride || (msr - base) % stride)
		return -1;
	return (int)((msr - base) / stride);
}

static struct lbr_record *arch_entry(struct lbr_cpu *l, uint32_t msr, uint32_t base)
{
	int x = record_of(msr, base, l->depth, 1);
	return x < 0 ? NULL : &l->rec[slot(l, (unsigned)x)];
}

static bool arch_rdmsr(struct lbr_cpu *l, uint32_t msr, uint64_t *v)
{
	struct lbr_record *r;
	if (msr == MSR_ARCH_LBR_CTL)
		*v = l->arch_ctl;
	else if (msr == MSR_ARCH_LBR_DEPTH)
		*v = l->depth;
	else if ((r = arch_entry(l, msr, MSR_ARCH_LBR_FROM_0)))
		*v = r->from;
	else if ((r = arch_entry(l, msr, MSR_ARCH_LBR_TO_0)))
		*v = r->to;
	else if ((r = arch_entry(l, msr, MSR_ARCH_LBR_INFO_0)))
		*v = r->from ? (uint64_t)r->type << ARCH_LBR_INFO_TYPE_SHIFT : 0;
	else
		return false;
	return true;
}

static bool depth_supported(uint64_t d)
{
	return d && d % 8 == 0 && d <= ARCH_LBR_MAX_DEPTH && (DEPTHS_BITMAP >> (d / 8 - 1) & 1);
}

static bool arch_wrmsr(struct lbr_cpu *l, uint32_t msr, uint64_t v)
{
	struct lbr_record *r;
	if (msr == MSR_ARCH_LBR_CTL) {
		l->arch_ctl = v & (ARCH_LBR_CTL_LBREN | ARCH_LBR_CTL_OS | ARCH_LBR_CTL_USR |
				   ARCH_LBR_CTL_CALL_STACK | ARCH_LBR_CTL_BRANCHES);
	} else if (msr == MSR_ARCH_LBR_DEPTH) {
		if (depth_supported(v))
			l->depth = (unsigned)v;
		clear_records(l);
	} else if ((r = arch_entry(l, msr, MSR_ARCH_LBR_FROM_0))) {
		r->from = v;
	} else if ((r = arch_entry(l, msr, MSR_ARCH_LBR_TO_0))) {
		r->to = v;
	} else if ((r = arch_entry(l, msr, MSR_ARCH_LBR_INFO_0))) {
		r->type = (enum arch_lbr_type)(v >> ARCH_LBR_INFO_TYPE_SHIFT & 0xf);
	} else {
		return false;
	}
	return true;
}

/* Legacy: slots as they are; LBR_INFO with no misprediction and no
 * cycle count (a record's INFO is 0). */
static bool legacy_rdmsr(struct lbr_cpu *l, uint32_t msr, uint64_t *v)
{
	int x;
	if (msr == MSR_IA32_DEBUGCTLMSR)
		*v = l->debugctl;
	else if (msr == MSR_LBR_SELECT)
		*v = l->select;
	else if (msr == MSR_LBR_TOS)
		*v = l->tos;
	else if ((x = record_of(msr, MSR_LBR_NHM_FROM, l->depth, 1)) >= 0)
		*v = l->rec[x].from;
	else if ((x = record_of(msr, MSR_LBR_NHM_TO, l->depth, 1)) >= 0)
		*v = l->rec[x].to;
	else if (record_of(msr, MSR_LBR_INFO_0, l->depth, 1) >= 0)
		*v = 0;
	else
		return false;
	return true;
}

static bool legacy_wrmsr(struct lbr_cpu *l, uint32_t msr, uint64_t v)
{
	int x;
	if (msr == MSR_IA32_DEBUGCTLMSR)
		l->debugctl = v & (DEBUGCTL_LBR | DEBUGCTL_FREEZE_LBRS_ON_PMI);
	else if (msr == MSR_LBR_SELECT)
		l->select = v & (LBR_SEL_SUPPRESS_MASK | LBR_SEL_CALL_STACK);
	else if (msr == MSR_LBR_TOS)
		; /* read-only */
	else if ((x = record_of(msr, MSR_LBR_NHM_FROM, l->depth, 1)) >= 0)
		l->rec[x].from = v;
	else if ((x = record_of(msr, MSR_LBR_NHM_TO, l->depth, 1)) >= 0)
		l->rec[x].to = v;
	else if (record_of(msr, MSR_LBR_INFO_0, l->depth, 1) >= 0)
		; /* nothing to keep */
	else
		return false;
	return true;
}

/* AMD: entry x newest first; TO's VALID bit says a branch is there. */
static bool amd_rdmsr(struct lbr_cpu *l, uint32_t msr, uint64_t *v)
{
	int x = record_of(msr, MSR_AMD_SAMP_BR_FROM, 2 * l->depth, 1);
	if (msr == MSR_IA32_DEBUGCTLMSR) {
		*v = l->debugctl;
	} else if (msr == MSR_AMD64_LBR_SELECT) {
		*v = l->select;
	} else if (msr == MSR_AMD_DBG_EXTN_CFG) {
		*v = l->extn_cfg;
	} else if (x >= 0) {
		const struct lbr_record *r = &l->rec[slot(l, (unsigned)x / 2)];
		const uint64_t ip_mask = (1ULL << AMD_LBR_IP_BITS) - 1;
		if (x % 2 == 0)
			*v = r->from & ip_mask;
		else
			*v = r->from ? (r->to & ip_mask) | AMD_LBR_TO_VALID : 0;
	} else {
		return false;
	}
	return true;
}

static bool amd_wrmsr(struct lbr_cpu *l, uint32_t msr, uint64_t v)
{
	int x = record_of(msr, MSR_AMD_SAMP_BR_FROM, 2 * l->depth, 1);
	if (msr == MSR_IA32_DEBUGCTLMSR) {
		l->debugctl = v & DEBUGCTL_FREEZE_LBRS_ON_PMI;
	} else if (msr == MSR_AMD64_LBR_SELECT) {
		l->select = v & LBR_SEL_SUPPRESS_MASK;
	} else if (msr == MSR_AMD_DBG_EXTN_CFG) {
		l->extn_cfg = v & DBG_EXTN_CFG_LBRV2EN;
	} else if (x >= 0) {
		/* The driver clears entries; an address written keeps its
		 * low 58 bits sign-extended, as the driver reads them. */
		struct lbr_record *r = &l->rec[slot(l, (unsigned)x / 2)];
		uint64_t ip = (uint64_t)((int64_t)(v << 6) >> 6);
		if (x % 2 == 0)
			r->from = v ? ip : 0;
		else
			r->to = v ? ip : 0;
	} else {
		return false;
	}
	return true;
}

bool vpmu_lbr_rdmsr(uint32_t msr, uint64_t *v)
{
	struct lbr_cpu *l = this_lbr();
	switch (face()) {
	case FACE_ARCH: return arch_rdmsr(l, msr, v);
	case FACE_LEGACY: return legacy_rdmsr(l, msr, v);
	case FACE_AMD: return amd_rdmsr(l, msr, v);
	default: return false;
	}
}

bool vpmu_lbr_wrmsr(uint32_t msr, uint64_t v)
{
	struct lbr_cpu *l = this_lbr();
	switch (face()) {
	case FACE_ARCH: return arch_wrmsr(l, msr, v);
	case FACE_LEGACY: return legacy_wrmsr(l, msr, v);
	case FACE_AMD: return amd_wrmsr(l, msr, v);
	default: return false;
	}
}

void vpmu_lbr_cpuid(uint32_t leaf, uint32_t sub, struct cpuid_regs *r)
{
	enum face f = face();
	if (f == FACE_ARCH && leaf == 7 && sub == 0)
		r->edx |= CPUID_7_EDX_ARCH_LBR;
	if (f != FACE_ARCH && leaf == 7 && sub == 0)
		r->edx &= ~CPUID_7_EDX_ARCH_LBR;
	if (f == FACE_ARCH && leaf == CPUID_ARCH_LBR_LEAF && sub == 0) {
		r->eax = DEPTHS_BITMAP;
		r->ebx = CAP_CPL_FILTER | CAP_BRANCH_FILTER | CAP_CALL_STACK;
		r->ecx = CAP_BRANCH_TYPE;
		r->edx = 0;
	}
	if (f == FACE_AMD && leaf == CPUID_AMD_EXT_PERFMON) {
		r->eax |= CPUID_AMD_LBR_V2;
		r->ebx = (r->ebx & ~(0x3fu << 4)) | AMD_LBR_DEPTH << 4;
	}
}

/* The legacy face's IA32_PERF_CAPABILITIES[5:0] (for mode_intel.c). */
uint64_t vpmu_lbr_format(void)
{
	return face() == FACE_LEGACY ? LBR_FORMAT_INFO : 0;
}

const char *vpmu_lbr_face_name(void)
{
	static const char *const names[] = { [FACE_NONE] = "none", [FACE_ARCH] = "arch",
					     [FACE_LEGACY] = "legacy", [FACE_AMD] = "amd" };
	return names[face()];
}

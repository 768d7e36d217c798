/*
 * The vpmu's architectural LBR (see lbr.h). Depths 8, 16 and 32; CPL
 * and branch-type filtering; the INFO branch type; call-stack mode (a
 * return pops its call's record, a branch that is no call or return is
 * not recorded, a full stack drops its oldest call); no cycle counts, no misprediction (the model has no predictor: the
 * bits stay 0, and CPUID 1CH says so).
 *
 * Records: entry 0 is the newest, older ones move down one slot per
 * recorded branch, the oldest falls off at the depth. Writing
 * IA32_LBR_DEPTH clears every record. Only near branches that were
 * taken are recorded (a conditional branch that was not taken is no
 * record); kernel branches never are (the kernel is not stepped: a
 * driver asking for OS records gets user records only, so the Intel
 * LBR driver refuses kernel branch sampling on the model).
 *
 * Locking: lbrs[c] belongs to CPU c, touched there with interrupts off
 * (the model's entry points, the step path).
 */
#include <string.h>
#include "arch/msr-index.h"
#include "arch/percpu.h"
#include "kernel.h"
#include "lbr.h"
#include "vpmu.h"

#define DEPTHS_BITMAP 0x0bu  /* CPUID 1CH.EAX: depths 8, 16, 32 */
#define CAP_CPL_FILTER    (1u << 0)
#define CAP_BRANCH_FILTER (1u << 1)
#define CAP_CALL_STACK    (1u << 2)
#define CAP_BRANCH_TYPE   (1u << 2)  /* ECX: INFO's branch type */

struct lbr_record {
	uint64_t from, to, info;
};

struct lbr_cpu {
	uint64_t ctl;
	unsigned depth;
	struct lbr_record rec[ARCH_LBR_MAX_DEPTH];
};

static struct lbr_cpu lbrs[MAX_CPUS];

static struct lbr_cpu *this_lbr(void)
{
	struct lbr_cpu *l = &lbrs[this_cpu_id()];
	if (!l->depth)
		l->depth = ARCH_LBR_MAX_DEPTH;
	return l;
}

/* The INFO type and LBR_CTL filter bit of a recorded branch kind;
 * false for one that is no record (not taken, not a branch). */
static bool classify(unsigned kind, enum arch_lbr_type *type, uint64_t *filter)
{
	bool ind = kind & VPMU_BR_INDIRECT;
	if (kind & VPMU_BR_COND_TAKEN) {
		*type = ARCH_LBR_TYPE_JCC, *filter = ARCH_LBR_CTL_JCC;
	} else if (kind & VPMU_BR_CALL) {
		*type = ind ? ARCH_LBR_TYPE_IND_CALL : ARCH_LBR_TYPE_REL_CALL;
		*filter = ind ? ARCH_LBR_CTL_IND_CALL : ARCH_LBR_CTL_REL_CALL;
	} else if (kind & VPMU_BR_JMP) {
		*type = ind ? ARCH_LBR_TYPE_IND_JMP : ARCH_LBR_TYPE_REL_JMP;
		*filter = ind ? ARCH_LBR_CTL_IND_JMP : ARCH_LBR_CTL_REL_JMP;
	} else if (kind & VPMU_BR_RET) {
		*type = ARCH_LBR_TYPE_RET, *filter = ARCH_LBR_CTL_RET;
	} else {
		return false;
	}
	return true;
}

/* Call-stack mode: a return takes off the newest record (its call),
 * so the records are the calls still open, innermost first. */
static void pop(struct lbr_cpu *l)
{
	memmove(&l->rec[0], &l->rec[1], (l->depth - 1) * sizeof l->rec[0]);
	l->rec[l->depth - 1] = (struct lbr_record){ 0, 0, 0 };
}

bool vpmu_lbr_wants_steps(void)
{
	uint64_t ctl = lbrs[this_cpu_id()].ctl;
	return (ctl & ARCH_LBR_CTL_LBREN) && (ctl & ARCH_LBR_CTL_USR);
}

void vpmu_lbr_user_branch(uint64_t from, uint64_t to, unsigned kind)
{
	struct lbr_cpu *l = this_lbr();
	enum arch_lbr_type type;
	uint64_t filter;
	if (!vpmu_lbr_wants_steps() || !classify(kind, &type, &filter) || !(l->ctl & filter))
		return;
	if ((l->ctl & ARCH_LBR_CTL_CALL_STACK) && type == ARCH_LBR_TYPE_RET) {
		pop(l);
		return;
	}
	if ((l->ctl & ARCH_LBR_CTL_CALL_STACK) && type != ARCH_LBR_TYPE_REL_CALL &&
	    type != ARCH_LBR_TYPE_IND_CALL)
		return;
	memmove(&l->rec[1], &l->rec[0], (l->depth - 1) * sizeof l->rec[0]);
	l->rec[0] = (struct lbr_record){ from, to, (uint64_t)type << ARCH_LBR_INFO_TYPE_SHIFT };
}

/* Record x of a block of `depth` registers from base, or -1. */
static int record_of(uint32_t msr, uint32_t base, unsigned depth)
{
	return msr >= base && msr < base + depth ? (int)(msr - base) : -1;
}

bool vpmu_lbr_rdmsr(uint32_t msr, uint64_t *v)
{
	struct lbr_cpu *l = this_lbr();
	int x;
	if (msr == MSR_ARCH_LBR_CTL)
		*v = l->ctl;
	else if (msr == MSR_ARCH_LBR_DEPTH)
		*v = l->depth;
	else if ((x = record_of(msr, MSR_ARCH_LBR_FROM_0, l->depth)) >= 0)
		*v = l->rec[x].from;
	else if ((x = record_of(msr, MSR_ARCH_LBR_TO_0, l->depth)) >= 0)
		*v = l->rec[x].to;
	else if ((x = record_of(msr, MSR_ARCH_LBR_INFO_0, l->depth)) >= 0)
		*v = l->rec[x].info;
	else
		return false;
	return true;
}

static bool depth_supported(uint64_t d)
{
	return d && d % 8 == 0 && d <= ARCH_LBR_MAX_DEPTH && (DEPTHS_BITMAP >> (d / 8 - 1) & 1);
}

bool vpmu_lbr_wrmsr(uint32_t msr, uint64_t v)
{
	struct lbr_cpu *l = this_lbr();
	int x;
	if (msr == MSR_ARCH_LBR_CTL) {
		l->ctl = v & (ARCH_LBR_CTL_LBREN | ARCH_LBR_CTL_OS | ARCH_LBR_CTL_USR |
			      ARCH_LBR_CTL_CALL_STACK | ARCH_LBR_CTL_BRANCHES);
	} else if (msr == MSR_ARCH_LBR_DEPTH) {
		if (depth_supported(v))
			l->depth = (unsigned)v;
		memset(l->rec, 0, sizeof l->rec);
	} else if ((x = record_of(msr, MSR_ARCH_LBR_FROM_0, l->depth)) >= 0) {
		l->rec[x].from = v;
	} else if ((x = record_of(msr, MSR_ARCH_LBR_TO_0, l->depth)) >= 0) {
		l->rec[x].to = v;
	} else if ((x = record_of(msr, MSR_ARCH_LBR_INFO_0, l->depth)) >= 0) {
		l->rec[x].info = v;
	} else {
		return false;
	}
	return true;
}

void vpmu_lbr_cpuid(uint32_t leaf, uint32_t sub, struct cpuid_regs *r)
{
	if (leaf == 7 && sub == 0)
		r->edx |= CPUID_7_EDX_ARCH_LBR;
	if (leaf == CPUID_ARCH_LBR_LEAF && sub == 0) {
		r->eax = DEPTHS_BITMAP;
		r->ebx = CAP_CPL_FILTER | CAP_BRANCH_FILTER | CAP_CALL_STACK;
		r->ecx = CAP_BRANCH_TYPE;
		r->edx = 0;
	}
}

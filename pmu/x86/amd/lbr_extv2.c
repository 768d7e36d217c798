/*
 * AMD LbrExtV2 branch stacks (Zen 4 and later), as Linux's
 * arch/x86/events/amd/lbr.c drives them:
 *
 *   - present with PerfMonV2 and CPUID 8000_0022H.EAX[1]; EBX[9:4]
 *     gives the depth;
 *   - event_init (after the event's own checks): a counting event is
 *     EINVAL (LBR is for sampling); branch_sample_type maps to
 *     LBR_SELECT through Linux's map, whose TSX filters, CALL_STACK,
 *     NO_FLAGS and NO_CYCLES are EOPNOTSUPP; the bits suppress what
 *     they name, so the value written is the wanted kinds flipped.
 *     On the vpmu kernel branches are EOPNOTSUPP (never stepped);
 *   - on: the records cleared, LBR_SELECT, then DBG_EXTN_CFG.LBRV2EN
 *     (freeze on PMI, a separate CPUID bit, is not used); cleared again
 *     when a task's event comes on while a CPU event kept them on with
 *     another task's records (no task sees another's branches; Linux
 *     clears them at every switch-in);
 *   - read: entry 0 is the newest; an entry whose TO lacks VALID holds
 *     nothing; the 58-bit addresses are sign-extended; FROM's bit 63 is
 *     the misprediction. Records carry no type: TYPE_SAVE and the
 *     filters decode them (branch_type.c), as Linux's software filter.
 *
 * Zen 3's BRS (a 16-deep buffer read at one event's overflow) is not
 * driven.
 *
 * Locking: users[c], owner[c] and entries[c] are CPU c's, touched there with
 * interrupts off (add/del under perf_lock, the PMI). depth is set once
 * at boot.
 */
#include <linux/errno.h>
#include <linux/perf_event.h>
#include "core/arch/percpu.h"
#include "core/kernel.h"
#include "pmu/x86/branch_type.h"
#include "pmu/x86/msr.h"
#include "pmu/perf.h"
#include "pmu/vpmu/lbr_model.h"
#include "core/proc/task.h"
#include "amd.h"
#include "pmu/x86/amd/lbr_extv2.h"
#include "core/arch/percpu_table.h"

#define BR(x) PERF_SAMPLE_BRANCH_##x
#define MAX_DEPTH 64
#define NOT_SUPP (-1LL)
#define SEL(x) ((int64_t)LBR_SEL_##x)

static unsigned depth;
static unsigned users[MAX_CPUS];
/* The tid of the task whose event came on last on the CPU: the records
 * may be its branches; 0 for none (a tid is never 0). */
static int owner[MAX_CPUS];
PERCPU_TABLE(struct perf_branch_entry[MAX_DEPTH], entries);

void amd_lbr_init(void)
{
	if (!amd_caps.perfmon_v2)
		return;
	struct cpuid_regs r = pmu_cpuid(CPUID_AMD_EXT_PERFMON, 0);
	if (!(r.eax & CPUID_AMD_LBR_V2))
		return;
	depth = CPUID_AMD_LBR_V2_DEPTH(r.ebx);
	if (depth)
		klog("pmu: cpu: %u-deep LbrExtV2", depth);
}

unsigned amd_lbr_depth(void)
{
	return depth;
}

/* Linux's LbrExtV2 map: what each branch_sample_type bit records. */
static int64_t map_bit(uint64_t bit)
{
	switch (bit) {
	case BR(USER): return SEL(USER);
	case BR(KERNEL): return SEL(KERNEL);
	case BR(ANY): return (int64_t)LBR_SEL_ANY;
	case BR(ANY_CALL): return SEL(REL_CALL) | SEL(IND_CALL) | SEL(FAR);
	case BR(ANY_RETURN): return SEL(RETURN) | SEL(FAR);
	case BR(IND_CALL): return SEL(IND_CALL);
	case BR(COND): return SEL(JCC);
	case BR(IND_JUMP): return SEL(IND_JMP);
	case BR(CALL): return SEL(REL_CALL);
	case BR(ABORT_TX): case BR(IN_TX): case BR(NO_TX): case BR(CALL_STACK):
	case BR(NO_FLAGS): case BR(NO_CYCLES):
		return NOT_SUPP;
	}
	return 0; /* HV, and bits with no hardware side */
}

/* LBR_SELECT for bst, or -EOPNOTSUPP. */
static int64_t select_for(uint64_t bst)
{
	uint64_t mask = 0;
	for (unsigned s = 0; s < PERF_SAMPLE_BRANCH_MAX_SHIFT; s++) {
		if (!(bst >> s & 1))
			continue;
		int64_t v = map_bit(1ULL << s);
		if (v == NOT_SUPP)
			return -EOPNOTSUPP;
		mask |= (uint64_t)v;
	}
	return (int64_t)(mask ^ LBR_SEL_SUPPRESS_MASK);
}

int amd_lbr_event_init(const struct perf_event *e)
{
	const struct perf_event_attr *a = &e->attr;
	if (!(a->sample_type & PERF_SAMPLE_BRANCH_STACK))
		return 0;
	if (!depth)
		return -EOPNOTSUPP;
	if (!a->sample_period) /* also freq's sample_freq */
		return -EINVAL;    /* LBR is not for counting */
	int64_t sel = select_for(a->branch_sample_type);
	if (sel < 0)
		return (int)sel;
	if ((a->branch_sample_type & BR(KERNEL)) && amd_caps.model_pmu)
		return -EOPNOTSUPP; /* the model records user branches only */
	return 0;
}

static bool wants_lbr(const struct perf_event *e)
{
	return depth && (e->attr.sample_type & PERF_SAMPLE_BRANCH_STACK);
}

static void clear_records(void)
{
	for (unsigned i = 0; i < depth; i++) {
		pmu_wrmsr(MSR_AMD_SAMP_BR_FROM + 2 * i, 0);
		pmu_wrmsr(MSR_AMD_SAMP_BR_FROM + 2 * i + 1, 0);
	}
}

void amd_lbr_add(const struct perf_event *e)
{
	if (!wants_lbr(e))
		return;
	unsigned cpu = this_cpu_id();
	/* Records of another task (or of none we know) under a CPU event. */
	bool foreign = e->task && owner[cpu] != e->task->tid;
	owner[cpu] = e->task ? e->task->tid : 0;
	if (users[cpu]++) {
		if (foreign) {
			pmu_wrmsr(MSR_AMD_DBG_EXTN_CFG, 0);
			clear_records();
			pmu_wrmsr(MSR_AMD_DBG_EXTN_CFG, DBG_EXTN_CFG_LBRV2EN);
		}
		return;
	}
	pmu_wrmsr(MSR_AMD_DBG_EXTN_CFG, 0);
	clear_records();
	pmu_wrmsr(MSR_AMD64_LBR_SELECT, (uint64_t)select_for(e->attr.branch_sample_type));
	pmu_wrmsr(MSR_AMD_DBG_EXTN_CFG, DBG_EXTN_CFG_LBRV2EN);
}

void amd_lbr_del(const struct perf_event *e)
{
	unsigned cpu = this_cpu_id();
	if (!wants_lbr(e) || !users[cpu])
		return;
	if (--users[cpu]) {
		owner[cpu] = 0; /* still on: whoever runs next adds records */
		return;
	}
	pmu_wrmsr(MSR_AMD_DBG_EXTN_CFG, 0);
	pmu_wrmsr(MSR_AMD64_LBR_SELECT, 0);
}

static uint64_t sign_extend_ip(uint64_t v)
{
	return (uint64_t)((int64_t)(v << (64 - AMD_LBR_IP_BITS)) >> (64 - AMD_LBR_IP_BITS));
}

/* The records, newest first, into hit's branch stack (this CPU's
 * buffer, good until the next PMI here). In the PMI. */
void amd_lbr_read(const struct perf_event *e, struct perf_hit *hit)
{
	if (!wants_lbr(e))
		return;
	struct perf_branch_entry *b = entries[this_cpu_id()];
	uint32_t n = 0;
	for (unsigned i = 0; i < depth && i < MAX_DEPTH; i++) {
		uint64_t to = pmu_rdmsr(MSR_AMD_SAMP_BR_FROM + 2 * i + 1);
		if (!(to & AMD_LBR_TO_VALID))
			continue;
		uint64_t from = pmu_rdmsr(MSR_AMD_SAMP_BR_FROM + 2 * i);
		b[n] = (struct perf_branch_entry){ .from = sign_extend_ip(from),
						   .to = sign_extend_ip(to) };
		b[n].mispred = !!(from & AMD_LBR_FROM_MISPRED);
		b[n].predicted = !b[n].mispred;
		n++;
	}
	hit->branches = b;
	hit->branches_nr = branch_type_filter(b, n, e->attr.branch_sample_type);
	hit->branches_hw_idx = 0; /* entry 0 is the newest, as Linux's amd_pmu_lbr_read says */
}

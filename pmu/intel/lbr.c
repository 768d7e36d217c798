/*
 * Branch stacks on Intel (PERF_SAMPLE_BRANCH_STACK), as Linux's
 * arch/x86/events/intel/lbr.c gives them: architectural LBR where CPUID
 * 7.EDX[19] says so (lbr_arch.c), else legacy LBR on the parts Linux
 * drives it on (lbr_legacy.c); this file is what both share:
 *
 *   - event_init checks in Linux's order: no LBR is EOPNOTSUPP;
 *     CALL_STACK without call-stack mode EOPNOTSUPP, with another
 *     branch kind EINVAL; then the face's filter (a filter it cannot
 *     apply EOPNOTSUPP); on the vpmu kernel branches are EOPNOTSUPP
 *     (the model never steps the kernel);
 *   - add/del turn the LBRs on for the CPU while at least one branch
 *     stack event is on it (the first one's filter: events sharing a
 *     CPU should ask for the same, as perf record's do), the records
 *     cleared when the first comes on - except for a call-stack event
 *     coming back to the CPU whose LBRs it turned off last, with no
 *     other user since: the records it left there are its task's call
 *     stack, kept (Linux saves and restores the stack at every switch;
 *     here it survives a switch to tasks that do not use the LBRs, not
 *     a move to another CPU);
 *   - at an overflow the records, newest first, become the sample's
 *     branch stack; records without a type (legacy) are decoded for
 *     TYPE_SAVE and for filters the hardware applies only roughly.
 *
 * Locking: lbr_cpus[c] is CPU c's, touched there with interrupts off
 * (add/del under perf_lock, the PMI). face is set once at boot.
 */
#include <linux/errno.h>
#include <linux/perf_event.h>
#include "arch/percpu.h"
#include "kernel.h"
#include "pmu/branch_type.h"
#include "pmu/event.h"
#include "pmu/perf.h"
#include "pmu/vpmu/lbr.h"
#include "intel.h"
#include "lbr.h"
#include "arch/percpu_table.h"

#define BR(x) PERF_SAMPLE_BRANCH_##x
#define PRIV (BR(USER) | BR(KERNEL) | BR(HV))
/* Output modifiers: they change the records, not which are taken. */
#define OUTPUT_ONLY (BR(NO_FLAGS) | BR(NO_CYCLES) | BR(TYPE_SAVE) | BR(HW_INDEX) | BR(PRIV_SAVE))

struct lbr_cpu {
	unsigned users;
	/* While the LBRs are off: the stream_id (never reused) of the
	 * call-stack event whose del turned them off, whose task's stack
	 * they still hold, and its filter; 0 when they hold nobody's. */
	uint64_t kept_for;
	uint64_t kept_config;
	struct perf_branch_entry entries[ARCH_LBR_MAX_DEPTH];
};

PERCPU_TABLE(struct lbr_cpu, lbr_cpus);
static const struct intel_lbr_face *face;   /* NULL: no branch stacks */

void intel_lbr_init(void)
{
	face = intel_lbr_arch_probe();
	if (!face)
		face = intel_lbr_legacy_probe();
	if (face && face->depth > ARCH_LBR_MAX_DEPTH)
		face = NULL; /* deeper than any part Linux knows */
	if (face)
		klog("pmu: cpu: %u-deep %s%s", face->depth, face->name,
		     face->call_stack ? ", call-stack mode" : "");
}

unsigned intel_lbr_depth(void)
{
	return face ? face->depth : 0;
}

const char *intel_lbr_name(void)
{
	return face ? face->name : "none";
}

int intel_lbr_event_init(const struct perf_event_attr *a)
{
	if (!(a->sample_type & PERF_SAMPLE_BRANCH_STACK))
		return 0;
	uint64_t bst = a->branch_sample_type;
	if (!face)
		return -EOPNOTSUPP;
	if (bst & BR(CALL_STACK)) {
		if (!face->call_stack)
			return -EOPNOTSUPP;
		if (bst & ~(PRIV | OUTPUT_ONLY | BR(CALL_STACK)))
			return -EINVAL; /* the call stack is all it records */
	}
	int64_t config = face->config(bst);
	if (config < 0)
		return (int)config;
	if ((bst & BR(KERNEL)) && intel_caps.model)
		return -EOPNOTSUPP; /* the model records user branches only */
	return 0;
}

static bool wants_lbr(const struct perf_event *e)
{
	return face && (e->attr.sample_type & PERF_SAMPLE_BRANCH_STACK);
}

/* A task's call-stack event: its records are worth keeping across a
 * switch (a CPU event's stack mixes every task's). */
static bool keeps_stack(const struct perf_event *e)
{
	return e->task && (e->attr.branch_sample_type & BR(CALL_STACK));
}

void intel_lbr_add(struct perf_event *e)
{
	if (!wants_lbr(e))
		return;
	struct lbr_cpu *l = &lbr_cpus[this_cpu_id()];
	uint64_t config = (uint64_t)face->config(e->attr.branch_sample_type);
	bool keep = keeps_stack(e) && l->kept_for == e->stream_id && l->kept_config == config;
	l->kept_for = 0;
	if (l->users++)
		return;
	face->enable(config, keep);
}

void intel_lbr_del(struct perf_event *e)
{
	if (!wants_lbr(e))
		return;
	struct lbr_cpu *l = &lbr_cpus[this_cpu_id()];
	if (l->users && !--l->users) {
		face->disable();
		if (keeps_stack(e)) {
			l->kept_for = e->stream_id;
			l->kept_config = (uint64_t)face->config(e->attr.branch_sample_type);
		}
	}
}

/* The records, newest first, into hit's branch stack (a buffer of this
 * CPU's, good until the next PMI here). In the PMI. */
void intel_lbr_read(const struct perf_event *e, struct perf_hit *hit)
{
	if (!wants_lbr(e))
		return;
	struct lbr_cpu *l = &lbr_cpus[this_cpu_id()];
	uint64_t bst = e->attr.branch_sample_type;
	uint32_t n = face->read(l->entries, bst & BR(CALL_STACK), &hit->branches_hw_idx);
	if (!face->typed)
		n = branch_type_filter(l->entries, n, bst);
	else if (!(bst & BR(TYPE_SAVE)))
		for (uint32_t i = 0; i < n; i++)
			l->entries[i].type = 0;
	hit->branches = l->entries;
	hit->branches_nr = n;
}

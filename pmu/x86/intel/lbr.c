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
 *     cleared when the first comes on, and when a task's event comes on
 *     while another task's records are there (a CPU event kept the LBRs
 *     on): no task sees another's branches (Linux's lbr_context check
 *     in intel_pmu_lbr_add; an event that goes off while the LBRs stay
 *     on gives up its claim, so it finds them cleared when it comes
 *     back). A CPU event's own stack still spans the tasks it saw
 *     (Linux clears it at every switch-in in its sched_task hook,
 *     which baremon has not got);
 *   - a task's user call stack (a per-task CALL_STACK|USER event) goes
 *     with the task, as Linux's task_ctx_data: del saves the records
 *     into the event's struct lbr_stack (allocated at open, or at fork
 *     for an inherited copy; freed with the event), add puts them back
 *     on whichever CPU the task comes to, instead of clearing them.
 *     The copy is skipped when the LBRs still hold them: the event
 *     comes back to the CPU where it saved them last, whose LBRs its
 *     del turned off and no one turned on since (Linux's last_task_ctx
 *     and log_id; baremon idles with HLT, which keeps the records, so
 *     Linux's check for a deep C-state's reset has nothing to find);
 *   - at an overflow the records, newest first, become the sample's
 *     branch stack; records without a type (legacy) are decoded for
 *     TYPE_SAVE and for filters the hardware applies only roughly.
 *
 * Locking: lbr_cpus[c] is CPU c's, touched there with interrupts off
 * (add/del under perf_lock, the PMI). face is set once at boot.
 */
#include <linux/errno.h>
#include <linux/perf_event.h>
#include "core/arch/percpu.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "pmu/x86/branch_type.h"
#include "pmu/events/event.h"
#include "pmu/perf.h"
#include "pmu/vpmu/lbr_model.h"
#include "core/proc/task.h"
#include "intel.h"
#include "pmu/x86/intel/lbr_faces.h"
#include "core/arch/percpu_table.h"

#define BR(x) PERF_SAMPLE_BRANCH_##x
#define PRIV (BR(USER) | BR(KERNEL) | BR(HV))
/* Output modifiers: they change the records, not which are taken. */
#define OUTPUT_ONLY (BR(NO_FLAGS) | BR(NO_CYCLES) | BR(TYPE_SAVE) | BR(HW_INDEX) | BR(PRIV_SAVE))

struct lbr_cpu {
	unsigned users;
	uint64_t config;    /* the filter on while users > 0 */
	uint64_t saves;     /* call stacks saved here so far */
	/* While the LBRs are off: the number of the save (1, 2, ...)
	 * whose records they still hold; 0 when they hold no saved stack. */
	uint64_t kept;
	/* The tid of the task whose event came on last: the LBRs may hold
	 * its branches; 0 for none (a tid is never 0). */
	int owner;
	struct perf_branch_entry entries[ARCH_LBR_MAX_DEPTH];
};

/* A task's call stack while its event is off the counters. Touched in
 * the event's add/del (perf_lock held, interrupts off, on the CPU the
 * task is on). */
struct lbr_stack {
	bool saved;         /* by the last del, not put back since */
	unsigned cpu;       /* where it was saved, and that CPU's save number */
	uint64_t seq;
	uint32_t nr;        /* records, newest first */
	struct intel_lbr_record rec[ARCH_LBR_MAX_DEPTH];
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

/* A task's user call stack: worth keeping across its switches (a CPU
 * event's stack mixes every task's; Linux's branch_user_callstack). */
static bool keeps_stack(const struct perf_event *e)
{
	uint64_t bst = e->attr.branch_sample_type;
	return e->task && (bst & BR(CALL_STACK)) && (bst & BR(USER));
}

int intel_lbr_alloc(struct perf_event *e)
{
	if (!wants_lbr(e) || !keeps_stack(e))
		return 0;
	e->hw.data = kzalloc(sizeof(struct lbr_stack));
	return e->hw.data ? 0 : -ENOMEM;
}

int intel_lbr_inherit(struct perf_event *c, const struct perf_event *p)
{
	return p->hw.data ? intel_lbr_alloc(c) : 0;
}

void intel_lbr_free(struct perf_event *e)
{
	kfree(e->hw.data);
	e->hw.data = NULL;
}

/* Do this CPU's LBRs still hold s, saved here and untouched since? */
static bool held_here(const struct lbr_cpu *l, const struct lbr_stack *s)
{
	return s->cpu == this_cpu_id() && l->kept == s->seq;
}

void intel_lbr_add(struct perf_event *e)
{
	if (!wants_lbr(e))
		return;
	struct lbr_cpu *l = &lbr_cpus[this_cpu_id()];
	struct lbr_stack *s = e->hw.data;
	bool first = !l->users++;
	bool restore = s && s->saved;
	/* Records of another task (or of none we know) under a CPU event. */
	bool foreign = e->task && l->owner != e->task->tid;
	l->owner = e->task ? e->task->tid : 0;
	if (first)
		l->config = (uint64_t)face->config(e->attr.branch_sample_type);
	if (restore && !(first && held_here(l, s))) {
		if (!first)
			face->disable(); /* another event's records give way */
		face->restore(s->rec, s->nr);
	}
	if (first || restore || foreign)
		face->enable(l->config, restore); /* clears unless restoring */
	if (s)
		s->saved = false;
	l->kept = 0;
}

void intel_lbr_del(struct perf_event *e)
{
	if (!wants_lbr(e))
		return;
	struct lbr_cpu *l = &lbr_cpus[this_cpu_id()];
	if (!l->users)
		return;
	bool off = !--l->users;
	if (off)
		face->disable();
	else
		l->owner = 0; /* still on: whoever runs next adds records */
	struct lbr_stack *s = e->hw.data;
	if (!s)
		return;
	s->nr = face->save(s->rec);
	s->saved = true;
	s->cpu = this_cpu_id();
	s->seq = ++l->saves;
	l->kept = off ? s->seq : 0; /* on for another event: they move on */
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

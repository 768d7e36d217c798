/*
 * PERF_RECORD_SWITCH and SWITCH_CPU_WIDE (attr.context_switch), Linux's
 * perf_event_switch: a context switch on a CPU writes, for every event
 * of the outgoing task's context and the CPU's that asked, a record
 * with misc SWITCH_OUT (plus SWITCH_OUT_PREEMPT when the task is still
 * runnable: preempted or yielding, not blocked) while the outgoing task
 * is current, then a record with misc 0 into the incoming task's and
 * the CPU's events once it is current. Per-task events see only
 * {header, sample_id}; CPU-wide events see SWITCH_CPU_WIDE with the
 * other task's pid/tid (0/0 for the idle task).
 *
 * Scheduler context: the run-queue lock is held and interrupts are off;
 * perf_lock nests inside it (as in pmu/events/ctx_sched.c). Pollers are
 * woken at the next perf_wakeup_pending (return to user, tick), never
 * from here.
 */
#include "pmu/events/event.h"
#include "core/kernel.h"
#include "core/arch/percpu.h"
#include "records.h"
#include "core/proc/task.h"

struct switch_info {
	struct task *other;  /* next when switching out, prev when in */
	uint16_t misc;
};

static void output_switch(struct perf_event *e, void *arg)
{
	const struct switch_info *si = arg;
	if (!e->attr.context_switch)
		return;
	bool cpu_wide = e->task == NULL;
	struct {
		struct perf_event_header h;
		uint32_t next_prev_pid, next_prev_tid;
	} rec = { { cpu_wide ? PERF_RECORD_SWITCH_CPU_WIDE : PERF_RECORD_SWITCH, si->misc, 0 },
		  (uint32_t)si->other->tgid, (uint32_t)si->other->tid };
	uint32_t body = cpu_wide ? sizeof(rec) : sizeof(rec.h);
	rec.h.size = (uint16_t)(body + perf_sample_id_size(e));
	struct rb_output o;
	if (!perf_output_begin(&o, e, rec.h.size))
		return;
	rb_output_copy(&o, &rec, body);
	perf_put_sample_id(&o, e);
	perf_output_end(&o, e, false);
}

void perf_record_switch(struct task *prev, struct task *next, bool in)
{
	struct task *t = in ? next : prev;
	if (!__atomic_load_n(&perf_switch_events_seen, __ATOMIC_RELAXED))
		return;
	if (list_empty(&t->perf_events) && list_empty(perf_cpu_events(this_cpu_id())))
		return;
	struct switch_info si = { in ? prev : next, 0 };
	if (!in) {
		si.misc = PERF_RECORD_MISC_SWITCH_OUT;
		if (prev->state == TASK_RUNNABLE)
			si.misc |= PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
	}
	spin_lock(&perf_lock);
	perf_sb_iterate(t, output_switch, &si);
	spin_unlock(&perf_lock);
}

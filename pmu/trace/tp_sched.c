/*
 * The sched tracepoints' records (tp_records.h), built from the tasks
 * the hooks pass (trace.h). baremon has no priorities: every task shows
 * Linux's priority of a nice-0 task, 120.
 *
 * The tasks are stable while the hook runs: sched_switch and
 * sched_wakeup hold the run queue lock, fork runs before the child is
 * started, exec and exit run in the task itself.
 */
#include <string.h>
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "core/proc/task.h"
#include "tp_records.h"
#include "trace.h"

#define PRIO_NORMAL 120

/* A comm array as Linux copies it: the name, zero-padded. */
static void comm_copy(char dst[TP_COMM_LEN], const struct task *t)
{
	size_t n = strnlen(t->comm, TP_COMM_LEN - 1);
	memcpy(dst, t->comm, n);
	memset(dst + n, 0, TP_COMM_LEN - n);
}

/* Linux's __trace_sched_switch_state: the TASK_REPORT bit of the state
 * prev leaves in (0 = R, runnable). */
static int64_t report_state(const struct task *t)
{
	switch (t->state) {
	case TASK_SLEEPING: return 0x01;        /* S */
	case TASK_SLEEPING_UNINT: return 0x02;  /* D */
	case TASK_STOPPED: return 0x04;         /* T */
	case TASK_DEAD: return 0x10;            /* X: EXIT_DEAD */
	case TASK_ZOMBIE: return 0x20;          /* Z: EXIT_ZOMBIE */
	default: return 0;
	}
}

void tp_sched_switch(struct task *prev, struct task *next)
{
	struct tp_sched_switch r = { 0 };
	comm_copy(r.prev_comm, prev);
	r.prev_pid = prev->tid;
	r.prev_prio = PRIO_NORMAL;
	r.prev_state = report_state(prev);
	comm_copy(r.next_comm, next);
	r.next_pid = next->tid;
	r.next_prio = PRIO_NORMAL;
	tp_emit(TP_SCHED_SWITCH, &r, sizeof(r));
}

void tp_sched_wakeup(struct task *t)
{
	struct tp_sched_wakeup r = { 0 };
	comm_copy(r.comm, t);
	r.pid = t->tid;
	r.prio = PRIO_NORMAL;
	r.target_cpu = t->on_cpu;
	tp_emit(TP_SCHED_WAKEUP, &r, sizeof(r));
}

void tp_sched_process_fork(struct task *parent, struct task *child)
{
	union {
		struct tp_sched_process_fork r;
		char buf[sizeof(struct tp_sched_process_fork) + 2 * TP_COMM_LEN];
	} u = { 0 };
	uint32_t end = sizeof(u.r);
	u.r.parent_comm = tp_put_str(&u, &end, parent->comm, TP_COMM_LEN);
	u.r.parent_pid = parent->tid;
	u.r.child_comm = tp_put_str(&u, &end, child->comm, TP_COMM_LEN);
	u.r.child_pid = child->tid;
	tp_emit(TP_SCHED_PROCESS_FORK, &u, end);
}

/* filename may be a whole path (up to PATH_MAX): the record is
 * allocated; without memory the occurrence is lost. */
void tp_sched_process_exec(struct task *t, const char *filename, int old_pid)
{
	uint32_t max = (uint32_t)strnlen(filename, 4095) + 1;
	struct tp_sched_process_exec *r = kzalloc(sizeof(*r) + max);
	if (!r)
		return;
	uint32_t end = sizeof(*r);
	r->filename = tp_put_str(r, &end, filename, max);
	r->pid = t->tid;
	r->old_pid = old_pid;
	tp_emit(TP_SCHED_PROCESS_EXEC, r, end);
	kfree(r);
}

void tp_sched_process_exit(struct task *t, bool group_dead)
{
	struct tp_sched_process_exit r = { 0 };
	comm_copy(r.comm, t);
	r.pid = t->tid;
	r.prio = PRIO_NORMAL;
	r.group_dead = group_dead;
	tp_emit(TP_SCHED_PROCESS_EXIT, &r, sizeof(r));
}

/*
 * Kernel tracepoints: the places in the kernel that PERF_TYPE_TRACEPOINT
 * events count (pmu/tracepoint.c), each described by a tracefs format
 * file (/sys/kernel/tracing/events/<group>/<name>/format, pmu/tracefs.c)
 * whose layout the PERF_SAMPLE_RAW record follows (tp_records.h).
 *
 * A hook is one inline per tracepoint, trace_<name>(...), at the place
 * Linux has it. It costs one load and a not-taken branch while no event
 * of that tracepoint is on any CPU's counters (tp_active[id] == 0); else
 * it builds the record and tp_emit() reports it to the active events of
 * that id in the current task's context and this CPU's.
 *
 * Calling rules: a hook may run with interrupts on or off, from task
 * context or an interrupt handler, under the run queue lock (sched_switch,
 * sched_wakeup), never from an NMI, never with perf_lock held (tp_emit
 * takes it). A hook reached again from inside tp_emit on the same CPU
 * (perf_event_hit waking a task) is dropped, as Linux drops recursive
 * events.
 */
#ifndef BAREMON_PMU_TRACE_H
#define BAREMON_PMU_TRACE_H

#include <stdbool.h>
#include <stdint.h>

struct task;
struct trap_frame;

/* Tracepoints, in tracefs order. attr.config (the id file) is
 * TP_ID_BASE + this index; Linux's ids are dynamic, ours are fixed. */
enum tp_index {
	TP_SCHED_SWITCH,
	TP_SCHED_WAKEUP,
	TP_SCHED_PROCESS_FORK,
	TP_SCHED_PROCESS_EXEC,
	TP_SCHED_PROCESS_EXIT,
	TP_SYS_ENTER,
	TP_SYS_EXIT,
	TP_IRQ_HANDLER_ENTRY,
	TP_NR
};
#define TP_ID_BASE 300

/* Events of each tracepoint on some CPU's counters now (atomic; changed
 * by the PMU's add/del under perf_lock, read without it). */
extern int tp_active[TP_NR];

/* One compare with memory and a branch (a relaxed atomic load): the
 * whole cost of a hook while nothing listens. */
static inline bool tp_on(enum tp_index i)
{
	__asm__ goto("cmpl $0, %c0(%%rip)\n\tjne %l[on]" : : "i"(&tp_active[i]) : "cc" : on);
	return false;
on:
	return true;
}

/* Report one occurrence: rec (size bytes, a record of tp_records.h whose
 * common_* header tp_emit fills) to the active events of tracepoint i. */
void tp_emit(enum tp_index i, void *rec, uint32_t size);

/* The record builders (tp_sched.c, tp_sys.c): only called when tp_on. */
void tp_sched_switch(struct task *prev, struct task *next);
void tp_sched_wakeup(struct task *t);
void tp_sched_process_fork(struct task *parent, struct task *child);
void tp_sched_process_exec(struct task *t, const char *filename, int old_pid);
void tp_sched_process_exit(struct task *t, bool group_dead);
void tp_sys_enter(const struct trap_frame *f);
void tp_sys_exit(const struct trap_frame *f);
void tp_irq_handler_entry(int irq, const char *name);

/* schedule(): prev is about to give this CPU to next (rq lock held,
 * interrupts off, prev's events still counting). */
static inline void trace_sched_switch(struct task *prev, struct task *next)
{
	if (tp_on(TP_SCHED_SWITCH))
		tp_sched_switch(prev, next);
}

/* sched_wake(): t was sleeping and is runnable now (rq lock held). */
static inline void trace_sched_wakeup(struct task *t)
{
	if (tp_on(TP_SCHED_WAKEUP))
		tp_sched_wakeup(t);
}

/* clone/fork/vfork in the parent: child exists, not started yet. */
static inline void trace_sched_process_fork(struct task *parent, struct task *child)
{
	if (tp_on(TP_SCHED_PROCESS_FORK))
		tp_sched_process_fork(parent, child);
}

/* execve succeeded: t runs the new program (filename as given). */
static inline void trace_sched_process_exec(struct task *t, const char *filename,
					    int old_pid)
{
	if (tp_on(TP_SCHED_PROCESS_EXEC))
		tp_sched_process_exec(t, filename, old_pid);
}

/* A thread exits, before its perf events leave it. */
static inline void trace_sched_process_exit(struct task *t, bool group_dead)
{
	if (tp_on(TP_SCHED_PROCESS_EXIT))
		tp_sched_process_exit(t, group_dead);
}

/* System call entry (f: the user registers, the number in rax) and
 * exit (the result in rax; the number is the frame's, Linux's orig_ax:
 * -1 once rt_sigreturn made it no system call's). */
static inline void trace_sys_enter(const struct trap_frame *f)
{
	if (tp_on(TP_SYS_ENTER))
		tp_sys_enter(f);
}

static inline void trace_sys_exit(const struct trap_frame *f)
{
	if (tp_on(TP_SYS_EXIT))
		tp_sys_exit(f);
}

/* A device interrupt's handler is about to run. */
static inline void trace_irq_handler_entry(int irq, const char *name)
{
	if (tp_on(TP_IRQ_HANDLER_ENTRY))
		tp_irq_handler_entry(irq, name);
}

#endif

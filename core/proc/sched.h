/*
 * The scheduler: one run queue per CPU, round robin with a time slice,
 * preemption when an interrupt or system call returns to user mode.
 *
 * Locking: rq->lock (irqsave) protects a run queue and the state and
 * on_rq fields of the tasks assigned to that CPU. It is held across
 * context_switch and released by the task switched to (sched_finish).
 * A task only changes CPU while it is not running (sched_apply_affinity); once
 * queued on another CPU it is that CPU's, and may run, exit and be freed
 * at once: the CPU that handed it over does not touch it again.
 */
#ifndef BAREMON_SCHED_H
#define BAREMON_SCHED_H

#include <stdbool.h>
#include "task.h"

#define SLICE_TICKS 4   /* 40 ms at 100 Hz */
#define TICK_NS 10000000ULL  /* the scheduler tick: 100 Hz */

void sched_init_cpu(struct task *idle);   /* the calling context becomes idle */
/* Make a new task runnable on a CPU its affinity allows. */
void sched_start(struct task *t);
/* Wake a sleeping task (no effect on a runnable or dead one). */
void sched_wake(struct task *t);
/* sched_wake for a signal: t goes to the front of its CPU's queue and
 * the task running there reschedules, so the handler runs now, not once
 * that task's slice is over (Linux's wake-up preemption gives a task
 * that slept the CPU at once). A thread blocked in pthread_join beside
 * a spinning one took its signals at 13 a second before. */
void sched_wake_first(struct task *t);
/* Interrupt t if it is running on another CPU, so that it enters the
 * kernel and sees what was just made pending for it (a signal). */
void sched_kick_running(struct task *t);
/* This CPU's timers (hrtimer.h) and its tick, every TICK_NS while it
 * needs one (see tick_update). */
void sched_tick_start(void);
/* Called from the tick on each CPU. */
void sched_tick(void);
/* Something (perf rotation) needs this CPU's tick (see tick_update). */
void sched_want_tick(void);
/* Decide again whether this CPU's tick runs (something the decision
 * depends on changed: a CPU-time interval timer was armed). */
void sched_tick_recheck(void);
/* If a reschedule is due, switch now (only on the way back to user). */
void sched_preempt_point(void);
void sched_yield_now(void);
bool sched_need_resched(void);
void sched_idle_loop(void) __attribute__((noreturn));
/* From now on an idle CPU may stop its tick (see tick_update). */
void sched_allow_tickless_idle(void);
/* Move t to another allowed CPU when its affinity no longer allows its
 * current one (t may be the caller). */
void sched_apply_affinity(struct task *t);
unsigned sched_nr_running(unsigned cpu);
bool sched_cpu_isolated(unsigned cpu);
void sched_set_isolated(const struct cpumask *mask);
/* The CPUs online (bits only ever added, atomically, during boot). */
const struct cpumask *sched_online_mask(void);
bool sched_cpu_online(unsigned cpu);
void sched_set_cpu_online(unsigned cpu);

/* Where a new task starts in C (arch/switch.asm). */
void task_first_run(void);
#endif

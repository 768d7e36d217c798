/*
 * A process's CPU time (cputime.c): the sums of its threads, live and
 * exited, and of its reaped children, behind getrusage, times,
 * CLOCK_PROCESS_CPUTIME_ID and wait4's rusage; and the CPU-time interval
 * timers ITIMER_VIRTUAL (user time) and ITIMER_PROF (user + system).
 *
 * Every time here is in TSC ticks, as task.h's utime_tsc and stime_tsc.
 */
#ifndef BAREMON_CPUTIME_H
#define BAREMON_CPUTIME_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/resource.h>

struct task;

/* What getrusage reports, summed over tasks. */
struct cpu_usage {
	uint64_t utime_tsc, stime_tsc;
	uint64_t minflt, majflt, nvcsw, nivcsw;
};

/* One CPU-time interval timer (ITIMER_VIRTUAL or ITIMER_PROF). */
struct cpu_itimer {
	uint64_t expires;   /* the process's charged time to fire at; 0: off */
	uint64_t interval;  /* re-armed this far on; 0: one-shot */
	uint64_t interval_ns; /* as set, for getitimer (no TSC round trip) */
};

#define CPU_ITIMER_VIRT 0
#define CPU_ITIMER_PROF 1

/* The whole process of `leader`: its threads, live and exited. Takes
 * task_lock. */
void cputime_process(struct task *leader, struct cpu_usage *u);
/* A child process as its waiting parent sees it: its own sum and its
 * reaped children's (Linux's RUSAGE_BOTH). Caller holds task_lock. */
void cputime_of_child(struct task *child, struct cpu_usage *u);
/* The parent reaps `child`: its sums go into the parent's children
 * totals. Caller holds task_lock. */
void cputime_reap(struct task *parent_leader, struct task *child);
/* A thread other than the leader exits (task_lock held): its times go
 * into the leader's exited-threads sums. */
void cputime_thread_exit(struct task *t);

/* struct rusage from a sum (ru_maxrss is 0: no resident-set count). */
void cputime_to_rusage(const struct cpu_usage *u, struct rusage *ru);

/* The scheduler tick on a CPU running user task t (interrupts off):
 * charges t's new CPU time to its process's interval timers and sends
 * SIGVTALRM / SIGPROF for those that expired. */
void cputime_tick(struct task *t);
/* True when t's process has an interval timer armed: the tick stays on
 * for it (sched.c's tick_needed). Lockless read of one flag. */
bool cputime_wants_tick(const struct task *t);

/* getitimer/setitimer for ITIMER_VIRTUAL and ITIMER_PROF (which is
 * CPU_ITIMER_*); ns values, 0 = disarmed. */
void cpu_itimer_get(struct task *leader, int which, uint64_t *left_ns,
		    uint64_t *interval_ns);
void cpu_itimer_set(struct task *leader, int which, uint64_t value_ns,
		    uint64_t interval_ns);

#endif

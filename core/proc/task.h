/*
 * Tasks: the unit of scheduling. A user thread is a task with an address
 * space (mm); a process is the group of tasks sharing a tgid. Kernel
 * threads have mm == NULL.
 *
 * Locking: task_lock (tasks.c) protects the task table, parent/child
 * links, exit state and wait queues of children; a task's own fields are
 * written by that task except where a comment says otherwise.
 */
#ifndef BAREMON_TASK_H
#define BAREMON_TASK_H

#include <stdint.h>
#include <linux/resource.h>
#include "core/cpumask.h"
#include "core/list.h"
#include "core/arch/percpu.h"
#include "core/arch/trap.h"
#include "waitq.h"
#include "ptrace.h"
#include "cputime.h"
#include "caps.h"
#include "mempolicy.h"

#define TASK_COMM_LEN 16
#define KSTACK_SIZE (16 * 1024)

enum task_state {
	TASK_RUNNABLE,      /* on a run queue, or running */
	TASK_SLEEPING,      /* interruptible sleep */
	TASK_SLEEPING_UNINT,/* uninterruptible sleep */
	TASK_STOPPED,       /* SIGSTOP */
	TASK_ZOMBIE,        /* exited, waiting to be reaped */
	TASK_DEAD,          /* reaped; freed once off its CPU */
};

struct mm;
struct files;
struct fs_context;
struct signal_state;
struct ksiginfo;
struct hrtimer;

struct task {
	/* Scheduler (sched.c). ksp is valid only while switched out. */
	uint64_t ksp;
	uint64_t kstack;             /* base of the kernel stack (direct map) */
	volatile int state;          /* enum task_state */
	int on_cpu;                  /* CPU it runs on or is queued on */
	int migrate_to;              /* -1, or the CPU to move to at switch-out */
	struct cpumask affinity;     /* allowed CPUs */
	struct list run_node;        /* on its CPU's run queue */
	struct list all_node;        /* in the task list (task_lock) */
	bool unlisted;               /* out of it for good (task_lock) */
	int pins;                    /* users outside task_lock (atomic;
				      * tasks.h) */
	volatile bool switched_out;  /* off its CPU for good (zombie/dead) */
	uint64_t slice_end_tick;
	struct hrtimer *sleep_timer; /* schedule_until's, while armed: the
				      * task stays on its CPU (timers.c) */

	/* Identity. */
	int tid, tgid;
	int pgid, sid;
	char comm[TASK_COMM_LEN];
	uint32_t uid, euid, gid, egid;
	struct task_caps caps;       /* capget/capset's view (caps.h) */
	struct mempolicy mempolicy;  /* set_mempolicy's, the task's own */
	struct rlimit rlimits[RLIM_NLIMITS]; /* the leader's are the process's */

	/* Family (task_lock). */
	struct task *leader;         /* thread-group leader (self for leaders) */
	int nr_live;                 /* leader: threads not yet exited (atomic) */
	bool exit_reported;          /* leader: its last thread is done with it
				      * and told the parent, who may now reap
				      * it (task_lock). Not nr_live == 0: the
				      * last thread still uses the leader
				      * after that. */
	uint64_t child_events;       /* leader: bumped when a child changes state */
	int stop_sig;                /* leader: last stop, for WUNTRACED */
	bool stop_pending_report, cont_pending_report, stopped;
	struct task *vfork_parent;   /* CLONE_VFORK: released at exec/exit */
	volatile bool vfork_done;
	struct task *parent;         /* process leader of the parent */
	struct list children;        /* process leaders we are parent of */
	struct list sibling;
	struct list thread_node;     /* in the leader's thread list */
	struct list threads;         /* leader: all its threads */
	struct waitq child_exit;     /* woken when a child changes state */
	int exit_code;               /* wait status form */
	int exit_signal;             /* sent to the parent on exit (SIGCHLD) */
	uint64_t group_signal_seq;   /* leader: the last many-process signal
				      * that reached it (signal.c, task_lock) */

	/* Resources; may be shared between tasks (refcounted). */
	struct mm *mm;
	struct files *files;
	struct fs_context *fs;
	struct signal_state *sig;

	/* User-mode state. */
	struct trap_frame *frame;    /* saved user registers (syscall/trap) */
	unsigned long work;          /* TASK_WORK_* bits: the return to user
				      * mode takes the slow path (userret.c);
				      * set with atomics, by anyone */
	uint64_t fs_base, gs_base;
	uint8_t *fpu;                /* FXSAVE area, 512 bytes, 16-aligned */
	uint64_t clear_child_tid;    /* CLONE_CHILD_CLEARTID / set_tid_address */
	uint64_t robust_list, robust_len;
	uint64_t sigmask;            /* blocked signals (bit sig-1) */
	uint64_t sigpending;         /* pending signals (sig->lock) */
	struct ksiginfo *siginfo;    /* [NSIGNALS+1], per pending signal */
	uint64_t saved_sigmask;      /* sigsuspend: restored after the handler */
	bool restore_sigmask;
	uint64_t altstack_sp, altstack_size;
	int altstack_flags;
	uint64_t itimer_real_ns, itimer_real_interval_ns; /* deadline, 0 = off */
	struct list itimer_node;     /* leader: armed ITIMER_REAL (timers.c) */

	/* Accounting, in TSC ticks (userret.c): one RDTSC at each user/kernel
	 * boundary, converted to ns only when read (task_utime_ns). */
	uint64_t start_ns;
	uint64_t utime_tsc, stime_tsc;
	uint64_t acct_tsc;           /* when the current user/kernel span began
				      * (0: not yet in user mode) */
	uint64_t nvcsw, nivcsw;      /* voluntary / involuntary switches */
	/* The vpmu's own time taken from this task, which its RDTSC leaves
	 * out, and the TSC it reads at its latest kernel entry if the model
	 * saw that entry (pmu/vpmu/vtsc.c; written on the task's CPU with
	 * interrupts off). */
	uint64_t vpmu_tsc_hidden, vpmu_tsc_entry;
	bool vpmu_tsc_entry_valid;
	uint64_t minflt, majflt;
	/* Process sums and CPU-time interval timers (cputime.c says who
	 * writes what under which lock). The leader's: */
	struct cpu_usage exited_threads;   /* its threads that exited */
	struct cpu_usage reaped_children;  /* children it waited for */
	struct cpu_itimer cpu_itimer[2];   /* ITIMER_VIRTUAL, ITIMER_PROF */
	uint64_t cpu_charged[2];           /* user, user+system time charged */
	bool cpu_itimers_armed;            /* either timer armed */
	/* Each thread's: its own time already charged to cpu_charged[]. */
	uint64_t cpu_charge_base[2];

	/* ptrace (ptrace.h says who writes what). */
	struct ptrace_state pt;

	/* perf events (pmu/, under perf_lock). */
	struct list perf_events;     /* group leaders counting this task */
	struct list perf_owned;      /* events this task opened (prctl) */
	int perf_last_cpu;           /* for cpu-migrations */
	int perf_cpu;                /* CPU running it (switch-in to switch-out),
				      * -1; lockless, see pmu/events/ctx_sched.c */
	bool perf_ctx_in;            /* its events' context is on perf_cpu's
				      * counters (under perf_lock) */
};

/* Reasons for a task's return to user mode to take the full path
 * (return_to_user) rather than SYSRET's fast one; a hook that must run on
 * every return (ptrace's syscall-exit stop, say) sets its bit. */
#define TASK_WORK_TRACE   (1UL << 0)  /* syscall entry/exit stops (ptrace) */

/* CPU time in ns from the TSC tick sums. */
uint64_t task_utime_ns(const struct task *t);
uint64_t task_stime_ns(const struct task *t);

/* The task running on this CPU. */
static inline struct task *current_task(void)
{
	struct task *t;
	__asm__ volatile("mov %%gs:%c1, %0" : "=r"(t)
			 : "i"(offsetof(struct percpu, running)));
	return t;
}
#define current current_task()

/* Saved user registers of the current task (in a syscall or trap). */
static inline struct trap_frame *current_frame(void)
{
	return current->frame;
}

/* Look up a task by tid (NULL if none). Nothing keeps the task from
 * being reaped and freed once this returns: only a test for existence,
 * or a task that cannot be reaped meanwhile (the caller's own child
 * that has not run), may use it; the rest use task_find_pinned
 * (tasks.h). */
struct task *task_find(int tid);
/* A fresh login's limits (misc.c); the soft limit of the current
 * process. */
void rlimits_init(struct rlimit *r);
uint64_t rlimit_cur(unsigned res);
/* May the current task read target's state (Linux's ptrace_may_access,
 * real creds)? ptrace attach and perf's attach to a task use it. ids.c */
bool task_may_read(struct task *target);

#endif

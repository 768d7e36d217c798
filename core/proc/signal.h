/*
 * POSIX signals with Linux's x86-64 frames. Handlers and flags live in a
 * struct signal_state shared by the threads of a process (CLONE_SIGHAND);
 * pending sets and masks are per thread. Process-directed signals are
 * queued on one thread that does not block them (the leader if all do).
 *
 * Locking: sig->lock (irqsave) protects actions and every pending set and
 * siginfo record of the tasks sharing it. Delivery happens only on the
 * way back to user mode (userret.c), by the receiving thread itself.
 */
#ifndef BAREMON_SIGNAL_H
#define BAREMON_SIGNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <asm/signal.h>
#include <asm/siginfo.h>
#include "core/spinlock.h"
#include "core/arch/trap.h"

#define NSIGNALS 64
#define ERESTARTNOINTR 513   /* restart always, after any handler */
#define ERESTARTNOHAND 514   /* restart only when no handler ran */

struct task;

/* What the kernel keeps of a pending signal (siginfo fields we fill). */
struct ksiginfo {
	int signo, code, errno_;
	int pid;
	uint32_t uid;
	int status;
	uint64_t addr;
	int fd;
	long band;
	uint64_t value;              /* si_value; TRAP_PERF: si_perf_data */
	uint32_t perf_type, perf_flags;
	/* In a task's siginfo[sig] of a real-time signal: the instances
	 * queued behind it, oldest first (signal.c owns them). */
	struct ksiginfo *next;
};

struct signal_state {
	int refs;
	struct spinlock lock;
	struct sigaction action[NSIGNALS + 1];   /* 1-based, as signals are */
	bool group_exiting;                      /* exit_group or fatal signal */
	int group_exit_code;
	bool group_stopped;
	/* The thread in execve killing its siblings (exec.c), or NULL: a
	 * SIGKILL then ends only the thread that takes it, as Linux's
	 * group_exec_task. Set and cleared by that thread under lock. */
	struct task *exec_task;
};

struct signal_state *signal_state_new(void);
struct signal_state *signal_state_copy(struct signal_state *src);
void signal_state_put(struct signal_state *s);
/* Free the real-time signal instances queued on t (it is going away:
 * nobody sends to it any more). */
void signal_flush_queued(struct task *t);
/* execve: handled signals go back to SIG_DFL (ignored ones stay). */
void signal_reset_for_exec(struct signal_state *s);

/* Queue a signal for one thread / a process / every process in a group.
 * Return 0 or -ESRCH/-EINVAL. info may be NULL (SI_KERNEL). */
int signal_send_thread(struct task *t, const struct ksiginfo *info);
int signal_send_process(int tgid, const struct ksiginfo *info);
/* A signal to t's process that t takes if it can (not blocking it, not
 * exiting), another thread otherwise: Linux's complete_signal tries the
 * task it was sent through first (F_SETOWN with a thread's id). t is
 * pinned or the caller's own. */
int signal_send_process_via(struct task *t, const struct ksiginfo *info);
/* signal_send_thread in the shape process_for_each_thread wants. */
void signal_send_thread_cb(struct task *t, void *info);
void signal_send_pgrp(int pgid, int sig);
/* Held by a signal to many processes while it goes out, and by fork
 * while it links its child (see signal.c). */
uint64_t signal_group_lock(void);
void signal_group_unlock(uint64_t flags);
void signal_send_current(int sig);
/* A perf event's SIGTRAP (attr.sigtrap) for t, the task whose event
 * overflowed: si_code TRAP_PERF, si_addr addr, si_perf_data data,
 * si_perf_type type, si_perf_flags TRAP_PERF_FLAG_ASYNC when t blocks
 * SIGTRAP (it is then delivered later). t is running or switching out
 * on this CPU and is not woken: it takes the signal on its way back to
 * user mode (Linux's task_work). Takes only t->sig->lock, so it may be
 * called under perf_lock. */
void signal_send_perf(struct task *t, uint64_t addr, uint32_t type, uint64_t data);
/* A synchronous fault (SIGSEGV, SIGILL, ...): delivered even if blocked
 * or ignored (then it is fatal), like Linux's force_sig. */
void signal_force(int sig, int code, uint64_t addr);

bool signal_pending_current(void);
/* The current task is going to die: SIGKILL pending, or its thread group
 * exiting (Linux's fatal_signal_pending). A kernel loop whose length a
 * user chooses (long copies, page-by-page faults, pipe and socket
 * transfers with a peer that keeps up) checks it and ends early: the
 * task never sees the short count, and its SIGKILL acts at once. */
bool fatal_signal_pending(void);

/* signalfd (core/fs/signalfd.c), on the current thread's own pending
 * signals: take the lowest one in set (its number, 0 if none); whether
 * one is pending; sleep until one is (0) or another signal interrupts
 * (-ERESTARTSYS). */
int signal_dequeue_set(uint64_t set, struct ksiginfo *info);
bool signal_pending_in(uint64_t set);
long signal_wait_set(uint64_t set);
/* Deliver what is pending to `self` via frame f (userret.c calls it). */
void signal_deliver(struct trap_frame *f);
/* The user's siginfo_t for a signal the kernel kept as k. */
void signal_fill_siginfo(siginfo_t *si, const struct ksiginfo *k);
/* Wait status of a death by signal. */
bool signal_dumps_core(int sig);
const char *signal_name(int sig);

#endif

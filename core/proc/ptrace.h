/*
 * ptrace: one task (the tracee) stopped and inspected by another process
 * (the tracer), with Linux's requests, stops and wait statuses.
 *
 * A tracee only ever stops itself, in its own context: at a system
 * call's entry or exit, before a signal is delivered, at a fork, exec or
 * exit event, or when the tracer interrupts it. While stopped it sleeps
 * in ptrace_stop() until the tracer resumes it; only then may the tracer
 * read or write its registers (its trap frame and FPU area) and memory.
 *
 * Locking: task_lock protects every field of struct ptrace_state except
 * `options` and `flags`, which the tracer writes only while the tracee
 * is stopped (or before a new tracee first runs), and `info`, `status`
 * and `eventmsg`, which the tracee writes before it is marked stopped.
 */
#ifndef BAREMON_PTRACE_H
#define BAREMON_PTRACE_H

#include <stdbool.h>
#include <stdint.h>
#include "core/list.h"
#include "signal.h"
#include "core/arch/trap.h"

struct task;

/* ptrace_state.flags */
#define PT_SEIZED     0x1u  /* attached with PTRACE_SEIZE */
#define PT_SYSCALL    0x2u  /* PTRACE_SYSCALL: stop at entry and exit */
#define PT_STEP       0x4u  /* PTRACE_SINGLESTEP: trap after one insn */
#define PT_FORCED_TF  0x8u  /* the trap flag in the frame is ptrace's */

struct ptrace_state {
	struct task *tracer;     /* the tracing process's leader, or NULL */
	struct list node;        /* in tracer->pt.tracees */
	struct list tracees;     /* as a tracer's leader: the tasks it traces */
	unsigned flags;          /* PT_* */
	unsigned options;        /* PTRACE_O_* */
	bool stopped;            /* in a ptrace-stop until resumed */
	bool report;             /* a stop wait() has not reported yet */
	bool interrupt;          /* PTRACE_INTERRUPT (or a seized child's
				  * first stop) is due */
	int status;              /* the stop's wait status */
	int resume_sig;          /* the signal the tracer resumed it with */
	uint64_t eventmsg;       /* PTRACE_GETEVENTMSG */
	struct ksiginfo info;    /* PTRACE_GETSIGINFO */
};

/* A new task: not traced, tracing nothing (tasks.c). */
void ptrace_task_init(struct task *t);

/* ---- hooks in the system-call path, signals, fork, exec and exit ---- */

/* System-call entry with PT_SYSCALL: stop; true when the tracer
 * cancelled the call (orig_rax -1), whose result is then f->rax.
 * Otherwise f->rax holds the (possibly changed) call number again. */
bool ptrace_syscall_entry_stop(struct trap_frame *f);
void ptrace_syscall_exit_stop(struct trap_frame *f);
/* Signal-delivery-stop for the dequeued signal in *info: returns the
 * signal to deliver instead (0: none); rewrites *info if it changed. */
int ptrace_signal_stop(struct ksiginfo *info);
/* PTRACE_INTERRUPT's stop (PTRACE_EVENT_STOP), from signal delivery. */
void ptrace_interrupt_stop(void);
/* clone: attach the child c when the tracer follows this kind of clone,
 * before c first runs; then, after it started, the parent's event stop. */
bool ptrace_clone_attach(struct task *parent, struct task *c, uint64_t flags);
void ptrace_clone_event(uint64_t flags, int child_tid);
/* A successful execve. */
void ptrace_exec_event(void);
/* process_exit_thread: first the exit event stop (code in wait form);
 * later unlinking self as a tracee and, for the last thread of a
 * process, releasing the tasks it traces (killing them with EXITKILL). */
void ptrace_exit_event(int code);
void ptrace_exit_unlink(bool last);
/* wait: a ptrace-stop of a tracee of `me` matching (idtype, id); fills
 * *pid and *status (clearing the report unless WNOWAIT). Returns 1 if
 * found, 0 if me traces a matching task that has not stopped, -ECHILD
 * if none. Caller holds task_lock. */
int ptrace_wait_scan(struct task *me, int idtype, int id, int options,
		     int *pid, int *status);

/* Cheap tests for the hot paths. */
#define ptrace_traced(t) ((t)->pt.tracer != NULL)
#define ptrace_syscall_traced(t) (((t)->pt.flags & PT_SYSCALL) != 0)

#endif

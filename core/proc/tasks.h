/* Creating and finding tasks. See tasks.c. */
#ifndef BAREMON_TASKS_H
#define BAREMON_TASKS_H

#include "core/spinlock.h"
#include "task.h"

#define PID_MAX 32768
#define FPU_AREA_SIZE 512

extern struct spinlock task_lock;

/* A new task with a kernel stack and FPU area, a fresh tid, not runnable. */
struct task *task_alloc(const char *comm);
/* Take t out of the task list and wait until no one holds it pinned:
 * after this, nothing else can reach t (idempotent). */
void task_unlist(struct task *t);
/* A task off its CPU for good (a zombie): free its kernel stack and FPU
 * area now; the rest waits for task_free. */
void task_free_stack(struct task *t);
/* Unlist (if not done yet) and free t's memory. */
void task_free(struct task *t);
/*
 * Pins keep a task's memory (and its sig, siginfo) from being freed
 * while a sender uses it outside task_lock: task_find_pinned (or
 * task_pin under task_lock) then task_unpin, without sleeping between.
 */
struct task *task_find_pinned(int tid);
void task_pin(struct task *t);
void task_unpin(struct task *t);
/* Prepare the first switch into t: run fn(arg) in the kernel, or with
 * fn == NULL leave through the returned trap frame to user mode. */
struct trap_frame *task_prepare_stack(struct task *t, int (*fn)(void *), void *arg);
struct task *kthread_create(int (*fn)(void *), void *arg, const char *name);
void kthread_exit(int code) __attribute__((noreturn));
/* The idle task of `cpu`, wrapping the stack the CPU already runs on. */
struct task *task_create_idle(unsigned cpu, uint64_t stack_base);
int task_list_pids(int *out, int max);
/* Call fn for every task with task_lock held (fn must not sleep). */
void task_for_each(void (*fn)(struct task *t, void *ctx), void *ctx);

/* fpu.c */
void fpu_init_cpu(void);
void fpu_init_state(struct task *t);
void fpu_save(struct task *t);
void fpu_restore(struct task *t);
/* Save prev's user FPU/segment state and load next's; called by the
 * scheduler with interrupts off. */
void task_switch_user_state(struct task *prev, struct task *next);

#endif

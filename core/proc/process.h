/*
 * Processes: clone/fork, exit, wait, stop/continue. A process is the set
 * of tasks sharing a tgid; its leader (tid == tgid) carries the family
 * links and the exit status the parent collects.
 */
#ifndef BAREMON_PROCESS_H
#define BAREMON_PROCESS_H

#include "task.h"
#include "core/arch/trap.h"

/* The first user process (pid 1): runs `path` with argv. */
int process_spawn_init(const char *path, char *const argv[]);

void process_for_each_thread(struct task *leader,
			     void (*fn)(struct task *t, void *ctx), void *ctx);
/* End this thread (exit) or the whole process (exit_group), never return. */
/* clone's work (clone, clone3, fork, vfork): flags with the exit signal
 * in the low byte; the child's tid or -errno. upidfd: where
 * CLONE_PIDFD's descriptor goes. */
long process_clone(uint64_t flags, uint64_t newsp, uint64_t ptid,
		   uint64_t ctid, uint64_t tls, uint64_t upidfd);
/* A pidfd for process pid in the current descriptor table (pidfd.c):
 * the descriptor, or -errno. */
int pidfd_create(int pid, unsigned flags);
void process_exit_thread(int code) __attribute__((noreturn));
void process_exit_group_now(int code) __attribute__((noreturn));
/* Default action of a fatal signal: report and terminate the process. */
void process_die_by_signal(int sig, struct trap_frame *f) __attribute__((noreturn));
/* SIGSTOP & co: stop every thread and tell the parent. */
void process_stop(int sig);
void process_continue(struct task *t);
/* A zombie is off its CPU at last: a parent waiting for it may reap it. */
void process_zombie_switched_out(struct task *t);
/* May wait reap the process whose leader is t now? Its last thread is
 * gone, its parent was told and the zombie is off its CPU for good.
 * Under task_lock for a decision (wait); without it a hint that only
 * turns true (pidfd's poll). */
bool process_reapable(const struct task *t);
/* CLONE_VFORK: let the parent go on (at exec or exit). */
void process_release_vfork(struct task *t);
struct mm *task_mm_get(struct task *t); /* + reference; NULL if gone */

#endif

/*
 * The pid table: every listed task by tid, for O(1) lookup and
 * allocation whatever the number of tasks (pidtable.c).
 *
 * Locking: all of it under task_lock (tasks.c), which the caller holds.
 */
#ifndef BAREMON_PIDTABLE_H
#define BAREMON_PIDTABLE_H

#include <stdint.h>

struct task;

/* Linux's PID_MAX_LIMIT on 64-bit: the largest pid_max may be. */
#define PID_LIMIT (4 * 1024 * 1024)

/* A free tid below pid_max, taken by t; 0 when none is free (or no page
 * for the table). Tids are handed out in increasing order and wrap to
 * RESERVED_PIDS, as Linux's. */
int pid_table_alloc(struct task *t, int pid_max);
/* The task holding tid, or NULL. */
struct task *pid_table_get(int tid);
/* tid is free again. Returns a page of the table that emptied, for the
 * caller to give back with pmm_free_pages after dropping task_lock, or 0. */
uint64_t pid_table_remove(int tid);
/* The task with the smallest tid >= *tid, with *tid set to it; NULL
 * when there is none. Cost: the tids passed over, a leaf at a time
 * where the table has none. */
struct task *pid_table_next(int *tid);

#endif

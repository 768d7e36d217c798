/* The way back to user mode: preemption, signals, time accounting. */
#ifndef BAREMON_USERRET_H
#define BAREMON_USERRET_H

#include "task.h"
#include "arch/trap.h"

/* Called last before a trap or system call returns to user mode; returns
 * with interrupts off. May switch tasks and rewrite f for a signal. */
void return_to_user(struct trap_frame *f);
void account_user_to_kernel(struct task *t);

#endif

/* The way back to user mode: preemption, signals, time accounting. */
#ifndef BAREMON_USERRET_H
#define BAREMON_USERRET_H

#include "task.h"
#include "arch/trap.h"

/* Called last before a trap or system call returns to user mode; returns
 * with interrupts off. May switch tasks and rewrite f for a signal. */
void return_to_user(struct trap_frame *f);
void account_user_to_kernel(struct task *t);
/* The end of a system call: return_to_user's work when some is pending,
 * else only the accounting. Returns with interrupts off; true when f can
 * leave by SYSRET (syscall_entry.asm's fast path), false for IRETQ. */
bool syscall_return(struct trap_frame *f);

#endif

/* Kernel stack switching (switch.asm). */
#ifndef BAREMON_SWITCH_H
#define BAREMON_SWITCH_H

#include <stdint.h>

/* Save the callee-saved registers on the current stack, store its
 * pointer in *prev_ksp and resume the task whose stack is next_ksp.
 * Called by the scheduler with interrupts off. */
void context_switch(uint64_t *prev_ksp, uint64_t next_ksp);
/* Where a new task's first context_switch lands: calls task_first_run,
 * then returns to user mode or runs the kernel thread's function. */
void task_trampoline(void);

#endif

/*
 * Timed wake-ups on hrtimers (timers.c): sleeps with a deadline
 * (schedule_until, declared in waitq.h) and ITIMER_REAL.
 */
#ifndef BAREMON_TIMERS_H
#define BAREMON_TIMERS_H

#include <stdint.h>

struct task;

/* Once, on the boot CPU, before user space runs. */
void timers_init(void);
/* Arm (value_ns > 0, relative) or disarm (0) a process's ITIMER_REAL. */
void itimer_set_real(struct task *leader, uint64_t value_ns, uint64_t interval_ns);
/* Time left (0: disarmed) and the interval. */
void itimer_get_real(struct task *leader, uint64_t *left_ns, uint64_t *interval_ns);
/* The process is exiting: disarm. */
void itimer_forget(struct task *leader);

#endif

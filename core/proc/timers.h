/*
 * Timed wake-ups on hrtimers (timers.c): sleeps with a deadline
 * (schedule_until, declared in waitq.h) and ITIMER_REAL.
 */
#ifndef BAREMON_TIMERS_H
#define BAREMON_TIMERS_H

#include <stdint.h>
#include "core/list.h"

struct task;

/*
 * A kernel timer that may be armed and disarmed from any CPU (timerfd):
 * like the interval timers, all hang off one hrtimer on the boot CPU.
 * fn runs there at or after deadline_ns (time_since_boot_ns), with
 * interrupts off and ktimer_lock held: it must not arm or disarm
 * timers, and may take only locks no holder of which arms one (waitq
 * and poll wake-ups are fine). It returns the next deadline, 0 to stay
 * disarmed. After ktimer_disarm returns, fn is not running and will not
 * run until armed again.
 */
struct ktimer {
	uint64_t deadline_ns;    /* 0: not armed; under ktimer_lock */
	uint64_t (*fn)(struct ktimer *k, uint64_t now_ns);
	struct list node;        /* in the armed list while armed */
};
void ktimer_init(struct ktimer *k, uint64_t (*fn)(struct ktimer *, uint64_t));
void ktimer_arm(struct ktimer *k, uint64_t deadline_ns);
void ktimer_disarm(struct ktimer *k);

/* Once, on the boot CPU, before user space runs. */
void timers_init(void);
/* Arm (value_ns > 0, relative) or disarm (0) a process's ITIMER_REAL. */
void itimer_set_real(struct task *leader, uint64_t value_ns, uint64_t interval_ns);
/* Time left (0: disarmed) and the interval. */
void itimer_get_real(struct task *leader, uint64_t *left_ns, uint64_t *interval_ns);
/* The process is exiting: disarm. */
void itimer_forget(struct task *leader);

#endif

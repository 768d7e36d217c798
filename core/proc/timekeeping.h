/*
 * Clocks and sleeping. All kernel time is TSC nanoseconds since the
 * loader's hand-off ("boot"); wall-clock time adds the CMOS RTC reading
 * taken at boot. Timed sleeps and interval timers are hrtimers (timers.h):
 * they end at their deadline, not on the next tick.
 */
#ifndef BAREMON_TIMEKEEPING_H
#define BAREMON_TIMEKEEPING_H

#include <stdbool.h>
#include <stdint.h>

/* Linux clock ids (<linux/time.h>), named here to avoid libc clashes. */
#define CLOCK_REALTIME_ID  0
#define CLOCK_MONOTONIC_ID 1
#define CLOCK_PROCESS_CPUTIME 2
#define CLOCK_THREAD_CPUTIME 3
#define CLOCK_MONOTONIC_RAW_ID 4
#define CLOCK_REALTIME_COARSE_ID 5
#define CLOCK_MONOTONIC_COARSE_ID 6
#define CLOCK_BOOTTIME_ID 7
#define CLOCK_REALTIME_ALARM_ID 8
#define CLOCK_BOOTTIME_ALARM_ID 9
#define CLOCK_TAI_ID 11

void timekeeping_init(void);           /* read the RTC */
uint64_t realtime_ns(void);
/* Realtime at boot (realtime_ns = this + time_since_boot_ns), for the
 * vDSO's data page. */
uint64_t realtime_epoch_ns(void);
#define TAI_OFFSET_NS (37ULL * 1000000000ULL) /* CLOCK_TAI - CLOCK_REALTIME */
/* Current value of a clock; -EINVAL when the id is not supported. */
int clock_now(int clock, uint64_t *ns);
/* Boot-relative deadline for an absolute time on `clock` (0 if past). */
uint64_t clock_to_boot_ns(int clock, uint64_t abs_ns);
/* Called on every tick of the boot CPU (the poll hook below). */
void timers_tick(void);
/* Something to run on every boot-CPU tick (console polling without an
 * interrupt route). */
void timers_set_poll_hook(void (*fn)(void));

struct task;
/* Cancel a dying process's interval timers (process exit). */
void itimer_forget(struct task *leader);
#endif

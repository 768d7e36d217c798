/*
 * time.h: clocks and sleeping (libc-lite, user programs).
 * struct timespec and CLOCK_* come from <linux/time.h>.
 * There is no calendar (struct tm, localtime, strftime).
 */
#ifndef LIBC_LITE_TIME_H
#define LIBC_LITE_TIME_H

#include <sys/types.h>
#include <linux/time.h>

int clock_gettime(clockid_t clock, struct timespec *ts);
int clock_getres(clockid_t clock, struct timespec *res);

/* Sleeps at least *req; on EINTR stores the time left in *rem. */
int nanosleep(const struct timespec *req, struct timespec *rem);

/* Seconds since the epoch (CLOCK_REALTIME); also stored in *t if not NULL. */
time_t time(time_t *t);

#endif

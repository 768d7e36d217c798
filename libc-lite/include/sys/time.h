/*
 * sys/time.h: gettimeofday and interval timers (libc-lite, user
 * programs). struct timeval, struct itimerval and ITIMER_* come from
 * <linux/time.h>.
 */
#ifndef LIBC_LITE_SYS_TIME_H
#define LIBC_LITE_SYS_TIME_H

#include <sys/types.h>
#include <linux/time.h>

/* tz, if not NULL, points to a struct timezone (obsolete; Linux fills it). */
int gettimeofday(struct timeval *restrict tv, void *restrict tz);

int getitimer(int which, struct itimerval *cur);
int setitimer(int which, const struct itimerval *restrict value,
              struct itimerval *restrict old);

#endif

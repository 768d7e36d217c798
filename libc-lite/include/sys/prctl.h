/*
 * sys/prctl.h: process controls (libc-lite, user programs).
 * PR_* come from <linux/prctl.h>.
 */
#ifndef LIBC_LITE_SYS_PRCTL_H
#define LIBC_LITE_SYS_PRCTL_H

#include <linux/prctl.h>

/* Up to four further arguments, each read as an unsigned long. */
int prctl(int option, ...);

#endif

/*
 * sys/random.h: getrandom (libc-lite, user programs).
 * GRND_* come from <linux/random.h>.
 */
#ifndef LIBC_LITE_SYS_RANDOM_H
#define LIBC_LITE_SYS_RANDOM_H

#include <sys/types.h>
#include <linux/random.h>

ssize_t getrandom(void *buf, size_t len, unsigned flags);

#endif

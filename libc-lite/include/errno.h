/*
 * errno.h: error numbers (libc-lite, user programs).
 *
 * The numbers are Linux's (<asm/errno.h>). errno is a plain global, not a
 * per-thread location: libc-lite programs are single-threaded. A system
 * call wrapper that fails stores the kernel's error there and returns -1
 * (or MAP_FAILED, NULL: see each function); a successful call leaves errno
 * alone, as POSIX allows.
 */
#ifndef LIBC_LITE_ERRNO_H
#define LIBC_LITE_ERRNO_H

#include <asm/errno.h>

/* POSIX's name; Linux has one value for both (as glibc and musl say). */
#define ENOTSUP EOPNOTSUPP

extern int errno;

#endif

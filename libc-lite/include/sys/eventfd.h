/*
 * sys/eventfd.h: eventfd (libc-lite; the kernel's core/fs/eventfd.c uses
 * the flags too). Linux has no uapi header for them: its
 * include/linux/eventfd.h defines them from the uapi O_* values, as here.
 */
#ifndef LIBC_LITE_SYS_EVENTFD_H
#define LIBC_LITE_SYS_EVENTFD_H

#include <stdint.h>
#include <linux/fcntl.h>

#define EFD_SEMAPHORE (1 << 0)
#define EFD_CLOEXEC   O_CLOEXEC
#define EFD_NONBLOCK  O_NONBLOCK

typedef uint64_t eventfd_t;

int eventfd(unsigned int count, int flags);

#endif

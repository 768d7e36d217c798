/*
 * sys/signalfd.h: signalfd's record and flags (libc-lite), from Linux's
 * uapi header, as glibc's and musl's give them. Programs call it with
 * syscall(__NR_signalfd4, ...).
 */
#ifndef LIBC_LITE_SYS_SIGNALFD_H
#define LIBC_LITE_SYS_SIGNALFD_H

#include <linux/signalfd.h>

#endif

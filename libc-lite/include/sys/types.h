/*
 * sys/types.h: POSIX type names (libc-lite, user programs).
 *
 * Each is the kernel's own type from the uapi headers (__kernel_*), so a
 * value passes through a system call unchanged. dev_t, nlink_t, blksize_t
 * and blkcnt_t have no __kernel_ name; they are the widths struct stat
 * uses on x86-64 (<asm/stat.h>).
 */
#ifndef LIBC_LITE_SYS_TYPES_H
#define LIBC_LITE_SYS_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

typedef __kernel_ssize_t ssize_t;
typedef __kernel_off_t off_t;
typedef __kernel_pid_t pid_t;
typedef __kernel_uid32_t uid_t;
typedef __kernel_gid32_t gid_t;
typedef __kernel_mode_t mode_t;
typedef __kernel_ino_t ino_t;
typedef __kernel_old_time_t time_t;
typedef __kernel_suseconds_t suseconds_t;
typedef __kernel_clockid_t clockid_t;
typedef __kernel_clock_t clock_t;
typedef __kernel_timer_t timer_t;
typedef unsigned int useconds_t;
typedef unsigned long dev_t;
typedef unsigned long nlink_t;
typedef long blksize_t;
typedef long blkcnt_t;

#endif

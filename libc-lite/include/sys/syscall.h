/*
 * sys/syscall.h: system call numbers for syscall() (libc-lite, user
 * programs). __NR_* come from <asm/unistd.h>; bits/syscall_names.h gives
 * each the SYS_* name glibc and musl also provide (names only: every
 * SYS_x expands to __NR_x).
 */
#ifndef LIBC_LITE_SYS_SYSCALL_H
#define LIBC_LITE_SYS_SYSCALL_H

#include <asm/unistd.h>
#include <bits/syscall_names.h>

#endif

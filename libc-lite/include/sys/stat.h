/*
 * sys/stat.h: file status (libc-lite, user programs).
 *
 * struct stat is the kernel's x86-64 layout (<asm/stat.h>): times are the
 * fields st_atime/st_atime_nsec (and m, c), not struct timespec st_atim.
 * S_IF*, S_IS*() and permission bits come from <linux/stat.h>.
 */
#ifndef LIBC_LITE_SYS_STAT_H
#define LIBC_LITE_SYS_STAT_H

#include <sys/types.h>
#include <asm/stat.h>
#include <linux/stat.h>

int stat(const char *restrict path, struct stat *restrict st);
int fstat(int fd, struct stat *st);
int lstat(const char *restrict path, struct stat *restrict st);
int mkdir(const char *path, mode_t mode);
int chmod(const char *path, mode_t mode);
mode_t umask(mode_t mask);

#endif

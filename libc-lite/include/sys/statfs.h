/*
 * sys/statfs.h: statfs and fstatfs (libc-lite, user programs). struct
 * statfs is the kernel's, from <asm/statfs.h>; the f_type magic numbers
 * are in <linux/magic.h>.
 */
#ifndef LIBC_LITE_SYS_STATFS_H
#define LIBC_LITE_SYS_STATFS_H

#include <asm/statfs.h>

int statfs(const char *path, struct statfs *buf);
int fstatfs(int fd, struct statfs *buf);

#endif

/*
 * fcntl.h: opening files and file-descriptor control (libc-lite, user
 * programs). O_*, F_*, FD_CLOEXEC and AT_* come from <linux/fcntl.h>.
 */
#ifndef LIBC_LITE_FCNTL_H
#define LIBC_LITE_FCNTL_H

#include <sys/types.h>
#include <linux/fcntl.h>

/* The mode argument is read only with O_CREAT or O_TMPFILE. */
int open(const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...);
int creat(const char *path, mode_t mode);

/* The third argument, when the command takes one, is read as a long. */
int fcntl(int fd, int cmd, ...);

#endif

/*
 * sys/uio.h: scatter/gather I/O (libc-lite, user programs).
 * struct iovec comes from <linux/uio.h>.
 */
#ifndef LIBC_LITE_SYS_UIO_H
#define LIBC_LITE_SYS_UIO_H

#include <sys/types.h>
#include <linux/uio.h>

ssize_t readv(int fd, const struct iovec *iov, int n);
ssize_t writev(int fd, const struct iovec *iov, int n);

#endif

/*
 * sys/select.h: select (libc-lite, user programs). fd_set is the kernel's
 * __kernel_fd_set (<linux/posix_types.h>): FD_SETSIZE (1024) bits.
 */
#ifndef LIBC_LITE_SYS_SELECT_H
#define LIBC_LITE_SYS_SELECT_H

#include <sys/types.h>
#include <linux/posix_types.h>
#include <linux/time.h>

typedef __kernel_fd_set fd_set;

#define FD_SETSIZE __FD_SETSIZE
#define __FD_BITS (8 * sizeof(unsigned long))
#define FD_ZERO(s)  __builtin_memset((s), 0, sizeof(fd_set))
#define FD_SET(fd, s) \
	((s)->fds_bits[(fd) / __FD_BITS] |= 1UL << ((fd) % __FD_BITS))
#define FD_CLR(fd, s) \
	((s)->fds_bits[(fd) / __FD_BITS] &= ~(1UL << ((fd) % __FD_BITS)))
#define FD_ISSET(fd, s) \
	(((s)->fds_bits[(fd) / __FD_BITS] >> ((fd) % __FD_BITS)) & 1)

/* Linux updates *timeout with the time not slept. */
int select(int nfds, fd_set *restrict r, fd_set *restrict w,
           fd_set *restrict e, struct timeval *restrict timeout);

#endif

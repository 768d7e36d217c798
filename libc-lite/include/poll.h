/*
 * poll.h: waiting for file descriptors (libc-lite, user programs).
 * struct pollfd and POLL* come from <asm/poll.h>.
 */
#ifndef LIBC_LITE_POLL_H
#define LIBC_LITE_POLL_H

#include <asm/poll.h>

typedef unsigned long nfds_t;

/* timeout in milliseconds; negative waits forever. */
int poll(struct pollfd *fds, nfds_t n, int timeout);

#endif

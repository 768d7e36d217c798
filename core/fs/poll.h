/* poll/select internals shared by poll.c and select.c. */
#ifndef BAREMON_POLL_H
#define BAREMON_POLL_H

#include <linux/poll.h>
#include <linux/time_types.h>
#include "fs.h"

#define DEFAULT_POLLMASK (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM)

/* What f is ready for right now. (O_PATH descriptors count as closed
 * for poll and select, as on Linux.) */
unsigned file_poll(struct file *f);

/*
 * Run scan(ctx) until it returns non-zero (ready count or -errno), the
 * deadline (ns since boot; 0 = none) passes (returns 0), or a signal
 * arrives (-EINTR: poll and select are not restarted, since their
 * timeout would start again). nowait: scan once.
 */
long poll_wait_loop(long (*scan)(void *ctx), void *ctx, uint64_t deadline,
		    bool nowait);
long poll_fds(struct files *files, struct pollfd *fds, unsigned nfds,
	      uint64_t deadline, bool nowait);

/* A user timespec as a deadline: -EINVAL for a bad one. *nowait for a
 * zero timeout. */
int timespec_deadline(const struct __kernel_timespec *ts, uint64_t *deadline,
		      bool *nowait);
/* Write the time left until deadline back to the user's timespec. */
void timespec_remaining(struct __kernel_timespec *uts, uint64_t deadline);

/* ppoll/pselect6 signal masks: swap in *mask, then put the old one back
 * (after signal delivery if the call was interrupted). */
int sigmask_swap(const void *umask, size_t size, uint64_t *old, bool *swapped);
void sigmask_restore(uint64_t old, bool swapped, long result);

#endif

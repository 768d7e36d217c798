/*
 * Asynchronous I/O signals (O_ASYNC), as Linux's fasync: a file type
 * that can signal keeps a list of the open files that asked (its
 * file_ops.fasync calls fasync_helper), and calls kill_fasync when it
 * becomes ready; each file's owner (fcntl F_SETOWN / F_SETOWN_EX) then
 * gets SIGIO, or the F_SETSIG signal with si_code POLL_*, si_fd (the fd
 * O_ASYNC was turned on through) and si_band.
 *
 * Locking: fasync_lock (irqsave, fasync.c) guards every list and is held
 * while the signals go out, so a file on a list cannot be freed under
 * kill_fasync (release takes it off the list first). It is taken before
 * task_lock, sig->lock and the run-queue locks, never under them, nor
 * under perf_lock: perf defers its kill_fasync to perf_wakeup_pending().
 */
#ifndef BAREMON_FASYNC_H
#define BAREMON_FASYNC_H

#include <stdbool.h>

struct file;

struct fasync {
	struct fasync *next;
	struct file *file;
	int fd;
};

/* O_ASYNC turned on (on: add f with fd, or update its fd) or off (remove
 * f) on *list; sets or clears FASYNC in f->flags. 0 or -ENOMEM. May
 * sleep (allocates). */
int fasync_helper(int fd, struct file *f, bool on, struct fasync **list);
/* Signal the owner of every file on *list: sig is SIGIO (a file's
 * F_SETSIG choice overrides it), reason POLL_IN..POLL_HUP. Not under
 * perf_lock or any lock fasync_lock ranks before; any context. */
void kill_fasync(struct fasync **list, int sig, int reason);
/* Whether anything is on the list (a racy peek: a hint). */
static inline bool fasync_wanted(struct fasync *const *list)
{
	return __atomic_load_n(list, __ATOMIC_RELAXED) != 0;
}

/* fcntl's owner commands on f (F_SETOWN, F_GETOWN, F_SETOWN_EX,
 * F_GETOWN_EX), with Linux's errnos. */
long fasync_owner_fcntl(struct file *f, unsigned cmd, unsigned long arg);
/* F_SETFL's O_ASYNC part: call f's fasync op when the bit changes
 * (fd: the descriptor used). 0 or -errno; files without the op just
 * keep the flag. */
int fasync_setfl(struct file *f, int fd, bool on);
/* Last reference to f going: off every list. */
void fasync_release(struct file *f);

#endif

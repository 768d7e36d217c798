/*
 * select and pselect6 on top of the poll loop (poll.c). The descriptor
 * count is clamped to the table size, as on Linux; a set bit naming a
 * closed descriptor fails the call with EBADF.
 */
#include "core/mm/mm.h"
#include "poll.h"
#include "core/proc/syscall.h"
#include "core/proc/task.h"
#include "core/mm/uaccess.h"

#define POLLIN_SET (POLLRDNORM | POLLRDBAND | POLLIN | POLLHUP | POLLERR)
#define POLLOUT_SET (POLLWRBAND | POLLWRNORM | POLLOUT | POLLERR)
#define POLLEX_SET (POLLPRI)

#define WORDS(n) (((n) + 63) / 64)

struct select_scan {
	struct files *files;
	unsigned nfds;
	uint64_t *in[3];     /* requested: read, write, except (may be NULL) */
	uint64_t *out[3];    /* results */
};

static bool fd_bit(const uint64_t *set, unsigned fd)
{
	return set && (set[fd / 64] >> (fd % 64) & 1);
}

static long scan_one(struct select_scan *s, unsigned fd)
{
	static const unsigned want[3] = { POLLIN_SET, POLLOUT_SET, POLLEX_SET };
	bool asked[3] = { fd_bit(s->in[0], fd), fd_bit(s->in[1], fd),
			  fd_bit(s->in[2], fd) };
	if (!asked[0] && !asked[1] && !asked[2])
		return 0;
	struct file *f = fd_get(s->files, (int)fd);
	if (!f || (f->fmode & FMODE_PATH)) {
		file_put(f);
		return -EBADF;
	}
	unsigned m = file_poll(f);
	file_put(f);
	long n = 0;
	for (int k = 0; k < 3; k++) {
		if (asked[k] && (m & want[k])) {
			s->out[k][fd / 64] |= 1ULL << (fd % 64);
			n++;
		}
	}
	return n;
}

static long scan_sets(void *arg)
{
	struct select_scan *s = arg;
	for (int k = 0; k < 3; k++)
		memset(s->out[k], 0, WORDS(s->nfds) * 8);
	long total = 0;
	for (unsigned fd = 0; fd < s->nfds; fd++) {
		long n = scan_one(s, fd);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

/* Copy in the three sets (NULL pointers stay NULL). */
static int sets_in(struct select_scan *s, uint64_t *mem, const uint64_t *uptr[3])
{
	size_t w = WORDS(s->nfds);
	for (int k = 0; k < 3; k++) {
		s->out[k] = mem + (3 + k) * w;
		s->in[k] = NULL;
		if (!uptr[k])
			continue;
		s->in[k] = mem + k * w;
		if (copy_from_user(s->in[k], uptr[k], w * 8))
			return -EFAULT;
	}
	return 0;
}

static int sets_out(struct select_scan *s, uint64_t *uptr[3])
{
	for (int k = 0; k < 3; k++)
		if (uptr[k] && copy_to_user(uptr[k], s->out[k], WORDS(s->nfds) * 8))
			return -EFAULT;
	return 0;
}

static long do_select(int64_t nfds, uint64_t *usets[3], uint64_t deadline,
		      bool nowait)
{
	if (nfds < 0)
		return -EINVAL;
	struct select_scan s = {
		.files = current->files,
		.nfds = (unsigned)(nfds > MAX_FDS ? MAX_FDS : nfds),
	};
	uint64_t *mem = kzalloc(6 * WORDS(s.nfds) * 8 + 8);
	if (!mem)
		return -ENOMEM;
	long r = sets_in(&s, mem, (const uint64_t **)usets);
	if (!r)
		r = poll_wait_loop(scan_sets, &s, deadline, nowait);
	if (r >= 0 && sets_out(&s, usets))
		r = -EFAULT;
	kfree(mem);
	return r;
}

SYSCALL_DEFINE5(select, int, n, uint64_t __user *, inp, uint64_t __user *, outp,
		uint64_t __user *, exc, struct __kernel_old_timeval __user *, tvp)
{
	uint64_t *sets[3] = { inp, outp, exc };
	uint64_t deadline = 0;
	bool nowait = false;
	struct __kernel_old_timeval tv;
	if (tvp) {
		if (copy_from_user(&tv, tvp, sizeof(tv)))
			return -EFAULT;
		if (tv.tv_sec < 0 || tv.tv_usec < 0 || tv.tv_usec >= 1000000)
			return -EINVAL;
		struct __kernel_timespec ts = { tv.tv_sec, tv.tv_usec * 1000 };
		timespec_deadline(&ts, &deadline, &nowait);
	}
	long r = do_select(n, sets, deadline, nowait);
	if (tvp) {
		uint64_t now = vfs_time_ns(), left = deadline > now ? deadline - now : 0;
		tv.tv_sec = (long)(left / 1000000000);
		tv.tv_usec = (long)(left % 1000000000 / 1000);
		copy_to_user(tvp, &tv, sizeof(tv));
	}
	return r;
}

SYSCALL_DEFINE6(pselect6, int, n, uint64_t __user *, inp, uint64_t __user *, outp,
		uint64_t __user *, exc, struct __kernel_timespec __user *, tsp,
		const void __user *, sigp)
{
	uint64_t *sets[3] = { inp, outp, exc };
	uint64_t deadline = 0, old = 0;
	bool nowait = false, swapped = false;
	struct __kernel_timespec ts;
	if (tsp) {
		if (copy_from_user(&ts, tsp, sizeof(ts)))
			return -EFAULT;
		int e = timespec_deadline(&ts, &deadline, &nowait);
		if (e)
			return e;
	}
	struct { uint64_t set; uint64_t size; } sig = { 0, 0 };
	if (sigp && copy_from_user(&sig, sigp, sizeof(sig)))
		return -EFAULT;
	int e = sigmask_swap((void *)sig.set, sig.size, &old, &swapped);
	if (e)
		return e;
	long r = do_select(n, sets, deadline, nowait);
	sigmask_restore(old, swapped, r);
	if (tsp)
		timespec_remaining(tsp, deadline);
	return r;
}

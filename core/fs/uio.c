/*
 * uio: the buffers of one read or write, in user or kernel memory.
 * User copies go through core/mm/uaccess.h one page at a time, so a fault
 * part way through leaves an exact count of the bytes that did move
 * (read(2) then returns a short count, as on Linux). A task with a fatal
 * signal pending stops at the next page: however long the copy it asked
 * for, its SIGKILL acts within a page's work (then the count is short,
 * or -EINTR, which it never sees).
 */
#include <string.h>
#include "core/kernel.h"
#include "core/mm/uaccess.h"
#include "core/mm/usermm.h"
#include "core/proc/signal.h"
#include "core/proc/task.h"
#include "vfs.h"

void uio_init(struct uio *u, struct iovec *seg, void *buf, size_t n, bool user)
{
	seg->iov_base = buf;
	seg->iov_len = n;
	u->iov = seg;
	u->nseg = 1;
	u->seg_off = 0;
	u->resid = n;
	u->user = user;
}

/* The next contiguous piece of at most max bytes (not crossing a user
 * page); 0 when the uio is used up. */
static size_t uio_piece(struct uio *u, size_t max, char **where)
{
	while (u->nseg && u->seg_off == u->iov->iov_len) {
		u->iov++;
		u->nseg--;
		u->seg_off = 0;
	}
	if (!u->nseg || !max || !u->resid)
		return 0;
	char *p = (char *)u->iov->iov_base + u->seg_off;
	size_t n = u->iov->iov_len - u->seg_off;
	if (n > max)
		n = max;
	if (n > u->resid)
		n = u->resid;
	if (u->user) {
		size_t to_page = PAGE_SIZE - ((uintptr_t)p & (PAGE_SIZE - 1));
		if (n > to_page)
			n = to_page;
	}
	*where = p;
	return n;
}

static void uio_advance(struct uio *u, size_t n)
{
	u->seg_off += n;
	u->resid -= n;
}

/* op: 0 = copy out of src, 1 = copy into dst, 2 = zero. */
static long uio_move(struct uio *u, void *kbuf, size_t n, int op)
{
	size_t done = 0;
	char *p;
	size_t piece;
	while ((piece = uio_piece(u, n - done, &p)) != 0) {
		char *k = op == 2 ? NULL : (char *)kbuf + done;
		int r = 0;
		if (u->user && fatal_signal_pending())
			return done ? (long)done : -EINTR;
		if (!u->user) {
			if (op == 0)
				memcpy(p, k, piece);
			else if (op == 1)
				memcpy(k, p, piece);
			else
				memset(p, 0, piece);
		} else if (op == 0) {
			r = copy_to_user(p, k, piece);
		} else if (op == 1) {
			r = copy_from_user(k, p, piece);
		} else {
			r = clear_user(p, piece);
		}
		if (r)
			return done ? (long)done : -EFAULT;
		uio_advance(u, piece);
		done += piece;
	}
	return (long)done;
}

long uio_copy_out(struct uio *u, const void *src, size_t n)
{
	return uio_move(u, (void *)src, n, 0);
}

long uio_copy_in(struct uio *u, void *dst, size_t n)
{
	return uio_move(u, dst, n, 1);
}

long uio_zero(struct uio *u, size_t n)
{
	return uio_move(u, NULL, n, 2);
}

bool uio_user_ok(const struct uio *u)
{
	for (unsigned i = 0; u->user && i < u->nseg; i++)
		if (!user_range_ok((uint64_t)u->iov[i].iov_base, u->iov[i].iov_len))
			return false;
	return true;
}

void uio_clamp(struct uio *u, size_t max)
{
	if (u->resid > max)
		u->resid = max;
}

void uio_fault_in(const struct uio *u, size_t n)
{
	struct mm *mm = current ? current->mm : NULL;
	if (!u->user || !mm)
		return;
	size_t off = u->seg_off;
	for (unsigned i = 0; i < u->nseg && n; i++, off = 0) {
		uint64_t a = (uint64_t)u->iov[i].iov_base + off;
		size_t len = u->iov[i].iov_len - off;
		if (len > n)
			len = n;
		n -= len;
		for (uint64_t p = ALIGN_DOWN(a, PAGE_SIZE); len && (p < a || p - a < len);
		     p += PAGE_SIZE)
			if (fatal_signal_pending() || !mm_translate(mm, p, true))
				return; /* the copy stops here too */
	}
}

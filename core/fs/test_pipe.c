/* Self-tests: pipes, poll, descriptor tables. Nothing here blocks. */
#include <linux/poll.h>
#include "fstest.h"
#include "core/mm/mm.h"
#include "poll.h"
#include "core/proc/signal.h"
#include "core/proc/task.h"

static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 31 + (i >> 8));
}

/* Write n pattern bytes numbered from *next; returns the write result. */
static long put_pattern(struct file *w, size_t n, size_t *next)
{
	uint8_t *b = kmalloc(n);
	for (size_t i = 0; i < n; i++)
		b[i] = pattern(*next + i);
	long r = kernel_write(w, b, n);
	if (r > 0)
		*next += (size_t)r;
	kfree(b);
	return r;
}

/* Read n bytes and check they continue the pattern from *next. */
static bool get_pattern(struct file *r, size_t n, size_t *next)
{
	uint8_t *b = kmalloc(n);
	long got = kernel_read(r, b, n, 0);
	bool ok = got == (long)n;
	for (size_t i = 0; ok && i < n; i++)
		ok = b[i] == pattern(*next + i);
	*next += n;
	kfree(b);
	return ok;
}

SELFTEST(pipe_ring_wraps)
{
	fs_test_init();
	struct file *r, *w;
	if (pipe_create(&r, &w, O_NONBLOCK)) {
		ST_FAIL(t, "pipe_create");
		return;
	}
	size_t wn = 0, rn = 0;
	char c;
	ST_CHECK(t, kernel_read(r, &c, 1, 0) == -EAGAIN);
	ST_CHECK(t, put_pattern(w, 40000, &wn) == 40000);
	ST_CHECK(t, get_pattern(r, 30000, &rn));
	ST_CHECK(t, put_pattern(w, 50000, &wn) == 50000);    /* wraps the ring */
	ST_CHECK(t, get_pattern(r, 60000, &rn));
	ST_CHECK(t, put_pattern(w, 65536, &wn) == 65536);    /* exactly full */
	ST_CHECK(t, put_pattern(w, 1, &wn) == -EAGAIN);
	ST_CHECK(t, get_pattern(r, 100, &rn));
	ST_CHECK(t, put_pattern(w, 200, &wn) == -EAGAIN);    /* PIPE_BUF: all or nothing */
	ST_CHECK(t, put_pattern(w, 5000, &wn) == 100);        /* larger: partial */
	ST_CHECK(t, get_pattern(r, 65536, &rn));
	ST_CHECK(t, kernel_read(r, &c, 1, 0) == -EAGAIN);
	ST_CHECK(t, kernel_read(w, &c, 1, 0) == -EBADF);
	ST_CHECK(t, kernel_write(r, "x", 1) == -EBADF);
	struct iovec seg;
	struct uio u;
	uint64_t at = 5;
	uio_init(&u, &seg, &c, 1, false);
	ST_CHECK(t, vfs_read(r, &u, &at) == -ESPIPE);
	file_put(w);
	ST_CHECK(t, kernel_read(r, &c, 1, 0) == 0);           /* EOF */
	file_put(r);
}

/* The write to a pipe with no reader sent the caller SIGPIPE: take it
 * back, or the tests after this one run with a fatal signal pending
 * (and fork refuses, as with any signal pending). */
static void drop_sigpipe(void)
{
	struct task *self = current;
	if (!self->sig)
		return;
	uint64_t f = spin_lock_irqsave(&self->sig->lock);
	self->sigpending &= ~(1ULL << (SIGPIPE - 1));
	spin_unlock_irqrestore(&self->sig->lock, f);
}

SELFTEST(pipe_broken_and_poll)
{
	fs_test_init();
	struct file *r, *w;
	if (pipe_create(&r, &w, 0)) {
		ST_FAIL(t, "pipe_create");
		return;
	}
	ST_CHECK(t, file_poll(r) == 0);
	ST_CHECK(t, file_poll(w) == (POLLOUT | POLLWRNORM));
	ST_CHECK(t, kernel_write(w, "abc", 3) == 3);
	ST_CHECK(t, file_poll(r) == (POLLIN | POLLRDNORM));
	struct stat a, b;
	file_stat(r, &a);
	file_stat(w, &b);
	ST_CHECK(t, S_ISFIFO(a.st_mode) && a.st_ino == b.st_ino);
	file_put(r);
	ST_CHECK(t, file_poll(w) & POLLERR);
	ST_CHECK(t, kernel_write(w, "d", 1) == -EPIPE);
	drop_sigpipe();
	file_put(w);
	ST_CHECK(t, pipe_create(&r, &w, O_NONBLOCK) == 0);
	file_put(w);
	ST_CHECK(t, file_poll(r) == POLLHUP);
	file_put(r);
}

SELFTEST(fd_table)
{
	fs_test_init();
	struct files *fs = files_new();
	struct file *r, *w;
	if (!fs || pipe_create(&r, &w, O_NONBLOCK)) {
		ST_FAIL(t, "setup");
		return;
	}
	ST_CHECK(t, fd_install(fs, r, 0) == 0);
	ST_CHECK(t, fd_install(fs, w, O_CLOEXEC) == 1);
	ST_CHECK(t, fd_get_cloexec(fs, 1) == 1 && fd_get_cloexec(fs, 0) == 0);
	ST_CHECK(t, fd_dup2(fs, 0, 5, false) == 5);
	ST_CHECK(t, fd_install_from(fs, w, 3, true) == 3 && (file_get(w), true));
	ST_CHECK(t, fd_close(fs, 2) == -EBADF && fd_close(fs, -1) == -EBADF);
	struct pollfd p[4] = { { 0, POLLIN, 0 }, { 1, POLLOUT, 0 },
			       { -1, POLLIN, 7 }, { 9, POLLIN, 0 } };
	ST_CHECK(t, poll_fds(fs, p, 4, 0, true) == 2);
	ST_CHECK(t, p[0].revents == 0 && p[1].revents == POLLOUT && p[2].revents == 0 &&
		    p[3].revents == POLLNVAL);
	struct files *copy = files_clone(fs);
	ST_CHECK(t, copy && fd_get_cloexec(copy, 1) == 1);
	files_close_on_exec(copy);
	ST_CHECK(t, fd_get_cloexec(copy, 1) == -EBADF && fd_get_cloexec(copy, 3) == -EBADF);
	ST_CHECK(t, fd_get_cloexec(copy, 5) == 0);
	files_put(copy);
	int n = 0;
	while (fd_install(fs, r, 0) >= 0 && (file_get(r), true))
		n++;
	ST_CHECK(t, n == MAX_FDS - 4);       /* 0, 1, 3, 5 were taken: EMFILE after */
	files_put(fs);                       /* closes everything, pipe freed */
}

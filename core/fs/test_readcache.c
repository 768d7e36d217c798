/* Self-tests: the quick read's one-entry cache in struct files
 * (fdtable.c empties it whenever its descriptor may change meaning). */
#include "fstest.h"

static int marker; /* stands for a perf event: the cache never looks inside */

/* Name descriptor fd in fs's cache. */
static void remember(struct files *fs, int fd)
{
	fs->read_fd = (uint32_t)fd;
	fs->read_event = &marker;
}

static bool cached(const struct files *fs, int fd)
{
	return fs->read_event == &marker && fs->read_fd == (uint32_t)fd;
}

SELFTEST(fd_read_cache)
{
	fs_test_init();
	struct files *fs = files_new();
	struct file *r, *w;
	if (!fs || pipe_create(&r, &w, O_NONBLOCK)) {
		ST_FAIL(t, "setup");
		return;
	}
	ST_CHECK(t, !fs->read_event); /* a new table's is empty */
	file_get(r); /* ours, for the second install of r below */
	ST_CHECK(t, fd_install(fs, r, 0) == 0 && fd_install(fs, w, O_CLOEXEC) == 1);
	ST_CHECK(t, fd_dup2(fs, 0, 2, false) == 2);
	remember(fs, 0);
	/* Other descriptors change: it stays. */
	ST_CHECK(t, fd_close(fs, 2) == 0 && cached(fs, 0));
	ST_CHECK(t, fd_dup2(fs, 1, 3, false) == 3 && cached(fs, 0));
	ST_CHECK(t, fd_close(fs, 9) == -EBADF && cached(fs, 0));
	/* Its own closes: gone. */
	ST_CHECK(t, fd_close(fs, 0) == 0 && !fs->read_event);
	/* dup2 (and dup3) onto it. */
	remember(fs, 3);
	ST_CHECK(t, fd_dup2(fs, 1, 3, true) == 3 && !fs->read_event);
	/* Its close-on-exec bit changes nothing it reads. */
	remember(fs, 1);
	ST_CHECK(t, fd_set_cloexec(fs, 1, true) == 0 && cached(fs, 1));
	/* Close-on-exec closes it; a table cloned at fork starts empty. */
	struct files *copy = files_clone(fs);
	ST_CHECK(t, copy && !copy->read_event);
	files_close_on_exec(fs);
	ST_CHECK(t, fd_get_cloexec(fs, 1) == -EBADF && !fs->read_event);
	/* Shared (CLONE_FILES): emptied, whatever it named. */
	ST_CHECK(t, fd_install(fs, r, 0) >= 0 && (file_get(r), true));
	remember(fs, 0);
	files_get(fs);
	ST_CHECK(t, !fs->read_event);
	files_put(fs);
	files_put(fs);
	if (copy)
		files_put(copy);
	file_put(r); /* ours */
}

/* Helpers for the file system self-tests (test_*.c in core/fs). */
#ifndef BAREMON_FSTEST_H
#define BAREMON_FSTEST_H

#include "fs.h"
#include "core/selftest.h"

/*
 * Until kmain calls vfs_init at boot, the first file system test mounts
 * everything itself (vfs_init does nothing the second time).
 */
static inline void fs_test_init(void)
{
	if (!vfs_ready())
		vfs_init();
}

/* Read the start of a file into buf as a string; bytes read or -errno. */
static inline long fs_test_read(const char *path, char *buf, size_t max)
{
	struct file *f;
	int r = vfs_open(path, O_RDONLY, 0, &f);
	if (r)
		return r;
	long n = kernel_read(f, buf, max - 1, 0);
	buf[n > 0 ? n : 0] = 0;
	file_put(f);
	return n;
}

/* Write s to a file opened with flags (O_WRONLY added); bytes or -errno. */
static inline long fs_test_write(const char *path, const char *s, int flags)
{
	struct file *f;
	int r = vfs_open(path, O_WRONLY | flags, 0644, &f);
	if (r)
		return r;
	long n = kernel_write(f, s, strlen(s));
	file_put(f);
	return n;
}

#endif

/*
 * Helpers for the file system calls (sys_*.c): user path strings, the
 * starting directory of *at calls, descriptors of the calling task.
 */
#ifndef BAREMON_FS_SYS_H
#define BAREMON_FS_SYS_H

#include "fs.h"
#include "core/proc/syscall.h"
#include "core/proc/task.h"
#include "core/mm/uaccess.h"

/*
 * Copy a path from user memory into a new PATH_MAX buffer. Errors:
 * -EFAULT, -ENAMETOOLONG (no NUL within PATH_MAX bytes), -ENOENT for ""
 * unless empty_ok. Free with kfree.
 */
char *user_path(uint64_t uptr, bool empty_ok, long *err);

/*
 * Where an *at call starts: NULL for the cwd (AT_FDCWD or an absolute
 * path), else start, filled from dirfd's file (reference taken; drop it
 * with at_end). -EBADF for a bad dirfd.
 */
int at_start(int dirfd, const char *path, struct path *start,
	     const struct path **sp);
void at_end(const struct path *sp);

/*
 * Resolve an *at path argument to *out (reference taken): with empty_ok
 * (AT_EMPTY_PATH) an empty path names dirfd itself (or the cwd).
 */
int resolve_at(int dirfd, uint64_t upath, bool empty_ok, bool follow,
	       struct path *out);

/* The calling task's descriptor fd (reference) or NULL. Like Linux, a
 * descriptor argument is an unsigned int: the upper register half is
 * ignored and "negative" values are simply too large. */
static inline struct file *task_file(uint64_t fd)
{
	return (uint32_t)fd > INT32_MAX ? NULL : fget((int)(uint32_t)fd);
}

/* The same, refusing O_PATH descriptors (for I/O). */
struct file *task_file_io(uint64_t fd);
/* task_file_io without a reference when the table is the caller's alone
 * (fd_get_light); give the file back with task_file_done. */
struct file *task_file_io_light(uint64_t fd, bool *ref);
static inline void task_file_done(struct file *f, bool ref)
{
	if (ref)
		file_put(f);
}

/* Copy and check a user iovec array of cnt entries as readv does (sys_rw.c):
 * *out is kmalloc'd (NULL for 0 entries); returns the total or -errno. */
long iov_in(uint64_t uiov, uint64_t cnt, struct iovec **out);

/* Install f (reference taken over) in the caller's table: fd or -EMFILE. */
int task_install(struct file *f, int flags);

#endif

/*
 * File descriptor tables. Locking: files->lock (irqsave) guards the
 * slots, close-on-exec bits and the lowest-free hint (next_fd: every
 * slot below it is in use; a slot emptied below it lowers it). A free
 * slot's close-on-exec bit is clear, so an install sets it only when
 * asked. A file leaving a slot is put only after
 * the lock is dropped (release may sleep), so every function collects
 * what it removed and puts it at the end.
 *
 * open(2) reserves its descriptor before it resolves the path (so a full
 * table gives EMFILE first, as on Linux): a reserved slot holds
 * FD_RESERVED, which reads as closed, except that dup2 onto it fails
 * with EBUSY.
 */
#include <linux/resource.h>
#include "fs.h"
#include "core/mm/mm.h"
#include "core/proc/task.h"

static struct file *real(struct file *f)
{
	return f == FD_RESERVED ? NULL : f;
}

struct files *files_new(void)
{
	struct files *fs = kzalloc(sizeof(*fs));
	if (!fs)
		return NULL;
	fs->refs = 1;
	fs->lock = (struct spinlock)SPINLOCK_INIT("files");
	return fs;
}

static void set_cloexec_locked(struct files *fs, int fd, bool on)
{
	uint64_t bit = 1ULL << (fd % 64);
	if (on)
		fs->cloexec[fd / 64] |= bit;
	else
		fs->cloexec[fd / 64] &= ~bit;
}

/* fd's slot was emptied: the search for a free one starts there. */
static void slot_freed_locked(struct files *fs, int fd)
{
	if (fd < fs->next_fd)
		fs->next_fd = fd;
}

static bool cloexec_locked(struct files *fs, int fd)
{
	return fs->cloexec[fd / 64] >> (fd % 64) & 1;
}

struct files *files_clone(struct files *src)
{
	struct files *fs = files_new();
	if (!fs)
		return NULL;
	uint64_t fl = spin_lock_irqsave(&src->lock);
	for (int i = 0; i < MAX_FDS; i++) {
		if (real(src->fd[i])) {
			fs->fd[i] = src->fd[i];
			file_get(fs->fd[i]);
			set_cloexec_locked(fs, i, cloexec_locked(src, i));
		}
	}
	spin_unlock_irqrestore(&src->lock, fl);
	return fs;
}

/* Shared, the table may change under another thread: the quick read's
 * cache is for a table of one task only (and the owner is the caller). */
void files_get(struct files *fs)
{
	files_read_forget(fs, -1);
	atomic_inc(&fs->refs);
}

void files_read_forget(struct files *fs, int fd)
{
	if (fd < 0 || fs->read_fd == (uint32_t)fd)
		__atomic_store_n(&fs->read_event, NULL, __ATOMIC_RELAXED);
}

void files_put(struct files *fs)
{
	if (!fs || atomic_dec(&fs->refs))
		return;
	for (int i = 0; i < MAX_FDS; i++)
		file_put(real(fs->fd[i]));
	kfree(fs);
}

void files_close_on_exec(struct files *fs)
{
	for (int i = 0; i < MAX_FDS; i++) {
		struct file *f = NULL;
		uint64_t fl = spin_lock_irqsave(&fs->lock);
		if (cloexec_locked(fs, i) && real(fs->fd[i])) {
			f = fs->fd[i];
			fs->fd[i] = NULL;
			set_cloexec_locked(fs, i, false);
			files_read_forget(fs, i);
			slot_freed_locked(fs, i);
		}
		spin_unlock_irqrestore(&fs->lock, fl);
		file_put(f);
	}
}

/* Descriptors below the caller's RLIMIT_NOFILE (at most MAX_FDS); the
 * kernel's own tasks (init's console before it is a process) have none. */
static int fd_limit(void)
{
	struct task *t = current;
	uint64_t lim = t && t->leader ? rlimit_cur(RLIMIT_NOFILE) : MAX_FDS;
	return lim < MAX_FDS ? (int)lim : MAX_FDS;
}

static int install_locked(struct files *fs, struct file *f, int min_fd,
			  bool cloexec)
{
	int limit = fd_limit();
	int from = min_fd > fs->next_fd ? min_fd : fs->next_fd;
	for (int i = from; i < limit; i++) {
		if (!fs->fd[i]) {
			fs->fd[i] = f;
			if (cloexec) /* a free slot's bit is clear already */
				set_cloexec_locked(fs, i, true);
			if (from == fs->next_fd) /* [from, i] now in use */
				fs->next_fd = i + 1;
			return i;
		}
	}
	return -EMFILE;
}

int fd_install_from(struct files *fs, struct file *f, int min_fd, bool cloexec)
{
	uint64_t fl = spin_lock_irqsave(&fs->lock);
	int fd = install_locked(fs, f, min_fd, cloexec);
	spin_unlock_irqrestore(&fs->lock, fl);
	return fd;
}

int fd_reserve(struct files *fs, bool cloexec)
{
	return fd_install_from(fs, FD_RESERVED, 0, cloexec);
}

/* Fill (f != NULL) or release (f == NULL) a reserved slot. */
void fd_commit(struct files *fs, int fd, struct file *f)
{
	uint64_t fl = spin_lock_irqsave(&fs->lock);
	BUG_ON(fs->fd[fd] != FD_RESERVED);
	fs->fd[fd] = f;
	if (!f) {
		set_cloexec_locked(fs, fd, false);
		slot_freed_locked(fs, fd);
	}
	spin_unlock_irqrestore(&fs->lock, fl);
}

int fd_install(struct files *fs, struct file *f, int flags)
{
	return fd_install_from(fs, f, 0, flags & O_CLOEXEC);
}

struct file *fd_get(struct files *fs, int fd)
{
	if (!fs || fd < 0 || fd >= MAX_FDS)
		return NULL;
	uint64_t fl = spin_lock_irqsave(&fs->lock);
	struct file *f = real(fs->fd[fd]);
	if (f)
		file_get(f);
	spin_unlock_irqrestore(&fs->lock, fl);
	return f;
}

struct file *fget(int fd)
{
	struct task *t = current;
	return t ? fd_get(t->files, fd) : NULL;
}

int fd_close(struct files *fs, int fd)
{
	if (fd < 0 || fd >= MAX_FDS)
		return -EBADF;
	uint64_t fl = spin_lock_irqsave(&fs->lock);
	struct file *f = real(fs->fd[fd]);
	if (f) {
		fs->fd[fd] = NULL;
		set_cloexec_locked(fs, fd, false);
		files_read_forget(fs, fd);
		slot_freed_locked(fs, fd);
	}
	spin_unlock_irqrestore(&fs->lock, fl);
	if (!f)
		return -EBADF;
	file_put(f);
	return 0;
}

int fd_get_cloexec(struct files *fs, int fd)
{
	if (fd < 0 || fd >= MAX_FDS)
		return -EBADF;
	uint64_t fl = spin_lock_irqsave(&fs->lock);
	int r = real(fs->fd[fd]) ? cloexec_locked(fs, fd) : -EBADF;
	spin_unlock_irqrestore(&fs->lock, fl);
	return r;
}

int fd_set_cloexec(struct files *fs, int fd, bool on)
{
	if (fd < 0 || fd >= MAX_FDS)
		return -EBADF;
	int r = -EBADF;
	uint64_t fl = spin_lock_irqsave(&fs->lock);
	if (real(fs->fd[fd])) {
		set_cloexec_locked(fs, fd, on);
		r = 0;
	}
	spin_unlock_irqrestore(&fs->lock, fl);
	return r;
}

int fd_dup2(struct files *fs, int oldfd, int newfd, bool cloexec)
{
	if (oldfd < 0 || oldfd >= MAX_FDS || newfd < 0 || newfd >= MAX_FDS)
		return -EBADF;
	struct file *old = NULL;
	int r = -EBADF;
	uint64_t fl = spin_lock_irqsave(&fs->lock);
	struct file *f = real(fs->fd[oldfd]);
	if (f && fs->fd[newfd] == FD_RESERVED) {
		r = -EBUSY;
	} else if (f) {
		file_get(f);
		old = fs->fd[newfd];
		fs->fd[newfd] = f;
		files_read_forget(fs, newfd);
		set_cloexec_locked(fs, newfd, cloexec);
		r = newfd;
	}
	spin_unlock_irqrestore(&fs->lock, fl);
	file_put(old);
	return r;
}

int files_open_console(struct files *fs)
{
	struct file *f;
	int r = vfs_open_in(NULL, "/dev/console", O_RDWR, 0, &f);
	if (r)
		return r;
	for (int i = 0; i < 3 && !r; i++) {
		file_get(f);
		int fd = fd_install(fs, f, 0);
		if (fd < 0)
			file_put(f);
		r = fd < 0 ? fd : fd != i ? -EBUSY : 0;
	}
	file_put(f);
	return r;
}

/* Helpers shared by the file system calls; see sys.h. */
#include "core/mm/mm.h"
#include "sys.h"

char *user_path(uint64_t uptr, bool empty_ok, long *err)
{
	char *buf = kmalloc(PATH_MAX);
	if (!buf) {
		*err = -ENOMEM;
		return NULL;
	}
	long n = strncpy_from_user(buf, (const char *)uptr, PATH_MAX);
	if (n == 0 && !empty_ok)
		n = -ENOENT;
	if (n < 0) {
		kfree(buf);
		*err = n;
		return NULL;
	}
	return buf;
}

int at_start(int dirfd, const char *path, struct path *start,
	     const struct path **sp)
{
	*sp = NULL;
	if (path[0] == '/' || dirfd == AT_FDCWD)
		return 0;
	struct file *f = task_file((uint64_t)(int64_t)dirfd);
	if (!f)
		return -EBADF;
	*start = f->path;
	path_get(start);
	file_put(f);
	*sp = start;
	return 0;
}

void at_end(const struct path *sp)
{
	if (sp)
		inode_put(sp->inode);
}

struct file *task_file_io(uint64_t fd)
{
	struct file *f = task_file(fd);
	if (f && (f->fmode & FMODE_PATH)) {
		file_put(f);
		return NULL;
	}
	return f;
}

struct file *task_file_io_light(uint64_t fd, bool *ref)
{
	*ref = false;
	struct file *f = (uint32_t)fd > INT32_MAX ? NULL
			 : fd_get_light(current->files, (int)(uint32_t)fd, ref);
	if (f && (f->fmode & FMODE_PATH)) {
		task_file_done(f, *ref);
		return NULL;
	}
	return f;
}

int task_install(struct file *f, int flags)
{
	return fd_install(current->files, f, flags);
}

static int empty_path(int dirfd, struct path *out)
{
	if (dirfd == AT_FDCWD) {
		struct path root;
		fs_paths(current->fs, &root, out);
		path_put(&root);
		return 0;
	}
	struct file *f = task_file((uint64_t)(int64_t)dirfd);
	if (!f)
		return -EBADF;
	*out = f->path;
	path_get(out);
	file_put(f);
	return 0;
}

int resolve_at(int dirfd, uint64_t upath, bool empty_ok, bool follow,
	       struct path *out)
{
	long err;
	char *path = user_path(upath, empty_ok, &err);
	if (!path)
		return (int)err;
	struct path start;
	const struct path *sp;
	int r;
	if (!*path) {
		r = empty_path(dirfd, out);
	} else if (!(r = at_start(dirfd, path, &start, &sp))) {
		r = path_walk(current->fs, sp, path, follow ? WALK_FOLLOW : 0, out);
		at_end(sp);
	}
	kfree(path);
	return r;
}

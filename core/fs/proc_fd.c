/*
 * What /proc/<pid>/fd and /proc/<pid>/task list: a task's open
 * descriptors and its process's threads, looked up afresh on every call
 * (procfs.c keeps only the pid). The descriptor table is reached through
 * a reference taken under task_lock (task_files_get), so it stays alive
 * while it is read even if the task exits meanwhile.
 */
#include <stdio.h>
#include "procfs.h"
#include "core/proc/task.h"
#include "core/proc/tasks.h"

/* A reference to the descriptor table of task pid, or NULL. */
static struct files *files_of(int pid)
{
	struct task *t = task_find_pinned(pid);
	if (!t)
		return NULL;
	struct files *fs = task_files_get(t);
	task_unpin(t);
	return fs;
}

int proc_fd_list(int pid, int *out, int max)
{
	struct files *fs = files_of(pid);
	if (!fs)
		return -ENOENT;
	int n = files_list_fds(fs, out, max);
	files_put(fs);
	return n;
}

bool proc_fd_open(int pid, int fd)
{
	struct files *fs = files_of(pid);
	struct file *f = fs ? fd_get(fs, fd) : NULL;
	files_put(fs);
	if (f)
		file_put(f);
	return f != NULL;
}

/* Linux names a descriptor's file by its path; baremon knows the path of
 * a directory (from the tree) and of a regular file opened by path
 * (file_path_name), not of other files, which read as Linux shows a file
 * without one: "anon_inode:[...]" or, in the tree, "KIND:[inode]" as for
 * pipes and sockets. */
static int file_link_text(struct file *f, char *buf, size_t max)
{
	const char *name = file_path_name(f);
	if (name) {
		int n = snprintf(buf, max, "%s%s", name, file_unlinked(f) ? " (deleted)" : "");
		return n < (int)max ? n : (int)max;
	}
	if (f->path.mnt && inode_is_dir(f->path.inode)) {
		long n = vfs_dir_path(NULL, &f->path, buf, max);
		if (n > 0)
			return (int)n - 1;
		if (n != -ERANGE)
			return (int)n;
	}
	char text[64];
	uint32_t type = f->path.inode->mode & S_IFMT;
	const char *kind = type == S_IFIFO ? "pipe" : type == S_IFSOCK ? "socket"
			   : type == S_IFCHR ? "chardev" : "file";
	int n = f->path.mnt ? snprintf(text, sizeof(text), "%s:[%llu]", kind,
				       (unsigned long long)f->path.inode->ino)
			    : snprintf(text, sizeof(text), "anon_inode:[%llu]",
				       (unsigned long long)f->path.inode->ino);
	if (max)
		memcpy(buf, text, (size_t)n < max ? (size_t)n : max);
	return n;
}

int proc_fd_link(int pid, int fd, char *buf, size_t max)
{
	struct files *fs = files_of(pid);
	struct file *f = fs ? fd_get(fs, fd) : NULL;
	files_put(fs);
	if (!f)
		return -ENOENT;
	int r = file_link_text(f, buf, max);
	file_put(f);
	return r;
}

int proc_thread_list(int pid, int *out, int max)
{
	struct task *t = task_find_pinned(pid);
	if (!t)
		return -ENOENT;
	int tgid = t->tgid;
	task_unpin(t);
	struct task *leader = task_find_pinned(tgid);
	if (!leader)
		return -ENOENT;
	int n = task_list_threads(leader, out, max);
	task_unpin(leader);
	return n;
}

/*
 * The virtual file system: open files, file descriptor tables, the
 * per-process root/cwd/umask, path names, and the file systems mounted at
 * boot (core/fs/):
 *
 *   /      the initrd (cpio newc), read-only
 *   /tmp   tmpfs, in memory
 *   /dev   devfs: console, tty, ttyS0, null, zero, full, random, urandom,
 *          cpu/N/{msr,cpuid}
 *   /proc  procfs: generated files, /proc/<pid>/, /proc/self, /proc/sys
 *   /sys   sysfs: generated files
 *
 * Everything follows Linux: struct layouts and constants come from the
 * uapi headers and errors are Linux's negative errno values.
 *
 * Reference counts: a struct file is counted (file_get/file_put); an fd
 * table slot holds one reference. struct files and struct fs_context are
 * counted too, so tasks can share them (CLONE_FILES, CLONE_FS).
 *
 * Paths passed to vfs_* functions are kernel strings, resolved against
 * the calling task's root and cwd, or against "/" when there is no
 * current task or it has no fs_context yet.
 */
#ifndef BAREMON_VFS_H
#define BAREMON_VFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <asm/stat.h>
#include <linux/errno.h>
#include <linux/fcntl.h>
#include <linux/limits.h>
#include <linux/stat.h>
#include <linux/uio.h>
#include "core/spinlock.h"
#include "core/proc/waitq.h"

struct task;
struct inode;
struct mount;

#define MAX_FDS 1024 /* RLIMIT_NOFILE, soft and hard */

/* ---- sleeping locks (sleeplock.c) ------------------------------------ */

/*
 * A lock whose holder may sleep (and copy to or from user memory). Taking
 * it never sleeps when it is free, so it also works before tasks exist.
 */
struct sleeplock {
	volatile uint32_t locked;
	struct waitq wq;
};
void sleeplock_init(struct sleeplock *l);
void sleep_lock(struct sleeplock *l);
void sleep_unlock(struct sleeplock *l);

/* ---- data moved by read and write (uio.c) ----------------------------- */

/*
 * A list of buffers, in user or kernel memory, that a read fills or a
 * write drains. Copies stop at the first inaccessible user page; the
 * copy functions return the bytes moved, or -EFAULT when none were.
 */
struct uio {
	const struct iovec *iov; /* remaining segments (kernel copy) */
	unsigned nseg;
	size_t seg_off;          /* bytes already used of iov[0] */
	size_t resid;            /* bytes left in all segments */
	bool user;               /* segments hold user addresses */
};
void uio_init(struct uio *u, struct iovec *seg, void *buf, size_t n, bool user);
long uio_copy_out(struct uio *u, const void *src, size_t n); /* into the uio */
long uio_copy_in(struct uio *u, void *dst, size_t n);        /* from the uio */
long uio_zero(struct uio *u, size_t n);
/* Shorten the uio to at most max bytes. */
void uio_clamp(struct uio *u, size_t max);
/* Fault in, for writing, the user pages the next n bytes of a read go
 * to, before the file system takes a lock that a fault there could
 * need (a lazy file mapping's page is read from its file, usermm.h);
 * stops at the first page it cannot map. */
void uio_fault_in(const struct uio *u, size_t n);
/* Every user segment lies in the user half (Linux's access_ok). */
bool uio_user_ok(const struct uio *u);

/* ---- open files (file.c) ---------------------------------------------- */

struct file;
struct dir_ctx;

/*
 * What a file does. read/write move bytes between the file and the uio
 * starting at *pos, advance *pos, and return the byte count or -errno
 * (for files without positions, pos may be ignored); they may sleep.
 * Any op may be NULL: read/write then fail with -EINVAL, lseek with
 * -ESPIPE (the file is a stream: pread/pwrite fail with -ESPIPE too),
 * ioctl with -ENOTTY; poll then reports readable and writable.
 *
 * lseek runs under pos_lock for FMODE_POS files. ioctl's arg is the raw
 * user value (copy through core/mm/uaccess.h). poll returns the readiness
 * now; a file whose readiness changes calls poll_wake_all(). release runs
 * once, when the last reference goes (never for O_PATH files or a failed
 * open).
 */
struct mm;

/* Kernel-internal (Linux's value): "not this way, take the general path";
 * never reaches user space. */
#define ENOIOCTLCMD 515

struct file_ops {
	long (*read)(struct file *f, struct uio *u, uint64_t *pos);
	long (*write)(struct file *f, struct uio *u, uint64_t *pos);
	int64_t (*lseek)(struct file *f, int64_t off, int whence);
	long (*ioctl)(struct file *f, unsigned cmd, uint64_t arg);
	unsigned (*poll)(struct file *f);      /* POLLIN, POLLOUT, ... now */
	int (*iterate)(struct file *f, struct dir_ctx *ctx); /* directories */
	void (*release)(struct file *f);       /* last reference dropped */
	/* mmap of [addr, addr+len) (page aligned, free or MAP_FIXED) with
	 * MAP_* flags: the driver checks and maps it (mm_map_shm). */
	int (*mmap)(struct file *f, struct mm *mm, uint64_t addr, uint64_t len,
		    int prot, int flags, uint64_t off);
	/* O_ASYNC turned on (through descriptor fd) or off (fd -1 when the
	 * file is released): fasync_helper on the object's list (fasync.h). */
	int (*fasync)(struct file *f, int fd, bool on);
	/* read(2) at no position straight into the user's buffer, for a file
	 * whose common case needs no uio (a perf counter); -ENOIOCTLCMD when
	 * this call is not that case and takes the usual path. */
	long (*read_direct)(struct file *f, uint64_t ubuf, size_t n);
};

#define FMODE_READ  1u
#define FMODE_WRITE 2u
#define FMODE_PATH  4u   /* O_PATH: a position in the tree, no I/O */
#define FMODE_POS   8u   /* pos is shared: reads/writes take pos_lock */
#define FMODE_ZERO_IO 16u /* read/write ops see 0-byte calls (perf: ENOSPC) */
#define FMODE_WCOUNT 32u  /* holds a write access to its inode (writecount) */
#define FMODE_DENYW  64u  /* holds its inode's writes off (an exec'd program) */

struct path {
	struct mount *mnt;
	struct inode *inode;
};

struct file {
	int refs;
	unsigned fmode;           /* FMODE_* */
	unsigned flags;           /* F_GETFL: access mode and status flags */
	uint64_t pos;             /* under pos_lock when FMODE_POS */
	struct sleeplock pos_lock;
	struct path path;         /* holds a reference to path.inode */
	const struct file_ops *ops;
	void *priv;               /* the ops' own state */
	/* F_SETOWN(_EX)/F_SETSIG: who gets SIGIO, set by whom (fasync.c);
	 * written under fasync_lock */
	int owner_type, owner_pid, owner_sig;
	uint32_t owner_uid, owner_euid;
	/* A regular file opened by path: the directory it was found in
	 * (held) and its name there, from which file_path_name builds its
	 * path once (then kept in pathname, set once, atomically). Not
	 * known (leaf NULL) for other files. */
	struct path leaf_dir;
	char *leaf;
	char *pathname;
};

/*
 * A file that is not in the tree (perf events, eventfds...): fstat shows
 * an anonymous inode with `mode` (0600 when 0). flags: O_RDONLY/O_WRONLY/
 * O_RDWR plus O_NONBLOCK. Returns NULL when out of memory.
 */
struct file *file_new_anon(const struct file_ops *ops, void *priv,
			   int flags, uint32_t mode);
void file_get(struct file *f);
void file_put(struct file *f);
/* Keep writes off f's inode while f lives (exec's file, which the
 * program's mappings hold): 0, or -ETXTBSY when it is open for writing. */
int file_deny_write(struct file *f);
/* The last file_put: give back what FMODE_WCOUNT/FMODE_DENYW hold. */
void file_put_access(struct file *f);

/*
 * read(2)/write(2) on an open file: at == NULL uses and moves the file
 * position (pread/pwrite pass one; -ESPIPE on streams). Checks the access
 * mode (-EBADF) and caps the length at MAX_RW_COUNT like Linux.
 */
#define MAX_RW_COUNT 0x7ffff000L
long vfs_read(struct file *f, struct uio *u, const uint64_t *at);
long vfs_write(struct file *f, struct uio *u, const uint64_t *at);

/* Read n bytes at off (f->pos is not used or moved): for exec. */
long kernel_read(struct file *f, void *buf, size_t n, uint64_t off);
/*
 * The path of f as Linux's d_path gives it (/proc/<pid>/maps, perf's
 * MMAP records): absolute, symlinks resolved, from where it was opened
 * (a later rename is not seen). NULL when not known: not a regular file
 * opened by path, its directory removed, or out of memory. The string
 * lives as long as f.
 */
const char *file_path_name(struct file *f);
/* Whether f's inode has lost its last name: Linux then shows its path
 * with " (deleted)". */
bool file_unlinked(const struct file *f);
/* The device and inode numbers stat shows for f. */
void file_ident(const struct file *f, uint32_t *dev, uint64_t *ino);

/* Write at the file position (or the end, O_APPEND), as write(2) does. */
long kernel_write(struct file *f, const void *buf, size_t n);
int file_size(struct file *f, uint64_t *size);
bool file_is_regular(struct file *f);
/* Regular file that the current task may execute. */
bool file_executable(struct file *f);
int file_stat(struct file *f, struct stat *st);
/* lseek for files with a size (regular files, generated files). */
int64_t generic_file_lseek(struct file *f, int64_t off, int whence,
			   uint64_t size);

/* ---- file descriptor tables (fdtable.c) --------------------------------- */

/*
 * struct files: one process's descriptors 0..MAX_FDS-1. Locking: lock
 * (irqsave) guards the slots and the close-on-exec bits; files are put
 * after it is dropped.
 */
/* A slot open(2) holds while it resolves its path: reads as closed. */
#define FD_RESERVED ((struct file *)1)

struct files {
	int refs;
	/* The quick read's cache (pmu/events/self_count_read.c): descriptor read_fd
	 * holds the file of the perf event read_event, or read_event is NULL.
	 * Filled by the table's only task (refs 1) with interrupts off;
	 * emptied (files_read_forget) whenever the slot may change meaning
	 * and when the table becomes shared (files_get, by that task). */
	uint32_t read_fd;
	void *read_event;
	struct spinlock lock;
	struct file *fd[MAX_FDS];
	uint64_t cloexec[MAX_FDS / 64];
	/* Every slot below next_fd is in use: installs search from there.
	 * Under lock. A free slot's close-on-exec bit is clear. */
	int next_fd;
};

struct files *files_new(void);
struct files *files_clone(struct files *src);   /* fork */
void files_get(struct files *fs);
void files_put(struct files *fs);                /* last put closes all */
void files_close_on_exec(struct files *fs);
/* Empty the quick read's cache if it names fd (-1: whatever it names). */
void files_read_forget(struct files *fs, int fd);
/* fd's file for the caller's use during its system call. A table that is
 * the caller's alone (refs 1: no thread shares it) changes only through
 * the caller, so the file is returned without a reference (*ref false),
 * as Linux's fdget; a shared table gives fd_get's reference (*ref true),
 * for file_put. NULL for a closed descriptor. */
struct file *fd_get(struct files *fs, int fd);
static inline struct file *fd_get_light(struct files *fs, int fd, bool *ref)
{
	*ref = false;
	if (!fs || fd < 0 || fd >= MAX_FDS)
		return NULL;
	if (__atomic_load_n(&fs->refs, __ATOMIC_ACQUIRE) != 1) {
		*ref = true;
		return fd_get(fs, fd);
	}
	struct file *f = fs->fd[fd];
	return f == FD_RESERVED ? NULL : f;
}
/* Open /dev/console read-write as fds 0, 1 and 2 of an empty table. */
int files_open_console(struct files *fs);
/*
 * Put f at the lowest free descriptor; the table takes over the caller's
 * reference. flags: O_CLOEXEC or 0. Returns the fd or -EMFILE (the
 * reference then stays with the caller).
 */
int fd_install(struct files *fs, struct file *f, int flags);
/* Install at the lowest free descriptor >= min_fd. */
int fd_install_from(struct files *fs, struct file *f, int min_fd, bool cloexec);
/* The open descriptors, ascending, at most max in out: the count. */
int files_list_fds(struct files *fs, int *out, int max);
/* The file at fd with a new reference, or NULL. */
struct file *fd_get(struct files *fs, int fd);
/* The same for the current task's table. */
struct file *fget(int fd);
int fd_close(struct files *fs, int fd);
int fd_get_cloexec(struct files *fs, int fd);   /* 0/1 or -EBADF */
int fd_set_cloexec(struct files *fs, int fd, bool on);
/* dup2/dup3 core: newfd takes a reference to oldfd's file. */
int fd_dup2(struct files *fs, int oldfd, int newfd, bool cloexec);

/* ---- root, cwd and umask (fs_context.c) --------------------------------- */

struct fs_context {
	int refs;
	struct spinlock lock;    /* guards root and cwd changes */
	struct path root, cwd;   /* each holds an inode reference */
	unsigned umask;
};

struct fs_context *fs_new_root(void);   /* root = cwd = "/", umask 022 */
struct fs_context *fs_clone(struct fs_context *src);
void fs_get(struct fs_context *fs);
void fs_put(struct fs_context *fs);

/* ---- kernel-level file operations (open.c, namei.c, dirops.c) ---------- */

/* fs == NULL: the current task's (or "/"). */
int vfs_open(const char *path, int flags, int mode, struct file **out);
int vfs_open_in(struct fs_context *fs, const char *path, int flags, int mode,
		struct file **out);
int vfs_stat(const char *path, struct stat *st, bool follow);
int vfs_mkdir(const char *path, int mode);
int vfs_rmdir(const char *path);
int vfs_unlink(const char *path);
int vfs_rename(const char *from, const char *to);
int vfs_truncate(const char *path, int64_t len);
int vfs_readlink(const char *path, char *buf, size_t max);
int vfs_chdir(struct fs_context *fs, const char *path);
/* Length including the NUL, -ERANGE if it does not fit, -ENOENT if the
 * cwd was removed. */
long vfs_getcwd(struct fs_context *fs, char *buf, size_t size);
/* The same for directory dir (a path in the tree): -ENOTDIR otherwise. */
long vfs_dir_path(struct fs_context *fs, const struct path *dir, char *buf,
		  size_t size);

/*
 * Directory listing: fn is called for each entry from the file position
 * on; returning false stops (that entry is not consumed). type is DT_*;
 * next is the position just after the entry (getdents' d_off).
 * Returns 0 or -errno (-ENOTDIR for other files).
 */
typedef bool (*dir_emit_fn)(void *ctx, const char *name, size_t len,
			    uint64_t ino, unsigned type, uint64_t next);
int vfs_readdir(struct file *f, dir_emit_fn fn, void *ctx);

/* Mount everything (once, after initrd_init; later calls do nothing). */
void vfs_init(void);
bool vfs_ready(void);

/* File time stamps and poll/select deadlines: ns since boot (monotonic;
 * file times are not wall-clock times). */
uint64_t vfs_time_ns(void);

/* ---- readiness for poll/select (poll.c) --------------------------------- */

/*
 * Any file whose poll() result may have changed calls this (pipes, the
 * tty, perf events...). Pollers sleep on one queue and re-scan. Safe from
 * interrupt handlers.
 */
void poll_wake_all(void);

/* ---- generated files: /proc and /sys (genfs.c, seqbuf.c) ---------------- */

/* A growing text buffer for generated file contents. */
struct seqbuf {
	char *buf;
	size_t len, cap;
	int err;         /* -ENOMEM once an append failed */
};
void sb_printf(struct seqbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_write(struct seqbuf *sb, const void *p, size_t n);
/* Make room for n more bytes; returns the free space (0 on failure). */
size_t sb_reserve(struct seqbuf *sb, size_t n);

/*
 * gen fills out when the file is opened (readers see that snapshot);
 * write gets one write(2)'s bytes (at most a page, NUL-terminated copy)
 * and returns 0 (all taken), the number of bytes it took (a short write,
 * as /proc/sys takes one value of "1 2"), or -errno (-EINVAL for
 * garbage). write == NULL makes the
 * file read-only (mode 0444, else 0644).
 */
typedef int (*gen_fn)(struct seqbuf *out, void *arg);
typedef int (*write_fn)(const char *data, size_t len, void *arg);
struct task_res;
/* A /proc/<pid> file from the task itself: t is pinned (proc/tasks.h)
 * while it runs, so it must not sleep (kmalloc does not). */
typedef int (*task_gen_fn)(struct seqbuf *out, struct task *t,
			   const struct task_res *r);
/* One from references the task held (task_res): may sleep. */
typedef int (*res_gen_fn)(struct seqbuf *out, const struct task_res *r);
/* Symlink target from a task's references (e.g. exe): length or -errno. */
typedef int (*res_link_fn)(const struct task_res *r, char *buf, size_t max);

/* path is relative to /proc (or /sys); missing directories are made.
 * Returns 0, -EEXIST or -ENOMEM. Usable before vfs_init. */
int procfs_register(const char *path, gen_fn gen, write_fn write, void *arg);
int procfs_mkdir(const char *path);
int procfs_register_task_file(const char *name, task_gen_fn gen);
int procfs_register_res_file(const char *name, res_gen_fn gen);
int procfs_register_res_link(const char *name, res_link_fn link);
int sysfs_register(const char *path, gen_fn gen, write_fn write, void *arg);
int sysfs_mkdir(const char *path);
/* A read-only file reading as s plus a newline (s is kept, not copied). */
int sysfs_register_string(const char *path, const char *s);
/* cpuN/topology/ for each online CPU: call once the CPUs are up. */
void sysfs_topology_init(void);
/* node/ and nodeN/ for each NUMA node (sysfs_node.c): the same time. */
void sysfs_node_init(void);

/* /proc/sys values other subsystems read. */
int sysctl_perf_event_paranoid(void);
int sysctl_perf_event_max_sample_rate(void);
int sysctl_perf_event_mlock_kb(void);
int sysctl_perf_event_max_stack(void);
int sysctl_perf_event_max_contexts_per_stack(void);
int sysctl_perf_cpu_time_max_percent(void);
int sysctl_kptr_restrict(void);
int sysctl_pid_max(void);
/* Whether exec randomises the base of an ET_DYN program (not 0). */
int sysctl_randomize_va_space(void);
void sysctl_hostname(char *buf, size_t size);     /* uname nodename */
void sysctl_domainname(char *buf, size_t size);
#define SYSCTL_OSTYPE    "Linux"
#define SYSCTL_OSRELEASE "6.1.0-baremon"

/* ---- the console terminal (n_tty.c, tty.c) ------------------------------- */

/* A byte received on the console UART: from the receive interrupt or a
 * polling loop. Runs the line discipline (echo, editing, ^C -> SIGINT). */
void console_input_byte(char c);
/* Feed every byte serial_getc() has waiting into console_input_byte. */
void console_poll_serial(void);
/* The foreground process group of the console (TIOCSPGRP does the same). */
void console_set_foreground(int pgid);

/* ---- random numbers (random.c) ------------------------------------------ */

void random_bytes(void *buf, size_t n);
void random_mix(const void *buf, size_t n);

/* ---- provided by the task/signal code (the lead's files) ---------------- */

/* Send sig to every process in group pgid; may be called from an
 * interrupt handler (console_input_byte). */
void signal_send_pgrp(int pgid, int sig);
/* Send sig to the current thread (SIGPIPE on a broken pipe). */
void signal_send_current(int sig);
/*
 * ppoll/pselect6 ran with a temporary signal mask and were interrupted:
 * restore `old` only after the pending signal has been delivered on the
 * way back to user mode (Linux's saved_sigmask).
 */
void signal_restore_mask_after_delivery(uint64_t old);
/* Walking the processes (proc/tasks.h). */
int task_next_process(int from);
int task_count_processes(int *last);
/* Threads in the process led by leader (which the caller holds pinned,
 * proc/tasks.h). */
int task_nr_threads(struct task *leader);
/* The tids of leader's process, leader first (at most max): the count. */
int task_list_threads(struct task *leader, int *out, int max);
/* A reference to t's descriptor table (files_put it), NULL after exit. */
struct files *task_files_get(struct task *t);
/*
 * What a /proc/<pid> file made after the task's pin is dropped may use
 * (it may sleep; the task may be freed): references to the task's mm and
 * fs taken under task_lock, NULL where it had let one go. task_res_put
 * drops them.
 */
struct task_res {
	struct mm *mm;
	struct fs_context *fs;
};
void task_res_get(struct task *t, struct task_res *r);
void task_res_put(struct task_res *r);
/*
 * Text for /proc/<pid>/cmdline (NUL-separated arguments) and the
 * executable's path for /proc/<pid>/exe (mm_format_maps in mm/usermm.h
 * for maps). Each writes at most max bytes to buf and returns the length
 * the whole text needs (like snprintf: a result > max means "call again
 * with more room"), or -errno (-ENOENT: no executable).
 */
int mm_format_cmdline(struct mm *mm, char *buf, size_t max);
int mm_exe_path(struct mm *mm, char *buf, size_t max);

#endif

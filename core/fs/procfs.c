/*
 * procfs: /proc. Fixed entries are genfs nodes (procfs_register); the
 * numbered directories /proc/<pid> are made on demand, one short-lived
 * inode per lookup, and hold only the pid: every open or readlink looks
 * the task up again, so a vanished task gives ESRCH/ENOENT rather than
 * stale data. /proc/self is a symlink to the caller's tgid. Each
 * /proc/<pid> also holds task/ (a /proc/<tid> directory per thread of
 * the process, as Linux lists them) and fd/ (proc_fd.c: a link per open
 * descriptor); a thread's own /proc/<tid> is found by lookup but, as on
 * Linux, not listed in /proc.
 *
 * Locking: task_entry_lock (irqsave) guards the table of per-task
 * entries, which only grows.
 */
#include <stdio.h>
#include "core/mm/mm.h"
#include "procfs.h"
#include "core/proc/task.h"
#include "core/proc/tasks.h"

#define MAX_TASK_ENTRIES 24
#define PID_INO_BASE (1ULL << 32)

/* One of gen (made from the pinned task) or rgen/rlink (from its
 * references, after the pin is dropped) is set. */
struct task_entry {
	const char *name;
	task_gen_fn gen;
	res_gen_fn rgen;
	res_link_fn rlink;
};

enum pnode_kind {
	PN_PID_DIR,   /* /proc/<pid>, or /proc/<tgid>/task/<pid> if tgid */
	PN_ENTRY,     /* a registered file or link: task_entries[entry] */
	PN_TASK_DIR,  /* /proc/<pid>/task */
	PN_FD_DIR,    /* /proc/<pid>/fd */
	PN_FD_LINK,   /* /proc/<pid>/fd/<entry> */
};

/* An inode under /proc/<pid>. */
struct pnode {
	struct inode inode;
	enum pnode_kind kind;
	int pid;
	int entry;
	int tgid;     /* PN_PID_DIR under task/: its process, else 0 */
};

static struct genfs procfs = GENFS_INIT(procfs, "proc", 3);
static struct spinlock task_entry_lock = SPINLOCK_INIT("proc_task");
static struct task_entry task_entries[MAX_TASK_ENTRIES];
static unsigned ntask_entries;
static const struct inode_ops pnode_iops;

int procfs_register(const char *path, gen_fn gen, write_fn write, void *arg)
{
	return genfs_add(&procfs, path, S_IFREG | (write ? 0644 : 0444), gen,
			 write, NULL, arg);
}

int procfs_mkdir(const char *path)
{
	return genfs_add(&procfs, path, S_IFDIR | 0555, NULL, NULL, NULL, NULL);
}

int procfs_register_link(const char *path, glink_fn link, void *arg)
{
	return genfs_add(&procfs, path, S_IFLNK | 0777, NULL, NULL, link, arg);
}

static int add_task_entry(const struct task_entry *e)
{
	int r = -ENOSPC;
	uint64_t fl = spin_lock_irqsave(&task_entry_lock);
	for (unsigned i = 0; i < ntask_entries; i++)
		if (strcmp(task_entries[i].name, e->name) == 0)
			r = -EEXIST;
	if (r != -EEXIST && ntask_entries < MAX_TASK_ENTRIES) {
		task_entries[ntask_entries++] = *e;
		r = 0;
	}
	spin_unlock_irqrestore(&task_entry_lock, fl);
	return r;
}

int procfs_register_task_file(const char *name, task_gen_fn gen)
{
	return add_task_entry(&(struct task_entry){ .name = name, .gen = gen });
}

int procfs_register_res_file(const char *name, res_gen_fn gen)
{
	return add_task_entry(&(struct task_entry){ .name = name, .rgen = gen });
}

int procfs_register_res_link(const char *name, res_link_fn link)
{
	return add_task_entry(&(struct task_entry){ .name = name, .rlink = link });
}

static bool task_entry_at(unsigned i, struct task_entry *out)
{
	uint64_t fl = spin_lock_irqsave(&task_entry_lock);
	bool ok = i < ntask_entries;
	if (ok)
		*out = task_entries[i];
	spin_unlock_irqrestore(&task_entry_lock, fl);
	return ok;
}

static int task_entry_find(const char *name, size_t len)
{
	struct task_entry e;
	for (unsigned i = 0; task_entry_at(i, &e); i++)
		if (name_eq(e.name, name, len))
			return (int)i;
	return -1;
}

/* ---- /proc/<pid> inodes ---- */

/* Slots 1..MAX_TASK_ENTRIES of a pid's 64 are its files; fd links have
 * their own range. */
#define TASK_DIR_SLOT 62
#define FD_DIR_SLOT 63
#define FD_INO_BASE (1ULL << 48)

static uint64_t pnode_ino(int pid, int entry)
{
	return PID_INO_BASE + (uint64_t)pid * 64 + (uint64_t)(entry + 1);
}

static uint64_t kind_ino(enum pnode_kind k, int pid, int entry)
{
	switch (k) {
	case PN_TASK_DIR: return pnode_ino(pid, TASK_DIR_SLOT - 1);
	case PN_FD_DIR: return pnode_ino(pid, FD_DIR_SLOT - 1);
	case PN_FD_LINK: return FD_INO_BASE + (uint64_t)pid * MAX_FDS + (uint64_t)entry;
	case PN_ENTRY: return pnode_ino(pid, entry);
	default: return pnode_ino(pid, -1);
	}
}

static struct pnode *P(struct inode *ino)
{
	return container_of(ino, struct pnode, inode);
}

/* Linux's modes: fd/ and its links are the owner's alone. */
static uint32_t kind_mode(enum pnode_kind k, int entry)
{
	struct task_entry e;
	switch (k) {
	case PN_ENTRY:
		if (!task_entry_at((unsigned)entry, &e))
			return 0;
		return e.rlink ? S_IFLNK | 0777 : S_IFREG | 0444;
	case PN_FD_DIR: return S_IFDIR | 0500;
	case PN_FD_LINK: return S_IFLNK | 0700;
	default: return S_IFDIR | 0555;
	}
}

/* An inode of kind k for task pid (its thread tid's under tgid's task/
 * when tgid != 0); -ENOENT when the task or the entry does not exist. */
static int pnode_new(enum pnode_kind k, int pid, int entry, int tgid,
		     struct inode **out)
{
	uint32_t mode = kind_mode(k, entry);
	if (!mode)
		return -ENOENT;
	struct task *t = task_find_pinned(pid);
	if (!t)
		return -ENOENT;
	uint32_t uid = t->euid, gid = t->egid;
	bool theirs = !tgid || t->tgid == tgid;
	task_unpin(t);
	if (!theirs)
		return -ENOENT;
	struct pnode *n = kmalloc(sizeof(*n));
	if (!n)
		return -ENOMEM;
	inode_init(&n->inode, &procfs.sb, mode, &pnode_iops,
		   S_ISDIR(mode) ? &dir_fops : &genfile_fops);
	n->inode.ino = kind_ino(k, pid, entry);
	n->inode.uid = uid;
	n->inode.gid = gid;
	n->kind = k;
	n->pid = pid;
	n->entry = entry;
	n->tgid = tgid;
	*out = &n->inode;
	return 0;
}

static int pnode_make(int pid, int entry, struct inode **out)
{
	return entry < 0 ? pnode_new(PN_PID_DIR, pid, -1, 0, out)
			 : pnode_new(PN_ENTRY, pid, entry, 0, out);
}

static int parse_pid(const char *name, size_t len);

/* ".." of a directory under /proc/<pid> (or under task/<tid>). */
static int pnode_parent(struct pnode *d, struct inode **out)
{
	if (d->kind == PN_PID_DIR && !d->tgid) {
		*out = &genfs_root(&procfs)->inode;
		inode_get(*out);
		return 0;
	}
	if (d->kind == PN_PID_DIR)
		return pnode_new(PN_TASK_DIR, d->tgid, -1, 0, out);
	return pnode_new(PN_PID_DIR, d->pid, -1, d->tgid, out);
}

static int pid_dir_lookup(struct pnode *d, const char *name, size_t len,
			  struct inode **out)
{
	if (name_eq("task", name, len) && !d->tgid)
		return pnode_new(PN_TASK_DIR, d->pid, -1, 0, out);
	if (name_eq("fd", name, len))
		return pnode_new(PN_FD_DIR, d->pid, -1, 0, out);
	int i = task_entry_find(name, len);
	return i < 0 ? -ENOENT : pnode_new(PN_ENTRY, d->pid, i, 0, out);
}

static int pnode_lookup(struct inode *dir, const char *name, size_t len,
			struct inode **out)
{
	struct pnode *d = P(dir);
	if (len == 2 && name[0] == '.' && name[1] == '.')
		return pnode_parent(d, out);
	int id = parse_pid(name, len);
	switch (d->kind) {
	case PN_TASK_DIR:
		return id <= 0 ? -ENOENT : pnode_new(PN_PID_DIR, id, -1, d->pid, out);
	case PN_FD_DIR:
		if (id < 0 || id >= MAX_FDS || !proc_fd_open(d->pid, id))
			return -ENOENT;
		return pnode_new(PN_FD_LINK, d->pid, id, 0, out);
	default:
		return pid_dir_lookup(d, name, len, out);
	}
}

/* Emit the numbered entries ids[0..n) of dir (directories or links),
 * each at position 2 + its index. */
static void emit_numbered(struct dir_ctx *ctx, struct pnode *d, const int *ids,
			  int n)
{
	bool fds = d->kind == PN_FD_DIR;
	for (int i = (int)ctx->pos - 2; i >= 0 && i < n; i++) {
		char name[16];
		int len = snprintf(name, sizeof(name), "%d", ids[i]);
		uint64_t ino = fds ? kind_ino(PN_FD_LINK, d->pid, ids[i])
				   : pnode_ino(ids[i], -1);
		if (!dir_emit(ctx, name, (size_t)len, ino,
			      fds ? S_IFLNK : S_IFDIR, (uint64_t)i + 3))
			return;
	}
}

static int numbered_iterate(struct pnode *d, struct dir_ctx *ctx)
{
	int *ids = kmalloc(MAX_FDS * sizeof(int));
	if (!ids)
		return -ENOMEM;
	int n = d->kind == PN_FD_DIR ? proc_fd_list(d->pid, ids, MAX_FDS)
				     : proc_thread_list(d->pid, ids, MAX_FDS);
	if (n >= 0)
		emit_numbered(ctx, d, ids, n);
	kfree(ids);
	return n < 0 ? n : 0;
}

/* A pid directory: its files, then task (not under task/) and fd. */
static void pid_dir_iterate(struct pnode *d, struct dir_ctx *ctx)
{
	struct task_entry e;
	unsigned n = 0, i = (unsigned)ctx->pos - 2;
	while (task_entry_at(n, &e))
		n++;
	for (; i < n && task_entry_at(i, &e); i++) {
		uint32_t mode = e.rlink ? S_IFLNK : S_IFREG;
		if (!dir_emit(ctx, e.name, strlen(e.name),
			      pnode_ino(d->pid, (int)i), mode, i + 3))
			return;
	}
	if (i == n && !d->tgid) {
		if (!dir_emit(ctx, "task", 4, kind_ino(PN_TASK_DIR, d->pid, -1),
			      S_IFDIR, i + 3))
			return;
		i++;
	}
	if (i == n || (i == n + 1 && !d->tgid))
		dir_emit(ctx, "fd", 2, kind_ino(PN_FD_DIR, d->pid, -1), S_IFDIR,
			 n + 4);
}

static int pnode_iterate(struct inode *dir, struct dir_ctx *ctx)
{
	struct pnode *d = P(dir);
	if (!dir_emit_dots(ctx, dir))
		return 0;
	if (d->kind == PN_TASK_DIR || d->kind == PN_FD_DIR)
		return numbered_iterate(d, ctx);
	pid_dir_iterate(d, ctx);
	return 0;
}

/* Fill sb from entry e of task pid: a task_gen_fn while the task is
 * pinned (with its references, put after the pin: putting may sleep), a
 * res_gen_fn on its references after the pin is dropped. */
static int pnode_gen(int pid, const struct task_entry *e, struct seqbuf *sb)
{
	struct task *t = task_find_pinned(pid);
	if (!t)
		return -ESRCH;
	struct task_res res;
	task_res_get(t, &res);
	int r;
	if (e->gen) {
		r = e->gen(sb, t, &res);
		task_unpin(t);
	} else {
		task_unpin(t);
		r = e->rgen(sb, &res);
	}
	task_res_put(&res);
	return r;
}

static int pnode_open(struct inode *ino, struct file *f)
{
	struct pnode *n = P(ino);
	struct task_entry e;
	if (n->kind != PN_ENTRY)
		return S_ISDIR(ino->mode) ? 0 : -ELOOP;
	if (f->fmode & FMODE_WRITE)
		return -EACCES;
	if (!task_entry_at((unsigned)n->entry, &e) || e.rlink)
		return -ESRCH;
	struct seqbuf sb = { 0 };
	int r = pnode_gen(n->pid, &e, &sb);
	if (r >= 0)
		r = sb.err;
	if (r < 0) {
		sb_free(&sb);
		return r;
	}
	return genfile_attach(f, &sb, NULL, NULL);
}

static int pnode_readlink(struct inode *ino, char *buf, size_t max)
{
	struct pnode *n = P(ino);
	struct task_entry e;
	if (n->kind == PN_FD_LINK)
		return proc_fd_link(n->pid, n->entry, buf, max);
	if (n->kind != PN_ENTRY || !task_entry_at((unsigned)n->entry, &e) || !e.rlink)
		return -ENOENT;
	struct task *t = task_find_pinned(n->pid);
	if (!t)
		return -ENOENT;
	struct task_res res;
	task_res_get(t, &res);
	task_unpin(t); /* the link may sleep */
	int r = e.rlink(&res, buf, max);
	task_res_put(&res);
	return r > (int)max ? (int)max : r;   /* a longer target is cut */
}

static void pnode_free(struct inode *ino)
{
	kfree(P(ino));
}

static const struct inode_ops pnode_iops = {
	.lookup = pnode_lookup,
	.iterate = pnode_iterate,
	.open = pnode_open,
	.readlink = pnode_readlink,
	.free = pnode_free,
};

/* ---- the numbered directories in /proc ---- */

/* A pid as /proc spells it: decimal, no sign, no leading zero. */
static int parse_pid(const char *name, size_t len)
{
	if (len == 0 || len > 9 || (name[0] == '0' && len > 1))
		return -1;
	int v = 0;
	for (size_t i = 0; i < len; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		v = v * 10 + (name[i] - '0');
	}
	return v;
}

static int root_dyn_lookup(struct gnode *dir, const char *name, size_t len,
			   struct inode **out)
{
	int pid = parse_pid(name, len);
	return pid <= 0 ? -ENOENT : pnode_make(pid, -1, out);
}

/* Every process, however many, in pid order from where the last call
 * stopped: each step is a lookup in the pid table (task_next_process),
 * so a listing costs what it emits, not the number of processes times
 * the number of getdents calls. */
static void root_dyn_iterate(struct gnode *dir, struct dir_ctx *ctx)
{
	int pid = ctx->pos > GEN_DYN_BASE ? (int)(ctx->pos - GEN_DYN_BASE) : 1;
	while ((pid = task_next_process(pid)) > 0) {
		uint64_t cookie = GEN_DYN_BASE + (uint64_t)pid;
		char name[16];
		int len = snprintf(name, sizeof(name), "%d", pid);
		if (!dir_emit(ctx, name, (size_t)len, pnode_ino(pid, -1),
			      S_IFDIR, cookie + 1))
			break;
		pid++;
	}
}

static const struct gdir_ops root_dyn = {
	.lookup = root_dyn_lookup,
	.iterate = root_dyn_iterate,
};

static int self_link(char *buf, size_t max, void *arg)
{
	struct task *t = current;
	if (!t)
		return -ENOENT;
	int n = snprintf(buf, max, "%d", t->tgid);
	return n < (int)max ? n : (int)max;
}

struct inode *procfs_mount(struct super_block **sb)
{
	struct gnode *root = genfs_root(&procfs);
	if (!root)
		return NULL;
	genfs_set_dyn(&procfs, &root_dyn);
	*sb = &procfs.sb;
	inode_get(&root->inode);
	return &root->inode;
}

void procfs_init_files(void)
{
	procfs_register_link("self", self_link, NULL);
	proc_system_files_init();
	proc_task_files_init();
	sysctl_init();
}

/*
 * procfs: /proc. Fixed entries are genfs nodes (procfs_register); the
 * numbered directories /proc/<pid> are made on demand, one short-lived
 * inode per lookup, and hold only the pid: every open or readlink looks
 * the task up again, so a vanished task gives ESRCH/ENOENT rather than
 * stale data. /proc/self is a symlink to the caller's tgid.
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

/* An inode under /proc/<pid>: entry < 0 is the directory itself. */
struct pnode {
	struct inode inode;
	int pid;
	int entry;
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

static uint64_t pnode_ino(int pid, int entry)
{
	return PID_INO_BASE + (uint64_t)pid * 64 + (uint64_t)(entry + 1);
}

static struct pnode *P(struct inode *ino)
{
	return container_of(ino, struct pnode, inode);
}

static int pnode_make(int pid, int entry, struct inode **out)
{
	struct task_entry e;
	if (entry >= 0 && !task_entry_at((unsigned)entry, &e))
		return -ENOENT;
	struct task *t = task_find_pinned(pid);
	if (!t)
		return -ENOENT;
	uint32_t uid = t->euid, gid = t->egid;
	task_unpin(t);
	uint32_t mode = entry < 0 ? S_IFDIR | 0555 : e.rlink ? S_IFLNK | 0777
							 : S_IFREG | 0444;
	struct pnode *n = kmalloc(sizeof(*n));
	if (!n)
		return -ENOMEM;
	inode_init(&n->inode, &procfs.sb, mode, &pnode_iops,
		   entry < 0 ? &dir_fops : &genfile_fops);
	n->inode.ino = pnode_ino(pid, entry);
	n->inode.uid = uid;
	n->inode.gid = gid;
	n->pid = pid;
	n->entry = entry;
	*out = &n->inode;
	return 0;
}

static int pnode_lookup(struct inode *dir, const char *name, size_t len,
			struct inode **out)
{
	if (len == 2 && name[0] == '.' && name[1] == '.') {
		*out = &genfs_root(&procfs)->inode;
		inode_get(*out);
		return 0;
	}
	int i = task_entry_find(name, len);
	return i < 0 ? -ENOENT : pnode_make(P(dir)->pid, i, out);
}

static int pnode_iterate(struct inode *dir, struct dir_ctx *ctx)
{
	if (!dir_emit_dots(ctx, dir))
		return 0;
	struct task_entry e;
	for (unsigned i = (unsigned)ctx->pos - 2; task_entry_at(i, &e); i++) {
		uint32_t mode = e.rlink ? S_IFLNK : S_IFREG;
		if (!dir_emit(ctx, e.name, strlen(e.name),
			      pnode_ino(P(dir)->pid, (int)i), mode, i + 3))
			return 0;
	}
	return 0;
}

/* Fill sb from entry e of task pid: a task_gen_fn while the task is
 * pinned, a res_gen_fn on its references after the pin is dropped. */
static int pnode_gen(int pid, const struct task_entry *e, struct seqbuf *sb)
{
	struct task *t = task_find_pinned(pid);
	if (!t)
		return -ESRCH;
	if (e->gen) {
		int r = e->gen(sb, t);
		task_unpin(t);
		return r;
	}
	struct task_res res;
	task_res_get(t, &res);
	task_unpin(t);
	int r = e->rgen(sb, &res);
	task_res_put(&res);
	return r;
}

static int pnode_open(struct inode *ino, struct file *f)
{
	struct pnode *n = P(ino);
	struct task_entry e;
	if (n->entry < 0)
		return 0;
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
	if (!task_entry_at((unsigned)n->entry, &e) || !e.rlink)
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

static void sort_ints(int *v, int n)
{
	for (int i = 1; i < n; i++) {
		int x = v[i], j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

int *procfs_all_pids(int *n)
{
	for (int max = 1024;; max *= 2) {
		int *pids = kmalloc((size_t)max * sizeof(int));
		if (!pids)
			return NULL;
		*n = task_list_pids(pids, max);
		if (*n < max) {
			sort_ints(pids, *n); /* near-linear: the list is mostly in pid order */
			return pids;
		}
		kfree(pids); /* maybe more: try a larger array */
	}
}

/* Every process, however many: the array grows with the task list. */
static void root_dyn_iterate(struct gnode *dir, struct dir_ctx *ctx)
{
	int n;
	int *pids = procfs_all_pids(&n);
	if (!pids)
		return;
	for (int i = 0; i < n; i++) {
		uint64_t cookie = GEN_DYN_BASE + (uint64_t)pids[i];
		if (cookie < ctx->pos)
			continue;
		char name[16];
		int len = snprintf(name, sizeof(name), "%d", pids[i]);
		if (!dir_emit(ctx, name, (size_t)len, pnode_ino(pids[i], -1),
			      S_IFDIR, cookie + 1))
			break;
	}
	kfree(pids);
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

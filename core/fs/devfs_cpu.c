/*
 * /dev/cpu/N/{msr,cpuid}: the directories of Linux's msr and cpuid
 * drivers (core/arch/msr_dev.c, cpuid_dev.c), one per online CPU, as
 * udev makes them: character devices 202:N and 203:N, mode 0600 root.
 * Nodes are made at the first lookup of their CPU and live forever
 * (one reference of their own). Locking: cpu_lock (irqsave) guards the
 * node table while a CPU's nodes are looked up or made.
 */
#include <stdio.h>
#include "fs.h"
#include "core/arch/percpu.h"
#include "core/mm/mm.h"
#include "core/proc/sched.h"

enum { NODE_DIR, NODE_MSR, NODE_CPUID, NODE_KINDS };

struct cpunode {
	struct inode inode;
	unsigned cpu;
};

static const char *const node_names[NODE_KINDS] = { "", "msr", "cpuid" };
static struct spinlock cpu_lock = SPINLOCK_INIT("devfs_cpu");
static struct cpunode *nodes[MAX_CPUS][NODE_KINDS];
static struct inode cpu_root;
static struct inode *dev_root;
static const struct inode_ops cpu_root_iops, cpu_dir_iops, cpu_dev_iops;

static struct cpunode *node_new(struct super_block *sb, unsigned cpu, int kind)
{
	static const uint32_t modes[NODE_KINDS] = { S_IFDIR | 0555, S_IFCHR | 0600,
						    S_IFCHR | 0600 };
	static const uint32_t majors[NODE_KINDS] = { 0, 202, 203 };
	const struct file_ops *fops[NODE_KINDS] = { &dir_fops, &msr_dev_fops,
						    &cpuid_dev_fops };
	struct cpunode *n = kzalloc(sizeof(*n));
	if (!n)
		return NULL;
	inode_init(&n->inode, sb, modes[kind],
		   kind == NODE_DIR ? &cpu_dir_iops : &cpu_dev_iops, fops[kind]);
	n->inode.rdev = kind == NODE_DIR ? 0 : mkdev(majors[kind], cpu);
	n->cpu = cpu;
	return n;
}

/* CPU cpu's node of this kind (made with its siblings at first use), or
 * NULL when the CPU is not online or memory ran out. */
static struct inode *cpu_node(unsigned cpu, int kind)
{
	if (cpu >= MAX_CPUS || !sched_cpu_online(cpu))
		return NULL;
	struct cpunode *made[NODE_KINDS];
	for (int k = 0; k < NODE_KINDS; k++)
		made[k] = __atomic_load_n(&nodes[cpu][k], __ATOMIC_ACQUIRE) ? NULL
			: node_new(cpu_root.sb, cpu, k);
	uint64_t fl = spin_lock_irqsave(&cpu_lock);
	for (int k = 0; k < NODE_KINDS; k++) {
		if (!nodes[cpu][k] && made[k]) {
			__atomic_store_n(&nodes[cpu][k], made[k], __ATOMIC_RELEASE);
			made[k] = NULL;
		}
	}
	struct cpunode *n = nodes[cpu][kind];
	spin_unlock_irqrestore(&cpu_lock, fl);
	for (int k = 0; k < NODE_KINDS; k++)
		kfree(made[k]);
	if (!n)
		return NULL;
	inode_get(&n->inode);
	return &n->inode;
}

unsigned devfs_cpu_of(struct file *f)
{
	return container_of(f->path.inode, struct cpunode, inode)->cpu;
}

static int dotdot(struct inode *up, struct inode **out)
{
	inode_get(up);
	*out = up;
	return 0;
}

static int cpu_root_lookup(struct inode *dir, const char *name, size_t len,
			   struct inode **out)
{
	if (len == 2 && name[0] == '.' && name[1] == '.')
		return dotdot(dev_root, out);
	unsigned cpu = 0;
	if (len == 0 || len > 4 || (len > 1 && name[0] == '0'))
		return -ENOENT;
	for (size_t i = 0; i < len; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -ENOENT;
		cpu = cpu * 10 + (unsigned)(name[i] - '0');
	}
	*out = cpu_node(cpu, NODE_DIR);
	return *out ? 0 : -ENOENT;
}

static int cpu_root_iterate(struct inode *dir, struct dir_ctx *ctx)
{
	if (!dir_emit_dots(ctx, dir))
		return 0;
	for (uint64_t c = ctx->pos - 2; c < MAX_CPUS; c++) {
		if (!sched_cpu_online((unsigned)c))
			continue;
		char name[8];
		int n = snprintf(name, sizeof(name), "%u", (unsigned)c);
		struct inode *d = cpu_node((unsigned)c, NODE_DIR);
		bool more = d && dir_emit(ctx, name, (size_t)n, d->ino, d->mode, c + 3);
		if (d)
			inode_put(d);
		if (!more)
			return 0;
	}
	return 0;
}

static int cpu_dir_lookup(struct inode *dir, const char *name, size_t len,
			  struct inode **out)
{
	if (len == 2 && name[0] == '.' && name[1] == '.')
		return dotdot(&cpu_root, out);
	unsigned cpu = container_of(dir, struct cpunode, inode)->cpu;
	for (int k = NODE_MSR; k < NODE_KINDS; k++) {
		if (name_eq(node_names[k], name, len)) {
			*out = cpu_node(cpu, k);
			return *out ? 0 : -ENOENT;
		}
	}
	return -ENOENT;
}

static int cpu_dir_iterate(struct inode *dir, struct dir_ctx *ctx)
{
	if (!dir_emit_dots(ctx, dir))
		return 0;
	unsigned cpu = container_of(dir, struct cpunode, inode)->cpu;
	for (uint64_t k = ctx->pos - 1; k < NODE_KINDS; k++) {
		struct cpunode *n = __atomic_load_n(&nodes[cpu][k], __ATOMIC_ACQUIRE);
		if (!n || !dir_emit(ctx, node_names[k], strlen(node_names[k]),
				    n->inode.ino, n->inode.mode, k + 2))
			return 0;
	}
	return 0;
}

static const struct inode_ops cpu_root_iops = {
	.lookup = cpu_root_lookup, .iterate = cpu_root_iterate,
};
static const struct inode_ops cpu_dir_iops = {
	.lookup = cpu_dir_lookup, .iterate = cpu_dir_iterate,
};
static const struct inode_ops cpu_dev_iops = { 0 };

struct inode *devfs_cpu_root(struct super_block *sb, struct inode *parent)
{
	if (!dev_root) {
		inode_init(&cpu_root, sb, S_IFDIR | 0755, &cpu_root_iops, &dir_fops);
		dev_root = parent;
	}
	return &cpu_root;
}

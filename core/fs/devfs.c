/*
 * devfs: the /dev directory, a flat list of character devices, and the
 * memory devices null, zero and full. Devices may be registered before
 * or after the mount; the list only grows. Locking: dev_lock (irqsave)
 * guards the list while it is searched or appended to.
 */
#include <linux/mman.h>
#include "fs.h"
#include "core/mm/mm.h"
#include "core/mm/usermm.h"
#include "core/proc/sched.h"
#include "core/proc/signal.h"

#define MAX_DEVICES 32

struct device {
	struct inode inode;
	char name[32];
};

static struct super_block devfs_sb = { .type = "devtmpfs", .dev = 5 };
static struct spinlock dev_lock = SPINLOCK_INIT("devfs");
static struct device *devices[MAX_DEVICES];
static unsigned ndevices;
static struct inode devroot;
static bool devroot_made;
static const struct inode_ops devroot_iops;
static const struct inode_ops device_iops;

int devfs_register(const char *name, uint32_t mode, uint32_t rdev,
		   const struct file_ops *fops)
{
	struct device *d = kzalloc(sizeof(*d));
	if (!d || strlen(name) >= sizeof(d->name)) {
		kfree(d);
		return d ? -ENAMETOOLONG : -ENOMEM;
	}
	strlcpy(d->name, name, sizeof(d->name));
	inode_init(&d->inode, &devfs_sb, S_IFCHR | mode, &device_iops, fops);
	d->inode.rdev = rdev;
	int r = -ENOSPC;
	uint64_t fl = spin_lock_irqsave(&dev_lock);
	if (ndevices < MAX_DEVICES) {
		devices[ndevices++] = d;
		r = 0;
	}
	spin_unlock_irqrestore(&dev_lock, fl);
	if (r)
		kfree(d);
	return r;
}

static int devroot_lookup(struct inode *dir, const char *name, size_t len,
			  struct inode **out)
{
	if (len == 2 && name[0] == '.' && name[1] == '.') {
		inode_get(dir);
		*out = dir;
		return 0;
	}
	int r = -ENOENT;
	if (name_eq("cpu", name, len)) {
		*out = devfs_cpu_root(&devfs_sb, dir);
		inode_get(*out);
		return 0;
	}
	uint64_t fl = spin_lock_irqsave(&dev_lock);
	for (unsigned i = 0; i < ndevices; i++) {
		if (name_eq(devices[i]->name, name, len)) {
			*out = &devices[i]->inode;
			inode_get(*out);
			r = 0;
			break;
		}
	}
	spin_unlock_irqrestore(&dev_lock, fl);
	return r;
}

static int devroot_iterate(struct inode *dir, struct dir_ctx *ctx)
{
	if (!dir_emit_dots(ctx, dir))
		return 0;
	for (;;) {
		struct device *d = NULL;
		uint64_t fl = spin_lock_irqsave(&dev_lock);
		if (ctx->pos - 2 < ndevices)
			d = devices[ctx->pos - 2];
		bool cpu = ctx->pos - 2 == ndevices;
		spin_unlock_irqrestore(&dev_lock, fl);
		if (cpu) { /* the cpu directory comes after the devices */
			struct inode *c = devfs_cpu_root(&devfs_sb, dir);
			dir_emit(ctx, "cpu", 3, c->ino, c->mode, ctx->pos + 1);
			return 0;
		}
		if (!d || !dir_emit(ctx, d->name, strlen(d->name), d->inode.ino,
				    d->inode.mode, ctx->pos + 1))
			return 0;
	}
}

static const struct inode_ops devroot_iops = {
	.lookup = devroot_lookup,
	.iterate = devroot_iterate,
};
static const struct inode_ops device_iops = { 0 };

/* ---- null, zero, full ---- */

static long null_read(struct file *f, struct uio *u, uint64_t *pos)
{
	return 0;
}

static long null_write(struct file *f, struct uio *u, uint64_t *pos)
{
	return (long)u->resid;
}

static int64_t null_lseek(struct file *f, int64_t off, int whence)
{
	f->pos = 0;
	return 0;
}

/* A page at a time, as Linux's read_iter_zero: any signal ends a long
 * read (with the count so far, or a restart when nothing was read), and
 * a task waiting for this CPU gets it between pages (the kernel is not
 * preemptible: without that a 2 GiB read would hold the CPU for all of
 * it). */
static long zero_read(struct file *f, struct uio *u, uint64_t *pos)
{
	long done = 0;
	while (u->resid) {
		size_t n = u->resid < PAGE_SIZE ? u->resid : PAGE_SIZE;
		long r = uio_zero(u, n);
		if (r <= 0)
			return done ? done : r;
		done += r;
		if (u->resid && signal_pending_current())
			return done;
		sched_preempt_point();
	}
	return done;
}

/*
 * mmap of /dev/zero: anonymous memory, as on Linux. A private mapping is
 * ordinary private anonymous memory that still names the device file
 * (Linux's mmap_zero keeps vm_file: maps shows /dev/zero, its device,
 * inode and the offset); a shared one is shared anonymous memory (pages
 * both sides of a fork see), named as Linux shows it in /proc/<pid>/maps
 * (shmem_zero_setup's unnamed file). A shared writable mapping needs the file open for
 * writing (EACCES), every mapping needs it open for reading.
 */
static int zero_mmap(struct file *f, struct mm *mm, uint64_t addr, uint64_t len,
		     int prot, int flags, uint64_t off)
{
	bool shared = (flags & MAP_TYPE) != MAP_PRIVATE;
	if (!(f->fmode & FMODE_READ))
		return -EACCES;
	if (shared && (prot & PROT_WRITE) && !(f->fmode & FMODE_WRITE))
		return -EACCES;
	if (!shared) {
		int r = mm_map_anon(mm, addr, len, prot, 0, "/dev/zero");
		if (!r) {
			mm_set_file_off(mm, addr, off);
			uint32_t dev;
			uint64_t ino;
			file_ident(f, &dev, &ino);
			mm_set_file_ident(mm, addr, dev, ino);
		}
		return r;
	}
	return mm_map_anon(mm, addr, len, prot, VMA_SHARED, "/dev/zero (deleted)");
}

static long full_write(struct file *f, struct uio *u, uint64_t *pos)
{
	return -ENOSPC;
}

static const struct file_ops null_fops = {
	.read = null_read, .write = null_write, .lseek = null_lseek,
};
static const struct file_ops zero_fops = {
	.read = zero_read, .write = null_write, .lseek = null_lseek,
	.mmap = zero_mmap,
};
static const struct file_ops full_fops = {
	.read = zero_read, .write = full_write, .lseek = null_lseek,
};

static void register_standard_devices(void)
{
	devfs_register("console", 0600, mkdev(5, 1), &tty_fops);
	devfs_register("tty", 0666, mkdev(5, 0), &tty_fops);
	devfs_register("ttyS0", 0660, mkdev(4, 64), &tty_fops);
	devfs_register("null", 0666, mkdev(1, 3), &null_fops);
	devfs_register("zero", 0666, mkdev(1, 5), &zero_fops);
	devfs_register("full", 0666, mkdev(1, 7), &full_fops);
	devfs_register("random", 0666, mkdev(1, 8), &random_fops);
	devfs_register("urandom", 0666, mkdev(1, 9), &random_fops);
}

struct inode *devfs_mount(struct super_block **sb)
{
	if (!devroot_made) {
		inode_init(&devroot, &devfs_sb, S_IFDIR | 0755, &devroot_iops,
			   &dir_fops);
		register_standard_devices();
		devfs_cpu_root(&devfs_sb, &devroot);
		devroot_made = true;
	}
	*sb = &devfs_sb;
	inode_get(&devroot);
	return &devroot;
}

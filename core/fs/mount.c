/*
 * The mount table and boot-time setup. Mounts are made by vfs_init on
 * one CPU before any task uses files and never removed, so lookups read
 * the table without a lock: `nmounts` is published with a release store
 * after the entry is complete.
 */
#include "fs.h"
#include "initrd.h"

#define MAX_MOUNTS 8

static struct mount mounts[MAX_MOUNTS];
static unsigned nmounts;
static bool vfs_done;

struct mount *mount_root(void)
{
	return __atomic_load_n(&nmounts, __ATOMIC_ACQUIRE) ? &mounts[0] : NULL;
}

unsigned mount_count(void)
{
	return __atomic_load_n(&nmounts, __ATOMIC_ACQUIRE);
}

struct mount *mount_nth(unsigned i)
{
	return i < mount_count() ? &mounts[i] : NULL;
}

struct mount *mount_at(struct mount *mnt, struct inode *dir)
{
	unsigned n = mount_count();
	for (unsigned i = 1; i < n; i++)
		if (mounts[i].parent == mnt && mounts[i].mountpoint == dir)
			return &mounts[i];
	return NULL;
}

/* Mount root at the directory `where` ("/" for the first mount). */
int vfs_mount(struct super_block *sb, struct inode *root, const char *source,
	      const char *where)
{
	if (nmounts == MAX_MOUNTS)
		return -ENOMEM;
	struct mount *m = &mounts[nmounts];
	*m = (struct mount){ .sb = sb, .root = root, .source = source,
			     .where = where };
	if (nmounts) {
		struct path p;
		int r = path_walk(NULL, NULL, where, WALK_FOLLOW | WALK_DIR, &p);
		if (r)
			return r;
		m->parent = p.mnt;
		m->mountpoint = p.inode;   /* the reference stays with the mount */
	}
	__atomic_store_n(&nmounts, nmounts + 1, __ATOMIC_RELEASE);
	return 0;
}

static void mount_or_complain(struct inode *(*fs_mount)(struct super_block **),
			      const char *source, const char *where)
{
	struct super_block *sb;
	struct inode *root = fs_mount(&sb);
	int r = root ? vfs_mount(sb, root, source, where) : -ENOMEM;
	if (r)
		klog("vfs: cannot mount %s on %s: error %d", source, where, r);
}

bool vfs_ready(void)
{
	return __atomic_load_n(&vfs_done, __ATOMIC_ACQUIRE);
}

void vfs_init(void)
{
	if (vfs_ready())
		return;
	random_init();
	mount_or_complain(initrdfs_mount, "rootfs", "/");
	static const char *const dirs[] = { "tmp", "dev", "proc", "sys" };
	for (unsigned i = 0; i < ARRAY_SIZE(dirs); i++)
		initrdfs_add_dir(dirs[i]);
	mount_or_complain(tmpfs_mount, "tmpfs", "/tmp");
	mount_or_complain(devfs_mount, "devtmpfs", "/dev");
	mount_or_complain(procfs_mount, "proc", "/proc");
	mount_or_complain(sysfs_mount, "sysfs", "/sys");
	procfs_init_files();
	sysfs_init_files();
	__atomic_store_n(&vfs_done, true, __ATOMIC_RELEASE);
	klog("vfs: / (initrd), /tmp, /dev, /proc, /sys mounted");
}

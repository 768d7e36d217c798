/*
 * statfs(2) and fstatfs(2): what Linux's statfs_by_dentry reports for
 * each file system baremon mounts. Programs check a mount by its magic
 * number (perf finds sysfs and tracefs so), so each super block says the
 * type Linux would have there: the initrd root, /tmp and /dev are tmpfs
 * (Linux's initramfs rootfs and devtmpfs are), /proc is proc, /sys sysfs
 * and /sys/kernel/tracing (a sysfs subtree here) tracefs. tmpfs reports
 * Linux's default size, half of memory, with the free pages; the others
 * are Linux's simple_statfs: a page block size, NAME_MAX, no blocks.
 */
#include <asm/statfs.h>
#include <linux/magic.h>
#include "core/mm/mm.h"
#include "sys.h"

/* f_flags bits: Linux's include/linux/statfs.h (no uapi header). */
#define ST_RDONLY 0x0001
#define ST_VALID  0x0020

static const struct {
	const char *type;
	long magic;
	bool sized;          /* tmpfs: blocks and files are reported */
} kinds[] = {
	{ "rootfs", TMPFS_MAGIC, true },
	{ "tmpfs", TMPFS_MAGIC, true },
	{ "devtmpfs", TMPFS_MAGIC, true },
	{ "proc", PROC_SUPER_MAGIC, false },
	{ "sysfs", SYSFS_MAGIC, false },
	{ "anon_inodefs", ANON_INODE_FS_MAGIC, false },
};

static void fill_statfs(struct inode *ino, struct statfs *st)
{
	memset(st, 0, sizeof(*st));
	st->f_bsize = st->f_frsize = PAGE_SIZE;
	st->f_namelen = NAME_MAX;
	st->f_flags = ST_VALID | (ino->sb->rdonly ? ST_RDONLY : 0);
	st->f_fsid.val[0] = (int)ino->sb->dev;
	for (unsigned i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (strcmp(kinds[i].type, ino->sb->type) != 0)
			continue;
		st->f_type = kinds[i].magic;
		if (kinds[i].sized) {
			long total = (long)pmm_total_count() / 2;
			long nfree = (long)pmm_free_count();
			st->f_blocks = st->f_files = total;
			st->f_bfree = st->f_bavail = st->f_ffree =
				nfree < total ? nfree : total;
		}
	}
	if (sysfs_in_tracefs(ino))
		st->f_type = TRACEFS_MAGIC;
}

static long statfs_out(struct path *p, uint64_t ubuf)
{
	struct statfs st;
	fill_statfs(p->inode, &st);
	path_put(p);
	return copy_to_user((void *)ubuf, &st, sizeof(st));
}

SYSCALL_DEFINE2(statfs, uint64_t, upath, uint64_t, ubuf)
{
	struct path p;
	int r = resolve_at(AT_FDCWD, upath, false, true, &p);
	return r ? r : statfs_out(&p, ubuf);
}

/* As Linux (fdget_raw), an O_PATH descriptor works too. */
SYSCALL_DEFINE2(fstatfs, unsigned int, fd, uint64_t, ubuf)
{
	struct file *f = task_file(fd);
	if (!f)
		return -EBADF;
	struct path p = f->path;
	path_get(&p);
	file_put(f);
	return statfs_out(&p, ubuf);
}

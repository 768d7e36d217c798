/*
 * genfs: trees of generated files, the machinery under /proc and /sys.
 * A tree holds directories, files (a gen function run at open, an
 * optional write handler) and symlinks (a function giving the target).
 * Nodes are only ever added. A directory may also have dynamic entries
 * (the /proc/<pid> directories) supplied by hooks.
 *
 * Locking: genfs.lock (irqsave) guards every node's child list; nodes
 * live forever (they keep one reference of their own).
 */
#ifndef BAREMON_GENFS_H
#define BAREMON_GENFS_H

#include "fs.h"

struct gnode;
typedef int (*glink_fn)(char *buf, size_t max, void *arg);

/* Entries of a directory that are not nodes. Dynamic cookies must be
 * >= GEN_DYN_BASE. */
#define GEN_DYN_BASE (1ULL << 32)
struct gdir_ops {
	int (*lookup)(struct gnode *dir, const char *name, size_t len,
		      struct inode **out);
	void (*iterate)(struct gnode *dir, struct dir_ctx *ctx);
};

struct genfs {
	struct super_block sb;
	struct spinlock lock;
	struct gnode *root;
};

struct gnode {
	struct inode inode;
	char *name;
	struct genfs *fs;
	struct gnode *parent, *children, *next;
	gen_fn gen;
	write_fn write;
	glink_fn link;
	void *arg;
	const struct gdir_ops *dyn;
};

#define GENFS_INIT(var, type_, dev_) \
	{ .sb = { .type = type_, .dev = dev_ }, .lock = SPINLOCK_INIT(type_) }

struct gnode *genfs_root(struct genfs *fs);
int genfs_add(struct genfs *fs, const char *path, uint32_t mode, gen_fn gen,
	      write_fn write, glink_fn link, void *arg);
int genfs_set_dyn(struct genfs *fs, const struct gdir_ops *dyn);

/* Files whose text is made once at open: f->priv becomes the snapshot
 * (which genfile_fops reads, seeks and frees). Takes over sb. */
extern const struct file_ops genfile_fops;
int genfile_attach(struct file *f, struct seqbuf *sb, write_fn write, void *arg);
void sb_free(struct seqbuf *sb);

#endif

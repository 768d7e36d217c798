/* tmpfs internals shared by tmpfs.c (the tree) and tmpfs_file.c (data). */
#ifndef BAREMON_TMPFS_H
#define BAREMON_TMPFS_H

#include "fs.h"

struct tnode {
	struct inode inode;
	/* directories (tree_lock) */
	struct list entries;
	uint64_t next_cookie;
	struct tnode *parent;        /* reference held; NULL for the root */
	/* regular files (data_lock): pages[i] holds bytes i*4K.. or NULL
	 * (a hole: reads as zeros); inode.size is the length */
	struct sleeplock data_lock;
	void **pages;
	size_t npages;               /* entries in pages[] */
	/* symlinks */
	char *target;
};

static inline struct tnode *T(struct inode *ino)
{
	return container_of(ino, struct tnode, inode);
}

extern const struct file_ops tmpfs_file_fops;
int tmpfs_truncate(struct inode *ino, uint64_t size);
/* Free the pages holding bytes from `from` on. Caller holds data_lock
 * (or is freeing the inode). */
void tmpfs_free_pages(struct tnode *n, uint64_t from);
int tmpfs_symlink(struct inode *dir, const char *name, size_t len,
		  const char *target);

#endif

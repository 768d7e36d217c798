/*
 * Path walking: from the root or a starting directory, one component at
 * a time, crossing mount points and following symbolic links. Rules are
 * Linux's: repeated slashes are one; "." stays; ".." never climbs above
 * the process root and leaves a mounted file system through its mount
 * point; a trailing slash demands a directory (ENOTDIR); a component
 * longer than NAME_MAX fails with ENAMETOOLONG, a path of PATH_MAX bytes
 * or more too; at most 40 symlinks per walk and 8 nested (ELOOP).
 *
 * The walker holds a reference to the directory it stands in and swaps
 * it for the child's as it steps. No lock is held between steps.
 */
#include "fs.h"
#include "core/mm/mm.h"
#include "core/missing.h"

#define MAX_LINKS 40
#define MAX_NESTED_LINKS 8

struct walk {
	struct fs_context *fs;
	struct path root;   /* the process root; reference held */
	int links;          /* symlinks followed */
	int nested;         /* symlinks being followed right now */
	struct path_leaf *leaf; /* NULL, or where to note the last entry */
};

static int walk_path(struct walk *w, struct path *cur, const char *p,
		     const char *end, unsigned flags);

/* Replace *cur with the directory (m's mount point) it covers. */
void path_to_mountpoint(struct path *cur)
{
	struct mount *m = cur->mnt;
	inode_get(m->mountpoint);
	inode_put(cur->inode);
	cur->mnt = m->parent;
	cur->inode = m->mountpoint;
}

static void cross_mounts(struct path *p)
{
	struct mount *m;
	while ((m = mount_at(p->mnt, p->inode)) != NULL) {
		inode_get(m->root);
		inode_put(p->inode);
		p->mnt = m;
		p->inode = m->root;
	}
}

int path_lookup_one(const struct path *dir, const char *name, size_t len,
		    struct path *out)
{
	if (!inode_is_dir(dir->inode))
		return -ENOTDIR;
	int r = inode_permission(dir->inode, MAY_EXEC);
	if (r)
		return r;
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	struct inode *child;
	r = dir->inode->ops->lookup(dir->inode, name, len, &child);
	if (r)
		return r;
	out->mnt = dir->mnt;
	out->inode = child;
	cross_mounts(out);
	return 0;
}

static int step_dotdot(struct walk *w, struct path *cur)
{
	for (;;) {
		if (path_equal(cur, &w->root))
			return 0;
		if (cur->inode != cur->mnt->root || !cur->mnt->parent)
			break;
		path_to_mountpoint(cur);
	}
	struct inode *parent;
	int r = cur->inode->ops->lookup(cur->inode, "..", 2, &parent);
	if (r)
		return r;
	inode_put(cur->inode);
	cur->inode = parent;
	return 0;
}

/* Replace *link (a symlink found in dir) by what it points to. */
static int follow_link(struct walk *w, const struct path *dir,
		       struct path *link, unsigned flags)
{
	if (++w->links > MAX_LINKS || w->nested >= MAX_NESTED_LINKS)
		return -ELOOP;
	if (!link->inode->ops->readlink)
		return -EINVAL;
	char *buf = kmalloc(PATH_MAX);
	if (!buf)
		return -ENOMEM;
	int n = link->inode->ops->readlink(link->inode, buf, PATH_MAX - 1);
	if (n == 0)
		n = -ENOENT;
	else if (n > PATH_MAX - 1)
		n = -ENAMETOOLONG;
	if (n < 0) {
		kfree(buf);
		return n;
	}
	buf[n] = 0;
	struct path target = buf[0] == '/' ? w->root : *dir;
	path_get(&target);
	w->nested++;
	int r = walk_path(w, &target, buf, buf + n, flags);
	w->nested--;
	kfree(buf);
	if (r) {
		path_put(&target);
		return r;
	}
	path_put(link);
	*link = target;
	return 0;
}

/* The walk's result is the entry name in dir: note it in w->leaf (the
 * last such note of a walk is the one that found its result). */
static void note_leaf(struct walk *w, const struct path *dir, const char *name,
		      size_t len)
{
	struct path_leaf *l = w->leaf;
	if (l->dir.inode)
		path_put(&l->dir);
	l->dir = *dir;
	path_get(&l->dir);
	memcpy(l->name, name, len);
	l->name[len] = 0;
}

/* Move *cur (a directory) to its child name, following a symlink if
 * follow is set; last: name ends the walk (its entry may be the result). */
static int step(struct walk *w, struct path *cur, const char *name,
		size_t len, bool follow, bool last)
{
	if (!inode_is_dir(cur->inode))
		return -ENOTDIR;
	int r = inode_permission(cur->inode, MAY_EXEC);
	if (r)
		return r;
	if (len == 1 && name[0] == '.')
		return 0;
	if (len == 2 && name[0] == '.' && name[1] == '.')
		return step_dotdot(w, cur);
	struct path next;
	r = path_lookup_one(cur, name, len, &next);
	if (r)
		return r;
	if (follow && S_ISLNK(next.inode->mode)) {
		r = follow_link(w, cur, &next, WALK_FOLLOW);
		if (r) {
			path_put(&next);
			return r;
		}
	} else if (last && w->leaf) {
		note_leaf(w, cur, name, len);
	}
	path_put(cur);
	*cur = next;
	return 0;
}

/* Walk the components of [p, end) from *cur. */
static int walk_path(struct walk *w, struct path *cur, const char *p,
		     const char *end, unsigned flags)
{
	for (;;) {
		while (p < end && *p == '/')
			p++;
		if (p == end)
			return 0;
		const char *name = p;
		while (p < end && *p != '/')
			p++;
		const char *rest = p;
		while (rest < end && *rest == '/')
			rest++;
		bool last = rest == end;
		bool slash = p < end;
		bool follow = !last || slash || (flags & WALK_FOLLOW);
		int r = step(w, cur, name, (size_t)(p - name), follow, last);
		if (r)
			return r;
		if (last) {
			if ((slash || (flags & WALK_DIR)) &&
			    !inode_is_dir(cur->inode))
				return -ENOTDIR;
			return 0;
		}
	}
}

static int walk_begin(struct walk *w, struct fs_context *fs,
		      const struct path *start, const char *path,
		      struct path *cur)
{
	size_t n = strnlen(path, PATH_MAX);
	if (n == PATH_MAX)
		return -ENAMETOOLONG;
	if (n == 0)
		return -ENOENT;
	if (!mount_root())
		return -ENOENT;
	struct path cwd;
	w->fs = fs;
	w->links = w->nested = 0;
	w->leaf = NULL;
	fs_paths(fs, &w->root, &cwd);
	if (path[0] == '/') {
		*cur = w->root;
		path_get(cur);
		path_put(&cwd);
	} else if (start) {
		*cur = *start;
		path_get(cur);
		path_put(&cwd);
	} else {
		*cur = cwd;
	}
	return 0;
}

int path_walk_leaf(struct fs_context *fs, const struct path *start,
		   const char *path, unsigned flags, struct path *out,
		   struct path_leaf *leaf)
{
	struct walk w;
	if (leaf)
		leaf->dir = (struct path){ 0 };
	int r = walk_begin(&w, fs, start, path, out);
	if (r)
		return r;
	w.leaf = leaf;
	if (path[0] != '/' && !inode_is_dir(out->inode))
		r = -ENOTDIR;
	else
		r = walk_path(&w, out, path, path + strlen(path), flags);
	if ((flags & WALK_DIR) && !r && !inode_is_dir(out->inode))
		r = -ENOTDIR;
	path_put(&w.root);
	if (r)
		path_put(out);
	if (r && leaf)
		path_leaf_put(leaf);
	if (r == -ENOENT)
		missing_path(path);
	return r;
}

int path_walk(struct fs_context *fs, const struct path *start,
	      const char *path, unsigned flags, struct path *out)
{
	return path_walk_leaf(fs, start, path, flags, out, NULL);
}

void path_leaf_put(struct path_leaf *leaf)
{
	if (leaf->dir.inode)
		path_put(&leaf->dir);
	leaf->dir = (struct path){ 0 };
}

/* Split path into the part before the last component and that component. */
static void split_last(const char *path, size_t *plen, struct lastname *last)
{
	size_t n = strlen(path);
	size_t e = n;
	while (e > 0 && path[e - 1] == '/')
		e--;
	size_t s = e;
	while (s > 0 && path[s - 1] != '/')
		s--;
	last->name = path + s;
	last->len = e - s;
	last->slash = e < n;
	*plen = s;
}

int path_walk_parent(struct fs_context *fs, const struct path *start,
		     const char *path, struct path *parent,
		     struct lastname *last)
{
	struct walk w;
	int r = walk_begin(&w, fs, start, path, parent);
	if (r)
		return r;
	size_t plen;
	split_last(path, &plen, last);
	if (!inode_is_dir(parent->inode))
		r = -ENOTDIR;
	else
		r = walk_path(&w, parent, path, path + plen, WALK_FOLLOW | WALK_DIR);
	if (!r && last->len > NAME_MAX)
		r = -ENAMETOOLONG;
	path_put(&w.root);
	if (r)
		path_put(parent);
	if (r == -ENOENT)
		missing_path(path);
	return r;
}

int path_follow_link(struct fs_context *fs, const struct path *dir,
		     struct path *link, unsigned flags)
{
	struct walk w = { .fs = fs };
	struct path cwd;
	fs_paths(fs, &w.root, &cwd);
	path_put(&cwd);
	int r = follow_link(&w, dir, link, flags);
	path_put(&w.root);
	return r;
}

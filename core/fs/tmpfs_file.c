/*
 * tmpfs file data: an array of page pointers per file, grown on demand.
 * Pages come from the page allocator (zeroed); a missing page is a hole
 * and reads as zeros. All of tmpfs may use at most half of memory
 * (ENOSPC beyond), like Linux's default size.
 *
 * Locking: the file's data_lock (a sleeplock, since user copies happen
 * under it) guards pages, npages and inode.size.
 */
#include "core/mm/mm.h"
#include "tmpfs.h"

#define MAX_FILE_SIZE ((uint64_t)INT64_MAX)

static size_t pages_used;   /* atomic */

size_t tmpfs_pages_in_use(void)
{
	return __atomic_load_n(&pages_used, __ATOMIC_RELAXED);
}

static size_t page_limit(void)
{
	return pmm_total_count() / 2;
}

static bool charge_page(void)
{
	size_t n = __atomic_add_fetch(&pages_used, 1, __ATOMIC_RELAXED);
	if (n <= page_limit())
		return true;
	__atomic_sub_fetch(&pages_used, 1, __ATOMIC_RELAXED);
	return false;
}

static void free_page(void *p)
{
	pmm_free_pages(virt_to_phys(p), 1);
	__atomic_sub_fetch(&pages_used, 1, __ATOMIC_RELAXED);
}

void tmpfs_free_pages(struct tnode *n, uint64_t from)
{
	for (size_t i = ALIGN_UP(from, PAGE_SIZE) / PAGE_SIZE; i < n->npages; i++) {
		if (n->pages[i]) {
			free_page(n->pages[i]);
			n->pages[i] = NULL;
		}
	}
}

/* Make pages[] hold at least idx + 1 entries. */
static int grow_array(struct tnode *n, size_t idx)
{
	if (idx < n->npages)
		return 0;
	if (idx >= page_limit())
		return -ENOSPC;     /* the array alone would be absurd */
	size_t cap = n->npages ? n->npages * 2 : 16;
	while (cap <= idx)
		cap *= 2;
	void **p = kzalloc(cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (n->pages)
		memcpy(p, n->pages, n->npages * sizeof(*p));
	kfree(n->pages);
	n->pages = p;
	n->npages = cap;
	return 0;
}

/* The page holding byte offset off, allocated if need be. */
static int get_page(struct tnode *n, uint64_t off, void **out)
{
	size_t idx = off / PAGE_SIZE;
	int r = grow_array(n, idx);
	if (r)
		return r;
	if (!n->pages[idx]) {
		if (!charge_page())
			return -ENOSPC;
		uint64_t phys = pmm_alloc_page();
		if (!phys) {
			__atomic_sub_fetch(&pages_used, 1, __ATOMIC_RELAXED);
			return -ENOSPC;
		}
		n->pages[idx] = phys_to_virt(phys);
	}
	*out = n->pages[idx];
	return 0;
}

static long read_locked(struct tnode *n, struct uio *u, uint64_t *pos)
{
	long done = 0;
	while (u->resid && *pos < n->inode.size) {
		size_t off = *pos % PAGE_SIZE, idx = *pos / PAGE_SIZE;
		size_t chunk = PAGE_SIZE - off;
		if (chunk > n->inode.size - *pos)
			chunk = n->inode.size - *pos;
		void *page = idx < n->npages ? n->pages[idx] : NULL;
		long r = page ? uio_copy_out(u, (char *)page + off, chunk)
			      : uio_zero(u, chunk);
		if (r < 0)
			return done ? done : r;
		done += r;
		*pos += (uint64_t)r;
		if ((size_t)r < chunk)
			break;
	}
	return done;
}

static long tfile_read(struct file *f, struct uio *u, uint64_t *pos)
{
	struct tnode *n = T(f->path.inode);
	uint64_t size = __atomic_load_n(&n->inode.size, __ATOMIC_RELAXED);
	if (*pos < size) /* the buffer may map this very file (exec) */
		uio_fault_in(u, size - *pos);
	sleep_lock(&n->data_lock);
	long r = read_locked(n, u, pos);
	sleep_unlock(&n->data_lock);
	return r;
}

static long write_locked(struct tnode *n, struct uio *u, uint64_t *pos)
{
	long done = 0;
	while (u->resid) {
		if (*pos >= MAX_FILE_SIZE)
			return done ? done : -EFBIG;
		size_t off = *pos % PAGE_SIZE;
		size_t chunk = PAGE_SIZE - off;
		void *page;
		int e = get_page(n, *pos, &page);
		if (e)
			return done ? done : e;
		long r = uio_copy_in(u, (char *)page + off, chunk);
		if (r < 0)
			return done ? done : r;
		done += r;
		*pos += (uint64_t)r;
		if (*pos > n->inode.size)
			n->inode.size = *pos;
		if ((size_t)r < chunk)
			break;
	}
	return done;
}

static long tfile_write(struct file *f, struct uio *u, uint64_t *pos)
{
	struct tnode *n = T(f->path.inode);
	sleep_lock(&n->data_lock);
	if (f->flags & O_APPEND)
		*pos = n->inode.size;
	long r = write_locked(n, u, pos);
	if (r > 0)
		n->inode.mtime = n->inode.ctime = vfs_time_ns();
	sleep_unlock(&n->data_lock);
	return r;
}

int tmpfs_truncate(struct inode *ino, uint64_t size)
{
	struct tnode *n = T(ino);
	if (size > MAX_FILE_SIZE)
		return -EFBIG;
	sleep_lock(&n->data_lock);
	if (size < ino->size) {
		tmpfs_free_pages(n, size);
		size_t idx = size / PAGE_SIZE, off = size % PAGE_SIZE;
		if (off && idx < n->npages && n->pages[idx])
			memset((char *)n->pages[idx] + off, 0, PAGE_SIZE - off);
	}
	ino->size = size;
	ino->mtime = ino->ctime = vfs_time_ns();
	sleep_unlock(&n->data_lock);
	return 0;
}

static int64_t tfile_lseek(struct file *f, int64_t off, int whence)
{
	return generic_file_lseek(f, off, whence, f->path.inode->size);
}

const struct file_ops tmpfs_file_fops = {
	.read = tfile_read,
	.write = tfile_write,
	.lseek = tfile_lseek,
};

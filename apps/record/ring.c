/*
 * One perf ring buffer as a reader sees it: a control page, then the
 * data pages. The kernel moves data_head (read with acquire); the
 * reader takes records from its tail up to the head and gives the
 * space back by storing data_tail (release). Positions only grow and
 * wrap modulo the data size; a record may wrap, so it is copied out.
 * Mapped writable, the kernel never overwrites what was not given
 * back: what does not fit is dropped and counted in PERF_RECORD_LOST.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "record.h"

bool ring_map(struct ring *r, int fd, unsigned pages)
{
	long page = sysconf(_SC_PAGESIZE);
	memset(r, 0, sizeof *r);
	r->fd = fd;
	r->map_len = (size_t)(1 + pages) * (size_t)page;
	void *p = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return false;
	r->meta = p;
	uint64_t off = r->meta->data_offset ? r->meta->data_offset : (uint64_t)page;
	r->size = r->meta->data_size ? r->meta->data_size : (uint64_t)pages * (uint64_t)page;
	r->data = (unsigned char *)p + off;
	r->tail = r->meta->data_tail;
	return true;
}

void ring_unmap(struct ring *r)
{
	if (r->meta)
		munmap(r->meta, r->map_len);
	r->meta = NULL;
}

/* Copy n bytes from data position pos, across the wrap. */
static void copy_out(const struct ring *r, uint64_t pos, void *dst, size_t n)
{
	uint64_t off = pos & (r->size - 1);
	size_t first = r->size - off < n ? (size_t)(r->size - off) : n;
	memcpy(dst, r->data + off, first);
	memcpy((unsigned char *)dst + first, r->data, n - first);
}

bool ring_next(struct ring *r, void *buf)
{
	struct perf_event_header h;
	if (!r->meta)
		return false;
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	if (r->tail + sizeof h > head)
		return false;
	copy_out(r, r->tail, &h, sizeof h);
	if (h.size < sizeof h || r->tail + h.size > head) {
		r->tail = head; /* cannot happen with a sane kernel: resynchronise */
		return false;
	}
	copy_out(r, r->tail, buf, h.size);
	r->tail += h.size;
	return true;
}

void ring_release(struct ring *r)
{
	if (r->meta)
		__atomic_store_n(&r->meta->data_tail, r->tail, __ATOMIC_RELEASE);
}

/*
 * ring.h: reading a perf event's mmap ring buffer from a test program,
 * as a perf tool does: map 1 + 2^n pages, copy records out across the
 * buffer's end, release them through data_tail.
 */
#ifndef BAREMON_TESTS_PERF_RING_H
#define BAREMON_TESTS_PERF_RING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/perf_event.h>

struct ring {
	struct perf_event_mmap_page *meta;  /* the control page */
	unsigned char *data;
	uint64_t size;                       /* data bytes (a power of two) */
	uint64_t pos;                        /* the reader's position */
	size_t len;                          /* the mapping's length */
};

/* Map fd's buffer: the control page and `pages` data pages. 0 or -1. */
static inline int ring_map(int fd, struct ring *r, int pages, int prot)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	r->len = (size_t)(1 + pages) * (size_t)page;
	p = mmap(NULL, r->len, prot, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	r->meta = p;
	r->data = (unsigned char *)p + page;
	r->size = (uint64_t)pages * (uint64_t)page;
	r->pos = 0;
	return 0;
}

static inline void ring_unmap(struct ring *r)
{
	munmap(r->meta, r->len);
}

static inline uint64_t ring_head(const struct ring *r)
{
	return __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
}

/* n bytes at pos (a running offset) into dst, across the end. */
static inline void ring_copy(const struct ring *r, uint64_t pos, void *dst, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((unsigned char *)dst)[i] = r->data[(pos + i) & (r->size - 1)];
}

/* Give the bytes read so far back to the kernel. */
static inline void ring_release(struct ring *r)
{
	__atomic_store_n(&r->meta->data_tail, r->pos, __ATOMIC_RELEASE);
}

#endif

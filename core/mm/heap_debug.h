/*
 * The heap's block layout and its debug checks (heap_debug.c), which a
 * debug build (BAREMON_DEBUG, make DEBUG=1) turns on. Without it the
 * hooks are empty and a block is a 16-byte header and the caller's bytes.
 *
 * Debug layout of a block: header (magic, size class, allocation site,
 * requested size), the caller's bytes, RED_ZONE bytes of RED_BYTE. A
 * freed block: magic MAGIC_FREED, the allocation site kept, `req` holds
 * where it was freed, the rest POISON_BYTE but for the free-list link
 * (FREE_LINK_SIZE bytes right after the header).
 */
#ifndef BAREMON_HEAP_DEBUG_H
#define BAREMON_HEAP_DEBUG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A free block's list link (next and prev), FREE_LINK bytes in. */
#define FREE_LINK_SIZE 16

#ifdef BAREMON_DEBUG

#define HEADER 32
#define RED_ZONE 16
#define MIN_SHIFT 6          /* 64-byte blocks: header + red zone + 16 */
#define FREE_LINK HEADER     /* the link lies past the kept header */
#define MAGIC_FREED 0x6672656564626c6bULL
#define RED_BYTE 0xfb
#define POISON_BYTE 0x6b

struct header {
	uint64_t magic;
	uint64_t size;   /* class shift for small blocks, page count for large */
	uint64_t site;   /* the caller of kmalloc */
	uint64_t req;    /* bytes asked for; once freed, the caller of kfree */
};

void heap_debug_fresh(void *block, size_t size);
void heap_debug_reuse(struct header *h, size_t size);
void heap_debug_alloc(struct header *h, size_t req, size_t size, uint64_t site);
bool heap_mark_free(struct header *h, size_t size, uint64_t site);
bool heap_debug_bad_free(struct header *h, uint64_t site);

#else

#define HEADER 16
#define RED_ZONE 0
#define MIN_SHIFT 5          /* 32-byte blocks (16 of them usable) */
#define FREE_LINK 0

struct header {
	uint64_t magic;
	uint64_t size;   /* class shift for small blocks, page count for large */
};

static inline void heap_debug_fresh(void *block, size_t size) {}
static inline void heap_debug_reuse(struct header *h, size_t size) {}
static inline void heap_debug_alloc(struct header *h, size_t req, size_t size,
				    uint64_t site) {}
/* Mark h free; false when the free must not go on (a caught report). */
static inline bool heap_mark_free(struct header *h, size_t size, uint64_t site)
{
	h->magic = 0;
	return true;
}
/* kfree of something that is no live block: true if a self-test caught
 * the report (the free is dropped), false to panic. */
static inline bool heap_debug_bad_free(struct header *h, uint64_t site)
{
	return false;
}

#endif

#define MAGIC_SMALL 0x68656170736d6c6cULL
#define MAGIC_LARGE 0x686561706c617267ULL

/* heap_cached_take (mm.h): revive p, a small block kept in an object
 * cache, for a caller of size bytes. The header's class (h->size) is
 * kept while the block is cached. Inline: every cached allocation runs
 * it. */
static inline void heap_cached_take(void *p, size_t size, uint64_t site)
{
	struct header *h = (void *)((char *)p - HEADER);
	heap_debug_reuse(h, 1ULL << h->size);
	h->magic = MAGIC_SMALL;
	heap_debug_alloc(h, size, 1ULL << h->size, site);
}

#endif

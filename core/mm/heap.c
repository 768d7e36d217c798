/*
 * Kernel heap. Every block starts with a header recording its size
 * class, so kfree needs no size. Blocks up to 4 KiB (header included)
 * come from power-of-two size classes carved out of whole pages; larger
 * ones are whole contiguous pages.
 *
 * A carved page goes back to the page allocator once all its blocks are
 * free, except that each class keeps KEEP_EMPTY empty pages, so a class
 * whose use rises and falls across a page boundary does not get and
 * give a page every time. To find a page's blocks and count its live
 * ones, each page frame has a count of live blocks (live[], allocated
 * with the first carved page); free blocks are on a doubly linked list
 * per class, so a page's blocks can be taken off it when the page goes.
 * The list is last in, first out: the block freed last is handed out
 * first (its cache lines are the warm ones). Keeping an empty page costs
 * nothing; giving one back costs a pass over its blocks.
 *
 * A debug build (make DEBUG=1, BAREMON_DEBUG) also checks its callers
 * (heap_debug.c): the header names the allocation site, a red zone
 * follows each block, a freed block is poisoned and keeps where it was
 * freed, so an overflow, a double free or a write after free is reported
 * with the sites involved.
 *
 * Locking: heap_lock (irqsave) protects the classes' lists, live[] and
 * the counters; the page allocator is called under it (heap_lock ->
 * pmm_lock) to carve a page, and after it is dropped to give one back.
 */
#include <string.h>
#include "core/kernel.h"
#include "mm.h"
#include "heap_debug.h"
#include "core/spinlock.h"

#define MAX_SHIFT 12  /* 4 KiB blocks */
#define NCLASSES (MAX_SHIFT - MIN_SHIFT + 1)
#define KEEP_EMPTY 1  /* empty pages a class keeps rather than give back */

/* A free block's list link, FREE_LINK bytes into the block. */
struct free_block {
	struct free_block *next, *prev;
};
_Static_assert(sizeof(struct free_block) == FREE_LINK_SIZE, "heap_debug.h's link size");
_Static_assert((PAGE_SIZE >> MIN_SHIFT) <= 255, "a page's live count fits a byte");

struct size_class {
	struct free_block free;  /* list head: circular, never a block */
	size_t empty_pages;      /* carved pages with no live block */
};

static struct spinlock heap_lock = SPINLOCK_INIT("heap");
static struct size_class classes[NCLASSES];
static uint8_t *live;          /* [pfn]: live blocks in a carved page */
static size_t live_limit;      /* page frames live[] covers */
static size_t bytes_in_use;
static size_t blocks_in_use;   /* live kmalloc blocks, small and large */
static size_t pages_carved;    /* pages now split into small blocks */

/* The smallest class holding total bytes (a power of two at least
 * 1 << MIN_SHIFT), or -1 past the largest: no search, the bit length of
 * total - 1. */
static int class_for(size_t total)
{
	if (total <= (1ULL << MIN_SHIFT))
		return MIN_SHIFT;
	int s = 64 - __builtin_clzll((unsigned long long)total - 1);
	return s <= MAX_SHIFT ? s : -1;
}

static struct size_class *class_of(int shift)
{
	struct size_class *c = &classes[shift - MIN_SHIFT];
	if (!c->free.next)
		c->free.next = c->free.prev = &c->free;
	return c;
}

/* A free block's list link lies where its caller's bytes were. */
static struct free_block *link_of(void *block)
{
	return (struct free_block *)((char *)block + FREE_LINK);
}

static void *block_of(struct free_block *link)
{
	return (char *)link - FREE_LINK;
}

/* Heap pages are in the direct map: the frame is an offset from it. */
static uint8_t *live_count(const void *block)
{
	size_t pfn = ((uintptr_t)block - PHYSMAP_BASE) / PAGE_SIZE;
	BUG_ON(pfn >= live_limit);
	return &live[pfn];
}

static void list_unlink(struct free_block *b)
{
	b->prev->next = b->next;
	b->next->prev = b->prev;
}

static void push_front(struct size_class *c, struct free_block *b)
{
	b->next = c->free.next;
	b->prev = &c->free;
	c->free.next->prev = b;
	c->free.next = b;
}

/* The live counts, one byte per page frame. Caller holds heap_lock. */
static bool live_table(void)
{
	if (live)
		return true;
	size_t limit = pmm_page_limit();
	uint64_t phys = pmm_alloc_pages(ALIGN_UP(limit, PAGE_SIZE) / PAGE_SIZE); /* zeroed */
	if (!phys)
		return false;
	live = phys_to_virt(phys);
	live_limit = limit;
	return true;
}

/* Split a fresh page into free blocks of class `shift`: an empty page.
 * Caller holds heap_lock. */
static bool refill(int shift)
{
	if (!live_table())
		return false;
	uint64_t page = pmm_alloc_page();
	if (!page)
		return false;
	struct size_class *c = class_of(shift);
	char *p = phys_to_virt(page);
	size_t size = 1ULL << shift;
	for (size_t off = 0; off + size <= PAGE_SIZE; off += size) {
		heap_debug_fresh(p + off, size);
		push_front(c, link_of(p + off));
	}
	*live_count(p) = 0;
	c->empty_pages++;
	pages_carved++;
	return true;
}

/* Take the first free block of class `shift`. Caller holds heap_lock. */
static struct free_block *take(int shift)
{
	struct size_class *c = class_of(shift);
	if (c->free.next == &c->free && !refill(shift))
		return NULL;
	struct free_block *b = c->free.next;
	list_unlink(b);
	if ((*live_count(b))++ == 0)
		c->empty_pages--;
	return b;
}

/*
 * Put block b of class `shift` back. If that empties its page and the
 * class has its empty pages already, the page's blocks leave the list
 * and its physical address is returned for the caller to free after
 * dropping heap_lock; else 0. Caller holds heap_lock.
 */
static uint64_t give(int shift, struct free_block *b)
{
	struct size_class *c = class_of(shift);
	if (--*live_count(b) > 0) {
		push_front(c, b);
		return 0;
	}
	if (c->empty_pages < KEEP_EMPTY) {
		push_front(c, b);
		c->empty_pages++;
		return 0;
	}
	char *page = (char *)((uintptr_t)block_of(b) & ~(uintptr_t)(PAGE_SIZE - 1));
	size_t size = 1ULL << shift;
	for (size_t off = 0; off + size <= PAGE_SIZE; off += size) {
		struct free_block *o = link_of(page + off);
		if (o != b)
			list_unlink(o);   /* every other block of the page is free */
	}
	pages_carved--;
	return virt_to_phys(page);
}

static void *alloc_large(size_t size, uint64_t site)
{
	size_t pages = ALIGN_UP(size + HEADER + RED_ZONE, PAGE_SIZE) / PAGE_SIZE;
	uint64_t phys = pmm_alloc_pages(pages);
	if (!phys)
		return NULL;
	struct header *h = phys_to_virt(phys);
	h->magic = MAGIC_LARGE;
	h->size = pages;
	heap_debug_alloc(h, size, pages * PAGE_SIZE, site);
	uint64_t f = spin_lock_irqsave(&heap_lock);
	bytes_in_use += pages * PAGE_SIZE;
	blocks_in_use++;
	spin_unlock_irqrestore(&heap_lock, f);
	return (char *)h + HEADER;
}

static void *alloc(size_t size, uint64_t site)
{
	int shift = class_for(size + HEADER + RED_ZONE);
	if (shift < 0)
		return alloc_large(size, site);
	uint64_t f = spin_lock_irqsave(&heap_lock);
	struct free_block *b = take(shift);
	if (b) {
		bytes_in_use += 1ULL << shift;
		blocks_in_use++;
	}
	spin_unlock_irqrestore(&heap_lock, f);
	if (!b)
		return NULL;
	struct header *h = block_of(b);
	heap_debug_reuse(h, 1ULL << shift);
	h->magic = MAGIC_SMALL;
	h->size = (uint64_t)shift;
	heap_debug_alloc(h, size, 1ULL << shift, site);
	return (char *)h + HEADER;
}

/* alloc, and once more after the object caches gave their free blocks
 * back (heap_cache.c) when it found no memory. */
static void *alloc_or_drain(size_t size, uint64_t site)
{
	void *p = alloc(size, site);
	if (!p && heap_cache_drain())
		p = alloc(size, site);
	return p;
}

void *kmalloc(size_t size)
{
	return alloc_or_drain(size, (uint64_t)__builtin_return_address(0));
}

void *kzalloc(size_t size)
{
	void *p = alloc_or_drain(size, (uint64_t)__builtin_return_address(0));
	if (p)
		memset(p, 0, size);
	return p;
}

size_t heap_block_bytes(size_t size)
{
	int shift = class_for(size + HEADER + RED_ZONE);
	return shift < 0 ? 0 : 1ULL << shift;
}

/* ---- blocks an object cache holds (heap_cache.c) ----
 * A cached block stays allocated for the heap, but is marked free in its
 * header as kfree marks it (a debug build poisons it and checks its red
 * zone), so a kfree of it or a write to it is caught as for any freed
 * block; heap_cached_take checks and revives it. */

bool heap_cached_put(void *p, uint64_t site)
{
	struct header *h = (void *)((char *)p - HEADER);
	BUG_ON(h->magic != MAGIC_SMALL);
	return heap_mark_free(h, 1ULL << h->size, site);
}

void heap_cached_release(void *p, size_t size)
{
	heap_cached_take(p, size, (uint64_t)__builtin_return_address(0));
	kfree(p);
}

void kfree(void *p)
{
	if (!p)
		return;
	uint64_t site = (uint64_t)__builtin_return_address(0);
	struct header *h = (void *)((char *)p - HEADER);
	if (h->magic == MAGIC_LARGE) {
		size_t pages = h->size;
		if (!heap_mark_free(h, pages * PAGE_SIZE, site))
			return;
		uint64_t f = spin_lock_irqsave(&heap_lock);
		bytes_in_use -= pages * PAGE_SIZE;
		blocks_in_use--;
		spin_unlock_irqrestore(&heap_lock, f);
		pmm_free_pages(virt_to_phys(h), pages);
		return;
	}
	if (h->magic != MAGIC_SMALL || h->size < MIN_SHIFT || h->size > MAX_SHIFT) {
		if (heap_debug_bad_free(h, site))
			return; /* reported to a self-test that asked for it */
		panic("kfree: %p is not a heap block (double free or corruption)", p);
	}
	int shift = (int)h->size;
	if (!heap_mark_free(h, 1ULL << shift, site))
		return;
	uint64_t f = spin_lock_irqsave(&heap_lock);
	uint64_t page = give(shift, link_of(h));
	bytes_in_use -= 1ULL << shift;
	blocks_in_use--;
	spin_unlock_irqrestore(&heap_lock, f);
	if (page)
		pmm_free_pages(page, 1);
}

/* What callers hold: a block an object cache keeps free is not theirs. */
size_t heap_in_use(void)
{
	return bytes_in_use - heap_cache_bytes();
}

size_t heap_blocks_in_use(void)
{
	return blocks_in_use - heap_cache_blocks();
}

size_t heap_pages_carved(void)
{
	return pages_carved;
}

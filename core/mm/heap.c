/*
 * Kernel heap. Every block starts with a header recording its size
 * class, so kfree needs no size. Blocks up to 2 KiB come from
 * power-of-two size classes carved out of whole pages (never returned to
 * the page allocator); larger ones are whole contiguous pages.
 *
 * A debug build (make DEBUG=1, BAREMON_DEBUG) also checks its callers
 * (heap_debug.c): the header names the allocation site, a red zone
 * follows each block, a freed block is poisoned and keeps where it was
 * freed, so an overflow, a double free or a write after free is reported
 * with the sites involved.
 *
 * Locking: heap_lock (irqsave) protects the free lists and counters.
 */
#include <string.h>
#include "kernel.h"
#include "mm.h"
#include "heap_debug.h"
#include "spinlock.h"

#define MAX_SHIFT 12  /* 4 KiB blocks */
#define NCLASSES (MAX_SHIFT - MIN_SHIFT + 1)
#define MAGIC_SMALL 0x68656170736d6c6cULL
#define MAGIC_LARGE 0x686561706c617267ULL

struct free_block {
	struct free_block *next;
};

static struct spinlock heap_lock = SPINLOCK_INIT("heap");
static struct free_block *free_lists[NCLASSES];
static size_t bytes_in_use;
static size_t blocks_in_use;   /* live kmalloc blocks, small and large */
static size_t pages_carved;    /* pages split into small blocks (kept) */

static int class_for(size_t total)
{
	for (int s = MIN_SHIFT; s <= MAX_SHIFT; s++)
		if (total <= (1ULL << s))
			return s;
	return -1;
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

/* Split a fresh page into blocks of class `shift`. Caller holds heap_lock. */
static bool refill(int shift)
{
	uint64_t page = pmm_alloc_page();
	if (!page)
		return false;
	char *p = phys_to_virt(page);
	size_t size = 1ULL << shift;
	pages_carved++;
	for (size_t off = 0; off + size <= PAGE_SIZE; off += size) {
		heap_debug_fresh(p + off, size);
		struct free_block *b = link_of(p + off);
		b->next = free_lists[shift - MIN_SHIFT];
		free_lists[shift - MIN_SHIFT] = b;
	}
	return true;
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
	struct free_block **list = &free_lists[shift - MIN_SHIFT];
	if (!*list && !refill(shift)) {
		spin_unlock_irqrestore(&heap_lock, f);
		return NULL;
	}
	struct free_block *b = *list;
	*list = b->next;
	bytes_in_use += 1ULL << shift;
	blocks_in_use++;
	spin_unlock_irqrestore(&heap_lock, f);
	struct header *h = block_of(b);
	heap_debug_reuse(h, 1ULL << shift);
	h->magic = MAGIC_SMALL;
	h->size = (uint64_t)shift;
	heap_debug_alloc(h, size, 1ULL << shift, site);
	return (char *)h + HEADER;
}

void *kmalloc(size_t size)
{
	return alloc(size, (uint64_t)__builtin_return_address(0));
}

void *kzalloc(size_t size)
{
	void *p = alloc(size, (uint64_t)__builtin_return_address(0));
	if (p)
		memset(p, 0, size);
	return p;
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
	struct free_block *b = link_of(h);
	uint64_t f = spin_lock_irqsave(&heap_lock);
	b->next = free_lists[shift - MIN_SHIFT];
	free_lists[shift - MIN_SHIFT] = b;
	bytes_in_use -= 1ULL << shift;
	blocks_in_use--;
	spin_unlock_irqrestore(&heap_lock, f);
}

size_t heap_in_use(void)
{
	return bytes_in_use;
}

size_t heap_blocks_in_use(void)
{
	return blocks_in_use;
}

size_t heap_pages_carved(void)
{
	return pages_carved;
}

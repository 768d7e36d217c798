/* Self-tests: the heap gives its emptied pages back, finds a request's
 * class (heap.c); object caches reuse, count and give back (heap_cache.c). */
#include <string.h>
#include "heap_debug.h"
#include "mm.h"
#include "core/selftest.h"

#define BLOCKS 200
#define SIZE 1500   /* the 2 KiB class with or without the debug layout */

/* Pages carved for many blocks go back once they are all freed, but for
 * the one empty page the class keeps. Other CPUs may allocate meanwhile:
 * a little slack. */
SELFTEST(heap_pages_return)
{
	static void *blocks[BLOCKS];
	size_t carved = heap_pages_carved(), free_pages = pmm_free_count();
	int got = 0;

	for (; got < BLOCKS; got++)
		if (!(blocks[got] = kmalloc(SIZE)))
			break;
	ST_CHECK(t, got == BLOCKS);
	ST_CHECK(t, heap_pages_carved() >= carved + BLOCKS / 2 - 10); /* it did carve */
	for (int i = 0; i < got; i++)
		kfree(blocks[i]);
	size_t after = heap_pages_carved();
	if (after > carved + 2)
		ST_FAIL(t, "%zu pages carved before, %zu after freeing every block", carved, after);
	ST_CHECK(t, pmm_free_count() + 4 >= free_pages);
}

/* A class used across a page boundary again and again keeps its page:
 * no page goes to the page allocator and back each time. */
SELFTEST(heap_empty_page_kept)
{
	void *x = kmalloc(SIZE);
	kfree(x);
	size_t carved = heap_pages_carved();
	for (int i = 0; i < 100; i++) {
		void *y = kmalloc(SIZE);
		ST_CHECK(t, y == x);
		kfree(y);
	}
	ST_CHECK(t, heap_pages_carved() == carved);
}

/* Every request up to the largest small block gets the smallest class
 * that holds it with the header (and the debug build's red zone). */
SELFTEST(heap_class_lookup)
{
	size_t over = HEADER + RED_ZONE;
	for (size_t size = 1; size + over <= 4096; size++) {
		size_t b = heap_block_bytes(size);
		if (b & (b - 1) || b < size + over ||
		    (b > (1u << MIN_SHIFT) && b / 2 >= size + over)) {
			ST_FAIL(t, "a %zu-byte request gets a %zu-byte block", size, b);
			return;
		}
	}
	ST_CHECK(t, heap_block_bytes(4096 - over + 1) == 0);
	ST_CHECK(t, heap_block_bytes(1) == 1u << MIN_SHIFT);
}

#define OBJ 200

/* A freed object comes back at the next allocation (last in, first
 * out), zeroed by heap_cache_zalloc whatever was left in it; while it
 * waits in the cache the heap counts it free. Other CPUs may allocate
 * meanwhile: one clean try of five is enough. */
SELFTEST(heap_cache_reuse)
{
	static struct heap_cache c = HEAP_CACHE_INIT("test-reuse", OBJ);
	bool counted = false;
	for (int try = 0; try < 5 && !counted; try++) {
		unsigned char *p = heap_cache_alloc(&c);
		ST_CHECK(t, p != NULL);
		if (!p)
			return;
		memset(p, 0xa5, OBJ);
		size_t blocks = heap_blocks_in_use(), bytes = heap_in_use();
		heap_cache_free(&c, p);
		counted = heap_blocks_in_use() == blocks - 1 &&
			  heap_in_use() == bytes - heap_block_bytes(OBJ);
		unsigned char *q = heap_cache_zalloc(&c);
		ST_CHECK(t, q == p);
		ST_CHECK(t, q && q[0] == 0 && q[OBJ - 1] == 0);
		kfree(q); /* a cached object is a heap block: kfree takes it */
	}
	ST_CHECK(t, counted);
}

/* The cache keeps HEAP_CACHE_KEEP objects; more go to the heap, and a
 * drain (what an allocation that finds no memory does) gives the kept
 * ones back: the heap is where it was. */
SELFTEST(heap_cache_keep_and_drain)
{
	static struct heap_cache c = HEAP_CACHE_INIT("test-drain", OBJ);
	static void *objs[HEAP_CACHE_KEEP + 8];
	size_t n = sizeof(objs) / sizeof(objs[0]);
	long delta = 0;
	for (int try = 0; try < 5; try++) {
		size_t bytes = heap_in_use(), pages = pmm_free_count();
		for (size_t i = 0; i < n; i++)
			objs[i] = heap_cache_alloc(&c);
		for (size_t i = 0; i < n; i++)
			heap_cache_free(&c, objs[i]);
		ST_CHECK(t, c.count == HEAP_CACHE_KEEP);
		ST_CHECK(t, heap_cache_blocks() >= HEAP_CACHE_KEEP);
		ST_CHECK(t, heap_cache_drain());
		ST_CHECK(t, c.count == 0);
		delta = (long)(heap_in_use() - bytes);
		if (!delta && pmm_free_count() + 4 >= pages)
			return;
	}
	ST_FAIL(t, "the heap grew by %ld bytes", delta);
}

#ifdef BAREMON_DEBUG
#include "core/debugcheck.h"

/* The debug build sees a cached object as freed: poisoned, a write to
 * it reported when it is handed out again, a kfree of it a double free. */
SELFTEST(debug_heap_cache_poison)
{
	static struct heap_cache c = HEAP_CACHE_INIT("test-poison", OBJ);
	static char msg[256];
	unsigned char *p = heap_cache_alloc(&c);
	ST_CHECK(t, p != NULL);
	if (!p)
		return;
	memset(p, 0, OBJ);
	heap_cache_free(&c, p);
	ST_CHECK(t, p[16] == POISON_BYTE && p[OBJ - 1] == POISON_BYTE);
	p[20] = 1; /* a write after free */
	debug_catch_begin(msg, sizeof(msg));
	unsigned char *q = heap_cache_alloc(&c);
	ST_CHECK(t, debug_catch_end() == 1);
	ST_CHECK(t, q == p && strstr(msg, "write after free") != NULL);
	heap_cache_free(&c, q);
	debug_catch_begin(msg, sizeof(msg));
	kfree(q); /* cached, so already free */
	ST_CHECK(t, debug_catch_end() == 1);
	ST_CHECK(t, strstr(msg, "double free") != NULL);
	heap_cache_drain();
}
#endif

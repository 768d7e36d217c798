/*
 * Object caches (mm.h): a stack of up to HEAP_CACHE_KEEP freed objects
 * of one size, handed out again before the heap is asked. An allocation
 * from a cache is a pop under the cache's lock, a free a push; the heap's
 * class lists, live counts and lock are skipped both ways.
 *
 * The objects stay heap blocks: kfree of one that came from a cache is
 * fine (it goes to the heap), heap_cache_free of one from kmalloc of the
 * cache's size too. A cached object is marked free in its header
 * (heap_cached_put), so the debug build's checks see it as freed: a
 * write to it is reported when it is handed out again, a kfree of it as
 * a double free. Free objects are subtracted from the heap's counts
 * (heap_in_use, heap_blocks_in_use), so leak checks see them as free.
 *
 * Locking: a cache's lock (irqsave) guards its stack and count; the
 * drain list is added to under drain_lock, taken inside a cache's lock
 * when the cache joins it, and walked without it (a cache never leaves
 * it, and joins it whole); the totals are summed from the counts when
 * asked. The heap's lock is taken only after a cache's is dropped.
 */
#include <string.h>
#include "core/kernel.h"
#include "mm.h"
#include "heap_debug.h"

static struct spinlock drain_lock = SPINLOCK_INIT("heap-cache-list");
static struct heap_cache *caches;   /* every cache that ever cached */

/* On c's first free, put c on the drain list (a cache never leaves it).
 * Under c's lock. */
static void register_cache(struct heap_cache *c)
{
	spin_lock(&drain_lock);
	c->block_bytes = heap_block_bytes(c->size);
	c->next = caches;
	__atomic_store_n(&caches, c, __ATOMIC_RELEASE);
	spin_unlock(&drain_lock);
	c->registered = true;
}

static struct heap_cache *first_cache(void)
{
	return __atomic_load_n(&caches, __ATOMIC_ACQUIRE);
}

void *heap_cache_alloc(struct heap_cache *c)
{
	uint64_t f = spin_lock_irqsave(&c->lock);
	void *p = c->count ? c->free[--c->count] : NULL;
	spin_unlock_irqrestore(&c->lock, f);
	if (!p)
		return kmalloc(c->size);
	heap_cached_take(p, c->size, (uint64_t)__builtin_return_address(0));
	return p;
}

void *heap_cache_zalloc(struct heap_cache *c)
{
	void *p = heap_cache_alloc(c);
	if (p)
		memset(p, 0, c->size);
	return p;
}

void heap_cache_free(struct heap_cache *c, void *p)
{
	if (!p)
		return;
	if (!heap_cached_put(p, (uint64_t)__builtin_return_address(0)))
		return; /* a debug report a self-test caught: dropped, as kfree does */
	uint64_t f = spin_lock_irqsave(&c->lock);
	if (!c->registered)
		register_cache(c);
	bool kept = c->count < HEAP_CACHE_KEEP;
	if (kept)
		c->free[c->count++] = p;
	spin_unlock_irqrestore(&c->lock, f);
	if (!kept)
		heap_cached_release(p, c->size);
}

/* Take c's free objects off it, then give them to the heap. */
static bool drain_one(struct heap_cache *c)
{
	void *out[HEAP_CACHE_KEEP];
	uint64_t f = spin_lock_irqsave(&c->lock);
	unsigned n = c->count;
	for (unsigned i = 0; i < n; i++)
		out[i] = c->free[i];
	c->count = 0;
	spin_unlock_irqrestore(&c->lock, f);
	for (unsigned i = 0; i < n; i++)
		heap_cached_release(out[i], c->size);
	return n > 0;
}

bool heap_cache_drain(void)
{
	bool any = false;
	for (struct heap_cache *c = first_cache(); c; c = c->next)
		any |= drain_one(c);
	return any;
}

/* A moment's sums (each count read without its lock). */
size_t heap_cache_blocks(void)
{
	size_t n = 0;
	for (struct heap_cache *c = first_cache(); c; c = c->next)
		n += __atomic_load_n(&c->count, __ATOMIC_RELAXED);
	return n;
}

size_t heap_cache_bytes(void)
{
	size_t n = 0;
	for (struct heap_cache *c = first_cache(); c; c = c->next)
		n += __atomic_load_n(&c->count, __ATOMIC_RELAXED) * c->block_bytes;
	return n;
}

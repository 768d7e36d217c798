/*
 * The debug build's heap checks (BAREMON_DEBUG; layout in heap_debug.h):
 * red zones checked at kfree, freed blocks poisoned and checked when
 * they are handed out again, double frees told from other bad pointers.
 * Each report names the allocation site and, for freed blocks, where
 * they were freed (debugcheck.c panics with it, or gives it to a
 * self-test that asked).
 */
#ifdef BAREMON_DEBUG
#include <string.h>
#include "core/debugcheck.h"
#include "heap_debug.h"

#define SITE(a, b) debug_site(a, b, sizeof(b))

static uint8_t *data_of(struct header *h)
{
	return (uint8_t *)h + HEADER;
}

void heap_debug_fresh(void *block, size_t size)
{
	struct header *h = block;
	memset(block, POISON_BYTE, size);
	h->magic = MAGIC_FREED;
	h->site = 0;
	h->req = 0;
}

/* A block leaving the free list must still be all poison. */
void heap_debug_reuse(struct header *h, size_t size)
{
	uint8_t *p = data_of(h);
	for (size_t i = FREE_LINK_SIZE; i < size - HEADER; i++) {
		if (p[i] == POISON_BYTE)
			continue;
		char a[64], f[64];
		debug_report("heap: write after free at %p (byte %zu of a %zu-byte block "
			     "allocated at %s, freed at %s)", (void *)(p + i), i, size,
			     SITE(h->site, a), SITE(h->req, f));
		return;
	}
}

void heap_debug_alloc(struct header *h, size_t req, size_t size, uint64_t site)
{
	h->site = site;
	h->req = req;
	memset(data_of(h) + req, RED_BYTE, RED_ZONE);
}

bool heap_mark_free(struct header *h, size_t size, uint64_t site)
{
	uint8_t *red = data_of(h) + h->req;
	for (size_t i = 0; i < RED_ZONE; i++) {
		if (red[i] == RED_BYTE)
			continue;
		char a[64], f[64];
		if (debug_report("heap: overflow: %p (%llu bytes, allocated at %s) was "
				 "written at byte %zu past its end; freed at %s",
				 (void *)data_of(h), (unsigned long long)h->req,
				 SITE(h->site, a), i, SITE(site, f)))
			return false;
		break;
	}
	h->magic = MAGIC_FREED;
	h->req = site;
	memset(data_of(h), POISON_BYTE, size - HEADER);
	return true;
}

bool heap_debug_bad_free(struct header *h, uint64_t site)
{
	char a[64], f[64], g[64];
	if (h->magic == MAGIC_FREED)
		return debug_report("heap: double free of %p (allocated at %s, freed at %s, "
				    "freed again at %s)", (void *)data_of(h),
				    SITE(h->site, a), SITE(h->req, f), SITE(site, g));
	return debug_report("heap: kfree(%p) at %s: not a heap block", (void *)data_of(h),
			    SITE(site, g));
}
#endif

/*
 * Reference counts of user pages shared copy-on-write after fork.
 *
 * A page has one owner until fork maps it into a second address space;
 * the count kept here is the number of *extra* mappings, so the zeroed
 * table means "one owner each" and pages never shared cost nothing.
 * page_put frees the page when the last mapping goes.
 *
 * The table (one 32-bit count per physical page up to pmm's limit) is
 * allocated at boot (pageref_init). Counts change with atomics: the
 * mappings of one page belong to different address spaces, each under
 * its own mm->lock.
 */
#include <string.h>
#include "core/kernel.h"
#include "mm.h"

static uint32_t *extra;   /* [pfn]: mappings beyond the first */
static size_t limit;      /* pages the table covers */

void pageref_init(void)
{
	limit = pmm_page_limit();
	size_t pages = ALIGN_UP(limit * sizeof(*extra), PAGE_SIZE) / PAGE_SIZE;
	uint64_t phys = pmm_alloc_pages(pages);  /* zeroed */
	if (!phys)
		panic("pageref: no room for %zu pages of counts", pages);
	extra = phys_to_virt(phys);
}

static uint32_t *count_of(uint64_t phys)
{
	size_t pfn = phys / PAGE_SIZE;
	BUG_ON(pfn >= limit);
	return &extra[pfn];
}

void page_get(uint64_t phys)
{
	__atomic_add_fetch(count_of(phys), 1, __ATOMIC_RELAXED);
}

bool page_shared(uint64_t phys)
{
	return __atomic_load_n(count_of(phys), __ATOMIC_ACQUIRE) != 0;
}

void page_put(uint64_t phys)
{
	uint32_t *c = count_of(phys);
	if (__atomic_fetch_sub(c, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	*c = 0;  /* the last mapping: nobody else can reach the page now */
	pmm_free_pages(phys, 1);
}

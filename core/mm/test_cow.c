/* Self-tests: copy-on-write address spaces (usermm.c, pageref.c). */
#include <string.h>
#include <asm-generic/mman-common.h>
#include "mm.h"
#include "core/selftest.h"
#include "usermm.h"

#define AT 0x400000ULL
#define PAGES 4

/* A private RW area of PAGES pages at AT, each filled with its index. */
static struct mm *filled_mm(void)
{
	struct mm *mm = mm_create();
	if (!mm || mm_map_anon(mm, AT, PAGES * PAGE_SIZE, PROT_READ | PROT_WRITE, 0, "cow")) {
		if (mm)
			mm_put(mm);
		return NULL;
	}
	for (int i = 0; i < PAGES; i++) {
		uint8_t page[64];
		memset(page, 'a' + i, sizeof page);
		mm_write(mm, AT + (uint64_t)i * PAGE_SIZE, page, sizeof page);
	}
	return mm;
}

static uint64_t phys_of(struct mm *mm, uint64_t va)
{
	return mm_translate(mm, va, false) & PTE_ADDR;
}

/* fork shares pages; a write gives the writer its own; all pages come
 * back when both address spaces go. */
static void cow_round(struct selftest_ctx *t, bool check)
{
	struct mm *parent = filled_mm(), *child = parent ? mm_clone(parent) : NULL;
	ST_CHECK(t, parent && child);
	if (!parent || !child)
		return;
	uint64_t p0 = phys_of(parent, AT);
	if (check) {
		ST_CHECK(t, p0 && phys_of(child, AT) == p0);
		ST_CHECK(t, page_shared(p0));
	}
	uint8_t c = 'z', got = 0;
	ST_CHECK(t, mm_write(child, AT, &c, 1) == 0);
	uint64_t c0 = phys_of(child, AT);
	if (check) {
		ST_CHECK(t, c0 && c0 != p0);          /* the child has its copy */
		ST_CHECK(t, !page_shared(p0) && !page_shared(c0));
		ST_CHECK(t, mm_read(parent, AT, &got, 1) == 0 && got == 'a');
		ST_CHECK(t, mm_read(child, AT, &got, 1) == 0 && got == 'z');
		ST_CHECK(t, mm_read(child, AT + 1, &got, 1) == 0 && got == 'a');
		/* The parent is the last mapping of page 0 now: no copy. */
		ST_CHECK(t, mm_write(parent, AT, &c, 1) == 0 && phys_of(parent, AT) == p0);
		/* Page 1 is still shared, and unmapping it in the parent
		 * leaves the child's. */
		uint64_t p1 = phys_of(parent, AT + PAGE_SIZE);
		ST_CHECK(t, phys_of(child, AT + PAGE_SIZE) == p1 && page_shared(p1));
		ST_CHECK(t, mm_unmap(parent, AT + PAGE_SIZE, PAGE_SIZE) == 0);
		ST_CHECK(t, !page_shared(p1));
		ST_CHECK(t, mm_read(child, AT + PAGE_SIZE, &got, 1) == 0 && got == 'b');
	}
	mm_put(child);
	mm_put(parent);
}

SELFTEST(mm_cow_fork)
{
	cow_round(t, false); /* warms the heap: its pages stay with it */
	size_t before = pmm_free_count();
	cow_round(t, true);
	ST_CHECK(t, pmm_free_count() == before);
}

/* Self-tests: the heap gives its emptied pages back (heap.c). */
#include "mm.h"
#include "selftest.h"

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

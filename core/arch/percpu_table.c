/*
 * Per-CPU tables sized at boot (percpu_table.h). The tables follow each
 * other in the VM_TABLES_BASE window (mm/mm.h), each starting on a page;
 * their pages are placed by node one at a time.
 *
 * Written once by the boot CPU before interrupts are enabled; read-only
 * (the pointers and the slot count) afterwards, so no lock.
 */
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "percpu_table.h"

extern const struct percpu_table __percpu_tables_start[], __percpu_tables_end[];

static unsigned slots = 1;
static size_t bytes_total;

unsigned percpu_slots(void)
{
	return slots;
}

size_t percpu_tables_bytes(void)
{
	return bytes_total;
}

const struct percpu_table *percpu_table_at(unsigned i)
{
	const struct percpu_table *t = __percpu_tables_start + i;
	return t < __percpu_tables_end ? t : NULL;
}

unsigned percpu_page_cpu(size_t off, size_t elem)
{
	size_t page = off & ~(size_t)(PAGE_SIZE - 1), best_bytes = 0;
	unsigned best = 0;
	for (size_t c = page / elem; c < slots && c * elem < page + PAGE_SIZE; c++) {
		size_t lo = c * elem > page ? c * elem : page;
		size_t hi = (c + 1) * elem < page + PAGE_SIZE ? (c + 1) * elem : page + PAGE_SIZE;
		if (hi - lo > best_bytes) {
			best_bytes = hi - lo;
			best = (unsigned)c;
		}
	}
	return best;
}

/* Map `size` bytes at virt, table elements of `elem` bytes, each page
 * on the node of the CPU it is placed for. */
static void place_pages(uint64_t virt, size_t size, size_t elem,
			unsigned (*node_of)(unsigned cpu))
{
	for (size_t off = 0; off < size; off += PAGE_SIZE) {
		unsigned cpu = percpu_page_cpu(off, elem);
		uint64_t phys = pmm_alloc_pages_node(1, node_of(cpu));
		if (!phys)
			panic("percpu: no memory for the per-cpu tables");
		vm_map_table_page(virt + off, phys);
	}
}

void percpu_tables_init(unsigned n, unsigned (*node_of)(unsigned cpu))
{
	BUG_ON(n < 1 || n > MAX_CPUS || bytes_total);
	slots = n;
	uint64_t virt = VM_TABLES_BASE;
	unsigned count = 0;
	for (const struct percpu_table *t = __percpu_tables_start;
	     t < __percpu_tables_end; t++, count++) {
		size_t size = ALIGN_UP(t->elem * n, PAGE_SIZE);
		BUG_ON(virt + size > VM_TABLES_END);
		place_pages(virt, size, t->elem, node_of);
		*t->table = (void *)virt;
		virt += size;
		bytes_total += size;
	}
	klog("percpu: %u tables for %u cpu%s: %zu KiB", count, n, n == 1 ? "" : "s",
	     bytes_total / 1024);
}

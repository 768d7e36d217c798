/* The loader's initial page tables. See pagetables.h. */
#include "pagetables.h"
#include "bootinfo.h"

#define SIZE_2M (2ULL << 20)
#define SIZE_4G (4ULL << 30)

static unsigned idx(uint64_t virt, int level)
{
	return (virt >> (12 + 9 * level)) & 511;
}

/* The table `level - 1` below entry idx(virt, level) of `table`, created
 * on demand. Returns a pointer to it, or 0 when out of memory. */
static uint64_t *next_table(const struct pt_alloc *a, uint64_t *table,
			    uint64_t virt, int level)
{
	uint64_t *e = &table[idx(virt, level)];
	if (!(*e & PTE_P)) {
		uint64_t page = a->page(a->ctx);
		if (!page)
			return 0;
		*e = page | PTE_P | PTE_W;
	}
	return a->to_ptr(a->ctx, *e & PTE_ADDR_MASK);
}

/* Map one page of size 4 KiB (leaf_level 0) or 2 MiB (leaf_level 1). */
static int map_page(const struct pt_alloc *a, uint64_t *pml4, uint64_t virt,
		    uint64_t phys, int leaf_level)
{
	uint64_t *t = pml4;
	for (int level = 3; level > leaf_level; level--) {
		t = next_table(a, t, virt, level);
		if (!t)
			return -1;
	}
	t[idx(virt, leaf_level)] = phys | PTE_P | PTE_W |
				   (leaf_level ? PTE_PS : 0);
	return 0;
}

int boot_build_page_tables(const struct pt_alloc *a, uint64_t top,
			   uint64_t kernel_phys, uint64_t kernel_virt,
			   uint64_t kernel_size, uint64_t *pml4)
{
	uint64_t root = a->page(a->ctx);
	if (!root)
		return -1;
	uint64_t *t = a->to_ptr(a->ctx, root);

	if (top < SIZE_4G)
		top = SIZE_4G;
	top = (top + SIZE_2M - 1) & ~(SIZE_2M - 1);
	for (uint64_t p = 0; p < top; p += SIZE_2M) {
		if (map_page(a, t, p, p, 1) || map_page(a, t, PHYSMAP_BASE + p, p, 1))
			return -1;
	}
	for (uint64_t off = 0; off < kernel_size; off += 4096) {
		if (map_page(a, t, kernel_virt + off, kernel_phys + off, 0))
			return -1;
	}
	*pml4 = root;
	return 0;
}

uint64_t boot_translate(const struct pt_alloc *a, uint64_t pml4, uint64_t virt)
{
	uint64_t table = pml4;
	for (int level = 3; level >= 0; level--) {
		uint64_t e = ((uint64_t *)a->to_ptr(a->ctx, table))[idx(virt, level)];
		if (!(e & PTE_P))
			return ~0ULL;
		if (level == 0 || (e & PTE_PS)) {
			uint64_t span = 1ULL << (12 + 9 * level);
			return (e & PTE_ADDR_MASK & ~(span - 1)) | (virt & (span - 1));
		}
		table = e & PTE_ADDR_MASK;
	}
	return ~0ULL;
}

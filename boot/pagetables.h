/*
 * The loader's initial page tables (4-level, 4 KiB tables):
 *   - identity map of [0, top) with 2 MiB pages, so the loader keeps running
 *     after it loads CR3;
 *   - the same range again at PHYSMAP_BASE (the kernel's direct map);
 *   - the kernel image at kernel_virt with 4 KiB pages.
 * Everything is writable and executable: the kernel replaces these tables
 * with W^X ones early (core/mm/vm.c). Pure code over an allocator callback, so
 * host unit tests walk the result.
 */
#ifndef BAREMON_BOOT_PAGETABLES_H
#define BAREMON_BOOT_PAGETABLES_H

#include <stdint.h>

/* Returns the physical address of a zeroed, 4 KiB aligned page, or 0.
 * `to_ptr` turns a physical address into a pointer the builder may write. */
struct pt_alloc {
	uint64_t (*page)(void *ctx);
	void *(*to_ptr)(void *ctx, uint64_t phys);
	void *ctx;
};

#define PTE_P   (1ULL << 0)
#define PTE_W   (1ULL << 1)
#define PTE_PS  (1ULL << 7)
#define PTE_ADDR_MASK 0x000ffffffffff000ULL

/*
 * Build the tables; *pml4 receives the physical address of the top table.
 * `top` is rounded up to 2 MiB and at least 4 GiB (to cover MMIO below
 * 4 GiB: LAPIC, IOAPIC, HPET). Returns 0, or -1 when the allocator fails.
 */
int boot_build_page_tables(const struct pt_alloc *a, uint64_t top,
			   uint64_t kernel_phys, uint64_t kernel_virt,
			   uint64_t kernel_size, uint64_t *pml4);

/* Walk tables built above: physical address `virt` maps to, or ~0 if none. */
uint64_t boot_translate(const struct pt_alloc *a, uint64_t pml4, uint64_t virt);

#endif

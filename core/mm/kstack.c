/*
 * Kernel stacks with guard pages (kstack.h). A stack takes size/4K + 1
 * contiguous pages of the direct map; the lowest becomes the guard (its
 * 2 MiB page of the direct map is split once, vm.c) and is mapped again
 * before the pages go back to the allocator.
 *
 * Locking: none here; vm.c's lock covers the page-table change.
 */
#include "core/kernel.h"
#include "kstack.h"
#include "mm.h"

/* Guard the lowest of `pages` pages at phys; the stack's base. */
static uint64_t guard_stack(uint64_t phys, size_t pages)
{
	if (!phys)
		return 0;
	uint64_t guard = (uint64_t)phys_to_virt(phys);
	if (vm_guard_page(guard) < 0) {
		pmm_free_pages(phys, pages);
		return 0;
	}
	return guard + PAGE_SIZE;
}

uint64_t kstack_alloc(size_t size)
{
	size_t pages = size / PAGE_SIZE + 1;
	return guard_stack(pmm_alloc_pages(pages), pages);
}

uint64_t kstack_alloc_node(size_t size, unsigned node)
{
	size_t pages = size / PAGE_SIZE + 1;
	return guard_stack(pmm_alloc_pages_node(pages, node), pages);
}

void kstack_free(uint64_t base, size_t size)
{
	uint64_t guard = base - PAGE_SIZE;
	vm_unguard_page(guard);
	pmm_free_pages(virt_to_phys((void *)guard), size / PAGE_SIZE + 1);
}

void kstack_guard_static(uint64_t base)
{
	if (vm_guard_page(base - PAGE_SIZE) < 0)
		panic("kstack: no guard page below the stack at %#llx",
		      (unsigned long long)base);
}

/*
 * Memory management: the physical page allocator (pmm.c), kernel page
 * tables (vm.c) and the kernel heap (heap.c).
 *
 * Address space: all RAM (and MMIO mapped with vm_map_mmio) appears at
 * PHYSMAP_BASE + phys; the kernel image at KERNEL_VMA_BASE; per-CPU
 * tables at VM_TABLES_BASE.
 */
#ifndef BAREMON_MM_H
#define BAREMON_MM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "boot/bootinfo.h"
#include "core/spinlock.h"

static inline void *phys_to_virt(uint64_t phys)
{
	return (void *)(PHYSMAP_BASE + phys);
}

/* Physical address of a direct-map or kernel-image virtual address. */
uint64_t virt_to_phys(const void *virt);

/* --- physical pages (pmm.c) --- */
void pmm_init(const struct boot_info *bi);
uint64_t pmm_alloc_pages(size_t n);     /* contiguous, zeroed; 0 if none */
static inline uint64_t pmm_alloc_page(void) { return pmm_alloc_pages(1); }
/* One page whose old content is left in it: for a caller that overwrites
 * all of it at once (a copy-on-write copy). */
uint64_t pmm_alloc_page_dirty(void);
/* n contiguous zeroed pages inside physical [lo, hi); 0 if none there. */
uint64_t pmm_alloc_pages_in(size_t n, uint64_t lo, uint64_t hi);
/* n contiguous zeroed pages on NUMA node `node` (arch/numa.h) when the
 * SRAT describes its memory and it has room, else anywhere (node.c). */
uint64_t pmm_alloc_pages_node(size_t n, unsigned node);
void pmm_free_pages(uint64_t phys, size_t n);
size_t pmm_free_count(void);
size_t pmm_total_count(void);           /* usable pages at boot */
size_t pmm_page_limit(void);            /* pages up to the highest usable */

/* --- user pages shared copy-on-write (pageref.c) ---
 * A mapped user page starts with one mapping; page_get adds one,
 * page_put drops one and frees the page with the last. page_shared:
 * mapped more than once (a write must copy it). */
void pageref_init(void);                /* after pmm_init */
void page_get(uint64_t phys);
void page_put(uint64_t phys);
bool page_shared(uint64_t phys);

/* --- page tables (vm.c) --- */
void vm_init(const struct boot_info *bi);
/* Map [phys, phys+size) uncached into the direct map; returns its address. */
void *vm_map_mmio(uint64_t phys, size_t size);
/* The page-table entry flags for a kernel virtual address (0 if unmapped). */
uint64_t vm_lookup_flags(uint64_t virt);
uint64_t vm_kernel_pml4(void);
/* The physical address a kernel virtual address maps to; 0 if none. */
uint64_t vm_lookup_phys(uint64_t virt);

/* Boot-time tables outside the direct map (arch/percpu_table.h): their
 * pages are mapped one by one (4 KiB, RW, NX) so each page can come from
 * another NUMA node. Mapped before any user address space exists (whose
 * top level copies the kernel's), never unmapped. */
#define VM_TABLES_BASE 0xffffc00000000000ULL
#define VM_TABLES_END  0xffffc08000000000ULL
void vm_map_table_page(uint64_t virt, uint64_t phys);
/* Map/unmap [phys, phys+size) at the same virtual address (SMP start-up);
 * unmapping drops the whole lower half of the kernel's tables. */
void vm_map_identity(uint64_t phys, size_t size);
void vm_unmap_identity(uint64_t phys, size_t size);

/* Kernel stack guards (kstack.c): make the 4 KiB page at virt (direct
 * map or image) not-present, so a touch faults; -1 if it is not mapped or
 * a page table cannot be had. vm_unguard_page maps it again; vm_is_guard
 * tells a fault address on such a page. */
int vm_guard_page(uint64_t virt);
void vm_unguard_page(uint64_t virt);
bool vm_is_guard(uint64_t virt);

#define PTE_PRESENT  (1ULL << 0)
#define PTE_WRITE    (1ULL << 1)
#define PTE_USER     (1ULL << 2)
#define PTE_PWT      (1ULL << 3)
#define PTE_PCD      (1ULL << 4)
#define PTE_HUGE     (1ULL << 7)
#define PTE_GLOBAL   (1ULL << 8)
#define PTE_GUARD    (1ULL << 9)  /* software bit: a stack guard page */
#define PTE_NX       (1ULL << 63)
#define PTE_ADDR     0x000ffffffffff000ULL

/* --- heap (heap.c) --- */
void *kmalloc(size_t size);          /* 16-byte aligned; NULL when out */
void *kzalloc(size_t size);
void kfree(void *p);
size_t heap_in_use(void);
size_t heap_blocks_in_use(void);     /* live blocks */
size_t heap_pages_carved(void);      /* pages now split into small blocks */
/* The block a request of size bytes takes (its class), 0 past 4 KiB. */
size_t heap_block_bytes(size_t size);

/* --- object caches (heap_cache.c) ---
 * A cache keeps up to HEAP_CACHE_KEEP freed objects of one size (at most
 * a small block, 4 KiB with the header) for the next allocation of that
 * size, skipping the heap's lists and lock. Its free objects count as
 * free in heap_in_use/heap_blocks_in_use, are marked free in their
 * headers as kfree marks a block (the debug build poisons them, checks
 * their red zone when cached and their poison when handed out again),
 * and go back to the heap when an allocation finds no memory
 * (heap_cache_drain). Locking: each cache's own lock (irqsave), then
 * heap_lock when it gives objects back. */
#define HEAP_CACHE_KEEP 32
struct heap_cache {
	const char *name;
	size_t size;                  /* bytes of each object */
	struct spinlock lock;
	unsigned count;               /* free objects in free[] */
	bool registered;              /* on the drain list */
	size_t block_bytes;           /* heap block of one object (once registered) */
	void *free[HEAP_CACHE_KEEP];  /* last in, first out */
	struct heap_cache *next;      /* the drain list */
};
#define HEAP_CACHE_INIT(n, sz) { .name = n, .size = sz, .lock = SPINLOCK_INIT(n) }
void *heap_cache_alloc(struct heap_cache *c);   /* not zeroed; NULL when out */
void *heap_cache_zalloc(struct heap_cache *c);
void heap_cache_free(struct heap_cache *c, void *p); /* p from this cache, or NULL */
/* Give every cache's free objects back to the heap: true if any went. */
bool heap_cache_drain(void);
size_t heap_cache_blocks(void);  /* free objects cached, all caches */
size_t heap_cache_bytes(void);   /* their heap blocks' bytes */
/* heap.c's side: mark p (a small block) free as kfree would, false when
 * a debug check caught a report (p must not be cached); revive it for a
 * caller of size bytes; give a cached block back to the heap. */
bool heap_cached_put(void *p, uint64_t site);
/* heap_cached_take(p, size, site) is inline in heap_debug.h. */
void heap_cached_release(void *p, size_t size);

#endif

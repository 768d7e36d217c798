/*
 * Physical page allocator: one bit per 4 KiB page up to the highest usable
 * address (1 = in use). The bitmap itself lives in the first usable region
 * large enough. Next-fit search from a hint: past the last allocation,
 * moved back to a freed page, so pages freed are the first reused (a fork
 * takes what the last exit gave back, and the search stays short).
 *
 * Locking: pmm_lock (irqsave) protects the bitmap, the hint and the count.
 */
#include <string.h>
#include "core/kernel.h"
#include "mm.h"
#include "core/spinlock.h"

static struct spinlock pmm_lock = SPINLOCK_INIT("pmm");
static uint64_t *bitmap;
static size_t npages;      /* pages the bitmap covers */
static size_t nfree, ntotal;
static size_t hint;

static inline bool page_used(size_t i) { return bitmap[i / 64] >> (i % 64) & 1; }
static inline void mark_used(size_t i) { bitmap[i / 64] |= 1ULL << (i % 64); }
static inline void mark_free(size_t i) { bitmap[i / 64] &= ~(1ULL << (i % 64)); }

static uint64_t usable_top(const struct boot_info *bi)
{
	uint64_t top = 0;
	for (uint32_t i = 0; i < bi->mmap_count; i++) {
		const struct boot_mem_region *r = &bi->mmap[i];
		if (r->type == BOOT_MEM_USABLE && r->base + r->pages * PAGE_SIZE > top)
			top = r->base + r->pages * PAGE_SIZE;
	}
	return top;
}

void pmm_init(const struct boot_info *bi)
{
	npages = usable_top(bi) / PAGE_SIZE;
	size_t bytes = ALIGN_UP((npages + 63) / 64 * 8, PAGE_SIZE);
	uint64_t where = 0;
	for (uint32_t i = 0; i < bi->mmap_count && !where; i++) {
		const struct boot_mem_region *r = &bi->mmap[i];
		/* Skip page 0 and low memory: leave below 1 MiB alone (SMP
		 * trampoline and firmware habits). */
		uint64_t base = r->base < MiB(1) ? MiB(1) : r->base;
		uint64_t end = r->base + r->pages * PAGE_SIZE;
		if (r->type == BOOT_MEM_USABLE && end > base && end - base >= bytes)
			where = base;
	}
	if (!where)
		panic("pmm: no room for a %zu-byte page bitmap", bytes);
	bitmap = phys_to_virt(where);
	memset(bitmap, 0xff, bytes);
	for (uint32_t i = 0; i < bi->mmap_count; i++) {
		const struct boot_mem_region *r = &bi->mmap[i];
		if (r->type != BOOT_MEM_USABLE)
			continue;
		for (uint64_t p = r->base / PAGE_SIZE; p < r->base / PAGE_SIZE + r->pages; p++) {
			if (p * PAGE_SIZE < MiB(1))
				continue;
			if (p * PAGE_SIZE >= where && p * PAGE_SIZE < where + bytes)
				continue;
			mark_free(p);
			nfree++;
		}
	}
	ntotal = nfree;
	hint = MiB(1) / PAGE_SIZE;
	klog("pmm: %zu MiB usable in %u regions, bitmap %zu KiB at %#llx",
	     nfree / 256, bi->mmap_count, bytes / 1024, (unsigned long long)where);
	if (bi->mmap_dropped)
		klog("pmm: warning: %u memory map regions did not fit the loader's "
		     "table of %u; their memory is not used", bi->mmap_dropped,
		     (unsigned)BOOT_MMAP_MAX);
}

/* First index of a run of n free pages in [from, to), or npages.
 * A word of the bitmap with every page used is passed over whole. */
static size_t find_run(size_t from, size_t to, size_t n)
{
	size_t run = 0;
	if (to > npages)
		to = npages;
	for (size_t i = from; i < to; i++) {
		if (!run && i % 64 == 0 && bitmap[i / 64] == ~0ULL) {
			i += 63;
			continue;
		}
		if (page_used(i)) {
			run = 0;
			continue;
		}
		if (++run == n)
			return i + 1 - n;
	}
	return npages;
}

/* Mark [at, at+n) used; pmm_lock held. */
static void claim_run(size_t at, size_t n)
{
	for (size_t i = at; i < at + n; i++)
		mark_used(i);
	nfree -= n;
}

/*
 * Out of memory: the first request that finds no page at all says so on
 * the console, with the figures, before whatever fails next (a process
 * killed, an ENOMEM, or a panic of code that cannot do without). Once
 * an eighth of memory is free again the next exhaustion is reported
 * too. oom_reported is written under pmm_lock; the report is printed
 * after dropping it.
 */
static bool oom_reported;

static void oom_report(size_t n, size_t free_now)
{
	klog("oom: out of memory: no run of %zu free page%s (%zu KiB free of %zu KiB; "
	     "%zu heap pages carved into small blocks)", n, n == 1 ? "" : "s",
	     free_now * 4, ntotal * 4, heap_pages_carved());
}

/* n contiguous pages, their content left as it was; 0 if none. */
static uint64_t take_pages(size_t n)
{
	if (n == 0)
		return 0;
	uint64_t f = spin_lock_irqsave(&pmm_lock);
	size_t at = find_run(hint, npages, n);
	if (at == npages)
		at = find_run(0, npages, n);
	if (at == npages) {
		/* A large run may fail for want of contiguity alone: only a
		 * failed single page is exhaustion. */
		bool report = n == 1 && !oom_reported;
		size_t free_now = nfree;
		if (report)
			oom_reported = true;
		spin_unlock_irqrestore(&pmm_lock, f);
		if (report)
			oom_report(n, free_now);
		return 0;
	}
	if (oom_reported && nfree > ntotal / 8)
		oom_reported = false;
	claim_run(at, n);
	hint = at + n;
	spin_unlock_irqrestore(&pmm_lock, f);
	return at * PAGE_SIZE;
}

uint64_t pmm_alloc_pages_in(size_t n, uint64_t lo, uint64_t hi)
{
	if (n == 0)
		return 0;
	size_t from = ALIGN_UP(lo, PAGE_SIZE) / PAGE_SIZE, to = hi / PAGE_SIZE;
	uint64_t f = spin_lock_irqsave(&pmm_lock);
	size_t at = find_run(from, to, n);
	if (at != npages)
		claim_run(at, n);
	spin_unlock_irqrestore(&pmm_lock, f);
	if (at == npages)
		return 0;
	memset(phys_to_virt(at * PAGE_SIZE), 0, n * PAGE_SIZE);
	return at * PAGE_SIZE;
}

uint64_t pmm_alloc_pages(size_t n)
{
	uint64_t phys = take_pages(n);
	if (phys)
		memset(phys_to_virt(phys), 0, n * PAGE_SIZE);
	return phys;
}

uint64_t pmm_alloc_page_dirty(void)
{
	return take_pages(1);
}

void pmm_free_pages(uint64_t phys, size_t n)
{
	uint64_t f = spin_lock_irqsave(&pmm_lock);
	for (size_t i = phys / PAGE_SIZE; i < phys / PAGE_SIZE + n; i++) {
		if (i >= npages || !page_used(i))
			panic("pmm: freeing page %#llx that is not allocated",
			      (unsigned long long)(i * PAGE_SIZE));
		mark_free(i);
	}
	nfree += n;
	if (phys / PAGE_SIZE < hint) /* reuse the freed pages first */
		hint = phys / PAGE_SIZE;
	spin_unlock_irqrestore(&pmm_lock, f);
}

size_t pmm_free_count(void)
{
	return nfree;
}

size_t pmm_page_limit(void)
{
	return npages;
}

size_t pmm_total_count(void)
{
	return ntotal;
}

/*
 * The kernel's page tables, replacing the loader's at boot:
 *   PHYSMAP_BASE + phys -> phys for all RAM-like regions (RW, NX, global),
 *   2 MiB pages where alignment allows;
 *   the kernel image W^X: text RX, rodata R+NX, data/bss RW+NX;
 *   MMIO added on demand by vm_map_mmio (uncached, RW, NX).
 * No identity map survives: a NULL dereference in the kernel faults.
 *
 * Guard pages (vm_guard_page): a 4 KiB page of the direct map or the
 * image made not-present and marked PTE_GUARD, so the entry keeps its
 * address and flags for vm_unguard_page; a 2 MiB page around it is split
 * first (the new table maps the same addresses with the same flags).
 *
 * Locking: vm_lock (irqsave) serialises changes to the kernel tables.
 * The tables are shared by all CPUs; upper levels are created once and
 * never freed, so lookups without the lock see consistent entries.
 */
#include <string.h>
#include "core/kernel.h"
#include "mm.h"
#include "core/spinlock.h"
#include "tlb.h"
#include "core/arch/msr-index.h"
#include "core/arch/x86.h"

extern const char __kernel_start[], __text_start[], __text_end[];
extern const char __rodata_start[], __rodata_end[];
extern const char __data_start[], __data_end[];

static struct spinlock vm_lock = SPINLOCK_INIT("vm");
static uint64_t kernel_pml4;
static uint64_t kernel_phys_base;

static unsigned pt_index(uint64_t virt, int level)
{
	return (virt >> (12 + 9 * level)) & 511;
}

uint64_t virt_to_phys(const void *virt)
{
	uint64_t v = (uint64_t)virt;
	if (v >= KERNEL_VMA_BASE)
		return v - (uint64_t)__kernel_start + kernel_phys_base;
	if (v >= VM_TABLES_BASE && v < VM_TABLES_END)
		return vm_lookup_phys(v);
	return v - PHYSMAP_BASE;
}

static uint64_t *table_at(uint64_t phys)
{
	return phys_to_virt(phys & PTE_ADDR);
}

/* The table below entry `virt` at `level`, created if missing. */
static uint64_t *walk_create(uint64_t *t, uint64_t virt, int level)
{
	uint64_t *e = &t[pt_index(virt, level)];
	if (!(*e & PTE_PRESENT)) {
		uint64_t page = pmm_alloc_page();
		if (!page)
			panic("vm: out of memory for page tables");
		*e = page | PTE_PRESENT | PTE_WRITE;
	}
	if (*e & PTE_HUGE)
		panic("vm: %#llx is inside a huge page", (unsigned long long)virt);
	return table_at(*e);
}

/* Map one page of 4 KiB (level 0) or 2 MiB (level 1). */
static void map_one(uint64_t virt, uint64_t phys, uint64_t flags, int level)
{
	uint64_t *t = table_at(kernel_pml4);
	for (int l = 3; l > level; l--)
		t = walk_create(t, virt, l);
	t[pt_index(virt, level)] = phys | flags | PTE_PRESENT | (level ? PTE_HUGE : 0);
}

static void map_range(uint64_t virt, uint64_t phys, uint64_t size, uint64_t flags)
{
	uint64_t end = phys + size;
	while (phys < end) {
		bool huge = !(virt & (MiB(2) - 1)) && !(phys & (MiB(2) - 1)) &&
			    end - phys >= MiB(2);
		map_one(virt, phys, flags, huge ? 1 : 0);
		uint64_t step = huge ? MiB(2) : PAGE_SIZE;
		virt += step;
		phys += step;
	}
}

static bool direct_mapped_type(uint32_t type)
{
	return type == BOOT_MEM_USABLE || type == BOOT_MEM_BOOT_KEEP ||
	       type == BOOT_MEM_ACPI_RECLAIM || type == BOOT_MEM_ACPI_NVS ||
	       type == BOOT_MEM_RUNTIME;
}

static void map_kernel_section(const char *start, const char *end, uint64_t flags)
{
	uint64_t s = ALIGN_DOWN((uint64_t)start, PAGE_SIZE);
	uint64_t e = ALIGN_UP((uint64_t)end, PAGE_SIZE);
	map_range(s, virt_to_phys((void *)s), e - s, flags | PTE_GLOBAL);
}

void vm_init(const struct boot_info *bi)
{
	kernel_phys_base = bi->kernel_phys;
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	write_cr0(read_cr0() | CR0_WP);

	kernel_pml4 = pmm_alloc_page();
	for (uint32_t i = 0; i < bi->mmap_count; i++) {
		const struct boot_mem_region *r = &bi->mmap[i];
		if (direct_mapped_type(r->type))
			map_range(PHYSMAP_BASE + r->base, r->base, r->pages * PAGE_SIZE,
				  PTE_WRITE | PTE_NX | PTE_GLOBAL);
	}
	map_kernel_section(__text_start, __text_end, 0);
	map_kernel_section(__rodata_start, __rodata_end, PTE_NX);
	map_kernel_section(__data_start, __data_end, PTE_WRITE | PTE_NX);
	/* A framebuffer, if any, stays reachable for a future console. */
	if (bi->fb.base)
		vm_map_mmio(bi->fb.base, bi->fb.size);

	write_cr3(kernel_pml4);
	write_cr4(read_cr4() | CR4_PGE);
	klog("vm: kernel tables at %#llx, text %zu KiB RX, rodata %zu KiB R, data %zu KiB RW",
	     (unsigned long long)kernel_pml4,
	     (size_t)(__text_end - __text_start) / 1024,
	     (size_t)(__rodata_end - __rodata_start) / 1024,
	     (size_t)(__data_end - __data_start) / 1024);
}

void *vm_map_mmio(uint64_t phys, size_t size)
{
	uint64_t start = ALIGN_DOWN(phys, PAGE_SIZE);
	uint64_t end = ALIGN_UP(phys + size, PAGE_SIZE);
	uint64_t f = spin_lock_irqsave(&vm_lock);
	for (uint64_t p = start; p < end; p += PAGE_SIZE) {
		if (vm_lookup_flags(PHYSMAP_BASE + p) & PTE_PRESENT)
			continue; /* RAM-backed or mapped before */
		map_one(PHYSMAP_BASE + p, p, PTE_WRITE | PTE_NX | PTE_PCD | PTE_PWT, 0);
		invlpg(PHYSMAP_BASE + p);
	}
	spin_unlock_irqrestore(&vm_lock, f);
	return phys_to_virt(phys);
}

/* Identity mappings in the lower half, for the SMP trampoline only: the
 * tables they create are freed again by vm_unmap_identity. */
void vm_map_identity(uint64_t phys, size_t size)
{
	uint64_t f = spin_lock_irqsave(&vm_lock);
	for (uint64_t p = ALIGN_DOWN(phys, PAGE_SIZE); p < phys + size; p += PAGE_SIZE)
		map_one(p, p, PTE_WRITE, 0);
	spin_unlock_irqrestore(&vm_lock, f);
}

void vm_unmap_identity(uint64_t phys, size_t size)
{
	(void)phys;
	(void)size;
	uint64_t f = spin_lock_irqsave(&vm_lock);
	uint64_t *pml4 = table_at(kernel_pml4);
	uint64_t pdpt = pml4[0];
	pml4[0] = 0;
	write_cr3(kernel_pml4); /* flush the whole lower half */
	spin_unlock_irqrestore(&vm_lock, f);
	if (!(pdpt & PTE_PRESENT))
		return;
	/* Free the three levels of tables below slot 0. */
	uint64_t *l3 = table_at(pdpt);
	for (int i = 0; i < 512; i++) {
		if (!(l3[i] & PTE_PRESENT))
			continue;
		uint64_t *l2 = table_at(l3[i]);
		for (int j = 0; j < 512; j++)
			if (l2[j] & PTE_PRESENT)
				pmm_free_pages(l2[j] & PTE_ADDR, 1);
		pmm_free_pages(l3[i] & PTE_ADDR, 1);
	}
	pmm_free_pages(pdpt & PTE_ADDR, 1);
}

/* Replace the 2 MiB entry *e by a table of 512 4 KiB entries that map
 * the same addresses with the same flags. Called with vm_lock held. */
static bool split_huge(uint64_t *e)
{
	uint64_t page = pmm_alloc_page();
	if (!page)
		return false;
	uint64_t *pt = phys_to_virt(page);
	uint64_t base = *e & PTE_ADDR & ~(MiB(2) - 1);
	uint64_t flags = *e & ~PTE_ADDR & ~PTE_HUGE;
	for (int i = 0; i < 512; i++)
		pt[i] = (base + (uint64_t)i * PAGE_SIZE) | flags;
	/* One 8-byte store: every CPU sees either the old or the new entry,
	 * and both translate alike. */
	__atomic_store_n(e, page | PTE_PRESENT | PTE_WRITE, __ATOMIC_RELEASE);
	return true;
}

/* The 4 KiB entry for a mapped kernel address, splitting a 2 MiB page;
 * NULL if unmapped or out of memory. Called with vm_lock held. */
static uint64_t *pte_of(uint64_t virt)
{
	uint64_t *t = table_at(kernel_pml4);
	for (int level = 3; level > 0; level--) {
		uint64_t *e = &t[pt_index(virt, level)];
		if (!(*e & PTE_PRESENT))
			return NULL;
		if ((*e & PTE_HUGE) && (level != 1 || !split_huge(e)))
			return NULL;
		t = table_at(*e);
	}
	return &t[pt_index(virt, 0)];
}

int vm_guard_page(uint64_t virt)
{
	uint64_t f = spin_lock_irqsave(&vm_lock);
	uint64_t *e = pte_of(virt);
	bool ok = e && (*e & PTE_PRESENT);
	if (ok)
		*e = (*e & ~PTE_PRESENT) | PTE_GUARD;
	spin_unlock_irqrestore(&vm_lock, f);
	if (!ok)
		return -1;
	tlb_flush_kernel_page(virt);
	return 0;
}

void vm_unguard_page(uint64_t virt)
{
	uint64_t f = spin_lock_irqsave(&vm_lock);
	uint64_t *e = pte_of(virt);
	BUG_ON(!e || !(*e & PTE_GUARD));
	/* A not-present entry is never cached: no flush needed. */
	*e = (*e & ~PTE_GUARD) | PTE_PRESENT;
	spin_unlock_irqrestore(&vm_lock, f);
}

bool vm_is_guard(uint64_t virt)
{
	uint64_t *t = table_at(kernel_pml4);
	for (int level = 3; level > 0; level--) {
		uint64_t e = t[pt_index(virt, level)];
		if (!(e & PTE_PRESENT) || (e & PTE_HUGE))
			return false;
		t = table_at(e);
	}
	uint64_t e = t[pt_index(virt, 0)];
	return !(e & PTE_PRESENT) && (e & PTE_GUARD);
}

uint64_t vm_lookup_flags(uint64_t virt)
{
	uint64_t *t = table_at(kernel_pml4);
	for (int level = 3; level >= 0; level--) {
		uint64_t e = t[pt_index(virt, level)];
		if (!(e & PTE_PRESENT))
			return 0;
		if (level == 0 || (e & PTE_HUGE))
			return e & ~PTE_ADDR;
		t = table_at(e);
	}
	return 0;
}

uint64_t vm_lookup_phys(uint64_t virt)
{
	uint64_t *t = table_at(kernel_pml4);
	for (int level = 3; level >= 0; level--) {
		uint64_t e = t[pt_index(virt, level)];
		if (!(e & PTE_PRESENT))
			return 0;
		if (level == 0 || (e & PTE_HUGE)) {
			uint64_t span = PAGE_SIZE << (9 * level);
			return (e & PTE_ADDR & ~(span - 1)) | (virt & (span - 1));
		}
		t = table_at(e);
	}
	return 0;
}

void vm_map_table_page(uint64_t virt, uint64_t phys)
{
	BUG_ON(virt < VM_TABLES_BASE || virt >= VM_TABLES_END);
	uint64_t f = spin_lock_irqsave(&vm_lock);
	map_one(virt, phys, PTE_WRITE | PTE_NX | PTE_GLOBAL, 0);
	spin_unlock_irqrestore(&vm_lock, f);
}

uint64_t vm_kernel_pml4(void)
{
	return kernel_pml4;
}

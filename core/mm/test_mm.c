/* Self-tests: page allocator, heap, and the kernel's W^X page tables. */
#include <string.h>
#include "mm.h"
#include "core/selftest.h"

extern const char __text_start[], __rodata_start[];

SELFTEST(pmm_alloc_free)
{
	size_t before = pmm_free_count();
	uint64_t a = pmm_alloc_pages(1), b = pmm_alloc_pages(8);
	ST_CHECK(t, a && b);
	ST_CHECK(t, (a & (PAGE_SIZE - 1)) == 0 && (b & (PAGE_SIZE - 1)) == 0);
	ST_CHECK(t, a != b);
	ST_CHECK(t, pmm_free_count() == before - 9);
	const uint8_t *p = phys_to_virt(b);
	bool zero = true;
	for (size_t i = 0; i < 8 * PAGE_SIZE; i++)
		zero &= p[i] == 0;
	ST_CHECK(t, zero);
	memset(phys_to_virt(b), 0xa5, 8 * PAGE_SIZE); /* all 8 pages writable */
	pmm_free_pages(a, 1);
	pmm_free_pages(b, 8);
	ST_CHECK(t, pmm_free_count() == before);
}

SELFTEST(heap_sizes)
{
	size_t before = heap_in_use();
	static const size_t sizes[] = { 1, 15, 16, 17, 100, 1000, 2032, 4000, 5000, 70000 };
	void *ptrs[ARRAY_SIZE(sizes)];
	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
		ptrs[i] = kmalloc(sizes[i]);
		ST_CHECK(t, ptrs[i] != NULL);
		ST_CHECK(t, ((uint64_t)ptrs[i] & 15) == 0);
		memset(ptrs[i], (int)i, sizes[i]);
	}
	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
		const uint8_t *p = ptrs[i];
		ST_CHECK(t, p[0] == i && p[sizes[i] - 1] == i);
	}
	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++)
		kfree(ptrs[i]);
	ST_CHECK(t, heap_in_use() == before);
	void *x = kmalloc(64);
	kfree(x);
	ST_CHECK(t, kmalloc(64) == x); /* a freed block is reused first */
	kfree(x);
	uint8_t *z = kzalloc(300);
	bool zero = true;
	for (int i = 0; i < 300; i++)
		zero &= z[i] == 0;
	ST_CHECK(t, zero);
	kfree(z);
}

static int writable_data;

SELFTEST(vm_w_xor_x)
{
	uint64_t text = vm_lookup_flags((uint64_t)__text_start);
	uint64_t ro = vm_lookup_flags((uint64_t)__rodata_start);
	uint64_t data = vm_lookup_flags((uint64_t)&writable_data);
	uint64_t direct = vm_lookup_flags((uint64_t)phys_to_virt(MiB(1)));
	ST_CHECK(t, (text & PTE_PRESENT) && !(text & PTE_WRITE) && !(text & PTE_NX));
	ST_CHECK(t, (ro & PTE_PRESENT) && !(ro & PTE_WRITE) && (ro & PTE_NX));
	ST_CHECK(t, (data & PTE_PRESENT) && (data & PTE_WRITE) && (data & PTE_NX));
	ST_CHECK(t, (direct & PTE_PRESENT) && (direct & PTE_NX));
	ST_CHECK(t, vm_lookup_flags(0) == 0);              /* NULL faults */
	ST_CHECK(t, vm_lookup_flags(0x100000) == 0);       /* no identity map */
}

SELFTEST(vm_virt_to_phys)
{
	/* The direct map and the kernel image agree on where data lives. */
	uint64_t phys = virt_to_phys(&writable_data);
	volatile int *alias = phys_to_virt(phys);
	writable_data = 0x1234;
	ST_CHECK(t, *alias == 0x1234);
	*alias = 0x4321;
	ST_CHECK(t, writable_data == 0x4321);
}

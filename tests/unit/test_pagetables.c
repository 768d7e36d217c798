/* The loader's initial page tables (boot/pagetables.c), walked on the host
 * with host memory standing in for physical pages. */
#include "unit.h"
#include <stdlib.h>
#include <string.h>
#include "boot/bootinfo.h"
#include "boot/pagetables.h"

struct pool {
	int used, limit;
	void *pages[4096];
};

static uint64_t pool_page(void *ctx)
{
	struct pool *p = ctx;
	if (p->used >= p->limit)
		return 0;
	void *page = aligned_alloc(4096, 4096);
	memset(page, 0, 4096);
	p->pages[p->used++] = page;
	return (uint64_t)page;
}

static void *pool_ptr(void *ctx, uint64_t phys)
{
	(void)ctx;
	return (void *)phys;
}

static void pool_free(struct pool *p)
{
	for (int i = 0; i < p->used; i++)
		free(p->pages[i]);
}

#define GiB (1ULL << 30)
#define KERNEL_PHYS 0x3456000ULL

static void test_maps_identity_physmap_and_kernel(void **state)
{
	(void)state;
	struct pool pool = { .limit = 4096 };
	struct pt_alloc a = { pool_page, pool_ptr, &pool };
	uint64_t pml4 = 0;
	assert_int_equal(boot_build_page_tables(&a, 6 * GiB, KERNEL_PHYS,
						KERNEL_VMA_BASE, 0x5000, &pml4), 0);
	assert_true(pml4 != 0);
	/* Identity map over all of [0, 6 GiB). */
	assert_int_equal(boot_translate(&a, pml4, 0x1234567), 0x1234567);
	assert_int_equal(boot_translate(&a, pml4, 6 * GiB - 1), 6 * GiB - 1);
	assert_int_equal(boot_translate(&a, pml4, 6 * GiB), ~0ULL);
	/* The direct map. */
	assert_int_equal(boot_translate(&a, pml4, PHYSMAP_BASE + 5 * GiB + 123),
			 5 * GiB + 123);
	assert_int_equal(boot_translate(&a, pml4, PHYSMAP_BASE + 6 * GiB), ~0ULL);
	/* The kernel, page by page, and nothing past it. */
	for (uint64_t off = 0; off < 0x5000; off += 0x800)
		assert_int_equal(boot_translate(&a, pml4, KERNEL_VMA_BASE + off),
				 KERNEL_PHYS + off);
	assert_int_equal(boot_translate(&a, pml4, KERNEL_VMA_BASE + 0x5000), ~0ULL);
	/* Unrelated higher-half space stays unmapped. */
	assert_int_equal(boot_translate(&a, pml4, 0xffffc00000000000ULL), ~0ULL);
	pool_free(&pool);
}

static void test_low_top_still_covers_4g(void **state)
{
	(void)state;
	struct pool pool = { .limit = 4096 };
	struct pt_alloc a = { pool_page, pool_ptr, &pool };
	uint64_t pml4;
	/* 64 MiB of RAM: MMIO below 4 GiB (LAPIC, HPET) must still be mapped. */
	assert_int_equal(boot_build_page_tables(&a, 64ULL << 20, KERNEL_PHYS,
						KERNEL_VMA_BASE, 0x1000, &pml4), 0);
	assert_int_equal(boot_translate(&a, pml4, 0xfee00000ULL), 0xfee00000ULL);
	assert_int_equal(boot_translate(&a, pml4, 4 * GiB), ~0ULL);
	/* 1 PML4 + identity (1 PDPT + 4 PD) + physmap (1 + 4) + kernel (PDPT, PD, PT). */
	assert_int_equal(pool.used, 1 + 5 + 5 + 3);
	pool_free(&pool);
}

static void test_allocation_failure(void **state)
{
	(void)state;
	for (int limit = 0; limit < 14; limit++) {
		struct pool pool = { .limit = limit };
		struct pt_alloc a = { pool_page, pool_ptr, &pool };
		uint64_t pml4 = 0;
		assert_int_equal(boot_build_page_tables(&a, 64ULL << 20, KERNEL_PHYS,
							KERNEL_VMA_BASE, 0x1000, &pml4), -1);
		pool_free(&pool);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_maps_identity_physmap_and_kernel),
	cmocka_unit_test(test_low_top_still_covers_4g),
	cmocka_unit_test(test_allocation_failure),
};

UNIT_MAIN(tests)

/* The loader's UEFI memory map conversion (boot/memmap.c). */
#include "unit.h"
#include <string.h>
#include <efi.h>
#include "boot/memmap.h"

static struct boot_info bi;

static void reset(void)
{
	memset(&bi, 0, sizeof(bi));
}

static void test_type_conversion(void **state)
{
	(void)state;
	assert_int_equal(boot_mem_type_from_efi(EfiConventionalMemory), BOOT_MEM_USABLE);
	assert_int_equal(boot_mem_type_from_efi(EfiLoaderCode), BOOT_MEM_USABLE);
	assert_int_equal(boot_mem_type_from_efi(EfiLoaderData), BOOT_MEM_USABLE);
	assert_int_equal(boot_mem_type_from_efi(EfiBootServicesCode), BOOT_MEM_USABLE);
	assert_int_equal(boot_mem_type_from_efi(EfiBootServicesData), BOOT_MEM_USABLE);
	assert_int_equal(boot_mem_type_from_efi(EfiACPIReclaimMemory), BOOT_MEM_ACPI_RECLAIM);
	assert_int_equal(boot_mem_type_from_efi(EfiACPIMemoryNVS), BOOT_MEM_ACPI_NVS);
	assert_int_equal(boot_mem_type_from_efi(EfiRuntimeServicesCode), BOOT_MEM_RUNTIME);
	assert_int_equal(boot_mem_type_from_efi(EfiRuntimeServicesData), BOOT_MEM_RUNTIME);
	assert_int_equal(boot_mem_type_from_efi(EfiUnusableMemory), BOOT_MEM_BAD);
	assert_int_equal(boot_mem_type_from_efi(EfiReservedMemoryType), BOOT_MEM_RESERVED);
	assert_int_equal(boot_mem_type_from_efi(EfiMemoryMappedIO), BOOT_MEM_RESERVED);
	assert_int_equal(boot_mem_type_from_efi(BAREMON_EFI_KEEP_TYPE), BOOT_MEM_BOOT_KEEP);
	/* Other OS-loader types and values past the spec are not ours. */
	assert_int_equal(boot_mem_type_from_efi(0x80000000u), BOOT_MEM_RESERVED);
	assert_int_equal(boot_mem_type_from_efi(0x7fffffffu), BOOT_MEM_RESERVED);
}

static void test_add_merges_adjacent(void **state)
{
	(void)state;
	reset();
	assert_int_equal(boot_mmap_add(&bi, BOOT_MEM_USABLE, 0x1000, 2), 0);
	assert_int_equal(boot_mmap_add(&bi, BOOT_MEM_USABLE, 0x3000, 3), 0);
	assert_int_equal(bi.mmap_count, 1);
	assert_int_equal(bi.mmap[0].pages, 5);
	/* Same type but a gap: new entry. Different type: new entry. */
	assert_int_equal(boot_mmap_add(&bi, BOOT_MEM_USABLE, 0x9000, 1), 0);
	assert_int_equal(boot_mmap_add(&bi, BOOT_MEM_RESERVED, 0xa000, 1), 0);
	assert_int_equal(bi.mmap_count, 3);
	/* Empty regions are ignored. */
	assert_int_equal(boot_mmap_add(&bi, BOOT_MEM_USABLE, 0xb000, 0), 0);
	assert_int_equal(bi.mmap_count, 3);
}

static void test_normalize_sorts_and_merges(void **state)
{
	(void)state;
	reset();
	/* Out of order, as UEFI may return it. */
	boot_mmap_add(&bi, BOOT_MEM_USABLE, 0x5000, 1);
	boot_mmap_add(&bi, BOOT_MEM_ACPI_NVS, 0x100000, 4);
	boot_mmap_add(&bi, BOOT_MEM_USABLE, 0x3000, 2);
	boot_mmap_add(&bi, BOOT_MEM_USABLE, 0x0, 3);
	boot_mmap_normalize(&bi);
	assert_int_equal(bi.mmap_count, 2);
	assert_int_equal(bi.mmap[0].base, 0);
	assert_int_equal(bi.mmap[0].pages, 6);
	assert_int_equal(bi.mmap[0].type, BOOT_MEM_USABLE);
	assert_int_equal(bi.mmap[1].base, 0x100000);
	assert_int_equal(bi.mmap[1].type, BOOT_MEM_ACPI_NVS);
	assert_int_equal(boot_mmap_top(&bi), 0x104000);
}

static void test_full_table(void **state)
{
	(void)state;
	reset();
	for (unsigned i = 0; i < BOOT_MMAP_MAX; i++)
		assert_int_equal(boot_mmap_add(&bi, i % 2 ? BOOT_MEM_USABLE : BOOT_MEM_RESERVED,
					       (uint64_t)i * 0x1000, 1), 0);
	assert_int_equal(bi.mmap_count, BOOT_MMAP_MAX);
	/* Merging still works when full. */
	assert_int_equal(boot_mmap_add(&bi, BOOT_MEM_USABLE, (uint64_t)BOOT_MMAP_MAX * 0x1000, 1), 0);
	assert_int_equal(bi.mmap_dropped, 0);
	/* A region that is not usable takes the place of a small usable one. */
	assert_int_equal(boot_mmap_add(&bi, BOOT_MEM_BAD, 0x10000000, 1), 0);
	assert_int_equal(bi.mmap_count, BOOT_MMAP_MAX);
	assert_int_equal(bi.mmap_dropped, 1);
	unsigned usable = 0, bad = 0;
	for (unsigned i = 0; i < bi.mmap_count; i++) {
		usable += bi.mmap[i].type == BOOT_MEM_USABLE;
		bad += bi.mmap[i].type == BOOT_MEM_BAD;
	}
	assert_int_equal(usable, BOOT_MMAP_MAX / 2 - 1);
	assert_int_equal(bad, 1);
	/* A usable region no bigger than the smallest kept one is dropped. */
	assert_int_equal(boot_mmap_add(&bi, BOOT_MEM_USABLE, 0x20000000, 1), -1);
	assert_int_equal(bi.mmap_dropped, 2);
	/* A bigger one takes the smallest one's place. */
	assert_int_equal(boot_mmap_add(&bi, BOOT_MEM_USABLE, 0x30000000, 16), 0);
	assert_int_equal(bi.mmap_dropped, 3);
}

static void test_full_table_merges_to_make_room(void **state)
{
	(void)state;
	reset();
	/* Unsorted halves of one usable range fill the table; sorted and
	 * merged they are one region, so the next add finds room. */
	for (unsigned i = 0; i < BOOT_MMAP_MAX; i++) {
		unsigned page = i % 2 ? i / 2 : BOOT_MMAP_MAX / 2 + i / 2;
		assert_int_equal(boot_mmap_add(&bi, BOOT_MEM_USABLE, (uint64_t)page * 0x1000, 1), 0);
	}
	assert_int_equal(bi.mmap_count, BOOT_MMAP_MAX);
	assert_int_equal(boot_mmap_add(&bi, BOOT_MEM_RESERVED, 0x10000000, 1), 0);
	assert_int_equal(bi.mmap_count, 2);
	assert_int_equal(bi.mmap[0].pages, BOOT_MMAP_MAX);
	assert_int_equal(bi.mmap_dropped, 0);
}

static void test_boot_info_layout(void **state)
{
	(void)state;
	/* The hand-off struct is shared by a PE loader and an ELF kernel:
	 * its layout must not depend on packing surprises. */
	assert_int_equal(sizeof(struct boot_mem_region), 24);
	assert_int_equal(offsetof(struct boot_info, handoff_tsc), 16);
	assert_int_equal(offsetof(struct boot_info, mmap) % 8, 0);
	assert_int_equal(sizeof(struct boot_info) % 8, 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_type_conversion),
	cmocka_unit_test(test_add_merges_adjacent),
	cmocka_unit_test(test_normalize_sorts_and_merges),
	cmocka_unit_test(test_full_table),
	cmocka_unit_test(test_full_table_merges_to_make_room),
	cmocka_unit_test(test_boot_info_layout),
};

UNIT_MAIN(tests)

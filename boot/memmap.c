/* UEFI memory map -> boot_mem_region list. See memmap.h. */
#include <efi.h>
#include "memmap.h"

uint32_t boot_mem_type_from_efi(uint32_t efi_type)
{
	if (efi_type == BAREMON_EFI_KEEP_TYPE)
		return BOOT_MEM_BOOT_KEEP;
	switch (efi_type) {
	case EfiLoaderCode:
	case EfiLoaderData:
	case EfiBootServicesCode:
	case EfiBootServicesData:
	case EfiConventionalMemory:
		return BOOT_MEM_USABLE;
	case EfiACPIReclaimMemory:
		return BOOT_MEM_ACPI_RECLAIM;
	case EfiACPIMemoryNVS:
		return BOOT_MEM_ACPI_NVS;
	case EfiRuntimeServicesCode:
	case EfiRuntimeServicesData:
		return BOOT_MEM_RUNTIME;
	case EfiUnusableMemory:
		return BOOT_MEM_BAD;
	default: /* reserved, MMIO, PAL code, persistent, unknown OEM types */
		return BOOT_MEM_RESERVED;
	}
}

/* The usable region with the fewest pages, or NULL if none. */
static struct boot_mem_region *smallest_usable(struct boot_info *bi)
{
	struct boot_mem_region *best = 0;
	for (uint32_t i = 0; i < bi->mmap_count; i++) {
		struct boot_mem_region *r = &bi->mmap[i];
		if (r->type == BOOT_MEM_USABLE && (!best || r->pages < best->pages))
			best = r;
	}
	return best;
}

/* When the table is full, usable memory gives way: every other region
 * (the kernel's own, ACPI tables, firmware runtime) must stay known, as
 * the kernel maps and reads them; a dropped usable region only goes
 * unused. */
int boot_mmap_add(struct boot_info *bi, uint32_t type, uint64_t base,
		  uint64_t pages)
{
	if (pages == 0)
		return 0;
	if (bi->mmap_count > 0) {
		struct boot_mem_region *last = &bi->mmap[bi->mmap_count - 1];
		if (last->type == type && last->base + last->pages * 4096 == base) {
			last->pages += pages;
			return 0;
		}
	}
	if (bi->mmap_count >= BOOT_MMAP_MAX)
		boot_mmap_normalize(bi); /* merging may make room */
	struct boot_mem_region *r;
	if (bi->mmap_count < BOOT_MMAP_MAX) {
		r = &bi->mmap[bi->mmap_count++];
	} else {
		r = smallest_usable(bi);
		if (!r || (type == BOOT_MEM_USABLE && pages <= r->pages)) {
			bi->mmap_dropped++;
			return -1;
		}
		bi->mmap_dropped++; /* r's memory goes unused instead */
	}
	r->base = base;
	r->pages = pages;
	r->type = type;
	r->pad = 0;
	return 0;
}

/* Insertion sort: the table is small and usually nearly sorted. */
static void mmap_sort(struct boot_info *bi)
{
	for (uint32_t i = 1; i < bi->mmap_count; i++) {
		struct boot_mem_region r = bi->mmap[i];
		uint32_t j = i;
		while (j > 0 && bi->mmap[j - 1].base > r.base) {
			bi->mmap[j] = bi->mmap[j - 1];
			j--;
		}
		bi->mmap[j] = r;
	}
}

void boot_mmap_normalize(struct boot_info *bi)
{
	mmap_sort(bi);
	uint32_t out = 0;
	for (uint32_t i = 0; i < bi->mmap_count; i++) {
		struct boot_mem_region *r = &bi->mmap[i];
		struct boot_mem_region *prev = out ? &bi->mmap[out - 1] : 0;
		if (prev && prev->type == r->type &&
		    prev->base + prev->pages * 4096 == r->base)
			prev->pages += r->pages;
		else
			bi->mmap[out++] = *r;
	}
	bi->mmap_count = out;
}

uint64_t boot_mmap_top(const struct boot_info *bi)
{
	uint64_t top = 0;
	for (uint32_t i = 0; i < bi->mmap_count; i++) {
		uint64_t end = bi->mmap[i].base + bi->mmap[i].pages * 4096;
		if (end > top)
			top = end;
	}
	return top;
}

/*
 * Conversion of the UEFI memory map into the kernel's boot_mem_region list.
 * Pure functions: no firmware calls, so host unit tests exercise them.
 */
#ifndef BAREMON_BOOT_MEMMAP_H
#define BAREMON_BOOT_MEMMAP_H

#include <stdint.h>
#include "bootinfo.h"

/* UEFI memory type the loader uses for everything the kernel must keep.
 * UEFI reserves 0x80000000..0xffffffff for OS loaders. */
#define BAREMON_EFI_KEEP_TYPE 0x80000042u

/* The boot_mem_type for a UEFI memory type (EFI_MEMORY_TYPE value). */
uint32_t boot_mem_type_from_efi(uint32_t efi_type);

/*
 * Append [base, base + pages * 4 KiB) of boot type `type` to bi->mmap,
 * merging it into the last entry when that one is adjacent and of the same
 * type. A full table is normalized first; if it is still full, the
 * smallest usable region gives way to a region of another type or a
 * bigger usable one. Returns 0 when the region is recorded, -1 when it is
 * dropped; bi->mmap_dropped counts the regions lost either way.
 * Regions may come in any order; call boot_mmap_normalize afterwards.
 */
int boot_mmap_add(struct boot_info *bi, uint32_t type, uint64_t base,
		  uint64_t pages);

/* Sort bi->mmap by base and merge adjacent regions of the same type.
 * UEFI does not promise a sorted map. */
void boot_mmap_normalize(struct boot_info *bi);

/* Highest physical address + 1 covered by any region of bi->mmap. */
uint64_t boot_mmap_top(const struct boot_info *bi);

#endif

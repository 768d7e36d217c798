/*
 * The hand-off from the UEFI loader (boot/loader.c) to the kernel
 * (core/arch/entry.asm -> kmain). Documented in docs/boot.md.
 *
 * Versioning: `version` grows whenever a field is added at the end; fields
 * are never moved or reused. The kernel refuses a boot_info whose magic is
 * wrong or whose version it does not know, and reads only `size` bytes.
 *
 * Every address here is PHYSICAL; the kernel reaches it through the direct
 * map the loader set up at `physmap_base` (identity + physmap_base both map
 * all RAM when the kernel is entered).
 *
 * This header is shared by the loader (GNU-EFI), the kernel and host tests,
 * so it uses only <stdint.h> types.
 */
#ifndef BAREMON_BOOTINFO_H
#define BAREMON_BOOTINFO_H

#include <stdint.h>

#define BOOT_INFO_MAGIC   0x31494f424e4d5242ULL /* "BRMNBOI1" */
#define BOOT_INFO_VERSION 2

/* Virtual layout the loader establishes and the kernel keeps. */
#define KERNEL_VMA_BASE   0xffffffff80000000ULL
#define PHYSMAP_BASE      0xffff800000000000ULL

/* Memory region types, converted from UEFI types by boot/memmap.c. */
enum boot_mem_type {
	BOOT_MEM_USABLE = 1,       /* free RAM once boot services are gone */
	BOOT_MEM_RESERVED = 2,     /* firmware, MMIO, unusable */
	BOOT_MEM_ACPI_RECLAIM = 3, /* ACPI tables; free after parsing */
	BOOT_MEM_ACPI_NVS = 4,     /* must be preserved */
	BOOT_MEM_BOOT_KEEP = 5,    /* loader allocations the kernel owns:
	                              kernel image, initrd, boot_info, page tables */
	BOOT_MEM_RUNTIME = 6,      /* UEFI runtime services code/data */
	BOOT_MEM_BAD = 7,
};

struct boot_mem_region {
	uint64_t base;   /* 4 KiB aligned */
	uint64_t pages;  /* 4 KiB pages */
	uint32_t type;   /* enum boot_mem_type */
	uint32_t pad;
};

/* Pixel formats of the framebuffer (mirror UEFI GOP's). */
enum boot_fb_format {
	BOOT_FB_NONE = 0,
	BOOT_FB_RGBX = 1,
	BOOT_FB_BGRX = 2,
	BOOT_FB_BITMASK = 3,
};

struct boot_framebuffer {
	uint64_t base;     /* physical; 0 when there is none */
	uint64_t size;
	uint32_t width, height;
	uint32_t pixels_per_line;
	uint32_t format;   /* enum boot_fb_format */
};

#define BOOT_CMDLINE_MAX 1024
#define BOOT_MMAP_MAX    2048 /* regions after merging; firmware maps
                                    * with hundreds of entries fit */

struct boot_info {
	uint64_t magic;            /* BOOT_INFO_MAGIC */
	uint32_t version;          /* BOOT_INFO_VERSION */
	uint32_t size;             /* sizeof(struct boot_info) as the loader saw it */

	uint64_t handoff_tsc;      /* RDTSC just before jumping to the kernel */

	uint64_t kernel_phys;      /* physical address of the lowest kernel page */
	uint64_t kernel_virt;      /* virtual address it is mapped at */
	uint64_t kernel_size;      /* bytes, page rounded */

	uint64_t initrd_phys;      /* cpio newc archive; 0 if none */
	uint64_t initrd_size;

	uint64_t rsdp_phys;        /* ACPI RSDP (2.0 table preferred); 0 if none */
	uint64_t pml4_phys;        /* the page tables in CR3 at entry */

	uint32_t mmap_count;       /* entries used in mmap[] */
	uint32_t mmap_dropped;     /* regions that did not fit: lost to the
				    * kernel, which says so */
	struct boot_mem_region mmap[BOOT_MMAP_MAX];

	struct boot_framebuffer fb;

	char cmdline[BOOT_CMDLINE_MAX]; /* NUL-terminated ASCII */
	char loader_name[32];           /* e.g. "baremon-loader 1" */
};

#endif

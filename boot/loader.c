/*
 * baremon's UEFI loader (BOOTX64.EFI), a GNU-EFI application.
 *
 * It reads \baremon\kernel.elf, \baremon\initrd.cpio (optional) and the
 * command line (load options, else \baremon\cmdline.txt) from the volume it
 * was loaded from, loads the kernel's PT_LOAD segments, builds the initial
 * page tables (boot/pagetables.c), records the memory map, ACPI RSDP and
 * framebuffer in a struct boot_info (boot/bootinfo.h), exits boot services
 * and jumps to the kernel entry with RDI = the boot_info's direct-map address.
 *
 * Every failure before ExitBootServices prints "baremon-loader: error: ..."
 * with the reason and returns to the firmware. Everything the kernel keeps is
 * allocated with BAREMON_EFI_KEEP_TYPE so it stands out in the memory map.
 */
#include <efi.h>
#include <efilib.h>
#include <elf64.h>
#include <string.h>
#include "bootinfo.h"
#include "memmap.h"
#include "pagetables.h"

#define LOADER_NAME "baremon-loader 1"
#define KERNEL_NAME L"kernel.elf"
#define INITRD_NAME L"initrd.cpio"
#define CMDLINE_NAME L"cmdline.txt"
#define DEFAULT_DIR L"\\baremon\\"
#define PATH_MAX_CHARS 256

static EFI_HANDLE image_handle;
static CHAR16 loader_dir[PATH_MAX_CHARS];  /* e.g. "\\EFI\\BOOT\\"; "" if unknown */

static EFI_STATUS fail(const char *what, EFI_STATUS st)
{
	Print(L"baremon-loader: error: %a: %r\n", what, st);
	return st == EFI_SUCCESS ? EFI_LOAD_ERROR : st;
}

/* Pages the kernel keeps (kernel image, initrd, boot_info, page tables). */
static EFI_STATUS alloc_keep(UINTN pages, uint64_t *phys)
{
	EFI_PHYSICAL_ADDRESS addr = 0;
	EFI_STATUS st = uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages,
					  (EFI_MEMORY_TYPE)BAREMON_EFI_KEEP_TYPE,
					  pages, &addr);
	if (!EFI_ERROR(st)) {
		memset((void *)(UINTN)addr, 0, pages * 4096);
		*phys = addr;
	}
	return st;
}

static uint64_t pt_page(void *ctx)
{
	(void)ctx;
	uint64_t phys;
	return EFI_ERROR(alloc_keep(1, &phys)) ? 0 : phys;
}

static void *pt_ptr(void *ctx, uint64_t phys)
{
	(void)ctx;
	return (void *)(UINTN)phys;
}

static EFI_FILE_HANDLE open_root(void)
{
	EFI_LOADED_IMAGE *li = NULL;
	EFI_STATUS st = uefi_call_wrapper(BS->HandleProtocol, 3, image_handle,
					  &LoadedImageProtocol, (void **)&li);
	if (EFI_ERROR(st))
		return NULL;
	return LibOpenRoot(li->DeviceHandle);
}

/*
 * Read a whole file. With keep set, into kept pages (the kernel owns them);
 * otherwise into pool memory the firmware reclaims. Returns EFI_NOT_FOUND
 * when the file does not exist.
 */
static EFI_STATUS read_file(EFI_FILE_HANDLE root, CHAR16 *path, int keep,
			    void **data, UINTN *size)
{
	EFI_FILE_HANDLE f;
	EFI_STATUS st = uefi_call_wrapper(root->Open, 5, root, &f, path,
					  EFI_FILE_MODE_READ, 0);
	if (EFI_ERROR(st))
		return st;
	EFI_FILE_INFO *info = LibFileInfo(f);
	if (!info) {
		uefi_call_wrapper(f->Close, 1, f);
		return EFI_DEVICE_ERROR;
	}
	UINTN n = info->FileSize;
	FreePool(info);

	void *buf = NULL;
	if (keep) {
		uint64_t phys;
		st = alloc_keep((n + 4095) / 4096 + 1, &phys);
		buf = EFI_ERROR(st) ? NULL : (void *)(UINTN)phys;
	} else {
		buf = AllocatePool(n + 1);
		st = buf ? EFI_SUCCESS : EFI_OUT_OF_RESOURCES;
	}
	if (!EFI_ERROR(st)) {
		UINTN got = n;
		st = uefi_call_wrapper(f->Read, 3, f, &got, buf);
		if (!EFI_ERROR(st) && got != n)
			st = EFI_END_OF_FILE;
		((char *)buf)[n] = 0;
	}
	uefi_call_wrapper(f->Close, 1, f);
	*data = buf;
	*size = n;
	return st;
}

/* Copy the kernel's PT_LOAD segments into kept pages. */
static EFI_STATUS load_kernel(const void *img, UINTN len, struct boot_info *bi,
			      uint64_t *entry)
{
	const char *why = "";
	if (elf64_check(img, len, EM_X86_64, &why) != 0) {
		Print(L"baremon-loader: error: bad kernel ELF: %a\n", why);
		return EFI_LOAD_ERROR;
	}
	uint64_t lo, hi;
	if (elf64_load_span(img, &lo, &hi) != 0 || lo < KERNEL_VMA_BASE) {
		Print(L"baremon-loader: error: kernel not linked in the higher half\n");
		return EFI_LOAD_ERROR;
	}
	uint64_t phys;
	EFI_STATUS st = alloc_keep((hi - lo) / 4096, &phys);
	if (EFI_ERROR(st))
		return fail("allocating kernel pages", st);
	for (unsigned i = 0; i < elf64_phnum(img); i++) {
		const Elf64_Phdr *ph = elf64_phdr(img, i);
		if (ph->p_type != PT_LOAD)
			continue;
		memcpy((char *)(UINTN)(phys + ph->p_vaddr - lo),
		       (const char *)img + ph->p_offset, ph->p_filesz);
	}
	bi->kernel_phys = phys;
	bi->kernel_virt = lo;
	bi->kernel_size = hi - lo;
	*entry = ((const Elf64_Ehdr *)img)->e_entry;
	return EFI_SUCCESS;
}

#define UTF16_BOM 0xfeff

/* Printable ASCII from UCS-2 load options, or 0 if they are not text. A
 * byte-order mark is skipped; the text may end without a NUL (the size
 * bounds it), and an odd size drops the last byte. */
static int ucs2_to_ascii(const CHAR16 *in, UINTN bytes, char *out, UINTN max)
{
	UINTN n = bytes / sizeof(CHAR16), o = 0, i = 0;
	if (n && in[0] == UTF16_BOM)
		i++;
	for (; i < n && in[i]; i++) {
		if (in[i] == '\t' || in[i] == '\r' || in[i] == '\n') {
			if (o + 1 < max)
				out[o++] = ' ';
			continue;
		}
		if (in[i] < 0x20 || in[i] > 0x7e)
			return 0;
		if (o + 1 < max)
			out[o++] = (char)in[i];
	}
	out[o] = 0;
	return 1;
}

/* Some boot managers pass 8-bit text instead of UCS-2. */
static int bytes_to_ascii(const unsigned char *in, UINTN n, char *out, UINTN max)
{
	UINTN o = 0;
	for (UINTN i = 0; i < n && in[i]; i++) {
		if (in[i] < 0x20 || in[i] > 0x7e)
			return 0;
		if (o + 1 < max)
			out[o++] = (char)in[i];
	}
	out[o] = 0;
	return 1;
}

/* The load options as ASCII: UCS-2 first, else 8-bit text; 0 (with a
 * line saying so) when they are neither. */
static int options_to_ascii(const void *in, UINTN bytes, char *out, UINTN max)
{
	if (ucs2_to_ascii(in, bytes, out, max) || bytes_to_ascii(in, bytes, out, max))
		return 1;
	Print(L"baremon-loader: warning: load options (%ld bytes) are not text; ignored\n",
	      (long)bytes);
	out[0] = 0;
	return 0;
}

/* Drop a leading "something.efi" word (the UEFI shell and GRUB pass the
 * image path first), then leading blanks. */
static void strip_image_name(char *s)
{
	char *end = s;
	while (*end && *end != ' ')
		end++;
	UINTN w = (UINTN)(end - s);
	if (w >= 4 && (end[-4] == '.') && (end[-3] | 32) == 'e' &&
	    (end[-2] | 32) == 'f' && (end[-1] | 32) == 'i')
		memmove(s, end, strlen(end) + 1);
	char *p = s;
	while (*p == ' ')
		p++;
	memmove(s, p, strlen(p) + 1);
}

static void trim_trailing_space(char *s)
{
	UINTN n = strlen(s);
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' ||
			 s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = 0;
	for (UINTN i = 0; i < n; i++)
		if (s[i] == '\n' || s[i] == '\r' || s[i] == '\t')
			s[i] = ' ';
}

/* The loader's own folder on its volume, from its device path's file
 * node (e.g. "\\EFI\\BOOT\\BOOTX64.EFI" -> "\\EFI\\BOOT\\"). */
static void find_loader_dir(void)
{
	EFI_LOADED_IMAGE *li = NULL;
	loader_dir[0] = 0;
	if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, image_handle,
					&LoadedImageProtocol, (void **)&li)) ||
	    !li || !li->FilePath)
		return;
	CHAR16 *path = DevicePathToStr(li->FilePath);
	if (!path)
		return;
	UINTN n = StrLen(path), cut = 0;
	for (UINTN i = 0; i < n; i++)
		if (path[i] == '\\' || path[i] == '/')
			cut = i + 1;
	if (path[0] == '\\' && cut > 1 && cut < PATH_MAX_CHARS) {
		for (UINTN i = 0; i < cut; i++)
			loader_dir[i] = path[i] == '/' ? '\\' : path[i];
		loader_dir[cut] = 0;
	}
	FreePool(path);
}

static int file_exists(EFI_FILE_HANDLE root, CHAR16 *path)
{
	EFI_FILE_HANDLE f;
	if (EFI_ERROR(uefi_call_wrapper(root->Open, 5, root, &f, path,
					EFI_FILE_MODE_READ, 0)))
		return 0;
	uefi_call_wrapper(f->Close, 1, f);
	return 1;
}

/* Where a boot file is: next to the loader when it is there (so a copy
 * of the four files in any ESP folder boots), else in \\baremon\\. */
static void locate(EFI_FILE_HANDLE root, const CHAR16 *name, CHAR16 *out)
{
	if (loader_dir[0] && StrLen(loader_dir) + StrLen(name) < PATH_MAX_CHARS) {
		StrCpy(out, loader_dir);
		StrCat(out, name);
		if (file_exists(root, out))
			return;
	}
	StrCpy(out, DEFAULT_DIR);
	StrCat(out, name);
}

static CHAR16 kernel_path[PATH_MAX_CHARS], initrd_path[PATH_MAX_CHARS],
	cmdline_path[PATH_MAX_CHARS];

/* A command-line file is text: printable ASCII and blanks, no NUL. */
static int text_file_ok(const char *t, UINTN n)
{
	for (UINTN i = 0; i < n; i++) {
		unsigned char c = (unsigned char)t[i];
		if ((c < 0x20 || c > 0x7e) && c != '\n' && c != '\r' && c != '\t')
			return 0;
	}
	return 1;
}

static void get_cmdline(EFI_FILE_HANDLE root, struct boot_info *bi)
{
	EFI_LOADED_IMAGE *li = NULL;
	uefi_call_wrapper(BS->HandleProtocol, 3, image_handle,
			  &LoadedImageProtocol, (void **)&li);
	bi->cmdline[0] = 0;
	if (li && li->LoadOptionsSize &&
	    options_to_ascii(li->LoadOptions, li->LoadOptionsSize,
			     bi->cmdline, sizeof(bi->cmdline)))
		strip_image_name(bi->cmdline);
	if (bi->cmdline[0])
		return;
	void *text;
	UINTN n;
	if (!EFI_ERROR(read_file(root, cmdline_path, 0, &text, &n))) {
		if (!text_file_ok(text, n))
			Print(L"baremon-loader: warning: %s is not text; "
			      "booting with an empty command line\n", cmdline_path);
		else if (strlcpy(bi->cmdline, text, sizeof(bi->cmdline)) >= sizeof(bi->cmdline))
			Print(L"baremon-loader: warning: %s is longer than %d bytes; "
			      "the rest is ignored\n", cmdline_path,
			      (int)sizeof(bi->cmdline) - 1);
		FreePool(text);
	}
	trim_trailing_space(bi->cmdline);
}

/* Secure Boot: firmware that enforces it refuses this unsigned loader
 * before it runs (docs/hardware.md); when it does run with Secure Boot
 * on (a shim, a custom key), say that the kernel is not verified. */
static void report_secure_boot(void)
{
	UINT8 on = 0;
	UINTN size = sizeof(on);
	EFI_STATUS st = uefi_call_wrapper(RT->GetVariable, 5, L"SecureBoot",
					  &EfiGlobalVariable, NULL, &size, &on);
	if (!EFI_ERROR(st) && on)
		Print(L"baremon-loader: warning: Secure Boot is on; the kernel and "
		      "initrd are loaded without signature checks\n");
}

static void find_rsdp(struct boot_info *bi)
{
	EFI_GUID acpi20 = ACPI_20_TABLE_GUID, acpi10 = ACPI_TABLE_GUID;
	for (UINTN i = 0; i < ST->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &ST->ConfigurationTable[i];
		if (!CompareGuid(&t->VendorGuid, &acpi20)) {
			bi->rsdp_phys = (uint64_t)(UINTN)t->VendorTable;
			return;
		}
		if (!CompareGuid(&t->VendorGuid, &acpi10))
			bi->rsdp_phys = (uint64_t)(UINTN)t->VendorTable;
	}
}

#define GOP_MAX_WIDTH  1920
#define GOP_MAX_HEIGHT 1200

/* A mode the kernel's console can draw on: 32-bit RGB or BGR pixels
 * (PixelBltOnly has no framebuffer; bit masks are not drawn). */
static int gop_mode_usable(const EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *m)
{
	return m->PixelFormat == PixelRedGreenBlueReserved8BitPerColor ||
	       m->PixelFormat == PixelBlueGreenRedReserved8BitPerColor;
}

/* Keep the firmware's mode when the console can use it (it is what the
 * screen was set up for); else switch to the largest usable mode up to
 * GOP_MAX_WIDTH x GOP_MAX_HEIGHT (bigger ones make scrolling slow). */
static void choose_gop_mode(EFI_GRAPHICS_OUTPUT_PROTOCOL *gop)
{
	if (gop->Mode->Info && gop_mode_usable(gop->Mode->Info))
		return;
	UINT32 best = gop->Mode->MaxMode;
	UINT64 best_area = 0;
	for (UINT32 i = 0; i < gop->Mode->MaxMode; i++) {
		EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *m;
		UINTN size;
		if (EFI_ERROR(uefi_call_wrapper(gop->QueryMode, 4, gop, i, &size, &m)))
			continue;
		UINT64 area = (UINT64)m->HorizontalResolution * m->VerticalResolution;
		if (gop_mode_usable(m) && m->HorizontalResolution <= GOP_MAX_WIDTH &&
		    m->VerticalResolution <= GOP_MAX_HEIGHT && area > best_area) {
			best = i;
			best_area = area;
		}
		FreePool(m);
	}
	if (best == gop->Mode->MaxMode) {
		Print(L"baremon-loader: no graphics mode with a linear 32-bit framebuffer; "
		      "no screen console\n");
		return;
	}
	if (EFI_ERROR(uefi_call_wrapper(gop->SetMode, 2, gop, best)))
		Print(L"baremon-loader: could not set graphics mode %d\n", (int)best);
}

static void find_framebuffer(struct boot_info *bi)
{
	EFI_GUID gop_guid = EFI_GRAPHICS_OUTPUT_PROTOCOL_GUID;
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop = NULL;
	if (EFI_ERROR(uefi_call_wrapper(BS->LocateProtocol, 3, &gop_guid, NULL,
					(void **)&gop)) || !gop || !gop->Mode)
		return;
	choose_gop_mode(gop);
	EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *m = gop->Mode->Info;
	if (!m)
		return;
	bi->fb.base = gop->Mode->FrameBufferBase;
	bi->fb.size = gop->Mode->FrameBufferSize;
	bi->fb.width = m->HorizontalResolution;
	bi->fb.height = m->VerticalResolution;
	bi->fb.pixels_per_line = m->PixelsPerScanLine;
	switch (m->PixelFormat) {
	case PixelRedGreenBlueReserved8BitPerColor: bi->fb.format = BOOT_FB_RGBX; break;
	case PixelBlueGreenRedReserved8BitPerColor: bi->fb.format = BOOT_FB_BGRX; break;
	case PixelBitMask: bi->fb.format = BOOT_FB_BITMASK; break;
	default: bi->fb = (struct boot_framebuffer){0}; break;
	}
}

/* Highest end of RAM-like memory in the current UEFI map (MMIO excluded). */
static uint64_t ram_top(void)
{
	UINTN entries, key, dsize;
	UINT32 dver;
	EFI_MEMORY_DESCRIPTOR *map = LibMemoryMap(&entries, &key, &dsize, &dver);
	uint64_t top = 0;
	for (UINTN i = 0; map && i < entries; i++) {
		EFI_MEMORY_DESCRIPTOR *d = (void *)((char *)map + i * dsize);
		if (d->Type == EfiMemoryMappedIO || d->Type == EfiMemoryMappedIOPortSpace)
			continue;
		uint64_t end = d->PhysicalStart + d->NumberOfPages * 4096;
		if (end > top)
			top = end;
	}
	if (map)
		FreePool(map);
	return top;
}

/* The number after "loader.fragment=" in the command line, or 0. */
static UINTN fragment_option(const char *cmdline)
{
	static const char key[] = "loader.fragment=";
	for (const char *p = cmdline; *p; p++) {
		if ((p != cmdline && p[-1] != ' ') || strncmp(p, key, sizeof(key) - 1))
			continue;
		UINTN n = 0;
		for (p += sizeof(key) - 1; *p >= '0' && *p <= '9' && n < 100000; p++)
			n = n * 10 + (UINTN)(*p - '0');
		return n;
	}
	return 0;
}

/*
 * loader.fragment=N: leave N single reserved pages between free ones, so
 * the memory map the kernel gets has about 2N more entries - the
 * fragmented maps of real firmware, made on demand for tests. Pages are
 * taken in pairs from the firmware's top-down allocator; the first of each
 * pair is given back once all are taken (freed at once, it would be taken
 * again and the reserved pages would be one run).
 */
static void fragment_memory(const char *cmdline)
{
	UINTN n = fragment_option(cmdline), made = 0;
	if (!n)
		return;
	EFI_PHYSICAL_ADDRESS *holes = AllocatePool(n * sizeof(*holes));
	for (; holes && made < n; made++) {
		EFI_PHYSICAL_ADDRESS keep;
		if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages,
						EfiLoaderData, 1, &holes[made])))
			break;
		if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages,
						EfiReservedMemoryType, 1, &keep))) {
			uefi_call_wrapper(BS->FreePages, 2, holes[made], 1);
			break;
		}
	}
	for (UINTN i = 0; i < made; i++)
		uefi_call_wrapper(BS->FreePages, 2, holes[i], 1);
	if (holes)
		FreePool(holes);
	Print(L"baremon-loader: loader.fragment=%d: %d reserved pages "
	      "scattered through the memory map\n", (int)n, (int)made);
}

/*
 * Final memory map, ExitBootServices, and the map copied into boot_info.
 * No allocation and no Print may happen between GetMemoryMap and
 * ExitBootServices; the buffer is sized generously in advance.
 */
static EFI_STATUS exit_boot_services(struct boot_info *bi)
{
	UINTN size = 0, key, dsize;
	UINT32 dver;
	uefi_call_wrapper(BS->GetMemoryMap, 5, &size, NULL, &key, &dsize, &dver);
	size += 16 * 1024;
	UINTN cap = size;
	EFI_MEMORY_DESCRIPTOR *map = AllocatePool(cap);
	if (!map)
		return fail("allocating memory map buffer", EFI_OUT_OF_RESOURCES);
	EFI_STATUS st = EFI_SUCCESS;
	for (int tries = 0; tries < 4; tries++) {
		size = cap;
		st = uefi_call_wrapper(BS->GetMemoryMap, 5, &size, map, &key,
				       &dsize, &dver);
		if (EFI_ERROR(st))
			return fail("GetMemoryMap", st);
		st = uefi_call_wrapper(BS->ExitBootServices, 2, image_handle, key);
		if (!EFI_ERROR(st))
			break;
	}
	if (EFI_ERROR(st))
		return fail("ExitBootServices", st);
	/* Boot services are gone: no more firmware calls from here on. */
	bi->mmap_count = 0;
	for (UINTN off = 0; off + dsize <= size; off += dsize) {
		EFI_MEMORY_DESCRIPTOR *d = (void *)((char *)map + off);
		boot_mmap_add(bi, boot_mem_type_from_efi(d->Type),
			      d->PhysicalStart, d->NumberOfPages);
	}
	boot_mmap_normalize(bi);
	return EFI_SUCCESS;
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* Load CR3 and jump; the loader's own code stays reachable through the
 * identity map until the kernel takes over. Never returns. */
static void __attribute__((noreturn)) enter_kernel(uint64_t pml4, uint64_t entry,
						   uint64_t bi_virt)
{
	__asm__ volatile("cli\n\t"
			 "mov %0, %%cr3\n\t"
			 "mov %2, %%rdi\n\t"
			 "xor %%rbp, %%rbp\n\t"
			 "jmp *%1\n\t"
			 :
			 : "r"(pml4), "r"(entry), "r"(bi_virt)
			 : "rdi", "memory");
	__builtin_unreachable();
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	InitializeLib(image, systab);
	image_handle = image;
	uefi_call_wrapper(BS->SetWatchdogTimer, 4, 0, 0, 0, NULL);

	uint64_t bi_phys;
	EFI_STATUS st = alloc_keep((sizeof(struct boot_info) + 4095) / 4096, &bi_phys);
	if (EFI_ERROR(st))
		return fail("allocating boot_info", st);
	struct boot_info *bi = (void *)(UINTN)bi_phys;
	bi->magic = BOOT_INFO_MAGIC;
	bi->version = BOOT_INFO_VERSION;
	bi->size = sizeof(*bi);
	strlcpy(bi->loader_name, LOADER_NAME, sizeof(bi->loader_name));

	EFI_FILE_HANDLE root = open_root();
	if (!root)
		return fail("opening the boot volume", EFI_NOT_FOUND);
	find_loader_dir();
	locate(root, KERNEL_NAME, kernel_path);
	locate(root, INITRD_NAME, initrd_path);
	locate(root, CMDLINE_NAME, cmdline_path);
	report_secure_boot();

	void *kimg;
	UINTN klen;
	st = read_file(root, kernel_path, 0, &kimg, &klen);
	if (EFI_ERROR(st)) {
		Print(L"baremon-loader: error: reading the kernel %s: %r\n", kernel_path, st);
		return st;
	}
	uint64_t entry;
	st = load_kernel(kimg, klen, bi, &entry);
	if (EFI_ERROR(st))
		return st;
	FreePool(kimg);

	void *initrd;
	UINTN ilen;
	st = read_file(root, initrd_path, 1, &initrd, &ilen);
	if (st == EFI_NOT_FOUND) {
		Print(L"baremon-loader: no initrd at %s, continuing without one\n",
		      initrd_path);
	} else if (EFI_ERROR(st)) {
		Print(L"baremon-loader: error: reading the initrd %s: %r\n", initrd_path, st);
		return st;
	} else {
		bi->initrd_phys = (uint64_t)(UINTN)initrd;
		bi->initrd_size = ilen;
	}

	get_cmdline(root, bi);
	fragment_memory(bi->cmdline);
	find_rsdp(bi);
	find_framebuffer(bi);

	struct pt_alloc alloc = { pt_page, pt_ptr, NULL };
	if (boot_build_page_tables(&alloc, ram_top(), bi->kernel_phys,
				   bi->kernel_virt, bi->kernel_size,
				   &bi->pml4_phys) != 0)
		return fail("building page tables", EFI_OUT_OF_RESOURCES);

	Print(L"baremon-loader: kernel %lx (%ld KiB) entry %lx, initrd %ld bytes, cmdline \"%a\"\n",
	      bi->kernel_phys, bi->kernel_size / 1024, entry, bi->initrd_size,
	      bi->cmdline);
	Print(L"baremon-loader: files from %s\n", kernel_path);

	st = exit_boot_services(bi);
	if (EFI_ERROR(st))
		return st;
	bi->handoff_tsc = rdtsc();
	enter_kernel(bi->pml4_phys, entry, PHYSMAP_BASE + bi_phys);
}

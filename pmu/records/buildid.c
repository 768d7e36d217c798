/*
 * The GNU build id of an ELF image (its NT_GNU_BUILD_ID note, name
 * "GNU"), as Linux's build_id_parse finds it for MMAP2 records with
 * attr.build_id: from the PT_NOTE segments the program headers name,
 * 1 to 20 bytes (shorter ids are zero-filled to 20). None (0): the
 * record falls back to the device/inode layout, as on Linux.
 *
 * Called by exec on the image it has read and checked (elf64_check):
 * headers in bounds. Notes are bounds-checked here.
 */
#include <string.h>
#include "elf64.h"
#include "pmu/perf.h"

#define NOTE_GNU_BUILD_ID 3

static uint32_t align4(uint32_t n)
{
	return (n + 3) & ~3u;
}

/* Search one note area [p, p+len) for the build id. */
static unsigned scan_notes(const uint8_t *p, uint64_t len, uint8_t out[BUILD_ID_MAX])
{
	uint64_t off = 0;
	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		uint64_t name = off + 12, desc = name + align4(namesz);
		if (desc > len || desc + descsz > len)
			return 0;
		if (type == NOTE_GNU_BUILD_ID && namesz == 4 && memcmp(p + name, "GNU", 4) == 0 &&
		    descsz > 0 && descsz <= BUILD_ID_MAX) {
			memset(out, 0, BUILD_ID_MAX);
			memcpy(out, p + desc, descsz);
			return descsz;
		}
		off = desc + align4(descsz);
	}
	return 0;
}

unsigned elf_build_id(const void *img, size_t len, uint8_t out[BUILD_ID_MAX])
{
	for (unsigned i = 0; i < elf64_phnum(img); i++) {
		const Elf64_Phdr *ph = elf64_phdr(img, i);
		if (ph->p_type != PT_NOTE || ph->p_offset > len || ph->p_filesz > len - ph->p_offset)
			continue;
		unsigned n = scan_notes((const uint8_t *)img + ph->p_offset, ph->p_filesz, out);
		if (n)
			return n;
	}
	return 0;
}

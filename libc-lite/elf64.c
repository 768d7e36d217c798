/*
 * elf64.c: is an in-memory ELF64 image safe to load?
 *
 * Bounds rule: an offset/size pair (off, n) from the file is inside
 * [0, len) iff n <= len && off <= len - n. Sums are only formed after
 * such a test has shown they cannot wrap.
 */
#include <elf64.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define PAGE_MASK 0xfffull

/* Is [off, off + n) inside [0, len)? */
static bool in_file(uint64_t off, uint64_t n, size_t len)
{
	return n <= len && off <= len - n;
}

static const Elf64_Ehdr *ehdr(const void *img)
{
	return img;
}

int elf64_check_header(const void *img, size_t len)
{
	const Elf64_Ehdr *eh = ehdr(img);

	if (len < SELFMAG || memcmp(img, ELFMAG, SELFMAG) != 0)
		return ELF64_E_NOTELF;
	if ((uintptr_t)img % 8 != 0)
		return ELF64_E_ALIGN;
	if (len < sizeof(Elf64_Ehdr))
		return ELF64_E_TRUNC;
	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		return ELF64_E_CLASS;
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return ELF64_E_DATA;
	if (eh->e_ident[EI_VERSION] != EV_CURRENT || eh->e_version != EV_CURRENT)
		return ELF64_E_VERSION;
	return 0;
}

/* The program header table: entry size, count, alignment, bounds. */
static int check_phdr_table(const Elf64_Ehdr *eh, size_t len)
{
	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		return ELF64_E_PHENTSIZE;
	if (eh->e_phnum == PN_XNUM)
		return ELF64_E_PHNUM;
	if (eh->e_phoff % 8 != 0)
		return ELF64_E_PHALIGN;
	if (!in_file(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr), len))
		return ELF64_E_PHDRS;
	return 0;
}

/* One PT_LOAD segment. With no file bytes, p_offset is not used. */
static int check_segment(const Elf64_Phdr *ph, size_t len)
{
	if (ph->p_filesz != 0 && !in_file(ph->p_offset, ph->p_filesz, len))
		return ELF64_E_SEGDATA;
	if (ph->p_filesz > ph->p_memsz)
		return ELF64_E_SEGSIZE;
	/* vaddr + memsz, rounded up to a page, must not wrap. */
	if (ph->p_vaddr > UINT64_MAX - PAGE_MASK ||
	    ph->p_memsz > UINT64_MAX - PAGE_MASK - ph->p_vaddr)
		return ELF64_E_SEGADDR;
	if (ph->p_align > 1 &&
	    ((ph->p_align & (ph->p_align - 1)) != 0 ||
	     ph->p_vaddr % ph->p_align != ph->p_offset % ph->p_align))
		return ELF64_E_SEGALIGN;
	return 0;
}

/* Is addr inside executable PT_LOAD segment ph? (ph already checked) */
static bool runs_in(const Elf64_Phdr *ph, uint64_t addr)
{
	return (ph->p_flags & PF_X) && addr >= ph->p_vaddr &&
	       addr - ph->p_vaddr < ph->p_memsz;
}

/* All segments; requires a checked program header table. */
static int check_segments(const void *img, size_t len)
{
	bool any_load = false, entry_ok = false;
	int err;

	for (unsigned i = 0; i < elf64_phnum(img); i++) {
		const Elf64_Phdr *ph = elf64_phdr(img, i);
		if (ph->p_type != PT_LOAD)
			continue;
		if ((err = check_segment(ph, len)) < 0)
			return err;
		any_load = true;
		entry_ok = entry_ok || runs_in(ph, ehdr(img)->e_entry);
	}
	if (!any_load)
		return ELF64_E_NOLOAD;
	return entry_ok ? 0 : ELF64_E_ENTRY;
}

/* head: the first head_len bytes of a file of file_len bytes. */
static int check(const void *head, size_t head_len, size_t file_len,
                 uint16_t machine)
{
	const Elf64_Ehdr *eh = ehdr(head);
	int err;

	if ((err = elf64_check_header(head, head_len)) < 0)
		return err;
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		return ELF64_E_TYPE;
	if (eh->e_machine != machine)
		return ELF64_E_MACHINE;
	if ((err = check_phdr_table(eh, head_len)) < 0)
		return err;
	return check_segments(head, file_len);
}

int elf64_check(const void *img, size_t len, uint16_t machine,
                const char **why)
{
	return elf64_check_head(img, len, len, machine, why);
}

int elf64_check_head(const void *head, size_t head_len, size_t file_len,
                     uint16_t machine, const char **why)
{
	int err = check(head, head_len, file_len < head_len ? head_len : file_len,
	                machine);

	if (why)
		*why = elf64_strerror(err);
	return err;
}

unsigned elf64_phnum(const void *img)
{
	return ehdr(img)->e_phnum;
}

const Elf64_Phdr *elf64_phdr(const void *img, unsigned i)
{
	const char *table = (const char *)img + ehdr(img)->e_phoff;

	return (const Elf64_Phdr *)table + i;
}

int elf64_load_span(const void *img, uint64_t *lo, uint64_t *hi)
{
	uint64_t low = UINT64_MAX, high = 0;

	for (unsigned i = 0; i < elf64_phnum(img); i++) {
		const Elf64_Phdr *ph = elf64_phdr(img, i);
		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_vaddr < low)
			low = ph->p_vaddr;
		if (ph->p_vaddr + ph->p_memsz > high)
			high = ph->p_vaddr + ph->p_memsz;
	}
	if (low > high)
		return ELF64_E_NOLOAD;
	*lo = low & ~PAGE_MASK;
	*hi = (high + PAGE_MASK) & ~PAGE_MASK;
	return 0;
}

/* A switch, not a table of pointers, so the code needs no relocations. */
const char *elf64_strerror(int err)
{
	switch (err) {
	case 0:                   return "ok";
	case ELF64_E_NOTELF:      return "not an ELF file";
	case ELF64_E_ALIGN:       return "image not 8-byte aligned";
	case ELF64_E_TRUNC:       return "truncated ELF header";
	case ELF64_E_CLASS:       return "not 64-bit";
	case ELF64_E_DATA:        return "not little-endian";
	case ELF64_E_VERSION:     return "bad ELF version";
	case ELF64_E_TYPE:        return "not an executable";
	case ELF64_E_MACHINE:     return "wrong machine";
	case ELF64_E_PHENTSIZE:   return "bad phentsize";
	case ELF64_E_PHNUM:       return "too many program headers";
	case ELF64_E_PHALIGN:     return "misaligned program headers";
	case ELF64_E_PHDRS:       return "program headers outside file";
	case ELF64_E_SEGDATA:     return "segment data outside file";
	case ELF64_E_SEGSIZE:     return "segment filesz > memsz";
	case ELF64_E_SEGADDR:     return "segment address overflow";
	case ELF64_E_SEGALIGN:    return "bad segment alignment";
	case ELF64_E_NOLOAD:      return "no loadable segment";
	case ELF64_E_ENTRY:       return "entry point not in executable segment";
	case ELF64_E_NOSECTIONS:  return "no section headers";
	case ELF64_E_SHENTSIZE:   return "bad shentsize";
	case ELF64_E_SHALIGN:     return "misaligned section headers";
	case ELF64_E_SHDRS:       return "section headers outside file";
	case ELF64_E_SECDATA:     return "section data outside file";
	case ELF64_E_STRTAB:      return "bad string table";
	case ELF64_E_NAME:        return "bad name offset";
	case ELF64_E_SYMTAB:      return "bad symbol table";
	case ELF64_E_NOTFOUND:    return "not found";
	default:                  return "unknown error";
	}
}

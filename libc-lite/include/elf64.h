/*
 * elf64.h: checks and lookups on an ELF64 little-endian image held in
 * memory, for loaders (kernel exec, the UEFI loader) and symbolizers.
 * Structures and constants come from Linux's <linux/elf.h>.
 *
 * The image must start at an 8-byte aligned address. Functions taking
 * len bounds-check every offset and size read from the image with
 * overflow-safe arithmetic; the others require an image that already
 * passed elf64_check.
 */
#ifndef LIBC_LITE_ELF64_H
#define LIBC_LITE_ELF64_H

#include <linux/elf.h>
#include <stddef.h>
#include <stdint.h>

/* Negative results. elf64_strerror() gives each one's English reason. */
enum elf64_error {
	ELF64_E_NOTELF = -1,      /* "not an ELF file" */
	ELF64_E_ALIGN = -2,       /* "image not 8-byte aligned" */
	ELF64_E_TRUNC = -3,       /* "truncated ELF header" */
	ELF64_E_CLASS = -4,       /* "not 64-bit" */
	ELF64_E_DATA = -5,        /* "not little-endian" */
	ELF64_E_VERSION = -6,     /* "bad ELF version" */
	ELF64_E_TYPE = -7,        /* "not an executable" */
	ELF64_E_MACHINE = -8,     /* "wrong machine" */
	ELF64_E_PHENTSIZE = -9,   /* "bad phentsize" */
	ELF64_E_PHNUM = -10,      /* "too many program headers" */
	ELF64_E_PHALIGN = -11,    /* "misaligned program headers" */
	ELF64_E_PHDRS = -12,      /* "program headers outside file" */
	ELF64_E_SEGDATA = -13,    /* "segment data outside file" */
	ELF64_E_SEGSIZE = -14,    /* "segment filesz > memsz" */
	ELF64_E_SEGADDR = -15,    /* "segment address overflow" */
	ELF64_E_SEGALIGN = -16,   /* "bad segment alignment" */
	ELF64_E_NOLOAD = -17,     /* "no loadable segment" */
	ELF64_E_ENTRY = -18,      /* "entry point not in executable segment" */
	ELF64_E_NOSECTIONS = -19, /* "no section headers" */
	ELF64_E_SHENTSIZE = -20,  /* "bad shentsize" */
	ELF64_E_SHALIGN = -21,    /* "misaligned section headers" */
	ELF64_E_SHDRS = -22,      /* "section headers outside file" */
	ELF64_E_SECDATA = -23,    /* "section data outside file" */
	ELF64_E_STRTAB = -24,     /* "bad string table" */
	ELF64_E_NAME = -25,       /* "bad name offset" */
	ELF64_E_SYMTAB = -26,     /* "bad symbol table" */
	ELF64_E_NOTFOUND = -27,   /* "not found" */
};

/*
 * Check only the ELF header's identification: alignment, magic, size,
 * ELFCLASS64, ELFDATA2LSB, EV_CURRENT. Returns 0 or a negative code.
 * (elf64_check and the lookups below start with this.)
 */
int elf64_check_header(const void *img, size_t len);

/*
 * Check that img[0..len) is an ELF64 little-endian ET_EXEC or ET_DYN
 * image for `machine` (EM_X86_64, ...) that can be loaded: header fields
 * sane, program headers inside the file, and for each PT_LOAD segment:
 * its file bytes (if filesz > 0) inside the file, filesz <= memsz,
 * vaddr + memsz rounded up to 4 KiB not wrapping (so the top page of the
 * address space is unusable), p_vaddr = p_offset modulo p_align (when
 * p_align > 1, which must be a power of two). At least one PT_LOAD; the
 * entry point inside an executable (PF_X) PT_LOAD segment.
 * Returns 0 if so, else a negative ELF64_E_* code. If why is not NULL,
 * *why is set to a static English reason (or "ok").
 */
int elf64_check(const void *img, size_t len, uint16_t machine,
                const char **why);
/* The same checks with only the file's first head_len bytes at hand
 * (exec reads the rest in pieces): the header and program header table
 * must lie in them, the segments within file_len. */
int elf64_check_head(const void *head, size_t head_len, size_t file_len,
                     uint16_t machine, const char **why);

/* Number of program headers. img must have passed elf64_check. */
unsigned elf64_phnum(const void *img);

/* Program header i < elf64_phnum(img). img must have passed elf64_check. */
const Elf64_Phdr *elf64_phdr(const void *img, unsigned i);

/*
 * The virtual address range the PT_LOAD segments need: *lo is the lowest
 * p_vaddr rounded down to 4 KiB, *hi the highest p_vaddr + p_memsz rounded
 * up to 4 KiB. img must have passed elf64_check. Returns 0, or
 * ELF64_E_NOLOAD if there is no PT_LOAD segment.
 */
int elf64_load_span(const void *img, uint64_t *lo, uint64_t *hi);

/*
 * Find the section called name (".text", ".symtab", ...). Checks the ELF
 * identification, the section header table, the section-name string table
 * and, for the section found, that its contents (unless SHT_NOBITS) lie in
 * the file. Returns 0 with *out set, ELF64_E_NOTFOUND, or another negative
 * code for a malformed image. Extended section numbering (e_shnum == 0,
 * e_shstrndx == SHN_XINDEX) is not supported.
 */
int elf64_find_section(const void *img, size_t len, const char *name,
                       const Elf64_Shdr **out);

/*
 * Find the first symbol called name in .symtab (names from the string
 * table its sh_link names). Same checks and results as elf64_find_section.
 */
int elf64_find_symbol(const void *img, size_t len, const char *name,
                      const Elf64_Sym **out);

/* The English reason for an elf64_* result; "ok" for 0. */
const char *elf64_strerror(int err);

#endif

/*
 * elf64_sect.c: find sections and symbols by name.
 *
 * Nothing in the section header table is trusted: each table, string and
 * symbol is bounds-checked against len before it is read, using the same
 * rule as elf64.c (n <= len && off <= len - n).
 */
#include <elf64.h>
#include <stdbool.h>
#include <string.h>

/* The section header table, once checked. */
struct shtab {
	const Elf64_Shdr *sh;
	unsigned n;
};

/* A string table, once checked: size bytes at s. */
struct strtab {
	const char *s;
	uint64_t size;
};

static bool in_file(uint64_t off, uint64_t n, size_t len)
{
	return n <= len && off <= len - n;
}

static int section_table(const void *img, size_t len, struct shtab *t)
{
	const Elf64_Ehdr *eh = img;
	int err;

	if ((err = elf64_check_header(img, len)) < 0)
		return err;
	if (eh->e_shoff == 0 || eh->e_shnum == 0)
		return ELF64_E_NOSECTIONS;
	if (eh->e_shentsize != sizeof(Elf64_Shdr))
		return ELF64_E_SHENTSIZE;
	if (eh->e_shoff % 8 != 0)
		return ELF64_E_SHALIGN;
	if (!in_file(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr), len))
		return ELF64_E_SHDRS;
	t->sh = (const Elf64_Shdr *)((const char *)img + eh->e_shoff);
	t->n = eh->e_shnum;
	return 0;
}

/* Are the contents of section sh inside the file? */
static bool section_in_file(const Elf64_Shdr *sh, size_t len)
{
	return sh->sh_type == SHT_NOBITS ||
	       in_file(sh->sh_offset, sh->sh_size, len);
}

/* Section i of t as a string table. */
static int string_table(const void *img, size_t len, const struct shtab *t,
                        unsigned i, struct strtab *st)
{
	const Elf64_Shdr *sh;

	if (i == SHN_UNDEF || i >= t->n)
		return ELF64_E_STRTAB;
	sh = &t->sh[i];
	if (sh->sh_type != SHT_STRTAB || !in_file(sh->sh_offset, sh->sh_size, len))
		return ELF64_E_STRTAB;
	st->s = (const char *)img + sh->sh_offset;
	st->size = sh->sh_size;
	return 0;
}

/* Is the string at off in st equal to name? 1 yes, 0 no, <0 bad offset. */
static int name_is(const struct strtab *st, uint64_t off, const char *name)
{
	const char *s;

	/* The string must end (in a NUL) inside the table. */
	if (off >= st->size || memchr(st->s + off, '\0', st->size - off) == NULL)
		return ELF64_E_NAME;
	s = st->s + off;
	return strcmp(s, name) == 0;
}

int elf64_find_section(const void *img, size_t len, const char *name,
                       const Elf64_Shdr **out)
{
	const Elf64_Ehdr *eh = img;
	struct shtab t;
	struct strtab names;
	int r;

	if ((r = section_table(img, len, &t)) < 0)
		return r;
	if ((r = string_table(img, len, &t, eh->e_shstrndx, &names)) < 0)
		return r;
	for (unsigned i = 0; i < t.n; i++) {
		if ((r = name_is(&names, t.sh[i].sh_name, name)) < 0)
			return r;
		if (r == 0)
			continue;
		if (!section_in_file(&t.sh[i], len))
			return ELF64_E_SECDATA;
		*out = &t.sh[i];
		return 0;
	}
	return ELF64_E_NOTFOUND;
}

/* Check .symtab's shape: entry size, alignment, whole entries. */
static bool symtab_ok(const Elf64_Shdr *sh)
{
	return sh->sh_type == SHT_SYMTAB && sh->sh_entsize == sizeof(Elf64_Sym) &&
	       sh->sh_offset % 8 == 0 && sh->sh_size % sizeof(Elf64_Sym) == 0;
}

int elf64_find_symbol(const void *img, size_t len, const char *name,
                      const Elf64_Sym **out)
{
	const Elf64_Shdr *symtab;
	const Elf64_Sym *syms;
	struct shtab t;
	struct strtab names;
	int r;

	if ((r = elf64_find_section(img, len, ".symtab", &symtab)) < 0)
		return r;
	if (!symtab_ok(symtab))
		return ELF64_E_SYMTAB;
	section_table(img, len, &t);   /* cannot fail: checked above */
	if ((r = string_table(img, len, &t, symtab->sh_link, &names)) < 0)
		return r;
	syms = (const Elf64_Sym *)((const char *)img + symtab->sh_offset);
	for (uint64_t i = 0; i < symtab->sh_size / sizeof(Elf64_Sym); i++) {
		if ((r = name_is(&names, syms[i].st_name, name)) < 0)
			return r;
		if (r == 1) {
			*out = &syms[i];
			return 0;
		}
	}
	return ELF64_E_NOTFOUND;
}

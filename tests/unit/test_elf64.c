/*
 * test_elf64.c: libc-lite's ELF64 checks and lookups on real files built
 * by the test build (fixtures/elf_prog.c as a static executable, a static
 * PIE and an object file) and /bin/true; on copies with one header field
 * broken at a time; on every truncation; under random corruption; and on
 * small synthetic images. Images sit in heap blocks of exactly their
 * length, so AddressSanitizer reports any read outside them.
 */
#include "unit.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "ll.h"


static struct blob fixture(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", FIXTURES, name);
	return load(path);
}

/* malloc returns 16-byte aligned blocks: exact size and aligned. */
static unsigned char *dup_prefix(const struct blob *b, size_t len)
{
	unsigned char *p = malloc(len ? len : 1);

	memcpy(p, b->p, len);
	return p;
}

static uint64_t round_up(uint64_t x)
{
	return (x + 0xfff) & ~0xfffull;
}

static void want_check(const void *img, size_t len, int want,
                         const char *want_why)
{
	const char *why = NULL;
	int r = ll_elf64_check(img, len, EM_X86_64, &why);

	if (r != want)
		fail_msg("elf64_check: got %d (%s), want %d (%s)", r, why, want,
		         ll_elf64_strerror(want));
	assert_non_null(why);
	if (want_why)
		assert_string_equal(why, want_why);
	else
		assert_string_equal(why, ll_elf64_strerror(want));
}

/* --- valid files ------------------------------------------------------------ */

static void test_valid_files(void **state)
{
	(void)state;
	const char *names[] = { "elf_static", "elf_pie" };

	for (int i = 0; i < 2; i++) {
		struct blob b = fixture(names[i]);
		want_check(b.p, b.len, 0, "ok");
		assert_int_equal(ll_elf64_check(b.p, b.len, EM_X86_64, NULL), 0);
		want_check(b.p, b.len, 0, NULL);
		const char *why;
		assert_int_equal(ll_elf64_check(b.p, b.len, EM_AARCH64, &why),
		                 ELF64_E_MACHINE);
		assert_string_equal(why, "wrong machine");
		free(b.p);
	}

	struct blob t = load("/bin/true");
	want_check(t.p, t.len, 0, "ok");
	free(t.p);

	struct blob o = fixture("elf_obj.o");
	want_check(o.p, o.len, ELF64_E_TYPE, "not an executable");
	free(o.p);
}

static void test_phdrs_and_span(void **state)
{
	(void)state;
	struct blob b = fixture("elf_static");
	const Elf64_Ehdr *eh = (const void *)b.p;
	const Elf64_Sym *end_sym, *start_sym;
	uint64_t lo = 1, hi = 1;

	assert_int_equal(ll_elf64_phnum(b.p), eh->e_phnum);
	for (unsigned i = 0; i < eh->e_phnum; i++)
		assert_ptr_equal(ll_elf64_phdr(b.p, i),
		                 (const Elf64_Phdr *)(b.p + eh->e_phoff) + i);
	assert_int_equal(eh->e_type, ET_EXEC);

	/* Linked at 0x400000; the last byte is the linker's _end. */
	assert_int_equal(ll_elf64_load_span(b.p, &lo, &hi), 0);
	assert_int_equal(ll_elf64_find_symbol(b.p, b.len, "_end", &end_sym), 0);
	assert_int_equal(lo, 0x400000);
	assert_int_equal(hi, round_up(end_sym->st_value));
	assert_int_equal(ll_elf64_find_symbol(b.p, b.len, "_start", &start_sym), 0);
	assert_int_equal(start_sym->st_value, eh->e_entry);
	free(b.p);

	b = fixture("elf_pie");
	eh = (const void *)b.p;
	assert_int_equal(eh->e_type, ET_DYN);
	assert_int_equal(ll_elf64_load_span(b.p, &lo, &hi), 0);
	assert_int_equal(ll_elf64_find_symbol(b.p, b.len, "_end", &end_sym), 0);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, round_up(end_sym->st_value));
	free(b.p);
}

static void test_sections_and_symbols(void **state)
{
	(void)state;
	struct blob b = fixture("elf_static");
	const Elf64_Ehdr *eh = (const void *)b.p;
	const Elf64_Shdr *sh;
	const Elf64_Sym *sym;

	assert_int_equal(ll_elf64_find_section(b.p, b.len, ".bmtest", &sh), 0);
	assert_int_equal(sh->sh_type, SHT_PROGBITS);
	assert_string_equal((const char *)b.p + sh->sh_offset, "baremon elf fixture");
	assert_int_equal(ll_elf64_find_symbol(b.p, b.len, "bm_marker", &sym), 0);
	assert_int_equal(sym->st_value, sh->sh_addr);
	assert_int_equal(sym->st_size, sizeof("baremon elf fixture"));

	assert_int_equal(ll_elf64_find_section(b.p, b.len, ".text", &sh), 0);
	assert_true(sh->sh_flags & SHF_EXECINSTR);
	assert_true(eh->e_entry >= sh->sh_addr &&
	            eh->e_entry < sh->sh_addr + sh->sh_size);

	assert_int_equal(ll_elf64_find_section(b.p, b.len, ".bss", &sh), 0);
	assert_int_equal(sh->sh_type, SHT_NOBITS);
	assert_int_equal(ll_elf64_find_symbol(b.p, b.len, "bm_bss", &sym), 0);
	assert_int_equal(sym->st_value, sh->sh_addr);

	assert_int_equal(ll_elf64_find_section(b.p, b.len, ".nope", &sh),
	                 ELF64_E_NOTFOUND);
	assert_int_equal(ll_elf64_find_section(b.p, b.len, ".bmtes", &sh),
	                 ELF64_E_NOTFOUND);
	assert_int_equal(ll_elf64_find_symbol(b.p, b.len, "nope", &sym),
	                 ELF64_E_NOTFOUND);
	assert_int_equal(ll_elf64_find_symbol(b.p, b.len, "bm_marke", &sym),
	                 ELF64_E_NOTFOUND);
	free(b.p);

	/* Sections work on object files too; stripped files have no .symtab. */
	b = fixture("elf_obj.o");
	assert_int_equal(ll_elf64_find_section(b.p, b.len, ".bmtest", &sh), 0);
	assert_string_equal((const char *)b.p + sh->sh_offset, "baremon elf fixture");
	assert_int_equal(ll_elf64_find_symbol(b.p, b.len, "_start", &sym), 0);
	free(b.p);

	b = load("/bin/true");
	assert_int_equal(ll_elf64_find_section(b.p, b.len, ".text", &sh), 0);
	assert_int_equal(ll_elf64_find_symbol(b.p, b.len, "main", &sym),
	                 ELF64_E_NOTFOUND);
	free(b.p);
}

/* --- one field broken at a time --------------------------------------------- */

/* The first PT_LOAD whose flags include want_x (PF_X) or exclude it. */
static Elf64_Phdr *find_load(unsigned char *img, bool exec)
{
	Elf64_Ehdr *eh = (void *)img;
	Elf64_Phdr *ph = (void *)(img + eh->e_phoff);

	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && !!(ph[i].p_flags & PF_X) == exec)
			return &ph[i];
	fail_msg("no such PT_LOAD");
	return NULL;
}

/*
 * Run `code` on a fresh copy of elf_static (img, eh, text, ro, len in
 * scope) and expect elf64_check to return `want`.
 */
#define BREAK(want, code)                                          \
	do {                                                       \
		unsigned char *img = dup_prefix(&st, st.len);      \
		Elf64_Ehdr *eh = (void *)img;                      \
		Elf64_Phdr *text = find_load(img, true);           \
		Elf64_Phdr *ro = find_load(img, false);            \
		size_t len = st.len;                               \
		(void)eh, (void)text, (void)ro, (void)len;         \
		code;                                              \
		want_check(img, len, want, NULL);                \
		free(img);                                         \
	} while (0)

static void test_broken_ehdr(void **state)
{
	(void)state;
	struct blob st = fixture("elf_static");

	for (int i = 0; i < 4; i++)
		BREAK(ELF64_E_NOTELF, img[i] ^= 0x20);
	BREAK(ELF64_E_CLASS, img[EI_CLASS] = ELFCLASS32);
	BREAK(ELF64_E_CLASS, img[EI_CLASS] = 0);
	BREAK(ELF64_E_DATA, img[EI_DATA] = ELFDATA2MSB);
	BREAK(ELF64_E_VERSION, img[EI_VERSION] = 0);
	BREAK(ELF64_E_VERSION, eh->e_version = 2);
	BREAK(ELF64_E_TYPE, eh->e_type = ET_REL);
	BREAK(ELF64_E_TYPE, eh->e_type = ET_CORE);
	BREAK(ELF64_E_TYPE, eh->e_type = ET_NONE);
	BREAK(ELF64_E_MACHINE, eh->e_machine = EM_386);
	BREAK(ELF64_E_PHENTSIZE, eh->e_phentsize = 0);
	BREAK(ELF64_E_PHENTSIZE, eh->e_phentsize = sizeof(Elf64_Phdr) - 1);
	BREAK(ELF64_E_PHENTSIZE, eh->e_phentsize = sizeof(Elf64_Phdr) + 8);
	BREAK(ELF64_E_PHNUM, eh->e_phnum = PN_XNUM);
	BREAK(ELF64_E_NOLOAD, eh->e_phnum = 0);
	BREAK(ELF64_E_PHALIGN, eh->e_phoff += 4);
	BREAK(ELF64_E_PHDRS, eh->e_phoff = len);
	BREAK(ELF64_E_PHDRS, eh->e_phoff = (len - sizeof(Elf64_Phdr) + 8) & ~7ul);
	BREAK(ELF64_E_PHDRS, eh->e_phoff = UINT64_MAX & ~7ull);
	BREAK(ELF64_E_PHDRS, eh->e_phnum = 1000);
	BREAK(ELF64_E_ENTRY, eh->e_entry = 0);
	BREAK(ELF64_E_ENTRY, eh->e_entry = ro->p_vaddr);
	BREAK(ELF64_E_ENTRY, eh->e_entry = text->p_vaddr + text->p_memsz);
	BREAK(ELF64_E_ENTRY, eh->e_entry = text->p_vaddr - 1);
	BREAK(0, eh->e_entry = text->p_vaddr + text->p_memsz - 1);
	BREAK(0, eh->e_entry = text->p_vaddr);
	/* Fields a loader does not use may hold anything. */
	BREAK(0, eh->e_shoff = UINT64_MAX; eh->e_shnum = 7; eh->e_flags = ~0u);
	free(st.p);
}

static void test_broken_segments(void **state)
{
	(void)state;
	struct blob st = fixture("elf_static");

	BREAK(ELF64_E_SEGDATA, text->p_offset = len);
	BREAK(ELF64_E_SEGDATA, text->p_offset = UINT64_MAX);
	BREAK(ELF64_E_SEGDATA, text->p_offset = UINT64_MAX - 4);
	BREAK(ELF64_E_SEGDATA, text->p_filesz = len + 1; text->p_memsz = len + 1);
	BREAK(ELF64_E_SEGDATA, text->p_filesz = UINT64_MAX;
	      text->p_memsz = UINT64_MAX);
	BREAK(ELF64_E_SEGDATA, text->p_align = 1;
	      text->p_offset = len - text->p_filesz + 1);
	BREAK(0, text->p_align = 1; text->p_offset = len - text->p_filesz);
	BREAK(ELF64_E_SEGSIZE, text->p_filesz = text->p_memsz + 1);
	BREAK(ELF64_E_SEGADDR, text->p_vaddr = UINT64_MAX - 0x10);
	BREAK(ELF64_E_SEGADDR, text->p_memsz = UINT64_MAX);
	/* End exactly where rounding up would still fit, then one more. */
	BREAK(0, text->p_align = 0;
	      text->p_memsz = UINT64_MAX - 0xfff - text->p_vaddr);
	BREAK(ELF64_E_SEGADDR, text->p_align = 0;
	      text->p_memsz = UINT64_MAX - 0xfff - text->p_vaddr + 1);
	BREAK(ELF64_E_SEGALIGN, text->p_align = 3);
	BREAK(ELF64_E_SEGALIGN, text->p_align = 0x3000);
	BREAK(ELF64_E_SEGALIGN, text->p_vaddr += 8; eh->e_entry += 8);
	BREAK(ELF64_E_SEGALIGN, text->p_offset += 8);
	BREAK(0, text->p_align = 8; text->p_vaddr += 8; eh->e_entry += 8);
	BREAK(0, text->p_align = 0; text->p_offset += 1);
	/* A segment without file bytes may name any offset. */
	BREAK(0, Elf64_Phdr *bss = &text[2]; assert_int_equal(bss->p_filesz, 0);
	      bss->p_align = 0; bss->p_offset = UINT64_MAX);
	BREAK(ELF64_E_NOLOAD, for (unsigned i = 0; i < eh->e_phnum; i++)
	      ((Elf64_Phdr *)(img + eh->e_phoff))[i].p_type = PT_NULL);
	BREAK(ELF64_E_ENTRY, text->p_type = PT_NULL);
	BREAK(ELF64_E_ENTRY, text->p_flags &= ~PF_X);
	free(st.p);
}

static void test_short_and_misaligned(void **state)
{
	(void)state;
	struct blob st = fixture("elf_static");
	const char *why;

	for (size_t len = 0; len < 4; len++)
		want_check(st.p, len, ELF64_E_NOTELF, "not an ELF file");
	for (size_t len = 4; len < sizeof(Elf64_Ehdr); len++) {
		unsigned char *p = dup_prefix(&st, len);
		want_check(p, len, ELF64_E_TRUNC, NULL);
		free(p);
	}
	want_check("\x7f" "ELX", 4, ELF64_E_NOTELF, NULL);

	unsigned char *raw = malloc(st.len + 1);
	memcpy(raw + 1, st.p, st.len);
	assert_int_equal(ll_elf64_check(raw + 1, st.len, EM_X86_64, &why),
	                 ELF64_E_ALIGN);
	const Elf64_Shdr *sh;
	assert_int_equal(ll_elf64_find_section(raw + 1, st.len, ".text", &sh),
	                 ELF64_E_ALIGN);
	free(raw);
	free(st.p);
}

/* Run `code` on a copy of elf_static and expect find_section/symbol results. */
#define BREAK_SECT(name, want_sect, sym, want_sym, code)                    \
	do {                                                                \
		unsigned char *img = dup_prefix(&st, st.len);               \
		Elf64_Ehdr *eh = (void *)img;                               \
		Elf64_Shdr *sh = (void *)(img + eh->e_shoff);               \
		size_t len = st.len;                                        \
		const Elf64_Shdr *out;                                      \
		const Elf64_Sym *sout;                                      \
		(void)sh, (void)len;                                        \
		code;                                                       \
		assert_int_equal(ll_elf64_find_section(img, st.len, name,   \
		                                       &out), want_sect);   \
		assert_int_equal(ll_elf64_find_symbol(img, st.len, sym,     \
		                                      &sout), want_sym);    \
		free(img);                                                  \
	} while (0)

/* Index of the section called name in an intact image. */
static unsigned section_index(const struct blob *b, const char *name)
{
	const Elf64_Shdr *sh;

	assert_int_equal(ll_elf64_find_section(b->p, b->len, name, &sh), 0);
	return (unsigned)(sh - (const Elf64_Shdr *)(b->p +
	                  ((const Elf64_Ehdr *)b->p)->e_shoff));
}

static void test_broken_sections(void **state)
{
	(void)state;
	struct blob st = fixture("elf_static");
	unsigned text = section_index(&st, ".text");
	unsigned bmtest = section_index(&st, ".bmtest");
	unsigned symtab = section_index(&st, ".symtab");
	unsigned strtab = section_index(&st, ".strtab");
	const Elf64_Ehdr *seh = (const void *)st.p;
	unsigned shstrtab = seh->e_shstrndx;

	BREAK_SECT(".text", 0, "_start", 0, (void)0);
	BREAK_SECT(".text", ELF64_E_SHENTSIZE, "_start", ELF64_E_SHENTSIZE,
	           eh->e_shentsize = 63);
	BREAK_SECT(".text", ELF64_E_NOSECTIONS, "_start", ELF64_E_NOSECTIONS,
	           eh->e_shnum = 0);
	BREAK_SECT(".text", ELF64_E_NOSECTIONS, "_start", ELF64_E_NOSECTIONS,
	           eh->e_shoff = 0);
	BREAK_SECT(".text", ELF64_E_SHALIGN, "_start", ELF64_E_SHALIGN,
	           eh->e_shoff += 4);
	BREAK_SECT(".text", ELF64_E_SHDRS, "_start", ELF64_E_SHDRS,
	           eh->e_shoff = len);
	BREAK_SECT(".text", ELF64_E_SHDRS, "_start", ELF64_E_SHDRS,
	           eh->e_shoff = UINT64_MAX & ~7ull);
	BREAK_SECT(".text", ELF64_E_SHDRS, "_start", ELF64_E_SHDRS,
	           eh->e_shnum = 5000);
	BREAK_SECT(".text", ELF64_E_STRTAB, "_start", ELF64_E_STRTAB,
	           eh->e_shstrndx = eh->e_shnum);
	BREAK_SECT(".text", ELF64_E_STRTAB, "_start", ELF64_E_STRTAB,
	           eh->e_shstrndx = 0);
	BREAK_SECT(".text", ELF64_E_STRTAB, "_start", ELF64_E_STRTAB,
	           eh->e_shstrndx = 0xffff);
	BREAK_SECT(".text", ELF64_E_STRTAB, "_start", ELF64_E_STRTAB,
	           eh->e_shstrndx = text);
	BREAK_SECT(".text", ELF64_E_STRTAB, "_start", ELF64_E_STRTAB,
	           sh[shstrtab].sh_offset = len);
	BREAK_SECT(".text", ELF64_E_STRTAB, "_start", ELF64_E_STRTAB,
	           sh[shstrtab].sh_size = len + 1);
	BREAK_SECT(".text", ELF64_E_STRTAB, "_start", ELF64_E_STRTAB,
	           sh[shstrtab].sh_offset = UINT64_MAX);
	/* Name offsets: past the table, or a name cut off before its NUL. */
	BREAK_SECT(".nope", ELF64_E_NAME, "_start", ELF64_E_NAME,
	           sh[0].sh_name = sh[shstrtab].sh_size);
	BREAK_SECT(".nope", ELF64_E_NAME, "_start", ELF64_E_NAME,
	           sh[0].sh_name = UINT32_MAX);
	BREAK_SECT(".nope", ELF64_E_NAME, "_start", ELF64_E_NAME,
	           sh[0].sh_name = sh[shstrtab].sh_size - 2;
	           sh[shstrtab].sh_size -= 1);
	/* A bad name after the one sought is never looked at. */
	BREAK_SECT(".text", 0, "_start", 0,
	           sh[eh->e_shnum - 1].sh_name = UINT32_MAX);
	BREAK_SECT(".nope", ELF64_E_NAME, "_start", 0,
	           sh[eh->e_shnum - 1].sh_name = UINT32_MAX);
	/* Section contents outside the file. */
	BREAK_SECT(".bmtest", ELF64_E_SECDATA, "_start", 0,
	           sh[bmtest].sh_offset = len);
	BREAK_SECT(".bmtest", ELF64_E_SECDATA, "_start", 0,
	           sh[bmtest].sh_size = UINT64_MAX);
	/* .symtab shape and its string table. */
	BREAK_SECT(".text", 0, "_start", ELF64_E_SYMTAB,
	           sh[symtab].sh_entsize = 23);
	BREAK_SECT(".text", 0, "_start", ELF64_E_SYMTAB,
	           sh[symtab].sh_size -= 1);
	BREAK_SECT(".text", 0, "_start", ELF64_E_SYMTAB,
	           sh[symtab].sh_offset += 4);
	BREAK_SECT(".text", 0, "_start", ELF64_E_SYMTAB,
	           sh[symtab].sh_type = SHT_PROGBITS);
	BREAK_SECT(".text", 0, "_start", ELF64_E_SECDATA,
	           sh[symtab].sh_offset = len);
	BREAK_SECT(".text", 0, "_start", ELF64_E_STRTAB,
	           sh[symtab].sh_link = 0);
	BREAK_SECT(".text", 0, "_start", ELF64_E_STRTAB,
	           sh[symtab].sh_link = text);
	BREAK_SECT(".text", 0, "_start", ELF64_E_STRTAB,
	           sh[symtab].sh_link = 1000);
	BREAK_SECT(".text", 0, "_start", ELF64_E_STRTAB,
	           sh[strtab].sh_size = len);
	BREAK_SECT(".text", 0, "_start", ELF64_E_NAME,
	           Elf64_Sym *syms = (void *)(img + sh[symtab].sh_offset);
	           syms[1].st_name = sh[strtab].sh_size);
	/* The section-header checks do not care about the program headers. */
	BREAK_SECT(".text", 0, "_start", 0, eh->e_phoff = UINT64_MAX);
	free(st.p);
}

/* --- truncation and random corruption ---------------------------------------- */

/* What elf64_check promised, verified independently. */
static void verify_loadable(const unsigned char *img, size_t len)
{
	const Elf64_Ehdr *eh = (const void *)img;
	uint64_t lo, hi;

	assert_true(len >= sizeof(*eh));
	assert_true(eh->e_phoff <= len &&
	            (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) <= len - eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(img + eh->e_phoff +
		                                      i * sizeof(Elf64_Phdr));
		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_filesz)
			assert_true(ph->p_offset <= len &&
			            ph->p_filesz <= len - ph->p_offset);
		assert_true(ph->p_filesz <= ph->p_memsz);
	}
	assert_int_equal(ll_elf64_load_span(img, &lo, &hi), 0);
	assert_true(lo < hi && lo % 4096 == 0 && hi % 4096 == 0);
}

static void verify_section(const unsigned char *img, size_t len, int r,
                           const Elf64_Shdr *sh)
{
	if (r < 0)
		return;
	assert_true((const unsigned char *)sh >= img &&
	            (const unsigned char *)(sh + 1) <= img + len);
	if (sh->sh_type != SHT_NOBITS)
		assert_true(sh->sh_offset <= len && sh->sh_size <= len - sh->sh_offset);
}

static void probe(const unsigned char *img, size_t len)
{
	const Elf64_Shdr *sh;
	const Elf64_Sym *sym;
	int r;

	if (ll_elf64_check(img, len, EM_X86_64, NULL) == 0)
		verify_loadable(img, len);
	r = ll_elf64_find_section(img, len, ".bmtest", &sh);
	verify_section(img, len, r, sh);
	r = ll_elf64_find_section(img, len, ".nope", &sh);
	assert_true(r < 0);
	r = ll_elf64_find_symbol(img, len, "_start", &sym);
	if (r == 0)
		assert_true((const unsigned char *)sym >= img &&
		            (const unsigned char *)(sym + 1) <= img + len);
}

static void test_truncate_every_byte(void **state)
{
	(void)state;
	const char *names[] = { "elf_static", "elf_pie" };

	for (int f = 0; f < 2; f++) {
		struct blob st = fixture(names[f]);
		size_t valid_from = st.len;
		for (size_t len = 0; len <= st.len; len++) {
			unsigned char *p = dup_prefix(&st, len);
			probe(p, len);
			if (ll_elf64_check(p, len, EM_X86_64, NULL) == 0 &&
			    valid_from == st.len)
				valid_from = len;
			free(p);
		}
		/* Valid only once all segment bytes are present. */
		const Elf64_Ehdr *eh = (const void *)st.p;
		uint64_t need = eh->e_phoff + eh->e_phnum * sizeof(Elf64_Phdr);
		for (unsigned i = 0; i < eh->e_phnum; i++) {
			const Elf64_Phdr *ph = ll_elf64_phdr(st.p, i);
			if (ph->p_type == PT_LOAD && ph->p_filesz &&
			    ph->p_offset + ph->p_filesz > need)
				need = ph->p_offset + ph->p_filesz;
		}
		assert_int_equal(valid_from, need);
		free(st.p);
	}
}

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void test_random_corruption(void **state)
{
	(void)state;
	struct blob st = fixture("elf_static");
	const Elf64_Ehdr *seh = (const void *)st.p;
	size_t ph_end = seh->e_phoff + seh->e_phnum * sizeof(Elf64_Phdr);
	unsigned char *img = malloc(st.len);

	for (int round = 0; round < 20000; round++) {
		memcpy(img, st.p, st.len);
		for (int k = 1 + rng() % 3; k > 0; k--) {
			/* Aim at the headers: that is where the offsets are. */
			size_t at = rng() % 2 ? rng() % ph_end
			                      : seh->e_shoff + rng() % (st.len - seh->e_shoff);
			img[at] = rng() % 3 ? (unsigned char)rng()
			                    : (unsigned char)(img[at] ^ (1u << rng() % 8));
		}
		probe(img, st.len);
	}
	free(img);
	free(st.p);
}

/* --- synthetic images ----------------------------------------------------- */

struct synth {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[4];
	unsigned char code[16];
};

static void synth_init(struct synth *s)
{
	memset(s, 0, sizeof(*s));
	memcpy(s->eh.e_ident, ELFMAG, SELFMAG);
	s->eh.e_ident[EI_CLASS] = ELFCLASS64;
	s->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	s->eh.e_ident[EI_VERSION] = EV_CURRENT;
	s->eh.e_type = ET_EXEC;
	s->eh.e_machine = EM_X86_64;
	s->eh.e_version = EV_CURRENT;
	s->eh.e_phoff = offsetof(struct synth, ph);
	s->eh.e_phentsize = sizeof(Elf64_Phdr);
	s->eh.e_ehsize = sizeof(Elf64_Ehdr);
}

/* PT_LOAD i: vaddr/memsz as given, no file bytes except for code. */
static void synth_load(struct synth *s, int i, uint64_t vaddr, uint64_t memsz,
                       bool code)
{
	Elf64_Phdr *ph = &s->ph[i];

	ph->p_type = PT_LOAD;
	ph->p_flags = PF_R | (code ? PF_X : PF_W);
	ph->p_vaddr = vaddr;
	ph->p_memsz = memsz;
	ph->p_align = 0x1000;
	ph->p_offset = vaddr % 0x1000;
	if (code) {
		ph->p_offset = offsetof(struct synth, code);
		ph->p_vaddr = vaddr - vaddr % 0x1000 + ph->p_offset;
		ph->p_filesz = sizeof(s->code);
		s->eh.e_entry = ph->p_vaddr;
	}
	if (i + 1 > s->eh.e_phnum)
		s->eh.e_phnum = i + 1;
}

static void test_synthetic_span(void **state)
{
	(void)state;
	struct synth s;
	uint64_t lo, hi;

	synth_init(&s);
	synth_load(&s, 0, 0xffffffff80200000ull, 0x123, false);
	synth_load(&s, 1, 0xffffffff80100000ull, 0x1000, true);
	synth_load(&s, 2, 0xffffffff80300ff0ull, 0x11, false);
	s.ph[3].p_type = PT_NOTE;
	s.ph[3].p_vaddr = 0x10;
	s.eh.e_phnum = 4;
	want_check(&s, sizeof(s), 0, "ok");
	assert_int_equal(ll_elf64_load_span(&s, &lo, &hi), 0);
	assert_int_equal(lo, 0xffffffff80100000ull);
	assert_int_equal(hi, 0xffffffff80302000ull);

	/* A page-aligned end stays put. */
	synth_init(&s);
	synth_load(&s, 0, 0x401000, 0x1000 - offsetof(struct synth, code), true);
	want_check(&s, sizeof(s), 0, NULL);
	assert_int_equal(ll_elf64_load_span(&s, &lo, &hi), 0);
	assert_int_equal(lo, 0x401000);
	assert_int_equal(hi, 0x402000);

	/* As high as a rounded-up end can go (the last page cannot be used). */
	synth_init(&s);
	synth_load(&s, 0, 0x401000, 0x10, true);
	synth_load(&s, 1, 0xffffffffffffe000ull, 0x1000, false);
	want_check(&s, sizeof(s), 0, NULL);
	assert_int_equal(ll_elf64_load_span(&s, &lo, &hi), 0);
	assert_int_equal(hi, 0xfffffffffffff000ull);
	s.ph[1].p_memsz += 1;
	want_check(&s, sizeof(s), ELF64_E_SEGADDR, "segment address overflow");

	/* No PT_LOAD at all. */
	synth_init(&s);
	s.eh.e_phnum = 1;
	s.ph[0].p_type = PT_NOTE;
	want_check(&s, sizeof(s), ELF64_E_NOLOAD, "no loadable segment");
	assert_int_equal(ll_elf64_load_span(&s, &lo, &hi), ELF64_E_NOLOAD);

	/* ET_DYN is accepted like ET_EXEC. */
	synth_init(&s);
	s.eh.e_type = ET_DYN;
	synth_load(&s, 0, 0, 0x20, true);
	want_check(&s, sizeof(s), 0, NULL);
}

static void test_messages(void **state)
{
	(void)state;
	const char *required[][2] = {
		{ "not an ELF file", (const char *)(intptr_t)ELF64_E_NOTELF },
		{ "not 64-bit", (const char *)(intptr_t)ELF64_E_CLASS },
		{ "not little-endian", (const char *)(intptr_t)ELF64_E_DATA },
		{ "wrong machine", (const char *)(intptr_t)ELF64_E_MACHINE },
		{ "not an executable", (const char *)(intptr_t)ELF64_E_TYPE },
		{ "program headers outside file", (const char *)(intptr_t)ELF64_E_PHDRS },
		{ "segment data outside file", (const char *)(intptr_t)ELF64_E_SEGDATA },
		{ "segment filesz > memsz", (const char *)(intptr_t)ELF64_E_SEGSIZE },
		{ "segment address overflow", (const char *)(intptr_t)ELF64_E_SEGADDR },
		{ "no loadable segment", (const char *)(intptr_t)ELF64_E_NOLOAD },
		{ "bad phentsize", (const char *)(intptr_t)ELF64_E_PHENTSIZE },
	};

	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		assert_string_equal(ll_elf64_strerror((int)(intptr_t)required[i][1]),
		                    required[i][0]);
	for (int e = ELF64_E_NOTFOUND; e < 0; e++) {
		assert_string_not_equal(ll_elf64_strerror(e), "unknown error");
		for (int f = ELF64_E_NOTFOUND; f < e; f++)
			assert_string_not_equal(ll_elf64_strerror(e),
			                        ll_elf64_strerror(f));
	}
	assert_string_equal(ll_elf64_strerror(0), "ok");
	assert_string_equal(ll_elf64_strerror(1), "unknown error");
	assert_string_equal(ll_elf64_strerror(ELF64_E_NOTFOUND - 1), "unknown error");
	assert_string_equal(ll_elf64_strerror(INT32_MIN), "unknown error");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_valid_files),
	cmocka_unit_test(test_phdrs_and_span),
	cmocka_unit_test(test_sections_and_symbols),
	cmocka_unit_test(test_broken_ehdr),
	cmocka_unit_test(test_broken_segments),
	cmocka_unit_test(test_short_and_misaligned),
	cmocka_unit_test(test_broken_sections),
	cmocka_unit_test(test_truncate_every_byte),
	cmocka_unit_test(test_random_corruption),
	cmocka_unit_test(test_synthetic_span),
	cmocka_unit_test(test_messages),
};

UNIT_MAIN(tests)

/*
 * hello: a dynamically linked program (gcc without -static) starts
 * through glibc's ld.so with the auxiliary vector Linux gives. Built as
 * a PIE (dyn-hello) and not (dyn-hello-nopie); `hello direct` is the
 * same checks when ld.so is run as the program (ld.so ./dyn-hello).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include "abi.h"

#ifndef PIE
#error "build with -DPIE=0 or -DPIE=1"
#endif

extern char _start[];

/* The program's own load address and program headers, from ld.so. */
static int main_object(struct dl_phdr_info *info, size_t size, void *data)
{
	*(struct dl_phdr_info *)data = *info;
	return 1; /* the first object is the program */
}

static int maps_has(const char *name)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int found = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		size_t n = strlen(line), m = strlen(name);
		if (n >= m && strcmp(line + n - m, name) == 0)
			found = 1;
	}
	if (f)
		fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	int direct = argc > 1 && strcmp(argv[1], "direct") == 0;
	printf("hello, dynamic world (%s%s)\n", PIE ? "PIE" : "not PIE",
	       direct ? ", ld.so run as the program" : "");
	struct dl_phdr_info me;
	dl_iterate_phdr(main_object, &me);
	CHECK(getauxval(AT_ENTRY) == (uintptr_t)_start, "AT_ENTRY is the program's _start");
	CHECK(getauxval(AT_PHDR) == (uintptr_t)me.dlpi_phdr, "AT_PHDR is the program's headers");
	CHECK(getauxval(AT_PHNUM) == me.dlpi_phnum, "AT_PHNUM is their count");
	CHECK(getauxval(AT_PHENT) == sizeof(Elf64_Phdr), "AT_PHENT is 56");
	CHECK(getauxval(AT_PAGESZ) == 4096, "AT_PAGESZ is 4096");
	if (direct)
		CHECK(getauxval(AT_BASE) == 0, "AT_BASE is 0 with ld.so as the program");
	else
		CHECK(getauxval(AT_BASE) != 0 && getauxval(AT_BASE) % 4096 == 0,
		      "AT_BASE is the interpreter's page-aligned load address");
	CHECK(PIE ? me.dlpi_addr != 0 : me.dlpi_addr == 0,
	      PIE ? "a PIE is loaded at a base of its own" : "a non-PIE runs at its link address");
	const unsigned char *vdso = (const void *)getauxval(AT_SYSINFO_EHDR);
	CHECK(vdso && memcmp(vdso, ELFMAG, SELFMAG) == 0, "AT_SYSINFO_EHDR is an ELF image");
	CHECK(getauxval(AT_RANDOM) != 0, "AT_RANDOM is given");
	CHECK(getauxval(AT_SECURE) == 0, "AT_SECURE is 0");
	CHECK(getauxval(AT_HWCAP) != 0, "AT_HWCAP is given");
	CHECK(getauxval(AT_MINSIGSTKSZ) != 0, "AT_MINSIGSTKSZ is given");
	const char *fn = (const char *)getauxval(AT_EXECFN);
	/* ld.so run as the program puts the program's name there itself */
	CHECK(fn && strstr(fn, "dyn-hello"), "AT_EXECFN names the program");
	CHECK(maps_has("[vdso]") && maps_has("[vvar]"), "/proc/self/maps shows [vdso] and [vvar]");
	char *p = malloc(100000); /* brk or mmap through ld.so's libc */
	CHECK(p != NULL, "malloc works");
	free(p);
	return abi_done(PIE ? "dyn-hello" : "dyn-hello-nopie");
}

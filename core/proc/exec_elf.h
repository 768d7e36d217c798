/*
 * exec's ELF loader (exec_elf.c): opens an executable or the dynamic
 * loader it names (PT_INTERP) and maps its PT_LOAD segments into a new
 * address space, as Linux's binfmt_elf does. Internal to core/proc/exec*.c.
 */
#ifndef BAREMON_EXEC_ELF_H
#define BAREMON_EXEC_ELF_H

#include <stddef.h>
#include <stdint.h>
#include "pmu/perf.h"

struct file;
struct mm;

/* An open ELF file with its first page (the ELF header and the program
 * header table, which the checks require there) in a kernel buffer. */
struct exec_file {
	struct file *f;
	uint64_t size;
	uint8_t *head;        /* the first head_len bytes, 8-aligned */
	size_t head_len;
};

/*
 * Open path for exec: a regular file the caller may execute (-EACCES),
 * not open for writing (-ETXTBSY; it stays so while x is open), a valid
 * x86-64 ELF executable or shared object. `bad` is the errno of a file
 * that is not one: -ENOEXEC for the program, -ELIBBAD for its
 * interpreter (Linux's). A file shorter than an ELF header is -ENOEXEC
 * for the program and -EIO for an interpreter, as binfmt_elf's reads.
 */
long exec_file_open(const char *path, struct exec_file *x, long bad);
void exec_file_close(struct exec_file *x);

/*
 * The interpreter a program names (PT_INTERP) into buf (max bytes):
 * 1 when it names one, 0 when not, -ENOEXEC for a bad one (shorter than
 * 2 bytes, longer than max, not NUL-terminated), -EIO.
 */
int exec_interp_path(struct exec_file *x, char *buf, size_t max);

#define EXEC_MAX_SEGS 4

/* One image mapped: where it went and what perf's MMAP records say. */
struct elf_image {
	uint64_t bias;        /* load address - p_vaddr (0 for ET_EXEC) */
	uint64_t entry, phdr; /* at the bias */
	unsigned phnum;
	uint64_t end;         /* end of the highest segment, page aligned */
	struct { uint64_t start, len, pgoff; int prot; } seg[EXEC_MAX_SEGS];
	unsigned nseg;        /* executable segments, for MMAP records */
	uint8_t build_id[BUILD_ID_MAX];
	unsigned build_id_size;
};

/* Where a position-independent image of span bytes may go below the
 * mmap top (the interpreter, run by a program): a free range, or 0. */
uint64_t exec_free_base(struct mm *mm, struct exec_file *x);

/*
 * Map x's PT_LOAD segments at bias (0 for ET_EXEC) as private mappings
 * of the file named `name` (in /proc/PID/maps), read a page at a time at
 * first touch; BSS reads as zero. 0, -ENOEXEC (a segment outside user
 * space, no segment), -ENOMEM, -EIO.
 */
int exec_map_image(struct mm *mm, struct exec_file *x, uint64_t bias,
		   const char *name, struct elf_image *out);

#endif

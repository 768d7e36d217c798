/*
 * Mapping an ELF image for exec: the program, and the interpreter it
 * names (PT_INTERP), each segment a private mapping of its file whose
 * pages are read at first touch (mm_map_file), as Linux's binfmt_elf
 * maps them (the page of p_offset; zeros past p_filesz).
 */
#include <string.h>
#include <asm-generic/mman-common.h>
#include <linux/errno.h>
#include <linux/fcntl.h>
#include <elf64.h>
#include "core/kernel.h"
#include "core/fs/vfs.h"
#include "core/mm/mm.h"
#include "core/mm/usermm.h"
#include "core/proc/exec_elf.h"

void exec_file_close(struct exec_file *x)
{
	kfree(x->head);
	if (x->f)
		file_put(x->f);
	x->head = NULL;
	x->f = NULL;
}

long exec_file_open(const char *path, struct exec_file *x, long bad)
{
	*x = (struct exec_file){ 0 };
	long r = vfs_open(path, O_RDONLY, 0, &x->f);
	if (r) {
		x->f = NULL;
		return r;
	}
	r = -EACCES;
	if (!file_is_regular(x->f) || !file_executable(x->f))
		goto fail;
	r = file_deny_write(x->f); /* -ETXTBSY while open for writing */
	if (r)
		goto fail;
	r = bad == -ENOEXEC ? -ENOEXEC : -EIO;
	if (file_size(x->f, &x->size) || x->size < sizeof(Elf64_Ehdr))
		goto fail;
	x->head_len = x->size < PAGE_SIZE ? x->size : PAGE_SIZE;
	r = -ENOMEM;
	if (!(x->head = kmalloc(PAGE_SIZE)))
		goto fail;
	r = -EIO;
	if (kernel_read(x->f, x->head, x->head_len, 0) != (long)x->head_len)
		goto fail;
	const char *why;
	r = bad;
	if (elf64_check_head(x->head, x->head_len, x->size, EM_X86_64, &why))
		goto fail;
	return 0;
fail:
	exec_file_close(x);
	return r;
}

int exec_interp_path(struct exec_file *x, char *buf, size_t max)
{
	for (unsigned i = 0; i < elf64_phnum(x->head); i++) {
		const Elf64_Phdr *ph = elf64_phdr(x->head, i);
		if (ph->p_type != PT_INTERP)
			continue;
		/* Linux's checks: 2..PATH_MAX bytes, the last one a NUL. */
		if (ph->p_filesz < 2 || ph->p_filesz > max ||
		    ph->p_offset > x->size || ph->p_filesz > x->size - ph->p_offset)
			return -ENOEXEC;
		if (kernel_read(x->f, buf, ph->p_filesz, ph->p_offset) != (long)ph->p_filesz)
			return -EIO;
		return buf[ph->p_filesz - 1] == 0 ? 1 : -ENOEXEC;
	}
	return 0;
}

/* Read n bytes of the file from offset off straight into the pages
 * behind va in mm (no intermediate buffer: one copy, from the file). */
static int copy_from_file(struct mm *mm, struct exec_file *x, uint64_t va,
			  uint64_t off, uint64_t n)
{
	while (n) {
		uint64_t chunk = PAGE_SIZE - (va & (PAGE_SIZE - 1));
		if (chunk > n)
			chunk = n;
		uint64_t phys = mm_translate_fill(mm, va);
		if (!phys)
			return -ENOMEM;
		if (kernel_read(x->f, phys_to_virt(phys), chunk, off) != (long)chunk)
			return -EIO;
		va += chunk;
		off += chunk;
		n -= chunk;
	}
	return 0;
}

static int segment_prot(uint32_t flags)
{
	return ((flags & PF_R) ? PROT_READ : 0) | ((flags & PF_W) ? PROT_WRITE : 0) |
	       ((flags & PF_X) ? PROT_EXEC : 0);
}

/* Remember an executable PT_LOAD as a mapping of the file. */
static void note_exec_segment(struct elf_image *out, const Elf64_Phdr *ph, uint64_t va)
{
	if (!(ph->p_flags & PF_X) || out->nseg == EXEC_MAX_SEGS)
		return;
	uint64_t start = ALIGN_DOWN(va, PAGE_SIZE);
	out->seg[out->nseg].start = start;
	out->seg[out->nseg].len = ALIGN_UP(va + ph->p_memsz, PAGE_SIZE) - start;
	out->seg[out->nseg].pgoff = ALIGN_DOWN(ph->p_offset, PAGE_SIZE);
	out->seg[out->nseg].prot = segment_prot(ph->p_flags);
	out->nseg++;
}

/* A segment's file bytes in its first page, which the previous
 * segment's mapping holds already. */
static int copy_head(struct mm *mm, struct exec_file *x, uint64_t va,
		     const Elf64_Phdr *ph)
{
	uint64_t room = ALIGN_UP(va + 1, PAGE_SIZE) - va;
	return copy_from_file(mm, x, va, ph->p_offset,
			      ph->p_filesz < room ? ph->p_filesz : room);
}

/*
 * Map [start, end) of the segment at va. The file's pages are read at
 * first touch, as Linux maps them (from the page of p_offset; zeros past
 * p_filesz). A segment whose address and offset differ within the page
 * cannot map the file's pages: it is copied in now (one without file
 * bytes is anonymous).
 */
static int map_segment(struct mm *mm, struct exec_file *x, uint64_t va,
		       uint64_t start, uint64_t end, const Elf64_Phdr *ph,
		       const char *name)
{
	int prot = segment_prot(ph->p_flags);
	uint64_t off = ALIGN_DOWN(ph->p_offset, PAGE_SIZE) + (start - ALIGN_DOWN(va, PAGE_SIZE));
	if (ph->p_filesz && ((va ^ ph->p_offset) & (PAGE_SIZE - 1)) == 0)
		return mm_map_file(mm, start, end - start, prot, x->f, off,
				   ph->p_offset + ph->p_filesz, name);
	int r = mm_map_anon(mm, start, end - start, prot, 0, name);
	if (!r)
		mm_set_file_off(mm, start, off);
	uint64_t skip = start > va ? start - va : 0; /* in the shared page */
	if (!r && ph->p_filesz > skip)
		r = copy_from_file(mm, x, va + skip, ph->p_offset + skip, ph->p_filesz - skip);
	return r;
}

uint64_t exec_free_base(struct mm *mm, struct exec_file *x)
{
	uint64_t lo, hi;
	if (elf64_load_span(x->head, &lo, &hi))
		return 0;
	lo = ALIGN_DOWN(lo, PAGE_SIZE);
	uint64_t at = mm_find_free(mm, ALIGN_UP(hi, PAGE_SIZE) - lo);
	return at ? at - lo : 0;
}

/* Map one PT_LOAD segment at va (bias applied). */
static int load_segment(struct mm *mm, struct exec_file *x, const Elf64_Phdr *ph,
			uint64_t va, const char *name)
{
	uint64_t start = ALIGN_DOWN(va, PAGE_SIZE);
	uint64_t end = ALIGN_UP(va + ph->p_memsz, PAGE_SIZE);
	if (start < USER_MIN_ADDR || end > USER_STACK_TOP - USER_STACK_SIZE || end < start)
		return -ENOEXEC;
	int r = 0;
	/* A page shared with the previous segment keeps its contents;
	 * this segment's bytes there are copied in now. */
	if (mm_range_mapped(mm, start, PAGE_SIZE)) {
		mm_protect(mm, start, PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC);
		r = copy_head(mm, x, va, ph);
		start += PAGE_SIZE;
	}
	if (!r && start < end)
		r = map_segment(mm, x, va, start, end, ph, name);
	return r;
}

int exec_map_image(struct mm *mm, struct exec_file *x, uint64_t bias,
		   const char *name, struct elf_image *out)
{
	const uint8_t *img = x->head;
	const Elf64_Ehdr *eh = (const void *)img;
	*out = (struct elf_image){ .bias = bias };
	for (unsigned i = 0; i < elf64_phnum(img); i++) {
		const Elf64_Phdr *ph = elf64_phdr(img, i);
		if (ph->p_type == PT_PHDR)
			out->phdr = bias + ph->p_vaddr;
		if (ph->p_type != PT_LOAD || ph->p_memsz == 0)
			continue;
		uint64_t va = bias + ph->p_vaddr;
		int r = load_segment(mm, x, ph, va, name);
		if (r)
			return r;
		note_exec_segment(out, ph, va);
		if (!out->phdr && ph->p_offset == 0)
			out->phdr = va + eh->e_phoff;
		uint64_t end = ALIGN_UP(va + ph->p_memsz, PAGE_SIZE);
		if (end > out->end)
			out->end = end;
	}
	if (!out->end)
		return -ENOEXEC;
	out->entry = bias + eh->e_entry;
	out->phnum = eh->e_phnum;
	/* The build id note, where linkers put it: in the first page. */
	out->build_id_size = elf_build_id(x->head, x->head_len, out->build_id);
	return 0;
}

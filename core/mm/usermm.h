/*
 * User address spaces: a page table per process and the list of mapped
 * areas (vmas) that says what may be mapped where. Pages are allocated on
 * first touch (page faults), except with MAP_POPULATE.
 *
 * Locking: mm->lock (irqsave) protects the vma list and the user half of
 * the page tables. Never copy to or from user memory with it held (a
 * fault would take it again).
 */
#ifndef BAREMON_USERMM_H
#define BAREMON_USERMM_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/limits.h>
#include "core/cpumask.h"
#include "core/list.h"
#include "core/spinlock.h"

#define USER_STACK_TOP   0x00007ffffffde000ULL
#define USER_STACK_SIZE  (8ULL << 20)
#define USER_MMAP_TOP    0x00007ffff7fff000ULL   /* mmap grows down from here */
#define USER_PIE_BASE    0x0000555555554000ULL
#define USER_MIN_ADDR    0x10000ULL              /* vm.mmap_min_addr */

/* vma flags (prot uses PROT_* from <asm-generic/mman-common.h>) */
#define VMA_SHARED   (1u << 0)
#define VMA_STACK    (1u << 1)
#define VMA_HEAP     (1u << 2)
#define VMA_DONTCOPY (1u << 3)   /* fork leaves it out (perf buffers) */
#define VMA_NOSPLIT  (1u << 4)   /* unmapped or protected whole, else EINVAL */
#define VMA_SPECIAL  (1u << 6)   /* the kernel's pages (the vDSO): never
				  * writable (mprotect: EACCES; mm_write,
				  * ptrace's POKE: refused), shown private
				  * in maps, as Linux's */
#define VMA_NOEXEC   (1u << 5)   /* never PROT_EXEC (mprotect: EACCES), as
				  * Linux's maps of noexec-mount files */

struct shared_anon;
struct mm;
struct file;

/* A driver's mapping (perf ring buffers): told when its vma goes away
 * (munmap, exec, exit). close runs with the mm lock held and interrupts
 * off: it must not sleep or touch user memory. */
struct vma_ops {
	void (*close)(struct mm *mm, void *priv);
};

struct vma {
	struct list node;         /* in mm->vmas, sorted by start */
	uint64_t start, end;      /* page aligned, end exclusive */
	int prot;
	unsigned flags;
	struct shared_anon *shm;  /* VMA_SHARED: the pages both sides see */
	uint64_t shm_pgoff;       /* first page of shm this vma maps */
	char name[64];            /* path for file mappings, "" for anon */
	uint64_t file_off;        /* file mappings: the file offset at start
				   * (/proc/<pid>/maps, perf's pgoff) */
	const struct vma_ops *ops;
	void *priv;
	/* A private file mapping (mm_map_file): a page not present reads
	 * from file at file_off + (va - start), the file's bytes ending at
	 * file offset file_end (the rest of the page and the pages after
	 * it read as zero). A counted reference, dropped after mm->lock
	 * (mm->dead). */
	struct file *file;
	uint64_t file_end;
	/* The device and inode maps shows (the file's, or /dev/zero's for
	 * a private mapping of it); 0 for anonymous memory. */
	uint32_t dev;
	uint64_t ino;
};

struct mm {
	int refs;                 /* tasks using it (atomic) */
	uint64_t pml4;            /* physical */
	struct spinlock lock;
	struct list vmas;
	uint64_t brk_start, brk;
	uint64_t arg_start, arg_end, env_start, env_end;
	char exe[256];
	uint64_t rss_pages;
	struct cpumask active_cpus; /* CPUs with this CR3 loaded (atomic bits) */
	uint64_t pinned_vm;       /* pages pinned by perf buffers beyond the
				   * user's allowance (RLIMIT_MEMLOCK) */
	int dumpable;             /* PR_GET_DUMPABLE: 1 after exec, 0 after a
				   * credential change (ptrace/perf access) */
	int perf_rdpmc_maps;      /* mapped buffers of cpu-PMU events: RDPMC
				   * allowed (pmu/x86/rdpmc.c; atomic) */
	struct list dead;         /* removed file vmas: their file references
				   * are dropped once mm->lock is released */
};

struct mm *mm_create(void);
struct mm *mm_clone(struct mm *src);    /* fork: private pages shared copy-on-write */
void mm_get(struct mm *mm);
void mm_put(struct mm *mm);
void mm_activate(struct mm *mm);         /* load CR3 */

/* Map [start, start+len) (page aligned) anonymous; replaces what was there. */
/* Shared pages for a driver to map: npages allocated now, zeroed, one
 * reference for the caller. shm_kaddr: page i in the kernel's map. */
struct shared_anon *shm_create(uint64_t npages);
void shm_release(struct shared_anon *s);
void *shm_kaddr(struct shared_anon *s, uint64_t i);
/* Map all of s at [start, start+len) (len == its size) shared, with
 * VMA_* flags and ops/priv; takes its own reference on s. */
int mm_map_shm(struct mm *mm, uint64_t start, uint64_t len, int prot,
	       unsigned flags, struct shared_anon *s, const struct vma_ops *ops,
	       void *priv, const char *name);
/* Is addr in the kernel's pages (VMA_SPECIAL: the vDSO, [vvar])? */
bool mm_special_at(struct mm *mm, uint64_t addr);
/* Does [start, start+len) touch a VMA_NOSPLIT area? (mremap refuses) */
bool mm_range_nosplit(struct mm *mm, uint64_t start, uint64_t len);
/* Move the whole VMA_NOSPLIT area at [old, old+len) to `to`: 0 or
 * -EINVAL (mremap MAYMOVE|FIXED of a perf buffer). */
int mm_move_whole(struct mm *mm, uint64_t old, uint64_t len, uint64_t to);

/*
 * mremap's two ways for an ordinary mapping; the old range must lie in
 * one vma (else -EFAULT), which keeps its protection, its kind (private
 * or shared) and its backing: a shared one grown past the end of its
 * object faults with SIGBUS there, as on Linux. mm_grow extends it in
 * place when the range ends where the vma ends and nothing follows
 * within new_len (else -ENOMEM). mm_move moves its pages to `to`
 * (unmapping what was there) as a mapping of new_len bytes: -EINVAL when
 * old and new overlap or it is a driver's mapping, -ENOMEM without
 * memory for page tables.
 */
int mm_grow(struct mm *mm, uint64_t old, uint64_t old_len, uint64_t new_len);
int mm_move(struct mm *mm, uint64_t old, uint64_t old_len, uint64_t new_len,
	    uint64_t to);

int mm_map_anon(struct mm *mm, uint64_t start, uint64_t len, int prot,
		unsigned flags, const char *name);
/* Map [start, start+len) private and backed by file f from offset off
 * (page aligned): each page is read from the file at its first touch,
 * not now; file bytes end at file offset end (an ELF segment's BSS reads
 * as zero). Replaces what was there; takes its own reference on f. */
int mm_map_file(struct mm *mm, uint64_t start, uint64_t len, int prot,
		struct file *f, uint64_t off, uint64_t end, const char *name);
/* end for mmap(2) of a file: its bytes end where the file ends at each
 * fault (it may grow or shrink), the rest of that page reads as zero and
 * a page wholly past it is SIGBUS, as on Linux. */
#define MM_FILE_SIZE UINT64_MAX
/* The mapping starting at start holds the file's bytes from offset off
 * (exec's segments); shown in /proc/<pid>/maps. */
void mm_set_file_off(struct mm *mm, uint64_t start, uint64_t off);
/* The mapping starting at start shows device dev, inode ino in maps
 * (a device's mapping that Linux names by the device file). */
void mm_set_file_ident(struct mm *mm, uint64_t start, uint32_t dev, uint64_t ino);

/*
 * What /proc/<pid>/maps and perf's MMAP2 records say of the mapping
 * that holds addr: its name (a file mapping's path, a special
 * name, the vma's own name; "" for anonymous memory), with " (deleted)"
 * after a file's path when the file has lost its last name, as Linux's
 * d_path; device, inode, the file offset at addr, shared or private.
 * -ENOENT when nothing is mapped there.
 */
struct mm_ident {
	char name[PATH_MAX];
	uint32_t maj, min;
	uint64_t ino, pgoff;
	bool shared;
};
int mm_ident_at(struct mm *mm, uint64_t addr, struct mm_ident *id);
/* An unused, page aligned range of len bytes, or 0. */
uint64_t mm_find_free(struct mm *mm, uint64_t len);
int mm_unmap(struct mm *mm, uint64_t start, uint64_t len);
int mm_protect(struct mm *mm, uint64_t start, uint64_t len, int prot);
/* MADV_DONTNEED: private pages of the range read as zero again (as
 * the file's bytes again in a file mapping). */
int mm_discard(struct mm *mm, uint64_t start, uint64_t len);
/* Is any page of the range mapped? */
bool mm_range_overlaps(struct mm *mm, uint64_t start, uint64_t len);
/* Every page of [start, start+len) must be inside a vma. */
bool mm_range_mapped(struct mm *mm, uint64_t start, uint64_t len);
/* Fault in every page of the range now (MAP_POPULATE, exec). */
int mm_populate(struct mm *mm, uint64_t start, uint64_t len);
/* Copy into another address space (exec builds the new one this way). */
int mm_write(struct mm *mm, uint64_t addr, const void *src, uint64_t len);
/* The physical address behind a user address (faulting it in), or 0.
 * write: the vma must be writable, and a page shared copy-on-write is
 * copied first (the caller writes to it). */
uint64_t mm_translate(struct mm *mm, uint64_t addr, bool write);
/* The same for the kernel to fill a page whatever the vma's protection
 * (exec loading a read-only segment): the page is unshared first. */
uint64_t mm_translate_fill(struct mm *mm, uint64_t addr);

/* Page-fault entry: 0 when the fault was resolved by mapping a page,
 * -EFAULT (no mapping: SEGV_MAPERR), -EACCES (SEGV_ACCERR) or -ENXIO
 * (past the end of a shared mapping's object: SIGBUS) otherwise. */
int mm_handle_fault(struct mm *mm, uint64_t addr, uint64_t error);

/* Copy out of another address space (for /proc). */
int mm_read(struct mm *mm, uint64_t addr, void *dst, uint64_t len);
/* /proc/<pid>/maps text for mm; returns the length it needs. */
int mm_format_maps(struct mm *mm, char *buf, size_t max);
/* What /proc/<pid>/status shows of mm: bytes mapped, resident, in
 * private writable mappings other than the stack (Linux's VmData), in
 * the stack. */
struct mm_usage {
	uint64_t vm_bytes, rss_bytes, data_bytes, stack_bytes;
};
void mm_usage(struct mm *mm, struct mm_usage *u);

#endif

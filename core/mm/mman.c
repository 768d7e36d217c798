/* Memory system calls: mmap, munmap, mprotect, mremap, brk, madvise. */
#include <string.h>
#include <asm-generic/mman.h>
#include <linux/errno.h>
#include <linux/mman.h>
#include "core/kernel.h"
#include "mm.h"
#include "pmu/perf.h"
#include "core/proc/signal.h"
#include "core/proc/syscall.h"
#include "core/proc/task.h"
#include "uaccess.h"
#include "usermm.h"
#include "core/fs/vfs.h"

#define PROT_ALL (PROT_READ | PROT_WRITE | PROT_EXEC)

static bool page_aligned(uint64_t x)
{
	return (x & (PAGE_SIZE - 1)) == 0;
}

/* Round len up to pages; 0 when that overflows the user half. */
static uint64_t page_len(uint64_t len)
{
	if (len > USER_TOP)
		return 0;
	return ALIGN_UP(len, PAGE_SIZE);
}

static long map_file(struct mm *mm, uint64_t addr, uint64_t len, int prot,
		     int flags, int fd, uint64_t off)
{
	struct file *f = fget(fd);
	if (!f)
		return -EBADF;
	long r = 0;
	if (f->ops->mmap) {
		r = f->ops->mmap(f, mm, addr, len, prot, flags, off);
		file_put(f);
		return r;
	}
	if (!(f->fmode & FMODE_READ))
		r = -EACCES;
	else if ((flags & MAP_TYPE) != MAP_PRIVATE && (prot & PROT_WRITE))
		r = (f->fmode & FMODE_WRITE) ? -ENODEV : -EACCES; /* no shared writable file maps */
	else if (!file_is_regular(f))
		r = -ENODEV;
	/* Private, or shared and never written (refused above): each page
	 * is read from the file at its first touch, a page past the file's
	 * end then is SIGBUS (usermm.h, MM_FILE_SIZE). */
	if (!r)
		r = mm_map_file(mm, addr, len, prot, f, off, MM_FILE_SIZE, "");
	file_put(f);
	return r;
}

/* MAP_POPULATE: mm_populate in batches (it holds the mm's lock with
 * interrupts off), ending early for a task that is being killed. */
#define POPULATE_BATCH (64 * PAGE_SIZE)
static int populate(struct mm *mm, uint64_t addr, uint64_t len)
{
	for (uint64_t done = 0; done < len; done += POPULATE_BATCH) {
		if (fatal_signal_pending())
			return -EINTR;
		uint64_t n = len - done < POPULATE_BATCH ? len - done : POPULATE_BATCH;
		int r = mm_populate(mm, addr + done, n);
		if (r)
			return r;
	}
	return 0;
}

/* Tell perf of the mapping just made at addr, named as maps names it;
 * pgoff as Linux's vm_pgoff in bytes. */
static void record_mmap(struct mm *mm, uint64_t addr, uint64_t len, uint64_t pgoff,
			int prot)
{
	if (!perf_sideband_possible())
		return;
	struct mm_ident *id = kmalloc(sizeof(*id));
	if (!id || mm_ident_at(mm, addr, id)) {
		kfree(id);
		return;
	}
	struct perf_mmap_file mf = { .name = id->name, .maj = id->maj, .min = id->min,
				     .ino = id->ino, .shared = id->shared };
	perf_record_mmap(addr, len, pgoff, prot, &mf);
	kfree(id);
}

SYSCALL_DEFINE6(mmap, unsigned long, addr, unsigned long, len, int, prot, int, flags,
		int, fd, unsigned long, off)
{
	struct mm *mm = current->mm;
	int type = flags & MAP_TYPE;
	if (!len || !page_aligned(off))
		return -EINVAL;
	if (type != MAP_PRIVATE && type != MAP_SHARED && type != MAP_SHARED_VALIDATE)
		return -EINVAL;
	if (prot & ~PROT_ALL)
		return -EINVAL;
	len = page_len(len);
	if (!len)
		return -ENOMEM;
	bool fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);
	if (fixed && !page_aligned(addr))
		return -EINVAL;
	if (fixed && (addr < USER_MIN_ADDR || !user_range_ok(addr, len)))
		return addr < USER_MIN_ADDR ? -EPERM : -ENOMEM;
	if ((flags & MAP_FIXED_NOREPLACE) && mm_range_overlaps(mm, addr, len))
		return -EEXIST;
	if (!fixed) {
		uint64_t hint = ALIGN_DOWN(addr, PAGE_SIZE);
		if (hint >= USER_MIN_ADDR && user_range_ok(hint, len) &&
		    !mm_range_overlaps(mm, hint, len))
			addr = hint;
		else if (!(addr = mm_find_free(mm, len)))
			return -ENOMEM;
	}
	long r;
	if (flags & MAP_ANONYMOUS)
		/* Linux backs shared anonymous memory with a file of
		 * /dev/zero's that has no name: maps shows it so. */
		r = mm_map_anon(mm, addr, len, prot, type == MAP_PRIVATE ? 0 : VMA_SHARED,
				type == MAP_PRIVATE ? "" : "/dev/zero (deleted)");
	else
		r = map_file(mm, addr, len, prot, flags, fd, off);
	if (!r && (flags & MAP_POPULATE) && populate(mm, addr, len) == -ENOMEM)
		r = -ENOMEM; /* pages past a file's end stay unpopulated */
	if (!r)
		/* pgoff as Linux's vm_pgoff: a private anonymous area's is
		 * its own address, a shared one's 0. */
		record_mmap(mm, addr, len, !(flags & MAP_ANONYMOUS) ? off :
			    type == MAP_PRIVATE ? addr : 0, prot);
	return r ? r : (long)addr;
}

SYSCALL_DEFINE2(munmap, unsigned long, addr, size_t, length)
{
	uint64_t len = page_len(length);
	if (!page_aligned(addr) || !length || !len || !user_range_ok(addr, len))
		return -EINVAL;
	return mm_unmap(current->mm, addr, len);
}

SYSCALL_DEFINE3(mprotect, unsigned long, addr, size_t, length, int, prot)
{
	uint64_t len = page_len(length);
	if (!page_aligned(addr) || (prot & ~(PROT_ALL | PROT_GROWSDOWN | PROT_GROWSUP)))
		return -EINVAL;
	if (!length)
		return 0;
	if (!len || !user_range_ok(addr, len))
		return -ENOMEM;
	return mm_protect(current->mm, addr, len, prot & PROT_ALL);
}

SYSCALL_DEFINE3(madvise, unsigned long, addr, size_t, length, int, advice)
{
	uint64_t len = page_len(length);
	if (!page_aligned(addr))
		return -EINVAL;
	if (!length)
		return 0;
	if (!len || !user_range_ok(addr, len))
		return -EINVAL;
	if (!mm_range_mapped(current->mm, addr, len))
		return -ENOMEM;
	if (advice == MADV_DONTNEED)
		return mm_discard(current->mm, addr, len);
	return 0; /* advice only: accepted */
}

/* mremap of a driver's mapping (a perf buffer): it never grows (Linux's
 * VM_DONTEXPAND: EFAULT) nor shrinks (no split: EINVAL); it moves whole. */
static long remap_driver(struct mm *mm, uint64_t old, uint64_t old_len,
			 uint64_t new_len, int flags, uint64_t target)
{
	if (new_len > old_len)
		return -EFAULT;
	if (new_len < old_len)
		return -EINVAL;
	if (!(flags & MREMAP_FIXED))
		return (long)old;
	int r = page_aligned(target) && user_range_ok(target, old_len)
			? mm_move_whole(mm, old, old_len, target) : -EINVAL;
	return r ? r : (long)target;
}

/* MREMAP_FIXED: the mapping moves to target, resized to new_len. */
static long remap_to(struct mm *mm, uint64_t old, uint64_t old_len,
		     uint64_t new_len, uint64_t target)
{
	if (!page_aligned(target) || !user_range_ok(target, new_len))
		return -EINVAL;
	int r = mm_move(mm, old, old_len, new_len, target);
	return r ? r : (long)target;
}

/*
 * Linux's order: flags, alignment, lengths; a driver's mapping; FIXED;
 * shrinking in place; growing in place; moving (MAYMOVE). The mapping
 * keeps its protection and kind however it changes (usermm.h).
 */
SYSCALL_DEFINE5(mremap, unsigned long, old, size_t, old_size, size_t, new_size,
		int, flags, unsigned long, target)
{
	uint64_t old_len = page_len(old_size), new_len = page_len(new_size);
	struct mm *mm = current->mm;
	if (!page_aligned(old) || (flags & ~(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP)))
		return -EINVAL;
	if ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE))
		return -EINVAL;
	if (!new_len || (flags & MREMAP_DONTUNMAP))
		return -EINVAL;
	if (!old_len || !mm_range_mapped(mm, old, old_len))
		return -EFAULT;
	if (mm_range_nosplit(mm, old, old_len))
		return remap_driver(mm, old, old_len, new_len, flags, target);
	if (flags & MREMAP_FIXED)
		return remap_to(mm, old, old_len, new_len, target);
	if (new_len <= old_len) {
		if (new_len < old_len)
			mm_unmap(mm, old + new_len, old_len - new_len);
		return (long)old;
	}
	int r = user_range_ok(old, new_len) ? mm_grow(mm, old, old_len, new_len) : -ENOMEM;
	if (r != -ENOMEM)
		return r ? r : (long)old;
	if (!(flags & MREMAP_MAYMOVE))
		return -ENOMEM;
	uint64_t to = mm_find_free(mm, new_len);
	if (!to)
		return -ENOMEM;
	r = mm_move(mm, old, old_len, new_len, to);
	return r ? r : (long)to;
}

SYSCALL_DEFINE1(brk, unsigned long, want)
{
	struct mm *mm = current->mm;
	if (want < mm->brk_start || want > mm->brk_start + (1ULL << 32))
		return (long)mm->brk;
	uint64_t old_end = ALIGN_UP(mm->brk, PAGE_SIZE);
	uint64_t new_end = ALIGN_UP(want, PAGE_SIZE);
	if (new_end > old_end) {
		if (mm_range_overlaps(mm, old_end, new_end - old_end))
			return (long)mm->brk;
		if (mm_map_anon(mm, old_end, new_end - old_end, PROT_READ | PROT_WRITE,
				VMA_HEAP, ""))
			return (long)mm->brk;
	} else if (new_end < old_end) {
		mm_unmap(mm, new_end, old_end - new_end);
	}
	mm->brk = want;
	return (long)want;
}

SYSCALL_DEFINE3(msync, unsigned long, start, size_t, len, int, flags)
{
	return page_aligned(start) ? 0 : -EINVAL;
}

SYSCALL_DEFINE2(mlock, unsigned long, start, size_t, len)
{
	return 0; /* nothing is ever paged out */
}

SYSCALL_DEFINE2(munlock, unsigned long, start, size_t, len)
{
	return 0;
}

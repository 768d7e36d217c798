/*
 * Access to user memory from the kernel. Every pointer a user program
 * passes is checked here: an address outside the user half, or one the
 * program has not mapped, yields -EFAULT, never a kernel fault. Pages of
 * a valid mapping that are not present yet are faulted in on the way.
 * With SMAP on, these are the only places the kernel touches user pages.
 */
#ifndef BAREMON_UACCESS_H
#define BAREMON_UACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/errno.h>
#include "core/arch/percpu.h"

/* Top of the user half (exclusive): canonical lower half, last page kept
 * unmapped as Linux does. */
#define USER_TOP 0x00007ffffffff000ULL

static inline bool user_range_ok(uint64_t addr, size_t n)
{
	return addr < USER_TOP && n <= USER_TOP - addr;
}

/* 0 on success, -EFAULT if any byte is inaccessible. */
int copy_from_user(void *dst, const void *usrc, size_t n);
int copy_to_user(void *udst, const void *src, size_t n);
int clear_user(void *udst, size_t n);
/* Copy a NUL-terminated string of at most max-1 bytes. Returns its length,
 * -EFAULT, or -ENAMETOOLONG when no NUL comes within max bytes. */
long strncpy_from_user(char *dst, const char *usrc, size_t max);

/* Convenience for single values. */
#define get_user(var, uptr) copy_from_user(&(var), (uptr), sizeof(var))
#define put_user(val, uptr)                                   \
	({                                                    \
		__typeof__(*(uptr)) __v = (val);              \
		copy_to_user((uptr), &__v, sizeof(__v));      \
	})

/* The resume address for a fault at rip inside a user copy, else 0
 * (exceptions.c). */
uint64_t uaccess_fixup(uint64_t rip);
/* The fault-tolerant copies themselves (uaccess_copy.asm): each returns
 * what it could not do (bytes left, or -1 for strncpy). */
uint64_t uaccess_copy(void *dst, const void *src, uint64_t n);
uint64_t uaccess_clear(void *dst, uint64_t n);
int64_t uaccess_strncpy(char *dst, const char *src, int64_t max);

/* Set by the boot CPU before others start when CR4.SMAP is on; every
 * CPU then sets it too and user copies bracket with STAC/CLAC. */
extern bool smap_enabled;

/* Whether a kernel fault at rip on a user address may be resolved
 * (the page faulted in): rip is a user copy's (.ex_table) and page
 * faults are not disabled on this CPU. A store in .ex_table_nofault
 * never is: it resumes at its fixup at once (exceptions.c). */
bool uaccess_may_resolve(uint64_t rip);

/*
 * A few words to user memory, inline and with page faults disabled: a
 * page that is not present or not writable fails the copy (-EFAULT)
 * instead of being faulted in, so the copy never sleeps; the caller may
 * then take a path that can fault. For the lean and quick system-call
 * handlers (proc/syscall.h), which run with interrupts off and copy one
 * to three words. Each store has its .ex_table_nofault entry, which
 * resumes at `fault` with no attempt to resolve the fault (so no
 * percpu.pagefault_disabled to count); the words before it were
 * written, as uaccess_copy leaves them.
 */
static inline int copy_words_to_user_nofault(uint64_t *udst, const uint64_t *src,
					     size_t words)
{
	if (words > 64 || (uint64_t)udst > USER_TOP - words * 8) /* user_range_ok */
		return -EFAULT;
	bool smap = smap_enabled;
	int r = 0;
	if (smap)
		__asm__ volatile("stac" ::: "memory");
	for (size_t i = 0; i < words; i++)
		__asm__ goto("1: movq %0, %1\n"
			     ".pushsection .ex_table_nofault, \"a\"\n"
			     ".balign 8\n"
			     ".quad 1b, %l[fault]\n"
			     ".popsection"
			     : : "r"(src[i]), "m"(udst[i]) : "memory" : fault);
	goto out;
fault:
	r = -EFAULT;
out:
	if (smap)
		__asm__ volatile("clac" ::: "memory");
	return r;
}

#endif

/*
 * mman.c: memory mappings and the program break.
 *
 * brk(2) itself never fails: it returns the new break, or the old one
 * when it cannot move (and a kernel without brk returns -ENOSYS). brk()
 * and sbrk() turn that into the POSIX-era results. The current break is
 * asked of the kernel each time rather than cached, so the two stay
 * right whoever else moves the break.
 */
#include <errno.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sys.h"

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	long r = sys6(__NR_mmap, L(addr), L(len), prot, flags, fd, off);

	return (void *)__syscall_ret(r);   /* -1 is MAP_FAILED */
}

int munmap(void *addr, size_t len)
{
	return __syscall_ret(sys2(__NR_munmap, addr, len));
}

int mprotect(void *addr, size_t len, int prot)
{
	return __syscall_ret(sys3(__NR_mprotect, addr, len, prot));
}

void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *new_addr = NULL;
	va_list ap;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		new_addr = va_arg(ap, void *);
		va_end(ap);
	}
	return (void *)__syscall_ret(sys5(__NR_mremap, old, old_len, new_len,
	                                  flags, new_addr));
}

/* The current break, or 0 if the kernel has no brk. */
static unsigned long current_break(void)
{
	long r = sys1(__NR_brk, 0);

	return r < 0 ? 0 : (unsigned long)r;
}

int brk(void *end)
{
	long r = sys1(__NR_brk, end);

	if (r < 0 || (unsigned long)r != (unsigned long)end) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void *sbrk(intptr_t increment)
{
	unsigned long old = current_break();

	if (old == 0) {
		errno = ENOMEM;
		return (void *)-1;
	}
	if (increment != 0 && brk((void *)(old + increment)) < 0)
		return (void *)-1;
	return (void *)old;
}

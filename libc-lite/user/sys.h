/*
 * sys.h: how libc-lite enters the kernel (private to libc-lite/user/).
 *
 * x86-64 Linux convention: number in rax, arguments in rdi, rsi, rdx,
 * r10, r8, r9; the `syscall` instruction clobbers rcx (return rip) and
 * r11 (rflags); the result in rax is a value, or -errno in -4095..-1.
 *
 * sysN() return that raw result. __syscall_ret() turns it into the C
 * convention: a negative errno is stored in errno and becomes -1.
 */
#ifndef LIBC_LITE_USER_SYS_H
#define LIBC_LITE_USER_SYS_H

#include <asm/unistd.h>

static inline long sys6(long nr, long a1, long a2, long a3, long a4, long a5,
                        long a6)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;

	__asm__ volatile("syscall"
	                 : "=a"(ret)
	                 : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10),
	                   "r"(r8), "r"(r9)
	                 : "rcx", "r11", "memory");
	return ret;
}

#define L(x) ((long)(x))
#define sys0(n)                 sys6(n, 0, 0, 0, 0, 0, 0)
#define sys1(n, a)              sys6(n, L(a), 0, 0, 0, 0, 0)
#define sys2(n, a, b)           sys6(n, L(a), L(b), 0, 0, 0, 0)
#define sys3(n, a, b, c)        sys6(n, L(a), L(b), L(c), 0, 0, 0)
#define sys4(n, a, b, c, d)     sys6(n, L(a), L(b), L(c), L(d), 0, 0)
#define sys5(n, a, b, c, d, e)  sys6(n, L(a), L(b), L(c), L(d), L(e), 0)

/* Raw result -> C result: -errno in -4095..-1 sets errno and gives -1. */
long __syscall_ret(long raw);

/* The auxiliary vector, set by __libc_start (start.c). */
extern unsigned long *__auxv;

/* Flush every stdio stream (stdio.c); exit() calls it. */
void __stdio_flush_all(void);

#endif

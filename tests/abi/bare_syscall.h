/*
 * bare_syscall.h: a SYSCALL instruction issued directly (no libc), every
 * argument register (rdi, rsi, rdx, r10, r8, r9) and two callee-saved
 * ones (rbx, r12) holding known values, and what the kernel left in
 * each. The x86-64 ABI: the result in RAX, the return address in RCX,
 * RFLAGS in R11, every other register as it was. tests/abi/misc.c and
 * tests/perf/leanpath.c and leanopen.c hold baremon's lean and full
 * system-call paths to it (and the host Linux, the reference).
 */
#ifndef BAREMON_TESTS_BARE_SYSCALL_H
#define BAREMON_TESTS_BARE_SYSCALL_H

#include <stdint.h>

#define BARE_RBX 0xb0b0b0b0b0b0b0b0ULL
#define BARE_R12 0x1212121212121212ULL

/* The registers after the SYSCALL, and the address it returns to. */
struct bare_regs {
	uint64_t rax, rcx, r11, rdi, rsi, rdx, r10, r8, r9, rbx, r12, after;
};

/* SYSCALL nr with a[0..5] in rdi, rsi, rdx, r10, r8, r9. */
static inline struct bare_regs bare_syscall6(long nr, const uint64_t a[6])
{
	register uint64_t r10 __asm__("r10") = a[3];
	register uint64_t r8 __asm__("r8") = a[4];
	register uint64_t r9 __asm__("r9") = a[5];
	register uint64_t r11 __asm__("r11");
	register uint64_t r12 __asm__("r12") = BARE_R12;
	uint64_t rax = (uint64_t)nr, rdi = a[0], rsi = a[1], rdx = a[2], rbx = BARE_RBX, rcx, after;

	__asm__ volatile("syscall\n1:\n\t"
			 "lea 1b(%%rip), %[after]"
			 : "+a"(rax), "+D"(rdi), "+S"(rsi), "+d"(rdx), "+b"(rbx),
			   "+r"(r8), "+r"(r9), "+r"(r10), "+r"(r12), "=c"(rcx),
			   "=r"(r11), [after] "=r"(after)
			 : : "memory", "cc");
	/* Out of the register variables before any call clobbers them. */
	struct bare_regs r = { rax, rcx, r11, rdi, rsi, rdx, r10, r8, r9, rbx, r12, after };
	return r;
}

/* RCX the return address, R11 RFLAGS (IF and bit 1 set, TF clear). */
static inline int bare_returned_right(const struct bare_regs *r)
{
	return r->rcx == r->after && (r->r11 & 0x302) == 0x202;
}

/* Every argument register as a[] set it, rbx and r12 as set. */
static inline int bare_kept(const struct bare_regs *r, const uint64_t a[6])
{
	return r->rdi == a[0] && r->rsi == a[1] && r->rdx == a[2] && r->r10 == a[3] &&
	       r->r8 == a[4] && r->r9 == a[5] && r->rbx == BARE_RBX && r->r12 == BARE_R12;
}

#endif

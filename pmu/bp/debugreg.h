/*
 * The x86 debug registers: DR0-DR3 hold linear addresses, DR7 enables
 * and configures them, DR6 says which condition raised #DB. Access is
 * per CPU; only the breakpoint PMU (pmu/bp/breakpoint.c) writes them.
 */
#ifndef BAREMON_PMU_DEBUGREG_H
#define BAREMON_PMU_DEBUGREG_H

#include <stdint.h>

#define DR_NUM 4                   /* DR0-DR3 */

/* DR6: the conditions met (the CPU sets them, software clears them). */
#define DR6_TRAP_BITS 0xfULL       /* B0-B3: DRn's breakpoint matched */
#define DR6_BD (1ULL << 13)        /* debug register access detected */
#define DR6_BS (1ULL << 14)        /* single step (TF) */
#define DR6_BT (1ULL << 15)        /* task switch */
#define DR6_RESET 0xffff0ff0ULL    /* nothing pending (reserved bits set) */

/* DR7: a global-enable bit per register, the GE bit, and per register a
 * 4-bit control field at 16 + 4n: R/W (bits 0-1) and LEN (bits 2-3). */
#define DR7_GLOBAL_ENABLE(n) (2ULL << (2 * (n)))
#define DR7_GE (1ULL << 9)
#define DR7_CONTROL_SHIFT(n) (16 + 4 * (n))
#define DR7_RW_EXEC  0x0           /* instruction fetch */
#define DR7_RW_WRITE 0x1           /* data writes */
#define DR7_RW_RDWR  0x3           /* data reads and writes */
#define DR7_LEN_1 0x0
#define DR7_LEN_2 0x1
#define DR7_LEN_8 0x2
#define DR7_LEN_4 0x3

/* RFLAGS.RF: the instruction at RIP may execute once without an
 * instruction breakpoint firing (set by a #DB handler that resumes). */
#define RFLAGS_RF (1ULL << 16)

#define DEBUGREG_ACCESSORS(n)                                              \
	static inline uint64_t read_dr##n(void)                            \
	{                                                                  \
		uint64_t v;                                                \
		__asm__ volatile("mov %%dr" #n ", %0" : "=r"(v));          \
		return v;                                                  \
	}                                                                  \
	static inline void write_dr##n(uint64_t v)                         \
	{                                                                  \
		__asm__ volatile("mov %0, %%dr" #n : : "r"(v) : "memory"); \
	}

DEBUGREG_ACCESSORS(0)
DEBUGREG_ACCESSORS(1)
DEBUGREG_ACCESSORS(2)
DEBUGREG_ACCESSORS(3)
DEBUGREG_ACCESSORS(6)
DEBUGREG_ACCESSORS(7)

/* Load DRn (n < DR_NUM) with a linear address. */
static inline void write_dr_addr(int n, uint64_t addr)
{
	switch (n) {
	case 0: write_dr0(addr); break;
	case 1: write_dr1(addr); break;
	case 2: write_dr2(addr); break;
	default: write_dr3(addr); break;
	}
}

#endif

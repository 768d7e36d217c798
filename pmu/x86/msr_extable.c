/*
 * WRMSR and RDPMC that survive the #GP they may raise: each instruction
 * has an .ex_table entry (the same table as the uaccess routines), and
 * the kernel's #GP handler resumes there (core/arch/exceptions.c), so
 * the error stays -EIO. On hardware that is the CPU's own #GP; on the
 * model a write is checked by the model (vpmu_wrmsr_safe, which knows
 * the counters' widths) and an emulated RDPMC raises its #GP through
 * the same handler (pmu/vpmu/rdpmc_ud.c).
 */
#include <linux/errno.h>
#include "pmu/vpmu/vpmu.h"
#include "msr.h"

static int hw_wrmsr_safe(uint32_t msr, uint64_t value)
{
	int err;
	__asm__ volatile("1: wrmsr\n\t"
			 "xorl %k0, %k0\n"
			 "2:\n\t"
			 ".pushsection .ex_table, \"a\"\n\t"
			 ".quad 1b, 2b\n\t"
			 ".popsection"
			 : "=r"(err)
			 : "0"(-EIO), "c"(msr), "a"((uint32_t)value), "d"((uint32_t)(value >> 32))
			 : "memory");
	return err;
}

int pmu_wrmsr_safe(uint32_t msr, uint64_t value)
{
	return pmu_model_in_use() ? vpmu_wrmsr_safe(msr, value) : hw_wrmsr_safe(msr, value);
}

int pmu_rdpmc_safe(uint32_t ecx, uint64_t *value)
{
	int err;
	uint32_t lo = 0, hi = 0;
	__asm__ volatile("1: rdpmc\n\t"
			 "xorl %k0, %k0\n"
			 "2:\n\t"
			 ".pushsection .ex_table, \"a\"\n\t"
			 ".quad 1b, 2b\n\t"
			 ".popsection"
			 : "=r"(err), "+a"(lo), "+d"(hi)
			 : "0"(-EIO), "c"(ecx)
			 : "memory");
	*value = (uint64_t)hi << 32 | lo;
	return err;
}

/*
 * The instruction clock. Under QEMU's `-icount shift=N,sleep=off` the
 * guest's TSC advances exactly 2^N per instruction executed (and jumps
 * while every CPU sleeps in hlt), so the instructions retired between two
 * TSC readings taken while the CPU ran are the difference of the readings
 * shifted right by N. run-qemu.sh --icount N says so on the kernel command
 * line (`icount=N`); the model believes it only after checking it at
 * boot: loops of n and 2n instructions between RDTSCs must differ by
 * exactly n << N, three times over. Written once at boot, then only read.
 *
 * What is user mode, to the instruction: the entry and exit stubs stamp
 * the TSC at the boundary (STAMP_TSC, core/arch/frame.inc) and the model
 * takes their own instructions off the user's share (vpmu_icount_stub).
 */
#include "core/arch/percpu.h"
#include "core/cmdline.h"
#include "core/kernel.h"
#include "core/proc/syscall.h"
#include "vpmu.h"

static bool icount_on;
static unsigned icount_shift;

/* TSC ticks across `iters` iterations of a two-instruction loop, plus
 * the fixed few instructions around it. Interrupts are off. */
static uint64_t timed_loop(uint32_t iters)
{
	uint32_t lo0, hi0, lo1, hi1;
	__asm__ volatile("rdtsc\n\t"
			 "mov %%eax, %0\n\t"
			 "mov %%edx, %1\n\t"
			 "1: dec %4\n\t"
			 "jnz 1b\n\t"
			 "rdtsc"
			 : "=&S"(lo0), "=&D"(hi0), "=a"(lo1), "=d"(hi1), "+c"(iters)
			 :
			 : "memory");
	return ((uint64_t)hi1 << 32 | lo1) - ((uint64_t)hi0 << 32 | lo0);
}

static bool clock_counts_instructions(unsigned shift)
{
	const uint32_t n = 5000;
	for (int trial = 0; trial < 3; trial++) {
		uint64_t f = irq_save();
		uint64_t once = timed_loop(n), twice = timed_loop(2 * n);
		irq_restore(f);
		if (twice - once != (uint64_t)(2 * n) << shift)
			return false;
	}
	return true;
}

void vpmu_icount_init(void)
{
	const char *v = cmdline_get("icount");
	if (!v)
		return;
	uint64_t shift = cmdline_get_u64("icount", 64);
	if (shift > 10) {
		klog("pmu: vpmu: icount=%s is not a shift of 0-10; no instruction clock", v);
		return;
	}
	if (!clock_counts_instructions((unsigned)shift)) {
		klog("pmu: vpmu: icount=%s given, but the TSC does not count instructions "
		     "(2^%u per instruction); no instruction clock", v, (unsigned)shift);
		return;
	}
	icount_shift = (unsigned)shift;
	icount_on = true;
	klog("pmu: vpmu: instruction clock: TSC = 2^%u x instructions (-icount shift=%u)",
	     icount_shift, icount_shift);
}

bool vpmu_icount_on(void)
{
	return icount_on;
}

unsigned vpmu_icount_shift(void)
{
	return icount_shift;
}

/* Instructions retired between TSC readings `from` and `to` (from <=
 * to) while the CPU ran: floors telescope, so adding these over adjacent
 * intervals never loses or doubles an instruction. */
uint64_t vpmu_icount_between(uint64_t from, uint64_t to)
{
	return (to >> icount_shift) - (from >> icount_shift);
}

/* TSC ticks from `from` until `insns` more instructions have retired. */
uint64_t vpmu_icount_ticks(uint64_t from, uint64_t insns)
{
	uint64_t target = ((from >> icount_shift) + insns) << icount_shift;
	return target - from;
}

/*
 * Kernel instructions between the exit stub's TSC stamp and the entry
 * stub's, around a user stint, counted from the assembly: from the exit
 * stamp's RDTSC through IRETQ (trap_return: rdtsc, 2 mov, 15 pop,
 * swapgs, add, iretq = 21), and before the entry stamp's RDTSC - for an
 * interrupt or exception (isr.asm: push 0 unless the CPU pushed an error
 * code, push vector, jmp, test, jz, swapgs, 15 push, cmp, je = 23 or
 * 22), for SYSCALL (syscall_entry.asm: swapgs, 2 mov, 2 push, mov,
 * cmp, jne - the lean path's first check, which sends every call to the
 * full path while the model counts - 2 pop, 7 push, 15 push, cmp, je =
 * 34; SYSCALL itself is the user's, as for single-stepping).
 * tests/perf/exact.c fails if these drift from the stubs.
 */
#define EXIT_STUB 21
#define ENTRY_STUB_IRQ 23
#define ENTRY_STUB_SYSCALL 34

static bool cpu_pushes_error(uint64_t vector)
{
	return vector == 8 || (vector >= 10 && vector <= 14) || vector == 17 ||
	       vector == 21 || vector == 29 || vector == 30;
}

uint64_t vpmu_icount_stub(uint64_t vector)
{
	if (vector == SYSCALL_VECTOR)
		return EXIT_STUB + ENTRY_STUB_SYSCALL;
	return EXIT_STUB + ENTRY_STUB_IRQ - (cpu_pushes_error(vector) ? 1 : 0);
}

uint64_t vpmu_icount_exit_stub(void)
{
	return EXIT_STUB;
}

/* Ask this CPU's stubs for boundary stamps (the model's exit hook). */
void vpmu_icount_stamp_here(void)
{
	if (icount_on)
		this_cpu()->stamp_user = 1;
}

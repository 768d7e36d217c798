/*
 * x87/SSE state of user tasks. The kernel itself never touches these
 * registers (-mgeneral-regs-only), so the state is saved and restored only
 * when switching between tasks, with FXSAVE/FXRSTOR (512 bytes).
 */
#include <string.h>
#include "core/kernel.h"
#include "core/proc/tasks.h"
#include "x86.h"
#include "gdt.h"
#include "msr-index.h"
#include "percpu.h"
#include "core/proc/task.h"

#define CR0_MP (1ULL << 1)
#define CR0_EM (1ULL << 2)
#define CR0_TS (1ULL << 3)
#define CR4_OSXMMEXCPT (1ULL << 10)

/* The state a new program starts with: FNINIT and MXCSR 0x1f80. */
static uint8_t initial_state[FPU_AREA_SIZE] __attribute__((aligned(16)));
static bool have_initial;

void fpu_init_cpu(void)
{
	write_cr0((read_cr0() & ~(CR0_EM | CR0_TS)) | CR0_MP);
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
	__asm__ volatile("fninit");
	if (!have_initial) {
		uint32_t mxcsr = 0x1f80;
		__asm__ volatile("ldmxcsr %0" : : "m"(mxcsr));
		__asm__ volatile("fxsave64 %0" : "=m"(initial_state));
		have_initial = true;
	}
}

void fpu_init_state(struct task *t)
{
	if (t->fpu)
		memcpy(t->fpu, initial_state, FPU_AREA_SIZE);
}

void fpu_save(struct task *t)
{
	__asm__ volatile("fxsave64 (%0)" : : "r"(t->fpu) : "memory");
}

void fpu_restore(struct task *t)
{
	__asm__ volatile("fxrstor64 (%0)" : : "r"(t->fpu) : "memory");
}

#include "core/mm/mm.h"
#include "core/mm/usermm.h"


/* Switch the per-task hardware state that the kernel does not use itself:
 * FPU/SSE registers, FS/GS bases, the address space, TSS.rsp0. */
void task_switch_user_state(struct task *prev, struct task *next)
{
	if (prev->mm)
		fpu_save(prev);
	mm_activate(next->mm);
	if (next->mm) {
		wrmsr(MSR_FS_BASE, next->fs_base);
		wrmsr(MSR_KERNEL_GS_BASE, next->gs_base); /* the user's GS */
		fpu_restore(next);
	}
	tss_set_rsp0(this_cpu_id(), next->kstack + KSTACK_SIZE);
}

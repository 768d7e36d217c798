/*
 * The TSC a stepped task reads: the model's own time left out. A task
 * whose user code the model has stepped (or interrupted with its own
 * traps) has lost TSC time to the model - ~2,000 kernel instructions a
 * stepped instruction - that a program timing itself with RDTSC (the
 * bench harness, nanoBench-style) would take for its own. vpmu.c adds
 * every such span to the task's vpmu_tsc_hidden; from then on the task
 * runs with CR4.TSD, so its RDTSC and RDTSCP #GP, and this handler
 * finishes them with the TSC less what the model hid: the time the
 * task would have seen without the model. Per task, so it never goes
 * back for the task (time is only hidden while the task does not look)
 * but two tasks' readings do not compare.
 *
 * The emulated instruction counts as one retired user instruction, as
 * an emulated RDPMC does. In kernel mode CR4.TSD does nothing.
 *
 * Locking: CR4 is this CPU's; vpmu_tsc_hidden is written by the task's
 * own CPU with interrupts off (the model's entry points) and read here
 * by the task itself.
 */
#include "core/arch/trap.h"
#include "core/arch/x86.h"
#include "core/mm/uaccess.h"
#include "core/proc/task.h"
#include "pmu/vpmu/vpmu.h"

#define CR4_TSD (1ULL << 2)
#define VEC_GP 13

static trap_handler next_gp_handler;

void vpmu_tsc_trap_set(bool on)
{
	uint64_t cr4 = read_cr4();
	if (on != !!(cr4 & CR4_TSD))
		write_cr4(on ? cr4 | CR4_TSD : cr4 & ~CR4_TSD);
}

void vpmu_tsc_sched_in(const struct task *next)
{
	vpmu_tsc_trap_set(next && next->vpmu_tsc_hidden);
}

/* 2 for RDTSC (0F 31), 3 for RDTSCP (0F 01 F9), else 0: the #GP at f
 * is (or is not) CR4.TSD's. */
unsigned vpmu_tsc_insn(const struct trap_frame *f)
{
	uint8_t b[3];
	if ((f->cs & 3) != 3 || f->vector != VEC_GP || !(read_cr4() & CR4_TSD) ||
	    copy_from_user(b, (const void *)f->rip, 2))
		return 0;
	if (b[0] == 0x0f && b[1] == 0x31)
		return 2;
	if (b[0] != 0x0f || b[1] != 0x01 || copy_from_user(b, (const void *)f->rip, 3))
		return 0;
	return b[2] == 0xf9 ? 3 : 0;
}

static void gp_trap(struct trap_frame *f)
{
	unsigned len = vpmu_tsc_insn(f);
	if (!len) {
		next_gp_handler(f);
		return;
	}
	uint64_t v = vpmu_tsc_user_now();

	f->rax = v & 0xffffffffULL;
	f->rdx = v >> 32;
	if (len == 3) { /* RDTSCP: ECX is IA32_TSC_AUX, as the CPU gives it */
		uint32_t lo, hi, aux;
		__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
		f->rcx = aux;
	}
	f->rip += len;
	vpmu_emulated_user_insn();
}

void vpmu_tsc_init(void)
{
	next_gp_handler = trap_get_handler(VEC_GP);
	trap_set_handler(VEC_GP, gp_trap);
}

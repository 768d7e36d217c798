/*
 * Counting user instructions one at a time: when a model counter counts
 * instructions (without the instruction clock) or branches in user
 * mode, the return to user sets EFLAGS.TF in the frame it leaves
 * through, so the CPU traps with #DB after each user instruction. The
 * entry hook (vpmu_user_entry, which sees every kernel entry from user
 * mode first) takes the flag off the frame again, so no kernel code,
 * signal frame or forked child ever sees it, and reports what retired:
 * the instruction at the remembered IP when the entry is that #DB (DR6.BS
 * set), or the SYSCALL that made the entry; nothing for an interrupt or a
 * fault (the faulting instruction retires when it runs again), nor for
 * a #DB that ends one iteration of a REP string instruction (the IP has
 * not moved: it retires once, after its last iteration, as on hardware). The #DB
 * itself is then swallowed by the handler below.
 *
 * A trap flag the frame already carries when the model arms its own
 * (a tracer's PTRACE_SINGLESTEP, or the program's) is not the model's:
 * the step is counted, but the flag stays and the #DB goes on to the
 * exception handler, which makes it the SIGTRAP that tracer waits for.
 *
 * The kernel is never stepped: kernel-mode instructions need the
 * instruction clock (vpmu_event_check refuses them otherwise).
 *
 * Locking: steps[c] belongs to CPU c and is touched there with
 * interrupts off (the entry and exit hooks, the #DB handler).
 */
#include "core/arch/trap.h"
#include "pmu/bp/debugreg.h"
#include "core/kernel.h"
#include "core/mm/uaccess.h"
#include "core/proc/syscall.h"
#include "pmu/vpmu/lbr_model.h"
#include "vpmu.h"
#include "core/arch/percpu_table.h"

#define RFLAGS_TF (1ULL << 8)
#define PAGE_BYTES 4096ULL

struct step_cpu {
	uint64_t ip;       /* the user instruction the CPU is about to run */
	bool swallow_db;   /* the #DB being handled is the model's step */
	bool user_tf;      /* the frame had the trap flag before the model */
};

PERCPU_TABLE(struct step_cpu, steps);
volatile uint8_t vpmu_stepping[MAX_CPUS];
static trap_handler next_debug_handler;

void vpmu_step_arm(struct trap_frame *f)
{
	unsigned cpu = this_cpu_id();
	steps[cpu].ip = f->rip;
	steps[cpu].user_tf = (f->rflags & RFLAGS_TF) != 0;
	f->rflags |= RFLAGS_TF;
	vpmu_stepping[cpu] = 1;
}

/* The instruction bytes at a user address the CPU has just executed:
 * as many as can be read, up to 15, never past a page that cannot be. */
unsigned vpmu_step_fetch(uint64_t ip, uint8_t *bytes)
{
	if (copy_from_user(bytes, (const void *)ip, VPMU_MAX_INSN) == 0)
		return VPMU_MAX_INSN;
	unsigned in_page = (unsigned)(PAGE_BYTES - (ip & (PAGE_BYTES - 1)));
	if (in_page < VPMU_MAX_INSN && copy_from_user(bytes, (const void *)ip, in_page) == 0)
		return in_page;
	return 0;
}

bool vpmu_step_own_tf(void)
{
	unsigned cpu = this_cpu_id();
	return vpmu_stepping[cpu] && !steps[cpu].user_tf;
}

void vpmu_step_moved(uint64_t ip)
{
	steps[this_cpu_id()].ip = ip;
}

/* Is this entry from user mode the model's own step trap (a #DB with
 * DR6.BS that no tracer asked for)? Then the kernel work until the
 * return is the model's and counts nowhere. Before vpmu_step_finish. */
bool vpmu_step_trap_is_own(const struct trap_frame *f)
{
	unsigned cpu = this_cpu_id();
	return vpmu_stepping[cpu] && f->vector == VEC_DEBUG && !steps[cpu].user_tf &&
	       (read_dr6() & DR6_BS);
}

/* Will vpmu_step_finish say a user instruction retired? */
bool vpmu_step_retired(const struct trap_frame *f)
{
	if (!vpmu_stepping[this_cpu_id()])
		return false;
	return f->vector == SYSCALL_VECTOR || (f->vector == VEC_DEBUG && (read_dr6() & DR6_BS));
}

int vpmu_step_finish(struct trap_frame *f, unsigned *branch)
{
	unsigned cpu = this_cpu_id();
	struct step_cpu *s = &steps[cpu];
	vpmu_stepping[cpu] = 0;
	if (!s->user_tf)
		f->rflags &= ~RFLAGS_TF;
	*branch = 0;
	if (f->vector == SYSCALL_VECTOR)
		return 1;
	if (f->vector != VEC_DEBUG || !(read_dr6() & DR6_BS))
		return 0;
	s->swallow_db = !s->user_tf; /* someone else's step: their SIGTRAP */
	uint8_t bytes[VPMU_MAX_INSN];
	unsigned len = vpmu_step_fetch(s->ip, bytes);
	if (f->rip == s->ip && vpmu_decode_rep_string(bytes, len))
		return 0; /* one iteration of a REP: the instruction retires at its end */
	*branch = vpmu_decode_branch(bytes, len, s->ip, f->rip);
	vpmu_lbr_user_branch(s->ip, f->rip, *branch);
	return 1;
}

/* #DB: the model's own single-step trap ends here (DR6.BS cleared for
 * the next one); anything else goes on as before. Installed before the
 * breakpoint PMU's handler, which passes single steps on to this one. */
static void step_debug_trap(struct trap_frame *f)
{
	struct step_cpu *s = &steps[this_cpu_id()];
	if (s->swallow_db) {
		s->swallow_db = false;
		write_dr6(read_dr6() & ~DR6_BS);
		return;
	}
	if (next_debug_handler)
		next_debug_handler(f);
}

void vpmu_step_init(void)
{
	next_debug_handler = trap_get_handler(VEC_DEBUG);
	trap_set_handler(VEC_DEBUG, step_debug_trap);
}

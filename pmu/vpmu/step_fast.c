/*
 * The lean path of the model's single step (step.c): a #DB from user
 * mode that is the model's own step, and whose instruction wraps no
 * counter, is handled straight from trap_dispatch - the instruction's
 * counts go into this CPU's `pending` tally, TF stays in the frame, and
 * the trap returns to user mode without the model's entry and exit
 * hooks, the time accounting or return_to_user's checks. The next
 * entry that is not such a step (a system call, an interrupt, a fault,
 * a step that would wrap a counter) goes the full way, and the model's
 * entry hook takes the tally first (vpmu_fast_take), charging it as
 * the steps one by one would have.
 *
 * When it may be taken: the model's exit hook arms it (vpmu_fast_arm)
 * for the user stint it begins, with the budget of each source - how
 * many more events its live counters take before one wraps; a step
 * whose tally would reach a budget goes the full way, so an overflow
 * still comes at exactly its Nth event, with the registers after that
 * instruction. Any write to the model's registers disarms it
 * (vpmu_fast_disarm), so does the full entry. A tracer's trap flag
 * (steps[].user_tf), a breakpoint or other #DB condition, and a perf
 * wake-up or signal an NMI left owed take the full way too. Nothing
 * else can become pending without an interrupt on this CPU (another
 * CPU's signal or reschedule sends one), and an interrupt takes the
 * full way, with return_to_user.
 *
 * Decoded instructions: each CPU keeps the class of the instructions it
 * stepped (decode.c's vpmu_decode_class: a branch kind, or a
 * conditional's length, and whether it is a REP string instruction) in
 * a small direct-mapped cache, so a loop is fetched and decoded once.
 * The cache is emptied (its generation moves) at every arming, so it
 * lives only through one run of lean steps with no other kernel entry
 * on this CPU: any exec, mmap, munmap, mprotect, fault or TLB
 * shootdown that could change the code is such an entry. Code the task
 * rewrites itself within a run (self-modifying, with no system call or
 * interrupt between the write and its execution) is decoded as it was
 * (the timer tick ends a run).
 *
 * Under the instruction clock the stubs' TSC stamps still bracket each
 * stint (stamp_user stays set): each lean step adds the user
 * instructions of the stint it ends, and the tally keeps the first
 * stint's exit stamp, so the full entry can split the whole run into
 * the user's instructions, the kernel's way out and in, and the
 * model's own lean traps, which count nowhere (vpmu.c,
 * charge_user_stint).
 *
 * It is called by the entry stub (core/arch/isr.asm) for every #DB from
 * user mode, before trap_dispatch: armed means the model steps this
 * CPU's user code with its own trap flag (vpmu.c arms it only then, and
 * the full entry, which ends the stepping, disarms it).
 *
 * Locking: fast[c] belongs to CPU c, touched there with interrupts off
 * (the #DB is an interrupt gate; the hooks run with interrupts off).
 */
#include "core/arch/percpu.h"
#include "core/arch/percpu_table.h"
#include "core/mm/uaccess.h"
#include "pmu/bp/debugreg.h"
#include "pmu/vpmu/lbr_model.h"
#include "vpmu.h"

#define DECODED 64   /* cache slots per CPU, a power of two */

struct decoded {
	uint64_t ip, gen;             /* valid while gen is the CPU's */
	struct vpmu_insn_class cls;
	bool rep;                     /* a REP string instruction */
};

struct fast_cpu {
	bool armed;
	bool clock;                   /* the instruction clock is on */
	unsigned shift;               /* clock: its shift */
	uint64_t stub;                /* clock: a #DB stint's stub instructions */
	uint64_t ip;                  /* the user instruction about to run */
	uint64_t gen;                 /* the cache's generation, >= 1 */
	struct vpmu_fast_budget budget;
	struct vpmu_fast_tally pending;
	struct decoded cache[DECODED];
};

PERCPU_TABLE(struct fast_cpu, fast);

void vpmu_fast_arm(const struct vpmu_fast_budget *b, uint64_t ip)
{
	struct fast_cpu *fc = &fast[this_cpu_id()];
	fc->budget = *b;
	fc->ip = ip;
	fc->clock = vpmu_icount_on();
	fc->shift = vpmu_icount_shift();
	fc->stub = vpmu_icount_stub(VEC_DEBUG);
	fc->gen++; /* a new run: the code may have changed since the last */
	fc->armed = b->insns > 1 && b->branches > 1 && b->cycles > 1;
}

void vpmu_fast_disarm(void)
{
	fast[this_cpu_id()].armed = false;
}

bool vpmu_fast_take(struct vpmu_fast_tally *t)
{
	struct fast_cpu *fc = &fast[this_cpu_id()];
	fc->armed = false;
	*t = fc->pending;
	fc->pending = (struct vpmu_fast_tally){ 0 };
	if (!t->steps)
		return false;
	vpmu_step_moved(fc->ip); /* the full path's step begins there */
	return true;
}

/* The instruction at user address ip, decoded, from the cache or now. */
static const struct decoded *decoded_at(struct fast_cpu *fc, uint64_t ip)
{
	struct decoded *d = &fc->cache[(ip ^ ip >> 6) & (DECODED - 1)];
	if (d->ip == ip && d->gen == fc->gen)
		return d;
	uint8_t bytes[VPMU_MAX_INSN];
	unsigned len = vpmu_step_fetch(ip, bytes);
	d->ip = ip;
	d->gen = fc->gen;
	d->cls = vpmu_decode_class(bytes, len);
	d->rep = vpmu_decode_rep_string(bytes, len);
	return d;
}

/* The branch kind's slot in the tally: the index of its VPMU_BR_ bit. */
static unsigned kind_slot(unsigned kind)
{
	return (unsigned)__builtin_ctz(kind & VPMU_BR_ALL);
}

/* Does one more step (`insn` instructions retired, 0 or 1, `branch` a
 * VPMU_BR_* kind or 0) keep every live counter short of its wrap? */
static bool within_budget(const struct fast_cpu *fc, unsigned insn, unsigned branch)
{
	const struct vpmu_fast_tally *p = &fc->pending;
	return p->insns + insn < fc->budget.insns &&
	       p->branches + (branch ? 1 : 0) < fc->budget.branches &&
	       p->steps + 1 < fc->budget.cycles;
}

/* Under the instruction clock: the user instructions of the stint this
 * step ends, from the stubs' stamps. */
static void tally_stint(const struct fast_cpu *fc, struct vpmu_fast_tally *p)
{
	const struct percpu *c = this_cpu();
	if (!fc->clock)
		return;
	if (!p->steps)
		p->first_exit_tsc = c->user_exit_tsc;
	uint64_t span = (c->user_entry_tsc >> fc->shift) - (c->user_exit_tsc >> fc->shift);
	p->user_icount += span > fc->stub ? span - fc->stub : 0;
}

bool vpmu_step_fast(struct trap_frame *f)
{
	struct fast_cpu *fc = &fast[this_cpu_id()];
	uint64_t ip = fc->ip;
	if (!fc->armed)
		return false;
	uint64_t dr6 = read_dr6();
	if ((dr6 & (DR6_TRAP_BITS | DR6_BD | DR6_BS | DR6_BT)) != DR6_BS || perf_wakeup_owed())
		return false;
	const struct decoded *d = decoded_at(fc, ip);
	unsigned branch = 0, insn = 1;
	if (f->rip == ip && d->rep)
		insn = 0; /* one iteration of a REP: it retires at its end */
	else
		branch = vpmu_class_branch(d->cls, ip, f->rip);
	if (!within_budget(fc, insn, branch))
		return false;
	struct vpmu_fast_tally *p = &fc->pending;
	tally_stint(fc, p);
	p->steps++;
	p->insns += insn;
	if (branch) {
		p->branches++;
		p->by_kind[kind_slot(branch)]++;
	}
	fc->ip = f->rip;
	write_dr6(dr6 & ~DR6_BS);
	return true;
}

/*
 * vpmu: the software model of a PMU that stands in on CPUs without one
 * (QEMU TCG), so the real drivers, the PMI path and the tools run there
 * unchanged.
 *
 * Which PMU (the mode, mode.h): `vpmu=intel|intel-v2|intel-v5|hybrid|amd`
 * on the command line, by default the CPU's vendor's: amd on an
 * AuthenticAMD or HygonGenuine CPU, intel (arch perfmon v4) elsewhere. A
 * mode of the other vendor is refused (the default is used), so CPUID,
 * /proc/cpuinfo and the model always agree on the vendor. The mode gives
 * each CPU its counters (GP and fixed, their width) and its register map
 * and CPUID leaves; everything below - time charging, wraps, the PMI,
 * the wrap timer - is the same in every mode. The counters are GLOBAL
 * bit indices: GP i is i, fixed j is PMC_IDX_FIXED + j.
 *
 * Events (events.c, in the mode's encodings): unhalted core cycles
 * (Intel 3CH/00H and fixed counter 1, AMD 76H) and unhalted reference
 * cycles (3CH/01H, fixed counter 2) advance with the TSC while enabled,
 * in the modes their USR/OS bits select, and not while the CPU is
 * halted. Instructions retired (C0H, fixed counter 0) come from the
 * instruction clock under QEMU -icount (icount.c), else from
 * single-stepping the user code (step.c); branch instructions retired
 * (Intel C4H and some umasks, AMD C2H, C4H, C8H, D1H) from decoding the
 * stepped instructions (decode.c). CPUID 0AH.EBX marks LLC events and
 * branch misses unavailable on Intel; the AMD driver leaves them out.
 *
 * Time is charged when the model updates: on every register access, on
 * each mode change the core reports (vpmu_set_mode) and on every
 * interrupt (the kernel-trap hook). The model's own running time is
 * charged to no counter. A counter passing 2^width wraps, sets
 * its GLOBAL_STATUS (AMD: GlobalStatus) bit and, with its INT/PMI bit
 * set, sends the PMI as LVTPC says (vector or NMI, to this CPU), then
 * masks LVTPC as Intel CPUs do on delivery; the PMI of a wrap in user time is marked as
 * the user's (vpmu_pmi_frame). The wrap timer (arm_wrap_timer) says
 * when the next wrap is due.
 *
 * Locking: cpus[c] belongs to CPU c; every entry point runs on that CPU
 * with interrupts off, between ENTER() and leave(). The model's own NMI
 * PMI is sent at the end of leave(), its state whole and `inside`
 * clear, so the PMI handler enters the model from the NMI; an NMI that
 * lands while `inside` is set (from another source) must not enter it
 * (vpmu_busy(): the PMI is deferred). Register accesses from an NMI
 * keep the mode the NMI interrupted.
 */
#include <linux/errno.h>
#include <string.h>
#include "core/arch/apic.h"
#include "core/arch/hrtimer.h"
#include "core/arch/nmi.h"
#include "core/arch/percpu.h"
#include "core/arch/cpu.h"
#include "core/cmdline.h"
#include "core/kernel.h"
#include "pmu/x86/msr.h"
#include "core/proc/syscall.h"
#include "core/proc/task.h"
#include "pmu/vpmu/lbr_model.h"
#include "mode.h"
#include "core/arch/percpu_table.h"

struct vpmu_cpu {
	struct vpmu_regs r;      /* the mode's registers */
	struct vpmu_shape shape; /* this CPU's counters */
	uint64_t width_mask;
	uint64_t last_tsc;       /* time is charged up to here */
	enum vpmu_mode mode;     /* where the CPU has been since last_tsc */
	uint64_t wrap_due;       /* TSC of the next PMI-raising wrap, ~0: none */
	struct hrtimer wrap_timer; /* queued for wrap_due or earlier */
	bool pmi_user;           /* the PMI sent is for a wrap in user time */
	bool pmi_due, pmi_due_user; /* a wrap seen: leave() raises its PMI */
	bool pmi_from_caller;    /* the NMI sent samples `caller` */
	bool inside;             /* an entry point runs (NMIs must not enter) */
	struct trap_frame caller; /* kernel code that called the entry point */
	struct trap_frame pmi_frame; /* the caller the NMI sent samples */
	uint64_t exit_path;      /* instruction clock: most kernel instructions
				  * seen from the exit hook's stamp to user mode */
	bool exit_own;           /* the last return to user ended own time */
	bool ready;
};

PERCPU_TABLE(struct vpmu_cpu, cpus);
volatile uint8_t vpmu_counting[MAX_CPUS];

static void wrap_timer_fire(struct hrtimer *t, struct trap_frame *f);

const struct vpmu_kind *vpmu_mode = &vpmu_mode_intel;

/* This CPU's model, out of reset on first use: counters and controls 0,
 * GLOBAL_CTRL as the mode resets it. */
static struct vpmu_cpu *this_model(void)
{
	struct vpmu_cpu *c = &cpus[this_cpu_id()];
	if (!c->ready) {
		vpmu_mode->shape(this_cpu_id(), &c->shape);
		c->width_mask = vpmu_width_mask(&c->shape);
		c->r.global_ctrl = vpmu_mode->global_reset(&c->shape);
		c->last_tsc = rdtsc();
		c->mode = VPMU_KERNEL;
		c->wrap_due = ~0ULL;
		hrtimer_init(&c->wrap_timer, wrap_timer_fire);
		c->ready = true;
	}
	return c;
}

static bool mode_selected(const struct vpmu_cpu *c, bool usr, bool os)
{
	return (c->mode == VPMU_USER && usr) || (c->mode == VPMU_KERNEL && os);
}

/* Add n to a counter; on passing the width set its status bit. Returns
 * whether a PMI is due. */
static bool bump(struct vpmu_cpu *c, uint64_t *ctr, uint64_t n, int idx, bool pmi)
{
	uint64_t v = *ctr + n;
	*ctr = v & c->width_mask;
	if (v <= c->width_mask)
		return false;
	c->r.global_status |= 1ULL << idx;
	return pmi;
}

/* Send the PMI a wrap owes as LVTPC says, unless it is masked (then
 * it is held: the status stays set), masking LVTPC as Intel CPUs do on
 * delivery. The marks the PMI handler reads (vpmu_pmi_frame) are set
 * before the IPI: an NMI is taken at once. */
static void raise_pmi(struct vpmu_cpu *c)
{
	bool user = c->pmi_due_user;
	c->pmi_due = c->pmi_due_user = false;
	uint32_t lvt = apic_read(APIC_LVT_PMC);
	if (lvt & LVT_MASKED)
		return;
	bool nmi = (lvt & (7u << 8)) == LVT_DELIVERY_NMI;
	apic_write(APIC_LVT_PMC, lvt | LVT_MASKED);
	c->pmi_user = user;
	c->pmi_from_caller = nmi && !user && (c->caller.cs & 3) == 0;
	c->pmi_frame = c->caller; /* LVTPC masked: no PMI overwrites it */
	apic_send_ipi(this_cpu()->apic_id, nmi ? LVT_DELIVERY_NMI : (lvt & 0xff));
}

/* Counter idx (GP i, or PMC_IDX_FIXED + j): is it enabled (EN or the
 * fixed enable, and its GLOBAL_CTRL bit) and counting in the current
 * mode? Its event, its PMI bit. */
static bool live(const struct vpmu_cpu *c, int idx, struct vpmu_event *ev, bool *pmi)
{
	if (!(c->r.global_ctrl >> idx & 1))
		return false;
	if (idx < PMC_IDX_FIXED) {
		uint64_t s = c->r.evtsel[idx];
		*ev = vpmu_gp_event(s);
		*pmi = s & EVTSEL_INT;
		return (s & EVTSEL_EN) && mode_selected(c, s & EVTSEL_USR, s & EVTSEL_OS);
	}
	unsigned j = (unsigned)(idx - PMC_IDX_FIXED);
	uint64_t ctl = c->r.fixed_ctrl >> FIXED_CTRL_SHIFT(j);
	*ev = vpmu_fixed_event(j);
	*pmi = ctl & FIXED_CTRL_PMI;
	return mode_selected(c, ctl & FIXED_CTRL_USR, ctl & FIXED_CTRL_OS);
}

static uint64_t *counter(struct vpmu_cpu *c, int idx)
{
	return idx < PMC_IDX_FIXED ? &c->r.pmc[idx] : &c->r.fixed[idx - PMC_IDX_FIXED];
}

/* The counter after idx on CPU c (GP then fixed, as GLOBAL_CTRL
 * indices); past the last, PMC_IDX_FIXED + VPMU_MAX_FIXED. */
static int next_counter(const struct vpmu_cpu *c, int idx)
{
	idx++;
	if (idx < PMC_IDX_FIXED && idx >= (int)c->shape.n_gp)
		idx = PMC_IDX_FIXED;
	if (idx >= PMC_IDX_FIXED && idx >= PMC_IDX_FIXED + (int)c->shape.n_fixed)
		idx = PMC_IDX_FIXED + VPMU_MAX_FIXED;
	return idx;
}

static int first_counter(const struct vpmu_cpu *c)
{
	return c->shape.n_gp ? 0 : next_counter(c, -1);
}

#define for_each_counter(idx) \
	for (int idx = first_counter(c); idx < PMC_IDX_FIXED + VPMU_MAX_FIXED; \
	     idx = next_counter(c, idx))

/* Add n events of `src` (of branch kind `kind`) to every live counter
 * counting them. Returns whether a PMI is due. */
static bool charge(struct vpmu_cpu *c, enum vpmu_source src, unsigned kind, uint64_t n)
{
	bool pmi = false, want;
	struct vpmu_event ev;
	if (!n)
		return false;
	for_each_counter(idx)
		if (live(c, idx, &ev, &want) && ev.src == src &&
		    (src != VPMU_SRC_BRANCHES || (ev.branch_kinds & kind)))
			pmi |= bump(c, counter(c, idx), n, idx, want);
	return pmi;
}

/*
 * A wrap seen at an update is late: the counter passed 2^48 in the time
 * just charged. The PMI is raised as the entry point leaves (leave():
 * the model's state whole, so an NMI may enter it again), taken at once
 * as an NMI or when the kernel next allows interrupts (as a real PMI
 * held off by IF=0). One for a wrap in user time is marked as the
 * user's: the driver samples the user registers of the kernel entry
 * that noticed it (vpmu_pmi_frame) - the nearest to the wrap the model
 * knows, exact for a stepped instruction - whichever path noticed it
 * (the wrap timer, a system call, a fault, a single step) and even if
 * the task never returns to user mode. An NMI for a wrap in kernel
 * time samples the kernel code that entered the model (`caller`): on
 * hardware the NMI would land in that code, not in the model's.
 */
static void wrapped_in(struct vpmu_cpu *c, enum vpmu_mode mode)
{
	c->pmi_due = true;
	c->pmi_due_user |= mode == VPMU_USER;
}

static void wrapped(struct vpmu_cpu *c)
{
	wrapped_in(c, c->mode);
}

/* The model took `ticks` of TSC time from the current task: its RDTSC
 * leaves them out from now on (vtsc.c). */
static uint8_t steps_user[MAX_CPUS]; /* the CPU's user code is stepped */

/* The next task on this CPU is not stepped until its own return to
 * user mode says so: the last task's stepping must not make the model
 * keep the newcomer's time (vtsc.c's sched-in, before the model's). */
void vpmu_steps_sched_in(void)
{
	steps_user[this_cpu_id()] = 0;
}

/* Only a task the model steps (or one already on its own clock) gets
 * its time kept: the RDTSC of any other task stays the real, untrapped
 * instruction (a sampled task's wrap-timer time is left in its TSC). */
static void hide(uint64_t ticks)
{
	struct task *t = current;
	if (!ticks || !t || !t->mm || (!steps_user[this_cpu_id()] && !t->vpmu_tsc_hidden))
		return;
	if (!t->vpmu_tsc_hidden)
		vpmu_tsc_trap_set(true);
	t->vpmu_tsc_hidden += ticks;
	if (steps_user[this_cpu_id()])
		vpmu_cap_spent(ticks); /* the stepping's cost (step_cap.c) */
}

/* The TSC the current task reads at this entry from user mode: `real`
 * (the TSC at the user boundary) less what the model took from it. */
static void note_entry_tsc(uint64_t real)
{
	struct task *t = current;
	if (!t || !t->mm)
		return;
	t->vpmu_tsc_entry = real - t->vpmu_tsc_hidden;
	t->vpmu_tsc_entry_valid = true;
}

/* Called by the trap that emulates a user RDTSC. When the model did not
 * see this entry (nothing counts now), the entry's own time stamp
 * stands in, and the trap's time so far is hidden with the rest. */
uint64_t vpmu_tsc_user_now(void)
{
	struct task *t = current;
	if (t->vpmu_tsc_entry_valid)
		return t->vpmu_tsc_entry;
	uint64_t at = t->acct_tsc, v = at - t->vpmu_tsc_hidden;
	t->vpmu_tsc_hidden += rdtsc() - at;
	return v;
}

/* Charge the time since last_tsc to the counters that count in the mode
 * the CPU was in: TSC ticks to cycles, and with the instruction clock
 * the instructions it says retired; the model's own time to nobody. */
static void advance(struct vpmu_cpu *c)
{
	uint64_t now = rdtsc();
	if (c->mode == VPMU_OWN)
		hide(now - c->last_tsc);
	uint64_t insns = vpmu_icount_on() ? vpmu_icount_between(c->last_tsc, now) : 0;
	bool pmi = charge(c, VPMU_SRC_CYCLES, 0, now - c->last_tsc);
	pmi |= charge(c, VPMU_SRC_INSNS, 0, insns);
	c->last_tsc = now;
	if (pmi)
		wrapped(c);
}

static bool any_enabled(const struct vpmu_cpu *c)
{
	for (unsigned i = 0; i < c->shape.n_gp; i++)
		if ((c->r.evtsel[i] & EVTSEL_EN) && (c->r.global_ctrl >> i & 1))
			return true;
	for (unsigned j = 0; j < c->shape.n_fixed; j++)
		if ((c->r.fixed_ctrl >> FIXED_CTRL_SHIFT(j) & 3) &&
		    (c->r.global_ctrl >> (PMC_IDX_FIXED + j) & 1))
			return true;
	return false;
}

/* ---- overflow on time ---- */

/* Instructions the CPU runs, after the model's exit stamp, before the
 * first user instruction: a counter of user instructions (or, with the
 * instruction clock, user cycles: charge_user_stint gives the way out
 * to the kernel) alone must not be timed from the stamp, or its timer
 * would fire before the user ran at all - taken at the IRET, again and
 * again, a livelock once fewer events than the way out are left. So
 * must one that counts kernel mode too when the way out is the model's
 * own (exit_own: the return from its wrap timer, a step, the PMI),
 * which counts nowhere. The longest way out seen so far,
 * plus a margin; until one is seen, a generous guess. The PMI comes up
 * to that margin past the wrap (the skid under the instruction clock,
 * with the APIC timer's granularity). */
#define WAY_OUT_MARGIN 8
#define WAY_OUT_GUESS 2000
static uint64_t user_only_lead(const struct vpmu_cpu *c, int idx)
{
	bool os = idx < PMC_IDX_FIXED
		? c->r.evtsel[idx] & EVTSEL_OS
		: c->r.fixed_ctrl >> FIXED_CTRL_SHIFT(idx - PMC_IDX_FIXED) & FIXED_CTRL_OS;
	if (c->mode != VPMU_USER || (os && !c->exit_own))
		return 0;
	return (c->exit_path ? c->exit_path : WAY_OUT_GUESS) + WAY_OUT_MARGIN;
}

/* The TSC ticks from last_tsc until the first counter with its PMI
 * enabled and counting in the current mode wraps, if the CPU stays in
 * that mode; ~0: none will. Stepped counts are not timed: the step that
 * wraps a counter sees it. */
static uint64_t wrap_left(const struct vpmu_cpu *c)
{
	uint64_t left = ~0ULL, ticks;
	struct vpmu_event ev;
	bool pmi;
	for_each_counter(idx) {
		if (!live(c, idx, &ev, &pmi) || !pmi)
			continue;
		uint64_t to_wrap = c->width_mask + 1 - *counter((struct vpmu_cpu *)c, idx);
		if (ev.src == VPMU_SRC_CYCLES && vpmu_icount_on())
			ticks = to_wrap + (user_only_lead(c, idx) << vpmu_icount_shift());
		else if (ev.src == VPMU_SRC_CYCLES)
			ticks = to_wrap;
		else if (ev.src == VPMU_SRC_INSNS && vpmu_icount_on())
			ticks = vpmu_icount_ticks(c->last_tsc, to_wrap + user_only_lead(c, idx));
		else
			continue;
		if (ticks < left)
			left = ticks;
	}
	return left;
}

/* The wrap timer aims a little past the wrap: an APIC timer interrupt
 * may come a tick early (its clock is not the TSC), and one that came
 * before the wrap would let it happen in the kernel's interrupt entry,
 * taking a user-time wrap's sample in the kernel. 1/4096 of the
 * distance plus 64 TSC ticks: the PMI's skid on the wrap timer. */
#define WRAP_TIMER_LATE(left) ((left) / 4096 + 64)

/*
 * The wrap timer, the one place that decides when the model looks at
 * its counters again: every entry point ends by arming it for the
 * instant of the next wrap, `left` cycles after last_tsc, on this CPU's
 * hrtimer queue (core/arch/hrtimer.h). It runs after last_tsc is stamped, so
 * its time is charged to the mode the CPU goes to (user, often), and in
 * the common case it is a compare: the timer is only moved earlier. A
 * timer left queued for an earlier instant (the wrap moved later: the
 * model's own time is charged to no counter, the CPU left the mode the
 * counter counts in) fires once early; its update, in kernel mode,
 * re-arms it for the right instant.
 */
static void arm_wrap_timer(struct vpmu_cpu *c, uint64_t left)
{
	c->wrap_due = left == ~0ULL ? ~0ULL : c->last_tsc + left;
	if (c->wrap_due == ~0ULL)
		return;
	uint64_t at = c->wrap_due + WRAP_TIMER_LATE(left);
	if (!hrtimer_queued(&c->wrap_timer) || at < c->wrap_timer.expires)
		hrtimer_start(&c->wrap_timer, at);
}

uint64_t vpmu_wrap_due(void)
{
	return cpus[this_cpu_id()].wrap_due;
}

/* Every entry point ends here: the model's own time from the TSC read
 * in advance() to now is charged to no counter (it is the emulator's,
 * not the measured code's), then interrupts come back. The wrap timer
 * is armed after the stamp (its instant depends on it; for the
 * instruction clock that may put it an instruction early, which the
 * timer's refire absorbs). */
static void leave(struct vpmu_cpu *c, uint64_t flags)
{
	uint64_t left = wrap_left(c);
	uint64_t now = rdtsc();
	hide(now - c->last_tsc); /* the task's RDTSC leaves the model out too */
	c->last_tsc = now;
	arm_wrap_timer(c, left);
	c->inside = false;
	if (c->pmi_due)
		raise_pmi(c); /* an NMI enters the model again here */
	irq_restore(flags);
}

/*
 * Every entry point that updates the model begins here (ENTER()): with
 * interrupts off, `inside` set until leave(), and the kernel code that
 * called it noted - its return address, stack and frame pointer, its
 * interrupt flag - for a PMI raised on the way out.
 */
static struct vpmu_cpu *enter(uint64_t *flags, void *ret, void *frame)
{
	*flags = irq_save();
	struct vpmu_cpu *c = this_model();
	uint64_t *fp = frame;
	c->inside = true;
	c->caller.rip = (uint64_t)ret;
	c->caller.rbp = fp[0];
	c->caller.rsp = (uint64_t)(fp + 2);
	c->caller.cs = KERNEL_CS;
	c->caller.ss = 0;
	c->caller.rflags = *flags;
	c->caller.vector = VEC_NMI;
	return c;
}
#define ENTER(fl) enter(&(fl), __builtin_return_address(0), __builtin_frame_address(0))

/* The wrap timer fired, from the timer interrupt (whose kernel-trap
 * hook may have brought the model up to date already): an update sees
 * the wrap and raises or owes its PMI, and leave() arms the timer for
 * the next one. */
static void wrap_timer_fire(struct hrtimer *t, struct trap_frame *f)
{
	(void)t;
	uint64_t fl;
	struct vpmu_cpu *c = ENTER(fl);
	if (f)
		c->caller = *f; /* the timer interrupted it */
	advance(c);
	leave(c, fl);
}

void vpmu_set_mode(enum vpmu_mode mode)
{
	uint64_t f;
	struct vpmu_cpu *c = ENTER(f);
	advance(c);
	c->mode = mode;
	leave(c, f);
}

/* A trap taken in kernel mode ends a hlt; one that lands in the model's
 * own time (a tick during a step's #DB) is part of it and counts
 * nowhere, as that time does: on hardware it would not have come
 * there. */
void vpmu_kernel_trap(void)
{
	uint64_t f;
	struct vpmu_cpu *c = ENTER(f);
	advance(c);
	if (c->mode != VPMU_OWN)
		c->mode = VPMU_KERNEL;
	leave(c, f);
}

/* Does a live counter need the user code stepped: branches, or
 * instructions without the instruction clock, in user mode? Not one of
 * a CPU-wide event while the CPU's stepping budget is spent. */
static bool wants_steps(struct vpmu_cpu *c)
{
	enum vpmu_mode m = c->mode;
	struct vpmu_event ev;
	bool pmi, want = false;
	uint64_t capped = vpmu_cap_skipped();
	c->mode = VPMU_USER;
	for_each_counter(idx)
		if (live(c, idx, &ev, &pmi) && !(capped >> idx & 1) &&
		    (ev.src == VPMU_SRC_BRANCHES || (ev.src == VPMU_SRC_INSNS && !vpmu_icount_on())))
			want = true;
	c->mode = m;
	return want || vpmu_lbr_wants_steps();
}

/*
 * With the instruction clock, the user stint that just ended is split
 * at the stubs' TSC stamps: the instructions between them, less the
 * stubs' own, are the user's; the rest since the last update are the
 * kernel's: its way out after the model's exit hook (up to the exit
 * stamp, and the exit stub) and its way in (the entry stub, then up to
 * now). The way out of one of the model's own traps (c->exit_own) and
 * the way into one (own_in: a step's #DB, the wrap timer, the PMI) are
 * the model's and count nowhere. Cycles split the same way, the TSC
 * being the instruction clock. False when the stamps do not bracket a
 * stint the model saw begin (then the caller charges it).
 */
static bool charge_user_stint(struct vpmu_cpu *c, const struct trap_frame *f, bool own_in,
			      const struct vpmu_fast_tally *lean)
{
	const struct percpu *p = this_cpu();
	uint64_t out = p->user_exit_tsc, in = p->user_entry_tsc, now = rdtsc();
	uint64_t first_out = lean->steps ? lean->first_exit_tsc : out;
	if (!vpmu_icount_on() || !p->stamp_user || c->mode != VPMU_USER ||
	    !(c->last_tsc <= first_out && first_out <= out && out <= in && in <= now))
		return false;
	uint64_t way_out = vpmu_icount_between(c->last_tsc, first_out) + vpmu_icount_exit_stub();
	if (way_out > c->exit_path)
		c->exit_path = way_out;
	uint64_t span = vpmu_icount_between(out, in), stub = vpmu_icount_stub(f->vector);
	uint64_t user = (span > stub ? span - stub : 0) + lean->user_icount;
	unsigned shift = vpmu_icount_shift();
	/* The lean steps' own kernel time: all of first_out..out but the
	 * user instructions of the stints they ended. */
	uint64_t lean_ticks = out - first_out, lean_user = lean->user_icount << shift;
	lean_ticks = lean_ticks > lean_user ? lean_ticks - lean_user : 0;
	uint64_t lean_own = lean_ticks >> shift;
	uint64_t total = vpmu_icount_between(c->last_tsc, now);
	uint64_t spent = user + way_out + lean_own;
	uint64_t way_in = total > spent ? total - spent : 0;
	uint64_t user_ticks = user << shift, out_ticks = way_out << shift;
	uint64_t rest = now - c->last_tsc - user_ticks - lean_ticks;
	uint64_t in_ticks = rest > out_ticks ? rest - out_ticks : 0;
	bool user_pmi = charge(c, VPMU_SRC_CYCLES, 0, user_ticks);
	user_pmi |= charge(c, VPMU_SRC_INSNS, 0, user);
	hide(lean_ticks);
	if (c->exit_own)
		hide(rest - in_ticks);
	note_entry_tsc(now - in_ticks);
	if (own_in)
		hide(in_ticks);
	c->mode = VPMU_KERNEL;
	bool kernel_pmi = charge(c, VPMU_SRC_CYCLES, 0, (c->exit_own ? 0 : rest - in_ticks) +
				 (own_in ? 0 : in_ticks));
	kernel_pmi |= charge(c, VPMU_SRC_INSNS, 0, (c->exit_own ? 0 : way_out) +
			     (own_in ? 0 : way_in));
	c->mode = VPMU_USER;
	c->last_tsc = now;
	/* Only now, the time charged: a PMI taken at once (an NMI that
	 * enters the model) must not charge it again. */
	if (user_pmi)
		wrapped(c); /* owed to user mode */
	else if (kernel_pmi)
		wrapped_in(c, VPMU_KERNEL);
	return true;
}

/*
 * Without the instruction clock, a user stint the model stepped is
 * mostly the model's own time (the trap's way in and out around one
 * instruction), which no stamp separates from the instruction's: the
 * stint's cycles are not taken from the TSC but are one per
 * instruction the step retired (vpmu_user_entry charges them), and the
 * rest of the TSC time since the exit hook counts nowhere, and the
 * task's RDTSC leaves it out. Any other stint is charged from the TSC
 * to user mode. The lean steps taken since the last update (`lean`)
 * are a cycle each, as the one just retired.
 */
static void charge_untimed_stint(struct vpmu_cpu *c, bool stepped, bool retired,
				 const struct vpmu_fast_tally *lean)
{
	uint64_t now = rdtsc();
	if (!stepped || vpmu_icount_on()) {
		advance(c);
		note_entry_tsc(now);
		return;
	}
	uint64_t span = now - c->last_tsc, user = lean->steps + (retired ? 1 : 0);
	if (user > span)
		user = span;
	const struct task *t = current;
	if (t && t->mm)
		note_entry_tsc(c->last_tsc + user);
	hide(span - user);
	c->last_tsc = now;
}

/* What the lean steps since the last update counted (step_fast.c), in
 * user mode: none of it wraps a counter (their budget stopped short). */
static bool charge_lean(struct vpmu_cpu *c, const struct vpmu_fast_tally *lean)
{
	bool untimed = !vpmu_icount_on(), pmi;
	pmi = charge(c, VPMU_SRC_INSNS, 0, untimed ? lean->insns : 0);
	pmi |= charge(c, VPMU_SRC_CYCLES, 0, untimed ? lean->steps : 0);
	for (unsigned k = 0; k < ARRAY_SIZE(lean->by_kind); k++)
		pmi |= charge(c, VPMU_SRC_BRANCHES, 1u << k, lean->by_kind[k]);
	return pmi;
}

/* Is this entry the wrap timer's interrupt, due now, or the PMI? Then
 * the kernel time until the return (or the next trap) is the model's,
 * not the measured code's: on hardware the wrap timer does not exist
 * and the PMI is an NMI that freezes the counters and returns at once,
 * where here it runs the kernel's whole way back to user mode; counting
 * them would put the profiler's own cost into a profile of a user
 * loop. (A scheduler tick that happens to share the timer interrupt
 * goes uncounted with it.) */
static bool own_interrupt(const struct vpmu_cpu *c, const struct trap_frame *f, uint64_t now)
{
	if (f->vector == VEC_PMI)
		return true;
	return f->vector == VEC_TIMER && hrtimer_queued(&c->wrap_timer) &&
	       c->wrap_timer.expires <= now;
}

/* An interrupt taken from stepped user code arrives at the boundary
 * right after the model's return (IRET lets in what the way out held
 * off; the step's #DB outranks one that comes later): it came in the
 * model's own time, which on hardware would not have passed. */
static bool held_in_own_time(const struct vpmu_cpu *c, const struct trap_frame *f, bool stepped,
			     bool leaned)
{
	return stepped && (c->exit_own || leaned) && f->vector >= VEC_IRQ_BASE &&
	       f->vector != SYSCALL_VECTOR;
}

/* Entry from user mode: user time is charged, then what the stepped
 * instruction (if one retired) counts, still as user mode - a counter
 * it wraps owes its PMI to the return, which takes it with the
 * registers after that instruction: exactly where it overflowed. The
 * model's own trap (a step's #DB, the wrap timer, the PMI) is followed
 * by own time until the return. */
void vpmu_user_entry(struct trap_frame *f)
{
	uint64_t fl;
	struct vpmu_cpu *c = ENTER(fl);
	struct vpmu_fast_tally lean;
	bool leaned = vpmu_fast_take(&lean);
	bool stepped = vpmu_stepping[this_cpu_id()];
	bool own = vpmu_step_trap_is_own(f) || own_interrupt(c, f, rdtsc()) ||
		   held_in_own_time(c, f, stepped, leaned) || vpmu_tsc_insn(f) ||
		   vpmu_rdpmc_trap(f);
	if (!charge_user_stint(c, f, own, &lean))
		charge_untimed_stint(c, stepped, vpmu_step_retired(f), &lean);
	c->mode = VPMU_USER;
	bool lean_pmi = leaned && charge_lean(c, &lean);
	unsigned branch = 0;
	bool step = stepped && vpmu_step_retired(f); /* a step (a REP's iteration too) */
	bool retired = stepped && vpmu_step_finish(f, &branch);
	bool untimed = !vpmu_icount_on();
	bool pmi = charge(c, VPMU_SRC_INSNS, 0, untimed && retired ? 1 : 0);
	pmi |= charge(c, VPMU_SRC_CYCLES, 0, untimed && step ? 1 : 0);
	pmi |= charge(c, VPMU_SRC_BRANCHES, branch, branch ? 1 : 0);
	if (pmi || lean_pmi)
		wrapped(c);
	c->mode = own ? VPMU_OWN : VPMU_KERNEL;
	leave(c, fl);
}

/* An instruction the kernel finished for the user (an emulated RDPMC):
 * it faulted rather than retired, so no step saw it (the instruction
 * clock did: QEMU counts the faulting instruction). Called from the #UD
 * handler, after the entry hook. */
void vpmu_emulated_user_insn(void)
{
	if (vpmu_icount_on())
		return; /* QEMU's clock counted the faulting instruction */
	uint64_t fl;
	struct vpmu_cpu *c = ENTER(fl);
	advance(c);
	enum vpmu_mode was = c->mode; /* own: the entry hook saw the trap */
	c->mode = VPMU_USER;
	if (charge(c, VPMU_SRC_INSNS, 0, 1))
		wrapped(c);
	c->mode = was == VPMU_OWN ? VPMU_OWN : VPMU_KERNEL;
	leave(c, fl);
}

/* The lean step path's budget for the user stint about to begin (the
 * CPU in user mode): per stepped source, the events the live counter
 * nearest its wrap takes before it wraps (step_fast.c). */
static void arm_lean_steps(struct vpmu_cpu *c, uint64_t ip)
{
	struct vpmu_fast_budget b = { ~0ULL, ~0ULL, ~0ULL };
	bool clock = vpmu_icount_on(), pmi;
	struct vpmu_event ev;
	for_each_counter(idx) {
		if (!live(c, idx, &ev, &pmi))
			continue;
		uint64_t left = c->width_mask + 1 - *counter(c, idx), *to = NULL;
		if (ev.src == VPMU_SRC_BRANCHES)
			to = &b.branches;
		else if (ev.src == VPMU_SRC_INSNS && !clock)
			to = &b.insns;
		else if (ev.src == VPMU_SRC_CYCLES && !clock)
			to = &b.cycles;
		if (to && left < *to)
			*to = left;
	}
	vpmu_fast_arm(&b, ip);
}

/* The return to user through f: counters switch to user mode, an owed
 * PMI is raised (taken right after IRET), and the user code is stepped
 * if a counter needs it. */
void vpmu_user_exit(struct trap_frame *f)
{
	uint64_t fl;
	struct vpmu_cpu *c = ENTER(fl);
	advance(c);
	c->exit_own = c->mode == VPMU_OWN;
	c->mode = VPMU_USER;
	if (current)
		current->vpmu_tsc_entry_valid = false;
	steps_user[this_cpu_id()] = wants_steps(c);
	if (steps_user[this_cpu_id()])
		vpmu_step_arm(f);
	if (steps_user[this_cpu_id()] && !vpmu_lbr_wants_steps() && vpmu_step_own_tf())
		arm_lean_steps(c, f->rip);
	vpmu_icount_stamp_here();
	leave(c, fl);
}

/* Register accesses happen in the kernel: bring the counters up to now
 * and note that the CPU is in kernel mode (a mode the hooks could not
 * track while nothing counted is stale) - unless it is handling the
 * model's own interrupt, which lasts until the return to user, a trap
 * or a context switch (perf_sched_in). */
static struct vpmu_cpu *sync_model(struct vpmu_cpu *c)
{
	advance(c);
	if (c->mode != VPMU_OWN && !in_nmi())
		c->mode = VPMU_KERNEL; /* an NMI leaves the mode it interrupted */
	return c;
}

uint64_t vpmu_rdmsr(uint32_t msr)
{
	uint64_t f;
	struct vpmu_cpu *c = sync_model(ENTER(f));
	uint64_t v;
	if (!vpmu_lbr_rdmsr(msr, &v))
		v = vpmu_mode->rdmsr(&c->r, &c->shape, msr);
	leave(c, f);
	return v;
}

static bool in_range(uint32_t msr, uint32_t first, uint32_t n)
{
	return msr >= first && msr < first + n;
}

/* Architectural maxima, not this mode's shape: a register past the
 * mode's counters is still the model's (it reads 0, as TCG's do). */
bool vpmu_owns_msr(uint32_t msr)
{
	uint64_t v;
	if (vpmu_mode->amd)
		return in_range(msr, MSR_K7_EVNTSEL0, 8) ||
		       in_range(msr, MSR_F15H_PERF_CTL, 12) ||
		       in_range(msr, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, 4) ||
		       vpmu_lbr_rdmsr(msr, &v);
	return in_range(msr, MSR_IA32_PMC0, 8) || in_range(msr, MSR_IA32_A_PMC0, 8) ||
	       in_range(msr, MSR_IA32_PERFEVTSEL0, 8) ||
	       in_range(msr, MSR_IA32_FIXED_CTR0, 4) ||
	       in_range(msr, MSR_IA32_FIXED_CTR_CTRL, 5) ||
	       msr == MSR_IA32_PERF_CAPABILITIES || vpmu_lbr_rdmsr(msr, &v);
}

int vpmu_wrmsr_safe(uint32_t msr, uint64_t value)
{
	uint64_t f;
	struct vpmu_cpu *c = sync_model(ENTER(f));
	int err = vpmu_write_faults(&c->shape, msr, value) ? -EIO : 0;
	vpmu_fast_disarm(); /* its budget may no longer hold */
	if (!err && !vpmu_lbr_wrmsr(msr, value))
		vpmu_mode->wrmsr(&c->r, &c->shape, msr, value);
	vpmu_counting[this_cpu_id()] = any_enabled(c) || vpmu_lbr_wants_steps();
	if (!vpmu_counting[this_cpu_id()] && current)
		current->vpmu_tsc_entry_valid = false; /* no more entries seen */
	leave(c, f);
	return err;
}

void vpmu_wrmsr(uint32_t msr, uint64_t value)
{
	if (vpmu_wrmsr_safe(msr, value))
		klog("pmu: vpmu: WRMSR %#x <- %#llx would #GP: dropped", msr,
		     (unsigned long long)value);
}

struct cpuid_regs vpmu_cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r = cpuid(leaf, subleaf);
	vpmu_mode->cpuid(this_cpu_id(), leaf, subleaf, &r);
	vpmu_lbr_cpuid(leaf, subleaf, &r);
	return r;
}

const struct vpmu_shape *vpmu_this_shape(void)
{
	return &this_model()->shape;
}

static const struct vpmu_kind *const modes[] = {
	&vpmu_mode_intel, &vpmu_mode_intel_v2, &vpmu_mode_intel_v5,
	&vpmu_mode_hybrid, &vpmu_mode_amd,
};

static bool vendor_is_amd(void)
{
	return strcmp(cpu.vendor, "AuthenticAMD") == 0 ||
	       strcmp(cpu.vendor, "HygonGenuine") == 0;
}

/* The mode `vpmu=` names if it goes with the CPU's vendor, else the
 * vendor's default. Before any counter is used. */
static void choose_mode(void)
{
	bool amd = vendor_is_amd();
	const char *want = cmdline_get("vpmu");
	vpmu_mode = amd ? &vpmu_mode_amd : &vpmu_mode_intel;
	if (!want)
		return;
	for (unsigned i = 0; i < ARRAY_SIZE(modes); i++) {
		if (strcmp(want, modes[i]->name) != 0)
			continue;
		if (modes[i]->amd == amd)
			vpmu_mode = modes[i];
		else
			klog("pmu: vpmu: vpmu=%s refused: the CPU says %s (CPUID, /proc/cpuinfo "
			     "and the model must agree); vpmu=%s", want, cpu.vendor, vpmu_mode->name);
		return;
	}
	klog("pmu: vpmu: vpmu=%s is no mode (intel, intel-v2, intel-v5, hybrid, amd); vpmu=%s",
	     want, vpmu_mode->name);
}

const char *vpmu_mode_name(void)
{
	return vpmu_mode->name;
}

bool vpmu_is_amd(void)
{
	return vpmu_mode->amd;
}

void vpmu_init(void)
{
	choose_mode();
	klog("pmu: vpmu: mode %s (vpmu=intel|intel-v2|intel-v5|hybrid|amd; this CPU says %s)",
	     vpmu_mode->name, cpu.vendor);
	vpmu_icount_init();
	vpmu_step_init();
	vpmu_rdpmc_init();
	vpmu_tsc_init();
}

bool vpmu_pmi_user_mark(void)
{
	struct vpmu_cpu *c = &cpus[this_cpu_id()];
	bool user = c->pmi_user;
	c->pmi_user = false;
	return user;
}

bool vpmu_busy(void)
{
	return cpus[this_cpu_id()].inside;
}

struct trap_frame *vpmu_pmi_frame(struct trap_frame *f)
{
	struct vpmu_cpu *c = &cpus[this_cpu_id()];
	bool from_caller = c->pmi_from_caller;
	c->pmi_from_caller = false;
	if (!vpmu_pmi_user_mark())
		return from_caller ? &c->pmi_frame : f;
	struct task *t = current;
	if ((f->cs & 3) == 3 || !t || !t->mm || !t->frame)
		return f;
	return t->frame; /* where the task entered the kernel from user mode */
}

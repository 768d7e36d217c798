/*
 * The breakpoint PMU (type PERF_TYPE_BREAKPOINT, Linux's "breakpoint"):
 * execute breakpoints and write or read/write watchpoints of 1, 2, 4 or
 * 8 bytes on DR0-DR3, counted (and sampled, through perf_event_hit) each
 * time they fire.
 *
 * An event owns one debug register of the CPU it is added to, from add()
 * to del(). The core adds a task's events when the task's context goes
 * on a CPU and deletes them when it leaves, so a task's breakpoints
 * follow it; CPU events stay on their CPU. Open-time accounting
 * (slots.c) keeps at most four breakpoints that can meet on a CPU, so
 * add() finds a free register.
 *
 * Locking: bp_cpus[c] belongs to CPU c. add/del/start/stop change it
 * under perf_lock with interrupts off; the #DB handler of CPU c reads
 * it. A #DB is not masked by IF, but nothing in add/del can raise one:
 * their data is off limits to breakpoints (bp_unsafe_range) and they
 * touch no user memory.
 */
#include <linux/errno.h>
#include <linux/hw_breakpoint.h>
#include "breakpoint.h"
#include "debugreg.h"
#include "pmu/events/event.h"
#include "core/arch/gdt.h"
#include "core/kernel.h"
#include "core/panic.h"
#include "core/arch/percpu.h"
#include "pmu/perf.h"
#include "pmu/events/hit.h"
#include "core/proc/sched.h"
#include "core/arch/trap.h"
#include "core/arch/percpu_table.h"

#define RFLAGS_IF (1ULL << 9)

struct bp_slot {
	struct perf_event *event;  /* the owner, NULL: free */
	bool stopped;              /* owned but not armed (stop()) */
	/* Copied from the owner's attr when loaded, for the #DB handler. */
	uint64_t addr;
	bool exec;                 /* instruction breakpoint: resume with RF */
	bool skip_user, skip_kernel;
};

struct bp_cpu {
	struct bp_slot slot[DR_NUM];
	uint64_t dr7;              /* our DR7: the armed slots' bits */
	/* Hits of each slot taken while this CPU held perf_lock, counted
	 * here lock-free and folded into the owner under perf_lock. */
	uint64_t deferred[DR_NUM];
	bool in_trap;              /* in the #DB handler: DR7 stays off */
};

PERCPU_TABLE(struct bp_cpu, bp_cpus);
static trap_handler next_debug_handler;  /* #DB's handler before ours */

static struct bp_cpu *this_bp_cpu(void)
{
	return &bp_cpus[this_cpu_id()];
}

/* ---- DR7 ---- */

static uint64_t dr7_len(uint64_t len)
{
	switch (len) {
	case 1: return DR7_LEN_1;
	case 2: return DR7_LEN_2;
	case 8: return DR7_LEN_8;
	default: return DR7_LEN_4;
	}
}

uint64_t bp_dr7_bits(int n, const struct perf_event_attr *a)
{
	uint64_t ctl;
	if (a->bp_type == HW_BREAKPOINT_X)
		ctl = DR7_RW_EXEC | DR7_LEN_1 << 2; /* LEN must be 0 for execute */
	else if (a->bp_type == HW_BREAKPOINT_W)
		ctl = DR7_RW_WRITE | dr7_len(a->bp_len) << 2;
	else
		ctl = DR7_RW_RDWR | dr7_len(a->bp_len) << 2;
	return ctl << DR7_CONTROL_SHIFT(n) | DR7_GLOBAL_ENABLE(n);
}

/* DR7 from the armed slots (GE as Linux sets it, only when one is). */
static void load_dr7(struct bp_cpu *bc)
{
	uint64_t v = 0;
	for (int n = 0; n < DR_NUM; n++)
		if (bc->slot[n].event && !bc->slot[n].stopped)
			v |= bp_dr7_bits(n, &bc->slot[n].event->attr);
	bc->dr7 = v;
	if (!bc->in_trap)
		write_dr7(v ? v | DR7_GE : 0);
}

/* Slot n takes its owner's current attr: the address into DRn. */
static void load_slot(struct bp_cpu *bc, int n)
{
	struct bp_slot *s = &bc->slot[n];
	const struct perf_event_attr *a = &s->event->attr;
	s->addr = a->bp_addr;
	s->exec = a->bp_type == HW_BREAKPOINT_X;
	s->skip_user = a->exclude_user;
	s->skip_kernel = a->exclude_kernel;
	write_dr_addr(n, s->addr);
}

/* ---- hits ---- */

/* Report slot n's deferred hits to its owner. Under perf_lock. */
static void fold_deferred(struct bp_cpu *bc, int n)
{
	uint64_t k = __atomic_exchange_n(&bc->deferred[n], 0, __ATOMIC_RELAXED);
	if (k && bc->slot[n].event) {
		struct perf_hit hit = { .addr = bc->slot[n].addr };
		perf_event_hit(bc->slot[n].event, k, &hit);
	}
}

/* May this #DB take perf_lock? Spinlocks are held with interrupts off,
 * so user code and kernel code with IF set hold none: waiting is safe.
 * Kernel code with IF clear may hold perf_lock itself: only try. */
static bool lock_for_hits(const struct trap_frame *f)
{
	if ((f->cs & 3) == 3 || (f->rflags & RFLAGS_IF)) {
		spin_lock(&perf_lock);
		return true;
	}
	return spin_trylock(&perf_lock);
}

static void report_hits(struct bp_cpu *bc, unsigned hits, struct trap_frame *f)
{
	bool user = (f->cs & 3) == 3;
	bool locked = lock_for_hits(f);
	for (int n = 0; n < DR_NUM; n++) {
		struct bp_slot *s = &bc->slot[n];
		if (!(hits >> n & 1))
			continue;
		if (s->exec)
			f->rflags |= RFLAGS_RF; /* the instruction runs on return */
		if (!s->event || (user ? s->skip_user : s->skip_kernel))
			continue;
		if (!locked) {
			__atomic_add_fetch(&bc->deferred[n], 1, __ATOMIC_RELAXED);
			continue;
		}
		fold_deferred(bc, n);
		struct perf_hit hit = { .regs = f, .addr = s->addr };
		perf_event_hit(s->event, 1, &hit);
	}
	if (!locked)
		return;
	spin_unlock(&perf_lock);
	/* Samples may owe pollers a wake-up: user mode gets it on return;
	 * kernel code with interrupts off may hold a queue lock, so the
	 * tick does it there. */
	if (!user && (f->rflags & RFLAGS_IF))
		perf_wakeup_pending();
}

static void pass_on(struct trap_frame *f)
{
	if (next_debug_handler)
		next_debug_handler(f);
	else
		panic_frame(f, "unhandled %s", trap_name(VEC_DEBUG));
}

/*
 * #DB. DR7 is off while we handle it (as Linux's local_db_save), so
 * nothing done here can fire a breakpoint again. DR6 says which armed
 * slots matched; they are ours. Anything else (single step, a stray
 * B bit, ICEBP) goes to the previous handler, as before this PMU: a
 * signal for user mode. DR6 is cleared for the next #DB either way.
 */
static void bp_debug_trap(struct trap_frame *f)
{
	write_dr7(0);
	struct bp_cpu *bc = this_bp_cpu();
	bc->in_trap = true;
	uint64_t dr6 = read_dr6();
	write_dr6(DR6_RESET);
	unsigned armed = 0;
	for (int n = 0; n < DR_NUM; n++)
		if (bc->dr7 & DR7_GLOBAL_ENABLE(n))
			armed |= 1u << n;
	unsigned hits = (unsigned)(dr6 & DR6_TRAP_BITS) & armed;
	if (hits)
		report_hits(bc, hits, f);
	if (!hits || (dr6 & (DR6_BD | DR6_BS | DR6_BT)))
		pass_on(f);
	bc->in_trap = false;
	write_dr7(bc->dr7 ? bc->dr7 | DR7_GE : 0);
}

/* ---- the PMU ---- */

static int bp_event_init(struct perf_event *e)
{
	const struct perf_event_attr *a = &e->attr;
	if (a->sample_type & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;
	/* Linux reserves the slot first and parses after: a full machine
	 * says ENOSPC even to a malformed breakpoint. */
	if (a->bp_type == HW_BREAKPOINT_EMPTY || a->bp_type == HW_BREAKPOINT_INVALID)
		return -EINVAL;
	int r = bp_reserve(e);
	return r ? r : bp_parse(a);
}

static int bp_add(struct perf_event *e, uint64_t now)
{
	(void)now;
	struct bp_cpu *bc = this_bp_cpu();
	for (int n = 0; n < DR_NUM; n++) {
		if (bc->slot[n].event)
			continue;
		bc->slot[n].event = e;
		bc->slot[n].stopped = false;
		bc->deferred[n] = 0;
		e->hw.idx = n;
		load_slot(bc, n);
		load_dr7(bc);
		return 0;
	}
	return -EBUSY; /* only after racing opens: see slots.c */
}

static void bp_del(struct perf_event *e, uint64_t now)
{
	(void)now;
	struct bp_cpu *bc = this_bp_cpu();
	int n = e->hw.idx;
	if (n < 0)
		return;
	bc->slot[n].stopped = true;
	load_dr7(bc);
	fold_deferred(bc, n);
	bc->slot[n].event = NULL;
	e->hw.idx = -1;
}

static void bp_stop(struct perf_event *e, uint64_t now)
{
	(void)now;
	struct bp_cpu *bc = this_bp_cpu();
	if (e->hw.idx < 0)
		return;
	bc->slot[e->hw.idx].stopped = true;
	load_dr7(bc);
	fold_deferred(bc, e->hw.idx);
}

static void bp_start(struct perf_event *e, uint64_t now)
{
	(void)now;
	struct bp_cpu *bc = this_bp_cpu();
	if (e->hw.idx < 0)
		return;
	bc->slot[e->hw.idx].stopped = false;
	load_dr7(bc);
}

/* Hits are added to the count as they happen (perf_event_hit). */
static uint64_t bp_read(struct perf_event *e, uint64_t now)
{
	(void)now;
	return e->count;
}

struct pmu perf_bp_pmu = {
	.name = "breakpoint",
	.event_init = bp_event_init,
	.add = bp_add,
	.del = bp_del,
	.start = bp_start,
	.stop = bp_stop,
	.read = bp_read,
};

/* This CPU's slots reload their owners' attrs. */
static void reload_here(void *arg)
{
	(void)arg;
	struct bp_cpu *bc = this_bp_cpu();
	spin_lock(&perf_lock);
	for (int n = 0; n < DR_NUM; n++)
		if (bc->slot[n].event)
			load_slot(bc, n);
	load_dr7(bc);
	spin_unlock(&perf_lock);
}

void bp_reload_all(void)
{
	for_each_cpu(c, sched_online_mask())
		perf_xcall(c, reload_here, NULL);
}

static bool overlaps(uint64_t start, uint64_t end, const void *p, uint64_t size)
{
	return start < (uint64_t)p + size && end > (uint64_t)p;
}

extern const char __kernel_start[], __kernel_end[];

/*
 * Kernel data no breakpoint may watch. Outside the kernel image lie the
 * kernel stacks, which an entry from user mode writes before it has
 * swapped to the kernel's GS, and the heap; inside it, the per-CPU areas
 * (read on every entry), the GDTs, TSSs, interrupt stacks and the IDT
 * (read by the CPU delivering #DB), the trap tables and this PMU's slots
 * (touched by the #DB path before it turns DR7 off).
 */
bool bp_unsafe_range(uint64_t start, uint64_t end)
{
	if (end <= start || start < (uint64_t)__kernel_start ||
	    end > (uint64_t)__kernel_end)
		return true;
	return overlaps(start, end, percpu_area, sizeof(percpu_area)) ||
	       overlaps(start, end, bp_cpus, sizeof(*bp_cpus) * percpu_slots()) ||
	       gdt_overlaps(start, end) || trap_tables_overlap(start, end);
}

void perf_bp_pmu_init(void)
{
	next_debug_handler = trap_get_handler(VEC_DEBUG);
	trap_set_handler(VEC_DEBUG, bp_debug_trap);
	perf_pmu_register(&perf_bp_pmu, PERF_TYPE_BREAKPOINT);
}

/*
 * Putting events on a CPU's counters: the two contexts of a CPU (its CPU
 * events and the running task's events), groups as units, priorities,
 * multiplexing by rotation, and the scheduler hooks.
 *
 * Priority order of a pass: CPU pinned, task pinned, CPU flexible, task
 * flexible; within a context, list order, which is creation order
 * rotated. A group goes on whole or not at all. Software groups always
 * fit. The first flexible group with scarce (hardware) counters that
 * does not fit ends hardware scheduling for the pass (later hardware
 * groups wait too, as on Linux); a pinned group that does not fit goes
 * to EVENT_ERROR until re-enabled.
 *
 * Rotation: while a flexible group waits, the CPU's tick moves the
 * first flexible group of each context that had one waiting to the end
 * of its list every mux interval (the waiting group's PMU's
 * perf_event_mux_interval_ms, rounded up to the 10 ms tick), so every
 * group runs in turn: round robin in creation order. The tick keeps
 * running for this, on idle and isolated CPUs too.
 *
 * Switches: a task's software groups go on and off in one walk of its
 * context (task_ctx_in_soft, task_ctx_out): they always fit and their
 * place in the order changes nothing, so the priority passes run at a
 * switch-in only for a context with scarce groups or when a CPU group
 * waits (rotate_cpu). Times stay exact: the switch-out stops every
 * event at one instant, and the switch-in starts next's at the same
 * one (perf_cpu.switch_ns).
 *
 * Locking: everything here runs under perf_lock on the CPU it programs.
 * task->perf_cpu is the exception: its CPU writes it at switch-in
 * (before looking at the task's event list) and switch-out, without
 * the lock; perf_ctx_call adds to a list before reading it. That
 * store-then-load pairing guarantees that a new event is seen either by
 * the switch-in or by perf_ctx_call's resync.
 */
#include "pmu/vpmu/vpmu.h"
#include "pmu/x86/rdpmc.h"
#include "event.h"
#include "core/kernel.h"
#include "core/arch/percpu.h"
#include "pmu/perf.h"
#include "pmu/records/records.h"
#include "core/proc/sched.h"
#include "core/proc/task.h"
#include "hit.h"
#include "pmu/sw/sw.h"
#include "throttle.h"
#include "core/arch/tsc.h"
#include "core/arch/percpu_table.h"

#define TICK_NS 10000000ULL

struct perf_cpu {
	struct list events;       /* CPU events' leaders, rotated */
	struct task *task;        /* task switched in here (own CPU only) */
	struct task *switched_from; /* prev, from perf_sched_out to _in */
	uint64_t switch_ns;       /* perf_sched_out's instant for _in, or 0 */
	int scarce_on;            /* groups on scarce counters */
	bool exclusive;           /* an exclusive group holds them */
	bool scarce_full;         /* this pass: a flexible group waited */
	bool rotate_cpu, rotate_task; /* a flexible group of that context waits */
	uint64_t mux_ns, next_rotate;
};

PERCPU_TABLE(struct perf_cpu, cpus);
static bool ready;  /* the lists exist: the tick may look at them */

void perf_sched_init(void)
{
	for (unsigned c = 0; c < percpu_slots(); c++)
		list_init(&cpus[c].events);
	__atomic_store_n(&ready, true, __ATOMIC_RELEASE);
}

struct list *perf_cpu_events(unsigned cpu)
{
	return &cpus[cpu].events;
}

int event_ctx_cpu(const struct perf_event *e)
{
	if (!e->task)
		return e->cpu;
	if (e->task_exited)
		return -1;
	return __atomic_load_n(&e->task->perf_cpu, __ATOMIC_SEQ_CST);
}

/* ---- one event, one group ---- */

static inline void update_times(struct perf_event *e, uint64_t now)
{
	if (!e->tstamp) { /* just attached: its times start now */
		e->tstamp = now;
		return;
	}
	if (now <= e->tstamp)
		return; /* another CPU's clock, a little behind: no time passed */
	uint64_t delta = now - e->tstamp;
	e->tstamp = now;
	/* A member of a disabled (or failed) group is as off as its leader,
	 * as Linux's effective state. */
	int state = e->leader->state <= EVENT_OFF ? e->leader->state : e->state;
	if (state >= EVENT_INACTIVE && (!e->task || e->task->perf_ctx_in))
		e->enabled_ns += delta;
	if (state == EVENT_ACTIVE)
		e->running_ns += delta;
}

void event_update(struct perf_event *e, uint64_t now)
{
	update_times(e, now);
}

/* e may count here: its CPU, and one its PMU counts on (hybrid). */
static bool cpu_matches(const struct perf_event *e)
{
	unsigned cpu = this_cpu_id();
	if (e->pmu->filter && e->pmu->filter(e->pmu, cpu))
		return false;
	return e->cpu < 0 || (unsigned)e->cpu == cpu;
}

static bool group_scarce(struct perf_event *l)
{
	if (l->pmu->scarce)
		return true;
	list_for_each(n, &l->siblings)
		if (list_entry(n, struct perf_event, sibling_node)->pmu->scarce)
			return true;
	return false;
}

/* e onto this CPU's counters, its times already brought up to now. */
static int event_start_here(struct perf_event *e, uint64_t now)
{
	perf_throttle_sched_in(e); /* throttled while away: runs again */
	if (e->pmu->add(e, now))
		return -1;
	e->state = EVENT_ACTIVE;
	e->oncpu = (int)this_cpu_id();
	if (e->rb)
		perf_event_update_userpage(e, now);
	return 0;
}

static int event_on(struct perf_event *e, uint64_t now)
{
	event_update(e, now);
	return event_start_here(e, now);
}

static void event_off(struct perf_event *e, uint64_t now)
{
	event_update(e, now);
	if (e->state != EVENT_ACTIVE)
		return;
	e->pmu->del(e, now);
	e->state = EVENT_INACTIVE;
	e->oncpu = -1;
	if (e->rb)
		perf_event_update_userpage(e, now);
}

static void members_off(struct perf_event *l, uint64_t now)
{
	event_off(l, now);
	list_for_each(n, &l->siblings)
		event_off(list_entry(n, struct perf_event, sibling_node), now);
}

static void group_off(struct perf_cpu *pc, struct perf_event *l, uint64_t now)
{
	bool was_on = l->state == EVENT_ACTIVE;
	members_off(l, now);
	if (was_on && group_scarce(l)) {
		pc->scarce_on--;
		if (l->attr.exclusive)
			pc->exclusive = false;
	}
}

/* All of l's enabled members on the counters, or none. */
static int group_on(struct perf_cpu *pc, struct perf_event *l, uint64_t now)
{
	bool scarce = group_scarce(l);
	if (scarce && (pc->exclusive || (l->attr.exclusive && pc->scarce_on)))
		return -1;
	if (event_on(l, now))
		return -1;
	list_for_each(n, &l->siblings) {
		struct perf_event *s = list_entry(n, struct perf_event, sibling_node);
		if (s->state != EVENT_INACTIVE || !cpu_matches(s))
			continue;
		if (event_on(s, now)) {
			members_off(l, now);
			return -1;
		}
	}
	if (scarce) {
		pc->scarce_on++;
		if (l->attr.exclusive)
			pc->exclusive = true;
	}
	return 0;
}

/* Take e off this CPU's counters now, a leader with its group. */
void perf_event_off_here(struct perf_event *e, uint64_t now)
{
	if (e->leader == e)
		group_off(&cpus[this_cpu_id()], e, now);
	else
		event_off(e, now);
}

/* A software group that has just become able to count (enabled, or new)
 * goes on this CPU's counters without a pass over the other groups:
 * software events always have room, so no other group's place changes.
 * Under perf_lock, with l's context on this CPU's counters. */
void perf_soft_group_on_here(struct perf_event *l, uint64_t now)
{
	if (l->state == EVENT_INACTIVE && cpu_matches(l) && !group_scarce(l))
		group_on(&cpus[this_cpu_id()], l, now);
}

/* ---- contexts ---- */

static void group_update(struct perf_event *l, uint64_t now)
{
	update_times(l, now);
	list_for_each(m, &l->siblings)
		update_times(list_entry(m, struct perf_event, sibling_node), now);
}

static void update_all(struct list *ctx, uint64_t now)
{
	list_for_each(n, ctx)
		group_update(list_entry(n, struct perf_event, ctx_node), now);
}

static void ctx_out(struct perf_cpu *pc, struct list *ctx, bool flexible_only,
		    uint64_t now)
{
	list_for_each(n, ctx) {
		struct perf_event *l = list_entry(n, struct perf_event, ctx_node);
		if (!(flexible_only && l->attr.pinned))
			group_off(pc, l, now);
	}
}

/* One pass over one context for pinned or flexible groups. Returns
 * whether a flexible group had to wait. */
static bool ctx_in(struct perf_cpu *pc, struct list *ctx, bool pinned,
		   uint64_t now)
{
	bool waited = false;
	list_for_each(n, ctx) {
		struct perf_event *l = list_entry(n, struct perf_event, ctx_node);
		if (!l->attr.pinned != !pinned || l->state != EVENT_INACTIVE ||
		    !cpu_matches(l))
			continue;
		if (!pinned && pc->scarce_full && group_scarce(l)) {
			waited = true;
			continue;
		}
		if (!group_on(pc, l, now))
			continue;
		if (pinned) {
			event_update(l, now);
			l->state = EVENT_ERROR;
			continue;
		}
		waited = pc->scarce_full = true;
		pc->mux_ns = (uint64_t)l->pmu->mux_interval_ms * 1000000ULL;
	}
	return waited;
}

static struct list *task_ctx(struct perf_cpu *pc)
{
	return pc->task && pc->task->perf_ctx_in ? &pc->task->perf_events : NULL;
}

/* Ask the scheduler for the tick that drives rotation (it may have
 * stopped it on an idle or isolated CPU). */
static void rotation_started(struct perf_cpu *pc, uint64_t now)
{
	pc->next_rotate = now + (pc->mux_ns > TICK_NS ? pc->mux_ns : TICK_NS);
	sched_want_tick();
}

void perf_cpu_sched_in(uint64_t now)
{
	struct perf_cpu *pc = &cpus[this_cpu_id()];
	bool was_rotating = pc->rotate_cpu || pc->rotate_task;
	if (pc->task && !pc->task->perf_ctx_in) {
		update_all(&pc->task->perf_events, now); /* the time away */
		pc->task->perf_ctx_in = true;
	}
	struct list *tctx = task_ctx(pc);
	pc->scarce_full = false;
	ctx_in(pc, &pc->events, true, now);
	if (tctx)
		ctx_in(pc, tctx, true, now);
	pc->rotate_cpu = ctx_in(pc, &pc->events, false, now);
	pc->rotate_task = tctx && ctx_in(pc, tctx, false, now);
	if ((pc->rotate_cpu || pc->rotate_task) && !was_rotating)
		rotation_started(pc, now);
}

void perf_cpu_sched_out(uint64_t now)
{
	struct perf_cpu *pc = &cpus[this_cpu_id()];
	ctx_out(pc, &pc->events, false, now);
	struct list *tctx = task_ctx(pc);
	if (tctx)
		ctx_out(pc, tctx, false, now);
}

/* ---- a task context's switch-in, software groups first ---- */

/* Every member of l's group is a software event: the group never waits
 * for a counter (its place in the priority order changes no other
 * group's) and its members' add() cannot fail. */
static bool group_soft(struct perf_event *l)
{
	if (l->pmu != &perf_sw_pmu)
		return false;
	list_for_each(n, &l->siblings)
		if (list_entry(n, struct perf_event, sibling_node)->pmu != &perf_sw_pmu)
			return false;
	return true;
}

/* event_off for a software event. */
static inline void soft_event_stop(struct perf_event *e, uint64_t now)
{
	update_times(e, now);
	if (e->state != EVENT_ACTIVE)
		return;
	perf_sw_stop(e, now);
	e->state = EVENT_INACTIVE;
	e->oncpu = -1;
	if (e->rb)
		perf_event_update_userpage(e, now);
}

static inline bool soft_matches(const struct perf_event *e, int cpu)
{
	return e->cpu < 0 || e->cpu == cpu; /* the software PMU has no filter */
}

/* A task event as its context comes in: the time away is nobody's.
 * (update_times with the context out adds nothing - no event of it is
 * ACTIVE, and enabled time needs the context in - it only moves the
 * stamp.) */
static inline void skip_time_away(struct perf_event *e, uint64_t now)
{
	if (now > e->tstamp)
		e->tstamp = now;
}

/* A software group as its context comes in: every member's time away
 * skipped, and group_on: the leader and its enabled members for this
 * CPU on the counters. */
static void soft_group_in(struct perf_event *l, uint64_t now, int cpu)
{
	bool on = l->state == EVENT_INACTIVE && soft_matches(l, cpu);
	skip_time_away(l, now);
	if (on)
		perf_sw_event_start(l, now, cpu);
	list_for_each(n, &l->siblings) {
		struct perf_event *s = list_entry(n, struct perf_event, sibling_node);
		skip_time_away(s, now);
		if (on && s->state == EVENT_INACTIVE && soft_matches(s, cpu))
			perf_sw_event_start(s, now, cpu);
	}
}

static void soft_group_stop(struct perf_event *l, uint64_t now)
{
	soft_event_stop(l, now);
	list_for_each(n, &l->siblings)
		soft_event_stop(list_entry(n, struct perf_event, sibling_node), now);
}

/*
 * t's context comes in at now (it was out: its time away is nobody's),
 * in one walk: every group's times skip the time away, and each
 * software group goes on the counters at once. Returns whether a group
 * with scarce members is left for the priority passes
 * (perf_cpu_sched_in), which skip the groups already on.
 */
static bool task_ctx_in_soft(struct task *t, uint64_t now)
{
	int cpu = (int)this_cpu_id();
	bool scarce = false;
	list_for_each(n, &t->perf_events) {
		struct perf_event *l = list_entry(n, struct perf_event, ctx_node);
		if (group_soft(l)) {
			soft_group_in(l, now, cpu);
		} else {
			group_update(l, now); /* the time away */
			scarce = true;
		}
	}
	t->perf_ctx_in = true;
	return scarce;
}

/* t's context leaves this CPU's counters at now: ctx_out, with software
 * groups stopped without the scarce bookkeeping they never take part in. */
static void task_ctx_out(struct perf_cpu *pc, struct task *t, uint64_t now)
{
	list_for_each(n, &t->perf_events) {
		struct perf_event *l = list_entry(n, struct perf_event, ctx_node);
		if (group_soft(l))
			soft_group_stop(l, now);
		else
			group_off(pc, l, now);
	}
	t->perf_ctx_in = false;
}

/* ---- rotation ---- */

/* Move the first flexible group to the end: round robin. */
static void rotate_list(struct list *ctx)
{
	list_for_each(n, ctx) {
		if (list_entry(n, struct perf_event, ctx_node)->attr.pinned)
			continue;
		list_remove(n);
		list_add_tail(n, ctx);
		return;
	}
}

bool perf_wants_tick(unsigned cpu)
{
	return cpus[cpu].rotate_cpu || cpus[cpu].rotate_task || perf_throttle_wants_tick(cpu);
}

/* Rotate this CPU's waiting contexts now. Under perf_lock. */
void perf_rotate(uint64_t now)
{
	struct perf_cpu *pc = &cpus[this_cpu_id()];
	struct list *tctx = task_ctx(pc);
	ctx_out(pc, &pc->events, true, now);
	if (tctx)
		ctx_out(pc, tctx, true, now);
	if (pc->rotate_cpu)
		rotate_list(&pc->events);
	if (pc->rotate_task && tctx)
		rotate_list(tctx);
	perf_cpu_sched_in(now);
	pc->next_rotate = now + (pc->mux_ns > TICK_NS ? pc->mux_ns : TICK_NS);
}

void perf_tick(struct trap_frame *f)
{
	struct perf_cpu *pc = &cpus[this_cpu_id()];
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		return; /* ticks start before perf_init */
	(void)f;
	perf_throttle_tick();
	perf_wakeup_pending();
	if (!pc->rotate_cpu && !pc->rotate_task)
		return;
	uint64_t now = time_since_boot_ns();
	if (now < pc->next_rotate)
		return;
	spin_lock(&perf_lock);
	perf_rotate(now);
	spin_unlock(&perf_lock);
}

/* ---- the scheduler's hooks (rq lock held, interrupts off) ---- */

void perf_sched_out(struct task *prev, struct task *next)
{
	struct perf_cpu *pc = &cpus[this_cpu_id()];
	pc->switched_from = prev;
	if (!list_empty(&prev->perf_events) || !list_empty(&pc->events)) {
		perf_record_switch(prev, next, false); /* records/context_switch.c */
		uint64_t now = pc->switch_ns = time_since_boot_ns();
		spin_lock(&perf_lock);
		/* Count the switch while prev's events still count. The
		 * idle task's switches are not context switches. */
		if (prev->tid)
			perf_sw_event_locked(prev, PERF_COUNT_SW_CONTEXT_SWITCHES, 1,
					     PERF_SW_KERNEL);
		if (prev->perf_ctx_in)
			task_ctx_out(pc, prev, now);
		spin_unlock(&perf_lock);
	}
	pc->task = NULL;
	__atomic_store_n(&prev->perf_cpu, -1, __ATOMIC_SEQ_CST);
}

void perf_sched_in(struct task *next)
{
	unsigned cpu = this_cpu_id();
	struct perf_cpu *pc = &cpus[cpu];
	bool migrated = next->perf_last_cpu >= 0 && next->perf_last_cpu != (int)cpu &&
			next->tid;
	next->perf_last_cpu = (int)cpu;
	pc->task = next;
	perf_rdpmc_sched_in(next); /* CR4.PCE */
	vpmu_tsc_sched_in(next);   /* CR4.TSD: its RDTSC leaves the model out */
	vpmu_hook(VPMU_KERNEL);    /* the model's own interrupt ends here */
	__atomic_store_n(&next->perf_cpu, (int)cpu, __ATOMIC_SEQ_CST);
	if (!list_empty(&next->perf_events) || pc->rotate_cpu) {
		/* next's events start at the instant prev's stopped: the
		 * switch between is nobody's time either way. */
		uint64_t now = pc->switch_ns ? pc->switch_ns : time_since_boot_ns();
		spin_lock(&perf_lock);
		/* Software groups need no pass: the CPU's groups stay as they
		 * are unless one waits for counters or next brings scarce
		 * ones. */
		if (pc->rotate_cpu || next->perf_ctx_in || task_ctx_in_soft(next, now)) {
			/* Task pinned groups come before CPU flexible ones. */
			ctx_out(pc, &pc->events, true, now);
			perf_cpu_sched_in(now);
		} else {
			pc->rotate_task = false; /* none of next's groups waits */
		}
		spin_unlock(&perf_lock);
	}
	if (migrated)
		perf_sw_event(PERF_COUNT_SW_CPU_MIGRATIONS, 1, PERF_SW_KERNEL);
	if (pc->switched_from)
		perf_record_switch(pc->switched_from, next, true); /* records/context_switch.c */
	pc->switched_from = NULL;
	pc->switch_ns = 0;
}

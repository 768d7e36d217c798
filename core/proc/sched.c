/*
 * Per-CPU round-robin scheduler. See sched.h for the locking rules.
 * Idle tasks never sit on a run queue: a CPU runs its idle task when its
 * queue is empty.
 */
#include <string.h>
#include "core/arch/apic.h"
#include "core/cmdline.h"
#include "core/arch/hrtimer.h"
#include "core/kernel.h"
#include "core/arch/percpu.h"
#include "sched.h"
#include "core/spinlock.h"
#include "tasks.h"
#include "core/arch/switch.h"
#include "pmu/perf.h"
#include "cputime.h"
#include "process.h"
#include "core/arch/tsc.h"
#include "timekeeping.h"
#include "userret.h"
#include "core/arch/x86.h"
#include "core/arch/percpu_table.h"

struct runqueue {
	struct spinlock lock;
	struct list queue;      /* runnable tasks, not including curr */
	unsigned nr_queued;
	struct task *curr;
	struct task *idle;
	bool need_resched;
	struct task *migrating; /* switched out, to be queued elsewhere */
	struct task *prev;      /* the task the last switch left */
	bool tick_stopped;      /* no tick wanted: its timer is not armed */
	struct hrtimer tick;    /* the scheduler tick, every TICK_NS */
};

PERCPU_TABLE(struct runqueue, rqs);
static uint64_t tick_tsc;       /* TICK_NS in TSC cycles */
static struct cpumask online_mask;   /* bits set atomically as CPUs come up */
static struct cpumask isolated_mask; /* set once by smp_init */

static struct runqueue *rq_of(unsigned cpu) { return &rqs[cpu]; }

/*
 * A test aid (sched_handoff_spin=N on the command line, docs/cmdline.md):
 * spin N loops after handing a task to another CPU, so that the task
 * can run, exit and be freed there while this CPU is still on its way
 * out of the hand-off; code that touched the task after it then fails
 * at once instead of once in many runs (tests/abi/migrexit.c). Read on
 * the boot CPU before the others start; 0, the default, spins none.
 */
static uint64_t handoff_spin;

static void handoff_spin_init(void)
{
	handoff_spin = cmdline_get_u64("sched_handoff_spin", 0);
}

static void handoff_spin_wait(void)
{
	for (volatile uint64_t i = 0; i < handoff_spin; i++)
		;
}

const struct cpumask *sched_online_mask(void) { return &online_mask; }
bool sched_cpu_online(unsigned cpu) { return cpumask_test(&online_mask, cpu); }
bool sched_cpu_isolated(unsigned cpu) { return cpumask_test(&isolated_mask, cpu); }
void sched_set_isolated(const struct cpumask *mask) { isolated_mask = *mask; }

void sched_set_cpu_online(unsigned cpu)
{
	cpumask_set_atomic(&online_mask, cpu);
}

unsigned sched_nr_running(unsigned cpu)
{
	struct runqueue *rq = rq_of(cpu);
	return rq->nr_queued + (rq->curr && rq->curr != rq->idle);
}

static void ipi_resched(struct trap_frame *f)
{
	(void)f;
	apic_eoi();
	rq_of(this_cpu_id())->need_resched = true;
}

/* The interrupt alone is the point: its return to user delivers what
 * is pending (userret.c). */
static void ipi_kick(struct trap_frame *f)
{
	(void)f;
	apic_eoi();
}

void sched_init_cpu(struct task *idle)
{
	trap_set_handler(VEC_IPI_RESCHED, ipi_resched);
	trap_set_handler(VEC_IPI_KICK, ipi_kick);
	struct runqueue *rq = rq_of(this_cpu_id());
	if (this_cpu_id() == 0)
		handoff_spin_init();
	rq->lock = (struct spinlock)SPINLOCK_INIT("rq");
	list_init(&rq->queue);
	rq->idle = rq->curr = idle;
	idle->state = TASK_RUNNABLE;
	idle->on_cpu = (int)this_cpu_id();
	this_cpu()->running = idle;
	sched_set_cpu_online(this_cpu_id());
}

/* Caller holds rq->lock. */
static void enqueue(struct runqueue *rq, struct task *t)
{
	list_add_tail(&t->run_node, &rq->queue);
	rq->nr_queued++;
}

/*
 * The CPU a task should start or wake on: its current one if allowed,
 * else the allowed online CPU with the fewest runnable tasks; isolated
 * CPUs are chosen only by tasks whose affinity names nothing else.
 */
static unsigned pick_cpu(struct task *t)
{
	struct cpumask allowed, general;
	if (!cpumask_and(&allowed, &t->affinity, &online_mask))
		allowed = online_mask;
	cpumask_andnot(&general, &allowed, &isolated_mask);
	if (!cpumask_empty(&general))
		allowed = general;
	if (t->on_cpu >= 0 && cpumask_test(&allowed, (unsigned)t->on_cpu))
		return (unsigned)t->on_cpu;
	unsigned best = 0, best_load = ~0u;
	for_each_cpu(c, &allowed) {
		unsigned load = sched_nr_running(c);
		if (load < best_load)
			best = c, best_load = load;
	}
	return best;
}

/* Ask `cpu` to look at its queue (it may be idle in hlt). */
static void kick_cpu(unsigned cpu)
{
	if (cpu != this_cpu_id())
		apic_send_ipi(percpu_area[cpu].apic_id, VEC_IPI_RESCHED);
}

void sched_start(struct task *t)
{
	unsigned cpu = pick_cpu(t);
	struct runqueue *rq = rq_of(cpu);
	uint64_t f = spin_lock_irqsave(&rq->lock);
	t->on_cpu = (int)cpu;
	t->state = TASK_RUNNABLE;
	enqueue(rq, t);
	if (rq->curr == rq->idle)
		rq->need_resched = true;
	spin_unlock_irqrestore(&rq->lock, f);
	kick_cpu(cpu);
}

void sched_wake(struct task *t)
{
	int on = __atomic_load_n(&t->on_cpu, __ATOMIC_RELAXED);
	if (on < 0)
		return; /* a new task not started yet: sched_start queues it */
	/* The CPU whose queue we use is the one kicked: once the lock is
	 * dropped t may run, exit and be freed, so it is not read again. */
	unsigned cpu = (unsigned)on;
	struct runqueue *rq = rq_of(cpu);
	uint64_t f = spin_lock_irqsave(&rq->lock);
	if (t->state == TASK_SLEEPING || t->state == TASK_SLEEPING_UNINT) {
		t->state = TASK_RUNNABLE;
		trace_sched_wakeup(t);
		/* A task still running (it has not reached schedule yet)
		 * just keeps going; otherwise it goes back on the queue. */
		if (rq->curr != t)
			enqueue(rq, t);
		if (rq->curr == rq->idle)
			rq->need_resched = true;
	}
	spin_unlock_irqrestore(&rq->lock, f);
	kick_cpu(cpu);
}

void sched_kick_running(struct task *t)
{
	int cpu = __atomic_load_n(&t->on_cpu, __ATOMIC_ACQUIRE);
	if (cpu < 0 || (unsigned)cpu == this_cpu_id() || rq_of((unsigned)cpu)->curr != t)
		return;
	apic_send_ipi(percpu_area[cpu].apic_id, VEC_IPI_KICK);
}

static struct task *pick_next(struct runqueue *rq)
{
	if (list_empty(&rq->queue))
		return rq->idle;
	struct list *n = rq->queue.next;
	list_remove(n);
	rq->nr_queued--;
	return list_entry(n, struct task, run_node);
}

/*
 * When a CPU needs no tick:
 *  - an isolated CPU running one task (or none): nothing to slice;
 *  - any CPU with nothing to run, once idle ticks are allowed (user space
 *    runs with console input on its interrupt). Timed sleeps and interval
 *    timers have hrtimers of their own (timers.c).
 * Whoever queues a task or a timer kicks the CPU (IPI), which comes back
 * here through schedule(). Caller holds rq->lock.
 */
static bool idle_tickless;

void sched_allow_tickless_idle(void)
{
	idle_tickless = true;
}

static bool tick_needed(struct runqueue *rq, struct task *next)
{
	unsigned cpu = this_cpu_id();
	if (rq->nr_queued > 0 || perf_wants_tick(cpu) || cputime_wants_tick(next))
		return true;
	if (next == rq->idle)
		return !idle_tickless;
	return !sched_cpu_isolated(cpu);
}

static void tick_update(struct runqueue *rq, struct task *next)
{
	bool stop = !tick_needed(rq, next);
	if (stop && !rq->tick_stopped) {
		hrtimer_cancel(&rq->tick);
		rq->tick_stopped = true;
	} else if (!stop && rq->tick_stopped) {
		hrtimer_start(&rq->tick, rdtsc() + tick_tsc);
		rq->tick_stopped = false;
	}
}

static void enqueue_remote(struct task *t, unsigned cpu);

/* The second half of a switch, run by the task switched to: release the
 * queue, and hand a migrating predecessor to its new CPU now that its
 * stack is no longer in use.
 *
 * A migrating task is prev itself, runnable. Once enqueue_remote has
 * queued it, it is no longer ours: its new CPU may run it, it may exit
 * and its parent reap and free it before we get past enqueue_remote. So
 * prev is not touched after the hand-off (reading its state there once
 * found the TASK_DEAD that reap sets and freed the task a second time). */
static void sched_finish(struct runqueue *rq)
{
	struct task *m = rq->migrating, *prev = rq->prev;
	rq->migrating = 0;
	rq->prev = 0;
	spin_unlock(&rq->lock);
	if (m) {
		enqueue_remote(m, (unsigned)m->migrate_to);
		return;
	}
	if (!prev)
		return;
	/* Read once: a parent may reap (and free) a zombie as soon as
	 * switched_out is set. */
	int state = prev->state;
	if (state == TASK_ZOMBIE) {
		process_zombie_switched_out(prev); /* sets switched_out */
	} else if (state == TASK_DEAD) {
		task_free(prev);
	}
}

void task_first_run(void)
{
	sched_finish(rq_of(this_cpu_id()));
	if (current->mm && ptrace_traced(current)) {
		/* A traced child stops before its first instruction. */
		irq_enable();
		return_to_user(current->frame); /* returns with interrupts off */
		return;
	}
	if (current->mm)
		vpmu_hook_user_exit(current->frame); /* a new user task leaves for user mode */
	irq_enable();
}

/* CPU time (userret.c charges kernel time from entry to the return to
 * user mode): prev's kernel time ends here and next's resumes now, so
 * the time a task spends switched out, asleep in a system call or
 * waiting for a CPU, is nobody's. acct_tsc 0: a task not accounted. */
static void account_switch(struct task *prev, struct task *next)
{
	if (prev->acct_tsc)
		account_span(prev, &prev->stime_tsc);
	if (next->acct_tsc)
		next->acct_tsc = rdtsc();
}

void schedule(void)
{
	uint64_t flags = irq_save();
	struct runqueue *rq = rq_of(this_cpu_id());
	spin_lock(&rq->lock);
	struct task *prev = rq->curr;
	rq->need_resched = false;
	/* A task whose sleep timer is armed here moves only once it has
	 * cancelled it (timers.c). */
	if (prev->migrate_to >= 0 && prev->state == TASK_RUNNABLE && !prev->sleep_timer)
		rq->migrating = prev;
	else if (prev != rq->idle && prev->state == TASK_RUNNABLE)
		enqueue(rq, prev);
	struct task *next = pick_next(rq);
	tick_update(rq, next);
	if (next == prev) {
		rq->migrating = 0;
		spin_unlock(&rq->lock);
		irq_restore(flags);
		return;
	}
	if (prev->state == TASK_RUNNABLE)
		prev->nivcsw++;
	else
		prev->nvcsw++;
	account_switch(prev, next);
	trace_sched_switch(prev, next); /* while prev's events still count */
	perf_sched_out(prev, next);
	rq->curr = next;
	rq->prev = prev;
	next->slice_end_tick = this_cpu()->ticks + SLICE_TICKS;
	this_cpu()->running = next;
	this_cpu()->kernel_rsp = next->kstack + KSTACK_SIZE;
	perf_sched_in(next);
	task_switch_user_state(prev, next);
	context_switch(&prev->ksp, next->ksp);
	/* Back in prev, possibly much later and on the same CPU. */
	sched_finish(rq_of(this_cpu_id()));
	irq_restore(flags);
}

/*
 * The tick: an hrtimer on each CPU that re-arms itself TICK_NS after its
 * previous expiry (skipping whole ticks it was late for), unless
 * tick_update stopped it meanwhile. Other timers (perf's clock events)
 * fire between ticks, or without any tick at all on a tickless CPU.
 */
static void tick_fn(struct hrtimer *t, struct trap_frame *f)
{
	struct runqueue *rq = rq_of(this_cpu_id());
	this_cpu()->ticks++;
	if (this_cpu()->running) {
		sched_tick();
		cputime_tick(this_cpu()->running);
		perf_tick(f);
		if (this_cpu_id() == 0)
			timers_tick();
	}
	if (rq->tick_stopped || hrtimer_queued(t))
		return; /* stopped, or restarted by tick_update */
	uint64_t next = t->expires + tick_tsc, now = rdtsc();
	if (next <= now)
		next += ((now - next) / tick_tsc + 1) * tick_tsc;
	hrtimer_start(t, next);
}

void sched_tick_start(void)
{
	struct runqueue *rq = rq_of(this_cpu_id());
	hrtimer_init_cpu();
	if (!tick_tsc)
		tick_tsc = hrtimer_ns_to_tsc(TICK_NS);
	hrtimer_init(&rq->tick, tick_fn);
	rq->tick_stopped = false;
	hrtimer_start(&rq->tick, rdtsc() + tick_tsc);
}

/*
 * perf rotation needs this CPU's tick: if it is stopped, the next
 * schedule() starts it. A tick already running needs nothing: asking
 * for a reschedule anyway livelocked a task that set rotation going at
 * every switch-in (its own groups waiting for counters) beside a task
 * spinning on the same CPU: it yielded on its way back to user mode
 * each time it came in, and never got there. Called on this CPU with
 * interrupts off (from schedule(), with rq->lock held).
 */
void sched_want_tick(void)
{
	struct runqueue *rq = rq_of(this_cpu_id());
	if (rq->tick_stopped)
		rq->need_resched = true;
}

void sched_tick_recheck(void)
{
	uint64_t f = irq_save();
	struct runqueue *rq = rq_of(this_cpu_id());
	spin_lock(&rq->lock);
	tick_update(rq, rq->curr);
	spin_unlock(&rq->lock);
	irq_restore(f);
}

void sched_tick(void)
{
	struct runqueue *rq = rq_of(this_cpu_id());
	spin_lock(&rq->lock);
	struct task *t = rq->curr;
	/* The other tasks left this isolated CPU: the tick can stop now. */
	tick_update(rq, t);
	if (t == rq->idle ? rq->nr_queued > 0
			  : (rq->nr_queued > 0 && this_cpu()->ticks >= t->slice_end_tick))
		rq->need_resched = true;
	spin_unlock(&rq->lock);
}

void sched_preempt_point(void)
{
	if (rq_of(this_cpu_id())->need_resched)
		schedule();
}

bool sched_need_resched(void)
{
	return rq_of(this_cpu_id())->need_resched;
}

void sched_yield_now(void)
{
	rq_of(this_cpu_id())->need_resched = true;
	schedule();
}

/* t is another CPU's once this returns: its caller does not touch it
 * again unless it holds it some other way. */
static void enqueue_remote(struct task *t, unsigned cpu)
{
	struct runqueue *dst = rq_of(cpu);
	uint64_t f = spin_lock_irqsave(&dst->lock);
	t->on_cpu = (int)cpu;
	t->migrate_to = -1;
	enqueue(dst, t);
	dst->need_resched |= dst->curr == dst->idle;
	spin_unlock_irqrestore(&dst->lock, f);
	kick_cpu(cpu);
	if (handoff_spin)
		handoff_spin_wait();
}

/* Move a task that is queued but not running to another CPU's queue; a
 * sleeping task just changes CPU (it is queued there on wakeup). */
static void migrate_other(struct task *t, unsigned to)
{
	unsigned cpu = (unsigned)t->on_cpu;
	struct runqueue *from = rq_of(cpu);
	uint64_t f = spin_lock_irqsave(&from->lock);
	if (from->curr == t) {
		/* Running elsewhere: it moves itself at its next switch. */
		t->migrate_to = (int)to;
		from->need_resched = true;
		spin_unlock_irqrestore(&from->lock, f);
		kick_cpu(cpu); /* not t->on_cpu: t may be gone by now */
		return;
	}
	bool queued = t->state == TASK_RUNNABLE && !t->sleep_timer;
	if (t->sleep_timer) {
		/* Its sleep's timer is on this CPU: it runs here once more,
		 * cancels the timer and moves itself (timers.c). */
		t->migrate_to = (int)to;
	} else if (queued) {
		list_remove(&t->run_node);
		from->nr_queued--;
	} else {
		t->on_cpu = (int)to;
	}
	spin_unlock_irqrestore(&from->lock, f);
	if (queued)
		enqueue_remote(t, to);
}

void sched_apply_affinity(struct task *t)
{
	if (t->on_cpu >= 0 && cpumask_test(&t->affinity, (unsigned)t->on_cpu))
		return;
	unsigned to = pick_cpu(t);
	if (t != current) {
		migrate_other(t, to);
		return;
	}
	t->migrate_to = (int)to;
	schedule(); /* sched_finish on this CPU queues us on `to` */
}

/* What a CPU does when it has nothing else: sleep until an interrupt,
 * then look at its queue. "sti; hlt" cannot lose a wakeup IPI. */
void sched_idle_loop(void)
{
	for (;;) {
		irq_disable();
		if (sched_need_resched()) {
			irq_enable();
			schedule();
			continue;
		}
		vpmu_hook(VPMU_HALT);
		__asm__ volatile("sti; hlt" ::: "memory");
	}
}

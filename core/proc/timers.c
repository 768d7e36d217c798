/*
 * Timed wake-ups on high-resolution timers (arch/hrtimer.h): the deadline
 * of a sleep (schedule_until: nanosleep, clock_nanosleep, futex, poll and
 * select timeouts) and the processes' ITIMER_REAL (setitimer, alarm).
 * Both fire at their deadline to within the timer interrupt's latency,
 * not on the 10 ms tick.
 *
 * A sleep's timer lives on the sleeper's kernel stack and is started on
 * the sleeper's CPU. The sleeper is woken on that same CPU (sched_wake
 * queues a task where it slept; sched.c never moves a task whose sleep
 * timer is armed, see migrate_other), so it can always cancel its timer
 * itself, locally, with interrupts off, before the stack frame goes.
 *
 * Interval timers belong to processes, which may run anywhere, so they
 * all hang off one hrtimer on the boot CPU, armed for the earliest
 * deadline. itimer_lock (irqsave) protects the list of armed processes
 * and their itimer fields; whoever changes the list on another CPU asks
 * the boot CPU to re-arm with VEC_IPI_TIMERS. Kernel timers (struct
 * ktimer: timerfd) work the same way under ktimer_lock, on a second
 * boot-CPU hrtimer.
 */
#include <asm/siginfo.h>
#include "core/arch/apic.h"
#include "core/arch/hrtimer.h"
#include "core/arch/percpu.h"
#include "core/arch/trap.h"
#include "core/arch/tsc.h"
#include "core/arch/x86.h"
#include "core/kernel.h"
#include "sched.h"
#include "signal.h"
#include "task.h"
#include "timers.h"
#include "waitq.h"

/* The TSC value at which time_since_boot_ns() reaches ns (rounded up by
 * one cycle: a timer never fires before its deadline, and the sleepers'
 * loops re-check the clock anyway). */
static uint64_t boot_ns_to_tsc(uint64_t ns)
{
	return tsc_boot() + hrtimer_ns_to_tsc(ns) + 1;
}

/* ---- one sleep ---- */

struct sleep_timer {
	struct hrtimer timer;
	struct task *task;
};

static void sleep_timer_fn(struct hrtimer *t, struct trap_frame *f)
{
	(void)f;
	sched_wake(container_of(t, struct sleep_timer, timer)->task);
}

/*
 * The caller has set its state to sleeping (and queued itself wherever
 * its wake-up comes from). Returns when woken, or at the deadline
 * (time_since_boot_ns), whichever comes first; 0: no deadline.
 */
void schedule_until(uint64_t deadline_ns)
{
	if (!deadline_ns) {
		schedule();
		return;
	}
	struct task *self = current;
	struct sleep_timer s = { .task = self };
	hrtimer_init(&s.timer, sleep_timer_fn);
	uint64_t f = irq_save();
	hrtimer_start(&s.timer, boot_ns_to_tsc(deadline_ns));
	self->sleep_timer = &s.timer;
	irq_restore(f);
	if (time_since_boot_ns() < deadline_ns)
		schedule();
	f = irq_save();
	hrtimer_cancel(&s.timer); /* on the CPU it was started on */
	self->sleep_timer = NULL;
	irq_restore(f);
	/* An affinity change that came while we slept moves us now. */
	if (self->migrate_to >= 0 && self->state == TASK_RUNNABLE)
		schedule();
}

/* ---- interval timers (ITIMER_REAL) ---- */

static struct spinlock itimer_lock = SPINLOCK_INIT("itimer");
static struct list armed = LIST_INIT(armed);  /* leaders, itimer_node */
static struct hrtimer itimer_timer;           /* boot CPU only */

/* Boot CPU, interrupts off: arm for the earliest deadline, or disarm. */
static void itimer_program(void)
{
	uint64_t first = 0;
	spin_lock(&itimer_lock);
	list_for_each(n, &armed) {
		struct task *t = list_entry(n, struct task, itimer_node);
		if (!first || t->itimer_real_ns < first)
			first = t->itimer_real_ns;
	}
	spin_unlock(&itimer_lock);
	if (first)
		hrtimer_start(&itimer_timer, boot_ns_to_tsc(first));
	else
		hrtimer_cancel(&itimer_timer);
}

/* Send SIGALRM to each process whose timer is due; re-arm periodic ones
 * a whole number of intervals on (overruns are lost, as on Linux). */
static void itimer_fn(struct hrtimer *timer, struct trap_frame *f)
{
	(void)timer, (void)f;
	uint64_t now = time_since_boot_ns();
	spin_lock(&itimer_lock);
	list_for_each_safe(n, &armed) {
		struct task *t = list_entry(n, struct task, itimer_node);
		if (now < t->itimer_real_ns)
			continue;
		uint64_t iv = t->itimer_real_interval_ns;
		if (iv) {
			t->itimer_real_ns += ((now - t->itimer_real_ns) / iv + 1) * iv;
		} else {
			t->itimer_real_ns = 0;
			list_remove(n);
		}
		struct ksiginfo info = { .signo = SIGALRM, .code = SI_TIMER };
		signal_send_thread(t, &info);
	}
	spin_unlock(&itimer_lock);
	itimer_program();
}

/* ---- kernel timers (timers.h: struct ktimer) ---- */

static void itimers_changed(void);

static struct spinlock ktimer_lock = SPINLOCK_INIT("ktimer");
static struct list ktimers = LIST_INIT(ktimers);  /* armed, any order */
static struct hrtimer ktimer_timer;              /* boot CPU only */

/* Boot CPU, interrupts off: arm for the earliest deadline, or disarm. */
static void ktimer_program(void)
{
	uint64_t first = 0;
	spin_lock(&ktimer_lock);
	list_for_each(n, &ktimers) {
		struct ktimer *k = list_entry(n, struct ktimer, node);
		if (!first || k->deadline_ns < first)
			first = k->deadline_ns;
	}
	spin_unlock(&ktimer_lock);
	if (first)
		hrtimer_start(&ktimer_timer, boot_ns_to_tsc(first));
	else
		hrtimer_cancel(&ktimer_timer);
}

static void ktimer_fn(struct hrtimer *timer, struct trap_frame *f)
{
	(void)timer, (void)f;
	uint64_t now = time_since_boot_ns();
	spin_lock(&ktimer_lock);
	list_for_each_safe(n, &ktimers) {
		struct ktimer *k = list_entry(n, struct ktimer, node);
		if (now < k->deadline_ns)
			continue;
		k->deadline_ns = k->fn(k, now);
		if (!k->deadline_ns)
			list_remove(n);
	}
	spin_unlock(&ktimer_lock);
	ktimer_program();
}

void ktimer_init(struct ktimer *k, uint64_t (*fn)(struct ktimer *, uint64_t))
{
	k->deadline_ns = 0;
	k->fn = fn;
	list_init(&k->node);
}

void ktimer_arm(struct ktimer *k, uint64_t deadline_ns)
{
	uint64_t f = spin_lock_irqsave(&ktimer_lock);
	list_remove(&k->node);
	k->deadline_ns = deadline_ns;
	if (deadline_ns)
		list_add_tail(&k->node, &ktimers);
	spin_unlock_irqrestore(&ktimer_lock, f);
	itimers_changed();
}

void ktimer_disarm(struct ktimer *k)
{
	ktimer_arm(k, 0);
}

static void itimer_ipi(struct trap_frame *f)
{
	(void)f;
	apic_eoi();
	itimer_program();
	ktimer_program();
}

static void ktimer_program(void);

/* The set of armed timers (interval or kernel timers) changed: the boot
 * CPU re-arms. */
static void itimers_changed(void)
{
	if (this_cpu_id() == 0) {
		uint64_t f = irq_save();
		itimer_program();
		ktimer_program();
		irq_restore(f);
	} else {
		apic_send_ipi(percpu_area[0].apic_id, VEC_IPI_TIMERS);
	}
}

void itimer_set_real(struct task *leader, uint64_t value_ns, uint64_t interval_ns)
{
	uint64_t f = spin_lock_irqsave(&itimer_lock);
	leader->itimer_real_interval_ns = interval_ns;
	leader->itimer_real_ns = value_ns ? time_since_boot_ns() + value_ns : 0;
	list_remove(&leader->itimer_node);
	if (value_ns)
		list_add_tail(&leader->itimer_node, &armed);
	spin_unlock_irqrestore(&itimer_lock, f);
	itimers_changed();
}

void itimer_get_real(struct task *leader, uint64_t *left_ns, uint64_t *interval_ns)
{
	uint64_t f = spin_lock_irqsave(&itimer_lock);
	uint64_t now = time_since_boot_ns(), at = leader->itimer_real_ns;
	*left_ns = at > now ? at - now : 0;
	*interval_ns = leader->itimer_real_interval_ns;
	/* Due but not yet fired: Linux reports a tiny remainder, not 0
	 * (0 would read as "disarmed"). */
	if (at && !*left_ns)
		*left_ns = 1000;
	spin_unlock_irqrestore(&itimer_lock, f);
}

void itimer_forget(struct task *leader)
{
	uint64_t f = spin_lock_irqsave(&itimer_lock);
	bool was_armed = !list_empty(&leader->itimer_node);
	list_remove(&leader->itimer_node);
	leader->itimer_real_ns = 0;
	spin_unlock_irqrestore(&itimer_lock, f);
	if (was_armed)
		itimers_changed();
}

void timers_init(void)
{
	hrtimer_init(&itimer_timer, itimer_fn);
	hrtimer_init(&ktimer_timer, ktimer_fn);
	trap_set_handler(VEC_IPI_TIMERS, itimer_ipi);
}

/*
 * A process's CPU time: sums over its threads and reaped children
 * (getrusage, times, CLOCK_PROCESS_CPUTIME_ID, wait4's rusage), and the
 * interval timers that count CPU time (ITIMER_VIRTUAL, ITIMER_PROF).
 *
 * Sums. Each task counts its own time (utime_tsc, stime_tsc: written by
 * the task itself at each user/kernel boundary, userret.h) and events.
 * A thread that exits adds them to its leader's exited_threads; a parent
 * that reaps a child adds the child's whole sum, and the child's own
 * reaped_children, to its reaped_children, as Linux's wait does. Those
 * links change under task_lock, so a sum is taken under it. A thread
 * running on another CPU counts up to its last kernel entry or tick.
 *
 * Interval timers. A process's "charged" time (cpu_charged[], one per
 * timer kind) grows when the tick charges the running thread the time it
 * used since its previous charge (cpu_charge_base[]); setitimer and
 * getitimer first charge every thread. The charged time never exceeds
 * the time really used, so a timer never fires early; it fires at the
 * first tick after its expiry, as Linux's do. The tick stays on while a
 * timer is armed (tick_needed), also on an isolated CPU.
 *
 * Locking: cpu_itimer_lock (interrupts off) guards the leaders'
 * cpu_itimer[], cpu_charged[], cpu_itimers_armed and the threads'
 * cpu_charge_base[]. Order: task_lock, then cpu_itimer_lock.
 */
#include <string.h>
#include <asm/siginfo.h>
#include <linux/errno.h>
#include <linux/times.h>
#include "core/arch/hrtimer.h"
#include "core/arch/tsc.h"
#include "cputime.h"
#include "core/kernel.h"
#include "core/mm/uaccess.h"
#include "sched.h"
#include "signal.h"
#include "core/spinlock.h"
#include "syscall.h"
#include "task.h"
#include "tasks.h"

#define CLOCK_TICK_NS 10000000ULL   /* USER_HZ = 100, clock_t's unit */

static struct spinlock cpu_itimer_lock = SPINLOCK_INIT("cpu_itimer");

/* ---- sums ---- */

static void add_usage(struct cpu_usage *sum, const struct cpu_usage *u)
{
	sum->utime_tsc += u->utime_tsc;
	sum->stime_tsc += u->stime_tsc;
	sum->minflt += u->minflt;
	sum->majflt += u->majflt;
	sum->nvcsw += u->nvcsw;
	sum->nivcsw += u->nivcsw;
}

static struct cpu_usage task_usage(const struct task *t)
{
	return (struct cpu_usage){ t->utime_tsc, t->stime_tsc, t->minflt,
				   t->majflt, t->nvcsw, t->nivcsw };
}

/* The leader's process, live threads and exited ones (task_lock held). */
static void process_sum(struct task *leader, struct cpu_usage *u)
{
	*u = leader->exited_threads;
	struct cpu_usage own = task_usage(leader);
	add_usage(u, &own);
	list_for_each(n, &leader->threads) {
		struct cpu_usage th = task_usage(list_entry(n, struct task, thread_node));
		add_usage(u, &th);
	}
}

void cputime_process(struct task *leader, struct cpu_usage *u)
{
	uint64_t f = spin_lock_irqsave(&task_lock);
	process_sum(leader, u);
	spin_unlock_irqrestore(&task_lock, f);
}

void cputime_of_child(struct task *child, struct cpu_usage *u)
{
	process_sum(child, u);
	add_usage(u, &child->reaped_children);
}

void cputime_reap(struct task *parent_leader, struct task *child)
{
	struct cpu_usage u;
	cputime_of_child(child, &u);
	add_usage(&parent_leader->reaped_children, &u);
}

static void charge(struct task *t, struct task *leader);

void cputime_thread_exit(struct task *t)
{
	struct task *leader = t->leader;
	struct cpu_usage own = task_usage(t);
	add_usage(&leader->exited_threads, &own);
	spin_lock(&cpu_itimer_lock);
	charge(t, leader);
	spin_unlock(&cpu_itimer_lock);
}

static void tsc_to_timeval(uint64_t tsc, struct __kernel_old_timeval *tv)
{
	uint64_t ns = tsc_to_ns(tsc);
	tv->tv_sec = (long)(ns / 1000000000);
	tv->tv_usec = (long)(ns % 1000000000 / 1000);
}

void cputime_to_rusage(const struct cpu_usage *u, struct rusage *ru)
{
	memset(ru, 0, sizeof(*ru));
	tsc_to_timeval(u->utime_tsc, &ru->ru_utime);
	tsc_to_timeval(u->stime_tsc, &ru->ru_stime);
	ru->ru_minflt = (long)u->minflt;
	ru->ru_majflt = (long)u->majflt;
	ru->ru_nvcsw = (long)u->nvcsw;
	ru->ru_nivcsw = (long)u->nivcsw;
}

static long cputime_clock_t(uint64_t tsc)
{
	return (long)(tsc_to_ns(tsc) / CLOCK_TICK_NS);
}

SYSCALL_DEFINE2(getrusage, int, who, struct rusage __user *, uru)
{
	struct task *self = current, *leader = self->leader;
	struct cpu_usage u;
	switch (who) {
	case RUSAGE_SELF:
		cputime_process(leader, &u);
		break;
	case RUSAGE_CHILDREN: {
		uint64_t f = spin_lock_irqsave(&task_lock);
		u = leader->reaped_children;
		spin_unlock_irqrestore(&task_lock, f);
		break;
	}
	case RUSAGE_THREAD:
		u = task_usage(self);
		break;
	default:
		return -EINVAL;
	}
	struct rusage ru;
	cputime_to_rusage(&u, &ru);
	return copy_to_user(uru, &ru, sizeof(ru)) ? -EFAULT : 0;
}

/* Clock ticks since boot (Linux counts from an arbitrary point too). */
SYSCALL_DEFINE1(times, struct tms __user *, buf)
{
	if (buf) {
		struct task *leader = current->leader;
		struct cpu_usage self, children;
		uint64_t f = spin_lock_irqsave(&task_lock);
		process_sum(leader, &self);
		children = leader->reaped_children;
		spin_unlock_irqrestore(&task_lock, f);
		struct tms t = {
			.tms_utime = cputime_clock_t(self.utime_tsc),
			.tms_stime = cputime_clock_t(self.stime_tsc),
			.tms_cutime = cputime_clock_t(children.utime_tsc),
			.tms_cstime = cputime_clock_t(children.stime_tsc),
		};
		if (copy_to_user(buf, &t, sizeof(t)))
			return -EFAULT;
	}
	return (long)(time_since_boot_ns() / CLOCK_TICK_NS);
}

/* ---- interval timers ---- */

/* Charge t's time since its last charge to its process (lock held). The
 * times only grow, so a racy read of another CPU's thread is safe: the
 * next charge takes what this one missed. */
static void charge(struct task *t, struct task *leader)
{
	uint64_t user = t->utime_tsc, all = user + t->stime_tsc;
	leader->cpu_charged[CPU_ITIMER_VIRT] += user - t->cpu_charge_base[CPU_ITIMER_VIRT];
	leader->cpu_charged[CPU_ITIMER_PROF] += all - t->cpu_charge_base[CPU_ITIMER_PROF];
	t->cpu_charge_base[CPU_ITIMER_VIRT] = user;
	t->cpu_charge_base[CPU_ITIMER_PROF] = all;
}

/* Every thread of the process (task_lock and cpu_itimer_lock held). */
static void charge_process(struct task *leader)
{
	charge(leader, leader);
	list_for_each(n, &leader->threads)
		charge(list_entry(n, struct task, thread_node), leader);
}

static void update_armed(struct task *leader)
{
	bool armed = leader->cpu_itimer[CPU_ITIMER_VIRT].expires ||
		     leader->cpu_itimer[CPU_ITIMER_PROF].expires;
	__atomic_store_n(&leader->cpu_itimers_armed, armed, __ATOMIC_RELAXED);
}

bool cputime_wants_tick(const struct task *t)
{
	return t->mm && __atomic_load_n(&t->leader->cpu_itimers_armed, __ATOMIC_RELAXED);
}

void cputime_tick(struct task *t)
{
	static const int signo[2] = { SIGVTALRM, SIGPROF };
	if (!cputime_wants_tick(t))
		return;
	struct task *leader = t->leader;
	bool fired[2] = { false, false };
	spin_lock(&cpu_itimer_lock);
	charge(t, leader);
	for (int w = 0; w < 2; w++) {
		struct cpu_itimer *it = &leader->cpu_itimer[w];
		if (!it->expires || leader->cpu_charged[w] < it->expires)
			continue;
		/* One period on per expiry, as Linux: a timer far behind
		 * fires at each tick until it catches up. */
		it->expires = it->interval ? it->expires + it->interval : 0;
		fired[w] = true;
	}
	update_armed(leader);
	spin_unlock(&cpu_itimer_lock);
	for (int w = 0; w < 2; w++) {
		if (!fired[w])
			continue;
		struct ksiginfo info = { .signo = signo[w], .code = SI_KERNEL };
		signal_send_thread(t, &info);
	}
}

void cpu_itimer_get(struct task *leader, int which, uint64_t *left_ns,
		    uint64_t *interval_ns)
{
	uint64_t f = spin_lock_irqsave(&task_lock);
	spin_lock(&cpu_itimer_lock);
	charge_process(leader);
	struct cpu_itimer *it = &leader->cpu_itimer[which];
	uint64_t now = leader->cpu_charged[which];
	*left_ns = !it->expires ? 0
		 : it->expires > now ? tsc_to_ns(it->expires - now)
		 : TICK_NS; /* due: fires at the next tick (Linux says the same) */
	*interval_ns = it->interval_ns;
	spin_unlock(&cpu_itimer_lock);
	spin_unlock_irqrestore(&task_lock, f);
}

static uint64_t ns_to_tsc_nonzero(uint64_t ns)
{
	uint64_t tsc = ns ? hrtimer_ns_to_tsc(ns) : 0;
	return ns && !tsc ? 1 : tsc;
}

void cpu_itimer_set(struct task *leader, int which, uint64_t value_ns,
		    uint64_t interval_ns)
{
	uint64_t f = spin_lock_irqsave(&task_lock);
	spin_lock(&cpu_itimer_lock);
	charge_process(leader); /* time used before arming does not count */
	struct cpu_itimer *it = &leader->cpu_itimer[which];
	it->expires = value_ns ? leader->cpu_charged[which] + ns_to_tsc_nonzero(value_ns) : 0;
	it->interval = value_ns ? ns_to_tsc_nonzero(interval_ns) : 0;
	it->interval_ns = value_ns ? interval_ns : 0;
	update_armed(leader);
	spin_unlock(&cpu_itimer_lock);
	spin_unlock_irqrestore(&task_lock, f);
	if (value_ns)
		sched_tick_recheck(); /* an isolated CPU's tick starts again */
}

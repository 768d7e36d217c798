/*
 * Open-time accounting of the four debug registers, with the rule of
 * Linux's kernel/events/hw_breakpoint.c. Breakpoints are never
 * multiplexed: on a CPU, its own breakpoints (pid -1) and those of the
 * task running there are installed together, so a new one is ENOSPC
 * unless, on every CPU where it could be installed,
 *
 *   CPU breakpoints there + breakpoints of its task (a new task event)
 *   or of the task with the most there (a new CPU event) + 1 <= 4.
 *
 * A task breakpoint bound to a CPU counts on that CPU only, an unbound
 * one on every CPU. Disabled breakpoints hold their slot too.
 *
 * What is counted is the breakpoint events in event contexts now: an
 * event holds its slot from the moment it joins its context until it
 * leaves it (closed, its task exited, remove_on_exec). Linux holds the
 * slot until the event is freed, so there an exited task's breakpoints
 * keep theirs while their fds are open. Between event_init and joining
 * its context a new event is not seen: two opens racing for the last
 * slot may both succeed, and the one that finds no register at add()
 * waits off the counters like a multiplexed group.
 *
 * Locking: contexts are read under perf_lock; the task list under
 * task_lock. Holding task_lock, perf_lock is only tried, and the scan
 * starts again when it is busy, so no order between the two is implied.
 */
#include <string.h>
#include <linux/errno.h>
#include "breakpoint.h"
#include "debugreg.h"
#include "pmu/events/event.h"
#include "core/kernel.h"
#include "core/proc/sched.h"
#include "core/proc/task.h"
#include "core/proc/tasks.h"
#include "core/arch/x86.h"

/* Is e a breakpoint that may be installed on cpu? */
static int counts_on(const struct perf_event *e, unsigned cpu)
{
	return e->pmu == &perf_bp_pmu && (e->cpu < 0 || e->cpu == (int)cpu);
}

/* Breakpoints of one context (leaders and siblings) that may be
 * installed on cpu. Under perf_lock. */
static int ctx_bps(struct list *ctx, unsigned cpu)
{
	int n = 0;
	list_for_each(node, ctx) {
		struct perf_event *l = list_entry(node, struct perf_event, ctx_node);
		n += counts_on(l, cpu);
		list_for_each(s, &l->siblings)
			n += counts_on(list_entry(s, struct perf_event, sibling_node), cpu);
	}
	return n;
}

/* Per CPU, the most breakpoints one task may install there. */
struct busiest {
	struct cpumask cpus;       /* the CPUs asked about */
	uint8_t max[MAX_CPUS];     /* at most DR_NUM each */
	bool busy;                 /* perf_lock was taken: scan again */
};

/* Under task_lock (task_for_each), interrupts off. */
static void task_busiest(struct task *t, void *arg)
{
	struct busiest *b = arg;
	if (b->busy || !spin_trylock(&perf_lock)) {
		b->busy = true;
		return;
	}
	for_each_cpu(c, &b->cpus) {
		int n = ctx_bps(&t->perf_events, c);
		if (n > b->max[c])
			b->max[c] = (uint8_t)n;
	}
	spin_unlock(&perf_lock);
}

/* Fill b->max for the CPUs in b->cpus, over every task. */
static void scan_tasks(struct busiest *b)
{
	do {
		b->busy = false;
		memset(b->max, 0, sizeof(b->max));
		task_for_each(task_busiest, b);
		if (b->busy)
			cpu_relax();
	} while (b->busy);
}

int bp_reserve(const struct perf_event *e)
{
	struct busiest b = { .cpus = *sched_online_mask() };
	if (e->cpu >= 0)
		b.cpus = cpumask_of((unsigned)e->cpu);
	if (!e->task)
		scan_tasks(&b);
	int worst = 0;
	uint64_t f = spin_lock_irqsave(&perf_lock);
	for_each_cpu(c, &b.cpus) {
		int n = ctx_bps(perf_cpu_events(c), c) +
			(e->task ? ctx_bps(&e->task->perf_events, c) : b.max[c]);
		if (n > worst)
			worst = n;
	}
	spin_unlock_irqrestore(&perf_lock, f);
	return worst + 1 > DR_NUM ? -ENOSPC : 0;
}

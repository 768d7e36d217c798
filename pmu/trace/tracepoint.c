/*
 * The tracepoint PMU (type PERF_TYPE_TRACEPOINT): attr.config is a
 * tracepoint id from /sys/kernel/tracing/events/<group>/<name>/id
 * (trace.h, tracefs.c). Events count like software events, per task or
 * per CPU, never short of counters; each occurrence a hook reports
 * (tp_emit) adds 1 and carries the record as PERF_SAMPLE_RAW.
 *
 * Rules as Linux's (perf_tp_event_init, perf_trace_event_perm): an id
 * no tracepoint has is EINVAL; branch stacks EOPNOTSUPP; PERF_SAMPLE_RAW
 * leaks kernel data, so it needs perf_event_paranoid <= -1 or root
 * (EPERM), except for raw_syscalls events on a task, which Linux marks
 * safe (TRACE_EVENT_FL_CAP_ANY: a task sees its own system calls).
 * Tracepoints fire in kernel mode: an exclude_kernel event opens but
 * never counts.
 *
 * Locking: tp_active[] changes in add/del under perf_lock (atomically,
 * as hooks read it without the lock). tp_emit takes perf_lock with
 * interrupts off; emitting[cpu] (own CPU only, interrupts off) drops an
 * occurrence reported from inside another on the same CPU.
 */
#include <linux/errno.h>
#include "pmu/events/event.h"
#include "core/arch/gdt.h"
#include "core/arch/percpu.h"
#include "pmu/events/hit.h"
#include "core/proc/sched.h"
#include "core/proc/task.h"
#include "trace.h"
#include "tp_events.h"
#include "tp_records.h"
#include "core/arch/trap.h"
#include "core/fs/vfs.h"

#define TP_STOPPED 1ULL  /* hw.flags: stop() without del() */

int tp_active[TP_NR];
static bool emitting[MAX_CPUS];

static int index_of(const struct perf_event *e)
{
	uint64_t c = e->attr.config;
	return c >= TP_ID_BASE && c < TP_ID_BASE + TP_NR ? (int)(c - TP_ID_BASE) : -1;
}

/* The hook's gate an event keeps open while on a counter: its own
 * tracepoint's, or raw_syscalls' for a syscalls:* one (whose own count
 * *sc gets, else NULL). */
static int *gates_of(const struct perf_event *e, int **sc)
{
	int i = index_of(e);
	bool exit;
	*sc = NULL;
	if (i >= 0)
		return &tp_active[i];
	if (!tp_sc_event(e->attr.config, &exit))
		return NULL;
	*sc = &tp_sc_active[exit];
	return &tp_active[exit ? TP_SYS_EXIT : TP_SYS_ENTER];
}

/* Linux's perf_trace_event_perm: counting leaks nothing; raw data
 * needs paranoid -1 or root unless the tracepoint is safe for a task's
 * own event. */
static int raw_perm(const struct perf_event *e, int i)
{
	if (!(e->attr.sample_type & PERF_SAMPLE_RAW))
		return 0;
	if (e->task && (i < 0 || tp_events[i].cap_any)) /* syscalls:* are CAP_ANY too */
		return 0;
	if (sysctl_perf_event_paranoid() > -1 && current->euid != 0)
		return -EPERM;
	return 0;
}

static int tp_init(struct perf_event *e)
{
	if (e->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;
	int i = index_of(e);
	bool exit;
	if (i < 0 && !tp_sc_event(e->attr.config, &exit))
		return -EINVAL;
	return raw_perm(e, i);
}

static int tp_add(struct perf_event *e, uint64_t now)
{
	(void)now;
	e->hw.flags = 0;
	int *sc, *gate = gates_of(e, &sc);
	if (sc)
		__atomic_add_fetch(sc, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(gate, 1, __ATOMIC_RELAXED);
	return 0;
}

static void tp_del(struct perf_event *e, uint64_t now)
{
	(void)now;
	int *sc, *gate = gates_of(e, &sc);
	__atomic_sub_fetch(gate, 1, __ATOMIC_RELAXED);
	if (sc)
		__atomic_sub_fetch(sc, 1, __ATOMIC_RELAXED);
}

static void tp_start(struct perf_event *e, uint64_t now)
{
	(void)now;
	e->hw.flags &= ~TP_STOPPED;
}

static void tp_stop(struct perf_event *e, uint64_t now)
{
	(void)now;
	e->hw.flags |= TP_STOPPED;
}

static uint64_t tp_read(struct perf_event *e, uint64_t now)
{
	(void)now;
	return e->count;
}

struct pmu perf_tracepoint_pmu = {
	.name = "tracepoint",
	.event_init = tp_init,
	.add = tp_add,
	.del = tp_del,
	.start = tp_start,
	.stop = tp_stop,
	.read = tp_read,
};

/* ---- reporting an occurrence ---- */

static bool wants(const struct perf_event *e, uint64_t config)
{
	return e->state == EVENT_ACTIVE && e->pmu == &perf_tracepoint_pmu &&
	       e->attr.config == config &&
	       !(e->hw.flags & TP_STOPPED) && !e->attr.exclude_kernel;
}

/* Every active event of tracepoint config in one context (leaders and
 * their siblings). Under perf_lock. */
static void hit_in(struct list *ctx, uint64_t i, const struct perf_hit *hit)
{
	list_for_each_safe(n, ctx) {
		struct perf_event *l = list_entry(n, struct perf_event, ctx_node);
		if (wants(l, i))
			perf_event_hit(l, 1, hit);
		list_for_each_safe(m, &l->siblings) {
			struct perf_event *s = list_entry(m, struct perf_event, sibling_node);
			if (wants(s, i))
				perf_event_hit(s, 1, hit);
		}
	}
}

/* The common_flags Linux would record here (before interrupts go off). */
static uint8_t flags_now(void)
{
	uint64_t rflags;
	__asm__ volatile("pushfq; pop %0" : "=r"(rflags));
	return (uint8_t)((rflags & (1u << 9) ? 0 : TRACE_FLAG_IRQS_OFF) |
			 (sched_need_resched() ? TRACE_FLAG_NEED_RESCHED : 0));
}

/* Where the tracepoint fired, as a kernel frame (Linux's
 * perf_fetch_caller_regs): ip is where tp_emit returns to in the record
 * builder, bp the builder's frame, from which a kernel callchain goes on
 * through the hook's function (rsp is bp too: only REGS_INTR shows it). */
static void caller_regs(struct trap_frame *r, uint64_t ip, uint64_t bp, uint64_t rflags)
{
	*r = (struct trap_frame){ .rip = ip, .rbp = bp, .rsp = bp, .cs = KERNEL_CS,
				  .ss = KERNEL_DS, .rflags = rflags };
}

static void fill_common(struct tp_common *c, uint64_t config, const struct task *t)
{
	c->common_type = (uint16_t)config;
	c->common_flags |= flags_now();
	c->common_preempt_count = 1; /* Linux's tracepoints run with preemption off */
	c->common_pid = t ? t->tid : 0;
}

void tp_emit_config(uint64_t i, void *rec, uint32_t size)
{
	struct task *t = current;
	fill_common(rec, i, t);
	struct trap_frame regs;
	uint64_t f = irq_save();
	caller_regs(&regs, (uint64_t)__builtin_return_address(0),
		    *(uint64_t *)__builtin_frame_address(0), f);
	struct perf_hit hit = { .regs = &regs, .raw = rec, .raw_size = size };
	unsigned cpu = this_cpu_id();
	if (!emitting[cpu]) {
		emitting[cpu] = true;
		spin_lock(&perf_lock);
		if (t)
			hit_in(&t->perf_events, i, &hit);
		hit_in(perf_cpu_events(cpu), i, &hit);
		spin_unlock(&perf_lock);
		emitting[cpu] = false;
	}
	irq_restore(f);
}

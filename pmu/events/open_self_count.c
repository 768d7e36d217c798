/*
 * The lean open (proc/syscall.h's lean handlers): perf_event_open(2) of
 * a plain counting software event on the caller itself, straight from
 * the SYSCALL entry with interrupts off, in one pass.
 *
 * What it takes, all else going to the full path (core.c's event_open,
 * which then finds Linux's errno, if any):
 *   - the target: pid 0, cpu -1, group_fd -1, flags 0 or
 *     PERF_FLAG_FD_CLOEXEC; the caller's descriptor table its own (refs
 *     1, so fd_install's EMFILE is final here as there) and its context
 *     on this CPU's counters (it runs here, interrupts off);
 *   - a plain attr (lean_plain): type PERF_TYPE_SOFTWARE, config below
 *     PERF_COUNT_SW_MAX, size 0 or PERF_ATTR_SIZE_VER0 up to ours and
 *     LEAN_TAIL_MAX bytes more, all zero past ours (a newer program's),
 *     no sample_period/freq and sample_type 0, read_format
 *     of TOTAL_TIME_ENABLED, TOTAL_TIME_RUNNING, ID and LOST only, of the
 *     flag bits disabled and exclude_{user,kernel,hv} only (exclude_kernel
 *     when perf_event_paranoid asks it of the caller), every other word 0.
 * Every check of the full path passes such an attr (the debug build
 * checks that it does: BUG_ON otherwise), and the full path would set
 * up the same event: a lone software leader that goes onto the counters
 * in place (ctx_sched.c's perf_soft_group_on_here, without its tests).
 *
 * Declining changes nothing the caller can see: the user's attr is read
 * with page faults disabled (a fault declines), nothing is written back,
 * and the event and file are freed before anything refers to them.
 *
 * Locking: interrupts are off throughout (the lean entry), so perf_lock
 * is taken without irqsave; the event is published (owner list, context,
 * counters) under it, after its descriptor is installed.
 */
#include <string.h>
#include <linux/errno.h>
#include <linux/fcntl.h>
#include "event.h"
#include "core/kernel.h"
#include "open.h"
#include "core/arch/percpu.h"
#include "core/arch/tsc.h"
#include "core/fs/vfs.h"
#include "core/mm/uaccess.h"
#include "core/proc/syscall.h"
#include "core/proc/task.h"

#ifdef BAREMON_DEBUG
#define LEAN_CROSS_CHECK 1
#else
#define LEAN_CROSS_CHECK 0
#endif

/* The attr as words: the plain test looks at all of them at once. */
#define ATTR_WORDS (sizeof(struct perf_event_attr) / 8)
union attr_words {
	struct perf_event_attr a;
	uint64_t w[ATTR_WORDS];
};
_Static_assert(sizeof(struct perf_event_attr) % 8 == 0, "the attr is whole words");
_Static_assert(offsetof(struct perf_event_attr, config) == 8, "config is word 1");

/* The bits a plain attr may have set from word 2 on: its read_format
 * and flags; type and config (words 0-1) are tested apart. */
static const union attr_words plain_bits = { .a = {
	.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
		       PERF_FORMAT_ID | PERF_FORMAT_LOST,
	.disabled = 1, .exclude_user = 1, .exclude_kernel = 1, .exclude_hv = 1,
} };

static bool lean_plain(const struct perf_event_attr *attr)
{
	const union attr_words *u = (const union attr_words *)attr;
	uint64_t other = 0;
#pragma GCC unroll 16 /* the masks fold into the code: no loads of them */
	for (unsigned i = 2; i < ATTR_WORDS; i++)
		other |= u->w[i] & ~plain_bits.w[i];
	return !other && attr->type == PERF_TYPE_SOFTWARE && attr->config < PERF_COUNT_SW_MAX;
}

/* check_permission's test: kernel counting needs its rights. */
static bool lean_permitted(const struct perf_event_attr *a, const struct task *me)
{
	return me->euid == 0 || a->exclude_kernel || sysctl_perf_event_paranoid() <= 1;
}

/* A newer program's attr may be longer than ours (Linux 6.3's VER8
 * adds config3): up to this many bytes past ours, all zero, it is
 * still plain. */
#define LEAN_TAIL_MAX 64

/* Are the n (<= LEAN_TAIL_MAX) bytes at u all zero? False also when
 * they cannot be read. Page faults disabled by the caller. */
static bool tail_zero(uint64_t u, size_t n)
{
	uint64_t w[LEAN_TAIL_MAX / 8] = { 0 }, any = 0;
	if (copy_from_user(w, (const void *)u, n))
		return false;
	for (unsigned i = 0; i < LEAN_TAIL_MAX / 8; i++)
		any |= w[i];
	return !any;
}

/* An attr whose size is not ours (a read ours in full): shorter, the
 * bytes it lacks cleared; longer, its bytes past ours all zero; its
 * size set as copy_attr sets it. False to decline (the full path then
 * writes E2BIG's size back if it must). Page faults disabled by the
 * caller. Out of line: the common attr is ours. */
static __attribute__((noinline)) bool other_size(uint64_t uattr, struct perf_event_attr *a)
{
	uint32_t size = a->size ? a->size : PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0 || size > sizeof(*a) + LEAN_TAIL_MAX)
		return false;
	if (size > sizeof(*a) && !tail_zero(uattr + sizeof(*a), size - sizeof(*a)))
		return false;
	if (size < sizeof(*a))
		memset((char *)a + size, 0, sizeof(*a) - size);
	a->size = size;
	return true;
}

/* The user's attr into a, by copy_attr's size protocol for the sizes
 * it handles; false to decline. Reads ours in full whatever the size
 * says: a fault declines. */
static bool lean_attr(uint64_t uattr, struct perf_event_attr *a, const struct task *me)
{
	struct percpu *cpu = this_cpu();
	cpu->pagefault_disabled++;
	bool ok = !copy_from_user(a, (const void *)uattr, sizeof(*a)) &&
		  (a->size == sizeof(*a) || other_size(uattr, a));
	cpu->pagefault_disabled--;
	return ok && lean_plain(a) && lean_permitted(a, me);
}

/* PERF_LEAN_* of a plain attr (lone_fd_ops.c's perf_lean_init). */
static uint8_t lean_flags(const struct perf_event_attr *a)
{
	uint8_t lean = PERF_LEAN_COUNT;
	if (!a->read_format)
		lean |= PERF_LEAN_VALUE;
	if (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK)
		lean |= PERF_LEAN_CLOCK;
	return lean;
}

_Static_assert(offsetof(struct perf_event, count) == sizeof(struct perf_event_attr),
	       "the zeroed part starts right after the attr");

/* Every field event.h says an open sets, for a lone leader counting
 * for `me`, in no list yet; the zeroed part zeroed. */
static void lean_setup(struct perf_event *e, struct task *me)
{
	__builtin_memset(&e->count, 0, PERF_EVENT_ZEROED); /* inline stores */
	e->pmu = &perf_sw_pmu;
	e->id = e->stream_id = perf_new_id();
	e->task = me;
	e->cpu = -1;
	e->state = e->attr.disabled ? EVENT_OFF : EVENT_INACTIVE;
	e->oncpu = -1;
	e->refs = 1;
	e->leader = e;
	list_init(&e->siblings);
	list_init(&e->sibling_node);
	list_init(&e->ctx_node);
	list_init(&e->owner_node);
	e->owner = me;
	list_init(&e->child_list);
	list_init(&e->child_node);
	e->tstamp = 0;
	e->lean = lean_flags(&e->attr);
	e->hw.idx = -1;
	if (LEAN_CROSS_CHECK) { /* the full path would open the same event */
		BUG_ON(!perf_open_checks_pass(&e->attr));
		uint8_t lean = e->lean;
		perf_lean_init(e);
		BUG_ON(e->lean != lean);
	}
}

/* Into the owner's list and its context, and onto this CPU's counters
 * if enabled (attach_fn, then group_on's steps for a lone software
 * event that starts nothing). */
static void lean_publish(struct perf_event *e, struct task *me)
{
	spin_lock(&perf_lock);
	list_add_tail(&e->owner_node, &me->perf_owned);
	list_add_tail(&e->ctx_node, &me->perf_events);
	if (e->state == EVENT_INACTIVE) {
		uint64_t now = time_since_boot_ns();
		e->tstamp = now; /* its times start now */
		e->start_value = now; /* perf_sw_start: no clock timer (no sampling) */
		e->state = EVENT_ACTIVE;
		e->oncpu = (int)this_cpu_id();
	}
	spin_unlock(&perf_lock);
}

static long perf_event_open_lean(uint64_t uattr, uint64_t pid, uint64_t cpu,
				 uint64_t group_fd, uint64_t flags, uint64_t a5)
{
	(void)a5;
	struct task *me = current;
	struct files *fs = me->files;
	if (pid || (int)cpu != -1 || (int)group_fd != -1 || (flags & ~PERF_FLAG_FD_CLOEXEC) ||
	    !fs || __atomic_load_n(&fs->refs, __ATOMIC_ACQUIRE) != 1 || !me->perf_ctx_in ||
	    me->perf_cpu != (int)this_cpu_id())
		return SYSCALL_LEAN_DECLINE;
	struct perf_event *e = heap_cache_alloc(&perf_event_cache);
	if (!e)
		return SYSCALL_LEAN_DECLINE;
	if (!lean_attr(uattr, &e->attr, me)) {
		heap_cache_free(&perf_event_cache, e);
		return SYSCALL_LEAN_DECLINE;
	}
	lean_setup(e, me);
	struct file *f = perf_event_file(e);
	if (!f) {
		event_free(e);
		return SYSCALL_LEAN_DECLINE;
	}
	int fd = fd_install(fs, f, (flags & PERF_FLAG_FD_CLOEXEC) ? O_CLOEXEC : 0);
	if (fd < 0) {
		file_put(f); /* releases e, as event_open does: EMFILE there too */
		return fd;
	}
	lean_publish(e, me);
	return fd;
}

void perf_open_lean_init(void)
{
	syscall_lean_register(__NR_perf_event_open, perf_event_open_lean);
}

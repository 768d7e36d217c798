/*
 * The perf event file's lean path: read(2) and the ENABLE, DISABLE and
 * RESET ioctls of a lone event, straight from the SYSCALL entry
 * (proc/syscall.h's lean handlers) with interrupts off: no trap frame,
 * no dispatch, no file reference, no cross-CPU call.
 *
 * Each handler either finishes the call as the full path would (the
 * same value or errno, the event left in the same state) or declines
 * having changed nothing the full path would not change again; the full
 * path (sys_read, sys_ioctl) then runs as usual. It declines for every
 * other case: a descriptor that is not a perf event's (or closed:
 * EBADF), a shared descriptor table, another read_format or a short
 * buffer (ENOSPC), a buffer that faults (a page to fault in, or EFAULT),
 * an event with inherited copies, in a group, sampling, of another PMU
 * (for the ioctls) or whose context is not on this CPU's counters.
 *
 * What it may finish, and why that is safe with interrupts off and
 * only perf_lock taken:
 * - read: an event in the lone layouts (the value, the two times) whose
 *   counter can be read here; the count and times as event_totals gives
 *   them (with no inherited copies, the event's own plus its exited
 *   copies' sums). Copied with page faults disabled.
 * - ENABLE, DISABLE, RESET: a lone counting software event whose
 *   context is on this CPU's counters: what core.c's enable_one then
 *   ctx_sched.c's perf_soft_group_on_here, disable_one, and reset_one
 *   between the event going off its counter and back on would do for
 *   it, done in place. A software event needs
 *   no counter (its add() cannot fail), a counting one arms no timer and
 *   owes no notification, and nothing else runs on this CPU meanwhile,
 *   so no pass over the other groups and no IPI is needed.
 */
#include <linux/errno.h>
#include "event.h"
#include "core/kernel.h"
#include "pmu/perf.h"
#include "pmu/sw/sw.h"
#include "throttle.h"
#include "core/arch/percpu.h"
#include "core/arch/tsc.h"
#include "core/fs/vfs.h"
#include "core/mm/uaccess.h"
#include "core/proc/syscall.h"
#include "core/proc/task.h"

#define TIMES (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)
_Static_assert(TIMES == 3, "a lone layout's words index by read_format");

/* The words of the lone layouts: the value, then the times asked for. */
static const uint8_t lone_words[4] = { 1, 2, 2, 3 };

void perf_lean_init(struct perf_event *e)
{
	uint8_t lean = 0;
	if (e->pmu == &perf_sw_pmu) {
		if (!e->attr.read_format)
			lean |= PERF_LEAN_VALUE;
		if (perf_sw_is_clock(e))
			lean |= PERF_LEAN_CLOCK;
		if (!perf_is_sampling(e)) /* for good: IOC_PERIOD refuses 0 */
			lean |= PERF_LEAN_COUNT;
	}
	e->lean = lean;
}

/* ---- the event, in place (under perf_lock) ---- */

/* The count of e now, as event_totals takes it (core.c's count_now),
 * with the software PMU's read inline. */
static inline uint64_t count_here(struct perf_event *e, uint64_t now)
{
	if (e->state != EVENT_ACTIVE)
		return e->count;
	if (e->pmu == &perf_sw_pmu)
		return perf_sw_read(e, now);
	return e->pmu->read(e, now);
}

/* e's lone layout (rf: its read_format, TIMES bits only) into out, if it
 * can be read here: not in error, no live inherited copies (their counts
 * are summed by the full path), its counter readable on this CPU. The
 * clock is read only when the value or the times need it. */
static inline bool read_locked(struct perf_event *e, uint64_t rf, uint64_t *out)
{
	bool active = e->state == EVENT_ACTIVE;
	if (e->state == EVENT_ERROR || !list_empty(&e->child_list))
		return false;
	if (active && (e->pmu->scarce || e->pmu->local_read) &&
	    e->oncpu != (int)this_cpu_id())
		return false;
	uint64_t now = active || rf ? time_since_boot_ns() : 0;
	if (rf) /* else the times can wait for the next update */
		event_update(e, now);
	out[0] = count_here(e, now) + e->child_count;
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		*++out = e->enabled_ns + e->child_enabled_ns;
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		*++out = e->running_ns + e->child_running_ns;
	return true;
}

int event_read_here(struct perf_event *e, uint64_t *out)
{
	uint64_t rf = e->attr.read_format;
	if (rf & ~(uint64_t)TIMES)
		return 0;
	uint64_t fl = spin_lock_irqsave(&perf_lock);
	bool done = read_locked(e, rf, out);
	spin_unlock_irqrestore(&perf_lock, fl);
	return done ? lone_words[rf] : 0;
}

/* e is a lone counting software event, no inherited copy out, whose
 * context is on the counters of this CPU (`me`): a CPU event of this
 * CPU, or an event of the task running here while its context is in
 * (ctx_sched.c's perf_ctx_in). */
static inline bool soft_lone_here(const struct perf_event *e, int me)
{
	/* With inherited copies out, the ioctls reach them too: the full
	 * path's work (ioctl_children.c). */
	if (!(e->lean & PERF_LEAN_COUNT) || e->leader != e || !list_empty(&e->siblings) ||
	    !list_empty(&e->child_list))
		return false;
	const struct task *t = e->task;
	if (!t)
		return e->cpu == me;
	return !e->task_exited && t->perf_cpu == me && t->perf_ctx_in;
}

/* ENABLE: core.c's enable_one, then perf_soft_group_on_here (the
 * software PMU has no CPU filter: only attr's cpu limits where the event
 * counts). */
static void soft_enable(struct perf_event *e, int me)
{
	uint64_t now = time_since_boot_ns();
	event_update(e, now);
	if (e->state == EVENT_OFF || e->state == EVENT_ERROR)
		e->state = EVENT_INACTIVE;
	if (e->state == EVENT_INACTIVE && (e->cpu < 0 || e->cpu == me))
		perf_sw_event_start(e, now, me);
}

/* DISABLE: core.c's disable_one (an active event off its counters, its
 * times brought to now first, then off). */
static void soft_disable(struct perf_event *e)
{
	uint64_t now = time_since_boot_ns();
	event_update(e, now);
	if (e->state == EVENT_ACTIVE) {
		perf_sw_stop(e, now);
		e->state = EVENT_INACTIVE;
		e->oncpu = -1;
		if (e->rb)
			perf_event_update_userpage(e, now);
	}
	if (e->state == EVENT_INACTIVE)
		e->state = EVENT_OFF;
}

/* RESET: core.c's reset_one, an active event taken off its counter
 * first and put back on at the same instant: its times are brought to
 * now and a clock counts from now; the counts are cleared either way. */
static void soft_reset(struct perf_event *e, int me)
{
	bool on = e->state == EVENT_ACTIVE;
	uint64_t now = on ? time_since_boot_ns() : 0;
	if (on)
		event_update(e, now);
	e->count = 0;
	e->child_count = 0;
	if (on) /* after the clearing: the control page shows the new count */
		perf_sw_event_start(e, now, me);
}

/* ---- the system calls ---- */

/* fd's perf event file, open with the FMODE_* bits `need` and not
 * O_PATH, from a descriptor table that is the caller's alone (no thread
 * shares it): interrupts are off, and such a table only changes through
 * its own task, so the file stays put without a reference until the call
 * returns. NULL for anything else. */
static inline struct file *lean_perf_file(uint64_t fd, unsigned need)
{
	struct files *fs = current->files;
	uint32_t n = (uint32_t)fd; /* an unsigned int argument */
	if (!fs || n >= MAX_FDS || __atomic_load_n(&fs->refs, __ATOMIC_ACQUIRE) != 1)
		return NULL;
	struct file *f = fs->fd[n];
	if ((uintptr_t)f <= (uintptr_t)FD_RESERVED || f->ops != &perf_fops ||
	    (f->fmode & (need | FMODE_PATH)) != need)
		return NULL;
	return f;
}

/* The common read: a software event's value alone (PERF_LEAN_VALUE).
 * read_locked's case with nothing to update and no CPU to check (the
 * software PMU reads from any CPU). */
static inline bool sw_value_locked(struct perf_event *e, uint64_t *value)
{
	if (e->state == EVENT_ERROR || !list_empty(&e->child_list))
		return false;
	uint64_t v = e->count;
	if (e->state == EVENT_ACTIVE && (e->lean & PERF_LEAN_CLOCK))
		v += time_since_boot_ns() - e->start_value; /* perf_sw_read */
	*value = v + e->child_count;
	return true;
}

/* The general lone layouts (the times, another PMU): out of line, so
 * that the common read keeps to scratch registers. */
static __attribute__((noinline)) long read_lean_general(struct perf_event *e,
							uint64_t ubuf, uint64_t n)
{
	uint64_t rf = e->attr.read_format, out[3];
	if (rf & ~(uint64_t)TIMES)
		return SYSCALL_LEAN_DECLINE; /* another layout */
	unsigned words = lone_words[rf];
	if (n < 8 * words)
		return SYSCALL_LEAN_DECLINE; /* ENOSPC */
	spin_lock(&perf_lock); /* interrupts are off already */
	bool done = read_locked(e, rf, out);
	spin_unlock(&perf_lock);
	/* A fault (a page to fault in, or EFAULT) is the full path's. */
	if (!done || copy_words_to_user_nofault((uint64_t *)ubuf, out, words))
		return SYSCALL_LEAN_DECLINE;
	return 8 * words;
}

static long perf_read_lean(uint64_t fd, uint64_t ubuf, uint64_t n, uint64_t a3,
			   uint64_t a4, uint64_t a5)
{
	(void)a3, (void)a4, (void)a5;
	struct file *f = lean_perf_file(fd, FMODE_READ);
	if (!f)
		return SYSCALL_LEAN_DECLINE;
	struct perf_event *e = f->priv;
	if (!(e->lean & PERF_LEAN_VALUE))
		return read_lean_general(e, ubuf, n);
	uint64_t value;
	if (n < sizeof(value))
		return SYSCALL_LEAN_DECLINE; /* ENOSPC */
	spin_lock(&perf_lock); /* interrupts are off already */
	bool done = sw_value_locked(e, &value);
	spin_unlock(&perf_lock);
	if (!done || copy_words_to_user_nofault((uint64_t *)ubuf, &value, 1))
		return SYSCALL_LEAN_DECLINE;
	perf_quick_remember(current->files, (uint32_t)fd, e); /* the next read's */
	return sizeof(value);
}

static long perf_ioctl_lean(uint64_t fd, uint64_t cmd, uint64_t arg, uint64_t a3,
			    uint64_t a4, uint64_t a5)
{
	(void)arg, (void)a3, (void)a4, (void)a5; /* no siblings: the group flag changes nothing */
	unsigned c = (unsigned)cmd; /* an unsigned int argument */
	if (c != PERF_EVENT_IOC_ENABLE && c != PERF_EVENT_IOC_DISABLE &&
	    c != PERF_EVENT_IOC_RESET)
		return SYSCALL_LEAN_DECLINE;
	struct file *f = lean_perf_file(fd, 0);
	if (!f)
		return SYSCALL_LEAN_DECLINE;
	struct perf_event *e = f->priv;
	int me = (int)this_cpu_id();
	spin_lock(&perf_lock); /* interrupts are off already */
	bool here = soft_lone_here(e, me);
	if (here) {
		if (c == PERF_EVENT_IOC_ENABLE)
			soft_enable(e, me);
		else if (c == PERF_EVENT_IOC_DISABLE)
			soft_disable(e);
		else
			soft_reset(e, me);
	}
	spin_unlock(&perf_lock);
	return here ? 0 : SYSCALL_LEAN_DECLINE;
}

void perf_fops_init(void)
{
	syscall_lean_register(__NR_read, perf_read_lean);
	syscall_lean_register(__NR_ioctl, perf_ioctl_lean);
	perf_quick_init();
}

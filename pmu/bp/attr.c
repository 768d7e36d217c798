/*
 * What a breakpoint may be, with the errnos of Linux (x86's
 * hw_breakpoint_arch_parse, the generic hw_breakpoint_parse), and
 * PERF_EVENT_IOC_MODIFY_ATTRIBUTES (Linux's perf_event_modify_attr).
 *
 * The attr fields: bp_type (HW_BREAKPOINT_W, _RW, _X; _R alone is
 * refused on x86, which has no read-only watchpoints), bp_addr, bp_len
 * (1, 2, 4 or 8 bytes, the address aligned to it; an execute breakpoint
 * takes sizeof(long) and any address).
 */
#include <stddef.h>
#include <string.h>
#include <linux/errno.h>
#include <linux/hw_breakpoint.h>
#include "breakpoint.h"
#include "pmu/events/event.h"
#include "core/kernel.h"
#include "core/proc/task.h"
#include "core/mm/uaccess.h"
#include "core/fs/vfs.h"

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/* Is any byte the breakpoint watches a kernel address? (An execute
 * breakpoint watches one byte.) */
static bool in_kernel(const struct perf_event_attr *a)
{
	uint64_t len = a->bp_type == HW_BREAKPOINT_X ? 1 : a->bp_len;
	return a->bp_addr >= USER_TOP || a->bp_addr + len - 1 >= USER_TOP;
}

/* Kernel data the #DB path needs, as Linux's CPU entry area. */
static bool unsafe(const struct perf_event_attr *a)
{
	if (!in_kernel(a))
		return false;
	uint64_t len = a->bp_len ? a->bp_len : 1;
	return bp_unsafe_range(a->bp_addr, a->bp_addr + len);
}

/* x86's arch_build_bp_info and alignment rule. */
static int arch_parse(const struct perf_event_attr *a)
{
	if (unsafe(a))
		return -EINVAL;
	switch (a->bp_type) {
	case HW_BREAKPOINT_W:
	case HW_BREAKPOINT_RW:
		break;
	case HW_BREAKPOINT_X:
		/* No kernel instruction breakpoints: Linux without kprobes. */
		if (a->bp_addr >= USER_TOP)
			return -EINVAL;
		return a->bp_len == sizeof(long) ? 0 : -EINVAL;
	default:
		return -EINVAL;
	}
	switch (a->bp_len) {
	case 1: case 2: case 4: case 8:
		return a->bp_addr & (a->bp_len - 1) ? -EINVAL : 0;
	default:
		/* A larger aligned power of two would be an AMD range
		 * breakpoint (BPEXT), which baremon does not program. */
		if (!is_pow2(a->bp_len) || (a->bp_addr & (a->bp_len - 1)))
			return -EINVAL;
		return -EOPNOTSUPP;
	}
}

int bp_parse(const struct perf_event_attr *a)
{
	int r = arch_parse(a);
	if (r)
		return r;
	if (in_kernel(a)) {
		if (a->exclude_kernel)
			return -EINVAL;
		if (current->euid != 0)
			return -EPERM; /* CAP_SYS_ADMIN: no trap path games */
	}
	return 0;
}

/* ---- PERF_EVENT_IOC_MODIFY_ATTRIBUTES ---- */

static int attr_too_big(uint64_t uattr)
{
	put_user((uint32_t)sizeof(struct perf_event_attr),
		 (uint32_t *)(uattr + offsetof(struct perf_event_attr, size)));
	return -E2BIG;
}

/* The checks of Linux's perf_copy_attr on fields a breakpoint has. */
static bool attr_flags_ok(const struct perf_event_attr *a)
{
	return !a->__reserved_1 && !a->__reserved_2 && !a->__reserved_3 &&
	       !(a->sample_type & ~(PERF_SAMPLE_MAX - 1)) &&
	       !(a->read_format & ~(PERF_FORMAT_MAX - 1)) &&
	       !(a->inherit_thread && !a->inherit) &&
	       !(a->remove_on_exec && a->enable_on_exec) &&
	       !(a->sigtrap && !a->remove_on_exec);
}

/* Linux's perf_copy_attr: the size protocol (E2BIG with our size written
 * back, bytes past our struct must be zero), then its EINVAL checks. */
static int copy_attr(uint64_t uattr, struct perf_event_attr *a)
{
	uint32_t size;
	memset(a, 0, sizeof(*a));
	if (get_user(size, (uint32_t *)(uattr + offsetof(struct perf_event_attr, size))))
		return -EFAULT;
	if (!size)
		size = PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0 || size > PAGE_SIZE)
		return attr_too_big(uattr);
	size_t known = size < sizeof(*a) ? size : sizeof(*a);
	if (copy_from_user(a, (void *)uattr, known))
		return -EFAULT;
	for (size_t off = sizeof(*a); off < size; off++) {
		uint8_t b;
		if (get_user(b, (uint8_t *)(uattr + off)))
			return -EFAULT;
		if (b)
			return attr_too_big(uattr);
	}
	a->size = size;
	return attr_flags_ok(a) ? 0 : -EINVAL;
}

/* Linux stores sample_max_stack 0 as the sysctl's value. */
static void normalize(struct perf_event_attr *a)
{
	if (!a->sample_max_stack)
		a->sample_max_stack = (uint16_t)sysctl_perf_event_max_stack();
}

/* Linux's modify_user_hw_breakpoint_check: a valid breakpoint that
 * differs from e's attr only in bp_addr, bp_type, bp_len, disabled (and
 * sig_data, which the ioctl takes whatever happens). */
static int modify_check(const struct perf_event *e, const struct perf_event_attr *a)
{
	int r = bp_parse(a);
	if (r)
		return r;
	struct perf_event_attr want = *a, old = e->attr;
	old.bp_addr = a->bp_addr;
	old.bp_type = a->bp_type;
	old.bp_len = a->bp_len;
	old.disabled = a->disabled;
	old.sig_data = a->sig_data;
	normalize(&old);
	normalize(&want);
	return memcmp(&old, &want, sizeof(old)) ? -EINVAL : 0;
}

/* e and its inherited copies take a's breakpoint. Under perf_lock. */
static void apply(struct perf_event *e, const struct perf_event_attr *a, int depth)
{
	e->attr.bp_addr = a->bp_addr;
	e->attr.bp_type = a->bp_type;
	e->attr.bp_len = a->bp_len;
	e->attr.disabled = a->disabled;
	if (depth >= 8)
		return;
	list_for_each(n, &e->child_list)
		apply(list_entry(n, struct perf_event, child_node), a, depth + 1);
}

/*
 * As Linux: the event is disabled around the change and enabled again
 * unless its attr (the new one, or the old after a failure) says
 * disabled. Its inherited copies keep their state and take the new
 * breakpoint wherever they are on a CPU now (bp_reload_all).
 */
long perf_bp_modify(struct perf_event *e, uint64_t uattr)
{
	struct perf_event_attr a;
	int r = copy_attr(uattr, &a);
	if (r)
		return r;
	/* Linux compares with the type of the PMU that took the event: its
	 * cpu-clock and task-clock have PMUs of their own, not type 1. */
	bool clock = e->attr.type == PERF_TYPE_SOFTWARE &&
		     (e->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
		      e->attr.config == PERF_COUNT_SW_TASK_CLOCK);
	if (a.type != e->attr.type || clock)
		return -EINVAL;
	if (e->pmu != &perf_bp_pmu)
		return -EOPNOTSUPP; /* Linux modifies breakpoints only */
	uint64_t f = spin_lock_irqsave(&perf_lock);
	e->attr.sig_data = a.sig_data;
	spin_unlock_irqrestore(&perf_lock, f);
	event_disable(e, false);
	r = modify_check(e, &a);
	if (!r) {
		f = spin_lock_irqsave(&perf_lock);
		apply(e, &a, 0);
		spin_unlock_irqrestore(&perf_lock, f);
		bp_reload_all();
	}
	if (!e->attr.disabled)
		event_enable(e, false);
	return r;
}

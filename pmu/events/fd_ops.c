/*
 * The perf event file: read(2) in every read_format layout, the
 * PERF_EVENT_IOC_* ioctls, poll, and release when the last fd closes.
 */
#include <string.h>
#include <linux/errno.h>
#include <linux/poll.h>
#include "pmu/bp/breakpoint.h"
#include "event.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "notify.h"
#include "export/ioctl.h"
#include "pmu/perf.h"
#include "ringbuf/ringbuf.h"
#include "core/proc/task.h"
#include "core/mm/uaccess.h"
#include "core/fs/vfs.h"
#include "core/arch/percpu.h"
#include "core/proc/syscall.h"

static int siblings_of(const struct perf_event *l)
{
	int n = 0;
	list_for_each(node, &l->siblings)
		n++;
	return n;
}

int perf_read_size(const struct perf_event *e)
{
	uint64_t f = e->attr.read_format;
	int per_value = 1 + !!(f & PERF_FORMAT_ID) + !!(f & PERF_FORMAT_LOST);
	int head = !!(f & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		   !!(f & PERF_FORMAT_TOTAL_TIME_RUNNING);
	if (f & PERF_FORMAT_GROUP)
		return 8 * (1 + head + per_value * (1 + siblings_of(e->leader)));
	return 8 * (head + per_value);
}

/* Append one event's value (and id, lost) to out. */
static int put_value(uint64_t *out, int n, struct perf_event *e, uint64_t value)
{
	uint64_t f = e->attr.read_format;
	out[n++] = value;
	if (f & PERF_FORMAT_ID)
		out[n++] = e->id;
	if (f & PERF_FORMAT_LOST)
		out[n++] = e->lost_samples; /* records its buffer dropped */
	return n;
}

/* Fill out (perf_read_size bytes) under perf_lock. Layouts (see
 * <linux/perf_event.h>): one event: value, [enabled], [running], [id],
 * [lost]; a group: nr, [enabled], [running], then value, [id], [lost]
 * for the leader and each sibling in creation order. */
void perf_format_read(struct perf_event *e, uint64_t *out)
{
	uint64_t f = e->attr.read_format;
	uint64_t value, enabled, running;
	int n = 0;
	struct perf_event *l = (f & PERF_FORMAT_GROUP) ? e->leader : e;
	event_totals(l, &value, &enabled, &running);
	if (f & PERF_FORMAT_GROUP)
		out[n++] = 1 + (uint64_t)siblings_of(l);
	else
		out[n++] = value;
	if (f & PERF_FORMAT_TOTAL_TIME_ENABLED)
		out[n++] = enabled;
	if (f & PERF_FORMAT_TOTAL_TIME_RUNNING)
		out[n++] = running;
	if (!(f & PERF_FORMAT_GROUP)) {
		if (f & PERF_FORMAT_ID)
			out[n++] = e->id;
		if (f & PERF_FORMAT_LOST)
			out[n++] = e->lost_samples; /* records its buffer dropped */
		return;
	}
	n = put_value(out, n, l, value);
	list_for_each(node, &l->siblings) {
		struct perf_event *s = list_entry(node, struct perf_event, sibling_node);
		uint64_t v, en, run;
		event_totals(s, &v, &en, &run);
		n = put_value(out, n, s, v);
	}
}

/* Format under perf_lock into buf (room bytes): the size, or -ENOSPC
 * for a short user buffer, or -E2BIG if room is too small; 0 for an
 * event in the error state. */
static int read_locked(struct perf_event *e, uint64_t *buf, int room, size_t resid)
{
	uint64_t fl = spin_lock_irqsave(&perf_lock);
	int size = 0;
	if (e->state != EVENT_ERROR) { /* a pinned group off its counters */
		size = perf_read_size(e);
		if (resid < (size_t)size)
			size = -ENOSPC;
		else if (size > room)
			size = -E2BIG;
		else
			perf_format_read(e, buf);
	}
	spin_unlock_irqrestore(&perf_lock, fl);
	return size;
}

static long perf_read(struct file *file, struct uio *u, uint64_t *pos)
{
	(void)pos;
	struct perf_event *e = file->priv;
	uint64_t small[64];
	event_sync_remote(e);
	int size = read_locked(e, small, sizeof(small), u->resid);
	if (size > 0)
		return uio_copy_out(u, small, (size_t)size);
	if (size != -E2BIG)
		return size;
	/* A big group: open keeps every read within MAX_READ_SIZE. */
	uint64_t *big = kmalloc(MAX_READ_SIZE);
	if (!big)
		return -ENOMEM;
	size = read_locked(e, big, MAX_READ_SIZE, u->resid);
	long r = size > 0 ? uio_copy_out(u, big, (size_t)size) : size;
	kfree(big);
	return r;
}

/*
 * read(2)'s common case, straight from sys_read (file_ops.read_direct)
 * when the lean path (lone_fd_ops.c) was not taken or declined: one event
 * read alone (no PERF_FORMAT_GROUP), read_format with at most the two
 * times, a buffer that holds it, and the counter readable here
 * (event_read_here). One lock, the counter read in place, one user copy.
 * Anything else goes the general way (perf_read): -ENOIOCTLCMD.
 */
static long perf_read_direct(struct file *file, uint64_t ubuf, size_t n)
{
	const uint64_t times = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	struct perf_event *e = file->priv;
	uint64_t f = e->attr.read_format, out[3];
	if ((f & ~times) || (n < 24 && n < (size_t)perf_read_size(e)))
		return -ENOIOCTLCMD; /* another layout, or ENOSPC */
	size_t size = 8 * (size_t)event_read_here(e, out);
	if (!size)
		return -ENOIOCTLCMD;
	return copy_to_user((void *)ubuf, out, size) ? -EFAULT : (long)size;
}

/* PERF_EVENT_IOC_SET_OUTPUT: -1 (the whole argument) or another perf
 * event's fd; anything else is EBADF, as Linux's perf_fget_light. */
static long set_output(struct perf_event *e, uint64_t arg)
{
	if (arg == (uint64_t)-1)
		return perf_event_set_output(e, NULL);
	struct file *f = arg <= INT32_MAX ? fget((int)arg) : NULL;
	if (!f)
		return -EBADF;
	long r = f->ops == &perf_fops ? perf_event_set_output(e, f->priv) : -EBADF;
	file_put(f);
	return r;
}

/* Linux copies the filter string in (strndup_user: EFAULT if it cannot)
 * before it finds no filter language for the event (EINVAL). */
static long set_filter(uint64_t arg)
{
	for (uint64_t i = 0; i < PAGE_SIZE; i++) {
		uint8_t c;
		if (get_user(c, (uint8_t *)(arg + i)))
			return -EFAULT;
		if (!c)
			break;
	}
	return -EINVAL;
}

/* No BPF programs exist: an open fd is not one (EINVAL), a closed one is
 * EBADF, as Linux's bpf_prog_get says. */
static long set_bpf(uint64_t arg)
{
	struct file *f = fget((int)(uint32_t)arg);
	if (!f)
		return -EBADF;
	file_put(f);
	return -EINVAL;
}

static long perf_ioctl(struct file *file, unsigned cmd, uint64_t arg)
{
	struct perf_event *e = file->priv;
	bool group = arg & PERF_IOC_FLAG_GROUP;
	long r = 0;
	switch (cmd) {
	case PERF_EVENT_IOC_ENABLE:
	case PERF_EVENT_IOC_DISABLE:
	case PERF_EVENT_IOC_RESET:
	{
		void (*fn)(struct perf_event *, bool) = cmd == PERF_EVENT_IOC_ENABLE ? event_enable
						      : cmd == PERF_EVENT_IOC_DISABLE ? event_disable
						      : event_reset;
		fn(e, group);
		/* Linux's perf_event_for_each(_child): the copies too. */
		event_control_copies(group ? e->leader : e, fn, group);
		return 0;
	}
	case PERF_EVENT_IOC_ID:
		return put_user(e->id, (uint64_t *)arg) ? -EFAULT : 0;
	case PERF_EVENT_IOC_REFRESH:
		return perf_refresh(e, (int)arg);
	case PERF_EVENT_IOC_BAREMON_JITTER:
		return perf_set_jitter(e, arg);
	case PERF_EVENT_IOC_BAREMON_EXPORT:
		return perf_export_ioctl(e, arg);
	case PERF_EVENT_IOC_PERIOD: {
		uint64_t period;
		if (copy_from_user(&period, (void *)arg, sizeof(period)))
			return -EFAULT;
		return perf_event_set_period(e, period);
	}
	case PERF_EVENT_IOC_SET_OUTPUT:
		return set_output(e, arg);
	case PERF_EVENT_IOC_SET_FILTER:
		return set_filter(arg);
	case PERF_EVENT_IOC_QUERY_BPF:
		return -EINVAL; /* no BPF here: as Linux for an event without it */
	case PERF_EVENT_IOC_PAUSE_OUTPUT:
		return perf_event_pause_output(e, arg != 0);
	case PERF_EVENT_IOC_SET_BPF:
		return set_bpf(arg);
	case PERF_EVENT_IOC_MODIFY_ATTRIBUTES:
		return perf_bp_modify(e, arg); /* EOPNOTSUPP but for breakpoints */
	default:
		r = -ENOTTY;
	}
	return r;
}

/* POLLIN once per buffer wake-up (ringbuf/write.c's rules), POLLHUP once the
 * monitored task is gone. */
static unsigned perf_poll(struct file *file)
{
	struct perf_event *e = file->priv;
	unsigned mask = e->task_exited ? POLLHUP : 0;
	if (e->rb && rb_poll(e->rb))
		mask |= POLLIN | POLLRDNORM;
	return mask;
}

static void perf_release(struct file *file)
{
	event_put(file->priv);
}

const struct file_ops perf_fops = {
	.read = perf_read,
	.read_direct = perf_read_direct,
	.ioctl = perf_ioctl,
	.poll = perf_poll,
	.release = perf_release,
	.mmap = perf_mmap,
	.fasync = perf_fasync,
};

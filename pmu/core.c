/*
 * perf_event_open(2) and the event core: attribute checks in Linux's
 * order and with its errnos, contexts (per task and per CPU), groups,
 * enabling and time accounting. See event.h for the locking rule.
 */
#include <string.h>
#include <linux/errno.h>
#include <linux/fcntl.h>
#include "event.h"
#include "kernel.h"
#include "mm.h"
#include "percpu.h"
#include "perf.h"
#include "smp.h"
#include "sched.h"
#include "syscall.h"
#include "task.h"
#include "tasks.h"
#include "tsc.h"
#include "uaccess.h"
#include "vfs.h"

struct spinlock perf_lock = SPINLOCK_INIT("perf");
static struct list cpu_events[MAX_CPUS];   /* CPU events' leaders */
static uint64_t next_id = 1;

#define PERF_FLAG_ALL (PERF_FLAG_FD_NO_GROUP | PERF_FLAG_FD_OUTPUT | \
		       PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC)

void perf_init(void)
{
	perf_pmu_register(&perf_sw_pmu, PERF_TYPE_SOFTWARE);
	perf_pmu_register(&perf_tracepoint_pmu, PERF_TYPE_TRACEPOINT);
	intel_pmu_init();
	for (unsigned c = 0; c < MAX_CPUS; c++)
		list_init(&cpu_events[c]);
}

struct list *perf_cpu_events(unsigned cpu)
{
	return &cpu_events[cpu];
}

/* ---- time and state ---- */

bool event_context_active(struct perf_event *e)
{
	if (!e->task)
		return true;
	return e->task->state != TASK_ZOMBIE && e->task->state != TASK_DEAD &&
	       e->task->on_cpu >= 0 && percpu_area[e->task->on_cpu].running == e->task;
}

void event_update(struct perf_event *e, uint64_t now)
{
	uint64_t delta = now - e->tstamp;
	e->tstamp = now;
	if (e->state >= EVENT_INACTIVE && (e->state == EVENT_ACTIVE || !e->task))
		e->enabled_ns += delta;
	if (e->state == EVENT_ACTIVE)
		e->running_ns += delta;
}

void event_sched_in(struct perf_event *e, uint64_t now)
{
	event_update(e, now);
	if (e->state != EVENT_INACTIVE)
		return;
	if (e->leader != e && e->leader->state < EVENT_INACTIVE)
		return; /* a sibling counts only with its leader */
	if (e->cpu >= 0 && (unsigned)e->cpu != this_cpu_id())
		return; /* bound to another CPU */
	e->state = EVENT_ACTIVE;
	e->pmu->start(e, now);
}

void event_sched_out(struct perf_event *e, uint64_t now)
{
	event_update(e, now);
	if (e->state != EVENT_ACTIVE)
		return;
	e->pmu->stop(e, now);
	e->state = EVENT_INACTIVE;
}

/* Apply fn to e, or to its whole group. */
static void for_group(struct perf_event *e, bool group,
		      void (*fn)(struct perf_event *, uint64_t), uint64_t now)
{
	struct perf_event *l = group ? e->leader : e;
	fn(l, now);
	if (!group)
		return;
	list_for_each(n, &l->siblings)
		fn(list_entry(n, struct perf_event, sibling_node), now);
}

static bool context_here(struct perf_event *e)
{
	return e->task ? e->task == current : (unsigned)e->cpu == this_cpu_id();
}

static void enable_one(struct perf_event *e, uint64_t now)
{
	event_update(e, now);
	if (e->state != EVENT_OFF)
		return;
	e->state = EVENT_INACTIVE;
	if (!context_here(e))
		return; /* it starts when its task is next switched in */
	event_sched_in(e, now);
	if (e->leader == e) /* its enabled siblings start with it */
		list_for_each(n, &e->siblings)
			event_sched_in(list_entry(n, struct perf_event, sibling_node), now);
}

static void disable_one(struct perf_event *e, uint64_t now)
{
	event_sched_out(e, now);
	if (e->state == EVENT_INACTIVE)
		e->state = EVENT_OFF;
	if (e->leader == e) /* the group stops with its leader */
		list_for_each(n, &e->siblings)
			event_sched_out(list_entry(n, struct perf_event, sibling_node), now);
}

static void reset_one(struct perf_event *e, uint64_t now)
{
	bool active = e->state == EVENT_ACTIVE;
	if (active)
		e->pmu->stop(e, now);
	e->count = 0;
	e->child_count = 0;
	if (active)
		e->pmu->start(e, now);
}

void event_enable(struct perf_event *e, bool group) { for_group(e, group, enable_one, time_since_boot_ns()); }
void event_disable(struct perf_event *e, bool group) { for_group(e, group, disable_one, time_since_boot_ns()); }
void event_reset(struct perf_event *e, bool group) { for_group(e, group, reset_one, time_since_boot_ns()); }

/* Totals of e and of its live inherited copies (depth-limited). */
static void totals_at(struct perf_event *e, uint64_t now, int depth,
		      uint64_t *value, uint64_t *enabled, uint64_t *running)
{
	event_update(e, now);
	*value += (e->state == EVENT_ACTIVE ? e->pmu->read(e, now) : e->count) +
		  e->child_count;
	*enabled += e->enabled_ns + e->child_enabled_ns;
	*running += e->running_ns + e->child_running_ns;
	if (depth >= 8)
		return;
	list_for_each(n, &e->child_list)
		totals_at(list_entry(n, struct perf_event, child_node), now, depth + 1,
			  value, enabled, running);
}

void event_totals(struct perf_event *e, uint64_t *value, uint64_t *enabled,
		  uint64_t *running)
{
	*value = *enabled = *running = 0;
	totals_at(e, time_since_boot_ns(), 0, value, enabled, running);
}

/* ---- scheduler hooks ---- */

static void sched_list(struct list *events, bool in, uint64_t now)
{
	list_for_each(n, events) {
		struct perf_event *l = list_entry(n, struct perf_event, ctx_node);
		for_group(l, true, in ? event_sched_in : event_sched_out, now);
	}
}

void perf_sched_out(struct task *prev)
{
	if (list_empty(&prev->perf_events) && list_empty(&cpu_events[this_cpu_id()]))
		return;
	/* Count the switch while prev's events still count. The idle
	 * task's switches are not context switches. */
	if (prev->tid)
		perf_sw_event(PERF_COUNT_SW_CONTEXT_SWITCHES, 1, PERF_SW_ANY);
	uint64_t now = time_since_boot_ns();
	spin_lock(&perf_lock);
	sched_list(&prev->perf_events, false, now);
	spin_unlock(&perf_lock);
}

void perf_sched_in(struct task *next)
{
	unsigned cpu = this_cpu_id();
	if (next->perf_last_cpu >= 0 && next->perf_last_cpu != (int)cpu && next->tid) {
		next->perf_last_cpu = (int)cpu;
		if (!list_empty(&next->perf_events)) {
			spin_lock(&perf_lock);
			sched_list(&next->perf_events, true, time_since_boot_ns());
			spin_unlock(&perf_lock);
		}
		perf_sw_event(PERF_COUNT_SW_CPU_MIGRATIONS, 1, PERF_SW_ANY);
		return;
	}
	next->perf_last_cpu = (int)cpu;
	if (list_empty(&next->perf_events))
		return;
	spin_lock(&perf_lock);
	sched_list(&next->perf_events, true, time_since_boot_ns());
	spin_unlock(&perf_lock);
}

/* ---- opening ---- */

/* perf_copy_attr: the size protocol of Linux's copy_struct_from_user. */
static int copy_attr(uint64_t uattr, struct perf_event_attr *attr)
{
	uint32_t size;
	memset(attr, 0, sizeof(*attr));
	if (get_user(size, (uint32_t *)(uattr + offsetof(struct perf_event_attr, size))))
		return -EFAULT;
	if (size > PAGE_SIZE)
		goto too_big;
	if (!size)
		size = PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0)
		goto too_big;
	size_t known = size < sizeof(*attr) ? size : sizeof(*attr);
	if (copy_from_user(attr, (void *)uattr, known))
		return -EFAULT;
	/* Bytes past what we know must be zero. */
	for (size_t off = sizeof(*attr); off < size; off++) {
		uint8_t b;
		if (get_user(b, (uint8_t *)(uattr + off)))
			return -EFAULT;
		if (b)
			goto too_big;
	}
	attr->size = size;
	return 0;
too_big:
	put_user((uint32_t)sizeof(*attr),
		 (uint32_t *)(uattr + offsetof(struct perf_event_attr, size)));
	return -E2BIG;
}

static int check_attr(const struct perf_event_attr *a)
{
	if (a->__reserved_1 || a->__reserved_2 || a->__reserved_3)
		return -EINVAL;
	if (a->sample_type & ~(PERF_SAMPLE_MAX - 1))
		return -EINVAL;
	if (a->read_format & ~(PERF_FORMAT_MAX - 1))
		return -EINVAL;
	if (a->freq && a->sample_freq > (uint64_t)sysctl_perf_event_max_sample_rate())
		return -EINVAL;
	if (!a->freq && (a->sample_period & (1ULL << 63)))
		return -EINVAL;
	if (a->sigtrap && !a->remove_on_exec)
		return -EINVAL;
	if (a->inherit_thread && !a->inherit)
		return -EINVAL;
	if (a->remove_on_exec && a->enable_on_exec)
		return -EINVAL;
	return 0;
}

/* perf_event_paranoid: 2 allows user-only measurement of one's own tasks;
 * root bypasses. */
static int check_permission(const struct perf_event_attr *a, int pid, int cpu)
{
	int paranoid = sysctl_perf_event_paranoid();
	if (current->euid == 0)
		return 0;
	if (!a->exclude_kernel && paranoid > 1)
		return -EACCES;
	if (pid == -1 && cpu >= 0 && paranoid > 0)
		return -EACCES;
	return 0;
}

static struct perf_event *group_leader_of(int group_fd, struct file **gf)
{
	*gf = NULL;
	if (group_fd == -1)
		return NULL;
	struct file *f = fget(group_fd);
	if (!f)
		return ERR_PTR(-EBADF);
	if (f->ops != &perf_fops) {
		file_put(f);
		return ERR_PTR(-EBADF);
	}
	*gf = f;
	return f->priv;
}

static struct perf_event *event_new(const struct perf_event_attr *attr,
				    struct task *task, int cpu)
{
	struct perf_event *e = kzalloc(sizeof(*e));
	if (!e)
		return NULL;
	e->attr = *attr;
	e->task = task;
	e->cpu = cpu;
	e->leader = e;
	e->refs = 1;
	e->state = attr->disabled ? EVENT_OFF : EVENT_INACTIVE;
	list_init(&e->siblings);
	list_init(&e->sibling_node);
	list_init(&e->ctx_node);
	list_init(&e->owner_node);
	list_init(&e->child_list);
	list_init(&e->child_node);
	e->tstamp = time_since_boot_ns();
	uint64_t f = spin_lock_irqsave(&perf_lock);
	e->id = next_id++;
	spin_unlock_irqrestore(&perf_lock, f);
	return e;
}

/* Attach e to its context (or its leader's group) and start it if its
 * context is running here. Caller holds perf_lock. */
void event_attach(struct perf_event *e, struct perf_event *leader)
{
	if (leader) {
		e->leader = leader;
		list_add_tail(&e->sibling_node, &leader->siblings);
	} else {
		list_add_tail(&e->ctx_node, e->task ? &e->task->perf_events
						   : &cpu_events[e->cpu]);
	}
	bool here = e->task ? e->task == current
			    : (unsigned)e->cpu == this_cpu_id();
	if (here && e->leader->state >= EVENT_INACTIVE)
		event_sched_in(e, time_since_boot_ns());
}

static struct task *target_task(int pid)
{
	if (pid == 0)
		return current;
	struct task *t = task_find(pid);
	return t && t->mm ? t : NULL;
}

SYSCALL_DEFINE(perf_event_open)
{
	SYSCALL_UNUSED_ARGS();
	uint64_t uattr = a0;
	int pid = (int)a1, cpu = (int)a2, group_fd = (int)a3;
	uint64_t flags = a4;
	struct perf_event_attr attr;

	if (flags & ~PERF_FLAG_ALL)
		return -EINVAL;
	int r = copy_attr(uattr, &attr);
	if (!r)
		r = check_attr(&attr);
	if (r)
		return r;
	if (flags & PERF_FLAG_PID_CGROUP)
		return pid == -1 || cpu == -1 ? -EINVAL : -EBADF; /* no cgroups */
	struct task *task = NULL;
	if (pid != -1) {
		if (pid < -1)
			return -ESRCH;
		if (!(task = target_task(pid)))
			return -ESRCH;
	}
	/* Every possible CPU is online here (no hotplug): anything else is
	 * past nr_cpu_ids, EINVAL as on Linux. */
	if (cpu < -1 || cpu >= (int)MAX_CPUS || (cpu >= 0 && !(sched_online_mask() >> cpu & 1)))
		return -EINVAL;
	if (!task && cpu == -1)
		return -EINVAL;
	if ((r = check_permission(&attr, pid, cpu)) != 0)
		return r;
	struct file *gf;
	struct perf_event *leader = group_leader_of(group_fd, &gf);
	if (IS_ERR(leader))
		return PTR_ERR(leader);
	r = 0;
	if (leader && (leader->leader != leader || leader->task != task ||
		       leader->cpu != cpu))
		r = -EINVAL; /* a sibling must share its leader's context */
	struct pmu *pmu = r ? NULL : perf_pmu_find(attr.type);
	if (!r && !pmu)
		r = -ENOENT;
	struct perf_event *e = r ? NULL : event_new(&attr, task, cpu);
	if (!r && !e)
		r = -ENOMEM;
	if (!r) {
		e->pmu = pmu;
		r = pmu->event_init(e);
	}
	struct file *f = NULL;
	if (!r) {
		f = file_new_anon(&perf_fops, e, O_RDWR, 0600);
		if (!f)
			r = -ENOMEM;
		else
			f->fmode |= FMODE_ZERO_IO; /* a 0-byte read is ENOSPC */
	}
	int fd = r;
	if (!r) {
		fd = fd_install(current->files, f, (flags & PERF_FLAG_FD_CLOEXEC) ? O_CLOEXEC : 0);
		if (fd < 0)
			file_put(f); /* releases e too */
	}
	if (r && e)
		kfree(e);
	if (fd >= 0) {
		uint64_t fl = spin_lock_irqsave(&perf_lock);
		e->owner = current;
		list_add_tail(&e->owner_node, &current->perf_owned);
		event_attach(e, leader);
		spin_unlock_irqrestore(&perf_lock, fl);
	}
	if (gf)
		file_put(gf);
	return fd;
}

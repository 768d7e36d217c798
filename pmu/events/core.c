/*
 * perf_event_open(2) and the event core: attribute checks in Linux's
 * order and with its errnos, contexts (per task and per CPU), groups,
 * enabling and time accounting. See event.h for the locking rule.
 */
#include "pmu/x86/rdpmc.h"
#include <string.h>
#include <linux/errno.h>
#include <linux/fcntl.h>
#include <asm/perf_regs.h>
#include "event.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "core/arch/percpu.h"
#include "pmu/perf.h"
#include "pmu/records/records.h"
#include "ringbuf/ringbuf.h"
#include "core/arch/smp.h"
#include "core/proc/sched.h"
#include "core/proc/syscall.h"
#include "core/proc/task.h"
#include "core/proc/tasks.h"
#include "core/arch/tsc.h"
#include "core/mm/uaccess.h"
#include "core/fs/vfs.h"
#include "core/fs/fs.h"
#include "open.h"

struct spinlock perf_lock = SPINLOCK_INIT("perf");
static uint64_t next_id = 1;     /* atomic: ids are taken without perf_lock */
static int callchain_events;  /* open events sampling callchains (atomic) */

int perf_callchain_events(void)
{
	return __atomic_load_n(&callchain_events, __ATOMIC_RELAXED);
}

void perf_callchain_put(struct perf_event *e)
{
	if (!e->parent && (e->attr.sample_type & PERF_SAMPLE_CALLCHAIN))
		__atomic_fetch_sub(&callchain_events, 1, __ATOMIC_RELAXED);
}

static void event_inode_init(void);

#define PERF_FLAG_ALL (PERF_FLAG_FD_NO_GROUP | PERF_FLAG_FD_OUTPUT | \
		       PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC)

void perf_init(void)
{
	perf_sched_init();
	perf_xcall_init();
	perf_fops_init();
	event_inode_init();
	perf_open_lean_init();
	perf_pmu_register(&perf_sw_pmu, PERF_TYPE_SOFTWARE);
	perf_pmu_register(&perf_tracepoint_pmu, PERF_TYPE_TRACEPOINT);
	perf_tracefs_init();
	perf_msr_pmu_init();
	intel_pmu_init();
	amd_pmu_init();
	perf_rdpmc_init();
	perf_bp_pmu_init();
}

/* ---- changing a context ---- */

struct ctx_call {
	struct perf_event *e;
	void (*fn)(struct perf_event *, void *, uint64_t);
	void *arg;
	bool resched;  /* groups off and back on around fn (else fn alone) */
	bool done;
};

/* The change, on the CPU whose counters hold e's context, under
 * perf_lock. One instant for off and on: it takes no counting time. */
static void change_here(struct ctx_call *c)
{
	uint64_t now = time_since_boot_ns();
	if (c->resched)
		perf_cpu_sched_out(now);
	c->fn(c->e, c->arg, now);
	if (c->resched)
		perf_cpu_sched_in(now);
	c->done = true;
}

/* By IPI on the CPU that had e's context, unless it moved away since. */
static void ctx_call_here(void *p)
{
	struct ctx_call *c = p;
	spin_lock(&perf_lock);
	if (event_ctx_cpu(c->e) == (int)this_cpu_id())
		change_here(c);
	spin_unlock(&perf_lock);
}

static void no_change(struct perf_event *e, void *arg, uint64_t now)
{
	(void)e, (void)arg, (void)now;
}

/* Run fn where e's context is, with (resched) or without a new pass. */
static void ctx_call(struct perf_event *e, void (*fn)(struct perf_event *, void *, uint64_t),
		     void *arg, bool resched)
{
	struct ctx_call c = { e, fn, arg, resched, false };
	for (;;) {
		uint64_t f = spin_lock_irqsave(&perf_lock);
		int cpu = event_ctx_cpu(e);
		if (cpu < 0) {
			fn(e, arg, time_since_boot_ns()); /* no counters involved */
			spin_unlock_irqrestore(&perf_lock, f);
			/* Its task may have been switched in meanwhile without
			 * seeing the change: have that CPU look again. */
			cpu = event_ctx_cpu(e);
			if (cpu >= 0) {
				c.fn = no_change;
				c.resched = true;
				perf_xcall((unsigned)cpu, ctx_call_here, &c);
			}
			return;
		}
		if (cpu == (int)this_cpu_id()) { /* here: no IPI, one lock */
			change_here(&c);
			spin_unlock_irqrestore(&perf_lock, f);
			return;
		}
		spin_unlock_irqrestore(&perf_lock, f);
		perf_xcall((unsigned)cpu, ctx_call_here, &c);
		if (c.done)
			return;
	}
}

void perf_ctx_call(struct perf_event *e,
		   void (*fn)(struct perf_event *, void *, uint64_t), void *arg)
{
	ctx_call(e, fn, arg, true);
}

/* ---- enable, disable, reset (the ioctls, prctl, exec) ---- */

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

/* These run with e's context off the counters (perf_ctx_call). */
static void enable_one(struct perf_event *e, uint64_t now)
{
	event_update(e, now);
	if (e->state == EVENT_OFF || e->state == EVENT_ERROR)
		e->state = EVENT_INACTIVE;
}

/* As Linux's __perf_event_disable: off the counters (a leader with its
 * group), no new pass (waiting groups get the counters at the next
 * rotation or switch); an event in error stays in error. */
static void disable_one(struct perf_event *e, uint64_t now)
{
	if (e->state == EVENT_ACTIVE)
		perf_event_off_here(e, now);
	event_update(e, now);
	if (e->state == EVENT_INACTIVE)
		e->state = EVENT_OFF;
}

static void reset_one(struct perf_event *e, uint64_t now)
{
	(void)now;
	e->count = 0;
	e->child_count = 0;
}

static void enable_fn(struct perf_event *e, void *group, uint64_t now) { for_group(e, group != NULL, enable_one, now); }
static void disable_fn(struct perf_event *e, void *group, uint64_t now) { for_group(e, group != NULL, disable_one, now); }
static void reset_fn(struct perf_event *e, void *group, uint64_t now) { for_group(e, group != NULL, reset_one, now); }

/* A lone software leader whose context is on this CPU's counters now:
 * ENABLE and attach change it in place (perf_soft_group_on_here), with
 * no pass over the other groups and no IPI. Only the software PMU's
 * add() can never fail (a breakpoint's can, after racing opens, and the
 * full pass then decides). Under perf_lock. */
bool perf_soft_alone_here(const struct perf_event *e)
{
	return e->leader == e && list_empty(&e->siblings) && e->pmu == &perf_sw_pmu &&
	       event_ctx_cpu(e) == (int)this_cpu_id() &&
	       (!e->task || e->task->perf_ctx_in);
}

static bool enable_here(struct perf_event *e)
{
	uint64_t f = spin_lock_irqsave(&perf_lock);
	bool here = perf_soft_alone_here(e);
	if (here) {
		uint64_t now = time_since_boot_ns();
		enable_one(e, now);
		perf_soft_group_on_here(e, now);
	}
	spin_unlock_irqrestore(&perf_lock, f);
	return here;
}

void event_enable(struct perf_event *e, bool group)
{
	if (!enable_here(e))
		perf_ctx_call(e, enable_fn, group ? e : NULL);
}

void event_disable(struct perf_event *e, bool group) { ctx_call(e, disable_fn, group ? e : NULL, false); }
void event_reset(struct perf_event *e, bool group) { perf_ctx_call(e, reset_fn, group ? e : NULL); }

/* ---- reading ---- */



static bool read_is_local(const struct pmu *pmu)
{
	return pmu->scarce || pmu->local_read;
}

/* The count of e now. A scarce counter can only be read on its own CPU;
 * elsewhere the folded count is used (perf_read syncs it first). */
static uint64_t count_now(struct perf_event *e, uint64_t now)
{
	if (e->state != EVENT_ACTIVE)
		return e->count;
	if (read_is_local(e->pmu) && e->oncpu != (int)this_cpu_id())
		return e->count;
	return e->pmu->read(e, now);
}

/* Totals of e and of its live inherited copies (depth-limited). */
static void totals_at(struct perf_event *e, uint64_t now, int depth,
		      uint64_t *value, uint64_t *enabled, uint64_t *running)
{
	event_update(e, now);
	*value += count_now(e, now) + e->child_count;
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

/* Fold the counters of e's group on another CPU into their counts. */
void event_sync_remote(struct perf_event *e)
{
	struct perf_event *l = e->leader;
	int me = (int)this_cpu_id();
	bool remote = read_is_local(l->pmu) && l->oncpu >= 0 && l->oncpu != me;
	list_for_each(n, &l->siblings) {
		struct perf_event *s = list_entry(n, struct perf_event, sibling_node);
		remote |= read_is_local(s->pmu) && s->oncpu >= 0 && s->oncpu != me;
	}
	if (remote)
		perf_ctx_call(e, no_change, NULL);
}

/* ---- opening ---- */

/* perf_copy_attr: the size protocol of Linux's copy_struct_from_user,
 * for the size the user's attr says it has. */
static int copy_attr_sized(uint64_t uattr, uint32_t size, struct perf_event_attr *attr)
{
	if (size > PAGE_SIZE)
		goto too_big;
	if (!size)
		size = PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0)
		goto too_big;
	size_t known = size < sizeof(*attr) ? size : sizeof(*attr);
	if (copy_from_user(attr, (void *)uattr, known))
		return -EFAULT;
	/* An older, shorter attr: the fields it lacks are 0. */
	memset((char *)attr + known, 0, sizeof(*attr) - known);
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

static int copy_attr(uint64_t uattr, struct perf_event_attr *attr)
{
	uint32_t size;
	if (get_user(size, (uint32_t *)(uattr + offsetof(struct perf_event_attr, size))))
		return -EFAULT;
	return copy_attr_sized(uattr, size, attr);
}

/* Registers of x86-64 a sample can hold: Linux's perf_reg_validate
 * refuses none, the segment registers with no x86-64 value, and the
 * bits between R15 and XMM0. XMM0 and up pass here and are refused
 * later by a PMU without them (EXTENDED_REGS: EOPNOTSUPP). */
#define REGS_NOT_X86_64 ((1ULL << PERF_REG_X86_DS) | (1ULL << PERF_REG_X86_ES) | \
			 (1ULL << PERF_REG_X86_FS) | (1ULL << PERF_REG_X86_GS))
#define REGS_RESERVED (((1ULL << PERF_REG_X86_XMM0) - 1) & \
		       ~((1ULL << PERF_REG_X86_64_MAX) - 1))
#define REGS_EXTENDED (~((1ULL << PERF_REG_X86_XMM0) - 1))

static int check_regs(uint64_t mask)
{
	return !mask || (mask & (REGS_NOT_X86_64 | REGS_RESERVED)) ? -EINVAL : 0;
}

/* A branch stack's branch_sample_type as perf_copy_attr checks it:
 * defined bits only, at least one branch kind; without a privilege
 * bit it takes the event's (from exclude_*); kernel or hypervisor
 * branches need the rights kernel measurement needs. */
static int check_branch_sample_type(struct perf_event_attr *a)
{
	uint64_t mask = a->branch_sample_type;
	if (mask & ~(uint64_t)(PERF_SAMPLE_BRANCH_MAX - 1))
		return -EINVAL;
	if (!(mask & ~(uint64_t)PERF_SAMPLE_BRANCH_PLM_ALL))
		return -EINVAL;
	if (!(mask & PERF_SAMPLE_BRANCH_PLM_ALL)) {
		if (!a->exclude_kernel)
			mask |= PERF_SAMPLE_BRANCH_KERNEL;
		if (!a->exclude_user)
			mask |= PERF_SAMPLE_BRANCH_USER;
		if (!a->exclude_hv)
			mask |= PERF_SAMPLE_BRANCH_HV;
		a->branch_sample_type = mask;
	}
	if ((mask & (PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV)) &&
	    current->euid != 0 && sysctl_perf_event_paranoid() > 1)
		return -EACCES;
	return 0;
}

/* Linux's perf_copy_attr checks, in its order. */
static int check_attr(struct perf_event_attr *a)
{
	if (a->__reserved_1 || a->__reserved_2 || a->__reserved_3)
		return -EINVAL;
	if (a->sample_type & ~(PERF_SAMPLE_MAX - 1))
		return -EINVAL;
	if (a->read_format & ~(PERF_FORMAT_MAX - 1))
		return -EINVAL;
	/* One weight layout or the other, not both. */
	if ((a->sample_type & PERF_SAMPLE_WEIGHT) && (a->sample_type & PERF_SAMPLE_WEIGHT_STRUCT))
		return -EINVAL;
	int r = a->sample_type & PERF_SAMPLE_BRANCH_STACK ? check_branch_sample_type(a) : 0;
	if (r)
		return r;
	if ((a->sample_type & PERF_SAMPLE_REGS_USER) && check_regs(a->sample_regs_user))
		return -EINVAL;
	/* The stack dump's size must fit a u16 sample size, in u64s. */
	if ((a->sample_type & PERF_SAMPLE_STACK_USER) &&
	    (a->sample_stack_user >= 0xffff || a->sample_stack_user % 8))
		return -EINVAL;
	if ((a->sample_type & PERF_SAMPLE_REGS_INTR) && check_regs(a->sample_regs_intr))
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
 * root bypasses. The kernel is checked first (Linux's perf_allow_kernel
 * at the start of perf_event_open), ... */
static int check_permission(const struct perf_event_attr *a)
{
	if (current->euid == 0)
		return 0;
	if (!a->exclude_kernel && sysctl_perf_event_paranoid() > 1)
		return -EACCES;
	return 0;
}

/* ... a CPU only once the PMU has accepted the event (perf_allow_cpu
 * in find_get_context): a tracepoint's EPERM for raw data comes first. */
static int check_cpu_permission(const struct perf_event *e)
{
	if (e->task || current->euid == 0)
		return 0;
	return sysctl_perf_event_paranoid() > 0 ? -EACCES : 0;
}

/* Freed events, for the next open (mm.h's object caches): an open and
 * a close skip the heap's lists and lock. */
struct heap_cache perf_event_cache = HEAP_CACHE_INIT("perf_event", sizeof(struct perf_event));

void event_free(struct perf_event *e)
{
	if (e->pmu && e->pmu->free)
		e->pmu->free(e);
	heap_cache_free(&perf_event_cache, e);
}

/* An event's memory: zeroed but for its attr, which the caller fills.
 * All of it: the PMU's and the sampling state past the fields an open
 * sets (event.h) start at 0 too. */
_Static_assert(offsetof(struct perf_event, attr) == 0, "the attr comes first");
static struct perf_event *event_mem(void)
{
	struct perf_event *e = heap_cache_alloc(&perf_event_cache);
	if (e)
		memset((char *)e + sizeof(e->attr), 0, sizeof(*e) - sizeof(e->attr));
	return e;
}

/* Every field of a new event but its attr (set) and its id: alone,
 * in no list. */
static void event_setup(struct perf_event *e, struct task *task, int cpu, int state)
{
	e->task = task;
	e->cpu = cpu;
	e->leader = e;
	e->refs = 1;
	e->oncpu = -1;
	e->hw.idx = -1;
	e->state = state;
	if (e->attr.context_switch) /* sticky: never cleared */
		__atomic_store_n(&perf_switch_events_seen, true, __ATOMIC_RELAXED);
	perf_sample_init(e);
	list_init(&e->siblings);
	list_init(&e->sibling_node);
	list_init(&e->ctx_node);
	list_init(&e->owner_node);
	list_init(&e->child_list);
	list_init(&e->child_node);
	e->tstamp = time_since_boot_ns();
}

struct perf_event *event_alloc(const struct perf_event_attr *attr,
			       struct task *task, int cpu, int state)
{
	struct perf_event *e = event_mem();
	if (!e)
		return NULL;
	e->attr = *attr;
	event_setup(e, task, cpu, state);
	return e;
}

bool perf_switch_events_seen;

uint64_t perf_new_id(void)
{
	return __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
}

static struct perf_event *event_new(const struct perf_event_attr *attr,
				    struct task *task, int cpu)
{
	struct perf_event *e = event_alloc(attr, task, cpu,
					   attr->disabled ? EVENT_OFF : EVENT_INACTIVE);
	if (e)
		e->id = e->stream_id = perf_new_id();
	return e;
}

/* Put e into its context, or into its leader's group (arg), with the
 * context off the counters (perf_ctx_call). */
/* Under perf_lock. An event opened on a task whose events have already
 * gone (perf_task_exit ran after event_open looked it up) never joins
 * its context: it is frozen at once, as the events the exit froze. */
static void attach_fn(struct perf_event *e, void *leader_arg, uint64_t now)
{
	(void)now;
	struct perf_event *leader = leader_arg;
	if (e->task && e->task->perf_exited) {
		e->state = EVENT_EXIT;
		e->task_exited = true;
		return;
	}
	e->tstamp = 0; /* times start when the context next updates it */
	if (leader) {
		e->leader = leader;
		list_add_tail(&e->sibling_node, &leader->siblings);
	} else {
		list_add_tail(&e->ctx_node, e->task ? &e->task->perf_events
						   : perf_cpu_events((unsigned)e->cpu));
	}
}

/* The scarce PMU of l's group, or NULL for a software group. */
static struct pmu *group_pmu(struct perf_event *l)
{
	if (l->pmu->scarce)
		return l->pmu;
	list_for_each(n, &l->siblings) {
		struct perf_event *s = list_entry(n, struct perf_event, sibling_node);
		if (s->pmu->scarce)
			return s->pmu;
	}
	return NULL;
}

/* Could e (joining leader's group, or alone) ever be on the counters?
 * EINVAL if not, as Linux's validate_group; a group holds one hardware
 * PMU's events at most. */
static int check_fits(struct perf_event *e, struct perf_event *leader)
{
	if (!leader && !e->pmu->scarce)
		return 0; /* a software event alone always fits */
	uint64_t f = spin_lock_irqsave(&perf_lock);
	struct pmu *hw = leader ? group_pmu(leader) : NULL;
	int r = 0;
	if (e->pmu->scarce && hw && hw != e->pmu)
		r = -EINVAL;
	else if (!hw && e->pmu->scarce)
		hw = e->pmu;
	if (!r && hw && hw->group_fits && !hw->group_fits(leader ? leader : e, leader ? e : NULL))
		r = -EINVAL;
	spin_unlock_irqrestore(&perf_lock, f);
	return r;
}

/* A new software event alone, its context on this CPU's counters: into
 * its context and on the counters in place. Under perf_lock. */
static bool attach_here(struct perf_event *e)
{
	if (!perf_soft_alone_here(e))
		return false;
	uint64_t now = time_since_boot_ns();
	attach_fn(e, NULL, now);
	if (!e->task_exited)
		perf_soft_group_on_here(e, now);
	return true;
}

void event_attach(struct perf_event *e, struct perf_event *leader)
{
	perf_ctx_call(e, attach_fn, leader);
}

/* The task pid names, pinned (tasks.h) until event_open has published
 * its event, or NULL: no such task, a zombie, a kernel thread, or one
 * whose events are gone already (ESRCH, as Linux's dead context). */
static struct task *target_task(int pid)
{
	struct task *t = pid == 0 ? current : task_find_pinned(pid);
	if (pid == 0)
		task_pin(t);
	if (!t)
		return NULL;
	uint64_t f = spin_lock_irqsave(&perf_lock);
	bool gone = !t->mm || t->perf_exited;
	spin_unlock_irqrestore(&perf_lock, f);
	if (gone) {
		task_unpin(t);
		return NULL;
	}
	return t;
}

static int read_size(uint64_t fmt, int members)
{
	int entry = 8 * (1 + !!(fmt & PERF_FORMAT_ID) + !!(fmt & PERF_FORMAT_LOST));
	int head = 8 * (!!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			!!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING));
	if (fmt & PERF_FORMAT_GROUP)
		return head + 8 + members * entry;
	return head + entry;
}

/* Would every member's read of leader's group, with e joining it, stay
 * within MAX_READ_SIZE? */
static bool group_read_fits(struct perf_event *e, struct perf_event *leader)
{
	uint64_t f = spin_lock_irqsave(&perf_lock);
	int members = 2;
	list_for_each(n, &leader->siblings)
		members++;
	bool ok = read_size(e->attr.read_format, members) <= MAX_READ_SIZE &&
		  read_size(leader->attr.read_format, members) <= MAX_READ_SIZE;
	list_for_each(n, &leader->siblings) {
		struct perf_event *s = list_entry(n, struct perf_event, sibling_node);
		ok = ok && read_size(s->attr.read_format, members) <= MAX_READ_SIZE;
	}
	spin_unlock_irqrestore(&perf_lock, f);
	return ok;
}

/* The target of pid/cpu, checked in Linux's order. */
static int open_target(int pid, int cpu, uint64_t flags, struct task **task)
{
	*task = NULL;
	if (flags & PERF_FLAG_PID_CGROUP)
		return pid == -1 || cpu == -1 ? -EINVAL : -EBADF; /* no cgroups */
	if (pid != -1) {
		if (pid < -1)
			return -ESRCH;
		if (!(*task = target_task(pid)))
			return -ESRCH;
	}
	/* Every possible CPU is online here (no hotplug): anything else is
	 * past nr_cpu_ids, EINVAL as on Linux. */
	if (cpu < -1 || cpu >= (int)MAX_CPUS || (cpu >= 0 && !sched_cpu_online((unsigned)cpu)))
		return -EINVAL;
	if (!*task && cpu == -1)
		return -EINVAL;
	return 0;
}

/* group_fd: the leader to join (none with PERF_FLAG_FD_NO_GROUP) and the
 * event whose buffer to share (PERF_FLAG_FD_OUTPUT). */
struct open_group {
	struct file *file;
	struct perf_event *leader, *output;
};

static int open_group(int group_fd, uint64_t flags, struct open_group *g)
{
	g->file = NULL;
	g->leader = g->output = NULL;
	if (group_fd == -1)
		return 0;
	struct file *f = fget(group_fd);
	if (!f)
		return -EBADF;
	if (f->ops != &perf_fops) {
		file_put(f);
		return -EBADF;
	}
	g->file = f;
	if (flags & PERF_FLAG_FD_OUTPUT)
		g->output = f->priv;
	if (!(flags & PERF_FLAG_FD_NO_GROUP))
		g->leader = f->priv;
	return 0;
}

/* What perf_event_alloc refuses before it looks up the PMU: a signal
 * needs a task to go to; an inherited event's PERF_SAMPLE_READ values
 * are per thread, so its samples must say which thread (TID). */
static int check_target_attr(const struct perf_event_attr *attr, const struct task *task)
{
	if (attr->sigtrap && !task)
		return -EINVAL;
	if (attr->inherit && (attr->sample_type & PERF_SAMPLE_READ) &&
	    !(attr->sample_type & PERF_SAMPLE_TID))
		return -EINVAL;
	return 0;
}

/* A sibling must share its leader's context; only a leader can be
 * pinned or exclusive. */
static int check_leader(const struct perf_event *leader, const struct perf_event_attr *attr,
			const struct task *task, int cpu)
{
	if (!leader)
		return 0;
	if (leader->leader != leader || leader->task != task || leader->cpu != cpu)
		return -EINVAL;
	if (attr->pinned || attr->exclusive)
		return -EINVAL;
	return 0;
}

/* Checks that need the event (its PMU), in Linux's order: ptrace
 * access to the task before the PMU sees the event, the CPU after. */
static int init_event(struct perf_event *e, struct open_group *g)
{
	struct perf_event *leader = g->leader;
	if (e->task && !task_may_read(e->task))
		return -EACCES;
	int r = e->pmu->event_init(e);
	if (r)
		return r;
	/* No PMU here samples the XMM registers (Linux's
	 * PERF_PMU_CAP_EXTENDED_REGS), whatever sample_type says. */
	if ((e->attr.sample_regs_user | e->attr.sample_regs_intr) & REGS_EXTENDED)
		return -EOPNOTSUPP;
	r = check_fits(e, leader);
	if (r)
		return r;
	/* Linux refuses a callchain deeper than the sysctl allows when it
	 * reserves the callchain buffers. */
	if ((e->attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
	    e->attr.sample_max_stack > (unsigned)sysctl_perf_event_max_stack())
		return -EOVERFLOW;
	/* Linux's perf_event_open after perf_event_alloc: the clock, the
	 * CPU permission (find_get_context), then the group. */
	r = perf_clock_check(&e->attr, e->pmu, leader); /* records/clock.c */
	if (r)
		return r;
	r = check_cpu_permission(e);
	if (r)
		return r;
	r = check_leader(leader, &e->attr, e->task, e->cpu);
	if (r)
		return r;
	if (leader && !group_read_fits(e, leader))
		return -E2BIG;
	/* Records into group_fd's buffer: Linux's perf_event_set_output
	 * (the last step: the reference it takes is e's, freed with it). */
	if (g->output)
		return perf_event_set_output(e, g->output);
	return 0;
}

/* An event that never got a file: nothing but its buffer (SET_OUTPUT
 * at open) refers to it. */
static void free_unopened(struct perf_event *e)
{
	if (e->rb)
		rb_put(e->rb);
	event_free(e);
}

static void count_callchain(struct perf_event *e)
{
	if (e->attr.sample_type & PERF_SAMPLE_CALLCHAIN)
		__atomic_fetch_add(&callchain_events, 1, __ATOMIC_RELAXED);
}

/* e's opener owns it (prctl's PR_TASK_PERF_EVENTS_*), then e goes into
 * its context. */
static void publish_event(struct perf_event *e, struct perf_event *leader)
{
	uint64_t fl = spin_lock_irqsave(&perf_lock);
	e->owner = current;
	list_add_tail(&e->owner_node, &current->perf_owned);
	bool attached = !leader && attach_here(e);
	spin_unlock_irqrestore(&perf_lock, fl);
	if (!attached)
		event_attach(e, leader);
}

/* One inode for every event's file, as Linux's anon_inode: made at
 * boot, never freed (a file holds a reference). */
static struct inode *event_inode;

static void event_inode_init(void)
{
	event_inode = anon_inode_new(0600);
	BUG_ON(!event_inode);
	event_inode->fops = &perf_fops;
}

struct file *perf_event_file(struct perf_event *e)
{
	struct path p = { NULL, event_inode };
	struct file *f = file_alloc(&p, FMODE_READ | FMODE_WRITE, O_RDWR);
	if (!f)
		return NULL;
	f->priv = e;
	f->fmode |= FMODE_ZERO_IO; /* a 0-byte read is ENOSPC */
	return f;
}

/* The arguments alone, in Linux's order: the attr, the target, the
 * caller's rights. Takes nothing. */
static int check_open(uint64_t uattr, uint64_t flags, struct perf_event_attr *attr)
{
	if (flags & ~PERF_FLAG_ALL)
		return -EINVAL;
	int r = copy_attr(uattr, attr);
	if (r)
		return r;
	r = check_attr(attr);
	if (r)
		return r;
	return check_permission(attr);
}

/* perf_event_open(2). What it takes is released in reverse order on
 * error (the labels at the end): group_fd's file, the new event, its
 * callchain count. Once it has a file, the file's release frees it. */
static int event_open(uint64_t uattr, int pid, int cpu, int group_fd, uint64_t flags)
{
	struct perf_event_attr attr;
	struct task *task;
	struct open_group g;
	struct perf_event *e;
	struct pmu *pmu;
	struct file *f;
	int r, fd;

	r = check_open(uattr, flags, &attr);
	if (r)
		return r;
	/* Linux's order: the attr, then group_fd (EBADF), then the target
	 * (ESRCH, EINVAL for the CPU). */
	r = open_group(group_fd, flags, &g);
	if (r)
		return r;
	r = open_target(pid, cpu, flags, &task);
	if (r)
		goto err_group;
	r = -EINVAL; /* a task's group is inherited whole or not at all */
	if (task && g.leader && g.leader->attr.inherit != attr.inherit)
		goto err_group;
	/* perf_event_alloc's checks before it looks up the PMU. */
	r = check_target_attr(&attr, task);
	if (r)
		goto err_group;
	pmu = perf_pmu_for_attr(&attr, cpu);
	r = -ENOENT;
	if (!pmu)
		goto err_group;
	r = -ENOMEM;
	e = event_new(&attr, task, cpu);
	if (!e)
		goto err_group;
	e->pmu = pmu;
	r = init_event(e, &g);
	if (r)
		goto err_event;
	perf_lean_init(e);

	count_callchain(e);
	r = -ENOMEM;
	f = perf_event_file(e);
	if (!f)
		goto err_callchain;
	fd = fd_install(current->files, f, (flags & PERF_FLAG_FD_CLOEXEC) ? O_CLOEXEC : 0);
	if (fd < 0) {
		file_put(f); /* releases e, its buffer and its callchain count */
		r = fd;
		goto err_group;
	}
	publish_event(e, g.leader);
	if (task)
		task_unpin(task);
	if (g.file)
		file_put(g.file);
	return fd;

err_callchain:
	perf_callchain_put(e);
err_event:
	free_unopened(e);
err_group:
	if (task)
		task_unpin(task);
	if (g.file)
		file_put(g.file);
	return r;
}

SYSCALL_DEFINE5(perf_event_open, uint64_t, uattr, pid_t, pid, int, cpu, int, group_fd,
		unsigned long, flags)
{
	return event_open(uattr, pid, cpu, group_fd, flags);
}

bool perf_open_checks_pass(const struct perf_event_attr *attr)
{
	struct perf_event_attr a = *attr; /* check_attr may complete it */
	return !check_attr(&a) && !check_permission(&a) && !check_target_attr(&a, current) &&
	       perf_pmu_for_attr(&a, -1) == &perf_sw_pmu && a.config < PERF_COUNT_SW_MAX &&
	       !(a.sample_type & PERF_SAMPLE_BRANCH_STACK); /* sw.c's sw_init */
}

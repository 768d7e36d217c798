/*
 * Events across fork, exit and exec: inherited copies for children
 * (attr.inherit), their counts folded into the parent event when the
 * child exits, enable_on_exec, and the prctl that switches every event a
 * task opened.
 */
#include <linux/errno.h>
#include "event.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "pmu/perf.h"
#include "pmu/records/records.h"
#include "ringbuf/ringbuf.h"
#include "core/proc/task.h"
#include "core/arch/tsc.h"

/* Take e out of its context, or out of its group: a closed leader's
 * siblings become leaders of their own. Context off the counters. */
static void detach_fn(struct perf_event *e, void *arg, uint64_t now)
{
	(void)arg;
	event_update(e, now);
	if (e->leader == e) {
		list_remove(&e->ctx_node);
		list_for_each_safe(n, &e->siblings) {
			struct perf_event *s = list_entry(n, struct perf_event, sibling_node);
			list_remove(&s->sibling_node);
			s->leader = s;
			if (s->state != EVENT_EXIT)
				list_add_tail(&s->ctx_node, s->task ? &s->task->perf_events
								   : perf_cpu_events((unsigned)s->cpu));
		}
	} else {
		list_remove(&e->sibling_node);
	}
	list_remove(&e->owner_node);
	list_remove(&e->child_node);
}

bool event_get_live(struct perf_event *e)
{
	if (e->refs <= 0)
		return false;
	e->refs++;
	return true;
}

/* The last put of a lone software event whose context is on this CPU's
 * counters: off them and out of its context in place (no other group
 * waits for what it leaves). False, having done nothing, otherwise. */
static bool detach_here(struct perf_event *e)
{
	uint64_t f = spin_lock_irqsave(&perf_lock);
	bool here = perf_soft_alone_here(e);
	if (here) {
		uint64_t now = time_since_boot_ns();
		if (e->state == EVENT_ACTIVE)
			perf_event_off_here(e, now);
		detach_fn(e, NULL, now);
	}
	spin_unlock_irqrestore(&perf_lock, f);
	return here;
}

/* e's last reference is gone (refs 0, dropped under perf_lock): out of
 * its context and freed. Caller must not hold perf_lock. */
static void event_release(struct perf_event *e)
{
	if (e->parent && e->task_exited) {
		event_free(e); /* a copy its task's exit folded and detached */
		return;
	}
	if (!detach_here(e))
		perf_ctx_call(e, detach_fn, NULL);
	perf_callchain_put(e);
	if (e->rb)
		rb_put(e->rb); /* its pages live on while mapped */
	event_free(e);
}

/* Free e once nothing refers to it. Caller must not hold perf_lock. */
void event_put(struct perf_event *e)
{
	uint64_t f = spin_lock_irqsave(&perf_lock);
	bool last = --e->refs == 0;
	spin_unlock_irqrestore(&perf_lock, f);
	if (last)
		event_release(e);
}

/* Release the events fold_into_parent dropped the last reference of,
 * once perf_lock is dropped. */
static void release_orphans(struct list *orphans)
{
	while (!list_empty(orphans)) {
		struct perf_event *e = list_entry(orphans->next, struct perf_event, child_node);
		list_remove(&e->child_node);
		event_release(e);
	}
}

/* A copy of p for child (in leader's group, or a leader), or NULL:
 * out of memory, or p's original is being freed (*gone set). */
static struct perf_event *copy_for(struct perf_event *p, struct task *child,
				   struct perf_event *leader, bool *gone)
{
	/* Copies hang off the original, never off another copy (Linux's
	 * inherit_event): a copy is folded and freed when its task exits,
	 * and copies made from it (a grandchild's) must not point at it. */
	struct perf_event *orig = p->parent ? p->parent : p;
	*gone = !event_get_live(orig);
	if (*gone)
		return NULL;
	struct perf_event *c = event_alloc(&p->attr, child, p->cpu,
					   p->state == EVENT_OFF ? EVENT_OFF : EVENT_INACTIVE);
	if (!c) {
		orig->refs--;
		return NULL;
	}
	c->pmu = p->pmu;
	if (c->pmu->inherit && c->pmu->inherit(c, p)) {
		kfree(c);
		orig->refs--;
		return NULL;
	}
	c->id = p->id;
	c->stream_id = perf_new_id();
	c->leader = leader ? leader : c;
	c->parent = orig; /* the reference taken above is the copy's */
	list_add_tail(&c->child_node, &orig->child_list);
	if (leader)
		list_add_tail(&c->sibling_node, &leader->siblings);
	else
		list_add_tail(&c->ctx_node, &child->perf_events);
	return c;
}

int perf_inherit(struct task *parent, struct task *child, bool thread)
{
	if (list_empty(&parent->perf_events))
		return 0;
	int r = 0;
	uint64_t f = spin_lock_irqsave(&perf_lock);
	list_for_each(n, &parent->perf_events) {
		struct perf_event *l = list_entry(n, struct perf_event, ctx_node);
		if (!l->attr.inherit || l->state == EVENT_EXIT ||
		    (l->attr.inherit_thread && !thread))
			continue;
		bool gone;
		struct perf_event *cl = copy_for(l, child, NULL, &gone);
		if (!cl) {
			if (gone)
				continue; /* its fd was closed: it is on its way out */
			r = -ENOMEM;
			break;
		}
		list_for_each(s, &l->siblings) {
			struct perf_event *sib = list_entry(s, struct perf_event, sibling_node);
			if (!copy_for(sib, child, cl, &gone) && !gone) {
				r = -ENOMEM;
				break;
			}
		}
	}
	spin_unlock_irqrestore(&perf_lock, f);
	return r;
}

/*
 * Fold an inherited copy into its parent and free it. Under perf_lock.
 * The copy's reference on the parent goes: when the parent's fd was
 * closed first, that was the last one, and the parent joins `orphans`
 * (through its child_node, unused in an original) for the caller to
 * release after dropping perf_lock; else it would stay in its task's
 * context for good, counting, and each round of open, fork, close and
 * exit would leave one more there.
 */
static void fold_into_parent(struct perf_event *c, uint64_t now, struct list *orphans)
{
	struct perf_event *p = c->parent;
	event_update(c, now);
	if (c->task == current)
		perf_record_read(c); /* inherit_stat: records/read_record.c */
	p->child_count += c->count + c->child_count;
	p->child_enabled_ns += c->enabled_ns + c->child_enabled_ns;
	p->child_running_ns += c->running_ns + c->child_running_ns;
	list_remove(&c->child_node);
	if (--p->refs == 0)
		list_add_tail(&p->child_node, orphans);
}

/* Detach one group of t; inherited groups are folded and freed. */
/* One event of an exiting task's group: an inherited copy is folded into
 * its parent and freed, an event opened on the task freezes. */
static void exit_one_event(struct perf_event *e, uint64_t now, struct list *orphans)
{
	if (e->parent) {
		fold_into_parent(e, now, orphans);
		e->state = EVENT_EXIT;
		e->task_exited = true;
		/* The task's reference goes; a walker of the parent's copies
		 * (ioctl_children.c) may hold another, and then its last
		 * event_put frees the copy. */
		if (--e->refs == 0)
			event_free(e);
	} else {
		event_update(e, now);
		e->state = EVENT_EXIT;
		e->task_exited = true;
	}
}

/* The siblings go first: an inherited sibling leaves the group through
 * its leader's list head, so the leader must still be there. */
static void exit_group_events(struct perf_event *l, uint64_t now, struct list *orphans)
{
	list_remove(&l->ctx_node);
	list_init(&l->ctx_node);
	list_for_each_safe(s, &l->siblings) {
		struct perf_event *e = list_entry(s, struct perf_event, sibling_node);
		if (e->parent)
			list_remove(&e->sibling_node);
		exit_one_event(e, now, orphans);
	}
	exit_one_event(l, now, orphans);
}

/* Is t's context on this CPU's counters? Under perf_lock. */
static bool ctx_here(struct task *t)
{
	return t->perf_ctx_in && t->perf_cpu == (int)this_cpu_id();
}

/* t is exiting (current) or a fork that failed (never ran). */
void perf_task_exit(struct task *t)
{
	if (t == current)
		perf_record_task(t, t->leader->parent, false);
	struct list orphans = LIST_INIT(orphans);
	uint64_t f = spin_lock_irqsave(&perf_lock);
	uint64_t now = time_since_boot_ns();
	t->perf_exited = true; /* an open by pid now fails or freezes (core.c) */
	bool here = ctx_here(t);
	if (here)
		perf_cpu_sched_out(now);
	while (!list_empty(&t->perf_events)) {
		struct perf_event *l = list_entry(t->perf_events.next, struct perf_event, ctx_node);
		exit_group_events(l, now, &orphans);
	}
	if (here)
		perf_cpu_sched_in(now);
	/* Events it opened stay open through their fds; forget the owner. */
	list_for_each_safe(n, &t->perf_owned) {
		struct perf_event *e = list_entry(n, struct perf_event, owner_node);
		list_remove(&e->owner_node);
		e->owner = NULL;
	}
	spin_unlock_irqrestore(&perf_lock, f);
	release_orphans(&orphans);
}

/* Take e out of its group and context for good, at exec: a leader's
 * siblings become leaders of their own; an inherited copy is folded
 * into its parent and freed, others freeze as EVENT_EXIT. */
static void remove_event(struct perf_event *e, uint64_t now, struct list *orphans)
{
	detach_fn(e, NULL, now);
	list_init(&e->ctx_node);
	list_init(&e->sibling_node);
	list_init(&e->siblings);
	e->leader = e;
	if (e->parent) {
		fold_into_parent(e, now, orphans);
		e->state = EVENT_EXIT;
		e->task_exited = true;
		/* The task's reference goes; a walker of the parent's copies
		 * (ioctl_children.c) may hold another, and then its last
		 * event_put frees the copy. */
		if (--e->refs == 0)
			event_free(e);
	} else {
		e->state = EVENT_EXIT;
	}
}

/* Up to max events of t's context with remove_on_exec. */
static int collect_removed(struct task *t, struct perf_event **out, int max)
{
	int n = 0;
	list_for_each(node, &t->perf_events) {
		struct perf_event *l = list_entry(node, struct perf_event, ctx_node);
		if (l->attr.remove_on_exec && n < max)
			out[n++] = l;
		list_for_each(s, &l->siblings) {
			struct perf_event *e = list_entry(s, struct perf_event, sibling_node);
			if (e->attr.remove_on_exec && n < max)
				out[n++] = e;
		}
	}
	return n;
}

static void enable_on_exec(struct task *t, uint64_t now)
{
	list_for_each(node, &t->perf_events) {
		struct perf_event *l = list_entry(node, struct perf_event, ctx_node);
		event_update(l, now);
		if (l->attr.enable_on_exec && l->state == EVENT_OFF)
			l->state = EVENT_INACTIVE;
		list_for_each(s, &l->siblings) {
			struct perf_event *e = list_entry(s, struct perf_event, sibling_node);
			event_update(e, now);
			if (e->attr.enable_on_exec && e->state == EVENT_OFF)
				e->state = EVENT_INACTIVE;
		}
	}
}

/* exec: remove_on_exec events leave the task, enable_on_exec ones start. */
void perf_task_exec(struct task *t)
{
	if (list_empty(&t->perf_events))
		return;
	struct perf_event *gone[32];
	struct list orphans = LIST_INIT(orphans);
	uint64_t f = spin_lock_irqsave(&perf_lock);
	uint64_t now = time_since_boot_ns();
	bool here = ctx_here(t);
	if (here)
		perf_cpu_sched_out(now);
	int n;
	while ((n = collect_removed(t, gone, 32)) > 0)
		for (int i = 0; i < n; i++)
			remove_event(gone[i], now, &orphans);
	enable_on_exec(t, now);
	if (here)
		perf_cpu_sched_in(now);
	spin_unlock_irqrestore(&perf_lock, f);
	release_orphans(&orphans);
}

/* prctl: enable or disable every event t opened, wherever it counts.
 * Enabling goes in creation order, disabling in reverse, so groups
 * opened later (usually the flexible ones waiting behind pinned ones)
 * are off before the counters they waited for come free. Taken in
 * batches with a reference, as a change may need another CPU. */
void perf_task_enable_owned(struct task *t, bool enable)
{
	struct perf_event *batch[32];
	size_t done = 0;
	for (;;) {
		size_t n = 0, i = 0;
		uint64_t f = spin_lock_irqsave(&perf_lock);
		for (struct list *node = enable ? t->perf_owned.next : t->perf_owned.prev;
		     node != &t->perf_owned; node = enable ? node->next : node->prev) {
			if (i++ < done)
				continue;
			if (n == 32)
				break;
			batch[n] = list_entry(node, struct perf_event, owner_node);
			if (event_get_live(batch[n]))
				n++; /* else its fd was closed: on its way out */
		}
		spin_unlock_irqrestore(&perf_lock, f);
		for (i = 0; i < n; i++) {
			if (enable)
				event_enable(batch[i], false);
			else
				event_disable(batch[i], false);
			event_put(batch[i]);
		}
		if (n < 32)
			return;
		done += n;
	}
}

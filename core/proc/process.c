/*
 * clone/fork, exit and wait. See process.h. Family links (parent,
 * children, sibling, threads) are changed only under task_lock.
 */
#include <string.h>
#include <asm/siginfo.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include <linux/resource.h>
#include "cputime.h"
#include "futex.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "process.h"
#include "sched.h"
#include "signal.h"
#include "syscall.h"
#include "tasks.h"
#include "pidtable.h"
#include "core/arch/tsc.h"
#include "core/mm/uaccess.h"
#include "core/mm/usermm.h"
#include "core/fs/vfs.h"
#include "core/arch/power.h"
#include "pmu/perf.h"
#include "exec.h"
#include "timekeeping.h"


static struct task *init_task;

void process_for_each_thread(struct task *leader,
			     void (*fn)(struct task *t, void *ctx), void *ctx)
{
	struct task *list[64];
	int n = 0;
	uint64_t f = spin_lock_irqsave(&task_lock);
	list[n++] = leader;
	list_for_each(node, &leader->threads)
		if (n < 64)
			list[n++] = list_entry(node, struct task, thread_node);
	for (int i = 0; i < n; i++)
		task_pin(list[i]); /* none is freed while fn uses it */
	spin_unlock_irqrestore(&task_lock, f);
	for (int i = 0; i < n; i++) {
		fn(list[i], ctx);
		task_unpin(list[i]);
	}
}

/* ---- clone ---- */

static int check_clone_flags(uint64_t flags)
{
	if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
		return -EINVAL;
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return -EINVAL;
	if ((flags & CLONE_FS) && (flags & CLONE_NEWNS))
		return -EINVAL;
	if (flags & (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |
		     CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP))
		return -EPERM; /* no namespaces here; unprivileged Linux says EPERM */
	return 0;
}

static int share_resources(struct task *t, struct task *p, uint64_t flags)
{
	if (flags & CLONE_CLEAR_SIGHAND) /* never with CLONE_SIGHAND: clone3 refuses */
		flags &= ~CLONE_SIGHAND;
	if (flags & CLONE_VM) {
		mm_get(p->mm);
		t->mm = p->mm;
	} else if (!(t->mm = mm_clone(p->mm))) {
		return -ENOMEM;
	}
	if (flags & CLONE_FILES) {
		files_get(p->files);
		t->files = p->files;
	} else if (!(t->files = files_clone(p->files))) {
		return -ENOMEM;
	}
	if (flags & CLONE_FS) {
		fs_get(p->fs);
		t->fs = p->fs;
	} else if (!(t->fs = fs_clone(p->fs))) {
		return -ENOMEM;
	}
	if (flags & CLONE_SIGHAND) {
		__atomic_add_fetch(&p->sig->refs, 1, __ATOMIC_ACQ_REL);
		t->sig = p->sig;
	} else if (!(t->sig = signal_state_copy(p->sig))) {
		return -ENOMEM;
	}
	if (flags & CLONE_CLEAR_SIGHAND)
		signal_reset_for_exec(t->sig); /* handlers to SIG_DFL, SIG_IGN stays */
	return 0;
}

/*
 * Another task's address space, with a reference the caller drops with
 * mm_put(); NULL once the task has let it go. t->mm changes only under
 * task_lock (here at exit, in exec at the point of no return), so the
 * reference is taken before the owner can drop the last one.
 */
struct mm *task_mm_get(struct task *t)
{
	uint64_t f = spin_lock_irqsave(&task_lock);
	struct mm *mm = t->mm;
	if (mm)
		mm_get(mm);
	spin_unlock_irqrestore(&task_lock, f);
	return mm;
}

/* t's mm and fs, with references the caller drops with task_res_put;
 * NULL where t has let one go. Both change only under task_lock once t
 * is listed (release_resources, exec), as task_mm_get relies on. */
void task_res_get(struct task *t, struct task_res *r)
{
	uint64_t f = spin_lock_irqsave(&task_lock);
	r->mm = t->mm;
	r->fs = t->fs;
	if (r->mm)
		mm_get(r->mm);
	if (r->fs)
		fs_get(r->fs);
	spin_unlock_irqrestore(&task_lock, f);
}

void task_res_put(struct task_res *r)
{
	if (r->mm)
		mm_put(r->mm);
	fs_put(r->fs); /* NULL is no-op */
	r->mm = NULL;
	r->fs = NULL;
}

static void release_resources(struct task *t)
{
	uint64_t f = spin_lock_irqsave(&task_lock);
	struct mm *mm = t->mm;
	struct fs_context *fs = t->fs; /* see task_res_get */
	struct files *files = t->files; /* and task_files_get */
	t->mm = NULL;
	t->fs = NULL;
	t->files = NULL;
	spin_unlock_irqrestore(&task_lock, f);
	if (mm) {
		if (t == current)
			mm_activate(NULL);
		mm_put(mm);
	}
	files_put(files); /* NULL is no-op */
	fs_put(fs);
}

static void link_family(struct task *t, struct task *p, uint64_t flags)
{
	struct task *pl = p->leader;
	if (flags & CLONE_THREAD) {
		t->tgid = p->tgid;
		t->leader = pl;
		t->parent = pl->parent;
		list_add_tail(&t->thread_node, &pl->threads);
		__atomic_add_fetch(&pl->nr_live, 1, __ATOMIC_ACQ_REL);
	} else {
		t->tgid = t->tid;
		t->leader = t;
		t->nr_live = 1;
		t->parent = (flags & CLONE_PARENT) && pl->parent ? pl->parent : pl;
		list_add_tail(&t->sibling, &t->parent->children);
	}
}

/*
 * Link t into its family unless a signal is pending for the parent:
 * then the fork fails with -ERESTARTNOINTR and runs again once the
 * signal is handled (a fatal one ends the parent), as on Linux. Under
 * the group-signal lock: a signal to the parent's group or to every
 * process either went out before (and is pending here) or goes out
 * after, and reaches the child too.
 */
static int link_unless_signalled(struct task *t, struct task *p, uint64_t flags)
{
	uint64_t g = signal_group_lock();
	uint64_t f = spin_lock_irqsave(&task_lock);
	int r = signal_pending_current() ? -ERESTARTNOINTR : 0;
	if (!r)
		link_family(t, p, flags);
	spin_unlock_irqrestore(&task_lock, f);
	signal_group_unlock(g);
	return r;
}

/* What a new task copies of its parent's state, registers included. */
static void copy_task_state(struct task *t, struct task *p, uint64_t flags,
			    uint64_t newsp, uint64_t tls)
{
	t->uid = p->uid, t->euid = p->euid, t->gid = p->gid, t->egid = p->egid;
	t->caps = p->caps;
	t->mempolicy = p->mempolicy;
	memcpy(t->rlimits, p->leader->rlimits, sizeof(t->rlimits));
	t->pgid = p->pgid, t->sid = p->sid;
	t->affinity = p->affinity;
	t->sigmask = p->sigmask;
	t->exit_signal = (flags & CLONE_THREAD) ? -1 : (int)(flags & 0xff);
	t->fs_base = (flags & CLONE_SETTLS) ? tls : p->fs_base;
	t->gs_base = p->gs_base;
	fpu_save(p);
	memcpy(t->fpu, p->fpu, FPU_AREA_SIZE);

	struct trap_frame *frame = task_prepare_stack(t, NULL, NULL);
	*frame = *p->frame;
	frame->rax = 0;
	frame->vector = 0;
	if (newsp)
		frame->rsp = newsp;
}

/*
 * clone, clone3, fork and vfork. Each step that can fail unwinds,
 * through the labels at the end in reverse order, exactly what the steps
 * before it built (Linux's copy_process does the same). CLONE_PIDFD:
 * the pidfd goes to upidfd, which is checked writable first (EFAULT
 * before anything is made).
 */
long process_clone(uint64_t flags, uint64_t newsp, uint64_t ptid,
		   uint64_t ctid, uint64_t tls, uint64_t upidfd)
{
	int r = check_clone_flags(flags);
	if (r)
		return r;
	if ((flags & CLONE_PIDFD) && (flags & (CLONE_DETACHED | CLONE_THREAD)))
		return -EINVAL;
	if ((flags & CLONE_PIDFD) && put_user(0, (int __user *)upidfd))
		return -EFAULT;
	struct task *p = current;
	struct task *t = task_alloc(p->comm);
	if (!t)
		return -EAGAIN;
	r = -ENOMEM;
	t->siginfo = kzalloc(sizeof(struct ksiginfo) * (NSIGNALS + 1));
	if (!t->siginfo)
		goto free_task;
	r = share_resources(t, p, flags);
	if (r)
		goto release_resources;
	r = perf_inherit(p, t, flags & CLONE_THREAD);
	if (r)
		goto exit_perf;
	copy_task_state(t, p, flags, newsp, tls);
	r = link_unless_signalled(t, p, flags);
	if (r)
		goto exit_perf;
	trace_sched_process_fork(p, t);

	int tid = t->tid;
	if (flags & CLONE_PIDFD) {
		/* the pidfd names the child from its first instruction:
		 * made before it runs (an EMFILE then fails only this) */
		int pidfd = pidfd_create(tid, 0);
		put_user(pidfd, (int __user *)upidfd);
	}
	if (flags & CLONE_PARENT_SETTID)
		put_user(tid, (int *)ptid);
	if (flags & CLONE_CHILD_SETTID)
		mm_write(t->mm, ctid, &tid, sizeof(tid));
	if (flags & CLONE_CHILD_CLEARTID)
		t->clear_child_tid = ctid;
	if (flags & CLONE_VFORK)
		t->vfork_parent = p;
	bool traced = ptrace_clone_attach(p, t, flags);
	perf_record_task(t, p, true);
	sched_start(t);
	if (traced)
		ptrace_clone_event(flags, tid);
	if (flags & CLONE_VFORK)
		while (!__atomic_load_n(&t->vfork_done, __ATOMIC_ACQUIRE))
			sched_yield_now(); /* the child releases us at exec or exit */
	return tid;

exit_perf:
	perf_task_exit(t);
release_resources:
	release_resources(t);
	if (t->sig)
		signal_state_put(t->sig);
	kfree(t->siginfo);
free_task:
	task_free(t);
	return r;
}

SYSCALL_DEFINE5(clone, unsigned long, flags, unsigned long, newsp, uint64_t, uptid,
		uint64_t, uctid, unsigned long, tls)
{
	/* The old call puts the pidfd where the parent's tid would go:
	 * both at once is EINVAL, as Linux; clone3's new flags are not
	 * clone's (its CSIGNAL byte is the exit signal). */
	if ((flags & CLONE_PIDFD) && (flags & CLONE_PARENT_SETTID))
		return -EINVAL;
	flags &= 0xffffffffUL; /* Linux: clone's flags are an int's */
	return process_clone(flags, newsp, uptid, uctid, tls, uptid);
}

SYSCALL_DEFINE0(fork)
{
	return process_clone(SIGCHLD, 0, 0, 0, 0, 0);
}

SYSCALL_DEFINE0(vfork)
{
	return process_clone(CLONE_VM | CLONE_VFORK | SIGCHLD, 0, 0, 0, 0, 0);
}

void process_release_vfork(struct task *t)
{
	if (t->vfork_parent) {
		__atomic_store_n(&t->vfork_done, true, __ATOMIC_RELEASE);
		t->vfork_parent = NULL;
	}
}

/* ---- exit ---- */

/* Give our children to init. Caller holds task_lock. */
static void reparent_children(struct task *leader)
{
	list_for_each_safe(n, &leader->children) {
		struct task *c = list_entry(n, struct task, sibling);
		list_remove(&c->sibling);
		c->parent = init_task;
		list_add_tail(&c->sibling, &init_task->children);
	}
	if (!list_empty(&init_task->children))
		init_task->child_events++;
}

static bool parent_ignores_children(struct task *parent)
{
	struct sigaction *a = &parent->sig->action[SIGCHLD];
	return a->sa_handler == SIG_IGN || (a->sa_flags & SA_NOCLDWAIT);
}

/* The whole process is gone: become a zombie and tell the parent. The
 * parent is read under task_lock and pinned: it may be exiting too (a
 * group kill), and once it has reparented us it may be reaped; the pin
 * keeps its memory and signal state until we are done telling it. */
static void notify_parent(struct task *leader)
{
	int st = leader->exit_code, exit_signal = leader->exit_signal;
	struct ksiginfo info = {
		.signo = leader->exit_signal > 0 ? leader->exit_signal : SIGCHLD,
		.pid = leader->tgid, .uid = leader->uid,
		.code = (st & 0x7f) ? ((st & 0x80) ? CLD_DUMPED : CLD_KILLED) : CLD_EXITED,
		.status = (st & 0x7f) ? (st & 0x7f) : (st >> 8) & 0xff,
	};
	uint64_t f = spin_lock_irqsave(&task_lock);
	struct task *parent = leader->parent;
	task_pin(parent);
	reparent_children(leader);
	parent->child_events++;
	bool ignored = parent_ignores_children(parent);
	/* From here the parent may reap and free leader: not touched again. */
	leader->exit_reported = true;
	spin_unlock_irqrestore(&task_lock, f);
	if (exit_signal > 0 && !ignored)
		signal_send_process(parent->tgid, &info);
	waitq_wake_all(&parent->child_exit);
	waitq_wake_all(&init_task->child_exit);
	task_unpin(parent);
}

/* Whether the process of `leader` vanishes at exit (its parent ignores
 * SIGCHLD), decided once, under task_lock: the parent may change (it
 * exits and init adopts us) while we exit. */
static bool exit_autoreaps(struct task *leader)
{
	uint64_t f = spin_lock_irqsave(&task_lock);
	bool ignored = parent_ignores_children(leader->parent);
	spin_unlock_irqrestore(&task_lock, f);
	return ignored;
}

static void clear_child_tid(struct task *self)
{
	if (!self->clear_child_tid || !self->mm)
		return;
	int zero = 0;
	if (copy_to_user((void *)self->clear_child_tid, &zero, sizeof(zero)) == 0)
		futex_wake_addr(self->clear_child_tid, 1);
	self->clear_child_tid = 0;
}

/* t's pending-signal records; under its sig->lock, where senders
 * check for them (signal_send_thread). */
static void free_siginfo(struct task *t)
{
	struct ksiginfo *info = t->siginfo;
	uint64_t f = t->sig ? spin_lock_irqsave(&t->sig->lock) : 0;
	signal_flush_queued(t); /* queued real-time signals */
	t->siginfo = NULL;
	if (t->sig)
		spin_unlock_irqrestore(&t->sig->lock, f);
	kfree(info);
}

/* t's signal state. No sender reaches t any more (task_unlist), or t
 * is a thread whose process lives on (its sig stays with the others). */
static void free_signal_parts(struct task *t)
{
	free_siginfo(t);
	if (t->sig)
		signal_state_put(t->sig);
	t->sig = NULL;
}

static void unlink_from_parent(struct task *leader)
{
	uint64_t f = spin_lock_irqsave(&task_lock);
	list_remove(&leader->sibling);
	reparent_children(leader);
	spin_unlock_irqrestore(&task_lock, f);
}

/*
 * The last thread of a process is gone. Either the parent will wait for
 * it (the leader stays a zombie and the parent is told), or the parent
 * ignores SIGCHLD and the process vanishes at once (autoreap, decided
 * by the caller once for both of them).
 */
static void process_gone(struct task *self, struct task *leader, bool autoreap)
{
	itimer_forget(leader);
	if (leader == init_task) {
		/* The session is over: its status is the machine's. */
		int st = leader->exit_code;
		int status = (st & 0x7f) ? 128 + (st & 0x7f) : (st >> 8) & 0xff;
		klog("init: exited with status %d", status);
		machine_exit(status);
	}
	if (autoreap) {
		unlink_from_parent(leader);
		if (leader != self) {
			/* The leader exited earlier and is off its CPU. */
			while (!__atomic_load_n(&leader->switched_out, __ATOMIC_ACQUIRE))
				cpu_relax();
			task_unlist(leader);
			leader->state = TASK_DEAD;
			free_signal_parts(leader);
			task_free(leader);
		}
		return;
	}
	leader->state = TASK_ZOMBIE;
	notify_parent(leader);
	/* pidfds: a leader that left before the last thread is reapable
	 * now; one still on its CPU (self) wakes them when it is off
	 * (process_zombie_switched_out). */
	poll_wake_all();
}

void process_exit_thread(int code)
{
	struct task *self = current, *leader = self->leader;
	ptrace_exit_event(code);
	clear_child_tid(self);
	/* Before the events leave: the exiting task's own events see it. */
	trace_sched_process_exit(self, __atomic_load_n(&leader->nr_live, __ATOMIC_ACQUIRE) == 1);
	perf_task_exit(self);
	process_release_vfork(self);
	release_resources(self);
	bool last = __atomic_sub_fetch(&leader->nr_live, 1, __ATOMIC_ACQ_REL) == 0;
	/* The status is the last thread's, or exit_group's for all. */
	if (self->sig && self->sig->group_exiting)
		leader->exit_code = self->sig->group_exit_code;
	else if (last || self == leader)
		leader->exit_code = code;
	bool autoreap = last && exit_autoreaps(leader);
	ptrace_exit_unlink(last);
	if (self != leader) {
		uint64_t f = spin_lock_irqsave(&task_lock);
		list_remove(&self->thread_node);
		cputime_thread_exit(self);
		spin_unlock_irqrestore(&task_lock, f);
	}
	if (last)
		process_gone(self, leader, autoreap);
	bool zombie = self == leader && !autoreap;
	if (!zombie)
		task_unlist(self); /* no sender may hold it when it goes */
	else
		free_siginfo(self); /* a zombie takes no signal */
	if (last && autoreap)
		poll_wake_all(); /* pidfds: the process is gone */
	irq_disable();
	if (zombie) {
		self->state = TASK_ZOMBIE;
	} else {
		free_signal_parts(self);
		self->state = TASK_DEAD; /* sched_finish frees the rest */
	}
	schedule();
	panic("an exited task ran again");
}

void process_exit_group_now(int code)
{
	struct task *self = current;
	struct signal_state *s = self->sig;
	uint64_t f = spin_lock_irqsave(&s->lock);
	if (!s->group_exiting) {
		s->group_exiting = true;
		s->group_exit_code = code;
	}
	spin_unlock_irqrestore(&s->lock, f);
	struct ksiginfo kill = { .signo = SIGKILL, .code = SI_KERNEL };
	struct task *leader = self->leader;
	if (!list_empty(&leader->threads) || leader != self)
		process_for_each_thread(leader, signal_send_thread_cb, &kill);
	process_exit_thread(s->group_exit_code);
}

SYSCALL_DEFINE1(exit, int, error_code)
{
	process_exit_thread((error_code & 0xff) << 8);
}

SYSCALL_DEFINE1(exit_group, int, error_code)
{
	process_exit_group_now((error_code & 0xff) << 8);
}

void process_die_by_signal(int sig, struct trap_frame *f)
{
	struct task *self = current;
	bool core = signal_dumps_core(sig);
	if (core)
		klog("%s[%d]: killed by %s at rip %#llx rsp %#llx (core dumped: not written)",
		     self->comm, self->tgid, signal_name(sig),
		     (unsigned long long)f->rip, (unsigned long long)f->rsp);
	process_exit_group_now(sig | (core ? 0x80 : 0));
}

bool process_reapable(const struct task *t)
{
	return t->state == TASK_ZOMBIE && t->exit_reported &&
	       __atomic_load_n(&t->switched_out, __ATOMIC_ACQUIRE);
}

/* The zombie t is off its CPU for good: its kernel stack goes now (it
 * keeps only what wait needs). switched_out is set under task_lock,
 * where its parent checks it before reaping (and freeing) t, so t is
 * still there for the rest of this function. */
void process_zombie_switched_out(struct task *t)
{
	task_free_stack(t);
	uint64_t f = spin_lock_irqsave(&task_lock);
	struct task *parent = t->parent;
	bool notify = t->leader == t && parent && t->nr_live == 0;
	__atomic_store_n(&t->switched_out, true, __ATOMIC_RELEASE);
	if (notify) {
		parent->child_events++;
		task_pin(parent); /* it may be reaped once we unlock */
	}
	spin_unlock_irqrestore(&task_lock, f);
	if (notify) {
		waitq_wake_all(&parent->child_exit);
		task_unpin(parent);
		poll_wake_all(); /* pidfds: reapable now (process_reapable) */
	}
}

/* ---- stop and continue ---- */

void process_stop(int sig)
{
	struct task *self = current, *leader = self->leader;
	struct signal_state *s = self->sig;
	uint64_t f = spin_lock_irqsave(&s->lock);
	bool first = !s->group_stopped;
	s->group_stopped = true;
	spin_unlock_irqrestore(&s->lock, f);
	if (first) {
		leader->stop_sig = sig;
		leader->stop_pending_report = true;
		struct task *parent = leader->parent;
		struct sigaction *a = &parent->sig->action[SIGCHLD];
		f = spin_lock_irqsave(&task_lock);
		parent->child_events++;
		spin_unlock_irqrestore(&task_lock, f);
		if (!(a->sa_flags & SA_NOCLDSTOP)) {
			struct ksiginfo i = { .signo = SIGCHLD, .code = CLD_STOPPED,
					      .pid = leader->tgid, .status = sig };
			signal_send_process(parent->tgid, &i);
		}
		waitq_wake_all(&parent->child_exit);
		struct ksiginfo stop = { .signo = SIGSTOP, .code = SI_KERNEL };
		process_for_each_thread(leader, signal_send_thread_cb, &stop);
	}
	self->stopped = true;
	while (s->group_stopped && !(self->sigpending & (1ULL << (SIGKILL - 1)))) {
		self->state = TASK_SLEEPING;
		if (s->group_stopped)
			schedule();
		self->state = TASK_RUNNABLE;
	}
	self->stopped = false;
}

void process_continue(struct task *t)
{
	struct task *leader = t->leader;
	if (leader->stop_sig) {
		leader->stop_sig = 0;
		leader->cont_pending_report = true;
		uint64_t f = spin_lock_irqsave(&task_lock);
		leader->parent->child_events++;
		spin_unlock_irqrestore(&task_lock, f);
		waitq_wake_all(&leader->parent->child_exit);
	}
	sched_wake(t);
}

/* ---- wait ---- */

struct wait_result {
	int pid, status, code;    /* status in wait4 form; code = CLD_* */
	struct cpu_usage usage;   /* the child's, with its reaped children's */
};

static bool wait_matches(struct task *self, struct task *c, int idtype, int id)
{
	switch (idtype) {
	case P_PID: return c->tgid == id;
	case P_PGID: return c->pgid == (id ? id : self->pgid);
	default: return true;
	}
}

/* Whether child c of me has something for wait to report: 1 with *r
 * filled (and, when reaped, c off the children list in *reap), else 0.
 * Caller holds task_lock. */
static int child_ready(struct task *me, struct task *c, int options,
		       struct wait_result *r, struct task **reap)
{
	if ((options & WEXITED) && process_reapable(c)) {
		int st = c->exit_code;
		*r = (struct wait_result){ c->tgid, st,
			(st & 0x7f) ? ((st & 0x80) ? CLD_DUMPED : CLD_KILLED) : CLD_EXITED,
			{ 0 } };
		cputime_of_child(c, &r->usage);
		if (!(options & WNOWAIT)) {
			list_remove(&c->sibling);
			cputime_reap(me, c);
			*reap = c;
		}
		return 1;
	}
	if ((options & WSTOPPED) && c->stop_pending_report && c->stop_sig) {
		*r = (struct wait_result){ c->tgid, 0x7f | (c->stop_sig << 8),
					   CLD_STOPPED, { 0 } };
		cputime_of_child(c, &r->usage);
		if (!(options & WNOWAIT))
			c->stop_pending_report = false;
		return 1;
	}
	if ((options & WCONTINUED) && c->cont_pending_report) {
		*r = (struct wait_result){ c->tgid, 0xffff, CLD_CONTINUED, { 0 } };
		cputime_of_child(c, &r->usage);
		if (!(options & WNOWAIT))
			c->cont_pending_report = false;
		return 1;
	}
	return 0;
}

/* The child of me with pid id, or NULL: a lookup in the pid table, not
 * a walk of the children (a wait for one pid costs the same however
 * many children there are). Caller holds task_lock. */
static struct task *child_by_pid(struct task *me, int id)
{
	struct task *c = pid_table_get(id);
	if (!c || c->leader != c || c->parent != me || list_empty(&c->sibling))
		return NULL;
	return c;
}

/* One scan of the children. Returns 1 with *r filled, 0 if children
 * exist but none is ready, -ECHILD if none match. */
static int scan_children(struct task *me, int idtype, int id, int options,
			 struct wait_result *r, struct task **reap)
{
	int found = -ECHILD, pid, status;
	uint64_t f = spin_lock_irqsave(&task_lock);
	int traced = ptrace_wait_scan(me, idtype, id, options, &pid, &status);
	if (traced == 1) {
		spin_unlock_irqrestore(&task_lock, f);
		*r = (struct wait_result){ pid, status, CLD_TRAPPED, { 0 } };
		return 1;
	}
	found = traced;
	if (idtype == P_PID) {
		struct task *c = child_by_pid(me, id);
		if (c)
			found = child_ready(me, c, options, r, reap);
		spin_unlock_irqrestore(&task_lock, f);
		return found;
	}
	list_for_each(n, &me->children) {
		struct task *c = list_entry(n, struct task, sibling);
		if (!wait_matches(me, c, idtype, id))
			continue;
		found = child_ready(me, c, options, r, reap);
		if (found)
			break;
	}
	spin_unlock_irqrestore(&task_lock, f);
	return found;
}

static void reap(struct task *c)
{
	task_unlist(c);
	c->state = TASK_DEAD;
	free_signal_parts(c);
	task_free(c);
}

static long do_wait(int idtype, int id, int options, struct wait_result *r)
{
	struct task *me = current->leader;
	for (;;) {
		uint64_t events = me->child_events;
		struct task *dead = NULL;
		int found = scan_children(me, idtype, id, options, r, &dead);
		if (dead)
			reap(dead);
		if (found != 0)
			return found;
		if (options & WNOHANG)
			return 0;
		long w = wait_event_interruptible(me->child_exit, me->child_events != events);
		if (w)
			return w;
	}
}

static int wait4_idtype(int pid, int *id)
{
	if (pid > 0) { *id = pid; return P_PID; }
	if (pid == 0) { *id = 0; return P_PGID; }
	if (pid == -1) { *id = 0; return P_ALL; }
	*id = -pid;
	return P_PGID;
}

static void fill_rusage(struct rusage *ru, const struct wait_result *r)
{
	cputime_to_rusage(&r->usage, ru);
}

SYSCALL_DEFINE4(wait4, pid_t, pid, int __user *, stat_addr, int, options,
		struct rusage __user *, uru)
{
	if (options & ~(WNOHANG | WUNTRACED | WCONTINUED | __WALL | __WCLONE | __WNOTHREAD))
		return -EINVAL;
	int id, idtype = wait4_idtype(pid, &id);
	struct wait_result r;
	int wopts = WEXITED | (options & WNOHANG) | (options & WCONTINUED) |
		    ((options & WUNTRACED) ? WSTOPPED : 0);
	long got = do_wait(idtype, id, wopts, &r);
	if (got <= 0)
		return got;
	if (stat_addr && put_user(r.status, stat_addr))
		return -EFAULT;
	if (uru) {
		struct rusage ru;
		fill_rusage(&ru, &r);
		if (copy_to_user(uru, &ru, sizeof(ru)))
			return -EFAULT;
	}
	return r.pid;
}

SYSCALL_DEFINE5(waitid, int, idtype, pid_t, id, siginfo_t __user *, infop, int, options,
		struct rusage __user *, uru)
{
	if (idtype != P_PID && idtype != P_PGID && idtype != P_ALL && idtype != P_PIDFD)
		return -EINVAL;
	if (idtype == P_PIDFD)
		return -EINVAL;
	if (!(options & (WEXITED | WSTOPPED | WCONTINUED)) ||
	    (options & ~(WNOHANG | WEXITED | WSTOPPED | WCONTINUED | WNOWAIT |
			 __WALL | __WCLONE | __WNOTHREAD)))
		return -EINVAL;
	if (idtype == P_PID && id <= 0)
		return -EINVAL;
	struct wait_result r = { 0 };
	long got = do_wait(idtype, id, options, &r);
	if (got < 0)
		return got;
	if (infop) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		if (got > 0) {
			si.si_signo = SIGCHLD;
			si.si_code = r.code;
			si.si_pid = r.pid;
			si.si_status = r.code == CLD_EXITED ? (r.status >> 8) & 0xff
				     : r.code == CLD_STOPPED || r.code == CLD_TRAPPED
				       ? (r.status >> 8) & 0xff
				     : r.code == CLD_CONTINUED ? SIGCONT : r.status & 0x7f;
		}
		if (copy_to_user(infop, &si, sizeof(si)))
			return -EFAULT;
	}
	if (uru) {
		struct rusage ru;
		fill_rusage(&ru, &r);
		if (copy_to_user(uru, &ru, sizeof(ru)))
			return -EFAULT;
	}
	return 0;
}

/* ---- init ---- */

extern void jump_to_user(struct trap_frame *f) __attribute__((noreturn));

struct init_args {
	const char *path;
	char *const *argv;
};

static int init_main(void *arg)
{
	struct init_args *a = arg;
	static char *const envp[] = { "PATH=/bin", "HOME=/", "TERM=vt100", NULL };
	struct task *self = current;
	mm_activate(NULL);
	long r = exec_kernel(a->path, a->argv, envp);
	if (r < 0)
		panic("cannot start init %s: error %ld", a->path, -r);
	(void)self;
	jump_to_user(current->frame);
}

int process_spawn_init(const char *path, char *const argv[])
{
	static struct init_args args;
	args.path = path;
	args.argv = argv;
	struct task *t = kthread_create(init_main, &args, "init");
	if (!t)
		return -ENOMEM;
	t->siginfo = kzalloc(sizeof(struct ksiginfo) * (NSIGNALS + 1));
	t->sig = signal_state_new();
	t->files = files_new();
	t->fs = fs_new_root();
	if (!t->siginfo || !t->sig || !t->files || !t->fs)
		return -ENOMEM;
	files_open_console(t->files);
	t->leader = t;
	t->nr_live = 1;
	t->parent = t;
	t->pgid = t->sid = t->tgid;
	t->exit_signal = SIGCHLD;
	init_task = t;
	sched_start(t);
	return t->tid;
}

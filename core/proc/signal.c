/* Signals: sending, the x86-64 signal frame, and the signal system calls.
 * See signal.h for the data model and locking. */
#include <string.h>
#include <asm/signal.h>
#include <linux/signal.h>
#include <asm/siginfo.h>
#include <asm/sigcontext.h>
#include <asm/ucontext.h>
#include <linux/errno.h>
#include "core/arch/gdt.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "process.h"
#include "sched.h"
#include "signal.h"
#include "syscall.h"
#include "task.h"
#include "tasks.h"
#include "core/mm/uaccess.h"
#include "core/fs/vfs.h"
#include "waitq.h"

#define BIT(sig) (1ULL << ((sig) - 1))
#define UNBLOCKABLE (BIT(SIGKILL) | BIT(SIGSTOP))
#define RFLAGS_USER_CHANGEABLE 0x50dd5ULL /* CF PF AF ZF SF TF DF OF RF AC, as Linux */

static const char *const names[] = {
	"?", "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT",
	"SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2",
	"SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT",
	"SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
	"SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR",
	"SIGSYS",
};

const char *signal_name(int sig)
{
	if (sig > 0 && sig < (int)ARRAY_SIZE(names))
		return names[sig];
	return sig >= 32 && sig <= NSIGNALS ? "SIGRT" : "?";
}

bool signal_dumps_core(int sig)
{
	const uint64_t core = BIT(SIGQUIT) | BIT(SIGILL) | BIT(SIGTRAP) |
			      BIT(SIGABRT) | BIT(SIGBUS) | BIT(SIGFPE) |
			      BIT(SIGSEGV) | BIT(SIGXCPU) | BIT(SIGXFSZ) | BIT(SIGSYS);
	return sig >= 1 && sig <= 31 && (core & BIT(sig));
}

static bool default_ignored(int sig)
{
	return sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT ||
	       sig > 31; /* real-time signals terminate, but only 32+ here */
}

static bool default_stops(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* ---- state objects ---- */

struct signal_state *signal_state_new(void)
{
	struct signal_state *s = kzalloc(sizeof(*s));
	if (s) {
		s->refs = 1;
		s->lock = (struct spinlock)SPINLOCK_INIT("signal");
	}
	return s;
}

struct signal_state *signal_state_copy(struct signal_state *src)
{
	struct signal_state *s = signal_state_new();
	if (s) {
		uint64_t f = spin_lock_irqsave(&src->lock);
		memcpy(s->action, src->action, sizeof(s->action));
		spin_unlock_irqrestore(&src->lock, f);
	}
	return s;
}

void signal_state_put(struct signal_state *s)
{
	if (s && __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0)
		kfree(s);
}

void signal_reset_for_exec(struct signal_state *s)
{
	uint64_t f = spin_lock_irqsave(&s->lock);
	for (int i = 1; i <= NSIGNALS; i++) {
		struct sigaction *a = &s->action[i];
		if (a->sa_handler != SIG_IGN)
			memset(a, 0, sizeof(*a));
		a->sa_flags = 0;
	}
	spin_unlock_irqrestore(&s->lock, f);
}

/* ---- sending ---- */

static bool ignored(struct task *t, int sig)
{
	__sighandler_t h = t->sig->action[sig].sa_handler;
	return h == SIG_IGN || (h == SIG_DFL && default_ignored(sig));
}

/* Drop the instances of real-time signal sig queued behind t's first
 * one. Caller holds t->sig->lock or owns t. */
static void drop_queued(struct task *t, int sig)
{
	struct ksiginfo *q = t->siginfo[sig].next;
	t->siginfo[sig].next = NULL;
	while (q) {
		struct ksiginfo *n = q->next;
		kfree(q);
		q = n;
	}
}

void signal_flush_queued(struct task *t)
{
	if (!t->siginfo)
		return;
	for (int sig = SIGRTMIN; sig <= NSIGNALS; sig++)
		drop_queued(t, sig);
}

/* A real-time signal already pending queues another instance behind it
 * (each is delivered, as Linux); when memory runs out it is dropped. */
static void queue_rt(struct task *t, const struct ksiginfo *info)
{
	struct ksiginfo *n = kmalloc(sizeof(*n));
	if (!n)
		return;
	*n = *info;
	n->next = NULL;
	struct ksiginfo **p = &t->siginfo[info->signo].next;
	while (*p)
		p = &(*p)->next;
	*p = n;
}

/* Queue sig on t. Caller holds t->sig->lock. */
static void queue_locked(struct task *t, const struct ksiginfo *info)
{
	int sig = info->signo;
	if (sig == SIGCONT) {
		t->sigpending &= ~(BIT(SIGSTOP) | BIT(SIGTSTP) | BIT(SIGTTIN) | BIT(SIGTTOU));
		t->sig->group_stopped = false;
	} else if (default_stops(sig)) {
		t->sigpending &= ~BIT(SIGCONT);
	}
	if (ignored(t, sig) && sig != SIGCONT && !(t->sigmask & BIT(sig)) &&
	    !ptrace_traced(t))
		return; /* discarded at once, as Linux does (its tracer sees it) */
	if (!(t->sigpending & BIT(sig))) {
		drop_queued(t, sig); /* none should be left: be sure */
		t->siginfo[sig] = *info;
		t->siginfo[sig].next = NULL;
	} else if (sig >= SIGRTMIN) {
		queue_rt(t, info);
	}
	t->sigpending |= BIT(sig);
}

static void kick(struct task *t, int sig)
{
	if (!(t->sigmask & BIT(sig)) || sig == SIGKILL || sig == SIGCONT) {
		if (t->state == TASK_SLEEPING || (sig == SIGKILL && t->state != TASK_ZOMBIE))
			sched_wake_first(t); /* the handler runs now */
		/* Running on another CPU: interrupted, so it takes the
		 * signal now, not at its next tick or system call. */
		if (t->state == TASK_RUNNABLE)
			sched_kick_running(t);
		if (t->state == TASK_STOPPED && (sig == SIGCONT || sig == SIGKILL))
			process_continue(t);
	}
}

/* Readers of signalfds (core/fs/signalfd.c) sleep here; every signal
 * queued wakes them and the pollers, who look at their own pending set. */
static struct waitq signalfd_wq = WAITQ_INIT(signalfd_wq);

static void notify_signalfds(void)
{
	if (!list_empty(&signalfd_wq.waiters))
		waitq_wake_all(&signalfd_wq);
	poll_wake_all();
}

/* t is the caller's own, or pinned (tasks.h). */
int signal_send_thread(struct task *t, const struct ksiginfo *info)
{
	struct signal_state *s = t ? t->sig : NULL;
	if (!s || t->state == TASK_ZOMBIE || t->state == TASK_DEAD)
		return -ESRCH;
	if (info->signo < 1 || info->signo > NSIGNALS)
		return -EINVAL;
	uint64_t f = spin_lock_irqsave(&s->lock);
	bool live = t->siginfo != NULL; /* freed under this lock at exit */
	if (live)
		queue_locked(t, info);
	spin_unlock_irqrestore(&s->lock, f);
	if (!live)
		return -ESRCH;
	kick(t, info->signo);
	notify_signalfds();
	return 0;
}

void signal_send_thread_cb(struct task *t, void *info)
{
	signal_send_thread(t, info);
}

/* The thread of process `leader` that should take a process signal;
 * pinned if it is not the leader. */
static struct task *pick_thread(struct task *leader, int sig)
{
	if (!(leader->sigmask & BIT(sig)) && leader->state != TASK_ZOMBIE)
		return leader;
	struct task *pick = leader;
	uint64_t f = spin_lock_irqsave(&task_lock);
	list_for_each(n, &leader->threads) {
		struct task *t = list_entry(n, struct task, thread_node);
		if (!(t->sigmask & BIT(sig)) && t->state != TASK_ZOMBIE &&
		    t->state != TASK_DEAD) {
			pick = t;
			task_pin(t); /* the caller unpins it */
			break;
		}
	}
	spin_unlock_irqrestore(&task_lock, f);
	return pick;
}

/* A process signal to the thread pick_thread chooses, pinned. */
static int send_to_picked(struct task *leader, const struct ksiginfo *info)
{
	struct task *t = pick_thread(leader, info->signo);
	int r = signal_send_thread(t, info);
	if (t != leader)
		task_unpin(t);
	return r;
}

int signal_send_process(int tgid, const struct ksiginfo *info)
{
	struct task *leader = task_find_pinned(tgid);
	int r = 0;
	if (!leader || leader->tgid != tgid)
		r = -ESRCH;
	else if (info->signo == 0)
		r = 0;
	else if (info->signo == SIGKILL || default_stops(info->signo) || info->signo == SIGCONT)
		/* These act on every thread. */
		process_for_each_thread(leader, signal_send_thread_cb,
					(void *)info);
	else
		r = send_to_picked(leader, info);
	if (leader)
		task_unpin(leader);
	return r;
}

int signal_send_process_via(struct task *t, const struct ksiginfo *info)
{
	int sig = info->signo;
	bool takes = sig >= 1 && sig <= NSIGNALS && !(t->sigmask & BIT(sig)) &&
		     t->state != TASK_ZOMBIE && t->state != TASK_DEAD;
	/* The ones that act on every thread go the process's way. */
	if (!takes || sig == SIGKILL || default_stops(sig) || sig == SIGCONT)
		return signal_send_process(t->tgid, info);
	return signal_send_thread(t, info);
}

static struct ksiginfo kernel_info(int sig, int code)
{
	struct ksiginfo i = { .signo = sig, .code = code };
	return i;
}

void signal_send_current(int sig)
{
	struct ksiginfo i = kernel_info(sig, SI_KERNEL);
	signal_send_thread(current, &i);
}

/* ---- signals to many processes ---- */

/*
 * A signal to a process group (or to every process) and fork exclude
 * each other, as Linux's tasklist_lock makes them: a fork either links
 * its child before the signal goes out, and the child is signalled too,
 * or finds the signal pending on its parent and fails (do_clone). Lock
 * order: group_signal_lock, then task_lock, then a sig->lock.
 */
static struct spinlock group_signal_lock = SPINLOCK_INIT("group signal");

uint64_t signal_group_lock(void)
{
	return spin_lock_irqsave(&group_signal_lock);
}

void signal_group_unlock(uint64_t flags)
{
	spin_unlock_irqrestore(&group_signal_lock, flags);
}

/* Which processes a many-process signal reaches: those of a group, or
 * (pgid 0) all but init and the sender. */
struct many_ctx {
	int pgid;
	uint64_t seq;        /* this signal's mark on the processes it reached */
	int leaders[64];
	int n;
};

static bool many_wants(const struct many_ctx *c, const struct task *t)
{
	if (t->tid != t->tgid || t->tid <= 0 || t->state == TASK_ZOMBIE ||
	    t->state == TASK_DEAD || t->group_signal_seq == c->seq)
		return false;
	if (c->pgid)
		return t->pgid == c->pgid;
	return t->tid > 1 && t->tgid != current->tgid;
}

/* Under task_lock (task_for_each): take up to 64 unmarked processes. */
static void collect_many(struct task *t, void *ctx)
{
	struct many_ctx *c = ctx;
	if (c->n < 64 && many_wants(c, t)) {
		t->group_signal_seq = c->seq;
		c->leaders[c->n++] = t->tid;
	}
}

/*
 * Send info to every process of group pgid (0: every process but init
 * and the caller), in batches until none is left unmarked; sig 0 only
 * counts them. Returns how many processes it reached.
 */
static int send_many(int pgid, const struct ksiginfo *info)
{
	static uint64_t next_seq;
	struct many_ctx c = { .pgid = pgid };
	int total = 0;
	uint64_t f = signal_group_lock();
	c.seq = ++next_seq; /* under group_signal_lock */
	do {
		c.n = 0;
		task_for_each(collect_many, &c);
		for (int i = 0; i < c.n && info->signo; i++)
			signal_send_process(c.leaders[i], info);
		total += c.n;
	} while (c.n > 0);
	signal_group_unlock(f);
	return total;
}

void signal_send_pgrp(int pgid, int sig)
{
	struct ksiginfo info = kernel_info(sig, SI_KERNEL);
	if (pgid > 0)
		send_many(pgid, &info);
}

void signal_send_perf(struct task *t, uint64_t addr, uint32_t type, uint64_t data)
{
	struct ksiginfo i = { .signo = SIGTRAP, .code = TRAP_PERF, .addr = addr,
			      .value = data, .perf_type = type };
	if (!t->sig || t->state == TASK_ZOMBIE || t->state == TASK_DEAD)
		return;
	uint64_t f = spin_lock_irqsave(&t->sig->lock);
	if (t->sigmask & BIT(SIGTRAP))
		i.perf_flags = TRAP_PERF_FLAG_ASYNC;
	queue_locked(t, &i);
	spin_unlock_irqrestore(&t->sig->lock, f);
}

void signal_force(int sig, int code, uint64_t addr)
{
	struct task *self = current;
	struct ksiginfo i = { .signo = sig, .code = code, .addr = addr };
	uint64_t f = spin_lock_irqsave(&self->sig->lock);
	struct sigaction *a = &self->sig->action[sig];
	if (a->sa_handler == SIG_IGN || (self->sigmask & BIT(sig))) {
		a->sa_handler = SIG_DFL; /* a fault nobody handles kills */
		self->sigmask &= ~BIT(sig);
	}
	self->siginfo[sig] = i;
	self->sigpending |= BIT(sig);
	spin_unlock_irqrestore(&self->sig->lock, f);
}

bool signal_pending_current(void)
{
	struct task *self = current;
	if (!self || !self->sig)
		return false;
	return (self->sigpending & ~self->sigmask) || self->sig->group_exiting ||
	       self->pt.interrupt;
}

bool fatal_signal_pending(void)
{
	struct task *self = current;
	if (!self || !self->sig)
		return false;
	/* Set by other CPUs under sig->lock; a plain read is enough here,
	 * but never one the compiler may keep in a register across a loop. */
	return (__atomic_load_n(&self->sigpending, __ATOMIC_RELAXED) & BIT(SIGKILL)) ||
	       __atomic_load_n(&self->sig->group_exiting, __ATOMIC_RELAXED);
}

/* ---- delivery ---- */

struct rt_sigframe {
	uint64_t pretcode;          /* sa_restorer */
	struct ucontext uc;
	siginfo_t info;
	/* followed by the 512-byte FXSAVE image, 16-byte aligned */
};

/* An O_ASYNC signal (fasync.c) has si_band and si_fd: si_code SI_SIGIO,
 * or POLL_* on a signal whose codes 1..6 mean nothing else (these ones
 * have their own: SEGV_MAPERR, TRAP_BRKPT, CLD_EXITED...). */
static bool sigio_layout(const struct ksiginfo *k)
{
	const uint64_t own = BIT(SIGILL) | BIT(SIGFPE) | BIT(SIGSEGV) | BIT(SIGBUS) |
			     BIT(SIGTRAP) | BIT(SIGCHLD) | BIT(SIGSYS);
	return k->code == SI_SIGIO ||
	       (k->code >= POLL_IN && k->code <= POLL_HUP && !(own & BIT(k->signo)));
}

void signal_fill_siginfo(siginfo_t *si, const struct ksiginfo *k)
{
	memset(si, 0, sizeof(*si));
	si->si_signo = k->signo;
	si->si_code = k->code;
	si->si_errno = k->errno_;
	if (sigio_layout(k)) {
		si->si_band = k->band;
		si->si_fd = k->fd;
		return;
	}
	if (k->signo == SIGTRAP && k->code == TRAP_PERF) {
		si->si_addr = (void *)k->addr;
		si->si_perf_data = k->value;
		si->si_perf_type = k->perf_type;
		si->si_perf_flags = k->perf_flags;
		return;
	}
	switch (k->signo) {
	case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE: case SIGTRAP:
		si->si_addr = (void *)k->addr;
		break;
	case SIGCHLD:
		si->si_pid = k->pid;
		si->si_uid = k->uid;
		si->si_status = k->status;
		break;
	case SIGPOLL:
		si->si_band = k->band;
		si->si_fd = k->fd;
		break;
	default:
		si->si_pid = k->pid;
		si->si_uid = k->uid;
		si->si_value.sival_ptr = (void *)k->value;
		break;
	}
}

static void save_sigcontext(struct sigcontext *sc, const struct trap_frame *f,
			    uint64_t mask, uint64_t fpstate)
{
	memset(sc, 0, sizeof(*sc));
	sc->r8 = f->r8; sc->r9 = f->r9; sc->r10 = f->r10; sc->r11 = f->r11;
	sc->r12 = f->r12; sc->r13 = f->r13; sc->r14 = f->r14; sc->r15 = f->r15;
	sc->rdi = f->rdi; sc->rsi = f->rsi; sc->rbp = f->rbp; sc->rbx = f->rbx;
	sc->rdx = f->rdx; sc->rax = f->rax; sc->rcx = f->rcx; sc->rsp = f->rsp;
	sc->rip = f->rip;
	sc->eflags = f->rflags;
	sc->cs = (uint16_t)f->cs;
	sc->ss = (uint16_t)f->ss;
	sc->trapno = f->vector < 32 ? f->vector : 0;
	sc->err = f->vector < 32 ? f->error : 0;
	sc->oldmask = mask;
	sc->fpstate = (struct _fpstate_64 *)fpstate;
}

static bool on_altstack(struct task *t, uint64_t sp)
{
	return t->altstack_size && sp - t->altstack_sp < t->altstack_size;
}

/* Build the frame on the user stack and point f at the handler. */
static int setup_frame(struct trap_frame *f, int sig, const struct sigaction *a,
		       const struct ksiginfo *k, uint64_t oldmask)
{
	struct task *self = current;
	uint64_t sp = f->rsp - 128; /* skip the red zone */
	if ((a->sa_flags & SA_ONSTACK) && self->altstack_size &&
	    !(self->altstack_flags & SS_DISABLE) && !on_altstack(self, f->rsp))
		sp = self->altstack_sp + self->altstack_size;
	sp = (sp - FPU_AREA_SIZE) & ~63ULL;
	uint64_t fpstate = sp;
	sp -= sizeof(struct rt_sigframe);
	sp = ((sp + 8) & ~15ULL) - 8; /* as after a call: (sp + 8) % 16 == 0 */

	struct rt_sigframe fr;
	memset(&fr, 0, sizeof(fr));
	fr.pretcode = (uint64_t)a->sa_restorer;
	fr.uc.uc_flags = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
	fr.uc.uc_stack.ss_sp = (void *)self->altstack_sp;
	fr.uc.uc_stack.ss_size = self->altstack_size;
	fr.uc.uc_stack.ss_flags = self->altstack_size
		? (on_altstack(self, f->rsp) ? SS_ONSTACK : 0) : SS_DISABLE;
	save_sigcontext(&fr.uc.uc_mcontext, f, oldmask, fpstate);
	fr.uc.uc_sigmask = oldmask;
	signal_fill_siginfo(&fr.info, k);

	fpu_save(self);
	if (copy_to_user((void *)fpstate, self->fpu, FPU_AREA_SIZE) ||
	    copy_to_user((void *)sp, &fr, sizeof(fr)))
		return -EFAULT;

	f->rsp = sp;
	f->rip = (uint64_t)a->sa_handler;
	f->rdi = (uint64_t)sig;
	f->rsi = sp + offsetof(struct rt_sigframe, info);
	f->rdx = sp + offsetof(struct rt_sigframe, uc);
	f->rax = 0;
	f->rflags &= ~(1ULL << 8 | 1ULL << 10); /* TF, DF clear in handlers */
	f->cs = USER_CS;
	f->ss = USER_DS;
	return 0;
}

/* Adjust a system call that was interrupted, before a handler runs (or
 * not). `handler` says whether a user handler will run. */
static void fix_restart(struct trap_frame *f, const struct sigaction *a, bool handler)
{
	if (f->vector != SYSCALL_VECTOR)
		return;
	long r = (long)f->rax;
	bool restart = false;
	if (r == -ERESTARTSYS)
		restart = !handler || (a && (a->sa_flags & SA_RESTART));
	else if (r == -ERESTARTNOINTR)
		restart = true;
	else if (r == -ERESTARTNOHAND)
		restart = !handler;
	else
		return;
	if (restart) {
		f->rax = f->error; /* the original system call number */
		f->rip -= 2;       /* back onto the syscall instruction */
	} else {
		f->rax = (uint64_t)-EINTR;
	}
}

/* The lowest pending signal of self in ready (SIGKILL first), dequeued,
 * or 0. Under self->sig->lock. */
static int dequeue_from(struct task *self, uint64_t ready, struct ksiginfo *info)
{
	if (!ready)
		return 0;
	int sig = (ready & BIT(SIGKILL)) ? SIGKILL : __builtin_ctzll(ready) + 1;
	*info = self->siginfo[sig];
	info->next = NULL;
	struct ksiginfo *n = self->siginfo[sig].next;
	if (n) { /* a real-time signal's next instance stays pending */
		self->siginfo[sig] = *n;
		kfree(n);
	} else {
		self->sigpending &= ~BIT(sig);
	}
	return sig;
}

/* Next deliverable signal of self, dequeued, or 0. */
static int dequeue(struct task *self, struct ksiginfo *info)
{
	return dequeue_from(self, self->sigpending & ~(self->sigmask & ~UNBLOCKABLE), info);
}

int signal_dequeue_set(uint64_t set, struct ksiginfo *info)
{
	struct task *self = current;
	uint64_t f = spin_lock_irqsave(&self->sig->lock);
	int sig = dequeue_from(self, self->sigpending & set, info);
	spin_unlock_irqrestore(&self->sig->lock, f);
	return sig;
}

bool signal_pending_in(uint64_t set)
{
	return __atomic_load_n(&current->sigpending, __ATOMIC_ACQUIRE) & set;
}

long signal_wait_set(uint64_t set)
{
	return wait_event_interruptible(signalfd_wq, signal_pending_in(set));
}

/* A sibling's execve sent this SIGKILL: only this thread goes. */
static bool exec_kills_me(struct task *self)
{
	struct task *e = __atomic_load_n(&self->sig->exec_task, __ATOMIC_ACQUIRE);
	return e && e != self;
}

void signal_deliver(struct trap_frame *f)
{
	struct task *self = current;
	for (;;) {
		if (self->sig->group_exiting)
			process_exit_group_now(self->sig->group_exit_code);
		if (self->pt.interrupt)
			ptrace_interrupt_stop();
		struct ksiginfo info;
		uint64_t fl = spin_lock_irqsave(&self->sig->lock);
		int sig = dequeue(self, &info);
		if (!sig) {
			spin_unlock_irqrestore(&self->sig->lock, fl);
			fix_restart(f, NULL, false);
			break;
		}
		if (ptrace_traced(self) && sig != SIGKILL) {
			/* Signal-delivery-stop: the tracer picks the signal. */
			spin_unlock_irqrestore(&self->sig->lock, fl);
			sig = ptrace_signal_stop(&info);
			if (!sig)
				continue;
			fl = spin_lock_irqsave(&self->sig->lock);
			if (self->sigmask & BIT(sig) & ~UNBLOCKABLE) {
				queue_locked(self, &info); /* blocked: pending again */
				spin_unlock_irqrestore(&self->sig->lock, fl);
				continue;
			}
		}
		struct sigaction a = self->sig->action[sig];
		if (a.sa_handler == SIG_DFL && default_ignored(sig)) {
			spin_unlock_irqrestore(&self->sig->lock, fl);
			continue;
		}
		if (a.sa_handler == SIG_IGN) {
			spin_unlock_irqrestore(&self->sig->lock, fl);
			continue;
		}
		if (a.sa_handler == SIG_DFL) {
			spin_unlock_irqrestore(&self->sig->lock, fl);
			if (default_stops(sig)) {
				process_stop(sig);
				continue;
			}
			if (sig == SIGKILL && exec_kills_me(self))
				process_exit_thread(SIGKILL);
			process_die_by_signal(sig, f);
		}
		/* A user handler. */
		uint64_t oldmask = self->restore_sigmask ? self->saved_sigmask : self->sigmask;
		self->restore_sigmask = false;
		self->sigmask |= a.sa_mask | ((a.sa_flags & SA_NODEFER) ? 0 : BIT(sig));
		self->sigmask &= ~UNBLOCKABLE;
		if (a.sa_flags & SA_RESETHAND)
			memset(&self->sig->action[sig], 0, sizeof(a));
		spin_unlock_irqrestore(&self->sig->lock, fl);
		fix_restart(f, &a, true);
		if (setup_frame(f, sig, &a, &info, oldmask) != 0) {
			signal_force(SIGSEGV, SI_KERNEL, 0);
			continue;
		}
		break; /* one handler at a time; the next on return from it */
	}
	if (self->restore_sigmask) {
		self->sigmask = self->saved_sigmask;
		self->restore_sigmask = false;
	}
}

/* ---- system calls ---- */

SYSCALL_DEFINE4(rt_sigaction, int, sig, const struct sigaction __user *, uact,
		struct sigaction __user *, uoact, size_t, setsize)
{
	if (setsize != sizeof(sigset_t) || sig < 1 || sig > NSIGNALS)
		return -EINVAL;
	struct sigaction act, old;
	if (uact && copy_from_user(&act, uact, sizeof(act)))
		return -EFAULT;
	if (uact && (sig == SIGKILL || sig == SIGSTOP))
		return -EINVAL;
	struct signal_state *s = current->sig;
	uint64_t f = spin_lock_irqsave(&s->lock);
	old = s->action[sig];
	if (uact) {
		act.sa_mask &= ~UNBLOCKABLE;
		s->action[sig] = act;
		/* Setting SIG_IGN (or DFL for an ignored one) drops pending. */
		if (ignored(current, sig)) {
			current->sigpending &= ~BIT(sig);
			drop_queued(current, sig);
		}
	}
	spin_unlock_irqrestore(&s->lock, f);
	if (uoact && copy_to_user(uoact, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE4(rt_sigprocmask, int, how, const uint64_t __user *, nset,
		uint64_t __user *, oset, size_t, sigsetsize)
{
	if (sigsetsize != sizeof(sigset_t))
		return -EINVAL;
	struct task *self = current;
	uint64_t set = 0, old = self->sigmask;
	if (nset && copy_from_user(&set, nset, sizeof(set)))
		return -EFAULT;
	if (nset) {
		set &= ~UNBLOCKABLE;
		switch (how) {
		case SIG_BLOCK: self->sigmask |= set; break;
		case SIG_UNBLOCK: self->sigmask &= ~set; break;
		case SIG_SETMASK: self->sigmask = set; break;
		default: return -EINVAL;
		}
	}
	if (oset && copy_to_user(oset, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE2(rt_sigpending, uint64_t __user *, uset, size_t, sigsetsize)
{
	if (sigsetsize != sizeof(sigset_t))
		return -EINVAL;
	uint64_t set = current->sigpending & current->sigmask;
	return copy_to_user(uset, &set, sizeof(set)) ? -EFAULT : 0;
}

SYSCALL_DEFINE2(rt_sigsuspend, const uint64_t __user *, unewset, size_t, sigsetsize)
{
	if (sigsetsize != sizeof(sigset_t))
		return -EINVAL;
	uint64_t set;
	if (copy_from_user(&set, unewset, sizeof(set)))
		return -EFAULT;
	struct task *self = current;
	self->saved_sigmask = self->sigmask;
	self->restore_sigmask = true;
	self->sigmask = set & ~UNBLOCKABLE;
	while (!signal_pending_current()) {
		self->state = TASK_SLEEPING;
		if (!signal_pending_current())
			schedule();
		self->state = TASK_RUNNABLE;
	}
	return -EINTR;
}

SYSCALL_DEFINE0(pause)
{
	struct task *self = current;
	while (!signal_pending_current()) {
		self->state = TASK_SLEEPING;
		if (!signal_pending_current())
			schedule();
		self->state = TASK_RUNNABLE;
	}
	return -ERESTARTNOHAND;
}

static bool valid_user_frame(const struct sigcontext *sc)
{
	return (sc->cs & 3) == 3 && (sc->ss & 3) == 3 && sc->rip < USER_TOP;
}

SYSCALL_DEFINE0(rt_sigreturn)
{
	struct task *self = current;
	struct trap_frame *f = current_frame();
	uint64_t at = f->rsp - 8; /* the handler's ret popped pretcode */
	struct rt_sigframe fr;
	if (copy_from_user(&fr, (void *)at, sizeof(fr)) ||
	    !valid_user_frame(&fr.uc.uc_mcontext)) {
		signal_force(SIGSEGV, SI_KERNEL, 0);
		return 0;
	}
	const struct sigcontext *sc = &fr.uc.uc_mcontext;
	f->r8 = sc->r8; f->r9 = sc->r9; f->r10 = sc->r10; f->r11 = sc->r11;
	f->r12 = sc->r12; f->r13 = sc->r13; f->r14 = sc->r14; f->r15 = sc->r15;
	f->rdi = sc->rdi; f->rsi = sc->rsi; f->rbp = sc->rbp; f->rbx = sc->rbx;
	f->rdx = sc->rdx; f->rax = sc->rax; f->rcx = sc->rcx; f->rsp = sc->rsp;
	f->rip = sc->rip;
	f->rflags = (f->rflags & ~RFLAGS_USER_CHANGEABLE) |
		    (sc->eflags & RFLAGS_USER_CHANGEABLE);
	f->cs = USER_CS;
	f->ss = USER_DS;
	f->vector = 0; /* not a system call any more: no restart logic */
	if (sc->fpstate && copy_from_user(self->fpu, sc->fpstate, FPU_AREA_SIZE) == 0) {
		((uint32_t *)self->fpu)[6] &= 0xffff; /* MXCSR: no reserved bits */
		fpu_restore(self);
	}
	self->sigmask = fr.uc.uc_sigmask & ~UNBLOCKABLE;
	return (long)sc->rax; /* syscall_dispatch stores it back into rax */
}

SYSCALL_DEFINE2(sigaltstack, const stack_t __user *, uss, stack_t __user *, uoss)
{
	struct task *self = current;
	stack_t old = {
		.ss_sp = (void *)self->altstack_sp,
		.ss_size = self->altstack_size,
		.ss_flags = self->altstack_size
			? (on_altstack(self, current_frame()->rsp) ? SS_ONSTACK : 0)
			: SS_DISABLE,
	};
	if (uss) {
		stack_t ss;
		if (copy_from_user(&ss, uss, sizeof(ss)))
			return -EFAULT;
		if (on_altstack(self, current_frame()->rsp))
			return -EPERM;
		if (ss.ss_flags & ~(SS_DISABLE | SS_AUTODISARM))
			return -EINVAL;
		if (ss.ss_flags & SS_DISABLE) {
			self->altstack_sp = self->altstack_size = 0;
		} else {
			if (ss.ss_size < MINSIGSTKSZ)
				return -ENOMEM;
			self->altstack_sp = (uint64_t)ss.ss_sp;
			self->altstack_size = ss.ss_size;
		}
		self->altstack_flags = ss.ss_flags;
	}
	if (uoss && copy_to_user(uoss, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

static struct ksiginfo user_info(int sig, int code)
{
	struct ksiginfo i = { .signo = sig, .code = code, .pid = current->tgid,
			      .uid = current->uid };
	return i;
}

static bool may_signal(struct task *t)
{
	return current->euid == 0 || current->uid == t->uid || current->euid == t->uid;
}

SYSCALL_DEFINE2(kill, pid_t, pid, int, sig)
{
	if (sig < 0 || sig > NSIGNALS)
		return -EINVAL;
	struct ksiginfo i = user_info(sig, SI_USER);
	if (pid > 0) {
		struct task *t = task_find_pinned(pid);
		int r = !t || t->tgid != pid ? -ESRCH : !may_signal(t) ? -EPERM : 0;
		if (t)
			task_unpin(t);
		return r ? r : signal_send_process(pid, &i);
	}
	if (pid == -1)
		return send_many(0, &i) ? 0 : -ESRCH;
	int pgid = pid == 0 ? current->pgid : -pid;
	if (pgid <= 0)
		return -ESRCH;
	return send_many(pgid, &i) ? 0 : -ESRCH;
}

static long send_to_thread(int tgid, int tid, int sig)
{
	if (sig < 0 || sig > NSIGNALS || tid <= 0)
		return -EINVAL;
	struct task *t = task_find_pinned(tid);
	int r = 0;
	if (!t || (tgid > 0 && t->tgid != tgid))
		r = -ESRCH;
	else if (!may_signal(t))
		r = -EPERM;
	else if (sig) {
		struct ksiginfo i = user_info(sig, SI_TKILL);
		r = signal_send_thread(t, &i);
	}
	if (t)
		task_unpin(t);
	return r;
}

SYSCALL_DEFINE2(tkill, pid_t, tid, int, sig)
{
	return send_to_thread(-1, tid, sig);
}

SYSCALL_DEFINE3(tgkill, pid_t, tgid, pid_t, tid, int, sig)
{
	if (tgid <= 0)
		return -EINVAL;
	return send_to_thread(tgid, tid, sig);
}

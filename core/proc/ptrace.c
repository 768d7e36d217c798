/*
 * ptrace(2): stops, resumption and the tracer's requests. See ptrace.h
 * for the model and the locking rules.
 */
#include <string.h>
#include <asm/ptrace.h>
#include <asm/siginfo.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include "core/arch/gdt.h"
#include "core/kernel.h"
#include "core/mm/uaccess.h"
#include "core/mm/usermm.h"
#include "process.h"
#include "ptrace.h"
#include "sched.h"
#include "signal.h"
#include "syscall.h"
#include "task.h"
#include "tasks.h"

#define RFLAGS_TF (1ULL << 8)
#define RFLAGS_USER_CHANGEABLE 0x50dd5ULL /* as signal.c and Linux */

/* <sys/user.h>'s struct user_regs_struct: the uapi pt_regs, then the
 * segment state (x86-64 Linux's layout; no uapi header exports it). */
struct user_regs {
	struct pt_regs regs;
	unsigned long fs_base, gs_base, ds, es, fs, gs;
};
/* struct user (<sys/user.h>): regs first, u_debugreg[8] at 848, 912
 * bytes in all. PEEKUSER reads the regs, zero elsewhere. */
#define USER_AREA_SIZE 912

void ptrace_task_init(struct task *t)
{
	memset(&t->pt, 0, sizeof(t->pt));
	list_init(&t->pt.node);
	list_init(&t->pt.tracees);
}

/* ---- links (task_lock) ---- */

static void link_tracee(struct task *t, struct task *tracer, unsigned flags,
			unsigned options)
{
	t->pt.tracer = tracer;
	t->pt.flags = (t->pt.flags & PT_FORCED_TF) | flags;
	t->pt.options = options;
	list_add_tail(&t->pt.node, &tracer->pt.tracees);
}

/* The forced trap flag stays: the tracee clears it on its way out of
 * ptrace_stop (apply_step). */
static void unlink_tracee(struct task *t)
{
	list_remove(&t->pt.node);
	t->pt.tracer = NULL;
	t->pt.flags &= PT_FORCED_TF;
	t->pt.options = 0;
	t->pt.interrupt = false;
	t->pt.report = false;
}

/* Let a stopped tracee go on with signal sig. Caller holds task_lock. */
static void resume_locked(struct task *t, int sig)
{
	t->pt.resume_sig = sig;
	__atomic_store_n(&t->pt.stopped, false, __ATOMIC_SEQ_CST);
	/* Pairs with ptrace_stop's fence: it sees stopped false, or we see
	 * it asleep and wake it. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	sched_wake(t);
}

/* ---- the tracee's side ---- */

static bool sigkill_pending(struct task *t)
{
	return t->sigpending & (1ULL << (SIGKILL - 1));
}

/* Set or clear the trap flag for PTRACE_SINGLESTEP, leaving a trap flag
 * the program set itself alone. Caller holds task_lock. */
static void apply_step(struct task *self)
{
	struct trap_frame *f = self->frame;
	if (self->pt.flags & PT_STEP) {
		if (!(f->rflags & RFLAGS_TF)) {
			f->rflags |= RFLAGS_TF;
			self->pt.flags |= PT_FORCED_TF;
		}
	} else if (self->pt.flags & PT_FORCED_TF) {
		f->rflags &= ~RFLAGS_TF;
		self->pt.flags &= ~PT_FORCED_TF;
	}
}

/* Tell the tracer (its leader pinned by the caller) that we stopped. */
static void notify_tracer(struct task *tracer, int status)
{
	struct task *self = current;
	bool quiet = tracer->sig &&
		     (tracer->sig->action[SIGCHLD].sa_flags & SA_NOCLDSTOP);
	if (!quiet) {
		struct ksiginfo i = { .signo = SIGCHLD, .code = CLD_TRAPPED,
				      .pid = self->tid, .uid = self->uid,
				      .status = (status >> 8) & 0xff };
		signal_send_process(tracer->tgid, &i);
	}
	waitq_wake_all(&tracer->child_exit);
}

/*
 * Stop for the tracer with wait status `status` and `info` for
 * PTRACE_GETSIGINFO, sleep until it resumes us (or SIGKILL comes), and
 * return the signal it resumed us with; -1 if we did not stop (no
 * tracer, or SIGKILL pending).
 */
static int ptrace_stop(int status, const struct ksiginfo *info)
{
	struct task *self = current;
	fpu_save(self); /* GETFPREGS reads it while we sleep */
	self->pt.status = status;
	self->pt.info = *info;
	self->pt.info.next = NULL;
	uint64_t f = spin_lock_irqsave(&task_lock);
	struct task *tracer = self->pt.tracer;
	if (!tracer || sigkill_pending(self)) {
		spin_unlock_irqrestore(&task_lock, f);
		return -1;
	}
	self->pt.resume_sig = 0;
	self->pt.stopped = true;
	self->pt.report = true;
	tracer->child_events++;
	task_pin(tracer);
	spin_unlock_irqrestore(&task_lock, f);
	notify_tracer(tracer, status);
	task_unpin(tracer);

	while (__atomic_load_n(&self->pt.stopped, __ATOMIC_ACQUIRE) &&
	       !sigkill_pending(self)) {
		self->state = TASK_SLEEPING;
		__atomic_thread_fence(__ATOMIC_SEQ_CST); /* see resume_locked */
		if (__atomic_load_n(&self->pt.stopped, __ATOMIC_ACQUIRE) &&
		    !sigkill_pending(self))
			schedule();
		self->state = TASK_RUNNABLE;
	}
	f = spin_lock_irqsave(&task_lock);
	self->pt.stopped = false;
	self->pt.report = false;
	int sig = self->pt.resume_sig;
	self->pt.resume_sig = 0;
	apply_step(self);
	spin_unlock_irqrestore(&task_lock, f);
	return sig;
}

/* A signal the tracer passed on at a stop that was not for a signal. */
static void send_self(int sig, int code)
{
	struct ksiginfo i = { .signo = sig, .code = code, .pid = current->tgid,
			      .uid = current->uid };
	signal_send_thread(current, &i);
}

static void trap_stop(int code, int status)
{
	struct ksiginfo i = { .signo = SIGTRAP, .code = code };
	int sig = ptrace_stop(status, &i);
	if (sig > 0)
		send_self(sig, SI_USER);
}

static void event_stop(int event, uint64_t msg)
{
	current->pt.eventmsg = msg;
	trap_stop(SIGTRAP | (event << 8), 0x7f | (SIGTRAP << 8) | (event << 16));
}

static void syscall_stop(void)
{
	int sig = SIGTRAP;
	if (current->pt.options & PTRACE_O_TRACESYSGOOD)
		sig |= 0x80;
	trap_stop(sig, 0x7f | (sig << 8));
}

bool ptrace_syscall_entry_stop(struct trap_frame *f)
{
	f->rax = (uint64_t)-ENOSYS; /* what the tracer sees, as on Linux */
	syscall_stop();
	if ((long)f->error == -1)
		return true; /* cancelled: rax is the result */
	f->rax = f->error;
	return false;
}

void ptrace_syscall_exit_stop(struct trap_frame *f)
{
	(void)f;
	syscall_stop();
}

int ptrace_signal_stop(struct ksiginfo *info)
{
	int sig = info->signo;
	int got = ptrace_stop(0x7f | (sig << 8), info);
	if (got < 0)
		return sig; /* no stop: the signal goes on as it was */
	if (got != sig && got > 0) {
		struct task *tracer = current->pt.tracer;
		*info = (struct ksiginfo){ .signo = got, .code = SI_USER,
					   .pid = tracer ? tracer->tgid : 0 };
	}
	return got;
}

void ptrace_interrupt_stop(void)
{
	current->pt.interrupt = false;
	trap_stop(SIGTRAP | (PTRACE_EVENT_STOP << 8),
		  0x7f | (SIGTRAP << 8) | (PTRACE_EVENT_STOP << 16));
}

/* The event a clone is, and the option that follows it. */
static int clone_event(uint64_t flags, unsigned *option)
{
	if (flags & CLONE_VFORK) {
		*option = PTRACE_O_TRACEVFORK;
		return PTRACE_EVENT_VFORK;
	}
	if ((flags & CSIGNAL) == SIGCHLD) {
		*option = PTRACE_O_TRACEFORK;
		return PTRACE_EVENT_FORK;
	}
	*option = PTRACE_O_TRACECLONE;
	return PTRACE_EVENT_CLONE;
}

/* The child's first stop: SIGSTOP, or PTRACE_EVENT_STOP when seized.
 * c has not run yet; its signal state may be shared (threads). */
static void first_stop(struct task *c)
{
	if (c->pt.flags & PT_SEIZED) {
		c->pt.interrupt = true;
		return;
	}
	uint64_t f = spin_lock_irqsave(&c->sig->lock);
	c->siginfo[SIGSTOP] = (struct ksiginfo){ .signo = SIGSTOP, .code = SI_USER };
	c->sigpending |= 1ULL << (SIGSTOP - 1);
	spin_unlock_irqrestore(&c->sig->lock, f);
}

bool ptrace_clone_attach(struct task *p, struct task *c, uint64_t flags)
{
	unsigned option;
	clone_event(flags, &option);
	if (!p->pt.tracer || (flags & CLONE_UNTRACED) || !(p->pt.options & option))
		return false;
	uint64_t f = spin_lock_irqsave(&task_lock);
	struct task *tracer = p->pt.tracer;
	if (tracer)
		link_tracee(c, tracer, p->pt.flags & PT_SEIZED, p->pt.options);
	spin_unlock_irqrestore(&task_lock, f);
	if (tracer)
		first_stop(c);
	return tracer != NULL;
}

void ptrace_clone_event(uint64_t flags, int child_tid)
{
	unsigned option;
	int event = clone_event(flags, &option);
	if (current->pt.options & option)
		event_stop(event, (uint64_t)child_tid);
}

void ptrace_exec_event(void)
{
	struct task *self = current;
	if (!self->pt.tracer)
		return;
	if (self->pt.options & PTRACE_O_TRACEEXEC)
		event_stop(PTRACE_EVENT_EXEC, (uint64_t)self->tid);
	else if (!(self->pt.flags & PT_SEIZED))
		send_self(SIGTRAP, SI_USER); /* the legacy exec SIGTRAP */
}

void ptrace_exit_event(int code)
{
	if (current->pt.tracer && (current->pt.options & PTRACE_O_TRACEEXIT))
		event_stop(PTRACE_EVENT_EXIT, (uint64_t)(unsigned)code);
}

/* The tracer's process is gone: its tracees go free, or are killed
 * with PTRACE_O_EXITKILL. */
static void release_tracees(struct task *leader)
{
	for (;;) {
		uint64_t f = spin_lock_irqsave(&task_lock);
		if (list_empty(&leader->pt.tracees)) {
			spin_unlock_irqrestore(&task_lock, f);
			return;
		}
		struct task *t = list_entry(leader->pt.tracees.next, struct task, pt.node);
		bool kill = t->pt.options & PTRACE_O_EXITKILL;
		unlink_tracee(t);
		t->pt.flags &= ~(PT_STEP | PT_SYSCALL);
		if (t->pt.stopped)
			resume_locked(t, 0);
		task_pin(t);
		spin_unlock_irqrestore(&task_lock, f);
		if (kill) {
			struct ksiginfo k = { .signo = SIGKILL, .code = SI_KERNEL };
			signal_send_thread(t, &k);
		}
		task_unpin(t);
	}
}

void ptrace_exit_unlink(bool last)
{
	struct task *self = current;
	uint64_t f = spin_lock_irqsave(&task_lock);
	struct task *tracer = self->pt.tracer;
	if (tracer) {
		unlink_tracee(self);
		tracer->child_events++;
		task_pin(tracer);
	}
	spin_unlock_irqrestore(&task_lock, f);
	if (tracer) {
		waitq_wake_all(&tracer->child_exit); /* it may wait for us */
		task_unpin(tracer);
	}
	if (last)
		release_tracees(self->leader);
}

int ptrace_wait_scan(struct task *me, int idtype, int id, int options,
		     int *pid, int *status)
{
	int found = -ECHILD;
	list_for_each(n, &me->pt.tracees) {
		struct task *t = list_entry(n, struct task, pt.node);
		if ((idtype == P_PID && t->tid != id) ||
		    (idtype == P_PGID && t->pgid != (id ? id : me->pgid)))
			continue;
		found = 0;
		if (t->pt.stopped && t->pt.report) {
			*pid = t->tid;
			*status = t->pt.status;
			if (!(options & WNOWAIT))
				t->pt.report = false;
			return 1;
		}
	}
	return found;
}

/* ---- the tracer's requests ---- */

/* PTRACE_ATTACH and PTRACE_SEIZE. The access rule is Linux's
 * ptrace_may_access, task_may_read (ids.c), which perf's attach to
 * another task uses too. */
static long attach(struct task *t, long request, unsigned long addr,
		   unsigned long options)
{
	bool seize = request == PTRACE_SEIZE;
	if (seize && (addr || (options & ~(unsigned long)PTRACE_O_MASK)))
		return -EIO;
	struct task *me = current;
	if (!t->mm || t->tgid == me->tgid || !task_may_read(t))
		return -EPERM;
	uint64_t f = spin_lock_irqsave(&task_lock);
	bool busy = t->pt.tracer || t->state == TASK_ZOMBIE || t->state == TASK_DEAD;
	if (!busy)
		link_tracee(t, me->leader, seize ? PT_SEIZED : 0,
			    seize ? (unsigned)options : 0);
	spin_unlock_irqrestore(&task_lock, f);
	if (busy)
		return -EPERM;
	if (!seize) {
		/* From the kernel, as Linux's (SEND_SIG_PRIV). */
		struct ksiginfo stop = { .signo = SIGSTOP, .code = SI_KERNEL };
		signal_send_thread(t, &stop);
	}
	return 0;
}

static long traceme(void)
{
	struct task *me = current;
	uint64_t f = spin_lock_irqsave(&task_lock);
	struct task *parent = me->leader->parent;
	long r = me->pt.tracer || !parent || parent == me->leader ? -EPERM : 0;
	if (!r)
		link_tracee(me, parent, 0, 0);
	spin_unlock_irqrestore(&task_lock, f);
	return r;
}

/* Is t our tracee, and (unless any_state) stopped for us? */
static long check_attached(struct task *t, bool any_state)
{
	uint64_t f = spin_lock_irqsave(&task_lock);
	bool ok = t->pt.tracer == current->leader &&
		  (any_state || (t->pt.stopped && t->state != TASK_ZOMBIE));
	spin_unlock_irqrestore(&task_lock, f);
	return ok ? 0 : -ESRCH;
}

static long resume(struct task *t, long request, unsigned long sig)
{
	if (sig > NSIGNALS)
		return -EIO;
	unsigned flags = t->pt.flags & ~(PT_SYSCALL | PT_STEP);
	if (request == PTRACE_SYSCALL)
		flags |= PT_SYSCALL;
	else if (request == PTRACE_SINGLESTEP)
		flags |= PT_STEP;
	uint64_t f = spin_lock_irqsave(&task_lock);
	t->pt.flags = flags;
	resume_locked(t, (int)sig);
	spin_unlock_irqrestore(&task_lock, f);
	return 0;
}

static long detach(struct task *t, unsigned long sig)
{
	if (sig > NSIGNALS)
		return -EIO;
	uint64_t f = spin_lock_irqsave(&task_lock);
	unlink_tracee(t);
	resume_locked(t, (int)sig);
	spin_unlock_irqrestore(&task_lock, f);
	return 0;
}

static long interrupt(struct task *t)
{
	if (!(t->pt.flags & PT_SEIZED))
		return -EIO;
	uint64_t f = spin_lock_irqsave(&task_lock);
	bool kick = !t->pt.stopped;
	if (kick)
		t->pt.interrupt = true;
	spin_unlock_irqrestore(&task_lock, f);
	if (kick) {
		if (t->state == TASK_SLEEPING)
			sched_wake(t);
		else if (t->state == TASK_RUNNABLE)
			sched_kick_running(t);
	}
	return 0;
}

static long kill_tracee(struct task *t)
{
	struct ksiginfo k = { .signo = SIGKILL, .code = SI_USER,
			      .pid = current->tgid, .uid = current->uid };
	signal_send_thread(t, &k); /* wakes it from a ptrace-stop */
	return 0;
}

/* ---- registers ---- */

static void get_regs(struct task *t, struct user_regs *u)
{
	const struct trap_frame *f = t->frame;
	struct pt_regs *r = &u->regs;
	memset(u, 0, sizeof(*u));
	r->r15 = f->r15; r->r14 = f->r14; r->r13 = f->r13; r->r12 = f->r12;
	r->rbp = f->rbp; r->rbx = f->rbx; r->r11 = f->r11; r->r10 = f->r10;
	r->r9 = f->r9; r->r8 = f->r8; r->rax = f->rax; r->rcx = f->rcx;
	r->rdx = f->rdx; r->rsi = f->rsi; r->rdi = f->rdi;
	r->orig_rax = f->vector == SYSCALL_VECTOR ? f->error : (unsigned long)-1;
	r->rip = f->rip;
	r->cs = f->cs;
	r->eflags = f->rflags;
	if (t->pt.flags & PT_FORCED_TF)
		r->eflags &= ~RFLAGS_TF; /* ours, not the program's */
	r->rsp = f->rsp;
	r->ss = f->ss;
	u->fs_base = t->fs_base;
	u->gs_base = t->gs_base;
}

/* Linux's checks that matter here: user selectors, user bases; and an
 * instruction pointer the return to user mode can take (Linux lets a
 * bad one fault there: EIO here). */
static long set_regs(struct task *t, const struct user_regs *u)
{
	const struct pt_regs *r = &u->regs;
	if ((r->cs & 3) != 3 || (r->ss & 3) != 3 || r->rip >= USER_TOP ||
	    u->fs_base >= USER_TOP || u->gs_base >= USER_TOP)
		return -EIO;
	struct trap_frame *f = t->frame;
	f->r15 = r->r15; f->r14 = r->r14; f->r13 = r->r13; f->r12 = r->r12;
	f->rbp = r->rbp; f->rbx = r->rbx; f->r11 = r->r11; f->r10 = r->r10;
	f->r9 = r->r9; f->r8 = r->r8; f->rax = r->rax; f->rcx = r->rcx;
	f->rdx = r->rdx; f->rsi = r->rsi; f->rdi = r->rdi;
	if (f->vector == SYSCALL_VECTOR)
		f->error = r->orig_rax;
	f->rip = r->rip;
	f->rflags = (f->rflags & ~RFLAGS_USER_CHANGEABLE) |
		    (r->eflags & RFLAGS_USER_CHANGEABLE);
	if (r->eflags & RFLAGS_TF)
		t->pt.flags &= ~PT_FORCED_TF; /* the tracer's choice now */
	f->rsp = r->rsp;
	f->cs = USER_CS;
	f->ss = USER_DS;
	t->fs_base = u->fs_base;
	t->gs_base = u->gs_base;
	return 0;
}

static long peek_user(struct task *t, unsigned long off, unsigned long data)
{
	if ((off & 7) || off >= USER_AREA_SIZE)
		return -EIO;
	unsigned long v = 0;
	if (off < sizeof(struct user_regs)) {
		struct user_regs u;
		get_regs(t, &u);
		memcpy(&v, (char *)&u + off, sizeof(v));
	}
	return put_user(v, (unsigned long __user *)data) ? -EFAULT : 0;
}

static long poke_user(struct task *t, unsigned long off, unsigned long data)
{
	if ((off & 7) || off >= sizeof(struct user_regs))
		return -EIO; /* debug registers: not through ptrace here */
	struct user_regs u;
	get_regs(t, &u);
	if (t->pt.flags & PT_FORCED_TF)
		u.regs.eflags |= t->frame->rflags & RFLAGS_TF;
	memcpy((char *)&u + off, &data, sizeof(data));
	return set_regs(t, &u);
}

/* ---- memory ---- */

/* The tracee is stopped, but a third party's SIGKILL can make it exit
 * meanwhile: its mm is used through a reference of our own. */
static long peek(struct task *t, unsigned long addr, unsigned long data)
{
	unsigned long word;
	struct mm *mm = task_mm_get(t);
	int r = mm ? mm_read(mm, addr, &word, sizeof(word)) : -1;
	if (mm)
		mm_put(mm);
	if (r)
		return -EIO;
	return put_user(word, (unsigned long __user *)data) ? -EFAULT : 0;
}

static long poke(struct task *t, unsigned long addr, unsigned long data)
{
	struct mm *mm = task_mm_get(t);
	int r = mm ? mm_write(mm, addr, &data, sizeof(data)) : -1;
	if (mm)
		mm_put(mm);
	return r ? -EIO : 0;
}

static long request_stopped(struct task *t, long request, unsigned long addr,
			    unsigned long data)
{
	struct user_regs u;
	siginfo_t si;
	switch (request) {
	case PTRACE_PEEKTEXT:
	case PTRACE_PEEKDATA:
		return peek(t, addr, data);
	case PTRACE_POKETEXT:
	case PTRACE_POKEDATA:
		return poke(t, addr, data);
	case PTRACE_PEEKUSR:
		return peek_user(t, addr, data);
	case PTRACE_POKEUSR:
		return poke_user(t, addr, data);
	case PTRACE_GETREGS:
		get_regs(t, &u);
		return copy_to_user((void __user *)data, &u, sizeof(u)) ? -EFAULT : 0;
	case PTRACE_SETREGS:
		if (copy_from_user(&u, (const void __user *)data, sizeof(u)))
			return -EFAULT;
		return set_regs(t, &u);
	case PTRACE_GETFPREGS:
		return copy_to_user((void __user *)data, t->fpu, FPU_AREA_SIZE) ? -EFAULT : 0;
	case PTRACE_GETSIGINFO:
		signal_fill_siginfo(&si, &t->pt.info);
		return copy_to_user((void __user *)data, &si, sizeof(si)) ? -EFAULT : 0;
	case PTRACE_SETOPTIONS:
		if (data & ~(unsigned long)PTRACE_O_MASK)
			return -EINVAL;
		t->pt.options = (unsigned)data;
		return 0;
	case PTRACE_GETEVENTMSG:
		return put_user((unsigned long)t->pt.eventmsg,
				(unsigned long __user *)data) ? -EFAULT : 0;
	case PTRACE_CONT:
	case PTRACE_SYSCALL:
	case PTRACE_SINGLESTEP:
		return resume(t, request, data);
	case PTRACE_DETACH:
		return detach(t, data);
	default:
		return -EIO;
	}
}

SYSCALL_DEFINE4(ptrace, long, request, long, pid, unsigned long, addr,
		unsigned long, data)
{
	if (request == PTRACE_TRACEME)
		return traceme();
	struct task *t = pid > 0 ? task_find_pinned((int)pid) : NULL;
	if (!t)
		return -ESRCH;
	long r;
	if (request == PTRACE_ATTACH || request == PTRACE_SEIZE) {
		r = attach(t, request, addr, data);
	} else {
		bool any_state = request == PTRACE_KILL || request == PTRACE_INTERRUPT;
		r = check_attached(t, any_state);
		if (!r && request == PTRACE_KILL)
			r = kill_tracee(t);
		else if (!r && request == PTRACE_INTERRUPT)
			r = interrupt(t);
		else if (!r)
			r = request_stopped(t, request, addr, data);
	}
	task_unpin(t);
	return r;
}
